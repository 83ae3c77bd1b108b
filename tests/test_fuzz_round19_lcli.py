"""Round 19, command line and Python API leftovers (stop 43's "Left" list, set lcli), each test failing on the code
before its fix."""
from __future__ import annotations

import errno
import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from baseparam import cli
from baseparam.cli import main
from conftest import ROOT, one_line, planar_sines

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")


# --- 1. a report that cannot be written fails the run, and the run's outputs are taken back ---

@pytest.fixture(scope="module")
def planar_log(tmp_path_factory):
    """A CSV log of the planar arm (positions and torques, 150 samples at 100 Hz)."""
    folder = tmp_path_factory.mktemp("planar")
    _robot, _model, t, q, _qd, _qdd, tau = planar_sines(1, 150, 0.01)
    log = folder / "log.csv"
    np.savetxt(log, np.column_stack([t, q, tau]), delimiter=",", header="t,q1,q2,q3,tau1,tau2,tau3", comments="")
    return str(log)


# Each command with the outputs it writes (the first: a file there before the run). Every command runs inside the
# group's invoke, where the rule is kept (cli._OneLineErrors.invoke); equations and excite, which write as these do,
# are left out for the file's CPU budget (sympy's and the optimiser's imports: 1.4 s).
_RUNS = {
    "find": (["find", PLANAR, "--json", "o.json"], ["o.json"]),
    "describe": (["describe", PLANAR, "--yaml", "o.yaml"], ["o.yaml"]),
    "export": (["export", PLANAR, "--lang", "python", "--prefix", "o", "--out", "new/deep"],
               ["new/deep/o.json", "new/deep/o_dynamics.py"]),
    "identify": (["identify", PLANAR, "LOG", "--json", "o.json"], ["o.json"]),
    "payload": (["payload", PLANAR, "LOG", "--json", "o.json"], ["o.json"]),
}


@pytest.mark.parametrize("command", list(_RUNS))
def test_a_report_that_cannot_be_written_takes_the_outputs_back(command, planar_log, tmp_path, monkeypatch):
    """`find R --json o.json | true` exited 2 ("standard output: cannot write (Broken pipe)") but left the whole
    o.json: the outputs were put in place before the report was written. A run with status 2 leaves none of its
    outputs (docs/cli.md): an old file keeps its old text, a new one is not there, a folder made for them goes."""
    monkeypatch.chdir(tmp_path)
    log = planar_log
    args, outputs = _RUNS[command]
    args = [log if a == "LOG" else a for a in args]
    first = tmp_path / outputs[0]
    if command != "export":
        first.write_text("old")

    def closed_pipe(*_args):       # what click.echo raises on stdout when its reader has left
        in_place.extend(name for name in outputs if (tmp_path / name).is_file() and
                        (tmp_path / name).read_text() != "old")
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    in_place = []
    monkeypatch.setattr(cli, "_report", closed_pipe)
    one_line(CliRunner().invoke(main, args), "standard output: cannot write (Broken pipe)")
    assert in_place == outputs                  # before the report: every output in place, new
    if command == "export":
        assert list(tmp_path.iterdir()) == []
    else:
        assert sorted(p.name for p in tmp_path.iterdir()) == [outputs[0]] and first.read_text() == "old"

def test_a_report_to_a_closed_pipe_leaves_the_old_output(tmp_path):
    """The real thing: stdout a pipe whose reader has closed it, the JSON's old version there before the run."""
    out = tmp_path / "o.json"
    out.write_text("old")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "baseparam", "find", PLANAR, "--json", str(out)], cwd=tmp_path,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=write_end, stderr=subprocess.PIPE,
                              timeout=120)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (2, b"baseparam: standard output: cannot write (Broken pipe)\n")
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["o.json"]



def test_outputs_kept_takes_back_every_block_placed_within_it(tmp_path):
    """Two blocks placed within one outputs_kept (a command's several _one_line_errors blocks), a target written by
    both: a failure afterwards gives it its first old text back, removes the new file and the folder made for it,
    and leaves no temporary name; SystemExit(0) (a run that ended well) keeps them."""
    from baseparam._atomic import make_folders, outputs_kept, outputs_together, write_text
    a, b = tmp_path / "a.txt", tmp_path / "new" / "b.txt"
    a.write_text("old")
    with pytest.raises(RuntimeError), outputs_kept():
        with outputs_together():
            write_text(a, "1")
        with outputs_together():
            make_folders(b.parent)
            write_text(a, "2")
            write_text(b, "b")
        assert (a.read_text(), b.read_text()) == ("2", "b")
        raise RuntimeError
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"] and a.read_text() == "old"
    with pytest.raises(SystemExit), outputs_kept():
        with outputs_together():
            write_text(a, "3")
        raise SystemExit(0)
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"] and a.read_text() == "3"

# --- 2. payload: --delay auto on a log without delay, globs, --skip-bad-rows for the wrench, a negative mass ---

def test_delay_auto_on_a_log_without_delay_keeps_every_sample(planar_log):
    """The estimate of a log without delay is a few hundredths of a step off zero (0.04 ms of 10 ms here), and
    applying it dropped the last sample, `payload --delay auto` saying "1 sample at the ends dropped"."""
    import baseparam as bp
    log = planar_log
    robot = bp.load_robot(PLANAR)
    plain = bp.read_trajectory(log, robot=robot)
    shifted = bp.read_trajectory(log, robot=robot, delay="auto")
    assert shifted.t.size == plain.t.size == 150 and "dropped" not in shifted.notes[-1]
    result = CliRunner().invoke(main, ["payload", PLANAR, log, "--delay", "auto"])
    assert result.exit_code == 0 and "effort delay" in result.output and "dropped" not in result.output, \
        result.output


def test_an_effort_extrapolated_past_the_end_is_within_interpolations_error():
    """Within a fifth of a step past an end, the effort is extrapolated from the end's two samples: exact for an
    effort linear in t, within h²/8·max|τ̈| (linear interpolation's own bound) for a sine; beyond, the sample goes."""
    import baseparam as bp
    from baseparam.identification.delay import apply_delay
    h = 0.01
    t = np.arange(50) * h
    line = apply_delay(bp.Trajectory(t=t, q=np.zeros((50, 1)), tau=(3 + 2 * t)[:, None]), 0.15 * h)
    assert line.t.size == 50 and np.allclose(line.tau[:, 0], 3 + 2 * (t + 0.15 * h), rtol=0, atol=1e-12)
    for d in (0.2 * h, -0.2 * h):
        sine = apply_delay(bp.Trajectory(t=t, q=np.zeros((50, 1)), tau=np.sin(7 * t)[:, None]), d)
        assert sine.t.size == 50
        assert np.max(np.abs(sine.tau[:, 0] - np.sin(7 * (t + d)))) <= h ** 2 / 8 * 49
    assert apply_delay(bp.Trajectory(t=t, q=np.zeros((50, 1)), tau=t[:, None]), 0.25 * h).t.size == 49


def test_payload_expands_glob_patterns_as_identify_does(planar_log, tmp_path):
    """`payload R 'logs/*.csv'` said "logs/*.csv: cannot read: No such file or directory" where identify reads the
    files it matches (sorted); one matching nothing is refused in the same words as identify's."""
    import json
    import shutil
    log = planar_log
    for name in ("b.csv", "a.csv"):
        shutil.copy(log, tmp_path / name)
    outs = [tmp_path / "glob.json", tmp_path / "named.json"]
    for logs, out in ((["*.csv"], outs[0]), (["a.csv", "b.csv"], outs[1])):
        result = CliRunner().invoke(main, ["payload", PLANAR, *[str(tmp_path / n) for n in logs], "--json", str(out)])
        assert result.exit_code == 0, result.output
    assert json.loads(outs[0].read_text()) == json.loads(outs[1].read_text())
    for command in ("payload", "identify"):
        one_line(CliRunner().invoke(main, [command, PLANAR, str(tmp_path / "none*.csv")]),
                 f"{tmp_path / 'none*.csv'}: no file matches this pattern")


def test_skip_bad_rows_drops_a_row_of_a_damaged_wrench_value(planar_log, tmp_path):
    """`payload --wrench … --skip-bad-rows` refused a log whose wrench held a NaN ("line 42: fx: not finite") where
    --skip-bad-rows promises to drop damaged rows (reported as a warning) instead of refusing the file: the row now
    goes from the motion and the wrench alike, and the fit is that of the file without those rows."""
    import json
    log = planar_log
    table = np.loadtxt(log, delimiter=",", skiprows=1)
    wrench = np.column_stack([np.sin(table[:, 0] * (k + 1)) for k in range(6)])
    header = "t,q1,q2,q3,tau1,tau2,tau3,fx,fy,fz,mx,my,mz"
    rows = [",".join(map(repr, row)) for row in np.column_stack([table, wrench]).tolist()]
    rows[40] = rows[40].replace(repr(float(wrench[40, 0])), "nan")         # line 42 (the header is line 1)
    rows[90] = rows[90].rsplit(",", 1)[0] + ",-inf"                   # line 92, mz
    rows[100] = rows[100].replace(repr(float(wrench[100, 2])), "x")        # line 102: not a number
    damaged, clean = tmp_path / "damaged.csv", tmp_path / "clean.csv"
    damaged.write_text("\n".join([header, *rows]) + "\n")
    clean.write_text("\n".join([header, *(r for k, r in enumerate(rows) if k not in (40, 90, 100))]) + "\n")
    args = ["payload", PLANAR, "--wrench", "fx,fy,fz,mx,my,mz", "--json"]
    one_line(CliRunner().invoke(main, [*args, str(tmp_path / "o.json"), str(damaged)]),
             "damaged.csv: --wrench: line 42: fx: not finite")
    skipping = CliRunner().invoke(main, [*args, str(tmp_path / "skipping.json"), str(damaged), "--skip-bad-rows"])
    assert skipping.exit_code == 0, skipping.output
    assert "skipped 3 bad rows of 150: lines 42 (wrench fx: NaN), 92 (wrench mz: infinite), 102 (wrench: not 6 " \
           "numbers)" in skipping.output
    plain = CliRunner().invoke(main, [*args, str(tmp_path / "clean.json"), str(clean)])
    assert plain.exit_code == 0, plain.output
    assert json.loads((tmp_path / "skipping.json").read_text()) == json.loads((tmp_path / "clean.json").read_text())


def test_the_centre_of_a_mass_below_zero_is_undetermined():
    """The consistent estimate's solver failing kept the least-squares parameters: a mass of −2 kg (a wrench
    reversed) had its centre of mass shown as +0.0000 ± 0.0000 m (c = s/m is set to 0 for m ≤ 0, and its delta-method
    deviation came out 0): "undetermined", as the still poses' fit says of a mass clipped at 0. (Round 23: that
    failure now raises, and no result holds a mass below zero; a mass of 0 is the case left.)"""
    from baseparam.identification import _payload_math
    from baseparam.identification.payload import PayloadResult

    fields = _payload_math._physical_estimate(np.zeros(10), np.zeros((10, 10)), np.eye(10), [])   # a body: kept
    assert fields["mass"] == 0.0 and np.isfinite(fields["mass_std"])
    # the result (every fit's) makes the centre's and inertia's deviations NaN without a mass (round 20: one place)
    fitted = PayloadResult(**fields, mode="wrench", n_samples=100, rmse=np.zeros(6))
    assert np.isnan(fitted.com_std).all() and np.isnan(fitted.inertia_std).all()
    # a result built by hand with 0 ± 0 for that centre is shown the same way
    r = PayloadResult(**dict(fields, com_std=np.zeros(3), inertia_std=np.zeros((3, 3))), mode="wrench", n_samples=100,
                      rmse=np.zeros(6))
    com = next(line for line in r.summary().splitlines() if line.lstrip().startswith("com"))
    assert com.count("± undetermined") == 3 and "± 0.0000" not in com, com


def test_a_reversed_wrench_is_said_to_give_a_mass_below_zero():
    """0a05d02 said a mass below zero beyond 3 σ as such, but judged the consistent estimate's mass, which is ≥ 0: a
    2 kg payload's wrench given reversed (−2.0 ± 0.0001 kg by least squares) came out 0.00033 kg, "not told from none
    (below 3 σ or 1 g): no payload seen". The least-squares mass is judged, as the still poses' fit's already was."""
    import warnings

    import baseparam as bp
    from baseparam.identification.payload import payload_parameters
    from baseparam.identification.payload_wrench import wrench_regressor
    robot, _model, t, q, qd, qdd, tau = planar_sines(1, 300, 0.01)
    wrench = wrench_regressor(robot, q, qd, qdd) @ payload_parameters(2.0, [0.03, -0.02, 0.06], np.eye(3) * 0.01)
    traj = bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = bp.identify_payload(robot, [traj], wrench=[-wrench])
    said = [str(w.message) for w in caught]
    import re
    assert len(said) == 1 and re.search(r"below zero beyond 3 σ \(-2 kg found, [0-9.e-]+ kept\)", said[0]), said
    assert "the wrench's sign or the sensor frame reversed?" in said[0] and "not told from none" not in said[0]
    assert "below zero" in result.summary()

# --- 3. the command line's own words: the command for a floating robot, click's usage errors shortened ---

@pytest.mark.parametrize("args, said", [(["excite", "ROBOT"], "excite handles fixed-base robots only"),
                                        (["payload", "ROBOT", "--suggest-poses", "5"],
                                         "payload --suggest-poses handles fixed-base robots only")])
def test_a_floating_robot_is_refused_in_the_commands_words(args, said):
    """`excite space_robot.yaml` said "design_excitation handles fixed-base robots only", `payload --suggest-poses`
    "suggest_static_poses …": library functions, where the command line names its commands, flags and files."""
    robot = str(ROOT / "robots" / "space_robot.yaml")
    result = CliRunner().invoke(main, [robot if a == "ROBOT" else a for a in args])
    one_line(result, f"{robot}: 'space robot (two 3R arms)' has a floating base", said)
    assert "_" not in result.output.split("floating base")[-1], result.output


@pytest.mark.parametrize("args, kept", [
    (["--parameters", "LONG"], ["Invalid value for '--parameters': 'xxx", "xxx' is not one of 'pseudo', 'khalil'."]),
    (["--" + "x" * 3000], ["No such option '--xxx"]),
    (["LONG"], ["Got unexpected extra argument (xxx", "xxx)"]),
    (["--exact-angles", "LONG"], ["'--exact-angles'", "xxx' is not one of"]),
])
def test_a_usage_error_shows_a_long_value_by_its_ends(args, kept):
    """click's usage errors repeated the value given whole: a 3 000-character --parameters filled 3 082 characters of
    the terminal with its one line. A value beyond 200 characters is shown by its ends around '…'."""
    result = CliRunner().invoke(main, ["find", PLANAR, *("x" * 3000 if a == "LONG" else a for a in args)])
    one_line(result, *kept)
    line = result.output.strip().splitlines()[-1]
    assert "…" in line and len(line) < 400, len(line)


# --- 4. a 0-d array of a real dtype is a number, for every numeric parameter (check_number) ---

def test_a_zero_d_array_is_taken_as_its_number(planar_log):
    """`prior_weight=np.array(0.3)` was refused ("expected a finite number ≥ 0, got an array of shape ()") where
    `np.float32(0.5)` was taken: a 0-d array of integers or floats is its number; the fits are the same."""
    import warnings

    import baseparam as bp
    from baseparam._validation import check_number
    log = planar_log
    robot = bp.load_robot(PLANAR)
    traj = bp.read_trajectory(log, robot=robot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)
        fits = [bp.BaseParameterEstimator(robot, method="consistent", prior_weight=w).fit(traj).coef_
                for w in (0.3, np.array(0.3))]
    assert np.array_equal(*fits)
    assert bp.estimate_delay(traj, robot, max_delay=np.array(0.05)) == bp.estimate_delay(traj, robot, max_delay=0.05)
    assert check_number(np.array(7, dtype=np.uint8), "n", integer=True) == 7
    for value in (np.array(True), np.array(1 + 1j), np.array([0.3]), np.ma.masked_array(0.3), np.array(np.inf),
                  np.array("0.3"), np.array(0.3, dtype=object)):
        with pytest.raises(bp.ArgumentError, match="^w: expected a number"):
            check_number(value, "w")
    with pytest.raises(bp.ArgumentError, match="^n: expected a whole number"):
        check_number(np.array(2.0), "n", integer=True)
    # the whole numbers checked beside check_number: -1 workers (one per core), the payload's moving joints
    from baseparam._validation import check_workers, usable_cores
    from baseparam.excitation.payload import moving_joints
    assert check_workers(np.array(-1)) == usable_cores() and check_workers(np.array(2)) == 2
    assert moving_joints(robot, np.array(2)) == moving_joints(robot, 2) == (2, 3)


# --- 5. a table of poses as a grid, one row per pose ---

def test_a_grid_of_poses_one_row_each_is_refused_in_true_words(tmp_path):
    """A table of poses written as a grid (joint 5 at 3 values, joint 6 at 5 evenly spaced ones, one row per pose) was
    refused as "the rows … move at a steady velocity (up to 1 rad/s) …: the robot moves through them", of a table that
    never moved. It cannot be told from a motion sampled coarsely (what makes such a log safe to refuse makes the grid
    refused): the refusal now says what the rows show, a joint stepped alone in equal steps, and the remedy, which
    works: each row twice gives pinocchio's payload."""
    import itertools
    import json

    import pinocchio as pin

    from test_payload_static import PAYLOAD, _pin
    import baseparam as bp
    ur = ROOT / "robots" / "ur10e.yaml"
    model = _pin(bp.load_robot(ur), PAYLOAD)
    data = model.createData()
    grid = []
    for a, b in itertools.product(np.linspace(-1.5, 1.5, 3), np.linspace(-2, 2, 5)):
        grid.append([0.0, -1.2, 1.5, -1.0 + 0.3 * a, a, b])
    grid = np.array(grid)
    tau = np.array([pin.rnea(model, data, q, 0 * q, 0 * q) for q in grid])
    header = "t," + ",".join(f"q{j}" for j in range(1, 7)) + "," + ",".join(f"tau{j}" for j in range(1, 7))
    for times, name in ((1, "grid.csv"), (2, "twice.csv")):
        rows = np.column_stack([np.arange(15.0 * times), np.repeat(grid, times, 0), np.repeat(tau, times, 0)])
        np.savetxt(tmp_path / name, rows, delimiter=",", header=header, comments="")
    args = ["payload", str(ur), "--static", "--still-duration", "0", "--json"]
    result = CliRunner().invoke(main, [*args, str(tmp_path / "o.json"), str(tmp_path / "grid.csv")])
    one_line(result, "grid.csv: --still-duration 0 takes each row as a still pose", "from t = 0 to 3 s step joint 6 "
             "alone by 1 (rad or m) each", "cannot be told from a log of motion", "write each pose's row twice")
    assert "moves through them" not in result.output
    result = CliRunner().invoke(main, [*args, str(tmp_path / "o.json"), str(tmp_path / "twice.csv")])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "o.json").read_text())
    assert abs(doc["mass"] - PAYLOAD[0]) < 1e-6 and np.allclose(doc["com"], PAYLOAD[1], atol=1e-6)
