"""Atomic output files: write to a temporary name beside the target, then rename.

An interrupted run never leaves a half-written file, and the result behaves like a normal
write: symbolic links are written through, the new file gets the permissions a plain
``open(path, "w")`` would give (or keeps the old file's), and special files such as
``/dev/null`` are written in place instead of being replaced.
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from .errors import StorageError


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
        With a one-line message naming ``path`` (not the temporary file).
    """
    path = os.fspath(path)
    if not path:
        raise StorageError("output path is empty")
    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise StorageError(f"{path}: is a directory, expected a file name")
    if os.path.exists(real) and not stat.S_ISREG(os.stat(real).st_mode):
        yield real                      # a device or FIFO: renaming over it would destroy it
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".baseparam-", suffix=suffix, dir=os.path.dirname(real))
        os.close(fd)
    except OSError as exc:
        raise StorageError(f"{path}: cannot write here ({exc.strerror or exc})") from None
    try:
        yield tmp
        mode = stat.S_IMODE(os.stat(real).st_mode) if os.path.exists(real) else _default_mode()
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except OSError as exc:
        raise StorageError(f"{path}: cannot write ({exc.strerror or exc})") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path, text):
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path, ".tmp") as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
