"""Fuzz round twenty (issue 28), readers: what the fzread helper's drivers found, each with a test that fails on
the code before its fix."""
from __future__ import annotations

import re

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification._cdr import JOINT_STATE_MSGDEF
from test_logs import _message, _typestore


def _mcap_with_definition(path, msgdef, n=20, encoding="ros2msg"):
    """An MCAP file of JointState messages serialized as sensor_msgs/msg/JointState is, whose schema record carries
    ``msgdef`` as the type's definition (in ``encoding``: ros2msg, ros2idl): q = (0.1·k, 0.2, 0.3), q̇ = (1, 2, 3),
    τ = (10, 20, 30)."""
    from mcap.writer import CompressionType, Writer

    ts = _typestore()
    with open(path, "wb") as stream:
        writer = Writer(stream, compression=CompressionType.NONE)
        writer.start()
        schema = writer.register_schema("sensor_msgs/msg/JointState", encoding, msgdef.encode())
        channel = writer.register_channel("/joint_states", "cdr", schema)
        for k in range(n):
            t = 10**9 + k * 5_000_000
            msg = _message(ts, t, ["shoulder", "elbow", "wrist"], [0.1 * k, 0.2, 0.3], [1.0, 2.0, 3.0],
                           [10.0, 20.0, 30.0])
            writer.add_message(channel, t, ts.serialize_cdr(msg, "sensor_msgs/msg/JointState"), t)
        writer.finish()
    return path


@pytest.mark.parametrize("change, said", [
    (("float64[] position\nfloat64[] velocity", "float64[] velocity\nfloat64[] position"),
     "field 3 is float64[] velocity, not float64[] position"),
    (("float64[] effort", "float32[] effort"), "field 5 is float32[] effort, not float64[] effort"),
    (("uint32 nanosec", "uint64 nanosec"), "builtin_interfaces/msg/Time is not the standard one"),
])
def test_joint_state_of_another_definition_refused(tmp_path, change, said):
    """A bag's JointState whose own definition differs from sensor_msgs' (arrays in another order, float32 values,
    a 64-bit nanosec): the reader decoded it by the type's name with the standard layout, so the file's velocities
    were read as positions without a word. Refused in one line naming the field."""
    path = _mcap_with_definition(tmp_path / "log.mcap", JOINT_STATE_MSGDEF.replace(*change))
    with pytest.raises(bp.DataError, match="not the standard one") as caught:
        bp.read_trajectory(path)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_joint_state_definition_as_recorders_write_it_still_read(tmp_path):
    """Comments, blank lines, CR LF line ends and the short ``Header`` name (ROS 1's spelling) change no field: read."""
    text = ("# the state of a set of joints\n" + JOINT_STATE_MSGDEF.replace("std_msgs/Header header", "Header header")
            .replace("string[] name", "string[] name   # names\n")).replace("\n", "\r\n")
    traj = bp.read_trajectory(_mcap_with_definition(tmp_path / "log.mcap", text))
    assert np.array_equal(traj.q[:, 1], np.full(20, 0.2)) and np.array_equal(traj.qd[3], [1.0, 2.0, 3.0])


def test_csv_log_in_utf32_read_as_in_utf8(tmp_path):
    """UTF-32 with its byte-order mark (FF FE 00 00, which begins as UTF-16LE's) was decoded as UTF-16: a header of
    NUL-riddled names, refused as 'no time column'. Read as its UTF-8 copy is."""
    text = "t,q1,tau1\n" + "".join(f"{0.01 * k!r},{0.1 * k!r},{2.0 + k!r}\n" for k in range(12))
    (tmp_path / "u8.csv").write_text(text, encoding="utf-8")
    (tmp_path / "u32.csv").write_bytes(text.encode("utf-32"))
    a, b = bp.read_trajectory(tmp_path / "u8.csv"), bp.read_trajectory(tmp_path / "u32.csv")
    assert np.array_equal(a.t, b.t) and np.array_equal(a.q, b.q) and np.array_equal(a.tau, b.tau)


def test_bag_metadata_not_utf8_named_in_one_line(tmp_path):
    """A bag folder's metadata.yaml saved as UTF-16: "cannot read as a ROS bag: 'utf-8' codec can't decode byte 0xff
    in position 0: invalid start byte" (rosbags' words, no file named). Now the file, line and byte."""
    from test_logs import write_bag

    names = ["shoulder", "elbow", "wrist"]
    bag = write_bag(tmp_path / "bag", "sqlite3", {"/joint_states": [
        (10**9 + k * 10**7, 10**9 + k * 10**7, names, [0.1 * k, 0.2, 0.3], [1.0] * 3, [2.0] * 3) for k in range(12)]})
    meta = bag / "metadata.yaml"
    meta.write_bytes(meta.read_text(encoding="utf-8").encode("utf-16"))
    with pytest.raises(bp.DataError, match=r"metadata\.yaml: line 1: not UTF-8 text \(byte 0xff at offset 0\)"):
        bp.read_trajectory(bag)


def test_bag_topic_named_twice_refused(tmp_path):
    """``topic='/joint_states,/joint_states'`` read the topic twice: the same trajectory, with a note that 400
    messages "naming shoulder, elbow, wrist" were not used as the samples are those "naming shoulder, elbow, wrist"."""
    path = _mcap_with_definition(tmp_path / "log.mcap", JOINT_STATE_MSGDEF)
    assert bp.read_trajectory(path, topic="/joint_states").n_samples == 20
    with pytest.raises(bp.DataError, match="topic /joint_states: named twice"):
        bp.read_trajectory(path, topic="/joint_states, /joint_states")


def _lerobot_info(tmp_path, info_bytes):
    """A LeRobot-like episode of j1..j3 stored in the order j2, j1, j3, whose meta/info.json holds ``info_bytes``."""
    from test_fuzz_round6 import lerobot

    path = lerobot(tmp_path / "set", "")
    (tmp_path / "set" / "meta" / "info.json").write_bytes(info_bytes)
    return path


def test_lerobot_info_with_a_key_twice_refused(tmp_path):
    """A JSON object holding ``features`` twice: json keeps the last (here empty), so the names of the first were
    not used and the columns were taken in the file's order, j2's positions as j1's, without a word."""
    from test_fuzz_round6 import info

    text = info(["j2", "j1", "j3"])
    path = _lerobot_info(tmp_path, (text[:-1] + ', "features": {}}').encode())
    with pytest.raises(bp.DataError, match=r"info\.json: not JSON \(key 'features' given twice in one object\)"):
        bp.read_trajectory(path, joints=["j1", "j2", "j3"])


def test_lerobot_info_with_a_byte_order_mark_read(tmp_path):
    """A UTF-8 byte-order mark, as Windows editors save JSON, was "not JSON (Unexpected UTF-8 BOM …)" where every
    other text reader here takes it; a UTF-16 one said in the readers' words (line, byte), not the codec's."""
    import codecs

    from test_fuzz_round6 import info

    t = np.arange(0.0, 2.0, 0.01)
    path = _lerobot_info(tmp_path, codecs.BOM_UTF8 + info(["j2", "j1", "j3"]).encode())
    traj = bp.read_trajectory(path, joints=["j1", "j2", "j3"])
    assert np.array_equal(traj.q, np.sin(t[:, None] * np.array([1.7, 1.0, 2.3])))
    (tmp_path / "set" / "meta" / "info.json").write_bytes(info(["j2", "j1", "j3"]).encode("utf-16"))
    with pytest.raises(bp.DataError, match=r"info\.json: line 1: not UTF-8 text \(byte 0xff at offset 0\)"):
        bp.read_trajectory(path, joints=["j1", "j2", "j3"])


def test_floating_parquet_metadata_with_a_key_twice_refused(tmp_path):
    """baseparam.floating's JSON holding ``joint_names`` twice: the last was used, whatever the first said (the same
    rule as read_json's, for a Parquet file's own metadata)."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from test_fuzz_round19_fzread import ROBOT

    robot = bp.parse_robot(ROBOT.replace("gravity", "base: floating\ngravity"))
    S = 12
    q = np.zeros((S, robot.n_q))
    q[:, 6] = 1.0
    table = pa.table({"t": np.arange(S) / 100.0, "q": list(q), "qd": list(np.zeros((S, robot.n_v))),
                      "tau": list(np.zeros((S, robot.n_v)))})
    names = [j.name or f"joint{k + 1}" for k, j in enumerate(robot.joints)]
    text = f'{{"joint_names": {json_list(names[::-1])}, "joint_names": {json_list(names)}}}'
    pq.write_table(table.replace_schema_metadata({"baseparam.floating": text}), tmp_path / "float.parquet")
    with pytest.raises(bp.DataError, match="baseparam.floating: not JSON \\(key 'joint_names' given twice"):
        bp.read_trajectory(tmp_path / "float.parquet", robot=robot)


def json_list(names):
    import json

    return json.dumps(list(names))


def test_parquet_replaced_between_pyarrows_open_and_the_checks_refused(tmp_path, monkeypatch):
    """The page and value bounds read the path again after pyarrow had opened it: a file renamed over the path in
    between (a recorder's atomic rewrite) had the new file checked and the old one read — here one of a page per
    value, which the bounds refuse, read whole. Now the file checked must be the one pyarrow opened."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from baseparam.identification import _parquet

    t = np.arange(400) / 100.0
    table = pa.table({"t": t, "q": list(np.ones((400, 3))), "tau": list(np.ones((400, 3)))})
    path, clean = tmp_path / "log.parquet", tmp_path / "clean.parquet"
    pq.write_table(table, path, data_page_size=1, write_batch_size=1)       # a page per value: refused
    pq.write_table(table, clean)
    with pytest.raises(bp.DataError, match="pages for its 400 values"):
        bp.read_trajectory(path)
    opened = _parquet.open_parquet

    def open_then_replace(pq_module, name):
        parquet = opened(pq_module, name)
        clean.replace(name)                 # another process renames a file over the path
        return parquet
    monkeypatch.setattr(_parquet, "open_parquet", open_then_replace)
    with pytest.raises(bp.DataError, match="replaced or written to while it was read"):
        bp.read_trajectory(path)


@pytest.mark.parametrize("entry, said", [
    ("{link: 03, xyz: [0, 0, 0]}", "contacts[1].link: expected a plain decimal number"),     # the YAML loader's check
    ("{link: 3.0, xyz: [0, 0, 0]}", "contacts[1]: link: expected a joint's name or a link number"),  # the reader's
])
def test_contacts_file_entries_numbered_alike_by_every_check(tmp_path, entry, said):
    """The contacts reader numbered entries from 0 (``contacts[0]: link: …``) where the YAML loader's checks of the
    same file number them from 1 (``contacts[1].link: …``), as robot descriptions do: one file's first entry went by
    two numbers. Now from 1 in both."""
    from baseparam.identification.floating_logs import read_contacts

    path = tmp_path / "contacts.yaml"
    path.write_text(f"contacts:\n  - {entry}\n  - {{link: 1, xyz: [0, 0, 0]}}\n", encoding="utf-8")
    with pytest.raises(bp.DataError, match=re.escape(said)):
        read_contacts(path)


def test_topic_of_a_known_type_read_by_the_bags_own_definition(tmp_path):
    """``FIELD=TOPIC:PATH`` of a type rosbags' store knows (std_msgs/msg/Float64MultiArray), whose definition in the
    bag differs (a field before ``data``, as another distribution's or a vendor's copy may have): it was decoded with
    the store's layout, the extra field's bytes read as the array. Now by the bag's definition, as documented."""
    from mcap.writer import CompressionType, Writer
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    definition = "uint32 sequence\nfloat64[] data\n"
    own = get_typestore(Stores.EMPTY)
    own.register(get_types_from_msg(definition, "std_msgs/msg/Float64MultiArray"))
    ts = _typestore()
    with open(tmp_path / "log.mcap", "wb") as stream:
        writer = Writer(stream, compression=CompressionType.NONE)
        writer.start()
        js = writer.register_channel("/joint_states", "cdr", writer.register_schema(
            "sensor_msgs/msg/JointState", "ros2msg", JOINT_STATE_MSGDEF.encode()))
        cur = writer.register_channel("/currents", "cdr", writer.register_schema(
            "std_msgs/msg/Float64MultiArray", "ros2msg", definition.encode()))
        for k in range(20):
            t = 10**9 + k * 5_000_000
            msg = _message(ts, t, ["a", "b"], [0.1 * k, 0.2], [1.0, 2.0], [])
            writer.add_message(js, t, ts.serialize_cdr(msg, "sensor_msgs/msg/JointState"), t)
            array = own.types["std_msgs/msg/Float64MultiArray"](sequence=k, data=np.array([3.0 + k, 4.0]))
            writer.add_message(cur, t, own.serialize_cdr(array, "std_msgs/msg/Float64MultiArray"), t)
        writer.finish()
    traj = bp.read_trajectory(tmp_path / "log.mcap", columns="current=/currents:data", gains=2.0)
    assert np.allclose(traj.tau, 2.0 * np.column_stack([3.0 + np.arange(20), np.full(20, 4.0)]))
