"""Reading YAML robot descriptions: a full example, defaults, and broken files."""
import dataclasses

import numpy as np
import pytest

from baseparam.errors import RobotDescriptionError
from baseparam.loading import MAX_JOINTS, load_robot, parse_robot
from baseparam.robot import Joint, Robot

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
      inertia: [[1, 0, 0], [0, 2, 0.1], [0, 0.1, 3]]
  - {type: revolute, parent: 1, friction: [true, 0.2, -0.1], rotor_inertia: false}
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
    np.testing.assert_array_equal(inertia.inertia, [[1, 0, 0], [0, 2, 0.1], [0, 0.1, 3]])
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
    robot = parse_robot("joints:\n  - type: revolute\n  - type: prismatic\n")
    assert robot.name == "robot"
    assert robot.convention == "standard"
    assert (robot.length_unit, robot.angle_unit) == ("m", "rad")
    assert robot.gravity == (0.0, 0.0, -9.81)
    first, second = robot.joints
    assert first == Joint("revolute", parent=0)
    assert second == Joint("prismatic", parent=1)
    assert first.friction == (False, False, False) and first.rotor_inertia is False
    assert first.inertia is None
    assert robot.is_chain


def test_zero_gravity_exponent_floats_and_units():
    robot = parse_robot("units: {length: cm}\ngravity: [0, 0, 0]\n"
                        "joints: [{type: revolute, a: 1e-3, d: 2.5E+2, alpha: -1.5e0}]")
    assert robot.gravity == (0.0, 0.0, 0.0)
    assert robot.length_unit == "cm" and robot.angle_unit == "rad"
    joint = robot.joints[0]
    assert (joint.a, joint.d, joint.alpha) == (1e-3, 250.0, -1.5)


def test_parse_and_load_agree(tmp_path):
    path = write(tmp_path, FULL)
    loaded, parsed = load_robot(str(path)), parse_robot(FULL.encode("utf-8"), str(path))
    assert without_inertia(loaded) == without_inertia(parsed)
    assert repr(loaded.joints[1].inertia) == repr(parsed.joints[1].inertia)
    assert loaded.source == parsed.source == FULL


def test_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_robot("joints: []")


def test_default_filename_in_message():
    with pytest.raises(RobotDescriptionError, match=r"^<string>: joints\[1\]\.alpha: expected a finite number, got 'abc'$"):
        parse_robot("joints: [{type: revolute, alpha: abc}]")


def test_typo_suggests_the_right_key():
    with pytest.raises(RobotDescriptionError, match=r"joints\[1\]\.alpah: unknown field; did you mean 'alpha'\?"):
        parse_robot("joints: [{type: revolute, alpah: 0}]")


def test_syntax_error_gives_line_number():
    text = "name: arm\njoints:\n  - {type: revolute\n  - type: prismatic\n"
    with pytest.raises(RobotDescriptionError, match=r"line [34], column \d+: invalid YAML"):
        parse_robot(text, "x.yaml")


def test_duplicate_key_names_both_lines():
    text = "joints:\n  - type: revolute\n    a: 1\n    a: 2\n"
    with pytest.raises(RobotDescriptionError, match=r"joints\[1\]\.a: duplicate key \(lines 3 and 4\)"):
        parse_robot(text)


def test_merge_keys_are_not_duplicates():
    text = "joints:\n  - &j {type: revolute, a: 1, alpha: 0}\n  - {<<: *j, a: 2}\n"
    robot = parse_robot(text)
    assert robot.joints[1].a == 2 and robot.joints[1].alpha == 0


def _joint_file(*joint_lines, top=""):
    return top + "joints:\n" + "".join(f"  - {line}\n" for line in joint_lines)


REV = "{type: revolute}"
BOMB = ("name: [&a [x, x, x, x, x, x, x, x, x], &b [*a, *a, *a, *a, *a, *a, *a, *a, *a],"
        " &c [*b, *b, *b, *b, *b, *b, *b, *b, *b], &d [*c, *c, *c, *c, *c, *c, *c, *c, *c],"
        " &e [*d, *d, *d, *d, *d, *d, *d, *d, *d], &f [*e, *e, *e, *e, *e, *e, *e, *e, *e],"
        " &g [*f, *f, *f, *f, *f, *f, *f, *f, *f], &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]]\n"
        "joints: [{type: revolute}]\n")

# (id, file content, fragments the message must contain besides the file name)
BROKEN = [
    ("non-utf8", b"name: caf\xe9\njoints: [{type: revolute}]\n", ["line 1", "not UTF-8"]),
    ("empty", "", ["empty description"]),
    ("only-comments", "# nothing here\n\n", ["empty description"]),
    ("list-top-level", "- {type: revolute}\n", ["top level"]),
    ("scalar-top-level", "just some words\n", ["top level"]),
    ("syntax-error", "name: arm\njoints: [\n  {type: revolute\n", ["line ", "invalid YAML"]),
    ("bad-indentation", "name: arm\n joints: []\n", ["line 2", "invalid YAML"]),
    ("two-documents", "joints: [{type: revolute}]\n---\njoints: [{type: revolute}]\n", ["line 2", "single document"]),
    ("python-tag", "name: !!python/object/apply:os.system [ls]\njoints: [{type: revolute}]\n", ["line 1"]),
    ("control-character", "name: a\x01b\njoints: [{type: revolute}]\n", ["line 1", "U+0001"]),
    ("nan", _joint_file("{type: revolute, alpha: .nan}"), ["joints[1].alpha", "nan"]),
    ("inf", _joint_file(REV, "{type: revolute, a: .inf}"), ["joints[2].a", "inf"]),
    ("minus-inf-gravity", "gravity: [0, 0, -.inf]\n" + _joint_file(REV), ["gravity[3]"]),
    ("1e999", _joint_file("{type: revolute, d: 1e999}"), ["joints[1].d", "inf"]),
    ("huge-int", _joint_file("{type: revolute, d: 1" + "0" * 400 + "}"), ["joints[1].d"]),
    ("bool-for-number", _joint_file("{type: revolute, alpha: true}"), ["joints[1].alpha", "True"]),
    ("yes-for-number", _joint_file("{type: prismatic, theta: yes}"), ["joints[1].theta"]),
    ("string-number", _joint_file("{type: revolute, alpha: '90'}"), ["joints[1].alpha", "without quotes"]),
    ("string-abc", _joint_file(REV, REV, "{type: revolute, alpha: abc}"), ["joints[3].alpha", "'abc'"]),
    ("null-number", _joint_file("{type: revolute, offset: null}"), ["joints[1].offset", "None"]),
    ("octal-int", _joint_file("{type: revolute, d: 0150}"), ["joints[1].d", "octal"]),
    ("sexagesimal", _joint_file("{type: revolute, alpha: 1:30}"), ["joints[1].alpha", "base 60"]),
    ("bad-length-unit", "units: {length: km}\n" + _joint_file(REV), ["units.length", "'km'"]),
    ("bad-angle-unit", "units: {angle: grad}\n" + _joint_file(REV), ["units.angle", "'grad'"]),
    ("units-not-mapping", "units: mm\n" + _joint_file(REV), ["units", "mapping"]),
    ("unknown-units-key", "units: {lenght: mm}\n" + _joint_file(REV), ["units.lenght", "'length'"]),
    ("bad-convention", "convention: craig\n" + _joint_file(REV), ["convention", "'craig'"]),
    ("convention-case", "convention: Standard\n" + _joint_file(REV), ["convention"]),
    ("parent-out-of-range", _joint_file(REV, "{type: revolute, parent: 5}"), ["joints[2].parent", "0 (the base) to 1"]),
    ("parent-own-index", _joint_file(REV, "{type: revolute, parent: 2}"), ["joints[2].parent", "own parent"]),
    ("parent-negative", _joint_file(REV, "{type: revolute, parent: -1}"), ["joints[2].parent"]),
    ("parent-bool", _joint_file(REV, "{type: revolute, parent: true}"), ["joints[2].parent"]),
    ("parent-float", _joint_file(REV, "{type: revolute, parent: 1.0}"), ["joints[2].parent"]),
    ("first-parent-nonzero", _joint_file("{type: revolute, parent: 1}"), ["joints[1].parent", "0 (the base)"]),
    ("friction-too-short", _joint_file("{type: revolute, friction: [true, true]}"), ["joints[1].friction", "3 items"]),
    ("friction-too-long", _joint_file("{type: revolute, friction: [1, 2, 3, 4]}"), ["joints[1].friction"]),
    ("friction-string-item", _joint_file("{type: revolute, friction: [true, 'on', false]}"), ["joints[1].friction[2]"]),
    ("friction-nan-item", _joint_file("{type: revolute, friction: [true, false, .nan]}"), ["joints[1].friction[3]"]),
    ("friction-negative-viscous", _joint_file("{type: revolute, friction: [-0.1, false, false]}"),
     ["joints[1].friction[1]", "≥ 0"]),
    ("friction-string", _joint_file("{type: revolute, friction: viscous}"), ["joints[1].friction"]),
    ("unknown-joint-key", _joint_file(REV, "{type: revolute, alpah: 0}"), ["joints[2].alpah", "did you mean 'alpha'"]),
    ("unknown-top-key", "robot_name: arm\n" + _joint_file(REV), ["robot_name", "unknown field"]),
    ("duplicate-top-key", "name: a\nname: b\n" + _joint_file(REV), ["name", "duplicate key"]),
    ("duplicate-joint-key", _joint_file("{type: revolute, alpha: 0, alpha: 1}"), ["joints[1].alpha", "duplicate key"]),
    ("too-many-joints", _joint_file(*[REV] * (MAX_JOINTS + 1)), ["joints", "at most 64", "65"]),
    ("gravity-length-2", "gravity: [0, -9.81]\n" + _joint_file(REV), ["gravity", "3 finite numbers"]),
    ("gravity-scalar", "gravity: -9.81\n" + _joint_file(REV), ["gravity"]),
    ("gravity-string-item", "gravity: [0, 0, '-9.81']\n" + _joint_file(REV), ["gravity[3]"]),
    ("joints-missing", "name: arm\n", ["joints", "missing"]),
    ("joints-empty", "joints: []\n", ["joints", "at least one"]),
    ("joints-mapping", "joints: {type: revolute}\n", ["joints", "list"]),
    ("joint-not-mapping", "joints: [revolute]\n", ["joints[1]", "mapping"]),
    ("type-missing", _joint_file("{alpha: 0}"), ["joints[1].type", "missing"]),
    ("type-bad", _joint_file("{type: rotary}"), ["joints[1].type", "'rotary'"]),
    ("d-on-prismatic", _joint_file("{type: prismatic, d: 1}"), ["joints[1].d", "offset"]),
    ("theta-on-revolute", _joint_file("{type: revolute, theta: 90}"), ["joints[1].theta", "offset"]),
    ("rotor-inertia-negative", _joint_file("{type: revolute, rotor_inertia: -1}"), ["joints[1].rotor_inertia"]),
    ("rotor-inertia-string", _joint_file("{type: revolute, rotor_inertia: 'true'}"), ["joints[1].rotor_inertia"]),
    ("mass-negative", _joint_file("{type: revolute, inertia: {mass: -1, com: [0, 0, 0], "
                                  "inertia: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}"), ["joints[1].inertia.mass"]),
    ("mass-missing", _joint_file("{type: revolute, inertia: {com: [0, 0, 0], "
                                 "inertia: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}"), ["joints[1].inertia.mass", "missing"]),
    ("com-length-2", _joint_file("{type: revolute, inertia: {mass: 1, com: [0, 0], "
                                 "inertia: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}"), ["joints[1].inertia.com"]),
    ("inertia-not-symmetric", _joint_file("{type: revolute, inertia: {mass: 1, com: [0, 0, 0], "
                                          "inertia: [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]}}"),
     ["joints[1].inertia.inertia", "symmetric"]),
    ("inertia-3x2", _joint_file("{type: revolute, inertia: {mass: 1, com: [0, 0, 0], "
                                "inertia: [[1, 0], [0, 1], [0, 0]]}}"), ["joints[1].inertia.inertia", "3×3"]),
    ("inertia-inf-entry", _joint_file("{type: revolute, inertia: {mass: 1, com: [0, 0, 0], "
                                      "inertia: [[1, 0, 0], [0, .inf, 0], [0, 0, 1]]}}"),
     ["joints[1].inertia.inertia[2][2]"]),
    ("inertia-unknown-key", _joint_file("{type: revolute, inertia: {mass: 1, moment: 2}}"),
     ["joints[1].inertia.moment"]),
    ("inertia-not-mapping", _joint_file("{type: revolute, inertia: 3}"), ["joints[1].inertia", "mapping"]),
    ("name-not-string", "name: 560\n" + _joint_file(REV), ["name", "560"]),
    ("name-empty", "name: ''\n" + _joint_file(REV), ["name", "non-empty"]),
    ("description-not-string", "description: [1, 2]\n" + _joint_file(REV), ["description"]),
    ("multiline-value", "name: arm\n" + _joint_file("{type: revolute, alpha: \"a\\nb\"}"), ["joints[1].alpha"]),
    ("alias-bomb", BOMB, ["name", "expected a non-empty string"]),
    ("deep-nesting", "name: " + "[" * 3000 + "]" * 3000 + "\njoints: [{type: revolute}]\n", ["nested too deeply"]),
    ("explicit-bad-float", _joint_file("{type: revolute, a: !!float abc}"), ["invalid YAML value"]),
]


@pytest.mark.parametrize("content, fragments", [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_broken_description(tmp_path, content, fragments):
    path = write(tmp_path, content)
    with pytest.raises(RobotDescriptionError) as info:
        load_robot(path)
    message = str(info.value)
    assert len(message.splitlines()) == 1, message
    assert message.startswith(f"{path}: "), message
    for fragment in fragments:
        assert fragment in message, message


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
    path = write(tmp_path, "# " + "x" * 2_000_000 + "\njoints: [{type: revolute}]\n")
    with pytest.raises(RobotDescriptionError, match="too large"):
        load_robot(path)
