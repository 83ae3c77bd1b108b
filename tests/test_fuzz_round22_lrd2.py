"""Round 22, helper lrd2: the log readers' silent wrong answers (issue 28)."""

import warnings

import numpy as np
import pytest

from baseparam.errors import DataWarning
from baseparam.identification.trajectory import read_trajectory

S, N = 40, 2


def _csv(tmp_path, ending):
    rng = np.random.default_rng(3)
    t = 0.5 + np.cumsum(rng.uniform(0.005, 0.015, S))
    q = np.sin(np.outer(t, [1.1, 0.7]))
    tau = rng.normal(0, 20, (S, N))
    lines = ["t,q1,q2,tau1,tau2"] + [",".join(repr(float(v)) for v in row) for row in np.column_stack([t, q, tau])]
    path = tmp_path / "log.csv"
    path.write_text("\n".join(lines) + ending)
    return path


def test_csv_cut_inside_its_last_value_is_said():
    """A log killed mid-write, cut inside its last value: the last line has no line end and its shortened number
    was read as a valid sample at exit 0 without a word (218 of 8 450 cut points of the fuzzer)."""
    import pathlib
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = _csv(pathlib.Path(folder), "")
        path.write_text(path.read_text()[:-4])            # the last value cut short
        with pytest.warns(DataWarning, match=rf"log.csv: line {S + 1}: the last line has no line end: a log cut off "
                                             r"mid-write\? its values are read as they stand"):
            read_trajectory(path)


def test_csv_with_its_line_end_reads_silently(tmp_path):
    path = _csv(tmp_path, "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_trajectory(path)


def test_fixed_format_log_without_line_end_reads_silently_whole_and_warns_cut(tmp_path):
    """A fixed format ('%.4f', as the UR logs are written, without a final line end) shows a whole last line; a cut
    inside its last value loses digits or the point: warned ('-0.02' of '-0.0231')."""
    rng = np.random.default_rng(4)
    t = 0.5 + 0.01 * np.arange(S)
    table = np.column_stack([t, rng.normal(0, 1, (S, 2 * N))])
    text = "t,q1,q2,tau1,tau2\n" + "\n".join(",".join(f"{v:.4f}" for v in row) for row in table)
    path = tmp_path / "fixed.csv"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        whole = read_trajectory(path)
    for cut in (1, 2, 4, 5):
        path.write_text(text[:-cut])
        with pytest.warns(DataWarning, match=rf"fixed.csv: line {S + 1}: the last line has no line end"):
            read_trajectory(path)
    assert whole.tau[-1, -1] == float(f"{table[-1, -1]:.4f}")


def test_wrench_csv_cut_inside_its_last_value_is_said(tmp_path):
    from baseparam.identification._text import text_lines
    with pytest.warns(DataWarning, match=r"w.csv: line 3: the last line has no line end"):
        text_lines("fx,fy\n1.25,2.5\n1.5,2.12", "w.csv")


def lagged_bag(path, t, q, lag, topic, msgtype, message):
    """A ROS 2 MCAP bag at ``path``: JointState positions ``q`` stamped ``t`` on /joint_states and ``message(k)`` (of
    ``msgtype``) on ``topic``, both received ``lag`` seconds after ``t``."""
    from rosbags.rosbag2 import StoragePlugin, Writer
    from test_logs import NAMES, _message, _ns, _typestore

    ts = _typestore()
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        js = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        other = writer.add_connection(topic, msgtype, typestore=ts)
        for k in range(t.size):
            recv = int(_ns(t[k] + lag))
            writer.write(js, recv, ts.serialize_cdr(_message(ts, int(_ns(t[k])), NAMES, q[k], [], []),
                                                    "sensor_msgs/msg/JointState"))
            writer.write(other, recv, ts.serialize_cdr(message(k), msgtype))
    return path


def test_bag_topics_on_two_clocks_are_read_on_one(tmp_path):
    """JointState with header stamps, motor currents as Float64MultiArray (no header: receive times) received 5 ms
    after their samples: the currents, on the receive clock, were interpolated at the header stamps of the joint
    states, 5 ms off, with only a note that the receive times were used. Now every topic is read on its receive
    times (one clock), said in a note naming both topics."""
    from test_logs import NAMES, _typestore

    ts = _typestore()
    F, L = ts.types["std_msgs/msg/Float64MultiArray"], ts.types["std_msgs/msg/MultiArrayLayout"]
    t = 1.0 + np.arange(300) / 500.0
    rng = np.random.default_rng(5)
    q, tau = np.sin(np.outer(t, [1.0, 2.0, 3.0])), rng.normal(0, 5, (t.size, 3))
    lag = 0.005
    path = lagged_bag(tmp_path / "bag", t, q, lag, "/motor_currents", "std_msgs/msg/Float64MultiArray",
                      lambda k: F(layout=L(dim=[], data_offset=0), data=np.ascontiguousarray(tau[k])))
    traj = read_trajectory(path, joints=NAMES, columns={"current": "/motor_currents:data"}, gains=1.0)
    assert np.allclose(traj.t, t + lag, rtol=0, atol=1e-9)
    assert np.array_equal(traj.q, q) and np.array_equal(traj.tau, tau)      # each current with its own sample
    note = next(n for n in traj.notes if "one clock" in n)
    assert "/joint_states read on receive times, not header stamps, as /motor_currents has none" in note


def test_floating_bag_wrench_without_stamps_is_read_on_one_clock(space, tmp_path):
    """WrenchStamped with zero stamps fell back to receive times (4 ms late) while the joint states and the base kept
    their header stamps: each wrench interpolated at the joint sample 4 ms before its own. Now all topics are read
    on their receive times, with a note naming them and their clocks."""
    import baseparam as bp
    from conftest import ROOT
    from test_floating_logs import rosbags_bag

    robot, log = bp.load_robot(ROOT / "robots" / "space_robot.yaml"), space.log
    a, b = np.arange(6.0), np.linspace(-1, 1, 6)
    plates = {"/left/wrench": (log.t, a + np.outer(log.t, b))}
    bag = rosbags_bag(tmp_path / "bag", log.t, log.q, log.qd, wrenches=plates, receive_lag=0.004)
    traj = bp.read_trajectory(bag, robot=robot, contacts={"left": "/left/wrench"})
    np.testing.assert_allclose(traj.t, log.t + 0.004, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(traj.q, log.q)
    np.testing.assert_allclose(traj.wrenches[:, 0], a + np.outer(log.t, b), rtol=0, atol=1e-9)
    note = next(n for n in traj.notes if "one clock" in n)
    assert "as /left/wrench has none" in note and "/base" in note


def test_payload_wrench_of_a_log_read_with_a_delay_is_refused_saying_why(tmp_path):
    """A log read with a delay loses samples at its ends, its wrench (read from the file) does not: log_wrench
    returned the wrench whole and identify_payload said "expected shape (34, 6) … got (39, 6)" without the cause
    (log_wrench checked the counts only when it dropped rows itself). Refused in one line naming the delay; the
    delay-free read is fitted as before."""
    import baseparam as bp
    from baseparam.errors import DataError
    from baseparam.identification.payload import identify_payload
    from baseparam.identification.payload_wrench import log_wrench

    from conftest import ROOT
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    t = np.arange(39) * 0.01
    q = 0.3 * np.sin(np.outer(t, np.arange(1, 7)))
    w = np.column_stack([np.full(39, 1.0), np.zeros(39), np.full(39, -19.6), np.zeros((39, 3))])
    header = ",".join(["t"] + [f"q{j}" for j in range(1, 7)] + [f"tau{j}" for j in range(1, 7)]
                      + ["fx", "fy", "fz", "mx", "my", "mz"])
    path = tmp_path / "ft.csv"
    np.savetxt(path, np.column_stack([t, q, np.zeros((39, 6)), w]), delimiter=",", header=header, comments="")
    delayed = read_trajectory(path, delay=0.025)
    assert delayed.n_samples < 39
    hint = r"a delay \(read_trajectory's delay=\) drops samples at the log's ends, not from its wrench"
    with pytest.raises(DataError, match=rf"ft.csv: wrench: 39 rows, but the trajectory has {delayed.n_samples} "
                                        rf"samples; {hint}"):
        log_wrench(path, "fx,fy,fz,mx,my,mz", delayed)
    with pytest.raises(DataError, match=rf"expected shape \({delayed.n_samples}, 6\) \(one row per sample\), got "
                                        rf"\(39, 6\); {hint}"):
        identify_payload(robot, delayed, wrench=w)
    log, wrench = log_wrench(path, "fx,fy,fz,mx,my,mz", read_trajectory(path))
    assert np.array_equal(wrench, w) and log.n_samples == 39


@pytest.mark.parametrize("skip", [False, True])
def test_lerobot_parquet_of_several_episodes_is_refused_naming_them(tmp_path, skip):
    """LeRobot v3 writes many episodes to one file, times restarting at each: refused as "time goes backwards", or
    with skip_bad_rows every episode after the first dropped as damaged rows, no message naming episodes. Refused in
    one line naming the episode count and how to read one; a file of one episode reads as before."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.errors import DataError

    S = 30
    t = np.tile(np.arange(S) * 0.01, 3)
    q = np.sin(np.outer(t, [1.0, 2.0]) + np.repeat(np.arange(3), S)[:, None])
    tau = np.cos(np.outer(t, [1.0, 3.0]))
    episode = np.repeat([0, 1, 2], S)

    def write(path, rows):
        pq.write_table(pa.table({"timestamp": t[rows], "observation.state": list(q[rows]),
                                 "observation.effort": list(tau[rows]), "episode_index": episode[rows]}), path)
        return path

    several = write(tmp_path / "all.parquet", slice(None))
    with pytest.raises(DataError, match=r"all.parquet: column episode_index: 3 episodes \(0, 1, 2\) in one file, "
                                        r"each with its own times; .*write each episode to its own file") as err:
        read_trajectory(several, skip_bad_rows=skip)
    assert "\n" not in str(err.value)
    one = read_trajectory(write(tmp_path / "one.parquet", slice(S, 2 * S)), skip_bad_rows=skip)
    assert np.array_equal(one.q, q[S:2 * S]) and np.array_equal(one.t, t[S:2 * S])
