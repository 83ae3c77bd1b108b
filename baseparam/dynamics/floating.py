"""A floating base: its pose (position and unit quaternion) and twist in the state arrays.

Convention (pinocchio's free-flyer; docs/formats.md, "Floating base"): ``q = [x, y, z, qx, qy, qz,
qw, q_1 … q_N]`` — the position of the frame-0 origin in the world and the unit quaternion (scalar
last) of frame 0's orientation: its rotation matrix R maps frame-0 coordinates to world coordinates;
``q̇ = [v, ω, q̇_1 … q̇_N]`` with v the velocity of the frame-0 origin and ω the angular
velocity, both in frame-0 axes; ``q̈`` holds the time derivative of those components; τ starts with
the wrench [f, n] applied to the base body (frame-0 axes, moment about the frame-0 origin).

That public order is linear first; every recursion inside works angular first, ``[ω; v]`` and
``[n; f]`` (the expression graphs' order, Featherstone's). :func:`public_layout` is the one place
where a spatial vector crosses between the two.
"""
from __future__ import annotations

import numpy as np

SWAP = (3, 4, 5, 0, 1, 2)          # the permutation between the two orders (its own inverse)


def public_layout(x, axis=-1):
    """A spatial vector in the public order from the internal one (``[n; f] → [f; n]``), or back: the
    halves swapped along ``axis`` (length 6), a new array."""
    return np.take(x, SWAP, axis=axis)


def with_base_wrench(robot, tau):
    """τ (..., n_dof) of a floating base's joints alone with the base's zero wrench in front (..., n_v); any
    other τ as it is."""
    if robot.is_floating and tau.shape[-1:] == (robot.n_dof,):
        return np.concatenate([np.zeros(tau.shape[:-1] + (6,)), tau], axis=-1)
    return tau


def rotation_rows(x, y, z, w):
    """The rotation matrix of a unit quaternion (x, y, z, w) as nested lists, for any arithmetic
    (floats, arrays over samples, expression-graph values)."""
    return [[1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)],
            [2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)],
            [2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)]]


def rotation_matrices(quat):
    """R (world ← frame 0) of unit quaternions (x, y, z, w).

    Parameters
    ----------
    quat : ndarray, shape (n_samples, 4)

    Returns
    -------
    ndarray, shape (n_samples, 3, 3)
    """
    return np.stack([np.stack(row, -1) for row in rotation_rows(*(quat[:, i] for i in range(4)))], -2)


def pose_rate(q, qd):
    """d/dt of the base pose: ṗ = R v, and the quaternion's rate ½ q ⊗ (ω, 0).

    Parameters
    ----------
    q : ndarray, shape (n_samples, ≥ 7)
    qd : ndarray, shape (n_samples, ≥ 6)

    Returns
    -------
    ndarray, shape (n_samples, 7)
    """
    if len(q) == 1:
        return _one_pose_rate(q[0], qd[0])
    quat, twist = q[:, 3:7], public_layout(qd[:, :6])
    w, v = twist[:, :3], twist[:, 3:]
    x, y, z, s = (quat[:, i] for i in range(4))
    wx, wy, wz = (w[:, i] for i in range(3))
    dquat = 0.5 * np.stack([s * wx + y * wz - z * wy, s * wy + z * wx - x * wz, s * wz + x * wy - y * wx,
                            -(x * wx + y * wy + z * wz)], -1)
    return np.concatenate([np.einsum("sij,sj->si", rotation_matrices(quat), v), dquat], axis=1)


def _one_pose_rate(q, qd):
    """:func:`pose_rate` of one sample (1, 7), its numbers to the bit: the rotation and the quaternion's rate on
    floats, R v by the same einsum. A simulation's every evaluation takes it: the (1,)-arrays stacked into R and the
    rate would be most of a floating base's step in (q, p)."""
    x, y, z, s = q[3:7].tolist()
    v, (wx, wy, wz) = qd[None, :3], qd[3:6].tolist()
    linear = np.einsum("sij,sj->si", np.array([rotation_rows(x, y, z, s)]), v)
    dquat = [[0.5 * (s * wx + y * wz - z * wy), 0.5 * (s * wy + z * wx - x * wz), 0.5 * (s * wz + x * wy - y * wx),
              0.5 * -(x * wx + y * wy + z * wz)]]
    return np.concatenate([linear, dquat], axis=1)


def configuration_rate(robot, q, qd):
    """q̇ as the derivative of the configuration ``q`` (n_q columns): for a floating base the pose's
    rate (:func:`pose_rate`) replaces the twist; otherwise ``qd`` itself.

    Parameters
    ----------
    q : ndarray, shape (n_samples, n_q)
    qd : ndarray, shape (n_samples, n_v)

    Returns
    -------
    ndarray, shape (n_samples, n_q)
    """
    return np.concatenate([pose_rate(q, qd), qd[:, 6:]], axis=1) if robot.is_floating else qd
