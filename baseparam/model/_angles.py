"""Angles as descriptions write them in radians: ``pi/2``-style expressions, decimals within a tolerance
of a multiple of 15° taken as it, and rounded values (``1.5708``) refused with what to write instead."""
from __future__ import annotations

import math
import re

from .._checks import counted, shown
from .._warnings import warn
from ..errors import RoundOffWarning, printable
from ._yaml_text import _Invalid
from .checks import NEAR_SPECIAL, pi_expression, special_radians

# [sign] [coefficient [*]] pi|π [/ denominator]; ASCII digits only (Python's \d and float() take '٢' as 2), any
# spaces (not re.ASCII: its \s refused a no-break or thin space around the operators, taken as ever)
_PI = re.compile(r"^\s*([+-]?)\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)?\s*\*?\s*(?:pi|π)\s*"
                 r"(?:/\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+))?\s*$")


def pi_angle(text: str, path: str) -> float:
    """The value of ``pi/2``, ``-3*pi/4``, ``0.5*pi``, ``π/6``: multiples of π/12 as ``m·math.pi/12``
    exactly (what the engine recognizes), other fractions as their float."""
    match = _PI.match(text)
    if match is None:
        raise _Invalid(path, f"expected a number or an expression like pi/2, -3*pi/4 or 0.5*pi, got {shown(text)}")
    sign, num, den = match.groups()
    if den is not None and float(den) == 0:
        raise _Invalid(path, f"expected an angle, got {shown(text)} (division by zero)")
    ratio = float(num or 1) / float(den or 1)
    if not math.isfinite(ratio) or ratio > 2:
        raise _Invalid(path, f"expected an angle within ±2π rad, got {shown(text)}")
    twelfths = ratio * 12
    value = (round(twelfths) * math.pi / 12) if abs(twelfths - round(twelfths)) < 1e-12 else ratio * math.pi
    return -value if sign == "-" else value + 0.0


class AngleSnapper:
    """Radian angles of one file within a tolerance of a multiple of 15° taken as it (or None: as written);
    the note says how many and the largest difference."""

    def __init__(self, tolerance):
        self.tolerance = tolerance
        self.snapped = []          # (difference, text)

    def __call__(self, value, path: str, shapes_rank: bool = True):
        """The angle to use for `value` (rad) at field `path`.

        Raises
        ------
        _Invalid
            A rank-shaping angle (a twist) near a multiple of 15° but beyond the tolerance: a rounded
            value, whose float computation would be inaccurate; the message says what to write.
        """
        if self.tolerance is None or isinstance(value, bool):
            return value
        snapped = special_radians(value, self.tolerance)
        if snapped is not None:
            if snapped[0] != value and snapped[1] > 0:
                self.snapped.append((snapped[1], f"{path} = {value!r}"))
                return snapped[0]
            return value
        twelfths = round(float(value) / (math.pi / 12))
        delta = abs(float(value) - twelfths * math.pi / 12)
        if shapes_rank and delta < NEAR_SPECIAL:
            exact = twelfths * math.pi / 12 + 0.0
            raise _Invalid(path, f"{shown(value)} rad is {delta:.1e} rad from {15 * twelfths}°: write "
                                 f"{pi_expression(twelfths)} for {15 * twelfths}° (or give the angle to full "
                                 f"precision, {exact!r}); to keep {shown(value)} as written, pass exact_angles=False")
        return value

    def report(self, filename: str):
        """Say the file's one-line note (a RoundOffWarning) when an angle was taken as a multiple of 15°."""
        if not self.snapped:
            return
        difference, where = max(self.snapped)
        n = len(self.snapped)
        warn(printable(f"{filename}: {counted(n, 'angles')} within {self.tolerance:g} rad of multiples "
                       f"of 15° taken as them, so the base set stays exact (largest difference {difference:.1e} "
                       f"rad, {where}); nothing to do if that is round-off, exact_angles=False keeps them as "
                       "written"), RoundOffWarning)
