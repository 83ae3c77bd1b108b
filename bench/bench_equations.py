"""``baseparam equations``: the CPU time of the closed form and of each of its printed outputs.

    python bench/bench_equations.py [ROBOT.yaml ...]        (default: the robots below)

One run per robot (the closed form of a 7-joint arm takes tens of seconds), CPU seconds of this process
(time.process_time, so a loaded machine inflates them less than wall time). The command prints the same
equations up to four times (the check's Python module, --python, --json's strings, the Markdown's LaTeX);
round 23 (lcl3) measured robots/kuka_lwr4.yaml on the shared 2-core machine, CPU s:

    before:  closed form and check 12.1, Markdown 7.6, JSON 6.0, Python 6.1   (31.8; CLI, every output: 31.9 s user)
    after:   closed form and check 10.8, Markdown 5.1, JSON 3.4, Python 0.0   (19.3; CLI, every output: 18.7 s user)

(each sum's order computed once for every printer, codegen/_shared_order.py; the check's Python module kept for
--python; the closed form's recurring products built once). The outputs are the same to the byte.

Round 25 (leq, issue 28), this script, CPU s, before -> after (main vs s25-leq, one after the other):

    puma560 3.6 -> 3.2, ur5 2.2 -> 2.1, kuka_lwr4 19.8 -> 17.8 (closed form and check 11.3 -> 8.8)

(the orders of sums from sort keys kept in the printers' memo; an entry's forms sharing their pieces). The command
also raises SymPy's caches (SYMPY_CACHE_SIZE=100000, which this script leaves at SymPy's 1000); user CPU of
``baseparam equations ROBOT`` run from a folder without the package (``python -m`` puts the current folder first):

    puma560 3.8 -> 3.0, ur10e 2.8 -> 2.4, kuka_lwr4 17.1 -> 11.7, panda 18.9 -> 12.9,
    ur10e --symbolic all 13.4 -> 11.3, puma560 --symbolic all 11.8 -> 9.9

The outputs (Markdown, JSON, Python of every robot in robots/) are the same to the byte.
"""
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

SCOPE = (["puma560.yaml", "ur5.yaml", "kuka_lwr4.yaml"],
         "two 6-joint arms and the 7-joint arm whose equations took 24-44 s (round 23); give others on the command "
         "line")


def measure(path):
    """CPU seconds of the closed form with its check, then of each printed output (Markdown, JSON, Python)."""
    import baseparam as bp
    from baseparam.codegen.equations import equations

    robot = bp.load_robot(path)
    base = bp.find_base_parameters(robot)
    steps = {}
    clock = time.process_time()
    eq = equations(base)
    for name, step in (("closed form and check", None), ("Markdown", eq.markdown), ("JSON", eq.to_dict),
                       ("Python", eq.python_source)):
        if step is not None:
            step()
        now = time.process_time()
        steps[name], clock = now - clock, now
    return steps


def main():
    print(scope_line(SCOPE))
    for name in sys.argv[1:] or SCOPE[0]:
        path = pathlib.Path(name) if pathlib.Path(name).exists() else ROOT / "robots" / name
        steps = measure(path)
        print(f"{path.name}: " + ", ".join(f"{k} {v:.1f}" for k, v in steps.items())
              + f" (total {sum(steps.values()):.1f} s CPU)")


if __name__ == "__main__":
    main()
