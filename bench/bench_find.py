"""Speed and memory of `find_base_parameters` (issue: PUMA 560 ≤ 50 ms, 7-DOF ≤ 1 s, 8-DOF ≤ 20 s,
peak memory ≤ 2 GB). Each case runs in a fresh process; time is measured in-process after import
(best of several runs), memory is the process's peak RSS.

    python bench/bench_find.py            # all cases
    python bench/bench_find.py --quick    # skip the 9–11-DOF stress cases
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
import baseparam as bp
spec = json.loads(sys.argv[1])
if "file" in spec:
    robot = bp.load_robot(spec["file"])
else:
    n, odd = spec["n"], spec["odd"]
    twists = [90, 30, -60, 90, -45, 90, 60, -90] if odd else [90, -90]
    a = [0.1, 0.4, 0.05, 0.3, 0, 0.08, 0.02, 0.11]
    d = [0.3, 0.1, 0, 0.25, 0.05, 0, 0.1, 0.07]
    joints = tuple(bp.Joint(type="revolute", alpha=twists[k % len(twists)], a=a[k % 8], d=d[k % 8], parent=k)
                   for k in range(n))
    robot = bp.Robot(joints, name=spec["label"], length_unit="m", angle_unit="deg")
times = []
for _ in range(spec.get("repeat", 3)):
    t = time.perf_counter()
    base = bp.find_base_parameters(robot, spec.get("parameters", "pseudo"))
    times.append(time.perf_counter() - t)
print(json.dumps({"rank": base.rank, "exact": base.exact, "best_s": min(times),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

CASES = [
    ("PUMA 560 (paper table, exact)", {"file": str(ROOT / "robots/puma560.yaml"), "repeat": 20}, 0.05),
    ("PUMA 560, khalil", {"file": str(ROOT / "robots/puma560.yaml"), "parameters": "khalil", "repeat": 20}, 0.05),
    ("Stanford arm (prismatic)", {"file": str(ROOT / "robots/stanford_arm.yaml"), "repeat": 10}, None),
    ("Franka Panda 7-DOF (modified DH)", {"file": str(ROOT / "robots/panda.yaml"), "repeat": 10}, 1.0),
    ("KUKA iiwa 7-DOF", {"file": str(ROOT / "robots/kuka_iiwa14.yaml"), "repeat": 10}, 1.0),
    ("skew 7R (odd twists, float path)", {"file": str(ROOT / "robots/skew7.yaml"), "repeat": 10}, 1.0),
    ("8-DOF, 90° twists (exact)", {"n": 8, "odd": False, "label": "8R", "repeat": 3}, 20.0),
    ("8-DOF, odd twists (float)", {"n": 8, "odd": True, "label": "8R odd", "repeat": 3}, 20.0),
]
STRESS = [
    ("9-DOF, odd twists", {"n": 9, "odd": True, "label": "9R", "repeat": 1}, None),
    ("10-DOF, odd twists", {"n": 10, "odd": True, "label": "10R", "repeat": 1}, None),
]


from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["puma560.yaml", "stanford_arm.yaml", "panda.yaml", "kuka_iiwa14.yaml", "skew7.yaml"],
         "one robot per kind of case (paper table, prismatic, modified DH, 7-DOF, float path), beside "
         "generated chains; tests/ run find on every robot")


def main():
    print(scope_line(SCOPE))
    cases = CASES + ([] if "--quick" in sys.argv else STRESS)
    print(f"{'case':<36} {'rank':>5} {'exact':>6} {'time':>10} {'target':>8} {'peak RSS':>10}")
    ok = True
    for label, spec, target in cases:
        out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], capture_output=True, text=True)
        if out.returncode:
            print(f"{label:<36} FAILED: {out.stderr.strip().splitlines()[-1]}")
            ok = False
            continue
        r = json.loads(out.stdout)
        t = r["best_s"]
        verdict = "" if target is None else ("ok" if t <= target else "SLOW")
        ok &= verdict != "SLOW" and r["peak_rss_mb"] <= 2048
        tgt = "-" if target is None else f"{target * 1000:.0f} ms"
        print(f"{label:<36} {r['rank']:>5} {str(r['exact']):>6} {t * 1000:>8.1f} ms {tgt:>8} "
              f"{r['peak_rss_mb']:>7.0f} MB {verdict}")
    print("all targets met" if ok else "SOME TARGETS MISSED")


if __name__ == "__main__":
    main()
