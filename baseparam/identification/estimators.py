"""Identification of the base parameters from measured trajectories: least squares with statistics.

τ = W_b(q, q̇, q̈) p_base + noise, stacked over samples and joints. The base regressor W_b has
full column rank for any exciting trajectory (its columns are the base set), so the fit is a plain
least-squares problem:

* **Streaming normal equations.** W_b is never held whole: its blocks (2048 samples) are
  accumulated into one Gram matrix per joint, G_j = W_jᵀ W_j, with W_jᵀ τ_j and τ_jᵀ τ_j.
  100 000 samples of a 7-DOF arm cost one regressor pass and a few dense products. The Gram is
  equilibrated (unit diagonal) before it is solved, so the conditioning seen is that of the
  data, not of the units; directions the data do not determine (eigenvalues below 1e-12 of the
  largest) are left out, with a warning, instead of producing huge numbers.
* **Ordinary or weighted least squares.** OLS minimises the pooled squared torque error.
  WLS (Gautier) weights each joint's equations by 1/σ_j, σ_j² = ‖ρ_j‖² / (N − c_j) from the OLS
  residuals of joint j (c_j: the parameters that joint sees), which makes the standard deviations
  meaningful when the joints' noise levels differ. Per-joint Grams make both one pass.
* **Statistics.** WLS: Cov(p̂) = σ² (Wᵀ W)⁻¹ (weighted), σ² = ‖ρ‖² / (r − c); OLS: the sandwich
  G⁻¹(Σ_j σ_j² W_jᵀW_j)G⁻¹, right when the joints' noise levels differ; both inflated by N/N_eff
  when τ was low-passed (filtered noise is correlated: N samples hold about N·2f_c/f_s
  independent values; a Monte-Carlo check is in the tests); per parameter the
  standard deviation and the relative standard deviation 100 σ_p / |p| (Gautier's criterion: above
  ~10 % a parameter is poorly identified), the condition number of the base regressor (raw, and
  column-scaled: the units-free figure), and the residual RMS per joint.
* **Parallel filtering** (``Preprocessing.decimate``): each segment's regressor columns and τ are
  low-pass filtered and downsampled together (``scipy.signal.decimate``, zero phase).

Use :func:`identify` for a one-call fit and validation, or :class:`BaseParameterEstimator` in the
scikit-learn style (``fit``/``predict``/``score``, fitted attributes end in ``_``).
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from ..projection.base_set import BaseParameters, find_base_parameters
from ..errors import DataError, DataWarning, ExcitationWarning, NotFittedError
from ..model.loading import load_robot
from .preprocessing import Preprocessing, Processed, preprocess, states_at_samples
from ..dynamics.regressors import column_blocks
from ..model.robot import Robot
from ..dynamics._samples import states
from .trajectory import Trajectory, read_trajectory

METHODS = ("ols", "wls")
# Eigenvalues of the equilibrated Gram below this fraction of the largest: not determined by the data.
NULL_TOLERANCE = 1e-12
# Warnings for poor excitation: column-scaled condition number, and relative std (Gautier's 10 %).
CONDITION_WARNING = 1e3
REL_STD_WARNING = 10.0
# A training NRMSE above this (%) says the data do not match the model (units, gains, columns).
POOR_FIT = 50.0
# Standard parameters that cannot be negative (diagonal second moments/inertias, mass, friction, rotor).
SIGN_DEFINITE = re.compile(r"^(XX|YY|ZZ|M|FV|FC|IA)\d+$")


@dataclass
class Metrics:
    """Torque prediction errors on the samples kept after preprocessing.

    Attributes
    ----------
    rmse : ndarray, shape (n_dof,)
        RMS(τ_measured − τ_predicted) per joint (N·m or N).
    nrmse_percent : ndarray, shape (n_dof,)
        rmse / RMS(τ_measured), per joint, in %.
    nrmse_pooled_percent : float
        √Σe² / √Στ² over all joints at once, in %.
    n_samples : int
    t, tau, predicted : ndarray, shapes (S,), (S, n_dof), (S, n_dof)
        The compared samples (for plots); ``t`` restarts in each file.
    sources : list of str
    """

    rmse: np.ndarray
    nrmse_percent: np.ndarray
    nrmse_pooled_percent: float
    n_samples: int
    t: np.ndarray = field(repr=False)
    tau: np.ndarray = field(repr=False)
    predicted: np.ndarray = field(repr=False)
    sources: list = field(default_factory=list)

    @classmethod
    def compare(cls, tau, predicted, t=None, sources=()):
        """Error figures of predictions ``predicted`` (S, n) against measurements ``tau`` (S, n)."""
        e2, t2 = ((tau - predicted) ** 2).sum(axis=0), (tau ** 2).sum(axis=0)
        S = tau.shape[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            nrmse = np.where(t2 > 0, 100.0 * np.sqrt(e2 / np.where(t2 > 0, t2, 1.0)), np.nan)
        pooled = 100.0 * np.sqrt(e2.sum() / t2.sum()) if t2.sum() > 0 else float("nan")
        return cls(rmse=np.sqrt(e2 / S), nrmse_percent=nrmse, nrmse_pooled_percent=float(pooled), n_samples=S,
                   t=np.arange(S, dtype=float) if t is None else t, tau=tau, predicted=predicted,
                   sources=list(sources))

    def to_dict(self):
        """rmse, nrmse_percent, nrmse_pooled_percent and n_samples (docs/formats.md, section
        "Identification result")."""
        return {"rmse": _floats(self.rmse), "nrmse_percent": _floats(self.nrmse_percent),
                "nrmse_pooled_percent": _float(self.nrmse_pooled_percent), "n_samples": int(self.n_samples)}


def _float(x):
    return None if not np.isfinite(x) else float(x)


def _floats(a):
    return [_float(x) for x in np.asarray(a, float)]


@dataclass
class _Normal:
    """Per-joint normal equations of a fit: G_j = W_jᵀW_j (n, R, R), h_j = W_jᵀτ_j (n, R), τ_jᵀτ_j (n,)."""

    G: np.ndarray
    h: np.ndarray
    tt: np.ndarray
    n_samples: int = 0

    @classmethod
    def empty(cls, n, R):
        return cls(np.zeros((n, R, R)), np.zeros((n, R)), np.zeros(n))

    def add(self, part, tau):
        """Accumulate a block: part (n, R, s) regressor columns, tau (s, n)."""
        self.G += np.matmul(part, part.transpose(0, 2, 1))
        self.h += np.einsum("jcs,sj->jc", part, tau)
        self.tt += (tau ** 2).sum(axis=0)
        self.n_samples += tau.shape[0]

    def residuals(self, x):
        """‖τ_j − W_j x‖² per joint, from the accumulated products (no second pass)."""
        rr = self.tt - 2.0 * self.h @ x + np.einsum("c,jcd,d->j", x, self.G, x)
        return np.maximum(rr, 0.0)   # rounding can make a perfect fit's zero slightly negative


def _solve(G, h):
    """Least-squares solution of the normal equations G x = h, equilibrated, with its null space.

    Returns
    -------
    x : ndarray, shape (R,)
    G_inv : ndarray, shape (R, R)
        Pseudo-inverse of G (on the determined subspace).
    cond_scaled, cond_raw : float
    null : ndarray, shape (R, k)
        Directions (in the original columns) the data do not determine.
    """
    R = len(h)
    d = np.sqrt(np.maximum(np.diag(G), 0.0))
    active = np.flatnonzero(d > 0)            # an all-zero column: its parameter is not seen at all
    G_inv, null = np.zeros((R, R)), [np.eye(R)[:, [c]] for c in np.flatnonzero(d == 0)]
    cond_scaled = cond_raw = float("inf")
    if len(active):
        scale = 1.0 / d[active]
        lam, V = np.linalg.eigh(G[np.ix_(active, active)] * np.outer(scale, scale))
        top = lam[-1]
        ok = lam > NULL_TOLERANCE * top
        G_inv[np.ix_(active, active)] = ((V[:, ok] / lam[ok]) @ V[:, ok].T) * np.outer(scale, scale)
        if len(active) == R:
            cond_scaled = float(np.sqrt(top / lam[0])) if lam[0] > 0 else float("inf")
            lam_raw = np.linalg.eigvalsh(G)
            cond_raw = float(np.sqrt(lam_raw[-1] / lam_raw[0])) if lam_raw[0] > 0 else float("inf")
        for v in (V[:, ~ok] * scale[:, None]).T:
            full = np.zeros(R)
            full[active] = v
            null.append(full[:, None])
    x = G_inv @ h
    null = np.hstack(null) if null else np.zeros((R, 0))
    return x, G_inv, cond_scaled, cond_raw, null


def _as_trajectories(data, what):
    """A list of Trajectory/Processed from one or several trajectories, file names or arrays."""
    items = list(data) if isinstance(data, (list, tuple)) and not _is_state_tuple(data) else [data]
    if not items:
        raise DataError(f"{what}: no trajectory given")
    out = []
    for item in items:
        if isinstance(item, (str, Path)):
            item = read_trajectory(item)
        elif _is_state_tuple(item):          # arrays without time stamps: used as given
            q, qd, qdd, tau = (np.asarray(a, float) for a in item)
            S = len(q)
            if not all(a.shape == q.shape and a.ndim == 2 for a in (qd, qdd, tau)):
                raise DataError(f"{what}: (q, qd, qdd, tau) must have the same shape (n_samples, n_dof), got "
                                f"{', '.join(str(a.shape) for a in (q, qd, qdd, tau))}")
            if not all(np.isfinite(a).all() for a in (q, qd, qdd, tau)):
                raise DataError(f"{what}: (q, qd, qdd, tau) contain NaN or inf")
            item = Processed(t=np.arange(S, dtype=float), q=q, qd=qd, qdd=qdd, tau=tau, segment=np.zeros(S, int),
                             kept=np.ones(S, bool), source=f"<{what} arrays>",
                             record={"preprocessing": "none (arrays)"})
        if not isinstance(item, (Trajectory, Processed)):
            raise DataError(f"{what}: expected a Trajectory, a file name or a (q, qd, qdd, tau) tuple, "
                            f"got {type(item).__name__}")
        out.append(item)
    return out


def _is_state_tuple(x):
    return isinstance(x, tuple) and len(x) == 4 and all(isinstance(a, np.ndarray) for a in x)


class BaseParameterEstimator:
    """Least-squares identification of base parameters, in the scikit-learn style.

    Parameters
    ----------
    robot : Robot or str
        The description (friction and rotor-inertia columns where it declares them), or its file.
    method : {'ols', 'wls'}
        Ordinary least squares (default: the smallest pooled torque error) or Gautier's weighted
        least squares (per-joint weights from the OLS residual variance).
    preprocessing : Preprocessing or None
        Applied to every :class:`Trajectory` given to ``fit``/``predict``/``score`` (None: as
        logged; :class:`Processed` data are used as they are).
    parameters : {'pseudo', 'khalil'}
    base : BaseParameters, optional
        A base set already found for ``robot`` (saves the projection step).

    Attributes
    ----------
    base_ : BaseParameters
    names_ : list of str, length R
    coef_ : ndarray, shape (R,)
        Estimated base parameters (SI).
    std_ : ndarray, shape (R,)
        Their standard deviations.
    rel_std_percent_ : ndarray, shape (R,)
        100 std / |value|.
    condition_number_ : float
        Condition number of the (weighted) base regressor as fitted.
    condition_number_scaled_ : float
        The same with unit column norms: independent of units and parameter scales.
    sigma_ : ndarray, shape (n_dof,)
        Per-joint residual standard deviation of the OLS fit (the WLS weights are 1/sigma_).
    sigma_fit_ : float
        Standard deviation of the (weighted) residual, σ² = ‖ρ‖² / (r − c).
    correlation_factor_ : float
        N / N_eff by which the covariance σ²(WᵀW)⁻¹ is inflated because low-passed noise is
        correlated (N_eff ≈ N·2f_c/f_s; 1 without filtering or with decimation to 2f_c).
    rmse_, nrmse_percent_ : ndarray, shape (n_dof,)
    nrmse_pooled_percent_ : float
        Training errors.
    n_samples_ : int
    preprocessing_ : list of dict
        What preprocessing did to each training trajectory.
    undetermined_ : list of str
        Base parameters that dominate directions the data did not determine (empty when
        the data excite every base parameter).
    impossible_ : list of str
        Base parameters that are a single sign-definite standard parameter (XX, YY, ZZ, M, FV,
        FC, IA) but were estimated more than 2σ below zero: a sign of unmodelled effects.
    """

    def __init__(self, robot, *, method="ols", preprocessing: Optional[Preprocessing] = Preprocessing(),
                 parameters="pseudo", base: Optional[BaseParameters] = None):
        self.robot = robot
        self.method = method
        self.preprocessing = preprocessing
        self.parameters = parameters
        self.base = base

    # -- scikit-learn's parameter protocol (clone, grid search) --
    def get_params(self, deep=True):
        """The constructor's arguments, as scikit-learn's ``BaseEstimator.get_params``."""
        return {"robot": self.robot, "method": self.method, "preprocessing": self.preprocessing,
                "parameters": self.parameters, "base": self.base}

    def set_params(self, **params):
        """Set constructor arguments (unknown names → DataError); returns self."""
        for key, value in params.items():
            if key not in self.get_params():
                raise DataError(f"set_params: unknown parameter {key!r}")
            setattr(self, key, value)
        return self

    def __repr__(self):
        return f"BaseParameterEstimator(method={self.method!r}, parameters={self.parameters!r})"

    # -- helpers --
    def _check(self):
        if self.method not in METHODS:
            raise DataError(f"method: expected one of {', '.join(METHODS)}, got {self.method!r}")
        if self.preprocessing is not None and not isinstance(self.preprocessing, Preprocessing):
            raise DataError(f"preprocessing: expected a Preprocessing or None, got {type(self.preprocessing).__name__}")

    def _base(self):
        robot = load_robot(self.robot) if isinstance(self.robot, (str, Path)) else self.robot
        if not isinstance(robot, Robot):
            raise DataError(f"robot: expected a Robot or a description file, got {type(robot).__name__}")
        if self.base is not None:
            if self.base.robot.signature() != robot.signature() or self.base.parameters != self.parameters:
                raise DataError("base: it was found for another robot or parameterization")
            return self.base
        return find_base_parameters(robot, self.parameters)

    def _processed(self, data, what):
        out = []
        for item in _as_trajectories(data, what):
            self._check_joints(item)                          # before preprocessing: no work for wrong data
            if isinstance(item, Trajectory):
                item = preprocess(item, self.preprocessing or Preprocessing.none())
            out.append(item)
        return out

    def _check_joints(self, item):
        if item.n_dof != self.base_.robot.n_dof:
            raise DataError(f"{item.source}: {item.n_dof} joints in the data, "
                            f"{self.base_.robot.n_dof} in the robot description")

    def _accumulate(self, processed):
        """Per-joint normal equations over the kept samples (parallel filtering when asked)."""
        base = self.base_
        normal = _Normal.empty(base.robot.n_dof, base.rank)
        factor = 1 if self.preprocessing is None else self.preprocessing.decimate
        self._effective = 0.0
        for item in processed:
            before = normal.n_samples
            self._accumulate_item(item, factor, normal)
            self._effective += (normal.n_samples - before) * _independent_fraction(item, factor)
        if normal.n_samples <= base.rank:
            raise DataError(f"{processed[0].source}: {normal.n_samples} samples kept for {base.rank} base parameters; "
                            "need more data (or less rest trimming)")
        dead = np.flatnonzero(normal.tt == 0)
        if len(dead):
            raise DataError(f"{processed[0].source}: field tau{dead[0] + 1}: the torque is zero in every sample "
                            "(a dead sensor or a wrong column map?)")
        return normal

    def _accumulate_item(self, item, factor, normal):
        base = self.base_
        if factor == 1:
            q, qd, qdd, tau = (a[item.kept] for a in (item.q, item.qd, item.qdd, item.tau))
            (q, qd, qdd), _ = states(base.robot.n_dof, q=q, qd=qd, qdd=qdd)
            for sl, part in column_blocks(base.robot, q, qd, qdd, parameters=base.parameters, columns=base.pivots):
                normal.add(part, tau[sl])
            return
        for sl in item.segments():
            _decimated_segment(base, item, sl, factor, normal)

    # -- scikit-learn interface --
    def fit(self, X, y=None):
        """Fit the base parameters to one or several trajectories.

        Parameters
        ----------
        X : Trajectory, Processed, str, (q, qd, qdd, tau) tuple of (S, n_dof) arrays, or a list of these
            Training data; files are read with :func:`read_trajectory` (plain formats). Trajectories
            are preprocessed; Processed data and array tuples are used as given.
        y : None
            Unused (the torques are part of the trajectories); present for scikit-learn.

        Returns
        -------
        self
        """
        return self._fit(X, stacklevel=4)

    def _fit(self, X, stacklevel):
        self._check()
        self.base_ = self._base()
        processed = self._processed(X, "fit")
        normal = self._accumulate(processed)
        n, R = normal.h.shape
        x, G_inv, cond_s, cond_r, null = _solve(normal.G.sum(0), normal.h.sum(0))
        rr = normal.residuals(x)
        N = normal.n_samples
        seen = np.count_nonzero(np.diagonal(normal.G, axis1=1, axis2=2) > 0, axis=1)   # c_j per joint
        self.sigma_ = np.sqrt(rr / np.maximum(N - seen, 1))
        weights = np.ones(n)
        if self.method == "wls":
            # A (nearly) noise-free joint would get an unbounded weight, and its σ_j is then only the
            # round-off of the residual sums: weights are bounded to 10⁴ : 1.
            floor = 1e-2 * self.sigma_.max()
            weights = 1.0 / np.maximum(self.sigma_, floor) ** 2 if floor > 0 else np.ones(n)
            Gw, hw = np.einsum("j,jcd->cd", weights, normal.G), weights @ normal.h
            x, G_inv, cond_s, cond_r, null = _solve(Gw, hw)
            rr = normal.residuals(x)
        dof = max(N * n - (R - null.shape[1]), 1)
        self.sigma_fit_ = float(np.sqrt((weights * rr).sum() / dof))
        self.coef_ = x
        self.names_ = list(self.base_.names)
        self.undetermined_ = self._undetermined(null)
        # A low-passed τ has correlated noise: N samples carry about N·2f_c/f_s independent ones,
        # and σ²(WᵀW)⁻¹, which counts every sample, would be that much too optimistic.
        self.correlation_factor_ = float(N / max(self._effective, 1.0))
        if self.method == "wls":
            variance = self.sigma_fit_ ** 2 * np.diag(G_inv)
        else:
            # OLS under per-joint noise levels σ_j: Cov = G⁻¹ (Σ_j σ_j² W_jᵀW_j) G⁻¹ (the sandwich);
            # σ²G⁻¹ would assume every joint as noisy as their average
            middle = np.einsum("j,jcd->cd", self.sigma_ ** 2, normal.G)
            variance = np.einsum("cd,de,ec->c", G_inv, middle, G_inv)
        self.std_ = np.sqrt(self.correlation_factor_ * np.maximum(variance, 0.0))
        self.std_[[self.names_.index(name) for name in self.undetermined_]] = np.inf   # the data say nothing
        with np.errstate(divide="ignore", invalid="ignore"):
            self.rel_std_percent_ = np.where(np.abs(x) > 0, 100.0 * self.std_ / np.abs(x), np.inf)
        self.condition_number_, self.condition_number_scaled_ = cond_r, cond_s
        self.n_samples_ = N
        self.preprocessing_ = [item.record for item in processed]
        self.train_ = self._metrics(processed)
        self.rmse_, self.nrmse_percent_ = self.train_.rmse, self.train_.nrmse_percent
        self.nrmse_pooled_percent_ = self.train_.nrmse_pooled_percent
        self.impossible_ = self._impossible()
        self._warn(stacklevel)
        return self

    def predict(self, X):
        """Predicted joint torques, τ̂ = W_b(q, q̇, q̈) p̂ (+ friction, rotor terms as modelled), at
        every sample of the input.

        Parameters
        ----------
        X : Trajectory, Processed, str, a (q, qd, qdd, tau) tuple, or a list of these; or one
            (q, qd, qdd) tuple of (S, n_dof) arrays (predicted as given)
            A :class:`Trajectory` (or file) is predicted at its own time stamps, none dropped or
            resampled, so that row ``i`` lines up with ``X.t[i]``, ``X.tau[i]``. Its states are those
            the fit's preprocessing gives: the filtered q, q̇, q̈ (q̇ and q̈ derived by central
            differences of the filtered signals when not logged) on the preprocessing grid,
            interpolated linearly back to the input's time stamps (see
            :func:`~baseparam.identification.preprocessing.states_at_samples`). Rest samples and
            segment ends, which ``fit`` and ``score`` leave out, are predicted too. A
            :class:`Processed` trajectory is predicted at all its samples. Several trajectories:
            their predictions are concatenated in order.

        Returns
        -------
        ndarray, shape (n_samples_in, n_dof)
            ``n_samples_in`` = the total number of input samples. For the kept samples only
            (those ``score``/``validate`` compare), use ``validate(X).predicted`` with
            ``validate(X).t``.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        """
        self._fitted()
        if isinstance(X, tuple) and len(X) == 3:
            return self.base_.inverse_dynamics(self.coef_, *X)
        out = []
        for item in _as_trajectories(X, "predict"):
            self._check_joints(item)
            if isinstance(item, Trajectory):
                q, qd, qdd = states_at_samples(item, self.preprocessing or Preprocessing.none())
            else:
                q, qd, qdd = item.q, item.qd, item.qdd
            # a lone sample between time gaps has no derivative: its prediction is NaN, not an error
            ok = np.isfinite(q).all(axis=1) & np.isfinite(qd).all(axis=1) & np.isfinite(qdd).all(axis=1)
            tau = np.full(q.shape, np.nan)
            if ok.any():
                tau[ok] = self.base_.inverse_dynamics(self.coef_, q[ok], qd[ok], qdd[ok])
            out.append(tau)
        return np.concatenate(out)

    def _predict_processed(self, item):
        q, qd, qdd = (a[item.kept] for a in (item.q, item.qd, item.qdd))
        return self.base_.inverse_dynamics(self.coef_, q, qd, qdd)

    def validate(self, X):
        """Error figures of the predicted torques on (held-out) trajectories, pooled over them.

        Returns
        -------
        Metrics
        """
        self._fitted()
        return self._metrics(self._processed(X, "validate"))

    def score(self, X, y=None):
        """Coefficient of determination of the torques, 1 − Σe²/Στ² (pooled; 1 is perfect).

        It is 1 − (pooled NRMSE / 100)², so that higher is better, as scikit-learn expects.
        """
        return 1.0 - (self.validate(X).nrmse_pooled_percent / 100.0) ** 2

    def _metrics(self, processed):
        tau = np.concatenate([item.tau[item.kept] for item in processed])
        pred = np.concatenate([self._predict_processed(item) for item in processed])
        t = np.concatenate([item.t[item.kept] - item.t[0] for item in processed])
        return Metrics.compare(tau, pred, t, [item.source for item in processed])

    def _fitted(self):
        if not hasattr(self, "coef_"):
            raise NotFittedError("this BaseParameterEstimator is not fitted yet: call fit() first")

    def _undetermined(self, null):
        """Names of the base parameters with the largest weight in each undetermined direction."""
        names = []
        for v in np.abs(null.T):
            if v.max() > 0:
                names += [self.base_.names[i] for i in np.flatnonzero(v > 0.3 * v.max())
                          if self.base_.names[i] not in names]
        return names

    def _impossible(self):
        """Base parameters that are one sign-definite standard parameter, estimated clearly negative.

        XX, YY, ZZ (diagonal second moments or inertias), M, viscous and Coulomb friction FV, FC
        and rotor inertia IA cannot be negative; a base parameter that is exactly one of them (its
        regrouping has a single positive term) and lies more than 2σ below zero means the model
        misses something the data contain (an unmodelled effect absorbed by the fit).
        """
        out = []
        for r, (name, value, std) in enumerate(zip(self.names_, self.coef_, self.std_)):
            terms = np.flatnonzero(self.base_.Y[r])
            if len(terms) != 1 or self.base_.Y[r, terms[0]] <= 0:
                continue
            if SIGN_DEFINITE.match(self.base_.standard_names[terms[0]]) and value < -2.0 * std:
                out.append(name)
        return out

    def _warn(self, stacklevel):
        """Say when the data cannot tell what the fit reports (Gautier's criteria), or contradict physics."""
        if self.undetermined_:
            warnings.warn(f"the data do not determine some base parameters (they are set by a minimum-norm "
                          f"choice): {' '.join(self.undetermined_)}; excite those joints/motions", ExcitationWarning,
                          stacklevel=stacklevel)
        if self.condition_number_scaled_ > CONDITION_WARNING:
            warnings.warn(f"poor excitation: the column-scaled condition number of the base regressor is "
                          f"{self.condition_number_scaled_:.3g} (> {CONDITION_WARNING:g})", ExcitationWarning,
                          stacklevel=stacklevel)
        poor = [n for n, r in zip(self.names_, self.rel_std_percent_) if r > REL_STD_WARNING]
        if poor:
            shown = " ".join(poor[:12]) + (" …" if len(poor) > 12 else "")
            warnings.warn(f"{len(poor)} of {len(self.names_)} base parameters have a relative standard deviation "
                          f"above {REL_STD_WARNING:g} % (poorly identified by these data): {shown}",
                          ExcitationWarning, stacklevel=stacklevel)
        if self.nrmse_pooled_percent_ > POOR_FIT:
            warnings.warn(f"the model explains the training torques poorly (NRMSE {self.nrmse_pooled_percent_:.3g} %): "
                          "check units (degrees? ms?), drive gains, the column map and the friction model",
                          DataWarning, stacklevel=stacklevel)
        if self.impossible_:
            shown = ", ".join(f"{n} = {v:.3g}" for n, v in zip(self.names_, self.coef_) if n in self.impossible_)
            warnings.warn(f"physically impossible estimates (these cannot be negative): {shown}; the model misses "
                          "an effect in the data (e.g. joint elasticity, a sensor offset, unmodelled friction)",
                          ExcitationWarning, stacklevel=stacklevel)


def _independent_fraction(item, factor):
    """Share of a processed trajectory's (decimated) samples that carry independent noise.

    A zero-phase low-pass at f_c leaves about 2·f_c independent values per second (the effective
    bandwidth of the noise); at a sampling step h·factor that is min(1, 2·f_c·h·factor) per sample.
    """
    record = item.record if isinstance(item.record, dict) else {}
    cutoff = record.get("cutoff_hz")
    if not record.get("filtered") or cutoff is None or len(item.t) < 2:
        return 1.0
    h = float(np.median(np.diff(item.t)))
    return min(1.0, 2.0 * cutoff * h * factor)


def _decimated_segment(base, item, sl, factor, normal):
    """Parallel filtering of one segment: W_b columns and τ decimated together, then accumulated."""
    from scipy import signal     # here, not at the top: scipy.signal alone takes ~0.7 s to import
    (q, qd, qdd), _ = states(base.robot.n_dof, q=item.q[sl], qd=item.qd[sl], qdd=item.qdd[sl])
    if len(q) <= 27 * factor:    # scipy's zero-phase IIR decimation needs this many samples
        return
    W = base.regressor(q, qd, qdd)                                     # (s, n, R)
    Wd = signal.decimate(W, factor, axis=0, zero_phase=True)
    tau = signal.decimate(item.tau[sl], factor, axis=0, zero_phase=True)
    kept = item.kept[sl][::factor][:len(tau)]
    Wd, tau = Wd[kept], tau[kept]
    if len(tau):
        normal.add(np.ascontiguousarray(Wd.transpose(1, 2, 0)), tau)


@dataclass
class Identification:
    """Result of :func:`identify`: the fitted estimator, its statistics and the validation figures.

    Attributes
    ----------
    estimator : BaseParameterEstimator
    train : Metrics
    validation : Metrics or None
    """

    estimator: BaseParameterEstimator
    train: Metrics
    validation: Optional[Metrics] = None

    @property
    def base(self):
        return self.estimator.base_

    @property
    def values(self):
        """Estimated base parameters (R,), SI."""
        return self.estimator.coef_

    def table(self):
        """Rows (name, value, std, rel_std_percent) in base-parameter order."""
        e = self.estimator
        return list(zip(e.names_, e.coef_, e.std_, e.rel_std_percent_))

    def to_dict(self):
        """The ``identify --json`` document (docs/formats.md, section "Identification result")."""
        e = self.estimator
        doc = {
            "robot": e.base_.robot.name,
            "parameters": e.base_.parameters,
            "method": e.method,
            "base": [{"name": n, "value": _float(v), "std": _float(s), "rel_std_percent": _float(r)}
                     for n, v, s, r in self.table()],
            "condition_number": _float(e.condition_number_),
            "condition_number_scaled": _float(e.condition_number_scaled_),
            "sigma_per_joint": _floats(e.sigma_),
            "correlation_factor": _float(e.correlation_factor_),
            "undetermined": list(e.undetermined_),
            "physically_impossible": list(e.impossible_),
            "train": self.train.to_dict(),
            "validation": None if self.validation is None else self.validation.to_dict(),
            "preprocessing": e.preprocessing_,
        }
        return doc

    def summary(self):
        """A readable text report (the CLI prints it)."""
        e = self.estimator
        lines = [f"{e.base_.robot.name}: {len(e.names_)} base parameters identified by {e.method.upper()} from "
                 f"{e.n_samples_} samples × {e.base_.robot.n_dof} joints",
                 f"condition number of the base regressor: {e.condition_number_:.4g} "
                 f"(column-scaled: {e.condition_number_scaled_:.4g})", "",
                 f"  {'':>3}  {'name':<8} {'value':>14} {'std':>12} {'rel std %':>10}"]
        for k, (n, v, s, r) in enumerate(self.table(), 1):
            flag = "  poorly identified" if r > REL_STD_WARNING else ""
            lines.append(f"  {k:>3}  {n:<8} {v:>14.6g} {s:>12.4g} {r:>10.3g}{flag}")
        lines.append("")
        for label, m in (("train", self.train), ("validation", self.validation)):
            if m is None:
                continue
            per = " ".join(f"{x:.2f}" for x in m.nrmse_percent)
            lines.append(f"{label}: NRMSE pooled {m.nrmse_pooled_percent:.2f} %  per joint [{per}] %  "
                         f"({m.n_samples} samples)")
        return "\n".join(lines)


def identify(robot, train, *, validate=None, method="ols", preprocessing: Optional[Preprocessing] = Preprocessing(),
             parameters="pseudo", base: Optional[BaseParameters] = None) -> Identification:
    """Identify the base parameters of ``robot`` from training trajectories, and validate them.

    Parameters
    ----------
    robot : Robot or str
        Description (friction and rotor-inertia columns where declared) or its YAML file.
    train : Trajectory, str, (q, qd, qdd, tau) tuple, or a list of these
        Training data (files in the plain formats: header CSV, NPZ, HDF5; use
        :func:`read_trajectory` for column maps and motor currents).
    validate : same as ``train``, optional
        Held-out trajectories: their errors are pooled into ``result.validation``.
    method : {'ols', 'wls'}
    preprocessing : Preprocessing or None
    parameters : {'pseudo', 'khalil'}
    base : BaseParameters, optional

    Returns
    -------
    Identification

    Examples
    --------
    >>> import numpy as np, baseparam as bp
    >>> robot = bp.load_robot("robots/planar_rrr.yaml")
    >>> base = bp.find_base_parameters(robot)
    >>> t = np.linspace(0, 10, 2001)
    >>> q = np.column_stack([np.sin(0.7 * k * t + k) for k in (1, 2, 3)])
    >>> p = np.random.default_rng(1).uniform(0.1, 1, len(base.standard_names))
    >>> qd, qdd = np.gradient(q, t, axis=0), np.gradient(np.gradient(q, t, axis=0), t, axis=0)
    >>> tau = bp.inverse_dynamics(robot, p, q, qd, qdd)
    >>> result = bp.identify(robot, bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau), preprocessing=None)
    >>> bool(np.allclose(result.values, base.from_standard(p)))
    True
    """
    estimator = BaseParameterEstimator(robot, method=method, preprocessing=preprocessing, parameters=parameters,
                                       base=base)._fit(train, stacklevel=4)   # warnings point at the caller
    validation = None if validate is None else estimator.validate(validate)
    return Identification(estimator=estimator, train=estimator.train_, validation=validation)
