"""Motion limits of an excitation design: position range, |q̇|, |q̈| and |τ| per joint (SI).

They come from the description (``Joint.limits``: a URDF's ``<limit>`` or a YAML ``limits:``
entry), overridden field by field by a limits file (docs/formats.md, "Excitation limits")::

    joints:                          # one entry per joint, in the description's joint order
      - {q: [-2.96, 2.96], qd: 1.9, qdd: 10, tau: 170}   # rad, rad/s, rad/s², N·m (m, m/s, … prismatic)
      - {qd: 1.9}                    # fields left out keep the description's value (or none)

or by a URDF with the same joints (as many, of the same types; other names than the description's are said in a
warning; its ``<limit>`` elements; ``effort`` is the torque limit).
"""
from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._checks import read_bounded, shown
from .._numbers import json_float, json_floats, real_array
from .._validation import ABSURD, check_field_kinds, check_input, check_robot
from .._values import ComparedByValue
from .._warnings import ignored, warn
from ..errors import ArgumentError, ArgumentTypeError, DescriptionWarning, RobotDescriptionError, printable
from ..model._fields import _check_keys, _got, _mapping, _number
from ..model.checks import MAX_JOINTS
from ..model._yaml_text import MAX_BYTES, _decode, _Invalid, _load_yaml
from ..model.loading import is_urdf, load_robot

_KEYS = ("q", "qd", "qdd", "tau")
_FIELDS = ("lower", "upper", "velocity", "acceleration", "torque")          # MotionLimits' arrays
_RATES = (("qd", "velocity"), ("qdd", "acceleration"), ("tau", "torque"))   # a file's key of each limit > 0


# A velocity, acceleration or torque limit (or a position range) below this is a unit or typing error (SI).
MIN_LIMIT = 1e-6


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class MotionLimits(ComparedByValue):
    """Per-joint limits, SI; ±inf where a joint has none.

    Attributes
    ----------
    lower, upper : ndarray, shape (n_dof,)
        Position range (rad or m); n_dof at most :data:`~baseparam.model.checks.MAX_JOINTS` (64), as a robot's.
    velocity, acceleration, torque : ndarray, shape (n_dof,)
        Largest |q̇|, |q̈|, |τ|.
    source : str
        Where they came from (for messages and the JSON report).
    """

    lower: np.ndarray
    upper: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    torque: np.ndarray
    source: str = "description"

    def __post_init__(self):
        # built by motion_limits, or by hand: checked once here, so the design never indexes a wrong shape
        check_field_kinds(self, {"source": (str, "a str")})
        n = None
        for name in _FIELDS:
            arr = real_array(f"MotionLimits.{name}", getattr(self, name), ArgumentError)
            if arr.ndim == 1 and arr.size > MAX_JOINTS:      # before its values are scanned (a view of 10⁹)
                raise ArgumentError(f"MotionLimits.{name}: expected at most {MAX_JOINTS} joints, got {arr.size}")
            if arr.ndim != 1 or arr.size == 0 or (n is not None and arr.shape[0] != n):
                raise ArgumentError(f"MotionLimits.{name}: expected shape (n_dof,)"
                                    f"{'' if n is None else f' = ({n},), as lower'}, got {arr.shape}")
            if np.isnan(arr).any():
                raise ArgumentError(f"MotionLimits.{name}: NaN; expected numbers (±inf where a joint has no limit)")
            if name not in ("lower", "upper") and not (arr > 0).all():
                raise ArgumentError(f"MotionLimits.{name}: expected limits > 0 (inf: none), got {shown(arr.tolist())}")
            n = arr.shape[0]
            object.__setattr__(self, name, arr)
        if not (self.lower <= self.upper).all():
            raise ArgumentError("MotionLimits: a lower position limit above the upper")

    @property
    def n_dof(self):
        return len(self.lower)

    def to_dict(self):
        """JSON-ready: one entry per joint, null where there is no limit."""
        return [{"q": json_floats((lo, hi)), "qd": json_float(v), "qdd": json_float(a), "tau": json_float(t)}
                for lo, hi, v, a, t in zip(self.lower, self.upper, self.velocity, self.acceleration, self.torque)]

    def __repr__(self):
        return f"MotionLimits(n_dof={self.n_dof}, source={self.source!r})"


def position_range(limits, j):
    """Joint j's (0-based) position range in ``limits``, or (−π, π) when it has none (an unlimited revolute
    joint: any angle)."""
    lo, hi = limits.lower[j], limits.upper[j]
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else (-math.pi, math.pi)


def description_limits(robot):
    """The limits a description carries (``Joint.limits``), SI.

    A URDF's zeros are its defaults for attributes left out (``lower = upper = 0``, ``velocity = 0``,
    ``effort = 0``: a joint that could not move), so they count as no limit.
    """
    out = {name: np.full(robot.n_dof, -np.inf if name == "lower" else np.inf) for name in _FIELDS}
    for k, joint in enumerate(robot.joints):
        lim = joint.limits
        if lim is None:
            continue
        if lim.lower is not None and lim.upper is not None and lim.lower < lim.upper:
            out["lower"][k], out["upper"][k] = float(lim.lower), float(lim.upper)
        for field, value in (("velocity", lim.velocity), ("torque", lim.effort)):
            if value is not None and value > 0:
                out[field][k] = float(value)
    return out


def motion_limits(robot, limits=None):
    """The limits of a design: the description's, overridden by ``limits``.

    Parameters
    ----------
    robot : Robot
    limits : str, os.PathLike, dict (or any mapping), MotionLimits, optional
        A limits file (YAML, or a URDF whose ``<limit>`` elements apply joint by joint), its parsed
        content (``{"joints": [...]}``), or limits already built.

    Returns
    -------
    MotionLimits

    Raises
    ------
    ArgumentError
        One line naming the file (or ``limits``), the joint and the field: unreadable file,
        unknown key, a joint count other than the robot's, non-numbers, lower above upper, a range beyond
        ±1e8 or narrower than 1e-6, a speed, acceleration or torque limit below 1e-6 (SI) — of a
        :class:`MotionLimits` given as ``limits`` too.
    """
    check_robot(robot)
    if isinstance(limits, MotionLimits):
        if limits.n_dof != robot.n_dof:
            raise ArgumentError(f"limits: {limits.n_dof} joints, but the robot has {robot.n_dof}")
        # built by hand: the checks of a file's limits too (a range of ±1e300 or a limit of 1e-300 overflows the
        # design's scaled quantities)
        _check_values({name: getattr(limits, name) for name in _FIELDS},
                      "limits" if limits.source == "description" else printable(limits.source), robot.n_dof)
        return limits
    values = description_limits(robot)
    source = "description"
    if limits is not None:
        if isinstance(limits, (str, bytes, os.PathLike)):
            source = check_input(limits, "limits")
            entries = _read_file(source, robot)
        elif isinstance(limits, Mapping):
            source = "limits"
            entries = _entries(_as_parsed(limits), source, robot.n_dof)
        else:
            raise ArgumentTypeError(f"limits: expected a file name, a mapping or MotionLimits, got "
                                    f"{type(limits).__name__}")
        for k, entry in enumerate(entries):
            for field, value in entry.items():
                values[field][k] = value
    _check_values(values, source, robot.n_dof)
    return MotionLimits(**values, source=source)


def _check_values(values, source, n_dof):
    """Each joint's position range (both ends or none, lower below upper, within ±ABSURD, at least MIN_LIMIT
    wide) and its velocity, acceleration and torque limits (from MIN_LIMIT); ``values`` by MotionLimits' field names."""
    for k in range(n_dof):
        lo, hi = values["lower"][k], values["upper"][k]
        if math.isfinite(lo) != math.isfinite(hi):
            raise ArgumentError(f"{source}: joint {k + 1}: a position range needs both ends, got [{lo:g}, {hi:g}]")
        if not lo < hi:
            raise ArgumentError(f"{source}: joint {k + 1}: position range [{lo:g}, {hi:g}] is empty "
                                "(lower must be below upper)")
        if math.isfinite(lo) and not max(abs(lo), abs(hi)) <= ABSURD:
            raise ArgumentError(f"{source}: joint {k + 1}: position range [{lo:g}, {hi:g}] reaches beyond "
                                f"±{ABSURD:g} (rad or m), no joint's range; leave q out for a joint without one")
        if math.isfinite(lo) and hi - lo < MIN_LIMIT:
            raise ArgumentError(f"{source}: joint {k + 1}: position range [{lo:g}, {hi:g}] is narrower than "
                                f"{MIN_LIMIT:g} (rad or m): not a range a joint can be excited in")
        # below MIN_LIMIT the design's scaled quantities (1/v², …) overflow: a unit error, not a limit
        # (a huge limit is no limit, and is designed for: the search's box bounds the swing)
        for key, field in _RATES:
            value = values[field][k]
            if value < MIN_LIMIT:
                raise ArgumentError(f"{source}: joint {k + 1}: {key} limit {value:g} is below {MIN_LIMIT:g} (SI); "
                                    "check its unit")


def _read_file(path, robot):
    data = read_bounded(path, MAX_BYTES, printable(path), ArgumentError)      # more: refused by _decode
    if is_urdf(path, data):
        return _urdf_entries(path, robot)
    try:
        doc = _load_yaml(_decode(data))
    except _Invalid as exc:
        raise ArgumentError(exc.format(path)) from None
    return _entries(doc, path, robot.n_dof)


def _urdf_entries(path, robot):
    """Each joint's ``<limit>`` of a URDF with the same joints (numbered as the description's): as many and of the
    same types; other names than the description's (where it names its joints: a DH table's are unnamed, and the
    vendor's URDF is where its limits come from) are said in a DescriptionWarning."""
    try:
        with ignored():          # its geometry is not used: notes about its angles do not apply
            other = load_robot(path)
    except RobotDescriptionError as exc:
        raise ArgumentError(str(exc)) from None
    n_dof = robot.n_dof
    if other.n_dof != n_dof:
        raise ArgumentError(f"{path}: the URDF has {other.n_dof} joints, but the robot has {n_dof}")
    pairs = list(enumerate(zip(other.joints, robot.joints), start=1))
    for k, (theirs, ours) in pairs:
        # a revolute joint's limits in rad on a prismatic one in m
        if theirs.type != ours.type:
            raise ArgumentError(f"{path}: joint {k} ({shown(theirs.name)}) is {theirs.type} there, {ours.type} in the "
                                "robot: not the robot's limits")
    for k, (theirs, ours) in pairs:
        # said, not refused: a description's own names for the vendor's joints are common (another robot's
        # joints taken in order is what the words are for)
        if ours.name is not None and theirs.name != ours.name:
            warn(f"{path}: joint {k} is {shown(theirs.name)} there, {shown(ours.name)} in the robot: its limits are "
                 "taken in order", DescriptionWarning)
            break
    values = description_limits(other)
    return [{field: values[field][k] for field in values if math.isfinite(values[field][k])}
            for k in range(n_dof)]


def _as_parsed(doc):
    """``limits`` given as Python values, in the form a limits file's YAML parses to, which :func:`_entries` checks:
    mappings as dicts, numpy numbers as Python's, tuples and arrays of two as lists (else ``{'qd': np.int64(2)}``
    would be refused as "expected a finite number > 0, got np.int64(2)", ``{'q': (-1, 1)}`` as "expected [lower,
    upper]", a read-only mappingproxy as "expected … a mapping"). Anything else is left for those checks to refuse,
    in their words."""
    def number(x):
        return x.item() if isinstance(x, np.generic) else x

    def field(x):                   # a number, or q's [lower, upper]
        pair = isinstance(x, (tuple, np.ndarray)) and np.ndim(x) == 1 and len(x) == 2
        return [number(v) for v in x] if pair or isinstance(x, list) and len(x) == 2 else number(x)

    joints = doc.get("joints")
    if not isinstance(joints, (list, tuple)):
        return dict(doc)
    return {**doc, "joints": [{key: field(value) for key, value in entry.items()} if isinstance(entry, Mapping)
                              else entry for entry in joints]}


def _entries(doc, source, n_dof):
    """``{"joints": [...]}`` as one dict of finite SI values per joint (fields given only)."""
    try:
        doc = _mapping(doc, "", "{joints: [{q: [-3, 3], qd: 2, qdd: 10}, ...]}")
        _check_keys(doc, ("joints",), "")
        if "joints" not in doc:
            raise _Invalid("joints", "missing: expected one entry per joint")
        joints = doc["joints"]
        if not isinstance(joints, list):
            raise _Invalid("joints", f"expected a list with one entry per joint, got {_got(joints)}")
        if len(joints) != n_dof:
            raise _Invalid("joints", f"{len(joints)} entries, but the robot has {n_dof} joints")
        return [_entry(entry, f"joints[{k + 1}]") for k, entry in enumerate(joints)]
    except _Invalid as exc:
        raise ArgumentError(exc.format(source)) from None


def _entry(entry, path):
    if entry is None:
        return {}
    entry = _mapping(entry, path, "{q: [-3, 3], qd: 2, qdd: 10, tau: 100}")
    _check_keys(entry, _KEYS, path)
    out = {}
    if entry.get("q") is not None:
        pair = entry["q"]
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Invalid(f"{path}.q", f"expected [lower, upper], got {_got(pair)}")
        lo, hi = (float(_number(v, f"{path}.q[{i + 1}]")) for i, v in enumerate(pair))
        if not lo < hi:
            raise _Invalid(f"{path}.q", f"lower {lo:g} is not below upper {hi:g}")
        out["lower"], out["upper"] = lo, hi
    for key, field in _RATES:
        if entry.get(key) is not None:
            value = float(_number(entry[key], f"{path}.{key}", "a finite number > 0"))
            if value <= 0:
                raise _Invalid(f"{path}.{key}", f"expected a finite number > 0, got {_got(entry[key])}")
            out[field] = value
    return out
