"""Which of a payload's 10 parameters a motion of the last joints can identify (``excite --payload``).

A payload (tool, gripper) is one more rigid body fixed to the last link, so its torques are the
last link's columns of the standard regressor times its 10 parameters: with the robot model known,
they are identified from τ − τ_model = W_p φ_p. Those columns are all independent behind a 3-axis
wrist; behind fewer joints some are not, and only combinations of them are identifiable.

The payload design moves the last ``joints`` joints and holds the others still at a pose (given, or
a bent default, :func:`held_pose`): a short motion of the wrist, as a controller's load
identification does, that keeps the arm where it is. Which columns are independent under such
motions is decided numerically: the payload columns over 200 random states of the moving joints
(held joints at the pose, at rest) are scaled to unit norm and taken in their standard order, a
column being kept when it raises the rank (singular values above 1e-9 of the largest). The kept
columns are the identifiable parameters' representatives; every other column is a combination of
them, whose weights (least squares, SI) give the identifiable combinations.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._numbers import flat_values
from .._validation import ABSURD, check_number, shown
from ..errors import ArgumentError
from ..model.parameters import ColumnLayout
from .limits import position_range

PAYLOAD_JOINTS = 3                 # the last joints a payload design moves, by default (a wrist's)

RANK_TOLERANCE = 1e-9
RANK_SAMPLES = 200
WEIGHT_ROUND_OFF = 1e-9          # relative weights below this are taken as zero
DEFAULT_SHARE = 0.25             # the default held pose, in half ranges above each range's middle


@dataclass(frozen=True)
class PayloadColumns:
    """The payload's columns (the last link's) and their identifiable combinations.

    Attributes
    ----------
    names : tuple of str
        The 10 standard parameter names of the last link (e.g. ``XX7 … M7``), in the parameterization.
    columns : tuple of int
        Their standard columns (0-based).
    pivots : tuple of int
        Standard columns of the identifiable combinations' representatives (what the design conditions).
    Y : ndarray, shape (rank, 10)
        φ_identifiable = Y @ φ_payload (SI), φ_payload in the order of ``names``.
    moving : tuple of int
        Joints (1-based) that move; the others are held at ``pose``.
    pose : ndarray, shape (n_dof,)
        Positions of the held joints (and the moving joints' centre when the design is given none).
    """

    names: tuple
    columns: tuple
    pivots: tuple
    Y: np.ndarray = field(repr=False)
    moving: tuple
    pose: np.ndarray = field(repr=False)

    @property
    def rank(self):
        return len(self.pivots)

    @property
    def pivot_names(self):
        return tuple(self.names[self.columns.index(c)] for c in self.pivots)

    @property
    def combinations(self):
        """Each identifiable combination as text, e.g. ``'XX3 + YY3'`` (its pivot alone when it is one)."""
        out = []
        for row in self.Y:
            terms = []
            for name, w in zip(self.names, row):
                if w == 0:
                    continue
                if w == 1 and not terms:
                    terms.append(name)
                else:
                    weight = "" if abs(w) == 1 else f"{abs(w):.6g}*"
                    terms.append(f"{'-' if w < 0 else '+'} {weight}{name}")
            out.append(" ".join(terms))
        return tuple(out)

    @property
    def complete(self):
        """Whether all 10 parameters are identifiable."""
        return self.rank == 10

    def to_dict(self):
        return {"columns": list(self.names), "rank": self.rank, "identifiable": list(self.combinations),
                "representatives": list(self.pivot_names), "moving_joints": list(self.moving),
                "pose": [float(v) for v in self.pose]}


def held_pose(robot, limits, pose=None):
    """The pose of the held joints: ``pose`` (checked within the limits), else :data:`DEFAULT_SHARE` of
    each joint's half range above the middle of its range (0.5 rad or m for a joint without one).

    Not the zero pose: many arms stand straight at zero, the wrist centre over the base, where
    gravity's torques do not see a mass at the wrist centre (the LWR4+'s 10 payload columns have
    rank 9 there, 10 at the default).
    """
    n = robot.n_dof
    if pose is None:
        finite = np.isfinite(limits.lower) & np.isfinite(limits.upper)
        lo, hi = np.where(finite, limits.lower, 0.0), np.where(finite, limits.upper, 0.0)
        return np.where(finite, 0.5 * (lo + hi) + DEFAULT_SHARE * 0.5 * (hi - lo), 0.5)
    try:
        values = flat_values(pose, n)
    except (TypeError, ValueError):
        raise ArgumentError(f"pose: expected {n} finite joint positions (rad or m), got {shown(pose)}") from None
    if values is None or not np.isfinite(values).all():
        raise ArgumentError(f"pose: expected {n} finite joint positions (rad or m), got {np.size(pose)} values"
                            if values is None else "pose: expected finite joint positions")
    for k, v in enumerate(values):
        # a joint without limits still has no position beyond ABSURD: 1e300 would overflow the dynamics' products
        if not abs(v) <= ABSURD:
            raise ArgumentError(f"pose: joint {k + 1}: {v:g} is not a joint position (|q| > {ABSURD:g} rad or m)")
        if not limits.lower[k] <= v <= limits.upper[k]:
            raise ArgumentError(f"pose: joint {k + 1}: {v:g} is outside its range "
                                f"[{limits.lower[k]:g}, {limits.upper[k]:g}]")
    return values


def moving_joints(robot, joints, name="payload_joints"):
    """The 1-based joints that move: the last ``joints`` of the robot. More joints than the robot has are refused
    (``payload_joints=99`` is not taken as "all"), but for the default (:data:`PAYLOAD_JOINTS`, a wrist's three), which
    moves every joint of a robot with fewer. ``name``: the caller's parameter, which a refusal names
    (``suggest_static_poses``' is ``joints``)."""
    n = robot.n_dof
    joints = check_number(joints, name, low=1, integer=True, expected="a whole number ≥ 1 of last joints to move")
    if joints > n and joints != PAYLOAD_JOINTS:
        raise ArgumentError(f"{name}: {int(joints)} last joints to move, but {shown(robot.name)} has {n}; give at "
                            f"most {n} ({n}: every joint)")
    return tuple(range(max(1, n - int(joints) + 1), n + 1))


def payload_columns(robot, parameters, limits, joints=3, pose=None, seed=0):
    """The payload's columns and which combinations of them a motion of the last ``joints`` joints identifies.

    Parameters
    ----------
    robot : Robot
    parameters : {'pseudo', 'khalil'}
    limits : MotionLimits
    joints : int
        How many of the last joints move.
    pose : array_like, shape (n_dof,), optional
        Held joints' positions (default: :func:`held_pose`).

    Returns
    -------
    PayloadColumns
    """
    from ..dynamics.regressor_adjoint import regressor_function

    layout = ColumnLayout(robot, parameters)
    columns = tuple(int(c) for c in layout.link_columns[-1])
    names = tuple(layout.names[c] for c in columns)
    moving = moving_joints(robot, joints)
    pose = held_pose(robot, limits, pose)
    n = robot.n_dof
    rng = np.random.default_rng(seed)
    S = RANK_SAMPLES
    q = np.tile(pose, (S, 1))
    qd, qdd = np.zeros((S, n)), np.zeros((S, n))
    for j in (k - 1 for k in moving):
        q[:, j] = rng.uniform(*position_range(limits, j), S)
        qd[:, j] = rng.uniform(-1, 1, S) * limits.velocity[j]
        acc = limits.acceleration[j] if math.isfinite(limits.acceleration[j]) else limits.velocity[j]
        qdd[:, j] = rng.uniform(-1, 1, S) * acc
    A = regressor_function(robot, parameters, columns)(q, qd, qdd).reshape(-1, len(columns))
    norms = np.linalg.norm(A, axis=0)
    # a column of round-off (SY of an arm turning about a vertical axis: 1e-16 of the others) scaled to unit norm
    # looked independent: kept, it made cond 1e17 and named a parameter the motion cannot see
    norms[norms <= RANK_TOLERANCE * norms.max(initial=0.0)] = 0.0
    scaled = A / np.where(norms > 0, norms, 1.0)
    top = np.linalg.norm(scaled, 2) if norms.any() else 0.0
    kept = []
    for i in range(len(columns)):
        if norms[i] == 0:
            continue
        trial = scaled[:, kept + [i]]
        s = np.linalg.svd(trial, compute_uv=False)
        if s[-1] > RANK_TOLERANCE * max(top, 1.0):
            kept.append(i)
    if not kept:
        raise ArgumentError(f"{robot.name}: the last {len(moving)} joint(s) do not move the last link's payload "
                            "in any way that the joint torques see")
    others = [i for i in range(len(columns)) if i not in kept]
    Y = np.zeros((len(kept), len(columns)))
    Y[np.arange(len(kept)), kept] = 1.0
    if others:
        X = np.linalg.lstsq(A[:, kept], A[:, others], rcond=None)[0]
        scale = np.abs(X).max() or 1.0
        X[np.abs(X) < WEIGHT_ROUND_OFF * scale] = 0.0
        Y[:, others] = X
    return PayloadColumns(names, columns, tuple(columns[i] for i in kept), Y, moving, pose)
