"""Still poses for a static payload identification (mass and centre of mass, as UR's ``estimate_payload()``),
chosen for the conditioning of the payload's gravity columns."""
from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from ..dynamics.payload_gravity import MIN_POSES, STATIC_NAMES
from ..dynamics.payload_gravity import condition as _condition
from ..dynamics.payload_gravity import gravity_columns as _gravity_columns
from .._checks import is_file_name
from .._validation import check_field_kinds, check_field_shapes, check_finite_fields, float_fields
from ..errors import ArgumentError, SettingsError


__all__ = ["StaticPoses", "suggest_static_poses"]

MAX_POSES = 50                          # still poses a suggestion proposes at most (UR's estimate takes 4)
MAX_CANDIDATES = 100_000                # random orientations the choice ranks at most


@dataclass(frozen=True)
class StaticPoses:
    """Still poses for a static payload identification, chosen to condition mass and centre of mass.

    Attributes
    ----------
    poses : ndarray, shape (N, n_dof)
        Joint positions (rad or m), one pose per row.
    condition_number : float
        cond of the stacked gravity columns SX SY SZ M of the payload over the poses, each column scaled to
        unit norm (so the units of mass and moment do not enter); 1 is ideal.
    moving : tuple of int
        The joints (1-based) whose positions differ between poses; the others are held.
    """

    poses: np.ndarray = field(repr=False)
    condition_number: float
    moving: tuple

    def __post_init__(self):
        # built by hand (the class is exported): summary, to_dict and repr formatted a text, a NaN or a 1-D array
        # as bare errors, or wrote NaN into JSON
        float_fields(self, ("poses",))
        check_field_shapes(self, {"poses": ("n_poses", "n_dof")})
        if len(self.poses) > MAX_POSES:     # before the values are read (a view broadcast to 10⁹ poses takes seconds)
            raise ArgumentError(f"StaticPoses.poses: expected at most {MAX_POSES} poses, got {len(self.poses)}")
        if isinstance(self.moving, np.ndarray) and self.moving.ndim == 1:   # its numbers; another shape refused below
            object.__setattr__(self, "moving", tuple(self.moving.tolist()))  # (a 0-d one: refused below)
        check_field_kinds(self, {"condition_number": (Real, "a number ≥ 1"),
                                 "moving": ((tuple, list, range), "a tuple of 1-based joints")})
        check_finite_fields(self, ("poses", "condition_number"))
        n_dof = self.poses.shape[1]
        if not all(isinstance(k, Integral) and not isinstance(k, bool) and 1 <= k <= n_dof for k in self.moving) \
                or len(set(self.moving)) < len(self.moving):       # its summary named them as the wrist's joints
            raise ArgumentError(f"StaticPoses.moving: expected distinct 1-based joint numbers from 1 to {n_dof} (the "
                                f"poses' columns), got {list(self.moving)!r:.80}")
        object.__setattr__(self, "moving", tuple(int(k) for k in self.moving))

    def __repr__(self):
        return f"StaticPoses({len(self.poses)} poses, cond {self.condition_number:.3g}, joints {list(self.moving)})"

    def summary(self):
        lines = [f"{len(self.poses)} still poses for a static payload identification (joints {list(self.moving)} "
                 f"turn the wrist), cond {self.condition_number:.3g} over mass and centre of mass "
                 "(columns scaled to unit norm):"]
        lines += ["  " + "  ".join(f"{v:+.4f}" for v in pose) for pose in self.poses]
        return "\n".join(lines)

    def to_dict(self):
        return {"poses": self.poses.tolist(), "condition_number": self.condition_number,
                "moving_joints": list(self.moving), "columns": list(STATIC_NAMES)}


def suggest_static_poses(robot, n_poses=6, *, pose=None, joints=3, candidates=2000, seed=0):
    """Still poses that make the payload's mass and centre of mass well conditioned.

    The arm is held at ``pose`` (default: :func:`~baseparam.excitation.payload.held_pose`, a bent pose) and
    the last ``joints`` joints take orientations drawn within their limits; a greedy choice, then
    exchange passes, minimize the condition number of the stacked gravity columns (:class:`StaticPoses`).

    Parameters
    ----------
    robot : Robot or str
    n_poses : int
        From 4 (UR's ``estimate_payload()`` takes at least four) to :data:`MAX_POSES`.
    pose : array_like, shape (n_dof,), optional
    joints : int
        How many of the last joints turn.
    candidates : int
        Random orientations to choose from, ``n_poses`` to :data:`MAX_CANDIDATES`.
    seed : int

    Returns
    -------
    StaticPoses
    """
    from .._validation import check_number, check_seed
    from .limits import motion_limits, position_range
    from .payload import held_pose, moving_joints
    from ..model.loading import load_robot
    from ..model.robot import require_fixed_base, require_robot

    if is_file_name(robot):
        robot = load_robot(robot)
    # the gravity columns are a fixed base's; a value that is no Robot refused as such first (not an AttributeError)
    require_fixed_base(require_robot(robot), "suggest_static_poses")
    # the greedy and exchange passes stack every pose over every candidate: bounded, so a typo cannot take the memory
    n_poses = check_number(n_poses, "n_poses", low=MIN_POSES, high=MAX_POSES, integer=True, error=SettingsError)
    candidates = check_number(candidates, "candidates", low=n_poses, high=MAX_CANDIDATES, integer=True,
                              error=SettingsError)
    seed = check_seed(seed, error=SettingsError, legacy="suggest_static_poses")
    limits = motion_limits(robot)
    moving = moving_joints(robot, joints, "joints")
    base = held_pose(robot, limits, pose)
    rng = np.random.default_rng(seed)
    q = np.tile(base, (candidates, 1))
    for j in (k - 1 for k in moving):
        q[:, j] = rng.uniform(*position_range(limits, j), candidates)
    A = _gravity_columns(robot, q)                        # (C, n, 4)
    chosen = [int(np.argmax(np.linalg.norm(A, axis=(1, 2))))]
    # greedy: the candidate raising the ratio of smallest to largest singular value most. The chosen poses' stack
    # enters through its R factor (≤ 4 rows): same singular values and column norms, so each step costs the same
    # whatever the number of poses (stacking them all made --suggest-poses 50 take a minute: quadratic in N)
    while len(chosen) < n_poses:
        stacks = _with_each(_r_factor(A[chosen]), A)
        norms = np.linalg.norm(stacks, axis=1, keepdims=True)
        s = np.linalg.svd(stacks / np.where(norms > 0, norms, 1.0), compute_uv=False)
        score = s[:, -1] / np.maximum(s[:, 0], 1e-300)
        score[chosen] = -1.0
        chosen.append(int(np.argmax(score)))
    best = float(_condition(A[chosen].reshape(-1, 4)))
    for _ in range(3):                                    # exchange passes
        improved = False
        for i in range(n_poses):
            others = chosen[:i] + chosen[i + 1:]
            k = int(np.argmin(_condition(_with_each(_r_factor(A[others]), A))))
            trial = others[:i] + [k] + others[i:]
            # the accepted value from the poses themselves, as the result reports it
            cond = float(_condition(A[trial].reshape(-1, 4)))
            if cond < best * (1 - 1e-9) and k not in chosen:
                chosen[i], best, improved = k, cond, True
        if not improved:
            break
    if not np.isfinite(best):
        raise SettingsError(f"{robot.name}: still poses of the last {len(moving)} joint(s) cannot tell mass and centre "
                            "of mass apart (give more joints or another pose)")
    return StaticPoses(poses=q[chosen].copy(), condition_number=best, moving=moving)


def _r_factor(blocks):
    """R of the QR factorization of the (k, n, 4) blocks stacked, shape (≤ 4, 4): R^T R is their Gram matrix."""
    return np.linalg.qr(blocks.reshape(-1, 4), mode="r")


def _with_each(R, A):
    """(C, r + n, 4): R stacked over each candidate's (n, 4) block of A (C, n, 4)."""
    return np.concatenate([np.broadcast_to(R, (len(A), *R.shape)), A], axis=1)
