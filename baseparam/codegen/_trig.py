"""The closed form of the base regressor's entries, without ``simplify`` (:mod:`.equations` prints them).

The base regressor's expression graph is evaluated over python-flint's polynomials with rational
coefficients (:func:`graph_polynomials`); every entry is reduced modulo s_k² + c_k² − 1
(:meth:`_Ring.reduce`, a Gröbner normal form: equal values are equal polynomials); for each group of
consecutive parallel revolute axes (:func:`parallel_axes`) the entry is also written with summed angles
and rates, and in Fourier form over the group's angles (:func:`_fourier`: c2c3 − s2s3 is c23 by
itself), and the form with the fewest operations (:func:`_cost`) is kept.
"""
from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..dynamics.expressions import ADD, CONST, INPUT, MUL, NEG, SUB, live_nodes

RATES = ("qd", "qdd", "Qd", "Qdd", "sgn", "stb")
_BINARY = {ADD: operator.add, SUB: operator.sub, MUL: operator.mul}


# -- the graph over polynomials ------------------------------------------------------------------------
# How far (relative) a constant may be from its 12-digit decimal and still be read as that decimal: the float
# arithmetic that folded short decimals into it (products, unit scales) is off by a few units in the last place,
# 1e-16 to 1e-15; a length of 13 to 17 digits (CAD geometry) is 1e-13 to 5e-12 off its first 12 digits.
SHORT_DECIMAL_TOLERANCE = 1e-14


def _rational(x):
    """A graph constant as the short decimal it stands for, read to its last digit when it is none.

    Its 12 significant digits when they are a decimal of at most 10 digits (1000.3 − 1000.1 is 0.2 however far
    the cancellation left the float) or when the float is within :data:`SHORT_DECIMAL_TOLERANCE` of them (the
    products of short decimals: 0.4318 · 0.0203 is 0.00876554, whose float reads 0.008765540000000001); else the
    shortest decimal giving the same float (``repr``): 0.123456789012345, not cut to 0.123456789012."""
    x = float(x)
    short = Fraction(f"{x:.12g}")
    if short == Fraction(f"{x:.10g}") or abs(float(short) - x) <= SHORT_DECIMAL_TOLERANCE * abs(x):
        return short
    return Fraction(repr(x))


class _Ring:
    """python-flint's polynomials over Q in the generators of one robot's equations."""

    def __init__(self, robot):
        import flint

        n = robot.n_dof
        self.n, self.flint = n, flint
        # s before c: lex order makes s_k² the leading term of s² + c² − 1
        self.names = tuple([f"{x}{k}" for pair in ("sc", "SC") for k in range(n) for x in pair]
                           + [f"{kind}{k}" for kind in ("d",) + RATES for k in range(n)])
        self.ctx = flint.fmpq_mpoly_ctx.get(self.names, "lex")
        self.index = {name: i for i, name in enumerate(self.names)}
        self.gens = self.ctx.gens()

    def gen(self, name, k):
        return self.gens[self.index[f"{name}{k}"]]

    def const(self, value):
        q = _rational(value)
        return self.ctx.from_dict({(0,) * len(self.names): self.flint.fmpq(q.numerator, q.denominator)}) \
            if q else self.ctx.from_dict({})

    def reduce(self, p, absolute=False):
        """Normal form modulo s² + c² − 1 of every revolute angle (relative, or the summed ones)."""
        for k in range(self.n):
            for s, c in (("s", "c"), ("S", "C")) if absolute else (("s", "c"),):
                if p.degrees()[self.index[f"{s}{k}"]] >= 2:
                    p = p % (self.gen(s, k) ** 2 + self.gen(c, k) ** 2 - 1)
        return p


class TermLimit(Exception):
    """graph_polynomials held more terms, or took more memory, than allowed: ("terms" or "bytes", the figure)."""


# the resident memory is read each time the held terms grow by this many (a read per node would cost more than
# the small nodes; ~150 bytes a term: every 40 MB or so)
_MEMORY_CHECK_TERMS = 1 << 18


def graph_polynomials(ring, g, roots, inputs, limit=None, memory=None):
    """The graph's roots as polynomials: each live node once, in topological order.

    Parameters
    ----------
    inputs : callable
        ``inputs(name, k) -> polynomial`` for the graph input (name, k).
    limit : int, optional
        Raise :class:`TermLimit` once the nodes' polynomials hold more terms than this in all (they are all
        held until the end).
    memory : int, optional
        Raise :class:`TermLimit` once the process's resident memory has grown by more than this (bytes): the
        bytes a term takes grow with the number of variables, so the count alone cannot bound them.
    """
    from .._memory import resident_bytes
    start = resident_bytes() if memory is not None else None
    value, held, checked = {}, 0, 0
    for i in live_nodes(g, roots):
        op, a = g.ops[i], g.args[i]
        if op == CONST:
            value[i] = ring.const(a)
        elif op == INPUT:
            value[i] = inputs(*a)
        elif op in _BINARY:
            value[i] = _BINARY[op](value[a[0]], value[a[1]])
        elif op == NEG:
            value[i] = -value[a]
        else:                                  # the regressor graph never divides
            raise ValueError(f"graph_polynomials: operation {op!r}")
        held += len(value[i])
        if limit is not None and held > limit:
            raise TermLimit("terms", held)
        if start is not None and held - checked > _MEMORY_CHECK_TERMS:
            checked = held
            grown = resident_bytes() - start
            if grown > memory:
                raise TermLimit("bytes", grown)
    return [value[r] for r in roots]


# -- kinematics: parallel consecutive axes ---------------------------------------------------------------
def parallel_axes(robot, seed=0):
    """{k: σ} for each revolute joint k whose axis is σ·(its revolute parent's axis), σ = ±1, at a random
    pose (parallel there means parallel everywhere: the axes turn together)."""
    from ..model.joint_model import joint_models, product, si_readers, to_si

    rng = np.random.default_rng(seed)
    models = joint_models(robot)
    si = si_readers(robot)
    frames, axes, out = [None] * robot.n_dof, [None] * robot.n_dof, {}
    for k, m in enumerate(models):
        p = robot.parents[k]
        T = (frames[p] if p >= 0 else np.eye(4)) @ product(m.before, *si)
        axes[k] = T[:3, 2]
        x = rng.uniform(-math.pi, math.pi) + to_si(robot, m.motion)
        frames[k] = T @ m.motion_matrix(np.array([x]))[0] @ product(m.after, *si)
        if p >= 0 and m.is_revolute and models[p].is_revolute:
            dot = float(axes[k] @ axes[p])
            if abs(abs(dot) - 1.0) < 1e-9:
                out[k] = 1 if dot > 0 else -1
    return out


def _groups(robot, parallel):
    """Per joint, the root of its run of parallel axes and the members from the root to it."""
    chain = {}
    for k in range(robot.n_dof):
        p = robot.parents[k]
        chain[k] = chain[p] + [k] if k in parallel else [k]
    return chain


# -- names ---------------------------------------------------------------------------------------------
def _label(members, n):
    """Joints j … k as Telegin writes them: '23' for q2 + q3 (',' between numbers ≥ 10)."""
    a, b = members[0] + 1, members[-1] + 1
    if a == b:
        return f"{a}"
    return f"{a}{b}" if n < 10 else f"{a},{b}"


def _terms(poly):
    """A flint polynomial as {(exponents, trig key): Fraction}, the trig key () (no Fourier factor)."""
    return {(tuple(e), ()): Fraction(int(c.p), int(c.q)) for e, c in poly.to_dict().items()}


def _cost(terms, rate_index):
    """Operations to evaluate terms collected by their rate monomials (an estimate: products of the
    factors, one more for a coefficient ≠ ±1, one addition between terms)."""
    groups, rate_of = {}, operator.itemgetter(*rate_index)     # a tuple: every robot has 6 rates a joint
    for (exps, key), coef in terms.items():
        rate = rate_of(exps)
        groups.setdefault(rate, []).append((exps, key, coef))
    muls = adds = 0
    for rate, items in groups.items():
        adds += len(items) - 1
        for exps, key, coef in items:
            deg = sum(exps) - sum(rate) + len(key)
            muls += max(deg - 1, 0) + (abs(coef) != 1 and deg > 0)
        muls += sum(rate) - (1 if len(items) == 1 and all(abs(c) == 1 and sum(e) == sum(rate) and not k
                                                          for e, k, c in items) else 0)
    return muls + adds + len(groups) - 1


@functools.lru_cache(maxsize=4096)
def _fourier_of_powers(powers):
    """Π_k c_k^a s_k^b over one group's members (``powers``: (a, b) per member) in Fourier form, the real parts
    of Σ a_n e^{i n·θ}: ((trig key, coefficient), …), the key () for the constant. The terms of a
    regressor repeat few such products (PUMA 560: 21 000 calls, a few dozen products), so each is expanded
    once. The result is a tuple of immutable pairs, safe to share."""
    out = {(0,) * len(powers): (Fraction(1), Fraction(0))}
    half = Fraction(1, 2)
    for m, pair in enumerate(powers):
        for power, factor in zip(pair, (((half, 0), (half, 0)), ((0, -half), (0, half)))):
            for _ in range(power):
                new = {}
                for n, (re, im) in out.items():
                    for step, (fr, fi) in zip((1, -1), factor):
                        key = n[:m] + (n[m] + step,) + n[m + 1:]
                        a, b = new.get(key, (Fraction(0), Fraction(0)))
                        new[key] = (a + re * fr - im * fi, b + re * fi + im * fr)
                out = {n: v for n, v in new.items() if v != (0, 0)}
    real = []
    for n, (re, im) in out.items():
        first = next((x for x in n if x), 0)
        if first < 0:
            continue
        if first == 0:
            real.append(((), re))
        else:             # a e^{inθ} + ā e^{-inθ} = 2 Re a cos nθ − 2 Im a sin nθ
            if re:
                real.append((("c", n), 2 * re))
            if im:
                real.append((("s", n), -2 * im))
    return tuple(real)


def _fourier(terms, groups, index):
    """Terms with each parallel group's c, s rewritten as cos/sin of integer combinations of its angles
    (a canonical form: c2c3 − s2s3 is c23)."""
    trig_positions = {index[f"{x}{k}"] for members in groups for k in members for x in "cs"}
    # per term, the exponents of the groups' c, s read by position and the rest kept by a 0/1 mask: looking the
    # names up per term and member, and a set's membership per exponent, would take a third of this function's time
    keep = tuple(0 if i in trig_positions else 1 for i in range(len(index)))
    positions = [tuple((index[f"c{k}"], index[f"s{k}"]) for k in members) for members in groups]
    # the sums in FLINT's rationals (fmpq), Fractions again at the end: Fraction's arithmetic in Python would take
    # half the time (a profile of 30 runs); the same exact values, kept in the same order
    out = {}
    for (exps, key), coef in terms.items():
        pieces = [((), _fmpq(coef))]
        for g, pairs in enumerate(positions):
            factor = _fourier_of_powers_fmpq(tuple((exps[c], exps[s]) for c, s in pairs))
            pieces = [(k + ((g,) + f,) if f else k, c * d) for k, c in pieces for f, d in factor]
        rest = tuple([e if k else 0 for e, k in zip(exps, keep)])     # the int 0 where dropped (exps: FLINT's)
        for k, c in pieces:
            term = (rest, key + k)
            out[term] = out[term] + c if term in out else c
    return {term: Fraction(int(c.p), int(c.q)) for term, c in out.items() if c}


def _fmpq(x):
    """A Fraction as FLINT's rational."""
    import flint
    return flint.fmpq(x.numerator, x.denominator)


@functools.lru_cache(maxsize=4096)
def _fourier_of_powers_fmpq(powers):
    """:func:`_fourier_of_powers` with FLINT's rationals (immutable, safe to share)."""
    return tuple((f, _fmpq(d)) for f, d in _fourier_of_powers(powers))


MAX_TERMS = 100_000     # after reduction: PUMA 560 12 000, Panda 41 000, the generic 7R skew7.yaml 350 000
# The expansion holds every node's polynomial: 8 to 31 times the terms of the reduced result (PUMA 560 144 000 for
# 12 000, Panda 640 000 for 41 000, skew7 10.9 M for 350 000), about 140 bytes each at 7 joints (skew7: 3.1 GB).
# Beyond 64 times, the result cannot fit max_terms; without this bound a generic 20-joint chain would take 17 GB in
# 60 s before the size check after the reduction could refuse it.
EXPANSION_PER_TERM = 64


def closed_forms(base, seed=0, max_terms=MAX_TERMS, choices=None, max_memory=None):
    """Each base-regressor entry W_b[i, r] as terms (:func:`_terms`) in its shortest form, with the gravity
    part apart (divided by |g|).

    choices : list of list of (str, bool), optional
        The form of every entry (:attr:`Forms.choices` of another run): the same forms at other lengths.
    max_memory : int or str, optional
        Memory the expansion may use (:func:`baseparam._memory.budget`).

    Raises
    ------
    ResourceLimitError
        More than ``max_terms`` terms in all (printing them would take SymPy minutes), or an expansion holding
        more than :data:`EXPANSION_PER_TERM` times as many, or more than the memory.

    Returns
    -------
    Forms
        ``forms[i][r] = (dynamic terms, gravity terms)`` and what naming them needs.
    """
    from ..dynamics.regressor_graph import build
    from ..model.joint_model import exact_cos_sin, joint_models

    robot, n, R = base.robot, base.robot.n_dof, base.rank
    models = joint_models(robot)
    revolute = [m.is_revolute for m in models]
    parallel = parallel_axes(robot, seed)
    chain = _groups(robot, parallel)
    ring = _Ring(robot)

    # joint angles: an offset that is a multiple of 90° folds into the angle (cos(q − 90°) = sin q)
    folded, offsets = {}, []
    for k, m in enumerate(models):
        off = m.offset
        if revolute[k] and off != 0:
            co, so, exact = exact_cos_sin(off, robot.angle_unit)
            if exact and round(co) == co and round(so) == so:
                folded[k] = (int(co), int(so))
                off = 0.0
        offsets.append(float(off) * (robot.angle_scale if revolute[k] else robot.length_scale))

    def inputs(name, k):
        if name in ("c", "s") and k in folded:
            co, so = folded[k]
            c, s = ring.gen("c", k), ring.gen("s", k)
            return co * c - so * s if name == "c" else so * c + co * s
        return ring.gen(name, k)

    from .._memory import budget, format_size, resident_bytes
    from ..errors import ResourceLimitError
    room = budget(max_memory)
    # half the memory for the two expansions together: the reduction of W and D that follows takes as much again
    start = resident_bytes() if room is not None else None

    def entries(gravity):          # the base regressor (n, R) as polynomials, with or without gravity
        graph, out = build(robot, base.parameters, base.pivots, gravity=gravity)
        M = [[ring.ctx.from_dict({})] * R for _ in range(n)]
        memory = None if start is None else max(room // 2 - (resident_bytes() - start), 0)
        try:
            values = graph_polynomials(ring, graph, [o[2] for o in out], inputs, EXPANSION_PER_TERM * max_terms,
                                       memory)
        except TermLimit as exc:
            kind, figure = exc.args
            took = (f"more than {figure} terms, {EXPANSION_PER_TERM} times max_terms={max_terms}" if kind == "terms"
                    else f"{format_size(figure)} of memory, more than half of {format_size(room)}")
            raise ResourceLimitError(f"equations: {robot.name}: expanding the closed form took {took}; too long to "
                                     "print (for evaluation use baseparam export)") from None
        for (j, r, _), value in zip(out, values):
            M[j][r] = value
        return M
    W, D = entries(True), entries(False)
    g_mag = float(np.linalg.norm(robot.gravity_si))
    g_exact = _rational(g_mag) if g_mag else Fraction(1)
    gq = ring.flint.fmpq(g_exact.numerator, g_exact.denominator)

    # the summed forms: angles and rates of each run of parallel axes
    to_abs_trig, to_abs_rate = {}, {}
    for k in range(n):
        members = chain[k]
        if len(members) == 1:
            continue
        p = members[-2]
        sigma = parallel[k]
        Cp, Sp = (ring.gen("C", p), ring.gen("S", p)) if len(chain[p]) > 1 else (ring.gen("c", p), ring.gen("s", p))
        Ck, Sk = ring.gen("C", k), ring.gen("S", k)
        to_abs_trig[f"c{k}"] = Ck * Cp + Sk * Sp
        to_abs_trig[f"s{k}"] = sigma * (Sk * Cp - Ck * Sp)
        for rate in ("qd", "qdd"):
            up = rate.capitalize()
            prev = ring.gen(up, p) if len(chain[p]) > 1 else ring.gen(rate, p)
            to_abs_rate[f"{rate}{k}"] = sigma * (ring.gen(up, k) - prev)
    gens = list(ring.gens)

    def substituted(poly, table):
        return poly.compose(*[table.get(name, gens[i]) for i, name in enumerate(ring.names)]) if table else poly

    fourier_groups = [chain[k] for k in range(n) if len(chain[k]) > 1 and not any(
        chain[m][:len(chain[k])] == chain[k] and len(chain[m]) > len(chain[k]) for m in range(n))]
    rate_index = [i for i, name in enumerate(ring.names) if name.rstrip("0123456789") in RATES]
    reduced = [[(ring.reduce(D[j][r]), ring.reduce(W[j][r] - D[j][r])) for r in range(R)] for j in range(n)]
    size = sum(len(d) + len(s) for row in reduced for d, s in row)
    if size > max_terms:
        raise ResourceLimitError(f"equations: {robot.name}: the closed form has {size} terms (more than "
                                 f"max_terms={max_terms}), too long to print; for evaluation use baseparam export")
    trigs = ("relative", "absolute", "fourier") if to_abs_trig else ("relative",)
    options = [(trig, rate) for trig in trigs for rate in ((False, True) if to_abs_rate else (False,))]

    def best(j, r):
        """((dynamic terms, gravity terms), the form) of entry (j, r): the cheapest form, the first of equal cost;
        or the form given (then nothing is costed: the 30 runs of ``--symbolic all`` on a 6-joint arm each
        costed every entry)."""
        dyn, stat = reduced[j][r]
        if not stat.is_zero():
            stat = stat / gq
        made = _EntryForms(dyn, stat, ring, to_abs_trig, to_abs_rate, fourier_groups, substituted)
        if choices is not None:
            pick = tuple(choices[j][r])
            return made.terms(*pick), pick
        costed = []
        for option in options:
            d, s = made.terms(*option)
            costed.append((_cost(d, rate_index) + made.gravity_cost(option[0], s, rate_index)
                           + (bool(d) and bool(s)), d, s, option))
        _, d, s, pick = min(costed, key=lambda f: f[0])
        return (d, s), pick

    picked = [[best(j, r) for r in range(R)] for j in range(n)]
    forms, chosen = ([[entry[i] for entry in row] for row in picked] for i in (0, 1))
    return Forms(ring, forms, chain, parallel, tuple(offsets), revolute, fourier_groups, rate_index, g_mag, chosen)


class _EntryForms:
    """One entry's terms in each form (trig: relative, absolute or Fourier angles; rate: relative or summed rates),
    each piece made once for all the forms that share it: the gravity terms do not depend on the rates, and the
    Fourier forms start from the relative ones (closed_forms tried six forms per entry, each from the start)."""

    def __init__(self, dyn, stat, ring, to_abs_trig, to_abs_rate, fourier_groups, substituted):
        self.dyn, self.stat, self.ring = dyn, stat, ring
        self.to_abs_trig, self.to_abs_rate, self.fourier_groups = to_abs_trig, to_abs_rate, fourier_groups
        self.substituted, self.made = substituted, {}

    def _once(self, key, make):
        if key not in self.made:
            self.made[key] = make()
        return self.made[key]

    def _angles(self, absolute):
        """(dynamic, gravity) polynomials in the relative or the summed angles."""
        if not absolute:
            return self.dyn, self.stat
        return self._once("absolute", lambda: tuple(self.ring.reduce(self.substituted(p, self.to_abs_trig), True)
                                                    for p in (self.dyn, self.stat)))

    def _polynomial_terms(self, absolute, rate):
        """The dynamic terms in these angles (relative or summed rates), before any Fourier form."""
        def make():
            dyn = self._angles(absolute)[0]
            return _terms(self.substituted(dyn, self.to_abs_rate) if rate else dyn)
        return self._once(("dynamic", absolute, rate), make)

    def _gravity_terms(self, trig):
        def make():
            if trig == "fourier":
                return _fourier(self._gravity_terms("relative"), self.fourier_groups, self.ring.index)
            return _terms(self._angles(trig == "absolute")[1])
        return self._once(("gravity", trig), make)

    def terms(self, trig, rate):
        """(dynamic terms, gravity terms) in the form (trig, rate)."""
        d = self._polynomial_terms(trig == "absolute", rate)
        if trig == "fourier":
            d = self._once(("fourier", rate), lambda: _fourier(d, self.fourier_groups, self.ring.index))
        return d, self._gravity_terms(trig)

    def gravity_cost(self, trig, s, rate_index):
        """:func:`_cost` of the gravity terms ``s`` in the angles ``trig`` (the same for both rates)."""
        return self._once(("gravity cost", trig), lambda: _cost(s, rate_index))


@dataclass(frozen=True)
class Forms:
    """What :func:`closed_forms` found: the terms of every entry and how to name their variables."""

    ring: object
    forms: list
    chain: dict
    parallel: dict
    offsets: tuple
    revolute: list
    fourier_groups: list
    rate_index: list
    gravity: float
    choices: list


__all__ = ["Forms", "RATES", "closed_forms", "graph_polynomials", "parallel_axes"]
