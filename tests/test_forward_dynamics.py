"""Forward dynamics and reaction wrenches against pinocchio, and against our own inverse dynamics.

pinocchio's model is built from the description alone (tests/pin_model.py), a floating base as a
``JointModelFreeFlyer`` root; bodies are random and physically valid (tests/random_bodies.py).
Checked, for every robot file (plain and with rotor inertia and friction), random DH tables (both
conventions, prismatic joints, trees, odd twists, tilted or zero gravity), random URDF-style joint
geometry, each on a fixed and on a floating base:

* ``bp.forward_dynamics`` = ``pin.aba`` (with rotor inertia: ``pin.crba`` + solve, since
  pinocchio's ABA has no rotor inertia of ours) to 1e-9 relative;
* ``inverse_dynamics(forward_dynamics(τ)) = τ`` and ``forward_dynamics(inverse_dynamics(q̈)) = q̈``;
* ``bp.reaction_wrenches`` = ``data.f`` after ``pin.rnea``, moved from pinocchio's joint frames to
  the DH link frames; their projection on the joint axis is the torque less IA q̈ and friction;
* ``bp.mass_matrix``, ``gravity_torque``, ``coriolis_torque`` of a floating robot = ``pin.crba``,
  ``computeGeneralizedGravity``, ``nonLinearEffects`` − gravity;
* one-sample, small-batch (C loop) and large-batch (numpy) paths, and the Python fallback when no C
  compiler is available, give the same numbers.
"""
import dataclasses
import re

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import baseparam as bp  # noqa: E402
from conftest import DATA, ROBOT_FILES, ROOT, interrupted_calls, needs_data  # noqa: E402
from pin_model import PinReference  # noqa: E402
from random_bodies import (assert_close, base_parameters, custom_robot, general_robots, link_vector,  # noqa: E402
                           random_body, random_parameters, random_states, robots, shared_robot, with_drives)

RTOL = 1e-9
PARAMS = ["pseudo", "khalil"]


def floating(robot):
    return dataclasses.replace(robot, base="floating")


def problem(robot, parameters, rng, n):
    """(p, pinocchio reference, q, q̇, a random τ or q̈) for the robot (fixed or floating base)."""
    fixed = dataclasses.replace(robot, base="fixed", base_inertia=None) if robot.is_floating else robot
    p, bodies, drives = random_parameters(fixed, parameters, rng)
    base = random_body(rng) if robot.is_floating else None
    if base is not None:
        p = np.concatenate([link_vector(base, parameters), p])
    ref = PinReference(robot, bodies, drives, base)
    q, qd, x = random_states(fixed, n, rng)
    if robot.is_floating:
        quat = rng.normal(size=(n, 4))
        quat /= np.linalg.norm(quat, axis=1)[:, None]
        q = np.hstack([rng.uniform(-1, 1, (n, 3)), quat, q])
        qd, x = (np.hstack([rng.uniform(-1, 1, (n, 6)), y]) for y in (qd, x))
    return p, ref, q, qd, x


def check_forward(robot, parameters, rng, tag, n=4):
    p, ref, q, qd, tau = problem(robot, parameters, rng, n)
    qdd = bp.forward_dynamics(robot, p, q, qd, tau, parameters)
    for s in range(n):
        assert_close(qdd[s], ref.aba(q[s], qd[s], tau[s]), RTOL, f"{tag}, sample {s}: forward_dynamics vs pin.aba")
    assert_close(bp.inverse_dynamics(robot, p, q, qd, qdd, parameters), tau, RTOL, f"{tag}: ID(FD(τ)) = τ")
    _, _, _, _, qdd_in = problem(robot, parameters, rng, n)
    tau_id = bp.inverse_dynamics(robot, p, q, qd, qdd_in, parameters)
    assert_close(bp.forward_dynamics(robot, p, q, qd, tau_id, parameters), qdd_in, RTOL, f"{tag}: FD(ID(q̈)) = q̈")
    W = bp.reaction_wrenches(robot, p, q, qd, qdd, parameters)
    for s in range(n):
        assert_close(W[s], ref.wrenches(q[s], qd[s], qdd[s]), RTOL, f"{tag}, sample {s}: wrenches vs pin data.f")
    if robot.is_floating:
        M = bp.mass_matrix(robot, p, q, parameters)
        g, c = bp.gravity_torque(robot, p, q, parameters), bp.coriolis_torque(robot, p, q, qd, parameters)
        for s in range(n):
            assert_close(M[s], ref.mass_matrix(q[s]), RTOL, f"{tag}, sample {s}: floating mass_matrix vs pin.crba")
            assert_close(g[s], ref.gravity(q[s]), RTOL, f"{tag}, sample {s}: floating gravity vs pinocchio")
            assert_close(c[s], ref.coriolis(q[s], qd[s]), RTOL, f"{tag}, sample {s}: floating C q̇ vs pinocchio")


def _seed(*parts):
    return sum((i + 1) * ord(ch) for i, ch in enumerate("/".join(parts))) % 2**32


@pytest.mark.parametrize("base", ["fixed", "floating"])
@pytest.mark.parametrize("drives", [False, True], ids=["plain", "drives"])
@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_robot_files_match_pinocchio(path, drives, base):
    robot = shared_robot(path, drives)          # its inverse dynamics compiled once with the other files' tests
    if base == "floating":
        robot = floating(robot)
    parameters = PARAMS[len(path.stem) % 2]
    check_forward(robot, parameters, np.random.default_rng(_seed(path.stem, base, str(drives))),
                  f"{path.stem} [{parameters}, {base}{', drives' if drives else ''}]")


@pytest.mark.parametrize("base", ["fixed", "floating"])
@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("name", ["rpr_modified_drives", "tree_prismatic", "tree_interleaved"])
def test_custom_robots_match_pinocchio(name, parameters, base):
    robot = custom_robot(name)
    robot = floating(robot) if base == "floating" else robot
    check_forward(robot, parameters, np.random.default_rng(_seed(name, parameters, base)), f"{name} [{parameters}]")


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(), parameters=st.sampled_from(PARAMS), free=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_random_tables_match_pinocchio(robot, parameters, free, seed):
    check_forward(floating(robot) if free else robot, parameters, np.random.default_rng(seed),
                  f"random [{parameters}, {'floating' if free else 'fixed'}]", n=3)


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=general_robots(drives=True), free=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_general_geometry_matches_pinocchio(robot, free, seed):
    check_forward(floating(robot) if free else robot, "khalil", np.random.default_rng(seed),
                  f"random urdf geometry [{'floating' if free else 'fixed'}]", n=3)


def test_wrench_along_the_axis_is_the_joint_torque():
    """n_z (revolute) or f_z (prismatic) in the joint frame = τ − IA q̈ − friction."""
    robot = custom_robot("rpr_modified_drives")
    rng = np.random.default_rng(4)
    p, _, q, qd, qdd = problem(robot, "pseudo", rng, 5)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd)
    W = bp.reaction_wrenches(robot, p, q, qd, qdd, frame="joint")
    layout = bp.ColumnLayout(robot)
    IA = np.array([p[layout.rotor_columns[k]] if k in layout.rotor_columns else 0.0 for k in range(robot.n_dof)])
    drive = IA * qdd + bp.friction_torque(robot, p, qd)
    along = np.where([j.is_revolute for j in robot.joints], W[:, :, 5], W[:, :, 2])
    assert_close(along, tau - drive, 1e-12, "axis component of the joint-frame wrench")


def test_paths_agree_and_fallback_without_compiler(monkeypatch, tmp_path):
    """One sample (C or Python), a small batch (C loop) and a large one (numpy) give the same q̈;
    with no compiler (BASEPARAM_CC=none) ForwardDynamics runs straight-line Python, same numbers."""
    import copy

    robot = floating(custom_robot("tree_prismatic"))
    rng = np.random.default_rng(9)
    p, _, q, qd, tau = problem(robot, "pseudo", rng, 300)
    big = bp.forward_dynamics(robot, p, q, qd, tau)
    fd = bp.ForwardDynamics(robot, p)
    one = np.array([fd(q[s], qd[s], tau[s]) for s in range(5)])
    assert_close(fd.batch(q[:40], qd[:40], tau[:40]), big[:40], 1e-12, "small batch vs numpy batch")
    assert_close(one, big[:5], 1e-12, f"one sample ({fd.backend}) vs numpy batch")

    monkeypatch.setenv("BASEPARAM_CC", "none")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    robot = copy.deepcopy(robot)          # a new robot object: no kernel compiled for it yet
    slow = bp.ForwardDynamics(robot, p)
    assert slow.backend == "python"
    assert_close(np.array([slow(q[s], qd[s], tau[s]) for s in range(5)]), big[:5], 1e-12, "Python fallback")
    assert_close(slow.batch(q[:40], qd[:40], tau[:40]), big[:40], 1e-12, "fallback, small batch")
    assert list(tmp_path.iterdir()) == [], "nothing compiled without a compiler"


@pytest.mark.parametrize("compiler", [True, False], ids=["c", "python"])
def test_one_sample_call_converts_like_numpy_and_refuses_bad_lengths(compiler, monkeypatch, tmp_path):
    """ForwardDynamics(model)(q, q̇, τ) copies float64 arrays of the right length straight into its
    buffers and converts anything else as numpy does: the same bits either way, on either backend, a
    new array per call; wrong lengths or text are one-line ArgumentErrors naming the argument."""
    import copy

    robot = floating(custom_robot("tree_prismatic"))
    p, _, q, qd, tau = problem(robot, "pseudo", np.random.default_rng(4), 3)
    if not compiler:
        monkeypatch.setenv("BASEPARAM_CC", "none")
        monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
        robot = copy.deepcopy(robot)          # a new robot object: no kernel compiled for it yet
    fd = bp.ForwardDynamics(bp.Model(robot, p))
    assert compiler or fd.backend == "python"
    for s in range(3):
        fast = fd(q[s], qd[s], tau[s])
        assert_close(fast, bp.forward_dynamics(bp.Model(robot, p), q[s:s + 1], qd[s:s + 1], tau[s:s + 1])[0],
                     1e-12, f"one sample ({fd.backend}) vs the batch")
        for how, convert in (("lists", list), ("tuples", tuple), ("big-endian", lambda x: x.astype(">f8")),
                             ("strided views", lambda x: np.repeat(x, 2)[::2]),
                             ("Fortran rows", lambda x: np.asfortranarray(x[None])[0])):
            got = fd(convert(q[s]), convert(qd[s]), convert(tau[s]))
            assert got.tobytes() == fast.tobytes(), f"{how} give other bits than float64 arrays ({fd.backend})"
    first, second = fd(q[0], qd[0], tau[0]), fd(q[1], qd[1], tau[1])
    assert not np.shares_memory(first, second) and first.flags.owndata, "each call returns a new array"
    for args, name in (((q[0][:-1], qd[0], tau[0]), "q"), ((q[0], np.append(qd[0], 1.0), tau[0]), "qd"),
                       ((q[0], qd[0], tau[:2]), "tau"), ((q[0], qd[0], "abc"), "tau"),
                       ((q[0].astype(np.float32)[:-1], qd[0], tau[0]), "q")):
        n = robot.n_q if name == "q" else robot.n_v
        words = "not numeric" if isinstance(args[2], str) else f"expected {n} numbers"   # text: as forward_dynamics
        with pytest.raises(bp.ArgumentError, match=rf"^{name}: {words}") as err:
            fd(*args)
        assert "\n" not in str(err.value)


def test_single_sample_shapes():
    robot = floating(custom_robot("tree_prismatic"))
    p, _, q, qd, tau = problem(robot, "khalil", np.random.default_rng(2), 1)
    one = bp.forward_dynamics(robot, p, q[0], qd[0], tau[0], "khalil")
    assert one.shape == (robot.n_v,)
    assert bp.reaction_wrenches(robot, p, q[0], qd[0], one, "khalil").shape == (robot.n_dof, 6)
    assert_close(one, bp.forward_dynamics(robot, p, q, qd, tau, "khalil")[0], 1e-12, "1-D vs 2-D")
    joints_only = tau[:, 6:]
    free = tau.copy()
    free[:, :6] = 0.0
    assert_close(bp.forward_dynamics(robot, p, q, qd, joints_only, "khalil"),
                 bp.forward_dynamics(robot, p, q, qd, free, "khalil"), 1e-12, "joint torques alone: the base is free")


def test_quaternion_is_normalized_and_bad_ones_refused():
    robot = floating(custom_robot("tree_prismatic"))
    p, _, q, qd, tau = problem(robot, "pseudo", np.random.default_rng(3), 2)
    scaled = q.copy()
    scaled[:, 3:7] *= 1.0005
    assert_close(bp.forward_dynamics(robot, p, scaled, qd, tau), bp.forward_dynamics(robot, p, q, qd, tau), 1e-12,
                 "a quaternion within 1e-3 of unit length is normalized")
    scaled[1, 3:7] *= 2.0
    with pytest.raises(bp.ArgumentError, match=r"q: the base quaternion .* sample 1 has norm"):
        bp.forward_dynamics(robot, p, scaled, qd, tau)


@pytest.mark.parametrize("kwargs, message", [
    (dict(q=np.zeros((3, 4))), r"q: expected shape \(n_samples, 5\) or \(5,\), got \(3, 4\)"),
    (dict(tau=np.zeros((2, 5))), r"state arrays have different numbers of samples"),
    (dict(qd=np.full((3, 5), np.nan)), r"qd: non-finite value nan at sample 0, joint 1"),
])
def test_bad_arrays_are_one_line_errors(kwargs, message):
    robot = custom_robot("tree_prismatic")
    p, _, q, qd, tau = problem(robot, "pseudo", np.random.default_rng(5), 3)
    args = dict(q=q, qd=qd, tau=tau) | kwargs
    with pytest.raises(bp.ArgumentError, match=message):
        bp.forward_dynamics(robot, p, **args)
    with pytest.raises(bp.ArgumentError, match=r"p: expected shape"):
        bp.forward_dynamics(robot, p[:-1], q, qd, tau)


@pytest.mark.parametrize("bad, message", [
    ([True, False, True, True, False], "booleans"), (["0.5"] * 5, "text"), (np.full(5, 0.5 + 1j), "complex"),
    ([0.1, 0.2, np.nan, 0.3, 0.4], "non-finite value nan at sample 0, joint 3"),
    ([0.1, 0.2, 0.3, 2e8, 0.4], "absurd value"), ([0.1, 0.2, 0.3, -np.inf, 0.4], "non-finite value -inf"),
])
def test_one_sample_refuses_what_a_batch_refuses(bad, message):
    """One sample takes a cheap path (its checks on a few Python floats) and gives the batch path's errors:
    booleans, text and complex numbers are refused, not converted; NaN, inf and absurd values named."""
    robot = custom_robot("tree_prismatic")
    p, _, q, qd, tau = problem(robot, "pseudo", np.random.default_rng(5), 1)
    for single in (True, False):
        arrays = [np.asarray(bad), qd[0], tau[0]] if single else [np.asarray([bad]), qd, tau]
        with pytest.raises(bp.ArgumentError, match=f"q: .*{re.escape(message)}"):
            bp.forward_dynamics(bp.Model(robot, p), *arrays)
    assert_close(bp.forward_dynamics(bp.Model(robot, p), list(q[0]), qd[0].astype(np.float32), tau[0]),
                 bp.forward_dynamics(bp.Model(robot, p), q, qd.astype(np.float32), tau)[0], 0, "lists and float32")


@pytest.mark.parametrize("name", ["puma560", "panda", "stanford_arm", "scara"])
def test_base_parameter_forward_dynamics_equals_the_true_one(name):
    """M, C, g depend on p only through Y p: the ABA on the pivot-only preimage of Y p gives the q̈ of p,
    although that preimage's bodies are not physical."""
    robot = with_drives(bp.load_robot(ROOT / "robots" / f"{name}.yaml"))
    parameters = PARAMS[len(name) % 2]
    base = base_parameters(robot, parameters)
    p, ref, q, qd, tau = problem(robot, parameters, np.random.default_rng(_seed(name)), 50)
    p_base = base.from_standard(p)
    tilde = base.standard_preimage(p_base)
    assert_close(base.from_standard(tilde), p_base, 1e-12, "Y p̃ = p_base")
    qdd = bp.forward_dynamics(base.model(p_base), q, qd, tau)
    assert_close(qdd, bp.forward_dynamics(robot, p, q, qd, tau, parameters), 1e-8, f"{name}: FD(p̃) vs FD(p)")
    assert_close(qdd[:3], np.array([ref.aba(q[s], qd[s], tau[s]) for s in range(3)]), 1e-8, f"{name}: vs pin.aba")
    assert_close(bp.inverse_dynamics(base.model(p_base), q, qd, qdd), tau, 1e-8, f"{name}: base ID(FD) = τ")


def described_bodies(robot):
    """(bodies, drives, base) of a description's true values, in random_bodies' form."""
    from random_bodies import Drives

    bodies = [(j.inertia.mass, np.asarray(j.inertia.com), np.asarray(j.inertia.inertia)) for j in robot.joints]
    drives = Drives(robot.n_dof)
    for k, j in enumerate(robot.joints):
        drives.IA[k] = 0.0 if not j.has_rotor_inertia else float(j.rotor_inertia)
        for kind, value in zip(("FV", "FC", "FO"), j.friction):
            getattr(drives, kind)[k] = 0.0 if isinstance(value, bool) else float(value)
    b = robot.base_inertia
    return bodies, drives, None if b is None else (b.mass, np.asarray(b.com), np.asarray(b.inertia))


@pytest.mark.parametrize("name", ["space_robot", "ur10e_cad"])
def test_described_true_values_match_pinocchio(name):
    """The files with true values (bp.standard_parameters): forward dynamics and wrenches vs pinocchio."""
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    p = bp.standard_parameters(robot)
    ref = PinReference(robot, *described_bodies(robot))
    rng = np.random.default_rng(_seed(name))
    _, _, q, qd, tau = problem(robot, "pseudo", rng, 4)
    qdd = bp.forward_dynamics(robot, p, q, qd, tau)
    W = bp.reaction_wrenches(robot, p, q, qd, qdd)
    for s in range(4):
        assert_close(qdd[s], ref.aba(q[s], qd[s], tau[s]), RTOL, f"{name}: forward_dynamics vs pin.aba")
        assert_close(W[s], ref.wrenches(q[s], qd[s], qdd[s]), RTOL, f"{name}: wrenches vs pin data.f")


@needs_data
def test_ur10e_cad_is_the_urdf():
    """robots/ur10e_cad.yaml (DH, true values) and the dataset's URDF are the same rigid robot."""
    import warnings

    cad = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    rigid = dataclasses.replace(cad, joints=tuple(dataclasses.replace(j, rotor_inertia=False,
                                                                      friction=(False, False, False))
                                                  for j in cad.joints))
    urdf = DATA / "ur10e" / "ur10e.urdf"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.RoundOffWarning)
        original = bp.load_robot(urdf)
    q, qd, qdd = random_states(rigid, 20, np.random.default_rng(2))
    assert_close(bp.inverse_dynamics(rigid, bp.standard_parameters(rigid), q, qd, qdd),
                 bp.inverse_dynamics(original, bp.standard_parameters(original), q, qd, qdd), 1e-12,
                 "DH file with CAD inertias vs the URDF")


def test_operation_count_is_linear_in_the_number_of_bodies():
    """O(N) per sample, counted: each body adds the same few hundred operations (a dense M⁻¹ would add N²)."""
    from baseparam.dynamics.expressions import operation_count
    from baseparam.dynamics.forward import kernel

    def count(n):
        joints = tuple(bp.Joint(type="revolute", alpha=(90 if k % 2 else -90), a=0.1, d=0.05) for k in range(n))
        k = kernel(bp.Robot(joints, name=f"chain {n}", angle_unit="deg"))
        ops = operation_count(k.graph, [node for _, node in k.outputs])
        return ops["mul"] + ops["add"] + ops["div"]
    counts = {n: count(n) for n in (6, 12, 18, 24)}
    steps = np.diff([counts[n] for n in sorted(counts)]) / 6
    assert steps.max() < 1.1 * steps.min() and steps.max() < 800, (counts, steps)


def test_singular_inertia_is_a_one_line_error():
    """A massless last link (no rotor inertia) makes M singular: an ArgumentError, not NaN."""
    robot = custom_robot("tree_prismatic")
    p, _, q, qd, tau = problem(robot, "pseudo", np.random.default_rng(6), 20)
    p[bp.ColumnLayout(robot).link_columns[4]] = 0.0            # link 5: a leaf without mass or inertia
    for args in ((q, qd, tau), (q[0], qd[0], tau[0])):
        with pytest.raises(bp.ArgumentError, match="M\\(q\\) is singular"):
            bp.forward_dynamics(robot, p, *args)


def test_the_kernel_cache_is_where_the_environment_says_or_nowhere(tmp_path, monkeypatch):
    """BASEPARAM_CACHE_DIR names the folder of compiled kernels; ``none`` keeps nothing on disk (the kernel
    is compiled into a temporary folder, loaded, and the folder removed)."""
    import ctypes

    from baseparam.dynamics import _native
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    source = f"double twice(double x) {{ return 2.0 * x; }}  /* {tmp_path.name} */\n"   # a kernel new to the cache
    functions = {"twice": (ctypes.c_double, [ctypes.c_double])}
    monkeypatch.setattr(_native, "_LOADED", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", "none")
    assert _native.cache_dir() is None
    assert _native.load(source, functions).twice(1.5) == 3.0
    assert not (tmp_path / "xdg").exists()
    monkeypatch.setattr(_native, "_LOADED", {})
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path / "cache"))
    assert _native.load(source, functions).twice(2.0) == 4.0
    assert [p.suffix for p in (tmp_path / "cache").iterdir()] == [".so"]
    monkeypatch.delenv("BASEPARAM_CACHE_DIR")
    assert _native.cache_dir() == str(tmp_path / "xdg" / "baseparam")


@pytest.mark.parametrize("name", ["puma560", "dual_arm_torso"])
def test_optimized_kernel_gives_the_unoptimized_numbers_to_the_bit(name, tmp_path, monkeypatch):
    """The C kernel is compiled at -O1 when it is short enough (for speed): fd_batch, fd_packed and rk4 give
    the same bits as the same source at -O0 (no fast-math, no fused multiply-add), on a chain and a tree."""
    from baseparam.dynamics import _native
    from baseparam.dynamics._forward_c import SIGNATURES, c_source
    from baseparam.dynamics.forward import ForwardDynamics, kernel
    from baseparam.dynamics.printing import C, c_statements
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    k = kernel(robot)
    body = c_statements(k.graph, k.outputs, lambda input_name, i: k._source(input_name, i, C))
    assert _native.flags_for(len(body)) == _native.O1_FLAGS != _native.FLAGS
    source = c_source(k.n_q, k.n_v, k.floating, body, n_pivots=k.n_pivots)
    rng = np.random.default_rng(8)
    p = ForwardDynamics(bp.Model(robot, random_parameters(robot, "pseudo", rng)[0]), native=False).p
    S, n = 500, robot.n_v
    q, qd, tau = (rng.uniform(-2, 2, (S, n)) for _ in range(3))
    results = []
    for flags in (_native.FLAGS, _native.O1_FLAGS):
        lib = _native.load(source, SIGNATURES, flags)
        assert lib is not None
        out = np.zeros((S, n))
        lib.fd_batch(S, *(x.ctypes.data for x in (q, qd, tau, p, out)))
        block = np.concatenate([q[1], qd[1], tau[1], np.zeros(n + k.n_pivots), p])
        lib.fd_packed(block.ctypes.data)
        Q, V, dt = np.zeros((101, n)), np.zeros((101, n)), np.full(100, 1e-3)
        Q[0], V[0] = q[0], qd[0]
        lib.rk4(100, dt.ctypes.data, 2, tau.ctypes.data, n, p.ctypes.data, Q.ctypes.data, V.ctypes.data)
        results.append((out, block, Q, V))
    assert np.isfinite(results[0][0]).all() and np.abs(results[0][2]).max() > 0
    for before, after in zip(*results):
        np.testing.assert_array_equal(after, before)


@pytest.mark.parametrize("name, smooth", [("puma560", False), ("dual_arm_torso floating", False), ("ppr", True)])
def test_large_batches_run_the_c_loop_with_the_numpy_blocks_numbers(name, smooth, monkeypatch):
    """From NATIVE_SAMPLES samples a batch compiles the C kernel and runs its loop: the numbers of the numpy
    blocks to the bit (IEEE arithmetic, sqrt, and sin and cos from the C library in both). A smooth Coulomb
    shape (tanh, which numpy computes its own way) keeps the numpy blocks and compiles nothing."""
    import copy

    from baseparam.dynamics import _native
    from baseparam.model.friction import FrictionModel, with_friction_model
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    robot = copy.deepcopy(bp.load_robot(ROOT / "robots" / f"{name.split()[0]}.yaml"))   # no kernel yet
    if name.endswith("floating"):
        robot = floating(robot)
    if smooth:
        robot = with_friction_model(with_drives(robot, (("IA", "FV", "FC", "FO"), ("FC",), ("FV", "FC"))),
                                    FrictionModel("smooth", 0.05, 0.1))
    rng = np.random.default_rng(12)
    p, _, q, qd, tau = problem(robot, "pseudo", rng, 400)
    p = np.concatenate([p, np.full(bp.ColumnLayout(robot).n_standard - len(p), 0.3)])   # + Stribeck columns
    fd = bp.ForwardDynamics(bp.Model(robot, p), native=False)
    assert fd.kernel.same_as_numpy is not smooth
    monkeypatch.setattr(fd.kernel, "same_as_numpy", False)
    blocks = fd.batch(q, qd, tau)                          # 400 ≥ SMALL_BATCH samples: the numpy blocks
    assert fd.kernel.native(build=False) is None
    monkeypatch.undo()
    monkeypatch.setattr("baseparam.dynamics._native_rule.NATIVE_SAMPLES", 300)
    got = fd.batch(q, qd, tau)
    assert (fd.kernel.native(build=False) is None) is smooth
    assert np.isfinite(blocks).all()
    if smooth:
        np.testing.assert_array_equal(got, blocks)         # the numpy blocks again
    else:
        assert got.flags.c_contiguous                      # the C loop's rows
        np.testing.assert_array_equal(got, blocks)


@pytest.mark.parametrize("native", [True, False])
def test_forward_dynamics_object_shared_by_threads_gives_each_its_own_sample(native, monkeypatch):
    # one bp.ForwardDynamics, two threads, each its own sample: another thread's whole call falling between one
    # thread's copy into the object's buffer and its kernel call (or, in straight-line Python, its copy out of the
    # buffers) must not hand it the other's q̈ (made to fall there every time); each answer is the one of that
    # sample called alone, before
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    model = bp.Model(robot, random_parameters(robot, "pseudo", np.random.default_rng(5))[0])
    if not native:
        from baseparam.dynamics import _native_rule
        monkeypatch.setattr(_native_rule, "wanted", lambda *args: False)    # no compiling after 64 calls
    shared = bp.ForwardDynamics(model, native=native)
    assert shared.backend == ("c" if native else "python")
    rng = np.random.default_rng(3)
    samples = [tuple(rng.uniform(-1, 1, (3, robot.n_dof))) for _ in range(2)]
    expected = [shared(*sample).tobytes() for sample in samples]
    assert expected[0] != expected[1]
    step, after = ("_call", False) if native else ("_convert", True)
    assert [qdd.tobytes() for qdd in interrupted_calls(shared, step, samples, after=after)] == expected


def test_forward_dynamics_rk4_shared_by_threads_steps_each_its_own_arrays():
    # one bp.ForwardDynamics, two threads stepping their own arrays (as simulate does): another thread's rk4 on
    # other arrays falling between one call's check of its arrays and its steps must not have the C loop write the
    # other thread's arrays (the ones checked last by the object). Made to fall there every time, not left to the
    # scheduler: the steps wrapped, the other call made inside them (the race needs no second thread to show)
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    model = bp.Model(robot, random_parameters(robot, "pseudo", np.random.default_rng(5))[0])
    shared = bp.ForwardDynamics(model)
    assert shared.backend == "c"
    n, rng = 40, np.random.default_rng(4)
    starts = [rng.uniform(-1, 1, (2, robot.n_dof)) for _ in range(2)]
    torques = [rng.uniform(-5, 5, (n, robot.n_dof)) for _ in range(2)]
    dt = np.full(n, 1e-3)

    def arrays(k):
        q, qd = np.zeros((n + 1, robot.n_dof)), np.zeros((n + 1, robot.n_dof))
        q[0], qd[0] = starts[k]
        return q, qd

    alone = []
    for k in range(2):
        q, qd = arrays(k)
        shared.rk4(q, qd, dt, torques[k])
        alone.append((q.tobytes(), qd.tobytes()))
    first, other = arrays(0), arrays(1)
    steps = shared._rk4_steps

    def interrupted(*arguments):
        if arguments[0] is first[0]:
            shared.rk4(*other, dt, torques[1])
        return steps(*arguments)

    shared._rk4_steps = interrupted
    shared.rk4(*first, dt, torques[0])
    assert [(q.tobytes(), qd.tobytes()) for q, qd in (first, other)] == alone
