"""Fuzz round twenty-six, leftovers (issue 28: no silent wrong answer, no hang): a mass matrix singular to round-off
refused by the articulated-body sweep's own pivots, whatever the torque."""
import dataclasses

import numpy as np
import pytest

import baseparam as bp
from baseparam.dynamics.samples import in_blocks

from test_fuzz_round26_fzapi5 import COAXIAL, WITH_MASS

SINGULAR = (r"^p: the joint-space inertia M\(q\) is singular at (this q|sample \d+) \(the articulated-body sweep's "
            r"pivot of joint 2, .* within round-off\): q̈ is not determined")


def _reachable_torques(text, samples=6):
    """A model of ``text`` and states whose τ comes from inverse dynamics (in M(q)'s range, even a singular one)."""
    model = bp.Model(bp.parse_robot(text))
    rng = np.random.default_rng(4)
    q, qd, qdd = (rng.uniform(-2, 2, (samples, 3)) for _ in range(3))
    return model, q, qd, bp.inverse_dynamics(model, q, qd, qdd)


@pytest.mark.parametrize("call", [
    lambda m, q, qd, tau: bp.forward_dynamics(m, q[0], qd[0], tau[0]),
    lambda m, q, qd, tau: bp.forward_dynamics(m, q, qd, tau),
    lambda m, q, qd, tau: bp.ForwardDynamics(m)(q[0], qd[0], tau[0]),
    lambda m, q, qd, tau: bp.ForwardDynamics(m, native=False)(q[0], qd[0], tau[0]),
    lambda m, q, qd, tau: bp.ForwardDynamics(m).batch(q, qd, tau),
    lambda m, q, qd, tau: bp.ForwardDynamics(m, native=False).batch(q, qd, tau)],
    ids=["fd one sample", "fd samples", "ForwardDynamics", "ForwardDynamics in Python", "ForwardDynamics.batch",
         "batch in Python"])
def test_a_singular_mass_matrix_is_refused_when_tau_is_in_its_range(call):
    """Two coaxial joints with a massless link between them: M(q) singular to round-off. A τ from inverse dynamics
    lies in its range, and q̈ came out finite and within ±1e8 — one of infinitely many solutions, returned silently
    (require_regular looks only at results beyond 1e8). The sweep's pivot of joint 2 is 7e-17 of its scale: now
    refused by the kernel itself, naming the joint."""
    model, q, qd, tau = _reachable_torques(COAXIAL)
    with pytest.raises(bp.ArgumentError, match=SINGULAR):
        call(model, q, qd, tau)


def test_the_numpy_blocks_give_the_pivots_too():
    """The numpy batch (many samples without the C kernel) writes the pivots and their scales beside q̈: joint 2's is
    round-off at every q of the singular robot, none is of the regular one."""
    for text, tiny in ((COAXIAL, True), (WITH_MASS, False)):
        model, q, qd, tau = _reachable_torques(text, 40)
        fd = bp.ForwardDynamics(model, native=False)
        every = np.empty((3 + fd.kernel.n_pivots, 40))
        in_blocks(fd.kernel.batch, (q.T.copy(), qd.T.copy(), tau.T.copy()), fd.p, out=every)
        assert fd.kernel.n_pivots == 6
        ratio = every[3::2] / every[4::2]
        assert (np.abs(ratio[1]) < 1e-12).all() == tiny and (np.abs(ratio[[0, 2]]) > 1e-3).all()


def test_a_regular_robot_reachable_torques_give_the_accelerations_back():
    model, q, qd, tau = _reachable_torques(WITH_MASS, 40)
    rng = np.random.default_rng(4)
    qdd = [rng.uniform(-2, 2, (40, 3)) for _ in range(3)][2]
    for got in (bp.forward_dynamics(model, q, qd, tau), bp.ForwardDynamics(model, native=False).batch(q, qd, tau),
                np.array([bp.ForwardDynamics(model)(*row) for row in zip(q, qd, tau)])):
        assert np.allclose(got, qdd, rtol=1e-9, atol=1e-9)


def test_a_rotor_inertia_makes_the_coaxial_robot_regular():
    """The pivot's scale holds the rotor inertia: a drive on joint 2 gives it a pivot of its own size, and q̈ is the
    one inverse dynamics was given."""
    robot = bp.parse_robot(COAXIAL)
    joints = list(robot.joints)
    joints[1] = dataclasses.replace(joints[1], rotor_inertia=0.01)
    model = bp.Model(dataclasses.replace(robot, joints=tuple(joints)))
    rng = np.random.default_rng(4)
    q, qd, qdd = (rng.uniform(-2, 2, (6, 3)) for _ in range(3))
    tau = bp.inverse_dynamics(model, q, qd, qdd)
    assert np.allclose(bp.forward_dynamics(model, q, qd, tau), qdd, rtol=1e-9, atol=1e-9)
    assert np.allclose(bp.ForwardDynamics(model)(q[0], qd[0], tau[0]), qdd[0], rtol=1e-9, atol=1e-9)


ROOT_COAXIAL = """<robot name="root_coaxial">
  <link name="base"/>
  <link name="massless"/>
  <link name="arm"><inertial><origin xyz="0.26 0.24 0.098" rpy="0.3 0.2 0.1"/><mass value="4.9"/>
    <inertia ixx="0.075" ixy="0" ixz="0" iyy="0.032" iyz="0" izz="0.045"/></inertial></link>
  <link name="hand"><inertial><origin xyz="0.1 0 0"/><mass value="1.5"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <joint name="j1" type="continuous"><parent link="base"/><child link="massless"/><axis xyz="0 -1 0"/></joint>
  <joint name="j2" type="continuous"><parent link="massless"/><child link="arm"/><axis xyz="0 -1 0"/></joint>
  <joint name="j3" type="continuous"><parent link="arm"/><child link="hand"/><origin xyz="0.5 0 0"/>
    <axis xyz="0 1 0"/></joint>
</robot>"""


@pytest.mark.parametrize("one", [True, False])
def test_coaxial_joints_at_the_root_are_refused(one):
    """The root's pivot is read against its body and its children's articulated inertias (its own I^A is not computed
    by the sweep): a massless first link between two coaxial joints is refused there, naming joint 1 (the first four
    states give a pivot of round-off; the fifth an exact 0, q̈ not finite)."""
    model, q, qd, tau = _reachable_torques(ROOT_COAXIAL, 4)
    with pytest.raises(bp.ArgumentError, match=SINGULAR.replace("joint 2", "joint 1")):
        bp.forward_dynamics(model, *((q[0], qd[0], tau[0]) if one else (q, qd, tau)))


# -- track: a reference of more ticks than run in seconds -------------------------------------------------------------
def _reference(ticks, rate=1000.0):
    t = np.arange(ticks) / rate
    q = np.column_stack([0.1 * np.sin(2 * np.pi * t), 0.1 * np.cos(2 * np.pi * t), 0.05 * t])
    qd = np.column_stack([0.2 * np.pi * np.cos(2 * np.pi * t), -0.2 * np.pi * np.sin(2 * np.pi * t),
                          np.full(ticks, 0.05)])
    qdd = np.column_stack([-0.4 * np.pi ** 2 * np.sin(2 * np.pi * t), -0.4 * np.pi ** 2 * np.cos(2 * np.pi * t),
                           np.zeros(ticks)])
    return bp.Reference(t, q, qd, qdd, "circle")


def test_track_refuses_more_ticks_than_it_runs_in_seconds(monkeypatch):
    """track steps each tick from Python (a controller call and an RK4 interval, ~12 µs): a reference of 2·10⁶ ticks
    (from_log(log, 1e6) of a 2 s log) ran beyond a minute, and the cap was MAX_TICKS, 10⁷ (minutes). Now a reference
    beyond MAX_TRACKED_TICKS (5·10⁵, 6-8 s of CPU) is refused up front, in one line with its tick count and the cap
    (the cap lowered here so that the test runs in no time)."""
    from baseparam.simulation import tracking
    monkeypatch.setattr(tracking, "MAX_TRACKED_TICKS", 50)
    model = bp.Model(bp.parse_robot(WITH_MASS))
    with pytest.raises(bp.ArgumentError, match=r"^reference: 51 ticks; track simulates at most 50 \(a controller "
                                               r"call from Python each\); give a lower rate or a shorter duration$"):
        bp.track(model, _reference(51))
    assert np.isfinite(bp.track(model, _reference(50)).truth.q).all()


def test_the_tracked_tick_cap_runs_in_seconds_not_minutes():
    from baseparam.simulation import tracking
    assert tracking.MAX_TRACKED_TICKS == 500_000 < tracking.MAX_TICKS
