"""Regressions of the leftovers of issue 28's fifteenth round in the Python API (the last stop's "Left, not fixed"):
one wording for a wrong model, file names of every path type, seeds through one check, old pickles, bare errors of
the figures, scores and texts, and shape checks before value scans. Each case below failed before its fix (those
that did not say so)."""
import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT

PLANAR = ROOT / "robots" / "planar_rrr.yaml"
MODEL_WORDS = "^model: expected a baseparam.Model, BaseModel or BaseParameters, got "


@pytest.mark.parametrize("make", [bp.Regressor, bp.ForwardDynamics,
                                  lambda value: bp.inverse_dynamics(value, np.zeros(3), np.zeros(3), np.zeros(3)),
                                  lambda value: bp.gravity_torque(model=value, q=np.zeros(3))])
def test_a_wrong_model_is_worded_once(make):
    """``bp.Regressor(3)`` said "model: expected a baseparam.Model, BaseModel or BaseParameters, got int",
    ``bp.ForwardDynamics(3)`` and every dynamics function "robot: expected a baseparam.Robot, got int" (their parameter
    is ``model``; ``gravity_torque(model=3, …)`` even said "got NoneType"). One check now (model.value.not_a_model),
    with the file name's hint."""
    with pytest.raises(bp.ArgumentTypeError, match=MODEL_WORDS + "int$"):
        make(3)
    with pytest.raises(bp.ArgumentTypeError, match=MODEL_WORDS + r"str; .*bp\.Model\(bp\.load_robot\(path\)\)"):
        make(str(PLANAR))
