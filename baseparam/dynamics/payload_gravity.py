"""The payload's gravity columns at rest and their conditioning: what a static payload identification sees
(:mod:`baseparam.identification.payload_static`) and what its pose suggester optimizes
(:mod:`baseparam.excitation.static_poses`)."""
from __future__ import annotations

import numpy as np

MIN_POSES = 4                           # UR's estimate_payload() takes at least four still poses
STATIC_NAMES = ("SX", "SY", "SZ", "M")
STATIC = slice(6, 10)                   # SX SY SZ M of the 10 pseudo parameters
RANK_TOLERANCE = 1e-9


def gravity_columns(robot, q):
    """(P, n, 4): the payload's SX SY SZ M columns of the regressor at rest."""
    from .regressors import _evaluate as evaluate
    from ..model.parameters import ColumnLayout

    columns = ColumnLayout(robot, "pseudo").link_columns[-1]
    zero = np.zeros_like(q)
    return evaluate(robot, q, zero, zero, parameters="pseudo", columns=columns)[:, :, STATIC]


def condition(A):
    """cond of the stacked (…, rows, 4) matrices with columns scaled to unit norm (units apart), inf if singular."""
    norms = np.linalg.norm(A, axis=-2, keepdims=True)
    s = np.linalg.svd(A / np.where(norms > 0, norms, 1.0), compute_uv=False)
    with np.errstate(divide="ignore"):
        return np.where(s[..., -1] > RANK_TOLERANCE * s[..., 0], s[..., 0] / s[..., -1], np.inf)
