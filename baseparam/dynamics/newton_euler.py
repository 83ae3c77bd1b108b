"""Inverse dynamics with standard parameters by the recursive Newton–Euler algorithm.

One recursion for every joint: angular velocity and acceleration and the linear acceleration of
each frame origin are carried from the base through the steps of each joint's model
``A = C · M(q + offset) · C′`` (:mod:`baseparam.model.joint_model`: constant shifts and elementary
rotations, the motion about or along z of the joint frame), and link wrenches are summed back the
same way; a joint's force is the z component of the wrench in its joint frame. It shares nothing
with :mod:`baseparam.dynamics.regressors` beyond the joint model and the parameter split; the
tests check both against independent DH products and pinocchio. Vectorized over samples (samples
last inside, in blocks of :data:`samples.CHUNK`).
"""
from __future__ import annotations

import numpy as np

from ..model.joint_model import exact_cos_sin, joint_models, to_si
from ..model.robot import require_robot
from .samples import CHUNK, LinkParameters, as_samples, states


def cross(a, b):
    """Cross product of (3, S) vectors (component rows: several times faster than np.cross here)."""
    return np.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


class _Step:
    """A joint-model step as numbers: shift P (per component: a constant, plus the joint's travel
    q + offset where it slides) and one rotation in the plane (i, j) by (c, s), ``None`` for the
    joint's angle, or no rotation."""

    def __init__(self, robot, step):
        constant, travels = [0.0, 0.0, 0.0], [False, False, False]
        for f in step.shift:     # a constant shift along the travel's own axis adds to it (a URDF origin)
            if f.variable:
                travels[f.index] = True
            else:
                constant[f.index] += to_si(robot, f)
        self.shift = [(i, c, t) for i, (c, t) in enumerate(zip(constant, travels)) if t or c != 0.0]
        r = step.rotation
        self.turn = None
        if r is not None:
            i = r.index
            self.plane = ((i + 1) % 3, (i + 2) % 3)
            self.turn = None if r.variable else exact_cos_sin(r.value, robot.angle_unit)[:2]
            if not r.variable and self.turn == (1.0, 0.0):
                self.turn = self.plane = None       # the identity: nothing to do
        self.rotates = self.plane is not None if r is not None else False

    def shift_values(self, travel):
        return [(i, (travel + c if c else travel) if t else c) for i, c, t in self.shift]

    def rotate(self, x, cs, back):
        """R x, or Rᵀ x when ``back``; x is a list of 3 arrays, returned as a new list."""
        if not self.rotates:
            return x
        i, j = self.plane
        c, s = self.turn if self.turn is not None else cs
        if back:
            s = -s
        y = list(x)
        if self.turn is not None and s == 0.0:          # half turn (or none)
            y[i], y[j] = (x[i], x[j]) if c == 1.0 else (-x[i], -x[j])
        elif self.turn is not None and c == 0.0:        # quarter turn: a swap
            y[i], y[j] = (-x[j], x[i]) if s == 1.0 else (x[j], -x[i])
        else:
            y[i], y[j] = c * x[i] - s * x[j], s * x[i] + c * x[j]
        return y


def _plan(robot):
    """Per joint: (steps, index of the moving step, revolute?)."""
    out = []
    for model in joint_models(robot):
        steps, moving = model.steps()
        out.append(([_Step(robot, st) for st in steps], moving, model.is_revolute,
                    to_si(robot, model.motion)))
    return out


def _u_times(w, dw, P):
    """(ω̇ × P + ω × (ω × P)) for a sparse shift P = [(axis, value)], as a list of 3 (arrays or 0)."""
    out = [0.0, 0.0, 0.0]
    sq = None
    for i, p in P:
        j, k = (i + 1) % 3, (i + 2) % 3
        # column i of U = [ω̇]× + [ω]×[ω]×: e_j (ω̇_k + ω_i ω_j) + e_k (ω_i ω_k − ω̇_j) − e_i (|ω|² − ω_i²)
        if sq is None:
            sq = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
        out[j] = out[j] + (dw[k] + w[i] * w[j]) * p
        out[k] = out[k] + (w[i] * w[k] - dw[j]) * p
        out[i] = out[i] - (sq - w[i] * w[i]) * p
    return out


def _cross_shift(P, f):
    """P × f for a sparse shift P = [(axis, value)] and a list of 3 arrays."""
    out = [0.0, 0.0, 0.0]
    for i, p in P:
        j, k = (i + 1) % 3, (i + 2) % 3        # e_i × e_j = e_k, e_i × e_k = −e_j
        out[k] = out[k] + p * f[j]
        out[j] = out[j] - p * f[k]
    return out


def _carry(step, w, dw, acc, cs, travel):
    """ω, ω̇ and the origin's acceleration from the frame before a step to the frame after it."""
    P = step.shift_values(travel)
    if P:
        acc = [a + u for a, u in zip(acc, _u_times(w, dw, P))]
    return step.rotate(w, cs, True), step.rotate(dw, cs, True), step.rotate(acc, cs, True)


def _carry_back(step, f, n, cs, travel):
    """A wrench (force f, moment n about the origin) from the frame after a step to the one before."""
    f, n = step.rotate(f, cs, False), step.rotate(n, cs, False)
    P = step.shift_values(travel)
    if P:
        n = [a + b for a, b in zip(n, _cross_shift(P, f))]
    return f, n


def _rnea(robot, links, q, qd, qdd, gravity=True, friction=True, plan=None):
    """Joint forces of one block of samples. q, qd, qdd: (n_dof, S). Returns (n_dof, S)."""
    n, S = q.shape
    plan = _plan(robot) if plan is None else plan
    parents = robot.parents
    zero = np.zeros(S)
    base = ([zero] * 3, [zero] * 3,
            [np.full(S, -g) for g in robot.gravity_si] if gravity else [zero] * 3)
    state, moves = [None] * n, [None] * n
    for k in range(n):
        steps, moving, revolute, offset = plan[k]
        w, dw, acc = state[parents[k]] if parents[k] >= 0 else base
        x = q[k] + offset if offset else q[k]
        cs, travel = ((np.cos(x), np.sin(x)), None) if revolute else (None, x)
        moves[k] = (cs, travel)
        for step in steps[:moving + 1]:
            w, dw, acc = _carry(step, w, dw, acc, cs, travel)
        # the joint's own motion, about / along z of the joint frame
        u, du = qd[k], qdd[k]
        if revolute:
            dw = [dw[0] + w[1] * u, dw[1] - w[0] * u, dw[2] + du]
            w = [w[0], w[1], w[2] + u]
        else:                                   # the origin slides: q̈ z + 2 ω × q̇ z
            acc = [acc[0] + 2.0 * w[1] * u, acc[1] - 2.0 * w[0] * u, acc[2] + du]
        for step in steps[moving + 1:]:
            w, dw, acc = _carry(step, w, dw, acc, cs, travel)
        state[k] = (w, dw, acc)
    # backward: wrench of each subtree at its frame origin, frame coordinates
    f, m = [None] * n, [None] * n
    tau = np.empty((n, S))
    for k in range(n - 1, -1, -1):
        steps, moving, revolute, _ = plan[k]
        cs, travel = moves[k]
        w, dw, acc = (np.stack(v) for v in state[k])
        MS = links.MS[k][:, None]                   # (3, 1): broadcasts over the samples
        F = links.M[k] * acc + cross(dw, MS) + cross(w, cross(w, MS))
        N = links.J[k] @ dw + cross(w, links.J[k] @ w) + cross(MS, acc)
        fk, nk = (F, N) if f[k] is None else (F + f[k], N + m[k])
        fk, nk = list(fk), list(nk)
        for step in reversed(steps[moving + 1:]):   # to the joint frame
            fk, nk = _carry_back(step, fk, nk, cs, travel)
        tau[k] = nk[2] if revolute else fk[2]
        p = parents[k]
        if p >= 0:
            for step in reversed(steps[:moving + 1]):
                fk, nk = _carry_back(step, fk, nk, cs, travel)
            fp, mp = np.stack(np.broadcast_arrays(*fk)), np.stack(np.broadcast_arrays(*nk))
            f[p] = fp if f[p] is None else f[p] + fp
            m[p] = mp if m[p] is None else m[p] + mp
    tau += links.IA[:, None] * qdd
    if friction:
        tau += links.friction(qd)
    return tau


def _blocked(robot, links, q, qd, qdd, **flags):
    out = np.empty_like(q)
    plan = _plan(robot)
    for s0 in range(0, q.shape[0], CHUNK):
        sl = slice(s0, s0 + CHUNK)
        out[sl] = _rnea(robot, links, q[sl].T, qd[sl].T, qdd[sl].T, plan=plan, **flags).T
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
    require_robot(robot)
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
    require_robot(robot)
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
    require_robot(robot)
    (q, qd), single = states(robot.n_dof, q=q, qd=qd)
    tau = _blocked(robot, LinkParameters(robot, p, parameters), q, qd, np.zeros_like(q),
                   gravity=False, friction=False)
    return tau[0] if single else tau


def friction_torque(robot, p, qd, parameters="pseudo"):
    """FV q̇ + FC c(q̇) + FO + FS s(q̇) for the joints that declare friction (c: sign(q̇) or the joint's
    friction model, :mod:`baseparam.model.friction`).

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
    require_robot(robot)
    qd, single = as_samples("qd", qd, robot.n_dof)
    tau = LinkParameters(robot, p, parameters).friction(qd.T).T
    return tau[0] if single else tau
