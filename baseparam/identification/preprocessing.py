"""Preprocessing of measured trajectories, as the identification literature does it.

A log from a real robot has irregular time stamps, noisy positions and torques, no accelerations
and rest phases. Before the regressor sees it, :func:`preprocess`

1. splits the log where the time stamps leave a gap (a dropped connection, two logs pasted
   together): filtering or differentiating across a gap would invent motion; pieces too short to use are
   left out, with a warning (a stamp far from the others, a clock jump, is one);
2. resamples each segment to a uniform grid (linear interpolation at the median sampling
   interval): zero-phase filters and central differences assume uniform samples;
3. low-pass filters q, q̇ and τ with a zero-phase Butterworth filter (``scipy.signal.sosfiltfilt``):
   zero-phase so that τ stays aligned with the state that caused it;
4. differentiates what the log lacks: q̇ from q, q̈ from q̇ (central differences of the filtered
   signals), and leaves 3 periods of the cut-off at each segment end out of fits then (the
   filter's end transients, differentiated, would bias the estimates);
5. leaves out rest samples, where every joint is slower than ``rest_velocity``: there the Coulomb term
   sign(q̇) is undefined, static friction is anything up to its limit, and a point-to-point log
   would otherwise be scored mostly on standing still;
6. optionally decimates (Gautier's *parallel filtering*): the identification then low-pass filters
   and downsamples the regressor's columns and τ together (see :mod:`baseparam.identification.estimators`),
   which cuts the sample count without the phase errors of decimating the signals alone.

Every choice is recorded in :attr:`Processed.record`, which the identification result carries.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .._checks import check_option
from .._numbers import check_state_values
from .._validation import check_flag, check_instance, check_number, check_record
from .._warnings import ignored, warn
from ..errors import DataError, DataWarning, SettingsError
from ..motion import Trajectory, central_differences, fourth_order_differences, interp_columns

# A gap longer than this many median sampling intervals splits a log into segments.
GAP_FACTOR = 5.0
# A median time step above this (s) is not a robot log in seconds (ms or µs by mistake).
MAX_STEP = 0.5
# ... and one below this is not one in seconds either (above a MHz; 1e-300 s made derivatives of 1e297 or inf)
MIN_STEP = 1e-6
# a 1 MHz log's steps are 1 µs only up to the rounding of its stamps (at t = 1000 s: 0.99999999747e-6 s; at 1e5 s
# the stamps are 1.5e-11 s apart), a 2 Hz log's 0.5 s likewise (0.5000000000291 s at 1e5 s, refused as "0.5 s …
# (> 0.5 s)"): both bounds are kept with this relative slack
STEP_ROUNDING = 1e-3
# Resampling may not make more than this many times the logged samples.
GRID_FACTOR = 10
# With q̇ or q̈ derived from filtered signals, this many cut-off periods at each segment end are
# left out of fits: the filter's end transients, differentiated, bias the estimates there.
EDGE_PERIODS = 3.0
# Unfiltered, the rates the fourth-order stencil derives keep central differences at the two samples of each end
# (the first one-sided), per derivation: those samples are left out of the payload's fits as the filter's ends are. An
# unloaded log's end matched 0.37 s into a noise-free loaded one (its q̈ 4 rad/s² off) put the LWR4+'s payload inertia
# 3.1 % of its largest moment off (0.09 % at zero shift, now 0.02 %).
STENCIL_EDGE = 2
# A logged q̇ further than this factor from dq/dt (degrees, ms, a wrong column) is warned about.
VELOCITY_MISMATCH = 1.3
# Segments with fewer samples are dropped (and counted): too short to filter or differentiate.
MIN_SEGMENT = 16


@dataclass(frozen=True)
class Preprocessing:
    """Preprocessing choices; the defaults suit logs at 100 Hz–1 kHz of excitation trajectories.

    Parameters
    ----------
    resample : bool or float
        True: resample each segment to a uniform grid at its median sampling interval; a float:
        at this interval (s); False: keep the samples (they must already be nearly uniform).
    cutoff_hz : float or None
        Cut-off of the zero-phase Butterworth low-pass applied to q, q̇ (and q̈ when logged) and τ.
        None: no filtering. 5 Hz keeps the dynamics of excitation trajectories (their joint
        motion lies below 1 Hz, their accelerations below a few Hz) and removes current and
        encoder noise; on the UR10e data any cut-off from 4 to 6 Hz gives the same validation
        error, 2 Hz is worse, no filter much worse. Raise it for faster motions. A cut-off at or above the Nyquist
        frequency is skipped (recorded).
    filter_order : int
        Order of the Butterworth filter (the zero-phase filter's effective order is twice this).
    rest_velocity : float or None
        Samples where every |q̇_j| is below this (rad/s or m/s) are dropped. None keeps them.
    decimate : int
        Parallel-filtering factor for the regressor and τ (1: none).
    max_gap : float
        A time step longer than ``max_gap`` median intervals starts a new segment.
    filter_friction : bool
        Low-pass the friction columns' velocity shapes (sign(q̇), or a friction model's) with the
        same zero-phase filter as τ (:func:`lowpass_like_torque`). The filter turns each Coulomb
        step of the measured torque into a ramp that a sign(q̇) column does not have, and averages
        the chatter of sign(q̇) while a joint stands still; filtering the column as τ was filtered
        keeps the two consistent (parallel filtering, applied to the one nonlinear column). On the
        README's splits it lowers the held-out error of the UR10e from 4.45 to 4.30 % (joint 6:
        50 → 40 %) and of the KUKA LWR4+ from 4.20 to 4.08 %. The identified FC is the physical
        Coulomb level either way: simulation and exported code use the unfiltered model.
    """

    resample: object = True
    cutoff_hz: Optional[float] = 5.0
    filter_order: int = 4
    rest_velocity: Optional[float] = 0.05
    decimate: int = 1
    max_gap: float = GAP_FACTOR
    filter_friction: bool = True

    def __post_init__(self):
        # settings: a SettingsError (an ArgumentError; a DataError, as earlier versions raised, for one release)
        def positive(name, value, allow_none=True):
            if value is None and allow_none:
                return
            number = check_number(value, f"preprocessing: {name}", low=0, strict=True, expected="a positive number",
                                  error=SettingsError)
            if type(value) not in (int, float):         # a Fraction, np.float32: as float (its :g, its arithmetic)
                object.__setattr__(self, name, number)
        if isinstance(self.resample, np.bool_):     # numpy's True is True (a rate of 1 Hz to the number check)
            object.__setattr__(self, "resample", bool(self.resample))
        if not isinstance(self.resample, bool):
            positive("resample", self.resample, allow_none=False)
        positive("cutoff_hz", self.cutoff_hz)
        positive("rest_velocity", self.rest_velocity)
        positive("max_gap", self.max_gap, allow_none=False)
        # the checked values kept: numpy's True as True, a np.uint8 order as an int (numpy's small integers wrap
        # around in the arithmetic they meet, and neither is written to JSON)
        object.__setattr__(self, "filter_friction", check_flag(self.filter_friction, "preprocessing: filter_friction",
                                                               error=SettingsError))
        for name in ("filter_order", "decimate"):
            object.__setattr__(self, name, check_number(getattr(self, name), f"preprocessing: {name}", low=1, high=100,
                                                        integer=True, expected="an integer from 1 to 100",
                                                        error=SettingsError))

    @classmethod
    def none(cls):
        """Use the data as logged: no resampling, filtering, rest trimming or decimation."""
        return cls(resample=False, cutoff_hz=None, rest_velocity=None)


@dataclass(frozen=True, init=False, eq=False)      # Trajectory's == by value
class Processed(Trajectory):
    """A preprocessed trajectory: the motion type with q, q̇, q̈ and τ, uniform segments and a mask.

    Constructed as ``Processed(t, q, qd, qdd, tau, segment, kept, source, record)`` (note the
    order: q̇ and q̈ before τ, unlike a :class:`~baseparam.Trajectory`'s).

    Attributes
    ----------
    t : ndarray, shape (n_samples,)
    q, qd, qdd, tau : ndarray, shape (n_samples, n_dof)
    segment : ndarray of int, shape (n_samples,)
        Index of the contiguous segment of each sample (samples of a segment are consecutive
        and uniformly spaced before rest trimming). Default: one segment.
    kept : ndarray of bool, shape (n_samples,)
        The mask: False for rest samples (and, when q̇ or q̈ were derived, for the segment ends):
        they stay in the arrays (parallel filtering needs the uninterrupted segment) but are left
        out of fits and error figures. Default: every sample kept.
    source : str
    record : dict
        The choices made and what they did: sampling interval, whether the filter ran, segments,
        samples_in (logged) → samples_resampled (on the grids) = samples_out (kept) +
        rest_samples + end_samples, short_segment_samples (logged samples in dropped
        segments), derived (fields computed by differentiation). At most
        :data:`~baseparam._validation.MAX_RECORD_ENTRIES` entries named by str, each None, a bool, a number, a
        str or a list of at most :data:`~baseparam._validation.MAX_NOTES` of these.

    Raises
    ------
    DataError
        The motion's one check (:func:`~baseparam.motion.check_motion`; any number of samples),
        or a ``segment``/``kept`` that is not one entry per sample, or a ``record`` beyond its bounds.
    """

    segment: np.ndarray = None
    kept: np.ndarray = None
    record: dict = None

    _required = ("t", "q", "qd", "qdd", "tau")
    _min_samples = 1          # (q, qd, qdd, tau) arrays of any length are fitted as given
    _hint = ""

    def __init__(self, t, q, qd, qdd, tau, segment=None, kept=None, source="<arrays>", record=None, **fields):
        for name, value in (("segment", segment), ("kept", kept), ("record", {} if record is None else record)):
            object.__setattr__(self, name, value)
        super().__init__(t=t, q=q, tau=tau, qd=qd, qdd=qdd, source=source, **fields)

    def __post_init__(self):
        super().__post_init__()
        S = self.n_samples
        for name, default, kind in (("segment", np.zeros(S, int), "iu"), ("kept", np.ones(S, bool), "b")):
            try:
                value = default if getattr(self, name) is None else np.asarray(getattr(self, name))
            except ValueError:      # ragged ([[1, 2], [3]]): numpy's bare "inhomogeneous shape", said as no shape
                value = np.asarray(None)
            if value.shape != (S,) or value.dtype.kind not in kind:
                raise DataError(f"{self.source}: field {name}: expected {'booleans' if kind == 'b' else 'integers'} "
                                f"of shape ({S},), one per sample, got {value.dtype} of shape {value.shape}")
            object.__setattr__(self, name, value)
        check_record(self.record, f"{self.source}: field record", error=DataError)    # written into the fit's JSON

    def segments(self):
        """Slices of the consecutive segments."""
        return _spans(np.flatnonzero(np.diff(self.segment)) + 1, len(self.segment))


def _split(t, max_gap):
    """Segment boundaries where a time step exceeds ``max_gap`` median steps."""
    dt = np.diff(t)
    h = float(np.median(dt))
    return _spans(np.flatnonzero(dt > max_gap * h) + 1, len(t)), h


def _spans(cuts, n):
    """The slices of n samples between the indices ``cuts`` (increasing)."""
    bounds = np.concatenate([[0], cuts, [n]])
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def _resample(t, arrays, h):
    """Linear interpolation of each (n_samples, n_dof) array onto a uniform grid from t[0] with step h."""
    grid = t[0] + h * np.arange(int(np.floor((t[-1] - t[0]) / h + 1e-9)) + 1)
    return grid, [None if a is None else interp_columns(grid, t, a) for a in arrays]


def _too_coarse(src, step, longest, h_median):
    """The refusal of a resampling step that leaves every segment too short: `--resample 1e9` was refused in the
    cut-off's words ("no segment long enough … (--cutoff = 5.0)"), the step being the cause."""
    duration, samples = longest
    bound = duration / (MIN_SEGMENT - 1)
    shown = float(f"{bound:.4g}")
    if shown > bound:                    # rounded up, the step said would leave one sample too few
        shown = float(f"{bound * (1 - 1e-3):.4g}")
    return DataError(f"{src}: resample: a step of {step:.4g} s leaves {samples} sample{'s' * (samples != 1)} of a "
                     f"{duration:.4g} s segment; a segment needs at least {MIN_SEGMENT}: give a step of at most "
                     f"{shown:g} s (the logged one is {h_median:.4g} s)")


def _lowpass(arrays, cutoff, order, h):
    """Zero-phase Butterworth low-pass of each (n_samples, n_dof) array along time (None entries pass)."""
    from .._processes import import_held
    signal = import_held("scipy.signal")     # here, not at the top: slow to import (and loses a Ctrl-C meanwhile)
    sos = signal.butter(order, cutoff, fs=1.0 / h, output="sos")
    # Odd extension over a few periods of the cut-off: scipy's default pad (27 samples) is much
    # shorter than the filter's start-up transient, which then bends slow signals near the ends.
    # What remains (the extension's curvature kink) is ~1e-3 of a slow signal in the first and last
    # 1.5/cutoff s. Those samples are kept: logs often end mid-motion, and on the KUKA data
    # dropping them raised the held-out error from 4.2 % to 6.5 %.
    pad = min(max(3 * (2 * len(sos) + 1), int(np.ceil(6.0 / (cutoff * h)))), len(arrays[0]) - 1)
    return [None if a is None else signal.sosfiltfilt(sos, a, axis=0, padlen=pad) for a in arrays]


def _warn_cut_off(trajectory, short, max_gap, h):
    """Say that ``short`` samples were left out in pieces too short to use between time gaps: a stamp far from the
    others (a clock jump: one sample 2^31 s late) was dropped in silence and the fit went on (``delay='auto'``
    refuses such a log: its window lies in the gap)."""
    steps = np.diff(trajectory.t)
    k = int(np.argmax(steps))
    warn(f"{trajectory.source}: field t: {short} of {trajectory.t.size} samples left out, cut off by time gaps in "
         f"pieces too short to filter and differentiate (the largest gap {steps[k]:.4g} s, after t = "
         f"{trajectory.t[k]:.9g} s; median step {h:.3g} s, gaps beyond {max_gap:g} of it): a clock jump, or "
         "pieces of another log?", DataWarning)


def _check_velocity_units(trajectory, spans):
    """Warn when a logged q̇ is not dq/dt (a joint in degrees, time in ms, a wrong column map)."""
    if trajectory.qd is None:
        return
    num = np.zeros(trajectory.n_dof)
    den = np.zeros(trajectory.n_dof)
    for sl in spans:
        if sl.stop - sl.start < 3:
            continue
        rate = central_differences(trajectory.q[sl], trajectory.t[sl])
        num += (trajectory.qd[sl] * rate).sum(axis=0)
        den += (rate * rate).sum(axis=0)
    moving = den > 1e-6 * max(den.max(), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(moving & (den > 0), num / np.where(den > 0, den, 1.0), 1.0)
    bad = [j for j in range(trajectory.n_dof) if moving[j] and not 1 / VELOCITY_MISMATCH < ratio[j] < VELOCITY_MISMATCH]
    if bad:
        shown = ", ".join(f"qd{j + 1} ≈ {ratio[j]:.3g}·d(q{j + 1})/dt" for j in bad[:6])
        warn(f"{trajectory.source}: logged velocities disagree with the positions ({shown}); check the "
             "units (degrees?), the time unit and the column map", DataWarning)


def preprocess(trajectory, settings: Preprocessing = Preprocessing(), *, rates="central") -> Processed:
    """Resample, filter, differentiate and mark rest samples of a measured trajectory.

    Parameters
    ----------
    trajectory : Trajectory
        Time (n_samples,), q and τ (n_samples, n_dof), optionally q̇ and q̈ (n_samples, n_dof).
    settings : Preprocessing
    rates : {'central', 'fourth-order'}
        How q̇ and q̈ are derived where not logged: numpy's central differences (the identification's), or
        :func:`~baseparam.motion.fourth_order_differences` on a uniform grid (the payload's fit: central
        differences taken twice damp the acceleration of a 2.4 Hz motion in 10 ms samples by 0.76 %, a mass
        bias beyond 1σ); recorded as ``record['rates']`` when not central. With 'fourth-order', the
        :data:`STENCIL_EDGE` samples per derivation at each segment end, which the stencil does not reach, are
        not kept (unfiltered; a filter's ends are wider).

    Returns
    -------
    Processed
        With ``record`` = the settings, the sampling interval(s) used, the number of segments,
        samples in/out, and whether the filter was applied.

    Raises
    ------
    DataError
        When nothing usable is left (all segments too short, all samples at rest).
    """
    check_instance(trajectory, "preprocess", Trajectory, "a Trajectory", error=DataError)
    check_instance(settings, "preprocess: settings", Preprocessing, "a Preprocessing", error=DataError)
    differences = _RATES[check_option(rates, "rates", tuple(_RATES), error=SettingsError)]
    src = trajectory.source
    if trajectory.floating:
        # q's base quaternion is no signal to filter or differentiate column by column (and q̇ is one column
        # narrower than q: numpy's broadcast error), as the fixed-base fits refuse such a motion
        raise DataError(f"{src}: a floating-base motion (floating=True: q starts with the base pose); preprocess: "
                        "fixed-base robots' motions only (a floating base: identify_floating takes it as read)")
    if trajectory.tau is None:
        raise DataError(f"{src}: field tau: no torques (tau1..tauN) and no motor currents (current1..currentN; "
                        "NPZ/HDF5 keys tau, torques, current, currents) — a motion to play (such as baseparam "
                        "excite writes) has none: identify from the log of the robot playing it")
    spans, h_median = _split(trajectory.t, settings.max_gap)
    if h_median > MAX_STEP * (1.0 + STEP_ROUNDING):
        raise DataError(f"{src}: field t: median time step {h_median:.4g} s is implausible for a robot log "
                        f"(> {MAX_STEP:g} s); is the time in ms or µs? give it in seconds")
    _refuse_too_short_step(src, h_median)
    _check_velocity_units(trajectory, spans)
    derived = [name for name, given in (("qd", trajectory.qd), ("qdd", trajectory.qdd)) if given is None]
    pieces, short, filtered = [], 0, None
    thinned = []        # (duration, samples on the grid) of segments long enough as logged, too short resampled
    for k, sl in enumerate(spans):
        t = trajectory.t[sl]
        arrays = [None if a is None else a[sl] for a in (trajectory.q, trajectory.tau, trajectory.qd, trajectory.qdd)]
        h = float(np.median(np.diff(t))) if len(t) > 1 else h_median
        if settings.resample is not False:
            h = h if settings.resample is True else float(settings.resample)
            if (t[-1] - t[0]) / h > GRID_FACTOR * len(t) + 1000:
                raise DataError(f"{src}: resample: a step of {h:.4g} s would make {(t[-1] - t[0]) / h:.3g} samples "
                                f"of {len(t)} logged; give a step near the logged one ({h_median:.4g} s)")
            logged = len(t)
            t, arrays = _resample(t, arrays, h)
            if logged >= MIN_SEGMENT > len(t):
                thinned.append((float(trajectory.t[sl][-1] - trajectory.t[sl][0]), len(t)))
        elif settings.cutoff_hz is not None and len(t) > 2 and np.ptp(np.diff(t)) > 0.01 * h:
            raise DataError(f"{src}: field t: time steps vary from {np.diff(t).min():.4g} to {np.diff(t).max():.4g} s; "
                            "a digital filter needs uniform samples: resample (the default), or do not filter")
        edge = 0
        if settings.cutoff_hz is not None:
            filtered = settings.cutoff_hz < 0.5 / h
            if filtered and settings.cutoff_hz * (t[-1] - t[0]) < 1.0:
                # not one period of the cut-off in the segment: the filter has nothing to work on
                # (and its design would be singular); count the segment as too short
                short += int(sl.stop - sl.start)
                continue
            if filtered:
                arrays = _lowpass(arrays, settings.cutoff_hz, settings.filter_order, h)
                # derivatives of the filter's end transients are wrong for ~3 periods of the cut-off
                edge = int(np.ceil(EDGE_PERIODS / (settings.cutoff_hz * h) - 1e-6)) if derived else 0
            else:
                warn(f"{src}: cut-off {settings.cutoff_hz:g} Hz is at or above the Nyquist frequency "
                     f"{0.5 / h:.4g} Hz of the {h:.4g} s samples: not filtered; give a lower cutoff_hz, "
                     "or switch the filter off if the data need none", DataWarning)
        if len(t) < max(MIN_SEGMENT, 2 * edge + MIN_SEGMENT):
            short += int(sl.stop - sl.start)
            continue
        q, tau, qd, qdd = arrays
        # central differences of the filtered signals; np.gradient keeps the length
        # (with the time stamps themselves when the samples were not put on a uniform grid)
        step = h if settings.resample is not False else t
        qd = differences(q, step) if qd is None else qd
        qdd = differences(qd, step) if qdd is None else qdd
        for name, values in (("qd", qd), ("qdd", qdd)):
            if name in derived:
                # the bound the dynamics apply (a step of 1e-300 s made a qdd of 1e297 they refused with no file
                # named, or an inf named as if logged): said here, with the file and the step it comes from
                check_state_values(f"{src}: field {name} (derived from {'q' if name == 'qd' else 'qd'}, time step "
                                   f"{h:.4g} s)", values, DataError)
        if differences is fourth_order_differences:     # after the length check: the segments taken stay the same
            edge = max(edge, STENCIL_EDGE * len(derived))
        ends = np.zeros(len(t), bool)
        ends[:edge] = ends[len(t) - edge:] = True
        pieces.append((t, q, qd, qdd, tau, np.full(len(t), k), ends))
    if not pieces and thinned and settings.resample is not True:
        raise _too_coarse(src, float(settings.resample), max(thinned), h_median)
    if not pieces:
        raise DataError(f"{src}: no segment long enough to filter and differentiate between time gaps "
                        f"(gap = more than {settings.max_gap:g} × the median step {h_median:.4g} s; a segment needs "
                        f"{MIN_SEGMENT} samples and one period of the cut-off (cutoff_hz = {settings.cutoff_hz}), plus "
                        f"{EDGE_PERIODS:g} periods of it at each end when velocities or accelerations are derived)")
    if short:
        _warn_cut_off(trajectory, short, settings.max_gap, h_median)
    t, q, qd, qdd, tau, segment, ends = (np.concatenate(parts) for parts in zip(*pieces))
    rest = np.zeros(len(t), bool)
    if settings.rest_velocity is not None:
        rest = np.abs(qd).max(axis=1) < settings.rest_velocity
        if rest.all():
            raise DataError(f"{src}: every sample is at rest (all |qd| < {settings.rest_velocity:g}); "
                            "nothing moves to identify (lower rest_velocity, or check the velocity columns)")
    kept = ~(rest | ends)
    if not kept.any():
        raise DataError(f"{src}: no sample left after leaving out rest phases and segment ends; log a longer motion")
    record = dict(dataclasses.asdict(settings),
                  sampling_interval=h_median if settings.resample is True else
                  (None if settings.resample is False else float(settings.resample)),
                  filtered=bool(filtered), segments=len(pieces), samples_in=int(trajectory.t.shape[0]),
                  samples_resampled=int(len(t)),
                  samples_out=int(kept.sum()), rest_samples=int(rest.sum()), end_samples=int((ends & ~rest).sum()),
                  short_segment_samples=int(short), derived=derived,
                  skipped_rows=len(trajectory.skipped))
    if differences is not central_differences:
        record["rates"] = rates
    if getattr(trajectory, "notes", ()):          # what a bag's or Parquet's reader did, kept with the fit's record
        record["reader_notes"] = list(trajectory.notes)
    return Processed(t=t, q=q, qd=qd, qdd=qdd, tau=tau, segment=segment, kept=kept, source=src, record=record)


# preprocess's ways of deriving q̇ and q̈ (its ``rates``)
_RATES = {"central": central_differences, "fourth-order": fourth_order_differences}


def lowpass_like_torque(processed, values):
    """``values`` on the samples of ``processed``, low-passed segment by segment as its τ was.

    Parameters
    ----------
    processed : Processed
    values : ndarray, shape (n_samples, m)
        A signal on the processed samples (e.g. a friction shape c(q̇) per joint).

    Returns
    -------
    ndarray, shape (n_samples, m)
        ``values`` itself when τ was not filtered (no cut-off, or data given as arrays).
    """
    record = processed.record if isinstance(processed.record, dict) else {}
    if not record.get("filtered") or record.get("cutoff_hz") is None:
        return values
    out = np.array(values, dtype=float)
    for sl in processed.segments():
        t = processed.t[sl]
        if len(t) < 2:
            continue
        h = float(np.median(np.diff(t)))
        if record["cutoff_hz"] < 0.5 / h:
            out[sl] = _lowpass([out[sl]], record["cutoff_hz"], record["filter_order"], h)[0]
    return out


def _refuse_too_short_step(source, h_median):
    """Refuse a median time step below :data:`MIN_STEP` (with its rounding slack): not a log in seconds, and its
    differences are absurd or inf (1e-300 s)."""
    if not h_median >= MIN_STEP * (1.0 - STEP_ROUNDING):
        raise DataError(f"{source}: field t: median time step {h_median:.4g} s is implausible for a robot log "
                        f"(< {MIN_STEP:g} s, sampled above a MHz); give the time in seconds")


def states_at_samples(trajectory, settings: Preprocessing = Preprocessing(), signals=None, columns=None):
    """q, q̇, q̈ at every logged sample of a trajectory, as :func:`preprocess` sees them.

    What the estimator's ``predict`` evaluates the model at, so that its output lines up with the
    input row for row. Per segment (split at time gaps, as :func:`preprocess` does):

    * segments :func:`preprocess` keeps: its filtered q, q̇, q̈ (q̇ and q̈ derived by central
      differences of the filtered signals when not logged) on its grid, interpolated linearly
      back to the logged time stamps; with ``resample=False`` and no filter these are the logged
      values (and their central differences where q̇ or q̈ were not logged);
    * segments too short for it: the logged values, and central differences on the time stamps
      where q̇ or q̈ were not logged (NaN in a segment of one sample, which has no derivative).

    Rest samples and segment ends, which fits leave out, have states like any other sample.

    Parameters
    ----------
    trajectory : Trajectory
    settings : Preprocessing
        The resampling and filter settings (``rest_velocity`` and ``decimate`` do not matter here).
    signals : callable, optional
        ``signals(processed)`` → an (S_grid, m) array on the preprocessed grid (e.g. the filtered
        friction shapes), interpolated back like the states and returned after them: NaN in the
        segments :func:`preprocess` does not keep.
    columns : int, optional
        m, the number of columns ``signals`` gives (default n_dof): the width of the NaN returned when
        :func:`preprocess` keeps nothing (``signals`` is then not called).

    Returns
    -------
    q, qd, qdd : ndarray, each of shape (n_samples_in, n_dof)
        (and the interpolated ``signals``, (n_samples_in, m), when given)
    """
    check_instance(trajectory, "states_at_samples", Trajectory, "a Trajectory", error=DataError)
    t = trajectory.t
    spans, h_median = _split(t, settings.max_gap)
    if len(t) > 1 and (trajectory.qd is None or trajectory.qdd is None):
        # rates differenced on steps of 1e-200 s were inf, and predict's torques all NaN without a word
        _refuse_too_short_step(trajectory.source, h_median)
    q = np.array(trajectory.q, dtype=float)
    qd = np.full_like(q, np.nan) if trajectory.qd is None else np.array(trajectory.qd, dtype=float)
    qdd = np.full_like(q, np.nan) if trajectory.qdd is None else np.array(trajectory.qdd, dtype=float)
    for sl in spans:                              # the logged states (or their differences)
        if sl.stop - sl.start < 2:
            continue
        if trajectory.qd is None:
            qd[sl] = central_differences(q[sl], t[sl])
        if trajectory.qdd is None:
            qdd[sl] = central_differences(qd[sl], t[sl])
    try:
        with ignored(DataWarning):                # preprocess already warned when the data were fitted
            processed = preprocess(trajectory, dataclasses.replace(settings, rest_velocity=None))
    except DataError:                             # nothing it can process: the logged states stand
        processed = None
    extra = None if signals is None or processed is None else signals(processed)
    # nothing kept: as many columns as the caller's signals have (n_dof where the friction shapes' 2 n_dof were met by
    # numpy's bare "shape mismatch" in predict)
    width = (q.shape[1] if columns is None else columns) if extra is None else extra.shape[1]
    extra_out = None if signals is None else np.full((len(t), width), np.nan)
    for part in (processed.segments() if processed is not None else ()):   # segment numbers = spans' indices
        sl = spans[int(processed.segment[part.start])]
        grid = processed.t[part]
        pairs = [(q, processed.q), (qd, processed.qd), (qdd, processed.qdd)]
        for target, source in pairs + ([(extra_out, extra)] if extra is not None else []):
            target[sl] = interp_columns(t[sl], grid, source[part])
    return (q, qd, qdd) if signals is None else (q, qd, qdd, extra_out)
