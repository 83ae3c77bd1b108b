"""Simulation checked by conservation laws, by the dynamics it integrates and by identification.

* A free-floating tree without gravity and torque keeps its momentum (and, without friction, its
  energy): RK4 to round-off per step, solve_ivp to its tolerance; also in Ivanov's (q, p) form.
* A fixed-base arm with gravity and no friction keeps T + V; with friction and no torque, T + V
  never increases.
* RK4 is fourth order (error ×1/16 per halved step); rows of torque and the same torques from a
  controller give the same motion; C and the no-compiler Python fallback give the same motion.
* The log is consistent: inverse dynamics of (q, q̇, q̈) is the logged τ; quaternions stay unit.
* Identification of a simulated noise-free log recovers the true base parameters.
* Sensor noise is seeded and has the asked spread; bad arguments are one-line errors.
"""
import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from conftest import ROOT
from random_bodies import assert_close, custom_robot, link_vector, random_body, random_parameters, robots


def free_floating(robot, rng, gravity=(0.0, 0.0, 0.0), friction=False):
    """The robot on a floating base, with random bodies: (robot, p, q0, q̇0). ``friction``: viscous and
    offset (smooth, so that RK4 keeps its order; Coulomb's sign switches cost it accuracy)."""
    joints = tuple(dataclasses.replace(j, rotor_inertia=False, friction=(True, False, True) if friction else
                                       (False, False, False)) for j in robot.joints)
    fixed = dataclasses.replace(robot, joints=joints, gravity=gravity, base="fixed")
    p, _, drives = random_parameters(fixed, "pseudo", rng)
    floating = dataclasses.replace(fixed, base="floating")
    p = np.concatenate([link_vector(random_body(rng), "pseudo"), p])
    quat = rng.normal(size=4)
    q0 = np.concatenate([rng.uniform(-1, 1, 3), quat / np.linalg.norm(quat), rng.uniform(-1, 1, robot.n_dof)])
    return floating, p, q0, rng.uniform(-1, 1, floating.n_v)


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(max_dof=4), seed=st.integers(0, 2**32 - 1))
def test_free_floating_tree_conserves_momentum_and_energy(robot, seed):
    robot, p, q0, qd0 = free_floating(robot, np.random.default_rng(seed))
    t = np.linspace(0.0, 2.0, 1001)
    for method, tol in (("rk4", 1e-9), ("DOP853", 1e-6)):
        log = bp.simulate(robot, p, t, q0, qd0, method=method)
        h = bp.momentum(robot, p, log.q, log.qd)
        E = bp.kinetic_energy(robot, p, log.q, log.qd)
        scale = max(np.abs(h).max(), 1e-3)
        assert np.abs(h - h[0]).max() <= tol * scale, f"{method}: momentum drifts {np.abs(h - h[0]).max():.2e}"
        assert np.abs(E - E[0]).max() <= tol * E[0], f"{method}: energy drifts {np.abs(E - E[0]).max() / E[0]:.2e}"
        assert_close(np.linalg.norm(log.q[:, 3:7], axis=1), np.ones(len(t)), 1e-12, "unit quaternions")


def test_momentum_conserved_with_friction_and_in_impulse_form():
    """Joint friction acts between links: the momentum stays; viscous friction takes energy away (the
    constant offset torque FO works both ways, so it is left out of the energy check). Ivanov's (q, p)
    form gives the same motion."""
    robot, p, q0, qd0 = free_floating(custom_robot("tree_interleaved"), np.random.default_rng(3), friction=True)
    t = np.linspace(0.0, 0.5, 251)
    log = bp.simulate(robot, p, t, q0, qd0, method="rk4")
    h = bp.momentum(robot, p, log.q, log.qd)
    assert np.abs(h - h[0]).max() <= 1e-7 * np.abs(h).max()          # RK4's error at 2 ms, not a leak
    viscous = dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, friction=(True, False, False))
                                                      for j in robot.joints))
    layout = bp.ColumnLayout(robot)
    pv = np.delete(p, [c for (k, kind), c in layout.friction_columns.items() if kind == "FO"])
    damped = bp.simulate(viscous, pv, t, q0, qd0, method="rk4")
    assert np.diff(bp.kinetic_energy(viscous, pv, damped.q, damped.qd)).max() <= 1e-12
    short = slice(0, 51)
    impulses = bp.simulate(robot, p, t[short], q0, qd0, method="rk4", state="momenta", solver="sweep")
    assert_close(impulses.q, log.q[short], 1e-9, "(q, p) RK4 vs (q, q̇) RK4")
    assert_close(impulses.qd, log.qd[short], 1e-8, "(q, p) RK4 vs (q, q̇) RK4, velocities")
    controller = lambda time, q, qd: np.r_[np.zeros(6), np.sin(time) - 0.1 * qd[6:]]    # noqa: E731
    grid = np.linspace(0.0, 0.2, 11)
    a = bp.simulate(robot, p, grid, q0, qd0, controller, state="momenta", rtol=1e-11, atol=1e-11)
    b = bp.simulate(robot, p, grid, q0, qd0, controller, rtol=1e-11, atol=1e-11)
    assert_close(a.q, b.q, 1e-9, "(q, p) vs (q, q̇) under solve_ivp, a controller reading q̇")
    assert_close(a.qd, b.qd, 1e-8, "(q, p) vs (q, q̇) under solve_ivp, velocities")


def test_fixed_base_energy_with_gravity_and_dissipation():
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    rng = np.random.default_rng(5)
    p, _, _ = random_parameters(robot, "pseudo", rng)
    t = np.linspace(0.0, 1.0, 101)
    q0, qd0 = rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6)
    log = bp.simulate(robot, p, t, q0, qd0, rtol=1e-11, atol=1e-11)
    E = bp.kinetic_energy(robot, p, log.q, log.qd) + bp.potential_energy(robot, p, log.q)
    assert np.abs(E - E[0]).max() <= 1e-7 * np.abs(E).max(), np.abs(E - E[0]).max()
    damped = dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, friction=(True, True, False))
                                                     for j in robot.joints))
    pd, _, _ = random_parameters(damped, "pseudo", np.random.default_rng(5))
    log = bp.simulate(damped, pd, t, q0, qd0, method="rk4", substeps=10)
    E = bp.kinetic_energy(damped, pd, log.q, log.qd) + bp.potential_energy(damped, pd, log.q)
    assert np.diff(E).max() <= 1e-9 * np.abs(E).max(), "friction never adds energy"


def test_rk4_is_fourth_order_and_paths_agree(monkeypatch, tmp_path):
    robot = custom_robot("rpr_modified_drives")
    rng = np.random.default_rng(7)
    p, _, _ = random_parameters(robot, "khalil", rng)
    q0, qd0 = rng.uniform(-0.5, 0.5, 4), rng.uniform(-0.5, 0.5, 4)
    qd0[:] = np.abs(qd0) + 0.2          # keep Coulomb friction's sign fixed over the short run
    tau = np.array([3.0, 10.0, 1.0, 0.5])
    grid = np.linspace(0.0, 0.05, 10)
    exact = bp.simulate(robot, p, grid, q0, qd0, tau, parameters="khalil", rtol=1e-13, atol=1e-13)
    errors = [np.abs(bp.simulate(robot, p, grid, q0, qd0, tau, parameters="khalil", method="rk4",
                                 substeps=n).q[-1] - exact.q[-1]).max() for n in (1, 2, 4)]
    assert 10 < errors[0] / errors[1] < 25 and 10 < errors[1] / errors[2] < 25, errors

    t = np.arange(101) * 1e-3
    controller = lambda time, q, qd: -5.0 * q - 0.5 * qd + np.sin(time)    # noqa: E731
    by_callback = bp.simulate(robot, p, t, q0, qd0, controller, parameters="khalil", method="rk4")
    by_rows = bp.simulate(robot, p, t, q0, qd0, by_callback.tau, parameters="khalil", method="rk4")
    assert_close(by_rows.q, by_callback.q, 1e-14, "torque rows vs the controller that produced them")
    assert_close(bp.inverse_dynamics(robot, p, by_rows.q, by_rows.qd, by_rows.qdd, "khalil"), by_rows.tau, 1e-10,
                 "ID of the logged (q, q̇, q̈) = logged τ")

    import copy
    monkeypatch.setenv("BASEPARAM_CC", "none")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    robot = copy.deepcopy(robot)          # a new robot object: no kernel compiled for it yet
    python = bp.simulate(robot, p, t, q0, qd0, controller, parameters="khalil", method="rk4")
    assert_close(python.q, by_callback.q, 1e-12, "Python fallback vs C")


def test_identification_of_a_simulated_log_recovers_the_base_parameters():
    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    p = bp.standard_parameters(robot)
    base = bp.find_base_parameters(robot)
    t = np.arange(4001) * 2e-3
    w = 2 * np.pi / 8.0
    amplitude = np.array([0.8, 0.5, 0.7, 0.9, 1.0, 1.2])

    def controller(time, q, qd):          # computed torque around a multi-sine, true model
        k = np.arange(1, 4)[:, None]
        qr = (amplitude / k * np.sin(k * w * time + np.arange(6))).sum(axis=0)
        vr = (amplitude * w * np.cos(k * w * time + np.arange(6))).sum(axis=0)
        ar = -(amplitude * k * w ** 2 * np.sin(k * w * time + np.arange(6))).sum(axis=0)
        return bp.inverse_dynamics(robot, p, q, qd, ar + 20 * (vr - qd) + 100 * (qr - q))
    q0 = sum(amplitude / k * np.sin(np.arange(6)) for k in (1, 2, 3))         # on the reference at t = 0
    qd0 = 3 * amplitude * w * np.cos(np.arange(6))
    log = bp.simulate(robot, p, t, q0, qd0, controller, method="rk4")
    with warnings.catch_warnings():          # the weak wrist parameters: their σ is round-off's here
        warnings.simplefilter("ignore", bp.ExcitationWarning)
        result = bp.identify(robot, log, preprocessing=bp.Preprocessing.none(), parameters="pseudo")
    truth = base.from_standard(p)
    assert_close(result.values, truth, 1e-6, "identified base parameters vs the truth", floor=1.0)


def test_sensor_noise_is_seeded_and_has_its_spread():
    robot = custom_robot("tree_prismatic")
    p, _, _ = random_parameters(robot, "pseudo", np.random.default_rng(1))
    t = np.arange(2001) * 1e-3
    q0, qd0 = np.zeros(5), np.zeros(5)
    clean = bp.simulate(robot, p, t, q0, qd0, method="rk4")
    noise = bp.SensorNoise(q=1e-3, tau=[0.1, 0.2, 0.3, 0.4, 0.5], current=0.05, seed=4)
    gains = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    a = bp.simulate(robot, p, t, q0, qd0, noise=noise, gains=gains, method="rk4", record=("q", "tau"))
    b = bp.simulate(robot, p, t, q0, qd0, noise=noise, gains=gains, method="rk4", record=("q", "tau"))
    assert a.qd is None and a.qdd is None
    np.testing.assert_array_equal(a.tau, b.tau)
    spread = (a.tau - clean.tau).std(axis=0)
    expected = np.sqrt(np.array([0.1, 0.2, 0.3, 0.4, 0.5]) ** 2 + (0.05 * gains) ** 2)
    assert np.all(np.abs(spread / expected - 1) < 0.1), spread / expected
    coarse = bp.simulate(robot, p, t, q0, qd0, noise=bp.SensorNoise(resolution=1e-2), method="rk4")
    assert np.allclose(coarse.q / 1e-2, np.round(coarse.q / 1e-2))
    with pytest.raises(bp.ArgumentError, match="noise.current: motor-current noise needs the drive gains"):
        bp.simulate(robot, p, t[:20], q0, qd0, noise=bp.SensorNoise(current=0.1), method="rk4")


@pytest.mark.parametrize("change, message", [
    (dict(t=[0.0, 0.1, 0.1] + [1.0] * 8), r"t: times must increase; t\[2\] = 0.1 after t\[1\] = 0.1"),
    (dict(t=[0.0, 0.1]), r"t: expected increasing times of shape \(S,\) with S ≥ 10"),
    (dict(tau=np.zeros((5, 2))), r"tau: expected \(5,\) or \(10, 5\) torques"),
    (dict(tau=lambda time, q, qd: np.zeros(3)), r"tau: the controller returned \(3,\) values at t = 0 s"),
    (dict(method="Euler"), r"method/rtol/atol: "),
    (dict(q0=np.zeros(4)), r"q: expected shape \(n_samples, 5\) or \(5,\), got \(1, 4\)"),
    (dict(record=("q", "current")), r"record: unknown fields \['current'\]"),
    (dict(noise={"q": 1e-3}), r"noise: expected a bp.SensorNoise, got dict"),
])
def test_bad_arguments_are_one_line_errors(change, message):
    robot = custom_robot("tree_prismatic")
    p, _, _ = random_parameters(robot, "pseudo", np.random.default_rng(1))
    args = dict(t=np.arange(10) * 0.1, q0=np.zeros(5), qd0=np.zeros(5)) | change
    with pytest.raises(bp.ArgumentError, match=message):
        bp.simulate(robot, p, args.pop("t"), args.pop("q0"), args.pop("qd0"), **args)
