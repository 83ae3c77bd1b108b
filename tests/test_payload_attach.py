"""The payload as a body on the last link: the attached robot's dynamics against pinocchio with the payload
appended as a separate body (``appendBodyToJoint``), and the descriptions written read back."""
import numpy as np
import pinocchio as pin
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification.payload import PayloadResult, payload_parameters
from conftest import DATA, ROOT, needs_data
from pin_model import build_model

MASS, COM = 2.2, np.array([0.03, -0.02, 0.07])
INERTIA = np.array([[0.012, 0.002, 0.0], [0.002, 0.010, 0.001], [0.0, 0.001, 0.006]])


def _result(n_dof=6):
    p = payload_parameters(MASS, COM, INERTIA)
    return PayloadResult(mass=MASS, com=COM, inertia=INERTIA, mass_std=0.0, com_std=np.zeros(3),
                         inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p, covariance=np.zeros((10, 10)),
                         identifiable=[], rank=10, mode="model", n_samples=1, rmse=np.zeros(n_dof))


def _states(n, seed=1, samples=6):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-2, 2, (samples, n)) for _ in range(3))


def _pin_with_payload(robot):
    """pinocchio of the unloaded description, and the same with the payload appended to the last joint at the
    DH link frame's placement (a body of its own, added by pinocchio)."""
    inertias = [pin.Inertia(j.inertia.mass, np.asarray(j.inertia.com, float), np.asarray(j.inertia.inertia, float))
                for j in robot.joints]
    unloaded, _ = build_model(robot, inertias)
    loaded, frames = build_model(robot, inertias)
    frame = loaded.frames[frames[-1]]
    loaded.appendBodyToJoint(frame.parentJoint, pin.Inertia(MASS, COM, INERTIA), frame.placement)
    return unloaded, loaded


def _bodies_only(robot):
    """The robot without friction and rotor inertias (declared without values in these descriptions)."""
    import dataclasses
    joints = tuple(dataclasses.replace(j, friction=(False, False, False), rotor_inertia=False, friction_model=None)
                   for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


@pytest.mark.parametrize("name", ["ur10e.yaml", "kuka_lwr4.yaml"])
def test_attached_robot_torques_are_unloaded_plus_payload(name):
    robot = _bodies_only(bp.load_robot(ROOT / "robots" / name))
    attached = _result(robot.n_dof).attach(robot)
    unloaded, loaded = _pin_with_payload(robot)
    q, qd, qdd = _states(robot.n_dof)
    tau = bp.inverse_dynamics(bp.Model(attached), q, qd, qdd)
    for s in range(len(q)):
        ref = pin.rnea(loaded, loaded.createData(), q[s], qd[s], qdd[s])
        payload_only = ref - pin.rnea(unloaded, unloaded.createData(), q[s], qd[s], qdd[s])
        assert np.abs(payload_only).max() > 0.1            # the payload matters at these states
        np.testing.assert_allclose(tau[s], ref, atol=1e-9 * np.abs(ref).max())
    # forward dynamics of the attached robot inverts pinocchio's loaded rnea
    qdd_fd = bp.forward_dynamics(bp.Model(attached), q[0], qd[0], pin.rnea(loaded, loaded.createData(), q[0], qd[0],
                                                                           qdd[0]))
    np.testing.assert_allclose(qdd_fd, qdd[0], atol=1e-8)
    # the other links are untouched, and the YAML written reads back as the attached robot
    assert attached.joints[:-1] == robot.joints[:-1]
    again = bp.parse_robot(_result(robot.n_dof).robot_text(robot, "yaml"))
    assert again.joints == attached.joints


def test_attach_refuses_a_link_without_inertia():
    robot = bp.parse_robot("{units: {length: m, angle: rad}, joints: [{type: revolute, alpha: 0, a: 0.5, d: 0}]}")
    with pytest.raises(bp.BaseParamError, match="no inertia"):
        _result(1).attach(robot)


@needs_data
def test_urdf_written_with_the_payload_link(tmp_path):
    """A URDF robot: the text gets one fixed link; pinocchio reads it back as the original plus the payload."""
    path = DATA / "kuka_lwr4" / "kuka_lwr4.urdf"
    robot = bp.load_robot(path)
    text = _result(robot.n_dof).robot_text(robot, "urdf")
    original = path.read_text()
    assert text.startswith(original[:original.rindex("</robot>")])       # only an insertion before </robot>
    assert 'type="fixed"' in text[len(original) - 10:]
    out = tmp_path / "with_payload.urdf"
    out.write_text(text)
    written = pin.buildModelFromUrdf(str(out))
    reference = pin.buildModelFromUrdf(str(path))
    last = reference.getJointId(robot.joints[-1].name)
    reference.appendBodyToJoint(last, pin.Inertia(MASS, COM, INERTIA), pin.SE3.Identity())
    q, qd, qdd = _states(robot.n_dof, seed=4)
    for s in range(len(q)):
        a = pin.rnea(written, written.createData(), q[s], qd[s], qdd[s])
        b = pin.rnea(reference, reference.createData(), q[s], qd[s], qdd[s])
        np.testing.assert_allclose(a, b, atol=1e-9 * np.abs(b).max())
    # baseparam reads the written file as the attached robot
    again = bp.load_robot(out)
    attached = _result(robot.n_dof).attach(robot)
    last_body, expected = again.joints[-1].inertia, attached.joints[-1].inertia
    assert last_body.mass == pytest.approx(expected.mass, rel=1e-12)
    np.testing.assert_allclose(last_body.com, expected.com, atol=1e-12)
    np.testing.assert_allclose(last_body.inertia, expected.inertia, atol=1e-12)


def test_cli_robot_out_writes_the_description_with_the_payload(tmp_path):
    from test_payload import CASES, _multisine, _torques
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    mass, com, inertia = CASES[0][1]
    t, q, qd, qdd = _multisine(robot.n_dof)
    tau = _torques(robot, CASES[0][1], q, qd, qdd)
    log = tmp_path / "loaded.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)])
    np.savetxt(log, np.column_stack([t, q, tau]), delimiter=",", header=header, comments="")
    out = tmp_path / "ur10e_payload.yaml"
    result = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "ur10e.yaml"), str(log),
                                       "--robot-out", str(out)])
    assert result.exit_code == 0, result.output
    assert str(out) in result.output
    again = bp.load_robot(out)
    assert again.joints[:-1] == robot.joints[:-1]
    assert again.joints[-1].inertia.mass == pytest.approx(robot.joints[-1].inertia.mass + mass, rel=0.01)


@pytest.mark.parametrize("name", ["p.txt", "p", "-"])
def test_cli_robot_out_refuses_other_files(tmp_path, name):
    result = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "ur10e.yaml"), str(tmp_path / "x.csv"),
                                       "--robot-out", name if name == "-" else str(tmp_path / name)])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and "--robot-out" in result.output


def test_yaml_robot_written_as_urdf_with_the_payload(tmp_path):
    """A YAML robot to URDF: pinocchio reads the new file as the DH robot with the payload appended."""
    robot = _bodies_only(bp.load_robot(ROOT / "robots" / "ur10e.yaml"))
    out = tmp_path / "ur10e_payload.urdf"
    out.write_text(_result().robot_text(robot, "urdf"))
    written = pin.buildModelFromUrdf(str(out))
    written.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    _, loaded = _pin_with_payload(robot)
    q, qd, qdd = _states(robot.n_dof, seed=6)
    for s in range(len(q)):
        a = pin.rnea(written, written.createData(), q[s], qd[s], qdd[s])
        b = pin.rnea(loaded, loaded.createData(), q[s], qd[s], qdd[s])
        np.testing.assert_allclose(a, b, atol=1e-9 * np.abs(b).max())


def test_cli_robot_out_without_a_last_body(tmp_path):
    """The last link without inertia: one line, exit 2 (nothing written)."""
    robot = tmp_path / "arm.yaml"
    robot.write_text("units: {length: m, angle: rad}\njoints:\n"
                     "  - {type: revolute, alpha: 1.5707963267948966, a: 0, d: 0.3, inertia: {mass: 2, com: [0, 0, 0],"
                     " inertia: [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]]}}\n"
                     "  - {type: revolute, alpha: 0, a: 0.4, d: 0}\n")
    t = np.arange(0, 4, 0.004)
    q = np.column_stack([0.5 * np.sin(t), 0.8 * np.sin(1.3 * t + 0.4)])
    log = tmp_path / "log.csv"
    np.savetxt(log, np.column_stack([t, q, np.ones_like(q)]), delimiter=",", header="t,q1,q2,tau1,tau2", comments="")
    out = tmp_path / "out.yaml"
    r = CliRunner().invoke(main, ["payload", str(robot), str(log), "--robot-out", str(out)])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and "no inertia" in r.output and not out.exists()


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_attach_to_a_model(parameters):
    """A Model (e.g. identified) in either parameterization: its torques become pinocchio's with the payload."""
    robot = _bodies_only(bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml"))
    model = bp.Model(robot, parameters=parameters)
    loaded = _result(robot.n_dof).attach(model)
    assert isinstance(loaded, bp.Model) and loaded.parameters == parameters
    _, reference = _pin_with_payload(robot)
    q, qd, qdd = _states(robot.n_dof, seed=9)
    tau = bp.inverse_dynamics(loaded, q, qd, qdd)
    for s in range(len(q)):
        ref = pin.rnea(reference, reference.createData(), q[s], qd[s], qdd[s])
        np.testing.assert_allclose(tau[s], ref, atol=1e-9 * np.abs(ref).max())
