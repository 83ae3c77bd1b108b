"""pandas DataFrames (pandas itself is never imported: the frame brings its own)."""
from __future__ import annotations

import numpy as np

from .._checks import shown
from .._numbers import plain_float
from .._validation import check_reading
from ..errors import DataError
from ..motion import Trajectory, _coarse_time, _field_label
from ._record import _short
from ._columns import _check_fields, _normalize_map
from ._names import _name_field, _named_columns
from ._rows import _Table, _finish


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
    n_dof, source = check_reading(skip_bad_rows, n_dof, source)
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
    gains = _check_fields(source, {f: len(c) for f, c in spec.items()}, gains, n_dof, names)
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
    return _finish(table, gains, skip_bad_rows)


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
        raise DataError(f"{source}: field t: no time column, but the index named {shown(name)} holds times: "
                        "make it a column with df.reset_index()")


# Column kinds refused (numpy's dtype.kind): what they hold, what to do.
_REFUSED = {"m": ("dates/durations", "convert to seconds"), "M": ("dates/durations", "convert to seconds"),
            "b": ("booleans", "expected numbers"), "c": ("complex numbers", "expected real numbers")}


def _frame_column(source, column, label, name, problems, bad_rows):
    """One DataFrame column as float; text cells are recorded in ``problems`` and ``bad_rows``."""
    kind = getattr(column.dtype, "kind", "O")
    if kind in _REFUSED:
        what, hint = _REFUSED[kind]
        raise DataError(f"{source}: field {label}: column {shown(name)} holds {what} ({column.dtype}); {hint}")
    if not isinstance(column.dtype, np.dtype) and column.hasnans:
        return _with_nulls(source, column, label, name, problems, bad_rows)
    if kind in "iuf":
        return column.to_numpy(dtype=np.float64)
    try:                                   # nullable and extension dtypes (pd.NA → NaN)
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError, OverflowError):      # OverflowError: an int beyond the floats (10**400)
        pass
    out = np.empty(len(column))
    for r, value in enumerate(column.to_numpy(dtype=object)):
        try:
            out[r] = _cell_float(value)
        except (TypeError, ValueError, OverflowError):
            out[r] = np.nan
            bad_rows[r] = True
            problems.append((r, f"field {label}: not a number ({_short(str(value))})"))
    return out


def _with_nulls(source, column, label, name, problems, bad_rows):
    """A column of a nullable or Arrow dtype holding missing values (pd.NA, a Parquet null) as float, each missing
    cell a damaged row said as null: they were NaN, and said as such, a value the file does not hold."""
    missing = np.asarray(column.isna(), dtype=bool)
    out = _frame_column(source, column.astype(object).where(~missing, 0.0), label, name, problems, bad_rows)
    for r in np.flatnonzero(missing).tolist():
        out[r] = np.nan
        bad_rows[r] = True
        problems.append((r, f"field {label}: null"))
    return out


def _cell_float(value):
    if isinstance(value, str):
        return plain_float(value.strip())
    if value is None:
        return np.nan
    if isinstance(value, (bool, np.bool_)) or np.iscomplexobj(value):
        raise TypeError(value)
    return float(value)
