"""The one joint model every stage reads: ``A(q) = C · M(q + offset) · C′``.

C and C′ are constant rigid transforms, each a short sequence of elementary :class:`Factor` s
(rotations about, translations along x, y or z), and M is the joint's motion: a rotation about
(revolute) or a translation along (prismatic) the z axis of the *joint frame* between C and C′,
with the joint offset folded into the motion factor (it commutes with it). Factor values stay in
the description's units as written, so that each arithmetic evaluates them its own way: exact
Fractions or integers, floats, integers modulo a prime, expression-graph constants with exact 0/±1,
numpy arrays over samples.

The two DH conventions (docs/method.md, section 3 "Conventions") are two choices of factors:

* standard (distal): ``A = Rz(θ) Tz(d) Tx(a) Rx(α)`` — revolute C = 1, C′ = Tz(d) Tx(a) Rx(α);
  prismatic C = Rz(θ), C′ = Tx(a) Rx(α);
* modified (proximal): ``A = Rx(α) Tx(a) Rz(θ) Tz(d)`` — revolute C = Rx(α) Tx(a), C′ = Tz(d);
  prismatic C = Rx(α) Tx(a) Rz(θ), C′ = 1.

A general joint axis (URDF) is a constant rotation taking z to the axis, folded into C and its
inverse into C′ (conjugation): only :func:`joint_model` needs to learn it.

Consumers: the projection engine's coefficient matrices (:mod:`baseparam.projection._joint_basis`),
the regressor and Newton–Euler graphs (:mod:`baseparam.dynamics.regressor_graph`, also compiled for
run-time inverse dynamics, :mod:`baseparam.dynamics.newton_euler`), the tree of Ivanov's equations
(:mod:`baseparam.dynamics.tree`) and the code printers (joint offsets).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .._checks import require_robot_below, shown
from .._numbers import is_whole
from ..errors import ArgumentError

AXES = {"x": 0, "y": 1, "z": 2}

# cos of 0°, 15°, …, 90°, correctly rounded
_COS_15 = (1.0, math.sqrt(2.0 + math.sqrt(3.0)) / 2.0, math.sqrt(3.0) / 2.0, math.sqrt(0.5), 0.5,
           math.sqrt(2.0 - math.sqrt(3.0)) / 2.0, 0.0)


def exact_cos_sin(angle: float, angle_unit: str):
    """cos and sin of a description angle, exactly 0/±1 for multiples of 90°, and one shared value per
    magnitude for multiples of 15°.

    Returns
    -------
    (c, s, exact) : (float, float, bool)
        ``exact`` is True when the angle is a multiple of 90° (in radians: within 1e-12 of kπ/2).
    """
    if angle_unit == "deg":
        twelfth = Fraction(repr(float(angle))) / 15
        m = int(twelfth) if twelfth.denominator == 1 else None
        rad = math.radians(angle)
    else:
        ratio = float(angle) / (math.pi / 12)
        m = round(ratio) if abs(ratio - round(ratio)) < 1e-12 else None
        rad = float(angle)
    if m is None:
        return math.cos(rad), math.sin(rad), False
    # multiples of 15°: one correctly rounded value per magnitude, so that cos 45° = sin 45° and
    # cos 60° = sin 30° = 0.5 exactly (libm's values differ in the last bit, and the graphs would
    # then keep two products where one serves)
    quadrant, r = divmod(m % 24, 6)
    c, s = _COS_15[r], _COS_15[6 - r]
    for _ in range(quadrant):
        c, s = -s, c
    return c + 0.0, s + 0.0, r == 0


@dataclass(frozen=True)
class Factor:
    """An elementary rigid transform: rotation about, or translation along, a coordinate axis.

    Attributes
    ----------
    kind : {'rotation', 'translation'}
    axis : {'x', 'y', 'z'}
    value : float
        Angle (description angle unit) or length (description length unit), as written. For the
        motion factor: the joint offset, the constant added to q.
    variable : bool
        True for the joint's motion ``M(q + value)``.
    """

    kind: str
    axis: str
    value: float = 0.0
    variable: bool = False
    label: str = field(default="", compare=False, repr=False)

    @property
    def is_rotation(self) -> bool:
        return self.kind == "rotation"

    @property
    def index(self) -> int:
        """0, 1, 2 for x, y, z."""
        return AXES[self.axis]

    def __repr__(self):
        name = ("R" if self.is_rotation else "T") + self.axis
        return f"{name}(q{' + ' + repr(self.value) if self.value else ''})" if self.variable \
            else f"{name}({self.value!r})"


def rotation(axis, value, label=""):
    return Factor("rotation", axis, value, label=label)


def translation(axis, value, label=""):
    return Factor("translation", axis, value, label=label)


@dataclass(frozen=True)
class JointModel:
    """``A(q) = C · M(q + offset) · C′`` of one joint (see the module notes).

    Attributes
    ----------
    type : {'revolute', 'prismatic'}
    before : tuple of Factor
        C, applied on the parent side, left to right.
    motion : Factor
        Rz(q + offset) (revolute) or Tz(q + offset) (prismatic), ``variable=True``.
    after : tuple of Factor
        C′, on the link side, left to right.
    """

    type: str
    before: tuple
    motion: Factor
    after: tuple

    @property
    def is_revolute(self) -> bool:
        return self.type == "revolute"

    @property
    def offset(self) -> float:
        """The constant added to q (description units)."""
        return self.motion.value

    def motion_index(self) -> int:
        """Where the joint's unit motion sits in a spatial vector ``[ω; v]`` of its joint frame (every
        recursion's order): ω_z (revolute) or v_z (prismatic)."""
        return 2 if self.is_revolute else 5

    def motion_matrix(self, x):
        """M(x) over samples: the homogeneous transforms of the motion by x (SI, shape (n_samples,)), shape
        (n_samples, 4, 4)."""
        out = np.tile(np.eye(4), (len(x), 1, 1))
        if self.is_revolute:
            c, s = np.cos(x), np.sin(x)
            out[:, 0, 0], out[:, 0, 1], out[:, 1, 0], out[:, 1, 1] = c, -s, s, c
        else:
            out[:, 2, 3] = x
        return out

    def constant_factors(self):
        """Every constant factor (C's and C′'s)."""
        return self.before + self.after

    def steps(self):
        """The transform as a chain of :class:`Step` s, and which of them moves.

        Returns
        -------
        steps : list of Step
        moving : int
            Index of the step holding the motion; the joint frame is the frame after it.
        """
        factors = self.before + (self.motion,) + self.after
        out, moving = [], None
        shift, rot = [], None
        for f in factors:
            if f.is_rotation:
                # a rotation after a sliding motion starts a new step: the joint frame, where the
                # motion is along z, is the frame right after the moving step
                if rot is not None or any(t.variable for t in shift):
                    out.append(Step(tuple(shift), rot))
                    shift = []
                rot = f
            elif rot is None or rot.axis == f.axis:   # T·R, or R·T along R's own axis (they commute)
                shift.append(f)
            else:
                out.append(Step(tuple(shift), rot))
                shift, rot = [f], None
            if f.variable:
                moving = len(out)
        if shift or rot is not None:
            out.append(Step(tuple(shift), rot))
        return out, moving


@dataclass(frozen=True)
class Step:
    """A rigid transform ``T(P) · R`` with P a sum of translations and R one elementary rotation
    (or none): the unit a recursion carries values through.

    Attributes
    ----------
    shift : tuple of Factor
        Translations making P (in the frame before the step).
    rotation : Factor or None
    """

    shift: tuple
    rotation: object


def joint_model(robot, k) -> JointModel:
    """The joint model of joint k (0-based): DH (standard or modified) or general (``urdf``)."""
    require_robot_below(robot)
    if not (is_whole(k) and 0 <= k < robot.n_dof):      # else a float or a str: a bare TypeError; -1: the last joint
        raise ArgumentError(f"k: expected a joint index from 0 to {robot.n_dof - 1}, got {shown(k)}")
    j = robot.joints[k]
    motion = Factor("rotation" if j.is_revolute else "translation", "z", j.offset, variable=True,
                    label=f"joints[{k + 1}].offset")
    if robot.convention == "urdf":
        return _general_model(j, k, motion)
    alpha = rotation("x", j.alpha, f"joints[{k + 1}].alpha")
    a = translation("x", j.a, f"joints[{k + 1}].a")
    d = translation("z", j.d, f"joints[{k + 1}].d")
    theta = rotation("z", j.theta, f"joints[{k + 1}].theta")
    # C and C′ around the motion: standard A = Rz(θ) Tz(d) Tx(a) Rx(α), modified A = Rx(α) Tx(a) Rz(θ) Tz(d)
    before, after = {("revolute", "standard"): ((), (d, a, alpha)), ("revolute", "modified"): ((alpha, a), (d,)),
                     ("prismatic", "standard"): ((theta,), (a, alpha)),
                     ("prismatic", "modified"): ((alpha, a, theta), ())}[(j.type, robot.convention)]
    return JointModel(j.type, before, motion, after)


def origin_factors(origin) -> tuple:
    """The factors of a URDF origin ``Trans(xyz) · Rz(yaw) · Ry(pitch) · Rx(roll)``, zeros left out."""
    where = origin.label or "origin"
    shift = tuple(translation(axis, v, f"{where} xyz[{i}]")
                  for i, (axis, v) in enumerate(zip("xyz", origin.xyz), start=1) if v != 0)
    turn = tuple(rotation(axis, origin.rpy[i], f"{where} rpy[{i + 1}]")
                 for axis, i in (("z", 2), ("y", 1), ("x", 0)) if origin.rpy[i] != 0)
    return shift + turn


def axis_factors(axis, label="axis") -> tuple:
    """Rotations R with ``R·e_z = axis`` (unit): one about x or y when the axis lies in a coordinate
    plane through z, else ``Rz(φ)·Ry(θ)`` (azimuth, polar angle); none for +z.

    A motion about/along the axis is then ``R · M_z(q) · Rᵀ`` (the conjugated D of docs/method.md).
    """
    x, y, z = axis
    if x == 0 and y == 0:
        return () if z > 0 else (rotation("x", math.pi, label),)
    if x == 0:
        return (rotation("x", math.atan2(-y, z), label),)
    if y == 0:
        return (rotation("y", math.atan2(x, z), label),)
    return (rotation("z", math.atan2(y, x), label), rotation("y", math.atan2(math.hypot(x, y), z), label))


def _general_model(j, k, motion) -> JointModel:
    before = tuple(f for o in j.origins for f in origin_factors(o))
    turn = axis_factors(j.axis, f"joints[{k + 1}].axis" if j.name is None else f"joint '{j.name}' axis")
    undo = tuple(dataclasses.replace(f, value=-f.value) for f in reversed(turn))
    return JointModel(j.type, _merged(before + turn), motion, undo)


def _special(angle) -> bool:
    # a multiple of 15° (exact_cos_sin's multiples of 90° are among them)
    return abs(angle / (math.pi / 12) - round(angle / (math.pi / 12))) < 1e-12


def _merged(factors) -> tuple:
    """Adjacent rotations about one axis merged where that keeps the numbers exact (both angles
    multiples of 15°, or cancelling), and factors that become the identity dropped: a URDF origin
    ``rpy`` followed by the axis rotation often turns back (Rx(90°)·Rx(−90°)), and every factor
    kept costs operations in the generated code."""
    out = []
    for f in factors:
        prev = out[-1] if out else None
        if prev is not None and prev.is_rotation and f.is_rotation and prev.axis == f.axis \
                and (prev.value == -f.value or (_special(prev.value) and _special(f.value))):
            turns = round((prev.value + f.value) / (math.pi / 12)) if prev.value != -f.value else 0
            out.pop()
            if turns % 24:
                # the sum as the nearest multiple of 15°, in (−180°, 180°]
                turns = (turns + 11) % 24 - 11
                out.append(dataclasses.replace(prev, value=turns * math.pi / 12))
            continue
        out.append(f)
    return tuple(out)


def factor_matrix(factor, length, cos_sin, dtype=float):
    """The 4×4 matrix of a constant :class:`~baseparam.model.joint_model.Factor`.

    Parameters
    ----------
    length, cos_sin : callable
        The arithmetic's reading of a description length, and of a description angle as (cos, sin).
    dtype : float or object
        ``object`` for exact arithmetic on the Python numbers ``length``/``cos_sin`` return.
    """
    m = np.eye(4, dtype=dtype)
    i = factor.index
    if factor.is_rotation:
        c, s = cos_sin(factor.value)
        j, k = (i + 1) % 3, (i + 2) % 3
        m[j, j], m[j, k], m[k, j], m[k, k] = c, -s, s, c
    else:
        m[i, 3] = length(factor.value)
    return m


def product(factors, length, cos_sin, dtype=float):
    """Left-to-right product of constant factors (the identity for none), shape (4, 4)."""
    out = np.eye(4, dtype=dtype)
    for f in factors:
        out = out @ factor_matrix(f, length, cos_sin, dtype)
    return out


def joint_models(robot) -> tuple:
    """:func:`joint_model` of every joint."""
    require_robot_below(robot)      # a public name: a non-robot refused, not an AttributeError inside
    return tuple(joint_model(robot, k) for k in range(robot.n_dof))


def to_si(robot, factor: Factor) -> float:
    """A factor's value in SI (rad or m)."""
    return float(factor.value) * (robot.angle_scale if factor.is_rotation else robot.length_scale)


def si_readers(robot) -> tuple:
    """(length, cos_sin): the readings of a description's lengths and angles in SI, for :func:`factor_matrix`
    and :func:`product` (exact cos and sin of multiples of 15°)."""
    return (lambda v: float(v) * robot.length_scale), (lambda v: exact_cos_sin(v, robot.angle_unit)[:2])


def motion_offsets(robot) -> tuple:
    """The joint offsets in SI (rad or m), added to q before cos/sin or as a prismatic joint's travel:
    what every code printer writes next to ``q[k]``."""
    return tuple(to_si(robot, m.motion) for m in joint_models(robot))


__all__ = ["Factor", "JointModel", "Step", "axis_factors", "exact_cos_sin", "factor_matrix", "joint_model",
           "origin_factors", "product", "joint_models", "motion_offsets", "si_readers",
           "to_si"]
