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


if __name__ == "__main__":
    main()
