"""The field's usual identification pipeline, as a baseline to compare baseparam with.

Pipeline (what most identification scripts built on pinocchio do):

1. the robot model comes from its URDF (``pin.buildModelFromUrdf``, fixed base unless
   ``root_joint`` is given; pinocchio's default gravity, −9.81 m/s² along z of the URDF root —
   for the UR10e that is ``world`` ≡ ``base_link``, for the KUKA LWR4+ ``box``, both with z up);
   the joint angles of both URDFs are the data's (same joint order and sign, no offsets; checked by
   ``self_check`` against the standard-DH tables of ../shared/data/README.md, and in
   tests/test_robot_urdf.py);
2. per sample, ``pin.computeJointTorqueRegressor(model, data, q, qd, qdd)`` (n × 10n: per joint
   m, m·c, inertia about the joint frame origin in pinocchio's order), plus friction columns per
   joint — viscous qd_j, Coulomb sign(qd_j), offset 1 — appended (13n columns), stacked over the
   samples;
3. base columns by a pivoted QR of the training regressor
   (``scipy.linalg.qr(W, pivoting=True, mode='economic')``): rank = number of |R_kk| > tol·|R_00|,
   the first ``rank`` pivots are the identified columns;
4. ordinary least squares on those columns; prediction on the validation data;
5. NRMSE_j = RMS(e_j)/RMS(τ_j) in %, pooled = sqrt(Σe²)/sqrt(Στ²) in %.

``python bench/baseline_pinocchio.py`` runs it on the real data in ../shared/data with three
levels of light, standard preprocessing (each adds to the previous one):

(i)   raw.  KUKA LWR4+: train ``measurements_3.npz``, validate ``measurements_1.npz``; positions,
      velocities, accelerations and torques used as given (the authors already low-pass filtered
      them at 8 Hz).  UR10e: train ``identification_data/ur-20_02_12-50sec_12harm.csv``, validate
      ``validation_data/ur-20_01_17-ptp_10_points.csv``; τ = current × drive gain (10.0, 10.6956,
      8.4566, 9.0029, 9.4800, 10.1232 N·m/A); q, qd, τ linearly resampled to a uniform 0.01 s grid
      (the logs are irregular), qdd = np.gradient(qd, 0.01).
(ii)  rest samples dropped: samples where every |qd_j| < 0.05 rad/s, in training and validation
      (after differentiation, so np.gradient still sees contiguous samples).
(iii) zero-phase low-pass: 4th-order Butterworth at 5 Hz, ``scipy.signal.filtfilt``, of q, qd, τ
      before differentiation (UR10e, 100 Hz grid).  The KUKA data has recorded accelerations and
      is sampled irregularly around 200 Hz (mean dt used as sampling period); there q, qd, qdd and
      τ are all filtered the same way (a linear filter commutes with differentiation, so qdd stays
      consistent with qd).  Rest samples are then dropped by the filtered qd.

``python bench/baseline_pinocchio.py --check`` runs :func:`self_check`: pinocchio's regressor
times the URDF's own inertial parameters (``model.inertias[i].toDynamicParameters()``) against
``pin.rnea`` at random states, the friction columns, and the URDF kinematics against the
standard-DH tables (robots/ur10e.yaml, robots/kuka_lwr4.yaml) so that the joint angles are the data's.

API::

    fit = baseline_fit(urdf_path, (q, qd, qdd, tau), tol=1e-8)     # arrays (S, n)
    pred = baseline_predict(fit, q, qd, qdd)                       # (S, n)
    per_joint, pooled = nrmse(tau, pred)                           # percent
"""
from __future__ import annotations

import pathlib
import sys
import time

import numpy as np
import scipy.linalg
import scipy.signal

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
UR_GAINS = np.array([10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232])
UR_DT = 0.01
REST_SPEED = 0.05       # rad/s
CUTOFF_HZ = 5.0
ORDER = 4
PIN_NAMES = ("m", "mx", "my", "mz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")
FRICTION_NAMES = ("fv", "fc", "fo")


# -- model and regressor --------------------------------------------------------------------------------------
from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

# which robots of robots/ this bench runs on, and why not the others (printed first)
SCOPE = (["kuka_lwr4.yaml", "ur10e.yaml"],
         "the usual pipeline is compared on measured logs, which exist for these two arms only")


def build_model(urdf_path, root_joint=None):
    """pinocchio model of a URDF (fixed base by default), gravity −9.81 z of the URDF root."""
    import pinocchio as pin

    if root_joint is None:
        model = pin.buildModelFromUrdf(str(urdf_path))
    else:
        model = pin.buildModelFromUrdf(str(urdf_path), root_joint)
    return model


def column_names(model):
    joints = list(model.names)[1:]
    names = [f"{p}_{j}" for j in joints for p in PIN_NAMES]
    names += [f"{f}_{j}" for j in joints for f in FRICTION_NAMES]
    return names


def regressor(model, data, q, qd, qdd):
    """Stacked (S·n, 13n) regressor: pinocchio's 10n inertial columns, then fv, fc, fo per joint.

    Rows are sample-major (sample s gives rows s·n … s·n + n − 1), as ``tau.reshape(-1)``.
    """
    import pinocchio as pin

    q, qd, qdd = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (q, qd, qdd))
    S, n = q.shape
    if model.nq != n or model.nv != n:
        raise ValueError(f"the URDF model has nq={model.nq}, nv={model.nv}; the data has {n} joints")
    n_in = 10 * (model.njoints - 1)
    W = np.zeros((S, n, n_in + 3 * n))
    for s in range(S):
        W[s, :, :n_in] = pin.computeJointTorqueRegressor(model, data, q[s], qd[s], qdd[s])
    j = np.arange(n)
    W[:, j, n_in + 3 * j] = qd
    W[:, j, n_in + 3 * j + 1] = np.sign(qd)
    W[:, j, n_in + 3 * j + 2] = 1.0
    return W.reshape(S * n, -1)


def baseline_fit(urdf_path, train, *, tol=1e-8, root_joint=None) -> dict:
    """Fit the base columns of the usual pipeline to training data.

    Parameters
    ----------
    urdf_path : path of the URDF
    train : tuple (q, qd, qdd, tau) of arrays (S, n), SI
    tol : relative threshold on |R_kk| / |R_00| of the pivoted QR deciding the rank
    root_joint : optional pinocchio root joint (e.g. ``pin.JointModelFreeFlyer()``); fixed base if None

    Returns
    -------
    dict with ``model``, ``columns`` (indices of the base columns in the full 13n-column regressor),
    ``names``, ``theta`` (OLS estimate), ``rank``, ``n_columns``, ``diag_R`` (|R_kk|), ``tol``,
    ``times`` (seconds: regressor, qr, lstsq), ``train_nrmse`` (per joint, pooled).
    """
    q, qd, qdd, tau = (np.asarray(x, dtype=float) for x in train)
    model = build_model(urdf_path, root_joint)
    data = model.createData()
    t0 = time.perf_counter()
    W = regressor(model, data, q, qd, qdd)
    t1 = time.perf_counter()
    _, R, piv = scipy.linalg.qr(W, pivoting=True, mode="economic")
    d = np.abs(np.diag(R))
    rank = int(np.sum(d > tol * d[0]))
    cols = np.sort(piv[:rank])
    t2 = time.perf_counter()
    theta, *_ = np.linalg.lstsq(W[:, cols], tau.reshape(-1), rcond=None)
    t3 = time.perf_counter()
    pred = (W[:, cols] @ theta).reshape(tau.shape)
    names = column_names(model)
    return dict(model=model, columns=cols, names=[names[c] for c in cols], theta=theta, rank=rank,
                n_columns=W.shape[1], diag_R=d, tol=tol, n_samples=len(q),
                times=dict(regressor=t1 - t0, qr=t2 - t1, lstsq=t3 - t2), train_nrmse=nrmse(tau, pred))


def baseline_predict(fit, q, qd, qdd) -> np.ndarray:
    """Predicted joint torques (S, n) of a fit at the given states."""
    model = fit["model"]
    W = regressor(model, model.createData(), q, qd, qdd)
    return (W[:, fit["columns"]] @ fit["theta"]).reshape(np.atleast_2d(q).shape)


def nrmse(tau, pred):
    """Per-joint NRMSE_j = RMS(e_j)/RMS(τ_j) and pooled sqrt(Σe²)/sqrt(Στ²), both in percent."""
    tau, pred = np.atleast_2d(tau), np.atleast_2d(pred)
    e = pred - tau
    per_joint = 100.0 * np.sqrt(np.mean(e ** 2, axis=0) / np.mean(tau ** 2, axis=0))
    pooled = 100.0 * np.sqrt(np.sum(e ** 2) / np.sum(tau ** 2))
    return per_joint, float(pooled)


# -- data ------------------------------------------------------------------------------------------------------
def lowpass(x, fs, cutoff=CUTOFF_HZ, order=ORDER):
    b, a = scipy.signal.butter(order, cutoff, btype="low", fs=fs)
    return scipy.signal.filtfilt(b, a, x, axis=0)


def drop_rest(arrays, speed=REST_SPEED):
    """Remove the samples where every |qd_j| < speed (arrays = q, qd, qdd, tau)."""
    moving = ~np.all(np.abs(arrays[1]) < speed, axis=1)
    return tuple(a[moving] for a in arrays)


def load_kuka(path, variant):
    d = np.load(path)
    arrays = tuple(np.asarray(d[k], dtype=float) for k in ("positions", "velocities", "accelerations", "torques"))
    if variant >= 3:
        fs = 1.0 / np.mean(np.diff(d["times"]))
        arrays = tuple(lowpass(a, fs) for a in arrays)
    if variant >= 2:
        arrays = drop_rest(arrays)
    return arrays


def load_ur_csv(path):
    """t, q, qd, τ = current × gain of a UR10e log (31 columns, no header)."""
    raw = np.loadtxt(path, delimiter=",")
    if raw.ndim != 2 or raw.shape[1] < 19:
        raise ValueError(f"{path}: expected ≥ 19 columns, got {raw.shape}")
    t = raw[:, 0]
    if np.any(np.diff(t) <= 0):
        raise ValueError(f"{path}: time stamps not strictly increasing")
    return t, raw[:, 1:7], raw[:, 7:13], raw[:, 13:19] * UR_GAINS


def load_ur(path, variant):
    t, q, qd, tau = load_ur_csv(path)
    grid = np.arange(t[0], t[-1] + 1e-12, UR_DT)
    q, qd, tau = (np.column_stack([np.interp(grid, t, x[:, j]) for j in range(x.shape[1])]) for x in (q, qd, tau))
    if variant >= 3:
        q, qd, tau = (lowpass(x, 1.0 / UR_DT) for x in (q, qd, tau))
    qdd = np.gradient(qd, UR_DT, axis=0)
    arrays = (q, qd, qdd, tau)
    if variant >= 2:
        arrays = drop_rest(arrays)
    return arrays


ROBOTS = {
    "KUKA LWR4+": dict(urdf=DATA / "kuka_lwr4" / "kuka_lwr4.urdf", load=load_kuka,
                       train=DATA / "kuka_lwr4" / "measurements_3.npz", valid=DATA / "kuka_lwr4" / "measurements_1.npz",
                       issue=6.6),
    "UR10e": dict(urdf=DATA / "ur10e" / "ur10e.urdf", load=load_ur,
                  train=DATA / "ur10e" / "identification_data" / "ur-20_02_12-50sec_12harm.csv",
                  valid=DATA / "ur10e" / "validation_data" / "ur-20_01_17-ptp_10_points.csv", issue=5.0),
}
VARIANTS = {1: "(i)   raw", 2: "(ii)  + rest samples dropped", 3: "(iii) + 5 Hz Butterworth"}


def run_variant(spec, variant, tol=1e-8):
    train = spec["load"](spec["train"], variant)
    valid = spec["load"](spec["valid"], variant)
    fit = baseline_fit(spec["urdf"], train, tol=tol)
    t = time.perf_counter()
    pred = baseline_predict(fit, *valid[:3])
    t_pred = time.perf_counter() - t
    per_joint, pooled = nrmse(valid[3], pred)
    return dict(fit=fit, per_joint=per_joint, pooled=pooled, n_train=len(train[0]), n_valid=len(valid[0]),
                t_predict=t_pred)


# -- self check -------------------------------------------------------------------------------------------------
def _dh_standard(dh, q):
    """T_n of a standard-DH chain, dh rows (alpha, a, d, theta, offset) in SI."""
    T = np.eye(4)
    for (alpha, a, d, _, off), qk in zip(dh, q):
        th = qk + off
        ct, st, ca, sa = np.cos(th), np.sin(th), np.cos(alpha), np.sin(alpha)
        T = T @ np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st],
                          [0, sa, ca, d], [0, 0, 0, 1]])
    return T


def self_check(n_states=50, seed=0, verbose=True):
    """Regressor @ URDF parameters == pin.rnea; friction columns; URDF kinematics == DH tables.

    Returns the largest relative errors; raises AssertionError on failure.
    """
    import pinocchio as pin
    import baseparam as bp

    rng = np.random.default_rng(seed)
    frames = {"KUKA LWR4+": ("kuka_lwr4.yaml", "lwr_base_link", None),   # DH 7: last joint's frame origin, z
              "UR10e": ("ur10e.yaml", "base", "tool0")}                   # DH 6 = tool0 (full pose)
    report = {}
    for name, spec in ROBOTS.items():
        if not spec["urdf"].is_file():
            print(f"{name}: {spec['urdf']} missing, skipped")
            continue
        model = build_model(spec["urdf"])
        data = model.createData()
        n = model.nv
        p = np.concatenate([model.inertias[i].toDynamicParameters() for i in range(1, model.njoints)])
        fric = rng.uniform(0.1, 2.0, 3 * n)
        err_rnea = err_fric = 0.0
        for _ in range(n_states):
            q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, n))
            W = regressor(model, data, q, qd, qdd)
            tau = pin.rnea(model, data, q, qd, qdd)
            scale = max(1.0, np.abs(tau).max())
            err_rnea = max(err_rnea, np.abs(W[:, :10 * n] @ p - tau).max() / scale)
            f = fric.reshape(n, 3)
            expect = f[:, 0] * qd + f[:, 1] * np.sign(qd) + f[:, 2]
            err_fric = max(err_fric, np.abs(W[:, 10 * n:] @ fric - expect).max())
        # the joint angles are the data's: URDF forward kinematics == the README's standard-DH table
        yaml_name, base, tip = frames[name]
        dh = bp.load_robot(ROOT / "robots" / yaml_name).dh_si()
        err_fk = 0.0
        fb = model.getFrameId(base)
        for _ in range(n_states):
            q = rng.uniform(-np.pi, np.pi, n)
            pin.framesForwardKinematics(model, data, q)
            B = np.linalg.inv(data.oMf[fb].homogeneous)
            T = _dh_standard(dh, q)
            if tip is not None:
                e = np.abs(B @ data.oMf[model.getFrameId(tip)].homogeneous - T).max()
            else:
                X = B @ data.oMi[model.njoints - 1].homogeneous
                e = max(np.abs(X[:3, 3] - T[:3, 3]).max(), np.abs(X[:3, 2] - T[:3, 2]).max())
            err_fk = max(err_fk, e)
        report[name] = dict(rnea=err_rnea, friction=err_fric, kinematics=err_fk, joints=list(model.names)[1:])
        if verbose:
            print(f"{name}: joints {', '.join(list(model.names)[1:])}")
            print(f"  max |W·p_URDF − rnea| / max(1, |τ|) = {err_rnea:.1e}   friction columns {err_fric:.1e}   "
                  f"URDF vs DH forward kinematics {err_fk:.1e} m")
        assert err_rnea < 1e-10, (name, err_rnea)
        assert err_fric < 1e-12, (name, err_fric)
        assert err_fk < 1e-9, (name, err_fk)
    if verbose:
        print("self check passed")
    return report


# -- script -------------------------------------------------------------------------------------------------------
def main(argv=None):
    print(scope_line(SCOPE))
    argv = sys.argv[1:] if argv is None else argv
    if "--check" in argv:
        self_check()
        return 0
    if not DATA.is_dir():
        print(f"no measured data at {DATA.resolve()}; nothing to do")
        return 0
    import pinocchio as pin

    print(__doc__.split("\n\n")[0])
    print(f"pinocchio {pin.__version__}; regressor: computeJointTorqueRegressor per sample + friction "
          f"(fv·qd, fc·sign qd, fo) per joint; base columns by pivoted QR (tol 1e-8 · |R_00|); OLS.")
    print("Preprocessing (each variant adds to the previous one):")
    print("  (i)   raw: KUKA npz as given (authors' 8 Hz filter, recorded qd, qdd); UR10e: τ = current × gain,")
    print(f"        q, qd, τ linearly resampled to a uniform {UR_DT} s grid, qdd = np.gradient(qd, {UR_DT})")
    print(f"  (ii)  + drop rest samples (all |qd| < {REST_SPEED} rad/s), training and validation")
    print(f"  (iii) + zero-phase {ORDER}th-order Butterworth low-pass at {CUTOFF_HZ:g} Hz (filtfilt) "
          "of q, qd, τ before")
    print("        differentiation (KUKA: q, qd, qdd, τ filtered alike, fs = 1/mean dt ≈ 200 Hz)")
    for name, spec in ROBOTS.items():
        print(f"\n{name}  (train {spec['train'].name}, validate {spec['valid'].name}; "
              f"issue quotes ≈ {spec['issue']} % for this pipeline)")
        for variant, label in VARIANTS.items():
            r = run_variant(spec, variant)
            fit = r["fit"]
            tm = fit["times"]
            joints = "  ".join(f"{x:5.1f}" for x in r["per_joint"])
            print(f"  {label:30s} rank {fit['rank']:2d}/{fit['n_columns']}  samples {r['n_train']}/{r['n_valid']}  "
                  f"validation NRMSE pooled {r['pooled']:5.2f} %  (train {fit['train_nrmse'][1]:5.2f} %)")
            d, k = fit["diag_R"], fit["rank"]
            gap = f"{d[k] / d[0]:.1e}" if k < len(d) else "-"
            print(f"  {'':30s} per joint [%]: {joints}")
            print(f"  {'':30s} |R_kk|/|R_00|: last kept {d[k - 1] / d[0]:.1e}, first dropped {gap}")
            print(f"  {'':30s} time: regressor {tm['regressor']:.3f} s, QR {tm['qr']:.3f} s, "
                  f"lstsq {tm['lstsq']:.3f} s, predict {r['t_predict']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
