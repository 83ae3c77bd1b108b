"""Floating bases in descriptions, in code and at the command line.

* ``base: floating`` and ``base_inertia`` read from YAML and written back; bad values are one line
  naming the field; ``bp.Robot(..., base="floating", base_inertia=...)`` in code;
* the standard parameters gain the base body (link 0, names ending in 0);
* ``identify`` and ``export`` refuse a floating robot with one line and exit status 2
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


@pytest.mark.parametrize("args", [["identify", "TRAIN"]])
def test_identify_asks_a_floating_robot_for_its_route(args, tmp_path):
    """identify takes floating robots by one of the routes of docs/method.md; without --route, one line asks for it."""
    train = tmp_path / "train.csv"
    train.write_text("t,q1,tau1\n")
    args = [a.replace("OUT", str(tmp_path / "out")).replace("TRAIN", str(train)) for a in args]
    result = CliRunner().invoke(main, [args[0], str(SPACE), *args[1:]])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert "space_robot.yaml" in lines[0] and "floating base" in lines[0] and "--route" in lines[0]
    assert not (tmp_path / "out").exists()


def test_library_refuses_floating_robots_where_it_must():
    robot = bp.load_robot(SPACE)
    from baseparam.projection.symbolic import find_symbolic_base_parameters
    for call in (lambda: find_symbolic_base_parameters(robot),):
        with pytest.raises(bp.ArgumentError, match="has a floating base"):
            call()


def test_describe_says_the_base_floats():
    result = CliRunner().invoke(main, ["describe", str(SPACE)])
    assert result.exit_code == 0
    assert "Base: floating (frame 0 moves freely, its body 400 kg" in result.output


def test_floating_trajectory_shapes():
    t = np.arange(10) * 0.1
    q = np.zeros((10, 9))
    q[:, 6] = 1.0                   # the base at rest, its unit quaternion (x, y, z, w) = (0, 0, 0, 1)
    traj = bp.Trajectory(t, q, np.zeros((10, 8)), qd=np.zeros((10, 8)), floating=True)
    assert traj.n_dof == 2
    with pytest.raises(bp.DataError, match=r"field tau: 9 columns, but q has 9 \(floating base"):
        bp.Trajectory(t, q, np.zeros((10, 9)), floating=True)


URDF = """<robot name="satellite">
  <link name="world"/>
  <joint name="free" type="floating"><parent link="world"/><child link="body"/>
    <origin xyz="1 2 3" rpy="0.1 0.2 0.3"/></joint>
  <link name="body"><inertial><origin xyz="0.01 0 0.02" rpy="0 0 0"/><mass value="50"/>
    <inertia ixx="4" ixy="0.1" ixz="0" iyy="5" iyz="0" izz="6"/></inertial></link>
  <joint name="panel" type="fixed"><parent link="body"/><child link="panel"/><origin xyz="0 0.6 0"/></joint>
  <link name="panel"><inertial><mass value="5"/><inertia ixx="0.5" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.5"/>
    </inertial></link>
  <joint name="j1" type="revolute"><parent link="body"/><child link="a1"/><origin xyz="0.3 0 0.2" rpy="0 0.4 0"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="2"/></joint>
  <link name="a1"><inertial><origin xyz="0.2 0 0"/><mass value="2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.05"/></inertial></link>
  <joint name="j2" type="prismatic"><parent link="a1"/><child link="a2"/><origin xyz="0.4 0 0"/>
    <axis xyz="1 0 0"/><limit lower="-0.2" upper="0.2" effort="10" velocity="1"/></joint>
  <link name="a2"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
    </inertial></link>
  <joint name="j3" type="revolute"><parent link="body"/><child link="b1"/><origin xyz="-0.3 0 0.2"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="2"/></joint>
  <link name="b1"><inertial><origin xyz="0 0 0.1"/><mass value="1.5"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.01"/></inertial></link>
</robot>"""


def test_urdf_floating_root_is_a_floating_base():
    """A URDF whose root's only joint is floating: the same dynamics as pinocchio's model of the file."""
    pin = pytest.importorskip("pinocchio")
    robot = bp.parse_robot(URDF, "satellite.urdf")
    assert robot.is_floating and robot.n_dof == 3 and robot.base_inertia.mass == pytest.approx(55.0)
    model = pin.buildModelFromXML(URDF)
    data = model.createData()
    assert model.nq == robot.n_q and model.nv == robot.n_v
    p = bp.standard_parameters(robot)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))   # quaternion x y z w at 3:7
        v, tau = rng.uniform(-1, 1, model.nv), rng.uniform(-1, 1, model.nv)
        np.testing.assert_allclose(bp.forward_dynamics(robot, p, q, v, tau), pin.aba(model, data, q, v, tau),
                                   rtol=1e-9, atol=1e-9)
    with pytest.raises(bp.RobotDescriptionError, match="a floating joint below the root"):
        bp.parse_robot(URDF.replace('type="prismatic"', 'type="floating"'), "bad.urdf")
    from baseparam.model.urdf import parse_urdf
    with pytest.warns(bp.DescriptionWarning, match="gravity is taken in that link's frame"):
        assert not parse_urdf(URDF, "satellite.urdf", root="body").is_floating      # --root: a fixed base


def test_dh_equivalent_of_a_floating_chain_keeps_its_dynamics():
    """describe --yaml of a floating URDF chain: still floating, base body moved into DH frame 0; with
    the base at rest the joints accelerate the same (the base's own frame is a choice)."""
    from baseparam.model.dh_equivalent import dh_equivalent, dh_robot

    chain = URDF.split('  <joint name="j3"')[0] + "</robot>"
    robot = bp.parse_robot(chain, "chain.urdf")
    robot = dataclasses.replace(robot, gravity=(0.0, 0.0, 0.0))
    dh = dh_robot(robot, dh_equivalent(robot))
    assert dh.is_floating and dh.base_inertia.mass == pytest.approx(robot.base_inertia.mass)
    rng = np.random.default_rng(5)
    for _ in range(3):
        joints, qd, tau = rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2)
        pose = np.array([0, 0, 0, 0, 0, 0, 1.0])
        a = bp.forward_dynamics(robot, bp.standard_parameters(robot), np.r_[pose, joints], np.r_[np.zeros(6), qd],
                                np.r_[np.zeros(6), tau])
        b = bp.forward_dynamics(dh, bp.standard_parameters(dh), np.r_[pose, joints], np.r_[np.zeros(6), qd],
                                np.r_[np.zeros(6), tau])
        np.testing.assert_allclose(b[6:], a[6:], rtol=1e-9, atol=1e-12)


def test_stance_motion_base_quaternion_as_the_rotation_matrix_gives_it():
    """The base quaternion is scipy's from_matrix of Rz Ry Rx written out: at roll −90° (a tie in from_matrix's
    choice) it is (√½, 0, 0, −√½), as before; from_euler("ZYX") rounded R otherwise and gave its negative."""
    robot = bp.load_robot(SPACE)
    t = np.linspace(0, 0.5, 5)
    q0 = np.r_[np.zeros(6), 1.0, np.full(robot.n_dof, 0.3)]
    angles = np.tile([0.0, 0.0, -np.pi / 2], (5, 1))
    q, qd, qdd = bp.stance_motion(robot, t, q0, np.zeros((5, 3)), angles, [bp.Contact(0)])
    np.testing.assert_allclose(q[:, 3:7], np.tile([np.sqrt(0.5), 0, 0, -np.sqrt(0.5)], (5, 1)), rtol=0, atol=1e-15)
    assert not qd.any() and not qdd.any()
