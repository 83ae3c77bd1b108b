"""Choice of the numbers the engine works with (docs/method.md, "The arithmetic"): exact integers when
Z is rational (angles multiples of 90°, decimal lengths counted in a small enough unit, every
intermediate below 2**53), else floats (lengths normalized by the largest) with an exact companion
modulo a prime (:mod:`baseparam.projection._modular`).
"""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

import numpy as np

from ..errors import BaseParamError
from ..model.joint_model import exact_cos_sin, joint_models
from ..model.robot import LENGTH_UNITS, exact_decimal as _exact
from ._joint_basis import coefficient_matrices
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


def _check_image(values, images, modulus):
    """A number that is clearly non-zero must not vanish modulo the prime."""
    vanished = (np.vectorize(lambda v: int(v) % modulus == 0)(images)) & (np.abs(values) > UNLUCKY_FLOAT)
    if np.any(vanished):
        raise UnluckyPrime(f"{modulus} maps a non-zero coefficient to 0")


@dataclass(frozen=True)
class Arithmetic:
    """The arithmetic of one engine run, decided once from the robot at the top of a computation.

    Holds everything the stages need from the description (the joint models, the units, gravity
    as written), so that the stages below receive numbers and never reach back for the robot.
    Use :meth:`decide`; then :meth:`exact_units` when :attr:`exact`, else (or when exact integers
    overflow) the float candidates of :meth:`float_units`, one per usable prime, in order.

    Attributes
    ----------
    name : str
        The robot's name (for messages).
    models : tuple of JointModel
    length_unit, angle_unit : str
        The description's units.
    gravity : tuple of 3 float
        Gravity as written (m/s²).
    include_offsets : bool
        Whether the joint offsets enter the transforms (Z as stored) or not (Z for the base set,
        whose rank and regroupings do not depend on them).
    obstacle : str
        Why Z cannot be computed in exact integer arithmetic ('' when it can).
    """

    name: str
    models: tuple
    length_unit: str
    angle_unit: str
    gravity: tuple
    include_offsets: bool
    obstacle: str

    @classmethod
    def decide(cls, robot, include_offsets=False, force_float=False) -> Arithmetic:
        """Exact integers when every angle is a multiple of 90° and the lengths are short decimals,
        else floats with a modular companion."""
        plan = cls(robot.name, joint_models(robot), robot.length_unit, robot.angle_unit, robot.gravity,
                   include_offsets, "")
        return dataclasses.replace(plan, obstacle=plan._obstacle(force_float))

    @property
    def exact(self) -> bool:
        return not self.obstacle

    # -- what enters the transforms ---------------------------------------------------------
    def _enters(self, model):
        """The factors of a joint model that enter the transforms (the offset as a constant factor)."""
        out = list(model.constant_factors())
        if self.include_offsets:
            out.append(dataclasses.replace(model.motion, variable=False))
        return out

    def _values(self, rotations):
        return [f.value for m in self.models for f in self._enters(m) if f.is_rotation == rotations]

    def _length_fractions(self):
        """The lengths as written (exact fractions) and the least integer s making all of them s-integral."""
        fractions = [_exact(v) for v in self._values(False)]
        return fractions, (math.lcm(*[f.denominator for f in fractions]) if fractions else 1)

    def _obstacle(self, force_float):
        if force_float:
            return "float arithmetic requested"
        if not all(exact_cos_sin(a, self.angle_unit)[2] for a in self._values(True)):
            return "an angle is not a multiple of 90°, so Z is irrational"
        fractions, scale = self._length_fractions()
        if max((abs(f) * scale for f in fractions), default=0) > MAX_EXACT_LENGTH:
            return "lengths have too many significant digits for exact integer arithmetic"
        return ""

    def _ops(self, length, cos_sin, dtype):
        return [coefficient_matrices(m, length, cos_sin, self.include_offsets, dtype) for m in self.models]

    def _cos_sin(self, angle):
        """The exact (cos, sin) of a multiple of 90° in the description's unit (floats otherwise)."""
        return exact_cos_sin(angle, self.angle_unit)[:2]

    # -- working units ----------------------------------------------------------------------
    def exact_units(self) -> WorkingUnits:
        """Integer working units: lengths in the largest unit that makes them all integers."""
        _, scale = self._length_fractions()
        gfrac = [_exact(g) for g in self.gravity]
        gscale = math.lcm(*[f.denominator for f in gfrac])
        gint = [int(f * gscale) for f in gfrac]
        gcd = math.gcd(*gint) or 1
        ops = [JointOperators(m.type, *AB)
               for m, AB in zip(self.models, self._ops(lambda v: float(_exact(v) * scale), self._cos_sin, float))]
        unit = self.length_unit if scale == 1 else f"{self.length_unit}/{scale}"
        return WorkingUnits(True, ops, np.array([g // gcd for g in gint], dtype=float),
                            EXACT_LENGTH_UNITS[self.length_unit] / scale, float(Fraction(gcd, gscale)), 0.0,
                            f"exact: lengths counted in units of {unit}, angles multiples of 90°")

    def float_units(self, reason=None):
        """Float working units with an exact companion modulo a prime, one per usable prime.

        Parameters
        ----------
        reason : str, optional
            Why the run is not exact (default: :attr:`obstacle`).

        Yields
        ------
        WorkingUnits
            In order of preference; primes that are unlucky for this robot are skipped.
        """
        reason = self.obstacle if reason is None else reason
        circle = CircleMap(self._values(True), self.angle_unit)
        length_scale = LENGTH_UNITS[self.length_unit]
        lengths_si = np.abs(np.array([float(v) for v in self._values(False)])) * length_scale
        char = float(lengths_si.max()) if lengths_si.size and lengths_si.max() > 0 else 1.0
        g = np.asarray(self.gravity, dtype=float)
        gnorm = float(np.linalg.norm(g))
        gfrac = [_exact(v) for v in self.gravity]
        floats = self._ops(lambda v: float(v) * length_scale / char, self._cos_sin, float)
        for modulus in circle.primes:
            try:
                images = self._ops(lambda v, p=modulus: to_modular(_exact(v), p),
                                   functools.partial(circle.cos_sin, p=modulus), object)
                for fl, ex in zip(floats, images):
                    for values, image in zip(fl, ex):
                        _check_image(values, image, modulus)
                ops = [JointOperators(m.type, *fl, *ex, modulus=modulus)
                       for m, fl, ex in zip(self.models, floats, images)]
                mod_gravity = tuple(to_modular(f, modulus) for f in gfrac)
                _check_image(g, np.array(mod_gravity, dtype=object), modulus)
            except ZeroDivisionError:       # includes UnluckyPrime
                continue
            how = (f"zero coefficients and rank decided exactly modulo the prime {modulus} "
                   f"({circle.mode} image of the robot)")
            yield WorkingUnits(False, ops, g / gnorm if gnorm > 0 else g, char, gnorm if gnorm > 0 else 1.0,
                               FLOAT_TOLERANCE, f"floating point ({reason}); lengths normalized by {char:g} m; {how}",
                               modulus, mod_gravity)

    def candidates(self):
        """The working units to try, in order: exact integers when possible, then the float candidates."""
        if self.exact:
            yield self.exact_units()
        yield from self.float_units("exact integers would exceed 2**53" if self.exact else None)

    def no_prime(self):
        return BaseParamError(f"{self.name}: no usable prime for the exact companion of the float computation")
