"""Are the floating-base fit's standard deviations honest? (issue 27: "within 3σ of the truth by each
route"). solo12 on four force plates, notebook 11's stance motion (8 s at 100 Hz), joint-torque noise
0.01 N·m and foot-force noise 0.2 N, refitted over many noise seeds by the torques and the base routes.

Per route it prints the mean of d²/R, d² = eᵀ Σ⁻¹ e the Mahalanobis distance of the error of all R
combinations in the fit's own covariance (1 when the covariance is right; its spread over one seed is
√(2/R)), the share of fits with some |error| > 3σ (≈ 1 − 0.9973^R ≈ 22 % for R = 94 when every σ is right)
and the mean (error/σ)².

    python bench/bench_floating_calibration.py              # 24 seeds
    python bench/bench_floating_calibration.py --seeds 8

Measured (2026-11-27, 24 seeds, main at 5c58fbe): base route d²/R 1.077, 21 % of fits beyond 3σ somewhere
(calibrated within ~8 %); torques route d²/R 1.20, 38 % (σ ~10 % optimistic: one foot-force error enters the
base rows and the legs' torque rows, which the per-row weights take as independent). A trial feasible GLS with
each sample's row correlation from the OLS residual gave 1.05 / 17 % and 0.97 / 25 % (not adopted yet).
"""
import argparse
import pathlib
import sys
import warnings

import numpy as np

import baseparam as bp

ROOT = pathlib.Path(__file__).resolve().parent.parent

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

SCOPE = ([], "solo12 comes from example-robot-data (notebook 11's experiment)")


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=24)
    args = parser.parse_args()
    print(scope_line(SCOPE))
    warnings.simplefilter("ignore")
    solo, feet, model, (t, q, qd, qdd) = experiment()
    truth = model.values()
    figures = {"torques": [], "base": []}
    for seed in range(args.seeds):
        plates = bp.contact_experiment(model, t, q, qd, qdd, feet, point=True,
                                       noise=bp.SensorNoise(tau=0.01, seed=seed), wrench_noise=(0.2, 0.0), seed=seed)
        for route, rows in figures.items():
            r = bp.identify_floating(solo, plates.log, route=route, contacts=feet, wrenches=plates.wrenches)
            e = r.values - r.from_standard(truth)
            d2 = e @ np.linalg.lstsq(r.covariance, e, rcond=None)[0]
            z = e / r.std
            rows.append((d2 / len(e), np.abs(z).max(), np.mean(z ** 2)))
    for route, rows in figures.items():
        rows = np.array(rows)
        print(f"{route:8s} {args.seeds} seeds: mean d²/R {rows[:, 0].mean():.3f}, fits with some |error| > 3σ "
              f"{100 * (rows[:, 1] > 3).mean():.0f} %, mean (error/σ)² {rows[:, 2].mean():.2f}")


if __name__ == "__main__":
    main()
