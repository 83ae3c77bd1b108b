"""What each remaining second implementation of a rigid-body algorithm buys, in one run (issue 22).

Each algorithm of the dynamics is written once, except these pairs; for each the script times both
on the same inputs (interleaved, best of several runs), checks that they agree, and prints what the
second one does that the first does not:

* the mass matrix: the compiled graph (:func:`~baseparam.dynamics.regressor_graph.build_mass`)
  beside Newton–Euler column by column (M e_i = τ(q, 0, e_i) without gravity: what a floating base uses);
* Ivanov's q̇ = M⁻¹p: the block LTDL solver beside his sweep (:mod:`baseparam.dynamics.momenta`),
  both public (``solver=``).

Newton–Euler is written once (the regressor graph's customized Newton–Euler, compiled with every
parameter an input: :mod:`baseparam.dynamics.newton_euler`).

    python bench/bench_second_implementations.py            # 20 000 samples
    python bench/bench_second_implementations.py --quick    # 2 000 samples
"""
import pathlib
import sys
import time

import numpy as np

import baseparam as bp
from baseparam.dynamics import momenta, newton_euler
from baseparam.dynamics.regressors import by_unit_rates
from baseparam.dynamics.samples import LinkParameters
from baseparam.dynamics.tree import Tree

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

ROOT = pathlib.Path(__file__).resolve().parent.parent
# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["kuka_iiwa14.yaml"], "the ratio of two implementations of one algorithm does not depend on the arm; "
         "the sweep/LTDL part builds chains of 5, 20 and 50 bodies")


def interleaved(fns, repeat):
    """Best time of each function after a warm-up call, the calls interleaved so that the machine's drifts
    hit all."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for t, fn in zip(times, fns):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return [min(t) for t in times]


def relative(a, b):
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def mass_pair(robot, model, q, repeat):
    zero = np.zeros_like(q)

    def by_columns():
        return by_unit_rates(q, lambda unit: newton_euler.blocked(model, q, zero, unit, gravity=False,
                                                                  friction=False), robot.n_dof)
    a, b = interleaved([lambda: bp.mass_matrix(model, q), by_columns], repeat)
    print(f"  graph M(q) {a * 1e6 / len(q):6.2f} µs/sample; Newton–Euler by columns {b * 1e6 / len(q):6.2f} "
          f"µs/sample; columns/graph {b / a:.2f}; agree to {relative(by_columns(), bp.mass_matrix(model, q)):.1e}")
    print("  the columns buy: a floating base (the graph's joints are a fixed base's)")


def chain(n):
    joints = tuple(bp.Joint(type="revolute", alpha=(90 if k % 2 else -90), a=0.1, d=0.05) for k in range(n))
    robot = bp.Robot(joints, name=f"{n}-body chain", convention="standard", length_unit="m", angle_unit="deg")
    return robot, np.tile([0.004, 0.004, 0.004, 0, 0, 0, 0.05, 0, 0, 1.0], n)


def ivanov_pair(sizes, repeat, S=1000):
    rng = np.random.default_rng(3)
    for n in sizes:
        robot, p = chain(n)
        q, pm = rng.uniform(-1, 1, (S, n)), rng.uniform(-1, 1, (S, n))
        tree = Tree(robot, LinkParameters(robot, p), q)
        a, b = interleaved([lambda: momenta.sweep(tree, pm), lambda: momenta.ltdl(tree, pm)], repeat)
        agree = relative(momenta.sweep(tree, pm)[0], momenta.ltdl(tree, pm)[0])
        print(f"  N = {n:>2}: sweep {a * 1e6 / S:6.2f} µs/sample, LTDL {b * 1e6 / S:6.2f}; sweep/LTDL {a / b:.2f}; "
              f"agree to {agree:.1e}")
    print("  the sweep buys: Vereshchagin's form, the articulated-body pattern (no Cholesky factor); both are "
          "Ivanov's O(N) solvers and public (solver='sweep' | 'ltdl'), checked against each other")


def main():
    print(scope_line(SCOPE))
    quick = "--quick" in sys.argv
    S, repeat = (2_000, 3) if quick else (20_000, 5)
    rng = np.random.default_rng(0)
    robot = bp.load_robot(ROOT / "robots" / "kuka_iiwa14.yaml")
    model = bp.Model(robot, np.tile([0.04, 0.04, 0.02, 0, 0, 0, 0.02, 0.01, 0.1, 2.0], robot.n_dof))
    q = rng.uniform(-2, 2, (S, robot.n_dof))
    print(f"== mass matrix, {robot.name}, {S} samples")
    mass_pair(robot, model, q, repeat)
    print("\n== Ivanov's q̇ = M⁻¹p, chains, 1000 samples")
    ivanov_pair((5, 20) if quick else (5, 20, 50), repeat)


if __name__ == "__main__":
    main()
