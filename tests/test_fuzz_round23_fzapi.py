"""Fuzz round twenty-three, the Python API beyond the dynamics functions (estimators, results built by hand and
pickled, motion types, simulate, design_excitation, identify_payload, export, read_h5, contacts, threads): what a
forked driver found, each with a test that fails before its fix."""
import numpy as np
import pytest

import baseparam as bp
from conftest import planar_arm


@pytest.fixture(scope="module")
def still_log():
    """A simulated log of the planar arm with friction: its effort has no delay behind its positions."""
    model = bp.Model(planar_arm())
    t = np.linspace(0, 4, 400)
    tau = np.column_stack([3 * np.sin(2 * t), 2 * np.cos(3 * t), np.sin(5 * t)])
    return bp.simulate(model, t, np.zeros(3), np.zeros(3), tau)


@pytest.mark.parametrize("max_delay", [None, 0.02, 0.05])
def test_a_delay_at_the_end_of_the_search_is_refused_not_returned(still_log, max_delay):
    """estimate_delay returned the end of its search when the residual fell all the way to it: −100.3 ms for this log
    without delay (beyond the default bound of 0.1 s: 10 whole steps of 10.025 ms), −20.05 ms for max_delay=0.02,
    and read_trajectory(delay='auto') applied it in silence. No minimum lies within the shifts searched: refused."""
    with pytest.raises(bp.DataError, match=r"field tau: the effort's fit is best at the end of the shifts searched "
                                           r"\(-\d+\.?\d* ms; max_delay .*give robot="):
        bp.estimate_delay(still_log, max_delay=max_delay)


def test_a_delay_found_inside_the_search_is_returned_as_before(still_log):
    """...while a least residual inside the search is the estimate, as before (within the bound given)."""
    robot = planar_arm()
    found = bp.estimate_delay(still_log, robot)
    assert found.method == "robot model" and abs(found.seconds) < 0.01
    assert abs(bp.estimate_delay(still_log, robot, max_delay=0.05).seconds) <= 0.05
