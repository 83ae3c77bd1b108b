"""Checks and round-off snapping shared by the YAML loader and robots built in code.

Each check returns the problem as ``(field, message)`` (or a message) rather than raising, so
that the loader can put the file name and the joint in front of the field, and
:class:`~baseparam.model.robot.Robot` / :class:`~baseparam.model.robot.Inertia` can raise
:class:`~baseparam.errors.RobotDescriptionError` themselves: one check serves both.

Snapping: a number within round-off of a special value is taken as that value, because the
projection engine decides rank and regroupings *exactly*: a gravity component of 6e-16 m/s²
beside 9.81 (what ``9.81·cos 90°`` gives) is, for the engine, a genuinely tilted gravity with
different regroupings. The tolerances are those of :func:`~baseparam.model.joint_model.exact_cos_sin`
for twists in radians (1e-12 of 15°), and 1e-9·|g| for gravity components.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._checks import shown
from .._numbers import is_real, real_array
from ..errors import ArgumentError

MAX_LENGTH_M = 1e4         # a 10 km link is a typo, and beyond it squares of lengths lose meaning
MIN_LENGTH_M = 1e-9        # below a nanometre a non-zero length is noise (or a denormal)
MAX_GRAVITY = 1e4          # m/s², per component
MIN_GRAVITY = 1e-6         # m/s²: a non-zero gravity weaker than this is a typo (or a denormal)
GRAVITY_ROUND_OFF = 1e-9   # components below this fraction of |g| are round-off of 0
ANGLE_ROUND_OFF = 1e-12    # in units of 15°: as exact_cos_sin does for radians
MAX_ANGLE_DEG = 3600.0
MAX_ANGLE_RAD = 2.0 * math.pi * (1.0 + 1e-9)   # 2π written with fewer digits still passes
MAX_MASS_KG = 1e6          # a 1000-tonne link is a typo
MAX_COM_M = 1e4            # as the DH lengths
# a mass below it is no body: its first and second moments (mass × lengths) fall to subnormal numbers, which
# carry fewer digits (1e-320 kg at 0.1 m: mc 1e-321, its centre of mass back 1.2 % off), or to 0
MIN_MASS_KG = 1e-100
MAX_INERTIA = 1e12         # kg·m²: 1e6 kg at 1 km
INERTIA_TOLERANCE = 1e-9   # relative (to the trace): round-off in a tensor written with few digits
NEAR_SPECIAL = 1e-3        # closer than this (relative) to a special value may cost float accuracy
MAX_JOINTS = 64            # joints of a robot (a file's, or one built in code): find's CPU time grows about as N²
                           # (a chain: 0.7 s at 50 joints, 2.9 s at 100, 10-18 s at 200)
MAX_PROBLEMS = 20          # problems one error message lists


def problems_message(label, lines):
    """A description's problems (``lines``, each ``"<label>: <field>: <problem>"``) as one error message on one
    line: the only problem as it is; several as ``"<label>: N problems: (1) <field>: <problem>; (2) <field>: …"``
    (the first :data:`MAX_PROBLEMS`, then how many more). One line because the CLI and the contract promise a
    one-line error; the count comes first so a reader knows a list follows, the items are numbered because a
    problem's own text may hold "; ", and the label is not repeated in each item."""
    if len(lines) == 1:
        return lines[0]
    items = [f"({k}) " + line.removeprefix(f"{label}: ") for k, line in enumerate(lines[:MAX_PROBLEMS], 1)]
    return f"{label}: {len(lines)} problems: " + first_listed(items, len(lines))


def first_listed(items, count=None):
    """The first :data:`MAX_PROBLEMS` of ``items`` (str) joined by ``"; "``, then ``"; and N more"`` of ``count``
    (default ``len(items)``): a message's list kept within the command line's bound on a line."""
    count = len(items) if count is None else count
    more = count - MAX_PROBLEMS
    return "; ".join(items[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")


# -- bodies ------------------------------------------------------------------------------------------
def body_problem(mass, com, inertia, *, massless_ok=False, physical=True):
    """What makes a rigid body impossible, as ``(field, message)``, or None when it is valid.

    Valid: 1e-100 ≤ mass ≤ 1e6 kg; com 3 finite numbers within 1e4 m; inertia (about the COM) a
    symmetric 3×3 matrix (within round-off) whose principal moments are ≥ 0 and satisfy the
    triangle inequality I1 ≤ I2 + I3 (within a relative tolerance of 1e-9 of the trace).

    Parameters
    ----------
    mass, com, inertia
        The body: kg, m (3,), kg·m² (3, 3) about the centre of mass.
    massless_ok : bool, optional
        Also accept mass 0 (a URDF link without ``<inertial>``, or a frame-only body).
    physical : bool, optional
        False skips the principal-moment checks (≥ 0, triangle inequality): URDFs in the wild
        hold such inertias, and they are kept as written (see :func:`inertia_problem`).
    """
    low_ok = massless_ok and is_real(mass) and mass == 0
    if not is_real(mass) or not (MIN_MASS_KG <= mass <= MAX_MASS_KG or low_ok):
        lowest = "≥ 0" if massless_ok else "> 0"
        tiny = (f" (a body of more than 0 kg has at least {MIN_MASS_KG:g} kg)"
                if is_real(mass) and 0 < mass < MIN_MASS_KG else "")
        return "mass", f"expected a mass {lowest} and at most {MAX_MASS_KG:g} kg, got {shown(mass)}{tiny}"
    for field, value, shape in (("com", com, (3,)), ("inertia", inertia, (3, 3))):
        if isinstance(value, np.ndarray) and value.shape != shape:     # before a conversion of a view of 10¹² rows
            return field, f"expected shape {shape}, got {value.shape}"
    numbers = []
    for field, value in (("com", com), ("inertia", inertia)):
        # the library's own reading of numbers: np.array(…, dtype=float) would take text ("0.1"), dates and records
        # as numbers, and complex values without their imaginary part (numpy's raw ComplexWarning)
        try:
            numbers.append(real_array(field, value))
        except ArgumentError as exc:
            return field, str(exc).removeprefix(f"{field}: ")
    c, tensor = numbers
    if c.shape != (3,) or not np.all(np.isfinite(c)) or np.abs(c).max() > MAX_COM_M:
        return "com", f"expected 3 finite numbers within {MAX_COM_M:g} m, got {shown(c.tolist())}"
    if tensor.shape != (3, 3) or not np.all(np.isfinite(tensor)) or np.abs(tensor).max() > MAX_INERTIA:
        return "inertia", (f"expected a 3×3 matrix of finite numbers within {MAX_INERTIA:g} kg·m², "
                           f"got {shown(tensor.tolist())}")
    scale = float(np.abs(tensor).max())
    asym = np.abs(tensor - tensor.T)
    if asym.max() > 1e-9 * scale:
        i, j = np.unravel_index(np.argmax(asym), asym.shape)
        return "inertia", (f"expected a symmetric matrix, got [{i + 1}][{j + 1}] = {float(tensor[i, j])!r} "
                           f"but [{j + 1}][{i + 1}] = {float(tensor[j, i])!r}")
    return inertia_problem(tensor) if physical else None


def inertia_problem(tensor, slack=0.0):
    """Why a finite symmetric inertia tensor (about the COM) is not physical, as ``(field, message)``,
    or None: a negative principal moment, or the triangle inequality violated (beyond 1e-9 of the trace, or
    ``slack`` kg·m² if larger: a fitted tensor's own tolerance)."""
    moments = np.linalg.eigvalsh(0.5 * (tensor + tensor.T))
    tol = max(INERTIA_TOLERANCE * max(float(np.abs(moments).sum()), 1e-300), slack)
    if moments[0] < -tol:
        return "inertia", (f"not a physical inertia: a principal moment is negative ({moments[0]:.6g} kg·m²; "
                           f"principal moments {_moments(moments)})")
    if moments[2] > moments[0] + moments[1] + tol:
        return "inertia", (f"not a physical inertia: the principal moments {_moments(moments)} violate the "
                           f"triangle inequality ({moments[2]:.6g} > {moments[0]:.6g} + {moments[1]:.6g})")
    return None


def _moments(moments) -> str:
    return "(" + ", ".join(f"{m:.6g}" for m in moments) + ")"


# -- angles ----------------------------------------------------------------------------------------------
def angle_problem(value, angle_unit: str):
    """Why a description angle (twist, prismatic θ, revolute offset) is refused, or None."""
    if angle_unit == "rad" and abs(value) > MAX_ANGLE_RAD:
        return f"{shown(value)} is more than 2π rad; did you mean degrees? set units.angle: deg"
    if angle_unit != "rad" and abs(value) > MAX_ANGLE_DEG:
        return f"expected an angle of at most {MAX_ANGLE_DEG:g} deg in magnitude, got {shown(value)}"
    return None


def length_problem(value, length_unit: str, metres_per_unit: float):
    """Why a DH length (a, d, prismatic offset) is refused (absurdly large or tiny), or None."""
    metres = abs(value) * metres_per_unit
    if metres > MAX_LENGTH_M or (value != 0 and metres < MIN_LENGTH_M):
        return (f"expected 0 or a length between {MIN_LENGTH_M:g} m and {MAX_LENGTH_M:g} m in magnitude, "
                f"got {shown(value)} {length_unit}")
    return None


def snap_degrees(value):
    """A degree angle within round-off (1e-12 of 15°) of a multiple of 15° but not written as one:
    that multiple, else None."""
    if isinstance(value, (int, np.integer)):
        return None
    ratio = float(value) / 15.0
    m = round(ratio)
    if abs(ratio - m) >= ANGLE_ROUND_OFF or Fraction(repr(float(value))) == 15 * m:
        return None
    return float(15 * m)


SNAP_RADIANS = 1e-6        # rad: an angle written in radians this close to a multiple of 15° is that angle


def special_radians(value, tolerance: float = SNAP_RADIANS):
    """The multiple of 15° (π/12) that an angle in radians stands for.

    A decimal like 1.5707963 (or a URDF exporter's 1.570796325) cannot be π/2, but it is what its
    writer meant: the engine decides rank and regroupings exactly, so it must be told.

    Returns
    -------
    (snapped, difference) or None
        ``snapped`` is ``m·π/12`` as a float (what :func:`~baseparam.model.joint_model.exact_cos_sin`
        recognizes), ``difference`` the distance in rad; None when farther than `tolerance`.
    """
    twelfths = round(float(value) / (math.pi / 12))
    snapped = twelfths * math.pi / 12 + 0.0
    difference = abs(float(value) - snapped)
    return (snapped, difference) if difference <= tolerance else None


def pi_expression(twelfths: int) -> str:
    """``m·π/12`` as a description writes it in radians: ``pi/2``, ``-3*pi/4``, ``0``."""
    f = Fraction(twelfths, 12)
    if f == 0:
        return "0"
    sign = "-" if f < 0 else ""
    num, den = abs(f.numerator), f.denominator
    return sign + ("pi" if num == 1 else f"{num}*pi") + ("" if den == 1 else f"/{den}")


# -- gravity ---------------------------------------------------------------------------------------------
def gravity_problem(gravity):
    """Why a gravity vector (m/s², already floats) is refused, as ``(field, message)``, or None."""
    if len(gravity) != 3 or not all(math.isfinite(g) for g in gravity):
        return "gravity", f"expected 3 finite numbers, got {shown(tuple(gravity))}"
    for i, g in enumerate(gravity, start=1):
        if abs(g) > MAX_GRAVITY:
            return f"gravity[{i}]", f"expected at most {MAX_GRAVITY:g} m/s² in magnitude, got {shown(g)}"
    norm = math.hypot(*gravity)
    if 0 < norm < MIN_GRAVITY:
        return "gravity", (f"expected 0 (no gravity) or a magnitude of at least {MIN_GRAVITY:g} m/s², "
                           f"got {shown(tuple(gravity))}")
    return None


def snap_gravity(gravity):
    """Components below 1e-9·|g| set to 0.

    Returns
    -------
    gravity : tuple of 3 float
    snapped : list of int
        0-based indices of the components set to 0.
    """
    norm = math.hypot(*gravity)
    snapped = [i for i, g in enumerate(gravity) if g != 0 and abs(g) < GRAVITY_ROUND_OFF * norm]
    return tuple(0.0 if i in snapped else g + 0.0 for i, g in enumerate(gravity)), snapped


# -- what a float computation is sensitive to -------------------------------------------------------------
def near_special(robot, limit: float = NEAR_SPECIAL) -> list:
    """Numbers of the description close to, but not at, a special value: what makes the float
    path's regroupings inaccurate, closest first.

    Twists (and prismatic θ) near a multiple of 90°, gravity components near 0 relative to |g|,
    and non-zero lengths tiny beside the largest one.

    Returns
    -------
    list of (closeness, text)
        ``closeness`` is relative (rad for angles); ``text`` names the field, e.g.
        ``"joints[3].alpha = 89.9999999 deg (1.7e-09 rad from 90°)"``.
    """
    # here, not at the top: loading a description imports this module and needs no joint model (some 3 ms)
    from .joint_model import exact_cos_sin, joint_models, to_si

    out, seen = [], set()
    unit = robot.angle_unit
    lengths = []
    for model in joint_models(robot):
        for f in model.constant_factors():
            if f.label in seen:         # an axis rotation and its inverse: one entry
                continue
            seen.add(f.label)
            if f.is_rotation:
                rad = to_si(robot, f)
                quarters = round(rad / (math.pi / 2))           # the nearest multiple of 90°
                delta = abs(rad - quarters * (math.pi / 2))
                if 0 < delta < limit and not exact_cos_sin(f.value, unit)[2]:
                    meant = f"{90 * quarters}" if unit == "deg" else \
                        (f"{pi_expression(6 * quarters)} (or {quarters * math.pi / 2!r})" if quarters else "0")
                    out.append((delta, f"{f.label} = {f.value!r} {unit} ({delta:.1e} rad from {90 * quarters}°: "
                                       f"if that is meant, write {meant})"))
            else:
                lengths.append((abs(float(f.value)), f"{f.label} = {f.value!r} {robot.length_unit}"))
    largest = max((v for v, _ in lengths), default=0.0)
    out += [(value / largest, f"{text} ({value / largest:.1e} of the largest length)") for value, text in lengths
            if largest > 0 and 0 < value < limit * largest]
    norm = math.hypot(*robot.gravity)
    out += [(abs(g) / norm, f"gravity[{i}] = {g!r} m/s² ({abs(g) / norm:.1e} of |g|, nearly 0)")
            for i, g in enumerate(robot.gravity, start=1) if norm > 0 and 0 < abs(g) < limit * norm]
    return sorted(out)
