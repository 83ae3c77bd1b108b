"""Payload identification: a tool on the flange as one more rigid body fixed to the last link.

The payload's 10 standard parameters (pseudo parameterization, in the frame of the link the last
joint moves) enter the joint torques through that link's columns of the standard regressor:
τ_payload = W_last(q, q̇, q̈) p_payload. The torque it explains is the measured torque minus the
robot model's prediction, or — with logs of the same motion without the payload — the loaded minus
the unloaded torque (samples matched by time; what the model gets wrong cancels).

Which of the 10 parameters the data can tell: with the rest of the robot known, exactly the
projection onto the last link's coordinates of the base set's regroupings (the row space of
``Y[:, last link]``); its rank and reduced echelon form name the identifiable combinations.

The fit: OLS (per-joint weights from the residual), standard deviations σ²(AᵀA)⁻¹ inflated by the
correlation of low-passed noise (as :func:`~baseparam.identify`), then the physically consistent
estimate (pseudo-inertia positive semidefinite, mass ≥ 0; cvxpy + CLARABEL) in the metric of that
covariance. The standard deviations of mass, centre of mass and inertia about it are first-order
(delta method) from the OLS covariance.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

from ..errors import DataError, SettingsError
from .preprocessing import Preprocessing, Processed, preprocess
from ._inputs import _as_trajectories

__all__ = ["PayloadResult", "identify_payload", "payload_parameters", "payload_physical"]

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


def _flat(p):
    m, c, I = payload_physical(p)
    return np.concatenate([[m], c, I.ravel()])


@dataclasses.dataclass(frozen=True)
class PayloadResult:
    """An identified payload, in the frame of the link the last joint moves (SI).

    Attributes
    ----------
    mass : float
    com : ndarray, shape (3,)
    inertia : ndarray, shape (3, 3)
        About the centre of mass.
    mass_std : float
    com_std : ndarray, shape (3,)
    inertia_std : ndarray, shape (3, 3)
    parameters : ndarray, shape (10,)
        Pseudo parameters XX YY ZZ XY XZ YZ SX SY SZ M of the consistent estimate.
    unconstrained : ndarray, shape (10,)
        The least-squares estimate (minimum norm in the unidentifiable directions).
    covariance : ndarray, shape (10, 10)
        Of ``unconstrained``.
    identifiable : list of str
        The identifiable combinations of the 10 parameters (all ten: their names).
    rank : int
    mode : str
        'model' (measured − model) or 'difference' (loaded − unloaded).
    n_samples : int
    rmse : ndarray, shape (n_dof,)
        Of the payload torque's residual.
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    mass_std: float
    com_std: np.ndarray
    inertia_std: np.ndarray
    parameters: np.ndarray
    unconstrained: np.ndarray
    covariance: np.ndarray
    identifiable: list
    rank: int
    mode: str
    n_samples: int
    rmse: np.ndarray

    def __repr__(self):
        com = ", ".join(f"{1e3 * v:.1f}±{1e3 * s:.1f}" for v, s in zip(self.com, self.com_std))
        return (f"PayloadResult(mass={self.mass:.4g}±{self.mass_std:.2g} kg, com=[{com}] mm, "
                f"principal moments={np.round(np.linalg.eigvalsh(self.inertia), 6).tolist()} kg·m², "
                f"rank {self.rank}/10, {self.mode})")

    def summary(self):
        """Text: mass, centre of mass and inertia about it with standard deviations, and what is identifiable."""
        lines = [f"payload ({self.mode}, {self.n_samples} samples), in the frame of the link the last joint moves:",
                 f"  mass     {self.mass:.4f} ± {self.mass_std:.4f} kg",
                 "  com      " + "  ".join(f"{v:+.4f} ± {s:.4f}" for v, s in zip(self.com, self.com_std)) + " m",
                 "  inertia about the com (kg·m²):"]
        for row, srow in zip(self.inertia, self.inertia_std):
            lines.append("    " + "  ".join(f"{v:+.5f} ± {s:.5f}" for v, s in zip(row, srow)))
        if self.rank < 10:
            lines.append(f"  only {self.rank} of the 10 parameters are identifiable, as these combinations: "
                         + "; ".join(self.identifiable))
        return "\n".join(lines)

    def to_vendor(self, vendor):
        """The payload in a controller's format (SI; lengths in m, KUKA's angles in degrees).

        The frame is the last link's (for the UR10e description, DH frame 6 = the flange ``tool0``):
        a controller whose flange frame differs needs the payload moved into it first.

        Parameters
        ----------
        vendor : {'ur', 'kuka', 'franka'}
            'ur': ``set_target_payload(mass, cog, inertia)`` with inertia [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]
            about the centre of gravity; 'kuka': load data M, X Y Z, A B C (the principal axes as
            rotations about Z, Y', X'') and JX JY JZ about them; 'franka': ``m_load``, ``F_x_Cload``,
            ``I_load`` (the 3×3 tensor column-major, 9 numbers).

        Returns
        -------
        dict
        """
        from .._validation import check_option

        check_option(vendor, "vendor", ("ur", "kuka", "franka"), error=SettingsError)
        I = 0.5 * (self.inertia + self.inertia.T)
        if vendor == "ur":
            return {"mass": self.mass, "cog": self.com.tolist(),
                    "inertia": [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]}
        if vendor == "franka":
            return {"m_load": self.mass, "F_x_Cload": self.com.tolist(), "I_load": I.ravel(order="F").tolist()}
        J, R = np.linalg.eigh(I)
        if np.linalg.det(R) < 0:
            R[:, 2] = -R[:, 2]
        # R = Rz(A) Ry(B) Rx(C): the principal axes in the flange frame
        B = np.arcsin(np.clip(-R[2, 0], -1.0, 1.0))
        A, C = np.arctan2(R[1, 0], R[0, 0]), np.arctan2(R[2, 1], R[2, 2])
        return {"M": self.mass, "X": self.com[0], "Y": self.com[1], "Z": self.com[2],
                "A": float(np.degrees(A)), "B": float(np.degrees(B)), "C": float(np.degrees(C)),
                "JX": float(J[0]), "JY": float(J[1]), "JZ": float(J[2])}

    def to_dict(self):
        """JSON-ready dict: mass, com, inertia and their standard deviations, the details and the vendors'
        formats (:meth:`to_vendor`)."""
        return {"vendors": {v: self.to_vendor(v) for v in ("ur", "kuka", "franka")},
                "mass": self.mass, "mass_std": self.mass_std, "com": self.com.tolist(),
                "com_std": self.com_std.tolist(), "inertia": self.inertia.tolist(),
                "inertia_std": self.inertia_std.tolist(), "frame": "the link the last joint moves",
                "parameters": dict(zip(NAMES, self.parameters.tolist())), "rank": self.rank,
                "identifiable": list(self.identifiable), "mode": self.mode, "n_samples": self.n_samples,
                "rmse": self.rmse.tolist()}


def identifiable_combinations(base, columns):
    """Rank and the identifiable combinations of one link's 10 parameters, given the other links.

    Parameters
    ----------
    base : BaseParameters
    columns : ndarray of int, shape (10,)

    Returns
    -------
    rank : int
    rows : ndarray, shape (rank, 10)
        Reduced row echelon basis of the row space of ``Y[:, columns]``.
    text : list of str
    """
    Y = np.asarray(base.Y, dtype=float)[:, columns]
    scale = max(np.abs(Y).max(), 1.0)
    _, s, Vt = np.linalg.svd(Y)
    rank = int((s > 1e-9 * scale).sum())
    # echelon form of the row space: Gauss-Jordan on the orthonormal basis
    R = Vt[:rank].copy()
    row, pivots = 0, []
    for col in range(10):
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
        text.append(" + ".join(NAMES[c] if abs(v - 1) < 1e-12 else f"{v:.6g}·{NAMES[c]}" for c, v in terms))
    return rank, R, text


def _shift(t, q, tu, qu):
    """The time offset δ (s) that best lines up q(t) with qu(t + δ): the two logs rarely start at the
    same point of the motion. A coarse search over ±10 s, then finer steps around the best."""
    def mismatch(d):
        inside = (t + d >= tu[0]) & (t + d <= tu[-1])
        if inside.sum() < 0.5 * len(t):
            return np.inf
        return float(np.mean([np.mean((q[inside, j] - np.interp(t[inside] + d, tu, qu[:, j])) ** 2)
                              for j in range(q.shape[1])]))
    best = 0.0
    for step, span in ((0.1, 10.0), (0.005, 0.2), (0.0002, 0.01)):
        grid = best + np.arange(-span, span + step / 2, step)
        best = float(grid[int(np.argmin([mismatch(d) for d in grid]))])
    return best


def _matched(loaded, unloaded):
    """Unloaded torque (and states) at the loaded samples' times, the logs lined up by their positions."""
    t = loaded.t - loaded.t[0]
    tu = unloaded.t - unloaded.t[0]
    d = _shift(t, loaded.q, tu, unloaded.q)
    te = np.clip(t + d, tu[0], tu[-1])
    return [np.column_stack([np.interp(te, tu, a[:, j]) for j in range(a.shape[1])])
            for a in (unloaded.tau, unloaded.q, unloaded.qd, unloaded.qdd)]


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


def identify_payload(model, loaded, *, unloaded=None, preprocessing: Optional[Preprocessing] = Preprocessing(),
                     parameters="pseudo", friction=False):
    """Identify a payload fixed to the last link from joint torques.

    Parameters
    ----------
    model : Robot, Model or str
        The robot without the payload: its description's true values (a file or a Robot), or a
        :class:`~baseparam.Model` (e.g. identified) whose prediction is subtracted.
    loaded : Trajectory, str, or a list of these
        Logs with the payload (torques; currents are converted by :func:`read_trajectory`'s gains).
    unloaded : same as ``loaded``, optional
        Logs of the same motion without the payload, one per loaded log: the payload torque is then
        loaded − unloaded at matched times (corrected by the model for the small difference of states).
    preprocessing : Preprocessing or None
    parameters : {'pseudo', 'khalil'}
        The parameterization of ``model``'s values (the payload is fitted in pseudo parameters).
    friction : bool
        Fit, beside the payload, a viscous, a Coulomb and an offset term per joint (nuisance parameters,
        not reported): the load changes the gears' friction, which neither the model nor the unloaded
        log holds.

    Returns
    -------
    PayloadResult
    """
    from .._blas import single_threaded
    from ..dynamics.newton_euler import inverse_dynamics
    from ..dynamics.regressors import evaluate
    from .._validation import check_samples
    from ..model.loading import load_robot
    from ..model.parameters import ColumnLayout, body_parameters
    from ..model.robot import Robot
    from ..model.value import Model
    from ..projection.base_set import find_base_parameters
    from ._least_squares import _independent_fraction

    if isinstance(model, str):
        model = load_robot(model)
    if isinstance(model, Model):
        robot = model.robot

        def predicted(q, qd, qdd):
            return inverse_dynamics(model, q, qd, qdd)
    elif isinstance(model, Robot):
        # the description's bodies only: friction and rotor inertias declared without values are unknown
        # (0 here; with unloaded logs their torques cancel)
        robot = model
        layout = ColumnLayout(robot, "pseudo")
        links = layout.link_columns.ravel()
        values = np.concatenate([body_parameters(j.inertia, "pseudo") if j.inertia is not None else np.zeros(10)
                                 for j in robot.joints])

        def predicted(q, qd, qdd):
            return evaluate(robot, q, qd, qdd, parameters="pseudo", columns=links, weights=values)
    else:
        raise SettingsError("model: expected a Robot, a Model or a description file")
    settings = preprocessing or Preprocessing.none()

    def prepared(data, what):
        out = []
        for item in _as_trajectories(data, what):
            if item.n_dof != robot.n_dof:
                raise DataError(f"{item.source}: {item.n_dof} joints in the data, {robot.n_dof} in the robot")
            item = item if isinstance(item, Processed) else preprocess(item, settings)
            for field in ("q", "qd", "qdd", "tau"):
                # finite but absurd values (torques of 1e300) would overflow the fit into inf/NaN results
                if getattr(item, field, None) is not None:
                    check_samples(f"{item.source}: {field}", getattr(item, field), robot.n_dof,
                                  error=DataError)
            out.append(item)
        return out

    loaded = prepared(loaded, "loaded")
    unloaded = None if unloaded is None else prepared(unloaded, "unloaded")
    if unloaded is not None and len(unloaded) != len(loaded):
        raise SettingsError(f"unloaded: {len(unloaded)} logs for {len(loaded)} loaded ones (one per loaded log)")
    columns = ColumnLayout(robot, "pseudo").link_columns[-1]
    base = find_base_parameters(robot, "pseudo")
    rank, rows, text = identifiable_combinations(base, columns)
    blocks, targets, fractions, extras = [], [], [], []
    with single_threaded():
        for k, item in enumerate(loaded):
            keep = item.kept
            q, qd, qdd, tau = (a[keep] for a in (item.q, item.qd, item.qdd, item.tau))
            if unloaded is None:
                y = tau - predicted(q, qd, qdd)
            else:
                tau_u, q_u, qd_u, qdd_u = (a[keep] for a in _matched(item, unloaded[k]))
                y = (tau - tau_u) - (predicted(q, qd, qdd) - predicted(q_u, qd_u, qdd_u))
            blocks.append(evaluate(robot, q, qd, qdd, parameters="pseudo", columns=columns))
            targets.append(y)
            extras.append(np.stack([qd, np.tanh(qd / 0.02), np.ones_like(qd)], axis=2))   # (S, n, 3)
            fractions.append(_independent_fraction(item, 1) * len(q))
    W = np.concatenate(blocks)                      # (S, n, 10)
    y = np.concatenate(targets)                     # (S, n)
    S, n = y.shape
    if S * n < 10:
        raise DataError("loaded: too few samples to identify a payload")
    A = W @ rows.T                                  # (S, n, rank): the identifiable coordinates
    if friction:        # per joint: its own three columns, zero for the other joints
        E = np.concatenate(extras)
        F = np.zeros((S, n, 3 * n))
        for j in range(n):
            F[:, j, 3 * j:3 * j + 3] = E[:, j]
        A = np.concatenate([A, F], axis=2)
    # per-joint weights from a first OLS residual (joints differ in noise by orders of magnitude)
    theta = np.linalg.lstsq(A.reshape(S * n, A.shape[2]), y.ravel(), rcond=None)[0]
    sigma = np.sqrt(np.mean((y - A @ theta) ** 2, axis=0))
    sigma = np.where(sigma > 0, sigma, max(sigma.max(), 1e-12))
    Aw, yw = A / sigma[None, :, None], y / sigma
    theta, *_ = np.linalg.lstsq(Aw.reshape(S * n, A.shape[2]), yw.ravel(), rcond=None)
    residual = yw - Aw @ theta
    dof = max(S * n - len(theta), 1)
    s2 = float((residual ** 2).sum() / dof)
    correlation = S / max(sum(fractions), 1.0)
    G = np.einsum("sjr,sjc->rc", Aw, Aw)
    cov_theta = (correlation * s2 * np.linalg.pinv(G))[:rank, :rank]
    nuisance = theta[rank:]
    theta = theta[:rank]
    # the 10 parameters: minimum norm in the directions the data do not see, p = pinv(rows) θ
    P = np.linalg.pinv(rows)                         # (10, rank)
    p_ls = P @ theta
    cov = P @ cov_theta @ P.T
    info = rows.T @ np.linalg.pinv(cov_theta) @ rows
    p = _consistent(p_ls, info)
    # delta method from the OLS covariance, at the consistent estimate
    J = np.zeros((13, 10))
    base_flat = _flat(p)
    for i in range(10):
        h = 1e-7 * max(abs(p[i]), 1e-4)
        e = np.zeros(10)
        e[i] = h
        J[:, i] = (_flat(p + e) - base_flat) / h
    cov_flat = J @ cov @ J.T
    std = np.sqrt(np.maximum(np.diag(cov_flat), 0.0))
    if rank < 10:       # the physical quantities depend on directions the data do not see
        identifiable = text
    else:
        identifiable = list(NAMES)
    m, c, I = payload_physical(p)
    rmse = np.sqrt(np.mean((y - W @ p - (F @ nuisance if friction else 0.0)) ** 2, axis=0))
    return PayloadResult(mass=m, com=c, inertia=I, mass_std=float(std[0]), com_std=std[1:4],
                         inertia_std=std[4:].reshape(3, 3), parameters=p, unconstrained=p_ls, covariance=cov,
                         identifiable=identifiable, rank=rank, mode="model" if unloaded is None else "difference",
                         n_samples=S, rmse=rmse)
