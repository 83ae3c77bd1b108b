"""Mimic joints locked at q = 0 or read as independent joints, and floating bases with chosen tips (issue 27),
against pinocchio.

A URDF ``<mimic>`` joint (q_m = k·q_j + o) has no coordinate of its own; baseparam locks it at q = 0, as
it locks the joints off the paths to the tips (and as the URDF written back places them), its links
weighing on the body that carries it, and says so in one warning line. The same robot in pinocchio is its
own reading of the URDF (``buildModelFromUrdf``, whose default, ``mimic=False``, makes mimic joints
independent joints) with those joints locked at q = 0 by ``buildReducedModel``: the ranks must be the
numeric rank of that model's stacked regressor, and every body pinocchio's lumped body, with a fixed base
and with a free-flyer root, on public humanoids (talos full, romeo), pr2, a panda with its mimic finger
and alex's hands.

With ``mimic='independent'`` every mimic joint is a joint with a coordinate of its own, pinocchio's default
reading (``buildModelFromUrdf(path[, JointModelFreeFlyer()])``, ``mimic=False``): the ranks must be that model's
numeric rank, every body its body, the regressor times the file's inertias its ``rnea``, and the base regressor
must reproduce the full one at random states (the regroupings).
"""
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import EXAMPLES

pin = pytest.importorskip("pinocchio")
needs_examples = pytest.mark.skipif(not EXAMPLES, reason="example-robot-data is not installed")
MIMIC_ROBOTS = {"talos_full_v2.urdf": 12, "romeo.urdf": 22, "pr2.urdf": 10, "panda.urdf": 1,
                "alex_psyonic_hands.urdf": 8}
MOVING = ("revolute", "continuous", "prismatic")


def urdf_joints(path):
    """(name, parent link, child link, <mimic offset> text ("0" if absent) or None) of every moving joint, read
    with the XML parser alone."""
    root = ET.parse(path).getroot()
    return [(j.get("name"), j.find("parent").get("link"), j.find("child").get("link"),
             j.find("mimic").get("offset", "0") if j.find("mimic") is not None else None)
            for j in root.findall("joint") if j.get("type") in MOVING]


def locked_joints(path, tips=None):
    """The moving joints pinocchio locks, with the q they are locked at (0): the mimic ones, and with tips
    those off the paths to them."""
    joints = urdf_joints(path)
    locked = {name: 0.0 for name, _, _, offset in joints if offset is not None}
    if tips is not None:
        parent_joint = {child: (name, parent) for name, parent, child, _ in joints}
        fixed_parent = {j.find("child").get("link"): j.find("parent").get("link")
                        for j in ET.parse(path).getroot().findall("joint") if j.get("type") not in MOVING}
        on_paths = set()
        for link in tips:
            while link in parent_joint or link in fixed_parent:
                if link in parent_joint:
                    on_paths.add(parent_joint[link][0])
                    link = parent_joint[link][1]
                else:
                    link = fixed_parent[link]
        locked.update({name: 0.0 for name, _, _, _ in joints if name not in on_paths and name not in locked})
    return locked


def reduced_model(path, floating, locked):
    """pinocchio's own model of the URDF (mimic joints read as independent joints, its default) with the
    `locked` joints held at their q (buildReducedModel)."""
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else \
        pin.buildModelFromUrdf(str(path))
    q = pin.neutral(model)
    ids = []
    for name, value in sorted(locked.items()):
        joint = model.joints[model.getJointId(name)]
        assert model.getJointId(name) < model.njoints
        if value != 0:            # q = 0 is pinocchio's neutral (a continuous joint's (cos, sin) = (1, 0))
            assert joint.nq == 1
            q[joint.idx_q] = value
        ids.append(model.getJointId(name))
    return pin.buildReducedModel(model, ids, q)


def pinocchio_rank(path, floating, locked, seed=0):
    """Numeric rank (and the gap at it) of pinocchio's stacked regressor of the reduced model, and its nv."""
    model = reduced_model(path, floating, locked)
    data, rng = model.createData(), np.random.default_rng(seed)
    n_samples = 30 * (model.njoints - 1) // model.nv + 5
    W = []
    for _ in range(n_samples):
        q = pin.randomConfiguration(model, -np.pi * np.ones(model.nq), np.pi * np.ones(model.nq))
        W.append(pin.computeJointTorqueRegressor(model, data, q, rng.normal(size=model.nv),
                                                 rng.normal(size=model.nv)).copy())
    W = np.vstack(W)
    norms = np.linalg.norm(W, axis=0)
    W = W[:, norms > 1e-12 * norms.max()]
    s = np.linalg.svd(W / np.linalg.norm(W, axis=0), compute_uv=False)
    rank = int((s > s[0] * 1e-9).sum())
    return rank, (s[rank - 1] / s[rank] if rank < s.size else np.inf), model.nv


def check_bodies_equal_pinocchio(robot, model):
    """Every body (the floating base's too) as pinocchio's reduced model lumps it: mass, centre of mass and
    inertia about it, in the moving joint's child link frame (pinocchio's joint frame)."""
    bodies = [(j.name, j.inertia) for j in robot.joints]
    if robot.is_floating:
        bodies.append(("root_joint", robot.base_inertia))
    for name, ours in bodies:
        theirs = model.inertias[model.getJointId(name)]
        scale = max(theirs.mass, 1e-300)
        assert ours.mass == pytest.approx(theirs.mass, rel=1e-12, abs=1e-15), name
        np.testing.assert_allclose(ours.mass * np.asarray(ours.com), theirs.mass * theirs.lever,
                                   atol=1e-12 * scale, err_msg=name)
        np.testing.assert_allclose(ours.inertia, theirs.inertia, atol=1e-10 * max(np.abs(theirs.inertia).max(), 1e-9),
                                   err_msg=name)


def load_noting_warnings(path, **options):
    """The robot (mimic joints locked unless told otherwise) and the DescriptionWarning lines on mimic joints."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        robot = bp.load_robot(path, **{"mimic": "lock", **options})
    return robot, [str(w.message) for w in caught if issubclass(w.category, bp.DescriptionWarning)
                   and "mimic joint" in str(w.message)]


@needs_examples
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("name", sorted(MIMIC_ROBOTS))
def test_mimic_joints_locked_rank_equals_pinocchio_reduced_model(name, floating):
    path = EXAMPLES[name]
    locked = locked_joints(path)
    assert len(locked) == MIMIC_ROBOTS[name]
    robot, notes = load_noting_warnings(path, floating=floating)
    base = bp.find_base_parameters(robot)
    rank, gap, nv = pinocchio_rank(path, floating, locked)
    assert gap > 1e6          # pinocchio's numeric rank is clear-cut
    assert robot.is_floating == floating and robot.n_dof + 6 * floating == nv
    assert {j.name for j in robot.joints}.isdisjoint(locked)
    assert base.rank == rank
    check_bodies_equal_pinocchio(robot, reduced_model(path, floating, locked))
    assert len(notes) == 1 and f"{len(locked)} mimic joint" in notes[0]
    assert "locked at q = 0 as joints off the paths to the tips are" in notes[0]
    offsets = [o for _, _, _, o in urdf_joints(path) if o is not None and float(o) != 0]
    assert (f"({len(offsets)} with a <mimic offset>" in notes[0]) == bool(offsets)
    assert notes[0].startswith(str(path)) and "\n" not in notes[0]


def urdf_mass(path):
    """The sum of the file's <mass> values."""
    return sum(float(link.find("inertial/mass").get("value")) for link in ET.parse(path).getroot().findall("link")
               if link.find("inertial/mass") is not None)


@needs_examples
@pytest.mark.parametrize("name", sorted(MIMIC_ROBOTS))
def test_mimic_joints_carry_their_links_mass(name):
    """Locked, a mimic joint's links still weigh on the body carrying them: the whole mass is the file's."""
    robot, _ = load_noting_warnings(EXAMPLES[name], floating=True)
    assert robot.base_inertia.mass + sum(j.inertia.mass for j in robot.joints) == \
        pytest.approx(urdf_mass(EXAMPLES[name]), rel=1e-12)


@needs_examples
@pytest.mark.parametrize("name, tips", [
    ("talos_full_v2.urdf", ["left_sole_link", "right_sole_link"]),           # a humanoid's legs
    ("romeo.urdf", ["LAnklePitchLink", "RAnklePitchLink", "LWristRollLink"]),
    ("pr2.urdf", ["r_gripper_l_finger_tip_link"]),                     # a path through mimic joints
])
def test_floating_with_tips_rank_equals_pinocchio_reduced_model(name, tips):
    path = EXAMPLES[name]
    links = {link.get("name") for link in ET.parse(path).getroot().findall("link")}
    assert set(tips) <= links
    robot, _ = load_noting_warnings(path, floating=True, tip=tips)
    locked = locked_joints(path, tips)
    assert robot.is_floating and robot.n_dof == len(urdf_joints(path)) - len(locked)
    base = bp.find_base_parameters(robot)
    rank, gap, nv = pinocchio_rank(path, True, locked)
    assert gap > 1e6 and nv == robot.n_dof + 6 and base.rank == rank
    check_bodies_equal_pinocchio(robot, reduced_model(path, True, locked))
    # the whole robot's mass is kept, on the base and the bodies carrying the locked joints
    assert robot.base_inertia.mass + sum(j.inertia.mass for j in robot.joints) == \
        pytest.approx(urdf_mass(path), rel=1e-12)


@needs_examples
def test_find_floating_with_tip_cli():
    path = EXAMPLES["talos_full_v2.urdf"]
    result = CliRunner().invoke(main, ["find", str(path), "--floating", "--tip", "left_sole_link,right_sole_link",
                                       "--mimic", "lock"])
    assert result.exit_code == 0, result.output
    robot, _ = load_noting_warnings(path, floating=True, tip="left_sole_link,right_sole_link")
    base = bp.find_base_parameters(robot)
    assert robot.n_dof == 12
    assert f"{base.rank} base parameters of {len(base.standard_names)} standard" in result.output
    assert f"{base.rank} of the {base.rank}" in result.output


@needs_examples
def test_mimic_warning_through_the_cli():
    result = CliRunner().invoke(main, ["find", str(EXAMPLES["panda.urdf"]), "--mimic", "lock"])
    assert result.exit_code == 0, result.output
    assert "1 mimic joint ('panda_finger_joint2') locked at q = 0" in result.output


@needs_examples
def test_mimic_joints_refused_by_default_naming_the_option():
    """The contract's default: a URDF with a mimic joint is refused in one line (exit 2), which names the way to
    lock them."""
    result = CliRunner().invoke(main, ["find", str(EXAMPLES["panda.urdf"])])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "joint 'panda_finger_joint2': a mimic joint" in lines[0]
    assert "--mimic lock" in lines[0] and "mimic='lock'" not in lines[0]
    assert "--mimic independent" in lines[0] and "mimic='independent'" not in lines[0]
    with pytest.raises(bp.RobotDescriptionError, match=r"a mimic joint .*mimic='lock'"):
        bp.load_robot(EXAMPLES["panda.urdf"], floating=True)
    with pytest.raises(bp.ArgumentError, match=r"mimic: expected 'refuse', 'lock' or 'independent', got 'free'"):
        bp.load_robot(EXAMPLES["panda.urdf"], mimic="free")


SKEW = """<robot name="skew">
  <link name="base"/>
  <link name="l1"><inertial><origin xyz="0.1 0 0.2"/><mass value="2"/>
    <inertia ixx="0.03" ixy="0.001" ixz="0" iyy="0.04" iyz="0.002" izz="0.05"/></inertial></link>
  <link name="l2"><inertial><origin xyz="0.05 0.1 0" rpy="0.2 0.1 0"/><mass value="1.5"/>
    <inertia ixx="0.02" ixy="0" ixz="0.001" iyy="0.03" iyz="0" izz="0.025"/></inertial></link>
  <link name="l3"><inertial><origin xyz="0 0.2 0.1"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.015"/></inertial></link>
  <link name="l4"><inertial><origin xyz="0.1 0.1 0.1"/><mass value="0.5"/>
    <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.005" iyz="0" izz="0.006"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>LIMIT</joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0 0.1 0.3" rpy="0.3 0 0"/>
    <axis xyz="0.3 0.5 0.8"/><mimic joint="j1" multiplier="-1" offset="OFFSET"/>LIMIT</joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/><origin xyz="0.4 0 0"/>
    <axis xyz="0 1 0"/>LIMIT</joint>
  <joint name="j4" type="prismatic"><parent link="l3"/><child link="l4"/><origin xyz="0 0 0.2"/>
    <axis xyz="0.6 0 0.8"/><mimic joint="j3" offset="PRISMATIC"/>LIMIT</joint>
</robot>
""".replace("LIMIT", '<limit lower="-3" upper="3" effort="1" velocity="1"/>')  # urdfdom wants limits


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("offset, prismatic", [("0.4", "0.05"), ("-1.2", "0"), ("0", "0"), ("abc", "nan")])
def test_mimic_joints_about_any_axis_locked_as_pinocchio_locks_them(tmp_path, offset, prismatic, floating):
    """A revolute mimic joint about a skew axis and a prismatic one, locked at q = 0 whatever their offsets
    (named in the note): the bodies are pinocchio's with the joints locked there, the rank its numeric rank."""
    path = tmp_path / "skew.urdf"
    path.write_text(SKEW.replace("OFFSET", offset).replace("PRISMATIC", prismatic))
    robot, notes = load_noting_warnings(path, floating=floating)
    assert [j.name for j in robot.joints] == ["j1", "j3"] and len(notes) == 1
    assert "2 mimic joints ('j2', 'j4') locked at q = 0" in notes[0]
    shifted = (offset != "0") + (prismatic != "0")
    assert (f"({shifted} with a <mimic offset>, e.g. " in notes[0]) == bool(shifted)
    locked = locked_joints(path)
    assert locked == {"j2": 0.0, "j4": 0.0}
    if offset == "abc":
        return        # urdfdom refuses the file; ours reads it (the offset is not used)
    check_bodies_equal_pinocchio(robot, reduced_model(path, floating, locked))
    rank, gap, _ = pinocchio_rank(path, floating, locked)
    assert gap > 1e6 and bp.find_base_parameters(robot).rank == rank


# -- mimic='independent': pinocchio's default reading ------------------------------------------------------
def pinocchio_states(robot, model, n, rng):
    """Random states of the robot (our q: angles, a floating base's position and unit quaternion first) and the
    same states in pinocchio's q, v (a continuous joint's (cos, sin)); and our rows among pinocchio's v."""
    names = list(model.names)
    ids = [names.index(j.name) for j in robot.joints]                  # our joint k → pinocchio's joint id
    base = 6 if robot.is_floating else 0
    rows = np.r_[np.arange(base), [model.joints[i].idx_v for i in ids]].astype(int)
    out = []
    for _ in range(n):
        angles = rng.uniform(-np.pi, np.pi, robot.n_dof)
        qp = np.empty(model.nq)
        if robot.is_floating:
            quat = rng.normal(size=4)
            qp[:7] = np.r_[rng.uniform(-1, 1, 3), quat / np.linalg.norm(quat)]
        for value, i in zip(angles, ids):
            at = model.joints[i].idx_q
            if model.joints[i].nq == 2:                                 # continuous: (cos, sin)
                qp[at:at + 2] = np.cos(value), np.sin(value)
            else:
                qp[at] = value
        v, a = np.empty(model.nv), np.empty(model.nv)
        v[rows], a[rows] = rng.normal(size=robot.n_v), rng.normal(size=robot.n_v)
        q = np.r_[qp[:7], angles] if robot.is_floating else angles
        out.append((q, v[rows], a[rows], qp, v, a))
    return out, rows


@needs_examples
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("name", sorted(MIMIC_ROBOTS))
def test_mimic_joints_independent_rank_equals_pinocchio_default_model(name, floating):
    """Every mimic joint a joint of its own: the joints, bodies and numeric rank of pinocchio's default model
    (mimic joints independent), fixed and with a free-flyer root; one warning line names them."""
    path = EXAMPLES[name]
    mimics = locked_joints(path)
    robot, notes = load_noting_warnings(path, floating=floating, mimic="independent")
    model = reduced_model(path, floating, {})                           # nothing locked: pinocchio's own model
    assert robot.is_floating == floating and robot.n_v == model.nv
    assert {j.name for j in robot.joints} == set(model.names[2 if floating else 1:])
    assert set(mimics) <= {j.name for j in robot.joints}
    check_bodies_equal_pinocchio(robot, model)
    rank, gap, _ = pinocchio_rank(path, floating, {})
    assert gap > 1e6                                                    # pinocchio's numeric rank is clear-cut
    assert bp.find_base_parameters(robot).rank == rank
    assert len(notes) == 1 and f"{len(mimics)} mimic joint" in notes[0] and "read as independent joints" in notes[0]
    assert notes[0].startswith(str(path)) and "\n" not in notes[0]


@needs_examples
@pytest.mark.parametrize("name, floating", [("panda.urdf", False), ("pr2.urdf", True), ("talos_full_v2.urdf", True)])
def test_mimic_joints_independent_dynamics_and_regroupings_against_pinocchio(name, floating):
    """The regressor times the file's inertias is pinocchio's rnea of its default model (mimic joints free), and
    the base regressor at Y·p reproduces the full regressor at any p (the regroupings), at random states."""
    path = EXAMPLES[name]
    robot, _ = load_noting_warnings(path, floating=floating, mimic="independent")
    model = reduced_model(path, floating, {})
    model.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    data, rng = model.createData(), np.random.default_rng(11)
    base = bp.find_base_parameters(robot)
    p_true = bp.standard_parameters(robot)
    p_any = rng.normal(size=(len(base.standard_names), 3))
    states, rows = pinocchio_states(robot, model, 3, rng)
    q, qd, qdd = (np.array([s[i] for s in states]) for i in range(3))
    W = bp.regressor(bp.Model(robot), q, qd, qdd)
    for s, (_, _, _, qp, v, a) in enumerate(states):
        expected = pin.rnea(model, data, qp, v, a)[rows]
        np.testing.assert_allclose(W[s] @ p_true, expected, rtol=0, atol=1e-9 * np.abs(expected).max())
        np.testing.assert_allclose(W[s][:, base.pivots] @ (base.Y @ p_any), W[s] @ p_any, rtol=0,
                                   atol=1e-9 * np.abs(W[s] @ p_any).max())


def test_mimic_joints_independent_any_axis_and_offset(tmp_path):
    """A revolute mimic joint about a skew axis and a prismatic one, offsets and all, read as joints of their own,
    numbered depth first: pinocchio's default model (its bodies and numeric rank), and the CLI's warning line."""
    path = tmp_path / "skew.urdf"
    path.write_text(SKEW.replace("OFFSET", "0.4").replace("PRISMATIC", "0.05"))
    for floating in (False, True):
        robot, notes = load_noting_warnings(path, floating=floating, mimic="independent")
        assert [j.name for j in robot.joints] == ["j1", "j2", "j3", "j4"]
        assert [j.type for j in robot.joints] == ["revolute", "revolute", "revolute", "prismatic"]
        assert "2 mimic joints ('j2', 'j4') read as independent joints" in notes[0]
        check_bodies_equal_pinocchio(robot, reduced_model(path, floating, {}))
        rank, gap, _ = pinocchio_rank(path, floating, {})
        assert gap > 1e6 and bp.find_base_parameters(robot).rank == rank
    result = CliRunner().invoke(main, ["find", str(path), "--floating", "--mimic", "independent"])
    assert result.exit_code == 0, result.output
    assert "2 mimic joints ('j2', 'j4') read as independent joints" in result.output
    assert f"{bp.find_base_parameters(robot).rank} base parameters of" in result.output


@needs_examples
def test_mimic_joints_independent_with_tips_rank_equals_pinocchio_reduced_model():
    """With tips, a mimic joint on a path to a tip is a joint of its own and one off the paths is locked at q = 0
    as any joint there: pinocchio's default model with the joints off the paths locked (pr2's gripper, whose
    finger tip joint mimics the finger joint)."""
    path, tips = EXAMPLES["pr2.urdf"], ["r_gripper_l_finger_tip_link"]
    robot, notes = load_noting_warnings(path, floating=True, tip=tips, mimic="independent")
    mimics = set(locked_joints(path))
    off_paths = {name: q for name, q in locked_joints(path, tips).items() if name not in mimics}
    on_paths = {name for name, _, _, _ in urdf_joints(path)} - set(locked_joints(path, tips))
    kept_mimics = {"r_gripper_l_finger_tip_joint"}
    locked = {**off_paths, **{name: 0.0 for name in mimics - kept_mimics}}
    assert {j.name for j in robot.joints} == on_paths | kept_mimics
    assert len(notes) == 1 and "1 mimic joint ('r_gripper_l_finger_tip_joint') read as independent" in notes[0]
    model = reduced_model(path, True, locked)
    check_bodies_equal_pinocchio(robot, model)
    rank, gap, nv = pinocchio_rank(path, True, locked)
    assert gap > 1e6 and nv == robot.n_v and bp.find_base_parameters(robot).rank == rank
