"""One worker's excitation search runs in the caller's process (round 20).

``design_excitation(workers=1)`` (the default, and ``excite`` without ``--workers``) started a pool of one spawned
process: ~0.55–0.8 s of process start and imports per design. The starts now run in place, on one BLAS thread as the
worker ran them. Oracles: the pool of one worker itself (the same starts through ``_in_pool``, bit for bit),
threadpoolctl's own report of the thread counts, and a search re-run with the counted number of starts.
"""
from __future__ import annotations

import itertools
import multiprocessing.context

import numpy as np
import pytest
import scipy.linalg  # noqa: F401  (its own BLAS loaded before the tests set thread counts, which then reach it)
from threadpoolctl import threadpool_info, threadpool_limits

import baseparam as bp
from baseparam.excitation import _search
from conftest import ROOT

LIMITS = {"joints": [{"q": [-2.0, 2.5], "qd": 1.5, "qdd": 6.0}, {"q": [-1.5, 1.5], "qd": 2.0},
                     {"q": [-2.5, 2.5], "qd": 2.5, "qdd": 8.0}]}
SHORT = {"period": 4.0, "harmonics": 3, "rate": 50.0, "limits": LIMITS}


@pytest.fixture(scope="module")
def rrr():
    return bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")


def _no_pool(*args, **kwargs):
    raise AssertionError("a process pool was started")


def _blas_threads():
    """{BLAS library's file: its thread count}; a library another test loads later (at OPENBLAS_NUM_THREADS=1
    under xdist) is not one whose count the caller set."""
    return {info["filepath"]: info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}


def _restored(before, after):
    """The caller's count back on each library loaded before the search (2 on those threadpoolctl sets: an old
    OpenBLAS that scs ships keeps its own count)."""
    return 2 in before.values() and all(after[path] == count for path, count in before.items())


def test_default_design_starts_no_process(rrr, monkeypatch):
    monkeypatch.setattr(multiprocessing.context.BaseContext, "Pool", _no_pool)
    before = set(multiprocessing.active_children())
    d = bp.design_excitation(rrr, starts=2, seed=3, **SHORT)
    assert d.search.counted == 2 and d.search.workers == 1
    assert set(multiprocessing.active_children()) == before


def test_in_process_equals_a_pool_of_one(rrr, monkeypatch):
    here = bp.design_excitation(rrr, starts=3, seed=5, **SHORT)

    def through_pool(problem, starts, seed, deadline, tick, finished):
        _search._in_pool(problem, starts, seed, 1, deadline, tick, finished)
    monkeypatch.setattr(_search, "_in_this_process", through_pool)
    pooled = bp.design_excitation(rrr, starts=3, seed=5, **SHORT)
    assert np.array_equal(here.series.coefficients, pooled.series.coefficients)
    assert here.condition_number == pooled.condition_number
    assert here.condition_numbers == pooled.condition_numbers
    assert (here.search.values, here.search.best_start, here.search.evaluations, here.search.gradients) == \
        (pooled.search.values, pooled.search.best_start, pooled.search.evaluations, pooled.search.gradients)


def test_one_blas_thread_during_the_search_and_restored_after(rrr):
    seen = set()
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        bp.design_excitation(rrr, starts=1, seed=3,
                             progress=lambda done, total: seen.update(_blas_threads().values()), **SHORT)
        after = _blas_threads()
    assert seen == {1}
    assert _restored(before, after)


def test_interrupted_search_restores_blas_threads(rrr):
    def interrupt(done, total):
        if done >= 3:
            raise KeyboardInterrupt
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        with pytest.raises(KeyboardInterrupt):
            bp.design_excitation(rrr, starts=2, seed=3, progress=interrupt, **SHORT)
        assert _restored(before, _blas_threads())


class _Clock:
    """A clock for the search that advances by ``step`` seconds at each reading: the budget then ends at the same
    point of the search on any machine."""

    def __init__(self, step):
        self._ticks = itertools.count()
        self._step = step

    def time(self):
        return 1e9 + self._step * next(self._ticks)

    sleep = staticmethod(lambda seconds: None)


def test_time_budget_keeps_the_best_of_the_counted_starts(rrr, monkeypatch):
    monkeypatch.setattr(_search, "time", _Clock(0.02))
    # the search reads the clock at each evaluation (the deadline kept within one): ~820 readings a start
    budgeted = bp.design_excitation(rrr, seed=3, time_budget=50.0, **SHORT)
    k = budgeted.search.counted
    assert 1 <= k < budgeted.search.starts
    again = bp.design_excitation(rrr, seed=3, starts=k, **SHORT)
    assert np.array_equal(budgeted.series.coefficients, again.series.coefficients)
    assert budgeted.search.best_start == again.search.best_start
