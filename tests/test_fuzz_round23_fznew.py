"""Fuzz round 23 (issue 28), helper fznew: the newest surfaces against independent oracles.

Symbolic equations (JSON and ``--python``) against pinocchio's ``rnea``; MJCF export against MuJoCo's
``mj_inverse`` and ``mj_fullM``; URDF export and the payload's written URDF/YAML against pinocchio
(with the payload appended by pinocchio itself). Finds:

- ``robot_to_urdf`` (``identify --urdf`` and ``payload --robot-out x.urdf`` of a YAML robot) named each link
  frame's fixed joint ``link{k}_frame_joint`` whatever the robot's own joint names: a joint already so named gave
  a URDF with two joints of one name, which pinocchio (urdfdom) refuses and our own reader too. The generated
  name now steps aside (``_2``, as the payload's link does in a URDF robot's text).
- ``robot_to_mjcf`` (``identify --mjcf``) named each body after the URDF link it moves: a link named ``world``
  (MuJoCo's worldbody) made a file MuJoCo refuses. That body's name now steps aside likewise.
- ``robot_to_mjcf``'s meshes: a mirrored mesh (URDF scale -1 along an axis) was written unmirrored and a one-number
  scale as 1 1 1 (files that load but hold other shapes); an ASCII STL was referenced, which MuJoCo refuses with
  the whole file. The mirror is kept; the others are left out with a comment.
- ``robot_to_urdf``'s roll, pitch, yaw folded the roll into the yaw within 1e-12 of |sin pitch| = 1, as at the lock
  itself: a frame 1e-7 rad off it (a DH twist or offset of 90.00001°) was written turned by about that much, the
  URDF's torques 1e-6 off (pinocchio). Near the lock the angles are now solved to round-off.
- The written comments (URDF writer, MJCF writer, a URDF's ``<inertial>`` notes and the payload's) replaced ``--``
  by ``- -``, which leaves ``--`` in ``---``: a robot, link or mesh so named gave a file that is no XML. One helper,
  ``urdf_update.comment_text``, for the four sites.
- ``robot_to_urdf`` of a floating robot (``payload --robot-out x.urdf`` of a floating YAML robot under standard
  gravity, ``identify --urdf``) wrote a URDF rooted at a fixed ``base`` link without the base body: a fixed-base
  robot, silently. Refused in one line (as the MJCF writer does), before any work on the command line.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.payload import PayloadResult, payload_parameters
from baseparam.model.robot import joint_names
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
    names = joint_names(robot.joints)
    index = [model.joints[model.getJointId(name)].idx_v for name in names]
    path = tmp_path / "written.urdf"
    path.write_text(urdf_text)
    again = bp.Model(bp.load_robot(path, exact_angles=False))     # as written (a 1e-7 rad angle is not snapped)
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


WORLD_LINK_URDF = """<?xml version="1.0"?>
<robot name="w">
  <link name="base"/>
  <link name="world"><inertial><origin xyz="0.1 0 0.02"/><mass value="1.2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.015"/></inertial></link>
  <link name="world_2"><inertial><origin xyz="0 0.1 0"/><mass value="0.7"/>
    <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.003" iyz="0" izz="0.005"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="world"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="world"/><child link="world_2"/><origin xyz="0.3 0 0" rpy="1.5708 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""


def test_mjcf_body_of_a_urdf_link_named_world_loads_in_mujoco(tmp_path):
    """MuJoCo names its worldbody 'world': a URDF link so named (moved by a joint) was written as a second body
    'world', and MuJoCo refused the file ("repeated name 'world' in body"). It now steps aside; the dynamics are the
    URDF's (pinocchio)."""
    mujoco = pytest.importorskip("mujoco")
    from baseparam.model.mjcf_writer import robot_to_mjcf

    path = tmp_path / "w.urdf"
    path.write_text(WORLD_LINK_URDF)
    robot = bp.load_robot(path)
    text = robot_to_mjcf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints])
    model = mujoco.MjModel.from_xml_string(text)
    assert [model.body(b).name for b in range(model.nbody)] == ["world", "world_3", "world_2"]
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    data = mujoco.MjData(model)
    reference = pin.buildModelFromUrdf(str(path))
    ref_data = reference.createData()
    rng = np.random.default_rng(1)
    for _ in range(4):
        q, qd, qdd = rng.uniform(-2, 2, (3, 2))
        data.qpos[:], data.qvel[:], data.qacc[:] = q, qd, qdd
        mujoco.mj_inverse(model, data)
        np.testing.assert_allclose(data.qfrc_inverse, pin.rnea(reference, ref_data, q, qd, qdd), rtol=0, atol=1e-10)


def _tetrahedron_stl(path, binary):
    """A small tetrahedron as a binary or an ASCII STL."""
    import struct

    v = np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]], dtype=float)
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    normals = [np.cross(v[b] - v[a], v[c] - v[a]) for a, b, c in faces]
    if binary:
        data = b"\0" * 80 + struct.pack("<I", len(faces)) + b"".join(
            struct.pack("<12fH", *n, *v[a], *v[b], *v[c], 0) for n, (a, b, c) in zip(normals, faces))
        path.write_bytes(data)
    else:
        facets = "".join(f"facet normal {n[0]} {n[1]} {n[2]}\n outer loop\n"
                         + "".join(f"  vertex {v[i][0]} {v[i][1]} {v[i][2]}\n" for i in (a, b, c))
                         + " endloop\nendfacet\n" for n, (a, b, c) in zip(normals, faces))
        path.write_text("solid t\n" + facets + "endsolid t\n")


MESH_URDF = """<?xml version="1.0"?>
<robot name="meshes">
  <link name="base"/>
  <link name="l1"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.015"/></inertial>
    <collision><geometry><mesh filename="binary.stl" scale="-1 1 1"/></geometry></collision>
    <collision><geometry><mesh filename="binary.stl" scale="0.001"/></geometry></collision>
    <visual><geometry><mesh filename="ascii.stl"/></geometry></visual>
    <visual><geometry><mesh filename="binary.stl"/></geometry></visual>
  </link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def test_mjcf_meshes_mirrored_kept_and_what_mujoco_cannot_read_left_out(tmp_path):
    """A URDF mesh scaled -1 along an axis (a mirrored link) was written with scale 1 1 1, a file that loads but holds
    the unmirrored shape; a scale of one number ('0.001') likewise became 1 1 1, a 1000× larger mesh; and an ASCII
    STL was referenced, so MuJoCo refused the whole file. Now the mirror is kept, the others are left out with a
    comment, as a .dae is."""
    mujoco = pytest.importorskip("mujoco")
    from baseparam.model.mjcf_writer import robot_to_mjcf

    _tetrahedron_stl(tmp_path / "binary.stl", binary=True)
    _tetrahedron_stl(tmp_path / "ascii.stl", binary=False)
    path = tmp_path / "meshes.urdf"
    path.write_text(MESH_URDF)
    robot = bp.load_robot(path)
    text = robot_to_mjcf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints],
                         urdf_folder=tmp_path)
    model = mujoco.MjModel.from_xml_string(text)
    assert sorted(map(tuple, model.mesh_scale.tolist())) == [(-1.0, 1.0, 1.0), (1.0, 1.0, 1.0)]
    assert "mesh ascii.stl: not a binary STL" in text and "scale '0.001' is not 3 non-zero numbers" in text


BOX = "inertia: [[0.01, 0, 0], [0, 0.02, 0], [0, 0, 0.015]]"
NEAR_LOCK = f"""name: near gimbal lock
convention: modified
units: {{length: m, angle: deg}}
gravity: [0, 0, -9.81]
joints:
  - {{type: revolute, alpha: 0, a: 0, d: 0.3, inertia: {{mass: 2, com: [0.1, 0.05, 0], {BOX}}}}}
  - {{type: prismatic, alpha: 90, a: 0.5, theta: 90.00001, inertia: {{mass: 3, com: [0.2, 0.1, 0.3], {BOX}}}}}
  - {{type: revolute, alpha: 90, a: 0.2, d: 0.4, offset: 90.00001, inertia: {{mass: 1, com: [0.3, 0.1, 0.2], {BOX}}}}}
"""


def _rotation(roll, pitch, yaw):
    def axis(k, t):
        c, s = np.cos(t), np.sin(t)
        i, j = [(1, 2), (2, 0), (0, 1)][k]
        R = np.eye(3)
        R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
        return R
    return axis(2, yaw) @ axis(1, pitch) @ axis(0, roll)


@pytest.mark.parametrize("seed", range(12))
def test_urdf_rpy_near_gimbal_lock_gives_the_rotation_back(seed):
    """Within 1e-12 of |sin pitch| = 1 the roll was folded into the yaw as at the lock itself: a pitch 1e-7 rad off
    ±90° (a twist of 90.00001°) came back turned by that much, 1e-6 in the written URDF's torques."""
    from baseparam.model.urdf_writer import _rpy

    rng = np.random.default_rng(seed)
    off = [1e-6, 1e-7, 1e-8, 1.4e-6][seed % 4]
    R = _rotation(rng.uniform(-3, 3), rng.choice([-1, 1]) * (np.pi / 2 - off), rng.uniform(-3, 3))
    np.testing.assert_allclose(_rotation(*_rpy(R)), R, rtol=0, atol=1e-14)


def test_urdf_of_a_twist_near_90_degrees_has_the_robots_dynamics(tmp_path):
    path = tmp_path / "lock.yaml"
    path.write_text(NEAR_LOCK)
    robot = bp.load_robot(path)
    text = robot_to_urdf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints])
    _same_dynamics_as_pinocchio(robot, text, tmp_path)


DASHES_URDF = """<?xml version="1.0"?>
<robot name="dashes">
  <link name="base"/>
  <link name="l---1"><inertial><origin xyz="0.1 0 0.02"/><mass value="1.2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.015"/></inertial>
    <visual><geometry><mesh filename="part---a.dae"/></geometry></visual></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l---1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""


def test_names_with_three_dashes_keep_the_written_comments_xml(tmp_path):
    """Comments named the robot, a link or a mesh with '--' replaced by '- -', which leaves '--' in '---': the URDF
    written for a robot so named, the MJCF of a link or mesh so named, and a URDF robot's text with a payload on a
    link so named were no XML (pinocchio, MuJoCo and our reader refuse them)."""
    mujoco = pytest.importorskip("mujoco")
    from baseparam.model.mjcf_writer import robot_to_mjcf

    named = tmp_path / "named.yaml"
    named.write_text(NEAR_LOCK.replace("name: near gimbal lock", "name: 'arm---3'"))
    robot = bp.load_robot(named)
    assert robot.name == "arm---3"
    text = robot_to_urdf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints])
    pin.buildModelFromXML(text)

    path = tmp_path / "dashes.urdf"
    path.write_text(DASHES_URDF)
    robot = bp.load_robot(path)
    text = robot_to_mjcf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints],
                         note="fit --- prior", urdf_folder=tmp_path)
    assert mujoco.MjModel.from_xml_string(text).nbody == 2

    mass, com, inertia = 0.8, np.array([0.01, 0.0, 0.05]), np.diag([0.002, 0.003, 0.001])
    p = payload_parameters(mass, com, inertia)
    result = PayloadResult(mass=mass, com=com, inertia=inertia, mass_std=0.0, com_std=np.zeros(3),
                           inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p, covariance=np.zeros((10, 10)),
                           identifiable=list(PSEUDO), rank=10, mode="model", n_samples=1, rmse=np.zeros(1))
    written = tmp_path / "loaded.urdf"
    written.write_text(result.robot_text(robot, "urdf"))
    assert pin.buildModelFromUrdf(str(written)).inertias[1].mass == pytest.approx(1.2 + 0.8, abs=1e-12)
    assert bp.load_robot(written).joints[0].inertia.mass == pytest.approx(1.2 + 0.8, abs=1e-12)


def test_a_floating_robot_is_not_written_as_a_fixed_urdf(tmp_path):
    """``payload --robot-out x.urdf`` of a floating YAML robot (gravity -9.81 along z) wrote a URDF rooted at a fixed
    'base' link, without the base body: read back, a fixed-base robot (another one), without a word. Refused now, in
    one line, before anything is written; .yaml keeps the floating base."""
    space = (Path(__file__).resolve().parents[1] / "robots" / "space_robot.yaml").read_text()
    path = tmp_path / "space.yaml"
    path.write_text(space.replace("gravity: [0, 0, 0]", "gravity: [0, 0, -9.81]"))
    robot = bp.load_robot(path)
    mass, com, inertia = 3.0, np.array([0.1, 0.2, -0.05]), np.diag([0.02, 0.03, 0.025])
    p = payload_parameters(mass, com, inertia)
    result = PayloadResult(mass=mass, com=com, inertia=inertia, mass_std=0.0, com_std=np.zeros(3),
                           inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p, covariance=np.zeros((10, 10)),
                           identifiable=list(PSEUDO), rank=10, mode="model", n_samples=1, rmse=np.zeros(6))
    with pytest.raises(bp.SettingsError, match="floating base cannot be written as a new URDF") as refused:
        result.robot_text(robot, "urdf")
    assert "\n" not in str(refused.value)
    with pytest.raises(bp.SettingsError, match="floating base"):
        robot_to_urdf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints])
    again = tmp_path / "loaded.yaml"
    again.write_text(result.robot_text(robot, "yaml"))
    assert bp.load_robot(again).is_floating
