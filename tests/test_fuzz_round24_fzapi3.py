"""Fuzz round twenty-four, the Python API of the newest surfaces (identify_payload and its result's vendor formats,
the payload robot written out, equations, the floating base, Model, estimators, readers called from Python): what a
forked driver found, each with a test that fails before its fix."""
import numpy as np
import pytest

import baseparam as bp
from conftest import planar_arm


@pytest.fixture(scope="module")
def planar_log():
    """A noise-free log of the planar arm: its torques from a model of known parameters."""
    robot = planar_arm()
    t = np.arange(400) * 0.01
    w = np.array([1.0, 2.0, 3.0])
    q, qd, qdd = np.sin(np.outer(t, w) + 1), w * np.cos(np.outer(t, w) + 1), -w ** 2 * np.sin(np.outer(t, w) + 1)
    return robot, bp.Trajectory(t, q, tau=bp.inverse_dynamics(bp.Model(robot), q, qd, qdd))


@pytest.mark.filterwarnings("ignore::baseparam.DataWarning")        # no payload in this log: its mass is 0
@pytest.mark.parametrize("ext", ["npz", "csv", "parquet"])
def test_a_log_named_by_bytes_is_read_by_the_fits_as_by_str(planar_log, tmp_path, ext):
    """A file name given as bytes (documented beside str and os.PathLike) reached the NPZ joint-order check of the
    fits' reader (identify_payload, the estimators) undecoded: zipfile's bare AttributeError "'bytes' object has no
    attribute 'seek'". Now decoded once: the same result as the str name."""
    robot, log = planar_log
    path = str(tmp_path / f"log.{ext}")
    bp.write_trajectory(log, path)
    model = bp.Model(robot)
    by_str = bp.identify_payload(model, path)
    by_bytes = bp.identify_payload(model, path.encode())
    assert by_bytes.mass == by_str.mass and np.array_equal(by_bytes.parameters, by_str.parameters)
    fitted = bp.BaseParameterEstimator(robot).fit(path.encode())
    assert np.array_equal(fitted.predict(path.encode()), bp.BaseParameterEstimator(robot).fit(path).predict(path))


@pytest.mark.parametrize("ext", ["h5", "hdf5"])
def test_a_readers_message_quoting_a_library_escapes_the_file_name(tmp_path, ext):
    """h5py's error for a file it cannot open repeats the name as given ("unable to open file: name = '…'"): the
    reader passed that text on with only its whitespace joined, so a terminal escape in the name reached the message
    raw (the file name the message starts with was escaped). Now escaped in both places."""
    name = str(tmp_path / f"\x1b[31mred\x07.{ext}")
    with pytest.raises(bp.DataError) as caught:
        bp.read_trajectory(name)
    assert str(caught.value).isprintable() and "\\x1b[31mred\\x07" in str(caught.value)
