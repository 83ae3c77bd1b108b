"""Inverse dynamics with standard parameters by the recursive Newton–Euler algorithm.

Written in the classical form on the DH frames (Luh–Walker–Paul for the standard convention,
Khalil–Kleinfinger for the modified one): angular velocity and acceleration and the linear
acceleration of each frame origin are propagated from the base, link wrenches are summed back.
It shares nothing with :mod:`baseparam.dynamics.regressors` beyond the parameter split, so the two check
each other. Vectorized over samples (samples last inside, in blocks of :data:`samples.CHUNK`).
"""
from __future__ import annotations

import numpy as np

from ._samples import CHUNK, LinkParameters, as_samples, states


def cross(a, b):
    """Cross product of (3, S) vectors (component rows: several times faster than np.cross here)."""
    return np.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _rz_t(c, s, x):
    """Rz(θ)ᵀ x for x of shape (3, S)."""
    return np.stack([c * x[0] + s * x[1], c * x[1] - s * x[0], x[2]])


def _rz(c, s, x):
    return np.stack([c * x[0] - s * x[1], s * x[0] + c * x[1], x[2]])


def _rx_t(c, s, x):
    return np.stack([x[0], c * x[1] + s * x[2], c * x[2] - s * x[1]])


def _rx(c, s, x):
    return np.stack([x[0], c * x[1] - s * x[2], s * x[1] + c * x[2]])


def _rnea(robot, links, q, qd, qdd, gravity=True, friction=True):
    """Joint forces of one block of samples. q, qd, qdd: (n_dof, S). Returns (n_dof, S)."""
    n, S = q.shape
    dh = robot.dh_si()
    parents = robot.parents
    ez = np.array([0.0, 0.0, 1.0])[:, None]
    zero = np.zeros((3, S))
    base_acc = np.broadcast_to(-robot.gravity_si[:, None], (3, S)) if gravity else zero
    w, dw, acc, P, trig = [None] * n, [None] * n, [None] * n, [None] * n, [None] * n
    for k, joint in enumerate(robot.joints):
        alpha, a, d, theta, offset = dh[k]
        p = parents[k]
        wp, dwp, ap = (w[p], dw[p], acc[p]) if p >= 0 else (zero, zero, base_acc)
        th, dd = (q[k] + offset, np.full(S, d)) if joint.is_revolute else (np.full(S, theta), q[k] + offset)
        c, s, ca, sa = np.cos(th), np.sin(th), np.cos(alpha), np.sin(alpha)
        trig[k] = (c, s, ca, sa)
        rev = joint.is_revolute
        if robot.convention == "standard":      # rotate about / slide along z_{parent}, then Rz(θ)Rx(α)
            Pk = np.stack([a * c, a * s, dd])
            wk = wp + ez * qd[k] if rev else wp
            dwk = dwp + ez * qdd[k] + cross(wp, ez * qd[k]) if rev else dwp
            ak = ap + cross(dwk, Pk) + cross(wk, cross(wk, Pk))
            if not rev:
                ak = ak + 2 * cross(wp, ez * qd[k]) + ez * qdd[k]
            back = lambda x: _rx_t(ca, sa, _rz_t(c, s, x))  # noqa: E731  parent → frame k
            w[k], dw[k], acc[k] = back(wk), back(dwk), back(ak)
        else:                                   # Rx(α) Tx(a) first, then rotate about / slide along z_k
            Pk = np.stack([np.full(S, a), -sa * dd, ca * dd])
            back = lambda x: _rz_t(c, s, _rx_t(ca, sa, x))  # noqa: E731
            wb, dwb = back(wp), back(dwp)
            ab = back(ap + cross(dwp, Pk) + cross(wp, cross(wp, Pk)))
            if rev:
                w[k], dw[k], acc[k] = wb + ez * qd[k], dwb + ez * qdd[k] + cross(wb, ez * qd[k]), ab
            else:
                w[k], dw[k] = wb, dwb
                acc[k] = ab + 2 * cross(wb, ez * qd[k]) + ez * qdd[k]
        P[k] = Pk
    # backward: wrench of each subtree at its frame origin, frame coordinates
    f = [None] * n
    m = [None] * n
    tau = np.empty((n, S))
    for k in range(n - 1, -1, -1):
        MS = links.MS[k][:, None]                   # (3, 1): broadcasts over the samples
        F = links.M[k] * acc[k] + cross(dw[k], MS) + cross(w[k], cross(w[k], MS))
        N = links.J[k] @ dw[k] + cross(w[k], links.J[k] @ w[k]) + cross(MS, acc[k])
        f[k] = F if f[k] is None else f[k] + F
        m[k] = N if m[k] is None else m[k] + N
        c, s, ca, sa = trig[k]
        fwd = (lambda x: _rz(c, s, _rx(ca, sa, x))) if robot.convention == "standard" else \
            (lambda x: _rx(ca, sa, _rz(c, s, x)))    # frame k → parent coordinates
        fp = fwd(f[k])
        mp = fwd(m[k]) + cross(P[k], fp)            # moment about the parent origin
        if robot.convention == "standard":
            tau[k] = mp[2] if robot.joints[k].is_revolute else fp[2]
        else:
            tau[k] = m[k][2] if robot.joints[k].is_revolute else f[k][2]
        p = parents[k]
        if p >= 0:
            f[p] = fp if f[p] is None else f[p] + fp
            m[p] = mp if m[p] is None else m[p] + mp
    tau += links.IA[:, None] * qdd
    if friction:
        tau += links.friction(qd)
    return tau


def _blocked(robot, links, q, qd, qdd, **flags):
    out = np.empty_like(q)
    for s0 in range(0, q.shape[0], CHUNK):
        sl = slice(s0, s0 + CHUNK)
        out[sl] = _rnea(robot, links, q[sl].T, qd[sl].T, qdd[sl].T, **flags).T
    return out


def inverse_dynamics(robot, p, q, qd, qdd, parameters="pseudo"):
    """Joint torques (forces for prismatic joints) of a robot with standard parameters p.

    τ = M(q) q̈ + C(q, q̇) q̇ + g(q) + IA q̈ + friction(q̇), everything SI.

    Parameters
    ----------
    robot : Robot
    p : array_like, shape (n_standard,)
        Standard parameters in the column order of ``ColumnLayout(robot, parameters)``.
    q, qd, qdd : array_like, shape (n_samples, n_dof) or (n_dof,)
    parameters : {'pseudo', 'khalil'}

    Returns
    -------
    ndarray, shape (n_samples, n_dof) (or (n_dof,) for one sample)
    """
    (q, qd, qdd), single = states(robot.n_dof, q=q, qd=qd, qdd=qdd)
    tau = _blocked(robot, LinkParameters(robot, p, parameters), q, qd, qdd)
    return tau[0] if single else tau


def gravity_torque(robot, p, q, parameters="pseudo"):
    """g(q): joint torques holding the robot at rest against gravity.

    Parameters
    ----------
    robot : Robot
    p : array_like, shape (n_standard,)
    q : array_like, shape (n_samples, n_dof) or (n_dof,)
    parameters : {'pseudo', 'khalil'}

    Returns
    -------
    ndarray, shape (n_samples, n_dof) (or (n_dof,))
    """
    q, single = as_samples("q", q, robot.n_dof)
    zero = np.zeros_like(q)
    tau = _blocked(robot, LinkParameters(robot, p, parameters), q, zero, zero, friction=False)
    return tau[0] if single else tau


def coriolis_torque(robot, p, q, qd, parameters="pseudo"):
    """C(q, q̇) q̇: centrifugal and Coriolis torques (no gravity, no friction).

    Parameters
    ----------
    robot : Robot
    p : array_like, shape (n_standard,)
    q, qd : array_like, shape (n_samples, n_dof) or (n_dof,)
    parameters : {'pseudo', 'khalil'}

    Returns
    -------
    ndarray, shape (n_samples, n_dof) (or (n_dof,))
    """
    (q, qd), single = states(robot.n_dof, q=q, qd=qd)
    tau = _blocked(robot, LinkParameters(robot, p, parameters), q, qd, np.zeros_like(q),
                   gravity=False, friction=False)
    return tau[0] if single else tau


def friction_torque(robot, p, qd, parameters="pseudo"):
    """FV q̇ + FC sign(q̇) + FO for the joints that declare friction.

    Parameters
    ----------
    robot : Robot
    p : array_like, shape (n_standard,)
    qd : array_like, shape (n_samples, n_dof) or (n_dof,)
    parameters : {'pseudo', 'khalil'}

    Returns
    -------
    ndarray, shape (n_samples, n_dof) (or (n_dof,))
    """
    qd, single = as_samples("qd", qd, robot.n_dof)
    tau = LinkParameters(robot, p, parameters).friction(qd.T).T
    return tau[0] if single else tau
