"""Z's row space and Gram matrix by the forward recursion over *spans*, without the 5^N rows of Z
(docs/method.md, section 6: why every row of Z is a linear map L_m of one coefficient matrix, and why
the spans and second moments of those coefficients follow the recursion).

Rank, pivots and Y = Z̃⁺Z depend on Z only through its row space, the float Y only through ZᵀZ. Per
joint m: U_m = Σ_t U_p K_t(conj) + Σ_t W_p K_t(open) + start_hat, W_m = Σ_t W_p K_t(carry) + start_carry,
V_m (the rows starting at m) as U_m with t ≠ 0 in the first sum, the moments S ↦ Σ_t K_tᵀ S K_t, and the
potential rows r_m = r_p Ã_m^l. Two sides run it (:class:`_Side`):

* **exact side**: each span a basis chosen among actual terms (at most 16 vectors, 4 for the potential),
  so every row emitted is a row of Z with its label: exact integers (exact runs; independence decided
  modulo a prime, confirmed by FLINT) or images modulo the run's prime (float runs);
* **float side** (float runs): each moment a triangular factor F (FᵀF = S), whose rows F_V·L_m have
  exactly Z's Gram matrix.

Each row is whole as soon as it starts (row = M·L_m, :class:`~baseparam.projection._coordinates.RowMaps`).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ._coordinates import RowMaps
from ._modular import PRIMES, rref_mod
from ._sparse import CSR, joined


# -- independence ---------------------------------------------------------------------------------------
def leftmost_independent(images, p):
    """Indices of the leftmost maximal independent subset of the rows, modulo the prime p.

    Parameters
    ----------
    images : ndarray, shape (n, d)
        Integers in [0, p) (float64 or int64), p < 2**23.

    Returns
    -------
    ndarray of int, shape (rank,)
        Increasing.
    """
    # The pivot columns of Mᵀ's echelon form: FLINT's (nmod_mat), set at the non-zeros (a few of 16 per row), each
    # pivot then found by reading the reduced form's rows left to right. The recursion calls this hundreds of times
    # on a few dozen rows, where numpy's elimination costs a dozen array operations per pivot — but a run in floats
    # need not load FLINT for it (25 ms of start-up): until something has, numpy's (the same, unique, pivots).
    images = np.asarray(images)
    if "flint" not in sys.modules:
        return np.array(rref_mod(images.T, p, reduced=False)[1], dtype=np.int64)
    import flint

    n, d = images.shape
    R, rank = _transposed(flint.nmod_mat(d, n, p), images).rref()
    return _pivot_columns(R, rank)


def _transposed(M, rows):
    """The empty FLINT matrix M (d × n) set to rowsᵀ (rows: integers, shape (n, d)) at its non-zeros only."""
    r, c = np.nonzero(rows)
    for i, j, v in zip(c.tolist(), r.tolist(), rows[r, c].astype(np.int64).tolist()):
        M[i, j] = v
    return M


def _pivot_columns(R, rank):
    """The pivot columns of an echelon form R of that rank (FLINT's): each row's first non-zero, read left to
    right (a row's pivot lies right of the row above's)."""
    pivots, j = [], 0
    for i in range(rank):
        while not int(R[i, j]):
            j += 1
        pivots.append(j)
        j += 1
    return np.array(pivots, dtype=np.int64)


def _integer_leftmost(values):
    """Indices of the leftmost maximal independent subset of integer-valued rows over the rationals: the pivot
    columns of valuesᵀ's echelon form over the integers (FLINT's fraction-free rref), increasing."""
    import flint

    # set at the non-zeros (the rows are sparse: a few entries of 16): an fmpz for every entry of a list cost more
    # than the elimination
    n, d = values.shape
    R, _, rank = _transposed(flint.fmpz_mat(d, n), values).rref()
    return _pivot_columns(R, rank)


def exactly_independent(values):
    """Leftmost maximal independent subset of integer-valued rows, decided over the rationals.

    Modulo a prime first (fast): rows independent modulo p are independent over the rationals, and its answer is
    the leftmost over them when every row is picked, or when the first rows are, as many as the columns (no more
    can be). Otherwise (a prime dividing a minor makes a row look dependent: rows p·e₀, e₁ … e₁₅, e₀ modulo p give
    1 … 16, not 0 … 15; rows e₀, p·e₁ give 0, not 0, 1) the pivots of the fraction-free echelon form over the
    integers (FLINT) decide.

    Parameters
    ----------
    values : ndarray, shape (n, d)
        Integer-valued floats, |entries| < 2**53.

    Returns
    -------
    ndarray of int, shape (rank,)
        Increasing.
    """
    if values.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    picked = leftmost_independent(np.mod(values.astype(np.int64), PRIMES[0]), PRIMES[0])
    # independent modulo p: independent over the rationals. Every row picked, or the first k rows picked and as
    # many as the columns (no more can be): the leftmost
    if picked.size == values.shape[0] or (picked.size == values.shape[1] and picked[-1] == picked.size - 1):
        return picked
    return _integer_leftmost(values)


# -- arithmetic of a side ----------------------------------------------------------------------------
class _SideNumbers:
    """The numbers of a side: integers held in float64 (exact runs' exact side), images modulo p (float runs'
    exact side), or floats (the float side's moments: ``modulus`` None, as an exact run's)."""

    def __init__(self, modulus):
        self.modulus = modulus

    def sandwich(self, op):
        return op.matrix if self.modulus is None else op.modular

    def factors(self, jop):
        return jop.A if self.modulus is None else jop.mod_A

    def times(self, X, M):
        out = X @ M          # exact: integers below 2**53 (checked), or ≤ 16 products below p² each
        return out if self.modulus is None else np.fmod(out, self.modulus)

    def gravity(self, units):
        g = units.gravity if self.modulus is None else np.asarray(units.mod_gravity, dtype=float)
        return np.append(g, 0.0)[None, :]

    def row_map(self, pair):
        return pair[0] if self.modulus is None else pair[1]

    def independent(self, values):
        if self.modulus is None:
            return exactly_independent(values)
        return leftmost_independent(values, self.modulus)


def _factor(rows):
    """F with FᵀF = rowsᵀ rows and at most as many rows as columns (zero rows dropped)."""
    if rows.shape[0] > rows.shape[1]:
        rows = np.linalg.qr(rows, mode="r")
    return rows[np.abs(rows).max(axis=1, initial=0.0) > 0]


# -- the recursion ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Set:
    """Coefficient vectors standing for a set of terms: a basis of their span (exact side, with the
    terms' labels) or a factor of their second moment (float side, labels None)."""

    values: np.ndarray                # (n, d)
    labels: Optional[np.ndarray]      # (n, 2 + N) int32: i, j, l_1 … l_N as Z's row labels, or None

    def __len__(self):
        return self.values.shape[0]


def _blocks(arith, op, terms, joint, pair=None):
    """Every target block of a sandwich applied to the terms: values (n·nt, 16), labels, target."""
    M = arith.sandwich(op)
    nt = op.targets.size
    out = arith.times(terms.values, M).reshape(-1, 16)
    target = np.tile(op.targets, len(terms))
    labels = None
    if terms.labels is not None:
        labels = np.repeat(terms.labels, nt, axis=0)
        labels[:, 2 + joint] = target + 1
        if pair is not None:
            labels[:, 0] = pair
    return _Set(out, labels), target


def _moved(arith, jop, terms, joint):
    """Potential row vectors times each coefficient matrix Ã^l of the joint: values, labels, l."""
    A = arith.factors(jop)
    out = np.concatenate([arith.times(terms.values, A[l]) for l in range(A.shape[0])])
    which = np.repeat(np.arange(A.shape[0]), len(terms))
    labels = None
    if terms.labels is not None:
        labels = np.tile(terms.labels, (A.shape[0], 1))
        labels[:, 2 + joint] = which + 1
    return _Set(out, labels), which


def _join(parts):
    parts = list(parts)
    labels = None if parts[0].labels is None else np.concatenate([p.labels for p in parts])
    return _Set(np.concatenate([p.values for p in parts]), labels)


def _take(terms, mask):
    return _Set(terms.values[mask], None if terms.labels is None else terms.labels[mask])


def _unit(arith, units, n_dof, width, i, j, exact_side):
    values = np.eye(4).reshape(1, 16) if width == 16 else arith.gravity(units)
    labels = None
    if exact_side:
        labels = np.ones((1, 2 + n_dof), dtype=np.int32)
        labels[0, :2] = i, j
    return _Set(values, labels)


class _Rows:
    """Rows being produced, each whole when it starts (its entries from the row maps), as COO triplets."""

    def __init__(self, n_cols):
        self.n_cols, self.count = n_cols, 0
        self.rows, self.cols, self.vals, self.labels = [], [], [], []

    def start(self, terms):
        ids = np.arange(self.count, self.count + len(terms))
        self.count += len(terms)
        if terms.labels is not None:
            self.labels.append(terms.labels)
        return ids

    def add(self, ids, values, columns):
        """Entries of the rows ``ids`` in the given columns, values (n, len(columns)); zeros dropped."""
        r, c = np.nonzero(values)
        self.rows.append(ids[r])
        self.cols.append(np.asarray(columns)[c])
        self.vals.append(values[r, c])

    def matrix(self):
        return CSR.from_coo(joined(self.vals), joined(self.rows, np.int64), joined(self.cols, np.int64),
                            (self.count, self.n_cols))


@dataclass(frozen=True)
class _Joint:
    """What a joint hands its children: its spans (exact side) or moments (float side)."""

    hats: _Set         # Û_m·· terms (all pairs)
    carries: _Set      # W_m· terms
    gravity: _Set      # potential row vectors


class _Side:
    """One side of the recursion (module docstring): exact spans, or float moments."""

    def __init__(self, units, layout, maps, arith, exact_side, stats=None, few_rows=False):
        self.units, self.layout, self.maps, self.arith = units, layout, maps, arith
        self.exact_side, self.stats, self.few_rows = exact_side, stats, few_rows
        self.out = _Rows(layout.n_standard)

    def reduce(self, terms):
        """A basis of the span (exact side) or a factor of the second moment (float side)."""
        if not self.exact_side:
            return _Set(_factor(terms.values), None)
        live = _take(terms, terms.values.any(axis=1))
        if len(live) <= live.values.shape[1]:     # no more than a basis can hold: keep them all
            return live
        return _take(live, self.arith.independent(live.values))

    def rows_of(self, terms):
        """The row-starting terms to emit: on the exact side all of them (the reduction takes any
        spanning rows, for less than choosing a basis among them; with ``few_rows``, a basis), on the
        float side a factor."""
        if self.exact_side and not self.few_rows:
            return _take(terms, terms.values.any(axis=1))
        return self.reduce(terms)

    def observe(self, *arrays):
        if self.stats is not None:          # exact runs: exact only while below 2**52
            for a in arrays:
                if a.size:
                    self.stats.observe(a)

    def base(self, n_dof):
        empty = _Set(np.zeros((0, 16)), np.zeros((0, 2 + n_dof), dtype=np.int32) if self.exact_side else None)
        return _Joint(empty, empty, _unit(self.arith, self.units, n_dof, 4, 0, 0, self.exact_side))

    def emit(self, m, terms, potential=False, extra=None):
        """Start the rows of these terms at joint m: Z's entries from the row maps (``extra``: one more
        entry per row, (column, value))."""
        ids = self.out.start(terms)
        if not len(terms):
            return
        L = self.arith.row_map((self.maps.potential if potential else self.maps.kinetic)[m])
        if self.stats is not None:          # exact runs (no modulus): L is the float map RowMaps.bound uses
            self.stats.observe_bound(self.maps.bound(m, terms.values, potential))
        self.out.add(ids, self.arith.times(terms.values, L), self.maps.columns[m])
        if extra is not None:
            self.out.add(ids, np.full((len(terms), 1), extra[1]), [extra[0]])

    def joint(self, m, up, n_dof, hand_down, starts=True):
        """Joint m below the parent's state ``up``: its rows, and (if ``hand_down``) its state; without
        ``starts``, only what comes from ``up`` (no pair (m, m), no rotor row: :func:`base_equation_basis`)."""
        arith, op, layout = self.arith, self.units.ops[m], self.layout
        conjugated, target = _blocks(arith, op.conjugate, up.hats, m)
        opened, _ = _blocks(arith, op.open_pair, up.carries, m, pair=m + 1)
        started, start_target = _blocks(arith, op.start_hat, _unit(arith, self.units, n_dof, 16, m + 1, m + 1,
                                                                   self.exact_side), m)
        if not starts:
            started, start_target = _take(started, np.zeros(len(started), dtype=bool)), start_target[:0]
        rotor = starts and m in layout.rotor_columns   # ½ IA_m q̇_m²: its row is (m, m, 1 … 1) plus a 1 under IA_m
        self.emit(m, self.rows_of(_join([_take(conjugated, target != 0), opened,
                                        _take(started, (start_target != 0) | (not rotor))])))
        if rotor:
            self.emit(m, self._constant_start(started, start_target, m, n_dof), extra=(layout.rotor_columns[m], 1.0))
        moved, which = _moved(arith, op, up.gravity, m)
        self.emit(m, self.rows_of(_take(moved, which != 0)), potential=True)
        if not hand_down:
            return None
        hats = _join([conjugated, opened, started])
        carried = [_blocks(arith, op.carry, up.carries, m)[0]]
        if starts:
            carried.append(_blocks(arith, op.start_carry, _unit(arith, self.units, n_dof, 16, 0, m + 1,
                                                                self.exact_side), m)[0])
        carries = _join(carried)
        self.observe(hats.values, carries.values, moved.values)
        return _Joint(self.reduce(hats), self.reduce(carries), self.reduce(moved))

    def _constant_start(self, started, start_target, m, n_dof):
        """The started term of target 0 (the row (m, m, 1 … 1)), or a zero one if it vanished."""
        zero = _take(started, start_target == 0)
        if len(zero):
            return zero
        return _Set(np.zeros((1, 16)), _unit(self.arith, self.units, n_dof, 16, m + 1, m + 1, self.exact_side).labels)


    def varying_gravity(self, n_first, n_dof):
        """The potential row vectors out of joints 0 … n_first − 1 (a chain) but the constant one (every
        digit the constant basis function): a basis or a factor, as :meth:`reduce` gives."""
        terms = _unit(self.arith, self.units, n_dof, 4, 0, 0, self.exact_side)
        constant = np.ones(1, dtype=bool)
        for m in range(n_first):
            terms, which = _moved(self.arith, self.units.ops[m], terms, m)
            constant = np.tile(constant, len(terms) // len(constant)) & (which == 0)
        return self.reduce(_take(terms, ~constant))


@dataclass(frozen=True)
class RowBasis:
    """Rows of Z that span its row space, and (float runs) rows with its Gram matrix.

    Attributes
    ----------
    labels : ndarray, shape (n_rows, 2 + n_dof), int64
        Z's labels (i, j, l_1 … l_N) of the rows of ``rows``.
    rows : CSR, shape (n_rows, n_standard)
        Those rows of Z: exact integers (exact runs) or their images modulo the run's prime (float
        runs, entries in [0, p)). Pseudo-inertia and rotor columns; friction rows are apart.
    moments : CSR or None, shape (n, n_standard)
        Float runs: rows whose Gram matrix is Z's (combinations of rows of Z, no labels).
    """

    labels: np.ndarray
    rows: CSR
    moments: Optional[CSR] = None


def row_basis(units, layout, parents, stats, progress=None, few_rows=False) -> RowBasis:
    """Z's row space (rows of Z) and, in float runs, its Gram matrix, by the recursion over spans.

    Parameters
    ----------
    units : WorkingUnits
    layout : ColumnLayout
    parents : sequence of int
        0-based parent of each joint (−1 for the base).
    stats : MagnitudeStats
        Sees every number of exact runs (exact only while below 2**52).
    progress : callable, optional
        ``progress(joint + 1, n_dof)`` after each joint.
    few_rows : bool
        The exact side emits a basis of each joint's row-starting terms, not all of them (the same row
        space; fewer rows for the reduction, for a basis chosen at each joint).

    Returns
    -------
    RowBasis
    """
    return _walk(units, layout, parents, stats if units.exact else None, few_rows, None, progress)


def base_equation_basis(units, layout, parents, n_first) -> RowBasis:
    """The rows of Z whose label has a pair (i, j) or a non-constant basis function among joints
    0 … n_first − 1 (a chain at the root: a floating base's virtual joints; :mod:`._floating`), as
    :func:`row_basis` gives Z's.

    They are what the first joints carry down, but the constant potential term, and no rows start at
    the joints below (the recursion is linear in what it carries).
    """
    return _walk(units, layout, parents, None, True, n_first)   # few rows: the caller takes the rank first


def _walk(units, layout, parents, stats, few_rows, n_first, progress=None) -> RowBasis:
    """The recursion over spans from the base to every joint (:func:`row_basis`); with ``n_first``, rows
    start only at joints 0 … n_first − 1 and what they carry down keeps only their varying gravity
    (:func:`base_equation_basis`)."""
    n = len(parents)
    maps = RowMaps(units, layout, parents)
    sides = [_Side(units, layout, maps, _SideNumbers(units.modulus), True, stats, few_rows)]
    if not units.exact:
        sides.append(_Side(units, layout, maps, _SideNumbers(None), False))
    last_child = {p: k for k, p in enumerate(parents)}
    states = [{-1: side.base(n)} for side in sides]
    for m in range(n):
        for side, state in zip(sides, states):
            up = state[parents[m]]
            if last_child[parents[m]] == m:
                del state[parents[m]]
            mine = side.joint(m, up, n, m in last_child, starts=n_first is None or m < n_first)
            if mine is not None and n_first is not None and m == n_first - 1:
                mine = _Joint(mine.hats, mine.carries, side.varying_gravity(n_first, n))
            if mine is not None:
                state[m] = mine
        if progress is not None:
            progress(m + 1, n)
    exact = sides[0]
    labels = np.concatenate(exact.out.labels) if exact.out.labels else np.zeros((0, 2 + n), dtype=np.int32)
    rows = exact.out.matrix()
    if units.modulus is not None:
        rows = rows.with_data(np.mod(rows.data, units.modulus)).eliminate_zeros()
    return RowBasis(labels.astype(np.int64), rows, None if units.exact else sides[1].out.matrix())


__all__ = ["RowBasis", "row_basis", "base_equation_basis", "leftmost_independent", "exactly_independent"]
