"""Mimic joints locked at q = 0, and floating bases with chosen tips (issue 27), against pinocchio.

A URDF ``<mimic>`` joint has no coordinate of its own; baseparam holds it at q = 0, its links weighing on
the body that carries it, and says so in one warning line. The same robot in pinocchio is its own reading
of the URDF (``buildModelFromUrdf``, whose default, ``mimic=False``, makes mimic joints independent joints)
with those joints locked at q = 0 by ``buildReducedModel``: the ranks must be the numeric rank of that
model's stacked regressor, with a fixed base and with a free-flyer root, on public humanoids (talos full,
romeo), pr2 and a panda with its mimic finger.
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
MIMIC_ROBOTS = {"talos_full_v2.urdf": 12, "romeo.urdf": 22, "pr2.urdf": 10, "panda.urdf": 1}
MOVING = ("revolute", "continuous", "prismatic")


def urdf_joints(path):
    """(name, parent link, child link, is mimic) of every moving joint, read with the XML parser alone."""
    root = ET.parse(path).getroot()
    return [(j.get("name"), j.find("parent").get("link"), j.find("child").get("link"), j.find("mimic") is not None)
            for j in root.findall("joint") if j.get("type") in MOVING]


def locked_joints(path, tips=None):
    """The moving joints pinocchio locks: the mimic ones, and with tips those off the paths to them."""
    joints = urdf_joints(path)
    locked = {name for name, _, _, mimic in joints if mimic}
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
        locked |= {name for name, _, _, _ in joints if name not in on_paths}
    return locked


def pinocchio_rank(path, floating, locked, seed=0):
    """Numeric rank (and the gap at it) of pinocchio's stacked regressor of the URDF with `locked` joints held
    at q = 0."""
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else \
        pin.buildModelFromUrdf(str(path))
    ids = [model.getJointId(name) for name in sorted(locked)]
    assert all(i < model.njoints for i in ids)
    model = pin.buildReducedModel(model, ids, pin.neutral(model))
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


def load_noting_warnings(path, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        robot = bp.load_robot(path, **options)
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
    assert len(notes) == 1 and f"{len(locked)} mimic joint" in notes[0] and "locked at q = 0" in notes[0]
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
    # the whole robot's mass is kept, on the base and the bodies carrying the locked joints
    assert robot.base_inertia.mass + sum(j.inertia.mass for j in robot.joints) == \
        pytest.approx(urdf_mass(path), rel=1e-12)


@needs_examples
def test_find_floating_with_tip_cli():
    path = EXAMPLES["talos_full_v2.urdf"]
    result = CliRunner().invoke(main, ["find", str(path), "--floating", "--tip", "left_sole_link,right_sole_link"])
    assert result.exit_code == 0, result.output
    robot, _ = load_noting_warnings(path, floating=True, tip="left_sole_link,right_sole_link")
    base = bp.find_base_parameters(robot)
    assert robot.n_dof == 12
    assert f"{base.rank} base parameters of {len(base.standard_names)} standard" in result.output
    assert f"{base.rank} of the {base.rank}" in result.output


@needs_examples
def test_mimic_warning_through_the_cli():
    result = CliRunner().invoke(main, ["find", str(EXAMPLES["panda.urdf"])])
    assert result.exit_code == 0, result.output
    assert "1 mimic joint ('panda_finger_joint2') locked at q = 0" in result.output
