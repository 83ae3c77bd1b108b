"""Regressions of round 15's leftovers ('left3'): each test below failed on the code before its fix."""
import dataclasses
import shutil

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


# -- 1. a library writer given a robot never writes over the robot's own description ---------------------------------
def test_library_writers_refuse_the_robots_own_description(tmp_path):
    """find_and_store(robot, its own YAML) replaced the description with an HDF5 file (the CLI refuses it as an
    input; the library did not know where the robot came from): now every writer given the robot refuses it."""
    path = tmp_path / "robot.yaml"
    shutil.copy(PLANAR, path)
    before = path.read_bytes()
    robot = bp.load_robot(path)
    link = tmp_path / "hard.yaml"
    link.hardlink_to(path)              # the same file by another name
    for target in (path, str(path), link):
        with pytest.raises(bp.StorageError, match="is an input of this run"):
            bp.find_and_store(robot, target)
    from baseparam._atomic import write_text
    from baseparam._output_names import robot_protected
    with robot_protected(robot), pytest.raises(bp.StorageError, match="is an input of this run"):
        write_text(path, "x")          # the one rule every writer given a robot goes through
    robot_in_code = bp.Robot(joints=robot.joints)
    with robot_protected(robot_in_code):
        write_text(tmp_path / "other.txt", "x")
    assert path.read_bytes() == before
    # a robot built in code, or another output name: written as before
    out = tmp_path / "z.h5"
    bp.find_and_store(robot, out)
    assert out.stat().st_size > 0 and path.read_bytes() == before


# -- 2. dynamics.regressors.evaluate checks its arguments as the public regressors do ----------------------------------
def test_evaluate_refuses_bad_arguments_in_one_line():
    """evaluate (shown in notebooks/09_payload.py) checked nothing: NaN states gave NaN columns, a wrong width or a
    column beyond the robot's a bare numpy IndexError/ValueError. Now the regressors' checks, in one line each."""
    from baseparam.dynamics.regressors import evaluate
    robot = bp.load_robot(PLANAR)
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.uniform(-1, 1, (3, 4, 3))
    W = evaluate(robot, q, qd, qdd)
    np.testing.assert_array_equal(W, bp.regressor(bp.Model(robot), q, qd, qdd))    # the checked call: unchanged
    n = W.shape[2]
    bad_q = q.copy()
    bad_q[1, 2] = np.nan
    cases = [((robot, bad_q, qd, qdd), {}, "^q: "),
             ((robot, q[:, :2], qd, qdd), {}, "^q: "),
             ((robot, q, qd, qdd[:3]), {}, "qdd"),
             ((robot, q, qd, qdd), {"columns": [0, n]}, f"^columns: .*got {n}$"),
             ((robot, q, qd, qdd), {"columns": [0.5]}, "^columns: "),
             ((robot, q, qd, qdd), {"weights": np.ones(n + 1)}, f"^weights: expected {n} numbers"),
             ((robot, q, qd, qdd), {"parameters": "nope"}, "parameters"),
             ((robot, q, qd, qdd), {"shapes": (np.ones((4, 3)),)}, "^shapes: "),
             (("robot", q, qd, qdd), {}, "robot")]
    for args, kwargs, words in cases:
        with pytest.raises(bp.ArgumentError, match=words):
            evaluate(*args, **kwargs)
    p = rng.uniform(-1, 1, n)
    np.testing.assert_allclose(evaluate(robot, q, qd, qdd, weights=p), np.einsum("sjc,c->sj", W, p), rtol=1e-12,
                               atol=1e-12)


# -- 3. a payload not told from none: said so, and no vendor format ----------------------------------------------------
def _result(mass, mass_std):
    from baseparam.identification.payload import PayloadResult
    z = np.zeros(10)
    return PayloadResult(mass=mass, com=np.array([0.32, 0.1, -0.2]), inertia=np.eye(3) * 1e-6, mass_std=mass_std,
                         com_std=np.full(3, 0.16), inertia_std=np.full((3, 3), 1e-6), parameters=z, unconstrained=z,
                         covariance=np.eye(10), identifiable=[], rank=10, mode="model", n_samples=100,
                         rmse=np.zeros(6))


def test_a_payload_not_told_from_none_gives_no_vendor_format():
    """An unloaded log alone fitted 2.8e-5 ± 6.2e-6 kg with a centre of mass 0.32 ± 0.16 m off, and the UR, KUKA
    and Franka formats carried it, ready to load into a controller."""
    for mass, std in ((2.8e-5, 6.2e-6), (0.5, 0.2)):         # below 1 g; below 3 σ
        result = _result(mass, std)
        assert not result.mass_detected and result.to_dict()["vendors"] is None
    with pytest.raises(bp.ArgumentError, match="mass ≥ 0"):   # negative: no body, refused since round 23
        _result(-0.01, 0.004)
    assert _result(2.0, 0.01).to_dict()["vendors"]["ur"]["mass"] == 2.0   # a payload seen: as before


def test_identify_payload_of_an_unloaded_log_warns_in_one_line():
    """Torques of the robot's own bodies (no payload) with noise: the fit said nothing; now one DataWarning line."""
    from baseparam.dynamics.regressors import evaluate
    from baseparam.identification.payload import identify_payload
    from baseparam.model.parameters import ColumnLayout, body_parameters
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    rng = np.random.default_rng(1)
    t = np.arange(0.0, 6.0, 0.01)
    w = rng.uniform(0.5, 1.5, (3, robot.n_dof))
    q = np.sum([np.sin(k * t[:, None] * w[k - 1]) for k in (1, 2, 3)], axis=0) * 0.4
    values = np.concatenate([body_parameters(j.inertia, "pseudo") for j in robot.joints])
    qd, qdd = np.gradient(q, t, axis=0), np.gradient(np.gradient(q, t, axis=0), t, axis=0)
    tau = evaluate(robot, q, qd, qdd, columns=ColumnLayout(robot).link_columns.ravel(), weights=values)
    tau += rng.normal(0.0, 0.05, tau.shape)
    with pytest.warns(bp.DataWarning, match=r"^payload: mass .* kg is not told from none") as caught:
        result = identify_payload(robot, bp.Trajectory(t=t, q=q, tau=tau))
    assert len([w for w in caught if issubclass(w.category, bp.DataWarning)]) == 1
    assert abs(result.mass) < 0.01 and result.to_dict()["vendors"] is None


# -- 4. --mimic on a YAML robot is refused, not ignored ----------------------------------------------------------------
@pytest.mark.parametrize("mode", ["lock", "independent"])
def test_mimic_on_a_yaml_robot_is_refused(tmp_path, mode):
    """`identify --mimic lock` of a YAML robot (which has no <mimic> joints) was accepted and did nothing."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import one_line
    with pytest.raises(bp.ArgumentError, match=f"^.*planar_rrr.yaml: mimic='{mode}': .*YAML description"):
        bp.load_robot(PLANAR, mimic=mode)
    t = np.arange(40) * 0.01
    rows = np.column_stack([t] + [np.sin((k + 1) * t) for k in range(3)] + [0.1 * k * t for k in range(3)])
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "\n".join(",".join(map(repr, r.tolist())) for r in rows) + "\n")
    for args in (["identify", PLANAR, log], ["find", PLANAR]):
        one_line(CliRunner().invoke(main, [str(a) for a in args] + ["--mimic", mode]), f"--mimic {mode}", "YAML")
    assert bp.load_robot(PLANAR, mimic="refuse").n_dof == 3          # the default: taken as before


# -- 5. one log, one sample: singular ----------------------------------------------------------------------------------
def test_messages_say_one_log_and_one_sample_in_the_singular():
    """'unloaded: 1 logs for 2 loaded ones', 'payload (model, 1 samples)': a count of 1 now takes the singular."""
    from baseparam._checks import counted
    from baseparam.identification.payload import identify_payload
    assert (counted(1, "samples"), counted(0, "samples"), counted(2, "logs")) == ("1 sample", "0 samples", "2 logs")
    robot = bp.load_robot(PLANAR)
    t = np.arange(200) * 0.01
    q = np.column_stack([np.sin((k + 1) * t) for k in range(3)])
    log = bp.Trajectory(t=t, q=q, tau=np.zeros_like(q))
    with pytest.raises(bp.SettingsError, match=r"^unloaded: 1 log for 2 loaded ones \(one per loaded log\)$"):
        identify_payload(robot, [log, log], unloaded=[log])
    with pytest.raises(bp.SettingsError, match=r"^unloaded: 2 logs for 1 loaded one \(one per loaded log\)$"):
        identify_payload(robot, [log], unloaded=[log, log])
    one = dataclasses.replace(_result(2.0, 0.01), n_samples=1)
    assert "payload (model, 1 sample)," in one.summary()
