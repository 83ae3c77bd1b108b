"""A joint transform over its joint basis (paper eq. 1): constant coefficient matrices Ã, B̃.

With the joint model ``A(q) = C · M(q + offset) · C′`` (:mod:`baseparam.model.joint_model`) and
the motion written over the joint's basis X = (1, cos q, sin q) (revolute) or (1, q) (prismatic),
``M(q) = Σ_l J̃^l x^l``, so ``A = Σ_l Ã^l x^l`` and ``∂A/∂q = Σ_l B̃^l x^l`` with constant
``Ã^l = C J̃^l M(offset) C′`` — all the projection engine needs, whatever the convention.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..model.joint_model import product

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


def coefficient_matrices(model, length, cos_sin, include_offset=True, dtype=float):
    """Ã^l and B̃^l (coefficients of A and ∂A/∂q over the joint basis X), with C and ``M(offset) · C′``
    evaluated in one arithmetic (``length``, ``cos_sin``, ``dtype``).

    Returns
    -------
    A_coef, B_coef : ndarray, shape (m, 4, 4)
        m = 3 for revolute (1, cos, sin), 2 for prismatic (1, q).
    """
    after = model.after
    if include_offset and model.offset:      # M(q + offset) = M(q) · M(offset): the offset joins C′
        after = (dataclasses.replace(model.motion, variable=False),) + after
    C, Cp = product(model.before, length, cos_sin, dtype), product(after, length, cos_sin, dtype)
    J, dJ = (_RZ, _DRZ) if model.is_revolute else (_TZ, _DTZ)
    if dtype is object:   # exact: the constant 0/±1 patterns as Python integers
        J, dJ = J.astype(int).astype(object), dJ.astype(int).astype(object)
    return C @ J @ Cp, C @ dJ @ Cp
