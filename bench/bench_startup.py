"""Start-up time of the ``baseparam`` command and of ``import baseparam``.

``python bench/bench_startup.py [--runs N]`` runs each case N times (default 9) in a fresh
interpreter, alternating with ``python -c pass``, and prints the median of the differences
(case − ``python -c pass`` measured just before it), so that the figure is what baseparam adds to
starting Python, whatever the machine's load. Targets (issue 10): ``baseparam --help`` ≤ +0.25 s,
``baseparam find robots/puma560.yaml`` ≤ +0.5 s, ``import baseparam`` ≤ +0.3 s.

The command is run as its console script runs it (``from baseparam.cli import main``), with this
checkout first on ``sys.path``; a launcher in front of the installed script (a pyenv shim, say)
would add its own time, which is not baseparam's. Timings on a shared machine wander by ±30 %:
the script prints figures and never fails a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# What pip's console script for ``baseparam`` does.
COMMAND = "import sys; from baseparam.cli import main; sys.argv[0] = 'baseparam'; sys.exit(main())"

CASES = [
    # (label, arguments after the interpreter, target in s or None)
    ("import baseparam", ["-c", "import baseparam"], 0.30),
    ("baseparam --help", ["-c", COMMAND, "--help"], 0.25),
    ("baseparam find robots/puma560.yaml", ["-c", COMMAND, "find", "robots/puma560.yaml"], 0.50),
    ("bp.load_robot(puma560)", ["-c", "import baseparam as bp; bp.load_robot('robots/puma560.yaml')"], None),
    ("bp.find_base_parameters(puma560)",
     ["-c", "import baseparam as bp; bp.find_base_parameters(bp.load_robot('robots/puma560.yaml'))"], None),
    ("bp.read_trajectory (import only)", ["-c", "import baseparam as bp; bp.read_trajectory"], None),
    ("bp.identify (import only)", ["-c", "import baseparam as bp; bp.identify"], None),
    ("bp.export (import only)", ["-c", "import baseparam as bp; bp.export"], None),
]


from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["puma560.yaml"],
         "start-up time, which does not depend on the robot beyond the paper's example")


def _wall(args, env):
    """Wall time in s of ``python args`` run from the repository root; raises if it fails."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"python {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return elapsed


def main(argv=None):
    print(scope_line(SCOPE))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per case (median reported)")
    runs = parser.parse_args(argv).runs
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    for args in (["-c", "pass"], *(c[1] for c in CASES)):      # warm the file cache once
        _wall(args, env)
    print(f"{'case (median of ' + str(runs) + ' runs)':<40} {'python -c pass':>14} {'added':>9} {'target':>8}")
    ok = True
    for label, args, target in CASES:
        base, diff = [], []
        for _ in range(runs):
            b = _wall(["-c", "pass"], env)
            diff.append(_wall(args, env) - b)
            base.append(b)
        added = statistics.median(diff)
        verdict = "" if target is None else ("ok" if added <= target else "SLOW")
        ok &= verdict != "SLOW"
        tgt = "-" if target is None else f"+{target:.2f} s"
        print(f"{label:<40} {statistics.median(base):>12.3f} s {added:>+7.3f} s {tgt:>8} {verdict}")
    print("all targets met" if ok else "SOME TARGETS MISSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
