"""Exact arithmetic modulo a prime, for robots whose Z is not rational.

A twist of 30° makes Z irrational, so rank and zero patterns cannot be decided in rational
arithmetic — but they can for a *rational* robot that differs from the given one only by
round-off: replace (cos α, sin α) by the exact rational point on the unit circle
((1 − t²)/(1 + t²), 2t/(1 + t²)) with t the float tan(α/2) read as an exact dyadic rational.
Equal angles give equal points and c² + s² = 1 holds exactly, so every identity that makes a
coefficient vanish (or a column dependent) for the real robot holds for the rational one.

Its Z is computed modulo a prime p < 2**23, in float64 (products and the ≤ 80-term sums of the
echelon step stay below 2**53, so they are exact). The rank modulo p never exceeds the rational
rank and equals it unless p divides particular minors (probability ≈ rank/p ≈ 1e-5); the caller
checks the outcome against the float computation and retries with another prime if they disagree.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

PRIMES = (8388593, 8388587, 8388581)   # the largest primes below 2**23


def to_modular(value, p) -> int:
    """A rational number modulo p (ZeroDivisionError if p divides its denominator)."""
    f = Fraction(value)
    den = f.denominator % p
    if den == 0:
        raise ZeroDivisionError(f"{p} divides the denominator of {f}")
    return f.numerator * pow(den, -1, p) % p


def rational_cos_sin(angle, unit):
    """An exact rational point (c, s) on the unit circle at the given angle (to round-off).

    Multiples of 90° are exact; other angles use t = tan(β/2) for the remainder β ∈ [−45°, 45°].
    """
    if unit == "deg":
        value = Fraction(repr(float(angle)))
        k = round(value / 90)
        beta = math.radians(float(value - 90 * k))
    else:
        k = round(float(angle) / (math.pi / 2))
        beta = float(angle) - k * math.pi / 2
        if abs(beta) < 1e-12:
            beta = 0.0
    t = Fraction(math.tan(beta / 2))
    c, s = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
    for _ in range(k % 4):          # rotate by quarter turns: (c, s) → (−s, c)
        c, s = -s, c
    return c, s


class ModularEchelon:
    """Streaming reduced row echelon form of Z modulo p: pivots (leftmost independent columns)
    and RREF rows (= Y modulo p for the rational robot).

    Parameters
    ----------
    n : int
        Number of columns.
    p : int
        Prime < 2**23.
    """

    def __init__(self, n, p, chunk_rows=20_000, batch_rows=128):
        self.n, self.p, self.chunk, self.batch = n, p, chunk_rows, batch_rows
        self.B = np.zeros((0, n))          # RREF rows, float64 holding integers in [0, p)
        self.pivots = []
        self.nonzero_columns = np.zeros(n, dtype=bool)

    def add(self, Z):
        """Add the rows of a sparse block whose entries are in [0, p)."""
        Z = Z.tocsr()
        self.nonzero_columns[np.unique(Z.indices)] = True
        for start in range(0, Z.shape[0], self.chunk):
            X = self._reduce(Z[start:start + self.chunk].toarray())
            while X.shape[0]:
                self._merge(X[: self.batch])
                X = self._reduce(X[self.batch:])

    def _reduce(self, X):
        """Eliminate the known pivots from the rows of X and drop the rows that become zero."""
        if self.pivots and X.shape[0]:
            X = np.fmod(X - np.fmod(X[:, self.pivots] @ self.B, self.p) + self.p, self.p)
        return X[X.any(axis=1)]

    def _merge(self, rows):
        M = np.vstack([self.B, rows]).astype(np.int64)
        p, r, pivots = self.p, 0, []
        for c in range(self.n):
            nz = np.flatnonzero(M[r:, c])
            if nz.size == 0:
                continue
            q = r + nz[0]
            M[[r, q]] = M[[q, r]]
            M[r] = M[r] * pow(int(M[r, c]), -1, p) % p
            f = M[:, c].copy()
            f[r] = 0
            M = (M - (f[:, None] * M[r][None, :]) % p) % p
            pivots.append(c)
            r += 1
            if r == M.shape[0]:
                break
        self.B, self.pivots = M[:r].astype(float), pivots
