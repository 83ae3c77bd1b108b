"""The Python API's user arrays go through one conversion (baseparam._numbers.real_array): complex
numbers, dates and durations, booleans, text and ragged lists are refused with a message naming the
argument; a function that takes a robot refuses anything but a Robot with a TypeError naming it."""
import datetime

import numpy as np
import pytest

import baseparam as bp
from baseparam._numbers import real_array
from baseparam.errors import ArgumentError, DataError
from conftest import ROOT

PUMA = str(ROOT / "robots" / "puma560.yaml")
S = 20


@pytest.fixture(scope="module")
def robot():
    return bp.load_robot(PUMA)


BAD = [
    (np.zeros((S, 6)) + 5j, "complex values"),
    (np.array(["2024-01-01"] * S, dtype="datetime64[ms]"), "dates; convert to seconds"),
    (np.arange(S).astype("timedelta64[ms]"), "durations; convert to seconds"),
    (np.zeros((S, 6), dtype=bool), "booleans"),
    (np.array([["a"] * 6] * S), "text"),
    ([[0.0] * 6] * (S - 1) + [[0.0] * 5], "ragged rows"),
    (np.array([datetime.date(2024, 1, 1)] * S, dtype=object), "date items"),
]


@pytest.mark.parametrize("value, what", BAD)
def test_real_array_refusals_name_the_argument(value, what):
    with pytest.raises(ArgumentError, match=r"^q: .*" + what.split(";")[0]):
        real_array("q", value)


def test_real_array_accepts_numbers():
    assert real_array("q", [1, 2]).dtype == np.float64
    assert real_array("q", np.array([1, 2.5], dtype=object)).tolist() == [1.0, 2.5]
    x = np.zeros(3)
    assert real_array("q", x) is x


@pytest.mark.parametrize("value, what", BAD)
def test_dynamics_and_from_arrays_refuse(robot, value, what):
    p = np.zeros(bp.ColumnLayout(robot).n_standard)
    q = np.zeros((S, 6))
    with pytest.raises(ArgumentError, match=r"^qd: "):
        bp.inverse_dynamics(robot, p, q, value, q)
    t = np.arange(S) * 0.01
    with pytest.raises(DataError, match=r"^<arrays>: field q: "):
        bp.from_arrays(t, value, np.zeros((S, 6)))
    with pytest.raises(DataError, match=r"^<arrays>: field tau: "):
        bp.Trajectory(t=t, q=q, tau=value)


def test_times_as_datetime64_are_refused():
    t = np.datetime64("2024-01-01T00:00:00") + np.arange(S) * np.timedelta64(10, "ms")
    with pytest.raises(DataError, match=r"field t: not numeric \(dtype datetime64\[ms\]\); dates; convert to seconds"):
        bp.from_arrays(t, np.zeros((S, 1)), np.zeros((S, 1)))


@pytest.mark.parametrize("call", [
    lambda r, p, q: bp.inverse_dynamics(r, p, q, q, q),
    lambda r, p, q: bp.gravity_torque(r, p, q),
    lambda r, p, q: bp.coriolis_torque(r, p, q, q),
    lambda r, p, q: bp.friction_torque(r, p, q),
    lambda r, p, q: bp.regressor(r, q, q, q),
    lambda r, p, q: bp.slotine_li_regressor(r, q, q, q, q),
    lambda r, p, q: bp.mass_matrix(r, p, q),
    lambda r, p, q: bp.coriolis_matrix(r, p, q, q),
    lambda r, p, q: bp.standard_parameters(r),
    lambda r, p, q: bp.ColumnLayout(r),
    lambda r, p, q: bp.find_base_parameters(r),
])
def test_functions_taking_a_robot_refuse_a_file_name(robot, call):
    p = np.zeros(bp.ColumnLayout(robot).n_standard)
    q = np.zeros((2, 6))
    # the dynamics functions take a model (one wording with bp.Regressor and bp.ForwardDynamics), the others a robot
    expected = "(robot: expected a baseparam.Robot|model: expected a baseparam.Model, BaseModel or BaseParameters)"
    with pytest.raises(TypeError, match=rf"^{expected}, got str; .*bp.load_robot"):
        call(PUMA, p, q)
    with pytest.raises(TypeError, match=rf"^{expected}, got NoneType$"):
        call(None, p, q)


def test_read_trajectory_names_its_argument():
    with pytest.raises(TypeError, match=r"^path: expected a file name \(str or os.PathLike\), got int$"):
        bp.read_trajectory(123)
    with pytest.raises(TypeError, match=r"got ndarray; for arrays use bp.from_arrays"):
        bp.read_trajectory(np.zeros(3))


@pytest.mark.parametrize("spoil", [lambda q: q + 5j, lambda q: q.astype(str),
                                   lambda q: np.full(q.shape, np.datetime64("2026-01-01"))])
def test_identify_refuses_arrays_that_are_not_real_numbers(spoil):
    """(q, qd, qdd, tau) tuples go through the same conversion: the imaginary part is not dropped."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    q = np.random.default_rng(0).uniform(-1, 1, (200, 3))
    with pytest.raises(DataError, match="q"):
        bp.identify(robot, (spoil(q), q, q, q))


@pytest.mark.parametrize("value", [[1.0, None], np.array([None, None], dtype=object), [[2.0], [None]]])
def test_real_array_refuses_none_items(value):
    # None is no number: refused as ever, never turned into NaN by the conversion (that NaN would pass where NaN
    # is allowed, e.g. nrmse)
    with pytest.raises(ArgumentError, match=r"^e2: not numeric \(dtype object\); object items; expected numbers$"):
        real_array("e2", value)
    with pytest.raises(ArgumentError, match=r"^e2: not numeric"):
        bp.evaluation.nrmse(value, np.ones(np.shape(value)))
