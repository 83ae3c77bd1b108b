"""The robot model: a kinematic chain described by Denavit–Hartenberg parameters.

A :class:`Robot` keeps the numbers exactly as written in the description (in its
``units``) so that the projection engine can decide whether the coordinate matrix Z
is rational; everything numeric that users see goes through the SI accessors.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Optional

import numpy as np

from .._warnings import warn
from ..errors import ArgumentError, RobotDescriptionError, RoundOffWarning, printable
from .._numbers import is_real, is_whole
from .._checks import check_flag, check_instance, check_option, not_a_robot, shown
from .checks import (MAX_JOINTS, angle_problem, body_problem, first_listed, gravity_problem, length_problem,
                     snap_degrees, snap_gravity)
from .friction import FrictionModel

# Characters XML 1.0 cannot hold, even as references: a joint name with one could not be written to URDF or MJCF
_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

LENGTH_UNITS = {"m": 1.0, "mm": 1e-3, "cm": 1e-2}
ANGLE_UNITS = {"rad": 1.0, "deg": math.pi / 180.0}
JOINT_TYPES = ("revolute", "prismatic")
CONVENTIONS = ("standard", "modified", "urdf")   # urdf: joints placed by origins and an axis, SI
BASES = ("fixed", "floating")   # floating: a free 6-DOF root body (docs/formats.md, "Floating base")
# a floating base adds its pose to q (position, then a unit quaternion x, y, z, w) and its twist to q̇
BASE_POSE, BASE_TWIST = 7, 6
FRICTION_KINDS = ("FV", "FC", "FO")  # viscous, Coulomb, offset


@dataclass(frozen=True, eq=False)  # arrays have no truth value: __eq__ and __hash__ below compare values
class Inertia:
    """True rigid-body inertia of a link (for simulation), in the link's DH frame.

    Always SI (kg, m, kg·m²), whatever length unit the description uses for its DH table.

    Attributes
    ----------
    mass : float
    com : ndarray, shape (3,)
        Centre of mass in the link frame.
    inertia : ndarray, shape (3, 3)
        Inertia tensor about the centre of mass, link-frame axes.
    as_written : bool
        True accepts what a URDF may hold and pinocchio keeps: mass 0 (links without
        ``<inertial>``) and principal moments that are negative or violate the triangle
        inequality. Finiteness, magnitudes and symmetry are checked either way.
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    as_written: bool = field(default=False, compare=False, repr=False)

    def __post_init__(self):
        check_flag(self.as_written, "Inertia.as_written", error=RobotDescriptionError)
        # a physically impossible body (negative mass matrix, I1 > I2 + I3, 1e300 kg) is refused here,
        # for robots built in code; the loader runs the same check first to name the file and joint
        problem = body_problem(self.mass, self.com, self.inertia, massless_ok=self.as_written,
                               physical=not self.as_written)
        if problem is not None:
            raise RobotDescriptionError(f"Inertia.{problem[0]}: {problem[1]}")
        # the body as checked, kept: the caller's array (or list) stayed the field, so a change to it afterwards
        # changed a frozen robot past its checks (a com of 1e9 m, a negative moment) and the dynamics with it
        object.__setattr__(self, "mass", float(self.mass))
        for name in ("com", "inertia"):
            value = np.array(getattr(self, name), dtype=float)
            value.flags.writeable = False
            object.__setattr__(self, name, value)

    def __reduce__(self):
        # a copy (pickle to workers, copy.deepcopy) made again by the constructor: the default one restored writeable
        # arrays, which a change could take past the checks (checking again costs microseconds)
        return (type(self), (self.mass, self.com, self.inertia, self.as_written))

    def _key(self):
        return self.mass, tuple(self.com), tuple(self.inertia.ravel())       # float and float arrays: as made

    def __eq__(self, other):
        """Equal when mass, centre of mass and inertia tensor are equal number for number (``as_written``,
        a loading option, is not part of the body)."""
        if not isinstance(other, Inertia):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


@dataclass(frozen=True)
class Origin:
    """A constant rigid transform ``Trans(xyz) · Rz(yaw) · Ry(pitch) · Rx(roll)`` (a URDF ``<origin>``).

    Attributes
    ----------
    xyz : tuple of 3 float
        Translation (m), in the parent frame.
    rpy : tuple of 3 float
        Roll, pitch, yaw (rad): fixed-axis rotations about x, then y, then z.
    label : str
        Where it was written (for messages), e.g. ``"joint 'elbow' <origin>"``.
    """

    xyz: tuple = (0.0, 0.0, 0.0)
    rpy: tuple = (0.0, 0.0, 0.0)
    label: str = field(default="", compare=False)

    def __post_init__(self):
        check_instance(self.label, "Origin.label", str, "a str")
        for name in ("xyz", "rpy"):
            given = getattr(self, name)
            # the length before the values: a tuple of a broadcast view of 10⁹ would end in numpy's bare MemoryError
            values = tuple(given) if isinstance(given, (tuple, list, np.ndarray)) and np.ndim(given) == 1 \
                and len(given) == 3 else ()
            _expect(len(values) == 3 and all(is_real(v) for v in values), f"{self.label or 'Origin'}.{name}",
                    "3 finite numbers", given)
            # plain floats: numpy's scalars showed as np.float64(0.0) in the repr, and a Fraction stayed exact
            object.__setattr__(self, name, tuple(float(v) for v in values))


@dataclass(frozen=True)
class JointLimits:
    """Joint limits as a URDF ``<limit>`` gives them (SI; None where not given): kept for
    excitation design.

    Attributes
    ----------
    lower, upper : float or None
        Position range (rad or m).
    velocity : float or None
        Largest |q̇| (rad/s or m/s).
    effort : float or None
        Largest |τ| (N·m or N).
    """

    lower: Optional[float] = None
    upper: Optional[float] = None
    velocity: Optional[float] = None
    effort: Optional[float] = None

    def __post_init__(self):
        for name in ("lower", "upper", "velocity", "effort"):
            value = getattr(self, name)
            # text, an array: compared with numbers later
            _expect(value is None or is_real(value), f"JointLimits.{name}", "a finite number or None", value)
            object.__setattr__(self, name, None if value is None else float(value))


def _refuse(where, problem):
    """A RobotDescriptionError naming the field `where` when a check found a problem (not None)."""
    if problem is not None:
        raise RobotDescriptionError(f"{where}: {problem}")


def _expect(ok, where, expected, value):
    """Unless ``ok``, a RobotDescriptionError ``WHERE: expected EXPECTED, got VALUE`` (the value :func:`shown`)."""
    if not ok:
        raise RobotDescriptionError(f"{where}: expected {expected}, got {shown(value)}")


def _declared(value) -> bool:
    """A friction entry that models its term (True or a value; False and None do not)."""
    return value is not False and value is not None


@dataclass(frozen=True)
class Joint:
    """One joint and the link it moves, in the description's units.

    Attributes
    ----------
    type : {'revolute', 'prismatic'}
    alpha, a : float
        Link twist and length (description units).
    d : float
        Constant offset along z (revolute joints; for prismatic joints d is the variable).
    theta : float
        Constant rotation about z (prismatic joints; for revolute joints θ is the variable).
    offset : float
        Constant added to the joint variable q (angle units for revolute, length for prismatic).
    parent : int or None
        1-based number of the parent joint, 0 for the base; None (the default) means the previous
        joint, as in the YAML format, so joints listed base to tip make a chain.
    friction : tuple of 3 (bool or float)
        Which of viscous, Coulomb, offset friction are modelled; a float also gives its true value.
    rotor_inertia : bool or float
        Whether a rotor inertia IA is modelled (a float also gives its true value, SI).
    inertia : Inertia or None
    origins : tuple of Origin
        ``convention='urdf'`` only: the constant transforms from the parent link frame to the joint
        frame, applied left to right (a URDF joint's ``<origin>``, preceded by those of the fixed
        joints merged on the way). The DH fields are then unused (0).
    axis : tuple of 3 float
        ``convention='urdf'`` only: the unit axis of the motion in the joint frame.
    name : str or None
        The joint's name in its description (URDF), for messages.
    limits : JointLimits or None
    friction_prior : tuple of 2 float or None
        Viscous and Coulomb friction a description states without declaring friction columns (a
        URDF's ``<dynamics damping friction>``): the true values once friction is declared
        (:func:`with_drives`).
    friction_model : FrictionModel or None
        How the Coulomb friction depends on the velocity (:mod:`baseparam.model.friction`): None is
        ``sign(q̇)``; a Stribeck term adds the column ``FS<j>``.
    """

    type: str
    alpha: float = 0.0
    a: float = 0.0
    d: float = 0.0
    theta: float = 0.0
    offset: float = 0.0
    parent: Optional[int] = None
    friction: tuple = (False, False, False)
    rotor_inertia: object = False
    inertia: Optional[Inertia] = None
    origins: tuple = ()
    axis: tuple = (0.0, 0.0, 1.0)
    name: Optional[str] = field(default=None, compare=False)
    limits: Optional[JointLimits] = None
    friction_prior: Optional[tuple] = None
    friction_model: Optional[FrictionModel] = None

    def __post_init__(self):
        # The YAML loader checks descriptions with file and field names; this guards robots built in
        # code, whose bad numbers would otherwise surface deep inside the numerics.
        # which text: the Robot's check, naming the joint's number
        _expect(isinstance(self.type, str), "Joint.type", f"one of {JOINT_TYPES}", self.type)
        for name in ("alpha", "a", "d", "theta", "offset"):
            _expect(is_real(getattr(self, name)), f"Joint.{name}", "a finite number", getattr(self, name))
        _expect(self.parent is None or is_whole(self.parent), "Joint.parent", "a joint number (int) or None",
                self.parent)
        # a URDF's joint name may hold a line break (&#10;), which messages escape; what no description can
        # hold (a NUL, an escape character: XML refuses them) made files that could not be read back
        _expect(self.name is None or (isinstance(self.name, str) and self.name and not _UNWRITABLE.search(self.name)),
                "Joint.name", "a non-empty name without control characters other than line breaks and tabs", self.name)
        # friction=True is the YAML shorthand for all three terms
        _expect(isinstance(self.friction, (bool, tuple, list)), "Joint.friction",
                "3 entries (viscous, Coulomb, offset) or a bool", self.friction)
        friction = (self.friction,) * 3 if isinstance(self.friction, bool) else tuple(self.friction)
        _expect(len(friction) == 3, "Joint.friction", "3 entries (viscous, Coulomb, offset)", self.friction)
        for value in friction + (self.rotor_inertia,):
            _expect(value is None or isinstance(value, bool) or is_real(value), "Joint.friction/rotor_inertia",
                    "booleans or finite numbers", value)
        object.__setattr__(self, "friction", friction)
        if self.friction_model is not None:
            _expect(isinstance(self.friction_model, FrictionModel), "Joint.friction_model", "a FrictionModel or None",
                    self.friction_model)
            if self.friction_model.is_default:
                object.__setattr__(self, "friction_model", None)
            elif self.friction_model.stribeck is not None and not _declared(friction[1]):
                raise RobotDescriptionError("Joint.friction_model: a Stribeck term multiplies the Coulomb term, "
                                            "which this joint does not declare (friction[2])")
        # the bodies and limits of a robot built in code: an Inertia or a JointLimits, not a number standing for one
        for name, kind in (("inertia", Inertia), ("limits", JointLimits)):
            value = getattr(self, name)
            _expect(value is None or isinstance(value, kind), f"Joint.{name}", f"a baseparam.{kind.__name__} or None",
                    value)
        prior = self.friction_prior
        _expect(prior is None or (isinstance(prior, (tuple, list)) and len(prior) == 2
                                  and all(is_real(v) and v >= 0 for v in prior)),
                "Joint.friction_prior", "(viscous, Coulomb), 2 finite numbers ≥ 0", prior)
        if prior is not None:           # a list kept as given could be changed after the check
            object.__setattr__(self, "friction_prior", tuple(prior))
        _expect(isinstance(self.origins, (tuple, list)) and all(isinstance(o, Origin) for o in self.origins),
                "Joint.origins", "a sequence of Origin", self.origins)
        object.__setattr__(self, "origins", tuple(self.origins))
        axis = tuple(self.axis) if isinstance(self.axis, (tuple, list, np.ndarray)) and np.ndim(self.axis) == 1 else ()
        norm = math.hypot(*axis) if len(axis) == 3 and all(is_real(v) for v in axis) else 0.0
        _expect(1e-6 < norm < 1e6, "Joint.axis", "a direction (3 finite numbers, of length between 1e-6 and 1e6)",
                self.axis)
        object.__setattr__(self, "axis", tuple(float(v) / norm + 0.0 for v in axis))     # x / 1.0 is x exactly

    @property
    def is_revolute(self) -> bool:
        return self.type == "revolute"

    @property
    def friction_terms(self) -> tuple:
        """Names' prefixes of the modelled friction terms, e.g. ``('FV', 'FC')`` (``FS``: Stribeck)."""
        terms = tuple(k for k, on in zip(FRICTION_KINDS, self.friction) if _declared(on))
        if self.friction_model is not None and self.friction_model.stribeck is not None:
            terms += ("FS",)
        return terms

    @property
    def has_rotor_inertia(self) -> bool:
        return _declared(self.rotor_inertia)


@dataclass(frozen=True)
class Robot:
    """A serial or tree-structured manipulator, on a fixed or a free-floating base.

    Parameters
    ----------
    joints : tuple of Joint
        1 to 64 joints (:data:`~baseparam.model.checks.MAX_JOINTS`, a description file's cap too).
    name : str
    convention : {'standard', 'modified'}
        Standard (distal) DH: ``A = Rz(θ) Tz(d) Tx(a) Rx(α)``; modified (proximal, Craig/Khalil):
        ``A = Rx(α) Tx(a) Rz(θ) Tz(d)``.
    length_unit : {'m', 'mm', 'cm'}
    angle_unit : {'rad', 'deg'}
    gravity : tuple of 3 float
        Gravity vector in the base frame, always in m/s².
    source : str or None
        The description's text (kept so that results can be traced to their input).
    base : {'fixed', 'floating'}
        ``floating``: the base (body 0, whose frame is the DH frame 0) is a free rigid body, a 6-DOF
        root. Its pose comes first in ``q`` — position of frame 0 in the world (m), then the unit
        quaternion (x, y, z, w) of its orientation — and its twist first in ``q̇`` — linear velocity
        of the frame-0 origin, then angular velocity, both in frame-0 axes (pinocchio's free-flyer
        convention); ``q̈`` starts with the derivative of that twist and τ with the wrench [f, n]
        applied to the base (frame-0 axes, moment about its origin). ``gravity`` is then in the world
        frame. Joint numbering is unchanged.
    base_inertia : Inertia or None
        The floating base body's inertia in frame 0 (its true values; ``base: floating`` only).
    source_file : str or None
        The real path of the file :func:`~baseparam.model.loading.load_robot` read the robot from (None for one
        built otherwise): no writer given the robot writes over it (:func:`baseparam._output_names.robot_protected`).
    """

    joints: tuple
    name: str = "robot"
    convention: str = "standard"
    length_unit: str = "m"
    angle_unit: str = "rad"
    gravity: tuple = (0.0, 0.0, -9.81)
    source: Optional[str] = field(default=None, repr=False, compare=False)
    base: str = "fixed"
    base_inertia: Optional[Inertia] = None
    source_file: Optional[str] = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        # check_option: an array or a list given for an option is refused, not compared element by element
        for value, name, options in ((self.convention, "convention", CONVENTIONS),
                                     (self.length_unit, "units.length", tuple(LENGTH_UNITS)),
                                     (self.angle_unit, "units.angle", tuple(ANGLE_UNITS))):
            check_option(value, name, options, expected=f"one of {options}", error=RobotDescriptionError)
        _expect(isinstance(self.name, str) and self.name and self.name.isprintable(), "name",
                "a one-line name without control characters", self.name)
        _expect(isinstance(self.joints, (tuple, list)) and all(isinstance(j, Joint) for j in self.joints), "joints",
                "a sequence of Joint", self.joints)
        if len(self.joints) == 0:
            raise RobotDescriptionError("joints: a robot needs at least one joint")
        if len(self.joints) > MAX_JOINTS:       # the files' cap, in the loader's words: no step is wasteful, but Z's
            # rows grow as N² and its Gram matrix's work as Σ nnz² (a 200-joint chain: 10-18 s in find)
            raise RobotDescriptionError(f"joints: expected at most {MAX_JOINTS} joints, got {len(self.joints)}")
        check_option(self.base, "base", BASES, expected=f"one of {BASES}", error=RobotDescriptionError)
        check_instance(self.base_inertia, "base_inertia", Inertia, "an Inertia", allow_none=True,
                       error=RobotDescriptionError)
        if self.base_inertia is not None and self.base != "floating":
            raise RobotDescriptionError("base_inertia: only a floating base (base: floating) has a body of its own")
        # parent=None: the previous joint (a chain), as in the YAML format
        object.__setattr__(self, "joints", tuple(j if j.parent is not None else replace(j, parent=k)
                                                 for k, j in enumerate(self.joints)))
        try:
            written = tuple(float(g) for g in self.gravity)
        except (TypeError, ValueError, OverflowError):
            raise RobotDescriptionError(f"gravity: expected 3 finite numbers, got {shown(self.gravity)}") from None
        problem = gravity_problem(written)
        if problem is not None:
            raise RobotDescriptionError(f"{problem[0]}: {problem[1]}")
        gravity, snapped = snap_gravity(written)
        object.__setattr__(self, "gravity", gravity)
        notes = [f"gravity[{i + 1}] = {written[i]!r} as 0" for i in snapped]
        joints = []
        general = self.convention == "urdf"
        if general and (self.length_unit, self.angle_unit) != ("m", "rad"):
            raise RobotDescriptionError(f"units: a urdf-convention robot is in m and rad, got "
                                        f"{self.length_unit} and {self.angle_unit}")
        for k, jt in enumerate(self.joints, start=1):
            check_option(jt.type, f"joints[{k}].type", JOINT_TYPES, expected=f"one of {JOINT_TYPES}",
                         error=RobotDescriptionError)
            if not 0 <= jt.parent < k:
                raise RobotDescriptionError(f"joints[{k}].parent: expected 0..{k - 1}, got {shown(jt.parent)}")
            if general:
                self._check_general(k, jt)
                joints.append(jt)
                continue
            if jt.origins or jt.axis != (0.0, 0.0, 1.0):
                raise RobotDescriptionError(f"joints[{k}].origins/axis: only for convention 'urdf'; a "
                                            f"{self.convention} DH joint is placed by alpha, a, d, theta")
            for name in ("a", "d") if jt.is_revolute else ("a", "offset"):
                _refuse(f"joints[{k}].{name}", length_problem(getattr(jt, name), self.length_unit,
                                                              LENGTH_UNITS[self.length_unit]))
            changes = {}
            for name in ("alpha", "theta", "offset") if jt.is_revolute else ("alpha", "theta"):
                value = getattr(jt, name)
                _refuse(f"joints[{k}].{name}", angle_problem(value, self.angle_unit))
                snapped_angle = snap_degrees(value) if self.angle_unit == "deg" else None
                if snapped_angle is not None:
                    changes[name] = snapped_angle
                    notes.append(f"joints[{k}].{name} = {value!r} deg as {snapped_angle:g}")
            joints.append(replace(jt, **changes) if changes else jt)
        object.__setattr__(self, "joints", tuple(joints))
        if notes:
            # rank and regroupings are decided exactly: 6e-16 beside 9.81 would be a tilted gravity
            # the first MAX_PROBLEMS, then how many more: a 64-joint table of alpha = 89.99999999999999 said 64 of
            # them, 3 300 characters, cut in the middle by the command line's bound on a line
            warn(f"{self.name}: within round-off of special values, taken as them: {first_listed(notes)} "
                 "(nothing to do if that is round-off; write the exact values to silence this)", RoundOffWarning)

    def _check_general(self, k, jt):
        """A urdf-convention joint: placed by its origins and axis, DH fields unused."""
        for name in ("alpha", "a", "d", "theta"):
            if getattr(jt, name) != 0:
                raise RobotDescriptionError(f"joints[{k}].{name}: a urdf-convention joint is placed by its "
                                            f"origins and axis; DH fields must be 0")
        where = f"joints[{k}]" + (f" ({jt.name})" if jt.name else "")
        for origin in jt.origins:
            for i, value in enumerate(origin.xyz, start=1):
                _refuse(f"{origin.label or where}.xyz[{i}]", length_problem(value, "m", 1.0))
            for i, value in enumerate(origin.rpy, start=1):
                _refuse(f"{origin.label or where}.rpy[{i}]", angle_problem(value, "rad"))
        _refuse(f"{where}.offset", angle_problem(jt.offset, "rad") if jt.is_revolute else
                length_problem(jt.offset, "m", 1.0))

    # -- structure -----------------------------------------------------------------
    @property
    def n_dof(self) -> int:
        return len(self.joints)

    @property
    def parents(self) -> tuple:
        """0-based parent index per joint, -1 for the base."""
        return tuple(j.parent - 1 for j in self.joints)

    @property
    def is_chain(self) -> bool:
        return all(j.parent == k for k, j in enumerate(self.joints))

    @property
    def from_urdf_text(self) -> bool:
        """Whether the robot was read from a URDF whose text it keeps as its source (the file the identified
        bodies are written back into)."""
        return self.convention == "urdf" and bool(self.source) and self.source.lstrip("\ufeff \t\r\n").startswith("<")

    @property
    def is_floating(self) -> bool:
        """Whether the base is a free-floating body (its pose and twist lead ``q`` and ``q̇``)."""
        return self.base == "floating"

    @property
    def n_q(self) -> int:
        """Length of a configuration ``q``: the joints, plus 7 (position, quaternion) for a floating base."""
        return self.n_dof + (BASE_POSE if self.is_floating else 0)

    @property
    def n_v(self) -> int:
        """Length of ``q̇``, ``q̈`` and τ: the joints, plus 6 (twist or wrench) for a floating base."""
        return self.n_dof + (BASE_TWIST if self.is_floating else 0)

    def signature(self) -> tuple:
        """Everything that shapes the equations of motion and the columns, as a hashable key.

        Unlike ``==``, it tells ``friction=(0.0, …)`` (declared, value 0) from ``(False, …)`` and
        ignores the true inertias, which never enter a regressor.
        """
        cached = self.__dict__.get("_signature")
        if cached is not None:
            return cached
        joints = tuple((j.type, float(j.alpha), float(j.a), float(j.d), float(j.theta), float(j.offset), j.parent,
                        j.friction_terms, j.has_rotor_inertia,
                        tuple((tuple(map(float, o.xyz)), tuple(map(float, o.rpy))) for o in j.origins), j.axis)
                       for j in self.joints)
        key = (self.convention, self.length_unit, self.angle_unit, self.gravity, joints, self.base)
        object.__setattr__(self, "_signature", key)     # frozen, so computed once (compiled code is keyed by it)
        return key

    # -- units -----------------------------------------------------------------------
    @property
    def length_scale(self) -> float:
        """Metres per description length unit."""
        return LENGTH_UNITS[self.length_unit]

    @property
    def angle_scale(self) -> float:
        """Radians per description angle unit."""
        return ANGLE_UNITS[self.angle_unit]

    def dh_si(self) -> np.ndarray:
        """DH table in SI.

        Returns
        -------
        ndarray, shape (n_dof, 5)
            Columns alpha [rad], a [m], d [m], theta [rad], offset [rad or m].
        """
        ls, an = self.length_scale, self.angle_scale
        return np.array([(j.alpha * an, j.a * ls, j.d * ls, j.theta * an, j.offset * (an if j.is_revolute else ls))
                         for j in self.joints], dtype=float)

    @property
    def gravity_si(self) -> np.ndarray:
        return np.asarray(self.gravity, dtype=float)

    # -- exact numbers ---------------------------------------------------------------------
    def exact_value(self, value: float) -> Fraction:
        """The decimal the user wrote, as an exact fraction (``0.1`` → 1/10, not the binary float)."""
        if not is_real(value):              # text, NaN or inf: Fraction's ValueError, not one line naming it
            raise ArgumentError(f"value: expected a finite number, got {shown(value)}")
        return exact_decimal(value)


def with_drives(robot: Robot, friction: bool = False, rotor_inertia: bool = False) -> Robot:
    """The robot with viscous, Coulomb and offset friction and/or a rotor inertia declared on every joint.

    For descriptions that cannot declare them (URDF). Values already given stay; a joint's
    ``friction_prior`` (a URDF's ``<dynamics>``) gives the viscous and Coulomb values. A robot read from
    a URDF gets true values for all of them: what the file cannot say (a friction offset FO, a rotor
    inertia) is 0, and a joint without ``<dynamics>`` has the URDF's defaults (``damping`` and
    ``friction`` 0), so that simulating it and predicting its torques need nothing more. Other robots
    declare the terms without values (``True``).
    """
    if not (friction or rotor_inertia):
        return robot
    unsaid = 0.0 if robot.from_urdf_text else True
    joints = []
    for j in robot.joints:
        changes = {}
        if friction:
            prior = j.friction_prior or ((None, None) if unsaid is True else (0.0, 0.0))
            changes["friction"] = tuple(
                old if _declared(old) else (unsaid if value is None else float(value))
                for old, value in zip(j.friction, (*prior, None)))
        if rotor_inertia and not j.has_rotor_inertia:
            changes["rotor_inertia"] = unsaid
        joints.append(replace(j, **changes))
    # a URDF's text stays its source (the file the identified bodies are written back into); a YAML's
    # no longer says what the robot is
    return replace(robot, joints=tuple(joints), source=robot.source if robot.from_urdf_text else None)


def exact_decimal(value) -> Fraction:
    """The decimal a description wrote, as an exact fraction (``0.1`` → 1/10, not the binary float):
    the shortest decimal that reads back as the float, which is what the user typed."""
    return Fraction(value) if isinstance(value, int) else Fraction(repr(float(value)))


def robot_to_yaml(robot: Robot) -> str:
    """A YAML description equivalent to ``robot`` (its original text when it was loaded from one)."""
    import yaml

    # a robot read from a URDF keeps the XML as its source: that is not YAML, so generate instead
    if robot.source and not robot.source.lstrip("\ufeff \t\r\n").startswith("<"):
        return robot.source
    joints = []
    for k, j in enumerate(robot.joints):
        entry = {"type": j.type}
        if j.name is not None:
            # on one line, a URDF's line break escaped (\n): the YAML loader takes one-line names only (a name
            # with a raw one made a description it refused)
            entry["name"] = printable(j.name)
        if robot.convention == "urdf":
            entry["origins"] = [{"xyz": [_plain(v) for v in o.xyz], "rpy": [_plain(v) for v in o.rpy]}
                                for o in j.origins]
            entry["axis"] = [_plain(v) for v in j.axis]
        else:
            entry.update({"alpha": j.alpha, "a": j.a})
            entry.update({"d": j.d} if j.is_revolute else {"theta": j.theta})
        if j.offset:
            entry["offset"] = j.offset
        if j.parent != k:
            entry["parent"] = j.parent
        if any(_declared(f) for f in j.friction):
            entry["friction"] = [f if isinstance(f, bool) else float(f) for f in j.friction]
        if j.friction_model is not None:
            entry["friction_model"] = j.friction_model.to_dict()
        if j.has_rotor_inertia:
            entry["rotor_inertia"] = j.rotor_inertia if isinstance(j.rotor_inertia, bool) else float(j.rotor_inertia)
        if j.inertia is not None:
            entry["inertia"] = _inertia_entry(j.inertia)
        if j.limits is not None:
            entry["limits"] = {key: float(value) for key, value in vars(j.limits).items() if value is not None}
        if j.friction_prior is not None:
            entry["friction_prior"] = [float(v) for v in j.friction_prior]
        joints.append(entry)
    doc = {"name": robot.name, "convention": robot.convention,
           "units": {"length": robot.length_unit, "angle": robot.angle_unit},
           "gravity": list(robot.gravity)}
    if robot.is_floating:
        doc["base"] = robot.base
        if robot.base_inertia is not None:
            doc["base_inertia"] = _inertia_entry(robot.base_inertia)
    doc["joints"] = joints
    from ._yaml_text import _Dumper
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=None)


def _inertia_entry(body):
    entry = {"mass": float(body.mass), "com": [float(x) for x in body.com],
             "inertia": np.asarray(body.inertia, dtype=float).tolist()}
    if body.as_written:
        entry["as_written"] = True
    return entry


def _plain(value):
    """A description number for YAML: ints stay ints, floats as their shortest repr."""
    return value if isinstance(value, int) else float(value)


def require_fixed_base(robot, what: str) -> Robot:
    """``robot`` itself when its base is fixed; otherwise an ArgumentError saying that ``what`` (a
    function or command) does not take floating bases yet."""
    if robot.is_floating:
        # a URDF's base floats when read with floating=True or when its root joint floats: 'base: floating' is the
        # YAML's key, which `excite R.urdf --floating` named as the cause
        why = "read with floating=True, or its root joint floating" if robot.convention == "urdf" else "base: floating"
        raise ArgumentError(f"robot: {shown(robot.name)} has a floating base ({why}); {what} handles "
                            "fixed-base robots only for now (the base set, export, floating-base identification, "
                            "forward dynamics, wrenches and simulation take floating bases)")
    return robot


def joint_names(joints) -> list:
    """The joints' names in order: each one's own (URDF ``name``, YAML ``name:``), else ``joint1`` … ``jointN``, the
    names baseparam's URDF and MJCF writers give unnamed joints and by which a log's joints are matched."""
    return [joint.name or f"joint{k}" for k, joint in enumerate(joints, start=1)]


def require_robot(robot, name: str = "robot") -> Robot:
    """``robot`` itself when it is a :class:`Robot`; otherwise an ArgumentTypeError naming the argument, with a
    hint for a file name (every public function taking a robot calls it, as ``_validation.check_robot``)."""
    if not isinstance(robot, Robot):
        raise not_a_robot(robot, name)
    return robot
