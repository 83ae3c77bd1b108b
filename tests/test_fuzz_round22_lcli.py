"""Round 22 (lcli): the command line's leftovers of the last fuzz round, each fixed at its root."""

import socket
import threading

import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT, one_line

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _empty_log(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n")
    return log


def _closed_port():
    """A local TCP port nothing listens on (bound, then closed: refused until another process takes it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- 1. --scheduler at an address where nothing listens ---

def test_a_scheduler_address_nothing_listens_at_is_refused_after_the_connect_timeout(tmp_path):
    """`identify --scheduler tcp://127.0.0.1:1` waited the whole 20 s of the handshake (Dask retries a refused
    connection until its timeout), then said "Timed out trying to connect": now the connection has
    --connect-timeout (2 s by default), and the refusal is named. The bound on the wait is on a thread's join,
    not a timing: 20 s of retries would pass a 2 s timeout only if the refusal were not the one bounded."""
    pytest.importorskip("distributed")
    log = _empty_log(tmp_path)
    address = f"tcp://127.0.0.1:{_closed_port()}"
    outcome = []
    runner = threading.Thread(target=lambda: outcome.append(
        _run("identify", PLANAR, log, "--scheduler", address, "--connect-timeout", "1")), daemon=True)
    runner.start()
    runner.join(120)
    assert outcome, "identify --scheduler still connecting after 120 s"
    # the last try's refusal is named when it was one (on a busy machine the last try may time out instead)
    one_line(outcome[0], "--scheduler", address, "no connection within 1 s")
    assert "TCPConnector" not in outcome[0].output


def test_a_refusal_is_named_by_its_own_words():
    """Dask's "Timed out trying to connect" keeps the last refusal in a CommClosedError naming a connector object
    ("in <distributed.comm.tcp.TCPConnector object at 0x…>: ConnectionRefusedError: …"): its OSError's words only."""
    from baseparam.identification._workers import _why
    refused = ConnectionRefusedError(111, "Connection refused")
    wrapped = OSError("in <distributed.comm.tcp.TCPConnector object at 0x7f>: ConnectionRefusedError: …")
    wrapped.__cause__ = refused
    timed_out = OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 2 s")
    timed_out.__cause__ = wrapped
    assert _why(timed_out, 2) == "no connection within 2 s: Connection refused"


def test_the_connect_timeout_is_checked_and_defaults_to_two_seconds(tmp_path):
    import inspect

    from baseparam.identification.logs import identify_logs
    assert inspect.signature(identify_logs).parameters["connect_timeout"].default == 2
    one_line(_run("identify", PLANAR, _empty_log(tmp_path), "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout",
                  "-1"), "--connect-timeout", "> 0")


# --- 2. --scheduler LOCAL, 'local ' ---

@pytest.mark.parametrize("spelling", ["LOCAL", "local ", " Local"])
def test_local_in_another_case_or_with_spaces_is_the_local_cluster(spelling):
    """`--scheduler LOCAL` / `'local '` were taken as addresses: "missing port number in address 'LOCAL'"."""
    from baseparam.identification._workers import scheduler_named
    assert scheduler_named(spelling) == "local"
    assert scheduler_named(" tcp://10.0.0.5:8786 ") == "tcp://10.0.0.5:8786"
    assert scheduler_named("tcp://Local:8786") == "tcp://Local:8786"


def test_local_in_capitals_reaches_the_local_cluster_from_the_command_line(tmp_path, monkeypatch):
    """The command line's --scheduler LOCAL reaches the local cluster's branch (stubbed: no cluster started)."""
    pytest.importorskip("distributed")
    import baseparam.identification._workers as workers
    seen = []

    def on_dask(logs, task, folds, n, scheduler, report, connect_timeout):
        seen.append(scheduler)
        raise workers.SettingsError("scheduler: stub")
    monkeypatch.setattr(workers, "_on_dask", on_dask)
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{k * 0.01},{k % 3},{k % 5},{k % 7},1,2,3\n"
                                                           for k in range(50)))
    _run("identify", PLANAR, log, "--scheduler", "LOCAL")
    assert seen == ["local"], seen


# --- 3. a limit of the process met (ulimit -n, ulimit -v): the resource named, not the robot file ---

@pytest.mark.parametrize("error", [OSError(24, "Too many open files"), MemoryError()], ids=["ulimit -n", "ulimit -v"])
def test_a_limit_of_the_process_met_does_not_name_the_robot_file(monkeypatch, error):
    """Under `ulimit -n 16`, `identify ROBOT.urdf A.npz B.npz --workers 2` said "ROBOT.urdf: too many open files
    (…)": the line named the robot file as if it were bad. Now the resource alone, exit 2."""
    from baseparam.model import loading

    def exhausted(*args, **kwargs):
        raise error
    monkeypatch.setattr(loading, "load_robot", exhausted)
    result = _run("describe", PLANAR)
    one_line(result, "too many open files" if isinstance(error, OSError) else "out of memory (MemoryError")
    assert "planar_rrr" not in result.output and result.output.startswith(
        "baseparam: too many" if isinstance(error, OSError) else "baseparam: out of memory"), result.output


def test_a_local_cluster_the_open_files_limit_cannot_hold_is_refused_before_it_starts(tmp_path, monkeypatch):
    """`identify A.npz B.npz --scheduler local --workers 2` under `ulimit -n 16`: the cluster's scheduler, refused a
    descriptor for each connection, was retried by its event loop for good, a traceback "OSError: [Errno 24] Too
    many open files" per try (killed after 120 s). Refused now before the cluster starts (limit faked here)."""
    pytest.importorskip("distributed")
    import distributed

    import baseparam._processes as processes
    started = []
    monkeypatch.setattr(distributed, "LocalCluster", lambda *a, **k: started.append(k) or 1 / 0)
    monkeypatch.setattr(processes, "_files_free", lambda: 10, raising=False)
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{k * 0.01},{k % 3},{k % 5},{k % 7},1,2,3\n"
                                                           for k in range(50)))
    result = _run("identify", PLANAR, log, "--scheduler", "local", "--workers", "2")
    one_line(result, "too many open files")
    assert not started and "planar_rrr" not in result.output


def test_the_open_files_left_are_counted():
    """What the check above reads: this process's limit less its open descriptors (None where unknown)."""
    import os

    from baseparam._processes import _files_free
    resource = pytest.importorskip("resource")
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    free = _files_free()
    if soft == resource.RLIM_INFINITY or not os.path.isdir("/proc/self/fd"):
        pytest.skip("no finite limit, or no /proc/self/fd")
    assert 0 < free < soft


# --- 7. a KeyboardInterrupt while the local cluster starts (library use) ---

_INTERRUPTED_START = """
import asyncio, multiprocessing, os, signal, threading, time
from distributed.deploy.spec import SpecCluster
from baseparam.identification._workers import map_logs
started = SpecCluster._correct_state
async def interrupted(self):            # Ctrl-C once the workers have started, before the cluster returns
    await started(self)
    if not getattr(interrupted, "fired", False):
        interrupted.fired = True
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(3)
SpecCluster._correct_state = interrupted
try:
    map_logs(["x"], {"reduce": len}, [None], workers=1, scheduler="local")
except KeyboardInterrupt:
    print("interrupted")
deadline = time.monotonic() + 30
while multiprocessing.active_children() and time.monotonic() < deadline:
    time.sleep(0.1)
print(len(SpecCluster._instances), len(multiprocessing.active_children()),
      sorted(t.name for t in threading.enumerate() if t.name == "IO loop"))
"""


def test_a_keyboard_interrupt_while_the_local_cluster_starts_leaves_nothing_running():
    """A Ctrl-C (in a notebook: the caller goes on) while `scheduler='local'` started its cluster left it running:
    Dask closes a cluster whose start failed on an Exception only; its scheduler, IO loop and workers stayed."""
    pytest.importorskip("distributed")
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", _INTERRUPTED_START], env=env, capture_output=True, text=True,
                          timeout=300)
    lines = done.stdout.splitlines()
    assert lines[:1] == ["interrupted"], (done.stdout, done.stderr[-2000:])
    assert lines[1] == "0 0 []", lines


# --- 5. the named semaphores of a pool whose run and resource tracker were killed together ---

def test_stale_semaphores_of_killed_runs_are_removed_and_live_ones_kept(tmp_path):
    """A SIGKILL of `excite --workers 2`'s process group (`timeout -s KILL`, `kill -9 -PGID`) killed its resource
    tracker too: the pool's 11 sem.mp-… files stayed in /dev/shm for good (a SIGKILL of the run alone leaves none:
    the tracker unlinks them). Removed when a later run starts its pool: old, ours, and mapped by no process."""
    import mmap
    import os
    import time

    from baseparam._processes import SEMAPHORE_AGE, stale_semaphores_removed
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc")
    old = time.time() - SEMAPHORE_AGE - 60
    for name in ("sem.mp-stale", "sem.mp-live", "sem.mp-young", "other"):
        (tmp_path / name).write_bytes(b"\0" * 32)
        if name != "sem.mp-young":
            os.utime(tmp_path / name, (old, old))
    (tmp_path / "sem.mp-link").symlink_to(tmp_path / "other")
    os.utime(tmp_path / "sem.mp-link", (old, old), follow_symlinks=False)
    with open(tmp_path / "sem.mp-live", "r+b") as file, mmap.mmap(file.fileno(), 32):
        stale_semaphores_removed(str(tmp_path))
        assert sorted(p.name for p in tmp_path.iterdir()) == ["other", "sem.mp-link", "sem.mp-live", "sem.mp-young"]


# --- 6. a forced end (second signal): the workers' stop and the tracker's reaping share one bound ---

def test_a_forced_end_gives_the_tracker_only_what_the_workers_stop_left(monkeypatch):
    """A second signal's forced end gave the workers' stop a second, then the resource tracker's reaping another:
    a worker holding the tracker's pipe made it wait both (~2 s). Now one bound for the two: a stop that takes all
    of it leaves the tracker nothing to wait."""
    import multiprocessing.resource_tracker  # noqa: F401 — loaded, as in a run with workers
    import multiprocessing.util  # noqa: F401
    import threading

    import baseparam._entry as entry
    import baseparam._processes as processes
    never = threading.Event()
    given = []
    monkeypatch.setattr(processes, "end_children", lambda *a, **k: never.wait(30))
    monkeypatch.setattr(processes, "tracker_reaped", lambda wait=1.0: given.append(wait))
    try:
        entry._children_ended(0.3)
    finally:
        never.set()
    assert given and given[0] <= 0.05, given
