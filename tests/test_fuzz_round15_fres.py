"""Fuzz round fifteen (issue 28), resources, signals, concurrency and the file system: what the fifteenth round found
over the commands that write, each test failing on the code before its fix."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _baseparam(args, cwd, redirections, timeout=60):
    """``python -m baseparam ARGS`` started by a shell with ``redirections`` (``>&-``, ``2>&-``, ``2</dev/null``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), BASEPARAM_CACHE_DIR="none")
    command = " ".join([f"exec {sys.executable} -m baseparam", *args, redirections])
    return subprocess.run(["sh", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("redirections", ["2>&-", "2</dev/null"])
def test_a_run_without_a_writable_stderr_still_ends_as_it_went(tmp_path, redirections):
    # stderr closed (or, as pyenv's shims leave it, a read-only file on descriptor 2): sys.stderr was None (an
    # AttributeError in the progress display, exit 1) or failed each write (the report of `--json -` goes to
    # stderr: EBADF, exit 1); the run now goes on with its words discarded and its exit status still meaningful
    done = _baseparam(["find", str(PLANAR), "--json", "-"], tmp_path, redirections)
    assert done.returncode == 0 and '"rank": 9' in done.stdout


def test_a_run_started_with_standard_output_closed_is_refused_before_the_work(tmp_path):
    # the report, and a JSON asked for with '-', went nowhere while the run said it went well (exit 0)
    done = _baseparam(["find", str(PLANAR), "--json", "-"], tmp_path, ">&-")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "standard output is closed" in done.stderr
