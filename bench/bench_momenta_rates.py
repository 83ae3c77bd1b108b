"""Speed of a simulation in Poisson impulses (q, p) (issue 28): one right-hand side, numpy's recursion against the
compiled kernels (:class:`baseparam.dynamics.momenta.CompiledRates`), and the motions found slow.

``simulate(state='momenta')`` of the planar arm whose Coulomb friction sticks under a constant torque is refused
after 120 000 evaluations; with numpy's recursion per evaluation that took 55 s of CPU (1.6 s in (q, q̇)). The
space robot (a floating base) with Coulomb friction on its joints sticks the same way, refused after 24 000: 27–31 s
of CPU while a floating base stepped in numpy's recursion (2 s in (q, q̇)). RK4 in (q, p) stepped in Python around the
kernels (23 µs a step for the planar arm, 52 µs for the space robot; 5.7 ms with numpy's recursion) before its loop
was compiled. CPU
seconds (``time.process_time``), best of a few after a warm-up that compiles the kernels (cached on disk); this
2-core VM's timings wander by ±30 % when other jobs run.

The logged q̇ of a ``solve_ivp`` run in (q, p), 10⁶ samples: numpy's recursion against the compiled kernel's loop.

    python bench/bench_momenta_rates.py
"""
import dataclasses
import pathlib
import sys
import time

import numpy as np

import baseparam as bp
from baseparam.dynamics.momenta import CompiledRates, hamiltonian_rates
from baseparam.dynamics.samples import LinkParameters

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
from conftest import planar_arm  # noqa: E402
from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

ROBOTS = pathlib.Path(__file__).resolve().parents[1] / "robots"

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["ur10e_cad.yaml", "kuka_lwr4_cad.yaml", "space_robot.yaml"],
         "two arms with bodies, friction and rotor inertias of the real robots beside a generated planar arm "
         "(the sticking motion fzapi found slow), and the floating base's tree; the per-evaluation ratio does not "
         "depend on the arm's kind")


def per_call(function, calls=300, rounds=3):
    """Best CPU µs per call of ``function()`` over ``rounds`` of ``calls``."""
    function()
    best = np.inf
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            function()
        best = min(best, (time.process_time() - start) / calls)
    return 1e6 * best


def one_evaluation(model):
    robot = model.robot
    links = LinkParameters(robot, model.p, model.parameters)
    compiled = CompiledRates(model)
    rng = np.random.default_rng(0)
    q, momenta, tau = rng.uniform(-1, 1, robot.n_q), rng.normal(size=robot.n_v), rng.normal(size=robot.n_v)
    if robot.is_floating:
        q[3:7] /= np.linalg.norm(q[3:7])
    numpy_us = per_call(lambda: hamiltonian_rates(robot, links, q[None], momenta[None], tau[None]))

    def compiled_call():
        qd = compiled.velocities(q, momenta)
        return compiled.rate(q, qd, tau)
    compiled_us = per_call(compiled_call, calls=3000)
    print(f"{robot.name:32s} one (q̇, ṗ): numpy {numpy_us:8.1f} µs   compiled {compiled_us:6.1f} µs   "
          f"×{numpy_us / compiled_us:.0f}")


def sticking_space_robot():
    """The space robot with Coulomb friction (3 N·m) on its joints, which stick under 1 N·m."""
    robot = bp.load_robot(ROBOTS / "space_robot.yaml")
    joints = tuple(dataclasses.replace(j, friction=(0.4, 3.0, 0.1)) for j in robot.joints)
    return bp.Model(dataclasses.replace(robot, joints=joints, source=None))


def sticking_motion(model, what):
    robot = model.robot
    t, q0, qd0 = np.linspace(0, 0.5, 51), np.zeros(robot.n_q), np.zeros(robot.n_v)
    if robot.is_floating:
        q0[6] = 1.0
    for state in ("velocities", "momenta"):
        start = time.process_time()
        try:
            bp.simulate(model, t, q0, qd0, np.ones(robot.n_dof), state=state)
            said = "ok"
        except bp.BaseParamError as exc:
            said = str(exc)[:60]
        print(f"{what}, Coulomb sticking, state={state:10s}: {time.process_time() - start:5.1f} s CPU  ({said}…)")


def rk4_step_time(model):
    """CPU µs per RK4 step of a 1000-sample motion, 10 substeps, in (q, q̇) and in (q, p): both compiled loops."""
    robot = model.robot
    t, q0, qd0 = np.linspace(0, 1, 1001), np.zeros(robot.n_q), np.linspace(-0.5, 0.5, robot.n_v)
    if robot.is_floating:
        q0[6] = 1.0
    tau = np.full(robot.n_dof, 0.3)
    times = {}
    for state in ("velocities", "momenta"):
        bp.simulate(model, t[:11], q0, qd0, tau, method="rk4", state=state)          # compiles the kernels
        start = time.process_time()
        bp.simulate(model, t, q0, qd0, tau, method="rk4", substeps=10, state=state, record=("q", "qd"))
        times[state] = 1e6 * (time.process_time() - start) / 10_000
    print(f"{robot.name:32s} one RK4 step: (q, q̇) {times['velocities']:5.1f} µs   (q, p) {times['momenta']:5.1f} µs")


def logged_velocities(model, samples=10**6):
    """CPU s of a solve_ivp run's logged q̇ = M(q)⁻¹ p over ``samples`` random states: numpy's recursion
    (``velocities_from_momenta``, what simulate logged before round 26) against the compiled kernel's loop
    (``CompiledRates.batch_velocities``, what it logs now), and their largest difference beside each column's size."""
    robot = model.robot
    rng = np.random.default_rng(0)
    q, momenta = rng.uniform(-1, 1, (samples, robot.n_q)), rng.normal(size=(samples, robot.n_v))
    if robot.is_floating:
        q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1)[:, None]
    compiled = CompiledRates(model)
    compiled.batch_velocities(q[:10], momenta[:10])                 # compiles the kernel (cached on disk)
    start = time.process_time()
    slow = bp.velocities_from_momenta(model, q, momenta)
    numpy_s = time.process_time() - start
    start = time.process_time()
    fast = compiled.batch_velocities(q, momenta)
    compiled_s = time.process_time() - start
    worst = (np.abs(fast - slow) / np.abs(slow).max(axis=0)).max()
    print(f"{robot.name:32s} q̇ of {samples:.0e} samples: numpy {numpy_s:5.2f} s   compiled {compiled_s:5.2f} s   "
          f"difference {worst:.1e}")


def main():
    print(scope_line(SCOPE))
    for model in (bp.Model(planar_arm()), bp.Model(bp.load_robot(ROBOTS / "ur10e_cad.yaml")),
                  bp.Model(bp.load_robot(ROBOTS / "kuka_lwr4_cad.yaml"))):
        one_evaluation(model)
    one_evaluation(bp.Model(bp.load_robot(ROBOTS / "space_robot.yaml")))
    for model in (bp.Model(planar_arm()), bp.Model(bp.load_robot(ROBOTS / "space_robot.yaml"))):
        rk4_step_time(model)
    for name in ("ur10e_cad.yaml", "space_robot.yaml"):
        logged_velocities(bp.Model(bp.load_robot(ROBOTS / name)))
    sticking_motion(bp.Model(planar_arm()), "planar arm")
    sticking_motion(sticking_space_robot(), "space robot")


if __name__ == "__main__":
    main()
