"""Validation common to every source: parsed rows → bad values, late times, kept rows → :class:`Trajectory`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .._checks import counted
from .._numbers import distinct_seconds
from .._warnings import warn
from ..errors import DataError, DataWarning
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
    apart_ends: bool = True


# A first or last time stamp more than this many typical steps from the rest stands apart (:func:`apart_ends`).
APART = 100
# The steps next to an end taken as typical too: samples in bursts (three 0.2 ms apart, 5.6 ms to the next three)
# have a median step far below their bursts' gaps.
_APART_NEXT = 10


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

    Only rows in ``ok`` take part (:func:`_order_problems`). With ``explain``, only the first ``explain`` rows
    that go back get a full reason (an error shows one, counts the rest).
    """
    rows = np.flatnonzero(ok)
    t = table.data["t"][rows, 0]
    return {} if t.size < 2 or (t[1:] > t[:-1]).all() else _order_problems(table, rows, t, explain)


def _apart_rows(table, ok):
    """{parsed row index: reason} for the first or last of the rows ``ok`` whose time is far from the rest
    (:func:`apart_ends`), unless ``table.apart_ends`` is False (a bag's stamps are judged with its receive times,
    :func:`._bags._times_apart`)."""
    if not table.apart_ends:
        return {}
    rows = np.flatnonzero(ok)
    t = table.data["t"][rows, 0]
    return {int(rows[i]): _apart_reason(table, rows, t, i) for i in apart_ends(t)}


def apart_ends(t):
    """Positions, among the first (0) and the last of the times ``t`` (M,) in their order, of those more than
    :data:`APART` times both the median step and the largest of the next few steps from their neighbour.

    A time far from the rest at an end has no second neighbour to tell it from a pause: inside the log a damaged
    time goes back, or jumps ahead and back, and is found so (:func:`_order_problems`); at an end it reads as a
    gap, its sample apart from the motion (a flipped sign of t[0]: 1 s read as -1 s, two seconds before the rest).
    A log of that one sample, a pause, and the motion cannot be told from it with one clock: such a sample is left
    out with a warning either way (:func:`_finish`; one sample cannot be filtered or differentiated, and
    preprocessing would leave it out too), not refused.
    """
    steps = np.abs(np.diff(t))
    if steps.size < 2:
        return []
    typical = float(np.median(steps))
    ends = []
    if steps[0] > APART * max(typical, float(steps[1:1 + _APART_NEXT].max())):
        ends.append(0)
    if steps[-1] > APART * max(typical, float(steps[-1 - _APART_NEXT:-1].max())):
        ends.append(t.size - 1)
    return ends


def _apart_reason(table, rows, t, i):
    """Why the time of the end ``i`` of the kept ``rows`` (times ``t``) is a bad row: :func:`apart_ends`."""
    k = 1 if i == 0 else i - 1
    at, other = distinct_seconds(t[i], t[k])
    where = "before" if i == 0 else "after"
    return (f"time {at} s stands apart, {abs(t[i] - t[k]):.4g} s {where} {other} s on {table.unit} "
            f"{table.ids[rows[k]]}, more than {APART} times the log's typical step {_typical_step(t):.3g} s "
            "(a damaged time, or a sample cut off from the log)")


def _typical_step(t):
    return float(np.median(np.abs(np.diff(t))))


def _order_problems(table, rows, t, explain):
    """{parsed row index: reason} for the rows ``rows`` (times ``t``, not strictly increasing) out of order.

    First, time stamps that jump ahead and come back (see :func:`_jumps_ahead`) are the bad rows, not the good
    rows after them. Then each remaining row whose time is not after the last kept row's is bad: a stamp that
    jumps back (only that row), a duplicate, or a restart of the clock (time goes back and stays back: every row
    after the restart, as the kept first part is the only consistent one). With ``explain``, only the first
    ``explain`` rows of that last kind get a full reason.
    """
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
    apart = _apart_rows(table, ok)
    ok[list(apart)] = False
    if apart and not skip_bad_rows:     # a damaged end time, or a sample cut off by a pause: either way not the motion
        for r, reason in apart.items():
            warn(f"{table.source}: {table.unit} {int(table.ids[r])}{table.where.get('t', '')}: {reason}; left out",
                 DataWarning)
        apart = {}
    times.update(apart)
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
