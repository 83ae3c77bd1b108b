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
# # Payload identification: the tool on the flange
#
# A gripper, a camera, a tool: the controller must know its mass, centre of mass and inertia.
# `bp.identify_payload` treats the payload as one more rigid body fixed to the last link. Its 10
# parameters enter the joint torques through that link's 10 regressor columns, and the base set's
# projection says which of them the joints can see (all ten behind a 3-axis wrist). The torque the
# payload explains is either the measured torque minus the robot model's prediction (**model mode**)
# or, with a log of the same motion without the payload, loaded minus unloaded (**difference mode**:
# what the model gets wrong cancels).
#
# This notebook:
#
# 1. identifies a payload on a simulated **KUKA LWR4+** and **UR10e** from 20 s of motion and compares
#    it with the truth;
# 2. compares that with a **static-pose estimate** (the robot held still in a few poses, as UR's
#    `estimate_payload()` does: mass and centre of mass only);
# 3. shows what a **wrong robot model** costs, and how the difference mode recovers;
# 4. identifies the real **2.805 kg load** of the UR10e logs of `../shared/data`, where the drive
#    gains turn out to be what matters.

# %%
import os
import sys
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
# found just above
from _helpers import (data_dir, lwr4_noise, multisine, robot_file, robot_values, simulated_log,  # noqa: E402
                      ur_noise)

plt.rcParams["figure.dpi"] = 72            # compact figures
pd.set_option("display.width", 120)

# %% [markdown]
# ## 1. A simulated payload on a 7-DOF and a 6-DOF arm
#
# The payload: 2 kg, its centre 30–60 mm off the flange axis, a full inertia tensor (a box, turned).
# The motion: a multi-sine of every joint, period 10 s, 20 s long, sampled at the real logs' rates
# (LWR4+ 200 Hz, UR10e 100 Hz). The torques: inverse dynamics of the description's bodies plus the
# payload on the last link (the test suite checks the same fit against pinocchio's torques). The
# noise: per joint, as measured on the real logs of `../shared/data` (`_helpers.py`'s `ur_noise` and
# `lwr4_noise`, which `bench/bench_payload.py` uses too). On the UR10e, what its current log shows above
# 10 Hz through the drive gains: about 1.1, 1.5, 0.8 N·m on joints 1–3, 0.2 on the wrist. The LWR4+'s
# published logs are low-passed at 8 Hz, but two of them repeat one trajectory: half their difference at
# the motion's frequencies (0.1–0.6 Hz), as white noise at 200 Hz, is about 1.2, 1.3, 1.8, 1.0, 0.45 N·m on
# joints 1–5 and 0.18, 0.11 on the last two.

# %%
NOISE = {"kuka_lwr4": lwr4_noise()[0], "ur10e": ur_noise()[0]}          # N·m per joint, from the real logs
print({name: np.round(sigma, 2).tolist() for name, sigma in NOISE.items()})
RATE = {"kuka_lwr4": 0.005, "ur10e": 0.01}
# the simulation (multisine, robot_values, simulated_log) is notebooks/_helpers.py's, shared with the bench

R = np.linalg.qr(np.random.default_rng(7).normal(size=(3, 3)))[0]
PAYLOAD = (2.0, np.array([0.03, -0.045, 0.06]), R @ np.diag([0.012, 0.009, 0.005]) @ R.T)
robots = {name: bp.load_robot(robot_file(f"{name}.yaml")) for name in ("kuka_lwr4", "ur10e")}
logs = {name: simulated_log(robots[name], PAYLOAD, NOISE[name], RATE[name]) for name in robots}
results = {name: bp.identify_payload(robots[name], logs[name]) for name in robots}
for name, r in results.items():
    print(name, r)


# %%
def compare(rows):
    """A table: mass (kg), com (mm), largest inertia error (kg·m²), against the truth."""
    m, c, I = PAYLOAD
    out = []
    for label, mass, com, inertia, mass_std in rows:
        out.append({"estimate": label, "mass [kg]": mass, "mass error [%]": 100 * (mass - m) / m,
                    "mass σ [kg]": mass_std, "com error [mm]": 1e3 * np.abs(com - c).max(),
                    "inertia error [kg·m²]": np.nan if inertia is None else np.abs(inertia - I).max()})
    return pd.DataFrame(out).set_index("estimate").round(4)


compare([(f"{name}, 20 s of motion", r.mass, r.com, r.inertia, r.mass_std) for name, r in results.items()])

# %% [markdown]
# Mass within a fraction of a percent and the centre of mass within 2 mm on both arms. The inertia
# about the centre of mass is the hard part: it is read from torques I·q̈ at the wrist, a few
# thousandths of a N·m per kg·m² and rad/s², under 0.1–1.8 N·m of noise. Its standard deviation,
# a few 1e-3 kg·m² on this multi-sine, is about the same for a 0.5 kg and a 5 kg tool
# (`bench/bench_payload.py`), so a light tool's inertia is known only to that absolute level. A motion
# designed for it (`baseparam excite ROBOT --payload --payload-joints 7 --criterion inertia --noise …`: every
# joint moving, the sum of the inertia's variances minimized with this noise) lowers it about thirty times:
# to 2.5e-4 kg·m² on the LWR4+ and 4.6e-4 on the UR10e, enough for "10 % of λmax at 3σ" from about 1.3 and
# 1.8 kg (`bench/bench_payload.py`).

# %%
for name, r in results.items():
    print(f"{name}: inertia (kg·m²) identified ± σ, and the truth")
    print(pd.DataFrame(np.round(r.inertia, 4)).astype(str) + " ± " + pd.DataFrame(np.round(r.inertia_std, 4)).astype(str))
    print(np.round(PAYLOAD[2], 4))

# %% [markdown]
# ## 2. A static-pose estimate
#
# Static mode is the vendors' way (UR's `estimate_payload()` from at least four still poses): with
# the robot at rest, only gravity acts, so the torques tell the mass and the first moments m·c —
# no inertia. `baseparam payload --static` (and `bp.identify_payload(..., static=True)`) is that mode; here the
# estimate is computed directly: the robot held 2 s in each of six poses, the still samples averaged
# per pose, and a plain least-squares fit of the payload's gravity torques (the last link's regressor
# columns at q̇ = q̈ = 0, which only SX, SY, SZ and M reach) to the measured minus the model's.

# %%
def static_estimate(robot, payload, noise, dt, n_poses=6, hold=2.0, seed=3):
    rng = np.random.default_rng(seed)
    poses = rng.uniform(-1.2, 1.2, (n_poses, robot.n_dof))
    zero = np.zeros_like(poses)
    truth = bp.Model(robot, robot_values(robot, payload), parameters="pseudo")
    model = bp.Model(robot, robot_values(robot), parameters="pseudo")
    samples = int(hold / dt)
    # the mean of `samples` still samples per pose: the noise shrinks by √samples
    measured = bp.inverse_dynamics(truth, poses, zero, zero) + rng.normal(0, 1, poses.shape) * noise / np.sqrt(samples)
    y = measured - bp.inverse_dynamics(model, poses, zero, zero)
    columns = bp.ColumnLayout(robot, "pseudo").link_columns[-1][6:]     # the last link's SX SY SZ M
    W = bp.regressor(model, poses, zero, zero)[:, :, columns]
    w = 1 / noise                                       # each joint by its noise
    x = np.linalg.lstsq((W * w[None, :, None]).reshape(-1, 4), (y * w).ravel(), rcond=None)[0]
    return x[3], x[:3] / x[3]


rows = []
for name in robots:
    r = results[name]
    rows.append((f"{name}, 20 s of motion", r.mass, r.com, r.inertia, r.mass_std))
    mass, com = static_estimate(robots[name], PAYLOAD, NOISE[name], RATE[name])
    rows.append((f"{name}, 6 still poses × 2 s", mass, com, None, np.nan))
compare(rows)

# %% [markdown]
# Twelve seconds of still poses give mass and centre of mass about as well as the motion does
# (averaging beats noise either way), but nothing about the inertia; the motion gives all ten
# parameters.

# %% [markdown]
# ## 3. What a wrong model costs
#
# Model mode subtracts the robot model's prediction: every error of the model lands in the payload.
# Here the UR10e log of section 1 is identified with a model whose bodies are all 5 % heavier than
# the truth. Then the same motion is "recorded" again without the payload (the unloaded log, noise
# of its own, starting 0.7 s earlier), and the difference mode identifies the payload with the same
# wrong model.

# %%
ur = robots["ur10e"]
wrong = bp.Model(ur, robot_values(ur, scale=1.05), parameters="pseudo")
t, q, qd, qdd = multisine(ur.n_dof, RATE["ur10e"], duration=21.0)
rng = np.random.default_rng(11)
free = bp.inverse_dynamics(bp.Model(ur, robot_values(ur), parameters="pseudo"), q, qd, qdd)
unloaded = bp.Trajectory(t=t[:2070], q=q[:2070], tau=free[:2070] + rng.normal(0, 1, (2070, 6)) * NOISE["ur10e"])
loaded = logs["ur10e"]
on_wrong = bp.identify_payload(wrong, loaded)
difference = bp.identify_payload(wrong, bp.Trajectory(t=loaded.t[70:] + 50.0, q=loaded.q[70:], tau=loaded.tau[70:]),
                                 unloaded=unloaded)
compare([("right model", results["ur10e"].mass, results["ur10e"].com, results["ur10e"].inertia,
          results["ur10e"].mass_std),
         ("bodies 5 % heavier, model mode", on_wrong.mass, on_wrong.com, on_wrong.inertia, on_wrong.mass_std),
         ("bodies 5 % heavier, difference mode", difference.mass, difference.com, difference.inertia,
          difference.mass_std)])

# %% [markdown]
# A 5 % error of the arm's bodies — small for a CAD model — moves the 2 kg payload's mass by far
# more than its standard deviation says: σ measures the noise, not the model. With the unloaded
# log of the same motion, the model's error cancels (only its effect through the small difference of
# states remains) and the payload comes back.

# %% [markdown]
# ## 4. The real UR10e: a 2.805 kg load
#
# `../shared/data/ur10e` holds two logs of one motion, without and with a 2.805 kg load. They log
# motor currents, so torque = drive gain × current. With the drive gains the dataset's authors
# published (identified from these very logs together with a whole-robot model), the difference mode
# gives about 2.47 kg: −12 %. Delay, filtering, friction terms and the choice of joints move that by
# less than 3 % (`bench/bench_payload_real.py`), and joints 2 and 3 disagree with each other.
#
# The logs also hold the torque the controller commanded and the current it commanded for it. The
# line between the two is the controller's own torque constant per joint, plus its friction
# compensation: `--gains-from-targets` fits it. Those constants are 6–19 % above the published ones.

# %%
from baseparam.identification import controller_gains  # noqa: E402

UR_DIR = data_dir("ur10e") / "identification_data"
LOADED, UNLOADED = UR_DIR / "ur-20_02_19_14harm50secLoad.csv", UR_DIR / "ur-20_02_19_14harm50sec.csv"
COLUMNS = "t=0,q=1:7,qd=7:13,current=13:19"
PUBLISHED = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]

targets = [(bp.read_trajectory(p, columns="t=0,q=1:7,qd=7:13,tau=25:31"),
            bp.read_trajectory(p, columns="t=0,q=1:7,qd=7:13,current=19:25", gains=1.0)) for p in (LOADED, UNLOADED)]
found = controller_gains([a.tau for a, _ in targets], [b.tau for _, b in targets], [a.qd for a, _ in targets])
print(found)
pd.DataFrame({"published (identified)": PUBLISHED, "controller's": found.gains,
              "ratio": found.gains / PUBLISHED}, index=[f"joint {j}" for j in range(1, 7)]).round(4)

# %%
fig, ax = plt.subplots(figsize=(7, 3))
a, b = targets[1]
ax.plot(a.tau[:, 1], b.tau[:, 1], ".", ms=1)
ax.set_xlabel("commanded torque, joint 2 [N·m]")
ax.set_ylabel("commanded current [A]")
ax.set_title(f"the controller's map: slope 1/{found.gains[1]:.2f} A/N·m, the two branches its friction "
             "compensation", fontsize=9)
fig.tight_layout()

# %%
real = {}
for label, gains in (("published gains", PUBLISHED), ("controller's gains", found.gains.tolist())):
    real[label] = bp.identify_payload(str(robot_file("ur10e.yaml")),
                                      bp.read_trajectory(LOADED, columns=COLUMNS, gains=gains),
                                      unloaded=bp.read_trajectory(UNLOADED, columns=COLUMNS, gains=gains))
pd.DataFrame({label: {"mass [kg]": r.mass, "error [%]": 100 * (r.mass - 2.805) / 2.805, "σ [kg]": r.mass_std,
                      "com x [mm]": 1e3 * r.com[0], "com y [mm]": 1e3 * r.com[1], "com z [mm]": 1e3 * r.com[2]}
              for label, r in real.items()}).round(3)

# %% [markdown]
# With the controller's torque constants the load comes out at 2.79 kg (−0.5 %), and joints 2 and 3,
# fitted alone, agree (2.77 and 2.72 kg instead of 2.47 and 2.36). The standard deviation, 7 g, still
# only measures noise: the remaining error is the model's and the gains'. The same from the command
# line:
#
# ```bash
# D=../shared/data/ur10e/identification_data
# baseparam payload robots/ur10e.yaml $D/ur-20_02_19_14harm50secLoad.csv --unloaded $D/ur-20_02_19_14harm50sec.csv \
#     --columns t=0,q=1:7,qd=7:13,current=13:19 --gains-from-targets tau=25:31,current=19:25 --json payload.json
# ```
#
# and in the controller's format (the frame is the UR10e description's DH frame 6 = `tool0`):

# %%
real["controller's gains"].to_vendor("ur")

# %% [markdown]
# Without a log of the same motion unloaded (model mode), the model's errors land in the payload.
# `robots/ur10e.yaml`'s own values — its CAD bodies, its friction and rotor inertias declared without
# values — give 3.57 kg (+27 %; its bodies alone +21 %). A model identified on an unloaded log with the
# same gains, `baseparam identify … --method consistent --yaml model.yaml` then `baseparam payload …
# --model model.yaml`, gives 2.79 kg (−0.4 %) on this log, 2.80–2.81 kg with a model identified on
# older logs of another motion, and 2.70–2.73 kg on the other loaded log, of another motion
# (`bench/bench_payload_real.py` prints each row).
