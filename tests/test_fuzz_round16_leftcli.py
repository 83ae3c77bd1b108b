"""Round 16: the command line's and readers' leftovers of stop 40 ("Left (found, not fixed)", set "cli")."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT, address_space_capped

UR = ROOT / "robots" / "ur10e.yaml"
# a 2 kg tool (mass, com, inertia about the com), as test_payload's first case
PAYLOAD = (2.0, [0.03, -0.02, 0.06], [[0.012, 0.002, 0.0], [0.002, 0.010, 0.001], [0.0, 0.001, 0.006]])


@pytest.fixture(scope="module")
def loaded_motion():
    """The UR10e carrying PAYLOAD along a multi-sine at 50 Hz, torques by pinocchio (test_payload._torques):
    t (S,), q (S, 6), tau (S, 6)."""
    from test_payload import _multisine, _torques
    robot = bp.load_robot(UR)
    t, q, qd, qdd = _multisine(robot.n_dof, dt=0.02, duration=10.0)
    return t, q, _torques(robot, PAYLOAD, q, qd, qdd)


def _assert_payload(doc):
    assert abs(doc["mass"] - PAYLOAD[0]) < 0.02 * PAYLOAD[0]
    assert np.allclose(doc["com"], PAYLOAD[1], atol=0.005)


# --- 1. payload takes identify's trajectory options (one definition): --topic, --clock, --delay ---

def test_payload_reads_a_bag_by_topic_clock_and_joint_names(loaded_motion, tmp_path):
    """A bag with two JointState topics: the arm's (joints named in another order, headers not stamped: the
    recorder's clock) and another robot's on /joint_states. payload had no --topic nor --clock, and read a bag's
    joints in the message's order."""
    from test_logs import _ns, write_bag
    t, q, tau = loaded_motion
    order = [3, 0, 5, 1, 4, 2]
    names = [f"joint{k + 1}" for k in order]
    arm = [(int(_ns(t[k])), 0, names, q[k, order], [], tau[k, order]) for k in range(t.size)]
    other = [(int(_ns(t[k])), int(_ns(t[k])), names, 0 * q[k], [], 0 * tau[k]) for k in range(t.size)]
    bag = write_bag(tmp_path / "bag", "mcap", {"/joint_states": other, "/arm/joint_states": arm})
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", str(UR), str(bag), "--topic", "/arm/joint_states", "--clock",
                                       "receive", "--json", str(out)])
    assert result.exit_code == 0, result.output
    _assert_payload(json.loads(out.read_text()))


def test_payload_matches_a_bags_joints_by_name(loaded_motion, tmp_path):
    """payload read a bag's joints in the order its messages list them: joint4, joint1, … taken as joint1, joint2, …
    gave 1.25 kg for 2 kg, the centre of mass metres off, and exit 0."""
    from test_logs import _ns, write_bag
    t, q, tau = loaded_motion
    order = [3, 0, 5, 1, 4, 2]
    names = [f"joint{k + 1}" for k in order]
    bag = write_bag(tmp_path / "bag", "mcap", {"/joint_states": [
        (int(_ns(t[k])), int(_ns(t[k])), names, q[k, order], [], tau[k, order]) for k in range(t.size)]})
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", str(UR), str(bag), "--json", str(out)])
    assert result.exit_code == 0, result.output
    _assert_payload(json.loads(out.read_text()))


def test_payload_shifts_the_effort_by_its_delay(loaded_motion, tmp_path):
    """Torques logged 40 ms behind the positions: --delay auto finds the delay (said in ms), --delay SECONDS
    applies it; payload had no --delay."""
    t, q, tau = loaded_motion
    lag = 2                                          # samples of 20 ms
    path = tmp_path / "lagging.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)])
    np.savetxt(path, np.column_stack([t[lag:], q[lag:], tau[:-lag]]), delimiter=",", header=header, comments="")
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--delay", "auto", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "effort delay 40 ms" in result.output
    _assert_payload(json.loads(out.read_text()))
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--delay", "0.04", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "effort delay 40 ms applied" in result.output
    _assert_payload(json.loads(out.read_text()))


# --- 2. an output whose name must say what it is: equations --python (a module) as --robot-out (its format) ---

@pytest.mark.parametrize("name", ["o.json", "o", "o.py.txt"])
def test_equations_python_module_needs_a_py_name(tmp_path, name):
    """equations --python o.json wrote a Python module under a name Python does not import (exit 0)."""
    out = tmp_path / name
    result = CliRunner().invoke(main, ["equations", str(ROOT / "robots" / "planar_rrr.yaml"), "--python", str(out)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "--python" in result.output and "expected a .py file name" in result.output
    assert not out.exists()


def test_robot_out_refusal_is_the_same_check(tmp_path):
    result = CliRunner().invoke(main, ["payload", str(UR), str(tmp_path / "x.csv"), "--robot-out",
                                       str(tmp_path / "r.json")])
    assert result.exit_code == 2
    assert "--robot-out" in result.output
    assert "expected a .yaml, .yml, .urdf or .xml file name, got '.json'" in result.output


# --- 3. --mimic lock|independent on a URDF without mimic joints: one warning line, not silence ---

def _two_link_urdf(path, mimic=False):
    """Two revolute joints (the second mimicking the first when ``mimic``), each link 1 kg."""
    inertial = ('<inertial><mass value="1"/><origin xyz="0.1 0 0"/>'
                '<inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial>')
    joint = ('<joint name="j{k}" type="revolute"><parent link="l{p}"/><child link="l{k}"/><axis xyz="0 0 1"/>'
             '<origin xyz="0.3 0 0"/><limit lower="-3" upper="3" effort="10" velocity="2"/>{m}</joint>')
    path.write_text('<robot name="two"><link name="l0"/>'
                    + "".join(f'<link name="l{k}">{inertial}</link>' for k in (1, 2))
                    + joint.format(k=1, p=0, m="")
                    + joint.format(k=2, p=1, m='<mimic joint="j1"/>' if mimic else "") + "</robot>")
    return path


@pytest.mark.parametrize("mode", ["lock", "independent"])
def test_mimic_option_without_mimic_joints_warns(tmp_path, mode):
    path = _two_link_urdf(tmp_path / "two.urdf")
    with pytest.warns(bp.DescriptionWarning, match=f"mimic='{mode}': no <mimic> joint .* changes nothing"):
        bp.load_robot(path, mimic=mode)
    result = CliRunner().invoke(main, ["describe", str(path), "--mimic", mode])
    assert result.exit_code == 0
    said = [line for line in result.output.splitlines() if "changes nothing" in line]
    assert len(said) == 1 and said[0].startswith("baseparam: warning:") and f"--mimic {mode}" in said[0]


def test_mimic_option_with_mimic_joints_says_what_it_did_only(tmp_path):
    import warnings
    path = _two_link_urdf(tmp_path / "two.urdf", mimic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        robot = bp.load_robot(path, mimic="lock")
    assert robot.n_dof == 1
    said = [str(w.message) for w in caught if issubclass(w.category, bp.DescriptionWarning)]
    assert len(said) == 1 and "1 mimic joint ('j2') locked at q = 0" in said[0]


# --- 4. the payload summary says plainly when no payload is seen (the warning and the JSON said it) ---

def test_payload_summary_says_no_payload_is_seen(tmp_path):
    """The UR10e's torques without a payload (pinocchio): the fit's mass is 0 within its deviation, which the
    DataWarning (stderr) and the JSON (no vendor formats) said, and the text on stdout did not."""
    from test_payload import _multisine, _torques
    robot = bp.load_robot(UR)
    t, q, qd, qdd = _multisine(robot.n_dof, dt=0.02, duration=10.0)
    tau = _torques(robot, (0.0, np.zeros(3), np.zeros((3, 3))), q, qd, qdd)
    path = tmp_path / "empty.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)])
    np.savetxt(path, np.column_stack([t, q, tau]), delimiter=",", header=header, comments="")
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["vendors"] is None
    said = [line for line in result.stdout.splitlines() if "no payload seen" in line]
    assert len(said) == 1 and "the mass is not told from none" in said[0] and "mean nothing" in said[0]
    assert "no payload seen" in result.stderr                   # the warning, as before


@pytest.mark.parametrize("mass,mass_std,said", [(0.5, np.nan, "the mass is not determined by these data"),
                                                (0.0005, 0.0001, "no payload seen"), (1.5, 0.01, None)])
def test_payload_summary_line_follows_mass_detected(mass, mass_std, said):
    from baseparam.identification.payload import PayloadResult, payload_parameters
    p = payload_parameters(mass, [0.01, 0.0, 0.05], np.diag([0.004, 0.005, 0.003]))
    r = PayloadResult(mass=mass, com=np.array([0.01, 0.0, 0.05]), inertia=np.diag([0.004, 0.005, 0.003]),
                      mass_std=mass_std, com_std=np.zeros(3), inertia_std=np.zeros((3, 3)), parameters=p,
                      unconstrained=p, covariance=np.zeros((10, 10)), identifiable=[], rank=10, mode="model",
                      n_samples=100, rmse=np.zeros(6))
    lines = r.summary().splitlines()
    assert r.mass_detected == (said is None)
    assert [line for line in lines if "mean nothing" in line] == ([] if said is None else [lines[2]])
    assert said is None or said in lines[2]


# --- 5. --static --still-duration 0 (a table of poses, one row each) refuses a log of motion ---

def test_static_table_mode_refuses_a_log_of_motion(loaded_motion, tmp_path):
    """Every row of a moving log was taken as a still pose: torques of inertia and friction fitted as gravity's,
    a static estimate and exit 0."""
    t, q, tau = loaded_motion
    path = tmp_path / "moving.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)])
    np.savetxt(path, np.column_stack([t, q, tau]), delimiter=",", header=header, comments="")
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--static", "--still-duration", "0"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "moving.csv" in result.output and "--still-duration 0 takes each row as a still pose" in result.output
    assert "the robot moves through them" in result.output
    # the rows of a table of poses (as payload --suggest-poses proposes them) are still taken, each a pose
    from baseparam.excitation.static_poses import suggest_static_poses
    from baseparam.identification.payload_static import still_poses
    poses = suggest_static_poses(bp.load_robot(UR), 6).poses
    table = bp.Trajectory(t=np.arange(12.0), q=np.repeat(poses, 2, axis=0), tau=np.zeros((12, 6)))
    assert np.array_equal(still_poses(table, min_duration=0)[0], poses)


# --- 6. the floating-base CSV reader reads its header as the fixed-base reader does ---

SPACE = ROOT / "robots" / "space_robot.yaml"


def floating_text(rows=12, extra_name=None):
    """A floating-base log of the space robot (6 joints) as CSV text: its header line t, q1…q13, qd1…qd12 and, with
    ``extra_name``, one more column of that name (zeros); its data lines (each ending with a newline); and its
    (rows, 26) values."""
    rng = np.random.default_rng(4)
    q = rng.uniform(-1, 1, (rows, 13))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)       # the base quaternion (x, y, z, w)
    table = np.column_stack([np.arange(rows) * 0.01, q, rng.uniform(-1, 1, (rows, 12))])
    extra = [] if extra_name is None else [extra_name]
    header = ",".join(["t"] + [f"q{k + 1}" for k in range(13)] + [f"qd{k + 1}" for k in range(12)] + extra)
    return header, "".join(",".join([repr(float(x)) for x in row] + ["0"] * len(extra)) + "\n" for row in table), table


@pytest.mark.parametrize("kind", ["bom", "joints line", "savetxt header", "utf-16", "crlf"])
def test_floating_csv_header_read_as_the_fixed_base_reader_reads_it(tmp_path, kind):
    """A UTF-8 byte-order mark (a spreadsheet's CSV) or a leading '# joints:' line (write_trajectory's) before the
    header: 'line 1: expected a header row starting with 't'' from the floating-base reader, read by the fixed-base
    one."""
    from baseparam.identification.floating_logs import read_floating_log
    header, body, table = floating_text()
    text = {"bom": "\ufeff" + header + "\n" + body,
            "joints line": "# joints: " + ",".join(f"joint{k}" for k in range(1, 7)) + "\n" + header + "\n" + body,
            "savetxt header": "# " + header + "\n" + body,
            "utf-16": header + "\n" + body, "crlf": (header + "\n" + body).replace("\n", "\r\n")}[kind]
    path = tmp_path / "log.csv"
    path.write_bytes(text.encode("utf-16") if kind == "utf-16" else text.encode())
    traj, _ = read_floating_log(path, bp.load_robot(SPACE))
    assert np.array_equal(traj.t, table[:, 0]) and np.array_equal(traj.q, table[:, 1:14])
    assert np.array_equal(traj.qd, table[:, 14:])


def test_floating_csv_joints_line_in_another_order_is_refused_as_the_fixed_base_reader_refuses_it(tmp_path):
    from baseparam.identification.floating_logs import read_floating_log
    header, body, _ = floating_text()
    path = tmp_path / "log.csv"
    path.write_text("# joints: joint2,joint1,joint3,joint4,joint5,joint6\n" + header + "\n" + body)
    with pytest.raises(bp.DataError, match=r"log\.csv: the file names its joints .* in this order"):
        read_floating_log(path, bp.load_robot(SPACE))


def test_floating_csv_damage_is_named_by_the_line_an_editor_shows(tmp_path):
    """Below a '# joints:' line and a blank line, the damaged value's line is the file's, not the data's row."""
    from baseparam.identification.floating_logs import read_floating_log
    header, body, _ = floating_text()
    rows = body.splitlines()
    rows[2] = "abc" + rows[2][rows[2].index(","):]
    path = tmp_path / "log.csv"
    path.write_text("# joints: " + ",".join(f"joint{k}" for k in range(1, 7)) + "\n\n" + header + "\n"
                    + "\n".join(rows) + "\n")
    with pytest.raises(bp.DataError, match=r"log\.csv: line 6: field t: not a number \('abc'\)"):
        read_floating_log(path, bp.load_robot(SPACE))


# --- 7. an HDF5 dataset stored uncompressed that declares more values than the whole file holds ---

def _h5_declaring(path, declared, rows=4099):
    """An HDF5 log whose 't' (chunked, unfiltered, one chunk) is rewritten to declare ``declared`` values — its
    dataspace, its chunk's dimensions and its chunk index's end key — while the file keeps its few kB ('q' and 'tau'
    have rows + 1 rows, so that their sizes do not hold the pattern replaced)."""
    import struct

    import h5py
    with h5py.File(path, "w", libver="earliest") as f:        # v1 B-tree chunk index, no header checksums
        f.create_dataset("t", data=np.arange(rows) * 0.01, chunks=(rows,))
        f.create_dataset("q", data=np.zeros((rows + 1, 2)))
        f.create_dataset("tau", data=np.zeros((rows + 1, 2)))
    raw = bytearray(path.read_bytes())
    wide, narrow = struct.pack("<Q", rows), struct.pack("<I", rows)
    at8 = [k for k in range(len(raw) - 7) if raw[k:k + 8] == wide]
    at4 = [k for k in range(len(raw) - 3) if raw[k:k + 4] == narrow and k not in at8]
    assert len(at8) == 3 and len(at4) == 1, (at8, at4)    # dims, max dims, the B-tree's end key; the chunk's dims
    for k in at8:
        raw[k:k + 8] = struct.pack("<Q", declared)
    raw[at4[0]:at4[0] + 4] = struct.pack("<I", declared)
    path.write_bytes(bytes(raw))
    return path


def test_an_uncompressed_dataset_declaring_more_than_its_file_is_refused_before_reading(tmp_path):
    """A few-kB log whose 't' declares 1.9e7 values (152 MB, within the readers' 2e7-value budget): h5py allocated
    them, then libhdf5 said 'addr overflow … eoa = 8552'; under an address-space limit below that, MemoryError."""
    import h5py

    from baseparam._hdf5 import stored_dataset
    path = _h5_declaring(tmp_path / "log.h5", 19_000_000)
    with h5py.File(path, "r") as f:
        assert f["t"].shape == (19_000_000,) and f["t"].compression is None     # the rewrite took
        with pytest.raises(bp.DataError, match=r"^x: declares 19000000 values \(152 MB\) stored uncompressed, more "
                                               r"than the whole file's .* kB; the file is damaged$"):
            stored_dataset(f, "t", "x", bp.DataError)
        assert stored_dataset(f, "q", "x", bp.DataError).shape == (4100, 2)
    with address_space_capped(64 * 2 ** 20):
        with pytest.raises(bp.DataError, match=r"log\.h5: key t: declares 19000000 values"):
            bp.read_trajectory(path)
