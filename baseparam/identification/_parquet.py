"""Parquet files (pyarrow): a row per sample, in either of two layouts.

* A column per field holding the per-joint list (LeRobot's layout: ``timestamp``,
  ``observation.state``, …; baseparam's writer: ``t``, ``q``, ``qd``, ``qdd``, ``tau``). Columns
  found by the names in :data:`DEFAULT_COLUMNS` or a column map (``columns={"q": "observation.state",
  "current": "observation.effort"}``). The joints of a list are named by the schema metadata
  ``baseparam.joint_names`` (a JSON list) or, for a file of a LeRobot dataset (``ROOT/data/chunk-NNN/``),
  by ``ROOT/meta/info.json`` (``features[column].names``); named joints are matched to ``joints`` by name,
  unnamed ones taken in order.
* A scalar column per joint and field (``t, q1..qN, tau1..tauN``, the plain CSV's names): read as
  :func:`~baseparam.from_dataframe` reads a DataFrame.

Rows are 0-based in messages. A null, or a list of another length than the others, is a damaged
row (refused, or dropped with ``skip_bad_rows``); a file that is not Parquet or is cut short is
refused in one line.
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
import weakref
from collections import Counter
from pathlib import Path

import numpy as np

from .._checks import json_loads, read_json, refuse_special, shown, within
from .._processes import signals_held
from ..errors import DataError, printable
from ._columns import (_check_fields, _normalize_map, choose_sources, default_twins, first_misplaced, matched_joints,
                       refuse_differing_twin, refuse_other_order, shown_name, shown_names)
from ._parquet_pages import column_chunks
from ..motion import _coarse_time
from ._record import MAX_COLUMNS, MAX_VALUES, _one_line
from ._rows import _finish, _Table

MAX_INFO_BYTES = 16 * 2 ** 20     # a LeRobot meta/info.json: a few kB

DEFAULT_COLUMNS = {
    "t": ("t", "time", "timestamp"),
    "q": ("q", "position", "positions", "observation.state"),
    "qd": ("qd", "velocity", "velocities", "observation.velocity"),
    "qdd": ("qdd", "acceleration", "accelerations"),
    "tau": ("tau", "effort", "torques", "observation.effort"),
    "current": ("current", "currents"),
}


@functools.cache
def pyarrow_modules():
    """(pyarrow, pyarrow.parquet, pyarrow.compute), imported once with the stopping signals held
    (:func:`signals_held`), and so is pandas, which pyarrow imports on its first computation: interrupted while its
    Cython modules initialise, it lost the signal, or said "partially initialized module 'pandas'" as an internal
    error."""
    with signals_held():
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
        with contextlib.suppress(Exception):          # pyarrow's own switch: imports pandas if it is installed
            _ = pa.lib._pandas_api.have_pandas
    return pa, pq, pc


def open_parquet(pq, path):
    """A Parquet file, its data pages' CRCs checked as they are read where the writer stored them (pyarrow's
    ``write_page_checksum=True``; a flipped byte then fails the read instead of changing a value). Files without
    them are read unchecked. A name that is not UTF-8 (bytes of another encoding, decoded with surrogates: a valid POSIX
    name) is opened here, pyarrow refusing it ('surrogates not allowed'); the file is closed with the object."""
    try:
        os.fsdecode(path).encode("utf-8")
    except UnicodeEncodeError:
        stream = open(path, "rb")
        try:
            parquet = pq.ParquetFile(stream, page_checksum_verification=True)
        except BaseException:
            stream.close()
            raise
        weakref.finalize(parquet, stream.close)
        return parquet
    return pq.ParquetFile(path, page_checksum_verification=True)


def read_parquet(path, source, columns, gains, skip_bad_rows, n_dof, joints):
    pa, pq, _ = pyarrow_modules()

    try:
        opened = os.stat(path)          # the file pyarrow opens is the one the checks below read
        parquet = open_parquet(pq, path)
        schema = parquet.schema_arrow
        rows = parquet.metadata.num_rows
    except Exception as exc:    # damaged metadata: pyarrow's own errors, and Python's (UnicodeDecodeError …)
        raise DataError(f"{source}: cannot read as Parquet: {_one_line(exc)}") from None
    chunks = column_chunks(path, source, same_as=opened)
    if rows * max(1, len(schema)) > MAX_VALUES * 4:
        raise DataError(f"{source}: {rows} rows of {len(schema)} columns; too large for one trajectory")
    if rows == 0:
        raise DataError(f"{source}: no rows")
    refuse_repeated_columns(schema, source)
    lists = [f.name for f in schema if list_type(pa, f.type)]
    bound_values(chunks, source, None, MAX_VALUES * 4)
    refuse_several_episodes(parquet, schema, source)
    if not lists:
        from ._frames import from_dataframe
        if joints is not None:
            # a column per joint (q1, q2, …) taken by its number, as a CSV's: names the file gives its joints in
            # another order than the robot's are refused (they were not looked at: the columns went to other joints)
            given = _joint_names(path, schema, source)("q")
            refuse_other_order(source, given, joints, "the columns q1, q2, … are read by their numbers (write the "
                                                      "file in the robot's order, or with list columns)",
                               picked=columns is not None, whole=True)
        table = _time_in_seconds(pa, _read_table(parquet, source), columns, source)
        return from_dataframe(_frame(table), columns=columns, gains=gains, skip_bad_rows=skip_bad_rows,
                              n_dof=n_dof, source=source)
    present = schema.names
    chosen = choose_sources(source, _normalize_map(columns, source), DEFAULT_COLUMNS, present, entry="one column name",
                            thing="column", listing=shown_names(present),     # escaped and bounded
                            looked_for=lambda field: ", ".join(DEFAULT_COLUMNS[field]), placeholder="NAME")
    bound_values(chunks, source, set(chosen.values()), MAX_VALUES)
    table = _read_table(parquet, source, sorted(set(chosen.values())))      # the columns used, not another's
    _refuse_differing_twins(parquet, chunks, source, columns, present, chosen, table)
    joint_names = _joint_names(path, schema, source)
    names = joint_names(chosen["q"])
    data, where, problems = {}, {}, {}
    width = None
    for field, column in chosen.items():
        col = table.column(column)
        where[field] = f" (column {column})"
        if field == "t":
            if column in lists:
                raise DataError(f"{source}: field t (column {column}): a list per row; expected one time per row")
            data["t"], bad = _scalars(col, pa, f"{source}: field t (column {column})")
            coarse = _coarse_time(np.dtype(col.type.to_pandas_dtype())) if pa.types.is_floating(col.type) else None
        else:
            if column not in lists:
                raise DataError(f"{source}: field {field} (column {column}): one value per row; expected a list of "
                                "the joints' values (or one column per joint, without list columns)")
            data[field], bad, width = _lists(col, pa, width, source, field, column)
        for r, reason in bad:
            problems.setdefault(r, f"field {field}: {reason}")
    notes = []
    if names is not None and len(names) != width:
        if joints is not None:
            # the robot's joints are to be found by these names: without them the lists were taken in the file's
            # order, which its own (damaged) names say is not known, and the values could go to other joints
            raise DataError(f"{source}: {len(names)} joint names for lists of {width} values: which joint each value "
                            "is, is not known; repair or remove the file's joint names")
        notes.append(f"{source}: {len(names)} joint names for lists of {width}; the names are not used")
        names = None
    picked = _pick(names, joints, width, source, notes)         # the robot's joints among the lists' columns
    # a list column whose own names (LeRobot's features.<column>.names) order the joints otherwise than q's is
    # taken by its names: by q's, its values went to other joints, silently
    kept = {f: picked if f == "q" else _own_order(joint_names, column, names, width, picked, source, chosen["q"])
            for f, column in chosen.items() if f != "t"}                 # t: one column, kept whole
    data = {f: a if kept.get(f) is None else a[:, kept[f]] for f, a in data.items()}
    out_names = tuple(joints) if (joints is not None and names is not None) else (tuple(names) if names else ())
    gains = _check_fields(source, {f: (1 if f == "t" else a.shape[1]) for f, a in data.items()}, gains, n_dof)
    data["t"] = data["t"][:, None]
    bad = sorted(problems.items())
    ok = np.ones(table.num_rows, dtype=bool)
    ok[[r for r, _ in bad]] = False
    tab = _Table(source, "row", np.flatnonzero(ok), {f: a[ok] for f, a in data.items()}, list(bad), where, coarse)
    return _finish(tab, gains, skip_bad_rows, joint_names=out_names, notes=tuple(notes))


def _frame(table):
    """``table`` as a pandas DataFrame, a column holding nulls of Arrow's dtype: pandas made them NaN, and the rows
    were said to hold NaN, which the file does not (from_dataframe says null)."""
    frame = table.to_pandas()
    for k, column in enumerate(table.columns):
        if column.null_count:
            import pandas as pd          # pyarrow's to_pandas has imported it
            frame.isetitem(k, column.to_pandas(types_mapper=pd.ArrowDtype))
    return frame


def _refuse_differing_twins(parquet, chunks, source, columns, present, chosen, table):
    """DataError when a field taken by its default name has another default column (``t`` and ``time``) of another
    type or other values (``table`` holds the chosen columns); each such column is bounded as the chosen ones are,
    then read alone."""
    for field, column, other in default_twins(_normalize_map(columns, source), DEFAULT_COLUMNS, present, chosen):
        bound_values(chunks, source, {other}, MAX_VALUES)
        same = _same_values(table.column(column), _read_table(parquet, source, [other]).column(0))
        refuse_differing_twin(source, field, column, other, "column", same)


def _same_values(a, b):
    """Whether two Parquet columns hold the same values, as the NPZ/HDF5 readers compare twins: NaN equal to NaN,
    numbers of another width or kind (float32 beside float64, an int column of whole seconds) by value, nulls at the
    same rows; lists by their lengths and their flattened values. pyarrow's ``equals`` took a NaN and another type
    for other values, and refused a twin holding the very same data."""
    pa, _, pc = pyarrow_modules()
    if len(a) != len(b) or not a.is_null().equals(b.is_null()):
        return False
    if list_type(pa, a.type) and list_type(pa, b.type):
        if not pc.list_value_length(a).equals(pc.list_value_length(b)):
            return False
        a, b = pc.list_flatten(a), pc.list_flatten(b)
        if len(a) != len(b) or not a.is_null().equals(b.is_null()):
            return False
    if not (numeric_type(pa, a.type) and numeric_type(pa, b.type)):
        return a.equals(b)                  # times, text, nested lists: as stored
    x, y = (np.asarray(pc.fill_null(c, 0).to_numpy(zero_copy_only=False)) for c in (a, b))
    if x.dtype.kind in "iu" and y.dtype.kind in "iu":
        return np.array_equal(x, y)         # exactly: int64 values beyond 2**53 are not rounded to one float
    return np.array_equal(x.astype(float), y.astype(float), equal_nan=True)


def refuse_repeated_columns(schema, source):
    """DataError naming a column the Parquet ``schema`` holds twice or more: which one is meant would be a guess, and
    pyarrow refuses to pick, with a KeyError (the floating-base reader's was an internal error)."""
    counts = Counter(schema.names)      # once: schema.names builds a new list at each call
    twice = sorted(name for name, n in counts.items() if n > 1)
    if twice:
        raise DataError(f"{source}: column {shown(printable(twice[0]))} appears {counts[twice[0]]} times; "
                        "give each column one name")


EPISODE_COLUMN = "episode_index"       # LeRobot's: the episode of each row (v3 files hold several)


def refuse_several_episodes(parquet, schema, source):
    """DataError when the file's ``episode_index`` column (LeRobot v3, which writes many episodes to one file) holds
    more than one episode: their times start again at each, and the log was refused as "time goes backwards", or with
    skip_bad_rows every episode after the first dropped as damaged rows, no message naming episodes. One motion is
    read per log: the message names the episodes and how to write each to its own file."""
    if EPISODE_COLUMN not in schema.names:
        return
    _, _, pc = pyarrow_modules()
    column = _read_table(parquet, source, [EPISODE_COLUMN]).column(EPISODE_COLUMN)
    try:
        episodes = pc.unique(column.drop_null()).to_pylist()
    except Exception as exc:             # a column of a type without equality (a list, a map)
        raise DataError(f"{source}: column {EPISODE_COLUMN}: {_one_line(exc)}") from None
    if len(episodes) < 2:
        return
    listed = ", ".join(map(shown, episodes[:5])) + (", …" if len(episodes) > 5 else "")
    raise DataError(f"{source}: column {EPISODE_COLUMN}: {len(episodes)} episodes ({listed}) in one file, each with "
                    f"its own times; a log is one motion: write each episode to its own file (the rows where "
                    f"{EPISODE_COLUMN} == {shown(episodes[0])}, …) and give those")


def _read_table(parquet, source, columns=None):
    try:
        return parquet.read(columns=columns)
    except Exception as exc:    # damaged pages: pyarrow's own errors, and Python's
        raise DataError(f"{source}: cannot read as Parquet (damaged?): {_one_line(exc)}") from None


# Bytes a value may take decompressed, on average over the pages read (8 for a float64, a few for its levels)
_MAX_BYTES_PER_VALUE = 16


def bound_values(chunks, source, names, most):
    """Refuse a file whose columns (the top-level ``names``, or all) hold more than ``most`` values (a named column:
    more than :data:`MAX_COLUMNS` for each row of a row group), or whose pages take more than ``16 * most`` bytes
    decompressed, as its footer and page headers declare them (:func:`~._parquet_pages.column_chunks`), before a
    value is decoded: a list column's values are not bounded by
    its rows (a 2 kB file of 12 rows of 2·10⁶ zeros each, compressed, was read into 1.9 GB as a trajectory of 2
    million joints), and a page's run-length-encoded values not by its bytes (four one-row lists of 1.9·10⁷ zeros
    in a 2 kB file took 1.3 GB while its first row was decoded). The count of column chunks and of all the columns'
    values is bounded by :func:`~._parquet_pages.column_chunks` itself, before a page header is read."""
    counted = [c for c in chunks if names is None or c.column in names]
    count = sum(c.values for c in counted)
    which = "its columns" if names is None else f"column{'s' * (len(names) > 1)} {', '.join(sorted(names))}"
    if count > most:
        raise DataError(f"{source}: {count} values in {printable(which)}; a trajectory may hold at most {most:.0e}")
    wide = next((c for c in counted if names is not None and c.values > MAX_COLUMNS * max(c.rows, 1)), None)
    if wide is not None:        # one row of 2·10⁷ zeros is within the count, and 650 MB decoded before refused
        raise DataError(f"{source}: column {printable(wide.column)}: {wide.values} values in a row group of "
                        f"{wide.rows} rows; a trajectory's row holds at most {MAX_COLUMNS} values per column")
    unpacked = sum(c.unpacked for c in counted)
    if unpacked > _MAX_BYTES_PER_VALUE * most:
        raise DataError(f"{source}: pages of {printable(which)} declare {unpacked} bytes decompressed; a trajectory "
                        f"may take at most {_MAX_BYTES_PER_VALUE * most:.0e}")


def list_type(pa, arrow_type):
    """Whether a column of ``arrow_type`` holds a list per row (of any list kind)."""
    return pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type)


def numeric_type(pa, arrow_type):
    """Whether ``arrow_type`` holds numbers (floating point or integers)."""
    return pa.types.is_floating(arrow_type) or pa.types.is_integer(arrow_type)


def _is_time(pa, arrow_type):
    """Whether ``arrow_type`` is one of Parquet's times (a timestamp or a duration)."""
    return pa.types.is_timestamp(arrow_type) or pa.types.is_duration(arrow_type)


def _seconds(col, pa):
    """A timestamp or duration column in seconds, float64 (S,), nulls 0: whole seconds and the rest apart, as a bag's
    sec + nanosec·1e-9 (a Unix time keeps its sub-ms digits)."""
    pc = pyarrow_modules()[2]
    per_second = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[col.type.unit]
    ticks = np.asarray(pc.fill_null(col.cast(pa.int64()), 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    return (ticks // per_second).astype(np.float64) + (ticks % per_second).astype(np.float64) / per_second


def _time_in_seconds(pa, table, columns, source):
    """``table`` (a column per joint) with its time column, when it holds Parquet times, in seconds as the list
    layout reads its t (:func:`_seconds`; a null stays null, a damaged row): it went to ``from_dataframe`` as
    datetime64, refused there ("convert to seconds"), where the same file's list layout was read."""
    from ._names import _named_columns
    names = [str(name).strip() for name in table.column_names]
    k = _named_columns(source, names, _normalize_map(columns, source), "columns").get("t", [None])[0]
    if k is None or not _is_time(pa, table.schema.field(k).type):
        return table
    col = table.column(k)
    nulls = np.asarray(pyarrow_modules()[2].is_null(col).to_numpy(zero_copy_only=False), dtype=bool)
    return table.set_column(k, table.schema.field(k).name, pa.array(_seconds(col, pa), mask=nulls))


def _scalars(col, pa, where):
    """A numeric column as float64 (S,) and its null rows; Parquet's timestamp and duration types in seconds."""
    pc = pyarrow_modules()[2]
    nulls = np.asarray(pc.is_null(col).to_numpy(zero_copy_only=False), dtype=bool)
    if _is_time(pa, col.type):
        return _seconds(col, pa), [(int(r), "null") for r in np.flatnonzero(nulls)]
    if not numeric_type(pa, col.type):
        raise DataError(f"{where}: {col.type} values, not numbers or times")
    values = np.asarray(pc.fill_null(col, 0).to_numpy(zero_copy_only=False), dtype=np.float64)
    return values, [(int(r), "null") for r in np.flatnonzero(nulls)]


def _lists(col, pa, width, source, field, column):
    """A list column as (S, k) float64, k = ``width`` or (None) the length most rows have; rows null or of another
    length are reported (and zero)."""
    pc = pyarrow_modules()[2]
    col = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    expected = "expected" if width is not None else "the other rows have"
    value_type = col.type.value_type
    if not numeric_type(pa, value_type):
        raise DataError(f"{source}: field {field} (column {column}): lists of {value_type}, not numbers")
    S = len(col)
    lengths = pc.list_value_length(col)
    nulls = np.asarray(pc.is_null(lengths).to_numpy(zero_copy_only=False), dtype=bool)
    lengths = np.asarray(pc.fill_null(lengths, -1).to_numpy(zero_copy_only=False), dtype=np.int64)
    if width is None:
        good = lengths[~nulls]
        if good.size == 0:
            raise DataError(f"{source}: field {field} (column {column}): every row is null")
        width = int(np.bincount(good).argmax())         # the length most rows have
    # float64 before the nulls are filled with NaN (an integer list cannot hold one)
    values = pc.list_flatten(col).cast(pa.float64(), safe=False)
    flat = np.asarray(pc.fill_null(values, np.nan).to_numpy(zero_copy_only=False), dtype=np.float64)
    bad = []
    held = _null_values(values, lengths, nulls)
    if not nulls.any() and not held and (lengths == width).all():
        return flat.reshape(S, width), bad, width
    out = np.zeros((S, width))
    starts = np.concatenate([[0], np.cumsum(np.where(nulls, 0, lengths))])[:-1]
    for r in range(S):
        if nulls[r]:
            bad.append((r, "null"))
        elif r in held:
            bad.append((r, f"null (value {held[r] + 1} of the row's list)"))
        elif lengths[r] != width:
            bad.append((r, f"{lengths[r]} values, {expected} {width}"))
        else:
            out[r] = flat[starts[r]:starts[r] + width]
    return out, bad, width


def _null_values(values, lengths, nulls):
    """{row: place in its list of its first null value} of a list column's flattened ``values`` (pyarrow), its rows'
    ``lengths`` and null rows ``nulls``: a null in a list was filled with NaN, and the row said to hold NaN."""
    if not values.null_count:
        return {}
    pc = pyarrow_modules()[2]
    missing = np.flatnonzero(np.asarray(pc.is_null(values).to_numpy(zero_copy_only=False), dtype=bool))
    starts = np.concatenate([[0], np.cumsum(np.where(nulls, 0, lengths))])
    rows = np.searchsorted(starts, missing, side="right") - 1
    held = {}
    for r, at in zip(rows.tolist(), missing.tolist()):
        held.setdefault(r, at - int(starts[r]))
    return held


def metadata(schema, key, kind, source):
    """The JSON value of a Parquet schema's metadata ``key`` (one of baseparam's writer's, ``baseparam.…``), a ``kind``
    (dict, list), or None when the file has no such key; DataError naming ``source`` and the key when its value is not
    JSON or not a ``kind``. A damaged value was read as none: the joints' names then not used, the lists were taken in
    the file's order, and the wrenches' contacts unchecked, without a word (a LeRobot info.json is refused alike)."""
    raw = (schema.metadata or {}).get(key)
    if raw is None:
        return None
    try:
        value = json_loads(raw)     # a key twice refused, as in read_json
    except (ValueError, RecursionError) as exc:          # a UnicodeDecodeError is a ValueError
        reason = "nested too deeply" if isinstance(exc, RecursionError) else printable(" ".join(str(exc).split()))[:120]
        raise DataError(f"{source}: metadata {key.decode()}: not JSON ({reason})") from None
    if not isinstance(value, kind):
        raise DataError(f"{source}: metadata {key.decode()}: expected a JSON {'object' if kind is dict else 'list'}, "
                        f"got {shown(value)}")
    return value


def lerobot_info(path):
    """The ``meta/info.json`` a Parquet file ``path`` reads its joint names from (existing or not), or None.

    LeRobot's layout, ROOT/data/chunk-NNN/FILE.parquet with ROOT/meta/info.json, and nothing else: any
    meta/info.json up to three folders above was read, so one in a shared folder (/tmp/meta/info.json, anyone's)
    renamed the joints of every Parquet file below it. Outside the layout the file is read alone. The command line
    protects this file as one of a run's inputs: ``--json ROOT/meta/info.json`` replaced the dataset's metadata."""
    # realpath, not Path.resolve: a link that loops is no LeRobot file, and resolve raised RuntimeError on it (Python
    # 3.11), an internal error of every command given one as a log
    chunk = Path(os.path.realpath(path)).parent
    if chunk.parent.name == "data" and re.fullmatch(r"chunk-[0-9]+", chunk.name):
        return chunk.parent.parent / "meta" / "info.json"
    return None


def _joint_names(path, schema, source):
    """A function: list column name → the joint names the file gives that column, or None; the file's own
    metadata, or its LeRobot dataset's ``meta/info.json``, checked and read once for all the columns."""
    names = metadata(schema, b"baseparam.joint_names", list, source)
    if names is not None:
        if not all(isinstance(x, str) for x in names):
            raise DataError(f"{source}: metadata baseparam.joint_names: expected a list of joint names, got "
                            f"{shown(names)}")
        return lambda column: [printable(x) for x in names]
    info = lerobot_info(path)
    if info is not None:
        root = info.parent.parent
        if not os.path.lexists(info):
            return lambda column: None
        # the dataset's own metadata only: not a link leading out of its folder, nor a FIFO or device read without end
        if not within(str(root), info):
            raise DataError(f"{printable(str(info))}: a link leading outside the dataset folder "
                            f"{printable(str(root))}; a dataset's metadata is read from its own folder only")
        refuse_special(info, DataError, printable(str(info)))
        if info.is_file():
            return _info_names(info)
    return lambda column: None


def _info_names(info):
    """A function: list column name → the joint names a LeRobot ``meta/info.json`` gives it, or None when it gives
    none; the file read once.

    A damaged file is refused rather than read as no names: the columns would then be taken in the file's order,
    silently, where its names may have said another.
    """
    where = printable(str(info))
    doc = read_json(info, MAX_INFO_BYTES, where, DataError, "a LeRobot dataset's info.json")
    features = doc.get("features", {}) if isinstance(doc, dict) else doc
    if not isinstance(features, dict):
        raise DataError(f"{where}: {'features' if isinstance(doc, dict) else 'the document'}: expected a JSON object, "
                        f"got {shown(features)}")
    return lambda column: _feature_names(where, features, column)


def _feature_names(where, features, column):
    """The joint names ``features`` (of info.json ``where``) gives ``column``, or None; a damaged entry refused."""
    feature = features.get(column)
    names = feature.get("names") if isinstance(feature, dict) else None
    if feature is not None and not isinstance(feature, dict):
        raise DataError(f"{where}: features.{shown_name(column)}: expected a JSON object, got {shown(feature)}")
    if isinstance(names, dict):                       # {"motors": [...]}
        names = next(iter(names.values()), None)
    if names is None:
        return None
    if isinstance(names, list) and all(isinstance(x, str) for x in names):
        return [printable(x) for x in names]
    raise DataError(f"{where}: features.{shown_name(column)}.names: expected a list of joint names, got {shown(names)}")


def _own_order(joint_names, column, q_names, width, q_picked, source, q_column):
    """The columns of list ``column`` to keep, as :func:`_pick` gives them for q: by the column's own joint names
    when the file gives them (of the list's width) and they are q's joints in another order, else by q's.

    Names are compared without a suffix all of a list's names share after a dot (LeRobot writes ``shoulder.pos`` for
    q, ``shoulder.vel`` for the velocity): other names than q's are not a reordering that can be read, and refusing
    them refused datasets read right before (their lists in q's order). But own names placing one of q's joints
    elsewhere (``[b, a, c, wrist]`` beside q's ``[a, b, c, gripper]``, a name twice, fewer names) are refused
    (DataError naming ``source``): taken in q's order, b's velocity went to joint a without a word.
    """
    own = joint_names(column) if q_names is not None else None
    if own is None:
        return q_picked
    stems, mine = _stems(own), _stems(q_names)
    if stems == mine:
        return q_picked
    if len(own) != width or sorted(stems) != sorted(mine) or len(set(stems)) != len(stems):
        k = first_misplaced(stems, mine)
        if k is not None:
            raise DataError(f"{source}: column {printable(column)}: its joint names {shown_names(own)} put "
                            f"{shown_name(own[k])} at value {k + 1}, the names of column {printable(q_column)} "
                            f"{shown_names(q_names)} at another; which value is which joint is not known (name the "
                            "columns' joints alike)")
        return q_picked
    order = [stems.index(name) for name in mine]         # the column of each of q's joints in this list
    return order if q_picked is None else [order[k] for k in q_picked]


def _stems(names):
    """``names`` without the suffix after a dot that all of them share (``a.pos``, ``b.pos`` → ``a``, ``b``)."""
    suffixes = {name.rpartition(".")[2] for name in names}
    if len(suffixes) == 1 and all("." in name for name in names):
        return [name.rpartition(".")[0] for name in names]
    return list(names)


def _pick(names, joints, width, source, notes):
    """Columns of the lists to keep, in the robot's order, or None for all in order."""
    if joints is None or names is None:
        if joints is not None and len(joints) != width:
            raise DataError(f"{source}: the lists hold {width} joints and name none; the robot has {len(joints)}")
        return None
    joints = [str(j) for j in joints]
    if not all(j in names for j in joints) and all(j in _stems(names) for j in joints):
        names = _stems(names)           # LeRobot names q's joints 'shoulder.pos': the robot's joint 'shoulder'
    twice = next((j for j in joints if names.count(j) > 1), None)
    if twice is not None:              # two columns for one joint: taking the first would be a guess
        raise DataError(f"{source}: joint {printable(twice)} named twice in the file's joint names "
                        f"({shown_names(names)})")
    return [names.index(j) for j in matched_joints(source, names, joints, notes)]
