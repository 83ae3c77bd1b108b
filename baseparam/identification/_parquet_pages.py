"""What a Parquet file declares it holds, read from its footer and its page headers alone: no value decoded.

A page's header says how many values it holds and how many bytes they take once decompressed; pyarrow allocates
and decodes what the header says. A few kilobytes of run-length-encoded zeros can so declare tens of millions of
values (a 2 kB file of four one-row list columns takes 1.3 GB to decode its first row, the footer's counts not
looked at yet), and the footer's counts need not agree with the pages'. Both
are read here, in Python, from the Thrift compact encoding the format uses (the footer's ``FileMetaData``, each
page's ``PageHeader``), and checked against each other and against the file's size before pyarrow decodes
anything. pyarrow's own accessor of a column chunk's metadata is not used: damaged metadata aborts the process
from it (a C++ exception escaping to ``std::terminate``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import DataError, printable
from ._file_bytes import FileBytes
from ._record import MAX_VALUES

MAGIC = b"PAR1"
MAX_FOOTER_BYTES = 16 * 2 ** 20          # FileMetaData: some 120 bytes per column chunk (100 000 chunks: 12 MB)
# a page header's bytes read at once (a header is some 20-60 bytes; page statistics, bounded by writers to a few
# kB): a larger one is parsed through the file, its skipped fields never held
MAX_HEADER_WINDOW = 1 << 16
MAX_TEXT = 1 << 20                       # a text read (a column's name, a path): a few bytes; skipped ones unread
MAX_DEPTH = 24                           # nested structs (a schema of nested lists is a few levels)
MAX_CHUNKS = 100_000                     # column chunks (a file has a few per column; a damaged footer, millions)
MAX_FILE_VALUES = 4 * MAX_VALUES         # values in all a file's columns, used or not, as its footer counts them
# The page headers a column chunk may hold, walked in Python at some 4 µs each: two (a dictionary page, and the empty
# data page pyarrow may write after it), then one for every PAGE_VALUES of its values or PAGE_BYTES of its bytes.
# Writers cut a page at ~1 MB of values (pyarrow, parquet-mr; DuckDB at 100 MB) or 20 000 rows; pyarrow checks after
# each write batch of 1 024 values, so even data_page_size=1 writes pages of 1 024 values, or fewer of more bytes
# (a LeRobot dataset's images). Writers told to write smaller pages write more, and are refused: pyarrow's
# max_rows_per_page=10 (5 000 doubles: 500 pages of 136 bytes), its write_batch_size=64 with data_page_size=1, its
# content-defined chunking with a min_chunk_size of 64, polars' data_page_size=1 (a page a value, 64 bytes each). An
# honest page of one value takes some 20-80 bytes: no bound on bytes alone tells it from a crafted empty header.
# A crafted chunk of empty page headers (11 bytes each) was walked to its end at 2.4 MB/s: 100 MB, 40 s of CPU.
PAGE_VALUES = 1024
PAGE_BYTES = 512

# Thrift compact field types
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)
_DATA_PAGE, _INDEX_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = range(4)

# The fields read (by Thrift field id; a dict for a struct, [x] for a list of x, True for a value), all others skipped:
# FileMetaData.schema → SchemaElement repetition_type, num_children; FileMetaData.num_rows; FileMetaData.row_groups →
# RowGroup.columns, num_rows → ColumnChunk.file_path, meta_data → ColumnMetaData path_in_schema, num_values,
# total_compressed_size, data_page_offset, dictionary_page_offset; PageHeader type, uncompressed and compressed
# sizes, the data page's (v1 and v2) num_values
_FOOTER = {2: [{3: True, 5: True}], 3: True,
           4: [{1: [{1: True, 3: {3: [True], 5: True, 7: True, 9: True, 11: True}}], 3: True}]}
_REPEATED = 2                            # SchemaElement.repetition_type of a list's element
_PAGE_HEADER = {1: True, 2: True, 3: True, 5: {1: True}, 8: {1: True}}


class _Short(Exception):
    """The bytes end inside a Thrift value (the file is cut or damaged)."""


class _Bad(Exception):
    """A Thrift value that cannot be (a field type outside the encoding, a nesting past MAX_DEPTH …)."""


def _varint(data, pos, end):
    value = shift = 0
    while True:
        if pos >= end:
            raise _Short
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise _Bad("a varint of more than 10 bytes")


def _zigzag(data, pos, end):
    v, pos = _varint(data, pos, end)
    return (v >> 1) ^ -(v & 1), pos


def _struct(data, pos, end, spec, depth):
    """(the fields of ``spec`` of the compact-encoded struct at ``pos``, the position after it)."""
    if depth > MAX_DEPTH:
        raise _Bad(f"values nested more than {MAX_DEPTH} deep")
    out, last = {}, 0
    while True:
        if pos >= end:
            raise _Short
        head = data[pos]
        pos += 1
        if head == 0:                               # stop
            return out, pos
        delta, kind = head >> 4, head & 0x0F
        if delta:
            last += delta
        else:
            last, pos = _zigzag(data, pos, end)
        want = spec.get(last) if spec else None
        if want is None:
            pos = _skip(data, pos, end, kind, depth)
        else:
            out[last], pos = _value(data, pos, end, kind, want, depth)


def _container(data, pos, end):
    """(element count, element type, position after the header) of a list or set."""
    if pos >= end:
        raise _Short
    head = data[pos]
    size, item = head >> 4, head & 0x0F
    pos += 1
    if size == 15:
        size, pos = _varint(data, pos, end)
    if size > end - pos:                            # each element takes a byte at least
        raise _Short
    return size, item, pos


def _value(data, pos, end, kind, want, depth):
    if kind in (_TRUE, _FALSE):
        return kind == _TRUE, pos
    if kind in (_I16, _I32, _I64):
        return _zigzag(data, pos, end)
    if kind == _BINARY:
        n, pos = _varint(data, pos, end)
        if n > end - pos:
            raise _Short
        if n > MAX_TEXT:
            raise _Bad(f"a text of {n} bytes where a name or a number is read")
        return bytes(data[pos:pos + n]), pos + n
    if kind in (_LIST, _SET) and isinstance(want, list):
        size, item, pos = _container(data, pos, end)
        out = []
        for _ in range(size):
            v, pos = _value(data, pos, end, item, want[0], depth + 1)
            out.append(v)
        return out, pos
    if kind == _STRUCT and isinstance(want, dict):
        return _struct(data, pos, end, want, depth + 1)
    return None, _skip(data, pos, end, kind, depth)       # not of the kind the field should be: read as missing


def _skip(data, pos, end, kind, depth):
    """The position after the value of ``kind`` at ``pos``."""
    if kind in (_TRUE, _FALSE):
        return pos
    if kind == _BYTE:
        return pos + 1
    if kind in (_I16, _I32, _I64):
        return _varint(data, pos, end)[1]
    if kind == _DOUBLE:
        return pos + 8
    if kind == _BINARY:
        n, pos = _varint(data, pos, end)
        return pos + n
    if depth >= MAX_DEPTH:
        raise _Bad(f"values nested more than {MAX_DEPTH} deep")
    if kind in (_LIST, _SET):
        size, item, pos = _container(data, pos, end)
        if item in (_TRUE, _FALSE, _BYTE):           # in a container, a boolean is one byte
            return pos + size
        if item == _DOUBLE:
            return pos + 8 * size
        for _ in range(size):
            pos = _skip(data, pos, end, item, depth + 1)
        return pos
    if kind == _MAP:
        size, pos = _varint(data, pos, end)
        if size > end - pos:
            raise _Short
        if size:
            if pos >= end:
                raise _Short
            types = data[pos]
            pos += 1
            for _ in range(size):
                pos = _skip(data, pos, end, types >> 4, depth + 1)
                pos = _skip(data, pos, end, types & 0x0F, depth + 1)
        return pos
    if kind == _STRUCT:
        return _struct(data, pos, end, None, depth + 1)[1]
    raise _Bad(f"field type {kind}")


@dataclass(frozen=True)
class Chunk:
    """A column chunk as the file declares it: its top-level column, its row group's rows, its values (counted by the
    footer and by the page headers alike) and the bytes its pages take decompressed."""

    column: str
    rows: int
    values: int
    unpacked: int


def column_chunks(path, source, same_as=None):
    """Every column chunk of the Parquet file ``path`` (messages name ``source``), its sizes read from the footer and
    checked against its page headers and the file's size, no value decoded. ``same_as``: the ``os.stat`` of ``path``
    taken before pyarrow opened it; a file found other than that one (another file renamed over the path, or this
    one written to, in between) is refused: the checks would bound one file and pyarrow read another.

    Raises
    ------
    DataError
        The footer or a page header damaged, a chunk outside the file or stored in another file, chunks declared
        over the same bytes, page headers counting other values than the footer; more column chunks, values or pages
        than are read (:data:`MAX_CHUNKS`, :data:`MAX_FILE_VALUES`, :data:`PAGE_VALUES`); the file cut short while it
        is read.
    """
    try:
        with open(path, "rb") as stream:
            now = os.fstat(stream.fileno())
            size = now.st_size
            if same_as is not None and _identity(now) != _identity(same_as):
                raise _refuse(source, "the file was replaced or written to while it was read; read it again once "
                                      "it is complete")
            if size < 12:
                raise _refuse(source, f"{size} bytes; a Parquet file has 12 at least")
            return _chunks(_File(stream.fileno(), size, source), size, source)
    except DataError:
        raise
    except OSError as exc:
        raise DataError(f"{source}: cannot read as Parquet: {exc.strerror or exc}") from None


def _identity(stat):
    """What tells one version of a file from another: its device and inode, size and time of last change."""
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


class _File(FileBytes):
    """A Parquet file's bytes read where they are asked for (:class:`~._file_bytes.FileBytes`: ``os.pread``, a window
    at a time), not mapped: a mapped file another process cut short killed the reader by SIGBUS at the first page past
    its new end; a read that comes short of the size the file had when opened is refused in one line.

    Parameters
    ----------
    fd : int
        The open file.
    size : int
        Its size when opened, in bytes.
    source : str
        The file as messages name it.
    """

    # bytes read at a time: the headers of many small pages at once, and little of a large page's values besides its
    # header (a 1 MB page: 1.6 %)
    WINDOW = 1 << 14

    def __init__(self, fd, size, source):
        super().__init__(fd, size, f"{source}: cannot read as Parquet", window=self.WINDOW)

    def read(self, start, stop):
        """(bytes holding the file's ``start``:``stop``, where ``start`` is in them)."""
        return self.window(start, stop)

    def struct(self, pos, end, spec, most=None):
        """(the fields of ``spec`` of the Thrift struct at byte ``pos``, which ends by byte ``end``, the byte after
        it): read in a window, and in a wider one while it runs past that window, up to ``most`` bytes (None: to
        ``end``); a struct larger still is parsed through the file itself, a window at a time (a page header's
        statistics of 200 MB, skipped, had a 200 MB window read to hold them)."""
        need = 1024                                             # a page header's few dozen bytes, with room
        while True:
            data, at = self.read(pos, min(end, pos + need))
            limit = min(end - pos, len(data) - at)              # all the window holds, up to ``end``
            try:
                value, after = _struct(data, at, at + limit, spec, 0)
            except _Short:
                if limit >= end - pos:
                    raise
                if most is not None and limit >= most:
                    return _struct(self, pos, end, spec, 0)
                need = 4 * limit if most is None else min(4 * limit, most)
                continue
            return value, pos + after - at


def _refuse(source, problem):
    return DataError(f"{source}: cannot read as Parquet: {problem}")


def _chunks(data, size, source):
    tail, at = data.read(size - 8, size)
    if tail[at + 4:at + 8] != MAGIC:                # an encrypted footer (PARE), or not Parquet
        raise _refuse(source, "no Parquet footer (PAR1) at its end")
    length = int.from_bytes(tail[at:at + 4], "little")
    footer_start = size - 8 - length
    if length > MAX_FOOTER_BYTES or footer_start < 4:
        raise _refuse(source, f"a footer of {length} bytes in a file of {size}")
    try:
        meta, _ = data.struct(footer_start, size - 8, _FOOTER)
    except (_Short, _Bad) as exc:
        raise _refuse(source, f"the footer is damaged ({exc or 'cut short'})") from None
    flat = _flat_leaves(meta, source)
    declared, total = [], 0              # every chunk's metadata, bounded before a page header is read
    for g, group in enumerate(_list(meta.get(4), source, "row_groups")):
        group = _field(group, None, dict, source, f"row group {g}")
        for j, chunk in enumerate(_list(group.get(1), source, f"row group {g}: columns")):
            where = f"row group {g}, column chunk {j}"
            chunk = _field(chunk, None, dict, source, where)
            if chunk.get(1):
                raise _refuse(source, f"{where}: stored in another file ({printable(_text(chunk[1]))}); a log is "
                                      "read from the named file only")
            declared.append((where, _field(chunk, 3, dict, source, where), group.get(3), j < len(flat) and flat[j]))
        total += group.get(3) if isinstance(group.get(3), int) else 0
    # the walk's work bounded by the footer's counts: pages are allowed for the values it declares (PAGE_VALUES)
    if len(declared) > MAX_CHUNKS:
        raise DataError(f"{source}: {len(declared)} column chunks; at most {MAX_CHUNKS} are read")
    values = sum(max(c[1].get(5), 0) for c in declared if isinstance(c[1].get(5), int))
    if values > MAX_FILE_VALUES:
        raise DataError(f"{source}: {values} values in its columns; a trajectory may hold at most "
                        f"{MAX_FILE_VALUES:.0e}")
    # the bytes walked bounded by the file's: each chunk's pages are bounded by its own bytes (PAGE_BYTES), and
    # chunks of one region of pages, repeated in the footer, walked it once each (a 10 MB file of 100 row groups
    # pointing at the same 10 MB of 512-byte pages took 10 s of CPU; 10 000 of them, some 1 000 s). A writer's chunks
    # are apart, so theirs add up to the data's bytes at most
    spans = sum(_span(c[1]) for c in declared)
    if spans > footer_start - 4:
        raise _refuse(source, f"its column chunks' pages take {spans} bytes, more than the {footer_start - 4} bytes "
                              "before its footer (chunks declared over the same bytes)")
    out = []
    for where, chunk_meta, rows, flat_leaf in declared:
        out.append(_walk(data, source, where, chunk_meta, footer_start, rows))
        # a column of one value a row holds as many values as its row group rows: pyarrow reads the rows the
        # group declares, and a count damaged to 59 read a log of 59 samples of 60 without a word
        if flat_leaf and out[-1].values != out[-1].rows:
            raise _refuse(source, f"{where.partition(',')[0]} declares {out[-1].rows} rows, its column "
                                  f"{printable(out[-1].column)} holds {out[-1].values} values (one a row)")
    if meta.get(3) != total:
        raise _refuse(source, f"the footer counts {meta.get(3)} rows, its row groups {total}")
    return out


def _span(meta):
    """The bytes a chunk's pages take as its ColumnMetaData declares them (0 for a chunk of no value, which is not
    walked, or a size _walk refuses)."""
    size = meta.get(7)
    return size if isinstance(size, int) and size > 0 and meta.get(5) != 0 else 0


def _flat_leaves(meta, source):
    """For each leaf column of the footer's schema (in the column chunks' order), whether it holds one value a row
    (no repeated field on its path)."""
    elements = _list(meta.get(2), source, "schema")
    out, stack = [], []                  # stack: [children left, repeated] of the open groups
    for k, element in enumerate(elements):
        element = _field(element, None, dict, source, f"schema element {k}")
        repeated = element.get(3) == _REPEATED or (bool(stack) and stack[-1][1])
        children = element.get(5)
        if stack:
            stack[-1][0] -= 1
        if isinstance(children, int) and children > 0:
            stack.append([children, repeated and k > 0])
        elif k > 0:
            out.append(not repeated)
        while stack and stack[-1][0] <= 0 and k > 0:
            stack.pop()
    return out


def _walk(data, source, where, meta, footer_start, rows):
    """The chunk described by ``meta`` (ColumnMetaData), its page headers read and counted."""
    column = _list(meta.get(3), source, f"{where}: path_in_schema")
    column = _text(column[0]) if column else ""
    values = _field(meta, 5, int, source, where)
    start = _field(meta, 9, int, source, where)                      # data_page_offset
    dictionary = meta.get(11)
    if isinstance(dictionary, int) and 4 <= dictionary < start:
        start = dictionary
    if not isinstance(rows, int) or rows < 0:
        raise _refuse(source, f"{where}: the footer is damaged (its row group's row count)")
    if values == 0:                     # nothing to decode (an empty table's chunk may point to no page: offset 0)
        return Chunk(column, rows, 0, 0)
    where = f"{where} (column {printable(column)})"
    end = start + _field(meta, 7, int, source, where)                # total_compressed_size: the pages with headers
    if not 4 <= start <= end <= footer_start:
        raise _refuse(source, f"{where}: its pages at bytes {start}–{end}, outside the data (4–{footer_start})")
    counted = unpacked = pages = 0
    most = 2 + -(-values // PAGE_VALUES) + (end - start) // PAGE_BYTES
    pos = start
    while pos < end:
        pages += 1
        if pages > most:
            raise _refuse(source, f"{where}: more than {most} pages for its {values} values in {end - start} bytes "
                                  f"(pages of fewer than {PAGE_VALUES} values and {PAGE_BYTES} bytes are not read: "
                                  "write it with larger pages, e.g. pyarrow's max_rows_per_page and polars' "
                                  "data_page_size left at their defaults)")
        try:
            header, after = data.struct(pos, end, _PAGE_HEADER, most=MAX_HEADER_WINDOW)
        except (_Short, _Bad) as exc:
            raise _refuse(source, f"{where}: the page header at byte {pos} is damaged ({exc or 'cut short'})") from None
        kind = header.get(1)
        full, packed = header.get(2), header.get(3)
        if not (isinstance(full, int) and isinstance(packed, int) and full >= 0 and packed >= 0):
            raise _refuse(source, f"{where}: the page at byte {pos}: its sizes are damaged")
        if kind in (_DATA_PAGE, _DATA_PAGE_V2):
            # its own header, a struct: a damaged file may hold a value of another type there (an int had no .get)
            n = header.get(5 if kind == _DATA_PAGE else 8)
            n = n.get(1) if isinstance(n, dict) else None
            if not isinstance(n, int) or n < 0:
                raise _refuse(source, f"{where}: the page at byte {pos}: its value count is damaged")
            counted += n
        unpacked += full
        if after + packed > end:
            raise _refuse(source, f"{where}: the page at byte {pos} runs to byte {after + packed}, past its column "
                                  f"chunk's end ({end})")
        pos = after + packed
    if counted != values:
        raise _refuse(source, f"{where}: its pages hold {counted} values, the footer counts {values}")
    return Chunk(column, rows, values, unpacked)


def _field(struct_, key, kind, source, where):
    value = struct_ if key is None else struct_.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _refuse(source, f"{where}: the footer is damaged (field {key} missing or of the wrong type)")
    return value


def _list(value, source, what):
    if value is None:
        return []
    if not isinstance(value, list):
        raise _refuse(source, f"the footer is damaged ({what} not a list)")
    return value


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
