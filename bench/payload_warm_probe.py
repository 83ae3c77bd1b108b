"""Does a longer, non-repeating payload design beat the bench's inertia design? Warm-started from it.

``python bench/payload_warm_probe.py ROBOT [REPEAT] [CHUNKS] [ITER] [origin|centre] [BASE.npz] [HARMONICS]``

(BASE.npz: start from the series saved as ``base`` there instead of searching; HARMONICS: of the new design, more
than REPEAT × the base's widens the band.)

The bench's inertia design (``excite --payload --payload-joints N --criterion inertia --noise σ``, 5 s × 4
harmonics, 40 s of search, seed 0) is played ``REPEAT`` (4) times in 20 s; the same motion is exactly a series of
period 20 s with harmonics 4, 8, 12, 16 (and zeros at the others), so a design of period 20 s × 16 harmonics
(same highest frequency, four times the unknowns: it need not repeat, and can visit other configurations for
other elements) starts from it and SLSQP (the library's problem, criterion and limits) improves it in
``CHUNKS`` runs of ``ITER`` iterations. Printed after each: the criterion and the CRB of σ_I (median over
bench_payload's ten 1 kg boxes of the largest element of the inertia about the centre) at the log's rate. The
last feasible series is saved to /tmp/pay/ROBOT_warm_CRITERION.npz for ``bench_payload``'s cases, and every
``CHECKPOINT`` iterations the current one, scaled into the limits, to ROBOT_warm_CRITERION_iterate.npz.
"""
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "notebooks")]

import baseparam as bp  # noqa: E402
from baseparam.excitation.design import _within_limits  # noqa: E402
from baseparam.excitation.fourier import FourierSeries  # noqa: E402
from bench_payload import SCOPE, INERTIA_DESIGN, limits_of  # noqa: E402
from payload_direct_probe import RATES, build, centre_criterion, centre_jacobian, crb_of  # noqa: E402
from bench_payload import box_payload  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _scope import scope_line  # noqa: E402


CHECKPOINT = 5               # iterations between the saved iterates of one SLSQP run


def stretched(series, repeat, harmonics):
    """The series of period T as one of period repeat·T and ``harmonics`` harmonics (the same motion)."""
    a = np.zeros((series.n_dof, harmonics))
    b = np.zeros((series.n_dof, harmonics))
    a[:, repeat - 1::repeat][:, :series.harmonics] = series.a
    b[:, repeat - 1::repeat][:, :series.harmonics] = series.b
    return FourierSeries(series.period * repeat, series.q0, a, b)


def packed(series):
    """The series as one flat vector (period, q0, a, b), as the saved file's ``base``."""
    return np.r_[series.period, series.q0, series.a.ravel(), series.b.ravel()]


def unpacked(flat, n_dof):
    """The series of :func:`packed`'s vector ``flat`` for ``n_dof`` joints."""
    n = n_dof
    K = (len(flat) - 1 - n) // (2 * n)
    return FourierSeries(float(flat[0]), flat[1:n + 1], flat[n + 1:n + 1 + n * K].reshape(n, K),
                         flat[n + 1 + n * K:].reshape(n, K))


def main():
    print(scope_line(SCOPE))
    from scipy.optimize import minimize
    name = sys.argv[1]
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    chunks = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    which = sys.argv[5] if len(sys.argv) > 5 else "origin"
    dt = RATES[name]
    noise = lwr4_noise()[0] if name == "kuka_lwr4" else ur_noise()[0]
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    settings = dict(INERTIA_DESIGN)
    budget = settings.pop("budget")
    t0 = time.process_time()
    if len(sys.argv) > 6:          # the base design saved by an earlier run (its "base"), not searched again
        base = unpacked(np.load(sys.argv[6])["base"], robot.n_dof)
    else:
        base = bp.design_excitation(robot, limits=limits_of(robot)[0], time_budget=budget, seed=0, payload=True,
                                    rate=1.0 / dt, payload_joints=robot.n_dof, noise=noise, **settings).series
    base_crb, _ = crb_of(robot, base, dt, noise)
    print(f"{name}: the start ({base.period:g} s x {base.harmonics}): CRB σ_I "
          f"{base_crb:.3e} kg·m²", flush=True)
    K = base.harmonics * repeat if len(sys.argv) <= 7 else int(sys.argv[7])     # more: a wider band too
    problem, lim, _ = build(robot, noise, base.period * repeat, K)
    start = stretched(base, repeat, K)
    theta = start.coefficients                                            # (n, 2K + 1)
    x = np.linalg.lstsq(problem.N, theta.T, rcond=None)[0].T.ravel()      # θ = N z per joint
    print(f"  as {problem.period:g} s x {K}: criterion {problem.value(x):.4f}, "
          f"violation {problem.violation(x):.1e}, CRB {crb_of(robot, problem.series(x), dt, noise)[0]:.3e}",
          flush=True)
    if which == "centre":          # the target's own criterion: the largest variance about the centre, 8 hypotheses
        Js = [centre_jacobian(box_payload(1.0, np.random.default_rng(2000 + k))) for k in range(8)]
        mine = centre_criterion(Js, 1.0 / np.asarray(noise), sharp=16.0)
        problem.criterion_function = lambda: mine
        problem.use_criterion()
        print(f"  criterion centre: {problem.value(x):.4f} at the start", flush=True)
    constraints = [{"type": "ineq", "fun": problem.constraints, "jac": problem.jacobian}]
    seen = []

    def checkpoint(xk):
        """Every CHECKPOINT iterations of one SLSQP run, the iterate scaled into the limits saved and its
        criterion printed (a restart of SLSQP forgets its Hessian and first loses ground: one long run, stopped
        at will, keeps it)."""
        seen.append(1)
        if len(seen) % CHECKPOINT == 0:
            series = _within_limits(problem.series(xk), lim)
            np.savez(f"/tmp/pay/{name}_warm_{which}_iterate.npz", period=series.period, q0=series.q0, a=series.a,
                     b=series.b, base=packed(base))
            print(f"    iteration {len(seen)}: criterion {problem.value(xk):.4f}, violation "
                  f"{problem.violation(xk):.1e} ({time.process_time() - t0:.0f} s CPU)", flush=True)
    for chunk in range(chunks):
        r = minimize(problem.objective, x, jac=problem.gradient, method="SLSQP", bounds=problem.box(),
                     constraints=constraints, options={"maxiter": iterations, "ftol": 1e-9}, callback=checkpoint)
        x = r.x
        series = _within_limits(problem.series(x), lim)
        value, _ = crb_of(robot, series, dt, noise)
        print(f"  chunk {chunk + 1}: criterion {problem.value(x):.4f}, violation {problem.violation(x):.1e}, CRB σ_I "
              f"{value:.3e} kg·m² ({value / base_crb:.3f}× the design's; {time.process_time() - t0:.0f} s CPU) "
              f"{r.message}", flush=True)
        np.savez(f"/tmp/pay/{name}_warm_{which}.npz", period=series.period, q0=series.q0, a=series.a, b=series.b,
                 base=packed(base))


if __name__ == "__main__":
    main()
