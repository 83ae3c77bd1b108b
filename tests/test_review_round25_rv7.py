"""Review of round 25 (fzapi4, fzcli2, the lead's .xml and decimation commits), helper rv7: each find, its test."""
import numpy as np
import pytest


# --- 1. payload --wrench: the trajectory-column refusal ran before the sample count ---

def _wrench_log(path, wrench, seed=1):
    """An NPZ log of a six-joint arm (20 samples) with its sensor's wrench under the key 'wrench'."""
    rng = np.random.default_rng(seed)
    S = len(wrench)
    q, tau = rng.standard_normal((S, 6)), rng.standard_normal((S, 6))
    np.savez(path, t=np.arange(S) * 0.01, q=q, qd=rng.standard_normal((S, 6)), tau=tau, wrench=wrench)
    return q, tau


def test_a_wrench_damaged_in_every_row_says_the_samples_left_not_numpys_error(tmp_path):
    """`payload R log.npz --wrench wrench --skip-bad-rows` of a wrench NaN in every row said "internal error:
    ValueError: zero-size array to reduction operation maximum which has no identity", exit 1: fzcli2's check of
    the wrench against the log's own columns (np.ptp of each component) ran before the count of the rows left. The
    count is said again, in one line, exit 2 (as before that check)."""
    from baseparam.cli import main
    from click.testing import CliRunner
    from conftest import ROOT, one_line
    wrench = np.random.default_rng(0).standard_normal((20, 6))
    wrench[:, 5] = np.nan
    log = tmp_path / "log.npz"
    _wrench_log(log, wrench)
    result = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "ur5.yaml"), str(log), "--wrench", "wrench",
                                       "--skip-bad-rows"])
    one_line(result, "log.npz", "only 0 samples after skipping 20 bad rows")


def test_a_wrench_of_the_logs_torques_is_refused_after_its_damaged_rows_are_dropped(tmp_path):
    """The refusal still compares the rows kept: the log's torques as the wrench, two of its rows damaged and
    skipped, are the torques sample for sample; the library names the component, the field and the joint."""
    import baseparam as bp
    from baseparam.errors import SettingsError
    from baseparam.identification.payload_wrench import log_wrench
    log_path = tmp_path / "log.npz"
    _, tau = _wrench_log(log_path, np.zeros((20, 6)))
    wrench = tau.copy()
    wrench[[3, 11], 0] = np.nan
    data = dict(np.load(log_path))
    np.savez(log_path, **{**data, "wrench": wrench})
    log = bp.read_trajectory(str(log_path), skip_bad_rows=True)
    with pytest.raises(SettingsError, match=r"wrench: fx \(of 'wrench'\) is the log's torques of joint 1 \(field "
                                            r"tau\), sample for sample"):
        log_wrench(str(log_path), "wrench", log, skip_bad_rows=True)
    sensor = np.random.default_rng(2).standard_normal((20, 6))     # a sensor's own columns: no refusal
    sensor[[3, 11], 0] = np.nan
    np.savez(log_path, **{**data, "wrench": sensor})
    trimmed, values = log_wrench(str(log_path), "wrench", log, skip_bad_rows=True)
    assert trimmed.n_samples == values.shape[0] == 18
    assert len(trimmed.skipped) == 2


# --- 2. FourierSeries: a period too short, said of one harmonic ---

def test_a_period_too_short_for_one_harmonic_says_harmonic():
    """FourierSeries(5e-324, …) of one harmonic said "too short for 1 harmonics" (the counted noun, as every count
    of the library's messages)."""
    import baseparam as bp
    with pytest.raises(bp.ArgumentError, match=r"^period: 4\.94066e-324 s is too short for 1 harmonic: the angular "
                                               r"frequency 2π K / period is beyond the floating-point range$"):
        bp.FourierSeries(5e-324, [0.0], [[1.0]], [[0.0]])
    with pytest.raises(bp.ArgumentError, match=r"too short for 7 harmonics: "):
        bp.FourierSeries(5e-324, [0.0], [[1.0] * 7], [[0.0] * 7])
