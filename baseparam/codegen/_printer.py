"""What C and Python exports share: argument names and the header comment (the graph, its inputs and
the prologue that computes them are printed by :mod:`baseparam.dynamics.printing`)."""
from __future__ import annotations

import re

from ..dynamics.printing import exported_input
from ..model.joint_model import motion_offsets
from ..projection.report import format_regrouping
from ._routines import BASE_ARGUMENTS


def _si_terms(base, r):
    """Base parameter r's regrouping as {standard name: coefficient} in SI (the exported code is SI)."""
    return {base.standard_names[c]: float(v) for c, v in enumerate(base.Y[r]) if v != 0}


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


def _header_comment(base, counts, prefix, style, checked=False):
    """The comment that opens each exported file (``style`` 'c' or 'python'); ``checked``: the C export has the
    ``NAME_<function>_checked`` entry points (:func:`._c_source.c_sources`)."""
    robot = base.robot
    lines = [f"{prefix}: exported by baseparam for {_safe(robot.name)} ({robot.n_dof} joints, {_geometry(robot)})",
             f"{base.rank} base parameters ({base.parameters} parameterization), SI units: m, rad, kg, s, N·m, N.",
             _accuracy_line(base),
             "Straight-line code: every common subexpression once, DH zeros and ones folded, sin/cos once per",
             "joint. Operation counts (mul, add, div, sin/cos pairs):"]
    for name, c in counts.items():
        lines.append(f"  {name}: {c['mul']} mul, {c['add']} add, {c['div']} div, {c['sincos']} sincos")
    if robot.is_floating:
        lines += ["", "Floating base (pinocchio's free-flyer convention): base_pose = [x, y, z, qx, qy, qz, qw], the",
                  "position of frame 0 in the world and its unit quaternion (scalar last); base_twist = [v, w] of",
                  "frame 0 in its own axes, base_accel its rate (slotine_li: base_twist_ref, base_accel_ref the",
                  "reference's); q, qd, qdd the joints'. Rows of Y and tau: the",
                  f"wrench [f, n] on the base (frame-0 axes, moment about its origin), then the {robot.n_dof} joints."]
    lines += ["", "p_base[r], r = 0.." + str(base.rank - 1) + ": name = regrouping of the standard parameters (SI)"]
    lines += [f"{r:>3}  {name} = {format_regrouping(base, r, _si_terms(base, r))}" for r, name in enumerate(base.names)]
    if style == "c":
        from .._validation import ABSURD, ABSURD_PARAMETER
        # the straight-line code has no branch to refuse with (the Python export checks at its entry)
        lines += ["", f"Inputs: finite, states within ±{ABSURD:g} and p_base within ±{ABSURD_PARAMETER:g}, as "
                  "baseparam takes them;", "beyond, the products may overflow to non-finite values (inputs of 1e154 "
                  "square to 1e308): " + (f"checked by the {prefix}_<function>_checked entry points, not by the plain"
                                   " functions." if checked else "not checked here.")]
        body = "\n".join((" * " + line).rstrip() for line in lines)
        return "/*\n" + body.replace("*/", "* /") + "\n */\n"
    return "\n".join(("# " + line).rstrip() for line in lines) + "\n"


def _leaf(robot, routine):
    """How a graph input is written (C and Python alike): :func:`baseparam.dynamics.printing.exported_input`
    with the routine's argument names. A floating base's graph reads its quaternion as ``q[3:7]`` and
    its twist and rate as ``qd[0:6]``, ``qdd[0:6]`` (the joints' after them): here they are the
    arguments ``base_pose``, ``base_twist``, ``base_accel`` (:data:`._routines.BASE_ARGUMENTS`), and the
    joints' ``qd[6 + k]`` is ``qd[k]``."""
    offsets = motion_offsets(robot)

    def leaf(name, k):
        if routine.floating and name in ("q", "qd", "qd_ref", "qdd"):
            if name == "q" or k < 6:
                return f"{_argument(routine, name, k)}[{k}]"
            return exported_input(name, k - 6, offsets, lambda x: _argument(routine, x, k))
        return exported_input(name, k, offsets, lambda x: _argument(routine, x))
    return leaf


def _argument(routine, name, k=None):
    """The function argument a graph input ``(name, k)`` reads."""
    if routine.floating and name in ("q", "qd", "qd_ref", "qdd") and (name == "q" or k < 6):
        return BASE_ARGUMENTS[routine.name][name]
    return {"c": "q", "s": "q", "d": "q", "sgn": "qd", "stb": "qd", "p": "p_base"}.get(name) or routine.inputs[name]
