"""A file's bytes read where they are asked for (``os.pread``, a window at a time), not mapped.

The readers of MCAP files, ROS 1 bags and Parquet page headers do not walk their files through a memory map: a file
that another process cuts short after it is mapped (a recorder rotating its log, a copy overwritten) kills a reader
of the map by SIGBUS at the first page past its new end, a signal no Python code can catch. Read with ``os.pread``, a
read that comes short of the size the file had when opened is refused in one line instead; what is held in memory is
one window and what the caller keeps.
"""
from __future__ import annotations

import os

from ..errors import DataError


class FileBytes:
    """An open file's bytes as a read-only sequence: ``len()``, ``data[k]`` (an int) and ``data[a:b]`` (bytes) as
    of a ``bytes`` object of the file's size when opened.

    Parameters
    ----------
    fd : int
        The open file (left open: the caller closes it).
    size : int
        Its size when opened, in bytes.
    refusal : str
        What begins the one-line message of a read that fails: ``"FILE: cannot read as FORMAT"``.
    window : int
        Bytes read at a time for small requests (record headers), kept for the next ones.
    """

    def __init__(self, fd, size, refusal, window=1 << 16):
        self.fd, self.size, self.refusal, self.window_size = fd, size, refusal, window
        self.start, self.data = 0, b""

    @classmethod
    def of(cls, stream, refusal):
        """The bytes of the open file object ``stream`` (its size now), ``refusal`` as the class says."""
        return cls(stream.fileno(), os.fstat(stream.fileno()).st_size, refusal)

    def __len__(self):
        return self.size

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = key.indices(self.size)
            if step != 1:
                raise ValueError("FileBytes: slices of step 1 only")
            if stop <= start:
                return b""
            data, at = self.window(start, stop)
            return data[at:at + stop - start]
        if key < 0:
            key += self.size
        if not 0 <= key < self.size:
            raise IndexError("FileBytes index out of range")
        if not self.start <= key < self.start + len(self.data):
            self.window(key, key + 1)
        return self.data[key - self.start]

    def window(self, start, stop):
        """(bytes holding the file's ``start``:``stop``, where ``start`` is in them): the kept window when it holds
        them, else read from ``start`` (a window's worth at least, kept; a larger request read alone, not kept, so
        that one large record does not stay in memory).

        Raises
        ------
        DataError
            The file is shorter than when it was opened (cut by another process), or a read fails.
        """
        if self.start <= start and stop <= self.start + len(self.data):
            return self.data, start - self.start
        stop = min(stop, self.size)
        want = min(max(stop - start, self.window_size), self.size - start)
        try:
            data = os.pread(self.fd, want, start)
        except OSError as exc:
            raise DataError(f"{self.refusal}: {exc.strerror or exc}") from None
        if len(data) < want:
            raise DataError(f"{self.refusal}: the file was cut while it was read ({self.size} bytes when opened, "
                            f"{start + len(data)} now)")
        if want <= self.window_size:
            self.start, self.data = start, data
        return data, 0
