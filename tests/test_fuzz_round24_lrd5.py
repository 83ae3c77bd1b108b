"""Round 24, helper lrd5: the readers' leftovers (issue 28).

An HDF5 ``joint_names`` attribute of variable-length text, and the rows of a dataset whose stored lengths cannot be
read first, were read whole before they were bounded: a crafted file of a few kB took gigabytes to refuse."""
import os
import struct
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

from baseparam.errors import DataError
from baseparam.identification._arrays import h5_joint_names

JOINTS = [f"panda_joint{k}" for k in range(1, 8)]
VLEN = h5py.string_dtype()


def _attribute_file(path, names, libver="earliest", extra=0):
    with h5py.File(path, "w", libver=libver) as h5:
        h5["q"] = np.zeros((5, 2))
        for k in range(extra):               # more than 8 attributes: libver latest keeps them in dense storage
            h5.attrs[f"note{k}"] = k
        h5.attrs["joint_names"] = np.array(names, dtype=VLEN)


def _references(raw, length, count):
    """Offsets of ``count`` stored references of texts of ``length`` bytes (length, heap address, index 1..count)."""
    found = [k for k in range(len(raw) - 16) if struct.unpack_from("<I", raw, k)[0] == length
             and 1 <= struct.unpack_from("<I", raw, k + 12)[0] <= count]
    return found[-count:]


def _read_limited(path, limit_mb=1500):
    """h5_joint_names(path) in a child process whose address space is limited: its error's type and message."""
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({limit_mb} << 20, {limit_mb} << 20))
        from baseparam.identification._arrays import h5_joint_names
        try:
            print("OK", h5_joint_names({str(path)!r}, "log.h5"))
        except Exception as exc:
            print(type(exc).__name__, exc)
    """)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    return done.stdout.strip() or done.stderr.strip()[-300:]


def test_attribute_declaring_a_gigabyte_refused_unread(tmp_path):
    """(A version 1 object header: version 2 headers carry a checksum, which a patch here would break.)"""
    path = tmp_path / "log.h5"
    _attribute_file(path, ["joint1MARK", "joint2MARK"])
    raw = bytearray(path.read_bytes())
    for at in _references(raw, 10, 2):
        struct.pack_into("<I", raw, at, 1_000_000_000)
    path.write_bytes(bytes(raw))
    out = _read_limited(path, 700)
    assert out.startswith("DataError log.h5: attribute joint_names: the names up to row 0 take more than"), out[:300]
    assert "\n" not in out


def test_attribute_cells_pointing_to_one_long_text_refused_unread(tmp_path):
    """3 000 cells all pointing to a text of 1 MB: 3 GB once read; refused from the stored references."""
    path, big = tmp_path / "log.h5", 1 << 20
    _attribute_file(path, ["y" * big] + [f"j{k}" for k in range(2999)])
    raw = bytearray(path.read_bytes())
    first = next(k for k in _references(raw, big, 3000)          # its 3 000 references, one after another
                 if struct.unpack_from("<I", raw, k + 16)[0] == 2)      # row 1: "j0"
    for row in range(1, 3000):
        raw[first + 16 * row:first + 16 * row + 16] = raw[first:first + 16]
    path.write_bytes(bytes(raw))
    assert path.stat().st_size < 2 * big         # read whole: 3 000 texts of 1 MB
    out = _read_limited(path)
    assert out.startswith("DataError log.h5: attribute joint_names: the names up to row"), out[:300]


def test_dense_attribute_read_when_bounded_refused_otherwise(tmp_path):
    """An attribute in dense storage (its references in a fractal heap, read first since review rv3): read, a
    writer's 7 names beside 4 MB of data as 10 000 names (once refused: nothing told them from cells pointing to one
    long text before libhdf5 read them; the crafted ones are in tests/test_review_round24_rv3.py)."""
    path = tmp_path / "log.h5"
    _attribute_file(path, JOINTS, "latest", extra=10)
    assert h5_joint_names(path, "log.h5") == JOINTS
    with h5py.File(path, "a") as h5:
        h5["big"] = np.zeros(500_000)
    assert h5_joint_names(path, "log.h5") == JOINTS
    _attribute_file(path, [f"j{k}" for k in range(10_000)], "latest", extra=10)       # 10 000 × the file: GBs
    out = _read_limited(path, 700)
    assert out.startswith("OK ['j0', 'j1'") and out.endswith("'j9999']"), out[:300]


@pytest.mark.parametrize("libver", ["earliest", "latest"])
@pytest.mark.parametrize("count", [7, 3000])
def test_valid_attributes_read_as_written(tmp_path, libver, count):
    path = tmp_path / "log.h5"
    names = [f"joint_{k}_" + "x" * (k % 40) for k in range(count)]
    _attribute_file(path, names, libver)
    assert h5_joint_names(path, "log.h5") == names
    with h5py.File(path, "w", libver=libver) as h5:
        h5.attrs["joint_names"] = np.array(names[:7], dtype="S")       # fixed-length text: as before
    assert h5_joint_names(path, "log.h5") == names[:7]


def _lzf_literal(data):
    """``data`` as an LZF stream of literal runs only (h5py's lzf filter inflates it)."""
    return b"".join(bytes([len(data[k:k + 32]) - 1]) + data[k:k + 32] for k in range(0, len(data), 32))


@pytest.mark.skipif(not h5py.h5z.filter_avail(32000), reason="h5py without lzf")
def test_row_zero_of_unreadable_lengths_counted_cell_by_cell(tmp_path):
    """A (3, 5000) dataset compressed with lzf (its stored lengths not read first), row 0's cells all pointing to
    one text of 1 MB: 5 GB if row 0 is read whole; refused after a few cells."""
    path, big, n = tmp_path / "log.h5", 1 << 20, 5000
    names = np.array([["y" * big] + [f"j{k}" for k in range(n - 1)]] + [[f"j{k}" for k in range(n)]] * 2, dtype=object)
    with h5py.File(path, "w") as h5:
        h5.create_dataset("joint_names", data=names, dtype=VLEN, chunks=(3, n), compression="lzf")
    with h5py.File(path, "r+") as h5:
        dset = h5["joint_names"]
        plain = _unlzf(dset.id.read_direct_chunk((0, 0))[1], 3 * n * 16)
        for column in range(1, n):
            plain[16 * column:16 * column + 16] = plain[:16]
        dset.id.write_direct_chunk((0, 0), _lzf_literal(bytes(plain)), 0)
    with h5py.File(path) as h5:
        assert h5["joint_names"][0, n - 1] == b"y" * big
    out = _read_limited(path)
    assert out.startswith("DataError log.h5: key joint_names: the names up to row 0 take more than"), out[:300]


def _unlzf(data, size):
    """Inflate an LZF stream (the format of h5py's lzf filter)."""
    out, at = bytearray(), 0
    while at < len(data):
        ctrl = data[at]
        at += 1
        if ctrl < 32:
            out += data[at:at + ctrl + 1]
            at += ctrl + 1
            continue
        length = ctrl >> 5
        if length == 7:
            length += data[at]
            at += 1
        back = ((ctrl & 0x1F) << 8) + data[at] + 1
        at += 1
        for _ in range(length + 2):
            out.append(out[-back])
    assert len(out) == size
    return out


# -- a position-only publisher of one topic's joints with more messages than the full stream ------------------------

BAG_KINDS = ["mcap", "sqlite3", "ros1"]


def _two_publishers(n_full=40, n_other=60, other=lambda t: 0.0 * t):
    """One topic naming joints a, b: ``n_full`` messages at 100 Hz with position, velocity and effort of a smooth
    motion, and ``n_other`` within their span with positions alone, ``other(t)`` (zeros: a GUI's sliders)."""
    t = 1.0 + np.arange(n_full) * 0.01
    q = np.stack([np.sin(t), np.cos(2 * t)], axis=1)
    qd = np.stack([np.cos(t), -2 * np.sin(2 * t)], axis=1)
    tau = np.stack([t, -t], axis=1)
    full = [(int(round(x * 1e9)), int(round(x * 1e9)), ["a", "b"], list(q[k]), list(qd[k]), list(tau[k]))
            for k, x in enumerate(t)]
    t_other = t[0] + 0.0013 + np.arange(n_other) * (t[-1] - t[0] - 0.003) / n_other
    stray = [(int(round(x * 1e9)), int(round(x * 1e9)), ["a", "b"], [float(other(x)), float(np.cos(2 * x))], [], [])
             for x in t_other]
    return full + stray


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_position_only_publisher_of_more_messages_disagreeing_refused(tmp_path, kind):
    import baseparam as bp
    from test_logs import write_bag

    path = tmp_path / ("log.bag" if kind == "ros1" else "bag")
    write_bag(path, kind, {"/joint_states": sorted(_two_publishers(), key=lambda m: m[0])})
    with pytest.raises(DataError, match=r": joint a: the 60 messages of /joint_states with position and its 40 "
                                        r"messages with position, velocity, effort give positions [0-9.e-]+ apart"):
        bp.read_trajectory(path, joints=["a", "b"])


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_position_only_publisher_agreeing_read_as_before(tmp_path, kind):
    """The same motion's positions from a second publisher of more messages: read on its times as before (q its
    own, qd and tau the driver's interpolated); one joint of another motion refused."""
    import baseparam as bp
    from test_logs import write_bag

    def bag(name, messages):
        path = tmp_path / (f"{name}.bag" if kind == "ros1" else name)
        return write_bag(path, kind, {"/joint_states": sorted(messages, key=lambda m: m[0])})

    traj = bp.read_trajectory(bag("same", _two_publishers(other=np.sin)), joints=["a", "b"])
    assert traj.t.size == 60
    assert np.allclose(traj.q, np.stack([np.sin(traj.t), np.cos(2 * traj.t)], axis=1), atol=1e-8, rtol=0)
    assert np.allclose(traj.qd[:, 0], np.cos(traj.t), atol=1e-3)      # the driver's, interpolated
    with pytest.raises(DataError, match="joint a: .* give positions"):
        bp.read_trajectory(bag("other", _two_publishers(other=lambda x: np.sin(x) + 0.5)), joints=["a", "b"])


# -- receive times going back in a topic's file order: every bag storage alike -----------------------------------------

def _late_receive_messages():
    """30 messages of joints a, b at 100 Hz; message 10 received (its log time) before message 8: out of the
    recorder's order, a damaged time."""
    t = 1.0 + np.arange(30) * 0.01
    q = np.stack([np.sin(t), np.cos(t)], axis=1)
    messages = [(int(round(x * 1e9)), int(round(x * 1e9)), ["a", "b"], list(q[k]), list(2 * q[k]), list(3 * q[k]))
                for k, x in enumerate(t)]
    messages[10] = (messages[7][0] + 1000,) + messages[10][1:]
    return messages, q


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_receive_time_going_back_refused_or_dropped_in_every_storage(tmp_path, kind):
    """A ROS 1 bag's messages came sorted by receive time (rosbags' index order): the late message was moved into
    the motion, where MCAP and sqlite3 storage refuse it, or drop it with skip_bad_rows; now its file order is read
    from the chunks' index data."""
    import baseparam as bp
    from test_logs import write_bag

    messages, q = _late_receive_messages()
    path = write_bag(tmp_path / ("log.bag" if kind == "ros1" else "bag"), kind, {"/joint_states": messages})
    late = r"time goes backwards \(1.070001 s after 1.09 s on message 9\)"
    with pytest.raises(DataError, match=r"topic /joint_states: message 10: damaged JointState \(receive time out "
                                        r"of the recorder.s order: " + late):
        bp.read_trajectory(path, joints=["a", "b"], clock="receive")
    traj = bp.read_trajectory(path, joints=["a", "b"], clock="receive", skip_bad_rows=True)
    assert [k for k, _ in traj.skipped] == [10]
    assert np.array_equal(traj.q, np.delete(q, 10, axis=0))
    assert np.array_equal(bp.read_trajectory(path, joints=["a", "b"]).q, q)       # header stamps: in order, all read


def test_ros1_file_order_over_chunks_and_connections(tmp_path):
    """A ROS 1 bag of many chunks and two connections of one topic (two publishers' headers), messages interleaved:
    rosbags' time order mapped to the file's; a valid bag reads as before, a late message is found."""
    import baseparam as bp
    from rosbags.rosbag1 import Writer
    from test_logs import _message, _typestore

    def write(path, late):
        ts = _typestore(True)
        t = 1.0 + np.arange(400) * 0.01
        with Writer(path) as writer:
            writer.chunk_threshold = 2000
            conns = [writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts,
                                           callerid=f"/driver{k}") for k in range(2)]
            for k, x in enumerate(t):
                recv = int(round(x * 1e9)) if k != late else int(round(t[k - 5] * 1e9)) + 1
                msg = _message(ts, int(round(x * 1e9)), ["a", "b"], [np.sin(x), np.cos(x)], [1.0, 2.0], [3.0, 4.0],
                               seq=k, ros1=True)
                writer.write(conns[k % 2], recv, ts.serialize_ros1(msg, "sensor_msgs/msg/JointState"))
        return path, t

    path, t = write(tmp_path / "valid.bag", None)
    traj = bp.read_trajectory(path, joints=["a", "b"], clock="receive")
    assert np.array_equal(traj.q[:, 0], np.sin(t)) and traj.skipped == ()
    path, t = write(tmp_path / "late.bag", 250)
    traj = bp.read_trajectory(path, joints=["a", "b"], clock="receive", skip_bad_rows=True)
    assert [k for k, _ in traj.skipped] == [250]
    assert np.array_equal(traj.q[:, 0], np.sin(np.delete(t, 250)))


# -- a Parquet null said as null, not NaN ------------------------------------------------------------------------------

def _parquet(path, table):
    import pyarrow.parquet as pq
    pq.write_table(table, path)
    return path


def test_parquet_null_said_as_null_not_nan(tmp_path):
    import baseparam as bp
    import pyarrow as pa

    t = (np.arange(20) * 0.01).tolist()
    rows = [[0.1 * k, 0.2] for k in range(20)]
    rows[5] = [0.5, None]                                  # a null in a row's list
    lists = pa.array(rows, pa.list_(pa.float64()))
    path = _parquet(tmp_path / "lists.parquet", pa.table({"t": t, "q": lists, "tau": lists}))
    with pytest.raises(DataError, match=r"row 5: field q: null \(value 2 of the row's list\)"):
        bp.read_trajectory(path)
    traj = bp.read_trajectory(path, skip_bad_rows=True)
    assert traj.skipped == ((5, "field q: null (value 2 of the row's list)"),) and traj.q.shape == (19, 2)
    column = [0.1 * k for k in range(20)]
    column[3] = None                                       # a null in a column per joint
    path = _parquet(tmp_path / "flat.parquet", pa.table({"t": t, "q1": column, "q2": t, "tau1": t, "tau2": t}))
    with pytest.raises(DataError, match=r"row 3: field q1: null"):
        bp.read_trajectory(path)
    traj = bp.read_trajectory(path, skip_bad_rows=True)
    assert [r for r, _ in traj.skipped] == [3]
    assert np.array_equal(traj.q[:, 0], [v for k, v in enumerate(column) if k != 3])
    rows[5] = [0.5, float("nan")]                         # a NaN stays NaN
    lists = pa.array(rows, pa.list_(pa.float64()))
    with pytest.raises(DataError, match=r"row 5 \(column q\): field q2: NaN"):
        bp.read_trajectory(_parquet(tmp_path / "nan.parquet", pa.table({"t": t, "q": lists, "tau": lists})))


def test_dataframe_missing_value_said_as_null():
    import baseparam as bp
    pd = pytest.importorskip("pandas")

    values = [float(k) for k in range(12)]
    frame = pd.DataFrame({"t": np.arange(12) * 0.1, "q1": pd.array(values[:2] + [None] + values[3:], dtype="Float64"),
                          "tau1": np.zeros(12)})
    with pytest.raises(DataError, match=r"row 2: field q1: null"):
        bp.from_dataframe(frame)
    assert bp.from_dataframe(frame, skip_bad_rows=True).q[:, 0].tolist() == values[:2] + values[3:]


# -- names in two Unicode normalization forms --------------------------------------------------------------------------

@pytest.mark.parametrize("ext", [".csv", ".npz", ".parquet", ".mcap", ".h5"])
def test_name_in_another_unicode_form_refused_saying_so(tmp_path, ext):
    """'coudé' decomposed (NFD) in the log, composed (NFC) in the robot: refused in every format as before (names
    are compared as written), now saying why, the two names escaped (the message showed 'coudé' and 'coudé')."""
    import unicodedata

    import baseparam as bp

    composed = "coud\u00e9"
    decomposed = unicodedata.normalize("NFD", composed)
    t = np.arange(20) * 0.01
    q = np.stack([np.sin(t), np.cos(t)], axis=1)
    path = tmp_path / f"log{ext}"
    if ext == ".h5":
        with h5py.File(path, "w") as h5:
            h5["t"], h5["q"], h5["tau"] = t, q, 2 * q
            h5.attrs["joint_names"] = np.array(["a", decomposed], dtype=VLEN)
    else:
        bp.write_trajectory(bp.Trajectory(t=t, q=q, tau=2 * q), path, joint_names=["a", decomposed])
    with pytest.raises(DataError, match=r"the log's 'coude\\u0301' is the robot's 'coud\\xe9' in another Unicode "
                                        r"form: NFD, the robot's NFC; names are compared as written"):
        bp.read_trajectory(path, joints=["a", composed])
    assert np.array_equal(bp.read_trajectory(path, joints=["a", decomposed]).q, q)       # as written: read


# -- NPZ/HDF5 keys and Parquet list columns in any case, as CSV headers ----------------------------------------------

def _write_keys(path, arrays):
    import pyarrow as pa

    if path.suffix == ".npz":
        np.savez(path, **arrays)
    elif path.suffix == ".h5":
        with h5py.File(path, "w") as h5:
            for key, value in arrays.items():
                h5[key] = value
    else:
        _parquet(path, pa.table({k: (v if v.ndim == 1 else pa.array(v.tolist())) for k, v in arrays.items()}))
    return path


@pytest.mark.parametrize("ext", [".npz", ".h5", ".parquet"])
def test_keys_in_another_case_read_as_csv_headers_are(tmp_path, ext):
    """Keys T, Q, TAU were 'no array' (looked for 't', 'time', 'times') where a CSV header T,Q1,TAU1 reads: a
    default name is now found in any case when none is spelled as written; a name spelled so is taken first."""
    import baseparam as bp

    t = np.arange(20) * 0.01
    q = np.stack([np.sin(t), np.cos(t)], axis=1)
    lower = bp.read_trajectory(_write_keys(tmp_path / f"lower{ext}", {"t": t, "q": q, "tau": 2 * q}))
    upper = bp.read_trajectory(_write_keys(tmp_path / f"upper{ext}", {"T": t, "Q": q, "TAU": 2 * q}))
    assert np.array_equal(upper.t, lower.t) and np.array_equal(upper.q, lower.q)
    assert np.array_equal(upper.tau, lower.tau)
    both = bp.read_trajectory(_write_keys(tmp_path / f"both{ext}", {"t": t, "q": q, "Q": q, "tau": 2 * q}))
    assert np.array_equal(both.q, q)                           # 'q' as written, 'Q' compared (rv3: refused if other)
    with pytest.raises(DataError, match=r"field q: .*'Q' and 'Positions' both hold it, with different values"):
        bp.read_trajectory(_write_keys(tmp_path / f"twins{ext}", {"T": t, "Q": q, "Positions": -q, "TAU": q}))
    mapped = bp.read_trajectory(_write_keys(tmp_path / f"map{ext}", {"T": t, "Joints": q, "TAU": q}),
                                columns={"q": "joints"})
    assert np.array_equal(mapped.q, q)


def test_log_naming_both_unicode_forms_notes_which_is_left_out(tmp_path):
    """A bag naming 'coudé' composed and decomposed: the robot's (composed) is read, and the note of the other left
    out says which it is (it printed 'left out: coudé' beside the joint read as 'coudé')."""
    import unicodedata

    import baseparam as bp
    from test_logs import write_bag

    composed = "coud\u00e9"
    decomposed = unicodedata.normalize("NFD", composed)
    messages = [(10**9 + k * 10**7, 10**9 + k * 10**7, [composed, decomposed], [0.01 * k, 1.0], [], [])
                for k in range(20)]
    traj = bp.read_trajectory(write_bag(tmp_path / "bag", "mcap", {"/joint_states": messages}), joints=[composed])
    assert np.array_equal(traj.q[:, 0], 0.01 * np.arange(20))
    said = f"left out: {decomposed} (the log's 'coude\\u0301' is the robot's 'coud\\xe9' in another Unicode form"
    assert any(said in n for n in traj.notes), traj.notes
