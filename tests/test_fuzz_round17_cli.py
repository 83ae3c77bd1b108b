"""Regressions of the command-line fuzzing of issue 28's seventeenth round (every command and option alone and in
combinations, the options of the last two stops, odd values in every non-path option, odd kinds in every path slot,
stdout/stderr closed or a pipe closed early). Each run was a forked process with its own folder, HOME and TMPDIR;
the fuzzer was a throwaway, these are the deterministic cases it found, each failing before its fix."""
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
