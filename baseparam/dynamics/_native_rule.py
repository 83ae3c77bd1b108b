"""When a robot's C loop over samples serves a call: one rule for the regressors, Newton–Euler and forward
dynamics (read at call time, so a test or bench may change it on this module).

The C loops are compiled once per robot and cached on disk (:mod:`baseparam.dynamics._native`); they give
the numpy blocks' numbers to the bit (the same operations in the same order).
"""
from __future__ import annotations

from .._validation import usable_cores

# From this many samples a call is served by the C loop: several times faster than numpy's blocks, whose
# strided rows cost more than the arithmetic; below, the compile is not worth it …
NATIVE_SAMPLES = 10_000
# … until a robot's code has been called this many times: then its C loop serves small batches and single
# samples too, where numpy's blocks pay about a µs for each of the code's thousands of operations (a 7-DOF
# arm's regressor sample: over ten times the C loop's time).
COMPILE_AFTER = 64
# By default the C loop's samples are shared by one thread per usable core, each given at least this many
# (starting a thread costs tens of µs, a sample of a 7-DOF arm's regressor a fraction of one).
SAMPLES_PER_THREAD = 10_000


def wanted(n_samples, calls):
    """Whether the C loop is worth its compile for a call of ``n_samples`` samples, the code's ``calls``-th."""
    return n_samples >= NATIVE_SAMPLES or calls >= COMPILE_AFTER


def thread_count(workers, n_samples):
    """Threads for a C loop over ``n_samples``: ``workers`` (a checked count, or None for the default:
    one per usable core, each with at least :data:`SAMPLES_PER_THREAD` samples)."""
    if workers is None:
        if n_samples < 2 * SAMPLES_PER_THREAD:            # one thread whatever the cores (no system call)
            return 1
        return max(1, min(usable_cores(), n_samples // SAMPLES_PER_THREAD))
    return workers
