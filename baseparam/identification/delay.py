"""The delay between a log's effort and its positions: estimated, and applied.

Convention: a delay d > 0 means the effort lags: the τ logged at t is the torque of the motion at
t − d (drives filter and buffer their current or torque readings; the encoder is sampled first).
Applying it takes τ(t + d) at every t (linear interpolation), dropping the last samples whose t + d
lies beyond the log.

How it is estimated (:func:`estimate_delay`)
--------------------------------------------
By the fit itself: the delay is the shift of the effort that the motion explains best.

1. the log on a uniform grid at its median step (linear interpolation), at most
   :data:`MAX_SAMPLES` samples from its middle; q̇ and q̈ by central differences where not logged;
   q̇, q̈ and τ low-passed by one zero-phase Butterworth filter (order 4, :data:`CUTOFF_HZ` or 0.4 of
   Nyquist), which delays none of them;
2. the columns τ is fitted on, from the motion at t: with a robot, its joint-torque regressor
   W(q, q̇, q̈) (the least-squares fit identification makes); without one, a model-free basis with
   the structure of rigid-body dynamics, τ = M(q) q̈ + Σ q̇_i q̇_j c_ij(q) + g(q) + friction, each
   function of q cut to first-order trigonometric terms of every joint: per sample the columns
   1, q̈_k, q̇_k, sign q̇_k, cos q_k, sin q_k, q̈_k·{cos, sin} q_l, q̇_i q̇_j and
   q̇_i q̇_j·{cos, sin} q_l, all of them for every joint's torque (at most
   :data:`MODEL_FREE_SAMPLES` samples: the basis grows as n³). Viscous, Coulomb and offset friction
   columns of every joint join the regressor whether the description declares friction or not (a
   model without friction is biased towards a delay: the viscous torque is a shifted q). With a
   robot the torques are fitted as measured (OLS, as identification fits them); with the
   model-free basis each joint's torque is weighted by 1/σ_j, σ_j its residual at no shift
   (Gautier's weighting: the best-explained joints, whose shift the basis cannot absorb, count most);
3. for every shift k = −K … K steps (K·Δt = ``max_delay``), the relative residual ρ(k) of the
   least-squares fit of τ(t + k·Δt) on those columns (one rank-revealing QR of the columns, then
   ρ(k) = 1 − ‖Qᵀτ_k‖²/‖τ_k‖² for each k, over the same window of samples);
4. the delay is the k of least ρ, refined to a fraction of a step by the parabola through it and
   its two neighbours; a least ρ at k = ±K is refused (a DataError): no minimum lies within the
   shifts searched.

A fit cannot absorb a shift of the effort that its columns do not span: the regressor's columns are
tied by the physics (one parameter multiplies an inertial and a gravity term), and Coulomb friction
switches at velocity reversals, so the residual is least at the true delay. A basis too loose
to be wrong is also loose enough to absorb a shift: with only [1, q̈, q̇, sign q̇, cos q, sin q],
the tests' 3R arm gave delays off by three to six samples, biased by the terms it lacks. Checked
(tests/test_logs.py and the real logs): delays injected into the 3R arm's log are recovered within
one sample by both; on the KUKA LWR4+ log (5 ms steps) the robot model finds 2.7 ms and the
model-free basis −2.5 ms, where identification itself fits best with no shift (its validation
error grows from 4.1 % at 0 to 4.6 % at 20 ms); on the UR10e log (about 10 ms steps) 5.0 ms and
3.3 ms. Both need motion of several harmonics, as excitation
trajectories are (a joint moving as one sinusoid: q and q̇ span any shift of it). With a robot the
estimate is the better one.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from numbers import Real

import numpy as np

from .._checks import counted
from .._validation import check_field_kinds, check_finite_fields, check_instance, check_number, check_robot, shown
from ..errors import DataError
from ..motion import Trajectory, central_differences, interp_columns

MAX_SAMPLES = 20_000
MODEL_FREE_SAMPLES = 8_000
CUTOFF_HZ = 10.0
# A delay estimate built by hand beyond this (11.6 days) is none: 1e308 s came out as inf milliseconds.
MAX_DELAY_SECONDS = 1e6
MAX_DELAY = 0.1          # s: drives delay their effort readings by a few ms, rarely by more than tens
# A sample whose shifted time t + d runs past an end of the log by at most this share of the end's step keeps its
# effort, extrapolated linearly from the end's two samples: that extrapolation's error, (h + e)·e/2·|τ̈| at e past the
# end, stays within linear interpolation's own between samples, h²/8·|τ̈|, for e ≤ (√2 − 1)/2·h ≈ 0.207·h. A log
# without delay, whose estimate is a few hundredths of a step off zero, lost its last (or first) sample.
EXTRAPOLATED_STEP_SHARE = 0.2


@dataclass(frozen=True)
class DelayEstimate:
    """The delay of the effort behind the positions (module docstring: convention, method).

    Attributes
    ----------
    seconds : float
        d > 0: the effort lags.
    method : str
        ``"robot model"`` or ``"model-free basis"``: what predicted the torque.
    correlation : float
        √(1 − ρ) at the delay: the correlation of the fit with the shifted effort (1: explained fully).
    step : float
        The grid step in s (the resolution before the sub-step refinement).
    source : str
    """

    seconds: float
    method: str
    correlation: float
    step: float
    source: str = ""

    def __post_init__(self):
        # a public class: one built by hand with a wrong kind of field is refused here, not deep in note
        number = (Real, "a number")
        check_field_kinds(self, {"seconds": number, "correlation": number, "step": number, "method": (str, "a str"),
                                 "source": (str, "a str")})
        check_finite_fields(self, ("seconds", "correlation", "step"))      # a NaN delay reached note and milliseconds
        check_number(self.seconds, "DelayEstimate.seconds", low=-MAX_DELAY_SECONDS, high=MAX_DELAY_SECONDS)

    @property
    def milliseconds(self) -> float:
        return 1e3 * self.seconds

    @property
    def note(self) -> str:
        return (f"{self.source}: effort delay {self.milliseconds:.3g} ms (estimated: the shift of the effort a "
                f"least-squares fit on the motion explains best, {self.method}; fit correlation "
                f"{self.correlation:.4f}, step {1e3 * self.step:.3g} ms)")

    def __repr__(self):
        return (f"DelayEstimate({self.milliseconds:.4g} ms, method={self.method!r}, "
                f"correlation={self.correlation:.3f})")


def estimate_delay(trajectory, robot=None, *, max_delay=None) -> DelayEstimate:
    """Estimate the delay of ``trajectory.tau`` behind its positions (module docstring).

    Parameters
    ----------
    trajectory : Trajectory
        With tau.
    robot : Robot, optional
        Predict the torque with its regressor (better than the model-free basis).
    max_delay : float, optional
        Largest |delay| looked for, s; at least half the log's time step (the search is in whole steps, then
        refined between them). Default :data:`MAX_DELAY`, or one time step of a log sampled more coarsely.

    Returns
    -------
    DelayEstimate
    """
    check_instance(trajectory, "trajectory", Trajectory, "a baseparam.Trajectory")
    if robot is not None:
        check_robot(robot)
    given = max_delay is not None
    if given:
        max_delay = check_number(max_delay, "max_delay", low=0, strict=True, expected="a number of seconds > 0")
    source = trajectory.source
    if trajectory.tau is None:
        raise DataError(f"{source}: field tau: no effort, so no delay to estimate")
    # imported here: the module's top must not load the dynamics (read_trajectory(delay=…) needs no robot)
    from ._least_squares import refuse_absurd_torque

    refuse_absurd_torque(source, trajectory.tau)        # its shifts' sums of squares overflowed (τ × 1e200)
    t = trajectory.t
    dt = float(np.median(np.diff(t)))
    if not given:       # delay='auto', --delay auto: a log of 5 Hz or less is searched one step each way
        max_delay = max(MAX_DELAY, dt)
    # no whole step within it: the search took one step each way regardless, and returned delays beyond max_delay
    # (0.42 ms for a bound of 1e-6 s on a 10 ms log); half a step to a rounding of the stamps' median is within it
    if max_delay < dt / 2 * (1 - 1e-9):
        raise DataError(f"{source}: max_delay: {max_delay:g} s is less than half the log's step ({dt:.3g} s): the "
                        f"delay is searched in whole steps (then refined between them); give max_delay ≥ {dt / 2:.3g} s"
                        )
    K = max(1, int(round(min(max_delay / dt, t.size))))     # beyond the log (1e308 s / dt is inf): "too short" below
    # The uniform grid's middle window only: a stamp far from the others (a clock jump of decades) made a grid of
    # 10^11 points, allocated before the window was cut from it (MemoryError).
    size = int(np.floor((t[-1] - t[0]) / dt)) + 1
    most = MAX_SAMPLES if robot is not None else MODEL_FREE_SAMPLES
    window = np.arange(size) if size <= most + 2 * K else np.arange(size // 2 - (most // 2 + K),
                                                                    size // 2 + (most // 2 + K))
    grid = t[0] + dt * window
    # The window in a gap of the stamps (that clock jump): most of it a line drawn between two samples. The gaps are
    # measured, not the stamps in the window counted: samples taken in bursts (3 at 0.2 ms, then 5.6 ms apart) put a
    # tenth as many stamps as grid points in any window, with no gap.
    covered = np.clip(t, grid[0], grid[-1])
    if np.max(np.diff(covered), initial=0.0) > (grid[-1] - grid[0]) / 2:
        raise DataError(f"{source}: field t: the stamps leave a gap of {float(np.max(np.diff(t))):.4g} s "
                        f"(median step {dt:.3g} s): no stretch of uniform samples to estimate a delay on")
    if grid.size < 8 * K + 20:
        raise DataError(f"{source}: {counted(grid.size, 'samples')} at {dt:.3g} s: too short to estimate a delay up to "
                        f"{max_delay:g} s")

    q = interp_columns(grid, t, trajectory.q)
    qd = interp_columns(grid, t, trajectory.qd) if trajectory.qd is not None else central_differences(q, dt)
    qdd = interp_columns(grid, t, trajectory.qdd) if trajectory.qdd is not None else central_differences(qd, dt)
    tau = interp_columns(grid, t, trajectory.tau)
    qd, qdd, tau = _lowpass([qd, qdd, tau], dt)
    S, n = tau.shape
    # With a robot, torques as measured, not scaled per joint: the OLS fit identification makes.
    # (Scaling each joint to unit variance let the joints with little torque, the least well
    # modelled, pull the KUKA LWR4+ log's estimate to 76 ms, where identification fits best at 0.)
    A = _features(robot, (q[K:S - K], qd[K:S - K], qdd[K:S - K]))
    Q = _range_basis(A)
    weight = 1.0
    if robot is None:        # Gautier's weighting: each joint by 1/σ_j of its residual at no shift
        residual = tau[K:S - K] - Q @ (Q.T @ tau[K:S - K])
        sigma = residual.std(axis=0)
        weight = 1.0 / np.where(sigma > 0, sigma, 1.0)
    rho = np.empty(2 * K + 1)
    for i, k in enumerate(range(-K, K + 1)):
        target = tau[K + k:S - K + k]
        target = target.reshape(-1) if robot is not None else target * weight
        total = float(np.sum(target * target))
        rho[i] = 1.0 - float(np.sum((Q.T @ target) ** 2)) / total if total > 0 else 1.0
    if np.ptp(rho) <= 1e-12:             # every shift fits alike (an effort zero or constant): argmin would be -K
        raise DataError(f"{source}: field tau: the effort's fit does not change with its shift (an effort that is "
                        "zero or constant?): no delay to estimate")
    i = int(np.argmin(rho))
    if i in (0, 2 * K):
        _refuse_unbracketed(source, (i - K) * dt, max_delay, robot is None)
    frac = 0.0
    if 0 < i < 2 * K:
        left, mid, right = rho[i - 1], rho[i], rho[i + 1]
        denom = left - 2 * mid + right
        if denom > 0:
            frac = 0.5 * (left - right) / denom
    method = "robot model" if robot is not None else "model-free basis"
    return DelayEstimate(((i - K) + frac) * dt, method, float(np.sqrt(max(0.0, 1.0 - rho[i]))), dt, source)


def _refuse_unbracketed(source, shift, max_delay, model_free):
    """Refuse a least residual at an end of the searched shifts: no minimum lies within them, and that end is no
    estimate. A simulated log without delay came out at −100.3 ms, its search's end (the default bound of 0.1 s
    rounded to 10 whole steps of 10.025 ms: beyond the bound), and ``delay='auto'`` applied it in silence; with
    the model-free basis, whose loose columns absorb a shift of a motion they do not fit (a planar arm's cos(q₂ +
    q₃)), the residual may fall all the way to either end."""
    hint = " (the model-free basis: give robot=, whose regressor fits the motion)" if model_free else ""
    raise DataError(f"{source}: field tau: the effort's fit is best at the end of the shifts searched "
                    f"({1e3 * shift:+.4g} ms; max_delay {max_delay:g} s): no delay found within them{hint}; give a "
                    "larger max_delay, or the delay itself")


def _range_basis(A):
    """An orthonormal basis of the column space of A (pivoted QR, columns beyond its rank dropped)."""
    from scipy.linalg import qr
    norms = np.linalg.norm(A, axis=0)
    A = A[:, norms > 0] / norms[norms > 0]
    Q, R, _ = qr(A, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > diag[0] * 1e-9)) if diag.size else 0
    return Q[:, :rank]


def _lowpass(arrays, dt):
    from scipy.signal import butter, sosfiltfilt
    nyquist = 0.5 / dt
    cutoff = min(CUTOFF_HZ, 0.4 * nyquist)
    sos = butter(4, cutoff / nyquist, output="sos")
    return [sosfiltfilt(sos, a, axis=0) for a in arrays]


def _features(robot, motion):
    """The columns τ is fitted on: the robot's regressor (S·n, P), or the model-free basis (S, P)."""
    q, qd, qdd = motion
    S, n = q.shape
    if robot is not None:
        from ..dynamics import regressor
        from ..model import Model        # here, not at the top: a delayed read without a robot needs no model
        W = regressor(Model(robot, np.zeros(_n_columns(robot))), q, qd, qdd).reshape(q.size, -1)
        # friction columns for every joint, declared or not (duplicates drop out of the QR): a model
        # without friction is biased towards a delay, the viscous torque q̇ being a shifted q
        friction = np.zeros((S, n, 3 * n))
        for j in range(n):
            friction[:, j, 3 * j:3 * j + 3] = np.column_stack([qd[:, j], np.sign(qd[:, j]), np.ones(S)])
        return np.hstack([W, friction.reshape(S * n, -1)])
    trig = np.column_stack([np.cos(q), np.sin(q)])
    upper = np.triu_indices(n)
    products = (qd[:, :, None] * qd[:, None, :])[:, upper[0], upper[1]]
    return np.column_stack([np.ones(S), qdd, qd, np.sign(qd), trig, (qdd[:, :, None] * trig[:, None, :]).reshape(S, -1),
                            products, (products[:, :, None] * trig[:, None, :]).reshape(S, -1)])


def _n_columns(robot):
    from ..model import ColumnLayout
    return len(ColumnLayout(robot, "pseudo").names)


def _interpolated(x, t, tau):
    """``tau`` (n_samples, n_dof) at the times ``t`` (n_samples,), n_samples ≥ 2, linearly interpolated at ``x``,
    and extrapolated from the end's two samples at an ``x`` beyond an end (np.interp would take the end's value)."""
    out = interp_columns(x, t, tau)
    for beyond, end, other in ((x < t[0], 0, 1), (x > t[-1], -1, -2)):
        if beyond.any():
            slope = (tau[end] - tau[other]) / (t[end] - t[other])
            out[beyond] = tau[end] + (x[beyond] - t[end])[:, None] * slope
    return out


def apply_delay(trajectory, seconds, note=None):
    """The trajectory with τ(t) replaced by τ(t + seconds) (linear interpolation); samples whose
    t + seconds lies outside the log dropped, but for those within a fifth of the end's step of it
    (:data:`EXTRAPOLATED_STEP_SHARE`), whose effort is extrapolated linearly from the two end samples. ``note`` (a
    str; default: the delay applied) joins its notes."""
    # the types first: a non-trajectory was an AttributeError, a note of another type a bare TypeError (an array's, a
    # ValueError) after the work
    check_instance(trajectory, "trajectory", Trajectory, "a baseparam.Trajectory")
    check_instance(note, "note", str, "a str or None", allow_none=True)
    source = trajectory.source
    try:
        if isinstance(seconds, (bool, np.bool_)):     # float(True) is 1 s: a flag, not a delay
            raise TypeError(seconds)
        d = float(seconds)
    except OverflowError:           # an int or Fraction beyond the floats: no finite delay, refused below
        d = np.inf
    except (TypeError, ValueError):
        raise DataError(f"{source}: delay: expected 'auto' or a number of seconds, got {shown(seconds)}") from None
    if not np.isfinite(d):
        raise DataError(f"{source}: delay: expected a finite number of seconds, got {shown(seconds)}")
    if trajectory.tau is None:
        raise DataError(f"{source}: field tau: no effort to shift by the delay")
    t = trajectory.t
    if abs(d) >= 0.5 * (t[-1] - t[0]):
        raise DataError(f"{source}: delay: {d:g} s is half the log ({t[-1] - t[0]:g} s) or more")
    first, last = EXTRAPOLATED_STEP_SHARE * (t[1] - t[0]), EXTRAPOLATED_STEP_SHARE * (t[-1] - t[-2])
    keep = (t + d >= t[0] - first) & (t + d <= t[-1] + last)
    tau = _interpolated(t[keep] + d, t, trajectory.tau)
    text = note or f"{source}: effort delay {1e3 * d:.3g} ms applied (τ(t) taken at t + delay, linear interpolation)"
    dropped = int((~keep).sum())
    if dropped:
        text += f"; {counted(dropped, 'samples')} at the ends dropped"
    return dataclasses.replace(
        trajectory, t=t[keep], q=trajectory.q[keep], tau=tau,
        qd=None if trajectory.qd is None else trajectory.qd[keep],
        qdd=None if trajectory.qdd is None else trajectory.qdd[keep],
        notes=trajectory.notes + (text,))
