"""What killed runs leave behind, found and removed (or put back) by a later run: a SIGKILL runs no ``finally``.

Temporary files beside an output (``.baseparam-PID-RANDOM.SUFFIX``, removed once stale; an old version moved aside
under its output's name, put back where that output is missing), and the folders a run makes for itself
(``PREFIX-PID-HOST-RANDOM``: matplotlib's configuration, a Dask cluster's scratch, a compile's), removed once their
process is gone. A process id no process has, on this machine, for long enough, is what makes them a killed run's.
"""
from __future__ import annotations

import contextlib
import os
import re
import stat
import time

from .errors import printable


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
    the output could not be kept by a hard link: see :meth:`baseparam._atomic._Placing._place`) is put back instead
    when the output NAME is missing: the run was killed between its two renames.

    ``live``: a list, extended in the same scan with the os.DirEntry of the temporary files of running processes
    (this one's too): another writer's old version of an output moved aside (:func:`baseparam._atomic._mode_at_start`).
    """
    young = []                          # one scan of the folder gives both
    stale = stale_entries(folder, ".baseparam-", _STALE, stat.S_ISREG, now, young, live)
    kept = _restore_moved_aside(stale + young)
    for entry in stale:
        if entry.path not in kept:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
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
