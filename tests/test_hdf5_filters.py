"""An HDF5 dataset names its filters by number, and libhdf5 loads a plugin (a shared library) for one it does not
know: the file would choose code to run. Only the built-in filters are read; another is refused in one line,
before any value is read (issue 28)."""
import h5py
import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import BaseParamError


def write_log(path, filter_code):
    t = np.arange(50) / 100.0
    q = np.sin(t[:, None] + np.arange(3))
    with h5py.File(path, "w") as f:
        f.create_dataset("t", data=t)
        # optional (allow_unknown_filter): libhdf5 skips it on writing, but the pipeline names it for the reader
        f.create_dataset("q", data=q, chunks=(10, 3), compression=filter_code, allow_unknown_filter=True)
        f.create_dataset("tau", data=np.cos(q))


@pytest.mark.parametrize("code", [32001, 307, 65535])
def test_plugin_filters_are_refused(tmp_path, code):
    path = tmp_path / "log.h5"
    write_log(path, code)
    with pytest.raises(BaseParamError, match=rf"log\.h5: key q: compressed with HDF5 filter {code}, a plugin") as e:
        bp.read_trajectory(path)
    assert "\n" not in str(e.value)


def test_built_in_filters_are_read(tmp_path):
    path = tmp_path / "log.h5"
    t = np.arange(50) / 100.0
    q = np.sin(t[:, None] + np.arange(3))
    with h5py.File(path, "w") as f:
        f.create_dataset("t", data=t)
        f.create_dataset("q", data=q, chunks=(10, 3), compression="gzip", shuffle=True, fletcher32=True)
        f.create_dataset("tau", data=np.cos(q), chunks=(10, 3), compression="lzf")
    traj = bp.read_trajectory(path)
    np.testing.assert_array_equal(traj.q, q)
    np.testing.assert_array_equal(traj.tau, np.cos(q))
