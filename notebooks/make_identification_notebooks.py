"""Write (and execute) the identification notebooks 03 and 04 from this one source.

    python notebooks/make_identification_notebooks.py               # write and execute both
    python notebooks/make_identification_notebooks.py --no-execute  # write them without outputs

The notebooks identify the base parameters of two real robots from third-party recordings in
``../shared/data`` (beside the repository, never copied into it; ``BASEPARAM_DATA`` overrides the
location): the KUKA LWR4+ of FloBaRoID (joint torque sensors) and the UR10e of Mamedov et al.
(motor currents). They are executed with nbclient from ``notebooks/`` (as the test suite does) and
stored with their outputs, so that GitHub shows the figures. Edit this file, not the notebooks.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from nbformat.v4 import new_code_cell, new_markdown_cell

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _generate import write_notebooks  # noqa: E402  (beside this script)


def md(text):
    return new_markdown_cell(textwrap.dedent(text).strip())


def code(text):
    return new_code_cell(textwrap.dedent(text).strip())


# ------------------------------------------------------------------------------------------------------------
# Cells both notebooks share

def setup_cell(subdir, robot_file):
    return code(f'''
        import os
        import sys
        import warnings
        from pathlib import Path

        import matplotlib.pyplot as plt
        import numpy as np
        import pandas as pd

        import baseparam as bp
        from baseparam.identification import plots
        from baseparam.projection.report import format_table

        # The recordings are third-party data beside the repository, in ../shared/data (never copied
        # into it); BASEPARAM_DATA points to another copy. The notebook runs from notebooks/.
        DATA = Path(os.environ.get("BASEPARAM_DATA") or Path("..").resolve().parent / "shared" / "data")
        HERE = DATA / "{subdir}"
        ROBOT = Path("../robots/{robot_file}")
        plt.rcParams["figure.dpi"] = 80          # keeps the stored notebook small
        pd.set_option("display.width", 120)
        pd.set_option("display.float_format", "{{:.4g}}".format)
        print(os.path.relpath(HERE), sorted(p.name for p in HERE.iterdir()))
    ''')


def sampling_cells(title):
    return [
        code(r'''
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
        '''),
        code(f'''
            t = train_raw.t - train_raw.t[0]
            fig, (ax_q, ax_tau) = plt.subplots(2, 1, figsize=(11, 5.5), sharex=True)
            for j in range(train_raw.n_dof):
                ax_q.plot(t, train_raw.q[:, j], lw=0.9, label=f"joint {{j + 1}}")
                ax_tau.plot(t, train_raw.tau[:, j], lw=0.9)
            ax_q.set_ylabel("q [rad]")
            ax_tau.set_ylabel("τ [N·m]")
            ax_tau.set_xlabel("t [s]")
            ax_q.legend(ncol=train_raw.n_dof, fontsize=8, loc="upper center")
            ax_q.set_title("{title}")
            fig.tight_layout()
        '''),
    ]


def preprocess_cell():
    return code('''
        settings = bp.Preprocessing()          # resample at the median step, 5 Hz zero-phase low-pass, rest dropped
        train = bp.preprocess(train_raw, settings)
        val = bp.preprocess(val_raw, settings)
        pd.DataFrame({"training": train.record, "validation": val.record})
    ''')


def fit_cells():
    return [
        code('''
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = bp.identify(robot, train, validate=val)      # OLS; train and val are preprocessed
            for w in caught:
                print(f"{w.category.__name__}: {w.message}\\n")
            print(result.summary())
        '''),
        code('''
            est = result.estimator
            table = pd.DataFrame(result.table(), columns=["name", "value", "std", "rel_std_percent"])
            table["poorly identified"] = table.rel_std_percent > 10
            print(f"condition number of the base regressor {est.condition_number_:.4g}, "
                  f"column-scaled (units-free) {est.condition_number_scaled_:.4g}")
            print(f"{table['poorly identified'].sum()} of {len(table)} base parameters above 10 % relative std; "
                  "the 15 worst:")
            table.sort_values("rel_std_percent", ascending=False).head(15)
        '''),
    ]


def validation_table_cell():
    return code('''
        m_train, m_val = result.train, result.validation
        per_joint = pd.DataFrame({
            "RMS τ, validation [N·m]": np.sqrt((m_val.tau ** 2).mean(axis=0)),
            "RMSE train [N·m]": m_train.rmse, "RMSE validation [N·m]": m_val.rmse,
            "NRMSE train [%]": m_train.nrmse_percent, "NRMSE validation [%]": m_val.nrmse_percent,
        }, index=[f"joint {j + 1}" for j in range(robot.n_dof)])
        per_joint.loc["pooled"] = [np.sqrt((m_val.tau ** 2).mean()), np.sqrt((m_train.rmse ** 2).mean()),
                                   np.sqrt((m_val.rmse ** 2).mean()), m_train.nrmse_pooled_percent,
                                   m_val.nrmse_pooled_percent]
        per_joint.round(3)
    ''')


def plot_cells():
    return [
        code('''
            fig = plots.plot_torques(result.validation)
        '''),
        code('''
            fig = plots.plot_residuals(result.validation)
        '''),
        code('''
            fig = plots.plot_parameters(result)
        '''),
    ]


def comparison_cells(urdf):
    return [
        code('''
            def fit(**options):
                """The same identification with other choices (the excitation warnings are known by now)."""
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", bp.ExcitationWarning)
                    return bp.identify(robot, train_raw, validate=val_raw, **options)

            variants = {
                "OLS, default preprocessing": {},
                "WLS (method='wls')": dict(method="wls"),
                "no low-pass (cutoff_hz=None)": dict(preprocessing=bp.Preprocessing(cutoff_hz=None)),
                "no rest trimming (rest_velocity=None)": dict(preprocessing=bp.Preprocessing(rest_velocity=None)),
                "as logged (Preprocessing.none())": dict(preprocessing=bp.Preprocessing.none()),
            }
            rows = {}
            for label, options in variants.items():
                r = fit(**options)
                rows[label] = {"parameters": len(r.values), "train samples": r.estimator.n_samples_,
                               "validation samples": r.validation.n_samples,
                               "train NRMSE [%]": r.train.nrmse_pooled_percent,
                               "validation NRMSE [%]": r.validation.nrmse_pooled_percent}
        '''),
        code(f'''
            # The field's usual pipeline (bench/baseline_pinocchio.py): pinocchio's joint-torque regressor from
            # the URDF, viscous/Coulomb/offset friction columns, base columns by pivoted QR, OLS -- fitted and
            # scored on exactly the samples used above (preprocessed, rest samples left out).
            try:
                import pinocchio
            except ImportError:
                pinocchio = None
                print("pinocchio is not installed: the usual pipeline is skipped")
            if pinocchio is not None:
                sys.path.insert(0, str(Path("../bench").resolve()))
                import baseline_pinocchio as baseline

                def kept(p):
                    return tuple(a[p.kept] for a in (p.q, p.qd, p.qdd, p.tau))

                tr, va = kept(train), kept(val)
                usual = baseline.baseline_fit(HERE / "{urdf}", tr)
                _, pooled_usual = baseline.nrmse(va[3], baseline.baseline_predict(usual, *va[:3]))
                rows[f"usual pipeline (pinocchio {{pinocchio.__version__}}, QR, OLS)"] = {{
                    "parameters": usual["rank"], "train samples": len(tr[0]), "validation samples": len(va[0]),
                    "train NRMSE [%]": usual["train_nrmse"][1], "validation NRMSE [%]": pooled_usual}}
            comparison = pd.DataFrame(rows).T.astype({{"parameters": int, "train samples": int,
                                                       "validation samples": int}})
            comparison.round(2)
        '''),
    ]


def assert_cell(limit, robot_name):
    return code(f'''
        pooled = result.validation.nrmse_pooled_percent
        assert pooled <= {limit}, f"{robot_name}: validation NRMSE {{pooled:.2f}} % is above the usual pipeline's {limit} %"
        print(f"{robot_name}: pooled validation NRMSE {{pooled:.2f}} % (≤ {limit} %)")
    ''')


# ------------------------------------------------------------------------------------------------------------
# 03: KUKA LWR4+

def kuka_cells():
    return [
        md('''
            # Identifying a KUKA LWR4+ from measured joint torques

            This notebook estimates the **base parameters** of a real KUKA LWR4+ — the combinations of link
            masses, first moments, inertias and joint friction that the joint torques actually depend on —
            from one recorded excitation trajectory, and judges the model on a *different* trajectory.

            The data are third-party recordings (the public repository kjyv/FloBaRoID, data/KUKA/HW, 2016;
            Bethge et al., RAAD 2017), kept outside this repository in `../shared/data/kuka_lwr4/`. The
            LWR4+ has a torque sensor in every joint, after the gears, so τ is measured directly.
            The test suite skips this notebook when that directory is absent.
        '''),
        setup_cell("kuka_lwr4", "kuka_lwr4.yaml"),
        md('''
            ## 1. Load the recordings

            Each NPZ file holds `times`, `positions`, `velocities`, `accelerations` and `torques`
            (5027 samples × 7 joints). `read_trajectory` picks these arrays by name and checks every row
            (NaN, absurd values, time stamps that do not increase): a damaged log is refused with the file,
            row and field, never ingested silently.

            **Train on file 3, validate on file 1.** Files 1 and 2 repeat the same trajectory: validating
            on a repetition of the training motion measures the robot's repeatability, not whether the
            model predicts motions it was not fitted on.
        '''),
        code('''
            train_raw = bp.read_trajectory(HERE / "measurements_3.npz")
            val_raw = bp.read_trajectory(HERE / "measurements_1.npz")
            repeat = bp.read_trajectory(HERE / "measurements_2.npz")
            for label, traj in (("training", train_raw), ("validation", val_raw)):
                print(f"{label:>10}: {Path(traj.source).name}  {traj.n_samples} samples × {traj.n_dof} joints, "
                      f"{traj.t[-1] - traj.t[0]:.2f} s; q̇ {'recorded' if traj.qd is not None else 'to derive'}, "
                      f"q̈ {'recorded' if traj.qdd is not None else 'to derive'}")
                print(f"{'':>12}max |τ| per joint [N·m]: {np.abs(traj.tau).max(axis=0).round(1)}")
            print(f"\\nmax |q(file 1) − q(file 2)| = {np.abs(val_raw.q - repeat.q).max():.4f} rad  (the same motion)")
            print(f"max |q(file 1) − q(file 3)| = {np.abs(val_raw.q - train_raw.q).max():.2f} rad  (a different one)")
        '''),
        md('''
            ## 2. Look at the data

            The time stamps are Unix times (≈ 1.46·10⁹ s; plotted from 0 here). The log is nominally
            200 Hz, but the steps jitter between about 3 and 7 ms — the logging computer's clock, not the
            robot's. Zero-phase filters and central differences assume a uniform grid, which is why the
            preprocessing resamples first. The authors already low-pass filtered everything at 8 Hz and
            derived q̇ and q̈ from the positions.

            Joint 2 carries the arm against gravity (tens of N·m); the wrist joints 5–7 see about 1 N·m.
            Keep that in mind when reading per-joint relative errors below.
        '''),
        *sampling_cells("training trajectory (measurements_3.npz)"),
        md('''
            ## 3. Preprocess

            `bp.preprocess` with the default `bp.Preprocessing()`:

            * **resample** to a uniform grid at the median step (linear interpolation);
            * **low-pass** q, q̇, q̈ and τ with a 4th-order Butterworth at 5 Hz, run forwards and backwards
              (zero phase), so τ stays aligned with the state that caused it — a causal filter would delay
              τ relative to q̈ and bias the inertias;
            * **differentiate** only what the log lacks (nothing here: q̇ and q̈ are recorded);
            * **drop rest samples**, where every joint is slower than 0.05 rad/s: there the Coulomb term
              sign(q̇) is undefined and the torque is static friction, which the model cannot predict.

            Every choice and its effect is recorded (and carried into the result):
        '''),
        preprocess_cell(),
        md('''
            This robot hardly ever stands still in these logs (a dozen rest samples), and the data were
            already filtered at 8 Hz, so preprocessing changes little here — the UR10e notebook is where it
            matters.

            ## 4. Base parameters

            The joint torques are linear in the 91 standard parameters of the description (10 per link:
            pseudo-inertia XX…YZ, first moments SX SY SZ, mass M; plus viscous FV, Coulomb FC and offset FO
            friction per joint), but not all 91 are visible in the torques: some never act (link 1's mass
            sits on the fixed axis), others act only in fixed combinations. Fitting all 91 would be an
            ill-posed problem. The projection method finds the independent combinations exactly:
        '''),
        code('''
            robot = bp.load_robot(ROBOT)
            base = bp.find_base_parameters(robot)
            print(format_table(base))
        '''),
        md('''
            How to read it: the base parameter `ZZ2` is ZZ2 + YY3 − 0.8·SY3 + 0.16·(M3 + … + M7) — link 2's
            inertia about its axis together with everything it carries, at the 0.4 m of the upper arm. The
            masses of links 3–7 never appear alone: no torque measurement on this arm can weigh them
            separately. That is a property of the robot, not of the data.

            Friction columns come from the description (`friction: true` on every joint of
            `robots/kuka_lwr4.yaml`): the torque sensors sit after the gears, but output-bearing friction and
            a sensor offset remain. Rotor inertia (IA) is *not* declared: behind the gears the sensors do not
            see the motors' inertia (declaring it made the held-out fit worse).

            ## 5. Fit

            Ordinary least squares over all joints and samples: p̂ = argmin Σ‖τ − W_b(q, q̇, q̈) p‖². The
            standard deviations come from σ²(W_bᵀW_b)⁻¹; a relative standard deviation above 10 % (Gautier's
            rule) marks a parameter this trajectory barely excites. The library says so with an
            `ExcitationWarning`, shown here:
        '''),
        *fit_cells(),
        md('''
            "Poorly identified" does not mean a bad model: these parameters change the torques of this
            trajectory so little that the noise hides them — which also means they matter little for
            predicting similar motions. If their values themselves matter (say, a payload estimate), the
            remedy is a better excitation trajectory, not a different fit.

            Least squares also does not know physics. Friction is the easiest check:
        '''),
        code('''
            friction = table[table.name.str.match(r"F[VC]\\d")]
            print("negative viscous or Coulomb friction (physically impossible):")
            print(friction[friction.value < 0].to_string(index=False))
        '''),
        md('''
            A negative viscous coefficient means the column absorbed something else (sensor dynamics,
            couplings the rigid-body model lacks). Physically consistent identification (bounded, positive
            definite inertias; positive friction, e.g. by semidefinite programming) would be the next step
            when the parameters, not just the torques, are to be trusted.

            ## 6. Validate on the held-out trajectory

            NRMSE = RMS(τ − τ̂)/RMS(τ) per joint, and pooled over all joints (√Σe²/√Στ²) — the pooled
            figure weights each joint by its torque, so the big joints dominate it. The wrist joints' large
            relative errors are small absolute errors (compare RMSE with RMS τ):
        '''),
        validation_table_cell(),
        *plot_cells(),
        md('''
            ## 7. What the choices buy

            The same fit with one choice changed at a time, scored on the same held-out file. Last, if
            pinocchio is installed, the field's usual pipeline (`bench/baseline_pinocchio.py`: pinocchio's
            joint-torque regressor from the URDF plus friction columns, base columns by a pivoted QR with a
            numerical tolerance, OLS) on exactly the samples the fit above used.
        '''),
        *comparison_cells("kuka_lwr4.urdf"),
        md('''
            On this log the choices barely matter: the authors filtered at 8 Hz and recorded q̈, and the arm
            almost never rests. **WLS** weights each joint by 1/σ_j² — it makes the standard deviations
            meaningful when the joints' noise differs, but it trades the big joints' accuracy for the wrist's,
            so the pooled error rises. The **usual pipeline** fits the same model class (rigid bodies plus
            FV, FC, FO; also 64 columns) on the same samples, so it predicts the same torques: the difference
            is how the base set is found — exactly, with named regroupings, instead of numerically with a
            rank tolerance. The issue quotes about 6.6 % for the usual pipeline; the last check keeps this
            notebook below that.
        '''),
        assert_cell(6.6, "KUKA LWR4+"),
    ]


# ------------------------------------------------------------------------------------------------------------
# 04: UR10e

def ur_cells():
    return [
        md('''
            # Identifying a UR10e from motor currents

            This notebook estimates the **base parameters** of a real Universal Robots UR10e — the
            combinations of link inertias, first moments and masses, reflected rotor inertias and joint
            friction that the joint torques depend on — from one recorded excitation trajectory, and judges
            the model on a different, point-to-point motion.

            The data are third-party recordings (the public repository shamilmamedov/dynamic_calibration,
            dataset_ur10e/; Mamedov et al., Frontiers 2020), kept outside this repository in
            `../shared/data/ur10e/`. The UR10e has **no torque sensors**: the logs hold motor currents, and
            joint torque ≈ drive gain × current, on the motor side of the gears. The test suite skips this
            notebook when the data directory is absent.
        '''),
        setup_cell("ur10e", "ur10e.yaml"),
        md('''
            ## 1. Load the recordings

            The CSV files have no header: 31 columns t, q1..6, q̇1..6, i1..6, then desired currents and
            torques (unused). A column map tells `read_trajectory` where the fields are, and the authors'
            drive gains (N·m/A) turn currents into torques, τ_j = k_j · i_j. Every row is checked (field
            count, text, NaN, absurd values, time stamps that do not increase).

            Training: a 50 s Fourier-series excitation (12 harmonics). Validation: point-to-point motions
            through 10 points — a different kind of motion, with the arm stopping in between.
        '''),
        code('''
            COLUMNS = "t=0,q=1:7,qd=7:13,current=13:19"
            GAINS = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]      # N·m/A, from the authors
            train_raw = bp.read_trajectory(HERE / "identification_data/ur-20_02_12-50sec_12harm.csv",
                                           columns=COLUMNS, gains=GAINS)
            val_raw = bp.read_trajectory(HERE / "validation_data/ur-20_01_17-ptp_10_points.csv",
                                         columns=COLUMNS, gains=GAINS)
            for label, traj in (("training", train_raw), ("validation", val_raw)):
                print(f"{label:>10}: {Path(traj.source).name}  {traj.n_samples} samples × {traj.n_dof} joints, "
                      f"{traj.t[-1] - traj.t[0]:.2f} s; q̇ {'recorded' if traj.qd is not None else 'to derive'}, "
                      f"q̈ {'recorded' if traj.qdd is not None else 'to derive'}")
                print(f"{'':>12}max |τ| per joint [N·m]: {np.abs(traj.tau).max(axis=0).round(1)}")
        '''),
        md('''
            ### A damaged file

            `identification_data/ur-20_02_19_15harm50secLoad.csv` is damaged as published: garbage in
            rows 2–10 and a truncated last line. By default it is refused, with the first problem and a
            count of the others:
        '''),
        code('''
            DAMAGED = HERE / "identification_data/ur-20_02_19_15harm50secLoad.csv"
            try:
                bp.read_trajectory(DAMAGED, columns=COLUMNS, gains=GAINS)
            except bp.DataError as exc:
                print("DataError:", str(exc).replace(str(DATA), "DATA"))   # DATA: the data directory
        '''),
        md('''
            With `skip_bad_rows=True` the bad rows are dropped and reported — what was dropped, and why,
            stays visible with the trajectory:
        '''),
        code('''
            damaged = bp.read_trajectory(DAMAGED, columns=COLUMNS, gains=GAINS, skip_bad_rows=True)
            print(damaged.skipped_summary().replace(str(DATA), "DATA"))
            print(f"{damaged.n_samples} good samples kept; the first skipped rows:")
            for line, reason in damaged.skipped[:4]:
                print(f"  line {line}: {reason}")
        '''),
        md('''
            ## 2. Look at the data

            The logging is irregular: the time stamps count whole milliseconds, and about a third of the
            steps are 12 ms instead of 10 ms (in the training file a few are 2, 8 or 16 ms). Zero-phase
            filters and central differences assume a uniform grid, so the preprocessing resamples first.
            There are no accelerations in the logs: q̈ has to be derived.

            The currents are noisy (the torque panel), and the validation motion stops between its
            points — both matter below.
        '''),
        *sampling_cells("training trajectory (ur-20_02_12-50sec_12harm.csv), τ = gain × current"),
        md('''
            ## 3. Preprocess

            `bp.preprocess` with the default `bp.Preprocessing()`:

            * **resample** to a uniform grid at the median step (10 ms; linear interpolation);
            * **low-pass** q, q̇ and τ with a 4th-order Butterworth at 5 Hz, run forwards and backwards (zero
              phase), so τ stays aligned with the state that caused it. The excitation's joint motion lies
              below 1 Hz; current noise and encoder quantization lie above;
            * **differentiate** q̈ from the filtered q̇ (central differences) — differentiating unfiltered
              q̇ would amplify its noise;
            * **drop rest samples**, where every joint is slower than 0.05 rad/s: there the Coulomb term
              sign(q̇) is undefined and the torque is static friction, which the model cannot predict.
              The point-to-point validation log spends about a third of its time standing still.

            Every choice and its effect is recorded (and carried into the result). Resampling makes
            more samples than the log had (the mean step is longer than the median):
        '''),
        preprocess_cell(),
        md('''
            ## 4. Base parameters

            The joint torques are linear in the 84 standard parameters of the description (10 per link:
            pseudo-inertia XX…YZ, first moments SX SY SZ, mass M; the reflected rotor inertia IA and viscous
            FV, Coulomb FC and offset FO friction per joint), but only certain combinations are visible in
            the torques. The projection method finds them exactly:
        '''),
        code('''
            robot = bp.load_robot(ROBOT)
            base = bp.find_base_parameters(robot)
            print(format_table(base))
        '''),
        md('''
            How to read it: `SX2` is SX2 − 0.613·(M2 + … + M6) — the first moment of link 2 together with
            the masses it carries at the 0.613 m of the upper arm; the masses themselves never appear alone.
            `XX1` collects everything that turns about the base axis at every configuration, including the
            rotor inertias IA1 and part of IA2.

            Friction (FV, FC, FO) and rotor inertia (IA) columns come from the description
            (`robots/ur10e.yaml` declares `friction: true` and `rotor_inertia: true` on every joint): the
            currents drive the motors, so τ = k·i includes the gears' friction and the rotors' inertia
            scaled by the gear ratio squared. IA1 and IA2 regroup with link inertias (see `XX1`, `XX2`,
            `YY2`); IA3…IA6 are base parameters of their own:
        '''),
        code('''
            for name in ("XX1", "YY2", "IA5"):
                terms = base.terms(base.names.index(name))
                print(f"{name}: " + " + ".join(f"{float(c):g}·{s}" for s, c in terms.items()))
        '''),
        md('''
            ## 5. Fit

            Ordinary least squares over all joints and samples: p̂ = argmin Σ‖τ − W_b(q, q̇, q̈) p‖². The
            standard deviations come from σ²(W_bᵀW_b)⁻¹; a relative standard deviation above 10 % (Gautier's
            rule) marks a parameter this trajectory barely excites. The library says so with an
            `ExcitationWarning`, shown here:
        '''),
        *fit_cells(),
        md('''
            "Poorly identified" does not mean a bad model: these parameters (mostly the small wrist links)
            change the torques of this trajectory so little that the current noise hides them — which also
            means they matter little for predicting similar motions. The friction and the large-link
            parameters are well determined.

            ## 6. Validate on the held-out trajectory

            NRMSE = RMS(τ − τ̂)/RMS(τ) per joint, and pooled over all joints (√Σe²/√Στ²) — the pooled
            figure weights each joint by its torque, so joints 2 and 3 (which hold the arm against gravity)
            dominate it. Compare RMSE with RMS τ:
        '''),
        validation_table_cell(),
        *plot_cells(),
        md('''
            ## 7. Friction against the authors' values

            Mamedov et al. identified the same kind of model from their own data; their values are in
            `UR10E_parameters.txt` (`pi_frcn`: per joint Fv, Fc, F0; `pi_drvs`: reflected rotor
            inertias). A sanity check of ours, not a test — a different fit, on different samples, with
            different preprocessing:
        '''),
        code('''
            import re

            text = (HERE / "UR10E_parameters.txt").read_text(encoding="utf-8")

            def vector(name):
                return np.array(re.search(rf"{name}\\s*=\\s*\\[([^\\]]*)\\]", text).group(1).split(), dtype=float)

            authors_friction = vector("pi_frcn").reshape(-1, 3)          # per joint: Fv, Fc, F0
            authors_rotor = vector("pi_drvs")
            ours = table.set_index("name")
            rows = []
            for j in range(robot.n_dof):
                for k, kind in enumerate(("FV", "FC", "FO")):
                    name = f"{kind}{j + 1}"
                    rows.append((name, ours.value[name], ours["std"][name], authors_friction[j, k]))
            for j in range(2, robot.n_dof):                            # IA1, IA2 regroup with link inertias
                name = f"IA{j + 1}"
                rows.append((name, ours.value[name], ours["std"][name], authors_rotor[j]))
            friction = pd.DataFrame(rows, columns=["name", "ours", "std", "authors"]).set_index("name")
            friction["difference [%]"] = 100 * (friction.ours - friction.authors) / friction.authors.abs().replace(0, np.nan)
            friction.round(3)
        '''),
        md('''
            The viscous and Coulomb coefficients agree within about 20 % (joints 5 and 6 within 2 %). The
            offsets F0 absorb anything constant — a current-sensor bias, a gravity torque the model misses —
            which differs between recordings, so they need not agree. The rotor inertias of joints 4–6 have
            the authors' order of magnitude, with large uncertainties; IA3 is zero on both sides.

            ### Where joint 6's validation error comes from

            Joint 6 has by far the largest relative error on the validation motion. In the point-to-point
            log it stands still while the other joints move (so those samples are not trimmed as rest), and
            there the *recorded* q̇6 is exactly 0 — but after the 5 Hz filter it is a tiny ringing signal
            that crosses zero again and again. The model's Coulomb term FC6·sign(q̇6) then chatters between
            ±FC6, while the measured torque holds the static friction left by the last motion:
        '''),
        code('''
            m_val = result.validation
            qd6 = val.qd[val.kept, 5]
            e6 = m_val.tau[:, 5] - m_val.predicted[:, 5]
            still = np.abs(qd6) < 0.01
            moving_nrmse = 100 * np.sqrt((e6[~still] ** 2).sum() / (m_val.tau[~still, 5] ** 2).sum())
            print(f"joint 6 nearly still (|q̇6| < 0.01 rad/s) in {still.mean():.0%} of the validation samples; "
                  f"sign changes of the filtered q̇6 there: {(np.diff(np.sign(qd6[still])) != 0).sum()}")
            print(f"share of joint 6's squared error on those samples: {(e6[still] ** 2).sum() / (e6 ** 2).sum():.0%}")
            print(f"joint 6 NRMSE: all samples {m_val.nrmse_percent[5]:.1f} %, moving samples only {moving_nrmse:.1f} %")

            fig, (ax_tau, ax_qd) = plt.subplots(2, 1, figsize=(11, 4.5), sharex=True)
            x = np.arange(len(qd6))
            ax_tau.plot(x, m_val.tau[:, 5], lw=0.8, label="measured")
            ax_tau.plot(x, m_val.predicted[:, 5], lw=0.8, label="predicted")
            ax_tau.set_ylabel("τ6 [N·m]")
            ax_tau.legend(fontsize=8, loc="upper left")
            ax_qd.plot(x, qd6, lw=0.8, color="C2")
            ax_qd.fill_between(x, -0.6, 0.6, where=still, color="0.85", label="|q̇6| < 0.01 rad/s")
            ax_qd.set_ylim(-0.6, 0.6)
            ax_qd.set_ylabel("q̇6 [rad/s] (filtered)")
            ax_qd.set_xlabel("validation sample (after preprocessing)")
            ax_qd.legend(fontsize=8, loc="upper left")
            ax_tau.set_title("joint 6 on the validation motion")
            fig.tight_layout()
        '''),
        md('''
            A smooth friction model is needed near zero velocity. The simplest one replaces sign(q̇) by
            tanh(q̇/ε) in the Coulomb columns of the base regressor. It removes the chattering, and joint 6
            improves a little — but joint 5 gets worse: at its standstill the filtered q̇5 happened to stay
            on the side of the last motion, so sign() kept that motion's friction, which is what the real
            torque does, while tanh sets it to about zero. At standstill the torque is *static* friction, set
            by the history of the motion; no function of q̇ alone predicts it. A pre-sliding model (such as
            LuGre), or leaving each joint's standstill samples out of its equation, would be the next step:
        '''),
        code('''
            def smooth_coulomb_fit(eps):
                """OLS with FC_j·tanh(q̇_j/eps) instead of FC_j·sign(q̇_j); validation NRMSE per joint and pooled."""
                def stacked(p):
                    q, qd, qdd, tau = (a[p.kept] for a in (p.q, p.qd, p.qdd, p.tau))
                    W = base.regressor(q, qd, qdd)
                    for j in range(robot.n_dof):
                        W[:, j, base.names.index(f"FC{j + 1}")] = np.tanh(qd[:, j] / eps)
                    return W, tau
                W_train, tau_train = stacked(train)
                W_val, tau_val = stacked(val)
                p_hat, *_ = np.linalg.lstsq(W_train.reshape(-1, base.rank), tau_train.reshape(-1), rcond=None)
                e = tau_val - W_val @ p_hat
                return 100 * np.sqrt((e ** 2).sum(axis=0) / (tau_val ** 2).sum(axis=0)), \\
                    100 * np.sqrt((e ** 2).sum() / (tau_val ** 2).sum())

            smooth = {"sign(q̇) (the fit above)": (m_val.nrmse_percent, m_val.nrmse_pooled_percent)}
            for eps in (0.005, 0.02):
                smooth[f"tanh(q̇/{eps})"] = smooth_coulomb_fit(eps)
            pd.DataFrame({k: {"joint 5 [%]": v[0][4], "joint 6 [%]": v[0][5], "pooled [%]": v[1]}
                          for k, v in smooth.items()}).T.round(2)
        '''),
        md('''
            ## 8. What the choices buy

            The same fit with one choice changed at a time, scored on the same held-out file. Last, if
            pinocchio is installed, the field's usual pipeline (`bench/baseline_pinocchio.py`: pinocchio's
            joint-torque regressor from the URDF plus friction columns, base columns by a pivoted QR with a
            numerical tolerance, OLS) on exactly the samples the fit above used.
        '''),
        *comparison_cells("ur10e.urdf"),
        code('''
            at_rest = (val_raw.qd == 0).all(axis=1)
            print(f"validation rows where every recorded q̇ is exactly 0: {at_rest.mean():.0%}; after the 5 Hz filter: "
                  f"{(bp.preprocess(val_raw, bp.Preprocessing(rest_velocity=None)).qd == 0).all(axis=1).mean():.0%}")
        '''),
        md('''
            * **Filtering** pays: without it q̈ is differentiated from noisy q̇, and the noise in τ and q̈
              enters the fit.
            * **Rest trimming** pays most on this point-to-point validation log. Without it a third of the
              score is standing still, where the filtered q̇ rings around zero and the Coulomb term chatters
              (see joint 6 above, now for every joint). Using the log as recorded (`Preprocessing.none()`) is
              less bad than filtering without trimming, because the *recorded* q̇ is exactly 0 at rest.
            * **WLS** weights each joint by 1/σ_j²: it makes the standard deviations meaningful when the
              joints' noise differs; here it changes the pooled error by only a few tenths of a percent.
            * The **usual pipeline** has no rotor-inertia columns (the URDF has none: 54 instead of 58
              parameters) and otherwise fits the same model class on the same samples, so it predicts nearly
              the same torques. The issue quotes about 5.0 % for it; the last check keeps this notebook below
              that.
        '''),
        assert_cell(5.0, "UR10e"),
    ]


NOTEBOOKS = {
    "03_identification_kuka_lwr4.ipynb": kuka_cells,
    "04_identification_ur10e.ipynb": ur_cells,
}


def main(argv=None):
    return write_notebooks(NOTEBOOKS, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
