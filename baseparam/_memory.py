"""The memory a computation may use: what this machine has available now, or what the caller allows.

A computation that would need more is refused before it starts, with the figure it would need
(:class:`~baseparam.errors.ResourceLimitError`), instead of exhausting the machine.
"""
from __future__ import annotations

import math
import os
import re
import sys

from .errors import ArgumentError, ResourceLimitError

SHARE_OF_AVAILABLE = 0.8        # leave the rest to the interpreter, the OS and other programs
_UNITS = {"": 1, "b": 1, "k": 10 ** 3, "m": 10 ** 6, "g": 10 ** 9, "t": 10 ** 12,
          "ki": 2 ** 10, "mi": 2 ** 20, "gi": 2 ** 30, "ti": 2 ** 40}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([kmgt]i?)?b?\s*$", re.IGNORECASE)


def _meminfo_available():
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_room():
    """Memory left under this process's cgroup (v2) limit, if it has one."""
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as f:
            return max(0, int(limit) - int(f.read().strip()))
    except (OSError, ValueError):
        return None


def _address_space_room():
    """Address space left under this process's ``RLIMIT_AS`` (``ulimit -v``), if it has one: numpy allocates
    against it, and beyond it a MemoryError is raised however much memory the machine has."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    if limit == resource.RLIM_INFINITY:
        return None
    size = _statm_bytes(0)
    return None if size is None else max(0, limit - size)


def _statm_bytes(field):
    """Field ``field`` of Linux's /proc/self/statm (0: the address space's size, 1: resident) in bytes, or None."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[field]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def resident_bytes():
    """This process's resident memory now (bytes; Linux's /proc/self/statm), or its peak where that cannot be
    read (getrusage), or None."""
    resident = _statm_bytes(1)
    if resident is not None:
        return resident
    try:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024          # bytes on macOS, kB elsewhere
    except (ImportError, OSError, ValueError):
        return None


# What each figure of available_bytes is, as a message says it
_SOURCES = ("the memory this machine has available now", "the memory left under this process's cgroup limit",
            "the address space left under this process's limit (ulimit -v)")


def _available():
    """(bytes, what they are) of the figure that binds now (:data:`_SOURCES`), or (None, None)."""
    figures = [(v, what) for v, what in zip((_meminfo_available(), _cgroup_room(), _address_space_room()), _SOURCES)
               if v is not None]
    return min(figures, key=lambda figure: figure[0]) if figures else (None, None)


def available_bytes():
    """Memory available to new allocations now (bytes): the OS's MemAvailable, or less under a cgroup
    limit or an address-space limit (``ulimit -v``); None where none can be read."""
    return _available()[0]


def budget_source():
    """What the default budget is (:func:`budget` without ``max_memory``), in a message's words: "80 % of the
    memory this machine has available now", or of what binds instead (the address space under ``ulimit -v``)."""
    what = _available()[1]
    return f"{SHARE_OF_AVAILABLE:.0%} of {what or _SOURCES[0]}".replace("%", " %")


def parse_size(text, name="max_memory", kind="memory"):
    """A memory (or disk: ``kind``) size: bytes as a number, or with a unit (``4G``, ``4GB``, ``512M``, ``1.5GiB``;
    k, M, G, T are powers of 1000, Ki, Mi, Gi, Ti of 1024).

    Raises
    ------
    ArgumentError
        Naming ``name`` when the text is not a positive size.
    """
    from ._checks import shown      # (it loads numpy: the room, below, is read before numpy is, _blas)

    if isinstance(text, (int, float)) and not isinstance(text, bool):
        try:
            value = float(text)
        except OverflowError:             # an int beyond the float range (10**400): no budget, as inf
            value = math.inf
    else:
        match = _SIZE.match(str(text))
        if not match:
            raise ArgumentError(f"{name}: expected a {kind} size such as 4G, 512M or 2GiB, got {shown(text)}")
        value = float(match.group(1)) * _UNITS[(match.group(2) or "").lower()]
    if not 1 <= value < math.inf:         # inf (or 1e400G) is no budget at all: an int of it overflows
        raise ArgumentError(f"{name}: expected a positive {kind} size, got {shown(text)}")
    return int(value)


def budget(max_memory=None):
    """The bytes a computation may use: ``max_memory`` (bytes or a size text) when given, else
    80 % of what the machine has available now (None when that cannot be told)."""
    if max_memory is not None:
        return parse_size(max_memory)
    available = available_bytes()
    return None if available is None else int(available * SHARE_OF_AVAILABLE)


def format_size(n):
    """``1.2 GB``, ``350 MB``, ``12 kB`` (powers of 1000); from 10¹⁵ TB on as ``1.00e+388 TB``, computed from the
    digits: ``n / factor`` of an int beyond the float range (a count such as ``n_samples=10**400``) would be a
    bare OverflowError, and a float near it written in hundreds of digits."""
    if n >= 10**27 and n != float("inf"):
        digits = str(int(n) // 10**12)
        return f"{digits[0]}.{digits[1:3]}e+{len(digits) - 1} TB"
    for unit, factor in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= factor:     # thousands of TB in digits, not 5.02e+03
            return f"{n / factor:.3g} {unit}" if n < 1000 * factor else f"{n / factor:.0f} {unit}"
    return "1 byte" if n == 1 else f"{int(n)} bytes"


def check_memory(needed, message, max_memory=None):
    """Refuse, before allocating, a computation that needs more than the memory budget.

    Parameters
    ----------
    needed : int
        Bytes the computation would need at most.
    message : callable
        ``message(needed_text, allowed_text)`` → the one-line message (figures as "3.2 GB").
    max_memory : int, str or None
        The caller's budget (bytes or a size such as '4G'); None: 80 % of the memory available now.

    Raises
    ------
    ResourceLimitError
        A ``MemoryError``.
    """
    allowed = budget(max_memory)
    if allowed is not None and needed > allowed:
        raise ResourceLimitError(message(format_size(needed), format_size(allowed)))
