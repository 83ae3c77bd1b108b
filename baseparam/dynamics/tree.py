"""A robot as a tree of rigid bodies in floating point, vectorized over samples: the explicit 6×6
matrices of Ivanov's equations (6)–(7).

Spatial vectors are angular first, ``[ω; v]`` and ``[n; f]``, as in every recursion of the package
(:func:`baseparam.dynamics.floating.public_layout` converts at the public boundary). Body b has a
parent (−1: the inertial frame or a fixed base), a motion subspace A_b (6 × n_b, constant in its own
frame: a joint's unit twist, or for a floating base's 6-DOF joint the map from the public twist
``[v, ω]`` to ``[ω; v]``), a spatial inertia M_b (6×6, constant) and, per sample, the transform C_b
(6×6) with ``v_b = C_b v_parent + A_b q̇_b``. The floating base, when there is one, is body 0 and the
joints are bodies 1..N; otherwise joint k is body k.
"""
from __future__ import annotations

import numpy as np

from ..model._kernels import kernels_of
from ..model.joint_model import joint_models, product, si_readers, to_si
from .floating import public_layout, rotation_matrices


def skew(x):
    """[x]× of vectors (..., 3) → (..., 3, 3)."""
    z = np.zeros(x.shape[:-1])
    return np.stack([np.stack([z, -x[..., 2], x[..., 1]], -1), np.stack([x[..., 2], z, -x[..., 0]], -1),
                     np.stack([-x[..., 1], x[..., 0], z], -1)], -2)


def motion_transform(R, P):
    """C with ``v_child = C v_parent`` for a child frame at origin P with axes R (in the parent frame):
    ``[[Rᵀ, 0], [−Rᵀ[P]×, Rᵀ]]``. R (..., 3, 3), P (..., 3) → (..., 6, 6)."""
    Rt = np.swapaxes(R, -1, -2)
    out = np.zeros(R.shape[:-2] + (6, 6))
    out[..., :3, :3] = out[..., 3:, 3:] = Rt
    out[..., 3:, :3] = -Rt @ skew(P)
    return out


def spatial_inertia(J, MS, M):
    """``[[Ī, [h]×], [[h]×ᵀ, m·1]]`` of a body with inertia Ī about its origin, first moments h, mass m."""
    out = np.zeros((6, 6))
    out[:3, :3] = J
    out[:3, 3:] = skew(np.asarray(MS))
    out[3:, :3] = -out[:3, 3:]
    out[3:, 3:] = M * np.eye(3)
    return out


def force_cross(v, f):
    """v ×* f for (S, 6) arrays: [ω × n + v × f; ω × f]."""
    w, lin, n, force = v[:, :3], v[:, 3:], f[:, :3], f[:, 3:]
    return np.concatenate([np.cross(w, n) + np.cross(lin, force), np.cross(w, force)], axis=1)


def body_parents(robot) -> list:
    """Each body's parent body (−1: the world), the floating base (when there is one) body 0."""
    nb = 1 if robot.is_floating else 0
    return ([-1] if nb else []) + [p + nb if p >= 0 else (0 if nb else -1) for p in robot.parents]


def body_parameters(robot, links) -> list:
    """Each body's (J, MS, M) — inertia about its origin (3, 3), first moments (3,), mass — in its frame, the
    floating base first."""
    return ([links.base] if robot.is_floating else []) + [(links.J[k], links.MS[k], links.M[k])
                                                           for k in range(robot.n_dof)]


def _joint_constants(robot) -> tuple:
    """Per joint: (its JointModel, the constant 4×4 factors ``before`` and ``after`` its motion, the motion's offset
    in SI), multiplied out once per robot object and kept with it (read-only): the joint models and the exact cos and
    sin of the description's angles would be most of the time of a one-sample call."""
    def build():
        length, cos_sin = si_readers(robot)
        out = []
        for model in joint_models(robot):
            before, after = product(model.before, length, cos_sin), product(model.after, length, cos_sin)
            before.setflags(write=False)
            after.setflags(write=False)
            out.append((model, before, after, to_si(robot, model.motion)))
        return tuple(out)
    return kernels_of(robot).get("joint_frames", (), build)


def _joint_frames(robot, q, parents, R_world, P_world):
    """Per joint, base to tip: (its JointModel, the constant 4×4 ``after`` its motion, R (S, 3, 3) and P (S, 3) of
    its frame in its parent's), each body's frame in the world appended to ``R_world``/``P_world`` on the way (the
    floating base's first): one computation of the poses for :class:`Tree` and :func:`world_frames`."""
    n = robot.n_dof
    if robot.is_floating:
        R_world.append(rotation_matrices(q[:, 3:7]))
        P_world.append(q[:, :3])
    nb = len(R_world)
    for k, (model, before, after, offset) in enumerate(_joint_constants(robot)):
        T = before @ model.motion_matrix(q[:, q.shape[1] - n + k] + offset) @ after
        R, P = T[:, :3, :3], T[:, :3, 3]
        parent = parents[nb + k]                    # frames in the world: parents come first
        R_world.append(R if parent < 0 else R_world[parent] @ R)
        P_world.append(P if parent < 0 else P_world[parent] + np.einsum("sij,sj->si", R_world[parent], P))
        yield model, after, R, P


def world_frames(robot, q):
    """Each body frame's orientation and origin in the world, as :class:`Tree`'s ``R, P`` (a fixed base's frame 0
    is the world), without the 6×6 matrices of the dynamics.

    Returns
    -------
    R : list of ndarray, shape (n_samples, 3, 3)
    P : list of ndarray, shape (n_samples, 3)
    """
    R, P = [], []
    for _ in _joint_frames(robot, q, body_parents(robot), R, P):
        pass
    return R, P


class Tree:
    """The bodies of a robot at a batch of configurations.

    Parameters
    ----------
    robot : Robot
    links : LinkParameters
    q : ndarray, shape (n_samples, n_q)

    Attributes
    ----------
    parents : list of int
    dofs : list of slice
        Each body's columns in q̇ (n_v of them in all).
    A : list of ndarray (6, n_b)
    bodies : list of (J, MS, M)
        Inertia about the origin, first moments and mass, in the body's frame.
    M : list of ndarray (6, 6)
    C : list of ndarray (n_samples, 6, 6)
    R, P : list of ndarray (n_samples, 3, 3), (n_samples, 3)
        Each body frame's orientation and origin in the world (a fixed base's frame 0 is the world).
    IA : ndarray (n_v,)
        Rotor inertia per velocity (0 on a floating base's twist).
    """

    def __init__(self, robot, links, q):
        S = q.shape[0]
        floating, n = robot.is_floating, robot.n_dof
        nb = 1 if floating else 0
        self.robot, self.links, self.S = robot, links, S
        self.parents = body_parents(robot)
        self.dofs = ([slice(0, 6)] if floating else []) + [slice(6 * nb + k, 6 * nb + k + 1) for k in range(n)]
        self.bodies = body_parameters(robot, links)
        self.M = [spatial_inertia(*body) for body in self.bodies]
        self.IA = np.concatenate([np.zeros(6 * nb), links.IA])
        self.A, self.C = ([public_layout(np.eye(6), axis=0)] if floating else []), ([None] if floating else [])
        self.R, self.P = [], []
        for model, after, R, P in _joint_frames(robot, q, self.parents, self.R, self.P):
            self.C.append(motion_transform(R, P))
            unit = np.zeros(6)
            unit[model.motion_index()] = 1.0          # the joint's twist in its joint frame
            self.A.append((motion_transform(after[:3, :3], after[:3, 3]) @ unit)[:, None])

    @property
    def n_bodies(self):
        return len(self.parents)

    def velocities(self, qd):
        """Body twists v_b (S, 6), each in its frame."""
        v = []
        for b, parent in enumerate(self.parents):
            x = qd[:, self.dofs[b]] @ self.A[b].T
            if parent >= 0:
                x = x + np.einsum("sij,sj->si", self.C[b], v[parent])
            v.append(x)
        return v

    def gravity_wrenches(self):
        """The weight of each body, (S, 6) in its frame: M_b [0; Rᵀ g]."""
        g = self.robot.gravity_si
        out = []
        for b in range(self.n_bodies):
            a = np.zeros((self.S, 6))
            a[:, 3:] = np.einsum("sji,j->si", self.R[b], g)
            out.append(a @ self.M[b].T)
        return out

    def subtree_sums(self, per_body):
        """Σ over each body's subtree of per-body wrenches (S, 6), moved to the body's frame: x_b + Σ C_cᵀ x_c."""
        out = [x.copy() for x in per_body]
        for b in reversed(range(self.n_bodies)):
            parent = self.parents[b]
            if parent >= 0:
                out[parent] += np.einsum("sji,sj->si", self.C[b], out[b])
        return out

    def world_wrench(self, b, f):
        """A wrench (S, 6) in body b's frame as the same wrench in the world frame, moment about the world
        origin."""
        force = np.einsum("sij,sj->si", self.R[b], f[:, 3:])
        moment = np.einsum("sij,sj->si", self.R[b], f[:, :3]) + np.cross(self.P[b], force)
        return np.concatenate([moment, force], axis=1)
