"""Round seventeen, the lead's own finds."""
from dataclasses import replace

import baseparam as bp
from baseparam.model.friction import FrictionModel
from baseparam.model.robot import robot_to_yaml
from conftest import ROOT


def test_a_coulomb_friction_of_zero_with_a_stribeck_model_reads_back(tmp_path):
    # a consistent fit may put a Coulomb term at exactly 0 (its ≥ 0 bound, clipped): the identified description
    # (identify --yaml) still declares it, with its Stribeck model, and load_robot must read what it wrote — the YAML
    # reader took 0.0 for "not declared" (0.0 == False) and refused the file the library had just written
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    model = FrictionModel(stribeck=0.05, stribeck_friction=0.0)
    joints = list(robot.joints)
    joints[2] = replace(joints[2], friction=(0.3, 0.0, 0.1), friction_model=model)
    fitted = replace(robot, joints=tuple(joints), source=None)
    path = tmp_path / "fitted.yaml"
    path.write_text(robot_to_yaml(fitted))
    back = bp.load_robot(path)
    assert back.joints[2].friction == (0.3, 0.0, 0.1)
    assert back.joints[2].friction_model == model
    assert back.joints[1].friction_model is None
