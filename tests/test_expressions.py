"""The expression graph folds what hash-consing alone cannot: cancelling terms, and x − y against y − x."""
import numpy as np

from baseparam.dynamics.expressions import ADD, MUL, NEG, SUB, Graph, operation_count


def evaluate(g, node, values):
    """The value of a node, given values of the inputs by name (an independent tiny interpreter)."""
    op, args = g.ops[node], g.args[node]
    if op == "const":
        return args
    if op == "input":
        return values[args[0]]
    if op == NEG:
        return -evaluate(g, args, values)
    a, b = (evaluate(g, x, values) for x in args)
    return {ADD: a + b, SUB: a - b, MUL: a * b}[op]


def test_cancelling_terms_vanish():
    g = Graph()
    x, y, z = g.input("x"), g.input("y"), g.input("z")
    assert (x - y - x).i == (-y).i                        # −y, no operation
    assert ((x + y) - (y + x)).is_zero
    e = (x + z * y - y) - x * 1.0 - z * y                 # everything but −y cancels
    assert e.i == (-y).i
    assert operation_count(g, [e.i]) == {"mul": 0, "add": 0, "div": 0}


def test_x_minus_y_and_y_minus_x_share_one_node():
    g = Graph()
    x, y, w = g.input("x"), g.input("y"), g.input("w")
    a, b = x - y, y - x
    assert g.ops[b.i] == NEG and g.args[b.i] == a.i or g.ops[a.i] == NEG and g.args[a.i] == b.i
    s = w * a + w * b                                     # w(x − y) + w(y − x) = 0
    assert s.is_zero


def test_sums_without_cancellation_are_unchanged_and_right():
    rng = np.random.default_rng(0)
    g = Graph()
    names = "abcdef"
    v = {n: g.input(n) for n in names}
    values = dict(zip(names, rng.normal(size=6)))
    exprs = [v["a"] + v["b"] - v["c"], (v["a"] - v["b"]) * (v["c"] + v["d"]) - v["e"],
             v["a"] - (v["b"] - (v["c"] - (v["d"] - v["e"]))) + v["f"] - v["a"]]
    expected = [values["a"] + values["b"] - values["c"],
                (values["a"] - values["b"]) * (values["c"] + values["d"]) - values["e"],
                values["a"] - (values["b"] - (values["c"] - (values["d"] - values["e"]))) + values["f"] - values["a"]]
    for e, want in zip(exprs, expected):
        assert np.isclose(evaluate(g, e.i, values), want, rtol=1e-14, atol=1e-14)
    # the last one has a − a: the cancelled graph needs fewer additions than the expression as written (6)
    assert operation_count(g, [exprs[2].i])["add"] < 6
    assert operation_count(g, [exprs[0].i]) == {"mul": 0, "add": 2, "div": 0}   # negations are free
