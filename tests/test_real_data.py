"""Identification on the real robot data in ../shared/data, held-out validation (issue 4's targets).

KUKA LWR4+ (joint torque sensors): train measurements_3.npz, validate measurements_1.npz (a
different trajectory). UR10e (motor currents × drive gains): train the 50 s 12-harmonic log,
validate the point-to-point log. Targets: pooled validation NRMSE at or below the field's usual
pipeline — pinocchio regressor + friction + pivoted QR + OLS (bench/baseline_pinocchio.py) — which
the issue puts at about 6.6 % (KUKA) and 5.0 % (UR10e). The comparison with that pipeline on the
same preprocessed samples runs here too when pinocchio is installed.
"""
import dataclasses
import json
import sys
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import DATA, ROOT, needs_data

pytestmark = needs_data

UR_COLUMNS = "t=0,q=1:7,qd=7:13,current=13:19"
UR_GAINS = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]
CASES = {
    "kuka_lwr4": dict(robot="kuka_lwr4.yaml", train="kuka_lwr4/measurements_3.npz",
                      validate="kuka_lwr4/measurements_1.npz", read={}, target=6.6,
                      urdf="kuka_lwr4/kuka_lwr4.urdf"),
    "ur10e": dict(robot="ur10e.yaml", train="ur10e/identification_data/ur-20_02_12-50sec_12harm.csv",
                  validate="ur10e/validation_data/ur-20_01_17-ptp_10_points.csv",
                  read=dict(columns=UR_COLUMNS, gains=UR_GAINS), target=5.0, urdf="ur10e/ur10e.urdf"),
}


def _read(case, which):
    return bp.read_trajectory(DATA / case[which], **case["read"])


@pytest.fixture(scope="module", params=sorted(CASES))
def experiment(request):
    case = CASES[request.param]
    robot = bp.load_robot(ROOT / "robots" / case["robot"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)   # real data: many small parameters are poorly determined
        result = bp.identify(robot, _read(case, "train"), validate=_read(case, "validate"))
    return request.param, case, robot, result


def test_validation_error_meets_the_target(experiment):
    name, case, robot, result = experiment
    assert result.validation.nrmse_pooled_percent <= case["target"], result.summary()
    # the training error is of the same size: no sign of a model that only fits its own data
    assert result.train.nrmse_pooled_percent < case["target"]
    assert result.validation.n_samples > 3000 and result.train.n_samples > 4000


def test_friction_estimates_are_physical(experiment):
    """Coulomb friction is dissipative: positive, and well determined by these data.

    Viscous friction too where the torque is measured at the motor (UR10e currents): the KUKA's
    link-side torque sensors see little of the gear friction, and OLS gives FV5, FV7 < 0 there
    (an unconstrained fit of a model that misses the joints' elasticity) — not asserted.
    """
    name, case, robot, result = experiment
    table = {n: (v, r) for n, v, _, r in result.table()}
    kinds = ("FV", "FC") if name == "ur10e" else ("FC",)
    for j in range(1, robot.n_dof + 1):
        for kind in kinds:
            value, rel = table[f"{kind}{j}"]
            assert value > 0, (name, kind, j, value)
            assert rel < 25, (name, kind, j, rel)


def test_ur10e_friction_agrees_with_the_authors():
    """An independent identification (Mamedov et al., UR10E_parameters.txt) of the same robot."""
    text = (DATA / "ur10e" / "UR10E_parameters.txt").read_text(encoding="utf-8", errors="replace")
    authors = np.array(text.split("pi_frcn = [")[1].split("]")[0].split(), float).reshape(6, 3)
    case = CASES["ur10e"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)
        result = bp.identify(ROOT / "robots" / case["robot"], _read(case, "train"))
    values = dict(zip(result.estimator.names_, result.values))
    ours = np.array([[values[f"FV{j}"], values[f"FC{j}"]] for j in range(1, 7)])
    # the wrist joints (4-6) carry little inertia, so their friction is what the currents show:
    # within 25 % of the authors' values; joints 1-3 differ more (gravity and inertia dominate)
    np.testing.assert_allclose(ours[3:], authors[3:, :2], rtol=0.25)


def test_same_as_the_usual_pipeline_on_the_same_samples(experiment):
    """OLS on our base columns spans the same model as pinocchio's regressor + pivoted QR.

    Without the rotor-inertia columns (the usual pipeline has none), the validation error on the
    same preprocessed samples must agree to rounding: an independent check of the regressor, the
    base set and the fit on real data. With them (the UR10e's description), ours is not worse.
    """
    pytest.importorskip("pinocchio")
    sys.path.insert(0, str(ROOT / "bench"))
    import baseline_pinocchio as usual
    name, case, robot, result = experiment
    # the usual pipeline's Coulomb column is sign(q̇): ours without the low-pass of it (filter_friction),
    # which the processed data's record carries
    plain = bp.Preprocessing(filter_friction=False)
    train = bp.preprocess(_read(case, "train"), plain)
    validate = bp.preprocess(_read(case, "validate"), plain)
    kept = lambda p: tuple(a[p.kept] for a in (p.q, p.qd, p.qdd, p.tau))   # noqa: E731
    fit = usual.baseline_fit(DATA / case["urdf"], kept(train))
    q, qd, qdd, tau = kept(validate)
    _, pooled_usual = usual.nrmse(tau, usual.baseline_predict(fit, q, qd, qdd))

    no_rotor = bp.Robot(tuple(dataclasses.replace(j, rotor_inertia=False) for j in robot.joints), name=robot.name,
                        convention=robot.convention, length_unit=robot.length_unit, angle_unit=robot.angle_unit,
                        gravity=robot.gravity)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.ExcitationWarning)
        same = bp.identify(no_rotor, train, validate=validate)
    assert same.base.rank == fit["rank"]
    assert same.validation.nrmse_pooled_percent == pytest.approx(pooled_usual, rel=1e-6)
    assert result.validation.nrmse_pooled_percent <= pooled_usual + 0.05


def test_cli_reproduces_the_library_result(experiment, tmp_path):
    name, case, robot, result = experiment
    args = ["identify", str(ROOT / "robots" / case["robot"]), str(DATA / case["train"]),
            "--validate", str(DATA / case["validate"]), "--json", str(tmp_path / "out.json")]
    if case["read"]:
        args += ["--columns", case["read"]["columns"], "--gains", ",".join(map(str, case["read"]["gains"]))]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["validation"]["nrmse_pooled_percent"] == pytest.approx(result.validation.nrmse_pooled_percent,
                                                                      rel=1e-9)
    assert [b["name"] for b in doc["base"]] == result.estimator.names_
    assert doc["condition_number"] > 1


def test_damaged_log_is_refused_or_reported():
    path = DATA / "ur10e" / "identification_data" / "ur-20_02_19_15harm50secLoad.csv"
    with pytest.raises(bp.DataError, match=r"ur-20_02_19_15harm50secLoad\.csv: line 2"):
        bp.read_trajectory(path, columns=UR_COLUMNS, gains=UR_GAINS)
    traj = bp.read_trajectory(path, columns=UR_COLUMNS, gains=UR_GAINS, skip_bad_rows=True)
    lines = [line for line, _ in traj.skipped]
    assert set(range(2, 11)) <= set(lines)
    assert "skipped" in traj.skipped_summary()
    assert np.isfinite(traj.tau).all() and np.all(np.diff(traj.t) > 0)
    assert np.abs(traj.q).max() < 2 * np.pi + 0.1      # the garbage rows' absurd numbers are gone
