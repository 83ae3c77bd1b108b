"""Reading robot descriptions (YAML) into :class:`~baseparam.model.robot.Robot` objects.

The reader is strict: an unknown key, a number written as a string, a boolean where a
number belongs, a non-finite value, a duplicate key or an impossible parent is refused
with a one-line :class:`~baseparam.errors.RobotDescriptionError` naming the file, the
field and what is wrong, e.g. ``arm.yaml: joints[3].alpha: expected a finite number,
got 'abc'``. Joint numbers and list positions in these paths are 1-based.

Numbers are kept as written (no unit conversion; integers stay integers) so that the
projection engine can recover the exact decimals of the description.

Reading the YAML text (and its YAML 1.1 surprises: ``1e-3`` as a string, octal ``0150``, ``yes``) is in
:mod:`._yaml_text`, the checks of single fields in :mod:`._fields`; this module builds the robot from them.
"""
from __future__ import annotations

import math
import os
from dataclasses import replace

import numpy as np

from .._checks import read_bounded, shown
from .._validation import (check_angle_tolerance, check_flag, check_input, check_instance, check_link_names,
                           check_mimic)
from ..errors import ArgumentError, RobotDescriptionError, printable
from ._angles import AngleSnapper, pi_angle
from ._xml_text import xml_encoding
from .checks import MAX_JOINTS, SNAP_RADIANS, angle_problem, body_problem, length_problem, problems_message
from ._fields import _check_keys, _choice, _got, _mapping, _non_negative, _number, _string, _vector
from ._yaml_text import MAX_BYTES, _decode, _Invalid, _load_yaml, _top_sequence_exceeds
from .friction import AUTO, COULOMB_SHAPES, FrictionModel, parse_friction_model, with_friction_model
from .robot import (ANGLE_UNITS, BASES, CONVENTIONS, JOINT_TYPES, LENGTH_UNITS, Inertia, Joint, JointLimits, Origin,
                    Robot, _declared, joint_names, with_drives)

__all__ = ["load_robot", "parse_robot", "MAX_JOINTS"]

# Descriptions longer than this (characters; 64 joints with bodies need about 20 000) have their joints
# counted on the YAML events before the document is built.
_SCAN_ABOVE = 32_000

_TOP_KEYS = ("name", "convention", "units", "gravity", "joints", "description", "source", "base", "base_inertia",
             "friction_model")
_UNIT_KEYS = ("length", "angle")
_OPTIONAL_JOINT_KEYS = ("name", "offset", "parent", "friction", "rotor_inertia", "inertia", "limits", "friction_prior",
                        "friction_model")
_JOINT_KEYS = {   # the variable's own column (theta, d) is accepted as its offset, as textbooks write tables
    "revolute": ("type", "alpha", "a", "d", "theta") + _OPTIONAL_JOINT_KEYS,
    "prismatic": ("type", "alpha", "a", "theta", "d") + _OPTIONAL_JOINT_KEYS,
}
_GENERAL_KEYS = ("type", "origin", "origins", "axis") + _OPTIONAL_JOINT_KEYS
_INERTIA_KEYS = ("mass", "com", "inertia", "as_written")
_FRICTION_MODEL_KEYS = ("coulomb", "velocity", "stribeck", "stribeck_friction")
_FRICTION_NAMES = ("viscous", "Coulomb", "offset")


# -- public API ---------------------------------------------------------------------------
def load_robot(path, *, root=None, tip=None, exact_angles=True, angle_tolerance=SNAP_RADIANS, friction=False,
               rotor_inertia=False, friction_model=None, floating=False, mimic="refuse") -> Robot:
    """Read a robot description from a YAML or URDF file.

    Parameters
    ----------
    path : str or os.PathLike
        The description file: UTF-8 YAML (fields in docs/formats.md, section "Robot description"), or
        URDF (a ``.urdf`` name, or text starting with ``<``; docs/formats.md, "URDF").
    root, tip : str, optional
        URDF only: the link to take as the base, and the link(s) (a name, a comma-separated list or a
        sequence) whose chains from the root to keep.
    exact_angles : bool, optional
        Take angles written in radians within `angle_tolerance` of a multiple of 15° as that angle
        (URDF ``rpy`` and axes, YAML with ``angle: rad``); False keeps them as written.
    angle_tolerance : float, optional
        In rad (default 1e-6).
    friction, rotor_inertia : bool, optional
        Declare viscous, Coulomb and offset friction / a rotor inertia on every joint (for URDF
        files, which cannot; ``<dynamics damping friction>`` gives the values), as
        :func:`~baseparam.model.robot.with_drives`.
    friction_model : FrictionModel or str, optional
        The friction model of every joint that declares Coulomb friction (after ``friction``): a
        :class:`~baseparam.model.friction.FrictionModel`, or a string as the CLI's ``--friction-model``
        (``sign``, ``smooth[:V]``, ``stribeck[:V]``, ``smooth:V+stribeck:V``, ``none``; V a velocity
        scale or ``auto``); ``none`` leaves the Coulomb term out.
    floating : bool, optional
        URDF only: take the root link as a free-flying base (pinocchio's ``JointModelFreeFlyer`` root;
        ``base: floating``, the root link's frame as frame 0), for a URDF whose root is fixed in the file.
        With ``tip``, the joints off the paths to the tips are locked at q = 0. Not with ``root``; a URDF
        whose root joint floats, and a YAML ``base: floating``, are floating bases already.
    mimic : {'refuse', 'lock', 'independent'}, optional
        URDF only: a ``<mimic>`` joint (q_m = k·q_j + o) has no coordinate of its own and the projection
        no basis for the coupling (docs/method.md, "Mimic joints"). ``'refuse'`` (default) refuses the file
        in one line; ``'lock'`` locks every mimic joint at q = 0 as joints off the paths to the tips are
        (their links weigh on the body carrying them; one DescriptionWarning line names them): the base
        parameters of the robot with its mimic joints held still, as pinocchio's ``buildReducedModel``
        with them locked. ``'independent'``
        reads every mimic joint as a joint of its own, with its own coordinate, numbered depth first as any
        moving joint (one DescriptionWarning line names them): the robot pinocchio's ``buildModelFromUrdf``
        builds by default (``mimic=False``), and its base parameters.

    Returns
    -------
    Robot
        The robot, numbers as written in the file's units; ``Robot.source`` holds the text.

    Raises
    ------
    RobotDescriptionError
        The file cannot be read or is not a valid description; the one-line message names
        the file and the offending field.
    """
    label = check_input(path, unreadable=RobotDescriptionError)
    check_link_names(root, "root", several=False)
    check_link_names(tip, "tip")
    angle_tolerance = check_angle_tolerance(angle_tolerance)      # a Fraction as the float its messages format
    for name, flag in (("exact_angles", exact_angles), ("friction", friction), ("rotor_inertia", rotor_inertia)):
        check_flag(flag, name)
    floating = check_flag(floating, "floating")
    check_mimic(mimic)
    def urdf_limit(data):                   # URDFs with meshes' data run to megabytes
        from .urdf import MAX_URDF_BYTES

        return MAX_URDF_BYTES if is_urdf(label, data) else None

    data = read_bounded(path, MAX_BYTES, printable(label), RobotDescriptionError, larger=urdf_limit)
    if is_urdf(label, data):
        from .urdf import parse_urdf

        robot = parse_urdf(data, label, root=root, tip=tip, exact_angles=exact_angles,
                           angle_tolerance=angle_tolerance, floating=floating, mimic=mimic)
    else:
        # read first: a file that is no description at all (binary, a log, damaged YAML) is said to be so, not
        # called "a YAML description" by the refusals of the URDF-only options below
        robot = parse_robot(data, label, exact_angles=exact_angles, angle_tolerance=angle_tolerance)
        if floating:
            raise ArgumentError(f"{label}: floating=True: takes a URDF's root link as a free-flying base; this is a "
                                "YAML description (write base: floating and base_inertia in it)")
        if root is not None or tip is not None:
            raise RobotDescriptionError(f"{label}: root/tip: they select part of a URDF model; this is a YAML "
                                        "description (use parent: in it for trees)")
        if mimic != "refuse":           # accepted and without effect before: a YAML description has no <mimic> joints
            raise ArgumentError(f"{label}: mimic={mimic!r}: reads a URDF's <mimic> joints; this is a YAML description, "
                                "which has none (leave it out)")
    robot = with_drives(robot, friction, rotor_inertia)
    if friction_model is not None:
        model, coulomb = (friction_model, True) if isinstance(friction_model, FrictionModel) \
            else parse_friction_model(friction_model)
        robot = with_friction_model(robot, model, coulomb=coulomb)
    # kept so that writers given this robot refuse to write over its description (not a field set by replace(): that
    # would check the robot, and warn, once more)
    object.__setattr__(robot, "source_file", os.path.realpath(label))
    return robot


def is_urdf(label: str, data: bytes) -> bool:
    """A ``.urdf`` file name, or XML text (``<`` first, after a byte-order mark and white space; in UTF-16 or
    UTF-32 too, as :mod:`._xml_text` reads them)."""
    if label.lower().endswith(".urdf") or data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return True
    codec, skip, _ = xml_encoding(data[:64])
    return codec.startswith(("utf-16", "utf-32")) and \
        data[skip:skip + 64].decode(codec, "replace").lstrip(" \t\r\n").startswith("<")


def parse_robot(text, filename: str = "<string>", *, exact_angles=True, angle_tolerance=SNAP_RADIANS) -> Robot:
    """Build a robot from the text of a YAML description (or of a URDF: text starting with ``<``).

    Parameters
    ----------
    text : str or bytes
        The description; bytes of a YAML must be UTF-8, those of a URDF in the encoding its byte-order mark or
        XML declaration names (UTF-8 without either).
    filename : str, optional
        Name used in error messages.
    exact_angles : bool, optional
        With ``angle: rad``, take angles within `angle_tolerance` of a multiple of 15° as that angle
        (one RoundOffWarning line), and refuse twists that are rounded values of one (``1.5708``),
        saying what to write; False reads every angle as written.
    angle_tolerance : float, optional
        rad.

    Returns
    -------
    Robot
        ``Robot.source`` is `text` (decoded if given as bytes; a URDF's XML declaration, if it names another
        encoding, made to name UTF-8, the encoding a write-back writes the text in).

    Raises
    ------
    RobotDescriptionError
        The text is not a valid description: a one-line message naming the file, and each independent
        problem's field and what is wrong (``arm.yaml: 2 problems: joints[1].alpha: …; joints[2].a: …``).

    Examples
    --------
    >>> robot = parse_robot("{units: {length: m, angle: deg}, joints: [{type: revolute, alpha: 0, a: 1, d: 0}]}")
    >>> robot.n_dof, robot.joints[0].a
    (1, 1)
    """
    # only a label for messages: any text, escaped onto one line
    filename = printable(os.fsdecode(check_instance(filename, "filename", (str, bytes, os.PathLike), "a file name")))
    check_flag(exact_angles, "exact_angles")
    if isinstance(text, str):
        try:                    # a lone surrogate (os.fsdecode of a non-UTF-8 byte) is no text a reader can take
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise RobotDescriptionError(f"{filename}: not valid text (a lone surrogate "
                                        f"{ascii(text[exc.start])[1:-1]} at offset {exc.start})") from None
    if isinstance(text, (str, bytes, bytearray)) and is_urdf("", text.encode() if isinstance(text, str) else text):
        from .urdf import parse_urdf       # URDF text: the same robot load_robot would read from a file

        return parse_urdf(text, filename, exact_angles=exact_angles, angle_tolerance=angle_tolerance)
    check_instance(text, "text", (str, bytes, bytearray), "the description's text (str or bytes)")
    angle_tolerance = check_angle_tolerance(angle_tolerance)      # a Fraction as the float its messages format
    snapper = AngleSnapper(angle_tolerance if exact_angles else None)
    try:
        if isinstance(text, (bytes, bytearray)):
            text = _decode(bytes(text))
        if len(text) > _SCAN_ABOVE and _top_sequence_exceeds(text, "joints", MAX_JOINTS):
            raise _Invalid("joints", f"expected at most {MAX_JOINTS} joints, got more")
        data = _load_yaml(text)
        robot = _build_robot(data, text, snapper)
    except _Invalid as exc:
        raise _of_file(RobotDescriptionError(exc.format(filename))) from None
    except _Problems as exc:
        message = problems_message(filename, [p.format(filename) for p in exc.problems])
        raise _of_file(RobotDescriptionError(message)) from None
    snapper.report(filename)
    return robot


def _of_file(error):
    """Mark an error whose message names the description's own fields (``rotor_inertia``,
    ``friction_model``, …), not a function's parameters: the CLI shows it as it is, without turning
    those names into its flags."""
    error.file_fields = True
    return error


# -- building ------------------------------------------------------------------------------


class _Problems(Exception):
    """Independent problems of one description (each an _Invalid), reported together: field checks run
    through :meth:`get` keep each one's problem instead of stopping at the first, and :meth:`raise_any`
    raises the collection when it holds any (parse_robot lists them all in one line)."""

    def __init__(self):
        super().__init__()
        self.problems = []

    def get(self, check, *args, default=None):
        try:
            return check(*args)
        except _Invalid as exc:
            self.problems.append(exc)
        except _Problems as exc:
            self.problems.extend(exc.problems)
        return default

    def raise_any(self):
        if self.problems:
            raise self


def _build_robot(data, text: str, snapper) -> Robot:
    if not isinstance(data, dict):
        raise _Invalid("", f"expected a mapping (name, units, joints, ...) at the top level, got {_got(data)}")
    _check_keys(data, _TOP_KEYS, "", required=("joints",))
    found = _Problems()
    kwargs = {}
    if "name" in data:
        kwargs["name"] = found.get(_name, data["name"], default="robot")
    for key in ("description", "source"):
        if key in data:
            found.get(_string, data[key], key)
    if "convention" in data:
        kwargs["convention"] = found.get(_choice, data["convention"], CONVENTIONS, "convention", default="standard")
    units = found.get(_units, data["units"]) if "units" in data else None
    if "units" not in data:   # without it "alpha: 90" would silently mean 90 rad
        found.problems.append(_Invalid("units", "required field is missing; write e.g. {length: m, angle: deg}"))
    if units is not None and kwargs.get("convention") == "urdf" and units != ("m", "rad"):
        found.problems.append(_Invalid("units", f"a urdf-convention description is in m and rad, got "
                                                f"{{length: {units[0]}, angle: {units[1]}}}"))
        units = None
    if "base" in data:
        kwargs["base"] = found.get(_choice, data["base"], BASES, "base", default="fixed")
    if "base_inertia" in data:
        if kwargs.get("base") != "floating":
            found.problems.append(_Invalid("base_inertia", "only a floating base has a body of its own; "
                                                           "add base: floating, or remove base_inertia"))
        else:
            kwargs["base_inertia"] = found.get(_inertia, data["base_inertia"], "base_inertia")
    if "gravity" in data:   # sizes checked (and round-off snapped) by Robot
        kwargs["gravity"] = found.get(_vector, data["gravity"], 3, "gravity", default=(0.0, 0.0, -9.81))
    default_model = None
    if "friction_model" in data:   # every joint's that declares friction and gives none of its own
        default_model = found.get(_friction_model, data["friction_model"], "friction_model")
    joints = None
    if units is not None:   # what alpha means depends on the units
        kwargs["length_unit"], kwargs["angle_unit"] = units
        joints = found.get(_joints, data["joints"], units[0], units[1], kwargs.get("convention", "standard"), snapper)
    found.raise_any()
    if default_model is not None:
        joints = tuple(_with_default_model(j, entry, default_model) for j, entry in zip(joints, data["joints"]))
    try:
        return Robot(joints=joints, source=text, **kwargs)
    except RobotDescriptionError as exc:  # Robot's own checks (gravity, angle units), shared with robots built in code
        raise _Invalid("", str(exc)) from None


def _name(value, path: str = "name") -> str:
    """A robot's or a joint's name: one line, not empty."""
    name = _string(value, path, non_empty=True)
    if not name.isprintable():     # newlines, escapes, U+2028 … would break one-line output
        raise _Invalid(path, f"expected a one-line name without control characters, got {_got(name)}")
    return name


def _units(value) -> tuple:
    units = _mapping(value, "units", "{length: mm, angle: deg}")
    _check_keys(units, _UNIT_KEYS, "units", required=_UNIT_KEYS)
    length = _choice(units["length"], tuple(LENGTH_UNITS), "units.length")
    angle = _choice(units["angle"], tuple(ANGLE_UNITS), "units.angle")
    return length, angle


def _joints(value, length_unit, angle_unit, convention, snapper) -> tuple:
    if not isinstance(value, list):
        raise _Invalid("joints", f"expected a list of joints, got {_got(value)}")
    if not value:
        raise _Invalid("joints", "expected at least one joint, got an empty list")
    if len(value) > MAX_JOINTS:
        raise _Invalid("joints", f"expected at most {MAX_JOINTS} joints, got {len(value)}")
    found = _Problems()
    read = _general_joint if convention == "urdf" else _joint
    joints = tuple(found.get(read, entry, k, length_unit, angle_unit, snapper) for k, entry in enumerate(value, 1))
    found.raise_any()
    # a log's joints are matched by name: one joint each, an unnamed joint k by jointk (robot_joint_names), so
    # joints[1] named joint2 beside an unnamed joints[2] read the log's joint2 twice
    names = joint_names(joints)
    first = {}
    for k, (joint, name) in enumerate(zip(joints, names), 1):
        j = first.setdefault(name, k)
        if j != k:
            which = f"joints[{k if joint.name is not None else j}].name"
            other = k if joint.name is None else j
            whose = (f"the name of joints[{other}]" if joints[other - 1].name is not None
                     else f"the name the unnamed joints[{other}] goes by")
            raise _Invalid(which, f"{shown(name)} is also {whose}; expected distinct joint names")
    return joints


def _joint_head(entry, path, example, keys):
    """A joint entry's mapping and type (without them nothing else can be read), and a collector
    holding its unknown keys."""
    entry = _mapping(entry, path, example)
    if "type" not in entry:
        raise _Invalid(f"{path}.type", "required field is missing; expected 'revolute' or 'prismatic'")
    kind = _choice(entry["type"], JOINT_TYPES, f"{path}.type")
    found = _Problems()
    found.get(_check_keys, entry, keys[kind], path)
    return entry, kind, found


def _joint(entry, k: int, length_unit: str, angle_unit: str, snapper) -> Joint:
    """The `k`-th joint (1-based) of a DH description."""
    path = f"joints[{k}]"
    entry, kind, found = _joint_head(entry, path, "{type: revolute, alpha: 0, a: 0, d: 0}", _JOINT_KEYS)
    constant, variable = ("d", "theta") if kind == "revolute" else ("theta", "d")
    missing = [key for key in ("alpha", "a", constant) if key not in entry]
    if missing and not found.problems:     # a misspelt key (alpah) explains its missing field: said once
        also = f"; also missing: {', '.join(missing[1:])}" if len(missing) > 1 else ""
        found.problems.append(_Invalid(f"{path}.{missing[0]}", f"required field is missing (a {kind} joint needs "
                                                               f"alpha, a and {constant}; write 0 if it is zero)"
                                                               f"{also}"))
    if variable in entry and "offset" in entry:
        found.problems.append(_Invalid(f"{path}.{variable}", f"{variable} and offset both give the constant added "
                                                             f"to the joint variable of a {kind} joint; write one"))
    fields = {"type": kind}
    for key in ("alpha", "a", "d", "theta", "offset"):
        if key in entry:
            name = "offset" if key == variable else key      # the textbook column of the variable: its offset
            value = found.get(_field_number, entry[key], name, kind, f"{path}.{key}", length_unit, angle_unit, snapper)
            if value is not None:
                fields[name] = value
    _common_keys(entry, k, path, fields, found)
    found.raise_any()
    return Joint(**fields)


def _with_default_model(joint, entry, model):
    """A joint with the description's top-level friction model, unless it declares no friction or its own."""
    if "FC" not in joint.friction_terms or "friction_model" in entry:
        return joint        # the model shapes the Coulomb term: nothing to shape without one
    return replace(joint, friction_model=model)


def _common_keys(entry, k, path, fields, found):
    """The keys every joint may have, in either convention: parent (default: joint k − 1), name, friction,
    rotor_inertia, inertia, limits, friction_prior, friction_model."""
    fields["parent"] = found.get(_parent, entry.get("parent", k - 1), k, f"{path}.parent")
    if "name" in entry:          # what a log's joints are matched by (URDF names; docs/formats.md)
        fields["name"] = found.get(_name, entry["name"], f"{path}.name")
    if "friction" in entry:
        fields["friction"] = found.get(_friction, entry["friction"], f"{path}.friction")
    if "friction_model" in entry:
        model = found.get(_friction_model, entry["friction_model"], f"{path}.friction_model")
        friction = fields.get("friction", (False,) * 3) or (False,) * 3
        if model is not None and not _declared(friction[1]):     # by identity: a fitted 0.0 is declared
            found.problems.append(_Invalid(f"{path}.friction_model", "the model shapes the Coulomb friction, which "
                                           "this joint does not declare (friction: [.., true, ..])"))
        elif model is not None:
            fields["friction_model"] = model
    for key, read in (("rotor_inertia", _rotor_inertia), ("inertia", _inertia), ("limits", _limits),
                      ("friction_prior", _friction_prior)):
        if key in entry:
            fields[key] = found.get(read, entry[key], f"{path}.{key}")


def _field_number(value, key, kind, path, length_unit, angle_unit, snapper, refuse_rounded=True):
    """A DH number: angles may be ``pi/2``-style expressions in radians and are snapped (see _angles);
    ``refuse_rounded=False`` keeps a rounded angle (1.5708) as written, as the URDF reader does."""
    is_angle = key in ("alpha", "theta") or (key == "offset" and kind == "revolute")
    if is_angle and isinstance(value, str) and angle_unit == "rad" and ("pi" in value or "π" in value):
        value = pi_angle(value, path)
    elif is_angle and isinstance(value, str) and ("pi" in value or "π" in value):
        raise _Invalid(path, f"expected a number of degrees (units.angle is deg), got {shown(value)}; write e.g. 90 "
                             "for pi/2")
    value = _number(value, path)
    # absurd sizes would overflow or vanish in the arithmetic; 45 rad is a unit slip
    problem = angle_problem(value, angle_unit) if is_angle else length_problem(value, length_unit,
                                                                                LENGTH_UNITS[length_unit])
    if problem is not None:
        raise _Invalid(path, problem)
    if is_angle and angle_unit == "rad":
        # twists (and a prismatic joint's theta) shape rank and regroupings; offsets only shift q
        value = snapper(value, path, shapes_rank=refuse_rounded and key != "offset")
    return value


def _general_joint(entry, k: int, length_unit: str, angle_unit: str, snapper) -> Joint:
    """The `k`-th joint of a ``convention: urdf`` description: origins and an axis (m, rad)."""
    path = f"joints[{k}]"
    entry, kind, found = _joint_head(entry, path, "{type: revolute, origin: {xyz: [0, 0, 0.1]}, axis: [0, 0, 1]}",
                                     dict.fromkeys(JOINT_TYPES, _GENERAL_KEYS))
    if "origin" in entry and "origins" in entry:
        found.problems.append(_Invalid(f"{path}.origins", "origin and origins both place the joint; write one"))
    fields = {"type": kind}
    raw = [entry["origin"]] if "origin" in entry else entry.get("origins", [])
    if not isinstance(raw, list):
        found.problems.append(_Invalid(f"{path}.origins", f"expected a list of {{xyz, rpy}} mappings, got {_got(raw)}"))
        raw = []
    where = f"{path}.origin" if "origin" in entry else f"{path}.origins"
    origins = [found.get(_origin, item, where if "origin" in entry else f"{where}[{i}]", snapper)
               for i, item in enumerate(raw, start=1)]
    fields["origins"] = tuple(o for o in origins if o is not None)
    if "axis" in entry:
        fields["axis"] = found.get(_vector, entry["axis"], 3, f"{path}.axis", default=(0.0, 0.0, 1.0))
        norm = math.hypot(*fields["axis"])
        if not 1e-6 < norm < 1e6:      # the range Joint accepts; said here with the file and the joint
            found.problems.append(_Invalid(f"{path}.axis", "expected a direction of length between 1e-6 and 1e6, "
                                                           f"got {list(fields['axis'])}"))
            fields["axis"] = (0.0, 0.0, 1.0)
    if "offset" in entry:
        fields["offset"] = found.get(_field_number, entry["offset"], "offset", kind, f"{path}.offset", length_unit,
                                     angle_unit, snapper)
    _common_keys(entry, k, path, fields, found)
    found.raise_any()
    return Joint(**{key: value for key, value in fields.items() if value is not None or key == "parent"})


def _origin(value, path, snapper) -> Origin:
    spec = _mapping(value, path, "{xyz: [0, 0, 0.3], rpy: [0, 0, 0]}")
    _check_keys(spec, ("xyz", "rpy"), path)
    xyz = _vector(spec["xyz"], 3, f"{path}.xyz") if "xyz" in spec else (0.0, 0.0, 0.0)
    for i, v in enumerate(xyz, start=1):
        problem = length_problem(v, "m", 1.0)
        if problem is not None:
            raise _Invalid(f"{path}.xyz[{i}]", problem)
    rpy = (0.0, 0.0, 0.0)
    if "rpy" in spec:
        items = spec["rpy"]
        if not isinstance(items, list) or len(items) != 3:
            raise _Invalid(f"{path}.rpy", f"expected a list of 3 angles (rad), got {_got(items)}")
        # a URDF's geometry, read as the URDF reader reads it: rounded angles kept, not refused (the YAML that
        # payload --robot-out writes of a URDF robot, rpy="1.57079 0 0" among them, reads back)
        rpy = tuple(_field_number(v, "alpha", "revolute", f"{path}.rpy[{i}]", "m", "rad", snapper, False)
                    for i, v in enumerate(items, start=1))
    return Origin(xyz, rpy, label=path)


def _limits(value, path) -> JointLimits:
    spec = _mapping(value, path, "{lower: -3.1, upper: 3.1, velocity: 2, effort: 100}")
    _check_keys(spec, ("lower", "upper", "velocity", "effort"), path)
    out = {key: float(_number(spec[key], f"{path}.{key}")) for key in ("lower", "upper") if key in spec}
    out.update({key: float(_non_negative(spec[key], f"{path}.{key}")) for key in ("velocity", "effort")
                if key in spec})
    if out.get("lower") is not None and out.get("upper") is not None and out["lower"] > out["upper"]:
        raise _Invalid(path, f"lower {shown(out['lower'])} is above upper {shown(out['upper'])}")
    return JointLimits(**out)


def _friction_prior(value, path) -> tuple:
    if not isinstance(value, list) or len(value) != 2:
        raise _Invalid(path, f"expected [viscous, Coulomb], 2 numbers ≥ 0, got {_got(value)}")
    return tuple(float(_non_negative(v, f"{path}[{i}]")) for i, v in enumerate(value, start=1))


def _parent(value, k: int, path: str) -> int:
    expected = "0 (the base)" if k == 1 else f"an integer from 0 (the base) to {k - 1} (an earlier joint)"
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < k:
        note = " (a joint cannot be its own parent)" if value == k and not isinstance(value, bool) else ""
        raise _Invalid(path, f"expected {expected}, got {_got(value)}{note}")
    return value


def _friction(value, path: str) -> tuple:
    """``(viscous, Coulomb, offset)``, each False (not modelled), True, or a true value."""
    if isinstance(value, bool):
        return (value,) * 3
    if not isinstance(value, list) or len(value) != 3:
        raise _Invalid(path, "expected true or a list of 3 items [viscous, Coulomb, offset], each true, "
                             f"false, null or a number, got {_got(value)}")
    terms = []
    for i, (item, name) in enumerate(zip(value, _FRICTION_NAMES), start=1):
        if item is None or isinstance(item, bool):
            terms.append(bool(item))
        elif name == "offset":
            terms.append(float(_number(item, f"{path}[{i}]", "true, false, null or a finite number")))
        else:  # viscous and Coulomb coefficients dissipate energy: never negative
            terms.append(float(_non_negative(item, f"{path}[{i}]", "true, false, null or a finite number ≥ 0")))
    return tuple(terms)


def _friction_model(value, path: str):
    """``{coulomb: sign|smooth, velocity: v|auto, stribeck: v|auto, stribeck_friction: FS}``."""
    spec = _mapping(value, path, "{coulomb: smooth, velocity: 0.02}")
    _check_keys(spec, _FRICTION_MODEL_KEYS, path)
    fields = {"coulomb": _choice(spec.get("coulomb", "sign"), COULOMB_SHAPES, f"{path}.coulomb")}
    for key in ("velocity", "stribeck"):
        if key in spec and spec[key] is not None:
            item = spec[key]
            if item != AUTO:
                item = _number(item, f"{path}.{key}", "a velocity scale > 0 (rad/s or m/s) or auto")
                if not 0 < item < 1e3:
                    raise _Invalid(f"{path}.{key}", f"expected a velocity scale > 0 (rad/s or m/s) below 1000 or "
                                                    f"auto, got {_got(item)}")
            fields[key] = item
    if "stribeck_friction" in spec and spec["stribeck_friction"] is not None:
        fields["stribeck_friction"] = float(_number(spec["stribeck_friction"], f"{path}.stribeck_friction"))
    if fields["coulomb"] == "smooth" and "velocity" not in fields:
        raise _Invalid(f"{path}.velocity", "required for coulomb: smooth (a scale in rad/s or m/s, or auto)")
    if fields["coulomb"] == "sign" and "velocity" in fields:
        raise _Invalid(f"{path}.velocity", "only for coulomb: smooth (sign(q̇) has no velocity scale)")
    if "stribeck_friction" in fields and "stribeck" not in fields:
        raise _Invalid(f"{path}.stribeck_friction", "given without a Stribeck velocity (stribeck: v)")
    return FrictionModel(**fields)


def _rotor_inertia(value, path: str):
    return value if isinstance(value, bool) else float(_non_negative(value, path, "true, false or a finite number ≥ 0"))


def _inertia(value, path: str) -> Inertia:
    spec = _mapping(value, path, "{mass: 1, com: [0, 0, 0], inertia: [[..], [..], [..]]}")
    _check_keys(spec, _INERTIA_KEYS, path, required=_INERTIA_KEYS[:3])
    # as_written: a URDF's massless or non-physical body, kept as the URDF gave it (docs/formats.md)
    as_written = spec.get("as_written", False)
    if not isinstance(as_written, bool):
        raise _Invalid(f"{path}.as_written", f"expected true or false, got {_got(as_written)}")
    mass = _number(spec["mass"], f"{path}.mass", "a finite mass > 0")
    com = np.array(_vector(spec["com"], 3, f"{path}.com"), dtype=float)
    tensor = _symmetric_3x3(spec["inertia"], f"{path}.inertia")
    problem = body_problem(mass, com, tensor, massless_ok=as_written, physical=not as_written)
    if problem is not None:
        raise _Invalid(f"{path}.{problem[0]}", problem[1])
    return Inertia(mass=float(mass), com=com, inertia=tensor, as_written=as_written)


def _symmetric_3x3(value, path: str) -> np.ndarray:
    if not isinstance(value, list) or len(value) != 3 or not all(isinstance(r, list) and len(r) == 3 for r in value):
        raise _Invalid(path, f"expected a 3×3 nested list of finite numbers, got {_got(value)}")
    # symmetry and physical moments: body_problem, as for robots built in code
    return np.array([[_number(x, f"{path}[{i}][{j}]") for j, x in enumerate(row, start=1)]
                     for i, row in enumerate(value, start=1)], dtype=float)
