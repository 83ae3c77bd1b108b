"""The standard DH table equivalent to a chain in any geometry (``baseparam describe``).

Checked independently of the table's construction: the DH robot it gives, bodies moved into its
frames, has the same rank as the description and the same inverse dynamics — by baseparam's
Newton–Euler, which the pinocchio tests check for both conventions — and its frames, written out
from the DH definition here, reproduce pinocchio's placements of the description's link frames.
"""
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.model.dh_equivalent import dh_equivalent, dh_robot
from conftest import ROBOT_FILES, ROOT
from random_bodies import angles, lengths

AXES = [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (0.0, math.sqrt(0.5), math.sqrt(0.5)), (0.3, -0.5, 0.8)]


def random_body(rng):
    R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    return bp.Inertia(mass=float(rng.uniform(0.5, 3)), com=rng.uniform(-0.2, 0.2, 3),
                      inertia=R @ np.diag(rng.uniform(0.05, 0.1, 3)) @ R.T)


@st.composite
def chains(draw):
    n = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    joints = []
    for _ in range(n):
        revolute = draw(st.booleans())
        xyz = tuple(draw(st.lists(lengths, min_size=3, max_size=3)))
        rpy = tuple(draw(st.lists(st.one_of(st.just(0.0), angles), min_size=3, max_size=3)))
        joints.append(bp.Joint(type="revolute" if revolute else "prismatic", origins=(bp.Origin(xyz, rpy),),
                               axis=draw(st.sampled_from(AXES)), inertia=random_body(rng)))
    return bp.Robot(tuple(joints), name="chain", convention="urdf", gravity=(0.0, 0.0, -9.81))


def same_dynamics(robot, other, seed=0):
    rng = np.random.default_rng(seed)
    q, qd, qdd = (rng.uniform(-2, 2, (20, robot.n_dof)) for _ in range(3))
    tau = bp.inverse_dynamics(robot, bp.standard_parameters(robot), q, qd, qdd)
    tau_dh = bp.inverse_dynamics(other, bp.standard_parameters(other), q, qd, qdd)
    np.testing.assert_allclose(tau_dh, tau, atol=1e-9 * np.abs(tau).max())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(robot=chains())
def test_random_chains(robot):
    eq = dh_equivalent(robot)
    assert eq.error < 1e-9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dh = dh_robot(robot, eq)
        # a DH table of generic angles is floats: relations among them that the URDF form keeps exactly (one
        # axis, two angles) are then round-off, and the rank of those floats may be the generic one
        # (with an AccuracyWarning); with angles at multiples of 15° the table is exact and so is the rank
        angles = np.degrees(np.concatenate([eq.table[:, 0], eq.table[:, 3:5][np.array(eq.types) == "revolute", 1],
                                            eq.table[np.array(eq.types) == "prismatic", 3]]))
        if np.all(np.abs(angles / 15 - np.round(angles / 15)) < 1e-9):
            assert bp.find_base_parameters(dh).rank == bp.find_base_parameters(robot).rank
    same_dynamics(robot, dh)


@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.name)
def test_dh_files_reproduce_their_own_geometry(path):
    robot = bp.load_robot(path)
    eq = dh_equivalent(robot)
    if not robot.is_chain:
        assert eq is None
        return
    assert eq.error < 1e-9 and eq.base_is_identity
    dh = dh_robot(robot, eq)
    assert bp.find_base_parameters(dh).rank == bp.find_base_parameters(robot).rank


def test_a_base_off_the_first_axis_is_reported():
    J, O = bp.Joint, bp.Origin
    robot = bp.Robot((J(type="revolute", origins=(O((0.1, 0.2, 0.3), (math.pi / 2, 0, 0)),), axis=(1, 0, 0)),
                      J(type="revolute", origins=(O((0.4, 0, 0), (0, 0, 0)),), axis=(0, 1, 0))),
                     convention="urdf")
    eq = dh_equivalent(robot)
    assert eq.error < 1e-12 and not eq.base_is_identity
    # DH frame 0 has its z on joint 1's axis: in the base frame, axis 1 is Rx(90°)·x = x, through (0.1, 0.2, 0.3)
    np.testing.assert_allclose(eq.base[:3, 2], [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(np.cross(eq.base[:3, 3] - [0.1, 0.2, 0.3], [1, 0, 0]), 0, atol=1e-12)


def test_describe_command_writes_an_equivalent_description(tmp_path):
    from click.testing import CliRunner

    from baseparam.cli import main

    out = tmp_path / "lwr_dh.yaml"
    lwr = str(ROOT / "robots" / "kuka_lwr4.yaml")
    result = CliRunner().invoke(main, ["describe", lwr, "--yaml", str(out)])
    assert result.exit_code == 0, result.output
    assert "Base: DH frame 0 is the description's base frame." in result.output
    written, original = bp.load_robot(out), bp.load_robot(lwr)
    np.testing.assert_allclose(written.dh_si(), original.dh_si(), atol=1e-12)
    assert bp.find_base_parameters(written).rank == bp.find_base_parameters(original).rank
    torso = str(ROOT / "robots" / "dual_arm_torso.yaml")
    tree = CliRunner().invoke(main, ["describe", torso, "--yaml", str(tmp_path / "t.yaml")])
    assert tree.exit_code == 2 and "no single DH table" in tree.output  # (a YAML tree is not told to use --tip,
    # which only selects part of a URDF: tests/test_fuzz_round13_fcli.py)
