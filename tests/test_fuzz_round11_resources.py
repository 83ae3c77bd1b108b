"""Regressions of issue 28's eleventh fuzzing round, over resources, links and signals of every command: outputs
given as links, folders, devices and other spellings of an input; small file systems; signals at random moments.
The fuzzer was a throwaway (the CLI in a subprocess, a signal or a full disk at a random moment); these are the
deterministic cases it found, each failing before its fix."""
import multiprocessing
import os
import signal
import time

import pytest

from baseparam.identification import _workers


def test_a_stopped_reduction_of_logs_in_processes_does_not_wait_for_the_logs_in_progress(tmp_path, monkeypatch):
    """`identify --workers 2` took 1.6–3 s to stop after Ctrl-C (under load the entry point's watchdog ended it):
    the pool's shutdown waited for every log being reduced to finish. A stopped reduction now ends its workers:
    the long log's work is never completed (its marker file never written)."""
    marker = tmp_path / "finished"

    def reduce(log, folds):
        if log == "short":                       # the user presses Ctrl-C while the long log is being reduced
            os.kill(os.getppid(), signal.SIGINT)
        else:
            time.sleep(30)                       # far longer than the test: only its end would write the marker
            marker.write_text("done")
        return log

    # forked workers inherit the closure above (spawn would pickle it) and start in milliseconds
    fork = multiprocessing.get_context("fork")
    monkeypatch.setattr(_workers.multiprocessing, "get_context", lambda method: fork)
    monkeypatch.setattr(_workers, "one_blas_thread", lambda: None)
    with pytest.raises(KeyboardInterrupt):
        _workers._in_processes(["long", "short"], {"reduce": reduce}, [0, 0], 2, lambda done, total: None)
    assert not marker.exists()
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]
