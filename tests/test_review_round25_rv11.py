"""Review of s25-leq (rv11): the copy of SymPy's sort-key ordering in codegen/_shared_order.py prints every
expression kind the printers meet exactly as SymPy's own printers do, with one memo shared across expressions."""
import random

import sympy as sp
from sympy.printing.latex import latex
from sympy.printing.pycode import pycode

from baseparam.codegen import _shared_order

X, Y, Q1, Q2 = sp.symbols("x y q1 q2")
ATOMS = [X, Y, sp.Symbol("x_{1}"), sp.sin(Q1), sp.cos(Q1 + Q2), sp.sin(Q1 - Q2), sp.Rational(3, 7),
         sp.Float(0.125), sp.Float(-1.5e-13), sp.Integer(-2), sp.sqrt(2), X ** sp.Rational(1, 2),
         Y ** sp.Rational(-3, 2), sp.pi, sp.Rational(-1, 3) * (X + Y), 2 * sp.I * X]


def _random_expression(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    kind = rng.choice(["add", "add", "mul", "pow"])
    if kind == "add":
        return sp.Add(*[_random_expression(rng, depth - 1) for _ in range(rng.randint(2, 4))])
    if kind == "mul":
        return sp.Mul(*[_random_expression(rng, depth - 1) for _ in range(rng.randint(2, 3))])
    return sp.Pow(_random_expression(rng, depth - 1), rng.choice([2, -1, sp.Rational(1, 2), sp.Rational(-3, 2)]))


def test_shared_order_prints_as_sympy_with_a_shared_memo():
    rng = random.Random(11)
    memo = {}
    for _ in range(300):
        expr = _random_expression(rng, rng.randint(1, 4))
        assert _shared_order.text(expr, memo) == sp.sstr(expr)
        assert _shared_order.latex(expr, memo) == latex(expr)
        assert (_shared_order.python(expr, memo, fully_qualified_modules=False)
                == pycode(expr, fully_qualified_modules=False))
