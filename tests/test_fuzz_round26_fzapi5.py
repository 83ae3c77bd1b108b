"""Fuzz round twenty-six, the Python API (issue 28): random URDF trees, fixed and floating, compared with pinocchio's
own URDF reader (torques, M, g, C, energies, momentum, reaction wrenches, forward dynamics, contact Jacobians, base
ranks, tips, mimic joints, simulation, identified URDF/MJCF), and odd-but-equal arguments compared with plain
ones; each find here with a test that fails before its fix."""
import numpy as np
import pytest

import baseparam as bp

# Two coaxial joints with a massless link between them: turning j2 one way and j3 the other moves nothing, so M(q) is
# singular at every q; with the arm's tilted inertia the sweep's pivot of j2 comes out as round-off, not 0 (from a
# random tree that pinocchio's ABA answered with NaN).
COAXIAL = """<robot name="coaxial">
  <link name="base"/>
  <link name="upper"><inertial><mass value="4.5"/>
    <inertia ixx="0.017" ixy="0" ixz="0" iyy="0.0012" iyz="0" izz="0.018"/></inertial></link>
  <link name="massless"/>
  <link name="arm"><inertial><origin xyz="0.26 0.24 0.098" rpy="0.3 0.2 0.1"/><mass value="4.9"/>
    <inertia ixx="0.075" ixy="0" ixz="0" iyy="0.032" iyz="0" izz="0.045"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0.25 0.5"/>
    <axis xyz="1 0 0"/><limit lower="-3" upper="3" effort="100" velocity="5"/></joint>
  <joint name="j2" type="continuous"><parent link="upper"/><child link="massless"/><origin xyz="-0.25 0 0"/>
    <axis xyz="0 -1 0"/></joint>
  <joint name="j3" type="continuous"><parent link="massless"/><child link="arm"/><axis xyz="0 -1 0"/></joint>
</robot>"""


# The same with a body on the middle link: M(q) regular.
WITH_MASS = COAXIAL.replace('<link name="massless"/>', '<link name="massless"><inertial><mass value="1"/><inertia '
                            'ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>')


def _coaxial_states():
    robot = bp.parse_robot(COAXIAL)
    rng = np.random.default_rng(0)
    return bp.Model(robot), rng.uniform(-2, 2, (3, 3)), rng.uniform(-2, 2, (3, 3)), rng.uniform(-2, 2, (3, 3))


def test_the_coaxial_robot_is_singular_to_round_off():
    """The premise: M(q) singular (an eigenvalue of round-off), yet the sweep's pivots are not exactly 0."""
    model, q, _, _ = _coaxial_states()
    eig = np.linalg.eigvalsh(bp.mass_matrix(model, q))
    assert (np.abs(eig[:, 0]) < 1e-14 * eig[:, -1]).all()


@pytest.mark.parametrize("call", [
    lambda m, q, qd, tau: bp.forward_dynamics(m, q[0], qd[0], tau[0]),
    lambda m, q, qd, tau: bp.forward_dynamics(m, q, qd, tau),
    lambda m, q, qd, tau: bp.forward_dynamics(m, q[0].tolist(), qd[0], tau[0]),
    lambda m, q, qd, tau: bp.velocities_from_momenta(m, q[0], tau[0]),
    lambda m, q, qd, tau: bp.velocities_from_momenta(m, q, tau),
    lambda m, q, qd, tau: bp.ForwardDynamics(m)(q[0], qd[0], tau[0]),
    lambda m, q, qd, tau: bp.ForwardDynamics(m, native=False)(q[0], qd[0], tau[0]),
    lambda m, q, qd, tau: bp.ForwardDynamics(m).batch(q, qd, tau)],
    ids=["fd one sample", "fd samples", "fd list", "momenta one sample", "momenta samples", "ForwardDynamics",
         "ForwardDynamics in Python", "ForwardDynamics.batch"])
def test_a_mass_matrix_singular_to_round_off_is_refused_not_solved(call):
    """``forward_dynamics``, ``ForwardDynamics`` and ``velocities_from_momenta`` refused a singular M(q) only when a
    pivot of the sweep was exactly 0 (q̈ not finite); two coaxial joints with a massless link between them give a
    pivot of round-off, and q̈ = 1e16 rad/s² was returned as the motion (pinocchio's ABA gives NaN; the library
    refuses 1e16 as a q̈ it is given). Now a result beyond the states the library takes is checked against M(q)'s
    eigenvalues, and refused."""
    model, q, qd, tau = _coaxial_states()
    with pytest.raises(bp.ArgumentError, match=r"^p: the joint-space inertia M\(q\) is singular at (this q|sample 0) "
                                               r"\((smallest eigenvalue|the articulated-body sweep's pivot) .*within "
                                               r"round-off"):
        call(model, q, qd, tau)


@pytest.mark.parametrize("state", ["velocities", "momenta"])
@pytest.mark.parametrize("control", [False, True])
def test_rk4_refuses_a_motion_that_leaves_the_states_taken(state, control):
    """``simulate(method='rk4')`` stopped only at a state that was not finite: on the singular robot it logged
    q̇ = 1e15 rad/s from the first step on as the motion (state='velocities'), where solve_ivp's methods refuse a
    state beyond 1e8 as a divergence. Now rk4's states are held to the same bound."""
    model, q, qd, tau = _coaxial_states()
    t = np.linspace(0.0, 0.1, 11)
    torques = (lambda time, x, v: tau[0]) if control else np.tile(tau[0], (11, 1))
    with pytest.raises(bp.SimulationError, match=r"^the simulation diverged .*(beyond|>) 1e\+08"):
        bp.simulate(model, t, q[0], qd[0], torques, method="rk4", state=state)


def test_rk4_of_a_regular_robot_is_as_before():
    model = bp.Model(bp.parse_robot(WITH_MASS))
    t = np.linspace(0.0, 0.5, 51)
    run = bp.simulate(model, t, np.zeros(3), np.zeros(3), np.tile([1.0, -0.5, 0.2], (51, 1)), method="rk4")
    assert np.isfinite(run.q).all() and np.abs(run.qd).max() < 1e3


def test_large_accelerations_of_a_regular_mass_matrix_are_kept():
    """Tiny bodies under large torques: q̈ far beyond 1e8, M(q) positive definite: returned as before, and
    M(q) q̈ gives the torques back."""
    robot = bp.parse_robot(WITH_MASS)
    tiny = bp.Model(robot, bp.standard_parameters(robot) * 1e-60)
    q, qd, tau = np.zeros(3), np.zeros(3), np.array([1e3, -2e3, 5e2])
    qdd = bp.forward_dynamics(tiny, q, qd, tau)
    assert np.abs(qdd).max() > 1e60
    assert np.allclose(bp.mass_matrix(tiny, q) @ qdd - tau + bp.gravity_torque(tiny, q), 0, atol=1e-9 * 2e3)
    assert np.allclose(bp.velocities_from_momenta(tiny, q, tau), np.linalg.solve(bp.mass_matrix(tiny, q), tau),
                       rtol=1e-9, atol=0)


def test_forward_dynamics_of_a_regular_robot_is_as_before():
    """The check costs nothing where q̈ is within the states taken: the same numbers as inverse dynamics inverts."""
    robot = bp.parse_robot(WITH_MASS)
    model = bp.Model(robot)
    rng = np.random.default_rng(1)
    q, qd, qdd = (rng.uniform(-2, 2, (5, 3)) for _ in range(3))
    tau = bp.inverse_dynamics(model, q, qd, qdd)
    assert np.allclose(bp.forward_dynamics(model, q, qd, tau), qdd, rtol=1e-9, atol=1e-9)
    assert np.allclose(bp.forward_dynamics(model, q[0], qd[0], tau[0]), qdd[0], rtol=1e-9, atol=1e-9)
    p = bp.generalized_momenta(model, q, qd)
    assert np.allclose(bp.velocities_from_momenta(model, q, p), qd, rtol=1e-9, atol=1e-9)


# -- Identification.to_mjcf: what MuJoCo's inverse dynamics gives ------------------------------------------------------
def test_to_mjcf_says_mj_inverse_matches_with_constraints_off():
    """The docstring and ``identify --mjcf`` said ``mj_inverse`` on the written file equals the prediction without the
    Coulomb term; on random URDF trees with friction it gave the full Coulomb force on some joints and almost none on
    others (``frictionloss`` is a soft constraint), and matched only with constraints off, as tests/test_mjcf.py
    and docs/formats.md say."""
    from conftest import ROOT
    assert "constraints off" in " ".join(bp.Identification.to_mjcf.__doc__.split())
    line = next(x for x in (ROOT / "docs" / "cli.md").read_text().splitlines() if x.startswith("| `--mjcf OUT.xml`"))
    assert "constraints off" in line
