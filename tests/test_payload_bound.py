"""bench/_payload_bound.py: the Cramér–Rao bound of a motion against the fit's own standard deviations, and the
bound for any motion within limits below the bound of one such motion."""
import sys

import numpy as np

import baseparam as bp
from baseparam.identification.payload import identify_payload
from conftest import ROOT

sys.path.insert(0, str(ROOT / "notebooks"))
sys.path.insert(0, str(ROOT / "bench"))
from _helpers import multisine, simulated_log  # noqa: E402  (notebooks/ is on the path just above)
from _payload_bound import crb, information, state_bound  # noqa: E402

PAYLOAD = (1.5, np.array([0.03, -0.02, 0.06]), np.array([[0.012, 0.002, 0.0], [0.002, 0.010, 0.001],
                                                         [0.0, 0.001, 0.006]]))
NOISE = np.array([0.8, 0.8, 0.5, 0.2, 0.1, 0.05])


def test_the_fit_reaches_the_bound_of_its_motion():
    """The fit is efficient: its standard deviations (a residual-weighted OLS, inflated for the low-pass's
    correlation; its weights and σ from one noisy draw) are those the Fisher information of the noiseless
    motion allows, up to the spread of one draw (0.9–1.7× here, geometric mean 1.25; 12 draws' RMS errors
    agree with the bound to 10–40 %, the constrained inertia's below it: the fit's σ are a little cautious)."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    dt = 0.01
    t, q, qd, qdd = multisine(robot.n_dof, dt, duration=10.0)
    r = identify_payload(robot, simulated_log(robot, PAYLOAD, NOISE, dt, seed=3, motion=(t, q, qd, qdd)))
    m_std, c_std, I_std = crb(information(robot, q, qd, qdd, NOISE), PAYLOAD)
    ratios = np.concatenate([[r.mass_std / m_std], r.com_std / c_std, (r.inertia_std / I_std)[np.triu_indices(3)]])
    assert np.all((0.7 < ratios) & (ratios < 2.0)), ratios
    assert 0.9 < np.exp(np.mean(np.log(ratios))) < 1.5, ratios


def test_no_motion_beats_the_bound_for_any_motion():
    """The bound over all motions within the limits is below the bound of a motion within them, element by
    element (a wrong direction, scale or square root in it would break this)."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    dt = 0.01
    _, q, qd, qdd = multisine(robot.n_dof, dt, duration=10.0)
    n = robot.n_dof
    limits = (q.min(axis=0), q.max(axis=0), np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0))
    bound = state_bound(robot, NOISE, limits, PAYLOAD, samples=len(q), starts=300, refine=1)
    _, _, I_std = crb(information(robot, q, qd, qdd, NOISE), PAYLOAD)
    assert bound.shape == (3, 3) and np.all(bound > 0)
    assert np.all(bound <= I_std), (bound, I_std)
    assert n == 6
