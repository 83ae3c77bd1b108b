"""The physically consistent fit and the friction models on the measured data, and the solve time.

``python bench/bench_consistent.py [--real] [--friction] [--speed]`` (all three without options):

* ``--real``: held-out pooled NRMSE on the README's splits and the other honest splits of
  ../shared/data (KUKA LWR4+: train 3 → validate 1, 1 → 3, 2 → 3; UR10e: each 12/14-harmonic log
  → the point-to-point log), default preprocessing, by OLS, WLS and the consistent fit (no prior,
  CAD prior with its weight chosen from the training data; WLS and OLS weighting), with the chosen
  prior weight and whether every link's pseudo-inertia is positive definite;
* ``--friction``: what each friction model buys on both robots (OLS and consistent, held out):
  sign(q̇) as logged, sign(q̇) low-passed like τ (the default), smooth tanh(q̇/v) and Stribeck with
  identified scales, and no Coulomb term;
* ``--speed``: 100 000 samples of the 7-DOF LWR4+ (its measured trajectory 3, repeated): the time
  to reduce the stacked base regressor (the streamed Grams of the folds: the "QR"), to solve the LMI
  fit, and to choose the CAD prior's weight (8 weights × 5 folds), beside the OLS fit's time;
* ``--reuse``: repeated fits of one robot (as a bootstrap, a cross-validation or a multi-start does),
  here the three measured LWR4+ logs and the three UR10e 12/14-harmonic logs, two rounds each, without
  prior, with the CAD prior at a given weight and with the weight chosen: CPU time per fit when each fit
  compiles its own cvxpy program (a new robot object: what every fit did before the programs were kept)
  against fits of the same robot object, which compile it once (the first fit) and then only re-solve
  (cvxpy DPP parameters), in one process, alternated; and that both give the same numbers.
"""
from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import baseparam as bp

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
UR_COLUMNS = "t=0,q=1:7,qd=7:13,current=13:19"
UR_GAINS = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]


from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["kuka_lwr4.yaml", "ur10e.yaml"],
         "held-out errors need measured logs, which exist for these two arms only")


def kuka(name):
    return bp.read_trajectory(DATA / "kuka_lwr4" / name)


def ur(name):
    folder = "validation_data" if "ptp" in name else "identification_data"
    return bp.read_trajectory(DATA / "ur10e" / folder / name, columns=UR_COLUMNS, gains=UR_GAINS)


SPLITS = [("KUKA LWR4+", "kuka_lwr4.yaml", kuka, "measurements_3.npz", "measurements_1.npz"),
          ("KUKA LWR4+", "kuka_lwr4.yaml", kuka, "measurements_1.npz", "measurements_3.npz"),
          ("KUKA LWR4+", "kuka_lwr4.yaml", kuka, "measurements_2.npz", "measurements_3.npz"),
          ("UR10e", "ur10e.yaml", ur, "ur-20_02_12-50sec_12harm.csv", "ur-20_01_17-ptp_10_points.csv"),
          ("UR10e", "ur10e.yaml", ur, "ur-20_02_12-40sec_12harm.csv", "ur-20_01_17-ptp_10_points.csv"),
          ("UR10e", "ur10e.yaml", ur, "ur-20_02_19_14harm50sec.csv", "ur-20_01_17-ptp_10_points.csv")]


def held_out(robot, train, validate, **options):
    result = bp.identify(robot, train, validate=validate, **options)
    return result


def real():
    print("held-out pooled NRMSE % (README splits first); consistent: every J ≻ 0, FV, FC, IA ≥ 0")
    print(f"{'robot':<11} {'train → validate':<52} {'OLS':>6} {'WLS':>6} {'LMI':>6} {'LMI ols':>7} "
          f"{'+CAD':>6} {'+CAD ols':>8}  μ chosen  all J ≻ 0")
    for name, file, read, train_name, validate_name in SPLITS:
        robot = bp.load_robot(ROOT / "robots" / file)
        train, validate = read(train_name), read(validate_name)
        rows = [held_out(robot, train, validate, method=m) for m in ("ols", "wls")]
        cons = [held_out(robot, train, validate, method="consistent", prior=p, weighting=w)
                for p, w in (("none", "wls"), ("none", "ols"), ("cad", "wls"), ("cad", "ols"))]
        mu = [c.estimator.consistent_.prior_choice.chosen for c in cons[2:]]
        ok = all(link["min_eigenvalue"] > 0 for c in cons for link in c.estimator.physical_)
        figures = " ".join(f"{r.validation.nrmse_pooled_percent:6.2f}" for r in rows)
        c = [x.validation.nrmse_pooled_percent for x in cons]
        print(f"{name:<11} {train_name + ' → ' + validate_name:<52} {figures} {c[0]:6.2f} {c[1]:7.2f} {c[2]:6.2f} "
              f"{c[3]:8.2f}  {mu[0]:g} / {mu[1]:g}   {ok}")


FRICTION = [("sign(q̇), not filtered", None, False), ("sign(q̇) low-passed like τ (default)", None, True),
            ("smooth tanh(q̇/v), v identified", "smooth", True), ("Stribeck, v_s identified", "stribeck", True),
            ("smooth + Stribeck, identified", "smooth+stribeck", True), ("no Coulomb term", "none", True)]


def friction():
    print("friction models: held-out pooled NRMSE % (per joint), README splits, OLS and consistent (CAD prior)")
    cases = [SPLITS[0], SPLITS[3]]
    for name, file, read, train_name, validate_name in cases:
        train, validate = read(train_name), read(validate_name)
        print(f"{name} ({train_name} → {validate_name})")
        for label, model, filtered in FRICTION:
            robot = bp.load_robot(ROOT / "robots" / file, friction_model=model)
            settings = bp.Preprocessing(filter_friction=filtered)
            ols = held_out(robot, train, validate, preprocessing=settings)
            cons = held_out(robot, train, validate, preprocessing=settings, method="consistent")
            scales = ols.estimator.friction_scales_
            shown = "" if not scales else "  scales (v/v_s per joint): " + " ".join(
                "/".join(f"{v:.3g}" for v in s.values()) for s in scales.values())
            joints = " ".join(f"{x:5.1f}" for x in ols.validation.nrmse_percent)
            print(f"  {label:<38} OLS {ols.validation.nrmse_pooled_percent:5.2f} [{joints}]  consistent "
                  f"{cons.validation.nrmse_pooled_percent:5.2f}{shown}")


def speed():
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    one = bp.preprocess(kuka("measurements_3.npz"))
    reps = int(np.ceil(100_000 / one.kept.sum()))
    import dataclasses
    n = len(one.t)
    many = dataclasses.replace(one, t=np.arange(n * reps) * (one.t[1] - one.t[0]),
                               **{k: np.tile(getattr(one, k), (reps, 1)) for k in ("q", "qd", "qdd", "tau")},
                               segment=np.repeat(np.arange(reps), n), kept=np.tile(one.kept, reps))
    keep = np.flatnonzero(many.kept)[:100_000]
    mask = np.zeros(len(many.t), bool)
    mask[keep] = True
    many = dataclasses.replace(many, kept=mask)
    base = bp.find_base_parameters(robot)
    from baseparam._blas import single_threaded
    from baseparam.identification._consistent import consistent_fit
    from baseparam.identification._least_squares import accumulate, least_squares
    for label, method in (("OLS (normal equations, solve, statistics)", "ols"),
                          ("consistent, no prior", "none"), ("consistent, CAD prior (weight chosen)", "cad")):
        times = []
        for _ in range(3):
            with single_threaded():          # as the estimator runs them
                start = time.perf_counter()
                normal, effective, factors = accumulate(base, [many], 1, folds=0 if method == "ols" else 5)
                reduced = time.perf_counter()
                fit = least_squares(normal, "ols" if method == "ols" else "wls", effective)
                if method != "ols":
                    result = consistent_fit(base, factors, fit.weights, prior=method, std=fit.std)
                done = time.perf_counter()
            times.append((reduced - start, done - reduced))
        reduce_t, solve_t = np.min(times, axis=0)
        extra = "" if method == "ols" else f"  ({result.n_solves} solver calls, status {result.status})"
        print(f"{label:<44} 100 000 samples × 7 joints: reduce {reduce_t:.2f} s + solve {solve_t:.2f} s = "
              f"{reduce_t + solve_t:.2f} s{extra}")


def reuse():
    import dataclasses

    from baseparam._blas import single_threaded
    from baseparam.identification._consistent import consistent_fit
    from baseparam.identification._least_squares import accumulate, least_squares
    print("repeated consistent fits of one robot: CPU s per fit, a new program each fit vs the robot's kept one")
    ur_logs = ("ur-20_02_12-50sec_12harm.csv", "ur-20_02_12-40sec_12harm.csv", "ur-20_02_19_14harm50sec.csv")
    cases = [("KUKA LWR4+", "kuka_lwr4.yaml", [kuka(f"measurements_{i}.npz") for i in (1, 2, 3)]),
             ("UR10e", "ur10e.yaml", [ur(name) for name in ur_logs])]
    for name, file, logs in cases:
        robot = bp.load_robot(ROOT / "robots" / file)
        base = bp.find_base_parameters(robot)
        data = []
        for log in logs:
            processed = bp.preprocess(log)
            normal, effective, factors = accumulate(base, [processed], 1, folds=5)
            data.append((factors, least_squares(normal, "wls", effective)))
        for label, options in (("no prior", dict(prior="none")),
                               ("CAD prior, weight 0.1", dict(prior="cad", prior_weight=0.1)),
                               ("CAD prior, weight chosen", dict(prior="cad"))):
            kept = dataclasses.replace(base, robot=dataclasses.replace(robot))      # its own, empty cache
            cpu = {"new": [], "kept": []}
            worst = 0.0
            for _ in range(2):
                for factors, fit in data:
                    results = {}
                    for way in ("new", "kept"):
                        one = kept if way == "kept" else dataclasses.replace(base, robot=dataclasses.replace(robot))
                        with single_threaded():
                            start = time.process_time()
                            results[way] = consistent_fit(one, factors, fit.weights, std=fit.std, **options)
                            cpu[way].append(time.process_time() - start)
                    a, b = results["new"].x, results["kept"].x
                    worst = max(worst, float(np.max(np.abs(a - b)) / np.max(np.abs(a))))
            own, kept_s = np.mean(cpu["new"]), np.mean(cpu["kept"][1:])
            print(f"{name:<11} {label:<25} {len(cpu['new'])} fits: new program {own:.3f} s, kept program "
                  f"{kept_s:.3f} s after a first of {cpu['kept'][0]:.3f} s: ratio {kept_s / own:.2f}; "
                  f"largest difference {worst:.1e} of max|x|")


def main():
    print(scope_line(SCOPE))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true")
    parser.add_argument("--friction", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()
    everything = not (args.real or args.friction or args.speed or args.reuse)
    warnings.simplefilter("ignore")
    if not DATA.is_dir() and (args.real or args.friction or args.reuse or everything):
        print("../shared/data is absent: only --speed can run")
        return
    if args.real or everything:
        real()
    if args.friction or everything:
        friction()
    if args.speed or everything:
        speed()
    if args.reuse or everything:
        reuse()


if __name__ == "__main__":
    main()
