"""Floating bases in descriptions, in code and at the command line.

* ``base: floating`` and ``base_inertia`` read from YAML and written back; bad values are one line
  naming the field; ``bp.Robot(..., base="floating", base_inertia=...)`` in code;
* the standard parameters gain the base body (link 0, names ending in 0);
* ``find``, ``identify`` and ``export`` refuse a floating robot with one line and exit status 2
  (the library functions with an ArgumentError); ``describe`` says the base floats;
* a floating trajectory carries the base's pose, twist and wrench.
"""
import dataclasses

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.model.robot import robot_to_yaml
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"
BODY = "{mass: 2, com: [0, 0, 0.1], inertia: [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.05]]}"


def yaml(extra):
    return f"""
name: float
units: {{length: m, angle: deg}}
{extra}
joints:
  - {{type: revolute, alpha: 90, a: 0.1, d: 0.2, inertia: {BODY}}}
  - {{type: prismatic, alpha: 0, a: 0.3, theta: 0, inertia: {BODY}}}
"""


def test_yaml_round_trip_and_standard_parameters():
    robot = bp.parse_robot(yaml(f"base: floating\nbase_inertia: {BODY}"))
    assert robot.is_floating and (robot.n_q, robot.n_v, robot.n_dof) == (9, 8, 2)
    layout = bp.ColumnLayout(robot, "khalil")
    assert layout.names[:10] == ["XX0", "XY0", "XZ0", "YY0", "YZ0", "ZZ0", "MX0", "MY0", "MZ0", "M0"]
    p = bp.standard_parameters(robot, "khalil")
    assert p[9] == 2.0 and p[8] == pytest.approx(0.2)
    again = bp.parse_robot(robot_to_yaml(dataclasses.replace(robot, source=None)))
    assert again.is_floating and again.base_inertia.mass == 2.0
    np.testing.assert_array_equal(bp.standard_parameters(again, "khalil"), p)


@pytest.mark.parametrize("extra, message", [
    ("base: floting", r"base: expected one of 'fixed', 'floating', got 'floting'"),
    (f"base_inertia: {BODY}", r"base_inertia: only a floating base has a body of its own"),
    ("base: floating\nbase_inertia: {mass: -1, com: [0, 0, 0], inertia: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}",
     r"base_inertia.mass: expected a mass > 0"),
])
def test_bad_base_fields_are_one_line_errors(extra, message):
    with pytest.raises(bp.RobotDescriptionError, match=message) as info:
        bp.parse_robot(yaml(extra), "float.yaml")
    assert "\n" not in str(info.value) and "float.yaml" in str(info.value)


def test_robot_in_code_and_missing_base_inertia():
    joints = (bp.Joint(type="revolute", alpha=0.3, a=0.1, d=0.0, inertia=bp.Inertia(1.0, np.zeros(3), np.eye(3))),)
    with pytest.raises(bp.RobotDescriptionError, match="base_inertia: needed for the standard parameters"):
        bp.standard_parameters(bp.Robot(joints, base="floating"))
    with pytest.raises(bp.RobotDescriptionError, match="base_inertia: only a floating base"):
        bp.Robot(joints, base_inertia=bp.Inertia(1.0, np.zeros(3), np.eye(3)))
    with pytest.raises(bp.RobotDescriptionError, match="base: expected one of"):
        bp.Robot(joints, base="free")


@pytest.mark.parametrize("args", [["find"], ["export", "--lang", "c", "--out", "OUT"], ["identify", "TRAIN"]])
def test_commands_refuse_a_floating_robot(args, tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("t,q1,tau1\n")
    args = [a.replace("OUT", str(tmp_path / "out")).replace("TRAIN", str(train)) for a in args]
    result = CliRunner().invoke(main, [args[0], str(SPACE), *args[1:]])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "space_robot.yaml: base: floating" in lines[0] and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_library_refuses_floating_robots_where_it_must():
    robot = bp.load_robot(SPACE)
    q, qd = np.zeros(robot.n_q), np.zeros(robot.n_v)
    q[6] = 1.0
    for call in (lambda: bp.find_base_parameters(robot), lambda: bp.regressor(robot, q, qd, qd),
                 lambda: bp.coriolis_matrix(robot, bp.standard_parameters(robot), q, qd)):
        with pytest.raises(bp.ArgumentError, match="has a floating base"):
            call()


def test_describe_says_the_base_floats():
    result = CliRunner().invoke(main, ["describe", str(SPACE)])
    assert result.exit_code == 0
    assert "Base: floating (frame 0 moves freely, its body 400 kg" in result.output


def test_floating_trajectory_shapes():
    t = np.arange(10) * 0.1
    traj = bp.Trajectory(t, np.zeros((10, 9)), np.zeros((10, 8)), qd=np.zeros((10, 8)), floating=True)
    assert traj.n_dof == 2
    with pytest.raises(bp.DataError, match=r"field tau: 9 columns, but q has 9 \(floating base"):
        bp.Trajectory(t, np.zeros((10, 9)), np.zeros((10, 9)), floating=True)
