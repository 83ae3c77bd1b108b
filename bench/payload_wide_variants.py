"""Issue 25: settings of the wide payload design tried against its last gap (UR10e 1.5 kg: 3σ_I ≤ 10 % of λmax
under both noise models), measured by the Cramér–Rao bound under both.

``python bench/payload_wide_variants.py ROBOT VARIANT …``

A VARIANT is ``key=value`` pairs joined by commas (``seed=3,harmonics=64,iterations=2000,speed=1000,rounds=2``):
``seed`` and ``starts`` of the start search (default 0 and 4, as ``payload_wide_design.py``), ``harmonics`` of the
20 s series (48), ``iterations`` of the library's L-BFGS (``_payload_feasible.ITERATIONS``, 1500), then
``speed`` more iterations in ``rounds`` rounds (default 0 and 1) on the wide criterion with each row weighted by
1/σ(|q̇|) of the logs' σ by speed (``payload_wide_fits``' model), the weights frozen in a round and recomputed from
the motion between rounds (σ by speed is a table of speed bins: piecewise constant, its gradient zero a.e.).
Each design is the library's (``payload_design='wide'``, issue 25's limits, the bench's noise, no budget); the
speed rounds run on its problem afterwards and the result is scaled into the limits by ``_within_limits``.

Printed per variant: the CPU time, the wide criterion's value, and the CRB of σ_I (the largest element, median over
``bench_payload``'s ten 1.5 kg boxes) and 3σ_I as % of λmax under the constant σ | σ by speed. The CRB figures
follow ``payload_wide_fits.py``'s fits (the shipped design: CRB 10.8 | 12.0 %, fits 10.6 | 12.0 %).

Measured (2026-11-29 s24, pay3, UR10e, BASEPARAM_DATA=/work/shared/data; ~90 s CPU a 48-harmonic design), CRB
3σ_I/λmax at 1.5 kg, constant σ | σ by speed (the inertia design 13.3 | 14.8; the target ≤ 10 | ≤ 10):
  shipped (seed 0, 48 harmonics, 1500 iterations)          10.8 | 12.0   (σ_I 3.644e-4 | 4.070e-4)
  4500 iterations                                           10.7 | 12.0   (3.631e-4: converged)
  64 harmonics (3.2 Hz), 2000 iterations                    10.6 | 11.8   (fits: 10.6 | 12.2)
  iterations=0, speed=1500 in 5 rounds *                    11.3 | 12.1   (fits: 11.3 | 12.6)
  iterations=1500, speed=1500 in 3 rounds (179 s CPU)       11.1 | 11.8   (* 10.8 | 11.8)
  seeds 1, 2, 3 of the start search                         10.7 | 12.0, 11.5 | 12.8, 10.4 | 11.9
  criterion's p-norm 4 or 1, not 16 (SHARPNESS, by hand)    10.9 | 12.2, 11.2 | 12.2
  seed 3, 64 harmonics, 2000 iterations, then 1000
  speed-weighted in 2 rounds (all of the above) *           10.3 | 11.6   (fits: 10.2 | 11.7)
(*: a scratch driver that went on with L-BFGS's own unknowns after the library's iterations, where this script
starts again from the library's series scaled into the limits; the same figures without speed rounds.)
Every design reaches 94–99 % of the q̇ limit and 92–99 % of the q̈ limit on every joint (the shipped one: |q̈|
above 90 % of 5 rad/s² for a third to half of the time): the limits bind, and the wrist joints 4–5, whose noise
grows with speed (0.14 → 0.23 and 0.19 → 0.33 N·m from rest to 1–1.5 rad/s), move nearly as fast as the others
even when the rows are weighted by it (RMS q̇ 1.0–1.2 rad/s; 0.9 for joint 5 weighted from the start, the worse
design). Fits: ``payload_wide_fits.py ur10e FILE 10 1.5``. No setting reaches 10 % under σ by speed; the nearest
is 11.6 %, where 10 % needs a σ_I 14 % smaller. The default stays (no setting meets the task's condition).
"""
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from baseparam.dynamics.regressors import evaluate  # noqa: E402
from baseparam.excitation import _payload_feasible as feasible  # noqa: E402
from baseparam.excitation._problem import DesignProblem  # noqa: E402
from baseparam.excitation.design import _within_limits  # noqa: E402
from baseparam.model.parameters import ColumnLayout  # noqa: E402
from bench_payload import INERTIA_DESIGN, SCOPE, box_payload, limits_of  # noqa: E402
from payload_cases_probe import motion as played  # noqa: E402
from payload_speed_noise_fits import DT, speed_table  # noqa: E402
from payload_speed_noise_probe import EDGES  # noqa: E402
from payload_wide_fits import GROWING  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _payload_bound import crb, speed_noise  # noqa: E402
from _scope import scope_line  # noqa: E402

DEFAULTS = dict(seed=0, starts=4, harmonics=48, iterations=1500, speed=0, rounds=1)
PERIOD = 20.0
MASS = 1.5


def variant(text):
    """The settings of a VARIANT string (:data:`DEFAULTS` for the keys it leaves out)."""
    settings = dict(DEFAULTS)
    for pair in filter(None, text.split(",")):
        key, value = pair.split("=")
        if key not in DEFAULTS:
            raise SystemExit(f"unknown variant key {key!r}; known: {', '.join(DEFAULTS)}")
        settings[key] = int(value)
    return settings


def noise_models(name, robot):
    """The bench's constant σ (n,) and σ by speed (|q̇| (S, n) → σ (S, n)), as ``payload_wide_fits``."""
    table, flat = speed_table(name)
    fixed = [j for j in range(robot.n_dof) if j + 1 not in GROWING[name]]
    table[:, fixed] = flat[fixed]
    return flat, speed_noise(EDGES, table)


def designed(robot, name, settings):
    """The library's wide design of ``settings`` (its ITERATIONS set for the call)."""
    noise = lwr4_noise()[0] if name == "kuka_lwr4" else ur_noise()[0]
    kept, feasible.ITERATIONS = feasible.ITERATIONS, settings["iterations"]
    try:
        return bp.design_excitation(robot, limits=limits_of(robot)[0], payload=True, payload_joints=robot.n_dof,
                                    rate=1.0 / DT[name], noise=noise, criterion=INERTIA_DESIGN["criterion"],
                                    starts=settings["starts"], seed=settings["seed"], period=PERIOD,
                                    harmonics=settings["harmonics"], payload_design="wide")
    finally:
        feasible.ITERATIONS = kept


def speed_weighted(design, sigma, iterations, rounds):
    """``iterations`` more L-BFGS iterations on the wide criterion, rows weighted by 1/σ(|q̇|) frozen per round.

    Returns
    -------
    series : FourierSeries
        Within the design's limits.
    value : float
        The last round's criterion.
    """
    from scipy.optimize import minimize

    load, series = design.payload, design.series
    held = load.pose.copy()
    held[[k - 1 for k in load.moving]] = np.nan
    problem = DesignProblem(design.base.robot, load.pivots, design.base.parameters, series.period, series.harmonics,
                            design.limits, "dopt", held=held)
    theta = np.hstack([series.q0[:, None], series.a, series.b])
    x = np.linalg.lstsq(problem.N, theta.T, rcond=None)[0].T.ravel()
    rows = wide_rows(design.base.parameters)
    mapped = feasible.FeasibleMap(problem)
    y, value = mapped.start(x), float("nan")
    for _ in range(rounds):
        qd = problem.states(mapped.x(y), problem.Bc)[1]
        problem.use_criterion(feasible.centre_criterion(rows, (1.0 / sigma(np.abs(qd))).ravel()))
        result = minimize(mapped.value_and_gradient, y, jac=True, method="L-BFGS-B",
                          options={"maxiter": iterations // rounds, "maxcor": feasible.MEMORY, "ftol": 1e-14,
                                   "gtol": 1e-12})
        y, value = result.x, float(result.fun)
    return _within_limits(problem.series(mapped.x(y)), design.limits), value


def wide_rows(parameters):
    """The wide criterion's rows (H·6, 10): ∂(inertia about the centre)/∂(the 10 columns) over its hypotheses."""
    from baseparam.model.parameters import khalil_to_pseudo
    to_khalil = np.eye(10) if parameters == "khalil" else np.linalg.inv(np.array(khalil_to_pseudo(), dtype=float))
    return np.concatenate([feasible.centre_rows(c, to_khalil) for c in feasible.hypothesis_centres()])


def bound(robot, series, dt, noise):
    """Median over the ten 1.5 kg boxes of the largest σ_I (CRB) and 3σ_I as % of λmax; ``noise`` (n,) or
    σ by speed (a function of |q̇|)."""
    _, q, qd, qdd = played(series, dt)
    sigma = noise(np.abs(qd)) if callable(noise) else np.broadcast_to(noise, qd.shape)
    W = evaluate(robot, q, qd, qdd, parameters="pseudo",
                 columns=ColumnLayout(robot, "pseudo").link_columns[-1]) / sigma[..., None]
    F = np.einsum("sjr,sjc->rc", W, W)
    figures = []
    for k in range(10):
        payload = box_payload(MASS, np.random.default_rng(1000 + k))
        largest = crb(F, payload)[2].max()
        figures.append((largest, 300.0 * largest / np.linalg.eigvalsh(payload[2]).max()))
    return np.median(figures, axis=0)


def main():
    print(scope_line(SCOPE))
    name = sys.argv[1]
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    flat, by_speed = noise_models(name, robot)
    for text in sys.argv[2:]:
        settings = variant(text)
        t0 = time.process_time()
        design = designed(robot, name, settings)
        series, value = design.series, design.refinement["value"]
        if settings["speed"]:
            series, value = speed_weighted(design, by_speed, settings["speed"], settings["rounds"])
        (c, cp), (v, vp) = bound(robot, series, DT[name], flat), bound(robot, series, DT[name], by_speed)
        print(f"{text or 'shipped'}: {time.process_time() - t0:.0f} s CPU, criterion {value:.4f}; CRB σ_I "
              f"{c:.3e} | {v:.3e} kg·m², 3σ_I {cp:.1f} | {vp:.1f} % of λmax (constant σ | σ by speed)", flush=True)


if __name__ == "__main__":
    main()
