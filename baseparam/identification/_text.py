"""CSV/TXT files: delimiter, quotes, comments and header, then numpy's block reader with per-line diagnosis."""
from __future__ import annotations

import os
import re

import numpy as np

from .._checks import shown
from .._numbers import plain_float
from .._warnings import warn
from ..errors import DataError, DataWarning
from ..motion import _field_label
from ._record import FIELDS, MAX_COLUMNS, MAX_LINE_BYTES, MAX_TEXT_BYTES, MAX_VALUES, _short
from ._columns import _check_fields, _normalize_map
from ._names import _check_overlap, _name_field, _named_columns, _refuse_out_of_range
from ._rows import _Table, _finish

# A bracketed unit and the blanks before it, glued to its name in whitespace-separated headers.
_UNIT_GROUP = re.compile(r"\s*(\[[^\[\]]*\]|\([^()]*\))")

# Spreadsheet error values: a line starting with one is damaged data, not a '#' comment.
_SPREADSHEET_ERROR = re.compile(r"#(N/A|VALUE!|DIV/0!|REF!|NAME\?|NUM!|NULL!)", re.IGNORECASE)

# Lines are converted in blocks this long: a bad value then costs a per-value diagnosis of one
# block only, not of the whole file.
_BLOCK = 8192


def _read_bytes(path, source):
    """The file's bytes, read in blocks; a file larger than :data:`MAX_TEXT_BYTES` or with a line
    longer than :data:`MAX_LINE_BYTES` is refused before more than about a block past the limit
    is read (a regular file's size is checked before anything is read)."""
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > MAX_TEXT_BYTES:
                raise DataError(f"{source}: {size} bytes; a trajectory text file may have at most "
                                f"{MAX_TEXT_BYTES >> 20} MiB")
            data = bytearray()
            run = 0           # bytes since the last newline
            while True:
                block = stream.read(_READ_BLOCK)
                if not block:
                    return data
                # a line ends at \n, or at \r (CR-only files, which are documented): either resets the run
                ends = [i for i in (block.find(b"\n"), block.find(b"\r")) if i >= 0]
                first, last = (min(ends) if ends else -1), max(block.rfind(b"\n"), block.rfind(b"\r"))
                # Lines inside one block are shorter than the block (= the limit): only a line
                # running across blocks can exceed it.
                if (run + len(block) if first < 0 else run + first) > MAX_LINE_BYTES:
                    line = (data.count(b"\n") or data.count(b"\r")) + 1
                    raise DataError(f"{source}: line {line}: longer than {MAX_LINE_BYTES >> 20} MiB; "
                                    "not a trajectory log")
                run = run + len(block) if first < 0 else len(block) - last - 1
                data += block
                if len(data) > MAX_TEXT_BYTES:      # a pipe or device: no size known in advance
                    raise DataError(f"{source}: more than {MAX_TEXT_BYTES >> 20} MiB; a trajectory text "
                                    "file may have at most that")
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise DataError(f"{source}: cannot read the trajectory: {reason}") from None


_READ_BLOCK = MAX_LINE_BYTES


def _delimiter(source, delimiter, first_line):
    """The field separator: given, or sniffed from the first line (None: whitespace).

    The most frequent of , ; tab wins, except that a line of decimal-comma numbers separated by
    ; or tab (``0,5;1,25``) has more commas than separators: then the separator wins, so that the
    values are reported as decimal commas rather than cut apart.
    """
    if delimiter is not None:
        if delimiter in (" ", "whitespace", r"\s+"):
            return None
        if delimiter == r"\t":
            return "\t"
        if len(delimiter) != 1:
            raise DataError(f"{source}: delimiter must be one character or ' ' (whitespace), got {shown(delimiter)}")
        return delimiter
    counts = {d: first_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=counts.get)
    if best == "," and (counts[";"] or counts["\t"]):
        other = ";" if counts[";"] >= counts["\t"] else "\t"
        if all(_is_number(f.strip().replace(",", ".")) for f in first_line.split(other)):
            return other
    return best if counts[best] else None


def _is_number(text):
    try:
        plain_float(text)
        return True
    except ValueError:
        return False


def _number_like(text, delim):
    """A number, or a decimal-comma number in a file not separated by commas (refused later)."""
    text = text.strip()
    return _is_number(text) or (delim != "," and "," in text and _is_number(text.replace(",", ".")))


def _unquote(line, delim):
    """The line with double quotes around fields removed: '"0.1","0.2"' → '0.1,0.2'."""
    bare = line.replace('"', "")
    if delim is not None and line == '"' + bare.replace(delim, f'"{delim}"') + '"':
        return bare                                   # every field quoted, no blanks: the usual case
    fields = line.split(delim)
    for k, field in enumerate(fields):
        text = field.strip()
        if len(text) >= 2 and text[0] == text[-1] == '"':
            fields[k] = text[1:-1]
    return (" " if delim is None else delim).join(fields)


def unquoted(lines, delim):
    """``lines`` with the double quotes around their fields removed (:func:`_unquote`), as both text readers take
    them (a spreadsheet's export quotes every field)."""
    return [_unquote(line, delim) if '"' in line else line for line in lines]


def _header_names(line, delim):
    """Column names of a header line, unquoted; with whitespace separators a unit stays with its
    name ('t [s]  q1 [N m]' → ['t[s]', 'q1[Nm]'])."""
    if delim is None:
        line = _UNIT_GROUP.sub(lambda m: "".join(m.group(1).split()), line)
    return [h.strip().strip("\"'").strip() for h in line.split(delim)]


def _is_comment(line):
    """A line starting with '#' — but not a spreadsheet error value ('#N/A', '#VALUE!'), which is a
    damaged data line and must be reported, not skipped."""
    stripped = line.lstrip()
    return stripped.startswith("#") and not _SPREADSHEET_ERROR.match(stripped)


# The first bytes of the binary formats baseparam reads: a log of one of them under a text name (a Parquet file saved
# as .csv) decoded to a header of control characters and U+FFFD, and a message listing them as column names
_BINARY_MAGIC = ((b"PAR1", "Parquet", "name it .parquet"), (b"PK\x03\x04", "zip (NPZ)", "name it .npz"),
                 (b"\x89HDF\r\n\x1a\n", "HDF5", "name it .h5"), (b"\x89MCAP", "MCAP", "name it .mcap"),
                 (b"#ROSBAG V", "ROS 1 bag", "name it .bag"),
                 (b"\x93NUMPY", "NumPy .npy", "save the arrays with np.savez(t=..., q=..., tau=...) as .npz"),
                 (b"SQLite format 3\x00", "SQLite", "give a ROS 2 bag as its folder"))


def read_text_lines(path, source):
    """The front end of the fixed-base and the floating-base text readers: the file ``path`` read (bounded:
    :func:`_read_bytes`), refused when it is one of the binary formats baseparam reads under a text name or holds more
    lines than a trajectory may, decoded (:func:`decoded`) and split (:func:`text_lines`).

    Returns
    -------
    lines : list of str
        As an editor numbers them.
    ends_with_newline : bool
    data_idx : list of int
        The lines that hold data or the header.
    has_quotes : bool
        Whether a double quote is in the text.
    """
    raw = _read_bytes(path, source)
    for magic, kind, hint in _BINARY_MAGIC:
        if raw.startswith(magic):
            raise DataError(f"{source}: a {kind} file, not text (CSV); the type is taken from the name: {hint}")
    rows = raw.count(b"\n")
    if rows * 3 > MAX_VALUES:         # t, q and tau (or qd) at least: more than a trajectory may hold
        raise DataError(f"{source}: {rows} lines; a trajectory may hold at most {MAX_VALUES:.0e} values "
                        f"({MAX_VALUES // 3} rows of the smallest kind)")
    text = decoded(raw, source)
    del raw                           # the bytes, text and lines of a large file are not all held at once
    has_quotes = '"' in text
    lines, ends_with_newline, data_idx = text_lines(text, source)
    return lines, ends_with_newline, data_idx, has_quotes


def _read_text_file(path, source, columns, gains, skip_bad_rows, n_dof, delimiter):
    lines, ends_with_newline, data_idx, has_quotes = read_text_lines(path, source)
    first = data_idx[0]
    delim = _delimiter(source, delimiter, lines[first].replace('"', ""))
    fields = lines[first].count(delim) + 1 if delim is not None else len(lines[first].split())
    if fields > MAX_COLUMNS:
        raise DataError(f"{source}: line {first + 1}: {fields} fields; a trajectory has at most {MAX_COLUMNS} columns")
    if has_quotes:           # quoted fields; cost only for files that have quotes
        lines = unquoted(lines, delim)
    columns = _normalize_map(columns, source)
    text_only = not any(_number_like(h, delim) for h in lines[first].split(delim))
    header, names = _find_header(lines, first, delim, columns, text_only)
    not_header = text_only and header is None     # damaged data, reported as such
    if header is not None:
        if header == first:
            data_idx = data_idx[1:]
        width = len(names)
        where = f"line {header + 1} (header)"
        spec = _named_columns(source, names, columns, where)
        if not data_idx:
            raise DataError(f"{source}: no data lines after the header (line {header + 1})")
        gains = _check_fields(source, {f: len(c) for f, c in spec.items()}, gains, n_dof, names, where)
    counts = _field_counts(lines, data_idx, delim)
    if header is None:
        width = int(np.bincount(counts).argmax())      # the usual line; damaged ones are rare
        spec = _positional_columns(source, width, columns, first + 1)
        gains = _check_fields(source, {f: len(c) for f, c in spec.items()}, gains, n_dof)
    good = counts == width
    problems = _count_problems(data_idx, counts, good, width, last=len(lines) - 1, ends_with_newline=ends_with_newline)
    good_idx = np.asarray(data_idx)[good]
    values = len(good_idx) * sum(len(cols) for cols in spec.values())
    if values > MAX_VALUES:
        raise DataError(f"{source}: {len(good_idx)} rows of {values // max(len(good_idx), 1)} used columns "
                        f"({values:.3g} values); a trajectory may hold at most {MAX_VALUES:.0e}")
    table = _convert_lines(source, lines, good_idx, delim, spec)
    table.problems = problems + table.problems
    if not_header:
        table.problems = [(w, r + ("; not a header: none of its names is t, time, qN, qdN, qddN, tauN, "
                                   "currentN or iN" if w == first + 1 else "")) for w, r in table.problems]
    return _finish(table, gains, skip_bad_rows)


def text_lines(text, source):
    """A text log's lines as an editor numbers them (:func:`_split_lines`; the empty one after a final newline
    dropped), whether the text ends with a newline, and the indices of the lines that hold data or the header: neither
    blank nor ``#`` comments (counted in line numbers all the same). The fixed-base and floating-base CSV readers
    (:mod:`~baseparam.identification.floating_logs`) both read their text through it and :func:`_find_header`, so
    that a file one takes (a byte-order mark, a ``# joints:`` line, np.savetxt's ``# t,q1,…`` header) the other
    takes too."""
    lines = _split_lines(text)
    ends_with_newline = lines[-1] == ""
    if ends_with_newline:
        lines.pop()
    data_idx = [i for i, line in enumerate(lines) if line.strip()]
    if "#" in text:          # comment lines: skipped, but counted in line numbers
        data_idx = [i for i in data_idx if "#" not in lines[i] or not _is_comment(lines[i])]
    if not data_idx:
        raise DataError(f"{source}: empty file (no data lines)")
    # one line alone is a header (refused after this as no data) or a log of one sample (too short for any use)
    if (not ends_with_newline and len(data_idx) > 1 and data_idx[-1] == len(lines) - 1
            and not _last_line_whole(lines, data_idx)):
        warn(f"{source}: line {len(lines)}: the last line has no line end: a log cut off mid-write? its values are "
             "read as they stand", DataWarning)
    return lines, ends_with_newline, data_idx


# The last value of a line (after the last delimiter, blanks around it dropped), and its digits after a decimal point
# when written with one and no exponent, as a fixed format ('%.4f') writes the same number of them on every line.
_LAST_VALUE = re.compile(r"([^,;\s]+)[,;\s]*$")
_FIXED_DECIMALS = re.compile(r"[+-]?\d*\.(\d+)")
_LINES_COMPARED = 1000


def _last_line_whole(lines, data_idx):
    """Whether the last data line, which has no line end, shows whole by the lines before it (up to 1000 data lines,
    the first, perhaps a header, left out). A log killed mid-write is cut anywhere in its last line: inside its last
    value the line keeps its field count and a shortened number ('0.12' of '0.1234', '1.5e-0' of '1.5e-05') reads
    as a valid, wrong sample. A fixed format ('%.4f': every earlier last value with one count of decimals) loses
    digits or its point in any such cut; a free one (repr, '%g', integers) is taken as whole unless its last value
    is shorter than every earlier one (a cut leaves fewer characters than the column's shortest value): a file
    written without a final newline ('\n'.join) is common, and was warned about on every read."""
    before = data_idx[max(1, len(data_idx) - 1 - _LINES_COMPARED):-1]
    if not before:
        return False
    earlier = [_last_value(lines[i]) for i in before]
    last = _last_value(lines[data_idx[-1]])
    if last is None or None in earlier:
        return False
    decimals = {_fixed_decimals(value) for value in earlier}
    if len(decimals) == 1 and None not in decimals:
        return _fixed_decimals(last) in decimals
    return len(last) >= min(map(len, earlier))


def _last_value(line):
    found = _LAST_VALUE.search(line)
    return None if found is None else found.group(1)


def _fixed_decimals(value):
    found = _FIXED_DECIMALS.fullmatch(value)
    return None if found is None else len(found.group(1))


def decoded(raw, source=None):
    """The text of a trajectory file's bytes: spreadsheet exports may be UTF-16 or UTF-32 (with a byte-order mark;
    UTF-32's was read as UTF-16's, a header of NUL-riddled names); anything else is read as UTF-8 (a byte-order mark
    dropped), whose decoding errors become U+FFFD, then "not a number" on the line that holds them. With ``source``
    (a reader's), UTF-16 without a byte-order mark is refused (it was refused as a header of columns such as
    '\\x00t\\x00'); NUL bytes elsewhere (a block of them where a crash left a line unwritten) are the damage of the
    lines that hold them, which ``skip_bad_rows`` skips."""
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):   # UTF-32's mark, which begins as UTF-16LE's
        return raw.decode("utf-32", errors="replace")
    utf16 = raw.startswith((b"\xff\xfe", b"\xfe\xff"))
    if source is not None and not utf16 and _utf16_without_mark(raw) and (at := raw.find(b"\x00")) >= 0:
        line = raw.count(b"\n", 0, at) + 1
        raise DataError(f"{source}: line {line}: a NUL byte (byte {at}): not UTF-8 text (UTF-16 without a byte-order "
                        "mark?); save it as UTF-8, or UTF-16 with its byte-order mark")
    return raw.decode("utf-16" if utf16 else "utf-8-sig", errors="replace")


def _utf16_without_mark(raw):
    """Whether ``raw`` begins as text saved as UTF-16 without its byte-order mark: in its first 256 bytes, those at
    the even offsets, or those at the odd ones, all NUL (the high bytes of ASCII characters), the others none."""
    head = raw[:256]
    even, odd = head[0::2], head[1::2]
    return bool(odd) and any(part.count(0) == len(part) and 0 not in other
                             for part, other in ((even, odd), (odd, even)))


# write_trajectory's joint names line, '# joints: a, b, c', as a hand-edited file may spell it too ('#Joints:a,b')
_JOINTS_LINE = re.compile(r"#\s*joints\s*:(.*)", re.IGNORECASE)
_JOINT_SEPARATORS = re.compile(r"[,;\t]")


def named_joints(path):
    """The joint names of the ``# joints: a, b, c`` comment of the text file ``path`` before its second line that is
    neither comment nor blank (the first data line after a header), the file decoded and split as the reader does
    (:func:`decoded`, :func:`_split_lines`), from its first 64 KiB; None without one. OSError as ``open`` raises it.

    Not only the first line: a blank line or another comment before it, the header before it, or ``#joints:`` in
    other spacing or case hid the names, and the columns went to other joints without a word."""
    with open(path, "rb") as stream:
        lines = _split_lines(decoded(stream.read(1 << 16)))
    others = 0
    for line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            others += 1
            if others > 1:
                return None                      # the data: the names come before it, around the header
            continue
        found = _JOINTS_LINE.fullmatch(text)
        if found is not None:
            # separated as the file's fields may be (',' as write_trajectory writes, ';', tab, or blanks alone): a
            # hand-written '# joints: a; b; c' was one name, of no joint, and the order went unchecked
            listed = _JOINT_SEPARATORS.split(found.group(1))
            listed = listed if len(listed) > 1 else found.group(1).split()
            return [name.strip().strip("\"'").strip() for name in listed]
    return None


def _split_lines(text):
    """Lines as an editor numbers them: ended by \\n (a \\r before it is dropped). A \\r elsewhere
    stays in its line, where it makes a bad field, so that it cannot shift the line numbers of
    the rest of the file; only a file without any \\n (classic Mac OS) is split at \\r."""
    if "\n" not in text:
        return text.split("\r")
    lines = text.split("\n")
    if "\r" in text:
        lines = [line.rstrip("\r") if line.endswith("\r") else line for line in lines]
    return lines


def _find_header(lines, first, delim, columns, text_only):
    """(index of the header line, its column names), or (None, None) without header.

    The first data line is the header when none of its fields is a number (``text_only``),
    unless the column map is positional (indices only) and none of its names is a field name:
    then it is a damaged data line. A comment line just before a numeric first data line is the
    header when it has as many fields and names a field (``# t,q1,...`` of ``np.savetxt``).
    """
    if text_only:
        names = _header_names(lines[first], delim)
        if _positional(columns) and not _plausible_header(names):
            return None, None
        return first, names
    before = first - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    if before >= 0 and _is_comment(lines[before]):
        names = _header_names(lines[before].lstrip().lstrip("#"), delim)
        if len(names) == len(lines[first].split(delim)) and _plausible_header(names):
            return before, names
    return None, None


def _positional(columns):
    """Whether a normalized column map gives columns, all by index (no names)."""
    entries = [cols for cols in columns.values() if cols is not None]
    return bool(entries) and all(isinstance(cols[0], int) for cols in entries)


def _plausible_header(names):
    """Whether a row of names names at least one field (``t``, ``q1``, ``tau3 [N·m]``, …)."""
    return any(_name_field(name) is not None for name in names)


def _field_counts(lines, idx, delim):
    """Number of fields of each line in ``idx``, as an int array (no value is converted)."""
    if delim is None:
        return np.fromiter((len(lines[i].split()) for i in idx), dtype=np.int64, count=len(idx))
    return np.fromiter((lines[i].count(delim) for i in idx), dtype=np.int64, count=len(idx)) + 1


def _count_problems(idx, counts, good, width, last, ends_with_newline):
    problems = []
    for k in np.flatnonzero(~good):
        i, got = idx[k], int(counts[k])
        if i == last and not ends_with_newline and got < width:
            problems.append((i + 1, f"truncated last line ({got} of {width} fields)"))
        else:
            problems.append((i + 1, f"wrong field count (expected {width} fields, got {got})"))
    return problems


def _positional_columns(source, width, columns, first_line_no):
    """field → column indices for a file without header: the map is required and numeric."""
    if all(cols is None for cols in columns.values()):
        raise DataError(f"{source}: no header row (line {first_line_no} has numbers, {width} fields per line); "
                        "give a column map, "
                        "e.g. columns={'t': 0, 'q': '1:7', 'tau': '7:13'}")
    spec = {}
    for field in FIELDS:
        cols = columns.get(field)
        if cols is None:
            continue
        if isinstance(cols[0], str):
            raise DataError(f"{source}: column map: field {field}: the file has no header, so columns are "
                            f"0-based numbers, not names ({shown(cols[0])})")
        _refuse_out_of_range(source, field, cols, width, f"lines have {width} fields, columns 0-{width - 1}")
        spec[field] = cols
    _check_overlap(source, spec)
    return spec


def _convert_lines(source, lines, idx, delim, spec):
    """Convert the used columns of the lines ``idx`` (all with the right field count) to floats.

    numpy's C reader converts each block; only a block it refuses is diagnosed value by value.
    """
    used = [c for cols in spec.values() for c in cols]
    labels = [_field_label(field, j) for field, cols in spec.items() for j in range(len(cols))]
    blocks, ids, problems = [], [], []
    for start in range(0, len(idx), _BLOCK):
        part = idx[start:start + _BLOCK]
        block = [lines[i] for i in part]
        try:
            values = np.loadtxt(block, delimiter=delim, usecols=used, comments=None, dtype=np.float64, ndmin=2)
            keep = part
        except ValueError:
            values, keep, bad = _diagnose(block, part, delim, used, labels)
            problems += bad
        blocks.append(values.reshape(-1, len(used)))
        ids.append(np.asarray(keep, dtype=np.int64) + 1)
    values = np.concatenate(blocks) if blocks else np.empty((0, len(used)))
    data, k = {}, 0
    for field, cols in spec.items():
        data[field] = values[:, k:k + len(cols)]
        k += len(cols)
    ids = np.concatenate(ids) if ids else np.empty(0, dtype=np.int64)
    return _Table(source, "line", ids, data, problems, {})


def _field_problem(field, text, delim):
    """What is wrong with one field that did not convert: its raw text and its stripped ``text``."""
    if not text:
        return "empty value"
    what = f"not a number ({_short(field.strip(' '))})"
    if "\r" in field:                 # the text around it may be a fine number: no decimal-comma advice
        return what + "; a carriage return inside the line (a damaged line end)"
    if _number_like(text, delim):
        what += "; decimal commas are not supported; use '.'"
    return what


def _diagnose(block, part, delim, used, labels):
    """Value-by-value conversion of a block numpy refused: (values, kept line indices, problems)."""
    rows, keep, problems = [], [], []
    for line, i in zip(block, part):
        fields = line.split(delim)
        row = []
        for c, label in zip(used, labels):
            text = fields[c].strip()
            try:
                if "\r" in fields[c]:
                    raise ValueError(text)          # a stray carriage return: damage, not a blank
                row.append(plain_float(text))
            except ValueError:
                problems.append((int(i) + 1, f"field {label}: {_field_problem(fields[c], text, delim)}"))
                break
        else:
            rows.append(row)
            keep.append(i)
    return np.array(rows, dtype=np.float64).reshape(-1, len(used)), keep, problems
