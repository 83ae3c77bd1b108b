"""The joint-torque regressors as an expression graph, derived once per robot.

The algorithm is the spatial form of Newton–Euler written for scalars, in link coordinates:
link velocities and accelerations are carried from the base through the joint model's steps
(``ω' = Rᵀω``, ``v' = Rᵀ(v + ω × P)``), the axis s_j of every joint that moves link k is carried
the same way, and the torque of joint j due to link k's parameters is ``s_jᵀ G_k`` with G_k the
link wrench as a linear map of its ten parameters (:func:`wrench_map`). On :class:`~.expressions.Expr` values
the exact 0 and ±1 of the joint models fold away and common subexpressions are shared, so the graph
holds only the operations this robot needs. The Slotine–Li variant uses the Christoffel-consistent
``B(v) v_r`` of Echeandia & Wensing (2021):

    f = I A + ½(v ×* I v_r + v_r ×* I v),   A = a_r − ½ v × v_r,

which is Newton–Euler's ``I a + v ×* I v`` when v_r = v.
"""
from __future__ import annotations

from dataclasses import dataclass

from .expressions import Graph, constant
from ..model.joint_model import exact_cos_sin, joint_model, joint_models, to_si
from ..model.parameters import ColumnLayout
from .floating import SWAP, rotation_rows

# [y]× entries: (row, col, component, sign) with [y]×[row, col] = sign · y[component]
SKEW = ((0, 1, 2, -1), (0, 2, 1, 1), (1, 0, 2, 1), (1, 2, 0, -1), (2, 0, 1, -1), (2, 1, 0, 1))
SNAP = 1e-15    # DH cosines/sines this close to 0 or ±1 are those exactly (float round-off of 90°)


def ancestors(robot):
    """Per joint k (0-based), the joints whose motion moves link k: its ancestors and itself, base first."""
    out = []
    for k in range(robot.n_dof):
        chain, j = [], k
        while j >= 0:
            chain.append(j)
            j = robot.parents[j]
        out.append(chain[::-1])
    return out


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def motion_cross(x, y):
    """Spatial motion cross product of 6-lists [ω; v]."""
    xw, xv, yw, yv = x[:3], x[3:], y[:3], y[3:]
    return cross(xw, yw) + [p + r for p, r in zip(cross(xw, yv), cross(xv, yw))]


def wrench_map(w, wr, dw, acc, pseudo=False):
    """G (6 × 10 nested lists) with f = G p: a link's wrench at its frame origin, linear in its
    parameters (Khalil order XX XY XZ YY YZ ZZ MX MY MZ M; with ``pseudo`` the inertia columns those of
    the pseudo parameters, :func:`to_pseudo`).

    Parameters
    ----------
    w, wr : list of 3
        Angular velocity of the link, actual and reference (equal for inverse dynamics).
    dw : list of 3
        ω̇_r − ½ ω × ω_r (ω̇ for inverse dynamics).
    acc : list of 3
        a_r + ω_r × v at the frame origin (the origin's classical acceleration for inverse dynamics).
    """
    zero = w[0] * 0.0
    G = [[zero] * 10 for _ in range(6)]
    # ω × J ω_r symmetrized: products of ω and ω_r
    p = [[w[i] * wr[i] if i == j else 0.5 * (w[i] * wr[j] + wr[i] * w[j]) if w is not wr else w[i] * w[j]
          for j in range(3)] for i in range(3)]
    XX, XY, XZ, YY, YZ, ZZ = range(6)
    G[0][XX], G[0][XY], G[0][XZ] = dw[0], dw[1] - p[0][2], dw[2] + p[0][1]
    G[0][YY], G[0][YZ], G[0][ZZ] = -p[1][2], p[1][1] - p[2][2], p[1][2]
    G[1][XX], G[1][XY], G[1][XZ] = p[0][2], dw[0] + p[1][2], p[2][2] - p[0][0]
    G[1][YY], G[1][YZ], G[1][ZZ] = dw[1], dw[2] - p[0][1], -p[0][2]
    G[2][XX], G[2][XY], G[2][XZ] = -p[0][1], p[0][0] - p[1][1], dw[0] - p[1][2]
    G[2][YY], G[2][YZ], G[2][ZZ] = p[0][1], dw[1] + p[0][2], dw[2]
    for row, col, i, sign in SKEW:          # MS × a in the moment, (ω̇× + ω×ω×) MS in the force
        G[row][6 + col] = -acc[i] if sign > 0 else acc[i]
        G[3 + row][6 + col] = (dw[i] if sign > 0 else -dw[i]) + p[row][col]
    for i in range(3):
        others = [p[m][m] for m in range(3) if m != i]
        G[3 + i][6 + i] = -(others[0] + others[1])
        G[3 + i][9] = acc[i]
    return to_pseudo(G) if pseudo else G


def pseudo_coefficients(khalil):
    """Coefficients of Khalil's XX XY XZ YY YZ ZZ → of the pseudo XX YY ZZ XY XZ YZ.

    XX_k = YY_p + ZZ_p and XY_k = −XY_p, …, so the coefficient of XX_p is c(YY_k) + c(ZZ_k).
    """
    xx, xy, xz, yy, yz, zz = khalil
    return [yy + zz, xx + zz, xx + yy, -xy, -xz, -yz]


def to_pseudo(G):
    """G (:func:`wrench_map`) with pseudo inertia columns, in place."""
    for row in G[:3]:                          # only the moment rows carry inertia columns
        row[:6] = pseudo_coefficients(row[:6])
    return G


@dataclass
class JointStep:
    """A constant or moving part of a joint's transform (:func:`joint_steps`), as graph values."""

    rot_back: object     # x ↦ Rᵀ x
    shift: list          # P: origin of the part's frame in the frame before it
    rot: object          # x ↦ R x (back to the frame before it)
    turn: tuple = None   # (i, j, c, s): R turns the plane (i, j) by the angle of cos c, sin s; None: R = 1


class JointMotion:
    """Joint k's transform as a chain of :func:`joint_steps` parts (why parts: there), and its axis in
    the link frame."""

    def __init__(self, g, robot, k, inputs):
        before, screw, after, axis = joint_steps(g, robot, k, inputs)
        self.parts = before + [screw] + after
        for step in after:
            axis = carry(step, axis)
        self.axis = axis

    def carry(self, x):
        """A spatial motion vector from the parent's link frame to this joint's link frame."""
        for step in self.parts:
            x = carry(step, x)
        return x


def carry_back(jt, f):
    """A wrench [n; f] from this joint's link frame to the parent's: [R n + P × R f; R f]."""
    n, force = jt.rot(f[:3]), jt.rot(f[3:])
    return [x + y for x, y in zip(n, cross(jt.shift, force))] + force


def carry(jt, x):
    """A spatial motion vector from the parent's link frame to this joint's: [Rᵀω; Rᵀ(v + ω × P)]."""
    w, v = x[:3], x[3:]
    moved = [vi + ci for vi, ci in zip(v, cross(w, jt.shift))]
    return jt.rot_back(w) + jt.rot_back(moved)


def build(robot, parameters="pseudo", columns=None, kind="regressor", gravity=True, friction=True):
    """Expression graph of regressor columns.

    A floating base is a 6-DOF root: its twist and twist rate are the inputs
    ``qd[0:6]``, ``qdd[0:6]`` (public order [v, ω], frame 0), gravity reaches it through its quaternion
    ``q[3:7]``, its body's columns are link 0's, and its six unit motions are carried to every link as
    the joints' axes are, so the base rows (the wrench [f, n] it needs) are ``e_iᵀ`` of every link's
    wrench carried back: the rows of :func:`build_inverse_dynamics`'s base wrench.

    Parameters
    ----------
    robot : Robot
    parameters : {'pseudo', 'khalil'}
    columns : sequence of int, optional
        Standard columns wanted, in output order (default all).
    kind : {'regressor', 'slotine_li'}
        With 'slotine_li' the inputs ``qd_ref`` and ``qdd`` are the reference velocity and
        acceleration (q̇_r, q̈_r), J̇ being taken along ``qd``.
    gravity, friction : bool
        Leave out gravity, or the friction terms (their columns are then zero).

    Returns
    -------
    graph : Graph
    outputs : list of (row, output column, node id)
        The structurally non-zero entries of the (n_v, n_columns) regressor (n_v = n_dof, or 6 + n_dof
        for a floating base: its wrench rows first, public order).
    """
    layout = ColumnLayout(robot, parameters)
    columns = list(range(layout.n_standard)) if columns is None else [int(c) for c in columns]
    where = {c: i for i, c in enumerate(columns)}
    n, nb = robot.n_dof, 6 if robot.is_floating else 0
    g = Graph()
    inputs = {name: [g.input(name, (nb if name in ("qd", "qdd", "qd_ref") else 0) + k) for k in range(n)]
              for name in ("c", "s", "d", "qd", "qdd", "qd_ref", "sgn", "stb")}
    sl = kind == "slotine_li"
    rate, accel = (inputs["qd_ref"], inputs["qdd"]) if sl else (inputs["qd"], inputs["qdd"])
    zero = g.zero
    chains = ancestors(robot)
    v, vr, a, axes = [None] * n, [None] * n, [None] * n, [None] * n
    outputs = []

    def row(j):
        """The regressor row of an axis key: joint j ≥ 0, or the base's internal direction −1 − j."""
        return nb + j if j >= 0 else SWAP[-1 - j]
    if nb:        # the base body: twist [ω; v], spatial acceleration less gravity, unit motions e_i
        base_v = [g.input("qd", i) for i in SWAP]
        base_vr = [g.input("qd_ref", i) for i in SWAP] if sl else base_v
        base_a = [g.input("qdd", i) for i in SWAP]
        if sl:      # J̇ q̇_r of the base, the derivative along the motion: v × v_r (zero when v_r = v)
            base_a = [x + y for x, y in zip(base_a, motion_cross(base_v, base_vr))]
        if gravity:
            down = base_gravity(g, [constant(g, x) for x in robot.gravity_si])
            base_a[3:] = [x - y for x, y in zip(base_a[3:], down)]
        base_axes = {-1 - i: [g.one if r == i else zero for r in range(6)] for i in range(6)}
        wanted = [i for i, c in enumerate(layout.base_columns) if int(c) in where]
        if wanted:          # as a link's below, the base's own joint being the identity
            w, wr = base_v[:3], base_vr[:3]
            dw = [x - 0.5 * y for x, y in zip(base_a[:3], cross(w, wr))] if sl else base_a[:3]
            acc = [x + y for x, y in zip(base_a[3:], cross(wr, base_v[3:]))]
            G = wrench_map(w, wr if sl else w, dw, acc, parameters == "pseudo")
            for r in range(6):
                for i in wanted:
                    if not G[r][i].is_zero:
                        outputs.append((SWAP[r], where[int(layout.base_columns[i])], G[r][i].i))
    else:
        gravity = [constant(g, -x if gravity else 0.0) for x in robot.gravity_si]
    for k in range(n):
        jt = JointMotion(g, robot, k, inputs)
        p = robot.parents[k]
        s = jt.axis
        if p >= 0:
            vp, vrp, ap = jt.carry(v[p]), jt.carry(vr[p]), jt.carry(a[p])
            axes[k] = {j: jt.carry(axes[p][j]) for j in axes[p]}
        elif nb:
            vp, vrp, ap = jt.carry(base_v), jt.carry(base_vr), jt.carry(base_a)
            axes[k] = {j: jt.carry(x) for j, x in base_axes.items()}
        else:
            vp, vrp = [zero] * 6, [zero] * 6
            ap = [zero] * 3 + jt.carry([zero] * 3 + gravity)[3:]
            axes[k] = {}
        axes[k][k] = s
        v[k] = [x + y * inputs["qd"][k] for x, y in zip(vp, s)]
        vr[k] = [x + y * rate[k] for x, y in zip(vrp, s)] if sl else v[k]
        bend = motion_cross(vp, s)              # d/dt of the axis, carried by the parent link
        a[k] = [x + y * accel[k] + z * rate[k] for x, y, z in zip(ap, s, bend)]
        w, wr = v[k][:3], vr[k][:3]
        dw = [x - 0.5 * y for x, y in zip(a[k][:3], cross(w, wr))] if sl else a[k][:3]
        acc = [x + y for x, y in zip(a[k][3:], cross(wr, v[k][3:]))]
        wanted = [i for i, c in enumerate(layout.link_columns[k]) if int(c) in where]
        if wanted:
            G = wrench_map(w, wr if sl else w, dw, acc, parameters == "pseudo")
            for j in [*range(-1, -1 - nb, -1), *chains[k]]:
                sj = axes[k][j]
                for i in wanted:
                    tau = sum((sj[r] * G[r][i] for r in range(6)), zero)
                    if not tau.is_zero:
                        outputs.append((row(j), where[int(layout.link_columns[k][i])], tau.i))
    for k, col in layout.rotor_columns.items():
        if col in where:
            outputs.append((nb + k, where[col], accel[k].i))
    for (k, kind_), col in layout.friction_columns.items():
        if col in where and friction:
            outputs.append((nb + k, where[col], friction_rate(g, inputs, k, kind_).i))
    return g, outputs


def friction_rate(g, inputs, k, kind):
    """The graph node a friction coefficient of joint k multiplies: q̇ (FV), the Coulomb shape c(q̇)
    (FC, input ``sgn``), 1 (FO), the Stribeck shape s(q̇) (FS, input ``stb``); the shapes are inputs,
    computed from q̇ by the joint's friction model (:mod:`baseparam.model.friction`)."""
    return {"FV": inputs["qd"][k], "FC": inputs["sgn"][k], "FO": g.one, "FS": inputs["stb"][k]}[kind]


def joint_steps(g, robot, k, inputs):
    """Joint k's transform as graph steps: the constant ones and the moving one.

    Reads the joint model ``A = C · M(q + offset) · C′`` (:mod:`baseparam.model.joint_model`) as
    its :meth:`~baseparam.model.joint_model.JointModel.steps`, each a shift and one elementary
    rotation. The moving step ends in the *joint frame*, whose z axis is the joint's: there a
    joint's motion is a unit z and its torque a z component. Carrying values step by step keeps the
    moving step a pure z screw, cheaper than the combined transform (no products with a·cos θ,
    a·sin θ that cancel only after expansion, which hash-consing cannot see).

    Returns
    -------
    before, after : list of JointStep
        The constant steps on the parent side (C) and on the link side (C′).
    screw : JointStep
        The moving step (a constant rotation or shift may share it when it commutes with the motion).
    axis : list of 6
        The joint's unit motion in the joint frame.
    """
    model = joint_model(robot, k)
    steps, moving = model.steps()
    parts = [graph_step(g, robot, k, step, inputs) for step in steps]
    axis = [g.one if i == model.motion_index() else g.zero for i in range(6)]
    return parts[:moving], parts[moving], parts[moving + 1:], axis


def graph_step(g, robot, k, step, inputs):
    """A :class:`~baseparam.model.joint_model.Step` as graph values (exact 0/±1 folded)."""
    zero = g.zero
    shift = [zero, zero, zero]
    for f in step.shift:
        term = inputs["d"][k] if f.variable else constant(g, to_si(robot, f))
        shift[f.index] = term if shift[f.index].is_zero else shift[f.index] + term
    r = step.rotation
    if r is None:
        return JointStep(rot_back=lambda x: list(x), shift=shift, rot=lambda x: list(x))
    if r.variable:
        c, s = inputs["c"][k], inputs["s"][k]
    else:
        c, s, _ = exact_cos_sin(r.value, robot.angle_unit)
        c, s = constant(g, c, SNAP), constant(g, s, SNAP)
    i, j = (r.index + 1) % 3, (r.index + 2) % 3      # the plane the rotation turns

    def rot_back(x):                                 # Rᵀ x
        y = list(x)
        y[i], y[j] = c * x[i] + s * x[j], c * x[j] - s * x[i]
        return y

    def rot(x):                                      # R x
        y = list(x)
        y[i], y[j] = c * x[i] - s * x[j], s * x[i] + c * x[j]
        return y
    return JointStep(rot_back=rot_back, shift=shift, rot=rot, turn=(i, j, c, s))


def u_matrix(w, dw):
    """Khalil's U = [ω̇]× + [ω]×[ω]×: the acceleration of a point r of a rigid body is a + U r.

    Its products ω_i ω_j are the same graph nodes as the link wrench's (:func:`wrench_map`), so
    they are computed once per frame.
    """
    sq = [w[i] * w[i] for i in range(3)]
    wxy, wxz, wyz = w[0] * w[1], w[0] * w[2], w[1] * w[2]
    return [[-(sq[1] + sq[2]), wxy - dw[2], wxz + dw[1]],
            [wxy + dw[2], -(sq[0] + sq[2]), wyz - dw[0]],
            [wxz - dw[1], wyz + dw[0], -(sq[0] + sq[1])]]


def carry_accelerations(step, w, dw, acc):
    """ω, ω̇ and the origin's classical acceleration through a step: Rᵀω, Rᵀω̇, Rᵀ(a + U P)."""
    U = u_matrix(w, dw)
    moved = [acc[i] + sum((U[i][j] * step.shift[j] for j in range(3)), w[0] * 0.0) for i in range(3)]
    return step.rot_back(w), step.rot_back(dw), step.rot_back(moved)


def build_inverse_dynamics(robot, parameters="pseudo", columns=None, gravity=True, friction=True, wrenches=None):
    """Expression graph of the inverse dynamics with symbolic parameters: customized Newton–Euler.

    τ = W(q, q̇, q̈) p̃ where p̃ holds the inputs ``p[r]`` at the standard columns ``columns[r]``
    and zero elsewhere: with the base set's pivots this is τ = W_b p_base, the inverse dynamics in
    base parameters; with every column, the inverse dynamics of any parameter vector. This is
    Khalil's customized Newton–Euler: ω, ω̇ and the classical acceleration of each frame origin run
    from the base to the tips through each joint's constant part and z screw (:func:`joint_steps`,
    :func:`carry_accelerations`); each link's wrench is its :func:`wrench_map` applied to its
    (mostly zero) parameter symbols; the wrenches are summed from the tips to the base
    (:func:`carry_back`) and a joint's torque is the z component in its joint frame. Every torque
    costs O(n); zero parameters fold away with their products, and so do the DH table's exact zeros.

    A floating base is the root body: its twist and twist rate are the inputs ``qd[0:6]``,
    ``qdd[0:6]`` (public order, [v, ω]), gravity reaches it through its quaternion ``q[3:7]``, the
    joints' rates follow (``qd[6 + k]``), and τ leads with the wrench [f, n] it needs.

    Parameters
    ----------
    gravity, friction : bool
        Leave out gravity, or the friction terms.
    wrenches : {None, 'link', 'joint'}
        Output instead the wrench [n; f] each link's parent exerts on it, about the origin of its link
        frame (or joint frame) in that frame's axes: entries ``6 k + i``.

    Returns
    -------
    graph : Graph
    outputs : list of (index, node id)
        The torques (index into τ, n_v entries; absent: zero), or the wrenches.
    """
    layout = ColumnLayout(robot, parameters)
    columns = list(range(layout.n_standard)) if columns is None else [int(c) for c in columns]
    n, nb = robot.n_dof, 6 if robot.is_floating else 0
    g = Graph()
    inputs = {name: [g.input(name, (nb if name in ("qd", "qdd") else 0) + k) for k in range(n)]
              for name in ("c", "s", "d", "qd", "qdd", "sgn", "stb")}
    symbol = {c: g.input("p", r) for r, c in enumerate(columns)}
    zero = g.zero

    def body_wrench(w, dw, acc, body_columns):
        G = wrench_map(w, w, dw, acc, parameters == "pseudo")
        p = [symbol.get(int(c), zero) for c in body_columns]
        return [sum((Gi * pi for Gi, pi in zip(row, p) if not pi.is_zero), zero) for row in G]
    if nb:
        twist, rate = [g.input("qd", i) for i in SWAP], [g.input("qdd", i) for i in SWAP]      # [ω; v]
        acc = [a + b for a, b in zip(rate[3:], cross(twist[:3], twist[3:]))]
        if gravity:
            acc = [a - b for a, b in zip(acc, base_gravity(g, [constant(g, x) for x in robot.gravity_si]))]
        base = (twist[:3], rate[:3], acc)
        base_wrench = body_wrench(*base, layout.base_columns)
    else:      # gravity as a base acceleration
        base = ([zero] * 3, [zero] * 3, [constant(g, -x if gravity else 0.0) for x in robot.gravity_si])
    models = joint_models(robot)
    steps, state, wrench = [None] * n, [None] * n, [None] * n
    for k in range(n):
        before, screw, after, axis = steps[k] = joint_steps(g, robot, k, inputs)
        parent = robot.parents[k]
        w, dw, acc = state[parent] if parent >= 0 else base
        for step in before + [screw]:
            w, dw, acc = carry_accelerations(step, w, dw, acc)
        qd, qdd = inputs["qd"][k], inputs["qdd"][k]
        revolute = models[k].is_revolute
        z = axis[:3] if revolute else axis[3:]
        turn = cross(w, [x * qd for x in z])                  # ω × q̇ z, in the joint frame
        if revolute:
            dw = [x + y * qdd + t for x, y, t in zip(dw, z, turn)]
            w = [x + y * qd for x, y in zip(w, z)]
        else:                                                  # the origin slides: q̈ z + 2 ω × q̇ z
            acc = [x + y * qdd + 2.0 * t for x, y, t in zip(acc, z, turn)]
        for step in after:
            w, dw, acc = carry_accelerations(step, w, dw, acc)
        state[k] = (w, dw, acc)
        wrench[k] = body_wrench(w, dw, acc, layout.link_columns[k])
    torques, through = [zero] * n, {}
    for k in reversed(range(n)):
        before, screw, after, axis = steps[k]
        f = wrench[k]
        if wrenches == "link":
            through[k] = f
        for step in reversed(after):                                          # to the joint frame
            f = carry_back(step, f)
        if wrenches == "joint":
            through[k] = f
        torques[k] = sum((x * y for x, y in zip(axis, f)), zero)
        parent = robot.parents[k]
        if parent >= 0 or nb:
            for step in reversed(before + [screw]):
                f = carry_back(step, f)
            if parent >= 0:
                wrench[parent] = [x + y for x, y in zip(wrench[parent], f)]
            else:
                base_wrench = [x + y for x, y in zip(base_wrench, f)]
    if wrenches is not None:
        return g, [(6 * k + i, x.i) for k in range(n) for i, x in enumerate(through[k]) if not x.is_zero]
    for k, col in layout.rotor_columns.items():
        if col in symbol:
            torques[k] = torques[k] + symbol[col] * inputs["qdd"][k]
    for (k, kind), col in layout.friction_columns.items():
        if col in symbol and friction:
            torques[k] = torques[k] + symbol[col] * friction_rate(g, inputs, k, kind)
    base_out = [(i, base_wrench[j]) for i, j in enumerate(SWAP)] if nb else []
    return g, [(i, t.i) for i, t in base_out + [(nb + k, t) for k, t in enumerate(torques)] if not t.is_zero]


def base_gravity(g, gravity):
    """Rᵀ g in frame 0 of a floating base, R from its quaternion inputs (x, y, z, w) at q[3:7]."""
    R = rotation_rows(*(g.input("q", i) for i in range(3, 7)))
    return [sum((R[j][i] * gravity[j] for j in range(3)), g.zero) for i in range(3)]


def inertia_form(y, x):
    """φ(y, x) with yᵀ I x = φ · p for the spatial inertia I of a link (Khalil order, 10 entries).

    ``I x = [J ω + h × v; m v + ω × h]``, so the inertia columns see sym(y_ω, x_ω), the first
    moments y_v × x_ω − y_ω × x_v and the mass y_v · x_v.
    """
    yw, yv, xw, xv = y[:3], y[3:], x[:3], x[3:]
    sym = [yw[0] * xw[0], yw[0] * xw[1] + yw[1] * xw[0], yw[0] * xw[2] + yw[2] * xw[0],
           yw[1] * xw[1], yw[1] * xw[2] + yw[2] * xw[1], yw[2] * xw[2]]
    first = [p - r for p, r in zip(cross(yv, xw), cross(yw, xv))]
    return sym + first + [yv[0] * xv[0] + yv[1] * xv[1] + yv[2] * xv[2]]


def build_mass(robot, parameters="pseudo"):
    """Expression graph of the joint-space inertia matrix, the parameters being inputs ``p``.

    ``M_ij = Σ_k s_ikᵀ I_k s_jk + IA_i δ_ij`` over the links k moved by both joints i and j, with
    s_ik the axis of joint i in link frame k.
    A floating base's M is built instead by Newton–Euler column by column
    (:func:`~baseparam.dynamics.regressors.mass_matrix`); ``bench/bench_second_implementations.py``
    prints what this graph buys over that.

    Returns
    -------
    graph : Graph
    outputs : list of ((i, j), node id)
        Both triangles of M (the same node for M_ij and M_ji); absent entries are zero.
    """
    layout = ColumnLayout(robot, parameters)
    n = robot.n_dof
    g = Graph()
    inputs = {name: [g.input(name, k) for k in range(n)] for name in ("c", "s", "d")}
    p = [g.input("p", c) for c in range(layout.n_standard)]
    chains = ancestors(robot)
    axes = [None] * n
    entries = {}
    for k in range(n):
        jt = JointMotion(g, robot, k, inputs)
        parent = robot.parents[k]
        axes[k] = {j: jt.carry(axes[parent][j]) for j in chains[parent]} if parent >= 0 else {}
        axes[k][k] = jt.axis
        params = [p[c] for c in layout.link_columns[k]]
        for a_, i in enumerate(chains[k]):
            for j in chains[k][a_:]:
                phi = inertia_form(axes[k][i], axes[k][j])
                if parameters == "pseudo":
                    phi[:6] = pseudo_coefficients(phi[:6])
                term = sum((f * c for f, c in zip(phi, params)), g.zero)
                entries[(i, j)] = entries.get((i, j), g.zero) + term
    for k, col in layout.rotor_columns.items():
        entries[(k, k)] = entries.get((k, k), g.zero) + p[col]
    outputs = []
    for (i, j), node in entries.items():
        if not node.is_zero:
            outputs += [((i, j), node.i)] + ([((j, i), node.i)] if i != j else [])
    return g, outputs
