"""Choice of the numbers the engine works with: exact integers when Z is rational, else floats.

When every angle that enters the kinematics (twists α, prismatic θ, revolute offsets) is a multiple
of 90° and every length is a decimal, all of Z is an integer matrix once lengths are counted in a
small enough unit (e.g. 0.1 mm for the PUMA 560). float64 then computes it *exactly*, as long as no
intermediate exceeds 2**53 — which the engine checks. Otherwise the engine runs in floats (lengths
normalized by the largest one, so mm and m behave alike) together with an exact companion modulo a
prime (:mod:`baseparam.projection._modular`) that decides which coefficients vanish.

Scaling all lengths by s only rescales Z's columns (by s^(2−e), e the parameter's length power) and
rows, so rank and pivots do not depend on the unit and Y converts exactly (see :mod:`reduction`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

import numpy as np

from ..model.kinematics import coefficient_matrices, exact_cos_sin, joint_factors
from ..errors import BaseParamError
from ._modular import CircleMap, UnluckyPrime, to_modular
from ._projections import JointOperators

EXACT_LIMIT = 2.0 ** 52          # intermediates must stay below this for float64 to be exact
MAX_EXACT_LENGTH = 2 ** 22       # larger scaled lengths risk overflowing EXACT_LIMIT in products
FLOAT_TOLERANCE = 1e-12          # relative to normalized lengths
UNLUCKY_FLOAT = 1e-9             # a coefficient this large is not round-off: it must not vanish mod p
EXACT_LENGTH_UNITS = {"m": Fraction(1), "mm": Fraction(1, 1000), "cm": Fraction(1, 100)}


@dataclass(frozen=True)
class WorkingUnits:
    """Numbers for one engine run.

    Attributes
    ----------
    exact : bool
    ops : list of JointOperators
    gravity : ndarray, shape (3,)
        Direction of gravity (scaled; magnitude does not matter for Z's rank or Y).
    length_unit : Fraction or float
        Metres per working length unit.
    gravity_factor : float
        |g| in m/s² per unit of ``gravity`` (g_SI = gravity_factor · gravity).
    tol : float
        Pruning threshold for coefficients (0 when exact).
    reason : str
        Why the run is exact, or why it is not.
    modulus : int or None
        Float runs also compute modulo this prime, for a rational robot within round-off of
        the given one, so that zero coefficients and the rank are decided exactly.
    mod_gravity : tuple of int or None
    """

    exact: bool
    ops: list
    gravity: np.ndarray
    length_unit: object
    gravity_factor: float
    tol: float
    reason: str
    modulus: Optional[int] = None
    mod_gravity: Optional[tuple] = None


def _lengths(robot, include_offsets):
    out = []
    for j in robot.joints:
        out += [j.a, j.d] if j.is_revolute else [j.a, j.offset if include_offsets else 0]
    return out


def _length_fractions(robot, include_offsets):
    """The lengths as written (exact fractions) and the least integer s making all of them s-integral."""
    fractions = [robot.exact_value(v) for v in _lengths(robot, include_offsets)]
    return fractions, (math.lcm(*[f.denominator for f in fractions]) if fractions else 1)


def _angles(robot, include_offsets):
    out = []
    for j in robot.joints:
        out.append(j.alpha)
        out.append(j.offset if (j.is_revolute and include_offsets) else (0 if j.is_revolute else j.theta))
    return out


def _build_ops(robot, length_of, include_offsets, circle=None, modulus=None):
    """JointOperators of every joint; with ``modulus`` also the robot's image modulo the prime.

    Raises
    ------
    UnluckyPrime
        The prime maps a clearly non-zero coefficient to zero (it would hide structure).
    """
    ops = []
    au = robot.angle_unit
    for j in robot.joints:
        offset = j.offset if include_offsets else 0
        float_ = _joint_matrices(robot, j, lambda v: float(length_of(v)), lambda v: exact_cos_sin(v, au)[:2],
                                 offset, float)
        if modulus is None:
            ops.append(JointOperators(j.type, *float_))
            continue
        exact = _joint_matrices(robot, j, lambda v: to_modular(robot.exact_value(v), modulus),
                                lambda v: circle.cos_sin(v, modulus), offset, object)
        for fl, ex in zip(float_, exact):
            _check_image(fl, ex, modulus)
        ops.append(JointOperators(j.type, *float_, *exact, modulus=modulus))
    return ops


def _check_image(values, images, modulus):
    """A number that is clearly non-zero must not vanish modulo the prime."""
    vanished = (np.vectorize(lambda v: int(v) % modulus == 0)(images)) & (np.abs(values) > UNLUCKY_FLOAT)
    if np.any(vanished):
        raise UnluckyPrime(f"{modulus} maps a non-zero coefficient to 0")


def _joint_matrices(robot, j, length, cos_sin, offset, dtype):
    one, zero = (1.0, 0.0) if dtype is float else (1, 0)
    if j.is_revolute:
        C, Cp = joint_factors("revolute", robot.convention, cos_sin(j.alpha), length(j.a), length(j.d),
                              (one, zero), zero, cos_sin(offset), dtype=dtype)
    else:
        C, Cp = joint_factors("prismatic", robot.convention, cos_sin(j.alpha), length(j.a), zero,
                              cos_sin(j.theta), length(offset), dtype=dtype)
    return coefficient_matrices(j.type, C, Cp)


def exact_obstacle(robot, include_offsets=False, force_float=False) -> str:
    """Why Z cannot be computed in exact integer arithmetic ('' when it can)."""
    if force_float:
        return "float arithmetic requested"
    if not all(exact_cos_sin(a, robot.angle_unit)[2] for a in _angles(robot, include_offsets)):
        return "an angle is not a multiple of 90°, so Z is irrational"
    fractions, scale = _length_fractions(robot, include_offsets)
    if max((abs(f) * scale for f in fractions), default=0) > MAX_EXACT_LENGTH:
        return "lengths have too many significant digits for exact integer arithmetic"
    return ""


def exact_units(robot, include_offsets=False) -> WorkingUnits:
    """Integer working units: lengths in the largest unit that makes them all integers."""
    _, scale = _length_fractions(robot, include_offsets)
    gfrac = [robot.exact_value(g) for g in robot.gravity]
    gscale = math.lcm(*[f.denominator for f in gfrac])
    gint = [int(f * gscale) for f in gfrac]
    gcd = math.gcd(*gint) or 1
    ops = _build_ops(robot, lambda v: robot.exact_value(v) * scale, include_offsets)
    return WorkingUnits(True, ops, np.array([g // gcd for g in gint], dtype=float),
                        EXACT_LENGTH_UNITS[robot.length_unit] / scale, float(Fraction(gcd, gscale)), 0.0,
                        f"exact: lengths counted in units of {_describe(robot, scale)}, angles multiples of 90°")


def float_units(robot, include_offsets=False, reason="", max_primes=None):
    """Float working units with an exact companion modulo a prime, one per usable prime.

    Yields
    ------
    WorkingUnits
        In order of preference; primes that are unlucky for this robot are skipped.
    """
    circle = CircleMap(_angles(robot, include_offsets), robot.angle_unit)
    lengths_si = np.abs(np.array([float(v) for v in _lengths(robot, include_offsets)])) * robot.length_scale
    char = float(lengths_si.max()) if lengths_si.size and lengths_si.max() > 0 else 1.0
    g = robot.gravity_si
    gnorm = float(np.linalg.norm(g))
    gfrac = [robot.exact_value(v) for v in robot.gravity]
    for modulus in circle.primes[:max_primes]:
        try:
            ops = _build_ops(robot, lambda v: float(v) * robot.length_scale / char, include_offsets, circle, modulus)
            mod_gravity = tuple(to_modular(f, modulus) for f in gfrac)
            _check_image(np.asarray(g), np.array(mod_gravity, dtype=object), modulus)
        except ZeroDivisionError:       # includes UnluckyPrime
            continue
        how = (f"zero coefficients and rank decided exactly modulo the prime {modulus} "
               f"({circle.mode} image of the robot)")
        yield WorkingUnits(False, ops, g / gnorm if gnorm > 0 else g, char, gnorm if gnorm > 0 else 1.0,
                           FLOAT_TOLERANCE, f"floating point ({reason}); lengths normalized by {char:g} m; {how}",
                           modulus, mod_gravity)


def choose_working_units(robot, include_offsets=False, force_float=False) -> WorkingUnits:
    """The preferred working units: exact integers when possible, else the first float+modular ones."""
    reason = exact_obstacle(robot, include_offsets, force_float)
    if not reason:
        return exact_units(robot, include_offsets)
    for units in float_units(robot, include_offsets, reason):
        return units
    raise BaseParamError(f"{robot.name}: no usable prime for the exact companion of the float computation")


def _describe(robot, scale):
    return f"{robot.length_unit}/{scale}" if scale != 1 else robot.length_unit
