"""How much of the bound's best state a periodic motion can keep, at the best configuration itself.

``python bench/payload_waveform_probe.py ROBOT [STARTS]``

``state_bound`` lets every sample sit at the best state for an element e of the inertia: a configuration q* with every
joint at |q̇_j| = v and |q̈_j| = a, the signs chosen for e. A motion cannot stay there. Here the configuration is held
at q* (optimistic for the motion: it ignores that the joints must move away from q* to have speed) and each joint
follows one periodic waveform of one common frequency, its phase free (and its sign), scaled to both limits:

    sine        q̇_j = v cos(ωt + φ_j), q̈_j = −a sin(ωt + φ_j), ω = a/v (0.42 Hz here): E[(q̇/v)²] = E[(q̈/a)²] = 1/2
    bang-bang   q̈_j = ±a (a square wave), q̇_j a triangle of ±v: E[(q̈/a)²] = 1, E[(q̇/v)²] = 1/3
    dither      the best vertex's q̇ held, q̈ switching fast between the vertex's and its negative (not a
                band-limited motion: |q̇| stays near v only if q̈ switches far faster than the designs' 1.2 Hz):
                the mean of f_e at the two, the information's cross term between q̈ and the speeds' products lost

The mean of f_e over one period, maximized over the phases (``STARTS`` random starts, Nelder–Mead), against f_e(q*, the
best vertex): the share of the bound's information such a waveform keeps, as a factor on σ (√ of its inverse).
The designs lose 2.6–3.4× on σ to this (``payload_gap_probe.py``'s alone/speeds column).
"""
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from bench_payload import SCOPE, box_payload, limits_of  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _payload_bound import _ascent, _state_information  # noqa: E402
from _scope import scope_line  # noqa: E402

GRID = 64                     # samples of one period


def waveforms(kind, phases):
    """q̇/v and q̈/a over one period, shape (GRID, n), for each joint's phase (a fraction of the period)."""
    t = (np.arange(GRID) / GRID)[:, None] + phases[None, :]
    if kind == "sine":
        return np.cos(2 * np.pi * t), -np.sin(2 * np.pi * t)
    u = np.mod(t, 1.0)               # bang-bang: q̈ = +1 on the first half, −1 on the second; q̇ a triangle
    return np.where(u < 0.5, -1 + 4 * u, 3 - 4 * u), np.where(u < 0.5, 1.0, -1.0)


def main():
    from scipy.optimize import minimize
    print(scope_line(SCOPE))
    name = sys.argv[1]
    starts = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    noise = lwr4_noise()[0] if name == "kuka_lwr4" else ur_noise()[0]
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    n = robot.n_dof
    lo, hi, vel, acc = limits_of(robot)[1]
    info = _state_information(robot, noise, box_payload(1.0, np.random.default_rng(0)))
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.uniform(lo, hi, (5000, n)), rng.choice([-1.0, 1.0], (5000, n)) * vel,
                        rng.choice([-1.0, 1.0], (5000, n)) * acc], axis=1)
    f = info(X)
    box = [(a, b) for a, b in zip(lo, hi)] + [(-v, v) for v in vel] + [(-a, a) for a in acc]
    labels = [f"I{'xyz'[a]}{'xyz'[b]}" for a, b in zip(*np.triu_indices(3))]
    print(f"{name}: per element, the best state's f_e and the share of it one period of each waveform keeps at that "
          "configuration (phases and signs per joint optimized), as a factor on σ")
    for e, label in enumerate(labels):
        scale = f[:, e].max()
        best = max((_ascent(lambda x: info(x)[:, e] / scale, X[s], box) for s in np.argsort(f[:, e])[-4:]),
                   key=lambda x: info(x[None])[0, e])
        peak = info(best[None])[0, e]
        q = best[:n]
        row = []
        for kind in ("sine", "bang-bang"):
            def mean_f(phases, kind=kind):
                qd, qdd = waveforms(kind, phases)
                x = np.concatenate([np.tile(q, (GRID, 1)), qd * vel, qdd * acc], axis=1)
                return info(x)[:, e].mean()
            top = 0.0
            for _ in range(starts):
                r = minimize(lambda p: -mean_f(p) / peak, rng.uniform(0, 1, n), method="Nelder-Mead",
                             options={"maxiter": 400 * n, "xatol": 1e-4, "fatol": 1e-6})
                top = max(top, -r.fun)
            row.append(top)
        flipped = best.copy()
        flipped[2 * n:] *= -1
        row.append(0.5 * (peak + info(flipped[None])[0, e]) / peak)
        print(f"  {label}: f_e {peak:.3e}; sine {np.sqrt(1 / row[0]):.2f}×, bang-bang {np.sqrt(1 / row[1]):.2f}×, "
              f"dither {np.sqrt(1 / row[2]):.2f}× (kept {row[0]:.2f}, {row[1]:.2f}, {row[2]:.2f} of it)", flush=True)


if __name__ == "__main__":
    main()
