"""Regressions of the command-line fuzzing of issue 28's third round (bags, Parquet, payload, symbolic lengths,
floating bases, and every output flag given an odd path): each case below failed before its fix — a traceback,
exit status 1, NaN in an output, a hang, or a file written where no output named it. The fuzzer itself was a
throwaway (mutated valid inputs, the CLI in subprocesses); these are the deterministic cases it found."""
import os

import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT

SCARA = str(ROOT / "robots" / "scara.yaml")


def one_line(result, *words):
    """Exit status 2 and a single line `baseparam: …` on stderr, naming each of `words`."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("baseparam: ") and "Traceback" not in result.output, result.output
    for word in words:
        assert word in lines[0], result.output


@pytest.mark.parametrize("args,flag", [
    (["equations", SCARA, "--python", "-"], "--python"),
    (["equations", SCARA, "--out", "-"], "--out"),
    (["export", SCARA, "--lang", "c", "--out", "-"], "--out"),
])
def test_dash_is_refused_where_it_is_not_stdout(tmp_path, monkeypatch, args, flag):
    """`--python -`, `equations --out -` and `export --out -` wrote a file (or a folder) literally named '-' in the
    working folder; '-' is stdout for --json (and describe --yaml) only, elsewhere a one-line refusal."""
    monkeypatch.chdir(tmp_path)
    one_line(CliRunner().invoke(main, args), flag, "'-'")
    assert os.listdir(tmp_path) == []


def _parquet(path, names, arrays):
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.Table.from_arrays(arrays, names=names), path)
    return str(path)


def test_parquet_column_named_twice(tmp_path):
    """A Parquet file with two columns named 't' (a damaged writer, a renamed column): exit 1 (pyarrow's KeyError,
    'Field "t" exists 2 times in schema'); now refused in one line naming the column."""
    import numpy as np
    import pyarrow as pa
    t = np.arange(50) * 0.01
    rows = pa.array(list(np.sin(t[:, None] * np.arange(1, 4))), type=pa.list_(pa.float64()))
    log = _parquet(tmp_path / "log.parquet", ["t", "q", "t", "tau"], [pa.array(t), rows, rows, rows])
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), log])
    one_line(result, log, "'t'", "2 times")


def test_named_pipe_without_reader_is_refused_not_waited_on(tmp_path, monkeypatch):
    """`--json PIPE` where PIPE is a named pipe nothing reads: the write's open blocked for ever (the run hung
    after its work); now refused in one line once the pipe has had no reader for FIFO_WAIT seconds."""
    from baseparam import _atomic
    monkeypatch.setattr(_atomic, "FIFO_WAIT", 0.2)
    pipe = tmp_path / "out.json"
    os.mkfifo(pipe)
    one_line(CliRunner().invoke(main, ["find", SCARA, "--json", str(pipe)]), str(pipe), "named pipe")
    assert os.listdir(tmp_path) == ["out.json"]


def test_named_pipe_with_reader_gets_the_document(tmp_path):
    """The same pipe with a reader (`--json >(jq .)`-style use): the document goes through it, whole."""
    import json
    import threading
    pipe = tmp_path / "out.json"
    os.mkfifo(pipe)
    got = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_text()), daemon=True)
    reader.start()
    result = CliRunner().invoke(main, ["find", SCARA, "--json", str(pipe)])
    reader.join(30)
    assert result.exit_code == 0, result.output
    assert json.loads(got[0])["rank"] == 8


@pytest.mark.parametrize("args", [["find", SCARA, "--json"], ["equations", SCARA, "--python"],
                                  ["describe", SCARA, "--yaml"]])
def test_output_name_ending_in_slash(tmp_path, args):
    """`--json out.json/` (a folder's name) wrote the file out.json and said `wrote out.json/`; now refused."""
    out = str(tmp_path / "out.json") + "/"
    one_line(CliRunner().invoke(main, [*args, out]), out, "ends in '/'")
    assert os.listdir(tmp_path) == []


def _mcap_with_chunk(tmp_path, compression, records):
    """An MCAP log of the planar arm's joint states whose messages are replaced by one chunk of ``records``
    (the chunk's bytes before compression), compressed by ``compression`` ('' , 'zstd' or 'lz4')."""
    import struct

    import numpy as np

    import baseparam as bp
    t = np.arange(20) * 0.01
    q = np.sin(t[:, None] * np.arange(1, 4))
    whole = tmp_path / "whole.mcap"
    bp.write_trajectory(bp.Trajectory(t=t, q=q, qd=q, qdd=q, tau=q), whole)
    data, pos, kept = whole.read_bytes(), 8, []
    while data[pos] not in (2, 15):               # up to the footer or the data end: header, schema, channel
        (length,) = struct.unpack_from("<Q", data, pos + 1)
        if data[pos] in (1, 3, 4):
            kept.append(data[pos:pos + 9 + length])
        pos += 9 + length
    size = sum(len(piece) for piece in records)
    if compression == "zstd":
        import zstandard
        packer = zstandard.ZstdCompressor(level=1).compressobj()
        raw = b"".join([packer.compress(piece) for piece in records] + [packer.flush()])
    elif compression == "lz4":
        import lz4.frame
        packer = lz4.frame.LZ4FrameCompressor()
        raw = b"".join([packer.begin()] + [packer.compress(piece) for piece in records] + [packer.flush()])
    else:
        raw = b"".join(records)
    body = (struct.pack("<QQQI", 0, 0, size, 0) + struct.pack("<I", len(compression)) + compression.encode()
            + struct.pack("<Q", len(raw)) + raw)
    tail = bytes([15]) + struct.pack("<Q", 4) + bytes(4) + bytes([2]) + struct.pack("<Q", 20) + bytes(20) + data[:8]
    path = tmp_path / "log.mcap"
    path.write_bytes(data[:8] + b"".join(kept) + bytes([6]) + struct.pack("<Q", len(body)) + body + tail)
    return str(path)


@pytest.mark.parametrize("compression,size,words", [
    ("zstd", 48 << 20, ["zstd", "1000 times"]),          # 48 MiB of zeros in some 1.5 kB
    ("lz4", 300 << 20, ["lz4", "256 MiB"]),              # lz4 packs at most ~250:1; 300 MiB in 1.2 MB
])
def test_mcap_decompression_bomb_is_refused_before_decompressing(tmp_path, compression, size, words):
    """A chunk claiming far more bytes than it holds (zeros, which zstd packs 30 000:1): the reader decompressed
    it all (1 GiB from 32 kB: a GiB of memory) and walked its 9-byte records one by one (minutes: a hang); now
    the chunk is refused from its header, as a damaged chunk, in one line."""
    piece = bytes(16 << 20)
    log = _mcap_with_chunk(tmp_path, compression, [piece] * (size // len(piece)))
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), log])
    one_line(result, log, "chunk", *words)


def test_mcap_chunk_holding_other_records(tmp_path):
    """A chunk holds schemas, channels and messages only (MCAP spec); one of private records (opcode 0x80) was
    walked in silence, each record a Python step; now it is damage, named by its opcode."""
    import struct
    log = _mcap_with_chunk(tmp_path, "", [bytes([0x80]) + struct.pack("<Q", 0)] * 1000)
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), log])
    one_line(result, log, "opcode 0x80")


def _ros1_field(name, value):
    import struct
    text = name.encode() + b"=" + value
    return struct.pack("<I", len(text)) + text


def _ros1_record(fields, data):
    import struct
    head = b"".join(_ros1_field(k, v) for k, v in fields)
    return struct.pack("<I", len(head)) + head + struct.pack("<I", len(data)) + data


@pytest.mark.parametrize("indexed", [False, True])
def test_ros1_bz2_bomb_is_refused_before_decompressing(tmp_path, indexed):
    """A ROS 1 bag whose bz2 chunk claims 64 MiB from a few hundred bytes (zeros): the chunk reader decompressed
    it and walked its empty 8-byte records one by one (1 GiB: over a minute and 2 GB, a hang). Now refused from
    the chunk's header, in one line; in an indexed bag too, before rosbags (which decompresses chunks unbounded)
    opens it."""
    import bz2
    import struct
    size = 64 << 20
    packer = bz2.BZ2Compressor(1)
    raw = b"".join([packer.compress(bytes(16 << 20)) for _ in range(size >> 24)] + [packer.flush()])
    chunk = _ros1_record([("op", b"\x05"), ("compression", b"bz2"), ("size", struct.pack("<I", size))], raw)
    start = 13 + 4096 + 8            # after the magic and the bag header record (padded as rosbag pads it)
    index = [_ros1_record([("op", b"\x06"), ("ver", struct.pack("<I", 1)), ("chunk_pos", struct.pack("<Q", start)),
                           ("start_time", bytes(8)), ("end_time", bytes(8)), ("count", struct.pack("<I", 0))], b"")]
    index_pos = start + len(chunk) if indexed else 0
    fields = [("op", b"\x03"), ("index_pos", struct.pack("<Q", index_pos)), ("conn_count", struct.pack("<I", 0)),
              ("chunk_count", struct.pack("<I", 1 if indexed else 0))]
    head = _ros1_record(fields, b"")
    head = _ros1_record(fields, b" " * (4096 + 8 - len(head)))
    log = tmp_path / "log.bag"
    log.write_bytes(b"#ROSBAG V2.0\n" + head + chunk + (b"".join(index) if indexed else b""))
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(log)])
    one_line(result, str(log), "bz2", "1000 times")


def test_local_dask_cluster_reports_a_damaged_log_in_one_line(tmp_path):
    """`identify A B --scheduler local --workers 2` with B damaged: exit 2 and the right line, but before it the
    Dask workers' own log — "distributed.worker - ERROR - Compute Failed", the library's traceback as text — and
    the nannies' shutdown warnings; now the one line only. And nothing left in the temporary folder."""
    import subprocess
    import sys

    import numpy as np
    pytest.importorskip("distributed")
    import baseparam as bp
    t = np.arange(400) * 0.005
    q = 0.3 * np.sin(np.outer(t, [1.0, 1.7, 2.3]))
    good = tmp_path / "good.csv"
    bp.write_trajectory(bp.Trajectory(t=t, q=q, qd=q, qdd=q, tau=q), good)
    cut = tmp_path / "cut.csv"
    cut.write_text(good.read_text()[:4000])
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = subprocess.run([sys.executable, "-m", "baseparam.cli", "identify", str(ROOT / "robots" / "planar_rrr.yaml"),
                           str(good), str(cut), "--scheduler", "local", "--workers", "2"],
                          capture_output=True, text=True, timeout=300, cwd=str(ROOT),
                          env={**os.environ, "TMPDIR": str(scratch)})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "cut.csv" in proc.stderr, proc.stderr
    # the cluster's working files went to a folder of the run, removed with it (Dask's default,
    # $TMPDIR/dask-scratch-space, kept its lock files)
    assert os.listdir(scratch) == []


@pytest.mark.parametrize("mode", ["file", "message"])
def test_ros2_bag_compressed_file_bomb_is_refused_before_decompressing(tmp_path, monkeypatch, mode):
    """A ROS 2 bag with zstd compression holding 64 MiB of zeros in 1.5 kB — its whole file, or one message:
    rosbags decompressed the file into the temporary folder (a write outside every output, as large as the bomb:
    1 GiB from 32 kB) or the message in memory (2 GB for 1 GiB), then failed on it; now the decompressed size is
    counted first (nothing kept) and the bag refused in one line. The same bag undamaged is still read."""
    import sqlite3

    import numpy as np
    import zstandard
    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer

    import baseparam as bp
    from test_logs import _message, _typestore
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    ts, bag = _typestore(), tmp_path / "bag"
    writer = Writer(bag, version=8, storage_plugin=StoragePlugin.SQLITE3)
    writer.set_compression(CompressionMode.FILE if mode == "file" else CompressionMode.MESSAGE, CompressionFormat.ZSTD)
    with writer:
        conn = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        for k in range(200):
            ns, q = 10**9 + k * 5 * 10**6, 0.3 * np.sin(np.array([1.0, 1.7, 2.3]) * k * 0.005)
            message = _message(ts, ns, ["joint1", "joint2", "joint3"], q, q, q)
            writer.write(conn, ns, ts.serialize_cdr(message, "sensor_msgs/msg/JointState"))
    assert bp.read_trajectory(str(bag), n_dof=3).n_samples == 200
    packer = zstandard.ZstdCompressor(level=1).compressobj()
    bomb = b"".join([packer.compress(bytes(16 << 20)) for _ in range(4)] + [packer.flush()])
    if mode == "file":
        (bag / "bag.db3.zstd").write_bytes(bomb)
    else:
        with sqlite3.connect(bag / "bag.db3") as db:
            db.execute("UPDATE messages SET data = ? WHERE id = 7", (bomb,))
        db.close()
    robot = str(ROOT / "robots" / "planar_rrr.yaml")
    one_line(CliRunner().invoke(main, ["identify", robot, str(bag)]), "bag.db3", "1000 times")
    assert sorted(os.listdir(tmp_path)) == ["bag"]


def test_bag_metadata_not_utf8(tmp_path):
    """A bag folder whose metadata.yaml holds a byte that is not UTF-8 (a damaged copy): the MCAP-storage probe let
    the UnicodeDecodeError through — `internal error`, exit 1; now one line naming the file and the byte, exit 2."""
    import numpy as np

    from test_logs import write_bag
    t = 1.0 + np.arange(50) * 0.005
    names = ["joint1", "joint2", "joint3"]
    bag = write_bag(tmp_path / "bag", "sqlite3", {"/joint_states": [
        (int(round(x * 1e9)), int(round(x * 1e9)), names, [x] * 3, [x] * 3, [x] * 3) for x in t]})
    meta = bag / "metadata.yaml"
    meta.write_bytes(meta.read_bytes().replace(b"rosbags", b"ros\x92bags"))
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(bag)])
    one_line(result, str(bag), "metadata.yaml", "not UTF-8")


def test_bag_metadata_over_1_mb_is_refused(tmp_path):
    """A bag folder whose metadata.yaml exceeds 1 MB is refused in one line naming it, before any YAML parser reads
    it: check_bag_folder's refusal (a DataError, so a ValueError) was caught by its own handler, and rosbags parsed
    the whole file."""
    bag = tmp_path / "bag"
    bag.mkdir()
    (bag / "metadata.yaml").write_text("rosbag2_bagfile_information:\n  storage_identifier: mcap\n"
                                       "  relative_file_paths: [a.mcap]\n" + "#" * 2_000_000 + "\n")
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(bag)])
    one_line(result, str(bag), "metadata.yaml: larger than 1 MB")


@pytest.mark.parametrize("kind", ["ros2-message", "ros2-file", "ros1-bz2", "ros1-lz4"])
def test_honest_bag_with_black_camera_frames_is_read(tmp_path, monkeypatch, kind):
    """The bomb checks above refused beyond 1000 times a message's (chunk's) bytes and a MiB; honest data of one
    repeated byte passes that ratio — a black 1080p frame (lens cap on, 6 MB) is some 250 bytes of zstd — and a
    bag recorded with its camera was refused as a bomb, joint states and all. Such frames (up to 32 MiB) are read;
    the joint states the same as from the bag without them."""
    import numpy as np
    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer

    import baseparam as bp
    from test_logs import _message, _typestore
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    ros1 = kind.startswith("ros1")
    ts = _typestore(ros1)
    frame = {"height": 1080, "width": 1920, "encoding": "rgb8", "is_bigendian": 0, "step": 1920 * 3,
             "data": np.zeros(1920 * 1080 * 3, np.uint8)}
    names = ["joint1", "joint2", "joint3"]

    def write(path, frames):
        if ros1:
            from rosbags.rosbag1 import Writer as Writer1
            writer = Writer1(path)
            writer.set_compression(getattr(Writer1.CompressionFormat, kind[5:].upper()))
        else:
            writer = Writer(path, version=8, storage_plugin=StoragePlugin.SQLITE3)
            writer.set_compression(CompressionMode.MESSAGE if kind == "ros2-message" else CompressionMode.FILE,
                                   CompressionFormat.ZSTD)
        serialize = ts.serialize_ros1 if ros1 else ts.serialize_cdr
        with writer:
            joints = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
            camera = writer.add_connection("/camera/image_raw", "sensor_msgs/msg/Image", typestore=ts)
            for k in range(200):
                ns, q = 10**9 + k * 5 * 10**6, 0.3 * np.sin(np.array([1.0, 1.7, 2.3]) * k * 0.005)
                writer.write(joints, ns, serialize(_message(ts, ns, names, q, q, q, ros1=ros1),
                                                   "sensor_msgs/msg/JointState"))
                if frames and k % 50 == 25:
                    header = _message(ts, ns, names, ros1=ros1).header
                    image = ts.types["sensor_msgs/msg/Image"](header=header, **frame)
                    writer.write(camera, ns, serialize(image, "sensor_msgs/msg/Image"))
        return str(path)

    suffix = ".bag" if ros1 else ""
    with_frames, without = write(tmp_path / f"cam{suffix}", True), write(tmp_path / f"plain{suffix}", False)
    got, expected = bp.read_trajectory(with_frames, n_dof=3), bp.read_trajectory(without, n_dof=3)
    assert got.n_samples == expected.n_samples == 200
    assert np.array_equal(got.q, expected.q) and np.array_equal(got.tau, expected.tau)


def test_honest_mcap_with_a_black_camera_frame_is_read(tmp_path):
    """The same for an MCAP log of zstd chunks (the MCAP project's writer): the chunk holding a black frame (6 MB
    in 1.7 kB of zstd) was refused as a bomb; it is read, the joint states as from the log without it."""
    import numpy as np
    from mcap.writer import CompressionType, Writer

    import baseparam as bp
    from baseparam.identification import _cdr
    rng = np.random.default_rng(0)
    t = np.arange(200) * 0.01
    q, qd, tau = (rng.normal(size=(200, 3)) for _ in range(3))
    rows = _cdr.encode(t, ["joint1", "joint2", "joint3"], q, qd, tau)
    header = bytes(4) + bytes(8) + (4).to_bytes(4, "little") + b"cam\0"           # CDR header, stamp, frame_id
    image = (header + (1080).to_bytes(4, "little") + (1920).to_bytes(4, "little") + (5).to_bytes(4, "little")
             + b"rgb8\0" + bytes(3) + bytes(1) + bytes(3) + (5760).to_bytes(4, "little")
             + (1920 * 1080 * 3).to_bytes(4, "little") + bytes(1920 * 1080 * 3))

    def write(path, frame):
        with open(path, "wb") as stream:
            # 16 kB chunks: a frame fills one alone, as a camera's do in a recorder's (768 kB at 30 Hz)
            writer = Writer(stream, compression=CompressionType.ZSTD, chunk_size=16 << 10)
            writer.start("ros2", "test")
            schema = writer.register_schema("sensor_msgs/msg/JointState", "ros2msg", _cdr.JOINT_STATE_MSGDEF.encode())
            joints = writer.register_channel("/joint_states", "cdr", schema)
            camera = writer.register_channel("/camera/image_raw", "cdr", writer.register_schema(
                "sensor_msgs/msg/Image", "ros2msg", b"std_msgs/Header header\nuint32 height\nuint32 width\n"
                b"string encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n"))
            for k in range(200):
                writer.add_message(joints, log_time=k, publish_time=k, data=rows[k].tobytes())
                if frame and k == 100:
                    writer.add_message(camera, log_time=k, publish_time=k, data=image)
            writer.finish()
        return path

    got = bp.read_trajectory(write(tmp_path / "cam.mcap", True))
    expected = bp.read_trajectory(write(tmp_path / "plain.mcap", False))
    assert got.n_samples == expected.n_samples == 200
    assert np.array_equal(got.q, expected.q) and np.array_equal(got.tau, expected.tau)
