"""Reading YAML robot descriptions: a full example, defaults, and broken files."""
import dataclasses

import numpy as np
import pytest

from baseparam.errors import RobotDescriptionError
from baseparam.model.loading import MAX_JOINTS, load_robot, parse_robot
from baseparam.model.robot import Inertia, Joint, Robot
from conftest import ROOT

FULL = """\
# every optional field at least once
name: Test arm
description: a made-up three-joint arm
source: nowhere
convention: modified
units: {length: mm, angle: deg}
gravity: [0, 0.5, -9.81]
joints:
  - {type: revolute, alpha: -90, a: 0, d: 150.5, offset: 10, friction: true, rotor_inertia: true}
  - type: prismatic
    alpha: 90
    a: 431.8
    theta: 90
    offset: 1.5e2
    parent: 1
    friction: [0.5, false, null]
    rotor_inertia: 0.002
    inertia:
      mass: 2
      com: [0, 0.1, 0]
      inertia: [[2, 0, 0], [0, 2, 0.1], [0, 0.1, 3]]
  - {type: revolute, alpha: 0, a: 0, d: 0, parent: 1, friction: [true, 0.2, -0.1], rotor_inertia: false}
"""


def write(tmp_path, content, name="arm.yaml"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def without_inertia(robot):
    """`robot` with every Joint.inertia set to None (Inertia holds arrays, so == would raise)."""
    joints = tuple(dataclasses.replace(j, inertia=None) for j in robot.joints)
    return dataclasses.replace(robot, joints=joints)


def test_full_example_round_trips(tmp_path):
    path = write(tmp_path, FULL)
    robot = load_robot(path)
    expected = Robot(
        joints=(
            Joint("revolute", alpha=-90, a=0, d=150.5, offset=10, parent=0,
                  friction=(True, True, True), rotor_inertia=True),
            Joint("prismatic", alpha=90, a=431.8, theta=90, offset=150.0, parent=1,
                  friction=(0.5, False, False), rotor_inertia=0.002),
            Joint("revolute", parent=1, friction=(True, 0.2, -0.1), rotor_inertia=False),
        ),
        name="Test arm", convention="modified", length_unit="mm", angle_unit="deg",
        gravity=(0, 0.5, -9.81),
    )
    # Inertia holds arrays, so compare it separately from the rest of the robot.
    second = robot.joints[1]
    inertia = second.inertia
    assert inertia.mass == 2.0
    np.testing.assert_array_equal(inertia.com, [0, 0.1, 0])
    np.testing.assert_array_equal(inertia.inertia, [[2, 0, 0], [0, 2, 0.1], [0, 0.1, 3]])
    assert inertia.com.shape == (3,) and inertia.inertia.shape == (3, 3)
    assert not inertia.com.flags.writeable
    assert without_inertia(robot) == expected
    assert robot.source == FULL
    assert robot.joints[0].friction_terms == ("FV", "FC", "FO")
    assert robot.joints[1].friction_terms == ("FV",)
    assert robot.joints[1].has_rotor_inertia and not robot.joints[2].has_rotor_inertia
    assert robot.parents == (-1, 0, 0) and not robot.is_chain


def test_numbers_are_kept_as_written():
    robot = parse_robot(FULL)
    first = robot.joints[0]
    assert type(first.alpha) is int and type(first.a) is int and type(first.d) is float
    assert robot.exact_value(first.d) == robot.exact_value(150.5)
    assert str(robot.exact_value(robot.joints[1].a)) == "2159/5"  # 431.8 exactly


def test_defaults():
    # units and the DH constants are required; everything else has a default
    robot = parse_robot("units: {length: m, angle: rad}\njoints:\n"
                        "  - {type: revolute, alpha: 0, a: 0, d: 0}\n"
                        "  - {type: prismatic, alpha: 0, a: 0, theta: 0}\n")
    assert robot.name == "robot"
    assert robot.convention == "standard"
    assert (robot.length_unit, robot.angle_unit) == ("m", "rad")
    assert robot.gravity == (0.0, 0.0, -9.81)
    first, second = robot.joints
    assert first == Joint("revolute", parent=0)
    assert second == Joint("prismatic", parent=1)
    assert first.offset == 0 and second.offset == 0
    assert first.friction == (False, False, False) and first.rotor_inertia is False
    assert first.inertia is None
    assert robot.is_chain


def test_zero_gravity_exponent_floats_and_units():
    robot = parse_robot("units: {length: cm, angle: rad}\ngravity: [0, 0, 0]\n"
                        "joints: [{type: revolute, a: 1e-3, d: 2.5E+2, alpha: -1.5e0}]")
    assert robot.gravity == (0.0, 0.0, 0.0)
    assert robot.length_unit == "cm" and robot.angle_unit == "rad"
    joint = robot.joints[0]
    assert (joint.a, joint.d, joint.alpha) == (1e-3, 250.0, -1.5)


def test_magnitude_limits_are_inclusive_and_in_si():
    """Zero, the bounds themselves and lengths in mm are accepted."""
    robot = parse_robot(
        "units: {length: mm, angle: deg}\ngravity: [1e4, 0, -1e4]\njoints:\n"
        "  - {type: revolute, alpha: 3600, a: 1e7, d: -1e-3, offset: -3600}\n"  # 1e7 mm = 1e4 m
        "  - {type: prismatic, alpha: 0, a: 0, theta: -3600, offset: 1e7}\n")
    assert robot.gravity == (1e4, 0, -1e4)
    first, second = robot.joints
    assert (first.alpha, first.a, first.d, first.offset) == (3600, 1e7, -1e-3, -3600)
    assert (second.theta, second.offset) == (-3600, 1e7)
    robot = parse_robot("units: {length: m, angle: rad}\n"
                        "joints: [{type: revolute, alpha: 6.283185307179586, a: 1e4, d: 1e-9, offset: -6.2831}]")
    assert (robot.joints[0].alpha, robot.joints[0].a, robot.joints[0].d) == (6.283185307179586, 1e4, 1e-9)


def test_parse_and_load_agree(tmp_path):
    path = write(tmp_path, FULL)
    loaded, parsed = load_robot(str(path)), parse_robot(FULL.encode("utf-8"), str(path))
    assert without_inertia(loaded) == without_inertia(parsed)
    assert repr(loaded.joints[1].inertia) == repr(parsed.joints[1].inertia)
    assert loaded.source == parsed.source == FULL


UNITS = "units: {length: m, angle: rad}\n"


def test_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_robot(UNITS + "joints: []")


def test_default_filename_in_message():
    with pytest.raises(RobotDescriptionError,
                       match=r"^<string>: joints\[1\]\.alpha: expected a finite number, got 'abc'$"):
        parse_robot(UNITS + "joints: [{type: revolute, alpha: abc, a: 0, d: 0}]")


def test_typo_suggests_the_right_key():
    with pytest.raises(RobotDescriptionError, match=r"joints\[1\]\.alpah: unknown field; did you mean 'alpha'\?"):
        parse_robot(UNITS + "joints: [{type: revolute, alpah: 0, a: 0, d: 0}]")


def test_syntax_error_gives_line_number():
    text = "name: arm\njoints:\n  - {type: revolute\n  - type: prismatic\n"
    with pytest.raises(RobotDescriptionError, match=r"line [34], column \d+: invalid YAML"):
        parse_robot(text, "x.yaml")


def test_duplicate_key_names_both_lines():
    text = UNITS + "joints:\n  - type: revolute\n    a: 1\n    a: 2\n"
    with pytest.raises(RobotDescriptionError, match=r"joints\[1\]\.a: duplicate key \(lines 4 and 5\)"):
        parse_robot(text)


def test_merge_keys_are_not_duplicates():
    text = UNITS + "joints:\n  - &j {type: revolute, a: 1, alpha: 0, d: 0}\n  - {<<: *j, a: 2}\n"
    robot = parse_robot(text)
    assert robot.joints[1].a == 2 and robot.joints[1].alpha == 0


def _joint_file(*joint_lines, top=UNITS):
    """A description with `top` (by default a complete `units`) and the given joints."""
    return top + "joints:\n" + "".join(f"  - {line}\n" for line in joint_lines)


def rev(**fields):
    """A revolute joint in flow style, every required field 0 unless given (None drops it)."""
    return _flow({"type": "revolute", "alpha": 0, "a": 0, "d": 0, **fields})


def pri(**fields):
    """A prismatic joint in flow style, every required field 0 unless given (None drops it)."""
    return _flow({"type": "prismatic", "alpha": 0, "a": 0, "theta": 0, **fields})


def _flow(fields):
    return "{" + ", ".join(f"{k}: {v}" for k, v in fields.items() if v is not None) + "}"


REV = rev()
PRI = pri()
UNIT_INERTIA = "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"
BOMB = ("name: [&a [x, x, x, x, x, x, x, x, x], &b [*a, *a, *a, *a, *a, *a, *a, *a, *a],"
        " &c [*b, *b, *b, *b, *b, *b, *b, *b, *b], &d [*c, *c, *c, *c, *c, *c, *c, *c, *c],"
        " &e [*d, *d, *d, *d, *d, *d, *d, *d, *d], &f [*e, *e, *e, *e, *e, *e, *e, *e, *e],"
        " &g [*f, *f, *f, *f, *f, *f, *f, *f, *f], &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]]\n"
        + UNITS + "joints: [" + REV + "]\n")

# (id, file content, field path or None, fragments the message must contain besides file and field).
# The message must start with "<file>: <field>: ", so each case fails for its own reason; None is
# for problems of the file as a whole (encoding, YAML syntax, ...).
BROKEN = [
    ("non-utf8", b"name: caf\xe9\n" + _joint_file(REV).encode(), None, ["line 1", "not UTF-8"]),
    ("empty", "", None, ["empty description"]),
    ("only-comments", "# nothing here\n\n", None, ["empty description"]),
    ("list-top-level", "- " + REV + "\n", None, ["top level"]),
    ("scalar-top-level", "just some words\n", None, ["top level"]),
    ("syntax-error", "name: arm\n" + UNITS + "joints: [\n  {type: revolute\n", None, ["line ", "invalid YAML"]),
    ("bad-indentation", "name: arm\n joints: []\n", None, ["line 2", "invalid YAML"]),
    ("two-documents", _joint_file(REV) + "---\n" + _joint_file(REV), None, ["line 4", "single document"]),
    ("python-tag", "name: !!python/object/apply:os.system [ls]\n" + _joint_file(REV), None, ["line 1"]),
    ("control-character", "name: a\x01b\n" + _joint_file(REV), None, ["line 1", "U+0001"]),
    ("nan", _joint_file(rev(alpha=".nan")), "joints[1].alpha", ["nan"]),
    ("inf", _joint_file(REV, rev(a=".inf")), "joints[2].a", ["inf"]),
    ("minus-inf-gravity", "gravity: [0, 0, -.inf]\n" + _joint_file(REV), "gravity[3]", ["inf"]),
    ("1e999", _joint_file(rev(d="1e999")), "joints[1].d", ["inf"]),
    ("huge-int", _joint_file(rev(d="1" + "0" * 400)), "joints[1].d", ["finite number"]),
    ("bool-for-number", _joint_file(rev(alpha="true")), "joints[1].alpha", ["True"]),
    ("yes-for-number", _joint_file(pri(theta="yes")), "joints[1].theta", ["true or false", "YAML 1.1"]),
    ("string-number", _joint_file(rev(alpha="'90'")), "joints[1].alpha", ["without quotes"]),
    ("string-abc", _joint_file(REV, REV, rev(alpha="abc")), "joints[3].alpha", ["'abc'"]),
    ("null-number", _joint_file(rev(offset="null")), "joints[1].offset", ["None"]),
    ("octal-int", _joint_file(rev(d="0150")), "joints[1].d", ["octal"]),
    ("sexagesimal", _joint_file(rev(alpha="1:30")), "joints[1].alpha", ["base 60"]),
    # units: required, both fields required, known names only
    ("units-missing", _joint_file(REV, top=""), "units", ["required field is missing"]),
    ("units-missing-after-name", _joint_file(REV, top="name: arm\n"), "units", ["missing"]),
    ("units-missing-length", _joint_file(REV, top="units: {angle: rad}\n"), "units.length", ["missing"]),
    ("units-missing-angle", _joint_file(REV, top="units: {length: m}\n"), "units.angle", ["missing"]),
    ("units-empty", _joint_file(REV, top="units: {}\n"), "units.length", ["missing"]),
    ("units-null", _joint_file(REV, top="units:\n"), "units", ["mapping"]),
    ("bad-length-unit", _joint_file(REV, top="units: {length: km, angle: rad}\n"), "units.length", ["'km'"]),
    ("bad-angle-unit", _joint_file(REV, top="units: {length: m, angle: grad}\n"), "units.angle", ["'grad'"]),
    ("units-not-mapping", _joint_file(REV, top="units: mm\n"), "units", ["mapping"]),
    ("unknown-units-key", _joint_file(REV, top="units: {lenght: mm, angle: rad}\n"), "units.lenght", ["'length'"]),
    ("bad-convention", "convention: craig\n" + _joint_file(REV), "convention", ["'craig'"]),
    ("convention-case", "convention: Standard\n" + _joint_file(REV), "convention", ["'Standard'"]),
    ("parent-out-of-range", _joint_file(REV, rev(parent=5)), "joints[2].parent", ["0 (the base) to 1"]),
    ("parent-own-index", _joint_file(REV, rev(parent=2)), "joints[2].parent", ["own parent"]),
    ("parent-negative", _joint_file(REV, rev(parent=-1)), "joints[2].parent", ["-1"]),
    ("parent-bool", _joint_file(REV, rev(parent="true")), "joints[2].parent", ["True"]),
    ("parent-float", _joint_file(REV, rev(parent="1.0")), "joints[2].parent", ["1.0"]),
    ("first-parent-nonzero", _joint_file(rev(parent=1)), "joints[1].parent", ["0 (the base)"]),
    ("friction-too-short", _joint_file(rev(friction="[true, true]")), "joints[1].friction", ["3 items"]),
    ("friction-too-long", _joint_file(rev(friction="[1, 2, 3, 4]")), "joints[1].friction", ["3 items"]),
    ("friction-string-item", _joint_file(rev(friction="[true, 'on', false]")), "joints[1].friction[2]", ["'on'"]),
    ("friction-nan-item", _joint_file(rev(friction="[true, false, .nan]")), "joints[1].friction[3]", ["nan"]),
    ("friction-negative-viscous", _joint_file(rev(friction="[-0.1, false, false]")),
     "joints[1].friction[1]", ["≥ 0"]),
    ("friction-string", _joint_file(rev(friction="viscous")), "joints[1].friction", ["'viscous'"]),
    ("unknown-joint-key", _joint_file(REV, rev(alpha=None, alpah=0)), "joints[2].alpah", ["did you mean 'alpha'"]),
    ("unknown-top-key", "robot_name: arm\n" + _joint_file(REV), "robot_name", ["unknown field"]),
    ("duplicate-top-key", "name: a\nname: b\n" + _joint_file(REV), "name", ["duplicate key"]),
    ("duplicate-joint-key", _joint_file("{type: revolute, alpha: 0, alpha: 1, a: 0, d: 0}"),
     "joints[1].alpha", ["duplicate key"]),
    ("too-many-joints", _joint_file(*[REV] * (MAX_JOINTS + 1)), "joints", ["at most 64", "65"]),
    ("gravity-length-2", "gravity: [0, -9.81]\n" + _joint_file(REV), "gravity", ["3 finite numbers"]),
    ("gravity-scalar", "gravity: -9.81\n" + _joint_file(REV), "gravity", ["3 finite numbers"]),
    ("gravity-string-item", "gravity: [0, 0, '-9.81']\n" + _joint_file(REV), "gravity[3]", ["without quotes"]),
    ("joints-missing", "name: arm\n" + UNITS, "joints", ["missing"]),
    ("joints-empty", UNITS + "joints: []\n", "joints", ["at least one"]),
    ("joints-mapping", UNITS + "joints: {type: revolute, alpha: 0, a: 0, d: 0}\n", "joints", ["list"]),
    ("joint-not-mapping", UNITS + "joints: [revolute]\n", "joints[1]", ["mapping"]),
    ("type-missing", _joint_file("{alpha: 0, a: 0, d: 0}"), "joints[1].type", ["missing"]),
    ("type-bad", _joint_file("{type: rotary, alpha: 0, a: 0, d: 0}"), "joints[1].type", ["'rotary'"]),
    # the variable's own column is its offset (textbook tables): not both
    ("d-and-offset-on-prismatic", _joint_file(pri(d=1, offset=2)), "joints[1].d", ["offset", "write one"]),
    ("theta-and-offset-on-revolute", _joint_file(rev(theta=1, offset=0)), "joints[1].theta", ["offset"]),
    # required DH constants (a revolute joint needs alpha, a, d; a prismatic one alpha, a, theta)
    ("revolute-no-alpha", _joint_file(REV, rev(alpha=None)), "joints[2].alpha", ["required field is missing"]),
    ("revolute-no-a", _joint_file(rev(a=None)), "joints[1].a", ["missing", "write 0"]),
    ("revolute-no-d", _joint_file(REV, PRI, rev(d=None)), "joints[3].d", ["missing", "revolute"]),
    ("prismatic-no-theta", _joint_file(REV, pri(theta=None)), "joints[2].theta", ["missing", "prismatic"]),
    ("prismatic-no-alpha", _joint_file(pri(alpha=None)), "joints[1].alpha", ["missing"]),
    ("prismatic-no-a", _joint_file(pri(a=None)), "joints[1].a", ["missing"]),
    ("type-only", _joint_file("{type: revolute}"), "joints[1].alpha", ["missing"]),
    # magnitudes: lengths 0 or 1e-9 m .. 1e4 m (in SI), angles ≤ 3600 deg, gravity ≤ 1e4 m/s²
    ("length-1e5-m", _joint_file(rev(a="1e5")), "joints[1].a", ["100000", "m"]),
    ("length-minus-1e5-m", _joint_file(REV, rev(d="-1e5")), "joints[2].d", ["-100000"]),
    ("length-1e-12-m", _joint_file(rev(d="1e-12")), "joints[1].d", ["1e-12"]),
    ("length-1e200", _joint_file(rev(a="1e200")), "joints[1].a", ["1e+200"]),
    ("length-1e-7-mm-below-1e-9-m", _joint_file(rev(a="1e-7"), top="units: {length: mm, angle: rad}\n"),
     "joints[1].a", ["1e-07 mm"]),
    ("length-2e7-mm-above-1e4-m", _joint_file(rev(a="2e7"), top="units: {length: mm, angle: rad}\n"),
     "joints[1].a", ["mm"]),
    ("length-1e7-cm-offset", _joint_file(REV, pri(offset="1e7"), top="units: {length: cm, angle: rad}\n"),
     "joints[2].offset", ["cm"]),  # a prismatic joint's offset is a length
    ("length-denormal", _joint_file(rev(d="5e-300")), "joints[1].d", ["5e-300"]),
    ("angle-1e5-deg", _joint_file(rev(alpha="1e5"), top="units: {length: m, angle: deg}\n"),
     "joints[1].alpha", ["3600 deg", "100000"]),
    ("angle-3601-deg", _joint_file(REV, pri(theta=3601), top="units: {length: m, angle: deg}\n"),
     "joints[2].theta", ["3601"]),
    ("angle-100-rad", _joint_file(rev(alpha=100)), "joints[1].alpha", ["rad", "100"]),
    ("angle-offset-1e5-deg", _joint_file(rev(offset="-1e5"), top="units: {length: m, angle: deg}\n"),
     "joints[1].offset", ["deg"]),  # a revolute joint's offset is an angle
    ("gravity-1e308", "gravity: [1e308, 0, -9.81]\n" + _joint_file(REV), "gravity[1]", ["1e+308"]),
    ("gravity-minus-1e5", "gravity: [0, -1e5, -9.81]\n" + _joint_file(REV), "gravity[2]", ["m/s²"]),
    ("rotor-inertia-negative", _joint_file(rev(rotor_inertia=-1)), "joints[1].rotor_inertia", ["-1"]),
    ("rotor-inertia-string", _joint_file(rev(rotor_inertia="'true'")), "joints[1].rotor_inertia", ["'true'"]),
    ("mass-negative", _joint_file(rev(inertia=f"{{mass: -1, com: [0, 0, 0], inertia: {UNIT_INERTIA}}}")),
     "joints[1].inertia.mass", ["-1"]),
    ("mass-missing", _joint_file(rev(inertia=f"{{com: [0, 0, 0], inertia: {UNIT_INERTIA}}}")),
     "joints[1].inertia.mass", ["missing"]),
    ("com-length-2", _joint_file(rev(inertia=f"{{mass: 1, com: [0, 0], inertia: {UNIT_INERTIA}}}")),
     "joints[1].inertia.com", ["3 finite numbers"]),
    ("inertia-not-symmetric", _joint_file(rev(inertia="{mass: 1, com: [0, 0, 0], "
                                              "inertia: [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]}")),
     "joints[1].inertia.inertia", ["symmetric"]),
    ("inertia-3x2", _joint_file(rev(inertia="{mass: 1, com: [0, 0, 0], inertia: [[1, 0], [0, 1], [0, 0]]}")),
     "joints[1].inertia.inertia", ["3×3"]),
    ("inertia-inf-entry", _joint_file(rev(inertia="{mass: 1, com: [0, 0, 0], "
                                          "inertia: [[1, 0, 0], [0, .inf, 0], [0, 0, 1]]}")),
     "joints[1].inertia.inertia[2][2]", ["inf"]),
    ("inertia-unknown-key", _joint_file(rev(inertia="{mass: 1, moment: 2}")), "joints[1].inertia.moment",
     ["unknown field"]),
    ("inertia-not-mapping", _joint_file(rev(inertia=3)), "joints[1].inertia", ["mapping"]),
    ("name-not-string", "name: 560\n" + _joint_file(REV), "name", ["560"]),
    ("name-empty", "name: ''\n" + _joint_file(REV), "name", ["non-empty"]),
    # name: one line, no control characters (they would garble terminals and reports)
    ("name-newline", 'name: "arm\\nfake: output"\n' + _joint_file(REV), "name", ["control characters", "\\n"]),
    ("name-trailing-newline", "name: |\n  arm\n" + _joint_file(REV), "name", ["control characters"]),
    ("name-ansi-escape", 'name: "\\e[31mred\\e[0m"\n' + _joint_file(REV), "name", ["control characters", "\\x1b"]),
    ("name-tab", 'name: "a\\tb"\n' + _joint_file(REV), "name", ["control characters"]),
    ("name-delete", 'name: "a\\x7fb"\n' + _joint_file(REV), "name", ["control characters"]),
    ("description-not-string", "description: [1, 2]\n" + _joint_file(REV), "description", ["string"]),
    ("multiline-value", "name: arm\n" + _joint_file(rev(alpha='"a\\nb"')), "joints[1].alpha", ["finite number"]),
    ("alias-bomb", BOMB, "name", ["expected a non-empty string"]),
    ("deep-nesting", "name: " + "[" * 3000 + "]" * 3000 + "\n" + _joint_file(REV), None, ["nested too deeply"]),
    ("explicit-bad-float", _joint_file(rev(a="!!float abc")), "joints[1].a", ["expected a number", "tagged !!float"]),
]


@pytest.mark.parametrize("content, field, fragments", [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_broken_description(tmp_path, content, field, fragments):
    path = write(tmp_path, content)
    with pytest.raises(RobotDescriptionError) as info:
        load_robot(path)
    message = str(info.value)
    assert len(message.splitlines()) == 1, message
    assert message.isprintable(), message
    prefix = f"{path}: {field}: " if field else f"{path}: "
    assert message.startswith(prefix), message
    for fragment in fragments:
        assert fragment in message[len(prefix):], message


def test_broken_cases_are_distinct():
    assert len({case[0] for case in BROKEN}) == len(BROKEN)


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_unreadable_file(tmp_path, kind):
    path = tmp_path / "nowhere.yaml"
    if kind == "directory":
        path.mkdir()
    with pytest.raises(RobotDescriptionError) as info:
        load_robot(path)
    message = str(info.value)
    assert len(message.splitlines()) == 1
    assert message.startswith(f"{path}: cannot read")


def test_too_large_file(tmp_path):
    path = write(tmp_path, "# " + "x" * 2_000_000 + "\n" + _joint_file(REV))
    with pytest.raises(RobotDescriptionError, match="too large"):
        load_robot(path)


ONE_JOINT_URDF = """<robot name="arm">
  <link name="base"/>
  <link name="l1"><inertial><origin xyz="0.1 0 0.2"/><mass value="2"/>
    <inertia ixx="0.03" ixy="0" ixz="0" iyy="0.04" iyz="0" izz="0.05"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
PAD</robot>
"""


def test_urdf_over_1_mb_is_read_on_not_opened_twice(tmp_path, monkeypatch):
    """A URDF beyond the YAML bound (1 MB; meshes' inline data) is read on to its own bound from the file already
    open: opened a second time and read from the start, its first MB was read twice, and a file rewritten in
    between gave bytes of another version than the ones that said it was a URDF."""
    import builtins
    import os

    small, big = tmp_path / "small.urdf", tmp_path / "big.urdf"
    small.write_text(ONE_JOINT_URDF.replace("PAD", ""))
    big.write_text(ONE_JOINT_URDF.replace("PAD", "<!-- " + "x" * 1_500_000 + " -->\n"))
    opened, real_open = [], builtins.open

    def counting_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.fspath(file) == str(big):
            opened.append(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    robot, reference = load_robot(big), load_robot(small)
    assert len(opened) == 1
    assert robot.joints == reference.joints and robot.n_dof == 1 and len(robot.source) > 1_500_000


def test_read_bounded_reads_on_only_to_a_larger_limit(tmp_path):
    """read_bounded's ``larger`` reads on only to a limit above the first: a smaller one made read(n < 0), the rest
    of the file without bound."""
    from baseparam._checks import read_bounded

    path = tmp_path / "data.bin"
    path.write_bytes(b"x" * 1000)
    assert len(read_bounded(path, 10, "data.bin", RobotDescriptionError, larger=lambda data: 5)) == 11
    assert len(read_bounded(path, 10, "data.bin", RobotDescriptionError, larger=lambda data: 100)) == 101
    assert len(read_bounded(path, 10, "data.bin", RobotDescriptionError, larger=lambda data: None)) == 11


def test_robots_and_inertias_compare_by_value():
    """Two loads of one file are equal (and hash alike); a body that differs in one number is not."""
    for name in ("ur10e_cad.yaml", "kuka_lwr4_cad.yaml", "puma560.yaml"):
        a, b = load_robot(ROOT / "robots" / name), load_robot(ROOT / "robots" / name)
        assert a is not b and a == b and hash(a) == hash(b)
    inertia = Inertia(2.0, np.array([0.1, 0.0, 0.2]), np.diag([0.3, 0.4, 0.5]))
    same = Inertia(2.0, [0.1, 0.0, 0.2], [[0.3, 0, 0], [0, 0.4, 0], [0, 0, 0.5]])
    assert inertia == same and hash(inertia) == hash(same) and len({inertia, same}) == 1
    assert inertia != dataclasses.replace(inertia, com=np.array([0.1, 0.0, 0.2 + 1e-12]))
    assert inertia != Inertia(2.5, inertia.com, inertia.inertia) and inertia != "2 kg"
    a = load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    joints = list(a.joints)
    heavier = dataclasses.replace(joints[2].inertia, mass=joints[2].inertia.mass + 1)
    joints[2] = dataclasses.replace(joints[2], inertia=heavier)
    assert dataclasses.replace(a, joints=tuple(joints)) != a
