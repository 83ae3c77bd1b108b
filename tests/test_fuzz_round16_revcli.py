"""Round 16, review of the merged 's14-leftcli' (payload sharing identify's reading options, the one CSV header
reader, the still_duration=0 check): what it refused that was read before, and the gaps left next to its fixes."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"
UR = ROOT / "robots" / "ur10e.yaml"
# a 2 kg tool (mass, com, inertia about the com), as test_fuzz_round16_leftcli's
PAYLOAD = (2.0, [0.03, -0.02, 0.06], [[0.012, 0.002, 0.0], [0.002, 0.010, 0.001], [0.0, 0.001, 0.006]])
ORDER = [3, 0, 5, 1, 4, 2]


def _floating_csv(extra_name=None, rows=12):
    """A floating-base log of the space robot (6 joints) as CSV text, header t, q1…q13, qd1…qd12 and, with
    ``extra_name``, one more column of that name (zeros); and its (rows, 26) values."""
    rng = np.random.default_rng(4)
    q = rng.uniform(-1, 1, (rows, 13))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)       # the base quaternion (x, y, z, w)
    table = np.column_stack([np.arange(rows) * 0.01, q, rng.uniform(-1, 1, (rows, 12))])
    names = ["t"] + [f"q{k + 1}" for k in range(13)] + [f"qd{k + 1}" for k in range(12)]
    extra = [] if extra_name is None else [extra_name]
    text = ",".join(names + extra) + "\n" + "".join(
        ",".join([repr(float(x)) for x in row] + ["0"] * len(extra)) + "\n" for row in table)
    return text, table


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
