"""Review round 25, helper rv9: s25-lfsim and s25-lres2 (merged).

- ``simulate(method='LSODA')`` records the warnings of its run (LSODA's words of a failure go into the error) with
  :class:`warnings.catch_warnings`, which swaps the process's filters and recorder. Two threads' runs that overlapped
  restored each other's: the thread leaving last put back the first one's recorder, and every later warning of the
  process went into that dead list (and the filter 'always' stayed). The runs now record one at a time.
"""
import pathlib

import numpy as np

import baseparam as bp
from conftest import overlapping_regions

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _space_robot():
    """The space robot's model (its description's bodies) and a state at rest, the base's quaternion the identity."""
    model = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    q0 = np.zeros(model.n_q)
    q0[6] = 1.0
    return model, q0


def test_overlapping_lsoda_runs_leave_the_warning_machinery_as_it_was(recwarn):
    """Thread A's run waits inside solve_ivp until B's run is inside too (or a second), then ends first; B's waits
    for A's end (:func:`conftest.overlapping_regions`). Before the fix B left last and installed A's recorder: a
    warning after both was swallowed."""
    (model, q0), t = _space_robot(), np.linspace(0, 0.2, 21)

    def call(pause):
        def tau(time, q, qd):
            pause()
            return -0.1 * qd
        bp.simulate(model, t, q0, np.full(model.robot.n_v, 0.1), tau, method="LSODA")
    overlapping_regions(call, recwarn)
