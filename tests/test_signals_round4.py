"""Signals at every moment of a command's life (issue 28, "signal handling that cannot be swallowed").

The command's entry point (``baseparam._entry``, the console script and ``python -m baseparam``) handles
SIGINT, SIGTERM and SIGHUP from its first instruction: a signal while the command line module loads, or
after the run has written its outputs, ends the process with one line and status 128 + N (it printed a
KeyboardInterrupt traceback, or the parent saw the process killed by the signal, −2); a signal whose
exception was swallowed (an extension module's bare ``except``) still ends the run, by the watchdog.

Each test makes the child wait at a known point (an import hook, a wrapped step, an ``atexit`` function)
and says so on stdout; the signal is sent only then. Nothing depends on how long anything takes: the
``communicate`` timeouts only guard against a hang.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLANAR = ROOT / "robots" / "planar_rrr.yaml"

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL") or sys.platform == "win32",
                                reason="POSIX signals")


def _start(driver, *args, grace="3600"):
    """The driver in a fresh interpreter importing this checkout; $BASEPARAM_SIGNAL_GRACE as given."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               BASEPARAM_SIGNAL_GRACE=grace)
    return subprocess.Popen([sys.executable, "-c", driver, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)


def _wait_for(proc, marker):
    """Read the child's stdout up to the line ``marker`` (the child is then waiting for the signal)."""
    for line in proc.stdout:
        if line.strip() == marker:
            return
    _, err = proc.communicate(timeout=600)
    pytest.fail(f"the child ended before {marker!r}: status {proc.returncode}\n{err}")


def _finish(proc):
    try:
        out, err = proc.communicate(timeout=600)    # a hang guard only
    finally:
        if proc.poll() is None:
            proc.kill()
    return out, err


def _one_line(err, line):
    lines = [text for text in err.splitlines() if text.strip()]
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert lines == [line], err


def _ended_by(proc, marker, name):
    """Send signal ``name`` once the child prints ``marker``; the run must end with 128 + N and one line on stderr.
    Returns the child's stdout."""
    number = getattr(signal, name)
    _wait_for(proc, marker)
    proc.send_signal(number)
    out, err = _finish(proc)
    assert proc.returncode == 128 + number, err
    _one_line(err, _line(name))
    return out


def _line(name):
    return "baseparam: interrupted" if name == "SIGINT" else f"baseparam: terminated ({name})"


# -- 1. while the command line module loads ---------------------------------------------------------------------------
# An import hook holds the import of click (the command line module's first library) until the signal comes.
_DURING_IMPORT = """
import sys, time

class HoldClick:
    def find_spec(self, name, path=None, target=None):
        if name == "click":
            print("importing", flush=True)
            time.sleep(3600)            # only the signal ends this
        return None

sys.meta_path.insert(0, HoldClick())
from baseparam._entry import main
sys.argv = ["baseparam", "find", sys.argv[1], "--json", sys.argv[2]]
main()
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_while_the_command_line_loads_ends_in_one_line(tmp_path, name):
    """A Ctrl-C within ~0.1 s of the start printed a KeyboardInterrupt traceback; SIGTERM killed the process."""
    proc = _start(_DURING_IMPORT, PLANAR, tmp_path / "out.json")
    _ended_by(proc, "importing", name)
    assert list(tmp_path.iterdir()) == []


# -- 2. after the outputs are written ---------------------------------------------------------------------------------
# The command line's run is over (its outputs renamed into place, its handlers restored): the driver holds
# the process there, on the way out of the command line module, until the signal comes.
_AFTER_THE_RUN = """
import sys, time
import baseparam.cli as cli

real_main = cli._OneLineErrors.main

def main_then_wait(self, *args, **kwargs):
    try:
        return real_main(self, *args, **kwargs)
    finally:
        print("written", flush=True)
        time.sleep(3600)                # only the signal ends this

cli._OneLineErrors.main = main_then_wait
from baseparam._entry import main
sys.argv = ["baseparam", "find", sys.argv[1], "--json", sys.argv[2]]
main()
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_right_after_the_outputs_are_written_gives_128_plus_n(tmp_path, name):
    """A Ctrl-C there ended the process by the signal (status −2 seen by the parent), with a traceback. The run
    failed (128 + N): its output, placed before the signal, is taken back (round 20: it stayed, whole)."""
    out = tmp_path / "out.json"
    proc = _start(_AFTER_THE_RUN, PLANAR, out)
    _ended_by(proc, "written", name)
    assert list(tmp_path.iterdir()) == []                # neither the output nor its old version's temporary


# The process's own exit: atexit functions run (multiprocessing's, here the driver's), with a signal noted,
# never raised, from then on. The driver's function waits until the signal has been noted.
_AT_EXIT = """
import atexit, sys, time
from baseparam import _entry

def at_exit():
    print("exiting", flush=True)
    while not _entry._NOTED:
        time.sleep(0.001)
    print("noted", flush=True)

atexit.register(at_exit)
sys.argv = ["baseparam", "find", sys.argv[1], "--json", sys.argv[2]]
_entry.main()
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_process_exits_is_noted_not_raised(tmp_path, name):
    out = tmp_path / "out.json"
    proc = _start(_AT_EXIT, PLANAR, out)
    stdout = _ended_by(proc, "exiting", name)
    assert "noted" in stdout.split()                      # the atexit function went on to its end
    assert list(tmp_path.iterdir()) == []                 # a failed run's output taken back (round 20: it stayed)


# -- 3. a signal whose exception is swallowed -------------------------------------------------------------------------
# The run under test writes an HDF5 file; its storing step is replaced by one that swallows every exception,
# as an extension module's bare ``except`` did (numpy.random's import-time code swallowed a KeyboardInterrupt:
# `identify` went on and exited 0), and never returns by itself.
_SWALLOWING_RUN = """
import sys, time
import baseparam.projection.storage as storage
from baseparam._entry import main

def swallowing_store(*args, **kwargs):
    said = []
    while True:
        try:                            # the signal may come as soon as "storing" is out: already in the try
            if not said:
                print("storing", flush=True)
                said.append(True)
            time.sleep(3600)
        except BaseException:
            print("swallowed", flush=True)

storage._store = swallowing_store
sys.argv = ["baseparam", "find", sys.argv[1], "--h5", sys.argv[2]]
main()
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_swallowed_signal_still_ends_the_run_and_removes_its_temporary_file(tmp_path, name):
    """The watchdog (grace 0 here) ends the run the stack could not unwind, and removes the HDF5 temporary."""
    number = getattr(signal, name)
    out = tmp_path / "out"
    out.mkdir()
    proc = _start(_SWALLOWING_RUN, PLANAR, out / "z.h5", grace="0")
    _wait_for(proc, "storing")
    assert any(p.name.startswith(".baseparam-") for p in out.iterdir())   # the HDF5 file is being written
    proc.send_signal(number)
    _, err = _finish(proc)
    assert proc.returncode == 128 + number, err
    _one_line(err, _line(name))
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_second_sigterm_ends_a_run_that_swallowed_the_first(tmp_path, name):
    """With an hour's grace: the first signal is swallowed (the child says so), the second ends the run."""
    number = getattr(signal, name)
    out = tmp_path / "out"
    out.mkdir()
    proc = _start(_SWALLOWING_RUN, PLANAR, out / "z.h5")
    _wait_for(proc, "storing")
    proc.send_signal(number)
    _ended_by(proc, "swallowed", name)
    assert list(out.iterdir()) == []


# The main thread inside a C call that never returns to Python: pthread_join (never interrupted by a signal) of
# a C thread running sleep(3600) with the signals blocked. No Python handler can run, only the C-level one,
# which writes to the watchdog's pipe.
_STUCK_RUN = """
import ctypes, signal, sys
import baseparam.projection.storage as storage
from baseparam._entry import main

def stuck_store(*args, **kwargs):
    libc = ctypes.CDLL(None)
    thread = ctypes.c_ulong()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})   # inherited by the thread
    assert libc.pthread_create(ctypes.byref(thread), None, ctypes.cast(libc.sleep, ctypes.c_void_p),
                               ctypes.c_void_p(3600)) == 0
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    print("storing", flush=True)
    libc.pthread_join(thread, None)     # returns in an hour

storage._store = stuck_store
sys.argv = ["baseparam", "find", sys.argv[1], "--h5", sys.argv[2]]
main()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pthread_join through ctypes (glibc)")
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_ends_a_run_stuck_in_a_c_call(tmp_path, name):
    out = tmp_path / "out"
    out.mkdir()
    proc = _start(_STUCK_RUN, PLANAR, out / "z.h5", grace="0")
    _ended_by(proc, "storing", name)
    assert list(out.iterdir()) == []


# A run that goes on to its end after a swallowed signal: its outputs are whole, its status still says so.
_SWALLOWED_THEN_DONE = """
import sys, time
import baseparam.projection.storage as storage
from baseparam._entry import main

real_store = storage._store

def store_after_swallowing(*args, **kwargs):
    try:                                # the signal may come as soon as "storing" is out: already in the try
        print("storing", flush=True)
        time.sleep(3600)
    except BaseException:
        print("swallowed", flush=True)
    return real_store(*args, **kwargs)

storage._store = store_after_swallowing
sys.argv = ["baseparam", "find", sys.argv[1], "--h5", sys.argv[2]]
main()
"""


def test_a_run_that_went_on_after_a_swallowed_ctrl_c_ends_with_130(tmp_path):
    out = tmp_path / "z.h5"
    proc = _start(_SWALLOWED_THEN_DONE, PLANAR, out)
    _wait_for(proc, "storing")
    proc.send_signal(signal.SIGINT)
    stdout, err = _finish(proc)
    assert "swallowed" in stdout.split()
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "baseparam: interrupted", err
    assert "Traceback" not in err


# -- 4. the watchdog and forked children ------------------------------------------------------------------------------
_FORKED_CHILD = """
import os, signal
from baseparam import _entry

_entry._install(_entry._on_signal)
_entry._PHASE[0] = "ending"            # the handler notes, never raises or exits
_entry._start_watchdog()
pid = os.fork()
if pid == 0:                            # the child's signal is its own: not written to the parent's pipe
    signal.raise_signal(signal.SIGTERM)
    os._exit(0)
os.waitpid(pid, 0)
_entry._drain()
print(sorted(_entry._HEARD))
os._exit(0)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_childs_signal_is_not_the_parents():
    """multiprocessing's fork start method: pool.terminate() sends its workers SIGTERM; the parent's
    watchdog must not take it for its own and end the run."""
    proc = _start(_FORKED_CHILD)
    out, err = _finish(proc)
    assert proc.returncode == 0, err
    assert out.strip() == "[]", err


# -- 5. the entry points ----------------------------------------------------------------------------------------------
def test_console_script_and_python_m_use_the_entry_point(tmp_path):
    try:
        import tomllib
    except ImportError:             # Python 3.10
        tomllib = pytest.importorskip("tomli")
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["baseparam"] == "baseparam._entry:main"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    ok = subprocess.run([sys.executable, "-m", "baseparam", "find", str(PLANAR), "--json", str(tmp_path / "a.json")],
                        capture_output=True, text=True, env=env, timeout=600)
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "a.json").read_text())["robot"]
    bad = subprocess.run([sys.executable, "-m", "baseparam", "find", str(tmp_path / "missing.yaml")],
                         capture_output=True, text=True, env=env, timeout=600)
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "missing.yaml" in bad.stderr


def test_the_temporary_files_registry_is_empty_after_writes(tmp_path):
    """What the watchdog removes: only writes in progress, never a finished or failed one."""
    from baseparam import _atomic
    from baseparam.errors import StorageError

    _atomic.write_text(tmp_path / "a.txt", "a\n")
    _atomic.write_texts({str(tmp_path / "b.txt"): "b\n", str(tmp_path / "a.txt"): "A\n"})
    with pytest.raises(RuntimeError), _atomic.atomic_path(tmp_path / "c.txt") as tmp:
        assert tmp in _atomic._LIVE
        raise RuntimeError("a write that fails")
    (tmp_path / "link").symlink_to(tmp_path / "a.txt")
    with pytest.raises(StorageError):
        _atomic.write_text(tmp_path / "link", "x")
    assert _atomic._LIVE == set()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt", "link"]


def test_the_entry_point_loads_nothing_before_its_handlers():
    """What runs before the handlers are in place is the window a signal still finds Python's defaults in:
    the entry module loads neither the command line module nor click (nor numpy) by itself."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", "import json, sys, baseparam._entry\n"
                           "print(json.dumps(sorted(sys.modules)))"], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout))
    assert not modules & {"baseparam.cli", "click", "numpy"}


def test_the_line_is_said_once_when_the_watchdog_said_it_first():
    """Under load the watchdog (a second SIGTERM/SIGHUP) and the unwinding main thread may end the run at the
    same moment: both take the entry point's one lock, so the line is written once (it was written twice)."""
    code = ("import baseparam._entry as e, baseparam.cli as c\n"
            "if {said}: e._say(1)\n"
            "c._stopped('terminated (SIGHUP)', 129)\n")
    for said in (True, False):
        proc = subprocess.run([sys.executable, "-c", code.format(said=said)], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 129
        assert proc.stderr.count("baseparam: terminated (SIGHUP)") == 1, proc.stderr


def test_the_watchdog_waits_for_the_line_the_main_thread_is_writing():
    """The other order: the main thread took the line and is still writing it when the watchdog ends the run; the
    watchdog waits until it is out (it ended the process first, and the line was lost: no line at all)."""
    code = ("import os, threading, time\n"
            "import baseparam._entry as e\n"
            "e._WRITE_WAIT = 60.0\n"
            "entered = threading.Event()\n"
            "def slow():\n"
            "    entered.set(); time.sleep(0.2); os.write(2, b'baseparam: terminated (SIGHUP)\\n')\n"
            "t = threading.Thread(target=e.say_once, args=(slow,)); t.start()\n"
            "entered.wait()\n"
            "e._say(1, flush=False)\n"
            "os.write(2, b'ended\\n')\n"
            "os._exit(129)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 129
    assert proc.stderr.splitlines() == ["baseparam: terminated (SIGHUP)", "ended"], proc.stderr


def test_the_watchdogs_clean_up_takes_a_half_imported_atomic_module(monkeypatch):
    """The watchdog may end the run while the main thread is still importing baseparam._atomic (its _checks loads
    numpy; a second SIGTERM, or no grace): the module is in sys.modules without its functions yet. Its clean-up
    must not fail there (an AttributeError killed the watchdog thread with a traceback, and the process was not
    ended)."""
    import types

    from baseparam import _entry
    monkeypatch.setitem(sys.modules, "baseparam._atomic", types.ModuleType("baseparam._atomic"))
    _entry._remove_temporaries()
    monkeypatch.delitem(sys.modules, "baseparam._atomic")
    _entry._remove_temporaries()


def test_processes_the_tests_start_are_not_deaf_to_signals():
    """Processes the tests start take SIGINT, SIGTERM and SIGHUP at their default action even when the suite
    runs in the background (its runner ignoring them: conftest's handler that does nothing), or every test that
    interrupts a command line would wait for ever."""
    probe = ("import signal\n"
             "print([signal.getsignal(s) is signal.SIG_IGN for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[False, False, False]", out
