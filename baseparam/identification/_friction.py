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
from functools import partial

import numpy as np

from ..dynamics.regressors import column_blocks
from .._validation import check_states
from .._warnings import warn
from ..errors import DataWarning
from ..model.friction import shapes_at
from .preprocessing import Preprocessing, lowpass_like_torque, states_at_samples

# Candidate velocity scales (rad/s or m/s): from slower than encoder noise to faster than most reversals.
VELOCITY_GRID = tuple(float(v) for v in np.geomspace(0.002, 2.0, 16))
STRIBECK_GRID = tuple(float(v) for v in np.geomspace(0.005, 1.0, 10))
MAX_SWEEPS = 4


def has_shapes(robot) -> bool:
    """Whether any joint has a Coulomb or Stribeck column (whose values depend on the friction shape)."""
    return any(("FC" in j.friction_terms or "FS" in j.friction_terms) for j in robot.joints)


def _filters_friction(item):
    """Whether a processed trajectory's friction shapes get τ's low-pass: what its own record says
    (``Preprocessing.filter_friction``, default on, and whether τ was filtered at all)."""
    record = item.record if isinstance(item.record, dict) else {}
    return bool(record.get("filtered")) and record.get("filter_friction", True)


def processed_shapes(robot, item):
    """The friction shapes at every sample of a processed trajectory, low-passed as its τ was.

    Parameters
    ----------
    robot : Robot
    item : Processed
        Its ``record`` says whether τ was filtered and whether the friction columns follow
        (``filter_friction``); arrays given without a record are used as they are.

    Returns
    -------
    tuple of 2 ndarray, shape (n_samples, n_dof), or None
        c(q̇) and s(q̇) per joint; None when the robot has no shaped friction column.
    """
    if not has_shapes(robot):
        return None
    return filtered_shapes(robot, item)


def filtered_shapes(robot, item):
    """:func:`processed_shapes` whether or not the robot declares a shaped friction column: c(q̇) (each joint's
    friction model's, sign(q̇) by default) and s(q̇) per joint, shape (n_samples, n_dof) each, low-passed as ``item``'s τ
    was. What a fit that adds friction columns of its own takes (the payload's nuisance terms), so that its
    columns are the regressor's."""
    return split_shapes(stacked_shapes(robot, item))


def stacked_shapes(robot, item):
    """:func:`filtered_shapes` side by side, c(q̇) then s(q̇): shape (S, 2·n_dof). What a caller that carries the
    shapes beside other arrays takes (matched in time, interpolated, selected by sample) and
    :func:`split_shapes` parts again."""
    sgn, stb = shapes_at(robot, np.asarray(item.qd, dtype=float).T)
    values = np.hstack([sgn.T, stb.T])
    return lowpass_like_torque(item, values) if _filters_friction(item) else values


def split_shapes(values):
    """c(q̇) and s(q̇) (each (S, n_dof)) of shapes side by side (S, 2·n_dof), as :func:`stacked_shapes` gives them."""
    n = values.shape[1] // 2
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
    q, qd, qdd, values = states_at_samples(trajectory, settings, signals=partial(stacked_shapes, robot),
                                           columns=2 * robot.n_dof)
    missing = ~np.isfinite(values).all(axis=1) & np.isfinite(qd).all(axis=1)
    if missing.any():                           # segments preprocessing did not keep: the plain shapes
        sgn, stb = shapes_at(robot, qd[missing].T)
        values[missing] = np.hstack([sgn.T, stb.T])
    return q, qd, qdd, split_shapes(values)


def resolve_scales(base, processed):
    """The base set with every ``'auto'`` friction velocity scale chosen from the training data.

    One pass over the data per joint to resolve: its candidates' columns (low-passed like τ when the
    data were) and their cross products with the other columns are accumulated block by block (the
    regressor is never held whole); then the candidates are chosen joint by joint (coordinate
    descent on the OLS training residual) until no choice changes. The products are sums over the
    samples: logs reduced one by one (:func:`scale_statistics` of each, added) give the same choice.

    Parameters
    ----------
    base : BaseParameters
    processed : list of Processed

    Returns
    -------
    base : BaseParameters
        The same set (rank, Y, pivots) on the robot with the chosen scales.
    chosen : dict
        joint number (1-based) → {'velocity': v, 'stribeck': v_s} as chosen (only 'auto' ones).
    """
    statistics = scale_statistics(base, processed)
    if statistics is None:
        return base, {}
    return choose_scales(base, statistics)


def unresolved_joints(robot):
    """Indices of the joints whose friction model leaves a velocity scale ``'auto'``."""
    return [k for k, j in enumerate(robot.joints) if j.friction_model is not None and j.friction_model.unresolved]


def scale_statistics(base, processed):
    """The products :func:`choose_scales` needs, summed over the kept samples of ``processed``; None when no
    scale is ``'auto'``.

    Returns
    -------
    dict or None
        ``G0`` (R, R), ``h0`` (R,), ``tt`` (float): the columns without the candidates' (all joints' rows);
        ``cross[k]`` = (WtC (M, c, R), CtC (M, c, c), Ctt (M, c)) per joint k to resolve, M its candidates, c
        its shaped columns. Sums over samples: those of several parts add up (:func:`add_statistics`).
    """
    robot = base.robot
    todo, candidates, shaped = _plan(base)
    if not todo:
        return None
    provisional = _with_models(robot, {k: c[0] for k, c in candidates.items()})
    R = base.rank
    G0, h0, tt = np.zeros((R, R)), np.zeros(R), 0.0
    cross = {}
    for pass_number, k in enumerate(todo):
        M, c = len(candidates[k]), len(shaped[k])
        WtC, CtC, Ctt = np.zeros((M, c, R)), np.zeros((M, c, c)), np.zeros((M, c))
        for item in processed:
            keep = item.kept
            (q, qd, qdd), _ = check_states(robot.n_dof, q=item.q[keep], qd=item.qd[keep], qdd=item.qdd[keep])
            tau = item.tau[keep]
            shapes = processed_shapes(provisional, item)
            shapes = None if shapes is None else tuple(a[keep] for a in shapes)
            C = _candidate_columns(candidates[k], item, k, c)[keep]                   # (S, M, c)
            for sl, part in column_blocks(provisional, q, qd, qdd, parameters=base.parameters, columns=base.pivots,
                                          shapes=shapes):
                part = part.copy()                                                     # (n, R, s)
                for j in todo:
                    part[j, shaped[j], :] = 0.0                                        # the candidates fill these
                if pass_number == 0:
                    G0 += np.einsum("jas,jbs->ab", part, part)
                    h0 += np.einsum("jas,sj->a", part, tau[sl])
                    tt += float((tau[sl] ** 2).sum())
                block = C[sl]
                WtC += np.einsum("smc,rs->mcr", block, part[k])
                CtC += np.einsum("smc,smd->mcd", block, block)
                Ctt += np.einsum("smc,s->mc", block, tau[sl, k])
        cross[k] = (WtC, CtC, Ctt)
    return {"G0": G0, "h0": h0, "tt": tt, "cross": cross}


def add_statistics(a, b):
    """The statistics of two parts of the data together (``a`` may be None: nothing yet)."""
    if a is None:
        return b
    return {"G0": a["G0"] + b["G0"], "h0": a["h0"] + b["h0"], "tt": a["tt"] + b["tt"],
            "cross": {k: tuple(x + y for x, y in zip(a["cross"][k], b["cross"][k])) for k in a["cross"]}}


def choose_scales(base, statistics):
    """:func:`resolve_scales`' choice from the summed products (:func:`scale_statistics`)."""
    robot = base.robot
    todo, candidates, shaped = _plan(base)
    G0, h0, tt = statistics["G0"], statistics["h0"], statistics["tt"]
    cross = {k: [tuple(a[m] for a in statistics["cross"][k]) for m in range(len(candidates[k]))] for k in todo}
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
    _warn_at_edges(robot, chosen)
    return dataclasses.replace(base, robot=_with_models(robot, models)), chosen


def _plan(base):
    """The joints to resolve; per joint its candidate friction models and its shaped base parameters (indices of
    its FC, FS)."""
    todo, names = unresolved_joints(base.robot), list(base.names)
    candidates = {k: _candidates(base.robot.joints[k].friction_model) for k in todo}
    shaped = {k: [names.index(f"{kind}{k + 1}") for kind in ("FC", "FS") if f"{kind}{k + 1}" in names] for k in todo}
    return todo, candidates, shaped


def _warn_at_edges(robot, chosen):
    edges = {"velocity": VELOCITY_GRID, "stribeck": STRIBECK_GRID}
    at = [f"joint {k} {name} {v:.3g}" for k, scales in chosen.items() for name, v in scales.items()
          if v in (edges[name][0], edges[name][-1])]
    if at:
        warn(f"{robot.name}: friction velocity scales chosen at the edge of the grid tried "
             f"({', '.join(at)}; velocity {VELOCITY_GRID[0]:g}–{VELOCITY_GRID[-1]:g}, Stribeck "
             f"{STRIBECK_GRID[0]:g}–{STRIBECK_GRID[-1]:g} rad/s or m/s): the data may prefer a scale "
             "outside it; give one in the description", DataWarning)


def _candidates(model):
    velocities = VELOCITY_GRID if model.velocity == "auto" else (model.velocity,)
    stribecks = STRIBECK_GRID if model.stribeck == "auto" else (model.stribeck,)
    return [dataclasses.replace(model, velocity=v, stribeck=s) for v in velocities for s in stribecks]


def _with_models(robot, models):
    joints = tuple(dataclasses.replace(j, friction_model=models[k]) if k in models else j
                   for k, j in enumerate(robot.joints))
    return dataclasses.replace(robot, joints=joints)


def _candidate_columns(models, item, k, count):
    """Every candidate's Coulomb (and Stribeck) column of joint k at every processed sample, low-passed
    like τ when the data were (one filter call for all of them), shape (S, n_candidates, count)."""
    qd = np.asarray(item.qd[:, k], dtype=float)
    columns = []
    for model in models:
        columns.append(model.coulomb_shape(qd))
        if count > 1:
            columns.append(model.stribeck_shape(qd))
    values = np.column_stack(columns)
    if _filters_friction(item):
        values = lowpass_like_torque(item, values)
    return values.reshape(len(qd), len(models), count)


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
