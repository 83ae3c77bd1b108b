"""The physically consistent fit (core of issue 13) on robots whose true parameters are known.

Torques are simulated from physical bodies (tests/random_bodies.py), so the truth satisfies the
constraints: noise-free, the fit must return the true base parameters exactly (to solver accuracy)
with every pseudo-inertia positive definite; with noise, the base parameters must lie within 3σ of
the truth (σ from the OLS covariance of the same data), and where OLS returns non-physical links,
the consistent fit does not.
"""
import numpy as np
import pytest

import baseparam as bp
from baseparam.identification._consistent import EPSILON, consistent_fit, pseudo_inertia
from conftest import ROOT
from random_bodies import random_parameters, random_states

pytest.importorskip("cvxpy")


def simulated(robot, parameters, seed, n=400, noise=0.0):
    rng = np.random.default_rng(seed)
    base = bp.find_base_parameters(robot, parameters)
    p, _, _ = random_parameters(robot, parameters, rng)
    q, qd, qdd = random_states(robot, n, rng)
    W = base.regressor(q, qd, qdd).reshape(-1, base.rank)
    tau = W @ base.from_standard(p)
    tau = tau + noise * np.abs(tau).std() * rng.normal(size=tau.shape)
    return base, p, W, tau


@pytest.mark.parametrize("name, parameters", [("puma560.yaml", "pseudo"), ("stanford_arm.yaml", "khalil"),
                                              ("dual_arm_torso.yaml", "pseudo")])
def test_noise_free_data_give_the_truth(name, parameters):
    robot = bp.load_robot(ROOT / "robots" / name)
    base, p, W, tau = simulated(robot, parameters, seed=1)
    fit = consistent_fit(base, W.T @ W, W.T @ tau, tau @ tau)
    truth = base.from_standard(p)
    np.testing.assert_allclose(fit.x, truth, atol=1e-5 * np.abs(truth).max())
    assert fit.status == "optimal" and np.all(fit.min_eigenvalues >= EPSILON * (1 - 1e-3))


def test_noisy_data_within_three_sigma_and_physical():
    robot = bp.load_robot(ROOT / "robots" / "ur5.yaml")
    base, p, W, tau = simulated(robot, "pseudo", seed=2, n=300, noise=0.05)
    fit = consistent_fit(base, W.T @ W, W.T @ tau, tau @ tau)
    ols, *_ = np.linalg.lstsq(W, tau, rcond=None)
    sigma2 = np.sum((tau - W @ ols) ** 2) / (len(tau) - base.rank)
    std = np.sqrt(np.diag(sigma2 * np.linalg.inv(W.T @ W)))
    truth = base.from_standard(p)
    assert np.all(np.abs(fit.x - truth) <= 3 * std + 1e-9), np.max(np.abs(fit.x - truth) / std)
    layout = bp.ColumnLayout(robot)
    for cols in layout.link_columns:
        assert np.linalg.eigvalsh(pseudo_inertia(fit.p[cols]))[0] >= EPSILON * (1 - 1e-3)
