"""Fuzz round 24 (issue 28), helper lsim: the simulation's slow paths.

- ``simulate(state='momenta')`` of a fixed base evaluated Ivanov's recursion in numpy one sample at a time (6×6
  products per body, ≈ 0.5–2 ms an evaluation): a motion whose Coulomb friction sticks, refused after the
  evaluation budget (120 000 evaluations for 51 samples), took 55 s of CPU against 1.6 s in (q, q̇). Its steps now
  run two compiled kernels: q̇ = M(q)⁻¹ p (the ABA's articulated inertias at rest) and ṗ = Aᵀ(F* − v ×* μ) + Q
  (:mod:`baseparam.dynamics.momenta_graph`), the numpy recursion's numbers to round-off.
- ``solve_ivp``'s evaluation budget was 2000 per interval of t for the whole motion, counted at any time: 10⁶ samples
  of a joint sticking near the start were allowed 2·10⁹ evaluations (hours; fzapi stopped DOP853 after 40 s, Radau
  on 51 samples spent > 10 s). Now the budget grows with the intervals the motion has begun (intervals shorter than
  0.1 ms counted as 0.1 ms), the same total at the end; and a torque array's interpolation no longer costs O(S) per
  evaluation (np.interp converted all of t), nor its samples a Python call each.
"""
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.dynamics.momenta import CompiledRates, hamiltonian_rates
from baseparam.dynamics.samples import LinkParameters
from baseparam.errors import ArgumentError, SimulationError
from conftest import planar_arm
from random_bodies import CUSTOM, Energies, random_parameters, robots


def _without_friction(robot, p):
    """p with the friction coefficients of ``robot`` zeroed (random_parameters' order: body, IA, friction terms)."""
    keep = []
    for joint in robot.joints:
        keep += [True] * (10 + joint.has_rotor_inertia) + [False] * len(joint.friction_terms)
    return np.where(keep, p, 0.0)


def test_momenta_state_of_a_sticking_joint_is_refused_without_numpy_steps(monkeypatch):
    """The planar arm's Coulomb friction sticks at once under a constant torque: refused at the budget, as the
    velocity state refuses it, its steps never in numpy's recursion (55 s of CPU before)."""
    import baseparam.dynamics.momenta as momenta

    def numpy_recursion(*args, **kwargs):
        raise AssertionError("a fixed base's step ran numpy's recursion")
    monkeypatch.setattr(momenta, "solve", numpy_recursion)
    t, z = np.linspace(0, 0.5, 51), np.zeros(3)
    with pytest.raises(SimulationError, match="needed more than 22000 evaluations"):
        bp.simulate(bp.Model(planar_arm()), t, z, z, np.ones(3), state="momenta")
    run = bp.simulate(bp.Model(planar_arm()), t[:11], z, z, np.ones(3), method="rk4", state="momenta", substeps=3)
    assert np.isfinite(run.q).all() and np.isfinite(run.qd).all()


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(), seed=st.integers(0, 2**32 - 1))
def test_compiled_rates_are_the_numpy_recursion(robot, seed):
    """q̇ = M⁻¹ p and ṗ of the compiled kernels against Ivanov's numpy recursion (both solvers): round-off apart,
    trees, prismatic joints, rotor inertia, friction and tilted gravity included."""
    rng = np.random.default_rng(seed)
    p, _, _ = random_parameters(robot, "pseudo", rng)
    model = bp.Model(robot, p, parameters="pseudo")
    links = LinkParameters(robot, model.p, model.parameters)
    compiled = CompiledRates(model)
    for _ in range(3):
        q, momenta, tau = rng.uniform(-2, 2, robot.n_q), rng.normal(size=robot.n_v), rng.normal(size=robot.n_v)
        qd = compiled.velocities(q, momenta)
        rate = compiled.rate(q, qd, tau)
        for solver in ("ltdl", "sweep"):
            qd0, rate0 = hamiltonian_rates(robot, links, q[None], momenta[None], tau[None], solver)
            np.testing.assert_allclose(qd, qd0[0], rtol=1e-9, atol=1e-9 * np.abs(qd0).max())
            np.testing.assert_allclose(rate, rate0[0], rtol=1e-9, atol=1e-9 * np.abs(rate0).max())


@pytest.mark.parametrize("name", ["rpr_modified_drives", "tree_prismatic", "tree_interleaved"])
def test_momenta_state_keeps_energy_and_follows_the_velocity_state(name):
    """Without friction or torque the energy (an independent DH reference, :class:`Energies`) is kept along the
    compiled (q, p) motion, which is the (q, q̇) motion to the tolerances."""
    robot = bp.parse_robot(CUSTOM[name])
    p, bodies, drives = random_parameters(robot, "pseudo", np.random.default_rng(7))
    drives = dataclasses.replace(drives) if dataclasses.is_dataclass(drives) else drives
    drives.FV[:], drives.FC[:], drives.FO[:] = 0.0, 0.0, 0.0
    model = bp.Model(robot, _without_friction(robot, p), parameters="pseudo")
    t = np.linspace(0, 0.4, 41)
    q0, qd0 = np.full(robot.n_q, 0.3), np.linspace(-1.0, 1.0, robot.n_v)
    momenta = bp.simulate(model, t, q0, qd0, state="momenta", rtol=1e-11, atol=1e-11)
    velocities = bp.simulate(model, t, q0, qd0, rtol=1e-11, atol=1e-11)
    energies = Energies(robot, bodies, drives)
    energy = [energies.kinetic(q, qd) + energies.potential(q) for q, qd in zip(momenta.q, momenta.qd)]
    assert np.ptp(energy) < 1e-8 * max(1.0, abs(energy[0]))
    np.testing.assert_allclose(momenta.q, velocities.q, atol=1e-7)
    np.testing.assert_allclose(momenta.qd, velocities.qd, atol=1e-6)


def test_a_sticking_joint_among_a_million_samples_is_refused_where_it_sticks(monkeypatch):
    """10⁶ samples of a second: the joint sticks within microseconds, refused after 22 000 evaluations (a counter
    stops the old budget's 2·10⁹ at 100 000)."""
    import baseparam.simulation.integrate as integrate

    class Counted(integrate.ForwardDynamics):
        calls = 0

        def __call__(self, q, qd, tau):
            Counted.calls += 1
            assert Counted.calls < 100_000, "the budget let the sticking motion run on"
            return super().__call__(q, qd, tau)
    monkeypatch.setattr(integrate, "ForwardDynamics", Counted)
    z = np.zeros(3)
    with pytest.raises(SimulationError, match="needed more than 22000 evaluations by t = "):
        bp.simulate(bp.Model(planar_arm()), np.linspace(0, 1, 10**6), z, z, np.ones(3), method="DOP853")
    Counted.calls = 0
    # Radau spent its 22 000 too; an implicit method on sign(q̇) friction is now refused before any step
    # (test_fuzz_round25_lstiff)
    with pytest.raises(ArgumentError, match="^method: 'Radau' is implicit"):
        bp.simulate(bp.Model(planar_arm()), np.linspace(0, 1, 51), z, z, np.ones(3), method="Radau")
    assert Counted.calls == 0


def test_torque_rows_between_and_at_samples_are_np_interp_to_the_bit():
    """The interval's two rows give np.interp's numbers over all of t (signed zeros, huge values, the ends), and
    the rows at the samples are the rows themselves."""
    from baseparam.simulation.integrate import _Torque
    rng = np.random.default_rng(4)
    robot = planar_arm()
    t = np.cumsum(rng.uniform(1e-3, 1e-2, 200))
    rows = rng.normal(size=(200, 3)) * 10.0 ** rng.integers(-30, 30, (200, 3))
    rows[::7, 2], rows[3, 1], rows[4, 1] = -0.0, 1e308, -1e308
    torque = _Torque(robot, rows, t)
    times = np.concatenate([t, rng.uniform(t[0], t[-1], 300), np.nextafter(t[1:], -np.inf)])
    for time in times:
        whole = np.array([np.interp(time, t, column) for column in rows.T])
        assert np.array_equal(torque(time, None, None).view(np.int64), whole.view(np.int64)), time
    samples = torque.at_samples(np.zeros((200, 3)), np.zeros((200, 3)))
    assert np.array_equal(samples.view(np.int64), rows.view(np.int64))
