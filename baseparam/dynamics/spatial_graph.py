"""Spatial inertias on expression-graph values: the articulated-body algorithm's 6×6 algebra.

Spatial vectors are angular first, ``[ω; v]`` for motions and ``[n; f]`` for forces, as in
:mod:`baseparam.dynamics.regressor_graph` (whose :func:`~.regressor_graph.carry` and
:func:`~.regressor_graph.carry_back` move them through a joint step). A spatial inertia is a symmetric 6×6
nested list ``I = [[A, B], [Bᵀ, C]]`` (A, C symmetric 3×3) whose mirrored entries are the same node, so a value is
computed once.

Moving an inertia back through a step (child frame → parent frame, ``I_p = Xᵀ I X`` with X the
step's motion transform) is done the way the step is built — a rotation in one coordinate plane,
then a shift P — with formulas that use the rotation's c², s², c·s once per angle (hash-consing
shares them) and let the joint model's exact 0 and ±1 fold away:

* rotation: every 3×3 block becomes ``R M Rᵀ``, which for a plane rotation touches 5 of 6 entries
  of a symmetric block (8 multiplications) and keeps the trace;
* shift: ``A ← A + [P]×Bᵀ − (B + [P]×C)[P]×``, ``B ← B + [P]×C``, C unchanged.
"""
from __future__ import annotations

from .regressor_graph import cross


def rigid_inertia(g, m, h, inertia):
    """The spatial inertia of a rigid body at its frame origin: ``[[Ī, [h]×], [[h]×ᵀ, m·1]]``.

    Parameters
    ----------
    m : Expr
    h : list of 3 Expr
        First moments (mass × centre of mass).
    inertia : list of 6 Expr
        Ī about the frame origin: xx, xy, xz, yy, yz, zz (tensor entries).
    """
    zero = g.zero
    xx, xy, xz, yy, yz, zz = inertia
    A = [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
    B = skew(g, h)
    C = [[m, zero, zero], [zero, m, zero], [zero, zero, m]]
    return assemble(A, B, C)


def skew(g, x):
    """[x]× as a 3×3 nested list (zeros are the graph's zero)."""
    zero = g.zero
    return [[zero, -x[2], x[1]], [x[2], zero, -x[0]], [-x[1], x[0], zero]]


def assemble(A, B, C):
    """The symmetric 6×6 ``[[A, B], [Bᵀ, C]]`` of blocks A (3×3 symmetric), B (3×3) and C (3×3 symmetric)."""
    return symmetric(lambda i, j: A[i][j] if j < 3 else B[i][j - 3] if i < 3 else C[i - 3][j - 3])


def symmetric(entry, n=6):
    """The symmetric n×n nested list of ``entry(i, j)`` for i ≤ j, each mirrored entry the same node."""
    out = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            out[i][j] = out[j][i] = entry(i, j)
    return out


def split(I):
    """(A, B, C), the blocks of a symmetric 6×6."""
    return ([[I[i][j] for j in range(3)] for i in range(3)], [[I[i][3 + j] for j in range(3)] for i in range(3)],
            [[I[3 + i][3 + j] for j in range(3)] for i in range(3)])


def matvec(I, x):
    """I x for a 6×6 nested list and a 6-list."""
    zero = x[0] * 0.0
    return [sum((I[i][j] * x[j] for j in range(6)), zero) for i in range(6)]


def force_cross(v, f):
    """v ×* f = [ω × n + v × f; ω × f] (spatial force cross product)."""
    w, lin, n, force = v[:3], v[3:], f[:3], f[3:]
    return [a + b for a, b in zip(cross(w, n), cross(lin, force))] + cross(w, force)


def _trig(turn):
    i, j, c, s = turn
    return i, j, 3 - i - j, c, s, c * c, s * s, c * s


def _rotate_symmetric(M, turn):
    """R M Rᵀ of a symmetric 3×3, R turning the plane (i, j) (trace kept: M'jj = tr − M'ii)."""
    i, j, a, c, s, cc, ss, cs = _trig(turn)
    out = [row[:] for row in M]
    u = M[i][i] - M[j][j]
    mii = M[i][i] - ss * u - (cs + cs) * M[i][j]
    out[i][i], out[j][j] = mii, (M[i][i] + M[j][j]) - mii
    out[i][j] = out[j][i] = cs * u + (cc - ss) * M[i][j]
    out[a][i] = out[i][a] = c * M[a][i] - s * M[a][j]
    out[a][j] = out[j][a] = s * M[a][i] + c * M[a][j]
    return out


def _rotate_general(M, turn):
    """R M Rᵀ of a general 3×3, R turning the plane (i, j)."""
    i, j, a, c, s, cc, ss, cs = _trig(turn)
    out = [row[:] for row in M]
    u, w = M[i][i] - M[j][j], M[i][j] + M[j][i]
    mii = M[i][i] - ss * u - cs * w
    out[i][i], out[j][j] = mii, (M[i][i] + M[j][j]) - mii
    if cs.is_zero:            # a quarter or half turn: the direct form folds to a swap
        out[i][j] = cc * M[i][j] - ss * M[j][i]
        out[j][i] = cc * M[j][i] - ss * M[i][j]
    else:                     # cc·M_ij − ss·M_ji = ½(cc − ss)(M_ij + M_ji) + ½(M_ij − M_ji), since cc + ss = 1
        t, z = cs * u + ((cc - ss) * 0.5) * w, (M[i][j] - M[j][i]) * 0.5
        out[i][j], out[j][i] = t + z, t - z
    out[a][i], out[a][j] = c * M[a][i] - s * M[a][j], s * M[a][i] + c * M[a][j]
    out[i][a], out[j][a] = c * M[i][a] - s * M[j][a], s * M[i][a] + c * M[j][a]
    return out


def _shift(g, A, B, C, P):
    """Xᵀ I X for X: (ω, v) ↦ (ω, v + ω × P), in blocks."""
    zero = g.zero
    if all(p.is_zero for p in P):
        return A, B, C
    S = skew(g, P)
    E = [[B[i][j] + sum((S[i][k] * C[k][j] for k in range(3)), zero) for j in range(3)] for i in range(3)]
    return symmetric(lambda i, j: (A[i][j] + sum((S[i][k] * B[j][k] for k in range(3)), zero)
                                   - sum((E[i][k] * S[k][j] for k in range(3)), zero)), 3), E, C


def inertia_back(g, step, I):
    """A spatial inertia from the frame after a joint step to the frame before it (``Xᵀ I X``).

    Parameters
    ----------
    step : JointStep
        Of :func:`baseparam.dynamics.regressor_graph.graph_step` (its ``turn`` and ``shift``).
    I : 6×6 nested list (symmetric)
    """
    A, B, C = split(I)
    if step.turn is not None:
        A, B, C = (_rotate_symmetric(A, step.turn), _rotate_general(B, step.turn),
                   _rotate_symmetric(C, step.turn))
    return assemble(*_shift(g, A, B, C, step.shift))


def solve_symmetric(g, M, b):
    """x with M x = b for a symmetric positive definite n×n nested list, by LDLᵀ (n divisions).

    For the floating base's 6×6 articulated inertia.
    """
    n = len(b)
    zero = g.zero
    L = [[zero] * n for _ in range(n)]
    inv_d = [None] * n
    LD = [[zero] * n for _ in range(n)]            # L[i][k]·D[k]
    for j in range(n):
        d = M[j][j] - sum((L[j][k] * LD[j][k] for k in range(j)), zero)
        inv_d[j] = 1.0 / d
        for i in range(j + 1, n):
            LD[i][j] = M[i][j] - sum((L[i][k] * LD[j][k] for k in range(j)), zero)
            L[i][j] = LD[i][j] * inv_d[j]
    y = [None] * n
    for i in range(n):
        y[i] = b[i] - sum((L[i][k] * y[k] for k in range(i)), zero)
    x = [None] * n
    for i in reversed(range(n)):
        x[i] = y[i] * inv_d[i] - sum((L[k][i] * x[k] for k in range(i + 1, n)), zero)
    return x
