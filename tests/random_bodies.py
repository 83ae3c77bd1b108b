"""Random physically valid bodies, random robots and independent reference dynamics (test helper).

Nothing here uses baseparam's kinematics, parameter maps or dynamics: only ``Robot.dh_si()``,
``Robot.gravity_si``, ``Robot.convention`` and the joints' ``type``/``parent``/``friction_terms``/
``has_rotor_inertia`` are read.

* :func:`random_body` — a solid box of random size, rotated randomly, with its centre of mass
  within 0.3 m of the link-frame origin: positive mass, inertia about the COM symmetric positive
  definite with the strict triangle inequalities.
* :func:`link_vector` — its 10 standard parameters (pseudo or Khalil) in the DH link frame, from
  the textbook definitions: I_O = I_C + m(|c|²1 − c cᵀ) (Khalil, XY = I_O[0, 1] = −∫xy dm) and
  Σ = ∫ r rᵀ dm = tr(I_C)/2·1 − I_C + m c cᵀ (pseudo).
* :func:`random_parameters` — the full standard vector of a robot (names written out here and
  compared with ``ColumnLayout`` by the tests), with rotor inertias and friction where declared.
* :class:`Energies` — kinetic and potential energy from plain DH matrix products with the
  velocities of the frames differentiated analytically, so every function accepts complex q and
  complex-step derivatives with respect to q are exact to round-off.
* :data:`CUSTOM` robots (modified DH with drives, trees with prismatic joints, a tree numbered
  out of depth-first order), :func:`depth_first` (the same tree renumbered depth-first, which
  pinocchio's subtree algorithms need), and the hypothesis strategy :func:`robots` for random DH
  tables (both conventions, prismatic joints, odd twists, offsets, trees, tilted or zero gravity,
  rotor inertia, friction).
"""
from __future__ import annotations

import functools
import math

import numpy as np
from hypothesis import strategies as st

import baseparam as bp

PSEUDO = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")
KHALIL = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
H = 1e-30   # complex step


# -- bodies and parameter vectors ----------------------------------------------------------------------------
def random_rotation(rng):
    Q, R = np.linalg.qr(rng.normal(size=(3, 3)))
    Q = Q * np.sign(np.diag(R))
    return Q if np.linalg.det(Q) > 0 else -Q


def random_body(rng):
    """(mass, com (3,), inertia about the COM (3, 3)) of a rotated solid box."""
    m = rng.uniform(0.5, 5.0)
    c = rng.uniform(-1.0, 1.0, 3)
    c *= rng.uniform(0.0, 0.3) / max(np.linalg.norm(c), 1e-12)
    a, b, h = rng.uniform(0.03, 0.5, 3)
    principal = m / 12.0 * np.array([b * b + h * h, a * a + h * h, a * a + b * b])
    R = random_rotation(rng)
    Ic = R @ np.diag(principal) @ R.T
    return m, c, 0.5 * (Ic + Ic.T)


def check_body(body):
    """Assert the body is physically valid (used on the generator itself)."""
    m, c, Ic = body
    e = np.linalg.eigvalsh(Ic)
    assert m > 0 and np.linalg.norm(c) <= 0.3 + 1e-12
    assert np.allclose(Ic, Ic.T) and e.min() > 0
    assert e[0] + e[1] > e[2] and e[0] + e[2] > e[1] and e[1] + e[2] > e[0]


def link_vector(body, parameters):
    m, c, Ic = body
    if parameters == "khalil":
        I0 = Ic + m * (c @ c * np.eye(3) - np.outer(c, c))
        return np.array([I0[0, 0], I0[0, 1], I0[0, 2], I0[1, 1], I0[1, 2], I0[2, 2], *(m * c), m])
    S = np.trace(Ic) / 2 * np.eye(3) - Ic + m * np.outer(c, c)
    return np.array([S[0, 0], S[1, 1], S[2, 2], S[0, 1], S[0, 2], S[1, 2], *(m * c), m])


def standard_names(robot, parameters):
    """The documented column order: per joint its 10 link parameters, IA, then FV FC FO if declared."""
    out = []
    for k, j in enumerate(robot.joints, start=1):
        out += [f"{n}{k}" for n in (KHALIL if parameters == "khalil" else PSEUDO)]
        if j.has_rotor_inertia:
            out.append(f"IA{k}")
        out += [f"{kind}{k}" for kind in ("FV", "FC", "FO") if kind in j.friction_terms]
    return out


class Drives:
    """Rotor inertia and friction per joint (zero where not declared)."""

    def __init__(self, n):
        self.IA, self.FV, self.FC, self.FO = (np.zeros(n) for _ in range(4))

    def friction(self, qd):
        return self.FV * qd + self.FC * np.sign(qd) + self.FO


def random_parameters(robot, parameters, rng):
    """(p, bodies, drives): a physically valid standard vector in the documented column order."""
    n = robot.n_dof
    bodies = [random_body(rng) for _ in range(n)]
    drives = Drives(n)
    p = []
    for k, (j, body) in enumerate(zip(robot.joints, bodies)):
        p += list(link_vector(body, parameters))
        if j.has_rotor_inertia:
            drives.IA[k] = rng.uniform(0.01, 0.5)
            p.append(drives.IA[k])
        for kind in ("FV", "FC", "FO"):
            if kind in j.friction_terms:
                value = rng.uniform(-2.0, 2.0) if kind == "FO" else rng.uniform(0.1, 3.0)
                getattr(drives, kind)[k] = value
                p.append(value)
    return np.array(p), bodies, drives


def random_states(robot, n, rng, scale=2.0):
    """q ∈ [−π, π] (revolute) or [−0.8, 0.8] m (prismatic); q̇, q̈ ∈ [−scale, scale]."""
    prismatic = np.array([not j.is_revolute for j in robot.joints])
    q = rng.uniform(-np.pi, np.pi, (n, robot.n_dof))
    q[:, prismatic] = rng.uniform(-0.8, 0.8, (n, prismatic.sum()))
    qd = rng.uniform(-scale, scale, (n, robot.n_dof))
    qdd = rng.uniform(-scale, scale, (n, robot.n_dof))
    return q, qd, qdd


def with_gravity(robot, gravity):
    return bp.Robot(robot.joints, name=robot.name, convention=robot.convention, length_unit=robot.length_unit,
                    angle_unit=robot.angle_unit, gravity=gravity)


def with_drives(robot, pattern=(("IA", "FV", "FC", "FO"), ("FV",), (), ("IA",), ("IA", "FC"), ("FO", "FV"))):
    """The same robot with rotor inertia / friction declared on its joints, following ``pattern``."""
    joints = []
    for k, j in enumerate(robot.joints):
        kinds = pattern[k % len(pattern)]
        joints.append(bp.Joint(type=j.type, alpha=j.alpha, a=j.a, d=j.d, theta=j.theta, offset=j.offset,
                               parent=j.parent, rotor_inertia="IA" in kinds,
                               friction=tuple(kind in kinds for kind in ("FV", "FC", "FO"))))
    return bp.Robot(tuple(joints), name=robot.name + " with drives", convention=robot.convention,
                    length_unit=robot.length_unit, angle_unit=robot.angle_unit, gravity=robot.gravity)


@functools.cache
def shared_robot(path, drives=False):
    """``bp.load_robot(path)`` (``with_drives`` of it if ``drives``), one object per file and drives in a test session.

    A robot's compiled code (regressors, Newton–Euler, M, C, g, per parameterization) is kept with the robot object:
    tests comparing the dynamics of a robot file with their own references (test_dynamics, test_dynamics_pinocchio)
    each loading the file again compiled the same code again, most of their CPU time. The code is a function of
    the description alone; tests of compiling itself (C loops, caches) build robot objects of their own."""
    robot = bp.load_robot(path)
    return with_drives(robot) if drives else robot


@functools.cache
def base_parameters(robot, parameters):
    """bp.find_base_parameters, once per robot and parameterization in a test session (it is deterministic;
    robots here declare drives with booleans only, so equal robots have equal columns)."""
    return bp.find_base_parameters(robot, parameters)


# -- hand-written robots covering what the robot files do not ------------------------------------------------
CUSTOM = {
    # modified DH, prismatic, offsets, rotor inertia and every kind of friction
    "rpr_modified_drives": """
name: RPR modified with drives
convention: modified
units: {length: m, angle: deg}
gravity: [0.5, -1.2, -9.7]
joints:
  - {type: revolute, alpha: 0, a: 0, d: 0.3, offset: 20, rotor_inertia: true, friction: [true, true, false]}
  - {type: prismatic, alpha: -90, a: 0.2, theta: 30, offset: 0.15, rotor_inertia: true, friction: true}
  - {type: revolute, alpha: 60, a: 0.1, d: 0.1, offset: -45, rotor_inertia: true}
  - {type: revolute, alpha: -90, a: 0.05, d: 0.2, friction: [false, false, true]}
""",
    # a tree with a prismatic branch, offsets, odd twists and tilted gravity, standard DH
    "tree_prismatic": """
name: tree with a prismatic branch
convention: standard
units: {length: m, angle: deg}
gravity: [1.0, 2.0, -9.0]
joints:
  - {type: revolute, alpha: 90, a: 0.1, d: 0.4, rotor_inertia: true, friction: true}
  - {type: revolute, alpha: 30, a: 0.3, d: 0.1, parent: 1, offset: 15}
  - {type: prismatic, alpha: -90, a: 0.05, theta: 90, parent: 2, offset: 0.1, friction: [true, false, false]}
  - {type: revolute, alpha: -60, a: 0.25, d: -0.1, parent: 1, rotor_inertia: true}
  - {type: revolute, alpha: 0, a: 0.2, d: 0, parent: 4, offset: -30, friction: [false, true, true]}
""",
    # a modified-DH tree whose joints are not numbered depth-first (branches interleaved), two roots
    "tree_interleaved": """
name: interleaved tree
convention: modified
units: {length: m, angle: deg}
gravity: [0, -9.81, 0]
joints:
  - {type: revolute, alpha: 0, a: 0, d: 0.2, rotor_inertia: true}
  - {type: prismatic, alpha: 90, a: 0.1, theta: -30, parent: 0, offset: 0.05, friction: true}
  - {type: revolute, alpha: -90, a: 0.2, d: 0.05, parent: 1, offset: 40}
  - {type: revolute, alpha: 45, a: 0.15, d: 0, parent: 2, friction: [true, true, false]}
  - {type: revolute, alpha: 90, a: 0, d: 0.1, parent: 3, rotor_inertia: true}
""",
}


def custom_robot(name):
    return bp.parse_robot(CUSTOM[name], name + ".yaml")


def depth_first(robot):
    """(robot in depth-first joint order, perm): new joint k is old joint perm[k], parents renumbered.

    The same mechanism; pinocchio's algorithms over subtrees (crba, Coriolis matrix) assume this order.
    """
    children = {k: [] for k in range(robot.n_dof + 1)}
    for k, j in enumerate(robot.joints, start=1):
        children[j.parent].append(k)
    order, stack = [], list(reversed(children[0]))
    while stack:
        k = stack.pop()
        order.append(k)
        stack.extend(reversed(children[k]))
    new_number = {old: new for new, old in enumerate(order, start=1)}
    new_number[0] = 0
    joints = []
    for old in order:
        j = robot.joints[old - 1]
        joints.append(bp.Joint(type=j.type, alpha=j.alpha, a=j.a, d=j.d, theta=j.theta, offset=j.offset,
                               parent=new_number[j.parent], friction=j.friction, rotor_inertia=j.rotor_inertia,
                               origins=j.origins, axis=j.axis))
    reordered = bp.Robot(tuple(joints), name=robot.name, convention=robot.convention, length_unit=robot.length_unit,
                         angle_unit=robot.angle_unit, gravity=robot.gravity, base=robot.base,
                         base_inertia=robot.base_inertia)
    return reordered, np.array(order) - 1


# -- hypothesis: random DH tables ----------------------------------------------------------------------------
QUARTERS = [k * math.pi / 2 for k in (-2, -1, 0, 1, 2)]
ODD_ANGLES = [math.radians(30), 0.7, -1.3, math.radians(-135), 2.5]
angles = st.one_of(st.sampled_from(QUARTERS), st.sampled_from(ODD_ANGLES))
lengths = st.one_of(st.just(0.0), st.integers(-1000, 1000).map(lambda i: i / 1000))
gravities = st.one_of(
    st.sampled_from([(0.0, 0.0, -9.81), (0.0, 0.0, 0.0), (0.0, -9.81, 0.0), (9.81, 0.0, 0.0)]),
    st.tuples(*[st.integers(-981, 981).map(lambda i: i / 100)] * 3))


@st.composite
def joints(draw, k, tree):
    revolute = draw(st.sampled_from([True, True, False]))
    alpha, a = draw(angles), draw(lengths)
    parent = draw(st.integers(0, k)) if tree else k
    extra = dict(parent=parent, rotor_inertia=draw(st.booleans()),
                 friction=draw(st.tuples(st.booleans(), st.booleans(), st.booleans())))
    if revolute:
        offset = draw(st.one_of(st.just(0.0), angles))
        return bp.Joint(type="revolute", alpha=alpha, a=a, d=draw(lengths), offset=offset, **extra)
    offset = draw(st.one_of(st.just(0.0), lengths))
    return bp.Joint(type="prismatic", alpha=alpha, a=a, theta=draw(angles), offset=offset, **extra)


@st.composite
def robots(draw, max_dof=5):
    n = draw(st.integers(1, max_dof))
    tree = draw(st.booleans())
    return bp.Robot(joints=tuple(draw(joints(k, tree)) for k in range(n)), name="random",
                    convention=draw(st.sampled_from(["standard", "modified"])),
                    length_unit="m", angle_unit="rad", gravity=draw(gravities))


# general joint geometry (URDF convention): origins with special and generic rpy, axes along, between
# and off the coordinate axes
AXES = [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, -1.0), (0.0, -1.0, 0.0),
        (0.0, math.sqrt(0.5), math.sqrt(0.5)), (1.0, 1.0, 1.0), (0.3, -0.5, 0.8)]


@st.composite
def origins(draw):
    xyz = tuple(draw(st.lists(lengths, min_size=3, max_size=3)))
    rpy = tuple(draw(st.lists(st.one_of(st.just(0.0), angles), min_size=3, max_size=3)))
    return bp.Origin(xyz, rpy)


@st.composite
def general_robots(draw, max_dof=4, drives=False):
    n = draw(st.integers(2, max_dof))
    joints = []
    for k in range(n):
        revolute = draw(st.booleans())
        extra = dict(rotor_inertia=draw(st.booleans()),
                     friction=draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))) if drives else {}
        joints.append(bp.Joint(type="revolute" if revolute else "prismatic",
                               origins=tuple(draw(st.lists(origins(), min_size=1, max_size=2))),
                               axis=draw(st.sampled_from(AXES)), parent=draw(st.integers(0, k)),
                               offset=draw(st.one_of(st.just(0.0), angles if revolute else lengths)), **extra))
    return bp.Robot(joints=tuple(joints), name="random general", convention="urdf", gravity=draw(gravities))


# -- independent energies from plain DH products -------------------------------------------------------------
def _rz(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0 * c, 0 * c], [s, c, 0 * c, 0 * c], [0 * c, 0 * c, 1 + 0 * c, 0 * c],
                     [0 * c, 0 * c, 0 * c, 1 + 0 * c]])


def _drz(t):
    c, s = np.cos(t), np.sin(t)
    z = 0 * c
    return np.array([[-s, -c, z, z], [c, -s, z, z], [z, z, z, z], [z, z, z, z]])


def _rx(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def _tr(x=0.0, z=0.0):
    m = np.eye(4, dtype=complex if np.iscomplexobj(x) or np.iscomplexobj(z) else float)
    m[0, 3], m[2, 3] = x, z
    return m


_DTZ = np.zeros((4, 4))
_DTZ[2, 3] = 1.0


def joint_transform(convention, revolute, dh_row, qk):
    """A_k(q_k) and dA_k/dq_k straight from the DH definition (θ = q + offset, or d = q + offset)."""
    alpha, a, d, theta, off = dh_row
    if revolute:
        R, dR, Tz = _rz(qk + off), _drz(qk + off), _tr(z=d)
        if convention == "standard":
            right = Tz @ _tr(x=a) @ _rx(alpha)
            return R @ right, dR @ right
        left = _rx(alpha) @ _tr(x=a)
        return left @ R @ Tz, left @ dR @ Tz
    Tz = _tr(z=qk + off)
    if convention == "standard":
        left, right = _rz(theta).real, _tr(x=a) @ _rx(alpha)
    else:
        left, right = _rx(alpha) @ _tr(x=a) @ _rz(theta).real, np.eye(4)
    return left @ Tz @ right, left @ _DTZ @ right


def frames(robot, q, qd):
    """[(T_k, Ṫ_k)] in the base frame; q may be complex, Ṫ_k = Σ_j ∂T_k/∂q_j q̇_j (chain rule)."""
    dh = robot.dh_si()
    out = []
    for k, j in enumerate(robot.joints):
        A, dA = joint_transform(robot.convention, j.is_revolute, dh[k], q[k])
        if j.parent:
            Tp, dTp = out[j.parent - 1]
        else:
            Tp, dTp = np.eye(4), np.zeros((4, 4))
        out.append((Tp @ A, dTp @ A + Tp @ dA * qd[k]))
    return out


class Energies:
    """Kinetic and potential energy of a robot carrying ``bodies`` (link frames), with rotor inertia."""

    def __init__(self, robot, bodies, drives):
        self.robot, self.bodies, self.drives = robot, bodies, drives
        self.n = robot.n_dof

    def kinetic(self, q, qd):
        K = 0.5 * np.sum(self.drives.IA * np.asarray(qd) ** 2)
        for (T, dT), (m, c, Ic) in zip(frames(self.robot, q, qd), self.bodies):
            R, dR = T[:3, :3], dT[:3, :3]
            S = R.T @ dR                                   # [ω]× in link coordinates
            w = np.array([S[2, 1], S[0, 2], S[1, 0]])
            vc = dR @ c + dT[:3, 3]
            K = K + 0.5 * m * (vc @ vc) + 0.5 * w @ (Ic @ w)
        return K

    def potential(self, q):
        g = self.robot.gravity_si
        P = 0.0
        for (T, _), (m, c, _) in zip(frames(self.robot, q, np.zeros(self.n)), self.bodies):
            P = P - m * g @ (T[:3, :3] @ c + T[:3, 3])
        return P

    def mass_matrix(self, q):
        """Hessian of K with respect to q̇ (K is exactly quadratic: polarization, no step)."""
        n, E = self.n, np.eye(self.n)
        diag = [2 * self.kinetic(q, E[i]) for i in range(n)]
        M = np.empty((n, n), dtype=np.result_type(q, float))
        for i in range(n):
            M[i, i] = diag[i]
            for j in range(i):
                M[i, j] = M[j, i] = self.kinetic(q, E[i] + E[j]) - 0.5 * (diag[i] + diag[j])
        return M

    def gravity(self, q):
        """∂Π/∂q by complex steps."""
        return np.array([self.potential(q + 1j * H * e).imag / H for e in np.eye(self.n)])

    def velocity_torque(self, q, qd):
        """d/dt(M q̇) − ∂K/∂q at q̈ = 0, all derivatives by complex steps."""
        dMqd = (self.mass_matrix(q + 1j * H * qd).imag / H) @ qd
        dK = np.array([self.kinetic(q + 1j * H * e, qd).imag / H for e in np.eye(self.n)])
        return dMqd - dK


RTOL = 1e-10


def assert_close(actual, expected, rtol=RTOL, what="", floor=1e-3):
    """max|actual − expected| ≤ rtol · max(max|expected|, floor) (floor: for all-zero references)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} vs {expected.shape}"
    err = np.abs(actual - expected).max(initial=0.0)
    scale = max(np.abs(expected).max(initial=0.0), floor)
    assert err <= rtol * scale, f"{what}: max|diff| = {err:.3e}, max|ref| = {scale:.3e}, relative {err / scale:.3e}"
