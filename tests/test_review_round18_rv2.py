"""Round 18, review of the lead's round-18 commits (rv2): each test fails on the code before its fix."""
from pathlib import Path

import numpy as np
import pytest

import baseparam as bp


def _log(t):
    q = np.sin(np.c_[t, 2 * t])
    return bp.Trajectory(t=t, q=q, tau=q)


def test_a_long_uniform_log_is_followed_as_before(monkeypatch):
    """8bd3309 refused any log whose uniform grid had more than MAX_TICKS (10⁷) rows, said as 'a long pause': a log
    of 3 h at 1 kHz, uniform, of which ``duration=`` picks the part to follow, was refused. The bound is lowered here
    so that 3000 samples stand for 3·10⁷: the reference is the one the default bound gives."""
    import baseparam.simulation.tracking as tracking

    log = _log(np.arange(3000) * 1e-3)
    expected = bp.Reference.from_log(log, 100, duration=0.5)
    monkeypatch.setattr(tracking, "MAX_TICKS", 1000)
    got = bp.Reference.from_log(log, 100, duration=0.5)
    assert np.array_equal(got.q, expected.q) and np.array_equal(got.qdd, expected.qdd)


def test_a_pause_in_a_log_is_still_refused_beyond_the_bound(monkeypatch):
    """What 8bd3309 meant to refuse: a grid far larger than the log (0.2 s at 1 kHz, then a sample 10 s later)."""
    import baseparam.simulation.tracking as tracking

    monkeypatch.setattr(tracking, "MAX_TICKS", 1000)
    said = r"10000 samples on a uniform grid, 49.8 times the log's 201 and more than 1000 \(a long pause"
    with pytest.raises(bp.ArgumentError, match=said):
        bp.Reference.from_log(_log(np.r_[np.arange(200) * 1e-3, 10.0]), 100)


@pytest.mark.parametrize("given", [[Path("run.csv")], (name for name in ["run.csv"])])
def test_metrics_compare_takes_file_paths_and_any_iterable_of_names(given):
    """8bd3309 checked ``sources`` by check_names, which refused what ``list(sources)`` had taken: a pathlib path (as
    a Trajectory's source takes it) and a generator; a single name is still refused."""
    tau = np.ones((4, 2))
    assert bp.Metrics.compare(tau, tau, sources=given).sources == ["run.csv"]
    with pytest.raises(bp.ArgumentTypeError, match="sources: expected a list of names"):
        bp.Metrics.compare(tau, tau, sources=Path("run.csv"))


@pytest.mark.parametrize("args, said", [
    (["excite", "PUMA", "--out", "t.npz"], "--out: t.npz: writes CSV, and a '.npz' name says NPZ"),
    (["excite", "PUMA", "--out", "t.Parquet"], "--out: t.Parquet: writes CSV, and a '.Parquet' name says Parquet"),
    (["excite", "PUMA", "--out", "t.mcap"], "--out: t.mcap: writes CSV, and a '.mcap' name says MCAP"),
    (["find", "PUMA", "--json", "o.bag"], "--json: o.bag: writes JSON, and a '.bag' name says ROS bag"),
])
def test_an_output_named_as_a_log_format_is_refused(tmp_path, monkeypatch, args, said):
    """a5880ce refused ``excite --out t.json`` (CSV that a reader would take for JSON) but wrote CSV under t.npz,
    t.parquet or t.mcap, which read_trajectory takes by the name for NPZ, Parquet or a bag, and refuses."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT, one_line

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [str(ROOT / "robots" / "puma560.yaml") if a == "PUMA" else a for a in args])
    one_line(result, said)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("moving", [np.array(5), np.array([[5, 6]])])
def test_static_poses_refuse_an_array_of_another_shape_in_one_line(moving):
    """8bd3309 took any ndarray as the moving joints: a 0-d one was numpy's bare 'iteration over a 0-d array'
    (TypeError), a 2-D one said as 'got [array([5, 6])]'; a 1-D array of joint numbers is taken."""
    from baseparam.excitation.static_poses import StaticPoses
    with pytest.raises(bp.ArgumentError, match="StaticPoses.moving: expected a tuple of 1-based joints, got ndarray"):
        StaticPoses(np.zeros((4, 6)), 3.0, moving)
    assert StaticPoses(np.zeros((4, 6)), 3.0, np.array([5, 6], dtype=np.uint8)).moving == (5, 6)
