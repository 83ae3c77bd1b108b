"""Round 25 (leq): ``baseparam equations`` fast enough not to look like a hang (issue 28), with the same output.

* The closed form's forms given (``choices``, the 30 runs of ``--symbolic all`` on a 6-joint arm) are not costed
  again, and the pieces the six forms of an entry share are made once: the same terms, in the same order.
* The Fourier form (summed angles of parallel axes, computed in FLINT's rationals) equals the polynomial it comes
  from at random angles: an independent evaluation of both.
"""
from __future__ import annotations

import math
import sys

import numpy as np
import pytest

import baseparam as bp
from baseparam.codegen import _trig
from conftest import ROOT, stderr_on_a_terminal


@pytest.fixture(scope="module")
def puma():
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    base = bp.find_base_parameters(robot)
    return base, _trig.closed_forms(base, 0)


def test_forms_given_are_not_costed_and_come_out_the_same(puma, monkeypatch):
    base, found = puma

    def refuse(*args):
        raise AssertionError("a form given was costed")
    monkeypatch.setattr(_trig, "_cost", refuse)
    again = _trig.closed_forms(base, 0, choices=found.choices)
    assert [[(list(d.items()), list(s.items())) for d, s in row] for row in again.forms] == \
        [[(list(d.items()), list(s.items())) for d, s in row] for row in found.forms]


def _value(terms, names, rng_values, group_angles):
    """Σ coefficient · monomial · Π cos/sin(n·θ) of terms at the given variable values."""
    total = 0.0
    for (exps, key), coef in terms.items():
        value = float(coef) * math.prod(rng_values[names[i]] ** int(e) for i, e in enumerate(exps) if e)
        for g, kind, multiples in key:
            angle = sum(m * group_angles[g][i] for i, m in enumerate(multiples))
            value *= math.cos(angle) if kind == "c" else math.sin(angle)
        total += value
    return total


def test_the_fourier_form_equals_its_polynomial_at_random_angles(puma):
    base, found = puma
    ring, groups = found.ring, found.fourier_groups
    assert groups, "the PUMA 560's axes 2, 3 (and 4?) are parallel"
    rng = np.random.default_rng(3)
    checked = 0
    for row in found.forms:
        for dyn, _ in row:
            if not dyn or any(key for _, key in dyn):
                continue        # a polynomial entry (no Fourier key): its Fourier form made here
            fourier = _trig._fourier(dyn, groups, ring.index)
            for _ in range(3):
                angles = {k: rng.uniform(-math.pi, math.pi) for k in range(base.robot.n_dof)}
                values = {name: rng.uniform(-2.0, 2.0) for name in ring.names}
                for k, theta in angles.items():
                    values[f"c{k}"], values[f"s{k}"] = math.cos(theta), math.sin(theta)
                group_angles = [[angles[k] for k in members] for members in groups]
                want = _value(dyn, ring.names, values, group_angles)
                assert _value(fourier, ring.names, values, group_angles) == pytest.approx(want, rel=1e-9, abs=1e-9)
            checked += 1
    assert checked > 10


# -- the printers' order of a sum's terms, computed from sort keys kept in a memo -----------------------------------
def _random_expression(draw_ints, symbols):
    """A sum of products of small powers of the symbols and of nested sums, with rational coefficients."""
    import sympy

    def product(depth):
        factors = [sympy.Rational(draw_ints(-9, 9) or 1, draw_ints(1, 4))]
        for s in symbols:
            power = draw_ints(0, 2)
            if power:
                factors.append(s ** power)
        if depth and draw_ints(0, 2) == 0:
            factors.append(total(depth - 1))
        return sympy.Mul(*factors)

    def total(depth):
        return sympy.Add(*[product(depth) for _ in range(draw_ints(1, 5))])
    return total(2)


@pytest.mark.parametrize("seed", range(40))
def test_the_memoized_order_of_terms_is_sympys(seed):
    import sympy

    from baseparam.codegen import _shared_order

    rng = np.random.default_rng(seed)
    symbols = sympy.symbols("c2 s2 qd1 qdd3 g", real=True)
    expr = _random_expression(lambda lo, hi: int(rng.integers(lo, hi + 1)), symbols)
    memo = {}
    for sub in sympy.preorder_traversal(expr):
        if sub.is_Add:
            assert _shared_order._ordered_terms(sub, memo) == sub.as_ordered_terms()
        if sub.is_Add or sub.is_Mul or sub.is_Pow:
            assert _shared_order._sort_key(sub, memo) == sub.sort_key()
    orders = {}
    assert _shared_order.text(expr, orders) == str(expr)
    assert _shared_order.latex(expr, orders) == sympy.latex(expr)
    assert _shared_order.python(expr, orders) == sympy.pycode(expr)


def test_the_printed_equations_are_sympys_own(puma_equations):
    """The equations printed with the shared orders are SymPy's printers' text to the byte (the PUMA's equations
    derived once per test process: conftest's fixture, test_fuzz_round23_lcl3's too)."""
    import sympy

    from baseparam.codegen import _shared_order

    orders = {}
    for e in puma_equations.tau[:3]:
        assert _shared_order.text(e, orders) == str(e)
        assert _shared_order.latex(e, orders) == sympy.latex(e)


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_equations_shows_a_live_bar_while_it_writes_them(tmp_path):
    """After the projection's bar, a second one while SymPy builds and prints the equations (seconds to a minute
    on a loaded machine, silent before: issue 28)."""
    status, seen = stderr_on_a_terminal("equations", ROOT / "robots" / "planar_rrr.yaml", "--out", tmp_path / "e.md")
    assert status == 0, seen.decode(errors="replace")
    assert b"writing the equations" in seen, seen.decode(errors="replace")
    assert (tmp_path / "e.md").read_text().startswith("# Equations of motion")


# -- constants of more than 12 digits -----------------------------------------------------------------------------
LONG_DECIMALS = """name: long decimals
convention: standard
units: {length: m, angle: deg}
joints:
  - {type: revolute, alpha: 90, a: 0.123456789012345, d: 0.3141592653589793}
  - {type: revolute, alpha: 0, a: 0.4318123456789012, d: 0.1500512345678901}
  - {type: revolute, alpha: -90, a: 0.0203987654321098, d: 0}
"""


def test_lengths_of_many_digits_are_not_cut_to_twelve(tmp_path):
    """CAD-like lengths of 15-16 digits: the printed equations agree with Newton-Euler to the float's rounding
    (they were 1.5e-13 off, relative: the constants cut to 12 significant digits)."""
    import baseparam.codegen.equations  # noqa: F401  (the module, not the function the package exports)
    module = sys.modules["baseparam.codegen.equations"]
    path = tmp_path / "long.yaml"
    path.write_text(LONG_DECIMALS)
    base = bp.find_base_parameters(bp.load_robot(path))
    eq = module.equations(base)
    error, scale = module.verify(eq, base, n_states=200, seed=1)
    assert error <= 1e-14 * scale


@pytest.mark.parametrize("value, text", [(0.4318 * 0.0203, "0.00876554"), (9.81, "9.81"), (0.001 * 431.8, "0.4318"),
                                         (1000.3 - 1000.1, "0.2"), (0.123456789012345, "0.123456789012345")])
def test_a_constant_is_read_as_its_short_decimal_or_to_its_last_digit(value, text):
    from fractions import Fraction
    assert _trig._rational(value) == Fraction(text)


_CACHE_PROBE = """
import os, sys
from click.testing import CliRunner
from baseparam.cli import main
result = CliRunner().invoke(main, ["equations", sys.argv[1], "--out", sys.argv[2]])
assert result.exit_code == 0, result.output
import sympy.core.cache
print(sympy.core.cache.SYMPY_CACHE_SIZE)
"""


@pytest.mark.parametrize("given, size", [(None, "100000"), ("5000", "5000")])
def test_equations_raises_sympys_cache_unless_the_user_set_it(tmp_path, given, size):
    """SymPy's 1000 cached sort keys were too few for a 7-joint arm's printing (panda: 16.5 s user, 13.0 s with
    100 000); a size the user gave is kept."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "SYMPY_CACHE_SIZE"}
    if given is not None:
        env["SYMPY_CACHE_SIZE"] = given
    robot = ROOT / "robots" / "ppr.yaml"
    out = subprocess.run([sys.executable, "-c", _CACHE_PROBE, str(robot), str(tmp_path / "e.md")], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [size]
