"""How well a trajectory identifies the base parameters, by inverse dynamics and noise (no simulation).

The torques a robot would measure along the trajectory are τ = W_b(q, q̇, q̈)·p_b + e with the
true base parameters p_b and white noise e of a given standard deviation per joint; the base
parameters are fitted by ordinary least squares and compared with the truth. Repeated over noise
draws, this is the Monte-Carlo counterpart of the covariance σ²(W_bᵀW_b)⁻¹ that the design
criteria shape: a better conditioned trajectory gives smaller, more even errors for the same noise.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from .._checks import counted
from .._numbers import real_array
from .._validation import (ABSURD_PARAMETER, check_field_kinds, check_instance, check_memory, check_number,
                           check_parameter_vector, check_seed, check_states, float_fields, shown)
from .._values import ComparedByValue
from ..errors import ArgumentError, ArgumentTypeError
from ..projection.base_set import BaseParameters
from ..evaluation import fit_errors, relative_scale
from .criteria import condition_number


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class IdentificationErrors(ComparedByValue):
    """Errors of least-squares fits on noisy inverse-dynamics torques.

    ``parameter_error``, ``torque_error`` (on the validation states; None without them) and
    ``median_relative_error`` are the figures of :mod:`baseparam.evaluation` (as in
    :class:`~baseparam.FitErrors`), each the median over the trials of the figure of one fit.

    Attributes
    ----------
    parameter_error, median_relative_error : float
    relative_std : ndarray, shape (rank,)
        Standard deviation of each estimate over the trials, divided by
        :func:`~baseparam.evaluation.relative_scale`.
    torque_error : float or None
    condition_number : float
        cond(W_b) of the trajectory: 2-norm, unscaled, over the samples the fits use (finite: a motion that
        leaves a base parameter unexcited, of a singular W_b — a zero column, fewer torques than base
        parameters, or a rank below ``base.rank`` to round-off as least squares judges it — is refused).
    trials : int
    """

    parameter_error: float
    relative_std: np.ndarray
    torque_error: object
    condition_number: float
    trials: int
    median_relative_error: float = float("nan")

    def __post_init__(self):
        # built by hand (the class is exported): repr would format a text as a bare ValueError
        number = (Real, "a number")
        float_fields(self, ("relative_std",))
        check_field_kinds(self, {"parameter_error": number, "torque_error": ((Real, None), "a number or None"),
                                 "condition_number": number, "trials": (Integral, "a whole number"),
                                 "median_relative_error": number})

    def __repr__(self):
        torque = "" if self.torque_error is None else f", torque_error={self.torque_error:.3g}"
        return (f"IdentificationErrors(parameter_error={self.parameter_error:.3g}{torque}, "
                f"condition_number={self.condition_number:.4g}, trials={self.trials})")


def identification_errors(base, p_base, q, qd, qdd, noise, *, validation=None, trials=20, seed=0):
    """Fit base parameters to noisy torques along a trajectory, repeatedly, and measure the errors.

    Parameters
    ----------
    base : BaseParameters
    p_base : array_like, shape (rank,)
        True base parameters (e.g. ``base.from_standard(bp.standard_parameters(robot))``).
    q, qd, qdd : array_like, shape (n_samples, n_dof)
        The trajectory's states.
    noise : float or array_like, shape (n_dof,)
        Standard deviation of the torque noise per joint (N·m or N).
    validation : tuple of 3 arrays (n_val, n_dof), optional
        States on which the fitted models' torques are compared with the true ones.
    trials : int
    seed : int

    Returns
    -------
    IdentificationErrors
    """
    check_instance(base, "base", BaseParameters, "a baseparam.BaseParameters (bp.find_base_parameters)")
    p = check_parameter_vector(p_base, base.rank, "p_base")
    norm = np.linalg.norm(p)
    if not 0 < norm < np.inf:          # the errors are relative to ‖p‖ and |p_i|: 0 or an overflow is NaN
        raise ArgumentError(f"p_base: {'all zero' if norm == 0 else 'too large (its norm overflows)'}; the errors "
                            "are relative to the true base parameters, in SI units")
    (q, qd, qdd), _ = check_states(base.robot.n_dof, q=q, qd=qd, qdd=qdd)
    sigma = real_array("noise", noise, ArgumentError)
    if sigma.shape not in ((), (1,), (base.robot.n_dof,)) or not (np.isfinite(sigma) & (sigma >= 0)).all():
        raise ArgumentError(f"noise: expected a standard deviation ≥ 0 (N·m or N), one or one per joint "
                            f"({base.robot.n_dof}), got {shown(noise)}")
    sigma = np.broadcast_to(sigma.reshape(-1) if sigma.ndim else sigma, (base.robot.n_dof,))
    if validation is not None and not (isinstance(validation, (tuple, list)) and len(validation) == 3):
        raise ArgumentTypeError(f"validation: expected (q, qd, qdd) of the validation states, got {shown(validation)}")
    # trials × samples × joints normal draws are held at once
    trials = check_number(trials, "trials", low=1, high=10_000, integer=True)
    seed = check_seed(seed)
    W = base.regressor(q, qd, qdd)
    A = W.reshape(-1, base.rank)
    if A.shape[0] < base.rank:
        # fewer torques than base parameters: cond of the rows' own span would be finite (one UR10e sample: 6.9) and
        # lstsq's minimum-norm estimates would leave the rest undetermined; no sample at all would name every column
        raise ArgumentError(f"q, qd, qdd: {counted(W.shape[0], 'samples')} of {base.robot.n_dof} joints: "
                            f"{A.shape[0]} torques for {base.rank} base parameters: no fit determines them all; use a "
                            "longer motion that excites every base parameter (bp.design_excitation designs one)")
    cond = condition_number(A)
    if not np.isfinite(cond):
        # the fits' minimum-norm estimates of a parameter the motion does not see are 0 for every trial (a spread
        # of 0, as if perfectly identified) beside a condition number of inf: refused rather than returned
        unseen = [name for name, column in zip(base.names, A.T) if not column.any()]
        what = (f"does not excite base parameter{'s' if len(unseen) > 1 else ''} {', '.join(unseen)} (zero regressor "
                "column" if unseen else "gives a singular base regressor (some base parameters not told apart")
        raise ArgumentError(f"q, qd, qdd: the motion {what}, cond(W_b) infinite): no fit determines them; use a "
                            "motion that excites every base parameter (bp.design_excitation designs one)")
    tau = A @ p
    if not np.isfinite(tau).all():
        raise ArgumentError("p_base: the torques W_b·p_base overflow; expected base parameters in SI units")
    check_memory(8 * A.shape[0] * trials * 3, lambda need, allowed: f"trials: {trials} trials of {A.shape[0]} "
                 f"torques need {need}, more than the {allowed} available")
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore", invalid="ignore"):      # said below in words, not numpy's RuntimeWarning
        noisy = tau[:, None] + (rng.standard_normal((W.shape[0], W.shape[1], trials)) * sigma[:, None]).reshape(
            -1, trials)
    if not np.isfinite(noisy).all():
        _refuse_noise(sigma)        # a noise of 1e308 N·m: draws beyond the float range, before lstsq reads them
    estimates, _, determined, _ = np.linalg.lstsq(A, noisy, rcond=None)   # (rank, trials)
    if determined < base.rank:
        # columns told apart only below round-off (cond(W_b) ≳ 1/(ε·rows), though finite): lstsq's minimum-norm
        # estimates leave base.rank - determined directions at 0 in every trial, as the zero columns above did
        raise ArgumentError(f"q, qd, qdd: the motion determines {determined} of the {base.rank} base parameters "
                            f"(cond(W_b) {cond:.3g}: columns told apart only below round-off): no fit determines them "
                            "all; use a motion that excites every base parameter (bp.design_excitation designs one)")
    with np.errstate(over="ignore", invalid="ignore"):
        spread = estimates.std(axis=1)
    if not (np.abs(estimates).max() <= ABSURD_PARAMETER and np.isfinite(spread).all()):
        # a noise of 1e300 N·m draws finite torques whose fits overflow (errors of inf, NaN) or leave the parameters'
        # range (the figures' own check, which would name estimates the caller never gave)
        _refuse_noise(sigma)
    V = None
    if validation is not None:
        (vq, vqd, vqdd), _ = check_states(base.robot.n_dof, q=validation[0], qd=validation[1], qdd=validation[2])
        V = base.regressor(vq, vqd, vqdd)
    figures = fit_errors(estimates, p, V)                                   # each figure per trial
    torque_error = None if V is None else float(np.median(figures.torque_error))
    return IdentificationErrors(float(np.median(figures.parameter_error)), spread / relative_scale(p),
                                torque_error, cond, int(trials),
                                float(np.median(figures.median_relative_error)))


def _refuse_noise(sigma):
    """Refuse a torque noise ``sigma`` (per joint) whose draws or fits leave the float range or the parameters'."""
    raise ArgumentError(f"noise: a standard deviation of {float(sigma.max()):g} makes the fits overflow or their "
                        f"estimates exceed ±{ABSURD_PARAMETER:g}; expected one in SI units (N·m or N)")
