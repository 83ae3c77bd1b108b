"""writes_checked points a failed HDF5 output's descriptor at the null device (see baseparam._hdf5.writes_checked);
only libhdf5's sec2 driver has a descriptor there. Under another default driver (``HDF5_DRIVER=stdio`` or ``core``,
read by libhdf5 at start-up) the file's "handle" is a FILE* or a memory address: taken as a descriptor, dup2 failed
and its "Bad file descriptor" replaced the block's own exception (here a ValueError, as it would a Ctrl-C) with a
StorageError. The block's exception must reach the caller unchanged and the temporary file must be gone."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("h5py")

ROOT = Path(__file__).resolve().parents[1]

_SCRIPT = textwrap.dedent("""
    import os, sys
    import numpy as np
    from baseparam._atomic import atomic_path
    from baseparam._hdf5 import writes_checked
    out = os.path.join(sys.argv[1], "out.h5")
    try:
        with atomic_path(out, ".h5.tmp") as tmp, writes_checked(out, tmp) as f:
            f["a"] = np.arange(1000.0)
            raise ValueError("the block's own error")
    except BaseException as exc:
        print(type(exc).__name__, exc)
    print(sorted(os.listdir(sys.argv[1])))
""")


@pytest.mark.parametrize("driver", ["stdio", "core", "sec2"])
def test_block_error_kept_under_another_driver(driver, tmp_path):
    env = dict(os.environ, HDF5_DRIVER=driver, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["ValueError the block's own error", "[]"], done.stdout + done.stderr
