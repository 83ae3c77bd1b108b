"""One evaluation of fits: the error figures of estimated base parameters, one set of names.

Every figure that scores a fit is defined here once, and every result that reports one
(:class:`~baseparam.Metrics` of :func:`~baseparam.identify`, :class:`~baseparam.IdentificationErrors`
of :func:`~baseparam.identification_errors`, :class:`~baseparam.FitErrors` of
:func:`~baseparam.simulated_identification`) computes it here. For estimates p̂ of the base
parameters p (SI) and the base regressor W_b of some states:

``parameter_error``   ‖p̂ − p‖ / ‖p‖, 2-norm over the base parameters (SI, so the large ones weigh most)
``relative_errors``   |p̂_i − p_i| / max(|p_i|, 10⁻³‖p‖) per base parameter (the floor, :data:`FLOOR`,
                      keeps parameters whose true value is 0, such as a cylinder's products of inertia,
                      finite); ``median_relative_error`` their median
``torque_error``      the pooled NRMSE (below) of the model's torques τ̂ = W_b p̂ against the true ones
                      τ = W_b p, noise-free: ‖W_b(p̂ − p)‖ / ‖W_b p‖, the model error alone, a fraction

NRMSE, as the identification reports it (docs/formats.md): per joint RMS(τ − τ̂) / RMS(τ) =
√(Σe² / Στ²) over the samples (NaN for a joint whose torque is zero throughout), pooled over all
joints at once √(ΣΣe² / ΣΣτ²), which needs some torque (:func:`nrmse` refuses none at all).

A figure of several fits (noise draws, trials) is the median over the fits of the figure of each
(:class:`~baseparam.IdentificationErrors`, :meth:`~baseparam.MotionComparison.table`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._validation import check_allocation, check_parameter_range, check_real_array as _finite
from .errors import ArgumentError

__all__ = ["FLOOR", "FitFigures", "fit_errors", "nrmse", "relative_scale"]

FLOOR = 1e-3                 # relative errors: |p_i| below FLOOR·‖p‖ counts as FLOOR·‖p‖
NRMSE_COPIES = 4             # float arrays of the sums' broadcast shape alive at once in figures_of_sums


class FitFigures(NamedTuple):
    """The figures of :func:`fit_errors` (module docstring: the definitions).

    Each is of one fit, or with a trailing axis of k fits when the estimates have one.
    """

    parameter_error: object          # float, or ndarray (k,)
    relative_errors: np.ndarray      # (rank,) or (rank, k)
    torque_error: object             # float, ndarray (k,), or None without states

    @property
    def median_relative_error(self):
        """Median over the base parameters of :attr:`relative_errors` (float, or (k,))."""
        out = np.median(self.relative_errors, axis=0)
        return float(out) if np.ndim(out) == 0 else out


def _parameters(name, x, ndim, shape=None, copies=1):
    """Base parameters (SI) as a finite float array within ±ABSURD_PARAMETER, as the library's parameter vectors:
    beyond it their norms overflow and the figures come out NaN. Their shape (``shape``: a check of it against the
    other arguments), then ``copies`` arrays of their size against the memory budget (a broadcast view of 10⁹ would
    otherwise end in numpy's bare MemoryError), then their values (_validation.check_real_array)."""
    return check_parameter_range(name, _finite(name, x, ndim, shape=shape, copies=copies))


def relative_scale(truth):
    """max(|p_i|, :data:`FLOOR`·‖p‖) per base parameter, shape (rank,): what relative figures divide by."""
    truth = _parameters("truth", truth, 1)
    return np.maximum(np.abs(truth), FLOOR * np.linalg.norm(truth))


def nrmse(e2, t2):
    """NRMSE per joint and pooled from sums of squares over the samples (module docstring).

    Parameters
    ----------
    e2, t2 : ndarray, shape (n_dof, ...)
        Σe² and Στ² per joint (and, in further axes, per fit).

    Returns
    -------
    per_joint : ndarray, shape (n_dof, ...)
        √(Σe² / Στ²), NaN where Στ² = 0 (a joint of no torque has no figure).
    pooled : float or ndarray, shape (...)
        √(ΣΣe² / ΣΣτ²). Fractions, not percent.

    Raises
    ------
    ArgumentError
        Sums that are no sums of squares (NaN, negative), sums that overflowed to inf (a figure of inf or inf/inf
        says nothing of the fit), or ΣΣτ² = 0 (no torque at all).
    """
    # The shapes, then the size, then the values: a broadcast view of 10⁹ sums was scanned (a temporary of its size)
    # before its shape was looked at.
    e2 = _finite("e2", e2, (1, 2, 3), False, copies=0)
    t2 = _finite("t2", t2, (1, 2, 3), False, copies=0, shape=lambda shape: _broadcast(e2.shape, shape))
    check_allocation((NRMSE_COPIES, *np.broadcast_shapes(e2.shape, t2.shape)), "e2, t2",
                     f"the NRMSE of sums of shapes {e2.shape} and {t2.shape} ({NRMSE_COPIES} float arrays)")
    for name, sums in (("e2", e2), ("t2", t2)):
        if sums.size and not sums.min() >= 0:    # NaN or a negative number (-inf) is no sum of squares: NaN figures
            raise ArgumentError(f"{name}: expected sums of squares (numbers ≥ 0), got "
                                f"{'NaN' if np.isnan(sums).any() else float(sums.min())!s}")
        if sums.size and sums.max() == np.inf:
            # an overflowed sum would give an NRMSE of inf (Σe²) or 0 (Στ²), or NaN (both): no figure of the fit
            joint = int(np.argwhere(np.isinf(sums))[0][0]) + 1
            raise ArgumentError(f"{name}: joint {joint}: the sum of squares overflowed to inf (values beyond the "
                                "floating-point range): no NRMSE")
    return figures_in_range(e2, t2)


def figures_in_range(e2, t2, names=("e2", "t2", "e2, t2")):
    """:func:`figures_of_sums` of sums already checked (finite numbers ≥ 0 that broadcast), refused where no figure
    says anything of the fit: a total over the joints or a quotient Σe²/Στ² that overflows (an NRMSE of inf or 0), no
    torque at all (0/0). ``names``: what the messages call Σe², Στ² and both (``("tau, predicted", "tau", "tau,
    predicted")`` where they come from torques, :meth:`Metrics.compare`)."""
    # a joint of no torque has no figure (NaN, documented: a passive joint among others); the pooled figure of no
    # torque at all (0/0) would be a NaN that says nothing: refused
    e2, t2 = np.broadcast_arrays(e2, t2)
    with np.errstate(over="ignore"):
        total, errors = t2.sum(axis=0), e2.sum(axis=0)
    for name, pooled in zip(names, (errors, total)):
        if np.isinf(pooled).any():          # finite sums whose total overflows: a pooled NRMSE of inf or 0
            raise ArgumentError(f"{name}: the sum over the joints overflowed to inf (values beyond the floating-point "
                                "range): no pooled NRMSE")
    if not (total > 0).all():
        raise ArgumentError(f"{names[1]}: zero for every joint (no torque in any sample): no NRMSE")
    with np.errstate(over="ignore"):        # said below, in one line, instead of numpy's warning
        per_joint, pooled = figures_of_sums(e2, t2)
    _refuse_overflowed_figures(per_joint, pooled, t2, names[2])
    return per_joint, pooled


def _refuse_overflowed_figures(per_joint, pooled, t2, names):
    """Refuse figures √(Σe²/Στ²) whose quotient overflowed to inf: finite sums, but a Στ² so small (torques of
    1e-160 N·m) that Σe² over it is beyond the floating-point range; an NRMSE of inf says nothing of the fit."""
    if np.isinf(per_joint).any():
        index = tuple(np.argwhere(np.isinf(per_joint))[0])
        raise ArgumentError(f"{names}: joint {index[0] + 1}: Σe²/Στ² beyond the floating-point range (Στ² = "
                            f"{float(t2[index]):.3g}): no NRMSE")
    if np.isinf(pooled).any():
        raise ArgumentError(f"{names}: ΣΣe²/ΣΣτ² beyond the floating-point range: no pooled NRMSE")


def _broadcast(e2_shape, t2_shape):
    """Refuse sums of shapes that do not broadcast (Στ² of one truth against Σe² of several fits: (n, 1) does)."""
    try:
        np.broadcast_shapes(e2_shape, t2_shape)
    except ValueError:
        raise ArgumentError(f"e2, t2: expected arrays of shapes that broadcast, got {e2_shape} and {t2_shape}") \
            from None


def figures_of_sums(e2, t2):
    """:func:`nrmse` of sums already checked (arrays of numbers ≥ 0 that broadcast), NaN where a figure is 0/0: the
    per-log figures of :func:`~baseparam.identify_logs`, where a log of several may have no torque at all (its
    figures written as null), and no refusal of that log may fail the whole fit."""
    with np.errstate(divide="ignore", invalid="ignore"):
        per_joint = np.where(t2 > 0, np.sqrt(e2 / np.where(t2 > 0, t2, 1.0)), np.nan)
        total = t2.sum(axis=0)
        pooled = np.where(total > 0, np.sqrt(e2.sum(axis=0) / np.where(total > 0, total, 1.0)), np.nan)
    return per_joint, (float(pooled) if pooled.ndim == 0 else pooled)


def figures_of_log(e2, t2):
    """:func:`figures_of_sums` of one log of several (:meth:`Metrics._of_log`), sums already checked (finite, ≥ 0,
    of one shape (n,)): a figure beyond the floating-point range is NaN, as one of no torque (0/0) is, never inf.

    Σe²/Στ² overflows where a joint's torques in that log are next to nothing (1e-160 N·m, no torque to speak of),
    or the sum over its joints of finite sums overflows; an NRMSE of inf says nothing, and :func:`nrmse` refuses it
    for the fit, but no log's figure may fail the fit over all of them (:func:`figures_of_sums`)."""
    with np.errstate(over="ignore"):    # an overflowed quotient or total is made NaN just below, numpy's warning unsaid
        per_joint, pooled = figures_of_sums(e2, t2)
        totals_overflow = np.isinf(e2.sum()) or np.isinf(t2.sum())
    per_joint = np.where(np.isinf(per_joint), np.nan, per_joint)
    return per_joint, (np.nan if totals_overflow or np.isinf(pooled) else pooled)


def fit_errors(estimates, truth, regressor=None) -> FitFigures:
    """The error figures of one fit or several against the truth (module docstring: the definitions).

    Parameters
    ----------
    estimates : array_like, shape (rank,) or (rank, k)
        p̂ of one fit, or of k fits (one per column).
    truth : array_like, shape (rank,)
        The true base parameters p (SI).
    regressor : ndarray, shape (n_samples, n_dof, rank), optional
        W_b on the states the torques are compared on (e.g. a held-out run's true states); rows
        (m, rank) count as one joint.

    Returns
    -------
    FitFigures
        ``torque_error`` None without ``regressor``.
    """
    p = _parameters("truth", truth, 1)

    def same_rank(shape):
        if shape[0] != p.shape[0] or not np.any(p):
            raise ArgumentError(f"truth, estimates: expected truth (rank,) not all zero and estimates (rank,) or "
                                f"(rank, k), got {p.shape} and {shape}")
    # the shape before the values; the size of the differences, their magnitudes and the relative errors
    estimates = _parameters("estimates", estimates, (1, 2), shape=same_rank, copies=3)
    per_fit = (slice(None),) + (None,) * (estimates.ndim - 1)     # a (rank,) array against the estimates' columns
    d = estimates - p[per_fit]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):     # an overflow is refused below
        parameter_error = (np.linalg.norm(d) if d.ndim == 1 else np.linalg.norm(d, axis=0)) / np.linalg.norm(p)
        relative = np.abs(d) / relative_scale(p)[per_fit]
    if not (np.all(np.isfinite(parameter_error)) and np.isfinite(relative).all()):    # a truth of 1e-320: ‖p‖ → 0
        raise ArgumentError(f"truth: too small for relative figures (largest |p_i| = {np.abs(p).max():g}): the "
                            "errors divided by it overflow")
    torque = None
    if regressor is not None:
        def fits(shape):
            if shape[-1] != p.shape[0]:
                raise ArgumentError(f"regressor: expected {p.shape[0]} columns, got shape {shape}")
            # the torques (S, n), the errors and their squares (S, n, k): before the values are read
            k, rows = (1 if estimates.ndim == 1 else estimates.shape[1]), math.prod(shape[:-1])
            check_allocation((1 + 2 * k, rows), "regressor", f"the torques of {rows} rows ({1 + 2 * k} float arrays)")

        W = _finite("regressor", regressor, (2, 3), shape=fits, copies=0)
        W = W[:, None, :] if W.ndim == 2 else W                   # rows of one joint
        with np.errstate(over="ignore", invalid="ignore"):             # an overflow is refused below
            tau = W @ p                                           # (S, n): the true torques
            e = W @ d                                             # (S, n) or (S, n, k): τ̂ − τ, no cancellation
            e2, t2 = (e * e).sum(axis=0), (tau * tau).sum(axis=0)[per_fit]
        if not (np.isfinite(e2).all() and np.isfinite(t2).all()):
            raise ArgumentError("regressor, truth: the torques' squares overflow to inf: no torque error")
        if not t2.any():
            raise ArgumentError("regressor: the true torques W·truth are zero at every state: no torque error")
        # pooled only: a joint of no torque at these states leaves the pooled figure defined
        _, torque = nrmse(e2.sum(axis=0, keepdims=True), t2.sum(axis=0, keepdims=True))
    if d.ndim == 1:
        parameter_error = float(parameter_error)
    return FitFigures(parameter_error, relative, torque)
