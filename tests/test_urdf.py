"""URDF input against pinocchio reading the same files, and the reader's refusals.

Independent oracles: ``pin.buildModelFromUrdf`` (its own parser, its own merging of fixed joints)
for inverse dynamics and the numeric rank of its joint-torque regressor; the DH descriptions of the
measured robots for ranks; hand-computed lumped bodies. URDF models of the ``example-robot-data``
package are located through its installed files (skipped when it is absent).
"""
from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import EXAMPLES, DATA, ROOT, needs_data, run_in_process

pin = pytest.importorskip("pinocchio")



needs_examples = pytest.mark.skipif(not EXAMPLES, reason="example-robot-data is not installed")


def quiet_load(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bp.load_robot(path, **options)


# -- pinocchio on the same file ----------------------------------------------------------------------------------
def pin_model(path, robot):
    """pinocchio's fixed-base model of the file, joints not in `robot` locked at 0 (as --tip does)."""
    model = pin.buildModelFromUrdf(str(path))
    keep = {j.name for j in robot.joints}
    lock = [i for i in range(1, model.njoints) if model.names[i] not in keep]
    if lock:
        model = pin.buildReducedModel(model, lock, pin.neutral(model))
    return model


def pin_state(model, robot, q, qd, qdd):
    """baseparam's joint vectors as pinocchio's (continuous joints take cos, sin), and the index map."""
    qp, vp, ap, order = pin.neutral(model), np.zeros(model.nv), np.zeros(model.nv), []
    for k, joint in enumerate(robot.joints):
        jm = model.joints[model.getJointId(joint.name)]
        if jm.nq == 2:
            qp[jm.idx_q:jm.idx_q + 2] = math.cos(q[k]), math.sin(q[k])
        else:
            qp[jm.idx_q] = q[k]
        vp[jm.idx_v], ap[jm.idx_v] = qd[k], qdd[k]
        order.append(jm.idx_v)
    return qp, vp, ap, order


def pin_rank(model, robot, rng, rtol=1e-9):
    data = model.createData()
    rows = []
    for _ in range(20 * robot.n_dof):
        q, qd, qdd = (rng.uniform(-math.pi, math.pi, robot.n_dof) for _ in range(3))
        qp, vp, ap, _ = pin_state(model, robot, q, qd, qdd)
        rows.append(np.asarray(pin.computeJointTorqueRegressor(model, data, qp, vp, ap)))
    W = np.vstack(rows)
    norms = np.linalg.norm(W, axis=0)
    live = norms > 1e-11 * norms.max()
    s = np.linalg.svd(W[:, live] / norms[live], compute_uv=False)
    return int(np.sum(s > rtol * s[0]))


def check_against_pinocchio(path, **options):
    robot = quiet_load(path, exact_angles=False, **options)
    model = pin_model(path, robot)
    assert model.nv == robot.n_dof
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-2, 2, (6, robot.n_dof)) for _ in range(3))
    tau = bp.inverse_dynamics(robot, bp.standard_parameters(robot), q, qd, qdd)
    data = model.createData()
    for s in range(len(q)):
        qp, vp, ap, order = pin_state(model, robot, q[s], qd[s], qdd[s])
        ref = pin.rnea(model, data, qp, vp, ap)[order]
        np.testing.assert_allclose(tau[s], ref, atol=1e-10 * np.abs(ref).max(), err_msg=f"{path}: rnea")
    base = bp.find_base_parameters(robot)
    assert base.rank == pin_rank(model, robot, rng), path
    # snapping changes the geometry by round-off only: the same torques to that order, the same rank
    snapped = quiet_load(path, **options)
    tau_snapped = bp.inverse_dynamics(snapped, bp.standard_parameters(snapped), q, qd, qdd)
    np.testing.assert_allclose(tau_snapped, tau, atol=1e-5 * np.abs(tau).max())
    return robot, base, bp.find_base_parameters(snapped)


@needs_examples
@pytest.mark.parametrize("name, options", [
    ("ur5_robot.urdf", {}), ("panda.urdf", {"tip": "panda_link8"}), ("xarm7.urdf", {}), ("z1.urdf", {}),
    ("double_pendulum_continuous.urdf", {}), ("solo12.urdf", {}), ("go2.urdf", {}), ("kinova.urdf", {}),
    ("talos_left_arm.urdf", {}), ("so100.urdf", {}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_example_robots_against_pinocchio(name, options):
    robot, base, snapped = check_against_pinocchio(EXAMPLES[name], **options)
    if name in ("ur5_robot.urdf", "talos_left_arm.urdf"):      # angles off special ones by < 1e-8 rad only
        assert snapped.rank == base.rank


@needs_examples
@pytest.mark.parametrize("name", ["anymal-kinova.urdf", "b1-z1.urdf", "g1_29dof_rev_1_0.urdf"])
def test_legged_robots_and_humanoids_against_pinocchio(name):
    """Trees beyond 20 joints (a 29-joint humanoid; legged bases with an arm): inverse dynamics and the
    rank as pinocchio's, and the regroupings: W = W_b·Y at random states, for the regressor W whose
    product with the file's bodies is pinocchio's rnea."""
    robot, base, _ = check_against_pinocchio(EXAMPLES[name])
    model = pin_model(EXAMPLES[name], robot)
    data = model.createData()
    rng = np.random.default_rng(1)
    q, qd, qdd = (rng.uniform(-2, 2, (6, robot.n_dof)) for _ in range(3))
    W = bp.regressor(robot, q, qd, qdd)
    p = bp.standard_parameters(robot)
    for s in range(len(q)):
        qp, vp, ap, order = pin_state(model, robot, q[s], qd[s], qdd[s])
        ref = pin.rnea(model, data, qp, vp, ap)[order]
        np.testing.assert_allclose(W[s] @ p, ref, atol=1e-10 * np.abs(ref).max())
    P = rng.normal(size=(W.shape[2], 4))
    lhs, rhs = W @ P, W[:, :, base.pivots] @ (base.Y @ P)
    assert np.abs(lhs - rhs).max() <= 1e-9 * np.abs(lhs).max()


@needs_examples
def test_panda_arm_with_the_hand_locked():
    """--tip panda_link8: the fingers' joints are off the path, locked at 0, and their mass rides on link 7."""
    robot = quiet_load(EXAMPLES["panda.urdf"], tip="panda_link8")
    assert [j.name for j in robot.joints] == [f"panda_joint{k}" for k in range(1, 8)]
    full = pin.buildModelFromUrdf(str(EXAMPLES["panda.urdf"]))
    total = sum(full.inertias[i].mass for i in range(1, full.njoints))
    assert sum(j.inertia.mass for j in robot.joints) == pytest.approx(total, rel=1e-12)
    base = bp.find_base_parameters(robot)
    assert base.exact and base.rank == 43


@needs_examples
def test_mimic_joints_are_refused_unless_locked_or_left_out():
    with pytest.raises(bp.RobotDescriptionError, match=r"joint 'panda_finger_joint2': a mimic joint"):
        bp.load_robot(EXAMPLES["panda.urdf"])


@needs_examples
def test_mimic_joints_are_locked_at_zero():
    """A mimic joint without an offset is held at q = 0 (one warning line): the robot is the file's with that
    joint fixed."""
    with pytest.warns(bp.DescriptionWarning, match=r"1 mimic joint \('panda_finger_joint2'\) locked at q = 0"):
        robot = bp.load_robot(EXAMPLES["panda.urdf"], mimic="lock")
    text = EXAMPLES["panda.urdf"].read_text()
    start = text.index('<joint name="panda_finger_joint2" type="prismatic">')
    fixed = text[:start] + text[start:].replace('type="prismatic"', 'type="fixed"', 1)
    assert fixed != text
    reference = quiet_load_text(fixed, "panda_fixed.urdf")
    assert [j.name for j in robot.joints] == [f"panda_joint{k}" for k in range(1, 8)] + ["panda_finger_joint1"]
    assert robot.joints == reference.joints and robot.gravity == reference.gravity
    with warnings.catch_warnings():
        warnings.simplefilter("error", bp.DescriptionWarning)     # off the path to the tip: no word about it
        arm_only = bp.load_robot(EXAMPLES["panda.urdf"], tip="panda_link8")
    assert len(arm_only.joints) == 7


def quiet_load_text(text, label):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bp.parse_robot(text, label)


# -- the measured robots: URDF against their DH descriptions ------------------------------------------------------
def without_drives(robot):
    joints = tuple(dataclasses.replace(j, friction=(False, False, False), rotor_inertia=False) for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


@needs_data
@pytest.mark.parametrize("urdf, dh", [("ur10e/ur10e.urdf", "ur10e.yaml"),
                                      ("kuka_lwr4/kuka_lwr4.urdf", "kuka_lwr4.yaml")])
def test_measured_robots_same_rank_as_dh(urdf, dh):
    robot = quiet_load(DATA / urdf)
    base = bp.find_base_parameters(robot)
    dh_robot = bp.load_robot(ROOT / "robots" / dh)
    assert base.exact
    assert base.rank == bp.find_base_parameters(without_drives(dh_robot)).rank
    # with the drives the DH file declares, the same again
    declared = quiet_load(DATA / urdf, friction=True, rotor_inertia=any(j.has_rotor_inertia for j in dh_robot.joints))
    declared_dh = bp.find_base_parameters(dh_robot).rank
    if all(j.friction_terms == ("FV", "FC", "FO") for j in dh_robot.joints):
        assert bp.find_base_parameters(declared).rank == declared_dh


# -- merging fixed joints --------------------------------------------------------------------------------------------
MERGE = """<?xml version="1.0"?>
<robot name="merge">
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0.1 0.02 -0.03" rpy="0.3 -0.2 0.5"/><mass value="2.0"/>
      <inertia ixx="0.05" ixy="0.004" ixz="-0.003" iyy="0.04" iyz="0.002" izz="0.03"/></inertial>
  </link>
  <link name="bracket">
    <inertial><origin xyz="0.0 0.05 0.01" rpy="1.0 0.4 -0.7"/><mass value="0.7"/>
      <inertia ixx="0.004" ixy="-0.0005" ixz="0.0002" iyy="0.006" iyz="0.0004" izz="0.005"/></inertial>
  </link>
  <link name="lower">
    <inertial><origin xyz="0.2 0 0"/><mass value="1.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" velocity="3" effort="50"/>
  </joint>
  <joint name="mount" type="fixed">
    <parent link="upper"/><child link="bracket"/><origin xyz="0.4 0.1 0.05" rpy="0.6 -0.4 1.1"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="bracket"/><child link="lower"/><origin xyz="0.1 0 0.02" rpy="0 0.3 0"/><axis xyz="0.3 -0.4 0.866"/>
    <dynamics damping="0.2" friction="0.7"/><limit lower="-2" upper="2" velocity="3" effort="50"/>
  </joint>
</robot>
"""


def test_fixed_joint_merging_against_pinocchio(tmp_path):
    path = tmp_path / "merge.urdf"
    path.write_text(MERGE)
    robot = bp.load_robot(path)
    assert [j.name for j in robot.joints] == ["shoulder", "elbow"] and robot.joints[1].parent == 1
    model = pin.buildModelFromUrdf(str(path))
    for joint in robot.joints:
        ref = model.inertias[model.getJointId(joint.name)]
        assert joint.inertia.mass == pytest.approx(ref.mass, rel=1e-14)
        np.testing.assert_allclose(joint.inertia.com, ref.lever, atol=1e-14)
        np.testing.assert_allclose(joint.inertia.inertia, ref.inertia, atol=1e-14)
    # the lump by hand: bracket's inertia turned by R_mount·R_inertial and moved by the parallel-axis rule
    R_m, p_m = pin.rpy.rpyToMatrix(0.6, -0.4, 1.1), np.array([0.4, 0.1, 0.05])
    R_b, c_b = pin.rpy.rpyToMatrix(1.0, 0.4, -0.7), np.array([0.0, 0.05, 0.01])
    R_u, c_u = pin.rpy.rpyToMatrix(0.3, -0.2, 0.5), np.array([0.1, 0.02, -0.03])
    I_b = np.array([[0.004, -0.0005, 0.0002], [-0.0005, 0.006, 0.0004], [0.0002, 0.0004, 0.005]])
    I_u = np.array([[0.05, 0.004, -0.003], [0.004, 0.04, 0.002], [-0.003, 0.002, 0.03]])
    parts = [(2.0, c_u, R_u @ I_u @ R_u.T), (0.7, R_m @ c_b + p_m, R_m @ R_b @ I_b @ R_b.T @ R_m.T)]
    mass = sum(m for m, _, _ in parts)
    com = sum(m * c for m, c, _ in parts) / mass
    inertia = sum(I + m * ((c - com) @ (c - com) * np.eye(3) - np.outer(c - com, c - com)) for m, c, I in parts)
    np.testing.assert_allclose(robot.joints[0].inertia.com, com, atol=1e-15)
    np.testing.assert_allclose(robot.joints[0].inertia.inertia, inertia, atol=1e-15)
    assert robot.joints[0].limits == bp.JointLimits(-2.0, 2.0, 3.0, 50.0)
    assert robot.joints[1].friction_prior == (0.2, 0.7) and robot.joints[1].friction_terms == ()
    assert bp.load_robot(path, friction=True).joints[1].friction == (0.2, 0.7, 0.0)   # a URDF has no FO: 0
    check_against_pinocchio(path)


# -- angles ----------------------------------------------------------------------------------------------------------
ARM = """<robot name="arm">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0.1 0.3" rpy="RPY 0 0"/><axis xyz="AXIS"/></joint>
  <joint name="j3" type="continuous"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.4 0 0" rpy="0 0 0"/><axis xyz="0 1 0"/></joint>
</robot>
"""


def arm(tmp_path, rpy="1.5707963267948966", axis="0 0 1", name="arm.urdf"):
    path = tmp_path / name
    path.write_text(ARM.replace("RPY", rpy).replace("AXIS", axis))
    return path


def test_rounded_rpy_is_taken_as_the_special_angle(tmp_path):
    exact = bp.find_base_parameters(bp.load_robot(arm(tmp_path)))
    note = r"1 angle within 1e-06 rad .* \d\.\de-09 rad, joint 'j2' <origin> rpy roll = 1\.57079633\)"
    with pytest.warns(bp.RoundOffWarning, match=note):
        rounded = bp.load_robot(arm(tmp_path, "1.570796330", name="rounded.urdf"))
    base = bp.find_base_parameters(rounded)
    assert base.exact and base.names == exact.names
    np.testing.assert_array_equal(base.Y, exact.Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # as written: no note
        kept = bp.load_robot(tmp_path / "rounded.urdf", exact_angles=False)
    assert kept.joints[1].origins[0].rpy[0] == 1.570796330 and not bp.find_base_parameters(kept).exact


def test_axis_at_45_degrees_is_exact_and_a_rounded_one_snaps(tmp_path):
    exact = bp.load_robot(arm(tmp_path, "0", "0 0.7071 0.7071"))
    assert exact.joints[1].axis == pytest.approx((0, math.sqrt(0.5), math.sqrt(0.5)), abs=1e-16)
    with pytest.warns(bp.RoundOffWarning, match="<axis xyz>"):
        rounded = bp.load_robot(arm(tmp_path, "0", "0 0.70710678 0.7071067", name="r.urdf"))
    assert rounded.joints[1].axis == exact.joints[1].axis
    reference = bp.find_base_parameters(exact)
    assert bp.find_base_parameters(rounded).names == reference.names


def test_root_and_tip(tmp_path):
    path = arm(tmp_path)
    with pytest.warns(bp.DescriptionWarning, match="j1"):
        sub = bp.load_robot(path, root="l1")
    assert [j.name for j in sub.joints] == ["j2", "j3"] and sub.gravity == (0.0, 0.0, -9.81)
    with pytest.warns(bp.DescriptionWarning, match="j2"):
        below = bp.load_robot(path, root="l2")          # gravity in l2's frame at q = 0: Rx(90°)ᵀ·g
    np.testing.assert_allclose(below.gravity, (0.0, -9.81, 0.0), atol=1e-15)
    assert [j.name for j in bp.load_robot(path, tip="l2").joints] == ["j1", "j2"]
    for options, match in (({"tip": "nowhere"}, "tip: no link named 'nowhere'"),      # the parameter, not --tip
                           ({"root": "l2", "tip": "l1"}, "not below the root"),
                           ({"root": "l9"}, "root: no link named 'l9'")):
        with pytest.raises(bp.RobotDescriptionError, match=match), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bp.load_robot(path, **options)


# -- malformed files --------------------------------------------------------------------------------------------------
def cli(*args):
    """``baseparam ARGS…`` in this process: the same streams and exit status as a process of its own (which imported
    the library again for each of these nine runs)."""
    return run_in_process(*args)


GOOD = ARM.replace("RPY", "0").replace("AXIS", "0 0 1")
BROKEN = {
    "not xml": ("robot: yes", "not well-formed XML at line 1"),
    "truncated": (GOOD[:200], "not well-formed XML"),
    "doctype": ('<!DOCTYPE r [<!ENTITY a "aaaa">]>' + GOOD, "DOCTYPE declarations are refused"),
    "root element": (GOOD.replace("<robot", "<robt").replace("</robot>", "</robt>"), "<robt>: expected <robot>"),
    "no parent": (GOOD.replace('<parent link="l1"/>', ""), "joint 'j2' <parent link>: required"),
    "unknown link": (GOOD.replace('<child link="l3"/>', '<child link="l4"/>'), "joint 'j3': names link 'l4'"),
    "cycle": (GOOD.replace('<parent link="base"/><child link="l1"/>', '<parent link="l3"/><child link="l1"/>'),
              "form a cycle"),
    "two roots": (GOOD.replace('<link name="base"/>', '<link name="base"/><link name="extra"/>'), "2 root links"),
    "duplicate": (GOOD.replace('<link name="l3"/>', '<link name="l3"/><link name="l3"/>'), "link 'l3': defined twice"),
    "nan": (GOOD.replace('xyz="0.4 0 0"', 'xyz="nan 0 0"'), "joint 'j3' <origin xyz>: expected 3 finite numbers"),
    "word": (GOOD.replace('xyz="0.4 0 0"', 'xyz="abc 0 0"'), "joint 'j3' <origin xyz>: expected 3 finite numbers"),
    "two values": (GOOD.replace('xyz="0.4 0 0"', 'xyz="0.4 0"'), "got '0.4 0'"),
    "zero axis": (GOOD.replace('<axis xyz="0 1 0"/>', '<axis xyz="0 0 0"/>'),
                  "joint 'j3' <axis xyz>: expected a direction"),
    "mimic": (GOOD.replace('<axis xyz="0 1 0"/>', '<axis xyz="0 1 0"/><mimic joint="j2"/>'), "a mimic joint"),
    "floating": (GOOD.replace('type="continuous"', 'type="floating"'), "a floating joint"),
    "planar": (GOOD.replace('type="continuous"', 'type="planar"'), "a planar joint"),
    "negative mass": (GOOD.replace('<link name="l3"/>',
                                   '<link name="l3"><inertial><mass value="-1"/></inertial></link>'),
                      "link 'l3' <inertial><mass value>: expected a mass ≥ 0"),
    "unknown type": (GOOD.replace('type="continuous"', 'type="ball"'), "joint 'j3' type: expected revolute"),
    "no joints": ('<robot name="x"><link name="a"/></robot>', "no revolute, continuous or prismatic joint"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_malformed_urdf_is_refused_naming_the_element(tmp_path, case):
    text, expected = BROKEN[case]
    path = tmp_path / "bad.urdf"
    path.write_text(text)
    with pytest.raises(bp.RobotDescriptionError) as info:
        bp.load_robot(path)
    assert expected in str(info.value) and str(info.value).startswith(str(path))


@pytest.mark.parametrize("case", ["not xml", "cycle", "nan", "mimic", "planar"])
def test_malformed_urdf_through_the_cli(tmp_path, case):
    path = tmp_path / "bad.urdf"
    path.write_text(BROKEN[case][0])
    out = cli("find", path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert all(line.startswith(f"baseparam: {path}: ") for line in out.stderr.splitlines())
    assert BROKEN[case][1] in out.stderr


def test_independent_problems_all_reported(tmp_path):
    text = (GOOD.replace('xyz="0.4 0 0"', 'xyz="abc 0 0"').replace('<axis xyz="0 0 1"/>', '<axis xyz="0 0 0"/>')
            .replace('<link name="l3"/>', '<link name="l3"><inertial><mass value="nan"/></inertial></link>'))
    path = tmp_path / "three.urdf"
    path.write_text(text)
    out = cli("find", path)
    lines = out.stderr.splitlines()
    assert out.returncode == 2 and len(lines) == 1, out.stderr        # one line, all problems in it
    assert lines[0].startswith(f"baseparam: {path}: 4 problems: "), lines[0]   # the zero axis is on two joints
    for what in ("link 'l3' <inertial><mass value>", "joint 'j1' <axis xyz>", "joint 'j2' <axis xyz>",
                 "joint 'j3' <origin xyz>"):
        assert lines[0].count(what) == 1, what


def test_root_and_tip_options_through_the_cli(tmp_path):
    path = arm(tmp_path)
    out = cli("find", path, "--tip", "l2", "--json", "-")
    assert out.returncode == 0 and '"standard": [' in out.stdout and "XX3" not in out.stdout
    assert cli("find", path, "--tip", "nope").returncode == 2


@needs_data
@pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning")   # the data's, not the URDF's
def test_identification_from_the_urdf_predicts_as_the_dh_file():
    """The KUKA LWR4+ data fitted with the URDF (its link frames, friction declared) and with the DH file:
    different frames and regroupings, the same torque predictions."""
    lwr = DATA / "kuka_lwr4"
    train, validate = str(lwr / "measurements_3.npz"), str(lwr / "measurements_1.npz")
    urdf = bp.identify(quiet_load(lwr / "kuka_lwr4.urdf", friction=True), train, validate=validate)
    dh = bp.identify(bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml"), train, validate=validate)
    assert len(urdf.estimator.base_.names) == len(dh.estimator.base_.names) == 64
    np.testing.assert_allclose(urdf.validation.nrmse_percent, dh.validation.nrmse_percent, rtol=1e-8)
    np.testing.assert_allclose(urdf.train.nrmse_percent, dh.train.nrmse_percent, rtol=1e-8)


def test_parse_robot_reads_urdf_text(tmp_path):
    path = arm(tmp_path)
    assert bp.parse_robot(path.read_text(), "arm.urdf").signature() == bp.load_robot(path).signature()


def test_long_chains_of_fixed_joints_and_too_many_joints(tmp_path):
    """3000 links (no recursion limit on the way), and more than 64 moving joints refused naming --tip."""
    links = "".join(f'<link name="l{i}"><inertial><mass value="0.1"/><inertia ixx="0.001" iyy="0.001" izz="0.001"/>'
                    f"</inertial></link>" for i in range(3001))
    joints = "".join(f'<joint name="j{i}" type="{"revolute" if i % 1000 == 0 else "fixed"}"><parent link="l{i}"/>'
                     f'<child link="l{i + 1}"/><origin xyz="0 0 0.01"/><axis xyz="0 1 0"/></joint>'
                     for i in range(3000))
    path = tmp_path / "long.urdf"
    path.write_text(f'<robot name="long">{links}{joints}</robot>')
    robot = bp.load_robot(path)
    assert robot.n_dof == 3 and robot.joints[0].inertia.mass == pytest.approx(100.0)
    many = tmp_path / "many.urdf"
    many.write_text('<robot name="many">' + "".join(f'<link name="l{i}"/>' for i in range(101))
                    + "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
                              "</joint>" for i in range(100)) + "</robot>")
    with pytest.raises(bp.RobotDescriptionError, match="100 moving joints .* more than 64; pick .* tip='LINK'"):
        bp.load_robot(many)


def test_whole_turns_and_round_off_in_origins(tmp_path):
    """rpy beyond ±2π is the same rotation less whole turns (as other readers take it), a 1e-13 m shift is 0;
    an rpy of 700 is not radians."""
    path = arm(tmp_path, rpy=repr(5 * math.pi / 2))
    with pytest.warns(bp.RoundOffWarning, match="less whole turns"):
        turned = bp.load_robot(path)
    reference = bp.load_robot(arm(tmp_path, name="quarter.urdf"))
    assert turned.signature() == reference.signature()
    path.write_text(ARM.replace("RPY", "700").replace("AXIS", "0 0 1"))
    with pytest.raises(bp.RobotDescriptionError, match=r"joint 'j2' <origin rpy>: expected angles in radians"):
        bp.load_robot(path)


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_not_utf8_names_the_files_own_byte_offset_and_line(tmp_path, bom):
    """The byte, offset and line are the file's, with or without a byte-order mark (which 'utf-8-sig' strips
    before it counts positions): the bad byte right after a newline, where a shift of 3 also miscounts the line."""
    data = bom + b'<robot name="r">\n\xff<link name="a"/>\n</robot>\n'
    path = tmp_path / "r.urdf"
    path.write_bytes(data)
    with pytest.raises(bp.RobotDescriptionError) as err:
        bp.load_robot(path)
    offset = data.index(b"\xff")
    assert f"line 2: not UTF-8 text (byte 0xff at offset {offset})" in str(err.value), str(err.value)
