"""bench/_payload_bound.py: the Cramér–Rao bound of a motion against the fit's own standard deviations, and the
bounds for any motion within limits below the bound of one such motion; bench/_bang_bang.py's motions within
their limits at every instant."""
import sys

import numpy as np

import baseparam as bp
from baseparam.identification.payload import identify_payload
from conftest import ROOT

sys.path.insert(0, str(ROOT / "notebooks"))
sys.path.insert(0, str(ROOT / "bench"))
from _helpers import multisine, simulated_log  # noqa: E402  (notebooks/ is on the path just above)
from _bang_bang import DENSE, bang_bang, fitted  # noqa: E402
from _payload_bound import crb, information, motion_bound, speed_noise, state_bound  # noqa: E402

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


def test_one_motion_for_six_elements_bound():
    """The bound on the largest element (one motion serving the six) is at least each element's own bound and
    below the largest element's bound of motions within the limits: the multi-sine, and samples drawn at the
    vertices of the q̇ and q̈ boxes (where a sample's information peaks) — states no motion could string together,
    so a harder test than a motion."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    dt = 0.01
    _, q, qd, qdd = multisine(robot.n_dof, dt, duration=10.0)
    limits = (q.min(axis=0), q.max(axis=0), np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0))
    bound = motion_bound(robot, NOISE, limits, PAYLOAD, samples=len(q), starts=300, refine=1, rounds=2)
    # its weights include each element alone (state_bound's, from the same states), so it is never below that
    state = state_bound(robot, NOISE, limits, PAYLOAD, samples=len(q), starts=300, refine=1)
    assert bound >= 0.99 * state.max(), (bound, state.max())
    rng = np.random.default_rng(4)
    vertex = (rng.uniform(limits[0], limits[1], q.shape), rng.choice([-1.0, 1.0], q.shape) * limits[2],
              rng.choice([-1.0, 1.0], q.shape) * limits[3])
    for motion in ((q, qd, qdd), vertex):
        _, _, I_std = crb(information(robot, *motion, NOISE), PAYLOAD)
        assert 0 < bound <= I_std.max(), (bound, I_std.max())


def test_speed_noise_takes_the_bin_of_each_speed():
    """σ(|q̇|) is the RMS of the bin the speed falls in; a bin not measured and speeds past the last edge take the
    nearest measured bin below."""
    sigma = speed_noise([0.0, 0.5, 1.0, 1.5], [[1.0, 2.0], [3.0, np.nan], [np.nan, np.nan]])
    speed = np.array([[0.0, 0.0], [0.49, 0.5], [0.5, 1.2], [1.6, 9.0]])
    assert np.array_equal(sigma(speed), [[1.0, 2.0], [1.0, 2.0], [3.0, 2.0], [3.0, 2.0]])


def test_bound_with_noise_by_speed_below_a_motions():
    """With σ depending on the state's speed, each sample's row weighted by its own σ: a table of equal bins
    gives the constant noise's bound, and with σ growing with speed no motion within the limits beats the
    bound — the motion's information computed here independently, sample by sample."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    dt = 0.01
    _, q, qd, qdd = multisine(robot.n_dof, dt, duration=10.0)
    limits = (q.min(axis=0), q.max(axis=0), np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0))
    edges = [0.0, 0.2, 0.5, 10.0]
    flat = state_bound(robot, NOISE, limits, PAYLOAD, samples=len(q), starts=300, refine=1)
    same = state_bound(robot, speed_noise(edges, [NOISE] * 3), limits, PAYLOAD, samples=len(q), starts=300,
                       refine=1)
    assert np.allclose(same, flat, rtol=1e-9), (same, flat)
    sigma = speed_noise(edges, [NOISE, 2 * NOISE, 4 * NOISE])
    bound = state_bound(robot, sigma, limits, PAYLOAD, samples=len(q), starts=300, refine=1)
    assert np.all(bound > flat)
    from baseparam.dynamics.regressors import evaluate
    from baseparam.model.parameters import ColumnLayout
    W = evaluate(robot, q, qd, qdd, parameters="pseudo", columns=ColumnLayout(robot, "pseudo").link_columns[-1])
    Ww = W / sigma(np.abs(qd))[:, :, None]                                        # each sample's row by its own σ
    F = np.einsum("sjr,sjc->rc", Ww, Ww)
    _, _, I_std = crb(F, PAYLOAD)
    assert np.all(bound <= I_std), (bound, I_std)


def test_bang_bang_within_its_limits_at_every_instant():
    """The Fejér-smoothed bang-bang reaches |q̈| = 5 rad/s² and |q̇| = 1.9 rad/s without exceeding them on a 2 kHz
    grid, stays within A·P²/32 of its centres, has q̇ and q̈ as the derivatives of q (central differences), and
    keeps its acceleration at the limit most of the time (what it is for)."""
    amp, period = fitted(1.9, 5.0)
    rng = np.random.default_rng(0)
    phase, centre = rng.uniform(-np.pi, np.pi, 3), rng.uniform(-1, 1, 3)
    t = np.arange(0, 3 * period, 1 / DENSE)
    q, qd, qdd = bang_bang(t, period, amp, phase, centre)
    assert np.abs(qdd).max() <= 5.0 and np.abs(qdd).max() > 0.999 * 5.0
    assert np.abs(qd).max() <= 1.9 and np.abs(qd).max() > 0.999 * 1.9
    assert np.all(np.abs(q - centre) <= amp * period ** 2 / 32)
    h = 1 / DENSE
    assert np.allclose((q[2:] - q[:-2]) / (2 * h), qd[1:-1], atol=1e-5)
    assert np.allclose((qd[2:] - qd[:-2]) / (2 * h), qdd[1:-1], atol=1e-3)
    assert np.mean(np.abs(qdd) > 0.9 * 5.0) > 0.75


def test_test_functions_average_to_zero_over_a_period():
    """The conservation laws the occupation bound imposes hold on a real motion: over whole periods of a
    multi-sine every g_k (a time derivative dφ_k/dt) averages to 0 (to the Riemann sum's error; a wrong
    derivative or factor leaves a mean of the order of the values themselves), and over a part of a period the
    mean stays within the ±1 the scaling by T/r_k promises."""
    from _payload_bound import _test_functions
    n, dt = 6, 0.001
    t, q, qd, qdd = multisine(n, dt, duration=10.0, period=10.0)
    limits = (q.min(axis=0) - 0.1, q.max(axis=0) + 0.1, np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0))
    g = _test_functions(limits, duration=10.0, harmonics=2, products=(3, 4, 5))(np.concatenate([q, qd, qdd], axis=1))
    assert g.shape[1] == 6 + 6 * 4 + 36 * 5 + 6 * 5 + 15 + 3 * (16 + 6 * 16)
    assert np.abs(g.mean(axis=0)).max() < 1e-3 * np.abs(g).max(), np.abs(g.mean(axis=0)).max()
    for part in (0.3, 0.5, 0.8):            # not periodic over a share of the period: |mean| ≤ 1 (duration T·part)
        S = int(part * len(t))
        g = _test_functions(limits, duration=part * 10.0, harmonics=2, products=(3, 4, 5))(
            np.concatenate([q, qd, qdd], axis=1)[:S])
        assert np.abs(g.mean(axis=0)).max() <= 1.0
        assert np.abs(g.mean(axis=0)).max() > 0.05        # the bound is not vacuous: some φ_k changes


def test_cubic_speed_laws_average_to_zero_over_a_period():
    """The laws cubic in the speeds (φ = q̇_i q̇_j q̇_k, i ≤ j ≤ k) are conservation laws of a real motion: over a
    period of a multi-sine each averages to 0 (a wrong derivative, e.g. one of its three terms missing, leaves a
    mean of the order of the values), and over a part of it stays within the ±1 its scaling promises."""
    from _payload_bound import _test_functions
    n, dt = 6, 0.001
    t, q, qd, qdd = multisine(n, dt, duration=10.0, period=10.0)
    limits = (q.min(axis=0) - 0.1, q.max(axis=0) + 0.1, np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0))
    x = np.concatenate([q, qd, qdd], axis=1)
    plain = _test_functions(limits, duration=10.0, harmonics=2)(x)
    g = _test_functions(limits, duration=10.0, harmonics=2, cubic=True)(x)
    cubic = g[:, plain.shape[1]:]
    assert np.array_equal(g[:, :plain.shape[1]], plain) and cubic.shape[1] == 56      # C(n + 2, 3) triples
    assert np.abs(cubic.mean(axis=0)).max() < 1e-3 * np.abs(cubic).max(), np.abs(cubic.mean(axis=0)).max()
    for part in (0.3, 0.5, 0.8):
        S = int(part * len(t))
        mean = _test_functions(limits, duration=part * 10.0, harmonics=2, cubic=True)(x[:S])[:, plain.shape[1]:]
        assert np.abs(mean.mean(axis=0)).max() <= 1.0
        assert np.abs(mean.mean(axis=0)).max() > 0.05


def test_occupation_bound_between_motion_bound_and_motions():
    """The occupation-measure bound is never below the bound over motions (whose certificate it includes) and
    never above the Cramér–Rao bound of real motions within the same limits: the multi-sine, and the bang-bang
    of every joint (|q̈| at its limit most of the time), sampled as the bound assumes."""
    from _payload_bound import occupation_bound
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    dt = 0.01
    _, q, qd, qdd = multisine(robot.n_dof, dt, duration=10.0)
    limits = (q.min(axis=0), q.max(axis=0), np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0))
    shared = motion_bound(robot, NOISE, limits, PAYLOAD, samples=len(q), starts=300, refine=1, rounds=1)
    bound, ceiling, history = occupation_bound(robot, NOISE, limits, PAYLOAD, samples=len(q), duration=10.0,
                                               starts=300, refine=1, rounds=2)
    assert len(history) == 2 and all(M >= value > 0 for value, M in history)   # certified max ≥ the program's
    assert 0 < bound <= ceiling
    floored = occupation_bound(robot, NOISE, limits, PAYLOAD, samples=len(q), duration=10.0, starts=300, refine=1,
                               rounds=1, floor=shared)[0]
    assert floored >= shared
    _, _, I_std = crb(information(robot, q, qd, qdd, NOISE), PAYLOAD)
    assert 0 < bound <= I_std.max(), (bound, I_std.max())
    amp, period = fitted(limits[2].min(), limits[3].min())
    centre = 0.5 * (limits[0] + limits[1])
    t = np.arange(0, 10.0, dt)
    motion = bang_bang(t, period, amp, np.linspace(0, np.pi, robot.n_dof), centre)
    assert all(np.all(np.abs(m - c) <= lim) for m, c, lim in zip(motion, (centre, 0, 0), (
        0.5 * (limits[1] - limits[0]), limits[2], limits[3])))
    _, _, I_std = crb(information(robot, *motion, NOISE), PAYLOAD)
    assert bound <= I_std.max(), (bound, I_std.max())
