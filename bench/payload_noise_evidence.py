"""Is the UR10e logs' torque noise speed-dependent, and is it noise or unmodelled dynamics? (issue 25, s12)

``python bench/payload_noise_evidence.py [DRAWS]``

Per log of ../shared/data/ur10e/identification_data (three unloaded, the 14harm loaded one; the 15harm loaded log
has rows whose time goes backwards) and joint: the RMS of the torque above 10 Hz (``lwr4_noise_check.ur_high_band``,
as ``bench_payload``'s σ is taken) at rest (|q̇| < 0.1 rad/s) and in the fastest bin with ≥ 300 samples, and their
ratio with a 95 % block-bootstrap interval (1 s blocks, DRAWS draws, default 200). Then the identification model
with friction (viscous, Coulomb, offset per joint, rotor inertia: ``robots/ur10e.yaml``), OLS on each log (default
preprocessing), its residual τ − τ̂ on the raw samples by speed bin, below 5 Hz (what the fit's low-pass keeps) and
above 10 Hz. Last, the repeat test: the unloaded 14harm log and the loaded one follow one motion; lined up by the
positions, half the difference of their high bands is what the two runs do not share — noise — while a torque that
is a function of the state (ripple, friction, what the model misses) repeats and cancels.

Measured (2026-11-27 s12, 200 draws). Wrist joints 4 and 5: the ratio is above 1 in every log, its interval too — j4
×1.63 [1.34, 1.88], ×1.82 [1.42, 2.11], ×1.99 [1.57, 2.54], loaded ×2.17 [1.57, 2.80]; j5 ×1.75 [1.43, 2.04], ×1.75
[1.45, 2.04], ×1.62 [1.11, 2.43], loaded ×1.65 [1.31, 2.06]. Joint 6 ×0.93–1.24, every interval holding 1; the
shoulder scattered: j1 ×1.11–2.22 (above 1 on one log of four), j2 ×0.50–1.11 (none), j3 ×0.92–2.46 (two). The
friction fit's residual below 5 Hz is largest at rest (stiction and reversals: 0.9–1.6 N·m on the wrist) and does
not grow with speed once moving (j4 0.19–0.33, j5 0.18–0.43 N·m, flat or falling bin to bin): what the friction
terms can absorb they do, and it is not the growth above 10 Hz (τ̂ has next to nothing there: the residual's high
band is the log's to the third digit). Speed or current (``speed_or_torque``): b's interval is above 0 in 7 of 8
wrist fits, c's in 1 of 8 (j5 of the 50 s 12harm log). The repeat: the two runs' high bands correlate 0.24–0.60 (a
shared, state-bound part, largest on the shoulder), but the unshared half-difference grows with speed on the wrist
as the log does — j4 0.134 → 0.284 N·m (×2.12 [1.37, 2.69]), j5 0.165 → 0.33 (×2.00 [1.45, 2.55]); j1–j3 and j6
×0.68–1.18, intervals holding 1. So the growth on joints 4–5 is noise (the same motion does not repeat it), not
unmodelled dynamics; on the other joints no speed-dependence is shown. LWR4+ (``lwr4``: the repeat difference,
unshared by construction): j1 ×1.78 [1.28, 2.86], j3 ×1.90 [1.33, 2.64], j4 ×2.48 [1.71, 6.39], j7 ×1.87 [1.07,
6.01] grow; j2 ×1.34 [0.90, 1.80] and j6 ×1.39 [0.89, 2.80] not shown; j5 ×0.69 [0.44, 1.07].
"""
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from _helpers import UR_NOISE_LOG, UR_PUBLISHED_GAINS  # noqa: E402
from _scope import scope_line  # noqa: E402
from lwr4_noise_check import ur_high_band  # noqa: E402

SCOPE = (["ur10e.yaml", "kuka_lwr4.yaml"], "the two robots with real logs in ../shared/data whose noise "
                                           "bench_payload copies")

EDGES = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5)
LOGS = ("ur-20_02_19_14harm50sec.csv", "ur-20_02_12-50sec_12harm.csv", "ur-20_02_12-40sec_12harm.csv",
        "ur-20_02_19_14harm50secLoad.csv")   # the 15harm loaded log has rows whose time goes backwards
COLUMNS = "t=0,q=1:7,qd=7:13,current=13:19"


def rms_by_bin(x, v, least=300):
    """RMS of x (S,) per |q̇| bin of EDGES, NaN below ``least`` samples: shape (B,)."""
    out = np.full(len(EDGES) - 1, np.nan)
    for k, (lo, hi) in enumerate(zip(EDGES[:-1], EDGES[1:])):
        inside = (v >= lo) & (v < hi)
        if inside.sum() >= least:
            out[k] = np.sqrt(np.mean(x[inside] ** 2))
    return out


def ratio_ci(x, v, draws, rng, block=100):
    """Fastest measured bin / rest bin of x's RMS, with the 2.5–97.5 % block bootstrap interval."""
    table = rms_by_bin(x, v)
    top = int(np.flatnonzero(np.isfinite(table))[-1])
    ratios = []
    for _ in range(draws):
        rows = (rng.integers(0, len(x) - block, len(x) // block)[:, None] + np.arange(block)).ravel()
        inside = [(v[rows] >= EDGES[k]) & (v[rows] < EDGES[k + 1]) for k in (0, top)]
        if min(m.sum() for m in inside) < 30:
            continue
        r = [np.sqrt(np.mean(x[rows][m] ** 2)) for m in inside]
        ratios.append(r[1] / r[0])
    return table, top, table[top] / table[0], np.percentile(ratios, [2.5, 97.5])


def uniform(traj, dt):
    t = np.arange(traj.t[0], traj.t[-1], dt)
    return t, [np.column_stack([np.interp(t, traj.t, a[:, j]) for j in range(6)]) for a in (traj.q, traj.qd, traj.tau)]


def main():
    from scipy.signal import butter, filtfilt
    print(scope_line(SCOPE))
    draws = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rng = np.random.default_rng(0)
    folder = UR_NOISE_LOG.parent
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    print("torque above 10 Hz, RMS (N·m): rest (|q̇|<0.1) → fastest bin with ≥300 samples, ratio [95 % block bootstrap]")
    for name in LOGS:
        x, qd = ur_high_band(folder / name)
        cells = []
        for j in range(6):
            table, top, r, ci = ratio_ci(x[:, j], np.abs(qd[:, j]), draws, rng)
            cells.append(f"j{j + 1} {table[0]:.3f}→{table[top]:.3f} ({EDGES[top]:g}–{EDGES[top + 1]:g}) "
                         f"×{r:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]")
        print(f"{name}:\n  " + "\n  ".join(cells))
    print("\nOLS with friction per log; residual τ − τ̂ RMS (N·m) by |q̇| bin "
          f"{', '.join(f'{a:g}–{b:g}' for a, b in zip(EDGES[:-1], EDGES[1:]))} (≥300 samples)")
    for name in LOGS:
        traj = bp.read_trajectory(folder / name, columns=COLUMNS, gains=UR_PUBLISHED_GAINS)
        fit = bp.identify(robot, traj)
        dt = float(np.median(np.diff(traj.t)))
        res = traj.tau - fit.estimator.predict(traj)
        t = np.arange(traj.t[0], traj.t[-1], dt)
        ok = np.isfinite(res).all(axis=1)
        res = np.column_stack([np.interp(t, traj.t[ok], res[ok, j]) for j in range(6)])
        qd = np.column_stack([np.interp(t, traj.t, traj.qd[:, j]) for j in range(6)])
        low = filtfilt(*butter(4, 5.0 / (0.5 / dt)), res, axis=0)
        high = res - filtfilt(*butter(4, 10.0 / (0.5 / dt)), res, axis=0)
        print(f"{name}:")
        for j in range(6):
            v = np.abs(qd[:, j])
            print(f"  j{j + 1} below 5 Hz {np.round(rms_by_bin(low[:, j], v), 3).tolist()}  "
                  f"above 10 Hz {np.round(rms_by_bin(high[:, j], v), 3).tolist()}")
    # the repeat: unloaded and loaded 14harm, one motion
    a = bp.read_trajectory(folder / LOGS[0], columns=COLUMNS, gains=UR_PUBLISHED_GAINS)
    b = bp.read_trajectory(folder / LOGS[3], columns=COLUMNS, gains=UR_PUBLISHED_GAINS)
    dt = 0.01
    ta, (qa, qda, taua) = uniform(a, dt)
    tb, (qb, qdb, taub) = uniform(b, dt)
    # the lag maximizing the positions' match, then refined to the sub-sample
    va, vb = qda[:, 3] - qda[:, 3].mean(), qdb[:, 3] - qdb[:, 3].mean()
    lags = np.arange(-len(vb) + 1, len(va))
    lag = lags[np.argmax(np.correlate(va, vb, "full"))]

    def mismatch(s):
        t = ta + s
        inside = (t >= tb[0]) & (t <= tb[-1])
        return np.mean([(qa[inside, j] - np.interp(t[inside], tb, qb[:, j])) ** 2 for j in range(6)]), inside
    shifts = (tb[0] - ta[0]) - lag * dt + np.linspace(-0.02, 0.02, 81)
    s = shifts[int(np.argmin([mismatch(x)[0] for x in shifts]))]
    inside = mismatch(s)[1]
    hb = taub - filtfilt(*butter(4, 10.0 / 50.0), taub, axis=0)
    ha = (taua - filtfilt(*butter(4, 10.0 / 50.0), taua, axis=0))[inside]
    hb = np.column_stack([np.interp(ta[inside] + s, tb, hb[:, j]) for j in range(6)])
    print(f"\nrepeat (unloaded vs loaded 14harm, shift {s:.4f} s, {inside.sum()} samples; positions' RMS difference "
          f"{1e3 * np.sqrt(mismatch(s)[0]):.3f} mrad): above 10 Hz, RMS (N·m) by |q̇| bin of the unloaded run, the "
          "same and half the difference (not shared: noise; its fastest/rest ratio [95 % block bootstrap]) and the "
          "correlation of the two runs' high bands")
    v = np.abs(qda[inside])
    for j in range(6):
        corr = np.corrcoef(ha[:, j], hb[:, j])[0, 1]
        _, top, r, ci = ratio_ci((ha[:, j] - hb[:, j]) / np.sqrt(2), v[:, j], draws, rng)
        print(f"  j{j + 1} unloaded {np.round(rms_by_bin(ha[:, j], v[:, j]), 3).tolist()} "
              f"diff/√2 {np.round(rms_by_bin((ha[:, j] - hb[:, j]) / np.sqrt(2), v[:, j]), 3).tolist()} "
              f"(fastest/rest ×{r:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]) corr {corr:.2f}")
    speed_or_torque(draws, rng)
    lwr4(draws, rng)


def speed_or_torque(draws, rng):
    """The wrist's high-band x² regressed on |q̇| and the low-band |τ| together (the noise of a current sensor could
    grow with the current rather than the speed): each coefficient with its 95 % block-bootstrap interval."""
    from scipy.signal import butter, filtfilt
    print("\nwrist x² (above 10 Hz) = a + b·|q̇| + c·|τ below 10 Hz| [95 % block bootstrap]:")
    for name in LOGS:
        x, qd = ur_high_band(UR_NOISE_LOG.parent / name)
        traj = bp.read_trajectory(UR_NOISE_LOG.parent / name, columns=COLUMNS, gains=UR_PUBLISHED_GAINS)
        _, (_, _, tau) = uniform(traj, float(np.median(np.diff(traj.t))))
        low = filtfilt(*butter(4, 10.0 / 50.0), tau, axis=0)
        for j in (3, 4):
            A = np.c_[np.ones(len(x)), np.abs(qd[:, j]), np.abs(low[:, j])]
            c = np.linalg.lstsq(A, x[:, j] ** 2, rcond=None)[0]
            drawn = []
            for _ in range(draws):
                rows = (rng.integers(0, len(x) - 100, len(x) // 100)[:, None] + np.arange(100)).ravel()
                drawn.append(np.linalg.lstsq(A[rows], x[rows, j] ** 2, rcond=None)[0])
            lo, hi = np.percentile(drawn, [2.5, 97.5], axis=0)
            print(f"  {name} j{j + 1}: a {c[0]:.4f}, b {c[1]:.4f} [{lo[1]:.4f}, {hi[1]:.4f}] N²·m²·s/rad, "
                  f"c {c[2]:.5f} [{lo[2]:.5f}, {hi[2]:.5f}] N·m (|τ| 95th percentile "
                  f"{np.percentile(np.abs(low[:, j]), 95):.1f} N·m)")


def lwr4(draws, rng):
    """The LWR4+'s repeat (measurements_1 and _2, one trajectory): half their torques' difference band-passed at
    0.1–8 Hz (``lwr4_noise_check``'s signal), RMS at rest and in the fastest bin with ≥ 300 samples, ratio and CI."""
    from scipy.signal import butter, sosfiltfilt
    from _helpers import LWR4_REPEATS, lwr4_repeats
    if not all(f.is_file() for f in LWR4_REPEATS):
        return
    a, inside, of_b = lwr4_repeats()
    x = sosfiltfilt(butter(4, [0.1 / 100.0, 8.0 / 100.0], btype="band", output="sos"),
                    (a["torques"][inside] - of_b("torques")) / np.sqrt(2), axis=0)
    qd = a["velocities"][inside]
    print("\nLWR4+ repeat difference / √2 at 0.1–8 Hz, RMS (N·m): rest → fastest bin with ≥300 samples, ratio "
          "[95 % block bootstrap, 1 s blocks]")
    for j in range(x.shape[1]):
        table, top, r, ci = ratio_ci(x[:, j], np.abs(qd[:, j]), draws, rng, block=200)
        print(f"  j{j + 1} {table[0]:.3f}→{table[top]:.3f} ({EDGES[top]:g}–{EDGES[top + 1]:g}) ×{r:.2f} "
              f"[{ci[0]:.2f}, {ci[1]:.2f}]")


if __name__ == "__main__":
    main()
