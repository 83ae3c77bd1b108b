"""Straight-line numpy code from an expression graph, compiled once per robot and reused.

Each live node becomes one vectorized statement over a block of samples; sin and cos are taken
once per joint; a temporary is deleted right after its last use so that numpy recycles the same
few cache-resident buffers instead of touching new memory.
"""
from __future__ import annotations

import numpy as np

from .expressions import ADD, BINARY, CONST, DIV, INPUT, MUL, NEG, SUB, live_nodes
from . import regressor_graph as regressor_graph
from ..model._kernels import kernels_of
from ..model.joint_model import motion_offsets


def _input_source(name, k, offsets):
    if name == "p":
        return f"p[{k}]"
    angle = f"q[{k}]" if offsets[k] == 0.0 else f"(q[{k}] + {offsets[k]!r})"
    return {"c": f"cos({angle})", "s": f"sin({angle})", "d": angle, "qd": f"qd[{k}]", "qdd": f"qdd[{k}]",
            "qd_ref": f"qd_ref[{k}]", "sgn": f"sgn[{k}]", "stb": f"stb[{k}]"}[name]


def reference(g, number):
    """How a node is named in code: ``number(value)`` for a constant, ``x<id>`` otherwise."""
    return lambda i: number(g.args[i]) if g.ops[i] == CONST else f"x{i}"


def node_sources(g, order, inputs, number):
    """(position, node id, expression) of each non-constant node of ``order`` (live nodes in creation
    order): one operation on named operands, or an input's source (``inputs(name, index)``). The same
    for every language printed here (Python with numpy or floats, C): only ``number`` and ``inputs``
    differ."""
    ref = reference(g, number)
    for pos, i in enumerate(order):
        op, args = g.ops[i], g.args[i]
        if op == CONST:
            continue
        if op == INPUT:
            yield pos, i, inputs(*args)
        elif op == NEG:
            yield pos, i, f"-{ref(args)}"
        else:
            yield pos, i, f"{ref(args[0])} {({ADD: '+', SUB: '-', MUL: '*', DIV: '/'})[op]} {ref(args[1])}"


def numpy_source(g, outputs, offsets, name="evaluate", arguments="q, qd, qdd, qd_ref, sgn, stb, out", *,
                 inputs=None, free=True):
    """Python source of ``name(arguments)`` filling ``out[index]`` for each output, over samples.

    The same source runs on one sample when its inputs are Python floats and ``cos``, ``sin`` and
    ``sign`` are ``math``'s (the temporaries are then better kept: ``free=False``).

    Parameters
    ----------
    g : Graph
    outputs : list of (index tuple, node id)
        e.g. ((joint, column), node) for a regressor (``out`` shaped (n_dof, n_out, S)).
    offsets : sequence of float
        Joint offsets (SI) added to q before cos/sin or as a prismatic joint's d.
    arguments : str
        The function's parameters; inputs read q, qd, qdd, qd_ref, p (parameters, scalars) and the
        friction shapes sgn, stb (c(q̇), s(q̇) of :func:`baseparam.model.friction.friction_shapes`).
    inputs : callable, optional
        ``inputs(name, index) -> str``, the source of a graph input (default: joint k's values at
        row k of the arguments, as above).
    free : bool
        Delete each temporary after its last use (numpy then recycles a few cache-resident buffers).
    """
    source_of = inputs or (lambda name, k: _input_source(name, k, offsets))
    roots = [i for _, i in outputs]
    root_set = set(roots)
    order = live_nodes(g, roots)
    last_use = {}
    for pos, i in enumerate(order):
        op, args = g.ops[i], g.args[i]
        for a in (args if op in BINARY else (args,) if op == NEG else ()):
            last_use[a] = pos
    for i in roots:
        last_use[i] = len(order)

    ref = reference(g, repr)
    lines = [f"def {name}({arguments}):"]
    dead_at = {}
    for i, pos in last_use.items():
        dead_at.setdefault(pos, []).append(i)
    for pos, i, expr in node_sources(g, order, source_of, repr):
        lines.append(f"    x{i} = {expr}")
        dead = [f"x{d}" for d in dead_at.get(pos, ()) if g.ops[d] != CONST and d not in root_set]
        if dead and free:
            lines.append(f"    del {', '.join(dead)}")
    for index, i in outputs:
        lines.append(f"    out[{', '.join(map(str, index))}] = {ref(i)}")
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


def regressor_function(robot, parameters, columns, kind, gravity=True, friction=True):
    """The compiled block function for a robot's regressor columns (cached by the robot's structure).

    Returns
    -------
    callable
        kind 'regressor' or 'slotine_li': ``f(q, qd, qdd, qd_ref, sgn, stb, out)`` with inputs
        (n_dof, S) (``sgn``, ``stb``: the friction shapes) and ``out`` (n_dof, n_columns, S); kind
        'mass': ``f(q, p, out)`` with ``out`` (n_dof, n_dof, S) (``columns`` ignored); kind
        'inverse_dynamics': ``f(q, qd, qdd, sgn, stb, p, out)``, τ = W[:, columns] p by customized
        Newton–Euler, ``out`` (n_dof, S). ``out`` is zero-filled by the caller.
    """
    # kept with the robot object (its Kernels): robots differing only in true inertias are different
    # objects, and equal ones may need different code (friction value 0 vs no friction)
    columns = tuple(int(c) for c in columns)
    return kernels_of(robot).get("regressor", (parameters, columns, kind, gravity, friction),
                                 lambda: _build(robot, parameters, columns, kind, gravity, friction))


def _build(robot, parameters, columns, kind, gravity, friction):
    if kind == "mass":
        g, outputs = regressor_graph.build_mass(robot, parameters)
        arguments = "q, p, out"
    elif kind == "inverse_dynamics":
        g, entries = regressor_graph.build_inverse_dynamics(robot, parameters, columns)
        outputs, arguments = [((j,), i) for j, i in entries], "q, qd, qdd, sgn, stb, p, out"
    else:
        g, entries = regressor_graph.build(robot, parameters, columns, kind, gravity, friction)
        outputs, arguments = [((j, c), i) for j, c, i in entries], "q, qd, qdd, qd_ref, sgn, stb, out"
    offsets = motion_offsets(robot)
    source = numpy_source(g, outputs, offsets, arguments=arguments)
    namespace = {"cos": np.cos, "sin": np.sin, "sign": np.sign}
    exec(compile(source, f"<baseparam {kind} of {robot.name}>", "exec"), namespace)
    return namespace["evaluate"]
