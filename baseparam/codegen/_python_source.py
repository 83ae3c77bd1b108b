"""The Python export: a module needing only numpy, evaluating one sample or a vectorized batch."""
from __future__ import annotations

from .._validation import ABSURD, ABSURD_PARAMETER
from ..dynamics.printing import PYTHON_EXPORT, Printer, prologue
from ._printer import _header_comment, _leaf, _safe
from ._routines import PURPOSE


def python_function(robot, routine, R):
    """The Python (numpy) definition of one routine, vectorized over samples."""
    g, n = routine.graph, robot.n_v
    printer = Printer(g, [i for _, i in routine.outputs], _leaf(robot, routine), PYTHON_EXPORT.number)
    args = routine.arguments
    states = [a for a in args if a != "p_base"]
    lines = [f"def {routine.name}({', '.join(args)}):",
             f'    """{PURPOSE[routine.name]}.', "",
             "    Arrays of shape (n,) give one sample; (S, n) a batch of S samples (vectorized).",
             "    Returns " + (f"({n},) or (S, {n})" if routine.output == "tau" else
                               f"({n}, {R}) or (S, {n}, {R})") + ".",
             '    """',
             f"    ({', '.join(states)}), single = _states({', '.join(states)})",
             "    cos, sin, sign, tanh, exp = _SCALAR if single else _ARRAY"]
    if "p_base" in args:
        lines.append("    p_base = _parameters(p_base, single)")
    lines += prologue(g, printer.order, robot, PYTHON_EXPORT)
    lines += [PYTHON_EXPORT.let((name,), (text,)) for name, text in printer.temporaries()]
    # tau (n,) per sample, or Y (n, R) written from its row-major flat indices; samples last, then first
    shape, entry, samples_first = ((f"{n},", str, "out.T") if routine.output == "tau" else
                                   (f"{n}, {R}", lambda i: f"{i // R}, {i % R}", "out.transpose(2, 0, 1)"))
    lines.append(f"    out = _output(single, q, ({shape}))")
    lines += [f"    out[{entry(index)}] = {printer.ref(node)}" for index, node in routine.outputs]
    lines.append(f"    return out if single else {samples_first}")
    return "\n".join(lines) + "\n"


# The module's helpers: the check of the state arrays (:data:`_JOINT_STATES`, or a floating base's
# :data:`_FLOATING_STATES`) between their head and tail.
_PY_HEAD = '''
# One sample runs on Python floats (math), a batch on numpy arrays: the same straight-line code
# serves both, and a single call costs tens of microseconds instead of numpy's per-call overhead.
_SCALAR = (math.cos, math.sin, lambda x: float((x > 0) - (x < 0)), math.tanh, math.exp)
_ARRAY = (np.cos, np.sin, np.sign, np.tanh, np.exp)


def _states(*arrays):
    """Joint arrays as rows: lists of floats for one sample (n,), (n, S) arrays for a batch (S, n)."""
    checked = [np.asarray(x, dtype=float) for x in arrays]
'''
_JOINT_STATES = '''    for x in checked:
        if x.ndim not in (1, 2) or x.shape[-1] != N_DOF:
            raise ValueError(f"expected shape ({N_DOF},) or (S, {N_DOF}), got {x.shape}")
    if len({x.shape for x in checked}) > 1:
        raise ValueError("the state arrays must have the same shape, got " + ", ".join(str(x.shape) for x in checked))'''  # noqa: E501 (the helper's text)
_FLOATING_STATES = '''    k = len(checked) // 2       # base_pose and the base's k - 1 rates, then k joint arrays
    for x, n in zip(checked, (7,) + (6,) * (k - 1) + (N_DOF,) * k):
        if x.ndim not in (1, 2) or x.shape[-1] != n:
            raise ValueError(f"expected shape ({n},) or (S, {n}), got {x.shape}")
    if len({x.shape[:-1] for x in checked}) > 1:
        raise ValueError("the state arrays must have the same number of samples, got "
                         + ", ".join(str(x.shape) for x in checked))'''
_PY_TAIL = '''
    if not all((np.abs(x) <= MAX_STATE).all() for x in checked):
        raise ValueError(f"the state arrays contain a non-finite value, or a value beyond ±{MAX_STATE:g}")
    single = checked[0].ndim == 1
    return [x.tolist() if single else x.T for x in checked], single


def _parameters(p, single):
    p = np.asarray(p, dtype=float)
    if p.shape != (N_BASE,):
        raise ValueError(f"p_base: expected shape ({N_BASE},), got {p.shape}")
    if not (np.abs(p) <= MAX_PARAMETER).all():
        raise ValueError(f"p_base: a non-finite value, or a value beyond ±{MAX_PARAMETER:g}")
    return p.tolist() if single else p


def _output(single, q, shape):
    return np.zeros(shape if single else shape + (q.shape[1],))
'''


def python_source(base, selected, prefix, counts):
    """Text of the Python export (a module needing numpy only; ``counts``: each routine's operation counts)."""
    robot, R = base.robot, base.rank
    # a floating base's pose, twist and rate lead the state arguments, each its own width
    helpers = _PY_HEAD + (_FLOATING_STATES if robot.is_floating else _JOINT_STATES) + _PY_TAIL
    lines = [f'"""{prefix}: base-parameter dynamics of {_safe(robot.name)}, exported by baseparam (numpy, SI units).',
             "", "Functions: " + ", ".join(r.name for r in selected) + ". See the comments below for the",
             'base parameters and their regroupings."""', _header_comment(base, counts, prefix, "python"),
             "import math", "", "import numpy as np", "",
             f"N_DOF = {robot.n_dof}", f"N_BASE = {R}",
             f"BASE_NAMES = {list(base.names)!r}",
             f"OPERATION_COUNTS = {counts!r}",
             "# Beyond these magnitudes a state or a parameter is no robot's, and the products would overflow to",
             "# non-finite values (inputs of 1e154 square to 1e308): refused, as baseparam's own functions refuse them",
             f"MAX_STATE, MAX_PARAMETER = {ABSURD!r}, {ABSURD_PARAMETER!r}"]
    if robot.is_floating:
        lines += [f"N_V = {robot.n_v}"]
    lines.append(helpers)
    for r in selected:
        lines += ["", python_function(robot, r, R)]
    return "\n".join(lines)
