"""Atomic output files: write to a temporary name beside the target, then rename.

An interrupted run never leaves a half-written file, and the result behaves like a normal
write, with two exceptions: an output file that is read-only is refused (as coreutils' ``cp`` refuses it; a
rename would replace it silently), and an output whose name is a symbolic link is refused, whether the caller
named it (``--json out.json``) or the library derived it (``export``'s files in ``out_dir``) — a
link baseparam did not create must not redirect its write elsewhere (a link to a robot description,
to ``~/.bashrc``). Only the last component is checked, as ``O_NOFOLLOW`` does: a linked *folder* on
the way (``/tmp`` on some systems, a linked home) is the user's own layout. The new file gets the permissions a plain
``open(path, "w")`` would give (or keeps the old file's), and special files such as
``/dev/null`` are written in place instead of being replaced. Inside :func:`inputs_protected` (a
command's input files), no output may replace an input: a mistyped ``--json robot.yaml`` must not
destroy the description it was computed from.
"""
from __future__ import annotations

import contextlib
import contextvars
import json
import math
import os
import re
import secrets
import stat
import threading
import time

from .errors import StorageError, printable


# real paths of the files the running command reads (see inputs_protected)
_INPUTS = contextvars.ContextVar("baseparam_inputs", default=())


def same_file(a, b) -> bool:
    """Whether two paths name one file (through symbolic and hard links)."""
    a, b = os.path.realpath(os.fspath(a)), os.path.realpath(os.fspath(b))
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:                      # one of them does not exist (yet)
        return False


def inside(path, folder) -> bool:
    """Whether ``path`` lies within the existing folder ``folder`` (through links): a ROS 2 bag is a folder whose
    files (metadata.yaml, its .mcap or .db3) are the input as much as the folder's name is."""
    folder = os.path.realpath(os.fspath(folder))
    return os.path.isdir(folder) and os.path.realpath(os.fspath(path)).startswith(folder.rstrip(os.sep) + os.sep)


@contextlib.contextmanager
def inputs_protected(paths):
    """Within the block, :func:`atomic_path` refuses to write over any of ``paths``."""
    token = _INPUTS.set(_INPUTS.get() + tuple(os.path.realpath(os.fspath(p)) for p in paths))
    try:
        yield
    finally:
        _INPUTS.reset(token)


def robot_protected(*robots):
    """:func:`inputs_protected` for the description files the robots were read from (``Robot.source_file``): a library
    writer given a robot (``find_and_store(robot, "robot.yaml")``) must not destroy the file the robot came from,
    which the CLI protects as one of its inputs. Robots built in code have no file and protect nothing."""
    return inputs_protected([robot.source_file for robot in robots if getattr(robot, "source_file", None)])


def _one_line(exc):
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    # HDF5's report of a failed write ("file write failed: time = …, filename = '.baseparam-….tmp', file descriptor
    # = 5, errno = 28, error message = …, buf = 0x…"; "unable to extend file properly, errno = 27, …" at its close):
    # the system's reason is what the user can act on
    code = re.search(r"\berrno = ([1-9]\d*)", text)
    if code:
        text = os.strerror(int(code.group(1)))
    return " ".join(text.split())


def _temp_name(real, suffix):
    """A fresh name beside ``real`` for a temporary file: ``.baseparam-PID-RANDOM.SUFFIX``.

    The name is chosen *before* the file is created, so that the caller's ``finally`` knows it even
    when a signal (Ctrl-C, SIGTERM) arrives right after the creation: with ``tempfile.mkstemp``
    the file exists a moment before its name is returned, and an interrupted run would leave it.
    The process id in the name lets a later run tell a killed run's leftover (:func:`remove_stale`).
    """
    return os.path.join(os.path.dirname(real), f".baseparam-{os.getpid()}-{secrets.token_hex(8)}{suffix}")


# A temporary file untouched this long whose process is gone is a killed run's (SIGKILL runs no
# ``finally``); one of a name without a process id (earlier versions) after a day.
STALE_SECONDS = 600
STALE_SECONDS_WITHOUT_PID = 86_400
_STALE = re.compile(r"^\.baseparam-(?:(\d+)-)?[0-9a-f]{16}\.")


def remove_stale(folder, now=None, live=None):
    """Remove the temporary files that killed runs left in ``folder``.

    Called before each write into a folder. A file is removed only when its name is one of ours,
    it is a regular file, and it has not changed for :data:`STALE_SECONDS` while no process has the
    id in its name (:data:`STALE_SECONDS_WITHOUT_PID` for names without one): a live writer, here or
    on another machine sharing the folder, keeps its file changing.

    An old version a killed run moved aside under its output's name (``.baseparam-PID-RANDOM.NAME.old``, where
    the output could not be kept by a hard link: see :meth:`_Placing._place`) is put back instead when the output
    NAME is missing: the run was killed between its two renames.

    ``live``: a list, extended in the same scan with the os.DirEntry of the temporary files of running processes
    (this one's too): another writer's old version of an output moved aside (:func:`_mode_at_start`).
    """
    young = []                          # one scan of the folder gives both
    stale = stale_entries(folder, ".baseparam-", _STALE, stat.S_ISREG, now, young, live)
    kept = _restore_moved_aside(stale + young)
    _discard(entry.path for entry in stale if entry.path not in kept)
    _report_orphans([entry for entry in young if entry.path not in kept])


# The old version of the output NAME moved aside by the two renames of a placing without a hard link: group 1 NAME
# (any character: a name with a newline is a name, and its old version was removed as a leftover instead)
_MOVED_ASIDE = re.compile(r"\.baseparam-\d+-[0-9a-f]{16}\.(.+)\.old\Z", re.DOTALL)


def _restore_moved_aside(entries):
    """Put back, under their output's name, the old versions among ``entries`` (os.DirEntry of a killed run's
    files) whose output is missing, and say it (a warning each). Returns the paths not to remove (a set): those put
    back, and those that could not be (no room for the name, a folder made read-only), the only version of a missing
    output, kept for a later run to put back."""
    from ._warnings import warn

    kept = set()
    for entry in entries:
        match = _MOVED_ASIDE.match(entry.name)
        if match is None:
            continue
        target = os.path.join(os.path.dirname(entry.path), match.group(1))
        if os.path.lexists(target):
            continue
        kept.add(entry.path)
        if not _rename_without_replacing(entry.path, target):
            continue
        warn(f"{printable(target)}: was missing, its old version put back from {printable(entry.name)} (a run was "
             "killed between moving it aside and placing the new one)")
    return kept


def _rename_without_replacing(source, target):
    """Rename ``source`` to ``target`` unless ``target`` exists (a hard link, then the old name removed; where the
    file system has none, a rename the system refuses over an existing name: :func:`_rename_no_replace`). Whether it
    was renamed."""
    try:
        os.link(source, target)
    except FileExistsError:
        return False
    except OSError:
        try:
            return _rename_no_replace(source, target)
        except OSError:
            return False
    with contextlib.suppress(OSError):
        os.unlink(source)
    return True


def _rename_no_replace(source, target):
    """Rename ``source`` to ``target`` in one step that fails when ``target`` exists: Linux's ``renameat2`` with
    RENAME_NOREPLACE, macOS's ``renamex_np`` with RENAME_EXCL, Windows' own rename. A look at the name, then a
    rename, let another writer's output placed between the two be replaced by the old version put back; only where
    the system has no such call (or the file system refuses it) is that done still.

    Returns
    -------
    bool
        Whether it was renamed (False: ``target`` exists).

    Raises
    ------
    OSError
        The rename's other failures.
    """
    import errno

    if os.name == "nt":                         # its rename never replaces
        try:
            os.rename(source, target)
        except FileExistsError:
            return False
        return True
    call = _no_replace_call()
    if call is not None:
        import ctypes

        if call(os.fsencode(source), os.fsencode(target)) == 0:
            return True
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            return False
        if code not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise OSError(code, os.strerror(code), source)
    if os.path.lexists(target):                 # no such call here: a last look, then the rename
        return False
    os.rename(source, target)
    return True


_NO_REPLACE = []        # the system's rename that refuses an existing name, once looked up (None: it has none)


def _no_replace_call():
    """``call(source, target)`` (bytes) renaming without replacing (0, else -1 and ctypes' errno), or None."""
    if not _NO_REPLACE:
        _NO_REPLACE.append(_look_up_no_replace())
    return _NO_REPLACE[0]


def _look_up_no_replace():
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    at_cwd, rename_noreplace, rename_excl = -100, 1, 4
    if hasattr(libc, "renameat2"):              # glibc 2.28, musl 1.2.2
        renameat2 = libc.renameat2
        renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        return lambda source, target: renameat2(at_cwd, source, at_cwd, target, rename_noreplace)
    if hasattr(libc, "renamex_np"):             # macOS 10.12
        renamex_np = libc.renamex_np
        renamex_np.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
        return lambda source, target: renamex_np(source, target, rename_excl)
    return None


_REPORTED = set()       # the young orphans already reported by this process


def _report_orphans(young):
    """Say (a warning, once per file) the temporary files of runs that are gone but changed less than
    :data:`STALE_SECONDS` ago (``young``: their os.DirEntry): a rerun right after a SIGKILL found them and said
    nothing. They are not removed yet: a run on another machine sharing the folder may have the same process id, and
    still be writing."""
    from ._warnings import warn

    for entry in young:
        if entry.path not in _REPORTED:
            _REPORTED.add(entry.path)
            pid = _STALE.match(entry.name).group(1)
            warn(f"{printable(entry.path)}: a temporary file of an earlier run (process {pid}, not running on this "
                 f"machine: killed, or another machine's writer?); removed once unchanged for "
                 f"{STALE_SECONDS // 60} minutes, or remove it yourself")


def stale_entries(folder, prefix, pattern, kind, now=None, young=None, live=None):
    """The entries of ``folder`` that killed runs left: named ``prefix``… and matching ``pattern`` (its group 1 the
    process id, or None), of the file type ``kind`` (``stat.S_ISREG``, ``stat.S_ISDIR``; a link never), unchanged for
    :data:`STALE_SECONDS` while no process has that id (:data:`STALE_SECONDS_WITHOUT_PID` for names without one).
    ``young``: a list, extended in the same scan with those with a process id no process has that changed less than
    :data:`STALE_SECONDS` ago; ``live``: a list, extended with those whose process runs.

    Returns
    -------
    list of os.DirEntry
    """
    now = time.time() if now is None else now
    try:
        matches = [(e, pattern.match(e.name)) for e in os.scandir(folder or ".") if e.name.startswith(prefix)]
    except OSError:
        return []
    stale = []
    for entry, match in matches:
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not kind(info.st_mode):
            continue
        pid, age = match.group(1), now - info.st_mtime
        if pid is None:
            if age >= STALE_SECONDS_WITHOUT_PID:
                stale.append(entry)
        elif not _alive(int(pid)):
            if age >= STALE_SECONDS:
                stale.append(entry)
            elif young is not None:
                young.append(entry)
        elif live is not None:
            live.append(entry)
    return stale


def host_name():
    """This machine's name as it goes into the names of a run's folders (letters, digits, '.', '-')."""
    import socket

    return re.sub(r"[^A-Za-z0-9.-]", "_", socket.gethostname()) or "_"


def run_prefix(prefix):
    """``PREFIX`` + ``PID-HOST-``: the start of the name of a folder of this run (tempfile.mkdtemp adds the rest),
    which :func:`remove_stale_folders` judges once the run is gone."""
    return f"{prefix}{os.getpid()}-{host_name()}-"


# The end tempfile.mkdtemp gives a name: 8 of these characters. A pattern of run folders' names ends with it: one
# that stopped after '-HOST-' took the names of a machine 'HOST-1' (a live run there) for this one's.
RANDOM_END = "[a-z0-9_]{8}$"


def run_folder_names(prefix):
    """The pattern of the names of the folders :func:`run_prefix` (``prefix``) names on this machine, group 1 their
    process id; and of the ``PREFIX``-PID-RANDOM of earlier versions, without the host, group 1 None: those may be a
    live run's on another machine, so :func:`stale_entries` takes them as names without an id, after a day."""
    return re.compile(rf"^{re.escape(prefix)}(?:(\d+)-{re.escape(host_name())}-|\d+-){RANDOM_END}")


def remove_stale_folders(folder, prefix, pattern, ours=None, now=None):
    """Remove the folders that killed runs of this user on this machine left in ``folder``; returns their names.

    The one rule for every folder a run makes for itself (SIGKILL runs no clean-up): named ``prefix``… matching
    ``pattern`` (its group 1 the process id; the names of :func:`run_prefix` carry this machine's name after it, so
    the pattern of :func:`run_folder_names` never matches another machine's), judged stale by :func:`stale_entries`
    (a real folder, not a link; unchanged for :data:`STALE_SECONDS` while no process has the id), owned by this
    user, and, with ``ours`` (a test of the os.DirEntry), holding what our runs put there. The host name keeps a live
    run's on another machine (or container) sharing the folder out of reach: its process id is no process here, and
    its folder's own time stays unchanged while files change inside."""
    user = os.getuid() if hasattr(os, "getuid") else None        # no owners to tell apart on Windows
    removed = []
    for entry in stale_entries(folder, prefix, pattern, stat.S_ISDIR, now):
        with contextlib.suppress(OSError):
            if user is not None and entry.stat(follow_symlinks=False).st_uid != user:
                continue
            if ours is not None and not ours(entry):
                continue
            remove_tree(entry.path)
            if not os.path.lexists(entry.path):
                removed.append(entry.name)
    return removed


def remove_tree(folder):
    """Remove the folder ``folder`` and what it holds, as far as possible, without an error.

    ``shutil.rmtree`` walks with two descriptors open at once: at the process's limit (``ulimit -n``; matplotlib
    keeps its font files open) it failed at once and silently, and ``--plot``'s private folder with its font list was
    left in $TMPDIR by a run that ended well. What it leaves is removed again one descriptor at a time."""
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    if os.path.isdir(folder) and not os.path.islink(folder):
        _remove_one_at_a_time(folder)


def _remove_one_at_a_time(folder):
    try:
        names = os.listdir(folder)                  # its descriptor is closed before the removals
    except OSError:                                 # not even one descriptor free: an empty folder still goes
        names = []
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            _remove_one_at_a_time(path)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def private_folder(prefix):
    """A new folder ``$TMPDIR/PREFIX-PID-HOST-RANDOM`` for a run's own files (matplotlib's configuration and font
    list, a Dask cluster's scratch), removed by its user when done. The ones of killed runs of this user on this
    machine are removed first (:func:`remove_stale_folders`): nothing else ever removed them."""
    import tempfile

    remove_stale_folders(tempfile.gettempdir(), f"{prefix}-", run_folder_names(f"{prefix}-"))
    return tempfile.mkdtemp(prefix=run_prefix(f"{prefix}-"))


def _alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:              # another user's process
        return True
    except (OverflowError, OSError):     # not a process id at all
        return False
    return True


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


def _target(path):
    """``path`` and its real path, refused when it is a directory, one of the protected inputs, or a
    symbolic link (its last component only, as ``O_NOFOLLOW``; see the module's docstring)."""
    from ._checks import check_path     # here, not at the top: numpy, which `baseparam CMD --help` need not load

    path = check_path(path, "path", error=StorageError)     # a wrong type or a NUL: refused before any system call
    if not path:
        raise StorageError("output path is empty")
    label = printable(path)                                   # messages on one line, whatever the name
    if os.path.islink(path):
        raise StorageError(f"{label}: is a symbolic link (to {os.readlink(path)!r}), which baseparam did not create; "
                           "not written through (remove the link, or choose another output)")
    _refuse_unresolvable(path, label)
    if _STALE.match(os.path.basename(path)):   # a later run writing here would remove it (remove_stale)
        raise StorageError(f"{label}: is named as baseparam's temporary files (.baseparam-PID-RANDOM.…), which a "
                           "later run removes as a killed run's leftover; choose another name")
    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise StorageError(f"{label}: is a directory, expected a file name")
    if path.endswith(("/", os.sep)):        # realpath drops the slash: 'out.json/' would become the file out.json
        raise StorageError(f"{label}: ends in '/', a folder's name; expected a file name")
    for source in _INPUTS.get():        # writing would replace the input, or change it (a file in an input folder)
        if same_file(real, source):
            raise StorageError(f"{label}: is an input of this run; writing it would destroy it (choose another name)")
        if inside(real, source):
            raise StorageError(f"{label}: is inside {printable(source)}, an input folder of this run; writing there "
                               "would change that input (choose another folder)")
    # after the input's refusal: "remove it" is no advice for a read-only robot description named as an output
    if _read_only(real):
        raise StorageError(f"{label}: is read-only; remove it or choose another name")
    return path, real


def _read_only(real):
    """Whether ``real`` is a regular file that is read-only: no write permission for anyone (0444, which the superuser
    could write over), or none for this process. A rename would replace it silently (the folder's permission is what
    a rename asks); coreutils' ``cp`` refuses it, and so does every writer here. Special files are written in place,
    and a missing file is new. On a file system mounted read-only (where "remove it" is no advice either) the folder's
    own refusal says so (:func:`unwritable`, the write's)."""
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return False
    if not stat.S_ISREG(mode) or _read_only_mount(real):
        return False
    if not mode & 0o222:
        return True
    # os.access is False for a file gone since (another writer moving it aside, or its undo): a new file, no refusal
    return not os.access(real, os.W_OK, effective_ids=os.access in os.supports_effective_ids) and os.path.exists(real)


def _read_only_mount(path):
    """Whether the file system of ``path`` is mounted read-only (False where it cannot be told: no statvfs)."""
    try:
        return bool(os.statvfs(path).f_flag & getattr(os, "ST_RDONLY", 1))
    except (AttributeError, OSError):
        return False


def _refuse_unresolvable(path, label):
    """Refuse the names the system would not open as a file but :func:`os.path.realpath` turns into one, since the
    write goes to the real path: a last component '.' or '..' (``link/.`` became the link's target, written through
    the link; ``out.json/.`` the file out.json), and a folder part with '..' after something that is no folder
    (``a_file/../out.json``, ``missing/../out.json``: realpath takes '..' by itself, the system fails). ``label``:
    ``path`` as messages show it. Other missing folders are left to the write, or the command, to report.

    Raises
    ------
    StorageError
    """
    name = os.path.basename(path)
    if name in (".", ".."):
        raise StorageError(f"{label}: ends in {name!r}, a folder's name; expected a file name")
    reason = unresolvable_folder(os.path.dirname(path))
    if reason is not None:
        raise StorageError(f"{label}: cannot write here ({reason})")


def unresolvable_folder(folder):
    """Why the system could not use ``folder`` as written while :func:`os.path.realpath` (and ``os.makedirs``) would:
    a '..' in it after something that is no folder (``a_file/..``, ``missing/..``: realpath takes '..' by itself, the
    system fails; ``os.makedirs('x.json/..')`` made a folder x.json, not the output's), or None.

    Returns
    -------
    str or None
        The system's words (``Not a directory``, ``No such file or directory``).
    """
    import errno

    parts = re.split(r"([\\/])" if os.altsep else "(/)", os.fspath(folder))
    if ".." not in parts:
        return None
    last = len(parts) - parts[::-1].index("..")             # the path up to its last '..', which must resolve
    try:
        if stat.S_ISDIR(os.stat("".join(parts[:last])).st_mode):
            return None
        return os.strerror(errno.ENOTDIR)
    except OSError as exc:
        return _one_line(exc)


def check_output(path):
    """Refuse ``path`` as :func:`atomic_path` would (a link, a folder, a protected input), and a folder that cannot
    take it (:func:`unwritable`), before work that is costly or whose checks would otherwise speak first (the free
    space of ``/proc/self/fd``, 0 bytes, for a link there).

    Raises
    ------
    StorageError
    """
    path, _real = _target(path)
    problem = unwritable(path)
    if problem is not None:
        raise StorageError(f"{printable(path)}: {problem}")


def unwritable(path, made=False):
    """Why a file ``path`` cannot be written, as far as that is known before writing it, or None: the folder that
    would hold it (with ``made``, a folder the caller makes when missing: its nearest existing one) is on a read-only
    file system, is not writable by this process, or has no byte or no inode free. The write would find each of them
    only after the work (minutes of `excite`, of a consistent fit). A special file (``/dev/null``, a named pipe) is
    written in place, and a missing folder (not ``made``) is left to the caller's or the write's own refusal.

    Returns
    -------
    str or None
        ``cannot write here (REASON)`` or ``cannot make its folder in FOLDER (REASON)``, REASON in the system's
        words (``Read-only file system``, ``Permission denied``, ``No space left on device``).
    """
    import errno

    real = os.path.realpath(os.fspath(path))
    try:
        if os.path.lexists(real) and not stat.S_ISREG(os.stat(real).st_mode):
            return None
    except OSError:
        return None
    folder = os.path.dirname(real)
    while not os.path.isdir(folder):
        parent = os.path.dirname(folder)
        if not made or parent == folder or os.path.lexists(folder):   # a file in the way: the write says so
            return None
        folder = parent
    reason = None
    try:
        info = os.statvfs(folder)
    except (AttributeError, OSError):                       # no statvfs (Windows), or no figures
        info = None
    if info is not None and info.f_flag & getattr(os, "ST_RDONLY", 1):
        reason = os.strerror(errno.EROFS)
    elif not os.access(folder, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        reason = os.strerror(errno.EACCES)
    elif free_space(os.path.join(folder, "x")) == 0:
        reason = f"{os.strerror(errno.ENOSPC)}: 0 bytes free"
    elif file_size_limit() == 0:
        reason = f"{os.strerror(errno.EFBIG)}: this process may write no byte to a file, ulimit -f 0"
    elif info is not None and info.f_files > 0 and (info.f_ffree if _superuser() else info.f_favail) == 0:
        reason = f"{os.strerror(errno.ENOSPC)}: no file entry (inode) free"
    if reason is None:
        return None
    if folder == os.path.dirname(real):
        return f"cannot write here ({reason})"
    return f"cannot make its folder in {printable(folder)} ({reason})"


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


def check_room(files):
    """Refuse, before writing, contents (path → UTF-8 text, bytes, or their size in bytes) that the free space of
    their file systems cannot hold — their sizes are known: a full disk is said with the figures, not found by the
    write. Special files and folders whose free space cannot be read are left to the write."""
    from ._memory import format_size

    needed = {}
    largest = file_size_limit()
    for path, text in files.items():
        real = os.path.realpath(os.fspath(path))
        if os.path.exists(real) and not stat.S_ISREG(os.stat(real).st_mode):
            continue                                    # /dev/null, a named pipe: written in place
        try:
            device = os.stat(os.path.dirname(real)).st_dev
        except OSError:
            continue
        if isinstance(text, int):                       # a size known without the contents (write_streamed)
            size = text
        else:
            size = len(text) if isinstance(text, (bytes, bytearray, memoryview)) else len(text.encode("utf-8"))
        if largest is not None and size > largest:
            raise StorageError(f"{printable(os.fspath(path))}: cannot write: {format_size(size)} to write, more than "
                               f"the {format_size(largest)} a file of this process may take (ulimit -f)")
        first, first_real, total = needed.get(device, (path, real, 0))
        needed[device] = (first, first_real, total + size)
    for path, real, total in needed.values():
        free = free_space(real)
        if free is not None and total > free:
            raise StorageError(f"{printable(os.fspath(path))}: cannot write: {format_size(total)} to write, "
                               f"{format_size(free)} free on its file system")


def has_room(path, size):
    """Whether :func:`check_room` takes ``size`` bytes for ``path`` (the free space of its file system, the file size
    limit)."""
    try:
        check_room({path: size})
    except StorageError:
        return False
    return True


def _superuser():
    """Whether this process runs as the superuser, for whom a file system keeps blocks and inodes of its own (never
    on Windows)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def file_size_limit():
    """The bytes this process may write to one file (``ulimit -f``, RLIMIT_FSIZE), or None when unlimited or unknown.

    A write beyond it fails with EFBIG (Python ignores SIGXFSZ) only once the work is done: `excite` designed its
    trajectory, `find --h5` wrote part of Z, then "File too large". Like the free space, it is checked first."""
    try:
        import resource
        soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    except (ImportError, AttributeError, OSError, ValueError):     # no such limit (Windows)
        return None
    return None if soft == resource.RLIM_INFINITY or soft < 0 else soft


def free_space(path):
    """The bytes free for us (the superuser: also those its file system keeps for it) on the file system of the folder
    that holds ``path``, or None where they cannot be read: an error (no such folder), or a file system that gives no
    figures at all (a FUSE mount without statfs says 0 bytes of 0; taken at its word, every write into it was refused
    as larger than the free space)."""
    import shutil

    try:
        usage = shutil.disk_usage(os.path.dirname(os.path.abspath(os.fspath(path))))
    except (OSError, TypeError, ValueError):
        return None
    if usage.total <= 0:
        return None
    if _superuser():
        # the blocks a file system keeps for the superuser (5 % of ext4's) are free for it: counted as used, a
        # write that fits was refused on a disk nearly full for other users
        return max(usage.free, usage.total - usage.used)
    return usage.free


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


def _json_ready(value):
    """``value`` with every NaN or infinite float (Python or numpy) replaced by None, tuples as lists."""
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):      # numpy's float64 is a float
        return None
    if hasattr(value, "dtype") and hasattr(value, "tolist"):       # numpy scalars and arrays
        return _json_ready(value.tolist())
    return value


def json_text(doc):
    """``doc`` as strict JSON text (indented, with a final newline): NaN and ±inf are written as ``null``,
    never as the bare ``NaN``/``Infinity`` that strict readers refuse. Every JSON file baseparam writes
    goes through here."""
    return json.dumps(_json_ready(doc), indent=2, allow_nan=False) + "\n"
