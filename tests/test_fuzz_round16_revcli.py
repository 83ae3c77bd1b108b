"""Round 16, review of the merged 's14-leftcli' (payload sharing identify's reading options, the one CSV header
reader, the still_duration=0 check): what it refused that was read before, and the gaps left next to its fixes."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from test_fuzz_round16_leftcli import PAYLOAD, SPACE, UR, floating_text

ORDER = [3, 0, 5, 1, 4, 2]


def _floating_csv(extra_name=None):
    """:func:`test_fuzz_round16_leftcli.floating_text` as one text (header and data lines), and its values."""
    header, body, table = floating_text(extra_name=extra_name)
    return header + "\n" + body, table


@pytest.mark.parametrize("name", ["2", "nan", "1e3"])
def test_floating_csv_header_naming_a_column_like_a_number_is_still_its_header(tmp_path, name):
    """The floating-base reader took its header from the first line; the shared header reader guessed a header only
    when none of its fields is a number, so a header naming an extra column '2' (a sensor's channel) was taken for
    data and the file refused: 'line 1: expected a header row starting with 't'' of a line starting with 't'."""
    from baseparam.identification.floating_logs import read_floating_log
    text, table = _floating_csv(name)
    path = tmp_path / "log.csv"
    path.write_text(text)
    traj, _ = read_floating_log(path, bp.load_robot(SPACE))
    assert np.array_equal(traj.t, table[:, 0]) and np.array_equal(traj.q, table[:, 1:14])
    assert np.array_equal(traj.qd, table[:, 14:])


def test_floating_csv_savetxt_header_still_found_above_numbers(tmp_path):
    """The first line a number: np.savetxt's '# t,q1,…' comment above it is the header (as the merge has it)."""
    from baseparam.identification.floating_logs import read_floating_log
    text, table = _floating_csv()
    path = tmp_path / "log.csv"
    path.write_text("# " + text)
    traj, _ = read_floating_log(path, bp.load_robot(SPACE))
    assert np.array_equal(traj.q, table[:, 1:14])
    path.write_text(text.split("\n", 1)[1])             # no header at all: refused as before
    with pytest.raises(bp.DataError, match=r"log\.csv: line 1: expected a header row starting with 't'"):
        read_floating_log(path, bp.load_robot(SPACE))


def test_payload_static_refuses_delay(tmp_path):
    """--delay joined payload's options with the merge, but not the options --static refuses: on a table of poses
    (t 0, 1, 2, …) --delay 0.05 took each pose's torque 5 % from the next pose's (1.61 kg for 2 kg, exit 0)."""
    from baseparam.cli import main
    from test_payload import _torques
    robot = bp.load_robot(UR)
    poses = np.random.default_rng(0).uniform(-2, 2, (12, 6))
    tau = _torques(robot, PAYLOAD, poses, 0 * poses, 0 * poses)
    path = tmp_path / "table.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)])
    np.savetxt(path, np.column_stack([np.arange(12.0), poses, tau]), delimiter=",", header=header, comments="")
    args = ["payload", str(UR), str(path), "--static", "--still-duration", "0"]
    result = CliRunner().invoke(main, args + ["--json", str(tmp_path / "p.json")])
    assert result.exit_code == 0, result.output          # the table itself gives the payload (gravity alone)
    assert abs(json.loads((tmp_path / "p.json").read_text())["mass"] - PAYLOAD[0]) < 1e-9
    for delay in ("0.05", "auto"):
        result = CliRunner().invoke(main, args + ["--delay", delay])
        assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
        assert result.output.startswith("baseparam: --delay: --static averages still poses"), result.output


def test_floating_parquet_naming_the_joints_in_another_order_is_read_by_name_as_mcap_is(tmp_path):
    """write_trajectory(floating log, joint_names=[joint2, joint1, …]): the MCAP bag is read by name, the Parquet
    file (the names in its metadata) was read in its own order, joint2's values taken for joint1's, without a word —
    the class of misreading the merge refused for a floating CSV's '# joints:' line."""
    rng = np.random.default_rng(4)
    q = rng.uniform(-1, 1, (12, 13))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    log = bp.Trajectory(t=np.arange(12) * 0.01, q=q, qd=rng.uniform(-1, 1, (12, 12)),
                        tau=rng.uniform(-1, 1, (12, 12)), floating=True)
    order = [1, 0, 2, 3, 4, 5]
    robot = bp.load_robot(SPACE)
    read = {ext: bp.read_trajectory(bp.write_trajectory(log, tmp_path / f"log.{ext}",
                                                        joint_names=[f"joint{k + 1}" for k in order]), robot=robot)
            for ext in ("parquet", "mcap")}
    back = np.argsort(order)                             # the robot's joint k is the file's column back[k]
    expected = {"q": np.column_stack([q[:, :7], q[:, 7:][:, back]]),
                "qd": np.column_stack([log.qd[:, :6], log.qd[:, 6:][:, back]]),
                "tau": np.column_stack([log.tau[:, :6], log.tau[:, 6:][:, back]])}
    for field, values in expected.items():
        np.testing.assert_array_equal(getattr(read["parquet"], field), values, err_msg=field)
        np.testing.assert_allclose(getattr(read["mcap"], field), values, rtol=1e-12, atol=1e-12, err_msg=field)
    assert read["parquet"].joint_names == tuple(f"joint{k}" for k in range(1, 7))


def test_still_duration_0_names_the_two_rows_of_a_log_with_unix_times():
    """A log of motion stamped in Unix time (a bag's), 20 ms a row: the refusal named its two rows 't = 1.7e+09 and
    1.7e+09'."""
    from baseparam.identification.payload_static import still_poses
    t = 1.7e9 + 0.02 * np.arange(20)
    q = np.outer(np.arange(20), np.full(6, 0.005))          # 0.25 rad/s: 5 mrad a row, beyond the 2 mrad tolerance
    log = bp.Trajectory(t=t, q=q, tau=np.zeros((20, 6)), source="bag.mcap")
    with pytest.raises(bp.DataError, match=r"rows at t = 1700000000 and 1700000000\.02 s differ by 0\.005 rad"):
        still_poses(log, min_duration=0)


@pytest.mark.filterwarnings("error::UserWarning")
@pytest.mark.parametrize("tail", ["\n", "", "\n# the end\n\n"])
def test_floating_csv_of_a_header_alone_is_refused_as_the_fixed_base_reader_refuses_it(tmp_path, tail):
    """A header and no data: the fixed-base reader says 'no data lines after the header (line 1)'; the floating-base
    one let numpy warn 'loadtxt: input contained no data' (a UserWarning) and then said 'field t: only 0 samples'."""
    from baseparam.identification.floating_logs import read_floating_log
    text, _ = _floating_csv()
    path = tmp_path / "log.csv"
    path.write_text("# joints: " + ",".join(f"joint{k}" for k in range(1, 7)) + "\n" + text.split("\n", 1)[0] + tail)
    with pytest.raises(bp.DataError, match=r"^.*log\.csv: no data lines after the header \(line 2\)$"):
        read_floating_log(path, bp.load_robot(SPACE))


# --- the library's file names read as the command line reads them: a bag's joints matched by the robot's names ---

@pytest.fixture(scope="module")
def bags(tmp_path_factory):
    """The UR10e carrying PAYLOAD along a multi-sine at 50 Hz (torques by pinocchio, test_payload._torques), as two
    bags: its joints named in the robot's order, and the same messages naming them in another order."""
    from test_logs import _ns, write_bag
    from test_payload import _multisine, _torques
    robot = bp.load_robot(UR)
    t, q, qd, qdd = _multisine(robot.n_dof, dt=0.02, duration=10.0)
    tau = _torques(robot, PAYLOAD, q, qd, qdd)
    folder = tmp_path_factory.mktemp("bags")
    out = {}
    for label, order in (("ordered", list(range(6))), ("shuffled", ORDER)):
        names = [f"joint{k + 1}" for k in order]
        out[label] = str(write_bag(folder / label, "mcap", {"/joint_states": [
            (int(_ns(t[k])), int(_ns(t[k])), names, q[k, order], [], tau[k, order]) for k in range(t.size)]}))
    return robot, out


def test_identify_payload_of_a_bag_by_name_matches_its_joints_by_name(bags):
    """bp.identify_payload(robot, 'log.mcap') read the bag's joints in the messages' order (joint4, joint1, … taken
    as joint1, joint2, …): 1.25 kg for the 2 kg tool, its centre of mass metres off, no word; the command line's
    payload matches them by the robot's names since the merge."""
    robot, paths = bags
    for path in paths.values():
        result = bp.identify_payload(robot, path)
        assert abs(result.mass - PAYLOAD[0]) < 0.02 * PAYLOAD[0], (path, result.mass)
        assert np.allclose(result.com, PAYLOAD[1], atol=0.005), (path, result.com)


@pytest.mark.filterwarnings("ignore::baseparam.ExcitationWarning")     # a friction term fitted slightly negative
def test_estimator_and_identify_logs_read_a_bags_joints_by_name(bags):
    """BaseParameterEstimator.fit/predict and identify_logs given a bag's name: the fit does not depend on the order
    in which the messages list the joints (it did: the joints were taken in that order)."""
    robot, paths = bags
    fits = {k: bp.BaseParameterEstimator(robot).fit(p) for k, p in paths.items()}
    np.testing.assert_allclose(fits["shuffled"].coef_, fits["ordered"].coef_, rtol=1e-9, atol=1e-9)
    predicted = [fits["ordered"].predict(p)[0] for p in paths.values()]
    np.testing.assert_allclose(predicted[1], predicted[0], rtol=1e-9, atol=1e-9)
    logs = {k: bp.identify_logs(robot, [p]) for k, p in paths.items()}
    np.testing.assert_allclose(logs["shuffled"].estimator.coef_, logs["ordered"].estimator.coef_, rtol=1e-9,
                               atol=1e-9)


def test_a_bag_naming_other_joints_is_read_in_its_order_as_before(bags, tmp_path):
    """Only a log naming the robot's joints is read by them: one naming others (joint1 … of write_trajectory, for a
    robot whose joints are named: a URDF's) is read in its order, as before — read by the robot's names it was
    refused ('joints … of the robot not in the log')."""
    robot, paths = bags
    parts = UR.read_text().split("- {type: revolute,")
    assert len(parts) == 7
    text = parts[0] + "".join(f"- {{name: arm{k}, type: revolute," + part for k, part in enumerate(parts[1:], 1))
    named = tmp_path / "named.yaml"
    named.write_text(text)
    named = bp.load_robot(named)
    assert [j.name for j in named.joints] == [f"arm{k}" for k in range(1, 7)]
    as_before = bp.identify_payload(named, bp.read_trajectory(paths["ordered"]))
    assert abs(as_before.mass - PAYLOAD[0]) < 0.02 * PAYLOAD[0]
    assert bp.identify_payload(named, paths["ordered"]).mass == as_before.mass


@pytest.mark.parametrize("ext", ["csv", "npz"])
def test_library_file_name_naming_the_robots_joints_in_another_order_is_refused(tmp_path, ext):
    """write_trajectory(joint_names=[joint4, joint1, …]) as CSV ('# joints:' line) or NPZ (joint_names member):
    payload's command line refuses it (their columns are read in the file's order); bp.identify_payload(robot,
    path), fit and identify_logs read it, joint4's column as joint1's: 1.25 kg for the 2 kg tool, no word."""
    from test_payload import _multisine, _torques
    robot = bp.load_robot(UR)
    t, q, qd, qdd = _multisine(6, dt=0.02, duration=4.0)
    tau = _torques(robot, PAYLOAD, q, qd, qdd)
    path = bp.write_trajectory(bp.Trajectory(t=t, q=q[:, ORDER], qd=qd[:, ORDER], tau=tau[:, ORDER]),
                               tmp_path / f"log.{ext}", joint_names=[f"joint{k + 1}" for k in ORDER])
    for call in (lambda: bp.identify_payload(robot, path), lambda: bp.BaseParameterEstimator(robot).fit(path),
                 lambda: bp.identify_logs(robot, [path])):
        with pytest.raises(bp.DataError, match=r"log\.(csv|npz): the file names its joints joint4, joint1, .* in this "
                                               r"order, the robot joint1, joint2"):
            call()
