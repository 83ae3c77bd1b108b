"""Drives declared on a URDF robot (issue 24, item 3): what a URDF cannot say is 0 as a true value.

A URDF gives viscous and Coulomb friction in <dynamics damping friction> (0 when absent, as the URDF
specification says) and has no place for a friction offset or a rotor inertia: with ``friction`` /
``rotor_inertia`` declared, those are 0, so the description has every true value: the standard
parameters exist, torques can be predicted and bounded (excite --torque-limits), and the excitation
figure keeps its τ column. Checked against the values written in the file.
"""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main

ARM = """<?xml version="1.0"?>
<robot name="two_link">
  <link name="base"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.2"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="60" velocity="2"/>
    <dynamics damping="0.4" friction="1.5"/>
  </joint>
  <link name="upper">
    <inertial><origin xyz="0.2 0 0"/><mass value="2.0"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.03"/></inertial>
  </link>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="fore"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 1 0"/>
    <limit effort="30" velocity="3"/>
  </joint>
  <link name="fore">
    <inertial><origin xyz="0.15 0 0"/><mass value="1.0"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
</robot>
"""


@pytest.fixture
def arm(tmp_path):
    path = tmp_path / "two_link.urdf"
    path.write_text(ARM)
    return path


def test_what_a_urdf_cannot_say_is_zero(arm):
    robot = bp.load_robot(arm, friction=True, rotor_inertia=True)
    assert robot.joints[0].friction == (0.4, 1.5, 0.0)          # <dynamics>, and no offset
    assert robot.joints[1].friction == (0.0, 0.0, 0.0)          # no <dynamics>: the URDF's defaults
    assert [j.rotor_inertia for j in robot.joints] == [0.0, 0.0]
    p = bp.standard_parameters(robot)
    layout = bp.ColumnLayout(robot)
    assert p[layout.friction_columns[(0, "FV")]] == 0.4 and p[layout.friction_columns[(0, "FC")]] == 1.5
    assert p[layout.friction_columns[(0, "FO")]] == 0.0 and p[layout.rotor_columns[1]] == 0.0
    # the same torques as the rigid bodies plus the file's friction, computed without the drive columns
    rigid = bp.load_robot(arm)
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-1, 1, (5, 2)) for _ in range(3))
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd)
    expected = bp.inverse_dynamics(rigid, bp.standard_parameters(rigid), q, qd, qdd)
    expected[:, 0] += 0.4 * qd[:, 0] + 1.5 * np.sign(qd[:, 0])
    np.testing.assert_allclose(tau, expected, rtol=1e-12, atol=1e-12)
    # the source stays the file's text: the identified bodies are written back into it
    assert robot.source == ARM


def test_a_yaml_robot_still_declares_without_values():
    robot = bp.load_robot(bp.__path__[0] + "/../robots/planar_rrr.yaml", friction=True)
    assert all(j.friction == (True, True, True) for j in robot.joints)


def test_excite_with_friction_and_torque_limits_on_a_urdf(arm, tmp_path):
    from baseparam.excitation.plots import excitation_figure

    robot = bp.load_robot(arm, friction=True)
    design = bp.design_excitation(robot, period=2.0, harmonics=2, rate=20.0, starts=1, workers=1,
                                  torque_limits=True)
    assert design.torque_max is not None and (design.torque_max <= [60.0, 30.0]).all()
    assert len(excitation_figure(design).axes) == 4 * 2                  # q, q̇, q̈ and τ
    res = CliRunner().invoke(main, ["excite", str(arm), "--friction", "--torque-limits", "--period", "2",
                                    "--harmonics", "2", "--starts", "1", "--out", str(tmp_path / "x.csv")])
    assert res.exit_code == 0, res.output


def test_torque_limits_refusal_names_the_real_reason(arm):
    """Bodies given (a URDF always gives them: a link without <inertial> is massless), a drive term declared
    without a value: the refusal says so, not "no true inertias"."""
    import dataclasses

    robot = bp.load_robot(arm)
    robot = dataclasses.replace(robot, joints=(dataclasses.replace(robot.joints[0], friction=(True, False, False)),
                                               robot.joints[1]))
    with pytest.raises(bp.ArgumentError, match=r"declares drive terms .* without their values, needed to predict "
                                               r"torques: joints\[1\]\.friction: FV") as caught:
        bp.design_excitation(robot, period=2.0, harmonics=2, starts=1, workers=1, torque_limits=True)
    assert "no true inertias" not in str(caught.value)
