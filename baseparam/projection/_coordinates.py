"""The coordinate matrix Z, produced block by block (one block per chain start j, then potential
rows, then friction rows) so that it can be streamed to disk and reduced without ever being dense.

Row labels as in docs/formats.md, section "Coordinate matrix Z": (i, j, l_1 … l_N) with i ≥ j ≥ 1
for kinetic rows (velocity product q̇_i q̇_j, or q̇_i²/2 when i = j), i = j = 0 for potential rows,
l_k 1-based into Y_k or X_k.
Friction columns (not part of the Lagrangian) get rows of their own: i = −1, j = joint,
l_1 = 1 (viscous, q̇_j), 2 (Coulomb, sign q̇_j), 3 (offset, 1).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ._projections import RADIX, TRACE_MAP, TermBudgetExceeded, chain_hats, kept, potential_rows
from ._sparse import CSR

FRICTION_KINDS = {"FV": 1, "FC": 2, "FO": 3}
# Z entries a chain start may hold before assembly, per allowed recursion term (≈ 40 bytes each
# including the sort in np.unique): keeps a block's assembly within the recursion's memory budget.
ENTRIES_PER_TERM = 3


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


def _labels(i, j, keys, n_dof):
    digits = (keys[:, None] // RADIX ** np.arange(n_dof)) % RADIX + 1
    return np.column_stack([i, j, digits]).astype(np.int64)


class _Triplets:
    """COO triplets of one block, filtered as they come (see :func:`projections.kept`) and
    bounded in number."""

    def __init__(self, units, max_entries):
        self.tol, self.modulus, self.max_entries = units.tol, units.modulus, max_entries
        self.codes, self.cols, self.vals, self.mvals, self.count = [], [], [], [], 0

    def add(self, codes, cols, vals, mvals=None):
        keep = kept(vals, mvals, self.tol)
        self.count += int(keep.sum())
        if self.max_entries is not None and self.count > self.max_entries:
            raise TermBudgetExceeded(self.count)
        self.codes.append(codes[keep])
        self.cols.append(cols[keep])
        self.vals.append(vals[keep])
        if self.modulus is not None:
            self.mvals.append(mvals[keep])

    def assemble(self, n_cols):
        """(unique row codes, CSR matrix, modular CSR matrix or None)."""
        codes = np.concatenate(self.codes) if self.codes else np.zeros(0, dtype=np.int64)
        cols = np.concatenate(self.cols) if self.cols else np.zeros(0, dtype=np.int64)
        unique, inverse = np.unique(codes, return_inverse=True)
        shape = (unique.size, n_cols)
        m = CSR.from_coo(np.concatenate(self.vals) if self.vals else np.zeros(0), inverse.ravel(), cols, shape)
        mm = None if self.modulus is None else CSR.from_coo(
            np.concatenate(self.mvals) if self.mvals else np.zeros(0), inverse.ravel(), cols, shape)
        return unique, m, mm


def kinetic_block(units, layout, start, n_dof, stats, max_terms=None, parents=None):
    """Rows (i, j = start + 1, ·) of Z from the forward recursion of one chain start."""
    span = RADIX ** n_dof
    triplets = _Triplets(units, None if max_terms is None else ENTRIES_PER_TERM * max_terms)
    for k, keys, pair_i, coefs, mcoefs in chain_hats(units.ops, start, units.tol, max_terms, parents):
        if units.exact and coefs.size:   # only exact runs can overflow
            stats.observe(coefs)
        triplets.add(np.repeat(pair_i * span + keys, 10), np.tile(layout.link_columns[k], keys.size),
                     (coefs @ TRACE_MAP).ravel(),                     # tr(Û E_l), (n, 10)
                     None if mcoefs is None else np.fmod(mcoefs @ TRACE_MAP, units.modulus).ravel())
    if start in layout.rotor_columns:   # ½ IA_j q̇_j²: a single 1 in row (j, j, 1 … 1)
        one = np.array([1.0])
        triplets.add(np.array([start * span]), np.array([layout.rotor_columns[start]]), one, one)
    unique, m, mm = triplets.assemble(layout.n_standard)
    i = unique // span + 1
    return ZBlock(_labels(i, np.full_like(i, start + 1), unique % span, n_dof), m, mm)


def potential_block(units, layout, n_dof, stats, parents=None):
    """Rows (0, 0, ·) of Z; the constant row is dropped (a constant in L does not enter the dynamics)."""
    triplets = _Triplets(units, None)
    for k, keys, coefs, mcoefs in potential_rows(units.ops, units.gravity, units.tol, parents, units.mod_gravity):
        if units.exact and coefs.size:   # only exact runs can overflow
            stats.observe(coefs)
        codes = np.repeat(keys, 4)
        keep = codes != 0
        triplets.add(codes[keep], np.tile(layout.link_columns[k][6:], keys.size)[keep], coefs.ravel()[keep],
                     None if mcoefs is None else mcoefs.ravel()[keep])
    unique, m, mm = triplets.assemble(layout.n_standard)
    zeros = np.zeros_like(unique)
    return ZBlock(_labels(zeros, zeros, unique, n_dof), m, mm)


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
    """Largest |coefficient| seen: exact mode is exact only while it stays below 2**52."""

    def __init__(self):
        self.max_abs = 0.0

    def observe(self, coefs):
        self.max_abs = max(self.max_abs, float(np.abs(coefs).max()))


def z_blocks(units, layout, n_dof, stats, parents=None, max_terms=None, progress=None):
    """All blocks of Z in storage order: kinetic (j = 1 … N), potential, friction.

    ``parents`` (0-based, −1 for the base) describes a tree; default: a serial chain.
    ``progress(done, total)`` after each block.

    Yields
    ------
    ZBlock
    """
    total = n_dof + 1 + bool(layout.friction_columns)
    for start in range(n_dof):
        yield kinetic_block(units, layout, start, n_dof, stats, max_terms, parents)
        if progress is not None:
            progress(start + 1, total)
    yield potential_block(units, layout, n_dof, stats, parents)
    if layout.friction_columns:
        yield friction_block(layout, n_dof)
    if progress is not None:
        progress(total, total)


__all__ = ["ZBlock", "z_blocks", "MagnitudeStats", "TermBudgetExceeded"]
