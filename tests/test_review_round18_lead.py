"""Round 18, the lead's own finds: each test fails on the code before its fix."""
import numpy as np
import pytest

import baseparam as bp


def _metrics(**given):
    fields = dict(rmse=[1.0, 2.0], nrmse_percent=[1.0, 2.0], nrmse_pooled_percent=1.0, n_samples=3, t=np.zeros(3),
                  tau=np.zeros((3, 2)), predicted=np.zeros((3, 2)))
    return bp.Metrics(**{**fields, **given})


@pytest.mark.parametrize("field", ["rmse", "nrmse_percent"])
@pytest.mark.parametrize("value, said", [([[1, 2], [3]], "not a rectangular array"), (["a", "b"], "not numeric")])
def test_metrics_built_by_hand_refuse_what_holds_no_numbers(field, value, said):
    """A Metrics built by hand with a ragged list was numpy's bare ValueError ('inhomogeneous shape'), with text its
    to_dict() a bare TypeError: the figures are kept as float arrays, as every other result's (float_fields)."""
    with pytest.raises(bp.ArgumentError, match=f"Metrics.{field}: {said}"):
        _metrics(**{field: value})


def test_metrics_built_from_lists_are_arrays():
    """Lists of numbers are kept as float arrays, so the methods that index them work (to_dict's .tolist())."""
    got = _metrics(rmse=[1, 2], nrmse_percent=(3, 4))
    assert got.rmse.dtype == np.float64 and got.nrmse_percent.tolist() == [3.0, 4.0]


@pytest.mark.parametrize("args, said", [
    (["find", "PUMA", "--json", "o.yaml"], "--json: o.yaml: writes JSON, and a '.yaml' name says YAML"),
    (["find", "PUMA", "--h5", "o.json"], "--h5: o.json: writes HDF5, and a '.json' name says JSON"),
    (["find", "PUMA", "--json", "o.H5"], "--json: o.H5: writes JSON, and a '.H5' name says HDF5"),
    (["equations", "PUMA", "--json", "o.csv"], "--json: o.csv: writes JSON, and a '.csv' name says CSV"),
    (["excite", "PUMA", "--out", "t.json"], "--out: t.json: writes CSV, and a '.json' name says JSON"),
])
def test_an_output_named_as_another_format_is_refused(tmp_path, monkeypatch, args, said):
    """`--json o.yaml` wrote JSON that load_robot then read as YAML, `excite --out t.json` CSV under a JSON name (a
    reader takes a file by its extension): refused before any work, as --yaml/--urdf/--mjcf names were."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT, one_line

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [str(ROOT / "robots" / "puma560.yaml") if a == "PUMA" else a for a in args])
    one_line(result, said)
    assert list(tmp_path.iterdir()) == []


def test_an_output_of_no_known_extension_or_of_its_own_in_any_case_is_written(tmp_path, monkeypatch):
    """The rule refuses only an extension that says another format: any other name is the user's choice. (Round 26:
    not o.txt, which the log readers read as CSV: JSON there is refused.)"""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT

    monkeypatch.chdir(tmp_path)
    for name in ("o.out", "O.JSON", "noext"):
        result = CliRunner().invoke(main, ["find", str(ROOT / "robots" / "planar_rrr.yaml"), "--json", name])
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["O.JSON", "noext", "o.out"]


def _ur10e_model():
    from conftest import ROOT
    return bp.Model(bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml"))


def test_substeps_with_a_method_that_chooses_its_steps_is_refused():
    """``simulate(method='DOP853', substeps=10)`` ignored the count without a word (RK4's only); rk4 takes it."""
    model, t = _ur10e_model(), np.linspace(0.0, 0.1, 11)
    n = model.robot.n_dof
    with pytest.raises(bp.ArgumentError, match="substeps: 10 RK4 steps per interval, and method='DOP853'"):
        bp.simulate(model, t, np.zeros(n), np.zeros(n), substeps=10)
    finer = bp.simulate(model, t, np.zeros(n), np.zeros(n), method="rk4", substeps=10)
    assert np.isfinite(finer.q).all()


def test_noise_per_joint_of_more_joints_than_a_robot_has_is_refused():
    """``SensorNoise.per_joint('tau', 10**12)`` was numpy's MemoryError after asking for 7 TiB."""
    noise = bp.SensorNoise(tau=0.1)
    with pytest.raises(bp.ArgumentError, match="n: expected a whole number from 0 to 64"):
        noise.per_joint("tau", 10 ** 12)
    assert noise.per_joint("tau", 3).tolist() == [0.1] * 3


def test_a_reference_of_a_log_with_a_long_pause_is_refused_before_its_grid_is_made():
    """A second of log at 1 kHz and one sample ten hours later: ``Reference.from_log`` made a uniform grid of
    3.6·10⁷ rows and filtered copies of it (gigabytes) before any check."""
    t = np.r_[np.arange(1000) * 1e-3, 36000.0]
    q = np.zeros((1001, 3))
    log = bp.Trajectory(t=t, q=q, tau=q)
    with pytest.raises(bp.ArgumentError, match="3.6e[+]07 samples on a uniform grid.*a long pause"):
        bp.Reference.from_log(log, 1000)
    reference = bp.Reference.from_log(bp.Trajectory(t=t[:-1], q=q[:-1], tau=q[:-1]), 1000)
    assert 0.99 < reference.duration < 1.0


@pytest.mark.parametrize("kind", ["ndarray", "Index"])
def test_joint_names_as_an_array_are_names(kind, space, tmp_path):
    """``write_floating_log(…, joint_names=np.array([...]))`` (or pandas' ``df.columns``) was refused as 'expected a
    list of names': the names of a 1-D array of text are taken as a list's."""
    import pandas as pd

    from baseparam.identification.floating_logs import read_floating_log, write_floating_log
    from conftest import ROOT

    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    from baseparam.model.robot import joint_names
    names = list(joint_names(robot.joints))
    given = np.array(names) if kind == "ndarray" else pd.Index(names)
    write_floating_log(tmp_path / "log.npz", space.log, joint_names=given)
    assert list(read_floating_log(tmp_path / "log.npz", robot)[0].joint_names) == names


def test_metrics_compare_takes_sources_as_names_not_letters():
    """``Metrics.compare(…, sources='run.csv')`` kept the letters of the name as seven sources."""
    tau = np.ones((4, 2))
    assert bp.Metrics.compare(tau, tau, sources=["run.csv"]).sources == ["run.csv"]
    with pytest.raises(bp.ArgumentTypeError, match="sources: expected a list of names"):
        bp.Metrics.compare(tau, tau, sources="run.csv")


@pytest.mark.parametrize("moving", [range(5, 7), np.array([5, 6]), [5, 6]])
def test_static_poses_take_the_moving_joints_in_any_sequence(moving):
    """A range or an array of joint numbers was refused ('expected a tuple of 1-based joints')."""
    from baseparam.excitation.static_poses import StaticPoses
    assert StaticPoses(np.zeros((4, 6)), 3.0, moving).moving == (5, 6)


@pytest.mark.parametrize("moving", [(0,), (7,), (5, 5)])
def test_static_poses_refuse_joints_the_poses_do_not_have(moving):
    """Joint 0, 7 of six or a joint twice were kept, and the summary named them as the wrist's joints."""
    from baseparam.excitation.static_poses import StaticPoses
    with pytest.raises(bp.ArgumentError, match="distinct 1-based joint numbers from 1 to 6"):
        StaticPoses(np.zeros((4, 6)), 3.0, moving)
