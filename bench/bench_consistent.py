"""The physically consistent fit (core of issue 13) against OLS on the measured KUKA LWR4+ data.

``python bench/bench_consistent.py`` preprocesses the README's split (train ``measurements_3.npz``,
validate ``measurements_1.npz``, default preprocessing), fits OLS and the LMI-constrained standard
parameters (J_k ⪰ 1e-6·I, FV, FC ≥ 0) on the same base regressor, and prints the pooled validation
NRMSE of both, the smallest pseudo-inertia eigenvalue per link, and the solve time (after the normal
equations). Figures, not assertions: the fit is not wired into ``bp.identify`` yet.
"""
from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np

import baseparam as bp
from baseparam.identification._consistent import consistent_fit, pseudo_inertia

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "kuka_lwr4"


def stacked(base, processed):
    keep = processed.kept
    W = base.regressor(processed.q[keep], processed.qd[keep], processed.qdd[keep])
    return W.reshape(-1, base.rank), processed.tau[keep].reshape(-1)


def nrmse(W, tau, x):
    return 100 * np.linalg.norm(tau - W @ x) / np.linalg.norm(tau)


def main():
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    base = bp.find_base_parameters(robot)
    train = bp.preprocess(bp.read_trajectory(DATA / "measurements_3.npz"))
    valid = bp.preprocess(bp.read_trajectory(DATA / "measurements_1.npz"))
    W, tau = stacked(base, train)
    Wv, tauv = stacked(base, valid)
    ols = np.linalg.lstsq(W, tau, rcond=None)[0]
    start = time.perf_counter()
    G, h = W.T @ W, W.T @ tau
    normal = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = consistent_fit(base, G, h, tau @ tau)
    solve = time.perf_counter() - start
    layout = bp.ColumnLayout(robot)
    ols_p = np.linalg.lstsq(np.asarray(base.Y, float), ols, rcond=None)[0]   # one standard p behind the OLS x
    print(f"KUKA LWR4+ ({len(tau) // robot.n_dof} training samples): validation NRMSE pooled")
    print(f"  OLS         {nrmse(Wv, tauv, ols):6.2f} %   train {nrmse(W, tau, ols):5.2f} %")
    print(f"  consistent  {nrmse(Wv, tauv, fit.x):6.2f} %   train {nrmse(W, tau, fit.x):5.2f} %   "
          f"solver {fit.status}, {solve:.3f} s (+ normal equations {normal:.3f} s)")
    print("  smallest eigenvalue of J_k, consistent:", " ".join(f"{v:.2e}" for v in fit.min_eigenvalues))
    print("  (min-norm standard p behind OLS:", " ".join(
        f"{np.linalg.eigvalsh(pseudo_inertia(ols_p[c]))[0]:.2e}" for c in layout.link_columns) + ")")


if __name__ == "__main__":
    main()
