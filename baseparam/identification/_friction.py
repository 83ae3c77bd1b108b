"""Friction columns in identification: shapes low-passed like the torque, velocity scales from data.

* **Filtered shapes.** Preprocessing low-passes τ, which turns every Coulomb step into a ramp and
  averages the chatter of sign(q̇) while a joint stands still; the regressor's Coulomb (and
  Stribeck) columns get the same filter (``Preprocessing.filter_friction``), so that the model and
  the measurement see the same signal. Columns linear in q, q̇, q̈ need nothing: the filtered
  states already give them.
* **Velocity scales.** A friction model may leave its velocity scale (``smooth``) or Stribeck
  velocity as ``'auto'`` (:mod:`baseparam.model.friction`). They enter the torque nonlinearly, so
  they are chosen by separable least squares: for each candidate on a geometric grid the linear
  parameters are fitted (OLS), and the candidate with the smallest training residual wins, joint
  by joint, sweeping until no choice changes. The candidates' columns are only joint j's rows, so
  one pass over the data gives every candidate's cross products with the other columns.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..dynamics.samples import states
from ..model.friction import friction_shapes
from .preprocessing import Preprocessing, lowpass_like_torque, states_at_samples

# Candidate velocity scales (rad/s or m/s): from slower than encoder noise to faster than most reversals.
VELOCITY_GRID = tuple(float(v) for v in np.geomspace(0.002, 0.5, 13))
STRIBECK_GRID = tuple(float(v) for v in np.geomspace(0.005, 0.5, 9))
MAX_SWEEPS = 4


def has_shapes(robot) -> bool:
    """Whether any joint has a Coulomb or Stribeck column (whose values depend on the friction shape)."""
    return any(("FC" in j.friction_terms or "FS" in j.friction_terms) for j in robot.joints)


def processed_shapes(robot, item, settings):
    """The friction shapes at every sample of a processed trajectory, low-passed as its τ was.

    Parameters
    ----------
    robot : Robot
    item : Processed
    settings : Preprocessing or None
        ``filter_friction`` says whether to filter (None: as logged, no filter).

    Returns
    -------
    tuple of 2 ndarray, shape (S, n_dof), or None
        c(q̇) and s(q̇) per joint; None when the robot has no shaped friction column.
    """
    if not has_shapes(robot):
        return None
    sgn, stb = friction_shapes(robot, np.asarray(item.qd, dtype=float).T)
    values = np.hstack([sgn.T, stb.T])
    if settings is not None and settings.filter_friction:
        values = lowpass_like_torque(item, values)
    n = robot.n_dof
    return values[:, :n], values[:, n:]


def shapes_at_samples(robot, trajectory, settings):
    """States and friction shapes at every logged sample (what ``predict`` evaluates the model at).

    Returns
    -------
    q, qd, qdd : ndarray, shape (S_in, n_dof)
    shapes : tuple of 2 ndarray, shape (S_in, n_dof), or None
    """
    settings = settings or Preprocessing.none()
    if not has_shapes(robot):
        return (*states_at_samples(trajectory, settings), None)
    n = robot.n_dof

    def filtered(processed):
        return np.hstack(processed_shapes(robot, processed, settings))

    q, qd, qdd, values = states_at_samples(trajectory, settings, signals=filtered)
    missing = ~np.isfinite(values).all(axis=1) & np.isfinite(qd).all(axis=1)
    if missing.any():                           # segments preprocessing did not keep: the plain shapes
        sgn, stb = friction_shapes(robot, qd[missing].T)
        values[missing] = np.hstack([sgn.T, stb.T])
    return q, qd, qdd, (values[:, :n], values[:, n:])


def resolve_scales(base, processed, settings):
    """The base set with every ``'auto'`` friction velocity scale chosen from the training data.

    Parameters
    ----------
    base : BaseParameters
    processed : list of Processed
    settings : Preprocessing or None

    Returns
    -------
    base : BaseParameters
        The same set (rank, Y, pivots) on the robot with the chosen scales.
    chosen : dict
        joint number (1-based) → {'velocity': v, 'stribeck': v_s} as chosen (only 'auto' ones).
    """
    robot = base.robot
    todo = [k for k, j in enumerate(robot.joints) if j.friction_model is not None and j.friction_model.unresolved]
    if not todo:
        return base, {}
    candidates = {k: _candidates(robot.joints[k].friction_model) for k in todo}
    names = list(base.names)
    shaped = {k: [names.index(f"{kind}{k + 1}") for kind in ("FC", "FS") if f"{kind}{k + 1}" in names] for k in todo}
    provisional = _with_models(robot, {k: c[0] for k, c in candidates.items()})
    pbase = dataclasses.replace(base, robot=provisional)
    R = base.rank
    G0, h0, tt = np.zeros((R, R)), np.zeros(R), 0.0
    cross = {k: [None] * len(candidates[k]) for k in todo}
    for item in processed:
        keep = item.kept
        (q, qd, qdd), _ = states(robot.n_dof, q=item.q[keep], qd=item.qd[keep], qdd=item.qdd[keep])
        tau = item.tau[keep]
        W = pbase.regressor(q, qd, qdd)                                  # (S, n, R)
        for k in todo:
            W[:, k, shaped[k]] = 0.0                                     # the candidates fill these
        flat = W.reshape(-1, R)
        G0 += flat.T @ flat
        h0 += flat.T @ tau.reshape(-1)
        tt += float((tau ** 2).sum())
        for k in todo:
            for m, model in enumerate(candidates[k]):
                C = _candidate_columns(robot, k, model, item, settings, len(shaped[k]))[keep]   # (S, c)
                part = (C.T @ W[:, k, :], C.T @ C, C.T @ tau[:, k])
                cross[k][m] = part if cross[k][m] is None else tuple(a + b for a, b in zip(cross[k][m], part))
    choice = {k: 0 for k in todo}
    for _ in range(MAX_SWEEPS):
        changed = False
        for k in todo:
            scores = [_residual(G0, h0, tt, cross, shaped, {**choice, k: m}) for m in range(len(candidates[k]))]
            best = int(np.argmin(scores))
            changed |= best != choice[k]
            choice[k] = best
        if not changed:
            break
    models = {k: candidates[k][m] for k, m in choice.items()}
    chosen = {k + 1: {name: getattr(models[k], name) for name in robot.joints[k].friction_model.unresolved}
              for k in todo}
    return dataclasses.replace(base, robot=_with_models(robot, models)), chosen


def _candidates(model):
    velocities = VELOCITY_GRID if model.velocity == "auto" else (model.velocity,)
    stribecks = STRIBECK_GRID if model.stribeck == "auto" else (model.stribeck,)
    return [dataclasses.replace(model, velocity=v, stribeck=s) for v in velocities for s in stribecks]


def _with_models(robot, models):
    joints = tuple(dataclasses.replace(j, friction_model=models[k]) if k in models else j
                   for k, j in enumerate(robot.joints))
    return dataclasses.replace(robot, joints=joints)


def _candidate_columns(robot, k, model, item, settings, count):
    """Joint k's Coulomb (and Stribeck) column values at every processed sample, (S, count)."""
    qd = np.asarray(item.qd[:, k], dtype=float)
    columns = [model.coulomb_shape(qd)]
    if model.stribeck is not None:
        columns.append(model.stribeck_shape(qd))
    values = np.column_stack(columns[:count])
    if settings is not None and settings.filter_friction:
        values = lowpass_like_torque(item, values)
    return values


def _residual(G0, h0, tt, cross, shaped, choice):
    """Training residual ‖τ − W x̂‖² of the OLS fit with the chosen candidates' columns."""
    G, h = G0.copy(), h0.copy()
    for k, m in choice.items():
        WtC, CtC, Ctt = cross[k][m]
        cols = shaped[k]
        G[cols, :] += WtC
        G[:, cols] += WtC.T
        G[np.ix_(cols, cols)] = CtC
        h[cols] = Ctt
    d = np.sqrt(np.maximum(np.diag(G), 1e-300))
    x = np.linalg.lstsq(G / np.outer(d, d), h / d, rcond=1e-12)[0] / d
    return tt - h @ x
