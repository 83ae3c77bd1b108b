"""Writing a robot as URDF, with given link bodies, for pinocchio and other URDF readers.

Any joint model ``A = C · M(q + offset) · C′`` becomes URDF the way pinocchio's own models of DH
chains are built: joint k's frame is the frame right after its motion (axis z there), placed at
``M(offset)·C′`` of its parent joint times its own C; the description's link frame hangs below it as a
fixed ``<link>_frame`` child (origin ``M(offset)·C′``), so users find the frames the regroupings are
written in; and each body is moved from the link frame into the joint frame (R·c + p, R·I·Rᵀ). The
result has the description's joint angles and the same inverse dynamics (friction and rotor
inertias aside: URDF has no place for them).
"""
from __future__ import annotations

import math
from xml.sax.saxutils import quoteattr

import numpy as np

from ..errors import SettingsError
from .dh_equivalent import joint_transform_before, moved_by
from .joint_model import joint_models, to_si
from .parameters import moved_body
from .robot import joint_names
from .urdf_update import _number_list, comment_text, inertia_element, unique_name
from .._validation import check_robot


def _rpy(R) -> tuple:
    """URDF roll, pitch, yaw of a rotation matrix (R = Rz(y)·Ry(p)·Rx(r)), to round-off.

    Near the gimbal lock (|sin p| within 1e-6 of 1) asin loses the pitch and cos p the roll and yaw: the pitch is
    then atan2(sin p, |cos p|), the roll atan2(R21, R22), and the yaw solved from R01 and R11 given that roll and
    sin p, so that the rotation comes back whatever error the roll has. Folding the roll into the yaw as at the lock
    itself there turned a frame 1e-7 rad off the lock by that much (a DH twist of 90.00001°)."""
    sin_pitch = max(-1.0, min(1.0, -R[2, 0]))
    if abs(sin_pitch) < 1.0 - 1e-6:
        return math.atan2(R[2, 1], R[2, 2]), math.asin(sin_pitch), math.atan2(R[1, 0], R[0, 0])
    cos_pitch = math.hypot(R[2, 1], R[2, 2])
    if cos_pitch <= 1e-15:      # the lock itself, to round-off: only yaw ∓ roll is defined, the roll folded into it
        return 0.0, math.asin(sin_pitch), math.atan2(-R[0, 1], R[1, 1])
    roll = math.atan2(R[2, 1], R[2, 2])
    c, s = math.cos(roll), math.sin(roll)
    yaw = math.atan2(sin_pitch * s * R[1, 1] - c * R[0, 1], sin_pitch * s * R[0, 1] + c * R[1, 1])
    return roll, math.atan2(sin_pitch, cos_pitch), yaw


def _origin(T) -> str:
    return f'<origin xyz="{_number_list(T[:3, 3])}" rpy="{_number_list(_rpy(T[:3, :3]))}"/>'


def _inertial(mass, com, inertia, T) -> str:
    """A body given in the link frame, written in the joint frame (T: link frame in joint frame)."""
    c, I = moved_body(com, inertia, T)
    return (f'    <inertial><origin xyz="{_number_list(c)}" rpy="0 0 0"/><mass value="{_repr(mass)}"/>'
            f"{inertia_element(I, _repr)}</inertial>")


def _repr(value) -> str:
    """A mass or inertia as this writer has always written them (-0.0 stays -0.0)."""
    return repr(float(value))


def _refuse_floating(robot):
    """SettingsError for a floating base: this writer's URDF is rooted at a fixed ``base`` link, so the base body
    and its free motion would be left out, a fixed-base robot written silently (``payload --robot-out x.urdf``)."""
    if robot.is_floating:
        raise SettingsError(f"{robot.name}: a floating base cannot be written as a new URDF yet (its base body and "
                            "free joint would be left out, a fixed robot); write the robot as .yaml")


def check_urdf_gravity(robot):
    """SettingsError unless the robot's gravity is (0, 0, -9.81), the one a URDF's readers take (a URDF cannot
    say another): a model written with another would have other dynamics; or when the robot has a floating base,
    which this writer cannot hold."""
    check_robot(robot)         # a public name: a non-robot is refused, not an AttributeError inside
    _refuse_floating(robot)
    if tuple(float(g) for g in robot.gravity) != (0.0, 0.0, -9.81):
        raise SettingsError(f"{robot.name}: gravity {list(robot.gravity)} cannot be written in a URDF (its readers "
                            "take 0, 0, -9.81); write the robot as .yaml")


def _frame_joint_names(names) -> list:
    """The fixed joints' names, ``link{k}_frame_joint``, each stepping aside (``_2``, …) of a joint of the robot's
    so named: a URDF with two joints of one name is refused by its readers (urdfdom, ours)."""
    taken = set(names)
    out = []
    for k in range(1, len(names) + 1):
        out.append(unique_name(f"link{k}_frame_joint", taken))
        taken.add(out[-1])
    return out


def robot_to_urdf(robot, bodies, dynamics=None) -> str:
    """The URDF text of ``robot`` carrying ``bodies``.

    Parameters
    ----------
    robot : Robot
    bodies : sequence of (mass, com, inertia)
        Per link, in the link frame: kg, (3,) m, (3, 3) kg·m² about the centre of mass.
    dynamics : sequence of (float, float) or None, optional
        Per joint, its ``<dynamics damping friction>`` (viscous, Coulomb; SI), None for none: what the reader
        gives back as the joint's ``friction_prior``. Default: no ``<dynamics>`` at all.

    Returns
    -------
    str

    Notes
    -----
    A URDF has no gravity: the file holds the kinematics and the bodies only. A caller that hands the file on
    as the robot's model checks the gravity first (:func:`check_urdf_gravity`).
    """
    _refuse_floating(robot)
    models = joint_models(robot)
    afters = [moved_by(robot, m, to_si(robot, m.motion)) for m in models]     # M(offset)·C′: link frame in joint frame
    names = joint_names(robot.joints)
    frame_joints = _frame_joint_names(names)
    name = comment_text(robot.name)
    lines = ['<?xml version="1.0"?>', f"<!-- written by baseparam: {name}; joint k moves link{{k}}, whose "
             "description frame is link{k}_frame -->", f"<robot name={quoteattr(robot.name)}>", '  <link name="base"/>']
    for k, (joint, model) in enumerate(zip(robot.joints, models), start=1):
        parent_after = afters[joint.parent - 1] if joint.parent else np.eye(4)
        placement = parent_after @ joint_transform_before(robot, model)
        parent = f"link{joint.parent}" if joint.parent else "base"
        mass, com, inertia = bodies[k - 1]
        kind = "revolute" if joint.is_revolute else "prismatic"
        limit = '<limit lower="-1e6" upper="1e6" effort="1e9" velocity="1e9"/>'
        if dynamics is not None and dynamics[k - 1] is not None:
            damping, friction = dynamics[k - 1]
            limit += f'<dynamics damping="{_repr(damping)}" friction="{_repr(friction)}"/>'
        lines += [f'  <link name="link{k}">', _inertial(mass, com, inertia, afters[k - 1]), "  </link>",
                  f'  <joint name={quoteattr(names[k - 1])} type="{kind}">',
                  f'    <parent link="{parent}"/><child link="link{k}"/>', f"    {_origin(placement)}",
                  f'    <axis xyz="0 0 1"/>{limit}', "  </joint>",
                  f'  <link name="link{k}_frame"/>',
                  f'  <joint name={quoteattr(frame_joints[k - 1])} type="fixed"><parent link="link{k}"/>'
                  f'<child link="link{k}_frame"/>{_origin(afters[k - 1])}</joint>']
    lines.append("</robot>")
    return "\n".join(lines) + "\n"


__all__ = ["check_urdf_gravity", "robot_to_urdf"]
