"""Why is the best payload design 3–4× above the bound over motions? The gap, split into factors.

``python bench/payload_gap_probe.py ROBOT FILE.npz [CONFIGURATIONS]``

For one element e of the inertia about the centre (b_e: the change of the payload's 10 pseudo parameters that moves
it alone, mass and centre held; f_e(x) = Σ_j (W(x) b_e)_j²/σ_j², one sample's information about it, as in
``_payload_bound``), over the motion's N samples x_t of the saved series (20 s at the log's rate):

    σ_CRB        the Cramér–Rao bound of the motion (mass, centre and the other elements unknown: ``crb``)
    σ_alone      1/√(b_eᵀ F b_e) = 1/√(N·mean_t f_e(x_t)): the same with the other nine parameters known
    σ_speeds     1/√(N·mean_t max_{q̇, q̈} f_e(q_t, q̇, q̈)): the motion's configurations q_t, but at every one of
                 them the joints' speeds and accelerations at the best vertex of their boxes (|q̇_j| = v, |q̈_j| = a,
                 the signs chosen for e; f_e is convex in q̈, so a vertex is its maximum; over q̇ the vertices are
                 searched, ``CONFIGURATIONS`` of the q_t, evenly spaced, each over every vertex pair)
    σ_state      ``state_bound``: every sample at the best state in the box (configuration too)

so σ_CRB/σ_state = (σ_CRB/σ_alone) · (σ_alone/σ_speeds) · (σ_speeds/σ_state): what the other parameters' being unknown
costs (correlation), what keeping the speeds and accelerations within a motion costs at the configurations it passes
(a sample cannot sit at |q̇| = v and |q̈| = a on every joint at once: a sine at both limits averages q̇² and q̈² to
half of them and q̇⁴ to 3/8), and what the configurations it passes cost against the best one. The bound over motions
(``motion_bound``) adds, for the largest element, that one motion serves the six elements. Printed per element, at
bench_payload's first 1 kg box (the b_e and f_e do not depend on the payload; the CRB does, a little).
"""
import itertools
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from baseparam.excitation.fourier import FourierSeries  # noqa: E402
from bench_payload import SCOPE, box_payload, limits_of  # noqa: E402
from payload_cases_probe import motion  # noqa: E402
from payload_direct_probe import RATES  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _payload_bound import _state_information, crb, information, state_bound  # noqa: E402
from _scope import scope_line  # noqa: E402


def best_speeds(info, q, vel, acc):
    """max over the vertices of the q̇ and q̈ boxes of f_e at configuration q, per element: (6,)."""
    n = len(q)
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=n)))
    qd = np.repeat(signs * vel, len(signs), axis=0)
    qdd = np.tile(signs * acc, (len(signs), 1))
    X = np.concatenate([np.tile(q, (len(qd), 1)), qd, qdd], axis=1)
    return info(X).max(axis=0)


def main():
    print(scope_line(SCOPE))
    name, path = sys.argv[1], sys.argv[2]
    configurations = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    dt = RATES[name]
    noise = lwr4_noise()[0] if name == "kuka_lwr4" else ur_noise()[0]
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    saved = np.load(path)
    series = FourierSeries(float(saved["period"]), saved["q0"], saved["a"], saved["b"])
    _, q, qd, qdd = motion(series, dt)
    N = len(q)
    payload = box_payload(1.0, np.random.default_rng(1000))
    limits = limits_of(robot)[1]
    _, _, vel, acc = limits
    F = information(robot, q, qd, qdd, noise)
    s_crb = crb(F, payload)[2][np.triu_indices(3)]
    info = _state_information(robot, noise, payload)
    f = info(np.concatenate([q, qd, qdd], axis=1))                       # (N, 6)
    s_alone = 1.0 / np.sqrt(f.sum(axis=0))
    picks = np.linspace(0, N - 1, configurations).astype(int)
    speeds = np.array([best_speeds(info, q[t], vel, acc) for t in picks])
    s_speeds = 1.0 / np.sqrt(N * speeds.mean(axis=0))
    s_state = state_bound(robot, noise, limits, payload, samples=N, starts=5000, refine=6)[np.triu_indices(3)]
    print(f"{name}: {path}, {N} samples; mean over the motion of (q̇/v)² {np.mean((qd / vel) ** 2):.2f}, "
          f"(q̈/a)² {np.mean((qdd / acc) ** 2):.2f}, (q̇/v)⁴ {np.mean((qd / vel) ** 4):.2f} (1 at the bound's states)")
    print(f"{'element':<8} {'σ_CRB':>9} {'σ_alone':>9} {'σ_speeds':>9} {'σ_state':>9}   {'CRB/alone':>9} "
          f"{'alone/speeds':>12} {'speeds/state':>12} {'CRB/state':>9}")
    labels = [f"I{'xyz'[a]}{'xyz'[b]}" for a, b in zip(*np.triu_indices(3))]
    for e, label in enumerate(labels):
        print(f"{label:<8} {s_crb[e]:9.3e} {s_alone[e]:9.3e} {s_speeds[e]:9.3e} {s_state[e]:9.3e}   "
              f"{s_crb[e] / s_alone[e]:9.2f} {s_alone[e] / s_speeds[e]:12.2f} {s_speeds[e] / s_state[e]:12.2f} "
              f"{s_crb[e] / s_state[e]:9.2f}")
    print(f"largest: σ_CRB {s_crb.max():.3e} ({labels[int(np.argmax(s_crb))]}), σ_state {s_state.max():.3e} "
          f"({labels[int(np.argmax(s_state))]}): {s_crb.max() / s_state.max():.2f}×")


if __name__ == "__main__":
    main()
