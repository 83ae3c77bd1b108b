"""Round 25, helper lrd6: the readers' last leftovers (issue 28).

A cache folder writable by a group named as the user was taken as writable by the user alone though another user
had that group as primary group (listed in the password database, not in the group's members). Two publishers of the
same joints and fields on one bag topic were merged into one stream (q alternating between the motion and zeros).
An HDF5 joint_names attribute in a heap not read was allowed 4 GiB a name, and one in a heap holding it twice (written
over) or beside a huge attribute refused. A header stamp of 10⁹ nanoseconds or more moved its message seconds away."""
import collections

import numpy as np
import pytest

import baseparam as bp
from baseparam.dynamics import _native
from baseparam.errors import DataError

grp = pytest.importorskip("grp")
pwd = pytest.importorskip("pwd")

_Entry = collections.namedtuple("_Entry", "pw_name pw_uid pw_gid")
_Group = collections.namedtuple("_Group", "gr_name gr_mem")


def _fake_accounts(monkeypatch, others):
    """This user ``me`` (the process's uid) with the private group 1234 listing no member, and ``others``: the other
    password entries (name, uid, primary gid)."""
    me = _Entry("me", _native.os.geteuid(), 1234)
    entries = [me] + [_Entry(*other) for other in others]
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: next(e for e in entries if e.pw_uid == uid))
    monkeypatch.setattr(pwd, "getpwall", lambda: list(entries))
    monkeypatch.setattr(grp, "getgrgid", lambda gid: _Group("me", []) if gid == 1234 else _Group("staff", []))


@pytest.mark.parametrize("others, private", [
    ([], True),
    ([("guest", 54321, 100)], True),
    ([("me-again", _native.os.geteuid(), 1234)], True),     # an alias of this user's uid: not another user
    ([("guest", 54321, 1234)], False),                         # another user whose primary group it is
])
def test_a_group_that_is_another_users_primary_group_is_not_private(monkeypatch, others, private):
    _fake_accounts(monkeypatch, others)
    assert _native._private_group(1234) is private
    assert _native._private_group(100) is False                # named otherwise, as before


def test_a_password_database_too_large_to_look_through_is_not_read(monkeypatch):
    _fake_accounts(monkeypatch, [(f"u{k}", 100_000 + k, 100) for k in range(_native._MAX_USERS)])
    assert _native._private_group(1234) is False


# -- two publishers of the same joints and fields on one topic ---------------------------------------------------------

BAG_KINDS = ["mcap", "sqlite3", "ros1"]


def _messages(t, q):
    """JointState messages of joints a, b at times ``t`` (s) with positions ``q`` (M, 2), velocity and effort."""
    return [(int(round(x * 1e9)), int(round(x * 1e9)), ["a", "b"], list(q[k]), [0.5, 0.5], [1.0, 1.0])
            for k, x in enumerate(t)]


def _motion(t):
    return np.stack([np.sin(t), np.cos(2 * t)], axis=1)


def _write_publishers(path, kind, publishers):
    """A bag of one topic /joint_states written by rosbags' writers from ``publishers`` (lists of messages): in a
    ROS 1 bag each its own connection (caller id), in a ROS 2 bag all of one connection (rosbag2 keeps none per
    publisher); the messages written in receive-time order."""
    from test_logs import _message, _typestore, write_bag

    if kind != "ros1":
        return write_bag(path, kind, {"/joint_states": sorted(sum(publishers, []), key=lambda m: m[0])})
    from rosbags.rosbag1 import Writer

    ts = _typestore(True)
    with Writer(path) as writer:
        conns = [writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts,
                                       callerid=f"/driver{k}") for k in range(len(publishers))]
        tagged = sorted((m[0], k, m) for k, messages in enumerate(publishers) for m in messages)
        for seq, (recv, k, (_, stamp, names, pos, vel, eff)) in enumerate(tagged):
            msg = _message(ts, stamp, names, pos, vel, eff, seq=seq, ros1=True)
            writer.write(conns[k], recv, ts.serialize_ros1(msg, "sensor_msgs/msg/JointState"))
    return path


def _bag(tmp_path, kind, name):
    return tmp_path / (f"{name}.bag" if kind == "ros1" else name)


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_two_publishers_of_the_same_fields_interleaved_refused(tmp_path, kind):
    """A driver at 100 Hz and a GUI's sliders (zeros) at 25 Hz, with the same fields, on one topic: one stream whose
    q alternated between the motion and zeros, exit 0; now refused in one line. Two robots of one namespace too."""
    t = 1.0 + np.arange(200) * 0.01
    gui = t[0] + 0.003 + np.arange(50) * 0.04
    path = _write_publishers(_bag(tmp_path, kind, "gui"), kind, [_messages(t, _motion(t)),
                                                                  _messages(gui, np.zeros((50, 2)))])
    with pytest.raises(DataError, match=r"topic /joint_states: its messages naming a, b alternate between two series "
                                        r"of positions \(of 250 messages from t=1 s, 200 in one and 50 in the other; "
                                        r"joint a: typically [0-9.]+ apart, in steps of [0-9.e-]+\); expected one "
                                        r"publisher of the joints' positions on a topic") as refused:
        bp.read_trajectory(path, joints=["a", "b"])
    assert "\n" not in str(refused.value)
    other = t + 0.005
    path = _write_publishers(_bag(tmp_path, kind, "arms"), kind, [_messages(t, _motion(t)),
                                                                   _messages(other, _motion(other + 0.4))])
    with pytest.raises(DataError, match="alternate between two series of positions"):
        bp.read_trajectory(path, joints=["a", "b"], skip_bad_rows=True)


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_a_publisher_restarted_read_as_before(tmp_path, kind):
    """A driver restarted (a second connection in a ROS 1 bag), the arm moved meanwhile: one series after the
    other, read as before, all messages; two publishers of one motion, interleaved, read as before too."""
    t = 1.0 + np.arange(300) * 0.01
    q = _motion(t)
    q[150:] += 0.7                      # the arm moved while the driver was down
    path = _write_publishers(_bag(tmp_path, kind, "restart"), kind, [_messages(t[:150], q[:150]),
                                                                      _messages(t[150:], q[150:])])
    traj = bp.read_trajectory(path, joints=["a", "b"])
    assert np.allclose(traj.t, t, atol=1e-9, rtol=0) and np.array_equal(traj.q, q)
    other = t + 0.004
    path = _write_publishers(_bag(tmp_path, kind, "same"), kind, [_messages(t, _motion(t)),
                                                                   _messages(other, _motion(other))])
    traj = bp.read_trajectory(path, joints=["a", "b"])
    assert traj.t.size == 600 and np.allclose(traj.q, _motion(traj.t), atol=1e-8, rtol=0)


def test_a_motion_sampled_coarsely_or_noisy_is_not_two_publishers():
    """What tells two publishers' series from one motion's samples, on the values alone (module functions): a
    2 Hz motion at 10 Hz (its highs and lows apart by about their steps), a joint toggling between two encoder
    counts, noise of 0.01, a continuous joint's angle wrapping at ±π, and the real logs of tests' data resampled."""
    from baseparam.identification import _bags

    def stream(t, q):
        return _bags._Stream("/joint_states", tuple(f"j{k}" for k in range(q.shape[1])), t, t, np.arange(t.size),
                             {"position": q})

    t = np.arange(2000) * 0.01
    rng = np.random.default_rng(0)
    for q in (np.sin(2 * np.pi * 2 * t[::10])[:, None], 0.3 + 0.0015 * (np.arange(2000) % 2)[:, None],
              0.3 + 0.01 * rng.standard_normal((2000, 3)), np.sin(2 * np.pi * 45 * t)[:, None],
              np.remainder(2 * np.pi + 0.3 * np.sin(3 * t)[:, None], 2 * np.pi) - np.pi):
        _bags._refuse_interleaved_publishers(stream(t[:len(q)], q), "position", ["j0", "j1", "j2"], "log")
    q = np.sin(t)[:, None] * np.ones((1, 2))
    q[::4] = 0.0
    with pytest.raises(DataError, match="alternate between two series"):
        _bags._refuse_interleaved_publishers(stream(t, q), "position", ["j0", "j1"], "log")


# -- an HDF5 attribute in dense storage: a heap not read, a heap holding copies ----------------------------------------

def _dense_names(path, names, rewritten=None):
    """A log whose root keeps its attributes in dense storage (a fractal heap), joint_names among them; ``rewritten``:
    names written over the first ones, after another attribute took the room after them (the former message stays in
    the heap's free space)."""
    import h5py

    with h5py.File(path, "w", libver="latest", track_order=True) as h5:
        h5["q"] = np.zeros((5, len(rewritten or names)))
        for k in range(12):
            h5.attrs[f"note{k}"] = k
        h5.attrs["joint_names"] = np.array(names, dtype=h5py.string_dtype())
        h5.attrs["after"] = 1
    if rewritten is not None:
        with h5py.File(path, "a") as h5:
            h5.attrs["joint_names"] = np.array(rewritten, dtype=h5py.string_dtype())
    return path


def test_a_dense_attribute_written_over_read_its_copies_bounded(tmp_path):
    """Written over, the attribute's former message (2 names) stays in the heap beside the new one: the name found
    twice was taken as not read, and 7 names bounded at 4 GiB each were refused past the memory budget ('they could
    take 30.1 GB'); each copy of the attribute's shape is now bounded, and the file read."""
    from baseparam.identification._arrays import h5_joint_names

    joints = [f"joint{k}" for k in range(7)]
    path = _dense_names(tmp_path / "log.h5", ["a", "b"], rewritten=joints)
    assert path.read_bytes().count(b"joint_names\0") == 2
    assert h5_joint_names(path, "log.h5") == joints


@pytest.mark.parametrize("damage", ["blocks", "messages"])
def test_a_dense_attribute_whose_heap_is_not_read_refused(tmp_path, monkeypatch, damage):
    """A heap of attributes this reader cannot walk, or holding no message of the attribute (damage libhdf5 may not
    see): it allowed 4 GiB a name, up to the memory budget (here one name: read, its lengths unchecked); refused in
    one line."""
    from baseparam.identification import _h5_headers
    from baseparam.identification._arrays import h5_joint_names

    path = _dense_names(tmp_path / "log.h5", ["j0"])
    assert h5_joint_names(path, "log.h5") == ["j0"]

    def unreadable(*args):
        raise _h5_headers._Damaged

    if damage == "blocks":
        monkeypatch.setattr(_h5_headers, "_heap_blocks", unreadable)
        said = r"its fractal heap at address \d+ is not one libhdf5 writes"
    else:
        monkeypatch.setattr(_h5_headers, "_occurrences", lambda data, wanted: iter(()))
        said = r"its fractal heap at address \d+ holds no message of it"
    with pytest.raises(DataError, match=rf"^log.h5: attribute joint_names: kept in dense storage, but {said} \(a "
                                        r"damaged file\): its names' lengths cannot be checked before libhdf5 reads "
                                        r"them; not read$"):
        h5_joint_names(path, "log.h5")


def test_a_dense_attribute_beside_an_attribute_of_17_mib_read(tmp_path):
    """A calibration of 17 MiB beside joint_names in the heap (a huge object, past the bytes read for one object):
    the heap was taken as not read, and 7 names refused at 4 GiB each; an object too long to be the attribute
    sought is no longer read, and the names are."""
    import h5py

    from baseparam.identification._arrays import h5_joint_names

    path = tmp_path / "log.h5"
    with h5py.File(path, "w", libver="latest", track_order=True) as h5:
        h5["q"] = np.zeros((5, 7))
        h5.attrs["joint_names"] = np.array([f"j{k}" for k in range(7)], dtype=h5py.string_dtype())
        h5.attrs["calibration"] = np.zeros(17 << 17)
    assert h5_joint_names(path, "log.h5") == [f"j{k}" for k in range(7)]


# -- a header stamp of a second or more of nanoseconds -----------------------------------------------------------------

def _write_stamped(path, kind, stamps, received=None):
    """A bag of /joint_states (joints a, b) written by rosbags' writers, message k stamped ``stamps[k]`` = (sec,
    nanosec) as given (not normalized), received at ``received[k]`` s (10 ms apart from 1 s by default)."""
    from test_logs import _message, _typestore

    ros1, msgtype = kind == "ros1", "sensor_msgs/msg/JointState"
    ts = _typestore(ros1)
    if ros1:
        from rosbags.rosbag1 import Writer
        writer = Writer(path)
    else:
        from rosbags.rosbag2 import StoragePlugin, Writer
        writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP if kind == "mcap" else StoragePlugin.SQLITE3)
    with writer:
        conn = writer.add_connection("/joint_states", msgtype, typestore=ts)
        for k, (sec, nanosec) in enumerate(stamps):
            msg = _message(ts, 0, ["a", "b"], [0.1 * k, -0.1 * k], [1.0, 1.0], [2.0, 2.0], seq=k, ros1=ros1)
            msg.header.stamp = ts.types["builtin_interfaces/msg/Time"](sec=sec, nanosec=nanosec)
            data = ts.serialize_ros1(msg, msgtype) if ros1 else ts.serialize_cdr(msg, msgtype)
            writer.write(conn, 1_000_000_000 + 10_000_000 * k if received is None else int(round(received[k] * 1e9)),
                         data)
    return path


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_a_header_stamp_of_a_second_of_nanoseconds_is_a_damaged_message(tmp_path, kind):
    """A bit flipped in a stamp's nanoseconds (2.8·10⁹): the stamp 2.8 s past its neighbours, the message sorted
    to the end with a note only, a gap of 2.8 s in the motion and its values there. ROS's Time keeps nanoseconds
    below a second: a damaged message, refused in one line or dropped."""
    stamps = [(1, 10_000_000 * k) for k in range(30)]
    stamps[12] = (1, 2_800_000_000)
    path = _write_stamped(_bag(tmp_path, kind, "stamps"), kind, stamps)
    with pytest.raises(DataError, match=r"topic /joint_states: message 12: damaged JointState \(header stamp: "
                                        r"2800000000 nanoseconds, not below 10⁹ \(a damaged stamp\)\)"):
        bp.read_trajectory(path, joints=["a", "b"])
    traj = bp.read_trajectory(path, joints=["a", "b"], skip_bad_rows=True)
    assert [k for k, _ in traj.skipped] == [12] and traj.t.size == 29 and traj.t[-1] < 1.3
    stamps[12] = (1, 120_000_000)
    traj = bp.read_trajectory(_write_stamped(_bag(tmp_path, kind, "valid"), kind, stamps), joints=["a", "b"])
    assert traj.t.size == 30 and np.allclose(traj.q[:, 0], 0.1 * np.arange(30))


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_header_stamps_left_zero_after_stamped_ones_are_damaged_messages(tmp_path, kind):
    """Two messages in three left unstamped (zero) among stamped ones: sorted to the start, with skip_bad_rows the
    first was kept at 0 s with the values of 1.01 s, a gap of a second before the motion (the others dropped as
    duplicate times). They are damaged messages now: refused in one line, or dropped. A simulation's clock starting
    at 0 s (its first message stamped zero) reads as before."""
    stamps = [(1, 10_000_000 * k) if k % 3 == 0 else (0, 0) for k in range(30)]
    path = _write_stamped(_bag(tmp_path, kind, "unset"), kind, stamps)
    with pytest.raises(DataError, match=r"topic /joint_states: message 1: damaged JointState \(header stamp zero "
                                        r"\(unset\) after stamped messages\); 19 more damaged messages"):
        bp.read_trajectory(path, joints=["a", "b"])
    traj = bp.read_trajectory(path, joints=["a", "b"], skip_bad_rows=True)
    assert traj.t[0] == 1.0 and traj.t.size == 10 and np.allclose(traj.q[:, 0], 0.1 * np.arange(0, 30, 3))
    simulated = [(0, 10_000_000 * k) for k in range(30)]
    traj = bp.read_trajectory(_write_stamped(_bag(tmp_path, kind, "sim"), kind, simulated), joints=["a", "b"])
    assert traj.t[0] == 0.0 and traj.t.size == 30 and traj.skipped == ()


# -- joint names of the robot's in another case, in another order -----------------------------------------------------

@pytest.mark.parametrize("ext", [".npz", ".h5"])
def test_the_robots_names_in_another_case_and_order_refused(tmp_path, ext):
    """joint_names [B, A, C] for the robot's [a, b, c]: none of the robot's names as written, so the file was read
    by position (an unnamed export's), its B column going to a without a word; now refused in one line. The same
    names in the robot's order read as before (by position: right)."""
    import h5py

    t = 1.0 + np.arange(10) * 0.01

    def log(name, order):
        path = tmp_path / f"{name}{ext}"
        q = np.stack([np.sin(t + "abc".index(j.lower())) for j in order], axis=1)
        if ext == ".npz":
            np.savez(path, t=t, q=q, joint_names=np.array(order))
        else:
            with h5py.File(path, "w") as h5:
                h5["t"], h5["q"] = t, q
                h5.attrs["joint_names"] = np.array(order, dtype=h5py.string_dtype())
        return path

    with pytest.raises(DataError, match=r"the file names its joints B, A, C, the robot a, b, c: the same names in "
                                        r"another case or Unicode form and another order \(the file's joint 1, B, is "
                                        r"the robot's joint 2\); names are compared as written"):
        bp.read_trajectory(log("other", ["B", "A", "C"]), joints=["a", "b", "c"])
    traj = bp.read_trajectory(log("same", ["A", "B", "C"]), joints=["a", "b", "c"])
    assert np.array_equal(traj.q, np.stack([np.sin(t + k) for k in range(3)], axis=1))


# -- a global heap collection libhdf5 reads without end ----------------------------------------------------------------

def _endless_collection(path, as_dataset):
    """A log whose joint_names (variable-length text: an attribute, or a dataset) have their texts in a global heap
    collection whose free space declares 0 bytes: libhdf5 1.14 reads that object again and again."""
    import h5py
    import struct

    with h5py.File(path, "w") as h5:
        h5["t"], h5["q"] = np.arange(10) * 0.01, np.zeros((10, 3))
        names = np.array(["a", "b", "c"], dtype=h5py.string_dtype())
        if as_dataset:
            h5["joint_names"] = names
        else:
            h5.attrs["joint_names"] = names
    raw = bytearray(path.read_bytes())
    at = raw.index(b"GCOL")
    end, k = at + struct.unpack_from("<Q", raw, at + 8)[0], at + 16
    while struct.unpack_from("<H", raw, k)[0]:          # past the objects (index, refs, reserved, size, padded data)
        k += 16 + -(-struct.unpack_from("<Q", raw, k + 8)[0] // 8) * 8
    assert k < end
    struct.pack_into("<Q", raw, k + 8, 0)                # the free space (index 0): 0 bytes
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize("as_dataset", [False, True])
def test_names_in_a_collection_libhdf5_reads_without_end_refused(tmp_path, as_dataset):
    """Found by fuzzing (20 bytes inserted in a 13 kB file): the read never ended, inside libhdf5 where no signal
    reaches it (a child process here, killed after 60 s before the fix); the collection is walked first now, and the
    file refused in one line."""
    import subprocess
    import sys

    path = _endless_collection(tmp_path / "log.h5", as_dataset)
    code = (f"import baseparam as bp\ntry:\n    bp.read_trajectory({str(path)!r}, joints=['a', 'b', 'c'])\n"
            "except Exception as exc:\n    print(type(exc).__name__, exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith(f"DataError {path}: ") and "\n" not in done.stdout.strip(), done.stdout[-300:]
    assert ("holds a free space of 0 bytes at offset" in done.stdout
            and "(a damaged file: libhdf5 would read the names there without end); not read" in done.stdout)
