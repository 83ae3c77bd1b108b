"""Fuzz round seventeen (issue 28), resources and the environment: what the seventeenth round found over the
commands' standard streams, each test failing on the code before its fix."""
import os
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]


def _baseparam(args, cwd, stdout=subprocess.PIPE, **env):
    """``python -m baseparam ARGS`` with ``env`` added to the environment; its stderr read as text."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), BASEPARAM_CACHE_DIR="none", **env)
    return subprocess.run([sys.executable, "-m", "baseparam", *args], cwd=cwd, env=env, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=60)


@pytest.mark.parametrize("encoding", ["latin-1", "cp437"])
def test_a_report_in_an_encoding_without_its_characters_is_written_escaped(tmp_path, encoding):
    # PYTHONIOENCODING=latin-1 (or cp437, an old terminal's): the first '…', 'τ' or 'q̇' of a report or of --help
    # failed the standard output's strict encoder: "UnicodeEncodeError", exit 1 with a traceback, the report cut short
    done = _baseparam(["find", "--help"], tmp_path, PYTHONIOENCODING=encoding)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"a2,d4,\\u2026|all" in done.stdout and not done.stderr
