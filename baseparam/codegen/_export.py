"""Exported code: a robot's base regressor, Slotine–Li regressor and inverse dynamics as C or Python.

The expression graphs of :mod:`baseparam.dynamics._regressor_graph` already hold each value once
(hash-consing), with the DH table's exact 0 and ±1 folded; here they are written out as
straight-line code (Golubev & Yaskevich's procedure):

* only the nodes the outputs need are emitted (dead code removed from the targets backwards);
* sin and cos are computed once per joint, at the top;
* a value used more than once gets a named ``const`` temporary; a value used once is written
  inline where it is used — the code has exactly the graph's operations, no more;
* operation counts (:func:`operation_counts`) are taken from the same emitted graph for every
  target: multiplications (x² counts one), additions and subtractions, divisions, and sin/cos
  pairs; negation is free. Adding a joint offset to q counts as an addition.

C: one header and one source, C99, nothing beyond ``<math.h>``, no allocation, SI units,
row-major outputs (``Y[j*R + r]``). Python: a module needing only numpy, evaluating one sample
(arrays (n,)) or a batch (arrays (S, n)), vectorized over samples. Both carry the base-parameter
names and their regroupings as comments. :func:`export` writes the files and ``NAME.json``.
"""
from __future__ import annotations

import contextlib
import json
import keyword
import os
import re
from dataclasses import dataclass, field
from types import MappingProxyType

from .._atomic import atomic_path
from ..projection.base_set import BaseParameters
from ..errors import ExportError
from ..dynamics._expressions import ADD, CONST, INPUT, MUL, NEG, SUB, live_nodes, operation_count
from ..dynamics._regressor_graph import build, build_inverse_dynamics
from ..model.joint_model import motion_offsets
from ..projection.report import format_regrouping

FUNCTIONS = ("regressor", "slotine_li", "inverse_dynamics")
ARGUMENTS = {
    "regressor": ("q", "qd", "qdd"),
    "slotine_li": ("q", "qd", "qd_ref", "qdd_ref"),
    "inverse_dynamics": ("q", "qd", "qdd", "p_base"),
}
PURPOSE = {
    "regressor": "base regressor: tau = Y p_base (Y row-major, N x R)",
    "slotine_li": "Slotine-Li regressor: Y p_base = M qdd_ref + C(q, qd) qd_ref + g + friction(qd) "
                  "(C Christoffel-consistent)",
    "inverse_dynamics": "inverse dynamics in base parameters: tau = Y(q, qd, qdd) p_base, by customized "
                        "Newton-Euler",
}


# ``ExportError`` lives in :mod:`baseparam.errors`; it stays importable from here.
__all__ = ["ExportError", "ExportResult", "FUNCTIONS", "check_prefix", "export", "parse_what"]


@dataclass(frozen=True)
class ExportResult:
    """What :func:`export` wrote.

    Attributes
    ----------
    files : tuple of str
        Paths written, in order: ``NAME.h``, ``NAME.c`` (C) or ``NAME_dynamics.py`` (Python), then
        ``NAME.json``.
    functions : mapping
        Function name (:data:`FUNCTIONS`: the C functions are ``NAME_<function>``, the Python
        module's functions ``<function>``) → operation counts ``{"mul", "add", "div", "sincos"}``.
    base_names : tuple of str, length R
        Names of the base parameters, in the column order of ``Y`` and ``p_base``.
    lang : {'c', 'python'}
    prefix : str
    """

    files: tuple
    functions: MappingProxyType = field(repr=False)
    base_names: tuple = field(repr=False)
    lang: str = "c"
    prefix: str = "baseparam"

    def __repr__(self):
        names = [os.path.basename(f) for f in self.files]
        return (f"ExportResult(lang={self.lang!r}, prefix={self.prefix!r}, files={names}, "
                f"functions={list(self.functions)}, n_base={len(self.base_names)})")

    def summary(self):
        """One line per function: its operation counts (what the CLI prints)."""
        return "\n".join(f"  {name:<17} {c['mul']:>5} mul {c['add']:>5} add {c['div']:>3} div {c['sincos']:>3} sincos"
                         for name, c in self.functions.items())

    def __getitem__(self, key):
        # read access of the former dict result (``result["files"]``, ``result["functions"]``)
        if key == "files":
            return list(self.files)
        if key == "functions":
            return dict(self.functions)
        raise KeyError(key)


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
        Length of the output array (N·R for regressors, N for the inverse dynamics).
    inputs : dict
        Graph input name → argument name (e.g. the Slotine–Li graph's ``qdd`` is ``qdd_ref``).
    """

    name: str
    graph: object
    outputs: list
    size: int
    inputs: dict = field(default_factory=dict)

    @property
    def output(self):
        return "tau" if self.name == "inverse_dynamics" else "Y"


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
    n, R = base.robot.n_dof, base.rank
    for name in what:
        if name == "inverse_dynamics":
            g, entries = build_inverse_dynamics(base.robot, base.parameters, base.pivots)
            out.append(Routine(name, g, [(j, i) for j, i in entries], n,
                               {"qd": "qd", "qdd": "qdd", "p": "p_base"}))
        else:
            g, entries = build(base.robot, base.parameters, base.pivots, kind=name)
            inputs = {"qd": "qd", "qdd": "qdd"} if name == "regressor" else \
                {"qd": "qd", "qdd": "qdd_ref", "qd_ref": "qd_ref"}
            out.append(Routine(name, g, [(j * R + c, i) for j, c, i in entries], n * R, inputs))
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


# -- printing a graph as expressions ------------------------------------------------------------
class _Printer:
    """Expressions of a graph's live nodes: temporaries for values used more than once, else inline.

    Parameters
    ----------
    graph : Graph
    roots : list of int
        Output nodes (a root used by several outputs or by other nodes gets a temporary).
    leaf : callable
        ``leaf(name, index) -> str``: how an input is written.
    number : callable
        ``number(float) -> str``: how a constant is written.
    """

    def __init__(self, graph, roots, leaf, number, mul="*"):
        self.g, self.leaf, self.number, self.mul = graph, leaf, number, mul
        self.order = live_nodes(graph, roots)
        uses = {}
        for i in self.order:
            op, args = graph.ops[i], graph.args[i]
            for a in (args if op in (ADD, SUB, MUL) else (args,) if op == NEG else ()):
                uses[a] = uses.get(a, 0) + 1
        for i in roots:
            uses[i] = uses.get(i, 0) + 1
        self.named = {i for i in self.order if uses.get(i, 0) > 1 and graph.ops[i] in (ADD, SUB, MUL, NEG)}
        self.names = {}

    def temporaries(self):
        """(name, expression) for each multi-use node, in dependency order."""
        out = []
        for i in self.order:
            if i in self.named:
                text = self._expr(i, inline_self=True)
                self.names[i] = f"t{len(self.names) + 1}"
                out.append((self.names[i], text))
        return out

    def ref(self, i):
        """An operand: its temporary, its input, its constant, or its inline expression."""
        if i in self.names:
            return self.names[i]
        return self._expr(i)

    def _expr(self, i, inline_self=False):
        g = self.g
        op, args = g.ops[i], g.args[i]
        if op == CONST:
            return self.number(args)
        if op == INPUT:
            return self.leaf(*args)
        if not inline_self and i in self.names:
            return self.names[i]
        if op == NEG:
            inner = self.ref(args)
            return f"-({inner})" if self._compound(args) else f"-{inner}"
        a, b = args
        if op == MUL:
            return f"{self._factor(a)}{self.mul}{self._factor(b)}"
        right = self.ref(b)
        if op == SUB and self._compound(b, minus=True):
            right = f"({right})"
        return f"{self.ref(a)} {'+' if op == ADD else '-'} {right}"

    def _compound(self, i, minus=False):
        """Whether node i is printed as a sum (needs parentheses after '-' or around a product)."""
        if i in self.names:
            return False
        op = self.g.ops[i]
        if op in (ADD, SUB):
            return True
        if op == CONST:
            return self.g.args[i] < 0
        return op == NEG and minus

    def _factor(self, i):
        text = self.ref(i)
        op = self.g.ops[i]
        if i not in self.names and (op in (ADD, SUB, NEG) or (op == CONST and self.g.args[i] < 0)):
            return f"({text})"
        return text


def _c_number(x):
    text = repr(float(x))
    return text if any(ch in text for ch in ".en") else text + ".0"


def _regrouping_lines(base):
    """'r: NAME = regrouping' per base parameter, in SI (the exported code is SI)."""
    lines = []
    for r, name in enumerate(base.names):
        terms = {base.standard_names[c]: float(v) for c, v in enumerate(base.Y[r]) if v != 0}
        lines.append(f"{r:>3}  {name} = {format_regrouping(base, r, terms)}")
    return lines


def _safe(text):
    """Text that can sit in a C comment or a Python docstring whatever it contains (a robot's name)."""
    return re.sub(r"[^\w .,:;()+\-·°'#&]", "_", str(text)).replace("__", "_")


def _accuracy_line(base):
    if base.exact:
        return "Regroupings exact (decided in rational arithmetic)."
    if base.inaccurate:
        return (f"WARNING: nearly special geometry: the regroupings are accurate only to about {base.accuracy:.0e} "
                "(relative), and so are torques from p_base.")
    return f"Regroupings in floating point, accurate to about {max(base.accuracy, 1e-16):.0e} (relative)."


def _header_comment(base, counts, prefix, style):
    robot = base.robot
    lines = [f"{prefix}: exported by baseparam for {_safe(robot.name)} ({robot.n_dof} joints, {robot.convention} DH)",
             f"{base.rank} base parameters ({base.parameters} parameterization), SI units: m, rad, kg, s, N·m, N.",
             _accuracy_line(base),
             "Straight-line code: every common subexpression once, DH zeros and ones folded, sin/cos once per",
             "joint. Operation counts (mul, add, div, sin/cos pairs):"]
    for name, c in counts.items():
        lines.append(f"  {name}: {c['mul']} mul, {c['add']} add, {c['div']} div, {c['sincos']} sincos")
    lines += ["", "p_base[r], r = 0.." + str(base.rank - 1) + ": name = regrouping of the standard parameters (SI)"]
    lines += _regrouping_lines(base)
    if style == "c":
        body = "\n".join((" * " + line).rstrip() for line in lines)
        return "/*\n" + body.replace("*/", "* /") + "\n */\n"
    return "\n".join(("# " + line).rstrip() for line in lines) + "\n"


# -- C ---------------------------------------------------------------------------------------------
def _c_signature(prefix, routine, n, R):
    args = ARGUMENTS[routine.name]
    params = [f"const double {a}[{R if a == 'p_base' else n}]" for a in args]
    out = f"double tau[{n}]" if routine.output == "tau" else f"double Y[{n * R}]"
    return f"void {prefix}_{routine.name}({', '.join(params + [out])})"


def _leaf(robot, routine):
    """How a graph input is written (C and Python alike): angles' sin/cos and signs are named
    locals, everything else indexes the function's arguments."""
    offsets = motion_offsets(robot)

    def leaf(name, k):
        if name in ("c", "s"):
            return f"{name}{k + 1}"
        if name == "d":
            return f"q[{k}]" if offsets[k] == 0.0 else f"q{k + 1}"
        if name == "sgn":
            return f"sg{k + 1}"
        return f"{_argument(routine, name)}[{k}]"
    return leaf


def _argument(routine, name):
    """The function argument a graph input reads."""
    return {"c": "q", "s": "q", "d": "q", "sgn": "qd", "p": "p_base"}.get(name) or routine.inputs[name]


def _prologue(g, live, robot):
    """What a function computes from q and q̇ before its expressions, per joint, in order:
    ("angle", k, offset) for q_k + offset, ("trig", k, angle) for its cos and sin, ("sign", k)."""
    offsets = motion_offsets(robot)
    used = {(g.args[i][0], g.args[i][1]) for i in live if g.ops[i] == INPUT}
    items = []
    for k in range(robot.n_dof):
        angle = f"q[{k}]"
        if offsets[k] != 0.0 and any((x, k) in used for x in ("c", "s", "d")):
            items.append(("angle", k, float(offsets[k])))
            angle = f"q{k + 1}"
        if ("c", k) in used or ("s", k) in used:
            items.append(("trig", k, angle))
        if ("sgn", k) in used:
            items.append(("sign", k, None))
    return items


def _c_prologue(g, live, robot):
    forms = {"angle": lambda k, x: f"    const double q{k + 1} = q[{k}] {'-' if x < 0 else '+'} {_c_number(abs(x))};",
             "trig": lambda k, x: f"    const double c{k + 1} = cos({x}), s{k + 1} = sin({x});",
             "sign": lambda k, x: f"    const double sg{k + 1} = (double)((qd[{k}] > 0.0) - (qd[{k}] < 0.0));"}
    return [forms[kind](k, x) for kind, k, x in _prologue(g, live, robot)]


def c_function(robot, routine, prefix, R):
    """The C definition of one routine (see :func:`c_sources`)."""
    g, n = routine.graph, robot.n_dof
    roots = [i for _, i in routine.outputs]
    printer = _Printer(g, roots, _leaf(robot, routine), _c_number)
    lines = [_c_signature(prefix, routine, n, R), "{"]
    lines += _c_prologue(g, printer.order, robot)
    lines += [f"    const double {name} = {text};" for name, text in printer.temporaries()]
    out = routine.output
    written = {index for index, _ in routine.outputs}
    if len(written) < routine.size:
        lines.append(f"    for (int i = 0; i < {routine.size}; ++i) {out}[i] = 0.0;")
    for index, node in routine.outputs:
        lines.append(f"    {out}[{index}] = {printer.ref(node)};")
    used = {_argument(routine, g.args[i][0]) for i in printer.order if g.ops[i] == INPUT}
    for arg in ARGUMENTS[routine.name]:                   # a constant output reads nothing: say so
        if arg not in used:
            lines.insert(2, f"    (void){arg};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def c_sources(base, selected, prefix):
    """Header and source text of the C export.

    Returns
    -------
    header, source : str
    """
    robot, n, R = base.robot, base.robot.n_dof, base.rank
    counts = {r.name: operation_counts(r, robot) for r in selected}
    guard = f"{prefix.upper()}_H"
    comment = _header_comment(base, counts, prefix, "c")
    names = ", ".join(f'"{name}"' for name in base.names)
    header = [comment, f"#ifndef {guard}", f"#define {guard}", "",
              "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
              f"#define {prefix.upper()}_N_DOF {n}", f"#define {prefix.upper()}_N_BASE {R}", "",
              "/* names of the base parameters, in the column order of Y and p_base */",
              f"extern const char *const {prefix}_base_names[{R}];", ""]
    for r in selected:
        header += [f"/* {PURPOSE[r.name]} */", _c_signature(prefix, r, n, R) + ";", ""]
    header += ["#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    source = [comment, "#include <math.h>", f'#include "{prefix}.h"', "",
              f"const char *const {prefix}_base_names[{R}] = {{{names}}};", ""]
    for r in selected:
        source += [f"/* {PURPOSE[r.name]} */", c_function(robot, r, prefix, R)]
    return "\n".join(header), "\n".join(source)


# -- Python ----------------------------------------------------------------------------------------
def python_function(robot, routine, R):
    """The Python (numpy) definition of one routine, vectorized over samples."""
    g, n = routine.graph, robot.n_dof
    roots = [i for _, i in routine.outputs]
    printer = _Printer(g, roots, _leaf(robot, routine), lambda x: repr(float(x)))
    args = ARGUMENTS[routine.name]
    states = [a for a in args if a != "p_base"]
    lines = [f"def {routine.name}({', '.join(args)}):",
             f'    """{PURPOSE[routine.name]}.', "",
             "    Arrays of shape (n,) give one sample; (S, n) a batch of S samples (vectorized).",
             "    Returns " + (f"({n},) or (S, {n})" if routine.output == "tau" else
                               f"({n}, {R}) or (S, {n}, {R})") + ".",
             '    """',
             f"    ({', '.join(states)}), single = _states({', '.join(states)})",
             "    cos, sin, sign = _SCALAR if single else _ARRAY"]
    if "p_base" in args:
        lines.append("    p_base = _parameters(p_base, single)")
    forms = {"angle": lambda k, x: f"    q{k + 1} = q[{k}] {'-' if x < 0 else '+'} {abs(x)!r}",
             "trig": lambda k, x: f"    c{k + 1}, s{k + 1} = cos({x}), sin({x})",
             "sign": lambda k, x: f"    sg{k + 1} = sign(qd[{k}])"}
    lines += [forms[kind](k, x) for kind, k, x in _prologue(g, printer.order, robot)]
    lines += [f"    {name} = {text}" for name, text in printer.temporaries()]
    if routine.output == "tau":
        lines.append(f"    out = _output(single, q, ({n},))")
        for index, node in routine.outputs:
            lines.append(f"    out[{index}] = {printer.ref(node)}")
        lines.append("    return out if single else out.T")
    else:
        lines.append(f"    out = _output(single, q, ({n}, {R}))")
        for index, node in routine.outputs:
            lines.append(f"    out[{index // R}, {index % R}] = {printer.ref(node)}")
        lines.append("    return out if single else out.transpose(2, 0, 1)")
    return "\n".join(lines) + "\n"


_PY_HELPERS = '''
# One sample runs on Python floats (math), a batch on numpy arrays: the same straight-line code
# serves both, and a single call costs tens of microseconds instead of numpy's per-call overhead.
_SCALAR = (math.cos, math.sin, lambda x: float((x > 0) - (x < 0)))
_ARRAY = (np.cos, np.sin, np.sign)


def _states(*arrays):
    """Joint arrays as rows: lists of floats for one sample (n,), (n, S) arrays for a batch (S, n)."""
    checked = [np.asarray(x, dtype=float) for x in arrays]
    for x in checked:
        if x.ndim not in (1, 2) or x.shape[-1] != N_DOF:
            raise ValueError(f"expected shape ({N_DOF},) or (S, {N_DOF}), got {x.shape}")
    if len({x.shape for x in checked}) > 1:
        raise ValueError("the state arrays must have the same shape, got " + ", ".join(str(x.shape) for x in checked))
    if not all(np.isfinite(x).all() for x in checked):
        raise ValueError("the state arrays contain NaN or inf")
    single = checked[0].ndim == 1
    return [x.tolist() if single else x.T for x in checked], single


def _parameters(p, single):
    p = np.asarray(p, dtype=float)
    if p.shape != (N_BASE,):
        raise ValueError(f"p_base: expected shape ({N_BASE},), got {p.shape}")
    return p.tolist() if single else p


def _output(single, q, shape):
    return np.zeros(shape if single else shape + (q.shape[1],))
'''


def python_source(base, selected, prefix):
    """Text of the Python export (a module needing numpy only)."""
    robot, R = base.robot, base.rank
    counts = {r.name: operation_counts(r, robot) for r in selected}
    lines = [f'"""{prefix}: base-parameter dynamics of {_safe(robot.name)}, exported by baseparam (numpy, SI units).',
             "", "Functions: " + ", ".join(r.name for r in selected) + ". See the comments below for the",
             'base parameters and their regroupings."""', _header_comment(base, counts, prefix, "python"),
             "import math", "", "import numpy as np", "",
             f"N_DOF = {robot.n_dof}", f"N_BASE = {R}",
             f"BASE_NAMES = {list(base.names)!r}",
             f"OPERATION_COUNTS = {counts!r}",
             _PY_HELPERS]
    for r in selected:
        lines += ["", python_function(robot, r, R)]
    return "\n".join(lines)


# -- files -----------------------------------------------------------------------------------------
def parse_what(text):
    """Function names from ``"regressor,slotine_li,inverse_dynamics"`` or a sequence of names.

    The names are those of :data:`FUNCTIONS` (the C functions ``NAME_<name>``, the Python
    module's functions); ``slotine-li`` and ``inverse-dynamics`` are accepted for ``_``.
    """
    names = []
    for part in (text.split(",") if isinstance(text, str) else text):
        name = str(part).strip().replace("-", "_")
        if name not in FUNCTIONS:
            raise ExportError(f"what: unknown function {str(part).strip()!r}; expected {', '.join(FUNCTIONS)}")
        if name not in names:
            names.append(name)
    if not names:
        raise ExportError("what: no function named; expected some of " + ", ".join(FUNCTIONS))
    return names


def check_prefix(prefix, lang=None):
    """A prefix must be a C identifier not reserved to the implementation (no leading '_'), at most
    64 characters; for Python also not a keyword."""
    if not isinstance(prefix, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", prefix):
        raise ExportError(f"prefix: {prefix!r} is not a valid name: a letter, then letters, digits or '_' "
                          "(CLI --prefix)")
    if len(prefix) > 64:
        raise ExportError(f"prefix: {len(prefix)} characters; at most 64 (CLI --prefix)")
    if lang == "python" and keyword.iskeyword(prefix):
        raise ExportError(f"prefix: {prefix!r} is a Python keyword (CLI --prefix)")
    return prefix


def export(base, lang, what=FUNCTIONS, prefix="baseparam", out_dir="."):
    """Write the exported code and ``NAME.json`` (base-parameter names, operation counts).

    Parameters
    ----------
    base : BaseParameters
    lang : {'c', 'python'}
    what : sequence of str or str
        Functions, names from :data:`FUNCTIONS` (``regressor``, ``slotine_li``, ``inverse_dynamics``:
        the Python module's function names, ``NAME_<function>`` in C); ``slotine-li`` is accepted.
    prefix : str
        NAME: function prefix and file stem (``NAME.h``/``NAME.c``, or the module ``NAME_dynamics.py``,
        and ``NAME.json``).
    out_dir : str
        Directory of the files (created if missing).

    Returns
    -------
    ExportResult
        The files written, each function's operation counts and the base-parameter names.

    Raises
    ------
    ExportError
        An invalid option (the message names the parameter).
    """
    if not isinstance(base, BaseParameters):
        raise ExportError(f"base: expected the BaseParameters of find_base_parameters(robot), got "
                          f"{type(base).__name__}")
    if lang not in ("c", "python"):
        raise ExportError(f"lang: expected 'c' or 'python', got {lang!r}")
    selected = routines(base, parse_what(what))
    check_prefix(prefix, lang)
    if not str(out_dir):
        raise ExportError("out_dir: empty directory name")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ExportError(f"{out_dir}: out_dir: not a directory")
    os.makedirs(out_dir, exist_ok=True)
    files = {}
    if lang == "c":
        header, source = c_sources(base, selected, prefix)
        files[f"{prefix}.h"], files[f"{prefix}.c"] = header, source
    else:
        # not NAME.py: with the default NAME, a module "baseparam.py" would shadow this package
        files[f"{prefix}_dynamics.py"] = python_source(base, selected, prefix)
    counts = {r.name: operation_counts(r, base.robot) for r in selected}
    # the counts are the graphs', the same for C and Python: the document does not depend on --lang
    doc = {"robot": base.robot.name, "parameters": base.parameters, "n_dof": base.robot.n_dof,
           "base": list(base.names), "functions": counts,
           "accuracy": {"exact": bool(base.exact), "relative": float(base.accuracy), "note": _accuracy_line(base)},
           "regroupings": {name: {base.standard_names[c]: float(v) for c, v in enumerate(base.Y[r]) if v != 0}
                           for r, name in enumerate(base.names)}}
    files[f"{prefix}.json"] = json.dumps(doc, indent=2) + "\n"
    paths = [os.path.join(out_dir, name) for name in files]
    with contextlib.ExitStack() as stack:     # all files written to temporaries, then all renamed
        for path, text in zip(paths, files.values()):
            with open(stack.enter_context(atomic_path(path, suffix=os.path.splitext(path)[1])), "w",
                      encoding="utf-8") as fh:
                fh.write(text)
    return ExportResult(files=tuple(paths), functions=MappingProxyType(counts), base_names=tuple(base.names),
                        lang=lang, prefix=prefix)
