"""The refusals of an output before it is written: its name (a symbolic link, a folder, a name the system would
not open as written, one of baseparam's temporary names, a read-only file, one of the running command's inputs), its
folder (read-only, full, unwritable) and its room (the free space, the file size limit).

The inputs a command protects (:func:`inputs_protected`) are the files no output may replace: a mistyped
``--json robot.yaml`` must not destroy the description it was computed from. Only the last component of a name is
checked for a link, as ``O_NOFOLLOW`` does: a linked *folder* on the way (``/tmp`` on some systems, a linked home) is
the user's own layout. :mod:`baseparam._atomic` writes the outputs these checks let through.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import re
import stat

from ._leftovers import _STALE
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
    """Within the block, :func:`~baseparam._atomic.atomic_path` refuses to write over any of ``paths``."""
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
    """Refuse ``path`` as :func:`~baseparam._atomic.atomic_path` would (a link, a folder, a protected input), and a
    folder that cannot take it (:func:`unwritable`), before work that is costly or whose checks would otherwise speak
    first (the free space of ``/proc/self/fd``, 0 bytes, for a link there).

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
