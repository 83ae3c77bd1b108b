"""The dynamics layer (inverse dynamics, regressors, M, C, g, Slotine–Li) against independent references.

References used here (no pinocchio; see test_dynamics_pinocchio.py for that one):

* the classical Newton–Euler ``bp.inverse_dynamics`` and the regressors check each other, and the
  base regressor must reproduce both through the regroupings (W_b · Y p = W p = RNEA(p));
* an Euler–Lagrange evaluator written here from the rows of Z stored in the HDF5 file (analytic
  derivatives of the basis functions): the projection engine's Lagrangian, per standard column;
* Telegin's (2021) verification by targeted states — gravity only, one unit acceleration,
  velocities only — each against energies computed from plain DH matrix products in
  tests/random_bodies.py (complex-step derivatives), so a failure points at the wrong term;
* structural properties: M symmetric positive definite, C Christoffel-consistent (Ṁ − 2C skew),
  Slotine–Li regressor = M q̈_r + C q̇_r + g + friction(q̇).

All parameters are physically valid random bodies (tests/random_bodies.py), seeded.
"""
import dataclasses
import math
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from conftest import ROBOT_FILES
import random_bodies
from random_bodies import (CUSTOM, Energies, assert_close, base_parameters, check_body, custom_robot, random_body,
                           random_parameters, random_states, robots, standard_names, with_drives, with_gravity)

RTOL = 1e-10          # on max|diff| / max|τ|
FD_RTOL = 1e-6        # where central differences of M are involved
PARAMS = ["pseudo", "khalil"]
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])



# -- robots --------------------------------------------------------------------------------------------------
FILES = {p.stem: p for p in ROBOT_FILES}


def all_robots():
    out = {p.stem: (lambda p=p: bp.load_robot(p)) for p in ROBOT_FILES}
    out.update({name: (lambda n=name: custom_robot(n)) for name in CUSTOM})
    return out


ROBOTS = all_robots()
NAMES = sorted(ROBOTS)


def robot_named(name):
    return ROBOTS[name]()


def seed_of(*parts):
    return sum((i + 1) * ord(ch) for i, ch in enumerate("/".join(parts))) % 2**32


# The robots of the oracle comparisons (setup, Lagrange): one object per name and drives, so that a robot's compiled
# code is built once, not in every test (random_bodies.shared_robot; this file alone: 37 s of CPU → 28 s). Every test
# still compares the code with its own reference at its own states; the tests of compiling (the C loops below) build
# their own objects. No robot here is called COMPILE_AFTER times: the shared ones stay on the numpy blocks, as fresh
# ones did.
_CUSTOM_SHARED = {}


def shared_robot(name, drives):
    """robot_named(name), with drives declared (with_drives) if ``drives``: the same object on every call."""
    if name in FILES:
        return random_bodies.shared_robot(FILES[name], drives)
    if (name, drives) not in _CUSTOM_SHARED:
        robot = robot_named(name)
        _CUSTOM_SHARED[name, drives] = with_drives(robot) if drives else robot
    return _CUSTOM_SHARED[name, drives]


def setup(name, parameters, n_samples=8, drives=False):
    robot = shared_robot(name, drives)
    rng = np.random.default_rng(seed_of(name, parameters, str(drives)))
    p, bodies, dr = random_parameters(robot, parameters, rng)
    q, qd, qdd = random_states(robot, n_samples, rng)
    return robot, p, bodies, dr, (q, qd, qdd), rng


# -- the generator itself ------------------------------------------------------------------------------------
def test_random_bodies_are_physically_valid():
    rng = np.random.default_rng(0)
    for _ in range(200):
        check_body(random_body(rng))


@pytest.mark.parametrize("name", NAMES)
def test_documented_column_order(name):
    """random_parameters builds p in the documented order; the package must use the same one."""
    robot = with_drives(robot_named(name))
    for parameters in PARAMS:
        assert bp.ColumnLayout(robot, parameters).names == standard_names(robot, parameters)


def test_pseudo_and_khalil_vectors_describe_the_same_dynamics():
    """The same bodies (same seed) written in either parameterization give the same torques."""
    robot = with_drives(robot_named("puma560"))
    q, qd, qdd = random_states(robot, 6, np.random.default_rng(11))
    p = {par: random_parameters(robot, par, np.random.default_rng(5))[0] for par in PARAMS}
    assert not np.allclose(p["pseudo"], p["khalil"])
    taus = [bp.inverse_dynamics(robot, p[par], q, qd, qdd, parameters=par) for par in PARAMS]
    assert_close(taus[1], taus[0], what="khalil vs pseudo vectors of the same bodies")


# -- conventions pinned by hand (every other reference reads dh_si() and gravity_si like the package) --------
ONE_LINK = {
    # name: (YAML joint with %s for the drives, gravity, link torque τ(q, q̇, q̈; m, c, I_c) written out by hand)
    # standard, revolute, α = 0, a = 0.7: the COM is (0.7 + c_x, c_y) turned by q in the base xy plane, at
    # distance² (0.7 + c_x)² + c_y² from the axis z0; gravity −y: Π = m g ((0.7 + c_x) sin q + c_y cos q)
    "standard revolute": ("{type: revolute, alpha: 0, a: 0.7, d: 0.2, %s}", (0, -9.81, 0),
                          lambda q, v, a, m, c, I: (I[2, 2] + m * ((0.7 + c[0]) ** 2 + c[1] ** 2)) * a
                          + m * 9.81 * ((0.7 + c[0]) * math.cos(q) - c[1] * math.sin(q))),
    # standard, prismatic along z0 against gravity −z: τ = m (q̈ + g)
    "standard prismatic": ("{type: prismatic, alpha: 30, a: 0.4, theta: 20, %s}", (0, 0, -9.81),
                           lambda q, v, a, m, c, I: m * (a + 9.81)),
    # modified, α = −90°, a = 0.3: link frame Rx(−90°) Rz(q) at (0.3, 0, 0), so the joint axis is +y0 and the
    # COM is at height z = −(c_x sin q + c_y cos q); gravity −z: Π = −m g (c_x sin q + c_y cos q)
    "modified revolute": ("{type: revolute, alpha: -90, a: 0.3, d: 0.0, %s}", (0, 0, -9.81),
                          lambda q, v, a, m, c, I: (I[2, 2] + m * (c[0] ** 2 + c[1] ** 2)) * a
                          - m * 9.81 * (c[0] * math.cos(q) - c[1] * math.sin(q))),
    # modified, α = 90°: the slide is −y0 (Rx(90°) z = (0, −1, 0)), gravity −y: τ = m (q̈ − g)
    "modified prismatic": ("{type: prismatic, alpha: 90, a: 0.3, theta: 40, %s}", (0, -9.81, 0),
                           lambda q, v, a, m, c, I: m * (a - 9.81)),
}


@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("case", sorted(ONE_LINK))
def test_one_link_by_hand(case, parameters):
    joint, gravity, by_hand = ONE_LINK[case]
    drives = "rotor_inertia: true, friction: true"
    convention = case.split()[0]
    robot = bp.parse_robot(f"convention: {convention}\nunits: {{length: m, angle: deg}}\n"
                           f"gravity: {list(gravity)}\njoints:\n  - {joint % drives}\n", "one.yaml")
    rng = np.random.default_rng(seed_of(case, parameters))
    p, bodies, dr = random_parameters(robot, parameters, rng)
    m, c, Ic = bodies[0]
    for _ in range(4):
        q, v, a = rng.uniform(-math.pi, math.pi), rng.uniform(-2, 2), rng.uniform(-2, 2)
        expected = (by_hand(q, v, a, m, c, Ic) + dr.IA[0] * a + dr.FV[0] * v + dr.FC[0] * math.copysign(1, v)
                    + dr.FO[0])
        tau = bp.inverse_dynamics(robot, p, [q], [v], [a], parameters)
        assert_close(tau, np.array([expected]), what=f"{case} [{parameters}]: inverse_dynamics")
        assert_close(bp.regressor(robot, [q], [v], [a], parameters) @ p, np.array([expected]),
                     what=f"{case} [{parameters}]: regressor")


# -- W_b (Y p) = W p = RNEA(p) -------------------------------------------------------------------------------
def check_regressors_match_rnea(robot, parameters, p, q, qd, qdd, rng, tag):
    base = base_parameters(robot, parameters)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd, parameters=parameters)
    W = bp.regressor(robot, q, qd, qdd, parameters=parameters)
    n_std = len(base.standard_names)
    assert W.shape == q.shape + (n_std,), tag
    assert_close(W @ p, tau, what=f"{tag}: W p vs RNEA")
    Wb = base.regressor(q, qd, qdd)
    assert Wb.shape == q.shape + (base.rank,), tag
    assert_close(Wb @ base.from_standard(p), tau, what=f"{tag}: W_b (Y p) vs RNEA")
    assert_close(bp.inverse_dynamics(base.model(base.from_standard(p)), q, qd, qdd), tau,
                 what=f"{tag}: base.inverse_dynamics")
    # the regroupings hold for any parameters, physical or not
    P = rng.normal(size=(n_std, 3))
    assert_close(Wb @ base.from_standard(P), W @ P, what=f"{tag}: W_b Y P vs W P (random P)")


@pytest.mark.parametrize("drives", [False, True], ids=["plain", "drives"])
@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("name", NAMES)
def test_regressors_match_rnea(name, parameters, drives):
    robot, p, _, _, (q, qd, qdd), rng = setup(name, parameters, drives=drives)
    check_regressors_match_rnea(robot, parameters, p, q, qd, qdd, rng, f"{name} [{parameters}]")


@SETTINGS
@given(robot=robots(), parameters=st.sampled_from(PARAMS), seed=st.integers(0, 2**32 - 1))
def test_regressors_match_rnea_random_tables(robot, parameters, seed):
    rng = np.random.default_rng(seed)
    p, _, _ = random_parameters(robot, parameters, rng)
    q, qd, qdd = random_states(robot, 6, rng)
    check_regressors_match_rnea(robot, parameters, p, q, qd, qdd, rng, f"random [{parameters}]")


# -- Euler–Lagrange from the stored Z ------------------------------------------------------------------------
def _basis(joint, x):
    """Values and derivatives of Y_k (kinetic rows) and X_k (potential rows) at q_k = x (S,)."""
    one, zero = np.ones_like(x), np.zeros_like(x)
    if joint.is_revolute:
        c, s = np.cos(x), np.sin(x)
        Y, dY = [one, c, s, c * c, s * c], [zero, -s, c, -2 * s * c, c * c - s * s]
        return np.stack(Y, 1), np.stack(dY, 1), np.stack(Y[:3], 1), np.stack(dY[:3], 1)
    Y, dY = [one, x, x * x], [zero, one, 2 * x]
    return np.stack(Y, 1), np.stack(dY, 1), np.stack(Y[:2], 1), np.stack(dY[:2], 1)


def lagrange_regressor(h5, robot, q, qd, qdd):
    """τ = d/dt ∂L/∂q̇ − ∂L/∂q per standard column, from the HDF5 rows of Z. Returns (S, n_dof, n_standard).

    L = Σ_rows Z[row] · f_row with f = q̇_i q̇_j Π_k Y_k[l_k] (i > j), q̇_i²/2 Π_k Y_k[l_k] (i = j) or
    Π_k X_k[l_k] (potential rows, i = j = 0); friction rows (i = −1) are not part of L.
    """
    rows, Z = h5["rows"], h5["Z"].tocsr()
    keep = np.flatnonzero(rows[:, 0] >= 0)
    rows, Z = rows[keep], Z[keep]
    S, n = q.shape
    R = len(rows)
    kinetic = rows[:, 0] > 0
    lab = rows[:, 2:] - 1
    b, db = np.empty((S, R, n)), np.empty((S, R, n))
    for k, joint in enumerate(robot.joints):
        Y, dY, X, dX = _basis(joint, q[:, k])
        lk = lab[:, k]
        assert lk.min() >= 0 and lk[kinetic].max(initial=0) < Y.shape[1], "kinetic label out of range"
        assert lk[~kinetic].max(initial=0) < X.shape[1], "potential label out of range"
        b[:, :, k] = np.where(kinetic, Y[:, np.where(kinetic, lk, 0)], X[:, np.where(kinetic, 0, lk)])
        db[:, :, k] = np.where(kinetic, dY[:, np.where(kinetic, lk, 0)], dX[:, np.where(kinetic, 0, lk)])
    B = b.prod(axis=2)                                                   # (S, R)
    dB = np.stack([db[:, :, m] * np.delete(b, m, axis=2).prod(axis=2) for m in range(n)], axis=2)  # ∂B/∂q_m
    Bdot = np.einsum("srm,sm->sr", dB, qd)
    T = np.zeros((S, n, R))                                              # τ_m per row's basis function
    sidx = np.arange(S)[:, None]
    rk = np.flatnonzero(kinetic)
    i, j = rows[rk, 0] - 1, rows[rk, 1] - 1
    same = i == j
    Bk, Bdk = B[:, rk], Bdot[:, rk]
    # i ≠ j: ∂f/∂q̇_i = q̇_j B → d/dt = q̈_j B + q̇_j Ḃ (and the same with i, j swapped);
    # i = j: f = q̇_i² B / 2, ∂f/∂q̇_i = q̇_i B → d/dt = q̈_i B + q̇_i Ḃ
    T[sidx, i[None, :], rk[None, :]] += qdd[:, j] * Bk + qd[:, j] * Bdk
    rs = rk[~same]
    T[sidx, j[None, ~same], rs[None, :]] += qdd[:, i[~same]] * B[:, rs] + qd[:, i[~same]] * Bdot[:, rs]
    vel = np.where(same, 0.5, 1.0) * qd[:, i] * qd[:, j]
    T[:, :, rk] -= vel[:, None, :] * dB[:, rk, :].transpose(0, 2, 1)    # − ∂L/∂q_m
    rp = np.flatnonzero(~kinetic)
    T[:, :, rp] -= dB[:, rp, :].transpose(0, 2, 1)
    return np.asarray((Z.T @ T.reshape(S * n, R).T).T).reshape(S, n, Z.shape[1])


LAGRANGE_CASES = [(name, "pseudo") for name in NAMES] + [
    (name, "khalil") for name in ("ppr", "panda", "rpp", "dual_arm_torso", "stanford_arm", "rpr_modified_drives",
                                  "tree_prismatic", "tree_interleaved", "skew7")]


def check_lagrange(robot, parameters, h5path, rng, tag):
    bp.find_and_store(robot, str(h5path), parameters)
    h5 = bp.read_h5(h5path)
    layout = bp.ColumnLayout(robot, parameters)
    assert h5["columns"] == layout.names, tag
    q, qd, qdd = random_states(robot, 5, rng)
    W = bp.regressor(robot, q, qd, qdd, parameters=parameters)
    L = lagrange_regressor(h5, robot, q, qd, qdd)
    friction = sorted(layout.friction_columns.values())
    cols = [c for c in range(layout.n_standard) if c not in friction]
    # column by column (each column's own scale; round-off columns of W compare to the global one)
    scale = np.maximum(np.abs(W[:, :, cols]).max(axis=(0, 1)), 1e-3 * np.abs(W).max())
    err = np.abs(W[:, :, cols] - L[:, :, cols]).max(axis=(0, 1))
    bad = [(layout.names[c], f"{e:.2e}", f"{s:.2e}") for c, e, s in zip(cols, err, scale) if e > RTOL * s]
    assert not bad, f"{tag}: regressor columns differ from Euler–Lagrange on Z (name, max|diff|, scale): {bad}"
    assert not np.any(L[:, :, friction]), f"{tag}: friction columns in the Lagrangian"
    # and through the parameters, against Newton–Euler (friction added by hand)
    p, _, dr = random_parameters(robot, parameters, rng)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd, parameters=parameters)
    assert_close(L @ p + dr.friction(qd), tau, what=f"{tag}: Lagrange(Z) p + friction vs RNEA")


@pytest.mark.parametrize("name,parameters", LAGRANGE_CASES)
def test_lagrange_from_h5_matches_regressor(name, parameters, tmp_path):
    robot = shared_robot(name, name in ("ppr", "panda", "dual_arm_torso", "puma560"))   # drives: IA columns in L
    check_lagrange(robot, parameters, tmp_path / "z.h5", np.random.default_rng(seed_of(name, parameters)),
                   f"{name} [{parameters}]")


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(max_dof=4), parameters=st.sampled_from(PARAMS), seed=st.integers(0, 2**32 - 1))
def test_lagrange_from_h5_random_tables(robot, parameters, seed, tmp_path_factory):
    path = tmp_path_factory.mktemp("h5") / "z.h5"
    check_lagrange(robot, parameters, path, np.random.default_rng(seed), f"random [{parameters}]")


# -- Telegin's targeted checks against energies from plain DH products ---------------------------------------
def check_targeted(robot, parameters, p, bodies, dr, rng, tag, n_states=3):
    """Gravity only; one unit acceleration at rest without gravity; velocities only without gravity."""
    free = with_gravity(robot, (0.0, 0.0, 0.0))
    E, E0 = Energies(robot, bodies, dr), Energies(free, bodies, dr)
    n = robot.n_dof
    zero = np.zeros(n)
    q_all, qd_all, _ = random_states(robot, n_states, rng)
    for q, qd in zip(q_all, qd_all):
        # gravity only: τ = ∂Π/∂q (+ the friction offset FO: sign(0) = 0)
        g_ref = E.gravity(q)
        assert_close(bp.inverse_dynamics(robot, p, q, zero, zero, parameters) - dr.FO, g_ref,
                     what=f"{tag}: gravity only, inverse_dynamics")
        assert_close(bp.regressor(robot, q, zero, zero, parameters) @ p - dr.FO, g_ref,
                     what=f"{tag}: gravity only, regressor")
        assert_close(bp.gravity_torque(robot, p, q, parameters), g_ref, what=f"{tag}: gravity_torque")
        # unit accelerations: column i of M = Hessian of K w.r.t. q̇
        M_ref = E0.mass_matrix(q)
        for i in range(n):
            e = np.eye(n)[i]
            assert_close(bp.inverse_dynamics(free, p, q, zero, e, parameters) - dr.FO, M_ref[:, i],
                         what=f"{tag}: unit acceleration of joint {i + 1}, inverse_dynamics")
            # (the regressor of the robot as described, its gravity taken off with the independent g_ref:
            # one compiled regressor per robot instead of two)
            assert_close(bp.regressor(robot, q, zero, e, parameters) @ p - dr.FO - g_ref, M_ref[:, i],
                         what=f"{tag}: unit acceleration of joint {i + 1}, regressor")
        assert_close(bp.mass_matrix(robot, p, q, parameters), M_ref, what=f"{tag}: mass_matrix")
        # velocities only: τ = d/dt(M q̇) − ∂K/∂q (+ friction)
        c_ref = E0.velocity_torque(q, qd)
        fr = dr.friction(qd)
        assert_close(bp.inverse_dynamics(free, p, q, qd, zero, parameters) - fr, c_ref,
                     what=f"{tag}: velocities only, inverse_dynamics")
        assert_close(bp.regressor(robot, q, qd, zero, parameters) @ p - fr - g_ref, c_ref,
                     what=f"{tag}: velocities only, regressor")
        assert_close(bp.coriolis_torque(robot, p, q, qd, parameters), c_ref, what=f"{tag}: coriolis_torque")
        assert_close(bp.friction_torque(robot, p, qd, parameters), fr, what=f"{tag}: friction_torque")
        # and all together, with gravity
        qdd = rng.uniform(-2, 2, n)
        assert_close(bp.inverse_dynamics(robot, p, q, qd, qdd, parameters), M_ref @ qdd + c_ref + g_ref + fr,
                     what=f"{tag}: M q̈ + c + g + friction")


@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("name", NAMES)
def test_targeted_states_against_energies(name, parameters):
    robot, p, bodies, dr, _, rng = setup(name, parameters, drives=name in ("puma560", "scara", "ppr", "skew7"))
    check_targeted(robot, parameters, p, bodies, dr, rng, f"{name} [{parameters}]", n_states=2)


@SETTINGS
@given(robot=robots(), parameters=st.sampled_from(PARAMS), seed=st.integers(0, 2**32 - 1))
def test_targeted_states_random_tables(robot, parameters, seed):
    rng = np.random.default_rng(seed)
    p, bodies, dr = random_parameters(robot, parameters, rng)
    check_targeted(robot, parameters, p, bodies, dr, rng, f"random [{parameters}]", n_states=2)


def test_energy_reference_is_not_trivially_zero():
    """The references feel every term (a zero reference would let everything pass)."""
    robot, p, bodies, dr, (q, qd, _), _ = setup("tree_prismatic", "pseudo")
    E = Energies(with_gravity(robot, (0, 0, 0)), bodies, dr)
    assert np.abs(Energies(robot, bodies, dr).gravity(q[0])).min() > 1e-3
    assert np.abs(E.velocity_torque(q[0], qd[0])).max() > 1e-2
    assert np.linalg.eigvalsh(E.mass_matrix(q[0])).min() > 1e-4


# -- M positive definite; C Christoffel-consistent -----------------------------------------------------------
@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("name", NAMES)
def test_mass_matrix_symmetric_positive_definite(name, parameters):
    robot, p, _, _, (q, _, _), _ = setup(name, parameters, n_samples=20, drives=name == "puma560")
    M = bp.mass_matrix(robot, p, q, parameters)
    assert M.shape == (20, robot.n_dof, robot.n_dof)
    assert_close(M, M.transpose(0, 2, 1), rtol=1e-13, what=f"{name}: M symmetric")
    eig = np.linalg.eigvalsh(M)
    assert (eig[:, 0] > 1e-9 * eig[:, -1]).all(), f"{name}: smallest eigenvalues {eig[:, 0]}"


def mass_matrix_derivatives(robot, p, q, parameters, h=1e-3):
    """∂M/∂q_k at each state (k last axis, shape (S, n, n, n)) by 4th-order central differences of
    bp.mass_matrix (all shifted states in one call)."""
    S, n = q.shape
    steps = np.array([2, 1, -1, -2]) * h
    shifted = q[:, None, None, :] + steps[None, :, None, None] * np.eye(n)[None, None, :, :]   # (S, 4, n, n)
    Ms = bp.mass_matrix(robot, p, shifted.reshape(-1, n), parameters).reshape(S, 4, n, n, n)
    dM = (-Ms[:, 0] + 8 * Ms[:, 1] - 8 * Ms[:, 2] + Ms[:, 3]) / (12 * h)   # (S, k, i, j)
    return dM.transpose(0, 2, 3, 1)


def check_coriolis(robot, parameters, p, rng, tag, n_states=3):
    q_all, qd_all, _ = random_states(robot, n_states, rng)
    C_all = bp.coriolis_matrix(robot, p, q_all, qd_all, parameters)
    assert C_all.shape == (n_states, robot.n_dof, robot.n_dof)
    c_all = bp.coriolis_torque(robot, p, q_all, qd_all, parameters)
    dM_all = mass_matrix_derivatives(robot, p, q_all, parameters)
    for _q, qd, C, c, dM in zip(q_all, qd_all, C_all, c_all, dM_all):
        # Γ_ijk = ½(∂_k M_ij + ∂_j M_ik − ∂_i M_jk), dM[i, j, k] = ∂_k M_ij
        Gamma = 0.5 * (dM + dM.transpose(0, 2, 1) - dM.transpose(2, 1, 0))
        C_ref = Gamma @ qd
        assert_close(C, C_ref, rtol=FD_RTOL, what=f"{tag}: C vs Christoffel symbols of M")
        Mdot = dM @ qd
        N = Mdot - 2 * C
        assert np.abs(N + N.T).max() <= FD_RTOL * max(np.abs(Mdot).max(), 1e-3), f"{tag}: Ṁ − 2C not skew"
        assert_close(C @ qd, c, what=f"{tag}: C q̇ vs coriolis_torque")
    assert_close(bp.coriolis_matrix(robot, p, q_all[0], qd_all[0], parameters), C_all[0], rtol=1e-13,
                 what=f"{tag}: single sample")


@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("name", NAMES)
def test_coriolis_matrix_is_christoffel_consistent(name, parameters):
    robot, p, _, _, _, rng = setup(name, parameters, drives=name in ("ur5", "stanford_arm"))
    check_coriolis(robot, parameters, p, rng, f"{name} [{parameters}]")


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(), parameters=st.sampled_from(PARAMS), seed=st.integers(0, 2**32 - 1))
def test_coriolis_matrix_random_tables(robot, parameters, seed):
    rng = np.random.default_rng(seed)
    p, _, _ = random_parameters(robot, parameters, rng)
    check_coriolis(robot, parameters, p, rng, f"random [{parameters}]", n_states=2)


# -- Slotine–Li ----------------------------------------------------------------------------------------------
def check_slotine_li(robot, parameters, p, dr, rng, tag):
    base = base_parameters(robot, parameters)
    pb = base.from_standard(p)
    q, qd, qdd = random_states(robot, 6, rng)
    _, qd_ref, qdd_ref = random_states(robot, 6, rng)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd, parameters)
    assert_close(base.slotine_li_regressor(q, qd, qd, qdd) @ pb, tau,
                 what=f"{tag}: base Slotine–Li at q̇_r = q̇")
    assert_close(bp.slotine_li_regressor(robot, q, qd, qd, qdd, parameters) @ p, tau,
                 what=f"{tag}: standard Slotine–Li at q̇_r = q̇")
    M = bp.mass_matrix(robot, p, q, parameters)
    C = bp.coriolis_matrix(robot, p, q, qd, parameters)
    ref = (np.einsum("sij,sj->si", M, qdd_ref) + np.einsum("sij,sj->si", C, qd_ref)
           + bp.gravity_torque(robot, p, q, parameters) + bp.friction_torque(robot, p, qd, parameters))
    assert_close(bp.friction_torque(robot, p, qd, parameters), dr.friction(qd), what=f"{tag}: friction_torque")
    Ysl = base.slotine_li_regressor(q, qd, qd_ref, qdd_ref)
    assert Ysl.shape == q.shape + (base.rank,)
    assert_close(Ysl @ pb, ref, what=f"{tag}: base Slotine–Li vs M q̈_r + C q̇_r + g + friction(q̇)")
    Y = bp.slotine_li_regressor(robot, q, qd, qd_ref, qdd_ref, parameters)
    assert_close(Y @ p, ref, what=f"{tag}: standard Slotine–Li vs M q̈_r + C q̇_r + g + friction(q̇)")
    # the regroupings hold for the Slotine–Li regressor as well (any parameters)
    P = rng.normal(size=(len(p), 2))
    assert_close(Ysl @ base.from_standard(P), Y @ P, what=f"{tag}: Y_b Y P vs Y P")


@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("name", NAMES)
def test_slotine_li(name, parameters):
    robot, p, _, dr, _, rng = setup(name, parameters, drives=name in ("puma560", "scara", "dual_arm_torso"))
    check_slotine_li(robot, parameters, p, dr, rng, f"{name} [{parameters}]")


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(), parameters=st.sampled_from(PARAMS), seed=st.integers(0, 2**32 - 1))
def test_slotine_li_random_tables(robot, parameters, seed):
    rng = np.random.default_rng(seed)
    p, _, dr = random_parameters(robot, parameters, rng)
    check_slotine_li(robot, parameters, p, dr, rng, f"random [{parameters}]")


# -- API behaviour -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def api():
    robot = custom_robot("rpr_modified_drives")
    rng = np.random.default_rng(77)
    p, _, _ = random_parameters(robot, "pseudo", rng)
    base = bp.find_base_parameters(robot, "pseudo")
    states = dict(zip(("q", "qd", "qdd"), random_states(robot, 4, rng)))
    states["qd_ref"], states["qdd_ref"] = random_states(robot, 4, rng)[1:]
    return robot, p, base, states


# name → (callable(robot, p, base, **states), its state arguments, its parameter argument or None)
CALLS = {
    "inverse_dynamics": (lambda r, p, b, q, qd, qdd: bp.inverse_dynamics(r, p, q, qd, qdd), ("q", "qd", "qdd"), "p"),
    "regressor": (lambda r, p, b, q, qd, qdd: bp.regressor(r, q, qd, qdd), ("q", "qd", "qdd"), None),
    "slotine_li_regressor": (lambda r, p, b, q, qd, qd_ref, qdd_ref:
                             bp.slotine_li_regressor(r, q, qd, qd_ref, qdd_ref),
                             ("q", "qd", "qd_ref", "qdd_ref"), None),
    "mass_matrix": (lambda r, p, b, q: bp.mass_matrix(r, p, q), ("q",), "p"),
    "gravity_torque": (lambda r, p, b, q: bp.gravity_torque(r, p, q), ("q",), "p"),
    "coriolis_torque": (lambda r, p, b, q, qd: bp.coriolis_torque(r, p, q, qd), ("q", "qd"), "p"),
    "friction_torque": (lambda r, p, b, qd: bp.friction_torque(r, p, qd), ("qd",), "p"),
    "coriolis_matrix": (lambda r, p, b, q, qd: bp.coriolis_matrix(r, p, q, qd), ("q", "qd"), "p"),
    "base.regressor": (lambda r, p, b, q, qd, qdd: b.regressor(q, qd, qdd), ("q", "qd", "qdd"), None),
    "base.slotine_li_regressor": (lambda r, p, b, q, qd, qd_ref, qdd_ref:
                                  b.slotine_li_regressor(q, qd, qd_ref, qdd_ref),
                                  ("q", "qd", "qd_ref", "qdd_ref"), None),
    "base.inverse_dynamics": (lambda r, p, b, q, qd, qdd:
                              bp.inverse_dynamics(b.model(b.from_standard(p)), q, qd, qdd),
                              ("q", "qd", "qdd"), None),
}


def _expected_tail(name, robot, base):
    n, n_std = robot.n_dof, bp.ColumnLayout(robot).n_standard
    return {"regressor": (n, n_std), "slotine_li_regressor": (n, n_std), "mass_matrix": (n, n),
            "coriolis_matrix": (n, n), "base.regressor": (n, base.rank),
            "base.slotine_li_regressor": (n, base.rank)}.get(name, (n,))


def names_argument(message, name):
    return re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", message) is not None


@pytest.mark.parametrize("fname", sorted(CALLS))
def test_single_sample_equals_batch(api, fname):
    robot, p, base, states = api
    fn, args, _ = CALLS[fname]
    batch = fn(robot, p, base, **{a: states[a] for a in args})
    tail = _expected_tail(fname, robot, base)
    assert batch.shape == (4,) + tail
    for s in range(4):
        single = fn(robot, p, base, **{a: states[a][s] for a in args})
        assert single.shape == tail, fname
        np.testing.assert_allclose(single, batch[s], rtol=1e-13, atol=1e-13 * np.abs(batch).max())
    # lists work like arrays
    lists = fn(robot, p, base, **{a: states[a][0].tolist() for a in args})
    np.testing.assert_allclose(lists, batch[0], rtol=1e-13, atol=1e-13 * np.abs(batch).max())


def test_batches_across_the_block_boundary():
    """More samples than one internal block: every sample still equals its own single evaluation."""
    robot = with_drives(robot_named("planar_rrr"))
    rng = np.random.default_rng(3)
    p, _, _ = random_parameters(robot, "pseudo", rng)
    q, qd, qdd = random_states(robot, 4500, rng)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd)
    W = bp.regressor(robot, q, qd, qdd)
    base = bp.find_base_parameters(robot)
    Wb = base.regressor(q, qd, qdd)
    for s in (0, 2047, 2048, 2049, 4095, 4096, 4499):
        assert_close(tau[s], bp.inverse_dynamics(robot, p, q[s], qd[s], qdd[s]), rtol=1e-14, what=f"sample {s}")
        assert_close(W[s], bp.regressor(robot, q[s], qd[s], qdd[s]), rtol=1e-14, what=f"sample {s}")
        assert_close(Wb[s], base.regressor(q[s], qd[s], qdd[s]), rtol=1e-14, what=f"sample {s}")
    assert_close(np.einsum("snk,k->sn", W, p), tau, what="W p vs RNEA over 4500 samples")



@pytest.mark.parametrize("name", ["puma560", "panda", "dual_arm_torso", "ppr"])
def test_regressor_loop_in_c_matches_numpy(name, monkeypatch, tmp_path):
    """Large batches are filled by the regressor's C loop over samples: the same numbers as the numpy
    blocks (the same operations in the same order), and W p equals Newton–Euler."""
    from baseparam.dynamics import _native
    if _native.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    from baseparam.model.friction import FrictionModel, with_friction_model
    robot = with_drives(robot_named(name))
    if name == "ppr":                        # friction models: smooth Coulomb and Stribeck shapes as inputs
        robot = with_friction_model(with_drives(robot, (("IA", "FV", "FC", "FO"), ("FC",), ("FV", "FC"))),
                                    FrictionModel("smooth", 0.05, 0.1))
    rng = np.random.default_rng(5)
    p = random_parameters(robot, "pseudo", rng)[0]
    p = np.concatenate([p, np.full(bp.ColumnLayout(robot).n_standard - len(p), 0.3)])   # + Stribeck columns
    q, qd, qdd = random_states(robot, 300, rng)
    base = bp.find_base_parameters(robot)
    loaded, load = [], _native.load
    monkeypatch.setattr(_native, "load", lambda *args: loaded.append(load(*args)) or loaded[-1])
    results = {}
    for threshold in (10 ** 9, 1):
        monkeypatch.setattr("baseparam.dynamics._native_rule.NATIVE_SAMPLES", threshold)
        results[threshold] = (bp.regressor(robot, q, qd, qdd), base.regressor(q, qd, qdd),
                              base.slotine_li_regressor(q, qd, qd[::-1], qdd),
                              base.regressor(q, qd, qdd, shapes=(np.tanh(qd), np.zeros_like(qd))))
    assert loaded and all(lib is not None for lib in loaded), "no C loop was compiled"
    for numpy_W, c_W in zip(results[10 ** 9], results[1]):
        assert_close(c_W, numpy_W, rtol=1e-13, what=f"{name}: C loop vs numpy blocks")
    assert_close(np.einsum("snk,k->sn", results[1][0], p), bp.inverse_dynamics(robot, p, q, qd, qdd),
                 what=f"{name}: W p (C loop) vs RNEA")

@pytest.mark.parametrize("name", ["panda", "panda plain", "ppr"])
def test_threaded_c_loop_equals_the_single_sample_path(name, monkeypatch, tmp_path):
    """The C loop's samples shared by threads: every worker count gives the same numbers as one thread and
    as the single-sample (numpy) path, sample by sample; a reused ``out`` holding garbage is overwritten
    whole (the structural zeros too), and the fresh output is the same. Without friction (plain: the code
    reads no friction shapes) given shapes are still checked."""
    from baseparam.dynamics import _native
    if _native.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    from baseparam.model.friction import FrictionModel, with_friction_model
    robot = robot_named(name.split()[0]) if name.endswith("plain") else with_drives(robot_named(name))
    if name == "ppr":                        # friction models: smooth Coulomb and Stribeck shapes as inputs
        robot = with_friction_model(with_drives(robot, (("IA", "FV", "FC", "FO"), ("FC",), ("FV", "FC"))),
                                    FrictionModel("smooth", 0.05, 0.1))
    base = bp.find_base_parameters(robot)
    q, qd, qdd = random_states(robot, 301, np.random.default_rng(11))
    monkeypatch.setattr("baseparam.dynamics._native_rule.COMPILE_AFTER", 10 ** 9)   # single samples stay with numpy
    single = [base.regressor(q[s], qd[s], qdd[s]) for s in range(len(q))]      # numpy, one sample each
    single_sl = [base.slotine_li_regressor(q[s], qd[s], qd[-1 - s], qdd[s]) for s in (0, 150, 300)]
    full_single = bp.regressor(robot, q[7], qd[7], qdd[7])
    monkeypatch.setattr("baseparam.dynamics._native_rule.NATIVE_SAMPLES", 1)
    one = base.regressor(q, qd, qdd, workers=1)
    assert np.any(one == 0.0), "no structural zero: the garbage check below would not test them"
    for workers in (2, 3, 7, -1, None):
        np.testing.assert_array_equal(base.regressor(q, qd, qdd, workers=workers), one, err_msg=f"workers={workers}")
        garbage = np.full(one.shape, np.nan)
        got = base.regressor(q, qd, qdd, out=garbage, workers=workers)
        assert got is garbage
        np.testing.assert_array_equal(got, one, err_msg=f"out= reused, workers={workers}")
    for s in range(len(q)):
        assert_close(one[s], single[s], rtol=1e-13, what=f"{name}: sample {s}, threaded C loop vs one sample")
    sl = base.slotine_li_regressor(q, qd, qd[::-1], qdd, workers=3)
    for k, s in enumerate((0, 150, 300)):
        assert_close(sl[s], single_sl[k], rtol=1e-13, what=f"{name}: Slotine–Li sample {s}, threaded vs one sample")
    W = bp.regressor(robot, q, qd, qdd, workers=2)
    assert_close(W[7], full_single, rtol=1e-13, what=f"{name}: full regressor, threaded vs one sample")
    for bad in (0, -2, 1.5, True, "2"):
        with pytest.raises(bp.ArgumentError, match=r"^workers: expected a whole number from 1 to 256, or -1"):
            base.regressor(q, qd, qdd, workers=bad)
    with pytest.raises(bp.ArgumentError, match=re.escape(f"shapes[0]: expected shape (301, {robot.n_dof})")):
        base.regressor(q, qd, qdd, shapes=(qd[:10], None), workers=2)


@pytest.mark.parametrize("name", ["puma560", "dual_arm_torso floating"])
def test_single_samples_run_the_c_loop_after_compile_after_calls(name, monkeypatch, tmp_path):
    """A robot's regressor called COMPILE_AFTER times compiles its C loop, which then serves single samples and
    small batches too: the numpy blocks' numbers to the bit, and the same errors for bad input."""
    import copy

    from baseparam.dynamics import _compiled, _native
    if _native.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    # the process's loaded kernels (by source): another test of this worker (bp.Regressor's) may have loaded this
    # robot's, which then is not compiled into tmp_path
    monkeypatch.setattr(_native, "_LOADED", {})
    monkeypatch.setattr("baseparam.dynamics._native_rule.COMPILE_AFTER", 5)
    robot = copy.deepcopy(robot_named(name.split()[0]))           # a new robot object: nothing compiled for it
    q, qd, qdd = random_states(robot, 40, np.random.default_rng(13))
    if name.endswith("floating"):
        robot = dataclasses.replace(robot, base="floating")
    base = bp.find_base_parameters(robot)
    if robot.is_floating:
        rng = np.random.default_rng(14)
        quat = rng.normal(size=(40, 4))
        q = np.hstack([rng.uniform(-1, 1, (40, 3)), quat / np.linalg.norm(quat, axis=1)[:, None], q])
        qd, qdd = (np.hstack([rng.uniform(-1, 1, (40, 6)), x]) for x in (qd, qdd))
    loop = _compiled.regressor_function(robot, base.parameters, base.pivots, "regressor").native
    numpy_rows = [base.regressor(q[s], qd[s], qdd[s]) for s in range(4)]      # calls 1-4: numpy's blocks
    assert loop.calls == 4 and not any(tmp_path.iterdir()), "compiled before COMPILE_AFTER calls"
    c_rows = [base.regressor(q[s], qd[s], qdd[s]) for s in range(4)]          # from call 5: the C loop
    assert any(p.suffix == ".so" for p in tmp_path.iterdir()), "no C loop compiled"
    for s in range(4):
        np.testing.assert_array_equal(c_rows[s], numpy_rows[s], err_msg=f"{name}: sample {s}")
    monkeypatch.setattr("baseparam.dynamics._native_rule.COMPILE_AFTER", 10 ** 9)
    blocks = base.regressor(q, qd, qdd)                                       # numpy's blocks
    monkeypatch.setattr("baseparam.dynamics._native_rule.COMPILE_AFTER", 5)
    np.testing.assert_array_equal(base.regressor(q, qd, qdd), blocks, err_msg=f"{name}: 40 samples")
    frozen = [x.copy() for x in (q, qd, qdd)]                                # read-only inputs: their addresses
    for x in frozen:                                                          # by numpy's ctypes helper
        x.setflags(write=False)
    np.testing.assert_array_equal(base.regressor(*(x[1] for x in frozen)), c_rows[1], err_msg=f"{name}: read-only")
    np.testing.assert_array_equal(base.regressor(*frozen), blocks, err_msg=f"{name}: read-only, 40 samples")
    bad = qd.copy()
    bad[3, -1] = np.nan
    with pytest.raises(bp.ArgumentError, match=r"qd: non-finite value nan at sample 3"):
        base.regressor(q, bad, qdd)


def test_native_address_is_the_first_byte_of_any_array():
    """_native.address (a ctypes view of the buffer) gives numpy's data pointer for writable arrays, views that
    start inside another array, strided, read-only and empty arrays (which a buffer view refuses)."""
    from baseparam.dynamics import _native
    a = np.arange(24.0).reshape(4, 6)
    frozen = a.copy()
    frozen.setflags(write=False)
    for x in (a, a[2:], a[1], a[:, 1:], a[:, ::2], frozen, frozen[3:], np.empty((0, 6)), np.frombuffer(b"12345678")):
        assert _native.address(x) == x.ctypes.data


@pytest.mark.parametrize("name", ["puma560 drives", "ppr smooth", "dual_arm_torso floating"])
def test_newton_euler_c_loop_gives_the_numpy_blocks_numbers(name, monkeypatch, tmp_path):
    """Newton–Euler's C loop over samples (from NATIVE_SAMPLES samples, as the regressors'): inverse dynamics,
    gravity and Coriolis torques, reaction wrenches and a floating base's mass matrix to the bit as the numpy
    blocks (friction shapes, smooth ones too, computed by numpy for both)."""
    import copy

    from baseparam.dynamics import _native
    from baseparam.dynamics.newton_euler import kernel
    from baseparam.model.friction import FrictionModel, with_friction_model
    if _native.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    robot = copy.deepcopy(robot_named(name.split()[0]))
    rng = np.random.default_rng(15)
    q, qd, qdd = random_states(robot, 200, rng)
    if name.endswith("drives"):
        robot = with_drives(robot)
    if name.endswith("smooth"):
        robot = with_friction_model(with_drives(robot, (("IA", "FV", "FC", "FO"), ("FC",), ("FV", "FC"))),
                                    FrictionModel("smooth", 0.05, 0.1))
    p = random_parameters(robot, "pseudo", rng)[0]
    if name.endswith("floating"):
        robot = dataclasses.replace(robot, base="floating")
        quat = rng.normal(size=(200, 4))
        q = np.hstack([rng.uniform(-1, 1, (200, 3)), quat / np.linalg.norm(quat, axis=1)[:, None], q])
        qd, qdd = (np.hstack([rng.uniform(-1, 1, (200, 6)), x]) for x in (qd, qdd))
        p = np.concatenate([np.array([0.1, 0.12, 0.09, 0.01, -0.02, 0.0, 0.1, 0.05, -0.03, 4.0]), p])
    model = bp.Model(robot, np.concatenate([p, np.full(bp.ColumnLayout(robot).n_standard - len(p), 0.3)]))

    def everything():
        extra = bp.mass_matrix(model, q) if robot.is_floating else bp.reaction_wrenches(model, q, qd, qdd)
        return (bp.inverse_dynamics(model, q, qd, qdd), bp.gravity_torque(model, q), bp.coriolis_torque(model, q, qd),
                extra)
    monkeypatch.setattr("baseparam.dynamics._native_rule.NATIVE_SAMPLES", 10 ** 9)
    blocks = everything()
    assert kernel(robot, "pseudo", True, True, None).native._lib is None
    monkeypatch.setattr("baseparam.dynamics._native_rule.NATIVE_SAMPLES", 1)
    loops = everything()
    assert kernel(robot, "pseudo", True, True, None).native._lib is not None, "no C loop compiled"
    for what, a, b in zip(("inverse dynamics", "gravity", "Coriolis", "wrenches or M"), loops, blocks):
        assert np.isfinite(b).all() and np.abs(b).max() > 0
        np.testing.assert_array_equal(a, b, err_msg=f"{name}: {what}")


def test_default_thread_count():
    """By default one thread per usable core, each with at least SAMPLES_PER_THREAD samples; a count
    the user gives is kept."""
    from baseparam._validation import usable_cores
    from baseparam.dynamics._native_rule import SAMPLES_PER_THREAD, thread_count
    assert thread_count(None, SAMPLES_PER_THREAD - 1) == 1
    assert thread_count(None, 10 ** 9) == usable_cores()
    assert thread_count(None, 2 * SAMPLES_PER_THREAD) == min(2, usable_cores())
    assert thread_count(5, 10) == 5


@pytest.mark.parametrize("threshold", [10 ** 9, 1])
def test_given_friction_shapes_without_a_stribeck_shape(threshold, monkeypatch, tmp_path):
    """shapes=(c, None) means no Stribeck shape (zeros), in the numpy blocks and in the C loop alike; shapes
    of another number of samples are refused (the C loop would read past their end)."""
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr("baseparam.dynamics._native_rule.NATIVE_SAMPLES", threshold)
    robot = with_drives(robot_named("puma560"))
    base = bp.find_base_parameters(robot)
    q, qd, qdd = random_states(robot, 300, np.random.default_rng(8))
    c = np.tanh(qd / 0.1)
    expected = base.regressor(q, qd, qdd, shapes=(c, np.zeros_like(c)))
    np.testing.assert_array_equal(base.regressor(q, qd, qdd, shapes=(c, None)), expected)
    # the estimators' Newton–Euler with friction shapes (bp.inverse_dynamics takes no shapes)
    assert_close(base._inverse_dynamics(np.ones(base.rank), q, qd, qdd, shapes=(c, None)),
                 expected.sum(axis=2), what="inverse dynamics with shapes (c, None) vs W_b 1")
    with pytest.raises(bp.ArgumentError, match=r"shapes\[0\]: expected shape \(300, 6\)"):
        base.regressor(q, qd, qdd, shapes=(c[:10], None))


def _bad_variants(x):
    n = x.shape[1]
    return {
        "wrong n_dof": np.zeros((x.shape[0], n + 1)),
        "too few joints": np.zeros((x.shape[0], n - 1)),
        "3-D": x[:, :, None],
        "scalar": np.float64(0.3),
        "NaN": np.where(np.arange(x.size).reshape(x.shape) == 5, np.nan, x),
        "inf": np.where(np.arange(x.size).reshape(x.shape) == 2, np.inf, x),
    }


@pytest.mark.parametrize("fname", sorted(CALLS))
def test_bad_state_arrays_raise_value_error_naming_the_argument(api, fname):
    robot, p, base, states = api
    fn, args, _ = CALLS[fname]
    for bad_arg in args:
        for kind, value in _bad_variants(states[bad_arg]).items():
            given_states = {a: states[a] for a in args}
            given_states[bad_arg] = value
            with pytest.raises(ValueError) as info:
                fn(robot, p, base, **given_states)
            msg = str(info.value)
            assert names_argument(msg, bad_arg), f"{fname}, {bad_arg} {kind}: {msg!r}"
            others = [a for a in args if a != bad_arg and names_argument(msg, a)]
            assert not others, f"{fname}, {bad_arg} {kind}: message also names {others}: {msg!r}"
        if len(args) > 1:                           # one argument with fewer samples than the others
            given_states = {a: states[a] for a in args}
            given_states[bad_arg] = states[bad_arg][:3]
            with pytest.raises(ValueError) as info:
                fn(robot, p, base, **given_states)
            assert names_argument(str(info.value), bad_arg), f"{fname}, {bad_arg} sample count: {info.value}"


@pytest.mark.parametrize("fname", sorted(f for f, c in CALLS.items() if c[2] == "p"))
def test_bad_parameters_raise_value_error_naming_p(api, fname):
    robot, p, base, states = api
    fn, args, _ = CALLS[fname]
    given_states = {a: states[a] for a in args}
    for bad in (p[:-1], np.append(p, 1.0), np.where(np.arange(p.size) == 3, np.nan, p),
                np.where(np.arange(p.size) == 0, -np.inf, p)):
        with pytest.raises(ValueError) as info:
            fn(robot, bad, base, **given_states)
        assert names_argument(str(info.value), "p"), f"{fname}: {info.value}"


@pytest.mark.parametrize("fname", sorted(f for f, c in CALLS.items() if c[2] == "p"))
def test_two_dimensional_p_raises_value_error_naming_p(api, fname):
    """p is documented as (n_standard,): a stack of parameter columns is a bad shape."""
    robot, p, base, states = api
    fn, args, _ = CALLS[fname]
    with pytest.raises(ValueError) as info:
        fn(robot, np.stack([p, p], axis=1), base, **{a: states[a] for a in args})
    assert names_argument(str(info.value), "p"), f"{fname}: {info.value}"


def test_bad_base_parameters_raise_value_error_naming_p_base(api):
    robot, p, base, states = api
    pb = base.from_standard(p)
    for bad in (pb[:-1], np.append(pb, 1.0), np.where(np.arange(pb.size) == 0, np.nan, pb), p,
                np.stack([pb, pb], axis=1)):
        with pytest.raises(ValueError) as info:
            bp.inverse_dynamics(base.model(bad), states["q"], states["qd"], states["qdd"])
        assert names_argument(str(info.value), "p_base"), str(info.value)


def test_bad_parameterization_name_raises():
    robot = robot_named("planar_rrr")
    q = np.zeros(3)
    with pytest.raises(ValueError, match="parameters"):
        bp.regressor(robot, q, q, q, parameters="inertial")
    with pytest.raises(ValueError, match="parameters"):
        bp.inverse_dynamics(robot, np.zeros(30), q, q, q, parameters="inertial")


# -- units: a description in mm/deg gives the same SI dynamics as one in m/rad -------------------------------
MM_DEG = [  # (type, alpha deg, a mm, d mm or theta deg, offset deg or mm, extras)
    ("revolute", -90, 0, 150, 10, "rotor_inertia: true, friction: [true, true, false]"),
    ("revolute", 0, 431.8, 0, -30, ""),
    ("prismatic", 90, -20.3, 30, 125, "friction: true, rotor_inertia: true"),
    ("revolute", -90, 0, 433.1, 0, "parent: 2"),
    ("revolute", 37.5, 12, 70, 45, "friction: [false, false, true]"),
]


def _units_text(si):
    lines = [f"name: units {'si' if si else 'mm'}", "convention: standard",
             f"units: {{length: {'m' if si else 'mm'}, angle: {'rad' if si else 'deg'}}}",
             "gravity: [0.3, -0.4, -9.81]", "joints:"]
    ang = (lambda v: repr(math.radians(v))) if si else repr
    lng = (lambda v: repr(v / 1000)) if si else repr
    for kind, alpha, a, x, off, extra in MM_DEG:
        fields = [f"type: {kind}", f"alpha: {ang(alpha)}", f"a: {lng(a)}"]
        if kind == "revolute":
            fields += [f"d: {lng(x)}", f"offset: {ang(off)}"]
        else:
            fields += [f"theta: {ang(x)}", f"offset: {lng(off)}"]
        if extra:
            fields.append(extra)
        lines.append("  - {" + ", ".join(fields) + "}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("parameters", PARAMS)
def test_mm_deg_description_gives_si_torques(parameters):
    mm = bp.parse_robot(_units_text(False), "x.yaml")
    si = bp.parse_robot(_units_text(True), "x.yaml")
    assert (mm.length_unit, mm.angle_unit, si.length_unit, si.angle_unit) == ("mm", "deg", "m", "rad")
    np.testing.assert_allclose(mm.dh_si(), si.dh_si(), rtol=1e-15, atol=1e-17)
    rng = np.random.default_rng(21)
    p, bodies, dr = random_parameters(si, parameters, rng)
    q, qd, qdd = random_states(si, 10, rng)
    _, qd_ref, qdd_ref = random_states(si, 10, rng)
    for fn in (lambda r: bp.inverse_dynamics(r, p, q, qd, qdd, parameters),
               lambda r: bp.regressor(r, q, qd, qdd, parameters),
               lambda r: bp.slotine_li_regressor(r, q, qd, qd_ref, qdd_ref, parameters),
               lambda r: bp.mass_matrix(r, p, q, parameters),
               lambda r: bp.gravity_torque(r, p, q, parameters),
               lambda r: bp.coriolis_matrix(r, p, q, qd, parameters),
               lambda r: bp.friction_torque(r, p, qd, parameters)):
        assert_close(fn(mm), fn(si), rtol=1e-12, what="mm/deg vs m/rad")
    b_mm, b_si = bp.find_base_parameters(mm, parameters), bp.find_base_parameters(si, parameters)
    assert b_mm.names == b_si.names
    tau = bp.inverse_dynamics(si, p, q, qd, qdd, parameters)
    assert_close(b_mm.regressor(q, qd, qdd) @ b_mm.from_standard(p), tau, rtol=1e-12, what="mm base regressor")
    assert_close(b_si.regressor(q, qd, qdd) @ b_si.from_standard(p), tau, rtol=1e-12, what="m base regressor")
    # and both equal the energies of the SI description (the mm one is not just consistent with itself)
    E = Energies(si, bodies, dr)
    assert_close(bp.gravity_torque(mm, p, q[0], parameters), E.gravity(q[0]), what="mm gravity vs energies")
    assert_close(bp.mass_matrix(mm, p, q[0], parameters), E.mass_matrix(q[0]), what="mm M vs energies")


# -- buffers, caching and robots built in code ---------------------------------------------------
def test_out_buffer_is_filled_and_reused():
    robot = robot_named("puma560")
    base = bp.find_base_parameters(robot)
    rng = np.random.default_rng(3)
    q, qd, qdd = (rng.uniform(-2, 2, (50, 6)) for _ in range(3))
    buf = np.full((50, 6, base.rank), np.nan)       # stale contents must not survive
    W = base.regressor(q, qd, qdd, out=buf)
    assert W is buf
    np.testing.assert_array_equal(W, base.regressor(q, qd, qdd))
    Y = base.slotine_li_regressor(q, qd, qd, qdd, out=buf)
    assert Y is buf
    np.testing.assert_allclose(Y, base.regressor(q, qd, qdd), rtol=1e-12, atol=1e-12 * np.abs(Y).max())
    for bad in (np.empty((50, 6, base.rank - 1)), np.empty((50, 6, base.rank), dtype=np.float32),
                np.empty((base.rank, 6, 50)).T):
        with pytest.raises(ValueError, match="^out:"):
            base.regressor(q, qd, qdd, out=bad)


def test_equal_robots_with_different_columns_do_not_share_code():
    # friction value 0 on joint 1 vs on joint 2: the Robots compare equal in Python (0.0 == False)
    # but their columns differ; the compiled regressor must follow the columns.
    J = bp.Joint
    A = bp.Robot((J("revolute", alpha=0.5, a=0.2, friction=(0.0, False, False)),
                  J("revolute", alpha=0.3, a=0.1, parent=1)))
    B = bp.Robot((J("revolute", alpha=0.5, a=0.2),
                  J("revolute", alpha=0.3, a=0.1, parent=1, friction=(0.0, False, False))))
    q, qd, qdd = np.array([[0.3, -0.2]]), np.array([[1.0, -0.4]]), np.array([[0.5, 2.0]])
    WA, WB = bp.regressor(A, q, qd, qdd), bp.regressor(B, q, qd, qdd)
    assert bp.ColumnLayout(A).names.index("FV1") == 10 and bp.ColumnLayout(B).names[-1] == "FV2"
    np.testing.assert_array_equal(WA[0, :, 10], [1.0, 0.0])
    np.testing.assert_array_equal(WB[0, :, -1], [0.0, -0.4])


@pytest.mark.parametrize("field,value", [("alpha", float("nan")), ("offset", float("inf")), ("a", "0.1")])
def test_joint_built_in_code_is_validated(field, value):
    with pytest.raises(bp.RobotDescriptionError, match=f"Joint.{field}"):
        bp.Joint("revolute", **{field: value})


def test_gravity_built_in_code_is_validated():
    with pytest.raises(bp.RobotDescriptionError, match="gravity"):
        bp.Robot((bp.Joint("revolute"),), gravity=(0.0, float("nan"), -9.81))


def test_standard_parameters_from_the_description():
    text = """
name: two links
units: {length: mm, angle: deg}
joints:
  - {type: revolute, alpha: 90, a: 100, d: 200, friction: [0.5, 1.0, false], rotor_inertia: 0.01,
     inertia: {mass: 2, com: [0.1, 0, 0.05], inertia: [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.3]]}}
  - {type: revolute, alpha: 0, a: 300, d: 0,
     inertia: {mass: 1, com: [0.15, 0, 0], inertia: [[0.01, 0, 0], [0, 0.02, 0], [0, 0, 0.02]]}}
"""
    robot = bp.parse_robot(text, "two.yaml")
    q, qd, qdd = np.array([0.3, -0.2]), np.array([1.0, 2.0]), np.array([0.5, 0.1])
    taus = [bp.inverse_dynamics(robot, bp.standard_parameters(robot, par), q, qd, qdd, par) for par in PARAMS]
    assert_close(taus[0], taus[1], what="pseudo vs khalil")
    # At q = 0 joint 2's axis z1 = Rx(90°) e_z = −y0 is horizontal and link 2 points along x0; its
    # centre of mass is a2 + 0.15 = 0.45 m out (frame 2 sits at the link's far end, standard DH),
    # so holding it takes m g · 0.45 = 4.4145 N·m about −y0; joint 1 (vertical axis) takes nothing.
    still = bp.gravity_torque(robot, bp.standard_parameters(robot), [0.0, 0.0])
    assert_close(still, np.array([0.0, 1.0 * 9.81 * 0.45]), what="gravity by hand")
    with pytest.raises(bp.RobotDescriptionError, match="inertia"):
        bp.standard_parameters(robot_named("puma560"))


def test_joints_built_in_code_default_to_a_chain():
    # docs/formats.md: parent defaults to the previous joint, in code as in YAML
    J = bp.Joint
    chain = bp.Robot((J("revolute", alpha=1.5707963267948966, d=0.3), J("revolute", a=0.4), J("revolute", a=0.3)))
    assert [j.parent for j in chain.joints] == [0, 1, 2] and chain.is_chain
    tree = bp.Robot((J("revolute", d=0.3), J("revolute", a=0.4, parent=1), J("revolute", a=0.3, parent=1)))
    assert [j.parent for j in tree.joints] == [0, 1, 1] and not tree.is_chain
    yaml = bp.parse_robot("""
name: chain
units: {length: m, angle: rad}
joints:
  - {type: revolute, alpha: 1.5707963267948966, a: 0, d: 0.3}
  - {type: revolute, alpha: 0, a: 0.4, d: 0}
  - {type: revolute, alpha: 0, a: 0.3, d: 0}
""", "chain.yaml")
    q = np.array([[0.3, -0.7, 1.1]])
    np.testing.assert_allclose(bp.regressor(chain, q, q, q), bp.regressor(yaml, q, q, q), rtol=0, atol=1e-14)


def test_joint_parent_and_friction_shorthand_built_in_code():
    assert bp.Joint("revolute", friction=True).friction == (True, True, True)   # YAML's `friction: true`
    for bad in ("1", 1.0, True):
        with pytest.raises(bp.RobotDescriptionError, match="Joint.parent"):
            bp.Joint("revolute", parent=bad)


def test_readme_dynamics_example_runs(root):
    # the README's dynamics snippet must run as written
    text = (root / "README.md").read_text()
    start = text.index("```python\nimport numpy as np\nimport baseparam as bp")
    code = text[start + len("```python\n"):text.index("```", start + 10)]
    scope = {}
    cwd = os.getcwd()
    try:
        os.chdir(root)
        exec(compile(code, "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    base, p = scope["base"], scope["p"]
    assert_close(scope["Wb"] @ base.from_standard(p), scope["tau"], what="README: W_b p̃ vs τ")
    assert_close(scope["W"] @ p, scope["tau"], what="README: W p vs τ")


def test_operation_counts():
    from baseparam.dynamics.expressions import Graph, operation_count
    from baseparam.dynamics import regressor_graph as regressor_graph
    g = Graph()
    x, y = g.input("x"), g.input("y")
    e = (x * y + x * y) * (x - y) - (-(x * 1.0))      # x·y shared; ·1 and the double negation fold
    assert operation_count(g, [e.i]) == {"mul": 2, "add": 3, "div": 0}
    # HybrDyn's base regressor of a 6R arm with general gravity costs 886 mul / 618 add (issue 5's
    # reference point); the folded, shared graph of the PUMA 560's must cost less
    robot = bp.load_robot(ROBOT_FILES[[p.stem for p in ROBOT_FILES].index("puma560")])
    base = bp.find_base_parameters(robot)
    g, outputs = regressor_graph.build(robot, "pseudo", base.pivots)
    counts = operation_count(g, [i for *_, i in outputs])
    assert counts["mul"] < 886 and counts["add"] < 618, counts
