"""Issue 24: the plots' axes say what they show — identify's x in seconds (the kept samples' times),
excite's panels with units on every axis (rad, rad/s, rad/s², N·m; m for prismatic joints)."""
import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.plots import time_axis
from conftest import ROOT

pytest.importorskip("matplotlib")


def test_time_axis_lays_files_end_to_end_and_breaks_at_gaps():
    t = np.array([0.0, 0.1, 0.2, 0.9, 1.0, 0.0, 0.1])     # a left-out rest phase, then a second file
    x, index = time_axis(t)
    assert list(index) == [0, 1, 2, -1, 3, 4, -1, 5, 6]
    np.testing.assert_allclose(x[index >= 0], [0.0, 0.1, 0.2, 0.9, 1.0, 1.1, 1.2])
    assert np.isnan(x[index < 0]).all()


def test_identify_figure_is_in_seconds_with_units():
    robot = bp.load_robot(ROOT / "robots" / "ppr.yaml")   # two prismatic joints: N, and N·m for the third
    rng = np.random.default_rng(3)
    base = bp.find_base_parameters(robot)
    t = np.arange(800) * 0.01
    q = np.stack([0.2 * np.sin(0.9 * t + k) + 0.1 * np.sin(2.3 * t) for k in range(robot.n_dof)], axis=1)
    qd = np.gradient(q, t, axis=0)
    qdd = np.gradient(qd, t, axis=0)
    p = rng.uniform(0.1, 1.0, len(base.standard_names))
    tau = bp.inverse_dynamics(bp.Model(robot, p), q, qd, qdd)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = bp.identify(robot, bp.from_arrays(t=t, q=q, qd=qd, qdd=qdd, tau=tau), preprocessing=None)
    from baseparam.identification.plots import identification_figure
    fig = identification_figure(result)
    torque_axes = fig.axes[:robot.n_dof]
    assert torque_axes[-1].get_xlabel().startswith("t [s]")
    line = torque_axes[0].get_lines()[0]
    shown = ~np.isnan(line.get_xdata())
    np.testing.assert_allclose(np.asarray(line.get_xdata())[shown], result.train.t)   # one file: its own times
    units = [ax.get_ylabel() for ax in torque_axes]
    assert units == [f"τ{j + 1} [{'N·m' if joint.is_revolute else 'N'}]" for j, joint in enumerate(robot.joints)]
    assert "[N]" in " ".join(units) and "[N·m]" in " ".join(units)


def test_excite_figure_has_units_on_every_axis():
    robot = bp.load_robot(ROOT / "robots" / "ppr.yaml")
    limits = {"joints": [{"q": [-0.3, 0.3], "qd": 0.5}, {"q": [-0.3, 0.3], "qd": 0.5}, {"q": [-2, 2], "qd": 1.5}]}
    design = bp.design_excitation(robot, period=2.0, harmonics=2, rate=20.0, limits=limits, starts=1)
    fig = design.plot()
    rows = np.array(fig.axes).reshape(robot.n_dof, -1)
    for j, joint in enumerate(robot.joints):
        expected = ("rad", "rad/s", "rad/s²") if joint.is_revolute else ("m", "m/s", "m/s²")
        for ax, unit in zip(rows[j], expected):
            assert ax.get_ylabel().endswith(f"[{unit}]"), ax.get_ylabel()
    assert all(ax.get_xlabel() == "t [s]" for ax in rows[-1])
