"""The CLI and the files it writes: outputs never replace inputs, output errors name the output,
and a run stopped by a signal leaves no temporary file behind (issue 11, defects 5, 7 and 8)."""
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT

PUMA = ROOT / "robots" / "puma560.yaml"
PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(res, *fragments):
    lines = res.output.strip().splitlines()
    return res.exit_code == 2 and len(lines) == 1 and all(f in lines[0] for f in fragments)


def trajectory_csv(path, n_dof=3, n=400):
    t = np.arange(n) * 0.01
    q = np.sin(np.outer(t, np.arange(1, n_dof + 1)))
    tau = np.cos(np.outer(t, np.arange(1, n_dof + 1)))
    joints = range(1, n_dof + 1)
    header = ",".join(["t", *(f"q{k}" for k in joints), *(f"tau{k}" for k in joints)])
    np.savetxt(path, np.column_stack([t, q, tau]), delimiter=",", header=header, comments="")
    return path


@pytest.mark.parametrize("flag", ["--json", "--h5"])
@pytest.mark.parametrize("alias", ["same", "symlink", "hardlink"])
def test_find_never_writes_over_its_description(tmp_path, flag, alias):
    robot = tmp_path / "r.yaml"
    robot.write_bytes(PUMA.read_bytes())
    target = {"same": robot, "symlink": tmp_path / "link.yaml", "hardlink": tmp_path / "hard.yaml"}[alias]
    if alias == "symlink":
        target.symlink_to(robot)
    elif alias == "hardlink":
        os.link(robot, target)
    res = run("find", robot, flag, target)
    assert one_line_error(res, str(target), flag, "input"), res.output
    assert robot.read_bytes() == PUMA.read_bytes()


def test_identify_never_writes_over_its_data(tmp_path):
    data = trajectory_csv(tmp_path / "data.csv")
    before = data.read_bytes()
    for args in (("--json", data), ("--plot", tmp_path / "data.png", "--json", PLANAR)):
        res = run("identify", PLANAR, data, *args)
        assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output
        assert "input" in res.output
    assert data.read_bytes() == before
    # a validation file counts as an input too
    val = trajectory_csv(tmp_path / "val.csv")
    res = run("identify", PLANAR, data, "--validate", val, "--json", val)
    assert one_line_error(res, "val.csv", "input"), res.output


def test_export_never_writes_over_its_description(tmp_path):
    robot = tmp_path / "r.json"                      # a YAML description whose name an export would use
    robot.write_bytes(PUMA.read_bytes())
    res = run("export", robot, "--lang", "c", "--prefix", "r", "--out", tmp_path)
    assert res.exit_code == 2 and "r.json" in res.output and "input" in res.output, res.output
    assert robot.read_bytes() == PUMA.read_bytes()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".baseparam-")]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("flag", ["--json", "--h5"])
def test_a_full_disk_is_blamed_on_the_output(flag):
    res = run("find", PUMA, flag, "/dev/full")
    assert one_line_error(res, "/dev/full"), res.output
    assert "puma560.yaml" not in res.output


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["find", PLANAR], ["--help"]])
def test_a_full_disk_on_standard_output_is_one_line(args):
    """The report itself on a full disk (``baseparam find ROBOT > /dev/full``): click's echo raised OSError
    (ENOSPC) past every handler, a traceback and status 1; now one line, status 2, as a --json file on it — in the
    words of ``--json -`` on a full disk and of a closed pipe (it was 'standard output: No space left on device')."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "baseparam", *map(str, args)], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=600)
    assert proc.returncode == 2, proc.stderr
    import errno
    expected = f"baseparam: standard output: cannot write ({os.strerror(errno.ENOSPC)})"
    assert proc.stderr.strip().splitlines() == [expected], proc.stderr


def test_a_robot_too_large_is_blamed_on_the_description(tmp_path):
    robot = tmp_path / "long.yaml"
    joints = [{"type": "revolute", "alpha": 90, "a": 0.1, "d": 0.1} for _ in range(25)]
    robot.write_text(yaml.safe_dump({"name": "long", "units": {"length": "m", "angle": "deg"}, "joints": joints}))
    out = tmp_path / "gen"
    res = run("export", robot, "--lang", "c", "--out", out, "--max-memory", "1M")
    assert one_line_error(res, "long.yaml", "would need up to about"), res.output
    assert str(out) not in res.output


def test_identify_and_find_h5_take_max_memory(tmp_path):
    """Every command that runs the engine takes --max-memory and refuses before the work, naming the
    robot file and the figure; with room enough, identify runs as before."""
    data = trajectory_csv(tmp_path / "data.csv")
    res = run("identify", PLANAR, data, "--max-memory", "1k")
    assert one_line_error(res, "planar_rrr.yaml", "would need up to about", "1 kB allowed"), res.output
    res = run("find", PLANAR, "--h5", tmp_path / "z.h5", "--max-memory", "1k")
    assert one_line_error(res, "planar_rrr.yaml", "would need up to about"), res.output
    assert not (tmp_path / "z.h5").exists()
    res = run("identify", PLANAR, data, "--max-memory", "1G")
    assert res.exit_code == 0, res.output


# The run under test, with one slow step injected where the HDF5 file is open and h5py already used (its
# import-time code may swallow an exception): the child says so on stdout, then waits for the signal. The
# test then never guesses how long a real projection lasts (a robot "large enough" on a loaded machine was
# over in no time on an idle one).
_SLOW_RUN = """
import sys, time
import baseparam.projection.storage as storage
from baseparam.cli import main

real_store = storage._store

def slow_store(*args, **kwargs):
    print("storing", flush=True)
    time.sleep(3600)                    # only the signal ends this
    return real_store(*args, **kwargs)

storage._store = slow_store
sys.argv = ["baseparam", "find", sys.argv[1], "--h5", sys.argv[2]]
main()
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_mid_run_leaves_no_temporary_file(tmp_path, name):
    number = getattr(signal, name, None)
    if number is None:
        pytest.skip(f"{name} does not exist here")
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_RUN, str(PLANAR), str(out / "z.h5")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"storing\n", proc.communicate()
    assert any(p.name.startswith(".baseparam-") for p in out.iterdir())   # the HDF5 file is being written
    proc.send_signal(number)
    _, err = proc.communicate(timeout=600)      # a hang guard: without the signal the run lasts an hour
    assert proc.returncode == 128 + number, err.decode()
    assert len(err.decode().strip().splitlines()) == 1
    assert list(out.iterdir()) == []                  # neither a temporary nor a half-written z.h5


def test_export_replaces_its_files_as_a_set(tmp_path, monkeypatch):
    """A rename failing mid-way leaves the old set whole (issue 11, defect 6), in one line naming one file."""
    import baseparam as bp
    import baseparam._atomic as atomic

    base = bp.find_base_parameters(bp.load_robot(PUMA))
    old = bp.export(base, "c", what=("regressor",), prefix="arm", out_dir=str(tmp_path))
    before = {p: open(p).read() for p in old.files}
    real_replace, calls = os.replace, []

    def failing_replace(src, dst):
        calls.append(dst)
        if str(dst).endswith("arm.json") and not str(src).endswith(".old"):   # placing the new NAME.json
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", failing_replace)
    with pytest.raises(bp.StorageError) as info:
        bp.export(base, "c", prefix="arm", out_dir=str(tmp_path))       # all three functions: new texts
    monkeypatch.undo()
    message = str(info.value)
    assert "\n" not in message and message.count(str(tmp_path)) == 1 and "arm.json" in message
    assert {p: open(p).read() for p in old.files} == before               # the old .h, .c and .json, whole
    assert sorted(os.listdir(tmp_path)) == ["arm.c", "arm.h", "arm.json"]  # nothing temporary left
    assert any(str(c).endswith("arm.c") for c in calls)                   # the .c had been replaced already
    # and without the failure the new set is written whole
    new = bp.export(base, "c", prefix="arm", out_dir=str(tmp_path))
    assert all(open(p).read() != before[p] for p in new.files)


@pytest.mark.parametrize("cutoff", ["1e-10", "1e-300", "1e-320"])
def test_a_cutoff_slower_than_the_log_is_bad_input(tmp_path, cutoff):
    """A cut-off below one period per segment is refused as input (it made the filter design singular:
    an internal error, exit 1)."""
    data = trajectory_csv(tmp_path / "data.csv")
    res = run("identify", PLANAR, data, "--cutoff", cutoff)
    assert one_line_error(res, "data.csv", "cut-off"), res.output
