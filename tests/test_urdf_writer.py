"""A robot written as URDF and read back by pinocchio's own parser: the same inverse dynamics."""
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.model.urdf_writer import robot_to_urdf
from conftest import ROBOT_FILES
from random_bodies import general_robots, random_body

pin = pytest.importorskip("pinocchio")


def check_written(robot, seed, tmp_path):
    rng = np.random.default_rng(seed)
    bodies = [random_body(rng) for _ in robot.joints]
    robot = dataclasses.replace(robot, source=None, joints=tuple(
        dataclasses.replace(j, friction=(False, False, False), rotor_inertia=False,
                            inertia=bp.Inertia(b[0], np.asarray(b[1]), np.asarray(b[2]), as_written=True))
        for j, b in zip(robot.joints, bodies)))
    path = tmp_path / "written.urdf"
    path.write_text(robot_to_urdf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints]))
    model = pin.buildModelFromUrdf(str(path))
    model.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    data = model.createData()
    order = [model.joints[model.getJointId(j.name or f"joint{k + 1}")].idx_v for k, j in enumerate(robot.joints)]
    q, qd, qdd = (rng.uniform(-1.5, 1.5, (5, robot.n_dof)) for _ in range(3))
    tau = bp.inverse_dynamics(robot, bp.standard_parameters(robot), q, qd, qdd)
    for s in range(5):
        qp, vp, ap = np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv)
        qp[order], vp[order], ap[order] = q[s], qd[s], qdd[s]
        ref = pin.rnea(model, data, qp, vp, ap)[order]
        np.testing.assert_allclose(tau[s], ref, atol=1e-9 * np.abs(ref).max())
    # the description's link frames are there, as <link>_frame
    qp = np.zeros(model.nq)
    qp[order] = q[0]
    pin.forwardKinematics(model, data, qp)
    pin.updateFramePlacements(model, data)
    from baseparam.model.dh_equivalent import link_frames
    for k, T in enumerate(link_frames(robot, q[0]), start=1):
        placed = data.oMf[model.getFrameId(f"link{k}_frame")]
        np.testing.assert_allclose(placed.homogeneous, T, atol=1e-12)


@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.name)
def test_dh_robots_written_as_urdf(path, tmp_path):
    check_written(bp.load_robot(path), 0, tmp_path)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                               HealthCheck.function_scoped_fixture])
@given(robot=general_robots(), seed=st.integers(0, 2**32 - 1))
def test_general_robots_written_as_urdf(robot, seed, tmp_path):
    check_written(robot, seed, tmp_path)
