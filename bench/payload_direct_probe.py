"""Payload designs optimized directly (not by ``excite``'s SLSQP): a quadratic penalty on the limits minimized by
L-BFGS-B, then scaled into the limits (certified), for larger parameterizations and other criteria.

``python bench/payload_direct_probe.py ROBOT PERIOD HARMONICS CRITERION [STARTS] [ITER]``
CRITERION: ``origin`` (the library's 'inertia' criterion: A-optimal over the inertia about the flange origin,
noise-weighted) or ``centre`` (the largest variance of the inertia about the centre of mass over payload
hypotheses, a smooth maximum). Prints the CRB of σ_I (median over bench_payload's ten 1 kg boxes) of the 20 s
motion (the period repeated) at the log's rate.

Measured (2026-11-27, LWR4+, 5 s × 4 harmonics, criterion origin, 3 starts of 3 × 1000 iterations, ~40 s CPU
each): CRB σ_I 3.9e-4, 4.6e-4, 3.9e-4 kg·m², against 2.5e-4 for ``excite``'s SLSQP on the same problem: the
penalty path is worse, and the library's SLSQP is kept (``payload_warm_probe.py`` uses it). Its criterion
``centre`` (:func:`centre_criterion`) and ``build``/``crb_of`` are what the warm probe uses.
"""
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from baseparam.excitation._problem import DesignProblem  # noqa: E402
from baseparam.excitation.criteria import inertia_rows  # noqa: E402
from baseparam.excitation.design import _within_limits  # noqa: E402
from baseparam.excitation.limits import motion_limits  # noqa: E402
from baseparam.excitation.payload import payload_columns  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _scope import scope_line  # noqa: E402
from _payload_bound import crb, information  # noqa: E402
from payload_design_probe import centre_rows as centre_jacobian  # noqa: E402
from bench_payload import ROBOTS, SCOPE, box_payload, limits_of  # noqa: E402

RATES = dict(ROBOTS)          # robot → the log's sample time (s), as bench_payload runs it


def build(robot, noise, period, harmonics):
    lim = motion_limits(robot, limits_of(robot)[0])
    load = payload_columns(robot, "pseudo", lim, robot.n_dof)
    options = {"inertia": inertia_rows(robot, "pseudo", load.pivots, load.Y), "weights": 1.0 / np.asarray(noise)}
    problem = DesignProblem(robot, load.pivots, "pseudo", period, harmonics, lim, "inertia",
                            criterion_options=options)
    return problem, lim, load


def centre_criterion(Js, weights, sharp=8.0):
    """The target's criterion, the library's (``baseparam.excitation._payload_feasible.centre_criterion``: the
    log of a p-norm of the variances of the inertia about the centre over payload hypotheses and elements) over
    the hypotheses' rows ``Js`` (list of (6, 10): :func:`centre_jacobian`); ``A (rows, 10) -> (value, dA)``."""
    from baseparam.excitation._payload_feasible import centre_criterion as library
    return library(np.concatenate(Js), weights, sharp)


def optimize(problem, x, iterations, mu=1e3):
    from scipy.optimize import minimize
    bounds = problem.box()

    for scale in (1.0, 10.0, 100.0):
        mu_now = mu * scale

        def fs(y, m=mu_now):
            v = problem.objective(y)
            g = problem.gradient(y)
            c = np.minimum(problem.constraints(y), 0.0)
            return v + m * float(c @ c), g + 2 * m * (problem.jacobian(y).T @ c)
        x = minimize(fs, x, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": iterations}).x
    return x


def crb_of(robot, series, dt, noise):
    samples = series.sample(1.0 / dt)
    n = int(round(20.0 / dt))
    reps = -(-n // len(samples.q))
    q, qd, qdd = (np.tile(a, (reps, 1))[:n] for a in (samples.q, samples.qd, samples.qdd))
    F = information(robot, q, qd, qdd, noise)
    vals = [crb(F, box_payload(1.0, np.random.default_rng(1000 + k)))[2].max() for k in range(10)]
    return float(np.median(vals)), (np.arange(n) * dt, q, qd, qdd)


def main():
    print(scope_line(SCOPE))
    name, period, harmonics, which = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    starts = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    iterations = int(sys.argv[6]) if len(sys.argv) > 6 else 300
    dt = RATES[name]
    noise = lwr4_noise()[0] if name == "kuka_lwr4" else ur_noise()[0]
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    problem, lim, load = build(robot, noise, period, harmonics)
    if which == "centre":
        Js = [centre_jacobian(box_payload(1.0, np.random.default_rng(2000 + k))) for k in range(8)]
        problem.use_criterion(centre_criterion(Js, 1.0 / np.asarray(noise)))
    best = None
    for start in range(starts):
        t0 = time.process_time()
        x = problem.initial(np.random.default_rng([0, start]))
        x = optimize(problem, x, iterations)
        series = _within_limits(problem.series(x), lim)
        value, motion = crb_of(robot, series, dt, noise)
        print(f"{name} {period:g} s x {harmonics} {which} start {start}: CRB σ_I {value:.3e} kg·m² "
              f"(violation before scaling {problem.violation(x):.2e}, {time.process_time() - t0:.0f} s CPU)",
              flush=True)
        if best is None or value < best[0]:
            best = (value, series)
    np.save(f"/tmp/pay/{name}_{period:g}_{harmonics}_{which}.npy",
            np.concatenate([[best[1].period], best[1].q0, best[1].a.ravel(), best[1].b.ravel()]))


if __name__ == "__main__":
    main()
