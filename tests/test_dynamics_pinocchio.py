"""The dynamics layer against pinocchio on the same random bodies.

The pinocchio model is built from the DH table alone (tests/pin_model.py) and given the bodies of
tests/random_bodies.py as ``pin.Inertia`` in each DH link frame; baseparam gets the same bodies as
standard parameters (pseudo or Khalil). Rotor inertia (IA q̈) and friction (FV q̇ + FC sign q̇ + FO)
are not in the pinocchio model: they are added by hand on the pinocchio side, only where declared.

Checked: ``pin.rnea`` = ``bp.inverse_dynamics`` (and W p, W_b Y p); ``pin.crba`` (upper triangle,
symmetrized) = ``bp.mass_matrix``; ``pin.computeGeneralizedGravity`` = ``bp.gravity_torque``;
``pin.nonLinearEffects`` − gravity = ``bp.coriolis_torque``; ``pin.computeCoriolisMatrix`` =
``bp.coriolis_matrix``; the Slotine–Li regressors = M q̈_r + C q̇_r + g + friction(q̇) with pinocchio's
M, C, g; and ``bp.regressor`` column by column = pinocchio's joint-torque regressor
(pin_model.Reference). Every robot file (plain and with drives), both parameterizations, and random
DH tables including trees.
"""
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import baseparam as bp  # noqa: E402
from conftest import ROBOT_FILES  # noqa: E402
from pin_model import PinReference, Reference  # noqa: E402
from random_bodies import (CUSTOM, assert_close, base_parameters, custom_robot, depth_first, random_parameters,  # noqa: E402
                           random_states, robots, shared_robot, with_drives)

RTOL = 1e-10
PARAMS = ["pseudo", "khalil"]



def check_against_pinocchio(robot, parameters, rng, tag, n_states=4):
    p, bodies, drives = random_parameters(robot, parameters, rng)
    ref = PinReference(robot, bodies, drives)
    base = base_parameters(robot, parameters)
    q, qd, qdd = random_states(robot, n_states, rng)
    _, qd_r, qdd_r = random_states(robot, n_states, rng)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd, parameters)
    W = bp.regressor(robot, q, qd, qdd, parameters)
    Wb = base.regressor(q, qd, qdd)
    M = bp.mass_matrix(robot, p, q, parameters)
    g = bp.gravity_torque(robot, p, q, parameters)
    c = bp.coriolis_torque(robot, p, q, qd, parameters)
    C = bp.coriolis_matrix(robot, p, q, qd, parameters)
    Ysl = base.slotine_li_regressor(q, qd, qd_r, qdd_r) @ base.from_standard(p)
    Y = bp.slotine_li_regressor(robot, q, qd, qd_r, qdd_r, parameters) @ p
    for s in range(n_states):
        at = f"{tag}, sample {s}"
        t_ref = ref.rnea(q[s], qd[s], qdd[s])
        assert_close(tau[s], t_ref, what=f"{at}: inverse_dynamics vs pin.rnea")
        assert_close(W[s] @ p, t_ref, what=f"{at}: W p vs pin.rnea")
        assert_close(Wb[s] @ base.from_standard(p), t_ref, what=f"{at}: W_b Y p vs pin.rnea")
        M_ref = ref.mass_matrix(q[s])
        assert_close(M[s], M_ref, what=f"{at}: mass_matrix vs pin.crba")
        g_ref = ref.gravity(q[s])
        assert_close(g[s], g_ref, what=f"{at}: gravity_torque vs pin.computeGeneralizedGravity")
        assert_close(c[s], ref.coriolis(q[s], qd[s]), what=f"{at}: coriolis_torque vs pin.nonLinearEffects − g")
        C_ref = ref.coriolis_matrix(q[s], qd[s])
        assert_close(C[s], C_ref, what=f"{at}: coriolis_matrix vs pin.computeCoriolisMatrix")
        sl_ref = M_ref @ qdd_r[s] + C_ref @ qd_r[s] + g_ref + drives.friction(qd[s])
        assert_close(Ysl[s], sl_ref, what=f"{at}: base Slotine–Li vs pinocchio's M q̈_r + C q̇_r + g + friction")
        assert_close(Y[s], sl_ref, what=f"{at}: standard Slotine–Li vs pinocchio's M q̈_r + C q̇_r + g + friction")


def check_regressor_columns(robot, parameters, rng, tag, n_states=3):
    """bp.regressor column by column against pinocchio's regressor mapped to the DH link frames."""
    ref = Reference(robot, parameters)
    assert ref.names == bp.ColumnLayout(robot, parameters).names, tag
    q, qd, qdd = random_states(robot, n_states, rng)
    W = bp.regressor(robot, q, qd, qdd, parameters)
    for s in range(n_states):
        R = ref.regressor(q[s], qd[s], qdd[s])
        scale = np.maximum(np.abs(R).max(axis=0), 1e-3 * np.abs(R).max())   # round-off columns: global scale
        err = np.abs(W[s] - R).max(axis=0)
        bad = [(ref.names[col], f"{e:.2e}") for col, e in enumerate(err) if e > RTOL * scale[col]]
        assert not bad, f"{tag}, sample {s}: columns differ from pinocchio's regressor: {bad}"


def _seed(*parts):
    return sum((i + 1) * ord(ch) for i, ch in enumerate("/".join(parts))) % 2**32


@pytest.mark.parametrize("drives", [False, True], ids=["plain", "drives"])
@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_robot_files_match_pinocchio(path, parameters, drives):
    robot = shared_robot(path, drives)          # its compiled code shared with the other tests of the file's dynamics
    rng = np.random.default_rng(_seed(path.stem, parameters, str(drives)))
    check_against_pinocchio(robot, parameters, rng, f"{path.stem} [{parameters}{', drives' if drives else ''}]")


@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_regressor_columns_match_pinocchio(path, parameters):
    robot = shared_robot(path, drives=True)
    check_regressor_columns(robot, parameters, np.random.default_rng(_seed(path.stem, parameters)),
                            f"{path.stem} [{parameters}]")


@pytest.mark.parametrize("file", ["kuka_iiwa14", "panda"])
def test_threaded_c_loop_matches_pinocchio(file, monkeypatch, tmp_path):
    """A large batch (the regressors' C loop, its samples shared by threads, into a fresh and into a
    reused buffer holding NaN): W_b Y p and W p equal pin.rnea at every sample."""
    from baseparam.dynamics import _native
    if _native.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr("baseparam.dynamics._native_rule.NATIVE_SAMPLES", 1)
    robot = with_drives(bp.load_robot(next(path for path in ROBOT_FILES if path.stem == file)))
    rng = np.random.default_rng(_seed(file, "threads"))
    p, bodies, drives = random_parameters(robot, "pseudo", rng)
    ref = PinReference(robot, bodies, drives)
    base = base_parameters(robot, "pseudo")
    q, qd, qdd = random_states(robot, 257, rng)
    Wb = base.regressor(q, qd, qdd, workers=3)
    reused = base.regressor(q, qd, qdd, out=np.full_like(Wb, np.nan), workers=2)
    W = bp.regressor(robot, q, qd, qdd, workers=4)
    pb = base.from_standard(p)
    for s in range(len(q)):
        t_ref = ref.rnea(q[s], qd[s], qdd[s])
        assert_close(Wb[s] @ pb, t_ref, what=f"{file}, sample {s}: threaded W_b Y p vs pin.rnea")
        assert_close(reused[s] @ pb, t_ref, what=f"{file}, sample {s}: threaded W_b Y p (out=) vs pin.rnea")
        assert_close(W[s] @ p, t_ref, what=f"{file}, sample {s}: threaded W p vs pin.rnea")


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(robot=robots(), parameters=st.sampled_from(PARAMS), seed=st.integers(0, 2**32 - 1))
def test_random_tables_match_pinocchio(robot, parameters, seed):
    rng = np.random.default_rng(seed)
    check_against_pinocchio(robot, parameters, rng, f"random [{parameters}]", n_states=3)
    check_regressor_columns(robot, parameters, rng, f"random [{parameters}]", n_states=2)


@pytest.mark.parametrize("parameters", PARAMS)
@pytest.mark.parametrize("name", sorted(CUSTOM))
def test_custom_robots_match_pinocchio(name, parameters):
    """Modified-DH drives, a tree with a prismatic branch, an interleaved (non depth-first) tree."""
    robot = custom_robot(name)
    rng = np.random.default_rng(_seed(name, parameters))
    check_against_pinocchio(robot, parameters, rng, f"{name} [{parameters}]")
    check_regressor_columns(robot, parameters, rng, f"{name} [{parameters}]")


def test_depth_first_reordering_is_the_same_mechanism():
    """The test's own renumbering: same frames (permuted) and a joint order pinocchio accepts."""
    from pin_model import dh_forward
    robot = custom_robot("tree_interleaved")
    reordered, perm = depth_first(robot)
    assert sorted(perm) == list(range(robot.n_dof)) and list(perm) != list(range(robot.n_dof))
    assert all(j.parent < k for k, j in enumerate(reordered.joints, start=1))
    q = np.random.default_rng(2).uniform(-1, 1, robot.n_dof)
    T_old, T_new = dh_forward(robot, q), dh_forward(reordered, q[perm])
    for new, old in enumerate(perm):
        np.testing.assert_allclose(T_new[new], T_old[old], atol=1e-14)
