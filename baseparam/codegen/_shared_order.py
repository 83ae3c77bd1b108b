"""SymPy's printers (str, Python code, LaTeX) sharing the order of each sum's terms.

Every SymPy printer orders the terms of a sum by ``Expr.as_ordered_terms`` (through
``Printer._as_ordered_terms``) before it prints them, and the order is the costly part of printing a large
closed form: ``baseparam equations`` on a 7-joint arm printed the same equations four times (the check's Python
module, ``--python``, ``--json``'s strings, the Markdown's LaTeX), each time ordering every sum again, about
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
            key = (expr, order or self.order)
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
