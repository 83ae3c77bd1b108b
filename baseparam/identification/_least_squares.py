"""The least-squares fit behind the estimator: streamed normal equations, OLS/WLS and statistics.

* **Streaming normal equations.** W_b is never held whole: its blocks (16 MB of rows, filled by the
  regressor's C loop, :func:`~baseparam.dynamics.regressors.wide_blocks`) are accumulated into one Gram
  matrix per joint, G_j = W_jᵀ W_j, with W_jᵀ τ_j and τ_jᵀ τ_j, each over the columns joint j's row can
  hold (the others are structurally zero: a 7-DOF arm's products cost 2.5 times less).
  100 000 samples of a 7-DOF arm cost one regressor pass and a few dense products. The Gram is
  equilibrated (unit diagonal) before it is solved, so the conditioning seen is that of the
  data, not of the units; directions the data do not determine (eigenvalues below 1e-12 of the
  largest) are left out, with a warning, instead of producing huge numbers.
* **Ordinary or weighted least squares** (the physically consistent fit, :mod:`._consistent`, starts
  from either). OLS minimises the pooled squared torque error.
  WLS (Gautier) weights each joint's equations by 1/σ_j, σ_j² = ‖ρ_j‖² / (N − c_j) from the OLS
  residuals of joint j (c_j: the parameters that joint sees), which makes the standard deviations
  meaningful when the joints' noise levels differ. Per-joint Grams make both one pass.
* **Statistics.** WLS: Cov(p̂) = σ² (Wᵀ W)⁻¹ (weighted), σ² = ‖ρ‖² / (r − c); OLS: the sandwich
  G⁻¹(Σ_j σ_j² W_jᵀW_j)G⁻¹, right when the joints' noise levels differ; both inflated by N/N_eff
  when τ was low-passed (filtered noise is correlated: N samples hold about N·2f_c/f_s
  independent values; a Monte-Carlo check is in the tests); per parameter the
  standard deviation and the relative standard deviation 100 σ_p / |p| (Gautier's criterion: above
  ~10 % a parameter is poorly identified), the condition number of the base regressor (raw, and
  column-scaled: the units-free figure), and the residual RMS per joint.
* **Parallel filtering** (``Preprocessing.decimate``): each segment's regressor columns and τ are
  low-pass filtered and downsampled together (``scipy.signal.decimate``, zero phase).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from .._checks import counted
from .._validation import ABSURD_PARAMETER, check_states
from ..errors import DataError
from ..dynamics.regressors import wide_blocks

# Eigenvalues of the equilibrated Gram below this fraction of the largest: not determined by the data.
NULL_TOLERANCE = 1e-12
# A regressor column whose norm is below this fraction of the largest column's is round-off (a joint that never
# moves, velocities differentiated from constant positions), not a column the data see: equilibrated, it became a
# unit column of noise and its parameter an estimate of 1e13 (no real column comes within a billionth of another)
ROUND_OFF_COLUMN = 1e-12


@dataclass
class _Normal:
    """Per-joint normal equations of a fit: G_j = W_jᵀW_j (n, R, R), h_j = W_jᵀτ_j (n, R), τ_jᵀτ_j (n,)."""

    G: np.ndarray
    h: np.ndarray
    tt: np.ndarray
    n_samples: int = 0

    @classmethod
    def empty(cls, n, R):
        return cls(np.zeros((n, R, R)), np.zeros((n, R)), np.zeros(n))

    def add(self, part, tau, spans=None):
        """Accumulate a block: part (n, R, s) regressor columns, tau (s, n); ``spans``: per joint the
        columns ``lo:hi`` outside of which its rows are zero (only those products are formed)."""
        if spans is None:
            self.G += np.matmul(part, part.transpose(0, 2, 1))
            self.h += np.einsum("jcs,sj->jc", part, tau)
        else:
            for j, (lo, hi) in enumerate(spans):
                P = part[j, lo:hi]
                self.G[j, lo:hi, lo:hi] += P @ P.T
                self.h[j, lo:hi] += P @ tau[:, j]
        self.tt += (tau ** 2).sum(axis=0)
        self.n_samples += tau.shape[0]

    def residuals(self, x):
        """‖τ_j − W_j x‖² per joint, from the accumulated products (no second pass)."""
        rr = self.tt - 2.0 * self.h @ x + np.einsum("c,jcd,d->j", x, self.G, x)
        return np.maximum(rr, 0.0)   # rounding can make a perfect fit's zero slightly negative


def _seen_columns(G):
    """The columns of the Gram G (R, R) the data see: norm above :data:`ROUND_OFF_COLUMN` of the largest, (R,) bool."""
    d = np.sqrt(np.maximum(np.diag(G), 0.0))
    return d > ROUND_OFF_COLUMN * d.max(initial=0.0)


def _solve(G, h):
    """Least-squares solution of the normal equations G x = h, equilibrated, with its null space.

    Returns
    -------
    x : ndarray, shape (R,)
    G_inv : ndarray, shape (R, R)
        Pseudo-inverse of G (on the determined subspace).
    cond_scaled, cond_raw : float
    null : ndarray, shape (R, k)
        Directions (in the original columns) the data do not determine.
    """
    R = len(h)
    d = np.sqrt(np.maximum(np.diag(G), 0.0))
    seen = _seen_columns(G)                              # an all-zero (or round-off) column: not seen at all
    active = np.flatnonzero(seen)
    G_inv, null = np.zeros((R, R)), [np.eye(R)[:, [c]] for c in np.flatnonzero(~seen)]
    cond_scaled = cond_raw = float("inf")
    if len(active):
        scale = 1.0 / d[active]
        lam, V = np.linalg.eigh(G[np.ix_(active, active)] * np.outer(scale, scale))
        top = lam[-1]
        ok = lam > NULL_TOLERANCE * top
        G_inv[np.ix_(active, active)] = ((V[:, ok] / lam[ok]) @ V[:, ok].T) * np.outer(scale, scale)
        if len(active) == R:
            cond_scaled = float(np.sqrt(top / lam[0])) if lam[0] > 0 else float("inf")
            lam_raw = np.linalg.eigvalsh(G)
            cond_raw = float(np.sqrt(lam_raw[-1] / lam_raw[0])) if lam_raw[0] > 0 else float("inf")
        unseen = np.zeros((R, int((~ok).sum())))
        unseen[active] = V[:, ~ok] * scale[:, None]
        null.append(unseen)
    x = G_inv @ h
    null = np.hstack(null) if null else np.zeros((R, 0))
    return x, G_inv, cond_scaled, cond_raw, null


def _independent_fraction(item, factor):
    """Share of a processed trajectory's (decimated) samples that carry independent noise.

    A zero-phase low-pass at f_c leaves about 2·f_c independent values per second (the effective
    bandwidth of the noise); at a sampling step h·factor that is min(1, 2·f_c·h·factor) per sample.
    """
    record = item.record if isinstance(item.record, dict) else {}
    cutoff = record.get("cutoff_hz")
    if not record.get("filtered") or cutoff is None or len(item.t) < 2:
        return 1.0
    h = float(np.median(np.diff(item.t)))
    return min(1.0, 2.0 * cutoff * h * factor)


class Factors:
    """The stacked base regressor reduced to its triangular factor, per fold of the samples.

    For each fold f (a contiguous share of each trajectory's samples) and joint j the augmented Gram
    G_fj = [W_j τ_j]ᵀ[W_j τ_j] is accumulated block by block (BLAS-3 products: a streamed Householder
    QR of the same blocks is several times slower). A fit on any set of folds and joint weights w_j
    then needs the factor R of the weighted stack, ‖diag(√w)(W x − τ)‖² = ‖R x − z‖² + ρ²: R is the
    Cholesky factor of Σ w_j G_fj (the QR's R up to the signs of its rows), computed after unit-diagonal
    equilibration, so that only the units-free conditioning of the data enters. Its size is that of
    the base set, never of the data.

    Parameters
    ----------
    n_folds, n_dof, rank : int
    """

    def __init__(self, n_folds, n_dof, rank):
        self.G = np.zeros((n_folds, n_dof, rank + 1, rank + 1))
        self.n_samples = np.zeros(n_folds, dtype=np.int64)

    @property
    def n_folds(self):
        return self.G.shape[0]

    def add(self, fold, part, tau, spans=None):
        """Accumulate a block of fold ``fold``: part (n, R, s) regressor columns, tau (s, n); ``spans`` as
        in :meth:`_Normal.add`."""
        if spans is None:
            block = np.concatenate([part, tau.T[:, None, :]], axis=1)            # (n, R + 1, s)
            self.G[fold] += np.matmul(block, block.transpose(0, 2, 1))
        else:
            R, G = part.shape[1], self.G[fold]
            for j, (lo, hi) in enumerate(spans):
                P, t = part[j, lo:hi], tau[:, j]
                G[j, lo:hi, lo:hi] += P @ P.T
                v = P @ t
                G[j, lo:hi, R] += v
                G[j, R, lo:hi] += v
                G[j, R, R] += t @ t
        self.n_samples[fold] += tau.shape[0]

    def combined(self, weights, folds=None):
        """The weighted least-squares problem over ``folds`` (default all) in triangular form.

        Returns
        -------
        R : ndarray, shape (rank, rank)
            Upper triangular, RᵀR = Σ w_j W_jᵀW_j.
        z : ndarray, shape (rank,)
            ‖diag(√w)(W x − τ)‖² = ‖R x − z‖² + rho2.
        rho2 : float
            The residual of the unconstrained least-squares fit (≥ 0).
        total : float
            Σ w_j τ_jᵀτ_j.
        """
        chosen = list(range(self.n_folds)) if folds is None else list(folds)
        Ga = np.einsum("j,fjab->ab", np.asarray(weights, dtype=float), self.G[chosen])
        G, h, total = Ga[:-1, :-1], Ga[:-1, -1], float(Ga[-1, -1])
        d = np.sqrt(np.maximum(np.diag(G), 1e-300))
        Gs = G / np.outer(d, d)
        L = np.linalg.cholesky(Gs + 1e-13 * np.eye(len(d)))             # the jitter only guards round-off
        R = L.T * d[None, :]                                             # RᵀR = G
        z = np.linalg.solve(L, h / d)
        return R, z, max(total - float(z @ z), 0.0), total

    def errors(self, x):
        """‖W x − τ‖² and ‖τ‖² per fold (unweighted, joints pooled), each of shape (n_folds,)."""
        v = np.append(x, -1.0)
        e = np.einsum("a,fjab,b->f", v, self.G, v)
        return np.maximum(e, 0.0), self.G[:, :, -1, -1].sum(axis=1)


def _decimated_segment(base, item, sl, factor, normal, shapes, factors):
    """Parallel filtering of one segment: W_b columns and τ decimated together, then accumulated."""
    from .._processes import import_held
    signal = import_held("scipy.signal")     # here, not at the top: slow to import (and loses a Ctrl-C meanwhile)
    (q, qd, qdd), _ = check_states(base.robot.n_dof, q=item.q[sl], qd=item.qd[sl], qdd=item.qdd[sl])
    if len(q) <= 27 * factor:    # scipy's zero-phase IIR decimation needs this many samples
        return
    W = base.regressor(q, qd, qdd, shapes=None if shapes is None else tuple(a[sl] for a in shapes))   # (s, n, R)
    Wd = signal.decimate(W, factor, axis=0, zero_phase=True)
    tau = signal.decimate(item.tau[sl], factor, axis=0, zero_phase=True)
    kept = item.kept[sl][::factor][:len(tau)]
    Wd, tau = Wd[kept], tau[kept]
    if len(tau):
        part = np.ascontiguousarray(Wd.transpose(1, 2, 0))
        if factors is None:
            normal.add(part, tau)
            return
        for fold, rows in enumerate(np.array_split(np.arange(len(tau)), factors.n_folds)):
            if len(rows):
                factors.add(fold, part[:, :, rows], tau[rows])


def accumulate(base, processed, factor, shapes=None, folds=0, check=True):
    """Per-joint normal equations over the kept samples (parallel filtering when asked).

    Parameters
    ----------
    base : BaseParameters
    processed : list of Processed
    factor : int
        Parallel-filtering (decimation) factor.
    shapes : list of (tuple of 2 ndarray or None), optional
        Per trajectory, the friction shapes at its samples (:func:`._friction.processed_shapes`).
    folds : int
        Also accumulate a :class:`Factors` (streamed QR) with this many folds (0: none).
    check : bool
        Refuse too few samples or a joint whose torque is zero throughout (False: one log of many,
        checked when the logs are pooled, :func:`check_pooled`).

    Returns
    -------
    normal : _Normal
    effective : float
        How many of the accumulated samples carry independent noise (see :func:`_independent_fraction`).
    factors : Factors or None
    """
    normal = _Normal.empty(base.robot.n_dof, base.rank)
    factors = Factors(folds, base.robot.n_dof, base.rank) if folds else None
    effective = 0.0
    for k, item in enumerate(processed):
        refuse_absurd_torque(item.source, item.tau[item.kept])
        before = normal.n_samples
        _accumulate_item(base, item, factor, normal, None if shapes is None else shapes[k], factors)
        after = normal.n_samples if factors is None else int(factors.n_samples.sum())
        effective += (after - before) * _independent_fraction(item, factor)
        normal.n_samples = after
    if factors is not None:              # the folds' augmented Grams hold the normal equations too
        R = base.rank
        normal.G, normal.h = factors.G[:, :, :R, :R].sum(axis=0), factors.G[:, :, :R, R].sum(axis=0)
        normal.tt = factors.G[:, :, R, R].sum(axis=0)
    if check:
        check_pooled(base, normal, processed[0].source, factor)
    return normal, effective, factors


def check_pooled(base, normal, source, factor=1):
    """Refuse normal equations of too few samples, or with a joint whose torque is zero in every sample; ``factor``
    (the decimation's) is named among the causes when it is above 1: it keeps one sample in ``factor``."""
    if normal.n_samples <= base.rank:
        causes = "less rest trimming" + (f", or a decimate factor below {factor}" if factor > 1 else "")
        raise DataError(f"{source}: {counted(normal.n_samples, 'samples')} kept for {base.rank} base parameters; "
                        f"need more data (or {causes})")
    refuse_joint_without_torque(source, normal.tt)


def refuse_absurd_torque(source, tau):
    """Refuse torques ``tau`` (n_samples, n_dof) beyond ±:data:`~baseparam._validation.ABSURD_PARAMETER`, training or
    held out: their squares overflow, and the fit's sums and error figures with them (numpy's raw overflow warnings,
    then inf or NaN; τ × 1e200 in code, which the readers' bounds do not see). One line naming the source, the joint and
    the sample (of ``tau``)."""
    # max and min, not abs(tau).max(): no temporary of the log's size
    if tau.size and not (tau.max() <= ABSURD_PARAMETER and tau.min() >= -ABSURD_PARAMETER):
        sample, joint = np.unravel_index(np.argmax(np.abs(tau)), tau.shape)
        raise DataError(f"{source}: field tau{joint + 1}: absurd value {tau[sample, joint]:g} at sample {sample} "
                        f"(|τ| > {ABSURD_PARAMETER:g}); expected torques in N·m or N")


def refuse_joint_without_torque(source, t2):
    """Refuse data, training or held out, with a joint whose Στ² (``t2``, (n,)) is 0: a dead sensor or a wrong
    column map, whose zeros a fit would take as measured and which has no NRMSE (NaN). A torque of 1e-300 squares
    to 0 just the same, hence the words."""
    dead = np.flatnonzero(t2 == 0)
    if len(dead):
        raise DataError(f"{source}: field tau{dead[0] + 1}: the torque is zero (or its square is) in every sample (a "
                        "dead sensor or a wrong column map?)")


def _accumulate_item(base, item, factor, normal, shapes, factors):
    if factor == 1:
        q, qd, qdd, tau = (a[item.kept] for a in (item.q, item.qd, item.qdd, item.tau))
        (q, qd, qdd), _ = check_states(base.robot.n_dof, q=q, qd=qd, qdd=qdd)
        kept_shapes = None if shapes is None else tuple(a[item.kept] for a in shapes)
        # the folds are contiguous shares of the samples (hold-out of training segments)
        parts = np.array_split(np.arange(len(q)), factors.n_folds) if factors is not None else [np.arange(len(q))]
        for fold, rows in enumerate(parts):
            if not len(rows):
                continue
            sub = slice(int(rows[0]), int(rows[-1]) + 1)
            add = normal.add if factors is None else partial(factors.add, fold)      # one sum, or this fold's
            for sl, part, spans in wide_blocks(base.robot, q[sub], qd[sub], qdd[sub], parameters=base.parameters,
                                               columns=base.pivots, shapes=None if kept_shapes is None
                                               else tuple(a[sub] for a in kept_shapes)):
                add(part, tau[sub][sl], spans)
        return
    for sl in item.segments():
        _decimated_segment(base, item, sl, factor, normal, shapes, factors)


@dataclass
class Fit:
    """What :func:`least_squares` finds: the estimates and their statistics (see the module notes)."""

    coef: np.ndarray                  # (R,)
    std: np.ndarray                   # (R,), inflated by correlation_factor
    sigma: np.ndarray                 # (n_dof,), per-joint residual std of the OLS fit
    sigma_fit: float
    correlation_factor: float
    condition_number: float
    condition_number_scaled: float
    null: np.ndarray                  # (R, k): directions the data do not determine
    weights: np.ndarray               # (n_dof,): the joint weights of the fit (ones for OLS)


def least_squares(normal, method, effective):
    """OLS or WLS solution of the accumulated normal equations, with standard deviations.

    Parameters
    ----------
    normal : _Normal
    method : {'ols', 'wls'}
    effective : float
        Samples carrying independent noise (from :func:`accumulate`).

    Returns
    -------
    Fit
    """
    n, R = normal.h.shape
    G = normal.G.sum(0)                                  # (R, R): the joints' rows pooled
    x, G_inv, cond_s, cond_r, null = _solve(G, normal.h.sum(0))
    rr = normal.residuals(x)
    N = normal.n_samples
    # c_j per joint: the columns fitted in its rows (a round-off column, left at 0, takes no degree of freedom)
    seen = np.count_nonzero((np.diagonal(normal.G, axis1=1, axis2=2) > 0) & _seen_columns(G), axis=1)
    sigma = np.sqrt(rr / np.maximum(N - seen, 1))
    weights = np.ones(n)
    weighted = method == "wls"
    if weighted:
        # A (nearly) noise-free joint would get an unbounded weight, and its σ_j is then only the
        # round-off of the residual sums: weights are bounded to 10⁴ : 1, and σ_j is never taken
        # below 10⁻⁶ of the joint's RMS torque (no sensor is that good; noise-free simulated data
        # then get weights from their torque scales instead of from round-off).
        rms = np.sqrt(normal.tt / max(N, 1))
        floor = np.maximum(1e-2 * sigma.max(), 1e-6 * rms)
        weights = 1.0 / np.maximum(sigma, floor) ** 2 if floor.max() > 0 else np.ones(n)
        Gw, hw = np.einsum("j,jcd->cd", weights, normal.G), weights @ normal.h
        x, G_inv, cond_s, cond_r, null = _solve(Gw, hw)
        rr = normal.residuals(x)
    dof = max(N * n - (R - null.shape[1]), 1)
    sigma_fit = float(np.sqrt((weights * rr).sum() / dof))
    # A low-passed τ has correlated noise: N samples carry about N·2f_c/f_s independent ones,
    # and σ²(WᵀW)⁻¹, which counts every sample, would be that much too optimistic.
    correlation_factor = float(N / max(effective, 1.0))
    if weighted:
        variance = sigma_fit ** 2 * np.diag(G_inv)
    else:
        # OLS under per-joint noise levels σ_j: Cov = G⁻¹ (Σ_j σ_j² W_jᵀW_j) G⁻¹ (the sandwich);
        # σ²G⁻¹ would assume every joint as noisy as their average
        middle = np.einsum("j,jcd->cd", sigma ** 2, normal.G)
        variance = np.einsum("cd,de,ec->c", G_inv, middle, G_inv)
    std = np.sqrt(correlation_factor * np.maximum(variance, 0.0))
    return Fit(coef=x, std=std, sigma=sigma, sigma_fit=sigma_fit, correlation_factor=correlation_factor,
               condition_number=cond_r, condition_number_scaled=cond_s, null=null, weights=weights)
