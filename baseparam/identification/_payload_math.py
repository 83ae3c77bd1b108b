"""The arithmetic of a payload's 10 parameters, shared by every way of identifying it (joint torques, still
poses, a wrist sensor's wrench): pseudo parameters ↔ mass, centre of mass and inertia, the identifiable
combinations as text, the physically consistent estimate nearest a least-squares one, and its inertia as a body
takes it.
"""
from __future__ import annotations

import numpy as np

from .._stderr import solve_clarabel
from .._validation import check_number, check_parameter_range, check_real_array
from ..errors import ArgumentError, DataError, SimulationError, long_values_shortened, printable
from ..model.checks import inertia_problem
from ._echelon import gauss_jordan

NAMES = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")
# the pseudo-inertia of the 10 pseudo parameters p: J[a, b] = p[_J_INDEX[a][b]], and p[i] = J[_ENTRIES[:, i]]
_J_INDEX = ((0, 3, 4, 6), (3, 1, 5, 7), (4, 5, 2, 8), (6, 7, 8, 9))
_ENTRIES = ((0, 1, 2, 0, 0, 1, 0, 1, 2, 3), (0, 1, 2, 1, 2, 2, 3, 3, 3, 3))


def pseudo_matrix(p) -> np.ndarray:
    """The 4×4 pseudo-inertia J = [[Σ, s], [sᵀ, m]] of 10 pseudo parameters (shape (10,)); that of a body given by
    mass, centre and inertia is :func:`~baseparam.model.urdf_update.pseudo_inertia`."""
    return np.asarray(p, dtype=float)[np.array(_J_INDEX)]


def pseudo_columns(J) -> np.ndarray:
    """The 10 pseudo parameters XX YY ZZ XY XZ YZ SX SY SZ M of a 4×4 pseudo-inertia (its upper triangle)."""
    return np.asarray(J)[_ENTRIES]


def frame_change(T) -> np.ndarray:
    """The linear map of 10 pseudo parameters given in a frame placed at ``T`` (4×4, rigid) in another frame to the
    same body's parameters in that other frame: ``J ↦ T J Tᵀ`` (points r ↦ R r + t), shape (10, 10). A fit whose
    columns W act on the other frame's parameters acts on the placed frame's as ``W @ frame_change(T)``."""
    T = np.asarray(T, dtype=float)
    return np.stack([pseudo_columns(T @ pseudo_matrix(e) @ T.T) for e in np.eye(10)], axis=1)


def pseudo_expression(x):
    """J of 10 pseudo parameters given as cvxpy scalars (any sequence of 10), a (4, 4) cvxpy expression."""
    import cvxpy as cp

    return cp.bmat([[x[i] for i in row] for row in _J_INDEX])


def metric_root(M):
    """(L, w): the eigenvalues w of M's symmetric part and L with LᵀL that part, its negative eigenvalues dropped:
    ‖L x‖² = xᵀ M x (M positive semidefinite) in a cvxpy objective."""
    w, V = np.linalg.eigh(0.5 * (M + M.T))
    return (V * np.sqrt(np.maximum(w, 0.0))).T, w


def _finite_of_shape(name, x, shape):
    """``x`` as a float array of ``shape``, all finite; else ArgumentError in one line (arguments in the order of
    :func:`~baseparam._validation.check_real_array`, which evaluation imports as its ``_finite``)."""
    arr = check_real_array(name, x, len(shape))
    if arr.shape != shape:
        raise ArgumentError(f"{name}: expected shape {shape}, got {arr.shape}")
    return arr


def payload_parameters(mass, com, inertia):
    """The 10 pseudo parameters of a body of ``mass`` (kg) with centre ``com`` (3,) and ``inertia`` (3, 3)
    about it, all in one frame.

    Returns
    -------
    ndarray, shape (10,)
    """
    mass = check_number(mass, "mass")
    c, Ic = _finite_of_shape("com", com, (3,)), _finite_of_shape("inertia", inertia, (3, 3))
    with np.errstate(over="ignore", invalid="ignore"):      # an overflow is refused below
        Sigma_c = np.trace(Ic) / 2 * np.eye(3) - Ic           # second moments about the centre
        S = Sigma_c + mass * np.outer(c, c)
        p = np.array([S[0, 0], S[1, 1], S[2, 2], S[0, 1], S[0, 2], S[1, 2], *(mass * c), mass])
    # a centre of 1e300 m squared to inf: the parameters returned were inf (NaN beside a zero mass)
    return check_parameter_range("mass, com, inertia", p, "a body in SI units (kg, m, kg·m²)")


def payload_physical(p):
    """(mass, com (3,), inertia about the com (3, 3)) of 10 pseudo parameters.

    :func:`~baseparam.model.urdf_update.body_of` of :func:`pseudo_matrix` in exact arithmetic, rounded in another
    order (the two differ in the last bits for 97 % of random bodies): kept, so payload results stay as they were."""
    p = _finite_of_shape("p", p, (10,))
    m = float(p[9])
    P = pseudo_matrix(p)
    c = P[:3, 3] / m if m > 0 else np.zeros(3)
    Sc = P[:3, :3] - m * np.outer(c, c)
    return m, c, np.trace(Sc) * np.eye(3) - Sc


def body_inertia(inertia):
    """``inertia`` (about the centre of mass, physical to the fit's slack: :func:`~.payload._check_physical`) as a
    body or a controller takes it: itself when physical to a body's own tolerance
    (:func:`~baseparam.model.checks.inertia_problem`), else with the smallest isotropic term added that makes it so.
    A fit's principal moment of −3.6e-12 kg·m² beside 2.5e-11 (the solver's round-off on a body of 1.4 g) was
    refused by ``payload --robot-out`` as 'Inertia.inertia: not a physical inertia', naming neither flag nor file,
    and given to the vendors' formats as is. Symmetric: a result's asymmetry within that slack (1e-9 beside 5e-6)
    was refused by the body as 'Inertia.inertia: expected a symmetric matrix' (a symmetric tensor is its own
    half-sum, bit for bit)."""
    inertia = np.asarray(inertia, float)
    inertia = 0.5 * (inertia + inertia.T)
    if inertia_problem(inertia) is None:
        return inertia
    moments = np.linalg.eigvalsh(inertia)
    # δ lifts the lowest moment to 0 and keeps the triangle inequality (each side gains δ, the sum of two 2δ)
    delta = max(-moments[0], moments[2] - moments[0] - moments[1], 0.0)
    return inertia + delta * (1.0 + 1e-6) * np.eye(3)


def _check_target(y, what):
    """Refuse a fit target beyond ±ABSURD_PARAMETER (1e100), whose squares would overflow: the residual's σ turns
    inf, the weights 0 and the fit returns a finite, wrong payload with a zero standard deviation."""
    check_parameter_range(f"loaded: {what}", np.asarray(y, dtype=float), "SI units (N·m, N): check the units and "
                          "the gains", DataError)


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
    R, _ = gauss_jordan(np.array(rows, dtype=float), 1e-9, 1e-12)
    text = []
    for r in R:
        terms = [(c, v) for c, v in enumerate(r) if v != 0]
        text.append(" + ".join(names[c] if abs(v - 1) < 1e-12 else f"{v:.6g}·{names[c]}" for c, v in terms))
    return R, text


def _consistent(p0, cov_inv):
    """The pseudo-inertia-PSD, mass ≥ 0 parameters nearest p0 in the metric cov_inv.

    Raises
    ------
    SimulationError
        The solver failed (or is unavailable) and p0 is no physical body: p0 was returned as the estimate, a mass
        below zero in a result said to be physically consistent.
    """
    import cvxpy as cp

    L, w = metric_root(cov_inv)
    x = cp.Variable(10)
    J = pseudo_expression(x)
    # a tiny ridge keeps the unidentifiable directions at the unconstrained choice; a metric of zero (a fit whose
    # residual is exactly zero has a zero covariance, whose pinv is zero: a wrench of zeros) left no objective at
    # all, and the solver's first feasible point came back — 1.05 kg and 2.2 kg·m² for a sensor reading nothing
    scale = np.abs(w).max()
    if scale == 0 and _physical(p0):
        return np.array(p0, dtype=float)          # consistent already: nearest itself in any metric
    objective = cp.sum_squares(L @ (x - p0)) + (1e-9 * scale if scale > 0 else 1.0) * cp.sum_squares(x - p0)
    problem = cp.Problem(cp.Minimize(objective), [0.5 * (J + J.T) >> 0, x[9] >= 0])
    try:
        solve_clarabel(problem)                    # a Rust panic: a SolverError, its text kept off stderr
    except cp.error.SolverError:
        return _rescaled(p0, L, scale)
    if x.value is None:
        return _rescaled(p0, L, scale)
    return np.asarray(x.value, dtype=float)


def _rescaled(p0, L, scale):
    """:func:`_consistent`'s problem again, in units where p0 and the metric are of order 1, after CLARABEL failed
    on it as posed: a wrench log of no payload (p0 ~ 1e-8, the metric's eigenvalues up to 1e17) failed on 25 of 200
    noise levels and then returned p0 as the consistent estimate, a mass or pseudo-inertia below zero. The same
    minimizer (x = unit·y; the objective divided by a constant); tried only after a failure, so that every estimate
    the first solve gives stays as it was."""
    import cvxpy as cp

    unit = max(float(np.abs(p0).max()), np.finfo(float).tiny)
    y = cp.Variable(10)
    J = pseudo_expression(y)
    target = np.asarray(p0, dtype=float) / unit
    metric, ridge = (L / np.sqrt(scale), 1e-9) if scale > 0 else (0.0 * L, 1.0)
    objective = cp.sum_squares(metric @ (y - target)) + ridge * cp.sum_squares(y - target)
    problem = cp.Problem(cp.Minimize(objective), [0.5 * (J + J.T) >> 0, y[9] >= 0])
    try:
        solve_clarabel(problem)
    except cp.error.SolverError as exc:
        return _unsolved(p0, f"CLARABEL failed: {' '.join(str(exc).split()) or type(exc).__name__}")
    if y.value is None:
        return _unsolved(p0, f"CLARABEL's status {problem.status}")
    return unit * np.asarray(y.value, dtype=float)


def _physical(p) -> bool:
    """Whether 10 pseudo parameters are a body exactly: mass ≥ 0 and a positive semidefinite pseudo-inertia."""
    return bool(p[9] >= 0 and np.linalg.eigvalsh(pseudo_matrix(p)).min() >= 0)


def _unsolved(p0, why):
    """p0 when the consistent estimate's solver failed (``why``) and p0 is a body already (nearest itself); else
    SimulationError: the least-squares estimate was returned as the consistent one, a mass below zero or an inertia no
    body has in a result every use takes as physical."""
    if _physical(p0):
        return np.array(p0, dtype=float)
    why = long_values_shortened(printable(why))
    raise SimulationError(f"payload: the physically consistent estimate failed ({why}); the least-squares one (mass "
                          f"{p0[9]:.3g} kg) is no physical body")


def _weighted_fit(A, y, fractions, used):
    """Least squares with per-component weights from a first OLS residual (components differ in noise by
    orders of magnitude), and its covariance σ²(AᵀA)⁻¹ inflated by the noise's correlation.

    Parameters
    ----------
    A : ndarray, shape (S, n, k)
    y : ndarray, shape (S, n)
    fractions : sequence of float
        Independent samples of each block (their sum against S gives the correlation factor).
    used : int
        Degrees of freedom the fit uses (the residual's are S·n − used, at least 1).

    Returns
    -------
    theta : ndarray, shape (k,)
    cov : ndarray, shape (k, k)
    """
    S, n, k = A.shape
    theta = np.linalg.lstsq(A.reshape(S * n, k), y.ravel(), rcond=None)[0]
    sigma = np.sqrt(np.mean((y - A @ theta) ** 2, axis=0))
    sigma = np.where(sigma > 0, sigma, max(sigma.max(), 1e-12))
    Aw, yw = A / sigma[None, :, None], y / sigma
    theta = np.linalg.lstsq(Aw.reshape(S * n, k), yw.ravel(), rcond=None)[0]
    s2 = float(((yw - Aw @ theta) ** 2).sum() / max(S * n - used, 1))
    correlation = S / max(sum(fractions), 1.0)
    return theta, correlation * s2 * np.linalg.pinv(np.einsum("sjr,sjc->rc", Aw, Aw))


def _fit_payload(W, y, fractions, rows, text, nuisance=None, nuisance_dof=0):
    """The payload of columns W (S, n, 10) and target y (S, n) (torques or a wrench): :func:`_weighted_fit` of its
    identifiable coordinates ``rows`` (rank, 10) beside ``nuisance`` columns (S, n, k) whose values are not reported
    (``nuisance_dof`` more degrees of freedom spent: a wrench's offsets), then :func:`_physical_estimate`'s fields
    and ``rmse`` (n,), the residual's RMS per row."""
    rank = len(rows)
    A = W @ rows.T                                   # (S, n, rank): the identifiable coordinates
    if nuisance is not None:
        A = np.concatenate([A, nuisance], axis=2)
    theta, cov_theta = _weighted_fit(A, y, fractions, A.shape[2] + nuisance_dof)
    fields = _physical_estimate(theta[:rank], cov_theta[:rank, :rank], rows, text)
    residual = y - W @ fields["parameters"] - (nuisance @ theta[rank:] if nuisance is not None else 0.0)
    return dict(fields, rmse=np.sqrt(np.mean(residual ** 2, axis=0)))


def _physical_estimate(theta, cov_theta, rows, text):
    """The payload of identifiable coordinates θ = rows p: the 10 parameters of minimum norm in the directions the
    data do not see (p = pinv(rows) θ), then the consistent estimate nearest it in θ's metric, with the standard
    deviations of mass, centre and inertia by the delta method from the unconstrained covariance.

    Parameters
    ----------
    theta : ndarray, shape (rank,)
    cov_theta : ndarray, shape (rank, rank)
    rows : ndarray, shape (rank, 10)
    text : list of str
        The identifiable combinations, named when the rank is below 10.

    Returns
    -------
    dict
        The :class:`~.payload.PayloadResult` fields of the estimate: mass, com, inertia (of the consistent
        parameters), their standard deviations, parameters, unconstrained (p_ls), covariance (of p_ls),
        identifiable, rank.
    """
    P = np.linalg.pinv(rows)                         # (10, rank)
    p_ls = P @ theta
    cov = P @ cov_theta @ P.T
    # the consistent estimate nearest p_ls in θ's metric, the inverse covariance (zero for a fit reproducing its data
    # exactly: _consistent then takes the plain distance)
    p = _consistent(p_ls, rows.T @ np.linalg.pinv(cov_theta) @ rows)
    J = np.zeros((13, 10))
    at = _flat(p)
    for i in range(10):
        h = 1e-7 * max(abs(p[i]), 1e-4)
        e = np.zeros(10)
        e[i] = h
        J[:, i] = (_flat(p + e) - at) / h
    std = np.sqrt(np.maximum(np.diag(J @ cov @ J.T), 0.0))
    std[_undetermined(J, rows)] = np.nan             # what the data do not see has no standard deviation
    # no mass (the solver's p0 kept, its mass below zero): the result makes the centre's and inertia's NaN
    m, c, I = payload_physical(p)
    return dict(mass=m, com=c, inertia=I, mass_std=float(std[0]), com_std=std[1:4], inertia_std=std[4:].reshape(3, 3),
                parameters=p, unconstrained=p_ls, covariance=cov,
                identifiable=list(NAMES) if len(rows) == 10 else text, rank=len(rows))
