"""Fuzz round 22, helper lrd3: huge ints in number checks, atomic Parquet writes, URDF joints with two <dynamics>."""
import pytest

from baseparam._validation import check_number
from baseparam.errors import ArgumentError


@pytest.mark.parametrize("value", [10 ** 400, -10 ** 400])
def test_check_number_names_an_int_too_large_for_a_double(value):
    with pytest.raises(ArgumentError, match="too large for a double") as info:
        check_number(value, "x", low=0)
    assert "\n" not in str(info.value)
    assert check_number(10 ** 400, "n", integer=True, low=0) == 10 ** 400     # a whole number needs no double
