"""Floating-base logs in ROS bags (ROS 2 ``.mcap`` files and bag folders, ROS 1 ``.bag``): the joints'
``sensor_msgs/JointState`` (read by :mod:`~baseparam.identification._bags`, joints by name), the base
pose from ``nav_msgs/Odometry`` or ``geometry_msgs/PoseStamped``, and one ``geometry_msgs/WrenchStamped``
topic per contact, all put on the joint stream's clock.

* Base (``base_topic``; default the one Odometry or PoseStamped topic of the bag): the pose is the
  frame-0 position and quaternion (x, y, z, w). An Odometry's twist (ROS: in the child frame, that is
  frame 0's axes; linear then angular) is the base twist; a PoseStamped has none, and the twist is
  derived from the pose: v = Rᵀ ṗ, ω = 2 vec(q̄ ⊗ q̇), with ``np.gradient`` on the stamps (central
  differences, as :func:`~baseparam.preprocess` derives unlogged rates; no filtering here).
* Contacts: the wrench ``[force, torque]`` of each contact's topic, in the order of ``contacts``.
* Times: header stamps (or receive times, ``clock``), each topic sorted; the base and wrench streams are
  linearly interpolated at the joint stream's times (the quaternion then renormalized), and samples
  outside the span every stream covers are dropped, with a note, as the fixed-base reader aligns
  several topics. A stream with a message at each of the joint stream's times is taken as it is (no interpolation).
* q̈ and the base wrench (``tau``'s first six) are not in these messages: baseparam's writer attaches
  them (MCAP attachments ``baseparam<topic>/qdd``, ``baseparam<base_topic>/tau``), else q̈ is derived
  by central differences and the base wrench is zero (the contacts carry the forces on a legged robot).
"""
from __future__ import annotations


import numpy as np

from ..errors import DataError, printable
# the base quaternions' slack and test are the motion type's own (Trajectory(floating=True) checks them too)
from ..motion import not_unit

BASE_TYPES = {"nav_msgs/Odometry": "odometry", "geometry_msgs/PoseStamped": "pose"}
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
}


def _stream(topic, entry, source, clock, extra, kind, notes):
    """(times (M,), values (M, k), message indices (M,)) of a base or wrench topic on the chosen clock, its
    messages deserialized by rosbags one at a time; a damaged one refused in one line."""
    from ._bags import _exact_times, _ns_to_s, _Stream, _with_clock, deserialized

    def damaged(index, reason):
        return DataError(f"{source}: topic {topic}: message {index}: damaged "
                         f"{_short(entry[0]).rsplit('/', 1)[-1]} ({reason})")

    items = list(deserialized(topic, entry, source))
    if not items:
        raise DataError(f"{source}: topic {topic}: no messages")
    order, received, stamps, msgs = zip(*items)
    if None in stamps:
        i = stamps.index(None)
        raise damaged(order[i], msgs[i])
    stamps, received, order = np.array(stamps), _ns_to_s(np.array(received)), np.array(order)
    values = np.array([_VALUES[kind](m) for m in msgs], dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        raise damaged(int(order[np.argmax(bad.any(axis=1))]), "a value is not a finite number")
    if kind != "wrench":
        # a default-constructed (all-zero) orientation otherwise reached the fit at the stamps that need no
        # interpolation, and was refused there without the file or message
        norm = np.linalg.norm(values[:, 3:7], axis=1)
        off = not_unit(norm)
        if off.any():
            i = int(np.argmax(off))
            raise damaged(int(order[i]), f"orientation of norm {norm[i]:.6g}, not a unit quaternion")
    # on the chosen clock and sorted, with the exact times baseparam's writer attached, as the joints' stream
    stream = _with_clock(_Stream(topic, (), stamps, received, order, {"": values}), clock, source, notes)
    _exact_times(stream, extra or {}, notes)
    t = stream.stamps
    if t.size > 1 and not (np.diff(t) > 0).all():
        clock = "receive" if clock == "header" and not stamps.any() else clock
        raise DataError(f"{source}: topic {topic}: two messages with one time stamp ({clock} clock)")
    return t, stream.arrays[""], stream.order


def _same_times(t, ts):
    """Indices i with ts[i] == t (every time of t among ts, exactly), or None."""
    i = np.minimum(np.searchsorted(ts, t), ts.size - 1)
    return i if np.array_equal(ts[i], t) else None


def _at(t, ts, values):
    """values (M, k) at times t: taken as they are at times ts has too, else linearly interpolated."""
    i = _same_times(t, ts)
    if i is not None:
        return values[i]
    return np.column_stack([np.interp(t, ts, values[:, k]) for k in range(values.shape[1])])


def _attached(extra, name, order, width, rows):
    """An attachment of baseparam's writer (M·width float64 in message order) at the stream's sorted messages
    ``rows``, or None."""
    values = extra.get(name) if extra else None
    if values is None or values.size != order.size * width:
        return None
    return values.reshape(order.size, width)[order][rows]


def _omega(t, quat):
    """Body angular velocity 2 vec(q̄ ⊗ q̇) of unit quaternions (x, y, z, w) (S, 4) on times t."""
    # q and −q are one orientation, and a publisher may switch between them (tf2 does not normalize the sign):
    # differenced across a switch, q̇ is of order 2/dt and ω garbage (kept on one hemisphere, ω is sign-free)
    quat = one_hemisphere(quat)
    qd = np.gradient(quat, t, axis=0)
    x, y, z, w = quat.T
    dx, dy, dz, dw = qd.T
    return 2 * np.column_stack([w * dx - x * dw - y * dz + z * dy,
                                w * dy + x * dz - y * dw - z * dx,
                                w * dz - x * dy + y * dx - z * dw])


def read_floating_bag(path, source, robot, contacts=(), *, topic=None, base_topic=None, clock="header",
                      joints=None):
    """A floating-base :class:`~baseparam.Trajectory` (``wrenches`` (S, C, 6) for the contacts) from a
    ROS bag (module notes)."""
    from ..dynamics.floating import rotation_matrices
    from ..motion import Trajectory
    from ..model.robot import joint_names
    from ._bag_files import read_raw
    from ._bags import read_bag, shown_contents, topics_listed

    pairs = contact_topics(contacts)
    if joints is None:
        joints = joint_names(robot.joints)
    named = ([base_topic] if base_topic else []) + [tp for _, tp in pairs]
    # read once for the joints, the base and the contacts; through rosbags, with every base pose topic
    # when the base topic is to be found
    # topics and types as the messages show them, as read_bag shows the joints'
    contents = shown_contents(read_raw(path, source, set(named), () if base_topic else tuple(BASE_TYPES)))
    raw, extra, problem, _ = contents
    if problem:
        raise DataError(f"{source}: {problem}")
    js = read_bag(path, source, topic=topic, n_dof=robot.n_dof, joints=joints, clock=clock, contents=contents)
    # the topics asked for, found among them by the same names
    base_topic = None if base_topic is None else printable(base_topic)
    pairs = [(name, printable(tp)) for name, tp in pairs]
    types = {tp: _short(v[0]) for tp, v in raw.items()}
    if base_topic is None:
        found = [tp for tp, ty in types.items() if ty in BASE_TYPES]
        if len(found) != 1:
            raise DataError(f"{source}: {'no' if not found else 'several'} base pose topics (nav_msgs/Odometry or "
                            f"geometry_msgs/PoseStamped; the bag has {topics_listed(raw)}); name one with "
                            "base_topic=")
        base_topic = found[0]
    if base_topic not in raw:
        raise DataError(f"{source}: base pose topic {base_topic}: not in the bag "
                        f"(it has {topics_listed(raw)})")
    if types[base_topic] not in BASE_TYPES:
        raise DataError(f"{source}: base pose topic {base_topic}: type {types[base_topic] or 'unknown'}; expected "
                        "nav_msgs/Odometry or geometry_msgs/PoseStamped")
    for name, tp in pairs:
        if tp not in raw:
            raise DataError(f"{source}: contact {name}: wrench topic {tp} not in the bag "
                            f"(it has {topics_listed(raw)})")
        if types[tp] != WRENCH_TYPE:
            raise DataError(f"{source}: contact {name}: topic {tp}: type {types[tp] or 'unknown'}; expected "
                            f"{WRENCH_TYPE}")
    notes = list(js.notes)
    kind = BASE_TYPES[types[base_topic]]
    tb, base, border = _stream(base_topic, raw[base_topic], source, clock, extra, kind, notes)
    wrench_streams = [_stream(tp, raw[tp], source, clock, extra, "wrench", notes) for _, tp in pairs]
    t = js.t
    keep = np.ones(t.size, dtype=bool)
    for ts, _, _ in [(tb, None, None)] + wrench_streams:
        keep &= (t >= ts[0]) & (t <= ts[-1])
    ids = np.flatnonzero(keep)
    if ids.size < t.size:
        notes.append(f"{source}: {t.size - ids.size} samples outside the span the base and contact topics cover "
                     "dropped")
    tk = t[ids]
    if len(tk) < 3:
        raise DataError(f"{source}: only {len(tk)} samples where the joint, base and contact topics overlap")
    # not interpolated: a base message at each joint sample kept (baseparam's writer, a common clock)
    matched = _same_times(tk, tb)
    interpolated = matched is None
    if interpolated:
        base = base.copy()
        base[:, 3:7] = one_hemisphere(base[:, 3:7])
    pose = _at(tk, tb, base)
    if interpolated:
        pose[:, 3:7] /= np.linalg.norm(pose[:, 3:7], axis=1, keepdims=True)
        notes.append(f"{source}: base topic {base_topic} linearly interpolated at the times of the joint states")
    if kind == "odometry":
        twist = pose[:, 7:13]
    else:
        # v = Rᵀ ṗ
        velocity = np.einsum("sji,sj->si", rotation_matrices(pose[:, 3:7]), np.gradient(pose[:, :3], tk, axis=0))
        twist = np.column_stack([velocity, _omega(tk, pose[:, 3:7])])
        notes.append(f"{source}: base twist derived from the poses of {base_topic} (central differences)")
    jq, jqd = js.q[ids], (None if js.qd is None else js.qd[ids])
    if jqd is None:
        jqd = np.gradient(jq, tk, axis=0)
        notes.append(f"{source}: joint velocities derived from the positions (central differences)")
    base_qdd = None if interpolated else _attached(extra, f"baseparam{base_topic}/qdd", border, 6, matched)
    if js.qdd is not None and base_qdd is not None:
        qdd = np.hstack([base_qdd, js.qdd[ids]])
    else:
        qdd = np.gradient(np.hstack([twist, jqd]), tk, axis=0)
        notes.append(f"{source}: accelerations derived from the velocities (central differences)")
    tau = None
    if js.tau is not None:
        base_tau = None if interpolated else _attached(extra, f"baseparam{base_topic}/tau", border, 6, matched)
        tau = np.hstack([np.zeros((tk.size, 6)) if base_tau is None else base_tau, js.tau[ids]])
    wrenches = (np.stack([_at(tk, ts, values) for ts, values, _ in wrench_streams], axis=1) if pairs else None)
    if any(_same_times(tk, ts) is None for ts, _, _ in wrench_streams):
        notes.append(f"{source}: contact wrench topics linearly interpolated at the times of the joint states")
    return Trajectory(t=tk, q=np.hstack([pose[:, :7], jq]), qd=np.hstack([twist, jqd]), qdd=qdd, tau=tau,
                      source=source, floating=True, joint_names=js.joint_names, notes=tuple(notes),
                      wrenches=wrenches, contacts=tuple(n for n, _ in pairs))
