"""Inverse dynamics with standard parameters by the recursive Newton–Euler algorithm.

One recursion for every joint: angular velocity and acceleration and the linear acceleration of
each frame origin are carried from the base through the steps of each joint's model
``A = C · M(q + offset) · C′`` (:mod:`baseparam.model.joint_model`: constant shifts and elementary
rotations, the motion about or along z of the joint frame), and link wrenches are summed back the
same way; a joint's force is the z component of the wrench in its joint frame. Vectorized over
samples (samples last inside, in blocks of :data:`samples.CHUNK`).

A second implementation of Newton–Euler, beside the regressor graph's customized one
(:func:`~baseparam.dynamics.regressor_graph.build_inverse_dynamics`, compiled once per robot; base
models and the exported code run it). This one needs no build, and serves what the graph does not:
floating bases, reaction wrenches, gravity or friction left out (g, C q̇, a floating base's M by
columns, the generalized momenta M q̇). ``bench/bench_second_implementations.py`` prints both
speeds. They share the joint model and the parameter split; the tests check both against pinocchio.
"""
from __future__ import annotations

import numpy as np

from ..model.joint_model import exact_cos_sin, joint_models, to_si
from ..errors import ArgumentError
from ..model.value import BaseModel, takes_model
from .floating import public_layout, rotation_matrices
from .samples import CHUNK, link_parameters, robot_states


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


def _base_state(robot, links, q, qd, qdd, gravity):
    """ω, ω̇ and the frame-0 origin's acceleration less gravity, in frame 0, as lists of 3 (S,) arrays;
    and the joint rows of q, q̇, q̈. A floating base's come from its pose, twist and twist rate."""
    S = q.shape[1]
    zero = np.zeros(S)
    if not robot.is_floating:
        acc = [np.full(S, -g) for g in robot.gravity_si] if gravity else [zero] * 3
        return ([zero] * 3, [zero] * 3, acc), q, qd, qdd
    twist, rate = public_layout(qd[:6], axis=0), public_layout(qdd[:6], axis=0)        # [ω; v], [ω̇; v̇]
    w, v, dw, dv = list(twist[:3]), list(twist[3:]), list(rate[:3]), list(rate[3:])
    acc = [a + b for a, b in zip(dv, cross(w, v))]          # the origin's classical acceleration
    if gravity:
        g0 = rotation_matrices(q[3:7].T).transpose(0, 2, 1) @ robot.gravity_si     # R⁰ᵀ g, (S, 3)
        acc = [a - g0[:, i] for i, a in enumerate(acc)]
    return (w, dw, acc), q[7:], qd[6:], qdd[6:]


def _body_wrench(J, MS, M, w, dw, acc):
    """A rigid body's wrench (F, N) at its frame origin, (3, S) each, from ω, ω̇ and the origin's
    acceleration (3, S); MS broadcasts as (3, 1)."""
    F = M * acc + cross(dw, MS) + cross(w, cross(w, MS))
    N = J @ dw + cross(w, J @ w) + cross(MS, acc)
    return F, N


def _rnea(robot, links, q, qd, qdd, gravity=True, friction=True, plan=None, wrenches=None, frame="link"):
    """Joint forces of one block of samples.

    q : (n_q, S); qd, qdd : (n_v, S). Returns (n_v, S): a floating base's wrench [f, n] (frame 0) first.
    ``wrenches``, an (n_dof, 6, S) array, receives the wrench [n; f] each link's parent exerts on it,
    moment about the link frame origin, link frame axes (``frame='joint'``: about the joint frame's
    origin, in its axes).
    """
    base, q, qd, qdd = _base_state(robot, links, q, qd, qdd, gravity)
    n, S = q.shape
    plan = _plan(robot) if plan is None else plan
    parents = robot.parents
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
        state[k] = tuple(np.stack(np.broadcast_arrays(*v)) for v in (w, dw, acc))
    # backward: wrench of each subtree at its frame origin, frame coordinates
    f, m = [None] * (n + 1), [None] * (n + 1)          # f[-1], m[-1]: what the roots put on the base
    tau = np.empty((n, S))
    for k in range(n - 1, -1, -1):
        steps, moving, revolute, _ = plan[k]
        cs, travel = moves[k]
        F, N = _body_wrench(links.J[k], links.MS[k][:, None], links.M[k], *state[k])
        fk, nk = (F, N) if f[k] is None else (F + f[k], N + m[k])
        if wrenches is not None and frame == "link":
            wrenches[k, :3], wrenches[k, 3:] = nk, fk
        fk, nk = list(fk), list(nk)
        for step in reversed(steps[moving + 1:]):   # to the joint frame
            fk, nk = _carry_back(step, fk, nk, cs, travel)
        if wrenches is not None and frame == "joint":
            wrenches[k, :3], wrenches[k, 3:] = np.broadcast_arrays(*nk), np.broadcast_arrays(*fk)
        tau[k] = nk[2] if revolute else fk[2]
        p = parents[k]
        for step in reversed(steps[:moving + 1]):
            fk, nk = _carry_back(step, fk, nk, cs, travel)
        fp, mp = np.stack(np.broadcast_arrays(*fk)), np.stack(np.broadcast_arrays(*nk))
        f[p] = fp if f[p] is None else f[p] + fp
        m[p] = mp if m[p] is None else m[p] + mp
    tau += links.IA[:, None] * qdd
    if friction:
        tau += links.friction(qd)
    if not robot.is_floating:
        return tau
    J0, MS0, M0 = links.base
    F, N = _body_wrench(J0, MS0[:, None], M0, *(np.stack(np.broadcast_arrays(*v)) for v in base))
    if f[-1] is not None:
        F, N = F + f[-1], N + m[-1]
    return np.concatenate([public_layout(np.concatenate([N, F]), axis=0), tau])


def blocked(robot, links, q, qd, qdd, wrenches=None, **flags):
    """Newton–Euler over many samples (checked arrays (S, n_q), (S, n_v), (S, n_v)), in blocks of
    :data:`CHUNK`: τ (S, n_v); ``wrenches`` (S, n_dof, 6), if given, receives the reaction wrenches [n; f]."""
    out = np.empty_like(qd)
    plan = _plan(robot)
    for s0 in range(0, q.shape[0], CHUNK):
        sl = slice(s0, s0 + CHUNK)
        block = None if wrenches is None else np.empty((robot.n_dof, 6, len(q[sl])))
        out[sl] = _rnea(robot, links, q[sl].T, qd[sl].T, qdd[sl].T, plan=plan, wrenches=block, **flags).T
        if wrenches is not None:
            wrenches[sl] = block.transpose(2, 0, 1)
    return out


@takes_model("p", "q", "qd", "qdd", "parameters")
def inverse_dynamics(model, q, qd, qdd):
    """Joint torques (forces for prismatic joints) of a robot with standard parameters p.

    τ = M(q) q̈ + C(q, q̇) q̇ + g(q) + IA q̈ + friction(q̇), everything SI. For a floating base
    (:attr:`Robot.is_floating`) the first six entries are the wrench [f, n] the base body needs
    (frame-0 axes, moment about its origin; zero when it floats freely).

    Parameters
    ----------
    model : Model or BaseModel
        The robot and its parameters (a base model: customized Newton–Euler in base parameters,
        τ = W_b p_base, as :meth:`BaseParameters.inverse_dynamics`). Deprecated: ``robot, p, q, qd,
        qdd, parameters='pseudo'``, p the standard parameters in ``ColumnLayout(robot, parameters)`` order.
    q : array_like, shape (n_samples, n_q) or (n_q,)
        ``n_q = n_dof`` (+ 7 for a floating base: position, quaternion x y z w).
    qd, qdd : array_like, shape (n_samples, n_v) or (n_v,)
        ``n_v = n_dof`` (+ 6 for a floating base: its twist [v, ω] in frame 0, and its derivative).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,) for one sample)
    """
    if isinstance(model, BaseModel):          # its base set's customized Newton–Euler (regressors.newton_euler_base)
        return model.base.inverse_dynamics(model.values(), q, qd, qdd)
    return _torques(model, {"q": q, "qd": qd, "qdd": qdd})


def _torques(model, states, **flags):
    """:func:`blocked` of a model at checked ``states`` ({'q': …, 'qd': …, 'qdd': …}, the rates zero where
    left out); one sample in, one out."""
    robot = model.robot
    (q, *rates), single = robot_states(robot, **states)
    zero = np.zeros((q.shape[0], robot.n_v))
    qd, qdd = (rates + [zero, zero])[:2]
    tau = blocked(robot, link_parameters(model), q, qd, qdd, **flags)
    return tau[0] if single else tau


@takes_model("p", "q", "qd", "qdd", "parameters", "frame")
def reaction_wrenches(model, q, qd, qdd, frame="link"):
    """The wrench each link's parent exerts on it through its joint: actuation and constraint.

    ``w[s, k] = [f, n]``: force and moment (about the origin of link k's frame) that link k's parent
    (or the base) exerts on link k through joint k, both in link k's frame axes, SI. Its component
    along the joint's motion is the joint's torque less rotor inertia and friction (IA q̈ + friction
    act in the drive, not between the links); the rest holds the joint together.

    This is the backward recursion of Newton–Euler (the *recursive equivalent* of Liu, Hu & Zhang's
    constraint force algorithm): the wrench through joint k is the rate of change of the momentum of
    the subtree it carries less the gravity acting on that subtree, summed from the tips. It costs
    O(N) per sample, the same as inverse dynamics, and needs no constraint bases W_j and no solve;
    the CFA's block-tridiagonal system A F_S = −B F_T gives the same constraint forces when the
    accelerations are those of the forward dynamics (both are Newton–Euler for every body; the CFA
    solves for F_S first, O(N³) as published or O(N) serialized, and q̈ with it). Give ``qdd`` from
    :func:`~baseparam.forward_dynamics` to get the wrenches of a simulated motion.

    Parameters
    ----------
    model : Model
        (Deprecated: ``robot, p, …, parameters='pseudo'``.) Not a base model: the wrenches depend on
        more than the base parameters.
    q : array_like, shape (n_samples, n_q) or (n_q,)
    qd, qdd : array_like, shape (n_samples, n_v) or (n_v,)
    frame : {'link', 'joint'}
        ``'joint'``: the same wrench about the origin of joint k's *joint frame* (where its motion is
        about or along z; :mod:`baseparam.model.joint_model`), in that frame's axes. There the
        actuated part is one component — n_z (revolute) or f_z (prismatic) — and the other five are
        the constraint part (Liu et al.'s F_S).

    Returns
    -------
    ndarray, shape (n_samples, n_dof, 6) (or (n_dof, 6) for one sample)
    """
    links = link_parameters(model, "reaction_wrenches")
    robot = model.robot
    if frame not in ("link", "joint"):
        raise ArgumentError(f"frame: expected 'link' or 'joint', got {frame!r}")
    (q, qd, qdd), single = robot_states(robot, q=q, qd=qd, qdd=qdd)
    wrenches = np.empty((q.shape[0], robot.n_dof, 6))
    blocked(robot, links, q, qd, qdd, wrenches=wrenches, frame=frame)
    wrenches = public_layout(wrenches)
    return wrenches[0] if single else wrenches


@takes_model("p", "q", "parameters")
def gravity_torque(model, q):
    """g(q): joint torques holding the robot at rest against gravity (for a floating base, the
    wrench on the base first: its weight).

    ``model, q`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, parameters='pseudo'``).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    return _torques(model, {"q": q}, friction=False)


@takes_model("p", "q", "qd", "parameters")
def coriolis_torque(model, q, qd):
    """C(q, q̇) q̇: centrifugal and Coriolis torques (no gravity, no friction).

    ``model, q, qd`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, qd, parameters='pseudo'``).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    return _torques(model, {"q": q, "qd": qd}, gravity=False, friction=False)


@takes_model("p", "qd", "parameters")
def friction_torque(model, qd):
    """FV q̇ + FC c(q̇) + FO + FS s(q̇) for the joints that declare friction (c: sign(q̇) or the joint's
    friction model, :mod:`baseparam.model.friction`; zero on a floating base's twist).

    ``model, qd`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, qd, parameters='pseudo'``).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    robot = model.robot
    (qd,), single = robot_states(robot, qd=qd)
    tau = np.zeros_like(qd)
    joints = slice(robot.n_v - robot.n_dof, None)
    tau[:, joints] = link_parameters(model).friction(qd[:, joints].T).T
    return tau[0] if single else tau
