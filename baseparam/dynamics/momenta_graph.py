"""Ivanov's rate of the Poisson impulses as an expression graph: ṗ = Aᵀ(F* − v ×* μ) + τ − friction(q̇).

The right-hand side of a simulation in (q, p) (:mod:`baseparam.dynamics.momenta`, equation (7)), written
for scalars as :mod:`baseparam.dynamics.forward_graph` writes the ABA, so that it compiles into the same C
kernel (:class:`~baseparam.dynamics.forward.Kernel`) instead of numpy's 6×6 matrices per sample:

1. root → tips: link twists ``v_k = X_k v_p + S q̇_k`` and the weight's acceleration ``γ_k = X_k γ_p``
   (``γ_0 = [0; g]``), each in the link's joint frame, where ``S`` is a unit z screw;
2. tips → root: subtree momenta ``μ_k = I_k v_k + Σ X_cᵀ μ_c`` and weights ``F*_k = I_k γ_k + Σ X_cᵀ F*_c``;
3. ``ṗ_k = (F*_k − v_k ×* μ_k)[axis_k] + τ_k − friction_k(q̇_k)``.

A rotor inertia adds ``IA q̇`` to p, constant in q: it has no term in ṗ. A floating base is the root body of a
6-DOF joint (``S = 1``): its twist is the public ``q̇[:6]`` (frame-0 axes), its weight's acceleration ``[0; Rᵀ g]``,
and its six impulses the whole robot's momentum about the frame-0 origin in frame-0 axes, whose rate is
``F*_0 − v_0 ×* μ_0 + τ[:6]`` (the wrench applied to the base), in the public order.
"""
from __future__ import annotations

from ..model.joint_model import joint_models
from .._validation import check_robot
from .expressions import Graph, constant
from .floating import SWAP
from .forward_graph import _body, frame_steps, slots
from .regressor_graph import base_gravity, carry, carry_back, friction_rate, graph_step
from .spatial_graph import force_cross, matvec


def build_momenta_rate(robot):
    """Expression graph of ṗ(q, q̇, τ) with the parameters as inputs, a fixed or a floating base.

    Inputs as :func:`~baseparam.dynamics.forward_graph.build_forward`'s (``qd`` and ``tau`` by index into q̇ and τ,
    which lead with a floating base's twist and wrench; ``q`` a floating base's quaternion, indices 3–6).

    Returns
    -------
    graph : Graph
    outputs : list of (index into ṗ, node id)
    """
    check_robot(robot)
    g = Graph()
    n, zero = robot.n_dof, g.zero
    nb = 6 if robot.is_floating else 0
    layout = slots(robot)
    inputs = {name: [g.input(name, k) for k in range(n)] for name in ("c", "s", "d", "sgn", "stb")}
    inputs["qd"] = [g.input("qd", nb + k) for k in range(n)]
    models = joint_models(robot)
    steps = [[graph_step(g, robot, k, st, inputs) for st in frame_steps(robot, k, models)] for k in range(n)]
    axis = [m.motion_index() for m in models]
    parents = robot.parents
    gravity = [constant(g, x) for x in robot.gravity_si]
    base = _Base(g, layout.bodies[n], gravity) if robot.is_floating else None
    v, weight, mu = [None] * n, [None] * n, [None] * n
    for k in range(n):                                         # 1. twists and the weight's acceleration
        if parents[k] >= 0:
            x, a = v[parents[k]], weight[parents[k]]
        else:
            x, a = (base.v, base.gamma) if base else ([zero] * 6, [zero] * 3 + gravity)
        for st in steps[k]:
            x, a = carry(st, x), carry(st, a)
        x[axis[k]] = x[axis[k]] + inputs["qd"][k]
        v[k], weight[k] = x, a
    for k in range(n):                                         # the bodies' own momenta and weights
        inertia = _body(g, lambda r: g.input("p", r), layout.bodies[k])
        mu[k], weight[k] = matvec(inertia, v[k]), matvec(inertia, weight[k])
    for k in reversed(range(n)):                               # 2. subtree sums, tips → root
        parent = parents[k]
        if parent < 0 and base is None:
            continue
        m, w = mu[k], weight[k]
        for st in reversed(steps[k]):
            m, w = carry_back(st, m), carry_back(st, w)
        if parent >= 0:
            mu[parent] = [a + b for a, b in zip(mu[parent], m)]
            weight[parent] = [a + b for a, b in zip(weight[parent], w)]
        else:
            base.add(m, w)
    outputs = base.rates() if base else []
    for k in range(n):                                         # 3. ṗ along each joint's axis
        rate = weight[k][axis[k]] - force_cross(v[k], mu[k])[axis[k]] + g.input("tau", nb + k)
        for (j, kind), r in layout.drives.items():
            if j == k and kind != "IA":
                rate = rate - g.input("p", r) * friction_rate(g, inputs, k, kind)
        outputs.append((nb + k, rate))
    return g, [(i, node.i) for i, node in outputs]


class _Base:
    """A floating base in the graph: the root body of a 6-DOF joint, frame 0. Its twist ``v`` (angular first, from the
    public ``q̇[:6] = [v, ω]``), the weight's acceleration ``γ = [0; Rᵀ g]`` in its axes (R from its quaternion), and
    the whole robot's momentum μ and weight F* about its origin, summed into it from the links; its rates
    ``ṗ[:6] = F* − v ×* μ + τ[:6]`` in the public order (``τ[:6]`` the wrench applied to it)."""

    def __init__(self, g, start, gravity):
        self.g = g
        self.v = [g.input("qd", i) for i in SWAP]
        self.gamma = [g.zero] * 3 + base_gravity(g, gravity)
        inertia = _body(g, lambda r: g.input("p", r), start)
        self.mu, self.weight = matvec(inertia, self.v), matvec(inertia, self.gamma)

    def add(self, mu, weight):
        """Add a child subtree's momentum and weight, already in frame 0."""
        self.mu = [a + b for a, b in zip(self.mu, mu)]
        self.weight = [a + b for a, b in zip(self.weight, weight)]

    def rates(self):
        """[(index into ṗ, node)] of the base's six rates, public order."""
        inner = [w - c for w, c in zip(self.weight, force_cross(self.v, self.mu))]
        return [(SWAP[j], inner[j] + self.g.input("tau", SWAP[j])) for j in range(6)]


__all__ = ["build_momenta_rate"]
