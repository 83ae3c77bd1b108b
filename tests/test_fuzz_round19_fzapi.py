"""Fuzz round nineteen, the Python API (payload, excitation, simulation and tracking): what a forked fuzz driver
over their arguments found (wrong types, masked and complex arrays, ints beyond the float range, extreme sizes), each
refused in one line by the library's own exceptions, not a bare numpy/Python error nor a silent wrong answer."""
import numpy as np
import pytest

import baseparam as bp
from baseparam._memory import format_size
from baseparam._numbers import flat_values
from conftest import ROOT

MASKED = np.ma.masked_array(np.zeros(6), mask=[True, False, False, False, False, False])


@pytest.fixture(scope="module")
def ur10e():
    return bp.Model(bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml"))


@pytest.mark.parametrize("value, words", [
    (10**400, "beyond the float range"),                # a bare OverflowError
    ([10**400] * 6, "beyond the float range"),
    (MASKED, "1 masked value"),                          # the value under the mask was simulated
    (np.zeros(6, complex), "complex"),                   # numpy's ComplexWarning, the imaginary part dropped
    (np.array(["0"] * 6), "text"),
], ids=["int", "ints", "masked", "complex", "text"])
def test_a_controllers_torques_are_read_as_every_array_argument(ur10e, value, words):
    with pytest.raises(bp.ArgumentError, match=f"tau: the controller returned values at t = 0 s: .*{words}"):
        bp.simulate(ur10e, np.linspace(0, 0.09, 10), np.zeros(6), np.zeros(6), lambda t, q, qd: value, method="rk4")


def _wrench_log(robot):
    t = np.arange(0, 1, 0.01)
    q = 0.3 * np.sin(np.outer(t, np.arange(1, robot.n_dof + 1)))
    return bp.Trajectory(t=t, q=q), len(t)


@pytest.mark.parametrize("make, words", [
    (lambda S: np.full((S, 6), 10**400, dtype=object), "beyond the float range"),   # a bare OverflowError
    (lambda S: np.ma.masked_array(np.ones((S, 6)), mask=np.eye(S, 6, dtype=bool)), "masked value"),
    (lambda S: np.ones((S, 6), complex), "complex"),                 # cast with a ComplexWarning
    (lambda S: np.ones((S, 6)).astype(str), "text"),                 # text read as numbers
    (lambda S: np.ones((S, 6), bool), "bool"),
])
def test_a_payload_wrench_is_read_as_every_array_argument(ur10e, make, words):
    log, S = _wrench_log(ur10e.robot)
    with pytest.raises(bp.DataError, match=f"wrench\\[0\\]: .*{words}"):
        bp.identify_payload(ur10e, log, wrench=make(S))


@pytest.mark.parametrize("value", [[True] * 6, np.ones(6, complex), MASKED, np.array(["0"] * 6), [10**400] * 6],
                         ids=["bool", "complex", "masked", "text", "int"])
def test_small_vectors_of_numbers_refuse_what_is_no_real_number(ur10e, value):
    """flat_values (sensor=, design_excitation's pose= and noise=) converts as real_array: numpy's cast read
    booleans and text as numbers, dropped an imaginary part and read values under a mask."""
    with pytest.raises(ValueError):
        flat_values(value, 6)
    log, S = _wrench_log(ur10e.robot)
    with pytest.raises(bp.SettingsError, match="sensor: expected 6 finite numbers"):
        bp.identify_payload(ur10e, log, wrench=np.zeros((S, 6)), sensor=value)


def test_certified_bounds_of_a_count_beyond_the_float_range_is_a_memory_refusal():
    series = bp.FourierSeries(10.0, np.zeros(2), 0.1 * np.ones((2, 2)), 0.05 * np.ones((2, 2)))
    with pytest.raises(bp.ResourceLimitError, match=r"n_samples: 1000.*0000 samples would need about 2\.96e\+390 TB"):
        series.certified_bounds(10**400)            # a bare OverflowError in the margin, then in format_size
    assert format_size(10**400) == "1.00e+388 TB" and format_size(3.7e27) == "3.70e+15 TB"
    assert format_size(2 * 10**15) == "2000 TB"     # below 10¹⁵ TB as before


@pytest.fixture(scope="module")
def log():
    t = np.linspace(0, 4, 401)
    return bp.Trajectory(t=t, q=np.sin(np.outer(t, [1.0, 2.0])))


@pytest.mark.parametrize("call, error, words", [
    (lambda log, fs: bp.Reference.from_log(log, 1e308), bp.ArgumentError, "rate: inf ticks at 1e.308 Hz"),
    (lambda log, fs: bp.Reference.periodic(fs, 100.0, duration=1e308), bp.ArgumentError, "rate: inf ticks at 100 Hz"),
    # a cut-off below one period in the log: a singular filter design (numpy's bare LinAlgError)
    (lambda log, fs: bp.Reference.from_log(log, 100.0, cutoff=1e-300), bp.ArgumentError,
     "cutoff: 1e-300 Hz is not one period in the log's 3.99 s"),
    (lambda log, fs: bp.Reference.periodic(fs, 100.0, source=np.array([])), TypeError, "source: expected a str"),
    (lambda log, fs: bp.Reference.from_log(log, 100.0, source=np.array([])), TypeError, "source: expected a str"),
])
def test_references_refuse_extreme_rates_cutoffs_and_sources_in_one_line(log, call, error, words):
    series = bp.FourierSeries(10.0, np.zeros(2), 0.1 * np.ones((2, 2)), 0.05 * np.ones((2, 2)))
    with pytest.raises(error, match=words):
        call(log, series)


def test_a_reference_of_a_log_is_as_before_where_it_was_made(log):
    """The ticks counted as before (floor of end · rate, rounded duration · rate): the same grid."""
    ref = bp.Reference.from_log(log, 100.0, cutoff=5.0)
    assert ref.n_samples == 400 and ref.t[-1] == pytest.approx(3.99)
    series = bp.FourierSeries(10.0, np.zeros(2), 0.1 * np.ones((2, 2)), 0.05 * np.ones((2, 2)))
    assert bp.Reference.periodic(series, 100.0).n_samples == 1001


@pytest.mark.parametrize("fields", [dict(q=1e308), dict(tau=[0, 0, 1e300]), dict(resolution=1e7)])
def test_sensor_noise_beyond_any_sensors_is_refused_when_made(fields):
    """σ = 1e308 overflowed the noisy log (numpy's RuntimeWarning), which was then refused in words about a file
    ("row 2: field q1: infinite; from_arrays(..., skip_bad_rows=True) drops bad rows")."""
    name = next(iter(fields))
    with pytest.raises(bp.ArgumentError, match=f"^noise.{name}: expected a number ≥ 0 or one per joint \\(each at "
                                               "most 1e\\+06\\)"):
        bp.SensorNoise(**fields)


def test_current_noise_through_huge_gains_is_refused_in_words(ur10e):
    t = np.linspace(0, 0.09, 10)
    with pytest.raises(bp.ArgumentError, match="noise.current: joint 1: 1e\\+06 A through a gain of 1e\\+300 N·m/A"):
        bp.simulate(ur10e, t, np.zeros(6), np.zeros(6), noise=bp.SensorNoise(current=1e6), gains=np.full(6, 1e300),
                    method="rk4")


def _exact_log(model, seconds=0.5):
    """Torques of ``model`` itself along a smooth motion, noise-free, q̇ and q̈ given: a log without a payload."""
    t = np.arange(0, seconds, 0.01)
    w = np.arange(1, model.n_dof + 1) * 0.7
    q, qd, qdd = 0.5 * np.sin(np.outer(t, w)), 0.5 * w * np.cos(np.outer(t, w)), -0.5 * w**2 * np.sin(np.outer(t, w))
    return bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=bp.inverse_dynamics(model, q, qd, qdd))


def test_a_noise_free_log_without_a_payload_finds_none(ur10e):
    """The fit reproduces the torques exactly: no covariance, whose pseudo-inverse (zero) made every consistent point
    equally near, and the solver's pick was reported as a payload (1.05 ± 0 kg, 'detected')."""
    with pytest.warns(bp.DataWarning, match="no payload seen"):
        result = bp.identify_payload(ur10e, _exact_log(ur10e), preprocessing=None)
    assert result.mass == 0 and not result.parameters.any() and not result.mass_detected


def test_a_robots_declared_friction_and_rotor_inertia_are_part_of_its_prediction(ur10e):
    """identify_payload(Robot) subtracted the bodies alone: the description's friction (UR10e CAD: Coulomb 12 N·m)
    was fitted as a payload (1.2 kg 'detected' with the default preprocessing, on the description's own torques)."""
    with pytest.warns(bp.DataWarning, match="no payload seen"):
        result = bp.identify_payload(ur10e.robot, _exact_log(ur10e), preprocessing=None)
    assert abs(result.mass) < 1e-9 and result.rmse.max() < 1e-9     # the torques explained, nothing left over


@pytest.mark.parametrize("tolerances, words", [
    (dict(rtol=1e-300), "rtol: expected a number > 0, from 2.22e-14 to 1"),    # scipy's UserWarning, then raised
    (dict(rtol=1e308), "rtol: expected a number > 0, from 2.22e-14 to 1"),     # numpy's overflow RuntimeWarning
    (dict(atol=1e308), "atol: expected a number > 0 and ≤ 1e\\+08"),
])
def test_simulation_tolerances_beyond_solve_ivps_range_are_refused(ur10e, tolerances, words):
    with pytest.raises(bp.ArgumentError, match=words):
        bp.simulate(ur10e, np.linspace(0, 0.09, 10), np.zeros(6), np.zeros(6), **tolerances)
