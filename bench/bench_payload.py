"""Simulated payloads on the LWR4+ (7-DOF) and the UR10e (6-DOF): issue 25's targets, case by case.

``python bench/bench_payload.py``

Each case: a payload of 0.5–5 kg with an off-axis centre of mass and a full inertia tensor (a solid box
of the payload's mass, turned), on the last link of the robot's description; 20 s of a multi-sine
motion of every joint (period 10 s, 8 harmonics, |q̈| up to a few rad/s²), sampled at the real logs'
rates (LWR4+ 200 Hz, UR10e 100 Hz); torques by baseparam's inverse dynamics of the description's
bodies + the payload (the test suite checks the same fit against pinocchio's torques); noise as in the
real logs (below); ``bp.identify_payload`` in model mode (measured − the description's prediction),
default preprocessing. Targets: mass within 2 %, centre of mass within 5 mm, inertia about it within
10 % of its largest principal moment — each also within 3σ of the reported standard deviation.

Noise: the UR10e's per joint as measured on its unloaded real log (``ur-20_02_19_14harm50sec.csv``):
the current × the published gains minus its 10 Hz zero-phase low-pass, whose standard deviation is
the white noise the dynamics do not explain; the LWR4+'s logs are published already low-passed at
8 Hz, so no such figure exists: 0.2 N·m per joint is assumed (as bench_excite.py's proof does).

Two motions, each 20 s: the multi-sine of every joint above, and the ``excite --payload`` design (the last
three joints move, the others held at its default bent pose; issue 25's limits |q̇| ≤ 1.9 rad/s,
|q̈| ≤ 5 rad/s²; 20 s search budget, seed 0), its 10 s period played twice.

What it shows (one run, 2026-11-26): mass (≤ 0.7 %) and centre of mass (≤ 2 mm) meet their bounds for
every payload on both motions, each within 3σ. The inertia bound, relative to the payload's own largest
principal moment, fails for light payloads because the inertia's error is set by the noise and the
motion, not by the payload: its standard deviation σ_I is the same for 0.5 and 5 kg, while 10 % of a
0.5 kg tool's largest moment is 1.6e-4 kg·m². The standard deviations are honest (every error within 3σ):
what fails is the bound, not the estimate. The payload motion is what helps: σ_I drops from 3.7e-3 to
1.7e-3 kg·m² on the LWR4+ and from 1.4e-2 to 1.7e-3 on the UR10e (whose joints 1–3 are noisy: 0.8–1.5 N·m
at 100 Hz, and held still they no longer carry the wrist's inertia through their own noisy torques), so
the bound then holds at 5 kg on both and at 2 kg on the UR10e (the LWR4+'s 2 kg: 2.2e-3 against
1.6e-3). A floor from the physics: the inertia is read from torques I·q̈ at the wrist, so σ_I ≈
σ_τ / (q̈_rms √(2·f_c·T)) with the noise σ_τ, the low-pass cut-off f_c (which sets how many samples are
independent) and the duration T; with σ_τ = 0.2 N·m, f_c = 5 Hz, T = 20 s and q̈_rms ≈ 1.7–3 rad/s²
that is 1.5–3e-3 kg·m², as measured. Meeting "10 % of λmax at 3σ" then needs λmax ≳ 0.05 kg·m² (a
2–5 kg tool some 20–30 cm across) whatever the motion within those limits; lighter tools get their
inertia to about ±3σ_I in absolute terms, and their mass and centre of mass within the targets.
"""
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _scope import scope_line  # noqa: E402  (bench/ is on the path: the script's folder)

import baseparam as bp  # noqa: E402

SCOPE = (["kuka_lwr4.yaml", "ur10e.yaml"], "issue 25's targets name a 7-DOF and a 6-DOF arm; these two have real logs "
                                           "whose noise the simulation copies")
ROOT = pathlib.Path(__file__).resolve().parent.parent
UR_LOG = ROOT.parent / "shared" / "data" / "ur10e" / "identification_data" / "ur-20_02_19_14harm50sec.csv"
LWR_LOGS = [ROOT.parent / "shared" / "data" / "kuka_lwr4" / f"measurements_{i}.npz" for i in (1, 2)]
UR_GAINS = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]
MASSES = (0.5, 0.8, 1.0, 2.0, 5.0)
sys.path.insert(0, str(ROOT / "notebooks"))
from _helpers import multisine, simulated_log  # noqa: E402  (the multi-sine and noisy log notebook 09 shows)


def ur_noise():
    """Per-joint std (N·m) of the UR10e log's torque above 10 Hz (the current × gain minus its low-pass)."""
    from scipy.signal import butter, filtfilt
    if not UR_LOG.is_file():
        return np.array([0.3, 0.3, 0.3, 0.05, 0.05, 0.05]), "assumed (log absent)"
    traj = bp.read_trajectory(UR_LOG, columns="t=0,q=1:7,qd=7:13,current=13:19", gains=UR_GAINS)
    dt = float(np.median(np.diff(traj.t)))
    t = np.arange(traj.t[0], traj.t[-1], dt)
    tau = np.column_stack([np.interp(t, traj.t, traj.tau[:, j]) for j in range(6)])
    b, a = butter(4, 10.0 / (0.5 / dt))
    return np.std(tau - filtfilt(b, a, tau, axis=0), axis=0), "measured above 10 Hz on the real log"


def lwr4_noise(rate=200.0, band=(0.1, 0.6)):
    """Per-joint torque noise (N·m) of the LWR4+ as white noise at ``rate`` Hz with the spectral density
    the real logs have in ``band`` (the motions' harmonics): half the difference of measurements_1 and _2,
    which repeat one trajectory (lined up to the sub-sample by their positions), is what the two runs do
    not share; its density S (one-sided, Welch) in the band is that of white noise of σ = √(S·rate/2)."""
    from scipy.optimize import minimize_scalar
    from scipy.signal import welch
    if not all(f.is_file() for f in LWR_LOGS):
        return np.full(7, 0.2), "assumed (logs absent)"
    a, b = (np.load(f) for f in LWR_LOGS)
    ta, tb = a["times"] - a["times"][0], b["times"] - b["times"][0]

    def mismatch(s):
        inside = (ta + s > 0) & (ta + s < tb[-1])
        return np.mean([(a["positions"][inside, j] - np.interp(ta[inside] + s, tb, b["positions"][:, j])) ** 2
                        for j in range(7)])
    s = minimize_scalar(mismatch, bounds=(-0.02, 0.02), method="bounded").x
    inside = (ta + s > 0.5) & (ta + s < tb[-1] - 0.5)
    other = np.column_stack([np.interp(ta[inside] + s, tb, b["torques"][:, j]) for j in range(7)])
    f, P = welch((a["torques"][inside] - other) / np.sqrt(2), fs=rate, nperseg=1024, axis=0)
    S = P[(f >= band[0]) & (f < band[1])].mean(axis=0)
    return np.sqrt(S * rate / 2), (f"measured: the repeat runs' difference at {band[0]:g}–{band[1]:g} Hz "
                                   f"as white noise at {rate:g} Hz")


def box_payload(m, rng):
    """A solid box of mass m (sides growing with m at a density of ~1000 kg/m³ · 1/3 fill), turned at random,
    its centre 20–60 mm off the flange axis and 40–80 mm out."""
    side = (m / 330.0) ** (1 / 3) * np.array([1.4, 1.0, 0.7])
    I0 = m / 12 * np.diag([side[1] ** 2 + side[2] ** 2, side[0] ** 2 + side[2] ** 2, side[0] ** 2 + side[1] ** 2])
    R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    com = np.concatenate([rng.uniform(0.02, 0.06, 2) * rng.choice([-1, 1], 2), [rng.uniform(0.04, 0.08)]])
    return m, com, R @ I0 @ R.T


LIMITS = "issue 25's limits: |q| ≤ 2.9/2.0 rad (odd/even joints), |q̇| ≤ 1.9 rad/s, |q̈| ≤ 5 rad/s²"


def limits_of(robot):
    """Issue 25's whole-robot excitation limits, as ``design_excitation`` takes them and as arrays
    (lower, upper, velocity, acceleration) for the bound."""
    n = robot.n_dof
    lower = np.array([-2.9 if k % 2 == 0 else -2.0 for k in range(n)])
    table = {"joints": [{"q": [float(lo), float(-lo)], "qd": 1.9, "qdd": 5.0} for lo in lower]}
    return table, (lower, -lower, np.full(n, 1.9), np.full(n, 5.0))


def payload_motion(robot, dt, duration=20.0, joints=3, criterion="cond"):
    """``excite --payload`` (the last ``joints`` joints move, the others held at the default bent pose; 20 s
    search budget, seed 0) under issue 25's limits, its period repeated for ``duration`` s at step dt."""
    d = bp.design_excitation(robot, limits=limits_of(robot)[0], time_budget=20.0, seed=0, payload=True,
                             rate=1.0 / dt, period=10.0, harmonics=5, payload_joints=joints,
                             criterion=criterion)          # 10 s, 5 harmonics: as measured before issue 25
    n = int(round(duration / dt))
    reps = -(-n // len(d.samples.q))
    q, qd, qdd = (np.tile(a, (reps, 1))[:n] for a in (d.samples.q, d.samples.qd, d.samples.qdd))
    return (np.arange(n) * dt, q, qd, qdd), d.condition_number


def case(robot, payload, dt, noise, seed, motion=None):
    from baseparam.identification.payload import identify_payload
    return identify_payload(robot, simulated_log(robot, payload, noise, dt, seed=seed, motion=motion))


ROBOTS = (("kuka_lwr4", 0.005), ("ur10e", 0.01))
MOTIONS = ("multi-sine of every joint",
           "excite --payload (the last three joints; cond)",
           "excite --payload --payload-joints N --criterion dopt (every joint)")


def main():
    from _payload_bound import state_bound
    print(scope_line(SCOPE))
    noise_ur, how_ur = ur_noise()
    noise_lwr, how_lwr = lwr4_noise()
    noises = {"kuka_lwr4": noise_lwr, "ur10e": noise_ur}
    print(f"UR10e torque noise (N·m), {how_ur}: {np.round(noise_ur, 3).tolist()}")
    print(f"LWR4+ torque noise (N·m), {how_lwr}: {np.round(noise_lwr, 3).tolist()}")
    motions, bounds = {}, {}
    for name, dt in ROBOTS:
        robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
        motions[name] = [None]
        for joints, criterion in ((3, "cond"), (robot.n_dof, "dopt")):
            motion, cond = payload_motion(robot, dt, joints=joints, criterion=criterion)
            motions[name].append(motion)
            print(f"{name}: excite --payload, {joints} joints, {criterion}: cond {cond:.3g} over the payload's columns")
        start = time.perf_counter()
        # the bound does not depend on the payload: the directions that move its inertia alone do not
        bounds[name] = state_bound(robot, noises[name], limits_of(robot)[1], box_payload(1.0, np.random.default_rng(0)),
                                   samples=int(round(20.0 / dt)), starts=5000, refine=6)
        print(f"{name}: no 20 s motion within {LIMITS} gives σ_I below {bounds[name].max():.2e} kg·m² "
              f"(largest element; {time.perf_counter() - start:.0f} s): the target (3σ_I ≤ 10 % λmax) needs "
              f"λmax ≥ {30 * bounds[name].max():.2e} kg·m²")
    for k, kind in enumerate(MOTIONS):
        print(f"motion: {kind}, 20 s")
        print(HEADER)
        for name, dt in ROBOTS:
            run(name, dt, noises[name], motions[name][k], bounds[name])


HEADER = (f"{'robot':<7} {'kg':>4} {'mass err %':>10} {'/σ':>5} {'com err mm':>10} {'/σ':>5} "
          f"{'I err kg·m²':>11} {'/σ':>5} {'σ_I max':>8} {'CRB':>8} {'bound':>8} {'10% λmax':>9} "
          f"{'mass':>4} {'com':>4} {'I':>4} {'s':>5}")


def run(name, dt, noise, motion, bound):
    """One robot's payloads of MASSES on one motion (None: the multi-sine), a line each: the fit's errors and
    standard deviations, the Cramér–Rao bound of this motion and the bound no motion beats (σ_I's largest
    element each)."""
    from _payload_bound import crb, information
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    _, q, qd, qdd = multisine(robot.n_dof, dt) if motion is None else motion
    F = information(robot, q, qd, qdd, noise)
    for i, m in enumerate(MASSES):
        payload = box_payload(m, np.random.default_rng(100 + i))
        start = time.perf_counter()
        r = case(robot, payload, dt, noise, seed=i, motion=motion)
        sec = time.perf_counter() - start
        _, c, I = payload
        dm = abs(r.mass - m)
        dc = np.abs(r.com - c)
        dI = np.abs(r.inertia - I)
        zm = dm / max(r.mass_std, 1e-12)
        zc = float(np.max(dc / np.maximum(r.com_std, 1e-12)))
        zI = float(np.max(dI / np.maximum(r.inertia_std, 1e-12)))
        limit = 0.1 * np.linalg.eigvalsh(I).max()
        ok_m = dm < 0.02 * m and zm < 3
        ok_c = dc.max() < 0.005 and zc < 3
        ok_I = dI.max() < limit and zI < 3
        print(f"{name[:7]:<7} {m:4.1f} {100 * dm / m:10.2f} {zm:5.1f} {1e3 * dc.max():10.2f} {zc:5.1f} "
              f"{dI.max():11.2e} {zI:5.1f} {r.inertia_std.max():8.1e} {crb(F, payload)[2].max():8.1e} "
              f"{bound.max():8.1e} {limit:9.2e} {'ok' if ok_m else 'NO':>4} {'ok' if ok_c else 'NO':>4} "
              f"{'ok' if ok_I else 'NO':>4} {sec:5.1f}")


if __name__ == "__main__":
    main()
