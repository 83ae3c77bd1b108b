"""Fuzz round fourteen (issue 28), after the API round: robots that never move, joints without torque, bodies
copied."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.preprocessing import states_at_samples
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
    _, qd_at, qdd_at = states_at_samples(bp.Trajectory(t, still, tau), bp.Preprocessing.none())
    assert not qd_at.any() and not qdd_at.any()


def test_rates_of_a_moving_joint_are_numpys_central_differences():
    """Only the joints that stand still change: the others keep np.gradient's numbers to the last bit."""
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 300, 1e-3)
    t = t * (1 + 1e-3 * np.sin(t))                   # irregular stamps: np.gradient's non-uniform formula
    q[:, 1] = 0.2
    _, qd_at, qdd_at = states_at_samples(bp.Trajectory(t, q, tau), bp.Preprocessing.none())
    expected = np.gradient(q, t, axis=0)
    assert np.array_equal(qd_at[:, [0, 2]], expected[:, [0, 2]])
    assert np.array_equal(qdd_at[:, [0, 2]], np.gradient(expected, t, axis=0)[:, [0, 2]])
    assert not qd_at[:, 1].any() and not qdd_at[:, 1].any()


def test_no_nrmse_where_there_is_no_figure_at_all():
    """NRMSE is RMS(e)/RMS(τ). A joint of no torque has none (NaN, documented and kept: a passive joint among
    others), but nrmse, Metrics.compare and Metrics.from_residuals also returned a NaN pooled figure for torques
    zero in every joint (0/0; identify refuses such data), and NaN for sums that both overflowed (inf/inf,
    undocumented). They refuse those in one line."""
    from baseparam.evaluation import nrmse
    with pytest.raises(bp.ArgumentError, match=r"^t2: zero for every joint \(no torque in any sample\): no NRMSE$"):
        nrmse(np.array([1.0, 1.0]), np.array([0.0, 0.0]))
    with pytest.raises(bp.ArgumentError, match=r"^t2: zero for every joint"):      # one fit of several
        nrmse(np.ones((2, 3)), np.array([[1.0, 0.0, 1.0], [2.0, 0.0, 2.0]]))
    # (since round 17 any sum that overflowed is refused, not only both: test_fuzz_round17_leftapi)
    with pytest.raises(bp.ArgumentError, match=r"^e2: joint 1: the sum of squares overflowed to inf"):
        nrmse(np.array([np.inf, 1.0]), np.array([np.inf, 4.0]))
    with pytest.raises(bp.ArgumentError, match=r"^e2: joint 1: the sum of squares overflowed to inf"):
        nrmse(np.array([np.inf, 1.0]), np.array([1.0, np.inf]))
    with pytest.raises(bp.ArgumentError, match=r"^tau: zero in every sample of every joint: no NRMSE to compare the "
                                               r"predictions by$"):
        bp.Metrics.compare(np.zeros((2, 2)), np.ones((2, 2)))
    with pytest.raises(bp.ArgumentError, match=r"^t2: zero for every joint"):
        bp.Metrics.from_residuals([0.0, 1.0], [0.0, 0.0], 3)
    # what stays: NaN for a joint of no torque (an overflowed error against finite torques, inf here, is refused
    # since round 17)
    per_joint, pooled = nrmse(np.array([1.0, 1.0]), np.array([0.0, 4.0]))
    assert np.isnan(per_joint[0]) and per_joint[1] == 0.5 and pooled == np.sqrt(2.0 / 4.0)


def test_torque_error_of_torques_that_are_zero_or_overflow_is_refused():
    """fit_errors' torque error is pooled: one joint of zero torque leaves it defined (as before, to the bit), but
    true torques zero at every state, or squares beyond the floating-point range, gave NaN."""
    from baseparam.evaluation import fit_errors
    W = np.zeros((5, 2, 3))
    W[:, 1, :] = np.arange(15.0).reshape(5, 3)
    truth, estimates = np.array([1.0, 2.0, 3.0]), np.array([[1.0, 1.1], [2.0, 2.0], [3.1, 3.0]])
    e, tau = W[:, 1] @ (estimates - truth[:, None]), W[:, 1] @ truth
    assert fit_errors(estimates, truth, W).torque_error.tolist() == \
        np.sqrt((e * e).sum(axis=0) / (tau * tau).sum()).tolist()
    with pytest.raises(bp.ArgumentError, match=r"^regressor: the true torques W·truth are zero at every state: no "
                                               r"torque error$"):
        fit_errors(estimates, truth, np.zeros((5, 2, 3)))
    with pytest.raises(bp.ArgumentError, match=r"^regressor, truth: the torques' squares overflow to inf: no torque "
                                               r"error$"):
        fit_errors(np.array([1e100, 2.0, 3.1]), np.array([1e100, 2.0, 3.0]), np.full((5, 2, 3), 1e300))


def test_a_log_of_no_torque_keeps_its_figures_as_nan_in_a_fit_of_several():
    """What the refusal must not reach: identify_logs refuses a joint of no torque only in all the logs together;
    a log of several with no torque in a joint, or in any, keeps NaN figures there (null in JSON), the fit and the
    other figures as they were."""
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 300, 0.02)
    dead = tau.copy()
    dead[:, 2] = 0.0
    logs = [bp.Trajectory(t, q, tau, source="a"), bp.Trajectory(t, q, dead, source="b")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bp.identify_logs(robot, logs, preprocessing=None)
    figures = fit.logs[1].train
    assert np.isnan(figures.nrmse_percent[2]) and np.isfinite(figures.nrmse_percent[:2]).all()
    assert np.isfinite(figures.nrmse_pooled_percent) and figures.to_dict()["nrmse_percent"][2] is None
    logs.append(bp.Trajectory(t, q, np.zeros_like(tau), source="c"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bp.identify_logs(robot, logs, preprocessing=None)
    silent = fit.logs[2].train
    assert np.isnan(silent.nrmse_pooled_percent) and silent.to_dict()["nrmse_pooled_percent"] is None


@pytest.mark.parametrize("copy_of", ["pickle", "deepcopy"])
def test_a_copied_body_stays_read_only(copy_of):
    """Inertia keeps read-only float copies of its arrays so that a body cannot change past its checks (round 14);
    a pickled (workers, dask) or deep-copied one came back with writeable arrays: a com of 1e9 m could be written
    into a frozen robot after all. A copy is the same body, read-only again."""
    import copy
    import pickle
    body = bp.Inertia(2.0, [0.0, 0.0, 0.1], np.diag([0.02, 0.03, 0.04]))
    copied = pickle.loads(pickle.dumps(body)) if copy_of == "pickle" else copy.deepcopy(body)
    assert copied == body and type(copied.mass) is float
    assert not copied.com.flags.writeable and not copied.inertia.flags.writeable
    with pytest.raises(ValueError):
        copied.com[2] = 1e9
    written = bp.Inertia(0.0, [0.0, 0.0, 0.0], np.zeros((3, 3)), as_written=True)    # a URDF's link without mass
    assert pickle.loads(pickle.dumps(written)).as_written is True


def test_held_out_logs_of_a_joint_without_torque_are_refused_as_identify_refuses_them():
    """identify refuses validation data with a joint of no torque in every sample ("it has no error figures");
    identify_logs pooled such held-out logs into a validation NRMSE of NaN for that joint, silently."""
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 300, 0.02)
    dead = tau.copy()
    dead[:, 2] = 0.0
    train, held = bp.Trajectory(t, q, tau, source="a"), bp.Trajectory(t, q, dead, source="b.csv")
    expected = r"^b.csv: field tau3: the torque is zero \(or its square is\) in every sample"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(bp.DataError, match=expected):
            bp.identify(robot, train, validate=held, preprocessing=None)
        with pytest.raises(bp.DataError, match=expected):
            bp.identify_logs(robot, [train], validate=[held], preprocessing=None)
        both = bp.identify_logs(robot, [train], validate=[held, train], preprocessing=None)   # pooled: seen
    assert np.isfinite(both.validation.nrmse_percent).all()


def test_round_off_columns_take_no_degree_of_freedom_from_the_noise_estimate():
    """A column left at 0 as round-off (ROUND_OFF_COLUMN) is not fitted: σ_j = √(Σe²_j / (N − c_j)) counts in c_j
    only the columns the fit uses in joint j's rows, as the pooled dof already did (the round-off columns of rates
    a caller derived with np.gradient on the stamps of a still robot counted there)."""
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 100, 0.02)
    base = bp.find_base_parameters(robot)
    still = np.full_like(q, 0.2)
    rates = np.gradient(still, t, axis=0)                        # the caller's: round-off, not 0
    accelerations = np.gradient(rates, t, axis=0)
    assert rates.any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bp.identify(robot, bp.Trajectory(t, still, tau, qd=rates, qdd=accelerations), base=base,
                          preprocessing=None, method="ols")
    estimator = fit.estimator
    W = base.regressor(still, rates, accelerations)                            # (N, n, R)
    used = estimator.coef_ != 0                                  # the round-off columns are left at exactly 0
    assert not used.all()
    residual = tau - W @ estimator.coef_
    columns = np.count_nonzero(np.abs(W[:, :, used]).sum(axis=0), axis=1)     # c_j: fitted columns in joint j's rows
    expected = np.sqrt((residual ** 2).sum(axis=0) / (len(t) - columns))
    np.testing.assert_allclose(estimator.sigma_, expected, rtol=1e-9)


def test_a_floating_bags_joint_held_still_has_rates_of_exactly_zero(tmp_path):
    """A floating-base bag without velocities: read_floating_bag derived q̇ and q̈ with np.gradient on the stamps,
    and a joint held at 0.3 rad got rates of ~1e-15 and ~1e-13 (round-off, the 1e8 estimates of the fixed-base
    fit above) where preprocess gives exactly 0; a base moving at a constant 0.1 m/s, accelerations of ~1e-16."""
    from test_floating_identification import SPACE
    from test_floating_logs import rosbags_bag
    t = np.arange(50) * 0.0137 + 0.1                   # stamps rounded to the ns: steps not all equal
    q = np.zeros((t.size, 13))
    q[:, 0], q[:, 6], q[:, 7:] = 0.1 * t, 1.0, np.sin(np.outer(t, np.arange(1, 7)))
    q[:, 7] = 0.3
    qd = np.zeros((t.size, 6))                         # the base's twist only: the joints' velocities not logged
    qd[:, 0] = 0.1
    traj = bp.read_trajectory(rosbags_bag(tmp_path / "bag", t, q, qd), robot=bp.load_robot(SPACE))
    assert any("joint velocities derived" in note for note in traj.notes)
    assert not traj.qd[:, 6].any() and not traj.qdd[:, 6].any() and not traj.qdd[:, :6].any()
    moving = np.gradient(q[:, 8:], traj.t, axis=0)     # the other joints: numpy's central differences
    assert np.array_equal(traj.qd[:, 7:], moving)
