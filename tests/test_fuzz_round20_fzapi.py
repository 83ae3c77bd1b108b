"""Fuzz round twenty, the Python API: what a forked driver over every public function's arguments (odd values of
every type in each slot, odd dtypes and array kinds, threads, pickles, reprs) found, each with a test that fails
before its fix."""
import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT


@pytest.fixture(scope="module")
def planar():
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    return bp.find_base_parameters(robot), bp.find_base_parameters(robot, "khalil")


@pytest.mark.parametrize("parameters", ["x", None, float("nan"), 3, b"pseudo"])
def test_equations_of_a_base_set_refuse_what_is_no_parameterization(planar, parameters):
    """equations(base, parameters=...) ignored the argument beside a base set: any value (None, NaN, a typo)
    was taken without a word."""
    with pytest.raises(bp.ArgumentError, match="parameters: expected one of"):
        bp.equations(planar[0], parameters, check=False)


def test_equations_of_a_base_set_refuse_the_other_parameterization(planar):
    """...and the other parameterization too: the equations are in the base set's, not in the one asked for."""
    pseudo, khalil = planar
    with pytest.raises(bp.ArgumentError, match="parameters: 'khalil', but the base set is in 'pseudo' parameters"):
        bp.equations(pseudo, "khalil", check=False)
    # left at its default or agreeing: the base set's own, as before
    assert bp.equations(khalil, check=False).to_dict() == bp.equations(khalil, "khalil", check=False).to_dict()


def test_a_constant_torque_scores_as_constant_whatever_the_rounding_of_its_mean():
    """R² of a joint whose held-out torque is constant (601 equal values, whose mean is not exactly theirs) divided by
    the mean's rounding: the score was -1.4e30, not the 0 or 1 the docstring promises (scikit-learn's force_finite)."""
    from baseparam.identification.estimators import r2_score
    rng = np.random.default_rng(4)
    tau = np.column_stack([rng.normal(size=601), np.full(601, 1.0 - 5e-15)])
    assert np.ptp(tau[:, 1]) == 0 and ((tau[:, 1] - tau[:, 1].mean()) ** 2).sum() > 0     # the rounding
    predicted = tau + [0.0, 1e-3]
    assert r2_score(tau, predicted) == 0.5          # the varying joint exact (1), the constant one missed (0)
    assert r2_score(tau, tau) == 1.0
    # a torque that varies by a part in 10¹⁰ still varies: its R² as before
    varying = np.column_stack([tau[:, 0], 1.0 + 1e-10 * rng.normal(size=601)])
    predicted = varying + [0.0, 1e-10]
    residual = ((varying[:, 1] - predicted[:, 1]) ** 2).sum()
    total = ((varying[:, 1] - varying[:, 1].mean()) ** 2).sum()
    assert r2_score(varying, predicted) == pytest.approx(0.5 * (2 - residual / total), rel=1e-12)


def test_a_delay_bound_below_half_a_step_is_refused_not_exceeded():
    """estimate_delay searched one whole step each way whatever max_delay was: a bound of 1e-6 s on a 10 ms log
    returned a delay of 0.42 ms, beyond the bound asked for, without a word."""
    t = np.linspace(0, 2, 201)
    q = 0.5 * np.sin(np.outer(t, [0.7, 1.3, 1.9]))
    tau = 3.0 * q + 0.5 * np.cos(q) + np.random.default_rng(2).normal(0, 0.01, q.shape)
    log = bp.Trajectory(t=t, q=q, tau=tau)
    for max_delay in (1e-4, 1e-6, 1e-310):
        with pytest.raises(bp.DataError, match=r"max_delay: .* s is less than half the log's step \(0\.01 s\)"):
            bp.estimate_delay(log, max_delay=max_delay)


@pytest.mark.parametrize("step", [0.2, 0.25, 0.5])
def test_the_default_delay_search_of_a_coarse_log_is_one_step_each_way(step):
    """The bound above must not refuse what the user never gave: read_trajectory(delay='auto') / --delay auto call
    estimate_delay with its default, and a log of 5 Hz or less (the default 0.1 s is half its step or less) was refused
    with "give max_delay" (rv4). The default searches one step each way on such a log, as before the bound; a bound
    of half a step, to the rounding of the stamps' median step, is within it."""
    t = 1.0 + np.arange(400) * step
    q = 0.5 * np.sin(np.outer(t, [0.07, 0.13, 0.19]))
    tau = 3.0 * q + 0.5 * np.cos(q) + np.random.default_rng(3).normal(0, 0.01, q.shape)
    log = bp.Trajectory(t=t, q=q, tau=tau)
    half = np.median(np.diff(t)) / 2 * (1 - 1e-12)
    for max_delay, bound in ((None, step), (step, step), (half, half)):
        # round 23: this effort (no delay) fits best at a whole step's shift on the 5 and 4 Hz logs, the search's end,
        # which was returned (200 ms for max_delay=0.1): refused now as no delay found, never as too small a bound
        try:
            assert abs(bp.estimate_delay(log, max_delay=max_delay).seconds) <= bound + 1e-12
        except bp.DataError as refused:
            assert "end of the shifts searched" in str(refused), str(refused)
