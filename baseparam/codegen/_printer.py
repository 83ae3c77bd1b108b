"""What C and Python exports share: inputs, prologue, header comment (the graph is printed by
:class:`baseparam.dynamics.printing.Printer`)."""
from __future__ import annotations

import re

from ..dynamics.expressions import INPUT
from ..model.friction import shape_code
from ..model.joint_model import motion_offsets
from ..projection.report import format_regrouping


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


def _prologue(g, live, robot, language):
    """The statements a function runs on q and q̇ before its expressions, per joint, in order: q_k +
    offset, its cos and sin, the Coulomb shape c(q̇_k) and the Stribeck shape s(q̇_k)
    (:func:`baseparam.model.friction.shape_code`) where the live nodes read them."""
    offsets = motion_offsets(robot)
    used = {(g.args[i][0], g.args[i][1]) for i in live if g.ops[i] == INPUT}
    lines = []
    for k in range(robot.n_dof):
        angle, x = f"q[{k}]", float(offsets[k])
        if x != 0.0 and any((name, k) in used for name in ("c", "s", "d")):
            lines.append(language.let((f"q{k + 1}",), (f"q[{k}] {'-' if x < 0 else '+'} {language.number(abs(x))}",)))
            angle = f"q{k + 1}"
        if ("c", k) in used or ("s", k) in used:
            lines.append(language.let((f"c{k + 1}", f"s{k + 1}"), (f"cos({angle})", f"sin({angle})")))
        if ("sgn", k) in used or ("stb", k) in used:
            model = robot.joints[k].friction_model
            if model is not None and model.coulomb == "smooth" and isinstance(model.velocity, str):
                _unresolved(k, "velocity")
            if ("stb", k) in used and isinstance(model.stribeck, str):
                _unresolved(k, "stribeck")
            c, s = shape_code(model, f"qd[{k}]", language, coulomb=f"sg{k + 1}")
            lines.append(language.let((f"sg{k + 1}",), (c,)))
            if ("stb", k) in used:
                lines.append(language.let((f"sb{k + 1}",), (s,)))
    return lines


def _unresolved(k, name):
    """A friction model's velocity scale for code must be a number (``auto`` is resolved by identification)."""
    from ..errors import ExportError
    raise ExportError(f"joints[{k + 1}].friction_model.{name}: 'auto' is identified from data; export the "
                      "identified description (identify --yaml) or give the number")
