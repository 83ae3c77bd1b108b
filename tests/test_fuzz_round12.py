"""Regressions of the command-line fuzzing of issue 28's twelfth round (every command's options in random
combinations of two to five, valid and odd values, on the robots of robots/, example-robot-data URDFs and tiny
logs; each run in a forked process with its own working folder, HOME and TMPDIR, all watched): each case below
failed before its fix. The fuzzer itself was a throwaway; these are the deterministic cases it found."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _files(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, ds, fs in os.walk(folder) for f in ds + fs)


def test_a_plot_writes_nothing_in_home_nor_leaves_anything_in_tmpdir(tmp_path):
    """`identify … --plot out.png` (or `excite --plot`, even a run refused later): matplotlib, imported to check
    the figure's format, wrote its font list to $HOME/.cache/matplotlib and created $HOME/.config/matplotlib,
    files outside the named outputs. Its configuration folder is a temporary one now, removed at exit."""
    home, tmp, cwd = tmp_path / "home", tmp_path / "tmp", tmp_path / "cwd"
    for folder in (home, tmp, cwd):
        folder.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    env.update(HOME=str(home), TMPDIR=str(tmp), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "baseparam", "identify", str(PLANAR), "missing.csv",
                           "--plot", "out.png"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "missing.csv" in proc.stderr, proc.stderr
    assert _files(home) == [] and _files(tmp) == [] and _files(cwd) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_a_plot_run_stopped_by_a_signal_leaves_no_matplotlib_folder_in_tmpdir(tmp_path, signum):
    """A --plot run stopped by Ctrl-C or SIGTERM ends with os._exit, past atexit: the temporary matplotlib folder
    and its font list were left in $TMPDIR. The signal is sent once matplotlib has written its font list there."""
    import signal
    import time
    home, tmp, cwd = tmp_path / "home", tmp_path / "tmp", tmp_path / "cwd"
    for folder in (home, tmp, cwd):
        folder.mkdir()
    limits = tmp_path / "limits.yaml"
    limits.write_text("joints:\n  - {q: [-2, 2.5], qd: 1.5}\n  - {q: [-1.5, 1.5], qd: 2}\n"
                      "  - {q: [-2.5, 2.5], qd: 2.5}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    env.update(HOME=str(home), TMPDIR=str(tmp), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "baseparam", "excite", str(PLANAR), "--limits", str(limits),
                             "--starts", "400", "--plot", "out.png", "--out", "out.csv"], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        while proc.poll() is None and not list(tmp.glob(".baseparam-matplotlib-*/fontlist*")):
            time.sleep(0.02)
        proc.send_signal(getattr(signal, signum))
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 128 + getattr(signal, signum) and err.count("\n") == 1, err
    assert not list(tmp.glob(".baseparam-matplotlib-*")), _files(tmp)


@pytest.mark.parametrize("args, said", [
    (["describe", "puma560.yaml", "--friction-model", "smooth:0.1", "--yaml", "nodir/out.yaml"], "nodir/out.yaml"),
    (["equations", "planar_rrr.yaml", "--friction-model", "sign", "--max-terms", "0"], "--max-terms"),
])
def test_a_refused_run_says_one_line_not_its_warnings_too(tmp_path, monkeypatch, args, said):
    """A run refused after a warning (a friction model given to a robot that declares no friction, then an output
    in a missing folder, or a bad --max-terms) said two lines, the warning and the refusal (docs/cli.md: exit
    status 2, one line). The warnings of a run are said when it succeeds, and then as before: once each."""
    from click.testing import CliRunner

    from baseparam.cli import main
    monkeypatch.chdir(tmp_path)
    args = [args[0], str(ROOT / "robots" / args[1]), *args[2:]]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("baseparam: ") and said in refused.stderr, refused.stderr
    # describe takes a friction model only with --yaml (its table shows no drive terms; round 14)
    fine = CliRunner().invoke(main, args[:4] + (["--yaml", "out.yaml"] if args[0] == "describe" else []))
    assert fine.exit_code == 0, fine.output
    assert fine.stderr.splitlines() == [line for line in fine.stderr.splitlines() if "warning" in line]
    assert len(fine.stderr.splitlines()) == 1 and "a friction model is given" in fine.stderr, fine.stderr


def test_a_yaml_of_urdf_geometry_reads_rounded_rpy_as_the_urdf_reader_does(tmp_path):
    """`payload so100.urdf LOGS --robot-out out.yaml` wrote the robot as a ``convention: urdf`` YAML whose origins
    keep the URDF's rounded angles (rpy 1.57079, 6.3e-06 rad from 90°); reading it back refused them ("write pi/2
    for 90°"), where the URDF reader keeps them as written. A written robot reads back, the same robot."""
    import numpy as np

    import baseparam as bp
    from baseparam.model.robot import robot_to_yaml
    inertial = ('<inertial><origin xyz="0.1 0.02 0"/><mass value="1"/>'
                '<inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial>')
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(f'<robot name="arm"><link name="base"/><link name="a">{inertial}</link><link name="b">{inertial}'
                    '</link><joint name="j1" type="revolute"><parent link="base"/><child link="a"/>'
                    '<origin xyz="0 0 0.1" rpy="1.57079 0 0"/><axis xyz="0 0 1"/></joint>'
                    '<joint name="j2" type="revolute"><parent link="a"/><child link="b"/>'
                    '<origin xyz="0.3 0 0" rpy="0 0 3.14158"/><axis xyz="0 0 1"/></joint></robot>')
    robot = bp.load_robot(urdf)
    yaml = tmp_path / "arm.yaml"
    yaml.write_text(robot_to_yaml(robot))          # what payload --robot-out OUT.yaml writes, payload aside
    back = bp.load_robot(yaml)
    q = np.random.default_rng(1).uniform(-1, 1, (4, 2))
    np.testing.assert_allclose(bp.inverse_dynamics(bp.Model(back), q, q, q),
                               bp.inverse_dynamics(bp.Model(robot), q, q, q), rtol=1e-12, atol=1e-14)
