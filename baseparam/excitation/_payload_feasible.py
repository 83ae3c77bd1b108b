"""The wider-band payload design (``excite --payload --payload-design wide``): a long Fourier series optimized for
the payload target's own criterion by L-BFGS over unknowns that keep the limits by construction.

Why (``bench/payload_feasible_probe.py``, ``bench/payload_wide_fits.py``): the standard payload design
(a short series searched by SLSQP for cond or the 'inertia' criterion) leaves the inertia about the centre of mass
the least determined of the payload's quantities. A series of period T (20 s: the whole motion, played once) and
many harmonics (48: to 2.4 Hz) can visit other configurations for other elements, but SLSQP over its thousands of
constraints loses ground to violations and a penalty path does worse. Here every unknown y is feasible:

    centre     c_j = middle_j + SPAN · half range_j · tanh(u_j)        (u_j itself for a joint without a range)
    direction  d_j(t) = Σ_k z_jk φ_k(t)                               (the rest basis: at rest at both ends)
    q_j(t)     = c_j + d_j(t) / L_j,   L_j = LSE_β(d_j/(upper_j − c_j), −d_j/(c_j − lower_j), ±ḋ_j/v_j, ±d̈_j/a_j)

over the limits' grid, against the library's tightened limits (their sampling margin makes a limit kept at the grid
hold between the samples). The log-sum-exp is at least the largest ratio, so q, q̇, q̈ are within every limit for
every y, and an unconstrained L-BFGS with the exact gradient (the criterion's ∂/∂A through the regressor's adjoint,
then through the scaling) keeps them. The design is then scaled by ``_within_limits`` (certified between samples).

The criterion (:func:`centre_criterion`): the log of a p-norm (p = :data:`SHARPNESS`, a smooth maximum) of the
variances of the inertia about the centre of mass, over its six elements and :data:`HYPOTHESES` payload centres
(:func:`hypothesis_centres`), rows weighted by 1/σ_j: a minimax over where the payload's centre is.

Deterministic: the start is the standard payload design (seeded) stretched to the long period, and L-BFGS runs a
fixed number of iterations (:data:`ITERATIONS`) unless the time budget ends it first (then timing-dependent).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..errors import ArgumentError
from .criteria import weighted_solve

SPAN = 0.95                  # the centres' share of each half range (tanh never reaches 1 anyway)
BETA = 50.0                  # the log-sum-exp's sharpness (annealing to 200 and 1000 gained nothing measurable)
ITERATIONS = 1500            # L-BFGS iterations (LWR4+, 48 harmonics: ~90 s of CPU)
MEMORY = 30                  # L-BFGS's stored pairs
SHARPNESS = 16.0             # p of the criterion's p-norm over elements and hypotheses
HYPOTHESES = 8               # payload centres the criterion takes the smooth maximum over
HYPOTHESIS_SEED = 2000       # their draws (the bench's seeds 2000 …: fixed, independent of the design's seed)
REPEAT = 4                   # the start: the standard design of period T / REPEAT, played REPEAT times
START_HARMONICS = 4          # … with this many harmonics (the bench's 5 s × 4 harmonics start for T = 20 s)


@dataclass(frozen=True)
class WideOutcome:
    """What the L-BFGS refinement did.

    Attributes
    ----------
    x : ndarray, shape (n_dof · m,)
        The final unknowns of the problem (within the limits at its grid).
    start_value, value : float
        The criterion at the start design and at ``x``.
    iterations : int
        L-BFGS iterations run.
    complete : bool
        False when the deadline ended the run before :data:`ITERATIONS` or convergence (timing-dependent).
    """

    x: np.ndarray
    start_value: float
    value: float
    iterations: int
    complete: bool

    def to_dict(self):
        return {"design": "wide", "criterion": "centre", "start_value": float(self.start_value),
                "value": float(self.value), "iterations": int(self.iterations), "complete": bool(self.complete)}


def hypothesis_centres(count=HYPOTHESES, seed=HYPOTHESIS_SEED):
    """Payload centres of mass (m, in the last link's frame), shape (count, 3): 20–60 mm off the frame's z axis
    (each sign at random) and 40–80 mm along it, as ``bench/bench_payload.py``'s boxes (the same draws)."""
    centres = []
    for k in range(count):
        rng = np.random.default_rng(seed + k)
        rng.normal(size=(3, 3))                   # the bench's box turn, drawn first: the same centres follow
        centres.append(np.concatenate([rng.uniform(0.02, 0.06, 2) * rng.choice([-1, 1], 2),
                                       [rng.uniform(0.04, 0.08)]]))
    return np.array(centres)


def centre_rows(centre, to_khalil):
    """∂(inertia about the centre of mass: XX XY XZ YY YZ ZZ)/∂(the payload's 10 parameters), shape (6, 10).

    I_c = I_o − (hᵀh·1 − h hᵀ)/m with h = m·c the first moments: its derivatives depend on the centre c only.
    ``to_khalil`` (10, 10) maps the parameterization's 10 columns to Khalil's (XX XY XZ YY YZ ZZ MX MY MZ M).
    """
    c = np.asarray(centre, dtype=float)
    pairs = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))
    J = np.zeros((6, 10))
    J[:, :6] = np.eye(6)
    by_mass = float(c @ c) * np.eye(3) - np.outer(c, c)          # ∂I_c/∂m
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1.0
        by_moment = -(2.0 * c[k] * np.eye(3) - np.outer(e, c) - np.outer(c, e))   # ∂I_c/∂h_k
        J[:, 6 + k] = [by_moment[i, j] for i, j in pairs]
    J[:, 9] = [by_mass[i, j] for i, j in pairs]
    return J @ to_khalil


def centre_criterion(rows, weights=None, sharp=SHARPNESS):
    """(1/p)·log Σ_{h,e} (rows·var_{h,e})^p: the log of a p-norm (a smooth maximum) of the variances of the
    inertia about the centre over hypotheses h and elements e, rows of A weighted by 1/σ_j per joint.

    Parameters
    ----------
    rows : ndarray, shape (H·6, 10)
        :func:`centre_rows` of the hypotheses, stacked.
    weights : ndarray, shape (n_dof,), optional
        Each joint's row weight (1/σ_j; None: equal).

    Returns
    -------
    function
        ``A (rows, 10) -> (value, dA)``.
    """
    J = np.asarray(rows, dtype=float)
    squared = None if weights is None else np.asarray(weights, float) ** 2

    def criterion(A):
        count = A.shape[0]
        solved = weighted_solve(A, squared, J)
        if solved is None:
            return float("inf"), np.zeros_like(A)
        Aw, X = solved                                              # X = M⁻¹Jᵀ (10, H·6)
        var = np.sum(J.T * X, axis=0) * count
        top = var.max()
        if not top > 0:
            return float("inf"), np.zeros_like(A)
        w = (var / top) ** sharp
        value = math.log(top) + math.log(w.sum()) / sharp
        c = w / w.sum() / var * count                               # ∂value/∂var_k · rows
        return float(value), -2.0 * Aw @ ((X * c) @ X.T)
    return criterion


def wide_criterion(parameters, weights=None):
    """:func:`centre_criterion` over :func:`hypothesis_centres`, for the payload's 10 columns in ``parameters``
    ('pseudo' or 'khalil'), rows weighted by ``weights`` (1/σ_j; None: equal)."""
    from ..model.parameters import khalil_to_pseudo
    to_khalil = np.eye(10) if parameters == "khalil" else np.linalg.inv(np.array(khalil_to_pseudo(), dtype=float))
    return centre_criterion(np.concatenate([centre_rows(c, to_khalil) for c in hypothesis_centres()]), weights)


class FeasibleMap:
    """Free unknowns y of the moving joints → the problem's unknowns x within its limits, and the gradient in y.

    Parameters
    ----------
    problem : DesignProblem
        Its held joints (``problem.held`` finite) keep their pose and no oscillation.
    beta : float
    """

    def __init__(self, problem, beta=BETA):
        self.problem, self.beta = problem, float(beta)
        lo, hi, v, a = problem._bounds[:4]
        self.moving = np.flatnonzero(~np.isfinite(problem.held))
        j = self.moving
        self.lo, self.hi, self.v, self.a = lo[j], hi[j], v[j], a[j]
        self.ranged = np.isfinite(self.lo) & np.isfinite(self.hi)
        self.mid = np.where(self.ranged, 0.5 * (np.where(self.ranged, self.lo, 0) + np.where(self.ranged, self.hi, 0)),
                            0.0)
        self.half = np.where(self.ranged, 0.5 * (np.where(self.ranged, self.hi, 0) - np.where(self.ranged, self.lo, 0)),
                             0.0)
        self.B = problem.B[:, :, 1:]                              # (3, S, m − 1): the oscillation's basis
        held = np.zeros((problem.n, problem.m))
        fixed = np.isfinite(problem.held)
        held[fixed, 0] = problem.held[fixed]
        self.held = held

    def _centres(self, u):
        """c (moving,) and ∂c/∂u."""
        t = np.tanh(u)
        c = np.where(self.ranged, self.mid + SPAN * self.half * t, u)
        return c, np.where(self.ranged, SPAN * self.half * (1.0 - t ** 2), 1.0)

    def _ratios(self, c, z):
        """The six ratio rows (6, S, moving), the directions' d, ḋ, d̈ (3, S, moving) and the room up and down."""
        D = np.einsum("ksm,nm->ksn", self.B, z)
        with np.errstate(divide="ignore", invalid="ignore"):
            up, down = self.hi - c, c - self.lo                 # inf for a joint without a range: its rows are 0
            r = np.stack([D[0] / up, -D[0] / down, D[1] / self.v, -D[1] / self.v, D[2] / self.a, -D[2] / self.a])
        return np.nan_to_num(r, nan=0.0), D, up, down

    def _scaled(self, y):
        y = np.asarray(y, dtype=float).reshape(len(self.moving), self.problem.m)
        c, dc = self._centres(y[:, 0])
        r, D, up, down = self._ratios(c, y[:, 1:])
        top = r.max(axis=(0, 1))
        e = np.exp(self.beta * (r - top))
        total = e.sum(axis=(0, 1))
        L = top + np.log(total) / self.beta                        # ≥ the largest ratio: s = 1/L keeps every limit
        x = self.held.copy()
        x[self.moving, 0] = c
        x[self.moving, 1:] = y[:, 1:] / L[:, None]
        return x.ravel(), y, L, e / total, c, dc, D, up, down

    def x(self, y):
        """The problem's unknowns (n_dof · m,) of y."""
        return self._scaled(y)[0]

    def value_and_gradient(self, y):
        """The problem's objective at x(y) and its gradient in y (flat)."""
        x, y, L, w, c, dc, D, up, down = self._scaled(y)
        f = self.problem.objective(x)
        g = self.problem.gradient(x).reshape(self.problem.n, self.problem.m)[self.moving]
        z, s = y[:, 1:], 1.0 / L
        along = (g[:, 1:] * z).sum(axis=1) * (-s ** 2)             # (g_amp · z) ∂s/∂L
        with np.errstate(divide="ignore", invalid="ignore"):
            wq = np.nan_to_num(w[0] / up - w[1] / down)             # (S, moving)
            wa = np.nan_to_num((w[4] - w[5]) / self.a)
            by_c = np.nan_to_num(w[0] * D[0] / up ** 2 + w[1] * D[0] / down ** 2).sum(axis=0)
        wv = (w[2] - w[3]) / self.v
        dL_dz = (np.einsum("sn,sm->nm", wq, self.B[0]) + np.einsum("sn,sm->nm", wv, self.B[1])
                 + np.einsum("sn,sm->nm", wa, self.B[2]))
        grad = np.empty_like(y)
        grad[:, 1:] = s[:, None] * g[:, 1:] + along[:, None] * dL_dz
        grad[:, 0] = (g[:, 0] + along * by_c) * dc
        return f, grad.ravel()

    def start(self, x):
        """y of a feasible x (n_dof · m,): its centre and its oscillation as the direction."""
        x = np.asarray(x, dtype=float).reshape(self.problem.n, self.problem.m)[self.moving]
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.clip(np.nan_to_num((x[:, 0] - self.mid) / (SPAN * self.half)), -0.999, 0.999)
        u = np.where(self.ranged, np.arctanh(share), x[:, 0])
        return np.concatenate([u[:, None], x[:, 1:]], axis=1).ravel()


def refine(problem, x0, *, iterations=None, deadline=None, clock=time.monotonic, progress=None):
    """L-BFGS over :class:`FeasibleMap`'s unknowns from the feasible x0, on the problem's current criterion.

    Parameters
    ----------
    problem : DesignProblem
    x0 : ndarray, shape (n_dof · m,)
        A feasible start.
    iterations : int, optional
        At most this many (default :data:`ITERATIONS`, read at the call).
    deadline : float, optional
        ``clock()`` time at which the run stops after the iteration under way.
    clock : callable
        The time (tests inject a counter).
    progress : callable, optional
        ``progress(done, total)`` per iteration.

    Returns
    -------
    WideOutcome
    """
    from scipy.optimize import minimize

    iterations = ITERATIONS if iterations is None else int(iterations)
    feasible = FeasibleMap(problem)
    start_value = problem.objective(np.asarray(x0, dtype=float))
    done = [0]
    cut = [False]

    def tick(_):
        done[0] += 1
        if progress is not None:
            progress(done[0], iterations)
        if deadline is not None and clock() >= deadline:
            cut[0] = True
            raise StopIteration

    result = minimize(feasible.value_and_gradient, feasible.start(x0), jac=True, method="L-BFGS-B", callback=tick,
                      options={"maxiter": int(iterations), "maxcor": MEMORY, "ftol": 1e-14, "gtol": 1e-12})
    x = feasible.x(result.x)
    value = problem.objective(x)
    if not value <= start_value:         # never worse than the start (the LSE's rescaling of it can cost a little)
        x, value = np.asarray(x0, dtype=float), start_value
    return WideOutcome(x, float(start_value), float(value), done[0], not cut[0])


def stretched_start(series, problem):
    """The problem's unknowns of ``series`` (period T / REPEAT) played REPEAT times: the same motion as a series of
    the problem's period, its harmonic k the problem's harmonic REPEAT·k (least squares onto the rest basis:
    exact, the motion is in its span)."""
    K = problem.harmonics
    a, b = np.zeros((series.n_dof, K)), np.zeros((series.n_dof, K))
    a[:, REPEAT - 1::REPEAT][:, :series.harmonics] = series.a
    b[:, REPEAT - 1::REPEAT][:, :series.harmonics] = series.b
    theta = np.hstack([series.q0[:, None], a, b])
    return np.linalg.lstsq(problem.N, theta.T, rcond=None)[0].T.ravel()


def check_wide(load, harmonics):
    """Refuse a wide design that cannot run: a payload with fewer than 10 identifiable parameters (the inertia
    about the centre needs all ten), or fewer harmonics than its start fills."""
    if not load.complete:
        # every joint moving already (a planar arm, a SCARA): no payload_joints helps, so none is suggested
        remedy = ("move more joints (payload_joints) or use" if len(load.moving) < len(load.pose) else
                  "no more joints can move on this robot; use")
        raise ArgumentError(f"payload_design: 'wide' needs all 10 payload parameters identifiable (the inertia about "
                            f"the centre of mass); with joints {', '.join(map(str, load.moving))} moving "
                            f"{load.rank} are: {remedy} payload_design='standard'")
    least = REPEAT * START_HARMONICS
    if harmonics < least:
        raise ArgumentError(f"harmonics: payload_design='wide' needs at least {least} ({START_HARMONICS} harmonics of "
                            f"its start, period/{REPEAT}, played {REPEAT} times), got {harmonics}; e.g. 48 harmonics "
                            "of 20 s")
