"""Round 23, helper lrd4: last stop's reader leftovers (issue 28)."""

import numpy as np
import pytest


def test_floating_bag_on_two_clocks_is_read_from_the_file_once(space, tmp_path, monkeypatch):
    """A floating-base bag whose wrench has zero stamps (receive times) beside stamped joint states and base: read
    again on the receive clock, it was read again from the file too (the whole bag twice). Now its messages are
    read once; the note says what was done and why, in one line."""
    import baseparam as bp
    from baseparam.identification import _floating_bags
    from conftest import ROOT
    from test_floating_logs import rosbags_bag

    robot, log = bp.load_robot(ROOT / "robots" / "space_robot.yaml"), space.log
    a, b = np.arange(6.0), np.linspace(-1, 1, 6)
    plates = {"/left/wrench": (log.t, a + np.outer(log.t, b))}
    bag = rosbags_bag(tmp_path / "bag", log.t, log.q, log.qd, wrenches=plates, receive_lag=0.004)
    reads = []
    real = _floating_bags.read_raw
    monkeypatch.setattr(_floating_bags, "read_raw", lambda *args: reads.append(args) or real(*args))
    traj = bp.read_trajectory(bag, robot=robot, contacts={"left": "/left/wrench"})
    assert len(reads) == 1
    np.testing.assert_allclose(traj.t, log.t + 0.004, rtol=0, atol=1e-9)
    np.testing.assert_allclose(traj.wrenches[:, 0], a + np.outer(log.t, b), rtol=0, atol=1e-9)
    note = next(n for n in traj.notes if "one clock" in n)
    assert "\n" not in note
    assert ("the joint states, /base read on receive times, not header stamps, as /left/wrench has none: one clock "
            "for all topics (the two clocks differ by the transport lag)") in note


def test_joint_states_beside_a_topic_of_zero_stamps_are_read_on_receive_times(tmp_path):
    """Decision: a topic whose header stamps are all zero is read on its receive times, and the stamped JointState
    beside it moves to receive times too (one clock: the recorder's lag is common to both); reading only the
    zero-stamp topic on receive times would pair each effort with the joint sample of another instant. Both notes
    say so, each in one line."""
    from test_fuzz_round22_lrd2 import lagged_bag
    from test_logs import NAMES, _message, _typestore

    from baseparam.identification.trajectory import read_trajectory

    t = 1.0 + np.arange(200) / 500.0
    rng = np.random.default_rng(7)
    q, tau = np.sin(np.outer(t, [1.0, 2.0, 3.0])), rng.normal(0, 5, (t.size, 3))
    lag = 0.003
    path = lagged_bag(tmp_path / "bag", t, q, lag, "/efforts", "sensor_msgs/msg/JointState",
                      lambda k: _message(_typestore(), 0, NAMES, [], [], tau[k]))
    traj = read_trajectory(path, joints=NAMES, columns={"tau": "/efforts:effort"})
    np.testing.assert_allclose(traj.t, t + lag, rtol=0, atol=1e-9)
    assert np.array_equal(traj.q, q) and np.array_equal(traj.tau, tau)     # each effort with its own sample
    zero = next(n for n in traj.notes if "all zero" in n)
    both = next(n for n in traj.notes if "one clock" in n)
    assert "/efforts" in zero and "\n" not in zero
    assert ("/joint_states read on receive times, not header stamps, as /efforts has none: one clock for all topics"
            in both)


@pytest.mark.parametrize("old, new", [(b"sensor_msgs/msg/JointState", b"sensor_msgs/msg/JointStatf"),
                                      (b"/joint_states", b"/joint_statez")])
def test_a_forged_summary_of_a_message_compressed_bag_is_refused(tmp_path, old, new):
    """A rosbag2 MCAP folder of zstd-compressed messages is counted by our MCAP reader, then read by rosbags, which
    takes the summary's schemas and channels: one other than the data section's of the same id (the spec: records of
    one id are identical) was not refused there, as the chunk path refuses it (a topic renamed there was said as "no
    JointState messages", a type renamed refused in rosbags' words). Now it is, in one line."""
    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
    from test_logs import NAMES, _message, _ns, _typestore

    import baseparam as bp

    ts = _typestore()
    t = 1.0 + np.arange(50) / 100.0
    q = np.sin(np.outer(t, [1.0, 2.0, 3.0]))
    bag = tmp_path / "bag"
    writer = Writer(bag, version=8, storage_plugin=StoragePlugin.MCAP)
    writer.set_compression(CompressionMode.MESSAGE, CompressionFormat.ZSTD)
    with writer:
        js = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        for k in range(t.size):
            writer.write(js, int(_ns(t[k])), ts.serialize_cdr(_message(ts, int(_ns(t[k])), NAMES, q[k], q[k], q[k]),
                                                              "sensor_msgs/msg/JointState"))
    assert np.array_equal(bp.read_trajectory(bag, joints=NAMES).q, q)
    (file,) = bag.glob("*.mcap")
    data = bytearray(file.read_bytes())
    at = data.rfind(old)          # the summary's schema or channel (rosbags writes no summary CRC)
    assert data.find(old) < at
    data[at:at + len(old)] = new
    file.write_bytes(bytes(data))
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(bag, joints=NAMES)
    message = str(err.value)
    assert "\n" not in message and "must be identical (damaged or forged)" in message and new.decode() in message


LONG = "x" * 5000 + "\nforged line"


def _bounded(message, limit=400):
    assert "\n" not in message and len(message) < limit and ("…" in message or "..." in message)


def test_a_json_key_given_twice_is_shown_by_the_shared_rule():
    """A long key given twice was cut by hand (printable(repr())[:80], no mark of the cut): now by ``shown``."""
    from baseparam._checks import _json_object, _KeyTwice

    with pytest.raises(_KeyTwice) as err:
        _json_object([(LONG, 1), (LONG, 2)])
    _bounded(str(err.value))


def test_a_lerobot_feature_of_a_long_name_is_shown_bounded():
    from baseparam.errors import DataError
    from baseparam.identification._parquet import _feature_names

    for features in ({LONG: 5}, {LONG: {"names": [1, 2]}}):
        with pytest.raises(DataError) as err:
            _feature_names("info.json", features, LONG)
        _bounded(str(err.value))


def test_an_imu_frame_id_and_topics_are_shown_bounded():
    """A header.frame_id or a topic name read from a bag went whole into notes (printable only: 5 000 characters)."""
    import baseparam as bp
    from baseparam.identification._floating_bags import _imu_link
    from conftest import ROOT

    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    notes = []
    assert _imu_link("b.mcap", "/" + LONG, robot, [LONG], notes)[0] is None
    _bounded(notes[0])
    from baseparam.identification._bags import two_clocks_note
    _bounded(two_clocks_note("b.mcap", ["/" + LONG], ["/" + LONG + "2"]))
