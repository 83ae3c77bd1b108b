"""A robot playing a reference motion: what its controller does when it follows a trajectory.

:class:`Reference` holds q_r, q̇_r, q̈_r at a controller's ticks — an excitation design's Fourier
series played period after period (:meth:`Reference.periodic`, its exact derivatives), or a logged
motion (:meth:`Reference.from_log`: positions resampled to a uniform grid, low-passed without phase
shift, and interpolated by a cubic spline, whose derivatives are then q̇_r and q̈_r).

:func:`track` simulates the robot following it the way an industrial arm does: the torque of its
own model along the reference (here the true inverse dynamics, friction included) plus a PD on the
tracking error, computed at every tick and held until the next (RK4 at the reference's rate). The
PD acts through the mass matrix along the reference, τ = τ_ref + M(q_r)(K_p e + K_d ė), which places
the error dynamics of every direction of motion at ``bandwidth`` Hz, critically damped: gains per
joint would make the light directions of an arm near a singularity (the LWR's joints 1 and 3 in
line) far stiffer than the rest, and unstable at a controller's rate. The run keeps the noise-free
motion (the truth) beside the log the sensors give (:class:`~baseparam.SensorNoise`).

Which torque the log holds at a tick matters to identification, which derives q̈ from the logged
positions by central differences: (q_{k+1} − 2q_k + q_{k−1})/Δt² averages the accelerations of the
tick before and the tick after, so it belongs with the mean of the two torques held over them, not
with the one commanded at the tick. Logging the commanded torque (``logged_torque='held'``, what
:func:`~baseparam.simulate` records) puts half a tick between τ and q̈: a bias of order Δt·τ̇/2
that grows with the motion's speed and, on a UR10e at 500 Hz, outweighs 20 mA of current noise.
The default (``'mean'``) logs (τ_{k−1} + τ_k)/2: a sensor that averages over one tick, stamped at
the centre of its window, as a torque or current sensor behind an anti-aliasing filter is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from .._checks import counted
from .._validation import (check_allocation, check_field_kinds, check_field_shapes, check_finite_fields, check_instance,
                           check_name_fields, check_option, check_positive as _positive, float_fields)
from .._values import ComparedByValue
from ..dynamics.newton_euler import inverse_dynamics
from ..dynamics.regressors import mass_matrix
from ..errors import ArgumentError
from ..dynamics.samples import standard_model
from ..model.value import takes_model
from ..motion import Trajectory, interp_columns
from .integrate import checked_noise, checked_record, logged, simulate
from .noise import checked_gains

MAX_STEP_BANDWIDTH = 0.5      # ω·Δt above which a PD held over a tick is no longer a good approximation
MAX_TICKS = 10_000_000        # of a reference (each one a controller call in Python)
# of a reference track simulates: each tick is a controller call and an RK4 interval from Python, 12-17 µs of CPU on a
# 7-DOF arm, so 5·10⁵ are some 6-8 s (wall time 20 s on 2 cores shared by 8 jobs); MAX_TICKS (10⁷) were minutes, a hang
# to a caller (from_log(log, 1e6) of a 2 s log: 2·10⁶ ticks, beyond 60 s)
MAX_TRACKED_TICKS = 500_000
# from_log's uniform grid beyond MAX_TICKS rows is refused when it has more than this many times the log's samples: a
# long pause (an hour between two samples), not a long log, whose samples are already in memory
MAX_GRID_GROWTH = 10
FILTER_ORDER = 4              # of Reference.from_log's zero-phase Butterworth low-pass
UNIFORM_TICKS = 1e-6          # relative spread of the tick steps still taken as one controller rate


class Reference(Trajectory):
    """A motion to follow, at a controller's ticks (SI): a :class:`~baseparam.Trajectory` whose
    times are uniformly spaced ticks and whose q̇ and q̈ are given.

    Attributes
    ----------
    t : ndarray, shape (n_samples,)
        Ticks, uniformly spaced at the controller rate.
    q, qd, qdd : ndarray, shape (n_samples, n_dof)
        Reference positions and their derivatives.
    source : str

    Raises
    ------
    ArgumentError
        Ticks not uniformly spaced and increasing (at least 2), rows of q, q̇, q̈ other than one per
        tick of the same joints, or a non-finite value (the one check of
        :func:`~baseparam.motion.check_motion`, worded for an argument).
    """

    # the controller of track() looks the reference up by tick index: the ticks must be uniform
    _error = ArgumentError
    _required = ("t", "q", "qd", "qdd")
    _min_samples = 2
    _uniform = UNIFORM_TICKS

    def __init__(self, t, q, qd, qdd, source="reference", **fields):
        super().__init__(t=t, q=q, qd=qd, qdd=qdd, source=source, **fields)

    def _name(self, field):
        return f"reference.{field}"

    def _message(self, problem, field, **facts):
        name, S, shape = self._name(field), facts.get("S"), facts.get("shape")
        if field == "t" and problem in ("shape", "samples"):
            return f"{name}: expected ticks of shape (S,) with S ≥ {self._min_samples}, got shape {shape}"
        if problem in ("shape", "rows", "columns"):
            return f"{name}: expected shape ({S}, n_dof), one row per tick, got {shape}"
        if problem == "value":
            return "reference.t: contains NaN or inf" if field == "t" else \
                f"{name}: non-finite value at tick {facts['row']}, joint {facts['joint'] + 1}"
        if problem in ("order", "uniform"):
            step = np.diff(self.t)
            return (f"{name}: expected increasing, uniformly spaced ticks (a controller's rate), got steps from "
                    f"{step.min():.6g} to {step.max():.6g} s")
        return super()._message(problem, field, **facts)

    @property
    def rate(self):
        """Controller rate (Hz)."""
        return 1.0 / (self.t[1] - self.t[0])

    @property
    def duration(self):
        return float(self.t[-1] - self.t[0])

    @classmethod
    def periodic(cls, series, rate, duration=None, source=None):
        """A Fourier series (or an :class:`~baseparam.ExcitationDesign`'s) played from t = 0 for
        ``duration`` s (default: one period), period after period.

        Parameters
        ----------
        series : FourierSeries or ExcitationDesign
        rate : float
            Controller rate (Hz).
        duration : float, optional
        source : str, optional
        """
        from ..excitation.fourier import FourierSeries

        check_instance(source, "source", str, "a str", allow_none=True)    # as track's (an array: a bare ValueError)
        series = getattr(series, "series", series)
        if not isinstance(series, FourierSeries):
            raise ArgumentError(f"series: expected a bp.FourierSeries or bp.ExcitationDesign, got "
                                f"{type(series).__name__}")
        rate = _positive(rate, "rate")
        duration = series.period if duration is None else _positive(duration, "duration")
        t = _ticks(duration, rate, round)
        q, qd, qdd = series.evaluate(t)
        return cls(t, q, qd, qdd, source or f"Fourier series, {series.harmonics} harmonics of {series.period:g} s")

    @classmethod
    def from_log(cls, log, rate, *, cutoff=5.0, duration=None, source=None):
        """The positions of a logged motion made smooth enough to follow.

        The positions are interpolated linearly to a uniform grid at the log's median time step,
        low-passed by a zero-phase 4th-order Butterworth filter at ``cutoff`` Hz, and interpolated by
        a cubic spline sampled at ``rate``; q̇_r and q̈_r are the spline's derivatives. Time starts at 0.
        The grid spans the whole log (``duration`` or not): one of more than :data:`MAX_TICKS` rows and
        :data:`MAX_GRID_GROWTH` times the log's samples (a long pause between two samples) is refused.

        Parameters
        ----------
        log : Trajectory
            Only ``t`` and ``q`` are used.
        rate : float
            Controller rate (Hz).
        cutoff : float
            Low-pass cutoff (Hz), below half the log's sampling rate.
        duration : float, optional
            Follow only the first ``duration`` s.
        source : str, optional
        """
        from scipy.interpolate import CubicSpline
        from scipy.signal import butter, sosfiltfilt

        if not isinstance(log, Trajectory):
            raise ArgumentError(f"log: expected a bp.Trajectory (bp.read_trajectory), got {type(log).__name__}")
        check_instance(source, "source", str, "a str", allow_none=True)
        rate, cutoff = _positive(rate, "rate"), _positive(cutoff, "cutoff")
        t = np.asarray(log.t, dtype=float) - float(log.t[0])
        q = np.asarray(log.q, dtype=float)
        step = float(np.median(np.diff(t)))
        count = math.floor(t[-1] / step) + 1
        # the grid spans the whole log at its usual step: a pause of hours between two samples made it millions of rows
        # (and its filtered copies gigabytes) before any check. A long log of as many samples is followed (duration=
        # picks its part): its grid is no larger than the log
        if count > max(MAX_TICKS, MAX_GRID_GROWTH * len(t)):
            raise ArgumentError(f"log: {t[-1]:.6g} s at its median step of {step:.3g} s are {count:.6g} samples on "
                                f"a uniform grid, {count / len(t):.3g} times the log's {len(t)} and more than "
                                f"{MAX_TICKS} (a long pause in the log?); give the part to follow")
        check_allocation((count, 4 * q.shape[1]), "log", f"the uniform grid of {count} samples and its filtered copies")
        grid = np.arange(count) * step
        uniform = interp_columns(grid, t, q)
        nyquist = 0.5 / step
        if not cutoff < nyquist:
            raise ArgumentError(f"cutoff: {cutoff:g} Hz is not below half the log's sampling rate ({nyquist:g} Hz)")
        # both refusals before the design: a cutoff of 5e-324 Hz reached butter as 0 (its bare ValueError, "critical
        # frequencies must be greater than 0")
        pad = 3 * (2 * (FILTER_ORDER // 2) + 1)       # sosfiltfilt's default padding, in samples (order / 2 sections)
        if len(grid) <= pad:
            raise ArgumentError(f"log: {counted(len(grid), 'samples')} on the uniform grid; the zero-phase low-pass "
                                f"needs more than {pad}")
        if cutoff * grid[-1] < 1.0:     # preprocess's rule: not one period of it in the log, a singular filter design
            raise ArgumentError(f"cutoff: {cutoff:g} Hz is not one period in the log's {grid[-1]:.6g} s; expected at "
                                f"least {1.0 / grid[-1]:.3g} Hz")
        sos = butter(FILTER_ORDER, cutoff / nyquist, output="sos")
        smooth = sosfiltfilt(sos, uniform, axis=0)
        spline = CubicSpline(grid, smooth, axis=0)
        end = grid[-1] if duration is None else min(grid[-1], _positive(duration, "duration"))
        ticks = _ticks(end, rate, lambda product: math.floor(product + 1e-9))
        return cls(ticks, spline(ticks), spline(ticks, 1), spline(ticks, 2),
                   source or f"{getattr(log, 'source', 'log')} (low-passed at {cutoff:g} Hz, splined)")

    def __repr__(self):
        return (f"Reference({self.source!r}, n_dof={self.n_dof}, duration={self.duration:g} s, "
                f"rate={self.rate:g} Hz)")


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class TrackingRun(ComparedByValue):
    """A simulated run of a reference: the truth and what the sensors logged.

    Attributes
    ----------
    reference : Reference
    truth : Trajectory
        The noise-free motion: q, q̇, q̈ and the torque commanded at each tick (held over the next).
    log : Trajectory
        What the sensors give (``noise``; the fields ``record`` keeps).
    tracking_error : ndarray, shape (n_dof,)
        max |q − q_r| per joint over the run.
    record, logged_torque
        How the log was made (:func:`track`).
    """

    reference: Reference = field(repr=False)
    truth: Trajectory = field(repr=False)
    log: Trajectory = field(repr=False)
    tracking_error: np.ndarray
    record: tuple = field(default=("q", "qd", "tau"), repr=False)
    logged_torque: str = field(default="mean", repr=False)

    def __post_init__(self):
        # built by hand (the class is exported): with_noise and repr reached a text's missing attributes
        float_fields(self, ("tracking_error",))
        trajectory = (Trajectory, "a baseparam.Trajectory")
        check_field_kinds(self, {"reference": (Reference, "a baseparam.Reference"), "truth": trajectory,
                                 "log": trajectory,
                                 "record": ((tuple, list), "a tuple of field names"), "logged_torque": (str, "a str")})
        # its repr reads the largest error: None would be a bare AttributeError, [] numpy's bare "zero-size array",
        # NaN a "nan" figure
        check_field_shapes(self, {"tracking_error": (self.reference.n_dof,)}, optional=())
        check_finite_fields(self, ("tracking_error",))
        check_name_fields(self, ("record",))

    def with_noise(self, noise, gains=None):
        """The same motion logged through other sensors (e.g. another noise seed): no new simulation.

        Parameters
        ----------
        noise : SensorNoise or None
        gains : array_like, shape (n_dof,), optional
            Drive gains (N·m/A) for ``noise.current``.
        """
        checked_noise(noise)
        log = _log(self.truth, noise, checked_gains(gains, self.truth.n_dof), self.record, self.logged_torque,
                   self.log.source)
        return replace(self, log=log)

    def __repr__(self):
        return (f"TrackingRun({self.reference.source!r}, duration={self.reference.duration:g} s, "
                f"tracking_error_max={self.tracking_error.max():.3g})")


LOGGED_TORQUES = ("mean", "held")


@takes_model("p", "reference")
def track(model, reference, *, noise=None, gains=None, bandwidth=10.0,
          record=("q", "qd", "tau"), logged_torque="mean", source=None) -> TrackingRun:
    """Simulate a robot following ``reference`` under feedforward + PD control (module docstring).

    Parameters
    ----------
    model : Model
        The robot and its true parameters (``bp.Model(robot)``: the description's). Deprecated:
        ``robot, p, reference, …, parameters='pseudo'``.
    reference : Reference
        At most :data:`MAX_TRACKED_TICKS` ticks.
    noise : SensorNoise, optional
        What the sensors add to the log.
    gains : array_like, shape (n_dof,), optional
        Drive gains (N·m/A) for ``noise.current``.
    bandwidth : float
        Hz of each joint's error dynamics; ω·Δt ≤ 0.5 at the reference's rate.
    record : sequence of str
        The fields the log keeps (as in :func:`~baseparam.simulate`).
    logged_torque : {'mean', 'held'}
        The torque the log holds at each tick (module docstring): the mean of the torques held over
        the ticks either side, or the one commanded at the tick.
    source : str, optional
        The log's name.

    Returns
    -------
    TrackingRun
    """
    model = standard_model(model)
    robot = model.robot
    model.values()
    check_instance(reference, "reference", Reference, "a bp.Reference")
    if len(reference.t) > MAX_TRACKED_TICKS:          # before the feedforward and M(q) along it are computed
        raise ArgumentError(f"reference: {len(reference.t)} ticks; track simulates at most {MAX_TRACKED_TICKS} (a "
                            f"controller call from Python each); give a lower rate or a shorter duration")
    if reference.n_dof != robot.n_dof or robot.is_floating:
        raise ArgumentError(f"reference: {reference.n_dof} joints for {robot.name}'s {robot.n_dof} (fixed base)")
    checked_noise(noise)
    gains = checked_gains(gains, robot.n_dof)
    record = checked_record(record)
    check_option(logged_torque, "logged_torque", LOGGED_TORQUES)
    check_instance(source, "source", str, "a str", allow_none=True)
    bandwidth = _positive(bandwidth, "bandwidth")          # as float: '10' (text) is taken, and printed below
    omega = 2.0 * math.pi * bandwidth
    if omega / reference.rate > MAX_STEP_BANDWIDTH:
        raise ArgumentError(f"bandwidth: {bandwidth:g} Hz is too high for a controller at {reference.rate:g} Hz "
                            f"(at most {MAX_STEP_BANDWIDTH * reference.rate / (2 * math.pi):.3g} Hz)")
    r = reference
    feedforward = inverse_dynamics(model, r.q, r.qd, r.qdd)
    inertia = mass_matrix(model, r.q)                              # (S, n, n) along the reference
    kp, kd = omega ** 2, 2.0 * omega
    rate, start, last, q_ref, qd_ref = r.rate, r.t[0], len(r.t) - 1, r.q, r.qd     # looked up once, not each tick

    def controller(time, q, qd):
        k = min(int(round((time - start) * rate)), last)
        return feedforward[k] + inertia[k] @ (kp * (q_ref[k] - q) + kd * (qd_ref[k] - qd))

    truth = simulate(model, r.t, r.q[0], r.qd[0], controller, method="rk4", source=f"{r.source}, simulated")
    log = _log(truth, noise, gains, record, logged_torque, source or f"{r.source}, logged")
    return TrackingRun(r, truth, log, np.abs(truth.q - r.q).max(axis=0), tuple(record), logged_torque)


def _log(truth, noise, gains, record, logged_torque, source):
    """The sensors' log of a noise-free run (module docstring: which torque)."""
    tau = truth.tau
    if logged_torque == "mean":
        tau = np.concatenate([tau[:1], 0.5 * (tau[1:] + tau[:-1])])
    fields = {"q": truth.q, "qd": truth.qd, "qdd": truth.qdd, "tau": tau}
    return logged(truth.n_dof, truth.t, fields, noise, gains, record, source)


def _ticks(span, rate, rounding):
    """The ticks from 0 over ``span`` s at ``rate``: ``rounding(span * rate) + 1`` of them, within :data:`MAX_TICKS`
    (counted before they are rounded to an int: a product beyond the float range, 1e308 Hz, would be a
    bare OverflowError)."""
    product = float(span) * float(rate)        # a Python float: beyond the range it is inf, without numpy's warning
    count = rounding(product) if math.isfinite(product) else math.inf
    if count + 1 > MAX_TICKS:
        raise ArgumentError(f"rate: {count + 1:.6g} ticks at {rate:g} Hz; at most {MAX_TICKS} are simulated")
    return np.arange(count + 1) / rate
