"""Atomic output files: write to a temporary name beside the target, then rename.

An interrupted run never leaves a half-written file, and the result behaves like a normal write. The name is
refused first as :mod:`baseparam._output_names` refuses it (a symbolic link, a read-only file, an input of the
running command). The new file gets the permissions a plain ``open(path, "w")`` would give (or keeps the old
file's), and special files such as ``/dev/null`` are written in place instead of being replaced. Several outputs
are placed together (:func:`outputs_together`) and can be taken back until a command's end (:func:`outputs_kept`).
What a killed run leaves is removed, or put back, by a later one (:mod:`baseparam._leftovers`).
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import secrets
import stat
import threading
import time

from ._leftovers import _MOVED_ASIDE, remove_stale
from ._output_names import _one_line, _target, check_room
from .errors import StorageError


def _temp_name(real, suffix):
    """A fresh name beside ``real`` for a temporary file: ``.baseparam-PID-RANDOM.SUFFIX``.

    The name is chosen *before* the file is created, so that the caller's ``finally`` knows it even
    when a signal (Ctrl-C, SIGTERM) arrives right after the creation: with ``tempfile.mkstemp``
    the file exists a moment before its name is returned, and an interrupted run would leave it.
    The process id in the name lets a later run tell a killed run's leftover (:func:`remove_stale`).
    """
    return os.path.join(os.path.dirname(real), f".baseparam-{os.getpid()}-{secrets.token_hex(8)}{suffix}")


# The temporary files this process has claimed and not yet renamed or removed: what the command's entry
# point removes when it must end the process without unwinding the stack (baseparam._entry, a lost signal).
# Never the old files write_texts moves aside: those are the user's.
_LIVE = set()


def _claim(tmp, path):
    """Create ``tmp`` (mode 0600). A name already taken is not ours and is never touched.

    Raises
    ------
    StorageError
        Naming ``path``, when the temporary file cannot be created beside it.
    """
    _LIVE.add(tmp)                      # before it exists, as its name (see _temp_name)
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        _LIVE.discard(tmp)
        reason = "a temporary name is taken" if isinstance(exc, FileExistsError) else _one_line(exc)
        raise StorageError(f"{path}: cannot write here ({reason})") from None


FIFO_WAIT = 5.0       # seconds a named pipe given as output may take to get its reader


def _fifo_reader(path, real):
    """A write end of the named pipe ``real``, open without blocking once a reader has it open; refused if none
    comes within :data:`FIFO_WAIT` seconds (opening it for writing would block for ever).

    The caller keeps the descriptor open while it writes: were it closed first, the reader would see the end of
    its input, go, and the write's own open would block again.
    """
    import errno

    deadline = time.monotonic() + FIFO_WAIT
    while True:
        try:
            return os.open(real, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:        # ENXIO: no reader yet
                raise StorageError(f"{path}: cannot write ({_one_line(exc)})") from None
        if time.monotonic() >= deadline:
            raise StorageError(f"{path}: a named pipe that nothing reads (waited {FIFO_WAIT:g} s); not written "
                               "(start its reader first, or give a file name)")
        time.sleep(0.05)


def _mode_at_start(real, live):
    """The permissions of the output ``real`` as a write of it begins, or None for a new file: the file's own
    (:func:`_own_mode`), else those of its old version that another writer's placing has moved aside, between its two
    renames (a file system without hard links: :meth:`_Placing._keep_old`), among ``live`` (the os.DirEntry of the
    running processes' temporary files beside it, :func:`remove_stale`'s scan), else the file's own again (that
    placing ended since)."""
    mode = _own_mode(real)
    for entry in live if mode is None else ():
        match = _MOVED_ASIDE.match(entry.name)
        if match is not None and os.path.join(os.path.dirname(real), match.group(1)) == real:
            mode = _own_mode(entry.path)
            if mode is not None:
                return mode
    return mode if mode is not None else _own_mode(real)


def _mode_for(real, at_start):
    """The permissions a plain ``open(real, "w")`` would leave: the old file's, or the umask's. Its mode as the write
    began (``at_start``, :func:`_mode_at_start`) where it is missing now: another writer's placing may have moved it
    aside for a moment; taken for a missing file, a 0600 output became 0644 when two runs wrote it at once."""
    mode = _own_mode(real)
    if mode is None:
        mode = at_start
    return _default_mode() if mode is None else mode


def _own_mode(path):
    """The permissions of the regular file ``path`` names, from an open descriptor of the file itself (not through a
    link put there; a read-only or write-only file alike: O_PATH where the system has it), or None when there is
    none."""
    flags = getattr(os, "O_PATH", os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        try:                            # no permission to open it (a write-only file, no O_PATH)
            mode = os.lstat(path).st_mode
        except OSError:
            return None
    else:
        try:
            mode = os.fstat(fd).st_mode
        finally:
            os.close(fd)
    return stat.S_IMODE(mode) if stat.S_ISREG(mode) else None     # O_PATH | O_NOFOLLOW opens a link itself


def _default_mode():
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_path(path, suffix=".tmp"):
    """Yield a path to write to; on success it replaces ``path``.

    Raises
    ------
    StorageError
        With a one-line message naming ``path`` (not the temporary file); also when ``path`` is
        one of the inputs protected by :func:`inputs_protected`.
    """
    path, real = _target(path)
    if os.path.exists(real) and not stat.S_ISREG(os.stat(real).st_mode):
        reader = _fifo_reader(path, real) if stat.S_ISFIFO(os.stat(real).st_mode) else None
        try:                            # a device or FIFO: renaming over it would destroy it
            yield real
        except StorageError:            # said already, naming the output (an HDF5 write's failure)
            raise
        except OSError as exc:          # e.g. /dev/full: the output is at fault, not the input
            raise StorageError(f"{path}: cannot write ({_one_line(exc)})") from None
        finally:
            if reader is not None:
                os.close(reader)
        return
    at_start, live = _own_mode(real), []
    remove_stale(os.path.dirname(real), live=live)
    if at_start is None:                # new, or moved aside by another writer's placing (looked at before and after)
        at_start = _mode_at_start(real, live)
    tmp = _temp_name(real, suffix)
    try:
        try:
            _claim(tmp, path)
        except StorageError:
            tmp = None                  # nothing of ours to remove
            raise
        yield tmp
        os.chmod(tmp, _mode_for(real, at_start))
        together = _TOGETHER.get()
        if together is None:
            os.replace(tmp, real)
        else:                           # placed with the block's other outputs (outputs_together)
            together.staged.append((tmp, real, path))
            tmp = None
    except StorageError:
        raise
    except OSError as exc:
        raise StorageError(f"{path}: cannot write ({_one_line(exc)})") from None
    finally:
        if tmp is not None:
            _discard([tmp])


def write_text(path, text):
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    _target(path)                       # the name's own refusals first (a link, a folder)
    check_room({path: text})
    _write(path, text)


def write_bytes(path, data, suffix=".tmp"):
    """Write ``data`` (bytes or a buffer: an NPZ, a Parquet table, an MCAP bag, a figure, encoded in memory) to
    ``path`` atomically, refused first when the free space or the file size limit cannot take it
    (:func:`check_room`): their size is known once encoded, not found by the write half-way (a full disk, ``ulimit
    -f``). ``suffix`` ends the temporary file's name."""
    write_streamed(path, len(data), lambda stream: stream.write(data), suffix)


def write_streamed(path, size, write, suffix=".tmp"):
    """Write ``path`` atomically by ``write(stream)`` (a binary file open on the temporary file), with no encoded copy
    of the file held in memory (an NPZ of the arrays it writes, ``np.savez(stream, …)``; a Parquet table, an MCAP
    bag). ``size``: the bytes it writes when known beforehand (an NPZ's), refused first as :func:`write_bytes`
    refuses its data (:func:`check_room`); None when known only once written (compressed: a full disk, ``ulimit
    -f``, is then the write's own refusal, the temporary file removed)."""
    _target(path)                       # the name's own refusals first (a link, a folder)
    if size is not None:
        check_room({path: size})
    with atomic_path(path, suffix) as tmp, open(tmp, "wb") as stream:
        write(stream)


def _write(path, text):
    """:func:`write_text` once ``path`` and the room for ``text`` are checked."""
    with atomic_path(path, ".tmp") as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(text)


def write_texts(files):
    """Write several text files as a set: either all are replaced, or none is.

    Every file is first written to a temporary name beside its target; then the old files are moved
    aside and the new ones renamed into place. If a step fails, the files already replaced get their
    old versions back, so a reader never sees new files beside old ones (an exported ``NAME.json``
    beside the ``NAME.c`` it does not describe).

    Parameters
    ----------
    files : dict of str → str
        Target path → UTF-8 text.

    Raises
    ------
    StorageError
        One line naming the one file that could not be written.
    """
    targets = [_target(path) for path in files]     # the names' own refusals first (a link, a folder)
    check_room(files)
    with outputs_together():             # placed together at its end (or with an enclosing block's outputs)
        for (path, real), text in zip(targets, files.values()):
            if os.path.exists(real) and not stat.S_ISREG(os.stat(real).st_mode):
                raise StorageError(f"{path}: is not a regular file; a set of files is written only to regular files")
            _write(path, text)


def _discard(temporaries):
    """Remove the temporary files ``temporaries`` (paths), which the registry then forgets."""
    for tmp in temporaries:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _LIVE.discard(tmp)


# Seconds a set's placing waits for another writer's placing in the same folder (a few renames: milliseconds) before
# it goes ahead unlocked: a writer stopped while it held the lock (or the watchdog's take-back while the main thread
# places) must not hang the run.
_FOLDER_LOCK_WAIT = 5.0
_HELD_FOLDERS = threading.local()   # the folders this thread has locked (a placing's undo within its own place)
_LOCK_FDS = set()                   # the descriptors holding a folder's lock now, whichever thread's


def _forget_placing_locks():
    """In a child forked while another thread placed a set (its renames, an undo, a placing made final): the child
    never runs that thread's ``finally`` (the thread is not in the child).

    - ``_PLACING`` stayed held by a thread that does not exist: the child's next output (``done()`` takes it) waited
      for ever. It is a new lock in the child.
    - flock's lock belongs to the open file, shared with the child's copy of its descriptor: a worker forked then
      kept the folder locked for its whole life, every set placed there waiting the lock's 5 s. The child's copies
      are closed; the parent's lock stays the parent's."""
    global _PLACING
    _PLACING = threading.RLock()
    for fd in list(_LOCK_FDS):
        with contextlib.suppress(OSError):
            os.close(fd)
    _LOCK_FDS.clear()
    _HELD_FOLDERS.names = set()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_placing_locks)


@contextlib.contextmanager
def _folders_locked(paths):
    """Within the block, no other placing (another process's, another thread's) puts files in or takes them out of
    the folders of ``paths``: an advisory lock (``flock``) on each folder, taken in the order of their names.

    Two runs writing one set of files (``export`` twice into one folder) each rename their files in turn; unlocked,
    their renames could interleave and leave one run's files beside the other's (``o.json`` of one robot, ``o.c``
    of another). Best effort: a folder that cannot be opened or locked (no ``fcntl``, a file system without
    ``flock``), or a lock held longer than :data:`_FOLDER_LOCK_WAIT`, is gone ahead without."""
    try:
        import fcntl
    except ImportError:                 # Windows: no flock
        yield
        return
    held = getattr(_HELD_FOLDERS, "names", None)
    if held is None:
        held = _HELD_FOLDERS.names = set()
    taken = []
    try:
        for folder in sorted({os.path.dirname(os.path.abspath(path)) for path in paths} - held):
            fd = _lock_folder(fcntl, folder)
            if fd is not None:
                taken.append((folder, fd))
                _LOCK_FDS.add(fd)
                held.add(folder)
        yield
    finally:
        for folder, fd in taken:
            held.discard(folder)
            if fd in _LOCK_FDS:         # not closed already by a forked child (its number may be another's now)
                _LOCK_FDS.discard(fd)
                with contextlib.suppress(OSError):
                    os.close(fd)        # the lock goes with the descriptor


def _lock_folder(fcntl, folder):
    """A descriptor of ``folder`` holding its exclusive ``flock`` (see :func:`_folders_locked`), or None."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        deadline = time.monotonic() + _FOLDER_LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:         # another writer's placing: milliseconds
                if time.monotonic() >= deadline:
                    break
            except OSError:                 # no flock here (NFS: a folder's descriptor is read-only)
                break
            time.sleep(0.001)
    except BaseException:
        # a signal while it waits (a Ctrl-C in the sleep: raised outside the except clause that slept, it went past
        # the one that closed the descriptor): the descriptor not left open
        os.close(fd)
        raise
    os.close(fd)
    return None


class _Placing:
    """The outputs of one :func:`outputs_together` block: staged under temporary names, then put in place together,
    the old files moved aside until :meth:`done` removes them or :meth:`undo` puts them back."""

    def __init__(self):
        self.staged = []         # (tmp, real, path) of each completed output (atomic_path)
        self.steps = []          # on_discard's callables: what else to undo (a folder made for the outputs)
        self.placed = []         # (target, (device, inode) of the new file) of each target replaced so far
        self.new_files = set()   # those (device, inode): a target placed twice holds ours still after its second
        self.aside = []          # (old file moved aside, its target, its (atime, mtime) in ns)
        self.dropped = []        # old files not to go back: another writer's output has replaced ours since
        self.final = False       # done: nothing to undo any more
        self.undoing = False     # undo begun: a signal may have cut it short, and done() must finish it

    def place(self):
        """Rename each staged output over its target, the old file moved aside first; if a step fails, the targets
        replaced so far get their old versions back and every temporary name is removed.

        Raises
        ------
        StorageError
            One line naming the one file that could not be placed.
        """
        targets = {real for _tmp, real, _path in self.staged}
        # no other set's renames between those of a set of several files; one file is one rename, atomic by itself
        # (last placed wins, as ever), and waits for no lock: another program's on the folder (`flock DIR cmd`, a
        # job script's) held every `--json` 5 s. The renames under _PLACING: the watchdog's take-back waits for them
        with _folders_locked(targets if len(targets) > 1 else ()):
            try:
                with _PLACING:
                    self._place()
            except BaseException:
                self.undo()
                raise

    def _place(self):
        if self.final:      # taken back already (the watchdog's end of a stopped run): its temporary files are gone
            return
        for tmp, real, path in self.staged:
            try:
                # each move noted before it is made: a signal just after it (checked after each call) must find
                # it noted, or the old file moved aside was removed with the scratch and the set left half new
                linked = os.path.exists(real) and self._keep_old(real)
                self.placed.append((real, file_identity(tmp)))
                self.new_files.add(self.placed[-1][1])
                os.replace(tmp, real)
                if linked:
                    self._made_young(self.aside[-1][0])
            except OSError as exc:
                raise StorageError(f"{path}: cannot write ({_one_line(exc)})") from None

    def _keep_old(self, real):
        """Keep the old file ``real`` under a temporary name before the new one replaces it, noted in ``aside``.

        A hard link keeps it while ``real`` stays in place: the new file's rename is then the one change, and a run
        killed at any instruction leaves the output there, old or new. Where no hard link can be made (a file
        system without them, another user's file under protected_hardlinks) it is moved aside, named after its
        output (:meth:`_move_aside`), so that a later run finding the output missing puts it back
        (:func:`remove_stale`). Returns whether it was linked (its times are then made young once the new file is in
        place: before, they were ``real``'s too)."""
        old = _temp_name(real, ".old")
        self.aside.append((old, real, None))
        try:                                # another writer's set moved it first: FileNotFoundError, nothing kept
            info = os.stat(real)
            self.aside[-1] = (old, real, (info.st_atime_ns, info.st_mtime_ns))
            try:
                # not through a link put at the name since (where the system can tell; Windows cannot)
                os.link(real, old, **({"follow_symlinks": False} if os.link in os.supports_follow_symlinks else {}))
                return True
            except FileNotFoundError:
                raise
            except OSError:
                pass
            old = self._move_aside(real, old)
        except FileNotFoundError:
            return False
        self._made_young(old)
        return False

    def _move_aside(self, real, plain):
        """Move ``real`` aside under its output's name (``.baseparam-PID-RANDOM.NAME.old``), or ``plain`` where that
        name is too long for the file system; each name noted in ``aside`` before the move. Returns the name used."""
        import errno

        times = self.aside[-1][2]
        named = _temp_name(real, f".{os.path.basename(real)}.old")
        self.aside[-1] = (named, real, times)
        try:
            os.replace(real, named)
            return named
        except OSError as exc:
            if exc.errno != errno.ENAMETOOLONG:
                raise
        self.aside[-1] = (plain, real, times)
        os.replace(real, plain)
        return plain

    @staticmethod
    def _made_young(old):
        # as young as the move, its times given back with it (undo): a rename keeps the modification time, and an
        # output last written long ago looked, to a run on another machine (our process id unknown there), like a
        # killed run's leftover (remove_stale); not ours to touch (another user's file in a shared folder): left
        # as it is. Nor while another name holds it (the output was a hard link, to an input, a backup): its times
        # are that file's too, which a write of the output must not change
        with contextlib.suppress(OSError):
            if os.lstat(old).st_nlink == 1:
                os.utime(old)

    def undo(self):
        """Unless done: the new files out (none there if its move failed), the old ones back, the temporary names
        removed, then the on_discard steps."""
        if self.final:
            return
        # not between another writer's renames in the same folders (its set would be left half ours), then not at
        # once from the main thread and the watchdog (take_back_kept): the folders' locks first, as place() takes
        # them before its own undo takes _PLACING — the other order let the watchdog's take-back, holding _PLACING,
        # wait the whole _FOLDER_LOCK_WAIT for the lock of a main thread that itself waited for _PLACING
        with _folders_locked([real for real, _ours in self.placed] + [real for _old, real, _t in self.aside]):
            with _PLACING:
                self._undo()

    def _undo(self):
        if self.final:
            return
        self.undoing = True
        # each step forgotten once made (a signal here leaves an undo for the enclosing outputs_kept to finish, which
        # must not remove an old file already back)
        # ours only: another writer may have put its output in place since (run after run into one file, the last
        # one's stays), which neither goes nor gets our old version over it
        superseded = set()
        # a new file with an old version to go back is left for that version's rename to replace: removed first, the
        # output was missing until then (a reader found none; a SIGKILL there left none, the old version under a
        # temporary name that no later run puts back)
        restored = {real for old, real, _times in self.aside if file_identity(old) is not None}
        while self.placed:
            real, _ours = self.placed[-1]
            now = file_identity(real)
            if now is not None and now not in self.new_files:
                superseded.add(real)
            elif now is not None and real not in restored:
                with contextlib.suppress(OSError):
                    os.unlink(real)
            self.placed.pop()
        while self.aside:                           # the last first: a target named twice gets its first old file back
            old, real, times = self.aside[-1]
            if real in superseded:
                self.dropped.append(old)
            else:
                with contextlib.suppress(OSError):  # cannot put it back: kept under its name rather than lost
                    if file_identity(old) is not None and file_identity(old) == file_identity(real):
                        os.unlink(old)              # a hard link to the output never replaced (a rename: a no-op)
                    else:
                        os.replace(old, real)
                    if times is not None:
                        os.utime(real, ns=times)
            self.aside.pop()
        steps = self.steps
        self._final()
        for step in reversed(steps):
            with contextlib.suppress(OSError):
                step()

    def done(self):
        """The placing made final: the old files and the temporary names removed; or, when an undo was begun (a
        signal cut it short: the new files may be gone already), that undo finished — never an old file removed
        that was still to go back."""
        with _PLACING:
            if self.undoing:
                self._undo()
            else:
                self._final()

    def _final(self):
        with _PLACING:
            self.final, self.steps = True, []
            olds = [old for old, _real, _times in self.aside] + self.dropped
            _discard([tmp for tmp, _real, _path in self.staged] + olds)
            with contextlib.suppress(ValueError):
                _KEPT_OPEN.remove(self)


def file_identity(path):
    """(device, inode) of the file ``path`` names (not followed if a link), None if there is none: the same file
    whatever its spelling (a hard link's alike)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


# Taken while a placing is undone or made final: the watchdog's take_back_kept and the main thread's own must not
# undo one placing step by step at once (the one could remove the old file the other just put back).
_PLACING = threading.RLock()

# Every placing kept by an outputs_kept block and not yet made final, whichever thread's: what take_back_kept undoes
# (the watchdog's thread sees none of the main thread's context variables).
_KEPT_OPEN = []


def take_back_kept():
    """Undo every output placing that an :func:`outputs_kept` block still keeps: what the command's entry point does
    when it must end the process without unwinding the stack (``baseparam._entry``, a lost signal), so that a stopped
    run leaves its outputs' old versions, not the new ones with the old under a temporary name beside them. Waits
    at most a second for the main thread's renames, undo or end (``_PLACING``), then takes each set back as
    :meth:`_Placing.undo` does: after its folders' lock (the main thread's renames; another process's set, at most
    :data:`_FOLDER_LOCK_WAIT`).

    Returns
    -------
    bool
        False when :func:`settle_kept` has made the run's outputs final already (the run has ended with them: nothing
        is taken back), else True.
    """
    if not _PLACING.acquire(timeout=1.0):
        return _SETTLED != [True]
    try:
        kept, placings = _settled(False)
    finally:
        _PLACING.release()
    if not kept:
        _undo_all(placings)
    return not kept


# What settle_kept decided, once it has: [True] the kept outputs made final (the run ended with them), [False] taken
# back (the run failed or was stopped). Decided once: the watchdog's take-back and the main thread's end may race.
_SETTLED = []


def settle_kept(keep):
    """The end of a run whose :func:`outputs_kept` block held its outputs to the end of the process (the command's
    entry point): make every kept output final (``keep``: their old versions removed) or take them back (an old
    version returns). Only the first call decides (the main thread's end, or the watchdog's take-back when it ends
    a stopped run first); a later one finds its decision.

    Returns
    -------
    bool
        Whether the outputs were kept.
    """
    with _PLACING:
        kept, placings = _settled(keep)
    if not kept:
        _undo_all(placings)
    return kept


def _settled(keep):
    """settle_kept's decision, under ``_PLACING`` (the first call's ``keep``; the kept outputs made final when it
    keeps them), and the placings still to take back. Those are undone after ``_PLACING`` is let go: an undo takes its
    folders' locks before ``_PLACING`` (:meth:`_Placing.undo`)."""
    if not _SETTLED:
        _SETTLED.append(keep)
        if keep:
            for placing in list(_KEPT_OPEN):
                placing.done()
    # taken back: also what a stopped run placed after a first take-back
    return _SETTLED[0], ([] if _SETTLED[0] else list(_KEPT_OPEN))


# The outputs staged inside outputs_together (its _Placing), or None outside it.
_TOGETHER = contextvars.ContextVar("baseparam_together", default=None)

# Within outputs_kept: the blocks placed so far (their _Placing, old files still aside); None outside it.
_KEPT = contextvars.ContextVar("baseparam_kept", default=None)


@contextlib.contextmanager
def outputs_together():
    """Within the block, the files :func:`atomic_path`, :func:`write_text` and :func:`write_texts` complete stay
    under their temporary names; they are put in place together (as :func:`write_texts` does) when the block ends
    without error, and all removed when it raises (also SystemExit): a command that fails leaves none of its
    outputs — its JSON is not left behind when its figure then cannot be written (``--plot /dev/full``). Special
    files (``/dev/null``, a named pipe) are written in place at once, as ever. Nested blocks are the outer one's.
    Inside :func:`outputs_kept`, the old files stay aside until that block ends (``to_exit``: until
    :func:`settle_kept`, the process's end).
    """
    if _TOGETHER.get() is not None:
        yield
        return
    placing = _Placing()
    # set and placed within the try, restored (to None, what it was) first thing in the finally: a signal landing
    # just after the set or before the placing must not leave the block open (later writes, e.g. the next
    # bp.export's, staged for ever and never written) nor its temporary files behind
    try:
        _TOGETHER.set(placing)
        yield
        kept = _KEPT.get()
        if kept is not None:                    # seen by the watchdog's take-back from its first rename on
            _KEPT_OPEN.append(placing)
        placing.place()
        if kept is None:
            placing.done()
        else:                                   # made final, or undone, when outputs_kept ends
            kept.append(placing)
    except BaseException:
        placing.undo()
        raise
    finally:
        _TOGETHER.set(None)


@contextlib.contextmanager
def outputs_kept(to_exit=False):
    """Within the block, the outputs that :func:`outputs_together` blocks put in place can still be taken back: when
    this block raises (other than ``SystemExit(0)``), each gets its old version back (or is removed) and the folders
    made for them go, as if never placed. When it ends otherwise, they are made final; with ``to_exit`` they stay
    kept until the process ends, made final or taken back by :func:`settle_kept` (the command's entry point,
    ``baseparam._entry``: a signal while the interpreter ends, after the report, fails the run too). A command's run
    is one such block: its outputs are in place before it says ``wrote …``, and a report that then cannot be written
    (stdout a pipe whose reader left) fails the run, status 2, which leaves none of its outputs. Nested blocks are
    the outer one's.
    """
    if _KEPT.get() is not None:
        yield
        return
    placings, succeeded = [], False
    try:
        _KEPT.set(placings)
        yield
        succeeded = True
    except SystemExit as exc:
        if exc.code not in (0, None):
            _undo_all(placings)
        else:
            succeeded = True
        raise
    except BaseException:
        _undo_all(placings)
        raise
    finally:
        _KEPT.set(None)
        if not (succeeded and to_exit):         # held: kept until the process ends (settle_kept)
            for placing in placings:            # made final (a no-op for those undone)
                placing.done()


def _undo_all(placings):
    """Undo ``placings``, the last placed first (a target written by two blocks gets its first old version back)."""
    for placing in reversed(placings):
        placing.undo()


def make_folders(folder, with_outputs=True):
    """``os.makedirs(folder, exist_ok=True)``; the folders it made (deepest first) are removed again if they stay
    empty — when it fails part-way, and (``with_outputs``) within :func:`outputs_together` when the block's outputs
    are discarded.

    Returns
    -------
    list of str
        The folders made, deepest first (for :func:`remove_folders`).
    """
    made, parent = [], os.path.abspath(os.fspath(folder))
    while not os.path.lexists(parent) and parent != os.path.dirname(parent):
        made.append(parent)
        parent = os.path.dirname(parent)
    try:
        os.makedirs(folder, exist_ok=True)
    except BaseException:
        remove_folders(made)
        raise
    if with_outputs:
        on_discard(lambda: remove_folders(made))
    return made


def remove_folders(folders):
    """Remove ``folders`` (deepest first) while they are empty."""
    import errno

    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError as exc:
            # never made: make_folders counts every missing level, and makedirs may fail before the deepest (a path
            # beyond PATH_MAX: the 20 levels it had made were left behind by a refused `export --out`)
            if exc.errno in (errno.ENOENT, errno.ENAMETOOLONG):
                continue
            break                      # not empty (another writer's files): left alone, and the folders above it


def on_discard(step):
    """Within :func:`outputs_together`, call ``step()`` if the block fails and its outputs are discarded (a folder
    made for them: export's ``out_dir``); elsewhere nothing."""
    together = _TOGETHER.get()
    if together is not None:
        together.steps.append(step)
