"""Static payload identification (still poses) against pinocchio: gravity torques of the robot with the payload
appended as a body, noise, a wrong model cancelled by unloaded poses; the pose suggester's condition number
recomputed from pinocchio's torques."""
import numpy as np
import pinocchio as pin
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification.payload import identify_payload
from baseparam.excitation.static_poses import suggest_static_poses
from baseparam.identification.payload_static import still_poses
from conftest import ROOT
from pin_model import build_model

PAYLOAD = (2.0, np.array([0.03, -0.02, 0.06]), np.diag([0.012, 0.010, 0.006]))


def _pin(robot, payload=None, scale=1.0):
    inertias = [pin.Inertia(scale * j.inertia.mass, np.asarray(j.inertia.com, float),
                            scale * np.asarray(j.inertia.inertia, float)) for j in robot.joints]
    model, frames = build_model(robot, inertias)
    if payload is not None:
        frame = model.frames[frames[-1]]
        model.appendBodyToJoint(frame.parentJoint, pin.Inertia(payload[0], np.asarray(payload[1], float),
                                                               np.asarray(payload[2], float)), frame.placement)
    return model


def _log(robot, poses, payload, seed, hold=1.0, move=1.0, dt=0.004):
    """The robot going from pose to pose (cosine blends of ``move`` s) and holding each for ``hold`` s:
    pinocchio's torques (with the payload), white noise on the torques and the encoders."""
    model = _pin(robot, payload)
    data = model.createData()
    t, q, qd, qdd = [], [], [], []
    now = 0.0
    for k, pose in enumerate(poses):
        if k:
            s = np.arange(0, move, dt) / move
            prev = poses[k - 1]
            for x in s:
                b, bd, bdd = (1 - np.cos(np.pi * x)) / 2, np.pi * np.sin(np.pi * x) / 2 / move, \
                    np.pi ** 2 * np.cos(np.pi * x) / 2 / move ** 2
                t.append(now)
                q.append(prev + b * (pose - prev))
                qd.append(bd * (pose - prev))
                qdd.append(bdd * (pose - prev))
                now += dt
        for _ in range(int(hold / dt)):
            t.append(now)
            q.append(np.array(pose, float))
            qd.append(np.zeros(len(pose)))
            qdd.append(np.zeros(len(pose)))
            now += dt
    q, qd, qdd = np.array(q), np.array(qd), np.array(qdd)
    tau = np.array([pin.rnea(model, data, a, b, c) for a, b, c in zip(q, qd, qdd)])
    rng = np.random.default_rng(seed)
    noise = np.where(np.arange(robot.n_dof) < 3, 0.3, 0.05)
    return bp.Trajectory(t=np.array(t), q=q + rng.normal(0, 1e-4, q.shape),
                         tau=tau + rng.normal(0, 1, tau.shape) * noise)


def _pin_columns(robot, poses):
    """The payload's gravity columns SX SY SZ M from pinocchio: torques of a unit mass at the origin and at
    the unit points of the last link's axes, less the robot's own."""
    base = _pin(robot)
    out = []
    for q in poses:
        g0 = pin.rnea(base, base.createData(), q, 0 * q, 0 * q)
        at = [pin.rnea(m, m.createData(), q, 0 * q, 0 * q) - g0 for m in
              (_pin(robot, (1.0, c, np.zeros((3, 3)))) for c in (*np.eye(3), np.zeros(3)))]
        out.append(np.column_stack([at[0] - at[3], at[1] - at[3], at[2] - at[3], at[3]]))
    return np.array(out)


def _cond(A):
    A = A.reshape(-1, 4)
    A = A / np.linalg.norm(A, axis=0)
    s = np.linalg.svd(A, compute_uv=False)
    return s[0] / s[-1]


@pytest.mark.parametrize("name", ["ur10e.yaml", "kuka_lwr4.yaml"])
def test_static_payload_within_three_sigma(name):
    robot = bp.load_robot(ROOT / "robots" / name)
    suggestion = suggest_static_poses(robot, 8)
    assert suggestion.condition_number == pytest.approx(_cond(_pin_columns(robot, suggestion.poses)), rel=1e-6)
    result = identify_payload(robot, _log(robot, suggestion.poses, PAYLOAD, seed=2), static=True)
    m, c, _ = PAYLOAD
    assert result.mode == "static" and result.n_samples == 8 and result.rank == 4
    np.testing.assert_allclose(result.poses, suggestion.poses, atol=1e-3)
    assert abs(result.mass - m) < 0.02 * m and abs(result.mass - m) < 3 * result.mass_std
    assert np.all(np.abs(result.com - c) < 0.005) and np.all(np.abs(result.com - c) < 3 * result.com_std)
    assert result.condition_number == pytest.approx(_cond(_pin_columns(robot, result.poses)), rel=1e-3)
    doc = result.to_dict()
    assert doc["inertia"] is None and doc["mode"] == "static" and len(doc["poses"]) == 8


def test_suggested_poses_beat_random_ones():
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    s = suggest_static_poses(robot, 6, seed=1)
    rng = np.random.default_rng(0)
    random = []
    for _ in range(50):
        q = np.tile(s.poses[0], (6, 1))
        q[:, 3:] = rng.uniform(-np.pi, np.pi, (6, 3))
        random.append(_cond(_pin_columns(robot, q)))
    assert s.condition_number < np.median(random)
    assert s.moving == (4, 5, 6) and np.allclose(s.poses[:, :3], s.poses[0, :3])


def test_unloaded_poses_cancel_a_wrong_model():
    """Bodies 15 % heavier in the model: the payload from the loaded poses alone is off; with the same poses
    recorded without the payload (in another order) the model's error cancels."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    poses = suggest_static_poses(robot, 6).poses
    loaded = _log(robot, poses, PAYLOAD, seed=3)
    unloaded = _log(robot, poses[::-1], None, seed=4)
    from baseparam.model.parameters import ColumnLayout, body_parameters
    layout = ColumnLayout(robot)
    p = np.zeros(layout.n_standard)
    for k, joint in enumerate(robot.joints):
        p[layout.link_columns[k]] = 1.15 * body_parameters(joint.inertia)
    wrong = bp.Model(robot, p)
    assert abs(identify_payload(wrong, loaded, static=True).mass - PAYLOAD[0]) > 0.1
    result = identify_payload(wrong, loaded, unloaded=unloaded, static=True)
    assert abs(result.mass - PAYLOAD[0]) < 0.02 * PAYLOAD[0]
    assert np.all(np.abs(result.com - PAYLOAD[1]) < 0.005)


def test_still_segments_and_a_table_of_poses():
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    poses = suggest_static_poses(robot, 5).poses
    log = _log(robot, poses, PAYLOAD, seed=5, hold=0.8)
    q, tau, spans = still_poses(log)
    assert len(q) == 5 and all(b - a >= 0.5 for a, b in spans)
    assert len(still_poses(log, min_duration=1.0)[0]) == 0
    # a table of poses, t = 0, 1, 2, …, min_duration 0 (rows of one pose repeated: a log has at least 10 rows)
    table = bp.Trajectory(t=np.arange(10.0), q=np.repeat(q, 2, axis=0), tau=np.repeat(tau, 2, axis=0))
    result = identify_payload(robot, table, static=True, still_duration=0)
    assert result.n_samples == 5 and abs(result.mass - PAYLOAD[0]) < 0.05 * PAYLOAD[0]
    # the library names its function, not the command line's flag (which the CLI shows: test_cli_static_bad_input)
    with pytest.raises(bp.DataError, match="at least 4 needed; suggest_static_poses proposes some$"):
        identify_payload(robot, bp.Trajectory(t=np.arange(12.0), q=np.repeat(q[:3], 4, axis=0),
                                              tau=np.repeat(tau[:3], 4, axis=0)), static=True, still_duration=0)


def _csv(path, traj):
    n = traj.n_dof
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(n)] + [f"tau{j + 1}" for j in range(n)])
    np.savetxt(path, np.column_stack([traj.t, traj.q, traj.tau]), delimiter=",", header=header, comments="")


def test_cli_static_and_suggest(tmp_path):
    robot_file = str(ROOT / "robots" / "ur10e.yaml")
    out = tmp_path / "poses.json"
    r = CliRunner().invoke(main, ["payload", robot_file, "--suggest-poses", "6", "--json", str(out)])
    assert r.exit_code == 0, r.output
    import json
    doc = json.loads(out.read_text())
    assert len(doc["poses"]) == 6 and doc["condition_number"] >= 1
    robot = bp.load_robot(robot_file)
    log = tmp_path / "still.csv"
    _csv(log, _log(robot, np.array(doc["poses"]), PAYLOAD, seed=6))
    r = CliRunner().invoke(main, ["payload", robot_file, str(log), "--static", "--json", str(tmp_path / "p.json")])
    assert r.exit_code == 0, r.output
    p = json.loads((tmp_path / "p.json").read_text())
    assert abs(p["mass"] - PAYLOAD[0]) < 0.02 * PAYLOAD[0] and p["inertia"] is None
    assert "cond" in r.output


@pytest.mark.parametrize("args,flag", [
    (["--suggest-poses", "3"], "--suggest-poses"), (["--suggest-poses", "x"], "--suggest-poses"),
    (["--suggest-poses", "5", "LOG"], "--suggest-poses"), (["LOG", "--static", "--still-tolerance", "-1"],
                                                            "--still-tolerance"),
    (["LOG", "--static", "--still-duration", "nan"], "--still-duration"),
    (["LOG", "--still-duration", "1"], "--static"), (["LOG", "--static"], "needed; --suggest-poses proposes some\n"),
    (["--suggest-poses", "5", "--pose", "1,2"], "--pose")])
def test_cli_static_bad_input(tmp_path, args, flag):
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    log = tmp_path / "moving.csv"
    t = np.arange(0, 4, 0.01)
    q = 0.3 * np.sin(np.outer(t, np.arange(1, 7)))
    _csv(log, bp.Trajectory(t=t, q=q, tau=np.ones_like(q)))
    args = [str(log) if a == "LOG" else a for a in args]
    r = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "ur10e.yaml"), *args])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and flag in r.output, r.output
    assert robot.n_dof == 6


def test_static_python_bad_input():
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    t = np.arange(0, 2, 0.01)
    q = np.tile(np.linspace(0.1, 0.6, 6), (len(t), 1))
    log = bp.Trajectory(t=t, q=q, tau=np.ones_like(q))
    for kwargs in ({"still_tolerance": float("nan")}, {"still_tolerance": 0}, {"still_duration": -1},
                   {"still_duration": "x"}):
        with pytest.raises(bp.BaseParamError, match="still_"):
            identify_payload(robot, log, static=True, **kwargs)
    with pytest.raises(bp.BaseParamError, match="no torques"):
        identify_payload(robot, bp.Trajectory(t=t, q=q), static=True)
    with pytest.raises(bp.BaseParamError, match="joints"):
        identify_payload(robot, bp.Trajectory(t=t, q=q[:, :5], tau=q[:, :5]), static=True)
    for n in (3, 4.5, "6", True):
        with pytest.raises(bp.BaseParamError, match="n_poses"):
            suggest_static_poses(robot, n)
    with pytest.raises(bp.BaseParamError, match="no unloaded pose|no still pose"):
        far = bp.Trajectory(t=t, q=q + 0.5, tau=np.ones_like(q))
        poses = suggest_static_poses(robot, 4).poses
        identify_payload(robot, _log(robot, poses, PAYLOAD, seed=1), unloaded=far, static=True)


def test_planar_arm_sees_three_of_four():
    """A planar arm's gravity never sees the first moment along the joint axes: rank 3, the combinations named,
    and no standard deviation for what is not determined."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    model, frames = build_model(robot)
    frame = model.frames[frames[-1]]
    model.appendBodyToJoint(frame.parentJoint, pin.Inertia(PAYLOAD[0], PAYLOAD[1], PAYLOAD[2]), frame.placement)
    data = model.createData()
    q = np.array([[0.3, 0.5, a] for a in np.linspace(-2, 2, 6)])
    tau = np.array([pin.rnea(model, data, x, 0 * x, 0 * x) for x in q])
    tau = tau + np.random.default_rng(0).normal(0, 0.01, tau.shape)
    log = bp.Trajectory(t=np.arange(12.0), q=np.repeat(q, 2, axis=0), tau=np.repeat(tau, 2, axis=0))
    result = identify_payload(robot, log, static=True, still_duration=0)
    assert result.rank == 3 and len(result.identifiable) == 3
    assert abs(result.mass - PAYLOAD[0]) < 3 * result.mass_std + 1e-9
    z = np.isnan(result.com_std)
    assert z.sum() == 1 and np.all(np.abs(result.com - PAYLOAD[1])[~z] < 3 * result.com_std[~z] + 1e-9)
    assert "only 3" in result.summary()


def test_the_pose_suggester_a_refusal_names_is_public():
    """A static fit of too few poses says 'suggest_static_poses proposes some': a Python user finds it in
    baseparam.excitation (it was reachable only by its private module)."""
    import baseparam.excitation as excitation
    from baseparam.excitation import StaticPoses, suggest_static_poses
    assert {"StaticPoses", "suggest_static_poses"} <= set(excitation.__all__)
    poses = suggest_static_poses(bp.load_robot(ROOT / "robots" / "ur10e.yaml"), 4)
    assert isinstance(poses, StaticPoses)
