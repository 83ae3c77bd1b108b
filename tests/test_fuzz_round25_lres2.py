"""Fuzz round twenty-five (lres2): result values' last bounds (issue 28).

Each test fails before its fix. The results are those of round twenty-four's driver (one of each public result type,
as the library builds it)."""
import dataclasses
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import ArgumentError
from conftest import planar_arm
from test_fuzz_round24_lres import library_results

MANY = 100_000


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """One result of each public result type, as the library builds it."""
    return library_results(tmp_path_factory.mktemp("lres2"))


@pytest.mark.parametrize("name, field, value, message", [
    ("ExportResult", "files", ("x.c",) * MANY, "ExportResult.files: 100000 names; expected at most 3"),
    ("Metrics", "sources", ["log.csv"] * MANY, "Metrics.sources: 100000 names of "),
    ("MotionComparison", "runs", None, "MotionComparison.runs: 100000 motions; expected at most 1000"),
    ("FloatingIdentification", "known", None, "FloatingIdentification.known: 100000 entries of "),
])
def test_a_list_of_100_000_items_is_refused_in_one_line(results, name, field, value, message):
    """100 000 files, sources, motions or known quantities were taken, and each reached the repr."""
    result = results[name]
    if name == "MotionComparison":
        run = next(iter(result.runs.values()))
        value = {f"m{k}": run for k in range(MANY)}
    if name == "FloatingIdentification":
        value = {f"x{k}": 1.0 for k in range(MANY)}
    with pytest.raises(ArgumentError, match=message.replace(".", r"\.")) as caught:
        dataclasses.replace(result, **{field: value})
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_a_known_quantity_of_no_standard_parameter_is_refused(results):
    """identify_floating takes 'mass' or a standard parameter's name; a hand-built result took any name."""
    result = results["FloatingIdentification"]
    with pytest.raises(ArgumentError, match="'XX99' is neither 'mass' nor one of its standard_names"):
        dataclasses.replace(result, known={"XX99": 1.0})
    name = result.standard_names[0]
    assert dataclasses.replace(result, known={name: 0.5, "mass": 1.0}).known == {name: 0.5, "mass": 1.0}


def test_more_sources_than_samples_are_refused(results):
    """Each file compared gave at least one sample."""
    metrics = results["Metrics"]
    with pytest.raises(ArgumentError, match="Metrics.sources: 3 names of 2 samples"):
        dataclasses.replace(metrics, n_samples=2, sources=["a", "b", "c"])
    assert dataclasses.replace(metrics, n_samples=2, sources=["a", "b"]).sources == ["a", "b"]


def test_compare_motions_refuses_more_motions_than_its_bound_before_simulating(results):
    """Each motion is a tracking simulation and a fit per draw: 1001 of them are refused at once."""
    comparison = results["MotionComparison"]
    reference = next(iter(comparison.runs.values())).reference
    with pytest.raises(ArgumentError, match="references: 1001 motions; expected at most 1000"):
        bp.compare_motions(bp.Model(planar_arm()),
                           {f"m{k}": reference for k in range(1001)}, reference,
                           noise=bp.SensorNoise(tau=0.01, seed=1))


@pytest.mark.parametrize("record, message", [
    ({f"k{k}": 1 for k in range(MANY)}, "field record: 100000 entries; expected at most 100"),
    ({"reader_notes": ["x"] * MANY}, r"field record\['reader_notes'\]: 100000 items; expected at most 10000"),
    ({"rates": "x" * 200_000}, r"field record\['rates'\]: a text of 200000 characters"),
    ({"nested": {"a": [1] * MANY}}, r"field record\['nested'\]: dict"),
    ({1: 2}, "field record: key 1; expected names"),
    ({"cutoff_hz": float("nan")}, r"field record\['cutoff_hz'\]: float nan; expected None, a bool, a finite number"),
])
def test_a_processed_record_beyond_its_bounds_is_refused(results, record, message):
    """Processed.record took anything (a million entries, nested lists) and the fit wrote it into its JSON."""
    processed = results["Processed"]
    with pytest.raises(bp.DataError, match=message):
        dataclasses.replace(processed, record=record)
    with pytest.raises(ArgumentError, match=message.replace("field record", "LogResult.record")):
        dataclasses.replace(results["LogResult"], record=record)


def test_the_records_preprocessing_writes_are_taken(results):
    """Every record preprocess writes (its settings, counts, the rates, a reader's notes) is taken as it is."""
    log = results["Trajectory"]
    noted = dataclasses.replace(log, notes=("a clock restarted",) * 3)
    for settings in (bp.Preprocessing(), bp.Preprocessing.none(), bp.Preprocessing(resample=0.02, cutoff_hz=None)):
        processed = bp.preprocess(noted, settings)
        again = dataclasses.replace(processed)
        assert again.record == processed.record and again.record["reader_notes"] == list(noted.notes)


# -- absurd but finite data (× 1e200): refused in one line, with no raw numpy or scipy warning first ------------------
def _log_times(results, scale):
    log = results["Trajectory"]
    return dataclasses.replace(log, tau=log.tau * scale)


@pytest.mark.parametrize("method", ["ols", "consistent"])
@pytest.mark.parametrize("scale", [1e200, -1e150])
def test_a_fit_of_absurd_torques_is_refused_without_numpy_warnings(results, method, scale):
    """The fit squared them into numpy's overflow warnings (and the consistent fit's solver's) before any refusal."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(bp.DataError, match=r"^<arrays>: field tau\d: absurd value .* \(\|τ\| > 1e\+100\); "
                                               "expected torques in N·m or N$"):
            bp.identify(planar_arm(), _log_times(results, scale), preprocessing=None, method=method)


def test_a_delay_of_absurd_torques_is_refused_without_numpy_warnings(results):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(bp.DataError, match=r"field tau\d: absurd value"):
            bp.estimate_delay(_log_times(results, 1e200), planar_arm())


def test_compared_torques_whose_squares_overflow_are_refused_without_numpy_warnings(results):
    tau = results["Trajectory"].tau
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ArgumentError, match="squares beyond the floating-point range"):
            bp.Metrics.compare(tau * 1e200, tau)


def test_absurd_simulated_torques_are_refused_without_numpy_warnings():
    """Rows beyond ±1e8 are refused as forward_dynamics refuses them; a controller's are a divergence, as before,
    without the solver's raw overflow warnings."""
    model, t, z = bp.Model(planar_arm()), np.linspace(0, 0.2, 11), np.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ArgumentError, match=r"^tau: absurd value \(\|x\| > 1e\+08\) 1e\+200 at sample 0, joint 1$"):
            bp.simulate(model, t, z, z, np.full(3, 1e200))
        for method in ("DOP853", "rk4"):
            with pytest.raises(bp.SimulationError, match="the simulation diverged"):
                bp.simulate(model, t, z, z, lambda time, q, qd: np.full(3, 1e200), method=method)
        with pytest.raises(ArgumentError, match="the controller raised RuntimeWarning"):     # the controller's own
            bp.simulate(model, t, z, z, lambda time, q, qd: np.full(3, 1e200) * 1e200)


def test_predict_of_a_log_preprocessing_cannot_keep_gives_one_torque_per_joint(results):
    """A robot with friction: the shapes of a log preprocess refuses (a time step beyond 0.5 s) were n_dof columns
    where 2 n_dof were written into them (numpy's bare "shape mismatch")."""
    log = results["Trajectory"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)        # a short log: poorly identified, not the point
        estimator = bp.BaseParameterEstimator(planar_arm(), preprocessing=None).fit(log)
    slow = dataclasses.replace(log, t=log.t * 100)
    predicted = estimator.predict(slow)
    assert predicted.shape == log.tau.shape and np.isfinite(predicted).all()


# -- the result fuzz again: what was accepted and then failed ---------------------------------------------------------
@pytest.mark.parametrize("field", ["estimate", "truth"])
@pytest.mark.parametrize("value", [np.nan, 1e200])
def test_fit_errors_of_a_nan_or_absurd_estimate_are_refused_at_construction(results, field, value):
    """They were built, and their repr raised fit_errors' ArgumentError."""
    fit = results["FitErrors"]
    bad = getattr(fit, field).copy()
    bad[0] = value
    with pytest.raises(ArgumentError, match=rf"^FitErrors\.{field}: (non-finite|absurd) value"):
        dataclasses.replace(fit, **{field: bad})


def test_a_payload_centre_of_mass_beyond_1e100_is_refused_without_numpy_warnings(results):
    """Its square overflowed in the inertia's slack (numpy's raw warning, then a slack that takes any inertia)."""
    payload = results["PayloadResult"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ArgumentError, match=r"^PayloadResult\.com: absurd value .*; expected a centre of mass"):
            dataclasses.replace(payload, com=payload.com * 1e200)


@pytest.mark.parametrize("functions, message", [
    ({"regressor": {"b": 1}}, r"^ExportResult\.functions\['regressor'\]: no entry 'mul'"),
    ({f"k{k}": {} for k in range(MANY)}, r"^ExportResult\.functions: 'k0'; expected some of regressor, slotine_li"),
])
def test_export_function_counts_of_other_entries_are_refused(results, functions, message):
    """summary() read each function's four counts (a bare KeyError 'mul'); the repr listed 100 000 names."""
    with pytest.raises(ArgumentError, match=message):
        dataclasses.replace(results["ExportResult"], functions=functions)
