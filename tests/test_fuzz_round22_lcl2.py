"""Round 22 (lcl2): command-line messages in the user's words (issue 28), each fixed at its root."""

import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT, one_line

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _empty_log(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n")
    return log


def test_an_inproc_scheduler_address_says_which_addresses_are_read(tmp_path):
    """`--scheduler inproc://x` was refused with Python's "not enough values to unpack (expected 3, got 1)" (Dask's
    inproc parser): now the form of the address and the ones a command reads."""
    pytest.importorskip("distributed")
    result = _run("identify", PLANAR, _empty_log(tmp_path), "--scheduler", "inproc://x")
    one_line(result, "--scheduler", "inproc://x", "tcp://HOST:PORT", "'local'")
    assert "unpack" not in result.output
