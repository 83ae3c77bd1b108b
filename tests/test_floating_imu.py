"""A floating base from an IMU (sensor_msgs/Imu) instead of odometry (issue 27, the legged robots' usual log).

Checked against pinocchio, independently of baseparam's dynamics: the fact the reader rests on (the base wrench
and joint torques see the base's linear velocity only through the classical acceleration of its origin, so an
IMU's specific force stands in for the unknown position and velocity), the base columns built from an IMU's
readings (pinocchio's frame kinematics give the readings, its rnea the torques), and the fit from an IMU bag
against the fit from odometry of the same simulated experiment.
"""
from __future__ import annotations

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")

from test_floating_identification import needs_solo  # noqa: E402


def random_state(model, rng):
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv)


def test_torques_see_the_base_velocity_only_through_the_origin_acceleration():
    """With a free-flyer root, rnea(q, v, a) is unchanged when the base's linear velocity is set to zero and the
    linear part of its acceleration replaced by the classical acceleration of the origin in base axes,
    Rᵀ p̈ = a_lin + ω × v_lin (Galilean invariance: no force depends on a uniform velocity); and with the IMU's
    specific force a_imu = Rᵀ(p̈ − g) in place of Rᵀ p̈ and gravity off, whatever the base's orientation and
    position (gravity enters rnea as an acceleration −g of the base: only Rᵀ(p̈ − g) is seen)."""
    model = pin.buildSampleModelHumanoidRandom()
    data = pin.Data(model)
    free = model.copy()
    free.gravity = pin.Motion.Zero()
    free_data = pin.Data(free)
    rng = np.random.default_rng(0)
    for _ in range(20):
        q, v, a = random_state(model, rng)
        R = pin.Quaternion(q[3:7]).toRotationMatrix()
        g = model.gravity.linear
        tau = pin.rnea(model, data, q, v, a).copy()
        classical = a[:3] + np.cross(v[3:6], v[:3])                     # Rᵀ p̈
        v0, a0 = v.copy(), a.copy()
        v0[:3], a0[:3] = 0.0, classical
        np.testing.assert_allclose(pin.rnea(model, data, q, v0, a0), tau, rtol=0, atol=1e-9 * np.abs(tau).max())
        # the specific force: no gravity, any base pose
        a_imu = classical - R.T @ g
        q1 = q.copy()
        q1[:3] = rng.normal(size=3)
        q1[3:7] = pin.Quaternion(pin.exp3(rng.normal(size=3))).coeffs()
        a1 = a0.copy()
        a1[:3] = a_imu
        np.testing.assert_allclose(pin.rnea(free, free_data, q1, v0, a1), tau, rtol=0, atol=1e-9 * np.abs(tau).max())
        # but not the linear velocity with the acceleration left as it was: the fact is not vacuous
        assert np.abs(pin.rnea(model, data, q, v0, a) - tau).max() > 1e-3 * np.abs(tau).max()


# -- the base columns from an IMU's readings, against pinocchio ------------------------------------------------------
IMU_XYZ, IMU_RPY = (0.093, -0.041, 0.027), (0.4, -0.3, 2.1)


@pytest.fixture(scope="module")
def solo_imu(tmp_path_factory):
    """solo12's URDF with an ``imu_link`` fixed to its base link at a lever arm and turned (as boards are
    mounted), read by baseparam (floating root) and by pinocchio (free-flyer; the fixed link is a frame of its own,
    placed by pinocchio's URDF parser)."""
    import warnings

    import baseparam as bp
    from test_floating_identification import SOLO
    text = open(SOLO, encoding="utf-8").read()
    imu = (f'<link name="imu_link"/><joint name="imu_joint" type="fixed"><parent link="base_link"/>'
           f'<child link="imu_link"/><origin xyz="{" ".join(map(str, IMU_XYZ))}" rpy="{" ".join(map(str, IMU_RPY))}"/>'
           '</joint>')
    end = text.rindex("</robot>")
    text = text[:end] + imu + text[end:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the URDF's tiny round-offs
        path = tmp_path_factory.mktemp("imu") / "solo12_imu.urdf"
        path.write_text(text, encoding="utf-8")
        robot = bp.load_robot(path, floating=True)
    model = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    model.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    names = list(model.names)
    ids = [names.index(j.name) for j in robot.joints]
    rows = np.r_[np.arange(6), [model.joints[i].idx_v for i in ids]]      # our v in pinocchio's
    cols = np.r_[np.arange(7), [model.joints[i].idx_q for i in ids]]
    return robot, model, rows, cols


def imu_readings(model, data, frame, q, v, a):
    """What an ideal IMU on ``frame`` reads at a state: its orientation (x, y, z, w), rate and specific force in its
    own axes, and its ω̇ (pinocchio's frame kinematics)."""
    pin.forwardKinematics(model, data, q, v, a)
    pin.updateFramePlacements(model, data)
    R = data.oMf[frame].rotation
    velocity = pin.getFrameVelocity(model, data, frame, pin.LOCAL)
    acceleration = pin.getFrameClassicalAcceleration(model, data, frame, pin.LOCAL)
    specific = acceleration.linear - R.T @ model.gravity.linear
    return (pin.Quaternion(R).coeffs().copy(), velocity.angular.copy(), specific,
            pin.getFrameAcceleration(model, data, frame, pin.LOCAL).angular.copy())


@needs_solo
def test_imu_mounting_is_pinocchios_frame(solo_imu):
    from baseparam.identification.imu import imu_mounting
    robot, model, _, _ = solo_imu
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    placement = data.oMf[model.getFrameId("imu_link")]
    r, R = imu_mounting(robot, "imu_link")
    np.testing.assert_allclose(r, placement.translation, rtol=0, atol=1e-15)
    np.testing.assert_allclose(R, placement.rotation, rtol=0, atol=1e-15)
    r0, R0 = imu_mounting(robot, "base_link")
    assert not r0.any() and np.array_equal(R0, np.eye(3))


@needs_solo
@pytest.mark.parametrize("orientation", [True, False])
def test_base_columns_from_imu_readings_give_pinocchios_torques(solo_imu, orientation):
    """Random states of solo12: the readings of an IMU on a lever arm (pinocchio), turned into the base columns
    (base_from_imu, with the exact ω̇ and with none: the identity orientation), give with baseparam's inverse
    dynamics the 6 + n generalized forces of pinocchio's rnea on the true state, to 1e-9."""
    import baseparam as bp
    from baseparam.identification.imu import base_from_imu, imu_mounting
    robot, model, rows, cols = solo_imu
    data = model.createData()
    frame = model.getFrameId("imu_link")
    rng = np.random.default_rng(3)
    S = 12
    states = [random_state(model, rng) for _ in range(S)]
    readings = [imu_readings(model, data, frame, *s) for s in states]
    quat, omega, specific, omega_dot = (np.array(x) for x in zip(*readings))
    r, R = imu_mounting(robot, "imu_link")
    qb, qdb, qddb = base_from_imu(np.arange(S, dtype=float), quat if orientation else None, omega, specific,
                                  gravity=robot.gravity_si, position=r, rotation=R, angular_acceleration=omega_dot)
    assert not qb[:, :3].any() and not qdb[:, :3].any()
    joints = lambda x, idx: np.array([s[idx] for s in x])             # noqa: E731
    q = np.hstack([qb, joints([s[0] for s in states], cols[7:])])
    qd = np.hstack([qdb, joints([s[1] for s in states], rows[6:])])
    qdd = np.hstack([qddb, joints([s[2] for s in states], rows[6:])])
    if orientation:      # the base's own orientation, recovered through the mounting
        for s in range(S):
            truth = pin.Quaternion(states[s][0][3:7]).toRotationMatrix()
            got = pin.Quaternion(qb[s, 3:7]).toRotationMatrix()
            np.testing.assert_allclose(got, truth, rtol=0, atol=1e-12)
    tau = bp.inverse_dynamics(bp.Model(robot), q, qd, qdd)
    for s, (qp, vp, ap) in enumerate(states):
        expected = pin.rnea(model, data, qp, vp, ap)[rows]
        np.testing.assert_allclose(tau[s], expected, rtol=0, atol=1e-9 * np.abs(expected).max())
