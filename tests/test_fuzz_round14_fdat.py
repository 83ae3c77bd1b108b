"""Fuzz round fourteen (issue 28), the log readers' structure: records dropped, repeated or of a damaged opcode read
as a shorter log without a word unless counted against what the file says it holds (an MCAP summary's statistics, a
bag folder's metadata.yaml); a damaged receive time was sorted elsewhere into the motion with a note only."""
import io
import os
import sqlite3
import struct
import zipfile

import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import BaseParamError
from test_fuzz_round13_fdat import NAMES, joint_state_records, mcap_of, motion, records, ros2_bag


def one_line_refusal(path, *words, **options):
    with pytest.raises(BaseParamError) as caught:
        bp.read_trajectory(path, joints=NAMES, **options)
    said = str(caught.value)
    assert "\n" not in said and str(path) in said and all(w in said for w in words), said
    return said


def mcap_with_summary(chunked):
    """A 60-message JointState MCAP file of the mcap package's writer, with its summary (statistics, indexes) and
    no data CRC (as most writers: then only the summary can tell what is missing): messages loose, or in
    uncompressed chunks of some 17 messages. Its bytes and q."""
    from mcap.writer import CompressionType, Writer
    from baseparam.identification._cdr import encode
    t, q, tau = motion()
    rows = encode(t, NAMES, q, None, tau)
    buf = io.BytesIO()
    writer = Writer(buf, use_chunking=chunked, chunk_size=3000, compression=CompressionType.NONE)
    writer.start("ros2", "test")
    channel = writer.register_channel("/joint_states", "cdr", writer.register_schema("sensor_msgs/msg/JointState",
                                                                                    "ros2msg", b""))
    for k in range(t.size):
        writer.add_message(channel, int(round(t[k] * 1e9)), rows[k].tobytes(), int(round(t[k] * 1e9)), sequence=k)
    writer.finish()
    return bytearray(buf.getvalue()), q


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("damage", ["dropped", "opcode 0x42"])
def test_an_mcap_record_lost_is_found_by_the_summary(tmp_path, chunked, damage):
    # a message (or a chunk of 17) dropped whole, or its opcode damaged into one MCAP readers skip, read as a log
    # of 59 (43) samples without a word: the footer's summary start and the statistics' counts tell
    data, q = mcap_with_summary(chunked)
    path = tmp_path / "log.mcap"
    path.write_bytes(data)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)            # undamaged: read whole
    op, start, end = [r for r in records(data) if r[0] == (6 if chunked else 5)][1]
    if damage == "dropped":
        del data[start:end]
    else:
        data[start] = 0x42
    path.write_bytes(data)
    one_line_refusal(path, "a record dropped, repeated or damaged",
                     "summary section at byte" if damage == "dropped" else "statistics count")


def test_an_attachment_of_baseparams_writer_lost_is_found_by_the_summary(tmp_path):
    # the accelerations baseparam attaches to its MCAP logs, their record's opcode damaged: read without them (and
    # derived later) without a word
    t, q, tau = motion()
    qdd = np.cos(np.arange(q.size)).reshape(q.shape)
    path = tmp_path / "log.mcap"
    bp.write_trajectory(bp.Trajectory(t, q, tau, qdd=qdd), path, joint_names=NAMES)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).qdd, qdd)
    data = bytearray(path.read_bytes())
    data[[start for op, start, _ in records(data) if op == 9][-1]] = 0x42        # the last attachment's opcode
    path.write_bytes(data)
    one_line_refusal(path, "attachments read, its summary's statistics count 2")


def test_an_mcap_record_skipped_where_nothing_counts_the_messages_is_said(tmp_path):
    # without a summary nothing tells how many messages there were: a record of an unknown opcode is skipped (as the
    # MCAP spec says readers do), with a warning that a message may have been among them
    records_, q = joint_state_records()
    op, body = records_[12]                         # the eleventh message
    records_[12] = (0x42, body)
    path = tmp_path / "log.mcap"
    path.write_bytes(mcap_of(records_))
    with pytest.warns(bp.errors.DataWarning, match=r"skipped \(opcode 0x42.*no summary section.*cannot be told"):
        traj = bp.read_trajectory(path, joints=NAMES)
    assert np.array_equal(traj.q, np.delete(q, 10, axis=0))


def bag_of_a_lost_message(path):
    """A ros2_bag written at ``path`` (20 messages, metadata.yaml counting them) whose fifth message's row is then
    deleted from its sqlite3 file; the q of the 20 messages."""
    q = ros2_bag(path)
    with sqlite3.connect(path / "bag.db3") as db:
        db.execute("DELETE FROM messages WHERE id = 5")
    db.close()
    return q


def test_a_bag_folder_message_lost_is_found_by_its_metadata_counts(tmp_path):
    # a row of a sqlite3 bag deleted read as 19 samples without a word; metadata.yaml counts each topic's messages
    # (fewer read than counted: a warning, as rosbag2 before its cache fix wrote such counts of a valid bag)
    import yaml
    path = tmp_path / "bag"
    q = bag_of_a_lost_message(path)
    with pytest.warns(bp.DataWarning, match="topic /joint_states: 19 messages read, metadata.yaml counts 20"):
        assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, np.delete(q, 4, axis=0))
    # counts of 0 throughout (a recorder stopped before it wrote them) check nothing
    meta = path / "metadata.yaml"
    info = yaml.safe_load(meta.read_text())
    info["rosbag2_bagfile_information"]["topics_with_message_count"][0]["message_count"] = 0
    meta.write_text(yaml.safe_dump(info))
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, np.delete(q, 4, axis=0))


def test_a_damaged_receive_time_is_a_damaged_message_not_sorted_into_the_motion(tmp_path):
    # the eleventh message's log time 45 ms early: on the receive clock it was sorted between the sixth and the
    # seventh, its values placed there, with a note only. The recorder stores a topic's messages as they arrive,
    # so a receive time going back in file order is damage: refused, or dropped and listed with skip_bad_rows
    records_, q = joint_state_records()
    op, body = records_[12]
    ns = struct.unpack_from("<Q", body, 6)[0]
    records_[12] = (op, body[:6] + struct.pack("<Q", ns - 45_000_000) + body[14:])
    path = tmp_path / "log.mcap"
    path.write_bytes(mcap_of(records_))
    one_line_refusal(path, "message 10", "receive time", clock="receive")
    traj = bp.read_trajectory(path, joints=NAMES, clock="receive", skip_bad_rows=True)
    assert np.array_equal(traj.q, np.delete(q, 10, axis=0)) and [k for k, _ in traj.skipped] == [10]
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)      # its header stamp is whole


def ros1_bag_of_chunks(path):
    """A ROS 1 bag of 60 JointState messages in bz2 chunks of some 11 (rosbags' writer), its bytes."""
    from rosbags.rosbag1 import Writer
    from rosbags.typesys import Stores, get_typestore
    store = get_typestore(Stores.ROS1_NOETIC)
    kind = "sensor_msgs/msg/JointState"
    JointState, Header, Time = (store.types[n] for n in (kind, "std_msgs/msg/Header", "builtin_interfaces/msg/Time"))
    t, q, tau = motion()
    writer = Writer(path)
    writer.set_compression(Writer.CompressionFormat.BZ2)
    writer.chunk_threshold = 1500
    with writer:
        conn = writer.add_connection("/joint_states", kind, typestore=store)
        for k in range(t.size):
            ns = int(round(t[k] * 1e9))
            msg = JointState(header=Header(seq=k, stamp=Time(sec=ns // 10**9, nanosec=ns % 10**9), frame_id=""),
                             name=NAMES, position=q[k], velocity=np.zeros(3), effort=tau[k])
            writer.write(conn, ns, store.serialize_ros1(msg, kind))
    return bytearray(path.read_bytes()), q


@pytest.mark.parametrize("damage", ["chunk count", "index data's connection"])
def test_a_ros1_bag_whose_index_lost_a_chunk_is_refused(tmp_path, damage):
    # rosbags reads the chunks its header counts, and of each the messages its index data list for connections it
    # knows: the header's chunk count one less, or a chunk's index data naming another connection, read as a log of
    # 49 or 50 samples without a word. The index is checked against every record of the file
    path = tmp_path / "log.bag"
    data, q = ros1_bag_of_chunks(path)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)
    if damage == "chunk count":
        at = data.index(b"chunk_count=") + 12
        data[at:at + 4] = (int.from_bytes(data[at:at + 4], "little") - 1).to_bytes(4, "little")
    else:
        at = data.index(b"conn=", data.index(b"op=\x04", data.index(b"op=\x04") + 1) - 12) + 5
        data[at:at + 4] = (5).to_bytes(4, "little")
    path.write_bytes(data)
    one_line_refusal(path, "damaged")


def test_a_damaged_receive_time_in_a_sqlite3_bag_is_found_in_the_rows_order(tmp_path):
    # rosbags gives a sqlite3 bag's messages sorted by time stamp: a row's stamp 45 ms early moved its values two
    # samples back without even a note. Numbered in the rows' order, the message is found as in an MCAP file
    path = tmp_path / "bag"
    q = ros2_bag(path)
    with sqlite3.connect(path / "bag.db3") as db:
        db.execute("UPDATE messages SET timestamp = timestamp - 45000000 WHERE id = 11")
    db.close()
    one_line_refusal(path, "message 10", "receive time", clock="receive")
    traj = bp.read_trajectory(path, joints=NAMES, clock="receive", skip_bad_rows=True)
    assert np.array_equal(traj.q, np.delete(q, 10, axis=0)) and [k for k, _ in traj.skipped] == [10]


def test_an_mcap_attachment_whose_crc_disagrees_is_refused(tmp_path):
    # a bit flipped in the accelerations baseparam attaches read as other accelerations without a word: the
    # attachment's own CRC (the mcap writer computes it) was not checked
    t, q, tau = motion()
    qdd = np.cos(np.arange(q.size)).reshape(q.shape)
    path = tmp_path / "log.mcap"
    bp.write_trajectory(bp.Trajectory(t, q, tau, qdd=qdd), path, joint_names=NAMES)
    data = bytearray(path.read_bytes())
    op, start, end = [r for r in records(data) if r[0] == 9][-1]
    assert bytes(data[start + 25:start + 60]).find(b"qdd") >= 0          # the accelerations' record
    data[end - 4 - 8 * 30] ^= 0x01                  # the last bit of a value in its middle
    path.write_bytes(data)
    one_line_refusal(path, "CRC")


def npz_log(path, damage):
    """An NPZ log of three joints (write_trajectory's members), one member's .npy header damaged."""
    t, q, tau = motion()
    with zipfile.ZipFile(path, "w") as archive:
        for key, values in (("t", t), ("q", q), ("tau", tau), ("joint_names", np.array(NAMES))):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, values)
            data = buffer.getvalue()
            if key == damage[0]:
                data = data.replace(b"'shape': (", damage[1], 1)
            archive.writestr(f"{key}.npy", data)


@pytest.mark.parametrize("damage, said", [(("q", b"'shape': *"), "header is damaged"),
                                          (("joint_names", b"'shape': *"), "header is damaged"),
                                          (("joint_names", b"'shape': (10000000000"), "at most 10000 names")])
def test_an_npz_member_whose_header_is_damaged_is_refused_in_one_line(tmp_path, damage, said):
    # numpy parses an .npy header with tokenize and ast: a damaged one was a bare tokenize.TokenError (the
    # trajectory's members and the joint names alike); a joint_names member claiming 10¹⁰ names a MemoryError
    path = tmp_path / "log.npz"
    npz_log(path, ("t", b"'shape': ("))
    assert bp.read_trajectory(path, joints=NAMES).q.shape == (60, 3)
    npz_log(path, damage)
    one_line_refusal(path, said, f"key {damage[0]}")


def test_a_wrench_log_with_a_latin1_comment_is_read_as_its_trajectory_is(tmp_path):
    # the trajectory reader takes a CSV whose comment line is not UTF-8 (é in Latin-1); the wrench reader of the
    # same file (payload --wrench) raised a bare UnicodeDecodeError
    from baseparam.identification.payload_wrench import read_wrench
    t, q, tau = motion()
    wrench = np.cos(np.arange(6 * t.size)).reshape(-1, 6)
    rows = "\n".join(",".join(map(repr, row)) for row in np.column_stack([t, q, wrench, tau]).tolist())
    path = tmp_path / "loaded.csv"
    path.write_bytes(b"# caf\xe9\nt,q1,q2,q3,fx,fy,fz,mx,my,mz,tau1,tau2,tau3\n" + rows.encode())
    log = bp.read_trajectory(path)
    assert np.array_equal(log.q, q)
    assert np.array_equal(read_wrench(str(path), "fx,fy,fz,mx,my,mz", log.skipped, log.skipped_unit), wrench)


def test_a_parquet_footer_damaged_in_its_statistics_is_refused_not_an_aborted_process(tmp_path):
    # one byte flipped in the footer (a size-statistics histogram of the wrong length): pyarrow's Python accessor
    # of the column chunk's metadata, which the values' bound reads, let a C++ exception escape and the process
    # aborted (SIGABRT). Read in a child process, so that the old code's abort fails the test, not the run
    import pyarrow as pa
    import pyarrow.parquet as pq
    t, q, tau = motion()
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"t": t, "q": pa.FixedSizeListArray.from_arrays(pa.array(q.reshape(-1)), 3),
                             "tau": pa.FixedSizeListArray.from_arrays(pa.array(tau.reshape(-1)), 3)}), path)
    assert np.array_equal(bp.read_trajectory(path).q, q)
    data = bytearray(path.read_bytes())
    data[len(data) - 8 - struct.unpack_from("<I", data, len(data) - 8)[0] + 20] ^= 0x08
    path.write_bytes(data)
    pid = os.fork()
    if pid == 0:                                    # the child: 3 for a one-line refusal naming the file
        code = 4
        try:
            os.close(2)
            bp.read_trajectory(path)
        except BaseParamError as exc:
            code = 3 if "\n" not in str(exc) and str(path) in str(exc) else 5
        except BaseException:
            code = 6
        os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 3


def bag_folder_with_camera(path, plugin):
    """A ROS 2 bag folder (version 8, ``plugin`` storage) with a /camera topic beside /joint_states; q."""
    return ros2_bag(path, plugin, version=8, camera=True)


def add_to_count(path, topic, extra):
    """``path``'s metadata.yaml with ``extra`` more messages counted on ``topic``."""
    import yaml
    meta = path / "metadata.yaml"
    info = yaml.safe_load(meta.read_text())
    for entry in info["rosbag2_bagfile_information"]["topics_with_message_count"]:
        if entry["topic_metadata"]["name"] == topic:
            entry["message_count"] += extra
    meta.write_text(yaml.safe_dump(info))


@pytest.mark.parametrize("plugin", ["MCAP", "SQLITE3"])
def test_a_bag_folder_topic_not_read_is_not_counted(tmp_path, plugin):
    # rosbag2 before its cache fix counted a message when it was handed to its cache, written or dropped (a full
    # cache under load): such a bag's metadata counts more messages than its files hold. On a topic the trajectory
    # does not read (a camera's) that says nothing of the log; a bag folder of MCAP storage was refused for it
    # (its files' every topic was counted, of sqlite3 storage only the topics read)
    path = tmp_path / "bag"
    q = bag_folder_with_camera(path, plugin)
    add_to_count(path, "/camera", 3)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


def test_a_bag_folder_topic_holding_more_messages_than_counted_is_refused_fewer_warned(tmp_path):
    # more messages than metadata.yaml counts: a message or a file repeated (refused); fewer is said in a warning
    # (rosbag2 before its cache fix counted the messages its full cache dropped: a bag as recorded), not refused
    path = tmp_path / "bag"
    q = bag_folder_with_camera(path, "MCAP")
    add_to_count(path, "/joint_states", -1)
    one_line_refusal(path, "topic /joint_states: 20 messages read, metadata.yaml counts 19: a message or a file "
                     "repeated")
    add_to_count(path, "/joint_states", 3)
    with pytest.warns(bp.DataWarning, match="20 messages read, metadata.yaml counts 22: messages lost"):
        assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


def test_a_parquet_files_declared_sizes_are_read_once(tmp_path, monkeypatch):
    # a file's footer and page headers are read once for both bounds of one read (round fifteen replaced the first
    # rows read before the counts, some 100 µs a row group, by a read of the footer in Python: 33,000 row groups
    # cost some seconds, not to be paid twice)
    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.identification import _parquet
    t, q, tau = motion()
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"t": t, "q": list(q), "tau": list(tau)}), path, row_group_size=6)
    calls = []
    real = _parquet.column_chunks
    monkeypatch.setattr(_parquet, "column_chunks", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)
    assert len(calls) == 1 and len(real(path, "x")) == 30


def test_an_npz_log_whose_joint_names_are_pickled_objects_is_read(tmp_path):
    # np.savez of pandas' columns.values stores the names as a pickled object array: not loaded (no pickles), so the
    # joints' order is not checked, as before; it was refused as 'expected at most 10000 names, got shape (3,)'
    import pandas as pd
    t, q, tau = motion()
    path = tmp_path / "log.npz"
    np.savez(path, t=t, q=q, tau=tau, joint_names=pd.Index(NAMES).values)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


def test_a_sqlite3_bags_rows_of_topics_not_read_are_not_fetched(tmp_path, monkeypatch):
    # the rows' order is taken of the topics read only: a bag's camera or IMU topic may hold millions of rows (2·10⁶
    # of one such topic took 0.99 → 2.00 s of CPU and 47 → 124 MB when every row's stamp was fetched)
    path = tmp_path / "bag"
    q = bag_folder_with_camera(path, "SQLITE3")
    fetched, connect = [], sqlite3.connect

    class Counted:
        def __init__(self, *args, **kwargs):
            self.db = connect(*args, **kwargs)

        def execute(self, *args):
            rows = list(self.db.execute(*args))
            fetched.extend(rows)
            return iter(rows)

        def close(self):
            self.db.close()

    monkeypatch.setattr(sqlite3, "connect", Counted)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES, clock="receive").q, q)
    assert {row[0] for row in fetched} == {"/joint_states"}


def test_a_parquet_value_flipped_under_its_page_checksum_is_refused(tmp_path):
    # a writer that stores data-page CRCs (pyarrow's write_page_checksum): a flipped bit in a value was read as
    # another value without a word; the CRC now refuses it (a57a8aa left this untested)
    import pyarrow as pa
    import pyarrow.parquet as pq
    t, q, tau = motion()
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"t": t, "q": pa.FixedSizeListArray.from_arrays(pa.array(q.reshape(-1)), 3),
                             "tau": pa.FixedSizeListArray.from_arrays(pa.array(tau.reshape(-1)), 3)}), path,
                   write_page_checksum=True, compression="none")
    assert np.array_equal(bp.read_trajectory(path).q, q)
    data = bytearray(path.read_bytes())
    at = data.find(q.reshape(-1).tobytes()[80:96])      # q's 11th value, stored plain
    assert at > 0
    data[at + 3] ^= 0x10
    path.write_bytes(data)
    said = one_line_refusal(path, "cannot read as Parquet", "CRC")
    assert said.startswith(f"{path}: ")
