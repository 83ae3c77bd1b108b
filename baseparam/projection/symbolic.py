"""Regroupings as formulas in named DH lengths (``find --symbolic a2,d4|all``).

Z's entries are polynomials in the DH lengths (the angles stay numbers), so the echelon form over
the field of rational functions in the named lengths gives, for generic values, one base set and
regroupings that are rational functions of the lengths. By the scaling argument of docs/method.md
("The arithmetic"), the coefficient of standard parameter c in the base parameter with pivot p has
length dimension e_c − e_p ≤ 2 (e: 0 for M, 1 for SX…, 2 for XX…); when it is a polynomial, its
degree in the lengths is at most that.

This module obtains the formulas *from the exact engine itself*, by exact interpolation: the
regroupings are computed in exact rational arithmetic (:func:`.base_set.find_base_parameters`, its
exact path) at random rational values of the symbols; every coefficient is a polynomial of degree
≤ D in them, so it is determined by its values at as many points as there are monomials of degree
≤ D (one rational Vandermonde solve, FLINT, for all coefficients at once), and checked at further
random points, where the formula must equal the engine's regrouping exactly, or the run fails
(coefficients that are not polynomials of that degree cannot pass). Measured against carrying
polynomial matrices through the recursion (docs/method.md section 6 works on float/modular spans
of at most 16 vectors, which polynomial entries would have to replace throughout), this reuses the
engine's exact decisions bit for bit and costs one numeric run per monomial: 21 runs for the PUMA
560's five non-zero lengths, 91 for all twelve DH lengths.

The generic base set is the one found at the random points (they all must agree). Special values:
each symbol set to 0 (the others at a random point) is run through the engine, and every change of
the base set (rank, base parameters lost or gained) is listed.
"""
from __future__ import annotations

import collections
import dataclasses
import decimal
import itertools
import math
import numbers
import random
from dataclasses import dataclass, field
from fractions import Fraction

from .._numbers import is_real, is_whole
from .._validation import check_instance, check_names, check_number, check_seed, comma_list, shown
from ..errors import ArgumentError, ArgumentTypeError, ResourceLimitError, printable
from ..model.robot import require_fixed_base, require_robot
from .report import base_document, base_index, format_number, join_groups, regrouping_lines

CHECK_POINTS = 3           # random points where the interpolated formulas must equal the engine
# Projections a symbolic run may make (one per interpolation point, check point, symbol and pair of symbols at 0):
# skew7.yaml's 10 lengths take 124; 'all' on a generic 20-joint chain (40 lengths) would take 1 684, a quarter of an
# hour
MAX_ENGINE_RUNS = 500


class SymbolicError(ArgumentError):
    """The regroupings cannot be written as formulas in these symbols (see the message): an
    :class:`~baseparam.errors.ArgumentError` about ``symbolic`` for this robot."""


@dataclass(frozen=True)
class SpecialValue:
    """Where the base set differs from the generic one: one symbol, or two together, at a value.

    Attributes
    ----------
    symbols : tuple of str
        One symbol, or two that vanish together where neither alone changes the base set that way.
    value : Fraction
    rank : int
        The rank there (the generic rank is :attr:`SymbolicBaseParameters.rank`).
    lost : tuple of str
        Generic base parameters (pivots) that are not base parameters there.
    gained : tuple of str
        Base parameters there that are not generic ones.
    """

    symbols: tuple
    value: Fraction
    rank: int
    lost: tuple
    gained: tuple

    def describe(self) -> str:
        """One line: ``a1 = 0: rank 20; loses SX2, SY2; gains …``."""
        text = f"{' = '.join(self.symbols)} = {format_number(self.value)}: rank {self.rank}"
        if self.lost:
            text += "; loses " + ", ".join(self.lost)
        if self.gained:
            text += "; gains " + ", ".join(self.gained)
        return text


@dataclass(frozen=True)
class SymbolicBaseParameters:
    """Base parameters whose regroupings are polynomials in named DH lengths.

    Attributes
    ----------
    robot : Robot
    parameters : {'pseudo', 'khalil'}
    symbols : tuple of str
        ``a<j>``, ``d<j>`` (1-based joint numbers; lengths in the description's unit).
    values : dict of str to Fraction
        The robot's own value of each symbol.
    rank : int
        Generic rank.
    names : list of str, length rank
        Generic base parameters (their pivot standard parameter).
    standard_names : list of str
    polynomials : list of dict, length rank
        For each base parameter, {standard name: {exponents (tuple of int, one per symbol): Fraction}}.
    special : tuple of SpecialValue
        Values of single symbols where the base set changes.
    robot_is_generic : bool
        Whether the robot's own lengths give the generic base set (then the formulas at its values are
        its regroupings).
    unidentifiable : list of str
        Standard parameters that are in no generic regrouping.
    """

    robot: object
    parameters: str
    symbols: tuple
    values: dict = field(repr=False)
    rank: int
    names: list
    standard_names: list = field(repr=False)
    polynomials: list = field(repr=False)
    special: tuple
    robot_is_generic: bool
    unidentifiable: list = field(repr=False)

    def terms(self, r):
        """Regrouping of base parameter r as {standard name: SymPy-parsable coefficient string}."""
        r = base_index(r, self.rank)        # one ArgumentError line, not a list's bare IndexError
        return {name: poly_string(poly, self.symbols) for name, poly in self.polynomials[r].items()}

    def evaluate(self, values=None):
        """Regroupings at given values of the symbols (default: the robot's), exact.

        Parameters
        ----------
        values : dict of str to number, optional
            Missing symbols take the robot's values.

        Returns
        -------
        list of dict, length rank
            {standard name: Fraction}, zero coefficients left out.
        """
        given = check_instance(values, "values", dict, "a dict of symbol → number", allow_none=True) or {}
        unknown = [k for k in given if k not in self.symbols]
        if unknown:                 # else a mistyped name ('A2') would be ignored: the robot's own value used, silently
            raise ArgumentError(f"values: {shown(unknown[0])} is none of the symbols {', '.join(self.symbols)}")
        at = {**self.values, **{k: _exact(v, f"values[{k!r}]") for k, v in given.items()}}
        point = [at[s] for s in self.symbols]
        rows = [{name: _evaluate(poly, point) for name, poly in row.items()} for row in self.polynomials]
        return [{name: v for name, v in row.items() if v != 0} for row in rows]

    def to_dict(self):
        """The ``find --symbolic --json`` document: ``find --json``'s, with coefficient strings."""
        return {**base_document(self, self.terms, symbols={s: str(v) for s, v in self.values.items()}),
                "special_values": [{"symbols": list(s.symbols), "value": str(s.value), "rank": s.rank,
                                    "lost": list(s.lost), "gained": list(s.gained)} for s in self.special],
                "robot_is_generic": self.robot_is_generic}

    def summary(self) -> str:
        """The text ``baseparam find --symbolic`` prints: the generic regroupings as polynomials in the symbols, the
        robot's values of them and the special values where the base set changes."""
        return format_symbolic_table(self)

    def __repr__(self):
        return (f"SymbolicBaseParameters(robot={self.robot.name!r}, parameters={self.parameters!r}, "
                f"symbols={self.symbols!r}, rank={self.rank}, special={len(self.special)})")


# -- polynomials: {exponent tuple: Fraction} ------------------------------------------------------------
def _monomials(n_symbols, degree):
    """Exponent tuples of total degree ≤ degree, highest degree first."""
    return [tuple(combo.count(i) for i in range(n_symbols)) for total in range(degree, -1, -1)
            for combo in itertools.combinations_with_replacement(range(n_symbols), total)]


def _exact(value, name):
    """A symbol's value as the exact Fraction of what was given (an int, a Fraction, a Decimal, a float or numpy
    number — a float32 by its exact value —, or the text of a number); NaN, inf, None and what is no real number
    refused (not Fraction()'s bare ValueError, OverflowError or TypeError)."""
    if isinstance(value, str):
        try:
            return Fraction(value)
        except ValueError:
            pass
    elif isinstance(value, decimal.Decimal) and value.is_finite():
        return Fraction(value)
    elif is_whole(value):
        return Fraction(int(value))
    elif isinstance(value, Fraction) or is_real(value):
        return Fraction(value) if isinstance(value, (Fraction, float)) else Fraction(float(value))
    raise ArgumentError(f"{name}: expected a finite real number, got {shown(value)}")


def _evaluate(poly, point):
    """The polynomial's value at the point (exact)."""
    return sum((coef * math.prod(x ** e for x, e in zip(point, exps) if e) for exps, coef in poly.items()), Fraction(0))


def _monomial_text(exps, symbols, times):
    """``a2*d4**2`` (``times`` "*": SymPy's powers) or ``a2·d4²`` (``times`` "·": superscripts, ``^`` beyond 9)."""
    power = "**" if times == "*" else "²" if max(exps, default=0) <= 9 else "^"

    def factor(s, e):
        return s if e == 1 else f"{s}{power}{e}" if power != "²" else s + "⁰¹²³⁴⁵⁶⁷⁸⁹"[e]
    return times.join(factor(s, e) for s, e in zip(symbols, exps) if e)


def _ordered(poly):
    """The terms of a polynomial, highest degree first (then by exponents)."""
    return sorted(poly.items(), key=lambda kv: (-sum(kv[0]), [-e for e in kv[0]]))


def _sum_text(poly, symbols, times, number):
    """A polynomial as a sum: ``3/10*a2**2 - d4`` (``times`` "*", SymPy's powers) or ``0.3·a2² - d4``
    (``times`` "·", superscript powers up to 9); ``number`` writes a coefficient's magnitude."""
    pieces = []
    for exps, coef in _ordered(poly):
        mono = _monomial_text(exps, symbols, times)
        mag = abs(coef)
        body = mono if (mono and mag == 1) else (f"{number(mag)}{times}{mono}" if mono else number(mag))
        pieces.append(("-" if coef < 0 else "+", body))
    text = " ".join(f"{sign} {body}" for sign, body in pieces)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def poly_string(poly, symbols):
    """A SymPy-parsable string (exact rationals as ``p/q``), e.g. ``-a2**2 + 3/10*d4``.

    Parameters
    ----------
    poly : dict
        {exponents (tuple of int, one per symbol): Fraction}, one entry of ``SymbolicBaseParameters.polynomials``.
    symbols : sequence of str
    """
    symbols = check_names(symbols, "symbols", allow_none=False)
    if not isinstance(poly, dict) or not all(
            isinstance(e, tuple) and len(e) == len(symbols) and all(is_whole(k) and k >= 0 for k in e)
            and isinstance(c, numbers.Rational) for e, c in poly.items()):
        raise ArgumentTypeError(f"poly: expected a dict of exponents (a tuple of {len(symbols)} whole numbers ≥ 0) → "
                                f"Fraction, got {shown(poly)}")
    return _sum_text(poly, symbols, "*", str) if poly else "0"


def format_symbolic_regrouping(sym, r) -> str:
    """Base parameter r with equal coefficients grouped: ``XX2 - a2²·(M2 + M3 + M4 + M5 + M6)``."""
    _check_symbolic(sym)
    r = base_index(r, sym.rank)
    terms = []
    for name, poly in sym.polynomials[r].items():
        sign = -1 if _ordered(poly)[0][1] < 0 else 1          # the sign of the leading term
        terms.append((name, sign, tuple(sorted((e, c * sign) for e, c in poly.items()))))
    one = ((tuple([0] * len(sym.symbols)), Fraction(1)),)

    def coefficient(key):
        if key == one:
            return None
        text = _sum_text(dict(key), sym.symbols, "·", format_number)
        return f"({text})" if len(key) > 1 else text

    return join_groups(terms, coefficient)


def _check_symbolic(sym):
    """Refuse what is no SymbolicBaseParameters (reading its fields would be a bare AttributeError)."""
    check_instance(sym, "sym", SymbolicBaseParameters, "a SymbolicBaseParameters (find_base_parameters(…, symbolic=…))")


def format_symbolic_table(sym) -> str:
    """The text ``find --symbolic`` prints."""
    _check_symbolic(sym)
    robot = sym.robot
    lines = [f"{robot.name}: {sym.rank} base parameters of {len(sym.standard_names)} standard "
             f"({sym.parameters} parameterization), generic in {', '.join(sym.symbols)} "
             f"(lengths in {robot.length_unit})",
             "  (robot's values: " + ", ".join(f"{s} = {format_number(v)}" for s, v in sym.values.items()) + ")", "",
             *regrouping_lines(sym, lambda r: format_symbolic_regrouping(sym, r))]
    lines += ["", "Special values (the base set changes):" if sym.special else
              "Special values: none where one length, or two together, vanish."]
    lines += [f"  {s.describe()}" for s in sym.special]
    if not sym.robot_is_generic:
        lines += ["", "Note: the robot's own lengths are special (its base set is not the generic one)."]
    return "\n".join(lines)


# -- symbols and modified robots ---------------------------------------------------------------------
def _length_fields(robot):
    """{symbol: (joint index, field)} of every constant DH length (prismatic d is the joint variable)."""
    return {f"{field}{k + 1}": (k, field) for k, joint in enumerate(robot.joints)
            for field in ("a", "d") if field == "a" or joint.type == "revolute"}


def numeric_if_no_length(robot, symbolic):
    """``symbolic`` as :func:`~baseparam.equations` takes it: None, with a DescriptionWarning, for ``'all'`` on a DH
    robot whose constant lengths are all zero (nothing to keep as a symbol: the closed form in no symbol is the
    numeric one, which ``symbolic=None`` gives); else ``symbolic`` unchanged, for :func:`parse_symbols` to check."""
    if symbolic is None or getattr(robot, "convention", None) == "urdf":     # a URDF: parse_symbols says why not
        return symbolic
    names = comma_list(symbolic, "symbolic") if isinstance(symbolic, str) else symbolic
    if not isinstance(names, (list, tuple)) or list(names) != ["all"] or \
            any(getattr(robot.joints[k], f) != 0 for k, f in _length_fields(robot).values()):
        return symbolic
    from .._warnings import warn
    from ..errors import DescriptionWarning
    warn(f"{robot.name}: symbolic=all: every constant DH length is 0, so none is kept as a symbol: the equations "
         "are the numeric ones", DescriptionWarning)
    return None


def parse_symbols(robot, symbolic):
    """The symbols asked for: a sequence or comma list of ``a<j>``/``d<j>``, or ``'all'`` (every non-zero
    constant DH length; a zero length named explicitly becomes a symbol too)."""
    if getattr(robot, "convention", None) == "urdf":
        source = getattr(robot, "source_file", None)
        raise ArgumentError(f"{printable(source) + ': ' if source else ''}symbolic: needs a DH description (a URDF's "
                            "lengths are not DH columns)")
    fields = _length_fields(robot)
    if isinstance(symbolic, str):
        symbolic = comma_list(symbolic, "symbolic")
    if not isinstance(symbolic, (list, tuple)) or not all(isinstance(s, str) for s in symbolic):
        # True, a number, a set (no order): a wrong type, said here rather than by list() or sorted()
        raise ArgumentTypeError(f"symbolic: expected a comma list or sequence of DH length names (a2, d4, …) "
                                f"or 'all', got {shown(symbolic)}")
    names = list(symbolic)
    if names == ["all"]:
        names = [s for s, (k, f) in fields.items() if getattr(robot.joints[k], f) != 0]
        if not names:
            raise ArgumentError("symbolic=all: the robot has no non-zero DH length")
    if not names:
        raise ArgumentError("symbolic: name at least one DH length (a2, d4, …) or 'all'")
    # else 'a2,all' would be told "'all' is not a constant DH length (expected one of …, or 'all')"
    if "all" in names:
        raise ArgumentError(f"symbolic: 'all' stands alone (every non-zero DH length), got {shown(','.join(names))}; "
                            "give 'all' or a list of DH lengths (a2, d4, …)")
    for s in names:
        if s not in fields:
            raise ArgumentError(f"symbolic: {shown(s)} is not a constant DH length of {shown(robot.name)} "
                                f"(expected one of {', '.join(fields)}, or 'all')")
    if len(set(names)) != len(names):
        raise ArgumentError("symbolic: a symbol is named twice")
    order = list(fields)
    return tuple(sorted(names, key=order.index)), fields


def _with_lengths(robot, fields, assignment):
    """The robot with these lengths ({symbol: Fraction}, description units)."""
    joints = list(robot.joints)
    for s, v in assignment.items():
        k, f = fields[s]
        joints[k] = dataclasses.replace(joints[k], **{f: float(v)})
    return dataclasses.replace(robot, joints=tuple(joints))


def _random_value(rng, unit):
    """A random length with few decimals (so the engine stays on its exact integer path)."""
    den = {"m": 1000, "cm": 10, "mm": 1}[unit]
    return Fraction(rng.randint(100, 999), den) * rng.choice((1, -1))


# -- the computation ----------------------------------------------------------------------------------
def find_symbolic_base_parameters(robot, symbolic="all", parameters="pseudo", *, seed=0, max_degree=None,
                                  max_memory=None) -> SymbolicBaseParameters:
    """Base parameters with regroupings as polynomials in named DH lengths (module docstring: how).

    Parameters
    ----------
    robot : Robot
        A DH description whose angles are multiples of 90° (the engine's exact path).
    symbolic : str or sequence of str
        ``"all"`` (every non-zero constant length), or names such as ``("a2", "d4")`` / ``"a2,d4"``.
    parameters : {'pseudo', 'khalil'}
    seed : int
        Seed of the random interpolation and check points (the result does not depend on it unless
        a point is unluckily special, which the checks detect).
    max_degree : int, optional
        Degree bound of the formulas (default: the largest length dimension of a coefficient, 2).
    max_memory : int or str, optional
        Memory each numeric projection may use, as for :func:`~baseparam.find_base_parameters`.

    Returns
    -------
    SymbolicBaseParameters

    Raises
    ------
    SymbolicError
        When the robot's angles leave the exact path, or the regroupings are not polynomials of the
        degree bound (a check point disagrees).
    """
    from .base_set import find_base_parameters

    require_robot(robot)
    require_fixed_base(robot, "symbolic regroupings")
    symbols, fields = parse_symbols(robot, symbolic)
    values = {s: robot.exact_value(getattr(robot.joints[fields[s][0]], fields[s][1])) for s in symbols}
    # random.Random takes a numpy integer for no seed at all (a bare TypeError), None for a fresh one
    rng = random.Random(check_seed(seed))

    def engine(assignment):
        base = find_base_parameters(_with_lengths(robot, fields, assignment), parameters, max_memory=max_memory)
        if not base.exact:
            raise SymbolicError(f"symbolic: {robot.name}: formulas need the engine's exact path, which "
                                f"this robot leaves ({base.note.split(';')[0]})")
        return base

    own = engine(values)
    power = own.length_power
    degree = int(max(power) - min(power)) if max_degree is None else \
        check_number(max_degree, "max_degree", low=0, integer=True)       # int(nan), comb(-1): bare errors
    S = len(symbols)
    runs_needed = math.comb(S + degree, degree) + CHECK_POINTS + S + S * (S - 1) // 2
    if runs_needed > MAX_ENGINE_RUNS:
        raise ResourceLimitError(f"symbolic: {robot.name}: {S} lengths kept as symbols need {runs_needed} "
                                 f"projections (at most {MAX_ENGINE_RUNS}); name fewer lengths (e.g. 'a2,d4')")
    monomials = _monomials(S, degree)
    points = [[_random_value(rng, robot.length_unit) for _ in symbols] for _ in range(len(monomials) + CHECK_POINTS)]
    runs = [engine(dict(zip(symbols, point))) for point in points]
    signature = collections.Counter(tuple(int(c) for c in base.pivots) for base in runs)
    generic = max(signature, key=lambda k: (len(k), signature[k]))
    if signature[generic] < len(runs):
        raise SymbolicError(f"symbolic: {robot.name}: the base set differs between random values of "
                            f"{', '.join(symbols)} (try another seed)")
    pivots = list(generic)
    n_std = len(own.standard_names)
    polys = _interpolate(monomials, points[:len(monomials)], [b.Y_display for b in runs[:len(monomials)]],
                         len(pivots), n_std)
    names = own.standard_names
    polynomials = [{names[c]: polys[r][c] for c in range(n_std) if polys[r][c]} for r in range(len(pivots))]
    # the check points, where each formula must equal the engine's exact regrouping
    for point, base in zip(points[len(monomials):], runs[len(monomials):]):
        for r in range(len(pivots)):
            for c in range(n_std):
                if _evaluate(polys[r][c], point) != Fraction(base.Y_display[r][c]):
                    raise SymbolicError(f"symbolic: {robot.name}: the coefficient of {names[c]} in base parameter "
                                        f"{names[pivots[r]]} is not a polynomial of degree ≤ {degree} in "
                                        f"{', '.join(symbols)}")
    used = {n for row in polynomials for n in row}
    special = _special_values(symbols, generic, names, rng, robot.length_unit, engine)
    return SymbolicBaseParameters(robot, own.parameters, symbols, values, len(pivots), [names[c] for c in pivots],
                                  list(names), polynomials, tuple(special),
                                  tuple(int(c) for c in own.pivots) == generic,
                                  [n for n in names if n not in used])


def _interpolate(monomials, points, Ys, rank, n_std):
    """Coefficient polynomials from values at points (only the coefficients that are non-zero somewhere:
    the others are the zero polynomial)."""
    entries = sorted({(r, c) for Y in Ys for r in range(rank) for c in range(n_std) if Y[r][c] != 0})
    polys = _solve_polynomials(monomials, points, [[Fraction(Y[r][c]) for Y in Ys] for r, c in entries])
    out = [[{} for _ in range(n_std)] for _ in range(rank)]
    for (r, c), poly in zip(entries, polys):
        out[r][c] = poly
    return out


def _solve_polynomials(monomials, points, columns):
    """The polynomials over ``monomials`` taking the values ``columns[k][i]`` (Fractions) at ``points[i]``
    (as many points as monomials): one Vandermonde solve over Q for all of them, each returned as
    {monomial: Fraction} of its non-zero coefficients."""
    import flint

    def q(v):
        return flint.fmpq(v.numerator, v.denominator)

    n = len(monomials)
    V = flint.fmpq_mat(n, n, [q(_evaluate({e: Fraction(1)}, p)) for p in points for e in monomials])
    B = flint.fmpq_mat(n, max(1, len(columns)), [q(col[i]) for i in range(n) for col in columns] or [0] * n)
    try:
        X = V.solve(B)
    except ZeroDivisionError as exc:   # singular Vandermonde: an unlucky set of points
        raise SymbolicError("symbolic: the interpolation points are degenerate (try another seed)") from exc
    return [{e: Fraction(int(X[i, k].p), int(X[i, k].q)) for i, e in enumerate(monomials) if X[i, k] != 0}
            for k in range(len(columns))]


def _special_values(symbols, generic, names, rng, unit, engine):
    """Each symbol at 0, then each pair at 0, the others at a random point: the base-set changes
    (a pair only when its base set is not already that of one of its symbols at 0)."""
    out, single = [], {}

    def at_zero(zeros):
        point = {t: _random_value(rng, unit) for t in symbols}
        point.update({z: Fraction(0) for z in zeros})
        return tuple(int(c) for c in engine(point).pivots)

    def record(zeros, here):
        out.append(SpecialValue(tuple(zeros), Fraction(0), len(here),
                                tuple(names[c] for c in generic if c not in here),
                                tuple(names[c] for c in here if c not in generic)))

    for s in symbols:
        single[s] = here = at_zero([s])
        if here != generic:
            record([s], here)
    for s, t in itertools.combinations(symbols, 2):
        here = at_zero([s, t])
        if here not in (generic, single[s], single[t]):
            record([s, t], here)
    return out


def store_symbolic(sym, path, max_disk=None):
    """Write symbolic regroupings to an HDF5 file (atomically): the coefficient strings, not Z.

    Layout: attributes ``robot``, ``parameters``, ``length_unit``, ``rank``, ``robot_is_generic``;
    datasets ``symbols`` and ``symbol_values`` (strings), ``standard`` (names), ``names`` (base
    parameters), ``pivots`` (0-based columns of ``standard``), ``terms`` (rank × n_standard strings,
    ``"0"`` where a standard parameter is absent; SymPy-parsable, as in the JSON), ``special`` (one
    :meth:`SpecialValue.describe` line each).

    Parameters
    ----------
    sym : SymbolicBaseParameters
    path : str or path-like
    max_disk : int or str, optional
        The largest file allowed (bytes, or a size such as ``'20M'``); the free space of the output's file
        system bounds it too. The file's size is estimated from its strings (on the generous side) before
        anything is written: HDF5 on a full disk fails in its own way, with tracebacks its objects print.

    Raises
    ------
    ResourceLimitError
        Beyond ``max_disk`` or the free space (one line with the figures).
    """
    _check_symbolic(sym)
    import h5py
    import numpy as np

    from .._atomic import atomic_path
    from .._hdf5 import check_h5_output, writes_checked
    from .storage import disk_limit

    text = h5py.string_dtype()
    terms = [[sym.terms(r).get(n, "0") for n in sym.standard_names] for r in range(sym.rank)]
    check_h5_output(path)       # a link or a folder said as such, not as a lack of free space where it points
    symbol_values, special = [str(v) for v in sym.values.values()], [s.describe() for s in sym.special]
    strings = [*sym.symbols, *symbol_values, *sym.standard_names, *sym.names, *(t for row in terms for t in row),
               *special]
    disk_limit(sym.robot.name, path, max_disk, SYMBOLIC_H5_BYTES + sum(64 + 2 * len(s.encode()) for s in strings),
               "the symbolic regroupings")
    with atomic_path(path, ".h5.tmp") as tmp, writes_checked(path, tmp) as f:
        f.attrs.update({"robot": sym.robot.name, "parameters": sym.parameters,
                        "length_unit": sym.robot.length_unit, "rank": sym.rank,
                        "robot_is_generic": sym.robot_is_generic, "format": "baseparam symbolic regroupings"})
        for name, values in (("symbols", sym.symbols), ("symbol_values", symbol_values),
                             ("standard", sym.standard_names), ("names", sym.names)):
            f.create_dataset(name, data=list(values), dtype=text)
        f.create_dataset("pivots", data=np.array([sym.standard_names.index(n) for n in sym.names], dtype=np.int64))
        f.create_dataset("terms", data=np.array(terms, dtype=object).reshape(sym.rank, len(sym.standard_names)),
                         dtype=text)
        f.create_dataset("special", data=special, dtype=text)


# the symbolic file's own structures (measured: 19 kB for the planar arm's 300 strings, 110 kB for the PUMA's
# 2 300: HDF5 keeps about 45 bytes per variable-length string besides its text)
SYMBOLIC_H5_BYTES = 32_768


__all__ = ["SpecialValue", "SymbolicBaseParameters", "SymbolicError", "find_symbolic_base_parameters",
           "format_symbolic_table", "poly_string", "store_symbolic"]
