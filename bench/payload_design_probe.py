"""Other payload designs than ``bench_payload.py``'s, by the Cramér–Rao bound of σ_I alone (no fits).

``python bench/payload_design_probe.py [ROBOT] [BUDGET_S] [WHICH]`` (WHICH: the designs' numbers, 0–5, e.g. ``0,1``)

Issue 25's open light-tool cases need σ_I 1.3–2.6× below the inertia design's (every joint, A-optimal over
the inertia about the flange origin, rows weighted by the measured noise, 5 s × 4 harmonics). This measures,
for the LWR4+ and the UR10e under issue 25's limits, seed 0 and ``BUDGET_S`` (40) s of search each, the
median over ``bench_payload``'s ten 1 kg boxes of the largest element's bound for: that design; a shorter
period (2.5 s × 4, more changes of acceleration per 20 s); more harmonics (5 s × 8); A-optimality over the
inertia about the centre of mass (the criterion's rows the Jacobian of the inertia about the centre at a
nominal 1 kg box, mass and centre estimated too); and D-optimality over the inertia block (log det of its
covariance, mass and centre marginalized), about the centre and about the origin.

The last three are not criteria of ``excite``: they are put in place of two private names of
``baseparam.excitation`` (the 'inertia' criterion's rows and function) and the search runs in this process
(spawned workers would import the originals). The figures are in ``bench_payload.py``'s docstring.
"""
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
import baseparam.excitation._problem as problem  # noqa: E402
import baseparam.excitation.design as design  # noqa: E402
from baseparam.identification.payload import payload_parameters  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _payload_bound import _inertia, crb, information  # noqa: E402
from _scope import scope_line  # noqa: E402
from bench_payload import SCOPE, box_payload, limits_of  # noqa: E402

ORIGINAL_ROWS, ORIGINAL_CRITERION = design.inertia_rows, problem.criterion_function
MODE = {"rows": None, "block": False}


def rows(robot, parameters, pivots, Y=None):
    """The criterion's rows: MODE's (the inertia about a nominal centre) or the library's."""
    return ORIGINAL_ROWS(robot, parameters, pivots, Y) if MODE["rows"] is None else MODE["rows"]


def log_det_block(E, weights=None):
    """(1/k)·log det(rows · E M⁻¹ Eᵀ), M = AᵀWA: D-optimality over the k elements E p, the other parameters
    marginalized; its derivative −(2/k)·W A M⁻¹Eᵀ(E M⁻¹Eᵀ)⁻¹E M⁻¹."""
    E = np.asarray(E, float)
    squared = None if weights is None else np.asarray(weights, float) ** 2

    def criterion(A):
        n_rows = A.shape[0]
        Aw = A if squared is None else A * np.tile(squared, n_rows // len(squared))[:, None]
        try:
            Mi = np.linalg.inv(A.T @ Aw)
            C = E @ Mi @ E.T
            L = np.linalg.cholesky(C)
        except np.linalg.LinAlgError:
            return float("inf"), np.zeros_like(A)
        value = 2 * np.log(np.diag(L)).sum() + len(E) * np.log(n_rows)
        G = Mi @ E.T @ np.linalg.inv(C) @ E @ Mi
        return float(value / len(E)), Aw @ G * (-2.0 / len(E))
    return criterion


def criterion(name, inertia=None, weights=None):
    if name == "inertia" and MODE["block"]:
        return log_det_block(inertia, weights)
    return ORIGINAL_CRITERION(name, inertia=inertia, weights=weights)


def centre_rows(payload):
    """d(inertia about the centre, upper triangle)/d(the 10 pseudo parameters), shape (6, 10), at ``payload``
    (the pivots of a motion of every joint are the 10 columns in order)."""
    p = payload_parameters(*payload)
    J = np.zeros((10, 10))
    for k in range(10):
        h = 1e-6 * max(abs(p[k]), 1e-3)
        d = np.zeros(10)
        d[k] = h
        J[:, k] = (_inertia(p + d) - _inertia(p - d)) / (2 * h)
    return J[4:]


def bound_of(robot, dt, noise, budget, period, harmonics, rows=None, block=False):
    MODE.update(rows=rows, block=block)
    try:
        d = bp.design_excitation(robot, limits=limits_of(robot)[0], time_budget=budget, seed=0, payload=True,
                                 rate=1.0 / dt, period=period, harmonics=harmonics, payload_joints=robot.n_dof,
                                 criterion="inertia", noise=noise)
    finally:
        MODE.update(rows=None, block=False)
    n = int(round(20.0 / dt))
    reps = -(-n // len(d.samples.q))
    q, qd, qdd = (np.tile(a, (reps, 1))[:n] for a in (d.samples.q, d.samples.qd, d.samples.qdd))
    F = information(robot, q, qd, qdd, noise)
    return float(np.median([crb(F, box_payload(1.0, np.random.default_rng(1000 + k)))[2].max()
                            for k in range(10)]))


def main():
    print(scope_line(SCOPE))
    design.inertia_rows, problem.criterion_function = rows, criterion
    design._workers = lambda workers: 0            # the search in this process, with the names above
    only = sys.argv[1] if len(sys.argv) > 1 else None
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 40.0
    which = [int(k) for k in sys.argv[3].split(",")] if len(sys.argv) > 3 else range(6)
    for name, dt, noise in (("kuka_lwr4", 0.005, lwr4_noise()[0]), ("ur10e", 0.01, ur_noise()[0])):
        if only and name != only:
            continue
        robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
        centre = centre_rows(box_payload(1.0, np.random.default_rng(0)))
        designs = (("inertia design, 5 s x 4", dict(period=5.0, harmonics=4)),
                   ("inertia design, 2.5 s x 4", dict(period=2.5, harmonics=4)),
                   ("inertia design, 5 s x 8", dict(period=5.0, harmonics=8)),
                   ("A-optimal about the centre", dict(period=5.0, harmonics=4, rows=centre)),
                   ("D-optimal block about the centre", dict(period=5.0, harmonics=4, rows=centre, block=True)),
                   ("D-optimal block about the origin", dict(period=5.0, harmonics=4, block=True)))
        for label, settings in (designs[k] for k in which):
            start = time.perf_counter()
            value = bound_of(robot, dt, noise, budget, **settings)
            print(f"{name} {label:34s} CRB of σ_I (median of ten 1 kg boxes) {value:.3e} kg·m² "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
