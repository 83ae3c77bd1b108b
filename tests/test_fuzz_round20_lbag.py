"""Fuzz round twenty, the readers (issues 28, 22, 25): stop 44's leftovers — MCAP files and ROS 1 bags read through a
memory map (a file cut by another process while read: SIGBUS), …"""
import os

import numpy as np
import pytest

import baseparam as bp

NAMES = ["shoulder", "elbow", "wrist"]


def joint_state_bag(path, kind, count):
    """A bag of ``count`` JointState messages written by rosbags (test_logs' writer), some 200 bytes each."""
    from test_logs import write_bag
    t = 1.0 + np.arange(count) / 500.0
    ns = np.round(t * 1e9).astype(np.int64)
    q = np.sin(t[:, None] * [1.0, 1.3, 0.7])
    return write_bag(path, kind, {"/joint_states": [(int(ns[k]), int(ns[k]), NAMES, q[k], q[k], q[k])
                                                    for k in range(count)]})


@pytest.mark.parametrize("kind", ["mcap", "ros1"])
def test_a_bag_cut_by_another_process_while_read_is_refused_not_a_signal_death(tmp_path, monkeypatch, kind):
    # MCAP files and ROS 1 bags were walked through a memory map: a file another process cut short after it was
    # mapped killed the reader by SIGBUS at the first page past its new end (exit -7 on the old code). The file is cut
    # here to 4 kB as the reader handles its first chunk (MCAP) or its first record (ROS 1: the bag header)
    from baseparam.identification import _bag_files, _mcap
    from test_fuzz_round15_fdat import refused_in_a_child
    bag = joint_state_bag(tmp_path / ("log.bag" if kind == "ros1" else "bag"), kind, 3000)
    path = bag if kind == "ros1" else next(bag.glob("*.mcap"))
    assert path.stat().st_size > 1 << 19           # far more than a read window (64 kB)

    def cut_first(function):
        def cut(*args):
            if path.stat().st_size > 4096:
                os.truncate(path, 4096)
            return function(*args)
        return cut
    if kind == "mcap":
        monkeypatch.setattr(_mcap, "_decompress", cut_first(_mcap._decompress))
    else:
        monkeypatch.setattr(_bag_files, "_ros1_index_record", cut_first(_bag_files._ros1_index_record))
    code, said = refused_in_a_child(lambda: bp.read_trajectory(bag, joints=NAMES))
    assert code == 3, (code, said)
    what = "MCAP" if kind == "mcap" else "a ROS bag"
    assert said.startswith(f"{path}: cannot read as {what}: the file was cut while it was read"), said


def _varint(value):
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def _i32(field_head, value):
    """A Thrift compact i32 field (its head byte given: delta << 4 | 5) of a non-negative value."""
    return bytes([field_head]) + _varint(2 * value)


def page_header_with_statistics(values, total, big):
    """A data page's header (Thrift compact) of ``values`` values whose header and page take ``total`` bytes, its
    page statistics' ``max`` a binary of ``big`` bytes (zeros), and the page (zeros)."""
    def head(size):
        return (_i32(0x15, 0) + _i32(0x15, size) + _i32(0x15, size) + b"\x2c"     # type, sizes; data_page_header:
                + _i32(0x15, values) + _i32(0x15, 0) + _i32(0x15, 3) + _i32(0x15, 3)  # values, encodings,
                + b"\x1c\x18" + _varint(big) + bytes(big) + b"\x00\x00\x00")       # statistics {max}; the ends
    size = total - len(head(0))
    while len(head(size)) + size > total:       # the sizes' varints take a few bytes more
        size -= 1
    assert len(head(size)) + size == total
    return head(size) + bytes(size)


def test_a_parquet_page_header_of_large_statistics_is_walked_in_bounded_memory(tmp_path):
    # a page header is read in a window that grew (4 times at a go) until the whole header fit: a crafted statistics
    # field of 200 MB made the walk allocate 282 MB where the file mapped took 17. Here a page of 2 MB of doubles is
    # rewritten in place as a header whose statistics take 1.5 MB and a page of the rest (its chunk's bytes and the
    # footer unchanged): the walk reads past the statistics without holding them
    import tracemalloc

    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.identification import _parquet_pages
    path = tmp_path / "log.parquet"
    count, big = 1 << 18, 3 << 19
    pq.write_table(pa.table({"t": np.arange(count, dtype=float)}), path, use_dictionary=False, compression="none",
                   write_statistics=False, data_page_size=1 << 30)
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)
    start, total = chunk.data_page_offset, chunk.total_compressed_size
    data = bytearray(path.read_bytes())
    data[start:start + total] = page_header_with_statistics(count, total, big)
    path.write_bytes(bytes(data))
    tracemalloc.start()
    try:
        chunks = _parquet_pages.column_chunks(path, str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [(c.column, c.values) for c in chunks] == [("t", count)]     # the page's values, as the footer counts
    assert peak < big / 4, peak


def test_a_compressed_sqlite_bag_under_a_temporary_folder_a_uri_cuts_is_refused_saying_so(tmp_path, monkeypatch):
    # rosbags unpacks a whole-file compressed sqlite3 bag into a folder of the temporary folder and opens it as
    # 'file:PATH?immutable=1': under TMPDIR=/tmp/a?b a valid bag was refused as 'cannot read as a ROS bag: Cannot open
    # database …: unable to open database file'. The refusal now says why, and what to change
    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
    from test_logs import _message, _typestore
    ts = _typestore()
    bag = tmp_path / "bag"
    writer = Writer(bag, version=8, storage_plugin=StoragePlugin.SQLITE3)
    writer.set_compression(CompressionMode.FILE, CompressionFormat.ZSTD)
    with writer:
        conn = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        for k in range(20):
            ns, q = 10**9 + k * 10**7, [0.1 * k, 0.2, 0.3]
            writer.write(conn, ns, ts.serialize_cdr(_message(ts, ns, NAMES, q, q, q), "sensor_msgs/msg/JointState"))
    assert bp.read_trajectory(bag, joints=NAMES).n_samples == 20
    for name, cut in (("t?x=1", "'?'"), ("t%41", "'%41'")):
        (tmp_path / name).mkdir()
        monkeypatch.setattr("tempfile.tempdir", str(tmp_path / name))
        with pytest.raises(bp.DataError) as err:
            bp.read_trajectory(bag, joints=NAMES)
        said = str(err.value)
        assert said.startswith(f"{bag}/bag.db3.zstd: {cut} in the path of the temporary folder"), said
        assert "set TMPDIR to a folder" in said and "\n" not in said


def test_a_joint_state_field_named_through_its_topic_is_one_source_for_the_column_map(tmp_path):
    # 'qd=effort' is refused (one JointState field for two trajectory fields), but 'qd=/joint_states:effort' named the
    # same field of the same messages through TOPIC:FIELD and read the torques as the velocities without a word
    bag = joint_state_bag(tmp_path / "bag", "mcap", 50)
    for columns, field in (({"qd": "/joint_states:effort"}, "effort"), ({"tau": "/joint_states:velocity"}, "velocity")):
        with pytest.raises(bp.DataError) as err:
            bp.read_trajectory(bag, joints=NAMES, columns=columns)
        assert str(err.value) == f"{bag}: column map: JointState field '{field}' is used for both qd and tau"
    # the field through its topic alone is the field itself: read
    assert bp.read_trajectory(bag, joints=NAMES, columns={"tau": "/joint_states:effort"}).n_samples == 50


def test_an_sqlite_bag_in_a_folder_of_a_non_utf8_name_is_refused_saying_what_to_rename(tmp_path):
    # sqlite3 is given its storage's path as UTF-8 text, which a folder named in Latin-1 bytes is not: the refusal
    # was Python's "'utf-8' codec can't encode character '\udcff' …: surrogates not allowed". (MCAP and ROS 1 bags of
    # such names are read: their readers open the path as bytes)
    bag = tmp_path / os.fsdecode(b"bag\xe9")
    try:
        joint_state_bag(bag, "sqlite3", 10)
    except (OSError, UnicodeError):
        pytest.skip("the file system takes no name of non-UTF-8 bytes")
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(bag, joints=NAMES)
    said = str(err.value)
    assert "a path that is not UTF-8 text" in said and said.endswith("rename the folder or file"), said
    assert said.startswith(f"{tmp_path}/bag\\xe9/") and "\n" not in said


@pytest.mark.parametrize("checkpointed", [True, False])
def test_an_sqlite_bag_whose_write_ahead_log_is_in_its_file_is_read(tmp_path, checkpointed):
    # a recorder stopped with its -wal not empty is refused: the log holds writes the file lacks, and rosbags reads
    # the file alone. But a checkpoint copies the log's pages into the file and leaves the log as it is (the next write
    # resets it): a bag stopped then was refused though its file holds every write. Each page of the log is now
    # compared with the file's; the bag read is what sqlite itself reads, the log merged
    import shutil
    import sqlite3
    work = joint_state_bag(tmp_path / "work", "sqlite3", 30)
    db = sqlite3.connect(work / "work.db3", isolation_level=None)
    db.execute("PRAGMA journal_mode=wal")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("DELETE FROM messages WHERE id > 10")
    if checkpointed:
        assert db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[0] == 0
    bag = tmp_path / "bag"
    shutil.copytree(work, bag)                  # the folder as the stopped recorder left it, the log not empty
    db.close()
    assert (bag / "work.db3-wal").stat().st_size > 0
    if checkpointed:
        before = {p.name: p.read_bytes() for p in bag.iterdir()}
        with pytest.warns(bp.DataWarning, match="10 messages read, metadata.yaml counts 30"):   # rows deleted here
            assert bp.read_trajectory(bag, joints=NAMES).n_samples == 10
        assert {p.name: p.read_bytes() for p in bag.iterdir()} == before            # nothing written beside it
    else:
        with pytest.raises(bp.DataError, match="work.db3-wal: sqlite's write-ahead log"):
            bp.read_trajectory(bag, joints=NAMES)


@pytest.mark.parametrize("ext", ["csv", "parquet"])      # NPZ: the CSV reader's checks
def test_a_floating_log_of_absurd_values_is_refused_when_read_naming_the_file(space, tmp_path, ext):
    # values to 1e300 were read from a floating-base log (the fixed-base readers refuse beyond their bounds), and the
    # fit refused them later without the file's name. A base position of kilometres (a legged robot's odometry) is
    # read: the base's position is bounded as the fit bounds states
    import dataclasses

    from test_floating_identification import SPACE
    robot = bp.load_robot(SPACE)
    qd = space.log.qd.copy()
    qd[5, 7] = 1e300                                   # a joint velocity (after the base's six)
    far = space.log.q.copy()
    far[:, 0] += 5e3                                   # the base 5 km away
    wrenches = np.zeros((space.log.n_samples, 1, 6))
    wrenches[3, 0, 4] = -2e7                           # a contact's moment my
    cases = ((dataclasses.replace(space.log, qd=qd), (), "qd8: absurd value (1e+300; beyond ±10000)"),
             (dataclasses.replace(space.log, q=far, wrenches=wrenches, contacts=("foot",)), ("foot",),
              "wrenches: contact 1, my: absurd value (-2e+07; beyond ±1e+06)"))
    for log, contacts, said in cases:
        path = bp.write_trajectory(log, tmp_path / f"log.{ext}")
        with pytest.raises(bp.DataError) as err:
            bp.read_trajectory(path, robot=robot, contacts=list(contacts))
        assert str(err.value).startswith(str(path)) and str(err.value).endswith(said), str(err.value)
    assert bp.read_trajectory(path, robot=robot).q[0, 0] == far[0, 0]     # without the contacts: the far base read


def test_parquet_joint_names_of_lerobots_form_are_matched_to_the_robots_joints(tmp_path):
    # LeRobot names the lists' joints 'shoulder.pos' (q), 'shoulder.vel' …: the robot's joint 'shoulder' was
    # 'not in the log (it names shoulder.pos, …)'. A suffix all the names share after a dot is now left out to
    # match them, as it already was to compare the order of two lists
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq
    t = np.arange(60) * 0.01
    q = np.random.default_rng(3).normal(size=(60, 4))
    names = ["wrist.pos", "shoulder.pos", "gripper.pos", "elbow.pos"]        # another order, and a joint more
    table = pa.table({"t": t, "q": list(q), "tau": list(2 * q)})
    table = table.replace_schema_metadata({b"baseparam.joint_names": json.dumps(names).encode()})
    pq.write_table(table, tmp_path / "log.parquet")
    traj = bp.read_trajectory(tmp_path / "log.parquet", joints=NAMES)
    np.testing.assert_array_equal(traj.q, q[:, [1, 3, 0]])
    np.testing.assert_array_equal(traj.tau, 2 * q[:, [1, 3, 0]])
    assert traj.joint_names == tuple(NAMES)
    assert any(note.endswith("left out: gripper") for note in traj.notes), traj.notes


def test_an_hdf5_row_of_long_joint_names_per_sample_is_read_a_bounded_block_at_a_time():
    # a dataset of a row of variable-length names per sample is read a block of rows at a time, the block sized for
    # 1 MiB of names at 8 bytes a name (the size of a pointer): rows of 1 400-character names read 43 690 rows, some
    # 180 MB of text, at once. The first row's length now sets the step. (The rows here: h5py's reads stood in for)
    import h5py

    from baseparam.identification import _arrays
    names = np.array([name * 700 for name in ("sh", "el", "wr")], dtype=object)      # 1 400 characters each
    samples, read = 100_000, []

    def read_rows(start, stop):
        block = np.tile(names, (min(stop, samples) - start, 1))
        read.append(sum(len(name) for name in block.reshape(-1).tolist()))
        return block
    got = _arrays._h5_names((samples, 3), h5py.string_dtype(), None, "log.h5: joint_names", read_rows)
    assert got == list(names) or tuple(got) == tuple(names)
    assert sum(read) == samples * 4200 and max(read) <= _arrays.MAX_NAMES_BYTES, max(read)
