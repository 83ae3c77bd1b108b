"""Multi-start local search for an excitation design, in parallel worker processes (one worker: in this process, but
for a time budget on a problem whose SLSQP steps may outlast it by seconds).

Start i begins at a random feasible point drawn from ``numpy.random.default_rng([seed, i])`` and
runs SLSQP (scipy) through a fixed schedule of criteria. For the condition number that schedule is
a continuation: the smooth upper bound ``(tr (AᵀA)^p · tr (AᵀA)^-p)^(1/2p)`` of cond(A) for p = 4,
16 and 64, then cond itself. cond is not differentiable where the largest or smallest singular
value is multiple, which is exactly where a good design pushes them, and SLSQP stalls on those
kinks; the smooth bound lets the clustered singular values move together first. Along the same
schedule the Coulomb columns sign(q̇_j) are replaced by tanh(q̇_j/w_j), w_j = 10 %, 2.5 %, 1 % of the
joint's velocity limit, then exact (:mod:`baseparam.excitation._problem`: on a grid the exact
columns only jump). Measured on the KUKA LWR4+ with friction (5 harmonics, 10 s, the URDF's
limits): the median start reaches cond 31 instead of 44 (16 starts; 17 of 96 starts end ≤ 30, none
of 16 did before); the UR10e's (24 starts) 27 instead of 33, every one ≤ 30.

Determinism. A start's result depends only on the seed, its index and the settings: each worker
process runs its BLAS on one thread (so no summation order depends on thread scheduling), as does
the caller's process while it runs the starts of one worker itself, and starts do not share state.
The design is the best start (feasible first, then criterion, then lowest index) among starts
0 … k−1, where k is the number of starts asked for or, when the time budget ends the run, the
longest run of starts 0, 1, … that finished. Any number of workers and
any timing that finishes those k starts gives the same design, and ``starts=k`` reproduces it.
Only when the budget ends before start 0 has finished does the result depend on timing (it is then
start 0's best iterate so far, and a warning says so).
"""
from __future__ import annotations

import multiprocessing
import queue as queue_module
import time
from dataclasses import dataclass

import numpy as np

from .._processes import (Handover, caller_not_reimported, deaf_to_interrupts, end_with_caller, import_held,
                          kept_for_the_first_task, killed_if_slow as _killed_if_slow, STOP_GRACE,
                          one_blas_thread, raise_failed_start, room_for_workers, started_children_killed_on_failure,
                          workers_born_deaf as _workers_born_deaf, workers_on_one_blas_thread, WorkersWatched)
from .._blas import on_one_blas_thread

# (criterion parameter p or None for the design criterion itself, width of the sign(q̇) surrogate as a
# share of each joint's velocity limit or None for sign(q̇) itself, SLSQP iterations)
SCHEDULES = {"cond": ((4.0, 0.1, 150), (16.0, 0.025, 150), (64.0, 0.01, 100), (None, None, 30)),
             "dopt": ((None, None, 400),), "inertia": ((None, None, 400),)}
FTOL = 1e-9
GRACE = 1.0              # s a worker may take past the deadline to return (it stops at its next iteration)
FEASIBLE = 1e-9          # constraint violation (relative) still counted as feasible
# SLSQP's own step (its least-squares subproblem, in compiled code no callback reaches) costs about c·m·n² s for n
# unknowns and m constraints: measured on the LWR4+'s payload and full designs (one thread), c = 1.3e-9 at n = 105,
# m = 3360 (0.05 s) up to 5e-9 at n = 497, m = 6480 (8.4 s) and 48 harmonics (n ≈ 670: 13 s). A start in this
# process cannot stop inside it; a worker process can be given up (GRACE).
SLSQP_SECONDS = 5e-9
LONG_STEP = 0.3          # s: a step that may take longer runs, under a time budget, in a worker process
POOL_END = 2.0           # s the pool's end waits for a worker given up (inside a step: it ends by SIGKILL)


def smooth_log_condition(p):
    """(1/2p)·log(tr (AᵀA)^p · tr (AᵀA)^-p) ≥ log cond(A), and its gradient (see module docstring)."""
    def criterion(A):
        lam, V = np.linalg.eigh(A.T @ A)
        lam = np.maximum(lam, lam[-1] * 1e-300)
        up, down = (lam / lam[-1]) ** p, (lam[0] / lam) ** p
        value = 0.5 * (np.log(lam[-1] / lam[0]) + (np.log(up.sum()) + np.log(down.sum())) / p)
        slope = (up / up.sum() - down / down.sum()) / lam          # d value / d λ_i, times 2
        return float(value), A @ ((V * slope) @ V.T)
    return criterion


def iterations(problem):
    return sum(count for *_, count in SCHEDULES[problem.criterion])


@dataclass(frozen=True)
class StartResult:
    """One start's outcome: unknowns, criterion value on the grid, largest violation, whether finished."""

    index: int
    x: np.ndarray
    value: float
    violation: float
    iterations: int
    complete: bool
    evaluations: int = 0           # of the criterion (each a regressor over the criterion's grid)
    gradients: int = 0             # of its gradient (each an adjoint pass)

    @property
    def feasible(self):
        return self.violation <= FEASIBLE

    def rank(self):
        return (not self.feasible, self.value if self.feasible else self.violation, self.index)


class _Deadline(Exception):
    pass


class _Pace:
    """The longest time a start's optimizer spent in its own code between two of our evaluations (seconds): SLSQP's
    subproblem over thousands of constraint rows runs in scipy's compiled code, where no evaluation comes to check the
    clock — 3 s a step at 48 harmonics on the UR10e, which ran a 10 s budget's search 5 s past its deadline (one
    worker). An evaluation is refused when the step after it would not end before the deadline, by the longest step
    seen so far."""

    def __init__(self, clock=None):
        self.clock = clock or (lambda: time.time())      # the module's clock when called (which tests replace)
        self.longest = 0.0
        self.returned = None            # when our last evaluation returned to the optimizer

    def room(self, deadline) -> bool:
        """Whether a step of the longest length seen still ends before ``deadline``; that step's length measured."""
        now = self.clock()
        if self.returned is not None:
            self.longest = max(self.longest, now - self.returned)
        return now + self.longest <= deadline


def _before(deadline, function, pace=None):
    """``function``, refusing (:class:`_Deadline`) to start once ``deadline`` (time.time()) has passed, or, given a
    :class:`_Pace`, once the optimizer's next step would end past it: one SLSQP iteration runs several evaluations of
    the criterion, its gradient, the constraints and their Jacobian (a line search), and a start checked only at its
    iterations' end ran its current one to the end past the deadline (a large problem's takes seconds; the pool's
    workers were given up 1 s after it, the caller's own starts not). The numbers are untouched: within the budget it
    is ``function`` itself."""
    if deadline is None:
        return function
    pace = pace or _Pace()

    def call(x):
        if not pace.room(deadline):
            raise _Deadline
        try:
            return function(x)
        finally:
            pace.returned = pace.clock()
    return call


def run_start(problem, seed, index, deadline=None, report=None, keep=None):
    """Run start ``index`` of a design problem (see module docstring); returns a :class:`StartResult`.

    ``keep``, if given, is called with the :class:`StartResult` of the best point so far (not complete) each time it
    improves: what the caller keeps of a start it gives up in the middle of an optimizer's step."""
    from scipy.optimize import minimize

    rng = np.random.default_rng([int(seed), int(index)])
    counts = (problem.evaluations, problem.gradient_evaluations)
    x = problem.initial(rng)
    done = 0

    def judged(y):
        """(infeasible, criterion value, y, violation): the best point's figures kept with it, for the result not to
        evaluate them again (past the deadline, an iterate's that a line search left out of the cache: seconds)."""
        violation = problem.violation(y)
        return violation > FEASIBLE, problem.value(y), y, violation

    def kept(best):
        if keep is not None:
            keep(StartResult(int(index), best[2], float(best[1]), best[3], done, False))

    best = judged(x)
    kept(best)
    if deadline is not None and time.time() > deadline:     # no time for even one iteration (which, for a large
        return StartResult(int(index), x, float(best[1]), best[3], 0, False)   # problem, takes minutes)
    bounds = problem.box()
    pace = _Pace()                  # one for every evaluation of the start: the optimizer's steps between any two
    constraints = [{"type": "ineq", "fun": _before(deadline, problem.constraints, pace),
                    "jac": _before(deadline, problem.jacobian, pace)}]
    complete = True

    def step(xk):
        nonlocal done, best
        done += 1
        candidate = judged(np.array(xk, copy=True))
        if candidate[:2] < best[:2]:
            best = candidate
            kept(best)
        if report is not None:
            report(index, done)
        if deadline is not None and time.time() > deadline:
            raise _Deadline

    try:
        if best[0]:                  # torque limits violated at the start: SLSQP's linearization may be
            x = _restore(problem, x, bounds, step, deadline, pace=pace)     # inconsistent there: first within them
        for p, width, count in SCHEDULES[problem.criterion]:
            problem.use_criterion(None if p is None else smooth_log_condition(p), width)
            result = minimize(_before(deadline, problem.objective, pace), x,
                              jac=_before(deadline, problem.gradient, pace),
                              method="SLSQP", bounds=bounds,
                              constraints=constraints, callback=step, options={"maxiter": count, "ftol": FTOL})
            x = result.x
            step_value = judged(x)
            if step_value[:2] < best[:2]:
                best = step_value
                kept(best)
    except _Deadline:
        complete = False
    finally:
        problem.use_criterion()
    _, value, x, violation = best
    return StartResult(int(index), x, float(value), violation, done, complete,
                       problem.evaluations - counts[0], problem.gradient_evaluations - counts[1])


def _restore(problem, x, bounds, step, deadline=None, iterations=100, pace=None):
    """Minimize the squared constraint violations (L-BFGS-B within the bounds) from x, each evaluation started before
    ``deadline`` with room for the optimizer's next step (:func:`_before`, ``pace``)."""
    from scipy.optimize import minimize

    def penalty(y):
        short = np.minimum(problem.constraints(y), 0.0)
        return float(short @ short), 2.0 * (problem.jacobian(y).T @ short)

    result = minimize(_before(deadline, penalty, pace), x, jac=True, method="L-BFGS-B", bounds=bounds, callback=step,
                      options={"maxiter": iterations})
    return result.x


# -- worker processes -------------------------------------------------------------------------------------
_WORKER = {}


@kept_for_the_first_task
def _init_worker(problem, seed, deadline, events):
    deaf_to_interrupts()                    # first: Ctrl-C is the caller's to handle (_processes.py)
    end_with_caller()                       # then: a killed caller's worker must not run its starts on
    one_blas_thread()
    _WORKER.update(problem=problem.receive(), seed=seed, deadline=deadline, events=events)


def _report_to(events, every=5):
    def report(index, done):
        if done % every == 0:
            try:
                events.put_nowait((index, every))
            except (queue_module.Full, OSError):      # progress is best effort
                pass
    return report


def _kept_to(events):
    """Send start 0's best point so far (a :class:`StartResult`) to the caller, best effort: a worker given up in the
    middle of an SLSQP step (compiled code, seconds at 36–48 harmonics) lost it, and a design whose budget ended
    before start 0 finished was that start's starting point rather than its best iterate (as with one worker)."""
    def keep(result):
        try:
            events.put_nowait(("kept", result))
        except (queue_module.Full, OSError):
            pass
    return keep


def _work(index):
    raise_failed_start()
    w = _WORKER
    # only start 0's unfinished result is ever used (the design when no start finished: SearchOutcome)
    keep = _kept_to(w["events"]) if index == 0 and w["deadline"] is not None else None
    return run_start(w["problem"], w["seed"], index, w["deadline"], _report_to(w["events"]), keep)


@dataclass(frozen=True)
class SearchOutcome:
    """What the multi-start search found and how the run went."""

    best: StartResult
    results: tuple            # every start that returned, by index
    counted: int              # k: the design is the best of starts 0 … k−1
    seconds: float
    budget_hit: bool

    @property
    def timing_dependent(self):
        return self.counted == 0


def search(problem, *, starts, seed, workers, time_budget=None, progress=None):
    """Run ``starts`` starts on ``workers`` processes (0 or 1: in this process, one after the other) within
    ``time_budget`` seconds.

    Returns
    -------
    SearchOutcome
    """
    begin = time.time()
    deadline = None if time_budget is None else begin + float(time_budget)
    per_start = iterations(problem)
    total = starts * per_start
    counted_iterations = {}

    def show():
        if progress is None:
            return
        done = min(sum(counted_iterations.values()), total)
        if deadline is not None:        # the budget ends first: show the time, in tenths of a second
            budget = round(10 * (deadline - begin))
            progress(max(min(round(10 * (time.time() - begin)), budget), round(budget * done / total)), budget)
        else:
            progress(done, total)

    def tick(index, n):
        counted_iterations[index] = counted_iterations.get(index, 0) + n
        show()

    results = {}

    def finished(result):
        results[result.index] = result
        counted_iterations[result.index] = per_start          # a start that ends early counts in full
        show()

    long_steps = deadline is not None and slsqp_step_seconds(problem) > LONG_STEP
    if workers <= 1 and not long_steps:
        _in_this_process(problem, starts, seed, deadline, tick, finished)
    else:       # a pool of one when SLSQP's steps may outlast the deadline by seconds: the same design, bit for bit
        # a worker inside such a step at the deadline is given up GRACE after it and stopped within POOL_END: the
        # workers' deadline leaves that time, for the search to end by the budget's (the UR10e's 3 s steps at 48
        # harmonics, a 10 s budget: ~10 s, where the workers' deadline at the budget's ended it at 12.5 s)
        within = deadline if not long_steps else max(begin, deadline - GRACE - POOL_END)
        _in_pool(problem, starts, seed, max(1, workers), within, tick, finished)
    counted = 0
    while counted in results and results[counted].complete:
        counted += 1
    if counted:
        best = min((results[i] for i in range(counted)), key=StartResult.rank)
    elif 0 in results:                                 # start 0 cut short: its best point so far
        best = results[0]
    else:                                              # start 0 never reported back: its starting point
        best = run_start(problem, seed, 0, deadline=time.time() - 1.0)
    return SearchOutcome(best, tuple(results[i] for i in sorted(results)), counted, time.time() - begin,
                         counted < starts)


def slsqp_step_seconds(problem):
    """An upper estimate of the seconds one SLSQP step (its subproblem, uninterruptible) takes on ``problem``
    (:data:`SLSQP_SECONDS`): past a time budget, a start in this process ends only after it."""
    return SLSQP_SECONDS * problem.n_constraints * float(problem.size) ** 2


def _in_this_process(problem, starts, seed, deadline, tick, finished):
    """Run the starts one after the other in this process, on one BLAS thread as a worker runs them (the same
    design and numbers to the last bit), handing each result to ``finished``. A pool of one worker cost each
    design 0.55–0.8 s of CPU to start the process and its imports, for nothing the caller could not do itself.
    The deadline is kept as a worker keeps it: a start stops at its first iteration past it, and none starts after."""
    import_held("scipy.optimize")       # a Ctrl-C during its import is not lost (import_held)
    with on_one_blas_thread():
        for index in range(starts):
            if deadline is not None and time.time() > deadline:
                break
            finished(run_start(problem, seed, index, deadline, lambda i, d: tick(i, 1)))


def _in_pool(problem, starts, seed, workers, deadline, tick, finished):
    """Run the starts on a pool of ``workers`` processes, handing each result to ``finished`` as it comes."""
    room_for_workers(min(workers, starts))
    context = multiprocessing.get_context("spawn")
    events = pool = handover = None
    stopped = True                  # until the results are in: the pool's clean-up is then a stop's
    try:
        # an interrupt held during the start-up is raised on leaving the block: inside this try, which
        # stops whatever started
        with caller_not_reimported(), workers_on_one_blas_thread(), _workers_born_deaf():
            events = context.Queue()
            handover = Handover(context, problem)      # not in the workers' start-up data (see Handover)
            with started_children_killed_on_failure():
                pool = context.Pool(min(workers, starts), initializer=_init_worker,
                                    initargs=(handover, seed, deadline, events))
        handover.send(min(workers, starts), lambda: list(pool._pool))
        pending = {index: pool.apply_async(_work, (index,)) for index in range(starts)}
        watch = WorkersWatched(lambda: list(pool._pool))
        kept = []                       # start 0's best point so far, while it runs
        while pending:
            watch.check()
            _drain(events, tick, kept.append)
            for index in [i for i, job in pending.items() if job.ready()]:
                finished(pending.pop(index).get())
            if deadline is not None and time.time() > deadline + GRACE:
                break           # workers stop at their next iteration after the deadline; do not wait longer
            time.sleep(0.02)
        _drain(events, tick, kept.append)
        if 0 in pending and kept:       # given up in the middle of a step: what it had found counts
            finished(kept[-1])
        stopped = False
    finally:
        if pool is not None:
            # bounded also after a normal end: a SIGTERM that a worker's other thread took (multiprocessing's queue
            # feeder) leaves its main thread waiting for a task, and the pool's join with it (seen once in the suite);
            # there with time for a worker cut short by the time budget to stop its compile (twice WORKER_CLEANUP_WAIT)
            with _killed_if_slow(lambda: list(pool._pool), grace=STOP_GRACE if stopped else POOL_END):
                pool.terminate()
                pool.join()
        if events is not None:
            events.close()
            events.join_thread()
        if handover is not None:
            handover.close()


def _drain(events, tick, keep):
    """Hand the workers' messages on: progress ``(index, iterations)`` to ``tick``, start 0's best point so far
    ``("kept", StartResult)`` to ``keep``."""
    while True:
        try:
            first, second = events.get_nowait()
        except (queue_module.Empty, OSError, EOFError):
            return
        if first == "kept":
            keep(second)
        else:
            tick(first, second)


def default_starts(workers, time_budget=None):
    """Starts when none are asked for: four per worker, at least eight; with a time budget, as many as
    it allows (up to 1000)."""
    return 1000 if time_budget is not None else max(8, 4 * max(1, workers))

