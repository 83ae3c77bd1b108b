"""Payload identification: a tool on the flange as one more rigid body fixed to the last link.

The payload's 10 standard parameters (pseudo parameterization, in the frame of the link the last
joint moves) enter the joint torques through that link's columns of the standard regressor:
τ_payload = W_last(q, q̇, q̈) p_payload. The torque it explains is the measured torque minus the
robot model's prediction, or — with logs of the same motion without the payload — the loaded minus
the unloaded torque (samples matched by time; what the model gets wrong cancels).

Which of the 10 parameters the data can tell: with the rest of the robot known, exactly the
projection onto the last link's coordinates of the base set's regroupings (the row space of
``Y[:, last link]``); its rank and reduced echelon form name the identifiable combinations.

The fit: OLS (per-joint weights from the residual), standard deviations σ²(AᵀA)⁻¹ inflated by the
correlation of low-passed noise (as :func:`~baseparam.identify`), then the physically consistent
estimate (pseudo-inertia positive semidefinite, mass ≥ 0; cvxpy + CLARABEL) in the metric of that
covariance. The standard deviations of mass, centre of mass and inertia about it are first-order
(delta method) from the OLS covariance.

The result's outputs live beside: :mod:`.payload_vendors` (a controller's format, in its flange frame) and
:mod:`.payload_descriptions` (the robot carrying the payload as YAML, URDF or MJCF).
"""
from __future__ import annotations

import dataclasses
from functools import partial
from numbers import Integral, Real
from typing import Optional

import numpy as np

from .._checks import counted, is_file_name, shown
from .._warnings import warn
from .._validation import (check_field_kinds, check_field_shapes, check_finite_fields, check_instance,
                           check_name_fields, check_option, check_parameter_range, check_samples, float_fields)
from ..errors import ArgumentError, ArgumentTypeError, DataError, DataWarning, SettingsError, printable
from ..model.attach import payload_body, with_payload
from ..model.checks import INERTIA_TOLERANCE, inertia_problem
from ..model.loading import load_robot
from ..model.parameters import ColumnLayout, body_parameters, described_parameters, shaped_friction_terms
from ..model.robot import Robot, require_fixed_base, require_robot
from ..model.value import Model
from ..motion import interp_columns
from .preprocessing import Preprocessing, Processed, preprocess
from ._inputs import _as_trajectories, check_joints
from ._payload_math import (NAMES, _check_target, _echelon, _fit_payload, body_inertia, frame_change,
                            payload_parameters, payload_physical, pseudo_matrix)
from .payload_descriptions import description_text
from .payload_static import _check_still, identify_static
from .payload_vendors import flange_placement, frame_said, vendor_format

# Below this mass (kg) a payload is no payload: joint torques do not tell a gram (a gripper's screw weighs more),
# and a log without any payload fits a few 1e-5 kg at a few σ (model and filtering residue), whose centre of mass,
# first moments over that mass, lands decimetres off.
MASS_FLOOR = 1e-3

__all__ = ["PayloadResult", "identify_payload", "payload_parameters", "payload_physical", "same_arm"]

MATCH_TOLERANCE = 0.02          # rad (or m): the largest RMS position difference of a loaded and an unloaded log


@dataclasses.dataclass(frozen=True, eq=False)    # arrays have no truth value: == raised ValueError
class PayloadResult:
    """An identified payload, in the frame of the link the last joint moves (SI).

    Attributes
    ----------
    mass : float
    com : ndarray, shape (3,)
    inertia : ndarray, shape (3, 3)
        About the centre of mass.
    mass_std : float
    com_std : ndarray, shape (3,)
    inertia_std : ndarray, shape (3, 3)
    parameters : ndarray, shape (10,)
        Pseudo parameters XX YY ZZ XY XZ YZ SX SY SZ M of the consistent estimate.
    unconstrained : ndarray, shape (10,)
        The least-squares estimate (minimum norm in the unidentifiable directions).
    covariance : ndarray, shape (10, 10)
        Of ``unconstrained``.
    identifiable : list of str
        The identifiable combinations of the 10 parameters (all ten: their names).
    rank : int
    mode : str
        'model' (measured − model) or 'difference' (loaded − unloaded).
    n_samples : int
    rmse : ndarray, shape (n_dof,)
        Of the payload torque's residual (of the wrench's six components in mode 'wrench').
    condition_number : float or None
        Mode 'static': cond of the still poses' gravity columns SX SY SZ M, scaled to unit norm.
    poses : ndarray, shape (P, n_dof), or None
        Mode 'static': the still poses found (averaged positions).
    robot : Robot or None
        The robot whose last link frame the payload is in (:func:`identify_payload`'s ``robot``, else its model's):
        :meth:`attach` and :meth:`robot_text` refuse another robot or arm, and carry the payload into the last link
        frame of a description of this arm that places it otherwise. None (a result built by hand): taken on the
        caller's word.

    Notes
    -----
    Mode 'static' (still poses) sees mass and centre of mass only: ``inertia`` is then zero (a point
    mass, as the vendors' formats take it when none is given) and ``inertia_std`` NaN.
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    mass_std: float
    com_std: np.ndarray
    inertia_std: np.ndarray
    parameters: np.ndarray
    unconstrained: np.ndarray
    covariance: np.ndarray
    identifiable: list
    rank: int
    mode: str
    n_samples: int
    rmse: np.ndarray
    condition_number: Optional[float] = None
    poses: Optional[np.ndarray] = dataclasses.field(default=None, repr=False)
    robot: Optional[Robot] = dataclasses.field(default=None, repr=False, compare=False)

    def __post_init__(self):
        # built by hand (the class is exported): attach, robot_text and to_vendor would carry a NaN estimate into
        # a robot or a controller's format; the standard deviations may be NaN (undetermined, documented)
        float_fields(self, ("com", "inertia", "com_std", "inertia_std", "parameters", "unconstrained", "covariance",
                            "rmse", "poses"))
        check_field_shapes(self, {"com": (3,), "inertia": (3, 3), "com_std": (3,), "inertia_std": (3, 3),
                                  "parameters": (10,), "unconstrained": (10,), "covariance": (10, 10), "rmse": ("n",),
                                  "poses": ("n_poses", "n_dof")}, optional=("poses",))
        number = (Real, "a number")
        check_field_kinds(self, {"mass": number, "mass_std": number, "condition_number": ((Real, None), "a number or "
                                                                                           "None"),
                                 "rank": (Integral, "a whole number"), "n_samples": (Integral, "a whole number"),
                                 "mode": (str, "a str"), "robot": ((Robot, None), "a bp.Robot or None")})
        check_finite_fields(self, ("mass", "com", "inertia", "parameters", "rmse"))
        # its square bounds the inertia's slack (_check_physical): com × 1e200 overflowed there (numpy's raw warning,
        # and an infinite slack that takes any inertia)
        check_parameter_range("PayloadResult.com", self.com, "a centre of mass in m")
        check_name_fields(self, ("identifiable",))       # joined into its summary and to_dict
        if len(self.identifiable) > 10:         # combinations of the 10 payload parameters
            raise ArgumentError(f"PayloadResult.identifiable: {len(self.identifiable)} combinations; expected at most "
                                f"10 (of the payload's 10 parameters)")
        _check_counts(self)
        _check_physical(self)
        _check_deviations(self)
        if self.mass <= 0:
            # no mass: no centre (com is then 0) nor inertia about it, not known to be 0 ± 0 — for every fit (the
            # consistent estimate's solver keeping a mass below zero, the still poses' clipped at 0) and a result
            # built by hand alike
            object.__setattr__(self, "com_std", np.full(3, np.nan))
            object.__setattr__(self, "inertia_std", np.full((3, 3), np.nan))

    @property
    def mass_detected(self) -> bool:
        """Whether the data tell a payload from none: the mass determined, at least 3 σ and :data:`MASS_FLOOR`
        (1 g), and the least-squares mass before the fit made it physical not below zero beyond these
        (:func:`_below_zero`). Otherwise the centre of mass (first moments over a mass of about 0, or the body the
        consistent fit put next to a negative one) and the inertia mean nothing, and :meth:`to_dict` gives no
        vendor formats."""
        return bool(np.isfinite(self.mass_std) and self.mass >= max(3.0 * self.mass_std, MASS_FLOOR)
                    and not _mass_below_zero(self))

    def __repr__(self):
        com = ", ".join(f"{1e3 * v:.1f}±{1e3 * s:.1f}" if np.isfinite(s) else f"{1e3 * v:.1f}±?"
                        for v, s in zip(self.com, self.com_std))
        mass_std = f"{self.mass_std:.2g}" if np.isfinite(self.mass_std) else "?"
        return (f"PayloadResult(mass={self.mass:.4g}±{mass_std} kg, com=[{com}] mm, "
                f"principal moments={np.round(np.linalg.eigvalsh(self.inertia), 6).tolist()} kg·m², "
                f"rank {self.rank}/10, {self.mode})")

    def summary(self):
        """Text: mass, centre of mass and inertia about it with standard deviations, and what is identifiable."""
        def std(s, digits):     # a deviation that rounds to 0 (a 0 kg payload's) is shown, not hidden
            if not np.isfinite(s):      # NaN: not determined by these data (null in the JSON), not a number to read
                return "undetermined"
            return f"{s:.2g}" if 0 < s < 0.5 * 10.0 ** -digits else f"{s:.{digits}f}"

        com_std, inertia_std = self.com_std, self.inertia_std      # NaN without a mass (__post_init__)
        lines = [f"payload ({self.mode}, {counted(self.n_samples, 'samples')}), in the frame of the link the last "
                 "joint moves:",
                 f"  mass     {self.mass:.4f} ± {std(self.mass_std, 4)} kg",
                 "  com      " + "  ".join(f"{v:+.4f} ± {std(s, 4)}" for v, s in zip(self.com, com_std)) + " m",
                 "  inertia about the com (kg·m²):"]
        if not self.mass_detected:      # said by a warning and the JSON (no vendor format): the text says it too
            below = _below_zero(self) if np.isfinite(self.mass_std) else None     # undetermined: said first
            lines.insert(2, ("  the mass is not determined by these data" if not np.isfinite(self.mass_std) else
                             f"  {below}" if below else
                             f"  no payload seen: the mass is not told from none (below 3 σ or {MASS_FLOOR * 1e3:g} "
                             "g)") + ": the centre of mass and inertia mean nothing, and no vendor format is given")
        if self.mode == "static":
            # condition_number and poses are optional fields: a result built by hand may leave them None
            cond = "" if self.condition_number is None else f"cond {self.condition_number:.3g} over "
            lines[-1] = (f"  still poses see mass and centre of mass only (inertia not identified; a point mass); "
                         f"{cond}{self.n_samples} poses")
        else:
            for row, srow in zip(self.inertia, inertia_std):
                lines.append("    " + "  ".join(f"{v:+.5f} ± {std(s, 5)}" for v, s in zip(row, srow)))
        if self.mode == "static" and self.rank < 4:
            lines.append(f"  only {self.rank} of mass and first moments are identifiable: "
                         + "; ".join(self.identifiable))
        elif self.mode != "static" and self.rank < 10:
            lines.append(f"  only {self.rank} of the 10 parameters are identifiable, as these combinations: "
                         + "; ".join(self.identifiable)
                         + ("; the vendors' formats carry the inertia's other directions as the fit fills them, not "
                            "as measured" if self._no_vendor_format() is None else ""))
        return "\n".join(lines)

    def to_vendor(self, vendor, flange=None):
        """The payload in a controller's format, in its units: SI, but KUKA's centre in mm and angles in degrees.

        In the last link's frame by default (for the UR10e description, DH frame 6 = the flange ``tool0``); a
        controller whose flange frame is another (a Panda's DH frame 7 is 0.107 m short of its flange; a URDF's
        ``wrist_3_link`` is turned against its ``tool0``) takes ``flange``.

        Parameters
        ----------
        vendor : {'ur', 'kuka', 'franka'}
            'ur': ``set_target_payload(mass, cog, inertia)`` with inertia [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]
            about the centre of gravity; 'kuka': load data M (kg), X Y Z (mm), A B C (degrees: the principal axes as
            rotations about Z, Y', X'') and JX JY JZ (kg·m²) about them; 'franka': ``m_load``, ``F_x_Cload``,
            ``I_load`` (the 3×3 tensor column-major, 9 numbers).
        flange : str or sequence of 6 floats, optional
            The controller's flange frame in the last link's: a link of :attr:`robot`'s URDF fixed to the last
            link (``'tool0'``, ``'panda_link8'``), or x, y, z (m), roll, pitch, yaw (rad; R = Rz(yaw) Ry(pitch)
            Rx(roll), as a URDF ``<origin>``). The centre of mass and the inertia's axes are then given in it.

        Returns
        -------
        dict
            Of plain floats (lists of them), none of them −0.0.

        Raises
        ------
        DataError
            When the data do not determine the mass or the centre of mass, or do not tell the mass from none
            (:attr:`mass_detected`), as :meth:`to_dict` then gives no vendor format: a controller would load a 0 kg
            or 2 m value as if measured.
        """
        check_option(vendor, "vendor", ("ur", "kuka", "franka"), error=SettingsError)
        placement = flange_placement(self.robot, flange)
        reason = self._no_vendor_format()
        if reason is not None:
            raise DataError(f"payload: {reason}: no vendor format")
        return vendor_format(self.mass, self.com, self.inertia, vendor, placement)

    def _no_vendor_format(self):
        """Why no controller's format is given (:meth:`to_vendor` refused, :meth:`to_dict`'s vendors None), or None:
        :meth:`_unattachable`'s reasons, or a centre of mass the data do not determine."""
        reason = self._unattachable()
        if reason is None and not np.isfinite(self.com_std).all():
            return "the centre of mass is not determined by these data"
        return reason

    def _unattachable(self):
        """Why this payload is no body to add to a robot (:meth:`attach`, :meth:`robot_text`), or None: the mass not
        determined, or not told from none (:attr:`mass_detected`), as the vendors' formats are left out of
        :meth:`to_dict` — ``payload --robot-out`` added a centre of mass 7·10⁹ m off (refused by the body's own check,
        naming no file) or 0.07 kg·m² of noise to the last link of a robot that carries nothing.

        Returns
        -------
        str or None
        """
        if not np.isfinite(self.mass_std):
            return "the mass is not determined by these data"
        if self.mass_detected:
            return None
        return _below_zero(self) or (f"mass {self.mass:.2g} ± {self.mass_std:.2g} kg is not told from none (below 3 σ "
                                     f"or {MASS_FLOOR * 1e3:g} g): no payload seen, its centre of mass and inertia "
                                     "mean nothing")

    def attach(self, robot):
        """``robot`` with this payload added to its last link's body (:func:`~baseparam.model.attach.with_payload`):
        inverse and forward dynamics, ``export`` and ``identify`` of the Robot returned include it.

        Parameters
        ----------
        robot : Robot, Model or str
            The robot the payload was identified on (a description file is read), or a
            :class:`~baseparam.Model` (e.g. identified, with standard parameters): its last link's parameters
            then get the payload's added.

        Returns
        -------
        Robot or Model

        Raises
        ------
        DataError
            When the data do not determine the mass or do not tell it from none (:attr:`mass_detected`): its centre
            of mass and inertia mean nothing.
        ArgumentError
            ``robot`` is not the arm of :attr:`robot` (other joints, an axis placed otherwise, gravity). The same arm
            described with its last link frame placed otherwise (a DH table's and a URDF's) gets the payload carried
            into that frame.
        """
        reason = self._unattachable()
        if reason is not None:
            raise DataError(f"payload: {reason}: no body to attach")
        if isinstance(robot, Model):
            p = np.array(robot.values(), dtype=float)
            body = payload_body(robot.robot, *self._carried(robot.robot))
            p[ColumnLayout(robot.robot, robot.parameters).link_columns[-1]] += body_parameters(body, robot.parameters)
            return robot.with_parameters(p)
        robot = load_robot(robot) if is_file_name(robot) else robot
        return with_payload(robot, *self._carried(robot))

    def _carried(self, robot):
        """Mass, centre of mass and inertia about it in the last link frame of ``robot``: :attr:`robot`'s arm (else
        ArgumentError), across the constant transform between their last link frames (none when they agree to
        1e-9 m). ``attach(another_robot)`` put the numbers of one frame into another robot's last link unchecked."""
        mass, com, inertia = float(self.mass), np.asarray(self.com, float), body_inertia(self.inertia)
        if self.robot is None or robot is self.robot:
            return mass, com, inertia
        robot = require_robot(robot)
        own, other = (printable(r.source_file or r.name) for r in (self.robot, robot))
        kinds, differs, last = _relation(self.robot, robot)     # last: self.robot's last link frame in robot's
        if kinds[0] != kinds[1]:
            differs = f"its joints ({kinds[1]} for {kinds[0]})"
        if differs is not None:
            raise ArgumentError(f"robot: {other} is not the arm the payload was identified on ({own}): {differs} "
                                "differs (the payload is in the frame of that arm's last link)")
        if last is None:
            return mass, com, inertia
        R = last[:3, :3]
        return mass, R @ com + last[:3, 3], R @ inertia @ R.T

    def robot_text(self, robot, fmt):
        """The description of ``robot`` with this payload, as the other commands read it.

        Parameters
        ----------
        robot : Robot or str
            The robot, or its description file.
        fmt : {'yaml', 'urdf', 'mjcf'}
            'urdf' from a robot read from a URDF: its text, with the payload as one more link on a fixed
            joint to the last link (:func:`~baseparam.model.attach.urdf_with_payload`); from another robot,
            a new URDF of the robot with the payload in its last link. 'mjcf': MuJoCo's MJCF of the robot with
            the payload in its last body (:func:`~baseparam.model.mjcf_writer.robot_to_mjcf`: a URDF robot's
            geometry kept, its meshes looked for beside its file), the drives the description gives values of
            as ``damping``, ``frictionloss`` and ``armature``.

        Returns
        -------
        str
        """
        check_option(fmt, "fmt", ("yaml", "urdf", "mjcf"), error=SettingsError)
        robot = require_robot(load_robot(robot) if is_file_name(robot) else robot)    # a file, as attach takes
        return description_text(robot, self.attach(robot), partial(self._carried, robot), fmt)

    def to_dict(self, flange=None):
        """JSON-ready dict: mass, com, inertia and their standard deviations (None where the data do not determine
        them), the details and the vendors' formats (:meth:`to_vendor`, in the frame ``flange`` names, said by
        ``vendor_frame``; None where the mass or the centre of mass is not determined, or the mass not told from
        none: :attr:`mass_detected`)."""
        from .._numbers import json_float, json_floats

        placement = flange_placement(self.robot, flange)    # a bad flange refused, vendor formats given or not

        # a standard deviation the data do not determine is NaN in the result, null (None) here; a controller's
        # format takes the mass and centre of mass as known: none where the data leave one of them undetermined
        # (a 0 kg or 2 m value would be loaded as if measured); nor where no payload is seen (a centre of mass 0.3 m
        # off for 3e-5 kg)
        determined = self._no_vendor_format() is None
        vendors = ({v: vendor_format(self.mass, self.com, self.inertia, v, placement) for v in ("ur", "kuka", "franka")}
                   if determined else None)
        # vendor_inertia says what the formats' inertia is: none without them (it said 'partly identified')
        doc = {"vendors": vendors, "vendor_frame": frame_said(flange),
               "vendor_inertia": self._vendor_inertia() if determined else None,
               "mass": self.mass, "mass_std": json_float(self.mass_std), "com": self.com.tolist(),
               "com_std": json_floats(self.com_std), "inertia": self.inertia.tolist(),
               "inertia_std": [json_floats(row) for row in self.inertia_std], "frame": "the link the last joint moves",
               "parameters": dict(zip(NAMES, self.parameters.tolist())), "rank": self.rank,
               "identifiable": list(self.identifiable), "mode": self.mode, "n_samples": self.n_samples,
               "rmse": self.rmse.tolist()}
        if self.mode == "static":           # still poses see no inertia
            doc.update(inertia=None, inertia_std=None, condition_number=self.condition_number,
                       poses=None if self.poses is None else self.poses.tolist())
        return doc

    def _vendor_inertia(self):
        """What the inertia of the vendors' formats is: ``'identified'`` when the data determine all ten parameters;
        ``'partly identified'`` when they determine fewer (a wrist of fewer than three joints: the directions they do
        not see are filled by the fit, not measured, and a controller would load them as measured); ``'point mass'``
        in mode static (still poses see no inertia: zero)."""
        if self.mode == "static":
            return "point mass"
        return "identified" if self.rank >= 10 else "partly identified"


# How far a result's body may lie outside the physical ones: a fit's consistent estimate is physical to CLARABEL's
# tolerance only, relative to the body's scale (its pseudo-inertia's largest eigenvalue) for a body of ~1 and absolute
# (the solver's feasibility tolerance, 1e-8) for a smaller one. Measured over the payload tests' fits and 2 000 random
# wrench fits (no payload to 500 kg, noise 1e-6 to 0.1, rods): at most 3.5e-6 of the scale (-7.9e-11 beside 2.2e-5, a
# fit of no payload) and -9e-17 beside 1e-16 (an exact log of no payload).
PHYSICAL_TOLERANCE = 1e-5
SOLVER_FEASIBILITY = 1e-8


def _check_counts(result):
    """Refuse a rank beyond the parameters the mode sees (10; 4 at rest) or a count of samples below 0."""
    high = 4 if result.mode == "static" else 10
    if not 0 <= result.rank <= high:
        raise ArgumentError(f"PayloadResult.rank: expected a whole number from 0 to {high}, got {result.rank}")
    if result.n_samples < 0:
        raise ArgumentError(f"PayloadResult.n_samples: expected a whole number ≥ 0, got {result.n_samples}")


def _check_physical(result):
    """Refuse a :class:`PayloadResult` no body gives: a mass below zero, pseudo parameters whose pseudo-inertia is not
    positive semidefinite, an inertia about the centre of mass that is not symmetric or not physical (a negative
    principal moment, the triangle inequality violated). ``attach``, ``robot_text`` and the vendors' formats would
    carry it into a robot or a controller. Every fit's result passes: :data:`PHYSICAL_TOLERANCE` of the
    pseudo-inertia's scale (at least :data:`SOLVER_FEASIBILITY`) is left for the solver, and for the inertia about
    the centre, the pseudo-inertia's Schur complement (second moments Σc = Σ − m c cᵀ), that slack times (1 + |c|²)
    per eigenvalue of Σc (twice that per principal moment)."""
    eigenvalues = np.linalg.eigvalsh(pseudo_matrix(result.parameters))
    slack = max(PHYSICAL_TOLERANCE * float(np.abs(eigenvalues).max()), SOLVER_FEASIBILITY)
    if result.mass < -slack:
        raise ArgumentError(f"PayloadResult.mass: expected a mass ≥ 0 kg, got {shown(result.mass)}")
    if eigenvalues[0] < -slack:
        raise ArgumentError(f"PayloadResult.parameters: not a body's: its pseudo-inertia has a negative eigenvalue "
                            f"({eigenvalues[0]:.6g} beside {eigenvalues[-1]:.6g}); expected it positive semidefinite")
    inertia = result.inertia
    inertia_slack = 2.0 * slack * (1.0 + float(result.com @ result.com))
    asymmetry = np.abs(inertia - inertia.T)
    if asymmetry.max() > max(INERTIA_TOLERANCE * float(np.abs(inertia).max()), inertia_slack):
        i, j = np.unravel_index(np.argmax(asymmetry), asymmetry.shape)
        raise ArgumentError(f"PayloadResult.inertia: expected a symmetric matrix, got [{i + 1}][{j + 1}] = "
                            f"{float(inertia[i, j])!r} but [{j + 1}][{i + 1}] = {float(inertia[j, i])!r}")
    problem = inertia_problem(inertia, slack=inertia_slack)
    if problem is not None:
        raise ArgumentError(f"PayloadResult.inertia: {problem[1]}")


def _check_deviations(result):
    """Refuse a standard deviation, RMSE or condition number below zero (NaN: undetermined, as the fits say)."""
    for field in ("mass_std", "com_std", "inertia_std", "rmse", "condition_number"):
        value = getattr(result, field)
        if value is not None and (np.asarray(value) < 0).any():         # NaN compares False
            raise ArgumentError(f"PayloadResult.{field}: expected numbers ≥ 0 (NaN where undetermined), got "
                                f"{shown(value if np.ndim(value) == 0 else np.asarray(value).tolist())}")


def same_arm(robot, model, label="model", robot_name=None, model_name=None):
    """Check that ``model`` (whose kinematics and bodies the payload is fitted with) describes the arm of ``robot``
    (whose last link the payload is reported on and attached to), and how their last link frames relate: the same
    joint types, axes and gravity to 1 mm (:func:`~baseparam.model.dh_equivalent.arm_relation`; their base frames
    may differ by a rigid motion, and their last link frames by another: a DH table's frame n and a URDF's link
    frame, ``robots/ur10e.yaml``'s ``tool0`` and ``ur10e_cad.yaml``'s ``wrist_3_link``).

    Parameters
    ----------
    robot, model : Robot
    label : str
        What the refusal names first (``model`` here, ``--model`` on the command line).
    robot_name, model_name : str, optional
        The descriptions' names in the refusal (default: their files, else their names).

    Returns
    -------
    ndarray, shape (10, 10), or None
        :func:`~._payload_math.frame_change` of ``robot``'s last link frame in ``model``'s: the map of the payload's
        parameters in ``robot``'s frame to ``model``'s; None when the two frames are one (1e-9 m).

    Raises
    ------
    SettingsError
        Another robot (other joint types) or another arm (an axis placed otherwise, gravity).
    """
    robot, model = require_robot(robot), require_robot(model, "model")
    robot_name = robot_name or robot.source_file or robot.name
    model_name = model_name or model.source_file or model.name
    kinds, differs, last = _relation(robot, model)
    if kinds[0] != kinds[1]:
        # the payload's frame is the model's last link: on another robot's last link it means nothing
        raise SettingsError(f"{label}: {robot_name} ({kinds[0]}) is not the robot of {label} {model_name} "
                            f"({kinds[1]})")
    if differs is not None:
        raise SettingsError(f"{label}: {model_name} is not the arm of {robot_name}: {differs} differs (a model holds "
                            f"the bodies of {robot_name}'s own arm, its frames placed as it likes)")
    return None if last is None else frame_change(last)


def _relation(robot, other):
    """How ``other`` describes ``robot``'s arm, for :func:`same_arm` and :meth:`PayloadResult._carried`: their joint
    types as letters (``('RRRRRR', 'RRRRRR')``); when those agree, what differs between the arms or None
    (:func:`~baseparam.model.dh_equivalent.arm_relation`'s words); and ``robot``'s last link frame in ``other``'s
    (4×4), None when both put it at one place (to 1e-9 m) or the arms differ."""
    from ..model.dh_equivalent import TOLERANCE, arm_relation

    kinds = tuple("".join(j.type[0].upper() for j in r.joints) for r in (robot, other))
    if kinds[0] != kinds[1]:
        return kinds, None, None
    differs, last = arm_relation(robot, other)
    return kinds, differs, None if last is None or np.abs(last - np.eye(4)).max() <= TOLERANCE else last


def identifiable_combinations(base, columns, carry=None):
    """Rank and the identifiable combinations of one link's 10 parameters, given the other links.

    Parameters
    ----------
    base : BaseParameters
    columns : ndarray of int, shape (10,)
    carry : ndarray, shape (10, 10), optional
        The parameters in another frame mapped to the link's (:func:`same_arm`): the combinations of those.

    Returns
    -------
    rank : int
    rows : ndarray, shape (rank, 10)
        Reduced row echelon basis of the row space of ``Y[:, columns]``.
    text : list of str
    """
    Y = np.asarray(base.Y, dtype=float)[:, columns]
    if carry is not None:
        Y = Y @ carry
    scale = max(np.abs(Y).max(), 1.0)
    _, s, Vt = np.linalg.svd(Y)
    rank = int((s > 1e-9 * scale).sum())
    R, text = _echelon(Vt[:rank], NAMES)
    return rank, R, text


def _shift(t, q, tu, qu):
    """The time offset δ (s) that best lines up q(t) with qu(t + δ): the two logs rarely start at the
    same point of the motion. A coarse search over ±10 s, then finer steps around the best."""
    def mismatch(d):
        inside = (t + d >= tu[0]) & (t + d <= tu[-1])
        if inside.sum() < 0.5 * len(t):
            return np.inf
        return float(np.mean([np.mean((q[inside, j] - np.interp(t[inside] + d, tu, qu[:, j])) ** 2)
                              for j in range(q.shape[1])]))
    best = 0.0
    for step, span in ((0.1, 10.0), (0.005, 0.2), (0.0002, 0.01)):
        grid = best + np.arange(-span, span + step / 2, step)
        best = float(grid[int(np.argmin([mismatch(d) for d in grid]))])
    return best


def _matched(loaded, unloaded, *signals):
    """Unloaded torque (and states, and ``signals``: arrays of the unloaded samples) at the loaded samples' times, the
    logs lined up by their positions, and which loaded samples have a partner: within the unloaded log's span, and
    not between two samples it leaves out nor across a time gap (ndarray of bool, shape (S,)). It leaves out its
    ends and its rest samples (a joint at rest holds by static friction, which a loaded sample still moving does not
    feel: the difference would not cancel it).
    The ends, where the filter's transients or the one-sided differences make the rates wrong, were matched with
    loaded samples in the middle of the motion when the logs start apart: 0.37 s apart, noise-free, the LWR4+'s
    payload inertia came out 0.38 % of its largest moment off (0.02 % at zero shift), 3.1 % unfiltered."""
    t = loaded.t - loaded.t[0]
    tu = unloaded.t - unloaded.t[0]
    d = _shift(t, loaded.q, tu, unloaded.q)
    te = np.clip(t + d, tu[0], tu[-1])
    out = [interp_columns(te, tu, a) for a in (unloaded.tau, unloaded.q, unloaded.qd, unloaded.qdd, *signals)]
    # logs of another motion line up nowhere: their difference would be the motion's torque, not the payload's
    inside = (t + d >= tu[0]) & (t + d <= tu[-1])
    if inside.sum() < 0.5 * len(t):
        raise DataError(f"{unloaded.source}: covers less than half of the motion of {loaded.source}, however lined "
                        "up: record the same motion without the payload")
    gap = np.sqrt(np.mean((loaded.q[inside] - out[1][inside]) ** 2, axis=0)) if inside.any() else np.full(1, np.inf)
    if not gap.max() <= MATCH_TOLERANCE:
        j = int(np.argmax(np.where(np.isfinite(gap), gap, np.inf)))
        raise DataError(f"{unloaded.source}: does not follow the motion of {loaded.source}: lined up at their best "
                        f"({d:+.3f} s), joint {j + 1} differs by {gap[j]:.3g} rad (RMS; at most {MATCH_TOLERANCE:g}): "
                        "record the same motion without the payload")
    # no partner between two samples left out; one beside a kept sample is kept (a shift of a fraction of a step
    # matches the first kept loaded sample there: as before, to the bit)
    partnered = np.interp(te, tu, unloaded.kept.astype(float)) > 0.0
    return [*out, inside & partnered & ~_in_time_gap(te, tu, unloaded.segment)]


def _in_time_gap(te, tu, segment):
    """Which times ``te`` (S,) fall strictly between two samples of different segments of times ``tu`` (ndarray of
    bool, shape (S,)): a time gap, where interpolation draws a straight line across. Ends left out make those
    samples unpartnered already; with q̇ and q̈ logged nothing is left out, and the 59 loaded samples lined up in an
    unloaded log's 0.3 s gap put the noise-free LWR4+'s payload inertia 0.49 % of its largest moment off."""
    if len(tu) < 2:
        return np.zeros(len(te), bool)
    below = np.clip(np.searchsorted(tu, te, side="right") - 1, 0, len(tu) - 2)
    return (segment[below] != segment[below + 1]) & (te > tu[below]) & (te < tu[below + 1])


def identify_payload(model, loaded, *, unloaded=None, preprocessing: Optional[Preprocessing] = Preprocessing(),
                     parameters="pseudo", friction=False, static=False, still_tolerance=2e-3, still_duration=0.5,
                     wrench=None, sensor=None, wrench_bias=False, robot=None):
    """Identify a payload fixed to the last link from joint torques.

    Parameters
    ----------
    model : Robot, Model or str
        The robot without the payload: its description's true values (a file or a Robot), or a
        :class:`~baseparam.Model` (e.g. identified) whose prediction is subtracted.
    loaded : Trajectory, str, or a list of these
        Logs with the payload (torques; currents are converted by :func:`read_trajectory`'s gains); a file
        name is read by the robot's joint names when it names them (a bag's in another order matched by name).
    unloaded : same as ``loaded``, optional
        Logs of the same motion without the payload, one per loaded log: the payload torque is then
        loaded − unloaded at matched times (corrected by the model for the small difference of states).
    preprocessing : Preprocessing or None
        As :func:`~baseparam.identify`'s, except that the rates a log lacks are derived by the fourth-order
        central stencil (:func:`~baseparam.identification.preprocessing.preprocess`'s ``rates``), not central
        differences, which damp a wide band's acceleration and so bias the mass.
    parameters : {'pseudo', 'khalil'}
        Checked, otherwise without effect (the signature :func:`~baseparam.identify` has): a
        :class:`~baseparam.Model` carries its own parameterization, a Robot's bodies are read as given,
        and the payload is fitted in pseudo parameters either way.
    friction : bool
        Fit, beside the payload, a viscous, a Coulomb and an offset term per joint (nuisance parameters,
        not reported): the load changes the gears' friction, which neither the model nor the unloaded
        log holds. The Coulomb term has the joint's friction model's shape (sign(q̇) by default; a Stribeck
        term gets its column too), low-passed as τ is, as in :func:`~baseparam.identify`.
    static : bool
        Mass and centre of mass from the still poses of the logs (:mod:`~baseparam.identification.payload_static`):
        segments held still for ``still_duration`` s within ``still_tolerance`` rad, averaged (no
        preprocessing); ``unloaded`` then holds the same poses without the payload. At least 4 poses.
    still_tolerance, still_duration : float
    wrench : array_like or list of array_like, optional
        A wrist force/torque sensor's wrench, shape (n_samples, 6) per loaded log (fx fy fz in N, mx my mz in N·m,
        in the sensor frame, sampled at the log's times): the payload then comes from the wrench alone
        (:mod:`~baseparam.identification.payload_wrench`), without the robot's inertias (its kinematics only).
    sensor : array_like, shape (6,), optional
        With ``wrench``: the sensor frame's placement on the last link, x y z (m) and roll pitch yaw (rad,
        URDF's convention); default: the last link's frame.
    wrench_bias : bool
        With ``wrench``: fit an unknown constant offset of each wrench component per log (the sensor's zero).
    robot : Robot or str, optional
        The robot the payload is reported on (in the frame of its last link, the one :meth:`PayloadResult.attach`
        and :meth:`PayloadResult.robot_text` then take) when ``model`` describes it otherwise: e.g. a model identified
        from the arm's URDF for its DH description. Checked to be ``model``'s arm (:func:`same_arm`: another robot or
        arm refused); the payload is fitted in its last link frame, across the constant transform between the two.
        Default: ``model``'s robot.

    Returns
    -------
    PayloadResult
    """
    from functools import partial

    from .._blas import single_threaded
    from ..dynamics.newton_euler import inverse_dynamics
    from ..dynamics.regressors import _evaluate as evaluate
    from ..projection.base_set import find_base_parameters
    from ._least_squares import _independent_fraction

    reported = robot        # `robot` below: the model's
    # accepted for the signature identify has; the payload is fitted in pseudo parameters either way
    check_option(parameters, "parameters", ("pseudo", "khalil"), error=SettingsError)
    for name, flag in (("friction", friction), ("static", static), ("wrench_bias", wrench_bias)):
        check_instance(flag, name, (bool, np.bool_), "True or False")     # 'no' is truthy: never read as a switch
    check_instance(preprocessing, "preprocessing", Preprocessing, "a bp.Preprocessing or None", allow_none=True)
    # whether static or not: a NaN is no setting to ignore
    still_tolerance, still_duration = _check_still(still_tolerance, still_duration)
    if is_file_name(model):
        model = load_robot(model)
    shaped = None               # (p, parameters) predicted with friction shapes where they give Coulomb or Stribeck
    if isinstance(model, Model):
        robot, predicted = model.robot, partial(inverse_dynamics, model)          # predicted(q, qd, qdd)
        shaped = None if model.p is None else _shaped_friction(robot, model.p, model.parameters)
    elif isinstance(model, Robot):
        # the description's values: its bodies, and its friction and rotor inertias where it gives them (they were
        # left out, and a UR10e log of the description's own torques, no payload, gave 1.2 kg "detected": the
        # friction's torques fitted as a payload's); those declared without values are unknown (0 here; with
        # unloaded logs their torques cancel)
        robot = model
        values = described_parameters(robot, "pseudo")
        links = ColumnLayout(robot, "pseudo").link_columns.ravel()
        drives = np.delete(values, links)
        if drives.any():
            predicted = partial(evaluate, robot, parameters="pseudo", weights=values)
            shaped = _shaped_friction(robot, values, "pseudo")
        else:           # the bodies alone: the regressor's columns of the links (the same sums)
            predicted = partial(evaluate, robot, parameters="pseudo", columns=links, weights=values[links])
    else:
        raise ArgumentTypeError(f"model: expected a Robot, a Model or a description file, got {type(model).__name__}")
    # the payload's columns are a fixed base's: a floating base's coordinates lie beyond them (an IndexError)
    require_fixed_base(robot, "payload identification")
    settings = preprocessing or Preprocessing.none()
    carry = None        # the payload's parameters in `reported`'s last link frame mapped to the model's
    if reported is not None:
        if wrench is not None:      # the wrench fit reads no body: the robot is all it takes
            raise SettingsError("robot: the wrench fit uses the kinematics alone (no bodies): give the robot as "
                                "model")
        reported = require_robot(load_robot(reported) if is_file_name(reported) else reported)
        carry = same_arm(reported, robot)
    reported = robot if reported is None else reported      # the robot the result names (model's by default)
    if wrench is not None:
        if static or unloaded is not None or friction:
            raise SettingsError("wrench: the sensor's wrench is the payload's alone; leave out static, unloaded "
                                "and friction")
        from .payload_wrench import identify_from_wrench
        return _reported(PayloadResult(**identify_from_wrench(robot, _as_trajectories(loaded, "loaded", robot), wrench,
                                                              sensor=sensor, preprocessing=settings,
                                                              bias=bool(wrench_bias)), robot=robot))
    if sensor is not None or wrench_bias:
        raise SettingsError(f"{'sensor' if sensor is not None else 'wrench_bias'}: goes with wrench")
    if friction and static:     # taken and ignored before: still poses feel no friction
        raise SettingsError("friction: fits friction terms of moving joints; static averages still poses, which "
                            "feel none; leave one out")

    def raw(data, what):
        return [check_joints(item, robot) for item in _as_trajectories(data, what, robot)]

    if static:
        return _reported(PayloadResult(**identify_static(robot, predicted, raw(loaded, "loaded"),
                                                         None if unloaded is None else raw(unloaded, "unloaded"),
                                                         still_tolerance, still_duration, carry),
                                       robot=reported))

    def prepared(data, what):
        out = []
        for item in raw(data, what):
            # the payload's rates by the fourth-order stencil: central differences, twice, damp a wide band's
            # acceleration (0.76 % at 2.4 Hz in 10 ms samples), which the fit read as +0.26 % of mass (> 1σ)
            item = item if isinstance(item, Processed) else preprocess(item, settings, rates="fourth-order")
            for field in ("q", "qd", "qdd", "tau"):
                # finite but absurd values (torques of 1e300) would overflow the fit into inf/NaN results
                if getattr(item, field, None) is not None:
                    check_samples(f"{item.source}: {field}", getattr(item, field), robot.n_dof,
                                  error=DataError)
            out.append(item)
        return out

    loaded = prepared(loaded, "loaded")
    unloaded = None if unloaded is None else prepared(unloaded, "unloaded")
    if unloaded is not None and len(unloaded) != len(loaded):
        raise SettingsError(f"unloaded: {counted(len(unloaded), 'logs')} for {len(loaded)} loaded "
                            f"{'one' if len(loaded) == 1 else 'ones'} (one per loaded log)")
    columns = ColumnLayout(robot, "pseudo").link_columns[-1]
    base = find_base_parameters(robot, "pseudo")
    _, rows, text = identifiable_combinations(base, columns, carry)
    blocks, targets, fractions, extras = [], [], [], []
    with single_threaded():
        for k, item in enumerate(loaded):
            keep = item.kept
            if unloaded is not None:
                # loaded samples beyond the unloaded log's span have no partner: dropped, not matched to its end;
                # the unloaded log's friction shapes matched with its states (one search for the logs' shift)
                shapes_u = _shapes_as_torque(robot, shaped, unloaded[k], interpolated=True)
                *matched, inside = _matched(item, unloaded[k], *(() if shapes_u is None else (shapes_u,)))
                keep = keep & inside
            q, qd, qdd, tau = (a[keep] for a in (item.q, item.qd, item.qdd, item.tau))
            shapes_all = _shapes_as_torque(robot, shaped, item)
            shapes = _kept_shapes(shapes_all, keep)
            if unloaded is None:
                y = tau - _prediction(robot, predicted, shaped, q, qd, qdd, shapes)
            else:
                tau_u, q_u, qd_u, qdd_u = (a[keep] for a in matched[:4])
                shapes_u = _kept_shapes(matched[4] if len(matched) > 4 else None, keep)
                y = (tau - tau_u) - (_prediction(robot, predicted, shaped, q, qd, qdd, shapes)
                                     - _prediction(robot, predicted, shaped, q_u, qd_u, qdd_u, shapes_u))
            block = evaluate(robot, q, qd, qdd, parameters="pseudo", columns=columns)
            blocks.append(block if carry is None else block @ carry)
            targets.append(y)
            if friction:
                extras.append(_friction_columns(robot, item, shapes_all)[keep])
            fractions.append(_independent_fraction(item, 1) * len(q))
    W = np.concatenate(blocks)                      # (S, n, 10)
    y = np.concatenate(targets)                     # (S, n)
    S, n = y.shape
    if S * n < 10:
        raise DataError("loaded: too few samples to identify a payload")
    _check_target(y, "payload torques")
    F = np.concatenate(extras) if friction else None
    return _reported(PayloadResult(**_fit_payload(W, y, fractions, rows, text, F),
                                   mode="model" if unloaded is None else "difference", n_samples=S,
                                   robot=reported))


def _shaped_friction(robot, p, parameters):
    """``(p, parameters)``, the standard parameters a prediction takes, where they give a Coulomb or Stribeck value:
    a friction whose shape τ's low-pass changes (:func:`_shapes_as_torque`); None where they give none, the plain
    prediction then serving (a model of viscous friction alone, its Coulomb columns 0, is predicted by the regressor,
    not by its own inverse dynamics, which would change its payload in the last digits).

    Returns
    -------
    tuple (ndarray, str) or None
    """
    return (p, parameters) if shaped_friction_terms(robot, p, parameters) else None


def _shapes_as_torque(robot, shaped, item, interpolated=False):
    """The friction shapes the model's prediction takes at every sample of ``item`` (Processed), low-passed as its τ
    was, c(q̇) then s(q̇) side by side, or None where the plain prediction serves: no Coulomb or Stribeck value
    predicted, or τ neither low-passed nor ``interpolated``.

    The measured τ is low-passed; a prediction of sign(q̇) friction that is not left a Coulomb step the filter had
    smoothed in τ, fitted as the payload's (noise-free, a UR10e CAD model's 12 N·m Coulomb put the inertia 8.9 % of its
    largest moment off). ``interpolated``: ``item`` is an unloaded log, its τ taken at the loaded samples' times by
    linear interpolation (:func:`_matched`), which makes a ramp of each Coulomb step between two samples, filtered or
    not: its shapes are matched with it, to the same ramps (unfiltered, the sign(q̇) of the matched q̇ left the steps'
    ramps in the difference, the UR10e CAD model's inertia 2.6 % of its largest moment off, noise-free, with the
    unloaded log sampled half a step later).

    Returns
    -------
    ndarray, shape (n_samples, 2·n_dof), or None
    """
    from ._friction import _filters_friction, stacked_shapes

    if shaped is None or not (interpolated or _filters_friction(item)):
        return None
    return stacked_shapes(robot, item)


def _kept_shapes(shapes, keep):
    """``shapes`` ((S, 2·n_dof) or None, :func:`_shapes_as_torque`) at the samples ``keep`` selects, as the regressor
    takes them: (c, s), each (S_kept, n_dof), or None."""
    from ._friction import split_shapes

    return None if shapes is None else split_shapes(shapes[keep])


def _prediction(robot, predicted, shaped, q, qd, qdd, shapes):
    """The model's torque at the states: ``predicted(q, qd, qdd)``, or, with friction ``shapes`` (as τ's low-pass
    left them), the parameters ``shaped`` ((p, parameterization), :func:`_shaped_friction`) evaluated with those
    shapes. Shape (n_samples, n_dof)."""
    from ..dynamics.regressors import _evaluate as evaluate

    if shapes is None:
        return predicted(q, qd, qdd)
    p, parameters = shaped
    return evaluate(robot, q, qd, qdd, parameters=parameters, weights=p, shapes=shapes)


def _friction_columns(robot, item, shapes=None):
    """The payload fit's friction nuisance columns at every sample of ``item`` (Processed): per joint a viscous
    q̇, a Coulomb c(q̇) and an offset 1, and s(q̇) for a joint whose friction model has a Stribeck term, each zero in
    the other joints' rows.

    c and s are the regressor's friction shapes (the joint's friction model, sign(q̇) by default), low-passed as τ
    was (:func:`~._friction.filtered_shapes`), as the robot's own fit takes them: a tanh(q̇/0.02) of its own here
    fitted a loaded log with the robot's sign(q̇) friction 4 % of the inertia off. The low-pass is also what keeps a
    joint at rest from chattering between ±1 in the filtered torque's place. A friction model's 'auto' scale is
    refused before (by the model's prediction, which evaluates the shapes). ``shapes``: those filtered shapes side by
    side, (n_samples, 2·n_dof), where the prediction took them already (:func:`_shapes_as_torque`).

    Returns
    -------
    ndarray, shape (n_samples, n_dof, k)
        k = 3·n_dof plus one per Stribeck term.
    """
    from ._friction import filtered_shapes, split_shapes

    coulomb, stribeck = filtered_shapes(robot, item) if shapes is None else split_shapes(shapes)
    qd = np.asarray(item.qd, dtype=float)
    per_joint = [[qd[:, j], coulomb[:, j], np.ones(len(qd))]
                 + ([stribeck[:, j]] if j_model is not None and j_model.stribeck is not None else [])
                 for j, j_model in enumerate(joint.friction_model for joint in robot.joints)]
    F = np.zeros((len(qd), robot.n_dof, sum(map(len, per_joint))))
    start = 0
    for j, columns in enumerate(per_joint):
        F[:, j, start:start + len(columns)] = np.stack(columns, axis=1)
        start += len(columns)
    return F


def _reported(result):
    """``result``, with one DataWarning line when its mass is not told from none (:attr:`PayloadResult.mass_detected`;
    a mass the data leave undetermined is said by the fit itself)."""
    if np.isfinite(result.mass_std) and not result.mass_detected:
        below = _below_zero(result)
        why = (f": {below}" if below else
               f" is not told from none (below 3 σ or {MASS_FLOOR * 1e3:g} g): no payload seen")
        warn(f"payload: mass {result.mass:.2g} ± {result.mass_std:.2g} kg{why}; its centre of mass and inertia mean "
             "nothing and no vendor format is given", DataWarning)
    return result


# Why a mass far below zero comes out, by the fit's mode: the data are of no payload the model can hold
_NEGATIVE = {"difference": "the loaded and unloaded logs swapped?",
             "wrench": "the wrench's sign or the sensor frame reversed?",
             "static": "the loaded and unloaded logs swapped, or without these the model's last body heavier than the "
                       "real one?"}


def _mass_below_zero(result):
    """Whether ``result``'s least-squares mass, before the fit made it physical, is below zero beyond 3 σ and 1 g:
    the consistent estimate keeps a mass ≥ 0, and from −2 kg (the loaded and unloaded logs swapped, a model already
    holding the payload) it came out 0.1 ± 2e-06 kg with its centre of mass 2.2 m away, told from none."""
    return bool(result.unconstrained[NAMES.index("M")] <= -max(3.0 * result.mass_std, MASS_FLOOR))


def _below_zero(result):
    """What is said of ``result``'s mass (determined) when it is below zero beyond 3 σ and 1 g, else None: 'not told
    from none' was said of −2 ± 7e-05 kg (the loaded and unloaded logs given the other way round), which the data
    tell from none very well."""
    # the least-squares mass, before the fit made it physical: the still poses' fit clips it at 0, the consistent
    # estimate of the other modes keeps it ≥ 0 (a wrench reversed, −2.0 ± 0.0001 kg, came out 0.00033 kg and was said
    # to be 'not told from none')
    mass = float(result.unconstrained[NAMES.index("M")])
    if _mass_below_zero(result):
        why = _NEGATIVE.get(result.mode, "the model's last body heavier than the real one (a tool counted twice?)")
        found = f" ({mass:.2g} kg found, {result.mass:.2g} kept)" if mass != result.mass else ""
        return f"a mass below zero beyond 3 σ{found}, no physical payload ({why})"
    return None
