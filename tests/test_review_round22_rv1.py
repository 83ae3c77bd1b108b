"""Review of round twenty-two's readers (branch s22-fzread), helper rv1: each test fails on the code before its
fix."""
from __future__ import annotations

import numpy as np
import pytest

import baseparam as bp


def _messages(t, names, position=True, velocity=True, effort=True):
    """JointState messages naming ``names`` at times ``t``: joint j's position ``j + 0.1·k`` at message k, velocity
    ``0.5 + j``, effort ``1 + j`` (a field left empty when not given)."""
    from test_logs import _ns
    n = len(names)
    return [(int(_ns(t[k])), int(_ns(t[k])), names, [j + 0.1 * k for j in range(n)] if position else [],
             [0.5 + j for j in range(n)] if velocity else [], [1.0 + j for j in range(n)] if effort else [])
            for k in range(t.size)]


@pytest.mark.parametrize("topics, reading", [
    # a merged /joint_states of positions only (arm and gripper) beside the arm driver's topic, read for qd and tau
    ({"/joint_states": dict(names=["a", "b", "c", "g"], velocity=False, effort=False),
      "/arm/joint_states": dict(names=["a", "b", "c"])},
     dict(topic="/joint_states,/arm/joint_states", joints=["a", "b", "c"])),
    # a torque topic giving the positions too, read for tau only
    ({"/joint_states": dict(names=["a", "b", "c"], effort=False), "/torques": dict(names=["a", "b", "c"],
                                                                                   velocity=False)},
     dict(topic="/joint_states,/torques")),
    # the torques taken from /b by a TOPIC:FIELD map: the map says whose they are
    ({"/a": dict(names=["a", "b", "c"], effort=False), "/b": dict(names=["a", "b", "c"])},
     dict(topic="/a,/b", columns={"tau": "/b:effort"})),
])
def test_bag_topic_read_for_other_fields_is_not_a_second_source(tmp_path, topics, reading):
    # the joint's position came from one stream only, the other read for velocity or effort: refused as two
    # sources of the position by _refuse_two_sources (s22-fzread), these bags read before
    from test_logs import write_bag
    t = 1.0 + np.arange(50) / 100.0
    path = write_bag(tmp_path / "bag", "mcap", {topic: _messages(t, **spec) for topic, spec in topics.items()})
    log = bp.read_trajectory(path, **reading)
    assert np.array_equal(log.q, np.arange(3) + 0.1 * np.arange(50)[:, None])
    assert np.array_equal(log.qd, np.broadcast_to([0.5, 1.5, 2.5], (50, 3)))
    assert np.array_equal(log.tau, np.broadcast_to([1.0, 2.0, 3.0], (50, 3)))


def test_bag_joint_in_two_streams_read_for_its_field_is_still_refused(tmp_path):
    from test_logs import write_bag
    t = 1.0 + np.arange(50) / 100.0
    path = write_bag(tmp_path / "bag", "mcap", {"/joint_states": _messages(t, ["a", "b", "c"]),
                                                 "/gripper/joint_states": _messages(t, ["c", "g"])})
    with pytest.raises(bp.DataError, match=r"joint c: its position is in the messages of /joint_states naming a, b, "
                                           r"c and in those of /gripper/joint_states naming c, g; which is the "
                                           r"joint's is not known \(read one topic with topic=\)$"):
        bp.read_trajectory(path, topic="/joint_states,/gripper/joint_states", joints=["a", "b", "c", "g"])
