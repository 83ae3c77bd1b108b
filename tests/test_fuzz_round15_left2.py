"""Items found in round 15 (second list): public parameters that changed nothing and said nothing (the floating
routes' ``seed``, ``scale_log``'s ``folds``: now a DeprecationWarning when given), a robot check written twice
that let a look-alike through to an AttributeError, and dead branches (``_degrees``' −0.0, ``_special``'s
multiple of 90°) removed: the tests of those check the behaviour the removal must keep."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.floating import identify_floating, route_combinations, seen_combinations
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"


@pytest.fixture(scope="module")
def space():
    robot = bp.load_robot(SPACE)
    return robot, bp.find_base_parameters(robot, "pseudo")


def test_floating_seed_is_deprecated_and_changes_nothing(space):
    """``seed`` of route_combinations, seen_combinations and identify_floating was documented as having no
    effect, and was silently accepted: given, it now warns; left out, nothing warns; the answer is the same."""
    robot, base = space
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        E, pivots, source = route_combinations(robot, "base", base=base)
        seen = seen_combinations(robot, "base")
    with pytest.warns(DeprecationWarning, match="^route_combinations: seed is deprecated and has no effect"):
        E7, pivots7, _ = route_combinations(robot, "base", 7, base)
    assert np.array_equal(E, E7) and pivots == pivots7 and source == "projection"
    with pytest.warns(DeprecationWarning, match="^seen_combinations: seed is deprecated"):
        seen7 = seen_combinations(robot, "base", seed=7)
    assert np.array_equal(seen[0], seen7[0]) and seen[1] == seen7[1] and np.array_equal(seen[0], E)
    # identify_floating: warned where the seed was checked, before the data (none here: refused after)
    with pytest.warns(DeprecationWarning, match="^identify_floating: seed is deprecated"), \
            pytest.raises(bp.SettingsError, match="^data: no trajectory given"):
        identify_floating(robot, [], seed=3, base=base)
    with pytest.raises(bp.ArgumentError, match="^seed: "):          # not a seed: still refused
        identify_floating(robot, [], seed=-1, base=base)
