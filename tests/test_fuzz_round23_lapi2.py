"""Round 23, Python API leftovers (stop 47's list, set lapi2), each test failing on the code before its fix."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import planar_sines


# --- 1. a failed consistent estimate never returns the least-squares payload as a physical one ---

def _reversed_wrench():
    """(robot, [trajectory], [wrench]) of a 2 kg payload whose wrench is given reversed: least squares finds −2 kg."""
    import baseparam as bp
    from baseparam.identification.payload import payload_parameters
    from baseparam.identification.payload_wrench import wrench_regressor
    robot, _model, t, q, qd, qdd, tau = planar_sines(1, 300, 0.01)
    wrench = wrench_regressor(robot, q, qd, qdd) @ payload_parameters(2.0, [0.03, -0.02, 0.06], np.eye(3) * 0.01)
    return robot, [bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau)], [-wrench]


@pytest.mark.parametrize("failure", ["raises", "no value", "panics"])
def test_a_failed_consistent_estimate_is_refused_not_returned_below_zero(monkeypatch, failure):
    """CLARABEL failing (an error, a status without a solution, a panic) kept the least-squares parameters as the
    'consistent' estimate: identify_payload returned a PayloadResult of mass −2 kg, an inertia no body has. The call
    now raises the library's error naming what failed."""
    import cvxpy as cp

    import baseparam as bp
    from baseparam.identification import _payload_math

    def failing(problem):
        if failure == "raises":
            raise cp.error.SolverError("Solver 'CLARABEL' failed.\nTry another solver.")
        if failure == "panics":
            raise cp.error.SolverError("CLARABEL panicked: Eigval error")
        return None                                  # solved nothing: the variable keeps no value

    monkeypatch.setattr(_payload_math, "solve_clarabel", failing)
    robot, trajectories, wrench = _reversed_wrench()
    with pytest.raises(bp.SimulationError) as caught:
        bp.identify_payload(robot, trajectories, wrench=wrench)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("payload: the physically consistent estimate failed (CLARABEL")
    assert "mass -2 kg) is no physical body" in message, message


def test_a_failed_solver_keeps_an_estimate_that_is_a_body_already(monkeypatch):
    """The solver failing on least-squares parameters that are a body already: that body is the nearest one (the
    result is as the solver's, to its tolerance), not an error."""
    import cvxpy as cp

    from baseparam.identification import _payload_math
    from baseparam.identification.payload import payload_parameters

    def failing(problem):
        raise cp.error.SolverError("failed")

    monkeypatch.setattr(_payload_math, "solve_clarabel", failing)
    p = payload_parameters(2.0, [0.1, 0.0, 0.2], np.diag([0.01, 0.02, 0.03]))
    fields = _payload_math._physical_estimate(p, 1e-6 * np.eye(10), np.eye(10), [])
    assert np.array_equal(fields["parameters"], p) and fields["mass"] == 2.0


def test_a_wrench_of_noise_gets_a_physical_estimate(monkeypatch):
    """A wrench log of no payload (noise of 0.1 mN): the least-squares parameters ~1e-7 against a metric of ~1e15
    made CLARABEL fail, and the fit returned them as the consistent estimate (mass −3e-07 kg, a pseudo-inertia with an
    eigenvalue −1.4e-06 beside a largest of 1.2e-06). The failed problem is solved again in units of order 1."""
    import baseparam as bp
    from baseparam.identification import _payload_math

    calls = []
    solve = _payload_math.solve_clarabel
    monkeypatch.setattr(_payload_math, "solve_clarabel", lambda problem: calls.append(1) or solve(problem))
    robot, _model, t, q, qd, qdd, tau = planar_sines(1, 300, 0.01)
    trajectory = bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau)
    for seed in range(3):
        calls.clear()
        wrench = np.random.default_rng(seed).normal(size=(300, 6)) * 1e-4
        result = bp.identify_payload(robot, [trajectory], wrench=[wrench])
        eigenvalues = np.linalg.eigvalsh(_payload_math.pseudo_matrix(result.parameters))
        assert len(calls) == 2, calls                          # the first solve failed: the case tested
        assert result.mass >= 0 and eigenvalues[0] >= -1e-9 * eigenvalues[-1], (result.mass, eigenvalues)


# --- 2. a PayloadResult built by hand holds a body; a fitted one can be copied with dataclasses.replace ---

def _fields():
    """The fields of a PayloadResult of a 2 kg body, as a fit gives them."""
    from baseparam.identification._payload_math import payload_parameters, payload_physical
    p = payload_parameters(2.0, [0.1, 0.0, 0.2], np.diag([0.01, 0.02, 0.03]))
    m, c, inertia = payload_physical(p)
    return dict(mass=m, com=c, inertia=inertia, mass_std=0.01, com_std=np.zeros(3), inertia_std=np.zeros((3, 3)),
                parameters=p, unconstrained=p, covariance=np.eye(10), identifiable=[], rank=10, mode="model",
                n_samples=100, rmse=np.zeros(3))


@pytest.mark.parametrize("field, value, said", [
    ("mass", -1.0, "PayloadResult.mass: expected a mass ≥ 0 kg, got -1.0"),
    ("inertia", np.diag([-0.01, 0.02, 0.03]), "PayloadResult.inertia: not a physical inertia: a principal moment is "
                                              "negative"),
    ("inertia", np.diag([0.01, 0.02, 0.1]), "violate the triangle inequality (0.1 > 0.01 + 0.02)"),
    ("inertia", np.array([[0.01, 0.001, 0], [0, 0.02, 0], [0, 0, 0.03]]),
     "PayloadResult.inertia: expected a symmetric matrix, got [1][2] = 0.001 but [2][1] = 0.0"),
    ("parameters", "mass below zero", "PayloadResult.parameters: not a body's: its pseudo-inertia has a negative "
                                      "eigenvalue"),
    ("mass_std", -1.0, "PayloadResult.mass_std: expected numbers ≥ 0 (NaN where undetermined), got -1.0"),
    ("rmse", -np.ones(3), "PayloadResult.rmse: expected numbers ≥ 0"),
    ("condition_number", -1.0, "PayloadResult.condition_number: expected numbers ≥ 0"),
    ("rank", 11, "PayloadResult.rank: expected a whole number from 0 to 10, got 11"),
    ("n_samples", -3, "PayloadResult.n_samples: expected a whole number ≥ 0, got -3"),
])
def test_a_result_no_body_gives_is_refused(field, value, said):
    """PayloadResult(mass=-1), an inertia with a negative moment, beyond the triangle inequality or not symmetric, a
    pseudo-inertia not positive semidefinite, a negative deviation, a rank of 11: accepted when built by hand, and
    attach / robot_text / to_vendor carried them on. Refused in one line naming the field."""
    import baseparam as bp
    from baseparam.identification.payload import PayloadResult

    fields = _fields()
    if isinstance(value, str):
        value = fields["parameters"] * np.r_[np.ones(9), -1.0]
    with pytest.raises(bp.ArgumentError) as caught:
        PayloadResult(**dict(fields, **{field: value}))
    assert said in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_a_fitted_result_passes_and_can_be_replaced():
    """Every fit's result passes the checks (no bypass): a wrench fit of noise, whose consistent estimate is physical
    to the solver's tolerance only, and a fit of a payload; dataclasses.replace of either gives an equal result."""
    import dataclasses

    import baseparam as bp
    from baseparam.identification.payload import payload_parameters
    from baseparam.identification.payload_wrench import wrench_regressor

    robot, _model, t, q, qd, qdd, tau = planar_sines(1, 300, 0.01)
    trajectory = bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau)
    body = wrench_regressor(robot, q, qd, qdd) @ payload_parameters(2.0, [0.03, -0.02, 0.06], np.eye(3) * 0.01)
    noise = np.random.default_rng(0).normal(size=(300, 6))
    for wrench in (noise * 1e-4, body + noise * 1e-2):
        result = bp.identify_payload(robot, [trajectory], wrench=[wrench])
        copy = dataclasses.replace(result, n_samples=result.n_samples)
        assert np.array_equal(copy.parameters, result.parameters) and copy.mass == result.mass


# --- 3. a deadline leaves room for the optimizer's next step; 4. a start given up keeps its best point so far ---

LIMITS = {"joints": [{"q": [-2.0, 2.5], "qd": 1.5, "qdd": 6.0}, {"q": [-1.5, 1.5], "qd": 2.0},
                     {"q": [-2.5, 2.5], "qd": 2.5, "qdd": 8.0}]}


def _design_problem():
    import baseparam as bp
    from baseparam.excitation._problem import DesignProblem
    from conftest import ROOT
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    base = bp.find_base_parameters(robot, "khalil")
    return DesignProblem(robot, base.pivots, "khalil", 4.0, 3, bp.motion_limits(robot, LIMITS), "cond")


def test_an_evaluation_is_refused_when_the_next_step_would_end_past_the_deadline():
    """SLSQP's step runs in compiled code between two evaluations (3 s at 48 harmonics on the UR10e, holding the
    GIL): an evaluation started 1 s before the deadline let the next step run 2 s past it. By the longest step seen
    (an injected clock), an evaluation is refused when the next one would not end in time."""
    from baseparam.excitation._search import _Deadline, _Pace, _before

    now = [0.0]
    pace = _Pace(clock=lambda: now[0])
    function = _before(10.0, lambda x: x, pace)
    assert function(1) == 1                       # t = 0: no step measured yet
    now[0] = 4.0                                  # a step of 4 s
    assert function(2) == 2 and pace.longest == 4.0
    now[0] = 7.0                                  # 7 + 4 > 10: the next step would end past the deadline
    with pytest.raises(_Deadline):
        function(3)
    assert _before(None, len) is len              # no deadline: the function itself


def test_a_start_keeps_its_best_point_as_it_goes():
    """run_start hands each improvement of its best point to ``keep`` (what a worker sends back, so that a start given
    up in the middle of a step still counts): the last one kept is the result's point; a run without keep is the
    same, to the bit."""
    from baseparam.excitation._search import run_start

    kept = []
    result = run_start(_design_problem(), 3, 0, keep=kept.append)
    plain = run_start(_design_problem(), 3, 0)
    assert result.complete and len(kept) > 1 and not any(k.complete for k in kept)
    assert np.array_equal(kept[-1].x, result.x) and kept[-1].value == result.value
    assert np.array_equal(plain.x, result.x) and plain.value == result.value


def test_the_workers_messages_are_progress_or_start_0s_best_point():
    """The pool's queue carries progress (index, iterations) and start 0's best point so far ("kept", result)."""
    import queue

    from baseparam.excitation._search import StartResult, _drain

    events = queue.Queue()
    best = StartResult(0, np.zeros(3), 1.5, 0.0, 4, False)
    for message in ((1, 5), ("kept", best), (0, 5)):
        events.put(message)
    ticks, kept = [], []
    _drain(events, lambda index, n: ticks.append((index, n)), kept.append)
    assert ticks == [(1, 5), (0, 5)] and kept == [best]


def test_long_steps_under_a_budget_run_in_a_worker_given_up_before_the_budget_ends(monkeypatch):
    """In this process a start cannot leave SLSQP's step (compiled code holding the GIL: 20 s at 48 harmonics on the
    LWR4+, a 10 s budget ending at 26 s). Steps estimated over 0.3 s run under a budget in a pool of one (the same
    design, bit for bit), whose worker sends start 0's best point back, and whose deadline leaves the time to give a
    worker up and stop it (GRACE + POOL_END) before the budget's. Short steps or no budget: in this process, as
    before."""
    from baseparam.excitation import _search

    class Clock:
        @staticmethod
        def time():
            return 1000.0

    calls = []
    monkeypatch.setattr(_search, "time", Clock)
    monkeypatch.setattr(_search, "_in_pool", lambda problem, starts, seed, workers, deadline, tick, finished:
                        calls.append(("pool", workers, deadline)))
    monkeypatch.setattr(_search, "_in_this_process", lambda problem, starts, seed, deadline, tick, finished:
                        calls.append(("here", 1, deadline)))
    monkeypatch.setattr(_search, "run_start", lambda *args, **kwargs: None)
    problem = _design_problem()
    for step, budget in ((100.0, 10.0), (100.0, None), (0.01, 10.0), (100.0, 1.0)):
        monkeypatch.setattr(_search, "slsqp_step_seconds", lambda problem, step=step: step)
        _search.search(problem, starts=2, seed=0, workers=1, time_budget=budget)
    assert calls == [("pool", 1, 1000.0 + 10.0 - _search.GRACE - _search.POOL_END), ("here", 1, None),
                     ("here", 1, 1010.0), ("pool", 1, 1000.0)], calls


# --- the same class elsewhere: the floating base's consistent fit ---

def test_the_floating_consistent_fits_solver_failure_is_a_numerical_error_on_one_line(monkeypatch):
    """identify_floating(method='consistent') said a failed solver as an ArgumentError (a bad argument, which it is
    not: errors.py's rule makes a numerical failure a SimulationError) with the solver's text as it came, newlines
    and all."""
    import cvxpy as cp

    import baseparam as bp
    from baseparam.identification import floating
    from conftest import ROOT

    def failing(problem):
        raise cp.error.SolverError("Solver 'CLARABEL' failed.\nTry another solver.")

    monkeypatch.setattr(floating, "solve_clarabel", failing)
    layout = bp.ColumnLayout(bp.load_robot(ROOT / "robots" / "space_robot.yaml"), "pseudo")
    n = layout.n_standard
    with pytest.raises(bp.SimulationError) as caught:
        floating._consistent(layout, np.eye(n), np.zeros(n), np.eye(n), np.zeros((0, n)), np.zeros(0), np.zeros(n))
    assert str(caught.value) == "consistent fit: the solver failed (Solver 'CLARABEL' failed. Try another solver.)"
