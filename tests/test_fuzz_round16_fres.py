"""Fuzz round sixteen (issue 28), resources, signals and the file system: what the sixteenth round found, and the
last stop's leftovers on limits, each test failing on the code before its fix."""
import errno
import os
import resource
import threading
from pathlib import Path

import pytest

from baseparam import _processes
from baseparam.errors import resource_exhausted

PLANAR = Path(__file__).resolve().parents[1] / "robots" / "planar_rrr.yaml"


def _tasks_on_the_system():
    with open("/proc/loadavg") as f:
        return int(f.read().split()[3].partition("/")[2])


@pytest.fixture
def started_threads(monkeypatch):
    """The threads started from now on (counted at Thread.start)."""
    count = [0]
    start = threading.Thread.start

    def counted(self):
        count[0] += 1
        start(self)
    monkeypatch.setattr(threading.Thread, "start", counted)
    return count


def test_no_thread_is_started_to_ask_when_no_limit_of_tasks_can_bind(started_threads):
    # the probe started (and joined) as many threads as OpenBLAS would at every command's start: 10 ms CPU for 64
    # processors, 19 ms for 128, and 1 037 threads (170 ms) before a pool of 8 workers there
    if not _processes._no_limit_of_tasks_binds(64):
        pytest.skip("this machine's limits of tasks cannot be read from its files, or bind")
    assert _processes.threads_startable(64)
    assert started_threads[0] == 0


def test_a_limit_of_processes_within_reach_is_still_probed(started_threads):
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    near = _tasks_on_the_system() + 32          # 64 more tasks could pass it: the files cannot tell, the probe does
    if hard != resource.RLIM_INFINITY and hard < near:
        pytest.skip("the hard limit of processes is below the tasks running")
    resource.setrlimit(resource.RLIMIT_NPROC, (near, hard))
    try:
        assert not _processes._no_limit_of_tasks_binds(64)
        _processes.threads_startable(64)
    finally:
        resource.setrlimit(resource.RLIMIT_NPROC, (soft, hard))
    assert started_threads[0] > 0


def _raised(start):
    """The exception ``start()`` raises."""
    try:
        start()
    except Exception as exc:  # noqa: BLE001 — the one looked at
        return exc
    raise AssertionError("nothing raised")


def _eagain(*args, **kwargs):
    raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))


def test_a_refused_fork_is_the_processes_limit(monkeypatch):
    # a worker's fork refused (ulimit -u: EAGAIN) was said as "ROBOT.yaml: Resource temporarily unavailable"
    import multiprocessing
    import multiprocessing.util
    import subprocess

    import _posixsubprocess

    monkeypatch.setattr(os, "fork", _eagain)
    monkeypatch.setattr(subprocess, "_fork_exec", _eagain)
    monkeypatch.setattr(_posixsubprocess, "fork_exec", _eagain)
    for start in (multiprocessing.get_context("fork").Process(target=int).start,
                  lambda: subprocess.Popen(["true"]),
                  lambda: multiprocessing.util.spawnv_passfds("true", ["true"], [])):
        assert "cannot start a process or thread" in resource_exhausted(_raised(start))


def test_a_non_blocking_write_that_would_wait_is_not_a_limit_of_processes():
    # the same EAGAIN (BlockingIOError) of a write to a full non-blocking pipe was said as "cannot start a process or
    # thread (…ulimit -u)", and a reader's message with it as its context too
    read, write = os.pipe()
    try:
        os.set_blocking(write, False)
        exc = _raised(lambda: [os.write(write, b"x" * 65536) for _ in range(64)])
    finally:
        os.close(read)
        os.close(write)
    assert exc.errno == errno.EAGAIN
    assert resource_exhausted(exc) is None


def _sleeping_worker():
    """A (forked) process that sleeps."""
    import multiprocessing
    import time

    process = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
    process.start()
    return process


def _killed(process):
    """``process`` killed by SIGKILL as it worked, ended and reaped."""
    import signal

    os.kill(process.pid, signal.SIGKILL)
    process.join(30)
    return process


def test_a_worker_killed_as_it_worked_is_said_so():
    # excite --workers 2, a worker killed by the out-of-memory killer (SIGKILL) mid-run: "a worker process ended as
    # it started (exit status -9 …) … an installation it cannot load"
    from baseparam.errors import ResourceLimitError

    process = _killed(_sleeping_worker())
    with pytest.raises(ResourceLimitError, match="killed by SIGKILL") as raised:
        _processes.WorkersWatched(lambda: [process]).check()
    assert "as it started" not in str(raised.value)


def test_a_process_pool_broken_by_a_killed_worker_is_said_as_that_end():
    # identify --workers 2, a worker killed mid-run: "internal error: BrokenProcessPool: A process in the process pool
    # was terminated abruptly …", exit 1
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    from baseparam.errors import ResourceLimitError
    from baseparam.identification import _workers

    pool = [_sleeping_worker()]
    workers = _processes.WorkersWatched(lambda: pool)
    workers.check()                     # the pool's processes, remembered as they start (a broken pool forgets them)
    _killed(pool.pop())
    broken = Future()
    broken.set_exception(BrokenProcessPool("A process in the process pool was terminated abruptly"))
    with pytest.raises(ResourceLimitError, match="killed by SIGKILL"):
        _workers._result(broken, workers)


def test_the_projections_budget_names_the_address_space_limit_when_that_binds(monkeypatch):
    # under ulimit -v the budget is 80 % of the address space left, which the message called "80 % of the memory this
    # machine has available now" (a machine with 60 GB free refused a robot for 1.6 GB)
    import baseparam as bp
    from baseparam import _memory

    monkeypatch.setattr(_memory, "_meminfo_available", lambda: 64 * 10 ** 9)
    monkeypatch.setattr(_memory, "_cgroup_room", lambda: None)
    monkeypatch.setattr(_memory, "_address_space_room", lambda: 1000)
    with pytest.raises(bp.ResourceLimitError, match=r"allowed \(80 % of the address space left under this process's "
                                                    r"limit \(ulimit -v\); raise it with max_memory=SIZE\)$"):
        bp.find_base_parameters(bp.load_robot(PLANAR))


def test_the_room_asked_for_a_pool_does_not_grow_with_the_processors(monkeypatch, started_threads):
    # each worker was counted with a BLAS thread per processor (less one), which its numpy and scipy started as they
    # loaded: a pool of 8 workers on 128 processors probed 1 037 threads (170 ms), and under ulimit -u 15 the workers
    # of `excite --workers 2` printed OpenBLAS's four lines each ("pthread_create failed …") before the run's own
    monkeypatch.setattr(_processes, "_no_limit_of_tasks_binds", lambda count: False, raising=False)
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    counts = []
    for processors in (2, 128):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, n=processors: set(range(n)))
        started_threads[0] = 0
        _processes.room_for_workers(8)
        counts.append(started_threads[0])
    assert counts[0] == counts[1]


def test_workers_start_with_one_blas_thread_and_the_callers_environment_is_kept(monkeypatch):
    import subprocess
    import sys

    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "6")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with _processes.workers_on_one_blas_thread():
        seen = subprocess.run([sys.executable, "-S", "-c", "import os; print(os.environ['OPENBLAS_NUM_THREADS'], "
                               "os.environ['OMP_NUM_THREADS'])"], capture_output=True, text=True, timeout=60).stdout
    assert seen.split() == ["1", "1"]
    assert os.environ["OPENBLAS_NUM_THREADS"] == "6" and "OMP_NUM_THREADS" not in os.environ


def _cgroups(tmp_path, monkeypatch, listed, made):
    """This process's cgroups as ``listed`` (/proc/self/cgroup's lines), with the folders (and their files) of
    ``made`` under a mount point in ``tmp_path``."""
    (tmp_path / "cgroup").write_text(listed)
    mount = tmp_path / "fs"
    for folder, files in made.items():
        (mount / folder).mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (mount / folder / name).write_text(text)
    mount.mkdir(exist_ok=True)
    monkeypatch.setattr(_processes, "_OWN_CGROUPS", str(tmp_path / "cgroup"))
    monkeypatch.setattr(_processes, "_CGROUP_MOUNT", str(mount))


@pytest.mark.parametrize("listed, made", [
    # cgroup v2 not mounted where looked for: its pids.max unseen (the v1 pids hierarchy was required, v2 was not)
    ("0::/user.slice/run.scope\n", {}),
    # a cgroup namespace (a container: docker's default on v2): its root is a cgroup with a pids.max, and the limits
    # above it (a Kubernetes pod's) cannot be seen
    ("0::/\n", {".": {"pids.max": "max\n", "pids.current": "3\n"}}),
    ("8:pids:/\n", {"pids": {"pids.max": "max\n", "pids.current": "3\n"}}),
    # a process outside its namespace's root cgroup: the path climbs out of the mount
    ("0::/../../elsewhere\n", {}),
])
def test_a_cgroup_limit_that_cannot_be_seen_is_not_said_to_leave_room(tmp_path, monkeypatch, listed, made):
    _cgroups(tmp_path, monkeypatch, listed, made)
    assert _processes._cgroup_tasks_room(64) is None


def test_cgroup_limits_seen_from_the_true_root_are_read(tmp_path, monkeypatch):
    _cgroups(tmp_path, monkeypatch, "0::/a/b\n", {"a": {"pids.max": "100\n", "pids.current": "50\n"}, "a/b": {}})
    assert _processes._cgroup_tasks_room(40) is True
    assert _processes._cgroup_tasks_room(60) is False
    _cgroups(tmp_path, monkeypatch, "8:pids:/a/b\n0::/\n", {"pids/a/b": {"pids.max": "max\n"}})
    assert _processes._cgroup_tasks_room(64) is True


def _two_blocks_at_once(block, look):
    """Enter ``block()`` in one thread, then in a second; end the first while the second is inside, and return
    whether the first ended and ``[look()]`` taken inside the second after that (empty if it never got there)."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    inside_second = []

    def first():
        with block():
            first_in.set()
            second_in.wait(30)
        first_out.set()

    def second():
        first_in.wait(30)
        with block():
            second_in.set()
            first_out.wait(30)
            inside_second.append(look())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return first_out.is_set(), inside_second


def test_blocks_of_two_threads_at_once_leave_the_callers_environment_as_it_was(monkeypatch):
    # two runs with workers started side by side (threads of one program): the second saved the first's "1" and put
    # it back after the first had restored the caller's, so every later BLAS, OpenMP and subprocess got one thread
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    first_out, inside_second = _two_blocks_at_once(_processes.workers_on_one_blas_thread,
                                                   lambda: os.environ.get("OPENBLAS_NUM_THREADS"))
    assert first_out and inside_second == ["1"]             # still set for the second block's workers
    assert "OPENBLAS_NUM_THREADS" not in os.environ and os.environ["OMP_NUM_THREADS"] == "4"


def test_a_pool_broken_with_every_worker_ended_well_is_not_waited_on(monkeypatch):
    # a pool broken while no worker's status says why (an initializer that failed returns, status 0; a result that
    # could not be unpickled) waited a second, 50 looks, for a status that could not come
    import multiprocessing
    import time
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    from baseparam.identification import _workers

    process = multiprocessing.get_context("fork").Process(target=int)
    process.start()
    process.join(30)
    assert process.exitcode == 0
    workers = _processes.WorkersWatched(lambda: [process])
    workers.check()
    sleeps = []
    monkeypatch.setattr(time, "sleep", sleeps.append)
    broken = Future()
    broken.set_exception(BrokenProcessPool("A process in the process pool was terminated abruptly"))
    with pytest.raises(BrokenProcessPool):
        _workers._result(broken, workers)
    assert sleeps == []


def test_blocks_of_two_threads_at_once_leave_the_callers_script_as_it_was(monkeypatch):
    # caller_not_reimported, the same: the second block saved the first's hiding (__spec__ None) and put it back for
    # good, and the first's end showed the script to the second's workers still starting (spawn re-ran it)
    import sys
    import types

    script = types.ModuleType("__main__")
    script.__file__, script.__spec__ = "/somewhere/run.py", object()
    spec = script.__spec__
    monkeypatch.setitem(sys.modules, "__main__", script)
    first_out, inside_second = _two_blocks_at_once(_processes.caller_not_reimported,
                                                   lambda: (getattr(script, "__file__", None), script.__spec__))
    assert first_out and inside_second == [(None, None)]
    assert script.__file__ == "/somewhere/run.py" and script.__spec__ is spec


@pytest.mark.parametrize("figures, on_procs_device", [("0.00 0.00 0.00 1/5 1234\n", False),   # LXCFS's, mounted over
                                                      ("0.00 0.00 0.00 0/0 0\n", True)])     # one that counts none
def test_a_count_of_tasks_that_is_not_the_kernels_is_not_trusted(tmp_path, monkeypatch, figures, on_procs_device):
    # /proc/loadavg mounted over by LXCFS (LXC, Incus) counts the container's tasks, not every task of this user that
    # ulimit -u counts (its other containers'): 'no limit can bind' under a limit within reach, and no probe
    monkeypatch.setattr(_processes, "_cgroup_tasks_room", lambda count: True)
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    near = _tasks_on_the_system() + 32
    if hard != resource.RLIM_INFINITY and hard < near:
        pytest.skip("the hard limit of processes is below the tasks running")
    (tmp_path / "loadavg").write_text(figures)
    monkeypatch.setattr(_processes, "_LOADAVG", str(tmp_path / "loadavg"), raising=False)
    if on_procs_device:
        monkeypatch.setattr(_processes, "_the_kernels", lambda path: True, raising=False)
    resource.setrlimit(resource.RLIMIT_NPROC, (near, hard))
    try:
        assert not _processes._no_limit_of_tasks_binds(8)
    finally:
        resource.setrlimit(resource.RLIMIT_NPROC, (soft, hard))
