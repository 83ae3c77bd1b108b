"""Forward dynamics as an expression graph: the articulated-body algorithm, derived once per robot.

Featherstone's articulated-body algorithm (ABA) — Vereshchagin's sweep ("прогонка") at the
acceleration level, the O(N) solver Ivanov (2017) writes for trees — in three passes over the
tree, written for scalars so that, on :class:`~baseparam.dynamics.expressions.Expr` values, the
joint model's exact 0 and ±1 fold away and common subexpressions are shared (as for the
regressors):

1. root → tips: link velocities ``v_k = X_k v_p + S q̇_k``, velocity-product accelerations
   ``c_k = v_k × S q̇_k`` and bias forces ``p_k = v_k ×* I_k v_k``;
2. tips → root: articulated inertias ``I^A_k = I_k + Σ Xᵀ I^a X`` with ``U = I^A S``,
   ``D = Sᵀ U + IA``, ``u = τ − friction − Sᵀ p^A`` and ``I^a = I^A − U Uᵀ / D``,
   ``p^a = p^A + I^a c + U u / D``;
3. root → tips: ``a'_k = X_k a_p + c_k``, ``q̈_k = (u − Uᵀ a'_k) / D``, ``a_k = a'_k + S q̈_k``.

Gravity is a fictitious acceleration of the base (``a_0 = −g``). Each link works in its *joint
frame* (:mod:`baseparam.model.joint_model`), where its joint's motion is the unit z screw
``S = e_ωz`` (revolute) or ``e_vz`` (prismatic): U is a column of I^A and D one entry, and a
link's own inertia, which is constant there, is moved there beforehand in floating point
(:func:`forward_parameters`) — the graph's parameters are the link inertias in joint frames, so
one graph serves every parameter vector. A floating base is the root body of a 6-DOF joint
(S = 1): its articulated inertia is solved by a 6×6 LDLᵀ, gravity reaches it through its
quaternion.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.joint_model import JointModel, joint_models, product, si_readers
from ..model.urdf_update import pseudo_of
from .expressions import Graph, constant
from .floating import SWAP
from .regressor_graph import base_gravity, carry, carry_back, friction_rate, graph_step, motion_cross
from .spatial_graph import force_cross, inertia_back, matvec, rigid_inertia, solve_symmetric, symmetric
from .._validation import check_robot

# A pivot of the sweep within this of its scale (:func:`_pivot_scale`) is round-off: M(q) singular
PIVOT_ROUND_OFF = 1e-12
# the link parameters a graph reads, per body, in the joint frame: mass, first moments, inertia about the origin
BODY = ("m", "hx", "hy", "hz", "xx", "xy", "xz", "yy", "yz", "zz")


@dataclass(frozen=True)
class Slots:
    """Where each value sits in the graph's parameter vector (:func:`forward_parameters`).

    Attributes
    ----------
    bodies : list of int
        Start of each link's 10 :data:`BODY` values (joint frame), then (floating) the base's (frame 0).
    drives : dict
        (joint, kind) → index, kind in IA, FV, FC, FO, for the terms the description declares.
    size : int
    """

    bodies: list
    drives: dict
    size: int


def slots(robot) -> Slots:
    check_robot(robot)         # a public name: a non-robot is refused, not an AttributeError inside
    n = robot.n_dof
    bodies = [10 * k for k in range(n + (1 if robot.is_floating else 0))]
    drives, r = {}, 10 * len(bodies)
    for k, joint in enumerate(robot.joints):
        for kind in (("IA",) if joint.has_rotor_inertia else ()) + joint.friction_terms:
            drives[(k, kind)] = r
            r += 1
    return Slots(bodies, drives, r)


def frame_steps(robot, k, models):
    """The steps from joint k's parent frame (the parent's joint frame, or frame 0) to its joint frame."""
    model = models[k]
    parent = robot.parents[k]
    before = (models[parent].after if parent >= 0 else ()) + model.before
    return JointModel(model.type, before, model.motion, ()).steps()[0]


def forward_parameters(robot, links):
    """The graph's parameter vector from a robot's :class:`~baseparam.dynamics.samples.LinkParameters`.

    Each link's body (given in its link frame) moved to its joint frame ``J_k`` (the link frame is
    ``J_k · C′_k``): the pseudo-inertia transforms as ``T P Tᵀ``.

    Returns
    -------
    ndarray, shape (Slots.size,)
    """
    layout = slots(robot)
    out = np.zeros(layout.size)
    bodies = [(links.J[k], links.MS[k], links.M[k]) for k in range(robot.n_dof)]
    if robot.is_floating:
        bodies.append(links.base)
    models = joint_models(robot)
    length, cos_sin = si_readers(robot)
    for b, (J, MS, M) in enumerate(bodies):
        P = pseudo_of(J, MS, M)
        if b < robot.n_dof and models[b].after:
            T = product(models[b].after, length, cos_sin)
            P = T @ P @ T.T
        S = P[:3, :3]
        I = np.trace(S) * np.eye(3) - S
        out[layout.bodies[b]:layout.bodies[b] + 10] = [P[3, 3], *P[:3, 3], I[0, 0], I[0, 1], I[0, 2], I[1, 1],
                                                       I[1, 2], I[2, 2]]
    for (k, kind), r in layout.drives.items():
        out[r] = getattr(links, kind)[k]
    return out


def _body(g, P, start):
    m, hx, hy, hz, xx, xy, xz, yy, yz, zz = (P(start + i) for i in range(10))
    return rigid_inertia(g, m, [hx, hy, hz], [xx, xy, xz, yy, yz, zz])


def build_forward(robot, *, inverse_mass=False, pivots=False):
    """Expression graph of q̈ = FD(q, q̇, τ) with the parameters as inputs.

    Inputs: ``c``, ``s``, ``d`` (cos, sin, travel of joint k), ``sgn`` (sign of its q̇), ``qd`` and
    ``tau`` (by index into q̇ and τ, which lead with a floating base's 6), ``q`` (a floating base's
    quaternion, indices 3–6), ``p`` (:func:`forward_parameters`).

    With ``inverse_mass`` the graph of M(q)⁻¹ τ instead: q̇ read as zero, no gravity, no friction (the
    velocity terms fold away). Given Poisson impulses as τ, it is q̇ = M(q)⁻¹ p by the articulated
    inertias (Vereshchagin's sweep; :mod:`baseparam.dynamics.momenta`).

    With ``pivots`` also, as outputs ``n_v + 2k`` and ``n_v + 2k + 1``, joint k's pivot D and the scale it is
    round-off of when ``|D| < PIVOT_ROUND_OFF · |scale|`` (:func:`_pivot_scale`: M(q) singular).

    Returns
    -------
    graph : Graph
    outputs : list of (index into q̈, node id)
    """
    check_robot(robot)         # a public name: a non-robot is refused, not an AttributeError inside
    g = Graph()
    n, zero = robot.n_dof, g.zero
    nb = 6 if robot.is_floating else 0
    layout = slots(robot)
    inputs = {name: [g.input(name, k) for k in range(n)] for name in ("c", "s", "d", "sgn", "stb")}
    qd = inputs["qd"] = [zero if inverse_mass else g.input("qd", nb + k) for k in range(n)]
    tau = [g.input("tau", nb + k) for k in range(n)]

    def P(r):
        return g.input("p", r)
    models = joint_models(robot)
    steps = [[graph_step(g, robot, k, st, inputs) for st in frame_steps(robot, k, models)] for k in range(n)]
    axis = [m.motion_index() for m in models]
    parents = robot.parents
    if robot.is_floating:          # base twist [v, ω] and wrench [f, n] (public order) → angular first
        vb = [zero if inverse_mass else g.input("qd", i) for i in SWAP]
        base_I = _body(g, P, layout.bodies[n])
        base_p = [x - g.input("tau", i) for x, i in zip(force_cross(vb, matvec(base_I, vb)), SWAP)]
    else:
        vb = [zero] * 6

    v, c, IA, pA = [None] * n, [None] * n, [None] * n, [None] * n
    for k in range(n):                                         # 1. velocities and bias terms
        x = v[parents[k]] if parents[k] >= 0 else vb
        for st in steps[k]:
            x = carry(st, x)
        sq = [zero] * 6
        sq[axis[k]] = qd[k]
        c[k] = motion_cross(x, sq)
        x[axis[k]] = x[axis[k]] + qd[k]
        v[k] = x
        IA[k] = _body(g, P, layout.bodies[k])
        pA[k] = force_cross(x, matvec(IA[k], x))

    U, inv_D, u, ratios = [None] * n, [None] * n, [None] * n, []
    own, swept = list(IA), [None] * n                          # each link's body; its I^A once swept
    for k in reversed(range(n)):                               # 2. articulated inertias
        ax, I = axis[k], IA[k]
        swept[k] = I
        U[k] = [I[i][ax] for i in range(6)]
        D = U[k][ax]
        effort = tau[k] - pA[k][ax]
        drive = {kind: P(r) for (j, kind), r in layout.drives.items() if j == k and not (inverse_mass and kind != "IA")}
        if "IA" in drive:
            D = D + drive["IA"]
        for kind in ("FV", "FC", "FO", "FS"):
            if kind in drive:
                effort = effort - drive[kind] * friction_rate(g, inputs, k, kind)
        inv_D[k], u[k] = 1.0 / D, effort
        if pivots:
            # D and its scale, not their ratio: a product to compare costs the kernel less than a division
            root = parents[k] < 0 and not robot.is_floating
            # a fixed root's I^A is read for its axis's column alone: the diagonal of its own body and of its
            # children's I^A (each computed anyway) instead of its own, which would cost a fifth of the kernel
            bodies = [own[k]] + [swept[c] for c in range(k + 1, n) if parents[c] == k] if root else [I]
            ratios += [(nb + n + 2 * k, D), (nb + n + 2 * k + 1, _pivot_scale(bodies, ax, drive.get("IA")))]
        parent = parents[k]
        if parent < 0 and not robot.is_floating:
            continue
        W = [x * inv_D[k] for x in U[k]]
        Ia = _less_outer(I, W, U[k])
        pa = [a + b + w * effort for a, b, w in zip(pA[k], matvec(Ia, c[k]), W)]
        for st in reversed(steps[k]):
            Ia, pa = inertia_back(g, st, Ia), carry_back(st, pa)
        if parent >= 0:
            IA[parent] = _add(IA[parent], Ia)
            pA[parent] = [a + b for a, b in zip(pA[parent], pa)]
        else:
            base_I = _add(base_I, Ia)
            base_p = [a + b for a, b in zip(base_p, pa)]

    outputs = []
    gravity = [zero] * 3 if inverse_mass else [constant(g, x) for x in robot.gravity_si]
    if robot.is_floating:                                      # 3. accelerations (relative to gravity)
        ab = solve_symmetric(g, base_I, [-x for x in base_p])
        g0 = base_gravity(g, gravity)
        outputs += [(SWAP[j], ab[j] + g0[j - 3] if j >= 3 else ab[j]) for j in range(6)]       # public order
    else:
        ab = [zero] * 3 + [-x for x in gravity]
    a = [None] * n
    for k in range(n):
        x = a[parents[k]] if parents[k] >= 0 else ab
        for st in steps[k]:
            x = carry(st, x)
        x = [p + q for p, q in zip(x, c[k])]
        qdd = (u[k] - sum((U[k][i] * x[i] for i in range(6)), zero)) * inv_D[k]
        x[axis[k]] = x[axis[k]] + qdd
        a[k] = x
        outputs.append((nb + k, qdd))
    return g, [(i, node.i) for i, node in outputs + ratios]


def _pivot_scale(inertias, ax, rotor):
    """What a joint's pivot D = Sᵀ I^A S (+ its rotor inertia) is round-off of: the diagonal of I^A's block of its
    axis (the angular one of a revolute joint, the linear one of a prismatic joint), plus the rotor inertia; I^A is
    given as ``inertias`` to be summed (a fixed root: its body and its children's I^A, each about its own frame's
    origin: a scale that may be smaller than its own, which can only let a pivot of round-off pass, to
    :func:`~baseparam.dynamics._definite.require_regular`, never refuse a regular one).

    Each term is ≥ 0 for physical bodies (no cancellation in the scale), and it holds what a pivot of round-off was
    cancelled from: two coaxial joints with a massless link between them left 1e-17 kg·m² of a child's articulated
    inertia about the shared axis, beside its inertia about the other two (≥ that about the axis, by the triangle
    inequality), and q̈ came out as one of infinitely many solutions, or as 1e16."""
    block = range(0, 3) if ax < 3 else range(3, 6)
    scale = sum((I[i][i] for I in inertias for i in block[1:]), inertias[0][block[0]][block[0]])
    return scale + rotor if rotor is not None else scale


def _add(I, J):
    return symmetric(lambda i, j: I[i][j] + J[i][j])


def _less_outer(I, w, u):
    """I − w uᵀ of a symmetric 6×6 I, with w uᵀ symmetric (w = u / D): the articulated inertia passed on."""
    return symmetric(lambda i, j: I[i][j] - w[i] * u[j])


__all__ = ["BODY", "PIVOT_ROUND_OFF", "Slots", "build_forward", "forward_parameters", "frame_steps", "slots"]
