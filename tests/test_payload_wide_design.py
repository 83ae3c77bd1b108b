"""``excite --payload --payload-design wide`` (baseparam/excitation/_payload_feasible.py): the standard payload design
played 4 times as a long series and refined by L-BFGS, within the limits by construction, for the variances of the
payload's inertia about its centre of mass.

Small settings (the LWR4+'s wrist, 4 s × 16 harmonics at 50 Hz, one start, a few dozen iterations) keep the file
at a few seconds; the bench (bench/payload_wide_design.py, payload_wide_fits.py) measures the real settings."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import ArgumentError
from baseparam.excitation import _payload_feasible as wide
from baseparam.excitation._problem import DesignProblem
from baseparam.excitation.design import design_excitation
from baseparam.excitation.limits import motion_limits
from baseparam.excitation.payload import payload_columns
from test_excite_payload import ISSUE_LIMITS, KUKA, RRR, RRR_LIMITS

SMALL = dict(limits=ISSUE_LIMITS, payload=True, period=4.0, harmonics=16, rate=50.0, starts=1, seed=0,
             payload_design="wide")
FEW = 40                      # L-BFGS iterations in these tests


@pytest.fixture(scope="module")
def robot():
    return bp.load_robot(KUKA)


@pytest.fixture(scope="module")
def designs(robot):
    """The same wide design twice (seed 0) and the standard design it starts from."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wide, "ITERATIONS", FEW)
        first, again = (design_excitation(robot, **SMALL) for _ in range(2))
    start = design_excitation(robot, **{**SMALL, "period": 1.0, "harmonics": 4, "payload_design": "standard"})
    return first, again, start


@pytest.fixture(scope="module")
def problem(robot):
    """A wide problem of the wrist on the centre criterion (noise weights of the LWR4+'s order)."""
    lim = motion_limits(robot, ISSUE_LIMITS)
    load = payload_columns(robot, "pseudo", lim, 3)
    held = load.pose.copy()
    held[[k - 1 for k in load.moving]] = np.nan
    p = DesignProblem(robot, load.pivots, "pseudo", 4.0, 16, lim, "cond", held=held)
    p.use_criterion(wide.wide_criterion("pseudo", 1.0 / np.array([1.0, 1.5, 0.8, 0.6, 0.3, 0.2, 0.1])))
    return p, lim


def test_written_samples_keep_the_limits(designs):
    d = designs[0]
    lim = d.limits
    s = d.samples
    assert (s.q >= lim.lower - 1e-12).all() and (s.q <= lim.upper + 1e-12).all()
    assert (np.abs(s.qd) <= lim.velocity).all() and (np.abs(s.qdd) <= lim.acceleration).all()
    b = d.bounds                               # certified between the samples too
    assert (b["qd_max"] <= lim.velocity).all() and (b["qdd_max"] <= lim.acceleration).all()
    assert (b["q_min"] >= lim.lower).all() and (b["q_max"] <= lim.upper).all()
    # the held joints still, the wrist moving
    assert np.all(s.q[:, :4] == d.payload.pose[:4]) and np.abs(s.qd[:, 4:]).max() > 0.3


def test_the_criterion_decreases_from_the_start(designs):
    first, _, start = designs
    r = first.refinement
    assert r["design"] == "wide" and r["iterations"] == FEW and r["complete"]
    assert r["value"] < r["start_value"] - 0.1            # measured 0.66 → 0.37 in 40 iterations (−1.13 in 1500)
    # the start is the standard design of period/4 and 4 harmonics (same seed), played 4 times
    assert start.period * 4 == first.period and first.harmonics == 16


def test_the_same_seed_gives_the_same_series(designs):
    first, again, _ = designs
    assert np.array_equal(first.series.coefficients, again.series.coefficients)
    assert first.refinement == again.refinement


def test_the_gradient_in_the_free_unknowns_is_exact(problem):
    p, _ = problem
    feasible = wide.FeasibleMap(p)
    y = feasible.start(p.initial(np.random.default_rng(3)))
    f, g = feasible.value_and_gradient(y)
    rng = np.random.default_rng(4)
    for k in rng.choice(len(y), 6, replace=False):
        h = 1e-6 * max(1.0, abs(y[k]))
        up, down = y.copy(), y.copy()
        up[k] += h
        down[k] -= h
        numeric = (feasible.value_and_gradient(up)[0] - feasible.value_and_gradient(down)[0]) / (2 * h)
        assert numeric == pytest.approx(g[k], rel=1e-4, abs=1e-6 * max(1.0, abs(f)))


def test_every_free_point_is_within_the_limits(problem):
    p, _ = problem
    feasible = wide.FeasibleMap(p)
    rng = np.random.default_rng(5)
    for _ in range(5):
        y = rng.normal(scale=3.0, size=len(feasible.moving) * p.m)
        assert p.violation(feasible.x(y)) <= 1e-12          # round-off (_within_limits certifies the design)


def test_a_deadline_ends_the_run_after_the_iteration_under_way(problem):
    p, _ = problem
    ticks = iter(range(1000))                 # an injected clock: one tick per iteration's check
    outcome = wide.refine(p, p.initial(np.random.default_rng(6)), iterations=500, deadline=3,
                          clock=lambda: next(ticks))
    assert outcome.iterations == 4 and not outcome.complete
    assert outcome.value <= outcome.start_value
    assert p.violation(outcome.x) <= 1e-12


def test_refusals(robot):
    with pytest.raises(ArgumentError, match="payload_design: 'wide' goes with payload=True"):
        design_excitation(robot, payload_design="wide")
    with pytest.raises(ArgumentError, match="payload_design: expected|payload_design"):
        design_excitation(robot, payload=True, payload_design="wider")
    with pytest.raises(ArgumentError, match="harmonics: payload_design='wide' needs at least 16"):
        design_excitation(robot, **{**SMALL, "harmonics": 8})
    rrr = bp.load_robot(RRR)
    with pytest.raises(ArgumentError, match="needs all 10 payload parameters identifiable"):
        design_excitation(rrr, payload=True, payload_design="wide", harmonics=16, period=8.0, limits=RRR_LIMITS)


def test_cli_writes_the_refinement(tmp_path, monkeypatch):
    monkeypatch.setattr(wide, "ITERATIONS", 5)
    out = tmp_path / "d.json"
    args = ["excite", str(KUKA), "--payload", "--payload-design", "wide", "--period", "4", "--harmonics", "16",
            "--rate", "50", "--starts", "1", "--json", str(out), "--noise", "1,1,1,1,0.5,0.5,0.5"]
    limits = tmp_path / "limits.yaml"
    limits.write_text(json.dumps(ISSUE_LIMITS))
    result = CliRunner().invoke(main, args + ["--limits", str(limits)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["refinement"]["design"] == "wide" and doc["refinement"]["iterations"] == 5
    assert doc["refinement"]["noise"] == [1, 1, 1, 1, 0.5, 0.5, 0.5]
    assert "wide: L-BFGS" in result.output
    refused = CliRunner().invoke(main, ["excite", str(KUKA), "--payload-design", "wide"])
    assert refused.exit_code == 2 and "--payload-design: goes with --payload" in refused.output


def test_centre_rows_are_the_derivatives_of_the_inertia_about_the_centre():
    def about_centre(p):                                  # Khalil's XX XY XZ YY YZ ZZ MX MY MZ M
        I = np.array([[p[0], p[1], p[2]], [p[1], p[3], p[4]], [p[2], p[4], p[5]]])
        h, m = p[6:9], p[9]
        Ic = I - (h @ h * np.eye(3) - np.outer(h, h)) / m
        return Ic[[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]
    m, c = 1.3, np.array([0.03, -0.05, 0.07])
    p = np.r_[0.02, 0.001, -0.002, 0.03, 0.003, 0.025, m * c, m]
    numeric = np.column_stack([(about_centre(p + d) - about_centre(p - d)) / 2e-7 for d in 1e-7 * np.eye(10)])
    assert np.allclose(wide.centre_rows(c, np.eye(10)), numeric, atol=1e-7)


def test_the_criterion_does_not_depend_on_the_parameterization():
    from baseparam.model.parameters import khalil_to_pseudo
    T = np.array(khalil_to_pseudo(), dtype=float)          # p_pseudo = T p_khalil: A_khalil = A_pseudo T
    A = np.random.default_rng(7).normal(size=(70, 10))
    weights = np.linspace(0.5, 2.0, 7)
    pseudo, khalil = wide.wide_criterion("pseudo", weights)(A)[0], wide.wide_criterion("khalil", weights)(A @ T)[0]
    assert khalil == pytest.approx(pseudo, rel=1e-10)
