"""A write of HDF5 refused by the system (a full disk; here the file-size limit RLIMIT_FSIZE stands in for it) is a
StorageError for the library caller, and the process lives on: libhdf5 freed a dataset whose flush failed yet kept
its id, and the next close of that id (h5py's deallocation after the ``except`` block, or libhdf5's clean-up at exit)
died with SIGSEGV (h5py issue #914). Each writer runs in a subprocess under a few limits, from one that refuses the
first block of metadata to one that refuses only the last writes; its temporary file must be gone."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("h5py")
resource = pytest.importorskip("resource")

ROOT = Path(__file__).resolve().parents[1]

_PROLOGUE = """
import os, resource, signal, sys
import baseparam as bp
robot = bp.load_robot(os.path.join(sys.argv[1], "robots", "puma560.yaml"))
out = sys.argv[2]
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # the write fails with EFBIG instead of killing the process
# the limit stands for a disk that fills during the write: the checks that refuse a file beyond ulimit -f before any
# byte is written (round 17) are told of no limit, so that the write itself fails, as on a full disk
import baseparam._atomic, baseparam.projection.storage
baseparam._atomic.file_size_limit = baseparam.projection.storage.file_size_limit = lambda: None
"""

_LOOP = """
for limit in (3000, 20000, 100000, {largest}):
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    try:
        write(os.path.join(out, f"out{{limit}}.h5"))
    except bp.errors.StorageError as exc:
        print("raised", limit, exc, flush=True)
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
print("after", sorted(os.listdir(out)), flush=True)
"""

WRITERS = {
    "find_and_store": ("""
from baseparam.projection.storage import find_and_store
def write(path):
    find_and_store(robot, path)
""", 1_500_000),
    "store_symbolic": ("""
from baseparam.projection.symbolic import find_symbolic_base_parameters, store_symbolic
sym = find_symbolic_base_parameters(robot)
def write(path):
    store_symbolic(sym, path)
""", 100_000),
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_refused_write_is_an_error_and_no_crash(writer, tmp_path):
    body, largest = WRITERS[writer]
    script = _PROLOGUE + textwrap.dedent(body) + _LOOP.format(largest=largest)
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", script, str(ROOT), str(out)], capture_output=True, text=True,
                         env=env, timeout=600)
    assert run.returncode == 0, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    raised = [line for line in run.stdout.splitlines() if line.startswith("raised")]
    assert len(raised) == 4, run.stdout                 # every limit is below the file's size: each write refused
    assert all("cannot write (File too large)" in line for line in raised), raised
    assert run.stdout.splitlines()[-1] == "after []", run.stdout      # no output, no temporary file left
    assert "Traceback" not in run.stderr and "Exception ignored" not in run.stderr, run.stderr[-2000:]
