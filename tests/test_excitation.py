"""Excitation design, checked from the outside: the written files are read back independently.

Oracles: the Fourier convention of docs/formats.md re-implemented here from its formula (resampled
10× denser than the file), finite differences (q̇, q̈ against q; gradients of the regressor and of
the criteria), pinocchio's joint-torque regressor for cond(W_b) (a DH robot through pin_model, the
KUKA URDF straight through pinocchio's own URDF reader), and identification by least squares on
inverse-dynamics torques with noise.
"""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

import baseparam as bp
from baseparam.dynamics.regressor_adjoint import adjoint_function
from baseparam.excitation import criteria
from baseparam.excitation._problem import DesignProblem
from baseparam.excitation._search import smooth_log_condition
from baseparam.excitation.fourier import FourierSeries, basis, rest_basis, sampling_margin
from baseparam.model.friction import FrictionModel
from conftest import DATA, ROOT, needs_data

KUKA_URDF = DATA / "kuka_lwr4" / "kuka_lwr4.urdf"
LIMITS = {"joints": [{"q": [-2.0, 2.5], "qd": 1.5, "qdd": 6.0}, {"q": [-1.5, 1.5], "qd": 2.0},
                     {"q": [-2.5, 2.5], "qd": 2.5, "qdd": 8.0}]}


def resample(doc, t):
    """q, q̇, q̈ at times t from the JSON document alone, by the formula of docs/formats.md."""
    c, T = doc["coefficients"], doc["period"]
    q0, a, b = np.array(c["q0"]), np.array(c["a"]), np.array(c["b"])
    w = 2 * math.pi / T
    q, qd, qdd = (np.tile(q0, (len(t), 1)), np.zeros((len(t), len(q0))), np.zeros((len(t), len(q0))))
    for l in range(1, a.shape[1] + 1):
        s, co = np.sin(w * l * t)[:, None], np.cos(w * l * t)[:, None]
        q += a[:, l - 1] / (w * l) * s - b[:, l - 1] / (w * l) * co
        qd += a[:, l - 1] * co + b[:, l - 1] * s
        qdd += -a[:, l - 1] * w * l * s + b[:, l - 1] * w * l * co
    return q, qd, qdd


def read_csv(path):
    header = path.read_text().splitlines()[0].split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1)


@pytest.fixture(scope="module")
def rrr():
    return bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")


@pytest.fixture(scope="module")
def designed(rrr, tmp_path_factory):
    """A short design of a 3R arm, written as CSV and JSON through the CLI's functions."""
    folder = tmp_path_factory.mktemp("excite")
    d = bp.design_excitation(rrr, period=4.0, harmonics=3, rate=50.0, limits=LIMITS, starts=2, workers=2, seed=3)
    d.to_csv(folder / "traj.csv")
    d.to_json(folder / "traj.json")
    return d, folder


# -- the series ------------------------------------------------------------------------------------------
def test_rest_basis_keeps_both_ends_at_rest_and_derivatives_consistent():
    rng = np.random.default_rng(0)
    T, K = 7.0, 6
    N = rest_basis(T, K)
    theta = (N @ rng.standard_normal((N.shape[1], 4))).T
    series = FourierSeries.from_coefficients(T, theta)
    for t in (0.0, T, 2 * T):
        _, qd, qdd = series.evaluate(t)
        assert np.abs(qd).max() < 1e-12 and np.abs(qdd).max() < 1e-12
    t = np.linspace(0.3, 6.5, 50)
    h = 1e-5
    q_plus, qd_plus, _ = series.evaluate(t + h)
    q_minus, qd_minus, _ = series.evaluate(t - h)
    _, qd, qdd = series.evaluate(t)
    np.testing.assert_allclose((q_plus - q_minus) / (2 * h), qd, atol=1e-7)
    np.testing.assert_allclose((qd_plus - qd_minus) / (2 * h), qdd, atol=1e-6)
    assert N.shape == (2 * K + 1, 2 * K - 1) and np.linalg.matrix_rank(N) == 2 * K - 1


def test_basis_matches_the_documented_formula():
    rng = np.random.default_rng(1)
    series = FourierSeries(5.0, rng.standard_normal(2), rng.standard_normal((2, 4)), rng.standard_normal((2, 4)))
    doc = {"period": 5.0, "coefficients": series.to_dict()}
    t = rng.uniform(0, 10, 30)
    for mine, theirs in zip(series.evaluate(t), resample(doc, t)):
        np.testing.assert_allclose(mine, theirs, atol=1e-12)
    assert basis(t, 5.0, 4).shape == (3, 30, 9)


@pytest.mark.parametrize("seed", range(5))
def test_certified_bounds_hold_between_samples(seed):
    rng = np.random.default_rng(seed)
    K = int(rng.integers(1, 9))
    N = rest_basis(3.0, K)
    series = FourierSeries.from_coefficients(3.0, (N @ rng.standard_normal((N.shape[1], 3))).T)
    bounds = series.certified_bounds(n_samples=8 * K)             # coarse on purpose: the margin is large
    q, qd, qdd = series.evaluate(np.linspace(0, 3.0, 200_001))
    assert (q.max(axis=0) <= bounds["q_max"]).all() and (q.min(axis=0) >= bounds["q_min"]).all()
    assert (np.abs(qd).max(axis=0) <= bounds["qd_max"]).all()
    assert (np.abs(qdd).max(axis=0) <= bounds["qdd_max"]).all()
    eps = sampling_margin(K, 8 * K)
    assert (bounds["qd_max"] <= np.abs(qd).max(axis=0) / (1 - eps) + 1e-12).all()    # and not loose


# -- gradients -------------------------------------------------------------------------------------------
def _assert_matches_central_differences(d, regressor, states, G, which=(0, 1, 2), h=1e-6):
    """``d[k][:, j]`` (the gradient of Σ G∘W in state ``k``'s column ``j``, per sample) against central
    differences of ``regressor(q, qd, qdd)`` with step ``h``."""
    for k in which:
        for j in range(states[k].shape[1]):
            plus, minus = [s.copy() for s in states], [s.copy() for s in states]
            plus[k][:, j] += h
            minus[k][:, j] -= h
            numeric = ((regressor(*plus) - regressor(*minus)) / (2 * h) * G).sum(axis=(1, 2))
            np.testing.assert_allclose(d[k][:, j], numeric, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(numeric).max()))


@pytest.mark.parametrize("name", ["kuka_lwr4.yaml", "ur10e.yaml", "stanford_arm.yaml", "panda.yaml",
                                  "dual_arm_torso.yaml", "ppr.yaml"])
def test_regressor_state_gradients_match_finite_differences(name):
    robot = bp.load_robot(ROOT / "robots" / name)
    base = bp.find_base_parameters(robot, "khalil")
    rng = np.random.default_rng(2)
    S, n = 20, robot.n_dof
    q, qd, qdd = rng.uniform(-1, 1, (3, S, n))
    G = rng.standard_normal((S, n, base.rank))
    d = adjoint_function(robot, "khalil", base.pivots)(q, qd, qdd, G)
    _assert_matches_central_differences(d, base.regressor, (q, qd, qdd), G)


def _with_friction(robot, model=None):
    """The robot with viscous, Coulomb and offset friction on every joint (``model``: its friction model)."""
    joints = tuple(dataclasses.replace(j, friction=(True, True, True), friction_model=model) for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


@pytest.mark.parametrize("model", [FrictionModel("smooth", velocity=0.3, stribeck=0.2),
                                   FrictionModel("sign", stribeck=0.4)])
def test_state_gradients_follow_the_friction_shapes(model):
    """Through tanh and Stribeck shapes the gradient is exact (finite differences of the regressor)."""
    robot = _with_friction(bp.load_robot(ROOT / "robots" / "stanford_arm.yaml"), model)
    base = bp.find_base_parameters(robot, "khalil")
    rng = np.random.default_rng(7)
    S, n = 20, robot.n_dof
    q, qd, qdd = rng.uniform(-1, 1, (3, S, n))
    G = rng.standard_normal((S, n, base.rank))
    d = adjoint_function(robot, "khalil", base.pivots)(q, qd, qdd, G)
    _assert_matches_central_differences(d, base.regressor, (q, qd, qdd), G, which=(1,))


def test_sign_surrogate_and_its_gradient():
    """sign(q̇) replaced by tanh(q̇/w): the regressor is the exact one with each joint's Coulomb column
    (its own row only) rebuilt here from the formula, and the gradient is its finite difference."""
    from baseparam.dynamics.regressor_adjoint import regressor_function
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    base = bp.find_base_parameters(robot, "khalil")
    rng = np.random.default_rng(8)
    S, n = 15, robot.n_dof
    q, qd, qdd = rng.uniform(-1, 1, (3, S, n))
    width = rng.uniform(0.05, 0.5, n)
    W = base.regressor(q, qd, qdd)
    for j in range(n):
        W[:, j, base.names.index(f"FC{j + 1}")] = np.tanh(qd[:, j] / width[j])
    smoothed = regressor_function(robot, "khalil", base.pivots)
    np.testing.assert_allclose(smoothed(q, qd, qdd, width), W, rtol=1e-12, atol=1e-12)
    G = rng.standard_normal(W.shape)
    d = adjoint_function(robot, "khalil", base.pivots)(q, qd, qdd, G, width)
    _assert_matches_central_differences(d, lambda *states: smoothed(*states, width), (q, qd, qdd), G, which=(1,))


@pytest.mark.parametrize("criterion", [criteria.log_condition, criteria.d_optimality, smooth_log_condition(4.0),
                                       criteria.inertia_variance(np.random.default_rng(5).standard_normal((3, 6)),
                                                                 np.array([1.0, 2.0, 0.5, 3.0]))])
def test_criteria_gradients_match_finite_differences(criterion):
    rng = np.random.default_rng(3)
    A = rng.standard_normal((40, 6)) @ np.diag([1, 2, 3, 4, 5, 30.0])
    value, dA = criterion(A)
    E = rng.standard_normal(A.shape)
    h = 1e-6
    numeric = (criterion(A + h * E)[0] - criterion(A - h * E)[0]) / (2 * h)
    assert abs((dA * E).sum() - numeric) <= 1e-6 * max(1.0, abs(numeric))
    assert smooth_log_condition(4.0)(A)[0] >= criteria.log_condition(A)[0]       # an upper bound of log cond


@pytest.mark.parametrize("criterion_grid,torques,smoothing", [(None, False, None), (150, False, None),
                                                              (150, True, None), (None, False, 0.05)])
def test_problem_gradient_and_constraint_jacobian(rrr, criterion_grid, torques, smoothing):
    robot = _with_friction(rrr) if smoothing else rrr
    base = bp.find_base_parameters(robot, "khalil")
    limits = bp.motion_limits(robot, {"joints": [dict(j, tau=50.0) for j in LIMITS["joints"]]})
    p_base = np.linspace(0.1, 1.0, base.rank) if torques else None
    problem = DesignProblem(robot, base.pivots, "khalil", 4.0, 3, limits, "cond", p_base=p_base,
                            criterion_grid=criterion_grid)
    rng = np.random.default_rng(4)
    x = problem.initial(rng)
    if smoothing:                # the surrogate moves with the velocity reversals; the exact criterion does not
        problem.use_criterion(None, smoothing)
        assert problem.objective(x) != pytest.approx(problem.value(x), rel=1e-6)
        problem.use_criterion(smooth_log_condition(4.0), smoothing)
    direction = rng.standard_normal(x.shape)
    h = 1e-6
    numeric = (problem.objective(x + h * direction) - problem.objective(x - h * direction)) / (2 * h)
    assert abs(problem.gradient(x) @ direction - numeric) <= 1e-5 * max(1.0, abs(numeric))
    jac = problem.jacobian(x) @ direction
    numeric = (problem.constraints(x + h * direction) - problem.constraints(x - h * direction)) / (2 * h)
    np.testing.assert_allclose(jac, numeric, atol=1e-6)
    assert torques or problem.violation(x) == 0.0                   # starts keep the linear limits


# -- the written files, read back independently -------------------------------------------------------------
def test_csv_is_the_series_at_the_rate_and_at_rest_at_both_ends(designed):
    d, folder = designed
    header, rows = read_csv(folder / "traj.csv")
    n = 3
    assert header == ["t"] + [f"{f}{j}" for f in ("q", "qd", "qdd") for j in range(1, n + 1)]
    doc = json.loads((folder / "traj.json").read_text())
    t = rows[:, 0]
    np.testing.assert_allclose(t, np.arange(len(t)) / 50.0, atol=1e-12)
    assert t[0] == 0.0 and t[-1] == doc["period"] and len(t) == doc["samples"] == 201
    for block, expected in zip((rows[:, 1:4], rows[:, 4:7], rows[:, 7:10]), resample(doc, t)):
        np.testing.assert_allclose(block, expected, atol=1e-12)
    assert np.all(rows[[0, -1], 4:] == 0.0)                         # rest: q̇ = q̈ = 0 at t = 0 and T
    np.testing.assert_allclose(rows[0, 1:4], rows[-1, 1:4], atol=1e-12)
    # derivatives consistent: central differences of the written q and q̇
    h = t[1] - t[0]
    np.testing.assert_allclose((rows[2:, 1:4] - rows[:-2, 1:4]) / (2 * h), rows[1:-1, 4:7],
                               atol=h ** 2 * np.abs(rows[:, 7:10]).max() * 10)


def test_limits_hold_ten_times_denser_than_the_file(designed):
    d, folder = designed
    doc = json.loads((folder / "traj.json").read_text())
    t = np.linspace(0, doc["period"], 10 * doc["samples"])
    q, qd, qdd = resample(doc, t)
    for j, lim in enumerate(LIMITS["joints"]):
        lo, hi = lim["q"]
        assert lo <= q[:, j].min() and q[:, j].max() <= hi
        assert np.abs(qd[:, j]).max() <= lim["qd"]
        if "qdd" in lim:
            assert np.abs(qdd[:, j]).max() <= lim["qdd"]
    assert doc["limits"]["joints"][1]["qdd"] is None


def test_condition_number_is_pinocchios(designed, rrr):
    """The JSON's cond, recomputed from the CSV with pinocchio's regressor (pin_model: the DH robot)."""
    pytest.importorskip("pinocchio")
    from pin_model import Reference
    d, folder = designed
    doc = json.loads((folder / "traj.json").read_text())
    _, rows = read_csv(folder / "traj.csv")
    ref = Reference(rrr, doc["parameters"])
    columns = [ref.names.index(name) for name in doc["base"]]
    A = np.vstack([ref.regressor(r[1:4], r[4:7], r[7:10])[:, columns] for r in rows])
    assert np.linalg.cond(A) == pytest.approx(doc["condition_number"], rel=1e-9)
    other = "pseudo" if doc["parameters"] == "khalil" else "khalil"
    ref = Reference(rrr, other)
    columns = [ref.names.index(name) for name in doc["condition_numbers"][other]["base"]]
    A = np.vstack([ref.regressor(r[1:4], r[4:7], r[7:10])[:, columns] for r in rows])
    assert np.linalg.cond(A) == pytest.approx(doc["condition_numbers"][other]["with_drives"], rel=1e-9)


def test_condition_number_with_coulomb_columns_is_that_of_the_written_rest_states(rrr, tmp_path):
    """With friction declared, the CSV's rest rows (q̇ = 0 exactly, so sign q̇ = 0) are the rows the
    JSON's cond was measured on: pinocchio's regressor plus FV, FC, FO from the CSV gives the same cond."""
    pytest.importorskip("pinocchio")
    from pin_model import Reference
    robot = _with_friction(rrr)
    d = bp.design_excitation(robot, period=4.0, harmonics=3, rate=50.0, limits=LIMITS, starts=1, workers=1, seed=3)
    d.to_csv(tmp_path / "f.csv")
    doc = d.to_dict()
    _, rows = read_csv(tmp_path / "f.csv")
    assert np.all(rows[[0, -1], 4:] == 0.0)
    ref = Reference(robot, doc["parameters"])
    columns = [ref.names.index(name) for name in doc["base"]]
    assert any(name.startswith("FC") for name in doc["base"])
    A = np.vstack([ref.regressor(r[1:4], r[4:7], r[7:10])[:, columns] for r in rows])
    assert np.linalg.cond(A) == pytest.approx(doc["condition_number"], rel=1e-9)


def test_the_user_sets_the_workers():
    """One worker unless the user asks for more (no process per core behind their back); -1 asks for
    one per usable core; bad counts name the parameter."""
    import inspect

    from baseparam._validation import usable_cores
    from baseparam._validation import check_workers as _workers      # what design_excitation calls
    assert inspect.signature(bp.design_excitation).parameters["workers"].default == 1
    assert _workers(None) == 1 and _workers(3) == 3 and _workers(-1) == usable_cores()
    for bad in (0, -2, 1.5, True, "2", 257):
        with pytest.raises(bp.ArgumentError, match=r"^workers: expected a whole number from 1 to 256, or -1"):
            _workers(bad)


def test_same_seed_same_design_whatever_the_workers(rrr, designed):
    d, _ = designed
    again = bp.design_excitation(rrr, period=4.0, harmonics=3, rate=50.0, limits=LIMITS, starts=2, workers=1, seed=3)
    assert np.array_equal(again.series.coefficients, d.series.coefficients)
    other = bp.design_excitation(rrr, period=4.0, harmonics=3, rate=50.0, limits=LIMITS, starts=2, workers=1, seed=4)
    assert not np.array_equal(other.series.coefficients, d.series.coefficients)


class _FakeClock:
    """A clock that advances ``step`` seconds each time it is read: a time budget then ends after a
    fixed amount of work, whatever the machine's load (the search reads it once per SLSQP iteration)."""

    def __init__(self, step):
        self.now, self.step = 1.0e9, step

    def time(self):
        self.now += self.step
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_time_budget_keeps_the_finished_starts_and_says_how_to_reproduce(rrr, monkeypatch):
    from baseparam.excitation import _search
    base = bp.find_base_parameters(rrr, "khalil")
    problem = DesignProblem(rrr, base.pivots, "khalil", 4.0, 3, bp.motion_limits(rrr, LIMITS), "cond")
    with monkeypatch.context() as patch:
        patch.setattr(_search, "time", _FakeClock(0.01))
        # the search reads the clock at each evaluation (the deadline kept within one) and, since round 23, when it
        # returns (the optimizer's step measured: _Pace): ~2 400 readings a start
        cut = _search.search(problem, starts=500, seed=3, workers=0, time_budget=45.0)
    assert 0 < cut.counted < 500 and cut.budget_hit
    assert [r.index for r in cut.results] == list(range(len(cut.results))) and not cut.results[-1].complete
    again = _search.search(problem, starts=cut.counted, seed=3, workers=0)       # the real clock, no budget
    assert again.counted == cut.counted and not again.budget_hit
    np.testing.assert_array_equal(again.best.x, cut.best.x)


def test_a_budget_spent_before_the_search_keeps_start_0s_starting_point(rrr):
    """No time left for one iteration (in the worker processes): start 0's starting point, with a warning
    that it depends on timing — whether or not start 0 reported back before the workers were stopped."""
    with pytest.warns(bp.ExcitationWarning, match="ended before the first start finished"):
        d = bp.design_excitation(rrr, period=4.0, harmonics=3, rate=50.0, limits=LIMITS, starts=4, workers=2,
                                 time_budget=1e-9, seed=3)
    assert d.search.counted == 0 and not d.search.deterministic
    base = bp.find_base_parameters(rrr, "khalil")
    problem = DesignProblem(rrr, base.pivots, "khalil", 4.0, 3, bp.motion_limits(rrr, LIMITS), "cond")
    from baseparam.excitation.design import _within_limits
    start = problem.series(problem.initial(np.random.default_rng([3, 0])))
    np.testing.assert_array_equal(d.series.coefficients, _within_limits(start, problem.limits).coefficients)


def test_a_start_past_the_deadline_returns_its_starting_point_at_once(rrr):
    """When start 0 never reported back, the search falls back on its starting point: that must not
    run an SLSQP iteration first (in the main process; on 100 harmonics one took minutes, so a 20 s
    budget ran for 7 minutes)."""
    import time
    from baseparam.excitation._search import run_start
    base = bp.find_base_parameters(rrr, "khalil")
    problem = DesignProblem(rrr, base.pivots, "khalil", 4.0, 3, bp.motion_limits(rrr, LIMITS), "cond")
    result = run_start(problem, 3, 0, deadline=time.time() - 1.0)
    assert result.iterations == 0 and not result.complete
    np.testing.assert_array_equal(result.x, problem.initial(np.random.default_rng([3, 0])))


@needs_data
def test_kuka_urdf_cond_is_pinocchios_straight_from_the_urdf(tmp_path):
    """KUKA LWR4+ URDF (khalil columns = pinocchio's, by name): the JSON's cond from pinocchio's own model."""
    pin = pytest.importorskip("pinocchio")
    robot = bp.load_robot(KUKA_URDF)
    d = bp.design_excitation(robot, period=10.0, harmonics=2, rate=20.0, starts=1, workers=1, parameters="khalil")
    d.to_csv(tmp_path / "k.csv")
    doc = d.to_dict()
    _, rows = read_csv(tmp_path / "k.csv")
    model = pin.buildModelFromUrdf(str(KUKA_URDF))
    data = model.createData()
    order = {"M": 0, "MX": 1, "MY": 2, "MZ": 3, "XX": 4, "XY": 5, "YY": 6, "XZ": 7, "YZ": 8, "ZZ": 9}
    columns = [10 * (int(name[len(name.rstrip("0123456789")):]) - 1) + order[name.rstrip("0123456789")]
               for name in doc["base"]]
    n = model.nq
    A = np.vstack([pin.computeJointTorqueRegressor(model, data, r[1:n + 1], r[n + 1:2 * n + 1],
                                                   r[2 * n + 1:])[:, columns] for r in rows])
    assert np.linalg.cond(A) == pytest.approx(doc["condition_number"], rel=1e-9)
    assert doc["condition_numbers"]["khalil"]["rigid_body"] == doc["condition_number"]


def test_designed_trajectory_identifies_better_than_a_timid_one(designed, rrr):
    """Same noise, same robot: the design's least-squares errors are smaller than those of the same
    trajectory shrunk to a tenth of its motion (what an unexcited log looks like)."""
    d, _ = designed
    rng = np.random.default_rng(5)
    bodies = [bp.Inertia(mass=m, com=np.array([-0.4, 0.02, 0.0]), inertia=np.diag([0.01, 0.08, 0.08]) * m)
              for m in rng.uniform(1, 3, 3)]
    robot = dataclasses.replace(rrr, joints=tuple(dataclasses.replace(j, inertia=b) for j, b in zip(rrr.joints,
                                                                                                   bodies)))
    base = bp.find_base_parameters(robot, "khalil")
    truth = base.from_standard(bp.standard_parameters(robot, "khalil"))
    s = d.samples
    good = bp.identification_errors(base, truth, s.q, s.qd, s.qdd, 0.05, validation=(s.q, s.qd, s.qdd))
    timid = FourierSeries(d.series.period, d.series.q0, d.series.a / 10, d.series.b / 10).sample(50.0)
    poor = bp.identification_errors(base, truth, timid.q, timid.qd, timid.qdd, 0.05, validation=(s.q, s.qd, s.qdd))
    assert good.condition_number < poor.condition_number
    assert good.parameter_error < poor.parameter_error / 3 and good.torque_error < poor.torque_error


@needs_data
def test_torque_limits_hold_by_pinocchios_inverse_dynamics():
    """Tight efforts on the KUKA's shoulder and elbow (the unconstrained design from the same start
    reaches 54.5 and 15.7 N·m there): the design keeps |τ| below them, torques recomputed by pinocchio's
    rnea from the URDF's inertias. One start, in a worker process (the torque limits travel with the
    problem to it): two starts doubled the test's CPU time (13 s) for the same check."""
    pin = pytest.importorskip("pinocchio")
    robot = bp.load_robot(KUKA_URDF)
    limits = {"joints": [{}, {"tau": 40.0}, {}, {"tau": 15.0}, {}, {}, {}]}
    d = bp.design_excitation(robot, period=10.0, harmonics=3, rate=20.0, starts=1, workers=2, limits=limits,
                             torque_limits=True)
    doc = d.to_dict()
    assert doc["torque_limited"]
    model = pin.buildModelFromUrdf(str(KUKA_URDF))
    data = model.createData()
    t = np.linspace(0, doc["period"], 2001)
    tau = np.array([pin.rnea(model, data, *state) for state in zip(*resample(doc, t))])
    assert np.abs(tau[:, 1]).max() <= 40.0 and np.abs(tau[:, 3]).max() <= 15.0
    assert np.abs(tau).max(axis=0) == pytest.approx(np.array(doc["torque_max"]), rel=0.02)
