"""Review of fuzz round sixteen (s14-fdat): what its checks said or refused beyond what the round meant."""
from pathlib import Path

import numpy as np
import pytest

import baseparam as bp
from test_fuzz_round13_fdat import NAMES, motion
from test_fuzz_round16_fdat import csv_log, floating_csv, refused, space_log


@pytest.mark.parametrize("contacts, column, read", [(0, "q14", ()), (2, "w2_fx", ("left",))])
def test_a_floating_csvs_stray_column_names_the_headers_line(tmp_path, contacts, column, read):
    # the header may stand after comments and blank lines (the text reader skips them): the message said 'line 1'
    robot, path, lines = floating_csv(tmp_path, contacts=contacts)
    header = lines[0] + ("," + column if column == "q14" else "")
    rows = [line + (",0.5" if column == "q14" else "") for line in lines[1:] if line]
    path.write_text("\n".join(["# logged by hand", "", "# second comment", header] + rows) + "\n")
    message = refused(lambda: bp.read_trajectory(path, robot=robot, contacts=list(read)), f"column '{column}'")
    assert ": line 4: " in message and "line 1" not in message, message


@pytest.mark.parametrize("layout", ["group", "link to a group"])
def test_an_hdf5_field_name_holding_a_group_is_refused_not_passed_over(tmp_path, layout):
    # bcb8085 refused a dangling soft link under 'q' instead of reading q from the next default key, 'positions';
    # a group there (or a link to one) was still passed over, and 'positions' (another array) read as q, exit 0
    h5py = pytest.importorskip("h5py")
    t = np.arange(50) * 0.01
    q = np.sin(t)[:, None] * [1.0, 2.0]
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"], f["positions"], f["tau"] = t, q + 1, q
        if layout == "group":
            f["q/values"] = q
        else:
            f["motion/values"] = q
            f["q"] = h5py.SoftLink("/motion")
    refused(lambda: bp.read_trajectory(path), str(path), "key q: a group, not a dataset", "columns={'q': 'q/NAME'}")
    inner = "q/values" if layout == "group" else "motion/values"
    assert np.array_equal(bp.read_trajectory(path, columns={"q": inner}).q, q)    # named: read


@pytest.mark.parametrize("group", ["qd", "current"])
def test_an_hdf5_group_under_a_fields_name_with_no_other_array_is_left_out_as_before(tmp_path, group):
    # a group 'qd' or 'current' that nothing else stands in for is not read in any array's place: left out, as before
    h5py = pytest.importorskip("h5py")
    t = np.arange(50) * 0.01
    q = np.sin(t)[:, None] * [1.0, 2.0]
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"], f["q"], f["tau"], f[f"{group}/raw"] = t, q, q, q
    assert np.array_equal(bp.read_trajectory(path).q, q)


def test_a_hint_ending_with_a_parameter_ends_the_cli_line_without_a_space(tmp_path):
    # the joint-0 refusal (39b217b) ends 'or map them with columns=': the command line's line ended '--columns '
    from baseparam.cli import as_flags
    from conftest import run_in_process as run
    assert as_flags("name one with topic=") == "name one with --topic"
    assert as_flags("a.npz: columns= or topic= here") == "a.npz: --columns or --topic here"
    assert as_flags("(name it with base_topic=)") == "(name it with --base-topic)"
    assert as_flags("(gains=[6 values in N·m/A] or one scalar)") == "(--gains [6 values in N·m/A] or one scalar)"
    path = tmp_path / "zero.csv"
    t = np.arange(200) * 0.01
    path.write_text("t,q0,q1,tau0,tau1\n" + "".join(f"{x},{np.sin(x)},{np.cos(x)},{x},{x}\n" for x in t))
    result = run("identify", Path(__file__).parents[1] / "robots" / "planar_rrr.yaml", path)
    assert result.returncode == 2 and result.stderr.endswith("or map them with --columns\n"), result.stderr


@pytest.mark.parametrize("separator", ["; ", ";", "\t", " ", "  "])
def test_a_csv_naming_its_joints_with_other_separators_is_checked_too(tmp_path, separator):
    # 39b217b found '# joints:' in any spacing or case, but split the names at ',' only: a hand-written
    # '# joints: joint2; joint1; joint3' (a ';' file's comment) was one name, and the columns went to other joints
    path, lines, q = csv_log(tmp_path, ["joint2", "joint1", "joint3"])
    path.write_text("\n".join([lines[0].replace(", ", separator), *lines[1:]]))
    assert separator in path.read_text().split("\n")[0]
    refused(lambda: bp.read_trajectory(path, joints=NAMES), "the file names its joints joint2, joint1, joint3 in this")
    path.write_text(path.read_text().replace("joint2" + separator + "joint1", "joint1" + separator + "joint2", 1))
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)          # the robot's order: read


def test_a_floating_log_naming_the_robots_joints_in_another_order_is_refused_or_matched(tmp_path):
    # 86b3fe5 refused a fixed-base Parquet of a column per joint naming the joints in another order, and a CSV or NPZ
    # is refused alike; a floating-base Parquet's baseparam.floating joint_names, or an NPZ's joint_names member, were
    # not looked at: joint2's values went to joint1, exit 0. An NPZ is now refused; a Parquet file's joints are matched
    # by their names, as a bag's (56dc42b)
    pytest.importorskip("pyarrow")
    names = [f"joint{k}" for k in range(1, 7)]
    robot, log, _ = space_log(joint_names=[names[1], names[0], *names[2:]])
    path = tmp_path / "log.npz"
    np.savez(path, t=log.t, q=log.q, qd=log.qd, joint_names=np.array(log.joint_names))
    refused(lambda: bp.read_trajectory(path, robot=robot), str(path), "names its joints joint2, joint1, joint3")
    bp.write_trajectory(log, tmp_path / "log.parquet")
    swapped = bp.read_trajectory(tmp_path / "log.parquet", robot=robot)
    assert np.array_equal(swapped.q[:, [7, 8]], log.q[:, [8, 7]]) and swapped.joint_names == tuple(names)
    robot, log, _ = space_log(joint_names=names)                   # the robot's order: read
    np.savez(path, t=log.t, q=log.q, qd=log.qd, joint_names=np.array(log.joint_names))
    assert np.array_equal(bp.read_trajectory(path, robot=robot).q, log.q)


@pytest.mark.parametrize("value", ["08", "1e3", "1.5"])
def test_a_tagged_int_yaml_cannot_read_is_not_said_to_be_no_whole_number(value):
    # 73ac4b7 said '!!int 08' and '!!int 1e3' were "not a whole number": both are, in spellings no YAML integer has
    # (PyYAML's own int() fails on them); the message says what is wrong, for 1.5 alike
    yaml = pytest.importorskip("yaml")
    with pytest.raises(ValueError):
        yaml.safe_load(f"a: !!int {value}")
    text = ("name: X\nunits: {length: m, angle: deg}\njoints:\n"
            f"  - {{type: revolute, alpha: 0, a: !!int {value}, d: 0}}\n")
    message = refused(lambda: bp.parse_robot(text, "arm.yaml"), f"got '{value}' (tagged !!int: no integer YAML reads)")
    assert "whole" not in message


@pytest.mark.parametrize("value", [b'["joint2", "joint1"]', b'["joint2", "joint1", "joint3", "joint4"]', b"[]"])
def test_a_parquet_logs_joint_names_of_another_count_are_refused_when_the_robot_orders_them(tmp_path, value):
    # a616da3 refused baseparam.joint_names that is not JSON or not a list of names, where it had been read as none;
    # a list of another length was still set aside with a note, and the lists taken in the file's order with the
    # robot's joints given (joint2's values as joint1's, exit 0). Without the robot's joints: the note, as before
    pq = pytest.importorskip("pyarrow.parquet")
    t, q, tau = motion()
    path = tmp_path / "log.parquet"
    bp.write_trajectory(bp.Trajectory(t, q, tau), path, joint_names=["joint2", "joint1", "joint3"])
    table = pq.read_table(path)
    pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"baseparam.joint_names": value}), path)
    refused(lambda: bp.read_trajectory(path, joints=NAMES), str(path), "joint names for lists of 3 values",
            "repair or remove the file's joint names")
    read = bp.read_trajectory(path)
    assert np.array_equal(read.q, q) and any("the names are not used" in note for note in read.notes)
