"""Identification of floating-base robots (legged robots, humanoids, space robots) by three routes.

The equations of motion of a floating-base robot are linear in its standard parameters β (the base
body's ten and each link's, friction and rotor inertia where declared), with 6 + n rows:

    W(q, q̇, q̈) β = τ + Σ_c J_c(q)ᵀ w_c,        τ = [wrench applied to the base; joint torques],

w_c the wrench the environment exerts at contact frame c (:class:`~baseparam.dynamics.contacts.Contact`,
measured by a force plate or a foot/hand force-torque sensor). Three routes use different rows:

``route='torques'``
    All 6 + n rows: joint torques and contact wrenches (a legged robot on force plates; a space
    robot under joint torques, no contact).
``route='base'``
    The six base-link equations alone (Ayusawa et al.): no joint torque, so no friction, drive or
    rotor parameter enters; only the contact wrenches (and a wrench applied to the base) are
    needed. Every link's inertial parameters are in them.
``route='momentum'``
    A free-floating robot with no external wrench (and no gravity): its momentum h(t) = H(q, q̇) β
    [linear; angular about the world origin, world axes] is constant, so (H(t) − h̄) β = 0 at every
    sample (h̄ the mean over the motion: the same equations as differences from the first sample,
    less noise). Only joint positions and the base's pose and twist are needed: no force at all.

What a route sees comes from the exact base set alone (:func:`~baseparam.find_base_parameters`, the
projection method, the base's pose as a 6-DOF joint); no random state enters the library:

* all 6 + n rows see its regroupings Y;
* the base's six rows see the base parameters flagged ``seen_by_base_equations`` (the rows of those six
  equations in the projection: a second pass of the span recursion);
* the momentum sees the same ones. Without gravity (the route refuses it) the base's six rows are the
  momentum's rate: W_b(q, q̇, q̈) β = X(q) ḣ, h = H(q, q̇) β, X(q) the invertible map of a wrench from
  world axes (about the world origin) to the base frame. At each state the rows of W_b and of
  Ḣ = dH/dt are invertible combinations of one another, so over all states they span one space. The
  route's rows are differences H(x) − H(x'); their span is Ḣ's: each Ḣ is a limit of such
  differences over time (a closed, finite-dimensional span), and each difference is ∫ Ḣ dt along a
  motion from x' to x (the states are connected). As H(q, 0) = 0, it is also the span of H's rows.
  The tests check it against pinocchio's free-flyer regressor and its bodies' momenta.

Each combination is named after its pivot standard parameter (E[:, pivots] = I), its first; what a
given motion excites may be less (a barely excited direction shows as a large σ). The momentum route and
the base route of a robot without contacts are homogeneous (y = 0): the scale of β is not seen, and is
fixed by ``known`` quantities (one the route sees: the total mass; the base's own mass is regrouped into
it and not seen alone), stated in the result.

The fit: feasible generalized least squares. The rows of one sample share noise (a contact-wrench error enters
the base rows and the legs' torque rows through J_cᵀ, a q̇ error every row), so each sample's m rows (6 + n,
or 6) are taken to have one covariance Σ (m × m), the same for every sample, independent between samples.
First ordinary least squares; Σ̂ from its residual r_s (σ_row² = mean r²; correlation Σ_s r_s r_sᵀ / S
scaled to a unit diagonal, plus 10⁻¹² I; σ_row floored at 10⁻⁶ of the largest); then each
sample's rows (and right-hand side) multiplied by T = L⁻¹ D⁻¹ (D = diag σ_row, L the Cholesky factor of the
correlation): TᵀT = Σ̂⁻¹, so least squares of the whitened rows is the GLS estimate, its covariance
(Σ_s A_sᵀ Σ̂⁻¹ A_s)⁻¹ (on the constraints' null space); known quantities are equality constraints. One
round: more would let rows without noise of their own (a free robot's base rows with exact states) take the
weight. Every least squares is solved by a QR of the unit-scaled columns, not the normal equations (their
squared condition number made the estimate depend on the BLAS's thread count), and the whitening's sums run
elementwise in a fixed order, for the same reason. Noise in the states (q̇, q̈) makes the regressor itself
noisy: errors in variables. A q̇ error e_s moves a sample's rows by G_s e_s, G_s = ∂(A θ)/∂q̇ (A is quadratic
in q̇: a central difference is exact), so for the torques route each sample gets its own covariance
Σ_s = Σ0 + G_s diag(v) G_sᵀ: the q̇ variances v by the method of moments on the OLS residual (its centred
second moments regressed on those of G_s's columns; a coordinate kept only when 3 standard errors above 0 and
adding ≥ 1 % of the largest row's variance), Σ0 what the share leaves of the residual's second moment (its
eigenvalues, whitened, at least √(2/S)), G_s at the neighbours' states (independent of e_s); each sample
whitened by its own Cholesky factor (elementwise), the covariance scaled by the whitened residual's mean
square. With no q̇ noise found the fit is the one-covariance GLS above, bit for bit. The base route keeps
the one-covariance weights (the per-sample model made its σ generous beyond their χ² bounds), but when the same
moments find q̇ noise (a free robot's six homogeneous rows: all their noise), there are at least 10 samples
per fitted combination and no sample's leverage reaches 1, its covariance is the samples' sandwich
cov · Σ_s (A_sᵀ r_s)(A_sᵀ r_s)ᵀ · cov · S/(S − R) (whitened rows; cluster-robust, one cluster per sample): the
estimate unchanged, its σ right whatever the form of the state-dependent noise. A q̇ σ below 10⁻⁸ of the
coordinate's RMS velocity is the rows' round-off, not noise. docs/method.md gives the calibration measured
(bench/bench_floating_calibration.py).
``method='consistent'`` then finds the standard parameters nearest the estimate in the metric of its
covariance with every body's pseudo-inertia positive semidefinite, friction and rotor inertia ≥ 0
and the known quantities held (cvxpy + CLARABEL, as the fixed-base consistent fit).
The data are used as given (q, q̇, q̈ as logged or simulated: no filtering).
"""
from __future__ import annotations

import dataclasses
from numbers import Integral
from typing import Optional

import numpy as np

from .._checks import counted, is_file_name
from .._numbers import is_real, real_array
from .._stderr import solve_clarabel
from .._validation import (ABSURD, ABSURD_PARAMETER, QUATERNION_SLACK, check_field_kinds, check_field_shapes,
                           check_finite_fields, check_instance, check_item_count, check_name_fields, check_number,
                           check_option, check_parameter_vector, check_robot, check_samples, check_seed, float_fields,
                           shown)
from .._values import ComparedByValue
from .._warnings import deprecated_parameter, warn
from ..errors import (ArgumentError, DataError, DataWarning, SettingsError, SimulationError, long_values_shortened,
                      printable)
from ..model.parameters import ColumnLayout
from ..model.value import Model
from ..motion import Trajectory

_NO_RANDOM = "the exact base set decides what a route sees; nothing random happens"

__all__ = ["FloatingIdentification", "identify_floating", "route_combinations", "route_rows", "seen_combinations"]

ROUTES = ("torques", "base", "momentum")
METHODS = ("ols", "consistent")


def standard_rows(robot, q, qd, qdd):
    """W(q, q̇, q̈) of the standard parameters (pseudo), 6 + n rows: :func:`~baseparam.regressor`.

    Returns
    -------
    ndarray, shape (n_samples, n_v, n_standard)
    """
    from ..dynamics.regressors import regressor
    return regressor(Model(robot, parameters="pseudo"), q, qd, qdd)


def momentum_rows(robot, q, qd):
    """H(q, q̇) with h = H β the momentum [linear; angular about the world origin] in world axes.

    The base's rows of the regressor at rest with acceleration q̇, less those at rest (gravity), are the
    first six generalized momenta, M_base(q) q̇: the momentum [linear; angular about the frame-0
    origin] in frame-0 axes; the base pose moves it to the world.

    Returns
    -------
    ndarray, shape (n_samples, 6, n_standard)
    """
    from ..dynamics.floating import rotation_matrices
    from .._validation import check_robot_states
    from ..dynamics.tree import skew

    (q, qd), _ = check_robot_states(robot, q=q, qd=qd)
    zero = np.zeros_like(qd)
    local = (standard_rows(robot, q, zero, qd) - standard_rows(robot, q, zero, zero))[:, :6]
    R = rotation_matrices(q[:, 3:7])
    linear = R @ local[:, :3]
    return np.concatenate([linear, R @ local[:, 3:] + skew(q[:, :3]) @ linear], axis=1)


def route_rows(robot, route, q, qd, qdd=None):
    """The rows of a route in the standard parameters: all 6 + n (``'torques'``), the base's six
    (``'base'``) or the momentum's six (``'momentum'``, ``qdd`` unused).

    Returns
    -------
    ndarray, shape (n_samples, m, n_standard)
    """
    check_option(route, "route", ROUTES, error=SettingsError)
    if route == "momentum":
        return momentum_rows(robot, q, qd)
    W = standard_rows(robot, q, qd, qdd)
    return W if route == "torques" else W[:, :6]


def route_combinations(robot, route, seed=None, base=None):
    """What a route sees, from the exact base set alone (the projection method; module notes).

    All rows (``'torques'``): the base set's regroupings Y (:func:`~baseparam.find_base_parameters`).
    The base's six rows (``'base'``): the regroupings of the base parameters the base equations see
    (``seen_by_base_equations``, from the rows of those six equations in the projection). The momentum
    (``'momentum'``, no gravity): the same ones, as the base equations are the momentum's rate (module
    notes). No random state enters: the tests cross-check these spaces against pinocchio's free-flyer
    regressor and momentum at random states.

    Parameters
    ----------
    robot : Robot
        With a floating base (pseudo parameters).
    route : {'torques', 'base', 'momentum'}
    seed : int, optional
        Deprecated, no effect: nothing random happens (formerly the seed of a numeric confirmation);
        given, it warns (DeprecationWarning).
    base : BaseParameters, optional
        The robot's base set, if already found (pseudo parameters).

    Returns
    -------
    E : ndarray, shape (rank, n_standard)
        Row r is the r-th combination θ_r = E[r] · β; E[:, pivots] is the identity.
    pivots : list of int
        The standard parameter each combination is named after.
    source : str
        ``'projection'``.
    """
    from ..projection.base_set import find_base_parameters

    check_option(route, "route", ROUTES, error=SettingsError)
    if seed is not None:
        deprecated_parameter("route_combinations", "seed", _NO_RANDOM)
    base = find_base_parameters(robot, "pseudo") if base is None else base
    Y = np.asarray(base.Y, dtype=float)
    pivots = [list(base.standard_names).index(name) for name in base.names]
    if route == "torques":
        return Y, pivots, "projection"
    flags = base.seen_by_base_equations
    if flags is None:
        raise SettingsError("base: a base set without seen_by_base_equations (not a floating-base robot's)")
    flags = np.asarray(flags, dtype=bool)
    return Y[flags], [p for p, f in zip(pivots, flags) if f], "projection"


def seen_combinations(robot, route, seed=None):
    """The combinations of standard parameters a route sees: :func:`route_combinations`'s E and pivots.

    Kept for former callers; ``seed`` is deprecated and has no effect (this was a numeric answer from random
    states, now in the tests as a cross-check): given, it warns (DeprecationWarning).

    Returns
    -------
    E : ndarray, shape (rank, n_standard)
    pivots : list of int
    """
    if seed is not None:
        deprecated_parameter("seen_combinations", "seed", _NO_RANDOM)
    return route_combinations(robot, route)[:2]


def _check_known_field(known, standard_names):
    """Refuse a hand-built FloatingIdentification's ``known`` unless each entry is 'mass' or one of its
    ``standard_names`` (as :func:`identify_floating` takes them) with a finite number (its repr shows each by :g): at
    most one entry more than standard parameters (100 000 entries reached its repr)."""
    check_item_count("FloatingIdentification.known", len(known), len(standard_names) + 1,
                     f"entries of {len(standard_names)} standard parameters and 'mass'")
    names = set(standard_names)
    for name, value in known.items():
        if not (isinstance(name, str) and is_real(value)):
            raise ArgumentError(f"FloatingIdentification.known: {shown(name)}: {shown(value)}; expected a name "
                                f"(str) and a finite number")
        if name != "mass" and name not in names:
            raise ArgumentError(f"FloatingIdentification.known: {shown(name)} is neither 'mass' nor one of its "
                                "standard_names")


@dataclasses.dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class FloatingIdentification(ComparedByValue):
    """Parameters of a floating-base robot identified by one route.

    Attributes
    ----------
    route : str
    method : str
    names : list of str, length R
        Each identified combination named after its pivot standard parameter (``combinations()``
        spells them out).
    combinations_matrix : ndarray, shape (R, n_standard)
        θ = E β: the identified combinations of the standard parameters (pseudo).
    values : ndarray, shape (R,)
        The estimate of θ (the consistent one for ``method='consistent'``).
    std : ndarray, shape (R,)
        Standard deviations of the least-squares estimate (0 for what ``known`` fixes).
    covariance : ndarray, shape (R, R)
    unconstrained : ndarray, shape (R,)
        The least-squares estimate (with the known quantities, without the physical constraints).
    standard : ndarray, shape (n_standard,) or None
        ``consistent`` only: physically consistent standard parameters (their unseen directions are
        the prior's, the description's values where it has them).
    standard_names : list of str
    unseen : list of str
        Standard parameters no combination contains.
    known : dict
        The quantities that fixed the scale (name → value): ``'mass'`` or standard parameters.
    rows : list of str
        The equations fitted per sample.
    rmse : ndarray, shape (n_rows,)
        Root-mean-square residual per row (N, N·m, or momentum units).
    n_samples : int
    source : str
        Where the combinations come from: ``'projection'``, always (the exact base set's regroupings, or
        those of them the base equations see; module notes).
    """

    route: str
    method: str
    names: list
    combinations_matrix: np.ndarray
    values: np.ndarray
    std: np.ndarray
    covariance: np.ndarray
    unconstrained: np.ndarray
    standard: Optional[np.ndarray]
    standard_names: list
    unseen: list
    known: dict
    rows: list
    rmse: np.ndarray
    n_samples: int
    source: str = "projection"

    def __post_init__(self):
        # built by hand (the class is exported): a list where an array is kept reached .tolist() bare, a np.str_
        # route showed as np.str_('…') in the texts
        float_fields(self, ("combinations_matrix", "values", "std", "covariance", "unconstrained", "standard", "rmse"))
        # its methods read E against the names (from_standard, combinations): None would be numpy's bare matmul error
        check_name_fields(self, ("names", "standard_names", "unseen", "rows"))
        check_field_shapes(self, {"values": ("R",), "std": ("R",), "names": ("R",),
                                  "combinations_matrix": ("R", "n_standard"), "standard_names": ("n_standard",)},
                           optional=("std", "covariance", "unconstrained", "standard"))
        check_field_shapes(self, {"rmse": ("rows",), "rows": ("rows",)}, optional=())     # to_dict's per-row figures
        if len(self.unseen) > len(self.standard_names):          # some of the standard names: its texts list them
            raise ArgumentError(f"FloatingIdentification.unseen: {len(self.unseen)} names of "
                                f"{len(self.standard_names)} standard parameters")
        check_finite_fields(self, [name for name in ("values", "combinations_matrix", "standard", "rmse")
                                   if getattr(self, name) is not None])        # NaN estimates in its texts and JSON
        check_field_kinds(self, {"route": (str, "a str"), "method": (str, "a str"), "source": (str, "a str"),
                                 "n_samples": (Integral, "a whole number"), "known": (dict, "a dict")})
        _check_known_field(self.known, self.standard_names)

    @property
    def rank(self):
        return len(self.names)

    def __repr__(self):
        known = ", ".join(f"{k}={v:g}" for k, v in self.known.items()) or "none"
        return (f"FloatingIdentification(route={self.route!r}, method={self.method!r}, {self.rank} combinations "
                f"of {len(self.standard_names)} standard parameters, {len(self.unseen)} unseen, known: {known}, "
                f"{counted(self.n_samples, 'samples')})")

    def from_standard(self, p):
        """θ = E p: what the route identifies, of standard parameters ``p`` (n_standard,) or (n_standard, m), e.g. the
        truth."""
        return self.combinations_matrix @ check_parameter_vector(p, len(self.standard_names), "p", sets=True)

    def combinations(self, digits=6):
        """Each identified combination as text, ``'XX0 + 0.25·M1 − …'`` (``digits``: significant digits, 1 to 17)."""
        digits = check_number(digits, "digits", low=1, high=17, integer=True)
        out = []
        for row in self.combinations_matrix:
            terms = []
            for c in np.flatnonzero(row):
                v, name = row[c], self.standard_names[c]
                text = name if abs(v - 1) < 1e-12 else f"{abs(v):.{digits}g}·{name}"
                terms.append(("− " if v < 0 else "+ ") + text if terms else ("−" if v < 0 else "") + text)
            out.append(" ".join(terms))
        return out

    def to_dict(self):
        """JSON-ready dict: the route, each combination (name, text, value, standard deviation), the
        unseen standard parameters, the known quantities, per-row RMSE, and the consistent standard
        parameters when fitted."""
        out = {"route": self.route, "method": self.method, "n_samples": self.n_samples, "known": dict(self.known),
               "combinations": [{"name": n, "combination": c, "value": float(v), "std": float(s)}
                                for n, c, v, s in zip(self.names, self.combinations(), self.values, self.std)],
               "unseen": list(self.unseen), "rmse": dict(zip(self.rows, self.rmse.tolist()))}
        if self.standard is not None:
            out["standard"] = dict(zip(self.standard_names, self.standard.tolist()))
        return out

    def summary(self):
        """Text: each combination's estimate ± standard deviation."""
        lines = [repr(self)]
        for name, v, s, text in zip(self.names, self.values, self.std, self.combinations()):
            lines.append(f"  {name:>6} = {v:+.6g} ± {s:.3g}    ({text})")
        if self.unseen:
            lines.append("  unseen: " + " ".join(self.unseen))
        return "\n".join(lines)


def _known_rows(known, names):
    """(C (k × n_standard), values (k,), labels) of the known quantities: a standard parameter's name (of
    ``names``, the standard parameters) or 'mass' (the sum of every body's mass)."""
    C, v = [], []
    check_instance(known, "known", dict, "a dict of name → value, e.g. {'mass': 30.0}", allow_none=True)
    for key, value in (known or {}).items():
        c = np.zeros(len(names))
        if key == "mass":
            c[[i for i, nm in enumerate(names) if nm.startswith("M") and nm[1:].isdigit()]] = 1.0
        elif key in names:
            c[names.index(key)] = 1.0
        else:
            raise SettingsError(f"known: {shown(key)} is neither 'mass' nor a standard parameter name")
        value = real_array(f"known: {key}", value, SettingsError)
        if value.ndim:
            raise SettingsError(f"known: {key}: expected one number, got shape {value.shape}")
        value = float(value)
        if not abs(value) <= ABSURD:
            raise SettingsError(f"known: {key}: expected a finite number within ±{ABSURD:g}, got {shown(value)}")
        if key == "mass" and value <= 0:
            raise SettingsError(f"known: mass: expected the total mass in kg (> 0), got {shown(value)}")
        # a known value sets the scale of the estimates it fixes, whose variances are its square: below 1e-100 they
        # underflow (mass=1e-300 gave XX0 = 1.37e-301 ± 8.03, the σ of a 1 kg fit, and M0 ± 5e-15 for a known 0)
        if value != 0 and abs(value) < 1 / ABSURD_PARAMETER:
            expected = "the total mass in kg" if key == "mass" else "0 or a magnitude"
            raise SettingsError(f"known: {key}: expected {expected} from {1 / ABSURD_PARAMETER:g} to {ABSURD:g}, "
                                f"got {shown(value)}")
        C.append(c)
        v.append(value)
    return np.array(C).reshape(-1, len(names)), np.array(v), list(known or {})


def _unit_orientations(traj):
    """``traj`` with its base quaternions normalized when one is off by more than the dynamics' slack
    (``QUATERNION_SLACK``, on the norm), which refused it without naming the log; the Trajectory took it (within
    ``motion.ORIENTATION_SLACK``, as the readers do: a CSV written with two decimals, 0.71 for √½, is off by 0.4 %).
    Any other log is left as it is, bit for bit."""
    if not traj.floating:
        return traj
    norm = np.linalg.norm(traj.q[:, 3:7], axis=1)
    if (np.abs(norm - 1.0) <= QUATERNION_SLACK).all():
        return traj
    q = traj.q.copy()
    q[:, 3:7] /= norm[:, None]
    return dataclasses.replace(traj, q=q)


def _stack(robot, route, trajectories, contacts, wrenches, logged=False):
    """(A (S, m, R-free n_standard), y (S, m)) of every trajectory (``logged``: the wrenches are the logs' own)."""
    rows = [_rows_of(robot, route, traj, contacts, None if wrenches is None else wrenches[k], logged)
            for k, traj in enumerate(trajectories)]
    return np.concatenate([A for A, _ in rows]), np.concatenate([y for _, y in rows])


def _rows_of(robot, route, traj, contacts, wrench, logged):
    """(A (S, m, n_standard), y (S, m)) of one trajectory (``wrench``: its contacts' wrenches) for :func:`_stack`."""
    from ..dynamics.contacts import contact_forces
    if not getattr(traj, "floating", False) or traj.q.shape[1] != robot.n_q:
        raise DataError(f"{traj.source}: not a floating-base motion of this robot (q needs {robot.n_q} "
                        f"columns: base position, quaternion x y z w, {robot.n_dof} joints)")
    if traj.qd is None or (route != "momentum" and traj.qdd is None):
        raise DataError(f"{traj.source}: the {route} route needs q̇{'' if route == 'momentum' else ' and q̈'} "
                        "in the trajectory (floating-base data are used as given)")
    try:
        A = route_rows(robot, route, traj.q, traj.qd, traj.qdd)
    except ArgumentError as exc:
        raise _of_log(traj, exc) from None
    if route == "momentum":
        return A - A.mean(axis=0), np.zeros(A.shape[:2])          # (H(t) − H̄) β = 0
    if traj.tau is None:
        raise DataError(f"{traj.source}: no torques (τ) in the trajectory")
    y, _ = check_samples(f"{traj.source}: tau", traj.tau, robot.n_v, error=DataError)
    if contacts:
        try:
            y = y + contact_forces(robot, traj.q, contacts, wrench)
        except ArgumentError as exc:
            raise (_of_log(traj, exc) if logged else exc) from None
    return A, (y[:, :6] if route == "base" else y)


def _of_log(traj, exc):
    """The states' or wrenches' check ``exc`` naming the log they were read from (a bag's reader leaves them to
    the fit: its absurd values and slightly non-unit quaternions were refused without the file's name)."""
    return exc if traj.source == Trajectory.source else DataError(f"{traj.source}: {exc}")


# How far (in σ: an F statistic's square root, per known quantity) the data may disagree with the known quantities
# before a warning says so: the equations that see forces fix the scale themselves, and a known value is then held as
# an equality whatever they say (known={'mass': 1} of the 448 kg space robot on the torques route: every estimate
# pulled, without a word)
KNOWN_CONTRADICTED_SIGMA = 10.0


def _check_known_against_data(A, y, theta, G, g, labels, route):
    """One DataWarning when the data contradict the known quantities ``G θ = g``: held, they raise the residual's sum
    of squares beyond :data:`KNOWN_CONTRADICTED_SIGMA`² times its noise level per known quantity (an F statistic on
    the fit's whitened rows ``A``, ``y``; ``theta`` the fit holding them). A known quantity fixing what the data do not
    see raises nothing. Each known one the data see is said with what they find without it."""
    free, cov, dof = _constrained_lstsq(A, y, np.zeros((0, A.shape[1])), np.zeros(0))
    held, own = (float(np.sum((y - A @ t) ** 2)) for t in (theta, free))
    if dof <= 0 or held - own <= 1e-12 * float(y @ y):
        return
    if own > 0 and (held - own) / len(g) <= KNOWN_CONTRADICTED_SIGMA ** 2 * own / dof:
        return
    cov = cov * (own / dof)
    said = []
    for label, row, value in zip(labels, G, g):
        found, sd = float(row @ free), float(np.sqrt(max(row @ cov @ row, 0.0)))
        if sd > 0 and abs(found - value) > KNOWN_CONTRADICTED_SIGMA * sd:
            said.append(f"{label}={value:g} (without it {found:.6g} ± {sd:.2g}, {abs(found - value) / sd:.0f} σ away)")
    said = said or [f"{label}={value:g}" for label, value in zip(labels, g)]
    # the σ is the fit's, for noise in the forces alone: noise in the rates (q̇, q̈: errors in the variables) biases the
    # free fit without widening it (2 % of a space robot's mass at q̇ noise 0.05 over 2 000 samples, 13–17 σ; rv5),
    # so the line names that cause beside a wrong value, and a user does not drop a right one on its word alone
    warn(f"known: the data of the {route} route disagree with {', '.join(said)}; every estimate is held to the value "
         "given (check it: noisy velocities or accelerations also bias the fit without it)", DataWarning)


def _constrained_lstsq(A, y, G, g):
    """argmin ‖A θ − y‖ subject to G θ = g: θ = θ_p + Z φ (Z spanning G's null space).

    φ from a Householder QR of [A Z / d, y − A θ_p] (d the columns' norms: unit columns), then the SVD
    of its small triangle R: backward stable, so round-off moves φ by κ·ε (κ the unit columns'
    condition number), where the normal equations (ZᵀAᵀAZ) square it to κ²·ε. A barely excited
    direction (κ ≈ 10⁶ for solo12's base rows in stance: the legs' SZ alternating) then made the
    estimate depend on the BLAS's summation order (its thread count) at 10⁻⁴ relative.

    Returns
    -------
    theta : ndarray, shape (R,)
    cov : ndarray, shape (R, R)
        The unscaled covariance Z (ZᵀAᵀAZ)⁺ Zᵀ (singular values of A Z / d below max(rows, R)·ε of the
        largest: not seen, left out).
    dof : int
        The residual's degrees of freedom.
    """
    r = A.shape[1]
    if len(G):
        theta_p = np.linalg.lstsq(G, g, rcond=None)[0]
        _, s, Vt = np.linalg.svd(G)
        k = int((s > 1e-12 * s.max()).sum())
        Z = Vt[k:].T
        # a constraint fixing one coordinate alone (known={'SX1': 0} of a base parameter) holds exactly, not to the
        # SVD's round-off: its value set, its row of Z zero (known 0: 2.5e-29 with σ 3.5e-26 — its σ not even the
        # 0 that the relative test of a known value's gives)
        for row, value in zip(G, g):
            alone = np.abs(row) > 1e-12 * np.abs(row).max()
            if alone.sum() == 1:
                i = int(np.argmax(alone))
                theta_p[i], Z[i] = value / row[i], 0.0
        AZ, b = A @ Z, y - A @ theta_p
    else:
        theta_p, Z, k = np.zeros(r), np.eye(r), 0
        AZ, b = A, y
    n = AZ.shape[1]
    if n == 0:                                        # every direction known
        return theta_p, np.zeros((r, r)), max(A.shape[0], 1)
    norms = np.einsum("ij,ij->j", AZ, AZ)
    # a column the data never move (all zero: a base held still leaves its own inertia out of every row; with known
    # quantities, A Z's round-off of such columns, 1e-32 of the largest) is not seen: scaled by 1, not by 1/√tiny
    # or its own tiny norm, which made the SVD's round-off along it an estimate of 1e155 (1e31) with σ 1e-14
    seen = np.sqrt(norms) > max(AZ.shape) * np.finfo(float).eps * np.sqrt(norms.max())
    d = np.sqrt(np.where(seen, norms, 1.0))
    # the right-hand side as one more column: R's last column is Qᵀb (Householder goes column by column,
    # so R[:n, :n] is that of A Z / d alone) — Q itself is never formed
    T = np.linalg.qr(np.column_stack([AZ / d, b]), mode="r")
    if T.shape[0] < n + 1:      # fewer rows than unknowns: R padded with zero rows (the same least squares) to n × n
        T = np.vstack([T, np.zeros((n + 1 - T.shape[0], n + 1))])
    U, s, Vt = np.linalg.svd(T[:n, :n])
    keep = s > max(AZ.shape) * np.finfo(float).eps * (s[0] if s.size else 0.0)
    W = Vt[keep].T / s[keep]                          # (R Z)⁺ = V S⁻¹ Uᵀ on what the data see
    W[~seen] = 0.0
    phi = (W @ (U[:, keep].T @ T[:n, n])) / d
    cov = Z @ ((W @ W.T) / np.outer(d, d)) @ Z.T
    return theta_p + Z @ phi, cov, max(A.shape[0] - (r - k), 1)


# Floor of the rows' correlation matrix's eigenvalues (it has a unit diagonal): a combination of rows with no
# noise of its own (all-zero residuals, or rows equal by physics) weighs at most 10⁶ times a row's own σ, as the
# per-row floor below
CORRELATION_FLOOR = 1e-12
# The rows' correlation (m (m − 1) / 2 entries) is estimated only from a residual with at least this many times m²
# degrees of freedom (S m − R); with fewer, the rows' σ alone. The estimate of Σ⁻¹ from few samples adapts to the
# noise drawn: on the space robot's torques route (m = 12, R = 52) 10–16 samples gave d²/dof of 4–13000 (σ that
# optimistic), 30 samples (S m − R ≈ 2.1 m²) 0.8–1.3; per-row σ gave 0.4–1.5 at 10 samples
CORRELATION_SAMPLES = 3


def _whitening(residual, correlated=True):
    """T (m × m, lower triangular) with Tᵀ T = Σ̂⁻¹: the rows' covariance Σ̂ = D (C + δ I) D estimated from
    the residual, one for every sample.

    D = diag(σ_row), σ_row the residual's RMS per row (floored at 10⁻⁶ of the largest: all-zero residuals,
    no 0/0); C the residuals' correlation, Σ_s (r_s/σ)(r_s/σ)ᵀ / S with a unit diagonal, δ =
    ``CORRELATION_FLOOR``; T = L⁻¹ D⁻¹ with L the Cholesky factor of C + δ I. The sums run over samples in
    a fixed order (numpy's reductions, no BLAS): the weights must not depend on the BLAS's thread count.

    Parameters
    ----------
    residual : ndarray, shape (S, m)
    correlated : bool
        False: the rows' σ alone, T = D⁻¹ (too few samples for their correlation: ``CORRELATION_SAMPLES``).

    Returns
    -------
    ndarray, shape (m, m)
    """
    sigma = _row_sigma(residual)
    if not correlated:
        return np.diag(1.0 / sigma)
    L = np.linalg.cholesky(_correlation(residual, sigma))
    return _lower_inverse(L) / sigma[None, :]


def _correlation(residual, sigma):
    """C + δ I (m × m): the rows' correlation Σ_s (r_s/σ)(r_s/σ)ᵀ / S, symmetric, summed over samples in a fixed
    order (numpy's reductions, no BLAS), its diagonal 1 + δ (δ = ``CORRELATION_FLOOR``)."""
    u = residual / sigma
    C = np.empty((len(sigma), len(sigma)))
    for i in range(len(sigma)):
        C[i] = np.mean(u[:, i:i + 1] * u, axis=0)
    C = 0.5 * (C + C.T)
    # a row at its σ floor has a diagonal below 1; raising it keeps C ⪰ 0 (its |C_ij| ≤ √(C_ii C_jj) already)
    np.fill_diagonal(C, 1.0 + CORRELATION_FLOOR)
    return C


def _row_sigma(residual):
    """σ_row (m,): the residual's RMS per row, floored at 10⁻⁶ of the largest (all-zero residuals: no 0/0)."""
    sigma = np.sqrt(np.mean(residual ** 2, axis=0))
    if sigma.max() == 0:             # an exact fit: any weights give it; 1/tiny overflowed the rows to inf
        sigma = np.ones(len(sigma))
    return np.maximum(sigma, max(sigma.max() * 1e-6, np.finfo(float).tiny))


def _lower_inverse(L):
    """L⁻¹ of a lower-triangular L (m × m) by forward substitution, elementwise in a fixed order."""
    return _solve_lower(L[None], np.eye(len(L))[None])[0]


def _apply_rows(T, X):
    """T X_s for every sample, T lower triangular: the products summed term by term in column order (no BLAS).

    Parameters
    ----------
    T : ndarray, shape (m, m)
        Lower triangular (its upper entries are not read).
    X : ndarray, shape (n_samples, m, k)

    Returns
    -------
    ndarray, shape (n_samples, m, k)
    """
    m = T.shape[1]
    out = np.zeros(X.shape)
    term = np.empty(X.shape)
    for j in range(m):                                   # column j of T reaches rows j … m − 1
        np.multiply(T[None, j:, j, None], X[:, j:j + 1, :], out=term[:, j:])
        out[:, j:] += term[:, j:]
    return out


# Errors in variables: a coordinate's q̇ variance is kept only when its moment estimate stands this many of its
# standard errors above 0 (backward elimination, one-sided): the noise of a sample's rows then changes with the
# state. A fit with none kept is today's GLS, one covariance for every sample, bit for bit.
VELOCITY_NOISE_Z = 3.0
# ... and when it adds at least this share of the largest row's residual variance
VELOCITY_NOISE_SHARE = 0.01
# ... and when its standard deviation is at least this share of the coordinate's RMS velocity (≈ √ε): below, it is
# the rows' round-off, which grows with the state as a q̇ error's share does (exact states: the space robot's base
# rows, with no other noise, passed both tests above with 10⁻¹⁵ rad/s)
VELOCITY_ROUNDOFF = 1e-8


# The base route's covariance is the samples' sandwich (``_cluster_covariance``) when q̇ noise is found and there are at
# least this many samples per free combination: the sandwich's own sampling error then costs at most ~10 % in the
# errors' normalized norm (S/(S − R) of an estimated covariance; the space robot: 801 samples for 51, its sandwich's
# d²/R 0.97; on every 4th sample, 3.9 per combination, 1.51); solo12 in stance (321 for 94 in the tests, 801 in the
# bench: its sandwich's d²/R 1.93) keeps the model covariance
ROBUST_SAMPLES = 10
# ... and when no sample carries this much of the fit (its leverage tr H_s, H the hat matrix; the S leverages sum
# to R): a sample's residual is shrunk by its leverage, so where a few samples decide a direction their scores say
# little of its variance (solo12's base route in stance: 2.8, its sandwich's d²/R 1.9; the space robot: 0.73)
ROBUST_LEVERAGE = 1.0


def _leverages(cov, Aw):
    """Each sample's leverage tr(A_s cov A_sᵀ) (its share of the fit's R degrees of freedom), elementwise in a fixed
    order (no BLAS).

    Parameters
    ----------
    cov : ndarray, shape (R, R)
        The fit's unscaled covariance.
    Aw : ndarray, shape (n_samples, m, R)
        The fitted (whitened) rows of each sample.

    Returns
    -------
    ndarray, shape (n_samples,)
    """
    S, m, R = Aw.shape
    product = np.zeros((S, m, R))
    for r in range(R):
        product += Aw[:, :, r, None] * cov[None, None, r, :]
    return (product * Aw).sum(axis=(1, 2))


def _cluster_covariance(cov, Aw, rw, free):
    """The cluster-robust (sandwich) covariance of a least-squares fit, one cluster per sample:
    cov · Σ_s (A_sᵀ r_s)(A_sᵀ r_s)ᵀ · cov · S/(S − R), the last the small-sample factor (a fitted residual is
    smaller than the noise: R of the S·m degrees of freedom spent).

    The samples' rows may share noise of any covariance, changing from sample to sample; samples independent.
    Sums elementwise in a fixed order (no BLAS): the weights' thread-count freedom carried through.

    Parameters
    ----------
    cov : ndarray, shape (R, R)
        The fit's unscaled covariance (ZᵀAᵀAZ)⁺ on the constraints' null space (``_constrained_lstsq``).
    Aw : ndarray, shape (S, m, R)
        The fitted (whitened) rows of each sample.
    rw : ndarray, shape (S, m)
        Their residual.
    free : int
        The combinations fitted (R less the known quantities).

    Returns
    -------
    ndarray, shape (R, R)
    """
    S, m, R = Aw.shape
    score = np.zeros((S, R))
    for a in range(m):
        score += Aw[:, a, :] * rw[:, a, None]
    meat = np.empty((R, R))
    for a in range(R):
        meat[a] = np.sum(score[:, a:a + 1] * score, axis=0)
    half = np.sum(cov[:, :, None] * meat[None, :, :], axis=1)
    out = np.sum(half[:, :, None] * cov[None, :, :], axis=1) * (S / max(S - free, 1))
    return 0.5 * (out + out.T)


def _velocity_gradient(robot, layout, route, trajectories, pivots, theta):
    """G_s = ∂(A(q, q̇, q̈) θ)/∂q̇ at every sample: how a q̇ error moves a sample's rows (``layout``: the robot's
    ``ColumnLayout`` in pseudo parameters).

    A is quadratic in q̇ (Coriolis and centrifugal terms; viscous friction linear), so the central difference
    (A(q̇ + e_k) − A(q̇ − e_k)) θ / 2 is its exact derivative. Coulomb and Stribeck friction (sign(q̇)) have
    derivative 0 but where q̇ = 0: their columns are left out (θ's entry 0).

    Returns
    -------
    ndarray, shape (n_samples, m, n_v)
    """
    sign_columns = {c for (_, kind), c in layout.friction_columns.items() if kind in ("FC", "FS")}
    theta = np.where([p in sign_columns for p in pivots], 0.0, theta)
    out = []
    for traj in trajectories:
        qd = np.asarray(traj.qd, dtype=float)
        G = np.empty((len(qd), 6 if route == "base" else robot.n_v, robot.n_v))
        for k, step in enumerate(np.eye(robot.n_v)):
            plus = route_rows(robot, route, traj.q, qd + step, traj.qdd)[:, :, pivots]
            minus = route_rows(robot, route, traj.q, qd - step, traj.qdd)[:, :, pivots]
            # elementwise products summed along the last axis (numpy's pairwise sum, no BLAS): thread-count free
            G[:, :, k] = 0.5 * ((plus - minus) * theta).sum(axis=-1)
        # at the neighbours' states: G at a sample's own q̇ holds its error e_s (A is quadratic in q̇), so weights
        # built from it would fall where the residual G_s e_s is large, and the moments h hᵀ would hold e_s too;
        # the mean of the two neighbours (one at either end) is independent of e_s and, for a motion sampled
        # faster than it changes, the gradient at the sample's own state
        if len(G) > 2:
            G = np.concatenate([G[1:2], 0.5 * (G[:-2] + G[2:]), G[-2:-1]])
        out.append(G)
    return np.concatenate(out)


def _velocity_noise(residual, gradient, sigma, floor=None):
    """The q̇ variances v_k of the model r_s = ε_s + G_s e_s, Cov ε_s = Σ0, e_s ~ N(0, diag v), by the method of
    moments on the OLS residual.

    The centred second moments vech(u_s u_sᵀ) − mean (u = r/σ_row) regressed on those of h_{s,k} h_{s,k}ᵀ per
    coordinate k (h = G/σ_row) — the constant Σ0 drops out — by least squares; a coordinate whose v is not at
    least ``VELOCITY_NOISE_Z`` standard errors above 0 (heteroscedasticity-robust: the samples' moment vectors
    are independent) is dropped, the weakest first, and the rest refitted; one that adds less than
    ``VELOCITY_NOISE_SHARE`` of the largest row's residual variance to every row is dropped too. Sums
    elementwise in a fixed order.

    Parameters
    ----------
    residual : ndarray, shape (n_samples, m)
    gradient : ndarray, shape (n_samples, m, n_v)
    sigma : ndarray, shape (m,)
    floor : ndarray, shape (n_v,), optional
        The least q̇ standard deviation taken for noise, per coordinate (``VELOCITY_ROUNDOFF``): below it, the
        rows' round-off.

    Returns
    -------
    ndarray, shape (n_v,)
        0 for every coordinate dropped.
    """
    i, j = np.triu_indices(gradient.shape[1])
    u = residual / sigma
    h = gradient / sigma[None, :, None]
    Y = u[:, i] * u[:, j]
    Y = Y - Y.mean(axis=0)
    X = np.ascontiguousarray(h[:, i, :] * h[:, j, :])   # (S, m(m+1)/2, n_v); C order fixes the sums' order
    X = X - X.mean(axis=0)
    scale = np.sqrt(np.sum(X * X, axis=(0, 1)))
    kept = [k for k in range(len(scale)) if scale[k] > 0]
    found = np.zeros(len(scale))
    while kept:
        Xk = X[:, :, kept] / scale[kept]
        K = len(kept)
        gram = np.array([[np.sum(Xk[:, :, a] * Xk[:, :, b]) for b in range(K)] for a in range(K)])
        rhs = np.array([np.sum(Xk[:, :, a] * Y) for a in range(K)])
        try:
            inverse = np.linalg.inv(gram)
        except np.linalg.LinAlgError:                    # collinear coordinates: drop the last, try again
            kept = kept[:-1]
            continue
        w = np.sum(inverse * rhs, axis=1)
        e = Y - np.sum(Xk * w, axis=2)
        score = np.sum(Xk * e[:, :, None], axis=1)        # (S, K): each sample's share of Xᵀe
        meat = np.array([[np.sum(score[:, a] * score[:, b]) for b in range(K)] for a in range(K)])
        cov = np.array([[np.sum(inverse[a][:, None] * meat * inverse[:, b][None, :]) for b in range(K)]
                        for a in range(K)])
        z = w / np.sqrt(np.maximum(np.diag(cov), np.finfo(float).tiny))
        weakest = int(np.argmin(z))
        if z[weakest] >= VELOCITY_NOISE_Z:
            found[kept] = w / scale[kept]
            break
        kept.pop(weakest)
    # a q̇ error that adds less than VELOCITY_NOISE_SHARE of the largest row's residual variance moves no weight
    # that matters: left out. Not row by row: with exact states a free robot's base rows have no noise of their
    # own, their tiny residual is the fit's own error A_s (θ̂ − θ), state-dependent too, and would pass for q̇ noise
    share = np.mean(gradient ** 2, axis=0).max(axis=0)      # per coordinate: the mean G² of the row it moves most
    v = np.where(found * share >= VELOCITY_NOISE_SHARE * np.max(sigma ** 2), found, 0.0)
    if floor is not None:
        v[v < np.asarray(floor) ** 2] = 0.0
    return v


def _sample_covariances(residual, gradient, v, sigma):
    """Σ_s / (σ_row σ_rowᵀ) = Σ0 + Σ_k v_k h_{s,k} h_{s,k}ᵀ + δ I per sample (h = G/σ_row, δ =
    ``CORRELATION_FLOOR``).

    Σ0 is the residuals' second moment M less the q̇ share's mean, taken in the coordinates that whiten M
    (M = K Kᵀ, K the Cholesky factor of the correlation plus δ I): there I − mean K⁻¹ h hᵀ K⁻ᵀ, its
    eigenvalues raised to √(2/S), the relative standard error of a second moment over S samples. Below it
    the moments cannot tell a direction's own noise from 0, and a direction claimed noise-free (rows without
    noise of their own, e.g. a free robot's base rows, whose estimate is then ± that error) mixed with the
    joints' rows would take their torque noise's weight away: the fit's σ far too small.

    Returns
    -------
    ndarray, shape (S, m, m)
    """
    S, m, n = gradient.shape
    h = gradient / sigma[None, :, None]
    K = np.linalg.cholesky(_correlation(residual, sigma))
    Kinv = _lower_inverse(K)
    share = np.zeros((S, m, m))
    for k in range(n):
        if v[k] > 0:
            share += v[k] * (h[:, :, None, k] * h[:, None, :, k])
    mean_share = share.mean(axis=0)
    white = np.sum(Kinv[:, None, :, None] * mean_share[None, None, :, :] * Kinv[None, :, None, :], axis=(2, 3))
    white = np.eye(m) - 0.5 * (white + white.T)
    lam, V = np.linalg.eigh(white)
    white = np.sum(V[:, None, :] * V[None, :, :] * np.maximum(lam, np.sqrt(2.0 / S)), axis=-1)
    sigma0 = np.sum(K[:, None, :, None] * white[None, None, :, :] * K[None, :, None, :], axis=(2, 3))
    return share + 0.5 * (sigma0 + sigma0.T) + CORRELATION_FLOOR * np.eye(m)


def _rows_times(A, x):
    """A x (A (N, k), x (k,)), each row's products summed along it (numpy's pairwise sum, no BLAS)."""
    return (A * x).sum(axis=1)


def _whiten_samples(cov, X):
    """L_s⁻¹ X_s for every sample, L_s the Cholesky factor of cov_s: elementwise, in a fixed order (no LAPACK,
    no BLAS).

    Parameters
    ----------
    cov : ndarray, shape (n_samples, m, m)
    X : ndarray, shape (n_samples, m, k)

    Returns
    -------
    ndarray, shape (n_samples, m, k)
    """
    S, m, _ = cov.shape
    L = np.zeros_like(cov)
    for a in range(m):
        for b in range(a + 1):
            total = cov[:, a, b].copy()
            for c in range(b):
                total -= L[:, a, c] * L[:, b, c]
            if a == b:
                L[:, a, a] = np.sqrt(np.maximum(total, np.finfo(float).tiny))
            else:
                L[:, a, b] = total / L[:, b, b]
    return _solve_lower(L, X)


def _solve_lower(L, X):
    """L_s⁻¹ X_s for every sample by forward substitution, elementwise in a fixed order (no LAPACK, no BLAS).

    Parameters
    ----------
    L : ndarray, shape (n_samples, m, m)
        Lower triangular (its upper entries are not read).
    X : ndarray, shape (n_samples, m, k)

    Returns
    -------
    ndarray, shape (n_samples, m, k)
    """
    out = np.empty(X.shape)
    for a in range(X.shape[1]):
        row = X[:, a, :].copy()
        for c in range(a):
            row -= L[:, a, c, None] * out[:, c, :]
        out[:, a, :] = row / L[:, a, a, None]
    return out


def identify_floating(robot, data, *, route="torques", contacts=(), wrenches=None, known=None, method="ols",
                      prior=None, seed=None, base=None) -> FloatingIdentification:
    """Identify a floating-base robot's parameters by one route (module notes).

    Parameters
    ----------
    robot : Robot, Model or str
        With a floating base (``base: floating``, or a URDF with a floating root); pseudo parameters.
    data : Trajectory or list of Trajectory
        Floating-base motions (``floating=True``: q with the base pose, q̇ and q̈ with the base twist
        and its rate, τ with the wrench applied to the base (zero when none) and the joint torques).
        The ``momentum`` route needs q and q̇ only.
    route : {'torques', 'base', 'momentum'}
    contacts : sequence of Contact
        The contact frames whose wrenches were measured.
    wrenches : array_like, shape (n_samples, n_contacts, 6), or a list of them (one per trajectory)
        The wrench [f, n] the environment exerts on the robot at each contact, in the contact frame's
        axes, moment about its origin. Default: the trajectories' own ``wrenches`` (as
        ``bp.read_trajectory(path, robot=robot, contacts=contacts)`` reads them).
    known : dict, optional
        Quantities known beforehand, name → value: ``'mass'`` (the sum of all masses, kg) or a
        standard parameter's name. Needed for a homogeneous route (the momentum route; the base route
        without contacts, or whose forces are round-off beside the joint torques); held exactly otherwise.
        Without it, an estimate not told from 0 (its forces within their noise) warns (DataWarning).
        It must be a quantity the route sees: the total mass always is; the base's own mass ``'M0'``
        usually is not (the masses regroup into their sum), and is refused then.
    method : {'ols', 'consistent'}
    prior : array_like, shape (n_standard,), optional
        ``consistent`` only: the standard parameters the unseen directions are pulled to (default: the
        description's values where it has them, else 0).
    seed : int, optional
        Deprecated, no effect: the exact base set decides what each route sees (formerly the seed of random
        states that confirmed it); given, it is still checked (an int ≥ 0) and warns (DeprecationWarning).
    base : BaseParameters, optional
        The robot's base set (pseudo parameters), if already found.

    Returns
    -------
    FloatingIdentification

    Examples
    --------
    The space robot floating freely while its arms move: its momentum alone, the scale from its mass.

    >>> import numpy as np, baseparam as bp
    >>> model = bp.Model(bp.load_robot("robots/space_robot.yaml"))
    >>> k = np.arange(1, 7)
    >>> ex = bp.free_floating_experiment(model, np.linspace(0, 10, 201), lambda t, q, qd: 3 * np.sin(0.5 * k * t + k),
    ...                                  noise=bp.SensorNoise(qd=0.001, seed=0), twist_noise=0.0005)
    >>> result = bp.identify_floating(model, ex.log, route="momentum", known={"mass": 448.0})
    >>> result.rank, result.source, result.names[:3]
    (52, 'projection', ['XX0', 'YY0', 'ZZ0'])
    >>> bool(np.all(np.abs(result.values - result.from_standard(ex.parameters)) <= 3 * result.std + 1e-9))
    True
    """
    from ..model.loading import load_robot

    check_option(route, "route", ROUTES, error=SettingsError)
    check_option(method, "method", METHODS, error=SettingsError)
    robot = getattr(robot, "robot", robot)                 # a bp.Model: its robot (its values are not needed)
    robot = load_robot(robot) if is_file_name(robot) else check_robot(robot)
    if seed is not None:       # deprecated and unused, but still refused when it is not a seed
        check_seed(seed, legacy="identify_floating")
        deprecated_parameter("identify_floating", "seed", _NO_RANDOM)
    if not robot.is_floating:
        raise SettingsError(f"robot: {shown(robot.name)} has a fixed base; use bp.identify")
    from ..dynamics.contacts import Contact, check_contacts

    trajectories = list(data) if isinstance(data, (list, tuple)) else [data]
    if not trajectories:
        raise SettingsError("data: no trajectory given")
    trajectories = [_unit_orientations(check_instance(traj, "data", Trajectory, "a Trajectory or a list of them"))
                    for traj in trajectories]
    contacts = check_contacts((contacts,) if isinstance(contacts, Contact) else contacts, robot)
    logged = False
    if contacts:
        if wrenches is None and all(getattr(t, "wrenches", None) is not None for t in trajectories):
            wrenches, logged = [t.wrenches for t in trajectories], True          # read with the log
        if wrenches is None:
            raise SettingsError("wrenches: contacts are given but no wrenches")
        wrenches = [real_array("wrenches", w) for w in (wrenches if isinstance(wrenches, list) else [wrenches])]
        if len(wrenches) != len(trajectories):
            raise SettingsError(f"wrenches: {len(wrenches)} arrays for {len(trajectories)} trajectories")
    elif wrenches is not None:
        raise SettingsError("wrenches: given without contacts (which frames are they measured in?)")
    if route == "momentum" and contacts:
        raise SettingsError("contacts: the momentum route is for a robot no external wrench acts on")
    from .imu import ImuTrajectory
    imu = next((t for t in trajectories if isinstance(t, ImuTrajectory)), None)
    if route == "momentum" and imu is not None:
        raise SettingsError(f"data: {imu.source}: the base comes from an IMU, which measures neither the base's "
                            "position nor its linear velocity: the momentum route needs them (use the torques or "
                            "base route, or read the base from an Odometry or PoseStamped topic)")
    if route == "momentum" and np.any(robot.gravity_si):
        raise SettingsError(f"route: the momentum of {shown(robot.name)} is not conserved under its gravity "
                            f"{np.asarray(robot.gravity_si).tolist()}; the momentum route is for a robot in orbit "
                            "(gravity: [0, 0, 0])")
    layout = ColumnLayout(robot, "pseudo")
    names = list(layout.names)
    if base is not None:
        from ..projection.base_set import BaseParameters
        check_instance(base, "base", BaseParameters, "the robot's BaseParameters")
        if list(base.standard_names) != names:
            raise SettingsError(f"base: not the base set of {shown(robot.name)} in pseudo parameters "
                                f"({len(base.standard_names)} standard parameters for its {len(names)})")
    if prior is not None:
        prior = real_array("prior", prior, SettingsError)
        if prior.shape != (layout.n_standard,) or not (np.abs(prior) <= ABSURD).all():
            raise SettingsError(f"prior: expected {layout.n_standard} finite standard parameters, got "
                                + (f"shape {prior.shape}" if prior.shape != (layout.n_standard,) else "NaN, inf or "
                                   f"beyond ±{ABSURD:g}"))
    E, pivots, source = route_combinations(robot, route, base=base)
    C, c_values, labels = _known_rows(known, names)
    # a known quantity must be one the route sees: a combination of E's rows
    # γ E = c with E[:, pivots] = I: γ = c[pivots] exactly (a least-squares γ carried round-off: known={'SX1': 0.3}
    # held as 0.29999999999999993), checked over all of c below
    G = C[:, pivots] if len(C) else np.zeros((0, len(E)))
    for label, c, gamma in zip(labels, C, G):
        if np.abs(gamma @ E - c).max() > 1e-8 * max(np.abs(c).max(), 1.0):
            raise SettingsError(f"known: the {route} route does not see {shown(label)} (it cannot fix the scale)")
    A3, y2 = _stack(robot, route, trajectories, contacts, wrenches, logged)
    homogeneous = not np.any(y2)
    if homogeneous and not len(C):
        raise SettingsError(f"known: the {route} route's equations are homogeneous here (no force enters them): "
                            "give a known quantity, e.g. known={'mass': total mass in kg}")
    if route == "base" and not len(C):
        _refuse_round_off_forces(y2, trajectories)
    if homogeneous and not np.any(c_values):
        # equations and known values all zero: θ = 0 fits them exactly, so the least squares returned every estimate 0
        # (and the consistent fit the prior's pull alone), silently (known={'XX1': 0} on the space robot)
        raise SettingsError(f"known: the {route} route's equations are homogeneous here (no force enters them) and "
                            f"every known value is 0 ({', '.join(map(str, labels))}): the scale is not fixed "
                            "(every estimate would be 0); give a nonzero known quantity, "
                            "e.g. known={'mass': total mass in kg}")
    S, m, _ = A3.shape
    # (S, m, R): every row lies in E's row space and E[:, pivots] = I, so A β = A[:, pivots] θ exactly — the
    # pivots' own columns, no product with a pseudo-inverse (its round-off in every entry)
    Ab = A3[:, :, pivots]
    # feasible GLS: each sample's rows whitened by their covariance, estimated from the OLS residual (module
    # notes). One round: more would let rows without noise of their own (a free robot's base rows, zero by
    # physics, with exact states) take all the weight and pull a homogeneous fit towards θ = 0
    theta, _, _ = _constrained_lstsq(Ab.reshape(S * m, -1), y2.ravel(), G, c_values)
    # a row correlation (and the q̇ share's moments) needs samples: below 3 m² degrees of freedom of the
    # residual its estimate is noise itself and the σ far too small; each row its own σ then
    correlated = S * m - Ab.shape[2] >= CORRELATION_SAMPLES * m * m
    free = Ab.shape[2] - (np.linalg.matrix_rank(G) if len(G) else 0)
    robust = route == "base" and correlated and S >= ROBUST_SAMPLES * free
    residual = y2 - Ab @ theta
    noise = np.zeros(robot.n_v)
    if (route == "torques" and correlated) or robust:
        # errors in variables: a q̇ error moves a sample's rows by G_s e_s, so their covariance changes with
        # the state (module notes); none found, today's one covariance for every sample. Not the base route's
        # weights: there (a free robot's six homogeneous rows, all their noise through q̇) they made the σ
        # generous beyond their χ² bounds even with the true q̇ variances (docs/method.md); its per-sample
        # noise (a free robot's homogeneous rows: all of it) is, when found and the samples many, held by the
        # covariance instead: below, a sandwich
        gradient = _velocity_gradient(robot, layout, route, trajectories, pivots, theta)
        sigma = _row_sigma(residual)
        qd = np.concatenate([np.asarray(t.qd, dtype=float) for t in trajectories])
        noise = _velocity_noise(residual, gradient, sigma, floor=VELOCITY_ROUNDOFF * np.sqrt(np.mean(qd ** 2, 0)))
    if route == "torques" and np.any(noise > 0):
        cov_s = _sample_covariances(residual, gradient, noise, sigma)
        Aw = _whiten_samples(cov_s, Ab / sigma[None, :, None]).reshape(S * m, -1)
        yw = _whiten_samples(cov_s, (y2 / sigma)[:, :, None]).ravel()
        theta, cov, dof = _constrained_lstsq(Aw, yw, G, c_values)
        rows_fitted = (Aw, yw)
        # the model's level is estimated (Σ0 from what the q̇ share leaves, raised where the moments cannot
        # resolve it; v by their sampling error): weights known up to a scale, which the whitened
        # residual's mean square estimates
        cov = cov * (np.sum((yw - _rows_times(Aw, theta)) ** 2) / dof)
    else:
        T = _whitening(residual, correlated=correlated)
        Aw, yw = _apply_rows(T, Ab), _apply_rows(T, y2[:, :, None])[:, :, 0]
        theta, cov, _ = _constrained_lstsq(Aw.reshape(S * m, -1), yw.ravel(), G, c_values)
        rows_fitted = (Aw.reshape(S * m, -1), yw.ravel())
        if robust and np.any(noise > 0) and _leverages(cov, Aw).max() < ROBUST_LEVERAGE:
            # one covariance weighs every sample alike, but a q̇ error's share of a sample's rows, G_s e_s,
            # grows with the state as the rows do: the model covariance is optimistic there (d²/R 1.28 on
            # the space robot); the samples' own scores hold it whatever the noise's form
            cov = _cluster_covariance(cov, Aw, yw - _rows_times(Aw.reshape(S * m, -1), theta).reshape(S, m), free)
    if len(G) and not homogeneous:
        _check_known_against_data(*rows_fitted, theta, G, c_values, labels, route)
    # the rows' own covariance (not one pooled factor): a noise-free row at the floor must not shrink the others'
    std = np.sqrt(np.maximum(np.diag(cov), 0.0))
    std[std <= 1e-10 * np.abs(theta)] = 0.0          # what the known quantities fix (round-off aside)
    standard, values = None, theta
    if method == "consistent":
        if prior is None:
            try:
                prior = Model(robot).values()
            except Exception:                        # a description without inertias: no prior values
                prior = np.zeros(layout.n_standard)
        standard = _consistent(layout, E, theta, cov, C, c_values, np.asarray(prior, dtype=float))
        values = E @ standard
    if not len(C):
        _warn_scale_not_seen(route, values, cov)
    rows = ["fx", "fy", "fz", "nx", "ny", "nz"] if route != "momentum" else ["px", "py", "pz", "Lx", "Ly", "Lz"]
    if route == "torques":
        rows += [j.name or f"joint {k + 1}" for k, j in enumerate(robot.joints)]
    rmse = np.sqrt(np.mean((y2 - Ab @ values) ** 2, axis=0))
    unseen = [names[c] for c in range(len(names)) if not np.any(E[:, c])]
    return FloatingIdentification(route=route, method=method, names=[names[p] for p in pivots],
                                  combinations_matrix=E, values=values, std=std, covariance=cov,
                                  unconstrained=theta, standard=standard, standard_names=names, unseen=unseen,
                                  known=dict(zip(labels, c_values.tolist())), rows=rows, rmse=rmse, n_samples=S,
                                  source=source)


# The base route's forces (the base's wrench and the contacts') at most this fraction of the same logs' joint torques
# are round-off: a free motion's contact wrenches computed as a difference of inertial forces (1e-14 N beside 30 N·m)
ROUND_OFF_FORCES = 1e-12


def _refuse_round_off_forces(y2, trajectories):
    """Refuse the base route without a known quantity when its forces are round-off beside the logs' joint torques
    (:data:`ROUND_OFF_FORCES`): the equations are then homogeneous but for round-off, whose fit made every estimate
    about 0 (M = 8e-13 kg for the 448 kg space robot) without a word, where exactly zero forces are refused.

    Parameters
    ----------
    y2 : ndarray, shape (n_samples, 6)
        The base rows' forces.
    trajectories : list of Trajectory
        Their logs (τ: the base's wrench, then the joint torques).
    """
    torques = max((float(np.abs(np.asarray(t.tau, dtype=float)[:, 6:]).max(initial=0.0)) for t in trajectories),
                  default=0.0)
    forces = float(np.abs(y2).max(initial=0.0))
    if torques > 0 and forces <= ROUND_OFF_FORCES * torques:
        raise SettingsError(f"known: the base route's equations are homogeneous here but for round-off (the base's "
                            f"and the contacts' forces at most {forces:.2g}, beside joint torques of {torques:.3g}): "
                            "give a known quantity, e.g. known={'mass': total mass in kg}")


def _warn_scale_not_seen(route, values, cov):
    """Warn when a fit without a known quantity does not tell its estimate from 0: θ = 0 within the χ² test's
    99.9 % bound, ``θᵀ cov⁺ θ`` over the directions the data see. The forces entering the equations (the base's
    wrench, the contacts', the joint torques) then do not fix the estimates' scale. Exactly zero forces are refused
    as homogeneous before the fit; forces at round-off (the contact wrenches of a free motion, 1e-14 N) or within
    their noise gave every estimate about 0 (M = 8e-13 ± 1e-12 kg for the 448 kg space robot) without a word.

    Parameters
    ----------
    route : str
    values, cov : ndarray, shapes (R,) and (R, R)
        The estimate and its covariance.
    """
    from scipy.stats import chi2

    if not (np.isfinite(cov).all() and np.isfinite(values).all()):     # an SVD of NaN raises (LinAlgError)
        return
    seen = np.linalg.matrix_rank(cov)
    if not seen:
        return
    distance = float(values @ np.linalg.pinv(cov, hermitian=True) @ values)
    if not distance > chi2.ppf(0.999, seen):
        warn(f"identify_floating: the {route} route's estimate is not told from 0 (θᵀ cov⁻¹ θ = {distance:.3g} over "
             f"{seen} directions seen, within the χ² test's 99.9 % bound): the forces entering its equations "
             "(wrenches, torques) do not fix the estimates' scale; give a known quantity, e.g. "
             "known={'mass': total mass in kg}", DataWarning)


def _consistent(layout, E, theta, cov, C, c_values, prior):
    """Standard parameters β nearest θ̂ in the metric cov⁻¹ (θ = E β), every body's pseudo-inertia ⪰ 0,
    friction and rotor inertia ≥ 0, the known quantities held; a tiny pull to ``prior`` fixes the
    directions the data do not see."""
    import cvxpy as cp

    from ._consistent import nonnegative_columns
    from ._payload_math import metric_root, pseudo_expression

    L, w = metric_root(np.linalg.pinv(cov))
    beta = cp.Variable(layout.n_standard)
    scale = max(np.abs(w).max(), 1e-300)
    objective = cp.sum_squares(L @ (E @ beta - theta)) / scale + 1e-8 * cp.sum_squares(beta - prior)
    constraints = []
    bodies = ([layout.base_columns] if layout.base_columns is not None else []) + list(layout.link_columns)
    for cols in bodies:
        J = pseudo_expression([beta[int(i)] for i in cols])
        constraints.append(0.5 * (J + J.T) >> 0)
    constraints += [beta[int(col)] >= 0 for col in nonnegative_columns(layout, ("FV", "FC"))]
    if len(C):
        constraints.append(C @ beta == c_values)
    problem = cp.Problem(cp.Minimize(objective), constraints)
    try:
        solve_clarabel(problem)                    # a Rust panic: a SolverError, its text kept off stderr
    except cp.error.SolverError as exc:        # a numerical failure (errors.py), said on one line
        said = long_values_shortened(printable(" ".join(str(exc).split()))) or type(exc).__name__
        raise SimulationError(f"consistent fit: the solver failed ({said})") from None
    if beta.value is None:
        raise SimulationError(f"consistent fit: no solution ({problem.status})")
    return np.asarray(beta.value, dtype=float)
