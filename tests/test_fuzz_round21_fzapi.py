"""Fuzz round twenty-one, the Python API: what a forked driver over every public function's arguments (odd values of
every type in each slot and keyword, odd dtypes and array kinds, estimators' settings, threads, pickles) found,
each with a test that fails before its fix."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam._validation import check_number
from conftest import planar_arm


def test_a_float16_tolerance_is_taken_without_a_raw_numpy_warning():
    """simulate(atol=np.float16(1)) compared the float16 with atol's upper bound (1e150) in float16 precision (NEP 50):
    the bound overflowed in the cast, a raw numpy RuntimeWarning ("overflow encountered in cast") leaked to the
    caller; the simulation is the one of atol=1.0."""
    model = bp.Model(planar_arm())
    t = np.linspace(0.0, 0.05, 10)
    zero = np.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = bp.simulate(model, t, zero, zero, atol=np.float16(1.0))
    assert np.array_equal(run.q, bp.simulate(model, t, zero, zero, atol=1.0).q)


@pytest.mark.parametrize("value, bounds", [(np.float16(0.1), {"low": 0.1}), (np.float32(0.3), {"high": 0.3})])
def test_a_number_of_lower_precision_is_checked_as_the_number_returned(value, bounds):
    """The one numeric check compared a numpy scalar in its own precision, where the bound rounds too: np.float32(0.3)
    passed high=0.3 and came back as 0.30000001192092896, beyond the bound it was checked against; np.float16(0.1)
    passed low=0.1 and came back as 0.0999755859375."""
    with pytest.raises(bp.ArgumentError, match=r"^x: expected a number"):
        check_number(value, "x", **bounds)


@pytest.mark.parametrize("value, bounds, compared", [
    (np.float16(0.01), {"low": 0, "high": 0.01}, "0.01000213623046875"),
    (np.float32(0.3), {"high": 0.3}, "0.30000001192092896")])
def test_a_number_refused_by_its_rounding_says_the_number_compared(value, bounds, compared):
    """...and its refusal says the number compared: "expected a number from 0 to 0.01, got np.float16(0.01)" showed
    the value as the bound it was refused by (review rv6; the angle tolerance's bound is 0.01)."""
    with pytest.raises(bp.ArgumentError) as refused:
        check_number(value, "x", **bounds)
    assert str(refused.value).endswith(f"got {value!r} ({compared} in double precision)"), str(refused.value)


def test_a_number_refused_by_its_value_is_shown_as_given():
    """A numpy scalar beyond its bound whatever its precision is shown as given, once."""
    with pytest.raises(bp.ArgumentError, match=r"^x: expected a number ≤ 0.3, got np.float32\(0.5\)$"):
        check_number(np.float32(0.5), "x", high=0.3)


@pytest.mark.parametrize("value, bounds", [(np.float32(0.5), {"high": 0.5}),
                                           (np.float16(2.0), {"low": 0, "high": 1e150}),
                                           (np.int8(100), {"high": 1000, "integer": True}),
                                           (np.array(0.25), {"low": 0})])
def test_a_number_of_lower_precision_within_its_bounds_is_still_taken(value, bounds):
    """...while one within its bounds is its number, as a Python float or int (a bound beyond the type's range, an
    exactly representable bound)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = check_number(value, "x", **bounds)
    assert got == value and type(got) is (int if bounds.get("integer") else float)


def _payload():
    return bp.PayloadResult(mass=1.5, com=np.array([0.01, 0.0, 0.05]), inertia=np.eye(3) * 0.01, mass_std=0.01,
                            com_std=np.zeros(3), inertia_std=np.zeros((3, 3)), parameters=np.zeros(10),
                            unconstrained=np.zeros(10), covariance=np.eye(10),
                            identifiable=[f"p{k}" for k in range(10)], rank=10,
                            mode="dynamic", n_samples=100, rmse=np.ones(6))


def _series():
    return bp.FourierSeries(2.0, np.zeros(2), np.zeros((2, 1)), np.zeros((2, 1)))


def test_a_payload_result_compares_and_hashes_without_raising():
    """PayloadResult compared its array fields as a tuple (the dataclass ``==``): two made alike raised "ValueError:
    The truth value of an array ... is ambiguous", and hash() raised TypeError; a result compares by identity as the
    library's other results holding arrays do (LogResult, Identification)."""
    one, other = _payload(), _payload()
    assert one == one and one != other and not (one == other)
    assert len({one, other, one}) == 2


def test_a_fourier_series_is_a_value_equal_by_its_numbers():
    """FourierSeries's dataclass ``==`` raised ValueError on its arrays, hash() TypeError: a series is a value (an
    Inertia is, issue 22), equal to one made alike — also from its coefficients — and to nothing else."""
    one, other = _series(), _series()
    assert one == other and hash(one) == hash(other) and len({one, other}) == 1
    assert bp.FourierSeries.from_coefficients(2.0, one.coefficients) == one
    assert one != bp.FourierSeries(2.5, np.zeros(2), np.zeros((2, 1)), np.zeros((2, 1)))
    assert one != bp.FourierSeries(2.0, np.zeros(2), np.ones((2, 1)), np.zeros((2, 1)))
    assert one != bp.FourierSeries(2.0, np.zeros(2), np.zeros((2, 2)), np.zeros((2, 2)))
    assert one != bp.FourierSeries(2.0, np.zeros(3), np.zeros((3, 1)), np.zeros((3, 1)))
    assert one != "a series"
    negative = bp.FourierSeries(2.0, -np.zeros(2), -np.zeros((2, 1)), np.zeros((2, 1)))     # -0.0 == 0.0
    assert negative == one and hash(negative) == hash(one)


@pytest.mark.parametrize("field", ["com", "com_std", "inertia_std", "covariance", "rmse"])
def test_a_payload_built_without_one_of_its_arrays_is_refused_when_made(field):
    """PayloadResult(com_std=None, ...) was taken (a None field was not looked at), then its repr raised "TypeError:
    'NoneType' object is not iterable" and to_dict numpy's isfinite TypeError: refused when made, naming the field;
    ``poses``, which a dynamic identification has not, may still be None."""
    fields = {name: getattr(_payload(), name) for name in ("mass", "com", "inertia", "mass_std", "com_std",
                                                            "inertia_std", "parameters", "unconstrained", "covariance",
                                                            "identifiable", "rank", "mode", "n_samples", "rmse")}
    with pytest.raises(bp.ArgumentTypeError, match=rf"^PayloadResult\.{field}: expected an array of shape .*got None$"):
        bp.PayloadResult(**{**fields, field: None})
    assert _payload().poses is None and "PayloadResult(" in repr(_payload())
