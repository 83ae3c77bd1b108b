"""Robot logs (issue 23): ROS bags and Parquet in, CSV/NPZ/Parquet/MCAP out.

The bags here are written by rosbags' own writers (ROS 2 with MCAP and sqlite3 storage, ROS 1) and
the Parquet files by pyarrow directly, never by baseparam's writers, so that reading is checked
against files other tools make; baseparam's writers are checked by reading their files back (to
the last bit) and, for MCAP, by decoding them with ``mcap_ros2`` (the MCAP project's decoder).
"""
import json
import dataclasses
import os
import shutil
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import DATA, ROOT, needs_data, planar_arm

UR_GAINS = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]

NAMES = ["shoulder", "elbow", "wrist"]
RATE = 500.0


def _ns(t):
    return np.round(np.asarray(t) * 1e9).astype(np.int64)


def _stamp_times(t):
    """What a reader makes of ns stamps: sec + nanosec · 1e-9."""
    ns = _ns(t)
    return (ns // 10**9).astype(float) + (ns % 10**9).astype(float) * 1e-9


@pytest.fixture(scope="module")
def motion():
    """A simulated 3R log: t (S,), q, qd, tau (S, 3), torques of the robot's true model."""
    robot = planar_arm()
    t = 1.0 + np.arange(2000) / RATE
    # four harmonics of 0.25 Hz per joint, as an excitation trajectory has
    rng = np.random.default_rng(2)
    w = 2 * np.pi * 0.25 * np.arange(1, 5)
    amp, phase = rng.uniform(0.1, 0.4, (4, 3)), rng.uniform(0, 2 * np.pi, (4, 3))
    arg = t[:, None, None] * w[None, :, None] + phase
    q = (amp * np.sin(arg)).sum(axis=1)
    qd = (amp * w[:, None] * np.cos(arg)).sum(axis=1)
    qdd = (-amp * w[:, None] ** 2 * np.sin(arg)).sum(axis=1)
    tau = bp.inverse_dynamics(bp.Model(robot), q, qd, qdd)
    return robot, _stamp_times(t), q, qd, qdd, tau


def _typestore(ros1=False):
    from rosbags.typesys import Stores, get_typestore
    return get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)


def _message(ts, stamp_ns, names, position=(), velocity=(), effort=(), seq=0, ros1=False):
    T = ts.types["builtin_interfaces/msg/Time"]
    H = ts.types["std_msgs/msg/Header"]
    JS = ts.types["sensor_msgs/msg/JointState"]
    stamp = T(sec=int(stamp_ns // 10**9), nanosec=int(stamp_ns % 10**9))
    header = H(seq=seq, stamp=stamp, frame_id="") if ros1 else H(stamp=stamp, frame_id="")
    return JS(header=header, name=list(names), position=np.ascontiguousarray(position, float),
              velocity=np.ascontiguousarray(velocity, float), effort=np.ascontiguousarray(effort, float))


def write_bag(path, kind, topics):
    """A bag written by rosbags: ``topics[topic] = [(receive_ns, stamp_ns, names, pos, vel, eff), ...]``
    in write order; ``kind`` 'mcap' or 'sqlite3' (ROS 2 folder) or 'ros1' (``path`` a .bag)."""
    ros1 = kind == "ros1"
    ts = _typestore(ros1)
    msgtype = "sensor_msgs/msg/JointState"
    if ros1:
        from rosbags.rosbag1 import Writer
        writer = Writer(path)
    else:
        from rosbags.rosbag2 import StoragePlugin, Writer
        writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP if kind == "mcap" else StoragePlugin.SQLITE3)
    with writer:
        for topic, messages in topics.items():
            conn = writer.add_connection(topic, msgtype, typestore=ts)
            for k, (recv, stamp, names, pos, vel, eff) in enumerate(messages):
                msg = _message(ts, stamp, names, pos, vel, eff, seq=k, ros1=ros1)
                data = ts.serialize_ros1(msg, msgtype) if ros1 else ts.serialize_cdr(msg, msgtype)
                writer.write(conn, int(recv), data)
    return path


def _shuffled_messages(t, q, qd, tau, extra=True, order=(2, 0, 1)):
    """Messages naming the joints in another order, with two gripper joints among them."""
    names = [NAMES[k] for k in order]
    out = []
    for k in range(t.size):
        pos, vel, eff = list(q[k, list(order)]), list(qd[k, list(order)]), list(tau[k, list(order)])
        msg_names = list(names)
        if extra:
            msg_names = msg_names[:1] + ["gripper_left"] + msg_names[1:] + ["gripper_right"]
            for arr, v in ((pos, 0.01), (vel, 0.0), (eff, 1.5)):
                arr.insert(1, v)
                arr.append(v)
        ns = int(_ns(t[k]))
        out.append((ns, ns, msg_names, pos, vel, eff))
    return out


def _bag_path(tmp_path, kind):
    return tmp_path / ("log.bag" if kind == "ros1" else "bag")


@pytest.mark.parametrize("kind", ["mcap", "sqlite3", "ros1"])
def test_bags_of_rosbags_read_by_joint_name(motion, tmp_path, kind, monkeypatch):
    robot, t, q, qd, qdd, tau = motion
    path = write_bag(_bag_path(tmp_path, kind), kind, {"/joint_states": _shuffled_messages(t, q, qd, tau)})
    if kind == "mcap":      # a folder of uncompressed MCAP storage is read by baseparam's MCAP reader, not rosbags
        from baseparam.identification import _bag_files

        def refuse(*args):
            raise AssertionError("an MCAP bag folder read through rosbags")
        monkeypatch.setattr(_bag_files, "_read_rosbags", refuse)
    traj = bp.read_trajectory(path, joints=NAMES)
    assert np.array_equal(traj.t, t) and np.array_equal(traj.q, q)
    assert np.array_equal(traj.qd, qd) and np.array_equal(traj.tau, tau)
    assert traj.joint_names == tuple(NAMES)
    extra = [n for n in traj.notes if "left out" in n]
    assert len(extra) == 1 and "gripper_left, gripper_right" in extra[0]
    assert any("header stamps of /joint_states" in n for n in traj.notes)
    if kind == "mcap":             # the .mcap file inside the folder, through baseparam's own MCAP reader
        inner = next(p for p in os.listdir(path) if p.endswith(".mcap"))
        direct = bp.read_trajectory(path / inner, joints=NAMES)
        assert np.array_equal(direct.q, q) and np.array_equal(direct.tau, tau) and np.array_equal(direct.t, t)


def test_missing_joint_is_one_line(motion, tmp_path):
    robot, t, q, qd, qdd, tau = motion
    path = write_bag(tmp_path / "bag", "mcap", {"/joint_states": _shuffled_messages(t[:50], q, qd, tau)})
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=NAMES + ["forearm"])
    text = str(err.value)
    assert "\n" not in text and "forearm" in text and str(path) in text and "not in the log" in text


def test_robot_gives_the_joint_names(motion, tmp_path):
    """A YAML robot without names: joint1 … jointN (as its URDF export names them)."""
    robot, t, q, qd, qdd, tau = motion
    assert bp.identification.trajectory.robot_joint_names(robot) == ["joint1", "joint2", "joint3"]
    msgs = [(r, s, ["joint3", "joint1", "joint2"], p, v, e) for r, s, _, p, v, e
            in _shuffled_messages(t, q, qd, tau, extra=False)]
    path = write_bag(tmp_path / "bag", "sqlite3", {"/joint_states": msgs})
    traj = bp.read_trajectory(path, robot=robot)
    assert np.array_equal(traj.q, q)


def test_dh_yaml_joint_names_match_a_bag(motion, tmp_path):
    """``name:`` of DH YAML joints (CONTRACT: "URDF names; `name:` in YAML joints") names the robot's joints: a
    bag naming them in another order is read by those names, the YAML written back keeps them, and a name given
    twice is refused in one line naming the file and both joints."""
    from baseparam.identification.trajectory import robot_joint_names
    from baseparam.model.robot import robot_to_yaml
    robot, t, q, qd, qdd, tau = motion
    names = ["base_yaw", "shoulder", "elbow"]
    named = dataclasses.replace(robot, source=None,
                                joints=tuple(dataclasses.replace(j, name=n) for j, n in zip(robot.joints, names)))
    text = robot_to_yaml(named)
    assert text.count("name: ") == 4                       # the robot's and each joint's
    (tmp_path / "named.yaml").write_text(text)
    loaded = bp.load_robot(tmp_path / "named.yaml")
    assert robot_joint_names(loaded) == names
    assert loaded.signature() == robot.signature()          # names do not change the dynamics
    msgs = [(r, s, [names[2], names[0], names[1]], p, v, e) for r, s, _, p, v, e
            in _shuffled_messages(t, q, qd, tau, extra=False)]
    path = write_bag(tmp_path / "bag", "sqlite3", {"/joint_states": msgs})
    traj = bp.read_trajectory(path, robot=loaded)
    assert np.array_equal(traj.q, q) and np.array_equal(traj.tau, tau)
    (tmp_path / "twice.yaml").write_text(text.replace("name: elbow", "name: shoulder"))
    with pytest.raises(bp.RobotDescriptionError) as err:
        bp.load_robot(tmp_path / "twice.yaml")
    message = str(err.value)
    assert "\n" not in message and "twice.yaml" in message and "joints[3].name" in message and "joints[2]" in message


def test_topics_at_different_rates_are_aligned(motion, tmp_path):
    """Positions at 500 Hz, efforts on their own topic at 100 Hz: the efforts are interpolated
    linearly at the position times, the times outside the effort topic's span dropped."""
    robot, t, q, qd, qdd, tau = motion
    pos = [(int(_ns(t[k])), int(_ns(t[k])), NAMES, q[k], qd[k], []) for k in range(t.size)]
    slow = np.arange(3, t.size - 7, 5)
    eff = [(int(_ns(t[k])), int(_ns(t[k])), NAMES[::-1], [], [], tau[k, ::-1]) for k in slow]
    path = write_bag(tmp_path / "bag", "mcap", {"/joint_states": pos, "/joint_efforts": eff})
    traj = bp.read_trajectory(path, joints=NAMES, topic="/joint_states,/joint_efforts")
    inside = (t >= t[slow[0]]) & (t <= t[slow[-1]])
    assert np.array_equal(traj.t, t[inside])
    expected = np.column_stack([np.interp(t[inside], t[slow], tau[slow, j]) for j in range(3)])
    assert np.allclose(traj.tau, expected, rtol=0, atol=1e-12)
    note = next(n for n in traj.notes if "interpolated" in n)
    assert "/joint_efforts" in note and "100 Hz" in note and "dropped" in note


@pytest.mark.parametrize("kind", ["mcap", "ros1"])
def test_field_of_another_topic_and_type(motion, tmp_path, kind):
    """Motor currents on their own topic as std_msgs/Float64MultiArray (no header: receive times), at
    a third of the rate, in the robot's joint order: ``columns={"current": "/motor_currents:data"}``."""
    robot, t, q, qd, qdd, tau = motion
    ros1 = kind == "ros1"
    ts = _typestore(ros1)
    F = ts.types["std_msgs/msg/Float64MultiArray"]
    L = ts.types["std_msgs/msg/MultiArrayLayout"]
    gains = np.array([2.0, 4.0, 5.0])
    slow = np.arange(2, t.size - 2, 3)
    path = _bag_path(tmp_path, kind)
    if ros1:
        from rosbags.rosbag1 import Writer
        writer = Writer(path)
    else:
        from rosbags.rosbag2 import StoragePlugin, Writer
        writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    msgtype = "sensor_msgs/msg/JointState"
    with writer:
        js = writer.add_connection("/joint_states", msgtype, typestore=ts)
        cur = writer.add_connection("/motor_currents", "std_msgs/msg/Float64MultiArray", typestore=ts)
        serialize = ts.serialize_ros1 if ros1 else ts.serialize_cdr
        for k, (recv, stamp, names, pos, vel, eff) in enumerate(_shuffled_messages(t, q, qd, tau)):
            writer.write(js, recv, serialize(_message(ts, stamp, names, pos, vel, eff, seq=k, ros1=ros1), msgtype))
            if k in set(slow.tolist()):
                msg = F(layout=L(dim=[], data_offset=0), data=np.ascontiguousarray(tau[k] / gains))
                writer.write(cur, recv, serialize(msg, "std_msgs/msg/Float64MultiArray"))
    traj = bp.read_trajectory(path, joints=NAMES, columns={"current": "/motor_currents:data"}, gains=gains)
    inside = (t >= t[slow[0]]) & (t <= t[slow[-1]])
    assert np.array_equal(traj.t, t[inside]) and np.array_equal(traj.q, q[inside])
    expected = np.column_stack([np.interp(t[inside], t[slow], tau[slow, j] / gains[j]) for j in range(3)]) * gains
    assert np.allclose(traj.tau, expected, rtol=1e-13, atol=1e-12)
    assert any("receive times are used" in n for n in traj.notes)
    with pytest.raises(bp.DataError, match="no field 'values'"):
        bp.read_trajectory(path, joints=NAMES, columns={"current": "/motor_currents:values"}, gains=gains)


def test_messages_out_of_order_and_receive_clock(motion, tmp_path):
    robot, t, q, qd, qdd, tau = motion
    msgs = _shuffled_messages(t[:200], q, qd, tau, extra=False)
    rng = np.random.default_rng(0)
    order = np.arange(200)
    order[50:60] = rng.permutation(order[50:60])          # arrived out of order
    # receive time: 3 ms after the stamp, in arrival order
    written = [(int(_ns(t[0] + 0.003)) + 2_000_000 * i, *msgs[k][1:]) for i, k in enumerate(order)]
    path = write_bag(tmp_path / "log.bag", "ros1", {"/joint_states": written})
    traj = bp.read_trajectory(path, joints=NAMES)
    assert np.array_equal(traj.q, q[:200]) and np.array_equal(traj.t, t[:200])
    assert any("out of order" in n and "sorted" in n for n in traj.notes)
    received = bp.read_trajectory(path, joints=NAMES, clock="receive")
    assert np.allclose(received.t - received.t[0], np.arange(200) * 0.002, atol=1e-9)
    assert np.array_equal(received.q, q[:200][order])


def _damage_one_message(path, index, topic="/joint_states"):
    """Rewrite a sqlite3 bag with one message's data cut short."""
    import sqlite3
    db = next(p for p in os.listdir(path) if p.endswith(".db3"))
    con = sqlite3.connect(os.path.join(path, db))
    rows = con.execute("SELECT m.id, m.data FROM messages m JOIN topics t ON m.topic_id = t.id WHERE t.name = ? "
                       "ORDER BY m.timestamp", (topic,)).fetchall()
    mid, data = rows[index]
    con.execute("UPDATE messages SET data = ? WHERE id = ?", (data[:len(data) - 20], mid))
    con.commit()
    con.close()


def test_damaged_message_named_by_topic_and_index(motion, tmp_path):
    robot, t, q, qd, qdd, tau = motion
    path = write_bag(tmp_path / "bag", "sqlite3", {"/joint_states": _shuffled_messages(t[:100], q, qd, tau)})
    _damage_one_message(path, 37)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=NAMES)
    text = str(err.value)
    assert "\n" not in text and "topic /joint_states: message 37:" in text and "damaged JointState" in text
    traj = bp.read_trajectory(path, joints=NAMES, skip_bad_rows=True)
    assert traj.n_samples == 99 and [w for w, _ in traj.skipped] == [37]
    assert np.array_equal(traj.q, np.delete(q[:100], 37, axis=0))
    assert "message 37" in traj.skipped_summary()


@pytest.mark.parametrize("kind", ["mcap-file", "ros1", "sqlite3"])
def test_truncated_bag_is_one_line(motion, tmp_path, kind):
    robot, t, q, qd, qdd, tau = motion
    msgs = _shuffled_messages(t, q, qd, tau)
    if kind == "sqlite3":              # the database of a bag folder cut in half
        cut = write_bag(tmp_path / "bag", "sqlite3", {"/joint_states": msgs})
        db = next(cut.glob("*.db3"))
        db.write_bytes(db.read_bytes()[:db.stat().st_size // 2])
        with pytest.raises(bp.DataError) as err:
            bp.read_trajectory(cut, joints=NAMES)
        assert "\n" not in str(err.value) and str(cut) in str(err.value)
        return
    if kind == "ros1":
        path = write_bag(tmp_path / "log.bag", "ros1", {"/joint_states": msgs})
    else:
        folder = write_bag(tmp_path / "bag", "mcap", {"/joint_states": msgs})
        path = tmp_path / "log.mcap"
        shutil.copy(folder / next(p for p in os.listdir(folder) if p.endswith(".mcap")), path)
    data = path.read_bytes()
    cut = tmp_path / ("cut" + path.suffix)
    cut.write_bytes(data[:len(data) * 2 // 3])
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(cut, joints=NAMES)
    assert "\n" not in str(err.value) and str(cut) in str(err.value)
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(cut)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert str(cut) in result.output and len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize("share", [0.999, 0.6, 0.3])
def test_ros1_bag_without_its_index_is_read_to_its_last_whole_message(motion, tmp_path, share):
    """A ROS 1 bag (rosbags' writer) cut anywhere: refused in one line saying its index is missing and where the
    reading stopped; with skip_bad_rows the messages before the cut, exactly those of the whole bag, and a
    warning naming the file and the byte."""
    robot, t, q, qd, qdd, tau = motion
    path = write_bag(tmp_path / "log.bag", "ros1", {"/joint_states": _shuffled_messages(t, q, qd, tau)})
    whole = bp.read_trajectory(path, joints=NAMES)
    cut = tmp_path / "cut.bag"
    cut.write_bytes(path.read_bytes()[:int(path.stat().st_size * share)])
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(cut, joints=NAMES)
    message = str(err.value)
    assert "\n" not in message and str(cut) in message and "index" in message and "byte" in message
    with pytest.warns(bp.DataWarning, match="messages read chunk by chunk up to byte") as caught:
        part = bp.read_trajectory(cut, joints=NAMES, skip_bad_rows=True)
    assert any(str(cut) in str(w.message) for w in caught)
    n = part.t.size
    assert n > (whole.t.size - 5 if share > 0.99 else 10)
    for field in ("t", "q", "qd", "tau"):
        assert np.array_equal(getattr(part, field), getattr(whole, field)[:n])


def test_ros1_bag_cut_and_damaged_before_the_cut(motion, tmp_path):
    """A ROS 1 bag cut in its one (uncompressed) chunk, whose 30th message record has a header field claiming
    more bytes than the header holds: the 29 messages before it, with a warning; refused in one line without
    skip_bad_rows (found by tests/test_fuzz_logs.py: the damage raised inside the cut chunk's scan)."""
    robot, t, q, qd, qdd, tau = motion
    path = write_bag(tmp_path / "log.bag", "ros1", {"/joint_states": _shuffled_messages(t, q, qd, tau)})
    whole = bp.read_trajectory(path, joints=NAMES)
    data = bytearray(path.read_bytes()[:int(path.stat().st_size * 0.6)])
    starts, at = [], 0
    while (at := data.find(b"op=\x02", at + 1)) > 0:
        starts.append(at)
    data[starts[29] - 4:starts[29]] = (2**32 - 16).to_bytes(4, "little")
    cut = tmp_path / "cut.bag"
    cut.write_bytes(bytes(data))
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(cut, joints=NAMES)
    assert "\n" not in str(err.value) and str(cut) in str(err.value)
    with pytest.warns(bp.DataWarning, match="29 messages read chunk by chunk"):
        part = bp.read_trajectory(cut, joints=NAMES, skip_bad_rows=True)
    assert part.t.size == 29 and np.array_equal(part.q, whole.q[:29]) and np.array_equal(part.tau, whole.tau[:29])


def test_mcap_cut_in_its_summary_is_read_whole_with_a_warning(motion, tmp_path):
    """An MCAP file (rosbags' writer) whose summary section, footer or closing magic is cut holds every message:
    read whole, and said (a warning naming the file and where it ends), never silently."""
    robot, t, q, qd, qdd, tau = motion
    folder = write_bag(tmp_path / "bag", "mcap", {"/joint_states": _shuffled_messages(t, q, qd, tau)})
    path = tmp_path / "log.mcap"
    shutil.copy(folder / next(p for p in os.listdir(folder) if p.endswith(".mcap")), path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        whole = bp.read_trajectory(path, joints=NAMES)
    data = path.read_bytes()
    for drop in (1, 8, 40, 200):
        cut = tmp_path / f"cut{drop}.mcap"
        cut.write_bytes(data[:len(data) - drop])
        with pytest.warns(bp.DataWarning, match="summary section") as caught:
            part = bp.read_trajectory(cut, joints=NAMES)
        assert any(str(cut) in str(w.message) and f"ends at byte {len(data) - drop}" in str(w.message)
                   for w in caught)
        assert any("summary section" in n for n in part.notes)
        for field in ("t", "q", "qd", "tau"):
            assert np.array_equal(getattr(part, field), getattr(whole, field))


def test_damaged_chunk_of_mcap(tmp_path, motion):
    robot, t, q, qd, qdd, tau = motion
    path = tmp_path / "log.mcap"
    bp.write_trajectory(bp.Trajectory(t, q, tau, qd), path, joint_names=NAMES)
    data = bytearray(path.read_bytes())
    middle = len(data) // 3
    data[middle:middle + 64] = bytes(64)
    path.write_bytes(bytes(data))
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path)
    assert "\n" not in str(err.value) and "chunk" in str(err.value)


# --- Parquet, written by pyarrow


def _lerobot(tmp_path, t, q, qd, tau, names):
    """A LeRobot-like dataset: data/chunk-000/episode_000000.parquet, names in meta/info.json."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    (tmp_path / "meta").mkdir()
    (tmp_path / "data" / "chunk-000").mkdir(parents=True)
    info = {"features": {key: {"dtype": "float64", "shape": [len(names)], "names": names}
                         for key in ("observation.state", "observation.velocity", "observation.effort")}}
    (tmp_path / "meta" / "info.json").write_text(json.dumps(info))
    table = pa.table({"timestamp": t, "observation.state": list(q), "observation.velocity": list(qd),
                      "observation.effort": list(tau), "frame_index": np.arange(t.size)})
    path = tmp_path / "data" / "chunk-000" / "episode_000000.parquet"
    pq.write_table(table, path)
    return path


def test_parquet_lerobot_layout_by_name(motion, tmp_path):
    robot, t, q, qd, qdd, tau = motion
    order = [2, 0, 1]
    names = [NAMES[k] for k in order] + ["gripper"]
    extend = lambda a: np.column_stack([a[:, order], np.full(len(a), 0.5)])   # noqa: E731
    path = _lerobot(tmp_path, t, extend(q), extend(qd), extend(tau), names)
    traj = bp.read_trajectory(path, joints=NAMES)
    assert np.array_equal(traj.t, t) and np.array_equal(traj.q, q) and np.array_equal(traj.tau, tau)
    assert np.array_equal(traj.qd, qd) and traj.joint_names == tuple(NAMES)
    assert sum("gripper" in n for n in traj.notes) == 1
    with pytest.raises(bp.DataError, match="forearm"):
        bp.read_trajectory(path, joints=NAMES + ["forearm"])
    # the column map names the columns; current with gains
    current = bp.read_trajectory(path, joints=NAMES, columns={"current": "observation.effort"}, gains=[2.0, 3.0, 4.0])
    assert np.allclose(current.tau, tau * [2.0, 3.0, 4.0], rtol=1e-15)


def test_parquet_column_per_joint_and_damaged_rows(motion, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    robot, t, q, qd, qdd, tau = motion
    cols = {"t": t[:100]}
    cols.update({f"q{j + 1}": q[:100, j] for j in range(3)})
    cols.update({f"tau{j + 1}": tau[:100, j] for j in range(3)})
    path = tmp_path / "scalar.parquet"
    pq.write_table(pa.table(cols), path)
    traj = bp.read_trajectory(path)
    assert np.array_equal(traj.q, q[:100]) and np.array_equal(traj.tau, tau[:100])
    rows = [list(r) for r in q[:100]]
    rows[12] = rows[12][:2]            # a short list
    rows[40] = None                     # a null
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"t": t[:100], "q": rows, "tau": list(tau[:100])}), bad)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(bad)
    assert "row 12" in str(err.value) and "\n" not in str(err.value)
    kept = bp.read_trajectory(bad, skip_bad_rows=True)
    assert [w for w, _ in kept.skipped] == [12, 40] and kept.n_samples == 98
    truncated = tmp_path / "cut.parquet"
    truncated.write_bytes(path.read_bytes()[:200])
    with pytest.raises(bp.DataError, match="cannot read as Parquet"):
        bp.read_trajectory(truncated)


# --- writers


@pytest.mark.parametrize("ext", [".csv", ".npz", ".parquet", ".mcap"])
@pytest.mark.parametrize("with_qdd", [False, True])
def test_writers_round_trip_exactly(motion, tmp_path, ext, with_qdd):
    robot, t, q, qd, qdd, tau = motion
    rng = np.random.default_rng(3)
    t_odd = t + rng.uniform(0, 1e-10, t.size)      # times no nanosecond stamp holds exactly
    traj = bp.Trajectory(t_odd, q, tau, qd, qdd if with_qdd else None, source="sim")
    path = bp.write_trajectory(traj, tmp_path / f"out{ext}", joint_names=NAMES)
    back = bp.read_trajectory(path)
    for field in ("t", "q", "qd", "qdd", "tau"):
        a, b = getattr(traj, field), getattr(back, field)
        assert (a is None and b is None) or np.array_equal(a, b), field
    if ext in (".parquet", ".mcap"):
        assert back.joint_names == tuple(NAMES)


def test_mcap_written_is_a_ros2_joint_state_log(motion, tmp_path):
    """The MCAP project's own ROS 2 decoder reads baseparam's file: the topic, names, stamps, arrays."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    robot, t, q, qd, qdd, tau = motion
    path = bp.write_trajectory(bp.Trajectory(t, q, tau, qd), tmp_path / "out.mcap", joint_names=NAMES,
                               topic="/arm/joint_states")
    with open(path, "rb") as stream:
        decoded = list(make_reader(stream, decoder_factories=[DecoderFactory()]).iter_decoded_messages())
    assert len(decoded) == t.size
    for k in (0, 777, t.size - 1):
        schema, channel, message, msg = decoded[k]
        assert channel.topic == "/arm/joint_states" and schema.name == "sensor_msgs/msg/JointState"
        assert list(msg.name) == NAMES and message.log_time == _ns(t[k])
        assert msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec == _ns(t[k])
        assert np.array_equal(msg.position, q[k]) and np.array_equal(msg.effort, tau[k])


def test_write_refuses_bad_arguments(motion, tmp_path):
    robot, t, q, qd, qdd, tau = motion
    traj = bp.Trajectory(t, q, tau)
    with pytest.raises(bp.ArgumentError, match="unknown extension"):
        bp.write_trajectory(traj, tmp_path / "out.xyz")
    with pytest.raises(bp.ArgumentError, match="joint_names"):
        bp.write_trajectory(traj, tmp_path / "out.mcap", joint_names=["a", "a", "b"])


# --- the delay between effort and position


def _delayed(motion, lag, noise=0.0):
    """The motion with its effort lagging by ``lag`` samples (τ logged at t is τ(t − lag·Δt))."""
    robot, t, q, qd, qdd, tau = motion
    rng = np.random.default_rng(11)
    late = tau[:-lag] + noise * rng.standard_normal(tau[:-lag].shape) * tau.std(axis=0)
    return bp.Trajectory(t[lag:], q[lag:], late, qd[lag:], source="delayed")


@pytest.mark.parametrize("with_robot", [False, True])
@pytest.mark.parametrize("lag", [-4, 7])
def test_injected_delay_recovered_within_one_sample(motion, with_robot, lag):
    robot = motion[0]
    if lag > 0:
        traj = _delayed(motion, lag, noise=0.01)
    else:          # effort ahead of the position: the positions lag instead
        _, t, q, qd, qdd, tau = motion
        traj = bp.Trajectory(t[:lag], q[:lag], tau[-lag:], qd[:lag], source="ahead")
    found = bp.estimate_delay(traj, robot=robot if with_robot else None)
    assert abs(found.seconds - lag / RATE) < 1.0 / RATE, found
    assert found.method == ("robot model" if with_robot else "model-free basis")
    assert found.correlation > 0.9


def test_delay_auto_applied_on_reading(motion, tmp_path):
    robot, t, q, qd, qdd, tau = motion
    lag = 6
    msgs = [(int(_ns(t[k])), int(_ns(t[k])), NAMES, q[k], qd[k], tau[k - lag]) for k in range(lag, t.size)]
    path = write_bag(tmp_path / "bag", "mcap", {"/joint_states": msgs})
    traj = bp.read_trajectory(path, robot=robot, joints=NAMES, delay="auto")
    note = next(n for n in traj.notes if "effort delay" in n)
    assert "ms (estimated" in note and "robot model" in note
    # the effort now lines up with the motion: within the interpolation error of a fraction of a step
    k = np.searchsorted(t, traj.t)
    assert np.abs(traj.tau - tau[k]).max() < 0.02 * np.abs(tau).max()
    fixed = bp.read_trajectory(path, joints=NAMES, delay=lag / RATE)
    assert np.allclose(fixed.tau, tau[lag:t.size - lag], rtol=0, atol=1e-9 * np.abs(tau).max())
    assert "12 ms applied" in fixed.notes[-1]


# --- identification from a bag equals the CSV path's


def _csv(path, t, q, qd, tau):
    """A plain CSV written with numpy (17 significant digits: the float64 values exactly)."""
    n = q.shape[1]
    header = ",".join(["t"] + [f"{f}{j}" for f in ("q", "qd", "tau") for j in range(1, n + 1)])
    np.savetxt(path, np.column_stack([t, q, qd, tau]), delimiter=",", header=header, comments="", fmt="%.17g")
    return path


def _same_fit(a, b):
    da, db = a.to_dict(), b.to_dict()
    assert [p["name"] for p in da["base"]] == [p["name"] for p in db["base"]]
    np.testing.assert_array_equal([p["value"] for p in da["base"]], [p["value"] for p in db["base"]])
    assert da["train"]["nrmse_pooled_percent"] == db["train"]["nrmse_pooled_percent"]


def test_identification_from_bag_equals_csv(motion, tmp_path):
    robot, t, q, qd, qdd, tau = motion
    import warnings
    bag = write_bag(tmp_path / "bag", "sqlite3", {"/joint_states": _shuffled_messages(t, q, qd, tau)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)    # a short log: some parameters poorly determined
        from_bag = bp.identify(robot, bp.read_trajectory(bag, robot=robot, joints=NAMES))
        from_csv = bp.identify(robot, bp.read_trajectory(_csv(tmp_path / "log.csv", t, q, qd, tau)))
    _same_fit(from_bag, from_csv)


@needs_data
@pytest.mark.filterwarnings("ignore::baseparam.errors.RoundOffWarning")   # the UR10e URDF's rpy, to 11 digits
@pytest.mark.parametrize("case", ["kuka", "ur10e"])
def test_real_logs_through_bags_and_parquet_equal_the_csv_path(tmp_path, case):
    """The real logs as a ROS 2 bag (rosbags, URDF joint names shuffled, a gripper joint among them)
    and as LeRobot-like Parquet (pyarrow): the fit equals the plain CSV's of the same numbers."""
    import warnings
    if case == "kuka":
        robot = bp.load_robot(DATA / "kuka_lwr4" / "kuka_lwr4.urdf")
        raw = bp.read_trajectory(DATA / "kuka_lwr4" / "measurements_3.npz")
        effort, read = raw.tau, None
    else:
        robot = bp.load_robot(DATA / "ur10e" / "ur10e.urdf")
        raw = bp.read_trajectory(DATA / "ur10e" / "identification_data" / "ur-20_02_12-50sec_12harm.csv",
                                 columns="t=0,q=1:7,qd=7:13,current=13:19", gains=UR_GAINS)
        effort, read = raw.tau / UR_GAINS, {"gains": UR_GAINS}
    names = bp.identification.trajectory.robot_joint_names(robot)
    n = len(names)
    t = _stamp_times(raw.t)
    order = list(range(n))[::-1]
    msgs = []
    for k in range(t.size):
        ns = int(_ns(raw.t[k]))
        cols = order
        msgs.append((ns, ns, [names[j] for j in cols] + ["gripper"], list(raw.q[k, cols]) + [0.0],
                     list(raw.qd[k, cols]) + [0.0], list(effort[k, cols]) + [1.0]))
    bag = write_bag(tmp_path / "bag", "mcap", {"/joint_states": msgs})
    (tmp_path / "lerobot").mkdir()
    lerobot = _lerobot(tmp_path / "lerobot", t, np.column_stack([raw.q[:, order], np.zeros(t.size)]),
                       np.column_stack([raw.qd[:, order], np.zeros(t.size)]),
                       np.column_stack([effort[:, order], np.ones(t.size)]), [names[j] for j in order] + ["gripper"])
    csv = _csv(tmp_path / "log.csv", t, raw.q, raw.qd, raw.tau)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)
        reference = bp.identify(robot, bp.read_trajectory(csv))
        for path, effort_field in ((bag, "effort"), (lerobot, "observation.effort")):
            options = {} if read is None else dict(read, columns={"current": effort_field})
            traj = bp.read_trajectory(path, robot=robot, **options)
            assert traj.joint_names == tuple(names) and np.array_equal(traj.q, raw.q)
            _same_fit(bp.identify(robot, traj), reference)


# --- the command line


def test_identify_cli_reads_a_bag_with_topic_and_delay(motion, tmp_path):
    """``identify`` passes --topic, --delay and --columns to the reader; what the reader did (joints
    left out, the clock, the delay in ms) is printed; a wrong topic is one line with exit status 2."""
    robot, t, q, qd, qdd, tau = motion
    rrr = tmp_path / "rrr.yaml"
    text = (ROOT / "robots" / "planar_rrr.yaml").read_text()
    rrr.write_text(text.replace("{type: revolute, alpha: 0, a: 1, d: 0}", "{type: revolute, alpha: 0, a: 1, d: 0, "
                                "friction: [0.4, 0.3, 0.1]}"))
    lag = 5
    msgs = [(int(_ns(t[k])), int(_ns(t[k])), ["joint3", "gripper", "joint1", "joint2"],
             [q[k, 2], 0.0, q[k, 0], q[k, 1]], [qd[k, 2], 0.0, qd[k, 0], qd[k, 1]],
             [tau[k - lag, 2] / 2, 0.0, tau[k - lag, 0] / 2, tau[k - lag, 1] / 2]) for k in range(lag, t.size)]
    bag = write_bag(tmp_path / "bag", "mcap", {"/arm/joint_states": msgs, "/other/joint_states": msgs[:20]})
    out = tmp_path / "fit.json"
    result = CliRunner().invoke(main, ["identify", str(rrr), str(bag), "--topic", "/arm/joint_states", "--delay",
                                       "auto", "--columns", "current=effort", "--gains", "2,2,2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "left out: gripper" in result.output and "header stamps of /arm/joint_states" in result.output
    delay = next(line for line in result.output.splitlines() if "effort delay" in line)
    ms = float(delay.split("effort delay ")[1].split(" ms")[0])
    assert abs(ms - 1e3 * lag / RATE) < 1e3 / RATE
    assert json.loads(out.read_text())["train"]["nrmse_pooled_percent"] < 1.0
    bad = CliRunner().invoke(main, ["identify", str(rrr), str(bag)])
    assert bad.exit_code == 2 and "several JointState topics" in bad.output and "--topic" in bad.output
    assert len(bad.output.strip().splitlines()) == 1
    bad = CliRunner().invoke(main, ["identify", str(rrr), str(bag), "--delay", "soon"])
    assert bad.exit_code == 2 and "--delay" in bad.output


def test_identify_many_bags_prints_and_records_the_reader_notes(motion, tmp_path):
    """Many logs (reduced one by one) print what the reader did for each, as one log does, and the JSON of
    either path keeps it with each log's preprocessing record."""
    robot, t, q, qd, qdd, tau = motion
    rrr = tmp_path / "rrr.yaml"
    text = (ROOT / "robots" / "planar_rrr.yaml").read_text()
    rrr.write_text(text.replace("{type: revolute, alpha: 0, a: 1, d: 0}", "{type: revolute, alpha: 0, a: 1, d: 0, "
                                "friction: [0.4, 0.3, 0.1]}"))
    msgs = [(int(_ns(t[k])), int(_ns(t[k])), ["joint3", "gripper", "joint1", "joint2"],
             [q[k, 2], 0.0, q[k, 0], q[k, 1]], [qd[k, 2], 0.0, qd[k, 0], qd[k, 1]],
             [tau[k, 2], 0.0, tau[k, 0], tau[k, 1]]) for k in range(t.size)]
    first = write_bag(tmp_path / "first", "mcap", {"/joint_states": msgs})
    second = shutil.copytree(first, tmp_path / "second")
    out_one, out_many = tmp_path / "one.json", tmp_path / "many.json"
    one = CliRunner().invoke(main, ["identify", str(rrr), str(first), "--json", str(out_one)])
    many = CliRunner().invoke(main, ["identify", str(rrr), str(first), str(second), "--json", str(out_many)])
    assert one.exit_code == 0 and many.exit_code == 0, one.output + many.output
    for result, count in ((one, 1), (many, 2)):
        assert result.output.count("left out: gripper") == count
        assert result.output.count("header stamps of /joint_states") == count
    records = json.loads(out_many.read_text())["preprocessing"]
    assert [sum("left out: gripper" in n for n in r["reader_notes"]) for r in records] == [1, 1]
    assert str(second) in records[1]["reader_notes"][0]
    assert json.loads(out_one.read_text())["preprocessing"][0]["reader_notes"] == records[0]["reader_notes"]


# --- an excitation design written by excite --json, loaded back


def test_excite_json_loads_back_exactly(tmp_path):
    limits = tmp_path / "limits.yaml"
    limits.write_text("joints:\n  - {q: [-2, 2.5], qd: 1.5, qdd: 6}\n  - {q: [-1.5, 1.5], qd: 2}\n"
                      "  - {q: [-2.5, 2.5], qd: 2.5}\n")
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    design = bp.design_excitation(robot, period=2.0, harmonics=2, rate=20.0, limits=str(limits), starts=1)
    out = tmp_path / "design.json"
    result = CliRunner().invoke(main, ["excite", str(ROOT / "robots" / "planar_rrr.yaml"), "--limits", str(limits),
                                       "--period", "2", "--harmonics", "2", "--rate", "20", "--starts", "1",
                                       "--workers", "1", "--json", str(out), "--out", str(tmp_path / "design.csv")])
    assert result.exit_code == 0, result.output
    saved = bp.load_excitation(out)
    for key in ("q0", "a", "b"):
        assert np.array_equal(getattr(saved.series, key), getattr(design.series, key))
    assert saved.series.period == design.period and saved.rate == design.rate
    for field in ("t", "q", "qd", "qdd"):
        assert np.array_equal(getattr(saved.samples, field), getattr(design.samples, field))
    assert saved.condition_number == design.condition_number and saved.robot == robot.name
    # the CSV excite wrote is the same trajectory
    csv = bp.read_trajectory(tmp_path / "design.csv")
    assert np.array_equal(csv.q, saved.trajectory.q) and np.array_equal(csv.t, saved.trajectory.t)
    bad = tmp_path / "bad.json"
    bad.write_text('{"period": 2, "rate": 20}')
    with pytest.raises(bp.DataError, match="coefficients"):
        bp.load_excitation(bad)


@pytest.mark.parametrize("ext", [".mcap", ".parquet"])
def test_unix_times_and_no_torques_round_trip(tmp_path, ext):
    """Unix time stamps (a ns stamp is a few ulp off such a float) and a motion without torques."""
    rng = np.random.default_rng(4)
    t = 1.7e9 + np.arange(100) * 0.005 + rng.uniform(0, 1e-7, 100)
    traj = bp.Trajectory(t, rng.normal(size=(100, 2)), qd=rng.normal(size=(100, 2)), source="play")
    back = bp.read_trajectory(bp.write_trajectory(traj, tmp_path / f"play{ext}"))
    assert np.array_equal(back.t, traj.t) and np.array_equal(back.q, traj.q) and np.array_equal(back.qd, traj.qd)
    assert back.tau is None and back.joint_names == ("joint1", "joint2")


def test_damaged_bytes_anywhere_give_one_line_errors(tmp_path):
    """Bytes changed or cut anywhere in an MCAP file (compressed and not): the log reads, or is refused
    in one DataError line; never another exception (seeded, the same cases every run)."""
    from mcap.writer import CompressionType, Writer

    from baseparam.identification import _cdr
    rng = np.random.default_rng(0)
    t = np.arange(200) * 0.01
    q, qd, tau = (rng.normal(size=(200, 3)) for _ in range(3))
    compressed = tmp_path / "z.mcap"
    bp.write_trajectory(bp.Trajectory(t, q, tau, qd), compressed)
    plain = tmp_path / "p.mcap"
    rows = _cdr.encode(t, ["a", "b", "c"], q, qd, tau)
    with open(plain, "wb") as stream:
        writer = Writer(stream, compression=CompressionType.NONE)
        writer.start("ros2", "test")
        schema = writer.register_schema("sensor_msgs/msg/JointState", "ros2msg", _cdr.JOINT_STATE_MSGDEF.encode())
        channel = writer.register_channel("/joint_states", "cdr", schema)
        for k in range(200):
            writer.add_message(channel, log_time=k, publish_time=k, data=rows[k].tobytes())
        writer.finish()
    damaged = tmp_path / "damaged.mcap"
    for source in (compressed, plain):
        original = source.read_bytes()
        for _ in range(60):
            data = bytearray(original)
            for _ in range(int(rng.integers(1, 4))):
                data[int(rng.integers(0, len(data)))] = int(rng.integers(0, 256))
            if rng.random() < 0.2:
                data = data[:int(rng.integers(0, len(data)))]
            damaged.write_bytes(bytes(data))
            for skip in (False, True):
                try:
                    bp.read_trajectory(damaged, skip_bad_rows=skip)
                except bp.DataError as exc:
                    assert "\n" not in str(exc) and str(damaged) in str(exc)


@needs_data
@pytest.mark.filterwarnings("ignore::baseparam.errors.RoundOffWarning")
def test_delay_of_the_real_logs_is_within_a_step_of_none():
    """The KUKA LWR4+ and UR10e logs: identification fits best with no shift of the effort (checked
    when the method was chosen: the KUKA validation error grows from 4.1 % at 0 to 4.6 % at 20 ms);
    both estimates stay within one sampling step of none."""
    kuka = bp.read_trajectory(DATA / "kuka_lwr4" / "measurements_3.npz")
    ur = bp.read_trajectory(DATA / "ur10e" / "identification_data" / "ur-20_02_12-50sec_12harm.csv",
                            columns="t=0,q=1:7,qd=7:13,current=13:19", gains=UR_GAINS)
    for traj, urdf in ((kuka, DATA / "kuka_lwr4" / "kuka_lwr4.urdf"), (ur, DATA / "ur10e" / "ur10e.urdf")):
        model = bp.estimate_delay(traj, robot=bp.load_robot(urdf))
        free = bp.estimate_delay(traj)
        step = model.step
        assert abs(model.seconds) < step and abs(free.seconds) < step, (model, free)


def test_a_joint_named_twice_in_a_message_is_damage_not_its_first_value(motion, tmp_path):
    """A JointState listing 'shoulder' twice says two values for one joint: that message is damaged (not read as
    the first of them, silently)."""
    robot, t, q, qd, qdd, tau = motion
    messages = []
    for k in range(50):
        ns = int(_ns(t[k]))
        names = NAMES if k != 7 else ["shoulder", "shoulder", "elbow", "wrist"]
        pos, vel, eff = list(q[k]), list(qd[k]), list(tau[k])
        if k == 7:
            pos, vel, eff = [9.0] + pos, [9.0] + vel, [9.0] + eff
        messages.append((ns, ns, names, pos, vel, eff))
    path = write_bag(tmp_path / "bag", "mcap", {"/joint_states": messages})
    with pytest.raises(bp.DataError, match=r"message 7: damaged JointState \(joint shoulder named twice\)"):
        bp.read_trajectory(path, joints=NAMES)
    traj = bp.read_trajectory(path, joints=NAMES, skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == [7] and np.array_equal(traj.q, np.delete(q[:50], 7, axis=0))


def test_messages_of_the_topic_left_unused_are_noted(motion, tmp_path):
    """The wrist drops out of the messages halfway: the samples read are those naming every joint, and the
    messages not used are said, not dropped silently."""
    robot, t, q, qd, qdd, tau = motion
    messages = []
    for k in range(100):
        ns = int(_ns(t[k]))
        n = 3 if k < 60 else 2
        messages.append((ns, ns, NAMES[:n], q[k, :n], qd[k, :n], tau[k, :n]))
    path = write_bag(tmp_path / "bag", "mcap", {"/joint_states": messages})
    traj = bp.read_trajectory(path, joints=NAMES)
    assert traj.n_samples == 60
    assert any("40 messages of /joint_states naming shoulder, elbow not used" in note for note in traj.notes)


def test_parquet_time_column_of_timestamps_strings_or_no_rows(motion, tmp_path):
    """A time column of Parquet's own timestamp or duration type holds times: read in seconds. One of strings
    is refused in one line naming the file, the field and the column (not the column's contents); a file of no
    rows says so."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    robot, t, q, qd, qdd, tau = motion
    ns = _ns(t[:50])
    lists = {"observation.state": [list(r) for r in q[:50]], "observation.effort": [list(r) for r in tau[:50]]}
    for kind in (pa.timestamp("ns"), pa.timestamp("us"), pa.duration("ns")):
        stamps = ns if kind.unit == "ns" else ns // 1000
        path = tmp_path / f"{kind}.parquet".replace("[", "_").replace("]", "_")
        pq.write_table(pa.table({"timestamp": pa.array(stamps, kind), **lists}), path)
        traj = bp.read_trajectory(path)
        assert np.allclose(traj.t, _stamp_times(t[:50]) if kind.unit == "ns" else (ns // 1000) * 1e-6,
                           rtol=0, atol=1e-9) and np.array_equal(traj.q, q[:50])
    path = tmp_path / "strings.parquet"
    pq.write_table(pa.table({"timestamp": [str(x) for x in t[:50]], **lists}), path)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path)
    assert str(err.value) == f"{path}: field t (column timestamp): string values, not numbers or times"
    path = tmp_path / "empty.parquet"
    pq.write_table(pa.table({"t": pa.array([], pa.float64()), "q": pa.array([], pa.list_(pa.float64()))}), path)
    with pytest.raises(bp.DataError, match=r"empty.parquet: no rows$"):
        bp.read_trajectory(path)


@pytest.mark.parametrize("ext", ["csv", "npz"])
def test_csv_and_npz_naming_joints_in_another_order_are_not_read_positionally(motion, tmp_path, ext):
    """write_trajectory names the joints of a CSV (# joints:) and an NPZ (joint_names); read with the robot's
    names in another order, the columns would silently go to the wrong joints: refused in one line."""
    robot, t, q, qd, qdd, tau = motion
    traj = bp.from_arrays(t=t[:50], q=q[:50], qd=qd[:50], tau=tau[:50])
    path = tmp_path / f"log.{ext}"
    bp.write_trajectory(traj, path, joint_names=NAMES)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q[:50])
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=NAMES[::-1])
    assert str(err.value) == (f"{path}: the file names its joints shoulder, elbow, wrist in this order, the robot "
                              "wrist, elbow, shoulder; columns of CSV, NPZ and HDF5 files are read in their order "
                              "(write the file in the robot's order, or as Parquet or MCAP)")
    assert np.array_equal(bp.read_trajectory(path, joints=["a", "b", "c"]).q, q[:50])   # other names: by position


@pytest.mark.parametrize("ext", ["csv", "npz"])
def test_joint_order_refusal_names_a_difference_beyond_the_listed_names(tmp_path, ext):
    """The two orders are listed up to 12 names each: two joints swapped beyond them showed two lists alike, and
    not why the file was refused; the first joint where the orders differ is named then."""
    names = [f"joint_{k + 1}" for k in range(14)]
    t = np.arange(50) * 0.01
    q = np.sin(t[:, None] + np.arange(14))
    path = tmp_path / f"log.{ext}"
    bp.write_trajectory(bp.from_arrays(t=t, q=q, qd=q, tau=np.cos(q)), path, joint_names=names)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=names[:12] + ["joint_14", "joint_13"])
    text = str(err.value)
    assert "… (14 in all)" in text and "\n" not in text
    assert "; they differ first at joint 13: joint_13 in the file, joint_14 in the robot; columns of CSV" in text


@pytest.mark.parametrize("with_robot", [False, True])
@pytest.mark.parametrize("effort", ["zero", "constant"])
def test_delay_of_an_effort_that_no_shift_changes_is_refused(motion, with_robot, effort):
    """An effort that is zero or constant fits equally at every shift: there is no delay to find, and the
    estimate must say so rather than return the first shift looked at (-100 ms)."""
    robot, t, q, qd, qdd, tau = motion
    flat = np.zeros_like(tau) if effort == "zero" else np.full_like(tau, 2.5)
    traj = bp.from_arrays(t=t, q=q, qd=qd, tau=flat)
    with pytest.raises(bp.DataError, match="no delay to estimate"):
        bp.estimate_delay(traj, robot=robot if with_robot else None)


def test_delay_true_is_not_one_second(motion):
    from baseparam.identification.delay import apply_delay
    robot, t, q, qd, qdd, tau = motion
    traj = bp.from_arrays(t=t, q=q, qd=qd, tau=tau)
    with pytest.raises(bp.DataError, match="expected 'auto' or a number of seconds, got True"):
        apply_delay(traj, True)


@pytest.mark.parametrize("kind", ["mcap", "ros1"])
def test_messages_naming_the_joints_in_changing_orders_are_one_stream(motion, tmp_path, kind):
    """A publisher may list the same joints in another order from one message to the next (merged
    controllers): every message is read, by name, not only those in the first order."""
    robot, t, q, qd, qdd, tau = motion
    messages = []
    for k in range(200):
        order = [2, 0, 1] if k % 2 else [0, 1, 2]
        ns = int(_ns(t[k]))
        messages.append((ns, ns, [NAMES[j] for j in order], q[k, order], qd[k, order], tau[k, order]))
    path = write_bag(_bag_path(tmp_path, kind), kind, {"/joint_states": messages})
    traj = bp.read_trajectory(path, joints=NAMES)
    assert traj.n_samples == 200
    assert np.array_equal(traj.q, q[:200]) and np.array_equal(traj.qd, qd[:200]) and np.array_equal(traj.tau, tau[:200])


def test_parquet_naming_a_joint_twice_is_refused(motion, tmp_path):
    """Lists whose names (LeRobot's meta/info.json) give one joint two columns: which is the joint's, no one can
    say; refused in one line rather than the first taken."""
    robot, t, q, qd, qdd, tau = motion
    names = ["shoulder", "elbow", "shoulder", "wrist"]
    extend = lambda a: np.column_stack([a[:, :2], np.full(len(a), 9.0), a[:, 2:]])   # noqa: E731
    path = _lerobot(tmp_path, t[:50], extend(q[:50]), extend(qd[:50]), extend(tau[:50]), names)
    with pytest.raises(bp.DataError, match=r"episode_000000.parquet: joint shoulder named twice in the file's joint "
                                           r"names \(shoulder, elbow, shoulder, wrist\)$"):
        bp.read_trajectory(path, joints=NAMES)


def test_one_short_message_of_another_topic_is_the_damaged_one(motion, tmp_path):
    """Currents on their own topic, one message (index 50) with a value missing: that message is the damaged
    one, not the 199 others (their bytes are read in groups of equal size, the short one's group first)."""
    robot, t, q, qd, qdd, tau = motion
    ts = _typestore()
    F, L = ts.types["std_msgs/msg/Float64MultiArray"], ts.types["std_msgs/msg/MultiArrayLayout"]
    from rosbags.rosbag2 import StoragePlugin, Writer
    path = tmp_path / "bag"
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        js = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        cur = writer.add_connection("/currents", "std_msgs/msg/Float64MultiArray", typestore=ts)
        for k in range(200):
            ns = int(_ns(t[k]))
            writer.write(js, ns, ts.serialize_cdr(_message(ts, ns, NAMES, q[k], qd[k], tau[k]),
                                                  "sensor_msgs/msg/JointState"))
            data = np.ascontiguousarray(tau[k, :2] if k == 50 else tau[k])
            writer.write(cur, ns, ts.serialize_cdr(F(layout=L(dim=[], data_offset=0), data=data),
                                                   "std_msgs/msg/Float64MultiArray"))
    columns = {"current": "/currents:data"}
    with pytest.raises(bp.DataError, match=r"topic /currents: message 50: damaged Float64MultiArray \(data: 2 values, "
                                           r"the others have 3\) \(skip"):
        bp.read_trajectory(path, joints=NAMES, columns=columns, gains=[1.0, 1.0, 1.0])
    traj = bp.read_trajectory(path, joints=NAMES, columns=columns, gains=[1.0, 1.0, 1.0], skip_bad_rows=True)
    assert traj.n_samples == 200 and np.allclose(traj.tau[[0, 49, 51, 199]], tau[[0, 49, 51, 199]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("named,unnamed", [(1, 2), (3, 1)])
def test_dh_yaml_joint_name_taken_by_an_unnamed_joint(tmp_path, named, unnamed):
    """An unnamed joint k is matched in a log by ``jointk`` (robot_joint_names); a YAML naming another joint so
    (joints[1] ``name: joint2`` beside an unnamed joints[2]) was loaded, and both joints read the log's joint2
    (joint 1 silently given joint 2's positions); now refused in one line naming the file and both joints."""
    lines = (ROOT / "robots" / "planar_rrr.yaml").read_text().splitlines(keepends=True)
    k = [i for i, line in enumerate(lines) if line.startswith("  - {type: revolute")][named - 1]
    lines[k] = lines[k].replace("{type: revolute,", f"{{type: revolute, name: joint{unnamed},")
    path = tmp_path / "robot.yaml"
    path.write_text("".join(lines))
    with pytest.raises(bp.RobotDescriptionError) as err:
        bp.load_robot(path)
    message = str(err.value)
    assert "\n" not in message and "robot.yaml" in message and f"joints[{named}].name" in message
    assert f"unnamed joints[{unnamed}]" in message
