"""The identified bodies written back into the user's own URDF (issue 24, item 1).

Third-party files: example-robot-data's UR5 (meshes, <dynamics>, a fixed end link) and Panda (vendor
attributes in <dynamics>, a hand fixed to the arm, prismatic fingers one of which mimics the other,
locked by tip), and a file in the style of a CAD exporter's (continuous joints, a tilted axis, a
self-closing link a fixed tool hangs from, a mimic joint, comments, materials, gazebo and
transmission tags). Checked against things the writer does not compute:

* the written file is the input less its <inertial>/<dynamics> elements (regular expressions on the
  two texts; blank lines aside);
* pinocchio's own URDF parser and rnea on the written file equal the fit's prediction (friction and
  rotor terms aside, which rnea has not), 1e-9 relative, at states the fit never saw;
* the <dynamics> values are the identified viscous and Coulomb friction.
"""
from __future__ import annotations

import dataclasses
import re
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from test_urdf import EXAMPLES, needs_examples, pin_model, pin_state

pin = pytest.importorskip("pinocchio")
pytest.importorskip("cvxpy")
pytestmark = pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning")

EXPORTED = """<?xml version="1.0" encoding="utf-8"?>
<!-- This URDF was automatically created by a CAD exporter (vendor comment kept as written) -->
<robot name="exported_arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <material name="orange"><color rgba="1 0.5 0 1"/></material>
  <link name="world"/>
  <joint name="world_fixed" type="fixed"><parent link="world"/><child link="base_link"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/></joint>
  <link name="base_link">
    <inertial><origin xyz="0 0 0.05"/><mass value="3.0"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.01"/></inertial>
    <visual><geometry><cylinder radius="0.08" length="0.1"/></geometry><material name="orange"/></visual>
  </link>
  <joint name="spin" type="continuous">
    <parent link="base_link"/>
    <child link="arm"/>
    <origin xyz="0 0 0.12" rpy="0 0 0.3"/>
    <axis xyz="0 0 1"/>
    <dynamics damping="0.1"/>
  </joint>
  <link name="arm">
    <inertial>
      <!-- from the CAD model, density 2700 -->
      <origin xyz="0.15 0.01 0" rpy="0.1 0.2 0.3"/>
      <mass value="2.0"/>
      <inertia ixx="0.004" ixy="0.0005" ixz="0" iyy="0.03" iyz="0" izz="0.031"/>
    </inertial>
    <visual><origin xyz="0.15 0 0"/><geometry><box size="0.3 0.05 0.05"/></geometry></visual>
  </link>
  <joint name="elbow" type="revolute">
    <parent link="arm"/>
    <child link="forearm"/>
    <origin xyz="0.3 0 0.02" rpy="1.2 0 0"/>
    <axis xyz="0 0.6 0.8"/>
    <limit lower="-2.5" upper="2.5" effort="20" velocity="3"/>
  </joint>
  <link name="forearm">
    <inertial>
      <origin xyz="0.1 0 0.01" rpy="0 0 0"/>
      <mass value="1.2"/>
      <inertia ixx="0.002" ixy="0" ixz="0.0001" iyy="0.012" iyz="0" izz="0.012"/>
    </inertial>
  </link>
  <joint name="wrist" type="continuous">
    <parent link="forearm"/>
    <child link="wrist_link"/>
    <origin xyz="0.25 0 0" rpy="0 0.4 0"/>
    <axis xyz="1 0 0"/>
  </joint>
  <link name="wrist_link"/>
  <joint name="flange" type="fixed">
    <parent link="wrist_link"/>
    <child link="tool"/>
    <origin xyz="0.05 0.01 0" rpy="0.5 0 0.2"/>
  </joint>
  <link name="tool">
    <inertial>
      <origin xyz="0.02 0 0.01" rpy="0 0 0"/>
      <mass value="0.4"/>
      <inertia ixx="0.0003" ixy="0" ixz="0" iyy="0.0004" iyz="0" izz="0.0005"/>
    </inertial>
  </link>
  <joint name="finger_left" type="prismatic">
    <parent link="tool"/>
    <child link="finger_l"/>
    <origin xyz="0.05 0.01 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="0" upper="0.04" effort="5" velocity="0.2"/>
  </joint>
  <link name="finger_l"><inertial><origin xyz="0.01 0 0"/><mass value="0.05"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial></link>
  <joint name="finger_right" type="prismatic">
    <parent link="tool"/>
    <child link="finger_r"/>
    <origin xyz="0.05 -0.01 0"/>
    <axis xyz="0 -1 0"/>
    <limit lower="0" upper="0.04" effort="5" velocity="0.2"/>
    <mimic joint="finger_left" multiplier="1" offset="0"/>
  </joint>
  <link name="finger_r"><inertial><origin xyz="0.01 0 0"/><mass value="0.05"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial></link>
  <gazebo reference="arm"><material>Gazebo/Orange</material><mu1>0.2</mu1></gazebo>
  <transmission name="spin_transmission">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="spin"><hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface></joint>
  </transmission>
</robot>
"""


def stripped(text):
    """The text less its <inertial> and <dynamics> elements, baseparam's comments and blank lines; a link left
    empty written as the self-closing tag it may have been."""
    for pattern in (r"<inertial\b.*?</inertial>", r"<inertial\b[^>]*/>", r"<dynamics\b[^>]*/>",
                    r"<dynamics\b.*?</dynamics>", r"<!-- baseparam:.*?-->"):
        text = re.sub(pattern, "", text, flags=re.S)
    text = re.sub(r'(<link name="[^"]*")>\s*</link>', r"\1/>", text)
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def fitted(path, friction=False, **options):
    """A consistent fit to torques of bodies 0.8–1.25× the file's (and friction), at random states."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(path, exact_angles=False, friction=friction, **options)
    rng = np.random.default_rng(0)
    joints = []
    for j in robot.joints:
        f = rng.uniform(0.8, 1.25)
        body = bp.Inertia(j.inertia.mass * f, j.inertia.com, j.inertia.inertia * f, as_written=True)
        joints.append(dataclasses.replace(j, inertia=body, friction=(0.3, 0.5, 0.0) if friction else j.friction))
    truth = dataclasses.replace(robot, joints=tuple(joints))
    q, qd, qdd = (rng.uniform(-2, 2, (40 * robot.n_dof, robot.n_dof)) for _ in range(3))
    tau = bp.inverse_dynamics(truth, bp.standard_parameters(truth), q, qd, qdd)
    result = bp.identify(robot, (q, qd, qdd, tau), method="consistent", preprocessing=None, prior_weight=0.01)
    return robot, result


def check_written(path, tmp_path, friction=False, **options):
    robot, result = fitted(path, friction, **options)
    out = tmp_path / "identified.urdf"
    text = result.to_urdf(out)
    assert out.read_text() == text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert bp.load_robot(out, exact_angles=False, **options).n_dof == robot.n_dof     # our reader takes it back
    original = open(path, encoding="utf-8").read()
    assert stripped(text) == stripped(original)
    # pinocchio's own parser on the written file: its rnea is the fit's prediction without friction
    model = pin_model(out, robot)
    data = model.createData()
    e = result.estimator
    x = np.where([n.startswith(("FV", "FC", "FO", "FS", "IA")) for n in e.names_], 0.0, e.coef_)
    rng = np.random.default_rng(7)
    q, qd, qdd = (rng.uniform(-2, 2, (6, robot.n_dof)) for _ in range(3))
    W = e.base_.regressor(q, qd, qdd)
    for s in range(len(q)):
        qp, vp, ap, order = pin_state(model, robot, q[s], qd[s], qdd[s])
        ref = pin.rnea(model, data, qp, vp, ap)[order]
        np.testing.assert_allclose(ref, W[s] @ x, rtol=0, atol=1e-9 * np.abs(ref).max())
    # what the file says beside the bodies: the identified friction, and the prior in each <inertial>
    tree = ET.fromstring(text)
    layout = bp.ColumnLayout(e.base_.robot, e.base_.parameters)
    for k, joint in enumerate(robot.joints):
        element = tree.find(f"joint[@name='{joint.name}']")
        dynamics = element.find("dynamics")
        if friction:
            assert float(dynamics.get("damping")) == max(e.standard_[layout.friction_columns[(k, "FV")]], 0.0)
            assert float(dynamics.get("friction")) == max(e.standard_[layout.friction_columns[(k, "FC")]], 0.0)
        child = tree.find(f"link[@name='{element.find('child').get('link')}']")
        assert child.find("inertial") is not None
    assert text.count("consistent fit, prior cad (auto), weight 0.01") == robot.n_dof
    return robot, result, text


@needs_examples
def test_ur5_with_meshes_and_friction(tmp_path):
    robot, result, text = check_written(EXAMPLES["ur5_robot.urdf"], tmp_path, friction=True)
    assert text.count("package://") == open(EXAMPLES["ur5_robot.urdf"]).read().count("package://")


@needs_examples
def test_panda_with_a_fixed_hand_and_mimic_fingers(tmp_path):
    robot, result, text = check_written(EXAMPLES["panda.urdf"], tmp_path, friction=True, tip="panda_link8")
    # vendor attributes of <dynamics> kept, the identified values in place
    assert text.count('<dynamics D="1" K="7000" damping="') == 7
    assert '<mimic joint="panda_finger_joint1"' in text


@needs_examples
def test_panda_whole_with_its_mimic_finger_locked(tmp_path):
    """No tip: the mimic finger is locked at q = 0, its link on the hand's body, and written back so (the file's
    rnea, pinocchio's with the mimic joint locked at 0, is the fit's prediction)."""
    robot, result, text = check_written(EXAMPLES["panda.urdf"], tmp_path, friction=True, mimic="lock")
    assert [j.name for j in robot.joints][-1] == "panda_finger_joint1" and robot.n_dof == 8
    assert '<mimic joint="panda_finger_joint1"' in text


@needs_examples
def test_panda_whole_with_its_mimic_finger_independent(tmp_path):
    """mimic='independent': the second finger a joint of its own, identified and written back with its <mimic>
    element as written (pinocchio's default reading of the written file, the mimic joint free, is the fit's
    prediction)."""
    robot, result, text = check_written(EXAMPLES["panda.urdf"], tmp_path, friction=True, mimic="independent")
    assert [j.name for j in robot.joints][-2:] == ["panda_finger_joint1", "panda_finger_joint2"] and robot.n_dof == 9
    assert '<mimic joint="panda_finger_joint1"' in text


def test_exported_file_with_continuous_and_mimic_joints(tmp_path):
    source = tmp_path / "exported_arm.urdf"
    source.write_text(EXPORTED)
    robot, result, text = check_written(source, tmp_path, tip="tool")
    assert [j.name for j in robot.joints] == ["spin", "elbow", "wrist"]
    model = pin.buildModelFromUrdf(str(tmp_path / "identified.urdf"))
    assert model.nq > model.nv            # the continuous joints stay continuous (cos, sin)
    # the self-closing link the tool hangs from was opened to hold the body
    tree = ET.fromstring(text)
    assert tree.find("link[@name='wrist_link']/inertial") is not None
    assert "spin" in text and "<!-- from the CAD model" not in text     # the replaced <inertial>'s comment went
    assert "This URDF was automatically created" in text


def test_cli_writes_the_users_file_and_the_table(tmp_path):
    source = tmp_path / "exported_arm.urdf"
    source.write_text(EXPORTED)
    robot, result = fitted(source, tip="tool")
    rng = np.random.default_rng(3)
    t = np.arange(400) * 0.01
    q = np.column_stack([np.sin((k + 1) * t + k) for k in range(3)])
    qd = np.column_stack([(k + 1) * np.cos((k + 1) * t + k) for k in range(3)])
    qdd = np.column_stack([-(k + 1) ** 2 * np.sin((k + 1) * t + k) for k in range(3)])
    tau = result.estimator.predict((q, qd, qdd)) + 1e-3 * rng.normal(size=q.shape)
    log = tmp_path / "log.csv"
    header = ",".join(["t"] + [f"{f}{k}" for f in ("q", "qd", "qdd", "tau") for k in (1, 2, 3)])
    np.savetxt(log, np.column_stack([t, q, qd, qdd, tau]), delimiter=",", header=header, comments="")
    out, doc = tmp_path / "out.urdf", tmp_path / "out.json"
    res = CliRunner().invoke(main, ["identify", str(source), str(log), "--tip", "tool", "--method", "consistent",
                                    "--prior-weight", "0.01", "--urdf", str(out), "--json", str(doc),
                                    "--mjcf", str(tmp_path / "out.xml"),
                                    "--cutoff", "none", "--rest-velocity", "none", "--resample", "none"])
    assert res.exit_code == 0, res.output
    assert stripped(out.read_text()) == stripped(EXPORTED)
    assert "prior cad (asked: auto), weight 0.01" in res.output and "CAD" in res.output
    import json
    bodies = json.loads(doc.read_text())["consistent"]["bodies"]
    assert [b["joint"] for b in bodies] == ["spin", "elbow", "wrist"]
    assert bodies[1]["cad"]["mass"] == pytest.approx(1.2)
    assert json.loads(doc.read_text())["consistent"]["prior_requested"] == "auto"
    mujoco = pytest.importorskip("mujoco")
    assert mujoco.MjModel.from_xml_path(str(tmp_path / "out.xml")).nv == 3
    bad = CliRunner().invoke(main, ["identify", str(source), str(log), "--tip", "tool",
                                    "--mjcf", str(tmp_path / "x.xml")])
    assert bad.exit_code == 2 and "--mjcf: --method ols estimates base parameters" in bad.output


@pytest.mark.parametrize("factor, kept", [(1.3, True), (0.5, False)])
def test_links_fixed_to_a_moving_link_keep_or_give_their_mass(tmp_path, factor, kept):
    """The wrist's body (wrist_link with the tool and the fingers fixed to it) at 1.3× its CAD one: the fit less
    the tool's and fingers' CAD bodies is a body, written in wrist_link, theirs kept as written; at 0.5× it is
    not: the whole body in wrist_link, theirs removed. pinocchio on the file: the robot with those bodies."""
    from baseparam.model.urdf_update import updated_urdf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(_write(tmp_path, EXPORTED), tip="tool", exact_angles=False)
    bodies = [(j.inertia.mass * factor, np.asarray(j.inertia.com), np.asarray(j.inertia.inertia) * factor)
              for j in robot.joints]
    text = updated_urdf(robot, bodies)
    assert stripped(text) == stripped(EXPORTED)
    tree, original = ET.fromstring(text), ET.fromstring(EXPORTED)
    for link in ("tool", "finger_l", "finger_r"):
        same = ET.tostring(tree.find(f"link[@name='{link}']")) == ET.tostring(original.find(f"link[@name='{link}']"))
        assert same == kept and (tree.find(f"link[@name='{link}']/inertial") is None) == (not kept)
    path = tmp_path / "written.urdf"
    path.write_text(text)
    model = pin_model(path, robot)
    data = model.createData()
    truth = dataclasses.replace(robot, joints=tuple(
        dataclasses.replace(j, inertia=bp.Inertia(*b, as_written=True)) for j, b in zip(robot.joints, bodies)))
    rng = np.random.default_rng(2)
    q, qd, qdd = (rng.uniform(-2, 2, (5, 3)) for _ in range(3))
    tau = bp.inverse_dynamics(truth, bp.standard_parameters(truth), q, qd, qdd)
    for s in range(5):
        qp, vp, ap, order = pin_state(model, robot, q[s], qd[s], qdd[s])
        np.testing.assert_allclose(pin.rnea(model, data, qp, vp, ap)[order], tau[s], rtol=0,
                                   atol=1e-10 * np.abs(tau[s]).max())


def _write(folder, text):
    path = folder / "exported_arm.urdf"
    path.write_text(text)
    return path
