"""Round 21, command line leftovers (stop 45's "Left" list, set lcli), each test failing on the code before its fix."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from baseparam.errors import printable
from conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
posix = pytest.mark.skipif(os.name != "posix", reason="POSIX file names and signals")


# --- 1. a file name's non-UTF-8-decoded bytes shown as the user typed them, not as \udcXX ---

@pytest.mark.parametrize("raw, shown", [
    (b"\xc3\xa9t\xc3\xa9.yaml", "été.yaml"),             # UTF-8 under LC_ALL=C: each byte escaped by Python
    (b"\xe9t\xe9.yaml", "\\xe9t\\xe9.yaml"),              # Latin-1 bytes that spell no UTF-8: each byte escaped
    (b"a\xc2\x9b[2Jb\n", "a\\x9b[2Jb\\n"),               # UTF-8 that spells a control character (CSI): escaped
    (b"\xe2\x80\xe9", "\\xe2\\x80\\xe9"),                 # a UTF-8 sequence cut short
])
def test_surrogate_escaped_bytes_are_shown_as_the_text_they_spell_or_as_bytes(raw, shown):
    # what Python makes of such a name under a locale whose encoding lacks those bytes (surrogateescape)
    assert printable(raw.decode("ascii", "surrogateescape")) == shown


@posix
def test_a_non_ascii_file_name_under_the_c_locale_is_said_with_the_bytes_typed(tmp_path):
    name = os.fsencode(tmp_path) + b"/\xc3\xa9t\xc3\xa9.yaml"      # not there: refused, naming it
    env = dict(ENV, LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    run = subprocess.run([sys.executable, "-m", "baseparam", "find", name], env=env, capture_output=True,
                         timeout=60)
    assert run.returncode == 2, run.stderr
    # click writes UTF-8 to a stream Python thinks ASCII: the name's own bytes, where it was "\udcc3\udca9t…"
    assert run.stderr == b"baseparam: " + name + b": cannot read: No such file or directory\n"


# --- 2. a stopped `identify --scheduler local` ends at once: its workers killed before the cluster's close ---

class _Worker:
    """A nanny's worker process as distributed.nanny.WorkerProcess shows it (is_alive, pid): here a real child
    process, busy for a few seconds as a worker in a log's reduction is."""

    def __init__(self):
        self.child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(4)"])
        self.pid = self.child.pid

    def is_alive(self):
        return self.child.poll() is None


class _Cluster:
    """A LocalCluster whose close, as Dask's, waits for its workers' processes to end (a worker finishes its task
    first); it records how each ended."""
    made = []

    def __init__(self, **options):
        self.workers = {k: type("Nanny", (), {"process": _Worker()})() for k in range(options["n_workers"])}
        self.ended = None
        _Cluster.made.append(self)

    def close(self):
        self.ended = [nanny.process.child.wait(timeout=60) for nanny in self.workers.values()]


class _Client:
    """A client on which the run is stopped (Ctrl-C) while it waits for the logs' results."""

    def __init__(self, address, timeout):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def scatter(self, data, broadcast):
        return data

    def submit(self, *args, **kwargs):
        return None


def _stopped_while_waiting(futures):
    raise KeyboardInterrupt


@posix
def test_a_local_cluster_left_by_a_stop_has_its_workers_killed_before_its_close(monkeypatch):
    """Ctrl-C or SIGTERM to `identify --scheduler local`: the cluster's close waited for each worker to finish the log
    it was reducing, and the command line's watchdog ended the run 3 s after the signal (2–3.3 s in 20 runs); the
    workers are now killed first (the close then takes 0.03 s: 0.05–0.2 s from the signal to the exit). Here the close
    waits for the workers as Dask's does, and the test checks how they ended, not how long it took."""
    distributed = pytest.importorskip("distributed")
    from distributed.nanny import WorkerProcess

    from baseparam.identification import _workers
    assert callable(WorkerProcess.is_alive) and isinstance(WorkerProcess.pid, property)   # what _Worker stands for
    _Cluster.made.clear()
    monkeypatch.setattr(distributed, "LocalCluster", _Cluster)
    monkeypatch.setattr(distributed, "Client", _Client)
    monkeypatch.setattr(distributed, "as_completed", _stopped_while_waiting)
    with pytest.raises(KeyboardInterrupt):
        _workers.map_logs(["a.csv", "b.csv"], {"reduce": None}, [None, None], workers=2, scheduler="local")
    [cluster] = _Cluster.made
    # killed, not ended after their 4 s of work (status 0)
    assert cluster.ended == [-signal.SIGKILL] * 2


# --- 3. MPLBACKEND named when the backend it chose cannot write the figure's format ---

def test_a_format_the_backend_of_mplbackend_lacks_is_refused_naming_mplbackend(tmp_path, monkeypatch):
    """`MPLBACKEND=pdf … --plot f.png` was refused "unsupported plot format '.png' (use one of .pdf)": Agg writes
    .png, and nothing said that the variable chose the backend that does not."""
    import baseparam as bp
    from baseparam import _figures

    _figures.pyplot()               # pyplot loaded first, with Agg: the process's backend is not switched below
    from matplotlib.backends.backend_pdf import FigureCanvasPdf
    from matplotlib.figure import Figure

    figure = Figure()
    FigureCanvasPdf(figure)         # what MPLBACKEND=pdf gives each figure
    monkeypatch.setenv("MPLBACKEND", "pdf")
    with pytest.raises(bp.ArgumentError, match=r"'\.png' \(use one of \.pdf; MPLBACKEND='pdf' chose a backend that "
                                                r"writes no other: unset it to write with Agg\)$"):
        _figures.save_figure(figure, tmp_path / "f.png")
    with pytest.raises(bp.ArgumentError, match=r"'\.xyz' \(use one of \.pdf\)$"):      # a format none writes
        _figures.save_figure(figure, tmp_path / "f.xyz")
    assert list(tmp_path.iterdir()) == []


# --- 3. the command line's end reaps multiprocessing's resource tracker (no defunct process left to PID 1) ---

# Runs argv[1:] as a child subreaper (Linux): the processes the run leaves behind are given to this process when it
# ends, instead of to PID 1; prints how many it got, then reaps them.
_REAPER = """
import ctypes, os, subprocess, sys
if ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) != 0:          # PR_SET_CHILD_SUBREAPER
    print("no subreaper"); sys.exit()
run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
left = 0
while True:
    try:
        os.waitpid(-1, 0)
        left += 1
    except ChildProcessError:
        break
print(run.returncode, left, repr(run.stderr))
"""

# A run that started the tracker (as a pool of workers does), then ends as the entry point ends a run, or as the
# command line ends a stopped one
_ENDS = {
    "finished": "from baseparam import _entry; _entry._end(0)",
    "stopped": "from baseparam import cli; cli._stopped('interrupted', 130)",
}


@posix
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper (prctl)")
@pytest.mark.parametrize("end, status", [("finished", 0), ("stopped", 130)])
def test_the_resource_tracker_of_a_run_with_workers_is_reaped_by_the_run(end, status):
    """After `excite --workers 2`, `identify --workers 2` or `--scheduler local`, one defunct "python" stayed under
    PID 1 (which, in a container, may never reap it): multiprocessing's resource tracker, which ends only once the
    process that started it has. The run now stops it and waits for it before it ends."""
    script = "from multiprocessing import resource_tracker; resource_tracker.ensure_running(); " + _ENDS[end]
    run = subprocess.run([sys.executable, "-c", _REAPER, sys.executable, "-c", script], env=ENV, capture_output=True,
                         text=True, timeout=120)
    if run.stdout.strip() == "no subreaper":
        pytest.skip("no child subreaper here")
    said = "baseparam: interrupted\n" if status else ""
    assert run.stdout.split(" ", 2) == [str(status), "0", repr(said) + "\n"], run.stdout + run.stderr
