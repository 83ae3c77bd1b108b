"""Identification of base parameters (baseparam.identification) on synthetic ground truth.

Torques come from dynamics that do not use the regressor code: pinocchio's ``rnea`` on a model built
from the DH table alone (tests/pin_model.py), and baseparam's recursive Newton–Euler
(``bp.inverse_dynamics``) — each for the rigid bodies only, with rotor inertia and friction added by
hand. The estimates are compared with ``base.from_standard(p)``, the statistics with Monte-Carlo
runs over noise seeds and with the textbook covariance formulas evaluated here on the explicitly
stacked base regressor.
"""
import functools
import json
import os
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import DataError, ExcitationWarning
from baseparam.identification.estimators import BaseParameterEstimator, Identification, Metrics, identify
from baseparam.identification.preprocessing import Preprocessing
from baseparam.identification.trajectory import Trajectory
from conftest import ROOT
from random_bodies import random_parameters

ROBOTS = ["planar_rrr", "puma560", "kuka_lwr4", "ur10e"]
DRIVE_PREFIXES = ("IA", "FV", "FC", "FO")


@functools.cache
def robot_and_base(name):
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    return robot, bp.find_base_parameters(robot)


def exciting(n_dof, rng, n_samples=1500, h=0.01, f0=0.1, harmonics=4):
    """Sums of sines per joint (harmonics of f0), analytic q, qd, qdd; velocity amplitudes ~1 rad/s."""
    t = np.arange(n_samples) * h
    w = 2 * np.pi * f0 * np.arange(1, harmonics + 1)
    a = rng.uniform(0.3, 0.8, (n_dof, harmonics)) / w * rng.choice([-1, 1], (n_dof, harmonics))
    phi = rng.uniform(0, 2 * np.pi, (n_dof, harmonics))
    arg = w[None, :, None] * t[None, None, :] + phi[:, :, None]
    q = (a[:, :, None] * np.sin(arg)).sum(axis=1).T + rng.uniform(-1, 1, n_dof)
    qd = (a[:, :, None] * w[None, :, None] * np.cos(arg)).sum(axis=1).T
    qdd = -(a[:, :, None] * w[None, :, None] ** 2 * np.sin(arg)).sum(axis=1).T
    return t, q, qd, qdd


def drive_torque(drives, qd, qdd):
    """Rotor inertia and friction, by hand: IA q̈ + FV q̇ + FC sign(q̇) + FO."""
    return drives.IA * qdd + drives.FV * qd + drives.FC * np.sign(qd) + drives.FO


def rigid_only(base, p):
    """p with the rotor-inertia and friction entries zeroed (those are added by hand)."""
    out = p.copy()
    for k, name in enumerate(base.standard_names):
        if name.startswith(DRIVE_PREFIXES):
            out[k] = 0.0
    return out


def torques_newton_euler(robot, base, p, drives, q, qd, qdd):
    return bp.inverse_dynamics(robot, rigid_only(base, p), q, qd, qdd) + drive_torque(drives, qd, qdd)


def torques_pinocchio(robot, bodies, drives, q, qd, qdd):
    pin = pytest.importorskip("pinocchio")
    from pin_model import build_model
    model, _ = build_model(robot, [pin.Inertia(*body) for body in bodies])
    data = model.createData()
    tau = np.array([pin.rnea(model, data, q[k], qd[k], qdd[k]) for k in range(len(q))])
    return tau + drive_torque(drives, qd, qdd)


def stacked(base, q, qd, qdd):
    """The base regressor stacked explicitly: (S·n, R), rows sample-major."""
    return base.regressor(q, qd, qdd).reshape(-1, base.rank)


# -- noise-free recovery ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", ["pinocchio", "newton_euler"])
@pytest.mark.parametrize("name", ROBOTS)
def test_noise_free_recovery(name, source):
    robot, base = robot_and_base(name)
    rng = np.random.default_rng(11)
    p, bodies, drives = random_parameters(robot, "pseudo", rng)
    t, q, qd, qdd = exciting(robot.n_dof, rng)
    if source == "pinocchio":
        tau = torques_pinocchio(robot, bodies, drives, q, qd, qdd)
    else:
        tau = torques_newton_euler(robot, base, p, drives, q, qd, qdd)
    declared = [n for n in base.standard_names if n.startswith(DRIVE_PREFIXES)]
    assert bool(declared) == (name in ("kuka_lwr4", "ur10e"))
    result = identify(robot, Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd, source=f"{name}.csv"),
                      preprocessing=None, base=base)
    assert isinstance(result, Identification)
    x_true = base.from_standard(p)
    x = result.values
    assert x.shape == (base.rank,) and result.estimator.names_ == list(base.names)
    assert np.abs(x - x_true).max() <= 1e-8 * np.abs(x_true).max()
    # each parameter's error, weighted by its column's norm, is negligible against the torques
    col = np.linalg.norm(stacked(base, q, qd, qdd), axis=0)
    assert (np.abs(x - x_true) * col).max() <= 1e-8 * np.linalg.norm(tau)
    assert result.train.nrmse_pooled_percent < 1e-6
    assert np.all(result.train.nrmse_percent < 1e-6)
    assert result.train.n_samples == len(t) == result.estimator.n_samples_
    assert result.validation is None


def test_default_base_and_file_robot():
    """identify() finds the base set itself, from the description file."""
    robot, base = robot_and_base("planar_rrr")
    rng = np.random.default_rng(12)
    p, _, drives = random_parameters(robot, "pseudo", rng)
    t, q, qd, qdd = exciting(3, rng, n_samples=400)
    tau = torques_newton_euler(robot, base, p, drives, q, qd, qdd)
    result = identify(str(ROOT / "robots" / "planar_rrr.yaml"), Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd),
                      preprocessing=None)
    np.testing.assert_allclose(result.values, base.from_standard(p), rtol=0, atol=1e-8 * np.abs(p).max())


def test_khalil_parameterization():
    robot, _ = robot_and_base("puma560")
    base = bp.find_base_parameters(robot, "khalil")
    rng = np.random.default_rng(13)
    p, bodies, drives = random_parameters(robot, "khalil", rng)
    t, q, qd, qdd = exciting(6, rng)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd, parameters="khalil")
    result = identify(robot, Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd), preprocessing=None,
                      parameters="khalil")
    x_true = base.from_standard(p)
    assert np.abs(result.values - x_true).max() <= 1e-8 * np.abs(x_true).max()


@pytest.mark.parametrize("name", ["planar_rrr", "puma560", "kuka_lwr4", "ur10e"])
def test_wls_noise_free_recovery(name):
    """Weighting cannot matter when every equation holds exactly: WLS recovers the parameters like OLS."""
    robot, base = robot_and_base(name)
    rng = np.random.default_rng(11)
    p, bodies, drives = random_parameters(robot, "pseudo", rng)
    t, q, qd, qdd = exciting(robot.n_dof, rng)
    tau = torques_newton_euler(robot, base, p, drives, q, qd, qdd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcitationWarning)
        est = BaseParameterEstimator(robot, method="wls", preprocessing=None, base=base).fit(
            Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd))
    x_true = base.from_standard(p)
    assert est.nrmse_pooled_percent_ < 1e-6
    assert np.abs(est.coef_ - x_true).max() <= 1e-8 * np.abs(x_true).max()


# -- noise: statistics -----------------------------------------------------------------------------------------
SEEDS = range(30)


@functools.cache
def planar_case():
    """planar_rrr, one exciting trajectory (2000 samples), true base parameters and noise-free torques."""
    robot, base = robot_and_base("planar_rrr")
    rng = np.random.default_rng(21)
    p, _, drives = random_parameters(robot, "pseudo", rng)
    t, q, qd, qdd = exciting(3, rng, n_samples=2000)
    tau = torques_newton_euler(robot, base, p, drives, q, qd, qdd)
    return robot, base, base.from_standard(p), t, q, qd, qdd, tau


def monte_carlo(sigma, method, preprocessing=None):
    """Fits over SEEDS with Gaussian torque noise of per-joint std ``sigma``: (estimates, std_, sigma_)."""
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    X, S, SIG = [], [], []
    for seed in SEEDS:
        noise = np.random.default_rng(1000 + seed).normal(size=tau.shape) * sigma
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExcitationWarning)
            est = BaseParameterEstimator(robot, method=method, preprocessing=preprocessing, base=base).fit(
                Trajectory(t=t, q=q, tau=tau + noise, qd=qd, qdd=qdd, source=f"seed{seed}"))
        X.append(est.coef_)
        S.append(est.std_)
        SIG.append(est.sigma_)
    return np.array(X), np.array(S), np.array(SIG)


def check_z_scores(X, S, x_true):
    """Pooled z = (x̂ − x)/std over seeds and parameters: mean ≈ 0, std ≈ 1.

    With 30 seeds × 9 parameters (correlated within a seed) the pooled mean has a standard error of at
    most 1/√30 ≈ 0.18 and the pooled std one of ≈ 0.1: the bounds are about 2.5 of those.
    """
    z = (X - x_true) / S
    assert np.isfinite(z).all()
    assert abs(z.mean()) < 0.45, z.mean()
    assert 0.75 < z.std() < 1.3, z.std()


def test_ols_statistics_are_consistent():
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    sigma = np.full(3, 0.2)
    X, S, SIG = monte_carlo(sigma, "ols")
    check_z_scores(X, S, x_true)
    # the reported std agrees with σ √diag((AᵀA)⁻¹) of the stacked regressor, with the true σ
    A = stacked(base, q, qd, qdd)
    theory = 0.2 * np.sqrt(np.diag(np.linalg.inv(A.T @ A)))
    np.testing.assert_allclose(S.mean(axis=0), theory, rtol=0.03)
    # and with the scatter of the estimates over the seeds (pooled: 30 seeds give ±13 % per parameter)
    ratio = X.std(axis=0) / theory
    assert 0.8 < np.sqrt((ratio ** 2).mean()) < 1.2
    np.testing.assert_allclose(SIG, 0.2, rtol=0.1)


def test_sigma_per_joint():
    sigma = np.array([0.3, 0.1, 0.05])
    _, _, SIG = monte_carlo(sigma, "ols")
    assert np.all(np.abs(SIG / sigma - 1) < 0.1), SIG / sigma
    np.testing.assert_allclose(SIG.mean(axis=0), sigma, rtol=0.03)


def test_wls_beats_ols_with_unequal_noise():
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    sigma = np.array([0.02, 0.5, 0.02])          # one joint 25 times noisier than the others
    X_ols, _, _ = monte_carlo(sigma, "ols")
    X_wls, S_wls, SIG = monte_carlo(sigma, "wls")
    mse_ols = ((X_ols - x_true) ** 2).sum(axis=1).mean()
    mse_wls = ((X_wls - x_true) ** 2).sum(axis=1).mean()
    # Gauss–Markov: here trace Cov_WLS / trace Cov_OLS = 0.013 (computed below); demand < 0.1
    A = stacked(base, q, qd, qdd)
    s2 = np.tile(sigma ** 2, len(t))
    G = np.linalg.inv(A.T @ A)
    cov_ols = G @ (A.T * s2) @ A @ G
    cov_wls = np.linalg.inv((A.T / s2) @ A)
    assert np.trace(cov_wls) / np.trace(cov_ols) < 0.05
    assert mse_wls < 0.1 * mse_ols, (mse_wls, mse_ols)
    # WLS standard deviations are consistent, and close to the textbook √diag((AᵀΣ⁻¹A)⁻¹)
    check_z_scores(X_wls, S_wls, x_true)
    np.testing.assert_allclose(S_wls.mean(axis=0), np.sqrt(np.diag(cov_wls)), rtol=0.2)
    # OLS standard deviations too: the sandwich G⁻¹(AᵀΣA)G⁻¹, not σ̄²G⁻¹, when the joints' noise differs
    X_ols, S_ols, _ = monte_carlo(sigma, "ols")
    check_z_scores(X_ols, S_ols, x_true)
    np.testing.assert_allclose(S_ols.mean(axis=0), np.sqrt(np.diag(cov_ols)), rtol=0.1)


@pytest.mark.parametrize("method", ["ols", "wls"])
def test_standard_deviations_account_for_the_low_pass(method):
    """Low-passed τ noise is correlated: with the default 5 Hz filter at 100 Hz, only about a tenth of
    the samples are independent, and the reported std must say so (z-scores of unit spread)."""
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    X, S, _ = monte_carlo(np.array([0.3, 0.1, 0.05]), method, Preprocessing(rest_velocity=None))
    check_z_scores(X, S, x_true)


# -- condition numbers -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["planar_rrr", "ur10e"])
def test_condition_numbers(name):
    robot, base = robot_and_base(name)
    rng = np.random.default_rng(31)
    p, _, drives = random_parameters(robot, "pseudo", rng)
    t, q, qd, qdd = exciting(robot.n_dof, rng, n_samples=800)
    tau = torques_newton_euler(robot, base, p, drives, q, qd, qdd)
    tau = tau + rng.normal(size=tau.shape) * np.linspace(0.05, 0.5, robot.n_dof)
    A = stacked(base, q, qd, qdd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcitationWarning)
        est = BaseParameterEstimator(robot, preprocessing=None, base=base).fit(
            Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd))
        assert est.condition_number_ == pytest.approx(np.linalg.cond(A), rel=1e-6)
        assert est.condition_number_scaled_ == pytest.approx(np.linalg.cond(A / np.linalg.norm(A, axis=0)), rel=1e-6)
        # WLS: the regressor as fitted, rows of joint j weighted by 1/sigma_j (the OLS residual std)
        wls = BaseParameterEstimator(robot, method="wls", preprocessing=None, base=base).fit(
            Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd))
    np.testing.assert_allclose(wls.sigma_, est.sigma_, rtol=1e-12)
    Aw = (base.regressor(q, qd, qdd) / est.sigma_[None, :, None]).reshape(-1, base.rank)
    assert wls.condition_number_ == pytest.approx(np.linalg.cond(Aw), rel=1e-6)
    assert wls.condition_number_scaled_ == pytest.approx(np.linalg.cond(Aw / np.linalg.norm(Aw, axis=0)), rel=1e-6)


# -- poor excitation -------------------------------------------------------------------------------------------
def held_still(name, joint, n_samples=1500):
    """A trajectory of ``name`` with joint ``joint`` (1-based) held at a constant angle; noise-free torques."""
    robot, base = robot_and_base(name)
    rng = np.random.default_rng(41)
    p, _, drives = random_parameters(robot, "pseudo", rng)
    t, q, qd, qdd = exciting(robot.n_dof, rng, n_samples=n_samples)
    q[:, joint - 1], qd[:, joint - 1], qdd[:, joint - 1] = 0.3, 0.0, 0.0
    tau = torques_newton_euler(robot, base, p, drives, q, qd, qdd)
    return robot, base, Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd, source=f"{name}_still{joint}.csv")


def null_space_report(base, traj):
    """(names involved in the null space of the column-scaled stacked regressor, rank deficiency).

    Computed by SVD here; an all-zero column is its own null direction.
    """
    A = stacked(base, traj.q, traj.qd, traj.qdd)
    norms = np.linalg.norm(A, axis=0)
    As = A / np.where(norms > 0, norms, 1.0)
    _, s, Vt = np.linalg.svd(As, full_matrices=False)         # S·n > R rows: Vt is (R, R)
    null = Vt[s < 1e-9 * s[0]]
    weight = (null ** 2).sum(axis=0)              # diagonal of the projector onto the null space
    return {base.names[k] for k in np.flatnonzero(weight > 1e-6)}, null.shape[0], As


def test_joint_held_still_warns_and_names_parameters():
    robot, base, traj = held_still("puma560", 2)
    involved, deficiency, _ = null_space_report(base, traj)
    assert deficiency > 0
    with pytest.warns(ExcitationWarning) as record:
        est = BaseParameterEstimator(robot, preprocessing=None, base=base).fit(traj)
    assert est.undetermined_ and set(est.undetermined_) <= involved
    text = " ".join(str(w.message) for w in record if issubclass(w.category, ExcitationWarning))
    assert all(name in text for name in est.undetermined_)
    assert np.isfinite(est.coef_).all() and np.isfinite(est.predict((traj.q, traj.qd, traj.qdd))).all()
    assert est.train_.nrmse_pooled_percent < 1e-6          # the data are still fitted exactly


@pytest.mark.parametrize("name,joint", [
    ("puma560", 2),
    ("planar_rrr", 1),
    ("ur10e", 3),
    ("ur10e", 6),
])
def test_undetermined_names_exactly_the_unexcited_directions(name, joint):
    """undetermined_ lies in the null space and accounts for it: without the named columns the stacked
    regressor has full column rank."""
    robot, base, traj = held_still(name, joint)
    involved, deficiency, As = null_space_report(base, traj)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcitationWarning)
        est = BaseParameterEstimator(robot, preprocessing=None, base=base).fit(traj)
    named = set(est.undetermined_)
    assert named <= involved, sorted(named - involved)
    rest = [k for k, n in enumerate(base.names) if n not in named]
    assert np.linalg.matrix_rank(As[:, rest], tol=1e-9 * np.linalg.norm(As, 2)) == len(rest), sorted(involved - named)


def test_zero_column_gives_no_numerical_warning():
    robot, base, traj = held_still("planar_rrr", 1, n_samples=400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcitationWarning)
        warnings.simplefilter("error", RuntimeWarning)
        BaseParameterEstimator(robot, preprocessing=None, base=base).fit(traj)


def test_unexcited_parameter_has_no_finite_zero_std():
    robot, base, traj = held_still("ur10e", 6, n_samples=600)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcitationWarning)
        est = BaseParameterEstimator(robot, preprocessing=None, base=base).fit(traj)
    for name in ("IA6", "FV6", "FC6"):
        k = base.names.index(name)
        assert not (est.std_[k] < 1.0), (name, est.std_[k])     # inf or NaN: not determined


# -- metrics, predict, score -----------------------------------------------------------------------------------
def test_metrics_compare_hand_formulas():
    rng = np.random.default_rng(51)
    tau = rng.normal(size=(57, 4)) * [1, 10, 0.1, 1]
    pred = tau + rng.normal(size=tau.shape) * 0.3
    pred[:, 3] = tau[:, 3]                       # a perfect joint
    m = Metrics.compare(tau, pred)
    e = tau - pred
    np.testing.assert_allclose(m.rmse, np.sqrt(np.mean(e ** 2, axis=0)), rtol=1e-13)
    np.testing.assert_allclose(m.nrmse_percent, 100 * np.sqrt(np.mean(e ** 2, axis=0) / np.mean(tau ** 2, axis=0)),
                               rtol=1e-13)
    assert m.nrmse_percent[3] == 0
    assert m.nrmse_pooled_percent == pytest.approx(100 * np.sqrt((e ** 2).sum()) / np.sqrt((tau ** 2).sum()), rel=1e-13)
    assert m.n_samples == 57
    d = m.to_dict()
    assert set(d) >= {"rmse", "nrmse_percent", "nrmse_pooled_percent"}
    assert d["rmse"] == pytest.approx(list(m.rmse)) and json.dumps(d, allow_nan=False)
    # a joint with zero torque throughout has no NRMSE (not a division by zero)
    tau[:, 0] = 0.0
    m = Metrics.compare(tau, pred)
    assert np.isnan(m.nrmse_percent[0]) and m.to_dict()["nrmse_percent"][0] is None


def test_predict_score_validate():
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    rng = np.random.default_rng(52)
    noisy = tau + rng.normal(size=tau.shape) * 0.5
    train = Trajectory(t=t[:1200], q=q[:1200], tau=noisy[:1200], qd=qd[:1200], qdd=qdd[:1200], source="a.csv")
    held = Trajectory(t=t[1200:], q=q[1200:], tau=noisy[1200:], qd=qd[1200:], qdd=qdd[1200:], source="b.csv")
    est = BaseParameterEstimator(robot, preprocessing=None, base=base)
    assert est.fit(train) is est
    expected = bp.inverse_dynamics(base.model(est.coef_), q[1200:], qd[1200:], qdd[1200:])
    np.testing.assert_array_equal(est.predict((q[1200:], qd[1200:], qdd[1200:])), expected)
    np.testing.assert_allclose(est.predict(held), expected, rtol=1e-12, atol=1e-12)
    e = noisy[1200:] - expected
    pooled = 100 * np.sqrt((e ** 2).sum() / (noisy[1200:] ** 2).sum())
    v = est.validate(held)
    assert v.nrmse_pooled_percent == pytest.approx(pooled, rel=1e-10)
    # score is scikit-learn's R²: per joint, centred, averaged over the joints with equal weights
    centred = noisy[1200:] - noisy[1200:].mean(axis=0)
    r2 = np.mean([1 - (e[:, j] ** 2).sum() / (centred[:, j] ** 2).sum() for j in range(e.shape[1])])
    assert est.score(held) == pytest.approx(r2, rel=1e-10)
    assert est.score(held) < 1 - (pooled / 100) ** 2         # the uncentred figure flatters a torque with an offset
    # identify(validate=[...]) pools several held-out trajectories
    a, b = (Trajectory(t=t[s], q=q[s], tau=noisy[s], qd=qd[s], qdd=qdd[s], source=n)
            for s, n in ((slice(1200, 1600), "c.csv"), (slice(1600, None), "d.csv")))
    result = identify(robot, train, validate=[a, b], preprocessing=None, base=base)
    np.testing.assert_array_equal(result.values, est.coef_)
    assert result.validation.n_samples == 800 and result.validation.sources == ["c.csv", "d.csv"]
    assert result.validation.nrmse_pooled_percent == pytest.approx(pooled, rel=1e-10)
    np.testing.assert_allclose(result.validation.rmse, np.sqrt((e ** 2).mean(axis=0)), rtol=1e-10)
    # training figures: the same formulas on the training samples
    et = noisy[:1200] - bp.inverse_dynamics(base.model(est.coef_), q[:1200], qd[:1200], qdd[:1200])
    np.testing.assert_allclose(est.rmse_, np.sqrt((et ** 2).mean(axis=0)), rtol=1e-10)


# -- scikit-learn conventions and errors -----------------------------------------------------------------------
def test_sklearn_conventions():
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    est = BaseParameterEstimator(robot, method="wls", preprocessing=None, base=base)
    params = dict(vars(est))
    assert est.fit(Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd)) is est
    for key, value in params.items():             # constructor arguments are stored unchanged
        assert getattr(est, key) is value
    fitted = set(vars(est)) - set(params)
    public = {k for k in fitted if not k.startswith("_")}
    assert public >= {"coef_", "std_", "rel_std_percent_", "condition_number_", "condition_number_scaled_",
                      "sigma_", "names_", "undetermined_", "n_samples_", "base_"}
    assert all(k.endswith("_") for k in public), sorted(k for k in public if not k.endswith("_"))
    # a (q, qd, qdd, tau) tuple is accepted as data, too
    est2 = BaseParameterEstimator(robot, preprocessing=None, base=base).fit((q, qd, qdd, tau))
    np.testing.assert_allclose(est2.coef_, x_true, rtol=0, atol=1e-8 * np.abs(x_true).max())


def test_errors():
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    traj = Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd, source="ok.csv")
    est = BaseParameterEstimator(robot, preprocessing=None, base=base)
    for call in (lambda: est.predict(traj), lambda: est.predict((q, qd, qdd)), lambda: est.score(traj),
                 lambda: est.validate(traj)):
        with pytest.raises(DataError, match="fit"):
            call()
    with pytest.raises(DataError, match="method"):
        BaseParameterEstimator(robot, method="bad", preprocessing=None).fit(traj)
    with pytest.raises(DataError, match="method"):
        identify(robot, traj, method="lasso", preprocessing=None)
    with pytest.raises(DataError, match="preprocessing"):
        BaseParameterEstimator(robot, preprocessing={"cutoff_hz": 5}).fit(traj)
    two = Trajectory(t=t, q=q[:, :2], tau=tau[:, :2], qd=qd[:, :2], qdd=qdd[:, :2], source="two_joints.csv")
    with pytest.raises(DataError, match="two_joints.csv") as info:
        BaseParameterEstimator(robot, preprocessing=None, base=base).fit(two)
    assert "2 joints" in str(info.value) and "3" in str(info.value)
    with pytest.raises(DataError, match="two_joints.csv"):
        BaseParameterEstimator(robot, base=base).fit(two)         # with preprocessing, too
    est.fit(traj)
    with pytest.raises(DataError, match="two_joints.csv"):
        est.validate(two)
    with pytest.raises(DataError, match="<fit arrays>"):
        BaseParameterEstimator(robot, preprocessing=None, base=base).fit((q[:, :2], qd[:, :2], qdd[:, :2], tau[:, :2]))
    with pytest.raises(DataError):
        BaseParameterEstimator(robot, preprocessing=None, base=base).fit([])
    with pytest.raises(DataError, match="samples"):             # fewer samples than parameters
        BaseParameterEstimator(robot, preprocessing=None, base=base).fit(
            Trajectory(t=t[:2], q=q[:2], tau=tau[:2], qd=qd[:2], qdd=qdd[:2]))
    other, other_base = robot_and_base("puma560")
    with pytest.raises(DataError, match="base"):
        BaseParameterEstimator(robot, preprocessing=None, base=other_base).fit(traj)


# -- parallel filtering ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("settings,tol", [
    (Preprocessing(decimate=2, resample=False, cutoff_hz=None, rest_velocity=None), 1e-8),
    (Preprocessing(decimate=3, resample=False, cutoff_hz=None), 1e-8),       # rest trimming on
    # defaults: the 5 Hz low-pass of τ is not the torque of the low-passed motion (the dynamics are
    # nonlinear: sin q, q̇² reach into the filter's roll-off); the same ~3e-5 error as without decimation
    (Preprocessing(decimate=2), 1e-4),
])
def test_decimation_recovers_parameters(settings, tol):
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    est = BaseParameterEstimator(robot, preprocessing=settings, base=base).fit(
        Trajectory(t=t, q=q, tau=tau, qd=qd, qdd=qdd))
    assert np.abs(est.coef_ - x_true).max() <= tol * np.abs(x_true).max()
    assert est.n_samples_ <= -(-len(t) // settings.decimate)
    assert est.n_samples_ >= 0.9 * len(t) / settings.decimate


# -- JSON document and plot ------------------------------------------------------------------------------------
def noisy_result():
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    rng = np.random.default_rng(61)
    noisy = tau + rng.normal(size=tau.shape) * 0.05
    train = Trajectory(t=t[:1500], q=q[:1500], tau=noisy[:1500], qd=qd[:1500], qdd=qdd[:1500], source="train.csv")
    val = Trajectory(t=t[1500:], q=q[1500:], tau=noisy[1500:], qd=qd[1500:], qdd=qdd[1500:], source="val.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcitationWarning)
        return identify(robot, train, validate=val, preprocessing=None, base=base)


def test_to_dict_contract():
    result = noisy_result()
    est = result.estimator
    doc = result.to_dict()
    text = json.dumps(doc, allow_nan=False)
    back = json.loads(text)
    assert [b["name"] for b in back["base"]] == est.names_
    for entry, v, s, _r in zip(back["base"], est.coef_, est.std_, est.rel_std_percent_):
        assert set(entry) >= {"name", "value", "std", "rel_std_percent"}
        assert entry["value"] == pytest.approx(v, rel=1e-15) and entry["std"] == pytest.approx(s, rel=1e-15)
        assert entry["rel_std_percent"] == pytest.approx(100 * s / abs(v), rel=1e-12)
    assert back["condition_number"] == pytest.approx(est.condition_number_, rel=1e-15)
    for key, metrics in (("train", result.train), ("validation", result.validation)):
        part = back[key]
        assert set(part) >= {"rmse", "nrmse_percent", "nrmse_pooled_percent"}
        assert len(part["rmse"]) == len(part["nrmse_percent"]) == 3
        assert part["rmse"] == pytest.approx(list(metrics.rmse), rel=1e-15)
        assert part["nrmse_pooled_percent"] == pytest.approx(metrics.nrmse_pooled_percent, rel=1e-15)
    assert back["train"]["n_samples"] == 1500 and back["validation"]["n_samples"] == 500


def test_plot_is_written_atomically(tmp_path):
    pytest.importorskip("matplotlib")
    from baseparam.identification.plots import save_identification_plot
    result = noisy_result()
    out = tmp_path / "x.png"
    save_identification_plot(result, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 10_000
    assert os.listdir(tmp_path) == ["x.png"]


def test_dead_torque_sensor_is_refused():
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    dead = tau.copy()
    dead[:, 1] = 0.0
    with pytest.raises(DataError, match=r"^dead\.csv: field tau2: the torque is zero \(or its square is\) in every "
                                        r"sample \(a dead sensor or a wrong column map\?\)$"):
        identify(robot, Trajectory(t=t, q=q, tau=dead, qd=qd, qdd=qdd, source="dead.csv"), preprocessing=None)


def test_a_fit_that_explains_nothing_is_warned_about():
    """Positions logged in degrees (velocities in rad/s): the model cannot explain the torques."""
    robot, base, x_true, t, q, qd, qdd, tau = planar_case()
    with pytest.warns(bp.DataWarning) as record:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExcitationWarning)
            identify(robot, Trajectory(t=t, q=np.degrees(q), tau=tau, qd=qd, qdd=qdd, source="deg.csv"))
    text = " ".join(str(w.message) for w in record)
    assert "velocities disagree with the positions" in text and "explains the training torques poorly" in text


def test_r2_score_follows_scikit_learns_conventions():
    from baseparam.identification.estimators import r2_score
    rng = np.random.default_rng(3)
    tau = rng.normal(size=(50, 3)) + [5.0, -2.0, 0.0]
    assert r2_score(tau, tau) == 1.0
    assert r2_score(tau, np.tile(tau.mean(axis=0), (50, 1))) == pytest.approx(0.0, abs=1e-15)  # each joint's mean
    worse = tau + 3.0
    assert r2_score(tau, worse) < 0
    per_joint = [1 - ((tau[:, j] - worse[:, j]) ** 2).sum() / ((tau[:, j] - tau[:, j].mean()) ** 2).sum()
                 for j in range(3)]
    assert r2_score(tau, worse) == pytest.approx(np.mean(per_joint), rel=1e-12)     # uniform average
    constant = np.column_stack([tau[:, 0], np.full(50, 2.0)])
    assert r2_score(constant, constant) == 1.0                            # constant and exact: 1
    off = constant.copy()
    off[:, 1] += 0.1
    assert r2_score(constant, off) == pytest.approx(0.5)                  # constant and missed: 0 (then averaged)


def test_get_params_and_set_params_come_from_the_constructor():
    """As scikit-learn's BaseEstimator: the parameters are __init__'s keyword arguments, so that
    ``clone(est)`` is ``type(est)(**est.get_params())``."""
    import inspect
    robot, base, *_ = planar_case()
    est = BaseParameterEstimator(robot, method="wls", base=base, prior_weight=0.5)
    names = [n for n in inspect.signature(BaseParameterEstimator.__init__).parameters if n != "self"]
    params = est.get_params()
    assert sorted(params) == sorted(names) and params["method"] == "wls" and params["prior_weight"] == 0.5
    clone = BaseParameterEstimator(**params)
    assert clone.get_params() == params
    assert est.set_params(method="ols", total_mass=(1.0, 2.0)) is est
    assert est.method == "ols" and est.get_params()["total_mass"] == (1.0, 2.0)
    with pytest.raises(DataError, match="set_params: unknown parameter 'alpha'"):
        est.set_params(alpha=1.0)
    with pytest.raises(DataError, match="unknown parameter 'method__x'"):
        est.set_params(method__x=1)


@pytest.mark.parametrize("entry", [
    lambda robot, log: BaseParameterEstimator(robot).fit(log),
    lambda robot, log: bp.identify_logs(robot, [log, log]),
    lambda robot, log: bp.identify_payload(robot, log),
    lambda robot, log: bp.identify_payload(robot, log, wrench=np.zeros((len(log.t), 6))),
])
def test_a_log_of_another_number_of_joints_is_refused_naming_it(entry):
    """Every fit refuses a log whose joints are not the robot's, in one line naming the log, in the same words (one
    check, _inputs.check_joints), before any work on it."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    t = np.arange(200) * 0.01
    q = np.sin(np.outer(t, [1.0, 2.0]))
    log = Trajectory(t=t, q=q, qd=np.cos(np.outer(t, [1.0, 2.0])), qdd=-q, tau=q, source="two.csv")
    with pytest.raises(DataError, match="^two.csv: 2 joints in the data, 3 in the robot description$"):
        entry(robot, log)
