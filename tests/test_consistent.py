"""The physically consistent fit (issue 13) on robots whose true parameters are known, and on real data.

Torques are simulated from physical bodies (tests/random_bodies.py: solid boxes, never baseparam's
dynamics for the truth's definition), so the truth satisfies every constraint:

* noise-free, the fit returns the true base parameters (to solver accuracy), every pseudo-inertia
  positive definite; with the true bodies as the CAD prior it returns the true *standard* parameters,
  the directions the data cannot see included;
* with noise, every base parameter lies within 3σ of the truth (σ: the estimator's own statistics);
  a wrong CAD prior (masses off by 3×) is not allowed to pull the estimate away from the data;
* mass bounds hold; bounds that leave no body are refused in one line; the description's length
  unit changes nothing.

Real data (../shared/data, README splits): the held-out targets of issue 13 and no split where the
consistent fit is worse than OLS.
"""
import dataclasses
import functools
import json

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification._payload_math import pseudo_matrix
from conftest import DATA, ROOT, needs_data
from random_bodies import custom_robot, random_parameters, random_states

pytest.importorskip("cvxpy")
pytestmark = pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning")


def simulated(robot, parameters, seed, n=400, noise=0.0):
    """(base, p, (q, qd, qdd, tau)) with torques from random physical bodies, plus relative noise."""
    rng = np.random.default_rng(seed)
    base = bp.find_base_parameters(robot, parameters)
    p, bodies, _ = random_parameters(robot, parameters, rng)
    q, qd, qdd = random_states(robot, n, rng)
    tau = base.regressor(q, qd, qdd) @ base.from_standard(p)
    tau = tau + noise * tau.std(axis=0) * rng.normal(size=tau.shape)
    return base, p, bodies, (q, qd, qdd, tau)


def with_bodies(robot, bodies, mass_factor=1.0):
    """The robot whose description gives these bodies (mass, com, inertia about the com) as true inertias."""
    joints = tuple(dataclasses.replace(j, inertia=bp.Inertia(mass=m * mass_factor, com=c, inertia=I * mass_factor))
                   for j, (m, c, I) in zip(robot.joints, bodies))
    return dataclasses.replace(robot, joints=joints, source=None)


def fit(robot, data, parameters="pseudo", **options):
    return bp.BaseParameterEstimator(robot, method="consistent", preprocessing=None, parameters=parameters,
                                     **options).fit(data)


def assert_physical(estimator):
    layout = bp.ColumnLayout(estimator.base_.robot, estimator.base_.parameters)
    pseudo = estimator.standard_
    if estimator.base_.parameters == "khalil":
        from baseparam.model.parameters import khalil_to_pseudo
        K = np.array(khalil_to_pseudo(), dtype=float)
        pseudo = np.array(pseudo)
        for cols in layout.link_columns:
            pseudo[cols] = K @ estimator.standard_[cols]
    for cols in layout.link_columns:          # J ⪰ ε·T² (ε relative to the link's scale): positive definite
        assert np.linalg.eigvalsh(pseudo_matrix(pseudo[cols]))[0] > 0
    for (_, kind), c in layout.friction_columns.items():
        if kind in ("FV", "FC", "FS"):
            assert estimator.standard_[c] >= -1e-9
    for c in layout.rotor_columns.values():
        assert estimator.standard_[c] >= -1e-9


@pytest.mark.parametrize("name, parameters", [("puma560.yaml", "pseudo"), ("stanford_arm.yaml", "khalil"),
                                              ("dual_arm_torso.yaml", "pseudo"), ("ur10e.yaml", "pseudo")])
def test_noise_free_data_give_the_truth(name, parameters):
    robot = bp.load_robot(ROOT / "robots" / name)
    base, p, _, data = simulated(robot, parameters, seed=1)
    truth = base.from_standard(p)
    # WLS weights of noise-free data are round-off (bounded to 10⁴ : 1), which costs the solver digits
    for weighting, tolerance in (("ols", 1e-6), ("wls", 1e-4)):
        est = fit(robot, data, parameters, prior="none", weighting=weighting)
        np.testing.assert_allclose(est.coef_, truth, atol=tolerance * np.abs(truth).max())
        assert est.solver_status_ in ("optimal", "optimal_inaccurate")      # the latter: gap 1e-11, see _consistent
        assert_physical(est)


@pytest.mark.parametrize("name", ["rpr_modified_drives", "tree_prismatic"])
def test_cad_prior_at_the_truth_recovers_every_standard_parameter(name):
    """Noise-free torques and the true bodies as CAD: the data fix the base parameters, the prior the rest,
    so the standard parameters (unidentifiable directions included) are the truth."""
    robot = custom_robot(name)
    base, p, bodies, data = simulated(robot, "pseudo", seed=3)
    cad = with_bodies(robot, bodies)
    est = fit(cad, data, prior="cad", prior_weight=0.1, weighting="ols")
    layout = bp.ColumnLayout(robot)
    links = layout.link_columns.ravel()
    np.testing.assert_allclose(est.standard_[links], p[links], atol=2e-4 * np.abs(p[links]).max())
    auto = fit(cad, data, weighting="ols")          # prior 'auto' = cad here, weight chosen by hold-out
    assert auto.consistent_.prior == "cad" and auto.consistent_.prior_choice.selected_by.startswith("hold-out")
    np.testing.assert_allclose(auto.coef_, base.from_standard(p), atol=1e-5 * np.abs(auto.coef_).max())


@pytest.mark.parametrize("name, seed", [("ur5.yaml", 2), ("kuka_iiwa14.yaml", 4), ("rpr_modified_drives", 5),
                                        ("tree_interleaved", 6)])
def test_noisy_estimate_within_three_sigma_of_the_truth(name, seed):
    robot = custom_robot(name) if not name.endswith(".yaml") else bp.load_robot(ROOT / "robots" / name)
    base, p, bodies, data = simulated(robot, "pseudo", seed=seed, n=1500, noise=0.05)
    truth = base.from_standard(p)
    free = fit(robot, data, prior="none")
    for est in (free, fit(with_bodies(robot, bodies), data)):
        z = np.abs(est.coef_ - truth) / est.std_
        assert np.all(z <= 3.0), (est.consistent_, base.names[int(np.argmax(z))], z.max())
        assert_physical(est)
    # a wrong prior (masses 3×) may move no base parameter by more than 3σ from the fit without it, so
    # against the truth it stays within the data's 3σ plus that
    wrong = fit(with_bodies(robot, bodies, mass_factor=3.0), data)
    assert np.all(np.abs(wrong.coef_ - free.coef_) <= 3.0 * free.std_ * (1 + 1e-6))
    assert np.all(np.abs(wrong.coef_ - truth) <= 6.0 * free.std_)
    assert_physical(wrong)


def test_mass_bounds_hold_and_impossible_ones_are_refused(tmp_path):
    robot = bp.load_robot(ROOT / "robots" / "ur5.yaml")
    _, p, bodies, data = simulated(robot, "pseudo", seed=7, n=600, noise=0.05)
    free = fit(robot, data, prior="none")
    masses = [link["mass"] for link in free.physical_]
    bounds = {2: (masses[1] + 1.0, None), 3: (None, 0.8 * masses[2])}
    bounded = fit(robot, data, prior="none", mass_bounds=bounds, total_mass=(None, sum(masses) + 5))
    got = [link["mass"] for link in bounded.physical_]
    assert got[1] >= masses[1] + 1.0 - 1e-6 and got[2] <= 0.8 * masses[2] + 1e-6 and sum(got) <= sum(masses) + 5
    assert_physical(bounded)
    # binding bounds cost training error (the weighted objective; pooled errors within round-off)
    assert bounded.train_.nrmse_pooled_percent >= free.train_.nrmse_pooled_percent * (1 - 1e-4)
    with pytest.raises(bp.BaseParamError, match="mass bounds"):
        fit(robot, data, prior="none", mass_bounds={1: (5.0, None)}, total_mass=(None, 1.0))
    with pytest.raises(bp.DataError, match="link 9 does not exist"):
        fit(robot, data, prior="none", mass_bounds={9: (0, 1)})
    with pytest.raises(bp.DataError, match="only for method='consistent'"):
        bp.BaseParameterEstimator(robot, preprocessing=None, mass_bounds={1: (0, 1)}).fit(data)
    # impossible bounds with the CAD prior (the default when the description has inertias): one line
    with pytest.raises(bp.BaseParamError, match="mass bounds"):
        fit(with_bodies(robot, bodies), data, mass_bounds={1: (50.0, None)}, total_mass=(None, 1.0))


def test_given_base_set_keeps_the_robots_own_models_and_bodies():
    """base= saves the projection; the robot given keeps its friction models and CAD bodies."""
    robot = bp.load_robot(ROOT / "robots" / "ur5.yaml")
    base, p, bodies, data = simulated(robot, "pseudo", seed=11, n=600, noise=0.03)
    cad = with_bodies(robot, bodies)
    est = fit(cad, data, base=base)                   # base found on the description without inertias
    assert est.consistent_.prior == "cad" and est.base_.robot is cad


def test_length_unit_changes_nothing():
    """The same robot in mm and in m: the same bodies (the solver's scaling follows the robot, SI inside)."""
    text = (ROOT / "robots" / "puma560.yaml").read_text()
    mm = bp.parse_robot(text)
    assert mm.length_unit == "mm"
    base, p, _, data = simulated(mm, "pseudo", seed=8, n=600, noise=0.03)
    a = fit(mm, data, prior="none")
    m = bp.Robot(tuple(dataclasses.replace(j, a=j.a / 1000, d=j.d / 1000) for j in mm.joints), name=mm.name,
                 convention=mm.convention, length_unit="m", angle_unit=mm.angle_unit, gravity=mm.gravity)
    b = fit(m, data, prior="none")
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-5, atol=1e-6 * np.abs(a.coef_).max())


# -- real data ---------------------------------------------------------------------------------------------------
UR = ("--columns", "t=0,q=1:7,qd=7:13,current=13:19", "--gains", "10,10.6956,8.4566,9.0029,9.4800,10.1232")


def ur_trajectory(name):
    folder = "validation_data" if "ptp" in name or "-p" in name else "identification_data"
    return bp.read_trajectory(DATA / "ur10e" / folder / name, columns=UR[1], gains=[float(g) for g in UR[3].split(",")])


@needs_data
def test_kuka_target_and_report(tmp_path):
    """README split, through the CLI: consistent fit with the CAD prior ≤ 3.0 % held out (OLS 4.1 %), every J
    positive definite, friction ≥ 0; the JSON reports what the constraints cost and what they moved."""
    lwr = DATA / "kuka_lwr4"
    out = tmp_path / "fit.json"
    res = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "kuka_lwr4.yaml"),
                                    str(lwr / "measurements_3.npz"), "--validate", str(lwr / "measurements_1.npz"),
                                    "--method", "consistent",
                                    "--json", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["validation"]["nrmse_pooled_percent"] <= 3.0
    assert doc["solver_status"] == "optimal" and all(link["min_eigenvalue"] > 0 for link in doc["physical"])
    c = doc["consistent"]
    assert c["prior"] == "cad" and c["prior_weight"]["selected_by"].startswith("hold-out")
    cost = c["constraint_cost"]
    assert cost["train_nrmse_pooled_percent"] >= cost["train_nrmse_pooled_percent_unconstrained"]
    assert all(v >= 0 for n, v in c["standard"].items() if n.startswith(("FV", "FC")))
    assert "cost of the constraints" in res.output and "moved by the constraints" in res.output


@needs_data
@pytest.mark.parametrize("train, validate", [("measurements_3.npz", "measurements_1.npz"),
                                             ("measurements_1.npz", "measurements_3.npz"),
                                             ("measurements_2.npz", "measurements_3.npz")])
def test_kuka_consistent_never_worse_than_ols(train, validate):
    ols = kuka_fit(train, validate)
    for options in ({"prior": "none"}, {}, {"weighting": "ols"}):
        cons = kuka_fit(train, validate, method="consistent", **options)
        assert cons.validation.nrmse_pooled_percent <= ols.validation.nrmse_pooled_percent, options


@functools.cache
def kuka_fit(train, validate, **options):
    """``bp.identify`` of robots/kuka_lwr4.yaml on a measured file, once per module: several tests check
    different properties of the same fit (results are frozen; the cvxpy fit takes seconds)."""
    lwr = DATA / "kuka_lwr4"
    return bp.identify(described("kuka_lwr4.yaml"), str(lwr / train), validate=str(lwr / validate), **options)


@functools.cache
def described(name):
    """robots/``name`` loaded once per module: the real-data tests' consistent fits of one robot object re-solve the
    cvxpy program the first compiled (one per constraint set, kept with the object: test_consistent_reuse shows
    the results are those of a program of their own), which none of these claims depends on."""
    return bp.load_robot(ROOT / "robots" / name)


@needs_data
@pytest.mark.parametrize("train", ["ur-20_02_12-50sec_12harm.csv", "ur-20_02_12-40sec_12harm.csv",
                                   "ur-20_02_19_14harm50sec.csv"])
def test_ur10e_consistent_never_worse_than_ols(train):
    robot = described("ur10e.yaml")
    tr, va = ur_trajectory(train), ur_trajectory("ur-20_01_17-ptp_10_points.csv")
    ols = bp.identify(robot, tr, validate=va)
    cons = bp.identify(robot, tr, validate=va, method="consistent")
    assert cons.validation.nrmse_pooled_percent <= ols.validation.nrmse_pooled_percent
    if train == "ur-20_02_12-50sec_12harm.csv":
        assert cons.validation.nrmse_pooled_percent <= 4.3          # issue 13's target for the README split
    assert all(link["min_eigenvalue"] > 0 for link in cons.estimator.physical_)


@needs_data
def test_urdf_and_dh_description_give_the_same_fit():
    """The KUKA's URDF (CAD <inertial>, URDF frames) and robots/kuka_lwr4.yaml (the same CAD moved into DH
    frames): with the same prior weight the same bodies (the prior's metric is invariant under a change of
    frame) and the same held-out error."""
    lwr = DATA / "kuka_lwr4"
    train, validate = str(lwr / "measurements_3.npz"), str(lwr / "measurements_1.npz")
    urdf = bp.load_robot(lwr / "kuka_lwr4.urdf", friction=True)
    dh = described("kuka_lwr4.yaml")
    a, b = (bp.identify(robot, train, validate=validate, method="consistent", prior_weight=0.3) for robot in (urdf, dh))
    assert a.validation.nrmse_pooled_percent == pytest.approx(b.validation.nrmse_pooled_percent, abs=1e-3)
    np.testing.assert_allclose([x["mass"] for x in a.estimator.physical_], [x["mass"] for x in b.estimator.physical_],
                               rtol=1e-3)
    np.testing.assert_allclose([x["principal_moments"] for x in a.estimator.physical_],
                               [x["principal_moments"] for x in b.estimator.physical_], rtol=1e-2, atol=1e-5)
    auto = bp.identify(urdf, train, validate=validate, method="consistent")     # weight chosen in URDF frames
    assert auto.validation.nrmse_pooled_percent <= 3.0


# -- identified models out ---------------------------------------------------------------------------------------
@needs_data
def test_identified_model_as_urdf_matches_the_prediction(tmp_path):
    """--urdf: pinocchio's rnea on the written model, at states the fit never saw, equals the fit's prediction
    (friction columns aside); OLS refuses to write bodies."""
    pin = pytest.importorskip("pinocchio")
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    # the fit never reads the validation file (it only scores the result): the fit of the test above
    result = kuka_fit("measurements_3.npz", "measurements_1.npz", method="consistent")
    path = tmp_path / "kuka_identified.urdf"
    result.to_urdf(path)
    model = pin.buildModelFromUrdf(str(path))
    model.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    data = model.createData()
    e = result.estimator
    x = np.where([n.startswith(("FV", "FC", "FO", "FS", "IA")) for n in e.names_], 0.0, e.coef_)
    rng = np.random.default_rng(5)
    q, qd, qdd = (rng.uniform(-2, 2, (5, 7)) for _ in range(3))
    W = e.base_.regressor(q, qd, qdd)
    for s in range(5):
        ref = pin.rnea(model, data, q[s], qd[s], qdd[s])
        np.testing.assert_allclose(ref, W[s] @ x, atol=1e-9 * np.abs(ref).max())
    ols = kuka_fit("measurements_3.npz", "measurements_1.npz")
    with pytest.raises(bp.ArgumentError, match="method='consistent'"):
        ols.to_urdf()


@needs_data
def test_identified_description_predicts_as_the_fit(tmp_path):
    """--yaml: the description with the identified bodies, friction (and its model) read back gives through
    bp.inverse_dynamics the fit's own prediction at states given as arrays (friction included)."""
    lwr = DATA / "kuka_lwr4"
    out = tmp_path / "kuka_identified.yaml"
    kuka, train = str(ROOT / "robots" / "kuka_lwr4.yaml"), str(lwr / "measurements_3.npz")
    res = CliRunner().invoke(main, ["identify", kuka, train, "--method", "consistent", "--yaml", str(out),
                                    "--friction-model", "smooth"])
    assert res.exit_code == 0, res.output
    robot = bp.load_robot(out)
    assert all(j.friction_model is not None and j.friction_model.coulomb == "smooth"
               and isinstance(j.friction_model.velocity, float) for j in robot.joints)
    result = bp.identify(bp.load_robot(kuka, friction_model="smooth"), train, method="consistent")
    rng = np.random.default_rng(6)
    q, qd, qdd = (rng.uniform(-2, 2, (20, 7)) for _ in range(3))
    tau = bp.inverse_dynamics(robot, bp.standard_parameters(robot), q, qd, qdd)
    np.testing.assert_allclose(tau, result.estimator.predict((q, qd, qdd)), atol=1e-8 * np.abs(tau).max())
    bad = CliRunner().invoke(main, ["identify", kuka, train, "--yaml", str(tmp_path / "x.yaml")])
    assert bad.exit_code == 2 and "--method consistent" in bad.output


def test_cli_option_errors_are_one_line(tmp_path):
    robot = str(ROOT / "robots" / "planar_rrr.yaml")
    t = np.linspace(0, 4, 401)
    q = np.column_stack([np.sin(k * t) for k in (1, 2, 3)])
    path = tmp_path / "log.csv"
    rows = np.column_stack([t, q, np.cos(q)])
    np.savetxt(path, rows, delimiter=",", header="t,q1,q2,q3,tau1,tau2,tau3", comments="")
    for args, message in ((["--mass-bounds", "x:1:2"], "--mass-bounds"), (["--total-mass", "5:1"], "--total-mass"),
                          (["--mass-bounds", "1:1:2"], "only with --method consistent"),
                          (["--friction-model", "wobbly"], "--friction-model")):
        res = CliRunner().invoke(main, ["identify", robot, str(path), *args])
        assert res.exit_code == 2, (args, res.output)
        assert message in res.output and "Traceback" not in res.output
