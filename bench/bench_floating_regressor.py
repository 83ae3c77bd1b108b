"""Speed of the floating-base regressor (issue 27: the 6 + n rows, base wrench and joint torques) against
pinocchio's ``computeJointTorqueRegressor`` with a free-flyer root, looped over the same samples, in one run.

The space robot of robots/ (gravity turned on) and, when example-robot-data is installed, solo12 (a
quadruped, 12 joints) and talos_reduced (a humanoid, 32 joints; 1 000 samples: its full regressor of 10 000
samples would be 1 GB) loaded with a floating root. Our time is the best of several calls after a warm-up
call (printed apart: it builds the graph and compiles its C loop, once per robot); pinocchio's is its loop
over the samples, best of three. Both give every standard column (ours also the base body's, link 0).

    python bench/bench_floating_regressor.py
    python bench/bench_floating_regressor.py --quick     # 1 000 samples
"""
import dataclasses
import importlib.metadata
import pathlib
import re
import sys
import time
import warnings

import numpy as np

import baseparam as bp
from baseparam.dynamics import _native_rule

ROOT = pathlib.Path(__file__).resolve().parent.parent

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

SCOPE = (["space_robot.yaml"], "the only floating-base description there; the fixed-base regressors are "
                               "bench_dynamics.py's (solo12 and talos_reduced come from example-robot-data)")


def example_urdf(name):
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    found = [f.locate() for f in files if f.name == name]
    return found[0] if found else None


def floating(path):
    """Our robot (a floating joint added above base_link) and pinocchio's model with a free-flyer."""
    import pinocchio as pin
    text = open(path, encoding="utf-8").read()
    head = re.search(r"<robot[^>]*>", text)
    free = ('<link name="world_free"/><joint name="free" type="floating"><parent link="world_free"/>'
            '<child link="base_link"/></joint>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.parse_robot(text[:head.end()] + free + text[head.end():], pathlib.Path(path).name)
    return robot, pin.buildModelFromXML(text, pin.JointModelFreeFlyer())


def space():
    import pinocchio as pin
    sys.path.insert(0, str(ROOT / "tests"))
    from pin_model import build_model
    robot = dataclasses.replace(bp.load_robot(ROOT / "robots" / "space_robot.yaml"), gravity=(0.0, 0.0, -9.81))
    return robot, build_model(robot, [pin.Inertia.Random() for _ in robot.joints], pin.Inertia.Random())[0]


def states(robot, n, rng):
    quat = rng.normal(size=(n, 4))
    quat /= np.linalg.norm(quat, axis=1)[:, None]
    q = np.c_[rng.uniform(-1, 1, (n, 3)), quat, rng.uniform(-np.pi, np.pi, (n, robot.n_dof))]
    return q, rng.normal(size=(n, robot.n_v)), rng.normal(size=(n, robot.n_v))


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    quick = "--quick" in sys.argv
    print(scope_line(SCOPE))
    try:
        import pinocchio as pin
    except ImportError:
        print("pinocchio is not installed: nothing to compare with")
        return
    cases = [("space robot (6 joints, gravity on)", space, 10_000)]
    for name, label, samples in (("solo12.urdf", "solo12 (12 joints)", 10_000),
                                 ("talos_reduced.urdf", "talos_reduced (32 joints)", 1_000)):
        path = example_urdf(name)
        if path is None:
            print(f"{label}: skipped, example-robot-data has no {name} here")
        else:
            cases.append((label, lambda path=path: floating(path), samples))
    print(f"ours: bp.regressor as called (numpy blocks below {_native_rule.NATIVE_SAMPLES} samples, the C loop "
          "from there); C loop: forced at any size")
    print("base W_b: the floating base set's regressor (find_base_parameters), against the same pinocchio loop")
    print(f"{'robot':<36} {'samples':>7} {'warm-up':>9} {'ours':>9} {'C loop':>9} {'pinocchio':>10} {'ratio':>6} "
          f"{'base W_b':>9} {'ratio':>6}")
    for label, make, samples in cases:
        samples = min(samples, 1_000) if quick else samples
        robot, model = make()
        data = model.createData()
        q, qd, qdd = states(robot, samples, np.random.default_rng(0))
        m = bp.Model(robot)
        t = time.perf_counter()
        W = bp.regressor(m, q, qd, qdd)
        warm = time.perf_counter() - t
        ours = best(lambda: bp.regressor(m, q, qd, qdd), 2 if quick else 5)
        threshold, _native_rule.NATIVE_SAMPLES = _native_rule.NATIVE_SAMPLES, 0     # the C loop at any size
        try:
            bp.regressor(m, q[:1], qd[:1], qdd[:1])                              # its compile, not timed
            native = best(lambda: bp.regressor(m, q, qd, qdd), 2 if quick else 5)
        finally:
            _native_rule.NATIVE_SAMPLES = threshold
        # pinocchio's joint order may differ from ours (its depth-first numbering): the same states all the same,
        # read in its own q layout (the timing does not depend on which angle goes where)
        qs, vs, as_ = (np.ascontiguousarray(x) for x in (q, qd, qdd))

        def loop():
            for s in range(samples):
                pin.computeJointTorqueRegressor(model, data, qs[s], vs[s], as_[s])
        theirs = best(loop, 1 if quick else 3)
        del W
        base = bp.find_base_parameters(robot)
        base.regressor(q, qd, qdd)                                                # warm-up: its code
        reduced = best(lambda: base.regressor(q, qd, qdd), 2 if quick else 5)
        print(f"{label:<36} {samples:>7} {warm:>8.3f}s {ours:>8.4f}s {native:>8.4f}s {theirs:>9.4f}s "
              f"{theirs / min(ours, native):>5.1f}x {reduced:>8.4f}s {theirs / reduced:>5.1f}x"
              f"   ({robot.n_v} rows, {bp.ColumnLayout(robot).n_standard} standard "
              f"columns, {base.rank} base)")


if __name__ == "__main__":
    main()
