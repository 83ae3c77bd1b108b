"""The MCAP container, read without a Python object per message.

MCAP (https://mcap.dev/spec) is a sequence of records ``opcode (u8), length (u64), body``: schemas,
channels, chunks (compressed runs of records), messages, attachments, indexes. The ``mcap``
package reads it record by record, one Python object per message; a 10⁶-message log then costs
seconds before a value is decoded. Here the top-level records are walked in Python (chunks are
about 1 MB each, so there are few), each chunk is decompressed in one call, and the message
records inside it are found at once when they have one size (a log of one topic: every record then
starts a fixed stride after the previous one, which numpy checks in one pass), or walked header by
header otherwise. Messages come out as rows of a uint8 array, one row per message, grouped by
channel and size, with their log times and their index in the channel's file order.

Damage is reported, not guessed around: a record that runs past the end of the file (a truncated
file), a chunk that does not decompress or whose CRC disagrees with its records, an unknown
compression. Reading stops at the first such record, and :attr:`Contents.problem` says where; what
was read before it is kept for the caller to use or refuse. A data section whose CRC (when the
writer stored one) disagrees is refused whole: the damage could be anywhere in it. A file cut
after its data section (its summary, footer or closing magic missing: a recorder stopped while
closing, a partial copy) holds every message: :attr:`Contents.notice` says so.
"""
from __future__ import annotations

import contextlib
import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

from ..errors import printable
from ._record import _one_line

MAGIC = b"\x89MCAP0\r\n"
_HEADER, _FOOTER, _SCHEMA, _CHANNEL, _MESSAGE, _CHUNK, _ATTACHMENT, _DATA_END = 1, 2, 3, 4, 5, 6, 9, 15
_MESSAGE_HEAD = 22      # channel id u16, sequence u32, log time u64, publish time u64
_LENGTH = struct.Struct("<Q")       # a record's length, after its opcode
# How much larger than its compressed bytes a chunk may claim to be (beyond its first _ALLOWANCE bytes): joint
# states compress some 10 times, 1000 times is data of one repeated byte — a decompression bomb, whose tiny records
# (a 32 kB chunk of 1 GiB of zeros) took minutes to walk and a GiB of memory
_MAX_RATIO = 1000
# Honest messages of one repeated byte are common (a black camera frame, 6 MB in some 250 bytes of zstd; an unknown
# occupancy map; a zeroed point cloud): a chunk or message up to this size is never a bomb, whatever its ratio
_ALLOWANCE = 32 << 20
_MAX_CHUNK = 256 << 20  # bytes of one decompressed chunk (recorders write 1 to 4 MiB; one camera image, some 10 MiB)


@dataclass
class Contents:
    """What an MCAP file holds, messages as raw rows.

    ``schemas[id] = (name, encoding, data)``; ``channels[id] = (topic, message_encoding,
    schema_id)``; ``pieces[channel]`` a list of ``(rows (k, L) uint8, log_times (k,) int64,
    order (k,) int64)`` where ``order`` numbers the channel's messages in file order;
    ``attachments[name] = bytes``; ``problem`` the damage that stopped the reading, or None.
    """

    schemas: dict = field(default_factory=dict)
    channels: dict = field(default_factory=dict)
    pieces: dict = field(default_factory=dict)
    attachments: dict = field(default_factory=dict)
    problem: str = None
    notice: str = None
    counts: dict = field(default_factory=dict)
    transform: object = None
    attached: int = 0
    repeated: set = field(default_factory=set)      # names of attachments met more than once
    forged: bool = False        # ``problem`` is a summary that contradicts the data section: nothing is trusted

    def add(self, rows, channel_ids, log_times):
        """Messages given as full records ``(k, 9 + 22 + L)`` in file order: split by channel, numbered."""
        channels = np.unique(channel_ids)
        for c in channels.tolist():
            if channels.size == 1:
                part, times = rows, log_times
            else:
                mask = channel_ids == c
                part, times = rows[mask], log_times[mask]
            self.add_channel(c, part, times, np.arange(part.shape[0]))
            self.counts[c] = self.counts.get(c, 0) + part.shape[0]

    def add_channel(self, c, rows, log_times, ranks):
        """Records of channel ``c``; ``ranks`` their places among the channel's messages of this batch.
        ``transform(c, data_rows, log_times, order)``, when set, turns each piece into what is kept (the
        caller decodes a chunk's messages at once, so that the decompressed chunk can be freed)."""
        piece = (rows[:, 9 + _MESSAGE_HEAD:], log_times, self.counts.get(c, 0) + ranks)
        if self.transform is not None:
            piece = self.transform(c, *piece)
        self.pieces.setdefault(c, []).append(piece)


class _Truncated(Exception):
    pass


def read(data, out) -> Contents:
    """Parse an MCAP file's bytes (see the module docstring) into ``out`` (a new :class:`Contents`, its
    ``transform`` set by the caller).

    The top-level records are walked first (a few hundred: chunks are ~1 MB), then handled in file
    order, each chunk decompressed and decoded before the next. (Decompressing the next chunk in a
    thread meanwhile was tried: on the shared 2-core machine it gained nothing measurable.)
    """
    if data[:8] != MAGIC:
        out.problem = "not an MCAP file (no MCAP magic at the start)"
        return out
    records, problem, out.notice = _walk(data)
    skipped = [op for op, _, body, stop in records if _suspect(op, data, body, stop)]
    run = []            # consecutive messages outside chunks (an unchunked file), read at once as a chunk's are
    for op, pos, body, stop in records:
        if run and (op != _MESSAGE or stop - run[0][0] > _RUN_BYTES or stop - body < _MESSAGE_HEAD):
            _loose_messages(data, run, out)
            run = []
        try:
            if op == _CHUNK:
                _chunk_records(_decompress(data, body, stop), out)
            elif op in (_SCHEMA, _CHANNEL):
                _definition(op, data, body, stop, out)
            elif op == _MESSAGE:
                if stop - body < _MESSAGE_HEAD:
                    raise _Truncated("message record shorter than its header")
                run.append((pos, stop))
            elif op == _ATTACHMENT:
                _attachment(data, body, stop, out)
        except _Truncated as exc:
            out.problem = f"{_NAMES.get(op, 'record')} at byte {pos}: damaged ({exc})"
            return out
    if run:
        _loose_messages(data, run, out)
    out.problem = problem or _orphans(out)
    if out.problem is None and out.notice is None:
        out.problem, unchecked = _summary_check(data, records, out)
        if unchecked and skipped:
            out.notice = _skipped_notice(skipped, unchecked)
    return out


def _orphans(out):
    """What is wrong with messages of channels no channel record defines (a damaged channel id), or None: they
    were left out without a word."""
    orphans = sorted(set(out.counts) - set(out.channels))
    if not orphans:
        return None
    count = sum(out.counts[c] for c in orphans)
    more = f" (and {len(orphans) - 1} more)" if len(orphans) > 1 else ""
    return (f"{count} message{'s' * (count > 1)} on channel {orphans[0]}{more}, which no channel record defines "
            "(damaged?); not read")


def _walk(data):
    """The top-level records [(opcode, start, body, stop)] up to the data end, the damage that cut the
    walk short (or None), and what is wrong after the data end (the summary cut: every message is there, the
    file is not whole; or None)."""
    end, records = len(data), []
    try:
        for op, pos, body, stop in _records(data, 8, end):
            if op == _DATA_END and stop - body >= 4 and (crc_problem := _data_crc_problem(data, pos)):
                return [], crc_problem, None     # damage somewhere in it: nothing is trusted (the CRC of it all, once)
            records.append((op, pos, body, stop))      # (a data end's stop: where the summary starts)
            if op in (_DATA_END, _FOOTER):
                return records, None, None if _whole_tail(data, pos) else (
                    f"ends at byte {end} in its summary section (after the data end at byte {pos}; no footer and "
                    "closing magic): the file is truncated after its last message; every message is read")
    except _RunsPast as cut:
        pos, length = cut.args
        if length is None:
            return records, f"truncated at byte {end} (a record header at byte {pos} is cut)", None
        return records, (f"truncated at byte {end}: a {_NAMES.get(data[pos], 'record')} at byte {pos} claims {length} "
                         f"bytes, {end - pos - 9} remain"), None
    return records, f"ends at byte {end} without the MCAP footer: the file is truncated", None


class _RunsPast(Exception):
    """A record that runs past the end of what holds it: ``args`` its start and the length it claims (None: its
    header is cut)."""


def _records(data, pos, end):
    """(opcode, start, body, stop) of each record of ``data[pos:end]`` in turn, :class:`_RunsPast` at one that runs
    past ``end``: the top-level records, a summary section's, a chunk's (each caller words the damage its way)."""
    # a chunk's records (bytes, by the hundred thousand) unpacked in place; a file's (FileBytes) from a slice
    in_place = isinstance(data, (bytes, bytearray))
    while pos < end:
        if pos + 9 > end:
            raise _RunsPast(pos, None)
        length = _LENGTH.unpack_from(data, pos + 1)[0] if in_place else _uint(data, pos + 1, 8)
        if length > end - pos - 9:
            raise _RunsPast(pos, length)
        yield data[pos], pos, pos + 9, pos + 9 + length
        pos += 9 + length


def _data_crc_problem(data, pos):
    """What is wrong with the data section that ends with the data-end record at ``pos``: the CRC that record
    holds (0: none computed, the usual case) against that of every byte before it, or None."""
    crc = _uint(data, pos + 9, 4)
    if not crc:
        return None
    found = _crc32(data, 0, pos)
    return None if found == crc else (f"its data section's CRC is {found:#010x}, its data-end record says {crc:#010x}: "
                                      "damaged")


def _whole_tail(data, pos):
    """Whether the file ends as an MCAP file does: a footer record (opcode, length 20, 20 bytes) and the magic,
    after byte ``pos``."""
    end = len(data)
    foot = end - 8 - 29
    return (foot >= pos and data[end - 8:end] == MAGIC and data[foot] == _FOOTER
            and _uint(data, foot + 1, 8) == 20)


_MESSAGE_INDEX, _CHUNK_INDEX, _STATISTICS, _METADATA = 7, 8, 11, 12
# the records a data section holds (the spec): any other is skipped, as the spec says readers do (a later version's
# opcode, a user's 0x80 and above, an index in the wrong section) — or an opcode damaged, which only counting the
# messages against the summary can tell
_DATA_SECTION = frozenset({_HEADER, _SCHEMA, _CHANNEL, _MESSAGE, _CHUNK, _MESSAGE_INDEX, _ATTACHMENT, _METADATA,
                           _DATA_END})


def _suspect(op, data, body, stop):
    """Whether a data-section record is one read() skips that may have been a message or a chunk: an opcode the
    data section does not hold, or a message index that is none (a chunk's opcode damaged into 7: its channel id
    (u16) and byte count (u32) then its (u64 time, u64 offset) pairs fill the record)."""
    if op != _MESSAGE_INDEX:
        return op not in _DATA_SECTION
    size = _uint(data, body + 2, 4) if stop - body >= 6 else -1
    return size != stop - body - 6 or size % 16 != 0


def _summary_check(data, records, out):
    """``(problem, unchecked)``: what is wrong with the messages read against the file's summary (None if nothing),
    and why their number could not be checked (None if it was).

    The summary's Statistics record counts every channel's messages and the attachments (:func:`_count_problem`): a
    record whose opcode was damaged into one readers skip leaves a file that reads, shorter (or without the exact
    times baseparam attaches), and only those counts tell; one dropped or repeated whole also moves the summary
    from where the footer places it (:func:`_summary`). Without statistics, the summary's chunk indexes name where
    each chunk starts: one that is no chunk, or a chunk none names, is damage. With neither (no summary, or one
    without both), what was read is all there is to read; ``unchecked`` says why, for the caller to say when records
    of unknown opcodes were skipped."""
    summary, why = _summary(data, records[-1][3] if records[-1][0] == _DATA_END else None)
    if summary is None:
        return (why, None) if why.startswith("its footer") else (None, why)
    stats, chunks = None, []
    for op, body, stop in summary:
        # the summary repeats them: a channel named though its data records were lost; one id defined otherwise than
        # in the data section (the spec: records of one id are identical) is a damaged or forged file, whose
        # messages' type or topic would be a guess
        if op in (_SCHEMA, _CHANNEL):
            before = (out.schemas if op == _SCHEMA else out.channels).copy()
            with contextlib.suppress(_Truncated):
                _definition(op, data, body, stop, out)
            if (conflict := _conflict(op, data, body, stop, before)) is not None:
                out.forged = True
                return conflict, None
        elif op == _STATISTICS:
            stats = (body, stop)
        elif op == _CHUNK_INDEX and stop - body >= 24:
            chunks.append(_uint(data, body + 16, 8))
    if stats is not None:
        return _count_problem(data, *stats, out), None
    if chunks:
        found = sorted(pos for op, pos, _, _ in records if op == _CHUNK)
        if sorted(chunks) != found:
            return (f"its summary indexes {len(chunks)} chunk{'s' * (len(chunks) != 1)}, at bytes "
                    f"{_positions(chunks)}; its data section holds {len(found)}, at bytes {_positions(found)}: a "
                    "chunk dropped, repeated or damaged"), None
        return None, None
    return None, "its summary has no message statistics or chunk index"


def _conflict(op, data, body, stop, before):
    """What is wrong with the summary's schema or channel record ``data[body:stop]`` against the data section's
    definitions ``before`` (``Contents.schemas`` or ``.channels``), or None (the same, or an id only it defines)."""
    mine = Contents()
    try:
        _definition(op, data, body, stop, mine)
    except _Truncated:
        return None
    (key, value), = (mine.schemas or mine.channels).items()
    if key not in before or before[key] == value:
        return None
    what, old = "schema" if op == _SCHEMA else "channel", before[key]
    if op == _SCHEMA:
        def shown(v):
            return f"{printable(v[0])!r} ({printable(v[1])}, {len(v[2])} bytes of definition)"
    else:
        def shown(v):
            return f"topic {printable(v[0])!r} ({printable(v[1])}, schema {v[2]})"
    return (f"{what} {key} is {shown(old)} in its data section, {shown(value)} in its summary: records of one id "
            "must be identical (damaged or forged)")


def _positions(positions, shown=5):
    text = ", ".join(map(str, sorted(positions)[:shown]))
    return text + (f" … ({len(positions)})" if len(positions) > shown else "") if positions else "none"


def _summary(data, data_end):
    """The summary section's records [(opcode, body, stop)] (by the footer's summary start), or (None, why not);
    ``data_end`` where the data section ends (its data-end record's end), or None (a file without that record).
    A summary not where the data end is (the spec puts it right after) is damage: the data section grew or shrank,
    a record dropped or repeated (why not, which then starts 'its footer')."""
    end = len(data)
    foot = end - 8 - 29
    (start, _, crc) = struct.unpack("<QQI", data[foot + 9:foot + 29])
    if start == 0:
        return None, "it has no summary section"
    if start != (start if data_end is None else data_end) or not 8 <= start <= foot:
        return None, (f"its footer places its summary section at byte {start}, its data section ends at byte "
                      f"{data_end if data_end is not None else '?'}: a record dropped, repeated or damaged")
    if crc and _crc32(data, start, foot + 9 + 16) != crc:
        return None, "its summary section is damaged (its CRC disagrees)"
    try:
        return [(op, body, stop) for op, _, body, stop in _records(data, start, foot)], None
    except _RunsPast as cut:
        pos, length = cut.args
        return None, (f"its summary section is damaged (a record at byte {pos} "
                      f"{'is cut' if length is None else 'runs past the footer'})")


def _count_problem(data, pos, stop, out):
    """What is wrong with the messages read per channel (``out.counts``) against a Statistics record's counts
    (``data[pos:stop]``), or None."""
    try:
        (total, _, _, attachments), at = _u("<QHII", data, pos, stop)
        (size,), at = _u("<I", data, at + 4 * 2 + 16, stop)
    except _Truncated:
        return "its summary's statistics record is damaged (shorter than its fields)"
    if at + size > stop or size % 10:
        return "its summary's statistics record is damaged (its channel counts run past it)"
    pairs = np.frombuffer(data[at:at + size], dtype=np.dtype([("c", "<u2"), ("n", "<u8")]))
    declared = {int(c): int(n) for c, n in pairs if n}
    read = {c: n for c, n in out.counts.items() if n}
    found = sum(read.values())
    wrong = [c for c in sorted(set(declared) | set(read)) if declared and declared.get(c, 0) != read.get(c, 0)]
    if wrong:
        c = wrong[0]
        what = (f"channel {c} ({printable(out.channels.get(c, ('?',))[0])}): {read.get(c, 0)} messages read, its "
                f"summary's statistics count {declared.get(c, 0)}")
    elif found != total:
        what = f"{found} messages read, its summary's statistics count {total}"
    elif out.attached != attachments:      # baseparam's writer attaches exact times and accelerations
        what = f"{out.attached} attachments read, its summary's statistics count {attachments}"
    else:
        return None
    return f"{what}: a record dropped, repeated or damaged"


def _skipped_notice(skipped, why):
    ops = ", ".join(f"{op:#04x}" for op in sorted(set(skipped)))
    return (f"{len(skipped)} record{'s' * (len(skipped) > 1)} of its data section skipped (opcode {ops}: none of its "
            f"records, or not what its opcode says); {why}, so whether a message was among them cannot be told")


_NAMES = {_CHUNK: "chunk", _SCHEMA: "schema", _CHANNEL: "channel", _MESSAGE: "message", _ATTACHMENT: "attachment"}


def _u(fmt, data, pos, stop):
    size = struct.calcsize(fmt)
    if pos + size > stop:
        raise _Truncated("record shorter than its fields")
    return struct.unpack(fmt, data[pos:pos + size]), pos + size


def _uint(data, pos, size):
    """The little-endian unsigned integer of ``size`` bytes at ``pos`` (the caller checked they are there)."""
    return int.from_bytes(data[pos:pos + size], "little")


_CRC_BLOCK = 1 << 20


def _crc32(data, start, stop):
    """The CRC-32 of ``data[start:stop]``, read a block at a time (a data section is the whole file)."""
    crc = 0
    for at in range(start, stop, _CRC_BLOCK):
        crc = zlib.crc32(data[at:min(at + _CRC_BLOCK, stop)], crc)
    return crc


def _text(data, pos, stop):
    (n,), pos = _u("<I", data, pos, stop)
    if pos + n > stop:
        raise _Truncated("a string runs past the record")
    return bytes(data[pos:pos + n]).decode("utf-8", "replace"), pos + n


def _definition(op, data, pos, stop, out):
    """A schema record (its id, name, encoding, data) or a channel record (its id, schema id, topic, message
    encoding) of ``data[pos:stop]``, into ``out``."""
    ids, pos = _u("<H" if op == _SCHEMA else "<HH", data, pos, stop)
    name, pos = _text(data, pos, stop)          # a channel's topic
    encoding, pos = _text(data, pos, stop)
    if op == _CHANNEL:
        _define(out.channels, ids[0], (name, encoding, ids[1]), "channel")
        return
    (n,), pos = _u("<I", data, pos, stop)
    if pos + n > stop:
        raise _Truncated("schema data run past the record")
    _define(out.schemas, ids[0], (name, encoding, bytes(data[pos:pos + n])), "schema")


def _define(table, key, value, what):
    """``table[key] = value``; a record may be repeated (chunks repeat their schemas and channels), but one id
    defined twice differently is damage: the messages' topic or type would be whichever came last."""
    if table.setdefault(key, value) != value:
        raise _Truncated(f"{what} {key} defined twice, differently")


def _attachment(data, pos, stop, out):
    """An attachment (baseparam's writer attaches exact times and accelerations), its CRC checked when it has one
    (0: none computed): a flipped byte in the accelerations was read as other values without a word."""
    start = pos
    _, pos = _u("<QQ", data, pos, stop)
    name, pos = _text(data, pos, stop)
    _, pos = _text(data, pos, stop)
    (n,), pos = _u("<Q", data, pos, stop)
    if pos + n > stop:
        raise _Truncated("attachment data runs past the record")
    (crc,), _ = _u("<I", data, pos + n, stop)
    blob = bytes(data[pos:pos + n])
    if crc and (found := zlib.crc32(blob, zlib.crc32(data[start:pos]))) != crc:
        raise _Truncated(f"attachment {printable(name)!r}: its CRC is {found:#010x}, its record says {crc:#010x}")
    if name in out.attachments:
        out.repeated.add(name)
    out.attachments[name] = blob
    out.attached += 1


# bytes of consecutive messages outside chunks read at once (an unchunked file's data section is all such messages:
# a log of camera frames, gigabytes, is read a run at a time, as a chunked one a chunk at a time)
_RUN_BYTES = 16 << 20


def _loose_messages(data, run, out):
    """Consecutive messages outside chunks (an unchunked file), ``run`` their (start, stop) in the file, each at least
    a message header long: read in one slice and gathered by channel and size as a chunk's are (one at a time, a
    100 000-message log took 7 s, its messages decoded one by one)."""
    first = run[0][0]
    spans = np.asarray(run, dtype=np.int64) - first
    buf = np.frombuffer(data[first:run[-1][1]], dtype=np.uint8)
    starts, lengths = spans[:, 0], spans[:, 1] - spans[:, 0]
    channels = buf[starts + 9].astype(np.uint16) | buf[starts + 10].astype(np.uint16) << 8
    _flush(buf, starts, lengths, channels, out)


def chunk_size_problem(kind, claimed, packed):
    """Why a chunk of ``packed`` bytes of ``kind`` compressed data claiming ``claimed`` bytes is not
    decompressed (:data:`_MAX_RATIO`, :data:`_MAX_CHUNK`), or None; MCAP's and ROS 1's chunks alike."""
    if claimed > _MAX_RATIO * packed + _ALLOWANCE:
        return (f"its {packed} bytes of {kind} data claim {claimed} bytes uncompressed, more than {_MAX_RATIO} times "
                "as many (a decompression bomb?); not decompressed")
    if claimed > _MAX_CHUNK:
        return (f"its {kind} data claim {claimed} bytes uncompressed, more than the {_MAX_CHUNK >> 20} MiB baseparam "
                "decompresses at once; not decompressed")
    return None


def _decompress(data, pos, stop):
    """The records of a chunk, decompressed."""
    (_, _, size, crc), pos = _u("<QQQI", data, pos, stop)
    compression, pos = _text(data, pos, stop)
    (n,), pos = _u("<Q", data, pos, stop)
    if pos + n > stop:
        raise _Truncated("chunk records run past the record")
    problem = chunk_size_problem(compression, size, n) if compression else None
    if problem:
        raise _Truncated(problem)
    if compression not in ("", "zstd", "lz4"):
        raise _Truncated(f"unknown compression {compression!r}")
    raw = data[pos:pos + n]
    try:
        if compression == "zstd":
            import zstandard
            records = zstandard.ZstdDecompressor().decompress(raw, max_output_size=size)
        elif compression == "lz4":
            import lz4.frame
            records = lz4.frame.LZ4FrameDecompressor().decompress(raw, max_length=size)   # no more than claimed
        else:
            records = bytes(raw)
    except Exception as exc:                # zstd/lz4 raise their own error types for corrupt data
        raise _Truncated(f"cannot decompress its {compression} data: {_one_line(exc)}") from None
    if len(records) != size:
        raise _Truncated(f"decompressed to {len(records)} bytes, its header says {size}")
    # a CRC of 0 is "not computed" (the spec; rosbags writes none); one that disagrees is damage zstd and lz4 pass
    # through (a changed literal decompresses to a changed value), not a trajectory to read
    if crc and (found := zlib.crc32(records)) != crc:
        raise _Truncated(f"its records' CRC is {found:#010x}, its header says {crc:#010x}")
    return records


def _chunk_records(records, out):
    """The records of a decompressed chunk: messages in bulk where they share a size."""
    buf, end = np.frombuffer(records, dtype=np.uint8), len(records)
    starts, lengths, channels = [], [], []
    try:
        for op, pos, body, stop in _records(records, 0, end):
            if op == _MESSAGE:
                if stop - body < _MESSAGE_HEAD:
                    raise _Truncated("message record shorter than its header")
                if not starts:          # the first message: the rest of the chunk tried as records of its size
                    rows = _uniform_rows(buf, pos, end, stop - pos)
                    if rows is not None:
                        out.add(rows, rows[:, 9:11].copy().view("<u2")[:, 0], rows[:, 15:23].copy().view("<i8")[:, 0])
                        return
                starts.append(pos)
                lengths.append(stop - pos)
                channels.append(struct.unpack_from("<H", records, body)[0])
            elif op in (_SCHEMA, _CHANNEL):
                _definition(op, records, body, stop, out)
            else:       # a chunk holds schemas, channels and messages only (the spec): anything else is damage
                raise _Truncated(f"a record of opcode {op:#04x} inside a chunk (chunks hold schemas, channels and "
                                 "messages only)")
    except _RunsPast as cut:
        pos, length = cut.args
        if length is None:
            raise _Truncated("a record header is cut inside a chunk") from None
        raise _Truncated(f"a record inside a chunk claims {length} bytes, {end - pos - 9} remain") from None
    _flush(buf, starts, lengths, channels, out)


def _uniform_rows(buf, pos, end, stride):
    """The rest of a chunk as (k, stride) rows if it is k message records of one size, else None."""
    if (end - pos) % stride:
        return None
    rows = buf[pos:end].reshape(-1, stride)
    if not (rows[:, 0] == _MESSAGE).all():
        return None
    lengths = np.ascontiguousarray(rows[:, 1:9]).view("<u8")[:, 0]
    return rows if (lengths == stride - 9).all() else None


def _flush(buf, starts, lengths, channels, out):
    """Message records at ``starts`` (each ``lengths`` bytes with its header), gathered by channel and size."""
    starts, lengths, channels = np.asarray(starts), np.asarray(lengths), np.asarray(channels)
    for c in np.unique(channels).tolist():
        mine = channels == c
        at, size = starts[mine], lengths[mine]
        ranks = np.arange(at.size)
        for L in np.unique(size).tolist():
            same = size == L
            rows = buf[at[same][:, None] + np.arange(L)]
            out.add_channel(c, rows, rows[:, 15:23].copy().view("<i8")[:, 0], ranks[same])
        out.counts[c] = out.counts.get(c, 0) + at.size
