"""Writing a graph out as expressions, and what C and Python exports share: inputs, prologue, header comment."""
from __future__ import annotations

import re

from ..dynamics.expressions import ADD, CONST, INPUT, MUL, NEG, SUB, live_nodes
from ..model.joint_model import motion_offsets
from ..projection.report import format_regrouping


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


def _geometry(robot) -> str:
    return "URDF geometry" if robot.convention == "urdf" else f"{robot.convention} DH"


def _header_comment(base, counts, prefix, style):
    robot = base.robot
    lines = [f"{prefix}: exported by baseparam for {_safe(robot.name)} ({robot.n_dof} joints, {_geometry(robot)})",
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
        if name == "stb":
            return f"sb{k + 1}"
        return f"{_argument(routine, name)}[{k}]"
    return leaf


def _argument(routine, name):
    """The function argument a graph input reads."""
    return {"c": "q", "s": "q", "d": "q", "sgn": "qd", "stb": "qd", "p": "p_base"}.get(name) or routine.inputs[name]


def _prologue(g, live, robot):
    """What a function computes from q and q̇ before its expressions, per joint, in order:
    ("angle", k, offset) for q_k + offset, ("trig", k, angle) for its cos and sin, ("sign", k, None)
    or ("tanh", k, v) for the Coulomb shape c(q̇_k) (sign, or tanh(q̇/v) of a smooth friction model),
    ("stribeck", k, v_s) for exp(−(q̇_k/v_s)²)·c(q̇_k) (:mod:`baseparam.model.friction`)."""
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
        model = robot.joints[k].friction_model
        if ("sgn", k) in used or ("stb", k) in used:
            smooth = model is not None and model.coulomb == "smooth"
            items.append(("tanh", k, _scale(model.velocity, k, "velocity")) if smooth else ("sign", k, None))
        if ("stb", k) in used:
            items.append(("stribeck", k, _scale(model.stribeck, k, "stribeck")))
    return items


def _scale(value, k, name):
    """A friction model's velocity scale for code: a number (``auto`` is resolved by identification)."""
    if isinstance(value, str):
        from ..errors import ExportError
        raise ExportError(f"joints[{k + 1}].friction_model.{name}: 'auto' is identified from data; export the "
                          "identified description (Identification.to_yaml) or give the number")
    return float(value)
