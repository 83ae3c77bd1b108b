"""The one motion type and the one evaluation of fits.

* Every motion type — a log (:class:`~baseparam.Trajectory`), preprocessed data
  (:class:`~baseparam.Processed`), a design's samples (``excitation.Samples``), a reference to follow
  (:class:`~baseparam.Reference`) — is the one type, checked by the one check: each bad field gives
  one line naming that field, worded as the type words it.
* Round trips: preprocessing returns the motion with a mask, a simulation returns the motion, a
  reference made of it is followed exactly as it was simulated.
* The fit figures of :func:`~baseparam.identification_errors` and
  :func:`~baseparam.simulated_identification` agree with one independent computation of their
  definitions, and with each other on the same fit.
"""
import dataclasses
import subprocess
import sys

import numpy as np
import pytest

import baseparam as bp
from baseparam.excitation.fourier import FourierSeries, Samples
from baseparam.identification.preprocessing import Preprocessing, Processed, preprocess
from baseparam.motion import Trajectory, check_motion
from conftest import ROOT, planar_arm

S, N = 40, 3


def _arrays(rng=None):
    rng = rng or np.random.default_rng(0)
    t = np.arange(S) * 0.01
    return {"t": t, **{name: rng.normal(size=(S, N)) for name in ("q", "qd", "qdd", "tau")}}


# each kind of motion: how to make it from the five arrays, its exception, how it names a field
KINDS = {
    "Trajectory": (lambda a: bp.Trajectory(t=a["t"], q=a["q"], tau=a["tau"], qd=a["qd"], qdd=a["qdd"], source="log"),
                   bp.DataError, "log: field {}", "log: row {row}: field {}{joint}"),
    "Processed": (lambda a: Processed(a["t"], a["q"], a["qd"], a["qdd"], a["tau"], source="log"),
                  bp.DataError, "log: field {}", "log: row {row}: field {}{joint}"),
    "Samples": (lambda a: Samples(a["t"], a["q"], a["qd"], a["qdd"], source="log"),
                bp.DataError, "log: field {}", "log: row {row}: field {}{joint}"),
    "Reference": (lambda a: bp.Reference(a["t"], a["q"], a["qd"], a["qdd"]),
                  bp.ArgumentError, "reference.{}", "reference.{}: non-finite value at tick {row}, joint {joint}"),
}
FIELDS = {"Trajectory": ("t", "q", "qd", "qdd", "tau"), "Processed": ("t", "q", "qd", "qdd", "tau"),
          "Samples": ("t", "q", "qd", "qdd"), "Reference": ("t", "q", "qd", "qdd")}


def _raises(kind, arrays):
    make, error, _, _ = KINDS[kind]
    with pytest.raises(error) as info:
        make(arrays)
    message = str(info.value)
    assert "\n" not in message and isinstance(info.value, bp.BaseParamError) and isinstance(info.value, ValueError)
    return message


def test_every_motion_type_is_the_one_type():
    a = _arrays()
    for kind, (make, _, _, _) in KINDS.items():
        motion = make(a)
        assert isinstance(motion, Trajectory), kind
        assert motion.n_samples == S and motion.n_dof == N
        np.testing.assert_array_equal(motion.q, a["q"])
    assert bp.Trajectory is Trajectory is bp.identification.Trajectory
    assert bp.Processed is Processed and bp.Reference.__mro__[1] is Trajectory


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_value_names_its_field_row_and_joint(kind):
    _, _, _, at = KINDS[kind]
    for field in FIELDS[kind]:
        a = _arrays()
        if field == "t":
            a["t"] = a["t"].copy()
            a["t"][7] = np.nan
            expected = "reference.t: contains NaN" if kind == "Reference" else "log: row 7: field t: NaN"
        else:
            a[field] = a[field].copy()
            a[field][5, 1] = np.inf
            expected = at.format(field, row=5, joint=2)
        assert expected in _raises(kind, a), (kind, field)


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_shape_names_its_field(kind):
    _, _, name, _ = KINDS[kind]
    for field in FIELDS[kind]:
        for bad in ("rows", "columns", "ndim"):
            a = _arrays()
            if field == "t":
                a["t"] = a["t"][:, None] if bad != "rows" else a["t"][:-1]
            elif bad == "rows":
                a[field] = a[field][:-1]
            elif bad == "columns":
                a[field] = a[field][:, :-1]
            else:
                a[field] = a[field][:, 0]
            message = _raises(kind, a)
            # with t one short, q is the first field to disagree with it; with q narrow, the next field
            named = "q" if field == "t" and bad == "rows" else \
                ("tau" if "tau" in FIELDS[kind] else "qd") if field == "q" and bad == "columns" else field
            assert message.startswith(name.format(named) + ":"), (kind, field, bad, message)


@pytest.mark.parametrize("kind", KINDS)
def test_times_out_of_order_and_missing_fields(kind):
    a = _arrays()
    a["t"] = a["t"].copy()
    a["t"][4] = a["t"][3]
    message = _raises(kind, a)
    assert ("reference.t: expected increasing" if kind == "Reference" else "log: row 4: field t: duplicate time") \
        in message
    a = _arrays()
    a["qd"] = None
    if kind == "Trajectory":                # a log may lack q̇ (derived later)
        assert KINDS[kind][0](a).qd is None
    else:
        assert _raises(kind, a).startswith(KINDS[kind][2].format("qd") + ": missing")


def test_only_a_reference_needs_uniform_ticks():
    a = _arrays()
    a["t"] = np.cumsum(np.random.default_rng(1).uniform(0.005, 0.015, S))
    for kind in ("Trajectory", "Processed", "Samples"):
        KINDS[kind][0](a)
    assert "reference.t: expected increasing, uniformly spaced ticks" in _raises("Reference", a)


def test_processed_mask_is_one_entry_per_sample():
    a = _arrays()
    with pytest.raises(bp.DataError, match=r"^log: field kept: expected booleans of shape \(40,\)"):
        Processed(a["t"], a["q"], a["qd"], a["qdd"], a["tau"], kept=np.ones(S - 1, bool), source="log")
    with pytest.raises(bp.DataError, match=r"^log: field segment: expected integers"):
        Processed(a["t"], a["q"], a["qd"], a["qdd"], a["tau"], segment=np.zeros(S), source="log")


def test_replace_keeps_the_type_and_checks_again():
    a = _arrays()
    for kind, (make, error, _, _) in KINDS.items():
        motion = make(a)
        later = dataclasses.replace(motion, t=motion.t + 3.0)
        assert type(later) is type(motion) and later.t[0] == 3.0, kind
        with pytest.raises(error):
            dataclasses.replace(motion, q=np.full((S, N), np.nan))


def test_the_check_converts_lists_and_integers_once():
    traj = bp.Trajectory(t=list(range(S)), q=np.zeros((S, 2), dtype=np.int32))
    assert traj.t.dtype == traj.q.dtype == np.float64
    q = traj.q
    check_motion(traj)                      # idempotent: float64 arrays are kept, not copied
    assert traj.q is q


# -- round trips ---------------------------------------------------------------------------------------------------
def test_preprocess_returns_the_motion_with_a_mask():
    rng = np.random.default_rng(2)
    t = np.arange(500) * 0.01
    q = np.column_stack([np.sin(t), np.cos(0.7 * t), 0.1 * t])
    log = bp.Trajectory(t=t, q=q, tau=rng.normal(size=(500, 3)), qd=np.gradient(q, t, axis=0), source="log")
    as_logged = preprocess(log, Preprocessing.none())
    assert isinstance(as_logged, Processed) and isinstance(as_logged, bp.Trajectory)
    for name in ("t", "q", "qd", "tau"):
        np.testing.assert_array_equal(getattr(as_logged, name), getattr(log, name))
    assert as_logged.kept.all() and as_logged.source == "log"
    filtered = preprocess(log)
    assert isinstance(filtered, Processed) and filtered.kept.dtype == bool and not filtered.kept.all()
    again = preprocess(as_logged, Preprocessing.none())          # a preprocessed motion is a motion
    np.testing.assert_array_equal(again.qdd, as_logged.qdd)


@pytest.fixture(scope="module")
def arm():
    """A planar 3R arm with physical bodies and friction."""
    return planar_arm()


def _sines(duration, rate=200.0, phase=0.0):
    t = np.arange(int(round(duration * rate)) + 1) / rate
    w = np.array([0.9, 1.3, 1.7])
    arg = w * t[:, None] + phase + np.array([0.3, 1.0, 2.0])
    return bp.Reference(t, 0.6 * np.sin(arg), 0.6 * w * np.cos(arg), -0.6 * w ** 2 * np.sin(arg), "sines")


def test_simulate_returns_the_motion_and_a_reference_of_it_is_followed_as_simulated(arm):
    """Oracle: the feedforward of a reference that is itself a simulated motion is the torque that
    made it, so the tracking error is zero and the tracked run is the simulated one."""
    p = bp.standard_parameters(arm)
    t = np.arange(401) / 200.0
    tau = np.column_stack([np.sin(t), 0.5 * np.cos(2 * t), 0.2 * np.ones_like(t)])
    sim = bp.simulate(arm, p, t, np.zeros(3), np.array([0.5, -0.3, 0.2]), tau, method="rk4")
    assert type(sim) is bp.Trajectory and sim.qdd is not None and sim.tau.shape == (401, 3)
    reference = bp.Reference(sim.t, sim.q, sim.qd, sim.qdd, "simulated")
    run = bp.track(arm, p, reference, bandwidth=5.0)
    np.testing.assert_allclose(run.truth.q, sim.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(run.truth.tau, sim.tau, rtol=0, atol=1e-8)
    assert type(run.truth) is type(run.log) is bp.Trajectory


def test_samples_of_a_series_are_the_periodic_reference():
    series = FourierSeries(2.0, np.zeros(2), np.array([[0.3, -0.3], [0.2, -0.2]]), np.array([[0.1, -0.05]] * 2))
    samples = series.sample(100.0)
    reference = bp.Reference.periodic(series, 100.0)
    assert isinstance(samples, bp.Trajectory) and samples.tau is None
    for name in ("t", "q", "qd", "qdd"):
        np.testing.assert_allclose(getattr(reference, name), getattr(samples, name), rtol=0, atol=1e-12)


def test_simulation_needs_no_identification_for_its_motions():
    code = ("import sys, baseparam.simulation.tracking, baseparam.simulation.integrate; "
            "print(any(m.startswith('baseparam.identification') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


# -- one evaluation of fits ----------------------------------------------------------------------------------------
def _definitions(estimate, truth, W):
    """The figures by their definitions (module docstring of baseparam.evaluation), computed apart."""
    d = estimate - truth
    scale = np.array([max(abs(x), 1e-3 * np.sqrt(np.sum(truth ** 2))) for x in truth])
    tau, e = np.einsum("snr,r->sn", W, truth), np.einsum("snr,r->sn", W, d)
    return {"parameter_error": np.sqrt(np.sum(d ** 2) / np.sum(truth ** 2)),
            "relative_errors": np.abs(d) / scale,
            "torque_error": np.sqrt(np.sum(e ** 2) / np.sum(tau ** 2))}


def test_identification_errors_follow_the_definitions_fit_by_fit(arm):
    """identification_errors reports, for each figure, the median over its trials of the figure of
    each fit; the fits re-made from its seeded draws (white noise of the given σ per joint)."""
    base = bp.find_base_parameters(arm)
    truth = base.from_standard(bp.standard_parameters(arm))
    motion, held = _sines(3.0, 50.0), _sines(2.0, 50.0, phase=1.0)
    trials, sigma = 5, np.array([0.05, 0.1, 0.02])
    errors = bp.identification_errors(base, truth, motion.q, motion.qd, motion.qdd, sigma, trials=trials, seed=3,
                                      validation=(held.q, held.qd, held.qdd))
    W = base.regressor(motion.q, motion.qd, motion.qdd)
    draws = np.random.default_rng(3).standard_normal((W.shape[0], N, trials)) * sigma[:, None]
    A = W.reshape(-1, base.rank)
    V = base.regressor(held.q, held.qd, held.qdd)
    figures = []
    for k in range(trials):
        estimate = np.linalg.lstsq(A, A @ truth + draws[:, :, k].reshape(-1), rcond=None)[0]
        figures.append(_definitions(estimate, truth, V))
    assert errors.parameter_error == pytest.approx(np.median([f["parameter_error"] for f in figures]), rel=1e-12)
    assert errors.torque_error == pytest.approx(np.median([f["torque_error"] for f in figures]), rel=1e-10)
    assert errors.median_relative_error == pytest.approx(
        np.median([np.median(f["relative_errors"]) for f in figures]), rel=1e-12)


@pytest.mark.filterwarnings("ignore::baseparam.ExcitationWarning")      # a short motion: some parameters poorly seen
def test_both_evaluations_agree_on_the_same_fit(arm):
    """A simulated fit scored by simulated_identification (FitErrors) and by the evaluation that
    identification_errors uses: the same figures, which are those of the definitions."""
    p = bp.standard_parameters(arm)
    noise = bp.SensorNoise(q=1e-5, qd=2e-3, tau=0.2, seed=4)
    run = bp.track(arm, p, _sines(8.0), noise=noise)
    held = bp.track(arm, p, _sines(2.0, phase=1.0))
    fit = bp.simulated_identification(arm, p, run, held, methods=("ols",))["ols"]
    base = fit.identification.base
    W = base.regressor(held.truth.q, held.truth.qd, held.truth.qdd)
    expected = _definitions(fit.estimate, fit.truth, W)
    from baseparam.evaluation import fit_errors

    figures = fit_errors(fit.estimate, fit.truth, W)
    for name, value in expected.items():
        np.testing.assert_allclose(getattr(fit, name), value, rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(getattr(figures, name), value, rtol=1e-10, err_msg=name)
    assert fit.median_relative_error == figures.median_relative_error
    # the form identification_errors uses (one column per fit) gives this fit the same figures
    several = fit_errors(np.column_stack([fit.estimate, fit.truth]), fit.truth, W)
    np.testing.assert_allclose(several.parameter_error, [fit.parameter_error, 0.0], rtol=1e-12)
    np.testing.assert_allclose(several.torque_error[0], fit.torque_error, rtol=1e-12)
