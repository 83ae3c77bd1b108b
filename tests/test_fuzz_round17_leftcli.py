"""Round 17: the command line's and readers' leftovers of stop 41 ("Left (found, not fixed)", set "cli")."""

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT

UR = ROOT / "robots" / "ur10e.yaml"
PAYLOAD = (2.0, [0.03, -0.02, 0.06], [[0.012, 0.002, 0.0], [0.002, 0.010, 0.001], [0.0, 0.001, 0.006]])


def _one_line(result, *parts):
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    for part in parts:
        assert part in result.output, result.output


# --- 1. --static --still-duration 0 refuses a log of motion however coarsely it is sampled ---

def test_still_duration_0_refuses_a_coarsely_sampled_log_of_motion(tmp_path):
    """A 10 Hz log of motion moves more than 0.02 rad a row: no two rows were 'the same pose', every row was taken as
    a still pose (2.14 kg for 2 kg here; 2.66 for 2.805 on the UR10e's real log), exit 0."""
    from test_payload import _multisine, _torques
    robot = bp.load_robot(UR)
    t, q, qd, qdd = (2 * x for x in _multisine(6, dt=0.1, duration=10.0))
    t = t / 2
    assert np.abs(np.diff(q, axis=0)).max(axis=1).min() > 0.02          # beyond the per-row test
    path = tmp_path / "moving.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)])
    np.savetxt(path, np.column_stack([t, q, _torques(robot, PAYLOAD, q, qd, qdd)]), delimiter=",", header=header,
               comments="")
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--static", "--still-duration", "0"])
    _one_line(result, "moving.csv", "--still-duration 0 takes each row as a still pose", "steady velocity",
              "the robot moves through them")
    # the same rows irregularly sampled (as the UR10e's): velocities per time, not steps per row
    jitter = np.random.default_rng(1).uniform(-0.03, 0.03, t.size)
    from baseparam.identification.payload_static import still_poses
    with pytest.raises(bp.DataError, match="steady velocity"):
        still_poses(bp.Trajectory(t=t + jitter, q=q, tau=0 * q), min_duration=0)
    # a table sweeping one joint in equal steps cannot be told from a motion one row each; each row twice, it is taken
    sweep = np.column_stack([np.full((12, 5), 0.4), np.linspace(-2, 2, 12)])
    with pytest.raises(bp.DataError, match="write each pose's row twice"):
        still_poses(bp.Trajectory(t=np.arange(12.0), q=sweep, tau=0 * sweep), min_duration=0)
    twice = np.repeat(sweep, 2, axis=0)
    assert np.array_equal(still_poses(bp.Trajectory(t=np.arange(24.0), q=twice, tau=0 * twice), min_duration=0)[0],
                          sweep)


def test_still_duration_0_takes_tables_of_random_poses():
    """Poses chosen independently (uniform, as suggest_static_poses' or a user's) one row each are still taken."""
    from baseparam.identification.payload_static import still_poses
    for seed in range(4):
        poses = np.random.default_rng(seed).uniform(-2, 2, (500, 6))
        q = still_poses(bp.Trajectory(t=np.arange(500.0), q=poses, tau=0 * poses), min_duration=0)[0]
        assert np.array_equal(q, poses)


# --- 2. output names: one case rule, and no output under another format's extension ---

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


@pytest.mark.parametrize("args, parts", [
    (["--python", "X.PY"], ["--python: ", "X.PY: expected a .py file name, got '.PY'"]),     # Python imports .py
    (["--out", "o.py"], ["--out: ", "o.py: writes Markdown, and a '.py' name says Python", "give a .md name"]),
    (["--out", "o.JSON"], ["o.JSON: writes Markdown, and a '.JSON' name says JSON"]),
])
def test_equations_output_names_say_what_they_hold(tmp_path, monkeypatch, args, parts):
    """equations --python X.PY wrote a module Python cannot import by that name; --out o.py wrote Markdown under a
    Python module's name (exit 0 both)."""
    monkeypatch.chdir(tmp_path)
    _one_line(CliRunner().invoke(main, ["equations", str(PLANAR), *args]), *parts)
    assert list(tmp_path.iterdir()) == []


def test_output_names_accepted_as_their_readers_read_them(tmp_path, monkeypatch):
    """Markdown under .md or any other name; --robot-out and --yaml compare in any case as load_robot does."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["equations", str(PLANAR), "--out", "o.md", "--python", "m.py"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "o.md").read_text().startswith("#") and (tmp_path / "m.py").exists()
    _one_line(CliRunner().invoke(main, ["describe", str(PLANAR), "--yaml", "r.URDF"]),
              "--yaml: r.URDF: writes YAML, and a '.URDF' name says URDF", "give a .yaml name")
    assert CliRunner().invoke(main, ["describe", str(PLANAR), "--yaml", "r.YML"]).exit_code == 0
    assert bp.load_robot(tmp_path / "r.YML").n_dof == 3


# --- 3. a '# joints:' line in another order with a column map: the refusal says what is wrong with the map ---

def test_joint_names_in_another_order_with_a_column_map_say_the_map_cannot_be_checked(tmp_path):
    """identify --columns on a file whose '# joints:' line names the robot's joints in another order was refused
    saying 'columns of CSV and NPZ files are read in their order', as if the map given were not read."""
    rng = np.random.default_rng(0)
    q = rng.uniform(-1, 1, (20, 3))
    path = bp.write_trajectory(bp.Trajectory(t=np.arange(20) * 0.01, q=q, tau=2 * q), tmp_path / "j.csv",
                               joint_names=["joint2", "joint1", "joint3"])
    result = CliRunner().invoke(main, ["identify", str(PLANAR), str(path), "--columns", "t=0,q=1:4,tau=4:7"])
    _one_line(result, "j.csv: the file names its joints joint2, joint1, joint3 in this order",
              "the column map takes columns by their position, not by the file's '# joints:' line",
              "leave out the '# joints:' line")
    assert "read in their order" not in result.output
    robot = bp.load_robot(PLANAR)
    with pytest.raises(bp.DataError, match="takes columns by their position"):
        bp.read_trajectory(path, robot=robot, columns={"t": 0, "q": [2, 1, 3], "tau": [5, 4, 6]})
    # without a map the file's order is what is said
    with pytest.raises(bp.DataError, match="columns of CSV, NPZ and HDF5 files are read in their order"):
        bp.read_trajectory(path, robot=robot)


# --- 4. a bag's foreign warnings go through the user's filters, and the reader is closed in every path ---

def _anchor_twice_bag(tmp_path):
    from test_fuzz_round13_fdat import ros2_bag
    bag = tmp_path / "bag"
    q = ros2_bag(bag)
    meta = bag / "metadata.yaml"
    text = meta.read_text()
    twice = "  ros_distro: &x rosbags\n  custom_data: &x null\n"
    meta.write_text(text.replace("  custom_data: null\n", "").replace("  ros_distro: rosbags\n", twice))
    return bag, q


@pytest.mark.parametrize("action, category, raised", [("error", Warning, bp.DataError),
                                                      ("error", bp.DataWarning, bp.DataWarning),
                                                      ("ignore", Warning, None)])
def test_a_bags_foreign_warnings_keep_the_users_filters_and_close_the_reader(tmp_path, monkeypatch, action,
                                                                            category, raised):
    """_foreign_warnings set 'always' over the user's filters (an ignored warning said anyway); under -W error the
    DataWarning it re-issued raised after rosbags' reader had opened, and the reader was never closed."""
    import warnings

    from rosbags.highlevel import AnyReader

    from test_fuzz_round16_fdat import NAMES
    bag, q = _anchor_twice_bag(tmp_path)
    opened, closed = [], []
    monkeypatch.setattr(AnyReader, "open", lambda self, _open=AnyReader.open: opened.append(1) or _open(self))
    monkeypatch.setattr(AnyReader, "close", lambda self, _close=AnyReader.close: closed.append(1) or _close(self))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action, category)
        if raised is None:
            assert np.array_equal(bp.read_trajectory(bag, joints=NAMES).q, q)
        else:
            with pytest.raises(raised, match=f"^{bag}: "):
                bp.read_trajectory(bag, joints=NAMES)
    assert len(opened) == 1 and len(closed) >= 1          # (rosbags closes a reader it failed to open, too)
    assert not [w for w in caught if "anchor" in str(w.message)]


# --- 6. excite --payload --payload-joints beyond the robot's joints is refused ---

def test_payload_joints_beyond_the_robots_joints_are_refused(tmp_path):
    """--payload-joints 99 on a 3-joint arm was taken as 'all joints' (exit 0); the default 3, a wrist's, still moves
    every joint of an arm with fewer."""
    from baseparam.excitation.payload import moving_joints
    limits = tmp_path / "limits.yaml"
    limits.write_text("joints:\n  - {q: [-2, 2.5], qd: 1.5, qdd: 6}\n  - {q: [-1.5, 1.5], qd: 2}\n"
                      "  - {q: [-2.5, 2.5], qd: 2.5}\n")
    result = CliRunner().invoke(main, ["excite", str(PLANAR), "--limits", str(limits), "--payload",
                                       "--payload-joints", "99"])
    _one_line(result, "--payload-joints: 99 last joints to move, but", "has 3; give at most 3")
    assert moving_joints(bp.load_robot(PLANAR), 3) == (1, 2, 3)
    two = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    assert moving_joints(two, 6) == (1, 2, 3, 4, 5, 6)
    with pytest.raises(bp.ArgumentError, match="^payload_joints: 7 last joints to move, but 'UR10e' has 6"):
        moving_joints(two, 7)


# --- 7. an empty entry of a comma list is refused, in every option taking one (_validation.comma_list) ---

@pytest.mark.parametrize("args, said", [
    (["find", str(ROOT / "robots" / "puma560.yaml"), "--symbolic", ",a2"], "--symbolic: entry 1 of ',a2' is empty"),
    (["equations", str(PLANAR), "--symbolic", "a1,,a2"], "--symbolic: entry 2 of 'a1,,a2' is empty"),
    (["export", str(PLANAR), "--lang", "c", "--what", "regressor,,slotine_li"],
     "--what: entry 2 of 'regressor,,slotine_li' is empty"),
])
def test_an_empty_entry_of_a_comma_list_is_refused(tmp_path, monkeypatch, args, said):
    """find --symbolic ,a2 was taken as 'a2' (the empty name dropped), as --mass-bounds '1:0:2,,2:0:3' dropped its
    empty entry; export --what said "unknown function ''"."""
    monkeypatch.chdir(tmp_path)
    _one_line(CliRunner().invoke(main, args), said)
    assert list(tmp_path.iterdir()) == []


def test_comma_lists_of_the_library_share_the_rule(tmp_path):
    from baseparam._validation import comma_list
    assert comma_list(" a2, d4 ,", "symbolic") == ["a2", "d4"]        # a separator ending the list is taken
    for text in (",a1", "a1,,d4", " , ", ""):
        with pytest.raises(bp.ArgumentError, match="^symbolic: entry [12] of .* is empty$"):
            comma_list(text, "symbolic")
    urdf = tmp_path / "arm.urdf"
    inertial = ('<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/>'
                '</inertial>')
    urdf.write_text(f'<robot name="arm"><link name="base"/><link name="l1">{inertial}</link>'
                    '<joint name="j1" type="continuous"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>'
                    '</joint></robot>')
    assert bp.load_robot(urdf, tip="l1,").n_dof == 1
    with pytest.raises(bp.ArgumentError, match="^tip: entry 1 of ',l1' is empty$"):
        bp.load_robot(urdf, tip=",l1")
    from baseparam.projection.symbolic import parse_symbols
    with pytest.raises(bp.ArgumentError, match="^symbolic: entry 1 of ',a2' is empty$"):
        parse_symbols(bp.load_robot(ROOT / "robots" / "puma560.yaml"), ",a2")


# --- 10. the friction 'auto' refusal of the command line names the file ---

@pytest.mark.parametrize("command", [["export", "--lang", "c"], ["equations"]])
def test_the_friction_auto_refusal_names_the_file(tmp_path, monkeypatch, command):
    """export/equations of a description leaving a friction scale 'auto' said "'Arm Two': joints[1]…", the robot's
    name, where every other refusal of a description names its file."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "arm.yaml"
    path.write_text("name: Arm Two\nunits: {length: m, angle: deg}\njoints:\n"
                    "  - {type: revolute, alpha: 0, a: 1, d: 0, friction: true, "
                    "friction_model: {coulomb: smooth, velocity: auto}}\n  - {type: revolute, alpha: 0, a: 1, d: 0}\n")
    result = CliRunner().invoke(main, [command[0], "arm.yaml", *command[1:]])
    _one_line(result, "baseparam: arm.yaml: joints[1].friction_model: the velocity scale is 'auto'",
              "--friction-model smooth:0.05")
    assert "Arm Two" not in result.output
    from baseparam.model.friction import refuse_unresolved
    with pytest.raises(bp.ArgumentError, match="^'Arm Two': joints\\[1\\]"):     # the library names the object given
        refuse_unresolved(bp.load_robot(path))


# --- 5. a floating-base log keeps its joints' names through write_floating_log and back ---

@pytest.mark.parametrize("ext", ["csv", "npz"])
def test_a_floating_log_keeps_its_joint_names(tmp_path, ext):
    """write_floating_log dropped the trajectory's joint names: read back, the log had none (and a log in another order
    than the robot's could not be refused for it)."""
    from baseparam.identification.floating_logs import read_floating_log, write_floating_log
    from baseparam.identification.trajectory import robot_joint_names
    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    rng = np.random.default_rng(4)
    n = robot.n_dof
    q = rng.uniform(-1, 1, (12, n + 7))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    own = robot_joint_names(robot)
    log = bp.Trajectory(t=np.arange(12) * 0.01, q=q, qd=rng.uniform(-1, 1, (12, n + 6)),
                        tau=rng.uniform(-1, 1, (12, n + 6)), floating=True, joint_names=own)
    path = tmp_path / f"log.{ext}"
    write_floating_log(path, log)
    back, _ = read_floating_log(path, robot)
    assert back.joint_names == tuple(own)
    np.testing.assert_array_equal(back.q, q)
    other = [own[1], own[0], *own[2:]]
    write_floating_log(tmp_path / f"other.{ext}", log, joint_names=other)
    with pytest.raises(bp.DataError, match="in this order, the robot"):
        read_floating_log(tmp_path / f"other.{ext}", robot)


# --- 9. user data quoted in a library message are not translated to flags ---

def test_link_names_in_a_refusal_are_not_turned_into_flags(tmp_path):
    """describe arm.urdf --tip total_mass said "no link named '--total-mass'; links: 'base', '--max-disk'": the
    library→CLI translation turned the user's link names into flags."""
    urdf = tmp_path / "t.urdf"
    inertial = '<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>'
    urdf.write_text(f'<robot name="arm"><link name="base"/><link name="max_disk">{inertial}</link><joint name="j1" '
                    'type="continuous"><parent link="base"/><child link="max_disk"/><axis xyz="0 0 1"/></joint>'
                    '</robot>')
    result = CliRunner().invoke(main, ["describe", str(urdf), "--tip", "total_mass"])
    _one_line(result, "--tip: no link named 'total_mass'; links: 'base', 'max_disk'")
    from baseparam.cli import as_flags        # keyword values and maps are still the flags' values
    assert (as_flags("columns={'t': 0, 'current': None}; friction_model='smooth:0.05'; 'max_disk'")
            == "--columns t=0,current=none; --friction-model smooth:0.05; 'max_disk'")


# --- 8. a known quantity fixing one base parameter holds exactly ---

def test_a_known_zero_holds_exactly():
    """identify --known SX1=0 gave SX1 = 2.5e-29 ± 3.5e-26 (the SVD's round-off; a known nonzero value's σ was
    zeroed by a relative test that 0 defeats): now 0 ± 0, as the value known."""
    from baseparam.identification.floating import identify_floating
    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    k = np.arange(1, 7)
    ex = bp.free_floating_experiment(bp.Model(robot), np.linspace(0, 5, 101),
                                     lambda t, q, qd: 3 * np.sin(0.5 * k * t + k) + 2 * np.sin(0.43 * k * t),
                                     noise=bp.SensorNoise(tau=0.05, qd=0.002, seed=1), twist_noise=0.0005, seed=1)
    for value in (0.0, 0.3):
        result = identify_floating(robot, ex.log, route="torques", known={"SX1": value})
        i = list(result.names).index("SX1")
        assert result.values[i] == value and result.std[i] == 0.0
