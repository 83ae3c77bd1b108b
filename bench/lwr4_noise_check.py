"""Is the LWR4+ torque "noise" of ``bench_payload.py`` the motion's own non-repeatability? No: the model does not
explain it.

``python bench/lwr4_noise_check.py``

``notebooks/_helpers.lwr4_noise`` takes half the difference of ``measurements_1`` and ``_2`` (one trajectory run
twice, lined up to the sub-sample by the positions) as the noise a fit sees. If that difference came from the two
runs' different motions, a fit using each run's own measured q would explain it and the bench's noise would be
overstated. Here the description's inverse dynamics (``robots/kuka_lwr4.yaml``) of each run's own logged
positions, velocities and accelerations predicts the torque difference the motions cause; printed per band, as
``lwr4_noise`` expresses it (white noise at 200 Hz of the band's spectral density): the measured difference, the
predicted one and what is left.

Measured (2026-11-27): the positions differ by 0.05–0.11 mrad RMS; at 0.1–0.6 Hz (the designs' band) the predicted
difference is 0.000–0.017 N·m against 0.11–1.79 measured, the residual equal to the measured to the third digit;
at 0.6–2 Hz 0.001–0.093 against 0.036–0.74. So the bench's LWR4+ noise is torque the model cannot explain from
the motion, as noise is (not the motion's non-repeatability, as ``bench_payload.py``'s docstring reads it). It is
coloured: 1.17–0.11 N·m (as white at 200 Hz) at 0.1–0.6 Hz, 0.74–0.04 at 0.6–1.2 Hz, 0.10–0.008 at 2–3 Hz, ~0.001
at 3–8 Hz; the bench's white model at the 0.1–0.6 Hz level is the conservative reading for motions whose
information lies higher (not used to claim anything: the logs are published low-passed, and what the drop above
2 Hz owes to that filter these logs cannot tell).

Can a fit weight by that colour (a per-band / coloured-noise WLS) and a design put its information at 2–3 Hz, where
the difference is 10–15× lower? Only if the noise is stationary, the same whatever the motion. It is not: it is
made by the motion. Band-passed (0.1–8 Hz, and 0.6–1.2 and 1.2–3 Hz alone, where the motion itself has 1e-4 of its
torque's power) its RMS grows with the joint's speed (``by_speed``; 2026-11-27, s12): joint 1 0.072 → 0.127 N·m from
|q̇| < 0.1 to 0.25–0.5 rad/s, joint 4 0.048 → 0.120, joint 6 0.019 → 0.026–0.028, joint 7 0.006 → 0.011 (6 of 7
joints; at 0.6–3 Hz alone joint 1 0.028–0.038 → 0.079, joint 4 0.026 → 0.079, joint 6 0.006 → 0.018–0.021); a linear
fit of the squared difference on |q̇|, carried to issue 25's 1.9 rad/s (the log's motion peaks at 0.5–0.9 rad/s), gives
1.6–2.4× the log's RMS on joints 1, 3, 4, 6, 7. The UR10e's noise (above 10 Hz of its unloaded log, one run: no
repeat to difference) grows with speed on the wrist too: joint 4 0.14 → 0.23–0.25 N·m, joint 5 0.19 → 0.30–0.33
from |q̇| < 0.1 to 0.5–1 rad/s, joint 6 flat (``by_speed`` of ``ur_noise``'s signal). So the low level at 2–3 Hz
belongs to this motion, which hardly moves there; a motion moving there would raise it, and a stationary colour
taken from one motion cannot weight a fit of another. Not used: no coloured-noise estimator, the bench's white
model kept — which, for designs at 1.9 rad/s, may understate the noise (not proven: an extrapolation).
"""
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from _helpers import LWR4_REPEATS, lwr4_repeats, robot_values, white_in_band  # noqa: E402
from _scope import scope_line  # noqa: E402

SCOPE = (["kuka_lwr4.yaml"], "the LWR4+ is the robot whose logs repeat one trajectory (measurements_1 and _2)")


def main():
    print(scope_line(SCOPE))
    if not all(f.is_file() for f in LWR4_REPEATS):
        print("the LWR4+ logs are absent (../shared/data/kuka_lwr4)")
        return
    a, inside, of_b = lwr4_repeats()
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    model = bp.Model(robot, robot_values(robot), parameters="pseudo")
    keys = ("positions", "velocities", "accelerations")
    predicted = (bp.inverse_dynamics(model, *(a[k][inside] for k in keys)) -
                 bp.inverse_dynamics(model, *(of_b(k) for k in keys)))
    measured = a["torques"][inside] - of_b("torques")
    print("positions' RMS difference per joint (mrad):",
          np.round(1e3 * np.std(a["positions"][inside] - of_b("positions"), axis=0), 3).tolist())
    for band in ((0.1, 0.6), (0.6, 1.2), (1.2, 2.0), (2.0, 3.0), (3.0, 8.0)):
        for label, x in (("measured", measured), ("predicted", predicted), ("residual", measured - predicted)):
            print(f"{band[0]:g}–{band[1]:g} Hz {label:9s} (N·m, as white at 200 Hz): "
                  f"{np.round(white_in_band(x / np.sqrt(2), band), 3).tolist()}")
    from scipy.signal import butter, sosfiltfilt
    for band in ((0.1, 8.0), (0.6, 3.0)):
        sos = butter(4, [band[0] / 100.0, band[1] / 100.0], btype="band", output="sos")
        print(f"LWR4+ repeat difference / √2 at {band[0]:g}–{band[1]:g} Hz, RMS (N·m) by the joint's |q̇| (rad/s):")
        by_speed(sosfiltfilt(sos, measured / np.sqrt(2), axis=0), a["velocities"][inside])
    print("UR10e torque above 10 Hz (bench_payload's noise), RMS (N·m) by the joint's |q̇| (rad/s):")
    by_speed(*ur_high_band())


def by_speed(x, qd, edges=(0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5)):
    """Print, per joint, the RMS of ``x`` (S, n) over the samples whose |qd| (S, n) falls in each bin of ``edges``
    (rad/s; the share of samples in brackets, bins of fewer than 50 samples left out), and a linear fit of x² on |q̇|
    carried to 1.9 rad/s as a multiple of the RMS over all samples."""
    for j in range(x.shape[1]):
        v = np.abs(qd[:, j])
        cells = []
        for lo, hi in zip(edges[:-1], edges[1:]):
            inside = (v >= lo) & (v < hi)
            cells.append(f"{lo:g}–{hi:g}: {np.sqrt(np.mean(x[inside, j] ** 2)):.3f} ({inside.mean():.0%})"
                         if inside.sum() >= 50 else "")
        c = np.linalg.lstsq(np.c_[np.ones_like(v), v], x[:, j] ** 2, rcond=None)[0]
        at_limit = np.sqrt(max(c[0] + 1.9 * c[1], 0.0) / np.mean(x[:, j] ** 2))
        print(f"  joint {j + 1}: " + "; ".join(c for c in cells if c) + f"; at 1.9 rad/s ×{at_limit:.2f}")


def ur_high_band(path=None):
    """A UR10e log's torque above 10 Hz (as ``_helpers.ur_noise`` takes its σ) and its velocities, on a uniform
    100 Hz grid: (x, qd), shape (S, 6) each. ``path``: a CSV of the UR10e's layout, default the unloaded log
    ``ur_noise`` reads."""
    from scipy.signal import butter, filtfilt
    from _helpers import UR_NOISE_LOG, UR_PUBLISHED_GAINS
    traj = bp.read_trajectory(path or UR_NOISE_LOG, columns="t=0,q=1:7,qd=7:13,current=13:19",
                              gains=UR_PUBLISHED_GAINS)
    dt = float(np.median(np.diff(traj.t)))
    t = np.arange(traj.t[0], traj.t[-1], dt)
    tau, qd = (np.column_stack([np.interp(t, traj.t, v[:, j]) for j in range(6)]) for v in (traj.tau, traj.qd))
    b, a = butter(4, 10.0 / (0.5 / dt))
    return tau - filtfilt(b, a, tau, axis=0), qd


if __name__ == "__main__":
    main()
