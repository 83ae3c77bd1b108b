"""Round 23 (pay2), issue 25: the payload's rates by the fourth-order stencil.

Central differences taken twice damp a sine's acceleration by ≈ 1 − (ωh)²/3 (0.76 % at 2.4 Hz in 10 ms samples); the
payload fit read that as mass (+0.26 % on the UR10e's wide design, noise free, median +1.4σ with the logs' noise).
"""
import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import SettingsError
from baseparam.identification.payload import identify_payload
from baseparam.identification.preprocessing import preprocess
from baseparam.motion import central_differences, fourth_order_differences
from conftest import ROOT
from test_payload import _torques as _pinocchio_torques   # pinocchio's RNEA, the payload on the last link
from test_payload_wrench import SENSOR, _sensor_wrench    # pinocchio's force through a joint at the sensor

PAYLOAD = (1.5, [0.03, -0.02, 0.06], [[0.004, 0.0005, 0.0], [0.0005, 0.003, 0.0002], [0.0, 0.0002, 0.002]])


def _wide_band_motion(n_dof, dt=0.01, duration=10.0, harmonics=12, base_hz=0.2):
    """A sum of sines to harmonics × base_hz (2.4 Hz), its exact velocities and accelerations, at step dt."""
    rng = np.random.default_rng(7)
    t = np.arange(int(round(duration / dt))) * dt
    w = 2 * np.pi * base_hz * np.arange(1, harmonics + 1)                   # (K,)
    amp = rng.uniform(0.5, 1.0, (n_dof, harmonics)) * 0.25 / np.arange(1, harmonics + 1)
    phase = rng.uniform(0, 2 * np.pi, (n_dof, harmonics))
    arg = t[:, None, None] * w + phase                                      # (S, n, K)
    q = 0.3 + (amp * np.sin(arg)).sum(axis=2)
    qd = (amp * w * np.cos(arg)).sum(axis=2)
    qdd = -(amp * w ** 2 * np.sin(arg)).sum(axis=2)
    return t, q, qd, qdd


# cut-off (Hz), then the bounds on the relative mass error and the centre's (m): before the fix +7.6e-3 / 2.6 mm,
# +1.0e-2 / 3.3 mm, +9.1e-3 / 2.1 mm; after −1.7e-4 / 0.23 mm (what is left: the 5 Hz low-pass at the band's top
# with a regressor nonlinear in q), +2.9e-5 / 9 µm, +8.4e-4 / 66 µm (unfiltered, no end samples are left out: the
# one-sided differences at the log's ends)
BOUNDS = [(5.0, 5e-4, 5e-4), (10.0, 1e-4, 2e-5), (None, 2e-3, 2e-4)]


@pytest.mark.parametrize("cutoff,mass_bound,com_bound", BOUNDS)
def test_noise_free_wide_band_payload_comes_back(cutoff, mass_bound, com_bound):
    """Noise free, a 2.4 Hz band in 10 ms samples, torques of pinocchio (the oracle): the payload comes back within
    bounds the central differences broke by 15–100×."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    t, q, qd, qdd = _wide_band_motion(robot.n_dof)
    tau = _pinocchio_torques(robot, PAYLOAD, q, qd, qdd)
    result = identify_payload(robot, bp.Trajectory(t=t, q=q, tau=tau), preprocessing=bp.Preprocessing(cutoff_hz=cutoff))
    m, c, _ = PAYLOAD
    assert abs(result.mass - m) < mass_bound * m
    assert np.abs(result.com - c).max() < com_bound


def test_noise_free_wide_band_wrench_comes_back():
    """The wrench route derives its rates alike: 10 Hz low-pass, mass +1.6e-3 and inertia 4.1 % of λmax before the
    fix, 5e-6 and 3.5e-5 after."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    t, q, qd, qdd = _wide_band_motion(robot.n_dof)
    wrench = _sensor_wrench(robot, PAYLOAD, SENSOR, q, qd, qdd)
    result = identify_payload(robot, bp.Trajectory(t=t, q=q), wrench=wrench, sensor=SENSOR,
                              preprocessing=bp.Preprocessing(cutoff_hz=10.0))
    m, c, inertia = PAYLOAD
    assert abs(result.mass - m) < 1e-4 * m
    assert np.abs(result.com - c).max() < 1e-5
    assert np.abs(result.inertia - inertia).max() < 1e-3 * np.linalg.eigvalsh(inertia).max()


def test_fourth_order_rates_of_a_sine():
    h = 0.01
    t = np.arange(500) * h
    x = np.column_stack([np.sin(2 * np.pi * 2.4 * t), np.full_like(t, 0.7)])
    exact = 2 * np.pi * 2.4 * np.cos(2 * np.pi * 2.4 * t)
    rates = fourth_order_differences(x, h)
    assert np.abs(rates[2:-2, 0] - exact[2:-2]).max() < 1e-4 * np.abs(exact).max()
    assert np.abs(central_differences(x, h)[2:-2, 0] - exact[2:-2]).max() > 3e-3 * np.abs(exact).max()
    assert not rates[:, 1].any()                                    # a still column: exactly 0
    np.testing.assert_array_equal(rates[[0, 1, -2, -1]], central_differences(x, h)[[0, 1, -2, -1]])
    stamps = t + 1e-4 * np.sin(t)                                   # on time stamps: numpy's formula
    np.testing.assert_array_equal(fourth_order_differences(x, stamps), central_differences(x, stamps))


def test_identification_keeps_central_differences():
    """identify's preprocessing is unchanged: its record holds no 'rates'; the payload's says them."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    t, q, qd, qdd = _wide_band_motion(robot.n_dof, duration=4.0)
    traj = bp.Trajectory(t=t, q=q, tau=np.zeros_like(q))
    default = preprocess(traj)
    assert "rates" not in default.record
    np.testing.assert_array_equal(default.qdd, preprocess(traj, rates="central").qdd)
    assert preprocess(traj, rates="fourth-order").record["rates"] == "fourth-order"
    with pytest.raises(SettingsError, match="rates: expected one of central, fourth-order"):
        preprocess(traj, rates="spline")
