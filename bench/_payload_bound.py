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
    at states x (S, 3n) = (q, q̇, q̈), the rows weighted by the joints' noise: ``noise`` (n,) N·m, or a function
    |q̇| (S, n) → σ (S, n) for noise that depends on the state (the sample's own σ weights its row; the bounds'
    argument holds for any σ known per sample)."""
    from baseparam.dynamics.regressors import evaluate
    from baseparam.model.parameters import ColumnLayout

    columns = ColumnLayout(robot, "pseudo").link_columns[-1]
    n = robot.n_dof
    B = _directions(payload)

    def info(x):
        W = evaluate(robot, x[:, :n], x[:, n:2 * n], x[:, 2 * n:], parameters="pseudo", columns=columns)  # (S, n, 10)
        sigma = noise(np.abs(x[:, n:2 * n])) if callable(noise) else np.asarray(noise, float)[None, :]
        return np.einsum("sje->se", (np.einsum("sjc,ec->sje", W, B) / sigma[:, :, None]) ** 2)
    return info


def speed_noise(edges, levels):
    """σ(|q̇|), per joint, as a log measured it speed bin by speed bin: the RMS of the bin the speed falls in;
    a bin with too few samples to measure (NaN) and every speed beyond the last edge take the nearest measured
    bin below it (no extrapolation upwards).

    Parameters
    ----------
    edges : ndarray, shape (B + 1,)
        Bin edges (rad/s), increasing, from 0.
    levels : ndarray, shape (B, n)
        RMS (N·m) per bin and joint; NaN where not measured (the first bin must be measured).

    Returns
    -------
    callable
        |q̇| (S, n) → σ (S, n).
    """
    edges, filled = np.asarray(edges, float), np.array(levels, float)
    for k in range(1, len(filled)):
        filled[k] = np.where(np.isnan(filled[k]), filled[k - 1], filled[k])

    def sigma(speed):
        k = np.clip(np.searchsorted(edges, speed, side="right") - 1, 0, len(filled) - 1)
        return filled[k, np.arange(speed.shape[1])]
    return sigma


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


def _test_functions(limits, duration, harmonics=2, products=(), cubic=False):
    """The motion's conservation laws as functions of a state: g(x) → (S, K), each row scaled so that every
    motion of ``duration`` s within the limits has |time average of g_k| ≤ 1.

    For a test function φ(q, q̇) the time average of dφ/dt = ∂φ/∂q·q̇ + ∂φ/∂q̇·q̈ over a motion of duration T
    is (φ(end) − φ(start))/T, within ±r/T, r the range of φ over the limits' box (0 for a periodic motion).
    The φ (u_j = (q_j − lower_j)/(upper_j − lower_j) ∈ [0, 1], h one of 1, cos kπu_j, sin kπu_j (k ≤
    ``harmonics``), each |h| ≤ 1): q̇_i²/2; h(q_j) alone; h(q_j)·q̇_i for every i, j; h(q_i)·q̇_i²/2; q̇_i·q̇_j (i < j). So
    E[q̇_i q̈_i] = 0, E[q̈_i] = 0, E[h'(q_j) q̇_j] = 0, E[h'(q_j) q̇_j q̇_i + h(q_j) q̈_i] = 0, … up to ±r/T.
    With ``products`` (0-based joints, e.g. the wrist's), for each pair j < k of them and non-constant h_a, h_b
    also φ = h_a(q_j)·h_b(q_k) (range ≤ 2) and h_a(q_j)·h_b(q_k)·q̇_i for every i (range ≤ 2 v_i).
    With ``cubic``, also φ = q̇_i q̇_j q̇_k for every i ≤ j ≤ k (range ≤ 2 v_i v_j v_k): odd in q̇, so binding on a
    motion and its time reverse alike, they constrain E[q̈_i q̇_j q̇_k + …], the products of accelerations and
    squared speeds that the information's cross term (ω̇ against ω × Iω) needs.

    Returns
    -------
    function
        ``x (S, 3n) -> ndarray, shape (S, K)``: g_k·T/r_k, whose time average over any such motion is within ±1.
    """
    lo, hi, vel, _ = (np.asarray(a, float) for a in limits)
    n = len(lo)
    span = hi - lo
    ks = np.arange(1, harmonics + 1)
    i_all, j_all = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    i_pairs, j_pairs = np.triu_indices(n, 1)

    def g(x):
        q, qd, qdd = x[:, :n], x[:, n:2 * n], x[:, 2 * n:]
        u = np.pi * (q - lo) / span                                    # (S, n)
        # h and dh/dq per joint: (S, n, H), H = 1 + 2·harmonics (the constant first)
        ku = u[:, :, None] * ks
        h = np.concatenate([np.ones_like(u)[:, :, None], np.cos(ku), np.sin(ku)], axis=2)
        dh = np.concatenate([np.zeros_like(u)[:, :, None], -np.sin(ku) * ks, np.cos(ku) * ks], axis=2) \
            * (np.pi / span)[None, :, None]
        out = [qd * qdd / (vel ** 2 / 2),                                               # φ = q̇_i²/2
               (dh[:, :, 1:] * qd[:, :, None]).reshape(len(x), -1) / 2.0]               # φ = h(q_j), range ≤ 2
        # φ = h(q_j) q̇_i: dh(q_j) q̇_j q̇_i + h(q_j) q̈_i, range ≤ 2 v_i
        hj, dhj = h[:, j_all.ravel()], dh[:, j_all.ravel()]                            # (S, n², H)
        qd_i, qd_j, qdd_i = qd[:, i_all.ravel()], qd[:, j_all.ravel()], qdd[:, i_all.ravel()]
        term = (dhj * (qd_j * qd_i)[:, :, None] + hj * qdd_i[:, :, None]) / (2 * vel[i_all.ravel()])[None, :, None]
        out.append(term.reshape(len(x), -1))
        # φ = h(q_i) q̇_i²/2: dh(q_i) q̇_i³/2 + h(q_i) q̇_i q̈_i, range ≤ v_i²
        out.append(((dh * (qd ** 3 / 2)[:, :, None] + h * (qd * qdd)[:, :, None]) /
                    (vel ** 2)[None, :, None]).reshape(len(x), -1))
        # φ = q̇_i q̇_j: q̈_i q̇_j + q̇_i q̈_j, range ≤ 2 v_i v_j
        out.append((qdd[:, i_pairs] * qd[:, j_pairs] + qd[:, i_pairs] * qdd[:, j_pairs]) /
                   (2 * vel[i_pairs] * vel[j_pairs]))
        for j, k in pairs:
            # φ = h_a(q_j) h_b(q_k): its derivative D = h_a' q̇_j h_b + h_a h_b' q̇_k; times q̇_i: D q̇_i + h_a h_b q̈_i
            H = h[:, j, 1:, None] * h[:, k, None, 1:]                                   # (S, a, b)
            D = dh[:, j, 1:, None] * qd[:, j, None, None] * h[:, k, None, 1:] + \
                h[:, j, 1:, None] * dh[:, k, None, 1:] * qd[:, k, None, None]
            out.append(D.reshape(len(x), -1) / 2.0)
            out.append(((D[:, None] * qd[:, :, None, None] + H[:, None] * qdd[:, :, None, None]) /
                        (2 * vel)[None, :, None, None]).reshape(len(x), -1))
        for i, j, k in triples:
            # φ = q̇_i q̇_j q̇_k: q̈_i q̇_j q̇_k + q̇_i q̈_j q̇_k + q̇_i q̇_j q̈_k, range ≤ 2 v_i v_j v_k
            out.append(((qdd[:, i] * qd[:, j] * qd[:, k] + qd[:, i] * qdd[:, j] * qd[:, k] +
                         qd[:, i] * qd[:, j] * qdd[:, k]) / (2 * vel[i] * vel[j] * vel[k]))[:, None])
        return duration * np.concatenate(out, axis=1)
    triples = [(i, j, k) for i in range(n) for j in range(i, n) for k in range(j, n)] if cubic else []
    pairs = [(j, k) for a, j in enumerate(products) for k in products[a + 1:]]
    return g


LP_METHOD = "highs"


def _ascent(values, x0, box, step=1e-6):
    """A local maximum of ``values`` (states (S, d) → (S,)) from x0 within the box (L-BFGS-B), its gradient
    by central differences evaluated in one batch of 2d + 1 states (one call of the regressor, not 2d)."""
    from scipy.optimize import minimize

    d = len(x0)
    width = np.array([b - a for a, b in box])
    h = step * np.maximum(width, 1e-3)

    def negative(x):
        X = np.vstack([x, x + np.diag(h), x - np.diag(h)])
        v = values(X)
        return -v[0], -(v[1:d + 1] - v[d + 1:]) / (2 * h)
    # the differences may step past the box by h: the functions are smooth polynomials and trigonometry there
    return minimize(negative, x0, jac=True, method="L-BFGS-B", bounds=box, options={"maxiter": 300}).x


def occupation_bound(robot, noise, limits, payload, samples, duration, starts=20000, refine=6, rounds=4, seed=0,
                     harmonics=2, floor=None, products=(), cubic=False):
    """A lower bound on the LARGEST of the inertia's six standard deviations for any motion of ``duration`` s
    (``samples`` samples) within the limits, tighter than :func:`motion_bound`: the time average of a motion is
    not any mixture of states, it satisfies the motion's conservation laws (:func:`_test_functions`).

    Proof. Let x(t) = (q, q̇, q̈)(t), 0 ≤ t ≤ T = ``duration``, be a motion within the limits (q̇ continuous) and
    Ē[·] its time average; the samples' information about element e is x_e = N·Ē[f_e] (N = ``samples``; the
    sum over samples taken as N times the time average, as for any motion band-limited well below the
    sampling rate). For every test function φ_k(q, q̇), Ē[dφ_k/dt] = (φ_k(x(T)) − φ_k(x(0)))/T, so the scaled
    g_k of :func:`_test_functions` have |Ē[g_k]| ≤ 1. Then for any weights π (π_e ≥ 0, Σ_e π_e = 1) and any
    multipliers λ ∈ R^K,

        min_e Ē[f_e] ≤ Σ_e π_e Ē[f_e] = Ē[π·f + λ·g] − λ·Ē[g] ≤ max over states in the limits' box of
        (π·f(x) + λ·g(x)) + Σ_k |λ_k| =: M(π, λ),

    and as in :func:`motion_bound` max_e σ_e² ≥ 1/min_e x_e ≥ 1/(N·M(π, λ)). With λ = 0 this is
    :func:`motion_bound`'s figure for that π, so the best (π, λ) is never worse. (π, λ) come from a linear
    program over a finite set of states — the dual of max t over weights w ≥ 0 on the states, Σw = 1,
    t ≤ Σ_i w_i f_e(x_i) for each e and |Σ_i w_i g_k(x_i)| ≤ 1 (an occupation-measure relaxation: the time
    average of any feasible motion is such a measure) — solved by HiGHS; the maximum in M is then searched
    over the whole box (random states and bounded ascents from the ``refine`` best), the states found are
    added and the program solved again, ``rounds`` times. Every round's M gives a bound, up to that search
    finding the global maximum (the caveat of :func:`state_bound` and :func:`motion_bound`); the largest is
    returned, and ``floor`` (e.g. :func:`motion_bound`'s figure, itself a bound) if larger. The first states are
    random (q uniform, q̇ half at the vertices of its box and half inside, q̈ at the vertices) and the per-state
    optimizers (ascents of each element's f_e and of their mean); a round whose program has no feasible
    mixture of the states found (few states, many laws) only draws more.

    Parameters
    ----------
    As :func:`motion_bound`; ``duration`` in s; ``harmonics`` of the test functions in each joint's position,
    ``products`` the joints whose pairs' products of them are test functions too, ``cubic`` the products of three
    speeds (:func:`_test_functions`).

    Returns
    -------
    bound : float
        The bound on max_e σ_e (kg·m²).
    ceiling : float
        The most these conservation laws can prove: 1/√(N·V), V the last program's value over the states
        found. The program over every state in the box has a value V* ≥ V (more states, more to choose from),
        and every certificate M(π, λ) ≥ V* (weak duality), so no search, however long, certifies more than this
        with these test functions (up to the search for :func:`motion_bound`'s figure, which the bound adds).
    history : list of (float, float)
        Per round: the linear program's value over the states so far and the certified M (both in units of
        the largest sampled information), whose ratio shows how far the search moved the figure.
    """
    from scipy.optimize import linprog

    lo, hi, vel, acc = (np.asarray(a, float) for a in limits)
    n = robot.n_dof
    rng = np.random.default_rng(seed)
    info = _state_information(robot, noise, payload)
    tests = _test_functions(limits, duration, harmonics, tuple(products), cubic)
    box = [(a, b) for a, b in zip(lo, hi)] + [(-v, v) for v in vel] + [(-a, a) for a in acc]

    def draw(count):                    # q uniform; q̇ half at the vertices, half inside; q̈ at the vertices
        qd = rng.choice([-1.0, 1.0], (count, n)) * vel
        inside = rng.random(count) < 0.5
        qd[inside] = rng.uniform(-vel, vel, (int(inside.sum()), n))
        return np.concatenate([rng.uniform(lo, hi, (count, n)), qd,
                               rng.choice([-1.0, 1.0], (count, n)) * acc], axis=1)

    X = draw(starts)
    f = info(X)
    scale = f.max()
    # the per-state optimizers among the states: each element's (state_bound's) and the elements' mean's
    top = [_ascent(lambda x: info(x) @ pi / scale, X[s], box) for pi in np.r_[np.eye(6), np.full((1, 6), 1 / 6)]
           for s in np.argsort(f @ pi)[-refine:]]
    X = np.vstack([X, top])
    f, g = np.vstack([f, info(np.array(top))]), tests(X)
    best, history, ceiling = 0.0 if floor is None else float(floor) ** 2, [], np.inf
    K = g.shape[1]
    for _ in range(rounds):
        # the program over the states' weights w: max t, t ≤ Σ_i w_i f_ie (each e), |Σ_i w_i g_ik| ≤ 1, Σw = 1;
        # its multipliers are (π, λ) (few rows, many columns: HiGHS's simplex solves it in seconds)
        S = len(X)
        A_ub = np.block([[-(f / scale).T, np.ones((6, 1))], [g.T, np.zeros((K, 1))], [-g.T, np.zeros((K, 1))]])
        lp = linprog(np.r_[np.zeros(S), -1.0], A_ub=A_ub, b_ub=np.r_[np.zeros(6), np.ones(2 * K)],
                     A_eq=np.r_[np.ones(S), 0.0][None], b_eq=[1.0], bounds=[(0, None)] * S + [(None, None)],
                     method=LP_METHOD)
        if lp.status != 0:         # no mixture of these states keeps the laws (too few states): draw more
            history.append((float("nan"), float("nan")))
            fresh = draw(starts)
            X, f, g = np.vstack([X, fresh]), np.vstack([f, info(fresh)]), np.vstack([g, tests(fresh)])
            continue
        y = -lp.ineqlin.marginals                                   # ≥ 0: the rows' shadow prices
        pi, lam = np.clip(y[:6], 0, None), y[6 + K:] - y[6:6 + K]
        pi /= pi.sum()

        def lagrangian(x):
            return info(x) @ pi / scale + tests(x) @ lam
        fresh = draw(starts)
        candidates = np.vstack([X, fresh])
        values = np.r_[f @ pi / scale + g @ lam, lagrangian(fresh)]
        top = np.array([_ascent(lagrangian, candidates[s], box) for s in np.argsort(values)[-refine:]])
        peak = max(values.max(), lagrangian(top).max())
        M = peak + np.abs(lam).sum()
        history.append((float(-lp.fun), float(M)))
        best = max(best, 1.0 / (samples * scale * M))
        ceiling = 1.0 / (samples * scale * -lp.fun)
        keep = np.argsort(values[S:])[-starts // 10:]               # the fresh states the multipliers favour most
        X = np.vstack([X, fresh[keep], top])
        f, g = np.vstack([f, info(fresh[keep]), info(top)]), np.vstack([g, tests(fresh[keep]), tests(top)])
    return float(np.sqrt(best)), float(np.sqrt(ceiling)), history
