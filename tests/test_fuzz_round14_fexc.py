"""Regressions of issue 28's fourteenth fuzzing round over ``excite`` and ``payload`` (1–7-joint robots, prismatic
joints, limits files of every kind, static and moving logs, each option given to a run it might not concern).
The fuzzer was a throwaway (forked process per case, address-space limit, stderr and outputs scanned); these are
the deterministic cases it found, each failing before its fix."""
import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import DataError, SettingsError
from baseparam.identification.payload import identify_payload
from conftest import ROOT, one_line

UR10E = str(ROOT / "robots" / "ur10e.yaml")
PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")

# one revolute joint about z0 with gravity along -z0: at rest the payload's weight loads no joint
VERTICAL_AXIS = """name: vertical axis
convention: standard
units: {length: m, angle: deg}
gravity: [0, 0, -9.81]
joints:
  - {type: revolute, alpha: 0, a: 0.3, d: 0,
     inertia: {mass: 2, com: [0.05, 0.01, 0.02], inertia: [[0.02, 0, 0], [0, 0.03, 0], [0, 0, 0.02]]}}
"""


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _still_log(n_dof, poses=6, hold=60, dt=0.01):
    """Still poses held ``hold`` samples each, torques arbitrary (every case is refused before they matter)."""
    q = np.repeat(np.linspace(-1.0, 1.0, poses)[:, None] * np.ones(n_dof), hold, axis=0)
    return bp.Trajectory(t=np.arange(len(q)) * dt, q=q, tau=np.ones_like(q))


def test_static_poses_of_a_joint_gravity_does_not_load_are_refused_not_an_internal_error(tmp_path):
    """identify_static took max() of the empty set of joints the payload's weight loads: 'internal error:
    ValueError: zero-size array' for a wrist whose axis lies along gravity (payload --static)."""
    robot = bp.parse_robot(VERTICAL_AXIS)
    with pytest.raises(DataError, match="loads no joint"):
        identify_payload(robot, [_still_log(1)], static=True, still_duration=0.2)
    path = tmp_path / "vertical.yaml"
    path.write_text(VERTICAL_AXIS)
    log = tmp_path / "still.csv"
    traj = _still_log(1)
    np.savetxt(log, np.column_stack([traj.t, traj.q, traj.tau]), delimiter=",", header="t,q1,tau1", comments="")
    one_line(_run("payload", path, log, "--static", "--still-duration", "0.2"), "still.csv", "loads no joint")


@pytest.mark.parametrize("flag", [["--friction"], ["--rotor-inertia"], ["--friction-model", "smooth:0.1"]])
def test_drive_terms_a_payload_run_does_not_use_are_refused_not_ignored(flag):
    """payload predicts the robot's torques from its bodies alone and a payload design conditions the last link's
    ten columns: --friction, --rotor-inertia and --friction-model changed no output (bit-identical JSON) and
    exited 0."""
    one_line(_run("payload", UR10E, "log.csv", *flag), flag[0], "no drive terms")
    one_line(_run("payload", UR10E, "--suggest-poses", "6", *flag), flag[0], "no drive terms")
    one_line(_run("excite", PLANAR, "--payload", *flag), flag[0], "no drive terms")


def test_payload_friction_with_static_or_wrench_is_refused_not_ignored():
    """identify_payload(friction=True) with static=True or a wrench fitted no friction term and said nothing."""
    robot = bp.load_robot(UR10E)
    with pytest.raises(SettingsError, match="friction"):
        identify_payload(robot, [_still_log(6)], static=True, friction=True)
    with pytest.raises(SettingsError, match="friction"):
        identify_payload(robot, [_still_log(6)], wrench=np.zeros((360, 6)), friction=True)


def test_a_round_off_column_is_not_an_identifiable_payload_parameter():
    """The payload design scaled each of the last link's columns to unit norm before the rank test, so SY of a
    joint turning about a vertical axis (norm 1e-16, round-off) looked independent: `excite --payload` of such an
    arm reported 'cond = 1.4e+17 over 2 columns, identifiable: …; SY1'. Checked against numpy's rank of the
    unscaled regressor (its tolerance from the largest singular value and machine epsilon)."""
    from baseparam.dynamics.regressor_adjoint import regressor_function
    from baseparam.excitation.payload import payload_columns

    robot = bp.parse_robot(VERTICAL_AXIS)
    limits = bp.motion_limits(robot, {"joints": [{"q": [-1.5, 1.5], "qd": 1.5, "qdd": 5.0}]})
    found = payload_columns(robot, "pseudo", limits, joints=1)
    rng = np.random.default_rng(1)
    q, qd, qdd = (rng.uniform(-1, 1, (50, 1)) for _ in range(3))
    A = regressor_function(robot, "pseudo", found.columns)(q, qd, qdd).reshape(-1, len(found.columns))
    assert found.rank == np.linalg.matrix_rank(A) == 1
    assert not any("SY" in c for c in found.combinations)
