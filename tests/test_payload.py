"""Payload identification against pinocchio: the payload added as a body on the last joint's link."""
import functools
import sys

import numpy as np
import pinocchio as pin
import pytest

import baseparam as bp
from baseparam.identification.payload import identify_payload, payload_parameters, payload_physical
from conftest import ROOT
from pin_model import _pseudo_matrix, build_model

sys.path.insert(0, str(ROOT / "notebooks"))
from _helpers import multisine  # noqa: E402  (notebooks/ is on the path just above)

PSEUDO = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")


# the multi-sine notebook 09 and bench/bench_payload.py simulate (notebooks/_helpers.py), at 200 Hz
_multisine = functools.partial(multisine, dt=0.005)


def _torques(robot, payload, q, qd, qdd):
    """pinocchio RNEA with the description's bodies and the payload added to the last link."""
    inertias = [pin.Inertia(j.inertia.mass, np.asarray(j.inertia.com, float), np.asarray(j.inertia.inertia, float))
                for j in robot.joints]
    m, c, I = payload
    inertias[-1] = inertias[-1] + pin.Inertia(m, np.asarray(c, float), np.asarray(I, float))
    model, _ = build_model(robot, inertias)
    data = model.createData()
    return np.array([pin.rnea(model, data, a, b, cc) for a, b, cc in zip(q, qd, qdd)])


CASES = [("robots/ur10e.yaml", (2.0, [0.03, -0.02, 0.06], [[0.012, 0.002, 0.0], [0.002, 0.010, 0.001],
                                                           [0.0, 0.001, 0.006]])),
         ("robots/kuka_lwr4.yaml", (2.5, [0.02, 0.01, 0.05], [[0.015, 0.0, 0.002], [0.0, 0.011, 0.0],
                                                              [0.002, 0.0, 0.008]]))]


@pytest.mark.parametrize("path,payload", CASES)
def test_payload_from_simulated_torques(path, payload):
    robot = bp.load_robot(ROOT / path)
    t, q, qd, qdd = _multisine(robot.n_dof)
    tau = _torques(robot, payload, q, qd, qdd)
    rng = np.random.default_rng(3)
    # white noise, 0.3 N·m on the shoulder/elbow joints and 0.05 N·m on the wrist's (assumed figures,
    # not measured from the logs), low-passed by the default preprocessing
    noise = np.where(np.arange(robot.n_dof) < 3, 0.3, 0.05)
    noisy = tau + rng.normal(0, 1, tau.shape) * noise
    q_meas = q + rng.normal(0, 1e-4, q.shape)
    traj = bp.Trajectory(t=t, q=q_meas, tau=noisy)
    result = identify_payload(robot, traj)
    m, c, I = payload
    assert result.rank == 10
    assert abs(result.mass - m) < 0.02 * m and abs(result.mass - m) < 3 * result.mass_std + 1e-3
    assert np.all(np.abs(result.com - c) < 0.005)
    assert np.all(np.abs(result.com - c) < 3 * result.com_std + 1e-3)
    largest = np.linalg.eigvalsh(I).max()
    assert np.all(np.abs(result.inertia - I) < 0.1 * largest)
    assert np.linalg.eigvalsh(_pseudo_matrix(result.parameters, PSEUDO)).min() > -1e-9
    assert "PayloadResult(mass=" in repr(result)


def test_parameters_round_trip():
    p = payload_parameters(1.5, [0.1, 0.0, -0.2], np.diag([0.01, 0.02, 0.025]))
    m, c, I = payload_physical(p)
    assert m == pytest.approx(1.5) and np.allclose(c, [0.1, 0, -0.2]) and np.allclose(I, np.diag([0.01, 0.02, 0.025]))


def test_planar_arm_names_the_identifiable_combinations():
    """A planar arm's last link: only the combinations its joints see (the base set's projection)."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    from baseparam.identification.payload import identifiable_combinations
    from baseparam.model.parameters import ColumnLayout
    rank, rows, text = identifiable_combinations(bp.find_base_parameters(robot), ColumnLayout(robot).link_columns[-1])
    assert rank < 10 and len(text) == rank
    # the regressor's payload columns over random states span exactly that row space
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.normal(size=(200, robot.n_dof)) for _ in range(3))
    from baseparam.dynamics.regressors import evaluate
    W = evaluate(robot, q, qd, qdd, columns=ColumnLayout(robot).link_columns[-1]).reshape(-1, 10)
    assert np.linalg.matrix_rank(W, tol=1e-9 * np.abs(W).max()) == rank
    assert np.linalg.matrix_rank(np.vstack([W, rows]), tol=1e-9 * np.abs(W).max()) == rank


def test_cli_payload_writes_json(tmp_path):
    from click.testing import CliRunner

    from baseparam.cli import main
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    payload = CASES[0][1]
    t, q, qd, qdd = _multisine(robot.n_dof)
    tau = _torques(robot, payload, q, qd, qdd)
    n = robot.n_dof
    path = tmp_path / "loaded.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(n)] + [f"tau{j + 1}" for j in range(n)])
    np.savetxt(path, np.column_stack([t, q, tau]), delimiter=",", header=header, comments="")
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", str(ROOT / "robots" / "ur10e.yaml"), str(path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    import json
    doc = json.loads(out.read_text())
    assert abs(doc["mass"] - payload[0]) < 0.02 * payload[0]
    assert np.allclose(doc["com"], payload[1], atol=0.005)
    assert set(doc) >= {"mass", "mass_std", "com", "com_std", "inertia", "inertia_std"}


def test_vendor_formats_read_back():
    """Each vendor's numbers rebuild the payload: KUKA's ABC and principal moments give the tensor back."""
    from baseparam.identification.payload import PayloadResult
    I = np.array([[0.015, 0.003, -0.002], [0.003, 0.011, 0.001], [-0.002, 0.001, 0.008]])
    c = np.array([0.02, -0.01, 0.05])
    r = PayloadResult(mass=2.5, com=c, inertia=I, mass_std=0.0, com_std=np.zeros(3), inertia_std=np.zeros((3, 3)),
                      parameters=payload_parameters(2.5, c, I), unconstrained=payload_parameters(2.5, c, I),
                      covariance=np.zeros((10, 10)), identifiable=list(PSEUDO), rank=10, mode="model", n_samples=1,
                      rmse=np.zeros(6))
    k = r.to_vendor("kuka")
    A, B, C = np.radians([k["A"], k["B"], k["C"]])
    R = (pin.rpy.rpyToMatrix(0, 0, A) @ pin.rpy.rpyToMatrix(0, B, 0) @ pin.rpy.rpyToMatrix(C, 0, 0))
    assert np.allclose(R @ np.diag([k["JX"], k["JY"], k["JZ"]]) @ R.T, I, atol=1e-12)
    assert np.allclose([k["X"], k["Y"], k["Z"]], 1e3 * c) and k["M"] == 2.5         # KUKA's centre in mm
    f = r.to_vendor("franka")
    assert np.allclose(np.reshape(f["I_load"], (3, 3), order="F"), I) and np.allclose(f["F_x_Cload"], c)
    u = r.to_vendor("ur")
    Ixx, Iyy, Izz, Ixy, Ixz, Iyz = u["inertia"]
    assert np.allclose([[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]], I) and np.allclose(u["cog"], c)
    assert set(r.to_dict()["vendors"]) == {"ur", "kuka", "franka"}
    with pytest.raises(bp.BaseParamError):
        r.to_vendor("abb")
    # a mass or a centre-of-mass coordinate the data leave undetermined (std NaN, as a 2-joint wrist's static fit
    # gives): the JSON printed the controllers' numbers anyway (0 kg, or a COM 2 m out), to be loaded as measured
    import dataclasses
    for change in ({"com_std": np.array([0.001, np.nan, 0.002])}, {"mass_std": np.nan}):
        doc = dataclasses.replace(r, **change).to_dict()
        assert doc["vendors"] is None and doc["mass"] == 2.5 and np.allclose(doc["com"], c)


def test_difference_mode_cancels_a_wrong_model():
    """Loaded − unloaded logs of one motion (the unloaded log starting 0.7 s earlier): a model whose bodies
    are 20 % off still gives the payload, because its error cancels."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    payload = CASES[0][1]
    t, q, qd, qdd = _multisine(robot.n_dof, duration=21.0)
    loaded = _torques(robot, payload, q, qd, qdd)
    unloaded = _torques(robot, (0.0, np.zeros(3), np.zeros((3, 3))), q, qd, qdd)
    rng = np.random.default_rng(5)
    noise = np.where(np.arange(robot.n_dof) < 3, 0.3, 0.05)
    shift = 140                                                    # samples: 0.7 s
    L = bp.Trajectory(t=t[shift:shift + 4000] + 100.0, q=q[shift:shift + 4000],
                      tau=loaded[shift:shift + 4000] + rng.normal(0, 1, (4000, 6)) * noise)
    U = bp.Trajectory(t=t[:4200], q=q[:4200], tau=unloaded[:4200] + rng.normal(0, 1, (4200, 6)) * noise)
    from baseparam.model.parameters import ColumnLayout, body_parameters
    layout = ColumnLayout(robot)
    p = np.zeros(layout.n_standard)
    for k, joint in enumerate(robot.joints):
        p[layout.link_columns[k]] = 1.2 * body_parameters(joint.inertia)      # every body 20 % heavier
    wrong = bp.Model(robot, p)
    assert abs(identify_payload(wrong, L).mass - payload[0]) > 0.1      # the model's error, without the difference
    result = identify_payload(wrong, L, unloaded=U)
    assert result.mode == "difference"
    assert abs(result.mass - payload[0]) < 0.02 * payload[0]
    assert np.all(np.abs(result.com - payload[1]) < 0.005)
