"""Fuzz round sixteen (issue 28), resources, signals and the file system: what the sixteenth round found, and the
last stop's leftovers on limits, each test failing on the code before its fix."""
import errno
import os
import resource
import threading

import pytest

from baseparam import _processes


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
