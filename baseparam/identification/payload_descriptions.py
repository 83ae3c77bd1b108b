"""A robot with a payload as the other commands read it: its YAML description, a URDF, MuJoCo's MJCF
(:meth:`~.payload.PayloadResult.robot_text`), and what a URDF or MJCF written from a description leaves out.
"""
from __future__ import annotations

import os

import numpy as np

from .._checks import shown
from .._warnings import warn
from ..errors import DataWarning
from ..model.attach import urdf_with_payload
from ..model.robot import _declared, robot_to_yaml

# what robot_text's MJCF notes in its file
MJCF_NOTE = "the robot with the payload identified by baseparam in its last body"


def description_text(robot, attached, carried, fmt):
    """The description of ``robot`` with a payload in format ``fmt``.

    Parameters
    ----------
    robot : Robot
        Without the payload.
    attached : Robot
        ``robot`` with the payload in its last link's body (:meth:`~.payload.PayloadResult.attach`).
    carried : callable
        () → the payload's mass, centre of mass and inertia about it in ``robot``'s last link frame: the one more
        link of a URDF robot's own text.
    fmt : {'yaml', 'urdf', 'mjcf'}

    Returns
    -------
    str
    """
    from ..model.urdf_writer import check_urdf_gravity, robot_to_urdf

    if fmt == "yaml":
        return robot_to_yaml(attached)
    if fmt == "mjcf":
        return _mjcf_text(attached, _bodies(attached), robot.source_file, MJCF_NOTE)
    if robot.from_urdf_text:
        return urdf_with_payload(robot, *carried())
    check_urdf_gravity(robot)
    _warn_drives_left_out(robot)
    # a description's friction_prior is a URDF's <dynamics> where it is a value (it was left out, without a word)
    return robot_to_urdf(attached, _bodies(attached), [_prior_values(j) for j in attached.joints])


def _bodies(robot):
    """Per joint of ``robot``, its body (mass, com, inertia about it; zeros where the description gives none)."""
    return [(j.inertia.mass, j.inertia.com, j.inertia.inertia) if j.inertia is not None
            else (0.0, np.zeros(3), np.zeros((3, 3))) for j in robot.joints]


def check_mjcf_output(robot):
    """Refuse, before the fit, a robot MuJoCo's MJCF cannot hold (a link before the last without a mass or inertia
    above MuJoCo's minimum, moments no rigid body has): the MJCF of ``robot`` with a small body added to its last
    link is made and thrown away.

    Raises
    ------
    ArgumentError
        :func:`~baseparam.model.mjcf_writer.robot_to_mjcf`'s, naming the robot and the link.
    """
    bodies = _bodies(robot)
    mass, com, inertia = bodies[-1]
    bodies[-1] = (mass + 1.0, com, inertia + 1e-3 * np.eye(3))      # the payload, its mass > 0 once attached
    _mjcf_text(robot, bodies, robot.source_file, None, said=False)


def _mjcf_text(robot, bodies, source_file, note, said=True):
    """The MJCF of ``robot`` carrying ``bodies``, with the viscous and Coulomb friction and the rotor inertias its
    joints give values of (the ``friction_prior``'s for a term a joint does not declare: :func:`_prior_values`);
    ``said``: warn of the drives MJCF has no place for (a friction offset, a Stribeck term)."""
    from ..model.mjcf_writer import robot_to_mjcf

    def value(entry):
        return float(entry) if _value_given(entry) else 0.0

    # per term, as the URDF's <dynamics>: the joint's value where it declares the term (0 to be identified), the
    # prior's where it does not (one declared viscous value made MJCF leave out the Coulomb prior the URDF wrote)
    friction = [tuple(value(entry) if _declared(entry) else prior
                      for entry, prior in zip(joint.friction[:2], _prior_values(joint) or (0.0, 0.0)))
                for joint in robot.joints]
    armature = [value(j.rotor_inertia) for j in robot.joints]
    left_out = [j for j in robot.joints if _value_given(j.friction[2]) or _value_given(_stribeck_friction(j))]
    if said and left_out:
        warn(f"payload: the MJCF of {shown(robot.name)} leaves out its friction offsets and Stribeck terms (MJCF has "
             "no place for them); the YAML keeps them", DataWarning)
    return robot_to_mjcf(robot, bodies, friction=friction, armature=armature,
                         urdf_folder=None if source_file is None else os.path.dirname(os.path.abspath(source_file)),
                         note=note)


def _warn_drives_left_out(robot):
    """Warn that a new URDF of ``robot`` leaves out the friction and rotor inertias its description gives values of,
    and its friction models other than sign(q̇): a URDF written from a description has no place for them
    (:mod:`baseparam.model.urdf_writer`), and the robot read back had torques without them (2 N·m on
    ``kuka_lwr4_cad.yaml``), with no word. (A ``friction_prior`` is written, as the URDF's ``<dynamics>``, for the
    terms a joint does not declare: :func:`_prior_values`; those of terms it declares are said left out.)"""
    friction = [v for j in robot.joints for v in (*j.friction, _stribeck_friction(j))]
    rotors = [j.rotor_inertia for j in robot.joints]
    given = [name for name, values in (("friction", friction), ("rotor inertias", rotors))
             if any(_value_given(v) for v in values)]
    if any(j.friction_model is not None and not j.friction_model.is_default for j in robot.joints):
        given.append("friction models")        # a smooth or Stribeck shape: a URDF's friction is Coulomb's sign
    why = [f"its {' and '.join(given)} (a URDF written from a description has no place for them)"] if given else []
    if any(j.friction_prior is not None and _prior_values(j) != j.friction_prior for j in robot.joints):
        why.append("the friction priors of the friction terms it declares (with a value, or without one to be "
                   "identified; a URDF's <dynamics> is a value, not a prior)")
    if why:
        warn(f"payload: the URDF written from {shown(robot.name)} leaves out {' and '.join(why)}; the YAML keeps "
             "them", DataWarning)


def _prior_values(joint):
    """``joint``'s ``friction_prior`` (viscous, Coulomb) as the values a simulator's file states (a URDF's
    ``<dynamics damping friction>``, MJCF's ``damping`` and ``frictionloss``), or None without a prior. A prior is
    the value of a term the joint does not declare (the true value once ``--friction`` declares it,
    :func:`~baseparam.model.robot.with_drives`); a term declared without a value is to be identified, and its prior
    is no value: 0, and None when the joint declares both (a URDF written from ``friction: true`` and a prior read
    back with the prior as its true friction: what forward dynamics simulates and ``payload`` subtracts)."""
    terms = joint.friction[:2]
    if joint.friction_prior is None or all(_declared(term) for term in terms):
        return None
    return tuple(0.0 if _declared(term) else float(value) for term, value in zip(terms, joint.friction_prior))


def _stribeck_friction(joint):
    """The Stribeck friction value ``joint``'s friction model gives (None when none): left out of a URDF as the
    other friction terms are (a description with ``stribeck_friction: 2`` and its other terms declared without values
    was written without a word)."""
    return None if joint.friction_model is None else joint.friction_model.stribeck_friction


def _value_given(entry):
    """Whether a joint's friction or rotor inertia entry gives a value other than 0: not True (declared without one),
    False nor None (not modelled; a Joint built in Python keeps None, which was said to be left out)."""
    return entry is not None and not isinstance(entry, bool) and entry != 0
