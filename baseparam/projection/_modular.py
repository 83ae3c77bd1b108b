"""Exact arithmetic modulo a prime, for robots whose Z is not rational (docs/method.md, "The arithmetic").

Angles that are rational multiples of a turn map through the cyclotomic field Q(ζ_N) to GF(p), p ≡ 1
(mod N) (:class:`CircleMap`), which keeps every algebraic identity of the real robot; other angles map
to exact rational points ((1 − t²)/(1 + t²), 2t/(1 + t²)), t = tan(α/2) (:func:`rational_cos_sin`).
The arithmetic runs in float64 with p < 2**23, so products and the ≤ 80-term sums of the echelon step
stay exact; the caller checks the outcome against the float computation and retries another prime.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

PRIMES = (8388593, 8388587, 8388581, 8388571, 8388547)   # the largest primes below 2**23
MODULUS_LIMIT = 2 ** 23
EXACT_TERMS = 128       # sums of this many products below MODULUS_LIMIT², plus one more residue: below 2**53
MAX_TURN_DENOMINATOR = 10 ** 6      # radian angles: p/q turns with q up to this count as exact


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


class UnluckyPrime(ZeroDivisionError):
    """The prime maps a non-zero number of the description to zero: try another one."""


def is_prime(n: int) -> bool:
    """Whether n is prime, by trial division over an array (the candidate moduli are below 2**23: at most 2 896
    divisors)."""
    return n > 1 and bool(np.all(n % np.arange(2, math.isqrt(n) + 1)))


def _prime_factors(n):
    out, q = set(), 2
    while q * q <= n:
        while n % q == 0:
            out.add(q)
            n //= q
        q += 1
    return out | ({n} if n > 1 else set())


def turn_fraction(angle, unit):
    """The angle as an exact fraction of a full turn, or None if it is not (close to) one."""
    if unit == "deg":
        return Fraction(repr(float(angle))) / 360
    r = float(angle) / (2 * math.pi)
    f = Fraction(r).limit_denominator(MAX_TURN_DENOMINATOR)
    return f if abs(float(f) - r) < 1e-13 else None


class CircleMap:
    """How the cos and sin of the description's angles are mapped into GF(p), and for which primes.

    Parameters
    ----------
    angles : sequence of float
        Every angle that enters the kinematics (description units).
    unit : {'deg', 'rad'}
    """

    def __init__(self, angles, unit):
        self.unit = unit
        turns = [turn_fraction(a, unit) for a in angles]
        self.primes, self.mode, self.N = list(PRIMES), "rational stand-in", None
        # Angles that are fractions of a turn go through the cyclotomic image, which keeps every
        # identity among them (45° + 45° = 90° around a prismatic joint); the others (0.7 rad) get
        # rational stand-ins, algebraically independent of them. Mapping *all* angles to stand-ins
        # as soon as one is generic would lose those identities: Z's image would have a rank the
        # real robot does not have.
        rational = [t for t in turns if t is not None and t.denominator <= MAX_TURN_DENOMINATOR]
        if rational:
            N = math.lcm(4, *[t.denominator for t in rational])
            candidates = (1 + m * N for m in range((MODULUS_LIMIT - 2) // N, 0, -1))
            found = list(itertools.islice(filter(is_prime, candidates), len(PRIMES)))
            if found:
                self.N, self.primes = N, found
                self.mode = "cyclotomic" if len(rational) == len(turns) else "cyclotomic and rational stand-in"
        self._roots = {}

    def _omega(self, p):
        """An element of order exactly N in GF(p)* and its image of i (= ω^(N/4))."""
        if p not in self._roots:
            factors = _prime_factors(self.N)
            for h in range(2, p):
                w = pow(h, (p - 1) // self.N, p)
                if all(pow(w, self.N // q, p) != 1 for q in factors):
                    break
            self._roots[p] = (w, pow(w, self.N // 4, p))
        return self._roots[p]

    def cos_sin(self, angle, p):
        """(cos, sin) of a description angle modulo p (Python ints in [0, p))."""
        t = turn_fraction(angle, self.unit)
        if self.N is None or t is None or self.N % t.denominator:
            return tuple(to_modular(x, p) for x in rational_cos_sin(angle, self.unit))
        w, i = self._omega(p)
        z = pow(w, (t.numerator * (self.N // t.denominator)) % self.N, p)
        zi = pow(z, p - 2, p)
        inv2 = (p + 1) // 2
        return (z + zi) * inv2 % p, (z - zi) * pow(2 * i, p - 2, p) % p


def rref_mod(X, p, reduced=True):
    """Reduced row echelon form of a matrix modulo the prime p.

    Parameters
    ----------
    X : ndarray, shape (k, n)
        Integers in [0, p) (float64 or int64); p < 2**23, so that products stay exact in int64.
    reduced : bool
        False: a row echelon form only (enough for the pivots; about half the work).

    Returns
    -------
    R : ndarray of int64, shape (rank, n)
        The non-zero rows of the (reduced) row echelon form.
    pivots : list of int
        The pivot column of each row, increasing: the leftmost independent columns of X.
    """
    M = np.array(X, dtype=np.int64)
    pivots, r, c = [], 0, 0
    while r < M.shape[0]:
        # Rows r… are zero left of the last pivot, and row r left of this one: the work is on the
        # columns from c on, in the rows with a non-zero at c (the others would only take 0 · row r).
        live = np.flatnonzero(M[r:, c:].any(axis=0))
        if live.size == 0:
            break
        c += int(live[0])
        q = r + int(np.flatnonzero(M[r:, c])[0])
        if q != r:
            M[[r, q]] = M[[q, r]]
        M[r, c:] = M[r, c:] * pow(int(M[r, c]), -1, p) % p
        rows = np.flatnonzero(M[:, c]) if reduced else r + 1 + np.flatnonzero(M[r + 1:, c])
        rows = rows[rows != r]
        if rows.size:
            block = M[rows, c:]
            M[rows, c:] = (block - (block[:, :1] * M[r, c:][None, :]) % p) % p
        pivots.append(c)
        r += 1
    return M[:r], pivots


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
        """Add the rows of a sparse block (:class:`~baseparam.projection._sparse.CSR`, no stored zeros)
        whose entries are in [0, p)."""
        self.nonzero_columns[np.unique(Z.indices)] = True
        for dense in Z.row_chunks(self.chunk):
            X = self._reduce(dense)
            while X.shape[0]:
                self._merge(X[: self.batch])
                X = self._reduce(X[self.batch:])

    def _reduce(self, X):
        """Eliminate the known pivots from the rows of X and drop the rows that become zero."""
        if self.pivots and X.shape[0]:    # (a row fresh from Z can be non-zero at hundreds of pivots)
            X = np.fmod(X - self._product(X, self.pivots, self.B) + self.p, self.p)
        return X[X.any(axis=1)]

    def _product(self, X, columns, M):
        """X[:, columns] @ M modulo p (integers in [0, p) as float64): BLAS sums of at most EXACT_TERMS
        products below p², reduced in between, so every sum is exact in float64."""
        out = np.zeros((X.shape[0], M.shape[1]))
        for s in range(0, len(columns), EXACT_TERMS):
            part = slice(s, s + EXACT_TERMS)
            out = np.fmod(out + X[:, columns[part]] @ M[part], self.p)
        return out

    def _merge(self, rows):
        """Add rows already free of the known pivots: their own RREF, then its pivots eliminated from
        the known rows (whose pivot columns the new rows do not touch), all in pivot order."""
        new, new_pivots = rref_mod(rows, self.p)
        if not new_pivots:
            return
        B = self.B
        if B.shape[0]:      # in float64 BLAS (numpy's int64 products have none), exact as _product makes it
            B = np.fmod(B - self._product(B, new_pivots, new.astype(float)) + self.p, self.p)
        pivots = self.pivots + new_pivots
        order = np.argsort(pivots, kind="stable")
        self.B = np.vstack([B, new])[order].astype(float)
        self.pivots = [pivots[k] for k in order]
