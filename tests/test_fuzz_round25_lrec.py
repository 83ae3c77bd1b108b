"""Round 25, helper lrec: every site that records warnings does it through one helper, one region at a time.

``warnings.catch_warnings(record=True)`` swaps the process's filters and recorder and puts back what it found on exit;
two threads whose regions overlapped restored each other's, and the last to leave installed the first's recorder, a
dead list that swallowed every later warning of the process. ``simulate(method='LSODA')`` was fixed in review (rv9);
:func:`baseparam._warnings.recorded` now serves it, :func:`reduce_log` and a bag's opening (``_foreign_warnings``).
"""
import threading

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification import _bag_files, logs
from conftest import overlapping_regions, planar_arm


def _reduced(log, base):
    reduction = logs.reduce_log(log, base, bp.Preprocessing.none())
    assert reduction.n_samples.sum() == 600


def _scaled(log, base):
    logs.scale_log(log, base, bp.Preprocessing.none())      # None: the planar arm has no friction to scale


@pytest.mark.parametrize("work", [_reduced, _scaled], ids=["reduce_log", "scale_log"])
def test_overlapping_log_workers_leave_the_warning_machinery_as_it_was(work, recwarn, monkeypatch):
    """Both log workers read a log under their own warning filters: ``reduce_log`` records its warnings,
    ``scale_log`` ignores them (``reduce_log`` says them) — a ``catch_warnings`` without recording swaps the
    process's filters all the same, and two threads' overlapping ``scale_log`` calls left the ignore filter
    installed, every later warning of the process silenced (lrec's leftover, the lead's)."""
    robot = planar_arm()
    base = bp.find_base_parameters(robot)
    t = np.arange(600) * 0.01
    q = 0.4 * np.column_stack([np.sin(t * (k + 1)) for k in range(3)])
    tau = 0.1 * np.column_stack([np.cos(t * (k + 2)) for k in range(3)])
    log = bp.Trajectory(t, q, tau=tau)
    processed, pauses = logs._processed, {}

    def paused(*args):
        pauses[threading.get_ident()]()
        return processed(*args)
    monkeypatch.setattr(logs, "_processed", paused)

    def call(pause):
        pauses[threading.get_ident()] = pause
        work(log, base)
    overlapping_regions(call, recwarn)


def test_overlapping_bag_openings_leave_the_warning_machinery_as_it_was(recwarn):
    def call(pause):
        caught = []
        with _bag_files._foreign_warnings(caught):
            pause()
    overlapping_regions(call, recwarn)
