"""Telegin (2021), examples 1-3: baseparam must rediscover the grouped inertial constants of the
paper's equations of motion.

A. I. Telegin, "Formalism of writing manipulator dynamics equations" (2021; project copy
../shared/seeds/004_1fad410fe4aafd2e.txt) writes the dynamics of a P-P-R arm (example 1, Fig. 1,
Table 1), an R-P-P arm (example 2, Fig. 2, Table 2) and a 6-DOF R-R-R-P-R-R arm (example 3, Fig. 3,
Table 3, Listing 2) with grouped constants (subsystem masses m_i, static moments a_i, a, b, and
inertia groups J^y_13, I_d1, I_d2, I^c_36, I^x_56, I^c_56, ...). The robot files ppr.yaml, rpp.yaml
and telegin_rrrprr.yaml are DH descriptions of these arms.

The paper's constants are defined on its own body frames: pole O_i on the joint axis, principal
axes of the body (ГСК(i)) as laid down by Listing 2 (axes of the joints and pole bases given in
the previous body's frame, all body frames parallel to the fixed frame at q = 0), fixed frame
x right, y up. We map each body frame onto the DH link frame by the constant transform
E_k = T_k(q)⁻¹·W_k(q) (checked constant over configurations: this is also the check that the yaml
reproduces the paper's kinematics), express every paper constant as a linear form in baseparam's
standard (pseudo) parameters, and check it against base.Y.

The paper also states simplifying assumptions (centres of mass on given body axes, principal axes,
bodies 3-6 of example 3 symmetric about their y axis: J^x = J^z). Under them its equations use fewer
constants than baseparam's base set of a general DH arm, so the comparison is made twice:

* with the assumptions (parameters restricted to the subspace they allow): every paper constant
  is a function of the base parameters, and the paper's constants span exactly the same space as
  the base parameters — the number of independent paper constants equals the restricted rank;
* without them: every constant is in the row space of base.Y except example 2's a2 (for a general
  body 3 the equations carry a2 minus body 3's static moment along the slide, baseparam's SY2 + SY3
  group) and example 3's I^x_56 (the q5'' coefficient only when J^x = J^z for bodies 5, 6); for
  examples 1 and 2 base.rank = 4 + 1, the paper's 4 constants plus one static moment its
  assumptions make zero (example 1: SY3; example 2: SX2 + SX3). The paper prints no counts.

The paper's equations themselves are checked against an independent Newton-Euler inverse dynamics
of the DH model (with the mapped parameters), which validates the mapping and the paper's formulas.
"""
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT
from independent import link_frames

G = 9.81
L = 0.5            # example 3: L1 = L2 = L = 0.5 m (Listing 2; telegin_rrrprr.yaml a1 = a2 = 0.5)
# paper's fixed frame (x right, y up, z) -> DH base frame (x0 = x, y0 = -z, z0 = y)
P2D = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])
# pseudo parameters of one body, baseparam's order; used both in the DH link frame and in the
# paper's body frame (pole origin): XX = ∫x² dm, XY = ∫xy dm, SX = m·x_c, M = m
XX, YY, ZZ, XY, XZ, YZ, SX, SY, SZ, M = range(10)
PRODUCTS = (XY, XZ, YZ)


def jx(t):
    """Moment of inertia about the body's x axis through its pole (paper's J_o^x)."""
    return t[YY] + t[ZZ]


def jy(t):
    return t[XX] + t[ZZ]


def jz(t):
    return t[XX] + t[YY]


# ---------------------------------------------------------------- kinematics and parameter maps

def _rot(u, angle):
    u = np.asarray(u, float)
    k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def paper_bodies(types, axes, bases, q):
    """Body frames (R_i, O_i) in the paper's fixed frame, by Listing 1's recursion."""
    R, O, out = np.eye(3), np.zeros(3), []
    for kind, axis, base, qi in zip(types, axes, bases, q):
        axis = np.asarray(axis, float)
        O = O + R @ (np.asarray(base, float) + (qi * axis if kind == "P" else 0.0))
        if kind == "R":
            R = R @ _rot(axis, qi)
        out.append((R, O))
    return out


def body_to_link(robot, kin, q):
    """E_k: body-frame coordinates -> DH link-frame coordinates (4×4), at configuration q."""
    out = []
    for T, (R, O) in zip(link_frames(robot, np.asarray(q, complex)), paper_bodies(*kin, q)):
        W = np.eye(4)
        W[:3, :3], W[:3, 3] = P2D @ R, P2D @ O
        out.append(np.linalg.solve(T.real, W))
    return out


def _sym(t):
    return np.array([[t[XX], t[XY], t[XZ]], [t[XY], t[YY], t[YZ]], [t[XZ], t[YZ], t[ZZ]]])


def _pack(P, S, m):
    return np.array([P[0, 0], P[1, 1], P[2, 2], P[0, 1], P[0, 2], P[1, 2], *S, m])


def link_to_body_params(p, E):
    """Pseudo parameters in the DH link frame -> the same body's in its paper frame (about the pole)."""
    R, t = E[:3, :3], E[:3, 3]
    m, S, P = p[M], p[SX:M], _sym(p)
    return _pack(R.T @ (P - np.outer(S, t) - np.outer(t, S) + m * np.outer(t, t)) @ R, R.T @ (S - m * t), m)


def to_body_matrix(Es):
    """Block-diagonal G with theta = G p (theta: paper-frame parameters, p: baseparam's standard)."""
    n = 10 * len(Es)
    Gm = np.zeros((n, n))
    for k, E in enumerate(Es):
        for j in range(10):
            Gm[10 * k:10 * k + 10, 10 * k + j] = link_to_body_params(np.eye(10)[j], E)
    return Gm


PSEUDO_TO_KHALIL = np.zeros((10, 10))   # khalil XX XY XZ YY YZ ZZ MX MY MZ M from pseudo
for _row, _terms in enumerate([{YY: 1, ZZ: 1}, {XY: -1}, {XZ: -1}, {XX: 1, ZZ: 1}, {YZ: -1},
                               {XX: 1, YY: 1}, {SX: 1}, {SY: 1}, {SZ: 1}, {M: 1}]):
    for _col, _v in _terms.items():
        PSEUDO_TO_KHALIL[_row, _col] = _v


# ---------------------------------------------------------------- independent inverse dynamics

def newton_euler(robot, p, q, qd, qdd):
    """Joint forces of the serial DH arm with pseudo parameters p (n_dof, 10) in the link frames.

    Plain world-frame Newton-Euler on the frames of ``independent.link_frames``; gravity enters as
    the base's acceleration -g. Returns ndarray, shape (n_dof,).
    """
    frames = [T.real for T in link_frames(robot, np.asarray(q, complex))]
    w, dw, a = np.zeros(3), np.zeros(3), -robot.gravity_si
    o_prev, z_prev = np.zeros(3), np.array([0.0, 0, 1])
    links = []
    for k, joint in enumerate(robot.joints):
        R, o = frames[k][:3, :3], frames[k][:3, 3]
        r = o - o_prev
        if joint.is_revolute:
            w_k = w + qd[k] * z_prev
            dw_k = dw + qdd[k] * z_prev + np.cross(w, qd[k] * z_prev)
            a = a + np.cross(dw_k, r) + np.cross(w_k, np.cross(w_k, r))
        else:
            w_k, dw_k = w, dw
            a = (a + np.cross(dw, r) + np.cross(w, np.cross(w, r)) + qdd[k] * z_prev
                 + 2 * np.cross(w, qd[k] * z_prev))
        m, S, P = p[k, M], R @ p[k, SX:M], _sym(p[k])
        I = R @ (np.trace(P) * np.eye(3) - P) @ R.T          # inertia about o_k
        F = m * a + np.cross(dw_k, S) + np.cross(w_k, np.cross(w_k, S))
        N = I @ dw_k + np.cross(w_k, I @ w_k) + np.cross(S, a)
        links.append((F, N, o, r, z_prev, joint.is_revolute))
        w, dw, o_prev, z_prev = w_k, dw_k, o, R[:, 2]
    tau = np.zeros(robot.n_dof)
    f, n, o_next = np.zeros(3), np.zeros(3), None
    for k in reversed(range(robot.n_dof)):
        F, N, o, r, z, revolute = links[k]
        n = N + n + (np.cross(o_next - o, f) if o_next is not None else 0.0)   # about o_k
        f = F + f
        tau[k] = z @ (n + np.cross(r, f)) if revolute else z @ f
        o_next = o
    return tau


# ---------------------------------------------------------------- the paper's examples

def _vec(**kw):
    v = np.zeros(10)
    for name, value in kw.items():
        v[globals()[name]] = value
    return v


def _free(*names):
    """Basis of one body's parameters allowed by the paper: listed parameters free, others zero."""
    return [_vec(**{n: 1.0}) for n in names]


PRINCIPAL_DIAG = ("XX", "YY", "ZZ")


# Example 1 (P-P-R). Table 1: p1 = y, p2 = x, q3 = z, R3 = 0; c1 = -y, c2 = -x, c3 = (c3, s3, 0):
# the principal axis x3 of body 3 points to its centre of mass and q3 is measured from x to it.
def ex1_constants(t):
    return {"m1": t[0, M] + t[1, M] + t[2, M], "m2": t[1, M] + t[2, M], "a3": t[2, SX], "J3z": jz(t[2])}


def ex1_equations(k, q, qd, qdd):
    s3, c3 = np.sin(q[2]), np.cos(q[2])
    return np.array([
        k["m1"] * qdd[0] + k["a3"] * (c3 * qdd[2] - s3 * qd[2] ** 2) + k["m1"] * G,
        k["m2"] * qdd[1] - k["a3"] * (s3 * qdd[2] + c3 * qd[2] ** 2),
        k["J3z"] * qdd[2] + k["a3"] * (c3 * qdd[0] - s3 * qdd[1]) + G * k["a3"] * c3])


# Example 2 (R-P-P). Table 2: q1 = y, p2 = c1·x - s1·z, p3 = -y; c2 = -p2, c3 = y.
def ex2_constants(t):
    return {"J13y": jy(t[0]) + jy(t[1]) + jy(t[2]), "m2": t[1, M] + t[2, M], "m3": t[2, M], "a2": -t[1, SX]}


def ex2_equations(k, q, qd, qdd):
    # [(J13y + m2 q2² - 2 a2 q2) q1']' = M1;  m2 q2'' + (a2 - m2 q2) q1'² = F2;  m3 q3'' - m3 g = F3
    q2 = q[1]
    return np.array([
        (k["J13y"] + k["m2"] * q2 ** 2 - 2 * k["a2"] * q2) * qdd[0] + 2 * (k["m2"] * q2 - k["a2"]) * qd[1] * qd[0],
        k["m2"] * qdd[1] + (k["a2"] - k["m2"] * q2) * qd[0] ** 2,
        k["m3"] * qdd[2] - k["m3"] * G])


# Example 3 (R-R-R-P-R-R), L1 = L2 = L. Listing 2: centres of mass [A1,0,0], [A2,0,0], [0,-B3,0],
# [0,B4,0], [0,-B5,0], [0,-B6,0]; principal central tensors, J^x = J^z for bodies 3-6.
def ex3_constants(t):
    m2, m3, m4 = t[1:, M].sum(), t[2:, M].sum(), t[3:, M].sum()
    a = -t[4, SY] - t[5, SY]                     # a = a5 + a6, a_i = m_i·|O_iC_i|, c5 = -y5, c6 = -y6
    b = t[1, SX] + m3 * L                        # b = a2 + m3 L2
    I56x, I56y = jx(t[4]) + jx(t[5]), jy(t[4]) + jy(t[5])
    I56c = I56y - I56x
    D = (jy(t[4]) - jx(t[4])) + (jy(t[5]) - jx(t[5]))  # D = D5 + D6, D_k = J^y_ok - J^x_ok
    return {"Id1": jy(t[0]) + m2 * L ** 2, "Id2": jy(t[1]) + m3 * L ** 2, "Lb": L * b, "La": L * a, "a": a,
            "m4": m4, "I36c": jy(t[2]) + jy(t[3]) + I56x, "I56x": I56x, "I56c": I56c,
            "Id": (jy(t[5]) - jx(t[5])) + jx(t[5]), "D": D, "Ie": -I56c - D, "J6y": jy(t[5])}


def ex3_equations(k, q, qd, qdd):
    s, c = np.sin(q), np.cos(q)
    s2, c2, s3, c3, s5, c5 = s[1], c[1], s[2], c[2], s[4], c[4]
    s23, c23 = np.sin(q[1] + q[2]), np.cos(q[1] + q[2])
    qd1, qd12, qd13, qd5, qd6 = qd[0], qd[0] + qd[1], qd[0] + qd[1] + qd[2], qd[4], qd[5]
    qdd1, qdd12, qdd13 = qdd[0], qdd[0] + qdd[1], qdd[0] + qdd[1] + qdd[2]
    qdd4, qdd5, qdd6 = qdd[3], qdd[4], qdd[5]
    La, Lb, a = k["La"], k["Lb"], k["a"]
    m1_m2 = (k["Id1"] * qdd1 + Lb * (c2 * qdd12 - s2 * qd12 ** 2)
             + La * (s5 * (c23 * qdd13 - s23 * qd13 ** 2) + s23 * (c5 * qdd5 - s5 * qd5 ** 2)
                     + 2 * c23 * c5 * qd13 * qd5))
    m2_m3 = (k["Id2"] * qdd12 + Lb * (c2 * qdd1 + s2 * qd1 ** 2)
             + La * (s5 * (c3 * qdd13 - s3 * qd13 ** 2) + s3 * (c5 * qdd5 - s5 * qd5 ** 2) + 2 * c3 * c5 * qd13 * qd5))
    M3 = (La * s5 * (c23 * qdd1 + c3 * qdd12 + s23 * qd1 ** 2 + s3 * qd12 ** 2) + k["J6y"] * c5 * qdd6
          + (k["I36c"] + k["I56c"] * c5 ** 2) * qdd13 + s5 * (k["Ie"] * c5 * qd13 - k["Id"] * qd6) * qd5)
    F4 = k["m4"] * qdd4 - a * (s5 * qdd5 + c5 * qd5 ** 2) - k["m4"] * G
    M5 = (La * c5 * (s23 * qdd1 + s3 * qdd12 - c23 * qd1 ** 2 - c3 * qd12 ** 2) + k["I56x"] * qdd5
          - s5 * (a * qdd4 - (k["D"] * c5 * qd13 + k["Id"] * qd6) * qd13) + a * G * s5)
    M6 = k["J6y"] * (c5 * qdd13 + qdd6 - s5 * qd13 * qd5)
    M2 = m2_m3 + M3
    return np.array([m1_m2 + M2, M2, M3, F4, M5, M6])


@dataclass
class Example:
    yaml: str
    kin: tuple                 # (joint types, axes in the previous body frame, pole bases there)
    constants: object          # theta (n_dof, 10) -> {name: value}, linear
    equations: object          # (constants, q, qd, qdd) -> joint forces
    allowed: list              # per body: basis vectors of the parameters the paper's assumptions allow
    independent: list          # a maximal independent subset of the paper's constants
    needs_assumptions: tuple = ()   # constants that are functions of the base parameters only under them
    generalized: dict = field(default_factory=dict)   # their form for a general body: name -> theta -> value
    regrouped: dict = field(default_factory=dict)     # constant (general form) -> standard terms, by hand
    extra: dict = field(default_factory=dict)         # base parameters the paper's assumptions make zero


EX1 = Example(
    "ppr.yaml", ("PPR", [[0, 1, 0], [1, 0, 0], [0, 0, 1]], [[0, 0, 0]] * 3), ex1_constants, ex1_equations,
    [_free(*PRINCIPAL_DIAG, "SY", "M"), _free(*PRINCIPAL_DIAG, "SX", "M"), _free(*PRINCIPAL_DIAG, "SX", "M")],
    ["m1", "m2", "a3", "J3z"],
    regrouped={"m1": {"M1": 1, "M2": 1, "M3": 1}, "m2": {"M2": 1, "M3": 1}, "a3": {"SX3": 1},
               "J3z": {"XX3": 1, "YY3": 1}},
    # the paper measures q3 to the centre of mass of body 3; a DH angle origin is fixed, so the
    # static moment of body 3 across x3 is one more constant
    extra={"SY3": {"SY3": 1}})

EX2 = Example(
    "rpp.yaml", ("RPP", [[0, 1, 0], [1, 0, 0], [0, -1, 0]], [[0, 0, 0]] * 3), ex2_constants, ex2_equations,
    [_free(*PRINCIPAL_DIAG, "SX", "SY", "SZ", "M"), _free(*PRINCIPAL_DIAG, "SX", "M"),
     _free(*PRINCIPAL_DIAG, "SY", "M")],
    ["J13y", "m2", "m3", "a2"],
    # a2 (body 2 alone) is a function of the base parameters only because c3 = y; for any body 3
    # the equations carry a2 minus the static moment of body 3 along p2
    needs_assumptions=("a2",),
    generalized={"a2": lambda t: -t[1, SX] - t[2, SX]},
    regrouped={"J13y": {"XX1": 1, "ZZ1": 1, "XX2": 1, "YY2": 1, "XX3": 1, "YY3": 1},
               "m2": {"M2": 1, "M3": 1}, "m3": {"M3": 1}, "a2": {"SY2": -1, "SY3": -1}},
    # the horizontal static moment of bodies 2 and 3 across the slide p2 (zero as c2 = -p2, c3 = y)
    extra={"SX2 + SX3": {"SX2": 1, "SX3": 1}})


def _sym_y():
    """Body symmetric about its y axis through the pole: J^x = J^z (XX = ZZ), principal, c on y."""
    return [_vec(XX=1.0, ZZ=1.0), _vec(YY=1.0), _vec(SY=1.0), _vec(M=1.0)]


EX3 = Example(
    "telegin_rrrprr.yaml",
    ("RRRPRR", [[0, 1, 0]] * 3 + [[0, -1, 0], [0, 0, 1], [0, 1, 0]],
     [[0, 0, 0], [L, 0, 0], [L, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]),
    ex3_constants, ex3_equations,
    [_free(*PRINCIPAL_DIAG, "SX", "M"), _free(*PRINCIPAL_DIAG, "SX", "M")] + [_sym_y() for _ in range(4)],
    ["Id1", "Id2", "Lb", "La", "m4", "I36c", "I56x", "I56c", "J6y"],
    # I56x = J5x + J6x is the coefficient of q5'' only when bodies 5, 6 have J^x = J^z
    needs_assumptions=("I56x",))

EXAMPLES = {"ex1_ppr": EX1, "ex2_rpp": EX2, "ex3_rrrprr": EX3}


# ---------------------------------------------------------------- fixtures and helpers

@dataclass
class Setup:
    ex: Example
    robot: object
    base: object
    base_khalil: object
    Gm: np.ndarray             # theta = Gm @ p
    B: np.ndarray              # columns: basis (in p) of the parameters the paper's assumptions allow
    C: dict                    # name -> row (in p) of each paper constant


def _rows(fn, n_dof, Gm):
    """Rows (in baseparam's standard parameters) of the linear forms fn(theta)."""
    n = 10 * n_dof
    values = [fn(np.eye(n)[j].reshape(n_dof, 10)) for j in range(n)]
    return {name: np.array([v[name] for v in values]) @ Gm for name in values[0]}


@pytest.fixture(scope="module", params=list(EXAMPLES))
def setup(request):
    ex = EXAMPLES[request.param]
    robot = bp.load_robot(ROOT / "robots" / ex.yaml)
    Es = body_to_link(robot, ex.kin, np.linspace(0.3, 1.1, robot.n_dof))
    Gm = to_body_matrix(Es)
    blocks = [np.array(v).T for v in ex.allowed]
    theta_basis = np.zeros((10 * robot.n_dof, sum(b.shape[1] for b in blocks)))
    col = 0
    for k, b in enumerate(blocks):
        theta_basis[10 * k:10 * k + 10, col:col + b.shape[1]] = b
        col += b.shape[1]
    return Setup(ex, robot, bp.find_base_parameters(robot), bp.find_base_parameters(robot, parameters="khalil"),
                 Gm, np.linalg.solve(Gm, theta_basis), _rows(ex.constants, robot.n_dof, Gm))


def residual(A, c):
    """Relative distance of row c from the row space of A."""
    lam = np.linalg.lstsq(A.T, c, rcond=None)[0]
    return np.linalg.norm(A.T @ lam - c) / np.linalg.norm(c)


def rank(A, rtol=1e-10):
    s = np.linalg.svd(A, compute_uv=False)
    return int((s > rtol * s[0]).sum())


# ---------------------------------------------------------------- tests

def test_yaml_reproduces_paper_kinematics(setup):
    """Each paper body frame is rigidly attached to its DH link frame: E_k does not depend on q."""
    rng = np.random.default_rng(1)
    ref = body_to_link(setup.robot, setup.ex.kin, np.linspace(0.3, 1.1, setup.robot.n_dof))
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, setup.robot.n_dof)
        for E, E0 in zip(body_to_link(setup.robot, setup.ex.kin, q), ref):
            np.testing.assert_allclose(E, E0, atol=1e-12)


def test_newton_euler_sees_only_base_parameters(setup):
    """Sanity of the reference dynamics: parameters in the null space of Y move no joint."""
    rng = np.random.default_rng(2)
    n = setup.robot.n_dof
    null = np.linalg.svd(setup.base.Y)[2][setup.base.rank:]
    for _ in range(3):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, n), rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
        p = rng.normal(size=10 * n)
        tau = newton_euler(setup.robot, p.reshape(n, 10), q, qd, qdd)
        tau_null = newton_euler(setup.robot, (p + rng.normal(size=null.shape[0]) @ null).reshape(n, 10), q, qd, qdd)
        np.testing.assert_allclose(tau_null, tau, atol=1e-9 * np.abs(tau).max())


def test_paper_equations_match_inverse_dynamics(setup):
    """The paper's equations with the mapped constants = Newton-Euler of the DH model (under the
    paper's assumptions): validates the frame mapping and the paper's formulas."""
    rng = np.random.default_rng(3)
    n = setup.robot.n_dof
    for _ in range(5):
        p = setup.B @ rng.uniform(0.2, 2.0, setup.B.shape[1])
        k = {name: row @ p for name, row in setup.C.items()}
        q, qd, qdd = rng.uniform(-np.pi, np.pi, n), rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
        tau = newton_euler(setup.robot, p.reshape(n, 10), q, qd, qdd)
        np.testing.assert_allclose(setup.ex.equations(k, q, qd, qdd), tau, rtol=1e-10,
                                   atol=1e-10 * np.abs(tau).max())


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_paper_constants_are_functions_of_base_parameters(setup, parameters):
    """Under the paper's assumptions every constant c of its equations is λᵀY on the allowed subspace."""
    if parameters == "pseudo":
        YB = setup.base.Y @ setup.B
    else:   # same constants, khalil columns: c·p = (c K⁻¹)·(K p)
        K = np.kron(np.eye(setup.robot.n_dof), PSEUDO_TO_KHALIL)
        YB = setup.base_khalil.Y @ K @ setup.B
    for name, row in setup.C.items():
        assert residual(YB, row @ setup.B) < 1e-12, name


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_paper_constants_in_row_space_of_Y(setup, parameters):
    """Without any assumption: c = λᵀY (relative residual < 1e-12) for every constant the paper's
    equations carry for a general body; the others hold only under the paper's assumptions."""
    n = setup.robot.n_dof
    to_cols = np.eye(10 * n) if parameters == "pseudo" else np.linalg.inv(np.kron(np.eye(n), PSEUDO_TO_KHALIL))
    Y = setup.base.Y if parameters == "pseudo" else setup.base_khalil.Y
    for name, row in setup.C.items():
        res = residual(Y, row @ to_cols)
        assert (res > 1e-3) if name in setup.ex.needs_assumptions else (res < 1e-12), (name, res)
    for name, fn in setup.ex.generalized.items():
        row = _rows(lambda t: {name: fn(t)}, n, setup.Gm)[name]
        assert residual(Y, row @ to_cols) < 1e-12, name
        assert np.allclose(row @ setup.B, setup.C[name] @ setup.B, atol=1e-14)   # same under the assumptions


def _row(setup, terms):
    row = np.zeros(len(setup.base.standard_names))
    for name, v in terms.items():
        row[setup.base.standard_names.index(name)] = v
    return row


def _general_row(setup, name):
    """Row of a paper constant for a general body (its generalized form where it has one)."""
    fn = setup.ex.generalized.get(name)
    return _rows(lambda t: {name: fn(t)}, setup.robot.n_dof, setup.Gm)[name] if fn else setup.C[name]


def _exact(terms):
    return {k: Fraction(v).limit_denominator(1000) for k, v in terms.items() if abs(v) > 1e-12}


def test_exact_regroupings(setup):
    """Each paper constant is an exact rational combination of baseparam's exact regroupings
    (base.terms), e.g. example 1: m1 = M1 + M2 + M3, J3z = XX3 + YY3 (= ZZ3 about O3 in Khalil's)."""
    base = setup.base
    for name in setup.C:
        if name in setup.ex.needs_assumptions and name not in setup.ex.generalized:
            continue
        row = _general_row(setup, name)
        if name in setup.ex.regrouped:   # written out by hand from the paper and the frame map
            np.testing.assert_allclose(row, _row(setup, setup.ex.regrouped[name]), atol=1e-14)
        lam = np.linalg.lstsq(base.Y.T, row, rcond=None)[0]
        total = {}
        for r, coef in enumerate(lam):
            coef = Fraction(coef).limit_denominator(1000)
            for k, v in base.terms(r).items():
                total[k] = total.get(k, 0) + coef * v
        assert {k: v for k, v in total.items() if v != 0} == _exact(dict(zip(base.standard_names, row))), name
    for name, terms in setup.ex.extra.items():
        assert _exact(terms) in [base.terms(r) for r in range(base.rank)], name


def test_paper_constants_span_the_base_parameters(setup):
    """Under the paper's assumptions its independent constants and the base parameters span the
    same space: baseparam finds exactly the paper's groupings, no more, no fewer."""
    YB = setup.base.Y @ setup.B
    CB = np.array([setup.C[n] for n in setup.ex.independent]) @ setup.B
    CB_all = np.array(list(setup.C.values())) @ setup.B
    n_paper = len(setup.ex.independent)
    assert rank(CB) == rank(CB_all) == n_paper
    assert rank(YB) == n_paper
    assert rank(np.vstack([YB, CB])) == n_paper


def test_base_count_against_paper(setup):
    """The paper prints no count; its equations carry len(independent) constants. base.rank adds
    exactly the base parameters that the paper's assumptions make zero (examples 1, 2)."""
    assert setup.base.rank == setup.base_khalil.rank
    if not setup.ex.extra:   # example 3: a general body 1-6 carries many more constants
        assert setup.base.rank > len(setup.ex.independent)
        return
    assert setup.base.rank == len(setup.ex.independent) + len(setup.ex.extra)
    extra = [_row(setup, terms) for terms in setup.ex.extra.values()]
    for name, row in zip(setup.ex.extra, extra):
        assert residual(setup.base.Y, row) < 1e-12, name
        assert np.allclose(row @ setup.B, 0, atol=1e-14), name          # zero under the assumptions
    # the paper's constants (general forms) and the extra parameters are a basis of the base set
    C = np.array([_general_row(setup, n) for n in setup.ex.independent] + extra)
    assert rank(C) == rank(np.vstack([C, setup.base.Y])) == setup.base.rank
