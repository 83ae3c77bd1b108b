"""Fuzz round seventeen (issue 28), resources and the environment: what the seventeenth round found over the
commands' standard streams, each test failing on the code before its fix."""
import os
import subprocess
import sys

import click
import pytest

from baseparam import cli
from baseparam.errors import ResourceLimitError, StorageError
from conftest import ROOT


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


def test_a_report_whose_reader_left_is_said_in_one_line(tmp_path):
    # `baseparam describe R | true`: click's own handling of the closed pipe ended the run with status 1 (an
    # internal error's, by docs/cli.md) and said nothing
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = _baseparam(["--help"], tmp_path, stdout=write_end)
    finally:
        os.close(write_end)
    assert done.returncode == 2
    assert done.stderr.decode() == "baseparam: standard output: cannot write (Broken pipe)\n"


def test_a_document_to_a_closed_pipe_is_not_blamed_on_the_input(monkeypatch):
    # `find R --json - | true` said "R.yaml: Broken pipe": the closed pipe, raised as it was, was taken for the
    # input file's error (an OSError without a file name is the input's)
    def broken(*args, **kwargs):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(click, "echo", broken)
    with pytest.raises(StorageError, match=r"^standard output: cannot write \(Broken pipe\)$"):
        cli._to_stdout("{}")


def test_the_package_imports_with_docstrings_stripped(tmp_path):
    # `python -OO` (PYTHONOPTIMIZE=2, docstrings None): `find_base_parameters.__doc__ += …` failed the import of
    # baseparam.projection, and `find`, `identify`, `excite` … ended with a TypeError traceback, exit 1
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-OO", "-c", "import baseparam.projection"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def file_size_limited(monkeypatch):
    """Make RLIMIT_FSIZE (``ulimit -f``) read as the bytes given to the returned function (the real limit would bind
    pytest's own writes as well)."""
    import resource

    real = resource.getrlimit

    def limit(size):
        monkeypatch.setattr(resource, "getrlimit", lambda which: (size, resource.RLIM_INFINITY)
                            if which == resource.RLIMIT_FSIZE else real(which))
    return limit


def test_a_file_larger_than_the_processes_file_size_limit_is_refused_before_it_is_written(tmp_path,
                                                                                          file_size_limited):
    # `excite --out e.csv` under `ulimit -f 20`: the trajectory designed first, then "e.csv: cannot write (File too
    # large)"; under `ulimit -f 0` the run was blamed on its input ("ur10e.yaml: File too large")
    from baseparam._atomic import write_text
    from baseparam._output_names import check_output
    from baseparam.projection.storage import disk_limit

    file_size_limited(100)
    with pytest.raises(StorageError, match=r"out\.json: cannot write: 200 bytes to write, more than the 100 bytes "
                                           r"a file of this process may take \(ulimit -f\)$"):
        write_text(tmp_path / "out.json", "x" * 200)
    with pytest.raises(ResourceLimitError, match=r"ulimit -f"):
        disk_limit("arm", tmp_path / "z.h5", None, 1000, "the whole Z")
    file_size_limited(0)
    with pytest.raises(StorageError, match=r"out\.json: cannot write here \(File too large: .*ulimit -f 0\)$"):
        check_output(tmp_path / "out.json")
    assert list(tmp_path.iterdir()) == []


_WRAPPED_STOP = """
import sys
from baseparam import _entry, cli

def main():
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        raise RuntimeError("Error calling __set_name__ on 'deprecate_privatize_attribute' instance 'format'")

cli.main = main
_entry.main()
"""


def test_a_stop_a_library_wrapped_outside_a_commands_block_is_said_as_the_stop(tmp_path):
    # Ctrl-C while `identify --plot` imported matplotlib to check the figure's format (before the work, outside the
    # command's block of one-line errors): Python 3.11 wrapped it in a RuntimeError, printed as a bug's traceback
    # (73 lines) before "baseparam: interrupted"
    env = dict(os.environ, PYTHONPATH=str(ROOT), BASEPARAM_CACHE_DIR="none")
    done = subprocess.run([sys.executable, "-c", _WRAPPED_STOP], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stderr) == (130, "baseparam: interrupted\n")
