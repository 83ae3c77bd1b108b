import contextlib
import gc
import importlib.metadata
import os
import pathlib
import signal
import sys
import threading
import warnings

import pytest
from hypothesis import settings

# Every property-based test draws the same examples on every run and machine (derandomized, no example
# database carried between runs) and has no deadline: a suite that passes once passes again, whatever
# the machine's load (issue 22, item 7). A test's own ``@settings`` inherit these.
settings.register_profile("baseparam", derandomize=True, database=None, deadline=None)
settings.load_profile("baseparam")


def _deaf(signum, frame):
    """A handler that does nothing (see below)."""


# A runner started in the background (a non-interactive shell's ``cmd &``, ``nohup``) ignores SIGINT (and
# SIGHUP), and an ignored signal stays ignored across exec: every command line a test starts would inherit
# the ignore, baseparam keeps it on purpose (as nohup asks), and the tests that interrupt a run would wait
# for ever (test_cli_files' SIGINT case hung so). A handler that does nothing keeps this process as deaf as
# its runner asked, and exec gives the children the default action.
for _number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_number) is signal.SIG_IGN:
        signal.signal(_number, _deaf)


def pytest_configure(config):
    """Under pytest-xdist (the README's ``-n 2``): one OpenBLAS thread in every process of the run, as the
    library gives its own worker processes (``_processes.one_blas_thread``). The workers already share the
    cores, and OpenBLAS threads that wait for a busy core spin: with two threads in each of two workers on
    this 2-core machine, the floating-base, logs and row-space test files took 94 s of CPU against 50 s on
    one thread (issue 22, item 7). Set here, in the controller, before the workers start, so that they and
    every process they start (CLI runs, notebook kernels) inherit it; a value the caller set is kept. Tests
    of the thread handling set their counts themselves (threadpoolctl); a run without ``-n`` keeps the
    machine's default.

    The tests that do raise the count (threadpoolctl: a fit the same on 1 and 2 threads) get OpenBLAS threads that
    go to sleep as soon as a call ends (OPENBLAS_THREAD_TIMEOUT=4: 2⁴ cycles; OpenBLAS's default 2²⁸, ~0.1 s, of
    spinning after every call, on a core the other worker wants): the same threads and the same numbers, less CPU
    (test_floating_identification's and test_row_space's three thread tests: 7.2–7.4 → 5.1–5.4 s of CPU, two runs
    each, load ~14). OpenBLAS reads it as it loads: set here for the same reason."""
    if getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput"):
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")


# Bytecode: where PYTHONDONTWRITEBYTECODE is set (as on this machine), no process of the suite would write
# __pycache__, so every one (both xdist workers, each notebook kernel, CLI subprocess and spawned worker)
# compiled baseparam's modules from source again: ~0.1 s of CPU a CLI run, ~4 s a worker's collection of the
# tests (their assertion rewriting) and doctests. Collection imports every module of baseparam and of the
# tests, so the cache is written there, once (git-ignored __pycache__ beside the sources); the other
# processes read it. Only during collection: a test that writes a Python file and imports it (exported code)
# writes no __pycache__ beside it, and cannot read a stale one after rewriting the file within a second.
@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    was, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    yield
    sys.dont_write_bytecode = was
    # Everything collection loaded (every module of baseparam, sympy, pinocchio, the tests) lives to the end of the
    # run: out of the collector's sight, so that each full collection traverses only what the tests made (Python's
    # own full collections during the tests).
    gc.freeze()


ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
ALL_ROBOT_FILES = sorted((ROOT / "robots").glob("*.yaml"))
# The projection method, the regressors, identification and export take fixed-base robots: the
# floating-base descriptions (the space robot) are tested by the forward-dynamics tests.
FLOATING_FILES = [p for p in ALL_ROBOT_FILES if "\nbase: floating" in p.read_text(encoding="utf-8")]
ROBOT_FILES = [p for p in ALL_ROBOT_FILES if p not in FLOATING_FILES]

# The third-party data (measured trajectories, the makers' URDFs) live beside the repository in
# ../shared/data, not in it: every test that reads them carries ``needs_data`` and skips without them
# (a fresh clone, CI), so the suite passes with or without the folder.
DATA = (ROOT.parent / "shared" / "data").resolve()
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data (measured data, makers' URDFs) is absent")


def example_urdfs():
    """example-robot-data's URDFs by file name (empty when the package is not installed)."""
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    return {f.name: f.locate() for f in files if f.name.endswith(".urdf")}


EXAMPLES = example_urdfs()


@pytest.fixture(scope="session")
def root():
    return ROOT


def planar_sines(seed, samples, step):
    """The planar 3R arm (random standard parameters of ``seed``) along sines of 1, 2, 3 rad/s from phase 0.4:
    (robot, model, t, q, q̇, q̈, τ) of ``samples`` samples ``step`` s apart."""
    import numpy as np

    import baseparam as bp
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    model = bp.Model(robot, np.random.default_rng(seed).uniform(0.1, 1.0, bp.ColumnLayout(robot).n_standard))
    t = np.arange(samples) * step
    w = np.array([1.0, 2.0, 3.0])
    q = np.sin(np.outer(t, w) + 0.4)
    qd, qdd = np.cos(np.outer(t, w) + 0.4) * w, -q * w ** 2
    return robot, model, t, q, qd, qdd, bp.inverse_dynamics(model, q, qd, qdd)


def planar_arm():
    """The planar 3R arm with physical bodies (seeded masses) and friction (viscous, Coulomb, offset) on
    every joint: the simulated robot several test modules share."""
    import dataclasses

    import numpy as np

    import baseparam as bp
    rrr = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    rng = np.random.default_rng(5)
    bodies = [bp.Inertia(mass=m, com=np.array([-0.4, 0.02, 0.0]), inertia=np.diag([0.01, 0.08, 0.08]) * m)
              for m in rng.uniform(1, 3, 3)]
    joints = tuple(dataclasses.replace(j, inertia=b, friction=(0.4, 0.3, 0.1)) for j, b in zip(rrr.joints, bodies))
    return dataclasses.replace(rrr, joints=joints, source=None)


def run_in_process(*args, cwd=None):
    """``baseparam ARGS…`` run in this process by click's runner (stdout and stderr kept apart), from ``cwd`` if
    given: an object with ``returncode``, ``stdout`` and ``stderr`` as ``subprocess.run`` gives them. For tests of
    what a command writes and says (files, the lines on each stream, exit status 0 or 2), where a
    ``python -m baseparam`` process of their own only imported the library again (0.4–1 s of CPU a run); the exit
    statuses and signals of a real process have their own tests (test_cli.py, test_cli_files.py,
    test_exit_status_in_a_real_process). An exception the command let through fails the test with its traceback
    (a real process would have said "internal error")."""
    import traceback
    from types import SimpleNamespace

    from click.testing import CliRunner

    from baseparam.cli import main
    previous = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, [str(a) for a in args])
    finally:
        os.chdir(previous)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        "".join(traceback.format_exception(result.exception))
    return SimpleNamespace(returncode=result.exit_code, stdout=result.stdout, stderr=result.stderr)


def stderr_on_a_terminal(*args):
    """Run ``python -m baseparam.cli ARGS…`` with its stderr on a pseudo-terminal (progress bars shown from
    the start: ``BASEPARAM_PROGRESS_DELAY=0``): its exit status and everything it wrote there (bytes)."""
    import os
    import subprocess

    master, slave = os.openpty()
    env = {**os.environ, "BASEPARAM_PROGRESS_DELAY": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "baseparam.cli", *map(str, args)],
                            stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:                 # the other end closed: the run is over
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    return proc.wait(timeout=600), seen


@pytest.fixture(scope="session")
def puma_equations():
    """The PUMA 560's equations of motion (``bp.equations``, checked): what test_fuzz_round23_lcl3 and
    test_fuzz_round25_leq print and compare with SymPy's printers, derived once per test process (each module derived
    them before)."""
    import baseparam as bp
    return bp.equations(bp.load_robot(ROOT / "robots" / "puma560.yaml"))


@pytest.fixture(scope="session")
def space():
    """Liu et al.'s space robot floating free under joint torques, 10 s at 20 Hz, with velocity and twist noise
    (``bp.free_floating_experiment``): the floating logs' and the CLI's tests read it."""
    import numpy as np

    import baseparam as bp
    model = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    k = np.arange(1, 7)
    return bp.free_floating_experiment(model, np.linspace(0, 10, 201), lambda t, q, qd: 3 * np.sin(0.5 * k * t + k),
                                       noise=bp.SensorNoise(qd=0.001, seed=0), twist_noise=0.0005)


def one_line(result, *words):
    """Exit status 2 and one `baseparam: …` line on stderr (after any warning lines) naming each of `words`."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    lines = [line for line in result.output.strip().splitlines() if not line.startswith("baseparam: warning:")]
    assert len(lines) == 1 and lines[0].startswith("baseparam: "), result.output
    for word in words:
        assert word in lines[0], result.output


@contextlib.contextmanager
def address_space_capped(room):
    """Run the block under an address-space limit (``ulimit -v``) of this process's present size plus ``room``
    bytes, the caller's limit put back after it; skipped where Linux's /proc/self/statm cannot size it."""
    import resource

    from baseparam._memory import _statm_bytes
    used = _statm_bytes(0)
    if used is None:
        pytest.skip("no /proc/self/statm to size the address-space cap")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (used + room, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def in_threads(call, count):
    """``call(i)`` for i in 0 … count − 1, each in a thread of its own, all started before any is joined: the answers
    in that order. An exception of any thread fails the test in the caller's thread (a thread's own would only be
    printed)."""
    import threading

    results, errors = [None] * count, []

    def run(i):
        try:
            results[i] = call(i)
        except BaseException as exc:            # noqa: BLE001 (said below, in the test's thread)
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return results


def interrupted_calls(shared, step, samples, *, after=False):
    """The answers of ``shared`` (an object with a ``_lock`` and buffers) called on ``samples[0]`` in this thread and
    on ``samples[1]`` in another, whose whole call is made to fall inside the first's ``step`` (the name of a method
    or callable attribute of ``shared`` run while its buffers hold the first call's values: the C call, or with
    ``after`` the buffers' fill): the first thread's step starts the second thread and waits until that one either
    waits at the object's lock (told by the lock) or has finished (without the lock: it wrote the buffers meanwhile).
    Deterministic: the switch falls there every time, not when the scheduler happens to put it there."""
    import threading

    answers, waiting = {}, threading.Event()     # the second thread at the lock, or done

    def second():
        try:
            answers[1] = shared(*samples[1])
        finally:
            waiting.set()

    other = threading.Thread(target=second)
    lock, original = shared._lock, getattr(shared, step)

    class Told:
        """The object's lock, telling when the second thread comes to it."""
        def __enter__(self):
            if threading.current_thread() is other:
                waiting.set()
            return lock.__enter__()

        def __exit__(self, *exc):
            return lock.__exit__(*exc)

    def interrupt():
        other.start()
        assert waiting.wait(60), "the second thread neither came to the lock nor finished"

    def interrupted(*arguments):
        if threading.current_thread() is other:
            return original(*arguments)
        if not after:
            interrupt()
        result = original(*arguments)
        if after:
            interrupt()
        return result

    shared._lock = Told()
    setattr(shared, step, interrupted)
    try:
        answers[0] = shared(*samples[0])
    finally:
        if other.ident is not None:             # started
            other.join()
        shared._lock = lock
        setattr(shared, step, original)
    return [answers[0], answers.get(1)]


OVERLAP_WAIT = 10.0     # s: a guard only; a thread in a region waits for the other to be inside or at its lock


def _warning_machinery():
    return warnings.showwarning, warnings._showwarnmsg_impl, list(warnings.filters)


class _Knocking:
    """The package's warnings lock (``baseparam._warnings._RECORDING``), calling ``arrivals[thread]()`` when a thread
    asks for it, before it waits: a thread at a serialized region's door counts as arrived."""

    def __init__(self, lock, arrivals):
        self._lock, self._arrivals = lock, arrivals

    def __enter__(self):
        self._arrivals.get(threading.get_ident(), lambda: None)()
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)


def overlapping_regions(call, recwarn):
    """``call(pause)`` in two threads, ``pause()`` called inside the site's warning region (recording or filtering):
    thread A waits there until B is inside too or waiting for the package's warnings lock, then leaves first; B waits
    for A's end. Unserialized, B left last, putting back the filters or recorder A had found. The warning machinery is
    left as it was, and a later warning reaches the caller (here ``recwarn``)."""
    from baseparam import _warnings

    a_inside, b_inside, a_done = threading.Event(), threading.Event(), threading.Event()
    failures, arrivals = [], {}

    def pause_until(inside, other):
        def pause():
            if not inside.is_set():
                inside.set()
                other.wait(OVERLAP_WAIT)
        return pause

    def run(pause, done=None, arrive=None):
        if arrive is not None:
            arrivals[threading.get_ident()] = arrive
        try:
            call(pause)
        except Exception as exc:        # noqa: BLE001 - reported by the main thread
            failures.append(exc)
        finally:
            if done is not None:
                done.set()
    call(lambda: None)                  # the first call's imports add their filters
    before = _warning_machinery()
    lock = _warnings._RECORDING
    _warnings._RECORDING = _Knocking(lock, arrivals)
    try:
        first = threading.Thread(target=run, args=(pause_until(a_inside, b_inside), a_done))
        first.start()
        a_inside.wait(OVERLAP_WAIT)
        second = threading.Thread(target=run, args=(pause_until(b_inside, a_done), None, b_inside.set))
        second.start()
        first.join()
        second.join()
    finally:
        _warnings._RECORDING = lock
    assert not failures
    assert _warning_machinery() == before
    recwarn.clear()
    warnings.warn_explicit("after both regions", UserWarning, "later.py", 1, registry={})
    assert [str(w.message) for w in recwarn] == ["after both regions"]
