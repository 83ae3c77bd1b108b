"""A single-assignment expression table with hash-consing and constant folding.

Dynamics written once in scalar form run on :class:`Expr` values to record a graph instead of
numbers: every distinct operation is stored once (a repeated subexpression gets the node it
already has), and arithmetic with the exact constants 0, ±1 of the DH table folds away as it is
built. The graph is then turned into straight-line numpy code (:mod:`baseparam.dynamics._compiled`), and
:func:`operation_count` says what it costs.

Division exists for the forward dynamics (one per joint: the articulated inertia's pivot); the
regressor and inverse-dynamics graphs never divide.

Negation is kept as a node of its own (it is free: it folds into the next addition or is a sign
change in emitted code), and sums of negated terms become subtractions.
"""
from __future__ import annotations

import math

CONST, INPUT, ADD, SUB, MUL, NEG, DIV = "const", "input", "add", "sub", "mul", "neg", "div"
BINARY = (ADD, SUB, MUL, DIV)
# How deep _cancel looks into the operands of a sum for terms that cancel.
CANCEL_DEPTH = 4


def _tidy(value):
    """A folded constant, with the rounding of its factors removed when it is a simple dyadic number.

    cos²45° computes to 0.5000000000000001: left so, it would be a second constant beside 0.5 and
    keep products apart that are one. Values within 4 ulp of a multiple of 1/1024 snap to it.
    """
    nearest = round(value * 1024.0) / 1024.0
    return nearest if abs(value - nearest) <= 4.0 * math.ulp(value) else value


class Graph:
    """The node table. Node ``i`` is ``(op, args)``; ``args`` are node ids, a float for constants,
    or ``(name, index)`` for inputs."""

    def __init__(self):
        self.ops: list = []
        self.args: list = []
        self._index: dict = {}
        self.zero = self.const(0.0)
        self.one = self.const(1.0)

    def __len__(self):
        return len(self.ops)

    def _node(self, op, args):
        key = (op, args)
        i = self._index.get(key)
        if i is None:
            i = len(self.ops)
            self.ops.append(op)
            self.args.append(args)
            self._index[key] = i
        return Expr(self, i)

    def const(self, value):
        value = float(value)
        if value == 0.0:
            value = 0.0        # one zero: -0.0 and 0.0 are the same node
        return self._node(CONST, value)

    def input(self, name, index=0):
        return self._node(INPUT, (name, index))

    def value(self, i):
        """The constant of node i, or None."""
        return self.args[i] if self.ops[i] == CONST else None

    # -- folding constructors (ids in, Expr out) ----------------------------------------------
    def neg(self, a):
        op, args = self.ops[a], self.args[a]
        if op == CONST:
            return self.const(-args)
        if op == NEG:
            return Expr(self, args)
        return self._node(NEG, a)

    def add(self, a, b):
        va, vb = self.value(a), self.value(b)
        if va is not None and vb is not None:
            return self.const(_tidy(va + vb))
        if va == 0.0:
            return Expr(self, b)
        if vb == 0.0:
            return Expr(self, a)
        if va is not None and va < 0:       # −c + x = x − c: constants stay positive in the code
            return self.sub(b, self.const(-va).i)
        if vb is not None and vb < 0:
            return self.sub(a, self.const(-vb).i)
        na, nb = self.ops[a] == NEG, self.ops[b] == NEG
        if na and nb:
            return self.neg(self.add(self.args[a], self.args[b]).i)
        if nb:
            return self.sub(a, self.args[b])
        if na:
            return self.sub(b, self.args[a])
        cancelled = self._cancel(a, b, 1.0)
        if cancelled is not None:
            return cancelled
        return self._node(ADD, (a, b) if a <= b else (b, a))

    def sub(self, a, b):
        if a == b:
            return Expr(self, self.zero.i)
        va, vb = self.value(a), self.value(b)
        if va is not None and vb is not None:
            return self.const(_tidy(va - vb))
        if vb == 0.0:
            return Expr(self, a)
        if va == 0.0:
            return self.neg(b)
        if vb is not None and vb < 0:       # x − (−c) = x + c
            return self.add(a, self.const(-vb).i)
        if va is not None and va < 0:       # −c − x = −(c + x)
            return self.neg(self.add(self.const(-va).i, b).i)
        if self.ops[b] == NEG:
            return self.add(a, self.args[b])
        if self.ops[a] == NEG:              # −x − y = −(x + y)
            return self.neg(self.add(self.args[a], b).i)
        cancelled = self._cancel(a, b, -1.0)
        if cancelled is not None:
            return cancelled
        if a > b:                           # one node for x − y and y − x: −(y − x)
            return self.neg(self._node(SUB, (b, a)).i)
        return self._node(SUB, (a, b))

    def _terms(self, i, sign, out, depth=0):
        """Signed terms of a sum node, flattened through +, − and negation (a few levels deep)."""
        op, args = self.ops[i], self.args[i]
        if depth < CANCEL_DEPTH and op in (ADD, SUB):
            self._terms(args[0], sign, out, depth + 1)
            self._terms(args[1], sign if op == ADD else -sign, out, depth + 1)
        elif depth < CANCEL_DEPTH and op == NEG:
            self._terms(args, -sign, out, depth + 1)
        else:
            out.append((i, sign))
        return out

    def _cancel(self, a, b, sign):
        """a + sign·b with terms that cancel removed (x − y − x = −y), or None when none cancel.

        Hash-consing shares equal values but cannot see that a sum of shared terms is zero; this
        looks a few levels into both operands and rebuilds the sum without the cancelling pairs.
        """
        terms = self._terms(a, 1.0, []) + self._terms(b, sign, [])
        if len(terms) < 3 and not (len(terms) == 2 and terms[0][0] == terms[1][0]):
            return None
        total = {}
        for i, s in terms:
            total[i] = total.get(i, 0.0) + s
        if all(c != 0.0 for c in total.values()):
            return None                     # nothing cancels
        out = self.zero
        for i, s in terms:                  # rebuild in the original order, cancelled terms left out
            if total[i] != 0.0:
                out = out + Expr(self, i) if s > 0 else out - Expr(self, i)
        return out

    def mul(self, a, b):
        va, vb = self.value(a), self.value(b)
        if va is not None and vb is not None:
            return self.const(_tidy(va * vb))
        if vb is not None:                  # constants first
            a, b, va, vb = b, a, vb, va
        if va is not None:
            if va == 0.0:
                return Expr(self, self.zero.i)
            if va == 1.0:
                return Expr(self, b)
            if va == -1.0:
                return self.neg(b)
            if va < 0:
                return self.neg(self.mul(self.const(-va).i, b).i)
            if self.ops[b] == MUL and self.value(self.args[b][0]) is not None:   # c1·(c2·x) = (c1c2)·x
                c2, x = self.args[b]
                return self.mul(self.const(_tidy(va * self.args[c2])).i, x)
        if self.ops[a] == NEG:
            return self.neg(self.mul(self.args[a], b).i)
        if self.ops[b] == NEG:
            return self.neg(self.mul(a, self.args[b]).i)
        if va is None and b < a:
            a, b = b, a
        return self._node(MUL, (a, b))


    def div(self, a, b):
        """a / b (the forward dynamics' pivots); a constant divisor becomes a multiplication."""
        va, vb = self.value(a), self.value(b)
        if vb == 0.0:
            raise ZeroDivisionError("division by an exact zero in an expression graph")
        if va is not None and vb is not None:
            return self.const(va / vb)
        if va == 0.0:
            return Expr(self, self.zero.i)
        if vb is not None:
            return self.mul(self.const(1.0 / vb).i, a)
        if self.ops[a] == NEG:
            return self.neg(self.div(self.args[a], b).i)
        if self.ops[b] == NEG:
            return self.neg(self.div(a, self.args[b]).i)
        return self._node(DIV, (a, b))


def _operator(method, reflected=False):
    """An operator of :class:`Expr` calling the folding constructor ``method`` (operands swapped when
    ``reflected``: ``2 - x`` is ``x.__rsub__(2)``)."""
    def apply(self, other):
        other = other.i if isinstance(other, Expr) else self.g.const(other).i
        return method(self.g, other, self.i) if reflected else method(self.g, self.i, other)
    return apply


class Expr:
    """A node of a :class:`Graph` with Python's arithmetic operators; floats mix in as constants."""

    __slots__ = ("g", "i")

    def __init__(self, g, i):
        self.g, self.i = g, i

    __add__ = __radd__ = _operator(Graph.add)
    __sub__, __rsub__ = _operator(Graph.sub), _operator(Graph.sub, reflected=True)
    __mul__ = __rmul__ = _operator(Graph.mul)
    __truediv__, __rtruediv__ = _operator(Graph.div), _operator(Graph.div, reflected=True)

    def __neg__(self):
        return self.g.neg(self.i)

    @property
    def is_zero(self):
        return self.g.value(self.i) == 0.0

    def __repr__(self):
        return f"Expr({self.g.ops[self.i]}, {self.g.args[self.i]!r})"


def constant(g, value, tol=0.0):
    """A graph constant; values within ``tol`` of 0 or ±1 snap to them (exact DH cosines)."""
    for exact in (0.0, 1.0, -1.0):
        if math.isclose(value, exact, rel_tol=0.0, abs_tol=tol):
            return g.const(exact)
    return g.const(value)


def live_nodes(g, roots):
    """Ids of the nodes the roots depend on, in topological (creation) order: dead code removed."""
    seen = set()
    stack = [r for r in roots]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        op, args = g.ops[i], g.args[i]
        if op in BINARY:
            stack.extend(args)
        elif op == NEG:
            stack.append(args)
    return sorted(seen)


_COUNTED = {MUL: "mul", ADD: "add", SUB: "add", DIV: "div"}


def operation_count(g, roots):
    """Operations needed for the roots: multiplications, additions (incl. subtractions), divisions.

    Negations are free (docs/formats.md, section "Exported code"), as are constants and inputs.
    """
    counts = {"mul": 0, "add": 0, "div": 0}
    for i in live_nodes(g, roots):
        kind = _COUNTED.get(g.ops[i])
        if kind is not None:
            counts[kind] += 1
    return counts
