"""Columns found by name in a CSV header or a DataFrame: ``t``, ``q3``, ``tau[3] [N·m]``, … and their units."""
from __future__ import annotations

import re

from .._checks import shown
from ..errors import DataError
from ..motion import _field_label
from ._record import FIELDS, UNITS
from ._columns import shown_names, torque_excluded

_UNIT_HINT = {"t": "s", "q": "rad (or m)", "qd": "rad/s (or m/s)", "qdd": "rad/s^2 (or m/s^2)",
              "tau": "N·m (or N)", "current": "A"}

# "name [unit]" or "name (unit)"; brackets holding only digits ("q[1]", "pos[2]") are not units.
_UNIT = re.compile(r"^(.*?\S)\s*(?:\[([^\[\]]*)\]|\(([^()]*)\))$")

# Header names: "t"/"time", and a field prefix followed by the 1-based joint number.
_TIME_NAMES = ("t", "time")
_JOINT_NAME = re.compile(r"^(qdd|qd|q|tau|current|i)[_ ]?\[?([0-9]+)\]?$")
_NAME_FIELD = {"qdd": "qdd", "qd": "qd", "q": "q", "tau": "tau", "current": "current", "i": "current"}


def _check_overlap(source, spec):
    owner = {}
    for field, cols in spec.items():
        for j, c in enumerate(cols):
            label = _field_label(field, j)
            if c in owner:
                raise DataError(f"{source}: column map: column {c} is used for both {owner[c]} and {label}")
            owner[c] = label


def _named_columns(source, names, columns, where):
    """field → column indices for a table with column names (CSV header, DataFrame).

    Fields not in the map are found by name (``t``/``time``, ``q3``, ``qd_3``, ``tau[3]``,
    ``current3``/``i3``, with or without a unit: ``q3 [rad]``); each joint family must be
    complete (1..N) and agree with q. The units of the columns used must be SI (:data:`UNITS`).
    """
    detected = _detect_names(source, names, where)
    for field in torque_excluded(columns):
        detected.pop(field, None)
    _refuse_joint_zero(source, names, detected, columns, where)
    spec = {f: _lookup(source, f, cols, names) for f, cols in columns.items() if cols is not None}
    if "t" not in columns and "t" in detected:
        spec["t"] = [detected["t"][1]]
    if "q" not in columns and "q" in detected:
        spec["q"] = _complete(source, "q", detected["q"], max(detected["q"]), where)
    for field in ("qd", "qdd", "tau", "current"):
        if field in columns or field not in detected:
            continue
        if "q" not in spec:
            raise DataError(f"{source}: {where}: field q: no joint position columns (q1..qN); "
                            f"the columns are: {shown_names(names)}")
        n = len(spec["q"])
        extra = sorted(j for j in detected[field] if j > n)
        if extra:
            raise DataError(f"{source}: {where}: field {field}{extra[0]}: no matching q{extra[0]} "
                            f"(q has joints 1-{n})")
        spec[field] = _complete(source, field, detected[field], n, where)
    spec = {f: spec[f] for f in FIELDS if f in spec}
    _check_overlap(source, spec)
    _check_units(source, names, spec, where)
    return spec


def _refuse_joint_zero(source, names, detected, columns, where):
    """Refuse a column found by name with joint number 0 (``q0``, ``tau[0]``): joints are numbered from 1, so a header
    numbered from 0 had its first joint's columns left out and the others read one joint off (``q1`` of a 0-based
    header is the second joint), a 3-joint log read as 2 joints without a word. A field the map names is not looked
    up by name, and is not refused."""
    for field, family in detected.items():
        if field != "t" and field not in columns and 0 in family:
            raise DataError(f"{source}: {where}: column {shown(names[family[0]])}: joint 0; joints are numbered from "
                            f"1 ({field}1..{field}N): number the columns from 1, or map them with columns=")


def _check_units(source, names, spec, where):
    """Refuse a used column whose name carries a unit that is not its field's SI unit."""
    for field, cols in spec.items():
        for c in cols:
            unit = _split_unit(names[c])[1]
            if unit is not None and re.sub(r"\s+", "", unit).lower() not in UNITS[field]:
                raise DataError(f"{source}: {where}: column {shown(names[c])}: unit {unit} is not accepted; "
                                f"give {field} in {_UNIT_HINT[field]}")


def _split_unit(name):
    """(name, unit or None): 'q1 [rad]' → ('q1', 'rad'); 'q[1]' and 'pos[2]' have no unit."""
    name = name.strip()
    m = _UNIT.match(name)
    if m is None or _plain_field(name.lower()) is not None:
        return name, None
    unit = (m.group(2) if m.group(2) is not None else m.group(3)).strip()
    if not re.search(r"[^\d\s]", unit):
        return (m.group(1), None) if not unit else (name, None)
    return m.group(1), unit


def _plain_field(key):
    """(field, joint) of a lower-case name without unit, joint 1 for t; None for other names."""
    if key in _TIME_NAMES:
        return "t", 1
    m = _JOINT_NAME.match(key)
    return (_NAME_FIELD[m.group(1)], int(m.group(2))) if m else None


def _name_field(name):
    """(field, joint) of a column name, with or without unit; None for other names."""
    return _plain_field(_split_unit(name)[0].lower())


def _refuse_out_of_range(source, field, cols, width, extent):
    """DataError when a column map's ``field`` names a column number (0-based, ``cols``) beyond ``width`` columns;
    ``extent`` says what has them and the range ("the table has 7 columns, 0-6")."""
    bad = [c for c in cols if c >= width]
    if bad:
        raise DataError(f"{source}: column map: field {field}: column {bad[0]} out of range ({extent})")


def _lookup(source, field, cols, names):
    """Column indices for a map entry of indices or names."""
    width = len(names)
    if isinstance(cols[0], int):
        _refuse_out_of_range(source, field, cols, width, f"the table has {width} columns, 0-{width - 1}")
        return list(cols)
    lower = [n.lower() for n in names]
    bare = None
    out = []
    for name in cols:
        key = name.strip().lower()
        if name in names:
            out.append(names.index(name))
        elif key in lower:
            out.append(lower.index(key))
        elif key in (bare := bare or [_split_unit(n)[0].lower() for n in names]):
            out.append(bare.index(key))        # the name without its unit: 'q1' for 'q1 [rad]'
        else:
            raise DataError(f"{source}: column map: field {field}: no column named {shown(name)} "
                            f"(columns: {shown_names(names)})")
    return out


def _detect_names(source, names, where):
    """{field: {joint (1-based): column}} for t as {1: col} too; duplicates raise."""
    found = {}
    for col, name in enumerate(names):
        hit = _name_field(name)
        if hit is None:
            continue            # other columns (desired torques, timestamps in other units, …)
        field, joint = hit
        slot = found.setdefault(field, {})
        if joint in slot:
            label = "t" if field == "t" else f"{field}{joint}"
            raise DataError(f"{source}: {where}: field {label}: two columns ({slot[joint]} and {col}: "
                            f"{shown(names[slot[joint]])}, {shown(name)})")
        slot[joint] = col
    return found


def _complete(source, field, family, n, where):
    # the first gap, found lazily: a header's q99999999999 must not build a list of 1e11 joints
    missing = next((j for j in range(1, n + 1) if j not in family), None)
    if missing is not None:
        raise DataError(f"{source}: {where}: field {field}{missing}: missing column "
                        f"(found {shown_names([f'{field}{j}' for j in sorted(family)])})")
    return [family[j] for j in range(1, n + 1)]
