"""Fuzz round twenty-one, helper lend: a stopped worker's clean-up within its parent's grace, and the upper bound of
an identification log's step taken with the same slack for rounding as its lower bound. Each test fails before its
fix."""
import inspect
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import baseparam as bp
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


def _slow_log(t):
    q = np.column_stack([np.sin(0.3 * (t - t[0])), np.zeros(t.size)])
    return bp.Trajectory(t, q, np.ones((t.size, 2)), source="slow-log")


_AS_READ = bp.Preprocessing(cutoff_hz=None, rest_velocity=None, resample=False)


@pytest.mark.parametrize("start", [0.0, 1000.0, 1e5])
def test_log_of_a_half_second_step_read(start):
    """A 2 Hz log (steps of 0.5 s, the bound: "above 0.5 s, ms or µs by mistake" is refused) whose stamps carry the
    rounding of their magnitude (a step of 0.5 s and two ulps of the start: 0.5000000000291 s at 1e5 s) was refused
    as "median time step 0.5 s … (> 0.5 s)", as 1 µs steps were at their bound before e55916b. The step used is the
    log's own, and the positions' derived rates those of the sine written (cos, to the central difference's error)."""
    step = 0.5 + 2 * np.spacing(max(start, 1.0))
    t = start + np.arange(400) * step
    processed = bp.preprocess(_slow_log(t), _AS_READ)
    inner = slice(2, -2)
    np.testing.assert_allclose(processed.qd[inner, 0], 0.3 * np.cos(0.3 * (t[inner] - start)), rtol=0, atol=2e-3)
    # exactly 0.5 s, as before
    bp.preprocess(_slow_log(start + np.arange(400) * 0.5), _AS_READ)


@pytest.mark.parametrize("start", [0.0, 1e5])
def test_log_of_a_step_beyond_the_slack_still_refused_in_words_that_agree(start):
    """The slack is for rounding only: 0.51 s is still refused, and the message's step is above its bound."""
    t = start + np.arange(400) * 0.51
    with pytest.raises(bp.DataError, match=r"^slow-log: field t: median time step 0\.51 s .* \(> 0\.5 s\)"):
        bp.preprocess(_slow_log(t), _AS_READ)
