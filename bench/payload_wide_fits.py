"""Issue 25: a saved payload design against the bench's inertia design it started from, fitted on the bench's payloads
under both noise models — the bench's one σ per joint and σ by joint speed on the joints the logs show growing
(``payload_speed_noise_fits``' faithful model: UR10e joints 4–5, LWR4+ joints 1, 3, 4, 7).

``python bench/payload_wide_fits.py ROBOT FILE.npz [SEEDS] [MASS …]``

FILE.npz as ``payload_feasible_probe.py`` saves it (the series and ``base``, the design it started from). SEEDS
payloads per mass (default 10; ``bench_payload.box_payload`` of seeds 1000…, noise draws 0…, as its ``cases``); the
same payloads and draws for both designs and both noise models, so every comparison is paired. Per row: the share of
payloads within target (mass/com/inertia, each also within 3σ), the share within 3σ, the median |error|/σ of mass and
com, the median σ_I and 3σ_I as % of λmax. Verdict as ``bench_payload.cases`` (met if the median 3σ_I ≤ 10 % λmax).

Measured (2026-11-28 s21, 10 payloads per mass; 22–24 s CPU a robot), 3σ_I as % of λmax, inertia design → 48
harmonics (20 s, to 2.4 Hz), constant σ | σ by speed:
UR10e (/work/notes/ur10e_feas48_b.npz, CRB 0.750× the inertia design's): 0.8 kg 36.7 → 28.3 | 40.6 → 32.6;
1 kg 25.3 → 19.5 | 28.0 → 22.5; 1.5 kg 12.9 → 9.9 (met) | 14.3 → 11.5 (not met); 2 kg 8.0 → 6.2 | 8.8 → 7.1;
5 kg 1.8 → 1.4 | 1.9 → 1.6. LWR4+ (``payload_feasible_probe.py kuka_lwr4 48 1500 design 1 50``, straight from
the inertia design: CRB 2.204e-4, 0.874×; 89 s CPU after the 40 s search): 0.75 kg 25.0 → 22.3 | 25.7 → 23.2;
1 kg 15.5 → 13.8 | 15.9 → 14.4; 2 kg 4.9 → 4.4 | 5.0 → 4.5; 5 kg 1.1 → 1.0 | 1.1 → 1.0. Every payload of the
48-harmonic designs within 3σ on mass, centre and inertia (the inertia designs: one UR10e payload in ten beyond 3σ
on the inertia at every mass); their mass errors larger in σ (median 1.2–1.7σ against 0.7–0.9σ), centres not.
LWR4+ run on 2000 iterations (``… kuka_lwr4 48 2000 START.npz 1 50``, 123 s CPU): CRB 2.126e-4 (0.843×): 0.75 kg
20.9 | 21.7, 1 kg 13.0 | 13.5, 2 kg 4.1 | 4.2, 5 kg 0.9 | 0.9; every payload within 3σ. Stop 45's 1.996e-4 (0.79×,
through a converged 24-harmonic iterate) would give about 12.2 % at 1 kg: the case needs 10 %.
UR10e, 30 payloads (``… ur10e FILE 30 5 1.5``, 30 s CPU): 1.5 kg 12.9 → 9.9 | 14.4 → 11.4, 5 kg 1.8 → 1.4 | 2.0 → 1.6;
30 of 30 within 3σ on every quantity with 48 harmonics (mass 1.2–1.6σ median, centre 1.4–1.5σ).
So the wider band is better on every case under both noise models but moves one verdict only under the constant σ
(UR10e 1.5 kg), not under σ by speed, the model the logs support (``payload_noise_evidence.py``).

The shipped option (2026-11-28 s22, ``excite --payload --payload-design wide``: ``payload_wide_design.py ROBOT``, 4
starts of the inertia design, no budget, deterministic; BASEPARAM_DATA=/work/shared/data for the logs' noise;
then ``… ROBOT /tmp/pay/ROBOT_wide.npz 10 MASSES``, 19–22 s CPU), 3σ_I as % of λmax, constant σ | σ by speed:
LWR4+ (CRB 2.523e-4 → 2.206e-4, 0.874×; 83 s CPU for the wide design): 0.5 kg 49.1 → 43.8 | 50.6 → 45.5;
0.75 kg 25.0 → 22.3 | 25.7 → 23.1; 1 kg 15.5 → 13.8 | 15.9 → 14.3; 1.5 kg 7.9 → 7.0 | 8.1 → 7.3 (met either);
2 kg 4.9 → 4.4 | 5.0 → 4.5; 5 kg 1.1 → 1.0 | 1.1 → 1.0. Within 3σ: all on mass and centre; inertia 10/10 under
constant σ, 9/10 under σ by speed (the inertia design 10/10).
UR10e (CRB 4.499e-4 → 3.644e-4, 0.810×, not the 0.750× of the probe's file; 85 s CPU): 0.5 kg 80.3 → 66.6 |
88.7 → 75.5; 0.8 kg 36.7 → 30.5 | 40.6 → 34.6; 1 kg 25.3 → 21.0 | 28.0 → 23.9; 1.5 kg 12.9 → 10.7 | 14.3 → 12.2
(not met: the probe's file reached 9.9 under constant σ); 2 kg 8.0 → 6.7 | 8.8 → 7.6; 5 kg 1.8 → 1.5 | 1.9 → 1.7.
Within 3σ: mass 9/10 (the inertia design 10/10), inertia 8/10 (9/10). Mass errors median 1.3–2.0σ (0.7σ).
Issue 25's targets (mass 2 %, centre 5 mm, inertia 10 % of λmax, each within 3σ, 20 s): met at 2 and 5 kg on both
arms and at 1.5 kg on the LWR4+ with either design; the wide design moves no verdict.
The mass bias was not the 5 Hz low-pass but the differentiation (2026-11-28 s23, pay2): noise free (the torques of
the true payload, q exact), the UR10e wide design's 1.5 kg came back +2.1e-3 of mass at 5 Hz, +2.4e-3 at 10 Hz,
+2.6e-3 unfiltered, exact from the exact states: np.gradient taken twice damps q̈ by 1 − (ωh)²/3, 0.76 % at 2.4 Hz
in 10 ms samples (the LWR4+'s 5 ms: 4× less). With the payload's rates by the fourth-order stencil: −6e-6 / +3e-6 /
+4e-6 (the low-pass's own share at 5 Hz, with a regressor nonlinear in q, is that −6e-6). Median (m̂ − m)/σ
(/tmp probe as above, 5 Hz) before → after: wide 1.5 kg +1.44 → −0.30, 5 kg +2.03 → −0.29; inertia design
−0.07 → −0.68, +0.17 → −0.66 (its +1.0e-3 noise-free bias removed too; what is left is the ten noise draws: torque
noise alone gives −0.43σ on average over them, position noise −0.01σ). LWR4+ after: +0.23 / +0.34 (inertia /
wide, 1.5 kg), no bias.
This table after the fix (``… ROBOT /tmp/pay/ROBOT_wide.npz 10 MASSES``, BASEPARAM_DATA=/work/shared/data,
25–26 s CPU a robot), 3σ_I as % of λmax, inertia design → wide, constant σ | σ by speed:
UR10e 0.5 kg 80.2 → 65.9 | 88.7 → 74.7; 0.8 kg 36.7 → 30.1 | 40.6 → 34.2; 1 kg 25.3 → 20.8 | 28.0 → 23.6;
1.5 kg 12.9 → 10.6 | 14.3 → 12.0 (not met); 2 kg 8.0 → 6.6 | 8.8 → 7.5; 5 kg 1.8 → 1.5 | 1.9 → 1.7. Every mass
within 2 % and 3σ (the wide design's median |m̂ − m|/σ 1.3–2.0 → 0.8–0.9), the inertia within 3σ 9–10/10 with the
wide design (8–9/10 before), 9/10 with the inertia design; one centre at 3.0σ on the inertia design (2.8σ before).
LWR4+: the σ_I and verdicts as before (0.5 kg 49.1 → 43.9 | 50.6 → 45.5; 0.75 kg 25.0 → 22.3 | 25.7 → 23.1;
1 kg 15.5 → 13.8 | 15.9 → 14.3; 1.5 kg 7.9 → 7.0 | 8.1 → 7.3; 2 kg 4.9 → 4.4 | 5.0 → 4.5; 5 kg 1.1 → 1.0 |
1.1 → 1.0), every mass and centre within target and 3σ; the wide design's median |m̂ − m|/σ 1.2 (1.3 before,
signed median +0.34: a spread, not a bias), the inertia within 3σ 9/10 under σ by speed.
Verdicts unchanged: met at 2 and 5 kg on both arms and 1.5 kg on the LWR4+; IMPOSSIBLE by the any-motion bound
(``bench_payload.py``: 5.9e-5 / 1.4e-4 kg·m²) at 0.5 kg on both and 0.8 kg on the UR10e.
"""
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from baseparam.excitation.fourier import FourierSeries  # noqa: E402
from _helpers import simulated_log  # noqa: E402
from _payload_bound import speed_noise  # noqa: E402
from _scope import scope_line  # noqa: E402
from bench_payload import CASES, SCOPE, box_payload  # noqa: E402
from payload_cases_probe import motion as played  # noqa: E402
from payload_speed_noise_fits import DT, speed_table  # noqa: E402
from payload_speed_noise_probe import EDGES  # noqa: E402
from payload_warm_probe import unpacked  # noqa: E402

GROWING = {"ur10e": (4, 5), "kuka_lwr4": (1, 3, 4, 7)}    # joints whose noise grows with speed (from 1)


def main():
    from baseparam.identification.payload import identify_payload
    print(scope_line(SCOPE))
    name, path = sys.argv[1], sys.argv[2]
    seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    masses = [float(m) for m in sys.argv[4:]] or [m for m in CASES[name] if m >= 0.75]
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    dt = DT[name]
    table, flat = speed_table(name)
    fixed = [j for j in range(robot.n_dof) if j + 1 not in GROWING[name]]
    table[:, fixed] = flat[fixed]
    sigma = speed_noise(EDGES, table)
    saved = np.load(path)
    designs = {"inertia": unpacked(saved["base"], len(saved["q0"])),
               "wide": FourierSeries(float(saved["period"]), saved["q0"], saved["a"], saved["b"])}
    motions = {k: played(s, dt) for k, s in designs.items()}
    for k, s in designs.items():
        print(f"{k}: {s.period:g} s x {s.harmonics} harmonics (to {s.harmonics / s.period:.2f} Hz)")
    print(f"{'kg':>4} {'design':<7} {'noise':<8} {'ok m/c/I':>11} {'≤3σ m/c/I':>11} {'m/σ':>5} {'c/σ':>5} "
          f"{'σ_I':>8} {'3σ_I/λmax':>9}  verdict", flush=True)
    t0 = time.process_time()
    for m in masses:
        for label in ("constant", "by speed"):
            for k, mo in motions.items():
                noise = flat if label == "constant" else sigma(np.abs(mo[2]))
                sig, ok, z = [], [], []
                for seed in range(seeds):
                    payload = box_payload(m, np.random.default_rng(1000 + seed))
                    r = identify_payload(robot, simulated_log(robot, payload, noise, dt, seed=seed, motion=mo))
                    _, c, I = payload
                    dm, dc, dI = abs(r.mass - m), np.abs(r.com - c), np.abs(r.inertia - I)
                    z.append((dm / r.mass_std, float(np.max(dc / r.com_std)), float(np.max(dI / r.inertia_std))))
                    limit = 0.1 * np.linalg.eigvalsh(I).max()
                    ok.append((dm < 0.02 * m, dc.max() < 0.005, dI.max() < limit))
                    sig.append(r.inertia_std.max())
                z = np.array(z)
                ok = np.array(ok) & (z < 3)
                s_I = float(np.median(sig))
                verdict = "met" if 3 * s_I <= limit else "not met"
                print(f"{m:4.2f} {k:<7} {label:<8} {'/'.join(f'{v:.1f}' for v in ok.mean(axis=0)):>11} "
                      f"{'/'.join(f'{v:.1f}' for v in (z < 3).mean(axis=0)):>11} {np.median(z[:, 0]):5.1f} "
                      f"{np.median(z[:, 1]):5.1f} {s_I:8.2e} {30 * s_I / limit:8.1f}%  {verdict}", flush=True)
    print(f"({time.process_time() - t0:.0f} s CPU)")


if __name__ == "__main__":
    main()
