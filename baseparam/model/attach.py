"""A payload as a body on the last link: the robot (or its URDF text) with the tool included.

The payload is a rigid body fixed to the link the last joint moves, given in that link's frame (the
DH link frame, or a URDF robot's child link frame). Fixed to it, it is part of that link's body: the
two pseudo-inertias add (:func:`~baseparam.model.urdf_update.pseudo_inertia`), so inverse and forward
dynamics, ``export`` and ``identify`` of the robot returned include it.

A URDF robot keeps its text: :func:`urdf_with_payload` adds one ``<link>`` holding the payload and
one fixed ``<joint>`` to the last link before ``</robot>``; every other byte stays as written (the
loader merges fixed links into the body they hang on, so the file read back is :func:`with_payload`).
"""
from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

from .._numbers import is_real
from ..errors import ArgumentError, RobotDescriptionError
from .robot import Inertia, require_robot
from .urdf_update import _inertial_text, _number_list, body_of, link_parts, pseudo_inertia, unique_name


def payload_body(robot, mass, com, inertia):
    """The payload as a body. A mass of 0 kg or less (what a fit bounded at 0 kg gives, to round-off, when the data see
    no payload) is refused naming the robot: there is no body to attach (Inertia's own refusal named neither robot
    nor payload)."""
    if is_real(mass) and mass <= 0:
        raise RobotDescriptionError(f"{robot.name}: payload mass: {float(mass):.3g} kg, no body to attach (the "
                                    "description without a payload is the robot as it is)")
    return Inertia(mass, com, inertia)         # checked as given, kept as float copies


def check_attachable(robot):
    """``robot``, refused (ArgumentError) when its last joint's link has no inertia for a payload to be added to:
    checked by :func:`with_payload`, and by ``payload --robot-out`` before the fit."""
    robot = require_robot(robot)
    if robot.joints[-1].inertia is None:
        raise ArgumentError(f"{robot.name}: the last joint's link has no inertia to add the payload to "
                            "(give the description's inertia of that link)")
    return robot


def with_payload(robot, mass, com, inertia):
    """``robot`` with a payload added to its last link's body.

    Parameters
    ----------
    robot : Robot
        Its last joint's link must carry an inertia (the description's true body).
    mass : float
        kg, > 0.
    com : array_like, shape (3,)
        m, in the last link's frame.
    inertia : array_like, shape (3, 3)
        kg·m², about the centre of mass, the last link's axes.

    Returns
    -------
    Robot
        The same robot, its last joint's ``inertia`` the sum of both bodies. A YAML robot's source text
        is dropped (it no longer describes the robot; :func:`~baseparam.model.robot.robot_to_yaml` then
        writes the new one); a URDF robot keeps its text.
    """
    robot = check_attachable(robot)
    last = robot.joints[-1]
    payload = payload_body(robot, mass, com, inertia)          # checked here: a physical body
    J = pseudo_inertia(last.inertia.mass, last.inertia.com, last.inertia.inertia) \
        + pseudo_inertia(payload.mass, payload.com, payload.inertia)
    joints = robot.joints[:-1] + (dataclasses.replace(last, inertia=Inertia(*body_of(J))),)
    return dataclasses.replace(robot, joints=joints, source=robot.source if robot.from_urdf_text else None)


def urdf_with_payload(robot, mass, com, inertia, name="payload") -> str:
    """A URDF robot's text with the payload as a link fixed to the last link (module notes).

    Parameters
    ----------
    robot : Robot
        Read from a URDF (its text kept as ``source``).
    mass, com, inertia
        As :func:`with_payload`.
    name : str
        The new link's name (``_2``, ``_3``, … appended when the file has one of that name already); its
        joint is ``NAME_joint``.

    Returns
    -------
    str
    """
    payload = payload_body(robot, mass, com, inertia)
    last_link = link_parts(robot)[1][-1][1][0][0]
    text = robot.source
    root = ET.fromstring(text)
    taken = {el.get("name") for el in root.iter() if el.tag in ("link", "joint")}
    link = unique_name(name, taken)
    joint = unique_name(f"{link}_joint", taken | {link})
    newline = "\r\n" if "\r\n" in text else "\n"
    inertial = _inertial_text((payload.mass, payload.com, payload.inertia),
                              f"baseparam: payload identified on link '{last_link}'", "    ", newline, "  ").decode()
    block = newline.join([f"  <link name={quoteattr(link)}>", "    " + inertial, "  </link>",
                          f"  <joint name={quoteattr(joint)} type=\"fixed\">",
                          f"    <parent link={quoteattr(last_link)}/>", f"    <child link={quoteattr(link)}/>",
                          f'    <origin xyz="{_number_list((0, 0, 0))}" rpy="0 0 0"/>', "  </joint>"])
    ends = [m.start() for m in re.finditer(r"</robot\s*>", text)]
    if not ends:
        raise ArgumentError(f"{robot.name}: no </robot> in its URDF text")
    at = ends[-1]
    return text[:at] + block + newline + text[at:]


__all__ = ["urdf_with_payload", "with_payload"]
