"""Fuzz round twenty-three (issue 28), readers: what the fzread helper's cross-format drivers found (one random log
written in every format the readers take, each read back and compared), each with a test that fails on the code
before its fix."""
from __future__ import annotations

import numpy as np
import pytest

import baseparam as bp
from test_logs import write_bag

KINDS = ["mcap", "sqlite3", "ros1"]


def _bag(tmp_path, kind, messages):
    path = tmp_path / ("log.bag" if kind == "ros1" else "bag")
    return write_bag(path, kind, {"/joint_states": sorted(messages, key=lambda m: m[0])})


def _full_and_stray(n_full=40, n_stray=13):
    """Messages of one topic naming joints a, b: ``n_full`` at 100 Hz with position, velocity and effort, and
    ``n_stray`` at 33 Hz within their span with positions alone (all 0: a second publisher, a GUI's sliders),
    the stray first in the file. Returns (messages, q, qd, tau) of the full stream."""
    rng = np.random.default_rng(0)
    q, qd, tau = rng.normal(size=(3, n_full, 2))
    ns = 10**9 + np.arange(n_full) * 10**7
    full = [(int(ns[k]), int(ns[k]), ["a", "b"], list(q[k]), list(qd[k]), list(tau[k])) for k in range(n_full)]
    stray_ns = 10**9 - 10**6 + np.arange(n_stray) * 3 * 10**7
    stray = [(int(s), int(s), ["a", "b"], [0.0, 0.0], [], []) for s in stray_ns]
    return full + stray, q, qd, tau


@pytest.mark.parametrize("kind", KINDS)
def test_bag_times_come_from_the_stream_of_most_messages_when_joint_counts_tie(tmp_path, kind):
    # two streams of one topic naming the same joints (one with velocities and efforts, one without) gave the same
    # number of joints' positions: the base stream, whose times and positions are read, was the one decoded first,
    # here 13 stray messages of zero positions: q all 0 at their times, exit 0 (and one stray message: 'only 1 sample')
    messages, q, qd, tau = _full_and_stray()
    traj = bp.read_trajectory(_bag(tmp_path, kind, messages), joints=["a", "b"])
    assert np.array_equal(traj.q, q) and np.array_equal(traj.qd, qd) and np.array_equal(traj.tau, tau)
    assert any("13 messages of /joint_states naming a, b not used" in n for n in traj.notes)


@pytest.mark.parametrize("kind", KINDS)
def test_bag_one_message_without_velocity_does_not_set_the_times(tmp_path, kind):
    # one message of 30 without its velocity was a stream of its own; chosen first, it left 'only 1 sample'
    messages, q, qd, tau = _full_and_stray(n_full=30, n_stray=0)
    messages[5] = messages[5][:4] + ([], messages[5][5])
    traj = bp.read_trajectory(_bag(tmp_path, kind, messages), joints=["a", "b"])
    keep = np.arange(30) != 5
    assert np.array_equal(traj.q, q[keep]) and np.array_equal(traj.tau, tau[keep])


def _named_log(tmp_path, ext):
    """A log of 5 named joints a..e written by write_trajectory (CSV '# joints:' line, NPZ joint_names member)
    or by h5py with a joint_names attribute, or as Parquet of a column per joint named in its metadata."""
    rng = np.random.default_rng(1)
    t = np.arange(30) * 0.01
    q, tau = rng.normal(size=(2, 30, 5))
    names = ["a", "b", "c", "d", "e"]
    path = tmp_path / f"log{ext}"
    if ext == ".h5":
        import h5py
        with h5py.File(path, "w") as f:
            f["t"], f["q"], f["tau"] = t, q, tau
            f.attrs["joint_names"] = names
    elif ext == ".flat.parquet":
        import json
        import pyarrow as pa
        import pyarrow.parquet as pq
        columns = {"t": t, **{f"q{j + 1}": q[:, j] for j in range(5)}, **{f"tau{j + 1}": tau[:, j] for j in range(5)}}
        pq.write_table(pa.table(columns).replace_schema_metadata({"baseparam.joint_names": json.dumps(names)}), path)
    else:
        bp.write_trajectory(bp.Trajectory(t, q, tau), path, joint_names=names)
    return path


@pytest.mark.parametrize("ext", [".csv", ".npz", ".h5", ".flat.parquet"])
@pytest.mark.parametrize("joints", [["a", "b", "c", "d"], ["a", "b", "c", "d", "e", "f"]])
def test_ordered_file_naming_other_joint_count_than_joints_is_refused(tmp_path, ext, joints):
    # a file naming joints a..e, read with joints= of four of them (or six): bags and list Parquet read those four
    # by name (or refuse f), but CSV, NPZ, HDF5 and flat Parquet passed the order check on the common names and
    # returned all five columns, (S, 5) for four joints asked, without a word (robot= checked the count, joints= not)
    path = _named_log(tmp_path, ext)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=joints)
    message = str(err.value)
    assert "\n" not in message and str(path) in message
    assert (f"holds 5 joints' columns, the robot {len(joints)} joints ({', '.join(joints)})" in message
            or "f not among the file's" in message)


@pytest.mark.parametrize("ext", [".csv", ".npz", ".h5", ".flat.parquet"])
def test_ordered_file_naming_the_robots_joints_still_reads(tmp_path, ext):
    path = _named_log(tmp_path, ext)
    assert bp.read_trajectory(path, joints=["a", "b", "c", "d", "e"]).q.shape == (30, 5)


def test_unnamed_csv_of_more_columns_than_joints_is_refused(tmp_path):
    # a CSV naming no joints, five joints' columns, read with joints= of four: (S, 5) returned, as above
    path = tmp_path / "log.csv"
    rows = "".join(",".join(map(repr, [k * 0.01, *([0.1 * k] * 5), *([1.0] * 5)])) + "\n" for k in range(30))
    path.write_text("t,q1,q2,q3,q4,q5,tau1,tau2,tau3,tau4,tau5\n" + rows, encoding="utf-8")
    with pytest.raises(bp.DataError, match="holds 5 joints' columns, the robot 4 joints"):
        bp.read_trajectory(path, joints=["a", "b", "c", "d"])
    traj = bp.read_trajectory(path, joints=["a", "b", "c", "d"], columns="t=0,q=1:5,tau=6:10")
    assert traj.q.shape == (30, 4)


@pytest.mark.parametrize("kind", KINDS)
def test_bag_streams_tied_on_messages_take_the_one_of_more_fields(tmp_path, kind):
    # every other message without its velocity: two streams of 15 messages; the one without velocities, decoded
    # first, set the times (14 samples, the velocities interpolated from the other's)
    messages, q, qd, tau = _full_and_stray(n_full=30, n_stray=0)
    messages = [m[:4] + ([], m[5]) if k % 2 == 0 else m for k, m in enumerate(messages)]
    traj = bp.read_trajectory(_bag(tmp_path, kind, messages), joints=["a", "b"])
    assert np.array_equal(traj.q, q[1::2]) and np.array_equal(traj.qd, qd[1::2]) and np.array_equal(traj.tau, tau[1::2])


@pytest.mark.parametrize("ext", [".csv", ".npz", ".h5", ".flat.parquet"])
def test_ordered_file_naming_another_joint_in_place_of_the_robots_is_refused(tmp_path, ext):
    # the file names a, b, c, d, e; the robot a, b, c, d, f: its fifth column, e by the file's word, went to f without
    # a word (a bag or a list column refuses f as not in the log)
    path = _named_log(tmp_path, ext)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=["a", "b", "c", "d", "f"])
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "f not among the file's" in message


@pytest.mark.parametrize("ext", [".csv", ".npz", ".h5", ".flat.parquet"])
def test_ordered_file_naming_none_of_the_robots_joints_still_reads(tmp_path, ext):
    # names of an unnamed export (joint1 … jointN) against a robot of its own names: read in order, as before
    path = _named_log(tmp_path, ext)
    assert bp.read_trajectory(path, joints=["s", "t", "u", "v", "w"]).q.shape == (30, 5)
