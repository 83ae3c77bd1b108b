"""Rows of the coordinate matrix Z: the map from a coefficient to the row it starts (:class:`RowMaps`,
docs/method.md section 6), and the whole Z block by block (for ``find --h5``) in bounded memory.

Row labels as in docs/formats.md, "Coordinate matrix Z"; friction columns (not part of the Lagrangian)
get rows of their own: i = −1, j = joint, l_1 = 1 (FV), 2 (FC), 3 (FO), 4 (FS). Every row is complete
the moment its term appears, so Z can be written in pieces of any size.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ._projections import RADIX, TRACE_MAP, _children, kept, potential_starts, row_starts
from ._sparse import CSR, joined

FRICTION_KINDS = {"FV": 1, "FC": 2, "FO": 3, "FS": 4}
BLOCK_ENTRIES = 2_000_000     # Z entries collected before a block is written (≈ 0.25 GB while assembled)
PIECE = 20_000                # terms per sandwich application in the whole-Z recursion (≈ 30 MB per joint of its path)


@dataclass(frozen=True)
class ZBlock:
    """A horizontal slice of Z (pseudo-inertia columns).

    Attributes
    ----------
    labels : ndarray, shape (n_rows, 2 + n_dof), int64
    matrix : CSR, shape (n_rows, n_standard)
        (:class:`baseparam.projection._sparse.CSR`: numpy only, to keep scipy out of start-up.)
    modular : CSR or None
        The same rows modulo the engine's prime (same sparsity pattern; float entries in [0, p)).
    """

    labels: np.ndarray
    matrix: CSR
    modular: Optional[CSR] = None


class RowMaps:
    """The row of Z that a coefficient at joint m starts, as a matrix: row = coefficient @ L_m.

    L_m = E_m + Σ_c K0_c L_c over m's children c (E_m: the 10 traces tr(X·E_l) into link m's columns;
    K0_c: child c's conjugation block for the constant basis function), and for the potential
    P_m = F_m + Σ_c Ã_c^0 P_c (F_m: the row vector into link m's SX, SY, SZ, M). Only the columns of
    the links below m can be non-zero, so each map keeps those.

    Parameters
    ----------
    units : WorkingUnits
    layout : ColumnLayout
    parents : sequence of int
    """

    def __init__(self, units, layout, parents):
        self.modulus = units.modulus
        children = _children(parents)
        n = len(parents)
        self.columns = [None] * n
        self.kinetic, self.potential = [None] * n, [None] * n      # (float, modular or None) per joint
        for m in range(n - 1, -1, -1):       # children come after their parents
            self.columns[m] = np.sort(np.concatenate([layout.link_columns[m]] + [self.columns[c] for c in children[m]]))
            ops = [units.ops[c] for c in children[m]]
            self.kinetic[m] = self._map(m, TRACE_MAP, layout.link_columns[m], children[m], self.kinetic,
                                        [_constant_block(op) for op in ops])
            self.potential[m] = self._map(m, np.eye(4), layout.link_columns[m][6:], children[m], self.potential,
                                          [(op.A[0], None if op.mod_A is None else op.mod_A[0]) for op in ops])

    def _map(self, m, own, own_columns, children, maps, carries):
        """``own`` into the joint's own columns, and each child's map carried up by its block."""
        cols = self.columns[m]
        full = np.zeros((own.shape[0], cols.size))
        full[:, np.searchsorted(cols, own_columns)] = own
        images = None if self.modulus is None else full.copy()
        for c, (K, mK) in zip(children, carries):
            if K is None:          # the constant basis function does not survive this joint
                continue
            where = np.searchsorted(cols, self.columns[c])
            L, mL = maps[c]
            full[:, where] = K @ L
            if images is not None:    # 16-term sums of products below p²: exact in float64
                images[:, where] = np.fmod(mK @ mL, self.modulus)
        return full, images

    def rows(self, m, values, images, potential=False):
        """Z's entries of the rows started at joint m by these coefficients: (columns, values, images).

        Parameters
        ----------
        values : ndarray, shape (n, 16) (kinetic) or (n, 4) (potential)
        images : ndarray or None
            The same modulo the run's prime.

        Returns
        -------
        columns : ndarray, shape (c,)
        values : ndarray, shape (n, c)
        images : ndarray, shape (n, c), or None
        """
        L, mL = (self.potential if potential else self.kinetic)[m]
        out = values @ L
        mout = None if images is None else np.fmod(images @ mL, self.modulus)
        return self.columns[m], out, mout

    def bound(self, m, values, potential=False):
        """Largest partial sum of ``values @ L_m`` in magnitude (exact runs are exact below 2**53)."""
        L = (self.potential if potential else self.kinetic)[m][0]
        return float((np.abs(values) @ np.abs(L)).max(initial=0.0))


def _constant_block(op):
    """A joint's conjugation block for the constant basis function (K0) and its image, or (None, None)."""
    conj = op.conjugate
    t0 = np.flatnonzero(conj.targets == 0)
    if t0.size == 0:
        return None, None
    cols = slice(16 * int(t0[0]), 16 * int(t0[0]) + 16)
    return conj.matrix[:, cols], (None if conj.modular is None else conj.modular[:, cols])


class _Triplets:
    """COO triplets of one block, filtered as they come (see :func:`._projections.kept`)."""

    def __init__(self, units):
        self.tol, self.modulus = units.tol, units.modulus
        self.codes, self.cols, self.vals, self.mvals, self.count = [], [], [], [], 0

    def add(self, codes, cols, vals, mvals=None):
        keep = kept(vals, mvals, self.tol)
        self.count += int(keep.sum())
        self.codes.append(codes[keep])
        self.cols.append(cols[keep])
        self.vals.append(vals[keep])
        if self.modulus is not None:
            self.mvals.append(mvals[keep])

    def block(self, n_cols, n_dof, start=None):
        """The :class:`ZBlock` of these triplets: rows (i, j = start + 1, ·) of a chain start, whose row codes are
        (i − 1)·5^N + key, or (``start`` None) potential rows (0, 0, ·), whose codes are the keys."""
        cols = joined(self.cols, np.int64)
        unique, inverse = np.unique(joined(self.codes, np.int64), return_inverse=True)
        shape = (unique.size, n_cols)
        m = CSR.from_coo(joined(self.vals), inverse.ravel(), cols, shape)
        mm = None if self.modulus is None else CSR.from_coo(joined(self.mvals), inverse.ravel(), cols, shape)
        if start is None:
            i = j = np.zeros_like(unique)
            keys = unique
        else:
            i, keys = divmod(unique, RADIX ** n_dof)
            i, j = i + 1, np.full_like(i, start + 1)
        digits = (keys[:, None] // RADIX ** np.arange(n_dof)) % RADIX + 1
        return ZBlock(np.column_stack([i, j, digits]).astype(np.int64), m, mm)


def _add_rows(triplets, units, maps, stats, k, codes, coefs, mcoefs, potential=False):
    """The rows these coefficients start at joint k (row codes ``codes``), in pieces of bounded size."""
    size = max(1, BLOCK_ENTRIES // (4 * maps.columns[k].size))
    for s in range(0, coefs.shape[0], size):
        values, images = coefs[s:s + size], None if mcoefs is None else mcoefs[s:s + size]
        if units.exact and values.size:   # only exact runs can overflow
            stats.observe(values)
            stats.observe_bound(maps.bound(k, values, potential))
        columns, vals, mvals = maps.rows(k, values, images, potential)     # whole rows: vals[r] for codes[s + r]
        triplets.add(np.repeat(codes[s:s + size], columns.size), np.tile(columns, len(vals)), vals.ravel(),
                     None if mvals is None else mvals.ravel())


def kinetic_blocks(units, layout, maps, start, n_dof, stats, parents, piece=PIECE):
    """Rows (i, j = start + 1, ·) of Z, from the depth-first recursion of one chain start, in blocks of
    at most about BLOCK_ENTRIES entries (each row complete in one block).

    Yields
    ------
    ZBlock
    """
    span = RADIX ** n_dof
    triplets = _Triplets(units)
    if start in layout.rotor_columns:   # ½ IA_j q̇_j²: a single 1 in row (j, j, 1 … 1)
        one = np.array([1.0])
        triplets.add(np.array([start * span]), np.array([layout.rotor_columns[start]]), one, one)
    for k, keys, pair_i, coefs, mcoefs in row_starts(units.ops, start, units.tol, parents, piece):
        _add_rows(triplets, units, maps, stats, k, pair_i * span + keys, coefs, mcoefs)
        if triplets.count >= BLOCK_ENTRIES:
            yield triplets.block(layout.n_standard, n_dof, start)
            triplets = _Triplets(units)
    if triplets.count or triplets.codes:
        yield triplets.block(layout.n_standard, n_dof, start)


def potential_blocks(units, layout, maps, n_dof, stats, parents, piece=PIECE):
    """Rows (0, 0, ·) of Z in blocks; the constant row is not one (a constant in L does not enter the
    dynamics).

    Yields
    ------
    ZBlock
    """
    triplets = _Triplets(units)
    for k, keys, coefs, mcoefs in potential_starts(units.ops, units.gravity, units.tol, parents, units.mod_gravity,
                                                   piece):
        _add_rows(triplets, units, maps, stats, k, keys, coefs, mcoefs, potential=True)
        if triplets.count >= BLOCK_ENTRIES:
            yield triplets.block(layout.n_standard, n_dof)
            triplets = _Triplets(units)
    yield triplets.block(layout.n_standard, n_dof)


def friction_block(layout, n_dof):
    """One identity row per friction column: friction forces are independent of everything else."""
    items = sorted(layout.friction_columns.items(), key=lambda kv: kv[1])
    n = len(items)
    labels = np.ones((n, 2 + n_dof), dtype=np.int64)
    for r, ((joint, kind), _) in enumerate(items):
        labels[r, :3] = (-1, joint + 1, FRICTION_KINDS[kind])
    cols = np.array([c for _, c in items], dtype=np.int64)
    m = CSR.from_coo(np.ones(n), np.arange(n), cols, (n, layout.n_standard))
    return ZBlock(labels, m, m)


class MagnitudeStats:
    """Largest |number| seen: exact mode is exact only while it stays below 2**52."""

    def __init__(self):
        self.max_abs = 0.0

    def observe(self, coefs):
        self.max_abs = max(self.max_abs, float(np.abs(coefs).max()))

    def observe_bound(self, bound):
        """A bound on partial sums of a product (its terms' magnitudes summed)."""
        self.max_abs = max(self.max_abs, bound)


def z_blocks(units, layout, n_dof, stats, parents=None, piece=PIECE, progress=None):
    """All blocks of Z in storage order: kinetic (j = 1 … N), potential, friction.

    ``parents`` (0-based, −1 for the base) describes a tree; default: a serial chain. The recursion
    holds at most ``piece`` terms per joint of its current path. ``progress(done, total)`` after each
    chain start.

    Yields
    ------
    ZBlock
    """
    parents = list(range(-1, n_dof - 1)) if parents is None else list(parents)
    maps = RowMaps(units, layout, parents)
    total = n_dof + 1 + bool(layout.friction_columns)
    for start in range(n_dof):
        yield from kinetic_blocks(units, layout, maps, start, n_dof, stats, parents, piece)
        if progress is not None:
            progress(start + 1, total)
    yield from potential_blocks(units, layout, maps, n_dof, stats, parents, piece)
    if layout.friction_columns:
        yield friction_block(layout, n_dof)
    if progress is not None:
        progress(total, total)


__all__ = ["ZBlock", "z_blocks", "MagnitudeStats", "RowMaps"]
