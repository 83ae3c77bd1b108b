"""Fuzz round twenty-three, the Python API beyond the dynamics functions (estimators, results built by hand and
pickled, motion types, simulate, design_excitation, identify_payload, export, read_h5, contacts, threads): what a
forked driver found, each with a test that fails before its fix."""
import dataclasses
import pickle
import warnings

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



def _made_alike():
    """Results made twice alike (the second its pickled copy: nothing shared), and one made otherwise."""
    robot = planar_arm()
    base = bp.find_base_parameters(robot)
    t = np.linspace(0, 1, 50)
    log = bp.Trajectory(t=t, q=np.outer(t, [1.0, 2.0, 3.0]), tau=np.ones((50, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)
        fit = bp.identify(robot, (log.q, log.q, log.q, log.tau), preprocessing=None)
    limits = bp.MotionLimits(lower=-np.ones(3), upper=np.ones(3), velocity=np.ones(3), acceleration=np.ones(3),
                             torque=np.full(3, np.inf))
    made = {"Trajectory": (log, dataclasses.replace(log, source="other")),
            "Processed": (bp.preprocess(log, bp.Preprocessing.none()),
                          bp.preprocess(dataclasses.replace(log, tau=2 * log.tau), bp.Preprocessing.none())),
            "BaseParameters": (base, bp.find_base_parameters(robot, "khalil")),
            "MotionLimits": (limits, dataclasses.replace(limits, lower=-2 * np.ones(3))),
            "Metrics": (fit.train, dataclasses.replace(fit.train, n_samples=3))}
    return {name: (one, pickle.loads(pickle.dumps(one)), other) for name, (one, other) in made.items()}


@pytest.mark.parametrize("name", ["Trajectory", "Processed", "BaseParameters", "MotionLimits", "Metrics"])
def test_results_made_alike_compare_equal_not_raise(name):
    """A result holding arrays compared with one made alike (its pickled copy) raised numpy's "The truth value of an
    array with more than one element is ambiguous" ValueError (the dataclass's == compares a tuple of arrays): 14
    public types (Trajectory, Processed, Reference, BaseParameters, MotionLimits, ExcitationDesign, Metrics,
    TrackingRun, FitErrors, IdentificationErrors, SavedExcitation, MotionComparison, FloatingExperiment,
    FloatingIdentification). Now field by field, arrays number for number."""
    one, copy, other = _made_alike()[name]
    assert one == copy and not (one != copy)
    assert one != other and not (one == other)
    assert one != "a result"


def test_a_nan_in_a_result_equals_the_nan_of_its_copy():
    """...a NaN in an array (a prediction's lone sample) equal to its copy's, as numbers are."""
    metrics = _made_alike()["Metrics"][0]
    predicted = metrics.predicted.copy()
    predicted[0, 0] = np.nan
    with_nan = dataclasses.replace(metrics, predicted=predicted)
    assert with_nan == pickle.loads(pickle.dumps(with_nan)) and with_nan != metrics


def test_hashing_is_as_before():
    """Hashing is the dataclass's: a TypeError for a result holding arrays (mutable Metrics: unhashable)."""
    made = _made_alike()
    for name in ("Trajectory", "BaseParameters", "Metrics"):
        with pytest.raises(TypeError):
            hash(made[name][0])
