"""Fuzz round 23 (issue 28), helper fznew: the newest surfaces against independent oracles.

Symbolic equations (JSON and ``--python``) against pinocchio's ``rnea``; MJCF export against MuJoCo's
``mj_inverse`` and ``mj_fullM``; URDF export and the payload's written URDF/YAML against pinocchio
(with the payload appended by pinocchio itself). Finds:

- ``robot_to_urdf`` (``identify --urdf`` and ``payload --robot-out x.urdf`` of a YAML robot) named each link
  frame's fixed joint ``link{k}_frame_joint`` whatever the robot's own joint names: a joint already so named gave
  a URDF with two joints of one name, which pinocchio (urdfdom) refuses and our own reader too. The generated
  name now steps aside (``_2``, as the payload's link does in a URDF robot's text).
"""
from __future__ import annotations

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.payload import PayloadResult, payload_parameters
from baseparam.model.urdf_writer import robot_to_urdf

pin = pytest.importorskip("pinocchio")

PSEUDO = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")
BODY = "inertia: {mass: 1.5, com: [0.1, 0.02, -0.03], inertia: [[0.01, 0.001, 0], [0.001, 0.02, 0], [0, 0, 0.015]]}"


def _robot_named(tmp_path, *names):
    rows = "".join(f"  - {{type: revolute, alpha: 90, a: 0.3, d: 0.1, name: {name}, {BODY}}}\n" for name in names)
    path = tmp_path / "named.yaml"
    path.write_text("name: named\nconvention: standard\nunits: {length: m, angle: deg}\ngravity: [0, 0, -9.81]\n"
                    "joints:\n" + rows)
    return bp.load_robot(path)


def _same_dynamics_as_pinocchio(robot, urdf_text, tmp_path):
    """The written URDF loads in pinocchio and in baseparam, with the robot's inverse dynamics, joints by name."""
    model = pin.buildModelFromXML(urdf_text)
    data = model.createData()
    names = [j.name for j in robot.joints]
    index = [model.joints[model.getJointId(name)].idx_v for name in names]
    path = tmp_path / "written.urdf"
    path.write_text(urdf_text)
    again = bp.Model(bp.load_robot(path))
    rng = np.random.default_rng(0)
    for _ in range(4):
        q, qd, qdd = rng.uniform(-2, 2, (3, robot.n_dof))
        expected = bp.inverse_dynamics(bp.Model(robot), q, qd, qdd)
        Q, V, A = (np.zeros(model.nv) for _ in range(3))
        Q[index], V[index], A[index] = q, qd, qdd
        np.testing.assert_allclose(pin.rnea(model, data, Q, V, A)[index], expected, rtol=0, atol=1e-10)
        np.testing.assert_allclose(bp.inverse_dynamics(again, q, qd, qdd), expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("names", [("link2_frame_joint", "link1_frame_joint"), ("link1_frame_joint", "b"),
                                   ("a", "link2_frame_joint", "link2_frame_joint_2")])
def test_urdf_frame_joints_step_aside_of_the_robots_joint_names(tmp_path, names):
    robot = _robot_named(tmp_path, *names)
    text = robot_to_urdf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints])
    _same_dynamics_as_pinocchio(robot, text, tmp_path)


def test_urdf_frame_joints_keep_their_names_when_free(tmp_path):
    robot = _robot_named(tmp_path, "j1", "j2")
    text = robot_to_urdf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints])
    assert 'name="link1_frame_joint"' in text and 'name="link2_frame_joint"' in text


def test_payload_robot_out_urdf_of_a_yaml_robot_with_such_names(tmp_path):
    robot = _robot_named(tmp_path, "link2_frame_joint", "link1_frame_joint")
    mass, com, inertia = 0.8, np.array([0.01, 0.0, 0.05]), np.diag([0.002, 0.003, 0.001])
    p = payload_parameters(mass, com, inertia)
    result = PayloadResult(mass=mass, com=com, inertia=inertia, mass_std=0.0, com_std=np.zeros(3),
                           inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p, covariance=np.zeros((10, 10)),
                           identifiable=list(PSEUDO), rank=10, mode="model", n_samples=1, rmse=np.zeros(2))
    _same_dynamics_as_pinocchio(result.attach(robot), result.robot_text(robot, "urdf"), tmp_path)
