"""bp: base-parameter dynamics of Planar RRR (vertical plane), exported by baseparam (numpy, SI units).

Functions: regressor. See the comments below for the
base parameters and their regroupings."""
# bp: exported by baseparam for Planar RRR (vertical plane) (3 joints, standard DH)
# 9 base parameters (pseudo parameterization), SI units: m, rad, kg, s, N·m, N.
# Regroupings exact (decided in rational arithmetic).
# Straight-line code: every common subexpression once, DH zeros and ones folded, sin/cos once per
# joint. Operation counts (mul, add, div, sin/cos pairs):
#   regressor: 42 mul, 49 add, 0 div, 3 sincos
#
# p_base[r], r = 0..8: name = regrouping of the standard parameters (SI)
#   0  XX1 = XX1 + YY1 - (M1 + M2 + M3)
#   1  SX1 = SX1 + M1 + M2 + M3
#   2  SY1 = SY1
#   3  XX2 = XX2 + YY2 - (M2 + M3)
#   4  SX2 = SX2 + M2 + M3
#   5  SY2 = SY2
#   6  XX3 = XX3 + YY3 - M3
#   7  SX3 = SX3 + M3
#   8  SY3 = SY3

import math

import numpy as np

N_DOF = 3
N_BASE = 9
BASE_NAMES = ['XX1', 'SX1', 'SY1', 'XX2', 'SX2', 'SY2', 'XX3', 'SX3', 'SY3']
OPERATION_COUNTS = {'regressor': {'mul': 42, 'add': 49, 'div': 0, 'sincos': 3}}
# Beyond these magnitudes a state or a parameter is no robot's, and the products would overflow to
# non-finite values (inputs of 1e154 square to 1e308): refused, as baseparam's own functions refuse them
MAX_STATE, MAX_PARAMETER = 100000000.0, 1e+100

# One sample runs on Python floats (math), a batch on numpy arrays: the same straight-line code
# serves both, and a single call costs tens of microseconds instead of numpy's per-call overhead.
_SCALAR = (math.cos, math.sin, lambda x: float((x > 0) - (x < 0)), math.tanh, math.exp)
_ARRAY = (np.cos, np.sin, np.sign, np.tanh, np.exp)


def _states(*arrays):
    """Joint arrays as rows: lists of floats for one sample (n,), (n, S) arrays for a batch (S, n)."""
    checked = [np.asarray(x, dtype=float) for x in arrays]
    for x in checked:
        if x.ndim not in (1, 2) or x.shape[-1] != N_DOF:
            raise ValueError(f"expected shape ({N_DOF},) or (S, {N_DOF}), got {x.shape}")
    if len({x.shape for x in checked}) > 1:
        raise ValueError("the state arrays must have the same shape, got " + ", ".join(str(x.shape) for x in checked))
    if not all((np.abs(x) <= MAX_STATE).all() for x in checked):
        raise ValueError(f"the state arrays contain a non-finite value, or a value beyond ±{MAX_STATE:g}")
    single = checked[0].ndim == 1
    return [x.tolist() if single else x.T for x in checked], single


def _parameters(p, single):
    p = np.asarray(p, dtype=float)
    if p.shape != (N_BASE,):
        raise ValueError(f"p_base: expected shape ({N_BASE},), got {p.shape}")
    if not (np.abs(p) <= MAX_PARAMETER).all():
        raise ValueError(f"p_base: a non-finite value, or a value beyond ±{MAX_PARAMETER:g}")
    return p.tolist() if single else p


def _output(single, q, shape):
    return np.zeros(shape if single else shape + (q.shape[1],))


def regressor(q, qd, qdd):
    """base regressor: tau = Y p_base (Y row-major, N x R).

    Arrays of shape (n,) give one sample; (S, n) a batch of S samples (vectorized).
    Returns (3, 9) or (S, 3, 9).
    """
    (q, qd, qdd), single = _states(q, qd, qdd)
    cos, sin, sign, tanh, exp = _SCALAR if single else _ARRAY
    c1, s1 = cos(q[0]), sin(q[0])
    c2, s2 = cos(q[1]), sin(q[1])
    c3, s3 = cos(q[2]), sin(q[2])
    t1 = 9.81*s1
    t2 = qdd[0] + 9.81*c1
    t3 = s2*qd[0]
    t4 = c2*qd[0]
    t5 = 1.0 + c2
    t6 = qd[0] + qd[1]
    t7 = qd[1] + qd[0] + t4
    t8 = qdd[0] + qdd[1]
    t9 = c2*t1 + s2*t2 + qd[1]*t4
    t10 = qdd[1] + qdd[0] + c2*t2 - s2*t1 - qd[1]*t3
    t11 = t9 - t6*t7
    t12 = t10 + t3*t6
    t13 = t6*t6
    t14 = c3*t3 + s3*t7
    t15 = c3*t7 - s3*t3
    t16 = c3*s2 + s3*t5
    t17 = 1.0 + c3*t5 - s2*s3
    t18 = 1.0 + c3
    t19 = qd[2] + t6
    t20 = qdd[2] + t8
    t21 = c3*t9 + s3*t10 + qd[2]*t15 - t19*(qd[2] + t6 + t15)
    t22 = qdd[2] + t8 + c3*t10 - s3*t9 - qd[2]*t14 + t14*t19
    t23 = t19*t19
    out = _output(single, q, (3, 9))
    out[0, 0] = qdd[0]
    out[0, 1] = qdd[0] + t2
    out[0, 2] = -t1
    out[0, 3] = t8
    out[0, 4] = t12 - s2*t13 + t5*t8
    out[0, 5] = -(t11 + s2*t8 + t5*t13)
    out[1, 3] = t8
    out[1, 4] = t8 + t12
    out[1, 5] = -(t11 + t13)
    out[0, 6] = t20
    out[0, 7] = t22 - t16*t23 + t17*t20
    out[0, 8] = -(t21 + t16*t20 + t17*t23)
    out[1, 6] = t20
    out[1, 7] = t22 - s3*t23 + t18*t20
    out[1, 8] = -(t21 + s3*t20 + t18*t23)
    out[2, 6] = t20
    out[2, 7] = t20 + t22
    out[2, 8] = -(t21 + t23)
    return out if single else out.transpose(2, 0, 1)
