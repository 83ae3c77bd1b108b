"""Round 25, helper lstiff: implicit solve_ivp methods on Coulomb friction (issue 28, no silently wrong answer).

- ``method='BDF'`` on a robot whose Coulomb friction sign(q̇) sticks returned joints moving 0.14 rad where RK4 with
  100 substeps gives 6e-5 (the space robot, the planar arm; both states): Newton's iteration of an implicit step has
  no root across the jump of sign(q̇). Radau and LSODA failed at the first step. An implicit method (BDF, Radau, LSODA,
  or a subclass) on a robot whose friction jumps at q̇ = 0 is now refused up front in one line saying what to use
  instead; a smooth friction model, or none, runs as before.
- Radau's failure said "the simulation diverged … at t = 5.8e-13 s": a Newton iterate beyond 1e8 inside the solver,
  not a state of the motion. An implicit method's steps beyond the bound now say the solver failed.
"""
import dataclasses
import pathlib

import numpy as np
import pytest
from scipy.integrate import BDF

import baseparam as bp
from baseparam.errors import ArgumentError, SimulationError
from baseparam.model.friction import FrictionModel
from conftest import planar_arm

ROOT = pathlib.Path(__file__).resolve().parents[1]
IMPLICIT = ("BDF", "Radau", "LSODA")


class MyBDF(BDF):
    """A user's subclass of an implicit method, passed as a class."""


def with_friction(robot, friction=(0.4, 3.0, 0.1), friction_model=None):
    joints = tuple(dataclasses.replace(j, friction=friction, friction_model=friction_model) for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


def space_robot(**kwargs):
    """The space robot (a floating base) with friction on its joints, at rest: under 1 N·m its joints stick."""
    model = bp.Model(with_friction(bp.load_robot(ROOT / "robots" / "space_robot.yaml"), **kwargs))
    q0 = np.zeros(model.n_q)
    q0[6] = 1.0
    return model, q0, np.zeros(model.n_v), np.ones(model.robot.n_dof)


def planar(**kwargs):
    """The planar arm in gravity with Coulomb friction larger than the torque left by gravity compensation: at rest
    it sticks."""
    model = bp.Model(with_friction(planar_arm(), **kwargs))
    q0, qd0 = np.array([0.3, -0.5, 0.4]), np.zeros(3)
    return model, q0, qd0, bp.gravity_torque(model, q0) + 1.0


PROBLEMS = {"space": space_robot, "planar": planar}
T = np.linspace(0, 0.5, 51)


@pytest.mark.parametrize("state", ["velocities", "momenta"])
@pytest.mark.parametrize("name", sorted(PROBLEMS))
@pytest.mark.parametrize("method", [*IMPLICIT, MyBDF])
def test_an_implicit_method_on_sign_friction_is_refused_in_one_line(method, name, state):
    """BDF's sticking joints came out moving 0.14 rad (RK4: 6e-5); Radau said the motion diverged at 5.8e-13 s."""
    model, q0, qd0, tau = PROBLEMS[name](friction_model=None)
    label = method if isinstance(method, str) else method.__name__
    with pytest.raises(ArgumentError, match=rf"^method: '{label}' is implicit, and joints\[1\]'s Coulomb friction "
                                            r"sign\(q̇\) jumps at q̇ = 0, .*use method='rk4' with substeps, an explicit "
                                            r"method \('DOP853'\) while no joint sticks, or a smooth friction "
                                            r"model") as info:
        bp.simulate(model, T, q0, qd0, tau, method=method, state=state)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_the_refused_motion_sticks_under_rk4(name):
    """What the refusal points to: RK4 with many substeps keeps the sticking joints (nearly) still, where BDF moved
    them 0.14 rad."""
    model, q0, qd0, tau = PROBLEMS[name]()
    run = bp.simulate(model, T, q0, qd0, tau, method="rk4", substeps=100)
    n = model.robot.n_dof
    assert np.abs(run.q[:, -n:] - q0[-n:]).max() < 1e-3


def test_a_stribeck_term_of_sign_shape_is_refused_and_zero_values_are_not():
    """FS·exp(−(q̇/v_s)²)·sign(q̇) jumps too (FC = 0 here); sign(q̇) with FC = FS = 0 does not, and runs."""
    model, q0, qd0, tau = planar(friction_model=FrictionModel(stribeck=0.05, stribeck_friction=1.0))
    names = model.names
    p = model.p.copy()
    p[[names.index(f"FC{k}") for k in (1, 2, 3)]] = 0.0
    assert (p[[names.index(f"FS{k}") for k in (1, 2, 3)]] != 0).all()
    with pytest.raises(ArgumentError, match=r"^method: 'Radau' is implicit, and joints\[1\]'s Stribeck friction"):
        bp.simulate(model.with_parameters(p), T, q0, qd0, tau, method="Radau")
    p[[names.index(f"FS{k}") for k in (1, 2, 3)]] = 0.0
    run = bp.simulate(model.with_parameters(p), T[:11], q0, qd0, tau, method="Radau")
    assert np.isfinite(run.q).all()


@pytest.mark.parametrize("state", ["velocities", "momenta"])
@pytest.mark.parametrize("method", IMPLICIT)
def test_implicit_methods_on_smooth_friction_follow_rk4(method, state):
    """A smooth Coulomb shape (tanh(q̇/0.05)) is not refused: the implicit methods follow RK4 with many substeps."""
    model, q0, qd0, tau = planar(friction_model=FrictionModel("smooth", velocity=0.05))
    tau = tau + np.array([2.0, -1.0, 0.5])         # moving through the friction band
    t = T[:21]
    run = bp.simulate(model, t, q0, qd0, tau, method=method, state=state, rtol=1e-10, atol=1e-10)
    ref = bp.simulate(model, t, q0, qd0, tau, method="rk4", substeps=200, state=state)
    assert np.abs(run.q - ref.q).max() < 1e-7 and np.abs(ref.q - q0).max() > 1e-3


@pytest.mark.parametrize("method", IMPLICIT)
def test_implicit_methods_without_friction_keep_the_energy(method):
    """Without friction or torque the planar arm in gravity keeps its energy T + V under each implicit method."""
    model = bp.Model(with_friction(planar_arm(), friction=(False, False, False)))
    q0, qd0 = np.array([0.3, -0.5, 0.4]), np.array([0.5, -0.2, 0.1])
    run = bp.simulate(model, T[:21], q0, qd0, method=method, rtol=1e-11, atol=1e-11)
    energy = bp.kinetic_energy(model, run.q, run.qd) + bp.potential_energy(model, run.q)
    assert np.abs(energy - energy[0]).max() < 1e-7 * max(1.0, abs(energy[0]))


def test_radaus_newton_iterate_beyond_the_bound_is_not_called_a_divergence(monkeypatch):
    """Radau's Newton iteration across sign(q̇) tried a state beyond 1e8 at t = 5.8e-13 s, which the right-hand side
    called the motion's divergence; it is the solver failing (the refusal above bypassed to reach it)."""
    from baseparam.simulation import integrate
    monkeypatch.setattr(integrate, "refuse_implicit_with_sign_friction", lambda model, method: None)
    model, q0, qd0, tau = space_robot()
    with pytest.raises(SimulationError, match=r"^the simulation stopped at t = \S+ s: method 'Radau' failed, its "
                                              r"steps trying a state beyond 1e\+08") as info:
        bp.simulate(model, T, q0, qd0, tau, method="Radau")
    assert "diverged" not in str(info.value)
