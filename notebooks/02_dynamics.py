# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Dynamics of the PUMA 560 in base parameters
#
# Inverse dynamics, the base regressor and the Slotine–Li regressor of the paper's PUMA 560, with
# made-up but physically valid links (solid boxes). Everything numeric is SI; `p` is the standard
# parameter vector in the order of `base.standard_names`.

# %%
import os
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import baseparam as bp

# The repository (robots/, bench/, notebooks/_helpers.py) from any working directory: $BASEPARAM_ROOT,
# else the working directory or its parent (Jupyter starts the kernel in notebooks/), else the checkout
# the package was installed from (pip install -e).
ROOT = next(root for root in (Path(os.environ.get("BASEPARAM_ROOT", ".")), Path.cwd().parent,
                              Path(bp.__file__).resolve().parents[1])
            if (root / "notebooks" / "_helpers.py").is_file())
sys.path.insert(0, str(ROOT / "notebooks"))
from _helpers import robot_file  # noqa: E402  (found just above)

robot = bp.load_robot(robot_file("puma560.yaml"))
base = bp.find_base_parameters(robot)
print(base)

# %% [markdown]
# A random solid box per link gives pseudo-inertia parameters that a real body could have:
# second moments Σ = ∫ r rᵀ dm about the link frame, first moments m·c and the mass.

# %%
rng = np.random.default_rng(7)

def box_parameters(rng):
    m = rng.uniform(1, 10)
    size = rng.uniform(0.05, 0.4, 3)
    c = rng.uniform(-0.2, 0.2, 3)
    R, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    S = R @ np.diag(m * size**2 / 12) @ R.T + m * np.outer(c, c)   # ∫ r rᵀ dm about the frame origin
    return [S[0, 0], S[1, 1], S[2, 2], S[0, 1], S[0, 2], S[1, 2], *(m * c), m]

p = np.concatenate([box_parameters(rng) for _ in robot.joints])
model = bp.Model(robot, p)          # the robot with these parameters: what the dynamics take
p_base = base.from_standard(p)
len(p), len(p_base)

# %% [markdown]
# A smooth trajectory: each joint a sum of two sines.

# %%
t = np.linspace(0, 10, 2001)
w = rng.uniform(0.2, 1.0, (2, 6)); phase = rng.uniform(0, 2 * np.pi, (2, 6)); amp = rng.uniform(0.3, 1.0, (2, 6))
q = sum(amp[i] * np.sin(w[i] * t[:, None] + phase[i]) for i in range(2))
qd = sum(amp[i] * w[i] * np.cos(w[i] * t[:, None] + phase[i]) for i in range(2))
qdd = sum(-amp[i] * w[i]**2 * np.sin(w[i] * t[:, None] + phase[i]) for i in range(2))

tau = bp.inverse_dynamics(model, q, qd, qdd)             # recursive Newton–Euler
Wb = base.regressor(q, qd, qdd)                          # (2001, 6, 36)
print("max |W_b p_base − τ| =", np.abs(Wb @ p_base - tau).max(), " max |τ| =", np.abs(tau).max())

# %%
fig, axes = plt.subplots(2, 3, figsize=(12, 5), sharex=True)
g = bp.gravity_torque(model, q)
for j, ax in enumerate(axes.flat):
    ax.plot(t, tau[:, j], label="τ (Newton–Euler)")
    ax.plot(t, (Wb @ p_base)[:, j], "--", label="W_b · p_base")
    ax.plot(t, g[:, j], ":", label="gravity g(q)")
    ax.set_title(f"joint {j + 1}"); ax.set_xlabel("t [s]")
axes[0, 0].set_ylabel("N·m"); axes[0, 0].legend(fontsize=8)
fig.tight_layout()

# %% [markdown]
# The mass matrix is symmetric positive definite, and the Coriolis matrix of the Slotine–Li
# regressor is the Christoffel one, so Ṁ − 2C is skew-symmetric (Ṁ by central differences here).

# %%
k = 500
M = bp.mass_matrix(model, q[k])
C = bp.coriolis_matrix(model, q[k], qd[k])
h = 1e-6
Mdot = (bp.mass_matrix(model, q[k] + h * qd[k]) - bp.mass_matrix(model, q[k] - h * qd[k])) / (2 * h)
N = Mdot - 2 * C
print("eigenvalues of M:", np.round(np.linalg.eigvalsh(M), 4))
print("max |N + Nᵀ| =", np.abs(N + N.T).max(), "  max |N| =", np.abs(N).max())

# %% [markdown]
# The Slotine–Li regressor, as an adaptive controller uses it: with a reference velocity
# q̇_r = q̇_d − Λ(q − q_d), Y(q, q̇, q̇_r, q̈_r) p_base = M q̈_r + C q̇_r + g.

# %%
lam = 5.0
q_err = 0.01 * rng.normal(size=q.shape)
qd_ref, qdd_ref = qd - lam * q_err, qdd          # any reference will do for this identity
Ysl = base.slotine_li_regressor(q + q_err, qd, qd_ref, qdd_ref)
M_all = bp.mass_matrix(model, q + q_err)
C_all = bp.coriolis_matrix(model, q + q_err, qd)
direct = (M_all @ qdd_ref[..., None] + C_all @ qd_ref[..., None])[..., 0] + bp.gravity_torque(model, q + q_err)
print("max |Y p_base − (M q̈_r + C q̇_r + g)| =", np.abs(Ysl @ p_base - direct).max())

# %% [markdown]
# Speed: the base regressor is compiled once per robot into straight-line numpy code.

# %%
qs, qds, qdds = (rng.uniform(-2, 2, (100_000, 6)) for _ in range(3))
out = np.empty((100_000, 6, base.rank))
base.regressor(qs, qds, qdds, out=out)                  # warm-up: compiles, touches memory
t0 = time.perf_counter(); base.regressor(qs, qds, qdds, out=out); dt = time.perf_counter() - t0
print(f"base regressor, 100 000 samples: {dt:.3f} s")
