"""robots/ur10e.yaml and robots/kuka_lwr4.yaml reproduce the URDFs of the measured data.

The two DH descriptions claim (../shared/data/README.md) to be the standard-DH equivalents of
``ur10e/ur10e.urdf`` and ``kuka_lwr4/kuka_lwr4.urdf`` *with the same joint angles as the data*:

* UR10e: DH base frame = URDF ``base`` (``base_link`` turned 180° about z), DH frame 6 = ``tool0``;
* KUKA LWR4+: DH base frame = ``lwr_base_link``; DH frame 7 has the origin and z axis of the
  joint-7 frame (``lwr_7_link``).

Checked at 50 random joint configurations, tolerance 1e-9 (m, or unit vectors), against two
independent forward kinematics of the URDF:

1. a URDF chain parsed here with ``xml.etree.ElementTree`` (origin xyz/rpy and axis of every
   joint, fixed joints included) and plain numpy products;
2. pinocchio (``pin.buildModelFromUrdf``), skipped when pinocchio is not installed.

The DH side is the standard DH product Rz(θ)Tz(d)Tx(a)Rx(α) written here from the loaded
robot's ``joints[k].alpha/a/d/theta/offset``, which are in the description's units
(``Robot.length_unit``/``angle_unit``), converted to SI here. Nothing of baseparam's
kinematics is used.

What is compared, for every joint i (DH frame i−1 carries joint i's axis on its z):

* ``axis_direction``: z of DH frame i−1 equals the URDF joint-i axis in the base frame *with
  sign* (a sign flip would reverse the joint angle, so the joint angles would no longer be the
  data's);
* ``axis_line``: the origin of DH frame i−1 lies on the URDF joint-i axis line;
* ``link_frames``: each DH link frame i is rigidly attached to the URDF link moved by joint i,
  i.e. inv(T_i^DH(q))·T_link_i^URDF(q) is the same for all q (this catches wrong offsets and
  reversed joints as well);
* ``tip``: the full pose (UR10e, DH 6 = tool0) or origin and z axis (KUKA, joint-7 frame);
* ``tool_motion``: turning joint i by +0.1 rad moves the tool point the same way in both models.

The tests can fail: perturbed copies of the descriptions (a changed ``d``, a negated twist, a
θ offset) must be rejected by the same comparison.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import baseparam as bp
from conftest import DATA, needs_data

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-9
N_CONFIGS = 50

CASES = {
    "ur10e": dict(yaml="ur10e.yaml", urdf="ur10e/ur10e.urdf", base="base", tip="tool0", full_tip_pose=True),
    "kuka_lwr4": dict(yaml="kuka_lwr4.yaml", urdf="kuka_lwr4/kuka_lwr4.urdf", base="lwr_base_link",
                      tip="lwr_7_link", full_tip_pose=False),
}
NAMES = sorted(CASES)
LENGTH = {"m": 1.0, "cm": 1e-2, "mm": 1e-3}
ANGLE = {"rad": 1.0, "deg": math.pi / 180.0}


def need_data(name):
    """The URDF of ``name`` in ../shared/data: the tests that call this carry ``needs_data``."""
    return DATA / CASES[name]["urdf"]


# -- small transforms ---------------------------------------------------------------------------------------
def rot(axis, angle):
    """4×4 rotation about a unit axis (Rodrigues)."""
    k = np.asarray(axis, float)
    k = k / np.linalg.norm(k)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    T = np.eye(4)
    T[:3, :3] = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * (K @ K)
    return T


def trans(v):
    T = np.eye(4)
    T[:3, 3] = v
    return T


def inv(T):
    out = np.eye(4)
    out[:3, :3] = T[:3, :3].T
    out[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return out


# -- URDF, parsed here --------------------------------------------------------------------------------------
def _floats(text, default):
    return np.array([float(x) for x in text.split()]) if text is not None else np.array(default, float)


class UrdfChain:
    """Forward kinematics of a URDF tree, from its XML (no pinocchio, no baseparam)."""

    def __init__(self, path, base, tip):
        tree = ET.parse(path).getroot()
        self.links = [ln.get("name") for ln in tree.findall("link")]
        self.joints = {}
        for j in tree.findall("joint"):
            origin = j.find("origin")
            axis = j.find("axis")
            self.joints[j.get("name")] = dict(
                type=j.get("type"), parent=j.find("parent").get("link"), child=j.find("child").get("link"),
                xyz=_floats(None if origin is None else origin.get("xyz"), [0, 0, 0]),
                rpy=_floats(None if origin is None else origin.get("rpy"), [0, 0, 0]),
                axis=_floats(None if axis is None else axis.get("xyz"), [1, 0, 0]))   # URDF default axis: x
        self.parent_joint = {j["child"]: name for name, j in self.joints.items()}
        roots = [ln for ln in self.links if ln not in self.parent_joint]
        assert len(roots) == 1, roots
        self.root = roots[0]
        self.base, self.tip = base, tip
        # the actuated joints on the path root → tip, in order; q is indexed in this order
        path_joints, link = [], tip
        while link != self.root:
            name = self.parent_joint[link]
            path_joints.append(name)
            link = self.joints[name]["parent"]
        self.movable = [n for n in reversed(path_joints) if self.joints[n]["type"] != "fixed"]
        for n in self.movable:
            assert self.joints[n]["type"] in ("revolute", "continuous"), n
        self.index = {n: i for i, n in enumerate(self.movable)}
        # the link each actuated joint moves (its child)
        self.moved_link = [self.joints[n]["child"] for n in self.movable]

    @staticmethod
    def origin(j):
        r, p, y = j["rpy"]
        return trans(j["xyz"]) @ rot([0, 0, 1], y) @ rot([0, 1, 0], p) @ rot([1, 0, 0], r)

    def link_poses(self, q):
        """Pose of every link in the root frame, and (joint frame, axis) of every actuated joint."""
        poses = {self.root: np.eye(4)}
        joint_frames = {}
        pending = list(self.joints.items())
        while pending:
            rest = []
            for name, j in pending:
                if j["parent"] not in poses:
                    rest.append((name, j))
                    continue
                F = poses[j["parent"]] @ self.origin(j)
                if j["type"] == "fixed":
                    poses[j["child"]] = F
                else:
                    qi = q[self.index[name]] if name in self.index else 0.0
                    joint_frames[name] = F
                    poses[j["child"]] = F @ rot(j["axis"], qi)
            assert len(rest) < len(pending), "URDF is not a tree"
            pending = rest
        return poses, joint_frames

    def kinematics(self, q):
        """In the base frame: actuated joints' (point, unit axis), moved links' poses, tip pose."""
        poses, frames = self.link_poses(q)
        B = inv(poses[self.base])
        axes = []
        for n in self.movable:
            F = B @ frames[n]
            a = F[:3, :3] @ self.joints[n]["axis"]
            axes.append((F[:3, 3], a / np.linalg.norm(a)))
        links = [B @ poses[ln] for ln in self.moved_link]
        return axes, links, B @ poses[self.tip]


class PinocchioChain:
    """The same interface computed by pinocchio from the URDF file."""

    def __init__(self, path, base, tip, moved_links, movable):
        import pinocchio as pin

        self.pin = pin
        self.model = pin.buildModelFromUrdf(str(path))
        self.data = self.model.createData()
        self.jids = [self.model.getJointId(n) for n in movable]
        assert all(0 < j < self.model.njoints for j in self.jids), movable
        assert self.model.nq == self.model.nv == len(movable)
        self.base = self.model.getFrameId(base)
        self.tip = self.model.getFrameId(tip)
        self.links = [self.model.getFrameId(ln) for ln in moved_links]
        assert all(f < self.model.nframes for f in [self.base, self.tip, *self.links])

    def kinematics(self, q):
        pin, model, data = self.pin, self.model, self.data
        qp = np.zeros(model.nq)
        for i, jid in enumerate(self.jids):
            qp[model.idx_qs[jid]] = q[i]
        pin.computeJointJacobians(model, data, qp)      # also runs the forward kinematics
        pin.updateFramePlacements(model, data)
        B = inv(data.oMf[self.base].homogeneous)
        axes = []
        for jid in self.jids:
            # the joint's unit twist in world axes: its angular part is the axis, with pinocchio's sign
            Jw = pin.getJointJacobian(model, data, jid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)[3:, model.idx_vs[jid]]
            a = B[:3, :3] @ Jw
            p = (B @ np.append(data.oMi[jid].translation, 1.0))[:3]
            axes.append((p, a / np.linalg.norm(a)))
        links = [B @ data.oMf[f].homogeneous for f in self.links]
        return axes, links, B @ data.oMf[self.tip].homogeneous


# -- DH, computed here ----------------------------------------------------------------------------------------
def dh_frames(robot, q):
    """T_0 = 1, T_1 … T_n of a standard-DH chain, from the joints' description-unit numbers."""
    assert robot.convention == "standard" and robot.is_chain
    ls, an = LENGTH[robot.length_unit], ANGLE[robot.angle_unit]
    out = [np.eye(4)]
    for j, qk in zip(robot.joints, q):
        assert j.is_revolute
        theta = qk + j.offset * an
        A = rot([0, 0, 1], theta) @ trans([0, 0, j.d * ls]) @ trans([j.a * ls, 0, 0]) @ rot([1, 0, 0], j.alpha * an)
        out.append(out[-1] @ A)
    return out


# -- the comparison -------------------------------------------------------------------------------------------
def compare(robot, chain, case, qs):
    """Largest deviation of each kind (see the module docstring) over the configurations qs."""
    err = dict(axis_direction=0.0, axis_line=0.0, link_frames=0.0, tip=0.0, tool_motion=0.0)
    offsets = None
    for q in qs:
        T = dh_frames(robot, q)
        axes, links, tip = chain.kinematics(q)
        assert len(axes) == robot.n_dof
        for i, (p, a) in enumerate(axes):
            z, o = T[i][:3, 2], T[i][:3, 3]
            err["axis_direction"] = max(err["axis_direction"], np.abs(z - a).max())
            err["axis_line"] = max(err["axis_line"], np.abs(np.cross(o - p, a)).max())
        X = [inv(Ti) @ Li for Ti, Li in zip(T[1:], links)]
        if offsets is None:
            offsets = X
        err["link_frames"] = max(err["link_frames"], max(np.abs(x - x0).max() for x, x0 in zip(X, offsets)))
        if case["full_tip_pose"]:
            e = np.abs(T[-1] - tip).max()
        else:
            e = max(np.abs(T[-1][:3, 3] - tip[:3, 3]).max(), np.abs(T[-1][:3, 2] - tip[:3, 2]).max())
        err["tip"] = max(err["tip"], e)
    # +δ on joint i moves the tool point the same way in both models
    for q in qs[:5]:
        p_dh, p_urdf = dh_frames(robot, q)[-1][:3, 3], chain.kinematics(q)[2][:3, 3]
        for i in range(robot.n_dof):
            dq = np.array(q, float)
            dq[i] += 0.1
            m_dh = dh_frames(robot, dq)[-1][:3, 3] - p_dh
            m_urdf = chain.kinematics(dq)[2][:3, 3] - p_urdf
            err["tool_motion"] = max(err["tool_motion"], np.abs(m_dh - m_urdf).max())
    return err


def configurations(name, n_dof, n=N_CONFIGS):
    rng = np.random.default_rng(sum(map(ord, name)))
    return rng.uniform(-math.pi, math.pi, (n, n_dof))


def setup(name):
    case = CASES[name]
    path = need_data(name)
    robot = bp.load_robot(ROOT / "robots" / case["yaml"])
    return robot, UrdfChain(path, case["base"], case["tip"]), case, configurations(name, robot.n_dof)


def assert_agree(err):
    bad = {k: v for k, v in err.items() if not v < TOL}
    assert not bad, f"DH description and URDF disagree: {bad} (tolerance {TOL})"


# -- tests ----------------------------------------------------------------------------------------------------
def test_units_are_read_from_the_description():
    """The DH numbers are stored in description units; dh_frames converts them like Robot.dh_si()."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    assert robot.angle_unit == "deg" and robot.length_unit == "m"
    assert robot.joints[0].alpha == 90          # degrees, as written
    ls, an = LENGTH[robot.length_unit], ANGLE[robot.angle_unit]
    ours = np.array([(j.alpha * an, j.a * ls, j.d * ls, j.theta * an, j.offset * an) for j in robot.joints])
    np.testing.assert_allclose(ours, robot.dh_si(), rtol=0, atol=1e-15)


@needs_data
@pytest.mark.parametrize("name", NAMES)
def test_urdf_parser_structure(name):
    _, chain, case, _ = setup(name)
    assert len(chain.movable) == bp.load_robot(ROOT / "robots" / case["yaml"]).n_dof
    assert case["base"] in chain.links and case["tip"] in chain.links


@needs_data
@pytest.mark.parametrize("name", NAMES)
def test_dh_description_reproduces_urdf(name):
    robot, chain, case, qs = setup(name)
    assert_agree(compare(robot, chain, case, qs))


@needs_data
@pytest.mark.parametrize("name", NAMES)
def test_dh_description_reproduces_urdf_pinocchio(name):
    pytest.importorskip("pinocchio")
    robot, chain, case, qs = setup(name)
    ref = PinocchioChain(need_data(name), case["base"], case["tip"], chain.moved_link, chain.movable)
    assert_agree(compare(robot, ref, case, qs))
    # and the two URDF readings agree link by link, in the root frame
    for q in qs[:10]:
        _, links, tip = chain.kinematics(q)
        _, links_p, tip_p = ref.kinematics(q)
        assert max(np.abs(a - b).max() for a, b in zip(links + [tip], links_p + [tip_p])) < TOL


@needs_data
def test_ur10e_base_is_base_link_turned_180_degrees():
    """README: the DH base frame is `base`, i.e. base_link turned by 180° about z."""
    chain = UrdfChain(need_data("ur10e"), "base", "tool0")
    poses, _ = chain.link_poses(np.zeros(6))
    X = inv(poses["base_link"]) @ poses["base"]
    np.testing.assert_allclose(X, np.diag([-1.0, -1.0, 1.0, 1.0]), atol=TOL)


def _perturbed(robot, k, **change):
    joints = list(robot.joints)
    joints[k] = replace(joints[k], **change)
    return replace(robot, joints=tuple(joints))


MUTATIONS = {
    "d1 + 1 mm": lambda r: _perturbed(r, 0, d=r.joints[0].d + 1e-3 / LENGTH[r.length_unit]),
    "d of the last joint + 1 mm": lambda r: _perturbed(r, r.n_dof - 1,
                                                       d=r.joints[-1].d + 1e-3 / LENGTH[r.length_unit]),
    "alpha2 negated": lambda r: _perturbed(r, 1, alpha=-r.joints[1].alpha if r.joints[1].alpha else 180.0),
    "theta offset 3 of 0.01 rad": lambda r: _perturbed(r, 2, offset=0.01 / ANGLE[r.angle_unit]),
}


@needs_data
@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
@pytest.mark.parametrize("name", NAMES)
def test_comparison_detects_a_wrong_description(name, mutation):
    robot, chain, case, qs = setup(name)
    wrong = MUTATIONS[mutation](robot)
    assert wrong.signature() != robot.signature()
    err = compare(wrong, chain, case, qs[:10])
    assert max(err.values()) > 1e-4, (mutation, err)


@needs_data
@pytest.mark.parametrize("name", NAMES)
def test_comparison_detects_reversed_joint_angle(name):
    """A model whose joint 3 turns the other way (q3 → −q3) must fail, though its geometry is the same."""
    robot, chain, case, qs = setup(name)

    class Reversed:
        def kinematics(self, q):
            q = np.array(q, float)
            q[2] = -q[2]
            return chain.kinematics(q)

    err = compare(robot, Reversed(), case, qs[:10])
    assert err["axis_direction"] > 0.1 and err["link_frames"] > 1e-2
