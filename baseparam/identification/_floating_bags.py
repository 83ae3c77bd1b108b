"""Floating-base logs in ROS bags (ROS 2 ``.mcap`` files and bag folders, ROS 1 ``.bag``): the joints'
``sensor_msgs/JointState`` (read by :mod:`~baseparam.identification._bags`, joints by name), the base
pose from ``nav_msgs/Odometry`` or ``geometry_msgs/PoseStamped``, and one ``geometry_msgs/WrenchStamped``
topic per contact, all put on the joint stream's clock.

* Base (``base_topic``; default the one Odometry or PoseStamped topic of the bag): the pose is the
  frame-0 position and quaternion (x, y, z, w). An Odometry's twist (ROS: in the child frame, that is
  frame 0's axes; linear then angular) is the base twist; a PoseStamped has none, and the twist is
  derived from the pose: v = Rᵀ ṗ, ω = 2 vec(q̄ ⊗ q̇), by central differences on the stamps (as
  :func:`~baseparam.preprocess` derives unlogged rates: exactly 0 where a column does not change; no filtering
  here).
* Or an IMU (``base_topic`` naming a ``sensor_msgs/Imu`` topic; never chosen by default): its orientation, rate and
  specific force give an equivalent base motion (:mod:`~baseparam.identification.imu`: position and linear
  velocity zero, q̈'s linear part the classical acceleration of the frame-0 origin), the IMU placed on the base by
  ``imu_frame`` (a URDF link fixed to the base link; default the link the messages' ``header.frame_id`` names,
  else the base link with a note); the result is an
  :class:`~baseparam.identification.imu.ImuTrajectory`. Wrenches logged in a world frame (``header.frame_id``
  ``world``, ``map``, ``odom``, ``earth``, after a tf prefix; not a link of the robot so named: a force plate's)
  are refused then: they need the base position.
* Contacts: the wrench ``[force, torque]`` of each contact's topic, in the order of ``contacts``, read in the
  contact's frame; one logged in a world frame (as above) is refused in one line whatever the base source.
* Times: header stamps (or receive times, ``clock``), each topic sorted; the base and wrench streams are
  linearly interpolated at the joint stream's times (the quaternion then renormalized), and samples
  outside the span every stream covers are dropped, with a note, as the fixed-base reader aligns
  several topics. A stream with a message at each of the joint stream's times is taken as it is (no interpolation).
* q̈ and the base wrench (``tau``'s first six) are not in these messages: baseparam's writer attaches
  them (MCAP attachments ``baseparam<topic>/qdd``, ``baseparam<base_topic>/tau``), else q̈ is derived
  by central differences and the base wrench is zero (the contacts carry the forces on a legged robot).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .._checks import counted, shown
from .._validation import quaternion_norms
from .._numbers import ABSURD
from ..errors import DataError, SettingsError, printable
# the base quaternions' slack and test are the motion type's own (Trajectory(floating=True) checks them too)
from ..motion import Trajectory, central_differences, interp_columns, not_unit
from ._bag_files import read_raw
from ._columns import shown_name
from ._bags import (_exact_times, _ns_to_s, _Stream, _with_clock, attached, covered, deserialized, read_bag,
                     shown_contents, topics_listed, two_clocks_note)
from ._record import ABSURD_BOUNDS, absurd, beyond_bounds
from .imu import ImuTrajectory, _urdf_links, base_from_imu, imu_mounting, world_frame

BASE_TYPES = {"nav_msgs/Odometry": "odometry", "geometry_msgs/PoseStamped": "pose"}
IMU_TYPE = "sensor_msgs/Imu"
WRENCH_TYPE = "geometry_msgs/WrenchStamped"


def one_hemisphere(quat):
    """Quaternions (S, 4), signs flipped so that neighbours lie on one hemisphere: interpolating or filtering
    between them then does not pass through zero."""
    flip = np.cumprod(np.where(np.einsum("ij,ij->i", quat[1:], quat[:-1]) < 0, -1.0, 1.0))
    out = quat.copy()
    out[1:] *= flip[:, None]
    return out


def _short(msgtype):
    return (msgtype or "").replace("/msg/", "/")


def contact_topics(contacts):
    """[(name, topic)] of ``contacts``: a mapping name → topic, or a sequence of names or
    :class:`~baseparam.Contact` (topic ``/<name>/wrench``; an unnamed contact k is ``contact<k>``)."""
    if isinstance(contacts, dict):
        return [(str(k), str(v)) for k, v in contacts.items()]
    from ..dynamics.contacts import contact_name
    names = [contact_name(c, k) for k, c in enumerate(contacts or (), start=1)]
    return [(name, f"/{name}/wrench") for name in names]


def _xyz(v):
    return (v.x, v.y, v.z)


# a message's values by kind: the base pose (position, quaternion x y z w) and twist, or a wrench [force, torque]
_VALUES = {
    "odometry": lambda m: (*_xyz(m.pose.pose.position), *_xyz(m.pose.pose.orientation), m.pose.pose.orientation.w,
                           *_xyz(m.twist.twist.linear), *_xyz(m.twist.twist.angular)),
    "pose": lambda m: (*_xyz(m.pose.position), *_xyz(m.pose.orientation), m.pose.orientation.w),
    "wrench": lambda m: (*_xyz(m.wrench.force), *_xyz(m.wrench.torque)),
    # orientation (x y z w), rate, specific force, and whether each is given (ROS: covariance[0] = -1 if not)
    "imu": lambda m: (*_xyz(m.orientation), m.orientation.w, *_xyz(m.angular_velocity),
                      *_xyz(m.linear_acceleration), float(m.orientation_covariance[0] != -1),
                      float(m.angular_velocity_covariance[0] != -1), float(m.linear_acceleration_covariance[0] != -1)),
}


def _fields(prefix, names, bound):
    return [(f"{prefix}.{name}", bound) for name in names]


# each of _VALUES' columns: its field in the message and its bound, as the other floating-base readers bound a log's
# values (floating_logs._refuse_absurd): the base position as the fit bounds states, a quaternion by its norm's
# check, a twist or rate as q̇, a specific force as q̈, a wrench as τ; the IMU's three given-flags unbounded
_XYZ = ("x", "y", "z")
_BOUNDS = {
    "odometry": (_fields("pose.pose.position", _XYZ, ABSURD) + _fields("pose.pose.orientation", "xyzw", np.inf)
                 + _fields("twist.twist.linear", _XYZ, ABSURD_BOUNDS["qd"])
                 + _fields("twist.twist.angular", _XYZ, ABSURD_BOUNDS["qd"])),
    "pose": _fields("pose.position", _XYZ, ABSURD) + _fields("pose.orientation", "xyzw", np.inf),
    "wrench": (_fields("wrench.force", _XYZ, ABSURD_BOUNDS["tau"])
               + _fields("wrench.torque", _XYZ, ABSURD_BOUNDS["tau"])),
    "imu": (_fields("orientation", "xyzw", np.inf) + _fields("angular_velocity", _XYZ, ABSURD_BOUNDS["qd"])
            + _fields("linear_acceleration", _XYZ, ABSURD_BOUNDS["qdd"])
            + [(f"{name}_covariance[0]", np.inf) for name in ("orientation", "angular_velocity",
                                                               "linear_acceleration")]),
}


def _stream(topic, entry, source, clock, extra, kind, notes, imu_base=None, robot=None, frames=None):
    """(times (M,), values (M, k), message indices (M,)) of a base or wrench topic on the chosen clock, its
    messages deserialized by rosbags one at a time; a damaged one refused in one line. ``imu_base``: the IMU topic
    the base comes from, when it does (a wrench in a world frame refused then); ``frames``: a list given to receive
    the messages' distinct ``header.frame_id``."""

    def damaged(index, reason):
        return DataError(f"{source}: topic {shown_name(topic)}: message {index}: damaged "
                         f"{_short(entry[0]).rsplit('/', 1)[-1]} ({reason})")

    items = list(deserialized(topic, entry, source))
    if not items:
        raise DataError(f"{source}: topic {shown_name(topic)}: no messages")
    order, received, stamps, msgs = zip(*items)
    if None in stamps:
        i = stamps.index(None)
        raise damaged(order[i], msgs[i])
    stamps, received, order = np.array(stamps), _ns_to_s(np.array(received)), np.array(order)
    values = np.array([_VALUES[kind](m) for m in msgs], dtype=np.float64)
    if kind == "imu":
        # ROS: an estimate marked absent (covariance[0] = -1) is to be disregarded, whatever it holds (NaN too)
        values[values[:, 10] == 0, :4] = 0.0
        # a rate or specific force the IMU says it does not measure holds zeros (or anything): taken as readings
        # they would be a base at rest, silently
        for column, field in ((11, "angular_velocity"), (12, "linear_acceleration")):
            if not values[:, column].all():
                i = int(np.argmax(values[:, column] == 0))
                raise DataError(f"{source}: topic {shown_name(topic)}: message {order[i]}: {field}_covariance[0] = -1 "
                                f"(ROS: no {field} measured); the base from an IMU needs its rate and specific force")
        # an all-zero quaternion is no orientation either (a ROS 1 driver that leaves it unset without the -1): the
        # torques do not need it, so it is read as the -1, not refused as a quaternion of norm 0
        values[(values[:, :4] == 0).all(axis=1), 10] = 0.0
        none = values[:, 10] == 0
        if none.any() and not none.all():
            # an orientation in some messages only (a filter that has not converged yet at the start): the torques
            # do not need it, so it is left out rather than the bag refused
            values[:, 10] = 0.0
            notes.append(f"{source}: IMU topic {shown_name(topic)}: no orientation in {int(none.sum())} of "
                         f"{none.size} messages (covariance[0] = -1 or all zeros): left out in all")
    bad = ~np.isfinite(values)
    if bad.any():
        raise damaged(int(order[np.argmax(bad.any(axis=1))]), "a value is not a finite number")
    # bounded as a CSV, NPZ or Parquet floating-base log is: a wrench, base position or twist of 1e300 was read
    rows, columns = beyond_bounds(values, np.array([bound for _, bound in _BOUNDS[kind]]))
    if rows.size:
        field, bound = _BOUNDS[kind][columns[0]]
        raise DataError(f"{source}: topic {shown_name(topic)}: message {order[rows[0]]}: {field}: "
                        f"{absurd(values[rows[0], columns[0]], bound)}")
    if frames is not None or kind == "wrench":
        frame_ids = [getattr(getattr(m, "header", None), "frame_id", "") for m in msgs]
    if frames is not None:
        frames.extend(sorted({str(f).strip("/") for f in frame_ids}))
    if kind == "wrench":
        verdict = {f: world_frame(f, robot) for f in set(frame_ids)}
        world = next((i for i, f in enumerate(frame_ids) if verdict[f]), None)
        if world is not None:
            at = f"{source}: topic {shown_name(topic)}: message {order[world]}: a wrench in the world frame " \
                 f"{shown(frame_ids[world])} (a force plate's)"
            if imu_base is not None:
                raise DataError(f"{at} needs the base position, which the IMU on {shown_name(imu_base)} does not "
                                "give; log it in a frame fixed on the link (a foot or wrist F/T sensor), or read the "
                                "base from an Odometry or PoseStamped topic")
            # a contact's wrench is read in its link's frame (docs/formats.md); one in a world frame would be
            # taken for that silently (the world frame of a force plate and of the odometry need not agree)
            raise DataError(f"{at}; a contact's wrench is read in the frame of its link: log it there (a foot or "
                            "wrist F/T sensor) or transform it before")
    if kind == "odometry" or kind == "pose" or (kind == "imu" and values[:, 10].all()):
        # a default-constructed (all-zero) orientation otherwise reached the fit at the stamps that need no
        # interpolation, and was refused there without the file or message
        norm = quaternion_norms(values[:, :4] if kind == "imu" else values[:, 3:7])
        off = not_unit(norm)
        if off.any():
            i = int(np.argmax(off))
            raise damaged(int(order[i]), f"orientation of norm {norm[i]:.6g}, not a unit quaternion")
    # on the chosen clock and sorted, with the exact times baseparam's writer attached, as the joints' stream
    stream = _with_clock(_Stream(topic, (), stamps, received, order, {"": values}), clock, source, notes)
    _exact_times(stream, extra or {}, notes, source)
    t = stream.stamps
    if t.size > 1 and not (np.diff(t) > 0).all():
        raise DataError(f"{source}: topic {shown_name(topic)}: two messages with one time stamp ({stream.clock} clock)")
    return t, stream.arrays[""], stream.order, stream.clock


def _at(t, ts, values, quat=None):
    """(values (M, k) at times t, the indices of t in ts or None): the rows as they are when ts has every time of t
    (exactly), else linearly interpolated, the quaternion columns ``quat`` kept on one hemisphere and renormalized."""
    i = np.minimum(np.searchsorted(ts, t), ts.size - 1)
    if np.array_equal(ts[i], t):
        return values[i], i
    if quat is None:
        return interp_columns(t, ts, values), None
    values = values.copy()
    values[:, quat] = one_hemisphere(values[:, quat])
    out = interp_columns(t, ts, values)
    out[:, quat] /= np.linalg.norm(out[:, quat], axis=1, keepdims=True)
    return out, None


def _omega(t, quat):
    """Body angular velocity 2 vec(q̄ ⊗ q̇) of unit quaternions (x, y, z, w) (S, 4) on times t."""
    # q and −q are one orientation, and a publisher may switch between them (tf2 does not normalize the sign):
    # differenced across a switch, q̇ is of order 2/dt and ω garbage (kept on one hemisphere, ω is sign-free)
    quat = one_hemisphere(quat)
    qd = central_differences(quat, t)
    x, y, z, w = quat.T
    dx, dy, dz, dw = qd.T
    return 2 * np.column_stack([w * dx - x * dw - y * dz + z * dy,
                                w * dy + x * dz - y * dw - z * dx,
                                w * dz - x * dy + y * dx - z * dw])


def read_floating_bag(path, source, robot, contacts=(), *, topic=None, base_topic=None, clock="header",
                      joints=None, imu_frame=None):
    """A floating-base :class:`~baseparam.Trajectory` (``wrenches`` (S, C, 6) for the contacts) from a
    ROS bag (module notes); an :class:`~baseparam.identification.imu.ImuTrajectory` when ``base_topic`` is an
    IMU's (``imu_frame``: its URDF link)."""
    named = ([base_topic] if base_topic else []) + [tp for _, tp in contact_topics(contacts)]
    # read once for the joints, the base and the contacts (on either clock); through rosbags, with every base pose
    # topic when the base topic is to be found
    # topics and types as the messages show them, as read_bag shows the joints'
    contents = shown_contents(read_raw(path, source, set(named), () if base_topic else tuple(BASE_TYPES)))
    return _floating_from(path, source, robot, contacts, contents, topic=topic, base_topic=base_topic, clock=clock,
                          joints=joints, imu_frame=imu_frame)


def _floating_from(path, source, robot, contacts, contents, *, topic, base_topic, clock, joints, imu_frame):
    """:func:`read_floating_bag` of the bag's messages ``contents`` (:func:`shown_contents`), read once: a bag whose
    topics are on two clocks is read from them again on the receive clock, not from the file."""
    from ..dynamics.floating import rotation_matrices
    from ..model.robot import joint_names

    asked = (base_topic, joints, imu_frame)          # as given: a read again on the receive clock starts afresh
    pairs = contact_topics(contacts)
    if joints is None:
        joints = joint_names(robot.joints)
    raw, extra, problem, _ = contents
    if problem:
        raise DataError(f"{source}: {problem}")
    js_clock = []
    js = read_bag(path, source, topic=topic, n_dof=robot.n_dof, joints=joints, clock=clock, contents=contents,
                  clocks=js_clock)
    # the topics asked for, found among them by the same names
    base_topic = None if base_topic is None else printable(base_topic)
    pairs = [(name, printable(tp)) for name, tp in pairs]
    types = {tp: _short(v[0]) for tp, v in raw.items()}
    if base_topic is None:
        found = [tp for tp, ty in types.items() if ty in BASE_TYPES]
        if len(found) != 1:
            raise DataError(f"{source}: {'no' if not found else 'several'} base pose topics (nav_msgs/Odometry or "
                            f"geometry_msgs/PoseStamped; the bag has {topics_listed(raw)}); name one with "
                            "base_topic= (or a sensor_msgs/Imu topic)")
        base_topic = found[0]
    if base_topic not in raw:
        named = printable(base_topic) if str(base_topic).strip() else repr(base_topic)     # '' or ' ' shown as such
        raise DataError(f"{source}: base pose topic {named}: not in the bag (it has {topics_listed(raw)})")
    imu = types[base_topic] == IMU_TYPE
    if types[base_topic] not in BASE_TYPES and not imu:
        raise DataError(f"{source}: base pose topic {shown_name(base_topic)}: type "
                        f"{types[base_topic] or 'unknown'}; expected nav_msgs/Odometry, geometry_msgs/PoseStamped "
                        f"or {IMU_TYPE}")
    if imu_frame is not None and not imu:
        raise DataError(f"{source}: imu_frame={printable(str(imu_frame))!r} places an IMU; base topic "
                        f"{shown_name(base_topic)} is a {types[base_topic]} (name the {IMU_TYPE} topic with "
                        "base_topic=)")
    for name, tp in pairs:
        if tp not in raw:
            raise DataError(f"{source}: contact {name}: wrench topic {shown_name(tp)} not in the bag "
                            f"(it has {topics_listed(raw)})")
        if types[tp] != WRENCH_TYPE:
            raise DataError(f"{source}: contact {name}: topic {shown_name(tp)}: type "
                            f"{types[tp] or 'unknown'}; expected {WRENCH_TYPE}")
    notes = list(js.notes)
    kind = "imu" if imu else BASE_TYPES[types[base_topic]]
    if imu and imu_frame is not None:
        mounting = imu_mounting(robot, imu_frame)     # a bad link refused before the messages are read
    frames = [] if imu else None
    tb, base, border, base_clock = _stream(base_topic, raw[base_topic], source, clock, extra, kind, notes,
                                           frames=frames)
    if imu and imu_frame is None:
        imu_frame, mounting = _imu_link(source, base_topic, robot, frames, notes)
    wrench_streams = [_stream(tp, raw[tp], source, clock, extra, "wrench", notes, base_topic if imu else None,
                              robot) for _, tp in pairs]
    on = {}
    for name, stream_clock in [("the joint states", js_clock[0]), (base_topic, base_clock),
                               *((tp, stream[3]) for (_, tp), stream in zip(pairs, wrench_streams))]:
        on.setdefault(stream_clock, []).append(name)
    if len(on) > 1:
        # header stamps and receive times differ by the transport lag: a wrench of one clock interpolated at joint
        # samples of the other was another instant's, with a note only; read again, all on the receive clock
        mixed = _floating_from(path, source, robot, contacts, contents, topic=topic, base_topic=asked[0],
                               clock="receive", joints=asked[1], imu_frame=asked[2])
        note = two_clocks_note(source, on["header"], on["receive"])
        return dataclasses.replace(mixed, notes=(*mixed.notes, note))
    t = js.t
    ids = covered(t, [tb] + [ts for ts, _, _, _ in wrench_streams])
    if ids.size < t.size:
        notes.append(f"{source}: {counted(t.size - ids.size, 'samples')} outside the span the base and contact "
                     "topics cover dropped")
    tk = t[ids]
    if len(tk) < 3:
        raise DataError(f"{source}: only {counted(len(tk), 'samples')} where the joint, base and contact topics "
                        "overlap")
    if imu:
        motion, base_tau = ImuTrajectory, None
        q, qd, qdd = _imu_motion(source, robot, js, ids, tk, tb, base, base_topic, mounting, imu_frame, notes)
    else:
        motion = Trajectory
        # not interpolated: a base message at each joint sample kept (baseparam's writer, a common clock)
        pose, matched = _at(tk, tb, base, slice(3, 7))
        if matched is None:
            notes.append(f"{source}: base topic {shown_name(base_topic)} linearly interpolated at the times of the "
                         "joint states")
        if kind == "odometry":
            twist = pose[:, 7:13]
        else:
            # v = Rᵀ ṗ
            velocity = np.einsum("sji,sj->si", rotation_matrices(pose[:, 3:7]), central_differences(pose[:, :3], tk))
            twist = np.column_stack([velocity, _omega(tk, pose[:, 3:7])])
            notes.append(f"{source}: base twist derived from the poses of {shown_name(base_topic)} "
                         "(central differences)")
        jq, jqd = _joint_states(source, js, ids, tk, notes)
        q, qd = np.hstack([pose[:, :7], jq]), np.hstack([twist, jqd])
        base_qdd = None if matched is None else attached(extra, f"baseparam{base_topic}/qdd", border, 6, matched,
                                                        notes, source)
        given = np.hstack([base_qdd, js.qdd[ids]]) if js.qdd is not None and base_qdd is not None else None
        qdd = _or_derived(given, qd, tk, notes, f"{source}: accelerations derived from the velocities")
        base_tau = None if matched is None else attached(extra, f"baseparam{base_topic}/tau", border, 6, matched,
                                                        notes, source)
    # τ: the base wrench (zero when not attached) and the joint stream's efforts
    tau = None if js.tau is None else np.hstack([np.zeros((tk.size, 6)) if base_tau is None else base_tau,
                                                 js.tau[ids]])
    wrenches = [_at(tk, ts, values) for ts, values, _, _ in wrench_streams]
    if any(matched is None for _, matched in wrenches):
        notes.append(f"{source}: contact wrench topics linearly interpolated at the times of the joint states")
    wrenches = np.stack([values for values, _ in wrenches], axis=1) if pairs else None
    return motion(t=tk, q=q, qd=qd, qdd=qdd, tau=tau, source=source, floating=True, joint_names=js.joint_names,
                  notes=tuple(notes), wrenches=wrenches, contacts=tuple(n for n, _ in pairs))


def _joint_states(source, js, ids, tk, notes):
    """(q (n_samples, n_dof), q̇ (n_samples, n_dof)) of the joint stream ``js`` at its kept samples ``ids`` (times
    ``tk``): q̇ by central differences, with a note, when the bag has no velocities."""
    jq = js.q[ids]
    return jq, _or_derived(None if js.qd is None else js.qd[ids], jq, tk, notes,
                           f"{source}: joint velocities derived from the positions")


def _or_derived(given, values, t, notes, note):
    """``given``, or when it is None the rates of ``values`` (S, k) on the times ``t`` (S,) by central differences,
    with ``note`` (saying which, ending before "(central differences)") added to ``notes``: exactly 0 for a column
    that does not change (a joint held still), as :func:`~baseparam.preprocess` derives them, not round-off."""
    if given is not None:
        return given
    notes.append(f"{note} (central differences)")
    return central_differences(values, t)


def _imu_link(source, topic, robot, frames, notes):
    """(link, its mounting) of an IMU whose link ``imu_frame`` does not name: its messages' ``header.frame_id`` (ROS
    says the readings are in that frame) when it is a link of the robot's URDF, else the base link (None), with a
    note. A frame_id naming a link a joint moves is refused: the IMU is not on the base."""
    named = [f for f in frames if f]
    links = _urdf_links(robot)[0] if robot.from_urdf_text else ()
    if len(named) == 1 and named[0] in links:
        try:
            return named[0], imu_mounting(robot, named[0])
        except SettingsError as exc:
            reason = str(exc).split(": ", 1)[-1]
            raise DataError(f"{source}: topic {shown_name(topic)}: header.frame_id {shown(named[0])}: {reason}; "
                            "name the IMU's link with imu_frame= if the frame is not where the IMU sits") from None
    if named:
        shown_frames = ", ".join(shown(f) for f in named[:3])
        notes.append(f"{source}: IMU topic {shown_name(topic)}: header.frame_id {shown_frames} "
                     f"{'names no link of the robot' if len(named) == 1 else 'changes from message to message'}: the "
                     "IMU taken at the base frame (name its link with imu_frame=)")
    return None, (np.zeros(3), np.eye(3))


def _imu_motion(source, robot, js, ids, tk, tb, values, base_topic, mounting, imu_frame, notes):
    """(q, q̇, q̈) of :func:`read_floating_bag` from an IMU's stream (times ``tb``; values: orientation x y z w,
    rate, specific force, orientation-given flag) at the kept joint samples ``ids`` (times ``tk``)."""
    oriented = bool(values[:, 10].all())
    at, matched = _at(tk, tb, values, slice(0, 4) if oriented else None)
    if matched is None:
        notes.append(f"{source}: IMU topic {shown_name(base_topic)} linearly interpolated at the times of the "
                     "joint states")
    elif oriented:      # as logged: unit within the slack, made unit as the interpolated ones are
        at[:, :4] /= np.linalg.norm(at[:, :4], axis=1, keepdims=True)
    position, rotation = mounting
    q, qd, qdd = base_from_imu(tk, at[:, :4] if oriented else None, at[:, 4:7], at[:, 7:10],
                               gravity=robot.gravity_si, position=position, rotation=rotation, source=source)
    where = f"{shown(imu_frame)} at {np.round(position, 6).tolist()} m" if imu_frame else "the base frame"
    notes.append(f"{source}: base from the IMU on {shown_name(base_topic)} ({where}): position and linear "
                 "velocity not measured (0: the torques need only the specific force), ω̇ by central differences"
                 + ("" if oriented else "; no orientation given (the identity: the torques do not depend on it)"))
    jq, jqd = _joint_states(source, js, ids, tk, notes)
    jqdd = _or_derived(None if js.qdd is None else js.qdd[ids], jqd, tk, notes,
                       f"{source}: joint accelerations derived from the velocities")
    return np.hstack([q, jq]), np.hstack([qd, jqd]), np.hstack([qdd, jqdd])
