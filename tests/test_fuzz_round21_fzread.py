"""Fuzz round twenty-one (issue 28), readers: what the fzread helper's drivers found, each with a test that fails on
the code before its fix."""
from __future__ import annotations

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT

NAMES = ["shoulder", "elbow", "wrist"]


@pytest.fixture(scope="module")
def named_arm_file(tmp_path_factory):
    """The planar 3R arm's description, its joints named shoulder, elbow, wrist."""
    text = (ROOT / "robots" / "planar_rrr.yaml").read_text(encoding="utf-8")
    for name in NAMES:
        text = text.replace("d: 0}", f"d: 0, name: {name}" + "}", 1)
    path = tmp_path_factory.mktemp("arm") / "arm.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def named_arm(named_arm_file):
    """The planar 3R arm, its joints named shoulder, elbow, wrist."""
    robot = bp.load_robot(named_arm_file)
    assert [j.name for j in robot.joints] == NAMES
    return robot


def _log(path, names):
    """A 3-joint log of 40 samples whose file names its joints ``names`` (in its own way per format)."""
    t = 1.0 + np.arange(40) * 0.01
    q = np.column_stack([np.sin(t), np.cos(t), 0.5 * t])
    if path.suffix == ".npz":
        np.savez(path, t=t, q=q, qd=q, tau=q, joint_names=np.array(names))
    elif path.suffix == ".h5":
        import h5py
        with h5py.File(path, "w") as h5:
            for key in ("t", "q", "qd", "tau"):
                h5[key] = t if key == "t" else q
            h5["joint_names"] = np.array([name.encode() for name in names])
    else:
        rows = "".join(",".join(map(repr, [float(t[k]), *map(float, q[k])])) + ",1,2,3\n" for k in range(t.size))
        path.write_text(f"# joints: {', '.join(names)}\nt,q1,q2,q3,tau1,tau2,tau3\n{rows}", encoding="utf-8")
    return path


@pytest.mark.parametrize("ext", [".npz", ".h5", ".csv"])
@pytest.mark.parametrize("names", [["wrist", "elbow", "base"], ["shoulder", "shoulder", "wrist"],
                                   ["base", "shoulder", "elbow"]])
def test_log_naming_a_robot_joint_at_another_place_refused(named_arm, tmp_path, ext, names):
    """A log read in its columns' order that names one of the robot's joints at another place, among names that are
    not all the robot's (another joint, or one named twice): only a permutation of the robot's names was refused, so
    the column the file calls wrist went to the robot's shoulder without a word (exit 0). Refused as a permutation
    is, in one line naming the file."""
    path = _log(tmp_path / f"log{ext}", names)
    with pytest.raises(bp.DataError, match="in this order, the robot shoulder, elbow, wrist") as caught:
        bp.read_trajectory(path, robot=named_arm)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("names", [["a", "b", "c"], NAMES + ["gripper"]])
def test_log_naming_other_joints_or_more_after_the_robots_still_read(named_arm, tmp_path, names):
    """Names none of which is the robot's, or the robot's in its order followed by more: read, as before."""
    traj = bp.read_trajectory(_log(tmp_path / "log.npz", names), robot=named_arm)
    assert traj.q.shape == (40, 3)


@pytest.mark.parametrize("step", [1e-300, 5e-324, 1e-7])
def test_log_of_an_absurdly_small_time_step_refused_naming_the_file(tmp_path, step):
    """A log whose times are 1e-300 s apart (a unit gone wrong): the accelerations differentiated from it (1e297) were
    refused only by the dynamics, as "qdd: absurd value … at sample 0, joint 1" with no file named (identify, payload
    of several logs: which one?); at a subnormal step numpy's overflow warnings came first (under -W error, blamed on
    the robot file). A median step below a microsecond is refused as one above 0.5 s is."""
    t = np.arange(40) * step
    path = tmp_path / "log.csv"
    rows = "".join(f"{float(t[k])!r},{float(np.sin(k * 0.1))!r},0.0,{float(np.cos(k * 0.1))!r},0.0,1.0,2.0\n"
                   for k in range(40))
    path.write_text("t,q1,q2,qd1,qd2,tau1,tau2\n" + rows, encoding="utf-8")
    traj = bp.read_trajectory(path)
    with pytest.raises(bp.DataError, match=rf"field t: median time step {step:.4g} s is implausible .*< 1e-06 s") as c:
        bp.preprocess(traj, bp.Preprocessing(cutoff_hz=None, rest_velocity=None))
    assert str(c.value).startswith(str(path)) and "\n" not in str(c.value)


@pytest.mark.parametrize("start", [0.0, 1000.0, 1e5])
def test_log_of_a_one_megahertz_step_read(start):
    """A 1 MHz log (steps of 1 µs, the bound: "below 1 µs, above a MHz" is refused) whose stamps start at 1000 s:
    their rounding makes its median step 0.99999999747e-6 s, which was refused as "1e-06 s … (< 1e-06 s)". The
    positions' derived rates are those of the sine written (cos, at 1e-6 relative)."""
    t = start + np.arange(4000) * 1e-6
    q = np.column_stack([np.sin(300.0 * (t - start)), np.zeros(t.size)])
    processed = bp.preprocess(bp.Trajectory(t, q, np.ones((t.size, 2)), source="fast-log"),
                              bp.Preprocessing(cutoff_hz=None, rest_velocity=None, resample=False))
    inner = slice(2, -2)
    np.testing.assert_allclose(processed.qd[inner, 0], 300.0 * np.cos(300.0 * (t[inner] - start)), rtol=0, atol=1e-3)


def test_rates_derived_beyond_the_dynamics_bound_refused_naming_the_log():
    """Positions of 1e300 at a plausible step: the velocities and accelerations derived from them were refused by the
    dynamics with no log named ("qd: absurd value … at sample 0, joint 1"). Now where they are derived, with the log,
    the field and the step."""
    t = np.arange(40) * 0.01
    q = np.column_stack([1e300 * np.sin(t), np.zeros(40)])
    traj = bp.Trajectory(t, q, np.ones((40, 2)), source="arm-log-7")
    with pytest.raises(bp.DataError, match=r"^arm-log-7: field qd \(derived from q, time step 0.01 s\): absurd value"):
        bp.preprocess(traj, bp.Preprocessing(cutoff_hz=None, rest_velocity=None))


def _bag_of_topics(path, topics, stamps=None):
    """An MCAP bag (rosbags' writer) of 12 JointState messages per topic of ``topics``, joints shoulder, elbow, wrist;
    ``stamps`` (12 ints, ns): the messages' header stamps (default 10 ms apart)."""
    from test_logs import write_bag
    stamps = [10**9 + k * 10**7 for k in range(12)] if stamps is None else stamps
    messages = [(10**9 + k * 10**7, stamps[k], NAMES, [0.1 * k, 0.2, 0.3], [1.0] * 3, [2.0] * 3) for k in range(12)]
    return write_bag(path, "mcap", {topic: messages for topic in topics})


def test_a_bags_topics_are_listed_cut_and_counted(tmp_path):
    """Topics of 20 000 characters, in a bag asked for a topic it does not hold: the message listed every topic in
    full, 40 kB on one line. Now each name cut as the readers cut a joint's name, and the count."""
    bag = _bag_of_topics(tmp_path / "bag", ["/" + "z" * 20_000, "/" + "y" * 20_000])
    with pytest.raises(bp.DataError, match=r"topic /nope: not in the bag \(it has /yyyy.*….*, /zzzz.*…") as caught:
        bp.read_trajectory(bag, topic="/nope")
    assert len(str(caught.value)) < 400


def test_a_refusal_naming_a_huge_topic_is_a_bounded_line(named_arm_file, tmp_path):
    """One JointState topic of 20 000 characters whose messages share a stamp: each message about it repeats the
    topic (here "message 1 (topic /zzz…): …"), and the command line wrote the 20 kB line. Every refusal and warning
    line is now cut in its middle past 2 000 characters, the file at its start and the problem at its end kept."""
    from click.testing import CliRunner

    from baseparam.cli import main

    bag = _bag_of_topics(tmp_path / "bag", ["/" + "z" * 20_000], stamps=[10**9] * 12)
    result = CliRunner().invoke(main, ["identify", str(named_arm_file), str(bag)])
    lines = result.output.splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and len(lines[0]) <= 2000, (result.exit_code, len(result.output))
    assert lines[0].startswith(f"baseparam: {bag}: message 1 (topic /zzzz") and "characters left out" in lines[0]
    assert "duplicate time (1 s, as on message 0)" in lines[0] and lines[0].endswith("and reports them)")


@pytest.mark.parametrize("ext", [".npz", ".h5"])
def test_joint_names_of_numbers_refused_as_not_text(named_arm, tmp_path, ext):
    """A ``joint_names`` of three integers was refused as "expected at most 10000 names, got shape (3,) of int64":
    three is not too many; the names are not text, said so."""
    path = _log(tmp_path / f"log{ext}", NAMES)
    if ext == ".npz":
        np.savez(path, **{**dict(np.load(path)), "joint_names": np.arange(3)})
    else:
        import h5py
        with h5py.File(path, "a") as h5:
            del h5["joint_names"]
            h5["joint_names"] = np.arange(3)
    with pytest.raises(bp.DataError, match=r"key joint_names: expected text \(the joints' names\), got shape \(3,\)"):
        bp.read_trajectory(path, robot=named_arm)


def test_column_map_picking_the_robots_columns_among_more_still_read(named_arm, tmp_path):
    """A CSV naming a gripper before the robot's joints, read with a column map that picks the robot's columns
    (q=2:5): read, as before the other-place refusal (which refused it, the map taking the right columns); the
    columns taken are the file's shoulder, elbow and wrist, as written."""
    t = 1.0 + np.arange(40) * 0.01
    q = np.column_stack([np.full_like(t, 9.0), np.sin(t), np.cos(t), 0.5 * t])     # gripper first
    rows = "".join(",".join(map(repr, [float(t[k]), *map(float, q[k]), 1.0, 2.0, 3.0])) + "\n" for k in range(t.size))
    path = tmp_path / "log.csv"
    path.write_text(f"# joints: gripper, {', '.join(NAMES)}\nt,q0,q1,q2,q3,tau1,tau2,tau3\n{rows}", encoding="utf-8")
    traj = bp.read_trajectory(path, robot=named_arm, columns="t=0,q=2:5,tau=5:8")
    np.testing.assert_array_equal(traj.q, q[:, 1:])
    # the same file without the map is still refused: its first column would go to the robot's shoulder
    with pytest.raises(bp.DataError, match="in this order, the robot shoulder, elbow, wrist"):
        bp.read_trajectory(path, robot=named_arm)


def test_parquet_column_map_picking_the_robots_columns_among_more_still_read(named_arm, tmp_path):
    """A Parquet file of columns q1 … q4 whose metadata names a gripper before the robot's joints, read with a map
    naming q2, q3, q4: read as before the other-place refusal (which refused it, saying the columns are read by their
    numbers though the map named them); without the map still refused."""
    import json

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    t = 1.0 + np.arange(40) * 0.01
    q = np.column_stack([np.full_like(t, 9.0), np.sin(t), np.cos(t), 0.5 * t])
    table = pa.table({"t": t, **{f"q{j + 1}": q[:, j] for j in range(4)}, **{f"tau{j + 1}": t for j in range(4)}})
    path = tmp_path / "log.parquet"
    pq.write_table(table.replace_schema_metadata(
        {b"baseparam.joint_names": json.dumps(["gripper", *NAMES]).encode()}), path)
    traj = bp.read_trajectory(path, robot=named_arm, columns={"t": "t", "q": ["q2", "q3", "q4"],
                                                             "tau": ["tau2", "tau3", "tau4"]})
    np.testing.assert_array_equal(traj.q, q[:, 1:])
    with pytest.raises(bp.DataError, match="in this order, the robot shoulder, elbow, wrist"):
        bp.read_trajectory(path, robot=named_arm)
