"""Issue 11, robot descriptions: round-off of special values, absurd magnitudes, impossible bodies,
unit slips and YAML 1.1 booleans — in YAML files and in robots built in code (one check serves both)."""
import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import AccuracyWarning, RobotDescriptionError, RoundOffWarning
from conftest import ROOT

PUMA_TEXT = (ROOT / "robots" / "puma560.yaml").read_text()


def puma(gravity=None, replace=None):
    text = PUMA_TEXT
    if gravity is not None:
        text = text.replace("gravity: [0, 0, -9.81]", f"gravity: {gravity}")
    if replace is not None:
        assert replace[0] in text
        text = text.replace(*replace)
    return bp.parse_robot(text, "puma.yaml")


def regroupings(base):
    return base.rank, list(base.names), base.unidentifiable, base.Y


@pytest.fixture(scope="module")
def vertical():
    return bp.find_base_parameters(puma())


# -- defect 1: gravity within round-off of a special direction ---------------------------------------
@pytest.mark.parametrize("gravity", ["[6e-16, 0, -9.81]", "[1e-12, 0, -9.81]", "[0, -1e-12, -9.81]",
                                     "[1e-308, 0, -9.81]", "[5e-324, 0, -9.81]"])
def test_gravity_round_off_gives_the_vertical_regroupings(gravity, vertical):
    with pytest.warns(RoundOffWarning, match=r"gravity\[\d\] = .* as 0"):
        robot = puma(gravity)
    assert robot.gravity == (0.0, 0.0, -9.81)
    base = bp.find_base_parameters(robot)
    assert base.exact and base.rank == vertical.rank == 36
    assert base.names == vertical.names and base.unidentifiable == vertical.unidentifiable
    np.testing.assert_array_equal(base.Y, vertical.Y)


def test_tilted_gravity_is_not_snapped(vertical):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RoundOffWarning)
        robot = puma("[0.5, 0, -9.8]")
        small = puma("[1e-7, 0, -9.81]")          # 1e-8 of |g|: above round-off, a (tiny) genuine tilt
    assert robot.gravity == (0.5, 0.0, -9.8) and small.gravity == (1e-7, 0.0, -9.81)
    base = bp.find_base_parameters(robot)
    assert base.rank == 38 and "SZ1" in base.names      # SZ1 + SZ2 + SY3 + 150·(M2 + … + M6)


def test_robot_built_in_code_snaps_too():
    joints = (bp.Joint("revolute", alpha=math.pi / 2, a=0.3), bp.Joint("revolute", a=0.2))
    with pytest.warns(RoundOffWarning, match=r"gravity\[1\] = 6e-16 as 0"):
        robot = bp.Robot(joints=joints, gravity=(6e-16, 0, -9.81))
    assert robot.gravity == (0.0, 0.0, -9.81)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RoundOffWarning)   # already snapped: replace() warns no more
        import dataclasses
        dataclasses.replace(robot, name="again")


def test_twist_in_degrees_within_round_off_is_exact_and_89_9999999_still_warns(vertical):
    with pytest.warns(RoundOffWarning, match=r"joints\[3\]\.alpha = 89\.99999999999999 deg as 90"):
        robot = puma(replace=("alpha: 90, a: -20.3", "alpha: 89.99999999999999, a: -20.3"))
    base = bp.find_base_parameters(robot)
    assert base.exact and base.names == vertical.names
    np.testing.assert_array_equal(base.Y, vertical.Y)
    near = puma(replace=("alpha: 90, a: -20.3", "alpha: 89.9999999, a: -20.3"))   # 1.7e-9 rad: real, kept
    with pytest.warns(AccuracyWarning, match=r"joints\[3\]\.alpha = 89\.9999999 deg \(1\.7e-09 rad from 90°"):
        bp.find_base_parameters(near)


def test_accuracy_warning_names_gravity_when_gravity_is_the_cause():
    # the 2-joint arm: the warning blamed a twist; the cause is gravity 1e-8 of |g| off vertical
    robot = bp.parse_robot("name: two\nunits: {length: m, angle: deg}\ngravity: [1e-7, 0, -9.81]\njoints:\n"
                           "  - {type: revolute, alpha: 45, a: 1, d: 0}\n  - {type: revolute, alpha: 0, a: 1, d: 0}\n")
    with pytest.warns(AccuracyWarning) as record:
        bp.find_base_parameters(robot)
    message = str(record[0].message)
    assert "gravity[1] = 1e-07 m/s²" in message and "alpha" not in message, message


def test_accuracy_warning_names_a_twist_near_zero_in_radians():
    robot = bp.parse_robot("name: near\nunits: {length: m, angle: rad}\njoints:\n"
                           "  - {type: revolute, alpha: 0.4, a: 0.1, d: 0}\n"
                           "  - {type: revolute, alpha: 1.0e-9, a: 0.3, d: 0.2}\n"
                           "  - {type: revolute, alpha: 0.7, a: 0.1, d: 0.1}\n", exact_angles=False)
    with pytest.warns(AccuracyWarning,
                      match=r"joints\[2\]\.alpha = 1e-09 rad \(1\.0e-09 rad from 0°: if that is meant, write 0\)"):
        bp.find_base_parameters(robot, "khalil")


def test_near_special_names_tiny_lengths_and_ranks_by_closeness():
    from baseparam.model.checks import near_special
    robot = bp.parse_robot("units: {length: mm, angle: deg}\ngravity: [0.001, 0, -9.81]\njoints:\n"
                           "  - {type: revolute, alpha: 90.001, a: 1000, d: 0}\n"
                           "  - {type: revolute, alpha: 0, a: 0.0001, d: 1}\n")
    texts = [text for _, text in near_special(robot)]
    assert texts[0].startswith("joints[2].a = 0.0001 mm (1.0e-07 of the largest length)"), texts
    assert any(t.startswith("joints[1].alpha = 90.001 deg") for t in texts)
    assert any(t.startswith("gravity[1] = 0.001 m/s²") for t in texts)
    assert near_special(puma()) == []


def test_cli_prints_the_round_off_note_as_one_line(tmp_path):
    path = tmp_path / "puma.yaml"
    path.write_text(PUMA_TEXT.replace("gravity: [0, 0, -9.81]", "gravity: [1e-308, 0, -9.81]"))
    res = CliRunner().invoke(main, ["find", str(path)])
    assert res.exit_code == 0, res.output
    assert res.stderr.strip().splitlines() == [
        "baseparam: warning: PUMA 560: within round-off of special values, taken as them: gravity[1] = 1e-308 as 0 "
        "(nothing to do if that is round-off; write the exact values to silence this)"]


# -- defect 2a: absurd magnitudes, never an OverflowError ---------------------------------------------------
@pytest.mark.parametrize("gravity, fragment", [
    ("[1e-300, 0, 1e-300]", "gravity: expected 0 (no gravity) or a magnitude of at least 1e-06"),
    ("[1e308, 0, -9.81]", "gravity[1]: expected at most 10000 m/s²"),
    ("[0, 0, 1e5]", "gravity[3]: expected at most 10000 m/s²"),
])
def test_absurd_gravity_is_refused_in_one_line(gravity, fragment):
    with pytest.raises(RobotDescriptionError, match=r"^puma\.yaml: " + fragment.replace("(", r"\(")
                       .replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        puma(gravity)


def test_code_robots_get_the_loader_limits():
    with pytest.raises(RobotDescriptionError, match=r"joints\[1\]\.a: expected 0 or a length between"):
        bp.Robot(joints=(bp.Joint("revolute", a=1e300),))
    with pytest.raises(RobotDescriptionError, match=r"gravity: expected 0 \(no gravity\)"):
        bp.Robot(joints=(bp.Joint("revolute", a=1.0),), gravity=(5e-324, 0, 0))
    with pytest.raises(RobotDescriptionError, match=r"gravity: expected 3 finite numbers"):
        bp.Robot(joints=(bp.Joint("revolute", a=1.0),), gravity=(0, 0, float("nan")))


# -- defect 10: impossible bodies ---------------------------------------------------------------------------
def body(mass=1, com="[0, 0, 0]", inertia="[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"):
    return ("units: {length: m, angle: deg}\njoints:\n  - {type: revolute, alpha: 0, a: 1, d: 0, "
            f"inertia: {{mass: {mass}, com: {com}, inertia: {inertia}}}}}\n")


@pytest.mark.parametrize("kwargs, field, fragment", [
    (dict(inertia="[[-1, 0, 0], [0, -1, 0], [0, 0, -1]]"), "inertia", "principal moment is negative"),
    (dict(inertia="[[1, 0, 0], [0, 1, 0], [0, 0, 2.5]]"), "inertia", "triangle inequality"),
    (dict(inertia="[[1, 2, 0], [2, 1, 0], [0, 0, 1]]"), "inertia", "principal moment is negative"),
    (dict(mass="1e300"), "mass", "expected a mass > 0 and at most 1e+06 kg"),
    (dict(mass=0), "mass", "expected a mass > 0"),
    (dict(mass=-1), "mass", "expected a mass > 0"),
    # subnormal: mass × com lost its digits (its centre of mass came back 1.2 % off), then read as a body
    (dict(mass="1e-320", com="[0.1, 0, 0]"), "mass", "got 1e-320 (a body of more than 0 kg has at least 1e-100 kg)"),
    (dict(com="[1e300, 0, 0]"), "com", "within 10000 m"),
    (dict(inertia="[[1e300, 0, 0], [0, 1e300, 0], [0, 0, 1e300]]"), "inertia", "within 1e+12 kg·m²"),
])
def test_impossible_bodies_are_refused(kwargs, field, fragment):
    with pytest.raises(RobotDescriptionError) as info:
        bp.parse_robot(body(**kwargs), "arm.yaml")
    message = str(info.value)
    assert message.startswith(f"arm.yaml: joints[1].inertia.{field}: ") and fragment in message, message
    assert len(message.splitlines()) == 1


@pytest.mark.parametrize("inertia", ["[[1, 0, 0], [0, 1, 0], [0, 0, 2]]",          # a thin disc: I3 = I1 + I2
                                     "[[0, 0, 0], [0, 0, 0], [0, 0, 0]]",          # a point mass
                                     "[[0.1, 0.0001, 0], [0.0001, 0.2, 0], [0, 0, 0.3]]"])
def test_valid_bodies_pass(inertia):
    bp.parse_robot(body(inertia=inertia))


def test_inertia_built_in_code_is_checked():
    with pytest.raises(RobotDescriptionError, match=r"^Inertia\.inertia: not a physical inertia"):
        bp.Inertia(1.0, np.zeros(3), -np.eye(3))
    with pytest.raises(RobotDescriptionError, match=r"^Inertia\.mass: "):
        bp.Inertia(float("nan"), np.zeros(3), np.eye(3))
    bp.Inertia(2.0, np.array([0.1, 0, 0]), np.diag([0.1, 0.2, 0.25]))


def test_random_test_bodies_are_valid():
    from random_bodies import random_body
    rng = np.random.default_rng(0)
    for _ in range(200):
        bp.Inertia(*random_body(rng))


# -- defect 11: unit slips and YAML 1.1 booleans -----------------------------------------------------------
@pytest.mark.parametrize("field, joint", [
    ("alpha", "{type: revolute, alpha: 45, a: 1, d: 0}"),
    ("alpha", "{type: revolute, alpha: -60, a: 1, d: 0}"),
    ("offset", "{type: revolute, alpha: 0, a: 1, d: 0, offset: 90}"),
    ("theta", "{type: prismatic, alpha: 0, a: 1, theta: 30}"),
])
def test_degrees_written_in_radians_are_refused_with_a_hint(field, joint):
    with pytest.raises(RobotDescriptionError) as info:
        bp.parse_robot("units: {length: m, angle: rad}\njoints:\n  - " + joint + "\n", "arm.yaml")
    message = str(info.value)
    assert message.startswith(f"arm.yaml: joints[1].{field}: ") and "more than 2π rad" in message
    assert "did you mean degrees? set units.angle: deg" in message


def test_radians_up_to_two_pi_pass():
    robot = bp.parse_robot("units: {length: m, angle: rad}\njoints:\n"
                           "  - {type: revolute, alpha: -6.283185307179586, a: 1, d: 0, offset: 6.28318530718}\n"
                           "  - {type: prismatic, alpha: 1.5707963267948966, a: 1, theta: 3.14159}\n",
                           exact_angles=False)
    assert robot.joints[0].alpha == -6.283185307179586
    with pytest.raises(RobotDescriptionError, match=r"joints\[1\]\.alpha: 45\.0 is more than 2π rad"):
        bp.Robot(joints=(bp.Joint("revolute", alpha=45.0, a=1.0),), angle_unit="rad")


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "Yes", "OFF", "!!bool yes"])
@pytest.mark.parametrize("field", ["rotor_inertia", "friction"])
def test_yaml_1_1_booleans_are_refused(word, field):
    text = f"units: {{length: m, angle: deg}}\njoints:\n  - {{type: revolute, alpha: 0, a: 1, d: 0, {field}: {word}}}\n"
    with pytest.raises(RobotDescriptionError) as info:
        bp.parse_robot(text, "arm.yaml")
    message = str(info.value)
    assert message.startswith(f"arm.yaml: joints[1].{field}: expected true or false, got "), message
    assert "YAML 1.1" in message and ("write true" in message or "write false" in message)


def test_yaml_1_1_booleans_in_a_friction_list_are_refused():
    text = ("units: {length: m, angle: deg}\njoints:\n"
            "  - {type: revolute, alpha: 0, a: 1, d: 0, friction: [true, no, false]}\n")
    with pytest.raises(RobotDescriptionError, match=r"joints\[1\]\.friction\[2\]: expected true or false, got 'no'"):
        bp.parse_robot(text)
    robot = bp.parse_robot(text.replace("no", "False").replace("[true", "[TRUE"))
    assert robot.joints[0].friction == (True, False, False)
