"""The physically consistent fit: standard parameters under the pseudo-inertia LMIs, with a CAD prior.

Each link's 4×4 pseudo-inertia J_k = [[Σ, h], [hᵀ, m]] (Σ = ∫ r rᵀ dm, h = m·c; our ``pseudo``
columns XX…M are its entries) must be positive definite for a body to exist (Wensing, Kim & Slotine
2018): this one LMI implies m > 0 and the triangle inequalities. The fit

    minimise ‖R (Y p) − z‖² / ‖τ‖²  +  λ·P(p)
    subject to J_k(p) ⪰ ε·T_k²,  IA ≥ 0,  FV ≥ 0,  FC ≥ 0,  FS ≥ 0,  optional mass bounds

is posed on the standard parameters p: only the base parameters Y p are identifiable, and the
constraints pick, among the p giving the same torques, a physical one. R and z are the triangular
form of the stacked (weighted) base regressor (:class:`._least_squares.Factors`), so the problem's
size is that of the base set, not of the data, and the residual is divided by ‖τ‖² so the solver
sees O(1) numbers. The variables are scaled too: link k's pseudo-inertia is J_k = T_k J̃_k T_k with
T_k = √m_k·diag(ℓ_k, ℓ_k, ℓ_k, 1) (m_k, ℓ_k: the CAD body's mass and size, or 1 kg and the robot's
mean joint spacing), so that J̃ is O(1) whatever the robot's size. Many small 4×4 cones suit an
interior-point solver (CLARABEL through cvxpy).

**The CAD prior** P(p) = mean_k ‖J0_k^(−1/2) (J_k − J0_k) J0_k^(−1/2)‖²_F pulls each link towards the
description's true inertia J0_k in the metric of J0_k itself: the second-order term of the log-det
(entropic) divergence of Lee, Wensing & Park (2020), so a 10 % change of a light link costs what
10 % of a heavy one does, and the problem stays a quadratic program with LMIs. Its weight is chosen
from the training data: λ = μ·r₀ with r₀ the unconstrained fit's relative residual (at least 10⁻⁶),
so that μ = 1 makes one of L links at twice its CAD body (P = 4/L) cost 4/L times all the torque the
model leaves unexplained. μ runs over {0, 10⁻⁶, 10⁻⁵, …, 1}; starting from the smallest, each pull
is solved on all the training data, and the grid stops at the first that moves a base parameter by
more than ``MAX_PRIOR_SHIFT`` (3) of its standard deviations from the fit without prior: a prior may
settle what the data leave loose, not overrule what they say. The pulls left are scored by K-fold
hold-out of contiguous training segments (pooled squared torque error, unweighted), and the
one-standard-error rule (Breiman et al. 1984; Hastie, Tibshirani & Friedman §7.10) takes the strongest
whose hold-out error is within one standard error of the best. μ = 0 still pulls with a vanishing
weight (10⁻⁹), so that the bodies the data cannot tell apart are those nearest the CAD ones.
Measured (bench/bench_consistent.py): on the KUKA LWR4+ the rule picks μ = 0.3 (held out 3.15 →
2.96 %); on the UR10e the pulls beyond 10⁻⁶ move products of inertia of links 2–3 by more than 3σ
(the data-only bodies weigh hundreds of kg: only base parameters are identifiable), so it picks 10⁻⁶
(4.13 → 4.11 %). With CAD masses 3× wrong on simulated robots, hold-out alone picked pulls that moved
base parameters by 7–15σ; the shift bound keeps them within 3σ.

The constraint J_k ⪰ ε·T_k² (ε = 10⁻⁶) is relative to the link's own scale T_k (below), so thin or
light bodies (a 0.3 kg plate 2 mm thick) remain reachable.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from .._numbers import json_floats
from .._stderr import PANIC, solve_clarabel
from .._warnings import ignored
from ..errors import BaseParamError, SettingsError, SimulationError
from ..model._kernels import kernels_of
from ..model.parameters import ColumnLayout, khalil_to_pseudo
from ..model.urdf_update import body_of
from ._payload_math import payload_parameters, pseudo_columns, pseudo_expression, pseudo_matrix

EPSILON = 1e-6
# Prior weights tried, in units of the unconstrained fit's relative residual (see the module notes).
PRIOR_GRID = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0)
FOLDS = 5
RESIDUAL_FLOOR = 1e-6
TIE_BREAK = 1e-9
# The prior may move no base parameter by more than this many of its standard deviations.
MAX_PRIOR_SHIFT = 3.0
# CLARABEL's defaults (1e-8) left ~1e-4 relative error in weakly determined base parameters of
# noise-free data; these cost a few more iterations for ~1e-7.
SOLVER_OPTIONS = {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11, "tol_ktratio": 1e-9}
# A stalled run is repeated with shorter steps, then with CLARABEL's own tolerances too. Each rung names every
# setting the ladder changes: cvxpy updates a kept solver's settings in place (those not given stay as the last
# solve left them), so a rung naming fewer ran with the previous rung's tolerances, and the solves after a
# retry kept its shorter steps.
CLARABEL_DEFAULTS = {"tol_gap_abs": 1e-8, "tol_gap_rel": 1e-8, "tol_feas": 1e-8, "tol_ktratio": 1e-6,
                     "max_step_fraction": 0.99}
RETRIES = (dict(SOLVER_OPTIONS, max_step_fraction=0.99), dict(SOLVER_OPTIONS, max_step_fraction=0.9),
           dict(CLARABEL_DEFAULTS, max_step_fraction=0.9))


@dataclass(frozen=True, eq=False)
class PriorChoice:
    """How the CAD prior's weight was chosen.

    Attributes
    ----------
    weights : ndarray, shape (m,)
        The candidate weights μ (relative to the unconstrained residual).
    cv_error_percent, cv_se_percent : ndarray, shape (m,)
        Hold-out error of each, as pooled NRMSE² in %² (mean over folds), and its standard error.
    chosen : float
        The weight used (one-standard-error rule), or the one given.
    selected_by : str
        How: the hold-out rule, or ``'given'``.
    shifts : ndarray, shape (m,) or None
        For the weights examined, the largest move of a base parameter from the fit without prior,
        in its standard deviations (NaN: not examined).
    fold_errors : ndarray, shape (m, k) or None
        Hold-out error of each weight on each of the k folds holding samples, as NRMSE² in %² (NaN: not
        scored); ``cv_error_percent`` and ``cv_se_percent`` are their mean and standard error over the folds.
        None: a weight given.
    """

    weights: np.ndarray
    cv_error_percent: np.ndarray
    cv_se_percent: np.ndarray
    chosen: float
    selected_by: str
    shifts: object = None
    fold_errors: object = None

    def to_dict(self):
        return {"weights": json_floats(self.weights), "cv_nrmse2_percent2": json_floats(self.cv_error_percent),
                "cv_se_percent2": json_floats(self.cv_se_percent),
                "max_shift_std": None if self.shifts is None else json_floats(self.shifts),   # None: a weight given
                "chosen": float(self.chosen), "selected_by": self.selected_by}


@dataclass(frozen=True, eq=False)
class ConsistentFit:
    """Result of :func:`consistent_fit`.

    Attributes
    ----------
    p : ndarray, shape (n_standard,)
        Standard parameters in the base set's parameterization, physically consistent.
    x : ndarray, shape (rank,)
        Base parameters ``Y @ p``.
    status : str
        The solver's status (``optimal``, ``optimal_inaccurate``).
    min_eigenvalues : ndarray, shape (n_links,)
        Smallest eigenvalue of each link's pseudo-inertia at ``p`` (SI).
    prior : str
        ``'cad'`` or ``'none'``.
    prior_choice : PriorChoice or None
    solve_seconds : float
        Solver time, weight selection included.
    n_solves : int
    """

    p: np.ndarray
    x: np.ndarray
    status: str
    min_eigenvalues: np.ndarray
    prior: str = "none"
    prior_choice: object = None
    solve_seconds: float = 0.0
    n_solves: int = 1
    notes: tuple = field(default=())

    def __repr__(self):
        prior = "" if self.prior_choice is None else f", prior weight={self.prior_choice.chosen:g}"
        return (f"ConsistentFit(status={self.status!r}, rank={len(self.x)}, "
                f"min_eigenvalue={float(self.min_eigenvalues.min()):.3g}, prior={self.prior!r}{prior})")


def _to_pseudo(layout) -> np.ndarray:
    """T with p_pseudo = T @ p (p in the layout's parameterization), shape (n, n)."""
    T = np.eye(layout.n_standard)
    if layout.parameters == "khalil":
        K = np.array(khalil_to_pseudo(), dtype=float)
        for cols in layout.link_columns:
            T[np.ix_(cols, cols)] = K
    return T


def cad_parameters(robot, layout):
    """The description's true bodies as pseudo parameters, and which links have one.

    Returns
    -------
    p0 : ndarray, shape (n_standard,)
        Pseudo parameters of the links that have a true inertia (zero elsewhere).
    has : ndarray of bool, shape (n_links,)
    """
    p0 = np.zeros(layout.n_standard)
    has = np.array([joint.inertia is not None for joint in robot.joints], dtype=bool)
    for k in np.flatnonzero(has):
        body = robot.joints[k].inertia
        p0[layout.link_columns[k]] = payload_parameters(float(body.mass), body.com, body.inertia)
    return p0, has


def _length_scale(robot):
    """A typical distance between joints (m): the mean constant translation per joint transform."""
    from ..model.joint_model import joint_models, to_si

    steps = [sum(abs(to_si(robot, f)) for f in model.constant_factors() if not f.is_rotation)
             for model in joint_models(robot)]
    return max(float(np.mean(steps)), 0.05)


def nonnegative_columns(layout, friction=("FV", "FC", "FS")) -> list:
    """The standard parameters that cannot be negative beside the masses: rotor inertias, then the friction
    terms of the kinds ``friction`` (viscous, Coulomb, Stribeck), as column indices."""
    kinds = layout.friction_columns.items()
    return [*layout.rotor_columns.values(), *(c for (_, kind), c in kinds if kind in friction)]


class _Problem:
    """The convex program, compiled once (cvxpy parameters) and solved for each fold and weight, and for
    each fit of the same robot object and constraint set (:func:`_problems`): the data (R, z, ‖τ‖²) and
    the prior's weight are cvxpy ``Parameter`` s, so cvxpy canonicalises the program once (DPP) and a
    solve only fills in numbers. One fit at a time uses it (:class:`_Pool`)."""

    def __init__(self, Y, layout, p0, has_prior, epsilon, mass_bounds, total_mass, ell):
        import cvxpy as cp

        self.T = _to_pseudo(layout)
        self.Y = np.asarray(Y, dtype=float)
        A = self.Y @ np.linalg.inv(self.T)                              # base parameters from pseudo ones
        n, R = layout.n_standard, self.Y.shape[0]
        scale = np.ones(n)                                              # pseudo = scale · variable
        self.v = cp.Variable(n)
        self.R = cp.Parameter((R, R))
        self.z = cp.Parameter(R)
        self.lam = cp.Parameter(nonneg=True)
        constraints, prior_terms = [], []
        for k, cols in enumerate(layout.link_columns):
            m_k, l_k = 1.0, ell
            if has_prior[k]:
                J0 = pseudo_matrix(p0[cols])
                m_k = max(J0[3, 3], 1e-3)
                l_k = max(np.sqrt(max(np.trace(J0[:3, :3]), 0.0) / m_k), 1e-2)
            t = np.sqrt(m_k) * np.array([l_k, l_k, l_k, 1.0])
            scale[cols] = pseudo_columns(np.outer(t, t))
            Jt = pseudo_expression([self.v[c] for c in cols])
            constraints.append(0.5 * (Jt + Jt.T) >> epsilon * np.eye(4))     # J ⪰ ε·T², the link's own scale
            if has_prior[k]:
                w, V = np.linalg.eigh(J0)
                W = (V / np.sqrt(w)) @ V.T * t[None, :]                  # J0^(−1/2) T
                prior_terms.append(cp.sum_squares(W @ Jt @ W.T - W @ (J0 / np.outer(t, t)) @ W.T))
        self.scale = scale
        objective = cp.sum_squares(self.R @ ((A * scale[None, :]) @ self.v) - self.z)
        constraints += [self.v[c] >= 0 for c in nonnegative_columns(layout)]
        masses = [self.v[cols[9]] * scale[cols[9]] for cols in layout.link_columns]     # M columns unscaled: kg
        ranges = [(masses[link - 1], bounds) for link, bounds in (mass_bounds or {}).items()]
        if total_mass is not None:
            ranges.append((sum(masses), total_mass))
        for mass, (lo, hi) in ranges:
            if lo is not None:
                constraints.append(mass >= lo)
            if hi is not None:
                constraints.append(mass <= hi)
        # two programs: with λ = 0 the prior's cones would sit idle and stall the solver
        self.plain = cp.Problem(cp.Minimize(objective), constraints)
        self.pulled = None if not prior_terms else \
            cp.Problem(cp.Minimize(objective + self.lam * sum(prior_terms) / len(prior_terms)), constraints)
        self.start()

    def start(self):
        """Forget the previous fit: its solver calls, its panic, and its solvers (below)."""
        self.n_solves = 0
        self.panic = None
        self._kept = set()          # ids of the programs whose solver cvxpy keeps from this fit

    def base_values(self, p_pseudo):
        """Base parameters Y p of pseudo parameters (SI)."""
        return self.Y @ np.linalg.solve(self.T, p_pseudo)

    def solve(self, R, z, total, lam):
        """Pseudo parameters (SI) minimising the scaled objective; None when the solver fails."""
        import cvxpy as cp

        norm = np.sqrt(max(total, 1e-300))
        self.R.value, self.z.value, self.lam.value = R / norm, z / norm, lam
        self.problem = self.plain if lam == 0 or self.pulled is None else self.pulled
        # "optimal_inaccurate" is CLARABEL's AlmostSolved: measured on these problems it stops with
        # residuals of 1e-12 and a gap of 1e-11, short only of the relative gap test on a small
        # objective; the status is kept in the result, the solution used. A run that stalls
        # (InsufficientProgress, seen on 1 in ~50 hold-out problems) is repeated with shorter steps.
        # cvxpy keeps each program's CLARABEL solver and, warm, updates its data and settings in place; within a
        # fit as when each fit built its programs, but a fit's first solve of a program starts a new solver (as
        # it did then), so that no fit depends on what an earlier fit of the same robot left there (settings)
        status = "solver_error"
        for options in RETRIES:
            self.n_solves += 1
            try:
                with ignored(UserWarning):             # cvxpy's of the status, which the result keeps
                    solve_clarabel(self.problem, warm_start=id(self.problem) in self._kept, **options)
            except cp.SolverError as exc:                  # also CLARABEL's Rust panics (solve_clarabel)
                if getattr(exc, PANIC, False):
                    self.panic = str(exc)                  # said in the failure's line
                else:                                      # a failed status: cvxpy kept that solver
                    self._kept.add(id(self.problem))
                continue                                   # v.value is the last run's: not used
            self._kept.add(id(self.problem))
            status = str(self.problem.status)
            if self.v.value is not None and status in ("optimal", "optimal_inaccurate"):
                return self.scale * np.asarray(self.v.value, dtype=float), status
            if status in ("infeasible", "infeasible_inaccurate"):
                break
        return None, status


class _Pool:
    """The compiled programs of one robot object and constraint set, shared by its fits: a fit takes a free one
    (builds one when none is: threads fitting at once each get their own, as cvxpy's parameters and solver
    hold one fit's numbers) and gives it back when it ends; a fit interrupted by anything but the library's
    own errors drops its program rather than hand on one left half-way."""

    def __init__(self, build):
        self._build = build
        self._lock = threading.Lock()
        self._free = []
        self.built = 0              # programs compiled for this constraint set (tests and bench read it)

    def take(self):
        with self._lock:
            if self._free:
                problem = self._free.pop()
                problem.start()
                return problem
            self.built += 1
        return self._build()          # outside the lock: compiling takes a second; others need not wait

    def give_back(self, problem):
        with self._lock:
            self._free.append(problem)


def _problems(base, layout, p0, has, epsilon, mass_bounds, total_mass) -> _Pool:
    """The :class:`_Pool` of programs of this constraint set, kept with the robot object
    (:func:`~baseparam.model._kernels.kernels_of`: dropped with the robot, no module state).

    The key holds all that shapes the program beside the robot object itself (its structure, CAD bodies,
    friction and rotor columns, length scale): the parameterization, Y's values, the links pulled towards
    their CAD body, ε and the mass bounds in their order. Bootstrap, cross-validation and multi-start fits of one robot,
    and the leave-one-out fits of :func:`~baseparam.identify_logs`, then compile it once."""
    Y = np.array(base.Y, dtype=float, order="C")                 # copies: a program built later reads these
    has, p0 = has.copy(), p0.copy()
    # the bounds in the order given: it is the constraints' order, and a program with them in another order gives
    # other last bits (4e-10 of x on the PUMA with four links bounded)
    bounds = tuple((int(link), tuple(None if b is None else float(b) for b in pair))
                   for link, pair in (mass_bounds or {}).items())
    total = None if total_mass is None else tuple(None if b is None else float(b) for b in total_mass)
    key = (base.parameters, Y.shape, Y.tobytes(), has.tobytes(), float(epsilon), bounds, total)
    robot = base.robot

    def build():                        # from the key's values, not the first caller's objects (which may change)
        return _Problem(Y, layout, p0, has, float(epsilon), dict(bounds), total, _length_scale(robot))

    # four constraint sets kept per robot (least recently used dropped): a program holds 3–7 MB on a 7-joint arm (its
    # CAD prior's the larger), and fits of one robot rarely take more than one or two sets
    return kernels_of(robot).get("consistent", key, lambda: _Pool(build), size=4)


def consistent_fit(base, factors, weights, *, prior="none", prior_weight=None, mass_bounds=None, total_mass=None,
                   epsilon=EPSILON, std=None) -> ConsistentFit:
    """Fit physically consistent standard parameters to the reduced base regressor.

    Parameters
    ----------
    base : BaseParameters
    factors : Factors
        The stacked base regressor per fold (:class:`._least_squares.Factors`).
    weights : ndarray, shape (n_dof,)
        Per-joint weights of the residual (ones: OLS; 1/σ_j²: WLS).
    prior : {'none', 'cad'}
        'cad' pulls each link towards the description's true inertia (links without one are free).
    prior_weight : float or None
        μ, in units of the unconstrained relative residual; None chooses it by hold-out (module notes).
    mass_bounds : dict, optional
        link (1-based) → (lower, upper) in kg, either None.
    total_mass : tuple of 2 (float or None), optional
        Bounds on the sum of the link masses (kg).
    epsilon : float
        Each link's pseudo-inertia is kept ⪰ ε·T_k² (T_k the link's scale, module notes).
    std : ndarray, shape (rank,), optional
        Standard deviations of the base parameters: the chosen prior weight may move none of them by
        more than ``MAX_PRIOR_SHIFT`` of these from the fit without prior.

    Returns
    -------
    ConsistentFit

    Raises
    ------
    SimulationError
        When the solver fails, or the bounds leave no physical solution (a numerical failure: errors.py's rule).
    """
    layout = ColumnLayout(base.robot, base.parameters)
    for link in mass_bounds or {}:
        if not 1 <= link <= base.robot.n_dof:
            raise SettingsError(f"mass_bounds: link {link} does not exist ({base.robot.name} has links "
                                f"1..{base.robot.n_dof})")
    p0, has = cad_parameters(base.robot, layout)
    use_prior = prior == "cad"
    if use_prior and not has.any():
        raise SettingsError(f"{base.robot.name}: prior 'cad': the description gives no link inertia (inertia: in "
                            "the YAML, <inertial> in a URDF) to pull towards")
    notes = []
    if use_prior:
        for k in np.flatnonzero(has):
            if np.linalg.eigvalsh(pseudo_matrix(p0[layout.link_columns[k]]))[0] <= 0:
                has[k] = False
                notes.append(f"link {k + 1}: its CAD body is not physical (pseudo-inertia not positive definite); "
                             "no prior on it")
    has = has & use_prior
    start = time.perf_counter()
    pool = _problems(base, layout, p0, has, epsilon, mass_bounds, total_mass)
    problem = pool.take()
    try:
        p_pseudo, status, choice = _fit(base, problem, factors, weights, use_prior, has, prior_weight, mass_bounds,
                                        total_mass, std)
        n_solves = problem.n_solves                       # read before another fit may take the program
    except BaseParamError:
        pool.give_back(problem)
        raise
    pool.give_back(problem)
    p = np.linalg.solve(problem.T, p_pseudo)
    eig = np.array([np.linalg.eigvalsh(pseudo_matrix(p_pseudo[cols]))[0] for cols in layout.link_columns])
    return ConsistentFit(p, np.asarray(base.Y, dtype=float) @ p, status, eig, "cad" if use_prior else "none", choice,
                         time.perf_counter() - start, n_solves, tuple(notes))


def _fit(base, problem, factors, weights, use_prior, has, prior_weight, mass_bounds, total_mass, std):
    """The fit without prior, then with the prior's weight chosen or given: pseudo parameters (SI), the
    solver's status and the :class:`PriorChoice` (None without a prior)."""
    R, z, rho2, total = factors.combined(weights)
    p_pseudo, status = problem.solve(R, z, total, 0.0)           # the data alone (and feasibility)
    if p_pseudo is None:
        bounded = " (check the mass bounds: they may leave no physical solution)" if (mass_bounds or total_mass) \
            else ""
        said = f"; {problem.panic}" if problem.panic else ""
        raise SimulationError(f"{base.robot.name}: the consistent fit failed (solver status {status}){bounded}{said}")
    choice = None
    if use_prior and has.any():
        # nearly noise-free data: the prior must still settle what the data cannot see, so its unit
        # never falls below a relative residual of 10⁻⁶ (0.1 % NRMSE)
        relative = max(rho2 / max(total, 1e-300), RESIDUAL_FLOOR)
        choice = _choose_weight(problem, factors, weights, relative, std, p_pseudo) if prior_weight is None else \
            PriorChoice(np.array([prior_weight]), np.array([np.nan]), np.array([np.nan]), float(prior_weight), "given")
        # μ = 0 still pulls a little (TIE_BREAK): among the bodies the data cannot tell apart, those
        # nearest the CAD ones, without moving what the data say
        pulled, status = problem.solve(R, z, total, max(choice.chosen, TIE_BREAK) * relative)
        if pulled is None:
            raise SimulationError(f"{base.robot.name}: the consistent fit with the CAD prior failed "
                                  f"(solver status {status})")
        p_pseudo = pulled
    return p_pseudo, status, choice


def _choose_weight(problem, factors, weights, relative, std, free):
    """μ: the weights up to the first that moves a base parameter by more than ``MAX_PRIOR_SHIFT`` of
    its standard deviations from the fit without prior (``free``), scored by K-fold hold-out of
    contiguous training segments; the one-standard-error rule takes the strongest (see the module notes)."""
    grid = np.array(PRIOR_GRID)
    shifts = np.full(len(grid), np.nan)
    shifts[0] = 0.0
    admissible = [0]
    R, z, rho2, total = factors.combined(weights)
    x_free = problem.base_values(free)
    if std is not None:
        # the solver's own accuracy (~1e-7 of the values) is no evidence: noise-free data have σ ≈ 0
        std = np.maximum(std, 1e-6 * np.abs(x_free) + 1e-7 * np.abs(x_free).max())
    for a in range(1, len(grid)):                        # the pull grows with μ: stop at the first too strong
        pulled, _ = problem.solve(R, z, total, grid[a] * relative)
        if pulled is None:
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            shift = np.abs(problem.base_values(pulled) - x_free) / std if std is not None else np.zeros(1)
        shifts[a] = float(np.nanmax(np.where(np.isfinite(shift), shift, 0.0)))
        if shifts[a] > MAX_PRIOR_SHIFT:
            break
        admissible.append(a)
    folds = [f for f in range(factors.n_folds) if factors.n_samples[f] > 0]
    scores = np.full((len(grid), len(folds)), np.nan)
    mean, se = np.full(len(grid), np.nan), np.full(len(grid), np.nan)          # NaN: not scored
    if len(folds) < 2 or len(admissible) == 1:
        reason = ("too little data for hold-out" if len(folds) < 2
                  else f"every pull moves a parameter > {MAX_PRIOR_SHIFT:g}σ")
        return PriorChoice(grid, mean, se, 0.0, reason, shifts, scores)
    reduced = {f: factors.combined(weights, [g for g in folds if g != f]) for f in folds}
    for a in admissible:
        for b, f in enumerate(folds):
            R, z, rho2, total = reduced[f]
            p_pseudo, _ = problem.solve(R, z, total, grid[a] * relative)
            if p_pseudo is not None:
                e, t = factors.errors(problem.base_values(p_pseudo))
                scores[a, b] = 1e4 * e[f] / max(t[f], 1e-300)
    complete = [a for a in admissible if np.isfinite(scores[a]).all()]
    if not complete:
        return PriorChoice(grid, mean, se, 0.0, "the hold-out fits failed", shifts, scores)
    mean[complete] = scores[complete].mean(axis=1)
    se[complete] = scores[complete].std(axis=1, ddof=1) / np.sqrt(len(folds))
    best = min(complete, key=lambda a: mean[a])
    chosen = max(a for a in complete if mean[a] <= mean[best] + se[best])
    return PriorChoice(grid, mean, se, float(grid[chosen]), f"hold-out (1-SE rule) among pulls ≤ {MAX_PRIOR_SHIFT:g}σ",
                       shifts, scores)


def parameters_at_bound(base, x, std, mass_bounds=None) -> list:
    """Base parameters the consistent fit left at one of its bounds: those that are one bounded standard
    parameter (a rotor inertia, viscous, Coulomb or Stribeck friction ≥ 0; a mass within ``mass_bounds``)
    and lie at the bound, within 10⁻⁴ of their standard deviation (plus 10⁻⁹ of the largest estimate:
    the solver's accuracy). Their relative deviation says nothing (the estimate is the bound, often 0).

    Returns
    -------
    list of str
    """
    layout = ColumnLayout(base.robot, base.parameters)
    bounds = {c: (0.0, None) for c in nonnegative_columns(layout)}
    for link, (lo, hi) in (mass_bounds or {}).items():
        bounds[layout.link_columns[link - 1][9]] = (lo, hi)
    floor = 1e-9 * float(np.abs(x).max()) if len(x) else 0.0
    out = []
    for r, (column, coefficient) in single_terms(base).items():
        if column not in bounds:
            continue
        value = x[r] / coefficient
        sigma = std[r] / abs(coefficient) if np.isfinite(std[r]) else 0.0
        if any(b is not None and abs(value - b) <= 1e-4 * sigma + floor for b in bounds[column]):
            out.append(base.names[r])
    return out


def single_terms(base) -> dict:
    """The base parameters that are one standard parameter times a coefficient: r → (its column, the coefficient)."""
    Y = np.asarray(base.Y, dtype=float)
    return {r: (int(terms[0]), Y[r, terms[0]]) for r, terms in enumerate(map(np.flatnonzero, Y)) if len(terms) == 1}


def physical_links(base, fit) -> list:
    """Per link, the body the consistent standard parameters describe (SI, link frame).

    Returns
    -------
    list of dict
        ``link`` (1-based), ``mass``, ``com`` (3), ``inertia_com`` (3×3, about the centre of mass),
        ``principal_moments`` (3), ``min_eigenvalue`` (of the pseudo-inertia J).
    """
    layout = ColumnLayout(base.robot, base.parameters)
    p_pseudo = _to_pseudo(layout) @ fit.p
    out = []
    for k, cols in enumerate(layout.link_columns, start=1):
        J = pseudo_matrix(p_pseudo[cols])
        m, com, inertia_com = body_of(J)
        out.append({"link": k, "mass": m, "com": com.tolist(), "inertia_com": inertia_com.tolist(),
                    "principal_moments": np.linalg.eigvalsh(inertia_com).tolist(),
                    "min_eigenvalue": float(np.linalg.eigvalsh(J)[0])})
    return out


__all__ = ["ConsistentFit", "PriorChoice", "cad_parameters", "consistent_fit", "parameters_at_bound", "physical_links"]
