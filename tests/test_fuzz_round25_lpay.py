"""Round twenty-five's payload leftovers (lpay, issues 25 and 28): the payload fit's friction columns, the wide
design's default budget, the flange's checks, a YAML robot's friction in written descriptions."""
import dataclasses
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.dynamics.regressors import _evaluate as evaluate
from baseparam.identification._payload_math import NAMES
from baseparam.identification.payload import PayloadResult, identify_payload, payload_parameters
from baseparam.identification.payload_vendors import flange_links
from baseparam.identification.payload_wrench import sensor_placement
from baseparam.model.attach import with_payload
from baseparam.model.friction import FrictionModel, with_friction_model
from baseparam.model.parameters import described_parameters
from conftest import EXAMPLES, ROOT, one_line

UR, LWR = ROOT / "robots" / "ur10e.yaml", ROOT / "robots" / "kuka_lwr4.yaml"
PAYLOAD = (2.0, np.array([0.03, -0.02, 0.06]), np.array([[0.012, 0.002, 0.0], [0.002, 0.010, 0.001],
                                                         [0.0, 0.001, 0.006]]))


def _motion(n, seconds=10.0, dt=0.005):
    """Two sines per joint: t (S,), q, q̇, q̈ (S, n), exact."""
    t = np.arange(0.0, seconds, dt)
    k = np.arange(1, n + 1)
    a, b = np.outer(t, 0.7 * k) + k, np.outer(t, 1.9 + 0.3 * k)
    q = 0.4 * np.sin(a) + 0.3 * np.sin(b)
    qd = 0.28 * k * np.cos(a) + 0.3 * (1.9 + 0.3 * k) * np.cos(b)
    qdd = -0.196 * k ** 2 * np.sin(a) - 0.3 * (1.9 + 0.3 * k) ** 2 * np.sin(b)
    return t, q, qd, qdd


def _errors(result, payload=PAYLOAD):
    """Mass (relative), centre of mass (m) and inertia (relative to the largest principal moment) errors."""
    mass, com, inertia = payload
    return (abs(result.mass - mass) / mass, float(np.abs(result.com - com).max()),
            float(np.abs(result.inertia - inertia).max() / np.linalg.eigvalsh(inertia).max()))


def _loaded_log(robot, friction_change):
    """The robot's torques with PAYLOAD on its last link, plus ``friction_change(qd)`` (S, n): the load's friction."""
    t, q, qd, qdd = _motion(robot.n_dof)
    loaded = with_payload(robot, *PAYLOAD)
    tau = evaluate(loaded, q, qd, qdd, parameters="pseudo", weights=described_parameters(loaded, "pseudo"))
    return bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau + friction_change(qd))


# --- 1. friction=True takes the regressor's friction shapes, not a tanh(q̇/0.02) of its own -------------------------

def test_payload_friction_columns_are_the_robots_sign():
    """A loaded UR10e whose Coulomb friction (sign(q̇), the robot model's) rises under the load: the fit's own
    tanh(q̇/0.02) left the inertia 1.1 % of its largest moment off (3.7 % with the default preprocessing); the
    regressor's sign(q̇) gives the payload back exactly, and within the filter's own error when low-passed."""
    robot = bp.load_robot(UR)
    coulomb, viscous = np.array([2.0, 1.5, 1.0, 0.5, 0.5, 0.5]), np.array([0.3, 0.3, 0.2, 0.1, 0.1, 0.1])
    log = _loaded_log(robot, lambda qd: coulomb * np.sign(qd) + viscous * qd + 0.2)
    errors = _errors(identify_payload(robot, log, friction=True, preprocessing=None))
    assert max(errors) <= 1e-9, errors
    errors = _errors(identify_payload(robot, log, friction=True))     # default preprocessing: τ and c(q̇) filtered
    assert errors[0] < 1e-4 and errors[1] < 1e-5 and errors[2] < 1e-3, errors
    # with the same motion unloaded, its own friction (3 N·m Coulomb) cancels; the load's change is fitted away
    t, q, qd, qdd = _motion(robot.n_dof)
    unloaded = evaluate(robot, q, qd, qdd, parameters="pseudo", weights=described_parameters(robot, "pseudo"))
    unloaded = bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=unloaded + 3.0 * np.sign(qd))
    loaded = dataclasses.replace(log, tau=log.tau + 3.0 * np.sign(qd))
    errors = _errors(identify_payload(robot, loaded, unloaded=unloaded, friction=True, preprocessing=None))
    assert max(errors) <= 1e-9, errors


def test_payload_friction_columns_follow_a_joints_friction_model():
    """A 7-joint arm whose joints declare a smooth Coulomb term and a Stribeck term: the payload fit's columns are
    that model's c(q̇) and s(q̇), the load's change of both fitted away."""
    model = FrictionModel("smooth", velocity=0.05, stribeck=0.1)
    robot = with_friction_model(bp.load_robot(LWR), model)
    log = _loaded_log(robot, lambda qd: 1.5 * model.coulomb_shape(qd) + 0.8 * model.stribeck_shape(qd) + 0.1 * qd)
    errors = _errors(identify_payload(robot, log, friction=True, preprocessing=None))
    assert max(errors) <= 1e-9, errors



# --- 3. a flange beyond a locked joint; a placement that is no row of six numbers -----------------------------------

PANDA = EXAMPLES.get("panda.urdf")
needs_panda = pytest.mark.skipif(PANDA is None, reason="example-robot-data's panda.urdf is not installed")


def _placed_result(robot):
    """A payload result on ``robot`` built by hand (no fit): what to_vendor's flange is checked on."""
    mass, com, inertia = PAYLOAD
    p = payload_parameters(mass, com, inertia)
    return PayloadResult(mass=mass, com=com, inertia=inertia, mass_std=0.01, com_std=np.full(3, 1e-3),
                         inertia_std=np.full((3, 3), 1e-4), parameters=p, unconstrained=p, covariance=np.eye(10) * 1e-8,
                         identifiable=list(NAMES), rank=10, mode="model", n_samples=100,
                         rmse=np.zeros(robot.n_dof), robot=robot)


@needs_panda
@pytest.mark.parametrize("tip, beyond, joint", [("panda_link8", "panda_leftfinger", "panda_finger_joint1"),
                                                ("panda_link5", "panda_link7", "panda_joint7")])
def test_a_link_beyond_a_locked_joint_is_no_flange(tip, beyond, joint):
    """``tip`` merges the links beyond it into the last body, locked at q = 0: panda_leftfinger (beyond the finger's
    prismatic joint) and, with the arm cut at link 5, panda_link7 were taken as flange frames fixed to the last link,
    placed as if their joints never moved. Refused naming the joint; the links on fixed joints stay flanges."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(PANDA, tip=tip)
    result = _placed_result(robot)
    with pytest.raises(bp.SettingsError, match=rf"^flange: '{beyond}' lies beyond joint '{joint}', which moves on "
                                               r"the robot .* not a link fixed to the last link"):
        result.to_vendor("franka", flange=beyond)
    assert beyond not in flange_links(robot)
    if tip == "panda_link8":
        assert set(flange_links(robot)) == {"panda_link7", "panda_link8", "panda_hand", "panda_hand_tcp"}
        assert result.to_vendor("franka", flange="panda_hand")["m_load"] == PAYLOAD[0]


@needs_panda
def test_payload_flange_beyond_a_locked_joint_is_one_line(tmp_path):
    """The command line says it before any log is read: exit 2, one line naming --flange and the joint."""
    from click.testing import CliRunner

    from baseparam.cli import main
    log = tmp_path / "loaded.csv"
    log.write_text("t,q1\n")
    result = CliRunner().invoke(main, ["payload", str(PANDA), str(log), "--tip", "panda_link8", "--flange",
                                       "panda_leftfinger"])
    one_line(result, "--flange: 'panda_leftfinger' lies beyond joint 'panda_finger_joint1'", "--mimic lock")


@pytest.mark.parametrize("placement", [np.zeros((2, 3)), [[0.0, 0.0, 0.1], [0.0, 0.0, 0.0]], np.zeros((3, 2, 1))])
def test_a_placement_of_six_numbers_in_two_rows_is_refused(placement):
    """A (2, 3) array was taken as x, y, z, roll, pitch, yaw, row by row, as a flange and as a sensor placement."""
    result = _placed_result(bp.load_robot(UR))
    with pytest.raises(bp.SettingsError, match=r"^flange: expected one row of 6 numbers .* got an array of shape"):
        result.to_vendor("ur", flange=placement)
    with pytest.raises(bp.SettingsError, match=r"^sensor: expected one row of 6 numbers .* got an array of shape"):
        sensor_placement(placement)
    for row in (np.zeros(6), np.zeros((1, 6)), [0.0] * 6):        # one row (or column) of six: as before
        assert np.array_equal(sensor_placement(row)[1], np.zeros(3))


# --- 4. a YAML robot's friction_prior and friction model in the descriptions robot_text writes ---------------------

def _with_priors(robot, model=None):
    """``robot`` (its YAML text dropped) with a friction_prior per joint, and ``model`` on every joint."""
    joints = tuple(dataclasses.replace(j, friction_prior=(0.25 * k, 1.5 + 0.1 * k), friction_model=model)
                   for k, j in enumerate(robot.joints, start=1))
    return dataclasses.replace(robot, joints=joints, source=None)


def test_robot_text_keeps_a_yaml_robots_friction_prior(tmp_path):
    """A YAML robot's friction_prior (its <dynamics damping friction>, the true friction once declared) was left
    out of the URDF robot_text writes, with no word among the terms it says are left out; the YAML kept it. Now
    the URDF has it as each joint's <dynamics>, read back as the same friction_prior. (The joints declare no
    friction: a prior of friction declared without values is no value, round 26's test.)"""
    plain = bp.load_robot(UR)
    robot = _with_priors(dataclasses.replace(plain, joints=tuple(
        dataclasses.replace(j, friction=False, rotor_inertia=False) for j in plain.joints)))
    result = _placed_result(robot)
    with warnings.catch_warnings():
        warnings.simplefilter("error")         # nothing left out to warn about: no friction values declared
        urdf = result.robot_text(robot, "urdf")
    (tmp_path / "r.urdf").write_text(urdf)
    (tmp_path / "r.yaml").write_text(result.robot_text(robot, "yaml"))
    for path in (tmp_path / "r.urdf", tmp_path / "r.yaml"):
        back = bp.load_robot(path)
        assert [j.friction_prior for j in back.joints] == [j.friction_prior for j in robot.joints], path


def test_robot_text_says_a_friction_model_is_left_out_of_a_urdf():
    """A smooth Coulomb shape has no place in a URDF (its friction is sign(q̇)'s): said, as friction values are."""
    robot = _with_priors(bp.load_robot(UR), FrictionModel("smooth", velocity=0.05))
    with pytest.warns(bp.DataWarning, match=r"leaves out its friction models"):
        _placed_result(robot).robot_text(robot, "urdf")


# --- 2. the wide payload design's default time budget ---------------------------------------------------------------

class _Clock:
    """time's stand-in: each reading ``step`` s after the last; no sleep."""

    def __init__(self, step):
        self.now, self.step = 1e9, step

    def time(self):
        self.now += self.step
        return self.now

    monotonic = time
    sleep = staticmethod(lambda seconds: None)


def test_the_wide_payload_design_ends_at_its_default_budget(monkeypatch, tmp_path):
    """``excite --payload --payload-design wide`` ran without a time budget when none was given (412 s for the UR10e
    on a loaded machine, unbounded). Left out, it is now _defaults.WIDE_TIME_BUDGET (300 s): on a clock that runs
    5 s a reading, the start search and the L-BFGS end by it, said in the JSON and in the warnings."""
    import json

    from baseparam.excitation import _defaults, _payload_feasible, _search, design
    from test_excite_cli import run
    from test_excite_payload import ISSUE_LIMITS, KUKA

    clock = _Clock(5.0)
    for module in (design, _search):
        monkeypatch.setattr(module, "time", clock)
    monkeypatch.setattr(_payload_feasible, "ITERATIONS", 1000)      # more than the budget lets run
    (tmp_path / "limits.yaml").write_text(json.dumps(ISSUE_LIMITS))
    start = clock.now
    result = run("excite", KUKA, "--limits", tmp_path / "limits.yaml", "--payload", "--payload-design", "wide",
                 "--period", "4", "--harmonics", "16", "--rate", "50", "--starts", "1", "--json", tmp_path / "d.json")
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "d.json").read_text())
    assert doc["search"]["time_budget"] == 300.0 == _defaults.WIDE_TIME_BUDGET
    assert doc["refinement"]["complete"] is False and doc["refinement"]["iterations"] < 1000
    assert "the time budget (300 s) ended the wide design's L-BFGS after" in result.output
    assert clock.now - start < 300.0 + 60 * clock.step         # the readings after the deadline: the report's
