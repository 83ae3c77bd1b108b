"""Review round 17 (rev3): s16-leftcli's commits, read as a maintainer (the cases next to its fixes)."""
import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.trajectory import read_trajectory


def _current_log(tmp_path):
    """A 3-joint current log (t, q, current) and its currents."""
    t = np.linspace(0, 1, 11)
    q = np.column_stack([np.sin(t * k) for k in (1, 2, 3)])
    current = np.column_stack([np.cos(t * k) for k in (1, 2, 3)])
    path = tmp_path / "cur.csv"
    header = "t,q1,q2,q3,current1,current2,current3"
    np.savetxt(path, np.column_stack([t, q, current]), delimiter=",", header=header, comments="", fmt="%.17g")
    return path, current


def test_gains_text_with_an_empty_entry_is_refused_not_shifted(tmp_path):
    """e6ba251 refused an empty entry in every comma list of the command line (--pose 0,,1 moved the values after it
    to the joints before them); the library's gains text still dropped it: gains='2,,0.5,3.25' for 3 joints was read
    as (2, 0.5, 3.25), the gains of joints 2 and 3 given to the wrong joints, silently."""
    path, current = _current_log(tmp_path)
    with pytest.raises(bp.DataError, match=r"gains: entry 2 of '2,,0\.5,3\.25' is empty"):
        read_trajectory(path, gains="2,,0.5,3.25")
    # what was taken is still taken: commas and blanks, a trailing separator (as the number lists take it), one gain
    for text, gains in (("2.0, 0.5, 3.25", [2.0, 0.5, 3.25]), ("2 0.5  3.25", [2.0, 0.5, 3.25]),
                        ("2, 0.5 3.25", [2.0, 0.5, 3.25]), ("2,0.5,3.25,", [2.0, 0.5, 3.25]), ("4", [4.0] * 3)):
        np.testing.assert_array_equal(read_trajectory(path, gains=text).tau, current * np.array(gains))


def test_suggest_static_poses_names_its_own_joints_parameter():
    """8a2d395 refused more moving joints than the robot has in moving_joints, shared by suggest_static_poses, whose
    parameter is ``joints``: suggest_static_poses(ur10e, 6, joints=7) said 'payload_joints: …', a parameter it has
    not (and 0 said so too). excite's payload_joints keeps its name; the robot's name is quoted as elsewhere."""
    from baseparam.excitation import suggest_static_poses
    from conftest import ROOT
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    for joints, said in ((7, "7 last joints to move, but 'UR10e' has 6"), (0, "expected a whole number ≥ 1")):
        with pytest.raises(bp.ArgumentError, match=f"^joints: {said}"):
            suggest_static_poses(robot, 6, joints=joints)
    from baseparam.excitation.payload import moving_joints        # design_excitation's payload_joints
    with pytest.raises(bp.ArgumentError, match="^payload_joints: 7 last joints to move"):
        moving_joints(robot, 7)


@pytest.mark.parametrize("flag, name, said", [
    ("--urdf", "o.yaml", "--urdf: o.yaml: writes URDF, and a '.yaml' name says YAML"),
    ("--urdf", "o.YML", "--urdf: o.YML: writes URDF, and a '.YML' name says YAML"),
    ("--mjcf", "o.urdf", "--mjcf: o.urdf: writes MJCF, and a '.urdf' name says URDF"),
])
def test_identify_description_outputs_refuse_another_formats_name(tmp_path, monkeypatch, flag, name, said):
    """c0be57e refused --yaml under a .urdf name (load_robot reads a description by its extension) through one table,
    but not the other descriptions identify writes: --urdf o.yaml wrote URDF XML that load_robot reads as YAML (and
    refuses), after the fit; now refused in one line before any work, as --yaml's."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT
    monkeypatch.chdir(tmp_path)
    (tmp_path / "log.csv").write_text("t,q1,q2,q3,tau1,tau2,tau3\n")
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), "log.csv",
                                       "--method", "consistent", flag, name])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert said in result.output and "give a " in result.output, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.csv"]


def test_column_map_parsed_as_every_comma_list():
    """e6ba251 made comma_list the one parser of the comma lists (a separator ending the list taken, an empty entry
    refused naming its place); the column map (--columns, columns='…') kept its own split: 't=0,q=1:4,' was refused
    as "entry '': expected FIELD=COLUMNS", where --pose 1,2,3, and --symbolic a2, are taken."""
    from baseparam.identification.trajectory import parse_column_map
    expected = {"t": 0, "q": slice(1, 4), "tau": slice(4, 7)}
    assert parse_column_map("t=0,q=1:4,tau=4:7,") == parse_column_map("t=0, q=1:4 ,tau=4:7, ") == expected
    for text, said in (("t=0,,q=1:4", "column map: entry 2 of 't=0,,q=1:4' is empty"),
                       (" ", "column map ' ': entry '': expected FIELD=COLUMNS"),
                       ("t=0,q", "column map 't=0,q': entry 'q': expected FIELD=COLUMNS")):
        with pytest.raises(bp.DataError, match=f"^{said}"):
            parse_column_map(text)


def test_wrench_column_names_parsed_as_every_comma_list(tmp_path):
    """The wrench's CSV column names (payload --wrench fx,fy,…) kept their own split next to comma_list: a trailing
    separator ('fx,fy,fz,mx,my,mz,') was refused as 'expected 6 column names', where the other lists take it."""
    from baseparam.identification.payload_wrench import read_wrench
    values = np.arange(18.0).reshape(3, 6)
    path = tmp_path / "w.csv"
    np.savetxt(path, values, delimiter=",", header="fx,fy,fz,mx,my,mz", comments="")
    for names in ("fx,fy,fz,mx,my,mz", "fx, fy, fz, mx, my, mz,"):
        np.testing.assert_array_equal(read_wrench(str(path), names), values)
    with pytest.raises(bp.SettingsError, match="^wrench: entry 2 of 'fx,,fy,fz,mx,my,mz' is empty"):
        read_wrench(str(path), "fx,,fy,fz,mx,my,mz")
    with pytest.raises(bp.SettingsError, match="^wrench: expected 6 column names"):
        read_wrench(str(path), "fx,fy,fz,mx,my")
