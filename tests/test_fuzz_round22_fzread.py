"""Fuzz round twenty-two (issue 28), readers: what the fzread helper's drivers found, each with a test that fails on
the code before its fix."""
from __future__ import annotations

import json

import numpy as np
import pytest

import baseparam as bp

JOINTS = ["a", "b", "c"]


def _lerobot(root, state_names, velocity_names, velocity_order=(0, 1, 2, 3)):
    """A LeRobot-like dataset of 4-value lists (the robot's three joints and a gripper, g): its velocity list stored
    in ``velocity_order`` and named ``velocity_names`` in meta/info.json. Returns the episode's path and the true
    (S, 4) velocities in the state's order."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    (root / "meta").mkdir(parents=True)
    (root / "data" / "chunk-000").mkdir(parents=True)
    features = {"observation.state": {"dtype": "float64", "shape": [4], "names": state_names},
                "observation.velocity": {"dtype": "float64", "shape": [4], "names": velocity_names}}
    (root / "meta" / "info.json").write_text(json.dumps({"features": features}), encoding="utf-8")
    t = np.arange(60) / 100.0
    q = np.column_stack([np.sin(t * (k + 1)) + k for k in range(4)])
    qd = np.column_stack([10.0 * k + np.cos(t * (k + 1)) for k in range(4)])
    path = root / "data" / "chunk-000" / "episode_000000.parquet"
    pq.write_table(pa.table({"timestamp": t, "observation.state": list(q),
                             "observation.velocity": list(qd[:, list(velocity_order)]),
                             "observation.effort": list(q)}), path)
    return path, qd


@pytest.mark.parametrize("velocity_names", [
    ["b", "a", "c", "wrist"],                   # the state's joints reordered, with another joint among them
    ["b", "b", "c", "g"],                       # a joint named twice
    ["b", "a", "c"],                            # fewer names than values
    ["b.vel", "a.vel", "c.vel", "x.vel"],       # LeRobot's suffixes
])
def test_lerobot_list_naming_a_joint_at_another_place_is_refused(tmp_path, velocity_names):
    # the velocity list's own names put b first: read in the state's order, b's velocity went to joint a, exit 0
    state = ["a.pos", "b.pos", "c.pos", "g.pos"] if "." in velocity_names[0] else ["a", "b", "c", "g"]
    path, _ = _lerobot(tmp_path, state, velocity_names, velocity_order=(1, 0, 2, 3))
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=JOINTS)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "observation.velocity" in message
    assert "at value 1" in message and "observation.state" in message


@pytest.mark.parametrize("velocity_names, order", [
    (["a", "b", "c", "g"], (0, 1, 2, 3)),           # the state's names
    (["b", "a", "c", "g"], (1, 0, 2, 3)),           # the state's names in another order: read by them
    (["m1", "m2", "m3", "m4"], (0, 1, 2, 3)),       # names of their own (motors): in the state's order, as before
    (["a", "b", "x", "g"], (0, 1, 2, 3)),           # the state's joints at their places, another among them
])
def test_lerobot_lists_named_alike_or_otherwise_still_read(tmp_path, velocity_names, order):
    path, qd = _lerobot(tmp_path, ["a", "b", "c", "g"], velocity_names, velocity_order=order)
    assert np.array_equal(bp.read_trajectory(path, joints=JOINTS).qd, qd[:, :3])


def _wrench_log(path, eol, bad_row):
    """A CSV log of 40 samples with a wrench beside the joints, its lines ended by ``eol``, q1 NaN in ``bad_row``:
    each wrench value its row's number (so that a row taken for another shows)."""
    t = np.arange(40) * 0.01
    q = np.column_stack([np.sin(t), np.cos(t), t])
    lines = ["t,q1,q2,q3,tau1,tau2,tau3,fx,fy,fz,mx,my,mz"]
    for k in range(40):
        values = [t[k], *q[k], *q[k], *(k + 100.0 * np.arange(6))]
        values[1] = float("nan") if k == bad_row else values[1]
        lines.append(",".join(repr(float(v)) for v in values))
    path.write_bytes((eol.join(lines) + eol).encode())
    return path


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r\r\n", "\r"])
def test_wrench_rows_dropped_with_the_trajectory_are_the_same_lines(tmp_path, eol):
    # lines ended \r\r\n (Python's csv writer on Windows) were numbered twice as far by the wrench's csv split: the
    # line the trajectory dropped (q1 NaN, line 23) was another row of the wrench's, which then lagged the motion by a
    # sample over rows 10–20, at exit 0
    from baseparam.identification.payload_wrench import log_wrench
    path = _wrench_log(tmp_path / "log.csv", eol, bad_row=21)
    log = bp.read_trajectory(path, skip_bad_rows=True)
    assert log.n_samples == 39 and [line for line, _ in log.skipped] == [23]
    kept, wrench = log_wrench(path, "fx,fy,fz,mx,my,mz", log, skip_bad_rows=True)
    assert np.array_equal(wrench[:, 0], np.round(kept.t / 0.01))


def test_wrench_quoted_field_running_on_is_one_line(tmp_path):
    from baseparam.identification.payload_wrench import read_wrench
    path = tmp_path / "log.csv"
    path.write_text('fx,fy,fz,mx,my,mz\n"1,2,3,4,5,6\n' + "1,2,3,4,5,6\n" * 20, encoding="utf-8")
    with pytest.raises(bp.DataError, match=r"log.csv: wrench: line 2: a quoted field runs on"):
        read_wrench(path, "fx,fy,fz,mx,my,mz")


def test_gains_from_targets_pairs_torque_and_current_of_one_time(tmp_path):
    # --skip-bad-rows dropped row 100 (its target torque damaged) from the torque's read and row 120 (its target
    # current) from the current's: two reads of one count, paired in order, one sample apart over rows 100–119 —
    # gains 0.2–0.5 % off and an RMSE of 7 mA where the controller's map is exact, exit 0
    from baseparam.cli import _controller_gains
    t = np.arange(300) * 0.01
    q = np.column_stack([np.sin(t * (k + 1)) for k in range(3)])
    qd = np.column_stack([(k + 1) * np.cos(t * (k + 1)) for k in range(3)])
    torque = np.column_stack([5 * np.sin(3 * t + k) + 2 * np.cos(7 * t) for k in range(3)])
    gains = np.array([10.0, 12.0, 8.0])
    current = torque / gains + 0.1 * np.sign(qd) + 0.05 * qd
    rows = [[repr(float(v)) for v in row] for row in np.column_stack([t, q, qd, torque, current])]
    rows[100][7], rows[120][10] = "nan", "nan"
    path = tmp_path / "log.csv"
    path.write_text("t,q1,q2,q3,qd1,qd2,qd3,m1,m2,m3,c1,c2,c3\n" + "\n".join(map(",".join, rows)) + "\n",
                    encoding="utf-8")
    reading = {"skip_bad_rows": True, "topic": None, "clock": "header", "joints": None, "robot": None}
    found = _controller_gains([str(path)], None, "tau=7:10,current=10:13", reading)
    assert found.n_samples == 298
    assert np.allclose(found.gains, gains, rtol=1e-12) and found.rmse.max() < 1e-12


def _joint_state_messages(t, names, offset):
    """Messages of a JointState topic naming ``names`` at times ``t``: joint j's position ``offset + j + 0.1·k`` at
    message k."""
    from test_logs import _ns
    return [(int(_ns(t[k])), int(_ns(t[k])), names, [offset + j + 0.1 * k for j in range(len(names))],
             [0.0] * len(names), [1.0] * len(names)) for k in range(t.size)]


@pytest.mark.parametrize("topic", ["/arm,/extra", "/extra,/arm"])
def test_bag_joint_in_two_used_topics_is_refused(tmp_path, topic):
    # /extra is read for joint d, and names a too (another value): a's position was /arm's, silently, by the topics'
    # counts of joints
    from test_logs import write_bag
    t = 1.0 + np.arange(100) / 100.0
    path = write_bag(tmp_path / "bag", "mcap", {"/arm": _joint_state_messages(t, ["a", "b", "c"], 0.0),
                                                 "/extra": _joint_state_messages(t, ["a", "d"], 100.0)})
    with pytest.raises(bp.DataError, match=r"joint a: its position is in the messages of /arm naming a, b, c and in "
                                           r"those of /extra naming a, d; which is the joint's is not known"):
        bp.read_trajectory(path, joints=["a", "b", "c", "d"], topic=topic)
    # the joints of one topic each: read as before
    both = bp.read_trajectory(path, joints=["b", "c", "d"], topic=topic)
    assert np.array_equal(both.q[:, 2], 101.0 + 0.1 * np.arange(100))


def test_bag_stream_of_fewer_joints_left_unused_still_reads(tmp_path):
    # a driver naming a, b, c before it named a, b, c, d: those messages are not used (noted), not a second source
    from test_logs import write_bag
    t = 1.0 + np.arange(120) / 100.0
    early = _joint_state_messages(t[:20], ["a", "b", "c"], 0.0)
    late = _joint_state_messages(t[20:], ["a", "b", "c", "d"], 0.0)
    path = write_bag(tmp_path / "bag", "mcap", {"/joint_states": early + late})
    log = bp.read_trajectory(path, joints=["a", "b", "c", "d"])
    assert log.n_samples == 100 and any("not used" in note for note in log.notes)


@pytest.mark.parametrize("field, attribute, unit", [
    ("q", "units", "deg"), ("q", "Units", np.array([b"degrees"])), ("t", "unit", "ms"), ("qd", "units", "deg/s"),
    ("tau", "units", "N mm"), ("t", "units", "milliseconds since 1970-01-01"), ("q", "units", "counts"),
    ("qd", "units", "rev/s"), ("tau", "units", "Ncm"), ("tau", "units", "%"), ("q", "units", "seconds"),
])
def test_h5_dataset_declaring_another_unit_is_refused(tmp_path, field, attribute, unit):
    # a q dataset marked units = "deg" was read as radians, exit 0, where a CSV's 'q1 [deg]' is refused
    import h5py
    t = np.arange(40) * 0.01
    q = np.column_stack([np.sin(t), np.cos(t), t])
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"], f["q"], f["qd"], f["tau"] = t, q, q, q
        f[field].attrs[attribute] = unit
    with pytest.raises(bp.DataError, match=rf"log.h5: field {field} \(key {field}\): attribute {attribute} = '.*': "
                                           "that unit is not accepted"):
        bp.read_trajectory(path)
    spelled = {"t": "seconds", "q": "Radians", "qd": "rad/sec", "tau": "newton meters"}[field]
    with h5py.File(path, "a") as f:        # SI, another spelling of it, an empty text or no text: read as before
        for value in ("rad" if field == "q" else "s" if field == "t" else "rad/s" if field == "qd"
                      else "N m", spelled, "", 5):
            f[field].attrs[attribute] = value
            assert np.array_equal(bp.read_trajectory(path).t, t)


@pytest.mark.parametrize("order", [[1, 0, 2, 3, 4, None], [0, 0, 2, 3, 4, 5]])
def test_floating_parquet_naming_a_joint_at_another_place_is_refused(space, tmp_path, order):
    # metadata joint_names [joint2, joint1, …, gripper] (or joint1 twice): not the robot's names reordered, so the
    # columns were read in the file's order, joint2's going to joint1, exit 0 (a CSV's or NPZ's names are checked)
    import dataclasses
    import json

    import pyarrow.parquet as pq
    from conftest import ROOT
    from baseparam.identification.floating_logs import write_floating
    from baseparam.model.robot import joint_names
    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    own = list(joint_names(robot.joints))
    path = tmp_path / "log.parquet"
    write_floating(dataclasses.replace(space.log, joint_names=tuple(own)), path, ())
    table = pq.read_table(path)
    metadata = dict(table.schema.metadata)
    listed = [own[k] if k is not None else "gripper" for k in order]
    metadata[b"baseparam.floating"] = json.dumps({"joint_names": listed, "contacts": []}).encode()
    pq.write_table(table.replace_schema_metadata(metadata), path)
    with pytest.raises(bp.DataError, match=r"log.parquet: the file names its joints joint2|joint1, joint1"):
        bp.read_trajectory(path, robot=robot)
    metadata[b"baseparam.floating"] = json.dumps({"joint_names": own[::-1], "contacts": []}).encode()
    pq.write_table(table.replace_schema_metadata(metadata), path)       # the robot's names reordered: by name
    assert np.array_equal(bp.read_trajectory(path, robot=robot).q[:, 7:], space.log.q[:, :6:-1])


def test_gains_from_targets_refuses_torque_and_current_at_other_times(tmp_path, monkeypatch):
    # paired by time, two reads whose times differ (commanded torque and current on two clocks) kept what happened to
    # coincide: the gains fitted on a few samples, or on none, without a word
    import dataclasses

    import baseparam.identification.trajectory as trajectory
    from baseparam.cli import _controller_gains
    t = np.arange(300) * 0.01
    q = np.column_stack([np.sin(t * (k + 1)) for k in range(3)])
    qd = np.column_stack([(k + 1) * np.cos(t * (k + 1)) for k in range(3)])
    torque = np.column_stack([5 * np.sin(3 * t + k) + 2 * np.cos(7 * t) for k in range(3)])
    rows = [[repr(float(v)) for v in row] for row in np.column_stack([t, q, qd, torque, torque / 10])]
    path = tmp_path / "log.csv"
    path.write_text("t,q1,q2,q3,qd1,qd2,qd3,m1,m2,m3,c1,c2,c3\n" + "\n".join(map(",".join, rows)) + "\n",
                    encoding="utf-8")
    read = trajectory.read_trajectory

    def current_later(source, columns, **options):     # the current's read on a clock 5 ms later
        log = read(source, columns=columns, **options)
        return dataclasses.replace(log, t=log.t + 0.005) if "current" in columns else log

    monkeypatch.setattr(trajectory, "read_trajectory", current_later)
    reading = {"skip_bad_rows": False, "topic": None, "clock": "header", "joints": None, "robot": None}
    with pytest.raises(SystemExit) as stop:
        _controller_gains([str(path)], None, "tau=7:10,current=10:13", reading)
    assert stop.value.code == 2
