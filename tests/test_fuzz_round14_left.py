"""Regressions of the leftovers of issue 28's thirteenth stop and issue 22's tidiness (round 14, 'left'): each test
below failed on the code before its fix."""
import os
import time

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT, planar_arm

UR = ROOT / "robots" / "ur10e.yaml"
ABSURD_WORDS = r"absurd value {value} at index {index} \(beyond ±1e\+100\); expected {expected}"


# -- one bound for parameters, one wording ----------------------------------------------------------------------------
def test_a_parameter_beyond_the_bound_is_refused_in_one_wording_everywhere():
    """A value beyond ±1e100 was refused in three wordings ('absurd value … (|p| > 1e+100)', 'a value beyond ±1e+100
    (…)', 'payload torques up to …: beyond any robot's (at most …)'): now one check, naming the value and its index."""
    from baseparam import evaluation
    from baseparam.identification._payload_math import _check_target
    robot = planar_arm()
    p = bp.Model(robot).p.copy()
    p[7] = -3e200
    with pytest.raises(bp.ArgumentError, match="^p: " + ABSURD_WORDS.format(value="-3e\\+200", index=7,
                                                                            expected="parameters in SI units$")):
        bp.Model(robot, p)
    with pytest.raises(bp.ArgumentError, match="^truth: " + ABSURD_WORDS.format(value="2e\\+300", index=1,
                                                                                expected="parameters in SI units$")):
        evaluation.fit_errors(np.zeros(3), np.array([1.0, 2e300, 1.0]))
    y = np.zeros((5, 6))
    y[3, 2] = 1e120
    with pytest.raises(bp.DataError, match="^loaded: payload torques: " + ABSURD_WORDS.format(
            value="1e\\+120", index="3, 2", expected=r"SI units \(N·m, N\): check the units and the gains$")):
        _check_target(y, "payload torques")
    _check_target(np.full((5, 6), 1e100), "payload torques")          # the bound itself is taken


# -- one rule for the folders of killed runs ---------------------------------------------------------------------------
def _killed_runs_folders(where, prefix, tail, hosts, old):
    """A stale folder (a process id no process has, unchanged for two days) per host, holding a kernel.c."""
    made = []
    for host in hosts:
        folder = where / f"{prefix}{2 ** 22 + 1}-{host}-{tail}"
        folder.mkdir()
        (folder / "kernel.c").write_text("int f(void);\n")
        os.utime(folder, (old, old))
        made.append(folder.name)
    return made


@pytest.mark.parametrize("which", ["kernel in the cache", "kernel without a cache", "unpacked bag"])
def test_folders_of_killed_runs_are_removed_only_for_this_user_on_this_machine(tmp_path, monkeypatch, which):
    """Three routines removed a killed run's folders; only _leftovers.private_folder spared another user's and another
    machine's (a live run on a shared $TMPDIR or BASEPARAM_CACHE_DIR has a process id no process here has, and its
    folder's time stays unchanged while it works). The kernel's scratch and rosbags' unpacked bags now go through
    the same rule, and their names carry the host."""
    import socket
    import tempfile

    from baseparam._leftovers import run_prefix
    from baseparam.dynamics import _native
    from baseparam.identification import _bag_files
    prefix, tail, remove = {
        "kernel in the cache": ("tmp-kernel-", "abcdefgh", lambda: _native.remove_stale_scratch(str(tmp_path))),
        "kernel without a cache": ("baseparam-kernel-", "abcdefgh",
                                   lambda: _native.remove_stale_scratch(str(tmp_path), _native.NO_CACHE)),
        "unpacked bag": ("baseparam-rosbag2-", "abcdefgh",
                         lambda: _bag_files.remove_stale_unpacked(str(tmp_path)))}[which]
    monkeypatch.setattr(socket, "gethostname", lambda: "node-1")
    here, elsewhere = _killed_runs_folders(tmp_path, prefix, tail, ["node-1", "node-2"], time.time() - 2 * 86_400)
    real_uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)            # every folder another user's
    assert remove() == [] and sorted(os.listdir(tmp_path)) == sorted([here, elsewhere])
    monkeypatch.setattr(os, "getuid", lambda: real_uid)
    assert remove() == [here] and os.listdir(tmp_path) == [elsewhere]
    assert run_prefix(prefix) == f"{prefix}{os.getpid()}-node-1-"
    if which == "unpacked bag":                 # the names the next run judges are the ones this run makes
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        with _bag_files._named_temporary_directory() as made:
            assert os.path.basename(made).startswith(run_prefix(prefix))
    else:
        kind = _native.IN_CACHE if which == "kernel in the cache" else _native.NO_CACHE
        with _native._scratch(str(tmp_path), kind) as made:
            assert os.path.basename(made).startswith(run_prefix(prefix))


# -- the simulations' checks, each once -------------------------------------------------------------------------------
def test_simulations_check_times_once_in_one_wording():
    """floating._check_times and integrate._times said the same in other words ('expected finite, increasing times'
    vs 'contains NaN or inf' / 'times must increase; t[k] = …'), and contact_experiment took 5 times for 5 states, to
    fail inside the log's reader as a DataError ('field t: only 5 samples'). One check (integrate.checked_times)."""
    SPACE_MODEL = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    S = 12
    q = np.tile(np.r_[np.zeros(6), 1.0, np.full(6, 0.2)], (S, 1))
    qd, qdd, t = np.zeros((S, SPACE_MODEL.robot.n_v)), np.full((S, SPACE_MODEL.robot.n_v), 0.1), np.linspace(0, 1, S)
    contacts = (bp.Contact(3),)
    bad = t.copy()
    bad[4] = bad[3]
    with pytest.raises(bp.ArgumentError, match=r"^t: times must increase; t\[4\] = 0.2727\d* after t\[3\]"):
        bp.contact_experiment(SPACE_MODEL, bad, q, qd, qdd, contacts)
    with pytest.raises(bp.ArgumentError, match=r"^t: contains NaN or inf$"):
        bp.contact_experiment(SPACE_MODEL, np.r_[t[:-1], np.nan], q, qd, qdd, contacts)
    with pytest.raises(bp.ArgumentError, match=r"^t: expected increasing times of shape \(S,\) with S = 12 \(the "
                                               r"states' samples\), got shape \(11,\)$"):
        bp.contact_experiment(SPACE_MODEL, t[:-1], q, qd, qdd, contacts)
    with pytest.raises(bp.ArgumentError, match=r"^t: expected increasing times of shape \(S,\) with S ≥ 10 \(a "
                                               r"Trajectory's minimum\), got shape \(5,\)$"):
        bp.contact_experiment(SPACE_MODEL, t[:5], q[:5], qd[:5], qdd[:5], contacts)
    with pytest.raises(bp.ArgumentError, match=r"^t: expected increasing times of shape \(S,\) with S ≥ 3 \(central "
                                               r"differences\), got shape \(2,\)$"):
        bp.stance_motion(SPACE_MODEL.robot, t[:2], q[0], np.zeros((2, 3)), np.zeros((2, 3)), contacts)
    with pytest.raises(bp.ArgumentError, match=r"^t: times must increase; t\[1\] = 0.0 after t\[0\] = 0.5$"):
        bp.stance_motion(SPACE_MODEL.robot, [0.5, 0.0, 1.0], q[0], np.zeros((3, 3)), np.zeros((3, 3)), contacts)


def test_sensor_noise_and_simulate_check_drive_gains_alike():
    """SensorNoise.apply took gains of 0 (the current noise asked for silently dropped) or below; simulate took
    infinite ones (τ noise of inf): two checks in two wordings. One now (noise.checked_gains), positive and finite."""
    noise, fields = bp.SensorNoise(current=0.1), {"tau": np.zeros((4, 3))}
    for gains in ([1.0, 0.0, 2.0], [1.0, -2.0, 2.0], [1.0, np.inf, 2.0]):
        with pytest.raises(bp.ArgumentError, match=r"^gains: expected 3 positive drive gains \(N·m/A\), got "):
            noise.apply(fields, 3, gains=gains)
    from baseparam.simulation.noise import checked_gains
    with pytest.raises(bp.ArgumentError, match=r"^gains: expected 3 positive drive gains"):
        checked_gains([1.0, np.inf, 2.0], 3)
    assert np.array_equal(checked_gains((1, 2, 3), 3), [1.0, 2.0, 3.0])



# -- messages in the command line's words ------------------------------------------------------------------------------
@pytest.mark.parametrize("args, said", [
    (["find", "{planar}", "--friction", "--friction-model", "smooth:0"],
     "baseparam: --friction-model: 'smooth:0': expected a velocity scale > 0 and below 1000 (rad/s or m/s) or 'auto', "
     "got 0.0"),
    (["find", "{planar}", "--friction", "--friction-model", "smooth:0.1+stribeck:2e3"],
     "baseparam: --friction-model: 'stribeck:2e3': expected a velocity scale > 0 and below 1000 (rad/s or m/s) or "
     "'auto', got 2000.0"),
    (["identify", "{planar}", "{log}", "--cutoff", "-1"], "baseparam: --cutoff: expected a positive number, got -1.0"),
    (["identify", "{planar}", "{log}", "--rest-velocity", "-2"],
     "baseparam: --rest-velocity: expected a positive number, got -2.0"),
])
def test_command_line_messages_name_flags_not_python(tmp_path, args, said):
    """`--friction-model smooth:0` said '--friction-model: FrictionModel.velocity: …' and `--cutoff -1` said
    'preprocessing: --cutoff: …': a class and a library argument named to a command-line user. The flag, the text
    given and the problem now; the library still names its own parameters (parse_friction_model, Preprocessing)."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from baseparam.identification.preprocessing import Preprocessing
    from baseparam.model.friction import parse_friction_model
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{k / 100},0,0,0,0,0,0\n" for k in range(20)))
    result = CliRunner().invoke(main, [a.format(planar=ROOT / "robots" / "planar_rrr.yaml", log=log) for a in args])
    assert result.exit_code == 2 and result.output.strip() == said, result.output
    with pytest.raises(bp.ArgumentError, match=r"^friction_model: 'smooth:0': expected a velocity scale > 0"):
        parse_friction_model("smooth:0")
    with pytest.raises(bp.SettingsError, match=r"^preprocessing: cutoff_hz: expected a positive number"):
        Preprocessing(cutoff_hz=-1)


# -- HDF5 writes: the failure guarantee without a full collection per write -----------------------------------------
def test_an_hdf5_write_makes_no_full_collection(tmp_path):
    """writes_checked ran gc.collect() after every HDF5 write (24 ms a write in a small process, ~54 ms in a large
    one) to have the block's h5py objects report a failed write while it ran; it found nothing (h5py's close ends
    every object of the file). Counted with automatic collections off, so only an explicit one is seen."""
    import gc

    from baseparam.projection.storage import find_and_store
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    full = []

    def seen(phase, info):
        if phase == "start" and info["generation"] == 2:
            full.append(info)
    was = gc.isenabled()
    gc.disable()
    gc.callbacks.append(seen)
    try:
        find_and_store(robot, str(tmp_path / "z.h5"))
    finally:
        gc.callbacks.remove(seen)
        if was:
            gc.enable()
    assert full == [] and (tmp_path / "z.h5").stat().st_size > 0


def test_an_hdf5_write_beyond_the_file_size_limit_is_still_one_line(tmp_path):
    """The guarantee the collection was for, end to end: `find --h5` whose writes fail (a file size limit: EFBIG,
    as a full disk's ENOSPC) is one line naming the output, exit 2, no h5py report after it, nothing left."""
    import resource
    import signal
    import subprocess
    import sys

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, resource.RLIM_INFINITY))
    # the limit stands for a disk that fills during the write: the check that refuses a file beyond ulimit -f before
    # any byte is written (round 17) is told of no limit, so that the write itself fails, as on a full disk
    run = ("import sys, baseparam._atomic as a, baseparam.projection.storage as s, baseparam._entry as e\n"
           "a.file_size_limit = s.file_size_limit = lambda: None\n"
           "sys.argv = ['baseparam', 'find', sys.argv[1], '--h5', 'z.h5']\n"
           "e.main()\n")
    result = subprocess.run([sys.executable, "-c", run, str(ROOT / "robots" / "planar_rrr.yaml")], cwd=tmp_path,
                            preexec_fn=limited, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert result.returncode == 2 and result.stderr == "baseparam: z.h5: cannot write (File too large)\n", result
    assert list(tmp_path.iterdir()) == []


def test_validation_re_exports_both_number_tests():
    """_validation re-exported _numbers.is_real (its __all__) but not is_whole, the test of whole numbers that replaced
    four copies: the checks' module offers both, and every name it lists exists."""
    from baseparam import _numbers, _validation
    assert {"is_real", "is_whole"} <= set(_validation.__all__)
    assert _validation.is_whole is _numbers.is_whole and _validation.is_real is _numbers.is_real
    assert all(hasattr(_validation, name) for name in _validation.__all__)


# -- a solver's panic known by a mark, not by a word ------------------------------------------------------------------
def test_a_panic_of_the_conic_solver_is_known_by_its_mark_not_a_word(tmp_path, monkeypatch):
    """The consistent fit knew a CLARABEL panic by the word "panicked" in a SolverError's message (the text
    solve_clarabel builds): any solver error saying it was taken for one. solve_clarabel now marks its error
    (_stderr.PANIC); a panic is still said in the failure's line, another error's words are not."""
    import cvxpy
    from click.testing import CliRunner

    from baseparam.cli import main
    from test_fuzz_round9 import _planar_log

    class PanicException(BaseException):
        pass
    log = _planar_log(tmp_path)
    for raised, said in ((PanicException("Eigval error: Eigen(1)"), "; CLARABEL panicked: Eigval error: Eigen(1)"),
                         (cvxpy.SolverError("a thread panicked (not CLARABEL's panic)"), "")):
        def solve(self, *args, raised=raised, **kwargs):
            raise raised
        monkeypatch.setattr(cvxpy.Problem, "solve", solve)
        result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(log),
                                           "--method", "consistent"])
        assert result.exit_code == 2, result.output
        assert result.output.strip().splitlines()[-1].endswith(f"(solver status solver_error){said}"), result.output
