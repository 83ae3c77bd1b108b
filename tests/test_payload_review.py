"""Adversarial review of the payload surfaces (issues 25 and 28): each test failed on the code as merged."""
import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification.payload import identify_payload
from conftest import ROOT, address_space_capped

UR = ROOT / "robots" / "ur10e.yaml"


def _motion(n, duration=4.0, dt=0.005, seed=0):
    """A smooth multi-sine (q only; torques are given by each test)."""
    rng = np.random.default_rng(seed)
    t = np.arange(0, duration, dt)
    q = np.zeros((len(t), n))
    for j in range(n):
        for k in range(1, 5):
            q[:, j] += rng.uniform(0.1, 0.3) / k * np.sin(2 * np.pi * k * t / duration + rng.uniform(0, 6))
    return t, q + 0.3


def _wrench_csv(tmp_path):
    t, q = _motion(6)
    rng = np.random.default_rng(1)
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)]
                      + ["fx", "fy", "fz", "mx", "my", "mz"])
    path = tmp_path / "ft.csv"
    np.savetxt(path, np.column_stack([t, q, rng.normal(size=q.shape), rng.normal(size=q.shape)]), delimiter=",",
               header=header, comments="")
    return path


def test_cli_sensor_far_away_is_one_line_exit_2(tmp_path):
    """--sensor 1e308,… overflowed the regressor: 'internal error: LinAlgError', exit 1."""
    path = _wrench_csv(tmp_path)
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--wrench", "fx,fy,fz,mx,my,mz",
                                       "--sensor", "1e308,0,0,0,0,0"])
    assert result.exit_code == 2, result.output
    assert "--sensor" in result.output and "internal error" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_sensor_far_away_refused():
    robot = bp.load_robot(UR)
    t, q = _motion(6)
    traj = bp.Trajectory(t=t, q=q, tau=np.zeros_like(q))
    for sensor in ([1e200, 0, 0, 0, 0, 0], [0, 0, 0, 1e300, 0, 0]):
        with pytest.raises(bp.BaseParamError, match="sensor"):
            identify_payload(robot, traj, wrench=np.ones((len(t), 6)), sensor=sensor)


@pytest.mark.parametrize("mode", ["model", "wrench", "static"])
def test_huge_torques_refused_not_fitted(mode):
    """Torques (or a wrench) of 1e300: σ overflowed to inf, the weights to 0, and a payload of 1.05 ± 0 kg came back."""
    robot = bp.load_robot(UR)
    t, q = _motion(6)
    huge = np.full_like(q, 1e300)
    kwargs = {"model": {}, "wrench": {"wrench": np.full((len(t), 6), 1e300)},
              "static": {"static": True, "still_duration": 0}}[mode]
    if mode == "static":        # a table of poses (still_duration 0 refuses a log of motion)
        q = np.random.default_rng(0).uniform(-1, 1, q.shape)
    traj = bp.Trajectory(t=t, q=q, tau=np.zeros_like(q) if mode == "wrench" else huge)
    with pytest.raises(bp.BaseParamError, match="beyond|absurd value"):
        identify_payload(robot, traj, **kwargs)


def _result(mass=1.5, com=(0.01, -0.02, 0.05), inertia=((0.004, 0, 0), (0, 0.005, 0), (0, 0, 0.003))):
    from baseparam.identification.payload import PayloadResult, payload_parameters
    p = payload_parameters(mass, com, inertia)
    return PayloadResult(mass=mass, com=np.asarray(com, float), inertia=np.asarray(inertia, float), mass_std=0.0,
                         com_std=np.zeros(3), inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p,
                         covariance=np.zeros((10, 10)), identifiable=[], rank=10, mode="model", n_samples=1,
                         rmse=np.zeros(6))


def test_robot_text_takes_a_file_as_attach_does():
    """robot_text(path, 'urdf') raised AttributeError ('str' object has no attribute 'from_urdf_text')."""
    r, fmt = _result(), "urdf"
    text = r.robot_text(str(UR), fmt)
    assert text == r.robot_text(bp.load_robot(UR), fmt)
    with pytest.raises(bp.BaseParamError):
        r.robot_text(42, fmt)


@pytest.mark.parametrize("kwargs", [{"candidates": 10 ** 12}, {"seed": -1}, {"seed": "x"}, {"pose": "abc"},
                                    {"n_poses": 51}])
def test_suggest_static_poses_refuses_bad_arguments(kwargs):
    """candidates=1e12 → MemoryError, seed=-1 → ValueError, seed='x' → TypeError, pose='abc' → ValueError;
    n_poses had no upper bound (each greedy step stacks every chosen pose over every candidate)."""
    from baseparam.excitation.static_poses import suggest_static_poses
    with pytest.raises(bp.BaseParamError):
        suggest_static_poses(bp.load_robot(UR), **{"n_poses": 4, **kwargs})


@pytest.mark.parametrize("robot", [42, None])
def test_suggest_static_poses_refuses_what_is_no_robot(robot):
    """The floating-base check read robot.is_floating first: an AttributeError instead of the type's one line."""
    from baseparam.excitation.static_poses import suggest_static_poses
    with pytest.raises(bp.BaseParamError, match="robot: expected a baseparam.Robot"):
        suggest_static_poses(robot, 4)


def test_cli_suggest_poses_too_many_names_the_flag():
    """--suggest-poses 5000 was refused as 'candidates: expected a whole number ≥ 5000, got 2000'."""
    result = CliRunner().invoke(main, ["payload", str(UR), "--suggest-poses", "5000"])
    assert result.exit_code == 2 and result.output.startswith("baseparam: --suggest-poses:"), result.output


def test_unloaded_log_of_another_motion_refused():
    """An unloaded log 3 rad away from the loaded one (another motion) was subtracted silently: a payload of
    0.13 ± 0.33 kg at 1.9 m came back."""
    robot = bp.load_robot(UR)
    t, q = _motion(6)
    rng = np.random.default_rng(0)
    loaded = bp.Trajectory(t=t, q=q, tau=rng.normal(size=q.shape))
    other = bp.Trajectory(t=t, q=q + 3.0, tau=rng.normal(size=q.shape))
    with pytest.raises(bp.BaseParamError, match="does not follow the motion"):
        identify_payload(robot, loaded, unloaded=other)


def test_unknown_parameterization_refused():
    """parameters='x' was accepted silently (the argument was never read)."""
    t, q = _motion(6)
    with pytest.raises(bp.BaseParamError, match="parameters"):
        identify_payload(bp.load_robot(UR), bp.Trajectory(t=t, q=q, tau=np.zeros_like(q)), parameters="x")


def test_static_zero_mass_does_not_claim_a_known_centre():
    """Still poses of the robot without a payload: the mass clipped at 0 came back with a centre of mass
    0 ± 0 m — a certainty about a point that does not exist. Its standard deviation is NaN (not determined)."""
    robot = bp.load_robot(UR)
    from baseparam.excitation.static_poses import suggest_static_poses
    poses = suggest_static_poses(robot, 8).poses
    zero = np.zeros_like(poses)
    # gravity of the robot alone (the description's bodies, as identify_payload predicts), a little less
    from baseparam.dynamics.regressors import evaluate
    from baseparam.model.parameters import ColumnLayout, body_parameters
    links = ColumnLayout(robot, "pseudo").link_columns.ravel()
    values = np.concatenate([body_parameters(j.inertia, "pseudo") for j in robot.joints])
    g = evaluate(robot, poses, zero, zero, parameters="pseudo", columns=links, weights=values)
    # less a 0.2 kg body on the last link (a sensor zeroed with a tool on, say): the fitted mass is < 0, clipped
    from baseparam.identification.payload import payload_parameters
    last = ColumnLayout(robot, "pseudo").link_columns[-1]
    g = g - evaluate(robot, poses, zero, zero, parameters="pseudo", columns=last,
                     weights=payload_parameters(0.2, [0.0, 0.0, 0.05], np.zeros((3, 3))))
    rows = np.repeat(np.arange(len(poses)), 10)
    rng = np.random.default_rng(2)
    traj = bp.Trajectory(t=np.arange(len(rows), dtype=float), q=poses[rows],
                         tau=g[rows] + 0.01 * rng.normal(size=g[rows].shape))
    r = identify_payload(robot, traj, static=True, still_duration=0)
    assert r.mass == 0.0 and r.mode == "static"
    assert np.isnan(r.com_std).all() and np.isfinite(r.mass_std) and r.mass_std > 0


def test_cli_robot_out_refuses_a_model_of_another_robot(tmp_path):
    """ROBOT_FILE a 7-joint LWR4+, --model the 6-joint UR10e: the UR10e's payload was written onto the LWR4+'s
    last link, exit 0."""
    t, q = _motion(6)
    path = tmp_path / "log.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)])
    np.savetxt(path, np.column_stack([t, q, np.ones_like(q)]), delimiter=",", header=header, comments="")
    out = tmp_path / "out.yaml"
    result = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "kuka_lwr4.yaml"), str(path),
                                       "--model", str(UR), "--robot-out", str(out)])
    assert result.exit_code == 2 and "--model" in result.output and not out.exists(), result.output


ONE_PRISMATIC = """name: one prismatic joint
convention: standard
units: {length: m, angle: deg}
gravity: [0, 0, -9.81]
joints:
  - {type: prismatic, alpha: 0, a: 0, theta: 0,
     inertia: {mass: 1.0, com: [0, 0, 0], inertia: [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]]}}
"""


@pytest.mark.parametrize("mode", ["model", "wrench"])
def test_what_the_data_cannot_see_has_no_standard_deviation(tmp_path, mode):
    """A 1-DOF prismatic robot sees the payload's mass only (rank 1): its centre of mass and inertia came back
    as 0 ± 0 (the minimum-norm choice with a zero 'standard deviation'), a certainty about what is not seen."""
    path = tmp_path / "one.yaml"
    path.write_text(ONE_PRISMATIC)
    robot = bp.load_robot(path)
    t = np.arange(0, 4, 0.005)
    q = (0.3 * np.sin(2 * np.pi * t / 4) + 0.1)[:, None]
    rng = np.random.default_rng(0)
    traj = bp.Trajectory(t=t, q=q, tau=rng.normal(size=q.shape))
    extra = {"wrench": rng.normal(size=(len(t), 6))} if mode == "wrench" else {}
    r = identify_payload(robot, traj, **extra)
    assert r.rank < 10
    if mode == "model":
        assert r.rank == 1 and r.identifiable == ["M"]
        assert np.isfinite(r.mass_std) and r.mass_std > 0
        assert np.isnan(r.com_std).all() and np.isnan(r.inertia_std).all()
    else:
        # a prismatic joint along z never turns the sensor: no moment arm along z, no rotation
        assert np.isnan(r.com_std[2]) and np.isnan(r.inertia_std).any()


def test_planar_arm_moment_along_the_axes_has_no_standard_deviation():
    """Planar RRR, model mode: SZ is not identifiable, yet com z came back 0 ± 0."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    t, q = _motion(3)
    r = identify_payload(robot, bp.Trajectory(t=t, q=q, tau=np.random.default_rng(1).normal(size=q.shape)))
    assert np.isnan(r.com_std[2]) and np.isfinite(r.com_std[:2]).all()


def test_static_many_poses_with_unloaded_does_not_exhaust_memory(tmp_path):
    """--static --still-duration 0 on a long log with --unloaded: every row a pose, and matching them asked for
    a (P, Pu, n) array (15.8 GiB for 20 000 rows): 'internal error: MemoryError', exit 1. Here 4000 rows under a
    512 MB address-space cap (all at once: 680 MB)."""
    rng = np.random.default_rng(0)
    t = np.arange(4000) * 0.002
    qq = rng.uniform(-1, 1, (4000, 6))      # a table of poses: a log of motion is refused with --still-duration 0
    traj = bp.Trajectory(t=t, q=qq, tau=rng.normal(size=qq.shape))
    with address_space_capped(512 * 2 ** 20):
        r = identify_payload(bp.load_robot(UR), traj, static=True, still_duration=0, unloaded=traj)
    assert r.mode == "static" and r.n_samples > 3000


def test_static_matching_in_blocks_is_matching_all_at_once():
    from baseparam.identification.payload_static import _nearest
    rng = np.random.default_rng(0)
    q, qu = rng.normal(size=(300, 6)), rng.normal(size=(250, 6))
    full = np.abs(q[:, None, :] - qu[None, :, :]).max(axis=2)
    nearest, distance = _nearest(q, qu, budget=1000)
    assert np.array_equal(nearest, np.argmin(full, axis=1)) and np.array_equal(distance, full.min(axis=1))


def test_summary_shows_a_small_standard_deviation():
    """A 0 kg payload's mass read '0.0000 ± 0.0000 kg' in the summary (σ 1.4e-5 kg rounded away)."""
    r = _result(mass=3.7e-5)
    r = type(r)(**{**r.__dict__, "mass_std": 1.4e-5, "com_std": np.array([0.3, 0.0, 2e-6])})
    line = [x for x in r.summary().splitlines() if x.strip().startswith("mass")][0]
    assert "± 1.4e-05 kg" in line
    com = [x for x in r.summary().splitlines() if x.strip().startswith("com")][0]
    assert "± 0.3000" in com and "± 0.0000 " in com and "± 2e-06" in com


def test_cli_wrench_with_skip_bad_rows_drops_the_same_rows(tmp_path):
    """--skip-bad-rows dropped a bad row from the log but not from its wrench: 'expected shape (1199, 6) …, got
    (1200, 6)', exit 2. Now the same rows go, and the answer is that of the file without the bad line."""
    import json
    path = _wrench_csv(tmp_path)
    lines = path.read_text().splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines[:21] + [lines[21].replace(",", ",x", 1)] + lines[22:]) + "\n")
    clean = tmp_path / "clean.csv"
    clean.write_text("\n".join(lines[:21] + lines[22:]) + "\n")
    docs = []
    for src, extra in ((bad, ["--skip-bad-rows"]), (clean, [])):
        out = tmp_path / f"{src.stem}.json"
        result = CliRunner().invoke(main, ["payload", str(UR), str(src), "--wrench", "fx,fy,fz,mx,my,mz",
                                           "--json", str(out), *extra])
        assert result.exit_code == 0, result.output
        docs.append(json.loads(out.read_text()))
    assert docs[0]["n_samples"] == docs[1]["n_samples"]
    np.testing.assert_allclose(docs[0]["parameters"]["M"], docs[1]["parameters"]["M"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(docs[0]["com"], docs[1]["com"], rtol=1e-9, atol=1e-12)


def test_read_wrench_drops_skipped_npz_rows(tmp_path):
    from baseparam.identification.payload_wrench import read_wrench
    w = np.arange(60.0).reshape(10, 6)
    np.savez(tmp_path / "w.npz", wrench=w)
    got = read_wrench(str(tmp_path / "w.npz"), "wrench", skipped=((3, "NaN"),), unit="row")
    np.testing.assert_array_equal(got, np.delete(w, 3, axis=0))


def test_unloaded_log_shorter_than_the_loaded_one():
    """An unloaded log covering 80 % of the loaded motion: the loaded samples past its end were matched to its
    last sample, and a 2 kg payload came back as 2.054 ± 0.008 kg (com 3 mm off); at 55 %, 2.17 kg. Now they are
    left out (the payload exact to noise), and a log covering less than half is refused."""
    from test_payload import _multisine, _torques
    robot = bp.load_robot(UR)
    t, q, qd, qdd = _multisine(6, duration=10)
    payload = (2.0, [0.03, -0.02, 0.06], np.diag([0.006, 0.009, 0.013]))
    loaded = bp.Trajectory(t=t, q=q, tau=_torques(robot, payload, q, qd, qdd))
    tau_u = _torques(robot, (0.0, np.zeros(3), np.zeros((3, 3))), q, qd, qdd)
    for share in (0.8, 0.55):
        k = int(share * len(t))
        r = identify_payload(robot, loaded, unloaded=bp.Trajectory(t=t[:k], q=q[:k], tau=tau_u[:k]))
        assert abs(r.mass - 2.0) < 0.005 and np.abs(r.com - payload[1]).max() < 1e-3, (share, r)
    k = int(0.4 * len(t))
    with pytest.raises(bp.BaseParamError, match="less than half"):
        identify_payload(robot, loaded, unloaded=bp.Trajectory(t=t[:k], q=q[:k], tau=tau_u[:k]))


def test_robot_text_urdf_of_a_robot_with_another_gravity_refused(tmp_path):
    """A YAML robot with gravity along −y written as URDF with its payload: URDF has no gravity, so the file read
    back had gravity along −z and other torques (100 % off for a 1-DOF arm), silently."""
    path = tmp_path / "planar.yaml"
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    assert tuple(robot.gravity) != (0.0, 0.0, -9.81)
    from baseparam.model.robot import Inertia
    import dataclasses
    body = Inertia(1.0, np.array([-0.5, 0.0, 0.0]), np.diag([0.001, 0.02, 0.02]))
    robot = dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, inertia=body) for j in robot.joints),
                                source=None)
    with pytest.raises(bp.BaseParamError, match="gravity"):
        _result().robot_text(robot, "urdf")
    assert "gravity" in _result().robot_text(robot, "yaml")
    path.write_text(_result().robot_text(robot, "yaml"))
    assert bp.load_robot(path).gravity == robot.gravity


@pytest.mark.parametrize("flag", ["friction", "static", "wrench_bias"])
def test_switches_are_booleans(flag):
    """wrench_bias='no' was read as True (a truthy string), likewise friction and static."""
    t, q = _motion(6)
    extra = {"wrench": np.ones((len(t), 6))} if flag == "wrench_bias" else {}
    with pytest.raises(bp.BaseParamError, match=flag):
        identify_payload(bp.load_robot(UR), bp.Trajectory(t=t, q=q, tau=np.zeros_like(q)), **{flag: "no"}, **extra)
