"""Friction models (smooth Coulomb, Stribeck, identified velocity scales) and the low-passed Coulomb column.

Independent references: the friction torque written out by hand from the documented formulas; the
regressor against Newton–Euler (two code paths); exported Python and C code against the library;
simulated data whose true friction is known (identification must recover it, and the low-passed
column must recover the Coulomb level better than sign(q̇) when the torque was filtered).
"""
import dataclasses
import importlib.util
import re
import shutil
import subprocess

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.model.friction import FrictionModel, parse_friction_model
from baseparam.model.robot import robot_to_yaml

pytestmark = pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning")

ARM = """
name: friction test arm
units: {length: m, angle: deg}
friction_model: {coulomb: smooth, velocity: 0.05, stribeck: 0.1, stribeck_friction: 0.3}
joints:
  - {type: revolute, alpha: 90, a: 0.1, d: 0.2, friction: [0.1, 0.5, 0.05],
     inertia: {mass: 1, com: [0.1, 0, 0], inertia: [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]}}
  - {type: revolute, alpha: 0, a: 0.5, d: 0, friction: [0.2, 0.4, -0.1], rotor_inertia: 0.02,
     friction_model: {coulomb: sign, stribeck: 0.2, stribeck_friction: 0.1},
     inertia: {mass: 2, com: [0.2, 0, 0], inertia: [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.2]]}}
  - {type: prismatic, alpha: -90, a: 0.0, theta: 0, friction: [0.2, 0.4, 0.0],
     inertia: {mass: 1.5, com: [0, 0.1, 0.05], inertia: [[0.05, 0, 0], [0, 0.06, 0], [0, 0, 0.04]]}}
"""


def by_hand(qd):
    """The documented friction torque of ARM, written out."""
    t1 = np.tanh(qd[:, 0] / 0.05)
    t3 = np.tanh(qd[:, 2] / 0.05)
    s2 = np.sign(qd[:, 1])
    return np.column_stack([
        0.1 * qd[:, 0] + 0.5 * t1 + 0.05 + 0.3 * np.exp(-(qd[:, 0] / 0.1) ** 2) * t1,
        0.2 * qd[:, 1] + 0.4 * s2 - 0.1 + 0.1 * np.exp(-(qd[:, 1] / 0.2) ** 2) * s2,
        0.2 * qd[:, 2] + 0.4 * t3 + 0.3 * np.exp(-(qd[:, 2] / 0.1) ** 2) * t3])


@pytest.fixture(scope="module")
def arm():
    robot = bp.parse_robot(ARM, "arm.yaml")
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.normal(size=(3, 60, 3)) * 0.3
    return robot, bp.standard_parameters(robot), (q, qd, qdd)


def test_layout_and_true_values(arm):
    robot, p, _ = arm
    names = bp.ColumnLayout(robot).names
    assert [n for n in names if n[:2] in ("FV", "FC", "FO", "FS", "IA")] == [
        "FV1", "FC1", "FO1", "FS1", "IA2", "FV2", "FC2", "FO2", "FS2", "FV3", "FC3", "FO3", "FS3"]
    assert p[names.index("FS1")] == 0.3 and p[names.index("FS2")] == 0.1


def test_friction_torque_regressor_and_newton_euler_agree_with_the_formulas(arm):
    robot, p, (q, qd, qdd) = arm
    np.testing.assert_allclose(bp.friction_torque(robot, p, qd), by_hand(qd), atol=1e-14)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd)
    np.testing.assert_allclose(bp.regressor(robot, q, qd, qdd) @ p, tau, atol=1e-12)
    zero = np.zeros_like(qd)
    rigid = bp.inverse_dynamics(robot, p, q, zero, zero)      # gravity only, friction(0) = FO
    assert np.allclose(rigid - bp.gravity_torque(robot, p, q), [0.05, -0.1, 0.0])
    base = bp.find_base_parameters(robot)
    assert {"FS1", "FS2", "FS3"} <= set(base.names)
    np.testing.assert_allclose(bp.inverse_dynamics(base.model(base.from_standard(p)), q, qd, qdd), tau, atol=1e-12)


def test_exported_code_has_the_friction_models(arm, tmp_path):
    robot, p, (q, qd, qdd) = arm
    base = bp.find_base_parameters(robot)
    x = base.from_standard(p)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd)
    result = bp.export(base, "python", what=["regressor", "inverse_dynamics"], prefix="fm", out_dir=tmp_path)
    spec = importlib.util.spec_from_file_location("fm_dynamics", result.files[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np.testing.assert_allclose(module.regressor(q, qd, qdd) @ x, tau, atol=1e-12)
    np.testing.assert_allclose(module.inverse_dynamics(q[3], qd[3], qdd[3], x), tau[3], atol=1e-12)   # floats
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    bp.export(base, "c", what=["inverse_dynamics"], prefix="fm", out_dir=tmp_path)
    main_c = tmp_path / "main.c"
    def c_array(a):
        return "{" + ", ".join(map(repr, np.asarray(a).tolist())) + "}"
    rows = "\n".join(f"    {{ double q[3] = {c_array(q[s])}, qd[3] = {c_array(qd[s])}, qdd[3] = {c_array(qdd[s])}; "
                     'fm_inverse_dynamics(q, qd, qdd, p, t); printf("%.17g %.17g %.17g\\n", t[0], t[1], t[2]); }'
                     for s in range(5))
    main_c.write_text(f'#include <stdio.h>\n#include "fm.h"\nint main(void) {{ double t[3]; '
                      f'const double p[{len(x)}] = {{{", ".join(map(repr, x.tolist()))}}};\n{rows}\n return 0; }}\n')
    build = subprocess.run([cc, "-std=c99", "-Wall", "-Werror", "main.c", "fm.c", "-o", "main", "-lm"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True).stdout
    np.testing.assert_allclose(np.loadtxt(out.splitlines()), tau[:5], atol=1e-12)


def test_auto_scales_cannot_be_evaluated_or_exported():
    robot = bp.parse_robot(ARM.replace("velocity: 0.05", "velocity: auto"), "arm.yaml")
    p = bp.standard_parameters(robot)
    with pytest.raises(bp.ArgumentError, match="'auto'"):
        bp.friction_torque(robot, p, np.ones((2, 3)))
    with pytest.raises(bp.ExportError, match="auto"):
        bp.export(bp.find_base_parameters(robot), "python", what=["regressor"], out_dir="/nonexistent-not-written")


@pytest.mark.parametrize("spec", ["smooth:auto", "stribeck:auto", "smooth:0.02+stribeck:auto", "smooth+stribeck:0.1"])
def test_the_refusal_of_an_auto_scale_suggests_the_same_model_with_numbers(spec):
    """Its example is the joint's model with numbers for the 'auto' scales (parsed back: the same terms, no 'auto'):
    it said friction_model='smooth:0.05' for a Stribeck model too, a model without the Stribeck term (and column)."""
    from baseparam.model.friction import refuse_unresolved
    model, _ = parse_friction_model(spec)
    robot = bp.load_robot("robots/kuka_lwr4.yaml", friction_model=spec)
    with pytest.raises(bp.ArgumentError) as refused:
        refuse_unresolved(robot)
    example, = re.findall(r"e\.g\. friction_model='([^']*)'$", str(refused.value))
    suggested, _ = parse_friction_model(example)
    assert suggested.unresolved == () and (suggested.coulomb, suggested.stribeck is None) == \
        (model.coulomb, model.stribeck is None)
    assert [getattr(suggested, name) for name in ("velocity", "stribeck") if name not in model.unresolved] == \
        [getattr(model, name) for name in ("velocity", "stribeck") if name not in model.unresolved]


@pytest.mark.parametrize("entry, message", [
    ("friction_model: {coulomb: smooth}", "velocity: required"),
    ("friction_model: {coulomb: smooth, velocity: -1}", "velocity scale > 0"),
    ("friction_model: {coulomb: sign, velocity: 0.1}", "only for coulomb: smooth"),
    ("friction_model: {coulomb: tanh, velocity: 0.1}", "coulomb"),
    ("friction_model: {coulomb: sign, stribeck_friction: 1}", "stribeck_friction"),
    ("friction_model: {coulomb: sign, stribek: 0.1}", "did you mean 'stribeck'"),
])
def test_bad_friction_models_are_one_line(entry, message, tmp_path):
    text = ("units: {length: m, angle: deg}\njoints:\n  - {type: revolute, alpha: 0, a: 1, d: 0, friction: true, "
            + entry + "}\n")
    with pytest.raises(bp.RobotDescriptionError, match=message) as info:
        bp.parse_robot(text, "bad.yaml")
    assert str(info.value).startswith("bad.yaml: joints[1].friction_model")
    no_coulomb = text.replace("friction: true", "friction: [true, false, true]").replace(entry, "friction_model: "
                                                                                         "{stribeck: 0.1}")
    with pytest.raises(bp.RobotDescriptionError, match="does not declare"):
        bp.parse_robot(no_coulomb, "bad.yaml")
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    res = CliRunner().invoke(main, ["find", str(path)])
    assert res.exit_code == 2 and "Traceback" not in res.output


def test_option_and_round_trip(tmp_path):
    assert parse_friction_model("none") == (None, False)
    assert parse_friction_model("smooth") == (FrictionModel("smooth", "auto"), True)
    assert parse_friction_model("smooth:0.02+stribeck:auto") == (FrictionModel("smooth", 0.02, "auto"), True)
    with pytest.raises(bp.ArgumentError):
        parse_friction_model("smooth:fast")
    robot = bp.load_robot("robots/kuka_lwr4.yaml", friction_model="stribeck:0.05")
    assert all("FS" in j.friction_terms for j in robot.joints)
    none = bp.load_robot("robots/kuka_lwr4.yaml", friction_model="none")
    assert all(j.friction_terms == ("FV", "FO") for j in none.joints)
    written = dataclasses.replace(bp.parse_robot(ARM, "arm.yaml"), source=None)     # generate, not echo the text
    again = bp.parse_robot(robot_to_yaml(written), "again.yaml")
    assert [j.friction_model for j in again.joints] == [j.friction_model for j in written.joints]


# -- identification ------------------------------------------------------------------------------------------
def simulated_log(robot, p, seconds=40.0, rate=500.0, noise=0.02, seed=0):
    """A logged trajectory of a robot with known parameters: slow multi-sine motion with velocity reversals,
    torques from inverse dynamics plus white noise (relative to each joint's RMS)."""
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, seconds, 1.0 / rate)
    n = robot.n_dof
    w = rng.uniform(0.2, 0.9, (n, 3))
    a = rng.uniform(0.2, 0.6, (n, 3))
    phase = rng.uniform(0, 2 * np.pi, (n, 3))
    q = np.stack([(a[j] * np.sin(np.outer(t, w[j]) + phase[j])).sum(1) for j in range(n)], 1)
    qd = np.stack([(a[j] * w[j] * np.cos(np.outer(t, w[j]) + phase[j])).sum(1) for j in range(n)], 1)
    qdd = np.stack([-(a[j] * w[j] ** 2 * np.sin(np.outer(t, w[j]) + phase[j])).sum(1) for j in range(n)], 1)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd)
    tau = tau + noise * tau.std(axis=0) * rng.normal(size=tau.shape)
    return bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau)


PLANAR = """
name: planar with friction
units: {length: m, angle: deg}
gravity: [0, 0, -9.81]
joints:
  - {type: revolute, alpha: 90, a: 0, d: 0.3, friction: [0.3, 1.5, 0.2],
     inertia: {mass: 3, com: [0, -0.05, 0], inertia: [[0.05, 0, 0], [0, 0.04, 0], [0, 0, 0.05]]}}
  - {type: revolute, alpha: 0, a: 0.4, d: 0, friction: [0.2, 1.0, -0.1],
     inertia: {mass: 2, com: [-0.2, 0, 0], inertia: [[0.01, 0, 0], [0, 0.04, 0], [0, 0, 0.04]]}}
  - {type: revolute, alpha: 0, a: 0.3, d: 0, friction: [0.1, 0.6, 0.05],
     inertia: {mass: 1, com: [-0.15, 0, 0], inertia: [[0.005, 0, 0], [0, 0.01, 0], [0, 0, 0.01]]}}
"""


def test_low_passed_coulomb_column_recovers_the_coulomb_level():
    """τ low-passed at 2 Hz (well below the Coulomb steps' content): with the column filtered the same way the
    identified FC are the true ones, with sign(q̇) they are biased, and the held-out error is lower."""
    robot = bp.parse_robot(PLANAR, "planar.yaml")
    p = bp.standard_parameters(robot)
    train, held_out = simulated_log(robot, p, seed=1), simulated_log(robot, p, seed=2)
    layout = bp.ColumnLayout(robot)
    truth = np.array([p[layout.friction_columns[(k, "FC")]] for k in range(3)])
    errors, held = {}, {}
    for flag in (True, False):
        settings = bp.Preprocessing(cutoff_hz=2.0, filter_friction=flag)
        result = bp.identify(robot, train, validate=held_out, preprocessing=settings)
        values = dict(zip(result.estimator.names_, result.values))
        errors[flag] = np.abs(np.array([values[f"FC{k}"] for k in (1, 2, 3)]) - truth).max()
        held[flag] = result.validation.nrmse_pooled_percent
    assert errors[True] < 0.05 * truth.min() < errors[False]
    assert held[True] < held[False]


@pytest.mark.parametrize("model, scale, column, truth", [
    ("{coulomb: smooth, velocity: 0.04}", "velocity", "FC", None),
    ("{coulomb: sign, stribeck: 0.05, stribeck_friction: 0.8}", "stribeck", "FS", 0.8)])
def test_auto_scales_are_identified(model, scale, column, truth):
    """Simulated with a known scale; identified with 'auto': the chosen scale is the grid's nearest, the
    coefficients the true ones, and the result carries the numbers (JSON, fitted description)."""
    text = PLANAR.replace("name: planar with friction", f"name: {scale}\nfriction_model: {model}")
    robot = bp.parse_robot(text, "true.yaml")
    p = bp.standard_parameters(robot)
    log = simulated_log(robot, p, seed=3, noise=0.01)
    value = getattr(robot.joints[0].friction_model, scale)
    auto = bp.parse_robot(text.replace(f"{scale}: {value}", f"{scale}: auto"), "auto.yaml")
    result = bp.identify(auto, log, preprocessing=bp.Preprocessing(cutoff_hz=None, rest_velocity=None))
    chosen = [result.estimator.friction_scales_[k][scale] for k in (1, 2, 3)]
    assert all(value / 1.8 <= v <= value * 1.8 for v in chosen), chosen
    values = dict(zip(result.estimator.names_, result.values))
    layout = bp.ColumnLayout(robot)
    for k in range(3):
        expected = truth if truth is not None else p[layout.friction_columns[(k, column)]]
        assert values[f"{column}{k + 1}"] == pytest.approx(expected, rel=0.15)
    assert result.to_dict()["friction_scales"]["1"][scale] == chosen[0]
    assert all(getattr(j.friction_model, scale) == v for j, v in zip(result.estimator.base_.robot.joints, chosen))


def test_stored_z_with_stribeck_rows(tmp_path):
    robot = bp.parse_robot(ARM, "arm.yaml")
    base = bp.find_and_store(robot, tmp_path / "z.h5")
    import h5py
    with h5py.File(tmp_path / "z.h5") as f:
        rows = f["Z/rows"][:]
    assert {(int(r[1]), int(r[2])) for r in rows if r[0] < 0} >= {(1, 4), (2, 4), (3, 4)}
    assert base.rank == bp.find_base_parameters(robot).rank


def test_forward_dynamics_inverts_inverse_dynamics_with_friction_models(arm):
    """q̈ = FD(τ) with τ = ID(q̈), the friction models included: numpy batch, one-sample (C or Python) paths."""
    robot, p, (q, qd, qdd) = arm
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd)
    np.testing.assert_allclose(bp.forward_dynamics(robot, p, q, qd, tau), qdd, atol=1e-9)
    fd = bp.ForwardDynamics(robot, p)
    for s in range(3):
        np.testing.assert_allclose(fd(q[s], qd[s], tau[s]), qdd[s], atol=1e-9)
    other = bp.parse_robot(ARM.replace("velocity: 0.05", "velocity: 0.2"), "other.yaml")   # same structure
    tau2 = bp.inverse_dynamics(other, p, q, qd, qdd)
    np.testing.assert_allclose(bp.forward_dynamics(other, p, q, qd, tau2), qdd, atol=1e-9)


def test_friction_model_without_coulomb_is_refused_or_warned():
    text = ("units: {length: m, angle: deg}\njoints:\n  - {type: revolute, alpha: 0, a: 1, d: 0, "
            "friction: [true, false, true], friction_model: {coulomb: smooth, velocity: 0.1}}\n")
    with pytest.raises(bp.RobotDescriptionError, match="does not declare"):
        bp.parse_robot(text, "x.yaml")
    with pytest.warns(bp.DescriptionWarning, match="changes nothing"):
        bp.load_robot("robots/planar_rrr.yaml", friction_model="smooth")
