"""Preprocessing of measured trajectories (baseparam.identification.preprocessing) against analytic signals.

Every check compares with something computed here independently: the analytic signal and its
derivatives (sums of sines), interpolation and finite-difference error bounds, the phase of a
sine recovered by projection and by cross-correlation, masks of rest phases built by hand.
"""
import numpy as np
import pytest
from scipy import signal

from baseparam.errors import DataError, DataWarning
from baseparam.identification.preprocessing import MIN_SEGMENT, Preprocessing, Processed, preprocess
from baseparam.identification.trajectory import Trajectory


class Sines:
    """f(t) = Σ A sin(ω t + φ) per column, with exact derivatives and bounds of their magnitudes."""

    def __init__(self, rng, n_cols, freqs_hz=(0.13, 0.31, 0.57, 0.9)):
        self.w = 2 * np.pi * np.asarray(freqs_hz)
        self.A = rng.uniform(0.3, 1.0, (n_cols, len(self.w)))
        self.phi = rng.uniform(0, 2 * np.pi, (n_cols, len(self.w)))

    def __call__(self, t, order=0):
        arg = self.w[None, None, :] * np.asarray(t)[:, None, None] + self.phi[None]
        # d^k/dt^k sin(x) = sin(x + k π/2)
        return (self.A[None] * self.w[None, None, :] ** order * np.sin(arg + order * np.pi / 2)).sum(axis=2)

    def bound(self, order):
        """max over t of |f^(order)| (per column, an upper bound)."""
        return (self.A * self.w[None, :] ** order).sum(axis=1)


def traj(t, q, tau, qd=None, qdd=None, source="synthetic.csv"):
    return Trajectory(t=np.asarray(t, float), q=np.asarray(q, float), tau=np.asarray(tau, float),
                      qd=None if qd is None else np.asarray(qd, float),
                      qdd=None if qdd is None else np.asarray(qdd, float), source=source)


NO_FILTER = dict(cutoff_hz=None, rest_velocity=None)


# -- resampling ------------------------------------------------------------------------------------------------
def irregular_times(rng, n=900, t0=0.37):
    steps = rng.uniform(0.006, 0.014, n - 1)          # at most 1.4 × the median: no gap
    return t0 + np.concatenate([[0.0], np.cumsum(steps)]), steps.max()


def test_resample_to_the_median_step():
    rng = np.random.default_rng(0)
    t, max_step = irregular_times(rng)
    f, g = Sines(rng, 2), Sines(rng, 2)
    P = preprocess(traj(t, f(t), g(t)), Preprocessing(resample=True, **NO_FILTER))
    h = np.median(np.diff(t))
    assert isinstance(P, Processed)
    assert P.t[0] == t[0] and P.t[-1] <= t[-1] + 1e-12 and t[-1] - P.t[-1] < h
    assert len(P.t) == int(np.floor((t[-1] - t[0]) / h)) + 1
    np.testing.assert_allclose(np.diff(P.t), h, rtol=0, atol=1e-12)
    assert P.record["sampling_interval"] == pytest.approx(h, rel=1e-12)
    # linear interpolation error ≤ Δ²/8 max|f''| (Δ: the longest original step)
    for got, fn in ((P.q, f), (P.tau, g)):
        bound = max_step ** 2 / 8 * fn.bound(2)
        err = np.abs(got - fn(P.t)).max(axis=0)
        assert np.all(err <= bound), (err, bound)
        # and the grid values are not simply the original samples (which sit at other times)
        assert np.abs(got - fn(t[:len(P.t)])).max() > 10 * bound.max()
    assert P.record["samples_in"] == len(t) and P.record["samples_out"] == len(P.t)
    assert P.kept.all() and (P.segment == P.segment[0]).all()


def test_resample_at_a_given_step():
    rng = np.random.default_rng(1)
    t, max_step = irregular_times(rng)
    f = Sines(rng, 3)
    P = preprocess(traj(t, f(t), f(t, 1)), Preprocessing(resample=0.02, **NO_FILTER))
    np.testing.assert_allclose(np.diff(P.t), 0.02, rtol=0, atol=1e-12)
    assert len(P.t) == int(np.floor((t[-1] - t[0]) / 0.02 + 1e-9)) + 1
    assert P.record["sampling_interval"] == 0.02
    assert np.all(np.abs(P.q - f(P.t)).max(axis=0) <= max_step ** 2 / 8 * f.bound(2))


def test_none_keeps_the_samples():
    rng = np.random.default_rng(2)
    t, _ = irregular_times(rng, n=300)
    f, g = Sines(rng, 2), Sines(rng, 2)
    q, tau = f(t), g(t)
    P = preprocess(traj(t, q, tau), Preprocessing.none())
    assert np.array_equal(P.t, t) and np.array_equal(P.q, q) and np.array_equal(P.tau, tau)
    assert P.kept.all() and P.record["filtered"] is False and P.record["rest_samples"] == 0
    assert P.record["samples_in"] == P.record["samples_out"] == len(t)


# -- zero-phase low-pass ---------------------------------------------------------------------------------------
FS = 200.0


def slow(t):
    return np.column_stack([np.sin(2 * np.pi * 0.5 * t), 0.7 * np.cos(2 * np.pi * 0.3 * t + 0.4)])


def noisy_sines(seed=3, seconds=20.0):
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * FS)) / FS
    clean = slow(t)
    noise = (0.2 * np.sin(2 * np.pi * 40 * t)[:, None] + 0.1 * np.sin(2 * np.pi * 63 * t + 1.0)[:, None]
             + rng.normal(0, 0.03, clean.shape))
    return t, clean, noise


def delay_samples(y, t, ref, max_lag=40.0, step=0.05):
    """The delay s (in samples, to ``step``) of y behind the analytic signal ref: the least-squares match
    Σ_k (y(t_k) − ref(t_k − s/FS))² over the inner samples (every shift sees the same window)."""
    inner = slice(int(FS), -int(FS))
    shifts = np.arange(-max_lag, max_lag + step / 2, step)
    cost = [np.sum((y[inner] - ref(t[inner] - s / FS)) ** 2) for s in shifts]
    return shifts[int(np.argmin(cost))]


def phase(y, t, f_hz):
    """Phase of the f_hz component of y relative to sin(2π f t), by projection over whole periods."""
    a, b = 2 * np.mean(y * np.sin(2 * np.pi * f_hz * t)), 2 * np.mean(y * np.cos(2 * np.pi * f_hz * t))
    return np.arctan2(b, a), np.hypot(a, b)


def test_lowpass_removes_noise_without_phase_lag():
    t, clean, noise = noisy_sines()
    tau_clean = 3.0 * clean[:, ::-1]
    tau_fn = lambda x: 3.0 * slow(x)[:, ::-1]      # noqa: E731
    P = preprocess(traj(t, clean + noise, tau_clean + 2 * noise),
                   Preprocessing(resample=False, cutoff_hz=5.0, rest_velocity=None))
    assert P.record["filtered"] is True
    inner = slice(int(FS), -int(FS))          # one second from either end (filter start-up)
    for got, ref, fn, raw in ((P.q, clean, slow, noise), (P.tau, tau_clean, tau_fn, 2 * noise)):
        err = got[inner] - ref[inner]
        raw_rms = np.sqrt((raw[inner] ** 2).mean())
        assert np.sqrt((err ** 2).mean()) < raw_rms / 15
        assert np.abs(err).max() < 0.02 * np.abs(ref).max()
        for j in range(2):
            assert abs(delay_samples(got[:, j], t, lambda x: fn(x)[:, j])) <= 0.1
    # phase of the 0.5 Hz sine (20 s = 10 whole periods): unchanged, as is its amplitude
    ph, amp = phase(P.q[:, 0], t, 0.5)
    assert abs(ph) < 2e-3 and amp == pytest.approx(1.0, abs=2e-3)
    # the check is able to see a lag: a causal filter of the same order delays by many samples
    sos = signal.butter(4, 5.0, fs=FS, output="sos")
    causal = signal.sosfilt(sos, clean[:, 0] + noise[:, 0])
    assert delay_samples(causal, t, lambda x: slow(x)[:, 0]) >= 5 and abs(phase(causal, t, 0.5)[0]) > 0.1


def test_derived_velocity_of_filtered_position():
    t, clean, noise = noisy_sines(seed=4)
    P = preprocess(traj(t, clean + 0.2 * noise, clean), Preprocessing(resample=False, cutoff_hz=5.0,
                                                                      rest_velocity=None))
    w = 2 * np.pi * 0.5
    inner = slice(int(FS), -int(FS))
    err = np.abs(P.qd[inner, 0] - w * np.cos(w * t[inner])).max()
    raw = np.abs(np.gradient(clean[:, 0] + 0.2 * noise[:, 0], 1 / FS)[inner] - w * np.cos(w * t[inner])).max()
    assert err < 0.15 and err < raw / 20


@pytest.mark.parametrize("factor", [0.5, 1.0, 1.5])     # at and above Nyquist (FS / 2)
def test_cutoff_at_or_above_nyquist_is_skipped(factor):
    t, clean, noise = noisy_sines(seconds=2.0)
    q = clean + noise
    cutoff = factor * FS if factor > 0.5 else FS / 2 * 1.0001
    with pytest.warns(DataWarning, match="Nyquist"):
        P = preprocess(traj(t, q, q), Preprocessing(resample=False, cutoff_hz=cutoff, rest_velocity=None))
    assert P.record["filtered"] is False
    assert np.array_equal(P.q, q) and np.array_equal(P.tau, q)


def test_lowpass_keeps_slow_signals_up_to_the_segment_ends():
    t = np.arange(3000) * 0.01
    f = Sines(np.random.default_rng(5), 3, freqs_hz=(0.1, 0.2, 0.3, 0.4))
    P = preprocess(traj(t, f(t), f(t)), Preprocessing(resample=False, cutoff_hz=5.0, rest_velocity=None))
    # |H(0.4 Hz)|² of the 4th-order 5 Hz Butterworth differs from 1 by ~1e-9: nothing should change
    # in the interior; within 1.5/cutoff s of the ends the odd-extension padding leaves ~1e-3
    end = int(1.5 / (5.0 * 0.01))
    inner = slice(end, -end)
    assert np.abs(P.q[inner] - f(t)[inner]).max() < 1e-4 * f.bound(0).max()
    assert np.abs(P.tau[inner] - f(t)[inner]).max() < 1e-4 * f.bound(0).max()
    assert np.abs(P.qdd[inner] - f(t, 2)[inner]).max() < 1e-2 * f.bound(2).max()
    assert np.abs(P.q - f(t)).max() < 3e-3 * f.bound(0).max()


# -- differentiation -------------------------------------------------------------------------------------------
def test_differentiation_of_q_alone():
    h = 0.005
    t = np.arange(2000) * h
    f = Sines(np.random.default_rng(6), 3)
    P = preprocess(traj(t, f(t), f(t)), Preprocessing(resample=False, **NO_FILTER))
    assert P.record["derived"] == ["qd", "qdd"]
    inner = slice(2, -2)
    # central differences: |error| ≤ h²/6 max|f'''|; np.gradient twice = step 2h: ≤ (2h)²/6 max|f''''|
    err_qd = np.abs(P.qd[inner] - f(t[inner], 1)).max(axis=0)
    err_qdd = np.abs(P.qdd[inner] - f(t[inner], 2)).max(axis=0)
    assert np.all(err_qd <= h ** 2 / 6 * f.bound(3) * 1.01)
    assert np.all(err_qdd <= (2 * h) ** 2 / 6 * f.bound(4) * 1.01)
    assert err_qd.max() < 1e-3 * f.bound(1).min() and err_qdd.max() < 1e-3 * f.bound(2).min()


def test_given_velocity_is_used_not_rederived():
    h = 0.005
    t = np.arange(2000) * h
    f = Sines(np.random.default_rng(7), 2)
    qd_given = f(t, 1) + 0.3 * np.cos(7 * t)[:, None]         # deliberately not dq/dt
    qdd_given_ref = f(t, 2) - 2.1 * np.sin(7 * t)[:, None]   # d/dt of qd_given
    P = preprocess(traj(t, f(t), f(t), qd=qd_given), Preprocessing(resample=False, **NO_FILTER))
    assert P.record["derived"] == ["qdd"]
    assert np.array_equal(P.qd, qd_given)
    bound = h ** 2 / 6 * (f.bound(4) + 0.3 * 7 ** 3)          # central differences of qd_given
    assert np.all(np.abs(P.qdd[2:-2] - qdd_given_ref[2:-2]).max(axis=0) <= bound)
    # with the low-pass on, the given qd is filtered (barely changed), still not re-derived from q
    P = preprocess(traj(t, f(t), f(t), qd=qd_given), Preprocessing(resample=False, cutoff_hz=5.0, rest_velocity=None))
    inner = slice(200, -200)
    assert np.abs(P.qd[inner] - qd_given[inner]).max() < 1e-3
    assert np.abs(P.qd[inner] - f(t[inner], 1)).max() > 0.25
    # both given: both kept as they are
    qdd_given = np.full_like(qd_given, 0.123)
    P = preprocess(traj(t, f(t), f(t), qd=qd_given, qdd=qdd_given), Preprocessing(resample=False, **NO_FILTER))
    assert P.record["derived"] == [] and np.array_equal(P.qdd, qdd_given)


# -- rest trimming ---------------------------------------------------------------------------------------------
def phased_motion():
    """1200 samples at 100 Hz in six 2-s phases; per phase which joints move."""
    h, per = 0.01, 200
    moving = [(0, 0), (1, 1), (0, 1), (0, 0), (1, 1), (1, 0)]     # (joint 1, joint 2)
    t = np.arange(per * len(moving)) * h
    phase_of = np.arange(len(t)) // per
    speed = 0.4 + 0.3 * np.sin(3 * t)                              # ≥ 0.1 rad/s when moving
    mask = np.array([moving[k] for k in phase_of], float)
    qd = mask * np.column_stack([speed, -speed])
    q = np.cumsum(qd, axis=0) * h
    still = ~mask.any(axis=1)
    return t, q, qd, still


def test_rest_samples_are_marked_exactly():
    t, q, qd, still = phased_motion()
    tau = np.column_stack([np.sin(t), np.cos(t)])
    P = preprocess(traj(t, q, tau, qd=qd), Preprocessing(resample=False, cutoff_hz=None, rest_velocity=0.05))
    assert len(P.t) == len(t)                     # rest samples stay in the arrays ...
    assert np.array_equal(P.kept, ~still)         # ... marked, exactly the phases where no joint moves
    assert still.sum() == 400
    assert P.record["samples_in"] == len(t)
    assert P.record["samples_out"] == int((~still).sum()) == 800
    assert P.record["rest_samples"] == 400
    P = preprocess(traj(t, q, tau, qd=qd), Preprocessing(resample=False, cutoff_hz=None, rest_velocity=None))
    assert P.kept.all() and P.record["rest_samples"] == 0


def test_rest_with_derived_and_filtered_velocities():
    h, T = 0.01, 2.0
    t = np.arange(1000) * h                        # rest 0-2 s, move 2-4 s, rest 4-6, move 6-8, rest 8-10
    q = np.zeros((len(t), 2))
    qd_true = np.zeros_like(q)
    for t0 in (2.0, 6.0):
        s = (t >= t0) & (t < t0 + T)
        u = t[s] - t0
        # qd = 1 − cos: smooth start and stop; each move advances q by T
        q[s, 0] += u - T / (2 * np.pi) * np.sin(2 * np.pi * u / T)
        qd_true[s, 0] = 1 - np.cos(2 * np.pi * u / T)
        q[t >= t0 + T, 0] += T
    q[:, 1] = 0.2
    P = preprocess(traj(t, q, np.zeros_like(q)), Preprocessing())
    speed = np.abs(qd_true).max(axis=1)
    assert P.kept[speed > 0.15].all()
    assert not P.kept[(speed < 0.01) & (t > 0.5) & (t < 9.5)].any()
    assert P.record["rest_samples"] == int((~P.kept).sum()) > 500


def test_everything_at_rest_is_an_error():
    t = np.arange(500) * 0.01
    q = np.full((500, 3), 0.3) + 1e-4 * np.sin(t)[:, None]
    with pytest.raises(DataError, match="rest") as info:
        preprocess(traj(t, q, q, source="still.csv"), Preprocessing(rest_velocity=0.05))
    assert "still.csv" in str(info.value)


# -- gaps ------------------------------------------------------------------------------------------------------
def gapped():
    """A 500-sample piece, a 10-sample piece and a 400-sample piece, separated by 1-s gaps (steps 0.01 s)."""
    a = np.arange(500) * 0.01
    tiny = a[-1] + 1.0 + np.arange(10) * 0.01
    b = tiny[-1] + 1.0 + np.arange(400) * 0.01
    t = np.concatenate([a, tiny, b])
    level = np.concatenate([np.zeros(500), np.full(10, 5.0), np.ones(400)])
    return t, level, (a, tiny, b)


def test_gap_splits_segments_and_nothing_leaks_across():
    t, level, (a, tiny, b) = gapped()
    q = np.column_stack([level, -2 * level])
    P = preprocess(traj(t, q, 3 * q), Preprocessing(resample=True, cutoff_hz=5.0, rest_velocity=None))
    assert P.record["segments"] == 2
    assert P.record["short_segment_samples"] == 10 < MIN_SEGMENT
    # q̇ and q̈ are derived: 3 periods of the 5 Hz cut-off (60 samples) at each segment end are left out
    assert P.record["samples_in"] == 910 and P.record["samples_resampled"] == 900
    assert P.record["end_samples"] == 4 * 60 and P.record["samples_out"] == P.kept.sum() == 900 - 4 * 60
    assert not P.kept[:60].any() and P.kept[60:440].all() and not P.kept[440:560].any()
    slices = P.segments()
    assert len(slices) == 2 and len(np.unique(P.segment)) == 2
    first, second = slices
    assert (first.start, first.stop, second.stop) == (0, 500, 900)
    assert len(set(P.segment[first])) == 1 and len(set(P.segment[second])) == 1
    np.testing.assert_allclose(P.t[first], a, atol=1e-9)
    np.testing.assert_allclose(P.t[second], b, atol=1e-9)
    # no sample inside the gaps, none from the dropped piece
    assert not ((P.t > a[-1] + 1e-9) & (P.t < b[0] - 1e-9)).any()
    # the step between the segments is not smeared by the filter or the derivatives
    np.testing.assert_allclose(P.q[first], 0.0, atol=1e-9)
    np.testing.assert_allclose(P.q[second], [[1.0, -2.0]] * 400, atol=1e-9)
    np.testing.assert_allclose(P.tau[second], [[3.0, -6.0]] * 400, atol=1e-9)
    np.testing.assert_allclose(P.qd, 0.0, atol=1e-6)
    np.testing.assert_allclose(P.qdd, 0.0, atol=1e-4)


def test_without_the_split_the_filter_would_smear():
    """Sensitivity of the previous test: with the gap tolerated the same step is smeared."""
    t, level, _ = gapped()
    q = np.column_stack([level, -2 * level])
    P = preprocess(traj(t, q, q), Preprocessing(resample=True, cutoff_hz=5.0, rest_velocity=None, max_gap=1e6))
    assert P.record["segments"] == 1
    assert np.abs(P.q[:500, 0]).max() > 1e-2


def test_only_tiny_segments_is_an_error():
    t = np.concatenate([np.arange(10) * 0.01, 5 + np.arange(10) * 0.01, 10 + np.arange(10) * 0.01])
    q = np.column_stack([np.sin(t), np.cos(t)])
    with pytest.raises(DataError, match="segment") as info:
        preprocess(traj(t, q, q, source="bits.csv"), Preprocessing())
    assert "bits.csv" in str(info.value)


# -- settings --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,field", [
    ({"cutoff_hz": -1.0}, "cutoff_hz"),
    ({"cutoff_hz": 0}, "cutoff_hz"),
    ({"cutoff_hz": True}, "cutoff_hz"),
    ({"cutoff_hz": float("nan")}, "cutoff_hz"),
    ({"cutoff_hz": "5"}, "cutoff_hz"),
    ({"decimate": 0}, "decimate"),
    ({"decimate": True}, "decimate"),
    ({"decimate": 2.0}, "decimate"),
    ({"filter_order": 0}, "filter_order"),
    ({"filter_order": False}, "filter_order"),
    ({"rest_velocity": -0.1}, "rest_velocity"),
    ({"rest_velocity": True}, "rest_velocity"),
    ({"max_gap": 0.0}, "max_gap"),
    ({"max_gap": float("inf")}, "max_gap"),
    ({"resample": -0.01}, "resample"),
    ({"resample": "auto"}, "resample"),
])
def test_invalid_settings_name_the_field(kwargs, field):
    with pytest.raises(DataError, match=field):
        Preprocessing(**kwargs)


def test_valid_settings():
    for kwargs in ({"resample": False}, {"resample": 0.01}, {"cutoff_hz": None}, {"rest_velocity": None},
                   {"decimate": np.int64(3)}, {"cutoff_hz": 12}, {"cutoff_hz": np.float64(2.5)}):
        Preprocessing(**kwargs)


@pytest.mark.parametrize("value", [np.int64(5), np.float32(5.0)])
def test_numpy_numbers_are_numbers(value):
    assert Preprocessing(cutoff_hz=value).cutoff_hz == 5


def test_bad_arguments_to_preprocess():
    t = np.arange(100) * 0.01
    q = np.zeros((100, 2))
    with pytest.raises(DataError, match="Trajectory"):
        preprocess((t, q, q), Preprocessing())
    with pytest.raises(DataError, match="settings"):
        preprocess(traj(t, q, q), {"cutoff_hz": 5})


# -- plausibility checks ---------------------------------------------------------------------------------------
def test_time_in_milliseconds_is_refused():
    t = np.arange(500) * 10.0                     # 10 ms steps written as 10
    q = np.sin(np.column_stack([t, 2 * t]) / 1000)
    with pytest.raises(DataError, match=r"synthetic\.csv: field t: median time step 10 s is implausible"):
        preprocess(traj(t, q, q), Preprocessing())


def test_velocities_in_degrees_are_warned_about():
    t = np.arange(2000) * 0.005
    q = np.column_stack([np.sin(t), np.cos(0.7 * t)])
    qd = np.column_stack([np.cos(t), -0.7 * np.sin(0.7 * t)])
    preprocess(traj(t, q, q, qd=qd), Preprocessing())                           # consistent: no warning
    with pytest.warns(DataWarning, match=r"qd2 ≈ 57\.3·d\(q2\)/dt"):
        preprocess(traj(t, q, q, qd=qd * [1, 180 / np.pi]), Preprocessing())


def test_absurd_resampling_step_is_refused():
    t = np.arange(500) * 0.01
    q = np.sin(np.column_stack([t, 2 * t]))
    with pytest.raises(DataError, match="resample: a step of 1e-08 s"):
        preprocess(traj(t, q, q), Preprocessing(resample=1e-8))


def test_filtering_irregular_samples_without_resampling_is_refused():
    t, _ = irregular_times(np.random.default_rng(3))
    q = np.sin(np.column_stack([t, 2 * t]))
    with pytest.raises(DataError, match="uniform samples"):
        preprocess(traj(t, q, q), Preprocessing(resample=False))
    preprocess(traj(t, q, q), Preprocessing(resample=False, cutoff_hz=None))     # no filter: fine


def test_derived_rates_leave_the_filter_transients_out():
    """q alone: q̇, q̈ derived from the filtered q; their ends (3 periods of the cut-off) are not kept,
    and what is kept matches the analytic derivatives."""
    h = 0.01
    t = np.arange(3000) * h
    f = Sines(np.random.default_rng(8), 2, freqs_hz=(0.1, 0.2, 0.3))
    P = preprocess(traj(t, f(t), f(t)), Preprocessing(rest_velocity=None))
    end = int(np.ceil(3.0 / (5.0 * h)))
    assert P.record["end_samples"] == 2 * end and P.kept[end:-end].all() and not P.kept[:end].any()
    k = P.kept
    assert np.abs(P.qdd[k] - f(t, 2)[k]).max() < 2e-3 * f.bound(2).max()
    assert np.abs(P.qdd[~k] - f(t, 2)[~k]).max() > 10 * np.abs(P.qdd[k] - f(t, 2)[k]).max()   # why they go
