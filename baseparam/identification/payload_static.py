"""Static payload identification: mass and centre of mass from still poses (as UR's ``estimate_payload()``).

At rest the joint torques are gravity's alone, and gravity sees only four of the payload's ten
parameters: its mass M and first moments M·c (SX, SY, SZ in the frame of the link the last joint
moves), through the gravity regressor ``W_last(q, 0, 0)[:, 6:10]``. Each still pose gives one equation
per joint; at least :data:`MIN_POSES` poses (UR's rule) whose wrist orientations differ make the four
identifiable (:func:`~baseparam.excitation.static_poses.suggest_static_poses` chooses such orientations).

**Still segments.** A log is cut into runs of samples during which every joint stays within
``tolerance`` of the run's first sample; a run lasting at least ``min_duration`` is one pose, and the
middle 80 % of its samples are averaged (the ends may still settle). A table of poses (one row each,
``t`` 0, 1, 2, …) is read with ``min_duration=0``: each run of rows within ``tolerance`` is a pose, and two
poses in a row that differ by no more than :data:`MATCH_TOLERANCE` (the same pose, as loaded and unloaded
poses are matched) are refused: the robot moved through them, a log of motion whose every row would
otherwise be taken as a still pose (torques of inertia and friction taken for gravity's); so are one-row
poses in a row at a steady velocity, the same motion sampled more coarsely (:func:`_refuse_steady_motion`).

**The fit.** y = τ − g_model(q) per pose (or, with unloaded poses, the loaded minus the nearest unloaded
pose's torque, corrected by the model for their small difference of positions: what the model gets
wrong cancels), weighted per joint by the residual of a first fit; standard deviations σ²(AᵀA)⁻¹, those of
the centre of mass first-order (delta method). A negative mass (no payload, noise) is clipped to 0.
"""
from __future__ import annotations


import numpy as np

from .._checks import check_instance
from .._validation import check_number, check_robot
from ..dynamics.payload_gravity import MIN_POSES, RANK_TOLERANCE, STATIC, STATIC_NAMES
from ..dynamics.payload_gravity import condition as _condition
from ..dynamics.payload_gravity import gravity_columns as _gravity_columns
from ..errors import ArgumentError, ArgumentTypeError, DataError, SettingsError
from ..motion import Trajectory

__all__ = ["identify_static", "still_poses"]

MATCH_TOLERANCE = 0.02                  # rad (or m): the largest joint difference of a loaded and unloaded pose
STEADY = 0.5                            # the velocity's change between poses in a row, of itself, that reads as motion
TRIM = 0.1                              # the share of a still segment dropped at each end


def _check_still(tolerance, min_duration):
    """The still-pose settings (still_poses, and identify_payload whether static or not), refused in one line; as
    floats (a Fraction's :g in the messages would be a bare TypeError)."""
    return (check_number(tolerance, "still_tolerance", low=0, strict=True, error=SettingsError),
            check_number(min_duration, "still_duration", low=0, error=SettingsError))


def still_poses(trajectory, tolerance=2e-3, min_duration=0.5):
    """The still poses of a log: positions and torques averaged over each still segment (module notes).

    Parameters
    ----------
    trajectory : Trajectory
    tolerance : float
        rad (or m): how far a joint may drift within one still segment.
    min_duration : float
        s: the shortest still segment taken as a pose.

    Returns
    -------
    q : ndarray, shape (P, n_dof)
    tau : ndarray, shape (P, n_dof)
    spans : list of (float, float)
        Each segment's first and last time, s.
    """
    tolerance, min_duration = _check_still(tolerance, min_duration)
    check_instance(trajectory, "trajectory", Trajectory, "a baseparam.Trajectory")
    t, q, tau = trajectory.t, trajectory.q, trajectory.tau
    if tau is None:
        raise DataError(f"{trajectory.source}: no torques to identify a payload from")
    S = len(t)
    step = float(np.median(np.diff(t))) if S > 1 else 0.0
    if min_duration > 0 and step > min_duration:
        # any two rows in a row then last min_duration: a log timed in ms took every pair of slow samples for a
        # pose (41 'poses' of 6 held, 1.75 kg for 2.0), as a log in seconds sampled more slowly than the poses last
        raise DataError(f"{trajectory.source}: field t: median time step {step:.4g} s is longer than still_duration "
                        f"({min_duration:g} s), so every two samples would be a still pose: is the time in ms or µs? "
                        "give it in seconds (or a longer still_duration; 0 for a table of poses, one row each)")
    out_q, out_tau, spans, single = [], [], [], []
    i, previous = 0, None                 # previous: the first row of the last pose; single: one-row poses' rows
    while i < S:
        end, window = i + 1, 64
        while end < S:                    # look ahead in growing windows: a moving start ends at once
            stop = min(S, end + window)
            away = np.abs(q[end:stop] - q[i]).max(axis=1) > tolerance
            if away.any():
                end += int(np.argmax(away))
                break
            end, window = stop, 2 * window
        if t[end - 1] - t[i] >= min_duration:
            if min_duration == 0 and previous is not None:
                _refuse_motion(trajectory, tolerance, previous, i)
            previous = i
            if min_duration == 0:
                single.append(i if end == i + 1 else -1 - i)
            cut = int(TRIM * (end - i))
            a, b = i + cut, max(end - cut, i + cut + 1)
            out_q.append(q[a:b].mean(axis=0))
            out_tau.append(tau[a:b].mean(axis=0))
            spans.append((float(t[i]), float(t[end - 1])))
            i = end
        else:
            i += 1
    if min_duration == 0:
        _refuse_steady_motion(trajectory, np.array(single, dtype=int))
    n = q.shape[1]
    return np.reshape(out_q, (-1, n)), np.reshape(out_tau, (-1, n)), spans


def _refuse_motion(trajectory, tolerance, a, b):
    """With ``min_duration=0`` (a table of poses), refuse poses in a row starting at rows ``a`` and ``b`` that differ by
    more than ``tolerance`` (else one pose) and no more than :data:`MATCH_TOLERANCE`: a log of motion, read row by
    row as poses (module notes)."""
    q = trajectory.q
    gap = float(np.abs(q[b] - q[a]).max())
    if gap <= MATCH_TOLERANCE:
        t = trajectory.t
        # times to 15 digits: ":g" (6) showed a bag's Unix stamps 20 ms apart as 't = 1.7e+09 and 1.7e+09'
        raise DataError(f"{trajectory.source}: still_duration=0 takes each row as a still pose, and the rows at t = "
                        f"{t[a]:.15g} and {t[b]:.15g} s differ by {gap:.3g} rad, more than "
                        f"still_tolerance={tolerance:g} (one pose) and no more than {MATCH_TOLERANCE:g} (the same "
                        "pose): the robot moves through them; for a log of motion give still_duration > 0 (its still "
                        "segments are the poses), for a table of poses write a pose's rows equal or raise "
                        "still_tolerance")


def _refuse_steady_motion(trajectory, single):
    """With ``min_duration=0``, refuse one-row poses in a row along a steady path: a log of motion sampled too coarsely
    for :func:`_refuse_motion` (rows more than :data:`MATCH_TOLERANCE` apart; 10 Hz UR10e: 2.66 kg for 2.805, exit 0).

    ``single`` holds each pose's row if the pose is one row, else −1 − its first row (a pose held over equal rows is
    seen still). The velocity between poses in a row, (q[b] − q[a]) / (t[b] − t[a]) — per time, so irregular
    sampling does not matter — changes little from one pair to the next along a sampled motion, and as much as the
    velocity itself between the poses of a table (independent choices). Two such changes in a row each within
    :data:`STEADY` of the larger velocity are refused: 76 % of a 10 Hz multi-sine's steps and 81 % of the UR10e's
    real 10 Hz log are steady, none twice in a row among 800 000 steps of uniformly random tables. A table sweeping
    a joint in equal steps cannot be told from a motion: its rows repeated (each pose two equal rows) are taken."""
    if len(single) < 4:
        return
    t, q = trajectory.t, trajectory.q
    one = single >= 0
    rows = np.where(one, single, -1 - single)
    v = (q[rows[1:]] - q[rows[:-1]]) / (t[rows[1:]] - t[rows[:-1]])[:, None]         # (P-1, n) between poses
    triple = one[:-2] & one[1:-1] & one[2:]                                            # three one-row poses in a row
    speed = np.maximum(np.abs(v[:-1]).max(axis=1), np.abs(v[1:]).max(axis=1))
    steady = triple & (np.abs(v[1:] - v[:-1]).max(axis=1) <= STEADY * speed) & (speed > 0)
    twice = np.flatnonzero(steady[:-1] & steady[1:])
    if len(twice):
        a, d = rows[twice[0]], rows[twice[0] + 3]
        swept = _sweep(q[rows[twice[0]:twice[0] + 4]])
        if swept is not None:       # a table's grid (a joint swept in equal steps): not said to be a motion
            joint, step = swept
            raise DataError(
                f"{trajectory.source}: still_duration=0 takes each row as a still pose, and the rows from t = "
                f"{t[a]:.15g} to {t[d]:.15g} s step joint {joint + 1} alone by {step:.6g} (rad or m) each, one row per "
                "pose: a table sweeping a joint in equal steps cannot be told from a log of motion sampled coarsely, "
                "whose torques hold friction and inertia besides gravity; for a table of poses write each pose's row "
                "twice (equal rows are a pose seen still), for a log of motion give still_duration > 0 (its still "
                "segments are the poses)")
        raise DataError(f"{trajectory.source}: still_duration=0 takes each row as a still pose, and the rows from t = "
                        f"{t[a]:.15g} to {t[d]:.15g} s move at a steady velocity (up to {speed[twice[0]]:.3g} rad/s), "
                        "one row each: the robot moves through them; for a log of motion give still_duration > 0 (its "
                        "still segments are the poses), for a table of poses write each pose's row twice (equal rows "
                        "are a pose seen still)")


def _sweep(q):
    """(joint, step) when the poses ``q`` (P, n), one after the other, move one joint alone by equal steps (to
    round-off), as a table's grid does; else None."""
    steps = np.diff(q, axis=0)                                                  # (P-1, n)
    moving = np.flatnonzero(np.any(steps != 0, axis=0))
    if len(moving) != 1:
        return None
    column = steps[:, moving[0]]
    if not np.allclose(column, column[0], rtol=1e-9, atol=0):
        return None
    return int(moving[0]), float(column[0])


def _nearest(q, qu, budget=4_000_000):
    """For each row of ``q`` (P, n), the row of ``qu`` (Pu, n) nearest in the largest joint difference, and that
    difference; in blocks of rows, so a table of many poses (``min_duration=0`` on a long log) does not ask for a
    (P, Pu, n) array at once."""
    P, n = q.shape
    step = max(1, budget // max(len(qu) * n, 1))
    nearest, distance = np.empty(P, dtype=int), np.empty(P)
    for a in range(0, P, step):
        gap = np.abs(q[a:a + step, None, :] - qu[None, :, :]).max(axis=2)          # (block, Pu)
        nearest[a:a + step] = np.argmin(gap, axis=1)
        distance[a:a + step] = gap[np.arange(len(gap)), nearest[a:a + step]]
    return nearest, distance


def identify_static(robot, predicted, loaded, unloaded=None, tolerance=2e-3, min_duration=0.5, carry=None):
    """The payload's mass and centre of mass from still poses (module notes): the fields of a PayloadResult (mode
    'static'); with ``carry`` (10, 10), in the frame whose parameters it maps to the last link's (SX SY SZ M among
    themselves: the first moments move with the mass alone)."""
    from ._payload_math import NAMES, _check_target, _echelon, payload_parameters

    robot = check_robot(robot)
    if not callable(predicted):
        raise ArgumentTypeError(f"predicted: expected a function of (q, qd, qdd), got {type(predicted).__name__}")
    for name, items in (("loaded", loaded), ("unloaded", unloaded)):
        if items is not None and not check_instance(items, name, (list, tuple), "a list of Trajectory"):
            raise ArgumentError(f"{name}: no trajectory given")

    def poses(items):
        """Positions and torques of the still poses of ``items``, pooled (``tolerance`` and ``min_duration`` checked
        below, before any work)."""
        return (np.concatenate(a) for a in zip(*(still_poses(item, tolerance, min_duration)[:2] for item in items)))

    tolerance, min_duration = _check_still(tolerance, min_duration)     # as floats, for the message below
    q, tau = poses(loaded)
    P, n = q.shape
    sources = ", ".join(item.source for item in loaded)
    if P < MIN_POSES:
        raise DataError(f"{sources}: {P} still pose(s) found (held ≥ {min_duration:g} s within {tolerance:g} rad), "
                        f"at least {MIN_POSES} needed; suggest_static_poses proposes some")
    zero = np.zeros_like(q)
    y = tau - predicted(q, zero, zero)
    if unloaded is not None:
        qu, tau_u = poses(unloaded)
        if not len(qu):
            raise DataError(f"{', '.join(u.source for u in unloaded)}: no still pose found")
        nearest, distance = _nearest(q, qu)
        far = np.flatnonzero(distance > MATCH_TOLERANCE)
        if len(far):
            raise DataError(f"{sources}: still pose {far[0] + 1} (q = {np.round(q[far[0]], 3).tolist()}) has no "
                            f"unloaded pose within {MATCH_TOLERANCE} rad: record the same poses without the payload")
        y = y - (tau_u[nearest] - predicted(qu[nearest], zero, zero))
    _check_target(y, "still torques")
    A = _gravity_columns(robot, q)                       # (P, n, 4)
    if carry is not None:
        A = A @ np.asarray(carry)[STATIC, STATIC]
    flat = A.reshape(P * n, 4)
    scale = max(np.abs(flat).max(), 1e-300)
    _, s, Vt = np.linalg.svd(flat / scale, full_matrices=False)
    rank = int((s > RANK_TOLERANCE * s[0]).sum())
    rows = Vt[:rank]                                      # the identifiable coordinates of (SX SY SZ M)
    B = A @ rows.T
    seen = np.abs(A).max(axis=(0, 2)) > RANK_TOLERANCE * scale          # joints whose torque gravity's payload moves
    if not seen.any():      # a wrist whose axes all lie along gravity: at rest the payload's weight is invisible
        raise DataError(f"{sources}: at these still poses the payload's weight loads no joint (every revolute axis "
                        "moving the last link along gravity, every prismatic one across it): its mass and centre of "
                        "mass cannot be found at rest; fit moving logs instead of static")
    sigma = np.ones(n)
    for _ in range(3):      # per-joint σ from the residual, each joint's degrees of freedom less its leverage
        Bw, yw = (B / sigma[None, :, None])[:, seen], (y / sigma)[:, seen]
        G = np.linalg.pinv(np.einsum("sjr,sjc->rc", Bw, Bw))
        theta = G @ np.einsum("sjr,sj->r", Bw, yw)
        leverage = np.einsum("sjr,rc,sjc->j", Bw, G, Bw)                 # the hat matrix's trace, per joint
        rss = ((y - B @ theta) ** 2).sum(axis=0)[seen]
        free = np.maximum(P - leverage, 0.5)
        sigma_seen = np.sqrt(rss / free)
        sigma_seen = np.where(sigma_seen > 0, sigma_seen, max(sigma_seen.max(), 1e-12))
        sigma = np.ones(n)
        sigma[seen] = sigma_seen
    Bw, yw = (B / sigma[None, :, None])[:, seen], (y / sigma)[:, seen]
    theta = np.linalg.lstsq(Bw.reshape(-1, rank), yw.ravel(), rcond=None)[0]
    dof = Bw.shape[0] * Bw.shape[1] - rank
    s2 = float(((yw - Bw @ theta) ** 2).sum() / dof) if dof > 0 else np.nan
    cov = rows.T @ (s2 * np.linalg.pinv(np.einsum("sjr,sjc->rc", Bw, Bw))) @ rows      # (4, 4) of SX SY SZ M
    first = rows.T @ theta
    m = max(float(first[3]), 0.0)
    c = first[:3] / m if m > 0 else np.zeros(3)
    J = np.zeros((4, 4))                                  # d(m, c)/d(SX SY SZ M)
    J[0, 3] = 1.0
    if m > 0:
        J[1:, :3] = np.eye(3) / m
        J[1:, 3] = -first[:3] / m ** 2
    std = np.sqrt(np.maximum(np.diag(J @ cov @ J.T), 0.0))
    # a parameter outside the row space the poses see is not determined: no standard deviation (NaN)
    unseen = np.linalg.norm(np.eye(4) - rows.T @ rows, axis=0) > 1e-9      # SX SY SZ M, rows orthonormal
    if unseen[3]:
        std[:] = np.nan
    std[1:][unseen[:3]] = np.nan       # no mass seen (clipped at 0): the result makes the centre's NaN
    p = payload_parameters(m, c, np.zeros((3, 3)))       # a point mass: the inertia is not seen at rest
    unconstrained = np.zeros(10)
    unconstrained[STATIC] = first
    covariance = np.zeros((10, 10))
    covariance[STATIC, STATIC] = cov
    identifiable = list(STATIC_NAMES) if rank == 4 else _echelon(rows, STATIC_NAMES)[1]
    fitted = A @ p[STATIC]                              # the poses' columns, as fitted above
    rmse = np.sqrt(np.mean((y - fitted) ** 2, axis=0))
    assert NAMES[STATIC] == STATIC_NAMES
    return dict(mass=m, com=c, inertia=np.zeros((3, 3)), mass_std=float(std[0]), com_std=std[1:],
                inertia_std=np.full((3, 3), np.nan), parameters=p, unconstrained=unconstrained, covariance=covariance,
                identifiable=identifiable, rank=rank, mode="static", n_samples=P, rmse=rmse,
                condition_number=float(_condition(A.reshape(P * n, 4))), poses=q)
