"""Issue 25: the shipped wide payload design (``excite --payload --payload-design wide``) on the bench's arms.

``python bench/payload_wide_design.py ROBOT [STARTS] [OUT.npz]``

Designs, with the library, the standard payload design the wide one starts from (every joint moving, criterion
'inertia' weighted by the bench's noise, 5 s × 4 harmonics, STARTS starts (default 4), seed 0) and the wide
design (``payload_design='wide'``, 20 s × 48 harmonics: the same start played 4 times, then L-BFGS for the
inertia about the centre), both at the log's rate within issue 25's limits, with no time budget (deterministic).
Prints the CRB of σ_I (median over ``bench_payload``'s ten 1 kg boxes, the largest element; ``crb_of``) of both, the
refinement and the CPU time, and saves OUT.npz (default /tmp/pay/ROBOT_wide.npz) as ``payload_wide_fits.py``
reads it (``base``: the standard design).

Measured: see ``payload_wide_fits.py``'s docstring (the fits on these files).
"""
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from bench_payload import INERTIA_DESIGN, SCOPE, limits_of  # noqa: E402
from payload_direct_probe import RATES, crb_of  # noqa: E402
from payload_warm_probe import packed  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _scope import scope_line  # noqa: E402

WIDE = dict(period=20.0, harmonics=48)


def main():
    print(scope_line(SCOPE))
    name = sys.argv[1]
    starts = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    out = sys.argv[3] if len(sys.argv) > 3 else f"/tmp/pay/{name}_wide.npz"
    dt = RATES[name]
    noise = lwr4_noise()[0] if name == "kuka_lwr4" else ur_noise()[0]
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    common = dict(limits=limits_of(robot)[0], payload=True, payload_joints=robot.n_dof, rate=1.0 / dt, noise=noise,
                  criterion=INERTIA_DESIGN["criterion"], starts=starts, seed=0)
    designs = {}
    for label, settings in (("standard", dict(period=INERTIA_DESIGN["period"], harmonics=INERTIA_DESIGN["harmonics"])),
                            ("wide", dict(WIDE, payload_design="wide"))):
        t0 = time.process_time()
        d = bp.design_excitation(robot, **common, **settings)
        designs[label] = d.series
        print(f"{name} {label}: {d.period:g} s x {d.harmonics}, CRB σ_I {crb_of(robot, d.series, dt, noise)[0]:.3e} "
              f"kg·m², cond {d.condition_number:.3g}, {time.process_time() - t0:.0f} s CPU"
              + ("" if d.refinement is None else f"; {d.refinement}"), flush=True)
    s = designs["wide"]
    np.savez(out, period=s.period, q0=s.q0, a=s.a, b=s.b, base=packed(designs["standard"]))
    print(f"saved {out}")


if __name__ == "__main__":
    main()
