"""Friction models: how a joint's friction torque depends on its velocity.

Every model is linear in its coefficients, so each coefficient is one regressor column::

    τ_f = FV·q̇ + FC·c(q̇) + FO + FS·s(q̇)

* ``c`` is the Coulomb shape: ``sign(q̇)`` (``coulomb: sign``, the default) or ``tanh(q̇/v_c)``
  (``coulomb: smooth``), a sign that turns over a velocity band v_c instead of jumping: where a
  sensor sees friction change smoothly at a velocity reversal (pre-sliding, elastic gears), a step
  would put error at every reversal.
* ``s`` is the optional Stribeck term, ``exp(−(q̇/v_s)²)·c(q̇)``: the extra friction of a joint
  breaking away from rest, fading above v_s. Its coefficient is the column ``FS<j>``.

The velocity scales v_c and v_s are not linear parameters: a description gives them (SI: rad/s, or
m/s for prismatic joints), or writes ``auto`` and the identification chooses them from the training
data (separable least squares over a grid, :mod:`baseparam.identification.estimators`).

Which terms exist at all is the description's ``friction: [viscous, Coulomb, offset]``; a joint
whose torque sensor sees no Coulomb friction declares ``[true, false, true]``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from .._checks import require_robot_below, shown
from .._warnings import warn
from ..errors import ArgumentError, DescriptionWarning, RobotDescriptionError, printable
from .._memory import check_memory
from .._numbers import check_state_values, is_real, plain_float, real_array

COULOMB_SHAPES = ("sign", "smooth")
AUTO = "auto"


def _scale(value, label, error=RobotDescriptionError):
    """A velocity scale (SI) as a float, or None or 'auto'; else ``error`` naming ``label`` (the model's field, or
    the text a user gave)."""
    if value is None or value == AUTO:
        return value
    if not is_real(value) or not 0 < value < 1e3:
        raise error(f"{label}: expected a velocity scale > 0 and below 1000 (rad/s or m/s) or 'auto', got "
                    f"{shown(value)}")
    return float(value)


@dataclass(frozen=True)
class FrictionModel:
    """The velocity dependence of one joint's Coulomb (and Stribeck) friction.

    Parameters
    ----------
    coulomb : {'sign', 'smooth'}
        Shape of the Coulomb term: ``sign(q̇)``, or ``tanh(q̇ / velocity)``.
    velocity : float or 'auto' or None
        ``smooth`` only: the velocity scale v_c (SI), or ``'auto'`` (identified from data).
    stribeck : float or 'auto' or None
        The Stribeck velocity v_s of an extra term ``FS·exp(−(q̇/v_s)²)·c(q̇)`` (column ``FS<j>``);
        None: no Stribeck term.
    stribeck_friction : float or None
        FS's true value (N·m or N), for simulation; None when unknown.

    Examples
    --------
    >>> import numpy as np
    >>> m = FrictionModel("smooth", velocity=0.1)
    >>> np.round(m.coulomb_shape(np.array([-1.0, 0.0, 0.05])), 3)
    array([-1.   ,  0.   ,  0.462])
    """

    coulomb: str = "sign"
    velocity: object = None
    stribeck: object = None
    stribeck_friction: Optional[float] = None

    def __post_init__(self):
        if self.coulomb not in COULOMB_SHAPES:
            raise RobotDescriptionError(f"FrictionModel.coulomb: expected one of {COULOMB_SHAPES}, "
                                        f"got {shown(self.coulomb)}")
        object.__setattr__(self, "velocity", _scale(self.velocity, "FrictionModel.velocity"))
        object.__setattr__(self, "stribeck", _scale(self.stribeck, "FrictionModel.stribeck"))
        if self.coulomb == "smooth" and self.velocity is None:
            raise RobotDescriptionError("FrictionModel.velocity: a smooth Coulomb term needs its velocity scale "
                                        "(a number in rad/s or m/s, or 'auto' to identify it)")
        if self.coulomb == "sign" and self.velocity is not None:
            raise RobotDescriptionError("FrictionModel.velocity: only for coulomb 'smooth' (sign has no scale)")
        value = self.stribeck_friction
        if value is not None and not is_real(value):
            raise RobotDescriptionError("FrictionModel.stribeck_friction: expected a finite number, "
                                        f"got {shown(value)}")
        if value is not None and self.stribeck is None:
            raise RobotDescriptionError("FrictionModel.stribeck_friction: given without a Stribeck velocity")

    @property
    def is_default(self) -> bool:
        """Plain sign(q̇), no Stribeck term: what a description without ``friction_model`` means."""
        return self == FrictionModel()

    @property
    def unresolved(self) -> tuple:
        """Names of the scales still ``'auto'`` (to be identified), e.g. ``('velocity',)``."""
        return tuple(name for name in ("velocity", "stribeck") if getattr(self, name) == AUTO)

    def resolved(self, velocity=None, stribeck=None) -> FrictionModel:
        """The model with its ``'auto'`` scales replaced by the given numbers."""
        changes = {name: value for name, value in (("velocity", velocity), ("stribeck", stribeck))
                   if getattr(self, name) == AUTO}
        return replace(self, **changes) if changes else self

    def coulomb_shape(self, qd, sign_width=None) -> np.ndarray:
        """c(q̇), same shape as ``qd``; ``sign_width`` w > 0 replaces sign(q̇) by tanh(q̇/w) (a smooth
        surrogate, for searches that need c to move continuously; smooth models ignore it)."""
        if self.coulomb == "sign":
            return np.sign(qd) if sign_width is None else np.tanh(np.asarray(qd) / sign_width)
        self._check_resolved()
        return np.tanh(np.asarray(qd) / self.velocity)

    def coulomb_slope(self, qd, sign_width=None) -> np.ndarray:
        """dc/dq̇ of :meth:`coulomb_shape` (0 for sign(q̇), wherever it is defined)."""
        if self.coulomb == "sign" and sign_width is None:
            return np.zeros_like(np.asarray(qd, dtype=float))
        width = sign_width if self.coulomb == "sign" else self.velocity
        return (1.0 - self.coulomb_shape(qd, sign_width) ** 2) / width

    def stribeck_shape(self, qd, sign_width=None) -> np.ndarray:
        """s(q̇) = exp(−(q̇/v_s)²)·c(q̇), same shape as ``qd`` (``sign_width``: as in :meth:`coulomb_shape`)."""
        self._check_resolved()
        qd = np.asarray(qd)
        return np.exp(-(qd / self.stribeck) ** 2) * self.coulomb_shape(qd, sign_width)

    def stribeck_slope(self, qd, sign_width=None) -> np.ndarray:
        """ds/dq̇ of :meth:`stribeck_shape`."""
        self._check_resolved()
        qd = np.asarray(qd)
        bell = np.exp(-(qd / self.stribeck) ** 2)
        return bell * (self.coulomb_slope(qd, sign_width)
                       - 2.0 * qd / self.stribeck ** 2 * self.coulomb_shape(qd, sign_width))

    def _check_resolved(self):
        if self.unresolved:
            raise ArgumentError(f"friction model: the {' and '.join(self.unresolved)} scale is 'auto' (identified "
                                "from data by bp.identify); give a number to evaluate the friction")

    def describe(self) -> str:
        """One phrase, e.g. ``tanh(q̇/0.03)`` or ``sign(q̇) + Stribeck (v_s = 0.05)``."""
        text = "sign(q̇)" if self.coulomb == "sign" else f"tanh(q̇/{_number(self.velocity)})"
        if self.stribeck is not None:
            text += f" + Stribeck (v_s = {_number(self.stribeck)})"
        return text

    def to_dict(self) -> dict:
        """The YAML/JSON form (``friction_model:`` of a description)."""
        given = {name: getattr(self, name) for name in ("velocity", "stribeck", "stribeck_friction")}
        return {"coulomb": self.coulomb, **{name: value for name, value in given.items() if value is not None}}


def _number(value):
    return value if isinstance(value, str) else f"{value:.4g}"


DEFAULT = FrictionModel()


def shape_code(model, qd, language, coulomb=None):
    """c(q̇) and s(q̇) of a joint's friction model as code: the formulas above, written once for every
    printer of expression graphs (:mod:`baseparam.dynamics.printing`: numpy and C at run time, C and
    Python export).

    Parameters
    ----------
    model : FrictionModel or None
        None: the default, sign(q̇) and no Stribeck term. Its scales must be numbers.
    qd : str
        The joint velocity as code.
    language : object
        ``number(float) -> str``; ``sign`` and ``square``: templates of sign(x) and x² in ``{x}``.
    coulomb : str, optional
        A name holding c(q̇), for s(q̇) to reuse (default: c's code again).

    Returns
    -------
    c, s : str, str or None
        s is None without a Stribeck term.
    """
    smooth = model is not None and model.coulomb == "smooth"
    c = f"tanh({qd} / {language.number(model.velocity)})" if smooth else language.sign.format(x=qd)
    if model is None or model.stribeck is None:
        return c, None
    ratio = f"({qd} / {language.number(model.stribeck)})"
    return c, f"exp(-{language.square.format(x=ratio)}) * {coulomb or c}"


def friction_shapes(robot, qd, sign_width=None):
    """Coulomb and Stribeck shape values of every joint at velocities ``qd``.

    Parameters
    ----------
    robot : Robot
    qd : ndarray, shape (n_dof, n_samples)
        Joint velocities, joints first.
    sign_width : ndarray, shape (n_dof,), optional
        Per joint, replace sign(q̇) by tanh(q̇/w) (see :meth:`FrictionModel.coulomb_shape`).

    Returns
    -------
    sgn, stb : ndarray, shape (n_dof, n_samples)
        c(q̇) per joint, and s(q̇) (zero for joints without a Stribeck term).

    Raises
    ------
    ArgumentError
        ``qd`` not of shape (n_dof, n_samples) or (n_dof,), or with a non-finite or absurd value; ``sign_width`` not
        n_dof finite widths > 0 (ArgumentTypeError: ``robot`` no Robot).
    """
    return shapes_at(*_checked(robot, qd, sign_width))


def friction_slopes(robot, qd, sign_width=None):
    """dc/dq̇ and ds/dq̇ of :func:`friction_shapes`, same arguments and checks; shapes (n_dof, n_samples) each.

    sign(q̇) has slope 0 wherever it is defined; its surrogate tanh(q̇/w) has (1 − tanh²)/w.
    """
    return slopes_at(*_checked(robot, qd, sign_width))


def shapes_at(robot, qd, sign_width=None):
    """:func:`friction_shapes` of arguments the library has checked (states of the dynamics, a log's velocities, which
    may hold NaN where a sample is left out): no checks, on the path of every call of the dynamics."""
    return _per_joint(robot, qd, sign_width, "coulomb_shape", "stribeck_shape")


def slopes_at(robot, qd, sign_width=None):
    """:func:`friction_slopes` of arguments the library has checked (as :func:`shapes_at`)."""
    return _per_joint(robot, qd, sign_width, "coulomb_slope", "stribeck_slope")


def _checked(robot, qd, sign_width):
    """The arguments of :func:`friction_shapes` checked (the robot, then each array's shape before its values): else
    a non-robot would be an AttributeError, a ragged ``qd`` numpy's ValueError, a NaN one NaN shapes, a ``sign_width``
    of the wrong length an IndexError and a zero one NaN."""
    require_robot_below(robot)
    n = robot.n_dof
    arr = real_array("qd", qd)          # (its float copy within the memory budget)
    if arr.ndim not in (1, 2) or arr.shape[0] != n:
        raise ArgumentError(f"qd: expected shape ({n}, n_samples) (joints first) or ({n},), got {arr.shape}")
    check_memory(24 * arr.size, lambda need, allowed: f"qd: {arr.size} values (two results and a temporary of their "
                                                      f"size) would need {need} of memory, more than the {allowed} "
                                                      "available; pass fewer samples")
    check_state_values("qd", arr.T if arr.ndim == 2 else arr[None, :])    # finite, within the states' bound
    if sign_width is not None:
        width = real_array("sign_width", sign_width)
        if width.shape != (n,) or not (width > 0).all() or not np.isfinite(width).all():
            raise ArgumentError(f"sign_width: expected {n} finite widths > 0 (one per joint), got {shown(sign_width)}")
        sign_width = width
    return robot, arr, sign_width


def _per_joint(robot, qd, sign_width, coulomb_method, stribeck_method):
    """The default model's ``coulomb_method`` (sign(q̇) or its surrogate tanh(q̇/w): values or slopes) of
    every joint, shape (n_dof, n_samples), the rows of joints that declare a friction model replaced by that
    model's ``coulomb_method``; and the Stribeck rows by its ``stribeck_method`` (zero for joints without one)."""
    widths = None if sign_width is None else np.asarray(sign_width, dtype=float)[:, None]
    coulomb = getattr(DEFAULT, coulomb_method)(qd, widths)
    stribeck = np.empty_like(qd)         # np.zeros_like's layout and dtype, without its µs of Python (per sample)
    stribeck.fill(0)
    for k, joint in enumerate(robot.joints):
        model = joint.friction_model
        if model is None or model.is_default:
            continue
        if model.unresolved:           # said here, where the joint is known (the model's own check cannot name it)
            refuse_unresolved(robot)
        width = None if sign_width is None else sign_width[k]
        coulomb[k] = getattr(model, coulomb_method)(qd[k], width)
        if model.stribeck is not None:
            stribeck[k] = getattr(model, stribeck_method)(qd[k], width)
    return coulomb, stribeck


def refuse_unresolved(robot, *, error=ArgumentError, purpose="to evaluate the friction without data", label=None):
    """Raise ``error`` naming the robot (``label``, the file it was read from, when the caller knows it: the command
    line) and the first joint whose friction model leaves a scale ``'auto'`` (which identification chooses from
    training data), if any: evaluating or exporting the friction needs the number. One message for every caller
    (``purpose`` says what the number is for), in the parameter's words, which the command line shows as
    ``--friction-model``."""
    for k, joint in enumerate(robot.joints):
        model = joint.friction_model
        if model is not None and model.unresolved:
            raise error(f"{shown(robot.name) if label is None else printable(os.fsdecode(label))}: "
                        f"joints[{k + 1}].friction_model: the {' and '.join(model.unresolved)} "
                        f"scale is 'auto', which identification chooses from training data; give the number "
                        f"{purpose}, e.g. friction_model='{_with_numbers(model)}'")


def _with_numbers(model, number=0.05):
    """``model`` as ``friction_model`` text, ``number`` for its 'auto' scales: the refusal's example keeps the
    model's terms ('smooth:0.05' for a Stribeck model would drop its Stribeck term, and its column)."""
    terms = (("smooth", model.velocity if model.coulomb == "smooth" else None), ("stribeck", model.stribeck))
    return "+".join(f"{name}:{number if value == AUTO else _number(value)}" for name, value in terms
                    if value is not None)


def with_friction_model(robot, model: Optional[FrictionModel] = None, *, coulomb: bool = True):
    """The robot with ``model`` on every joint that declares friction (``coulomb=False``: the Coulomb
    term left out, for sensors that see none).

    Parameters
    ----------
    robot : Robot
    model : FrictionModel, optional
    coulomb : bool
        False drops FC (and any Stribeck term) from every joint.
    """
    require_robot_below(robot)      # a public name: a non-robot refused, not an AttributeError inside
    if model is not None and coulomb and not any("FC" in j.friction_terms for j in robot.joints):
        warn(f"{robot.name}: a friction model is given, but no joint declares Coulomb friction (friction: "
             "true, or friction=True); it changes nothing: declare the friction, or leave the friction model out",
             DescriptionWarning)
    joints = []
    for j in robot.joints:
        if not coulomb:
            changes = {"friction": (j.friction[0], False, j.friction[2]), "friction_model": None}
        else:
            changes = {} if model is None else {"friction_model": None if model.is_default else model}
        joints.append(replace(j, **changes) if j.friction_terms else j)     # a joint without friction as it is
    # a URDF's text stays its source (see with_drives)
    return replace(robot, joints=tuple(joints), source=robot.source if robot.from_urdf_text else None)


def parse_friction_model(text: str) -> tuple:
    """A ``friction_model`` given as text (the CLI's ``--friction-model``): ``sign``, ``smooth[:V|auto]``,
    ``stribeck[:V|auto]``, ``smooth+stribeck``, ``none`` → (FrictionModel or None, coulomb kept).

    Raises
    ------
    ArgumentError
        On anything else (one line saying what is accepted).
    """
    accepted = ("expected sign, smooth[:V], stribeck[:V], smooth[:V]+stribeck[:V] or none "
                "(V a velocity scale in rad/s or m/s, or auto)")
    text = str(text).strip().lower()
    if text == "none":
        return None, False
    coulomb, velocity, stribeck = "sign", None, None
    seen = {}
    for part in text.split("+"):
        name, _, value = part.partition(":")
        # 'smooth:0.1+smooth:0.2' kept the last scale, 'sign+smooth' the smooth shape: silently one of two
        shape = "coulomb" if name.strip() in ("sign", "smooth") else name.strip()
        if shape in seen:
            raise ArgumentError(f"friction_model: {shown(seen[shape])} and {shown(part)}: "
                                f"{'one Coulomb shape (sign or smooth)' if shape == 'coulomb' else 'one stribeck term'}"
                                " per model")
        seen[shape] = part
        value = value.strip() or AUTO
        if value != AUTO:
            try:
                value = plain_float(value)
            except ValueError:
                raise ArgumentError(f"friction_model: {shown(part)}: {accepted}") from None
            # in the words of the text given (the model's would name its class to a command-line user)
            value = _scale(value, f"friction_model: {shown(part)}", ArgumentError)
        if name.strip() == "sign" and not _:
            continue
        if name.strip() == "smooth":
            coulomb, velocity = "smooth", value
        elif name.strip() == "stribeck":
            stribeck = value
        else:
            raise ArgumentError(f"friction_model: {shown(part)}: {accepted}")
    return FrictionModel(coulomb, velocity, stribeck), True      # each part checked above: a valid model


__all__ = ["AUTO", "COULOMB_SHAPES", "DEFAULT", "FrictionModel", "friction_shapes", "friction_slopes",
           "parse_friction_model", "shape_code", "with_friction_model"]
