"""The delay between a log's effort and its positions: estimated, and applied.

Convention: a delay d > 0 means the effort lags: the τ logged at t is the torque of the motion at
t − d (drives filter and buffer their current or torque readings; the encoder is sampled first).
Applying it takes τ(t + d) at every t (linear interpolation), dropping the last samples whose t + d
lies beyond the log.

How it is estimated (:func:`estimate_delay`)
--------------------------------------------
Cross-correlation of the measured effort with a torque *predicted from the motion*:

1. the log on a uniform grid at its median step (linear interpolation), at most
   :data:`MAX_SAMPLES` samples from its middle; q̇ and q̈ by central differences where not logged;
   q̇, q̈ and τ low-passed by one zero-phase Butterworth filter (order 4, :data:`CUTOFF_HZ` or 0.4 of
   Nyquist), which delays none of them;
2. a least-squares fit of τ on the motion: with a robot, its joint-torque regressor W(q, q̇, q̈)
   (the fit of identification itself); without one, a model-free linear basis of the same motion
   — per sample [1, q̈, q̇, sign q̇, cos q, sin q], every joint's columns for every joint's torque
   (inertia, coupling, friction and a first-order gravity);
3. the normalised cross-correlation, summed over joints (each scaled to unit variance), of the
   prediction τ̂(t) with the measured τ(t + k·Δt), k = −K … K (K·Δt = ``max_delay``); its peak,
   refined to a fraction of a step by the parabola through it and its two neighbours, is the delay;
4. steps 2–3 once more with the fit on the motion shifted by that delay (a fit of misaligned data
   blurs the prediction; a second pass removes that bias).

The fit needs no true inertias: the correlation compares shapes, and a first fit of the data
predicts them best (with a robot, much better than a generic basis, as the regressor spans the
torque exactly).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..errors import DataError

MAX_SAMPLES = 50_000
CUTOFF_HZ = 10.0
MAX_DELAY = 0.1          # s: drives delay their effort readings by a few ms, rarely by more than tens


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
        The peak normalised cross-correlation (1: the prediction matches the shifted effort).
    step : float
        The grid step in s (the resolution before the sub-step refinement).
    source : str
    """

    seconds: float
    method: str
    correlation: float
    step: float
    source: str = ""

    @property
    def milliseconds(self) -> float:
        return 1e3 * self.seconds

    @property
    def note(self) -> str:
        return (f"{self.source}: effort delay {self.milliseconds:.3g} ms (estimated: cross-correlation of the effort "
                f"with the torque of a least-squares fit, {self.method}; peak correlation {self.correlation:.3f}, "
                f"step {1e3 * self.step:.3g} ms)")

    def __repr__(self):
        return (f"DelayEstimate({self.milliseconds:.4g} ms, method={self.method!r}, "
                f"correlation={self.correlation:.3f})")


def estimate_delay(trajectory, robot=None, *, max_delay=MAX_DELAY) -> DelayEstimate:
    """Estimate the delay of ``trajectory.tau`` behind its positions (module docstring).

    Parameters
    ----------
    trajectory : Trajectory
        With tau.
    robot : Robot, optional
        Predict the torque with its regressor (better than the model-free basis).
    max_delay : float
        Largest |delay| looked for, s.

    Returns
    -------
    DelayEstimate
    """
    source = trajectory.source
    if trajectory.tau is None:
        raise DataError(f"{source}: field tau: no effort, so no delay to estimate")
    t = trajectory.t
    dt = float(np.median(np.diff(t)))
    K = max(1, int(round(max_delay / dt)))
    grid = t[0] + dt * np.arange(int(np.floor((t[-1] - t[0]) / dt)) + 1)
    if grid.size > MAX_SAMPLES + 2 * K:
        middle = grid.size // 2
        grid = grid[middle - (MAX_SAMPLES // 2 + K):middle + (MAX_SAMPLES // 2 + K)]
    if grid.size < 8 * K + 20:
        raise DataError(f"{source}: {grid.size} samples at {dt:.3g} s: too short to estimate a delay up to "
                        f"{max_delay:g} s")

    def on_grid(a, times=grid):
        return np.column_stack([np.interp(times, t, a[:, j]) for j in range(a.shape[1])])

    q = on_grid(trajectory.q)
    qd = on_grid(trajectory.qd) if trajectory.qd is not None else np.gradient(q, dt, axis=0)
    qdd = on_grid(trajectory.qdd) if trajectory.qdd is not None else np.gradient(qd, dt, axis=0)
    tau = on_grid(trajectory.tau)
    qd, qdd, tau = _lowpass([qd, qdd, tau], dt)
    method = "robot model" if robot is not None else "model-free basis"
    delay, peak = 0.0, 0.0
    for _ in range(2):
        if delay:                # fit the effort at t on the motion at t − d
            shifted = grid - delay
            inside = (shifted >= grid[0]) & (shifted <= grid[-1])
            motion = [np.column_stack([np.interp(shifted[inside], grid, a[:, j]) for j in range(a.shape[1])])
                      for a in (q, qd, qdd)]
            coef = _fit(robot, motion, tau[inside])
        else:
            coef = _fit(robot, (q, qd, qdd), tau)
        lag, peak = _peak(_prediction(robot, (q, qd, qdd), coef), tau, K)
        delay = lag * dt
    return DelayEstimate(delay, method, peak, dt, source)


def _lowpass(arrays, dt):
    from scipy.signal import butter, sosfiltfilt
    nyquist = 0.5 / dt
    cutoff = min(CUTOFF_HZ, 0.4 * nyquist)
    sos = butter(4, cutoff / nyquist, output="sos")
    return [sosfiltfilt(sos, a, axis=0) for a in arrays]


def _features(robot, motion):
    """The columns τ is fitted on: the robot's regressor (S·n, P), or the model-free basis (S, P)."""
    q, qd, qdd = motion
    if robot is not None:
        from ..dynamics import regressor
        from ..model import Model
        return regressor(Model(robot, np.zeros(_n_columns(robot))), q, qd, qdd).reshape(q.size, -1)
    return np.column_stack([np.ones(q.shape[0]), qdd, qd, np.sign(qd), np.cos(q), np.sin(q)])


def _fit(robot, motion, tau):
    """Least-squares coefficients of τ on the features (columns scaled to unit norm first)."""
    A = _features(robot, motion)
    scale = np.linalg.norm(A, axis=0)
    scale[scale == 0] = 1.0
    coef, *_ = np.linalg.lstsq(A / scale, tau.reshape(-1) if robot is not None else tau, rcond=None)
    return coef / (scale if robot is not None else scale[:, None])


def _prediction(robot, motion, coef):
    """τ̂ (S, n) of the fitted coefficients on a motion."""
    return (_features(robot, motion) @ coef).reshape(motion[0].shape)


def _n_columns(robot):
    from ..model import ColumnLayout
    return len(ColumnLayout(robot, "pseudo").names)


def _peak(predicted, tau, K):
    """The lag (in steps, fractional) maximizing the summed normalised cross-correlation of
    predicted(t) with tau(t + lag), and the peak value."""
    S = tau.shape[0]
    a = predicted[K:S - K] - predicted[K:S - K].mean(axis=0)
    sa = a.std(axis=0)
    keep = sa > 0
    a = a[:, keep] / sa[keep]
    values = np.empty(2 * K + 1)
    for i, k in enumerate(range(-K, K + 1)):
        b = tau[K + k:S - K + k][:, keep]
        b = b - b.mean(axis=0)
        sb = b.std(axis=0)
        sb[sb == 0] = 1.0
        values[i] = float(np.mean((a * (b / sb)).mean(axis=0)))
    i = int(np.argmax(values))
    frac = 0.0
    if 0 < i < 2 * K:
        left, mid, right = values[i - 1], values[i], values[i + 1]
        denom = left - 2 * mid + right
        if denom < 0:
            frac = 0.5 * (left - right) / denom
    return (i - K) + frac, float(values[i])


def apply_delay(trajectory, seconds, note=None):
    """The trajectory with τ(t) replaced by τ(t + seconds) (linear interpolation); samples whose
    t + seconds lies outside the log dropped. ``note`` (default: the delay applied) joins its notes."""
    source = trajectory.source
    try:
        d = float(seconds)
    except (TypeError, ValueError):
        raise DataError(f"{source}: delay: expected 'auto' or a number of seconds, got {seconds!r}") from None
    if not np.isfinite(d):
        raise DataError(f"{source}: delay: expected a finite number of seconds, got {seconds!r}")
    if trajectory.tau is None:
        raise DataError(f"{source}: field tau: no effort to shift by the delay")
    t = trajectory.t
    if abs(d) >= 0.5 * (t[-1] - t[0]):
        raise DataError(f"{source}: delay: {d:g} s is half the log ({t[-1] - t[0]:g} s) or more")
    keep = (t + d >= t[0]) & (t + d <= t[-1])
    tau = np.column_stack([np.interp(t[keep] + d, t, trajectory.tau[:, j]) for j in range(trajectory.n_dof)])
    text = note or f"{source}: effort delay {1e3 * d:.3g} ms applied (τ(t) taken at t + delay, linear interpolation)"
    dropped = int((~keep).sum())
    if dropped:
        text += f"; {dropped} samples at the ends dropped"
    return dataclasses.replace(
        trajectory, t=t[keep], q=trajectory.q[keep], tau=tau,
        qd=None if trajectory.qd is None else trajectory.qd[keep],
        qdd=None if trajectory.qdd is None else trajectory.qdd[keep],
        notes=trajectory.notes + (text,))
