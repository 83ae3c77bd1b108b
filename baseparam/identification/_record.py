"""The :class:`Trajectory` record: field names, bounds, the checks every trajectory passes, summaries."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .._numbers import real_array
from ..errors import DataError
from ._glitches import _jumps_ahead

FIELDS = ("t", "q", "qd", "qdd", "tau", "current")
JOINT_FIELDS = FIELDS[1:]

# |value| beyond these is a unit or recording error, never a measurement: s, rad or m, rad/s or
# m/s, rad/s² or m/s², N·m or N, A. Times may be Unix timestamps in s (≈ 1.7e9; the KUKA LWR4+
# recordings use them), so t's bound is 1e10 s (year 2286): timestamps in ms, µs or ns, or
# garbage, are still refused.
ABSURD_BOUNDS = {"t": 1e10, "q": 1e3, "qd": 1e4, "qdd": 1e6, "tau": 1e6, "current": 1e4}

# Fewer samples than this cannot identify anything, and usually mean a wrong file or column map.
MIN_SAMPLES = 10

# Size limits, checked before anything is read: no real log comes near them (the UR10e logs hold
# 1.7e5 values in 1.6 MB; the KUKA ones 1.8e5), and the identification would not fit in memory
# long before them. A file beyond one is refused in one line, in little time and memory.
MAX_VALUES = 20_000_000        # values in all the arrays a trajectory uses (160 MB as float64)
MAX_TEXT_BYTES = 256 << 20     # size of a CSV/TXT file
MAX_LINE_BYTES = 1 << 20       # length of one CSV/TXT line
MAX_COLUMNS = 10_000           # fields on one CSV/TXT line (64 joints × 5 fields need 321)
MAX_ARRAYS = 10_000            # arrays (keys) in one NPZ/HDF5 file

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
    tau : ndarray, shape (S, n), or None
        Joint torques or forces (N·m or N); for current logs, current × per-joint drive gain. None
        for a motion without torques (a trajectory to play, such as ``baseparam excite`` writes):
        it can be followed or simulated, but identification refuses it.
    qd, qdd : ndarray, shape (S, n), or None
        Joint velocities and accelerations when recorded; None means "derive them later".
    source : str
        File name or description, used in messages.
    skipped : tuple of (int, str)
        ``(line_or_row, reason)`` of every row dropped with ``skip_bad_rows=True``, in file order.
    skipped_unit : str
        ``"line"`` (CSV: 1-based physical lines) or ``"row"`` (arrays: 0-based rows), the meaning
        of the numbers in ``skipped``.
    floating : bool
        The motion of a floating-base robot (:func:`~baseparam.simulate` writes such): q then has
        7 columns more than the joints (base position and quaternion x, y, z, w first), and qd,
        qdd and tau 6 more (base twist, its derivative, the wrench on the base); ``n_dof`` counts
        the joints.

    Raises
    ------
    DataError
        Constructed directly, the arrays are checked as the loaders check them, except that
        nothing is dropped: t of shape (S,), q of shape (S, n) with n ≥ 1, tau, qd, qdd (when
        given) of shape (S, n), all numeric and finite, t strictly increasing, S ≥
        :data:`MIN_SAMPLES`. Lists and integer arrays become float64 arrays. The message names
        ``source``, the field and, for a bad value, the 0-based row; :func:`from_arrays` with
        ``skip_bad_rows=True`` drops bad rows instead.

    Examples
    --------
    >>> import numpy as np
    >>> from baseparam import from_arrays
    >>> t = np.arange(20) * 0.01
    >>> traj = from_arrays(t, np.zeros((20, 2)), np.ones((20, 2)))
    >>> traj.n_samples, traj.n_dof, traj.qd is None
    (20, 2, True)
    """

    t: np.ndarray
    q: np.ndarray
    tau: Optional[np.ndarray] = None
    qd: Optional[np.ndarray] = None
    qdd: Optional[np.ndarray] = None
    source: str = "<arrays>"
    skipped: tuple = ()
    skipped_unit: str = "line"
    floating: bool = False

    def __post_init__(self):
        _check_trajectory(self)

    @property
    def n_samples(self) -> int:
        """Number of samples S."""
        return int(self.t.shape[0])

    @property
    def n_dof(self) -> int:
        """Number of joints n."""
        return int(self.q.shape[1]) - (7 if self.floating else 0)

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
            if field in ("t", "q"):
                raise DataError(f"{source}: field {field}: missing")
            continue
        if field == "t":
            coarse = _coarse_time(getattr(value, "dtype", None))
        arr = real_array(f"{source}: field {field}", value, DataError)
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
        if field == "q" and arr.shape[1] <= (7 if traj.floating else 0):
            raise DataError(f"{source}: field q: no joints (shape {arr.shape})")
        if field != "q" and arr.shape[1] != q.shape[1] - traj.floating:     # a quaternion has 4 numbers, 3 rates
            raise DataError(f"{source}: field {field}: {arr.shape[1]} "
                            + (f"columns, but q has {q.shape[1]} (floating base: q has one column more)"
                               if traj.floating else f"joints, but q has {q.shape[1]}"))
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
        ahead = _jumps_ahead(t)
        if ahead and ahead[0][0] < r:          # a stamp that jumps ahead and back: that row is bad
            g, before, after = ahead[0]
            prev = f"after {t[before]:.10g} s on row {before}, " if before >= 0 else ""
            raise DataError(f"{source}: row {g}: field t: time jumps ahead and back ({t[g]:.10g} s, {prev}"
                            f"before {t[after]:.10g} s on row {after}){_coarse_note(coarse)}{hint}")
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


def _field_label(field, j):
    """'t' for time, 'qd3' for joint 3's velocity (j is 0-based)."""
    return "t" if field == "t" else f"{field}{j + 1}"


def _short(text, limit=30):
    """repr of user text, shortened, on one line."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__
