"""Regressions of the command-line fuzzing of issue 28's eighth round (payload in all its modes, floating bases,
symbolic specs, Parquet and MCAP of odd types, outputs at odd places): each case below failed before its fix — exit
status 1 with 'internal error', a traceback, NaN in an output, or a file written where it was not named. The fuzzer
itself was a throwaway (mutated logs and descriptions, the CLI run in a subprocess with a time limit, its working
folder and temporary folder watched); these are the deterministic cases it found."""
import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT

UR = ROOT / "robots" / "ur10e_cad.yaml"
SPACE = ROOT / "robots" / "space_robot.yaml"


def one_line(result, *words):
    """Exit status 2 and one `baseparam: …` line on stderr (after any warning lines) naming each of `words`."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    lines = [line for line in result.output.strip().splitlines() if not line.startswith("baseparam: warning:")]
    assert len(lines) == 1 and lines[0].startswith("baseparam: "), result.output
    for word in words:
        assert word in lines[0], result.output


def _log(tmp_path, n_dof=6, seconds=2.0, **extra):
    """A smooth motion of ``n_dof`` joints with torques at 200 Hz as NPZ, with ``extra`` arrays beside its own."""
    t = np.arange(0, seconds, 0.005)
    q = 0.3 + 0.4 * np.sin(np.outer(t, np.arange(1, n_dof + 1)))
    path = tmp_path / "log.npz"
    np.savez(path, t=t, q=q, tau=np.cos(q), **{k: v(len(t)) for k, v in extra.items()})
    return path


@pytest.mark.parametrize("array,words", [
    (lambda n: np.array([["a"] * 6] * n), ["'w'", "not real numbers", "<U1"]),
    (lambda n: np.array([None] * n, dtype=object), ["'w'", "not real numbers", "object"]),
    # complex: float() dropped the imaginary part, silently
    (lambda n: np.ones((n, 6)) + 1j, ["'w'", "not real numbers", "complex"]),
])
def test_npz_wrench_key_that_is_no_real_array(tmp_path, array, words):
    """`payload --wrench KEY` read the key with np.load and float(): strings and objects (pickles, refused by numpy)
    ended as 'internal error: ValueError', exit 1; a complex array lost its imaginary part without a word."""
    log = _log(tmp_path, w=array)
    one_line(CliRunner().invoke(main, ["payload", str(UR), str(log), "--wrench", "w"]), "log.npz", *words)


@pytest.mark.parametrize("args", [
    ["payload", str(SPACE), "--suggest-poses", "8"],
    # --model of a floating robot for a fixed one: the model's robot is the one the payload is fitted on
    ["payload", str(UR), "LOG", "--model", str(SPACE)],
    ["payload", str(UR), "LOG", "--model", str(SPACE), "--static"],
])
def test_payload_of_a_floating_robot_is_refused(tmp_path, args):
    """The payload's columns are a fixed base's: a floating robot's coordinates lay beyond them, 'internal error:
    IndexError: index 10 is out of bounds', exit 1."""
    log = str(_log(tmp_path))
    result = CliRunner().invoke(main, [log if a == "LOG" else a for a in args])
    one_line(result, "floating base")
