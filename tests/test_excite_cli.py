"""``baseparam excite``: files written, one-line errors with exit status 2, the CSV read back by the
trajectory reader."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import DATA, ROOT, needs_data

RRR = str(ROOT / "robots" / "planar_rrr.yaml")
LIMITS = "joints:\n  - {q: [-2, 2.5], qd: 1.5, qdd: 6}\n  - {q: [-1.5, 1.5], qd: 2}\n  - {q: [-2.5, 2.5], qd: 2.5}\n"
QUICK = ["--period", "2", "--harmonics", "2", "--rate", "20", "--starts", "1", "--workers", "1"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture()
def limits(tmp_path):
    path = tmp_path / "limits.yaml"
    path.write_text(LIMITS)
    return path


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    (folder / "limits.yaml").write_text(LIMITS)
    res = run("excite", RRR, "--limits", folder / "limits.yaml", *QUICK, "--out", folder / "t.csv",
              "--json", folder / "t.json", "--plot", folder / "t.png")
    assert res.exit_code == 0, res.output
    return folder, res.output


def test_writes_the_three_files_and_says_so(written):
    folder, output = written
    assert "cond(W_b) = " in output and f"wrote {folder / 't.csv'}, {folder / 't.json'}, {folder / 't.png'}" in output
    doc = json.loads((folder / "t.json").read_text())
    assert {"condition_number", "criterion", "period", "harmonics", "coefficients"} <= set(doc)
    assert doc["criterion"] == "cond" and doc["period"] == 2.0 and doc["harmonics"] == 2
    assert (folder / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_json_to_stdout_is_only_the_document(limits):
    res = CliRunner().invoke(main, ["excite", RRR, "--limits", str(limits), *QUICK, "--json", "-"])
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["samples"] == 41 and doc["search"]["deterministic"]


def test_reader_takes_the_csv_and_identify_refuses_it_for_want_of_torques(written):
    folder, _ = written
    rows = np.loadtxt(folder / "t.csv", delimiter=",", skiprows=1)
    header = (folder / "t.csv").read_text().splitlines()[0]
    # the robot's log of the motion: the same columns plus the torques it measured
    robot = bp.load_robot(RRR)
    tau = bp.inverse_dynamics(robot, np.ones(30), rows[:, 1:4], rows[:, 4:7], rows[:, 7:10])
    log = folder / "log.csv"
    lines = [",".join(map(repr, r)) for r in np.hstack([rows, tau]).tolist()]
    log.write_text(header + ",tau1,tau2,tau3\n" + "\n".join(lines))
    traj = bp.read_trajectory(log)
    np.testing.assert_array_equal(traj.t, rows[:, 0])
    np.testing.assert_array_equal(traj.q, rows[:, 1:4])
    np.testing.assert_array_equal(traj.qd, rows[:, 4:7])
    np.testing.assert_array_equal(traj.qdd, rows[:, 7:10])
    played = bp.read_trajectory(folder / "t.csv")             # the motion itself reads, without torques
    assert played.tau is None and np.array_equal(played.qdd, rows[:, 7:10])
    res = run("identify", RRR, folder / "t.csv")              # but identification refuses it, in one line
    assert res.exit_code == 2
    assert res.output.count("\n") == 1 and "no torques" in res.output and "t.csv" in res.output


@pytest.mark.parametrize("args,fragment", [
    (["--period", "-1"], "--period: expected a duration > 0 s"),
    (["--harmonics", "0"], "--harmonics: expected a whole number from 2"),
    (["--harmonics", "1"], "--harmonics: expected a whole number from 2"),
    (["--rate", "1"], "--rate: 1 Hz is too low for 7 harmonics of a 14 s period"),
    (["--rate", "33.33"], "not a whole number of samples"),
    (["--criterion", "aopt"], "aopt"),
    (["--starts", "0"], "--starts"),
    (["--time-budget", "-3"], "--time-budget"),
    (["--workers", "0"], "--workers: expected a whole number from 1 to 256, or -1 (one per usable core)"),
])
def test_bad_settings_are_one_line_with_status_2(limits, args, fragment):
    res = run("excite", RRR, "--limits", limits, *args)
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and fragment in res.output, res.output


def test_the_cli_and_the_library_share_one_default_period_and_harmonics():
    """7 harmonics of 14 s (issue 25: bench/bench_excite_lwr4.py); the CLI reads them from the library when it
    runs (the --rate message above) and its --help shows the same values."""
    import inspect

    from baseparam.excitation import _defaults
    signature = inspect.signature(bp.design_excitation).parameters
    assert (_defaults.PERIOD, _defaults.HARMONICS) == (14.0, 7)
    assert (signature["period"].default, signature["harmonics"].default) == (_defaults.PERIOD, _defaults.HARMONICS)
    shown = " ".join(run("excite", "--help").output.split())
    assert f"Period T of the trajectory (s): it starts and ends at rest and can be repeated. [default: " \
           f"({_defaults.PERIOD:g})]" in shown
    assert f"Harmonics of 1/T per joint. [default: ({_defaults.HARMONICS})]" in shown


@pytest.mark.parametrize("text,fragment", [
    ("joints: [{q: [1, 0], qd: 1}, {qd: 1}, {qd: 1}]\n", "joints[1].q: lower 1 is not below upper 0"),
    ("joints: [{qd: 1}, {qd: 1}]\n", "joints: 2 entries, but the robot has 3 joints"),
    ("joints: [{qd: -1}, {qd: 1}, {qd: 1}]\n", "joints[1].qd: expected a finite number > 0"),
    ("joints: [{qd: 1, speed: 2}, {qd: 1}, {qd: 1}]\n", "joints[1].speed: unknown field"),
    ("joints: [{qd: 1}, {qd: 1}, {q: [0, x]}]\n", "joints[3].q[2]"),
    ("joints: [{qd: 1}\n", "limits.yaml"),
    ("", "limits.yaml"),
    ("joints: [{qd: 1}, {qd: 1}, {}]\n", "joint 3: no velocity limit"),
    ("joints: [{q: [-1e308, 1e308], qd: 1}, {qd: 1}, {qd: 1}]\n", "joint 1: position range [-1e+308, 1e+308]"),
])
def test_bad_limits_files_are_one_line_naming_the_file(tmp_path, text, fragment):
    path = tmp_path / "limits.yaml"
    path.write_text(text)
    res = run("excite", RRR, "--limits", path)
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and fragment in res.output and "limits.yaml" in res.output, res.output


def test_a_huge_velocity_limit_on_a_joint_without_range_designs_within_the_box(tmp_path):
    """An unlimited revolute joint starts swinging at most π about q0 (within the search's box), whatever
    its velocity limit: 1e308 rad/s once scaled the start to overflow (an internal error, exit 1)."""
    path = tmp_path / "limits.yaml"
    path.write_text("joints: [{qd: 1e308}, {qd: 1e12}, {qd: 1}]\n")
    res = run("excite", RRR, "--limits", path, *QUICK, "--json", tmp_path / "d.json")
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "d.json").read_text())
    swing = np.array(doc["bounds"]["q_max"]) - np.array(doc["bounds"]["q_min"])
    assert np.isfinite(doc["condition_number"]) and np.all(swing < 100.0)       # radians, not overflow


def test_limits_from_a_missing_file(tmp_path):
    res = run("excite", RRR, "--limits", tmp_path / "nope.yaml")
    assert res.exit_code == 2 and "nope.yaml" in res.output and res.output.count("\n") == 1


@needs_data
def test_limits_from_a_urdf():
    urdf = DATA / "kuka_lwr4" / "kuka_lwr4.urdf"
    res = run("excite", RRR, "--limits", urdf)
    assert res.exit_code == 2 and "the URDF has 7 joints, but the robot has 3" in res.output
    limits = bp.motion_limits(bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml"), urdf)
    assert limits.velocity[0] == pytest.approx(1.91986217719) and limits.upper[1] == pytest.approx(2.09439510239)
    assert limits.torque[5] == 38.0 and np.isinf(limits.acceleration).all()


def test_outputs_never_replace_inputs_and_plots_need_a_known_format(limits, tmp_path):
    res = run("excite", RRR, "--limits", limits, "--out", limits)
    assert res.exit_code == 2 and "names an input file" in res.output
    res = run("excite", RRR, "--limits", limits, "--plot", tmp_path / "x.unknown")
    assert res.exit_code == 2 and "unsupported plot format" in res.output
    res = run("excite", RRR, "--limits", limits, "--out", tmp_path / "no" / "x.csv")
    assert res.exit_code == 2 and "does not exist" in res.output
    assert limits.read_text() == LIMITS


def test_torque_limits_need_true_inertias(limits):
    res = run("excite", RRR, "--limits", limits, "--torque-limits")
    assert res.exit_code == 2 and "--torque-limits: " in res.output and "true inertias" in res.output


def test_torque_limits_say_which_true_value_is_missing():
    """Bodies given, but friction declared without values: the message names the missing friction
    (it used to say only "no true inertias", which the description has)."""
    import dataclasses
    rrr = bp.load_robot(RRR)
    body = bp.Inertia(mass=1.0, com=np.array([-0.4, 0.0, 0.0]), inertia=np.diag([0.01, 0.08, 0.08]))
    robot = dataclasses.replace(rrr, joints=tuple(dataclasses.replace(j, inertia=body, friction=(True, True, False))
                                                  for j in rrr.joints), source=None)
    limits = {"joints": [{"qd": 1.0, "tau": 50.0}] * 3}
    with pytest.raises(bp.ArgumentError, match=r"torque_limits: .*needed to predict torques: joints\[1\]\.friction"):
        bp.design_excitation(robot, limits=limits, torque_limits=True, starts=1, workers=1)


def test_a_script_without_main_guard_can_design(tmp_path):
    """Workers are spawned without re-running the caller's script, so no ``if __name__ == "__main__"``."""
    script = tmp_path / "design.py"
    script.write_text("import baseparam as bp\n"
                      f"robot = bp.load_robot({RRR!r})\n"
                      "d = bp.design_excitation(robot, period=2.0, harmonics=2, rate=20.0, starts=2, workers=2,\n"
                      "                         limits={'joints': [{'qd': 1.0}] * 3})\n"
                      "print('designed', d.search.counted)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("designed 2") == 1


def test_a_search_that_would_not_fit_in_memory_is_refused_in_one_line(limits, monkeypatch):
    """The search's memory (constraint Jacobian and SLSQP's copies, per process) is checked before it
    starts: a design too large for the memory left is refused with the figure, exit status 2."""
    import baseparam._memory as memory
    monkeypatch.setattr(memory, "available_bytes", lambda: 50_000_000)       # 50 MB left: 40 MB allowed
    res = run("excite", RRR, "--limits", limits, "--harmonics", "40", "--rate", "40", "--workers", "2",
              "--time-budget", "3")
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and "the search for 40 harmonics of 3 joints would need about" in res.output
    res = run("excite", RRR, "--limits", limits, *QUICK)                     # a small design still runs
    assert res.exit_code == 0, res.output


# -- issue 24: one vocabulary across commands ------------------------------------------------------------------------
def test_out_is_a_file_or_a_folder_as_in_export(tmp_path, limits):
    """excite --out FOLDER/ writes ROBOT_excite.csv there (export's --out is a folder); a file still works."""
    res = run("excite", RRR, "--limits", limits, *QUICK, "--out", f"{tmp_path / 'designs'}/")
    assert res.exit_code == 0, res.output
    written = tmp_path / "designs" / "planar_rrr_excite.csv"
    assert f"wrote {written}" in res.output and bp.read_trajectory(written).q.shape == (41, 3)
    res = run("excite", RRR, "--limits", limits, *QUICK, "--out", tmp_path / "designs")   # an existing folder
    assert res.exit_code == 0 and f"wrote {written}" in res.output, res.output
    res = run("export", RRR, "--lang", "c", "--out", tmp_path / "gen" / "rrr.c")
    assert res.exit_code == 2 and not (tmp_path / "gen").exists()
    assert res.stderr.strip().endswith(f"give --out {tmp_path / 'gen'} --prefix rrr"), res.stderr
    res = run("export", RRR, "--lang", "c", "--out", tmp_path / "gen", "--prefix", "rrr")
    assert res.exit_code == 0 and (tmp_path / "gen" / "rrr.c").is_file(), res.output


def test_parameters_default_is_the_same_in_every_command_and_in_python():
    import inspect

    from baseparam.cli import main as group
    defaults = {name: {p.name: p.default for p in command.params}.get("parameters")
                for name, command in group.commands.items()}
    assert {d for d in defaults.values() if d is not None} == {"pseudo"}, defaults
    for function in (bp.design_excitation, bp.find_base_parameters, bp.BaseParameterEstimator):
        assert inspect.signature(function).parameters["parameters"].default == "pseudo", function
