"""Ivanov's equations in Poisson impulses against pinocchio (dense algebra on the same model).

* p = M q̇ with pinocchio's M (``crba``), rotor inertia included;
* both O(N) solvers (sweep, block LTDL) give q̇ = M⁻¹ p as ``numpy.linalg.solve`` on pinocchio's M,
  and agree with each other;
* ṗ = M q̈ + Ṁ q̇ with pinocchio's q̈ (``aba``) and Ṁ = C + Cᵀ (``computeCoriolisMatrix``);
* the momentum of the links = pinocchio's centroidal momentum moved to the world origin; potential
  energy = ``computePotentialEnergy``; kinetic energy = ½ q̇ᵀ M q̇.

Robots: random DH tables (trees, prismatic joints, both conventions), fixed and floating.
"""
import dataclasses

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import baseparam as bp  # noqa: E402
from random_bodies import assert_close, robots  # noqa: E402
from test_forward_dynamics import floating, problem  # noqa: E402


def plain(robot):
    """The robot without rotor inertia and friction (pinocchio's model has neither)."""
    return dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, rotor_inertia=False,
                                                                       friction=(False, False, False))
                                                   for j in robot.joints))


def pin_state(ref, robot, q, qd, x):
    nq, nb = (7, 6) if robot.is_floating else (0, 0)
    return ref._pin(q, nq), ref._pin(qd, nb), ref._pin(x, nb)


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(), free=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_momenta_and_solvers_match_dense_algebra(robot, free, seed):
    robot = floating(robot) if free else robot
    p, ref, q, qd, tau = problem(robot, "pseudo", np.random.default_rng(seed), 3)
    momenta = bp.generalized_momenta(robot, p, q, qd)
    for s in range(3):
        M = ref.mass_matrix(q[s])
        assert_close(momenta[s], M @ qd[s], 1e-10, "momenta = M q̇ (pin.crba)")
        random = np.random.default_rng(seed + s).uniform(-2, 2, robot.n_v)
        for solver in ("sweep", "ltdl"):
            assert_close(bp.velocities_from_momenta(robot, p, q[s], random, solver), np.linalg.solve(M, random),
                         1e-9, f"{solver}: q̇ = M⁻¹ p vs solve(pin.crba, p)")
    for solver in ("sweep", "ltdl"):
        assert_close(bp.velocities_from_momenta(robot, p, q, momenta, solver), qd, 1e-9, f"{solver}: M⁻¹ M q̇ = q̇")


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(), free=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_momenta_rate_energies_and_momentum_match_pinocchio(robot, free, seed):
    robot = plain(floating(robot) if free else robot)
    p, ref, q, qd, tau = problem(robot, "khalil", np.random.default_rng(seed), 2)
    rate = bp.momenta_rate(robot, p, q, qd, tau, "khalil")
    momentum = bp.momentum(robot, p, q, qd, "khalil")
    kinetic = bp.kinetic_energy(robot, p, q, qd, "khalil")
    potential = bp.potential_energy(robot, p, q, "khalil")
    for s in range(2):
        qp, vp, tp = pin_state(ref, robot, q[s], qd[s], tau[s])
        a = pin.aba(ref.model, ref.data, qp, vp, tp)
        M = np.array(pin.crba(ref.model, ref.data, qp))
        M = np.triu(M) + np.triu(M, 1).T
        C = pin.computeCoriolisMatrix(ref.model, ref.data, qp, vp)
        expected = ref._full(M @ a + (C + C.T) @ vp, robot.is_floating)
        assert_close(rate[s], expected, 1e-9, "ṗ vs pinocchio's M q̈ + (C + Cᵀ) q̇")
        hg = pin.computeCentroidalMomentum(ref.model, ref.data, qp, vp)
        com = ref.data.com[0]
        assert_close(momentum[s], np.concatenate([hg.linear, hg.angular + np.cross(com, hg.linear)]), 1e-10,
                     "momentum vs pinocchio's centroidal momentum about the world origin")
        assert_close(potential[s], pin.computePotentialEnergy(ref.model, ref.data, qp), 1e-10, "potential energy")
        assert_close(kinetic[s], 0.5 * vp @ M @ vp, 1e-10, "kinetic energy ½ q̇ᵀ M q̇")


def test_solvers_refuse_unknown_names():
    robot = floating(plain(__import__("random_bodies").custom_robot("tree_prismatic")))
    p, _, q, qd, _ = problem(robot, "pseudo", np.random.default_rng(1), 1)
    with pytest.raises(bp.ArgumentError, match=r"solver: expected one of \('sweep', 'ltdl'\), got 'lu'"):
        bp.velocities_from_momenta(robot, p, q, qd, solver="lu")
