"""Round 20, command line leftovers (stop 44's "Left" list, set lcli), each test failing on the code before its fix."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

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
