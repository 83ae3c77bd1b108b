"""Round 21 (lmcap): MCAP schemas the summary redefines, and unchunked MCAP read in bulk."""
import io

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification import _mcap
from baseparam.identification._cdr import encode

NAMES = [f"j{i}" for i in range(3)]


def motion(n=400):
    t = np.arange(n) * 1e-3
    q = np.sin(np.outer(t, [1.0, 2.0, 3.0]))
    tau = np.cos(np.outer(t, [1.0, 2.0, 3.0]))
    return t, q, tau


def joint_state_mcap(chunked, n=400, extra_topic=False):
    """An MCAP of ``n`` JointState messages (every 7th on a second topic of another size when ``extra_topic``)."""
    from mcap.writer import CompressionType, Writer
    t, q, tau = motion(n)
    rows = encode(t, NAMES, q, None, tau)
    buf = io.BytesIO()
    writer = Writer(buf, use_chunking=chunked, chunk_size=5000, compression=CompressionType.NONE)
    writer.start("ros2", "test")
    schema = writer.register_schema("sensor_msgs/msg/JointState", "ros2msg", b"")
    channel = writer.register_channel("/joint_states", "cdr", schema)
    other = writer.register_channel("/other", "cdr", writer.register_schema("std_msgs/msg/String", "ros2msg", b""))
    for k in range(t.size):
        stamp = int(round(t[k] * 1e9))
        writer.add_message(channel, stamp, rows[k].tobytes(), stamp, sequence=k)
        if extra_topic and k % 7 == 0:
            writer.add_message(other, stamp, bytes(8 + k % 5), stamp, sequence=k)
    writer.finish()
    return buf.getvalue(), t, q, tau


@pytest.mark.parametrize("extra_topic", [False, True])
def test_an_unchunked_mcap_reads_as_its_chunked_twin_in_bulk(tmp_path, extra_topic):
    # messages outside chunks were read (and decoded) one at a time: 100 000 JointStates took 7 s of CPU, a chunked
    # file 0.4 s. Now a run of them is read as a chunk is: the same trajectory, to the bit, as the chunked file's and
    # as the values written, in a few pieces rather than one per message
    trajectories = []
    for chunked in (False, True):
        data, t, q, tau = joint_state_mcap(chunked, extra_topic=extra_topic)
        path = tmp_path / f"log{chunked}.mcap"
        path.write_bytes(data)
        trajectories.append(bp.read_trajectory(path, joints=NAMES))
    loose, chunked = trajectories
    assert np.array_equal(loose.q, q) and np.array_equal(loose.tau, tau)
    assert np.array_equal(loose.t, chunked.t) and np.array_equal(loose.q, chunked.q)
    data, *_ = joint_state_mcap(False, extra_topic=extra_topic)
    contents = _mcap.read(data, _mcap.Contents())
    assert contents.problem is None
    assert len(contents.pieces[1]) == 1           # one channel, one size: one piece (was 400)
    rows = np.concatenate([p[0] for p in contents.pieces[1]])
    assert np.array_equal(rows, encode(t, NAMES, q, None, tau))
    assert np.array_equal(contents.pieces[1][0][2], np.arange(400))
    if extra_topic:             # the second topic's five sizes: in file order across its pieces
        order = np.concatenate([p[2] for p in contents.pieces[2]])
        sizes = np.concatenate([np.full(p[0].shape[0], p[0].shape[1]) for p in contents.pieces[2]])
        assert np.array_equal(sizes[np.argsort(order)], 8 + np.arange(0, 400, 7) % 5)


def summary_patched(data, old, new):
    """``data`` with the last ``old`` (in the summary section) replaced by ``new`` of its length, the summary's CRC
    recomputed (a forger's file, or damage the CRC did not see)."""
    import struct
    import zlib
    data = bytearray(data)
    at = data.rfind(old)
    foot = len(data) - 8 - 29
    start, _, crc = struct.unpack("<QQI", data[foot + 9:foot + 29])
    assert start < at < foot and crc
    data[at:at + len(old)] = new
    data[foot + 25:foot + 29] = struct.pack("<I", zlib.crc32(data[start:foot + 25]))
    return bytes(data)


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("old, new, shown", [
    (b"JointState\x07\0\0\0ros2msg", b"JointState\x07\0\0\0ros2idl",
     "'sensor_msgs/msg/JointState' (ros2msg, 0 bytes of definition) in its data section, "
     "'sensor_msgs/msg/JointState' (ros2idl, 0 bytes of definition) in its summary"),
    (b"sensor_msgs/msg/JointState", b"sensor_msgs/msg/JointStatf", "'sensor_msgs/msg/JointStatf' (ros2msg")])
def test_a_summary_schema_that_differs_from_the_data_sections_is_refused(tmp_path, chunked, old, new, shown):
    # the spec: records of one id are identical. A summary schema 1 naming another type or encoding than the data
    # section's (a chunk's, or a top-level one) was not compared: the file read, its messages taken as the data
    # section said. Refused, in one line naming the file, the id and both sides
    data, t, q, tau = joint_state_mcap(chunked)
    path = tmp_path / "log.mcap"
    path.write_bytes(data)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)      # unpatched: read whole
    path.write_bytes(summary_patched(data, old, new))
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=NAMES, skip_bad_rows=True)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "schema 1 is " in message and shown in message
    assert "must be identical (damaged or forged)" in message


def test_a_summary_channel_that_differs_from_the_data_sections_is_refused(tmp_path):
    data, t, q, tau = joint_state_mcap(False)
    path = tmp_path / "log.mcap"
    path.write_bytes(summary_patched(data, b"/joint_states", b"/joint_statez"))
    with pytest.raises(bp.DataError, match=r"channel 1 is topic '/joint_states' \(cdr, schema 1\) in its data section, "
                                           r"topic '/joint_statez' \(cdr, schema 1\) in its summary"):
        bp.read_trajectory(path, joints=NAMES)
