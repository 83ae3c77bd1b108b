"""The consistent fit's compiled program is kept with the robot object and re-solved (issue 22, item 7).

A fit compiled its cvxpy program anew every time; now fits of one robot object and one constraint set share
one, whose data are cvxpy parameters. What must not change: every fit gives, to the last bit, what a fit
with a program of its own gives (a new robot object: an empty cache, as every fit had before), whatever
was fitted before it; threads fitting one robot at once never share a program; each constraint set has its
own. The PUMA 560 (6 joints, 400 samples, as test_consistent's noise-free cases) suffices: the program's
sharing does not depend on its size, and its fits take a tenth of a second.
"""
import dataclasses
import threading

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification import _consistent
from baseparam.identification._consistent import FOLDS
from baseparam.identification._least_squares import accumulate, least_squares
from baseparam.identification.preprocessing import Processed
from conftest import ROOT, in_threads
from random_bodies import random_parameters, random_states

pytest.importorskip("cvxpy")
pytestmark = pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning")


@pytest.fixture(scope="module")
def puma():
    """(base set of the PUMA with the true bodies as its CAD inertias, three noisy data sets of it reduced as the
    estimator reduces them: (Factors, LeastSquares) each)."""
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    rng = np.random.default_rng(7)
    plain = bp.find_base_parameters(robot)
    p, bodies, _ = random_parameters(robot, "pseudo", rng)
    joints = tuple(dataclasses.replace(j, inertia=bp.Inertia(mass=m, com=c, inertia=inertia))
                   for j, (m, c, inertia) in zip(robot.joints, bodies))
    base = dataclasses.replace(plain, robot=dataclasses.replace(robot, joints=joints, source=None))
    sets = []
    for _ in range(3):
        q, qd, qdd = random_states(robot, 400, rng)
        tau = plain.regressor(q, qd, qdd) @ plain.from_standard(p)     # the regressor: the structure's alone
        tau = tau + 0.02 * tau.std(axis=0) * rng.normal(size=tau.shape)
        processed = Processed(np.arange(len(q), dtype=float), q, qd, qdd, tau, source="<puma>", record={})
        normal, effective, factors = accumulate(plain, [processed], 1, folds=FOLDS)
        sets.append((factors, least_squares(normal, "wls", effective)))
    return base, sets


def own(base):
    """The base set on a new robot object: an empty cache, so the fit compiles a program of its own (as every
    fit did before programs were kept)."""
    return dataclasses.replace(base, robot=dataclasses.replace(base.robot))


def fit(base, data, **options):
    factors, ls = data
    return _consistent.consistent_fit(base, factors, ls.weights, std=ls.std, **options)


def same(a, b):
    """Two fits give the same numbers, to the last bit."""
    assert np.array_equal(a.p, b.p)
    assert np.array_equal(a.x, b.x)
    assert a.status == b.status
    assert a.n_solves == b.n_solves


@pytest.fixture
def builds(monkeypatch):
    """The programs compiled, as a list that grows by one per _Problem built."""
    built = []
    original = _consistent._Problem.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(_consistent._Problem, "__init__", counted)
    return built


def test_fits_of_one_robot_compile_once_per_constraint_set_and_give_what_their_own_program_gives(puma, builds):
    base, sets = puma
    kept = own(base)                                       # a robot object of this test's own: an empty cache
    for options, programs in ((dict(prior="none"), 1), (dict(prior="cad", prior_weight=0.1), 2),
                              (dict(prior="none", mass_bounds={2: (1.0, None)}), 3)):
        for data in sets[:2]:                              # two fits: the second re-solves the first's program
            same(fit(own(base), data, **options), fit(kept, data, **options))
        assert len(builds) == 3 * programs, options        # one per fit of a new robot, one for the kept robot
    fit(kept, sets[2], prior="none")
    assert len(builds) == 9                                # the first set's program is still kept


@pytest.mark.parametrize("options", [dict(prior="none"), dict(prior="cad", prior_weight=1e-5)])
def test_a_fit_does_not_depend_on_what_was_fitted_before_it(puma, options):
    """cvxpy keeps each program's CLARABEL solver and, warm, updates its data and settings in place: a fit that
    started from the solver an earlier fit of the same robot left moved its estimate by up to 10⁻⁶ of the largest
    (measured on these data); each fit's first solve of a program starts a new solver, as it did with a
    program of its own."""
    base, sets = puma
    alone = [fit(own(base), data, **options) for data in sets[:2]]
    kept = own(base)
    after = fit(kept, sets[1], **options)
    same(alone[0], fit(kept, sets[0], **options))        # after the other data's fit
    same(alone[1], after)


def test_threads_fitting_one_robot_at_once_each_get_their_own_program(puma, monkeypatch, builds):
    """Two fits held inside their first solve until both are there: each holds a program of its own (two are
    built) and each gives what it gives alone."""
    base, sets = puma
    alone = [fit(own(base), data) for data in sets[:2]]
    kept = own(base)
    both_inside = threading.Barrier(2, timeout=600)        # the timeout only ends a broken test
    original = _consistent._Problem.solve
    waited = set()

    def held(self, *args):
        if threading.get_ident() not in waited:
            waited.add(threading.get_ident())
            both_inside.wait()
        return original(self, *args)

    monkeypatch.setattr(_consistent._Problem, "solve", held)
    results = in_threads(lambda i: fit(kept, sets[i]), 2)
    assert len(builds) == 2 + 2                            # the two alone, and one for each thread
    for a, b in zip(alone, results):
        same(a, b)


def test_mass_bounds_in_another_order_get_a_program_with_their_constraints_in_their_order(puma):
    """The constraints' order is the bounds' order, and it moves the last bits (4e-10 of x with four links bounded):
    a kept program with the bounds in another order is not the program a fit of its own builds."""
    base, sets = puma
    given = {1: (0.5, 30.0), 2: (1.0, None), 3: (None, 40.0), 5: (0.1, 9.0)}
    reordered = dict(reversed(list(given.items())))
    kept = own(base)
    fit(kept, sets[0], mass_bounds=given)
    same(fit(own(base), sets[0], mass_bounds=reordered), fit(kept, sets[0], mass_bounds=reordered))


def test_a_program_built_later_has_the_bounds_of_its_key_not_what_a_caller_did_to_its_dict_since(puma):
    """A second program of one constraint set (two fits at once) is built from the key's values: the first caller's
    dict, changed after its fit, does not reach it."""
    base, sets = puma
    kept = own(base)
    layout = _consistent.ColumnLayout(kept.robot, kept.parameters)
    p0, has = _consistent.cad_parameters(kept.robot, layout)
    bounds = {2: (1.0, None)}
    pool = _consistent._problems(kept, layout, p0, has & False, _consistent.EPSILON, bounds, None)
    first = pool.take()                                     # a fit holds it
    bounds[2] = (None, 1e-3)                                # the caller's dict, changed after the key was made
    second = pool.take()                                    # a second fit at once: a second program is built
    factors, ls = sets[0]
    R, z, _, total = factors.combined(ls.weights)
    assert np.array_equal(first.solve(R, z, total, 0.0)[0], second.solve(R, z, total, 0.0)[0])


def test_each_rung_of_the_retry_ladder_runs_with_the_settings_it_names_and_none_carries_over(puma, monkeypatch):
    """cvxpy updates a kept CLARABEL solver's settings in place, keeping those a call does not name: the last rung
    ('CLARABEL's tolerances, shorter steps') ran with the tight tolerances of the rungs before it, and a solve after a
    retry kept its shorter steps. Two stalls (a failed status, as CLARABEL's InsufficientProgress: cvxpy keeps that
    solver) are simulated; the settings read back from the solver cvxpy ran each time."""
    import clarabel
    import cvxpy as cp

    base, sets = puma
    real, ran = _consistent.solve_clarabel, []

    def stalling(problem, **options):
        out = real(problem, **options)
        settings = problem._solver_cache["CLARABEL"].get_settings()
        ran.append({name: getattr(settings, name) for name in _consistent.CLARABEL_DEFAULTS})
        if len(ran) <= 2:
            raise cp.SolverError("Solver 'CLARABEL' failed (simulated stall)")
        return out

    monkeypatch.setattr(_consistent, "solve_clarabel", stalling)
    defaults = clarabel.DefaultSettings()
    assert _consistent.CLARABEL_DEFAULTS == {name: getattr(defaults, name) for name in _consistent.CLARABEL_DEFAULTS}
    layout = _consistent.ColumnLayout(base.robot, base.parameters)
    p0, has = _consistent.cad_parameters(base.robot, layout)
    problem = _consistent._Problem(base.Y, layout, p0, has & False, _consistent.EPSILON, None, None, 1.0)
    factors, ls = sets[0]
    R, z, _, total = factors.combined(ls.weights)
    assert problem.solve(R, z, total, 0.0)[0] is not None           # on the third rung
    assert problem.solve(R, z, total, 0.0)[0] is not None           # the next solve, on the first
    tight = {name: _consistent.SOLVER_OPTIONS[name] for name in ("tol_gap_abs", "tol_gap_rel", "tol_feas")}
    assert [run["max_step_fraction"] for run in ran] == [0.99, 0.9, 0.9, 0.99]
    for run, tolerances in zip(ran, (tight, tight, _consistent.CLARABEL_DEFAULTS, tight)):
        assert {name: run[name] for name in tight} == {name: tolerances[name] for name in tight}
