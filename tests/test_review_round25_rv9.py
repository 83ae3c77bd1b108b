"""Review round 25, helper rv9: s25-lfsim and s25-lres2 (merged).

- ``simulate(method='LSODA')`` records the warnings of its run (LSODA's words of a failure go into the error) with
  :class:`warnings.catch_warnings`, which swaps the process's filters and recorder. Two threads' runs that overlapped
  restored each other's: the thread leaving last put back the first one's recorder, and every later warning of the
  process went into that dead list (and the filter 'always' stayed). The runs now record one at a time.
"""
import pathlib
import threading
import warnings

import numpy as np

import baseparam as bp

ROOT = pathlib.Path(__file__).resolve().parents[1]
WAIT = 1.0      # s: how long a controller waits for the other thread (the result does not depend on it)


def _space_robot():
    """The space robot's model (its description's bodies) and a state at rest, the base's quaternion the identity."""
    model = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    q0 = np.zeros(model.n_q)
    q0[6] = 1.0
    return model, q0


def test_overlapping_lsoda_runs_leave_the_warning_machinery_as_it_was():
    """Thread A's run waits inside solve_ivp until B's run is inside too (or a second), then ends first; B's waits
    for A's end. Before the fix B left last and installed A's recorder: a warning after both was swallowed."""
    (model, q0), t = _space_robot(), np.linspace(0, 0.2, 21)
    a_inside, b_inside, a_done = threading.Event(), threading.Event(), threading.Event()
    failures = []

    def controller(inside, other):
        def tau(time, q, qd):
            if not inside.is_set():
                inside.set()
                other.wait(WAIT)
            return -0.1 * qd
        return tau

    def run(tau, done=None):
        try:
            bp.simulate(model, t, q0, np.full(model.robot.n_v, 0.1), tau, method="LSODA")
        except Exception as exc:        # noqa: BLE001 - reported by the main thread
            failures.append(exc)
        finally:
            if done is not None:
                done.set()
    run(lambda time, q, qd: -0.1 * qd)      # the first run's imports add their filters
    before = (warnings.showwarning, warnings._showwarnmsg_impl, list(warnings.filters))
    first = threading.Thread(target=run, args=(controller(a_inside, b_inside), a_done))
    first.start()
    a_inside.wait(WAIT)
    second = threading.Thread(target=run, args=(controller(b_inside, a_done),))
    second.start()
    first.join()
    second.join()
    assert not failures
    assert (warnings.showwarning, warnings._showwarnmsg_impl, list(warnings.filters)) == before
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("after both runs", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["after both runs"]
