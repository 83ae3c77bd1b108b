"""Text presentation of base parameters (numbers stay in :mod:`.base_set`; this only formats)."""
from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from numbers import Real

from .._checks import check_instance, loaded_class, shown
from .._numbers import is_real
from .._validation import check_number
from ..errors import ArgumentError, ArgumentTypeError


def check_base(base, name: str = "base"):
    """``base`` when it is a :class:`~baseparam.BaseParameters` (the texts read its fields: anything else was an
    AttributeError). The class is taken from its module, which imports this one (tests/test_import_cycles.py): a
    base set exists only once that module is loaded."""
    kind = loaded_class("baseparam.projection.base_set", "BaseParameters")
    return check_instance(base, name, kind, "a bp.BaseParameters (bp.find_base_parameters)")


def base_index(r, rank: int) -> int:
    """Base parameter ``r`` of a base set of ``rank``: a whole number from 0 to rank − 1, or negative from the end
    (as a sequence's index), as int; else one ArgumentError line (a float, a str or an array: not bare errors)."""
    if rank == 0:       # no base parameter (a robot whose links move nothing): no index to take, no range to name
        raise ArgumentError(f"r: this base set has no base parameter (rank 0), got {shown(r)}")
    return check_number(r, "r", low=-rank, high=rank - 1, integer=True,
                        expected=f"a base-parameter index from 0 to {rank - 1} (or {-rank} to -1 from the end)")


def format_number(v) -> str:
    """Exact decimal for terminating fractions (431.8² → 186451.24), else 10 significant digits
    (floating-point regroupings carry round-off in the 13th digit: showing it would only mislead)."""
    if isinstance(v, Fraction):
        den = v.denominator
        while den % 2 == 0:
            den //= 2
        while den % 5 == 0:
            den //= 5
        if den == 1:
            with localcontext() as ctx:
                ctx.prec = 200
                text = format(Decimal(v.numerator) / Decimal(v.denominator), "f")
            return text.rstrip("0").rstrip(".") if "." in text else text
        v = float(v)
    return f"{float(v):.10g}"


def base_document(base, terms, **fields):
    """The fields a ``find --json`` document holds for a base set (``base``: a :class:`BaseParameters` or a
    symbolic one), in their order: ``terms(r)`` gives base parameter r's regrouping, ``fields`` come after
    the units."""
    robot = base.robot
    return {"robot": robot.name, "parameters": base.parameters,
            "units": {"length": robot.length_unit, "angle": robot.angle_unit}, **fields,
            "standard": list(base.standard_names), "rank": base.rank,
            "base": [{"name": n, "terms": terms(r)} for r, n in enumerate(base.names)],
            "unidentifiable": list(base.unidentifiable)}


def join_groups(terms, coefficient) -> str:
    """A sum of terms with the names of equal coefficients grouped: ``a - 2·(b + c)``.

    Parameters
    ----------
    terms : iterable of (name, sign ±1, key)
        Each term's name, sign and magnitude (any hashable ``key``); groups print in the order of their
        first term.
    coefficient : callable
        ``coefficient(key)``: the magnitude's text, or None where it is 1 (then the names stand alone).
    """
    groups = {}
    for name, sign, key in terms:
        groups.setdefault((sign, key), []).append(name)
    parts = []
    for (sign, key), names in groups.items():
        body = " + ".join(names)
        coef = coefficient(key)
        if coef is not None:
            body = f"{coef}·({body})" if len(names) > 1 else f"{coef}·{body}"
        elif sign < 0 and len(names) > 1:
            body = f"({body})"
        parts.append(("- " if sign < 0 else "+ ") + body)
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[1:]


def format_regrouping(base, r, terms=None) -> str:
    """One base parameter as a sum with equal coefficients grouped, e.g.
    ``XX1 + ZZ1 + 300·(SZ2 + SY3) - 186451.24·M2``.

    ``terms`` ({standard name: coefficient}) replaces ``base.terms(r)`` (display units), e.g. SI.
    """
    if terms is None:
        terms = check_base(base).terms(r)
    elif not (isinstance(terms, dict) and all(isinstance(k, str) and isinstance(v, Real) for k, v in terms.items())):
        raise ArgumentTypeError(f"terms: expected a dict of standard names (str) → coefficients, got {shown(terms)}")
    elif not all(is_real(v) for v in terms.values()):
        raise ArgumentError(f"terms: expected finite coefficients, got {shown(terms)}")
    terms = terms.items()
    return join_groups(((name, -1 if coef < 0 else 1, format_number(abs(coef))) for name, coef in terms),
                       lambda key: None if key == "1" else key)


def regrouping_lines(base, regrouping):
    """The table's lines of a base set's parameters (numbered, named, ``regrouping(r)``) and its
    unidentifiable ones (``base``: a :class:`BaseParameters` or a symbolic one)."""
    width = max((len(n) for n in base.names), default=4)
    lines = [f"{r + 1:>4}  {name:<{width}}  {regrouping(r)}" for r, name in enumerate(base.names)]
    if base.unidentifiable:
        lines += ["", "Unidentifiable (no effect on the dynamics): " + " ".join(base.unidentifiable)]
    return lines


def format_table(base) -> str:
    """The human-readable report printed by ``baseparam find``."""
    robot = check_base(base).robot
    lines = [f"{robot.name}: {base.rank} base parameters of {len(base.standard_names)} standard "
             f"({base.parameters} parameterization; lengths in {robot.length_unit})",
             f"  ({base.note})", "", *regrouping_lines(base, lambda r: format_regrouping(base, r))]
    seen = getattr(base, "seen_by_base_equations", None)
    if seen is not None:        # a floating base
        unseen = [name for name, s in zip(base.names, seen) if not s]
        lines += ["", f"Seen by the base equations (the floating base's six, without joint torques): "
                  f"{base.rank - len(unseen)} of the {base.rank} base parameters"
                  + (f"; only the joint torques see {' '.join(unseen)}" if unseen else " (all)")]
    return "\n".join(lines)
