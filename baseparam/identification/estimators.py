"""Identification of the base parameters from measured trajectories: least squares with statistics.

τ = W_b(q, q̇, q̈) p_base + noise, stacked over samples and joints. The base regressor W_b has
full column rank for any exciting trajectory (its columns are the base set), so the fit is a plain
least-squares problem. The fit itself (streamed normal equations, OLS/WLS, standard deviations,
condition numbers) is in :mod:`._least_squares`, the result types in :mod:`.results`.

Use :func:`identify` for a one-call fit and validation, or :class:`BaseParameterEstimator` in the
scikit-learn style (``fit``/``predict``/``score``, fitted attributes end in ``_``).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Optional

import numpy as np

from .._checks import is_file_name, plain_texts, shown
from .._blas import single_threaded
from ..projection.base_set import BaseParameters, find_base_parameters
from .._validation import (check_instance, check_mass_bounds, check_mass_range, check_number, check_option,
                           check_real_array)
from .._warnings import warn
from ..errors import ArgumentError, DataWarning, ExcitationWarning, NotFittedError, SettingsError
from ..model.loading import load_robot
from .preprocessing import Preprocessing, Processed, preprocess
from ..model.robot import Robot
from ..model.value import description_of
from ._inputs import _as_trajectories, check_joints, check_unused_y
from ._consistent import FOLDS, consistent_fit, parameters_at_bound, physical_links, single_terms
from ._friction import processed_shapes, resolve_scales, shapes_at_samples
from ._least_squares import accumulate, least_squares, refuse_absurd_torque, refuse_joint_without_torque
from ._params import ParamsFromInit
from .results import REL_STD_WARNING, TORQUE_STD_WARNING, Identification, Metrics  # noqa: F401 (REL_STD_WARNING: importable here too)

METHODS = ("ols", "wls", "consistent")
WEIGHTINGS = ("ols", "wls")
PRIORS = ("auto", "cad", "none")
# Warnings for poor excitation: column-scaled condition number (the torque share's 1 % is
# TORQUE_STD_WARNING, beside the result types).
CONDITION_WARNING = 1e3
# A training NRMSE above this (%) says the data do not match the model (units, gains, columns).
POOR_FIT = 50.0
# Standard parameters that cannot be negative (diagonal second moments/inertias, mass, friction, rotor).
SIGN_DEFINITE = re.compile(r"^(XX|YY|ZZ|M|FV|FC|IA)\d+$")


def r2_score(tau, predicted):
    """scikit-learn's ``r2_score(tau, predicted)`` with its defaults (module-level: no scikit-learn needed).

    Parameters
    ----------
    tau, predicted : ndarray, shape (n_samples, n_dof)

    Returns
    -------
    float
        The mean over joints of 1 − Σ(τ − τ̂)² / Σ(τ − τ̄)² (1 or 0 for a joint of constant τ, constant but for
        the rounding of its mean too).

    Raises
    ------
    ArgumentError
        Arrays of different shapes or of no samples, a NaN or inf, or values whose squares overflow (one line, not
        numpy's errors or a NaN score).
    """
    # the residuals and their squares: two arrays of their size beside them
    tau, predicted = (check_real_array(name, x, (1, 2), copies=2)
                      for name, x in (("tau", tau), ("predicted", predicted)))
    if predicted.shape != tau.shape:
        raise ArgumentError(f"predicted: expected the shape of tau, {tau.shape}, got {predicted.shape}")
    if not tau.shape[0]:
        raise ArgumentError("tau: no samples to score the predictions on")
    with np.errstate(over="ignore", invalid="ignore"):
        residual = ((tau - predicted) ** 2).sum(axis=0)
        total = ((tau - tau.mean(axis=0)) ** 2).sum(axis=0)
    if not (np.isfinite(residual).all() and np.isfinite(total).all()):
        raise ArgumentError(f"tau, predicted: squares beyond the floating-point range (largest |value| "
                            f"{max(np.abs(tau).max(), np.abs(predicted).max()):.3g}): no score")
    # a joint's torque constant but for the rounding of its mean (n equal values' mean is not exactly theirs; a
    # filtered constant varies in the last bits): a spread within that rounding is no variance to divide by (the
    # ratio gave R² of -1e30 for a constant joint, which counts 0 or 1 as scikit-learn's force_finite)
    n = tau.shape[0]
    rounding = n * (8.0 * n * np.finfo(float).eps * np.abs(tau).max(axis=0)) ** 2
    varies = total > rounding
    with np.errstate(divide="ignore", invalid="ignore"):
        per_joint = np.where(varies, 1.0 - residual / np.where(varies, total, 1.0),
                             np.where(residual == 0, 1.0, 0.0))
    return float(per_joint.mean())


def _check_held_out(processed):
    """Refuse held-out torques the figures cannot compare (fit refuses the same): beyond ABSURD_PARAMETER, whose
    squares overflow to inf and made NRMSE and R² inf or NaN, or zero in every sample of a joint (no NRMSE: NaN)."""
    t2 = np.zeros(processed[0].tau.shape[1])
    for item in processed:
        tau = item.tau[item.kept]
        refuse_absurd_torque(item.source, tau)
        t2 += (tau ** 2).sum(axis=0)
    refuse_joint_without_torque(processed[0].source, t2)


class BaseParameterEstimator(ParamsFromInit):
    """Least-squares identification of base parameters, in the scikit-learn style.

    Parameters
    ----------
    robot : Robot, Model or str
        The description (friction and rotor-inertia columns where it declares them), or its file; a
        :class:`~baseparam.Model` gives its robot and parameterization (``parameters`` then left at
        its default or equal; the CAD prior is still the description's true inertias).
    method : {'ols', 'wls', 'consistent'}
        Ordinary least squares (default: the smallest pooled torque error), Gautier's weighted
        least squares (per-joint weights from the OLS residual variance), or the physically
        consistent fit (:mod:`._consistent`: every link's pseudo-inertia positive definite, rotor
        inertias and viscous, Coulomb and Stribeck friction ≥ 0).
    weighting : {'wls', 'ols'}
        ``consistent`` only: the residual's joint weights (WLS measured better on the UR10e, equal on
        the KUKA LWR4+).
    prior : {'auto', 'cad', 'none'}
        ``consistent`` only: 'cad' pulls every link towards the description's true inertia, with a
        weight chosen from the training data (hold-out of contiguous segments, one-standard-error
        rule); 'auto' (default) is 'cad' when the description gives link inertias, else 'none'.
    prior_weight : float, optional
        The prior's weight μ (relative to the unconstrained residual) instead of choosing it.
    mass_bounds : dict, optional
        ``consistent`` only: link (1-based) → (lower, upper) mass in kg (either may be None).
    total_mass : tuple of 2, optional
        ``consistent`` only: (lower, upper) bounds of the sum of the link masses, kg.
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
        Their standard deviations; inf for a parameter the data do not determine (``undetermined_``: its
        value is a choice the data do not make, its uncertainty unbounded; null in JSON), never NaN.
    rel_std_percent_ : ndarray, shape (R,)
        100 std / |value| (inf where the value is 0).
    torque_std_percent_ : ndarray, shape (R,)
        What the uncertainty of each parameter changes in the predicted torque over the training data:
        100 std_i ‖w_i‖ / ‖τ‖, the RMS of the torque that one standard deviation of p_i moves, relative
        to the RMS of the measured torque (w_i: the parameter's column of the stacked base regressor,
        τ the stacked torques, both over the samples fitted). Above :data:`TORQUE_STD_WARNING` (1 %)
        the parameter is *poorly identified*: its error shows in the prediction. A parameter with a
        large relative deviation but a small share of the torque (a small link's product of inertia)
        is not: whatever its value within ±σ, the predicted torques agree (inf: not determined at all).
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
    friction_scales_ : dict
        Friction velocity scales chosen from the data (joint → {'velocity': v, 'stribeck': v_s}),
        for the joints whose friction model says ``auto``.
    consistent_ : ConsistentFit or None
        ``consistent`` only: the solver's result (standard parameters, status, prior weight).
    standard_ : ndarray, shape (n_standard,) or None
        ``consistent`` only: the physically consistent standard parameters.
    physical_ : list of dict or None
        ``consistent`` only: per link mass, centre of mass, inertia about it, principal moments and
        the smallest eigenvalue of its pseudo-inertia.
    unconstrained_coef_ : ndarray, shape (R,) or None
        ``consistent`` only: the least-squares estimate with the same weighting, no constraints.
    unconstrained_train_ : Metrics or None
        Its training errors (what the constraints cost: compare with ``train_``).
    moved_ : list of (str, float)
        ``consistent`` only: base parameters the constraints moved by more than one standard
        deviation from the unconstrained estimate, with the shift in standard deviations.
    at_bound_ : list of str
        ``consistent`` only: base parameters left at a bound (a friction or rotor inertia at 0, a mass
        at its bound; :func:`._consistent.parameters_at_bound`): their relative deviation is meaningless.
    """

    def __init__(self, robot, *, method="ols", preprocessing: Optional[Preprocessing] = Preprocessing(),
                 parameters="pseudo", base: Optional[BaseParameters] = None, weighting="wls", prior="auto",
                 prior_weight=None, mass_bounds=None, total_mass=None):
        self.robot = robot
        self.method = method
        self.preprocessing = preprocessing
        self.parameters = parameters
        self.base = base
        self.weighting = weighting
        self.prior = prior
        self.prior_weight = prior_weight
        self.mass_bounds = mass_bounds
        self.total_mass = total_mass

    def __repr__(self):
        return f"BaseParameterEstimator(method={self.method!r}, parameters={self.parameters!r})"

    # -- helpers --
    def _check(self):
        """The settings (constructor arguments): a SettingsError (an ArgumentError; a DataError for one release)."""
        error = SettingsError
        check_option(self.method, "method", METHODS, error=error)
        check_option(self.weighting, "weighting", WEIGHTINGS, error=error)
        check_option(self.prior, "prior", PRIORS, error=error)
        if self.prior_weight is not None:
            check_number(self.prior_weight, "prior_weight", low=0, expected="a finite number ≥ 0", error=error)
        if self.prior_weight is not None and self.prior == "none":
            raise error("prior_weight: given with prior='none' (the weight of which prior?)")
        if self.method != "consistent" and (self.prior in ("cad",) or self.prior_weight is not None):
            given = "prior_weight" if self.prior_weight is not None else "prior"
            raise error(f"{given}: only for method='consistent' (got method={shown(self.method)})")
        self._mass_bounds = check_mass_bounds(self.mass_bounds, error=error)
        self._total_mass = None if self.total_mass is None else check_mass_range(self.total_mass, "total_mass",
                                                                                  error=error)
        if self.method != "consistent" and (self._mass_bounds or self._total_mass):
            given = "mass_bounds" if self._mass_bounds else "total_mass"
            raise error(f"{given}: only for method='consistent' (got method={shown(self.method)})")
        check_instance(self.preprocessing, "preprocessing", Preprocessing, "a Preprocessing or None", allow_none=True,
                       error=error)
        check_instance(self.base, "base", BaseParameters, "a BaseParameters (bp.find_base_parameters) or None",
                       allow_none=True, error=error)

    def _base(self):
        robot, parameters = description_of(self.robot, self.parameters, "pseudo", SettingsError)   # a bp.Model too
        robot = load_robot(robot) if is_file_name(robot) else robot
        check_instance(robot, "robot", Robot, "a Robot or a description file", error=SettingsError)
        if self.base is not None:
            if self.base.robot.signature() != robot.signature() or self.base.parameters != parameters:
                raise SettingsError("base: it was found for another robot or parameterization")
            # the base set depends only on the structure (the signature): the robot given here keeps
            # its own friction models and true inertias (the CAD prior)
            return dataclasses.replace(self.base, robot=robot)
        return find_base_parameters(robot, parameters)

    def _processed(self, data, what):
        out = []
        for item in _as_trajectories(data, what, self.base_.robot):
            check_joints(item, self.base_.robot)              # before preprocessing: no work for wrong data
            if not isinstance(item, Processed):         # a log (a Processed is one too, already done)
                item = preprocess(item, self.preprocessing or Preprocessing.none())
            out.append(item)
        return out

    # -- scikit-learn interface --
    def fit(self, X, y=None):
        """Fit the base parameters to one or several trajectories.

        Parameters
        ----------
        X : Trajectory, Processed, str, (q, qd, qdd, tau) tuple of (n_samples, n_dof) arrays, or a list of these
            Training data; files are read with :func:`read_trajectory` (plain formats). Trajectories
            are preprocessed; Processed data and array tuples are used as given.
        y : None
            Unused (the torques are part of the trajectories); present for scikit-learn. Anything but None is
            refused (a DataError), not ignored.

        Returns
        -------
        self
        """
        # a fit that fails leaves the estimator as it was: the old fit's coef_ beside a new robot's base_ (a fit
        # that failed after set_params(robot=…)) predicted silently wrong torques
        check_unused_y(y, "fit")
        before = dict(vars(self))
        try:
            return self._fit(X)
        except BaseException:
            vars(self).clear()
            vars(self).update(before)
            raise

    def _fit(self, X):
        self._check()
        self.base_ = self._base()
        processed = self._processed(X, "fit")
        with single_threaded():
            self.base_, self.friction_scales_ = resolve_scales(self.base_, processed)
        robot = self.base_.robot
        shapes = [processed_shapes(robot, item) for item in processed]
        consistent = self.method == "consistent"
        # the products are small (R + 1 columns, blocks of 2048 samples): OpenBLAS's threads only spin,
        # and on busy cores they made the folds' 65-column Gram products many times slower (bench_consistent)
        with single_threaded():
            normal, effective, factors = accumulate(self.base_, processed,
                                                    1 if self.preprocessing is None else self.preprocessing.decimate,
                                                    shapes, folds=FOLDS if consistent else 0)
        self._solve(normal, effective, factors)
        self.preprocessing_ = [item.record for item in processed]
        self._finish(self._metrics(processed))
        return self

    def _solve(self, normal, effective, factors):
        """The fit from the reduced data (the per-joint normal equations, and for the consistent fit the
        folds' factors): every fitted attribute but the training errors and the preprocessing records."""
        robot = self.base_.robot
        consistent = self.method == "consistent"
        fit = least_squares(normal, self.weighting if consistent else self.method, effective)
        x = fit.coef
        self.consistent_ = self.standard_ = self.physical_ = self.solver_status_ = None
        self.unconstrained_coef_ = self.unconstrained_train_ = None
        self.moved_ = []
        if consistent:
            with single_threaded():
                self.consistent_ = consistent_fit(self.base_, factors, fit.weights, prior=self._prior(),
                                                  prior_weight=self.prior_weight, mass_bounds=self._mass_bounds,
                                                  total_mass=self._total_mass, std=fit.std)
            for note in self.consistent_.notes:
                warn(f"{robot.name}: {note}", DataWarning)
            self.unconstrained_coef_, x = x, self.consistent_.x
            self.standard_ = self.consistent_.p
            self.physical_ = physical_links(self.base_, self.consistent_)
            self.solver_status_ = self.consistent_.status
            self.unconstrained_train_ = Metrics.from_residuals(normal.residuals(self.unconstrained_coef_), normal.tt,
                                                               normal.n_samples)
        self.sigma_, self.sigma_fit_ = fit.sigma, fit.sigma_fit
        self.coef_ = x
        self.names_ = list(self.base_.names)
        self.undetermined_ = self._undetermined(fit.null)
        self.correlation_factor_ = fit.correlation_factor
        self.std_ = fit.std
        self.std_[[self.names_.index(name) for name in self.undetermined_]] = np.inf   # the data say nothing
        with np.errstate(divide="ignore", invalid="ignore"):
            self.rel_std_percent_ = np.where(np.abs(x) > 0, 100.0 * self.std_ / np.abs(x), np.inf)
            column = np.sqrt(np.maximum(np.einsum("jcc->c", normal.G), 0.0))     # ‖w_i‖ over samples and joints
            share = 100.0 * self.std_ * column / np.sqrt(max(normal.tt.sum(), np.finfo(float).tiny))
            self.torque_std_percent_ = np.where(np.isfinite(self.std_), share, np.inf)
            if consistent:
                shift = np.abs(x - self.unconstrained_coef_) / self.std_
                self.moved_ = [(n, float(v)) for n, v in zip(self.names_, shift) if v > 1.0]
        self.at_bound_ = parameters_at_bound(self.base_, x, self.std_, self._mass_bounds) if consistent else []
        self.condition_number_, self.condition_number_scaled_ = fit.condition_number, fit.condition_number_scaled
        self.n_samples_ = normal.n_samples

    def _finish(self, train):
        """The training errors (Metrics) and the warnings about them and about the estimates."""
        self.train_ = train
        self.rmse_, self.nrmse_percent_ = self.train_.rmse, self.train_.nrmse_percent
        self.nrmse_pooled_percent_ = self.train_.nrmse_pooled_percent
        self.impossible_ = [] if self.method == "consistent" else self._impossible()
        self._warn()

    def _prior(self):
        """'cad' or 'none' ('auto': 'cad' when the description gives any link inertia)."""
        if self.prior != "auto":
            return self.prior
        return "cad" if any(j.inertia is not None for j in self.base_.robot.joints) else "none"

    def predict(self, X):
        """Predicted joint torques, τ̂ = W_b(q, q̇, q̈) p̂ (+ friction, rotor terms as modelled), at
        every sample of the input.

        Parameters
        ----------
        X : Trajectory, Processed, str, a (q, qd, qdd, tau) tuple, or a list of these; or one
            (q, qd, qdd) tuple of (n_samples, n_dof) arrays (predicted as given)
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
            return self.base_._inverse_dynamics(self.coef_, *X)
        out = []
        robot = self.base_.robot
        for item in _as_trajectories(X, "predict", robot):
            check_joints(item, robot)
            if not isinstance(item, Processed):         # a log (a Processed is one too, already done)
                q, qd, qdd, shapes = shapes_at_samples(robot, item, self.preprocessing)
            else:
                q, qd, qdd = item.q, item.qd, item.qdd
                shapes = processed_shapes(robot, item)
            # a lone sample between time gaps has no derivative: its prediction is NaN, not an error
            ok = np.isfinite(q).all(axis=1) & np.isfinite(qd).all(axis=1) & np.isfinite(qdd).all(axis=1)
            tau = np.full(q.shape, np.nan)
            if ok.any():
                tau[ok] = self._predicted(q, qd, qdd, shapes, ok)
            out.append(tau)
        return np.concatenate(out)

    def _predict_processed(self, item):
        return self._predicted(item.q, item.qd, item.qdd, processed_shapes(self.base_.robot, item), item.kept)

    def _predicted(self, q, qd, qdd, shapes, rows):
        """τ̂ at the samples ``rows`` (a mask) of states q, q̇, q̈ (n_samples, n_dof) and friction shapes (None: none)."""
        return self.base_._inverse_dynamics(self.coef_, q[rows], qd[rows], qdd[rows],
                                            shapes=None if shapes is None else tuple(a[rows] for a in shapes))

    def validate(self, X):
        """Error figures of the predicted torques on (held-out) trajectories, pooled over them.

        Returns
        -------
        Metrics
        """
        self._fitted()
        processed = self._processed(X, "validate")
        _check_held_out(processed)
        return self._metrics(processed)

    def score(self, X, y=None):
        """R², the coefficient of determination of the torques, as scikit-learn's ``r2_score``.

        Per joint 1 − Σ(τ − τ̂)² / Σ(τ − τ̄)² over the samples :meth:`validate` compares, averaged over
        the joints with equal weights (scikit-learn's ``multioutput='uniform_average'``): 1 is perfect,
        0 is no better than each joint's mean torque, and it can be negative. A joint whose torque is
        constant counts 1 if predicted exactly, else 0 (scikit-learn's ``force_finite``). The
        uncentred figure is the pooled NRMSE (:meth:`validate`).

        Parameters
        ----------
        X : as :meth:`validate`
        y : None
            Unused (the torques are X's); present for scikit-learn. Anything but None is refused (a DataError),
            not ignored.

        Returns
        -------
        float
        """
        check_unused_y(y, "score")
        metrics = self.validate(X)
        return r2_score(metrics.tau, metrics.predicted)

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
        return [self.names_[r] for r, (column, coefficient) in single_terms(self.base_).items()
                if coefficient > 0 and SIGN_DEFINITE.match(self.base_.standard_names[column])
                and self.coef_[r] < -2.0 * self.std_[r]]

    def poorly_identified_(self):
        """Names of the base parameters whose uncertainty shows in the predicted torque
        (``torque_std_percent_`` above :data:`TORQUE_STD_WARNING`), in base-parameter order."""
        self._fitted()
        return [n for n, s in zip(self.names_, self.torque_std_percent_)
                if s > TORQUE_STD_WARNING and n not in self.at_bound_]     # at a bound: not a poor estimate

    def _warn(self):
        """Say when the data cannot tell what the fit reports (Gautier's criteria), or contradict physics."""
        if self.undetermined_:
            warn(f"the data do not determine some base parameters (they are set by a minimum-norm "
                 f"choice): {' '.join(self.undetermined_)}; excite those joints/motions", ExcitationWarning)
        if self.condition_number_scaled_ > CONDITION_WARNING:
            cond = f"{self.condition_number_scaled_:.3g}" if np.isfinite(self.condition_number_scaled_) else "unbounded"
            warn(f"poor excitation: the column-scaled condition number of the base regressor is "
                 f"{cond} (> {CONDITION_WARNING:g}); record a motion that moves every "
                 "joint (bp.design_excitation designs one)", ExcitationWarning)
        poor = self.poorly_identified_()
        poor = [n for n in poor if n not in self.undetermined_]          # those are named above
        if poor:
            share = dict(zip(self.names_, self.torque_std_percent_))
            names = " ".join(poor[:12]) + (" …" if len(poor) > 12 else "")
            worst = max(poor, key=share.get)
            warn(f"{len(poor)} of {len(self.names_)} base parameters poorly identified: one standard deviation of "
                 f"each moves the predicted torque by more than {TORQUE_STD_WARNING:g} % of its RMS over these data "
                 f"(most: {worst}, {share[worst]:.3g} %): {names}; record a motion that excites them "
                 "(bp.design_excitation designs one), or a longer one", ExcitationWarning)
        if self.nrmse_pooled_percent_ > POOR_FIT:
            warn(f"the model explains the training torques poorly (NRMSE {self.nrmse_pooled_percent_:.3g} %): "
                 "check units (degrees? ms?), drive gains, the column map and the friction model",
                 DataWarning)
        if self.impossible_:
            values = ", ".join(f"{n} = {v:.3g}" for n, v in zip(self.names_, self.coef_) if n in self.impossible_)
            warn(f"physically impossible estimates (these cannot be negative): {values}; the model misses "
                 "an effect in the data (e.g. joint elasticity, a sensor offset, unmodelled friction); "
                 "method='consistent' keeps the estimates physical",
                 ExcitationWarning)


def identify(robot, train, *, validate=None, method="ols", preprocessing: Optional[Preprocessing] = Preprocessing(),
             parameters="pseudo", base: Optional[BaseParameters] = None, **options) -> Identification:
    """Identify the base parameters of ``robot`` from training trajectories, and validate them.

    Parameters
    ----------
    robot : Robot, Model or str
        Description (friction and rotor-inertia columns where declared) or its YAML file; a
        :class:`~baseparam.Model` gives its robot and parameterization.
    train : Trajectory, str, (q, qd, qdd, tau) tuple, or a list of these
        Training data (files in the plain formats: header CSV, NPZ, HDF5; use
        :func:`read_trajectory` for column maps and motor currents).
    validate : same as ``train``, optional
        Held-out trajectories: their errors are pooled into ``result.validation``.
    method : {'ols', 'wls', 'consistent'}
    preprocessing : Preprocessing or None
    parameters : {'pseudo', 'khalil'}
    base : BaseParameters, optional
    **options
        The consistent fit's ``weighting``, ``prior``, ``prior_weight``, ``mass_bounds``,
        ``total_mass`` (see :class:`BaseParameterEstimator`).

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
    >>> tau = bp.inverse_dynamics(bp.Model(robot, p), q, qd, qdd)
    >>> result = bp.identify(robot, bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau), preprocessing=None)
    >>> bool(np.allclose(result.values, base.from_standard(p)))
    True
    """
    unknown = sorted(set(options) - {"weighting", "prior", "prior_weight", "mass_bounds", "total_mass"})
    if unknown:
        raise SettingsError(f"identify: unknown option {shown(unknown[0])}")
    settings = plain_texts(dict(method=method, parameters=parameters, **options))
    estimator = BaseParameterEstimator(robot, preprocessing=preprocessing, base=base, **settings).fit(train)
    validation = None if validate is None else estimator.validate(validate)
    return Identification(estimator=estimator, train=estimator.train_, validation=validation)
