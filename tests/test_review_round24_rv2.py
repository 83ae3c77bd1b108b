"""Review round 24 (rv2) of the lead's payload commits of stop 48: the vendors' formats in a flange frame
(``payload --flange``, ``to_dict(flange=)``) and KUKA's load data."""
import dataclasses
import json
import warnings

import numpy as np
import pinocchio as pin
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT
from test_payload_flange import UR10, _in_frame, _payload_log, needs_ur10

@needs_ur10
@pytest.mark.parametrize("name", ["1e3", "nan", "1,2"])
def test_cli_flange_a_link_named_like_numbers_is_that_link(tmp_path, name):
    # payload --flange read '1e3' as one number ('expected 6 finite numbers, got [1000.0]'): a link of that name,
    # fixed to the last link, could not be given at all
    robot_file = tmp_path / "ur10.urdf"          # its tool0 renamed
    robot_file.write_text(UR10.read_text().replace('"tool0"', json.dumps(name)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.RoundOffWarning)     # its rpy of 1.57079632679 taken as 90°
        robot = bp.load_robot(robot_file)
    log = _payload_log(tmp_path, robot)
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", str(robot_file), str(log), "--json", str(out), "--flange", name],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["vendor_frame"] == f"link {name!r}, fixed to the link the last joint moves"
    model = pin.buildModelFromUrdf(str(UR10))
    placement = model.frames[model.getFrameId("tool0")].placement
    assert np.allclose(doc["vendors"]["ur"]["cog"], _in_frame(placement).lever, atol=2e-3)
    # numbers are still numbers where no link has that name
    result = CliRunner().invoke(main, ["payload", str(robot_file), str(log), "--flange", "1e3"])
    if name != "1e3":
        assert result.exit_code == 2 and "--flange: expected 6 finite numbers" in result.output, result.output


def test_vendor_frame_gives_the_flange_numbers_to_their_last_digit():
    # vendor_frame printed the flange with ':g' (6 digits): yaw 1.5707963267948966 read 1.5708, another frame
    from test_payload_flange import _result
    result = _result(bp.load_robot(ROOT / "robots" / "panda.yaml"))
    flange = [0.0123456789, -0.0, 0.107, 1e-17, -2.5, np.pi / 2]
    said = result.to_dict(flange)["vendor_frame"]
    assert said == ("the flange at x,y,z = 0.0123456789,0,0.107 m, roll,pitch,yaw = 1e-17,-2.5,1.5707963267948966 rad "
                    "in the link the last joint moves")
    numbers = said.split(" = ")[1].split(" m")[0].split(",") + said.split(" = ")[2].split(" rad")[0].split(",")
    assert [float(v) for v in numbers] == flange


def _kuka(inertia):
    from test_payload_flange import _result
    from baseparam.identification._payload_math import payload_parameters
    result = _result(bp.load_robot(ROOT / "robots" / "panda.yaml"))
    p = payload_parameters(1.0, np.zeros(3), inertia)
    result = dataclasses.replace(result, mass=1.0, com=np.zeros(3), inertia=inertia, parameters=p, unconstrained=p)
    kuka = result.to_vendor("kuka")
    R = pin.rpy.rpyToMatrix(*np.radians([kuka["C"], kuka["B"], kuka["A"]]))     # Rz(A) Ry(B) Rx(C)
    np.testing.assert_allclose(R @ np.diag([kuka["JX"], kuka["JY"], kuka["JZ"]]) @ R.T, inertia, atol=1e-15)
    return kuka, R


@pytest.mark.parametrize("seed", range(6))
def test_kuka_axes_of_a_repeated_moment_are_the_nearest(seed):
    # a repeated moment's axes are any in their plane: eigh's round-off picked them, and a sphere read C = 17°, a
    # cylinder's two equal axes turned about its own by whatever round-off gave (the nearest: A = B = C = 0, and the
    # shortest arc from the link axis nearest the cylinder's)
    turn = pin.exp3(np.random.default_rng(seed).normal(size=3))
    sphere = turn @ np.diag([0.2, 0.2, 0.2]) @ turn.T
    kuka, R = _kuka(0.5 * (sphere + sphere.T))
    assert (kuka["A"], kuka["B"], kuka["C"]) == (0.0, 0.0, 0.0)
    for moments in ([0.1, 0.1, 0.15], [0.15, 0.1, 0.1]):
        cylinder = turn @ np.diag(moments) @ turn.T
        kuka, R = _kuka(0.5 * (cylinder + cylinder.T))
        axis = turn[:, moments.index(0.15)]
        nearest = np.arccos(np.abs(axis).max())         # the angle to the link axis nearest the cylinder's
        assert np.linalg.norm(pin.log3(R)) == pytest.approx(nearest, abs=1e-9)


def test_sensor_noise_of_per_joint_arrays_compares_by_value():
    # SensorNoise keeps a per-joint array as given: == with its pickled copy raised numpy's 'truth value ...
    # ambiguous' ValueError (the dataclass's tuple of arrays), as the 14 results of _values.ComparedByValue did
    import pickle
    noise = bp.SensorNoise(q=np.array([1e-4, 2e-4, 3e-4]), tau=0.05, seed=3)
    assert noise == pickle.loads(pickle.dumps(noise))
    assert noise == bp.SensorNoise(q=[1e-4, 2e-4, 3e-4], tau=0.05, seed=3)       # the same values, as a list
    assert noise != bp.SensorNoise(q=np.array([1e-4, 2e-4, 4e-4]), tau=0.05, seed=3)
    assert noise != bp.SensorNoise(q=np.array([1e-4, 2e-4, 3e-4]), tau=0.05, seed=4)
    scalar = bp.SensorNoise(q=1e-4, seed=1)                 # hashed as the dataclass hashed it
    assert hash(scalar) == hash(bp.SensorNoise(q=1e-4, seed=1)) and len({scalar, bp.SensorNoise(q=1e-4, seed=1)}) == 1
    with pytest.raises(TypeError):
        hash(noise)
