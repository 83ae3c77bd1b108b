"""Design criteria of a stacked base regressor A (rows: samples × joints, columns: base parameters).

Each returns the value to minimize and its derivative with respect to A, the weights that
:func:`baseparam.dynamics.regressor_adjoint.adjoint_function` carries back to the joint states.
Both go through the Gram matrix AᵀA (rank × rank), whose eigenvalues are the squared singular
values of A: far cheaper than an SVD of the tall A, and accurate while cond(A) ≪ 1e8.
"""
from __future__ import annotations

import numpy as np

CRITERIA = ("cond", "dopt", "inertia")
PAYLOAD_ONLY = ("inertia",)           # criteria defined over a payload's columns only


def log_condition(A):
    """log cond(A) = log(σ_max / σ_min), and its gradient ``A (v₁v₁ᵀ/σ₁² − v_r v_rᵀ/σ_r²)``.

    Parameters
    ----------
    A : ndarray, shape (rows, r)

    Returns
    -------
    value : float
    dA : ndarray, shape (rows, r)
    """
    lam, V = np.linalg.eigh(A.T @ A)
    low, high = max(lam[0], lam[-1] * 1e-300), lam[-1]
    value = 0.5 * np.log(high / low)
    weights = np.outer(V[:, -1], V[:, -1]) / high - np.outer(V[:, 0], V[:, 0]) / low
    return float(value), A @ weights


def d_optimality(A):
    """−(1/r)·log det(AᵀA / rows): minus the log of the geometric mean of σ_i² per row.

    Minimizing it maximizes det(AᵀA) (D-optimality); dividing by the rows and the rank makes the
    value independent of the number of samples and comparable across robots.

    Returns
    -------
    value : float
    dA : ndarray, shape (rows, r)
        −(2/r)·A (AᵀA)⁻¹.
    """
    rows, r = A.shape
    M = A.T @ A
    sign, logdet = np.linalg.slogdet(M / rows)
    if sign <= 0:
        return float("inf"), np.zeros_like(A)
    return float(-logdet / r), A @ np.linalg.inv(M) * (-2.0 / r)


def inertia_variance(E, weights=None):
    """A-optimality over a payload's inertia: log(rows · tr(E (AᵀWA)⁻¹ Eᵀ)), W = diag(weights²) per joint row.

    ``E @ p`` is the payload's inertia about the link frame's origin (Khalil's XX XY XZ YY YZ ZZ) from the
    identified parameters p, so with rows weighted by 1/σ_j (per-joint torque noise) the trace is the sum of
    the six elements' variances, mass and centre of mass estimated too (their uncertainty is in the block of
    the inverse). Only the elements the identifiable combinations determine are rows of E
    (:func:`inertia_rows`: a planar robot's motions determine ZZ alone). The
    inertia about the centre of mass, the payload's target, differs from it by m·S(c)ᵀS(c), a function of
    the mass and the centre, which the same motions identify far better (``bench/bench_payload.py``: designs
    by this criterion lower the Cramér–Rao bound of the inertia about the centre below the D-optimal designs').

    Parameters
    ----------
    E : ndarray, shape (k, r)
        The inertia's rows over A's columns.
    weights : ndarray, shape (n_dof,), optional
        Each joint's row weight (1/σ_j); rows of A are sample-major (sample s, joint j at s·n_dof + j).

    Returns
    -------
    function
        ``A (rows, r) -> (value, dA)``, dA = −2·W A M⁻¹EᵀE M⁻¹ / tr(E M⁻¹ Eᵀ), M = AᵀWA.
    """
    E = np.asarray(E, dtype=float)
    squared = None if weights is None else np.asarray(weights, float) ** 2     # once, not per evaluation

    def criterion(A):
        rows = A.shape[0]
        solved = weighted_solve(A, squared, E)
        if solved is None:
            return float("inf"), np.zeros_like(A)
        Aw, X = solved                                           # X = M⁻¹Eᵀ, shape (r, k)
        trace = float(np.sum(E.T * X))
        if not trace > 0:
            return float("inf"), np.zeros_like(A)
        return float(np.log(rows * trace)), Aw @ (X @ X.T) * (-2.0 / trace)
    return criterion


def weighted_solve(A, squared, E):
    """W A and M⁻¹Eᵀ for M = AᵀWA, W = diag(squared) per joint row (None: equal weights), or None when M is not
    numerically positive definite: the variances' common step (:func:`inertia_variance`, the wide payload design's
    criterion).

    Parameters
    ----------
    A : ndarray, shape (rows, r)
    squared : ndarray, shape (n_dof,), or None
        Each joint's squared row weight; rows of A are sample-major.
    E : ndarray, shape (k, r)

    Returns
    -------
    (Aw, X) : ndarray, shapes (rows, r) and (r, k); or None
    """
    # equal weights: A itself (A · 1 is A to the bit), no (rows, r) copy per evaluation of the optimizer
    Aw = A if squared is None else A * np.tile(squared, A.shape[0] // len(squared))[:, None]
    M = A.T @ Aw
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        return None
    return Aw, np.linalg.solve(L.T, np.linalg.solve(L, E.T))


def criterion_function(name, inertia=None, weights=None):
    """The function of a criterion name (:data:`CRITERIA`); ``inertia`` and ``weights`` are
    :func:`inertia_variance`'s E and weights (the 'inertia' criterion's, which needs E)."""
    if name == "inertia":
        return inertia_variance(inertia, weights)
    return {"cond": log_condition, "dopt": d_optimality}[name]


def condition_number(A):
    """cond(A) in the 2-norm, as accurate as an SVD of A, for tall A (rows ≫ columns).

    With D the column norms, A D⁻¹ = QR where RᵀR = D⁻¹AᵀAD⁻¹ (Cholesky), so A = Q(RD) and the
    singular values of A are those of the small RD. Forming the Gram of the column-scaled A loses
    only ε·cond(AD⁻¹)² — tiny, column scaling leaves cond(AD⁻¹) small — and then every LAPACK call
    is on an r × r matrix: a multithreaded BLAS on a busy machine takes a second or more for the
    SVD of a 7000 × 64 matrix, this a millisecond. Falls back to the SVD of A when the scaled Gram
    is not numerically positive definite.
    """
    norms = np.linalg.norm(A, axis=0)
    if not (norms > 0).all():
        return float("inf")
    B = A / norms
    try:
        R = np.linalg.cholesky(B.T @ B).T
        s = np.linalg.svd(R * norms, compute_uv=False)
    except np.linalg.LinAlgError:
        s = np.linalg.svd(A, compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


INERTIA_ELEMENTS = ("XX", "XY", "XZ", "YY", "YZ", "ZZ")


def inertia_rows(robot, parameters, pivots, Y=None):
    """E, shape (k, len(pivots)): the payload's inertia about the last link's frame origin (Khalil's XX XY XZ
    YY YZ ZZ) from its identifiable representatives ``pivots`` (standard columns) — the 'inertia' criterion's
    rows. ``Y`` (:class:`~baseparam.excitation.payload.PayloadColumns`'s, shape (len(pivots), 10)): only the
    elements the identifiable combinations determine are kept (:func:`identifiable_inertia`); without it, the
    elements with no pivot among their terms are dropped."""
    E, keep = _inertia_map(robot, parameters, pivots, Y)
    return E[keep]


def identifiable_inertia(robot, parameters, payload):
    """Names (Khalil's, e.g. ``('ZZ',)``) of the inertia elements about the last link's frame origin that the
    payload's identifiable combinations determine (a planar robot's motions: ZZ alone)."""
    _, keep = _inertia_map(robot, parameters, payload.pivots, payload.Y)
    return tuple(name for name, kept in zip(INERTIA_ELEMENTS, keep) if kept)


def _inertia_map(robot, parameters, pivots, Y):
    from ..model.parameters import ColumnLayout, khalil_to_pseudo
    columns = [int(c) for c in ColumnLayout(robot, parameters).link_columns[-1]]
    to_khalil = np.eye(10) if parameters == "khalil" else np.linalg.inv(np.array(khalil_to_pseudo(), dtype=float))
    at = [columns.index(int(c)) for c in pivots]
    E = to_khalil[:6, at]
    if Y is None:
        return E, np.abs(E).max(axis=1) > 0
    # an element e·φ is a function of the identifiable combinations Y φ (Y[:, pivots] = I) only when
    # e = e[pivots] Y; otherwise E's row would give it the value with the unidentifiable terms at zero, and
    # the criterion the variance of a number no fit determines (a planar robot's XX and YY about the origin)
    gap = np.abs(to_khalil[:6] - E @ np.asarray(Y, dtype=float)).max(axis=1)
    return E, (np.abs(E).max(axis=1) > 0) & (gap <= 1e-9 * np.abs(to_khalil[:6]).max(axis=1))
