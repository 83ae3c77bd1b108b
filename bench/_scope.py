"""Which robots of ``robots/`` a bench script runs on, and why not the others: the one line each
script prints first (``SCOPE`` in every script; tests/test_bench_imports.py checks them).

A script measures what its robots show (measured logs exist for two arms; a timing needs 7-DOF arms
pinocchio also models; the paper's figures are the PUMA's); where it loops over ``robots/`` it runs
every robot it can and says in one line, without a traceback, why it skips one.
"""
import pathlib

ROBOTS = pathlib.Path(__file__).resolve().parent.parent / "robots"


def robot_files():
    """The descriptions in robots/, sorted by name."""
    return sorted(path.name for path in ROBOTS.glob("*.yaml"))


def scope_line(scope):
    """The line: ``robots/: a.yaml, b.yaml; not the other 16: why`` (``used`` None: every robot).

    Parameters
    ----------
    scope : (list of str or None, str)
        The files of robots/ the script runs on (None: all it can), and why not the others.
    """
    used, why = scope
    if used is None:
        return f"robots/: every robot ({len(robot_files())}); {why}"
    others = len(set(robot_files()) - set(used))
    return f"robots/: {', '.join(used) or 'none'}; not the other {others}: {why}"
