"""Excitation design: cond(W_b) reached within a time budget, beside the field's anchors.

``python bench/bench_excite.py``                 KUKA LWR4+ (60 s) and UR10e (30 s), both descriptions each
``python bench/bench_excite.py --robot kuka``    one robot
``python bench/bench_excite.py --budget 120``    another budget (seconds, every case)
``python bench/bench_excite.py --proof``         also the proof in simulation (below)
``python bench/bench_excite.py --target``        only the issue-25 line (below)

Issue 25's target line (printed first for the KUKA): ``baseparam excite robots/kuka_lwr4.yaml
--time-budget 60`` as the CLI runs it (pseudo columns, one worker, seed 0) with the limits |q| ≤ 2.9 / 2.0
rad (odd / even joints), |q̇| ≤ 1.9 rad/s, |q̈| ≤ 5 rad/s² and the defaults (7 harmonics of 14 s since
issue 25; bench_excite_lwr4.py compares 5 of 10 s): cond reached (target ≤ 30; 32.5 before
issue 25, an SLSQP anchor 39 in 300 s), starts finished and criterion evaluations, so that runs on a
loaded machine can be compared per evaluation; then the payload design (``--payload``, the last three
joints, 20 s budget, 5 harmonics of 10 s as when measured): its cond over the payload's columns and their rank.

Settings of the issue: 5 harmonics, period 10 s, the URDF's joint limits (position, velocity; the
URDFs give no acceleration limit), cond(W_b) over the 1001 samples of the trajectory file at 100 Hz
(2-norm, unscaled), as ``baseparam excite`` reports it. Each robot is run with two descriptions:

* the one identification uses (robots/*.yaml, DH frames): friction columns FV, FC, FO on every
  joint (and rotor inertias IA on the UR10e), limits taken from the URDF (``--limits X.urdf``);
* the URDF itself: rigid-body columns only, which is what pinocchio's joint-torque regressor spans.

Beside them: cond of the robot's own training trajectory over the same base columns, and a Monte
Carlo identification (inverse-dynamics torques with the URDF's CAD inertias, friction values from its
``<dynamics>``, 1 % torque noise per joint's RMS torque, OLS, 20 draws): parameter error and held-out
torque error for the designed trajectory and the training one — what the design buys.

With ``--proof``, the proof in simulation (``bp.compare_motions``): the robot with true values
(robots/kuka_lwr4_cad.yaml: CAD inertias, the URDF's friction, zero offsets; robots/ur10e_cad.yaml:
CAD inertias, the dataset authors' rotor inertias and friction) follows the design (played for as
long as the training log lasts) and the real training motion (its logged positions low-passed at
5 Hz and splined) under feedforward + PD at the controller rate (KUKA 1 kHz, UR10e 500 Hz); both are
logged through the same sensors (KUKA: τ noise 0.2 N·m, our assumption; UR10e: motor-current noise
per joint as measured above 10 Hz on the real training log, through the drive gains; both q 1e-5
rad, q̇ 2e-3 rad/s), identified with ``bp.identify``'s defaults (OLS, and the consistent fit without
the CAD prior, which is the truth here), and scored against the true base parameters and, on the
real validation motion simulated the same way, the true torques. Medians over 5 noise draws.

Anchors (issue 15): KUKA LWR4+ 5 harmonics, T = 10 s — SLSQP with 29 restarts reached cond 39
(column-normalised 14) in 300 s; robot_payload_id reports 117 with 32 workers; the authors'
training file has cond ≈ 2 458. Timings depend on the machine's load: the script prints it.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import time
import warnings

import numpy as np

import baseparam as bp

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = (ROOT / ".." / "shared" / "data").resolve()
UR_COLUMNS = dict(columns="t=0,q=1:7,qd=7:13,current=13:19",
                  gains=[10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232])
ROBOTS = {
    "kuka": ("KUKA LWR4+", "kuka_lwr4.yaml", "kuka_lwr4/kuka_lwr4.urdf", "kuka_lwr4/measurements_3.npz", {}, 60.0),
    "ur10e": ("UR10e", "ur10e.yaml", "ur10e/ur10e.urdf", "ur10e/identification_data/ur-20_02_12-50sec_12harm.csv",
              UR_COLUMNS, 30.0),
}
TARGET = 30.0
# issue 25: |q| ≤ 2.9 / 2.0 rad (odd / even joints), |q̇| ≤ 1.9 rad/s, |q̈| ≤ 5 rad/s²
ISSUE25_LIMITS = {"joints": [{"q": [-2.9, 2.9] if k % 2 == 0 else [-2.0, 2.0], "qd": 1.9, "qdd": 5.0}
                             for k in range(7)]}
# the proof in simulation: true robot, held-out log, controller rate (Hz), sensors, drive gains
PROOF = {
    "kuka": ("kuka_lwr4_cad.yaml", "kuka_lwr4/measurements_1.npz", 1000.0,
             bp.SensorNoise(q=1e-5, qd=2e-3, tau=0.2, seed=1), None),
    "ur10e": ("ur10e_cad.yaml", "ur10e/validation_data/ur-20_01_17-ptp_10_points.csv", 500.0,
              bp.SensorNoise(q=1e-5, qd=2e-3, current=[0.13, 0.12, 0.07, 0.02, 0.03, 0.02],
                             resolution=2 * np.pi / 2 ** 20, seed=1), UR_COLUMNS["gains"]),
}


from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["kuka_lwr4.yaml", "ur10e.yaml", "kuka_lwr4_cad.yaml", "ur10e_cad.yaml"],
         "designs are compared with the robots' own training logs and URDF limits, which exist for these "
         "two arms only")


def load():
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def design(robot, limits, budget, seed=0):
    begin = time.perf_counter()
    d = bp.design_excitation(robot, period=10.0, harmonics=5, rate=100.0, limits=limits, starts=1000,
                             time_budget=budget, seed=seed, workers=-1,   # one per core
                             parameters="khalil")      # pinocchio's columns: the README's figures
    return d, time.perf_counter() - begin


def issue25(budget=60.0):
    """The target line of issue 25 (module docstring), and the payload design."""
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    print(f"\nKUKA LWR4+, issue 25 limits (|q| ≤ 2.9/2.0, |q̇| ≤ 1.9, |q̈| ≤ 5), robots/kuka_lwr4.yaml, pseudo, "
          f"1 worker, budget {budget:g} s; load {load():.2f}")
    begin = time.perf_counter()
    d = bp.design_excitation(robot, limits=ISSUE25_LIMITS, time_budget=budget, seed=0)
    s = d.search
    verdict = "≤" if d.condition_number <= TARGET else ">"
    print(f"  cond(W_b) = {d.condition_number:.2f} {verdict} {TARGET:g} ({d.base.rank} columns); {s.counted} starts "
          f"finished (best {s.best_start}), {s.evaluations} criterion evaluations, {s.gradients} gradients, "
          f"{time.perf_counter() - begin:.1f} s wall; load now {load():.2f}")
    begin = time.perf_counter()
    p = bp.design_excitation(robot, limits=ISSUE25_LIMITS, time_budget=20.0, seed=0, payload=True, period=10.0,
                             harmonics=5)              # as measured (the defaults before issue 25)
    print(f"  payload (joints {p.payload.moving} moving, held at {p.payload.pose.round(3).tolist()}): cond "
          f"{p.condition_number:.3g} over {p.payload.rank} identifiable of 10 columns; {p.search.counted} starts, "
          f"{p.search.evaluations} evaluations, {time.perf_counter() - begin:.1f} s")


def training_states(path, extra):
    traj = bp.read_trajectory(path, **extra)
    if traj.qd is not None and traj.qdd is not None:
        return traj.q, traj.qd, traj.qdd
    pre = bp.preprocess(traj, bp.Preprocessing())
    return pre.q[pre.kept], pre.qd[pre.kept], pre.qdd[pre.kept]


def with_offsets(robot):
    """The URDF's friction priors as true values, with a zero offset FO (a URDF gives none)."""
    joints = tuple(dataclasses.replace(j, friction=tuple(0.0 if v is True else v for v in j.friction))
                   for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


def quality(urdf_robot, samples, training, rng_seed=0):
    """Monte Carlo OLS errors for the design and the training trajectory (same noise, CAD truth)."""
    base = bp.find_base_parameters(urdf_robot, "khalil")
    truth = base.from_standard(bp.standard_parameters(urdf_robot, "khalil"))
    tau = bp.inverse_dynamics(base.model(truth), samples.q, samples.qd, samples.qdd)
    noise = 0.01 * np.sqrt((tau ** 2).mean(axis=0))
    held_out = tuple(x[::7] for x in training)
    out = {}
    for name, (q, qd, qdd), val in (("design", (samples.q, samples.qd, samples.qdd), held_out),
                                    ("training log", training, (samples.q, samples.qd, samples.qdd))):
        out[name] = bp.identification_errors(base, truth, q, qd, qdd, noise, validation=val, seed=rng_seed)
    return out


def proof(key, design, draws=5):
    """The design and the real training motion, simulated with the same sensors, identified, scored."""
    truth_file, held_out_file, rate, noise, gains = PROOF[key]
    name, _, _, log_name, extra, _ = ROBOTS[key]
    robot = bp.load_robot(ROOT / "robots" / truth_file)
    p = bp.standard_parameters(robot)
    training = bp.Reference.from_log(bp.read_trajectory(DATA / log_name, **extra), rate)
    references = {"design": bp.Reference.periodic(design, rate, training.duration), "training log": training}
    held_out = bp.Reference.from_log(bp.read_trajectory(DATA / held_out_file, **extra), rate)
    begin = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = bp.compare_motions(bp.Model(robot, p), references, held_out, noise=noise, gains=gains,
                                        draws=draws)
    print(f"  proof in simulation: robots/{truth_file}, {training.duration:.1f} s of each motion at {rate:g} Hz, "
          f"held out: {held_out_file} simulated ({comparison.held_out.reference.duration:.1f} s); "
          f"{time.perf_counter() - begin:.0f} s; load {load():.2f}")
    tracking = ", ".join(f"{m} {1e3 * r.tracking_error.max():.2f}" for m, r in comparison.runs.items())
    print(f"      tracking error max (mrad): {tracking}")
    for line in comparison.summary().splitlines():
        print("      " + line)
    return comparison


def run(key, budget=None, with_proof=False):
    name, yaml_name, urdf_name, log_name, extra, default_budget = ROBOTS[key]
    budget = budget or default_budget
    urdf = DATA / urdf_name
    cases = [(f"robots/{yaml_name} (friction{' + rotor' if key == 'ur10e' else ''}), URDF limits",
              bp.load_robot(ROOT / "robots" / yaml_name), urdf),
             (f"{urdf_name} (rigid body)", bp.load_robot(urdf), None)]
    print(f"\n{name}: 5 harmonics, T = 10 s, budget {budget:g} s, cond over 1001 samples at 100 Hz "
          f"(target ≤ {TARGET:g}); load {load():.2f}")
    training = training_states(DATA / log_name, extra)
    designs = []
    for label, robot, limits in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bp.DescriptionWarning)
            d, seconds = design(robot, limits, budget)
        designs.append(d)
        numbers = d.condition_numbers
        W = d.base.regressor(*training)
        train_cond = np.linalg.cond(W.reshape(-1, d.base.rank))
        verdict = "≤" if d.condition_number <= TARGET else ">"
        print(f"  {label}: cond(W_b) = {d.condition_number:.2f} ({d.base.rank} columns, khalil) "
              f"{verdict} {TARGET:g}; pseudo {numbers['pseudo']['with_drives']:.2f}; "
              f"rigid body {numbers['khalil']['rigid_body']:.2f} (pseudo {numbers['pseudo']['rigid_body']:.2f}); "
              f"column-normalised {numbers['khalil']['column_normalised']:.2f}")
        print(f"      {seconds:.1f} s wall, {d.search.counted} starts finished on {d.search.workers} workers "
              f"(best: start {d.search.best_start}); training log over the same columns: cond {train_cond:.0f}; "
              f"load now {load():.2f}")
    urdf_robot = with_offsets(bp.load_robot(urdf, friction=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d, _ = design(urdf_robot, None, budget)
        errors = quality(urdf_robot, d.samples, training)
    print(f"  identification, {urdf_name} with friction (CAD inertias, URDF friction as truth; 1 % noise, 20 draws):")
    for label, e in errors.items():
        print(f"      {label}: cond {e.condition_number:.0f}, parameter error {100 * e.parameter_error:.2f} %, "
              f"held-out torque error {100 * e.torque_error:.3f} %")
    if with_proof:
        proof(key, designs[0])


def main(argv=None):
    print(scope_line(SCOPE))
    warnings.simplefilter("ignore", bp.RoundOffWarning)       # the URDFs' 1.57079632679 read as 90°
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", choices=sorted(ROBOTS), action="append")
    parser.add_argument("--budget", type=float, help="seconds per design (default: 60 KUKA, 30 UR10e)")
    parser.add_argument("--proof", action="store_true", help="also the proof in simulation")
    parser.add_argument("--target", action="store_true", help="only the issue-25 target line (and the payload)")
    args = parser.parse_args(argv)
    if args.target or "kuka" in (args.robot or ["kuka"]):
        issue25(60.0 if args.target or args.budget is None else args.budget)
        if args.target:
            return 0
    if not DATA.is_dir():                   # the URDF limits and the training logs live there
        print(f"no measured data at {DATA}: the designs are compared with the robots' logs; nothing to do")
        return 0
    print(f"{os.cpu_count()} cores; load average {load():.2f}")
    for key in args.robot or sorted(ROBOTS):
        run(key, args.budget, args.proof)


if __name__ == "__main__":
    main()
