"""`find_and_store` (``baseparam find --h5``) computes Z once: time and Z blocks computed, beside a
plain `find_base_parameters`. In-process, best of 3 after one warm-up call; the chain starts are
counted by wrapping the kinetic block of the coordinate stage (one per joint when Z is computed once).

    python bench/bench_store.py
"""
import pathlib
import tempfile
import time

import baseparam as bp
from baseparam.projection import _coordinates
from baseparam.projection.storage import find_and_store

ROOT = pathlib.Path(__file__).resolve().parent.parent
CALLS = []
_kinetic_block = _coordinates.kinetic_blocks


from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["puma560.yaml", "kuka_iiwa14.yaml", "stanford_arm.yaml", "skew7.yaml"],
         "one robot per kind of Z (exact, 7-DOF, prismatic, float path)")


def _counting(*args, **kwargs):
    CALLS.append(args[3])
    return _kinetic_block(*args, **kwargs)


def best(fn, repeat=3):
    fn()
    times = []
    for _ in range(repeat):
        CALLS.clear()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), len(CALLS)


def main():
    print(scope_line(SCOPE))
    _coordinates.kinetic_blocks = _counting
    print(f"{'robot':22s} {'find':>10s} {'blocks':>7s} {'find + store':>13s} {'blocks':>7s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("puma560.yaml", "kuka_iiwa14.yaml", "stanford_arm.yaml", "skew7.yaml"):
            robot = bp.load_robot(ROOT / "robots" / name)
            t_find, n_find = best(lambda robot=robot: bp.find_base_parameters(robot))
            t_store, n_store = best(lambda robot=robot: find_and_store(robot, pathlib.Path(tmp) / "z.h5"))
            print(f"{robot.name[:22]:22s} {t_find * 1e3:8.1f}ms {n_find:7d} {t_store * 1e3:11.1f}ms {n_store:7d}")


if __name__ == "__main__":
    main()
