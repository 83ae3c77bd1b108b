"""Measured trajectories for identification: reading and validating t, q, (qd, qdd) and τ.

Sources
-------
* CSV/TXT with a header row (the plain format of ``CONTRACT.md``):
  ``t, q1..qN, [qd1..qN], [qdd1..qN], tau1..tauN`` in any column order, names case-insensitive
  (also ``time``, ``current1..N`` or ``i1..N``, and ``q_1``/``q[1]`` spellings). A name may carry
  its unit in brackets or parentheses, ``t [s]``, ``q1 (rad)``, ``tau1 [N·m]``, if that unit is
  the SI unit of the field (see :data:`UNITS`); other units (``deg``, ``ms``) are refused, never
  converted;
* CSV/TXT without a header, with a column map ``columns={"t": 0, "q": "1:7", ...}``
  (CLI ``--columns t=0,q=1:7,qd=7:13,current=13:19``, see :func:`parse_column_map`). With such a
  positional map a first line without numbers is a header only if one of its names is a field
  name (``t``, ``q1``, ``tau1 [N·m]``, …); otherwise it is a damaged data line, refused or (with
  ``skip_bad_rows``) skipped like any other;
* NPZ and HDF5 files, one array per field (default key names in :data:`DEFAULT_KEYS`);
* a pandas DataFrame (:func:`from_dataframe`) or plain arrays (:func:`from_arrays`);
* :class:`Trajectory` itself, which checks shapes, finiteness and times but drops nothing.

In text files, lines starting with ``#`` (after optional blanks) are comments, skipped anywhere
but counted in line numbers; a comment just before the first data line that holds field names
(``np.savetxt(..., header="t,q1,...")`` writes ``# t,q1,...``) is taken as the header. Fields
may be double-quoted (``"0.1","0.2"``). Decimal commas (``0,5``) are not supported: they are
refused with a message saying so.

Motor currents (field ``current``) need drive gains: τ = current · gains (N·m/A per joint).

A damaged file is never ingested silently. Every problem raises one :class:`DataError` line naming
the file, the line (CSV: 1-based physical line, counting the header) or row (arrays: 0-based),
the field and the problem, e.g. ``ur.csv: line 7: field qd3: not a number ('abc')``. With
``skip_bad_rows=True`` bad rows are dropped instead and listed in :attr:`Trajectory.skipped`
(see :meth:`Trajectory.skipped_summary`); structural problems (no column map, missing fields,
inconsistent shapes, too few samples left) always raise.
"""
from __future__ import annotations

import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

import numpy as np

from ..errors import DataError

FIELDS = ("t", "q", "qd", "qdd", "tau", "current")
JOINT_FIELDS = FIELDS[1:]

# |value| beyond these is a unit or recording error, never a measurement: s, rad or m, rad/s or
# m/s, rad/s² or m/s², N·m or N, A. Times may be Unix timestamps in s (≈ 1.7e9; the KUKA LWR4+
# recordings use them), so t's bound is 1e10 s (year 2286): timestamps in ms, µs or ns, or
# garbage, are still refused.
ABSURD_BOUNDS = {"t": 1e10, "q": 1e3, "qd": 1e4, "qdd": 1e6, "tau": 1e6, "current": 1e4}

# Fewer samples than this cannot identify anything, and usually mean a wrong file or column map.
MIN_SAMPLES = 10

# Array names looked for in NPZ/HDF5 files, in order of preference.
DEFAULT_KEYS = {
    "t": ("t", "time", "times"),
    "q": ("q", "positions"),
    "qd": ("qd", "velocities"),
    "qdd": ("qdd", "accelerations"),
    "tau": ("tau", "torques"),
    "current": ("current", "currents"),
}

# Units accepted after a header name ("t [s]", "q1 (rad)"), compared without case and blanks: only
# the SI unit of each field, since values are never converted.
UNITS = {
    "t": ("s", "sec"),
    "q": ("rad", "m"),
    "qd": ("rad/s", "m/s"),
    "qdd": ("rad/s^2", "rad/s²", "rad/s**2", "m/s^2", "m/s²", "m/s**2"),
    "tau": ("n·m", "n⋅m", "n*m", "nm", "n.m", "n"),
    "current": ("a",),
}
_UNIT_HINT = {"t": "s", "q": "rad (or m)", "qd": "rad/s (or m/s)", "qdd": "rad/s^2 (or m/s^2)",
              "tau": "N·m (or N)", "current": "A"}
# "name [unit]" or "name (unit)"; brackets holding only digits ("q[1]", "pos[2]") are not units.
_UNIT = re.compile(r"^(.*?\S)\s*(?:\[([^\[\]]*)\]|\(([^()]*)\))$")

# A bracketed unit and the blanks before it, glued to its name in whitespace-separated headers.
_UNIT_GROUP = re.compile(r"\s*(\[[^\[\]]*\]|\([^()]*\))")

# Spreadsheet error values: a line starting with one is damaged data, not a '#' comment.
_SPREADSHEET_ERROR = re.compile(r"#(N/A|VALUE!|DIV/0!|REF!|NAME\?|NUM!|NULL!)", re.IGNORECASE)

# At most this many column names are listed when none of them is recognised.
_SHOWN_NAMES = 10

# Header names: "t"/"time", and a field prefix followed by the 1-based joint number.
_TIME_NAMES = ("t", "time")
_JOINT_NAME = re.compile(r"^(qdd|qd|q|tau|current|i)[_ ]?\[?(\d+)\]?$")
_NAME_FIELD = {"qdd": "qdd", "qd": "qd", "q": "q", "tau": "tau", "current": "current", "i": "current"}

# Lines are converted in blocks this long: a bad value then costs a per-value diagnosis of one
# block only, not of the whole file.
_BLOCK = 8192

# At most this many ranges of skipped lines are listed in a summary.
_SUMMARY_RANGES = 10


@dataclass(frozen=True)
class Trajectory:
    """A measured trajectory, validated, in SI units.

    Attributes
    ----------
    t : ndarray, shape (S,)
        Sample times in s, strictly increasing, float64.
    q : ndarray, shape (S, n)
        Joint positions (rad or m).
    tau : ndarray, shape (S, n)
        Joint torques or forces (N·m or N); for current logs, current × per-joint drive gain.
    qd, qdd : ndarray, shape (S, n), or None
        Joint velocities and accelerations when recorded; None means "derive them later".
    source : str
        File name or description, used in messages.
    skipped : tuple of (int, str)
        ``(line_or_row, reason)`` of every row dropped with ``skip_bad_rows=True``, in file order.
    skipped_unit : str
        ``"line"`` (CSV: 1-based physical lines) or ``"row"`` (arrays: 0-based rows), the meaning
        of the numbers in ``skipped``.

    Raises
    ------
    DataError
        Constructed directly, the arrays are checked as the loaders check them, except that
        nothing is dropped: t of shape (S,), q of shape (S, n) with n ≥ 1, tau (and qd, qdd when
        given) of shape (S, n), all numeric and finite, t strictly increasing, S ≥
        :data:`MIN_SAMPLES`. Lists and integer arrays become float64 arrays. The message names
        ``source``, the field and, for a bad value, the 0-based row; :func:`from_arrays` with
        ``skip_bad_rows=True`` drops bad rows instead.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(20) * 0.01
    >>> traj = from_arrays(t, np.zeros((20, 2)), np.ones((20, 2)))
    >>> traj.n_samples, traj.n_dof, traj.qd is None
    (20, 2, True)
    """

    t: np.ndarray
    q: np.ndarray
    tau: np.ndarray
    qd: Optional[np.ndarray] = None
    qdd: Optional[np.ndarray] = None
    source: str = "<arrays>"
    skipped: tuple = ()
    skipped_unit: str = "line"

    def __post_init__(self):
        _check_trajectory(self)

    @property
    def n_samples(self) -> int:
        """Number of samples S."""
        return int(self.t.shape[0])

    @property
    def n_dof(self) -> int:
        """Number of joints n."""
        return int(self.q.shape[1])

    def skipped_summary(self) -> Optional[str]:
        """One line saying which rows were dropped and why, or None when none were.

        Consecutive line numbers are compressed into ranges; at most 10 ranges are listed.

        Examples
        --------
        >>> import numpy as np
        >>> traj = Trajectory(np.arange(10.0), np.zeros((10, 1)), np.zeros((10, 1)), source="ur.csv",
        ...                   skipped=((2, "field q1: NaN"), (3, "field q1: NaN"),
        ...                            (9, "truncated last line (2 of 3 fields)")))
        >>> traj.skipped_summary()
        'ur.csv: skipped 3 bad rows of 13: lines 2-3 (NaN), 9 (truncated last line)'
        """
        if not self.skipped:
            return None
        ranges = _ranges(self.skipped)
        parts = [f"{_span(a, b)} ({', '.join(kinds)})" for a, b, kinds in ranges[:_SUMMARY_RANGES]]
        if len(ranges) > _SUMMARY_RANGES:
            parts.append(f"… ({len(ranges) - _SUMMARY_RANGES} more ranges)")
        count = len(self.skipped)
        total = self.n_samples + count
        plural = "" if count == 1 else "s"
        return (f"{self.source}: skipped {count} bad row{plural} of {total}: "
                f"{self.skipped_unit}{plural} {', '.join(parts)}")


def _check_trajectory(traj):
    """Validate (and convert to float64) the arrays of a :class:`Trajectory`; vectorized, cheap."""
    if not isinstance(traj.source, str):
        object.__setattr__(traj, "source", os.fsdecode(traj.source) if isinstance(traj.source, os.PathLike)
                           else str(traj.source))
    if not isinstance(traj.skipped, tuple):
        object.__setattr__(traj, "skipped", tuple(traj.skipped))
    source = traj.source
    coarse = None
    arrays = {}
    for field in ("t", "q", "tau", "qd", "qdd"):
        value = getattr(traj, field)
        if value is None:
            if field in ("t", "q", "tau"):
                raise DataError(f"{source}: field {field}: missing")
            continue
        try:
            arr = value if isinstance(value, np.ndarray) else np.asarray(value)
        except (TypeError, ValueError) as exc:       # ragged nested lists
            raise DataError(f"{source}: field {field}: not a numeric array ({_one_line(exc)})") from None
        if arr.dtype.kind not in "iuf":
            raise DataError(f"{source}: field {field}: not numeric (dtype {arr.dtype})")
        if field == "t":
            coarse = _coarse_time(arr.dtype)
        if arr.dtype != np.float64:
            arr = arr.astype(np.float64)
        if arr is not value:
            object.__setattr__(traj, field, arr)
        arrays[field] = arr
    t, q = arrays["t"], arrays["q"]
    if t.ndim != 1:
        raise DataError(f"{source}: field t: expected shape (S,), got {t.shape}")
    S = t.shape[0]
    for field, arr in arrays.items():
        if field == "t":
            continue
        if arr.ndim != 2:
            hint = " (one joint: shape (S, 1))" if arr.ndim == 1 else ""
            raise DataError(f"{source}: field {field}: expected shape (S, n), got {arr.shape}{hint}")
        if arr.shape[0] != S:
            raise DataError(f"{source}: field {field}: {arr.shape[0]} rows (shape {arr.shape}), but t has {S}")
        if field == "q" and arr.shape[1] == 0:
            raise DataError(f"{source}: field q: no joints (shape {arr.shape})")
        if arr.shape[1] != q.shape[1]:
            raise DataError(f"{source}: field {field}: {arr.shape[1]} joints, but q has {q.shape[1]}")
    if S < MIN_SAMPLES:
        raise DataError(f"{source}: field t: only {S} samples; need at least {MIN_SAMPLES}")
    hint = "; from_arrays(..., skip_bad_rows=True) drops bad rows"
    for field, arr in arrays.items():
        finite = np.isfinite(arr)
        if not finite.all():
            bad = ~finite.reshape(S, -1)
            r = int(np.argmax(bad.any(axis=1)))
            j = int(np.argmax(bad[r]))
            v = float(arr.reshape(S, -1)[r, j])
            what = "NaN" if np.isnan(v) else f"infinite ({v})"
            raise DataError(f"{source}: row {r}: field {_field_label(field, j)}: {what}{hint}")
    step = np.diff(t)
    if not (step > 0).all():
        r = int(np.argmax(~(step > 0))) + 1
        if t[r] == t[r - 1]:
            what = f"duplicate time ({t[r]:.10g} s, as on row {r - 1})"
        else:
            what = f"time goes backwards ({t[r]:.10g} s after {t[r - 1]:.10g} s on row {r - 1})"
        raise DataError(f"{source}: row {r}: field t: {what}{_coarse_note(coarse)}{hint}")


def _coarse_time(dtype):
    """The dtype name of times stored in fewer than 64 bits of floating point, else None."""
    kind, size = getattr(dtype, "kind", None), getattr(dtype, "itemsize", 8)
    return str(dtype) if kind == "f" and size < 8 else None


def _coarse_note(coarse):
    """Why duplicate/backward times may come from the storage format, or ''."""
    return f" (time stored as {coarse}: too coarse for Unix time stamps; store float64)" if coarse else ""


def _kind(reason: str) -> str:
    """The kind of problem in a skip reason: 'field qd3: not a number ('x')' → 'not a number'."""
    if reason.startswith("field "):
        reason = reason.split(": ", 1)[-1]
    return reason.split(" (", 1)[0]


def _ranges(skipped):
    """[(first, last, kinds)] for runs of consecutive numbers in ``skipped``."""
    out = []
    for where, reason in skipped:
        kind = _kind(reason)
        if out and where == out[-1][1] + 1:
            first, _, kinds = out[-1]
            out[-1] = (first, where, kinds if kind in kinds else kinds + [kind])
        else:
            out.append((where, where, [kind]))
    return out


def _span(first, last):
    return str(first) if first == last else f"{first}-{last}"


# ---------------------------------------------------------------------------------------------
# Column maps


def parse_column_map(text: str) -> dict:
    """Parse the CLI form of a column map.

    Parameters
    ----------
    text : str
        Comma-separated ``FIELD=COLUMNS`` entries; FIELD one of t, q, qd, qdd, tau, current;
        COLUMNS a 0-based column index ``7``, a Python slice ``a:b`` (columns a … b-1, one per
        joint), a name (a header column, or an NPZ/HDF5 key such as ``grp/positions``), or
        ``none`` (any case) to leave the field out (``current=none`` keeps tau).

    Returns
    -------
    dict
        field → int, slice, str, or None (excluded).

    Raises
    ------
    DataError
        A malformed entry, an unknown or repeated field.

    Examples
    --------
    >>> parse_column_map("t=0,q=1:7,qd=7:13,current=13:19")
    {'t': 0, 'q': slice(1, 7, None), 'qd': slice(7, 13, None), 'current': slice(13, 19, None)}
    >>> parse_column_map("t=times, q=positions, qd=None")
    {'t': 'times', 'q': 'positions', 'qd': None}
    """
    if not isinstance(text, str):
        raise DataError(f"column map: expected text like 't=0,q=1:7,tau=7:13', got {type(text).__name__}")
    out = {}
    for entry in text.split(","):
        field, sep, value = (part.strip() for part in entry.partition("="))
        if not sep or not field or not value:
            raise DataError(f"column map {text!r}: entry {entry.strip()!r}: expected FIELD=COLUMNS (e.g. q=1:7)")
        field = _known_field(field, f"column map {text!r}")
        if field in out:
            raise DataError(f"column map {text!r}: field {field} given twice")
        out[field] = None if value.lower() == "none" else _parse_columns_text(value)
    return out


def _parse_columns_text(value: str):
    """'7' → 7, '1:7' → slice(1, 7), anything else → the name itself."""
    if re.fullmatch(r"\d+", value):
        return int(value)
    m = re.fullmatch(r"(\d*):(\d+)(?::(\d+))?", value)
    if m:
        start, stop, step = m.groups()
        return slice(int(start) if start else 0, int(stop), int(step) if step else None)
    return value


def _known_field(field, context):
    if field not in FIELDS:
        raise DataError(f"{context}: unknown field {field!r} (known: {', '.join(FIELDS)})")
    return field


def _normalize_map(columns, source):
    """A column map as field → None (excluded), list of int (columns) or list of str (names)."""
    if columns is None:
        return {}
    if isinstance(columns, str):
        columns = parse_column_map(columns)
    if not isinstance(columns, Mapping):
        raise DataError(f"{source}: column map: expected a dict or text like 't=0,q=1:7', got {type(columns).__name__}")
    out = {}
    for field, value in columns.items():
        field = _known_field(field, f"{source}: column map")
        out[field] = _normalize_entry(source, field, value)
    return out


def _normalize_entry(source, field, value):
    where = f"{source}: column map: field {field}"
    if value is None:
        return None
    if isinstance(value, str):
        value = _parse_columns_text(value.strip())
    if isinstance(value, slice):
        if value.stop is None:
            raise DataError(f"{where}: a slice needs an end (e.g. 1:7)")
        value = list(range(value.start or 0, value.stop, value.step or 1))
    elif isinstance(value, (int, np.integer, str)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple, range)) or len(value) == 0:
        raise DataError(f"{where}: expected column indices or names, got {value!r}")
    value = list(value)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        value = [int(v) for v in value]
        if min(value) < 0:
            raise DataError(f"{where}: column {min(value)}: indices are 0-based and must be ≥ 0")
    elif not all(isinstance(v, str) for v in value):
        raise DataError(f"{where}: mix of column indices and names {value!r}; give one kind")
    if field == "t" and len(value) != 1:
        raise DataError(f"{where}: time is one column, got {len(value)}")
    return value


def _field_label(field, j):
    """'t' for time, 'qd3' for joint 3's velocity (j is 0-based)."""
    return "t" if field == "t" else f"{field}{j + 1}"


# ---------------------------------------------------------------------------------------------
# Field sets: which fields are present, with how many joints; drive gains.


def _check_fields(source, widths, gains, n_dof, names=None, where=None):
    """Check the set of fields and their joint counts; return (n, gains as (n,) or None).

    ``widths`` maps each present field to its number of columns (1 for t); ``names`` (the column
    names of a header or DataFrame) are listed when a field is not found among them, and
    ``where`` (e.g. "line 1 (header)") follows the source in those messages.
    """
    at = f"{source}: {where}" if where else source
    seen = f"; the columns are: {_show_names(names)}" if names is not None else ""
    if "t" not in widths:
        raise DataError(f"{at}: field t: no time column (t or time){seen}")
    if "q" not in widths:
        raise DataError(f"{at}: field q: no joint positions (q1..qN){seen}")
    if "tau" in widths and "current" in widths:
        raise DataError(f"{source}: both tau and current are present; choose one "
                        "(columns={'current': None}, CLI --columns current=none, keeps tau)")
    if "tau" not in widths and "current" not in widths:
        raise DataError(f"{at}: field tau: no torques (tau1..tauN) and no motor currents (current1..currentN){seen}")
    n = widths["q"]
    for field in JOINT_FIELDS:
        if field in widths and widths[field] != n:
            raise DataError(f"{source}: field {field}: {widths[field]} joints, but q has {n}")
    if n_dof is not None and n != n_dof:
        raise DataError(f"{source}: field q: the data has {n} joints, but n_dof={n_dof}")
    return n, _gains(source, gains, n, "current" in widths)


def _show_names(names, limit=_SHOWN_NAMES):
    shown = ", ".join(str(n) for n in names[:limit]) + (", …" if len(names) > limit else "")
    return shown or "(none)"


def _gains(source, gains, n, has_current):
    """Drive gains as an (n,) float array (current logs only)."""
    if not has_current:
        if gains is not None:
            raise DataError(f"{source}: gains given, but the data has torques (field tau), not motor "
                            "currents; gains apply to current only")
        return None
    if gains is None:
        raise DataError(f"{source}: field current: motor currents need drive gains "
                        f"(gains=[{n} values in N·m/A] or one scalar)")
    if isinstance(gains, str):
        gains = [g for g in re.split(r"[,\s]+", gains.strip()) if g]
    try:
        arr = np.asarray(gains, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{source}: gains: expected {n} numbers (N·m/A), got {gains!r}") from None
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise DataError(f"{source}: gains: expected {n} values (one per joint) or one scalar, got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr == 0)
    if bad.any():
        j = int(np.argmax(bad))
        raise DataError(f"{source}: gains: joint {j + 1}: {arr[j]:g} is not a usable drive gain (finite, non-zero)")
    return arr


# ---------------------------------------------------------------------------------------------
# Validation common to every source


@dataclass
class _Table:
    """Parsed rows before validation.

    ``data[field]`` is (R, k) float; ``ids[r]`` the line (1-based) or row (0-based) of parsed
    row r; ``problems`` the (id, reason) of rows that could not be parsed at all; ``where[field]``
    a text inserted after the row in messages (e.g. " (key torques)"); ``coarse_t`` the dtype
    name of times stored in less than float64 (see :func:`_coarse_time`), mentioned when times
    repeat or go backwards.
    """

    source: str
    unit: str
    ids: np.ndarray
    data: dict
    problems: list
    where: dict
    coarse_t: Optional[str] = None


def _value_problems(table):
    """{parsed row index: (field, reason)} for NaN, infinite and absurd values (first per row)."""
    found = {}
    for field in FIELDS:
        arr = table.data.get(field)
        if arr is None:
            continue
        bound = ABSURD_BOUNDS[field]
        bad = ~(np.abs(arr) <= bound)          # NaN compares False
        for r in np.flatnonzero(bad.any(axis=1)):
            if r in found:
                continue
            j = int(np.argmax(bad[r]))
            v = float(arr[r, j])
            if np.isnan(v):
                what = "NaN"
            elif np.isinf(v):
                what = f"infinite ({v})"
            else:
                what = f"absurd value ({v:.6g}; beyond ±{bound:g})"
            found[int(r)] = (field, f"field {_field_label(field, j)}: {what}")
    return found


def _time_problems(table, ok):
    """{parsed row index: reason} for rows whose time is not after the last kept row's time.

    Only rows in ``ok`` take part; since a dropped row never exceeds the running maximum, the
    last kept time is the running maximum of the earlier times.
    """
    rows = np.flatnonzero(ok)
    t = table.data["t"][rows, 0]
    if t.size < 2:
        return {}
    runmax = np.maximum.accumulate(t)
    late = np.flatnonzero(t[1:] <= runmax[:-1]) + 1
    if late.size == 0:
        return {}
    kept = np.ones(t.size, dtype=bool)
    kept[late] = False
    # For each position, the index of the latest kept row so far (the one holding the maximum).
    last_kept = np.maximum.accumulate(np.where(kept, np.arange(t.size), 0))
    out = {}
    for i in late:
        ref = last_kept[i - 1]
        ref_id = table.ids[rows[ref]]
        if t[i] == t[ref]:
            what = f"duplicate time ({t[i]:.10g} s, as on {table.unit} {ref_id})"
        else:
            what = f"time goes backwards ({t[i]:.10g} s after {t[ref]:.10g} s on {table.unit} {ref_id})"
        out[int(rows[i])] = what
    return out


def _finish(table, n, gains, skip_bad_rows):
    """Validate the parsed rows and build the :class:`Trajectory` (or raise :class:`DataError`)."""
    values = _value_problems(table)
    ok = np.ones(table.ids.shape[0], dtype=bool)
    ok[list(values)] = False
    times = _time_problems(table, ok)
    ok[list(times)] = False
    # (id, reason, text after the id in messages, e.g. " (key torques)")
    problems = [(where, reason, "") for where, reason in table.problems]
    problems += [(int(table.ids[r]), reason, table.where.get(field, "")) for r, (field, reason) in values.items()]
    problems += [(int(table.ids[r]), reason, table.where.get("t", "")) for r, reason in times.items()]
    problems.sort(key=lambda p: p[0])
    note = _coarse_note(table.coarse_t) if times else ""
    if problems and not skip_bad_rows:
        where, reason, label = problems[0]
        more = len(problems) - 1
        tail = (f"; {more} more bad {table.unit}{'s' if more > 1 else ''} (skip_bad_rows=True, "
                f"CLI --skip-bad-rows, drops bad {table.unit}s and reports them)") if more else ""
        raise DataError(f"{table.source}: {table.unit} {where}{label}: {reason}{note}{tail}")
    count = int(ok.sum())
    if count < MIN_SAMPLES:
        dropped = f" after skipping {len(problems)} bad {table.unit}s" if problems else ""
        raise DataError(f"{table.source}: field t: only {count} samples{dropped}; need at least {MIN_SAMPLES}{note}")
    data = {field: np.ascontiguousarray(arr[ok], dtype=np.float64) for field, arr in table.data.items()}
    tau = data["tau"] if "tau" in data else data["current"] * gains
    return Trajectory(
        t=data["t"][:, 0].copy(), q=data["q"], tau=tau, qd=data.get("qd"), qdd=data.get("qdd"),
        source=table.source, skipped=tuple((w, r) for w, r, _ in problems), skipped_unit=table.unit,
    )


# ---------------------------------------------------------------------------------------------
# Text files


def read_trajectory(path, *, columns=None, gains=None, skip_bad_rows=False, n_dof=None, delimiter=None) -> Trajectory:
    """Read and validate a measured trajectory from a CSV/TXT, NPZ or HDF5 file.

    Parameters
    ----------
    path : str or os.PathLike
        ``.csv``/``.txt`` (delimiter sniffed: comma, semicolon, tab or whitespace; ``#`` comment
        lines skipped; double-quoted fields unquoted), ``.npz``, ``.h5``/``.hdf5``.
    columns : dict or str, optional
        Column map, field → columns. CSV: 0-based indices (int, ``slice(1, 7)``, ``"1:7"``, list)
        or header names (str or list of str); required for a CSV without header. NPZ/HDF5: key
        names (``"grp/positions"`` for an HDF5 group). With names available (header, keys) the
        map overrides the automatic detection field by field; ``None`` excludes a field, and
        mapping one of tau/current excludes the other. A str is parsed by :func:`parse_column_map`
        (where ``FIELD=none`` excludes a field).
    gains : float or sequence of n floats, optional
        Drive gains in N·m/A; required with motor currents (τ = current · gains), refused with tau.
    skip_bad_rows : bool
        Drop rows with a wrong field count, text, NaN/inf or absurd values, or a time not after
        the last kept row's, and list them in :attr:`Trajectory.skipped`, instead of raising.
    n_dof : int, optional
        Expected number of joints.
    delimiter : str, optional
        CSV field separator (``","``, ``";"``, ``"\\t"``, or ``" "`` for any whitespace);
        sniffed from the first line when None.

    Returns
    -------
    Trajectory
        t (S,), q and tau (S, n), qd and qdd (S, n) or None.

    Raises
    ------
    DataError
        The file cannot be read, its layout is inconsistent, or (without ``skip_bad_rows``) a row
        is bad; one line naming the file, the line or row, the field and the problem.
    """
    source = os.fsdecode(path)
    ext = Path(source).suffix.lower()
    if ext in (".csv", ".txt"):
        return _read_text_file(path, source, columns, gains, skip_bad_rows, n_dof, delimiter)
    if ext == ".npz":
        return _read_npz(path, source, columns, gains, skip_bad_rows, n_dof)
    if ext in (".h5", ".hdf5"):
        return _read_h5(path, source, columns, gains, skip_bad_rows, n_dof)
    raise DataError(f"{source}: unknown file type {ext or '(no extension)'!r}; expected .csv, .txt, .npz, .h5 or .hdf5")


def _read_bytes(path, source):
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise DataError(f"{source}: cannot read the trajectory: {reason}") from None


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
            raise DataError(f"{source}: delimiter must be one character or ' ' (whitespace), got {delimiter!r}")
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
        _to_float(text)
        return True
    except ValueError:
        return False


def _to_float(text):
    """float() as numpy's loadtxt reads it (which refuses '1_000')."""
    if "_" in text:
        raise ValueError(text)
    return float(text)


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


def _read_text_file(path, source, columns, gains, skip_bad_rows, n_dof, delimiter):
    raw = _read_bytes(path, source)
    # Spreadsheet exports may be UTF-16 (with a byte-order mark); anything else is read as UTF-8,
    # whose decoding errors become U+FFFD, then "not a number" on the line that holds them.
    utf16 = raw.startswith((b"\xff\xfe", b"\xfe\xff"))
    text = raw.decode("utf-16" if utf16 else "utf-8-sig", errors="replace")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    ends_with_newline = lines[-1] == ""
    if ends_with_newline:
        lines.pop()
    data_idx = [i for i, line in enumerate(lines) if line.strip()]
    if "#" in text:          # comment lines: skipped, but counted in line numbers
        data_idx = [i for i in data_idx if "#" not in lines[i] or not _is_comment(lines[i])]
    if not data_idx:
        raise DataError(f"{source}: empty file (no data lines)")
    first = data_idx[0]
    delim = _delimiter(source, delimiter, lines[first].replace('"', ""))
    if '"' in text:          # quoted fields; cost only for files that have quotes
        lines = [_unquote(line, delim) if '"' in line else line for line in lines]
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
        n, gains = _check_fields(source, {f: len(c) for f, c in spec.items()}, gains, n_dof, names, where)
    counts = _field_counts(lines, data_idx, delim)
    if header is None:
        width = int(np.bincount(counts).argmax())      # the usual line; damaged ones are rare
        spec = _positional_columns(source, width, columns, first + 1)
        n, gains = _check_fields(source, {f: len(c) for f, c in spec.items()}, gains, n_dof)
    good = counts == width
    problems = _count_problems(data_idx, counts, good, width, last=len(lines) - 1, ends_with_newline=ends_with_newline)
    good_idx = np.asarray(data_idx)[good]
    table = _convert_lines(source, lines, good_idx, delim, spec)
    table.problems = problems + table.problems
    if not_header:
        table.problems = [(w, r + ("; not a header: none of its names is t, time, qN, qdN, qddN, tauN, "
                                   "currentN or iN" if w == first + 1 else "")) for w, r in table.problems]
    return _finish(table, n, gains, skip_bad_rows)


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
                        "e.g. columns={'t': 0, 'q': '1:7', 'tau': '7:13'} (CLI --columns t=0,q=1:7,tau=7:13)")
    spec = {}
    for field in FIELDS:
        cols = columns.get(field)
        if cols is None:
            continue
        if isinstance(cols[0], str):
            raise DataError(f"{source}: column map: field {field}: the file has no header, so columns are "
                            f"0-based numbers, not names ({cols[0]!r})")
        bad = [c for c in cols if c >= width]
        if bad:
            raise DataError(f"{source}: column map: field {field}: column {bad[0]} out of range "
                            f"(lines have {width} fields, columns 0-{width - 1})")
        spec[field] = cols
    _check_overlap(source, spec)
    return spec


def _check_overlap(source, spec):
    owner = {}
    for field, cols in spec.items():
        for j, c in enumerate(cols):
            label = _field_label(field, j)
            if c in owner:
                raise DataError(f"{source}: column map: column {c} is used for both {owner[c]} and {label}")
            owner[c] = label


def _named_columns(source, names, columns, where):
    """field → column indices for a table with column names (CSV header, DataFrame).

    Fields not in the map are found by name (``t``/``time``, ``q3``, ``qd_3``, ``tau[3]``,
    ``current3``/``i3``, with or without a unit: ``q3 [rad]``); each joint family must be
    complete (1..N) and agree with q. The units of the columns used must be SI (:data:`UNITS`).
    """
    detected = _detect_names(source, names, where)
    if any(columns.get(field) is not None for field in ("tau", "current")):
        # Choosing the torque source in the map excludes the other one (excluding one does not).
        for field in ("tau", "current"):
            if field not in columns:
                detected.pop(field, None)
    spec = {f: _lookup(source, f, cols, names) for f, cols in columns.items() if cols is not None}
    if "t" not in columns and "t" in detected:
        spec["t"] = [detected["t"][1]]
    if "q" not in columns and "q" in detected:
        spec["q"] = _complete(source, "q", detected["q"], max(detected["q"]), where)
    for field in ("qd", "qdd", "tau", "current"):
        if field in columns or field not in detected:
            continue
        if "q" not in spec:
            raise DataError(f"{source}: {where}: field q: no joint position columns (q1..qN); "
                            f"the columns are: {_show_names(names)}")
        n = len(spec["q"])
        extra = sorted(j for j in detected[field] if j > n)
        if extra:
            raise DataError(f"{source}: {where}: field {field}{extra[0]}: no matching q{extra[0]} "
                            f"(q has joints 1-{n})")
        spec[field] = _complete(source, field, detected[field], n, where)
    spec = {f: spec[f] for f in FIELDS if f in spec}
    _check_overlap(source, spec)
    _check_units(source, names, spec, where)
    return spec


def _check_units(source, names, spec, where):
    """Refuse a used column whose name carries a unit that is not its field's SI unit."""
    for field, cols in spec.items():
        for c in cols:
            unit = _split_unit(names[c])[1]
            if unit is not None and re.sub(r"\s+", "", unit).lower() not in UNITS[field]:
                raise DataError(f"{source}: {where}: column {names[c]!r}: unit {unit} is not accepted; "
                                f"give {field} in {_UNIT_HINT[field]}")


def _split_unit(name):
    """(name, unit or None): 'q1 [rad]' → ('q1', 'rad'); 'q[1]' and 'pos[2]' have no unit."""
    name = name.strip()
    m = _UNIT.match(name)
    if m is None or _plain_field(name.lower()) is not None:
        return name, None
    unit = (m.group(2) if m.group(2) is not None else m.group(3)).strip()
    if not re.search(r"[^\d\s]", unit):
        return (m.group(1), None) if not unit else (name, None)
    return m.group(1), unit


def _plain_field(key):
    """(field, joint) of a lower-case name without unit, joint 1 for t; None for other names."""
    if key in _TIME_NAMES:
        return "t", 1
    m = _JOINT_NAME.match(key)
    return (_NAME_FIELD[m.group(1)], int(m.group(2))) if m else None


def _name_field(name):
    """(field, joint) of a column name, with or without unit; None for other names."""
    return _plain_field(_split_unit(name)[0].lower())


def _lookup(source, field, cols, names):
    """Column indices for a map entry of indices or names."""
    width = len(names)
    if isinstance(cols[0], int):
        bad = [c for c in cols if c >= width]
        if bad:
            raise DataError(f"{source}: column map: field {field}: column {bad[0]} out of range "
                            f"(the table has {width} columns, 0-{width - 1})")
        return list(cols)
    lower = [n.lower() for n in names]
    bare = None
    out = []
    for name in cols:
        key = name.strip().lower()
        if name in names:
            out.append(names.index(name))
        elif key in lower:
            out.append(lower.index(key))
        elif key in (bare := bare or [_split_unit(n)[0].lower() for n in names]):
            out.append(bare.index(key))        # the name without its unit: 'q1' for 'q1 [rad]'
        else:
            shown = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
            raise DataError(f"{source}: column map: field {field}: no column named {name!r} (columns: {shown})")
    return out


def _detect_names(source, names, where):
    """{field: {joint (1-based): column}} for t as {1: col} too; duplicates raise."""
    found = {}
    for col, name in enumerate(names):
        hit = _name_field(name)
        if hit is None:
            continue            # other columns (desired torques, timestamps in other units, …)
        field, joint = hit
        slot = found.setdefault(field, {})
        if joint in slot:
            label = "t" if field == "t" else f"{field}{joint}"
            raise DataError(f"{source}: {where}: field {label}: two columns ({slot[joint]} and {col}: "
                            f"{names[slot[joint]]!r}, {name!r})")
        slot[joint] = col
    return found


def _complete(source, field, family, n, where):
    missing = [j for j in range(1, n + 1) if j not in family]
    if missing:
        have = ", ".join(f"{field}{j}" for j in sorted(family))
        raise DataError(f"{source}: {where}: field {field}{missing[0]}: missing column (found {have})")
    return [family[j] for j in range(1, n + 1)]


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


def _diagnose(block, part, delim, used, labels):
    """Value-by-value conversion of a block numpy refused: (values, kept line indices, problems)."""
    rows, keep, problems = [], [], []
    for line, i in zip(block, part):
        fields = line.split(delim)
        row = []
        for c, label in zip(used, labels):
            text = fields[c].strip()
            try:
                row.append(_to_float(text))
            except ValueError:
                what = "empty value" if not text else f"not a number ({_short(text)})"
                if _number_like(text, delim):
                    what += "; decimal commas are not supported; use '.'"
                problems.append((int(i) + 1, f"field {label}: {what}"))
                break
        else:
            rows.append(row)
            keep.append(i)
    return np.array(rows, dtype=np.float64).reshape(-1, len(used)), keep, problems


def _short(text, limit=30):
    """repr of user text, shortened, on one line."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


# ---------------------------------------------------------------------------------------------
# DataFrames


def from_dataframe(df, *, columns=None, gains=None, skip_bad_rows=False, source="<DataFrame>",
                   n_dof=None) -> Trajectory:
    """Validate a trajectory held in a pandas DataFrame.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns named like a CSV header (``t``, ``q1``…, ``tau1``… or ``current1``…, units
        allowed as in a header), or any names with a ``columns`` map; one level of column names
        (no MultiIndex); numeric columns (booleans and complex numbers are refused). Times must
        be a column in s: a DatetimeIndex is refused with the conversion to use.
    columns : dict or str, optional
        field → column names, or 0-based column positions; overrides the names field by field
        (see :func:`read_trajectory`).
    gains, skip_bad_rows, n_dof
        As in :func:`read_trajectory`.
    source : str
        Name used in messages.

    Returns
    -------
    Trajectory
        Rows in messages and in ``skipped`` are 0-based positions.

    Raises
    ------
    DataError
        As :func:`read_trajectory`.
    """
    if not hasattr(df, "iloc") or not hasattr(df, "columns"):
        hint = "; a trajectory needs columns t, q1.., tau1.. (series.to_frame() makes one column)" \
            if hasattr(df, "iloc") else ""
        raise DataError(f"{source}: expected a pandas DataFrame, got {type(df).__name__}{hint}")
    levels = getattr(df.columns, "nlevels", 1)
    if levels > 1:
        raise DataError(f"{source}: columns are a MultiIndex ({levels} levels); flatten them first, e.g. "
                        "df.columns = df.columns.get_level_values(-1), or "
                        "df.columns = ['_'.join(map(str, c)) for c in df.columns] with a column map")
    names = [str(c).strip() for c in df.columns]
    spec = _named_columns(source, names, _normalize_map(columns, source), "columns")
    if "t" not in spec:
        _no_time_column(source, df.index)
    n, gains = _check_fields(source, {f: len(c) for f, c in spec.items()}, gains, n_dof, names)
    S = len(df)
    data, problems, bad_rows = {}, [], np.zeros(S, dtype=bool)
    for field, cols in spec.items():
        arr = np.empty((S, len(cols)))
        for j, c in enumerate(cols):
            arr[:, j] = _frame_column(source, df.iloc[:, c], _field_label(field, j), names[c], problems, bad_rows)
        data[field] = arr
    keep = ~bad_rows
    first_problem = {}
    for row, reason in problems:          # one reason per row: the first column's
        first_problem.setdefault(row, reason)
    table = _Table(source, "row", np.flatnonzero(keep), {f: a[keep] for f, a in data.items()},
                   sorted(first_problem.items()), {}, _coarse_time(df.iloc[:, spec["t"][0]].dtype))
    return _finish(table, n, gains, skip_bad_rows)


def _no_time_column(source, index):
    """Raise a hint when a DataFrame without a time column holds its times in the index."""
    kind = getattr(index.dtype, "kind", "O")
    if kind == "M":
        raise DataError(f"{source}: field t: no time column, and the index is a DatetimeIndex: convert it to "
                        "seconds in a column t, e.g. df.insert(0, 't', (df.index - df.index[0]).total_seconds())")
    if kind == "m":
        raise DataError(f"{source}: field t: no time column, and the index is a TimedeltaIndex: convert it to "
                        "seconds in a column t, e.g. df.insert(0, 't', df.index.total_seconds())")
    name = index.name
    if isinstance(name, str) and _name_field(name) == ("t", 1):
        raise DataError(f"{source}: field t: no time column, but the index named {name!r} holds times: "
                        "make it a column with df.reset_index()")


def _frame_column(source, column, label, name, problems, bad_rows):
    """One DataFrame column as float; text cells are recorded in ``problems`` and ``bad_rows``."""
    kind = getattr(column.dtype, "kind", "O")
    if kind in "mM":
        raise DataError(f"{source}: field {label}: column {name!r} holds dates/durations ({column.dtype}); "
                        "convert to seconds")
    if kind == "b":
        raise DataError(f"{source}: field {label}: column {name!r} holds booleans ({column.dtype}); expected numbers")
    if kind == "c":
        raise DataError(f"{source}: field {label}: column {name!r} holds complex numbers ({column.dtype}); "
                        "expected real numbers")
    if kind in "iuf":
        return column.to_numpy(dtype=np.float64)
    try:                                   # nullable and extension dtypes (pd.NA → NaN)
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        pass
    out = np.empty(len(column))
    for r, value in enumerate(column.to_numpy(dtype=object)):
        try:
            out[r] = _cell_float(value)
        except (TypeError, ValueError):
            out[r] = np.nan
            bad_rows[r] = True
            problems.append((r, f"field {label}: not a number ({_short(str(value))})"))
    return out


def _cell_float(value):
    if isinstance(value, str):
        return _to_float(value.strip())
    if value is None:
        return np.nan
    if isinstance(value, (bool, np.bool_)) or np.iscomplexobj(value):
        raise TypeError(value)
    return float(value)


# ---------------------------------------------------------------------------------------------
# Arrays: NPZ, HDF5, from_arrays


def from_arrays(t, q, tau=None, *, qd=None, qdd=None, current=None, gains=None, source="<arrays>",
                skip_bad_rows=False, n_dof=None) -> Trajectory:
    """Validate a trajectory given as arrays.

    Parameters
    ----------
    t : array_like, shape (S,)
        Times in s.
    q, tau, qd, qdd, current : array_like, shape (S, n) (or (S,) for one joint)
        Exactly one of ``tau`` and ``current`` (with ``gains``).
    gains, skip_bad_rows, n_dof
        As in :func:`read_trajectory`.
    source : str
        Name used in messages.

    Returns
    -------
    Trajectory
        Rows in messages and in ``skipped`` are 0-based.

    Raises
    ------
    DataError
        As :func:`read_trajectory`.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0.0, 1.0, 11)
    >>> traj = from_arrays(t, np.zeros((11, 2)), current=np.ones((11, 2)), gains=[2.0, 3.0])
    >>> traj.tau[0]
    array([2., 3.])
    """
    given = {"t": t, "q": q, "qd": qd, "qdd": qdd, "tau": tau, "current": current}
    arrays = {field: (value, "") for field, value in given.items() if value is not None}
    return _from_keyed(source, arrays, gains, skip_bad_rows, n_dof)


def _read_npz(path, source, columns, gains, skip_bad_rows, n_dof):
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(f"{source}: cannot read as NPZ: {_one_line(exc)}") from None
    if not hasattr(archive, "files"):
        raise DataError(f"{source}: not an NPZ archive (a single .npy array); "
                        "save with np.savez(t=..., q=..., tau=...)")
    with archive:     # arrays are read lazily: only the chosen keys are decompressed
        return _read_array_file(source, list(archive.files), archive.__getitem__, columns, gains, skip_bad_rows, n_dof)


def _read_h5(path, source, columns, gains, skip_bad_rows, n_dof):
    import h5py

    try:
        h5 = h5py.File(path, "r")
    except OSError as exc:
        raise DataError(f"{source}: cannot read as HDF5: {_one_line(exc)}") from None
    with h5:
        # Default names and map entries are looked up directly first: visititems does not follow
        # soft or external links, so a linked dataset would be invisible to the walk alone.
        columns = _normalize_map(columns, source)
        wanted = [key for keys in DEFAULT_KEYS.values() for key in keys]
        wanted += [cols[0].strip().lstrip("/") for cols in columns.values()
                   if cols is not None and len(cols) == 1 and isinstance(cols[0], str)]
        keys = []
        for name in dict.fromkeys(wanted):
            try:
                obj = h5.get(name)
            except (KeyError, OSError, ValueError, TypeError):      # dangling or malformed link
                obj = None
            if isinstance(obj, h5py.Dataset):
                keys.append(name)
        found = set(keys)
        h5.visititems(lambda name, obj: keys.append(name)
                      if isinstance(obj, h5py.Dataset) and name not in found else None)
        return _read_array_file(source, keys, lambda key: h5[key][()], columns, gains, skip_bad_rows, n_dof)


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


def _read_array_file(source, arrays, read, columns, gains, skip_bad_rows, n_dof):
    """Choose a key per field among ``arrays`` (key names), read them with ``read(key)``, validate."""
    columns = _normalize_map(columns, source)
    chosen = {}
    if any(columns.get(field) is not None for field in ("tau", "current")):
        skip = {"tau", "current"} - set(columns)     # choosing one torque source excludes the other
    else:
        skip = set()
    for field in FIELDS:
        if field in columns:
            entry = columns[field]
            if entry is None:
                continue
            if len(entry) != 1 or not isinstance(entry[0], str):
                raise DataError(f"{source}: column map: field {field}: give one array name (key), got {entry!r}")
            key = entry[0].strip().lstrip("/")
            if key not in arrays:
                raise DataError(f"{source}: column map: field {field}: no array {key!r} "
                                f"(the file has {_list_keys(arrays)})")
            chosen[field] = key
        elif field not in skip:
            key = next((k for k in DEFAULT_KEYS[field] if k in arrays), None)
            if key is not None:
                chosen[field] = key
    for field in ("t", "q"):
        if field not in chosen:
            raise DataError(f"{source}: field {field}: no array (looked for keys "
                            f"{', '.join(map(repr, DEFAULT_KEYS[field]))}; the file has {_list_keys(arrays)}); "
                            f"name it with columns={{'{field}': KEY}}")
    if "tau" not in chosen and "current" not in chosen:
        looked = ", ".join(map(repr, DEFAULT_KEYS["tau"] + DEFAULT_KEYS["current"]))
        raise DataError(f"{source}: field tau: no array of torques or currents (looked for keys {looked}; "
                        f"the file has {_list_keys(arrays)})")
    keyed = {}
    for field, key in chosen.items():
        try:
            keyed[field] = (read(key), key)
        except (OSError, ValueError, TypeError, zipfile.BadZipFile) as exc:   # e.g. object arrays need pickle
            raise DataError(f"{source}: field {field} (key {key}): cannot read: {_one_line(exc)}") from None
    return _from_keyed(source, keyed, gains, skip_bad_rows, n_dof)


def _list_keys(arrays, limit=12):
    keys = sorted(arrays)
    shown = ", ".join(keys[:limit]) + (", …" if len(keys) > limit else "")
    return f"keys {shown}" if keys else "no arrays"


def _from_keyed(source, keyed, gains, skip_bad_rows, n_dof):
    """Check shapes of {field: (array, key)} and validate; key '' for plain arrays."""
    where = {f: (f" (key {key})" if key else "") for f, (_, key) in keyed.items()}
    coarse = _coarse_time(np.asarray(keyed["t"][0]).dtype) if "t" in keyed else None
    data = {f: _numeric(source, f, value, where[f]) for f, (value, _) in keyed.items()}
    t = data["t"] if "t" in data else None
    if t is None:
        raise DataError(f"{source}: field t: no times")
    if t.ndim == 2 and 1 in t.shape:
        t = t.reshape(-1)
    if t.ndim != 1:
        raise DataError(f"{source}: field t{where['t']}: expected shape (S,), got {t.shape}")
    S = t.shape[0]
    data["t"] = t[:, None]
    for field in JOINT_FIELDS:
        if field in data:
            data[field] = _joint_array(source, field, data[field], S, where[field])
    n, gains = _check_fields(source, {f: a.shape[1] for f, a in data.items()}, gains, n_dof)
    table = _Table(source, "row", np.arange(S), data, [], where, coarse)
    return _finish(table, n, gains, skip_bad_rows)


def _numeric(source, field, value, where):
    arr = np.asarray(value)
    if arr.dtype.kind not in "iuf":
        raise DataError(f"{source}: field {field}{where}: not numeric (dtype {arr.dtype})")
    return arr.astype(np.float64, copy=False)


def _joint_array(source, field, arr, S, where):
    """An (S,) or (S, n) array as (S, n); other shapes raise, with a hint for transposed data."""
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise DataError(f"{source}: field {field}{where}: expected shape (S, n), got {arr.shape}")
    if arr.shape[0] != S:
        hint = f"; transposed? expected ({S}, n)" if arr.shape[1] == S else ""
        raise DataError(f"{source}: field {field}{where}: {arr.shape[0]} rows (shape {arr.shape}), but t has {S}{hint}")
    if arr.shape[1] == 0:
        raise DataError(f"{source}: field {field}{where}: no joints (shape {arr.shape})")
    return arr
