"""One printer of an expression graph, and its backends: numpy and C at run time, C and Python for export.

:class:`Printer` walks a graph once from its outputs: the live nodes in creation (topological)
order, how often each is used and where last, and which get a name. It writes each node as an
expression over its operands; the backends only say how a statement, a number and an input look:

* numpy at run time (:func:`numpy_source`): every node a statement ``x<id> = …`` over blocks of
  samples, each temporary deleted after its last use (numpy then recycles a few cache-resident
  buffers); the same source runs on Python floats for one sample;
* C at run time (:func:`c_statements`, compiled by :mod:`baseparam.dynamics._native`): every node
  a ``const double x<id>``;
* C and Python export (:mod:`baseparam.codegen`): a name ``t<n>`` only for a value used more than
  once, anything else inline — the code has exactly the graph's operations.

Graph inputs are named here and nowhere else: joint k's ``c``, ``s`` (cos and sin of its angle)
and ``d`` (the angle, or a prismatic joint's displacement) read ``q[first + k]`` plus the joint's
offset; its friction shapes ``sgn`` and ``stb`` (:func:`baseparam.model.friction.shape_code`) are
the argument rows ``sgn[k]``, ``stb[k]`` or computed from ``qd``; any other input ``(name, i)`` is
``name[i]`` (:func:`input_source`, run time). Exported code computes the per-joint values once in
a prologue of named locals (:data:`LOCAL`, :func:`prologue`, :func:`exported_input`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..errors import ExportError
from ..model.friction import refuse_unresolved, shape_code
from ..model.joint_model import motion_offsets
from .expressions import ADD, CONST, DIV, INPUT, MUL, NEG, SUB, live_nodes

_SYMBOL = {ADD: "+", SUB: "-", DIV: "/"}
OPERATIONS = (ADD, SUB, MUL, NEG, DIV)


def c_number(x):
    """A float as a C double literal (always with '.', 'e', or as inf/nan spelled by repr)."""
    text = repr(float(x))
    return text if any(ch in text for ch in ".en") else text + ".0"


def py_number(x):
    return repr(float(x))


@dataclass(frozen=True)
class Language:
    """What a backend writes its own way: numbers, sign(x) and x² (templates in ``{x}``), a local."""

    number: object = py_number                         # float -> str
    sign: str = "sign({x})"
    square: str = "{x} * {x}"
    declare: str = ""

    def let(self, names, values):
        """One statement giving the locals ``names`` their ``values`` (two at once for cos/sin)."""
        if self.declare:
            return f"    {self.declare}{', '.join(f'{n} = {v}' for n, v in zip(names, values))};"
        return f"    {', '.join(names)} = {', '.join(values)}"


NUMPY = Language()                                     # numpy over samples, or math on one sample
C = Language(c_number, sign="sgn({x})", declare="const double ")   # sgn: a helper of the runtime C source
C_EXPORT = replace(C, sign="(double)(({x} > 0.0) - ({x} < 0.0))")
# x * x, not x ** 2: on one sample the exported code runs on Python floats, whose ** raises OverflowError
# past 1.3e154 where * gives inf (exp(-inf) = 0, the Stribeck term's true limit); the value is the same.
PYTHON_EXPORT = NUMPY


class Printer:
    """Expressions of a graph's live nodes: named temporaries where the backend wants them, else inline.

    Parameters
    ----------
    graph : Graph
    roots : list of int
        Output nodes (a root counts as one more use).
    leaf : callable
        ``leaf(name, index) -> str``: how an input is written.
    number : callable
        ``number(float) -> str``: how a constant is written.
    mul : str
        The multiplication operator as printed (``"*"`` in exported code, ``" * "`` at run time).
    every : bool
        Name every non-constant node ``x<id>`` (run time: one statement per operation); else name
        ``t1, t2, …`` only the operations used more than once (export).

    Attributes
    ----------
    order : list of int
        Live nodes in creation order.
    last_use : dict
        Node → position in ``order`` of its last user (``len(order)`` for a root).
    """

    def __init__(self, graph, roots, leaf, number, mul="*", every=False):
        self.g, self.leaf, self.number, self.mul, self.every = graph, leaf, number, mul, every
        self.order = live_nodes(graph, roots)
        uses, self.last_use = {}, {}
        for pos, i in enumerate(self.order):
            op, args = graph.ops[i], graph.args[i]
            for a in (args if op in (ADD, SUB, MUL, DIV) else (args,) if op == NEG else ()):
                uses[a] = uses.get(a, 0) + 1
                self.last_use[a] = pos
        for i in roots:
            uses[i] = uses.get(i, 0) + 1
            self.last_use[i] = len(self.order)
        if every:
            self.named = {i for i in self.order if graph.ops[i] != CONST}
        else:
            self.named = {i for i in self.order if uses.get(i, 0) > 1 and graph.ops[i] in OPERATIONS}
        self.names = {}

    def statements(self):
        """(position in ``order``, name, expression) of each named node, in dependency order."""
        for pos, i in enumerate(self.order):
            if i in self.named:
                text = self._expr(i, inline_self=True)
                self.names[i] = f"x{i}" if self.every else f"t{len(self.names) + 1}"
                yield pos, self.names[i], text

    def temporaries(self):
        """(name, expression) of each named node, in dependency order."""
        return [(name, text) for _, name, text in self.statements()]

    def ref(self, i):
        """An operand: its temporary, its input, its constant, or its inline expression."""
        return self.names[i] if i in self.names else self._expr(i)

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
        if op != ADD and self._compound(b, minus=True):
            right = f"({right})"
        return f"{self.ref(a)} {_SYMBOL[op]} {right}"

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


def input_source(name, k, offsets, first=(0, 0), shapes=None, language=NUMPY):
    """How a graph input is written at run time (one naming for every runtime backend).

    Parameters
    ----------
    name, k : str, int
        The input ``(name, index)``.
    offsets : sequence of float
        Joint offsets (SI), added to q before cos/sin or as a prismatic joint's d.
    first : (int, int)
        Where joint 0 sits in q and q̇ (a floating base's 7 and 6 coordinates come first).
    shapes : sequence of FrictionModel or None, optional
        Compute the friction shapes ``sgn``/``stb`` from q̇ with these models, in ``language``; None
        reads them from the arguments ``sgn``, ``stb``.
    """
    if name in ("c", "s", "d"):
        q = f"q[{first[0] + k}]"
        angle = q if offsets[k] == 0.0 else f"({q} + {offsets[k]!r})"
        return {"c": f"cos({angle})", "s": f"sin({angle})", "d": angle}[name]
    if name in ("sgn", "stb") and shapes is not None:
        model = shapes[k]
        if model is not None and model.unresolved:
            model.coulomb_shape(0.0)                   # the one-line error: 'auto' scales are identified
        c, s = shape_code(model, f"qd[{first[1] + k}]", language)
        return c if name == "sgn" else "0.0" if s is None else f"({s})"
    return f"{name}[{k}]"


# The locals exported code computes per joint before its expressions (names 1-based: q1, c1, s1, sg1, sb1).
LOCAL = {"angle": "q{}", "c": "c{}", "s": "s{}", "sgn": "sg{}", "stb": "sb{}"}


def exported_input(name, k, offsets, argument):
    """How exported code writes a graph input: joint k's c, s, d (with an offset) and friction shapes
    are the locals of :func:`prologue`; anything else is row k of the argument ``argument(name)``."""
    if name in ("c", "s", "sgn", "stb"):
        return LOCAL[name].format(k + 1)
    if name == "d":
        return f"q[{k}]" if offsets[k] == 0.0 else LOCAL["angle"].format(k + 1)
    return f"{argument(name)}[{k}]"


def prologue(g, live, robot, language):
    """The statements an exported function runs on q and q̇ before its expressions, per joint, in
    order: q_k + offset, its cos and sin, the Coulomb shape c(q̇_k) and the Stribeck shape s(q̇_k)
    (:func:`baseparam.model.friction.shape_code`), where the live nodes read them (:data:`LOCAL`)."""
    offsets = motion_offsets(robot)
    used = {(g.args[i][0], g.args[i][1]) for i in live if g.ops[i] == INPUT}
    lines = []
    for k in range(robot.n_dof):
        local = {key: pattern.format(k + 1) for key, pattern in LOCAL.items()}
        angle, x = f"q[{k}]", float(offsets[k])
        if x != 0.0 and any((name, k) in used for name in ("c", "s", "d")):
            shifted = f"q[{k}] {'-' if x < 0 else '+'} {language.number(abs(x))}"
            lines.append(language.let((local["angle"],), (shifted,)))
            angle = local["angle"]
        if ("c", k) in used or ("s", k) in used:
            lines.append(language.let((local["c"], local["s"]), (f"cos({angle})", f"sin({angle})")))
        if ("sgn", k) in used or ("stb", k) in used:
            model = robot.joints[k].friction_model
            if model is not None and (model.coulomb == "smooth" and isinstance(model.velocity, str)
                                      or ("stb", k) in used and isinstance(model.stribeck, str)):
                refuse_unresolved(robot, **EXPORTED)
            c, s = shape_code(model, f"qd[{k}]", language, coulomb=local["sgn"])
            lines.append(language.let((local["sgn"],), (c,)))
            if ("stb", k) in used:
                lines.append(language.let((local["stb"],), (s,)))
    return lines


# A friction model's scale in exported code must be a number ('auto' is resolved by identification)
EXPORTED = {"error": ExportError, "purpose": "for the written code (or export the identified description)"}


def numpy_source(g, outputs, offsets, name="evaluate", arguments="q, qd, qdd, qd_ref, sgn, stb, out", *,
                 inputs=None, free=True):
    """Python source of ``name(arguments)`` filling ``out[index]`` for each output, over samples.

    The same source runs on one sample when its inputs are Python floats and ``cos``, ``sin`` and
    ``sign`` are ``math``'s (the temporaries are then better kept: ``free=False``).

    Parameters
    ----------
    g : Graph
    outputs : list of (index tuple, node id)
        e.g. ((joint, column), node) for a regressor (``out`` shaped (n_dof, n_out, n_samples)).
    offsets : sequence of float
        Joint offsets (SI) added to q before cos/sin or as a prismatic joint's d.
    arguments : str
        The function's parameters; inputs read q, qd, qdd, qd_ref, p (parameters, scalars) and the
        friction shapes sgn, stb (c(q̇), s(q̇) of :func:`baseparam.model.friction.friction_shapes`).
    inputs : callable, optional
        ``inputs(name, index) -> str``, the source of a graph input (default :func:`input_source`).
    free : bool
        Delete each temporary after its last use (numpy then recycles a few cache-resident buffers).
    """
    roots = [i for _, i in outputs]
    printer = Printer(g, roots, inputs or (lambda n, k: input_source(n, k, offsets)), py_number, " * ", every=True)
    root_set = set(roots)
    dead_at = {}
    for i, pos in printer.last_use.items():
        if g.ops[i] != CONST and i not in root_set:
            dead_at.setdefault(pos, []).append(f"x{i}")
    lines = [f"def {name}({arguments}):"]
    for pos, temporary, text in printer.statements():
        lines.append(NUMPY.let((temporary,), (text,)))
        if free and pos in dead_at:
            lines.append(f"    del {', '.join(dead_at[pos])}")
    for index, i in outputs:
        lines.append(f"    out[{', '.join(map(str, index))}] = {printer.ref(i)}")
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


def _sign(x):
    return float((x > 0.0) - (x < 0.0))


def numpy_function(g, outputs, offsets, title, *, scalar=False, **options):
    """:func:`numpy_source` (``options``: its keywords) compiled; returns its function. ``scalar``: for one
    sample on Python floats (math's functions, temporaries kept). ``title`` names the code in tracebacks."""
    namespace = ({"cos": math.cos, "sin": math.sin, "sign": _sign, "tanh": math.tanh, "exp": math.exp} if scalar
                 else {"cos": np.cos, "sin": np.sin, "sign": np.sign, "tanh": np.tanh, "exp": np.exp})
    source = numpy_source(g, outputs, offsets, free=not scalar, **options)
    exec(compile(source, f"<baseparam {title}>", "exec"), namespace)
    return namespace["evaluate"]


def c_statements(g, outputs, inputs, out="out"):
    """The body of a C function computing a graph's outputs: one ``const double`` per live node.

    Parameters
    ----------
    outputs : list of (int, node id)
        ``out[index] = node``.
    inputs : callable
        ``inputs(name, index) -> str``: a graph input as a C expression.
    """
    printer = Printer(g, [i for _, i in outputs], inputs, c_number, " * ", every=True)
    lines = [C.let((name,), (text,)) for name, text in printer.temporaries()]
    return lines + [f"    {out}[{index}] = {printer.ref(i)};" for index, i in outputs]


__all__ = ["C", "C_EXPORT", "LOCAL", "NUMPY", "PYTHON_EXPORT", "Language", "Printer", "c_number", "c_statements",
           "exported_input", "input_source", "numpy_function", "numpy_source", "prologue", "py_number"]
