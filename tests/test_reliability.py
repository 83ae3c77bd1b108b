"""Issue 28 (reliability, round two): each test reproduces one finding of the second fuzzing round —
data read from outside the named file, writes through links, non-strict JSON, silent regroupings,
NaN returned, unbounded sizes — and checks the library now refuses or warns in one line."""
import warnings
import zipfile

import h5py
import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import DataError, StorageError
from conftest import ROOT

PUMA = ROOT / "robots" / "puma560.yaml"


def trajectory_arrays(S=30, n=3):
    rng = np.random.default_rng(1)
    return np.arange(S) * 0.01, rng.uniform(-1, 1, (S, n)), rng.uniform(-1, 1, (S, n))


# -- 1. nothing read from outside the named input ------------------------------------------------------------------
def hdf5_outside(tmp_path, kind, name="q", shape=(30, 3)):
    """A file whose dataset ``name`` is stored outside it: a virtual dataset whose source is missing, raw
    data in another file (external storage), or an external link."""
    path = tmp_path / f"{kind}.h5"
    other = tmp_path / "other.bin"
    other.write_bytes(np.arange(np.prod(shape), dtype="f8").tobytes())
    with h5py.File(path, "w") as f:
        if kind == "virtual":
            layout = h5py.VirtualLayout(shape=shape, dtype="f8")
            layout[:] = h5py.VirtualSource(str(tmp_path / "missing.h5"), "x", shape=shape)
            f.create_virtual_dataset(name, layout, fillvalue=0)
        elif kind == "external":
            f.create_dataset(name, shape=shape, dtype="f8", external=[(str(other), 0, other.stat().st_size)])
        else:
            with h5py.File(tmp_path / "src.h5", "w") as g:
                g[name] = np.ones(shape)
            f[name] = h5py.ExternalLink(str(tmp_path / "src.h5"), name)
    return path


@pytest.mark.parametrize("kind", ["virtual", "external", "link"])
def test_trajectory_hdf5_stored_outside_the_file_is_refused(tmp_path, kind):
    t, _, tau = trajectory_arrays()
    path = hdf5_outside(tmp_path, kind)
    with h5py.File(path, "a") as f:
        f["t"], f["tau"] = t, tau
    with pytest.raises(DataError, match=r"q.*(outside|virtual|external)") as info:
        bp.read_trajectory(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["virtual", "external", "link"])
def test_read_h5_stored_outside_the_file_is_refused(tmp_path, kind):
    robot = bp.load_robot(PUMA)
    good = tmp_path / "z.h5"
    bp.find_and_store(robot, str(good))
    Y = bp.read_h5(good)["Y"]
    path = hdf5_outside(tmp_path, kind, name="Y2", shape=Y.shape)
    with h5py.File(good, "r") as src, h5py.File(path, "a") as f:
        for key in src:
            src.copy(src[key], f, key)
        f.attrs.update(src.attrs)
        del f["Y"]
        f.move("Y2", "Y")
    with pytest.raises(StorageError, match=r"Y.*(outside|virtual|external)"):
        bp.read_h5(path)


@pytest.fixture(scope="module")
def puma_h5(tmp_path_factory):
    path = tmp_path_factory.mktemp("z") / "z.h5"
    bp.find_and_store(bp.load_robot(PUMA), str(path))
    return path.read_bytes()


def damage_nan_y(f):
    f["Y"][0, 0] = np.nan


def damage_index(f):
    f["Z/indices"][0] = 10 ** 6


def damage_indptr(f):
    del f["Z/indptr"]
    f["Z/indptr"] = np.array([0, 5, 2])


def damage_y_shape(f):
    del f["Y"]
    f["Y"] = np.zeros((3, 2))


def damage_shape_attr(f):
    f["Z"].attrs["shape"] = "wrong"


def damage_columns(f):
    del f["Z/columns"]
    f["Z/columns"] = np.zeros(3)


def damage_pivots(f):
    f["pivots"][0] = -4


def damage_missing(f):
    del f["Z/data"]


@pytest.mark.parametrize("damage", [damage_nan_y, damage_index, damage_indptr, damage_y_shape, damage_shape_attr,
                                    damage_columns, damage_pivots, damage_missing])
def test_read_h5_damaged_is_one_storage_error(tmp_path, puma_h5, damage):
    path = tmp_path / "z.h5"
    path.write_bytes(puma_h5)
    with h5py.File(path, "a") as f:
        damage(f)
    with pytest.raises(StorageError) as info:
        bp.read_h5(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_npz_with_duplicate_members_is_refused(tmp_path):
    t, q, tau = trajectory_arrays()
    path = tmp_path / "dup.npz"
    with zipfile.ZipFile(path, "w") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")         # zipfile's "Duplicate name" is the point
        for name, arr in (("t", t), ("q", q), ("tau", tau), ("q", -q)):
            with z.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array(member, arr)
    with pytest.raises(DataError, match=r"q.*(twice|duplicate|more than once)"):
        bp.read_trajectory(path)



# -- 1. no write through a link baseparam did not create ---------------------------------------------------------
def test_export_refuses_a_symlink_named_like_its_output(tmp_path):
    base = bp.find_base_parameters(bp.load_robot(PUMA))
    victim = tmp_path / "robot.yaml"
    victim.write_bytes(PUMA.read_bytes())
    out = tmp_path / "gen"
    out.mkdir()
    (out / "r.json").symlink_to(victim)
    with pytest.raises(StorageError, match=r"r\.json.*symbolic link"):
        bp.export(base, "c", prefix="r", out_dir=out)
    assert victim.read_bytes() == PUMA.read_bytes() and (out / "r.json").is_symlink()
    assert sorted(p.name for p in out.iterdir()) == ["r.json"]      # none of the set written


# -- 1. strict JSON: NaN and inf as null -----------------------------------------------------------------------------
def test_json_files_are_strict(tmp_path):
    """excite --json wrote a bare Infinity when cond(W_b) was infinite; every JSON writer now goes
    through one function that writes null instead."""
    import json

    from baseparam.cli import _write_json
    from baseparam.excitation.files import write_json

    doc = {"condition_number": float("inf"), "values": [np.float64("nan"), 1.5, -np.inf], "array": np.array([np.inf]),
           "nested": ({"x": np.float32(2.0)},)}
    expected = {"condition_number": None, "values": [None, 1.5, None], "array": [None], "nested": [{"x": 2.0}]}
    for write in (write_json, _write_json):
        path = tmp_path / f"{write.__name__}.json"
        write(path, doc)
        text = path.read_text()
        assert json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict {c}")) == expected


# -- 1. structure that a tiny perturbation changes is not changed silently ---------------------------------------
@pytest.mark.parametrize("change,field", [
    (("alpha: -90, a: 0, d: 0}", f"alpha: {float(-90 - np.degrees(1e-9))!r}, a: 0, d: 0}}"), r"joints\[1\]\.alpha"),
    (("gravity: [0, 0, -9.81]", "gravity: [1e-7, 0, -9.81]"), r"gravity\[1\] = 1e-07")])
def test_regroupings_changed_by_a_tiny_perturbation_warn(change, field):
    """Joint 1's twist 1e-9 rad off −90° (degree file) moved YY1, YZ1 into XX1's regrouping, and gravity
    1e-8 of |g| off vertical turned rank 36 into 38, without a word (joints 2–6 warned)."""
    text = PUMA.read_text()
    assert change[0] in text
    robot = bp.parse_robot(text.replace(change[0], change[1]), "near.yaml")
    with pytest.warns(bp.AccuracyWarning, match=field) as record:
        base = bp.find_base_parameters(robot)
    assert "WARNING" in base.note and len(record) == 1


# -- 1. no NaN returned ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["ltdl", "sweep"])
def test_velocities_from_momenta_refuses_a_singular_mass_matrix(solver):
    """forward_dynamics refused a massless leaf (M(q) singular); velocities_from_momenta returned NaN."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    layout = bp.ColumnLayout(robot)
    p = np.random.default_rng(2).uniform(0.1, 1.0, layout.n_standard)
    p[layout.link_columns[2]] = 0.0                     # link 3: a leaf without mass or inertia
    model = bp.Model(robot, p)
    q = np.random.default_rng(3).uniform(-1, 1, (4, 3))
    for args in ((q, np.ones((4, 3))), (q[0], np.ones(3))):
        with pytest.raises(bp.ArgumentError, match=r"M\(q\) is singular"):
            bp.velocities_from_momenta(model, *args, solver=solver)


# -- 2. sizes bounded before allocating, arithmetic refused in one line -----------------------------------------------
def small_csv(path, header):
    t, q, tau = trajectory_arrays(S=20, n=1)
    rows = "\n".join(f"{a:.2f},{b:.4f},{b:.4f},{c:.4f}" for a, b, c in zip(t, q[:, 0], tau[:, 0]))
    path.write_text(header + "\n" + rows + "\n")
    return path


@pytest.mark.parametrize("header,columns,expected", [
    ("t,q1,q99999999999,tau1", None, "q2: missing column"),
    ("t,q1,x,tau1", "t=0,q=1:99999999999,tau=3", "99999999998 columns; a table has at most 10000")])
def test_huge_column_numbers_are_refused_before_allocating(tmp_path, header, columns, expected):
    path = small_csv(tmp_path / "big.csv", header)
    with pytest.raises(DataError, match=expected):
        bp.read_trajectory(path, columns=columns)


@pytest.mark.parametrize("angle", ["pi/0", "pi/0.0", "-3*pi/0"])
def test_division_by_zero_in_an_angle_is_a_description_error(angle):
    text = f"units: {{length: m, angle: rad}}\njoints:\n  - {{type: revolute, alpha: {angle}, a: 1, d: 0}}\n"
    with pytest.raises(bp.RobotDescriptionError, match=r"joints\[1\]\.alpha: .*division by zero"):
        bp.parse_robot(text, "z.yaml")


def test_many_joints_are_refused_before_the_document_is_built(monkeypatch):
    """A 1 MB YAML of 20 000 joints took 5 s (the whole document built) to be refused for 64 joints."""
    import baseparam.model.loading as loading

    text = "units: {length: m, angle: deg}\njoints:\n" + "  - {type: revolute, alpha: 90, a: 0.1, d: 0.1}\n" * 20000

    def never(*args):
        raise AssertionError("the document was built")
    monkeypatch.setattr(loading, "_load_yaml", never)
    with pytest.raises(bp.RobotDescriptionError, match="joints: expected at most 64 joints"):
        bp.parse_robot(text, "many.yaml")
    flow = "joints: [" + ", ".join(["{type: revolute, alpha: 90, a: 0.1, d: 0.1}"] * 2000) + "]\n"
    with pytest.raises(bp.RobotDescriptionError, match="at most 64 joints"):
        bp.parse_robot(flow, "flow.yaml")


# -- 2. simulate: no hang, no bare exception -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def arm():
    from conftest import planar_arm
    return bp.Model(planar_arm())


@pytest.mark.parametrize("options,expected", [
    (dict(rtol=float("nan")), "rtol: expected a number > 0"), (dict(rtol=0, atol=0), "rtol: expected a number > 0"),
    (dict(atol=0.0), "atol: expected a number > 0"), (dict(atol=float("inf")), "atol"),
    (dict(method="rk4", substeps=10 ** 9), "substeps: .* more than 1e\\+07 RK4 steps")])
def test_simulate_refuses_settings_that_hang_up_front(arm, options, expected):
    t = np.linspace(0, 1, 11)
    with pytest.raises(bp.ArgumentError, match=expected):
        bp.simulate(arm, t, np.zeros(3), np.zeros(3), **options)


@pytest.mark.parametrize("options", [{}, dict(state="momenta"), dict(method="rk4")])
def test_simulate_of_a_singular_mass_matrix_is_a_simulation_error(arm, options):
    """The error path itself failed (sol.t[-1] of no output), or NaN warnings escaped."""
    layout = bp.ColumnLayout(arm.robot)
    p = arm.values().copy()
    p[layout.link_columns[2]] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.SimulationError, match="diverged"):
            bp.simulate(bp.Model(arm.robot, p), np.linspace(0, 1, 11), np.zeros(3), np.zeros(3), **options)


def test_simulate_of_a_motion_too_violent_to_follow_stops(arm):
    with pytest.raises(bp.SimulationError, match="evaluations"):
        bp.simulate(arm, np.linspace(0, 1, 11), np.zeros(3), np.zeros(3), tau=lambda t, q, qd: 1e3 * qd ** 3 + 1)


# -- 2. find --h5: the file's size bounded before and while writing --------------------------------------------------
def generic_chain(n):
    joints = tuple(bp.Joint("revolute", alpha=0.3 + 0.1 * k, a=0.1 + 0.01 * k, d=0.05 + 0.01 * k) for k in range(n))
    return bp.Robot(joints, name=f"chain{n}", angle_unit="rad")


def test_z_file_estimate_is_generous_but_close():
    from baseparam.projection._budget import z_disk_bytes
    import os
    import tempfile
    for n in (6, 7):
        robot = generic_chain(n)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "z.h5")
            bp.find_and_store(robot, path)
            size = os.path.getsize(path)
        estimate = z_disk_bytes(robot.parents, [j.type for j in robot.joints])
        assert size <= estimate <= 3 * size, (n, size, estimate)


def test_find_h5_refuses_a_file_beyond_max_disk_before_writing(tmp_path):
    from click.testing import CliRunner
    from baseparam.cli import main
    path = tmp_path / "z.h5"
    with pytest.raises(bp.ResourceLimitError, match=r"chain20: the file of the whole Z would take up to about .* TB"):
        bp.find_and_store(generic_chain(20), str(path))          # beyond any disk's free space
    with pytest.raises(bp.ResourceLimitError, match=r"more than the 1 MB allowed \(the max_disk given\)"):
        bp.find_and_store(generic_chain(3), str(path), max_disk="1M")
    assert list(tmp_path.iterdir()) == []
    robot = tmp_path / "chain.yaml"
    robot.write_text("units: {length: m, angle: rad}\njoints:\n"
                     + "".join(f"  - {{type: revolute, alpha: {0.3 + 0.1 * k}, a: 0.1, d: 0.05}}\n" for k in range(4)))
    res = CliRunner().invoke(main, ["find", str(robot), "--h5", str(path), "--max-disk", "1M"])
    assert res.exit_code == 2 and "the max_disk given" not in res.output and "--max-disk" in res.output, res.output
    assert not path.exists()


def test_find_h5_stops_streaming_when_the_file_passes_the_bound(tmp_path, monkeypatch):
    """The estimate can be wrong; the bytes stored are counted while Z is written, and the run stops."""
    import baseparam.projection.storage as storage
    monkeypatch.setattr(storage, "z_disk_bytes", lambda parents, types: 0)
    path = tmp_path / "z.h5"
    with pytest.raises(bp.ResourceLimitError, match="has passed 2.1 MB"):
        bp.find_and_store(generic_chain(6), str(path), max_disk=2_100_000)
    assert list(tmp_path.iterdir()) == []


# -- 2. temporary files of killed runs --------------------------------------------------------------------------------
def test_stale_temporary_files_of_killed_runs_are_removed_on_the_next_write(tmp_path):
    import os
    import time

    from baseparam._atomic import write_text
    dead = 2 ** 22 + 1          # beyond Linux's largest process id: no process has it, now or later
    old = time.time() - 3600
    files = {f".baseparam-{dead}-0123456789abcdef.h5.tmp": (old, False),      # killed run's: removed
             f".baseparam-{dead}-fedcba9876543210.tmp": (time.time(), True),  # recent: may still be written
             f".baseparam-{os.getpid()}-00112233445566ff.tmp": (old, True),   # a live process's
             ".baseparam-0123456789abcdef.h5.tmp": (time.time() - 2 * 86400, False),   # earlier versions' name
             ".baseparam-notours.tmp": (old, True), "data.csv": (old, True)}
    for name, (mtime, _) in files.items():
        (tmp_path / name).write_bytes(b"x")
        os.utime(tmp_path / name, (mtime, mtime))
    write_text(tmp_path / "out.json", "{}\n")
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {name for name, (_, kept) in files.items() if kept} | {"out.json"}


# -- 2. signals that cannot be swallowed ------------------------------------------------------------------------------
@pytest.mark.parametrize("exc", ["terminated", "interrupt"])
def test_a_signal_swallowed_in_a_weakref_callback_is_delivered_again(exc):
    """SIGTERM landing in a weakref callback printed "Exception ignored … _Terminated: 15" and the run went
    on for 10 minutes; the signal is now raised again in the program's own flow."""
    import gc
    import signal
    import time
    import weakref

    from baseparam import cli

    class Thing:
        pass

    def callback(_):        # where the signal's exception lands: Python reports it and carries on
        raise cli._Terminated(signal.SIGTERM) if exc == "terminated" else KeyboardInterrupt

    expected = cli._Terminated if exc == "terminated" else KeyboardInterrupt
    with cli._termination_unwinds():
        with pytest.raises(expected):
            thing = Thing()
            ref = weakref.ref(thing, callback)
            del thing
            gc.collect()
            time.sleep(30)              # the run "goes on": the signal raised again stops it here
            pytest.fail(f"the run went on ({ref})")
    cli._SIGNALLED.clear()


# -- 2. an interrupted excite --workers 2 ends in one line ------------------------------------------------------------
def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return f.read().split()
    except OSError:
        return []


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/task"), reason="needs Linux /proc")
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_interrupted_excite_with_workers_ends_in_one_line(tmp_path, signame):
    """Ctrl-C of `excite --workers 2` printed multiprocessing's leaked-semaphore warning and the workers'
    EOFError/BrokenPipeError tracebacks."""
    import os
    import signal
    import subprocess
    import sys
    import time

    limits = tmp_path / "limits.yaml"
    limits.write_text("joints:\n" + "  - {q: [-2, 2], qd: 2, qdd: 8}\n" * 7)
    # the command as users run it (`baseparam`, `python -m baseparam`): its entry point's watchdog ends a run whose
    # signal a library swallowed; `-m baseparam.cli` (click's group alone) ran on for minutes once in a CI run
    proc = subprocess.Popen([sys.executable, "-m", "baseparam", "excite", str(ROOT / "robots" / "panda.yaml"),
                             "--workers", "2", "--starts", "200", "--limits", str(limits), "--out",
                             str(tmp_path / "t.csv")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        for _ in range(600):            # until the pool's two workers and the resource tracker run
            if len(children(proc.pid)) >= 3 or proc.poll() is not None:
                break
            time.sleep(0.1)
        time.sleep(0.5)                 # the workers start their searches (any moment will do)
        os.killpg(proc.pid, getattr(signal, signame))
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode == 128 + getattr(signal, signame), err
    assert len(lines) == 1 and lines[0].startswith("baseparam: "), err
    assert not (tmp_path / "t.csv").exists()


def _interrupt_after_first_worker(monkeypatch, send):
    """Sends a signal right after the pool's first worker is launched, inside the pool's start-up: the
    moment an ignored Ctrl-C used to be lost, reached without depending on timing."""
    from multiprocessing import popen_spawn_posix
    launch = popen_spawn_posix.Popen._launch
    sent = []

    def launch_then_interrupt(self, process_obj):
        launch(self, process_obj)
        if not sent:
            sent.append(True)
            send()
    monkeypatch.setattr(popen_spawn_posix.Popen, "_launch", launch_then_interrupt)
    return sent


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="needs POSIX signal masks")
def test_ctrl_c_during_the_pools_start_up_interrupts_the_design(monkeypatch):
    """A Ctrl-C while the workers of design_excitation(workers=2) started was ignored, and the run went on."""
    import multiprocessing
    import os
    import signal

    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    handler = signal.getsignal(signal.SIGINT)
    sent = _interrupt_after_first_worker(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        bp.design_excitation(robot, period=4.0, harmonics=3, rate=50.0, starts=2, workers=2, seed=3,
                             limits={"joints": [{"q": [-2, 2], "qd": 2, "qdd": 8}] * 3})
    assert sent
    assert multiprocessing.active_children() == []                      # the started workers were stopped
    assert signal.getsignal(signal.SIGINT) is handler                   # the caller's handler is back
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="needs POSIX signal masks")
def test_ctrl_c_during_the_pools_start_up_ends_excite_in_one_line(tmp_path):
    """The same Ctrl-C, to the whole process group of `excite --workers 2` (the started worker gets it too)."""
    import os
    import signal
    import subprocess
    import sys

    limits = tmp_path / "limits.yaml"
    limits.write_text("joints:\n" + "  - {q: [-2, 2], qd: 2, qdd: 8}\n" * 3)
    driver = (
        "import os, signal, sys\n"
        "from multiprocessing import popen_spawn_posix\n"
        "launch = popen_spawn_posix.Popen._launch\n"
        "def launch_then_interrupt(self, process_obj, sent=[]):\n"
        "    launch(self, process_obj)\n"
        "    if not sent:\n"
        "        sent.append(True)\n"
        "        os.killpg(0, signal.SIGINT)\n"
        "popen_spawn_posix.Popen._launch = launch_then_interrupt\n"
        "sys.argv = ['baseparam'] + sys.argv[1:]\n"
        "from baseparam.cli import main\n"
        "main()\n")
    proc = subprocess.run([sys.executable, "-c", driver, "excite", str(ROOT / "robots" / "planar_rrr.yaml"),
                           "--workers", "2", "--starts", "4", "--period", "4", "--harmonics", "3", "--rate", "50",
                           "--limits", str(limits), "--out", str(tmp_path / "t.csv")],
                          capture_output=True, text=True, start_new_session=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 128 + signal.SIGINT, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("baseparam: "), proc.stderr
    assert not (tmp_path / "t.csv").exists()


# -- 3. the Python API's own errors ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rrr_model():
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    return bp.Model(robot, np.random.default_rng(4).uniform(0.1, 1, bp.ColumnLayout(robot).n_standard))


STATE_FUNCTIONS = ["potential_energy", "kinetic_energy", "inverse_dynamics", "forward_dynamics", "generalized_momenta",
                   "velocities_from_momenta", "momentum"]


def call(model, name, x):
    import inspect
    f = getattr(bp, name)
    n = sum(1 for p in inspect.signature(f).parameters.values() if p.default is p.empty) - 1
    return f(model, *([x] * n))


@pytest.mark.parametrize("name", STATE_FUNCTIONS)
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")   # np.matrix itself warns
def test_matrix_and_masked_arrays_are_plain_arrays_or_refused(rrr_model, name):
    q = np.random.default_rng(5).uniform(-1, 1, (4, 3))
    plain = call(rrr_model, name, q)
    np.testing.assert_array_equal(call(rrr_model, name, np.matrix(q)), plain)
    np.testing.assert_array_equal(call(rrr_model, name, np.ma.masked_array(q)), plain)
    assert type(call(rrr_model, name, np.ma.masked_array(q))) is np.ndarray
    masked = np.ma.masked_array(q, mask=np.eye(4, 3, dtype=bool))
    with pytest.raises(bp.ArgumentError, match="masked array with 3 masked values"):
        call(rrr_model, name, masked)


@pytest.mark.parametrize("name", STATE_FUNCTIONS)
def test_zero_samples_give_zero_rows(rrr_model, name):
    one = call(rrr_model, name, np.zeros((1, 3)))
    none = call(rrr_model, name, np.zeros((0, 3)))
    assert none.shape == (0,) + one.shape[1:]


def test_bad_arguments_raise_the_library_errors_naming_them(tmp_path):
    from baseparam.excitation.fourier import FourierSeries
    base = bp.find_base_parameters(bp.load_robot(PUMA))
    cases = [
        (lambda: base.terms(999), bp.ArgumentError,
         r"r: expected a base-parameter index from 0 to 35 \(or -36 to -1 from the end\), got 999"),
        (lambda: base.terms("x"), bp.ArgumentError, "r: "),
        (lambda: FourierSeries(0, np.zeros(2), np.zeros((2, 1)), np.zeros((2, 1))), bp.ArgumentError, "period: "),
        (lambda: FourierSeries(1.0, np.zeros(2), np.zeros((3, 1)), np.zeros((2, 1))), bp.ArgumentError, "q0, a, b: "),
        (lambda: FourierSeries(1.0, np.zeros(1), np.full((1, 1), np.nan), np.zeros((1, 1))), bp.ArgumentError, "a: "),
        (lambda: FourierSeries(1.0, np.zeros(1), np.zeros((1, 1)), np.zeros((1, 1))).times(0), bp.ArgumentError,
         "rate: "),
        (lambda: bp.load_robot(PUMA, tip=5), TypeError, "tip: expected a link name"),
        (lambda: bp.load_robot(PUMA, root=["a"]), TypeError, "root: expected a link name"),
        (lambda: bp.export(base, "c", out_dir=None), bp.ExportError, "out_dir: expected a directory path"),
        (lambda: bp.load_robot(PUMA, angle_tolerance=10), bp.ArgumentError, "angle_tolerance: expected a number from 0 "
                                                                           "to 0.01, got 10"),
        (lambda: bp.parse_robot(PUMA.read_text(), angle_tolerance=float("nan")), bp.ArgumentError, "angle_tolerance"),
    ]
    for action, error, message in cases:
        with pytest.raises(error, match=message):
            action()
    assert not (ROOT / "None").exists()


# -- 4. clear messages -------------------------------------------------------------------------------------------------
def test_one_gain_in_a_list_is_one_gain_for_every_joint():
    """`--gains 10` (documented: "one, or one per joint") was refused as "got shape (1,)"."""
    t, q, current = trajectory_arrays(S=20, n=3)
    for gains in ([10.0], "10", np.array([10.0])):
        traj = bp.from_arrays(t, q, current=current, gains=gains)
        np.testing.assert_array_equal(traj.tau, current * 10.0)


def test_describe_escapes_names_that_would_forge_lines():
    """A URDF's joint name may hold line breaks (&#10;); describe printed them raw."""
    from baseparam.model.summary import describe
    urdf = ("<robot name='arm'><link name='base'/><link name='l1'><inertial><mass value='1'/>"
            "<inertia ixx='0.1' iyy='0.1' izz='0.1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
            "<joint name='j1&#10;rank: 99&#13;fake' type='revolute'><parent link='base'/><child link='l1'/>"
            "<axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>")
    robot = outcome_robot(urdf)
    out = describe(robot)
    assert not any(line.startswith(("rank", "fake")) for line in out.splitlines()), out
    assert "j1\\nrank" in out and "\r" not in out


def outcome_robot(urdf):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bp.parse_robot(urdf, "arm.urdf")


def test_a_velocity_limit_of_zero_is_named_as_such():
    urdf = ("<robot name='arm'><link name='base'/><link name='l1'><inertial><mass value='1'/>"
            "<inertia ixx='0.1' iyy='0.1' izz='0.1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
            "<joint name='j1' type='revolute'><parent link='base'/><child link='l1'/>"
            "<axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='1' velocity='0'/></joint></robot>")
    with pytest.raises(bp.ArgumentError, match=r"joint 1: velocity limit 0 \(<limit velocity=\"0\">"):
        bp.design_excitation(outcome_robot(urdf), period=2, harmonics=2, rate=20, starts=1)


def test_cr_only_csv_over_one_mib_is_read(tmp_path):
    """CR-only line ends (documented) in a file over 1 MiB were refused as "line 1: longer than 1 MiB"."""
    S = 40_000
    t = np.arange(S) * 0.001
    q = np.sin(np.linspace(0, 10, S))
    rows = "\r".join(f"{a:.3f},{b:.12f},{b:.12f}" for a, b in zip(t, q))
    path = tmp_path / "mac.csv"
    path.write_bytes(("t,q1,tau1\r" + rows + "\r").encode())
    assert path.stat().st_size > 1 << 20
    traj = bp.read_trajectory(path)
    assert traj.n_samples == S
    long_line = tmp_path / "long.csv"
    long_line.write_bytes(b"t,q1,tau1\r" + b"1" * (2 << 20) + b"\r")
    with pytest.raises(DataError, match="line 2: longer than 1 MiB"):
        bp.read_trajectory(long_line)


def urdf_two_links(mass, axis):
    inertial = (f"<inertial><mass value='{mass}'/><inertia ixx='0.1' iyy='0.1' izz='0.1' ixy='0' ixz='0' iyz='0'/>"
                "</inertial>")
    return (f"<robot name='arm'><link name='base'/><link name='l1'>{inertial}</link><link name='l2'>{inertial}</link>"
            f"<joint name='j1' type='revolute'><parent link='base'/><child link='l1'/><axis xyz='{axis}'/>"
            "<limit lower='-1' upper='1' effort='1' velocity='1'/></joint>"
            "<joint name='f' type='fixed'><parent link='l1'/><child link='l2'/></joint></robot>")


def test_urdf_messages_name_the_file_and_the_joint():
    """A mass lumped across fixed joints past 1e6 kg said only "Inertia.mass: …"; an axis of 1e200 was
    refused because its squares overflowed."""
    with pytest.raises(bp.RobotDescriptionError, match=r"^arm\.urdf: joint 'j1': the body \(with the links fixed "
                                                       r"to it\): expected a mass .* got 1800000\.0$"):
        bp.parse_robot(urdf_two_links(900000, "0 0 1"), "arm.urdf")
    for axis, expected in (("1e200 0 0", (1.0, 0.0, 0.0)), ("0 0 1e300", (0.0, 0.0, 1.0))):
        robot = outcome_robot(urdf_two_links(1, axis))
        assert robot.joints[0].axis == expected


@pytest.mark.parametrize("entry,expected", [("qd: 1e-300", "qd limit 1e-300 is below 1e-06"),
                                            ("qd: 1, qdd: 1e-30", "qdd limit 1e-30 is below"),
                                            ("q: [0, 1e-300], qd: 1", "narrower than 1e-06")])
def test_extreme_limits_are_refused_not_overflowed(tmp_path, entry, expected):
    """Limits of 1e-300 printed raw numpy RuntimeWarnings (overflow in 1/v²) and ended in an
    unrelated 'qd: absurd value' error."""
    path = tmp_path / "lim.yaml"
    path.write_text("joints:\n  - {q: [-1, 1], qd: 2}\n  - {q: [-1, 1], qd: 2}\n  - {" + entry + "}\n")
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(bp.ArgumentError, match=rf"lim\.yaml: joint 3: .*{expected}"):
            bp.motion_limits(robot, str(path))


@pytest.mark.parametrize("axis", ["[1e300, 0, 1]", "[0, 0, 0]", "[1e-9, 0, 0]"])
def test_a_yaml_axis_out_of_range_names_the_file_and_joint(axis):
    text = f"convention: urdf\nunits: {{length: m, angle: rad}}\njoints:\n  - {{type: revolute, axis: {axis}}}\n"
    with pytest.raises(bp.RobotDescriptionError, match=r"^u\.yaml: joints\[1\]\.axis: expected a direction of length"):
        bp.parse_robot(text, "u.yaml")
