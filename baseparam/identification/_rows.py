"""Validation common to every source: parsed rows → bad values, late times, kept rows → :class:`Trajectory`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .._checks import counted
from .._numbers import distinct_seconds
from ..errors import DataError
from ..motion import MIN_SAMPLES, Trajectory, _coarse_note, _field_label, _jumps_ahead
from ._record import ABSURD_BOUNDS, FIELDS, absurd, beyond_bounds


@dataclass
class _Table:
    """Parsed rows before validation.

    ``data[field]`` is (R, k) float; ``ids[r]`` the line (1-based) or row (0-based) of parsed
    row r; ``problems`` the (id, reason) of rows that could not be parsed at all; ``where[field]``
    a text inserted after the row in messages (e.g. " (key torques)"); ``coarse_t`` the dtype
    name of times stored in less than float64 (see :func:`~baseparam.motion._coarse_time`), mentioned when times
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
        for r, j in zip(*beyond_bounds(arr, bound)):
            if r in found:
                continue
            v = float(arr[r, j])
            if np.isnan(v):
                what = "NaN"
            elif np.isinf(v):
                what = f"infinite ({v})"
            else:
                what = absurd(v, bound)
            found[int(r)] = (field, f"field {_field_label(field, int(j))}: {what}")
    return found


def _time_problems(table, ok, explain=None):
    """{parsed row index: reason} for rows whose time stamp is out of order.

    Only rows in ``ok`` take part. First, time stamps that jump ahead and come back (see
    :func:`_jumps_ahead`) are the bad rows, not the good rows after them. Then each remaining row
    whose time is not after the last kept row's is bad: a stamp that jumps back (only that row), a
    duplicate, or a restart of the clock (time goes back and stays back: every row after the
    restart, as the kept first part is the only consistent one). With ``explain``, only the first
    ``explain`` rows of that last kind get a full reason (an error shows one, counts the rest).
    """
    rows = np.flatnonzero(ok)
    t = table.data["t"][rows, 0]
    if t.size < 2 or (t[1:] > t[:-1]).all():
        return {}
    out = {}
    ahead = _jumps_ahead(t)
    for i, prev, nxt in ahead:
        at, earlier, later = distinct_seconds(t[i], t[max(prev, 0)], t[nxt])
        before = f"after {earlier} s on {table.unit} {table.ids[rows[prev]]}, " if prev >= 0 else ""
        out[int(rows[i])] = (f"time jumps ahead and back ({at} s, {before}"
                             f"before {later} s on {table.unit} {table.ids[rows[nxt]]})")
    if ahead:
        keep = np.ones(t.size, dtype=bool)
        keep[[i for i, _, _ in ahead]] = False
        rows, t = rows[keep], t[keep]
    runmax = np.maximum.accumulate(t)
    late = np.flatnonzero(t[1:] <= runmax[:-1]) + 1
    if late.size == 0:
        return out
    kept = np.ones(t.size, dtype=bool)
    kept[late] = False
    # For each position, the index of the latest kept row so far (the one holding the maximum).
    last_kept = np.maximum.accumulate(np.where(kept, np.arange(t.size), 0))
    if explain is not None and late.size > explain:      # only the first ones will be shown
        out.update(dict.fromkeys(rows[late[explain:]].tolist(), "time out of order"))
        late = late[:explain]
    for i in late:
        ref = last_kept[i - 1]
        ref_id = table.ids[rows[ref]]
        at, last = distinct_seconds(t[i], t[ref])
        if t[i] == t[ref]:
            what = f"duplicate time ({at} s, as on {table.unit} {ref_id})"
        else:
            what = f"time goes backwards ({at} s after {last} s on {table.unit} {ref_id})"
        out[int(rows[i])] = what
    return out


def _finish(table, gains, skip_bad_rows, **extra):
    """Validate the parsed rows and build the :class:`Trajectory` (or raise :class:`DataError`);
    ``extra`` are further fields of the trajectory (``joint_names``, ``notes``)."""
    values = _value_problems(table)
    ok = np.ones(table.ids.shape[0], dtype=bool)
    ok[list(values)] = False
    times = _time_problems(table, ok, explain=None if skip_bad_rows else 1)
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
        tail = (f"; {counted(more, f'more bad {table.unit}s')} (skip_bad_rows=True drops bad "
                f"{table.unit}s and reports them)") if more else ""
        raise DataError(f"{table.source}: {table.unit} {where}{label}: {reason}{note}{tail}")
    count = int(ok.sum())
    if count < MIN_SAMPLES:
        dropped = f" after skipping {counted(len(problems), f'bad {table.unit}s')}" if problems else ""
        raise DataError(f"{table.source}: field t: only {counted(count, 'samples')}{dropped}; need at least "
                        f"{MIN_SAMPLES}{note}")
    data = {field: np.ascontiguousarray(arr[ok], dtype=np.float64) for field, arr in table.data.items()}
    tau = data["tau"] if "tau" in data else data["current"] * gains if "current" in data else None
    return Trajectory(
        t=data["t"][:, 0].copy(), q=data["q"], tau=tau, qd=data.get("qd"), qdd=data.get("qdd"),
        source=table.source, skipped=tuple((w, r) for w, r, _ in problems), skipped_unit=table.unit, **extra,
    )
