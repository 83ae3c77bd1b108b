"""Choice of the numbers the engine works with: exact integers when Z is rational, else floats.

When every angle that enters the kinematics (twists α, prismatic θ, revolute offsets) is a multiple
of 90° and every length is a decimal, all of Z is an integer matrix once lengths are counted in a
small enough unit (e.g. 0.1 mm for the PUMA 560). float64 then computes it *exactly*, as long as no
intermediate exceeds 2**53 — which the engine checks. Otherwise lengths are normalized by the
largest one so that a relative tolerance means the same thing in mm and in m.

Scaling all lengths by s only rescales Z's columns (by s^(2−e), e the parameter's length power) and
rows, so rank and pivots do not depend on the unit and Y converts exactly (see :mod:`reduction`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .kinematics import coefficient_matrices, exact_cos_sin, joint_factors
from .projections import JointOperators

EXACT_LIMIT = 2.0 ** 52          # intermediates must stay below this for float64 to be exact
MAX_EXACT_LENGTH = 2 ** 22       # larger scaled lengths risk overflowing EXACT_LIMIT in products
FLOAT_TOLERANCE = 1e-12          # relative to normalized lengths
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
    """

    exact: bool
    ops: list
    gravity: np.ndarray
    length_unit: object
    gravity_factor: float
    tol: float
    reason: str


def _lengths(robot, include_offsets):
    out = []
    for j in robot.joints:
        out += [j.a, j.d] if j.is_revolute else [j.a, j.offset if include_offsets else 0]
    return out


def _angles(robot, include_offsets):
    out = []
    for j in robot.joints:
        out.append(j.alpha)
        out.append(j.offset if (j.is_revolute and include_offsets) else (0 if j.is_revolute else j.theta))
    return out


def _build_ops(robot, length_of, include_offsets):
    ops = []
    au = robot.angle_unit
    for j in robot.joints:
        ca, sa, _ = exact_cos_sin(j.alpha, au)
        ct, st, _ = exact_cos_sin(j.theta, au)
        if j.is_revolute:
            oc, os_, _ = exact_cos_sin(j.offset if include_offsets else 0, au)
            C, Cp = joint_factors("revolute", robot.convention, (ca, sa), length_of(j.a), length_of(j.d),
                                  (1.0, 0.0), 0.0, (oc, os_))
        else:
            C, Cp = joint_factors("prismatic", robot.convention, (ca, sa), length_of(j.a), 0.0, (ct, st),
                                  length_of(j.offset) if include_offsets else 0.0)
        ops.append(JointOperators(j.type, *coefficient_matrices(j.type, C, Cp)))
    return ops


def choose_working_units(robot, include_offsets=False, force_float=False) -> WorkingUnits:
    """Pick exact integer units when possible, else normalized floats.

    Parameters
    ----------
    include_offsets : bool
        Constant offsets added to q do not change rank, pivots or Y (they only re-mix each joint's
        basis functions), so the reduction runs without them; the stored Z includes them.
    force_float : bool
        Use the float path even when exact arithmetic is possible (for cross-checks).
    """
    angles_exact = all(exact_cos_sin(a, robot.angle_unit)[2] for a in _angles(robot, include_offsets))
    fractions = [robot.exact_value(v) for v in _lengths(robot, include_offsets)]
    scale = math.lcm(*[f.denominator for f in fractions]) if fractions else 1
    gfrac = [robot.exact_value(g) for g in robot.gravity]
    gscale = math.lcm(*[f.denominator for f in gfrac])
    gint = [int(f * gscale) for f in gfrac]
    gcd = math.gcd(*gint) or 1
    reason = ""
    if force_float:
        reason = "float arithmetic requested"
    elif not angles_exact:
        reason = "an angle is not a multiple of 90°, so Z is irrational"
    elif max((abs(f) * scale for f in fractions), default=0) > MAX_EXACT_LENGTH:
        reason = "lengths have too many significant digits for exact integer arithmetic"
    if not reason:
        length_unit = EXACT_LENGTH_UNITS[robot.length_unit] / scale
        ops = _build_ops(robot, lambda v: float(robot.exact_value(v) * scale), include_offsets)
        return WorkingUnits(True, ops, np.array([g // gcd for g in gint], dtype=float), length_unit,
                            float(Fraction(gcd, gscale)), 0.0,
                            f"exact: lengths counted in units of {_describe(robot, scale)}, angles multiples of 90°")
    lengths_si = np.abs(np.array([float(v) for v in _lengths(robot, include_offsets)])) * robot.length_scale
    char = float(lengths_si.max()) if lengths_si.size and lengths_si.max() > 0 else 1.0
    ops = _build_ops(robot, lambda v: float(v) * robot.length_scale / char, include_offsets)
    g = robot.gravity_si
    gnorm = float(np.linalg.norm(g))
    return WorkingUnits(False, ops, g / gnorm if gnorm > 0 else g, char, gnorm if gnorm > 0 else 1.0, FLOAT_TOLERANCE,
                        f"floating point ({reason}); lengths normalized by {char:g} m")


def _describe(robot, scale):
    return f"{robot.length_unit}/{scale}" if scale != 1 else robot.length_unit
