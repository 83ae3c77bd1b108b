"""Independent cross-check of base parameters against pinocchio's joint-torque regressor.

The reference regressor W (tests/pin_model.py) is built from pinocchio's RNEA regressor and a
DH → pinocchio model written from the DH definitions alone. For a correct base set:

* rank(W) at random states equals ``base.rank``;
* W @ p == W[:, pivots] @ (Y @ p) for any standard parameters p (the regroupings are right);
* columns reported unidentifiable are zero in W.
"""
import dataclasses
import math
import os

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import baseparam as bp  # noqa: E402
from conftest import ROBOT_FILES as FIXED_BASE_FILES  # noqa: E402
from pin_model import Reference, build_model, dh_forward, link_params  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROBOT_FILES = [str(p) for p in FIXED_BASE_FILES]       # the base set takes fixed-base robots
RANK_RTOL = 1e-9
IDENTITY_RTOL = 1e-9
# Columns below this fraction of the largest column norm are zero (the reference uses float
# cos/sin, so e.g. cos(90°) = 6e-17 leaves 1e-16-sized noise where a column is exactly zero).
ZERO_COLUMN_RTOL = 1e-11


# -- helpers --------------------------------------------------------------------------------------
def numeric_rank(W, rtol=RANK_RTOL):
    norms = np.linalg.norm(W, axis=0)
    live = norms > ZERO_COLUMN_RTOL * norms.max(initial=0.0)
    if not live.any():
        return 0
    s = np.linalg.svd(W[:, live] / norms[live], compute_uv=False)
    return int(np.sum(s > rtol * s[0]))


def n_samples(robot, n_standard):
    return int(math.ceil(10 * n_standard / robot.n_dof)) + 20


def stacked_regressor(robot, parameters, seed=0):
    ref = Reference(robot, parameters)
    W = ref.stacked(np.random.default_rng(seed), n_samples(robot, len(ref.names)))
    return ref, W


def check_against_pinocchio(robot, parameters="khalil", force_float=False, seed=0):
    base = bp.find_base_parameters(robot, parameters=parameters, force_float=force_float)
    ref, W = stacked_regressor(robot, parameters, seed)
    tag = f"{robot.name} [{parameters}{', float' if force_float else ''}]"
    assert list(base.standard_names) == ref.names, tag
    n_std = len(ref.names)
    assert base.Y.shape == (base.rank, n_std), tag

    rank_w = numeric_rank(W)
    assert rank_w == base.rank, f"{tag}: pinocchio rank {rank_w}, baseparam rank {base.rank}"
    piv = np.asarray(base.pivots)
    assert numeric_rank(W[:, piv]) == base.rank, f"{tag}: pivot columns are dependent"
    # a pivot's own regrouping starts with coefficient 1 on itself
    np.testing.assert_allclose(base.Y[:, piv], np.eye(base.rank), atol=1e-12, err_msg=tag)

    rng = np.random.default_rng(seed + 1)
    for _ in range(5):
        p = rng.normal(size=n_std)
        lhs = W @ p
        rhs = W[:, piv] @ (base.Y @ p)
        err = np.linalg.norm(lhs - rhs) / np.linalg.norm(lhs)
        assert err < IDENTITY_RTOL, f"{tag}: W p vs W_base (Y p): relative error {err:.3e}"
    # column by column: every standard column is the regrouped combination of pivot columns
    col_scale = np.linalg.norm(W, axis=0) + np.linalg.norm(np.abs(W[:, piv]) @ np.abs(base.Y), axis=0)
    col_err = np.linalg.norm(W - W[:, piv] @ base.Y, axis=0)
    floor = ZERO_COLUMN_RTOL * np.linalg.norm(W, axis=0).max()
    bad = [ref.names[c] for c in np.flatnonzero(col_err > np.maximum(IDENTITY_RTOL * col_scale, floor))]
    assert not bad, f"{tag}: columns not reproduced by the regroupings: {bad}"
    for name in base.unidentifiable:
        c = ref.names.index(name)
        assert np.linalg.norm(W[:, c]) <= floor, f"{tag}: {name} reported unidentifiable but acts"
    return base


def random_inertia(rng):
    m = rng.uniform(0.5, 3.0)
    c = rng.uniform(-0.3, 0.3, 3)
    R = pin.Quaternion(*rng.normal(size=4)).normalized().matrix()
    Ic = R @ np.diag(rng.uniform(0.01, 0.2, 3)) @ R.T
    return pin.Inertia(m, c, Ic)


# -- the reference itself ---------------------------------------------------------------------------
def test_pinocchio_product_of_inertia_sign():
    """pinocchio's Ixy is the tensor element −∫xy dm, as Khalil's XY."""
    I = pin.Inertia(2.0, np.array([0.3, 0.5, 0.7]), np.zeros((3, 3)))
    m, hx, hy, hz, ixx, ixy, iyy, ixz, iyz, izz = I.toDynamicParameters()
    assert np.allclose([m, hx, hy, hz], [2.0, 0.6, 1.0, 1.4])
    assert np.isclose(ixx, 2.0 * (0.25 + 0.49)) and np.isclose(iyy, 2.0 * (0.09 + 0.49))
    assert np.isclose(ixy, -2.0 * 0.3 * 0.5) and np.isclose(ixz, -2.0 * 0.3 * 0.7)
    assert np.isclose(iyz, -2.0 * 0.5 * 0.7) and np.isclose(izz, 2.0 * (0.09 + 0.25))


@pytest.mark.parametrize("path", ROBOT_FILES, ids=os.path.basename)
def test_pinocchio_frames_are_dh_frames(path):
    robot = bp.load_robot(path)
    model, fids = build_model(robot)
    data = model.createData()
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, robot.n_dof)
        pin.framesForwardKinematics(model, data, q)
        for T, fid in zip(dh_forward(robot, q), fids):
            np.testing.assert_allclose(data.oMf[fid].homogeneous, T, atol=1e-12)


@pytest.mark.parametrize("path", ROBOT_FILES, ids=os.path.basename)
@pytest.mark.parametrize("parameters", ["khalil", "pseudo"])
def test_reference_regressor_matches_rnea(path, parameters):
    """Regressor × parameters (in the DH link frames) equals pinocchio's RNEA with those bodies."""
    robot = bp.load_robot(path)
    rng = np.random.default_rng(5)
    inertias = [random_inertia(rng) for _ in robot.joints]
    model, _ = build_model(robot, inertias)
    data = model.createData()
    ref = Reference(robot, parameters)
    p = np.concatenate([link_params(I, parameters) for I in inertias])
    link_cols = [c for c, col in enumerate(ref.columns) if col[0] == "link"]
    for _ in range(3):
        q, v, a = (rng.uniform(-np.pi, np.pi, robot.n_dof) for _ in range(3))
        tau = pin.rnea(model, data, q, v, a)
        np.testing.assert_allclose(ref.regressor(q, v, a)[:, link_cols] @ p, tau, rtol=1e-10, atol=1e-10)


def test_reference_one_joint_by_hand():
    """1R arm, standard DH, horizontal joint axis: τ = (ZZ + 2a·MX + a²M) q̈ + g (cos q (MX + aM) − sin q MY)."""
    a, g = 0.7, 9.81
    robot = bp.Robot(joints=(bp.Joint(type="revolute", a=a),), gravity=(0.0, -g, 0.0))
    ref = Reference(robot, "khalil")
    rng = np.random.default_rng(7)
    for _ in range(5):
        q, v, acc = rng.uniform(-np.pi, np.pi, 3)
        expected = np.zeros(10)  # XX XY XZ YY YZ ZZ MX MY MZ M
        expected[5] = acc
        expected[6] = 2 * a * acc + g * np.cos(q)
        expected[7] = -g * np.sin(q)
        expected[9] = a * a * acc + g * a * np.cos(q)
        np.testing.assert_allclose(ref.regressor([q], [v], [acc])[0], expected, atol=1e-12)


def test_reference_rotor_and_friction_columns():
    robot = bp.Robot(joints=(bp.Joint(type="revolute", friction=(True, True, True), rotor_inertia=True),
                             bp.Joint(type="prismatic", alpha=math.pi / 2, parent=1, rotor_inertia=True,
                                      friction=(True, False, False))))
    ref = Reference(robot, "khalil")
    assert ref.names[10:14] == ["IA1", "FV1", "FC1", "FO1"] and ref.names[24:] == ["IA2", "FV2"]
    row = ref.regressor(np.array([0.1, 0.2]), np.array([-0.3, 0.4]), np.array([0.5, -0.6]))
    assert row[0, 10:14].tolist() == [0.5, -0.3, -1.0, 1.0] and row[1, 10:14].tolist() == [0, 0, 0, 0]
    assert row[1, 24:].tolist() == [-0.6, 0.4] and row[0, 24:].tolist() == [0, 0]


# -- baseparam against the reference ------------------------------------------------------------------
@pytest.mark.parametrize("path", ROBOT_FILES, ids=os.path.basename)
@pytest.mark.parametrize("parameters", ["khalil", "pseudo"])
def test_robot_files(path, parameters):
    check_against_pinocchio(bp.load_robot(path), parameters)


@pytest.mark.parametrize("path", ROBOT_FILES, ids=os.path.basename)
def test_robot_files_float_path(path):
    check_against_pinocchio(bp.load_robot(path), "khalil", force_float=True)


def test_rotor_and_friction():
    robot = bp.Robot(
        name="RPR with drives", convention="modified",
        joints=(bp.Joint(type="revolute", d=0.3, friction=(True, True, False), rotor_inertia=True),
                bp.Joint(type="prismatic", alpha=-math.pi / 2, a=0.2, parent=1, rotor_inertia=True,
                         friction=(True, False, True)),
                bp.Joint(type="revolute", alpha=math.pi / 2, d=0.1, parent=2, rotor_inertia=True)))
    for parameters in ("khalil", "pseudo"):
        check_against_pinocchio(robot, parameters)


# -- random DH tables ----------------------------------------------------------------------------------
from random_bodies import angles, general_robots, gravities, lengths  # noqa: E402  the shared strategies


@st.composite
def joints(draw, k):
    revolute = draw(st.booleans())
    alpha, a = draw(angles), draw(lengths)
    if revolute:
        offset = draw(st.one_of(st.just(0.0), angles))
        return bp.Joint(type="revolute", alpha=alpha, a=a, d=draw(lengths), offset=offset, parent=k)
    offset = draw(st.one_of(st.just(0.0), lengths))
    return bp.Joint(type="prismatic", alpha=alpha, a=a, theta=draw(angles), offset=offset, parent=k)


@st.composite
def robots(draw):
    n = draw(st.integers(2, 5))
    return bp.Robot(joints=tuple(draw(joints(k)) for k in range(n)), name="random",
                    convention=draw(st.sampled_from(["standard", "modified"])),
                    length_unit="m", angle_unit="rad", gravity=draw(gravities))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(), parameters=st.sampled_from(["khalil", "pseudo"]))
def test_random_dh_tables(robot, parameters):
    check_against_pinocchio(robot, parameters)


@pytest.mark.parametrize("parameters", ["khalil", "pseudo"])
def test_a_generic_twist_beside_fractions_of_a_turn(parameters):
    """One twist of 0.7 rad beside two of −3π/4 around prismatic joints (found by hypothesis): the
    fractions of a turn keep their cyclotomic image, so −3π/4 − 3π/4 stays a quarter turn modulo p;
    mapping every angle to a rational stand-in lost that and the float and modular ranks disagreed."""
    J = bp.Joint
    robot = bp.Robot((J(type="prismatic", alpha=0.7, theta=-math.pi), J(type="revolute", alpha=-3 * math.pi / 4),
                      J(type="prismatic", alpha=-3 * math.pi / 4)), name="mixed twists", angle_unit="rad")
    check_against_pinocchio(robot, parameters)


# -- general joint geometry (URDF convention) ------------------------------------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(robot=general_robots(), parameters=st.sampled_from(["khalil", "pseudo"]))
def test_random_general_geometry(robot, parameters):
    """Origins with special and generic rpy, axes along, between and off the coordinate axes, trees:
    rank and regroupings against pinocchio's unaligned joints placed by its own rpy → matrix."""
    check_against_pinocchio(robot, parameters)


def test_general_geometry_exact_when_angles_are_quarter_turns():
    J, O = bp.Joint, bp.Origin
    robot = bp.Robot((J(type="revolute", origins=(O((0, 0, 0.3), (math.pi / 2, 0, 0)),), axis=(0, 1, 0)),
                      J(type="revolute", origins=(O((0.4, 0.1, 0), (0, -math.pi / 2, math.pi)),), axis=(-1, 0, 0)),
                      J(type="prismatic", origins=(O((0.2, 0, 0.05), (0, 0, 0)),), axis=(0, 0, -1))),
                     name="quarter turns", convention="urdf")
    base = check_against_pinocchio(robot, "pseudo")
    assert base.exact


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(robot=general_robots(), seed=st.integers(0, 2**32 - 1))
def test_random_general_geometry_inverse_dynamics(robot, seed):
    """Newton–Euler on URDF-convention joints against pinocchio's rnea on unaligned joints."""
    rng = np.random.default_rng(seed)
    bodies = [random_inertia(rng) for _ in robot.joints]
    robot = bp.Robot(tuple(dataclasses.replace(j, inertia=as_inertia(b)) for j, b in zip(robot.joints, bodies)),
                     name=robot.name, convention="urdf", gravity=robot.gravity)
    check_rnea(robot, bodies, rng)


def as_inertia(body):
    """A pin.Inertia as baseparam's (random_inertia's tensors need not be physical: pinocchio does not care)."""
    return bp.Inertia(body.mass, np.array(body.lever), np.array(body.inertia), as_written=True)


def check_rnea(robot, bodies, rng):
    model, _ = build_model(robot, bodies)
    data = model.createData()
    q, qd, qdd = (rng.uniform(-2, 2, (4, robot.n_dof)) for _ in range(3))
    tau = bp.inverse_dynamics(robot, bp.standard_parameters(robot), q, qd, qdd)
    ref = np.array([pin.rnea(model, data, q[s], qd[s], qdd[s]) for s in range(4)])
    np.testing.assert_allclose(tau, ref, atol=1e-10 * np.abs(ref).max())


def test_prismatic_joint_after_an_origin_along_its_own_axis():
    """A URDF origin z before a prismatic joint along z adds to its travel (Newton–Euler once dropped it)."""
    rng = np.random.default_rng(3)
    bodies = [random_inertia(rng) for _ in range(2)]
    J, O = bp.Joint, bp.Origin
    robot = bp.Robot((J(type="revolute", axis=(1, 0, 0), inertia=as_inertia(bodies[0])),
                      J(type="prismatic", origins=(O((0.1, 0, 0.25)),), offset=0.05, inertia=as_inertia(bodies[1]))),
                     convention="urdf")
    check_rnea(robot, bodies, rng)
