"""The proof of a design in simulation: references, tracking, and identification scored against the truth.

Oracles: the known true parameters of the simulated robot (the simulation runs the articulated-body
algorithm, identification the base regressor: two computations of the dynamics), the analytic
derivatives of a smooth motion (for a reference rebuilt from a noisy, irregular log of it), and the
noise model's own draws (a log re-drawn with a seed equals the one first made with it).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import baseparam as bp
from baseparam.excitation.fourier import FourierSeries
from conftest import planar_arm

pytestmark = pytest.mark.filterwarnings("ignore::baseparam.ExcitationWarning")   # the timid motion is meant to be poor
LIMITS = {"joints": [{"q": [-2.0, 2.5], "qd": 1.5}, {"q": [-1.5, 1.5], "qd": 2.0}, {"q": [-2.5, 2.5], "qd": 2.5}]}


@pytest.fixture(scope="module")
def arm():
    """A planar 3R arm with physical bodies and friction (viscous, Coulomb, offset) on every joint."""
    return planar_arm()


@pytest.fixture(scope="module")
def design(arm):
    return bp.design_excitation(arm, period=4.0, harmonics=3, rate=50.0, limits=LIMITS, starts=2, workers=2, seed=3)


@pytest.fixture(scope="module")
def held_out():
    """Another motion: slow sines, 6 s at 200 Hz."""
    t = np.arange(1201) / 200.0
    w = np.array([0.9, 1.3, 1.7])
    q = 0.6 * np.sin(w * t[:, None] + [0.3, 1.0, 2.0])
    return bp.Reference(t, q, 0.6 * w * np.cos(w * t[:, None] + [0.3, 1.0, 2.0]),
                        -0.6 * w ** 2 * np.sin(w * t[:, None] + [0.3, 1.0, 2.0]), "sines")


def test_design_identifies_better_than_a_timid_motion(arm, design, held_out):
    """Same robot, same sensors, same length: the design's fit is closer to the truth, in parameters
    and in held-out torques, than the fit of the same motion at a fifth of its amplitude."""
    timid = FourierSeries(design.period, design.series.q0, design.series.a / 5, design.series.b / 5)
    references = {"design": bp.Reference.periodic(design, 200.0, 8.0),
                  "timid": bp.Reference.periodic(timid, 200.0, 8.0)}
    noise = bp.SensorNoise(q=1e-5, qd=2e-3, tau=0.2, seed=4)
    comparison = bp.compare_motions(arm, bp.standard_parameters(arm), references, held_out, noise=noise,
                                    methods=("ols",), draws=2)
    good, poor = comparison.fits[("design", "ols")], comparison.fits[("timid", "ols")]
    for g, p in zip(good, poor):
        assert g.parameter_error < p.parameter_error / 3
        assert g.torque_error < p.torque_error / 2
        assert g.condition_number < p.condition_number
        truth = bp.find_base_parameters(arm).from_standard(bp.standard_parameters(arm))
        np.testing.assert_allclose(g.truth, truth)
    assert {row[:2] for row in comparison.table()} == {("design", "ols"), ("timid", "ols")}
    assert "design" in comparison.summary() and comparison.runs["design"].tracking_error.max() < 1e-2


def test_noise_free_run_identified_from_exact_states_is_the_truth(arm, design, held_out):
    """The tracked motion obeys the dynamics identification models: without noise and with the exact
    q̈, least squares returns the true base parameters."""
    run = bp.track(arm, bp.standard_parameters(arm), bp.Reference.periodic(design, 200.0, 8.0),
                   record=("q", "qd", "qdd", "tau"), logged_torque="held")
    exact = dataclasses.replace(run, log=run.truth)
    fit = bp.simulated_identification(arm, bp.standard_parameters(arm), exact, bp.track(
        arm, bp.standard_parameters(arm), held_out), methods=("ols",), preprocessing=None)["ols"]
    assert fit.parameter_error < 1e-9 and fit.torque_error < 1e-9


def test_logged_torque_mean_removes_the_half_tick_bias(arm, design, held_out):
    """q̈ by central differences of the positions belongs with the mean of the torques held over the
    ticks either side: logging that mean instead of the commanded torque makes the noise-free fit
    (default preprocessing) closer to the truth."""
    p = bp.standard_parameters(arm)
    reference = bp.Reference.periodic(design, 200.0, 8.0)
    validation = bp.track(arm, p, held_out)
    errors = {}
    for logged in ("mean", "held"):
        run = bp.track(arm, p, reference, logged_torque=logged)
        errors[logged] = bp.simulated_identification(arm, p, run, validation, methods=("ols",))["ols"].torque_error
    assert errors["mean"] < errors["held"] / 2


def test_reference_from_a_noisy_irregular_log_has_the_motions_derivatives():
    rng = np.random.default_rng(0)
    t = np.cumsum(rng.uniform(0.004, 0.006, 2000))
    w = np.array([0.7, 1.1])
    log = bp.Trajectory(t=t, q=np.sin(w * t[:, None]) + rng.normal(0, 1e-5, (len(t), 2)), tau=np.zeros((len(t), 2)))
    ref = bp.Reference.from_log(log, 500.0, cutoff=5.0)
    assert ref.rate == pytest.approx(500.0) and ref.t[0] == 0.0
    inner = slice(500, -500)                     # away from the filter's ends
    tt = ref.t[inner] + t[0]
    np.testing.assert_allclose(ref.q[inner], np.sin(w * tt[:, None]), atol=1e-4)
    np.testing.assert_allclose(ref.qd[inner], w * np.cos(w * tt[:, None]), atol=2e-3)
    np.testing.assert_allclose(ref.qdd[inner], -w ** 2 * np.sin(w * tt[:, None]), atol=5e-2)


def test_a_log_redrawn_with_the_same_noise_is_the_same(arm, held_out):
    p = bp.standard_parameters(arm)
    noise = bp.SensorNoise(q=1e-4, tau=0.3, seed=9)
    run = bp.track(arm, p, held_out, noise=noise)
    again = bp.track(arm, p, held_out).with_noise(noise)
    np.testing.assert_array_equal(run.log.q, again.log.q)
    np.testing.assert_array_equal(run.log.tau, again.log.tau)
    assert not np.array_equal(run.log.tau, run.with_noise(dataclasses.replace(noise, seed=10)).log.tau)


@pytest.mark.parametrize("kwargs, message", [
    ({"bandwidth": 50.0}, "too high for a controller at 200 Hz"),
    ({"logged_torque": "last"}, "logged_torque: expected one of mean, held"),
    ({"record": ("q", "tau", "force")}, "record: unknown fields"),
    ({"gains": [1.0, -1.0, 1.0]}, "gains: expected 3 positive"),
])
def test_track_refuses_bad_settings_in_one_line(arm, held_out, kwargs, message):
    with pytest.raises(bp.ArgumentError, match=message):
        bp.track(arm, bp.standard_parameters(arm), held_out, **kwargs)


def test_track_refuses_a_reference_of_another_robot(arm):
    t = np.arange(20) / 100.0
    other = bp.Reference(t, np.zeros((20, 6)), np.zeros((20, 6)), np.zeros((20, 6)))
    with pytest.raises(bp.ArgumentError, match="6 joints for"):
        bp.track(arm, bp.standard_parameters(arm), other)


def test_a_reference_whose_ticks_start_later_is_followed_the_same(arm, held_out):
    """The controller looks the reference up by tick from its first tick: the same motion stamped 3 s
    later is tracked identically (it used to be looked up from t = 0, so every tick read a later row)."""
    p = bp.standard_parameters(arm)
    later = dataclasses.replace(held_out, t=held_out.t + 3.0)
    run, shifted = bp.track(arm, p, held_out), bp.track(arm, p, later)
    np.testing.assert_allclose(shifted.truth.q, run.truth.q, atol=1e-12)
    np.testing.assert_allclose(shifted.tracking_error, run.tracking_error, atol=1e-12)


def _reference(t=None, q=None, qd=None, qdd=None):
    t = np.arange(20) / 100.0 if t is None else t
    zeros = np.zeros((len(t), 3))
    return bp.Reference(t, zeros if q is None else q, zeros if qd is None else qd, zeros if qdd is None else qdd)


@pytest.mark.parametrize("make, message", [
    (lambda: _reference(q=np.full((20, 3), np.nan)), "reference.q: non-finite value at tick 0, joint 1"),
    (lambda: _reference(qd=np.zeros((19, 3))), r"reference.qd: expected shape \(20, n_dof\)"),
    (lambda: _reference(qdd=np.zeros((20, 2))), r"reference.qdd: expected shape \(20, n_dof\)"),
    (lambda: _reference(q=np.zeros(20)), r"reference.q: expected shape \(20, n_dof\)"),
    (lambda: _reference(t=np.arange(20) ** 2 / 100.0), "reference.t: expected increasing, uniformly spaced"),
    (lambda: _reference(t=np.zeros(1)), r"reference.t: expected ticks of shape \(S,\) with S ≥ 2"),
    (lambda: _reference(t=np.array([0.0, np.nan] * 10)), "reference.t: contains NaN"),
    (lambda: bp.Reference.periodic("design.json", 100.0), "series: expected a bp.FourierSeries"),
    (lambda: bp.Reference.periodic(FourierSeries(10.0, np.zeros(3), np.ones((3, 2)), np.ones((3, 2))), 1e12),
     "rate: 1e\\+13 ticks at 1e\\+12 Hz; at most"),
    (lambda: bp.Reference.from_log("log.csv", 100.0), "log: expected a bp.Trajectory"),
    (lambda: bp.Reference.from_log(bp.Trajectory(t=np.arange(12) / 100.0, q=np.zeros((12, 3)), tau=np.zeros((12, 3))),
                                   100.0), "log: 12 samples on the uniform grid"),
])
def test_reference_refuses_bad_input_in_one_line(make, message):
    with pytest.raises(bp.ArgumentError, match=message):
        make()


def test_comparison_refuses_unnamed_motions_and_options_no_fit_takes(arm, held_out):
    """Motion names are text (the summary lays them out); options of the consistent fit without it
    were silently dropped, where identify() refuses them."""
    p = bp.standard_parameters(arm)
    noise = bp.SensorNoise(tau=0.1)
    with pytest.raises(bp.ArgumentError, match=r"dict name \(str\)"):
        bp.compare_motions(arm, p, {1: held_out}, held_out, noise=noise, methods=("ols",))
    with pytest.raises(bp.ArgumentError, match="prior: options of the consistent fit, but methods"):
        bp.compare_motions(arm, p, {"a": held_out}, held_out, noise=noise, methods=("ols",), prior="cad")
    run = bp.track(arm, p, held_out)
    with pytest.raises(bp.ArgumentError, match="prior_weight: options of the consistent fit"):
        bp.simulated_identification(arm, p, run, run, methods=("ols", "wls"), prior_weight=1.0)
