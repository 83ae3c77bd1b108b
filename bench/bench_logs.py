"""Reading a ROS 2 MCAP log of a 7-DOF arm: 10⁶ JointState messages (written by baseparam,
zstd chunks as ROS 2 records them) through `bp.read_trajectory`, beside iterating the same file
with the `mcap` package alone (`make_reader(...).iter_messages()`, no decoding at all).

Target (issue 23): read ≤ 2 s and ≤ 1.5× the `mcap` iteration, in one run. The messages hold
position, velocity and effort (what a driver publishes) and all three are decoded; the read keeps q
and τ (``columns={"qd": None}``): t, q, q̇ and τ of 10⁶ samples are 2.2·10⁷ values, beyond the
2·10⁷ a single in-memory trajectory may hold (docs/formats.md, "Size limits"). Each timing is the
best of ``--repeat`` runs (default 3) after one warm-up; the file is written once, outside the
timings.

    python bench/bench_logs.py [--messages 1000000] [--repeat 3]
"""
import argparse
import pathlib
import tempfile
import time

import numpy as np

import baseparam as bp
from _scope import scope_line  # bench/ is on the path: the script's folder

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = ([], "reading a log does not depend on the robot: a synthetic 7-joint JointState log is read by name")

NAMES = [f"iiwa_joint_{k}" for k in range(1, 8)]


def log(path, messages):
    """A 1 kHz log of a 7-DOF arm (Fourier motion, torques of any shape), written as MCAP."""
    t = np.arange(messages) * 1e-3
    w = 2 * np.pi * 0.1 * np.arange(1, 8)
    q = np.sin(np.outer(t, w))
    qd = w * np.cos(np.outer(t, w))
    tau = 10 * np.cos(np.outer(t, w) + 0.3)
    traj = bp.Trajectory(t, q, tau, qd, source="bench")
    bp.write_trajectory(traj, path, joint_names=NAMES)
    return traj


def best(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def iterate_with_mcap(path):
    from mcap.reader import make_reader
    count = 0
    with open(path, "rb") as stream:
        for _ in make_reader(stream).iter_messages():
            count += 1
    return count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(scope_line(SCOPE))
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "arm.mcap"
        start = time.perf_counter()
        traj = log(path, args.messages)
        written = time.perf_counter() - start
        print(f"wrote {args.messages} JointState messages (7 joints) in {written:.1f} s: "
              f"{path.stat().st_size / 1e6:.1f} MB")
        t_mcap, count = best(lambda: iterate_with_mcap(path), args.repeat)
        t_read, back = best(lambda: bp.read_trajectory(path, joints=NAMES, columns={"qd": None}), args.repeat)
        assert count == args.messages and back.n_samples == args.messages
        assert np.array_equal(back.q, traj.q) and np.array_equal(back.tau, traj.tau) and np.array_equal(back.t, traj.t)
        print(f"mcap iter_messages (no decoding)   {t_mcap:7.3f} s")
        print(f"bp.read_trajectory (decoded, checked) {t_read:7.3f} s   target ≤ 2 s: "
              f"{'met' if t_read <= 2 else 'NOT met'}")
        print(f"ratio read / mcap iteration        {t_read / t_mcap:7.2f}     target ≤ 1.5: "
              f"{'met' if t_read <= 1.5 * t_mcap else 'NOT met'}")


if __name__ == "__main__":
    main()
