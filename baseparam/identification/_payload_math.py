"""The arithmetic of a payload's 10 parameters, shared by every way of identifying it (joint torques, still
poses, a wrist sensor's wrench): pseudo parameters ↔ mass, centre of mass and inertia, the identifiable
combinations as text, and the physically consistent estimate nearest a least-squares one.
"""
from __future__ import annotations

import numpy as np

NAMES = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")


def pseudo_matrix(p):
    """4×4 pseudo-inertia [[Σ, s], [sᵀ, m]] of 10 pseudo parameters (ndarray, shape (10,))."""
    XX, YY, ZZ, XY, XZ, YZ, SX, SY, SZ, M = p
    return np.array([[XX, XY, XZ, SX], [XY, YY, YZ, SY], [XZ, YZ, ZZ, SZ], [SX, SY, SZ, M]], dtype=float)


def payload_parameters(mass, com, inertia):
    """The 10 pseudo parameters of a body of ``mass`` (kg) with centre ``com`` (3,) and ``inertia`` (3, 3)
    about it, all in one frame.

    Returns
    -------
    ndarray, shape (10,)
    """
    c, Ic = np.asarray(com, dtype=float), np.asarray(inertia, dtype=float)
    Sigma_c = np.trace(Ic) / 2 * np.eye(3) - Ic           # second moments about the centre
    S = Sigma_c + mass * np.outer(c, c)
    return np.array([S[0, 0], S[1, 1], S[2, 2], S[0, 1], S[0, 2], S[1, 2], *(mass * c), mass])


def payload_physical(p):
    """(mass, com (3,), inertia about the com (3, 3)) of 10 pseudo parameters."""
    m = float(p[9])
    P = pseudo_matrix(p)
    c = P[:3, 3] / m if m > 0 else np.zeros(3)
    Sc = P[:3, :3] - m * np.outer(c, c)
    return m, c, np.trace(Sc) * np.eye(3) - Sc


LARGEST = 1e100        # |torque| or |wrench| a fit takes: beyond it the sums of squares overflow float64


def _check_target(y, what):
    """Refuse a fit target whose squares would overflow: the residual's σ turns inf, the weights 0 and the fit
    returns a finite, wrong payload with a zero standard deviation."""
    from ..errors import DataError

    top = float(np.abs(y).max()) if np.size(y) else 0.0
    if not top <= LARGEST:
        raise DataError(f"loaded: {what} up to {top:g}: beyond any robot's (at most {LARGEST:g}); check the "
                        "units and the gains")


def _undetermined(J, rows):
    """Which quantities of ``J`` (k, 10: their gradients in the 10 parameters) the data do not determine: a
    gradient outside the row space of ``rows`` (rank, 10) moves with directions the data cannot see. Their
    first-order standard deviation from the covariance (zero in those directions) would read 0: it is NaN."""
    R = np.asarray(rows, dtype=float)
    if len(R) == 0:
        return np.ones(len(J), dtype=bool)
    outside = J - (J @ np.linalg.pinv(R)) @ R
    return np.linalg.norm(outside, axis=1) > 1e-6 * np.maximum(np.linalg.norm(J, axis=1), 1e-300)


def _flat(p):
    m, c, I = payload_physical(p)
    return np.concatenate([[m], c, I.ravel()])


def _echelon(rows, names):
    """Reduced row echelon basis of the row space of ``rows`` (Gauss-Jordan on an orthonormal basis), and
    each row as text over ``names``."""
    R = np.array(rows, dtype=float)
    rank = len(R)
    row, pivots = 0, []
    for col in range(R.shape[1]):
        if row == rank:
            break
        k = row + int(np.argmax(np.abs(R[row:, col])))
        if abs(R[k, col]) < 1e-9:
            continue
        R[[row, k]] = R[[k, row]]
        R[row] /= R[row, col]
        for r in range(rank):
            if r != row:
                R[r] -= R[r, col] * R[row]
        pivots.append(col)
        row += 1
    R[np.abs(R) < 1e-12] = 0.0
    text = []
    for r in R:
        terms = [(c, v) for c, v in enumerate(r) if v != 0]
        text.append(" + ".join(names[c] if abs(v - 1) < 1e-12 else f"{v:.6g}·{names[c]}" for c, v in terms))
    return R, text


def _consistent(p0, cov_inv):
    """The pseudo-inertia-PSD, mass ≥ 0 parameters nearest p0 in the metric cov_inv."""
    import cvxpy as cp

    w, V = np.linalg.eigh(0.5 * (cov_inv + cov_inv.T))
    L = (V * np.sqrt(np.maximum(w, 0.0))).T
    x = cp.Variable(10)
    XX, YY, ZZ, XY, XZ, YZ, SX, SY, SZ, M = (x[i] for i in range(10))
    J = cp.bmat([[XX, XY, XZ, SX], [XY, YY, YZ, SY], [XZ, YZ, ZZ, SZ], [SX, SY, SZ, M]])
    # a tiny ridge keeps the unidentifiable directions at the unconstrained choice
    objective = cp.sum_squares(L @ (x - p0)) + 1e-9 * np.abs(w).max() * cp.sum_squares(x - p0)
    problem = cp.Problem(cp.Minimize(objective), [0.5 * (J + J.T) >> 0, M >= 0])
    try:
        problem.solve(solver=cp.CLARABEL)
    except cp.error.SolverError:
        return p0
    if x.value is None:
        return p0
    return np.asarray(x.value, dtype=float)
