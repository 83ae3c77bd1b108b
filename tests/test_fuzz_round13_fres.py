"""Regressions of issue 28's thirteenth fuzzing round over resources, links and signals (helper fres): outputs given
as links, devices, read-only and full file systems; signals at random moments into every command (also with the
signal ignored by the parent: `nohup`, a script's background job); temporary folders of killed runs. The fuzz
drivers were throwaways (the CLI forked from a warmed-up parent, or in a subprocess, at random moments); these are
the deterministic cases they found, each failing before its fix."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLANAR = ROOT / "robots" / "planar_rrr.yaml"

posix = pytest.mark.skipif(sys.platform == "win32" or not hasattr(signal, "SIGHUP"), reason="POSIX signals")

# The command line in a fresh interpreter started with SIGNAL ignored (as `nohup` starts it for SIGHUP, a shell
# script's `cmd &` for SIGINT); the run sends itself that signal while it prints its report, so the signal surely
# lands inside the run, whatever the machine's speed.
_IGNORED_RUN = """
import os, signal, sys
number = getattr(signal, sys.argv[1])
signal.signal(number, signal.SIG_IGN)
import click
echo = click.echo
def echo_after_the_signal(*args, **kwargs):
    os.kill(os.getpid(), number)
    return echo(*args, **kwargs)
click.echo = echo_after_the_signal
sys.argv = ["baseparam", "describe", sys.argv[2]]
from baseparam._entry import main
main()
"""


@posix
@pytest.mark.parametrize("name", ["SIGHUP", "SIGINT"])
def test_a_signal_the_run_was_started_with_ignored_stays_ignored(name):
    """`nohup baseparam excite …` ended with "terminated (SIGHUP)", status 129, when its terminal closed, and a
    script's background `baseparam … &` (SIGINT ignored by the shell) was stopped by a Ctrl-C meant for the
    script's foreground: the entry point and the command line installed their handlers over the inherited SIG_IGN,
    which Python itself keeps. Now an ignored signal stays ignored and the run completes."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", _IGNORED_RUN, name, str(PLANAR)], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0 and done.stderr == "", (done.returncode, done.stderr)
    assert "Planar RRR" in done.stdout


class _Stop(BaseException):
    """What the command line's SIGTERM handler raises (its _Terminated): no ``except Exception`` catches it."""


@posix
def test_sigterm_while_the_excitation_pool_starts_leaves_no_worker_running(monkeypatch):
    """`excite` given SIGTERM (or SIGHUP) while its pool of workers started: the handler's exception came out of
    ``multiprocessing.Pool(...)``, whose own clean-up catches only ``Exception``, before the pool was assigned, so
    nothing stopped the workers already started; they outlived the run and printed "FileNotFoundError" tracebacks
    from SemLock._rebuild under its one line. SIGTERM and SIGHUP are now held while the workers start, as SIGINT
    was, and raised once the pool is the caller's, which stops it (the workers are born with them blocked too:
    one killed half-started by the same signal to the process group would make the pool's write of the next one's
    start-up data wait for ever)."""
    import multiprocessing
    import multiprocessing.context
    import multiprocessing.pool

    from baseparam.excitation import _search

    fork = multiprocessing.get_context("fork")      # starts in milliseconds; the start-up window is the same

    class SignalledProcess(fork.Process):
        def start(self):                             # the signal lands while Pool(...) starts its workers
            super().start()
            os.kill(os.getpid(), signal.SIGTERM)

    class Context(multiprocessing.context.ForkContext):
        Process = SignalledProcess

        def Pool(self, *args, **kwargs):
            return multiprocessing.pool.Pool(*args, context=self, **kwargs)

    me = os.getpid()

    def stop(signum, frame):
        if os.getpid() != me:                        # a forked worker: dies as a spawned one would
            os._exit(1)
        raise _Stop(signum)

    monkeypatch.setattr(_search.multiprocessing, "get_context", lambda method: Context())
    monkeypatch.setattr(_search, "one_blas_thread", lambda: None)
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(_Stop):
            _search._in_pool(None, 2, 0, 2, None, lambda index, n: None, lambda result: None)
        for process in multiprocessing.active_children():
            process.join(30)                         # a hang guard only: terminated, they end at once
        alive = [p for p in multiprocessing.active_children() if p.is_alive()]
        for process in alive:                        # the old code's orphans: not left to later tests
            process.terminate()
        assert alive == []
    finally:
        signal.signal(signal.SIGTERM, previous)


# The caller of identify's pool, killed by SIGKILL once its worker runs: the worker's pid on stdout, then the kill.
# Fork starts the worker in milliseconds (spawn, the command's own, has the same queues and the same sentinel).
# (excite's multiprocessing.Pool workers end by themselves when their caller is gone.)
_KILLED_CALLER = """
import multiprocessing, os, signal
from concurrent.futures import ProcessPoolExecutor
from baseparam.identification import _workers
_workers.one_blas_thread = lambda: None     # scipy's import: not what is tested
fork = multiprocessing.get_context("fork")
pool = ProcessPoolExecutor(1, mp_context=fork, initializer=_workers._init, initargs=(_workers.Handover(fork, {}),))
print(pool.submit(os.getpid).result(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _running(pid):
    """Whether process ``pid`` exists and is not a zombie (an orphan's end is reaped by init, or not, in a
    container)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@posix
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")
def test_a_log_worker_ends_when_its_caller_is_killed():
    """`identify --workers 2` killed by SIGKILL (or the out-of-memory killer) left its two workers and their
    resource tracker idle for good (40 s later still there; the fuzzer's pipes stayed open until it killed the
    group): a pool's worker waits on a queue whose writing end it holds itself, so it never saw the caller go. The
    workers' initializer now starts a thread that ends the worker once its parent's sentinel says it is gone."""
    import time

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    caller = subprocess.Popen([sys.executable, "-c", _KILLED_CALLER], stdout=subprocess.PIPE, text=True,
                              env=env)
    worker = int(caller.stdout.readline())
    caller.wait(timeout=600)
    ended = False
    try:
        for _ in range(600):                          # a hang guard only: the worker ends at once
            if not _running(worker):
                ended = True
                break
            time.sleep(0.05)
    finally:
        if not ended:                                 # never a second look: its id, once free, may be another's
            os.kill(worker, signal.SIGKILL)
    assert ended


@posix
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc")
def test_workers_are_born_with_every_stopping_signal_held():
    """SIGTERM or SIGHUP landing while the caller wrote a spawned worker's start-up data cut the write, and the
    worker printed "UnpicklingError: pickle data was truncated" under the run's one line (signal fuzzer: 3 of ~60
    excite trials). Workers are now born with SIGTERM and SIGHUP held as SIGINT was (their initializer releases
    them), and the caller gets them once its pool is built. The mask a process is born with is in /proc."""
    from baseparam._processes import workers_born_deaf

    with workers_born_deaf():
        child = subprocess.Popen(["sleep", "600"])
    try:
        with open(f"/proc/{child.pid}/status") as status:
            blocked = int(next(line for line in status if line.startswith("SigBlk:")).split()[1], 16)
    finally:
        child.kill()
        child.wait()
    assert [bool(blocked >> (number - 1) & 1) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == \
        [True, True, True]


def test_folders_made_for_an_output_beyond_the_path_limit_are_removed_again(tmp_path):
    """`export --out` (and `excite --out DIR/`) with a folder path longer than PATH_MAX: makedirs made 20 levels,
    then failed; the run ended with status 2 and one line, but left the 20 folders: the clean-up stopped at the
    first level it could not remove, which was one never made (its name too long to exist)."""
    from baseparam._atomic import make_folders

    with pytest.raises(OSError):
        make_folders(os.path.join(tmp_path, ("d" * 200 + "/") * 25))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("prefix", [".baseparam-matplotlib", "baseparam-dask"])
def test_the_private_folders_of_killed_runs_are_removed(tmp_path, monkeypatch, prefix):
    """A run killed by SIGKILL while plotting (matplotlib's private configuration folder) or with a local Dask
    cluster (its scratch folder) left that folder in $TMPDIR for good (signal fuzzer: 1 in 4 killed `excite --plot`
    runs): the names carried no process id and nothing removed them. They are now named PREFIX-PID-… and those of
    runs whose process is gone, unchanged for 10 minutes, are removed when the next run makes its own; a live
    run's, or a young one, is left alone."""
    import tempfile
    import time

    from baseparam import _leftovers

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(socket, "gethostname", lambda: "node-1")
    old = time.time() - 2 * _leftovers.STALE_SECONDS
    killed, young, live, elsewhere = (tmp_path / f"{prefix}-{pid}-{host}-abcd1234" for pid, host in (
        (2**22 + 7, "node-1"), (2**22 + 8, "node-1"), (os.getpid(), "node-1"), (2**22 + 9, "node-2")))
    for folder in (killed, young, live, elsewhere):
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "fontlist.json").write_text("{}")
    for folder in (killed, live, elsewhere):
        os.utime(folder, (old, old))
    made = _leftovers.private_folder(prefix)
    assert os.path.basename(made).startswith(f"{prefix}-{os.getpid()}-node-1-")
    kept = [os.path.basename(made), young.name, live.name, elsewhere.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)


def test_a_private_folder_of_a_live_run_on_another_machine_sharing_tmpdir_is_kept(tmp_path, monkeypatch):
    """$TMPDIR shared by two machines (or containers): the other one's live run has a process id no process here
    has, and its private folder's own time stays unchanged while its files change inside (a Dask cluster's scratch,
    matplotlib's font list written once), so after 10 minutes the next run here removed the folder of a live run.
    Folders carry the host name; only this machine's are judged."""
    import tempfile
    import time

    from baseparam import _leftovers

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    old = time.time() - 2 * _leftovers.STALE_SECONDS
    monkeypatch.setattr(socket, "gethostname", lambda: "node-2")
    theirs = _leftovers.private_folder("baseparam-dask")
    (tmp_path / os.path.basename(theirs) / "worker-space").mkdir()
    os.rename(theirs, theirs.replace(f"-{os.getpid()}-", f"-{2**22 + 9}-"))      # its process, not one of this machine
    theirs = theirs.replace(f"-{os.getpid()}-", f"-{2**22 + 9}-")
    os.utime(theirs, (old, old))
    monkeypatch.setattr(socket, "gethostname", lambda: "node-1")
    ours = _leftovers.private_folder("baseparam-dask")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(os.path.basename(f) for f in (theirs, ours))
