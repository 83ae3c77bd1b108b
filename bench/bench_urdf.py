"""A robot read from its URDF against the same robot read from its DH description.

``python bench/bench_urdf.py [--runs N]`` loads each pair (the measured-data robots' URDFs in
``../shared/data`` beside their DH files in ``robots/``, and 7-DOF arms of the ``example-robot-data``
package when it is installed) and times, alternately in this process, ``load_robot`` and
``find_base_parameters`` for each form; it prints the medians, the ratio URDF/DH (target ≤ 2, issue 12)
and the ranks (the URDF read with the friction and rotor inertias its DH file declares, ``--friction``
``--rotor-inertia``). The URDF keeps its own link frames (so its regroupings differ from the DH ones, its rank
does not) and its fixed joints are merged. Timings on a shared machine wander by ±30 %: the ratio of
runs interleaved in one process is the figure to read.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import statistics
import time
import warnings
from pathlib import Path

import baseparam as bp

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
PAIRS = [  # (label, URDF, DH description or None, URDF options)
    ("UR10e", DATA / "ur10e" / "ur10e.urdf", ROOT / "robots" / "ur10e.yaml", {}),
    ("KUKA LWR4+", DATA / "kuka_lwr4" / "kuka_lwr4.urdf", ROOT / "robots" / "kuka_lwr4.yaml", {}),
]
EXAMPLES = [  # example-robot-data 7-DOF arms (no DH file here: the URDF alone is timed)
    ("Panda", "panda.urdf", {"tip": "panda_link8"}),
    ("xArm7", "xarm7.urdf", {}),
    ("Z1", "z1.urdf", {}),
]


from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["ur10e.yaml", "kuka_lwr4.yaml"],
         "URDF against DH needs a maker's URDF beside its DH file, which these two arms have (plus "
         "example-robot-data URDFs)")


def example_urdfs():
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    return {f.name: Path(f.locate()) for f in files if f.name.endswith(".urdf")}


def timed(fn, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def find_time(path, options, runs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(path, **options)
        return timed(lambda: bp.find_base_parameters(robot), runs)


def main():
    print(scope_line(SCOPE))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(f"{'robot':12s} {'DOF':>3s} {'rank URDF/DH':>13s} {'find URDF':>10s} {'find DH':>9s} {'ratio':>6s}  exact")
    for label, urdf, dh, options in PAIRS:
        if not urdf.exists():
            print(f"{label:12s} skipped: {urdf} not found")
            continue
        t_dh, base_dh = find_time(dh, {}, args.runs)
        # the drives the DH file declares (a URDF cannot): the same columns, so the same rank
        drives = {"friction": any(j.friction_terms for j in base_dh.robot.joints),
                  "rotor_inertia": any(j.has_rotor_inertia for j in base_dh.robot.joints)}
        t_urdf, base_urdf = find_time(urdf, {**options, **drives}, args.runs)
        print(f"{label:12s} {base_urdf.robot.n_dof:3d} {base_urdf.rank:6d}/{base_dh.rank:<6d} {t_urdf:9.3f}s "
              f"{t_dh:8.3f}s {t_urdf / t_dh:6.2f}  {base_urdf.exact}")
    found = example_urdfs()
    for label, name, options in EXAMPLES:
        if name not in found:
            continue
        t_urdf, base = find_time(found[name], options, args.runs)
        print(f"{label:12s} {base.robot.n_dof:3d} {base.rank:6d}/{'-':<6s} {t_urdf:9.3f}s {'-':>8s}  {'-':>6s}  "
              f"{base.exact}")


if __name__ == "__main__":
    main()
