"""SymPy's printers (str, Python code, LaTeX) sharing the order of each sum's terms.

Every SymPy printer orders the terms of a sum by ``Expr.as_ordered_terms`` (through
``Printer._as_ordered_terms``) before it prints them, and the order is the costly part of printing a large
closed form: ``baseparam equations`` on a 7-joint arm prints the same equations four times (the check's Python
module, ``--python``, ``--json``'s strings, the Markdown's LaTeX); ordering every sum again each time would be about
half of the command's time (cProfile, robots/kuka_lwr4.yaml). The printers here compute each sum's order once
for a shared ``memo`` and read it after: the same order (the same function on the same expression), so the same
text to the byte.
"""

import functools


@functools.cache
def _printer(kind):
    """The SymPy printer class of ``kind`` ('str', 'python', 'latex') taking a ``memo`` dict of the terms' orders as
    its first argument; SymPy imported at the first use (this module is imported with baseparam.codegen)."""
    from sympy.printing.latex import LatexPrinter
    from sympy.printing.pycode import PythonCodePrinter
    from sympy.printing.str import StrPrinter
    printer = {"str": StrPrinter, "python": PythonCodePrinter, "latex": LatexPrinter}[kind]

    class Sharing(printer):
        def __init__(self, memo, settings=None):
            super().__init__(settings)
            self._orders = memo

        def _as_ordered_terms(self, expr, order=None):
            order = order or self.order
            if order is None and expr.is_Add:       # SymPy's default order, the printers' own
                return _ordered_terms(expr, self._orders)
            key = (expr, order)
            terms = self._orders.get(key)
            if terms is None:
                terms = self._orders[key] = tuple(super()._as_ordered_terms(expr, order))
            return list(terms)          # a list, as SymPy's, which a printer may change

    Sharing.__name__ = Sharing.__qualname__ = f"Sharing{printer.__name__}"
    return Sharing


def text(expr, memo):
    """``str(expr)`` (SymPy's ``sstr``), the orders of its sums kept in ``memo``."""
    return _printer("str")(memo).doprint(expr)


def python(expr, memo, **settings):
    """``sympy.pycode(expr, **settings)``, the orders of its sums kept in ``memo``."""
    return _printer("python")(memo, settings).doprint(expr)


def latex(expr, memo, **settings):
    """``sympy.latex(expr, **settings)``, the orders of its sums kept in ``memo``."""
    return _printer("latex")(memo, settings).doprint(expr)


# -- SymPy's default order of a sum's terms, its sort keys kept in the memo ------------------------------------
# Expr.as_ordered_terms() sorts the terms by their monomials in the sum's factors (its "generators"), which it sorts
# by their sort keys; the sort key of a sum orders its terms in turn, so SymPy orders a nested sum again for every sum
# above it (SymPy's cache of sort keys holds 1000; a 7-joint arm's equations have 26 000 subexpressions). The
# functions below are SymPy 1.14's Expr.as_ordered_terms, Expr.as_terms, Expr.sort_key and Mul.as_ordered_factors
# for order=None, each result kept in the memo; anything else (another order, a sum with an O() term) goes to SymPy.
def _ordered_terms(add, memo):
    """``add.as_ordered_terms()`` (a list), computed once per memo."""
    key = (add, None)
    terms = memo.get(key)
    if terms is None:
        terms = memo[key] = tuple(_order_terms(add, memo))
    return list(terms)


def _order_terms(add, memo):
    from sympy import Add, Mul, Number, NumberSymbol

    def numbers_first(x):
        return not isinstance(x, (Number, NumberSymbol))
    # SymPy's special case: c + d·x with c > 0 and d < 0 keeps the number first
    add_args = sorted(Add.make_args(add), key=numbers_first)
    if len(add_args) == 2 and isinstance(add_args[0], (Number, NumberSymbol)) and isinstance(add_args[1], Mul):
        mul_args = sorted(Mul.make_args(add_args[1]), key=numbers_first)
        if (len(mul_args) == 2 and isinstance(mul_args[0], Number) and add_args[0].is_positive
                and mul_args[0].is_negative):
            return add_args
    terms = _terms(add, memo)
    if any(term.is_Order for term, _ in terms):
        return add.as_ordered_terms()
    key, reverse = add._parse_order(None)
    return [term for term, _ in sorted(terms, key=key, reverse=reverse)]


def _terms(add, memo):
    """``add.as_terms()[0]``: (term, (coefficient (re, im), monomial over the sorted generators, non-commutative
    factors)) per term, the coefficients' complex values kept in the memo (SymPy evaluates each as a float)."""
    from sympy import Add, Mul, S
    from sympy.core.exprtools import decompose_power

    gens, terms = set(), []
    for term in Add.make_args(add):
        coeff, rest = term.as_coeff_Mul()
        coeff = _complex(coeff, memo)
        cpart, ncpart = {}, []
        if rest is not S.One:
            for factor in Mul.make_args(rest):
                if factor.is_number:
                    try:
                        coeff *= complex(factor)
                    except (TypeError, ValueError):
                        pass
                    else:
                        continue
                if factor.is_commutative:
                    base, exp = decompose_power(factor)
                    cpart[base] = exp
                    gens.add(base)
                else:
                    ncpart.append(factor)
        terms.append((term, ((coeff.real, coeff.imag), cpart, tuple(ncpart))))
    gens = sorted(gens, key=lambda g: _sort_key(g, memo))
    indices = {g: i for i, g in enumerate(gens)}
    result = []
    for term, (coeff, cpart, ncpart) in terms:
        monom = [0] * len(gens)
        for base, exp in cpart.items():
            monom[indices[base]] = exp
        result.append((term, (coeff, tuple(monom), ncpart)))
    return result


def _complex(number, memo):
    key = ("complex", number)
    value = memo.get(key)
    if value is None:
        value = memo[key] = complex(number)
    return value


def _sort_key(expr, memo):
    """``expr.sort_key()``, a sum's, product's or power's computed from its parts' keys in the memo."""
    key = ("sort key", expr)
    value = memo.get(key)
    if value is None:
        value = memo[key] = _compound_sort_key(expr, memo)
    return value


def _compound_sort_key(expr, memo):
    """Expr.sort_key(order=None) of a sum, product or power; SymPy's own for anything else."""
    from sympy import Add, Mul, Pow, S

    if type(expr) not in (Add, Mul, Pow):
        return expr.sort_key()
    coeff, inner = expr.as_coeff_Mul()
    exp = S.One
    if inner.is_Pow:
        base, exp = inner.as_base_exp()
        if base is S.Exp1:
            return expr.sort_key()
        inner = base
    if type(inner) is Add:
        args = _ordered_terms(inner, memo)
    elif type(inner) is Mul:
        args = _ordered_factors(inner, memo)
    else:           # an atom or a function under the coefficient or the power: SymPy's own, cheap
        return expr.sort_key()
    args = tuple([_sort_key(arg, memo) for arg in args])
    return inner.class_key(), (len(args), args), exp.sort_key(), coeff


def _ordered_factors(mul, memo):
    """``mul.as_ordered_factors()``."""
    cpart, ncpart = mul.args_cnc()
    cpart.sort(key=lambda factor: _sort_key(factor, memo))
    return cpart + ncpart
