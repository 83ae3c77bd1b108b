"""The exported functions as expression graphs, and their operation counts.

Operation counts (:func:`operation_counts`) are taken from the emitted graph for every target:
multiplications (x² counts one), additions and subtractions, divisions, and sin/cos pairs;
negation is free. Adding a joint offset to q counts as an addition.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..dynamics.expressions import INPUT, live_nodes, operation_count
from ..dynamics.regressor_graph import build, build_inverse_dynamics
from ..model.joint_model import motion_offsets

FUNCTIONS = ("regressor", "slotine_li", "inverse_dynamics")
ARGUMENTS = {
    "regressor": ("q", "qd", "qdd"),
    "slotine_li": ("q", "qd", "qd_ref", "qdd_ref"),
    "inverse_dynamics": ("q", "qd", "qdd", "p_base"),
}
# A floating base's pose, twist and twist rate come first, as arguments of their own (the graph's inputs q[3:7],
# qd[0:6], …); q, qd, qdd (qd_ref, qdd_ref) stay the joints'.
_MOTION = {"q": "base_pose", "qd": "base_twist", "qdd": "base_accel"}
BASE_ARGUMENTS = {"regressor": _MOTION, "inverse_dynamics": _MOTION,
                  "slotine_li": {"q": "base_pose", "qd": "base_twist", "qd_ref": "base_twist_ref",
                                 "qdd": "base_accel_ref"}}
PURPOSE = {
    "regressor": "base regressor: tau = Y p_base (Y row-major, N x R)",
    "slotine_li": "Slotine-Li regressor: Y p_base = M qdd_ref + C(q, qd) qd_ref + g + friction(qd) "
                  "(C Christoffel-consistent)",
    "inverse_dynamics": "inverse dynamics in base parameters: tau = Y(q, qd, qdd) p_base, by customized "
                        "Newton-Euler",
}


@dataclass
class Routine:
    """One exported function: its graph, where each output entry comes from, and its cost.

    Attributes
    ----------
    name : str
        One of :data:`FUNCTIONS`.
    graph : Graph
    outputs : list of (int, int)
        (flat index into the output array, node id) of the non-zero entries.
    size : int
        Length of the output array (N·R for regressors, N for the inverse dynamics; N = 6 + n_dof rows
        for a floating base).
    inputs : dict
        Graph input name → argument name (e.g. the Slotine–Li graph's ``qdd`` is ``qdd_ref``).
    floating : bool
        The robot's base floats: the arguments start with its :data:`BASE_ARGUMENTS`.
    """

    name: str
    graph: object
    outputs: list
    size: int
    inputs: dict = field(default_factory=dict)
    floating: bool = False

    @property
    def output(self):
        return "tau" if self.name == "inverse_dynamics" else "Y"

    @property
    def arguments(self):
        """The function's arguments, in order."""
        return (tuple(BASE_ARGUMENTS[self.name].values()) if self.floating else ()) + ARGUMENTS[self.name]

    def width(self, argument, n_dof, rank):
        """The length of an argument's array."""
        if argument == "p_base":
            return rank
        return {"base_pose": 7}.get(argument, 6 if argument.startswith("base_") else n_dof)


def routines(base, what=FUNCTIONS):
    """The graphs of the requested functions for a base parameter set.

    Parameters
    ----------
    base : BaseParameters
    what : sequence of str
        Names from :data:`FUNCTIONS`.

    Returns
    -------
    list of Routine
    """
    out = []
    n, R, floating = base.robot.n_v, base.rank, base.robot.is_floating
    for name in what:
        if name == "inverse_dynamics":
            g, entries = build_inverse_dynamics(base.robot, base.parameters, base.pivots)
            out.append(Routine(name, g, [(j, i) for j, i in entries], n,
                               {"qd": "qd", "qdd": "qdd", "p": "p_base"}, floating))
        else:
            g, entries = build(base.robot, base.parameters, base.pivots, kind=name)
            inputs = {"qd": "qd", "qdd": "qdd"} if name == "regressor" else \
                {"qd": "qd", "qdd": "qdd_ref", "qd_ref": "qd_ref"}
            out.append(Routine(name, g, [(j * R + c, i) for j, c, i in entries], n * R, inputs, floating))
    return out


def operation_counts(routine, robot):
    """Operations of one exported function: mul, add, div and sin/cos pairs (see module notes).

    Returns
    -------
    dict
        ``{"mul": int, "add": int, "div": int, "sincos": int}``
    """
    g = routine.graph
    live = live_nodes(g, [i for _, i in routine.outputs])
    counts = operation_count(g, [i for _, i in routine.outputs])
    angles = {g.args[i][1] for i in live if g.ops[i] == INPUT and g.args[i][0] in ("c", "s", "d")}
    trig = {g.args[i][1] for i in live if g.ops[i] == INPUT and g.args[i][0] in ("c", "s")}
    offsets = motion_offsets(robot)
    counts["add"] += sum(1 for k in angles if offsets[k] != 0.0)     # q + offset
    counts["sincos"] = len(trig)
    return counts
