"""Regressions of the leftovers of issue 28's thirteenth stop and issue 22's tidiness (round 14, 'left'): each test
below failed on the code before its fix."""
import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT, planar_arm

UR = ROOT / "robots" / "ur10e.yaml"
ABSURD_WORDS = r"absurd value {value} at index {index} \(beyond ±1e\+100\); expected {expected}"


# -- one bound for parameters, one wording ----------------------------------------------------------------------------
def test_a_parameter_beyond_the_bound_is_refused_in_one_wording_everywhere():
    """A value beyond ±1e100 was refused in three wordings ('absurd value … (|p| > 1e+100)', 'a value beyond ±1e+100
    (…)', 'payload torques up to …: beyond any robot's (at most …)'): now one check, naming the value and its index."""
    from baseparam import evaluation
    from baseparam.identification._payload_math import _check_target
    robot = planar_arm()
    p = bp.Model(robot).p.copy()
    p[7] = -3e200
    with pytest.raises(bp.ArgumentError, match="^p: " + ABSURD_WORDS.format(value="-3e\\+200", index=7,
                                                                            expected="parameters in SI units$")):
        bp.Model(robot, p)
    with pytest.raises(bp.ArgumentError, match="^truth: " + ABSURD_WORDS.format(value="2e\\+300", index=1,
                                                                                expected="parameters in SI units$")):
        evaluation.fit_errors(np.zeros(3), np.array([1.0, 2e300, 1.0]))
    y = np.zeros((5, 6))
    y[3, 2] = 1e120
    with pytest.raises(bp.DataError, match="^loaded: payload torques: " + ABSURD_WORDS.format(
            value="1e\\+120", index="3, 2", expected=r"SI units \(N·m, N\): check the units and the gains$")):
        _check_target(y, "payload torques")
    _check_target(np.full((5, 6), 1e100), "payload torques")          # the bound itself is taken
