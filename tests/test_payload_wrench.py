"""The payload from a wrist force/torque sensor against pinocchio: the payload on a joint of its own at the
sensor's placement, held at zero, whose transmitted force ``data.f`` is (minus) what the sensor reads."""
import numpy as np
import pinocchio as pin
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification.payload import identify_payload
from conftest import ROOT
from pin_model import _pseudo_matrix, build_model
from test_payload import CASES, PSEUDO, _multisine

SENSOR = np.array([0.01, -0.02, 0.04, 0.3, -0.2, 1.1])        # x y z, roll pitch yaw


def _placement(sensor):
    return pin.SE3(pin.rpy.rpyToMatrix(*sensor[3:]), np.asarray(sensor[:3], float))


def _sensor_wrench(robot, payload, sensor, q, qd, qdd):
    """What the sensor reads: the payload on an extra revolute joint (kept at rest) placed at the sensor frame
    on the last DH link frame; minus pinocchio's force through that joint, in its frame."""
    model, frames = build_model(robot)
    frame = model.frames[frames[-1]]
    X = frame.placement * _placement(sensor)
    k = model.addJoint(frame.parentJoint, pin.JointModelRZ(), X, "sensor")
    m, c, I = payload
    R, r = X.rotation, X.translation
    # the payload, given in the last link's frame, in the sensor frame
    Rs, rs = _placement(sensor).rotation, _placement(sensor).translation
    model.appendBodyToJoint(k, pin.Inertia(m, Rs.T @ (np.asarray(c) - rs), Rs.T @ np.asarray(I) @ Rs),
                            pin.SE3.Identity())
    del R, r
    data = model.createData()
    out = []
    for a, b, cc in zip(q, qd, qdd):
        pin.rnea(model, data, np.append(a, 0.0), np.append(b, 0.0), np.append(cc, 0.0))
        out.append(-data.f[k].vector)
    return np.array(out)


@pytest.mark.parametrize("path,payload", CASES)
def test_payload_from_a_wrist_sensor(path, payload):
    robot = bp.load_robot(ROOT / path)
    t, q, qd, qdd = _multisine(robot.n_dof)
    w = _sensor_wrench(robot, payload, SENSOR, q, qd, qdd)
    m, c, I = payload
    # at rest the reading is the weight in the sensor frame
    still = _sensor_wrench(robot, payload, SENSOR, q[:1], 0 * qd[:1], 0 * qdd[:1])[0]
    assert np.linalg.norm(still[:3]) == pytest.approx(9.81 * m)
    rng = np.random.default_rng(7)
    noisy = w + rng.normal(0, 1, w.shape) * np.array([0.5, 0.5, 0.5, 0.02, 0.02, 0.02])   # N, N·m
    traj = bp.Trajectory(t=t, q=q + rng.normal(0, 1e-4, q.shape))                         # no joint torques
    result = identify_payload(robot, traj, wrench=noisy, sensor=SENSOR)
    assert result.mode == "wrench" and result.rank == 10
    assert abs(result.mass - m) < 0.02 * m and abs(result.mass - m) < 3 * result.mass_std
    assert np.all(np.abs(result.com - c) < 0.005) and np.all(np.abs(result.com - c) < 3 * result.com_std)
    largest = np.linalg.eigvalsh(I).max()
    assert np.all(np.abs(result.inertia - I) < 0.1 * largest)
    assert np.all(np.abs(result.inertia - I) < 3 * result.inertia_std + 1e-9)
    assert np.linalg.eigvalsh(_pseudo_matrix(result.parameters, PSEUDO)).min() > -1e-9
    # noise-free: the regressor is exact
    exact = identify_payload(robot, bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd), wrench=w, sensor=SENSOR,
                             preprocessing=None)
    assert exact.mass == pytest.approx(m, rel=1e-9)
    np.testing.assert_allclose(exact.com, c, atol=1e-9)
    np.testing.assert_allclose(exact.inertia, I, atol=1e-9)


def _csv(path, t, q, w, names=("fx", "fy", "fz", "mx", "my", "mz")):
    n = q.shape[1]
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(n)] + list(names))
    np.savetxt(path, np.column_stack([t, q, w]), delimiter=",", header=header, comments="")


def test_cli_wrench(tmp_path):
    robot_file = ROOT / "robots" / "ur10e.yaml"
    robot = bp.load_robot(robot_file)
    payload = CASES[0][1]
    t, q, qd, qdd = _multisine(robot.n_dof)
    w = _sensor_wrench(robot, payload, SENSOR, q, qd, qdd)
    log = tmp_path / "ft.csv"
    _csv(log, t, q, w)
    out = tmp_path / "p.json"
    r = CliRunner().invoke(main, ["payload", str(robot_file), str(log), "--wrench", "fx,fy,fz,mx,my,mz", "--sensor",
                                  ",".join(map(str, SENSOR)), "--json", str(out)])
    assert r.exit_code == 0, r.output
    import json
    doc = json.loads(out.read_text())
    assert abs(doc["mass"] - payload[0]) < 0.01 * payload[0] and doc["mode"] == "wrench"
    np.testing.assert_allclose(doc["com"], payload[1], atol=0.002)
    # the same columns by number, and from an NPZ key
    from baseparam.identification.payload_wrench import read_wrench
    np.testing.assert_array_equal(read_wrench(log, "7,8,9,10,11,12"), read_wrench(log, "fx,fy,fz,mx,my,mz"))
    np.savez(tmp_path / "ft.npz", t=t, q=q, ft=w)
    np.testing.assert_allclose(read_wrench(tmp_path / "ft.npz", "ft"), w)


@pytest.mark.parametrize("args,flag", [
    (["--wrench", "fx,fy,fz"], "--wrench"), (["--wrench", "fx,fy,fz,mx,my,nope"], "nope"),
    (["--wrench", "fx,fy,fz,mx,my,mz", "--sensor", "1,2,3"], "--sensor"),
    (["--wrench", "fx,fy,fz,mx,my,mz", "--sensor", "1,2,3,a,b,c"], "--sensor"),
    (["--wrench", "fx,fy,fz,mx,my,mz", "--sensor", "0,0,0,0,0,nan"], "--sensor"),
    (["--sensor", "0,0,0,0,0,0"], "--wrench"), (["--wrench-bias"], "--wrench"),
    (["--wrench", "fx,fy,fz,mx,my,mz", "--static"], "--static"),
    (["--wrench", "fx,fy,fz,mx,my,mz", "BAD"], "line")])
def test_cli_wrench_bad_input(tmp_path, args, flag):
    t = np.arange(0, 2, 0.01)
    q = 0.3 * np.sin(np.outer(t, np.arange(1, 7)))
    log = tmp_path / "ft.csv"
    _csv(log, t, q, np.ones((len(t), 6)))
    bad = tmp_path / "bad.csv"
    _csv(bad, t, q, np.ones((len(t), 6)))
    text = bad.read_text().splitlines()
    text[5] = text[5].rsplit(",", 1)[0] + ",x"
    bad.write_text("\n".join(text) + "\n")
    args = [str(bad) if a == "BAD" else a for a in args]
    files = [str(log)] if "BAD" not in [a for a in args if a == str(bad)] and str(bad) not in args else []
    r = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "ur10e.yaml"), *files, *args])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and flag in r.output, r.output


def test_wrench_python_bad_input():
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    t = np.arange(0, 1, 0.01)
    traj = bp.Trajectory(t=t, q=0.3 * np.sin(np.outer(t, np.arange(1, 7))))
    for wrench in (np.ones((len(t), 5)), np.full((len(t), 6), np.nan), [np.ones((len(t), 6))] * 2, "x"):
        with pytest.raises(bp.BaseParamError):
            identify_payload(robot, traj, wrench=wrench)
    with pytest.raises(bp.BaseParamError, match="sensor"):
        identify_payload(robot, traj, wrench=np.ones((len(t), 6)), sensor=[0, 0])


def test_wrench_with_an_unknown_offset():
    """A sensor zeroed with 3 N and 0.1 N·m on it: without --wrench-bias the mass is off, with it within 2 %."""
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    payload = CASES[1][1]
    t, q, qd, qdd = _multisine(robot.n_dof)
    w = _sensor_wrench(robot, payload, SENSOR, q, qd, qdd)
    rng = np.random.default_rng(11)
    offset = np.array([3.0, -2.0, 3.0, 0.1, -0.1, 0.05])
    noisy = w + offset + rng.normal(0, 1, w.shape) * np.array([0.5, 0.5, 0.5, 0.02, 0.02, 0.02])
    traj = bp.Trajectory(t=t, q=q)
    m, c, _ = payload
    assert abs(identify_payload(robot, traj, wrench=noisy, sensor=SENSOR).mass - m) > 0.05
    result = identify_payload(robot, traj, wrench=noisy, sensor=SENSOR, wrench_bias=True)
    assert abs(result.mass - m) < 0.02 * m and abs(result.mass - m) < 3 * result.mass_std
    assert np.all(np.abs(result.com - c) < 0.005) and np.all(np.abs(result.com - c) < 3 * result.com_std)
    with pytest.raises(bp.BaseParamError, match="wrench_bias"):
        identify_payload(robot, traj, wrench_bias=True)


@pytest.mark.parametrize("text, said", [
    ("t,fx\n0,1\n", r"wrench: no column 'fy' \(columns: t, fx\)"),     # named in a message raised from the CSV
    ("", "wrench: the file is empty"),
])
def test_a_wrench_log_is_named_on_one_line_whatever_its_name(tmp_path, text, said):
    """read_wrench named the file raw in most messages: a line break in its name split the DataError in two (the
    trajectory readers, and its own size refusal, escape it)."""
    from baseparam.identification.payload_wrench import read_wrench
    path = tmp_path / "two\nlines.csv"
    path.write_text(text)
    with pytest.raises(bp.DataError, match=r"two\\nlines\.csv: " + said) as info:
        read_wrench(path, "fx,fy,fz,mx,my,mz")
    assert "\n" not in str(info.value)
