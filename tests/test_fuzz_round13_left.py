"""Regressions of the leftovers of issue 28's twelfth stop and issue 22's tidiness (round 13, 'left'): each test below
failed on the code before its fix."""
import os
import signal
import time

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT, one_line


@pytest.fixture(scope="module")
def space():
    """The conftest's space robot floating free, 1 s of it (its 10 s: 2.6 s of CPU)."""
    k = np.arange(1, 7)
    return bp.free_floating_experiment(bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml")),
                                       np.linspace(0, 1, 21), lambda t, q, qd: 3 * np.sin(0.5 * k * t + k))


# -- held signals: every one delivered --------------------------------------------------------------------------------
def test_every_different_signal_held_over_an_import_is_delivered_in_order():
    """signals_held delivered only the first signal it held: a SIGTERM that came after a Ctrl-C during the import
    never reached its handler (a handler that records and returns, as a library user's may, saw one of the two)."""
    from baseparam._processes import signals_held
    heard = []
    previous = {number: signal.signal(number, lambda signum, frame: heard.append(signum))
                for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        with signals_held():
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGINT)       # the same signal twice while held is one, as Python makes it
        assert heard == [signal.SIGINT, signal.SIGTERM]
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def test_a_held_signal_whose_handler_raises_does_not_swallow_the_next():
    """Ctrl-C then SIGTERM held: the KeyboardInterrupt of the first goes on to be the context of the second's
    exception, as Python runs a still-pending signal's handler in the unwinding (the SIGTERM was lost)."""
    from baseparam._processes import signals_held

    class Stopped(BaseException):
        pass

    def stop(signum, frame):
        raise Stopped(signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(Stopped) as raised:
            with signals_held():
                signal.raise_signal(signal.SIGINT)
                signal.raise_signal(signal.SIGTERM)
        assert isinstance(raised.value.__context__, KeyboardInterrupt)
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- identify of a floating robot: 'wrote' once the output is in place ------------------------------------------------
def test_floating_identify_says_wrote_once_the_json_is_in_place(space, tmp_path, monkeypatch):
    """The floating route printed its summary and 'wrote out.json' inside the block that puts the outputs in place at
    its end: the line came while out.json was not there yet (a refusal at that point would follow a 'wrote')."""
    from click.testing import CliRunner

    from baseparam import cli
    from baseparam.identification.floating_logs import write_floating_log
    robot_file = ROOT / "robots" / "space_robot.yaml"
    write_floating_log(tmp_path / "log.npz", space.log)
    out = tmp_path / "out.json"
    seen = []
    report = cli._report
    monkeypatch.setattr(cli, "_report", lambda *args: (seen.append(out.exists()), report(*args)))
    result = CliRunner().invoke(cli.main, ["identify", str(robot_file),
                                           str(tmp_path / "log.npz"), "--route", "momentum", "--known", "mass=448",
                                           "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert seen == [True] and f"wrote {out}" in result.output


# -- options that go with another ---------------------------------------------------------------------------------
def test_find_max_disk_without_h5_is_refused_in_one_line():
    """`find ROBOT --max-disk 1G` without --h5 ran and bounded nothing, saying nothing: the bound of a file not
    written was taken and ignored (payload's dependent options are refused: '--pose: goes with --suggest-poses')."""
    from click.testing import CliRunner

    from baseparam.cli import main
    one_line(CliRunner().invoke(main, ["find", str(ROOT / "robots" / "planar_rrr.yaml"), "--max-disk", "1G"]),
             "--max-disk: goes with --h5")


# -- --clock receive: for bags only ---------------------------------------------------------------------------------
def test_clock_receive_of_a_csv_log_is_refused_not_ignored(tmp_path):
    """`identify ROBOT log.csv --clock receive` ran with the CSV's one time column and said nothing: the option
    (like --topic, which is refused) applies to bags only. An unknown clock was taken from a CSV too."""
    from click.testing import CliRunner

    from baseparam.cli import main
    t = np.arange(40) * 0.01
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{x},{x},{2 * x},0,1,2,3\n" for x in t))
    one_line(CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(log),
                                       "--clock", "receive"]), f"{log}: --clock receive applies to ROS bags, not .csv")
    with pytest.raises(bp.DataError, match="clock: expected 'header' or 'receive', got 'bogus'"):
        bp.read_trajectory(log, clock="bogus")
    assert bp.read_trajectory(log, clock="header").n_samples == 40


def test_clock_receive_of_a_floating_npz_log_is_refused_not_ignored(space, tmp_path):
    from baseparam.identification.floating_logs import read_floating, write_floating_log
    write_floating_log(tmp_path / "log.npz", space.log)
    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    with pytest.raises(bp.DataError, match=r"log\.npz: clock='receive' applies to ROS bags, not \.npz files"):
        read_floating(tmp_path / "log.npz", robot, clock="receive")
    assert read_floating(tmp_path / "log.npz", robot).n_samples == 21


# -- a stamp far from the others: said, not dropped in silence --------------------------------------------------------
def test_a_stamp_far_from_the_others_is_warned_about_not_dropped_in_silence():
    """One stamp 2^31 s late (a clock jump) and no --delay: the sample was cut off as a segment too short to use and
    the fit went on without a word (--delay auto refuses the same log: its window lies in the gap). A demanding user
    wants to know that the log holds a stamp the fit left out; the fit on the rest stands, so it is a warning."""
    import warnings

    from baseparam.identification.preprocessing import preprocess
    t = 1.0 + np.arange(400) / 100.0
    q = np.sin(np.outer(t, [1.0, 1.7, 2.3]))
    log = bp.Trajectory(t=t, q=q, tau=np.cos(np.outer(t, [1.0, 1.7, 2.3])), source="far.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert preprocess(log).record["short_segment_samples"] == 0        # no gap, no word
    t = t.copy()
    t[-1] = 2.0 ** 31
    far = bp.Trajectory(t=t, q=q, tau=log.tau, source="far.csv")
    with pytest.warns(bp.DataWarning, match=r"far\.csv: field t: 1 of 400 samples left out, cut off by time gaps .*"
                                            r"the largest gap 2\.147e\+09 s, after t = 4\.98 s"):
        assert preprocess(far).record["short_segment_samples"] == 1


# -- export --checked: the header's comment and NAME.json say what the files hold --------------------------------------
def test_checked_export_comment_and_json_name_the_checked_entry_points(tmp_path):
    """`export --checked`: the files' comment still said the inputs were "not checked here" above the checked entry
    points, and NAME.json listed the functions without them; the JSON now lists the entry points the header declares
    (and the bounds it defines), the comment says where the checks are. Without --checked both are as before."""
    import json
    import re
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "planar_rrr.yaml"))
    bp.export(base, "c", prefix="arm", out_dir=tmp_path / "plain")
    bp.export(base, "c", prefix="arm", out_dir=tmp_path / "checked", checked=True)
    header = (tmp_path / "checked" / "arm.h").read_text()
    doc = json.loads((tmp_path / "checked" / "arm.json").read_text())
    assert doc["checked"]["functions"] == re.findall(r"^int (arm_\w+_checked)\(", header, re.M)
    assert len(doc["checked"]["functions"]) == 3
    defined = dict(re.findall(r"^#define ARM_(MAX_\w+) (\S+)$", header, re.M))
    assert (doc["checked"]["max_state"], doc["checked"]["max_parameter"]) == (
        float(defined["MAX_STATE"]), float(defined["MAX_PARAMETER"]))
    for ext in (".h", ".c"):
        comment = (tmp_path / "checked" / f"arm{ext}").read_text().split(" */\n", 1)[0]
        assert "not checked here" not in comment and "arm_<function>_checked" in comment
        assert "not checked here" in (tmp_path / "plain" / f"arm{ext}").read_text().split(" */\n", 1)[0]
    assert "checked" not in json.loads((tmp_path / "plain" / "arm.json").read_text())


# -- a kernel's compile: its scratch folder known, a killed run's removed -------------------------------------------
def test_kernel_compile_scratch_is_removed_on_a_forced_exit_and_a_killed_runs_later(tmp_path, monkeypatch):
    """A compile's scratch folder (tmpXXXXXXXX/kernel.c in ~/.cache/baseparam) was left by a run ended without
    unwinding (the entry point's forced exit on a second SIGTERM, SIGKILL), and nothing removed it. It is now named
    with the process id, known to the forced exit, and a later compile removes a dead run's once stale (as _atomic
    does for .baseparam-*.tmp): only ours, only folders holding kernel.c/kernel.so, never a live run's."""
    import ctypes
    import os
    import time

    from baseparam import _entry
    from baseparam.dynamics import _native
    if _native.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr("baseparam._atomic._LIVE", set())           # the forced exit's other removals: none here
    monkeypatch.setattr("baseparam._figures.remove_private", lambda: None)
    from baseparam._leftovers import host_name
    dead, old = 2 ** 22 + 1, time.time() - 2 * 86_400             # beyond Linux's largest process id
    host = host_name()
    leftovers = {f"tmp-kernel-{dead}-{host}-abcdefgh": True, "tmpabcdefgh": True,  # killed; an earlier version
                 f"tmp-kernel-{os.getpid()}-{host}-abcdefgh": False, f"tmp-kernel-{dead}-{host}-recent12": False}
    for name in leftovers:
        (tmp_path / name).mkdir()
        (tmp_path / name / "kernel.c").write_text("int f(void);\n")
        if not name.endswith("recent12"):
            os.utime(tmp_path / name, (old, old))
    (tmp_path / "tmpzzzzzzzz").mkdir()                            # another program's
    (tmp_path / "tmpzzzzzzzz" / "notes.txt").write_text("mine")
    os.utime(tmp_path / "tmpzzzzzzzz", (old, old))
    forced = []

    def ended_without_unwinding(args):
        scratch = os.path.dirname(args[-2])
        _entry._remove_temporaries()                              # what the watchdog does before os._exit
        forced.append(os.path.exists(scratch))
        return 1                                                  # the compiler's exit status

    monkeypatch.setattr(_native, "_run_compiler", ended_without_unwinding)
    source = f"int f(void) {{ return 7; }}\n/* {tmp_path} */\n"
    assert _native.load(source, {"f": (ctypes.c_int, [])}) is None and forced == [False]
    left = set(os.listdir(tmp_path))
    assert left == {n for n, stale in leftovers.items() if not stale} | {"tmpzzzzzzzz"}, left


# -- each check once --------------------------------------------------------------------------------------------------
def test_metrics_compare_says_an_overflow_in_its_own_words():
    """Metrics.compare checked the sums it made itself again through from_residuals: the only thing that second check
    could find, squares that overflowed, was said as 'e2: expected finite numbers …', a parameter compare has not."""
    from baseparam.identification.results import Metrics
    figures = Metrics.compare(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 1.0], [1.0, 1.0]]))
    np.testing.assert_allclose(figures.rmse, [np.sqrt(2.0), np.sqrt(5.0)])        # √(Σe²/S): (0+4)/2, (1+9)/2
    with np.errstate(over="ignore"), pytest.raises(bp.ArgumentError, match=r"^tau, predicted: squares beyond the "
                                                                           r"floating-point range"):
        Metrics.compare(np.full((2, 1), 1e200), np.zeros((2, 1)))


def test_a_write_scans_its_folder_once_and_a_set_checks_each_name_and_the_room_once(tmp_path, monkeypatch):
    """remove_stale scanned the folder twice per write (the stale files, then the young orphans); write_texts checked
    each name three times and the room once for the set and again for each file (inside each write_text)."""
    import os

    from baseparam import _atomic
    scans, targets, rooms = [], [], []
    scandir, target, room = os.scandir, _atomic._target, _atomic.check_room
    monkeypatch.setattr(_atomic.os, "scandir", lambda folder: (scans.append(folder), scandir(folder))[1])
    monkeypatch.setattr(_atomic, "_target", lambda path: (targets.append(path), target(path))[1])
    monkeypatch.setattr(_atomic, "check_room", lambda files: (rooms.append(dict(files)), room(files))[1])
    _atomic.write_text(tmp_path / "one.txt", "one")
    assert len(scans) == 1 and (tmp_path / "one.txt").read_text() == "one"
    scans.clear(), targets.clear(), rooms.clear()
    _atomic.write_texts({str(tmp_path / "a.txt"): "a", str(tmp_path / "b.txt"): "b"})
    assert len(scans) == 2 and len(rooms) == 1                   # one scan per write (a folder may change meanwhile)
    assert sorted(targets) == sorted([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")] * 2)  # the set's, atomic_path's
    assert (tmp_path / "a.txt").read_text() == "a" and (tmp_path / "b.txt").read_text() == "b"


# -- the library's own error for a wrong kind of object ---------------------------------------------------------------
def _public_helpers():
    from baseparam.dynamics import forward_graph
    from baseparam.model import dh_equivalent, friction, joint_model, summary, urdf_update, urdf_writer
    return {"dh_equivalent": dh_equivalent.dh_equivalent, "with_friction_model": friction.with_friction_model,
            "joint_models": joint_model.joint_models, "motion_offsets": joint_model.motion_offsets,
            "describe": summary.describe, "link_parts": urdf_update.link_parts,
            "check_urdf_gravity": urdf_writer.check_urdf_gravity, "build_forward": forward_graph.build_forward,
            "slots": forward_graph.slots}


@pytest.mark.parametrize("name", sorted(_public_helpers()))
def test_public_helpers_given_no_robot_refuse_it_by_name(name):
    """Functions in a public module's __all__ given a file name or a number for the robot: AttributeError ("'str'
    object has no attribute 'n_dof'") from deep inside; now the library's ArgumentTypeError naming the argument."""
    for value in ("arm.yaml", 3):
        with pytest.raises(bp.ArgumentTypeError, match=r"^robot: expected a baseparam\.Robot, got "):
            _public_helpers()[name](value)


def test_equations_verify_given_no_equations_refuses_them_by_name():
    from baseparam.codegen.equations import verify
    with pytest.raises(bp.ArgumentTypeError, match=r"^eq: expected the Equations of equations\(robot\), got str"):
        verify("x", "y")


def _hand_built():
    """Class → a call building it by hand with one field of the wrong kind (the others as the library makes them
    or, where the wrong field is checked first, anything)."""
    import dataclasses

    from baseparam.codegen import ExportResult
    from baseparam.codegen.equations import Equations
    from baseparam.excitation.design import ExcitationDesign
    from baseparam.identification.results import Identification, LogResult, Metrics
    from baseparam.simulation.experiment import MotionComparison
    metrics = Metrics.from_residuals(np.ones(2), np.ones(2), 4)

    def fill(cls, **given):           # the required fields in order, the wrong one given
        required = [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING
                    and f.default_factory is dataclasses.MISSING]
        return cls(**{name: given.get(name, "x") for name in required})
    base = bp.find_base_parameters(bp.Robot((bp.Joint("revolute", a=0.5),)))
    return {"BaseParameters.robot": lambda: dataclasses.replace(base, robot="arm.yaml"),
            "BaseParameters.accuracy": lambda: dataclasses.replace(base, accuracy="x"),
            "DelayEstimate.seconds": lambda: bp.DelayEstimate("x", "robot model", 0.9, 0.01),
            "Metrics.n_samples": lambda: dataclasses.replace(metrics, n_samples="4"),
            "Equations.robot": lambda: fill(Equations),
            "ExcitationDesign.series": lambda: fill(ExcitationDesign),
            "ExportResult.functions": lambda: ExportResult(files=("a.c",), functions="x", base_names=()),
            "Identification.estimator": lambda: Identification(estimator="x", train=metrics),
            "LogResult.held_out": lambda: LogResult("a.csv", 4, metrics, held_out="x"),
            "MotionComparison.held_out": lambda: MotionComparison(runs={}, held_out="x", fits={})}


@pytest.mark.parametrize("field", sorted(_hand_built()))
def test_results_built_by_hand_with_a_wrong_kind_of_field_are_refused_at_construction(field):
    """A public result class built by hand (or replaced) with a field of the wrong kind was taken, and its methods
    failed deep inside: Identification(estimator='x').summary() an AttributeError ("'str' object has no attribute
    'base_'"), ExportResult(functions='x').summary() "'str' object has no attribute 'items'", …"""
    with pytest.raises(bp.ArgumentTypeError, match=rf"^{field.replace('.', '[.]')}: expected "):
        _hand_built()[field]()


# Found by the review of the work above: kernel scratch folders, held signals, the harness's rule

def test_stale_kernel_scratch_never_takes_another_programs_empty_tmp_folder(tmp_path):
    """BASEPARAM_CACHE_DIR may name a shared folder (/tmp): an empty ``tmpXXXXXXXX`` is any Python program's
    tempfile.mkdtemp(), not an earlier version's compile (that one holds kernel.c), and is left alone however old."""
    from baseparam._leftovers import host_name
    from baseparam.dynamics import _native
    old = time.time() - 2 * 86_400
    killed = f"tmp-kernel-{2 ** 22 + 1}-{host_name()}-abcdefgh"
    for name, files in (("tmpabcdefgh", ["kernel.c"]), ("tmpyyyyyyyy", []), (killed, [])):
        (tmp_path / name).mkdir()
        for file in files:
            (tmp_path / name / file).write_text("int f(void);\n")
        os.utime(tmp_path / name, (old, old))
    removed = _native.remove_stale_scratch(str(tmp_path))
    assert sorted(removed) == sorted(["tmpabcdefgh", killed])
    assert sorted(os.listdir(tmp_path)) == ["tmpyyyyyyyy"]


def test_workers_born_deaf_delivers_every_signal_another_thread_took():
    """Held while the workers start, SIGINT and SIGTERM can also be taken by another thread (recorded): only the first
    recorded one was raised again, and none when another was still pending; a SIGTERM after a Ctrl-C was lost, the
    class of problem signals_held's fix (ffe2914) closed next door. Each one, once, now."""
    import signal
    import threading

    import pytest

    from baseparam._processes import workers_born_deaf
    if not hasattr(signal, "pthread_sigmask"):
        pytest.skip("no signal masks")
    got, go = [], threading.Event()

    def other_thread():                  # started before the block: the signals are not blocked in it
        go.wait()
        signal.raise_signal(signal.SIGINT)       # raise(): delivered to this thread at once
        signal.raise_signal(signal.SIGTERM)

    previous = {number: signal.signal(number, lambda signum, frame: got.append(signum))
                for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        thread = threading.Thread(target=other_thread)
        thread.start()
        with workers_born_deaf():
            go.set()
            thread.join()
            for _ in range(10):          # the main thread runs the recorders on its next instructions
                pass
        for _ in range(10):
            pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    assert sorted(got) == sorted([signal.SIGINT, signal.SIGTERM]), got


def keyword_only(robot, *, q):
    return robot, q


def test_the_harness_rule_takes_every_arity_refusal_of_python():
    """The API harnesses' rule (test_fuzz_api.own_error) takes every one of Python's own refusals of a call as the
    caller's: its words missed two ('missing N required keyword-only', 'got multiple values'), a keyword-only argument
    left out and an argument given twice."""
    from test_fuzz_api import own_error

    def raised(action):
        try:
            action()
        except TypeError as exc:
            return exc
        raise AssertionError("no TypeError")

    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    assert own_error(raised(lambda: bp.find_base_parameters(robot, robot=robot)))   # given twice

    assert own_error(raised(lambda: keyword_only(robot)))          # Python's words whatever the function
    assert not own_error(raised(lambda: len(None)))        # a failure inside, still refused
