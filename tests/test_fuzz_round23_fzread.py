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
