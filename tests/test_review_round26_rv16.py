"""Round 26, helper rv16: review of lrd7 (the readers' new damage rules) for false refusals of valid logs.

Realistic logs (a late-joining subscriber, drops, a recorder started before the driver, bursts, a simulation paused,
two arms on one topic, grippers, vibrating joints, the real UR10e and KUKA logs through every writer) were read with
the code before lrd7 (7423a203) and after: bit-identical but for the cases below."""
import numpy as np
import pytest

import baseparam as bp
from baseparam.identification import _bags
from test_logs import write_bag
from test_review_round25_rv10 import _motion

BAG_KINDS = ["mcap", "sqlite3", "ros1"]
JOINTS = ["a", "b"]


def _messages(stamps, received):
    return [(int(round(r * 1e9)), int(round(s * 1e9)), JOINTS, [0.001 * k, -0.001 * k], [1.0, 1.0], [2.0, 2.0])
            for k, (s, r) in enumerate(zip(stamps, received))]


def _bag(tmp_path, kind, name):
    return tmp_path / (f"{name}.bag" if kind == "ros1" else name)


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_a_paused_simulation_read_on_receive_times_is_read_as_before(tmp_path, kind):
    """Gazebo paused after the first message and before the last: the header stamps (simulation time from 12.3 s)
    run on, the recorder's wall clock (since 1970) pauses 4 s and 3 s. Read on receive times, the first and last
    messages were refused as damaged receive times since lrd7 (their stamps show no pause): the two clocks are not
    one timeline, and the pauses are the receive times' own. Read as before: every message, the pauses kept."""
    stamps = 12.3 + 0.001 * np.arange(200)
    received = 1.7e9 + 0.001 * np.arange(200) + 4.0 * (np.arange(200) > 0) + 3.0 * (np.arange(200) == 199)
    path = write_bag(_bag(tmp_path, kind, "paused"), kind, {"/joint_states": _messages(stamps, received)})
    traj = bp.read_trajectory(path, joints=JOINTS, clock="receive")
    assert traj.t.size == 200 and traj.skipped == ()
    assert np.allclose(traj.t, received, rtol=0, atol=1e-6)
    assert traj.t[1] - traj.t[0] > 4 and traj.t[-1] - traj.t[-2] > 3
    traj = bp.read_trajectory(path, joints=JOINTS)            # on the stamps: no pause, read as before
    assert traj.t.size == 200 and np.ptp(traj.t) < 0.2


@pytest.mark.parametrize("kind", BAG_KINDS)
def test_a_receive_time_apart_on_the_stamps_timeline_is_still_damaged(tmp_path, kind):
    """The rule lrd7 added holds where the clocks are one timeline: the last receive time 64 s after the others,
    its stamp among them (a robot's wall clock on both)."""
    stamps = 1.7e9 + 0.01 * np.arange(40)
    received = stamps + 0.002 + 64.0 * (np.arange(40) == 39)
    path = write_bag(_bag(tmp_path, kind, "late"), kind, {"/joint_states": _messages(stamps, received)})
    with pytest.raises(bp.DataError, match=r"message 39: damaged JointState \(receive time .* a damaged time\)"):
        bp.read_trajectory(path, joints=JOINTS, clock="receive")


# -- the two-publisher detector's split, judged a run of messages at a time --------------------------------------------

def _two_series_a_message_at_a_time(values):
    """lrd7's split (9265968f), a message at a time in Python floats: the reference the faster one must equal."""
    rows, before = values.tolist(), _bags._largest_gaps(values).tolist()
    last, series, current = [0, -1], bytearray(len(rows)), 0
    for k in range(1, len(rows)):
        other = last[1 - current]
        if other < 0:
            nearest = int(before[k] > _bags._SERIES_GAP)
        else:
            gap = max([abs(x - y) for x, y in zip(rows[k], rows[other])])
            first, second = (before[k], gap) if current == 0 else (gap, before[k])
            nearest = int(second < first)
        last[nearest], current, series[k] = k, nearest, nearest
    series = np.frombuffer(series, dtype=np.uint8)
    returns = int((np.diff(series) != 0).sum()) // 2
    ok = returns >= _bags._MIN_RETURNS and min(np.bincount(series, minlength=2)) >= _bags._MIN_RETURNS
    return series if ok else None


def _split_cases():
    rng = np.random.default_rng(26)
    t = np.arange(3000) * 0.002
    yield _motion(t, 7) + rng.normal(0, 0.005, (t.size, 7))               # noise: spikes all along
    two = _motion(t, 3)
    two[::3] = 0.0                                                          # a second publisher of zeros
    yield two
    near = _motion(t, 2)
    near[:, 1] += 0.03 * np.sin(np.pi * 0.95 * np.arange(t.size))          # a joint vibrating near Nyquist
    yield near
    gripper = np.column_stack([_motion(t, 2), 0.8 * (np.arange(t.size) % 2)])     # toggled at every sample
    yield gripper
    for _ in range(300):
        m, n = int(rng.integers(1, 60)), int(rng.integers(1, 4))
        values = np.round(rng.normal(0, 0.02, (m, n)).cumsum(axis=0), int(rng.integers(1, 4)))   # ties
        values[rng.uniform(size=values.shape) < 0.05] = np.nan
        values[rng.uniform(size=values.shape) < 0.02] = np.inf * rng.choice([-1, 1])
        yield values


def test_the_split_by_runs_equals_the_split_a_message_at_a_time():
    """The split took 2 µs a message in Python: 1.3 s of a noisy 10⁶-message log, each window split. Judged a run of
    messages at a time, its series are the same (noise, a second publisher, a joint near Nyquist, a gripper toggled,
    300 random walks with ties, NaN and infinities; inf - inf is NaN without numpy's warning, as in Python floats)."""
    for values in _split_cases():
        mine, reference = _bags._two_series(values), _two_series_a_message_at_a_time(values)
        assert (mine is None) == (reference is None)
        assert mine is None or np.array_equal(mine, reference)


# -- header stamps damaged alike, side by side ----------------------------------------------------------------------

@pytest.mark.parametrize("kind", BAG_KINDS)
def test_two_header_stamps_flipped_alike_side_by_side_are_damaged(tmp_path, kind):
    """Messages 12 and 13 of 40 at 100 Hz, both stamps' seconds with bit 3 flipped (8 s back): each had the other as a
    neighbour, so neither stood apart from both (lrd7's rule); both were sorted to the start of the log with a note
    only, two samples 8 s before the motion. Now damaged, named with the stamps of the messages around the two."""
    stamps = 1000.0 + 0.01 * np.arange(40)
    stamps[12:14] -= 8.0
    path = write_bag(_bag(tmp_path, kind, "two"), kind, {"/joint_states": _messages(stamps, 1000.0 + 0.01 *
                                                                                    np.arange(40))})
    with pytest.raises(bp.DataError, match=r"message 12: damaged JointState \(header stamp 992.12 s, 7.99 s from the "
                                           r"messages received next to it \(1000.11 s, 1000.14 s\).*; 1 more damaged"):
        bp.read_trajectory(path, joints=JOINTS)
    traj = bp.read_trajectory(path, joints=JOINTS, skip_bad_rows=True)
    assert [k for k, _ in traj.skipped] == [12, 13] and traj.t.size == 38 and np.ptp(traj.t) < 0.4
    stamps[12:14] = stamps[13] + 8.0, stamps[12] + 8.0      # neighbours swapped, as transport jitter: read as before
    traj = bp.read_trajectory(write_bag(_bag(tmp_path, kind, "jitter"), kind, {"/joint_states": _messages(
        stamps, 1000.0 + 0.01 * np.arange(40))}), joints=JOINTS)
    assert traj.t.size == 40 and traj.skipped == ()
