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
# # Floating-base robots: three routes to their inertial parameters
#
# A floating-base robot (a legged robot, a humanoid, a space robot) has six equations more than it
# has joints: those of its base link, with no actuator. Its equations of motion are linear in the
# standard parameters β,
#
# $$W(q, \dot q, \ddot q)\,\beta = \begin{bmatrix} 0 \\ \tau_\text{joints} \end{bmatrix} + \sum_c J_c(q)^\mathsf{T} w_c ,$$
#
# $w_c$ the wrench the ground (or anything touched) exerts at contact frame $c$ — what a force
# plate or a foot force-torque sensor measures. `bp.identify_floating` offers three routes:
#
# | route | rows | needs | sees |
# |---|---|---|---|
# | `'torques'` | all 6 + n | joint torques, contact wrenches | inertial parameters, friction, rotor inertia |
# | `'base'` | the base's six | contact wrenches only (Ayusawa et al.) | every link's inertial parameters, no drive parameter |
# | `'momentum'` | momentum h = H(q, q̇) β, constant | positions and velocities only | the same inertial combinations, up to scale |
#
# The momentum route and the base route of a robot without contacts are homogeneous: the data say
# nothing about the scale of β, so one known quantity (the total mass) fixes it.
#
# 1. **solo12 on force plates** — a quadruped standing on four force plates sways its base while
#    its feet stay put; routes `'torques'` and `'base'`.
# 2. **Liu et al.'s space robot** — free floating, driven by joint torques: all three routes on one
#    robot, and a physically consistent fit.

# %%
import os
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import baseparam as bp

# The repository (robots/, notebooks/_helpers.py) from any working directory: $BASEPARAM_ROOT, else the
# working directory or its parent (Jupyter starts the kernel in notebooks/), else the checkout the
# package was installed from (pip install -e).
ROOT = next(root for root in (Path(os.environ.get("BASEPARAM_ROOT", ".")), Path.cwd().parent,
                              Path(bp.__file__).resolve().parents[1])
            if (root / "notebooks" / "_helpers.py").is_file())
sys.path.insert(0, str(ROOT / "notebooks"))
from _helpers import robot_file, solo12_floating  # noqa: E402  (found just above)

plt.rcParams["figure.dpi"] = 72            # compact figures
pd.set_option("display.width", 120)


def errors_in_sigma(result, truth):
    """(estimate − truth) / σ of each combination the route identifies (those a known quantity fixes left out)."""
    seen = result.std > 0
    return (result.values[seen] - result.from_standard(truth)[seen]) / result.std[seen]


# %% [markdown]
# ## 1. solo12 standing on force plates
#
# example-robot-data's solo12 (12 joints), loaded with `bp.load_robot(path, floating=True)` (its root
# link flies, pinocchio's free-flyer). Its four feet
# are point contacts at the ankles' origins on the lower legs. The base sways (±3 cm, ±0.15 rad) for
# 8 s; `bp.stance_motion` solves the legs (Newton, per sample) so that the feet stay where they
# stand. `bp.contact_experiment` then computes the 6 + 12 generalized forces the motion needs
# (inverse dynamics), splits the base's six over the feet (forces only, minimum norm: no friction
# cone, no contact dynamics), and logs joint torques and foot forces with sensor noise.

# %%
solo, feet = solo12_floating()
model = bp.Model(solo)                              # the URDF's inertias: the truth
truth = model.values()
q0 = np.r_[0, 0, 0.25, 0, 0, 0, 1, [0.0, 0.8, -1.6] * 4]
t = np.linspace(0, 8, 801)
position = np.column_stack([0.03 * np.sin(1.1 * t), 0.03 * np.sin(0.7 * t + 1), 0.25 + 0.03 * np.sin(1.7 * t + 2)])
angles = np.column_stack([0.15 * np.sin(0.9 * t), 0.12 * np.sin(1.3 * t + 0.5), 0.12 * np.sin(1.9 * t + 1)])
q, qd, qdd = bp.stance_motion(solo, t, q0, position, angles, feet)
plates = bp.contact_experiment(model, t, q, qd, qdd, feet, point=True, noise=bp.SensorNoise(tau=0.01, seed=3),
                               wrench_noise=(0.2, 0.0), seed=3)
print(f"{solo.name}: {solo.n_dof} joints, {len(truth)} standard parameters, {len(feet)} feet")
print("\n".join(plates.notes))

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3))
for k, c in enumerate(feet):
    axes[0].plot(t, plates.wrenches[:, k, 2], lw=0.8, label=c.name)
axes[0].set(xlabel="t [s]", ylabel="logged normal force [N]", title="foot forces (lower-leg frame z)")
axes[0].legend(fontsize=8)
axes[1].plot(t, plates.log.tau[:, 6:], lw=0.7)
axes[1].set(xlabel="t [s]", ylabel="τ [N·m]", title="joint torques (logged)")
fig.tight_layout()

# %% [markdown]
# ### Routes `'torques'` and `'base'`
#
# Each route reports the combinations of standard parameters it sees, their estimates and standard
# deviations. They are the exact base set's (`bp.find_base_parameters`, the projection method with
# the base pose as a 6-DOF joint): all rows see its base parameters, the base's six rows those it
# flags `seen_by_base_equations` — the engine alone decides (the tests check it against pinocchio)
# (`result.source == 'projection'`). solo12 declares no friction, so both routes see the same 94:
# the base equations alone, fed by the force plates, identify every inertial combination.

# %%
results = {}
for route in ("torques", "base"):
    start = time.perf_counter()
    results[route] = bp.identify_floating(solo, plates.log, route=route, contacts=feet, wrenches=plates.wrenches)
    z = errors_in_sigma(results[route], truth)
    print(f"{route:8s} {results[route].rank} combinations, |error| ≤ {np.abs(z).max():.2f} σ, "
          f"{time.perf_counter() - start:.2f} s")
base_set = bp.find_base_parameters(solo)
print(f"base set: {base_set.rank} base parameters, {int(base_set.seen_by_base_equations.sum())} seen by the base "
      f"equations; combinations from: {results['base'].source}")
longest = max(results["base"].combinations(), key=len)
print("the longest combination:", longest)

# %%
# precision: each combination's σ relative to the torques route's (many true values are 0: products of
# inertia, first moments across a symmetry plane, so a σ relative to the value says little)
table = pd.DataFrame({route: {"combinations seen": r.rank, "max |error|/σ": np.abs(errors_in_sigma(r, truth)).max(),
                              "median σ / σ(torques)": np.median(r.std / results["torques"].std)}
                      for route, r in results.items()}).T
table

# %% [markdown]
# The base route needs no joint-torque sensor at all and sees the same inertial combinations; it pays
# in precision (six rows per sample instead of eighteen).

# %% [markdown]
# ## 2. The space robot: three routes on one robot
#
# `robots/space_robot.yaml`: a 400 kg hexagonal body carrying two 3R arms, no gravity. The arms are
# driven by sums of sines for 20 s and the whole system floats freely (`bp.free_floating_experiment`,
# a `bp.simulate` run). The log has torque noise, joint-velocity noise and a gyro-like noise on the
# base twist. With no external force the momentum is conserved: route `'momentum'` uses only
# positions and velocities, and the total mass (448 kg) fixes the scale.

# %%
space = bp.load_robot(robot_file("space_robot.yaml"))
k = np.arange(1, 7)


def drive(t, q, qd):
    return 3 * np.sin(0.5 * k * t + k) + 2 * np.sin(0.43 * k * t)


orbit = bp.free_floating_experiment(bp.Model(space), np.linspace(0, 20, 801), drive,
                                    noise=bp.SensorNoise(tau=0.05, qd=0.002, seed=1), twist_noise=0.0005, seed=1)
h = bp.momentum(bp.Model(space), orbit.truth.q, orbit.truth.qd)
print(f"momentum drift over the motion (true states): {np.abs(h - h[0]).max():.2e}")

# %%
space_truth = orbit.parameters
routes = {"torques": {}, "base": {"known": {"mass": 448.0}}, "momentum": {"known": {"mass": 448.0}}}
space_results = {route: bp.identify_floating(space, orbit.log, route=route, **options)
                 for route, options in routes.items()}
rows = {}
reference = space_results["torques"].std
for route, r in space_results.items():
    z = errors_in_sigma(r, space_truth)
    seen = r.std > 0
    rows[route] = {"combinations seen": r.rank, "known": r.known or "—", "max |error|/σ": np.abs(z).max(),
                   "median σ / σ(torques)": np.median(r.std[seen] / reference[seen])}
pd.DataFrame(rows).T

# %% [markdown]
# All three routes see the same 52 combinations of the 70 standard parameters (no gravity: the
# base equations are the momentum's rate). The joint torques pin the scale by themselves; the two
# homogeneous routes take it from the total mass. Each fit is a feasible GLS: each sample's rows
# whitened by their noise covariance, estimated from the residual (docs/method.md). With noisy
# velocities the torques and base routes' regressors are themselves noisy (errors in variables):
# the torques route models it (each sample's covariance grows with how much a q̇ error moves its
# rows); the base route, whose rows of a free robot have no noise but through q̇, keeps its weights
# and takes its covariance from the samples' own scores (a sandwich: the σ hold whatever the noise's
# form); the momentum route, linear in q̇, stays calibrated.
#
# A physically consistent fit (every body's pseudo-inertia positive semidefinite, the total mass
# held) of the momentum route gives masses per body:

# %%
consistent = bp.identify_floating(space, orbit.log, route="momentum", known={"mass": 448.0}, method="consistent")
layout = bp.ColumnLayout(space, "pseudo")
masses = [consistent.standard[c[9]] for c in [layout.base_columns, *layout.link_columns]]
pd.DataFrame({"identified mass [kg]": masses, "true [kg]": [space_truth[c[9]] for c in
                                                              [layout.base_columns, *layout.link_columns]]},
             index=["base"] + [f"link {j}" for j in range(1, 7)]).round(3)

# %% [markdown]
# Individual masses are not among the 52 combinations (the masses regroup with first moments and
# the base's inertia), so the consistent fit's split of them is the prior's (the description's
# values) within what the data allow — the total and every identified combination are the data's.

# %%
fig, ax = plt.subplots(figsize=(11, 3))
for route, r in space_results.items():
    ax.plot(errors_in_sigma(r, space_truth), ".", label=route)
ax.axhline(3, color="k", lw=0.5)
ax.axhline(-3, color="k", lw=0.5)
ax.set(xlabel="combination", ylabel="(estimate − truth) / σ", title="space robot: each route against the truth")
ax.legend(fontsize=8)
fig.tight_layout()
