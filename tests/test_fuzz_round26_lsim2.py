"""Round twenty-six, simulation leftovers (issue 28): the logged q̇ of a solve_ivp run in (q, p) by the compiled
kernel, the implicit methods on sign(q̇) friction, and a fuzz of simulate / forward_dynamics / momenta on fixed and
floating robots; each find here with a test that fails before its fix."""
import dataclasses

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
