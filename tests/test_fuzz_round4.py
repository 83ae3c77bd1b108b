"""Regressions of the command-line fuzzing of issue 28's third round (bags, Parquet, payload, symbolic lengths,
floating bases, and every output flag given an odd path): each case below failed before its fix — a traceback,
exit status 1, NaN in an output, a hang, or a file written where no output named it. The fuzzer itself was a
throwaway (mutated valid inputs, the CLI in subprocesses); these are the deterministic cases it found."""
import os

import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT

SCARA = str(ROOT / "robots" / "scara.yaml")


def one_line(result, *words):
    """Exit status 2 and a single line `baseparam: …` on stderr, naming each of `words`."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("baseparam: ") and "Traceback" not in result.output, result.output
    for word in words:
        assert word in lines[0], result.output


@pytest.mark.parametrize("args,flag", [
    (["equations", SCARA, "--python", "-"], "--python"),
    (["equations", SCARA, "--out", "-"], "--out"),
    (["export", SCARA, "--lang", "c", "--out", "-"], "--out"),
])
def test_dash_is_refused_where_it_is_not_stdout(tmp_path, monkeypatch, args, flag):
    """`--python -`, `equations --out -` and `export --out -` wrote a file (or a folder) literally named '-' in the
    working folder; '-' is stdout for --json (and describe --yaml) only, elsewhere a one-line refusal."""
    monkeypatch.chdir(tmp_path)
    one_line(CliRunner().invoke(main, args), flag, "'-'")
    assert os.listdir(tmp_path) == []
