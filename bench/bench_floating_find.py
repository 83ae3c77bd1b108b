"""Base parameters of floating-base robots against pinocchio's free-flyer regressor (issue 27).

``python bench/bench_floating_find.py [--runs N]`` reads public legged robots and humanoids of the
``example-robot-data`` package with a free-flying root (``load_robot(path, floating=True)``, pinocchio's
``JointModelFreeFlyer``; a root that floats in the file as it is) and ``robots/space_robot.yaml``, and prints
for each: our number of base parameters and the median time of ``find_base_parameters`` in both
parameterizations (pseudo-inertia, Khalil; target ≤ 2 s up to 50 joints), and the same for public robots with
``<mimic>`` joints read with ``mimic='independent'`` (pinocchio's default reading: talos full, romeo, pr2, the
panda with its fingers, alex with its hands), against the numeric rank of
pinocchio's ``computeJointTorqueRegressor`` stacked over random states (pinocchio's own model of the URDF)
and the time that takes (stacking and SVD), measured in the same run, with the ratio of our slower time to
pinocchio's. Timings on a shared machine wander by ±30 %.

A run (2026-11-27, ``--runs 3``) while other jobs loaded the 2 cores (load average 6–10, pinocchio's times
the most erratic); on the quiet machine the times are about a third — synthetic tree 0.50 s (pseudo) and
0.51 s (Khalil), g1 with hands 0.35 s and 0.35 s, talos_reduced 0.27 s and 0.28 s, where they were 0.75 s and
1.29 s, 0.54 s and 0.95 s, 0.41 s and 0.65 s before the Khalil map as blocks, the leaner modular
eliminations and the exact path's cheaper conversions:

    robot                      joints  rank   pseudo   khalil  pin rank  pin time  ratio  exact
    space robot                     6    52    0.06s    0.07s        52     0.61s   0.11  True
    solo12                         12    94    0.14s    0.14s        94     2.10s   0.06  True
    anymal                         12    94    0.18s    0.15s        94     2.03s   0.09  False
    a1                             12    94    0.11s    0.12s        94     0.04s   3.17  True
    go1                            12    94    0.09s    0.08s        94     0.01s   7.58  True
    hyq_no_sensors                 12    94    0.11s    0.08s        94     0.01s  21.92  True
    b1-z1                          19   143    0.16s    0.16s       143     0.08s   2.06  True
    g1_29dof_rev_1_0               29   213    0.29s    0.30s       213     0.24s   1.24  False
    talos_reduced                  32   234    0.38s    0.42s       234     1.52s   0.27  True
    icub                           32   234    0.48s    0.63s       234     5.82s   0.11  False
    human                          36   262    0.57s    0.59s       262     3.57s   0.17  True
    centauro                       39   283    0.82s    0.74s       283     0.45s   1.83  False
    g1_29dof_with_hand_rev_1_0     43   311    0.88s    1.01s       311     5.53s   0.18  False
    synthetic 5x10 tree            50   360    1.44s    1.43s       360    16.15s   0.09  False

With the robots whose <mimic> joints are read with mimic='independent' (2026-11-27, ``--runs 3``, load average
10–11 on the 2 cores: every time about 2–3× a quiet machine's, talos_reduced 0.94 s where it takes 0.27 s
quiet; talos full measured alone in the same load 1.6 s in both parameterizations):

    robot                              joints  rank   pseudo   khalil  pin rank  pin time  ratio  exact
    panda (mimic indep.)                    9    67    0.15s    0.14s        67     0.24s   0.63  False
    pr2 (mimic indep.)                     30   217    0.71s    0.74s       217     0.25s   2.93  True
    alex_psyonic_hands (mimic indep.)      39   283    0.86s    1.70s       283     3.63s   0.47  False
    talos_full_v2 (mimic indep.)           44   318    3.69s    4.09s       318     6.25s   0.65  True
    romeo (mimic indep.)                   55   395    2.14s    2.02s       395    13.01s   0.16  False
"""
from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

import numpy as np

import baseparam as bp

ROOT = Path(__file__).resolve().parents[1]
URDFS = ["solo12.urdf", "anymal.urdf", "a1.urdf", "go1.urdf", "hyq_no_sensors.urdf", "b1-z1.urdf",
         "g1_29dof_rev_1_0.urdf", "talos_reduced.urdf", "icub.urdf", "human.urdf", "centauro.urdf",
         "g1_29dof_with_hand_rev_1_0.urdf"]
# URDFs with <mimic> joints, read with mimic='independent' (every mimic joint a joint of its own): the model
# pinocchio's buildModelFromUrdf builds by default, so its numeric rank is the oracle as for the others
MIMIC_URDFS = ["panda.urdf", "pr2.urdf", "alex_psyonic_hands.urdf", "talos_full_v2.urdf", "romeo.urdf"]

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)
from bench_urdf import example_urdfs  # noqa: E402

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["space_robot.yaml"], "the only floating-base description there; the others are fixed-base arms "
         "(public legged robots and humanoids come from example-robot-data)")


def pinocchio_rank(model, seed=0):
    """Numeric rank of pinocchio's stacked free-flyer regressor (unit columns, zero columns out)."""
    import pinocchio as pin

    data, rng = model.createData(), np.random.default_rng(seed)
    lo, hi = -np.pi * np.ones(model.nq), np.pi * np.ones(model.nq)
    rows = [pin.computeJointTorqueRegressor(model, data, pin.randomConfiguration(model, lo, hi),
                                            rng.normal(size=model.nv), rng.normal(size=model.nv)).copy()
            for _ in range(30 * (model.njoints - 1) // model.nv + 5)]
    return numeric_rank(np.vstack(rows))[0]


def numeric_rank(W):
    """Numeric rank of a stacked regressor (unit columns, zero columns out) and the gap at it."""
    norms = np.linalg.norm(W, axis=0)
    W = W[:, norms > 1e-12 * norms.max()]
    s = np.linalg.svd(W / np.linalg.norm(W, axis=0), compute_uv=False)
    rank = int((s > s[0] * 1e-9).sum())
    return rank, (s[rank - 1] / s[rank] if rank < s.size else np.inf)


def pin_model(robot, path):
    import sys

    import pinocchio as pin

    if path is not None:
        return pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    sys.path.insert(0, str(ROOT / "tests"))
    from pin_model import build_model   # a description without a URDF: pinocchio built from it

    return build_model(robot)[0]        # the regressor's columns do not depend on the inertias


def synthetic_tree(limbs=5, length=10, seed=0):
    """A 50-joint floating tree (five 10-joint limbs on the base) with generic twists: the float path at the
    size the target names, where the public URDFs stop at 43 joints."""
    rng = np.random.default_rng(seed)
    joints = []
    for _ in range(limbs):
        for k in range(length):
            joints.append(bp.Joint(type="revolute", alpha=float(rng.uniform(-1.5, 1.5)),
                                   a=float(np.round(rng.uniform(0, 0.3), 3)), d=float(np.round(rng.uniform(0, 0.2), 3)),
                                   parent=0 if k == 0 else len(joints)))
    return bp.Robot(tuple(joints), name=f"synthetic {limbs}x{length} tree", base="floating", gravity=(0, 0, -9.81),
                    angle_unit="rad")


def median_time(fn, runs):
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main():
    print(scope_line(SCOPE))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cases = [("space robot", ROOT / "robots" / "space_robot.yaml", None)]
    found = example_urdfs()
    cases += [(name[:-5], found[name], found[name]) for name in URDFS if name in found]
    cases += [(f"{name[:-5]} (mimic indep.)", found[name], found[name]) for name in MIMIC_URDFS if name in found]
    if len(cases) == 1:
        print("example-robot-data is not installed: the space robot only")
    print(f"{'robot':34s} {'joints':>6s} {'rank':>5s} {'pseudo':>8s} {'khalil':>8s} {'pin rank':>9s} "
          f"{'pin time':>9s} {'ratio':>6s}  exact")
    cases.append(("synthetic 5x10 tree", None, None))
    for label, path, urdf in cases:
        with warnings.catch_warnings():     # (the synthetic tree's Khalil regroupings warn of their accuracy)
            warnings.simplefilter("ignore")
            if path is None:
                robot = synthetic_tree()
            else:
                mimic = "independent" if label.endswith("(mimic indep.)") else "refuse"
                try:
                    robot = bp.load_robot(path, floating=urdf is not None, mimic=mimic)
                except bp.BaseParamError:          # a URDF whose root joint floats already
                    robot = bp.load_robot(path)
            ours, base = median_time(lambda: bp.find_base_parameters(robot), args.runs)
            khalil, other = median_time(lambda: bp.find_base_parameters(robot, "khalil"), args.runs)
        model = pin_model(robot, urdf)
        theirs, rank = median_time(lambda: pinocchio_rank(model), 1)
        flag = "" if rank == base.rank == other.rank else "  RANKS DIFFER"
        print(f"{label:34s} {robot.n_dof:6d} {base.rank:5d} {ours:7.2f}s {khalil:7.2f}s {rank:9d} {theirs:8.2f}s "
              f"{max(ours, khalil) / theirs:6.2f}  {base.exact}{flag}")


if __name__ == "__main__":
    main()
