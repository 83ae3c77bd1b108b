"""Fuzz round 25 (issues 22, 28), helper lfsim: the floating base's simulation in (q, p) on compiled kernels.

- ``simulate(state='momenta')`` of a floating base stepped with Ivanov's recursion in numpy, one sample at a time
  (6×6 products per body, ≈ 1 ms an evaluation): a space robot whose Coulomb friction sticks under a constant
  torque took 27–31 s of CPU to be refused at the evaluation budget (2 s in (q, q̇)). The compiled ṗ
  (:mod:`baseparam.dynamics.momenta_graph`) now has the floating base as its root body (one joint model, one spatial
  convention with the ABA's graph), and q̇ = M(q)⁻¹ p is the ABA's articulated inertias at rest, which served a
  floating base already: both bases step in the same two kernels.
- RK4's and ``solve_ivp``'s steps in (q, p) take one right-hand side (``integrate._momenta_rates``).
"""
import dataclasses
import pathlib
from functools import partial

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.dynamics.momenta import CompiledRates, hamiltonian_rates
from baseparam.dynamics.samples import LinkParameters
from baseparam.errors import SimulationError
from pin_model import PinReference
from random_bodies import custom_robot, general_robots, link_vector, random_body, random_parameters, robots

ROOT = pathlib.Path(__file__).resolve().parents[1]


def floating_problem(robot, rng):
    """(model, PinReference) of ``robot`` on a floating base with random physical bodies, drives as declared."""
    fixed = dataclasses.replace(robot, base="fixed", base_inertia=None)
    p, bodies, drives = random_parameters(fixed, "pseudo", rng)
    base = random_body(rng)
    robot = dataclasses.replace(fixed, base="floating")
    model = bp.Model(robot, np.concatenate([link_vector(base, "pseudo"), p]), parameters="pseudo")
    return model, PinReference(robot, bodies, drives, base)


def random_state(robot, rng):
    """(q, p, τ): a unit quaternion, joints in ±2, momenta and torques (base wrench included) normal."""
    quat = rng.normal(size=4)
    q = np.concatenate([rng.uniform(-1, 1, 3), quat / np.linalg.norm(quat), rng.uniform(-2, 2, robot.n_dof)])
    return q, rng.normal(size=robot.n_v), rng.normal(size=robot.n_v)


def relative(actual, expected):
    return np.abs(actual - expected).max() / np.abs(expected).max()


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=st.one_of(robots(max_dof=4), general_robots(drives=True)), seed=st.integers(0, 2**32 - 1))
def test_floating_compiled_rates_are_the_numpy_recursion(robot, seed):
    """q̇ = M⁻¹ p and ṗ of a floating base's compiled kernels against Ivanov's numpy recursion (both solvers) to
    1e-12 relative: DH and URDF trees, prismatic joints, rotor inertia, friction, tilted gravity, a base wrench.
    Before, CompiledRates refused a floating base (its ṗ graph was of a fixed base only)."""
    rng = np.random.default_rng(seed)
    model, _ = floating_problem(robot, rng)
    robot = model.robot
    links = LinkParameters(robot, model.p, model.parameters)
    compiled = CompiledRates(model)
    for _ in range(4):
        q, momenta, tau = random_state(robot, rng)
        qd = compiled.velocities(q, momenta)
        rate = compiled.rate(q, qd, tau)
        for solver in ("ltdl", "sweep"):
            qd0, rate0 = hamiltonian_rates(robot, links, q[None], momenta[None], tau[None], solver)
            assert relative(qd, qd0[0]) < 1e-12, solver
            assert relative(rate, rate0[0]) < 1e-12, solver


@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=st.one_of(robots(max_dof=4), general_robots(drives=True)), seed=st.integers(0, 2**32 - 1))
def test_floating_compiled_rates_are_pinocchios_free_flyer(robot, seed):
    """Against pinocchio's free-flyer, built from the description alone: q̇ solves M(q) q̇ = p (pin.crba), and
    ṗ = d/dt (M q̇) = τ − friction − g + Cᵀ q̇ (M q̈ = τ − C q̇ − g − friction and Ṁ = C + Cᵀ, pinocchio's C)."""
    rng = np.random.default_rng(seed)
    model, ref = floating_problem(robot, rng)
    robot = model.robot
    compiled = CompiledRates(model)
    order = np.concatenate([np.arange(6), 6 + ref.perm])       # pinocchio's depth-first joints → ours
    for _ in range(3):
        q, momenta, tau = random_state(robot, rng)
        qd = compiled.velocities(q, momenta)
        assert relative(qd, np.linalg.solve(ref.mass_matrix(q), momenta)) < 1e-10
        C = np.empty((robot.n_v, robot.n_v))
        C[np.ix_(order, order)] = pin.computeCoriolisMatrix(ref.model, ref.data, ref._pin(q, 7), ref._pin(qd, 6))
        friction = np.concatenate([np.zeros(6), ref.drives.friction(qd[6:])])
        expected = tau - friction - ref.gravity(q) + C.T @ qd
        assert relative(compiled.rate(q, qd, tau), expected) < 1e-10


def sticking_space_robot():
    """The space robot with Coulomb friction (3 N·m) on its joints: under 1 N·m they stick at once."""
    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    joints = tuple(dataclasses.replace(j, friction=(0.4, 3.0, 0.1)) for j in robot.joints)
    return bp.Model(dataclasses.replace(robot, joints=joints, source=None))


def test_a_sticking_space_robot_in_momenta_is_refused_without_numpy_steps(monkeypatch):
    """Refused at the evaluation budget, as in (q, q̇), its steps never in numpy's recursion (27–31 s of CPU before);
    RK4 in (q, p) of the same robot runs compiled too."""
    import baseparam.dynamics.momenta as momenta

    def numpy_recursion(*args, **kwargs):
        raise AssertionError("a floating base's step ran numpy's recursion")
    monkeypatch.setattr(momenta, "solve", numpy_recursion)
    model = sticking_space_robot()
    t, q0, qd0 = np.linspace(0, 0.5, 51), np.zeros(model.n_q), np.zeros(model.n_v)
    q0[6] = 1.0
    with pytest.raises(SimulationError, match="needed more than 24000 evaluations by t = 3.19"):
        bp.simulate(model, t, q0, qd0, np.ones(model.robot.n_dof), state="momenta")
    run = bp.simulate(model, t[:11], q0, qd0, np.ones(model.robot.n_dof), method="rk4", state="momenta")
    assert np.isfinite(run.q).all() and np.isfinite(run.qd).all()


@pytest.mark.parametrize("method", ["rk4", "DOP853"])
def test_free_floating_motion_in_momenta_keeps_pinocchios_momentum(method):
    """Without gravity, torque or friction a floating tree keeps its momentum: pinocchio's centroidal momentum
    (world axes, about the moving centre of mass) of the compiled (q, p) motion is constant to the integrator's
    error, and the motion is the (q, q̇) one."""
    rng = np.random.default_rng(11)
    robot = dataclasses.replace(custom_robot("tree_interleaved"), gravity=(0.0, 0.0, 0.0))
    robot = dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, friction=(False, False, False))
                                                    for j in robot.joints))
    model, ref = floating_problem(robot, rng)
    q0, _, _ = random_state(model.robot, rng)
    qd0 = rng.uniform(-1, 1, model.n_v)
    t = np.linspace(0, 1.0, 201)
    tol = dict(rtol=1e-11, atol=1e-11) if method == "DOP853" else dict(substeps=4)
    run = bp.simulate(model, t, q0, qd0, method=method, state="momenta", **tol)
    h = np.array([pin.computeCentroidalMomentum(ref.model, ref.data, ref._pin(q, 7), ref._pin(qd, 6)).vector
                  for q, qd in zip(run.q, run.qd)])
    assert np.abs(h - h[0]).max() <= 1e-8 * np.abs(h).max()
    velocities = bp.simulate(model, t, q0, qd0, method=method, **tol)
    np.testing.assert_allclose(run.q, velocities.q, atol=1e-8)
    np.testing.assert_allclose(run.qd, velocities.qd, atol=1e-7)


def test_logged_quaternions_are_normalized_at_once_to_the_bit(monkeypatch):
    """solve_ivp's samples of a floating base are normalized in one array operation (a Python call per sample took
    3.7 s of CPU for 10⁶ samples, half of a smooth motion's run in (q, q̇)), each row's numbers those of its own
    np.linalg.norm, as before."""
    import scipy.integrate

    model = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    q0, t = np.zeros(model.n_q), np.linspace(0, 0.5, 20_001)
    q0[3:7] = np.array([0.1, -0.2, 0.3, 0.9]) / np.sqrt(0.95)
    solved, norms = [], []
    solve_ivp, norm = scipy.integrate.solve_ivp, np.linalg.norm

    def keeping(*args, **kwargs):
        solved.append(solve_ivp(*args, **kwargs))
        return solved[-1]

    def counted(*args, **kwargs):
        norms.append(1)
        return norm(*args, **kwargs)
    monkeypatch.setattr(scipy.integrate, "solve_ivp", keeping)
    monkeypatch.setattr(np.linalg, "norm", counted)
    run = bp.simulate(model, t, q0, np.linspace(-0.3, 0.3, model.n_v), np.full(model.robot.n_dof, 0.5), record=("q",))
    assert len(norms) < len(t) / 10, len(norms)
    expected = np.array([x / norm(x) for x in solved[0].y.T[:, 3:7]])
    assert np.array_equal(run.q[:, 3:7].view(np.int64), expected.view(np.int64))


def test_one_samples_pose_rate_stacks_no_arrays_and_keeps_its_numbers(monkeypatch):
    """A simulation's every evaluation of a floating base takes the pose rate of one sample: built from floats, not
    from (1,)-arrays stacked five times into R and the quaternion's rate (33 µs of a 45 µs evaluation in (q, p));
    its numbers those of the batch's rows to the bit (signed zeros, quaternions off unit length, wide scales)."""
    import baseparam.dynamics.floating as floating

    rng = np.random.default_rng(25)
    q = rng.normal(size=(400, 9))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1)[:, None] * rng.uniform(0.9, 1.1, (400, 1))
    qd = rng.normal(size=(400, 8)) * 10.0 ** rng.integers(-8, 8, (400, 1))
    qd[::7, 2], qd[::5, 4] = -0.0, 0.0
    batch = floating.pose_rate(q, qd)
    stacked = []
    stack = np.stack
    monkeypatch.setattr(floating.np, "stack", lambda *args, **kwargs: stacked.append(1) or stack(*args, **kwargs))
    for s in range(len(q)):
        one = floating.pose_rate(q[s:s + 1], qd[s:s + 1])
        assert one.shape == (1, 7) and np.array_equal(one[0].view(np.int64), batch[s].view(np.int64)), s
    assert not stacked


def test_lsodas_failure_is_the_simulations_error_without_its_raw_warning():
    """LSODA's Fortran code says why it failed in a UserWarning ('lsoda: Repeated convergence failures …'), printed
    raw beside simulate's 'Unexpected istate in LSODA.': its words are now the SimulationError's, and no warning
    escapes; a controller's own warning under LSODA is issued as it came. (The friction a steep tanh: LSODA on
    sign(q̇) is refused up front, test_fuzz_round25_lstiff.)"""
    import warnings

    from baseparam.model.friction import FrictionModel
    robot = sticking_space_robot().robot
    steep = FrictionModel("smooth", velocity=1e-12)
    model = bp.Model(dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, friction_model=steep)
                                                             for j in robot.joints)))
    q0 = np.zeros(model.n_q)
    q0[6] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SimulationError, match=r"^the simulation stopped at t = 0 s: lsoda: Repeated convergence "
                                                  r"failures \(perhaps bad Jacobian or tolerances\); check the"):
            bp.simulate(model, np.linspace(0, 0.5, 51), q0, np.zeros(model.n_v), np.ones(model.robot.n_dof),
                        method="LSODA")

    def controller(time, q, qd):
        warnings.warn("the controller's own", RuntimeWarning, stacklevel=1)
        return np.zeros(model.n_v)
    free = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    with pytest.warns(RuntimeWarning, match="the controller's own") as caught:    # the filter 'always'
        run = bp.simulate(free, np.linspace(0, 0.1, 11), q0, np.full(free.n_v, 0.1), controller, method="LSODA")
    # once for LSODA's evaluations (each of them warned), once for each of the 11 samples' torques logged after it
    assert np.isfinite(run.q).all() and len(caught) == 1 + 11


@pytest.mark.parametrize("name", ["planar", "space"])
def test_rk4_in_momenta_runs_one_compiled_loop_with_the_python_steps_numbers(name, monkeypatch):
    """RK4 in (q, p) steps in one compiled loop of q̇ = M⁻¹ p and ṗ (C's rk4 around both kernels), not a Python
    rk4_step per substep (23 µs a step for the planar arm, 52 µs for the space robot; 10⁶ samples took 25 and 52 s):
    a fixed base's motion is the Python steps' to the bit, a floating base's within round-off (C's pose rate sums
    R v in another order than numpy's einsum); both kernels compiled (a floating base's 'x' clashed in C once)."""
    import baseparam.simulation.integrate as integrate
    from conftest import planar_arm

    robot = planar_arm() if name == "planar" else bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    model = bp.Model(robot)
    robot = model.robot
    compiled = CompiledRates(model)
    assert compiled.steps.backend == compiled._inverse_mass.backend == compiled._rate.backend == "c"
    q0, qd0 = np.zeros(robot.n_q), np.linspace(-0.5, 0.5, robot.n_v)
    if robot.is_floating:
        q0[3:7] = np.array([0.1, -0.2, 0.3, 0.9]) / np.sqrt(0.95)
    t, substeps = np.linspace(0, 0.2, 41), 3
    stepped = []
    rk4_step = integrate.rk4_step
    monkeypatch.setattr(integrate, "rk4_step", lambda *args: stepped.append(1) or rk4_step(*args))
    run = bp.simulate(model, t, q0, qd0, lambda time, q, qd: np.full(robot.n_v, 0.3) - 0.1 * qd, method="rk4",
                      state="momenta", substeps=substeps)
    assert not stepped
    velocities, rates = integrate._momenta_rates(compiled)          # the Python steps, as before
    x, m = q0.copy(), bp.generalized_momenta(model, q0, qd0)
    q, qd = [x], [qd0]
    for k in range(len(t) - 1):
        tau = np.full(robot.n_v, 0.3) - 0.1 * qd[-1]
        for _ in range(substeps):
            x, m = rk4_step(partial(rates, t[k]), x, m, (t[k + 1] - t[k]) / substeps, robot.is_floating, tau)
        q.append(x)
        qd.append(velocities(t[k + 1], x, m))
    if robot.is_floating:
        assert relative(run.q, np.array(q)) < 1e-15 and relative(run.qd, np.array(qd)) < 1e-15
    else:
        assert np.array_equal(run.q.view(np.int64), np.array(q).view(np.int64))
        assert np.array_equal(run.qd.view(np.int64), np.array(qd).view(np.int64))


def test_rk4_in_momenta_without_a_compiler_and_when_it_diverges(monkeypatch, tmp_path):
    """Without a C compiler the (q, p) steps run the straight-line Python of both graphs, the compiled motion's
    numbers (a floating tree); a motion that diverges in the compiled loop is stepped again in Python, whose rates
    say when and how (a SimulationError at its time, as before)."""
    import copy

    model, _ = floating_problem(custom_robot("tree_prismatic"), np.random.default_rng(3))
    q0, _, _ = random_state(model.robot, np.random.default_rng(4))
    qd0 = np.linspace(-0.5, 0.5, model.n_v)
    t = np.linspace(0, 0.1, 11)
    compiled = bp.simulate(model, t, q0, qd0, method="rk4", state="momenta", substeps=2)
    monkeypatch.setenv("BASEPARAM_CC", "none")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    slow = bp.Model(copy.deepcopy(model.robot), model.p)       # a new robot object: no kernel compiled for it yet
    assert CompiledRates(slow).steps.backend == "python"
    python = bp.simulate(slow, t, q0, qd0, method="rk4", state="momenta", substeps=2)
    assert relative(python.q, compiled.q) < 1e-15 and relative(python.qd, compiled.qd) < 1e-15
    monkeypatch.undo()
    with pytest.raises(SimulationError, match=r"^the simulation diverged at t = 0\.02 s \("):
        bp.simulate(model, t, q0, qd0, lambda time, q, qd: np.full(model.n_v, 1e300 if time > 0.015 else 0.0),
                    method="rk4", state="momenta")


@pytest.mark.parametrize("name", ["planar", "space"])
@pytest.mark.parametrize("state", ["velocities", "momenta"])
def test_rk4_under_torque_rows_steps_pieces_of_many_intervals(name, state, monkeypatch):
    """Torque rows (no controller): the compiled loop steps pieces of about 10⁵ steps while the motion stays finite,
    q̇ of (q, p)'s samples by the velocities kernel's loop, not Python between intervals (0.7 µs each in (q, q̇),
    7 µs in (q, p): 10⁶ intervals of the planar arm took 3.5 s and 7 s, now 0.3 and 0.5): the numbers of the same
    rows given as a controller (interval by interval) to the bit; a motion that diverges is stepped again interval
    by interval from its piece, which says when."""
    import baseparam.simulation.integrate as integrate
    from conftest import planar_arm

    robot = planar_arm() if name == "planar" else bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    model = bp.Model(robot)
    q0, qd0 = np.zeros(robot.n_q), np.linspace(-0.5, 0.5, robot.n_v)
    if robot.is_floating:
        q0[3:7] = np.array([0.1, -0.2, 0.3, 0.9]) / np.sqrt(0.95)
    # 3 pieces of 10⁵ steps, and 2; the planar arm's (q, q̇) is driven beyond 1e8 by the rows' largest torques (1e8)
    # only after 1 s
    seconds = 20 if (name, state) == ("planar", "velocities") else 1
    t = np.linspace(0, seconds, 20_001 if state == "velocities" else 2_001)
    rows = np.sin(7 * t[:, None] + np.arange(robot.n_v))
    options = dict(method="rk4", state=state, substeps=12 if state == "velocities" else 60, record=("q", "qd"))
    controlled = bp.simulate(model, t, q0, qd0, lambda time, q, qd: rows[np.searchsorted(t, time)], **options)
    per_interval = []
    for function in ("_interval", "_kernel_at"):        # (q, q̇)'s and (q, p)'s Python of an interval
        original = getattr(integrate, function)
        monkeypatch.setattr(integrate, function, lambda *args, f=original: per_interval.append(1) or f(*args))
    pieces = bp.simulate(model, t, q0, qd0, rows, **options)
    assert not per_interval
    for a, b in ((pieces.q, controlled.q), (pieces.qd, controlled.qd), (pieces.tau, controlled.tau)):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))
    rows[len(t) // 2:] = 1e8          # the rows' bound (simulate refuses more); the state it drives diverges
    with pytest.raises(SimulationError) as by_controller:
        bp.simulate(model, t, q0, qd0, lambda time, q, qd: rows[np.searchsorted(t, time)], **options)
    assert str(by_controller.value).startswith("the simulation diverged")
    with pytest.raises(SimulationError) as by_rows:
        bp.simulate(model, t, q0, qd0, rows, **options)
    assert str(by_rows.value) == str(by_controller.value)       # when it diverged, as interval by interval
    assert per_interval
