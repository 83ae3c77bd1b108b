"""Forward-recursive projection of the Lagrangian's influence coefficients (paper eqs. 1–19).

Notation (standard DH; modified DH differs only in Ã, B̃, see :mod:`baseparam.projection._joint_basis`):
``T_k = A_1 ⋯ A_k``, ``U_ki = ∂T_k/∂q_i``, ``Û_kji = U_kjᵀ U_ki`` (j ≤ i ≤ k). The kinetic energy of
link k is ``½ Σ_ij q̇_i q̇_j tr(Û_kji H_k)``, so the coordinates of its influence coefficients in the
basis β are the traces of the coefficient matrices of Û_kji.

Every quantity is a *coefficient polynomial*: a sparse map from a multi-index (l_1 … l_N), packed
into one base-5 integer key, to a 4×4 coefficient matrix. Only non-zero matrices are stored.

The forward recursion adds one joint at a time by a *sandwich* ``X ↦ Lᵀ X R`` with L, R linear in
the new joint's basis X_k; the products x^a x^b are re-expressed in Y_k by the γ rules (sin² = 1 −
cos²). Because the sandwich is linear in X, it is a single 16 × (5·16) matrix applied to all terms
at once — one BLAS product per step.

Two facts keep the polynomials small (both follow from ∂A/∂q having a zero last row, so only the
rotation part of T_{j−1} survives in U_kjᵀ U_ki and RᵀR = 1):

* Û_kji depends on joints j … k only, so the recursion runs per *chain start* j and never carries
  joints before j;
* it needs, besides Û, only ``W_kj = U_kjᵀ T_k P`` with P = diag(1, 1, 1, 0):
  ``W_kj = A_kᵀ W_(k−1)j (A_k P)``, ``Û_kjk = A_kᵀ W_(k−1)j B_k``, ``Û_kji = A_kᵀ Û_(k−1)ji A_k``,
  starting from ``Û_jjj = B_jᵀ B_j`` and ``W_jj = B_jᵀ (A_j P)`` (B = ∂A/∂q).

The sandwiches serve two recursions: :mod:`baseparam.projection._row_space` applies them to spans and
second moments (at most 16 vectors a joint: the base set), and :func:`row_starts` /
:func:`potential_starts` to every term, depth first and a bounded piece at a time (the whole Z, for
``find --h5``, whose size grows as 5^N).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

RADIX = 5  # |Y_k| for a revolute joint; prismatic joints use the first 3 digits
FLOAT_KEEP = 1e-13   # normalized units: far above round-off, far below any real coefficient
CHUNK_TERMS = 200_000  # input terms per dense product in `apply` (≈ 130 MB of temporaries)
P_MASK = np.diag([1.0, 1.0, 1.0, 0.0])

# Products x^a x^b of the joint basis X re-expressed in Y (index: [(target, sign), ...]).
# Revolute X = (1, c, s), Y = (1, c, s, c², s·c); prismatic X = (1, q), Y = (1, q, q²).
PRODUCTS = {
    "revolute": {(0, 0): [(0, 1)], (0, 1): [(1, 1)], (1, 0): [(1, 1)], (0, 2): [(2, 1)], (2, 0): [(2, 1)],
                 (1, 1): [(3, 1)], (2, 2): [(0, 1), (3, -1)], (1, 2): [(4, 1)], (2, 1): [(4, 1)]},
    "prismatic": {(0, 0): [(0, 1)], (0, 1): [(1, 1)], (1, 0): [(1, 1)], (1, 1): [(2, 1)]},
}

# tr(X · E_l) for the 10 pseudo-inertia entries (XX YY ZZ XY XZ YZ SX SY SZ M) of a symmetric H:
# a linear map from the 16 row-major entries of X to 10 numbers.
TRACE_MAP = np.zeros((16, 10))
for _l, _pairs in enumerate([[(0, 0)], [(1, 1)], [(2, 2)], [(0, 1), (1, 0)], [(0, 2), (2, 0)], [(1, 2), (2, 1)],
                             [(0, 3), (3, 0)], [(1, 3), (3, 1)], [(2, 3), (3, 2)], [(3, 3)]]):
    for _r, _c in _pairs:
        TRACE_MAP[4 * _r + _c, _l] += 1.0


def _rule_stages(products):
    """The γ rules of :data:`PRODUCTS` as stages of (targets, a, b, signs) index arrays, each stage adding at most
    one product to a target, in the rules' order: stage s holds every target's s-th product."""
    stages = []
    for (a, b), rules in products.items():
        for t, sign in rules:
            depth = sum(t in stage[0] for stage in stages)
            if depth == len(stages):
                stages.append(([], [], [], []))
            for column, value in zip(stages[depth], (t, a, b, sign)):
                column.append(value)
    return [tuple(np.array(column) for column in stage) for stage in stages]


_STAGES = {joint_type: _rule_stages(products) for joint_type, products in PRODUCTS.items()}


def _sandwiches_blocks(left, right, joint_type):
    """K[t] (16×16) of ``X ↦ Σ_{(a,b)→t} sign · L_aᵀ X R_b`` for each Y-basis target t, of several (L, R) pairs at
    once: ``left``, ``right`` of shape (n_pairs, m, 4, 4) give K of shape (n_pairs, RADIX, 16, 16), K[n, t] that of
    pair n."""
    # vec(L_aᵀ X R_b)[i, j] = Σ_pq L_a[p, i] X[p, q] R_b[q, j]: the products L_a[p, i] R_b[q, j] of every pair and
    # (a, b) in one broadcast product, indexed (pair, a, b, p, q, i, j)
    products = left[:, :, None, :, None, :, None] * right[:, None, :, None, :, None, :]
    n = left.shape[0]
    K = np.zeros((n, RADIX, 16, 16), dtype=left.dtype)
    # a target's products added one at a time, in the rules' order (0 + first + second: the same sums to the bit)
    for targets, a, b, signs in _STAGES[joint_type]:
        K[:, targets] = K[:, targets] + signs[:, None, None] * products[:, a, b].reshape(n, -1, 16, 16)
    return K


@dataclass(frozen=True)
class Sandwich:
    """The linear map ``X ↦ Σ_ab sign · L_aᵀ X R_b`` into the Y basis of one joint.

    Attributes
    ----------
    matrix : ndarray, shape (16, n_targets * 16)
        Acts on row-major flattened 4×4 float coefficients (right multiplication).
    targets : ndarray, shape (n_targets,)
        The Y-basis index of each output block (blocks that are identically zero are dropped).
    modular : ndarray or None, shape (16, n_targets * 16)
        The same map modulo ``modulus`` (entries in [0, modulus)), when the engine also runs
        exactly modulo a prime to decide which coefficients vanish.
    modulus : int or None
    """

    matrix: np.ndarray
    targets: np.ndarray
    modular: Optional[np.ndarray] = None
    modulus: Optional[int] = None

    @classmethod
    def build(cls, left, right, joint_type, mod_left=None, mod_right=None, modulus=None):
        modular = None if modulus is None else [(mod_left, mod_right)]
        return cls.build_all([(left, right)], joint_type, modular, modulus)[0]

    @classmethod
    def build_all(cls, pairs, joint_type, mod_pairs=None, modulus=None):
        """The sandwiches of several (L, R) pairs of one joint (``mod_pairs``: the same modulo ``modulus``), as
        :meth:`build` makes each, computed together (a joint's five: one broadcast product, not 45 small ones)."""
        K = _sandwiches_blocks(*(np.stack(side) for side in zip(*pairs)), joint_type)
        if modulus is None:
            keep = np.abs(K).reshape(len(pairs), RADIX, -1).max(axis=2) > 0
            return [cls(_flat(k[np.flatnonzero(w)]), np.flatnonzero(w)) for k, w in zip(K, keep)]
        # Exact zeros come from the modular map (the float one only has round-off there).
        # Python integers (object arrays), reduced exactly and then exact in float64 (< 2**23); in int64
        # when they are small enough that every sum of the map stays exact there (the same residues)
        Km = (_sandwiches_blocks(*_small_integers(*(np.stack(side) for side in zip(*mod_pairs))), joint_type)
              % modulus).astype(float)
        keep = Km.reshape(len(pairs), RADIX, -1).max(axis=2) > 0
        out = []
        for k, km, w in zip(K, Km, keep):
            where = np.flatnonzero(w)
            out.append(cls(_flat(k[where]), where, _flat(km[where]), modulus))
        return out


def _small_integers(left, right):
    """The integer matrices in int64 when below 2**28 in magnitude (the sums of at most two products of
    their entries that :func:`_sandwiches_blocks` forms stay below 2**57), else as they are (Python integers)."""
    if all(np.abs(M).max(initial=0) < 2 ** 28 for M in (left, right)):
        return left.astype(np.int64), right.astype(np.int64)
    return left, right


def _flat(K):
    return np.ascontiguousarray(K.transpose(1, 0, 2).reshape(16, -1), dtype=float)


class JointOperators:
    """Coefficient matrices of one joint and the five sandwiches the recursion applies.

    Parameters
    ----------
    joint_type : {'revolute', 'prismatic'}
    A, B : ndarray, shape (m, 4, 4)
        Coefficients of A_k and ∂A_k/∂q_k over X_k.
    mod_A, mod_B : ndarray of Python int, shape (m, 4, 4), optional
        The same modulo ``modulus`` (for a rational robot close to the float one).
    """

    def __init__(self, joint_type, A, B, mod_A=None, mod_B=None, modulus=None):
        self.joint_type, self.A, self.B, self.modulus = joint_type, A, B, modulus
        if modulus is not None and not all(isinstance(v, int) for v in np.concatenate([mod_A.ravel(), mod_B.ravel()])):
            raise TypeError("modular coefficient matrices must hold Python integers (a float crept in)")
        self.mod_A = None if modulus is None else (mod_A % modulus).astype(float)
        P = P_MASK if modulus is None else P_MASK.astype(int).astype(object)
        AP, mAP = A @ P_MASK, (None if modulus is None else mod_A @ P)
        # Û_kji ← Aᵀ Û_(k−1)ji A; Û_kjk ← Aᵀ W_(k−1)j B; W_kj ← Aᵀ W_(k−1)j (AP); Û_jjj = Bᵀ B; W_jj = Bᵀ (AP)
        pairs = [(A, A), (A, B), (A, AP), (B, B), (B, AP)]
        mod_pairs = None if modulus is None else [(mod_A, mod_A), (mod_A, mod_B), (mod_A, mAP), (mod_B, mod_B),
                                                  (mod_B, mAP)]
        (self.conjugate, self.open_pair, self.carry, self.start_hat,
         self.start_carry) = Sandwich.build_all(pairs, joint_type, mod_pairs, modulus)


def kept(values, mod_values, tol, axis=None):
    """Which coefficients (entries, or terms when ``axis`` reduces a term's entries) to keep.

    Float-only runs keep what exceeds ``tol``. Runs with a modular companion keep what is non-zero
    modulo the prime, and also what is clearly non-zero in float: the prime may be unlucky there,
    and the float residuals of the reduction must be able to notice it.
    """
    big = np.abs(values) if axis is None else np.abs(values).max(axis=axis)
    if mod_values is None:
        return big > tol
    nonzero = mod_values != 0 if axis is None else mod_values.any(axis=axis)
    return nonzero | (big > FLOAT_KEEP)


def apply(op: Sandwich, keys, coefs, mcoefs, digit_weight, tol):
    """Apply a sandwich to every term of a coefficient polynomial.

    Parameters
    ----------
    keys : ndarray, shape (n,), int64
        Packed multi-indices (the new joint's digit is 0 in all of them).
    coefs : ndarray, shape (n, 16)
    mcoefs : ndarray, shape (n, 16), or None
        The same coefficients modulo ``op.modulus``; when given, a term is dropped exactly when
        it vanishes modulo the prime and is round-off in float (|entries| ≤ FLOAT_KEEP).
    digit_weight : int
        RADIX ** (new joint's 0-based index).
    tol : float
        Without ``mcoefs``: coefficients with every |entry| <= tol are dropped (0 when exact).

    Returns
    -------
    keys : ndarray, shape (n',)
    coefs : ndarray, shape (n', 16)
    mcoefs : ndarray, shape (n', 16), or None
    origin : ndarray, shape (n',)
        Index of the input term each output term came from (to carry tags along).
    """
    n, nt = coefs.shape[0], op.targets.size
    if n > CHUNK_TERMS:      # bound the temporaries: a dense (n, nt, 16) product per chunk only
        parts = [apply(op, keys[s:s + CHUNK_TERMS], coefs[s:s + CHUNK_TERMS],
                       None if mcoefs is None else mcoefs[s:s + CHUNK_TERMS], digit_weight, tol)
                 for s in range(0, n, CHUNK_TERMS)]
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                None if mcoefs is None else np.concatenate([p[2] for p in parts]),
                np.concatenate([p[3] + s for p, s in zip(parts, range(0, n, CHUNK_TERMS))]))
    out = (coefs @ op.matrix).reshape(n, nt, 16)
    # 16-term sums of products below modulus² stay exact in float64 (modulus < 2**24).
    mout = None if mcoefs is None else np.fmod(mcoefs @ op.modular, op.modulus).reshape(n, nt, 16)
    rows, blocks = np.nonzero(kept(out, mout, tol, axis=2))
    if mout is not None:
        mout = mout[rows, blocks]
    return keys[rows] + op.targets[blocks] * digit_weight, out[rows, blocks], mout, rows


def constant_sandwich(op: Sandwich, digit_weight, tol):
    """The sandwich of the constant polynomial X = 1 (identity matrix)."""
    eye = np.eye(4).reshape(1, 16)
    return apply(op, np.zeros(1, dtype=np.int64), eye, None if op.modular is None else eye, digit_weight, tol)


def _children(parents):
    children = {k: [] for k in range(-1, len(parents))}
    for k, p in enumerate(parents):
        children[p].append(k)
    return children


def _pieces(arrays, size):
    """The rows of parallel arrays (None passes through) in consecutive pieces of at most ``size``."""
    n = arrays[0].shape[0]
    for s in range(0, n, max(1, size)) if n else ():
        yield tuple(None if a is None else a[s:s + max(1, size)] for a in arrays)


def row_starts(ops, start, tol, parents, piece=CHUNK_TERMS):
    """Terms of Û_kji that start a row of Z, for one chain start j: depth first, in bounded pieces.

    A term starts a row at joint k when it was opened or started there, or its digit at k is not the
    constant 1; the rest of the row (the same term carried down with the constant basis function) is
    :class:`~baseparam.projection._coordinates.RowMaps`' business. Terms evolve independently (distinct
    keys never merge), so the recursion may take them a piece at a time: it holds at most ``piece``
    terms per joint of the current path, whatever the size of a step.

    Parameters
    ----------
    ops : sequence of JointOperators
    start : int
        0-based chain start j.
    parents : sequence of int
        0-based parent of each joint (−1 for the base). In a tree the velocity
        products q̇_i q̇_j only pair joints on a common path, which is what recursing over j's subtree gives.
    piece : int
        Most input terms per sandwich application.

    Yields
    ------
    k : int
        0-based joint where the terms start their rows.
    keys : ndarray, shape (n,)
    pair_i : ndarray, shape (n,)
        0-based i of each term.
    coefs : ndarray, shape (n, 16)
        Coefficient matrices of Û_kji (row-major).
    mcoefs : ndarray, shape (n, 16), or None
        The same modulo the operators' prime.
    """
    children = _children(parents)
    w = RADIX ** start
    keys, coefs, mcoefs, _ = constant_sandwich(ops[start].start_hat, w, tol)
    pair = np.full(keys.shape, start, dtype=np.int64)
    yield start, keys, pair, coefs, mcoefs
    carries = constant_sandwich(ops[start].start_carry, w, tol)[:3] if children[start] else None
    yield from _starts_below(ops, start, (keys, pair, coefs, mcoefs), carries, children, tol, piece)


def _starts_below(ops, node, hats, carries, children, tol, piece):
    for c in children[node]:
        op, w = ops[c], RADIX ** c
        for keys, pair, coefs, mcoefs in _pieces(hats, piece):
            keys, coefs, mcoefs, origin = apply(op.conjugate, keys, coefs, mcoefs, w, tol)
            pair = pair[origin]
            new = (keys // w) % RADIX != 0
            yield c, keys[new], pair[new], coefs[new], None if mcoefs is None else mcoefs[new]
            if children[c]:
                yield from _starts_below(ops, c, (keys, pair, coefs, mcoefs), None, children, tol, piece)
        if carries is None:
            continue
        for wkeys, wcoefs, wmcoefs in _pieces(carries, piece):
            keys, coefs, mcoefs, _ = apply(op.open_pair, wkeys, wcoefs, wmcoefs, w, tol)
            pair = np.full(keys.shape, c, dtype=np.int64)
            yield c, keys, pair, coefs, mcoefs
            if children[c]:
                below = apply(op.carry, wkeys, wcoefs, wmcoefs, w, tol)[:3]
                yield from _starts_below(ops, c, (keys, pair, coefs, mcoefs), below, children, tol, piece)


def potential_starts(ops, gravity, tol, parents, mod_gravity=None, piece=CHUNK_TERMS):
    """Potential terms that start a row of Z: depth first, in bounded pieces.

    ``−Π = Σ_k [gᵀ 0] T_k [SX SY SZ M]ᵀ``, so the coordinates are the coefficient row vectors of
    ``r_k = r_parent(k) A_k`` (r_base = [gᵀ 0]) over the X_m of k's path; a term starts its row at the
    joint whose digit is its last one that is not the constant 1 (the constant row itself, all digits
    1, is not a row: a constant in L does not enter the dynamics).

    Parameters
    ----------
    mod_gravity : sequence of 3 int, optional
        Gravity modulo the operators' prime (then exact zeros decide which terms are kept).

    Yields
    ------
    k : int
    keys : ndarray, shape (n,)
    coefs : ndarray, shape (n, 4)
    mcoefs : ndarray, shape (n, 4), or None
    """
    g = np.append(np.asarray(gravity, dtype=float), 0.0)[None, :]
    gm = None if mod_gravity is None else np.append(np.asarray(mod_gravity, dtype=float), 0.0)[None, :]
    yield from _potential_below(ops, -1, (np.zeros(1, dtype=np.int64), g, gm), _children(parents), tol, piece)


def _potential_below(ops, node, terms, children, tol, piece):
    for c in children[node]:
        op = ops[c]
        for keys, rows, mrows in _pieces(terms, piece):
            out = np.einsum("np,lpq->nlq", rows, op.A)
            mout = None if mrows is None else np.fmod(np.einsum("np,lpq->nlq", mrows, op.mod_A), op.modulus)
            r, l = np.nonzero(kept(out, mout, tol, axis=2))
            keys, rows, mrows = keys[r] + l * RADIX ** c, out[r, l], None if mout is None else mout[r, l]
            new = l != 0
            yield c, keys[new], rows[new], None if mrows is None else mrows[new]
            if children[c]:
                yield from _potential_below(ops, c, (keys, rows, mrows), children, tol, piece)
