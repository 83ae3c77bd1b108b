"""Speed of forward dynamics and simulation (issue 14), beside pinocchio called from Python in the same run.

Targets: 100 000 samples of a 7-DOF arm (KUKA iiwa) ≤ pinocchio's ``aba`` in a Python loop; one
sample ≤ 20 µs from Python, and no slower than ``pin.aba`` called from Python (issue 22: timed in
interleaved rounds, the ratio printed); 10 s of the arm at 1 kHz with RK4 ≤ 2 s; time per sample linear in N
up to 50 bodies (slope printed, against M + a dense Cholesky solve); and Ivanov's claim that his
block LTDL solver of q̇ = M⁻¹p is 1.3–1.4× faster than his sweep on chains of 5–50 bodies.

Times are in-process, best of several runs after a warm-up call (which builds and compiles the
robot's code once; the compiled C kernel is cached on disk). This 2-core VM's timings wander by
±30 % when other jobs run: compare within one run.

    python bench/bench_forward.py            # everything (about 2 minutes)
    python bench/bench_forward.py --quick    # fewer samples and repeats
"""
import pathlib
import sys
import time
import warnings

import numpy as np

import baseparam as bp
from baseparam.dynamics import momenta
from baseparam.dynamics.forward import ForwardDynamics, kernel
from baseparam.dynamics.samples import LinkParameters
from baseparam.dynamics.tree import Tree

from bench_dynamics import best_of

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["kuka_iiwa14.yaml"],
         "the 7-DOF arm of the issue's targets (beside pinocchio), then generated chains of 5-50 joints "
         "for the growth with N")


def pinocchio_model(robot, p):
    """pinocchio's model of the robot carrying the bodies of p (pseudo parameters), or None."""
    try:
        import pinocchio as pin
        from pin_model import build_model
    except ImportError:
        return None, None
    links = LinkParameters(robot, p)
    bodies = []
    for k in range(robot.n_dof):
        m, h, J = links.M[k], links.MS[k], links.J[k]
        c = h / m
        bodies.append(pin.Inertia(m, c, J - m * (c @ c * np.eye(3) - np.outer(c, c))))
    model, _ = build_model(robot, bodies)
    return pin, model


def chain(n):
    """A spatial chain of n revolute joints (twists ±90°, 0.1 m links) with 1 kg bodies."""
    joints = tuple(bp.Joint(type="revolute", alpha=(90 if k % 2 else -90), a=0.1, d=0.05) for k in range(n))
    robot = bp.Robot(joints, name=f"{n}-body chain", convention="standard", length_unit="m", angle_unit="deg")
    return robot, np.tile([0.004, 0.004, 0.004, 0, 0, 0, 0.05, 0, 0, 1.0], n)


def section(title):
    print(f"\n== {title}")


def batch(robot, p, n_samples, repeat):
    section(f"forward dynamics of {n_samples} samples, {robot.name} (7 DOF)")
    rng = np.random.default_rng(0)
    q, qd, tau = (rng.uniform(-2, 2, (n_samples, robot.n_dof)) for _ in range(3))
    bpm = bp.Model(robot, p)
    t0 = time.perf_counter()
    bp.forward_dynamics(bpm, q[:10], qd[:10], tau[:10])
    print(f"first call (builds the robot's code): {time.perf_counter() - t0:.3f} s")
    ours = best_of(lambda: bp.forward_dynamics(bpm, q, qd, tau), repeat)
    pin, model = pinocchio_model(robot, p)
    line = f"bp.forward_dynamics (C loop over samples): {ours:.3f} s"
    if pin is not None:
        data = model.createData()
        theirs = best_of(lambda: [pin.aba(model, data, q[i], qd[i], tau[i]) for i in range(n_samples)],
                         max(1, repeat // 2))
        got = bp.forward_dynamics(bpm, q[:100], qd[:100], tau[:100])
        ref = np.array([pin.aba(model, data, q[i], qd[i], tau[i]) for i in range(100)])
        line += (f";  pin.aba in a Python loop: {theirs:.3f} s;  ratio {ours / theirs:.2f} (target ≤ 1)"
                 f";  max |difference| {np.abs(got - ref).max():.1e}")
    print(line)


def one_sample(robot, p, repeat):
    section(f"one sample from Python, {robot.name}")
    bpm = bp.Model(robot, p)
    fd = ForwardDynamics(bpm)
    rng = np.random.default_rng(1)
    q, qd, tau = (rng.uniform(-1, 1, robot.n_dof) for _ in range(3))
    n = 20000
    rows = [("bp.ForwardDynamics(model)(q, qd, tau), " + fd.backend + " kernel",
             best_of(lambda: [fd(q, qd, tau) for _ in range(n)], repeat) / n)]
    rows.append(("bp.forward_dynamics(model, q, qd, tau), checked",
                 best_of(lambda: [bp.forward_dynamics(bpm, q, qd, tau) for _ in range(2000)], repeat) / 2000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        rows.append(("bp.forward_dynamics(robot, p, q, qd, tau), checked (deprecated form)",
                     best_of(lambda: [bp.forward_dynamics(robot, p, q, qd, tau) for _ in range(2000)], repeat) / 2000))
    scalar, out, plist = kernel(robot).scalar, [0.0] * robot.n_dof, fd.p.tolist()
    args = [x.tolist() for x in (q, qd, tau)]
    rows.append(("straight-line Python (the fallback without a C compiler)",
                 best_of(lambda: [scalar(*args, plist, out) for _ in range(500)], repeat) / 500))
    pin, model = pinocchio_model(robot, p)
    if pin is not None:
        data = model.createData()
        rows.append(("pin.aba(model, data, q, v, tau)",
                     best_of(lambda: [pin.aba(model, data, q, qd, tau) for _ in range(n)], repeat) / n))
    for label, seconds in rows:
        print(f"  {seconds * 1e6:8.2f} µs  {label}")
    print("  target: ≤ 20 µs")
    if pin is not None:
        ours, theirs = interleaved(lambda: fd(q, qd, tau), lambda: pin.aba(model, data, q, qd, tau),
                                   2000, 10 * repeat)
        print(f"  ForwardDynamics(model)(q, qd, tau) / pin.aba, {10 * repeat} interleaved rounds of 2000 calls: "
              f"{np.min(ours) / np.min(theirs):.2f} (best), {np.median(ours) / np.median(theirs):.2f} (median); "
              "target ≤ 1")


def interleaved(first, second, calls, rounds, clock=time.perf_counter):
    """Seconds per call of two functions timed in alternating rounds (A, B, A, B, …), so that the load of
    other work on the machine hits both alike: two arrays of ``rounds`` times. ``clock``: wall time by default,
    ``time.process_time`` for CPU time (which does not count the time other work holds the core: under a heavy
    load, a longer round is preempted more often, and wall-time ratios tilt against the slower function)."""
    times = np.empty((2, rounds))
    for r in range(rounds):
        for k, fn in enumerate((first, second)):
            t = clock()
            for _ in range(calls):
                fn()
            times[k, r] = (clock() - t) / calls
    return times[0], times[1]


def simulation(robot, p, repeat):
    section(f"10 s of {robot.name} at 1 kHz, RK4 (40 000 forward dynamics)")
    t = np.arange(10_001) * 1e-3
    q_home = np.array([0.0, 0.5, 0.0, -1.0, 0.0, 0.8, 0.0])
    Kp, Kd = np.array([800, 800, 400, 400, 100, 100, 50.0]), np.array([60, 60, 30, 30, 8, 8, 4.0])

    def controller(time, q, qd):               # PD around a slow sine, no model
        return Kp * (q_home + 0.3 * np.sin(time) - q) - Kd * qd
    bpm = bp.Model(robot, p)
    bp.simulate(bpm, t[:20], q_home, np.zeros(7), controller, method="rk4")      # warm up
    with_controller = best_of(lambda: bp.simulate(bpm, t, q_home, np.zeros(7), controller, method="rk4"),
                              repeat)
    log = bp.simulate(bpm, t, q_home, np.zeros(7), controller, method="rk4")
    rows = best_of(lambda: bp.simulate(bpm, t, q_home, np.zeros(7), log.tau, method="rk4"), repeat)
    print(f"  controller callback (PD, called at 1 kHz): {with_controller:.3f} s;  torque rows: {rows:.3f} s  "
          "(target ≤ 2 s)")
    pin, model = pinocchio_model(robot, p)
    if pin is not None:
        data = model.createData()

        def pin_rk4():
            q, v, h = q_home.copy(), np.zeros(7), 1e-3
            for k in range(10_000):
                tau = controller(t[k], q, v)
                a1 = pin.aba(model, data, q, v, tau)
                a2 = pin.aba(model, data, q + h / 2 * v, v + h / 2 * a1, tau)
                a3 = pin.aba(model, data, q + h / 2 * (v + h / 2 * a1), v + h / 2 * a2, tau)
                a4 = pin.aba(model, data, q + h * (v + h / 2 * a2), v + h * a3, tau)
                q = q + h * v + h * h / 6 * (a1 + a2 + a3)
                v = v + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
            return q
        print(f"  the same RK4 loop in Python on pin.aba: {best_of(pin_rk4, 1):.3f} s")


def linearity(sizes, repeat):
    section("time per sample against the number of bodies N (chains)")
    try:
        import pinocchio as pin
    except ImportError:
        pin = None
    from baseparam.dynamics.expressions import operation_count

    rng = np.random.default_rng(2)
    S = 2048
    cases = []
    for n in sizes:                     # build everything first, then time in interleaved rounds
        robot, p = chain(n)
        q, qd, tau = (rng.uniform(-1, 1, (S, n)) for _ in range(3))
        fd = ForwardDynamics(bp.Model(robot, p))
        fd.batch(q[:300], qd[:300], tau[:300])
        ops = operation_count(fd.kernel.graph, [node for _, node in fd.kernel.outputs])
        model = pinocchio_model(robot, p)[1] if pin is not None else None
        M = np.array([np.array(pin.crba(model, model.createData(), q[i])) for i in range(S)]) if model is not None \
            else bp.mass_matrix(bp.Model(robot, p), q)
        cases.append(dict(n=n, fd=fd, q=q, qd=qd, tau=tau, ops=ops["mul"] + ops["add"] + ops["div"], model=model,
                          M=np.triu(M) + np.swapaxes(np.triu(M, 1), 1, 2)))
    times = {key: {c["n"]: np.inf for c in cases} for key in ("numpy", "c", "crba", "cholesky")}
    for _ in range(repeat):
        for c in cases:
            fd, q, qd, tau, n = c["fd"], c["q"], c["qd"], c["tau"], c["n"]
            times["numpy"][n] = min(times["numpy"][n], best_of(lambda: fd.batch(q, qd, tau), 1) / S)
            if fd.kernel.native(build=False) is not None:
                times["c"][n] = min(times["c"][n], best_of(lambda: fd.batch(q[:255], qd[:255], tau[:255]), 1) / 255)
            if c["model"] is not None:
                data = c["model"].createData()
                times["crba"][n] = min(times["crba"][n], best_of(
                    lambda: [pin.crba(c["model"], data, q[i]) for i in range(200)], 1) / 200)
            times["cholesky"][n] = min(times["cholesky"][n], best_of(lambda: _cholesky_solve(c["M"], tau), 1) / S)
    print(f"  {'N':>3} {'operations':>11} {'ABA numpy':>10} {'ABA C':>8} {'M (crba)':>9} {'Cholesky':>9}"
          "   µs per sample")
    for c in cases:
        n = c["n"]
        print(f"  {n:>3} {c['ops']:>11} {times['numpy'][n] * 1e6:10.2f} {times['c'][n] * 1e6:8.2f} "
              f"{times['crba'][n] * 1e6:9.2f} {times['cholesky'][n] * 1e6:9.2f}")
    N = np.array(sizes, dtype=float)
    slope, intercept = np.polyfit(N, [c["ops"] for c in cases], 1)
    print(f"  the ABA's straight-line code: {slope:.0f} operations per body ({intercept:+.0f}): counted, not timed")
    for key, label in (("numpy", "ABA numpy"), ("c", "ABA C")):
        y = np.array([times[key][n] for n in sizes]) * 1e6
        slope, intercept = np.polyfit(N, y, 1)
        r2 = 1 - ((y - (slope * N + intercept)) ** 2).sum() / ((y - y.mean()) ** 2).sum()
        print(f"  {label}: {slope:.3f} µs per body ({intercept:+.2f} µs), linear fit R² = {r2:.3f}")
    for key, label in (("crba", "M by pinocchio's crba"), ("cholesky", "dense Cholesky solve of M (numpy, batched)")):
        exponent = np.polyfit(np.log(N), np.log([times[key][n] for n in sizes]), 1)[0]
        print(f"  {label}: time ∝ N^{exponent:.2f} (log-log fit)")
    n = sizes[-1]
    print(f"  at N = {n}: M + Cholesky {(times['crba'][n] + times['cholesky'][n]) * 1e6:.1f} µs per sample against "
          f"the ABA's {times['numpy'][n] * 1e6:.1f} (numpy) and {times['c'][n] * 1e6:.1f} (C)")


def _cholesky_solve(M, tau):
    L = np.linalg.cholesky(M)
    y = np.linalg.solve(L, tau[:, :, None])
    return np.linalg.solve(np.swapaxes(L, 1, 2), y)


def ivanov(sizes, repeat, S=1000):
    section(f"Ivanov's solvers of q̇ = M⁻¹p, chains, {S} samples per call (numpy, explicit 6×6 per body)")
    rng = np.random.default_rng(3)
    print(f"  {'N':>3} {'sweep':>9} {'LTDL':>9} {'sweep/LTDL':>11}   µs per sample")
    ratios = []
    for n in sizes:
        robot, p = chain(n)
        q, pm = rng.uniform(-1, 1, (S, n)), rng.uniform(-1, 1, (S, n))
        tree = Tree(robot, LinkParameters(robot, p), q)
        times = {"sweep": [], "ltdl": []}
        for _ in range(repeat):                              # interleaved, so drifts hit both
            for name, solver in (("sweep", momenta.sweep), ("ltdl", momenta.ltdl)):
                t = time.perf_counter()
                solver(tree, pm)
                times[name].append(time.perf_counter() - t)
        a, b = min(times["sweep"]) / S, min(times["ltdl"]) / S
        ratios.append(a / b)
        print(f"  {n:>3} {a * 1e6:9.2f} {b * 1e6:9.2f} {a / b:11.2f}")
    print(f"  sweep/LTDL: {min(ratios):.2f}–{max(ratios):.2f} (Ivanov reports 1.3–1.4 for his implementation)")


def main():
    print(scope_line(SCOPE))
    quick = "--quick" in sys.argv
    n_samples, repeat = (20_000, 2) if quick else (100_000, 5)
    robot = bp.load_robot(ROOT / "robots" / "kuka_iiwa14.yaml")
    from random_bodies import random_parameters                # physically valid random bodies
    p = random_parameters(robot, "pseudo", np.random.default_rng(0))[0]
    print(f"{'(quick run) ' if quick else ''}times: best of {repeat}")
    batch(robot, p, n_samples, repeat)
    one_sample(robot, p, repeat)
    simulation(robot, p, 1 if quick else 3)
    sizes = [5, 10, 20, 30, 40, 50]
    linearity(sizes, 2 if quick else 5)
    ivanov(sizes, 3 if quick else 7)


if __name__ == "__main__":
    main()
