"""Regressions of the command-line fuzzing of issue 28's fifth round (floating-base logs and contacts, payload,
equations, bags): each case below failed before its fix — a message not naming the file, exit status 1, a
traceback, NaN in an output, a hang or a cost growing with the square of an argument. The fuzzer itself was a
throwaway (mutated valid inputs written by our own writers, the CLI run with a time limit); these are the
deterministic cases it found."""
import dataclasses
import os

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"
UR = ROOT / "robots" / "ur10e.yaml"


def one_line(result, *words):
    """Exit status 2 and, as last line, one `baseparam: …` line naming each of `words` (a bag's reader may say
    how it timed the messages on a line before)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("baseparam: "), result.output
    for word in words:
        assert word in last, result.output


def _joint_states(writer, ts, count):
    """``count`` JointState messages of three joints at 200 Hz on /joint_states of an open rosbags writer."""
    from test_logs import _message
    joints = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
    for k in range(count):
        ns, q = 10**9 + k * 5 * 10**6, 0.3 * np.sin(np.array([1.0, 1.7, 2.3]) * k * 0.005)
        writer.write(joints, ns, ts.serialize_cdr(_message(ts, ns, ["joint1", "joint2", "joint3"], q, q, q),
                                                  "sensor_msgs/msg/JointState"))


def _compressed_bag(bag, storage, mode, count, extra=None):
    """A ROS 2 bag written by rosbags at ``bag``: ``storage`` ('SQLITE3' or 'MCAP'), zstd compression by ``mode``
    ('FILE' or 'MESSAGE'), ``count`` joint states (:func:`_joint_states`), then what ``extra(writer, ts)`` adds.
    Returns the typestore."""
    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer

    from test_logs import _typestore
    ts = _typestore()
    writer = Writer(bag, version=8, storage_plugin=getattr(StoragePlugin, storage))
    writer.set_compression(getattr(CompressionMode, mode), CompressionFormat.ZSTD)
    with writer:
        _joint_states(writer, ts, count)
        if extra is not None:
            extra(writer, ts)
    return ts


@pytest.fixture(scope="module")
def touching(space):
    """The space robot's floating log with two contacts' wrenches, and a contacts file for them."""
    wrenches = np.random.default_rng(1).normal(size=(space.log.n_samples, 2, 6))
    return dataclasses.replace(space.log, wrenches=wrenches, contacts=("left", "right"))


@pytest.mark.parametrize("ext", ["npz", "csv", "mcap"])
@pytest.mark.parametrize("damage,words", [
    # every reader checks the values' range itself (stop 45: the file's row or line and column, where the fit said
    # its sample; stop 46: a bag's topic, message and ROS field)
    ("velocity", {"mcap": ["topic /odom: message 7: twist.twist.linear.x: absurd value (1e+12"],
                  "npz": ["row 7: qd1: absurd value (1e+12"],
                  "csv": ["line 10: qd1: absurd value (1e+12"]}),
])
def test_damaged_floating_log_is_named_in_the_message(touching, tmp_path, ext, damage, words):
    q, qd = touching.q.copy(), touching.qd.copy()
    qd[7, 0] = 1e12
    log = bp.write_trajectory(dataclasses.replace(touching, q=q, qd=qd), tmp_path / f"log.{ext}")
    (tmp_path / "contacts.yaml").write_text("contacts:\n  - {link: 0, name: left}\n  - {link: 3, name: right}\n")
    result = CliRunner().invoke(main, ["identify", str(SPACE), str(log), "--route", "base",
                                       "--contacts", str(tmp_path / "contacts.yaml")])
    one_line(result, f"log.{ext}:", *words[ext])


@pytest.mark.parametrize("ext", ["npz", "csv", "mcap"])
def test_quaternion_within_the_readers_slack_is_fitted(touching, tmp_path, ext):
    """A base quaternion of norm 0.997 (within the readers' and the Trajectory's slack, tf2's |‖q‖² − 1| ≤ 0.01,
    beyond the dynamics' 1e-3) was read and then refused by the fit without naming the log; the fit now takes
    the orientation the trajectory took (normalized)."""
    q = touching.q.copy()
    q[5, 3:7] *= 0.997
    log = bp.write_trajectory(dataclasses.replace(touching, q=q), tmp_path / f"log.{ext}")
    (tmp_path / "contacts.yaml").write_text("contacts:\n  - {link: 0, name: left}\n  - {link: 3, name: right}\n")
    result = CliRunner().invoke(main, ["identify", str(SPACE), str(log), "--route", "base",
                                       "--contacts", str(tmp_path / "contacts.yaml")])
    assert result.exit_code == 0, result.output


def test_suggested_poses_cost_does_not_grow_with_their_number(monkeypatch):
    """--suggest-poses 50 took a minute: each greedy step and exchange stacked every chosen pose over each of the
    2000 candidates (quadratic in N). The chosen poses now enter through their R factor, so no batched SVD sees
    more than 4 + n_dof rows; the condition number reported is that of the poses returned."""
    from baseparam.dynamics.payload_gravity import gravity_columns
    from baseparam.excitation.static_poses import suggest_static_poses
    robot = bp.load_robot(UR)
    svd, rows = np.linalg.svd, []

    def counting(a, *args, **kwargs):
        if np.ndim(a) == 3:
            rows.append(np.shape(a)[1])
        return svd(a, *args, **kwargs)

    monkeypatch.setattr(np.linalg, "svd", counting)
    poses = suggest_static_poses(robot, 12, candidates=300)
    monkeypatch.setattr(np.linalg, "svd", svd)
    assert rows and max(rows) <= 4 + robot.n_dof, max(rows)
    # independently: cond of the returned poses' gravity columns, each scaled to unit norm
    A = gravity_columns(robot, poses.poses).reshape(-1, 4)
    assert len(poses.poses) == 12 and len({tuple(p) for p in poses.poses}) == 12
    np.testing.assert_allclose(poses.condition_number, np.linalg.cond(A / np.linalg.norm(A, axis=0)), rtol=1e-10)


def _limited(limit):
    """preexec_fn: the child's address space capped, so that a regression fails the test instead of the machine."""
    import resource

    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the address-space cap needs a POSIX child")
@pytest.mark.parametrize("options,words", [
    (["--max-terms", "2000"], ["expanding the closed form took more than", "64 times --max-terms 2000"]),
    (["--max-terms", "1000000000000", "--max-memory", "300M"], ["expanding the closed form took", "of memory"]),
])
def test_equations_of_a_long_chain_stop_while_expanding(tmp_path, options, words):
    """A generic 20-joint chain: `equations` expanded its polynomials until the machine ran out of memory (17 GB in
    60 s; --max-terms was checked only after the reduction). The expansion is now bounded by 64 × --max-terms
    held terms and by half the memory budget, and refused in one line within seconds."""
    import subprocess
    import sys
    robot = tmp_path / "chain20.yaml"
    robot.write_text("name: chain20\nconvention: standard\nunits: {length: m, angle: deg}\ngravity: [0, 0, -9.81]\n"
                     "joints:\n" + "  - {type: revolute, alpha: 90, a: 0.1, d: 0.1}\n" * 20)
    proc = subprocess.run([sys.executable, "-m", "baseparam", "equations", str(robot), *options],
                          capture_output=True, text=True, timeout=300, cwd=str(ROOT),
                          preexec_fn=_limited(3 * 2 ** 30))
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in lines[0], proc.stderr


def test_unpacked_bag_left_by_a_killed_run_is_removed_at_the_next(tmp_path, monkeypatch):
    """rosbags unpacks a whole-file compressed ROS 2 bag into a temporary folder and removes it on close: a SIGKILLed
    run left it (as large as the unpacked bag) and nothing removed it, nor could tell it from other programs'.
    Its folder is now named baseparam-rosbag2-PID-HOST-…; the next read of such a bag removes a dead run's (only ours,
    unchanged for STALE_SECONDS, its process ended), and leaves a live one's, a link, and other programs' alone."""
    import os

    from baseparam._leftovers import STALE_SECONDS
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    bag = tmp_path / "bag"
    _compressed_bag(bag, "SQLITE3", "FILE", 50)
    dead = 2 ** 22 + 1                     # beyond Linux's largest process id: no process has it
    old = os.path.getmtime(bag) - 2 * STALE_SECONDS
    from baseparam._leftovers import host_name
    host = host_name()
    leftovers = {f"baseparam-rosbag2-{dead}-{host}-abcdefgh": True, f"baseparam-rosbag2-{os.getpid()}-{host}-abcdefgh":
                 False, "tmpxyz": False, f"baseparam-rosbag2-{dead}-{host}-recent12": False}
    for name in leftovers:
        (temp / name).mkdir()
        (temp / name / "bag.db3").write_bytes(b"x" * 1000)
        if not name.endswith("recent12"):
            os.utime(temp / name, (old, old))
    link = f"baseparam-rosbag2-{dead}-{host}-link1234"
    (temp / link).symlink_to(tmp_path / "bag")
    # the unpacked copy rosbags makes while reading is ours by name: seen during the read, gone after it
    from rosbags.rosbag2 import reader as rosbags_reader
    seen = []
    opened = rosbags_reader.Reader.open

    def spying(self):
        opened(self)
        seen.extend(os.listdir(temp))
    monkeypatch.setattr(rosbags_reader.Reader, "open", spying)
    assert bp.read_trajectory(str(bag), n_dof=3).n_samples == 50
    assert any(n.startswith(f"baseparam-rosbag2-{os.getpid()}-") and n not in leftovers for n in seen), seen
    left = set(os.listdir(temp))
    assert left == {n for n, stale in leftovers.items() if not stale} | {link}, left
    assert (tmp_path / "bag").is_dir()


def test_message_compressed_bag_checks_only_the_topics_it_reads(tmp_path, monkeypatch):
    """A ROS 2 bag of zstd-compressed messages: the bomb check decompressed (counting) every topic's messages, and
    refused a bag whose camera topic — never read — held a frame of 64 MiB of zeros (1.5 kB packed). Only the
    JointState topics and the named ones are counted now; a bomb among the joint states is still refused."""
    import sqlite3

    import zstandard

    def camera(writer, ts):
        topic = writer.add_connection("/camera/raw", "std_msgs/msg/String", typestore=ts)
        writer.write(topic, 10**9, ts.serialize_cdr(ts.types["std_msgs/msg/String"](data="frame"),
                                                    "std_msgs/msg/String"))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    bag = tmp_path / "bag"
    _compressed_bag(bag, "SQLITE3", "MESSAGE", 100, camera)
    packer = zstandard.ZstdCompressor(level=1).compressobj()
    bomb = b"".join([packer.compress(bytes(16 << 20)) for _ in range(4)] + [packer.flush()])
    with sqlite3.connect(bag / "bag.db3") as db:
        camera_id = db.execute("SELECT id FROM topics WHERE name = '/camera/raw'").fetchone()[0]
        db.execute("UPDATE messages SET data = ? WHERE topic_id = ?", (bomb, camera_id))
    db.close()
    robot = str(ROOT / "robots" / "planar_rrr.yaml")
    result = CliRunner().invoke(main, ["identify", robot, str(bag), "--json", str(tmp_path / "out.json")])
    assert "decompresses" not in result.output and "Traceback" not in result.output, result.output
    assert bp.read_trajectory(str(bag), n_dof=3).n_samples == 100
    # the same frame among the joint states: refused before decompressing
    with sqlite3.connect(bag / "bag.db3") as db:
        db.execute("UPDATE messages SET data = ? WHERE id = (SELECT min(id) FROM messages WHERE topic_id != ?)",
                   (bomb, camera_id))
    db.close()
    one_line(CliRunner().invoke(main, ["identify", robot, str(bag)]), "bag.db3", "1000 times")


def test_mcap_storage_bag_of_compressed_messages_bomb_is_refused(tmp_path, monkeypatch):
    """A ROS 2 bag in MCAP storage with zstd-compressed messages (rosbag2's message mode): no check before rosbags
    decompressed each message in memory, unbounded (64 MiB of zeros from 1.5 kB here, a GiB as easily). Its
    messages of the topics read are now counted first, as for sqlite3 storage; a camera topic's are not read."""
    import types

    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
    from rosbags.rosbag2 import writer as rosbags_writer

    from test_logs import _message, _typestore
    import zstandard
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    packer = zstandard.ZstdCompressor(level=1).compressobj()
    bomb = b"".join([packer.compress(bytes(16 << 20)) for _ in range(4)] + [packer.flush()])
    ts, robot = _typestore(), str(ROOT / "robots" / "planar_rrr.yaml")

    frame = ts.serialize_cdr(ts.types["std_msgs/msg/String"](data="frame"), "std_msgs/msg/String")
    states = []
    for k in range(100):
        ns, q = 10**9 + k * 5 * 10**6, 0.3 * np.sin(np.array([1.0, 1.7, 2.3]) * k * 0.005)
        states.append((ns, ts.serialize_cdr(_message(ts, ns, ["joint1", "joint2", "joint3"], q, q, q),
                                            "sensor_msgs/msg/JointState")))

    def write(bag, target):
        """The bag, the message whose bytes are ``target`` compressed to the bomb instead."""
        real = rosbags_writer.zstd
        monkeypatch.setattr(rosbags_writer, "zstd", types.SimpleNamespace(
            compress=lambda data: bomb if data == target else real.compress(data)))
        writer = Writer(bag, version=8, storage_plugin=StoragePlugin.MCAP)
        writer.set_compression(CompressionMode.MESSAGE, CompressionFormat.ZSTD)
        with writer:
            joints = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
            camera = writer.add_connection("/camera/raw", "std_msgs/msg/String", typestore=ts)
            writer.write(camera, 10**9, frame)
            for ns, data in states:
                writer.write(joints, ns, data)
        monkeypatch.setattr(rosbags_writer, "zstd", real)
        return bag

    among_joints = write(tmp_path / "joints", states[10][1])
    one_line(CliRunner().invoke(main, ["identify", robot, str(among_joints)]), "joints.mcap", "/joint_states",
             "1000 times")
    assert sorted(os.listdir(tmp_path)) == ["joints"]
    on_camera = write(tmp_path / "camera", frame)
    assert bp.read_trajectory(str(on_camera), n_dof=3).n_samples == 100


@pytest.mark.parametrize("floating", [False, True])
def test_mcap_writer_refuses_late_times_without_a_raw_warning(space, tmp_path, floating):
    """bp.write_trajectory to .mcap of times at 1e11 s: the nanosecond cast overflowed int64 with numpy's raw
    RuntimeWarning ('invalid value encountered in cast') before the range check refused it; now refused first,
    no warning, no file."""
    import warnings
    if floating:
        log = dataclasses.replace(space.log, t=space.log.t + 1e11)
    else:
        t = np.linspace(0, 1, 50) + 1e11
        log = bp.Trajectory(t=t, q=np.zeros((50, 2)), tau=np.zeros((50, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.BaseParamError, match="do not fit a ROS 2 stamp"):
            bp.write_trajectory(log, tmp_path / "late.mcap")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("noise", ["1e-300,0.2,0.1", "1e-200,1e-200,1e-200", "1e300,1,1"])
def test_excite_inertia_noise_beyond_range_is_refused_without_raw_warnings(tmp_path, noise):
    """excite --criterion inertia --noise 1e-300,…: the rows' weights 1/σ² overflowed, numpy's RuntimeWarnings
    ('overflow encountered in square', with source lines) and a NaN criterion; now refused in one line."""
    limits = tmp_path / "limits.yaml"
    limits.write_text("joints:\n  - {q: [-2, 2.5], qd: 1.5, qdd: 6}\n  - {q: [-1.5, 1.5], qd: 2}\n"
                      "  - {q: [-2.5, 2.5], qd: 2.5}\n")
    result = CliRunner().invoke(main, ["excite", str(ROOT / "robots" / "planar_rrr.yaml"), "--limits", str(limits),
                                       "--period", "2", "--harmonics", "2", "--rate", "20", "--starts", "1",
                                       "--criterion", "inertia", "--payload", "--noise", noise])
    assert "RuntimeWarning" not in result.output and "warning:" not in result.output, result.output
    one_line(result, "--noise", "between 1e-09 and 1e+09 N·m")
    assert len(result.output.strip().splitlines()) == 1


def _chain20(tmp_path):
    robot = tmp_path / "chain20.yaml"
    robot.write_text("name: chain20\nconvention: standard\nunits: {length: m, angle: deg}\ngravity: [0, 0, -9.81]\n"
                     "joints:\n" + "  - {type: revolute, alpha: 90, a: 0.1, d: 0.1}\n" * 20)
    return robot


def test_symbolic_lengths_of_a_long_chain_are_refused_before_projecting(tmp_path, monkeypatch):
    """find --symbolic all on a generic 20-joint chain: 40 lengths, 861 interpolation points and 780 pairs at
    zero, 1 684 projections of a 20-joint robot (a quarter of an hour, no output); now counted first and refused
    after the one projection that gives the degree."""
    from baseparam.projection import base_set
    from baseparam.projection.symbolic import find_symbolic_base_parameters
    robot = bp.load_robot(_chain20(tmp_path))
    calls, real = [], base_set.find_base_parameters

    def counting(*args, **kwargs):
        calls.append(1)
        assert len(calls) <= 5, "projecting before refusing"
        return real(*args, **kwargs)
    monkeypatch.setattr(base_set, "find_base_parameters", counting)
    with pytest.raises(bp.ResourceLimitError, match="40 lengths kept as symbols need 1684 projections"):
        find_symbolic_base_parameters(robot, "all")
    monkeypatch.undo()
    one_line(CliRunner().invoke(main, ["find", str(_chain20(tmp_path)), "--symbolic", "all"]),
             "--symbolic:", "at most 500")


@pytest.mark.parametrize("storage", ["SQLITE3", "MCAP"])
def test_message_compressed_bag_bomb_on_a_base_topic_found_by_type_is_refused(tmp_path, monkeypatch, storage):
    """A floating bag read without a named base topic reads every Odometry and PoseStamped topic (read_raw's
    ``types``): rosbags decompresses their messages, but the bomb check counted the JointState and named topics
    only, so a 64 MiB odometry message of 1.5 kB went through unchecked. Counted now, in both storages."""
    import types

    import zstandard
    from rosbags.rosbag2 import writer as rosbags_writer

    from baseparam.errors import DataError
    from baseparam.identification._bag_files import read_raw
    from baseparam.identification._floating_bags import BASE_TYPES
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    packer = zstandard.ZstdCompressor(level=1).compressobj()
    bomb = b"".join([packer.compress(bytes(16 << 20)) for _ in range(4)] + [packer.flush()])
    odometry = b"odometry, replaced by the bomb"
    real = rosbags_writer.zstd
    monkeypatch.setattr(rosbags_writer, "zstd", types.SimpleNamespace(
        compress=lambda data: bomb if data == odometry else real.compress(data)))
    bag = tmp_path / "bag"

    def base(writer, ts):
        writer.write(writer.add_connection("/odom", "nav_msgs/msg/Odometry", typestore=ts), 10**9, odometry)
    _compressed_bag(bag, storage, "MESSAGE", 20, base)
    monkeypatch.setattr(rosbags_writer, "zstd", real)
    with pytest.raises(DataError, match="1000 times") as caught:
        read_raw(str(bag), "bag", set(), tuple(BASE_TYPES))
    assert "\n" not in str(caught.value)
    # the joints alone do not read the odometry topic: its bomb is never decompressed, so not refused
    assert bp.read_trajectory(str(bag), n_dof=3).n_samples == 20


def test_mcap_storage_bomb_check_maps_the_file_instead_of_reading_it(tmp_path):
    """The bomb check of a message-compressed MCAP storage file read the file whole into memory and kept every
    topic's messages (camera frames included): a bag of gigabytes held twice in memory before rosbags, which
    reads it chunk by chunk, even opened it. The file is mapped now and nothing kept: here a storage file holding
    1 GiB (a record readers skip, sparse on disk) is checked with the resident memory well below that."""
    import json
    import struct
    import subprocess
    import sys

    bag = tmp_path / "bag"
    _compressed_bag(bag, "MCAP", "MESSAGE", 20)
    (storage,) = bag.glob("*.mcap")
    data = storage.read_bytes()
    after_header = 8 + 9 + struct.unpack_from("<Q", data, 9)[0]
    hole = 1 << 30
    with open(storage, "wb") as f:                      # a user record (opcode 0x80) of 1 GiB after the header
        f.write(data[:after_header] + b"\x80" + struct.pack("<Q", hole))
        f.seek(hole, os.SEEK_CUR)
        f.write(data[after_header:])
    # The process's private memory (Linux's RLIMIT_DATA: heap and anonymous maps, not a file mapped read-only)
    # limited to what it holds after its imports + half the hole: reading the file whole cannot fit. Not the peak
    # resident size: a mapped file's pages count there as the page cache keeps them, which depends on the
    # machine's other work (650 MB seen under load).
    script = ("import json, resource, sys\n"
              "from baseparam.identification._bag_files import check_bag_folder\n"
              "held = [int(ln.split()[1]) * 1024 for ln in open('/proc/self/status') if ln.startswith('VmData:')]\n"
              "resource.setrlimit(resource.RLIMIT_DATA, (held[0] + int(sys.argv[2]), resource.RLIM_INFINITY))\n"
              "check_bag_folder(sys.argv[1], 'bag', ())\n"
              "print(json.dumps('checked'))\n")
    done = subprocess.run([sys.executable, "-c", script, str(bag), str(hole // 2)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == "checked"


def test_mcap_writer_takes_a_time_whose_stamp_is_zero(tmp_path):
    """A first time of -1e-12 s (round-off about a start at 0) has the stamp 0 s: written and read back exactly
    before the stamps' range was checked on the times themselves, then refused as 'before 0 s'. The range is the
    stamps' again; a time whose stamp is before 0 s is still refused."""
    import warnings
    t = np.arange(10) * 0.01 - 1e-12
    log = bp.Trajectory(t=t, q=np.zeros((10, 3)), tau=np.zeros((10, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bp.write_trajectory(log, tmp_path / "zero.mcap")
    np.testing.assert_array_equal(bp.read_trajectory(str(tmp_path / "zero.mcap"), n_dof=3).t, t)
    early = bp.Trajectory(t=t - 1e-9, q=np.zeros((10, 3)), tau=np.zeros((10, 3)))
    with pytest.raises(bp.BaseParamError, match="do not fit a ROS 2 stamp"):
        bp.write_trajectory(early, tmp_path / "early.mcap")
