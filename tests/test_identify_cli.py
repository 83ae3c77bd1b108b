"""The ``baseparam identify`` command: plain CSV files written here, the JSON contract, --validate with
several files, one-line errors with exit status 2, and the damaged real UR10e log."""
import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification.preprocessing import Preprocessing, preprocess
from baseparam.identification.trajectory import read_trajectory
from conftest import DATA, ROOT, needs_data, run_in_process
from random_bodies import random_parameters

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")
UR10E = str(ROOT / "robots" / "ur10e.yaml")
DAMAGED = DATA / "ur10e" / "identification_data" / "ur-20_02_19_15harm50secLoad.csv"
UR_COLUMNS = "t=0,q=1:7,qd=7:13,current=13:19"
UR_GAINS = "10,10.6956,8.4566,9.0029,9.4800,10.1232"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def motion(rng, n_samples, h=0.01, f0=0.1, harmonics=4):
    """Sums of sines for 3 joints: (t, q, qd, qdd), analytic; some joint always moves (> 0.1 rad/s)."""
    t = np.arange(n_samples) * h
    w = 2 * np.pi * f0 * np.arange(1, harmonics + 1)
    while True:
        a = rng.uniform(0.3, 0.8, (3, harmonics)) / w
        phi = rng.uniform(0, 2 * np.pi, (3, harmonics))
        arg = w[None, :, None] * t[None, None, :] + phi[:, :, None]
        qd = (a[:, :, None] * w[None, :, None] * np.cos(arg)).sum(axis=1).T
        if np.abs(qd).max(axis=1).min() > 0.1:
            break
    q = (a[:, :, None] * np.sin(arg)).sum(axis=1).T
    qdd = -(a[:, :, None] * w[None, :, None] ** 2 * np.sin(arg)).sum(axis=1).T
    return t, q, qd, qdd


class Planar:
    """planar_rrr with random true parameters; writes plain CSV files t,q1..q3,qd1..qd3,tau1..tau3."""

    def __init__(self, seed=0):
        self.robot = bp.load_robot(PLANAR)
        self.base = bp.find_base_parameters(self.robot)
        self.rng = np.random.default_rng(seed)
        self.p, _, _ = random_parameters(self.robot, "pseudo", self.rng)
        self.x = self.base.from_standard(self.p)

    def write(self, path, n_samples):
        t, q, qd, qdd = motion(self.rng, n_samples)
        tau = bp.inverse_dynamics(self.robot, self.p, q, qd, qdd)
        header = ",".join(["t"] + [f"{f}{j}" for f in ("q", "qd", "tau") for j in (1, 2, 3)])
        np.savetxt(path, np.column_stack([t, q, qd, tau]), delimiter=",", header=header, comments="", fmt="%.17g")
        return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("identify")
    planar = Planar()
    return planar, {name: planar.write(d / f"{name}.csv", n) for name, n in
                    (("train", 1000), ("a", 700), ("b", 500))}


def kept(path):
    return int(preprocess(read_trajectory(path), Preprocessing()).kept.sum())


def test_identify_writes_json_and_plot(files, tmp_path):
    planar, f = files
    out, png = tmp_path / "out.json", tmp_path / "out.png"
    res = run("identify", PLANAR, f["train"], "--validate", f["a"], "--json", out, "--plot", png)
    assert res.exit_code == 0, res.output
    assert "9 base parameters" in res.stdout and "validation" in res.stdout
    doc = json.loads(out.read_text())
    assert [b["name"] for b in doc["base"]] == planar.base.names
    for b in doc["base"]:
        assert set(b) >= {"name", "value", "std", "rel_std_percent"}
    assert doc["condition_number"] > 1
    for part in ("train", "validation"):
        assert set(doc[part]) >= {"rmse", "nrmse_percent", "nrmse_pooled_percent"}
        assert len(doc[part]["rmse"]) == len(doc[part]["nrmse_percent"]) == 3
        # noise-free data; the only errors are those of preprocessing (5 Hz low-pass, derived qdd)
        assert doc[part]["nrmse_pooled_percent"] < 0.5
        assert max(doc[part]["nrmse_percent"]) < 1.0
    values = np.array([b["value"] for b in doc["base"]])
    assert np.abs(values - planar.x).max() < 1e-2 * np.abs(planar.x).max()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "out.png"]


def test_identify_without_filter_is_exact_to_differentiation(files, tmp_path):
    planar, f = files
    out = tmp_path / "out.json"
    res = run("identify", PLANAR, f["train"], "--json", out, "--cutoff", "none", "--resample", "none")
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["train"]["nrmse_pooled_percent"] < 0.05
    assert doc["validation"] is None
    values = np.array([b["value"] for b in doc["base"]])
    assert np.abs(values - planar.x).max() < 1e-3 * np.abs(planar.x).max()


def test_validate_takes_several_files_and_none_trains(files, tmp_path):
    planar, f = files
    out = tmp_path / "out.json"
    res = run("identify", PLANAR, f["train"], "--validate", f["a"], f["b"], "--json", out)
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    n_train, n_a, n_b = kept(f["train"]), kept(f["a"]), kept(f["b"])
    assert len({n_train, n_train + n_b, n_a, n_a + n_b}) == 4        # the counts tell the files apart
    assert doc["train"]["n_samples"] == n_train
    assert doc["validation"]["n_samples"] == n_a + n_b
    # without the low-pass (whose settling at the ends is left out) nothing is dropped: every sample
    # of these files moves, so the counts are the files' lengths
    out0 = tmp_path / "out0.json"
    res = run("identify", PLANAR, f["train"], "--validate", f["a"], f["b"], "--json", out0, "--cutoff", "none")
    assert res.exit_code == 0, res.output
    doc0 = json.loads(out0.read_text())
    assert doc0["train"]["n_samples"] == 1000 and doc0["validation"]["n_samples"] == 700 + 500
    # the same as giving them in the repeated-option form
    out2 = tmp_path / "out2.json"
    res = run("identify", PLANAR, f["train"], "--validate", f["a"], "--validate", f["b"], "--json", out2)
    assert res.exit_code == 0, res.output
    doc2 = json.loads(out2.read_text())
    assert doc2["validation"] == doc["validation"] and doc2["base"] == doc["base"]
    # and an option after the list ends it: TRAIN given after --json is training data again
    out3 = tmp_path / "out3.json"
    res = run("identify", PLANAR, "--validate", f["a"], "--json", out3, f["train"], f["b"])
    assert res.exit_code == 0, res.output
    doc3 = json.loads(out3.read_text())
    assert doc3["train"]["n_samples"] == n_train + n_b and doc3["validation"]["n_samples"] == n_a


def bad_csv(tmp_path, name, mutate):
    lines = (tmp_path / "src.csv").read_text().splitlines() if (tmp_path / "src.csv").exists() else None
    if lines is None:
        Planar(seed=3).write(tmp_path / "src.csv", 200)
        lines = (tmp_path / "src.csv").read_text().splitlines()
    path = tmp_path / name
    path.write_text("\n".join(mutate(lines)) + "\n")
    return path


def replace_field(line, k, text):
    fields = line.split(",")
    fields[k] = text
    return ",".join(fields)


def assert_one_line_error(res, *fragments):
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("baseparam:"), res.stderr
    assert "Traceback" not in res.output
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.mark.parametrize("case", ["missing", "text", "nan", "short_row", "no_header", "bad_header"])
def test_bad_files_are_one_line_errors(tmp_path, case):
    mutate = {
        "text": lambda ls: ls[:5] + [replace_field(ls[5], 2, "abc")] + ls[6:],      # line 6
        "nan": lambda ls: ls[:7] + [replace_field(ls[7], 4, "nan")] + ls[8:],       # line 8
        "short_row": lambda ls: ls[:9] + [",".join(ls[9].split(",")[:5])] + ls[10:],  # line 10
        "no_header": lambda ls: ls[1:],
        "bad_header": lambda ls: [ls[0].replace("tau", "torque")] + ls[1:],
    }
    fragments = {"text": ("line 6", "abc"), "nan": ("line 8", "NaN"), "short_row": ("line 10",),
                 "no_header": ("header",), "bad_header": ("tau",), "missing": ()}[case]
    path = tmp_path / "nope.csv" if case == "missing" else bad_csv(tmp_path, f"{case}.csv", mutate[case])
    res = run("identify", PLANAR, path)
    assert_one_line_error(res, path.name, *fragments)


@pytest.mark.parametrize("args,fragment", [
    (["--gains", "1,x"], "--gains"),
    (["--gains", "1,2,3"], "gains"),          # gains with a torque file
    (["--cutoff", "abc"], "--cutoff"),
    (["--rest-velocity", "fast"], "--rest-velocity"),
    (["--resample", "-1"], "resample"),
    (["--method", "foo"], "foo"),
    (["--parameters", "bar"], "bar"),
    (["--decimate", "0"], "decimate"),
    (["--columns", "t=0,bogus=1:3"], "bogus"),
    # a column map naming a column the file lacks: a TypeError once its message went through _checks.shown
    (["--columns", "t=0,q=nosuch"], "no column named 'nosuch'"),
])
def test_bad_options_are_one_line_errors(files, args, fragment):
    planar, f = files
    res = run("identify", PLANAR, f["train"], *args)
    assert_one_line_error(res, fragment)


def test_other_one_line_errors(files, tmp_path):
    planar, f = files
    assert_one_line_error(run("identify", tmp_path / "robot.yaml", f["train"]), "robot.yaml")
    assert_one_line_error(run("identify", UR10E, f["train"]), "train.csv", "3")          # joints differ
    assert_one_line_error(run("identify", PLANAR, f["train"], "--json", tmp_path / "x", "--plot", tmp_path / "x"),
                          "same file")
    assert_one_line_error(run("identify", PLANAR), "TRAIN")


def test_exit_status_in_a_real_process(files, tmp_path):
    planar, f = files
    proc = subprocess.run([sys.executable, "-m", "baseparam.cli", "identify", PLANAR, str(tmp_path / "gone.csv")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("baseparam:") and "gone.csv" in lines[0]


# -- the damaged real log ----------------------------------------------------------------------------------------


def cli(*args):
    """``baseparam identify ARGS…`` in this process: the exit status of a real process is
    test_exit_status_in_a_real_process's, and a process for each of these runs checked the same lines."""
    return run_in_process("identify", *args)


@needs_data
def test_damaged_log_is_refused_naming_file_and_line():
    proc = cli(UR10E, DAMAGED, "--columns", UR_COLUMNS, "--gains", UR_GAINS)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("baseparam:"), proc.stderr
    assert DAMAGED.name in lines[0] and "line 2" in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


@needs_data
def test_damaged_log_with_skip_bad_rows(tmp_path):
    out = tmp_path / "ur.json"
    proc = cli(UR10E, DAMAGED, "--columns", UR_COLUMNS, "--gains", UR_GAINS, "--skip-bad-rows", "--json", out)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert all(line.startswith("baseparam: warning:") for line in lines), proc.stderr
    skipped = [line for line in lines if "skipped" in line]
    assert len(skipped) == 1 and DAMAGED.name in skipped[0]
    # rows 2-10 are garbage and the last row is truncated (../shared/data/README.md)
    assert "10 bad rows" in skipped[0] and "2-10" in skipped[0]
    doc = json.loads(out.read_text())
    assert len(doc["base"]) == 58 and all(np.isfinite(b["value"]) for b in doc["base"])
    assert 0 < doc["train"]["nrmse_pooled_percent"] < 20          # a real arm with a current-based model


def test_validate_needs_files_and_training_comes_first(files):
    _, paths = files
    assert_one_line_error(run("identify", PLANAR, paths["train"], "--validate"), "--validate: no file given")
    assert_one_line_error(run("identify", PLANAR, paths["train"], "--validate", "--json", "x.json"),
                          "--validate: no file given")
    assert_one_line_error(run("identify", PLANAR, "--validate", paths["a"], paths["train"]), "no training file")


def test_same_file_for_training_and_validation_is_warned_about(files):
    _, paths = files
    res = run("identify", PLANAR, paths["train"], "--validate", paths["train"])
    assert res.exit_code == 0
    assert "baseparam: warning:" in res.stderr and "not held out" in res.stderr
    res = run("identify", PLANAR, paths["train"], paths["train"])
    assert res.exit_code == 0 and "count twice" in res.stderr


def test_outputs_are_checked_before_the_fit(files, tmp_path):
    _, paths = files
    good = tmp_path / "ok.json"
    assert_one_line_error(run("identify", PLANAR, paths["train"], "--json", good, "--plot", tmp_path / "x.xyz"),
                          "x.xyz", "unsupported plot format")
    assert not good.exists()                       # nothing written when the command fails
    assert_one_line_error(run("identify", PLANAR, paths["train"], "--json", tmp_path / "nodir" / "x.json"),
                          "does not exist")
