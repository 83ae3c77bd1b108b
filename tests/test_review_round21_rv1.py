"""Review of stop 46's merges (s21-tidy, 1cc2ee5 'one check of a floating-base log's values for every reader'), each
finding with a test that fails before its fix."""
import numpy as np
import pytest

import baseparam as bp

from test_floating_identification import SPACE
from test_floating_logs import rosbags_bag


@pytest.mark.parametrize("where, value, words", [
    ("wrench", 1e300, "topic /c1/wrench: message 5: wrench.force.z: absurd value (1e+300; beyond ±1e+06)"),
    ("wrench", -2e6, "topic /c1/wrench: message 5: wrench.force.z: absurd value (-2e+06; beyond ±1e+06)"),
    ("position", 1e300, "topic /base: message 5: pose.pose.position.x: absurd value (1e+300; beyond ±1e+08)"),
    ("twist", -1e5, "topic /base: message 5: twist.twist.linear.x: absurd value (-100000; beyond ±10000)"),
    ("twist", np.nan, "topic /base: message 5: damaged Odometry (a value is not a finite number)"),
])
def test_a_floating_bags_absurd_wrench_or_base_is_refused_as_the_other_formats_refuse_it(tmp_path, where, value, words):
    """A ROS bag's wrench, base position or twist of 1e300 was read as it was (the fit met it later, without the
    file's name), while a CSV, NPZ or Parquet floating-base log holding it is refused by floating_logs._refuse_absurd:
    each message's values are now bounded as those logs' are (a NaN still said first, as the message's damage)."""
    robot = bp.load_robot(SPACE)
    S = 12
    t = np.arange(S) * 0.05
    q = np.zeros((S, robot.n_dof + 7))
    q[:, 6] = 1.0                               # the unit quaternion, x y z w
    qd = np.zeros((S, robot.n_dof + 6))
    w = np.zeros((S, 6))
    {"wrench": w[5:6, 2:3], "position": q[5:6, 0:1], "twist": qd[5:6, 0:1]}[where][...] = value
    bag = rosbags_bag(tmp_path / "bag", t, q, qd, wrenches={"/c1/wrench": (t, w)})
    with pytest.raises(bp.DataError) as info:
        bp.read_trajectory(bag, robot=robot, contacts=["c1"])
    assert words in str(info.value), str(info.value)


def test_a_floating_bag_within_the_bounds_is_read_as_written(tmp_path):
    """The bounds are the other readers': an odometry 5e7 m out (a legged robot's may run beyond a kilometre), a
    wrench of 9e5 N and a twist of 9e3 pass, bit for bit."""
    robot = bp.load_robot(SPACE)
    S = 12
    t = np.arange(S) * 0.05
    q = np.zeros((S, robot.n_dof + 7))
    q[:, 6] = 1.0
    q[:, 0] = 5e7
    qd = np.zeros((S, robot.n_dof + 6))
    qd[:, 1] = -9e3
    w = np.full((S, 6), 9e5)
    traj = bp.read_trajectory(rosbags_bag(tmp_path / "bag", t, q, qd, wrenches={"/c1/wrench": (t, w)}), robot=robot,
                              contacts=["c1"])
    np.testing.assert_array_equal(traj.q[:, :7], q[:, :7])
    np.testing.assert_array_equal(traj.qd[:, :6], qd[:, :6])
    np.testing.assert_array_equal(traj.wrenches[:, 0], w)


@pytest.mark.parametrize("ext", [".npz", ".parquet"])
def test_a_floating_log_of_no_rows_with_contacts_is_a_data_error(tmp_path, ext):
    """A floating-base log with its wrenches' columns but no rows was numpy's bare "ValueError: cannot reshape array of
    size 0 into shape (0,newaxis)" (floating_logs._refuse_absurd's reshape(len(wrenches), -1)), which the command line
    took for a bug; it is now the readers' own 'only 0 samples', as without contacts (a CSV's header alone is refused
    before: no data lines)."""
    robot = bp.load_robot(SPACE)
    n_q, n_v = robot.n_dof + 7, robot.n_dof + 6
    path = tmp_path / f"empty{ext}"
    if ext == ".npz":
        np.savez(path, t=np.zeros(0), q=np.zeros((0, n_q)), qd=np.zeros((0, n_v)), wrenches=np.zeros((0, 1, 6)))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq
        lists = pa.list_(pa.float64())
        pq.write_table(pa.table({"t": pa.array([], pa.float64()), "q": pa.array([], lists), "qd": pa.array([], lists),
                                 "wrenches": pa.array([], lists)}), path)
    with pytest.raises(bp.DataError) as info:
        bp.read_trajectory(path, robot=robot, contacts=["c1"])
    assert "0 samples" in str(info.value), str(info.value)
