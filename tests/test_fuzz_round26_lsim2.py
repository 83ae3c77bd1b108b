"""Round twenty-six, simulation leftovers (issue 28): the logged q̇ of a solve_ivp run in (q, p) by the compiled
kernel, the implicit methods on sign(q̇) friction, and a fuzz of simulate / forward_dynamics / momenta on fixed and
floating robots; each find here with a test that fails before its fix."""
import dataclasses
import re

import numpy as np
import pytest

import baseparam as bp
import baseparam.dynamics.momenta as momenta_module
from conftest import ROOT, planar_arm


def viscous_only(robot):
    """``robot`` with viscous friction only on its joints (no sign(q̇) jump: every method runs it)."""
    joints = tuple(dataclasses.replace(j, friction=(0.5, 0.0, 0.0)) for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


SPACE = bp.Model(viscous_only(bp.load_robot(ROOT / "robots" / "space_robot.yaml")))
ARM = bp.Model(viscous_only(planar_arm()))


def start(model):
    q0 = np.zeros(model.robot.n_q)
    if model.robot.is_floating:
        q0[6] = 1.0
    return q0, np.full(model.robot.n_v, 0.3)


# -- 1. the log's q̇ of a solve_ivp run in (q, p): the compiled kernel, not numpy's recursion ---------------------------
@pytest.mark.parametrize("model", [ARM, SPACE], ids=["fixed", "floating"])
@pytest.mark.parametrize("solver", ["ltdl", "sweep"])
def test_a_momenta_run_logs_its_velocities_by_the_compiled_kernel(model, solver, monkeypatch):
    """The q̇ of a solve_ivp run in (q, p) came from numpy's recursion of velocities_from_momenta at the end (5.9 s of
    CPU for 10⁶ samples; the compiled kernel the steps use: 0.4 s). Now from the kernel: numpy's solve is not called
    (it was before), and the q̇ are M(q)⁻¹ p of either numpy solver to 1e-12."""
    q0, qd0 = start(model)
    t = np.linspace(0, 0.3, 31)

    def numpy_solve(*args, **kwargs):
        raise AssertionError("numpy's recursion ran")
    with monkeypatch.context() as patch:
        patch.setattr(momenta_module, "solve", numpy_solve)
        log = bp.simulate(model, t, q0, qd0, state="momenta", solver=solver)
    p = bp.generalized_momenta(model, log.q, log.qd)
    for numpy_solver in ("ltdl", "sweep"):
        qd = bp.velocities_from_momenta(model, log.q, p, numpy_solver)
        assert np.abs(qd - log.qd).max() <= 1e-12 * np.abs(log.qd).max()
    velocities = bp.simulate(model, t, q0, qd0)
    assert np.abs(velocities.qd - log.qd).max() < 1e-6


# -- 2. implicit methods on sign(q̇) friction: refused where a joint is at rest or reverses, run where none does --------
IMPLICIT = ("BDF", "Radau", "LSODA")


def tracking_arm():
    """The planar arm with its friction (Coulomb sign(q̇) on every joint) driven by computed torque towards a ramp of
    constant positive velocities, from other positive velocities: no joint's q̇ comes near 0."""
    model = bp.Model(planar_arm())
    q0, ramp, qd0 = np.array([0.3, -0.5, 0.4]), np.array([1.0, 1.5, 2.0]), np.array([1.5, 1.0, 2.5])

    def controller(time, q, qd):
        return bp.inverse_dynamics(model, q, qd, 100 * (q0 + ramp * time - q) + 20 * (ramp - qd))
    return model, q0, qd0, controller


def pushed_space_robot():
    """The space robot with Coulomb friction of 3 N·m on its joints, moving at 1 rad/s and pushed on by 5 N·m."""
    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    model = bp.Model(dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, friction=(0.4, 3.0, 0.1))
                                                             for j in robot.joints), source=None))
    q0, qd0 = start(model)
    qd0[:6], qd0[6:] = 0.0, 1.0
    return model, q0, qd0, np.full(model.robot.n_dof, 5.0)


@pytest.mark.parametrize("problem, state", [(tracking_arm, "velocities"), (tracking_arm, "momenta"),
                                            (pushed_space_robot, "velocities"), (pushed_space_robot, "momenta")])
@pytest.mark.parametrize("method", IMPLICIT)
def test_an_implicit_method_runs_a_motion_whose_sign_friction_joints_keep_their_direction(problem, state, method):
    """Refused up front on any sign(q̇) friction before; a run whose every evaluation keeps each such joint's sign
    evaluates one smooth branch of the friction only, so the implicit method follows DOP853."""
    model, q0, qd0, tau = problem()
    t = np.linspace(0, 0.3, 31)
    ref = bp.simulate(model, t, q0, qd0, tau, rtol=1e-11, atol=1e-11, state=state)
    joints = ref.qd[:, -model.robot.n_dof:]
    assert joints.min() > 0.5
    run = bp.simulate(model, t, q0, qd0, tau, method=method, rtol=1e-10, atol=1e-10, state=state)
    assert np.abs(run.q - ref.q).max() < 1e-7 and np.abs(run.qd - ref.qd).max() < 1e-6


@pytest.mark.parametrize("state", ["velocities", "momenta"])
@pytest.mark.parametrize("method", IMPLICIT)
def test_an_implicit_method_is_refused_where_a_sign_friction_joint_reverses(method, state):
    """The arm braked by −8, −6, −4 N·m beside gravity from q̇ > 0: its joints reverse near t = 0.05 s, where the run
    is refused in the up-front refusal's words, saying when."""
    model, q0, qd0, _ = tracking_arm()

    def brake(time, q, qd):
        return bp.gravity_torque(model, q) - np.array([8.0, 6.0, 4.0])
    t = np.linspace(0, 0.3, 31)
    with pytest.raises(bp.errors.ArgumentError, match=rf"^method: '{method}' is implicit, and joints\[\d\]'s Coulomb "
                                                      r"friction sign\(q̇\) jumps at q̇ = 0, .*its q̇ changes sign by "
                                                      r"t = (\S+) s\); use method='rk4' with substeps") as info:
        bp.simulate(model, t, q0, qd0, brake, method=method, state=state)
    when = float(re.search(r"changes sign by t = (\S+) s", str(info.value)).group(1))
    assert "\n" not in str(info.value) and 0 < when < 0.3


def test_an_implicit_method_is_refused_at_rest_before_a_step():
    """A sign(q̇) joint at rest at the start: refused at the first evaluation, the reason said."""
    model, q0, qd0, tau = tracking_arm()
    qd0[1] = 0.0
    with pytest.raises(bp.errors.ArgumentError, match=r"^method: 'BDF' is implicit, and joints\[2\]'s Coulomb .*"
                                                      r"it starts at rest\)"):
        bp.simulate(model, np.linspace(0, 0.3, 31), q0, qd0, tau, method="BDF")


# -- 3. the fuzz's finds ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", [ARM, SPACE], ids=["fixed", "floating"])
@pytest.mark.parametrize("method", ["rk4", "DOP853"])
@pytest.mark.parametrize("state", ["velocities", "momenta"])
def test_a_controller_working_in_its_arguments_does_not_change_the_motion(model, method, state):
    """The controller got views of the log's rows (rk4): one that works in its arguments (q -= …, qd *= …) changed
    the motion under the integrator, silently (the planar arm's log 2e8 off). It gets copies now."""
    q0, qd0 = start(model)
    t = np.linspace(0, 0.2, 11)

    def controller(time, q, qd):
        q += 0.1
        qd *= 2.0
        return np.zeros(len(qd))
    quiet = bp.simulate(model, t, q0, qd0, method=method, state=state)
    busy = bp.simulate(model, t, q0, qd0, controller, method=method, state=state)
    assert np.array_equal(busy.q, quiet.q) and np.array_equal(busy.qd, quiet.qd)


@pytest.mark.parametrize("state", ["velocities", "momenta"])
def test_a_controller_returning_one_buffer_logs_each_samples_torques(state):
    """solve_ivp's log called the controller at each sample and stacked what it returned: a controller filling and
    returning one buffer gave every sample the last call's torques (the motion itself right). Each row copied now."""
    q0, qd0 = start(ARM)
    t = np.linspace(0, 0.2, 11)
    buffer = np.zeros(3)

    def filling(time, q, qd):
        buffer[:] = [np.sin(5 * time), 1.0, time]
        return buffer

    def fresh(time, q, qd):
        return np.array([np.sin(5 * time), 1.0, time])
    run = bp.simulate(ARM, t, q0, qd0, filling, state=state)
    assert np.array_equal(run.tau, bp.simulate(ARM, t, q0, qd0, fresh, state=state).tau)
    assert np.array_equal(run.tau[:, 2], t)
