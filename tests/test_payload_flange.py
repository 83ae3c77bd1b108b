"""The vendors' payload formats in the controller's flange frame (``to_vendor(flange=)``, ``payload --flange``),
against pinocchio's frames and inertias: a payload found in the last link's frame, carried into the flange frame
by ``pin.SE3.actInv``, must read what the vendors' numbers say."""
import json
import sys
import warnings

import numpy as np
import pinocchio as pin
import pytest
from click.testing import CliRunner
from scipy.spatial.transform import Rotation

import baseparam as bp
from baseparam.cli import main
from baseparam.identification.payload import PayloadResult, payload_parameters
from conftest import EXAMPLES, ROOT

sys.path.insert(0, str(ROOT / "notebooks"))
from _helpers import multisine  # noqa: E402  (notebooks/ is on the path just above)

PSEUDO = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")
UR10 = EXAMPLES.get("ur10_robot.urdf")
needs_ur10 = pytest.mark.skipif(UR10 is None, reason="example-robot-data's ur10_robot.urdf is not installed")

MASS, COM = 1.3, np.array([0.012, -0.03, 0.07])
INERTIA = Rotation.from_euler("xyz", [0.3, -0.5, 0.9]).as_matrix() @ np.diag([0.004, 0.006, 0.009]) \
    @ Rotation.from_euler("xyz", [0.3, -0.5, 0.9]).as_matrix().T


def _result(robot):
    p = payload_parameters(MASS, COM, INERTIA)
    return PayloadResult(mass=MASS, com=COM, inertia=INERTIA, mass_std=0.0, com_std=np.zeros(3),
                         inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p, covariance=np.zeros((10, 10)),
                         identifiable=list(PSEUDO), rank=10, mode="model", n_samples=1,
                         rmse=np.zeros(robot.n_dof), robot=robot)


def _in_frame(placement):
    """The payload (pinocchio Inertia in the last link's frame) seen from a frame placed at ``placement``."""
    return placement.actInv(pin.Inertia(MASS, COM, INERTIA))


def _check_vendors(vendors, expected):
    ur, franka, kuka = vendors["ur"], vendors["franka"], vendors["kuka"]
    I = expected.inertia
    assert np.allclose(ur["cog"], expected.lever, atol=1e-9) and np.allclose(franka["F_x_Cload"], expected.lever,
                                                                              atol=1e-9)
    assert np.allclose(ur["inertia"], [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]], atol=1e-12)
    assert np.allclose(np.reshape(franka["I_load"], (3, 3), order="F"), I, atol=1e-12)
    A, B, C = np.radians([kuka["A"], kuka["B"], kuka["C"]])
    R = pin.rpy.rpyToMatrix(0, 0, A) @ pin.rpy.rpyToMatrix(0, B, 0) @ pin.rpy.rpyToMatrix(C, 0, 0)
    assert np.allclose(R @ np.diag([kuka["JX"], kuka["JY"], kuka["JZ"]]) @ R.T, I, atol=1e-12)
    assert np.allclose([kuka["X"], kuka["Y"], kuka["Z"]], 1e3 * expected.lever, atol=1e-6)     # mm


@needs_ur10
def test_a_urdf_link_fixed_to_the_last_link_is_the_vendors_frame():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.RoundOffWarning)     # its rpy of 1.57079632679 taken as 90°
        robot = bp.load_robot(UR10)
    model = pin.buildModelFromUrdf(str(UR10))
    tool0 = model.frames[model.getFrameId("tool0")]
    assert tool0.parentJoint == model.getJointId("wrist_3_joint")      # the joint frame is the last link's
    result = _result(robot)
    for vendor in ("ur", "kuka", "franka"):
        assert result.to_vendor(vendor, flange="wrist_3_link") == result.to_vendor(vendor)
    _check_vendors({v: result.to_vendor(v, flange="tool0") for v in ("ur", "kuka", "franka")},
                   _in_frame(tool0.placement))
    doc = result.to_dict(flange="tool0")
    assert doc["vendor_frame"] == "link 'tool0', fixed to the link the last joint moves"
    assert doc["com"] == COM.tolist()               # the payload's own fields stay in the last link's frame
    _check_vendors(doc["vendors"], _in_frame(tool0.placement))
    with pytest.raises(bp.SettingsError, match=r"^flange: 'forearm_link' is not a link fixed to the last link of "
                                               r"'ur10' \(those are: wrist_3_link, ee_link, tool0\)$"):
        result.to_vendor("ur", flange="forearm_link")


def test_six_numbers_place_the_flange():
    # a Panda's DH frame 7 is 0.107 m short of its flange (robots/panda.yaml leaves the flange out)
    robot = bp.load_robot(ROOT / "robots" / "panda.yaml")
    result = _result(robot)
    for flange in ([0, 0, 0.107, 0, 0, 0], [0.02, -0.01, 0.107, 0.3, -1.1, 2.5]):
        placement = pin.SE3(pin.rpy.rpyToMatrix(*flange[3:]), np.array(flange[:3], dtype=float))
        _check_vendors(result.to_dict(flange)["vendors"], _in_frame(placement))
    assert result.to_vendor("franka", flange=[0, 0, 0.107, 0, 0, 0])["F_x_Cload"][2] == pytest.approx(0.07 - 0.107)
    with pytest.raises(bp.SettingsError, match=r"^flange: the link 'tool0' needs the result's robot read from a URDF"):
        result.to_vendor("ur", flange="tool0")
    with pytest.raises(bp.SettingsError, match=r"^flange: expected 6 finite numbers"):
        result.to_vendor("ur", flange=[0, 0, 0.1])


def _payload_log(tmp_path, robot):
    """A noise-free log of ``robot`` carrying the payload (pinocchio's RNEA, the payload on the last joint)."""
    from pin_model import build_model
    inertias = [pin.Inertia(j.inertia.mass, np.asarray(j.inertia.com, float), np.asarray(j.inertia.inertia, float))
                for j in robot.joints]
    inertias[-1] = inertias[-1] + pin.Inertia(MASS, COM, INERTIA)
    model, _ = build_model(robot, inertias)
    data = model.createData()
    t, q, qd, qdd = multisine(robot.n_dof, dt=0.005)
    tau = np.array([pin.rnea(model, data, a, b, c) for a, b, c in zip(q, qd, qdd)])
    path = tmp_path / "loaded.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(robot.n_dof)] + [f"tau{j + 1}" for j in range(robot.n_dof)])
    np.savetxt(path, np.column_stack([t, q, tau]), delimiter=",", header=header, comments="")
    return path


def test_cli_payload_flange(tmp_path):
    robot_file = ROOT / "robots" / "ur10e.yaml"
    log = _payload_log(tmp_path, bp.load_robot(robot_file))
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", str(robot_file), str(log), "--json", str(out),
                                       "--flange", "0,0,0.05,0,0,1.5707963267948966"])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    placement = pin.SE3(pin.rpy.rpyToMatrix(0, 0, np.pi / 2), np.array([0, 0, 0.05]))
    found = _in_frame(placement)
    assert np.allclose(doc["vendors"]["ur"]["cog"], found.lever, atol=2e-3)
    assert doc["vendor_frame"].startswith("the flange at x,y,z = 0,0,0.05 m")
    assert np.allclose(doc["com"], COM, atol=2e-3)          # the payload's own fields: the last link's frame
    # a link name on a DH table, and a name no link has: one line, exit 2, before any log is read
    for flange, said in (("tool0", "--flange: the link 'tool0' needs the result's robot read from a URDF"),
                         ("1,2", "--flange: expected 6 finite numbers")):
        result = CliRunner().invoke(main, ["payload", str(robot_file), str(log), "--flange", flange])
        assert result.exit_code == 2 and said in result.output and len(result.output.strip().splitlines()) == 1, \
            result.output
