"""Issue 25's open cases (``bench_payload.cases``: ten payloads each, fitted) on a saved design and on the bench's
inertia design it started from (``bench/payload_warm_probe.py`` saves both).

``python bench/payload_cases_probe.py ROBOT FILE.npz [MASS …]``

The bound in the verdict is the bench's any-motion bound as its last run printed it (5.9e-5 kg·m² LWR4+, 1.4e-4
UR10e: ``bench_payload.py``'s docstring), not recomputed here.
"""
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

from baseparam.excitation.fourier import FourierSeries  # noqa: E402
from bench_payload import SCOPE, CASE_HEADER, CASES, cases  # noqa: E402
from payload_direct_probe import RATES  # noqa: E402
from payload_warm_probe import unpacked  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _scope import scope_line  # noqa: E402

BOUNDS = {"kuka_lwr4": 5.9e-5, "ur10e": 1.4e-4}


def motion(series, dt, duration=20.0):
    samples = series.sample(1.0 / dt)
    n = int(round(duration / dt))
    reps = -(-n // (len(samples.q) - 1))
    q, qd, qdd = (np.tile(a[:-1], (reps, 1))[:n] for a in (samples.q, samples.qd, samples.qdd))
    return np.arange(n) * dt, q, qd, qdd


def main():
    print(scope_line(SCOPE))
    name, path = sys.argv[1], sys.argv[2]
    masses = [float(m) for m in sys.argv[3:]] or CASES[name]
    dt = RATES[name]
    noise = lwr4_noise()[0] if name == "kuka_lwr4" else ur_noise()[0]
    saved = np.load(path)
    new = FourierSeries(float(saved["period"]), saved["q0"], saved["a"], saved["b"])
    old = unpacked(saved["base"], len(saved["q0"]))
    print(CASE_HEADER, flush=True)
    for m in masses:
        for label, series in (("inertia", old), ("new", new)):
            cases(name, dt, noise, motion(series, dt), BOUNDS[name], m, label)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
