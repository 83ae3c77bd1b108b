"""Floating-base logs through bp.read_trajectory / bp.write_trajectory and `identify --route` (issue 27 with
issue 23's readers): CSV, NPZ, Parquet and ROS bags (JointState, nav_msgs/Odometry or PoseStamped, a
WrenchStamped per contact).

Checked against independent things: the bit-exact NPZ/CSV path (the fit of the same experiment read from a
bag equals the fit from NPZ to 1e-10), a bag written by rosbags' own writer (not baseparam's), and the
simulated truth (the twist derived from a PoseStamped's poses against the simulated twist).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from test_floating_identification import SPACE, needs_solo, stance_experiment

FIELDS = ("t", "q", "qd", "qdd", "tau", "wrenches")




def invoke(*args):
    return CliRunner().invoke(main, ["identify", *map(str, args)])


def one_line_error(result, *words):
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output, result.output
    for word in words:
        assert word in result.output, result.output


@pytest.mark.parametrize("ext", ["csv", "npz", "parquet", "mcap"])
def test_written_and_read_back_bit_for_bit(space, tmp_path, ext):
    robot = bp.load_robot(SPACE)
    wrenches = np.random.default_rng(1).normal(size=(space.log.n_samples, 2, 6))
    log = dataclasses.replace(space.log, wrenches=wrenches, contacts=("left", "right"))
    path = bp.write_trajectory(log, tmp_path / f"log.{ext}")
    back = bp.read_trajectory(path, robot=robot, contacts=["left", "right"])
    assert back.floating and back.contacts == ("left", "right")
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(back, field), getattr(log, field), err_msg=field)
    # without contacts: the motion alone
    alone = bp.read_trajectory(path, robot=robot)
    assert alone.wrenches is None and np.array_equal(alone.q, log.q)


def rosbags_bag(path, t, q, qd, *, pose_only=False, damage=None, storage="mcap", wrenches=None, base_topic="/base",
                wrench_frame="f", receive_lag=None):
    """The space robot's log as a ROS 2 MCAP bag written by rosbags: JointState on /joint_states, the base on
    ``base_topic`` (Odometry, or PoseStamped), stamps rounded to the ns. ``damage``: the index of a base message cut
    short; ``wrenches``: {topic: (times (M,), values (M, 6))} written as WrenchStamped; ``receive_lag``: every
    message received that many seconds after its time, the WrenchStamped ones with header stamps zero."""
    from rosbags.typesys import Stores, get_typestore
    ros1 = storage == "ros1"
    ts = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    T = ts.types
    serialize = ts.serialize_ros1 if ros1 else ts.serialize_cdr
    n = q.shape[1] - 7
    names = [f"joint{k}" for k in range(1, n + 1)]
    base_type = "geometry_msgs/msg/PoseStamped" if pose_only else "nav_msgs/msg/Odometry"

    def vec(kind, v):
        return T[kind](x=float(v[0]), y=float(v[1]), z=float(v[2]))

    if ros1:
        from rosbags.rosbag1 import Writer
        writer = Writer(path)
    else:
        from rosbags.rosbag2 import StoragePlugin, Writer
        writer = Writer(path, version=9, storage_plugin=getattr(StoragePlugin, storage.upper()))
    with writer:
        js = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        base = writer.add_connection(base_topic, base_type, typestore=ts)
        for k, tk in enumerate(t):
            ns = int(round(tk * 1e9))
            stamp = T["builtin_interfaces/msg/Time"](sec=ns // 10**9, nanosec=ns % 10**9)
            header = (T["std_msgs/msg/Header"](seq=k, stamp=stamp, frame_id="w") if ros1 else
                      T["std_msgs/msg/Header"](stamp=stamp, frame_id="w"))
            msg = T["sensor_msgs/msg/JointState"](header=header, name=names, position=q[k, 7:].copy(),
                                                  velocity=qd[k, 6:].copy(), effort=np.zeros(0))
            received = ns if receive_lag is None else ns + int(round(receive_lag * 1e9))
            writer.write(js, received, serialize(msg, "sensor_msgs/msg/JointState"))
            pose = T["geometry_msgs/msg/Pose"](position=vec("geometry_msgs/msg/Point", q[k, :3]),
                                               orientation=T["geometry_msgs/msg/Quaternion"](
                                                   x=q[k, 3], y=q[k, 4], z=q[k, 5], w=q[k, 6]))
            if pose_only:
                msg = T[base_type](header=header, pose=pose)
            else:
                twist = T["geometry_msgs/msg/Twist"](linear=vec("geometry_msgs/msg/Vector3", qd[k, :3]),
                                                     angular=vec("geometry_msgs/msg/Vector3", qd[k, 3:6]))
                msg = T[base_type](header=header, child_frame_id="b",
                                   pose=T["geometry_msgs/msg/PoseWithCovariance"](pose=pose, covariance=np.zeros(36)),
                                   twist=T["geometry_msgs/msg/TwistWithCovariance"](twist=twist,
                                                                                    covariance=np.zeros(36)))
            data = serialize(msg, base_type)
            writer.write(base, received, data[:40] if k == damage else data)
        for topic, (times, values) in (wrenches or {}).items():
            conn = writer.add_connection(topic, "geometry_msgs/msg/WrenchStamped", typestore=ts)
            for tk, w in zip(times, values):
                ns = int(round(tk * 1e9))
                stamp = T["builtin_interfaces/msg/Time"](sec=ns // 10**9, nanosec=ns % 10**9)
                if receive_lag is not None:
                    ns, stamp = ns + int(round(receive_lag * 1e9)), T["builtin_interfaces/msg/Time"](sec=0, nanosec=0)
                wrench = T["geometry_msgs/msg/Wrench"](force=vec("geometry_msgs/msg/Vector3", w[:3]),
                                                       torque=vec("geometry_msgs/msg/Vector3", w[3:]))
                header = (T["std_msgs/msg/Header"](seq=0, stamp=stamp, frame_id=wrench_frame) if ros1 else
                          T["std_msgs/msg/Header"](stamp=stamp, frame_id=wrench_frame))
                msg = T["geometry_msgs/msg/WrenchStamped"](header=header, wrench=wrench)
                writer.write(conn, ns, serialize(msg, "geometry_msgs/msg/WrenchStamped"))
    return path


@pytest.mark.parametrize("storage", ["mcap", "sqlite3", "ros1"])
def test_space_robot_bag_of_rosbags_gives_the_npz_fit(space, tmp_path, storage):
    robot = bp.load_robot(SPACE)
    log = space.log
    bag = rosbags_bag(tmp_path / ("bag.bag" if storage == "ros1" else "bag"), log.t, log.q, log.qd, storage=storage)
    traj = bp.read_trajectory(bag, robot=robot)
    np.testing.assert_allclose(traj.t, log.t, rtol=0, atol=1e-9)          # stamps: t rounded to the ns
    np.testing.assert_array_equal(traj.q, log.q)
    np.testing.assert_array_equal(traj.qd, log.qd)
    bp.write_trajectory(log, tmp_path / "log.npz")
    out = {}
    for name, path in (("npz", tmp_path / "log.npz"), ("bag", bag)):
        result = invoke(SPACE, path, "--route", "momentum", "--known", "mass=448", "--json", tmp_path / f"{name}.json")
        assert result.exit_code == 0, result.output
        import json
        out[name] = json.loads((tmp_path / f"{name}.json").read_text())
    values = {k: np.array([c["value"] for c in v["combinations"]]) for k, v in out.items()}
    np.testing.assert_allclose(values["bag"], values["npz"], rtol=1e-10, atol=1e-10 * np.abs(values["npz"]).max())
    reference = bp.identify_floating(robot, log, route="momentum", known={"mass": 448.0})
    np.testing.assert_allclose(values["npz"], reference.values, rtol=1e-10, atol=1e-10 * np.abs(reference.values).max())


def test_wrench_topics_at_their_own_rates_aligned(space, tmp_path):
    """A force plate at 50 Hz and another covering 1 … 9 s only, beside 20 Hz joint states: wrenches linear in time
    are interpolated exactly at the joint times, the samples outside the second plate's span dropped, the base
    (stamped as the joints) taken as it is."""
    robot = bp.load_robot(SPACE)
    log = space.log
    a, b = np.arange(6.0), np.linspace(-1, 1, 6)
    fast = np.arange(0, 10.0 + 1e-9, 0.02)
    part = np.arange(1.0, 9.0 + 1e-9, 0.05) + 0.01
    plates = {"/left/wrench": (fast, a + np.outer(fast, b)), "/right/ft": (part, a - np.outer(part, b))}
    bag = rosbags_bag(tmp_path / "bag", log.t, log.q, log.qd, wrenches=plates)
    traj = bp.read_trajectory(bag, robot=robot, contacts={"left": "/left/wrench", "right": "/right/ft"})
    keep = (log.t >= part[0] - 1e-9) & (log.t <= part[-1] + 1e-9)
    assert traj.n_samples == keep.sum() < log.n_samples
    np.testing.assert_allclose(traj.t, log.t[keep], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(traj.q, log.q[keep])
    np.testing.assert_allclose(traj.wrenches[:, 0], a + np.outer(traj.t, b), rtol=0, atol=1e-12)
    np.testing.assert_allclose(traj.wrenches[:, 1], a - np.outer(traj.t, b), rtol=0, atol=1e-12)
    assert traj.contacts == ("left", "right")
    assert any("outside the span" in note for note in traj.notes)
    assert any("contact wrench topics linearly interpolated" in note for note in traj.notes)


@pytest.mark.parametrize("frame", ["world", "/odom", "robot1/map"])
def test_wrench_in_a_world_frame_is_refused_not_taken_for_the_contacts(space, tmp_path, frame):
    """A contact's wrench is read in its link's frame; a force plate's logged in a world frame (its
    header.frame_id) was taken for that silently, with an Odometry base as with an IMU one: refused in one line."""
    robot = bp.load_robot(SPACE)
    log = space.log
    plates = {"/left/wrench": (log.t, np.ones((log.n_samples, 6)))}
    bag = rosbags_bag(tmp_path / "bag", log.t, log.q, log.qd, wrenches=plates, wrench_frame=frame)
    with pytest.raises(bp.errors.DataError, match=r"/left/wrench: message 0: a wrench in the world frame .*"
                                                  r"read in the frame of its link"):
        bp.read_trajectory(bag, robot=robot, contacts={"left": "/left/wrench"})
    fine = rosbags_bag(tmp_path / "fine", log.t, log.q, log.qd, wrenches=plates, wrench_frame="left_foot")
    assert bp.read_trajectory(fine, robot=robot, contacts={"left": "/left/wrench"}).contacts == ("left",)


def test_twist_derived_from_poses(space, tmp_path):
    """A PoseStamped base: v = Rᵀṗ and ω from the quaternion's rate, against the simulated twist (central
    differences at 20 Hz: second-order error)."""
    robot = bp.load_robot(SPACE)
    truth = space.truth
    bag = rosbags_bag(tmp_path / "bag", truth.t, truth.q, truth.qd, pose_only=True)
    traj = bp.read_trajectory(bag, robot=robot)
    inner = slice(1, -1)                     # one-sided differences at the ends
    error = np.abs(traj.qd[inner, :6] - truth.qd[inner, :6]).max(axis=0)
    scale = np.abs(truth.qd[:, :6]).max(axis=0)
    assert (error <= 0.02 * scale + 1e-9).all(), (error, scale)
    assert any("derived from the poses" in note for note in traj.notes)
    np.testing.assert_array_equal(traj.qd[:, 6:], truth.qd[:, 6:])


def test_damaged_message_and_missing_topics_refused(space, tmp_path):
    log = space.log
    bag = rosbags_bag(tmp_path / "bag", log.t, log.q, log.qd, damage=17)
    one_line_error(invoke(SPACE, bag, "--route", "momentum", "--known", "mass=448"), "topic /base", "message 17",
                   "damaged Odometry")
    good = rosbags_bag(tmp_path / "good", log.t, log.q, log.qd)
    one_line_error(invoke(SPACE, good, "--route", "momentum", "--known", "mass=448", "--base-topic", "/odom"),
                   "base pose topic /odom: not in the bag")
    one_line_error(invoke(SPACE, good, "--route", "momentum", "--base-topic", "/joint_states"),
                   "/joint_states: type sensor_msgs/JointState")
    (tmp_path / "contacts.yaml").write_text("contacts:\n  - {link: 0, name: plate, topic: /plate/ft}\n")
    one_line_error(invoke(SPACE, good, "--route", "base", "--contacts", tmp_path / "contacts.yaml"),
                   "contact plate: wrench topic /plate/ft not in the bag")
    bp.write_trajectory(log, tmp_path / "log.npz")
    one_line_error(invoke(SPACE, tmp_path / "log.npz", "--route", "momentum", "--base-topic", "/odom"),
                   "log.npz: --base-topic /odom applies to ROS bags")
    # baseparam's own MCAP cut in half: the file and the byte named
    bp.write_trajectory(log, tmp_path / "whole.mcap")
    data = (tmp_path / "whole.mcap").read_bytes()
    (tmp_path / "cut.mcap").write_bytes(data[:len(data) // 2])
    one_line_error(invoke(SPACE, tmp_path / "cut.mcap", "--route", "momentum", "--known", "mass=448"),
                   "cut.mcap: cannot read as MCAP: truncated at byte")
    (tmp_path / "bad.yaml").write_text("contacts:\n  - {link: 0, topic: plate}\n")
    one_line_error(invoke(SPACE, good, "--route", "base", "--contacts", tmp_path / "bad.yaml"),
                   "bad.yaml: contacts[1]: wrench topic 'plate'")


def test_contacts_file_read_once_gives_the_wrench_topics(tmp_path):
    """read_contacts(topics=True) (the CLI's one read) names the topics as wrench_topics does: topic:, else
    /<name>/wrench, an unnamed contact k named contact<k>; one name twice refused."""
    from baseparam.identification.floating_logs import read_contacts, wrench_topics
    path = tmp_path / "contacts.yaml"
    path.write_text("contacts:\n  - {link: 0, name: a}\n  - {link: 0, topic: /x/ft}\n  - {link: 0}\n")
    contacts, topics = read_contacts(path, topics=True)
    assert topics == {"a": "/a/wrench", "contact2": "/x/ft", "contact3": "/contact3/wrench"}
    assert contacts == read_contacts(path) and wrench_topics(path, contacts) == topics
    path.write_text("contacts:\n  - {link: 0, name: a}\n  - {link: 1, name: a}\n")
    with pytest.raises(bp.DataError, match=r"contacts\[2\]: name 'a' given twice"):
        read_contacts(path, topics=True)


@pytest.mark.parametrize("text", ["contacts: 3\n", "contacts: []\n", "links: [1]\n"])
def test_contacts_file_without_a_list_shows_its_form(tmp_path, text):
    """A contacts file without a list under contacts: is refused with the form it takes, its braces balanced (the
    message's second literal, not an f-string, printed '}}')."""
    from baseparam.identification.floating_logs import read_contacts
    path = tmp_path / "contacts.yaml"
    path.write_text(text)
    with pytest.raises(bp.DataError) as info:
        read_contacts(path)
    assert str(info.value) == (f"{path}: contacts: expected a list of "
                               "{link: NAME_OR_NUMBER, xyz: [x, y, z], rpy: [r, p, y]}")


@pytest.mark.parametrize("storage", ["mcap", "sqlite3", "ros1"])
def test_base_topic_names_from_the_bag_escaped(space, tmp_path, storage):
    """A base topic found in the bag (not named by the caller) whose name holds a newline: the notes and the
    damaged message's error show it escaped, as the joints' topics are, so the bag cannot forge lines of the
    output."""
    robot = bp.load_robot(SPACE)
    log = space.log
    name = "bag.bag" if storage == "ros1" else "bag"
    bag = rosbags_bag(tmp_path / f"pose-{name}", log.t, log.q, log.qd, pose_only=True, storage=storage,
                      base_topic="/ba\nse")
    notes = [n for n in bp.read_trajectory(bag, robot=robot).notes if "derived from the poses" in n]
    assert len(notes) == 1 and "/ba\\nse" in notes[0] and "\n" not in notes[0], notes
    damaged = rosbags_bag(tmp_path / f"damaged-{name}", log.t, log.q, log.qd, damage=5, storage=storage,
                          base_topic="/ba\nse")
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(damaged, robot=robot)
    assert "topic /ba\\nse: message 5: damaged Odometry" in str(err.value) and "\n" not in str(err.value)
    # topics named by the caller are found by the same names, and shown escaped when they are not in the bag
    values = np.arange(6.0) + np.outer(log.t, np.linspace(-1, 1, 6))
    plate = rosbags_bag(tmp_path / f"plate-{name}", log.t, log.q, log.qd, storage=storage, base_topic="/ba\nse",
                        wrenches={"/pl\nate": (log.t, values)})
    traj = bp.read_trajectory(plate, robot=robot, base_topic="/ba\nse", contacts={"plate": "/pl\nate"})
    np.testing.assert_allclose(traj.wrenches[:, 0], values, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(traj.q, log.q)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(plate, robot=robot, contacts={"plate": "/no\npe"})
    assert "wrench topic /no\\npe not in the bag" in str(err.value) and "\n" not in str(err.value)


def test_topics_with_a_newline_read_back_bit_for_bit(space, tmp_path):
    """baseparam's own MCAP whose joint or base topic holds a newline reads back to the last bit (the times and q̈
    attached beside the topic found by the topic's name as shown, escaped), as a fixed-base log does."""
    robot = bp.load_robot(SPACE)
    wrenches = np.random.default_rng(1).normal(size=(space.log.n_samples, 1, 6))
    log = dataclasses.replace(space.log, wrenches=wrenches, contacts=("left",))
    for k, (topic, base_topic) in enumerate((("/joint_states", "/ba\nse"), ("/joint\nstates", "/base"))):
        path = bp.write_trajectory(log, tmp_path / f"log{k}.mcap", topic=topic, base_topic=base_topic)
        back = bp.read_trajectory(path, robot=robot, contacts=["left"])
        for field in FIELDS:
            np.testing.assert_array_equal(getattr(back, field), getattr(log, field), err_msg=f"{topic!r} {field}")
    fixed = bp.Trajectory(t=log.t, q=log.q[:, 7:], qd=log.qd[:, 6:], qdd=log.qdd[:, 6:], tau=log.tau[:, 6:])
    path = bp.write_trajectory(fixed, tmp_path / "fixed.mcap", topic="/joint\nstates")
    back = bp.read_trajectory(path)
    for field in ("t", "q", "qd", "qdd", "tau"):
        np.testing.assert_array_equal(getattr(back, field), getattr(fixed, field), err_msg=field)


@needs_solo
def test_legged_robot_on_force_plates_from_mcap(tmp_path):
    """solo12 standing on force plates, written as an MCAP bag (Odometry, a WrenchStamped per foot on the
    topics the contacts file names): `identify --route torques|base` gives the fit of the NPZ log."""
    import json

    from baseparam.identification.trajectory import robot_joint_names
    from test_floating_identification import SOLO
    model, contacts, _, ex = stance_experiment()
    names = tuple(c.name for c in contacts)
    # a bag's joints are matched by name: the robot's URDF names
    log = dataclasses.replace(ex.log, wrenches=ex.wrenches, contacts=names,
                              joint_names=tuple(robot_joint_names(model.robot)))
    bp.write_trajectory(log, tmp_path / "stance.npz")
    bag = bp.write_trajectory(log, tmp_path / "stance.mcap")
    lines = [f"  - {{link: {c.link}, xyz: [{', '.join(repr(x) for x in c.position)}], name: {c.name}}}"
             for c in contacts]
    (tmp_path / "contacts.yaml").write_text("contacts:\n" + "\n".join(lines) + "\n")
    robot = model.robot
    back = bp.read_trajectory(bag, robot=robot, contacts=contacts)
    assert back.joint_names == log.joint_names
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(back, field), getattr(log, field), err_msg=field)
    # the library: the wrenches read with the log are the fit's by default
    fit = bp.identify_floating(robot, back, route="torques", contacts=contacts)
    same = bp.identify_floating(robot, ex.log, route="torques", contacts=contacts, wrenches=ex.wrenches)
    np.testing.assert_array_equal(fit.values, same.values)
    # each route's fit of the NPZ log with its wrenches, the CLI's reference (the torques route's is `same`: one
    # identification fewer, each a QR of the whole log's rows)
    references = {"torques": same}
    for route in ("torques", "base"):
        values = {}
        for name in ("stance.npz", "stance.mcap"):
            result = invoke(SOLO, tmp_path / name, "--floating", "--route", route, "--contacts",
                            tmp_path / "contacts.yaml", "--json", tmp_path / "out.json")
            assert result.exit_code == 0, result.output
            values[name] = np.array([c["value"] for c in json.loads((tmp_path / "out.json").read_text())
                                     ["combinations"]])
        reference = references.get(route) or bp.identify_floating(robot, ex.log, route=route, contacts=contacts,
                                                                  wrenches=ex.wrenches)
        for v in values.values():
            np.testing.assert_allclose(v, reference.values, rtol=1e-10, atol=1e-10 * np.abs(reference.values).max())
    # a foot's topic missing from the bag: refused in one line naming it
    (tmp_path / "renamed.yaml").write_text("contacts:\n" + "\n".join(lines[:3]) + "\n"
                                           + lines[3].replace("}", ", topic: /HR/ft}") + "\n")
    one_line_error(invoke(SOLO, bag, "--floating", "--route", "base", "--contacts", tmp_path / "renamed.yaml"),
                   "stance.mcap", "wrench topic /HR/ft not in the bag")


def test_lowpass_of_noisy_poses(space, tmp_path):
    """Motion-capture poses with noise: the twist derived after the fixed-base preprocessing's low-pass is
    closer to the simulated one than the raw differences; `identify --cutoff` fits the filtered log (the library
    on the same data to 1e-10), and without --cutoff the log is used as given."""
    import json

    from baseparam.identification.floating_logs import lowpass_floating
    robot = bp.load_robot(SPACE)
    truth = space.truth
    rng = np.random.default_rng(5)
    q = truth.q.copy()
    q[:, :7] += rng.normal(scale=2e-4, size=(q.shape[0], 7))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    bag = rosbags_bag(tmp_path / "bag", truth.t, q, truth.qd, pose_only=True)
    raw = bp.read_trajectory(bag, robot=robot)
    smooth = lowpass_floating(raw, 2.0)
    edge = (raw.n_samples - smooth.n_samples) // 2
    assert edge == 30 and np.array_equal(smooth.t, raw.t[edge:-edge])
    rows = slice(edge, raw.n_samples - edge)
    # RMS over the kept samples: noise ~1/h amplified in the raw differences; the filter's bias is smaller
    raw_error = np.sqrt(np.mean((raw.qd[rows, :6] - truth.qd[rows, :6]) ** 2))
    smooth_error = np.sqrt(np.mean((smooth.qd[:, :6] - truth.qd[rows, :6]) ** 2))
    assert smooth_error < raw_error / 2.5, (smooth_error, raw_error)
    np.testing.assert_allclose(np.linalg.norm(smooth.q[:, 3:7], axis=1), 1.0, rtol=0, atol=1e-15)
    result = invoke(SPACE, bag, "--route", "momentum", "--known", "mass=448", "--cutoff", "2", "--json",
                    tmp_path / "out.json")
    assert result.exit_code == 0, result.output
    assert "low-passed at 2 Hz" in result.output
    values = np.array([c["value"] for c in json.loads((tmp_path / "out.json").read_text())["combinations"]])
    reference = bp.identify_floating(robot, smooth, route="momentum", known={"mass": 448.0})
    np.testing.assert_allclose(values, reference.values, rtol=1e-10, atol=1e-10 * np.abs(reference.values).max())
    one_line_error(invoke(SPACE, bag, "--route", "momentum", "--known", "mass=448", "--cutoff", "15"),
                   "cut-off 15 Hz", "Nyquist")


def _parquet_variants(log, path):
    """A floating-base Parquet log written by baseparam, then damaged one way at a time (name → table)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pq.read_table(bp.write_trajectory(log, path))
    q = table.column("q").to_pylist()
    # rows of 12 and 14 values alternating: S · 13 values in all, as many as the right rows hold
    ragged = [row[:-1] if r % 2 == 0 else row + [0.5] for r, row in enumerate(q)]
    if len(q) % 2:
        ragged[-1] = q[-1]
    return {
        "ragged": (table.set_column(1, "q", pa.array(ragged, type=pa.list_(pa.float64()))), "row 0"),
        "text times": (table.set_column(0, "t", pa.array([str(x) for x in log.t])), "column t"),
        "list times": (table.set_column(0, "t", table.column("q")), "column t"),
        "text values": (table.set_column(1, "q", pa.array([["a"] * 13] * log.n_samples)), "column q"),
        "metadata names": (table.replace_schema_metadata({"baseparam.floating": '{"joint_names": 5}'}), "joint_names"),
    }


def test_damaged_parquet_refused_in_one_line(space, tmp_path):
    # Rows of other lengths than the robot's 13 q values (a total that happens to match S · 13), times or values
    # as text, names that are no list: one DataError line naming the file and the column, not a shifted log
    # or a traceback.
    import pyarrow.parquet as pq
    robot = bp.load_robot(SPACE)
    for name, (table, where) in _parquet_variants(space.log, tmp_path / "good.parquet").items():
        path = tmp_path / f"{name.replace(' ', '_')}.parquet"
        pq.write_table(table, path)
        with pytest.raises(bp.DataError, match=where) as info:
            bp.read_trajectory(path, robot=robot)
        assert str(path) in str(info.value) and "\n" not in str(info.value), name
    # baseparam's metadata key holding no JSON object is damage, refused (read as none, the contacts' names went
    # unchecked); a file without it is another writer's: the columns are the log
    table = pq.read_table(tmp_path / "good.parquet")
    pq.write_table(table.replace_schema_metadata({"baseparam.floating": "[1, 2]"}), tmp_path / "other.parquet")
    with pytest.raises(bp.DataError, match="metadata baseparam.floating: expected a JSON object, got"):
        bp.read_trajectory(tmp_path / "other.parquet", robot=robot)
    pq.write_table(table.replace_schema_metadata({"writer": "[1, 2]"}), tmp_path / "other.parquet")
    back = bp.read_trajectory(tmp_path / "other.parquet", robot=robot)
    np.testing.assert_array_equal(back.q, space.log.q)


@pytest.mark.parametrize("pose_only", [False, True])
def test_base_orientation_not_a_unit_quaternion_refused(space, tmp_path, pose_only):
    # A default-constructed orientation (0, 0, 0, 0) in one base message: at the joint states' own stamps it
    # would go into the fit as it is (nothing is interpolated or renormalized there); refused in one line.
    log = space.log
    q = log.q.copy()
    q[9, 3:7] = 0.0
    bag = rosbags_bag(tmp_path / "bag", log.t, q, log.qd, pose_only=pose_only)
    one_line_error(invoke(SPACE, bag, "--route", "momentum", "--known", "mass=448"), "topic /base", "message 9",
                   "not a unit quaternion")
    # the log's own orientations (unit to round-off) are read
    good = bp.read_trajectory(rosbags_bag(tmp_path / "good", log.t, log.q, log.qd, pose_only=pose_only),
                              robot=bp.load_robot(SPACE))
    np.testing.assert_allclose(good.q, log.q, rtol=0, atol=1e-12)


@pytest.mark.parametrize("ext", ["csv", "npz", "parquet"])
def test_file_with_a_zero_base_quaternion_refused_naming_it(space, tmp_path, ext):
    # As in a bag: refused when read, one line naming the file and the sample (the fit refused it without either)
    log = dataclasses.replace(space.log, q=space.log.q.copy())
    log.q[4, 3:7] = 0.0
    path = bp.write_trajectory(log, tmp_path / f"log.{ext}")
    with pytest.raises(bp.DataError, match=r"log\.\w+: field q: the base quaternion .* sample 4 has norm 0;") as info:
        bp.read_trajectory(path, robot=bp.load_robot(SPACE))
    assert "\n" not in str(info.value)
    one_line_error(invoke(SPACE, path, "--route", "momentum", "--known", "mass=448"), f"log.{ext}", "sample 4")
    # a norm rounding or a filter can explain (within tf2's |‖q‖² − 1| ≤ 0.01) is read as written
    log.q[4, 3:7] = space.log.q[4, 3:7] * 1.004
    path = bp.write_trajectory(log, tmp_path / f"near.{ext}")
    np.testing.assert_array_equal(bp.read_trajectory(path, robot=bp.load_robot(SPACE)).q, log.q)


@pytest.mark.parametrize("ext", ["csv", "npz"])
def test_a_file_name_with_a_newline_gives_one_line(space, tmp_path, ext):
    """A floating log or contacts file whose name holds a newline: the message names it escaped, on one line (a raw
    newline in a name would forge an output line)."""
    from baseparam.identification.floating_logs import read_contacts
    robot = bp.load_robot(SPACE)
    path = tmp_path / f"log\nforged.{ext}"
    bp.write_trajectory(dataclasses.replace(space.log, qd=None), path)      # no q̇: the floating reader refuses it
    with pytest.raises(bp.DataError) as info:
        bp.read_trajectory(path, robot=robot)
    assert "\n" not in str(info.value) and "log\\nforged" in str(info.value), str(info.value)
    contacts = tmp_path / "contacts\nforged.yaml"
    contacts.write_text("contacts: 3\n")
    with pytest.raises(bp.DataError) as info:
        read_contacts(contacts, robot)
    assert "\n" not in str(info.value) and "contacts\\nforged" in str(info.value), str(info.value)


def test_floating_npz_member_of_no_number_type_named_as_such(tmp_path):
    """A floating NPZ log's member of strings is refused as not numeric, in one line naming the file and key (its
    refusal was caught by the archive's own error handler and rewrapped as 'not a valid NPZ member (…)')."""
    path = tmp_path / "log.npz"
    np.savez(path, t=np.arange(3.0), q=np.array([["a"] * 13] * 3))
    from baseparam.identification.floating_logs import read_floating_log
    with pytest.raises(bp.errors.DataError) as info:
        read_floating_log(path, bp.load_robot(SPACE))
    message = str(info.value)
    assert "log.npz: q: not numeric (<U1)" in message and "not a valid NPZ member" not in message, message


@pytest.mark.parametrize("name, said", [("log", "not a file without extension"), ("log.txt", "not '.txt'")])
def test_read_and_write_floating_log_name_a_log_of_another_kind_as_read_floating_does(tmp_path, name, said):
    """read_floating_log and write_floating_log said "not 'without extension'" (quoted as if an extension) for a name
    without one, where read_floating says "not a file without extension"."""
    from baseparam.identification.floating_logs import read_floating_log, write_floating_log
    robot = bp.load_robot(SPACE)
    path = tmp_path / name
    path.write_text("t\n0\n")
    with pytest.raises(bp.DataError, match=f"is .csv or .npz, {said}$"):
        read_floating_log(path, robot)
    traj = bp.Trajectory(t=np.arange(10.0), q=np.tile(np.r_[np.zeros(3), 0, 0, 0, 1, np.zeros(robot.n_dof)], (10, 1)),
                         floating=True)
    with pytest.raises(bp.SettingsError, match=f"is .csv or .npz, {said}$"):
        write_floating_log(tmp_path / ("out" + name[3:]), traj)


def test_a_floating_parquet_log_is_named_on_one_line_as_a_csv_log_is(tmp_path):
    """The Parquet reader named the file raw in its messages: a line break in the name split the library's message
    in two (the CSV and NPZ readers escape it: read_floating_log's label)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.identification.floating_logs import read_floating
    robot = bp.load_robot(SPACE)
    for ext in (".parquet", ".csv"):
        path = tmp_path / f"two\nlines{ext}"
        if ext == ".parquet":
            pq.write_table(pa.table({"t": [0.0, 1.0]}), path)
        else:
            path.write_text("t\n0\n1\n")
        with pytest.raises(bp.DataError, match=r"two\\nlines") as info:
            read_floating(path, robot)
        assert "\n" not in str(info.value)
