"""Independent reference dynamics: a pinocchio model of a baseparam DH chain (test helper).

Nothing here uses baseparam's kinematics or parameter maps: only ``Robot.dh_si()``,
``Robot.gravity_si``, ``Joint.is_revolute``/``friction_terms``/``has_rotor_inertia`` and the
column names are read. Every DH joint transform is split as ``A_k(q) = C_k · J(q) · C'_k`` with
J a rotation about z (revolute) or a translation along z (prismatic):

====================  =====================================  ==========================
standard, revolute    C = 1                                  C' = Rz(off) Tz(d) Tx(a) Rx(α)
standard, prismatic   C = Rz(θ)                              C' = Tz(off) Tx(a) Rx(α)
modified, revolute    C = Rx(α) Tx(a)                        C' = Rz(off) Tz(d)
modified, prismatic   C = Rx(α) Tx(a) Rz(θ)                  C' = Tz(off)
====================  =====================================  ==========================

Pinocchio's joint frame k is ``T_{k-1} · C_k · J(q_k)`` (an RZ or PZ joint, placed at
``C'_{k-1} · C_k`` in joint frame k−1), so the DH link frame k is ``joint frame k · C'_k``. The
regressor pinocchio returns is for parameters in the joint frame; the exact linear change of
frame (pseudo-inertia P ↦ X P Xᵀ with X = C'_k) turns it into the regressor for parameters in
the DH link frame, in either of baseparam's parameterizations.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

KHALIL = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
PSEUDO = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")
# pinocchio's dynamic parameters: [m, mc_x, mc_y, mc_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz], joint frame,
# inertia about the joint-frame origin.


def rz(t):
    c, s = np.cos(t), np.sin(t)
    m = np.eye(4)
    m[:2, :2] = [[c, -s], [s, c]]
    return m


def rx(t):
    c, s = np.cos(t), np.sin(t)
    m = np.eye(4)
    m[1:3, 1:3] = [[c, -s], [s, c]]
    return m


def tz(z):
    m = np.eye(4)
    m[2, 3] = z
    return m


def tx(x):
    m = np.eye(4)
    m[0, 3] = x
    return m


def dh_transform(convention, revolute, alpha, a, d, theta, offset, q):
    """A_k(q) straight from the DH definition (theta = q + offset, or d = q + offset)."""
    if revolute:
        th, dd = q + offset, d
    else:
        th, dd = theta, q + offset
    if convention == "standard":
        return rz(th) @ tz(dd) @ tx(a) @ rx(alpha)
    return rx(alpha) @ tx(a) @ rz(th) @ tz(dd)


def dh_forward(robot, q):
    """List of T_k (4×4, base frame) for k = 1..n."""
    out = []
    for j, (alpha, a, d, theta, off), qk in zip(robot.joints, robot.dh_si(), q):
        T = out[j.parent - 1] if j.parent else np.eye(4)
        out.append(T @ dh_transform(robot.convention, j.is_revolute, alpha, a, d, theta, off, qk))
    return out


def origin_matrix(origin):
    """A URDF origin Trans(xyz)·Rz(yaw)·Ry(pitch)·Rx(roll), with pinocchio's rpy → matrix."""
    T = np.eye(4)
    T[:3, :3] = pin.rpy.rpyToMatrix(*(float(v) for v in origin.rpy))
    T[:3, 3] = [float(v) for v in origin.xyz]
    return T


def general_factors(joint):
    """(C, C') of a urdf-convention joint: the origins' product, and the offset's motion about/along the
    axis (pinocchio's unaligned joints carry the axis, so the link frame is the joint frame)."""
    C = np.eye(4)
    for origin in joint.origins:
        C = C @ origin_matrix(origin)
    Cp = np.eye(4)
    axis = np.asarray(joint.axis, dtype=float)
    if joint.is_revolute:
        Cp[:3, :3] = pin.AngleAxis(float(joint.offset), axis).matrix()
    else:
        Cp[:3, 3] = float(joint.offset) * axis
    return C, Cp


def joint_model(robot, joint):
    if robot.convention == "urdf":
        axis = np.asarray(joint.axis, dtype=float)
        return pin.JointModelRevoluteUnaligned(axis) if joint.is_revolute else pin.JointModelPrismaticUnaligned(axis)
    return pin.JointModelRZ() if joint.is_revolute else pin.JointModelPZ()


def split_factors(robot):
    """(C_k, C'_k) per joint, see the module docstring (urdf convention: :func:`general_factors`)."""
    if robot.convention == "urdf":
        return [general_factors(j) for j in robot.joints]
    out = []
    for j, (alpha, a, d, theta, off) in zip(robot.joints, robot.dh_si()):
        if robot.convention == "standard":
            if j.is_revolute:
                C, Cp = np.eye(4), rz(off) @ tz(d) @ tx(a) @ rx(alpha)
            else:
                C, Cp = rz(theta), tz(off) @ tx(a) @ rx(alpha)
        else:
            if j.is_revolute:
                C, Cp = rx(alpha) @ tx(a), rz(off) @ tz(d)
            else:
                C, Cp = rx(alpha) @ tx(a) @ rz(theta), tz(off)
        out.append((C, Cp))
    return out


def se3(T):
    return pin.SE3(np.array(T[:3, :3]), np.array(T[:3, 3]))


def build_model(robot, inertias=None, base_inertia=None):
    """pinocchio Model of a robot (chain or tree), and the ids of frames ``dh_k`` placed at DH link frame k.

    A floating base (``robot.is_floating``) is a ``JointModelFreeFlyer`` (joint 1) whose frame is the
    DH frame 0, carrying ``base_inertia``; the robot's joints follow it.

    Parameters
    ----------
    inertias : list of pin.Inertia or None
        Body inertia of each link, expressed in its DH link frame (default: zero bodies).
    base_inertia : pin.Inertia or None
        The floating base body's, in frame 0.

    Returns
    -------
    model : pin.Model
    frame_ids : list of int
    """
    model = pin.Model()
    model.name = robot.name
    model.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    root = 0
    if getattr(robot, "is_floating", False):
        root = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
        model.appendBodyToJoint(root, pin.Inertia.Zero() if base_inertia is None else base_inertia,
                                pin.SE3.Identity())
    joint_ids, factors, frame_ids = [], split_factors(robot), []
    for k, (j, (C, Cp)) in enumerate(zip(robot.joints, factors)):
        parent = joint_ids[j.parent - 1] if j.parent else root
        prev_Cp = factors[j.parent - 1][1] if j.parent else np.eye(4)
        jm = joint_model(robot, j)
        jid = model.addJoint(parent, jm, se3(prev_Cp @ C), f"joint{k + 1}")
        I = pin.Inertia.Zero() if inertias is None else inertias[k]
        model.appendBodyToJoint(jid, I, se3(Cp))
        frame_ids.append(model.addFrame(pin.Frame(f"dh{k + 1}", jid, se3(Cp), pin.FrameType.OP_FRAME)))
        joint_ids.append(jid)
    return model, frame_ids


# -- parameters -----------------------------------------------------------------------------------
def _pseudo_matrix(vec, names):
    """4×4 pseudo-inertia P = ∫ r̄ r̄ᵀ dm of a link parameter vector (pseudo or Khalil names)."""
    p = dict(zip(names, vec))
    P = np.zeros((4, 4))
    if "SX" in p:  # pseudo: second moments ∫xx, ∫xy ...
        S = np.array([[p["XX"], p["XY"], p["XZ"]], [p["XY"], p["YY"], p["YZ"]], [p["XZ"], p["YZ"], p["ZZ"]]])
        h = np.array([p["SX"], p["SY"], p["SZ"]])
    else:          # Khalil: inertia tensor about the origin, I = tr(S)·1 − S → S = tr(I)/2·1 − I
        I = np.array([[p["XX"], p["XY"], p["XZ"]], [p["XY"], p["YY"], p["YZ"]], [p["XZ"], p["YZ"], p["ZZ"]]])
        S = np.trace(I) / 2 * np.eye(3) - I
        h = np.array([p["MX"], p["MY"], p["MZ"]])
    P[:3, :3], P[:3, 3], P[3, :3], P[3, 3] = S, h, h, p["M"]
    return P


def _pin_params(P):
    """pinocchio's 10 dynamic parameters of a pseudo-inertia matrix."""
    S, h, m = P[:3, :3], P[:3, 3], P[3, 3]
    I = np.trace(S) * np.eye(3) - S
    return np.array([m, h[0], h[1], h[2], I[0, 0], I[0, 1], I[1, 1], I[0, 2], I[1, 2], I[2, 2]])


def link_map(X, parameters):
    """10×10 L with pin_params(joint frame) = L @ p(DH link frame) for a link frame at X in the joint frame."""
    names = KHALIL if parameters == "khalil" else PSEUDO
    L = np.zeros((10, 10))
    for i in range(10):
        e = np.zeros(10)
        e[i] = 1.0
        L[:, i] = _pin_params(X @ _pseudo_matrix(e, names) @ X.T)
    return L


def link_params(inertia, parameters):
    """A pin.Inertia (in the DH link frame) as the 10 baseparam parameters of that link."""
    m, c = inertia.mass, np.asarray(inertia.lever)
    I0 = np.asarray(inertia.inertia) + m * (c @ c * np.eye(3) - np.outer(c, c))
    if parameters == "khalil":
        return np.array([I0[0, 0], I0[0, 1], I0[0, 2], I0[1, 1], I0[1, 2], I0[2, 2], *(m * c), m])
    S = np.trace(I0) / 2 * np.eye(3) - I0
    return np.array([S[0, 0], S[1, 1], S[2, 2], S[0, 1], S[0, 2], S[1, 2], *(m * c), m])


class Reference:
    """Regressor of a baseparam robot in baseparam's column order, computed with pinocchio."""

    def __init__(self, robot, parameters="khalil"):
        self.robot = robot
        self.parameters = parameters
        self.model, self.frame_ids = build_model(robot)
        self.data = self.model.createData()
        n = robot.n_dof
        self.names, self.maps = [], []
        link_names = KHALIL if parameters == "khalil" else PSEUDO
        # columns: (kind, joint, extra) in baseparam's order: link params, IA, FV, FC, FO per joint
        self.columns = []
        for k, (j, (_, Cp)) in enumerate(zip(robot.joints, split_factors(robot))):
            self.maps.append(link_map(Cp, parameters))
            for i, nm in enumerate(link_names):
                self.names.append(f"{nm}{k + 1}")
                self.columns.append(("link", k, i))
            if j.has_rotor_inertia:
                self.names.append(f"IA{k + 1}")
                self.columns.append(("IA", k, None))
            for kind in j.friction_terms:
                self.names.append(f"{kind}{k + 1}")
                self.columns.append((kind, k, None))
        self.n = n

    def regressor(self, q, v, a):
        """(n_dof, n_standard) torque regressor at one state."""
        q, v, a = (np.asarray(x, dtype=float).reshape(self.n) for x in (q, v, a))
        Wp = np.asarray(pin.computeJointTorqueRegressor(self.model, self.data, q, v, a)).reshape(self.n, 10 * self.n)
        Wl = [Wp[:, 10 * k:10 * k + 10] @ self.maps[k] for k in range(self.n)]
        out = np.zeros((self.n, len(self.columns)))
        for c, (kind, k, i) in enumerate(self.columns):
            if kind == "link":
                out[:, c] = Wl[k][:, i]
            elif kind == "IA":
                out[k, c] = a[k]
            elif kind == "FV":
                out[k, c] = v[k]
            elif kind == "FC":
                out[k, c] = np.sign(v[k])
            elif kind == "FO":
                out[k, c] = 1.0
        return out

    def stacked(self, rng, n_samples):
        rows = []
        for _ in range(n_samples):
            q, v, a = (rng.uniform(-np.pi, np.pi, self.n) for _ in range(3))
            rows.append(self.regressor(q, v, a))
        return np.vstack(rows)


class PinReference:
    """pinocchio's dynamics of the robot carrying ``bodies``, with rotor inertia and friction added by hand.

    The model is built on the depth-first renumbering of the robot's joints (pinocchio's subtree
    algorithms, crba among them, assume it; ``build_model`` keeps the description's order), and
    every input and output is permuted back to baseparam's joint order. A floating base (``base``:
    its body (m, c, I_c) in frame 0) leads q, v, a and τ, in pinocchio's free-flyer convention.
    """

    def __init__(self, robot, bodies, drives, base=None):
        from random_bodies import depth_first
        reordered, self.perm = depth_first(robot)
        self.model, _ = build_model(reordered, [pin.Inertia(*bodies[k]) for k in self.perm],
                                    None if base is None else pin.Inertia(*base))
        self.data = self.model.createData()
        self.drives = drives
        self.robot, self.reordered = robot, reordered
        self.nb = 6 if getattr(robot, "is_floating", False) else 0      # the base's share of v
        self.factors = split_factors(reordered)

    def _vector(self, x):
        out = np.empty(len(self.perm))
        out[self.perm] = x
        return out

    def _matrix(self, A):
        out = np.empty_like(A)
        out[np.ix_(self.perm, self.perm)] = A
        return out

    def _full(self, x, base):
        """Permute the joint part of a v-sized vector (pinocchio's order → ours)."""
        x = np.asarray(x, dtype=float)
        return np.concatenate([x[:self.nb], self._vector(x[self.nb:])]) if base else self._vector(x)

    def _pin(self, x, nq=0):
        """Our joint order → pinocchio's, keeping the first ``nq`` (base) entries."""
        x = np.asarray(x, dtype=float)
        return np.concatenate([x[:nq], x[nq:][self.perm]])

    def _drive_terms(self, qd, qdd):
        tau = self.drives.IA * qdd[self.nb:] + self.drives.friction(qd[self.nb:])
        return np.concatenate([np.zeros(self.nb), tau])

    def rnea(self, q, qd, qdd):
        nq = 7 if self.nb else 0
        tau = self._full(pin.rnea(self.model, self.data, self._pin(q, nq), self._pin(qd, self.nb),
                                  self._pin(qdd, self.nb)), self.nb)
        return tau + self._drive_terms(qd, qdd)

    def aba(self, q, qd, tau):
        """pinocchio's forward dynamics, rotor inertia and friction folded in: (M + IA) q̈ = τ − h − friction."""
        nq = 7 if self.nb else 0
        if not np.any(self.drives.IA):
            tau_eff = tau - self._drive_terms(qd, np.zeros_like(qd))
            return self._full(pin.aba(self.model, self.data, self._pin(q, nq), self._pin(qd, self.nb),
                                      self._pin(tau_eff, self.nb)), self.nb)
        M = self.mass_matrix(q)
        h = self.rnea(q, qd, np.zeros_like(qd)) - self._drive_terms(qd, np.zeros_like(qd))
        return np.linalg.solve(M, tau - h - self._drive_terms(qd, np.zeros_like(qd)))

    def wrenches(self, q, qd, qdd):
        """data.f after rnea, moved to each DH link frame: (n_dof, 6) [f, n], moment about the link origin."""
        nq = 7 if self.nb else 0
        pin.rnea(self.model, self.data, self._pin(q, nq), self._pin(qd, self.nb), self._pin(qdd, self.nb))
        out = np.empty((len(self.perm), 6))
        first = 2 if self.nb else 1
        for new, old in enumerate(self.perm):
            f_joint = self.data.f[first + new]
            f_link = se3(self.factors[new][1]).actInv(f_joint)     # joint frame → link frame (Cp)
            out[old] = np.concatenate([f_link.linear, f_link.angular])
        return out

    def mass_matrix(self, q):
        nq = 7 if self.nb else 0
        M = np.array(pin.crba(self.model, self.data, self._pin(q, nq)))
        M = np.triu(M) + np.triu(M, 1).T             # pinocchio guarantees the upper triangle only
        if self.nb:
            order = np.concatenate([np.arange(6), 6 + self.perm])
            out = np.empty_like(M)
            out[np.ix_(order, order)] = M
            return out + np.diag(np.concatenate([np.zeros(6), self.drives.IA]))
        return self._matrix(M) + np.diag(self.drives.IA)

    def gravity(self, q):
        nq = 7 if self.nb else 0
        return self._full(pin.computeGeneralizedGravity(self.model, self.data, self._pin(q, nq)), self.nb)

    def coriolis(self, q, qd):
        nq = 7 if self.nb else 0
        nle = pin.nonLinearEffects(self.model, self.data, self._pin(q, nq), self._pin(qd, self.nb))
        return self._full(nle, self.nb) - self.gravity(q)

    def coriolis_matrix(self, q, qd):
        P = self.perm
        return self._matrix(np.array(pin.computeCoriolisMatrix(self.model, self.data, q[P], qd[P])))

    def slotine_li(self, q, qd, qd_r, qdd_r):
        """M q̈_r + C(q, q̇) q̇_r + g + friction(q̇), with pinocchio's C (Christoffel-consistent)."""
        return (self.mass_matrix(q) @ qdd_r + self.coriolis_matrix(q, qd) @ qd_r + self.gravity(q)
                + self.drives.friction(qd))
