"""Fuzz round twenty, the Python API: what a forked driver over every public function's arguments (odd values of
every type in each slot, odd dtypes and array kinds, threads, pickles, reprs) found, each with a test that fails
before its fix."""
import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT


@pytest.fixture(scope="module")
def planar():
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    return bp.find_base_parameters(robot), bp.find_base_parameters(robot, "khalil")


@pytest.mark.parametrize("parameters", ["x", None, float("nan"), 3, b"pseudo"])
def test_equations_of_a_base_set_refuse_what_is_no_parameterization(planar, parameters):
    """equations(base, parameters=...) ignored the argument beside a base set: any value (None, NaN, a typo)
    was taken without a word."""
    with pytest.raises(bp.ArgumentError, match="parameters: expected one of"):
        bp.equations(planar[0], parameters, check=False)


def test_equations_of_a_base_set_refuse_the_other_parameterization(planar):
    """...and the other parameterization too: the equations are in the base set's, not in the one asked for."""
    pseudo, khalil = planar
    with pytest.raises(bp.ArgumentError, match="parameters: 'khalil', but the base set is in 'pseudo' parameters"):
        bp.equations(pseudo, "khalil", check=False)
    # left at its default or agreeing: the base set's own, as before
    assert bp.equations(khalil, check=False).to_dict() == bp.equations(khalil, "khalil", check=False).to_dict()
