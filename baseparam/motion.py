"""The one motion type: a robot's times, joint states and torques, checked in one place.

Every stage that handles a motion holds a :class:`Trajectory`: the readers of logs return one
(identification), preprocessing returns one with a mask of the samples fits use
(:class:`~baseparam.Processed`), an excitation design samples its Fourier series into one
(:class:`~baseparam.excitation.Samples`), a simulation logs into one, and a controller follows one
(:class:`~baseparam.Reference`, whose ticks are uniform). Those are thin subclasses: a field or a
requirement more, the same arrays (:class:`Trajectory`'s attributes) and the same check
(:func:`check_motion`).

This module sits below every stage (it needs only numpy and the errors), so that identification,
excitation and simulation share it without importing one another.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ._checks import counted
from ._validation import (MAX_NOTES, all_finite, check_allocation, check_flag, check_instance, check_text_length,
                          check_texts, quaternion_norms, shown)
from ._numbers import distinct_seconds, is_whole, real_array
from ._values import ComparedByValue
from .errors import DataError, printable

__all__ = ["MIN_SAMPLES", "Trajectory", "check_motion"]

# tf2's test of a usable orientation, |‖q‖² − 1| ≤ 0.01: beyond it no rounding explains a base quaternion's norm
# (the value is damaged: an all-zero default orientation); within it interpolation and low-pass filtering
# renormalize, and the floating-base fit checks its own slack.
ORIENTATION_SLACK = 0.01

# Fewer samples than this cannot identify anything, and usually mean a wrong file or column map.
MIN_SAMPLES = 10

# At most this many ranges of skipped lines are listed in a summary.
_SUMMARY_RANGES = 10

# A stamp that jumps ahead of the stamps of the next this many rows is a glitch (that row is
# dropped, not those after it); so is a run of up to this many rows after such a jump.
_GLITCH_RUN = 10

# Beyond this many places where time goes back, the stamps are garbage rather than glitched: no
# glitch is looked for (which would cost a loop per place).
_MAX_DESCENTS = 10_000

# The arrays of a motion, in the order they are checked (and named in messages).
MOTION_FIELDS = ("t", "q", "tau", "qd", "qdd")


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class Trajectory(ComparedByValue):
    """A robot's motion, validated, in SI units: the one motion type of baseparam.

    Attributes
    ----------
    t : ndarray, shape (n_samples,)
        Sample times in s, strictly increasing, float64.
    q : ndarray, shape (n_samples, n_dof), or (n_samples, n_dof + 7) when ``floating``
        Joint positions (rad or m).
    tau : ndarray, shape (n_samples, n_dof), or (n_samples, n_dof + 6) when ``floating``, or None
        Joint torques or forces (N·m or N); for current logs, current × per-joint drive gain. None
        for a motion without torques (a trajectory to play, such as ``baseparam excite`` writes):
        it can be followed or simulated, but identification refuses it.
    qd, qdd : ndarray, shape as ``tau``'s, or None
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
    joint_names : tuple of str
        The joints' names in column order, when the source names them (a ROS bag's ``JointState``,
        a Parquet file's metadata); ``()`` otherwise. Writers put them in the files they write.
    notes : tuple of str
        What the reader did beside reading: joints of the log left out, how topics were aligned on
        one clock, the delay estimated or applied (one line each, for the output of a command).
    wrenches : ndarray, shape (n_samples, n_contacts, 6), or None
        A floating-base motion's contact wrenches ``[f, n]`` (the environment on the robot, in each
        contact frame's axes, moment about its origin), in the order of ``contacts``; None when not logged.
    contacts : tuple of str
        The names of the contacts of ``wrenches`` (``()`` when unnamed or none).

    Raises
    ------
    DataError
        Arrays not numeric, not finite or of other shapes than above, times not increasing, fewer than
        :data:`MIN_SAMPLES` samples, a floating motion's base quaternion not unit (|‖q‖² − 1| beyond
        :data:`ORIENTATION_SLACK`, e.g. all zero): one line naming ``source``, the field and, for a bad value,
        the 0-based row or sample. Nothing is dropped (:func:`~baseparam.from_arrays` with
        ``skip_bad_rows=True`` does).

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
    joint_names: tuple = ()
    notes: tuple = ()
    wrenches: Optional[np.ndarray] = None
    contacts: tuple = ()

    # What a kind of motion requires; subclasses narrow these (class attributes, not fields).
    _error = DataError                  # the exception a bad field raises
    _required = ("t", "q")              # fields that may not be None
    _min_samples = MIN_SAMPLES
    _uniform = None                     # relative spread of the time steps allowed, or None: any steps
    _hint = "; from_arrays(..., skip_bad_rows=True) drops bad rows"

    @property
    def _bad_row_hint(self):
        """What drops a bad row, after a message naming it: nothing for a floating-base motion (from_arrays, and
        the CLI's --skip-bad-rows, read fixed-base motions only)."""
        return "" if self.floating else self._hint

    def __post_init__(self):
        check_motion(self)

    @property
    def n_samples(self) -> int:
        """Number of samples S."""
        return int(self.t.shape[0])

    @property
    def n_dof(self) -> int:
        """Number of joints n."""
        return int(self.q.shape[1]) - (7 if self.floating else 0)

    def _name(self, field):
        """How messages call a field: ``'ur.csv: field q'``."""
        return f"{self.source}: field {field}"

    def _message(self, problem, field, **facts):
        """The one line of a failed check (``problem`` as in :func:`check_motion`)."""
        name, S, shape = self._name(field), facts.get("S"), facts.get("shape")
        if problem == "missing":
            return f"{name}: missing"
        if problem == "shape" and field == "t":
            return f"{name}: expected shape (S,), got {shape}"
        if problem == "samples":
            return f"{name}: only {counted(S, 'samples')}; need at least {self._min_samples}"
        if problem == "shape":
            hint = " (one joint: shape (S, 1))" if len(shape) == 1 else ""
            return f"{name}: expected shape (S, n), got {shape}{hint}"
        if problem == "rows":
            return f"{name}: {shape[0]} rows (shape {shape}), but t has {S}"
        if problem == "joints":
            return f"{name}: no joints (shape {shape})"
        if problem == "columns":
            n = facts["n"]
            return f"{name}: {shape[1]} " + (f"columns, but q has {n} (floating base: q has one column more)"
                                              if self.floating else f"joints, but q has {n}")
        if problem == "value":
            r, j, v = facts["row"], facts["joint"], facts["value"]
            what = "NaN" if np.isnan(v) else f"infinite ({v})"
            return f"{self.source}: row {r}: field {_field_label(field, j)}: {what}{self._bad_row_hint}"
        if problem == "order":
            return _order_message(self, facts["t"], facts["step"], facts["coarse"])
        if problem == "uniform":
            return (f"{name}: expected uniformly spaced times, got steps from {facts['low']:.6g} to "
                    f"{facts['high']:.6g} s")
        raise AssertionError(problem)

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


def check_motion_size(source, S, width):
    """Refuse, once the shapes are known and before any value is read or copied, a motion of ``S`` samples of
    ``width`` numbers each (every field, t included) whose arrays and a copy would not fit in memory: a broadcast view
    of 10⁹ samples costs nothing, but the scans of its values and the copies of its preprocessing would be numpy's
    bare MemoryError or minutes that Ctrl-C cannot stop."""
    check_allocation((S, 2 * width), source, f"{counted(S, 'samples')} of {width} numbers (the motion and a copy)")


def check_motion(motion):
    """Validate the arrays of a motion in place (float64 arrays of consistent shapes, finite, in time order).

    The one check of every motion type; what a type requires (exception, fields that may not be None,
    least number of samples, uniform steps) are its class attributes, and its
    ``_message(problem, field, **facts)`` words the failures (``problem`` as in :meth:`Trajectory._message`).

    Raises
    ------
    motion._error
        One line naming the motion's source, the field and, for a bad value, the row.
    """
    check_instance(motion, "motion", Trajectory, "a baseparam.Trajectory")   # the motion types are its subclasses
    error = motion._error

    def fail(problem, field, **facts):
        raise error(motion._message(problem, field, **facts))

    # every message names the source: text, where a newline would forge a line; another object was shown as its
    # str() (source=3, b'x', None, a list), a name no file has
    check_instance(motion.source, "source", (str, os.PathLike), "a str or a path (the motion's name in messages)")
    source = os.fsdecode(motion.source) if isinstance(motion.source, os.PathLike) else motion.source
    check_text_length("source", source, error=error)     # every message and repr starts with it
    object.__setattr__(motion, "source", printable(source))
    check_flag(motion.floating, f"{motion.source}: floating", error=error)
    # words of skipped_summary's line: text, escaped as the source
    check_instance(motion.skipped_unit, f"{motion.source}: skipped_unit", str, "a str ('line', 'row', 'message')")
    object.__setattr__(motion, "skipped_unit", printable(motion.skipped_unit))
    for name in ("skipped", "joint_names", "notes", "contacts"):
        value = getattr(motion, name)
        if not isinstance(value, tuple):
            try:
                if isinstance(value, (str, bytes)):     # not split into characters
                    raise TypeError
                object.__setattr__(motion, name, tuple(value))
            except TypeError:
                raise error(f"{motion.source}: {name}: expected a tuple, got {shown(value)}") from None
    _check_listed(motion, error)
    arrays, coarse = {}, None
    for field in MOTION_FIELDS:
        value = getattr(motion, field)
        if value is None:
            if field in motion._required:
                fail("missing", field)
            continue
        if field == "t":
            coarse = _coarse_time(getattr(value, "dtype", None))
        arr = real_array(motion._name(field), value, error)
        if arr is not value:
            object.__setattr__(motion, field, arr)
        arrays[field] = arr
    t, q = arrays["t"], arrays["q"]
    if t.ndim != 1:
        fail("shape", "t", shape=t.shape)
    S = t.shape[0]
    if S < motion._min_samples:
        fail("samples", "t", S=S, shape=t.shape)
    floating = bool(motion.floating)
    for field, arr in arrays.items():
        if field == "t":
            continue
        if arr.ndim != 2:
            fail("shape", field, S=S, shape=arr.shape)
        if arr.shape[0] != S:
            fail("rows", field, S=S, shape=arr.shape)
        if field == "q" and arr.shape[1] <= (7 if floating else 0):
            fail("joints", field, S=S, shape=arr.shape)
        if field != "q" and arr.shape[1] != q.shape[1] - floating:     # a quaternion has 4 numbers, 3 rates
            fail("columns", field, S=S, shape=arr.shape, n=q.shape[1])
    check_motion_size(motion.source, S, sum(arr.size // max(S, 1) for arr in arrays.values()))
    names = motion.joint_names
    if names and (len(names) != motion.n_dof or not all(isinstance(x, str) for x in names)):
        raise error(f"{motion.source}: joint_names: expected {motion.n_dof} names (str), "
                    f"one per joint, got {shown(names)}")
    for field, arr in arrays.items():
        if arr.size and not all_finite(arr):     # no temporary of the array's size
            bad = ~np.isfinite(arr).reshape(S, -1)
            r = int(np.argmax(bad.any(axis=1)))
            j = int(np.argmax(bad[r]))
            fail("value", field, row=r, joint=j, value=float(arr.reshape(S, -1)[r, j]))
    if floating:
        _check_orientations(motion, q, error)
    if getattr(motion, "wrenches", None) is not None:
        _check_wrenches(motion, S, error)
    step = np.diff(t)
    if not (step > 0).all():
        fail("order", "t", t=t, step=step, coarse=coarse)
    if motion._uniform is not None and step.size and np.abs(step - step[0]).max() > motion._uniform * step[0]:
        fail("uniform", "t", low=step.min(), high=step.max())


# MAX_NOTES (_validation.MAX_NOTES), imported: the notes a motion holds at most


def _check_listed(motion, error):
    """Refuse a motion whose notes or contact names are not text (at most :data:`MAX_NOTES` notes), or whose
    ``skipped`` is not (row number, reason) pairs: its repr, ``skipped_summary`` and the CLI read them (a 2-D array of
    skipped rows reached ``skipped_summary`` as a bare AttributeError). A contact name needs contact wrenches.
    O(number of items), at construction."""
    source = motion.source
    check_text_length(f"{source}: skipped_unit", motion.skipped_unit, error=error)
    check_texts(motion.notes, f"{source}: notes", limit=MAX_NOTES, what="notes", error=error, type_error=error)
    if motion.contacts and getattr(motion, "wrenches", None) is None:
        raise error(f"{source}: contacts: {counted(len(motion.contacts), 'names')} without contact wrenches; expected "
                    f"none (the names of the wrenches' contacts)")
    check_texts(motion.contacts, f"{source}: contacts", what="contact names", error=error, type_error=error)
    for k, item in enumerate(motion.skipped):
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and is_whole(item[0]) and isinstance(item[1], str)):
            raise error(f"{source}: skipped[{k}]: expected (row number, reason), got {shown(item)}")
        check_text_length(f"{source}: skipped[{k}]", item[1], error=error)


def interp_columns(x, xp, fp):
    """Each column of ``fp`` (M, k), sampled at the increasing times ``xp`` (M,), linearly interpolated at ``x``
    (``np.interp``, its end values beyond ``xp``): shape (len(x), k). Resampling a motion: identification's
    preprocessing and simulation's references (which cannot import identification) share it."""
    return np.column_stack([np.interp(x, xp, column) for column in fp.T])


def central_differences(x, step):
    """``np.gradient(x, step, axis=0)``, exactly 0 in the columns where ``x`` does not change: every rate the
    package derives from samples (identification's readers and preprocessing, the IMU base, the delay estimate,
    simulation's stance motion, the CLI's drive gains) goes through it.

    On time stamps (not one step) numpy's formula weighs three samples by coefficients that cancel only up to
    round-off: a joint standing still got rates of ~eps·|q|/dt² (1e-11 of the gravity columns at 1 kHz), which
    the fit took for columns it sees, and estimated their parameters at 1e8; their signs made a Coulomb column of
    ±1. The other columns keep numpy's numbers.

    Parameters
    ----------
    x : ndarray, shape (n_samples, ...), n_samples ≥ 2
    step : float or ndarray, shape (n_samples,)
        The sampling step, or the time stamps.

    Returns
    -------
    ndarray, shape (n_samples, ...)
    """
    # a step of 1e-300 s (a time unit gone wrong) overflows: inf, for the caller's check to refuse in one line, not
    # numpy's RuntimeWarning (made an error by -W error, the CLI blamed it on the robot file)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        rates = np.gradient(x, step, axis=0)
    rates[:, (x == x[:1]).all(axis=0)] = 0.0
    return rates


def fourth_order_differences(x, step):
    """Rates of uniform samples by the fourth-order central stencil (x[k−2] − 8x[k−1] + 8x[k+1] − x[k+2]) / 12h.

    numpy's central differences damp a sine of frequency f by sin(ωh)/(ωh) ≈ 1 − (ωh)²/6 (ω = 2πf, h the step),
    and taken twice for an acceleration by ≈ 1 − (ωh)²/3: 0.76 % at 2.4 Hz in 10 ms samples, which a payload's fit
    read as 0.26 % more mass (a bias beyond 1σ of a 20 s log). This stencil's error is ≈ (ωh)⁴/30 (5e-5 there).
    The two samples at each end and samples on time stamps (not one step) keep :func:`central_differences`, whose
    parameters (x (n_samples, ...), the step or the stamps (n_samples,)) and result (n_samples, ...) these are.
    """
    rates = central_differences(x, step)
    if np.ndim(step) or len(x) < 5:
        return rates
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        rates[2:-2] = ((x[:-4] - x[4:]) + 8.0 * (x[3:-1] - x[1:-3])) / (12.0 * step)
    rates[:, (x == x[:1]).all(axis=0)] = 0.0
    return rates


def not_unit(norm):
    """Where quaternion norms (S,) are beyond :data:`ORIENTATION_SLACK` (or not numbers)."""
    with np.errstate(over="ignore"):        # a norm of 1e200 squares to inf, refused as such, without numpy's line
        return ~(np.abs(norm ** 2 - 1.0) <= ORIENTATION_SLACK)


def _check_orientations(motion, q, error):
    """A floating motion's base quaternions (x, y, z, w), columns 3..6 of q: unit within the slack. A zero one (a
    default-constructed orientation) has no rotation; the readers refused it, arrays reached the fit."""
    norm = quaternion_norms(q[:, 3:7])
    off = not_unit(norm)
    if off.any():
        s = int(np.argmax(off))
        raise error(f"{motion.source}: field q: the base quaternion (x, y, z, w) of sample {s} has norm "
                    f"{norm[s]:.6g}; expected a unit quaternion")


def _check_wrenches(motion, S, error):
    """A floating motion's contact wrenches: (S, C, 6), finite; as many names as contacts when named."""
    w = real_array(motion._name("wrenches"), motion.wrenches, error)
    if w is not motion.wrenches:
        object.__setattr__(motion, "wrenches", w)
    if not motion.floating:
        raise error(f"{motion._name('wrenches')}: contact wrenches belong to a floating-base motion (floating=True)")
    if w.ndim != 3 or w.shape[0] != S or w.shape[2] != 6:
        raise error(f"{motion._name('wrenches')}: expected shape ({S}, C, 6), got {w.shape}")
    names = motion.contacts
    if names and (len(names) != w.shape[1] or not all(isinstance(x, str) for x in names)):
        raise error(f"{motion.source}: contacts: expected {w.shape[1]} names (str), one per contact, "
                    f"got {shown(names)}")
    bad = ~np.isfinite(w.reshape(S, -1))
    if bad.any():
        r = int(np.argmax(bad.any(axis=1)))
        c = int(np.argmax(bad[r])) // 6
        raise error(f"{motion.source}: row {r}: field wrenches (contact {c + 1}): not a finite number")


def _order_message(motion, t, step, coarse):
    """The line saying where the times of a motion stop increasing."""
    source, hint = motion.source, motion._bad_row_hint
    r = int(np.argmax(~(step > 0))) + 1
    ahead = _jumps_ahead(t)
    if ahead and ahead[0][0] < r:          # a stamp that jumps ahead and back: that row is bad
        g, before, after = ahead[0]
        at, earlier, later = distinct_seconds(t[g], t[max(before, 0)], t[after])
        prev = f"after {earlier} s on row {before}, " if before >= 0 else ""
        return (f"{source}: row {g}: field t: time jumps ahead and back ({at} s, {prev}"
                f"before {later} s on row {after}){_coarse_note(coarse)}{hint}")
    at, last = distinct_seconds(t[r], t[r - 1])
    if t[r] == t[r - 1]:
        what = f"duplicate time ({at} s, as on row {r - 1})"
    else:
        what = f"time goes backwards ({at} s after {last} s on row {r - 1})"
    return f"{source}: row {r}: field t: {what}{_coarse_note(coarse)}{hint}"


def _jumps_ahead(t):
    """[(i, i - 1 or -1, next consistent i)] for the rows of ``t`` whose stamps jump ahead and back.

    At each place where time does not increase (d → d+1) there are two readings: the rows after d
    until time passes t[d] again went back (what the running-maximum rule drops), or the rows i to
    d whose stamps exceed t[d+1], with t[i-1] < t[d+1], jumped ahead. A reading holds when its run
    has at most :data:`_GLITCH_RUN` rows; when both hold the shorter run is the bad one (ties: the
    rows that went back). A run at the start of the file (no row before it to confirm the jump)
    jumped ahead only if the other reading fails. Neither holds for a clock restart (time goes
    back and stays back), left to the running-maximum rule.
    """
    n, K = t.size, _GLITCH_RUN
    out, glitched = [], np.zeros(n, dtype=bool)
    # Only strict descents not undone by the next row can be jumps ahead (a duplicate, or a
    # stamp back that the next row passes, is the running-maximum rule's single bad row).
    d_all = np.flatnonzero(t[1:] < t[:-1])
    nxt2 = np.append(t[2:], -np.inf)[d_all]
    d_all = d_all[~(nxt2 > t[d_all])]
    if d_all.size > _MAX_DESCENTS:
        return out          # no clock in these stamps to compare with; every row is judged as it comes
    for d in d_all:
        if glitched[d]:
            continue
        back = np.flatnonzero(t[d + 2:d + 2 + K] > t[d])       # the rows after d+1 that pass t[d]
        k = d
        while k >= 0 and d - k < K and t[k] > t[d + 1]:
            k -= 1
        if k >= 0 and not t[k] < t[d + 1]:
            continue                     # a longer run, or equal stamps: not a glitch
        # Both readings possible: the shorter bad run wins; at the start of the file (no row
        # before to confirm the jump) the rows after it must not pass it.
        if back.size and (k < 0 or d - k >= back[0] + 1):
            continue
        for i in range(k + 1, d + 1):
            if not glitched[i]:
                glitched[i] = True
                out.append((i, k if k >= 0 else -1, d + 1))
    return out


def _coarse_time(dtype):
    """The dtype name of times stored in fewer than 64 bits of floating point, else None."""
    kind, size = getattr(dtype, "kind", None), getattr(dtype, "itemsize", 8)
    return str(dtype) if kind == "f" and size < 8 else None


def _coarse_note(coarse):
    """Why duplicate/backward times may come from the storage format, or ''."""
    return f" (time stored as {coarse}: too coarse for Unix time stamps; store float64)" if coarse else ""


def _field_label(field, j):
    """'t' for time, 'qd3' for joint 3's velocity (j is 0-based)."""
    return "t" if field == "t" else f"{field}{j + 1}"


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
