"""Checks of single fields of a description: keys, mappings, numbers, strings, choices, vectors."""
from __future__ import annotations

import difflib

from .._checks import shown
from .._numbers import is_real
from ._yaml_text import _Invalid

_MAX_GOT = 100


def _got(value) -> str:
    """A short repr of `value` for messages: the library's one rule (:func:`baseparam._checks.shown`)."""
    return shown(value, _MAX_GOT)


def _check_keys(mapping: dict, allowed, path: str, required=()) -> None:
    """No key outside `allowed` (the closest one suggested), and every key of `required`."""
    for key in mapping:
        if key not in allowed:
            label = key if isinstance(key, str) else repr(key)
            close = difflib.get_close_matches(label, allowed, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise _Invalid(f"{path}.{label}" if path else label,
                           f"unknown field; {hint}expected one of {', '.join(allowed)}")
    for key in required:
        if key not in mapping:
            raise _Invalid(f"{path}.{key}" if path else key, "required field is missing")


def _mapping(value, path: str, example: str) -> dict:
    if not isinstance(value, dict):
        raise _Invalid(path, f"expected a mapping such as {example}, got {_got(value)}")
    return value


def _number(value, path: str, expected: str = "a finite number"):
    """`value` unchanged if it is a finite int or float (bool is not a number)."""
    if not isinstance(value, (int, float)) or not is_real(value):     # a bool, inf, nan, an int beyond the floats
        numeric = isinstance(value, str) and _looks_numeric(value)
        if numeric and not value.isascii():     # float() reads '９０' and '٩٠'; YAML reads only 0-9 as digits
            hint = " (digits other than 0-9 are text in YAML: write the number with 0-9)"
        else:
            hint = " (a quoted string: write the number without quotes)" if numeric else ""
        raise _Invalid(path, f"expected {expected}, got {_got(value)}{hint}")
    return value


def _non_negative(value, path: str, expected: str = "a finite number ≥ 0"):
    value = _number(value, path, expected)
    if value < 0:
        raise _Invalid(path, f"expected {expected}, got {_got(value)}")
    return value


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _string(value, path: str, non_empty: bool = False) -> str:
    if not isinstance(value, str) or (non_empty and not value.strip()):
        raise _Invalid(path, f"expected a {'non-empty ' if non_empty else ''}string, got {_got(value)}")
    return value


def _choice(value, options, path: str) -> str:
    if not isinstance(value, str) or value not in options:
        raise _Invalid(path, f"expected one of {', '.join(map(repr, options))}, got {_got(value)}")
    return value


def _vector(value, n: int, path: str) -> tuple:
    """`n` finite numbers, as written."""
    if not isinstance(value, list) or len(value) != n:
        raise _Invalid(path, f"expected a list of {n} finite numbers, got {_got(value)}")
    return tuple(_number(x, f"{path}[{i}]") for i, x in enumerate(value, start=1))
