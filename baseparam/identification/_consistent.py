"""The physically consistent fit: standard parameters under the pseudo-inertia LMIs (issue 13, core).

Each link's 4×4 pseudo-inertia J_k = [[Σ, h], [hᵀ, m]] (Σ = ∫ r rᵀ dm, h = m·c; our ``pseudo``
columns XX…M are its entries) must be positive definite for a body to exist (Wensing, Kim & Slotine
2018): this one LMI implies m > 0 and the triangle inequalities. The fit

    minimise ‖W_b Y p − τ‖²   subject to   J_k(p) ⪰ ε·I,  IA ≥ 0,  FV ≥ 0,  FC ≥ 0

is posed on the standard parameters p (only the base parameters Y p are identifiable: the
constraints pick, among the p giving the same torques, a physical one) and written through the
normal equations of the base regressor, G = W_bᵀW_b = L Lᵀ, so its size is that of the base set,
not of the data: ‖Lᵀ Y p − L⁻¹ W_bᵀτ‖² differs from the residual by a constant. Many small 4×4
cones suit an interior-point solver (CLARABEL through cvxpy). The residual is scaled by ‖τ‖ so the
solver sees O(1) numbers.

``method="consistent"`` of the estimator (``--method consistent``) runs it with WLS weights; the CAD
prior and the fuller report are the rest of issue 13.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import BaseParamError
from ..model.parameters import ColumnLayout, khalil_to_pseudo

# pseudo-inertia entries of one link's 10 pseudo columns (XX YY ZZ XY XZ YZ SX SY SZ M)
_J_INDEX = ((0, 3, 4, 6), (3, 1, 5, 7), (4, 5, 2, 8), (6, 7, 8, 9))
EPSILON = 1e-6


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
        The solver's status (``optimal``, ``optimal_inaccurate``, ...).
    min_eigenvalues : ndarray, shape (n_links,)
        Smallest eigenvalue of each link's pseudo-inertia at ``p``.
    """

    p: np.ndarray
    x: np.ndarray
    status: str
    min_eigenvalues: np.ndarray

    def __repr__(self):
        return (f"ConsistentFit(status={self.status!r}, rank={len(self.x)}, "
                f"min_eigenvalue={float(self.min_eigenvalues.min()):.3g})")


def pseudo_inertia(p_pseudo_link) -> np.ndarray:
    """J of one link from its 10 pseudo parameters, shape (4, 4)."""
    v = np.asarray(p_pseudo_link, dtype=float)
    return v[np.array(_J_INDEX)]


def _to_pseudo(layout) -> np.ndarray:
    """T with p_pseudo = T @ p (p in the layout's parameterization), shape (n, n)."""
    T = np.eye(layout.n_standard)
    if layout.parameters == "khalil":
        K = np.array(khalil_to_pseudo(), dtype=float)
        for cols in layout.link_columns:
            T[np.ix_(cols, cols)] = K
    return T


def consistent_fit(base, G, h, tau_norm2, epsilon=EPSILON) -> ConsistentFit:
    """Fit physically consistent standard parameters to normal equations of the base regressor.

    Parameters
    ----------
    base : BaseParameters
    G : ndarray, shape (rank, rank)
        ``W_bᵀ W_b`` (weighted rows for WLS).
    h : ndarray, shape (rank,)
        ``W_bᵀ τ``.
    tau_norm2 : float
        ``τᵀ τ`` (scales the objective to O(1)).
    epsilon : float
        Each link's pseudo-inertia is kept ⪰ ε·I (SI).

    Returns
    -------
    ConsistentFit

    Raises
    ------
    BaseParamError
        When the solver fails (status not optimal).
    """
    import cvxpy as cp

    layout = ColumnLayout(base.robot, base.parameters)
    n = layout.n_standard
    T = _to_pseudo(layout)
    A = np.asarray(base.Y, dtype=float) @ np.linalg.inv(T)       # base parameters from pseudo parameters
    scale = np.sqrt(max(float(np.trace(G)), 1e-300))
    L = np.linalg.cholesky(G / scale ** 2 + 1e-12 * np.eye(len(h)))
    target = np.linalg.solve(L, h / scale ** 2)
    norm = np.sqrt(max(float(tau_norm2), 1e-300)) / scale
    q = cp.Variable(n)                                              # pseudo parameters, SI
    residual = (L.T @ A) @ q - target
    constraints = []
    for cols in layout.link_columns:
        J = cp.bmat([[q[cols[i]] for i in row] for row in _J_INDEX])
        constraints.append(0.5 * (J + J.T) >> epsilon * np.eye(4))
    for c in layout.rotor_columns.values():
        constraints.append(q[c] >= 0)
    for (_, kind), c in layout.friction_columns.items():
        if kind in ("FV", "FC"):
            constraints.append(q[c] >= 0)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(residual) / norm ** 2), constraints)
    problem.solve(solver=cp.CLARABEL)
    if q.value is None or problem.status not in ("optimal", "optimal_inaccurate"):
        raise BaseParamError(f"{base.robot.name}: the consistent fit failed (solver status {problem.status})")
    p_pseudo = np.asarray(q.value, dtype=float)
    p = np.linalg.solve(T, p_pseudo)
    eig = np.array([np.linalg.eigvalsh(pseudo_inertia(p_pseudo[cols]))[0] for cols in layout.link_columns])
    return ConsistentFit(p, np.asarray(base.Y, dtype=float) @ p, problem.status, eig)


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
        J = pseudo_inertia(p_pseudo[cols])
        m, h, S = float(J[3, 3]), J[:3, 3], J[:3, :3]
        com = h / m if m > 0 else np.zeros(3)
        about_origin = np.trace(S) * np.eye(3) - S
        inertia_com = about_origin - m * (com @ com * np.eye(3) - np.outer(com, com))
        out.append({"link": k, "mass": m, "com": com.tolist(), "inertia_com": inertia_com.tolist(),
                    "principal_moments": np.linalg.eigvalsh(inertia_com).tolist(),
                    "min_eigenvalue": float(np.linalg.eigvalsh(J)[0])})
    return out


__all__ = ["ConsistentFit", "consistent_fit", "physical_links", "pseudo_inertia"]
