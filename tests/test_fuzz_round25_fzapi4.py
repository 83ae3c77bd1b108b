"""Fuzz round twenty-five, the Python API (issue 28): a forked driver gave every public function and method one
odd argument at a time (matrices, masked arrays, object/complex/bool/text/date dtypes, views, read-only, 0-d, empty,
huge, NaN) and compared random URDF trees, fixed and free-flying, with pinocchio; each find here with a test that
fails before its fix."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT

RRR = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
MODEL = bp.Model(RRR, np.random.default_rng(8).uniform(0.1, 1.0, bp.ColumnLayout(RRR).n_standard))


# -- Inertia: its numbers read as the library reads numbers ----------------------------------------------------------
@pytest.mark.parametrize("field, com, inertia, words", [
    ("com", np.zeros(3) + 1j, np.eye(3), "complex values"),
    ("inertia", np.zeros(3), np.eye(3) + 0j, "complex values"),
    ("com", np.array(["0.1", "0", "0"]), np.eye(3), "text"),
    ("inertia", np.zeros(3), np.eye(3).astype(str), "text"),
    ("com", np.zeros(3, dtype="datetime64[s]"), np.eye(3), "dates"),
    ("com", np.zeros(3, dtype=[("x", float)]), np.eye(3), "records"),
    ("com", [True, False, False], np.eye(3), "booleans"),
    ("com", [10 ** 400, 0, 0], np.eye(3), "beyond the float range")])
def test_an_inertia_of_numbers_that_are_not_real_is_refused_naming_its_field(field, com, inertia, words):
    """``Inertia`` converted com and inertia by ``np.array(…, dtype=float)``: complex values lost their imaginary part
    with numpy's raw ComplexWarning, and text, dates, records and booleans were taken as numbers, silently. Now read
    by the library's real_array, the field named."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.RobotDescriptionError, match=rf"^Inertia\.{field}: .*{words}"):
            bp.Inertia(1.0, com, inertia)


def test_an_inertia_of_numbers_is_kept_as_before():
    body = bp.Inertia(2, [0, 0.1, 0], [[1, 0, 0], [0, 2, 0], [0, 0, 2]])
    assert body.mass == 2.0 and body.com.dtype == np.float64 and np.array_equal(body.com, [0, 0.1, 0])
    assert np.array_equal(body.inertia, np.diag([1.0, 2.0, 2.0]))
    masked = bp.Inertia(2.0, np.ma.masked_array([0, 0.1, 0.0], mask=False), np.diag([1.0, 2.0, 2.0]))
    assert masked == body


# -- Metrics.compare: the times it keeps --------------------------------------------------------------------------
TAU = np.arange(1.0, 16.0).reshape(5, 3)


@pytest.mark.parametrize("t, words", [
    (np.array([0, 1, np.nan, 3, 4.0]), "NaN or inf"), (np.arange(5) + 1j, "complex values"),
    (np.arange(5).astype(str), "text"), (np.arange(5) > 2, "booleans"),
    (np.zeros(5, dtype="datetime64[s]"), "dates")])
def test_compare_refuses_times_that_are_not_finite_numbers(t, words):
    """``Metrics.compare`` checked only the shape of ``t``: NaN, complex, text, boolean or date times were kept in the
    result as given (a NaN returned, text where plots read seconds). Now checked as tau is."""
    with pytest.raises(bp.ArgumentError, match=rf"^t: .*{words}"):
        bp.Metrics.compare(TAU, TAU + 0.1, t)


def test_compare_keeps_times_as_before():
    t = np.linspace(0.0, 1.0, 5)
    metrics = bp.Metrics.compare(TAU, TAU + 0.1, t)
    assert metrics.t is t or np.array_equal(metrics.t, t)
    assert np.array_equal(bp.Metrics.compare(TAU, TAU + 0.1).t, np.arange(5.0))
    assert np.array_equal(bp.Metrics.compare(TAU, TAU + 0.1, [0, 1, 2, 3, 4]).t, np.arange(5.0))


# -- Metrics.from_residuals: a quotient beyond the float range ----------------------------------------------------
@pytest.mark.parametrize("t2", [[5e-324, 1.0, 1.0], [1e-10, 1.0, 1.0]])
def test_an_nrmse_beyond_the_float_range_is_refused_not_inf(t2):
    """Σe² = 1 over a Στ² of 5e-324 (torques of 1e-162 N·m): Σe²/Στ² overflowed, numpy's raw RuntimeWarning
    ("overflow encountered in divide") and an NRMSE of inf returned. Now one line naming the joint."""
    e2 = np.array([1e300 if t2[0] == 1e-10 else 1.0, 1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.ArgumentError, match=r"^e2, t2: joint 1: Σe²/Στ² beyond the floating-point range"):
            bp.Metrics.from_residuals(e2, np.array(t2), 5)


def test_figures_of_ordinary_sums_are_as_before():
    metrics = bp.Metrics.from_residuals(np.array([1.0, 4.0, 0.25]), np.array([4.0, 4.0, 0.0]), 5)
    assert np.array_equal(metrics.nrmse_percent[:2], [50.0, 100.0]) and np.isnan(metrics.nrmse_percent[2])
    assert metrics.nrmse_pooled_percent == 100.0 * np.sqrt(5.25 / 8.0)


# -- regressors filling a buffer the states are read from ----------------------------------------------------------
@pytest.mark.parametrize("samples", [5, 20_000])       # the numpy blocks and the compiled loop
@pytest.mark.parametrize("which", ["regressor", "slotine_li_regressor"])
def test_a_regressor_buffer_holding_the_states_gives_the_regressor(samples, which):
    """``out`` that shares memory with q (q a view of the buffer's first values, as a caller reusing one block of
    memory may have): the regressor was written over the states while they were read, silently wrong (off by 10¹¹ at
    20 000 samples). The states are now read from a copy in that case: the regressor of the states given."""
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.normal(size=(3, samples, 3))
    function = getattr(bp, which)
    args = (q, qd, qdd) if which == "regressor" else (q, qd, qd, qdd)
    expected = function(MODEL, *args)
    out = np.zeros(expected.shape)
    shared = out.reshape(-1)[:q.size].reshape(q.shape)
    shared[:] = q
    got = function(MODEL, shared, *args[1:], out=out)
    assert got is out and np.array_equal(got, expected)


# -- ForwardDynamics.rk4: arrays it writes while it reads ---------------------------------------------------------
def _start(n=5):
    q, qd = np.zeros((n + 1, 3)), np.zeros((n + 1, 3))
    q[0], qd[0] = [0.1, 0.2, 0.3], [0.5, 0.1, 0.2]
    return q, qd, np.full(n, 0.01), np.ones((n, 3))


def test_rk4_refuses_states_that_share_memory():
    """``rk4(q, q, dt, tau)``: q and q̇ one array, written in place by the compiled loop, gave a motion, silently
    wrong; a tau that overlapped q's rows was read after the steps had written them. Now refused in one line."""
    kernel = bp.ForwardDynamics(MODEL)
    q, _, dt, tau = _start()
    with pytest.raises(bp.ArgumentError, match=r"^q, qd: the same memory"):
        kernel.rk4(q, q, dt, tau)
    block = np.zeros((7, 3))
    q, qd, dt, _ = _start()
    q_in_block, tau_in_block = block[:6], block[1:6]
    q_in_block[0], tau_in_block[:] = q[0], 1.0
    with pytest.raises(bp.ArgumentError, match=r"^q, tau: the same memory"):
        kernel.rk4(q_in_block, qd, dt, tau_in_block)


def test_rk4_of_arrays_side_by_side_in_one_block_is_as_before():
    kernel = bp.ForwardDynamics(MODEL)
    q, qd, dt, tau = _start()
    kernel.rk4(q, qd, dt, tau)
    block = np.zeros((12, 3))
    q2, tau2 = block[:6], block[6:11]
    q2[0], tau2[:] = [0.1, 0.2, 0.3], 1.0
    qd2 = _start()[1]
    kernel.rk4(q2, qd2, dt, tau2)
    assert np.array_equal(q2, q) and np.array_equal(qd2, qd)


# -- Reference.from_log: a cutoff that underflows ------------------------------------------------------------------
def _log():
    t = np.linspace(0.0, 2.0, 201)
    q = np.sin(np.outer(t, [1.0, 2.0, 3.0]))
    return bp.from_arrays(t, q, bp.inverse_dynamics(MODEL, q, np.cos(np.outer(t, [1.0, 2.0, 3.0])) * [1, 2, 3],
                                                    -q * [1, 4, 9]))


@pytest.mark.parametrize("cutoff", [5e-324, 1e-322])
def test_a_subnormal_cutoff_is_refused_as_less_than_one_period(cutoff):
    """``Reference.from_log(log, rate, cutoff=5e-324)``: the cutoff over the Nyquist rate underflowed to 0 and SciPy's
    butter raised its bare ValueError ("critical frequencies must be greater than 0") before the rule that refuses a
    cutoff of less than one period in the log. That rule now comes first."""
    with pytest.raises(bp.ArgumentError, match=r"^cutoff: .* Hz is not one period in the log's "):
        bp.Reference.from_log(_log(), 50.0, cutoff=cutoff)


def test_a_reference_from_a_log_is_as_before():
    reference = bp.Reference.from_log(_log(), 50.0, cutoff=5.0)
    assert reference.q.shape[1] == 3 and np.isfinite(reference.qdd).all()


# -- FourierSeries: a phase beyond the float range --------------------------------------------------------------
A = np.full((2, 7), 0.1)


@pytest.mark.parametrize("period", [5e-324, 1e-307])
def test_a_period_whose_frequencies_overflow_is_refused(period):
    """``FourierSeries(period=5e-324, …)`` was accepted: 2π/period is inf, and evaluate() and certified_bounds()
    returned NaN for every q, q̇, q̈, silently. Now refused when 2π K / period is beyond the float range."""
    with pytest.raises(bp.ArgumentError, match=r"^period: .* s is too short for 7 harmonics"):
        bp.FourierSeries(period, np.zeros(2), A, A)


def test_a_time_whose_phase_overflows_is_refused_not_nan():
    """``evaluate(1e308)``: the phase 2π l t / T overflowed to inf, and q, q̇, q̈ came back NaN with numpy's raw
    RuntimeWarnings (overflow in multiply, invalid value in sin and cos). Now one line naming t."""
    series = bp.FourierSeries(10.0, np.zeros(2), A, A)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.ArgumentError, match=r"^t: a time of 1e\+308 s is beyond the floating-point range"):
            series.evaluate([0.0, 1e308])


def test_a_series_is_evaluated_as_before():
    series = bp.FourierSeries(1e-300, np.zeros(2), A, A)
    assert np.isfinite(series.certified_bounds()["qdd_max"]).all()
    series = bp.FourierSeries(10.0, np.zeros(2), A, A)
    q, qd, qdd = series.evaluate(np.array([0.0, 0.5, 1e300]))
    assert np.isfinite(q).all() and q.shape == (3, 2)
    assert series.evaluate(np.zeros(0))[0].shape == (0, 2)


# -- SensorNoise.apply: the values it is given ----------------------------------------------------------------------
@pytest.mark.parametrize("value, words", [(np.nan, "non-finite value nan"), (np.inf, "non-finite value inf"),
                                          (1e300, "absurd value")])
def test_noise_refuses_fields_that_are_not_states(value, words):
    """``SensorNoise.apply`` checked the fields' shapes only: a NaN or inf came back in the noisy copy, silently,
    and 1e300 rounded to a resolution of 1e-10 overflowed with numpy's raw warning. Now the states' rule, one line
    naming the field, sample and joint."""
    q = np.zeros((4, 3))
    q[1, 2] = value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.ArgumentError, match=rf"^fields\['q'\]: {words}.* at sample 1, joint 3"):
            bp.SensorNoise(q=0.1, resolution=1e-10).apply({"q": q}, 3)


def test_noise_of_states_is_as_before():
    noise = bp.SensorNoise(q=0.1, tau=0.2, seed=4)
    q, tau = np.ones((5, 3)), np.full((5, 3), 2.0)
    noisy = noise.apply({"q": q, "tau": tau}, 3)
    rng = np.random.default_rng(4)
    assert np.array_equal(noisy["q"], q + rng.standard_normal((5, 3)) * 0.1)
    assert np.array_equal(noisy["tau"], tau + rng.standard_normal((5, 3)) * 0.2)


# -- identification_errors: a noise whose draws overflow ------------------------------------------------------------
def test_a_noise_whose_draws_overflow_is_refused_without_numpy_warning():
    """``identification_errors(…, noise=1e308)``: the draws σ·N(0, 1) overflowed with numpy's raw RuntimeWarning
    ("overflow encountered in multiply") before the refusal of such a noise. Now refused in words alone."""
    base = bp.find_base_parameters(RRR)
    q, qd, qdd = np.random.default_rng(1).normal(size=(3, 30, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.ArgumentError, match=r"^noise: a standard deviation of 1e\+308 makes the fits"):
            bp.identification_errors(base, base.from_standard(MODEL.p), q, qd, qdd, 1e308, trials=3)


def test_identification_errors_of_a_sensible_noise_are_as_before():
    base = bp.find_base_parameters(RRR)
    q, qd, qdd = np.random.default_rng(1).normal(size=(3, 30, 3))
    errors = bp.identification_errors(base, base.from_standard(MODEL.p), q, qd, qdd, 0.1, trials=3)
    assert 0 < errors.parameter_error < 0.1 and errors.trials == 3
