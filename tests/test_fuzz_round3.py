"""Fuzzing this round's newest surfaces (issue 28, third round). The floating-base inputs of
`baseparam identify ROBOT LOG --route … --contacts C.yaml`: floating-base logs (CSV and NPZ) damaged byte by
byte and cell by cell, and contact files built to attack the YAML reader (non-UTF-8 bytes, keys twice, YAML 1.1
spellings, depth and alias bombs, Python tags, names that forge output lines).

``read_floating_log`` returns finite arrays or raises a one-line :class:`BaseParamError` naming the file;
``read_contacts`` likewise, with a message of bounded length; ``baseparam identify`` exits 0 or 2, no traceback.
Then the payload's held pose and undetermined deviations, and the closed-form equations' term bound.
Derandomized and bounded (a few seconds)."""
import io
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import BaseParamError
from baseparam.excitation.static_poses import suggest_static_poses
from baseparam.identification.floating_logs import read_contacts, read_floating_log, write_floating_log
from conftest import ROOT
from test_fuzz_logs import EDITS, damage

SPACE = str(ROOT / "robots" / "space_robot.yaml")
FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
CELLS = ["nan", "inf", "-inf", "1e400", "", "abc", "0x10", "1+2j", "True", "\x00", "é", "1,2"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """The space robot drifting freely for 1 s (21 samples), as CSV and NPZ, with two contacts' wrenches."""
    folder = tmp_path_factory.mktemp("valid")
    model = bp.Model(bp.load_robot(SPACE))
    k = np.arange(1, 7)
    ex = bp.free_floating_experiment(model, np.linspace(0, 1, 21), lambda t, q, qd: 3 * np.sin(0.5 * k * t + k))
    w = np.random.default_rng(0).normal(size=(ex.log.n_samples, 2, 6))
    for ext in ("csv", "npz"):
        write_floating_log(folder / f"log.{ext}", ex.log, w)
    (folder / "contacts.yaml").write_text("contacts:\n  - {link: 3, xyz: [0.1, 0, 0]}\n  - {link: 6}\n")
    return folder


def check_read(path, contacts=2):
    robot = bp.load_robot(SPACE)
    try:
        traj, w = read_floating_log(path, robot, contacts)
    except BaseParamError as exc:
        message = str(exc)
        assert "\n" not in message and str(path) in message and len(message) < 500, message
        return None
    for field in ("t", "q", "qd", "qdd", "tau"):
        values = getattr(traj, field)
        assert values is None or np.isfinite(values).all(), field
    assert w is None or np.isfinite(w).all()
    return traj


@FUZZ
@given(ext=st.sampled_from(["csv", "npz"]), edits=EDITS)
def test_damaged_bytes(logs, tmp_path_factory, ext, edits):
    path = tmp_path_factory.mktemp("bytes") / f"damaged.{ext}"
    path.write_bytes(damage((logs / f"log.{ext}").read_bytes(), edits))
    check_read(path)


@FUZZ
@given(row=st.integers(0, 21), col=st.integers(0, 120), cell=st.sampled_from(CELLS),
       newline=st.sampled_from(["\n", "\r\n", "\r"]))
def test_damaged_csv_cells(logs, tmp_path_factory, row, col, cell, newline):
    lines = (logs / "log.csv").read_text().splitlines()
    cells = lines[row].split(",")
    cells[col % len(cells)] = cell
    lines[row] = ",".join(cells)
    path = tmp_path_factory.mktemp("cells") / "damaged.csv"
    path.write_bytes((newline.join(lines) + newline).encode("utf-8"))
    check_read(path)


def npz_member(array):
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


@pytest.mark.parametrize("change", ["twice", "text", "complex", "object", "cut", "huge"])
def test_npz_archives(logs, tmp_path, change):
    """Members numpy's np.load would take (the last of two names), unpickle, or read as text; a cut archive."""
    path = tmp_path / "log.npz"
    path.write_bytes((logs / "log.npz").read_bytes())
    if change == "cut":
        path.write_bytes(path.read_bytes()[:1000])
    elif change == "twice":
        with zipfile.ZipFile(path, "a") as z, pytest.warns(UserWarning):
            z.writestr("q.npy", npz_member(np.zeros((21, 13))))
    else:
        with np.load(logs / "log.npz") as z:
            arrays = dict(z)
        arrays["qd"] = {"text": arrays["qd"].astype(str), "complex": arrays["qd"] + 1j,
                        "huge": np.zeros((21, 13))}.get(change, arrays["qd"])
        if change == "object":
            arrays["qd"] = np.array([None] * 21, dtype=object)
            np.savez(path, allow_pickle=True, **arrays)
        else:
            np.savez(path, **arrays)
    with pytest.raises(BaseParamError, match=r"log\.npz"):
        read_floating_log(path, bp.load_robot(SPACE), 2)


BOMB = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(6))
CONTACTS = {
    "latin-1": b"contacts:\n  - {link: 3, name: caf\xe9}\n",
    "twice": b"contacts:\n  - {link: 3}\ncontacts:\n  - {link: 4}\n",
    "octal": b"contacts:\n  - {link: 3, xyz: [010, 0, 0]}\n",
    "sexagesimal": b"contacts:\n  - {link: 3, xyz: [1:30, 0, 0]}\n",
    "deep": b"contacts: " + b"[" * 3000 + b"]" * 3000 + b"\n",
    "python tag": b"contacts:\n  - !!python/object/apply:os.getcwd []\n",
    "forged line": b'contacts:\n  - {link: 3, name: "a\\nbaseparam: done"}\n',
    "alias bomb xyz": (BOMB + "contacts:\n  - {link: 3, xyz: *g}\n").encode(),
    "alias bomb link": (BOMB + "contacts:\n  - {link: *g}\n").encode(),
    "keys of two types": b"contacts:\n  - {link: 3, 5: x, a: y}\n",
    "absurd xyz": b"contacts:\n  - {link: 3, xyz: [1e300, 0, 0]}\n",
    "empty": b"",
}


@pytest.mark.parametrize("case", list(CONTACTS))
def test_contact_files(tmp_path, case):
    path = tmp_path / "contacts.yaml"
    path.write_bytes(CONTACTS[case])
    with pytest.raises(BaseParamError) as caught:
        read_contacts(path, bp.load_robot(SPACE))
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and len(message) < 500, message


@settings(FUZZ, max_examples=25)
@given(ext=st.sampled_from(["csv", "npz"]), edits=EDITS, route=st.sampled_from(["torques", "base", "momentum"]))
def test_identify_exits_0_or_2(logs, tmp_path_factory, ext, edits, route):
    path = tmp_path_factory.mktemp("cli") / f"damaged.{ext}"
    path.write_bytes(damage((logs / f"log.{ext}").read_bytes(), edits))
    extra = ["--contacts", str(logs / "contacts.yaml")] if route != "momentum" else ["--known", "mass=448"]
    result = CliRunner().invoke(main, ["identify", SPACE, str(path), "--route", route, *extra])
    assert result.exit_code in (0, 2), result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output


@pytest.mark.parametrize("command", [["payload", "--suggest-poses", "4"], ["excite", "--payload"]])
@pytest.mark.parametrize("value", ["1e300", "-1e9"])
def test_held_pose_of_joints_without_limits_is_bounded(tmp_path, command, value):
    """A joint without position limits still has no position of 1e300 rad (the dynamics' products overflow)."""
    with pytest.raises(BaseParamError, match=r"pose: joint 1: .* is not a joint position"):
        suggest_static_poses(bp.load_robot(ROOT / "robots" / "ur5.yaml"), 4, pose=[float(value)] + [0.5] * 5)
    limits = tmp_path / "limits.yaml"
    limits.write_text("joints:\n" + "  - {qd: 2, qdd: 5}\n" * 6)
    args = [command[0], str(ROOT / "robots" / "ur5.yaml"), *command[1:], "--pose", ",".join([value] + ["0.5"] * 5)]
    result = CliRunner().invoke(main, args + (["--limits", str(limits)] if command[0] == "excite" else []))
    assert result.exit_code == 2 and "is not a joint position" in result.output, result.output


def test_undetermined_payload_deviations_are_not_printed_as_nan(tmp_path):
    """A static payload fit whose mass clips to 0 leaves the centre of mass undetermined: NaN in the result
    (null in the JSON), 'undetermined' in the text, never 'nan' (the fuzzing round's rule: no NaN shown)."""
    # a table of 40 still poses (--still-duration 0 refuses a log of motion), the torques of gravity with the last
    # link lighter than the model's: the payload's mass fits below 0 and is clipped
    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    p = np.array(bp.Model(robot).values(), float)
    p[bp.ColumnLayout(robot).link_columns[-1]] *= 0.8
    q = np.random.default_rng(0).uniform(-1.5, 1.5, (40, 6))
    tau = np.array([bp.gravity_torque(bp.Model(robot, p), x) for x in q]) + 0.01
    header = ",".join(["t"] + [f"{f}{k}" for f in ("q", "tau") for k in range(1, 7)])
    np.savetxt(tmp_path / "log.csv", np.column_stack([np.arange(40.0), q, tau]), delimiter=",", header=header,
               comments="")
    result = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "ur10e_cad.yaml"), str(tmp_path / "log.csv"),
                                       "--static", "--still-duration", "0"])
    assert result.exit_code == 0, result.output
    assert "undetermined" in result.output and "nan" not in result.output.lower(), result.output


@pytest.mark.parametrize("value", ["0", "-1"])
def test_equations_term_bound_is_a_positive_number(value):
    """--max-terms 0 or -1 refused at once, not after the projection as 'more than -1 terms'."""
    result = CliRunner().invoke(main, ["equations", str(ROOT / "robots" / "planar_rrr.yaml"), "--max-terms", value])
    assert result.exit_code == 2 and f"--max-terms: expected a whole number ≥ 1, got {value}" in result.output, \
        result.output


@pytest.mark.parametrize("listed", ["../elsewhere/outside.mcap", "ABSOLUTE"])
def test_bag_folder_reads_no_file_outside_it(tmp_path, listed):
    """A ROS 2 bag folder's metadata.yaml names its files: one outside the folder is refused, not read."""
    from test_fuzz_logs import NAMES, motion, write_bag
    t, q, qd, tau = motion()
    folder = tmp_path / "bag"
    mcap = write_bag(folder, "ros2", [(int(round(t[k] * 1e9)), NAMES, q[k], qd[k], tau[k]) for k in range(len(t))])
    bp.read_trajectory(folder, joints=NAMES)                                       # the valid folder reads
    (tmp_path / "elsewhere").mkdir()
    outside = tmp_path / "elsewhere" / "outside.mcap"
    mcap.rename(outside)
    name = str(outside) if listed == "ABSOLUTE" else listed
    meta = folder / "metadata.yaml"
    meta.write_text(meta.read_text().replace(mcap.name, name))
    assert name in meta.read_text()
    with pytest.raises(BaseParamError, match="outside the bag folder"):
        bp.read_trajectory(folder, joints=NAMES)


@pytest.mark.parametrize("files", [5, "x.mcap", {"path": "x.mcap"}])
def test_bag_folder_whose_file_list_is_not_a_list_is_refused(tmp_path, files):
    """A metadata.yaml whose ``files`` is not a list skipped the outside-the-folder check of every listed file (a
    TypeError ended it early), and the readers then opened a link leading out of the folder; refused in one line."""
    import yaml

    from test_fuzz_logs import NAMES, motion, write_bag
    t, q, qd, tau = motion()
    folder = tmp_path / "bag"
    mcap = write_bag(folder, "ros2", [(int(round(t[k] * 1e9)), NAMES, q[k], qd[k], tau[k]) for k in range(len(t))])
    (tmp_path / "elsewhere").mkdir()
    outside = tmp_path / "elsewhere" / "outside.mcap"
    mcap.rename(outside)
    mcap.symlink_to(outside)                                       # the listed name, a link leading out
    meta = folder / "metadata.yaml"
    data = yaml.safe_load(meta.read_text())
    data["rosbag2_bagfile_information"]["files"] = files
    meta.write_text(yaml.safe_dump(data))
    with pytest.raises(BaseParamError, match="metadata.yaml: files: expected a list"):
        bp.read_trajectory(folder, joints=NAMES)


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("command", [["describe", "FIFO"], ["identify", "PLANAR", "FIFO"],
                                     ["identify", "SPACE", "FIFO", "--route", "momentum", "--known", "mass=448"]])
def test_a_named_pipe_as_input_is_refused_not_waited_on(tmp_path, command):
    """A FIFO given as a robot or a log blocked the reader for ever; refused at once, in one line."""
    import os
    import subprocess
    import sys
    fifo = tmp_path / "log.csv"
    os.mkfifo(fifo)
    names = {"FIFO": str(fifo), "PLANAR": str(ROOT / "robots" / "planar_rrr.yaml"), "SPACE": SPACE}
    proc = subprocess.run([sys.executable, "-m", "baseparam.cli", *[names.get(a, a) for a in command]],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == f"baseparam: {fifo}: not a regular file (a pipe or a device); baseparam reads " \
                                  "files and bag folders", proc.stderr
