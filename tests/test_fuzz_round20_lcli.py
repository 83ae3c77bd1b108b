"""Round 20, command line leftovers (stop 44's "Left" list, set lcli), each test failing on the code before its fix."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings

import pytest

from conftest import ROOT

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
posix = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


# --- 1. a signal in a run's last instants: the run fails (128 + N) and leaves none of its outputs ---

# `find --json o.json`, a SIGTERM sent to itself at one point of the run's end (argv[1]): the interpreter's
# ending (an atexit function, after the report), just after the run's outputs block (report written, still in the
# command line), or just after the run's end settled its outputs (the last instructions: ignored, status 0).
_SIGNAL_AT = """
import atexit, contextlib, os, signal, sys
from baseparam import _atomic, _entry

def kill():
    os.kill(os.getpid(), signal.SIGTERM)

where = sys.argv[1]
if where == "exiting":
    atexit.register(kill)
elif where == "after the report":
    kept = _atomic.outputs_kept

    @contextlib.contextmanager
    def then_signal(*args, **kwargs):
        with kept(*args, **kwargs):
            yield
        kill()
    _atomic.outputs_kept = then_signal
else:
    settle = _atomic.settle_kept

    def then_signal(keep):
        kept = settle(keep)
        kill()
        return kept
    _atomic.settle_kept = then_signal
sys.argv = ["baseparam", "find", sys.argv[2], "--json", "o.json"]
_entry.main()
"""


@posix
@pytest.mark.parametrize(("where", "grace"), [("exiting", "0"), ("after the report", "3"), ("settled", "0")])
def test_a_signal_at_the_end_of_a_run_fails_it_and_takes_its_outputs_back(tmp_path, where, grace):
    """A SIGTERM in a run's last 25–100 ms (outputs placed, report written, the interpreter ending) gave status 143
    with the outputs kept (fzcli: 1 in 300), against "a run that fails leaves none of its outputs" (docs/cli.md).
    The outputs are now held (their old versions aside) until the process's last instructions: a signal up to
    there fails the run, its outputs taken back (an old version returns); one after (the run settled with its
    outputs) is ignored, status 0. With no grace, the watchdog ends the run itself, taking them back as well."""
    (tmp_path / "o.json").write_text("old")
    done = subprocess.run([sys.executable, "-c", _SIGNAL_AT, where, PLANAR], capture_output=True, text=True,
                          env=dict(ENV, BASEPARAM_SIGNAL_GRACE=grace), timeout=120, cwd=tmp_path)
    assert "wrote o.json" in done.stdout                            # the signal came after the report
    if where == "settled":
        assert (done.returncode, done.stderr) == (0, "")
        assert (tmp_path / "o.json").read_text().startswith("{")
    else:
        assert (done.returncode, done.stderr) == (128 + signal.SIGTERM, "baseparam: terminated (SIGTERM)\n")
        assert (tmp_path / "o.json").read_text() == "old"
    assert os.listdir(tmp_path) == ["o.json"]                       # no temporary file, no old version aside


# --- 2. two sets written at once into one folder are not mixed ---

@posix
def test_two_sets_placed_at_once_in_one_folder_are_not_mixed(tmp_path, monkeypatch):
    """Two `export`s into one folder each renamed their files in turn: a second run's renames between the first's
    left one run's o.json beside the other's o_dynamics.py. A set's renames (and their undo) now hold the folder's
    lock. Here the second set is written (in a thread) just after the first set's first rename; it completes at
    once (before the fix: the first set's second file then lands beside it) or waits for the lock."""
    import fcntl
    import threading

    from baseparam._atomic import write_texts

    names = [str(tmp_path / "o.json"), str(tmp_path / "o_dynamics.py")]
    first_placed = os.path.realpath(names[0])
    second_settled = threading.Event()        # the second set written whole, or waiting for the folder's lock
    real_replace, real_flock = os.replace, fcntl.flock

    def second():
        try:
            write_texts(dict.fromkeys(names, "second"))
        finally:
            second_settled.set()

    writer = threading.Thread(target=second, name="second")

    def replace(source, target):
        real_replace(source, target)
        if threading.current_thread() is not writer and os.fspath(target) == first_placed and not writer.is_alive():
            writer.start()
            assert second_settled.wait(60)    # a hang guard only

    def flock(fd, operation):
        try:
            return real_flock(fd, operation)
        except BlockingIOError:
            if threading.current_thread() is writer:
                second_settled.set()
            raise

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(fcntl, "flock", flock)
    # the lock's wait on no clock: 5 s, and a main thread slower than that on a loaded machine let the second set
    # go ahead unlocked — the test failed for the machine's load, not the code
    monkeypatch.setattr("baseparam._atomic._FOLDER_LOCK_WAIT", 600.0)
    write_texts(dict.fromkeys(names, "first"))
    writer.join(60)
    assert [open(name).read() for name in names] == ["second", "second"]     # the last set, whole
    assert sorted(os.listdir(tmp_path)) == ["o.json", "o_dynamics.py"]


# --- 3. tidiness: the kernel cache's folder, the notebooks' imports, a relative deviation of an exact 0 ---

def test_a_compile_that_fails_leaves_no_empty_cache_folder(tmp_path, monkeypatch):
    """A kernel compiled on a full $HOME (the compiler cannot write kernel.so: it fails) left an empty
    ~/.cache/baseparam: made before the compile, never removed. The folders a compile made are removed again when
    it keeps nothing in them; the run goes on with Python's kernels (None) as before."""
    from baseparam.dynamics import _native

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setattr(_native, "_run_compiler", lambda command: 1)        # what cc says on a full disk
    path = home / ".cache" / "baseparam" / "kernel-0123.so"
    assert _native._compile("cc", "int f(void) { return 0; }\n", str(path), _native.FLAGS, {}) is None
    assert os.listdir(home) == []


def test_the_notebooks_and_their_helpers_import_public_names_only():
    """notebooks/_helpers.py took payload_parameters and body_parameters from module paths
    (baseparam.identification.payload, baseparam.model.parameters), which the notebooks' readers cannot: the
    notebooks show the public names (``bp.X``, a subpackage's ``__all__``). Every import of baseparam there now
    names a package and its public names; robot_values is built from bp.standard_parameters."""
    import ast
    import importlib

    private = []
    for source in sorted((ROOT / "notebooks").glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                private += [(source.name, a.name) for a in node.names if a.name.startswith("baseparam.")]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "baseparam":
                module = importlib.import_module(node.module)
                public = getattr(module, "__all__", []) if hasattr(module, "__path__") else []   # a package's
                private += [(source.name, f"{node.module}.{a.name}") for a in node.names if a.name not in public]
    assert private == []


@pytest.fixture
def planar_fit():
    """An OLS identification of the planar arm from its simulated torques (150 samples, a little noise)."""
    import numpy as np

    import baseparam as bp
    from conftest import planar_sines

    robot, _model, t, q, _qd, _qdd, tau = planar_sines(1, 150, 0.01)
    noise = np.random.default_rng(0).normal(0.0, 1e-3, tau.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)     # two parameters poorly identified: not the point
        return bp.identify(robot, bp.Trajectory(t=t, q=q, tau=tau + noise))


def test_the_relative_deviation_of_an_estimate_of_exactly_0_is_said_in_words(planar_fit):
    """A base parameter estimated as exactly 0 (σ finite) has no relative deviation (σ/0: null in the JSON); the
    report's 'rel std %' column printed "–", which reads as "none" (or as a dash for a negative). It now says
    'value 0'; a parameter the data do not determine keeps "–" beside its std's 'undetermined'."""
    import numpy as np

    e = planar_fit.estimator
    e.coef_[0], e.rel_std_percent_[0] = 0.0, np.inf          # what the fit leaves for an estimate of exactly 0
    row = planar_fit.summary().splitlines()[4]
    assert row.split()[:3] == ["1", e.names_[0], "0"] and row.split()[4:6] == ["value", "0"], row
    assert planar_fit.to_dict()["base"][0]["rel_std_percent"] is None
