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
the regressor and Newton–Euler graphs (:mod:`baseparam.dynamics.regressor_graph`), numeric
Newton–Euler (:mod:`baseparam.dynamics.newton_euler`) and the code printers (joint offsets).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

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


def rotation(axis, value):
    return Factor("rotation", axis, value)


def translation(axis, value):
    return Factor("translation", axis, value)


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

    @property
    def moves(self) -> bool:
        return any(f.variable for f in self.shift) or (self.rotation is not None and self.rotation.variable)


def joint_model(robot, k) -> JointModel:
    """The joint model of joint k (0-based) of a DH robot."""
    j = robot.joints[k]
    if j.is_revolute:
        motion = Factor("rotation", "z", j.offset, variable=True)
        twist = (translation("x", j.a), rotation("x", j.alpha))
        if robot.convention == "standard":
            return JointModel(j.type, (), motion, (translation("z", j.d),) + twist)
        return JointModel(j.type, twist[::-1], motion, (translation("z", j.d),))
    motion = Factor("translation", "z", j.offset, variable=True)
    if robot.convention == "standard":
        return JointModel(j.type, (rotation("z", j.theta),), motion, (translation("x", j.a), rotation("x", j.alpha)))
    return JointModel(j.type, (rotation("x", j.alpha), translation("x", j.a), rotation("z", j.theta)), motion, ())


def joint_models(robot) -> tuple:
    """:func:`joint_model` of every joint."""
    return tuple(joint_model(robot, k) for k in range(robot.n_dof))


def to_si(robot, factor: Factor) -> float:
    """A factor's value in SI (rad or m)."""
    return float(factor.value) * (robot.angle_scale if factor.is_rotation else robot.length_scale)


def motion_offsets(robot) -> tuple:
    """The joint offsets in SI (rad or m), added to q before cos/sin or as a prismatic joint's travel:
    what every code printer writes next to ``q[k]``."""
    return tuple(to_si(robot, m.motion) for m in joint_models(robot))


__all__ = ["Factor", "JointModel", "Step", "exact_cos_sin", "joint_model", "joint_models", "motion_offsets", "to_si"]
