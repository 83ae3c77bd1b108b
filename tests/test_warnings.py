"""Issue 24: warnings that help — at the user's line, once, saying what to do; "poorly identified" judged
by what a parameter's uncertainty changes in the predicted torque."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam._warnings import warn
from conftest import ROOT

ROUNDED = """<robot name="arm">
  <link name="base"/><link name="l1"/><link name="l2"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0.1 0.3" rpy="0 1.570796330 0"/><axis xyz="0 0 1"/></joint>
</robot>
"""


def test_a_library_warning_points_at_the_users_line(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(ROUNDED)
    with pytest.warns(bp.RoundOffWarning) as record:
        bp.load_robot(path)                       # several package frames deep (load_robot → parse_urdf → …)
    assert len(record) == 1 and record[0].filename == __file__
    assert "rpy pitch = 1.57079633" in str(record[0].message)          # named, not counted from 0 or 1
    assert "nothing to do" in str(record[0].message)


def test_a_warning_shows_once_per_line_of_the_users_code(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(ROUNDED)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("default")          # Python's own default action
        for _ in range(3):
            bp.load_robot(path)
    assert len(record) == 1 and record[0].filename == __file__


def test_warn_called_from_outside_the_package_points_at_its_caller():
    with pytest.warns(UserWarning, match="hello") as record:
        warn("hello")
    assert record[0].filename == __file__


def test_the_command_line_shows_a_warning_once_per_run():
    from baseparam.cli import _warning_line
    import click.testing
    runner = click.testing.CliRunner()

    @click.command()
    def twice():
        shown = set()
        for _ in range(2):
            _warning_line(bp.RoundOffWarning("note"), bp.RoundOffWarning, "f", 1, shown=shown)
    res = runner.invoke(twice)
    assert res.stderr.splitlines() == ["baseparam: warning: note"]


def test_every_warning_in_the_package_goes_through_the_helper():
    """One way to warn (baseparam/_warnings.py): a direct warnings.warn would point at a library line."""
    offenders = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "baseparam").rglob("*.py"))
                 if path.name != "_warnings.py"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "warnings.warn(" in line]
    assert not offenders, offenders


# -- "poorly identified": what one σ of a parameter moves in the predicted torque --------------------------------------
def _experiment(amplitude, harmonics, noise=0.01, n_samples=3000, seed=0):
    """The LWR4+ with its CAD bodies and friction (the truth), sums of sines per joint scaled by `amplitude`
    about a random posture, torques by inverse dynamics plus `noise` × each joint's RMS torque."""
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4_cad.yaml")
    p = bp.standard_parameters(robot)
    rng = np.random.default_rng(seed)
    t = np.arange(n_samples) * 0.01
    w = 2 * np.pi * 0.1 * np.arange(1, harmonics + 1)
    a = amplitude * rng.uniform(0.3, 0.8, (robot.n_dof, harmonics)) / w * rng.choice([-1, 1], (robot.n_dof, harmonics))
    arg = w[None, :, None] * t[None, None, :] + rng.uniform(0, 2 * np.pi, (robot.n_dof, harmonics))[:, :, None]
    q = (a[:, :, None] * np.sin(arg)).sum(axis=1).T + rng.uniform(-1, 1, robot.n_dof)
    qd = (a[:, :, None] * w[None, :, None] * np.cos(arg)).sum(axis=1).T
    qdd = -(a[:, :, None] * w[None, :, None] ** 2 * np.sin(arg)).sum(axis=1).T
    tau = bp.inverse_dynamics(bp.Model(robot, p), q, qd, qdd)
    tau = tau + rng.normal(0.0, noise * np.sqrt((tau ** 2).mean(axis=0)), tau.shape)
    base = bp.find_base_parameters(robot)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        est = bp.BaseParameterEstimator(robot, preprocessing=None, base=base).fit(
            bp.from_arrays(t=t, q=q, qd=qd, qdd=qdd, tau=tau))
    truth = base.from_standard(p)
    error = np.linalg.norm(est.coef_ - truth) / np.linalg.norm(truth)
    texts = [str(w.message) for w in record if issubclass(w.category, bp.ExcitationWarning)]
    return est, truth, error, texts, base.regressor(q, qd, qdd), tau


def test_torque_share_is_what_one_sigma_moves_in_the_prediction():
    """torque_std_percent_ recomputed from the regressor: 100 σ_i ‖w_i‖ / ‖τ‖ over the fitted samples."""
    est, _, _, _, W, tau = _experiment(1.0, 4, n_samples=600)
    expected = 100 * est.std_ * np.sqrt((W ** 2).sum(axis=(0, 1))) / np.linalg.norm(tau)
    np.testing.assert_allclose(est.torque_std_percent_, expected, rtol=1e-9)


def test_a_good_fit_raises_no_alarm_and_a_badly_excited_one_does():
    est, truth, error, texts, W, tau = _experiment(1.0, 4)
    assert error < 0.015                                      # 0.7 % from the truth: a good fit
    assert (est.rel_std_percent_ > 10).sum() > 20             # Gautier's 10 % would flag most (41 of 64)
    assert est.poorly_identified_() == [] and not any("poorly identified" in t for t in texts), texts
    # the share bounds what the parameter errors actually do to the torque
    moved = np.abs(est.coef_ - truth) * np.sqrt((W ** 2).sum(axis=(0, 1))) / np.linalg.norm(tau) * 100
    assert moved.max() < 1.0

    est, truth, error, texts, W, tau = _experiment(0.2, 2)    # a timid motion: two harmonics, a fifth the amplitude
    assert error > 0.3
    poor = est.poorly_identified_()
    assert poor and any(f"{len(poor)} of 64 base parameters poorly identified" in t for t in texts), texts
    assert any("record a motion that excites them" in t for t in texts)
    moved = np.abs(est.coef_ - truth) * np.sqrt((W ** 2).sum(axis=(0, 1))) / np.linalg.norm(tau) * 100
    assert moved.max() > 1.0                                  # and some estimates are off by that much


@pytest.mark.parametrize("how", ["-c", "-m"])
def test_a_warning_from_python_c_or_python_m_is_shown_not_raised(tmp_path, how):
    """`python -c`, `python - < script` and `python -m module` run code whose __main__ loader cannot give its
    source by that name: a warning at the user's line must still be a warning, not an ImportError."""
    import subprocess
    import sys
    (tmp_path / "arm.urdf").write_text(ROUNDED)
    code = "import baseparam as bp\nbp.load_robot('arm.urdf')\nprint('loaded')\n"
    (tmp_path / "user_script.py").write_text(code)
    args = ["-c", code] if how == "-c" else ["-m", "user_script"]
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, *args], cwd=tmp_path, capture_output=True, text=True, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "loaded\n" and "RoundOffWarning" in res.stderr
