"""Joint transforms as constant 4×4 coefficient matrices (paper eq. 1).

Every joint transform is ``A(q) = C · J(q) · C'`` with constant C, C' and J a rotation about z
(revolute) or a translation along z (prismatic). Writing J(q) = Σ_l J̃^l x^l over the joint's
basis X = (1, cos q, sin q) or (1, q) gives ``A = Σ_l Ã^l x^l`` and its derivative
``∂A/∂q = Σ_l B̃^l x^l`` with constant Ã, B̃ — this is all the projection engine needs, and it
serves both DH conventions (METHOD.md §5).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# J(q) coefficients over (1, cos q, sin q) for a rotation about z.
_RZ = np.zeros((3, 4, 4))
_RZ[0, 2, 2] = _RZ[0, 3, 3] = 1.0
_RZ[1, 0, 0] = _RZ[1, 1, 1] = 1.0
_RZ[2, 0, 1], _RZ[2, 1, 0] = -1.0, 1.0
# d/dq of the above: cos' = -sin, sin' = cos.
_DRZ = np.stack([np.zeros((4, 4)), _RZ[2], -_RZ[1]])
# J(q) coefficients over (1, q) for a translation along z, and its derivative.
_TZ = np.zeros((2, 4, 4))
_TZ[0] = np.eye(4)
_TZ[1, 2, 3] = 1.0
_DTZ = np.stack([_TZ[1], np.zeros((4, 4))])


# cos of 0°, 15°, …, 90°, correctly rounded
_COS_15 = (1.0, math.sqrt(2.0 + math.sqrt(3.0)) / 2.0, math.sqrt(3.0) / 2.0, math.sqrt(0.5), 0.5,
           math.sqrt(2.0 - math.sqrt(3.0)) / 2.0, 0.0)


def exact_cos_sin(angle: float, angle_unit: str):
    """cos and sin of a description angle, exactly 0/±1 for multiples of 90°, and one shared value per
    magnitude for multiples of 15°.

    Returns
    -------
    (c, s, exact) : (float, float, bool)
        ``exact`` is True when the angle is a multiple of 90° (in radians: within 1e-12 of kπ/2).
    """
    if angle_unit == "deg":
        twelfth = Fraction(repr(float(angle))) / 15
        m = int(twelfth) if twelfth.denominator == 1 else None
        rad = math.radians(angle)
    else:
        ratio = float(angle) / (math.pi / 12)
        m = round(ratio) if abs(ratio - round(ratio)) < 1e-12 else None
        rad = float(angle)
    if m is None:
        return math.cos(rad), math.sin(rad), False
    # multiples of 15°: one correctly rounded value per magnitude, so that cos 45° = sin 45° and
    # cos 60° = sin 30° = 0.5 exactly (libm's values differ in the last bit, and the graphs would
    # then keep two products where one serves)
    quadrant, r = divmod(m % 24, 6)
    c, s = _COS_15[r], _COS_15[6 - r]
    for _ in range(quadrant):
        c, s = -s, c
    return c + 0.0, s + 0.0, r == 0


# The builders below take ``dtype=object`` to compute with exact Python numbers (Fractions or
# integers modulo a prime) — the same formulas then serve the float and the exact engines.
def rot_z(c, s, dtype=float):
    m = np.eye(4, dtype=dtype)
    m[0, 0], m[0, 1], m[1, 0], m[1, 1] = c, -s, s, c
    return m


def rot_x(c, s, dtype=float):
    m = np.eye(4, dtype=dtype)
    m[1, 1], m[1, 2], m[2, 1], m[2, 2] = c, -s, s, c
    return m


def trans(x=0, z=0, dtype=float):   # integer defaults: a float 0.0 would make exact matrices inexact
    m = np.eye(4, dtype=dtype)
    m[0, 3], m[2, 3] = x, z
    return m


def joint_factors(joint_type, convention, alpha_cs, a, d, theta_cs, offset, offset_cs=(1.0, 0.0), dtype=float):
    """Constant factors C, C' of ``A(q) = C J(q) C'`` for one joint.

    Parameters
    ----------
    joint_type : {'revolute', 'prismatic'}
    convention : {'standard', 'modified'}
    alpha_cs, theta_cs : (float, float)
        cos and sin of the twist α and (prismatic) the constant θ.
    a, d : float
        Lengths in the working unit (d is ignored for prismatic joints: it is the variable).
    offset : float
        Prismatic joints: constant added to q (length).
    offset_cs : (float, float)
        Revolute joints: cos, sin of the constant added to q.
    dtype : float or object
        ``object`` for exact arithmetic on the given Python numbers.

    Returns
    -------
    C, Cp : ndarray, shape (4, 4)
    """
    ca, sa = alpha_cs
    if joint_type == "revolute":
        inner = rot_z(*offset_cs, dtype=dtype) @ trans(z=d, dtype=dtype)
    else:
        inner = trans(z=offset, dtype=dtype)
    if convention == "standard":
        # A = [Rz(θ) for prismatic] J(q) · inner · Tx(a) Rx(α)
        C = rot_z(*theta_cs, dtype=dtype) if joint_type == "prismatic" else np.eye(4, dtype=dtype)
        Cp = inner @ trans(x=a, dtype=dtype) @ rot_x(ca, sa, dtype=dtype)
    else:
        # A = Rx(α) Tx(a) [Rz(θ) for prismatic] J(q) · inner
        C = rot_x(ca, sa, dtype=dtype) @ trans(x=a, dtype=dtype)
        if joint_type == "prismatic":
            C = C @ rot_z(*theta_cs, dtype=dtype)
        Cp = inner
    return C, Cp


def coefficient_matrices(joint_type, C, Cp):
    """Ã^l and B̃^l (coefficients of A and ∂A/∂q over the joint basis X).

    Returns
    -------
    A_coef, B_coef : ndarray, shape (m, 4, 4)
        m = 3 for revolute (1, cos, sin), 2 for prismatic (1, q).
    """
    J, dJ = (_RZ, _DRZ) if joint_type == "revolute" else (_TZ, _DTZ)
    if C.dtype == object:   # exact: the constant 0/±1 patterns as Python integers
        J, dJ = J.astype(int).astype(object), dJ.astype(int).astype(object)
    return C @ J @ Cp, C @ dJ @ Cp


def dh_transform(joint_type, convention, alpha, a, d, theta, q):
    """Numeric DH transforms, vectorized over samples (all SI, no offsets: add them to q first).

    Parameters
    ----------
    q : ndarray, shape (n,)
    Returns
    -------
    ndarray, shape (n, 4, 4)
    """
    q = np.asarray(q, dtype=float)
    th = q if joint_type == "revolute" else np.full_like(q, theta)
    dd = np.full_like(q, d) if joint_type == "revolute" else q
    ct, st, ca, sa = np.cos(th), np.sin(th), math.cos(alpha), math.sin(alpha)
    n = q.shape[0]
    Rz = np.zeros((n, 4, 4))
    Rz[:, 0, 0], Rz[:, 0, 1], Rz[:, 1, 0], Rz[:, 1, 1] = ct, -st, st, ct
    Rz[:, 2, 2] = Rz[:, 3, 3] = 1.0
    Tz = np.broadcast_to(np.eye(4), (n, 4, 4)).copy()
    Tz[:, 2, 3] = dd
    X = trans(x=a) @ rot_x(ca, sa)
    if convention == "standard":
        return Rz @ Tz @ X
    return X @ Rz @ Tz
