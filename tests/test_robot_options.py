"""The robot options every command takes: --friction and --rotor-inertia declare drives on every
joint exactly as the YAML keys do; --root/--tip are for URDF models only."""
import re

import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT

PUMA = ROOT / "robots" / "puma560.yaml"


def declared_in_yaml(tmp_path):
    text = PUMA.read_text()
    text = re.sub(r"(\{type: (?:revolute|prismatic),[^}]*)\}", r"\1, friction: true, rotor_inertia: true}", text)
    path = tmp_path / "puma_drives.yaml"
    path.write_text(text)
    return bp.load_robot(path)


def test_friction_and_rotor_inertia_as_the_yaml_keys_declare_them(tmp_path):
    expected = declared_in_yaml(tmp_path)
    assert all(j.friction == (True, True, True) and j.rotor_inertia is True for j in expected.joints)
    robot = bp.load_robot(PUMA, friction=True, rotor_inertia=True)
    assert robot.signature() == expected.signature()
    base, base_yaml = bp.find_base_parameters(robot), bp.find_base_parameters(expected)
    assert base.names == base_yaml.names and base.rank == base_yaml.rank
    assert sum(n.startswith(('FV', 'FC', 'FO')) for n in base.names) == 18   # friction is always its own
    out = CliRunner().invoke(main, ["find", str(PUMA), "--friction", "--rotor-inertia", "--json", "-"])
    assert out.exit_code == 0 and f'"rank": {base_yaml.rank}' in out.output


def test_priors_become_the_declared_values():
    J = bp.Joint
    robot = bp.Robot((J(type="revolute", friction_prior=(0.5, 1.5)),
                      J(type="revolute", a=0.3, friction=(2.0, False, False))))
    declared = bp.model.robot.with_drives(robot, friction=True)
    assert declared.joints[0].friction == (0.5, 1.5, True)
    assert declared.joints[1].friction == (2.0, True, True)        # a value given stays


def test_root_and_tip_are_for_urdf_models():
    with pytest.raises(bp.RobotDescriptionError, match="URDF"):
        bp.load_robot(PUMA, tip="link3")
    out = CliRunner().invoke(main, ["find", str(PUMA), "--root", "base"])
    assert out.exit_code == 2 and "--root/--tip" in out.output
