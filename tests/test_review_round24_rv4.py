"""Review round 24 (rv4) of lsim's compiled (q, p) steps: guards for what the review checked and found sound.

- Two or more threads simulating ``state='momenta'`` at once share the compiled kernels (one library per graph,
  loaded once under a lock): each thread's motion is the one it gets alone, to the bit.
"""
import threading

import numpy as np

import baseparam as bp
from conftest import planar_arm


def test_threads_simulating_momenta_at_once_get_their_own_motions():
    """Four threads, each a different start, DOP853 and RK4 three times over: the q of a run alone, to the bit."""
    model, t = bp.Model(planar_arm()), np.linspace(0, 0.3, 31)
    tau = np.outer(np.ones(len(t)), [5.0, 3.0, 1.0])
    starts = [np.array([0.1 * i, -0.2, 0.3]) for i in range(4)]

    def motions(q0):
        return [bp.simulate(model, t, q0, np.ones(3), tau, method=method, state="momenta").q
                for method in ("DOP853", "rk4")]
    alone = [motions(q0) for q0 in starts]
    together, failures = {}, []

    def run(i):
        try:
            for _ in range(3):
                together[i] = motions(starts[i])
        except Exception as exc:        # an assertion below names it; a thread's own exception is otherwise lost
            failures.append(exc)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(starts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures and len(together) == len(starts)
    for i, expected in enumerate(alone):
        for got, want in zip(together[i], expected):
            assert np.array_equal(got, want)
