"""Bang-bang motions for the payload bench (bench_payload.py): the family the any-motion bound points at.

:func:`_payload_bound.state_bound` puts q̈ at a vertex of its box on every sample. A multi-sine of a few
harmonics cannot stay there; a bang-bang acceleration can: joint j's q̈ is a square wave of ±A (period P, the
same for every joint, phase φ_j), so q̇ is a triangle wave of ±A·P/4 and q a chain of parabolas about a centre
c_j, of amplitude A·P²/32. Made realistic by Fejér's mean of its Fourier series up to ``band`` Hz (odd
harmonics of 1/P): the mean is a convolution with a non-negative kernel of unit mass, so |q̈| ≤ A, |q̇| ≤ A·P/4
and |q − c| ≤ A·P²/32 hold at every instant, edges rounded over about 1/band s. A is then raised (and P
lengthened) until the smoothed q̈ and q̇ reach the limits on a 2 kHz grid, and the limits are checked there.

Centres and phases are chosen by a few bounded quasi-Newton starts minimizing the A-optimal criterion
(the sum of the six variances of the payload's inertia about its centre, :func:`_payload_bound.crb`, mass and
centre unknown too) for a given payload and noise, over one period (the motion repeats it).
"""
import numpy as np

DENSE = 2000.0          # Hz: the grid the limits are checked on


def bang_bang(t, period, acc, phase, centre, band=10.0):
    """q, q̇, q̈ (each shape (S, n)) at times t (S,) of the Fejér-smoothed square-wave accelerations."""
    t = np.asarray(t, float)[:, None]
    phase, centre = np.asarray(phase, float), np.asarray(centre, float)
    w = 2 * np.pi / period
    K = int(band * period)
    q, qd, qdd = (np.zeros((len(t), len(phase))) for _ in range(3))
    for k in range(1, K + 1, 2):
        a = (1 - k / (K + 1)) * 4 * acc / (np.pi * k)            # Fejér weight × the square wave's coefficient
        s, c = np.sin(k * w * t + k * phase), np.cos(k * w * t + k * phase)
        qdd += a * s
        qd -= a * c / (k * w)
        q -= a * s / (k * w) ** 2
    return q + centre, qd, qdd


def fitted(velocity, acceleration, band=10.0):
    """The square wave's (acc, period) whose smoothed q̈ and q̇ peak at ``acceleration`` and ``velocity`` (within
    them on the dense grid; the peak velocity grows with acc·period, the peak acceleration with acc alone)."""
    acc, period = acceleration, 4 * velocity / acceleration
    for _ in range(10):
        t = np.arange(0, period, 1 / DENSE)
        _, qd, qdd = bang_bang(t, period, acc, [0.0], [0.0], band)
        acc *= acceleration / np.abs(qdd).max()
        period *= velocity / np.abs(qd).max() * acceleration / np.abs(qdd).max()
    t = np.arange(0, period, 1 / DENSE)
    _, qd, qdd = bang_bang(t, period, acc, [0.0], [0.0], band)
    # 1e-6 below: the grid's maxima are within ~1e-7 of the true ones (2 kHz, edges rounded over 0.1 s)
    return acc * min(1.0, acceleration / np.abs(qdd).max(), velocity / np.abs(qd).max()) * (1 - 1e-6), period


def best_bang_bang(robot, noise, limits, payload, rate, duration=20.0, starts=3, seed=0, band=10.0):
    """The bang-bang motion of every joint (one period, phases and centres chosen) with the least sum of the
    inertia's six variances for ``payload`` under ``noise``; sampled at ``rate`` for ``duration`` s.

    Parameters
    ----------
    robot : Robot
    noise : ndarray, shape (n,)
        White torque noise per joint (N·m) at ``rate``.
    limits : (lower (n,), upper (n,), velocity (n,), acceleration (n,))
        The same velocity and acceleration limit on every joint (as issue 25's).
    payload : (mass, com (3,), inertia (3, 3))

    Returns
    -------
    motion : (t (S,), q, qd, qdd (S, n))
    period : float
        s; the square wave's amplitude is ``fitted``'s.
    """
    from scipy.optimize import minimize

    from _payload_bound import crb, information

    lo, hi, vel, acc = (np.asarray(a, float) for a in limits)
    n = robot.n_dof
    amp, period = fitted(float(vel.min()), float(acc.min()), band)
    dense = np.arange(0, period, 1 / DENSE)
    swing = np.abs(bang_bang(dense, period, amp, [0.0], [0.0], band)[0]).max() * (1 + 1e-6)
    grid = np.arange(200) * period / 200
    scale = duration * rate / len(grid)          # the information of `duration` s at `rate` from one period's grid

    def criterion(x):
        F = information(robot, *bang_bang(grid, period, amp, x[n:], x[:n], band), noise) * scale
        try:
            s = crb(F, payload)[2]
        except np.linalg.LinAlgError:
            return 1e3
        return float(np.log(np.sum(s[np.triu_indices(3)] ** 2)))

    rng = np.random.default_rng(seed)
    box = [(a + swing, b - swing) for a, b in zip(lo, hi)] + [(-np.pi, np.pi)] * n
    best = None
    for _ in range(starts):
        x0 = np.concatenate([rng.uniform(lo + swing, hi - swing), rng.uniform(-np.pi, np.pi, n)])
        r = minimize(criterion, x0, method="L-BFGS-B", bounds=box, options={"maxiter": 150})
        if best is None or r.fun < best.fun:
            best = r
    centre, phase = best.x[:n], best.x[n:]
    q, qd, qdd = bang_bang(np.arange(0, duration, 1 / DENSE), period, amp, phase, centre, band)
    out = {"q": ((q < lo) | (q > hi)).any(axis=0), "qd": (np.abs(qd) > vel).any(axis=0),
           "qdd": (np.abs(qdd) > acc).any(axis=0)}
    if any(v.any() for v in out.values()):
        raise RuntimeError(f"the bang-bang motion leaves the limits: {out}")
    t = np.arange(int(round(duration * rate))) / rate
    return (t, *bang_bang(t, period, amp, phase, centre, band)), period
