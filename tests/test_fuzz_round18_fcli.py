"""Round 18 (fcli): the command line's surfaces the earlier rounds missed, each class fixed at its root."""

import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT

UR = ROOT / "robots" / "ur10e.yaml"


def _one_line(result, *parts):
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    for part in parts:
        assert part in result.output, result.output


# --- 1. the files a reader reads besides the one named are inputs too: a LeRobot episode's meta/info.json ---

@pytest.fixture
def lerobot_episode(tmp_path):
    """A LeRobot dataset of one short episode of the UR10e's six joints: the episode's path and its info.json."""
    from test_logs import _lerobot
    t = np.linspace(0.0, 1.0, 11)
    q = np.sin(np.outer(t, np.arange(1, 7)))
    episode = _lerobot(tmp_path, t, q, q, q, [f"joint{k}" for k in range(1, 7)])
    return episode, tmp_path / "meta" / "info.json"


@pytest.mark.parametrize("command", [["payload", str(UR), "{episode}"],
                                     ["identify", str(UR), "{episode}"]])
def test_an_output_over_a_lerobot_episodes_metadata_is_refused(lerobot_episode, command):
    """The episode's reader takes the joint names from ROOT/meta/info.json; `--json ROOT/meta/info.json` replaced the
    dataset's metadata with the payload's JSON (exit 0): that file is one of the run's inputs."""
    episode, info = lerobot_episode
    before = info.read_bytes()
    args = [a.replace("{episode}", str(episode)) for a in command] + ["--json", str(info)]
    _one_line(CliRunner().invoke(main, args), str(info), "input file")
    assert info.read_bytes() == before


# --- 2. a wrist sensor's wrench: values checked where they are read, named by file, sample and component ---

def _wrench_log(tmp_path, rows):
    """A CSV log of the UR10e at rest (t, q1..q6, tau1..tau6) with the wrench columns fx..mz: ``rows`` (S, 6)."""
    S = len(rows)
    header = ",".join(["t"] + [f"q{j}" for j in range(1, 7)] + [f"tau{j}" for j in range(1, 7)]
                      + ["fx", "fy", "fz", "mx", "my", "mz"])
    path = tmp_path / "ft.csv"
    body = np.column_stack([np.arange(S) * 0.01, np.zeros((S, 12)), rows])
    path.write_text(header + "\n" + "\n".join(",".join(repr(float(v)) for v in row) for row in body) + "\n")
    return path


@pytest.mark.parametrize("value,said", [(1e308, "fz: 1e+308 is beyond"), (-1e200, "fz: -1e+200 is beyond"),
                                        (float("nan"), "fz: not finite")])
def test_a_wrench_value_out_of_reach_is_named_by_file_line_and_component(tmp_path, value, said):
    """1e308 in a wrench column: the low-pass filter overflowed and the fit's own check said "loaded: wrench values:
    non-finite value nan at index 0, 0" (no file; a value the file does not hold); a NaN was "row 9" for what an
    editor shows as line 11."""
    rows = np.tile([0.0, 0.0, -19.6, 0.0, 0.0, 0.0], (40, 1))
    rows[9, 2] = value
    path = _wrench_log(tmp_path, rows)
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--wrench", "fx,fy,fz,mx,my,mz"])
    _one_line(result, f"{path}: --wrench: line 11: {said}")


def test_a_wrench_array_out_of_reach_is_named_by_log_and_row():
    """The same check for arrays given to the library, naming the log (its source) and the row."""
    import baseparam as bp
    from baseparam.identification.payload import identify_payload
    robot = bp.load_robot(UR)
    t = np.arange(40) * 0.01
    traj = bp.Trajectory(t=t, q=np.zeros((40, 6)), tau=np.zeros((40, 6)))
    w = np.tile([0.0, 0.0, -19.6, 0.0, 0.0, 0.0], (40, 1))
    w[7, 4] = 1e300
    with pytest.raises(bp.DataError, match=r"wrench: row 7: my: 1e\+300 is beyond"):
        identify_payload(robot, traj, wrench=w)


# --- 3. equations --symbolic: the names checked before the projection; a URDF's refusal names the file ---

_INERTIAL = ('<inertial><mass value="1"/><origin xyz="0.1 0 0"/>'
             '<inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial>')
_URDF = f"""<robot name="arm"><link name="base"/><link name="l1">{_INERTIAL}</link><link name="l2">{_INERTIAL}</link>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
<limit lower="-3" upper="3" effort="10" velocity="2"/></joint>
<joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.5 0 0"/><axis xyz="0 1 0"/>
<limit lower="-3" upper="3" effort="10" velocity="2"/></joint></robot>"""


def test_equations_symbolic_of_a_urdf_is_refused_before_the_projection_naming_the_file(tmp_path, monkeypatch):
    """equations URDF --symbolic all projected first (2 s on the KUKA LWR4+), then said "--symbolic: needs a DH
    description", no file named."""
    import baseparam.projection.base_set as base_set

    def projected(*args, **kwargs):
        raise AssertionError("projected before the symbols were checked")

    monkeypatch.setattr(base_set, "find_base_parameters", projected)
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(_URDF)
    for args in (["equations", str(urdf), "--symbolic", "all"], ["equations", str(ROOT / "robots" / "puma560.yaml"),
                                                                  "--symbolic", "a9"]):
        result = CliRunner().invoke(main, args)
        _one_line(result, "--symbolic")
    assert str(urdf) in CliRunner().invoke(main, ["equations", str(urdf), "--symbolic", "all"]).output


# --- 4. a mass far below zero is no payload, and not 'not told from none' ---

@pytest.mark.parametrize("mode,said", [("difference", "unloaded logs swapped"), ("model", "heavier than the real one"),
                                       ("wrench", "sign")])
def test_a_mass_below_zero_beyond_its_deviation_is_said_so(mode, said):
    """`payload R unloaded.csv --unloaded loaded.csv` (the logs swapped): −2 ± 7e-05 kg, said to be "not told from
    none (below 3 σ or 1 g): no payload seen" (exit 0), of a mass 30 000 σ from none."""
    import warnings

    from baseparam.identification.payload import PayloadResult, _reported, payload_parameters
    p = payload_parameters(-2.0, [0.0, 0.0, 0.0], np.zeros((3, 3)))
    # the fit's consistent estimate is no mass at all (a mass below zero is no body: refused since round 23)
    r = PayloadResult(mass=0.0, com=np.zeros(3), inertia=np.zeros((3, 3)), mass_std=7e-5, com_std=np.zeros(3),
                      inertia_std=np.zeros((3, 3)), parameters=np.zeros(10), unconstrained=p,
                      covariance=np.zeros((10, 10)),
                      identifiable=[], rank=10, mode=mode, n_samples=100, rmse=np.zeros(6))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _reported(r)
    for text in (str(caught[0].message), r.summary().splitlines()[2]):
        assert "below zero" in text and said in text and "not told from none" not in text, text


def test_the_unloaded_logs_refusal_names_the_flag():
    """"unloaded: 1 log for 2 loaded ones" named the library's parameter, not payload's --unloaded."""
    from baseparam.cli import as_flags
    assert as_flags("unloaded: 1 log for 2 loaded ones (one per loaded log)").startswith("--unloaded: 1 log")
    assert as_flags("the loaded and unloaded logs swapped?", clauses=False) == "the loaded and unloaded logs swapped?"


# --- 5. a floating robot refused by a fixed-base command is named by its file ---

@pytest.mark.parametrize("command", [["equations"], ["find", "--symbolic", "all"], ["excite"]])
def test_a_floating_robot_refused_by_a_fixed_base_command_names_its_file(command):
    """"robot: 'space robot (two 3R arms)' has a floating base …": the library's parameter name, no file."""
    space = str(ROOT / "robots" / "space_robot.yaml")
    result = CliRunner().invoke(main, [command[0], space, *command[1:]])
    _one_line(result, f"baseparam: {space}: 'space robot (two 3R arms)' has a floating base")
