"""A readable account of a loaded robot (``baseparam describe``): its joints as baseparam numbers
them, and for a chain the standard DH table with the same joint angles, so that users can check the
frames a URDF gives before reading regroupings expressed in them."""
from __future__ import annotations

import math

from ..errors import printable
from .dh_equivalent import DHEquivalent, dh_equivalent
from .urdf_writer import _rpy
from .._validation import check_instance, check_robot

NAME_WIDTH = 20     # characters of a joint's name the table shows (the CLI keeps those as the user's text)


def describe(robot, equivalent=None) -> str:
    """The text ``baseparam describe`` prints.

    Parameters
    ----------
    robot : Robot
    equivalent : DHEquivalent, optional
        The chain's DH table (computed when not given).
    """
    check_robot(robot)         # a public name: a non-robot is refused, not an AttributeError inside
    check_instance(equivalent, "equivalent", DHEquivalent, "a DHEquivalent (dh_equivalent(robot)) or None",
                   allow_none=True)
    kind = "a chain" if robot.is_chain else "a tree"
    source = "URDF geometry" if robot.convention == "urdf" else f"{robot.convention} DH"
    # names come from the file: escaped, so that a name holding a line break cannot forge output lines
    lines = [f"{printable(robot.name)}: {robot.n_dof} joints, {kind} ({source}; lengths {robot.length_unit}, "
             f"angles {robot.angle_unit})",
             f"  {'#':>2}  {'joint':{NAME_WIDTH}s} {'parent':>6}  {'type':9s} {'axis':18s} {'mass [kg]':>9}  limits"]
    for k, joint in enumerate(robot.joints, start=1):
        axis = " ".join(_short(v) for v in joint.axis) if robot.convention == "urdf" else "z"
        mass = f"{joint.inertia.mass:.4g}" if joint.inertia is not None else "-"
        name = printable(joint.name or f"joint {k}")[:NAME_WIDTH]
        lines.append(f"  {k:>2}  {name:{NAME_WIDTH}s} {joint.parent:>6}  {joint.type:9s} {axis:18s} {mass:>9}  "
                     f"{_limits(joint.limits)}")
    if robot.is_floating:
        mass = f", its body {robot.base_inertia.mass:.4g} kg" if robot.base_inertia is not None else ""
        lines.append(f"Base: floating (frame 0 moves freely{mass}; q starts with its position and quaternion "
                     "x y z w, q̇ with its twist v, ω in frame 0).")
    if not robot.is_chain:
        lines.append("A tree has no single DH table: pick a chain with tip='LINK' to see one.")
        return "\n".join(lines)
    eq = equivalent if equivalent is not None else dh_equivalent(robot)
    lines += ["", "Standard DH with the same joint angles (m, deg; q is the joint variable):",
              f"  {'#':>2}  {'alpha':>10} {'a':>12} {'d':>12} {'theta':>12}"]
    for k, ((alpha, a, d, theta, offset), kind) in enumerate(zip(eq.table, eq.types), start=1):
        if kind == "revolute":
            th, dd = _variable("q", math.degrees(offset)), _short(d)
        else:
            th, dd = _short(math.degrees(theta)), _variable("q", offset)
        lines.append(f"  {k:>2}  {_short(math.degrees(alpha)):>10} {_short(a):>12} {dd:>12} {th:>12}")
    lines.append("Base: DH frame 0 is the description's base frame." if eq.base_is_identity else
                 f"Base: DH frame 0 in the description's base frame: {_pose(eq.base)}.")
    lines.append(f"Tool: link {robot.n_dof}'s frame in DH frame {robot.n_dof}: {_pose(eq.tool)}.")
    lines.append(f"Checked: base · DH(q) · tool reproduces every joint axis and link {robot.n_dof}'s frame to "
                 f"{eq.error:.1e} at random configurations.")
    return "\n".join(lines)


def _short(value) -> str:
    """A number in few characters, round-off removed (1e-12)."""
    value = round(float(value), 12) + 0.0
    return f"{value:.10g}"


def _variable(name, offset) -> str:
    offset = round(float(offset), 12)
    return name if offset == 0 else f"{name} {'+' if offset > 0 else '-'} {_short(abs(offset))}"


def _pose(T) -> str:
    """xyz (m) and rpy (deg) of a 4×4 transform."""
    xyz = " ".join(_short(v) for v in T[:3, 3])
    rpy = " ".join(_short(math.degrees(a)) for a in _rpy(T[:3, :3]))
    return f"xyz [{xyz}] m, rpy [{rpy}] deg"


def _limits(limits) -> str:
    if limits is None:
        return "-"
    parts = []
    if limits.lower is not None or limits.upper is not None:
        parts.append(f"q [{_opt(limits.lower)}, {_opt(limits.upper)}]")
    parts += [f"{bound} {_opt(value)}" for bound, value in (("|qd|", limits.velocity), ("|tau|", limits.effort))
              if value is not None]
    return ", ".join(parts) or "-"


def _opt(value) -> str:
    return "-" if value is None else f"{value:.4g}"


__all__ = ["describe"]
