"""The regressor of a floating-base robot (6 + n rows: the base wrench [f, n], then the joint torques).

Checked against pinocchio with a free-flyer root (its velocity convention is ours: the base twist
[v, ω] and its rate in the base frame, ``rnea``'s first six entries the base wrench [f, n] in that
frame): ``pin.rnea`` and ``pin.computeJointTorqueRegressor`` on the space robot (random bodies,
gravity on) column by column, and on example-robot-data's solo12 and talos_reduced loaded with a
floating root, each body's share of the torques; and against our own inverse dynamics to 1e-12.
States have a nonzero base twist and acceleration.
"""
import ctypes
import dataclasses
import importlib.metadata
import importlib.util
import json
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import EXAMPLES, ROOT

pin = pytest.importorskip("pinocchio")
from pin_model import build_model, link_map, link_params, split_factors  # noqa: E402
from random_bodies import random_body  # noqa: E402

SPACE = ROOT / "robots" / "space_robot.yaml"


def states(robot, n, rng):
    """Random floating states: base position, unit quaternion, joint angles; twists and rates ~ N(0, 1)."""
    quat = rng.normal(size=(n, 4))
    quat /= np.linalg.norm(quat, axis=1)[:, None]
    q = np.c_[rng.uniform(-1, 1, (n, 3)), quat, rng.uniform(-np.pi, np.pi, (n, robot.n_dof))]
    return q, rng.normal(size=(n, robot.n_v)), rng.normal(size=(n, robot.n_v))


def space_robot():
    return dataclasses.replace(bp.load_robot(SPACE), gravity=(0.3, -0.5, -9.81))     # gravity on, not along z


def random_space(rng, parameters):
    """The space robot with random bodies: its pinocchio model and our standard parameters."""
    robot = space_robot()
    bodies = [pin.Inertia(*random_body(rng)) for _ in range(robot.n_dof + 1)]
    model, _ = build_model(robot, bodies[1:], bodies[0])
    p = np.concatenate([link_params(b, parameters) for b in bodies])
    assert bp.ColumnLayout(robot, parameters).n_standard == p.size       # no drives: 10 per body
    return robot, model, p


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_space_robot_against_pinocchio_column_by_column(parameters):
    rng = np.random.default_rng(7)
    robot, model, p = random_space(rng, parameters)
    data = model.createData()
    q, qd, qdd = states(robot, 6, rng)
    W = bp.regressor(bp.Model(robot, parameters=parameters), q, qd, qdd)
    assert W.shape == (6, robot.n_v, p.size)
    tau = bp.inverse_dynamics(bp.Model(robot, p, parameters=parameters), q, qd, qdd)
    # the frame each body's parameters are in, seen from its pinocchio joint: frame 0 for the base body
    maps = [link_map(np.eye(4), parameters)] + [link_map(Cp, parameters) for _, Cp in split_factors(robot)]
    for s in range(q.shape[0]):
        expected = pin.rnea(model, data, q[s], qd[s], qdd[s])
        scale = np.abs(expected).max()
        np.testing.assert_allclose(W[s] @ p, expected, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(W[s] @ p, tau[s], rtol=0, atol=1e-12 * scale)
        Y = pin.computeJointTorqueRegressor(model, data, q[s], qd[s], qdd[s])
        reference = np.hstack([Y[:, 10 * b:10 * b + 10] @ L for b, L in enumerate(maps)])
        np.testing.assert_allclose(W[s], reference, rtol=0, atol=1e-9 * np.abs(reference).max())


def test_one_sample_gravity_and_the_c_loop():
    """One sample in, one out; gravity enters the base rows through the quaternion; the C loop over
    samples (from 10 000) gives the numpy blocks' numbers."""
    rng = np.random.default_rng(3)
    robot, model, p = random_space(rng, "pseudo")
    q, qd, qdd = states(robot, 4, rng)
    m = bp.Model(robot, parameters="pseudo")
    W = bp.regressor(m, q, qd, qdd)
    np.testing.assert_array_equal(bp.regressor(m, q[1], qd[1], qdd[1]), W[1])
    still = np.zeros_like(qd)
    weight = bp.regressor(m, q, still, still) @ p
    R = bp.dynamics.floating.rotation_matrices(q[:, 3:7])
    total = p[bp.ColumnLayout(robot).names.index("M0")] + sum(p[bp.ColumnLayout(robot).names.index(f"M{k}")]
                                                              for k in range(1, robot.n_dof + 1))
    np.testing.assert_allclose(weight[:, :3], -total * np.einsum("sji,j->si", R, robot.gravity_si), rtol=1e-12)
    reps = 10_000 // q.shape[0] + 1
    big = [np.tile(x, (reps, 1)) for x in (q, qd, qdd)]
    Wbig = bp.regressor(m, *big, workers=2)
    assert Wbig.shape == (reps * 4, robot.n_v, p.size)
    np.testing.assert_allclose(Wbig[:4], W, rtol=0, atol=1e-12 * np.abs(W).max())
    np.testing.assert_allclose(Wbig[-4:], W, rtol=0, atol=1e-12 * np.abs(W).max())


def test_mass_matrix_and_gravity_of_the_floating_regressor():
    """M(q), C(q, q̇) q̇ and g(q) of a floating robot (Newton–Euler) are pinocchio's and add up to the regressor's
    W p."""
    rng = np.random.default_rng(11)
    robot, model, p = random_space(rng, "khalil")
    q, qd, qdd = states(robot, 3, rng)
    m = bp.Model(robot, p, parameters="khalil")
    zero = np.zeros_like(qd)
    np.testing.assert_allclose(bp.gravity_torque(m, q), bp.regressor(m, q, zero, zero) @ p, rtol=1e-12, atol=1e-9)
    M, C = bp.mass_matrix(m, q), bp.coriolis_torque(m, q, qd)
    data = model.createData()
    for s in range(q.shape[0]):
        np.testing.assert_allclose(M[s], pin.crba(model, data, q[s]), rtol=0, atol=1e-9 * np.abs(M[s]).max())
        Cv = pin.computeCoriolisMatrix(model, data, q[s], qd[s]) @ qd[s]
        np.testing.assert_allclose(C[s], Cv, rtol=0, atol=1e-9 * np.abs(Cv).max())
        tau = bp.regressor(m, q[s], qd[s], qdd[s]) @ p
        np.testing.assert_allclose(M[s] @ qdd[s] + C[s] + bp.gravity_torque(m, q[s]), tau, rtol=0,
                                   atol=1e-12 * np.abs(tau).max())


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_slotine_li_and_coriolis_matrix_against_pinocchio(parameters):
    """Y p = M q̈_r + C(q, q̇) q̇_r + g with pinocchio's crba, computeCoriolisMatrix (Ṁ − 2C skew, in the
    free-flyer's twist) and gravity; coriolis_matrix is that C; the C loop gives the numpy blocks' Y."""
    rng = np.random.default_rng(29)
    robot, model, p = random_space(rng, parameters)
    data = model.createData()
    q, qd, _ = states(robot, 4, rng)
    _, qd_ref, qdd_ref = states(robot, 4, rng)
    m = bp.Model(robot, p, parameters=parameters)
    Y = bp.slotine_li_regressor(m, q, qd, qd_ref, qdd_ref)
    assert Y.shape == (4, robot.n_v, p.size)
    C = bp.coriolis_matrix(m, q, qd)
    for s in range(q.shape[0]):
        M = pin.crba(model, data, q[s])
        M = np.triu(M) + np.triu(M, 1).T
        Cp = pin.computeCoriolisMatrix(model, data, q[s], qd[s])
        expected = M @ qdd_ref[s] + Cp @ qd_ref[s] + pin.computeGeneralizedGravity(model, data, q[s])
        np.testing.assert_allclose(Y[s] @ p, expected, rtol=0, atol=1e-9 * np.abs(expected).max())
        np.testing.assert_allclose(C[s], Cp, rtol=0, atol=1e-9 * np.abs(Cp).max())
    reps = 10_000 // q.shape[0] + 1
    big = bp.slotine_li_regressor(m, *(np.tile(x, (reps, 1)) for x in (q, qd, qd_ref, qdd_ref)))
    np.testing.assert_allclose(big[-4:], Y, rtol=0, atol=1e-12 * np.abs(Y).max())




def floating_urdf(path, root):
    """The URDF's text with a floating joint from a new world link to ``root``: its free-flying base."""
    text = open(path, encoding="utf-8").read()
    head = re.search(r"<robot[^>]*>", text)
    free = (f'<link name="world_free"/><joint name="free" type="floating"><parent link="world_free"/>'
            f'<child link="{root}"/></joint>')
    return text, text[:head.end()] + free + text[head.end():]


@pytest.mark.skipif(not EXAMPLES, reason="example-robot-data is not installed")
@pytest.mark.parametrize("name", ["solo12.urdf", "talos_reduced.urdf"])
def test_example_robots_body_by_body_against_pinocchio(name):
    """Each body's share of the 6 + n rows (its 10 columns times its parameters) equals pinocchio's
    regressor block times its inertia, base body (link 0) included, and the sum equals rnea."""
    if name not in EXAMPLES:
        pytest.skip(f"{name} is not in this example-robot-data")
    original, text = floating_urdf(EXAMPLES[name], "base_link")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.parse_robot(text, name)
    assert robot.is_floating
    model = pin.buildModelFromXML(original, pin.JointModelFreeFlyer())
    model.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    data = model.createData()
    assert (model.nq, model.nv) == (robot.n_q, robot.n_v)
    names = list(model.names)
    ids = [names.index(j.name) for j in robot.joints]                 # our joint k → pinocchio's joint id
    rows = np.r_[np.arange(6), [model.joints[i].idx_v for i in ids]]  # our rows in pinocchio's v
    cols = np.r_[np.arange(7), [model.joints[i].idx_q for i in ids]]
    layout = bp.ColumnLayout(robot)
    p = bp.standard_parameters(robot)
    rng = np.random.default_rng(5)
    q, qd, qdd = states(robot, 3, rng)
    W = bp.regressor(bp.Model(robot), q, qd, qdd)
    pieces = [(layout.base_columns, 1)] + [(layout.link_columns[k], i) for k, i in enumerate(ids)]
    for s in range(q.shape[0]):
        qp, vp, ap = np.empty(model.nq), np.empty(model.nv), np.empty(model.nv)
        qp[cols], vp[rows], ap[rows] = q[s], qd[s], qdd[s]
        expected = pin.rnea(model, data, qp, vp, ap)[rows]
        scale = np.abs(expected).max()
        np.testing.assert_allclose(W[s] @ p, expected, rtol=0, atol=1e-9 * scale)
        Y = pin.computeJointTorqueRegressor(model, data, qp, vp, ap)[rows]
        for columns, joint in pieces:
            share = Y[:, 10 * (joint - 1):10 * joint] @ model.inertias[joint].toDynamicParameters()
            np.testing.assert_allclose(W[s][:, columns] @ p[columns], share, rtol=0, atol=1e-9 * scale)


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_base_regressor_and_inverse_dynamics_of_a_floating_robot(parameters):
    """The base set of a floating robot (find_base_parameters): 6 + n rows, W_b = W at the pivots,
    W_b (Y p) and the base-parameter Newton–Euler both equal pinocchio's rnea."""
    rng = np.random.default_rng(13)
    robot, model, p = random_space(rng, parameters)
    base = bp.find_base_parameters(robot, parameters)
    q, qd, qdd = states(robot, 5, rng)
    Wb = base.regressor(q, qd, qdd)
    assert Wb.shape == (5, robot.n_v, base.rank)
    W = bp.regressor(bp.Model(robot, parameters=parameters), q, qd, qdd)
    np.testing.assert_array_equal(Wb, W[:, :, base.pivots])
    p_base = base.Y @ p
    tau = bp.inverse_dynamics(base.model(p_base), q, qd, qdd)
    data = model.createData()
    for s in range(q.shape[0]):
        expected = pin.rnea(model, data, q[s], qd[s], qdd[s])
        scale = np.abs(expected).max()
        np.testing.assert_allclose(Wb[s] @ p_base, expected, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(tau[s], expected, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(bp.inverse_dynamics(base.model(p_base), q[0], qd[0], qdd[0]), tau[0], rtol=1e-12,
                               atol=1e-9)


# -- exported code ------------------------------------------------------------------------------------
CC = shutil.which("gcc") or shutil.which("cc")
CFLAGS = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O1"]


def split(q, qd, qdd):
    """The exported functions' arguments: base pose, twist, rate, then the joints' q, qd, qdd."""
    return q[..., :7], qd[..., :6], qdd[..., :6], q[..., 7:], qd[..., 6:], qdd[..., 6:]


@pytest.fixture(scope="module")
def floating_base_set():
    robot = space_robot()
    return robot, bp.find_base_parameters(robot)


@pytest.mark.skipif(CC is None, reason="no C compiler (gcc/cc) found")
def test_exported_c_matches_the_library(floating_base_set, tmp_path):
    robot, base = floating_base_set
    result = bp.export(base, "c", prefix="space", out_dir=str(tmp_path))
    assert list(result.functions) == ["regressor", "slotine_li", "inverse_dynamics"]
    header = (tmp_path / "space.h").read_text()
    assert f"#define SPACE_N_V {robot.n_v}" in header and "const double base_pose[7]" in header
    so = tmp_path / "libspace.so"
    done = subprocess.run([CC, *CFLAGS, "-shared", "-fPIC", str(tmp_path / "space.c"), "-o", str(so), "-lm"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[:4000]
    lib = ctypes.CDLL(str(so))
    pointer = np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")
    for name, count in (("space_regressor", 7), ("space_slotine_li", 9), ("space_inverse_dynamics", 8)):
        getattr(lib, name).restype, getattr(lib, name).argtypes = None, [pointer] * count
    rng = np.random.default_rng(17)
    q, qd, qdd = states(robot, 8, rng)
    _, qd_ref, qdd_ref = states(robot, 8, rng)
    p_base = base.Y @ bp.standard_parameters(robot) * rng.uniform(0.5, 1.5, 1)
    W, tau = base.regressor(q, qd, qdd), bp.inverse_dynamics(base.model(p_base), q, qd, qdd)
    Ysl = base.slotine_li_regressor(q, qd, qd_ref, qdd_ref)
    for s in range(q.shape[0]):
        args = [np.ascontiguousarray(x) for x in split(q[s], qd[s], qdd[s])]
        Y, t = np.full(robot.n_v * base.rank, np.nan), np.full(robot.n_v, np.nan)     # every entry written
        lib.space_regressor(*args, Y)
        lib.space_inverse_dynamics(*args, np.ascontiguousarray(p_base), t)
        np.testing.assert_allclose(Y.reshape(robot.n_v, base.rank), W[s], rtol=0, atol=1e-12 * np.abs(W[s]).max())
        np.testing.assert_allclose(t, tau[s], rtol=0, atol=1e-12 * np.abs(tau[s]).max())
        sl = [np.ascontiguousarray(x) for x in (q[s, :7], qd[s, :6], qd_ref[s, :6], qdd_ref[s, :6], q[s, 7:],
                                                 qd[s, 6:], qd_ref[s, 6:], qdd_ref[s, 6:])]
        lib.space_slotine_li(*sl, Y)
        np.testing.assert_allclose(Y.reshape(robot.n_v, base.rank), Ysl[s], rtol=0,
                                   atol=1e-12 * np.abs(Ysl[s]).max())


def test_exported_python_matches_the_library(floating_base_set, tmp_path):
    robot, base = floating_base_set
    bp.export(base, "python", what="regressor,inverse_dynamics", prefix="space", out_dir=str(tmp_path))
    spec = importlib.util.spec_from_file_location("space_dynamics", tmp_path / "space_dynamics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (module.N_DOF, module.N_V, module.N_BASE) == (robot.n_dof, robot.n_v, base.rank)
    rng = np.random.default_rng(19)
    q, qd, qdd = states(robot, 6, rng)
    p_base = base.Y @ bp.standard_parameters(robot)
    W, tau = base.regressor(q, qd, qdd), bp.inverse_dynamics(base.model(p_base), q, qd, qdd)
    scale = np.abs(W).max(), np.abs(tau).max()
    np.testing.assert_allclose(module.regressor(*split(q, qd, qdd)), W, rtol=0, atol=1e-12 * scale[0])
    np.testing.assert_allclose(module.inverse_dynamics(*split(q, qd, qdd), p_base), tau, rtol=0, atol=1e-12 * scale[1])
    np.testing.assert_allclose(module.regressor(*split(q[2], qd[2], qdd[2])), W[2], rtol=0, atol=1e-12 * scale[0])
    pose, *rest = split(q, qd, qdd)
    with pytest.raises(ValueError, match=r"expected shape \(7,\) or \(S, 7\), got \(6, 6\)"):
        module.regressor(pose[:, :6], *rest)
    with pytest.raises(ValueError, match="same number of samples"):
        module.regressor(pose[:3], *rest)
    _, qd_ref, qdd_ref = states(robot, 6, rng)
    bp.export(base, "python", what="slotine_li", prefix="space_sl", out_dir=str(tmp_path))
    spec = importlib.util.spec_from_file_location("space_sl_dynamics", tmp_path / "space_sl_dynamics.py")
    sl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sl)
    Ysl = base.slotine_li_regressor(q, qd, qd_ref, qdd_ref)
    got = sl.slotine_li(q[:, :7], qd[:, :6], qd_ref[:, :6], qdd_ref[:, :6], q[:, 7:], qd[:, 6:], qd_ref[:, 6:],
                        qdd_ref[:, 6:])
    np.testing.assert_allclose(got, Ysl, rtol=0, atol=1e-12 * np.abs(Ysl).max())


def test_cli_exports_a_floating_robot(tmp_path):
    from click.testing import CliRunner

    from baseparam.cli import main
    result = CliRunner().invoke(main, ["export", str(SPACE), "--lang", "python", "--prefix", "space",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "space.json").read_text())
    assert doc["floating"] is True and doc["n_v"] == 12
    assert list(doc["functions"]) == ["regressor", "slotine_li", "inverse_dynamics"]


@pytest.mark.skipif("solo12.urdf" not in EXAMPLES, reason="example-robot-data's solo12 is not installed")
def test_cli_exports_a_urdf_loaded_floating_against_pinocchio(tmp_path):
    """``export solo12.urdf --floating``: the Python module's inverse dynamics at the robot's base
    parameters is pinocchio's rnea with a free-flyer root, to 1e-9."""
    from click.testing import CliRunner

    from baseparam.cli import main
    path = EXAMPLES["solo12.urdf"]
    result = CliRunner().invoke(main, ["export", str(path), "--floating", "--lang", "python", "--prefix", "solo",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    spec = importlib.util.spec_from_file_location("solo_dynamics", tmp_path / "solo_dynamics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(path, floating=True)
    base = bp.find_base_parameters(robot)
    assert list(module.BASE_NAMES) == list(base.names)
    p_base = base.Y @ bp.standard_parameters(robot)
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    model.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    data = model.createData()
    names = list(model.names)
    ids = [names.index(j.name) for j in robot.joints]
    rows = np.r_[np.arange(6), [model.joints[i].idx_v for i in ids]]
    cols = np.r_[np.arange(7), [model.joints[i].idx_q for i in ids]]
    q, qd, qdd = states(robot, 4, np.random.default_rng(23))
    tau = module.inverse_dynamics(*split(q, qd, qdd), p_base)
    for s in range(q.shape[0]):
        qp, vp, ap = np.empty(model.nq), np.empty(model.nv), np.empty(model.nv)
        qp[cols], vp[rows], ap[rows] = q[s], qd[s], qdd[s]
        expected = pin.rnea(model, data, qp, vp, ap)[rows]
        np.testing.assert_allclose(tau[s], expected, rtol=0, atol=1e-9 * np.abs(expected).max())


def test_rotor_inertia_and_friction_rows_follow_the_base_rows():
    """With drives (rotor inertia, viscous/Coulomb/offset friction, a Stribeck model) the joint columns sit in
    rows 6 + k, the base rows see none of them, and W p is the inverse dynamics, in numpy and in the C loop
    (whose inputs have the rows n_q, n_v and n_dof long)."""
    robot = bp.load_robot(SPACE, friction=True, rotor_inertia=True, friction_model="smooth:0.1+stribeck:0.2")
    robot = dataclasses.replace(robot, gravity=(0.0, 0.0, -9.81))
    layout = bp.ColumnLayout(robot)
    rng = np.random.default_rng(31)
    full = np.zeros(layout.n_standard)
    names = bp.ColumnLayout(bp.load_robot(SPACE)).names                    # the bodies' columns
    full[[layout.names.index(n) for n in names]] = bp.standard_parameters(bp.load_robot(SPACE))
    drives = [i for i, n in enumerate(layout.names) if n not in names]
    assert {layout.names[i][:2] for i in drives} == {"IA", "FV", "FC", "FO", "FS"}
    full[drives] = rng.uniform(0.1, 1.0, len(drives))
    q, qd, qdd = states(robot, 5, rng)
    m = bp.Model(robot, parameters="pseudo")
    W = bp.regressor(m, q, qd, qdd)
    assert not W[:, :6, drives].any() and W[:, 6:, drives].any()
    tau = bp.inverse_dynamics(bp.Model(robot, full), q, qd, qdd)
    np.testing.assert_allclose(W @ full, tau, rtol=0, atol=1e-12 * np.abs(tau).max())
    reps = 10_000 // q.shape[0] + 1
    big = bp.regressor(m, *(np.tile(x, (reps, 1)) for x in (q, qd, qdd)))
    np.testing.assert_allclose(big[-5:], W, rtol=0, atol=1e-12 * np.abs(W).max())


def test_exported_python_with_drives(tmp_path):
    """Friction shapes (smooth Coulomb, Stribeck) and rotor inertia in the exported floating code read the
    joints' qd and qdd (not the base's twist)."""
    robot = bp.load_robot(SPACE, friction=True, rotor_inertia=True, friction_model="smooth:0.1+stribeck:0.2")
    base = bp.find_base_parameters(dataclasses.replace(robot, gravity=(0.0, 0.0, -9.81)))
    bp.export(base, "python", prefix="drives", out_dir=str(tmp_path))
    spec = importlib.util.spec_from_file_location("drives_dynamics", tmp_path / "drives_dynamics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(37)
    q, qd, qdd = states(base.robot, 5, rng)
    _, qd_ref, qdd_ref = states(base.robot, 5, rng)
    p_base = rng.normal(size=base.rank)
    W, tau = base.regressor(q, qd, qdd), bp.inverse_dynamics(base.model(p_base), q, qd, qdd)
    Y = base.slotine_li_regressor(q, qd, qd_ref, qdd_ref)
    np.testing.assert_allclose(module.regressor(*split(q, qd, qdd)), W, rtol=0, atol=1e-12 * np.abs(W).max())
    np.testing.assert_allclose(module.inverse_dynamics(*split(q, qd, qdd), p_base), tau, rtol=0,
                               atol=1e-12 * np.abs(tau).max())
    got = module.slotine_li(q[:, :7], qd[:, :6], qd_ref[:, :6], qdd_ref[:, :6], q[:, 7:], qd[:, 6:], qd_ref[:, 6:],
                            qdd_ref[:, 6:])
    np.testing.assert_allclose(got, Y, rtol=0, atol=1e-12 * np.abs(Y).max())
