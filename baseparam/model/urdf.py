"""Reading URDF robot descriptions into :class:`~baseparam.model.robot.Robot` objects (convention ``urdf``).

The reader follows docs/formats.md, "Robot description (URDF)":

* ``revolute``/``continuous`` and ``prismatic`` joints become joints, each placed by its ``<origin>``
  and moving about/along its ``<axis>``; ``fixed`` joints are merged: the child link's inertia joins its
  parent's body (moved, R·I·Rᵀ, and lumped with the parallel-axis rule) and the fixed origins are kept,
  as written, in front of the next moving joint's origin, so that exact numbers stay exact;
* moving joints are numbered depth first from the root, in the file's order among siblings;
* ``root`` and ``tip`` cut a subtree or chains out of a larger model;
* ``mimic`` joints are refused, or with ``mimic='lock'`` locked at q = 0 (one warning line), as joints off
  the paths to the tips are, or with ``mimic='independent'`` read as joints of their own (pinocchio's default
  reading; one warning line);
* angles within a tolerance of a multiple of 15° are taken as that angle (one warning line).

Malformed files are refused with one :class:`~baseparam.errors.RobotDescriptionError` whose one-line message
names the file and lists every independent problem, each naming the element and attribute, and what is wrong.
Only the standard library's XML parser is used; DOCTYPE and entity declarations are refused (no
entity expansion), and the size is checked before parsing.
"""
from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from .._checks import counted, shown
from .._validation import (check_angle_tolerance, check_flag, check_instance, check_link_names, check_mimic,
                           comma_list)
from .._warnings import warn
from ..errors import (ArgumentError, DescriptionWarning, PhysicalConsistencyWarning,
                      RobotDescriptionError, RoundOffWarning, printable)
from .checks import (MAX_ANGLE_RAD, MAX_JOINTS, MAX_LENGTH_M, MAX_MASS_KG, MIN_LENGTH_M, SNAP_RADIANS, body_problem,
                     inertia_problem, problems_message, special_radians)
from ._angles import AngleSnapper
from ._xml_text import as_utf8_declared, decoded_xml
from .joint_model import axis_factors, exact_cos_sin, factor_matrix, origin_factors, product
from .parameters import moved_body, point_inertia
from .robot import Inertia, Joint, JointLimits, Origin, Robot

MAX_URDF_BYTES = 32 * 2 ** 20      # URDFs with inline data run to megabytes; beyond this, not a robot
MAX_RPY = 100.0                    # rad: beyond this an rpy is not an angle in radians (degrees, or garbage)
# xs:double as URDF readers parse it (urdfdom: C++ streams), ASCII digits only: Python's float() also takes
# '1_000' (1000) and Unicode digits ('١٢'), which every other reader refuses or reads otherwise
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|INF|nan|NaN)")
_XML_TOKEN = re.compile(r"[^ \t\r\n]+")       # what XML white space separates in a list attribute
# a URDF <inertia>'s attributes and the tensor entries they hold
INERTIA_ATTRIBUTES = (("ixx", (0, 0)), ("ixy", (0, 1)), ("ixz", (0, 2)), ("iyy", (1, 1)), ("iyz", (1, 2)),
                      ("izz", (2, 2)))
_MOVING = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic"}
_REFUSED = {"floating": "a floating joint below the root (only the root link's single joint may be floating: a "
                        "free-flying base; or take the link below it as the base with root='LINK')",
            "planar": "a planar joint (not supported)"}


class _Problems(Exception):
    """Problems found so far; raised as one RobotDescriptionError once the file is read."""

    def __init__(self, label):
        super().__init__()
        self.label, self.lines = label, []

    def add(self, where, message):
        self.lines.append(f"{self.label}: {where}: {message}" if where else f"{self.label}: {message}")

    def fail(self, where, message):
        """Add a problem after which the file cannot be read further, and raise."""
        self.add(where, message)
        self.check()

    def check(self):
        if self.lines:
            raise RobotDescriptionError(printable(problems_message(self.label, self.lines)))


@dataclass
class _Joint:
    name: str
    type: str
    parent: str
    child: str
    origin: Origin
    axis: tuple = (1.0, 0.0, 0.0)
    limits: Optional[JointLimits] = None
    dynamics: Optional[tuple] = None
    mimic: Optional[str] = None
    mimic_offset: Optional[str] = None       # the <mimic offset> text, named in the note on locked mimic joints


@dataclass
class _Body:
    """A rigid body being assembled from links joined by fixed joints (frame: the body's first link)."""

    mass: float = 0.0
    moment: np.ndarray = field(default_factory=lambda: np.zeros(3))      # Σ m c
    second: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))  # Σ (I_c + m(|c|²1 − c cᵀ)), origin

    def add(self, inertial, T):
        """A link's inertial, given in a frame placed at T (4×4) in the body frame."""
        if inertial is None:
            return
        m, c, Ic = inertial
        cb, Ib = moved_body(c, Ic, T)
        self.mass += m
        self.moment = self.moment + m * cb
        self.second = self.second + Ib + point_inertia(m, cb)

    def inertia(self) -> Inertia:
        com = self.moment / self.mass if self.mass > 0 else np.zeros(3)
        about_com = self.second - point_inertia(self.mass, com)
        about_com = 0.5 * (about_com + about_com.T)
        return Inertia(mass=float(self.mass), com=com, inertia=about_com, as_written=True)


# -- public API -----------------------------------------------------------------------------------------
def parse_urdf(data, label: str = "<string>", *, root=None, tip=None, exact_angles=True,
               angle_tolerance=SNAP_RADIANS, floating=False, mimic="refuse") -> Robot:
    """Build a robot from the text of a URDF file.

    Parameters
    ----------
    data : bytes or str
        The URDF (bytes in the encoding its byte-order mark or XML declaration names; UTF-8 without either).
    label : str
        The file name, for messages.
    root : str, optional
        The link to take as the base (default: the URDF's root link).
    tip : str or sequence of str, optional
        Keep only the moving joints on the paths from the root to these links (a comma-separated
        string is split).
    exact_angles : bool, optional
        Take ``rpy`` components and axis directions within `angle_tolerance` of a multiple of 15° as
        that angle (one RoundOffWarning line says how many and the largest difference).
    angle_tolerance : float, optional
        rad.
    floating : bool, optional
        Take the root link (fixed in the file) as a free-flying base, as pinocchio's
        ``buildModel(urdf, JointModelFreeFlyer())`` does: ``base: floating``, frame 0 the root link's,
        gravity in the world frame the base pose is measured in. With ``tip``, the moving joints off the
        paths to the tips are locked at q = 0, as for a fixed base. Not with ``root``, nor on a URDF whose
        root joint already floats.
    mimic : {'refuse', 'lock', 'independent'}, optional
        What a ``<mimic>`` joint among those read becomes: a refusal (the default), a joint locked at q = 0, or a
        joint of its own (Returns says more; docs/formats.md, "Robot description (URDF)").

    Returns
    -------
    Robot
        Convention ``urdf`` (m, rad); ``source`` is the URDF text. When the root link's only joint is
        ``floating`` (and no ``root`` is given), its child is a floating base (``base: floating``,
        its inertia with what is fixed to it the ``base_inertia``; gravity in the root link's frame).
        With ``mimic='lock'``, mimic joints (``<mimic>``) are locked at q = 0, their links weighing on
        the body that carries them (one DescriptionWarning line names them); with ``mimic='independent'``
        each is a joint with a coordinate of its own, numbered as any moving joint (one DescriptionWarning
        line names them). Either, on a URDF without mimic joints among those read, changes nothing and
        says so in one DescriptionWarning line.

    Raises
    ------
    RobotDescriptionError
        One line naming the file and each problem's element and what is wrong (several joined by "; ").
    """
    check_link_names(root, "root", several=False)
    check_link_names(tip, "tip")
    angle_tolerance = check_angle_tolerance(angle_tolerance)      # a Fraction as the float its messages format
    # the text itself: a number would reach len() as a bare TypeError
    check_instance(data, "data", (str, bytes, bytearray, memoryview), "the URDF's text (str or bytes)")
    label = os.fsdecode(label)
    floating = check_flag(floating, "floating")
    check_mimic(mimic)
    if floating and root is not None:
        raise ArgumentError(f"{label}: floating=True: takes the URDF's root link as a free-flying base; it does not "
                            f"go with root={shown(root)} (tip='LINK' picks the joints to keep)")
    problems = _Problems(label)
    text = _text(data, problems)
    tree = _parse(text, problems)
    tiny = []
    links, joints = _read(tree, problems, tiny)
    problems.check()
    children = _structure(links, joints, problems)
    problems.check()
    base = _base_link(links, joints, root, problems)
    problems.check()
    free = _floating_root(base, children) if root is None else None
    if free is not None and floating:
        raise RobotDescriptionError(f"{label}: floating=True: the root link {shown(base)} already has a floating joint "
                                    f"({shown(free.name)}), which makes the base free: leave floating out")
    if free is not None:          # the root's one joint is floating: its child is a free-flying base body
        base = free.child
    keep = _kept_links(base, tip, links, joints, children, problems)
    problems.check()
    name = tree.get("name") or os.path.splitext(os.path.basename(label))[0] or "robot"
    if not name.isprintable():
        problems.add("<robot name>", f"expected a one-line name without control characters, got {shown(name)}")
    robot_joints, impossible, base_body, mimics = _assemble(base, keep, links, children, problems, mimic)
    problems.check()
    if mimics:
        which = (f"{label}: {counted(len(mimics), 'mimic joints')} "
                 f"({_some([name for name, _ in mimics], 5)})")
        if mimic == "independent":
            what = (" read as independent joints, each with a coordinate of its own (pinocchio's default reading of "
                    "a URDF): the base parameters are those of the robot with the couplings left out, and a log "
                    "gives each of them its own column, its torque too (the coupling's, rarely logged: an effort "
                    "of 0 is taken as measured)")
        else:
            shifted = [name for name, offset in mimics if _offset_given(offset)]
            what = (" locked at q = 0 as joints off the paths to the tips are, their links weighing on the bodies "
                    "that carry them; the joints they mimic stay free, and the base parameters are those of the "
                    "robot with the mimic joints held still"
                    + (f" ({len(shifted)} with a <mimic offset>, e.g. {shifted[0]!r}: held at 0 all the same)"
                       if shifted else ""))
        warn(printable(which + what), DescriptionWarning)
    elif mimic != "refuse":     # said: taken without a word, it would look as if it had done something
        warn(printable(f"{label}: mimic={mimic!r}: no <mimic> joint among the joints read"
                       + (" (those on the paths to the tips)" if tip is not None else "")
                       + "; it changes nothing: leave it out"), DescriptionWarning)
    if not robot_joints:
        problems.add("", f"no revolute, continuous or prismatic joint below link '{base}'")
    elif len(robot_joints) > MAX_JOINTS:       # the cap of every robot, on the joints that move
        problems.add("", f"{len(robot_joints)} moving joints below link '{base}', more than {MAX_JOINTS}; "
                         "pick a chain or subtree with tip='LINK'")
    problems.check()
    if impossible:
        warn(printable(f"{label}: physically impossible inertias kept as written (as other URDF readers "
                        f"do; a simulation with them may misbehave): {'; '.join(impossible[:5])}"
                        + (f"; and {len(impossible) - 5} more" if len(impossible) > 5 else "")
                        + "; correct those <inertial> blocks before simulating, or identify them from data"),
             PhysicalConsistencyWarning)
    if tiny:
        warn(printable(f"{label}: {counted(len(tiny), 'origin numbers')} read as the "
                        f"same geometry (translations below {MIN_LENGTH_M:g} m as 0, angles beyond ±2π "
                        f"less whole turns), e.g. {'; '.join(tiny[:2])}; nothing to do if that is round-off"),
             RoundOffWarning)
    if exact_angles:
        robot_joints = _snap_angles(robot_joints, label, angle_tolerance)
    gravity = _gravity(_root_links(links, joints)[0], base, joints, label, angle_tolerance if exact_angles else None,
                       floating=free is not None)
    # with `floating`, the root link itself flies (pinocchio's free-flyer root): its frame is frame 0
    floating = {} if free is None and not floating else {"base": "floating", "base_inertia": base_body}
    try:
        return Robot(tuple(robot_joints), name=name, convention="urdf", length_unit="m", angle_unit="rad",
                     gravity=gravity, source=text, **floating)
    except RobotDescriptionError as exc:
        raise RobotDescriptionError(printable(f"{label}: {exc}")) from None


# -- text and XML -----------------------------------------------------------------------------------------
def _text(data, problems) -> str:
    """The URDF's text: bytes in the encoding XML parsers read them in (a byte-order mark's, the XML declaration's,
    else UTF-8), its declaration made to name UTF-8, which the package's writers write it back in."""
    if isinstance(data, str):
        text = as_utf8_declared(data)
    else:
        if len(data) > MAX_URDF_BYTES:
            problems.fail("", f"file too large for a robot description (more than {MAX_URDF_BYTES // 2 ** 20} MiB)")
        text, problem = decoded_xml(bytes(data))
        if problem:
            problems.fail("", problem)
    if len(text) > MAX_URDF_BYTES:
        problems.add("", f"text too large for a robot description (more than {MAX_URDF_BYTES // 2 ** 20} MiB)")
    for declaration in ("<!DOCTYPE", "<!ENTITY"):
        if declaration in text:
            line = text.count("\n", 0, text.index(declaration)) + 1
            problems.add("", f"line {line}: {declaration} declarations are refused (entities could expand "
                             "without bound); a URDF needs none")
    problems.check()
    return text


def _parse(text, problems):
    try:
        element = ET.fromstring(text)
    except ET.ParseError as exc:
        line, column = exc.position
        problems.fail("", f"not well-formed XML at line {line}, column {column + 1}: {str(exc).split(':')[0]}")
    if element.tag != "robot":
        problems.fail(f"<{element.tag}>", "expected <robot> as the root element of a URDF")
    # xacro elements left in (an include, a macro call) would be skipped, and with them the links they add
    for node in element.iter():
        if isinstance(node.tag, str) and node.tag.startswith("{") and "xacro" in node.tag.split("}")[0]:
            problems.fail(f"<xacro:{node.tag.split('}')[1]}>", "a xacro element: expand the xacro file to URDF "
                                                               "first (xacro FILE > FILE.urdf)")
    return element


# -- reading elements ---------------------------------------------------------------------------------------
def _numbers(text, count, where, problems, default=None):
    """`count` finite numbers from an attribute's text, or None (problem recorded)."""
    if text is None:
        return default
    parts = _XML_TOKEN.findall(text)
    values = tuple(float(p) for p in parts) if all(_NUMBER.fullmatch(p) for p in parts) else None
    if values is None or len(values) != count or not all(math.isfinite(v) for v in values):
        what = "a finite number" if count == 1 else f"{count} finite numbers"
        hint = " (a xacro expression: expand the xacro file to URDF first)" if "${" in text or "$(" in text else ""
        problems.add(where, f"expected {what}, got {shown(text)}{hint}")
        return None
    return tuple(v + 0.0 for v in values)


def _origin(element, where, problems, label_text, tiny=None) -> Origin:
    """An ``<origin>`` (zeros when absent). Translations below 1 nm are round-off (an exporter's
    2.6e-13): taken as 0; angles beyond ±2π lose their whole turns; both listed in `tiny` for the note."""
    origin = element.find("origin")
    if origin is None:
        return Origin(label=label_text)
    xyz = _numbers(origin.get("xyz"), 3, f"{where} <origin xyz>", problems, (0.0, 0.0, 0.0))
    rpy = _numbers(origin.get("rpy"), 3, f"{where} <origin rpy>", problems, (0.0, 0.0, 0.0))
    if xyz is not None:
        if max(abs(v) for v in xyz) > MAX_LENGTH_M:
            problems.add(f"{where} <origin xyz>", f"expected lengths within {MAX_LENGTH_M:g} m, got {shown(xyz)}")
            xyz = None
        elif tiny is not None and any(0 < abs(v) < MIN_LENGTH_M for v in xyz):
            tiny.extend(f"{label_text} xyz[{i + 1}] = {v!r} as 0" for i, v in enumerate(xyz)
                        if 0 < abs(v) < MIN_LENGTH_M)
            xyz = tuple(0.0 if abs(v) < MIN_LENGTH_M else v for v in xyz)
    if rpy is not None and any(abs(v) > MAX_ANGLE_RAD for v in rpy):
        if max(abs(v) for v in rpy) > MAX_RPY:
            problems.add(f"{where} <origin rpy>", f"expected angles in radians (within ±{MAX_RPY:g}), got "
                                                   f"{shown(origin.get('rpy'))}")
            rpy = None
        else:   # other readers take 6.2832 or 7 rad as they are: the same rotation less whole turns
            if tiny is not None:
                tiny.extend(f"{label_text} rpy[{i + 1}] = {v!r} less whole turns" for i, v in enumerate(rpy)
                            if abs(v) > MAX_ANGLE_RAD)
            rpy = tuple(math.remainder(v, 2 * math.pi) + 0.0 if abs(v) > MAX_ANGLE_RAD else v for v in rpy)
    return Origin(xyz or (0.0, 0.0, 0.0), rpy or (0.0, 0.0, 0.0), label=label_text)


def _read(tree, problems, tiny):
    """The links, name → inertial (mass, com (3,), inertia about the com (3, 3), link frame) or None, and the
    joints (_Joint), in file order."""
    links, joints = {}, []
    for element in tree.findall("link"):
        name = element.get("name")
        if not name:
            problems.add("<link>", "expected a name attribute")
        elif name in links:
            problems.add(f"link '{name}'", "defined twice")
        else:
            links[name] = _inertial(element, f"link '{name}'", problems)
    seen = set()
    for element in tree.findall("joint"):
        joint = _joint(element, problems, tiny)        # None: refused (said)
        if joint is not None and joint.name in seen:
            problems.add(f"joint '{joint.name}'", "defined twice")
        elif joint is not None:
            seen.add(joint.name)
            joints.append(joint)
    return links, joints


def _inertial(link, where, problems):
    element = link.find("inertial")
    if element is None:
        return None
    mass_el, mass = element.find("mass"), None
    if mass_el is None:
        problems.add(f"{where} <inertial>", "expected a <mass value=...> element")
    elif mass_el.get("value") is None:
        problems.add(f"{where} <inertial><mass value>", "expected a mass, got no value attribute")
    else:
        value = _numbers(mass_el.get("value"), 1, f"{where} <inertial><mass value>", problems)
        if value is not None and not 0 <= value[0] <= MAX_MASS_KG:
            problems.add(f"{where} <inertial><mass value>", f"expected a mass ≥ 0 and at most {MAX_MASS_KG:g} kg, "
                                                              f"got {shown(value[0])}")
        elif value is not None:
            mass = value[0]
    origin = _origin(element, f"{where} <inertial>", problems, f"{where} <inertial><origin>")
    tensor = np.zeros((3, 3))
    inertia_el = element.find("inertia")
    if inertia_el is not None:
        for key, (i, j) in INERTIA_ATTRIBUTES:
            if i == j and inertia_el.get(key) is None:
                # urdfdom refuses an <inertia> without all six, Bullet without the diagonal: read as 0, a moment lost
                # from the file (a damaged or hand-cut one) would be another body without a word. The products of
                # inertia still default to 0, as Bullet reads them.
                problems.add(f"{where} <inertial><inertia {key}>", f"expected a moment of inertia, got no {key} "
                                                                    "attribute")
                continue
            value = _numbers(inertia_el.get(key), 1, f"{where} <inertial><inertia {key}>", problems, (0.0,))
            if value is not None:
                tensor[i, j] = tensor[j, i] = value[0]
    if mass is None:
        return None
    problem = body_problem(mass, origin.xyz, tensor, massless_ok=True, physical=False)
    if problem is not None:
        problems.add(f"{where} <inertial>", problem[1])
        return None
    R = _rotation(origin.rpy)
    return mass, np.array(origin.xyz, dtype=float), R @ tensor @ R.T


def _joint(element, problems, tiny) -> Optional[_Joint]:
    name = element.get("name")
    if not name:
        problems.add("<joint>", "expected a name attribute")
        return None
    where = f"joint '{name}'"
    kind = element.get("type")
    if kind is None:
        problems.add(where, "expected a type attribute (revolute, continuous, prismatic or fixed)")
        return None
    if kind not in _MOVING and kind not in _REFUSED and kind != "fixed":
        problems.add(f"{where} type", f"expected revolute, continuous, prismatic or fixed, got {shown(kind)}")
        return None
    ends = []
    for tag in ("parent", "child"):
        el = element.find(tag)
        ends.append((el.get("link") or None) if el is not None else None)     # link="" is missing too
        if ends[-1] is None:
            problems.add(f"{where} <{tag} link>", "required element or attribute is missing")
    origin = _origin(element, where, problems, f"{where} <origin>", tiny)
    axis = (1.0, 0.0, 0.0)
    axis_el = element.find("axis")
    if axis_el is not None and kind in _MOVING:
        values = _numbers(axis_el.get("xyz"), 3, f"{where} <axis xyz>", problems, (1.0, 0.0, 0.0))
        if values is not None:
            norm = math.sqrt(sum(v * v for v in values))
            if norm < 1e-9:
                problems.add(f"{where} <axis xyz>", f"expected a direction, got {shown(axis_el.get('xyz'))} (zero)")
            else:
                largest = max(abs(v) for v in values)      # scaled first: the squares of 1e200 overflow
                scaled = [v / largest for v in values]
                norm = math.sqrt(sum(v * v for v in scaled))
                axis = tuple(v / norm + 0.0 for v in scaled)
    limits = _limits(element, where, kind, problems) if kind in _MOVING else None
    dynamics = None
    dyn_el = element.find("dynamics")
    if dyn_el is not None and kind in _MOVING:
        values = []
        for key in ("damping", "friction"):
            value = _numbers(dyn_el.get(key), 1, f"{where} <dynamics {key}>", problems, (0.0,))
            if value is not None and value[0] < 0:
                problems.add(f"{where} <dynamics {key}>", f"expected a value ≥ 0, got {shown(value[0])}")
            values.append(value[0] if value is not None else 0.0)
        dynamics = tuple(max(v, 0.0) for v in values)
    mimic_el = element.find("mimic")
    mimic = (mimic_el.get("joint") or "?") if mimic_el is not None else None
    offset = mimic_el.get("offset") if mimic_el is not None else None
    if None in ends:
        return None
    return _Joint(name, kind, ends[0], ends[1], origin, axis, limits, dynamics, mimic, offset)


def _limits(element, where, kind, problems) -> Optional[JointLimits]:
    el = element.find("limit")
    if el is None:
        return None
    values = {}
    for key in ("lower", "upper", "velocity", "effort"):
        value = _numbers(el.get(key), 1, f"{where} <limit {key}>", problems)
        values[key] = value[0] if value is not None else None
    if kind == "continuous":               # no position limits, whatever the element says
        values["lower"] = values["upper"] = None
    for key in ("velocity", "effort"):
        if values[key] is not None and values[key] < 0:
            problems.add(f"{where} <limit {key}>", f"expected a value ≥ 0, got {shown(values[key])}")
    if values["lower"] is not None and values["upper"] is not None and values["lower"] > values["upper"]:
        problems.add(f"{where} <limit>", f"lower {shown(values['lower'])} is above upper {shown(values['upper'])}")
    return JointLimits(**values)


# -- structure ---------------------------------------------------------------------------------------------
def _structure(links, joints, problems):
    """Children of each link (joints in file order); checks names, single parents and cycles."""
    children = {name: [] for name in links}
    parent_of = {}
    for joint in joints:
        missing = [end for end in (joint.parent, joint.child) if end not in links]
        for end in missing:
            problems.add(f"joint '{joint.name}'", f"names link '{end}', which is not defined")
        if missing:
            continue
        if joint.child in parent_of:
            problems.add(f"joint '{joint.name}'", f"link '{joint.child}' already has a parent joint "
                                                  f"('{parent_of[joint.child].name}'): a link has one parent")
        elif joint.child == joint.parent:
            problems.add(f"joint '{joint.name}'", f"joins link '{joint.child}' to itself")
        else:
            parent_of[joint.child] = joint
            children[joint.parent].append(joint)
    if not links:
        problems.add("", "no <link> elements: not a robot (a xacro file must be expanded to URDF first)")
    if not problems.lines:
        roots = _root_links(links, joints)
        cyclic = sorted(set(links) - _below(roots, children))
        if cyclic:
            problems.add("", f"links {', '.join(repr(c) for c in cyclic[:5])} form a cycle (every link on it has a "
                             "parent): a URDF is a tree")
        elif not roots:
            problems.add("", "no root link")
    return children


def _below(links, children) -> set:
    """The links and every link below them."""
    out, stack = set(), list(links)
    while stack:
        link = stack.pop()
        out.add(link)
        stack.extend(j.child for j in children[link])
    return out


def _root_links(links, joints):
    children = {j.child for j in joints}
    return [name for name in links if name not in children]


def _floating_root(base, children):
    """The root link's joint when it is its only joint and floating (a free-flying base), else None.

    Its child becomes frame 0 of a floating robot; the pose in q is measured from the joint's frame
    (the root link's frame moved by the joint's <origin>, as pinocchio reads it), where gravity is
    expressed."""
    below = children.get(base, [])
    return below[0] if len(below) == 1 and below[0].type == "floating" else None


def _base_link(links, joints, root, problems) -> str:
    if root is not None:
        if root not in links:
            problems.add("root", f"no link named {shown(root)}; links: {_some(links)}")
        return root
    roots = _root_links(links, joints)
    if len(roots) > 1:
        problems.add("", f"{len(roots)} root links ({', '.join(repr(r) for r in roots[:5])}): a URDF has one; "
                         "join them with fixed joints, or pick one with root='LINK'")
    return roots[0] if roots else ""


def _some(names, most=8) -> str:
    """The first `most` names, quoted, then ``...`` when there are more."""
    names = list(names)
    return ", ".join(repr(n) for n in names[:most]) + (", ..." if len(names) > most else "")


def _kept_links(base, tip, links, joints, children, problems):
    """Links whose moving joints are kept: all below the base, or those on the paths to the tips."""
    below = _below([base], children)
    if tip is None:
        return below
    tips = comma_list(tip, "tip") if isinstance(tip, str) else [str(t) for t in tip]
    parent_of = {j.child: j.parent for j in joints}
    keep = set()
    for name in tips:
        if name not in links:
            problems.add("tip", f"no link named {shown(name)}; links: {_some(links)}")
        elif name not in below:
            problems.add("tip", f"link {shown(name)} is not below the root link {shown(base)}")
        else:
            while name != base:
                keep.add(name)
                name = parent_of[name]
    return keep | {base}


# -- assembling the robot ----------------------------------------------------------------------------------
def _assemble(base, keep, links, children, problems, mimic="refuse"):
    """Moving joints, numbered depth first, with fixed joints merged; the impossible inertias; the base
    body (the base link with what is fixed to it), which a floating base keeps; and the mimic joints locked
    at q = 0 (those on the kept paths, in depth-first order) as (name, <mimic offset> text or None) — with
    ``mimic='independent'``, those read as joints of their own instead."""
    out, bodies, impossible, mimics = [], [_Body()], [], []
    pending = []          # (joint record, parent number, origins before it, body number) in depth-first order

    def inertial_of(link):
        inertial = links[link]
        if inertial is not None:
            problem = inertia_problem(inertial[2])
            if problem is not None:
                impossible.append(f"link '{link}': {problem[1]}")
        return inertial

    # depth first, children in file order, without recursion (a long chain must not exhaust the stack)
    # items: (link, body it joins, origins since that body's frame, placement T in it, moving joint above or None)
    stack = [(base, 0, (), np.eye(4), None)]
    while stack:
        link, body, prefix, T, moving = stack.pop()
        if moving is not None:      # the child link of a moving joint starts a body, numbered when reached
            bodies.append(_Body())
            pending.append((moving, body, prefix, len(bodies) - 1))
            body, prefix, T = len(bodies) - 1, (), np.eye(4)
        bodies[body].add(inertial_of(link), T)
        for joint in reversed(children[link]):
            # fixed, or a moving joint off the paths to the tips: locked at q = 0, so that the links it
            # carries (a hand's fingers beyond the arm's tip) still weigh on the body that carries them
            locked = joint.type == "fixed" or joint.child not in keep
            if not locked and joint.type in _REFUSED:
                problems.add(f"joint '{joint.name}'", _REFUSED[joint.type])
                continue
            if not locked and joint.mimic is not None:
                if mimic == "refuse":
                    problems.add(f"joint '{joint.name}'", f"a mimic joint (of '{joint.mimic}'): not supported; lock "
                                 "the mimic joints at q = 0 with mimic='lock', read them as joints of their own with "
                                 "mimic='independent', or pick the part without it with tip='LINK' "
                                 "(joints off the paths to the tips are locked at q = 0)")
                    continue
                # 'independent': a coordinate of its own, as pinocchio's buildModelFromUrdf reads it by default
                # (mimic=False). 'lock': a mimic joint has no coordinate of its own (q_m = k·q_j + o): the
                # projection has no basis for the coupling (docs/method.md, "Mimic joints", says what it needs),
                # so it is locked at q = 0 like a joint off the paths to the tips (pinocchio's buildReducedModel
                # with it locked there; the URDF written back places its links the same way,
                # urdf_update.link_parts); parse_urdf says so in one line
                mimics.append((joint.name, joint.mimic_offset))
                locked = mimic == "lock"
            origins = prefix + (joint.origin,)
            stack.append((joint.child, body, origins, T @ _origin_matrix(joint.origin), None) if locked
                         else (joint.child, body, origins, None, joint))

    def inertia(number, where):
        # the body lumps the links fixed to it: its mass can pass the bound no single <mass> did
        try:
            return bodies[number].inertia()
        except RobotDescriptionError as exc:
            problems.add(where, f"the body (with the links fixed to it): {str(exc).split(': ', 1)[-1]}")
            return None

    for joint, parent, origins, number in pending:
        body = inertia(number, f"joint '{joint.name}'")
        problems.check()
        out.append(Joint(type=_MOVING[joint.type], origins=origins, axis=joint.axis, parent=parent, name=joint.name,
                         limits=joint.limits, friction_prior=joint.dynamics, inertia=body))
    base_body = inertia(0, "the base link")
    problems.check()
    return out, impossible, base_body, mimics


def _offset_given(text) -> bool:
    """Whether a <mimic offset> text says anything but 0 (text that is no number counts: it is not 0)."""
    if text is None:
        return False
    try:
        return float(text) != 0
    except ValueError:
        return True


def _rotation(rpy) -> np.ndarray:
    """Rz(yaw)·Ry(pitch)·Rx(roll), shape (3, 3)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _origin_matrix(origin) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = _rotation(origin.rpy)
    T[:3, 3] = origin.xyz
    return T


# -- angles -------------------------------------------------------------------------------------------------
def _exact_cos_sin(angle):
    """cos and sin of an angle in radians, exact for multiples of 15° (joint_model.exact_cos_sin)."""
    return exact_cos_sin(angle, "rad")[:2]


_RPY_NAMES = ("roll", "pitch", "yaw")      # the entries of rpy="r p y" by name: an index reads as 0- or 1-based
def _snap_angles(joints, label, tolerance):
    """rpy components and axis directions within `tolerance` of multiples of 15° taken as them."""
    snapper = AngleSnapper(tolerance)       # shapes_rank=False: a URDF's rounded angles are kept, not refused
    out = []
    for joint in joints:
        origins = []
        for origin in joint.origins:
            rpy = tuple(snapper(value, f"{origin.label} rpy {name}", shapes_rank=False)
                        for name, value in zip(_RPY_NAMES, origin.rpy))
            origins.append(replace(origin, rpy=rpy) if rpy != origin.rpy else origin)
        axis, difference = _snapped_axis(joint.axis, tolerance)
        if difference > 0:
            snapper.snapped.append((difference, f"joint '{joint.name}' <axis xyz> = "
                                                f"{' '.join(repr(v) for v in joint.axis)}"))
        out.append(replace(joint, origins=tuple(origins), axis=axis))
    snapper.report(label)
    return out


def _snapped_axis(axis, tolerance):
    """The axis rebuilt from its rotation angles (see joint_model.axis_factors) snapped to multiples of
    15°, with exact cos/sin; and the largest angle change (0 when nothing changed)."""
    factors = axis_factors(axis)
    largest, snapped_factors = 0.0, []
    for f in factors:
        snapped = special_radians(f.value, tolerance)
        if snapped is not None and snapped[0] != f.value:
            largest = max(largest, snapped[1])
            f = type(f)(f.kind, f.axis, snapped[0], label=f.label)
        snapped_factors.append(f)
    if largest == 0:
        return axis, 0.0
    R = product(snapped_factors, float, _exact_cos_sin)
    return tuple(float(v) + 0.0 for v in R[:3, 2]), largest


# -- gravity -------------------------------------------------------------------------------------------------
def _gravity(tree_root, base, joints, label, tolerance, floating=False):
    """(0, 0, −9.81) in the URDF root link, turned into the base link's frame (q = 0 above it).

    A floating base's is in its floating joint's frame (the root link's frame turned by the joint's
    <origin>: the frame the base pose in q is measured in, as pinocchio does)."""
    g = np.array([0.0, 0.0, -9.81])
    parent_joint = {j.child: j for j in joints}
    path, link = [], base
    while link != tree_root and link in parent_joint:
        path.append(parent_joint[link])
        link = parent_joint[link].parent
    R = np.eye(3)
    for joint in reversed(path):
        rpy = joint.origin.rpy if tolerance is None else \
            tuple((special_radians(v, tolerance) or (v,))[0] for v in joint.origin.rpy)
        # exact cos/sin of special angles, so that a quarter turn leaves no 6e-16 in gravity
        for factor in origin_factors(Origin(rpy=rpy)):
            R = R @ factor_matrix(factor, float, _exact_cos_sin)[:3, :3]
    moving = [j.name for j in path if j.type != "fixed"]
    if moving and not floating:
        warn(printable(f"{label}: root={base!r}: gravity is taken in that link's frame with the joints "
                        f"above it ({', '.join(moving[:5])}) at q = 0; if those joints move, cut at the robot's "
                        "fixed base link instead, root=LINK"), DescriptionWarning)
    return tuple(float(v) + 0.0 for v in R.T @ g)


__all__ = ["MAX_URDF_BYTES", "parse_urdf"]
