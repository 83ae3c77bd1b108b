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
