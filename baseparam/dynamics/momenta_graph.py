"""Ivanov's rate of the Poisson impulses as an expression graph: ṗ = Aᵀ(F* − v ×* μ) + τ − friction(q̇).

The right-hand side of a simulation in (q, p) (:mod:`baseparam.dynamics.momenta`, equation (7)), written
for scalars as :mod:`baseparam.dynamics.forward_graph` writes the ABA, so that it compiles into the same C
kernel (:class:`~baseparam.dynamics.forward.Kernel`) instead of numpy's 6×6 matrices per sample:

1. root → tips: link twists ``v_k = X_k v_p + S q̇_k`` and the weight's acceleration ``γ_k = X_k γ_p``
   (``γ_0 = [0; g]``), each in the link's joint frame, where ``S`` is a unit z screw;
2. tips → root: subtree momenta ``μ_k = I_k v_k + Σ X_cᵀ μ_c`` and weights ``F*_k = I_k γ_k + Σ X_cᵀ F*_c``;
3. ``ṗ_k = (F*_k − v_k ×* μ_k)[axis_k] + τ_k − friction_k(q̇_k)``.

A rotor inertia adds ``IA q̇`` to p, constant in q: it has no term in ṗ. A fixed base only (a floating
base's impulses are the whole system's momentum in frame-0 axes; numpy's recursion serves it).
"""
from __future__ import annotations

from ..model.joint_model import joint_models
from .._validation import check_robot
from .expressions import Graph, constant
from .forward_graph import _body, frame_steps, slots
from .regressor_graph import carry, carry_back, friction_rate, graph_step
from .spatial_graph import force_cross, matvec


def build_momenta_rate(robot):
    """Expression graph of ṗ(q, q̇, τ) of a fixed-base robot with the parameters as inputs.

    Inputs as :func:`~baseparam.dynamics.forward_graph.build_forward`'s (``tau`` the joint torques).

    Returns
    -------
    graph : Graph
    outputs : list of (index into ṗ, node id)
    """
    check_robot(robot)
    if robot.is_floating:
        raise ValueError(f"{robot.name}: the compiled ṗ is of a fixed base; a floating base takes numpy's recursion")
    g = Graph()
    n, zero = robot.n_dof, g.zero
    layout = slots(robot)
    inputs = {name: [g.input(name, k) for k in range(n)] for name in ("c", "s", "d", "sgn", "stb", "qd")}
    models = joint_models(robot)
    steps = [[graph_step(g, robot, k, st, inputs) for st in frame_steps(robot, k, models)] for k in range(n)]
    axis = [m.motion_index() for m in models]
    parents = robot.parents
    v, weight, mu = [None] * n, [None] * n, [None] * n
    gravity = [zero] * 3 + [constant(g, x) for x in robot.gravity_si]
    for k in range(n):                                         # 1. twists and the weight's acceleration
        x = v[parents[k]] if parents[k] >= 0 else [zero] * 6
        a = weight[parents[k]] if parents[k] >= 0 else gravity
        for st in steps[k]:
            x, a = carry(st, x), carry(st, a)
        x[axis[k]] = x[axis[k]] + inputs["qd"][k]
        v[k], weight[k] = x, a
    for k in range(n):                                         # the bodies' own momenta and weights
        inertia = _body(g, lambda r: g.input("p", r), layout.bodies[k])
        mu[k], weight[k] = matvec(inertia, v[k]), matvec(inertia, weight[k])
    for k in reversed(range(n)):                               # 2. subtree sums, tips → root
        parent = parents[k]
        if parent < 0:
            continue
        m, w = mu[k], weight[k]
        for st in reversed(steps[k]):
            m, w = carry_back(st, m), carry_back(st, w)
        mu[parent] = [a + b for a, b in zip(mu[parent], m)]
        weight[parent] = [a + b for a, b in zip(weight[parent], w)]
    outputs = []
    for k in range(n):                                         # 3. ṗ along each joint's axis
        rate = weight[k][axis[k]] - force_cross(v[k], mu[k])[axis[k]] + g.input("tau", k)
        for (j, kind), r in layout.drives.items():
            if j == k and kind != "IA":
                rate = rate - g.input("p", r) * friction_rate(g, inputs, k, kind)
        outputs.append((k, rate))
    return g, [(i, node.i) for i, node in outputs]


__all__ = ["build_momenta_rate"]
