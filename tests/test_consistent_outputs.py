"""What a consistent fit says about its assumptions (issue 24, item 4): the prior in every output, bodies
beyond plausible bounds flagged where they are written, parameters at a bound reported as such.

Cases built so that the answer is known without the code under test: a truth with negative viscous
friction (non-physical: the constrained estimate must sit at its bound 0), a mass bound ten times the
CAD mass (the body must come out at 10× CAD), and hand-made bodies for the bounds themselves.
"""
from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification._bodies import box_sides, implausible
from test_urdf_update import EXPORTED

pytest.importorskip("cvxpy")
pytestmark = pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning",
                                        "ignore::baseparam.errors.DataWarning")


@pytest.fixture
def arm(tmp_path):
    path = tmp_path / "exported_arm.urdf"
    path.write_text(EXPORTED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bp.load_robot(path, tip="tool", friction=True, exact_angles=False)


def data(robot, friction, seed=0, n=150, noise=0.01, scale=(1.0, 1.0, 1.0)):
    """Torques of the robot with this friction and its bodies' masses and inertias scaled, relative noise."""
    rng = np.random.default_rng(seed)
    truth = dataclasses.replace(robot, joints=tuple(
        dataclasses.replace(j, friction=f, inertia=bp.Inertia(j.inertia.mass * a, j.inertia.com, j.inertia.inertia * a,
                                                              as_written=True))
        for j, f, a in zip(robot.joints, friction, scale)))
    q, qd, qdd = (rng.uniform(-2, 2, (n, robot.n_dof)) for _ in range(3))
    tau = bp.inverse_dynamics(truth, bp.standard_parameters(truth), q, qd, qdd)
    return q, qd, qdd, tau + noise * tau.std(axis=0) * rng.normal(size=tau.shape)


def test_a_parameter_at_its_bound_is_reported_as_such(arm):
    train = data(arm, [(-0.3, 0.5, 0.0), (0.2, 0.4, 0.0), (0.1, 0.3, 0.0)])
    result = bp.identify(arm, train, method="consistent", preprocessing=None, prior_weight=0.01)
    e = result.estimator
    layout = bp.ColumnLayout(arm)
    assert abs(e.standard_[layout.friction_columns[(0, "FV")]]) < 1e-8          # pinned at FV ≥ 0
    assert "FV1" in e.at_bound_ and "FV2" not in e.at_bound_
    line = next(line for line in result.summary().splitlines() if " FV1 " in line)
    assert line.split()[4:6] == ["at", "bound"] and "%" not in line and "poorly" not in line
    entry = next(b for b in result.to_dict()["base"] if b["name"] == "FV1")
    assert entry["at_bound"] is True and entry["rel_std_percent"] is None
    ols = bp.identify(arm, train, preprocessing=None)
    assert "at_bound" not in ols.to_dict()["base"][0] and ols.estimator.at_bound_ == []


def test_implausible_bodies_are_flagged_where_written(arm, tmp_path):
    train = data(arm, [(0.3, 0.5, 0.0)] * 3)
    result = bp.identify(arm, train, method="consistent", preprocessing=None, prior="none",
                         mass_bounds={3: (5.0, None)})
    rows = result.bodies()
    assert rows[2]["identified"]["mass"] >= 5.0 - 1e-6 and rows[2]["cad"]["mass"] == pytest.approx(0.5)
    assert any("× CAD" in why for why in rows[2]["implausible"])
    text = result.to_urdf(tmp_path / "out.urdf")
    assert text.count("BEYOND PLAUSIBLE BOUNDS") == sum(bool(r["implausible"]) for r in rows) >= 1
    assert text.count("consistent fit, prior none") == 3
    doc = json.loads(json.dumps(result.to_dict()))
    assert doc["consistent"]["bodies"][2]["implausible"] == rows[2]["implausible"]
    assert doc["consistent"]["prior"] == doc["consistent"]["prior_requested"] == "none"
    yaml_text = result.to_yaml(tmp_path / "out.yaml")
    assert yaml_text.startswith("# identified by baseparam: consistent fit, prior none\n")
    assert bp.load_robot(tmp_path / "out.yaml").joints[2].inertia.mass == pytest.approx(rows[2]["identified"]["mass"])
    summary = result.summary()
    assert "prior none" in summary and "beyond plausible bounds" in summary and "(prior='cad')" in summary
    assert "--" not in summary            # the library's text names parameters; the CLI shows flags (below)


def test_the_bounds_themselves():
    cad = {"mass": 0.99, "com": [0.1, 0, 0], "principal_moments": [0.001, 0.004, 0.004]}
    assert implausible(dict(cad), cad, 1.0) == []
    heavy = dict(cad, mass=96.6, principal_moments=[0.1, 0.4, 0.4])
    assert any("98× CAD" in why for why in implausible(heavy, cad, 1.0))
    plate = dict(cad, principal_moments=[0.002, 0.001, 0.001])      # I1 = I2 + I3: no thickness
    assert any("infinite" in why for why in implausible(plate, cad, 1.0))
    far = dict(cad, com=[3.0, 0, 0])
    assert any("beyond the robot's size" in why for why in implausible(far, cad, 1.0))
    # the box: a 0.2 × 0.1 × 0.05 m box of 1 kg has these principal moments
    a, b, c = 0.2, 0.1, 0.05
    moments = [(b * b + c * c) / 12, (a * a + c * c) / 12, (a * a + b * b) / 12]
    np.testing.assert_allclose(box_sides(1.0, moments), [a, b, c], rtol=1e-12)


def test_the_hold_out_curve_shows_only_weights_scored(arm):
    """Bodies 1.6×, 0.6×, 1.5× the CAD ones and little noise: strong pulls towards CAD move base parameters by
    more than 3σ and are not scored; the curve lists the others (it used to print them as 1→nan)."""
    train = data(arm, [(0.3, 0.5, 0.0)] * 3, n=300, noise=1e-3, scale=(1.6, 0.6, 1.5))
    result = bp.identify(arm, train, method="consistent", preprocessing=None, prior="cad")
    choice = result.estimator.consistent_.prior_choice
    text = result.prior_text()
    scored = np.isfinite(choice.cv_error_percent)
    assert 1 <= scored.sum() < len(scored)
    assert "nan" not in result.summary() and text.startswith("prior cad, weight")
    assert text.count("→") == scored.sum() and "not scored" in text


def test_the_command_line_shows_the_hint_s_parameters_as_flags(arm, tmp_path):
    """The body table's hint names the library's parameters; ``identify`` prints them as its flags (FLAGS)."""
    from click.testing import CliRunner

    from baseparam.cli import main
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(EXPORTED)
    q, qd, qdd, tau = data(arm, [(0.3, 0.5, 0.0)] * 3)
    log = tmp_path / "log.npz"
    bp.write_trajectory(bp.Trajectory(t=np.arange(len(q)) * 0.01, q=q, qd=qd, qdd=qdd, tau=tau), log)
    res = CliRunner().invoke(main, ["identify", str(urdf), str(log), "--tip", "tool", "--friction", "--exact-angles",
                                    "off", "--method", "consistent", "--prior", "none", "--mass-bounds", "3:5:",
                                    "--cutoff", "none", "--resample", "none"])
    assert res.exit_code == 0, res.output
    assert "pull towards the CAD bodies (--prior cad), or bound the masses (--mass-bounds, --total-mass)" in res.output
