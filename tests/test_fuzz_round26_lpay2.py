"""Round twenty-six's payload leftovers (lpay2, issue 25): a friction prior in written descriptions, the twins of the
payload fit's friction shapes, the unloaded log's time alignment."""
import dataclasses
import re
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification._payload_math import NAMES
from baseparam.identification.payload import PayloadResult, payload_parameters
from conftest import ROOT

UR, LWR = ROOT / "robots" / "ur10e.yaml", ROOT / "robots" / "kuka_lwr4.yaml"
PAYLOAD = (2.0, np.array([0.03, -0.02, 0.06]), np.array([[0.012, 0.002, 0.0], [0.002, 0.010, 0.001],
                                                         [0.0, 0.001, 0.006]]))


def _result_on(robot):
    """A payload result on ``robot`` built by hand (no fit)."""
    mass, com, inertia = PAYLOAD
    p = payload_parameters(mass, com, inertia)
    return PayloadResult(mass=mass, com=com, inertia=inertia, mass_std=0.01, com_std=np.full(3, 1e-3),
                         inertia_std=np.full((3, 3), 1e-4), parameters=p, unconstrained=p, covariance=np.eye(10) * 1e-8,
                         identifiable=list(NAMES), rank=10, mode="model", n_samples=100,
                         rmse=np.zeros(robot.n_dof), robot=robot)


# --- 3. a friction prior of friction declared without values is no value -------------------------------------------

def _with_prior(robot, friction):
    """``robot`` (its YAML text dropped) with ``friction`` declared on every joint and a friction_prior (0.5, 2)."""
    joints = tuple(dataclasses.replace(j, friction=friction, friction_prior=(0.5, 2.0)) for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


def test_a_prior_of_friction_to_identify_is_not_written_as_a_urdf_value(tmp_path):
    """``robots/ur10e.yaml`` declares its friction without values (to be identified); with a friction_prior, the URDF
    robot_text wrote the prior as each joint's <dynamics damping friction>, which a URDF reader takes as the true
    friction (simulated, subtracted by ``payload``): a prior became a value. Now those joints get no <dynamics> (said
    by a DataWarning), and MJCF's damping and frictionloss are 0 (unknown) there, as without a prior."""
    robot = _with_prior(bp.load_robot(UR), True)
    result = _result_on(robot)
    with pytest.warns(bp.DataWarning, match=r"leaves out the friction priors of the friction it declares without "
                                            r"values \(a URDF's <dynamics> is a value, not a prior\)"):
        urdf = result.robot_text(robot, "urdf")
    assert "<dynamics" not in urdf
    (tmp_path / "r.urdf").write_text(urdf)
    assert [j.friction_prior for j in bp.load_robot(tmp_path / "r.urdf").joints] == [None] * robot.n_dof
    mjcf = result.robot_text(robot, "mjcf")
    assert set(re.findall(r'(?:damping|frictionloss)="([^"]*)"', mjcf)) == {"0.0"}
    assert result.robot_text(robot, "yaml").count("friction_prior") == robot.n_dof       # the YAML keeps the prior


def test_a_prior_of_an_undeclared_term_stays_its_value():
    """Per term: a joint declaring viscous friction without a value and no Coulomb friction writes the prior's
    Coulomb value (a value once declared) and 0 for the viscous term, in the URDF and in MJCF."""
    robot = _with_prior(bp.load_robot(UR), (True, False, False))
    result = _result_on(robot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.DataWarning)        # the viscous prior left out: said
        urdf = result.robot_text(robot, "urdf")
    assert urdf.count('<dynamics damping="0.0" friction="2.0"/>') == robot.n_dof
    assert re.findall(r'damping="([^"]*)" frictionloss="([^"]*)"', result.robot_text(robot, "mjcf")) == [
        ("0.0", "2.0")] * robot.n_dof
