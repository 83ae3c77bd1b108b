"""Equations with named DH lengths as symbols (``equations --symbolic a2,d4|all``), by exact interpolation.

Every coefficient of the closed form (:func:`._trig.closed_forms`, one fixed form per entry) is a
polynomial in the DH lengths; by the scaling argument of docs/method.md a torque coefficient of a
parameter of length dimension e carries length^(d − e) with d ≤ 2 (a prismatic travel q_k and g carry
lengths too), so its degree in the named lengths is at most 2. As for ``find --symbolic``
(:mod:`baseparam.projection.symbolic`), the closed form is computed at random short lengths, one run
per monomial of degree ≤ 2, the polynomials solved from one rational Vandermonde system (FLINT), and
checked at further random lengths, where they must equal the closed form exactly. The regroupings
come from ``find --symbolic``, turned to SI.
"""
from __future__ import annotations

import random
from fractions import Fraction
from types import SimpleNamespace

from ..projection.symbolic import (SymbolicError, _evaluate, _monomials, _with_lengths, _solve_polynomials,
                                   find_symbolic_base_parameters, parse_symbols)

DEGREE = 2
CHECK_POINTS = 2


def symbolic_forms(base, symbolic, found, seed=0, max_terms=None, max_memory=None):
    """The closed forms with the named lengths as polynomials.

    Returns
    -------
    forms : list of list of (dict, dict)
        As :attr:`Forms.forms`, each coefficient {exponents over ``symbols``: Fraction}.
    symbols : tuple of str
    values : dict
        Each symbol's value in the robot (m).
    regroupings : list of dict
        Per base parameter, {standard name: polynomial} in SI (lengths in m).
    """
    from ._trig import closed_forms

    robot = base.robot
    sym = find_symbolic_base_parameters(robot, symbolic, base.parameters, seed=seed, max_memory=max_memory)
    if not sym.robot_is_generic or list(sym.names) != list(base.names):
        raise SymbolicError(f"symbolic: {robot.name}: the robot's own lengths are special (its base set is not the "
                            f"generic one in {', '.join(sym.symbols)}); give the lengths that vary")
    symbols, fields = parse_symbols(robot, symbolic)
    scale = robot.length_scale
    exact_scale = Fraction(scale).limit_denominator(10 ** 9)       # metres per description unit, as a fraction
    rng = random.Random(seed + 1)
    monomials = _monomials(len(symbols), DEGREE)
    points, runs = [], []
    while len(points) < len(monomials) + CHECK_POINTS:
        point = [Fraction(rng.randint(10, 99), 100) * rng.choice((1, -1)) for _ in symbols]     # metres
        desc = {s: v / exact_scale for s, v in zip(symbols, point)}
        moved = _with_lengths(robot, fields, desc)
        stand_in = SimpleNamespace(robot=moved, parameters=base.parameters, pivots=base.pivots, rank=base.rank)
        options = {"max_memory": max_memory, **({} if max_terms is None else {"max_terms": max_terms})}
        runs.append(closed_forms(stand_in, seed, choices=found.choices, **options).forms)
        points.append(point)
    n, R = robot.n_dof, base.rank
    # every term any run has, per entry and part (0 dynamic, 1 gravity)
    entries = [(j, r, part, key) for j in range(n) for r in range(R) for part in (0, 1)
               for key in sorted(set().union(*(run[j][r][part] for run in runs)), key=repr)]
    m = len(monomials)
    polys = _solve_polynomials(monomials, points[:m], [[runs[i][j][r][part].get(key, Fraction(0)) for i in range(m)]
                                                      for j, r, part, key in entries])
    forms = [[({}, {}) for _ in range(R)] for _ in range(n)]
    for (j, r, part, key), poly in zip(entries, polys):
        for point, run in zip(points[m:], runs[m:]):
            if _evaluate(poly, point) != run[j][r][part].get(key, Fraction(0)):
                raise SymbolicError(f"symbolic: {robot.name}: a coefficient of joint {j + 1}'s torque is not a "
                                    f"polynomial of degree ≤ {DEGREE} in {', '.join(symbols)}")
        if poly:
            forms[j][r][part][key] = poly
    power = base.length_power
    regroupings = []
    for r, row in enumerate(sym.polynomials):
        out = {}
        for name, poly in row.items():      # Y_SI(x) = Y_desc(x / scale) · scale^(e_p − e_c)
            factor = exact_scale ** int(power[base.pivots[r]] - power[sym.standard_names.index(name)])
            out[name] = {e: v * factor / exact_scale ** sum(e) for e, v in poly.items()}
        regroupings.append(out)
    values = {s: float(v) * scale for s, v in sym.values.items()}
    return forms, tuple(symbols), values, regroupings


__all__ = ["symbolic_forms"]
