"""Speed of the dynamics layer (issues: base regressor of a 7-DOF arm for 100 000 samples ≤ 0.05 s and
≥ 6× faster than pinocchio's loop over samples, inverse dynamics for 100 000 samples ≤ 0.3 s), side by
side with pinocchio when it is installed.

Times are in-process, best (and median) of several runs after one warm-up call (pinocchio's loops
too). The warm-up call is printed separately: it builds and compiles the robot's regressor code (tens
of ms, independent of the number of samples) and, in a fresh process, pays this virtual machine's
first touch of the output memory. The base regressor is also timed into a reused buffer (``out=``: no
fresh memory to fault in) and on one thread (``workers=1``; by default the C loop's samples are
shared by one thread per usable core).

    python bench/bench_dynamics.py             # 100 000 samples
    python bench/bench_dynamics.py --quick     # 10 000 samples, fewer repeats
"""
import pathlib
import sys
import time

import numpy as np

import baseparam as bp
from baseparam._validation import usable_cores
from baseparam.dynamics import _compiled as compiled, _native_rule

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

MIN_RATIO = 6          # the base regressor: at least this many times faster than pinocchio's loop
ROBOTS = [("KUKA iiwa 7-DOF", "kuka_iiwa14.yaml"), ("Franka Panda 7-DOF (modified)", "panda.yaml"),
          ("PUMA 560", "puma560.yaml")]


from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["kuka_iiwa14.yaml", "panda.yaml", "puma560.yaml"],
         "the issue's targets are for 7-DOF arms (beside pinocchio) and the PUMA; the others time alike "
         "per joint")


def best_of(fn, repeat):
    return best_and_median(fn, repeat)[0]


def best_and_median(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), sorted(times)[len(times) // 2]


def numpy_blocks(fn, *args):
    """``fn(*args)`` with the regressors' C loop over samples turned off: what the numpy blocks cost
    (small batches, and every batch without a C compiler)."""
    saved = _native_rule.NATIVE_SAMPLES, _native_rule.COMPILE_AFTER
    _native_rule.NATIVE_SAMPLES = _native_rule.COMPILE_AFTER = sys.maxsize
    try:
        return fn(*args)
    finally:
        _native_rule.NATIVE_SAMPLES, _native_rule.COMPILE_AFTER = saved


def pinocchio_loop(robot, q, qd, qdd):
    """Per-sample pinocchio calls from Python, as users of the field's usual pipeline do."""
    try:
        import pinocchio as pin
        from pin_model import build_model
    except ImportError:
        return None
    model, _ = build_model(robot, [pin.Inertia.Random() for _ in robot.joints])
    data = model.createData()

    def regressor():
        for i in range(q.shape[0]):
            pin.computeJointTorqueRegressor(model, data, q[i], qd[i], qdd[i])

    def rnea():
        for i in range(q.shape[0]):
            pin.rnea(model, data, q[i], qd[i], qdd[i])
    return regressor, rnea


def main():
    print(scope_line(SCOPE))
    quick = "--quick" in sys.argv
    n_samples, repeat = (10_000, 2) if quick else (100_000, 7)
    rng = np.random.default_rng(0)
    scale = 100_000 / n_samples
    print(f"{n_samples} samples (times scaled to 100 000); best and median of {repeat}; {usable_cores()} usable cores")
    print(f"{'robot':<30} {'what':<34} {'best':>9} {'median':>9} {'target':>8}  pinocchio (Python loop): best, ratio")
    ok = True
    for label, file in ROBOTS:
        robot = bp.load_robot(ROOT / "robots" / file)
        base = bp.find_base_parameters(robot)
        n = robot.n_dof
        q, qd, qdd = (rng.uniform(-2, 2, (n_samples, n)) for _ in range(3))
        p = rng.normal(size=len(base.standard_names))
        model = bp.Model(robot, p)
        pb = base.from_standard(p)
        t = time.perf_counter()
        compiled.regressor_function(robot, base.parameters, base.pivots, "regressor")
        build = time.perf_counter() - t
        t = time.perf_counter()
        base.regressor(q, qd, qdd)
        first = time.perf_counter() - t
        pin_fns = pinocchio_loop(robot, q, qd, qdd) if n == 7 else None
        pin_times = [best_of(f, repeat) * scale for f in pin_fns] if pin_fns else [None, None]
        buffer = np.empty((n_samples, n, base.rank))
        rows = [
            (f"base regressor ({base.rank} columns)", lambda: base.regressor(q, qd, qdd), 0.05 if n == 7 else None,
             pin_times[0]),
            ("  the same into a reused out=", lambda: base.regressor(q, qd, qdd, out=buffer), None, pin_times[0]),
            ("  the same on one thread", lambda: base.regressor(q, qd, qdd, workers=1), None, pin_times[0]),
            ("  the same by numpy blocks (no C)", lambda: numpy_blocks(base.regressor, q, qd, qdd), None, None),
            ("full regressor", lambda: bp.regressor(model, q, qd, qdd), None, None),
            ("Slotine–Li base regressor", lambda: base.slotine_li_regressor(q, qd, qd, qdd), None, None),
            ("inverse dynamics (Newton–Euler)", lambda: bp.inverse_dynamics(model, q, qd, qdd), 0.3,
             pin_times[1]),
            ("inverse dynamics W_b p̃", lambda: bp.inverse_dynamics(base.model(pb), q, qd, qdd), None, None),
            ("mass matrix", lambda: bp.mass_matrix(model, q), None, None),
            ("gravity torque", lambda: bp.gravity_torque(model, q), None, None),
            ("potential energy", lambda: bp.potential_energy(model, q), None, None),
        ]
        for k, (what, fn, target, pin_t) in enumerate(rows):
            t, median = (x * scale for x in best_and_median(fn, repeat))
            slow = target is not None and t > target
            if k == 0 and pin_t is not None and pin_t < MIN_RATIO * t:
                slow = True                         # the base regressor: also ≥ MIN_RATIO × pinocchio's loop
            flag = "" if target is None else ("SLOW" if slow else "ok")
            ok &= not slow
            pin_s = "" if pin_t is None else f"{pin_t:.3f} s  {pin_t / t:5.1f}×"
            tgt = "" if target is None else f"≤ {target}"
            print(f"{label:<30} {what:<34} {t:8.3f}s {median:8.3f}s {tgt:>8} {flag:>4}  {pin_s}")
        print(f"{label:<30} {'  build + compile (once per robot)':<34} {build:8.3f}s")
        print(f"{label:<30} {'  first call (after the build)':<34} {first * scale:8.3f}s  (fresh output memory)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
