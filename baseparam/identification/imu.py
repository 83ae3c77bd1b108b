"""A floating base measured by an IMU (``sensor_msgs/Imu``: orientation, angular velocity, specific force), as legged
robots and humanoids log it, instead of a pose (odometry, motion capture).

An IMU does not give the base's position or linear velocity, but the equations the fits use do not need them:
the base wrench and the joint torques (``rnea``) see the base's linear velocity v only through the classical
acceleration of the frame-0 origin, Rᵀ p̈ = v̇ + ω × v (Galilean invariance: no force depends on a uniform
velocity), and gravity g only through the specific force Rᵀ(p̈ − g), which the accelerometer measures. So the
motion's base columns are an *equivalent* motion with the same dynamics (tests/test_floating_imu.py checks the
fact against pinocchio):

* q: position 0, the base's orientation (the IMU's, turned by its mounting; the identity when the IMU gives none);
* q̇: v = 0, ω the gyroscope's rate in frame-0 axes;
* q̈: ω̇ by central differences on the stamps (as the readers derive unlogged rates: 0 for a constant rate), and the
  linear part a = f_O + Rᵀ g, with f_O the specific force at the frame-0 origin moved from the IMU's point r
  (in frame 0): f_O = f_IMU − ω̇ × r − ω × (ω × r).

What this does not give: the momentum (it needs v and p: the momentum route refuses such a motion), and contact
wrenches measured in the world (a force plate's: moving them to the foot needs the base position) — only frames
fixed on the robot's links (foot or wrist F/T sensors, :class:`~baseparam.Contact`) work with an IMU base.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import shown
from .._numbers import real_array
from .._validation import check_allocation, normalized_quaternions
from ..errors import DataError, SettingsError, printable
from ..model import urdf
from ..motion import Trajectory, central_differences

__all__ = ["ImuTrajectory", "base_from_imu", "imu_mounting"]

# ROS's world-fixed frames (REP 105) and the usual others: a wrench logged in one of them is a force plate's
WORLD_FRAMES = frozenset({"world", "map", "odom", "earth"})


@dataclass(frozen=True)
class ImuTrajectory(Trajectory):
    """A floating-base :class:`~baseparam.Trajectory` whose base comes from an IMU (:func:`base_from_imu`): the
    base position and linear velocity are not measured (zero in q and q̇), q̈'s linear part is the classical
    acceleration of the frame-0 origin (module notes). The torques and base routes fit it as any floating motion;
    the momentum route refuses it, and the writers (no format marks it). Its states give the robot's joint torques,
    base wrench and joint reaction wrenches (``bp.reaction_wrenches``: internal forces, blind to a uniform velocity
    as the torques are), not its momentum, kinetic or potential energy (they need v and the position)."""


def _product(a, b):
    """Quaternion products a ⊗ b of (…, 4) arrays (x, y, z, w)."""
    av, aw, bv, bw = a[..., :3], a[..., 3:], b[..., :3], b[..., 3:]
    return np.concatenate([aw * bv + bw * av + np.cross(av, bv), aw * bw - np.sum(av * bv, -1, keepdims=True)], -1)


# overflow is refused at the end, in one line naming the sample (not numpy's RuntimeWarnings on the way)
@np.errstate(over="ignore", invalid="ignore", divide="ignore")
def base_from_imu(t, orientation, angular_velocity, linear_acceleration, *, gravity=(0.0, 0.0, -9.81),
                  position=(0.0, 0.0, 0.0), rotation=None, angular_acceleration=None, source="<imu>"):
    """The base columns of a floating-base motion from an IMU's samples (module notes).

    Parameters
    ----------
    t : array_like, shape (n_samples,)
        Sample times (s), increasing.
    orientation : array_like, shape (n_samples, 4), or None
        The IMU frame's orientation in the world, unit quaternions (x, y, z, w) (``sensor_msgs/Imu``'s
        ``orientation``); None when the IMU gives none (the base's is then the identity: the torques do not
        depend on it, module notes).
    angular_velocity : array_like, shape (n_samples, 3)
        The gyroscope's rate ω (rad/s), in the IMU's axes.
    linear_acceleration : array_like, shape (n_samples, 3)
        The accelerometer's specific force f = Rᵀ(p̈ − g) (m/s²; +9.81 up at rest), in the IMU's axes.
    gravity : array_like, shape (3,)
        The robot's gravity in the world (``robot.gravity_si``).
    position : array_like, shape (3,)
        The IMU's origin in frame 0 (m): the lever arm r (:func:`imu_mounting`).
    rotation : array_like, shape (3, 3), optional
        The IMU's axes in frame 0 (columns); the identity by default.
    angular_acceleration : array_like, shape (n_samples, 3), optional
        ω̇ in the IMU's axes when known; by default central differences of ω on ``t``
        (exactly 0 where ω does not change).
    source : str
        Named in messages.

    Returns
    -------
    q : ndarray, shape (n_samples, 7)
        Base position (zero) and quaternion (x, y, z, w) of frame 0.
    qd : ndarray, shape (n_samples, 6)
        The base twist: v = 0, then ω in frame-0 axes.
    qdd : ndarray, shape (n_samples, 6)
        The classical acceleration of the frame-0 origin in frame-0 axes (its specific force plus Rᵀ g), then ω̇.

    Raises
    ------
    DataError
        Arrays of other shapes, not finite, times not increasing, a quaternion not unit: one line naming
        ``source`` and the field.
    """
    source = printable(str(source))
    t = real_array(f"{source}: t", t, DataError)
    # ~40 floats a sample (the readings' copies, the base's motion): a broadcast view of 10⁹ stamps costs nothing
    # to give, and would end in numpy's bare MemoryError at the first difference
    check_allocation((t.size, 40), f"{source}: t", "the base's motion")
    if t.ndim != 1 or t.size < 2:
        raise DataError(f"{source}: t: expected shape (S,) with S ≥ 2, got {t.shape}")
    if not (np.diff(t) > 0).all():
        raise DataError(f"{source}: t: sample {int(np.argmax(~(np.diff(t) > 0))) + 1}: time does not increase")
    S = t.size

    def samples(name, value, width):
        a = real_array(f"{source}: {name}", value, DataError)
        if a.shape != (S, width):
            raise DataError(f"{source}: {name}: expected shape ({S}, {width}), got {a.shape}")
        bad = ~np.isfinite(a)
        if bad.any():
            raise DataError(f"{source}: {name}: sample {int(np.argmax(bad.any(axis=1)))}: not a finite number")
        return a

    omega_i = samples("angular_velocity", angular_velocity, 3)
    f_i = samples("linear_acceleration", linear_acceleration, 3)
    # each size before its reshape, which copies a broadcast view (of 10¹⁰ values: numpy's bare MemoryError)
    g, r = (x.reshape(-1) if x.size == 3 else x for x in (real_array("gravity", gravity, SettingsError),
                                                          real_array("position", position, SettingsError)))
    if g.shape != (3,) or r.shape != (3,) or not (np.isfinite(g).all() and np.isfinite(r).all()):
        raise SettingsError(f"gravity, position: expected 3 finite numbers each, got shapes {g.shape}, {r.shape}")
    R_bi = None
    if rotation is not None:
        R_bi = real_array("rotation", rotation, SettingsError)
        if R_bi.shape != (3, 3) or not np.allclose(R_bi.T @ R_bi, np.eye(3), atol=1e-9) or np.linalg.det(R_bi) <= 0:
            raise SettingsError("rotation: expected a 3×3 rotation matrix (the IMU's axes in frame 0, columns)")
        if np.array_equal(R_bi, np.eye(3)):
            R_bi = None             # the identity: the readings used bit for bit
    if orientation is None:
        quat = np.tile([0.0, 0.0, 0.0, 1.0], (S, 1))
    else:
        quat = normalized_quaternions(samples("orientation", orientation, 4), lambda s, norm: DataError(
            f"{source}: orientation: sample {s}: norm {norm:.6g}; expected a unit quaternion"))
    omega_dot_i = (central_differences(omega_i, t) if angular_acceleration is None
                   else samples("angular_acceleration", angular_acceleration, 3))
    if R_bi is None:
        omega, omega_dot, f = omega_i, omega_dot_i, f_i
    else:                           # vectors in the IMU's axes to frame 0's; the base's orientation R_wi R_biᵀ
        omega, omega_dot, f = omega_i @ R_bi.T, omega_dot_i @ R_bi.T, f_i @ R_bi.T
        if orientation is not None:
            from scipy.spatial.transform import Rotation
            q_bi = Rotation.from_matrix(R_bi).as_quat()
            quat = _product(quat, q_bi * [-1.0, -1.0, -1.0, 1.0])
    if r.any():                     # the specific force at the origin: the IMU point's less its rigid-body terms
        f = f - np.cross(omega_dot, r) - np.cross(omega, np.cross(omega, r))
    from ..dynamics.floating import rotation_matrices
    if orientation is None:
        gravity_base = np.broadcast_to(g, (S, 3))
    else:
        gravity_base = np.einsum("sji,j->si", rotation_matrices(quat), g)     # Rᵀ g
    q = np.hstack([np.zeros((S, 3)), quat])
    qd = np.hstack([np.zeros((S, 3)), omega])
    qdd = np.hstack([f + gravity_base, omega_dot])
    # finite readings can still overflow: rates of 1e200, or ω̇ by differences over stamps 1e-300 s apart
    bad = ~(np.isfinite(qd).all(axis=1) & np.isfinite(qdd).all(axis=1))
    if bad.any():
        raise DataError(f"{source}: sample {int(np.argmax(bad))}: the base's rate or acceleration from the IMU's "
                        "readings is not finite (readings too large, or times too close together)")
    return q, qd, qdd


def _urdf_links(robot):
    """(links, joints, children, base link) of the URDF ``robot`` was read from (its floating root joint's child the
    base link, as the reader takes it)."""
    problems = urdf._Problems("robot")
    links, joints = urdf._read(urdf._parse(robot.source, problems), problems, [])
    children = urdf._structure(links, joints, problems)
    base = urdf._base_link(links, joints, None, problems)
    free = urdf._floating_root(base, children)
    return links, joints, children, (free.child if free is not None else base)


def world_frame(frame_id, robot) -> bool:
    """Whether a message's ``header.frame_id`` names a world-fixed frame (:data:`WORLD_FRAMES`, after a tf prefix:
    ``robot1/odom`` too) rather than a frame on the robot: a link of the robot's URDF (its base link and what hangs
    below it) of such a name is the robot's, not the world's."""
    name = str(frame_id).strip("/")
    if name.rsplit("/", 1)[-1].lower() not in WORLD_FRAMES:
        return False
    if robot.from_urdf_text:
        _, _, children, base = _urdf_links(robot)
        if name in urdf._below([base], children):
            return False
    return True


def imu_mounting(robot, frame=None):
    """Where an IMU sits on a floating base: the placement of a URDF link fixed to the base link.

    Parameters
    ----------
    robot : Robot
        With a floating base; read from a URDF when ``frame`` is given.
    frame : str, optional
        The IMU's link (e.g. ``imu_link``), joined to the base link by fixed joints; None or the base link's
        name: the base link itself.

    Returns
    -------
    position : ndarray, shape (3,)
        The frame's origin in frame 0 (m).
    rotation : ndarray, shape (3, 3)
        Its axes in frame 0 (columns).

    Raises
    ------
    SettingsError
        No such link, a link that a moving joint carries (not fixed to the base), a description without links.
    """
    from ..model.robot import require_robot
    require_robot(robot)
    if frame is None:
        return np.zeros(3), np.eye(3)
    if not isinstance(frame, str) or not frame:
        raise SettingsError(f"imu_frame: expected a link name (str), got {shown(frame)}")
    name = printable(frame)
    if not robot.from_urdf_text:
        raise SettingsError(f"imu_frame={name!r}: the IMU's link is found in a URDF; {robot.name!r} is not read "
                            "from one (leave imu_frame out for an IMU at the base frame)")
    links, joints, _, base = _urdf_links(robot)
    if frame not in links:
        raise SettingsError(f"imu_frame={name!r}: no such link in {robot.name!r}")
    parent_joint = {j.child: j for j in joints}
    T, link = np.eye(4), frame
    while link != base:
        joint = parent_joint.get(link)
        if joint is None or joint.type == "floating":
            raise SettingsError(f"imu_frame={name!r}: not below the base link {base!r}; the IMU must be on the base")
        if joint.type != "fixed":
            raise SettingsError(f"imu_frame={name!r}: not fixed to the base link {base!r} (joint {joint.name!r} "
                                f"moves it); the IMU must be on the base")
        T = urdf._origin_matrix(joint.origin) @ T
        link = joint.parent
    return T[:3, 3].copy(), T[:3, :3].copy()
