"""Finite Fourier series trajectories (Swevers et al. 1997) that start and end at rest.

Per joint j, with ω = 2π/T and harmonics l = 1 … K::

    q_j(t)   = q0_j + Σ_l  a_jl/(ω l) · sin(ω l t) − b_jl/(ω l) · cos(ω l t)
    q̇_j(t)   =        Σ_l  a_jl · cos(ω l t) + b_jl · sin(ω l t)
    q̈_j(t)   =        Σ_l −a_jl ω l · sin(ω l t) + b_jl ω l · cos(ω l t)

The series is periodic, so the trajectory can be played again and again; q̇ and q̈ are its exact
derivatives. It is at rest at t = 0 (and so at every multiple of T) when

    Σ_l a_jl = 0         (q̇_j(0) = 0)      and      Σ_l l · b_jl = 0     (q̈_j(0) = 0),

two linear conditions per joint that the design keeps by construction: it searches only the
null space of these conditions (:func:`rest_basis`), so every iterate is at rest at both ends.

Limits between samples. Each of q − q0, q̇, q̈ is a real trigonometric polynomial g of degree K
(period T, mean zero). Bernstein's inequality gives ‖g″‖∞ ≤ (Kω)²‖g‖∞, and at a maximum t* of g
(g′(t*) = 0) the nearest of N equally spaced samples lies within h/2 = T/(2N), so
g(t*) ≤ g(t_s) + ‖g″‖∞ h²/8. Hence, with ε = π²K²/(2N²) (:func:`sampling_margin`),

    max_t g ≤ max_s g + ε‖g‖∞     and     ‖g‖∞ ≤ max_s |g| / (1 − ε),

which turns limits checked at N samples into limits that hold at every instant
(:meth:`FourierSeries.certified_bounds`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import counted, shown
from .._numbers import real_array
from .._validation import check_memory, check_number
from ..errors import ArgumentError
from ..model.checks import MAX_JOINTS
from ..motion import Trajectory

# The largest series taken (design_excitation searches at most 100 harmonics; robots have at most 64 joints):
# a coefficient array beyond them is refused by its shape, before its values are read or copied
MAX_SERIES_HARMONICS = 10_000
REST_ROUND_OFF = 1e-12        # |q̇|, |q̈| at an end, relative to the series' scale, taken as exact rest


def sampling_margin(harmonics, n_samples):
    """ε = π²K²/(2N²): the relative excess of a degree-K trigonometric polynomial over its maximum
    at N equally spaced samples per period (see the module docstring)."""
    return math.pi ** 2 * harmonics ** 2 / (2.0 * n_samples ** 2)


def basis(t, period, harmonics):
    """Matrices mapping one joint's coefficients to its q, q̇, q̈ at times t.

    Parameters
    ----------
    t : ndarray, shape (n_samples,)
    period : float
    harmonics : int

    Returns
    -------
    ndarray, shape (3, n_samples, 2K + 1)
        ``[B_q, B_qd, B_qdd]``; with θ = (q0, a_1 … a_K, b_1 … b_K), ``q = B_q @ θ`` etc.
    """
    w = 2.0 * math.pi / period
    wl = w * np.arange(1, harmonics + 1)
    phase = np.outer(np.asarray(t, dtype=float), wl)
    s, c = np.sin(phase), np.cos(phase)
    out = np.zeros((3, len(phase), 2 * harmonics + 1))
    out[0, :, 0] = 1.0
    out[0, :, 1:harmonics + 1], out[0, :, harmonics + 1:] = s / wl, -c / wl
    out[1, :, 1:harmonics + 1], out[1, :, harmonics + 1:] = c, s
    out[2, :, 1:harmonics + 1], out[2, :, harmonics + 1:] = -s * wl, c * wl
    return out


def _highest_frequency(period, harmonics):
    """ω K = 2π K / period (rad/s), the highest harmonic's angular frequency, as :func:`basis` computes its
    frequencies (inf when beyond the floating-point range)."""
    return 2.0 * math.pi / period * harmonics


def _null_space(row):
    """Orthonormal basis of {x : row · x = 0}, shape (len(row), len(row) − 1)."""
    _, _, vt = np.linalg.svd(np.asarray(row, dtype=float)[None, :])
    return vt[1:].T


def rest_basis(period, harmonics):
    """The coefficients of one joint that start and end at rest, as a linear image of free ones.

    Returns
    -------
    ndarray, shape (2K + 1, 2K − 1)
        N with θ = N @ z: z[0] is q0; z[1:K] and z[K:] are orthonormal coordinates of the
        position amplitudes a_l/(ωl) and b_l/(ωl) (rad or m) on which Σ a_l = 0 and Σ l b_l = 0.
    """
    K = harmonics
    wl = 2.0 * math.pi / period * np.arange(1, K + 1)
    order = np.arange(1, K + 1, dtype=float)
    N = np.zeros((2 * K + 1, 2 * K - 1))
    N[0, 0] = 1.0
    # amplitudes α = a/(ωl), β = b/(ωl): Σ a = ω Σ l α = 0 and Σ l b = ω Σ l² β = 0
    N[1:K + 1, 1:K] = wl[:, None] * _null_space(order)
    N[K + 1:, K:] = wl[:, None] * _null_space(order ** 2)
    return N


class Samples(Trajectory):
    """A trajectory sampled at a fixed rate (SI), what the CSV holds: a :class:`~baseparam.Trajectory`
    without torques, q̇ and q̈ given.

    Attributes
    ----------
    t : ndarray, shape (n_samples,)
    q, qd, qdd : ndarray, shape (n_samples, n_dof)
    """

    _required = ("t", "q", "qd", "qdd")
    _min_samples = 1               # a series sampled too slowly is refused by the design, which says why

    def __init__(self, t, q, qd, qdd, source="Fourier series", **fields):
        super().__init__(t=t, q=q, qd=qd, qdd=qdd, source=source, **fields)

    def __repr__(self):
        return f"Samples(n_samples={len(self.t)}, n_dof={self.q.shape[1]}, t=[{self.t[0]:g}, {self.t[-1]:g}] s)"


def sample_count(period, rate, name="rate", error=ArgumentError) -> int:
    """The samples per period of a series sampled at ``rate`` Hz, round(T·rate), when T·rate is whole (to 10⁻⁹
    relative): else the samples 0, 1/rate, … would either run past T or stop short of it, and the end taken as T
    (at rest) would not be. The one rule of the design's rate and of a series' samples."""
    count = period * rate
    if not (math.isfinite(count) and abs(count - round(count)) <= 1e-9 * max(1.0, count)):     # (round(inf) raises)
        raise error(f"{name}: period × rate = {period:g} s × {rate:g} Hz = {count:.6g} is not a whole number of "
                    "samples")
    if round(count) < 1:    # T·rate ≤ 10⁻⁹ passes as whole (0): the samples would be t = 0 alone, no motion
        raise error(f"{name}: period × rate = {period:g} s × {rate:g} Hz = {count:.6g}: not one sample after t = 0")
    return int(round(count))


def _check_size(shape, name, error=ArgumentError):
    """Refuse a series of more joints or harmonics than any robot or design has, by its shape (n_dof, K)."""
    if len(shape) == 2 and (shape[0] > MAX_JOINTS or shape[1] > MAX_SERIES_HARMONICS):
        raise error(f"{name}: expected at most {MAX_JOINTS} joints and {MAX_SERIES_HARMONICS} harmonics, got "
                    f"{shape[0]} and {shape[1]}")


@dataclass(frozen=True, eq=False)    # arrays have no truth value: __eq__ and __hash__ below compare values
class FourierSeries:
    """Joint trajectories as finite Fourier series (module docstring: the convention).

    Attributes
    ----------
    period : float
        T in s.
    q0 : ndarray, shape (n_dof,), read-only
        Offsets (rad or m).
    a, b : ndarray, shape (n_dof, K), read-only
        Velocity amplitudes of harmonic l = 1 … K (rad/s or m/s): q̇ = Σ a cos + b sin. At most
        :data:`~baseparam.model.checks.MAX_JOINTS` (64) joints and :data:`MAX_SERIES_HARMONICS` (10 000) harmonics.
    """

    period: float
    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray

    def __post_init__(self):
        period = check_number(self.period, "period", low=0, strict=True, expected="a period > 0 in s")
        q0 = real_array("q0", self.q0)
        a, b = real_array("a", self.a), real_array("b", self.b)
        _check_size(a.shape, "a")
        if q0.ndim != 1 or a.ndim != 2 or a.shape != b.shape or a.shape[0] != q0.shape[0] or a.shape[1] < 1:
            raise ArgumentError(f"q0, a, b: expected shapes (n_dof,), (n_dof, K), (n_dof, K) with K ≥ 1, got "
                                f"{q0.shape}, {a.shape}, {b.shape}")
        if not math.isfinite(_highest_frequency(period, a.shape[1])):
            # 2π/5e-324 is inf: every q, q̇, q̈ of the series would be NaN (evaluate, certified_bounds), silently
            raise ArgumentError(f"period: {period:g} s is too short for {counted(a.shape[1], 'harmonics')}: the "
                                "angular frequency 2π K / period is beyond the floating-point range")
        for name, value in (("q0", q0), ("a", a), ("b", b)):
            if not np.isfinite(value).all():
                raise ArgumentError(f"{name}: contains NaN or inf")
        object.__setattr__(self, "period", period)
        # the coefficients as checked, kept read-only: the caller's array stayed the field, so a change to it
        # afterwards changed a frozen series (and its hash, inside a set or a dict) past its checks
        for name, value in (("q0", q0), ("a", a), ("b", b)):
            value = np.array(value, dtype=np.float64)
            value.flags.writeable = False
            object.__setattr__(self, name, value)

    def __reduce__(self):
        # a copy (pickle, copy.deepcopy) made again by the constructor: the default one restored writeable arrays
        return (type(self), (self.period, self.q0, self.a, self.b))

    def _key(self):
        # + 0.0: -0.0 becomes 0.0, whose bytes differ though the two compare equal (no NaN: checked when made; the
        # fields are float64, made so in __post_init__)
        return (self.period, self.a.shape, *((v + 0.0).tobytes() for v in (self.q0, self.a, self.b)))

    def __eq__(self, other):
        """Equal when period and coefficients are equal number for number: a series is a value, as an
        :class:`~baseparam.Inertia` is (the dataclass ``==`` raised ValueError on its arrays)."""
        if not isinstance(other, FourierSeries):
            return NotImplemented
        return (self.period == other.period and np.array_equal(self.q0, other.q0)
                and np.array_equal(self.a, other.a) and np.array_equal(self.b, other.b))

    def __hash__(self):
        return hash(self._key())

    @property
    def harmonics(self) -> int:
        return int(self.a.shape[1])

    @property
    def n_dof(self) -> int:
        return int(self.a.shape[0])

    @property
    def coefficients(self):
        """θ per joint, shape (n_dof, 2K + 1): (q0, a_1 … a_K, b_1 … b_K)."""
        return np.hstack([self.q0[:, None], self.a, self.b])

    @classmethod
    def from_coefficients(cls, period, theta):
        """The series of θ, shape (n_dof, 2K + 1), as :attr:`coefficients` lays it out."""
        theta = real_array("theta", theta)
        if theta.ndim != 2 or theta.shape[1] < 3 or theta.shape[1] % 2 != 1:
            raise ArgumentError(f"theta: expected shape (n_dof, 2K + 1) with K ≥ 1, got {theta.shape}")
        K = (theta.shape[1] - 1) // 2
        _check_size((theta.shape[0], K), "theta")
        return cls(period, theta[:, 0].copy(), theta[:, 1:K + 1].copy(), theta[:, K + 1:].copy())   # period checked

    def evaluate(self, t):
        """q, q̇, q̈ at times t (s), each of shape (n_samples, n_dof)."""
        t = real_array("t", t)
        # the memory before any value is read: a broadcast view of 10⁹ times costs none, its scan seconds
        floats = 3 * (2 * self.harmonics + 1) + 6 * self.harmonics + 3 * self.n_dof     # per sample, as times()
        check_memory(8 * t.size * floats, lambda need, allowed: f"t: {t.size:.3g} times would need about {need} "
                     f"of memory, more than the {allowed} available")
        if t.ndim > 1 or not np.isfinite(t).all():
            raise ArgumentError(f"t: expected finite times (s), one or of shape (S,), got shape {t.shape}"
                                f"{'' if np.isfinite(t).all() else ' with NaN or inf'}")
        latest = float(np.abs(t).max()) if t.size else 0.0
        if not math.isfinite(_highest_frequency(self.period, self.harmonics) * latest):
            # sin and cos of an infinite phase: NaN q, q̇, q̈ with numpy's raw warnings
            raise ArgumentError(f"t: a time of {latest:g} s is beyond the floating-point range of the series' phase "
                                f"(2π K t / period, K = {self.harmonics}, period {self.period:g} s)")
        B = basis(np.atleast_1d(t), self.period, self.harmonics)
        theta = self.coefficients.T
        return B[0] @ theta, B[1] @ theta, B[2] @ theta

    def times(self, rate):
        """Sample times 0, 1/rate, …, T (both ends included), shape (T·rate + 1,); T·rate must be a whole number
        (:func:`sample_count`)."""
        rate = check_number(rate, "rate", low=0, strict=True, expected="a rate > 0 in Hz")
        count = self.period * rate
        # per sample: the basis (3 (2K + 1)), its phases, sines, cosines and their scaled copies (6 K), q, q̇, q̈
        # and the checks' copies of them (6 n), t and its steps, as float64: an upper bound of the peak
        floats = 3 * (2 * self.harmonics + 1) + 6 * self.harmonics + 6 * self.n_dof + 2
        check_memory(8 * (count + 1) * floats, lambda need, allowed: f"rate: {count:.3g} samples of "
                     f"{self.period:g} s at {rate:g} Hz would need about {need} of memory, more than the {allowed} "
                     "available")
        # T·rate must be whole: else the samples run past T (1 s at 2.7 Hz ends at 1.11 s) or, below 1/(2T), are the
        # start alone
        return np.arange(sample_count(self.period, rate) + 1) / float(rate)

    def sample(self, rate):
        """:class:`Samples` at ``rate`` Hz from t = 0 to t = T inclusive (T·rate a whole number).

        A series at rest (Σ a_l = 0, Σ l·b_l = 0, to round-off) has q̇ and q̈ of exactly zero in the
        first and last samples: the series gives them only to round-off, whose sign would otherwise
        make the Coulomb columns sign(q̇) of the rest states ±1 (and cond(W_b) not that of the file).
        """
        t = self.times(rate)
        q, qd, qdd = self.evaluate(t)
        velocity_scale = np.abs(self.a).sum(axis=1) + np.abs(self.b).sum(axis=1)      # bounds |q̇| per joint
        for values, scale in ((qd, velocity_scale),
                              (qdd, 2.0 * math.pi / self.period * self.harmonics * velocity_scale)):
            ends = values[[0, -1]]
            values[[0, -1]] = np.where(np.abs(ends) <= REST_ROUND_OFF * scale, 0.0, ends)
        return Samples(t, q, qd, qdd)

    def certified_bounds(self, n_samples=None):
        """Bounds that hold at every instant, from N samples per period (module docstring).

        Returns
        -------
        dict of ndarray, each shape (n_dof,)
            ``q_min``, ``q_max``, ``qd_max`` (of |q̇|), ``qdd_max`` (of |q̈|).
        """
        N = 64 * self.harmonics if n_samples is None else check_number(n_samples, "n_samples", low=1, integer=True)
        # the memory first: an int beyond the float range (10**400) in the margin's float arithmetic would be a bare
        # OverflowError
        check_memory(8 * N * (3 * (2 * self.harmonics + 1) + 8 * self.harmonics + 3 * self.n_dof), lambda need, allowed:
                     f"n_samples: {shown(N)} samples would need about {need} of memory, more than the {allowed} "
                     "available")
        eps = sampling_margin(self.harmonics, N)
        if not eps < 0.5:       # too few samples to bound the series between them (the margin's own range)
            raise ArgumentError(f"n_samples: expected more than {math.pi * self.harmonics:.3g} samples per period for "
                                f"{self.harmonics} harmonics, got {N}")
        q, qd, qdd = self.evaluate(np.arange(N) * (self.period / N))
        g = q - self.q0
        spread = eps / (1.0 - eps) * np.abs(g).max(axis=0)
        return {"q_min": self.q0 + g.min(axis=0) - spread, "q_max": self.q0 + g.max(axis=0) + spread,
                "qd_max": np.abs(qd).max(axis=0) / (1.0 - eps), "qdd_max": np.abs(qdd).max(axis=0) / (1.0 - eps)}

    def to_dict(self):
        """The coefficients as JSON-ready lists (docs/formats.md, "Excitation design")."""
        return {"convention": "q = q0 + sum_l a_l/(w l) sin(w l t) - b_l/(w l) cos(w l t), w = 2 pi / period",
                "q0": self.q0.tolist(), "a": self.a.tolist(), "b": self.b.tolist(),
                "q_start": self.evaluate(0.0)[0][0].tolist()}

    def __repr__(self):
        return f"FourierSeries(n_dof={self.n_dof}, harmonics={self.harmonics}, period={self.period:g})"
