"""Gradients of regressor functionals with respect to the joint states, by reverse mode on the graph.

For a weight array G of the regressor's shape, the scalar ``φ = Σ_{s,i,c} G[s,i,c] · W(q_s, q̇_s, q̈_s)[i,c]``
has the state gradients ``∂φ/∂q_s``, ``∂φ/∂q̇_s``, ``∂φ/∂q̈_s`` — the vector–Jacobian products that
the gradient of any criterion of the stacked regressor needs (the condition number, a log-det, a
torque ``W p``): G is the criterion's derivative with respect to W, and the chain rule through
q(x), q̇(x), q̈(x) finishes the job.

They are derived once per robot from the regressor's own expression graph
(:func:`baseparam.dynamics.regressor_graph.build`) by reverse-mode differentiation: each node's
adjoint is accumulated from its users (``x·y`` passes ``ā·y`` to x and ``ā·x`` to y; sums pass ā
on), in the same hash-consed graph, so the adjoint code shares the forward values and folds the
DH table's exact zeros like the regressor does. The graph is compiled to straight-line numpy over
blocks of samples: one pass costs a few regressor evaluations, whatever the number of joints,
instead of one evaluation per state variable (finite differences or complex steps).

Conventions: a revolute joint's inputs are c = cos(q + offset) and s = sin(q + offset), so
∂φ/∂q = −s·c̄ + c·s̄; a prismatic joint's is d = q + offset. The friction shapes (sign(q̇), or a
friction model's tanh and Stribeck terms, :mod:`baseparam.model.friction`) are inputs of the graph
too: their adjoints are carried to q̇ through the shapes' slopes (zero for sign(q̇) wherever q̇ ≠ 0).
A search may ask for sign(q̇) to be replaced by tanh(q̇/w) (``sign_width``): a surrogate whose
columns move continuously with the motion, so that the gradient sees where the velocity reverses.
"""
from __future__ import annotations

import numpy as np

from . import regressor_graph
from .expressions import ADD, CONST, INPUT, MUL, NEG, SUB, Expr, live_nodes
from .printing import numpy_function
from .regressors import _evaluate as evaluate
from .samples import CHUNK
from ..model.friction import shapes_at, slopes_at
from ..model._kernels import kernels_of
from ..model.joint_model import motion_offsets


def adjoint_graph(robot, parameters="pseudo", columns=None):
    """The regressor graph extended by the adjoints of its state inputs.

    Parameters
    ----------
    robot : Robot
    parameters : {'pseudo', 'khalil'}
    columns : sequence of int, optional
        Standard columns of the regressor (default all), e.g. a base set's pivots.

    Returns
    -------
    graph : Graph
    entries : list of (joint, column)
        The structurally non-zero regressor entries, in the order of the weight inputs ``p[e]``.
    outputs : list of ((k, joint), node id)
        k = 0, 1, 2 for ∂φ/∂q, ∂φ/∂q̇, ∂φ/∂q̈ of the joint, 3 and 4 for ∂φ/∂c and ∂φ/∂s of its
        friction shapes (absent: zero).
    """
    g, forward = regressor_graph.build(robot, parameters, columns)
    adjoint: dict = {}

    def accumulate(i, value):
        adjoint[i] = value if i not in adjoint else adjoint[i] + value

    entries = []
    for e, (joint, column, node) in enumerate(forward):
        entries.append((joint, column))
        accumulate(node, g.input("p", e))
    inputs = {}
    for i in reversed(live_nodes(g, [node for _, _, node in forward])):
        bar = adjoint.pop(i, None)
        op, args = g.ops[i], g.args[i]
        if bar is None or op == CONST:
            continue
        if op == INPUT:
            inputs[args] = bar
        elif op == ADD:
            accumulate(args[0], bar)
            accumulate(args[1], bar)
        elif op == SUB:
            accumulate(args[0], bar)
            accumulate(args[1], -bar)
        elif op == NEG:
            accumulate(args, -bar)
        elif op == MUL:
            x, y = (Expr(g, a) for a in args)
            accumulate(args[0], bar * y)
            accumulate(args[1], bar * x)
    outputs = []
    for k in range(robot.n_dof):
        c, s = g.input("c", k), g.input("s", k)
        zero = g.zero
        dq = inputs.get(("s", k), zero) * c - inputs.get(("c", k), zero) * s + inputs.get(("d", k), zero)
        for which, node in enumerate((dq, inputs.get(("qd", k), zero), inputs.get(("qdd", k), zero),
                                      inputs.get(("sgn", k), zero), inputs.get(("stb", k), zero))):
            if not node.is_zero:
                outputs.append(((which, k), node.i))
    return g, entries, outputs


def _compiled(robot, parameters, columns):
    columns = tuple(int(c) for c in columns)

    def build():
        g, entries, outputs = adjoint_graph(robot, parameters, columns)
        f = numpy_function(g, outputs, motion_offsets(robot), f"regressor adjoint of {robot.name}",
                           arguments="q, qd, qdd, sgn, stb, p, out")
        rows = np.array([j for j, _ in entries], dtype=np.intp)
        cols = np.array([c for _, c in entries], dtype=np.intp)
        return f, rows, cols
    return kernels_of(robot).get("adjoint", (parameters, columns), build, size=16)


def regressor_function(robot, parameters="pseudo", columns=None):
    """The regressor for one robot and set of columns, on checked arrays, with the surrogate of
    :func:`adjoint_function` (:func:`baseparam.dynamics.regressors.evaluate` with the shapes given).

    Returns
    -------
    callable
        ``regressor(q, qd, qdd, sign_width=None)`` → W, shape (n_samples, n_dof, n_columns);
        ``sign_width`` (n_dof,): sign(q̇) replaced by tanh(q̇/w) (module docstring).
    """
    def regressor(q, qd, qdd, sign_width=None):
        shapes = tuple(x.T for x in shapes_at(robot, qd.T, sign_width))
        return evaluate(robot, q, qd, qdd, parameters=parameters, columns=columns, shapes=shapes)
    return regressor


def adjoint_function(robot, parameters="pseudo", columns=None):
    """The gradient of ``φ = Σ G ⊙ W(q, q̇, q̈)`` with respect to every sample's states, for one robot and set of
    columns (default all, in G's column order), resolved once for repeated calls.

    Returns
    -------
    callable
        ``gradients(q, qd, qdd, G, sign_width=None)`` → ndarray of shape (3, n_samples, n_dof): ∂φ/∂q, ∂φ/∂q̇,
        ∂φ/∂q̈, given checked states ``q, qd, qdd`` (n_samples, n_dof) (SI) and weights ``G`` (n_samples, n_dof,
        n_columns) of the regressor's entries (e.g. ∂criterion/∂W); ``sign_width`` (n_dof,): the gradient of the
        surrogate, sign(q̇) replaced by tanh(q̇/w), as in :func:`regressor_function`.
    """
    if columns is None:
        from ..model.parameters import ColumnLayout
        columns = range(ColumnLayout(robot, parameters).n_standard)
    f, rows, cols = _compiled(robot, parameters, columns)
    n = robot.n_dof

    def gradients(q, qd, qdd, G, sign_width=None):
        S = q.shape[0]
        out = np.zeros((5, n, S))                 # q, q̇, q̈, then the shapes c and s
        qT, qdT, qddT = q.T.copy(), qd.T.copy(), qdd.T.copy()
        sgn, stb = shapes_at(robot, qdT, sign_width)
        for s0 in range(0, S, CHUNK):
            sl = slice(s0, min(s0 + CHUNK, S))
            weights = np.ascontiguousarray(G[sl, rows, cols].T)       # (n_entries, block)
            f(qT[:, sl], qdT[:, sl], qddT[:, sl], sgn[:, sl], stb[:, sl], weights, out[:, :, sl])
        dsgn, dstb = slopes_at(robot, qdT, sign_width)
        out[1] += out[3] * dsgn + out[4] * dstb
        return out[:3].transpose(0, 2, 1)
    return gradients
