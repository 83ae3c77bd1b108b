"""What the notebooks share: where the repository and the measured data are, and the figures and tables
that the two identification notebooks (03, 04) draw the same way.

Notebook-only code: it lives beside the notebooks, not in the library. Each notebook's first cell
puts this directory on ``sys.path`` (see notebooks/README.md, "Running from anywhere"). The simulated
payload (multi-sine, the bodies' values, a noisy log) also serves ``bench/bench_payload.py`` and the
payload tests, so the three simulate the same motion.

Paths
-----
ROOT
    The repository: the parent of this directory, wherever the kernel was started.
DATA
    The third-party recordings, ``$BASEPARAM_DATA`` or ``ROOT/../shared/data`` (beside the
    repository, never copied into it).
"""
from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("BASEPARAM_DATA") or ROOT.parent / "shared" / "data")


def robot_file(name):
    """``ROOT/robots/NAME`` (a robot description shipped with the repository)."""
    return ROOT / "robots" / name


def data_dir(subdir):
    """``DATA/SUBDIR``, the recordings of one robot; a missing directory is one clear error."""
    path = DATA / subdir
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: measured data not found; set BASEPARAM_DATA to the directory "
                                f"that holds {subdir}/")
    return path


# ------------------------------------------------------------------------------------------------------------
# A simulated payload (notebook 09, bench/bench_payload.py, tests/test_payload*.py)

def multisine(n, dt, duration=20.0, period=10.0, seed=0):
    """q, q̇, q̈ of a multi-sine per joint (8 harmonics of the period), exact derivatives.

    Returns
    -------
    t : ndarray, shape (S,)
    q, qd, qdd : ndarray, shape (S, n)
        About 0.3 rad ± 0.6 rad; |q̈| up to a few rad/s².
    """
    rng = np.random.default_rng(seed)
    t = np.arange(0, duration, dt)
    w = 2 * np.pi / period
    q, qd, qdd = (np.zeros((len(t), n)) for _ in range(3))
    for j in range(n):
        for k in range(1, 9):
            a, ph = rng.uniform(0.1, 0.3) / k, rng.uniform(0, 2 * np.pi)
            q[:, j] += a * np.sin(k * w * t + ph)
            qd[:, j] += a * k * w * np.cos(k * w * t + ph)
            qdd[:, j] -= a * (k * w) ** 2 * np.sin(k * w * t + ph)
    return t, q + 0.3, qd, qdd


def robot_values(robot, payload=None, scale=1.0):
    """The standard (pseudo) parameters of the description's bodies × scale, the payload (mass, com (3,),
    inertia (3, 3)) added to the last link: ndarray, shape (n_standard,); the drive terms (friction, rotor
    inertia) 0. Public names only, as the notebooks: ``bp.standard_parameters`` of the robot without drive terms
    (the bodies' 10 columns each), and of that robot with the payload alone as its last link."""
    import dataclasses

    import baseparam as bp

    def bodies_of(joints):
        bare = [dataclasses.replace(j, friction=(False, False, False), rotor_inertia=False, friction_model=None)
                for j in joints]
        return bp.standard_parameters(dataclasses.replace(robot, joints=bare), "pseudo").reshape(-1, 10)

    links = bp.ColumnLayout(robot, "pseudo").link_columns
    p = np.zeros(bp.ColumnLayout(robot, "pseudo").n_standard)
    p[links] = scale * bodies_of(robot.joints)
    if payload is not None:
        carrying = dataclasses.replace(robot.joints[-1], inertia=bp.Inertia(*payload))
        p[links[-1]] += bodies_of([*robot.joints[:-1], carrying])[-1]
    return p


def simulated_log(robot, payload, noise, dt, seed=1, motion=None):
    """A Trajectory of the bodies and the payload's inverse dynamics on ``motion`` ((t, q, qd, qdd); default
    the multi-sine at step dt), with 1e-4 rad of position noise and ``noise`` (N·m, per joint) on the torques."""
    import baseparam as bp
    t, q, qd, qdd = multisine(robot.n_dof, dt) if motion is None else motion
    tau = bp.inverse_dynamics(bp.Model(robot, robot_values(robot, payload), parameters="pseudo"), q, qd, qdd)
    rng = np.random.default_rng(seed)
    return bp.Trajectory(t=t, q=q + rng.normal(0, 1e-4, q.shape), tau=tau + rng.normal(0, 1, tau.shape) * noise)


# The real logs' torque noise per joint, as white noise at the log's rate (notebook 09, bench/bench_payload.py)
UR_NOISE_LOG = DATA / "ur10e" / "identification_data" / "ur-20_02_19_14harm50sec.csv"
LWR4_REPEATS = [DATA / "kuka_lwr4" / f"measurements_{i}.npz" for i in (1, 2)]
UR_PUBLISHED_GAINS = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]


def ur_noise():
    """Per-joint std (N·m) of the UR10e log's torque above 10 Hz (the current × gain minus its low-pass)."""
    from scipy.signal import butter, filtfilt
    if not UR_NOISE_LOG.is_file():
        return np.array([0.3, 0.3, 0.3, 0.05, 0.05, 0.05]), "assumed (log absent)"
    import baseparam as bp
    traj = bp.read_trajectory(UR_NOISE_LOG, columns="t=0,q=1:7,qd=7:13,current=13:19", gains=UR_PUBLISHED_GAINS)
    dt = float(np.median(np.diff(traj.t)))
    t = np.arange(traj.t[0], traj.t[-1], dt)
    tau = np.column_stack([np.interp(t, traj.t, traj.tau[:, j]) for j in range(6)])
    b, a = butter(4, 10.0 / (0.5 / dt))
    return np.std(tau - filtfilt(b, a, tau, axis=0), axis=0), "measured above 10 Hz on the real log"


def lwr4_repeats():
    """The LWR4+ logs measurements_1 and _2, which repeat one trajectory, lined up to the sub-sample by their
    positions: (a, inside, of_b) — the first run's arrays (dict), the mask of its samples both runs cover (0.5 s
    kept clear of either end) and ``of_b(key)``, the second run's array ``key`` at those samples, shape (S, 7)."""
    from scipy.optimize import minimize_scalar
    a, b = (dict(np.load(f)) for f in LWR4_REPEATS)       # arrays read once (an NpzFile re-reads on each access)
    ta, tb = a["times"] - a["times"][0], b["times"] - b["times"][0]

    def mismatch(s):
        inside = (ta + s > 0) & (ta + s < tb[-1])
        return np.mean([(a["positions"][inside, j] - np.interp(ta[inside] + s, tb, b["positions"][:, j])) ** 2
                        for j in range(7)])
    s = minimize_scalar(mismatch, bounds=(-0.02, 0.02), method="bounded").x
    inside = (ta + s > 0.5) & (ta + s < tb[-1] - 0.5)

    def of_b(key):
        return np.column_stack([np.interp(ta[inside] + s, tb, b[key][:, j]) for j in range(7)])
    return a, inside, of_b


def white_in_band(x, band, rate=200.0):
    """Per-column σ, shape (n,), of the white noise at ``rate`` Hz with the spectral density (one-sided, Welch)
    that ``x``, shape (S, n), sampled at ``rate`` Hz, has in ``band`` (Hz): σ = √(S·rate/2)."""
    from scipy.signal import welch
    f, P = welch(x, fs=rate, nperseg=1024, axis=0)
    return np.sqrt(P[(f >= band[0]) & (f < band[1])].mean(axis=0) * rate / 2)


def lwr4_noise(rate=200.0, band=(0.1, 0.6)):
    """Per-joint torque noise (N·m) of the LWR4+ as white noise at ``rate`` Hz with the spectral density
    the real logs have in ``band`` (the motions' harmonics): half the difference of measurements_1 and _2,
    which repeat one trajectory (:func:`lwr4_repeats`), is what the two runs do not share; its density S
    (one-sided, Welch) in the band is that of white noise of σ = √(S·rate/2)."""
    if not all(f.is_file() for f in LWR4_REPEATS):
        return np.full(7, 0.2), "assumed (logs absent)"
    a, inside, of_b = lwr4_repeats()
    return white_in_band((a["torques"][inside] - of_b("torques")) / np.sqrt(2), band, rate), (f"measured: the repeat runs' difference at {band[0]:g}–{band[1]:g} Hz "
                                   f"as white noise at {rate:g} Hz")


# ------------------------------------------------------------------------------------------------------------
# Figures and tables of the identification notebooks

def plot_time_steps(train_raw, val_raw):
    """Histograms of the logged time steps of the training and validation recordings."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 2.8))
    for ax, (label, traj) in zip(axes, (("training", train_raw), ("validation", val_raw))):
        dt = np.diff(traj.t) * 1e3
        ax.hist(dt, bins=80)
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.5)
        ax.set_xlabel("time step [ms]")
        ax.set_ylabel("count")
        ax.set_title(f"{label}: median {np.median(dt):.2f} ms (min {dt.min():.2f}, max {dt.max():.2f})",
                     fontsize=10)
    fig.tight_layout()
    return fig


def plot_trajectory(traj, title):
    """Joint positions and torques of one recording against time (from 0)."""
    import matplotlib.pyplot as plt

    t = traj.t - traj.t[0]
    fig, (ax_q, ax_tau) = plt.subplots(2, 1, figsize=(11, 5.5), sharex=True)
    for j in range(traj.n_dof):
        ax_q.plot(t, traj.q[:, j], lw=0.9, label=f"joint {j + 1}")
        ax_tau.plot(t, traj.tau[:, j], lw=0.9)
    ax_q.set_ylabel("q [rad]")
    ax_tau.set_ylabel("τ [N·m]")
    ax_tau.set_xlabel("t [s]")
    ax_q.legend(ncol=traj.n_dof, fontsize=8, loc="upper center")
    ax_q.set_title(title)
    fig.tight_layout()
    return fig


def describe(label, traj):
    """Two lines on one recording: file, size, duration, what is recorded, torque range."""
    return (f"{label:>10}: {Path(traj.source).name}  {traj.n_samples} samples × {traj.n_dof} joints, "
            f"{traj.t[-1] - traj.t[0]:.2f} s; q̇ {'recorded' if traj.qd is not None else 'to derive'}, "
            f"q̈ {'recorded' if traj.qdd is not None else 'to derive'}\n"
            f"{'':>12}max |τ| per joint [N·m]: {np.abs(traj.tau).max(axis=0).round(1)}")


def per_joint_errors(result):
    """RMS torque, RMSE and NRMSE per joint and pooled, training and validation, as a DataFrame."""
    import pandas as pd

    m_train, m_val = result.train, result.validation
    per_joint = pd.DataFrame({
        "RMS τ, validation [N·m]": np.sqrt((m_val.tau ** 2).mean(axis=0)),
        "RMSE train [N·m]": m_train.rmse, "RMSE validation [N·m]": m_val.rmse,
        "NRMSE train [%]": m_train.nrmse_percent, "NRMSE validation [%]": m_val.nrmse_percent,
    }, index=[f"joint {j + 1}" for j in range(len(m_val.rmse))])
    per_joint.loc["pooled"] = [np.sqrt((m_val.tau ** 2).mean()), np.sqrt((m_train.rmse ** 2).mean()),
                               np.sqrt((m_val.rmse ** 2).mean()), m_train.nrmse_pooled_percent,
                               m_val.nrmse_pooled_percent]
    return per_joint


def variants():
    """The choices :func:`compare_choices` tries, one changed at a time: ``{label: identify options}``."""
    import baseparam as bp

    return {
        "OLS, default preprocessing": {},
        "WLS (method='wls')": dict(method="wls"),
        "no low-pass (cutoff_hz=None)": dict(preprocessing=bp.Preprocessing(cutoff_hz=None)),
        "no rest trimming (rest_velocity=None)": dict(preprocessing=bp.Preprocessing(rest_velocity=None)),
        "as logged (Preprocessing.none())": dict(preprocessing=bp.Preprocessing.none()),
    }


def compare_choices(robot, train_raw, val_raw):
    """The same fit with one choice changed at a time (:func:`variants`), scored on the held-out file.

    Returns ``{label: {"parameters", "train samples", "validation samples", "train NRMSE [%]",
    "validation NRMSE [%]"}}``, one row per variant.
    """
    import baseparam as bp

    rows = {}
    for label, options in variants().items():
        with warnings.catch_warnings():        # the excitation warnings are known by now
            warnings.simplefilter("ignore", bp.ExcitationWarning)
            r = bp.identify(robot, train_raw, validate=val_raw, **options)
        rows[label] = {"parameters": len(r.values), "train samples": r.estimator.n_samples_,
                       "validation samples": r.validation.n_samples,
                       "train NRMSE [%]": r.train.nrmse_pooled_percent,
                       "validation NRMSE [%]": r.validation.nrmse_pooled_percent}
    return rows


def usual_pipeline(urdf, train, val):
    """The field's usual pipeline (bench/baseline_pinocchio.py) on the samples the fit used.

    pinocchio's joint-torque regressor from the URDF, viscous/Coulomb/offset friction columns, base
    columns by pivoted QR, OLS -- fitted and scored on exactly the preprocessed samples kept by
    ``train`` and ``val``. Returns ``(label, row)`` like :func:`compare_choices`'s rows, or ``None``
    when pinocchio is not installed.
    """
    try:
        import pinocchio
    except ImportError:
        return None
    sys.path.insert(0, str(ROOT / "bench"))
    import baseline_pinocchio as baseline

    def kept(p):
        return tuple(a[p.kept] for a in (p.q, p.qd, p.qdd, p.tau))

    tr, va = kept(train), kept(val)
    usual = baseline.baseline_fit(urdf, tr)
    _, pooled_usual = baseline.nrmse(va[3], baseline.baseline_predict(usual, *va[:3]))
    return (f"usual pipeline (pinocchio {pinocchio.__version__}, QR, OLS)",
            {"parameters": usual["rank"], "train samples": len(tr[0]), "validation samples": len(va[0]),
             "train NRMSE [%]": usual["train_nrmse"][1], "validation NRMSE [%]": pooled_usual})


def ols_and_consistent(ols, consistent):
    """The estimates side by side: OLS and the consistent fit, the shift in OLS standard deviations, and
    whether the constraints moved the parameter by more than one of them (a DataFrame)."""
    import pandas as pd

    e, c = ols.estimator, consistent.estimator
    frame = pd.DataFrame({"OLS": e.coef_, "std (OLS)": e.std_, "consistent": c.coef_}, index=e.names_)
    frame["shift / std"] = (frame["consistent"] - frame["OLS"]) / frame["std (OLS)"]
    frame["moved > 1σ"] = frame["shift / std"].abs() > 1
    return frame


def bodies(result, robot=None):
    """Per link: the consistent fit's mass, centre of mass, principal moments and smallest pseudo-inertia
    eigenvalue, beside the description's CAD mass when it has one (a DataFrame)."""
    import pandas as pd

    rows = {}
    for link in result.estimator.physical_:
        k = link["link"]
        row = {"mass [kg]": link["mass"], "com x": link["com"][0], "com y": link["com"][1], "com z": link["com"][2],
               "principal moments [kg m²]": " ".join(f"{v:.3g}" for v in link["principal_moments"]),
               "min eig J": link["min_eigenvalue"]}
        if robot is not None and robot.joints[k - 1].inertia is not None:
            row["CAD mass [kg]"] = robot.joints[k - 1].inertia.mass
        rows[f"link {k}"] = row
    return pd.DataFrame(rows).T


def plot_joints(results, joints, title):
    """Measured and predicted held-out torque of some joints for several fits (labels → Identification)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(joints), 1, figsize=(10, 2.2 * len(joints)), sharex=True)
    first = next(iter(results.values())).validation
    for ax, j in zip(np.atleast_1d(axes), joints):
        ax.plot(first.t, first.tau[:, j], "k", lw=1.2, label="measured")
        for label, r in results.items():
            ax.plot(r.validation.t, r.validation.predicted[:, j], lw=0.8, label=label)
        ax.set_ylabel(f"τ{j + 1} [N·m]")
    np.atleast_1d(axes)[0].legend(loc="upper right", fontsize=8, ncol=len(results) + 1)
    np.atleast_1d(axes)[0].set_title(title)
    np.atleast_1d(axes)[-1].set_xlabel("t [s] (from the start of each file)")
    fig.tight_layout()
    return fig


def error_table(results):
    """Training and held-out pooled NRMSE and per-joint held-out NRMSE of several fits (labels →
    Identification), as a DataFrame."""
    import pandas as pd

    rows = {label: {"train NRMSE [%]": r.train.nrmse_pooled_percent,
                    "validation NRMSE [%]": r.validation.nrmse_pooled_percent,
                    **{f"joint {j + 1} [%]": x for j, x in enumerate(r.validation.nrmse_percent)}}
            for label, r in results.items()}
    return pd.DataFrame(rows).T


# ------------------------------------------------------------------------------------------------------------
# A legged robot with a floating base (notebook 11)

def solo12_floating():
    """example-robot-data's solo12 with a floating base, and its four feet as point contacts.

    ``load_robot(..., floating=True)`` lets the URDF's root link fly (pinocchio's free-flyer; the CLI's
    ``--floating``); each foot contact sits at its fixed ankle joint's origin on the lower leg (the
    link the knee moves).

    Returns
    -------
    robot : Robot
    contacts : list of Contact
    """
    import importlib.metadata
    import xml.etree.ElementTree as ET

    import baseparam as bp

    path = next((f.locate() for f in importlib.metadata.files("example-robot-data") or []
                 if f.name == "solo12.urdf"), None)
    if path is None:
        raise FileNotFoundError("solo12.urdf not found: pip install example-robot-data")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the URDF's tiny round-offs, said once per load
        robot = bp.load_robot(path, floating=True)
    contacts = []
    for joint in ET.fromstring(Path(path).read_text(encoding="utf-8")).iter("joint"):
        if joint.get("name", "").endswith("_ANKLE"):
            leg = joint.get("name")[:2]
            xyz = [float(x) for x in joint.find("origin").get("xyz").split()]
            contacts.append(bp.Contact(f"{leg}_KFE", xyz, name=leg))
    return robot, contacts
