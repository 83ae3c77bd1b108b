"""Round 26, helper lrd7: the readers' leftovers (issue 28).

A bit flipped in one header stamp's seconds (MCAP, rosbag2 sqlite3, ROS 1) moved its message 8 s to 10⁹ s away: it
was sorted to an end of the log with the note "1 messages out of order", a sample far from its motion. A first or
last time far from the rest of a file (t[0]'s sign flipped: 1 s read as -1 s) read as a gap of seconds. A byte
flipped in a page of a Parquet log baseparam wrote was read as another value (no page checksums written)."""
import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import DataError, DataWarning
from baseparam.identification import _bags, _rows
from test_fuzz_round25_lrd6 import _write_stamped
from test_review_round25_rv10 import _motion, _refused, _stream

BAG_KINDS = ["mcap", "sqlite3", "ros1"]


def _bag(tmp_path, kind, name):
    return tmp_path / (f"{name}.bag" if kind == "ros1" else name)


def _stamps(n=40, start=1000, step_ns=10_000_000):
    return [(start + (k * step_ns) // 10**9, (k * step_ns) % 10**9) for k in range(n)]


def _flipped(stamps, k, bit):
    sec, nanosec = stamps[k]
    return stamps[:k] + [(sec ^ (1 << bit), nanosec)] + stamps[k + 1:]


# -- a header stamp far from the messages received next to it ----------------------------------------------------------

@pytest.mark.parametrize("kind", BAG_KINDS)
@pytest.mark.parametrize("k, bit, shown", [(12, 3, "992.12 s, 7.99 s"), (12, 20, "1049576.12 s"),
                                           (12, 1, "1002.12 s, 1.99 s"), (0, 5, "968 s, 32.01 s"),
                                           (39, 4, "1016.39 s, 16.01 s")])
def test_a_header_stamp_with_a_flipped_bit_of_its_seconds_is_a_damaged_message(tmp_path, kind, k, bit, shown):
    """One stamp's seconds with a bit flipped (message 12 of 40 at 100 Hz, or the first or the last): sorted to an
    end of the log with a note only, or (at an end) read as a gap of seconds before. Now a damaged message, named
    with its stamp and its neighbours', refused in one line, or dropped with skip_bad_rows=True."""
    path = _write_stamped(_bag(tmp_path, kind, "flipped"), kind, _flipped(_stamps(), k, bit))
    with pytest.raises(DataError, match=rf"topic /joint_states: message {k}: damaged JointState \(header stamp "
                                        rf"{shown}.* from the messages? received next to it .* times the topic's "
                                        r"typical step: a damaged stamp\)") as refused:
        bp.read_trajectory(path, joints=["a", "b"])
    assert "\n" not in str(refused.value)
    traj = bp.read_trajectory(path, joints=["a", "b"], skip_bad_rows=True)
    assert [i for i, _ in traj.skipped] == [k] and traj.t.size == 39
    assert np.allclose(traj.q[:, 0], 0.1 * np.delete(np.arange(40), k)) and np.ptp(traj.t) < 0.4


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_stamps_of_one_publisher_read_as_before(tmp_path, kind):
    """Stamps that jitter in receive order (neighbours swapped), a driver restarted after its first message (a pause of
    5 s on both clocks), a simulation's clock restarted mid-log (stamps back to 5 s and on from there), or the last
    message received after a pause: no stamp is damaged; read as before."""
    stamps = _stamps()
    swapped = stamps[:10] + [stamps[11], stamps[10]] + stamps[12:]
    traj = bp.read_trajectory(_write_stamped(_bag(tmp_path, kind, "swapped"), kind, swapped), joints=["a", "b"])
    assert traj.t.size == 40 and traj.skipped == () and "1 messages out of order" in " ".join(traj.notes)
    later = [(sec + 5 * (k > 0), ns) for k, (sec, ns) in enumerate(stamps)]
    received = 1000.0 + 0.01 * np.arange(40) + 5.0 * (np.arange(40) > 0)
    traj = bp.read_trajectory(_write_stamped(_bag(tmp_path, kind, "restart"), kind, later, received), joints=["a", "b"])
    assert traj.t.size == 40 and traj.t[1] - traj.t[0] > 5
    sim = stamps[:20] + [(5 + k // 100, 10_000_000 * (k % 100)) for k in range(20)]
    traj = bp.read_trajectory(_write_stamped(_bag(tmp_path, kind, "sim"), kind, sim), joints=["a", "b"])
    assert traj.t.size == 40 and traj.t[0] == 5.0 and traj.skipped == ()       # sorted, as before
    last = stamps[:39] + [(1030, 0)]
    received = np.append(1000.0 + 0.01 * np.arange(39), 1030.0)
    traj = bp.read_trajectory(_write_stamped(_bag(tmp_path, kind, "last"), kind, last, received), joints=["a", "b"])
    assert traj.t.size == 40 and traj.t[-1] == 1030.0


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_a_receive_time_apart_at_an_end_is_a_damaged_message(tmp_path, kind):
    """The last message's receive time 64 s after the others, its header stamp with them (clock='receive'): read as a
    gap of 64 s; now a damaged receive time. Without header stamps (nothing to tell a pause by) read as before."""
    stamps = _stamps()
    received = 1000.0 + 0.01 * np.arange(40)
    received[-1] += 64
    path = _write_stamped(_bag(tmp_path, kind, "received"), kind, stamps, received)
    with pytest.raises(DataError, match=r"message 39: damaged JointState \(receive time 1064.39 s, 64.01 s from the "
                                        r"message received next to it \(1000.38 s\), .*: a damaged time\)"):
        bp.read_trajectory(path, joints=["a", "b"], clock="receive")
    assert bp.read_trajectory(path, joints=["a", "b"]).t.size == 40       # its header stamps are right
    path = _write_stamped(_bag(tmp_path, kind, "unstamped"), kind, [(0, 0)] * 40, received)
    assert abs(bp.read_trajectory(path, joints=["a", "b"]).t[-1] - received[-1]) < 1e-6


# -- a time apart at an end of a file ----------------------------------------------------------------------------------

def _log(t):
    q = np.stack([np.sin(t), np.cos(t)], axis=1)
    return bp.Trajectory(t=t, q=q, tau=2 * q, source="log")


def _write_h5(path, t, log):
    import h5py
    with h5py.File(path, "w") as h5:
        h5["t"], h5["q"], h5["tau"] = t, log.q, log.tau
    return path


@pytest.mark.parametrize("ext", [".csv", ".npz", ".parquet", ".h5"])
@pytest.mark.parametrize("end", [0, -1])
def test_a_time_apart_at_an_end_of_a_file_left_out(tmp_path, ext, end):
    """t[0]'s sign flipped (1 s read as -1 s, two seconds before the rest at 500 Hz), or the last time 2⁴ s ahead:
    read as a gap, its sample apart from the motion. With one clock it cannot be told from one sample recorded before
    a pause, so it is not refused: left out with a DataWarning naming it, or listed with skip_bad_rows=True."""
    t = 1.0 + 0.002 * np.arange(200)
    damaged = t.copy()
    damaged[end] = -t[0] if end == 0 else t[-1] + 16
    log = _log(t)
    path = tmp_path / f"log{ext}"
    if ext == ".h5":
        _write_h5(path, damaged, log)
    else:
        bp.write_trajectory(bp.Trajectory(t=damaged, q=log.q, tau=log.tau, source="log"), path)
    unit = "line" if ext == ".csv" else "row"
    shown = (r"time -1 s stands apart, 2.002 s before 1.002 s" if end == 0 else
             r"time 17.398 s stands apart, 16 s after 1.396 s")
    with pytest.warns(DataWarning, match=rf"{unit} [0-9]+( \([a-z]+ t\))?: {shown} on {unit} "
                                        r".*more than 100 times the log's typical step 0.002 s \(a damaged time, or "
                                        r"a sample cut off from the log\); left out$"):
        traj = bp.read_trajectory(path)
    assert traj.t.size == 199 and np.array_equal(traj.t, np.delete(t, end)) and not traj.skipped
    traj = bp.read_trajectory(path, skip_bad_rows=True)
    assert traj.t.size == 199 and np.array_equal(traj.t, np.delete(t, end)) and len(traj.skipped) == 1
    if ext != ".h5":
        bp.write_trajectory(log, tmp_path / f"good{ext}")
        assert np.array_equal(bp.read_trajectory(tmp_path / f"good{ext}").t, t)


def test_times_in_bursts_or_a_pause_inside_are_not_apart():
    """Samples in bursts (three 0.2 ms apart, 5.6 ms to the next three; the median step 0.2 ms) starting or ending
    at a burst's gap, and a pause of 10 s inside the log: no end apart. A gap of 100 typical steps is; 99 is not."""
    bursts = np.cumsum(np.tile([0.2e-3, 0.2e-3, 5.6e-3], 40))
    assert _rows.apart_ends(bursts) == [] and _rows.apart_ends(bursts[1:-1]) == []
    t = np.concatenate([np.arange(100) * 0.01, 11.0 + np.arange(100) * 0.01])
    assert _rows.apart_ends(t) == []
    assert _rows.apart_ends(np.append(-1.001, np.arange(100) * 0.01)) == [0]
    assert _rows.apart_ends(np.append(-0.99, np.arange(100) * 0.01)) == []


# -- Parquet page checksums ---------------------------------------------------------------------------------------

def _flipped_byte(path, at):
    data = bytearray(path.read_bytes())
    data[at] ^= 0x10
    out = path.with_name(f"flipped{at}.parquet")
    out.write_bytes(bytes(data))
    return out


def test_a_byte_flipped_in_a_page_of_our_parquet_log_refused(tmp_path):
    """A byte flipped in a dictionary or data page of a log baseparam wrote: read as another value, without a word
    (the writer stored no page checksums). It writes them now, and the reader checks them: refused in one line. A
    file without checksums (another writer's) still reads."""
    import pyarrow.parquet as pq

    t = 1.0 + 0.002 * np.arange(300)
    log = _log(t)
    path = tmp_path / "log.parquet"
    bp.write_trajectory(log, path)
    chunks = pq.ParquetFile(path).metadata.row_group(0)
    for c in range(chunks.num_columns):
        chunk = chunks.column(c)
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        pages = [start + chunk.total_compressed_size - 20]                # in the (last) data page's values
        if chunk.dictionary_page_offset is not None:
            pages.append(chunk.data_page_offset - 5)                       # in the dictionary's
        for at in pages:
            with pytest.raises(DataError, match=r"cannot read as Parquet \(damaged\?\): .*CRC checksum verification "
                                                r"failed") as refused:
                bp.read_trajectory(_flipped_byte(path, at))
            assert "\n" not in str(refused.value)
    unchecked = tmp_path / "unchecked.parquet"
    pq.write_table(pq.read_table(path), unchecked)
    assert np.array_equal(bp.read_trajectory(unchecked).q, log.q)
    assert np.array_equal(bp.read_trajectory(path).q, log.q)


# -- two publishers on one topic: the whole log, and one publisher's samples near the Nyquist rate ---------------------

def test_a_second_publisher_late_in_a_long_log_refused():
    """A spike of noise at message 100, then 30 000 messages of one driver, then a GUI's zeros at a quarter of its
    rate: only the 20 000 messages after the first spike were split into series, and the log read, exit 0. Now the
    whole log is judged, window after window."""
    t = 1.0 + 0.01 * np.arange(40_000)
    q = _motion(t)
    q[100, 0] += 0.05                  # one joint's spike of noise
    q[30_000::4] = 0.0                 # the GUI's zeros from message 30 000 on
    with pytest.raises(DataError, match=r"alternate between two series of positions \(of 10001 messages from "
                                        r"t=300\.99 s, 7501 in one and 2500 in the other"):
        _bags._refuse_interleaved_publishers(_stream(t, q), "position", [f"j{k}" for k in range(6)], "log")
    q[30_000::4] = _motion(t)[30_000::4]   # the driver alone: read
    assert not _refused(t, q)


@pytest.mark.parametrize("fraction", [0.9, 0.95, 0.99])
@pytest.mark.parametrize("amplitude", [0.02, 0.05])
def test_a_joint_vibrating_near_the_nyquist_rate_is_one_publisher(fraction, amplitude):
    """An arm moving slowly, one joint vibrating at 0.9 to 0.99 of the Nyquist rate (its samples of alternate sign
    about a slow envelope): refused as two publishers at 0.99 (rv10's find). A gripper joint toggled at every sample
    too. One motion is seen in the other joints, and the messages pass between the two series on one clock."""
    t = 1.0 + 0.01 * np.arange(5000)
    q = 0.1 * _motion(0.05 * t)
    q[:, 2] += amplitude * np.sin(np.pi * fraction * 100 * (t - 1))
    assert not _refused(t, q)
    gripper = np.append(0.1 * _motion(0.05 * t), 0.04 * (np.arange(t.size) % 2)[:, None], axis=1)
    assert _refused(t, gripper) is False
    assert _refused(t + 1e-3 * np.random.default_rng(1).random(t.size), gripper) is False      # jittered stamps


def test_publishers_interleaved_on_one_clock_or_two_still_refused():
    """Still refused: a GUI's zeros at every other tick of the driver's clock (every joint's series apart), two arms
    at the same rate half a period apart, and a second driver 3 ms after the first whose one joint parked at the
    same angle agrees (3 ms into one series, 7 ms back: two clocks)."""
    t = 1.0 + 0.01 * np.arange(5000)
    q = 0.1 * _motion(0.05 * t)
    q[::2] = 0.0
    assert _refused(t, q)
    both = np.sort(np.concatenate([t, t + 0.005]))
    arms = np.empty((both.size, 6))
    arms[0::2], arms[1::2] = _motion(t), _motion(t + 0.4)
    assert _refused(both, arms)
    both = np.sort(np.concatenate([t, t + 0.003]))
    arms[0::2], arms[1::2] = _motion(t), _motion(t + 0.4)
    arms[:, 5] = 0.3
    assert _refused(both, arms)


# -- a joint name with a flipped bit in one message ------------------------------------------------------------------

def _named(tmp_path, kind, label, names_at):
    """A bag of /joint_states: 200 messages naming a, b, c at 100 Hz, message k naming ``names_at.get(k)`` instead,
    positions of one motion (joint k's, whatever its name)."""
    from test_logs import write_bag

    t = 1.0 + 0.01 * np.arange(200)
    q = np.stack([np.sin(t), np.cos(t), 0.5 * t], axis=1)
    messages = [(int(round(x * 1e9)), int(round(x * 1e9)), names_at.get(k, ["a", "b", "c"]), list(q[k]), [], [])
                for k, x in enumerate(t)]
    return write_bag(_bag(tmp_path, kind, label), kind, {"/joint_states": messages}), q


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_a_joint_name_a_byte_off_in_one_message_is_a_damaged_message(tmp_path, kind):
    """One message naming b as 'q', or c as 'C' (a bit flipped): read as a stream of joints a, q, c of its own, dropped
    with a note only ("1 messages … not used"), the log one sample short without a word of damage. Now a damaged
    message, refused in one line or dropped and listed."""
    for wrong, names, right in (("q", ["a", "q", "c"], "b"), ("C", ["a", "b", "C"], "c")):
        path, q = _named(tmp_path, kind, wrong, {57: names})
        with pytest.raises(DataError, match=rf"topic /joint_states: message 57: damaged JointState \(joint name "
                                            rf"{wrong} where the topic's 199 other messages name {right} \(a damaged "
                                            r"name\)\)"):
            bp.read_trajectory(path, joints=["a", "b", "c"])
        traj = bp.read_trajectory(path, joints=["a", "b", "c"], skip_bad_rows=True)
        assert [k for k, _ in traj.skipped] == [57] and np.array_equal(traj.q, np.delete(q, 57, axis=0))


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_a_few_messages_of_other_joints_read_as_before(tmp_path, kind):
    """Two messages naming a, b, d (d a byte off c) with other positions (another publisher), or naming a, b, e2
    (two bytes off): not damage; their messages are left out with a note, as before."""
    for label, names, shift in (("other", ["a", "b", "d"], 0.3), ("far", ["a", "b", "e2"], 0.0)):
        path, q = _named(tmp_path, kind, label, {20: names, 21: names})
        if shift:
            from test_logs import write_bag
            t = 1.0 + 0.01 * np.arange(200)
            moved = q.copy()
            moved[20:22, :2] += shift
            messages = [(int(round(x * 1e9)), int(round(x * 1e9)), names if k in (20, 21) else ["a", "b", "c"],
                         list(moved[k]), [], []) for k, x in enumerate(t)]
            path = write_bag(_bag(tmp_path, kind, "moved"), kind, {"/joint_states": messages})
        traj = bp.read_trajectory(path, joints=["a", "b", "c"])
        assert traj.t.size == 198 and traj.skipped == () and any("not used" in n for n in traj.notes)
