"""``sensor_msgs/JointState`` in its wire formats, decoded and encoded many messages at a time.

ROS 2 stores messages as CDR (a 4-byte encapsulation header, then each value aligned to its size,
counted from the end of that header); ROS 1 as its own serialization (no alignment, a ``seq``
before the stamp, strings without the terminating NUL). A JointState is::

    header: stamp (sec int32/uint32, nanosec uint32), frame_id (string)
    name: string[]      position, velocity, effort: float64[] (each may be empty)

Logs repeat one layout: the same frame, joint names and array lengths in every message, only the
stamp and the numbers changing. :func:`layout` parses one message with plain Python and says
where its parts lie; :func:`decode_rows` then checks that every message of a batch of the same size
has the same structural bytes (frame, names, counts) and takes the stamps and the float64 arrays of
all of them at once as numpy views. A message whose structure differs is parsed on its own; one
that does not parse is damaged (:class:`Damaged`, naming what is wrong).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..errors import ArgumentError, printable

JOINT_STATE = ("sensor_msgs/msg/JointState", "sensor_msgs/JointState")
ARRAYS = ("position", "velocity", "effort")
# Message definition written into the MCAP files baseparam writes (ros2msg, with its dependencies).
JOINT_STATE_MSGDEF = """std_msgs/Header header
string[] name
float64[] position
float64[] velocity
float64[] effort

================================================================================
MSG: std_msgs/Header
builtin_interfaces/Time stamp
string frame_id

================================================================================
MSG: builtin_interfaces/Time
int32 sec
uint32 nanosec
"""
# Strings beyond this length, or more names than this, mean a damaged message, not a robot.
_MAX_STRING = 1 << 16
_MAX_JOINTS = 1 << 12


class Damaged(ValueError):
    """A message that does not parse as a JointState (the text says what is wrong)."""


@dataclass(frozen=True)
class Layout:
    """Where the parts of one JointState message lie (byte offsets into the message).

    ``stamp`` is the offset of sec (nanosec follows); ``arrays[field] = (offset, count)``;
    ``fixed`` the (start, stop) spans of bytes every message of this layout must share (the
    encapsulation header, frame id, names and counts; not the stamp, the numbers, padding or a
    ROS 1 ``seq``).
    """

    size: int
    stamp: int
    frame_id: str
    names: tuple
    arrays: dict
    fixed: tuple
    ros1: bool


def layout(buf, ros1=False) -> Layout:
    """Parse one message; raise :class:`Damaged` naming what is wrong."""
    buf = memoryview(buf).cast("B") if not isinstance(buf, (bytes, bytearray)) else buf
    size = len(buf)
    fixed = []
    if ros1:            # no alignment, strings without their NUL; seq (u32) changes from message to message
        pos, align, null = 4, _no_align, 0
    else:
        if size < 4:
            raise Damaged(f"{size} bytes, shorter than the CDR header")
        if buf[1] != 1:
            kind = bytes(buf[:2]).hex()
            raise Damaged(f"big-endian CDR (encapsulation {kind}) is not read" if buf[1] == 0
                          else f"unknown CDR encapsulation {kind}")
        pos, align, null = 4, _cdr_align, 1
        fixed.append((0, 4))
    stamp = pos
    pos = _need(buf, pos, 8, "header stamp")
    pos = align(pos, 4)
    start = pos
    frame_id, pos = _string(buf, pos, null, "header.frame_id")
    fixed.append((start, pos))
    pos = align(pos, 4)
    start = pos
    count, pos = _u32(buf, pos, "name")
    if count > _MAX_JOINTS:
        raise Damaged(f"name: {count} names claimed")
    names = []
    for k in range(count):
        pos = align(pos, 4)
        name, pos = _string(buf, pos, null, f"name[{k}]")
        names.append(printable(name))
    fixed.append((start, pos))
    arrays = {}
    for field in ARRAYS:
        pos = align(pos, 4)
        count, after = _u32(buf, pos, field)
        fixed.append((pos, after))
        pos = after
        if count:
            pos = align(pos, 8)
        if count > (size - pos) // 8:
            raise Damaged(f"{field}: {count} values claimed, {max(size - pos, 0)} bytes left")
        arrays[field] = (pos, count)
        pos += 8 * count
    if size - pos > (0 if ros1 else 7):          # CDR writers may pad the end to a multiple of 4 or 8
        raise Damaged(f"{size - pos} bytes after the effort array")
    return Layout(size, stamp, frame_id, tuple(names), arrays, tuple(fixed), ros1)


def _no_align(pos, n):
    return pos


def _cdr_align(pos, n):
    """``pos`` moved to the next multiple of n counted from the end of the 4-byte CDR header."""
    return pos + (4 - pos) % n


def _need(buf, pos, n, what):
    if pos + n > len(buf):
        raise Damaged(f"{what}: truncated ({max(len(buf) - pos, 0)} of {n} bytes)")
    return pos + n


def _u32(buf, pos, what):
    end = _need(buf, pos, 4, what)
    return struct.unpack_from("<I", buf, pos)[0], end


def _string(buf, pos, null, what):
    n, pos = _u32(buf, pos, what)
    if n > _MAX_STRING or n < null:
        raise Damaged(f"{what}: string length {n}")
    end = _need(buf, pos, n, what)
    raw = bytes(buf[pos:end - null])
    if null and buf[end - 1] != 0:
        raise Damaged(f"{what}: string not NUL-terminated")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Damaged(f"{what}: not UTF-8 text") from None
    return text, end


def decode_rows(rows, ros1=False):
    """Decode equal-size messages given as rows of a (M, L) uint8 array.

    Returns
    -------
    list of (indices, Layout, stamps, arrays)
        One entry per layout found: ``indices`` (k,) the rows it covers, ``stamps`` (k,) float64
        header stamps in s (sec + nanosec·1e-9), ``arrays[field]`` (k, count) float64.
    list of (index, str)
        The rows that do not parse, with what is wrong.
    """
    M = rows.shape[0]
    out, damaged = [], []
    todo = np.arange(M)
    while todo.size:
        first = int(todo[0])
        try:
            lay = layout(rows[first].tobytes(), ros1)
        except Damaged as exc:
            damaged.append((first, str(exc)))
            todo = todo[1:]
            continue
        same = _matches(rows, todo, lay)
        idx = todo[same]
        stamps, arrays, nanosec = _values(rows, idx, lay)
        wrong = nanosec >= NANOSECONDS
        if wrong.any():         # a damaged stamp: sorted by it, its message's values were moved seconds away
            damaged += [(int(i), stamp_problem(n)) for i, n in zip(idx[wrong], nanosec[wrong])]
            idx, stamps = idx[~wrong], stamps[~wrong]
            arrays = {f: (a[~wrong] if a is not None else None) for f, a in arrays.items()}
        if idx.size:
            out.append((idx, lay, stamps, arrays))
        todo = todo[~same]
    return out, damaged


NANOSECONDS = 1_000_000_000     # a stamp's nanoseconds are below a second (ROS's Time normalizes them)


def stamp_problem(nanosec):
    """What is wrong with a header stamp of ``nanosec`` nanoseconds (not below :data:`NANOSECONDS`)."""
    return f"header stamp: {int(nanosec)} nanoseconds, not below 10⁹ (a damaged stamp)"


def _matches(rows, todo, lay):
    """Which of rows[todo] share the structural bytes of ``lay``'s first row (vectorized, span by span)."""
    sub = rows[todo] if todo.size != rows.shape[0] else rows
    template = rows[todo[0]]
    same = np.ones(todo.size, dtype=bool)
    # Spans a few padding bytes apart are compared as one: fewer, longer compares. Padding is not part
    # of the structure, but a row whose padding differs is only parsed on its own, never misread.
    spans = []
    for a, b in sorted(lay.fixed):
        if spans and a - spans[-1][1] < 8:
            spans[-1] = (spans[-1][0], max(b, spans[-1][1]))
        else:
            spans.append((a, b))
    for a, b in spans:
        if b > a:            # each span of a row as one opaque value: one memcmp per row, not b - a compares
            kind = np.dtype((np.void, b - a))
            same &= np.ascontiguousarray(sub[:, a:b]).view(kind)[:, 0] == np.ascontiguousarray(template[a:b]).view(kind)
    return same


def _values(rows, idx, lay):
    sub = rows if idx.size == rows.shape[0] else rows[idx]
    # ROS 1 stamps' seconds are unsigned, ROS 2's signed
    sec = _column(sub, lay.stamp, 4, "<u4" if lay.ros1 else "<i4")[:, 0].astype(np.float64)
    nanosec = _column(sub, lay.stamp + 4, 4, "<u4")[:, 0]
    stamps = sec + nanosec.astype(np.float64) * 1e-9
    arrays = {}
    for field, (offset, count) in lay.arrays.items():
        arrays[field] = _column(sub, offset, 8 * count, "<f8").astype(np.float64) if count else None
    return stamps, arrays, nanosec


def _column(rows, offset, width, dtype):
    """Bytes offset … offset + width of every row as ``dtype`` values, shape (M, width // itemsize)."""
    return np.ascontiguousarray(rows[:, offset:offset + width]).view(dtype)


def stamp_parts(t):
    """(sec, nanosec) of times in s, nanosec in [0, 1e9): the stamp closest to each time.

    Raises
    ------
    ArgumentError
        A time whose stamp falls before 0 s or from 2³¹ s on (a ROS 2 stamp's int32 seconds), refused before
        the cast to nanoseconds, which overflowed int64 with a raw RuntimeWarning (1e11 s) and gave wrapped stamps.
    """
    # the range is that of the nearest stamp, in nanoseconds still as floats (2³¹·1e9 is exact): a time of
    # -1e-12 s (round-off about a start at 0) has the stamp 0 and is written
    ns = np.round(np.asarray(t, dtype=np.float64) * 1e9)
    if not ((ns >= 0) & (ns < 2.0 ** 31 * 1e9)).all():
        raise ArgumentError("trajectory: times before 0 s or beyond 2³¹ s do not fit a ROS 2 stamp")
    ns = ns.astype(np.int64)
    return ns // 1_000_000_000, ns % 1_000_000_000


def encode(t, names, position, velocity=None, effort=None, frame_id=""):
    """ROS 2 CDR JointState messages, one per sample, as a (n_samples, L) uint8 array (vectorized).

    Parameters
    ----------
    t : ndarray, shape (n_samples,)
        Stamps in s (rounded to the nanosecond).
    names : sequence of str, length n_dof
    position : ndarray, shape (n_samples, n_dof)
    velocity, effort : ndarray, shape (n_samples, n_dof), or None (an empty array in the message)
    """
    S = position.shape[0]
    head = bytearray(b"\x00\x01\x00\x00") + bytes(8)

    def pad(n):
        head.extend(bytes(_cdr_align(len(head), n) - len(head)))

    def string(text):
        raw = text.encode("utf-8") + b"\x00"
        pad(4)
        head.extend(struct.pack("<I", len(raw)))
        head.extend(raw)

    string(frame_id)
    pad(4)
    head.extend(struct.pack("<I", len(names)))
    for name in names:
        string(name)
    parts, offsets = [], []
    for values in (position, velocity, effort):
        pad(4)
        count = 0 if values is None else values.shape[1]
        head.extend(struct.pack("<I", count))
        if count:
            pad(8)
            offsets.append(len(head))
            parts.append(values)
            head.extend(bytes(8 * count))
    template = np.frombuffer(bytes(head), dtype=np.uint8)
    out = np.empty((S, template.size), dtype=np.uint8)
    out[:] = template
    sec, nsec = stamp_parts(t)
    out[:, 4:8] = sec.astype("<i4").view(np.uint8).reshape(S, 4)
    out[:, 8:12] = nsec.astype("<u4").view(np.uint8).reshape(S, 4)
    for offset, values in zip(offsets, parts):
        width = 8 * values.shape[1]
        out[:, offset:offset + width] = np.ascontiguousarray(values, dtype="<f8").view(np.uint8).reshape(S, width)
    return out
