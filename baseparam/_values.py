"""Equality of the library's results that hold arrays: field by field, arrays number for number.

A dataclass's generated ``==`` compares a tuple of its fields, and a tuple of numpy arrays has no truth value:
two results made alike (a Trajectory and its pickled copy, two designs of one seed) would raise numpy's "The
truth value of an array with more than one element is ambiguous" ValueError; only a result compared with itself, or
with a copy sharing its arrays, would pass (the tuple's identity shortcut). :class:`ComparedByValue` gives those
results the comparison their docstrings' word "value" promises.
"""
from __future__ import annotations

import dataclasses

import numpy as np


def same_value(a, b) -> bool:
    """True when ``a`` and ``b`` hold the same values: arrays of one shape number for number (NaN equal to NaN, as
    a result and its copy agree), lists, tuples and dicts item by item, anything else by its own ``==``."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _same_array(np.asarray(a), np.asarray(b))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same_value, a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return type(a) is type(b) and a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:        # NaN, as in arrays
        return True
    equal = a == b
    return bool(np.all(equal)) if isinstance(equal, np.ndarray) else bool(equal)


def _same_array(a, b) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype == object or b.dtype == object:
        return all(map(same_value, a.ravel().tolist(), b.ravel().tolist()))
    nan_is_a_value = a.dtype.kind in "fc" and b.dtype.kind in "fc"
    return bool(np.array_equal(a, b, equal_nan=nan_is_a_value))


class ComparedByValue:
    """A frozen dataclass (declared ``eq=False``) holding arrays, compared field by field with :func:`same_value`
    over the fields that compare; hashed as the dataclass would hash it (a TypeError while it holds an array, a
    list or a dict: unhashable values, as in any frozen dataclass)."""

    __slots__ = ()

    def _compared(self):
        return [field.name for field in dataclasses.fields(self) if field.compare]

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(same_value(getattr(self, name), getattr(other, name)) for name in self._compared())

    def __hash__(self):
        hashed = [field.name for field in dataclasses.fields(self)
                  if (field.compare if field.hash is None else field.hash)]
        return hash(tuple(getattr(self, name) for name in hashed))
