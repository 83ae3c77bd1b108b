"""Echelon reduction of Z: pivots (leftmost independent columns), rank and Y = Z̃⁺ Z.

Both paths stream over Z's row blocks and keep only an n_standard × n_standard summary:

* **exact** — the Gram matrix G = Zᵀ Z of the integer matrix Z, accumulated exactly (float64 BLAS
  products of Z split into small integer pieces, summed as Python integers). Column dependencies of
  Z and of G coincide (Zλ = 0 ⇔ Gλ = 0), and G = (Zᵀ Z̃) Y with Zᵀ Z̃ of full column rank, so the
  reduced row echelon form of G *is* Y, computed over the rationals with FLINT.
* **float + modular** (Z irrational) — pivots, rank and Y's zero pattern come from the exact
  echelon form of Z modulo a prime (:mod:`baseparam.projection._modular`); Y's values from the R factor of a
  streamed QR of the float Z. The float residuals of the dependent columns check the prime.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

# flint is imported in the method that uses it (the exact path only); scipy is not used at all: its
# import would dominate the start-up of `baseparam find`, and numpy's QR and least squares serve.

UNLUCKY_PRIME_RESIDUAL = 1e-6   # a "dependent" column this far from its pivots was misjudged mod p
ILL_CONDITIONED = 1e10          # ... unless the pivot columns are too ill-conditioned for float to tell
INACCURATE = 1e7                # condition numbers above this cost the float Y ≥ 1e-9 of its accuracy
ROUND_OFF_Y = 1e-8              # a float Y entry (unit-norm columns) below this may be round-off
ZERO = Fraction(0)   # the zeros of an exact Y: one object, which the callers can tell by identity (most of Y)
NEGLIGIBLE = 1e-40   # beside a column's largest entry 1, this cannot change a float Y that is accurate at all


@dataclass(frozen=True)
class Reduction:
    """Result of the echelon step, in working units.

    Attributes
    ----------
    pivots : ndarray, shape (rank,)
    Y : list of list of Fraction (exact) or ndarray, shape (rank, n_standard) (float)
    exact : bool
    zero_columns : ndarray
        Columns of Z that are identically zero (unidentifiable parameters).
    note : str
        How the rank was decided.
    residual_ok : bool
        False when the float computation contradicts the modular rank (an unlucky prime).
    accuracy : float
        Estimated relative accuracy of the float Y (condition number × 1e-16); 0 when exact.
    """

    pivots: np.ndarray
    Y: object
    exact: bool
    zero_columns: np.ndarray
    note: str
    residual_ok: bool = True
    accuracy: float = 0.0        # relative accuracy of the float Y (0 when exact)

    @property
    def rank(self):
        return int(self.pivots.size)


# -- the parameterization ------------------------------------------------------------------------
@dataclass(frozen=True)
class BlockTransform:
    """C with Z_param = Z_pseudo @ C: the identity but the exact 10 × 10 block K on each body's columns
    (:meth:`~baseparam.model.parameters.ColumnLayout.pseudo_to_parameterization` without its n² Fractions,
    whose conversion one by one took seconds at 50 joints).

    Attributes
    ----------
    n : int
    blocks : ndarray of int, shape (n_bodies, 10)
        Each body's columns (disjoint).
    K : list of list of Fraction, 10 × 10
    """

    n: int
    blocks: np.ndarray
    K: list

    @classmethod
    def of(cls, layout):
        """The Khalil map of a :class:`~baseparam.model.parameters.ColumnLayout`."""
        from ..model.parameters import khalil_to_pseudo

        return cls(layout.n_standard, layout.body_blocks(), khalil_to_pseudo())

    def _with(self, block, dtype=float, one=1):
        C = np.eye(self.n, dtype=dtype) * one
        C[self.blocks[:, :, None], self.blocks[:, None, :]] = np.asarray(block, dtype=dtype)[None]
        return C

    def floats(self):
        """C in float64, shape (n, n)."""
        return self._with([[float(v) for v in row] for row in self.K])

    def modular(self, p):
        """C's image modulo the prime p, integers in [0, p) as float64, shape (n, n)."""
        from ._modular import to_modular

        return self._with([[to_modular(v, p) for v in row] for row in self.K])

    def integers(self):
        """d·C with d the least common denominator of K: (d, dC as int64, shape (n, n))."""
        d = math.lcm(*(v.denominator for row in self.K for v in row))
        return d, self._with([[int(v * d) for v in row] for row in self.K], dtype=np.int64, one=d)


def _floats(transform):
    """C in float64 (a :class:`BlockTransform` or a list of lists of Fractions)."""
    if isinstance(transform, BlockTransform):
        return transform.floats()
    return np.array([[float(f) for f in row] for row in transform])


# -- exact -------------------------------------------------------------------------------------
class ExactGram:
    """Accumulates G = Zᵀ Z exactly for integer-valued Z (|entries| < 2**53)."""

    def __init__(self, n):
        self.n = n
        self.G = np.zeros((n, n), dtype=object)
        self.G[:] = 0

    def add(self, Z):
        """Add a block's contribution. Z : :class:`~baseparam.projection._sparse.CSR`, shape (n_rows, n)."""
        if Z.nnz == 0:
            return
        values = Z.data.astype(np.int64)
        if not np.array_equal(values.astype(float), Z.data):
            raise ArithmeticError("exact mode met a non-integer coefficient")
        # Sums of n_rows products of b-bit pieces stay exact in float64 when 2b + log2(n) ≤ 52.
        bits = int(np.abs(values).max()).bit_length()
        piece = max(1, (52 - max(1, Z.shape[0]).bit_length()) // 2)
        n_pieces = max(1, math.ceil(bits / piece))
        sign, mag = np.sign(values), np.abs(values)
        parts = [(((mag >> (piece * p)) & ((1 << piece) - 1)) * sign).astype(float) for p in range(n_pieces)]
        for p in range(n_pieces):
            for q in range(p, n_pieces):
                prod = Z.with_data(parts[p]).gram(parts[q])
                ints = np.rint(prod).astype(np.int64).astype(object) * (1 << (piece * (p + q)))
                self.G += ints if p == q else ints + ints.T

    def reduce(self, transform=None) -> Reduction:
        """Pivots and Y over Q.

        Parameters
        ----------
        transform : BlockTransform or list of list of Fraction, optional
            C with Z_param = Z @ C (Khalil parameterization); G becomes Cᵀ G C.
        """
        import flint
        if isinstance(transform, BlockTransform):
            # (dC)ᵀ G (dC) = d² Cᵀ G C in integers: the same echelon form and zero diagonal, without a
            # product of rational matrices
            return _integer_echelon(_sandwiched(self.G, transform.integers()[1]))
        if transform is None:
            return _integer_echelon(self.G)
        G = flint.fmpq_mat(self.n, self.n, [int(v) for v in self.G.ravel()])
        C = flint.fmpq_mat(self.n, self.n, [flint.fmpq(f.numerator, f.denominator) for row in transform for f in row])
        G = C.transpose() * G * C
        R, rank = G.rref()
        # The entries in one call, one shared zero (most of Y): an fmpq per entry cost more than the rref
        entries, n = R.entries(), self.n
        Y = [[Fraction(int(v.p), int(v.q)) if v else ZERO for v in entries[r * n:(r + 1) * n]] for r in range(rank)]
        pivots = np.array([next(c for c, v in enumerate(entries[r * n:(r + 1) * n]) if v) for r in range(rank)],
                          dtype=np.int64)
        zero = np.array([c for c in range(self.n) if G[c, c] == 0], dtype=np.int64)
        return Reduction(pivots, Y, True, zero, "rank decided exactly (rational arithmetic)")


def _integer_echelon(G):
    """The :class:`Reduction` of a square matrix of Python integers (object array, shape (n, n)) over Q.

    FLINT's fraction-free echelon form (B, d: B / d is the reduced one, unique) of G without its zero rows and
    columns (a Gram matrix's zero diagonal entries: most of the pseudo-inertia columns' of a few-joint robot, which
    the reduced form leaves zero), the matrix set entry by entry at its non-zeros: building it from a list of every
    entry, an fmpz each, cost more than the echelon form."""
    import flint

    n = G.shape[0]
    r_nz, c_nz = np.nonzero(G)
    # the rows and columns with a non-zero, and each non-zero's place among them (by masks: np.unique would import
    # numpy.ma, tens of ms of start-up for find)
    row_used, col_used = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    row_used[r_nz], col_used[c_nz] = True, True
    rows, cols = np.flatnonzero(row_used), np.flatnonzero(col_used)
    M = flint.fmpz_mat(len(rows), len(cols))
    places = zip((np.cumsum(row_used) - 1)[r_nz].tolist(), (np.cumsum(col_used) - 1)[c_nz].tolist(), G[r_nz, c_nz])
    for i, j, v in places:
        M[i, j] = v
    R, d, rank = M.rref() if len(rows) else (M, 1, 0)
    d, width = int(d), len(cols)
    entries = R.entries()
    Y, pivots = [], []
    for r in range(rank):
        row = [ZERO] * n
        for k, v in enumerate(entries[r * width:(r + 1) * width]):
            if v:
                row[cols[k]] = Fraction(int(v), d)
        Y.append(row)
        pivots.append(next(c for c, v in enumerate(row) if v is not ZERO))
    diagonal = np.diagonal(G)
    zero = np.array([c for c in range(n) if diagonal[c] == 0], dtype=np.int64)
    return Reduction(np.array(pivots, dtype=np.int64), Y, True, zero, "rank decided exactly (rational arithmetic)")


def _sandwiched(G, C):
    """Cᵀ G C for an integer C with a few non-zeros per column (dC of a :class:`BlockTransform`: at most
    three), in Python integers: a column (then row) operation per non-zero, not dense products.

    Parameters
    ----------
    G : ndarray of Python int (object), shape (n, n)
    C : ndarray of int64, shape (n, n)

    Returns
    -------
    ndarray of Python int (object), shape (n, n)
    """
    def times(M):                      # M @ C, column by column
        out = np.empty_like(M)
        out[:] = 0
        for k, j in zip(*np.nonzero(C)):
            out[:, j] += int(C[k, j]) * M[:, k]
        return out
    return times(times(G).T).T


# -- float -------------------------------------------------------------------------------------
class StreamedR:
    """Accumulates the R factor of a QR decomposition of Z, block by block (TSQR).

    Columns are scaled by powers of two (exact) so that each column's largest entry of the first block
    is about 1, and entries below NEGLIGIBLE are dropped from the float copy: a nearly special robot
    has entries down to 1e-70 beside ones of order 1, and products of such numbers fall into the
    subnormal range, where LAPACK runs tens of times slower. (They cannot move a float Y that is accurate
    at all: that would take a condition number above 1e24, which the accuracy warning reports.)
    """

    def __init__(self, n, chunk_rows=50_000):   # 50k × 80 dense rows ≈ 32 MB per QR
        self.n, self.chunk = n, chunk_rows
        self.R = np.zeros((0, n))
        self.column_scale = None          # Z = Z_scaled · diag(column_scale)

    def add(self, Z):
        if self.column_scale is None:
            largest = np.zeros(self.n)
            np.maximum.at(largest, Z.indices, np.abs(Z.data))
            self.column_scale = np.where(largest > 0, np.exp2(np.round(np.log2(np.where(largest > 0, largest, 1)))),
                                         1.0)
        for dense in Z.row_chunks(self.chunk):
            dense /= self.column_scale
            dense[np.abs(dense) < NEGLIGIBLE] = 0.0
            self.R = np.linalg.qr(np.vstack([self.R, dense]), mode="r")[: self.n]

    def reduce_with_pivots(self, echelon, transform=None) -> Reduction:
        """Y in floating point for pivots decided exactly modulo a prime.

        Parameters
        ----------
        echelon : ModularEchelon
            Its pivots are the pivots; its RREF rows (Y modulo p) give Y's exact zero pattern.
        transform : BlockTransform or list of list of Fraction, optional
            C with Z_param = Z @ C (already applied to the modular blocks).

        Returns
        -------
        Reduction
            ``note`` reports the largest float residual of a dependent column (round-off when the
            prime was not unlucky) and the conditioning of the pivot columns.
        """
        R = self.R * (1.0 if self.column_scale is None else self.column_scale)      # a new array, changed below
        if transform is not None:
            R = R @ _floats(transform)
        pivots = np.array(echelon.pivots, dtype=np.int64)
        zero = np.flatnonzero(~echelon.nonzero_columns)
        R[:, zero] = 0.0       # exactly zero columns (only round-off in float, e.g. after the Khalil map)
        norms = np.linalg.norm(R, axis=0)
        scale = np.where(norms > 0, norms, 1.0)
        Rn = R / scale
        Rn[np.abs(Rn) < NEGLIGIBLE] = 0.0      # unit columns: see the class docstring
        Ys = np.linalg.lstsq(Rn[:, pivots], Rn, rcond=np.finfo(float).eps)[0]   # scipy.linalg.lstsq's cut-off
        residual = np.linalg.norm(Rn - Rn[:, pivots] @ Ys, axis=0)
        Y = Ys * scale[None, :] / scale[pivots][:, None]
        # Exact zeros of Y (zero modulo p, round-off in float) are exact zeros.
        Y[(echelon.B == 0) & (np.abs(Ys) < ROUND_OFF_Y)] = 0.0
        # Echelon form: a column left of a row's pivot never enters that regrouping.
        Y[np.arange(self.n)[None, :] < pivots[:, None]] = 0.0
        Y[:, pivots] = np.eye(pivots.size)
        sv = np.linalg.svd(Rn[:, pivots], compute_uv=False) if pivots.size else np.ones(1)
        worst, cond = float(residual.max(initial=0.0)), float(sv[0] / sv[-1])
        note = f"largest float residual of a dependent column {worst:.1e}; pivot columns' condition number {cond:.1e}"
        fits = worst < UNLUCKY_PRIME_RESIDUAL
        if cond > INACCURATE:
            note += (" — WARNING: the geometry is nearly special (the warning names its cause); the rank is exact but "
                     f"floating point resolves the regrouping coefficients only to about {cond * 1e-16:.0e} "
                     "(relative)")
        # A misfit with well-conditioned pivots means the prime hid an independent column: retry.
        return Reduction(pivots, Y, False, zero, note, residual_ok=fits or cond > ILL_CONDITIONED,
                         accuracy=cond * 1e-16)
