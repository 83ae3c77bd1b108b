"""One excitation design as a smooth constrained problem: criterion, limits and their gradients.

The unknowns are, per joint, the free coordinates z of :func:`~baseparam.excitation.fourier.rest_basis`
(the offset q0 and orthonormal amplitude coordinates in rad or m), so every candidate starts and
ends at rest. q, q̇, q̈ on a grid of N samples per period are linear in z (``B @ z``); the criterion
of the stacked base regressor A = W_b(q, q̇, q̈) is differentiated through A by the regressor's
reverse-mode graph (:mod:`baseparam.dynamics.regressor_adjoint`) and through the states by the
same basis matrices: an exact gradient for the price of about two regressor evaluations.

The criterion is evaluated on 40 samples per cycle of the highest harmonic (W_b(t) is not band-limited
like q(t); on fewer samples the optimum overfits them and loses some 5 % at the controller rate).
Limits are imposed at the N grid samples (20 per cycle), tightened by the margin ε of
:func:`~baseparam.excitation.fourier.sampling_margin` so that they hold between samples too.
Torque limits (optional) are imposed at the grid samples only, 5 % tightened: τ(t) is not a
trigonometric polynomial of bounded degree, so no such bound exists for it; the report checks them
on a 10× denser grid.

Coulomb columns. On a grid, a column sign(q̇_j(t_s)) changes only when a velocity reversal crosses a
sample: the sampled criterion is piecewise constant in it and jumps there, so the optimizer sees
neither where reversals should move nor a continuous objective (SLSQP's line searches then fail).
The search can therefore minimize the criterion with sign(q̇_j) replaced by tanh(q̇_j/w_j), w_j a
share of the joint's velocity limit (:meth:`DesignProblem.use_criterion`, ``smoothing``), annealed
towards the exact criterion; :meth:`DesignProblem.value` is always the exact one.
"""
from __future__ import annotations

import math

import numpy as np

from ..dynamics.regressor_adjoint import adjoint_function, regressor_function
from ..errors import RobotDescriptionError
from ..model.parameters import standard_parameters
from .criteria import criterion_function
from .fourier import FourierSeries, basis, rest_basis, sampling_margin
from .limits import position_range

# Extra relative tightening of every limit on top of the sampling margin: covers the optimizer's
# constraint tolerance, so that a "feasible" result satisfies the certified bound strictly.
SLACK = 1e-6
TORQUE_MARGIN = 0.05
SAMPLES_PER_HARMONIC = 20                # limits: per cycle of the highest harmonic (at least 100 per period)
CRITERION_SAMPLES_PER_HARMONIC = 40      # criterion (at least 200 per period; module docstring)


class DesignProblem:
    """Criterion and limit constraints of one design, as functions of the flat unknowns x.

    Parameters
    ----------
    robot : Robot
    columns : array_like of int
        Standard columns of the base regressor (the base set's pivots).
    parameters : {'pseudo', 'khalil'}
    period : float
    harmonics : int
    limits : MotionLimits
    criterion : {'cond', 'dopt'}
    p_base : ndarray, shape (len(columns),), optional
        True base parameters: torque limits are imposed when given.
    grid : int, optional
        Samples per period at which the limits are imposed (default 20 per harmonic, at least 100).
    criterion_grid : int, optional
        Samples per period over which the criterion is evaluated (default 40 per harmonic, at least 200).
    held : array_like, shape (n_dof,), optional
        Positions of joints held still (NaN for a joint that moves): their unknowns are fixed by
        :meth:`box` (the optimizer removes them) and they have no limit constraints.
    criterion_options : dict, optional
        Keyword arguments of :func:`~baseparam.excitation.criteria.criterion_function` (the 'inertia'
        criterion's E and weights).
    """

    def __init__(self, robot, columns, parameters, period, harmonics, limits, criterion, p_base=None, grid=None,
                 criterion_grid=None, held=None, criterion_options=None):
        self.robot, self.columns, self.parameters = robot, tuple(int(c) for c in columns), parameters
        self.period, self.harmonics, self.limits = float(period), int(harmonics), limits
        self.criterion, self.criterion_options = criterion, dict(criterion_options or {})
        self._objective = self.criterion_function()
        self.p_base = None if p_base is None else np.asarray(p_base, dtype=float)
        self.n = robot.n_dof
        self.held = np.full(self.n, np.nan) if held is None else np.asarray(held, dtype=float)
        self.grid = int(grid or max(100, SAMPLES_PER_HARMONIC * self.harmonics))
        self.eps = sampling_margin(self.harmonics, self.grid)
        self.N = rest_basis(self.period, self.harmonics)                   # (2K+1, m)
        self.m = self.N.shape[1]
        self.B = self._basis(self.grid)                                     # (3, S, m)
        self.criterion_grid = int(criterion_grid or max(200, CRITERION_SAMPLES_PER_HARMONIC * self.harmonics))
        self.Bc = self.B if self.criterion_grid == self.grid else self._basis(self.criterion_grid)
        self._bounds = self._tightened()
        self._resolve()

    def _basis(self, samples):
        t = np.arange(samples) * (self.period / samples)
        return basis(t, self.period, self.harmonics) @ self.N

    def _resolve(self):
        """The compiled regressor and its adjoint (per process), and empty caches."""
        self._W = regressor_function(self.robot, self.parameters, self.columns)
        self._dW = adjoint_function(self.robot, self.parameters, self.columns)
        self._width = None
        self.evaluations = self.gradient_evaluations = 0     # of the criterion and its gradient (cache misses)
        self._cache = {}       # the last (key, value) of the states and regressors (per grid and width), criterion

    def __getstate__(self):                   # for worker processes: settings only, compiled there
        compiled = ("_objective", "_W", "_dW", "_width", "evaluations", "gradient_evaluations", "_cache")
        return {key: value for key, value in self.__dict__.items() if key not in compiled}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._objective = self.criterion_function()
        self._resolve()

    def use_criterion(self, function=None, smoothing=None):
        """Minimize ``function(A) → (value, dA)`` instead of the design criterion (None: back to it),
        with sign(q̇_j) replaced by tanh(q̇_j / (smoothing · velocity limit_j)) if ``smoothing`` is given."""
        self._objective = self.criterion_function() if function is None else function
        self._width = None if smoothing is None else float(smoothing) * self.limits.velocity
        self._cache.pop("criterion", None)

    # -- unknowns ---------------------------------------------------------------------------------------
    @property
    def size(self):
        return self.n * self.m

    def series(self, x):
        """The :class:`FourierSeries` of unknowns x."""
        theta = (self.N @ np.asarray(x).reshape(self.n, self.m).T).T
        return FourierSeries.from_coefficients(self.period, theta)

    def states(self, x, B=None):
        """q, q̇, q̈ on the limits' grid (or the samples of basis B), shape (3, S, n_dof)."""
        return (self.B if B is None else B) @ np.asarray(x).reshape(self.n, self.m).T

    def box(self):
        """Bounds of each unknown (keeps the optimizer's trial steps physical)."""
        lim = self.limits
        w = 2.0 * math.pi / self.period
        lo, hi = [], []
        for k in range(self.n):
            low, up = position_range(lim, k)      # an unlimited revolute joint: q0 is an angle
            # |amplitude| ≤ half the range and ≤ v/ω, |a_l| ≤ v; orthonormal coordinates ≤ √K times that
            amp = min((up - low) / 2.0, lim.velocity[k] / w) * math.sqrt(self.harmonics)
            if math.isfinite(self.held[k]):      # held still: q0 fixed, no oscillation
                low = up = float(self.held[k])
                amp = 0.0
            lo += [low] + [-amp] * (self.m - 1)
            hi += [up] + [amp] * (self.m - 1)
        return list(zip(lo, hi))

    def initial(self, rng, fill=None):
        """A random feasible start: random amplitudes scaled to use a random share of the limits."""
        lim = self.limits
        x = rng.standard_normal((self.n, self.m))
        finite = np.isfinite(lim.lower) & np.isfinite(lim.upper)
        share = rng.uniform(0.3, 0.7, self.n)               # where in its range each joint oscillates
        angle = rng.uniform(-math.pi, math.pi, self.n)      # an unlimited joint: anywhere on the circle
        mid = np.where(finite, np.where(finite, lim.lower, 0.0) + share * np.where(finite, lim.upper - lim.lower, 0.0),
                       angle)
        x[:, 0] = 0.0
        q, qd, qdd = self.states(x.ravel())
        lo, hi, v, a = self._bounds[:4]
        # an unlimited joint swings at most π about q0, as box() allows: its velocity limit alone
        # could scale the start to any size (and far beyond the box, or to overflow)
        room = np.where(finite, np.minimum(hi - mid, mid - lo), math.pi)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = [np.full(self.n, np.inf), room / np.abs(q).max(axis=0), v / np.abs(qd).max(axis=0),
                     a / np.abs(qdd).max(axis=0)]
        scale = np.nan_to_num(np.min(ratio, axis=0), posinf=1.0)
        fill = rng.uniform(0.5, 0.95) if fill is None else fill
        x *= (scale * fill)[:, None]
        x[:, 0] = mid
        held = np.isfinite(self.held)
        x[held] = 0.0
        x[held, 0] = self.held[held]
        return x.ravel()

    # -- criterion --------------------------------------------------------------------------------------
    def _regressor(self, x, limits=False, width=None):
        """q, q̇, q̈ (each (n_samples, n_dof)) and W_b (n_samples, n_dof, rank) at x on the criterion's grid, or on
        the limits' grid (for torques), sign(q̇) smoothed over ``width``; the last (x, width) of each is cached."""
        if limits and self.Bc is not self.B:
            cache, B = "limits", self.B
        else:
            cache, B = "states" if width is None else "smoothed", self.Bc
        key, value = self._cache.get(cache, (None, None))
        if key is not None and key[1] is width and np.array_equal(key[0], x):
            return value
        q, qd, qdd = self.states(x, B)
        value = (q, qd, qdd, self._W(q, qd, qdd, width))
        self._cache[cache] = ((np.array(x, copy=True), width), value)
        return value

    def _minimized(self, x):
        key, value = self._cache.get("criterion", (None, None))
        if key is not None and np.array_equal(key, x):
            return value
        W = self._regressor(x, width=self._width)[3]
        value = self._objective(W.reshape(-1, W.shape[2]))
        self.evaluations += 1
        self._cache["criterion"] = (np.array(x, copy=True), value)
        return value

    def objective(self, x):
        """The criterion being minimized (:meth:`use_criterion`) at x."""
        value = self._minimized(x)[0]
        return value if math.isfinite(value) else 1e300

    def gradient(self, x):
        """Its gradient with respect to x: the criterion's ∂/∂A carried back through the regressor."""
        value, dA = self._minimized(x)
        if not math.isfinite(value):
            return np.zeros(self.size)
        q, qd, qdd, W = self._regressor(x, width=self._width)
        self.gradient_evaluations += 1
        d = self._dW(q, qd, qdd, dA.reshape(W.shape), self._width)       # ∂/∂(q, q̇, q̈) on the criterion's grid
        return np.einsum("ksm,ksn->nm", self.Bc, d).ravel()

    def value(self, x):
        """The design criterion at x (on the grid; sign(q̇) exact)."""
        W = self._regressor(x)[3]
        return self.criterion_function()(W.reshape(-1, W.shape[2]))[0]

    def criterion_function(self):
        """The design criterion, ``A -> (value, dA)``."""
        return criterion_function(self.criterion, **self.criterion_options)

    # -- constraints (≥ 0 when satisfied) -------------------------------------------------------------
    def _tightened(self):
        lim, e = self.limits, self.eps / (1.0 - self.eps) + SLACK
        finite = np.isfinite(lim.lower) & np.isfinite(lim.upper)
        span = np.where(finite, lim.upper - lim.lower, 0.0)
        lo = np.where(finite, lim.lower + e * span, -np.inf)
        hi = np.where(finite, lim.upper - e * span, np.inf)
        shrink = 1.0 - self.eps - SLACK
        return lo, hi, lim.velocity * shrink, lim.acceleration * shrink, lim.torque * (1.0 - TORQUE_MARGIN)

    def _groups(self):
        """(kind, joints) of the constraint groups, each S values per joint."""
        lo, hi, v, a, tau = self._bounds
        # one row per sample for a position range, 1 − ((q − centre)/half)² ≥ 0, not two (upper, lower):
        # SLSQP's subproblem costs in proportion to the rows, and most of them are far from active
        out = [("range", np.flatnonzero(np.isfinite(hi) & np.isfinite(lo))),
               ("velocity", np.flatnonzero(np.isfinite(v))), ("acceleration", np.flatnonzero(np.isfinite(a)))]
        if self.p_base is not None:
            out.append(("torque", np.flatnonzero(np.isfinite(tau))))
        moving = ~np.isfinite(self.held)         # a held joint's motion limits hold by construction; its torque not
        out = [(kind, joints if kind == "torque" else joints[moving[joints]]) for kind, joints in out]
        return [(kind, joints) for kind, joints in out if len(joints)]

    @property
    def n_constraints(self):
        """Rows of :meth:`constraints` (and of :meth:`jacobian`)."""
        return self.grid * sum(len(joints) for _, joints in self._groups())

    def _relative(self, kind, j, q, qd, qdd, W):
        """What the constraint group ``kind`` limits at joints j, relative to the limit, at the grid samples (a
        position about the middle of its range, relative to half the range): the constraint is 1 − that²."""
        lo, hi, v, a, tau_max = self._bounds
        if kind == "range":
            return (2.0 * q[:, j] - (hi[j] + lo[j])) / (hi[j] - lo[j])
        if kind == "velocity":
            return qd[:, j] / v[j]
        if kind == "acceleration":
            return qdd[:, j] / a[j]
        return W[:, j, :] @ self.p_base / tau_max[j]

    def constraints(self, x):
        """All limit constraints at the grid samples, scaled to O(1); ≥ 0 when satisfied."""
        states = self._limit_states(x)
        parts = [1.0 - self._relative(kind, j, *states) ** 2 for kind, j in self._groups()]
        return np.concatenate([p.T.ravel() for p in parts]) if parts else np.zeros(0)

    def jacobian(self, x):
        """∂constraints/∂x, shape (n_constraints, size)."""
        lo, hi, v, a, tau_max = self._bounds
        q, qd, qdd, W = self._limit_states(x)
        S, n, m = self.grid, self.n, self.m
        rows = []
        for kind, joints in self._groups():
            for j in joints:
                block = np.zeros((S, n, m))
                if kind == "range":
                    u = self._relative(kind, j, q, qd, qdd, W)
                    block[:, j] = (-4.0 * u / (hi[j] - lo[j]))[:, None] * self.B[0]
                elif kind == "velocity":
                    block[:, j] = (-2.0 * qd[:, j] / _square(v[j]))[:, None] * self.B[1]
                elif kind == "acceleration":
                    block[:, j] = (-2.0 * qdd[:, j] / _square(a[j]))[:, None] * self.B[2]
                else:
                    block = self._torque_rows(j, q, qd, qdd, W, tau_max[j])
                rows.append(block.reshape(S, n * m))
        return np.vstack(rows) if rows else np.zeros((0, self.size))

    def _torque_rows(self, j, q, qd, qdd, W, limit):
        """∂(1 − (τ_j/limit)²)/∂x per sample: one reverse pass gives every sample's ∂τ_j/∂states."""
        G = np.zeros(W.shape)
        G[:, j, :] = self.p_base
        d = self._dW(q, qd, qdd, G)
        tau = W[:, j, :] @ self.p_base
        per_state = np.einsum("ksm,ksn->snm", self.B, d)             # (S, n, m): ∂τ_j(s)/∂z_n
        return (-2.0 * tau / limit ** 2)[:, None, None] * per_state

    def _limit_states(self, x):
        """States on the limits' grid, with W_b there only when torques are limited."""
        if self.p_base is not None:
            return self._regressor(x, limits=True)
        if self.Bc is self.B:
            return self._regressor(x)
        return (*self.states(x), None)

    def violation(self, x):
        """The largest constraint violation (0 when feasible)."""
        c = self.constraints(x)
        return float(max(0.0, -c.min())) if len(c) else 0.0


def _square(limit):
    """limit² of a velocity or acceleration limit (a float), without numpy's overflow warning: a limit beyond ~1e154
    (a joint as good as unlimited, qd: 1e308) squares to inf, and its constraint's slope is 0, as it should be. The
    warning would reach the terminal as a Python warning with its source line from a worker process, and as the command
    line's own "warning: overflow encountered in scalar power" when the search runs in the caller's."""
    with np.errstate(over="ignore"):
        return limit ** 2


def true_base_parameters(base):
    """Y p of the description's true values (for predicted torques), or None when a link has no inertia
    or a drive no value."""
    try:
        return base.from_standard(standard_parameters(base.robot, base.parameters))
    except RobotDescriptionError:
        return None
