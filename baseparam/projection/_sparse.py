"""A minimal CSR matrix in plain numpy, for the blocks of Z.

Why not ``scipy.sparse``: importing it (scipy's array-API layer pulls in numpy.f2py, numpy.testing,
…) would be about half of what ``baseparam find`` adds to starting Python, while the
engine needs only a handful of operations on row blocks (≤ 200 columns, very few entries per row):
assembly from COO, Zᵀ Z, row chunks as dense arrays (for the streamed QR and the modular echelon
form, which are dense kernels anyway), a product with a small dense matrix and the COO triplets.
Storage (``--h5``) converts to ``scipy.sparse`` at its boundary (:meth:`CSR.tocoo`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CHUNK_ROWS = 20_000   # dense row chunks: 20k × 80 columns ≈ 13 MB


@dataclass(frozen=True, eq=False)
class CSR:
    """Compressed sparse rows, column indices sorted and unique within each row.

    Attributes
    ----------
    data : ndarray, shape (nnz,), float64
    indices : ndarray, shape (nnz,), int64
        Column of each entry.
    indptr : ndarray, shape (n_rows + 1,), int64
        Row r holds entries ``indptr[r]:indptr[r + 1]``.
    shape : tuple of int
        (n_rows, n_cols).
    """

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple

    @classmethod
    def from_coo(cls, data, rows, cols, shape):
        """From COO triplets, duplicates summed (as ``scipy.sparse.csr_matrix((data, (rows, cols)))``).

        Parameters
        ----------
        data : array_like, shape (k,)
        rows, cols : array_like of int, shape (k,)
        shape : tuple of int
        """
        data = np.asarray(data, dtype=float)
        rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        key = rows * max(1, int(shape[1])) + cols
        order = np.argsort(key, kind="stable")    # one integer key: much faster than lexsort
        data, key = data[order], key[order]
        if key.size > 1:
            first = np.ones(key.size, dtype=bool)
            first[1:] = key[1:] != key[:-1]
            if not first.all():
                starts = np.flatnonzero(first)
                data, key = np.add.reduceat(data, starts), key[starts]
        rows, cols = np.divmod(key, max(1, int(shape[1])))
        return cls(data, cols, _indptr(rows, shape[0]), (int(shape[0]), int(shape[1])))

    @property
    def nnz(self):
        return int(self.data.size)

    def with_data(self, data):
        """The same sparsity pattern with other values."""
        return CSR(np.asarray(data, dtype=float), self.indices, self.indptr, self.shape)

    def eliminate_zeros(self):
        """Without its explicitly stored zeros."""
        keep = self.data != 0
        if keep.all():
            return self
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))[keep]
        return CSR(self.data[keep], self.indices[keep], _indptr(rows, self.shape[0]), self.shape)

    def dense_rows(self, start, stop):
        """Rows ``start:stop`` as a dense array, shape (stop − start, n_cols)."""
        stop = min(stop, self.shape[0])
        lo, hi = self.indptr[start], self.indptr[stop]
        out = np.zeros((max(0, stop - start), self.shape[1]))
        rows = np.repeat(np.arange(stop - start), np.diff(self.indptr[start:stop + 1]))
        out[rows, self.indices[lo:hi]] = self.data[lo:hi]
        return out

    def row_chunks(self, chunk_rows=CHUNK_ROWS):
        """Dense chunks of at most ``chunk_rows`` rows, top to bottom (bounded memory)."""
        for start in range(0, self.shape[0], chunk_rows):
            yield self.dense_rows(start, start + chunk_rows)

    def dot(self, M, chunk_rows=CHUNK_ROWS):
        """``self @ M`` for a small dense M, as a CSR without zeros.

        Computed on dense row chunks: the sums run in BLAS order, so they match a sparse product
        bit for bit only when they are exact (integer values below 2**53, as in the modular path).

        Parameters
        ----------
        M : ndarray, shape (n_cols, m)
        """
        M = np.asarray(M, dtype=float)
        data, cols, rows = [], [], []
        for start, X in zip(range(0, self.shape[0], chunk_rows), self.row_chunks(chunk_rows)):
            P = X @ M
            r, c = np.nonzero(P)
            data.append(P[r, c])
            cols.append(c)
            rows.append(r + start)
        return CSR(joined(data), joined(cols, np.int64).astype(np.int64),
                   _indptr(joined(rows, np.int64), self.shape[0]), (self.shape[0], M.shape[1]))

    def gram(self, data2=None, max_pairs=1 << 21):
        """Zᵀ Z′ as a dense array, shape (n_cols, n_cols), Z′ the same pattern holding ``data2``.

        Summed over the pairs of entries within each row (Σ nnz_row² products, where a dense
        product costs n_rows · n_cols²: Z has a few entries per row), in rows of at most
        ``max_pairs`` pairs, so memory stays bounded. The sums run in a fixed order; they are exact
        whenever the sum of the products' magnitudes is below 2**53 (the exact path's integers).

        Parameters
        ----------
        data2 : ndarray, shape (nnz,), optional
            Default: Z's own values (Zᵀ Z).
        """
        n = self.shape[1]
        data2 = self.data if data2 is None else data2
        lengths = np.diff(self.indptr)
        cum = np.cumsum(lengths ** 2)
        out = np.zeros(n * n)
        start = 0
        while start < self.shape[0]:
            before = cum[start - 1] if start else 0
            stop = max(start + 1, int(np.searchsorted(cum, before + max_pairs, side="right")))
            lo, hi = self.indptr[start], self.indptr[stop]
            row_len = np.repeat(lengths[start:stop], lengths[start:stop])   # of each entry's row
            row_lo = np.repeat(self.indptr[start:stop], lengths[start:stop])
            first = np.repeat(np.arange(lo, hi), row_len)
            pos = np.arange(first.size) - np.repeat(np.cumsum(row_len) - row_len, row_len)
            second = np.repeat(row_lo, row_len) + pos
            out += np.bincount(self.indices[first] * n + self.indices[second],
                               weights=self.data[first] * data2[second], minlength=n * n)
            start = stop
        return out.reshape(n, n)

    def tocoo(self):
        """(rows, cols, data) in row-major order, as ``scipy.sparse.csr_matrix.tocoo`` gives them."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(self.indptr)), self.indices, self.data


def joined(parts, dtype=float):
    """The arrays ``parts`` one after the other (an empty array of ``dtype`` when there are none)."""
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _indptr(rows, n_rows):
    """Row pointers of entries whose (sorted) row numbers are ``rows``."""
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return indptr
