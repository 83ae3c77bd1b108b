"""Regressions of the command-line fuzzing of issue 28's seventeenth round (every command and option alone and in
combinations, the options of the last two stops, odd values in every non-path option, odd kinds in every path slot,
stdout/stderr closed or a pipe closed early). Each run was a forked process with its own folder, HOME and TMPDIR;
the fuzzer was a throwaway, these are the deterministic cases it found, each failing before its fix."""
import errno
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_in_process

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def refused(result, *words):
    """Exit 2 and one `baseparam: …` line on stderr (after any warnings) naming each of ``words``; the line."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("baseparam: warning:")]
    assert len(lines) == 1 and lines[0].startswith("baseparam: ") and "internal error" not in lines[0], result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# `excite --time-budget 1e308` was "internal error: OverflowError" (exit 1): the progress count of a budgeted
# search is in tenths of a second, and 10 × 1e308 is inf. A budget beyond 10⁹ s (31 years) is no budget: refused,
# before any work, naming the option.
@pytest.mark.parametrize("budget", ["1e308", "1.7976931348623157e308"])
def test_a_time_budget_beyond_any_run_is_refused_not_an_internal_error(budget):
    refused(run_in_process("excite", PLANAR, "--starts", "1", "--time-budget", budget), "--time-budget", "1e+09")


def _unwritable(kind):
    """A stream every write to fails: ``/dev/full`` (ENOSPC), or a pipe whose reader is gone (EPIPE)."""
    if kind == "full":
        return open("/dev/full", "wb")
    read, write = os.pipe()
    os.close(read)
    return os.fdopen(write, "wb")


# `baseparam … 2>/dev/full` (or `2>&1 | head -c0`) ended with status 1: the refusal's (or a warning's) write to stderr
# raised OSError past every handler, and the traceback for it could not be written either. The status is all such
# a run can still say: 2 for the refusal, as for stdout on a full disk (a warning stderr cannot take is lost, and a
# run that did its work ends with 0: test_review_round17_rev4.py).
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("kind", ["full", "closed_pipe"])
def test_a_run_whose_stderr_cannot_be_written_ends_with_status_2(tmp_path, kind):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with _unwritable(kind) as stderr:
        proc = subprocess.run([sys.executable, "-m", "baseparam", "find", "missing.yaml"], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=stderr, timeout=600)
    assert proc.returncode == 2


# `baseparam find ROBOT` (or `--help`) into a pipe its reader had closed ended with status 1 and not a word (click's
# own handling of EPIPE); with `--json -` the refusal named the robot file: "puma560.yaml: Broken pipe". Now one
# line naming standard output, status 2, as a full disk there is said.
@pytest.mark.parametrize("args", [["find", PLANAR, "--json", "-"], ["--help"]])
def test_a_report_into_a_pipe_whose_reader_is_gone_is_said_as_standard_outputs(args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with _unwritable("closed_pipe") as stdout:
        proc = subprocess.run([sys.executable, "-m", "baseparam", *map(str, args)], env=env, stdout=stdout,
                              stderr=subprocess.PIPE, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"baseparam: standard output: cannot write ({os.strerror(errno.EPIPE)})"]


# `identify --method consistent --yaml out.yaml` wrote a friction the solver left at -7.9e-17 (its ≥ 0 constraint
# met within round-off) as it was, and load_robot refused the file it had just written ("joints[3].friction[2]:
# expected … ≥ 0"); --urdf/--mjcf clipped it already. The description is built from the fit with the same clip
# (viscous, Coulomb, Stribeck, rotor inertia; the offset keeps its sign): here a fit's columns at -1e-17.
def test_a_consistent_fit_at_its_friction_bounds_within_round_off_writes_a_yaml_that_reads_back(tmp_path):
    from types import SimpleNamespace

    import numpy as np

    import baseparam as bp
    from baseparam.identification.results import Identification
    from baseparam.model.parameters import ColumnLayout
    from baseparam.model.robot import robot_to_yaml

    robot = bp.load_robot(PLANAR, friction=True, rotor_inertia=True)
    layout = ColumnLayout(robot, "pseudo")
    p = np.full(len(layout.names), 0.5)
    for column in [*layout.friction_columns.values(), *layout.rotor_columns.values()]:
        p[column] = -1e-17
    bodies = [(1.0, np.zeros(3), np.eye(3) * 0.01) for _ in robot.joints]
    fit = SimpleNamespace(_fitted_columns=lambda what: (robot, layout, p, bodies))
    written = tmp_path / "fit.yaml"
    written.write_text(robot_to_yaml(Identification._robot(fit, "to_yaml")), encoding="utf-8")
    back = bp.load_robot(written)
    assert all(j.friction[0] == j.friction[1] == 0 and j.friction[2] == -1e-17 and j.rotor_inertia == 0
               for j in back.joints)
