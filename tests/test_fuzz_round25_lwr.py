"""Round 25, helper lwr (issue 28): what the writes left outside their named outputs (a folder made beside the
output, a read-only file replaced, an old version left under a temporary name, a current folder's matplotlibrc
read), each with a test that fails before its fix."""
import os

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT, run_in_process

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


# --- 2. `export --out x.json/..` made a folder x.json and wrote beside it ---

@pytest.mark.parametrize("out", ["x.json/..", "x.json/../sub", "a_file/.."])
def test_export_refuses_a_dotdot_after_a_name_that_is_no_folder(tmp_path, out):
    """os.makedirs('x.json/..') made the folder x.json, then the files went into the current folder: a folder
    outside the named output. Refused now, as a file name with such a '..' is, and nothing is made."""
    (tmp_path / "a_file").write_text("mine\n")
    result = run_in_process("export", PLANAR, "--lang", "c", "--out", out, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and out in result.stderr and "'..'" in result.stderr, result.stderr
    assert sorted(os.listdir(tmp_path)) == ["a_file"]
    with pytest.raises(bp.ExportError, match="out_dir"):
        bp.export(bp.find_base_parameters(bp.load_robot(PLANAR)), "c", out_dir=str(tmp_path / out))
    assert sorted(os.listdir(tmp_path)) == ["a_file"]


@pytest.mark.parametrize("out", [".", "new/.", "made/../made2"])
def test_export_still_takes_folders_spelled_with_dots_that_resolve(tmp_path, out):
    """'.', 'new/.' and a '..' after a folder that exists are folders as the system reads them: still written."""
    (tmp_path / "made").mkdir()
    result = run_in_process("export", PLANAR, "--lang", "c", "--out", out, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / out / "baseparam.json").is_file()


# --- 5. a read-only output file was replaced silently ---

def _read_only_file(path, text="mine\n"):
    path.write_text(text)
    path.chmod(0o444)
    return path


def test_the_command_line_refuses_a_read_only_output_before_the_work(tmp_path):
    """`find R --json ro.json` with ro.json 0444: renamed over silently (a rename asks the folder's permission, not
    the file's). Refused now as coreutils' cp refuses it, one line, exit 2, the file unchanged."""
    out = _read_only_file(tmp_path / "ro.json")
    result = run_in_process("find", PLANAR, "--json", out)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"baseparam: {out}: is read-only; remove it or choose another name\n"
    assert out.read_text() == "mine\n" and sorted(os.listdir(tmp_path)) == ["ro.json"]


def test_every_library_writer_refuses_a_read_only_output(tmp_path):
    """The library's writers (a text, bytes, a set of files, a trajectory) refuse it too; nothing else is written."""
    from baseparam import _atomic

    out = _read_only_file(tmp_path / "ro.txt")
    with pytest.raises(bp.StorageError, match="is read-only; remove it or choose another name"):
        _atomic.write_text(out, "new\n")
    with pytest.raises(bp.StorageError, match="is read-only"):
        _atomic.write_bytes(out, b"new\n")
    with pytest.raises(bp.StorageError, match="is read-only"):
        _atomic.write_texts({str(tmp_path / "a.txt"): "a\n", str(out): "new\n"})
    log = _read_only_file(tmp_path / "log.csv")
    with pytest.raises(bp.StorageError, match="is read-only"):
        bp.write_trajectory(bp.Trajectory(np.arange(10) * 0.1, np.zeros((10, 1))), log)
    assert out.read_text() == "mine\n" and log.read_text() == "mine\n"
    assert sorted(os.listdir(tmp_path)) == ["log.csv", "ro.txt"]


@pytest.mark.parametrize("lang", ["c", "python"])
def test_export_refuses_a_read_only_file_of_its_set_before_the_projection(tmp_path, monkeypatch, lang):
    """export's files are named by --prefix and --lang before any work: a read-only NAME.json in --out was refused
    only by the write, after the projection (minutes for a large robot). Refused first now, nothing written."""
    from baseparam.projection import base_set

    def no_projection(*args, **kwargs):
        raise AssertionError("projected before the refusal")

    monkeypatch.setattr(base_set, "find_base_parameters", no_projection)
    _read_only_file(tmp_path / "arm.json")
    result = run_in_process("export", PLANAR, "--lang", lang, "--prefix", "arm", "--out", tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "arm.json: is read-only" in result.stderr and os.listdir(tmp_path) == ["arm.json"]


def test_a_writable_output_keeps_its_permissions_when_replaced(tmp_path):
    """Unchanged for a file that may be written: replaced, its mode kept."""
    from baseparam import _atomic

    out = tmp_path / "rw.txt"
    out.write_text("old\n")
    out.chmod(0o640)
    _atomic.write_text(out, "new\n")
    assert out.read_text() == "new\n" and (out.stat().st_mode & 0o777) == 0o640


# --- 1. the command line read ./matplotlibrc, a file outside its named inputs ---

def _planar_log(folder):
    """A log of the planar arm with torques, as identify reads it."""
    from conftest import planar_arm

    t = np.arange(400) * 0.01
    w = np.array([1.0, 2.0, 3.0])
    q, qd, qdd = np.sin(np.outer(t, w) + 1), w * np.cos(np.outer(t, w) + 1), -w ** 2 * np.sin(np.outer(t, w) + 1)
    tau = bp.inverse_dynamics(bp.Model(planar_arm()), q, qd, qdd)
    bp.write_trajectory(bp.Trajectory(t, q, tau=tau), folder / "log.csv")
    return folder / "log.csv"


def _plot_in_a_process(folder, env):
    """`identify … --plot f.png` in a process of its own (matplotlib imported fresh), run from ``folder``: its
    status, its stderr lines but the fit's own warning, and the figure's top-left pixel (RGB)."""
    import subprocess
    import sys

    import matplotlib.image

    _planar_log(folder)
    env = {**{k: v for k, v in os.environ.items() if k not in ("MATPLOTLIBRC", "MPLCONFIGDIR")}, **env,
           "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "baseparam", "identify", str(PLANAR), "log.csv", "--plot", "f.png"],
                         cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    lines = [line for line in run.stderr.splitlines() if "poorly identified" not in line]
    pixel = matplotlib.image.imread(folder / "f.png")[0, 0, :3] if run.returncode == 0 else None
    return run.returncode, lines, pixel


def test_plotting_ignores_the_current_folders_matplotlibrc(tmp_path):
    """A matplotlibrc in the folder a run starts from was read (matplotlib reads ./matplotlibrc first): the figure
    depended on a file outside the named inputs, and a bad value there was matplotlib's raw line on stderr ("Bad
    value in file 'matplotlibrc', …"). Now the import runs in the run's empty private folder: neither is seen."""
    (tmp_path / "matplotlibrc").write_text("lines.linewidth: abc\nfigure.facecolor: red\n")
    status, lines, pixel = _plot_in_a_process(tmp_path, {})
    assert status == 0 and lines == [], lines
    assert tuple(pixel) == (1.0, 1.0, 1.0)                  # white: matplotlib's default, not the file's red


def test_plotting_honours_matplotlibrc_named_by_the_user_with_one_line_for_a_bad_value(tmp_path):
    """$MATPLOTLIBRC is the user's explicit choice (relative: from the run's folder): honoured (a red figure), and a
    bad line there is one warning line naming the file, the key and the problem."""
    (tmp_path / "mine.rc").write_text("lines.linewidth: abc\nfigure.facecolor: red\n")
    status, lines, pixel = _plot_in_a_process(tmp_path, {"MATPLOTLIBRC": "mine.rc"})
    assert status == 0 and tuple(pixel) == (1.0, 0.0, 0.0)
    assert len(lines) == 1 and lines[0].startswith("baseparam: warning: matplotlib settings: Bad value in file")
    assert "mine.rc" in lines[0] and "lines.linewidth" in lines[0] and "that line ignored" in lines[0]


def test_a_matplotlibrc_that_is_not_text_is_one_line(tmp_path):
    """Not UTF-8: matplotlib's import raised UnicodeDecodeError (a traceback); now status 2 and one line naming it."""
    (tmp_path / "bad.rc").write_bytes(b"\xff\xfe lines.linewidth: 2\n")
    status, lines, _pixel = _plot_in_a_process(tmp_path, {"MATPLOTLIBRC": str(tmp_path / "bad.rc")})
    assert status == 2 and len(lines) == 1 and "bad.rc" in lines[0] and "not UTF-8" in lines[0], lines


# --- 3. a SIGKILL between moving the old output aside and placing the new one left no output ---

def _killed_while_placing(tmp_path, out, without_links):
    """A child writes ``out`` ('new') and is killed by SIGKILL as it renames the new file into place (its
    os.replace of the .tmp); with ``without_links``, no hard link can be made in it (a file system without them)."""
    import signal

    from baseparam import _atomic

    pid = os.fork()
    if pid == 0:                                        # the child: ends by SIGKILL, whatever happens
        try:
            real_replace = os.replace

            def replace(source, target):
                if os.fspath(source).endswith(".tmp"):
                    os.kill(os.getpid(), signal.SIGKILL)
                real_replace(source, target)

            def no_link(*args, **kwargs):
                raise OSError(1, "Operation not permitted")

            _atomic.os.replace = replace
            if without_links:
                _atomic.os.link = no_link
            with _atomic.outputs_together():
                _atomic.write_text(out, "new\n")
        finally:
            os.kill(os.getpid(), signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork: POSIX")
def test_a_run_killed_while_placing_its_output_leaves_the_old_one_in_place(tmp_path):
    """The old output was renamed aside (`.baseparam-PID-….old`), then the new one renamed in: a SIGKILL between the
    two left no output at all, only the hidden old one, removed 10 minutes later. The old file is now kept by a hard
    link and the new one's rename is the one change: killed there, the output is the old one, whole."""
    out = tmp_path / "o.json"
    out.write_text("old\n")
    _killed_while_placing(tmp_path, out, without_links=False)
    assert out.read_text() == "old\n"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork: POSIX")
@pytest.mark.filterwarnings("ignore:.*a temporary file of an earlier run")     # the killed run's .tmp, said too
def test_an_old_output_moved_aside_by_a_killed_run_is_put_back_by_the_next(tmp_path):
    """Where no hard link can be made the old file is still moved aside, now under a name that says its output
    (`.baseparam-PID-….o.json.old`): the next run writing into the folder puts it back when o.json is missing (it
    removed it as a killed run's leftover after 10 minutes), with one warning line."""
    from baseparam import _atomic

    out = tmp_path / "o.json"
    out.write_text("old\n")
    _killed_while_placing(tmp_path, out, without_links=True)
    assert not out.exists() and [name for name in os.listdir(tmp_path) if name.endswith(".o.json.old")]
    with pytest.warns(UserWarning, match="o.json: was missing, its old version put back"):
        _atomic.write_text(tmp_path / "other.json", "{}\n")
    assert out.read_text() == "old\n"
    assert sorted(name for name in os.listdir(tmp_path) if not name.endswith(".tmp")) == ["o.json", "other.json"]


def test_a_placed_output_is_never_renamed_away(tmp_path, monkeypatch):
    """Every rename of a set's placing: the new file over the output, never the output away from its name."""
    from baseparam import _atomic

    out = tmp_path / "o.json"
    out.write_text("old\n")
    real_replace, seen = os.replace, []

    def replace(source, target):
        seen.append((os.path.basename(source), os.path.basename(target), out.exists()))
        real_replace(source, target)

    monkeypatch.setattr(_atomic.os, "replace", replace)
    with _atomic.outputs_together():
        _atomic.write_text(out, "new\n")
    assert [(target, there) for _source, target, there in seen] == [("o.json", True)]
    assert out.read_text() == "new\n" and os.listdir(tmp_path) == ["o.json"]


# --- 7. an NPZ log was encoded in memory, a second copy of the log, before it was written ---

def _log(samples):
    rng = np.random.default_rng(0)
    return bp.Trajectory(np.arange(samples) * 1e-3, rng.standard_normal((samples, 7)),
                         qd=rng.standard_normal((samples, 7)), tau=rng.standard_normal((samples, 7)))


def test_an_npz_log_is_written_without_a_copy_in_memory(tmp_path):
    """write_trajectory encoded the NPZ into a BytesIO, then wrote it: at 10⁶ × 7 the peak went 282 → 494 MB. It now
    streams np.savez into the temporary file: the peak of Python's and numpy's allocations stays below half the file."""
    import tracemalloc

    log = _log(100_000)
    tracemalloc.start()
    try:
        bp.write_trajectory(log, tmp_path / "log.npz")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = (tmp_path / "log.npz").stat().st_size
    assert peak < size / 2, (peak, size)
    back = bp.read_trajectory(tmp_path / "log.npz")
    assert np.array_equal(back.q, log.q) and np.array_equal(back.tau, log.tau)


@pytest.mark.parametrize("spare", [-1, 0])
def test_an_npz_logs_size_is_checked_exactly_before_it_is_written(tmp_path, monkeypatch, spare):
    """Its size, known from the arrays without encoding them, is the file's to the byte: one byte less free space
    than the file is refused with the figures and nothing written; exactly enough is written."""
    from baseparam import _output_names

    log = _log(300)
    bp.write_trajectory(log, tmp_path / "first.npz")
    size = (tmp_path / "first.npz").stat().st_size
    monkeypatch.setattr(_output_names, "free_space", lambda path: size + spare)
    out = tmp_path / "log.npz"
    if spare < 0:
        with pytest.raises(bp.StorageError, match="to write, .* free on its file system"):
            bp.write_trajectory(log, out)
        assert not out.exists() and sorted(os.listdir(tmp_path)) == ["first.npz"]
    else:
        bp.write_trajectory(log, out)
        assert out.stat().st_size == size


# --- 4. a killed compile's scratch folder in the kernel cache was removed only by a later compile ---

def _a_dead_process_id():
    """A process id no process has (counted down from a high one)."""
    pid = 4_000_000
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except OSError:
            pass
        pid -= 1


def test_a_run_that_only_loads_cached_kernels_removes_a_killed_compiles_scratch(tmp_path, monkeypatch):
    """A compile killed by SIGKILL leaves `tmp-kernel-PID-HOST-…` (kernel.c) in the cache; only a later *compile*
    removed it, and runs that load the cached kernels never compile. The first load of each process now removes
    the stale ones (one listing of the cache); a live run's and a young one stay."""
    import ctypes
    import time

    from baseparam import _leftovers
    from baseparam.dynamics import _native
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    cache = tmp_path / "cache"
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(cache))
    source = f"double thrice(double x) {{ return 3.0 * x; }}  /* {tmp_path.name} */\n"
    functions = {"thrice": (ctypes.c_double, [ctypes.c_double])}
    monkeypatch.setattr(_native, "_LOADED", {})
    assert _native.load(source, functions).thrice(1.0) == 3.0             # compiled into the cache
    host, dead = _leftovers.host_name(), _a_dead_process_id()
    names = {"stale": f"tmp-kernel-{dead}-{host}-abcdefgh", "young": f"tmp-kernel-{dead}-{host}-ijklmnop",
             "live": f"tmp-kernel-{os.getpid()}-{host}-qrstuvwx"}
    for which, name in names.items():
        (cache / name).mkdir()
        (cache / name / "kernel.c").write_text("int f(void);\n")
        if which != "young":
            old = time.time() - 2 * _leftovers.STALE_SECONDS
            os.utime(cache / name, (old, old))
    monkeypatch.setattr(_native, "_LOADED", {})                          # a new process: loads, compiles nothing
    monkeypatch.setattr(_native, "_SWEPT", set(), raising=False)
    assert _native.load(source, functions).thrice(2.0) == 6.0
    assert sorted(p.name for p in cache.iterdir() if p.is_dir()) == sorted([names["young"], names["live"]])


# --- 6. `payload --robot-out robot.xml` was refused: MJCF now, as identify --mjcf writes it ---

def _payload_run(tmp_path, *outs):
    from test_fuzz_round24_fzcli import UR10E, _payload_logs

    logs = _payload_logs(tmp_path)
    args = ["payload", UR10E, logs["loaded"], "--unloaded", logs["unloaded"]]
    for out in outs:
        args += ["--robot-out", tmp_path / out]
    return run_in_process(*args)


def test_payload_writes_the_robot_with_its_payload_as_mjcf_that_mujoco_reads_as_ours(tmp_path):
    """`payload … --robot-out robot.xml` was refused ('expected a .yaml, .yml or .urdf file name'). It writes
    MuJoCo's MJCF now: MuJoCo's loader reads it with the bodies of the YAML written by the same command (the last
    one the sum of the link and the payload), and its inverse dynamics and mass matrix are ours for that YAML."""
    mujoco = pytest.importorskip("mujoco")
    first = _payload_run(tmp_path, "robot.xml")
    assert first.returncode == 0, first.stderr
    again = _payload_run(tmp_path, "robot.yaml")
    assert again.returncode == 0, again.stderr
    import dataclasses

    robot = bp.load_robot(tmp_path / "robot.yaml")      # its drives declared without values: 0 in the MJCF
    robot = dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, friction=(False,) * 3, rotor_inertia=False)
                                                    for j in robot.joints))
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "robot.xml"))
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    data = mujoco.MjData(model)
    np.testing.assert_allclose(model.body_mass[1:], [j.inertia.mass for j in robot.joints], rtol=1e-12)
    ours = bp.Model(robot)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, qd, qdd = (rng.uniform(-2, 2, robot.n_dof) for _ in range(3))
        data.qpos[:], data.qvel[:], data.qacc[:] = q, qd, qdd
        mujoco.mj_inverse(model, data)
        tau = bp.inverse_dynamics(ours, q[None], qd[None], qdd[None])[0]
        np.testing.assert_allclose(data.qfrc_inverse, tau, rtol=0, atol=1e-9 * np.abs(tau).max())
        full = np.zeros((model.nv, model.nv))
        if hasattr(data, "qM"):                 # MuJoCo 3: the sparse matrix given; 4: the data
            mujoco.mj_fullM(model, full, data.qM)
        else:
            mujoco.mj_fullM(model, data, full)
        M = bp.mass_matrix(ours, q[None])[0]
        np.testing.assert_allclose(full, M, rtol=0, atol=1e-10 * np.abs(M).max())


def test_payload_mjcf_of_a_robot_mujoco_cannot_hold_is_refused_before_the_fit(tmp_path):
    """A link before the last without a body cannot be a moving MuJoCo body: refused before the logs are read (the
    log here is not even one), one line naming the output and the link, nothing written."""
    robot = tmp_path / "arm.yaml"
    robot.write_text("units: {length: m, angle: rad}\njoints:\n"
                     "  - {type: revolute, alpha: 1.5707963267948966, a: 0, d: 0.3}\n"
                     "  - {type: revolute, alpha: 0, a: 0.4, d: 0, inertia: {mass: 2, com: [0, 0, 0],"
                     " inertia: [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]]}}\n")
    (tmp_path / "log.csv").write_text("not a log\n")
    result = run_in_process("payload", robot, tmp_path / "log.csv", "--robot-out", tmp_path / "robot.xml")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "robot.xml" in result.stderr and "no MJCF" in result.stderr and "link1" in result.stderr, result.stderr
    assert not (tmp_path / "robot.xml").exists()


def test_payload_mjcf_of_a_urdf_robot_keeps_its_links_and_the_drives_given(tmp_path):
    """From a URDF robot (links, geometry) with friction and rotor inertias given: MuJoCo's inverse dynamics of the
    MJCF (constraints off: Coulomb friction is MuJoCo's dry-friction constraint) is ours for the robot with the
    payload attached, viscous friction and rotor inertias included."""
    import dataclasses
    import warnings

    mujoco = pytest.importorskip("mujoco")
    from test_payload_attach import _result
    from test_urdf_update import EXPORTED

    source = tmp_path / "exported_arm.urdf"
    source.write_text(EXPORTED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(source, tip="tool", friction=True, rotor_inertia=True, exact_angles=False)
    robot = dataclasses.replace(robot, joints=tuple(
        dataclasses.replace(j, friction=(0.3 + 0.1 * k, 0.5, False), rotor_inertia=0.02 * (k + 1))
        for k, j in enumerate(robot.joints)))
    result = _result(robot.n_dof)
    out = tmp_path / "arm.xml"
    out.write_text(result.robot_text(robot, "mjcf"))
    model = mujoco.MjModel.from_xml_path(str(out))
    assert [model.body(k).name for k in range(1, model.nbody)] == ["arm", "forearm", "wrist_link"]
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    data = mujoco.MjData(model)
    attached = result.attach(robot)
    no_coulomb = dataclasses.replace(attached, joints=tuple(
        dataclasses.replace(j, friction=(j.friction[0], False, False)) for j in attached.joints))
    names = [j.name for j in robot.joints]
    address = [model.joint(name).dofadr[0] for name in names]
    rng = np.random.default_rng(4)
    for _ in range(4):
        q, qd, qdd = (rng.uniform(-2, 2, robot.n_dof) for _ in range(3))
        data.qpos[address], data.qvel[address], data.qacc[address] = q, qd, qdd
        mujoco.mj_inverse(model, data)
        tau = bp.inverse_dynamics(bp.Model(no_coulomb), q[None], qd[None], qdd[None])[0]
        np.testing.assert_allclose(data.qfrc_inverse[address], tau, rtol=0, atol=1e-9 * np.abs(tau).max())


def test_an_output_whose_moved_aside_name_is_too_long_is_still_replaced(tmp_path, monkeypatch):
    """Without hard links, the old file's name carries the output's (`.baseparam-PID-RANDOM.NAME.old`): a name the
    file system finds too long falls back to the plain `.old` name rather than failing the write."""
    import errno

    from baseparam import _atomic

    out = tmp_path / ("o" * 200 + ".json")
    out.write_text("old\n")
    real_replace = os.replace

    def no_link(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    def short_names(source, target):
        if len(os.path.basename(target)) > 220:
            raise OSError(errno.ENAMETOOLONG, "File name too long")
        real_replace(source, target)

    monkeypatch.setattr(_atomic.os, "link", no_link)
    monkeypatch.setattr(_atomic.os, "replace", short_names)
    with _atomic.outputs_together():
        _atomic.write_text(out, "new\n")
    assert out.read_text() == "new\n" and os.listdir(tmp_path) == [out.name]
