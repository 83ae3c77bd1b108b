"""Regressions of the command-line fuzzing of issue 28's fifteenth round (every path option given every kind of
file, folder, link and device; every output option every kind of name; options combined; payload and identify
over every log format). Each run was a forked process with its own folder, HOME and TMPDIR; the fuzzer itself
was a throwaway, these are the deterministic cases it found, each failing before its fix."""
import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT, one_line

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")
UR10E = str(ROOT / "robots" / "ur10e_cad.yaml")


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _log(tmp_path, n_dof, name="log.csv"):
    """A short log of an n-joint arm: t, q, tau (the values do not matter: each case is refused before the fit)."""
    t = np.arange(40) * 0.01
    rows = np.column_stack([t] + [np.sin((k + 1) * t) for k in range(n_dof)] + [0.1 * k * t for k in range(n_dof)])
    header = ",".join(["t"] + [f"q{k + 1}" for k in range(n_dof)] + [f"tau{k + 1}" for k in range(n_dof)])
    path = tmp_path / name
    path.write_text("\n".join([header] + [",".join(repr(float(x)) for x in r) for r in rows]) + "\n")
    return path


def _no_fit(*args, **kwargs):
    raise AssertionError("the fit ran before the output was refused")


# A new URDF holds no gravity but its readers' (0, 0, -9.81): `identify --urdf` of the planar arm (gravity along
# -y) and `payload --robot-out X.urdf` of a YAML robot with g = 9.80665 were refused only when the output was
# written, after the whole fit (1.2 s of CPU for the planar arm's consistent fit, the payload's fit likewise).
@pytest.mark.parametrize("command", ["identify", "payload"])
def test_a_urdf_output_the_robot_cannot_be_written_as_is_refused_before_the_fit(tmp_path, monkeypatch, command):
    import baseparam.identification.estimators as estimators
    import baseparam.identification.payload as payload
    monkeypatch.setattr(estimators, "identify", _no_fit)
    monkeypatch.setattr(payload, "identify_payload", _no_fit)
    if command == "identify":
        args = ["identify", PLANAR, _log(tmp_path, 3), "--method", "consistent", "--urdf", tmp_path / "fit.urdf"]
    else:
        robot = tmp_path / "ur10e_g.yaml"
        robot.write_text((ROOT / "robots" / "ur10e_cad.yaml").read_text().replace(
            "gravity: [0, 0, -9.81]", "gravity: [0, 0, -9.80665]"))
        args = ["payload", robot, _log(tmp_path, 6), "--robot-out", tmp_path / "fit.urdf"]
    one_line(_run(*args), "gravity", "cannot be written in a URDF")
    assert not (tmp_path / "fit.urdf").exists()


# `find LOG.h5 --floating` (or `--tip`) answered "this is a YAML description (write base: floating …)" for any file
# that is not a URDF: an HDF5 log, random bytes, a CSV given as the robot. The file's own problem comes first.
@pytest.mark.parametrize("content, said", [
    (b"\x89HDF\r\n\x1a\n" + bytes(range(256)), "not UTF-8 text"),
    (b"t,q1,tau1\n0,0,0\n", "expected a mapping"),
])
@pytest.mark.parametrize("option", [["--floating"], ["--tip", "link2"], ["--root", "link1"]])
def test_a_file_that_is_no_description_is_not_called_a_yaml_one_by_urdf_only_options(tmp_path, content, said, option):
    robot = tmp_path / "robot.bin"
    robot.write_bytes(content)
    one_line(_run("find", robot, *option), "robot.bin", said)


# '' named no file, yet click's path type took it: `payload --model ''` fitted with ROBOT_FILE's bodies (the empty
# name read as the option left out, exit 0), `--contacts ''` likewise, `find '' --json o.json` was refused for
# writing "inside the input folder ", and elsewhere ": cannot read" named no option.
@pytest.mark.parametrize("args, flag", [
    (["payload", UR10E, "LOG6", "--model", ""], "--model"),
    (["payload", UR10E, "LOG6", "--unloaded", ""], "--unloaded"),
    (["payload", UR10E, ""], "LOADED"),
    (["find", "", "--json", "o.json"], "ROBOT_FILE"),
    (["describe", ""], "ROBOT_FILE"),
    (["identify", PLANAR, ""], "TRAIN"),
    (["identify", PLANAR, "LOG3", "--validate", ""], "--validate"),
    (["excite", PLANAR, "--limits", ""], "--limits"),
    (["export", PLANAR, "--lang", "c", "--out", ""], "--out"),
])
def test_an_empty_file_name_is_refused_for_its_option(tmp_path, monkeypatch, args, flag):
    monkeypatch.chdir(tmp_path)
    logged = "LOG6" in args or "LOG3" in args
    args = [_log(tmp_path, 6) if a == "LOG6" else _log(tmp_path, 3) if a == "LOG3" else a for a in args]
    one_line(_run(*args), flag, "the file name is empty")
    assert sorted(p.name for p in tmp_path.iterdir()) == (["log.csv"] if logged else [])


# The floating-base options were told given by their truth value: `identify FIXED.yaml LOG --base-topic ''` (or
# --imu-frame '') ran the fixed-base fit and ignored them, exit 0; '--known X' and '--route' were refused.
@pytest.mark.parametrize("flag", ["--base-topic", "--imu-frame"])
def test_a_floating_base_option_given_empty_on_a_fixed_base_is_refused_not_ignored(tmp_path, monkeypatch, flag):
    import baseparam.identification.estimators as estimators
    monkeypatch.setattr(estimators, "identify", _no_fit)
    one_line(_run("identify", PLANAR, _log(tmp_path, 3), flag, ""), flag, "fixed base")


# `payload ROBOT LOG --model MODEL` read ROBOT_FILE only with --robot-out: random bytes, or a 3-joint arm for a
# 6-joint --model, were never read and the fit ran (exit 0).
@pytest.mark.parametrize("robot, said", [("bytes", "not UTF-8 text"), (PLANAR, "is not the robot of --model")])
def test_payload_with_a_model_reads_robot_file_and_refuses_another_robot(tmp_path, monkeypatch, robot, said):
    import baseparam.identification.payload as payload
    monkeypatch.setattr(payload, "identify_payload", _no_fit)
    if robot == "bytes":
        robot = tmp_path / "robot.yaml"
        robot.write_bytes(b"\xa2\x00\xff" * 50)
    one_line(_run("payload", robot, _log(tmp_path, 6), "--model", UR10E), said)


# `payload --robot-out` of a robot whose last link has no inertia was refused by the writer, after the whole fit.
def test_robot_out_of_a_robot_whose_last_link_has_no_body_is_refused_before_the_fit(tmp_path, monkeypatch):
    import yaml

    import baseparam.identification.payload as payload
    monkeypatch.setattr(payload, "identify_payload", _no_fit)
    description = yaml.safe_load((ROOT / "robots" / "ur10e_cad.yaml").read_text())
    del description["joints"][-1]["inertia"]
    robot = tmp_path / "bodiless.yaml"
    robot.write_text(yaml.safe_dump(description))
    one_line(_run("payload", robot, _log(tmp_path, 6), "--robot-out", tmp_path / "out.yaml"), "no inertia")
    assert not (tmp_path / "out.yaml").exists()


# `describe ROBOT --yaml out.urdf` wrote YAML text under a name the loader reads as URDF: the file baseparam wrote
# was then refused by baseparam ("not well-formed XML at line 1"). `identify --yaml` likewise, after the fit.
@pytest.mark.parametrize("command", ["describe", "identify"])
def test_a_yaml_description_is_not_written_under_a_urdf_name(tmp_path, monkeypatch, command):
    import baseparam.identification.estimators as estimators
    monkeypatch.setattr(estimators, "identify", _no_fit)
    out = tmp_path / "robot.URDF"
    args = ([command, PLANAR] + ([_log(tmp_path, 3), "--method", "consistent"] if command == "identify" else [])
            + ["--yaml", out])
    one_line(_run(*args), "robot.URDF", "--yaml")
    assert not out.exists()


# `payload ROBOT LOG --unloaded LOG`: the payload torque, loaded − unloaded, is zero by construction; the fit said
# 2.5e-17 kg with a centre of mass of round-off (6.5 cm out), and --json gave it to the controllers' formats.
# The same loaded log twice counted its samples twice, without the warning identify gives.
def test_one_log_as_loaded_and_unloaded_is_refused_and_a_repeated_loaded_log_is_said(tmp_path, monkeypatch):
    import baseparam.identification.payload as payload
    monkeypatch.setattr(payload, "identify_payload", _no_fit)
    log = _log(tmp_path, 6)
    one_line(_run("payload", UR10E, log, "--unloaded", log), "log.csv", "loaded", "--unloaded", "zero")
    import baseparam._warnings as warnings_module
    said = []
    monkeypatch.setattr(warnings_module, "warn", lambda text, *a, **k: said.append(text))
    _run("payload", UR10E, log, log)
    assert any("given twice as a loaded log" in text for text in said), said


# `payload --wrench` of a Parquet (MCAP, HDF5, ROS bag) log read the binary file as CSV text: "no column 'fx'
# (columns: PAR1\x15\x04…)"; a bag folder gave "Is a directory". The wrench is read from CSV or NPZ logs only.
@pytest.mark.parametrize("suffix", [".parquet", ".h5"])
def test_a_wrench_from_a_log_of_another_format_is_refused_for_its_format(tmp_path, suffix):
    import baseparam as bp
    t = np.arange(50) * 0.01
    q = np.sin(np.outer(t, np.arange(1, 7)))
    log = tmp_path / f"log{suffix}"
    if suffix == ".parquet":
        bp.write_trajectory(bp.Trajectory(t=t, q=q, tau=q.copy()), str(log))
    else:
        import h5py
        with h5py.File(log, "w") as f:
            f["t"], f["q"], f["tau"] = t, q, q
    one_line(_run("payload", UR10E, log, "--wrench", "fx,fy,fz,mx,my,mz"), f"log{suffix}", "--wrench",
             "CSV (.csv, .txt) or NPZ", suffix)


# `identify --method consistent` of torques the model explains exactly (a synthetic Parquet log resampled at 10 ms,
# --cutoff none) has σ = 0: its report said "moved by the constraints by more than 1σ: … XX1 (infσ), SX1 (infσ)".
def test_a_move_of_a_parameter_whose_sigma_is_zero_is_not_written_as_inf_sigma():
    from baseparam.identification.results import _moved_text
    line = _moved_text([("XX1", float("inf")), ("SX1", 2.5)], 18)
    assert "inf" not in line and "XX1 (σ = 0)" in line and "SX1 (2.5σ)" in line and "2 of 18" in line


# The floating-base reader gave a folder that is no bag to rosbags ("cannot read as a ROS bag: Expected metadata
# file 'logs' does not exist", naming the folder as the file) and refused an HDF5 log as "a floating-base log is
# .csv or .npz", though it reads Parquet and bags too (and "not 'without extension'" for a name without one).
@pytest.mark.parametrize("name, said", [
    ("logs", "a folder, but not a ROS 2 bag (no metadata.yaml in it)"),
    ("log.h5", ".csv, .npz, .parquet, .mcap, .bag or a ROS 2 bag folder, not '.h5'"),
    ("log", "not a file without extension"),
])
def test_a_floating_base_log_of_no_kind_it_reads_is_refused_in_the_trajectory_readers_words(tmp_path, name, said):
    path = tmp_path / name
    if name == "logs":
        path.mkdir()
    else:
        path.write_bytes(b"\x89HDF\r\n\x1a\n")
    one_line(_run("identify", ROOT / "robots" / "space_robot.yaml", path, "--route", "momentum"), name, said)
