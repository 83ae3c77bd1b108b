"""The identified robot as MuJoCo MJCF (issue 24, item 2), checked by MuJoCo's own inverse dynamics.

``mujoco.mj_inverse`` on the written file (constraints off: joint limits, and the Coulomb friction
MuJoCo models as a dry-friction constraint) equals the fit's prediction without its Coulomb and
offset terms: bodies, viscous friction (``damping``) and rotor inertias (``armature``) included. For a
DH robot (the UR10e with friction and rotor inertias) and for URDF robots (a CAD-exporter-style file
with primitives, fixed links and a mimic joint; example-robot-data's UR5, whose visual meshes are
.dae, which MuJoCo cannot read, and collision meshes STL).
"""
from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT
from test_urdf import EXAMPLES, needs_examples
from test_urdf_update import EXPORTED

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("cvxpy")
pytestmark = pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning")


def fit(robot, seed=0):
    """A consistent fit to torques of bodies 0.8–1.25× the description's, friction and rotor inertias."""
    rng = np.random.default_rng(seed)
    joints = []
    for j in robot.joints:
        f = rng.uniform(0.8, 1.25)
        body = bp.Inertia(j.inertia.mass * f, j.inertia.com, j.inertia.inertia * f, as_written=True)
        joints.append(dataclasses.replace(j, inertia=body, friction=tuple(
            rng.uniform(0.1, 1.0) if on is not False else False for on in j.friction),
            rotor_inertia=rng.uniform(0.01, 0.1) if j.has_rotor_inertia else False))
    truth = dataclasses.replace(robot, joints=tuple(joints))
    q, qd, qdd = (rng.uniform(-2, 2, (40 * robot.n_dof, robot.n_dof)) for _ in range(3))
    tau = bp.inverse_dynamics(truth, bp.standard_parameters(truth), q, qd, qdd)
    return bp.identify(robot, (q, qd, qdd, tau), method="consistent", preprocessing=None, prior_weight=0.01)


def check_inverse(result, path):
    model = mujoco.MjModel.from_xml_path(str(path))
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    data = mujoco.MjData(model)
    robot = result.estimator.base_.robot
    names = [j.name or f"joint{k + 1}" for k, j in enumerate(robot.joints)]
    address = [model.joint(name).dofadr[0] for name in names]
    assert model.nv == robot.n_dof
    e = result.estimator
    x = np.where([n.startswith(("FC", "FO", "FS")) for n in e.names_], 0.0, e.coef_)
    rng = np.random.default_rng(11)
    q, qd, qdd = (rng.uniform(-2, 2, (6, robot.n_dof)) for _ in range(3))
    W = e.base_.regressor(q, qd, qdd)
    for s in range(len(q)):
        data.qpos[address], data.qvel[address], data.qacc[address] = q[s], qd[s], qdd[s]
        mujoco.mj_inverse(model, data)
        ref = data.qfrc_inverse[address]
        np.testing.assert_allclose(ref, W[s] @ x, rtol=0, atol=1e-9 * np.abs(ref).max())
    return model


def test_dh_robot_with_friction_and_rotor_inertias(tmp_path):
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml", friction=True, rotor_inertia=True)
    result = fit(robot)
    path = tmp_path / "ur10e.xml"
    text = result.to_mjcf(path)
    assert path.read_text() == text and "armature=" in text and "frictionloss=" in text
    model = check_inverse(result, path)
    layout = bp.ColumnLayout(robot)
    p = np.maximum(result.estimator.standard_, 0.0)        # the drives are ≥ 0 up to the solver's round-off
    np.testing.assert_array_equal(model.dof_armature, [p[layout.rotor_columns[k]] for k in range(6)])
    np.testing.assert_array_equal(model.dof_damping, [p[layout.friction_columns[(k, "FV")]] for k in range(6)])
    np.testing.assert_array_equal(model.dof_frictionloss, [p[layout.friction_columns[(k, "FC")]] for k in range(6)])


def test_urdf_robot_keeps_its_links_and_geometry(tmp_path):
    source = tmp_path / "exported_arm.urdf"
    source.write_text(EXPORTED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(source, tip="tool", friction=True, exact_angles=False)
    result = fit(robot)
    path = tmp_path / "arm.xml"
    result.to_mjcf(path)
    model = check_inverse(result, path)
    assert [model.body(k).name for k in range(1, model.nbody)] == ["arm", "forearm", "wrist_link"]
    # the primitives of the links each body is made of: base 1 cylinder, arm 1 box
    shapes = sorted([int(mujoco.mjtGeom.mjGEOM_CYLINDER), int(mujoco.mjtGeom.mjGEOM_BOX)])
    assert sorted(model.geom_type.tolist()) == shapes
    assert model.jnt_range[model.joint("elbow").id].tolist() == [-2.5, 2.5]


@needs_examples
def test_ur5_with_stl_collision_meshes(tmp_path):
    path = EXAMPLES["ur5_robot.urdf"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(path, friction=True, rotor_inertia=True, exact_angles=False)
    result = fit(robot)
    out = tmp_path / "ur5.xml"
    text = result.to_mjcf(out, urdf_folder=os.path.dirname(path))
    model = check_inverse(result, out)
    assert model.nmesh == 7 and "MuJoCo reads STL, OBJ and MSH only" in text      # .dae visuals left out
