"""A payload design that keeps the limits by construction, optimized for the target's own criterion.

``python bench/payload_feasible_probe.py ROBOT [HARMONICS] [ITER] [START.npz|design|-] [STARTS] [BETAS]``

(design: the bench's inertia design, searched here (40 s), as the start; -: STARTS random starts; BETAS: the
annealing's β, comma-separated, default 50,200,1000.)

The motion: per joint a Fourier series of period 20 s (played once: the bench's 20 s) and HARMONICS harmonics
(24: up to 1.2 Hz), at rest at both ends (the library's ``rest_basis``). Its unknowns y are free: a joint's
centre c_j = middle + 0.95·half range·tanh(u_j) and a direction d_j(t) of its oscillation, scaled by

    s_j = 1 / LSE_β(d_j(t)/(upper − c_j), −d_j(t)/(c_j − lower), ḋ_j(t)/v_j, −ḋ_j(t)/v_j, d̈_j(t)/a_j, −d̈_j(t)/a_j)

over the limits' grid (the library's tightened limits, whose sampling margin makes a limit kept at the grid hold
between the samples; the log-sum-exp is ≥ the maximum), so q_j = c_j + s_j d_j(t) is within every limit for every y,
and any unconstrained optimizer stays feasible (SLSQP lost ground from violations in stop 39; a penalty path did
worse, ``payload_direct_probe.py``). β is annealed (50, 200, 1000), L-BFGS with the exact gradient (the criterion's
∂/∂A through the library's regressor adjoint, then through the scaling).

The criterion: the target's own, a smooth maximum (p-norm, p = 16) of the variances of the inertia about the centre
over its six elements and eight payload hypotheses (``payload_direct_probe.centre_criterion``, rows weighted by
1/σ_j of the bench's noise), the minimax over the payload's unknown turn and centre.

Printed: the CRB of σ_I (median over bench_payload's ten 1 kg boxes, the largest element; ``crb_of``) of the final
series after the library's certified scaling into the limits (``_within_limits``), at the log's rate, and the CPU
time. The series is saved to /tmp/pay/ROBOT_feasible_K.npz (``payload_cases_probe.py`` fits the open cases on it;
``base`` there is START's base design when given, else the same series).
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
from bench_payload import INERTIA_DESIGN, SCOPE, box_payload, limits_of  # noqa: E402
from payload_direct_probe import RATES, build, centre_criterion, centre_jacobian, crb_of  # noqa: E402
from payload_warm_probe import packed, stretched, unpacked  # noqa: E402
from _helpers import lwr4_noise, ur_noise  # noqa: E402
from _scope import scope_line  # noqa: E402

SPAN = 0.95                  # the centres' share of each half range (tanh never reaches 1 anyway)
BETAS = (50.0, 200.0, 1000.0)


class Feasible:
    """y (n, m) → the problem's unknowns x within the limits, and the objective's gradient in y."""

    def __init__(self, problem):
        self.problem = problem
        lo, hi, v, a = problem._bounds[:4]
        self.lo, self.hi, self.v, self.a = lo, hi, v, a
        self.mid, self.half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        self.n, self.m = problem.n, problem.m
        self.B = problem.B                               # (3, S, m): column 0 the centre (1 in q, 0 in q̇, q̈)
        self.beta = BETAS[0]          # set per phase by main

    def _scales(self, y):
        """x (n, m), and per joint s, the LSE's weights w (6, S) and the ratio rows' pieces for the gradient."""
        u, z = y[:, 0], y[:, 1:]
        c = self.mid + SPAN * self.half * np.tanh(u)
        D = np.einsum("ksm,nm->ksn", self.B[:, :, 1:], z)          # (3, S, n): d, ḋ, d̈ of the directions
        up, down = self.hi - c, c - self.lo
        r = np.stack([D[0] / up, -D[0] / down, D[1] / self.v, -D[1] / self.v, D[2] / self.a, -D[2] / self.a])
        top = r.max(axis=(0, 1))                                   # (n,)
        e = np.exp(self.beta * (r - top))
        total = e.sum(axis=(0, 1))
        L = top + np.log(total) / self.beta
        w = e / total                                              # (6, S, n), Σ = 1 per joint
        s = 1.0 / L
        x = np.concatenate([c[:, None], s[:, None] * z], axis=1)
        return x, s, L, w, c, D, up, down

    def x(self, y):
        return self._scales(np.asarray(y).reshape(self.n, self.m))[0].ravel()

    def value_and_gradient(self, flat):
        y = flat.reshape(self.n, self.m)
        x, s, L, w, c, D, up, down = self._scales(y)
        f = self.problem.objective(x.ravel())
        g = self.problem.gradient(x.ravel()).reshape(self.n, self.m)
        z = y[:, 1:]
        # x_amp = s z: ∂f/∂z = s g_amp + (g_amp · z) ∂s/∂z, ∂s = −∂L/L²
        gz = (g[:, 1:] * z).sum(axis=1)                            # (n,)
        ds = -1.0 / L ** 2                                         # ∂s/∂L
        # ∂L/∂z_jk = Σ_s w·∂r/∂z: r's rows are B[kind][s, 1:] z_j scaled
        wq = w[0] / up - w[1] / down                               # (S, n)
        wv = (w[2] - w[3]) / self.v
        wa = (w[4] - w[5]) / self.a
        dL_dz = (np.einsum("sn,sm->nm", wq, self.B[0][:, 1:]) + np.einsum("sn,sm->nm", wv, self.B[1][:, 1:])
                 + np.einsum("sn,sm->nm", wa, self.B[2][:, 1:]))   # (n, m-1)
        # ∂L/∂c: r0 = d/(hi − c) → d/(hi − c)²; r1 = −d/(c − lo) → +d/(c − lo)²
        dL_dc = (w[0] * D[0] / up ** 2 + w[1] * D[0] / down ** 2).sum(axis=0)
        dc_du = SPAN * self.half * (1.0 - np.tanh(y[:, 0]) ** 2)
        grad = np.zeros_like(y)
        grad[:, 1:] = s[:, None] * g[:, 1:] + (gz * ds)[:, None] * dL_dz
        grad[:, 0] = (g[:, 0] + gz * ds * dL_dc) * dc_du
        return f, grad.ravel()

    def start(self, x):
        """y of a feasible x (n, m): its centre and its oscillation as the direction (rescaled by the LSE)."""
        x = np.asarray(x).reshape(self.n, self.m)
        u = np.arctanh(np.clip((x[:, 0] - self.mid) / (SPAN * self.half), -0.999, 0.999))
        return np.concatenate([u[:, None], x[:, 1:]], axis=1).ravel()


def main():
    from scipy.optimize import minimize
    print(scope_line(SCOPE))
    name = sys.argv[1]
    K = int(sys.argv[2]) if len(sys.argv) > 2 else 24
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    start_file = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] != "-" else None
    starts = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    betas = [float(b) for b in sys.argv[6].split(",")] if len(sys.argv) > 6 else BETAS
    dt = RATES[name]
    noise = lwr4_noise()[0] if name == "kuka_lwr4" else ur_noise()[0]
    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    problem, lim, _ = build(robot, noise, 20.0, K)
    Js = [centre_jacobian(box_payload(1.0, np.random.default_rng(2000 + k))) for k in range(8)]
    problem.use_criterion(centre_criterion(Js, 1.0 / np.asarray(noise), sharp=16.0))
    feasible = Feasible(problem)
    base = None
    if start_file == "design":      # the bench's inertia design (40 s of search), saved as the base
        settings = dict(INERTIA_DESIGN)
        budget = settings.pop("budget")
        base = bp.design_excitation(robot, limits=limits_of(robot)[0], time_budget=budget, seed=0, payload=True,
                                    rate=1.0 / dt, payload_joints=robot.n_dof, noise=noise, **settings).series
        start_file = f"/tmp/pay/{name}_design.npz"
        np.savez(start_file, period=base.period, q0=base.q0, a=base.a, b=base.b, base=packed(base))
    if start_file:
        saved = np.load(start_file)
        base = unpacked(saved["base"], robot.n_dof) if "base" in saved.files else None
        series = FourierSeries(float(saved["period"]), saved["q0"], saved["a"], saved["b"])
        repeat = int(round(20.0 / series.period))
        series = stretched(series, repeat, K) if series.harmonics * repeat <= K else series
        theta = series.coefficients
        x0s = [np.linalg.lstsq(problem.N, theta.T, rcond=None)[0].T.ravel()]
        print(f"{name}: start {start_file} ({series.period:g} s x {series.harmonics} as 20 s x {K}): CRB σ_I "
              f"{crb_of(robot, _within_limits(series, lim), dt, noise)[0]:.3e} kg·m²", flush=True)
    else:
        x0s = [problem.initial(np.random.default_rng([0, k])) for k in range(starts)]
    best = None
    for k, x0 in enumerate(x0s):
        t0 = time.process_time()
        y = feasible.start(x0)
        for beta in betas:
            feasible.beta = beta
            r = minimize(feasible.value_and_gradient, y, jac=True, method="L-BFGS-B",
                         options={"maxiter": iterations, "maxcor": 30, "ftol": 1e-14, "gtol": 1e-12})
            y = r.x
            x = feasible.x(y)
            series = _within_limits(problem.series(x), lim)
            value, _ = crb_of(robot, series, dt, noise)
            print(f"  start {k} β {beta:g}: criterion {r.fun:.4f} ({r.nit} iterations), violation "
                  f"{problem.violation(x):.1e}, CRB σ_I {value:.3e} kg·m² ({time.process_time() - t0:.0f} s CPU) "
                  f"{r.message}", flush=True)
        if best is None or value < best[0]:
            best = (value, series)
    series = best[1]
    np.savez(f"/tmp/pay/{name}_feasible_{K}.npz", period=series.period, q0=series.q0, a=series.a, b=series.b,
             base=packed(base if base is not None else series))
    print(f"{name}: best CRB σ_I {best[0]:.3e} kg·m², saved /tmp/pay/{name}_feasible_{K}.npz", flush=True)


if __name__ == "__main__":
    main()
