"""One conversion for every array a user hands to baseparam: real numbers as float64, or an error
naming the argument (complex, dates and durations, booleans, text and other objects, ragged lists)."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ._checks import counted, loaded_class
from .errors import ArgumentError

# What each refused dtype kind is called in messages, with a hint where one helps.
_REFUSED = {
    "c": "complex values; expected real numbers",
    "M": "dates; convert to seconds, e.g. (t - t[0]) / np.timedelta64(1, 's')",
    "m": "durations; convert to seconds, e.g. d / np.timedelta64(1, 's')",
    "b": "booleans; expected numbers",
    "U": "text; expected numbers",
    "S": "bytes; expected numbers",
    "V": "records; expected an array of plain numbers",
}
_ALL_REAL = object()    # real_array's "no item of an object array is refused" (None is an item it refuses)
# A joint position, velocity or acceleration beyond this (rad, m, per s, per s²) is a unit or data
# error, and would overflow the dynamics' products.
ABSURD = 1e8
# what an int or a Fraction too large for float64 is called in a refusal (float() of it: OverflowError)
BEYOND_FLOAT = f"a number beyond the float range (|x| > {np.finfo(float).max:.3g})"


def distinct_seconds(*times) -> tuple:
    """``times`` (s) as text, to 10 significant digits or more where fewer would show two different times alike: a
    Unix time stamp 1700000000.000125 s after 1700000000.000130 s read "1700000000 s after 1700000000 s"."""
    values = [float(x) for x in times]
    for digits in range(10, 18):
        texts = tuple(f"{x:.{digits}g}" for x in values)
        if all((a == b) == (x == y) for a, x in zip(texts, values) for b, y in zip(texts, values)):
            return texts
    return tuple(repr(x) for x in values)


def is_real(x) -> bool:
    """A finite real number (Python or numpy), not a bool nor a numpy duration (an integer type to numbers)."""
    try:
        return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_, np.timedelta64)) and math.isfinite(x)
    except OverflowError:          # an int beyond the float range
        return False


def zero_d_number(x):
    """``x`` as its numpy scalar when it is a plain 0-d array of integers or floats (``np.array(0.3)``, what reductions
    and ``np.asarray`` of a number give: a number, as ``np.float64(0.3)`` is), else ``x`` itself (a bool, complex or
    object array, a subclass such as a masked array, any other value)."""
    if type(x) is np.ndarray and x.ndim == 0 and x.dtype.kind in "iuf":
        return x[()]
    return x


def is_whole(x) -> bool:
    """A whole number (Python or numpy integer), not a bool nor a numpy duration (np.timedelta64 subclasses
    np.signedinteger: to numbers it is an Integral, though no count)."""
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_, np.timedelta64))


def plain_float(text: str) -> float:
    """``float(text)`` in the grammar files and command lines write numbers in: ASCII digits, no ``_``.

    Python's float() also takes digits of other scripts (``'١'``, ``'２'``) and ``_`` separators (``'1_0'`` is
    10), so a pasted or mistyped character became another number, silently, where numpy's readers (and C's
    strtod) refuse it. Raises ValueError for such text, as float() does for any other non-number."""
    if "_" in text or not text.isascii():
        raise ValueError(f"not a plain number: {text!r}")
    return float(text)


def plain_int(text: str) -> int:
    """``int(text)`` in the same grammar as :func:`plain_float` (ValueError for ``'٣'``, ``'1_0'``, ``'²'``)."""
    if "_" in text or not text.isascii():
        raise ValueError(f"not a plain whole number: {text!r}")
    return int(text)


def json_float(x):
    """``x`` as a float for JSON, or None (null) when it is not finite."""
    return float(x) if math.isfinite(x) else None


def json_floats(values):
    """:func:`json_float` of each value."""
    return [json_float(v) for v in values]


# Below this many values a float copy is not worth the look at /proc/meminfo that checking it costs
# (_validation.CHECKED_BYTES of float64)
_CHECKED_VALUES = 2 ** 23


def _check_copy(name, size):
    """Refuse, before it is made, a float copy of ``size`` values beyond the memory budget: a broadcast view of 10⁹
    integers costs no memory, its conversion 8 GB (numpy's bare MemoryError, or the system's OOM killer)."""
    if size > _CHECKED_VALUES:
        from ._memory import check_memory

        check_memory(8 * size, lambda need, allowed: f"{name}: {size} values: their float copy would need {need} of "
                                                     f"memory, more than the {allowed} available")


def real_array(name, x, error=ArgumentError):
    """``x`` as a float64 ndarray (no copy when it already is one).

    Parameters
    ----------
    name : str
        What to call ``x`` in messages (``"q"``, ``"ur.csv: field q (key q)"``).
    x : array_like
        Integers and floats of any width; an object array only of real Python numbers; ``np.matrix``
        and other subclasses as plain arrays; a masked array without masked values.
    error : type
        The exception raised (a :class:`~baseparam.BaseParamError` and ValueError subclass).

    Raises
    ------
    error
        One line, ``NAME: …``, for complex numbers, datetime64/timedelta64, booleans, strings,
        other objects, ragged nested sequences, and masked values.
    """
    # the class by the loaded modules: ``np.ma`` would import it (50 ms, on the first call of a process), and a
    # masked array exists only once it has been imported
    if isinstance(x, loaded_class("numpy.ma.core", "MaskedArray")):
        import numpy.ma as ma       # loaded: x is one of its arrays

        if ma.is_masked(x):         # np.asarray would read the values under the mask as data
            count = int(ma.count_masked(x))
            raise error(f"{name}: a masked array with {counted(count, 'masked values')}; fill them "
                        "(x.filled(value)) or leave those samples out")
        x = x.data
    if isinstance(x, np.ndarray):
        # subclasses (np.matrix keeps two dimensions through every operation) as plain arrays
        arr = x if type(x) is np.ndarray else x.view(np.ndarray)
    else:
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError, OverflowError):
            raise error(f"{name}: not a rectangular array of numbers (ragged rows or mixed "
                        f"items in a {type(x).__name__})") from None
    kind = arr.dtype.kind
    if kind in "iuf":
        if arr.dtype != np.float64:
            _check_copy(name, arr.size)
        return arr.astype(np.float64, copy=False)
    if kind == "O":
        item = next((v for v in arr.flat if not isinstance(v, numbers.Real) or isinstance(v, (bool, np.bool_))),
                    _ALL_REAL)
        if item is _ALL_REAL:           # real numbers only: converted unless one is beyond float64
            try:
                return arr.astype(np.float64)
            except OverflowError:       # an int or a Fraction beyond float64 (it was said as "object items")
                raise error(f"{name}: {BEYOND_FLOAT}; expected numbers in SI units") from None
            except (TypeError, ValueError):
                item = None
        what = type(item).__name__ if item is not None else "object"
        raise error(f"{name}: not numeric (dtype object); {what} items; expected numbers")
    raise error(f"{name}: not numeric (dtype {arr.dtype})" + (f"; {_REFUSED[kind]}" if kind in _REFUSED else ""))


def check_state_values(name, arr, error=ArgumentError):
    """Refuse a state array ``arr`` (n_samples, n_dof) float holding a non-finite or absurd (|x| > :data:`ABSURD`)
    value: ``error`` naming the first one's sample and joint. The values test of every state check
    (``_validation.check_samples``, ``model.friction.friction_shapes``), here below the model's modules."""
    if arr.size and not within_absurd(arr):
        at = first_beyond_absurd(arr)
        if at is not None:
            s, j = at
            raise error(f"{name}: {beyond_absurd(arr[s, j], 'x')} {arr[s, j]} at sample {s}, joint {j + 1}")


def first_beyond_absurd(arr):
    """The index of the first value of ``arr`` (any shape, C order) not within ±:data:`ABSURD` (NaN and infinities
    among them: NaN compares False), or None: the one test of a state's or a wrench's values.

    Returns
    -------
    tuple of int (``arr.ndim`` of them), or None
    """
    bad = ~(np.abs(arr) <= ABSURD)
    return tuple(int(k) for k in np.argwhere(bad)[0]) if bad.any() else None


def beyond_absurd(value, symbol) -> str:
    """The words for a value :func:`first_beyond_absurd` found: non-finite, or absurd (``|symbol| > 1e+08``)."""
    return "non-finite value" if not np.isfinite(value) else f"absurd value (|{symbol}| > {ABSURD:g})"


def within_absurd(arr):
    """A quick test that every value of a non-empty array is within ±ABSURD (NaN not): True means so; False
    leaves it to the element-wise test. A few values (one sample) as Python floats, whose sum of magnitudes
    carries NaN and inf and exceeds ABSURD with any value beyond it (with a few large ones too, then the
    element-wise test decides); more by the largest and smallest values (NaN propagates into both): two passes
    and no temporaries of the array's size, faster than the element-wise test."""
    if arr.size <= 32:
        return sum(map(abs, arr.ravel().tolist())) <= ABSURD
    return bool(arr.max() <= ABSURD and arr.min() >= -ABSURD)


def flat_values(x, n):
    """``x`` (any shape: (n,), (1, n), a list) as a flat float64 array of its ``n`` values, or None when it holds
    another number of values. The count is checked before the conversion and the flattening, which copy: a view
    broadcast from a row, of 10¹² values, would be copied whole (numpy's bare MemoryError).

    Raises
    ------
    TypeError or ValueError
        As ``np.asarray``'s, for what holds no numbers; text of another count is refused as no numbers
        (ValueError), not answered with None.
    ValueError
        For whatever :func:`real_array` refuses (text, booleans, complex numbers, masked values, an int or a
        Fraction beyond the float range)."""
    arr = np.asarray(x)
    if arr.size != n:
        if arr.dtype.kind not in "biufc":
            raise ValueError(f"not {n} numbers")
        return None
    # converted as every array argument (real_array): numpy's cast read text and booleans as numbers, dropped an
    # imaginary part (with its ComplexWarning) and read values under a mask; an int or a Fraction beyond float64 was
    # a bare OverflowError
    return real_array("values", x, ValueError).ravel()
