"""A payload in controllers' formats: Universal Robots' ``set_target_payload``, KUKA's load data, Franka's
end-effector load (:meth:`~.payload.PayloadResult.to_vendor`), in the frame of the controller's flange.
"""
from __future__ import annotations

import itertools

import numpy as np

from .._checks import shown
from ..errors import SettingsError
from ..model.robot import require_robot
from ._columns import shown_names
from ._payload_math import body_inertia
from .payload_wrench import sensor_placement

# Principal moments closer than this (relative to the largest) are one repeated moment: their axes are any in their
# plane (or space), which eigh picks by round-off (a sphere's axes read C = 17° where A = B = C = 0 is the answer)
REPEATED_MOMENT = 1e-10


def _principal_axes_nearest(inertia):
    """The principal moments and axes of a 3×3 inertia, the axes ordered and signed to lie nearest the link frame.

    Any of the 24 proper orderings and signs of the eigenvectors describes the tensor; the one of the largest trace
    (the smallest rotation, at most 63° for any tensor) is what a user reads (A = B = C = 0 for a tool whose axes are
    the link's) and keeps KUKA's B away from ±90°, where A and C cannot be told apart: eigh's ascending order put a
    rod along the link's z axis at B = −90° and its A, C read back as 0, another tensor. A repeated moment's axes are
    any in their plane: the nearest are taken (:func:`_symmetric_axes_nearest`), not eigh's round-off.

    Parameters
    ----------
    inertia : ndarray, shape (3, 3)
        Symmetric.

    Returns
    -------
    moments : ndarray, shape (3,)
        About the columns of ``axes``.
    axes : ndarray, shape (3, 3)
        A rotation matrix (det +1) whose columns are the principal axes in the link frame.
    """
    moments, vectors = np.linalg.eigh(inertia)
    repeated = np.diff(moments) <= REPEATED_MOMENT * np.abs(moments).max()
    if repeated.all():             # a sphere's: every axis is principal
        return moments, np.eye(3)
    if repeated.any():             # eigh's order is ascending: the single moment is the first or the last
        single = 2 if repeated[0] else 0
        return _symmetric_axes_nearest(moments, vectors[:, single], single)
    best = None
    for order in itertools.permutations(range(3)):
        for signs in itertools.product((1.0, -1.0), repeat=3):
            axes = vectors[:, order] * signs
            if np.linalg.det(axes) > 0 and (best is None or np.trace(axes) > np.trace(best[1]) + 1e-12):
                best = (moments[list(order)], axes)
    return best


def _symmetric_axes_nearest(moments, axis, single):
    """:func:`_principal_axes_nearest` for a tensor of one repeated moment: the smallest rotation taking a link axis
    to its single axis ``axis`` (3,) (the shortest arc from the link axis nearest it), whose other two columns are then
    principal axes of the repeated moment. ``moments`` (3,) are eigh's, ``single`` the index of the single one."""
    link_axis = int(np.argmax(np.abs(axis)))
    target = axis * np.sign(axis[link_axis])            # cos of the arc ≥ 1/√3
    k = np.cross(np.eye(3)[link_axis], target)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    axes = np.eye(3) + K + K @ K / (1.0 + target[link_axis])       # Rodrigues' formula, sin·cos folded in
    ordered = np.empty(3)
    ordered[link_axis] = moments[single]
    ordered[[j for j in range(3) if j != link_axis]] = np.delete(moments, single)     # the repeated moment's two
    return ordered, axes


def vendor_format(mass, com, inertia, vendor, placement):
    """:meth:`~.payload.PayloadResult.to_vendor`'s dict (plain numbers, no −0.0) of a payload of ``mass`` (kg),
    centre ``com`` (3,) and ``inertia`` (3, 3) about it in the last link's frame, in the frame ``placement`` =
    (R, r) of :func:`flange_placement`."""
    R, r = placement
    com = R.T @ (np.asarray(com, float) - r)
    I = R.T @ body_inertia(inertia) @ R       # exactly the inertia in the last link's frame (R the identity)
    I = 0.5 * (I + I.T)
    if vendor == "ur":
        doc = {"mass": mass, "cog": com.tolist(),
               "inertia": [float(I[i, j]) for i, j in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))]}
    elif vendor == "franka":
        doc = {"m_load": mass, "F_x_Cload": com.tolist(), "I_load": I.ravel(order="F").tolist()}
    else:
        J, R = _principal_axes_nearest(I)
        # R = Rz(A) Ry(B) Rx(C): the principal axes in the link frame, |B| ≤ 63° (no gimbal lock: see above)
        B = np.arcsin(np.clip(-R[2, 0], -1.0, 1.0))
        A, C = np.arctan2(R[1, 0], R[0, 0]), np.arctan2(R[2, 1], R[2, 2])
        # KUKA's load data ($LOAD, the load data determination's output) give the centre in mm
        doc = {"M": mass, "X": 1e3 * com[0], "Y": 1e3 * com[1], "Z": 1e3 * com[2],
               "A": float(np.degrees(A)), "B": float(np.degrees(B)), "C": float(np.degrees(C)),
               "JX": float(J[0]), "JY": float(J[1]), "JZ": float(J[2])}
    return {key: _plain(value) for key, value in doc.items()}


def _plain(value):
    """A number, or a list of them, as plain floats without −0.0 (a controller's format, JSON)."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return float(value) + 0.0


def flange_placement(robot, flange):
    """(R (3, 3), r (3,)): the axes and origin of a controller's flange frame in ``robot``'s last link frame
    (:meth:`~.payload.PayloadResult.to_vendor`'s ``flange``: a link of the robot's URDF fixed to its last link, or
    x, y, z (m), roll, pitch, yaw (rad); None: the last link's frame itself).

    Raises
    ------
    SettingsError
        A link name when ``robot`` is None or was not read from a URDF, or names no link fixed to the last link;
        numbers that are not 6 finite ones within ±100 m and ±100 rad.
    """
    if robot is not None:                 # a file name or another object: refused in its words, not an AttributeError
        require_robot(robot)
    if not isinstance(flange, str):
        return sensor_placement(flange, "flange")
    if robot is None or not robot.from_urdf_text:
        raise SettingsError(f"flange: the link {shown(flange)} needs the result's robot read from a URDF; give "
                            "the flange frame as x,y,z (m),roll,pitch,yaw (rad) in the last link's frame")
    fixed = flange_links(robot)
    if flange not in fixed:
        from ..model.urdf_update import locked_links

        joint = locked_links(robot).get(flange)
        # merged into the last body at q = 0 (tip, mimic='lock'), placed as if that joint never moved: a finger
        why = (f"lies beyond joint {shown(joint)}, which moves on the robot (locked at 0 here only by tip or "
               "mimic='lock'), so it is not a link fixed to" if joint is not None else "is not a link fixed to")
        raise SettingsError(f"flange: {shown(flange)} {why} the last link of {shown(robot.name)} "
                            f"(those are: {shown_names(list(fixed))})")
    return fixed[flange][:3, :3], fixed[flange][:3, 3]


def flange_links(robot):
    """The links of ``robot``'s URDF fixed to its last link, each with its placement (ndarray (4, 4)) in the last
    link's frame: the names :func:`flange_placement` takes; empty for a robot not read from a URDF. Links the last
    body holds beyond a joint locked by ``tip`` or ``mimic='lock'`` are not among them: their placement is that of
    q = 0 of a joint that moves (panda_leftfinger under ``tip='panda_link8'``, panda_link6 under
    ``tip='panda_link5'``)."""
    if not robot.from_urdf_text:
        return {}
    from ..model.urdf_update import link_parts, locked_links

    locked = locked_links(robot)
    return {name: placement for name, placement, _, _ in link_parts(robot)[1][-1][1] if name not in locked}


def frame_said(flange):
    """The frame of :meth:`~.payload.PayloadResult.to_dict`'s vendor formats, in words."""
    if flange is None:
        return "the link the last joint moves"
    if isinstance(flange, str):
        return f"link {flange!r}, fixed to the link the last joint moves"
    # each number as given, to its last digit (':g' cut 1.5707963267948966 to 1.5708: not the frame the numbers are
    # in), without the '.0' of whole ones nor a sign of −0
    x, y, z, roll, pitch, yaw = (repr(float(v) + 0.0).removesuffix(".0")
                                 for v in np.ravel(np.asarray(flange, dtype=float)))
    return (f"the flange at x,y,z = {x},{y},{z} m, roll,pitch,yaw = {roll},{pitch},{yaw} rad in the link the last "
            "joint moves")
