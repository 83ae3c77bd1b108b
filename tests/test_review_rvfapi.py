"""Review of the round-14 API fixes (s12-fapi): what they left next to the cases they fixed."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import planar_sines


@pytest.mark.parametrize("step, level", [(0.02, 123.4), (1e-3, 0.2), (1e-4, 2.9)])
def test_a_robot_that_never_moves_at_any_rate_leaves_its_unseen_parameters_at_zero(step, level):
    """The round-14 fix (columns below 1e-12 of the largest unseen) caught a still robot logged at 50 Hz only:
    rates derived by ``np.gradient`` on the time stamps of constant positions are round-off of ~eps·|q|/dt², so at
    1 kHz (or a position of 123.4) the inertia columns were ~1e-11 of the largest and XX1 came out at 3e8 (8.6e9).
    A joint whose positions do not change has rates of exactly 0; a fit then leaves its parameters at 0."""
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 300, step)
    still = np.full_like(q, level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bp.identify(robot, bp.Trajectory(t, still, tau), preprocessing=None)
    estimator = fit.estimator
    unseen = [estimator.names_.index(n) for n in ("XX1", "XX2", "XX3")]
    assert np.all(estimator.coef_[unseen] == 0.0)
    assert np.abs(estimator.coef_).max() < 1e3
    # the states the predictions are made at: the same exact zeros
    _, qd_at, qdd_at = bp.identification.preprocessing.states_at_samples(bp.Trajectory(t, still, tau),
                                                                          bp.Preprocessing.none())
    assert not qd_at.any() and not qdd_at.any()


def test_rates_of_a_moving_joint_are_numpys_central_differences():
    """Only the joints that stand still change: the others keep np.gradient's numbers to the last bit."""
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 300, 1e-3)
    t = t * (1 + 1e-3 * np.sin(t))                   # irregular stamps: np.gradient's non-uniform formula
    q[:, 1] = 0.2
    _, qd_at, qdd_at = bp.identification.preprocessing.states_at_samples(bp.Trajectory(t, q, tau),
                                                                          bp.Preprocessing.none())
    expected = np.gradient(q, t, axis=0)
    assert np.array_equal(qd_at[:, [0, 2]], expected[:, [0, 2]])
    assert np.array_equal(qdd_at[:, [0, 2]], np.gradient(expected, t, axis=0)[:, [0, 2]])
    assert not qd_at[:, 1].any() and not qdd_at[:, 1].any()
