"""Speed of a simulation in Poisson impulses (q, p) (issue 28): one right-hand side, numpy's recursion against the
compiled kernels (:class:`baseparam.dynamics.momenta.CompiledRates`), and the motion fzapi found slow.

``simulate(state='momenta')`` of the planar arm whose Coulomb friction sticks under a constant torque is refused
after 120 000 evaluations; with numpy's recursion per evaluation that took 55 s of CPU (1.6 s in (q, q̇)). CPU
seconds (``time.process_time``), best of a few after a warm-up that compiles the kernels (cached on disk); this
2-core VM's timings wander by ±30 % when other jobs run.

    python bench/bench_momenta_rates.py
"""
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
SCOPE = (["ur10e_cad.yaml", "kuka_lwr4_cad.yaml"],
         "two arms with bodies, friction and rotor inertias of the real robots beside a generated planar arm "
         "(the sticking motion fzapi found slow); the per-evaluation ratio does not depend on the arm's kind")


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
    numpy_us = per_call(lambda: hamiltonian_rates(robot, links, q[None], momenta[None], tau[None]))

    def compiled_call():
        qd = compiled.velocities(q, momenta)
        return compiled.rate(q, qd, tau)
    compiled_us = per_call(compiled_call, calls=3000)
    print(f"{robot.name:32s} one (q̇, ṗ): numpy {numpy_us:8.1f} µs   compiled {compiled_us:6.1f} µs   "
          f"×{numpy_us / compiled_us:.0f}")


def sticking_motion():
    model, t, z = bp.Model(planar_arm()), np.linspace(0, 0.5, 51), np.zeros(3)
    for state in ("velocities", "momenta"):
        start = time.process_time()
        try:
            bp.simulate(model, t, z, z, np.ones(3), state=state)
            said = "ok"
        except bp.BaseParamError as exc:
            said = str(exc)[:60]
        print(f"planar arm, Coulomb sticking, state={state:10s}: {time.process_time() - start:5.1f} s CPU  ({said}…)")


def main():
    print(scope_line(SCOPE))
    for model in (bp.Model(planar_arm()), bp.Model(bp.load_robot(ROBOTS / "ur10e_cad.yaml")),
                  bp.Model(bp.load_robot(ROBOTS / "kuka_lwr4_cad.yaml"))):
        one_evaluation(model)
    sticking_motion()


if __name__ == "__main__":
    main()
