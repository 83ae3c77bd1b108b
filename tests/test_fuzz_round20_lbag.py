"""Fuzz round twenty, the readers (issues 28, 22, 25): stop 44's leftovers — MCAP files and ROS 1 bags read through a
memory map (a file cut by another process while read: SIGBUS), …"""
import os

import numpy as np
import pytest

import baseparam as bp

NAMES = ["shoulder", "elbow", "wrist"]


def joint_state_bag(path, kind, count):
    """A bag of ``count`` JointState messages written by rosbags (test_logs' writer), some 200 bytes each."""
    from test_logs import write_bag
    t = 1.0 + np.arange(count) / 500.0
    ns = np.round(t * 1e9).astype(np.int64)
    q = np.sin(t[:, None] * [1.0, 1.3, 0.7])
    return write_bag(path, kind, {"/joint_states": [(int(ns[k]), int(ns[k]), NAMES, q[k], q[k], q[k])
                                                    for k in range(count)]})


@pytest.mark.parametrize("kind", ["mcap", "ros1"])
def test_a_bag_cut_by_another_process_while_read_is_refused_not_a_signal_death(tmp_path, monkeypatch, kind):
    # MCAP files and ROS 1 bags were walked through a memory map: a file another process cut short after it was
    # mapped killed the reader by SIGBUS at the first page past its new end (exit -7 on the old code). The file is cut
    # here to 4 kB as the reader handles its first chunk (MCAP) or its first record (ROS 1: the bag header)
    from baseparam.identification import _bag_files, _mcap
    from test_fuzz_round15_fdat import refused_in_a_child
    bag = joint_state_bag(tmp_path / ("log.bag" if kind == "ros1" else "bag"), kind, 3000)
    path = bag if kind == "ros1" else next(bag.glob("*.mcap"))
    assert path.stat().st_size > 1 << 19           # far more than a read window (64 kB)

    def cut_first(function):
        def cut(*args):
            if path.stat().st_size > 4096:
                os.truncate(path, 4096)
            return function(*args)
        return cut
    if kind == "mcap":
        monkeypatch.setattr(_mcap, "_decompress", cut_first(_mcap._decompress))
    else:
        monkeypatch.setattr(_bag_files, "_ros1_index_record", cut_first(_bag_files._ros1_index_record))
    code, said = refused_in_a_child(lambda: bp.read_trajectory(bag, joints=NAMES))
    assert code == 3, (code, said)
    what = "MCAP" if kind == "mcap" else "a ROS bag"
    assert said.startswith(f"{path}: cannot read as {what}: the file was cut while it was read"), said
