"""The engine's numpy-only CSR blocks against scipy.sparse (an independent implementation)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from baseparam.projection._sparse import CSR


def _random_coo(rng, shape, k, integer=False):
    rows, cols = rng.integers(0, shape[0], k), rng.integers(0, shape[1], k)   # duplicates on purpose
    data = rng.integers(-5, 6, k).astype(float) if integer else rng.normal(size=k)
    return data, rows, cols


@pytest.mark.parametrize("shape, k", [((0, 7), 0), ((1, 5), 3), ((40, 12), 100), ((300, 9), 1500)])
def test_from_coo_sums_duplicates_like_scipy(shape, k):
    rng = np.random.default_rng(k)
    data, rows, cols = _random_coo(rng, shape, k, integer=True)
    ours, ref = CSR.from_coo(data, rows, cols, shape), sp.csr_matrix((data, (rows, cols)), shape=shape)
    assert ours.shape == ref.shape and ours.nnz == ref.nnz
    np.testing.assert_array_equal(ours.indptr, ref.indptr)
    np.testing.assert_array_equal(ours.indices, ref.indices)
    np.testing.assert_array_equal(ours.data, ref.data)
    np.testing.assert_array_equal(np.vstack(list(ours.row_chunks(7))) if shape[0] else np.zeros(shape),
                                  ref.toarray())
    r, c, v = ours.tocoo()
    coo = ref.tocoo()
    for a, b in ((r, coo.row), (c, coo.col), (v, coo.data)):
        np.testing.assert_array_equal(a, b)


def test_dense_rows_dot_and_eliminate_zeros():
    rng = np.random.default_rng(3)
    data, rows, cols = _random_coo(rng, (50, 8), 120, integer=True)
    Z = CSR.from_coo(data, rows, cols, (50, 8))
    dense = sp.csr_matrix((data, (rows, cols)), shape=(50, 8)).toarray()
    np.testing.assert_array_equal(Z.dense_rows(10, 23), dense[10:23])
    np.testing.assert_array_equal(Z.dense_rows(45, 60), dense[45:])
    M = rng.integers(-3, 4, (8, 5)).astype(float)
    P = Z.dot(M, chunk_rows=16)
    assert P.shape == (50, 5) and not (P.data == 0).any()
    np.testing.assert_array_equal(np.vstack(list(P.row_chunks(16))), dense @ M)
    Q = Z.with_data(np.where(Z.data > 0, Z.data, 0.0)).eliminate_zeros()
    ref = sp.csr_matrix(np.where(dense > 0, dense, 0.0))
    np.testing.assert_array_equal(Q.indptr, ref.indptr)
    np.testing.assert_array_equal(Q.indices, ref.indices)
    np.testing.assert_array_equal(Q.data, ref.data)


@pytest.mark.parametrize("max_pairs", [1, 50, 1 << 21])
def test_gram_is_the_exact_product(max_pairs):
    rng = np.random.default_rng(max_pairs)
    data, rows, cols = _random_coo(rng, (200, 11), 700, integer=True)
    Z = CSR.from_coo(data, rows, cols, (200, 11))
    other = rng.integers(-9, 10, Z.nnz).astype(float)
    A, B = (sp.csr_matrix((d, Z.indices, Z.indptr), shape=Z.shape) for d in (Z.data, other))
    np.testing.assert_array_equal(Z.gram(max_pairs=max_pairs), (A.T @ A).toarray())
    np.testing.assert_array_equal(Z.gram(other, max_pairs=max_pairs), (A.T @ B).toarray())
