"""The projection engine at scale (issue 16): long generic chains, snakes, humanoid-like and legged
trees, and humanoid URDFs, each in a fresh process — time of `find_base_parameters` (the first call,
and the best of the repeats), the process's peak RSS, and beside it, in the same process, the field's
usual numeric way with pinocchio (its joint-torque regressor at random states, stacked, pivoted QR
with a tolerance: the rank), whose rank must agree.

    python bench/bench_scale.py              # the targets (and the humanoid URDFs when example-robot-data is installed)
    python bench/bench_scale.py --full-z     # why the spans: the whole Z (the paper's and the previous engine's
                                             # way) against the spans, generic chains of 5 … 9 joints

Targets (issue 16, this 2-core machine, ≤ 4 GB peak each): generic 10-joint chain ≤ 30 s, generic
12-joint ≤ 120 s, planar 20-joint snake ≤ 10 s, 15-joint spatial snake (90° twists) ≤ 60 s,
humanoid upper body (2 + 2×7 + 2 joints) ≤ 2 s.
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = ([],
         "generated chains and trees, and example-robot-data URDFs, larger than any robot here")
PEAK_LIMIT_MB = 4096

CHILD = r"""
import json, math, resource, sys, time, warnings
import numpy as np
import baseparam as bp

spec = json.loads(sys.argv[1])
HALF = math.pi / 2
GENERIC_TWISTS = [30, -60, 45, 75, -20, 50, 110, -35, 65, 25, -80, 40]
GENERIC_A = [0.1, 0.4, 0.05, 0.3, 0.12, 0.08, 0.02, 0.11, 0.2, 0.07, 0.15, 0.09]
GENERIC_D = [0.3, 0.1, 0.07, 0.25, 0.05, 0.13, 0.1, 0.07, 0.04, 0.21, 0.06, 0.17]


def chain(n, twists, a, d, name):
    joints = tuple(bp.Joint(type="revolute", alpha=twists[k % len(twists)], a=a[k % len(a)], d=d[k % len(d)],
                            parent=k) for k in range(n))
    return bp.Robot(joints, name=name, length_unit="m", angle_unit="deg")


def tree(branches, name):
    joints = []
    for parent, twists in branches:
        for k, alpha in enumerate(twists):
            n = len(joints)
            joints.append(bp.Joint(type="revolute", alpha=alpha, a=0.05 + 0.01 * n, d=0.12 - 0.004 * n,
                                   parent=parent if k == 0 else n))
    return bp.Robot(tuple(joints), name=name, length_unit="m", angle_unit="deg")


kind = spec["kind"]
if kind == "generic":
    robot = chain(spec["n"], GENERIC_TWISTS, GENERIC_A, GENERIC_D, f"generic {spec['n']}R")
elif kind == "planar":
    robot = chain(spec["n"], [0], [0.1, 0.12, 0.09], [0], f"planar snake {spec['n']}")
elif kind == "snake":
    robot = chain(spec["n"], [90, -90], [0.1], [0], f"spatial snake {spec['n']}")
elif kind == "upper body":       # torso 2, two 7-DOF arms and a head of 2 on the torso
    arm = [90, -90, 90, -90, 90, -90, 0]
    robot = tree([(0, [90, -90]), (2, arm), (2, arm), (2, [90, 0])], "humanoid upper body")
elif kind == "quadruped":        # four 3-DOF legs on a fixed base
    robot = tree([(0, [90, 0, 0])] * 4, "quadruped")
else:
    warnings.simplefilter("ignore")
    robot = bp.load_robot(spec["file"])
warnings.simplefilter("ignore")

t = time.perf_counter()
base = bp.find_base_parameters(robot)
first = time.perf_counter() - t
times = [first]
for _ in range(spec.get("repeat", 2)):
    t = time.perf_counter()
    bp.find_base_parameters(robot)
    times.append(time.perf_counter() - t)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

# the field's usual way: pinocchio's regressor at random states, stacked; pivoted QR with a tolerance
import pinocchio as pin
import scipy.linalg
from baseparam.model.urdf_writer import robot_to_urdf

rng = np.random.default_rng(0)
bodies = [(1.0 + rng.uniform(), rng.uniform(-0.1, 0.1, 3), np.diag(rng.uniform(0.01, 0.1, 3))) for _ in robot.joints]
t = time.perf_counter()
model = pin.buildModelFromXML(robot_to_urdf(robot, bodies))
model.gravity.linear = np.asarray(robot.gravity_si, dtype=float)
data = model.createData()
n_samples = 10 * 10 + 20       # n rows each: ≥ 10 rows per column of the 10·n
rows = []
for _ in range(n_samples):
    q = rng.uniform(-math.pi, math.pi, model.nq)      # revolute and prismatic joints only: nq = nv
    rows.append(np.array(pin.computeJointTorqueRegressor(model, data, q, rng.uniform(-2, 2, model.nv),
                                                         rng.uniform(-2, 2, model.nv))))
W = np.vstack(rows)
R = scipy.linalg.qr(W, mode="r", pivoting=True)[0]
diag = np.abs(np.diag(R))
pin_rank = int(np.sum(diag > 1e-8 * diag[0]))
pin_time = time.perf_counter() - t
print(json.dumps({"name": robot.name, "n": robot.n_dof, "rank": base.rank, "exact": base.exact, "first_s": first,
                  "best_s": min(times), "peak_mb": peak, "pin_rank": pin_rank, "pin_s": pin_time}))
"""

FULL_Z = r"""
import json, sys, time, resource, warnings
import numpy as np
import baseparam as bp
from baseparam.model.parameters import ColumnLayout
from baseparam.projection._coordinates import MagnitudeStats, z_blocks
from baseparam.projection._modular import ModularEchelon
from baseparam.projection._reduction import StreamedR
from baseparam.projection._working_units import Arithmetic
from baseparam._blas import single_threaded
warnings.simplefilter("ignore")
n, how = int(sys.argv[1]), sys.argv[2]
twists = [30, -60, 45, 75, -20, 50, 110, -35, 65, 25, -80, 40]
a = [0.1, 0.4, 0.05, 0.3, 0.12, 0.08, 0.02, 0.11, 0.2, 0.07, 0.15, 0.09]
d = [0.3, 0.1, 0.07, 0.25, 0.05, 0.13, 0.1, 0.07, 0.04, 0.21, 0.06, 0.17]
robot = bp.Robot(tuple(bp.Joint(type="revolute", alpha=twists[k], a=a[k], d=d[k], parent=k) for k in range(n)),
                 name=f"generic {n}R", length_unit="m", angle_unit="deg")
t = time.perf_counter()
rank = rows = generated = None
if how == "spans":
    rank = bp.find_base_parameters(robot).rank
elif how == "generate":   # only the terms of Z: what any method that visits them all pays at least
    layout = ColumnLayout(robot)
    units = next(iter(Arithmetic.decide(robot).float_units()))
    rows = sum(block.matrix.shape[0] for block in z_blocks(units, layout, n, MagnitudeStats(), robot.parents))
else:       # the whole Z, streamed block by block into the same reductions (the previous engine)
    layout = ColumnLayout(robot)
    units = next(iter(Arithmetic.decide(robot).float_units()))
    acc, echelon = StreamedR(layout.n_standard), ModularEchelon(layout.n_standard, units.modulus)
    rows = 0
    with single_threaded():
        for block in z_blocks(units, layout, n, MagnitudeStats(), robot.parents):
            rows += block.matrix.shape[0]
            acc.add(block.matrix)
            echelon.add(block.modular.with_data(np.fmod(block.modular.data, units.modulus)).eliminate_zeros())
        rank = acc.reduce_with_pivots(echelon).rank
print(json.dumps({"rank": rank, "rows": rows, "s": time.perf_counter() - t,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

CASES = [
    ("generic 10-joint chain (odd twists, a, d ≠ 0)", {"kind": "generic", "n": 10}, 30.0),
    ("generic 12-joint chain", {"kind": "generic", "n": 12}, 120.0),
    ("planar 20-joint snake", {"kind": "planar", "n": 20}, 10.0),
    ("spatial 15-joint snake (±90° twists)", {"kind": "snake", "n": 15}, 60.0),
    ("humanoid upper body (2 + 2×7 + 2)", {"kind": "upper body"}, 2.0),
    ("quadruped (4 × 3 on a fixed base)", {"kind": "quadruped"}, None),
    ("generic 20-joint chain", {"kind": "generic", "n": 20}, None),
    ("generic 40-joint chain", {"kind": "generic", "n": 40, "repeat": 0}, None),
]
URDFS = [("talos_reduced.urdf", "TALOS (URDF, 32)"), ("g1_29dof_rev_1_0.urdf", "Unitree G1 (URDF, 29)"),
         ("icub.urdf", "iCub (URDF, 32)"), ("tiago.urdf", "TIAGo (URDF, 48)")]


def run_child(code, *args):
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if out.returncode:
        return None, out.stderr.strip().splitlines()[-1]
    return json.loads(out.stdout), None


def targets():
    from bench_urdf import example_urdfs     # the sibling script's lookup of example-robot-data

    found = example_urdfs()
    cases = CASES + [(label, {"kind": "file", "file": str(found[name])}, None) for name, label in URDFS
                     if name in found]
    print(f"{'case':<46} {'N':>3} {'rank':>5} {'exact':>6} {'first':>9} {'best':>9} {'target':>7} {'peak RSS':>9}"
          f" {'pinocchio (numeric)':>21}")
    ok = True
    for label, spec, target in cases:
        r, error = run_child(CHILD, json.dumps(spec))
        if error:
            print(f"{label:<46} FAILED: {error}")
            ok = False
            continue
        verdict = "" if target is None else ("ok" if r["first_s"] <= target else "SLOW")
        agree = "" if r["pin_rank"] == r["rank"] else f" RANK {r['pin_rank']}!"
        ok &= verdict != "SLOW" and r["peak_mb"] <= PEAK_LIMIT_MB and not agree
        tgt = "-" if target is None else f"{target:g} s"
        print(f"{label:<46} {r['n']:>3} {r['rank']:>5} {str(r['exact']):>6} {r['first_s']:>8.3f}s {r['best_s']:>8.3f}s"
              f" {tgt:>7} {r['peak_mb']:>6.0f} MB {r['pin_s']:>8.2f} s, rank {r['pin_rank']}{agree} {verdict}")
    print("all targets met" if ok else "SOME TARGETS MISSED")


def full_z():
    print(f"{'generic chain':<14} {'rows of Z':>10} {'terms only':>11} {'whole Z: time':>14} {'peak RSS':>9} "
          f"{'spans: time':>12} {'peak RSS':>9} {'rank':>5}")
    for n in range(5, 10):
        whole, error = run_child(FULL_Z, str(n), "whole")
        generated, _ = run_child(FULL_Z, str(n), "generate")
        spans, _ = run_child(FULL_Z, str(n), "spans")
        if error:
            print(f"{n:>2} joints       whole Z FAILED: {error}")
            continue
        assert whole["rank"] == spans["rank"]
        print(f"{n:>2} joints      {whole['rows']:>10,} {generated['s']:>9.2f} s {whole['s']:>12.2f} s "
              f"{whole['peak_mb']:>6.0f} MB {spans['s']:>10.3f} s {spans['peak_mb']:>6.0f} MB {spans['rank']:>5}")


def main():
    print(scope_line(SCOPE))
    if "--full-z" in sys.argv:
        full_z()
    else:
        targets()


if __name__ == "__main__":
    main()
