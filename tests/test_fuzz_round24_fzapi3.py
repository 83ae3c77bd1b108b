"""Fuzz round twenty-four, the Python API of the newest surfaces (identify_payload and its result's vendor formats,
the payload robot written out, equations, the floating base, Model, estimators, readers called from Python): what a
forked driver found, each with a test that fails before its fix."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT, planar_arm


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


@pytest.fixture(scope="module")
def space_free_motion():
    """The space robot (448 kg, in orbit) moving freely: its model, the noise-free motion, and a contact at the
    end of one arm."""
    model = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    k = np.arange(1, 7)
    ex = bp.free_floating_experiment(model, np.linspace(0, 2, 81), lambda t, q, qd: 3 * np.sin(0.7 * k * t + k))
    return model, ex, (bp.Contact(6),)


def test_base_route_of_round_off_contact_forces_is_refused_not_zero(space_free_motion):
    """A free motion given to contact_experiment: no force is needed, and its contact wrenches are round-off of the
    inertial forces (1e-14 N). The base route without a known quantity fitted that round-off: every estimate about
    0 (total mass 8e-13 ± 1e-12 kg for 448 kg), rank 52, no word — where exactly zero forces are refused as
    homogeneous. Now refused alike; with the total mass known the fit is the truth, as before."""
    model, ex, contacts = space_free_motion
    truth = ex.truth
    touch = bp.contact_experiment(model, truth.t, truth.q, truth.qd, truth.qdd, contacts)
    assert 0 < np.abs(touch.wrenches).max() < 1e-12
    with pytest.raises(bp.SettingsError, match=r"known: the base route's equations are homogeneous here but for "
                                               r"round-off \(the base's and the contacts' forces at most"):
        bp.identify_floating(model, touch.log, route="base", contacts=contacts, wrenches=touch.wrenches)
    known = bp.identify_floating(model, touch.log, route="base", contacts=contacts, wrenches=touch.wrenches,
                                 known={"mass": 448.0})
    assert np.allclose(known.values, known.from_standard(ex.parameters), rtol=0, atol=1e-9)


def test_an_estimate_not_told_from_zero_is_said(space_free_motion):
    """The same free motion with the F/T sensors' noise (1 N, 0.1 N·m) on wrenches that are zero: the fit of noise
    alone gave estimates within their σ of 0 (total mass −45 ± 153 kg) without a word. Now a DataWarning says the
    forces do not fix the scale; a motion that needs a contact force (the base pushed) gives none."""
    model, ex, contacts = space_free_motion
    truth = ex.truth
    noisy = bp.contact_experiment(model, truth.t, truth.q, truth.qd, truth.qdd, contacts, wrench_noise=(1.0, 0.1))
    with pytest.warns(bp.DataWarning, match=r"the base route's estimate is not told from 0 .*give a known quantity"):
        bp.identify_floating(model, noisy.log, route="base", contacts=contacts, wrenches=noisy.wrenches)
    qdd = truth.qdd.copy()
    qdd[:, :6] += 0.05
    pushed = bp.contact_experiment(model, truth.t, truth.q, truth.qd, qdd, contacts, wrench_noise=(1.0, 0.1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", bp.DataWarning)
        bp.identify_floating(model, pushed.log, route="base", contacts=contacts, wrenches=pushed.wrenches)
