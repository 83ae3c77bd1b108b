"""Regressions of the command-line fuzzing of issue 28's thirteenth round (every command and option over generated
and damaged inputs of every reader; each run in a forked process with its own working folder, HOME and TMPDIR, all
watched): each case below failed before its fix. The fuzzer itself was a throwaway; these are the deterministic
cases it found."""
import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT, one_line

SPACE = ROOT / "robots" / "space_robot.yaml"


def _floating_csv(path, rows=12):
    """A still floating-base log of the space robot (6 joints): header t, q1…q13, qd1…qd12, as the reader takes."""
    n_q, n_v = 13, 12
    header = ["t"] + [f"q{k + 1}" for k in range(n_q)] + [f"qd{k + 1}" for k in range(n_v)]
    q = np.zeros((rows, n_q))
    q[:, 6] = 1.0                       # the base quaternion's w
    table = np.column_stack([np.arange(rows) * 0.1, q, np.zeros((rows, n_v))])
    lines = [",".join(header)] + [",".join(repr(float(x)) for x in row) for row in table]
    path.write_text("\n".join(lines) + "\n")
    return lines


def _identify(*args):
    return CliRunner().invoke(main, ["identify", str(SPACE), *map(str, args), "--route", "momentum",
                                     "--known", "mass=448"])


@pytest.mark.parametrize("damage, words", [
    (lambda row: row.replace(",0.0,", ",abc,", 1), ["line 4", "field q1", "not a number ('abc')"]),
    (lambda row: row + ",1", ["line 4", "wrong field count (expected 26 fields, got 27)"]),
    (lambda row: row.rsplit(",", 1)[0], ["line 4", "wrong field count (expected 26 fields, got 25)"]),
])
def test_a_damaged_line_of_a_floating_csv_log_is_named_by_line_and_field(tmp_path, damage, words):
    """The floating-base CSV reader handed its text to numpy: a damaged line was refused in numpy's words, naming
    neither the field nor the file's line (`could not convert string 'abc' to float64 at row 2, column 2.`, or
    `the number of columns changed from 26 to 27 at row 2; use `usecols` to select a subset…`, an option of
    numpy's, not ours). Now the trajectory reader's words: the line an editor shows, the column's name."""
    path = tmp_path / "log.csv"
    lines = _floating_csv(path)
    lines[3] = damage(lines[3])
    path.write_text("\n".join(lines) + "\n")
    result = _identify(path)
    one_line(result, "log.csv", *words)
    assert "usecols" not in result.output and "convert string" not in result.output


def test_a_floating_csv_log_without_data_says_it_has_no_samples(tmp_path):
    """A header without data lines was '1 values per row for 26 header columns' (numpy's empty-file warning
    aside): it has no samples, and says so."""
    path = tmp_path / "log.csv"
    path.write_text(_floating_csv(path)[0] + "\n")
    one_line(_identify(path), "log.csv", "no data lines after the header")   # the fixed-base reader's words


def test_a_bad_row_of_a_floating_log_suggests_no_option_it_does_not_take(tmp_path):
    """A floating-base log with a repeated time stamp was refused with '…; from_arrays(..., --skip-bad-rows) drops
    bad rows' (the Python hint half-translated), and --skip-bad-rows is then refused for floating-base robots:
    neither from_arrays nor the option reads such logs, so no hint is given."""
    path = tmp_path / "log.csv"
    lines = _floating_csv(path)
    lines[5] = lines[4]
    path.write_text("\n".join(lines) + "\n")
    result = _identify(path)
    one_line(result, "log.csv", "field t: duplicate time")
    assert "skip" not in result.output and "from_arrays" not in result.output


def test_digits_of_other_scripts_in_a_csv_are_damage_not_numbers(tmp_path):
    """numpy refuses '١' (an Arabic-Indic one) but Python's float() reads it as 1.0: a block numpy refused was
    then converted value by value with float(), so such a line was read as ones, silently, while the same
    character elsewhere made the file fail. It is now damage, named like any other."""
    t = np.arange(12) * 0.1
    lines = ["t,q1,tau1"] + [f"{float(x)!r},0.5,0.25" for x in t]
    lines[3] = lines[3].replace("0.5", "\u0661")
    path = tmp_path / "log.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(bp.DataError, match=r"log.csv: line 4: field q1: not a number"):
        bp.read_trajectory(path)


def test_describe_yaml_of_a_yaml_tree_suggests_no_option_refused_for_it(tmp_path):
    """`describe TREE.yaml --yaml OUT` said 'pick a chain with --tip LINK', and --tip is then refused for a YAML
    description ('they select part of a URDF model'): a YAML tree is told to describe one chain on its own."""
    result = CliRunner().invoke(main, ["describe", str(ROOT / "robots" / "dual_arm_torso.yaml"),
                                       "--yaml", str(tmp_path / "out.yaml")])
    one_line(result, "dual_arm_torso.yaml", "--yaml", "no single DH table")
    assert "--tip" not in result.output
    assert not (tmp_path / "out.yaml").exists()


def _limits(tmp_path, n):
    path = tmp_path / "limits.yaml"
    path.write_text("joints:\n" + "  - {q: [-2, 2], qd: 3, qdd: 20, tau: 100}\n" * n)
    return path


def test_excite_with_a_stribeck_friction_model_keeps_its_rigid_body_report():
    """`excite ROBOT --friction --friction-model stribeck:0.1` always failed: the rigid-body report stripped the
    joints' friction but kept their Stribeck model, which a joint without Coulomb friction refuses ('Joint.
    friction_model: a Stribeck term multiplies the Coulomb term…', no file, no joint: exit 2 on a valid input)."""
    from baseparam.excitation.design import rigid_body
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml", friction=True, friction_model="stribeck:0.1")
    rigid = rigid_body(robot)
    assert bp.ColumnLayout(rigid).n_standard == 30 and bp.ColumnLayout(robot).n_standard > 30


# (payload --suggest-poses was the second command here: it now refuses every drive-term flag, which it never used,
# before loading the robot; test_fuzz_round14_fexc.py)
@pytest.mark.parametrize("command", [["excite", "--starts", "1", "--period", "2", "--harmonics", "2"]])
def test_an_auto_friction_scale_where_no_data_chooses_it_names_the_joint(tmp_path, command):
    """`--friction-model smooth` (its scale 'auto', chosen by identification from training data) in a command that
    evaluates the friction without data said 'friction model: the velocity scale is 'auto' (identified from data by
    bp.identify)…': no robot, no joint, a Python name. It names the joint and the flag's form now."""
    name, *options = command
    args = [name, str(ROOT / "robots" / "planar_rrr.yaml"), "--friction", "--friction-model", "smooth", *options]
    if name == "excite":
        args += ["--limits", str(_limits(tmp_path, 3))]
    one_line(CliRunner().invoke(main, args), "joints[1].friction_model", "'auto'", "--friction-model smooth:")


def test_robot_out_of_a_massless_payload_names_robot_and_payload(tmp_path):
    """A static fit bounded at 0 kg (the loaded poses see no payload) with --robot-out ended in
    'Inertia.mass: expected a mass > 0 …, got 0.0' (or -6.4e-16, loaded − unloaded of one log): neither robot nor
    payload named. It says there is no body to attach, and writes nothing."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    poses = np.random.default_rng(7).uniform(-1, 1, (12, 6))
    gravity = np.array([bp.gravity_torque(bp.Model(robot), q) for q in poses])
    header = ",".join(["t"] + [f"q{k + 1}" for k in range(6)] + [f"tau{k + 1}" for k in range(6)])
    for name, offset in (("loaded.csv", 0.5), ("empty.csv", 0.0)):      # the same torque + 0.5 N·m on each joint
        np.savetxt(tmp_path / name, np.column_stack([np.arange(12.0), poses, gravity + offset]), delimiter=",",
                   header=header, comments="")
    result = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "ur10e_cad.yaml"), str(tmp_path / "loaded.csv"),
                                       "--static", "--still-duration", "0", "--unloaded", str(tmp_path / "empty.csv"),
                                       "--robot-out", str(tmp_path / "out.yaml")])
    # round 19: a payload not told from none is refused before the writers, naming the log and the flag
    one_line(result, f"{tmp_path / 'loaded.csv'}: --robot-out: no robot written (payload: a mass below zero")
    assert not (tmp_path / "out.yaml").exists()
    from baseparam.model.attach import with_payload
    with pytest.raises(bp.RobotDescriptionError, match=r"UR10e.*payload mass: -6.4e-16 kg, no body to attach"):
        with_payload(robot, -6.4e-16, np.zeros(3), np.zeros((3, 3)))


@pytest.mark.parametrize("flag, text", [("--pose", "0.5,,1,1"), ("--pose", ",0.5,1,1"), ("--pose", "0.5,1,1,,")])
def test_a_list_option_with_an_empty_entry_is_refused_not_shifted(flag, text):
    """`--pose 0.5,,1,1` on a 3-joint arm was read as 0.5, 1, 1: the empty entry dropped, the values after it moved to
    the joints before them, silently (likewise --gains, --noise, --sensor). An empty entry is malformed now."""
    result = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "planar_rrr.yaml"), "--suggest-poses", "4",
                                       flag, text])
    one_line(result, flag, repr(text))


@pytest.mark.parametrize("text", ["0.5,1,1,", "0.5, 1, 1, ", "0.5;1;1;"])
def test_a_list_option_ending_with_a_separator_is_taken(text):
    """A separator ending the list (a script joining values writes `0.5,1,1,`) moves no value to another joint; the
    empty-entry refusal (610511d) refused it too, a valid input taken before. The same answer as without it."""
    from baseparam.cli import _numbers

    assert _numbers(text, "--pose") == [0.5, 1.0, 1.0]
    command = ["payload", str(ROOT / "robots" / "planar_rrr.yaml"), "--suggest-poses", "4", "--pose"]
    with_separator, without = (CliRunner().invoke(main, command + [pose]) for pose in (text, "0.5,1,1"))
    assert (with_separator.exit_code, with_separator.output) == (without.exit_code, without.output)


@pytest.mark.parametrize("joints", [None, ["a", "b", "c"]])
def test_lerobot_columns_whose_own_names_order_the_joints_otherwise_are_taken_by_them(tmp_path, joints):
    """A LeRobot dataset's meta/info.json names each list column's joints; only observation.state's names were
    read, so an observation.effort stored in another joint order went to the wrong joints, silently (exit 0)."""
    rng = np.random.default_rng(1)
    t, q, qd, tau = np.arange(20) * 0.01, rng.normal(size=(20, 3)), rng.normal(size=(20, 3)), rng.normal(size=(20, 3))
    order = [2, 0, 1]                                    # effort and velocity stored as c, a, b
    names = {"observation.state": ["a", "b", "c"], "observation.velocity": ["c", "a", "b"],
             "observation.effort": ["c", "a", "b"]}
    path = _lerobot_episode(tmp_path, names, t, q, qd[:, order], tau[:, order])
    traj = bp.read_trajectory(path, joints=joints)
    np.testing.assert_array_equal(traj.q, q)
    np.testing.assert_array_equal(traj.qd, qd)
    np.testing.assert_array_equal(traj.tau, tau)


def _lerobot_episode(root, names, t, q, qd, tau):
    """A LeRobot dataset under ``root`` (meta/info.json naming each list column's joints by ``names``) of one episode
    of t, q (observation.state), qd (observation.velocity) and tau (observation.effort), as stored: its path."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq
    (root / "meta").mkdir()
    (root / "meta" / "info.json").write_text(json.dumps(
        {"features": {k: {"dtype": "float64", "shape": [3], "names": v} for k, v in names.items()}}))
    folder = root / "data" / "chunk-000"
    folder.mkdir(parents=True)
    pq.write_table(pa.table({"timestamp": t, "observation.state": list(q), "observation.velocity": list(qd),
                             "observation.effort": list(tau)}), folder / "episode_000000.parquet")
    return folder / "episode_000000.parquet"


@pytest.mark.parametrize("order", [[0, 1, 2], [2, 0, 1]])
def test_lerobot_columns_naming_their_joints_with_their_own_suffix_are_read(tmp_path, order):
    """LeRobot names a list's joints with the quantity's suffix (observation.state `a.pos`, observation.velocity
    `a.vel`): cb8a524 took the velocity's own names as other joints and refused the dataset ('joints a.pos, b.pos, c.pos
    of the robot not in the log'), read right before. Same names but the suffix: the same joints, by their names."""
    rng = np.random.default_rng(2)
    t, q, qd, tau = np.arange(20) * 0.01, rng.normal(size=(20, 3)), rng.normal(size=(20, 3)), rng.normal(size=(20, 3))
    joints = np.array(["a", "b", "c"])
    names = {"observation.state": [f"{j}.pos" for j in joints], "observation.velocity": [f"{j}.vel" for j in
             joints[order]], "observation.effort": [f"{j}.effort" for j in joints[order]]}
    path = _lerobot_episode(tmp_path, names, t, q, qd[:, order], tau[:, order])
    for robot_joints in (None, names["observation.state"][::-1]):
        traj = bp.read_trajectory(path, joints=robot_joints)
        picked = slice(None) if robot_joints is None else [2, 1, 0]
        np.testing.assert_array_equal(traj.q, q[:, picked])
        np.testing.assert_array_equal(traj.qd, qd[:, picked])
        np.testing.assert_array_equal(traj.tau, tau[:, picked])


def test_an_output_name_too_long_is_refused_before_the_work_in_one_line(tmp_path):
    """`identify ROBOT log.mcap --json <300 characters>.json` read the log, said its note ('times: header stamps …')
    and only then failed at the write ('cannot write (File name too long)'): two lines on exit 2. A name longer
    than the folder's file system takes is refused with the other output checks, before any work."""
    from conftest import planar_sines
    robot, _, t, q, qd, qdd, tau = planar_sines(0, 40, 0.01)
    log = tmp_path / "log.mcap"
    bp.write_trajectory(bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau), log)
    name = str(tmp_path / ("a" * 300 + ".json"))
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(log), "--json", name])
    one_line(result, "a" * 300 + ".json", "File name too long")
