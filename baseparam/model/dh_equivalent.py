"""The standard DH table of a serial chain given in any geometry (a URDF arm, say), with the same
joint angles, and the constant transforms that relate its frames to the description's.

Standard (distal) DH puts frame i−1's z axis on joint i's axis, x_i on the common normal of axes i
and i+1, and the origin where that normal meets axis i+1 (docs/method.md, section 3). Any chain of
joint axes has such frames, so a table always exists; what can differ from the description is the
first and last frame. Hence:

* **base**: DH frame 0 in the description's base frame. The identity when the base z axis lies on
  joint 1's axis, pointing the same way, through the base origin (then the DH table alone
  describes the robot in its own base frame).
* **tool**: the description's last link frame in DH frame n (a constant).

The table is found from the axes at q = 0 (floats) and then *checked*: the forward kinematics of
the table, put between base and tool, must reproduce every axis and the last link frame of the
description at random configurations; :class:`DHEquivalent` reports the largest difference.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .joint_model import factor_matrix, joint_models, product, si_readers, to_si
from .parameters import moved_body
from .robot import Joint, Robot
from .._validation import check_instance, check_number, check_robot, check_samples, check_seed
from ..errors import ArgumentError

TOLERANCE = 1e-9        # m (and unit vectors): what "the same line" and "the check agrees" mean
MAX_CHECKS = 100_000    # random configurations of the check (each a chain of 4×4 products in Python)


@dataclass(frozen=True, eq=False)
class DHEquivalent:
    """A standard DH table equivalent to a chain (see the module notes).

    Attributes
    ----------
    table : ndarray, shape (n_dof, 5)
        alpha [rad], a [m], d [m], theta [rad], offset [rad or m] per joint, as in
        :meth:`~baseparam.model.robot.Robot.dh_si` (theta is the constant of a prismatic joint,
        offset the constant added to q).
    types : tuple of str
    base : ndarray, shape (4, 4)
        DH frame 0 in the description's base frame.
    tool : ndarray, shape (4, 4)
        The description's last link frame in DH frame n.
    error : float
        Largest difference (m, or unit vector components) found by the check.
    """

    table: np.ndarray
    types: tuple
    base: np.ndarray
    tool: np.ndarray
    error: float

    @property
    def base_is_identity(self) -> bool:
        return bool(np.allclose(self.base, np.eye(4), atol=TOLERANCE))

    def __repr__(self):
        return (f"DHEquivalent(n_dof={len(self.types)}, base_is_identity={self.base_is_identity}, "
                f"error={self.error:.1e})")


def link_frames(robot, q) -> list:
    """Every link frame in the base frame at one configuration, SI.

    Parameters
    ----------
    q : array_like, shape (n_dof,)

    Returns
    -------
    list of ndarray, shape (4, 4)
    """
    # a public name: a non-robot, a q of no numbers, of another length or NaN would be bare errors or NaN frames
    check_robot(robot)
    q, single = check_samples("q", q, robot.n_dof)
    if not single:
        raise ArgumentError(f"q: expected one configuration, shape ({robot.n_dof},), got shape {q.shape}")
    frames = []
    for k, (joint, model) in enumerate(zip(robot.joints, joint_models(robot))):
        parent = frames[joint.parent - 1] if joint.parent else np.eye(4)
        frames.append(parent @ joint_transform(robot, model, float(q[0, k])))
    return frames


def joint_transform(robot, model, q) -> np.ndarray:
    """``A(q) = C · M(q + offset) · C′`` in SI, shape (4, 4)."""
    return moved_by(robot, model, to_si(robot, model.motion) + q, joint_transform_before(robot, model))


def moved_by(robot, model, motion, before=None) -> np.ndarray:
    """``C · M(motion) · C′`` in SI, shape (4, 4), or ``M(motion) · C′`` (the link frame in the joint frame)
    when `before` (C) is None; `motion` is the joint variable in SI, its offset included."""
    out = np.eye(4)
    if model.is_revolute:
        c, s = math.cos(motion), math.sin(motion)
        out[:2, :2] = [[c, -s], [s, c]]
    else:
        out[2, 3] = motion
    if before is not None:
        out = before @ out
    for f in model.after:
        out = out @ factor_matrix(f, *si_readers(robot))
    return out


def _joint_frames(robot, frames):
    """Each joint's frame C (its axis the z axis) in the base frame, given the link frames at some q."""
    return [(frames[joint.parent - 1] if joint.parent else np.eye(4)) @ joint_transform_before(robot, model)
            for joint, model in zip(robot.joints, joint_models(robot))]


def arm_relation(robot, other, n_checks: int = 3, seed: int = 0, tolerance: float = 1e-3):
    """How ``other`` describes the arm of ``robot`` (the same joints; base frames, and last link frames, that may
    differ by constant rigid motions): ``(words, last)``, the words None when they agree and ``last`` ``robot``'s last
    link frame in ``other``'s (constant; the identity when both put it at one place), else the words saying what
    differs and ``last`` None.

    At ``n_checks`` random configurations, every joint's axis line and gravity, ``other``'s carried into ``robot``'s
    base by the one rigid motion that maps its axis lines onto ``robot``'s (least squares over all joints and
    configurations; when every axis stays parallel to one direction, a planar arm, lines do not fix that motion: the
    one that maps the last link frames onto each other at the first configuration, ``last`` then the identity), then
    ``robot``'s last link frame in ``other``'s carried one, which must be the same at every configuration. The words
    name the first joint whose axis lies otherwise (told by the links' motions, which no choice of frames changes), or
    the last link's frame, or gravity.

    Parameters
    ----------
    robot, other : Robot
        Of the same joint types (checked by the caller).
    tolerance : float
        m for points, and for unit vectors. 1 mm by default: a vendor's published DH table and the rounded one of its
        URDF differ by tenths of a millimetre (UR10e: d1 0.1807 / 0.181 m, a3 −0.57155 / −0.571 m, …), one arm all
        the same, and a payload's frame moved that much is within what it can be identified to (mm); other arms of
        the same joint types differ by centimetres (UR5 and UR10e: 7 cm).

    Returns
    -------
    words : str or None
    last : ndarray, shape (4, 4), or None
    """
    rng = np.random.default_rng(seed)
    lows = np.array([-1.0 if j.type == "revolute" else -0.2 for j in robot.joints])
    configurations = [rng.uniform(lows, -lows) for _ in range(n_checks)]
    mine = [link_frames(robot, q) for q in configurations]
    theirs = [link_frames(other, q) for q in configurations]
    axes = [(_joint_frames(robot, a), _joint_frames(other, b)) for a, b in zip(mine, theirs)]
    carry = _lines_carry([pair for a, b in axes for pair in zip(a, b)])
    if carry is None:       # every axis parallel to one direction: the last frames taken to coincide
        carry = mine[0][-1] @ np.linalg.inv(theirs[0][-1])
    last = None
    for (joints_a, joints_b), a_frames, b_frames in zip(axes, mine, theirs):
        for a, b in zip(joints_a, joints_b):
            b = carry @ b
            gap = b[:3, 3] - a[:3, 3]
            off_line = gap - (gap @ a[:3, 2]) * a[:3, 2]
            if np.linalg.norm(a[:3, 2] - b[:3, 2]) > tolerance or np.linalg.norm(off_line) > tolerance:
                # the carry fits every axis line at once, so what differs shows on several: the first link moving
                # otherwise names the joint placed otherwise (None: only the last frame, where the carry was
                # taken from the last frames)
                first = _first_link_moving_otherwise(robot, other, configurations, tolerance)
                return ("the last link's frame" if first is None else f"joint {first}'s axis"), None
        here = np.linalg.inv(carry @ b_frames[-1]) @ a_frames[-1]
        if last is None:
            last = here
        elif np.abs(here - last).max() > tolerance:
            return "the last link's frame", None
    if np.linalg.norm(np.asarray(robot.gravity_si) - carry[:3, :3] @ np.asarray(other.gravity_si)) > \
            tolerance * 9.81:
        return "gravity", None
    return None, last


def _lines_carry(pairs):
    """The rigid motion (4×4) that carries the second frame's z axis line of each pair onto the first's, least squares
    (directions by Kabsch, then the translation that brings the lines' points onto the lines), or None when the lines
    are all parallel (about them, and along them, no motion is fixed)."""
    a_dirs = np.array([a[:3, 2] for a, _ in pairs])
    b_dirs = np.array([b[:3, 2] for _, b in pairs])
    U, s, Vt = np.linalg.svd(b_dirs.T @ a_dirs)
    if s[1] < 1e-3 * s[0]:
        return None
    turn = Vt.T @ np.diag([1.0, 1.0, np.sign(np.linalg.det(Vt.T @ U.T))]) @ U.T      # b directions onto a's
    normal, right = np.zeros((3, 3)), np.zeros(3)
    for (a, b), z in zip(pairs, a_dirs):
        across = np.eye(3) - np.outer(z, z)
        normal += across
        right += across @ (a[:3, 3] - turn @ b[:3, 3])
    carry = np.eye(4)
    carry[:3, :3], carry[:3, 3] = turn, np.linalg.solve(normal, right)
    return carry


def _first_link_moving_otherwise(robot, other, configurations, tolerance):
    """The number (from 1) of the first link that moves otherwise in ``other`` than in ``robot`` from the first
    configuration to each other one, or None when every link moves alike: compared by the motion's rotation angle (its
    trace) and its advance along its axis (sin θ · the axis · the translation), which a rigid change of base frame and
    one of each link's own frame leave as they are (``A = G·B·E``: the motions ``A(q)·A(q₀)⁻¹`` and ``B(q)·B(q₀)⁻¹``
    are conjugate by ``G``). Two descriptions of one arm whose last frames sit apart move alike; the first link that
    does not is the one after the first joint axis placed otherwise."""
    def invariants(frames):
        start = [np.linalg.inv(f) for f in frames[0]]
        return [[(np.trace(m[:3, :3]), 0.5 * np.array([m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1]])
                  @ m[:3, 3]) for m in (f @ s for f, s in zip(later, start))] for later in frames[1:]]

    mine = invariants([link_frames(robot, q) for q in configurations])
    theirs = invariants([link_frames(other, q) for q in configurations])
    for k in range(robot.n_dof):
        if any(np.abs(np.subtract(a[k], b[k])).max() > tolerance for a, b in zip(mine, theirs)):
            return k + 1
    return None


def joint_transform_before(robot, model) -> np.ndarray:
    """C of a joint (its motion is about/along the z axis of the frame C leads to), SI."""
    return product(model.before, *si_readers(robot))


def _perpendicular(z, hint):
    """A unit vector ⟂ z, as close to `hint` as possible."""
    x = hint - (hint @ z) * z
    if np.linalg.norm(x) < 1e-6:
        x = np.eye(3)[int(np.argmin(np.abs(z)))]
        x = x - (x @ z) * z
    return x / np.linalg.norm(x)


def _common_normal(o, z, p, w, x_prev):
    """Origin and x axis of the DH frame whose z is the line (p, w), after the frame (o, z, x_prev).

    Skew lines: the common normal from (o, z) to (p, w). Intersecting: x = z × w at the
    intersection. Parallel: the normal through o (d = 0); the same line: x_prev, origin o's foot.
    """
    cross = np.cross(z, w)
    r = p - o
    if np.linalg.norm(cross) > 1e-9:
        n = cross / np.linalg.norm(cross)
        # closest points o + s z and p + t w: solve [z, -w] [s, t] = r − (r·n) n
        A = np.column_stack([z, -w])
        s, t = np.linalg.lstsq(A, r - (r @ n) * n, rcond=None)[0]
        origin = p + t * w
        gap = origin - (o + s * z)
        return origin, (gap / np.linalg.norm(gap) if np.linalg.norm(gap) > TOLERANCE else n)
    foot = p + ((o - p) @ w) * w          # o's foot on the line (p, w)
    gap = foot - o
    return foot, (gap / np.linalg.norm(gap) if np.linalg.norm(gap) > TOLERANCE else x_prev)


def _frame(origin, z, x):
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, np.cross(z, x), z, origin
    return T


def _last_frame(prev, last):
    """DH frame n: any frame whose x axis meets z_{n−1} at a right angle. The description's last link
    frame when it is one (then the tool transform is the identity), else the frame on the last
    axis pointing at the last link's origin."""
    z, o = prev[:3, 2], prev[:3, 3]
    x = last[:3, 0]
    r = last[:3, 3] - o
    if abs(x @ z) < TOLERANCE and np.linalg.norm(np.cross(r, z) @ x) < TOLERANCE \
            and np.linalg.norm(np.cross(x, z)) > 0.5:
        return last.copy()
    foot = o + (r @ z) * z
    gap = last[:3, 3] - foot
    x = gap / np.linalg.norm(gap) if np.linalg.norm(gap) > TOLERANCE else prev[:3, 0]
    return _frame(foot + gap, z, x)


def _dh_row(prev, frame):
    """alpha, a, d, theta of the standard DH transform from frame `prev` to `frame` (4×4, base)."""
    x0, z0, o0 = prev[:3, 0], prev[:3, 2], prev[:3, 3]
    x1, z1, o1 = frame[:3, 0], frame[:3, 2], frame[:3, 3]
    r = o1 - o0
    theta = math.atan2(np.cross(x0, x1) @ z0, x0 @ x1)
    alpha = math.atan2(np.cross(z0, z1) @ x1, z0 @ z1)
    return alpha, float(r @ x1), float(r @ z0), theta


def dh_equivalent(robot, n_checks: int = 50, seed: int = 0):
    """The standard DH table of a chain with the same joint angles, or None for a tree.

    Parameters
    ----------
    robot : Robot
        A chain (any convention).
    n_checks : int
        Random configurations at which the table is checked against the description.
    seed : int
        Seed of those random configurations.

    Returns
    -------
    DHEquivalent or None
    """
    check_robot(robot)         # a public name: a non-robot is refused, not an AttributeError inside
    n_checks = check_number(n_checks, "n_checks", low=0, high=MAX_CHECKS, integer=True)   # not range()'s bare errors
    seed = check_seed(seed)
    if not robot.is_chain:
        return None
    frames0 = link_frames(robot, np.zeros(robot.n_dof))
    axes = [(J[:3, 3], J[:3, 2]) for J in _joint_frames(robot, frames0)]    # (point, unit direction) at q = 0
    n = robot.n_dof
    p1, z1 = axes[0]
    o0 = p1 + ((np.zeros(3) - p1) @ z1) * z1          # the base origin's foot on axis 1
    dh = [_frame(o0, z1, _perpendicular(z1, np.array([1.0, 0.0, 0.0])))]
    for i in range(1, n):
        p, w = axes[i]
        origin, x = _common_normal(dh[-1][:3, 3], dh[-1][:3, 2], p, w, dh[-1][:3, 0])
        # the normal's direction is free (a may be negative): the one closer to x_{i-1} keeps the
        # joint offset within ±90°, as tables are usually written
        dh.append(_frame(origin, w, -x if x @ dh[-1][:3, 0] < -1e-12 else x))
    dh.append(_last_frame(dh[-1], frames0[-1]))
    rows = []
    for k, joint in enumerate(robot.joints):
        alpha, a, d, theta = _dh_row(dh[k], dh[k + 1])
        rows.append((alpha, a, d, 0.0, theta) if joint.is_revolute else (alpha, a, 0.0, theta, d))
    table = np.array(rows, dtype=float)
    base = dh[0]
    tool = np.linalg.inv(dh[-1]) @ frames0[-1]
    types = tuple(j.type for j in robot.joints)
    return DHEquivalent(table, types, base, tool, _check(robot, table, types, base, tool, n_checks, seed))


def dh_robot(robot, equivalent: DHEquivalent):
    """The description as a standard-DH :class:`~baseparam.model.robot.Robot` (m and deg, values
    rounded to 1e-12 m and 1e-9°, so that exact geometry stays exact), with gravity turned into DH
    frame 0 and the true inertias moved into the DH link frames. A floating base stays floating, its
    body moved into DH frame 0 (whose pose q then gives) and gravity left in the world.

    The same mechanism with the same joint angles: the same rank, and the same torques for the same
    bodies; only the link frames (hence the regroupings) differ.
    """
    check_robot(robot)
    check_instance(equivalent, "equivalent", DHEquivalent, "a DHEquivalent (dh_equivalent(robot))")
    frames = link_frames(robot, np.zeros(robot.n_dof))
    dh = [equivalent.base @ T for T in dh_forward(equivalent.table, equivalent.types, np.zeros(robot.n_dof))]
    joints = []
    for k, (joint, (alpha, a, d, theta, offset)) in enumerate(zip(robot.joints, equivalent.table)):
        fields = {"type": joint.type, "alpha": _degrees(alpha), "a": _metres(a), "parent": joint.parent,
                  "friction": joint.friction, "rotor_inertia": joint.rotor_inertia, "limits": joint.limits}
        if joint.is_revolute:
            fields.update(d=_metres(d), offset=_degrees(offset))
        else:
            fields.update(theta=_degrees(theta), offset=_metres(offset))
        # the description's link frame in DH frame k
        joints.append(Joint(**fields, inertia=_in_frame(joint.inertia, np.linalg.inv(dh[k]) @ frames[k])))
    gravity = np.asarray(robot.gravity_si, float)
    floating = {}
    if robot.is_floating:     # gravity stays in the world; the base body moves into DH frame 0 (its pose's frame)
        floating = {"base": "floating", "base_inertia": _in_frame(robot.base_inertia, np.linalg.inv(equivalent.base))}
    else:
        gravity = equivalent.base[:3, :3].T @ gravity
    return Robot(tuple(joints), name=robot.name, convention="standard", length_unit="m", angle_unit="deg",
                 gravity=tuple(float(g) for g in gravity), **floating)


def _in_frame(body, X):
    """A body (or None) whose frame is X (4×4) in another frame, expressed in that frame."""
    if body is None:
        return None
    com, inertia = moved_body(body.com, body.inertia, X)
    return replace(body, com=com, inertia=inertia)


def _degrees(rad) -> float:
    value = round(math.degrees(rad), 9) + 0.0            # + 0.0: a -0.0 (a tiny negative angle rounded) is 0.0
    return value - 360.0 if value > 180.0 else value


def _metres(x) -> float:
    return round(float(x), 12) + 0.0


def dh_forward(table, types, q):
    """Standard DH frames 1..n in DH frame 0, shape (n, 4, 4)."""
    out, T = [], np.eye(4)
    for (alpha, a, d, theta, offset), kind, qk in zip(table, types, q):
        th, dd = (qk + offset, d) if kind == "revolute" else (theta, qk + offset)
        ct, st, ca, sa = math.cos(th), math.sin(th), math.cos(alpha), math.sin(alpha)
        A = np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st], [0, sa, ca, dd], [0, 0, 0, 1]])
        T = T @ A
        out.append(T)
    return out


def _check(robot, table, types, base, tool, n_checks, seed):
    """Largest difference between the description and base · DH(q) · tool: the last link frame, and
    every joint axis (direction, and the line through the DH origin)."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for trial in range(n_checks + 1):
        q = np.zeros(robot.n_dof) if trial == 0 else rng.uniform(-math.pi, math.pi, robot.n_dof)
        frames = link_frames(robot, q)
        dh = [base @ T for T in dh_forward(table, types, q)]
        worst = max(worst, float(np.abs(dh[-1] @ tool - frames[-1]).max()))
        for k, J in enumerate(_joint_frames(robot, frames)[1:], start=1):
            z_dh, o_dh = dh[k - 1][:3, 2], dh[k - 1][:3, 3]
            off_line = (o_dh - J[:3, 3]) - ((o_dh - J[:3, 3]) @ J[:3, 2]) * J[:3, 2]
            worst = max(worst, float(np.abs(z_dh - J[:3, 2]).max()), float(np.abs(off_line).max()))
    return worst


__all__ = ["DHEquivalent", "dh_equivalent", "dh_forward", "dh_robot", "link_frames"]
