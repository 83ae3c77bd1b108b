"""Fuzz round twenty-one, helper lend: a stopped worker's clean-up within its parent's grace, and the upper bound of
an identification log's step taken with the same slack for rounding as its lower bound. Each test fails before its
fix."""
import inspect
import os
import signal
import subprocess
import sys

import pytest

from baseparam import _processes
from baseparam.dynamics import _native


def test_a_stopped_workers_compile_clean_up_fits_in_its_parents_grace(monkeypatch):
    """A worker ending on SIGTERM gave its compiler 0.5 s, then SIGKILL and 0.5 s more, before removing its scratch
    folder; its parent killed it 0.3 s after the SIGTERM (end_children, killed_if_slow): in the middle, leaving
    ``tmp-kernel-PID-…`` in the kernel cache and its compiler running. The waits are recorded, not slept."""
    waits = []
    compiler = object()
    monkeypatch.setattr(_native, "_COMPILERS", {compiler})
    monkeypatch.setattr(_native, "_LIVE", set())
    monkeypatch.setattr(_native, "_stop_group", lambda process, wait=1.0: waits.append((process, wait)))

    def exit_recorded(status):
        raise SystemExit(status)
    monkeypatch.setattr(os, "_exit", exit_recorded)
    with pytest.raises(SystemExit) as ended:
        _processes._end_worker(signal.SIGTERM)
    assert ended.value.code == 128 + signal.SIGTERM
    [(process, wait)] = waits
    assert process is compiler
    graces = [inspect.signature(function).parameters["grace"].default
              for function in (_processes.end_children, _processes.killed_if_slow)]
    # SIGTERM's wait, then SIGKILL's, and room left for the folder's removal
    assert 2 * wait < min(graces)
    # the command's own end (the entry point's watchdog) keeps its patience
    assert inspect.signature(_native.remove_live).parameters["wait"].default == 0.5


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups")
def test_the_workers_short_patience_still_ends_a_compiler_deaf_to_sigterm(tmp_path, monkeypatch):
    """With the worker's shorter patience, a compiler that ignores SIGTERM is still ended (by SIGKILL) and the
    scratch folder removed: nothing left in the cache, no compiler left running."""
    scratch = tmp_path / "tmp-kernel-1-host-x"
    scratch.mkdir()
    (scratch / "kernel.c").write_text("int x;\n")
    script = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint(flush=True)\ntime.sleep(30)"
    deaf = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, start_new_session=True)
    try:
        deaf.stdout.readline()                   # its SIGTERM is ignored from here
        monkeypatch.setattr(_native, "_COMPILERS", {deaf})
        monkeypatch.setattr(_native, "_LIVE", {str(scratch)})
        _native.remove_live(wait=_processes.WORKER_CLEANUP_WAIT)
        assert deaf.poll() == -signal.SIGKILL
        assert not scratch.exists()
    finally:
        if deaf.poll() is None:
            deaf.kill()
        deaf.wait()
        deaf.stdout.close()
