"""Are the floating-base fit's standard deviations honest? (issue 27: "within 3σ of the truth by each
route"). solo12 on four force plates, notebook 11's stance motion (8 s at 100 Hz), joint-torque noise
0.01 N·m and foot-force noise 0.2 N, refitted over many noise seeds by the torques and the base routes; then
the space robot floating freely (the tests' motion, 20 s; torque noise 0.05 N·m, q̇ noise 0.002 rad/s,
twist noise 0.0005) by the momentum, base and torques routes (the mass known for the first two).

Per robot and route it prints the mean of d²/R ± its standard error over the seeds, d² = eᵀ Σ⁻¹ e the
Mahalanobis distance of the error of the R combinations with σ > 0 in the fit's own covariance (1 when the
covariance is right; its spread over one seed is √(2/R)); the share of fits with some |error| > 3σ ± its
binomial standard error, against the share expected were the covariance right (errors drawn from
N(0, covariance): below 1 − 0.9973^R ≈ 22 % for R = 94, as the z's are correlated); and the mean (error/σ)².

    python bench/bench_floating_calibration.py              # 24 seeds (~10 min on a shared machine)
    python bench/bench_floating_calibration.py --seeds 8 --no-space

Measured (2026-11-27, 24 seeds), per-row weights (main at ec8f03d) → feasible GLS (each sample's rows
whitened by their covariance from the OLS residual):
solo12   torques  d²/R 1.201 ± 0.044 → 0.974 ± 0.027, beyond 3σ 38 ± 10 % → 25 ± 9 % (calibrated: 16 %)
solo12   base     d²/R 1.077 ± 0.037 → 1.049 ± 0.024, beyond 3σ 21 ± 8 % → 17 ± 8 % (calibrated: 11 %)
space    momentum d²/R 1.056 ± 0.054 → 1.008 ± 0.052, beyond 3σ 29 ± 9 % → 17 ± 8 % (calibrated: 11 %)
space    base     d²/R 1.430 ± 0.084 → 1.280 ± 0.075, beyond 3σ 42 ± 10 % → 29 ± 9 % (calibrated: 11 %)
space    torques  d²/R 1.606 ± 0.096 → 1.453 ± 0.083, beyond 3σ 62 ± 10 % → 50 ± 10 % (calibrated: 10 %)
Then errors in variables on the torques route (each sample's covariance Σ0 + G_s diag(v) G_sᵀ, the q̇ variances
v by the method of moments; docs/method.md, the Fit bullet, step 4): the space robot's torques route
1.453 ± 0.083 → 1.151 ± 0.067, beyond 3σ 50 ± 10 % → 12 ± 7 % (calibrated: 10 %); every other row unchanged
(solo12 has no q̇ noise: none found). Then the base route under q̇ noise (docs/method.md, the Fit bullet, step 5:
the samples' sandwich covariance when q̇ noise is found, S ≥ 10 R and every sample's leverage < 1): the space
robot's base route 1.280 ± 0.075 → 1.039 ± 0.044, beyond 3σ 29 ± 9 % → 4 ± 4 % (calibrated: 11 %); every other row
unchanged to the digit (solo12: no q̇ noise, 8.5 samples per combination, leverage 2.8); every estimate unchanged.

    python bench/bench_floating_calibration.py --robot space --seeds 8     # one robot, fewer seeds
"""
import argparse
import pathlib
import sys
import warnings

import numpy as np

import baseparam as bp

ROOT = pathlib.Path(__file__).resolve().parent.parent

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

SCOPE = (["space_robot.yaml"], "solo12 comes from example-robot-data (notebook 11's experiment); the space robot "
         "is the one free-floating description")


def experiment():
    """solo12, its feet, the truth and notebook 11's stance motion (t, q, qd, qdd)."""
    sys.path.insert(0, str(ROOT / "notebooks"))
    from _helpers import solo12_floating

    solo, feet = solo12_floating()
    model = bp.Model(solo)
    q0 = np.r_[0, 0, 0.25, 0, 0, 0, 1, [0.0, 0.8, -1.6] * 4]
    t = np.linspace(0, 8, 801)
    position = np.column_stack([0.03 * np.sin(1.1 * t), 0.03 * np.sin(0.7 * t + 1),
                                0.25 + 0.03 * np.sin(1.7 * t + 2)])
    angles = np.column_stack([0.15 * np.sin(0.9 * t), 0.12 * np.sin(1.3 * t + 0.5), 0.12 * np.sin(1.9 * t + 1)])
    q, qd, qdd = bp.stance_motion(solo, t, q0, position, angles, feet)
    return solo, feet, model, (t, q, qd, qdd)


def space_experiment(seed):
    """Liu et al.'s space robot floating freely under joint torques for 20 s (the tests' motion), logged with
    joint-torque noise 0.05 N·m, joint-velocity noise 0.002 rad/s and base-twist noise 0.0005."""
    model = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    k = np.arange(1, 7)

    def tau(t, q, qd):
        return 3 * np.sin(0.5 * k * t + k) + 2 * np.sin(0.43 * k * t)

    return model, bp.free_floating_experiment(model, np.linspace(0, 20, 801), tau, twist_noise=0.0005, seed=seed,
                                              noise=bp.SensorNoise(tau=0.05, qd=0.002, seed=seed))


def figures(result, truth, rng, draws=4000):
    """(d²/R, max |z|, mean z², P(max |z| > 3) were the fit's covariance right): R the combinations with σ > 0
    (a known quantity fixes the others), the last by drawing errors from N(0, covariance)."""
    seen = result.std > 0
    e = (result.values - result.from_standard(truth))[seen]
    cov = result.covariance[np.ix_(seen, seen)]
    d2 = e @ np.linalg.lstsq(cov, e, rcond=None)[0]
    z = e / result.std[seen]
    w, V = np.linalg.eigh(0.5 * (cov + cov.T))
    sample = rng.standard_normal((draws, len(w))) @ (V * np.sqrt(np.maximum(w, 0.0))).T
    expected = np.mean(np.abs(sample / result.std[seen]).max(axis=1) > 3)
    return d2 / len(e), np.abs(z).max(), np.mean(z ** 2), expected


def report(name, route, rows):
    rows = np.array(rows)
    n = len(rows)
    beyond = (rows[:, 1] > 3).mean()
    spread = rows[:, 0].std(ddof=1) / np.sqrt(n)
    print(f"{name:9s} {route:8s} {n} seeds: mean d²/R {rows[:, 0].mean():.3f} ± {spread:.3f}, "
          f"fits with some |error| > 3σ {100 * beyond:.0f} ± {100 * np.sqrt(beyond * (1 - beyond) / n):.0f} % "
          f"(calibrated: {100 * rows[:, 3].mean():.0f} %), mean (error/σ)² {rows[:, 2].mean():.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=24)
    parser.add_argument("--no-space", action="store_true", help="solo12 only (not the space robot)")
    parser.add_argument("--robot", choices=("solo12", "space"), help="one robot only")
    args = parser.parse_args()
    print(scope_line(SCOPE))
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    if args.robot != "space":
        solo_fits(args, rng)
    if args.no_space or args.robot == "solo12":
        return
    space_fits(args, rng)


def solo_fits(args, rng):
    solo, feet, model, (t, q, qd, qdd) = experiment()
    truth = model.values()
    solo_rows = {"torques": [], "base": []}
    for seed in range(args.seeds):
        plates = bp.contact_experiment(model, t, q, qd, qdd, feet, point=True,
                                       noise=bp.SensorNoise(tau=0.01, seed=seed), wrench_noise=(0.2, 0.0), seed=seed)
        for route, rows in solo_rows.items():
            r = bp.identify_floating(solo, plates.log, route=route, contacts=feet, wrenches=plates.wrenches)
            rows.append(figures(r, truth, rng))
    for route, rows in solo_rows.items():
        report("solo12", route, rows)


def space_fits(args, rng):
    space_rows = {"momentum": [], "base": [], "torques": []}
    for seed in range(args.seeds):
        space, ex = space_experiment(seed)
        for route, rows in space_rows.items():
            known = {"mass": 448.0} if route != "torques" else None
            r = bp.identify_floating(space, ex.log, route=route, known=known)
            rows.append(figures(r, ex.parameters, rng))
    for route, rows in space_rows.items():
        report("space", route, rows)


if __name__ == "__main__":
    main()
