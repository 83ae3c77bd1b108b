"""Cramér–Rao bounds on a payload's inertia for a given motion and per-joint torque noise (bench_payload.py).

With the robot model known, the payload torques are linear in its 10 pseudo parameters p:
τ_t = W_t p + e_t, e_t ~ N(0, diag(σ_j²)) independent from sample to sample (white at the log's rate). The
Fisher information is F = Σ_t W_tᵀ diag(σ_j⁻²) W_t, and no unbiased estimator of any function g(p) does better
than cov ≥ (∂g/∂p) F⁻¹ (∂g/∂p)ᵀ. Here g is the inertia about the centre of mass (mass, centre and inertia
from p, as :func:`baseparam.identification.payload.payload_physical`), so the bound already counts what the
inertia about the centre loses to the mass's and the centre's own uncertainty.

Noise of another colour enters through its power spectral density at the motion's frequencies only (Whittle):
white noise of σ_j at the log's rate f_s stands for a spectrum 2σ_j²/f_s, which is how the measured noise of
the real logs is expressed (``lwr4_noise``).
"""
import numpy as np

from baseparam.identification.payload import payload_parameters, payload_physical


def information(robot, q, qd, qdd, noise):
    """Fisher information of the payload's 10 pseudo parameters, shape (10, 10).

    Parameters
    ----------
    robot : Robot
    q, qd, qdd : ndarray, shape (S, n)
        The motion's samples at the log's rate.
    noise : ndarray, shape (n,)
        White torque noise per joint (N·m) at that rate.
    """
    from baseparam.dynamics.regressors import evaluate
    from baseparam.model.parameters import ColumnLayout

    columns = ColumnLayout(robot, "pseudo").link_columns[-1]
    W = evaluate(robot, q, qd, qdd, parameters="pseudo", columns=columns)          # (S, n, 10)
    Ww = W / np.asarray(noise, float)[None, :, None]
    return np.einsum("sjr,sjc->rc", Ww, Ww)


def _inertia(p):
    m, c, I = payload_physical(p)
    return np.concatenate([[m], c, I[np.triu_indices(3)]])


def crb(F, payload):
    """The bound's standard deviations of mass, centre (3,) and inertia about the centre (3, 3).

    Parameters
    ----------
    F : ndarray, shape (10, 10)
    payload : (mass, com (3,), inertia (3, 3))

    Returns
    -------
    mass_std : float
    com_std : ndarray, shape (3,)
    inertia_std : ndarray, shape (3, 3)
    """
    p = payload_parameters(*payload)
    g0 = _inertia(p)
    J = np.zeros((len(g0), 10))
    for k in range(10):          # the map is a rational function of p: central differences are exact to ~1e-10
        h = 1e-6 * max(abs(p[k]), 1e-3)
        d = np.zeros(10)
        d[k] = h
        J[:, k] = (_inertia(p + d) - _inertia(p - d)) / (2 * h)
    s = np.sqrt(np.diag(J @ np.linalg.inv(F) @ J.T))
    I = np.zeros((3, 3))
    I[np.triu_indices(3)] = s[4:]
    return float(s[0]), s[1:4], I + np.triu(I, 1).T


def _directions(payload):
    """Changes of the 10 pseudo parameters that move one element of the inertia about the centre by 1 kg·m²
    (mass and centre held): the six elements' b_e, shape (6, 10), in the order of np.triu_indices(3)."""
    _, com, _ = payload
    out = []
    for a, b in zip(*np.triu_indices(3)):
        E = np.zeros((3, 3))
        E[a, b] = E[b, a] = 1.0
        out.append(payload_parameters(0.0, com, E))      # linear in the inertia; mass 0 drops the centre's terms
    return np.array(out)


def _state_information(robot, noise, payload):
    """f(x) → (S, 6): one sample's information f_e about each inertia element e (b_e as in :func:`state_bound`)
    at states x (S, 3n) = (q, q̇, q̈), the rows weighted by the joints' noise."""
    from baseparam.dynamics.regressors import evaluate
    from baseparam.model.parameters import ColumnLayout

    columns = ColumnLayout(robot, "pseudo").link_columns[-1]
    n = robot.n_dof
    w = 1.0 / np.asarray(noise, float)
    B = _directions(payload)

    def info(x):
        W = evaluate(robot, x[:, :n], x[:, n:2 * n], x[:, 2 * n:], parameters="pseudo", columns=columns)  # (S, n, 10)
        return np.einsum("sje->se", (np.einsum("sjc,ec->sje", W, B) * w[None, :, None]) ** 2)
    return info


def state_bound(robot, noise, limits, payload, samples, starts=20000, refine=12, seed=0):
    """A lower bound on the inertia's standard deviation for ANY motion of ``samples`` samples within the limits.

    For one element I_e of the inertia about the centre and any b with (∂I_e/∂p)·b = 1 (here: the change of
    p that moves I_e alone, mass and centre held), Cauchy–Schwarz gives (∂I_e/∂p) F⁻¹ (∂I_e/∂p)ᵀ ≥ 1 / bᵀFb,
    and bᵀFb = Σ_t f_e(q_t, q̇_t, q̈_t) ≤ samples · max f_e over the states the limits allow, where
    f_e = Σ_j (W(q, q̇, q̈) b)_j² / σ_j² is one sample's information about I_e. So no motion does better than
    σ_e ≥ 1 / √(samples · max f_e): the bound lets every sample sit at the most informative state at once,
    which no motion can (it must also pass through the others), so it is generous to the motion.

    The maximum over states: f_e is a convex quadratic of q̈ (W is affine in q̈), so for given q, q̇ it lies
    at a vertex of the q̈ box; over q and q̇ it is found numerically — ``starts`` random states (q̇ and q̈ at
    the vertices of their boxes) and bounded local ascents from the ``refine`` best. The figure is therefore
    a bound up to the search's finding the global maximum, not a certificate.

    Parameters
    ----------
    robot : Robot
    noise : ndarray, shape (n,)
        White torque noise per joint (N·m) at the log's rate.
    limits : (lower (n,), upper (n,), velocity (n,), acceleration (n,))
    payload : (mass, com (3,), inertia (3, 3))
    samples : int
        Samples of the motion (duration × rate).

    Returns
    -------
    ndarray, shape (3, 3)
        The bound on each element's standard deviation.
    """
    from scipy.optimize import minimize

    lo, hi, vel, acc = (np.asarray(a, float) for a in limits)
    n = robot.n_dof
    rng = np.random.default_rng(seed)
    states = _state_information(robot, noise, payload)

    def info(q, qd, qdd):           # (S, 6): f_e of each state and element
        return states(np.concatenate([q, qd, qdd], axis=1))

    q = rng.uniform(lo, hi, (starts, n))
    qd = rng.choice([-1.0, 1.0], (starts, n)) * vel
    qdd = rng.choice([-1.0, 1.0], (starts, n)) * acc
    f = info(q, qd, qdd)
    best = f.max(axis=0)
    box = [(a, b) for a, b in zip(lo, hi)] + [(-v, v) for v in vel] + [(-a, a) for a in acc]
    for e in range(6):
        for s in np.argsort(f[:, e])[-refine:]:
            x0 = np.concatenate([q[s], qd[s], qdd[s]])
            r = minimize(lambda x: -info(x[None, :n], x[None, n:2 * n], x[None, 2 * n:])[0, e], x0,
                         method="L-BFGS-B", bounds=box, options={"maxiter": 200})
            best[e] = max(best[e], -r.fun)
    out = np.zeros((3, 3))
    out[np.triu_indices(3)] = 1.0 / np.sqrt(samples * best)
    return out + np.triu(out, 1).T


def motion_bound(robot, noise, limits, payload, samples, starts=20000, refine=6, rounds=3, seed=0):
    """A lower bound on the LARGEST of the inertia's six standard deviations for any motion of ``samples``
    samples within the limits: one motion serves the six elements at once.

    :func:`state_bound` bounds each element alone, as if the whole motion sat at that element's best state;
    but the elements' best states differ, and a motion's time spent on one is taken from the others. With
    x_e = b_eᵀFb_e (b_e as in :func:`state_bound`, σ_e² ≥ 1/x_e), any weights π on the six elements (π_e ≥ 0,
    Σ_e π_e = 1) give min_e x_e ≤ Σ_e π_e x_e = Σ_t Σ_e π_e f_e(state_t) ≤ samples · M(π), M(π) = max over the
    states of Σ_e π_e f_e, so

        max_e σ_e² ≥ 1 / min_e x_e ≥ 1 / (samples · M(π)).

    π at a vertex (one element) is :func:`state_bound`; the best π is the one with the least M(π), a convex
    function (a maximum of linear ones): found by rounds of a linear program, min over π of the largest
    Σ_e π_e f_e over the states found so far, whose π is then maximized over every state (random starts, q̇
    and q̈ at the vertices of their boxes, and bounded ascents from the ``refine`` best) and the states it
    finds added. Every round's figure is a bound, up to that search finding the global maximum of M(π) (as
    :func:`state_bound`'s); the largest is returned. It is never below :func:`state_bound`'s largest element
    (its π among those tried) and above it by up to √6 when each element needs a state of its own.

    Parameters
    ----------
    As :func:`state_bound`; ``rounds`` of weights.

    Returns
    -------
    float
        The bound on max_e σ_e (kg·m²).
    """
    from scipy.optimize import linprog, minimize

    lo, hi, vel, acc = (np.asarray(a, float) for a in limits)
    n = robot.n_dof
    rng = np.random.default_rng(seed)
    info = _state_information(robot, noise, payload)            # (S, 6) of states x (S, 3n)

    X = np.concatenate([rng.uniform(lo, hi, (starts, n)), rng.choice([-1.0, 1.0], (starts, n)) * vel,
                        rng.choice([-1.0, 1.0], (starts, n)) * acc], axis=1)
    f = info(X)
    scale = f.max()                                             # the LP in units of order 1
    box = [(a, b) for a, b in zip(lo, hi)] + [(-v, v) for v in vel] + [(-a, a) for a in acc]
    best = 0.0
    pis = list(np.eye(6))                                       # the vertices first: state_bound's π
    for _ in range(rounds + 1):
        for pi in pis:
            top = []
            for s in np.argsort(f @ pi)[-refine:]:
                r = minimize(lambda x: -(info(x[None])[0] @ pi) / scale, X[s], method="L-BFGS-B", bounds=box,
                             options={"maxiter": 200})
                top.append(r.x)
            X = np.vstack([X, top])
            f = np.vstack([f, info(np.array(top))])
            best = max(best, 1.0 / (samples * (f @ pi).max()))
        # min over π of max_i π·f_i: variables (π, t), t ≥ f_i·π, Σπ = 1
        lp = linprog(np.r_[np.zeros(6), 1.0], A_ub=np.c_[f / scale, -np.ones(len(f))], b_ub=np.zeros(len(f)),
                     A_eq=np.r_[np.ones(6), 0.0][None], b_eq=[1.0], bounds=[(0, None)] * 6 + [(None, None)],
                     method="highs")
        pis = [np.clip(lp.x[:6], 0, None) / np.clip(lp.x[:6], 0, None).sum()]
    return float(np.sqrt(best))
