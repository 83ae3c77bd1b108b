"""Fuzz round 25 (issue 28), the lead's own mends of fzcli2's leftovers.

- YAML, JSON or CSV written under an ``.xml`` name was accepted (``describe --yaml o.xml``, ``find --json o.xml``,
  exit 0), though ``--mjcf o.yaml`` is refused: ``.xml`` says XML, which a URDF or a MuJoCo model is.
- ``identify --decimate 100`` on a short log was refused as needing "less rest trimming": decimation, which keeps one
  sample in 100, was not named among the causes.
"""
import pytest
from click.testing import CliRunner

from conftest import ROOT

PUMA = str(ROOT / "robots" / "puma560.yaml")
PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")


@pytest.mark.parametrize("args, flag", [(["describe", PUMA, "--yaml"], "--yaml"),
                                        (["find", PUMA, "--json"], "--json")])
def test_text_under_an_xml_name_is_refused(tmp_path, args, flag):
    from baseparam.cli import main
    out = tmp_path / "o.xml"
    result = CliRunner().invoke(main, [*args, str(out)])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and line.startswith(f"baseparam: {flag}:") and "'.xml' name says XML" in line, line
    assert not out.exists()


@pytest.mark.parametrize("writes", ["URDF", "MJCF"])
def test_a_robot_description_may_be_named_xml(writes):
    from baseparam._checks import check_written_format
    check_written_format("robot.xml", writes, ".xml")
    check_written_format("robot.XML", writes, ".xml")


def test_the_library_refuses_json_under_an_xml_name(tmp_path):
    from baseparam._checks import check_written_format
    from baseparam.errors import ArgumentError
    with pytest.raises(ArgumentError, match=r"writes JSON, and a '\.xml' name says XML"):
        check_written_format(tmp_path / "o.xml", "JSON", ".json")


def _log(tmp_path, n=400):
    import numpy as np
    t = np.arange(n) * 0.01
    q = np.column_stack([np.sin(t * (k + 1)) for k in range(3)])
    rows = "".join(",".join(f"{v:.6f}" for v in (t[i], *q[i], 1 + q[i, 0], 2 - q[i, 1], 0.5 + q[i, 2])) + "\n"
                   for i in range(n))
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + rows)
    return str(log)


def test_too_few_samples_after_decimation_names_the_decimation(tmp_path):
    from baseparam.cli import main
    log = _log(tmp_path)
    result = CliRunner().invoke(main, ["identify", PLANAR, log, "--decimate", "100"])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "a decimate factor below 100" in line, line
    plain = CliRunner().invoke(main, ["identify", PLANAR, log])
    assert "decimate" not in plain.output, plain.output


# -- payload: the model's friction predicted as the measured τ was low-passed -----------------------------------------

def _payload_log(robot, payload, seconds=10.0, dt=0.005, shift=0.0):
    """Noise-free torques of ``robot`` with ``payload`` ((mass, com, inertia) or None) along two sines per joint,
    sampled from ``shift`` s on."""
    import numpy as np

    import baseparam as bp
    from baseparam.dynamics.regressors import _evaluate as evaluate
    from baseparam.model.attach import with_payload
    from baseparam.model.parameters import described_parameters
    t = np.arange(0.0, seconds, dt) + shift
    k = np.arange(1, robot.n_dof + 1)
    a, b = np.outer(t, 0.7 * k) + k, np.outer(t, 1.9 + 0.3 * k)
    q = 0.4 * np.sin(a) + 0.3 * np.sin(b)
    qd = 0.28 * k * np.cos(a) + 0.3 * (1.9 + 0.3 * k) * np.cos(b)
    qdd = -0.196 * k ** 2 * np.sin(a) - 0.3 * (1.9 + 0.3 * k) ** 2 * np.sin(b)
    body = robot if payload is None else with_payload(robot, *payload)
    tau = evaluate(body, q, qd, qdd, parameters="pseudo", weights=described_parameters(body, "pseudo"))
    return bp.Trajectory(t=t - shift, q=q, tau=tau)


@pytest.mark.parametrize("as_model", [False, True])
def test_a_payload_fit_predicts_the_models_coulomb_friction_low_passed_as_tau(as_model):
    """The UR10e CAD model declares 12 N·m of Coulomb friction, sign(q̇): its prediction was subtracted unfiltered
    from a low-passed τ, and the Coulomb steps the filter had smoothed were fitted as the payload's — noise-free, the
    inertia came out 8.9 % of its largest principal moment off (0.2 % on the LWR4+ CAD model). Now the prediction takes
    the friction shapes low-passed as τ was, as identify's prediction does."""
    import numpy as np

    import baseparam as bp
    from baseparam.identification.payload import identify_payload
    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    payload = (2.0, np.array([0.03, -0.02, 0.06]), np.array([[0.012, 0.002, 0.0], [0.002, 0.010, 0.001],
                                                             [0.0, 0.001, 0.006]]))
    log = _payload_log(robot, payload)
    result = identify_payload(bp.Model(robot) if as_model else robot, log)      # the default preprocessing: filtered
    largest = np.linalg.eigvalsh(payload[2]).max()
    assert abs(result.mass - payload[0]) / payload[0] < 1e-4, result.mass
    assert np.abs(result.com - payload[1]).max() < 1e-5, result.com
    assert np.abs(result.inertia - payload[2]).max() / largest < 5e-3, result.inertia


def test_the_unloaded_logs_friction_is_predicted_at_its_matched_times():
    """With the same motion unloaded, sampled half a step later: the model's correction for the states' difference
    takes the unloaded log's filtered friction shapes at the loaded samples' matched times."""
    import numpy as np

    import baseparam as bp
    from baseparam.identification.payload import identify_payload
    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    payload = (1.5, np.array([0.0, 0.04, 0.05]), np.diag([0.006, 0.008, 0.004]))
    loaded, unloaded = _payload_log(robot, payload), _payload_log(robot, None, shift=0.0025)
    result = identify_payload(robot, loaded, unloaded=unloaded)
    assert abs(result.mass - payload[0]) / payload[0] < 2e-3, result.mass
    assert np.abs(result.com - payload[1]).max() < 5e-4, result.com
    assert np.abs(result.inertia - payload[2]).max() / payload[2].max() < 0.05, result.inertia


# -- Equations built by hand: the mappings its texts unpack ----------------------------------------------------------

@pytest.mark.parametrize("field, value", [("abbreviations", {"s1": 1}), ("abbreviations", "symbol"),
                                          ("abbreviations", {"s1": (1, 2)}), ("lengths", {"a2": 1.0}),
                                          ("lengths", "symbol"), ("lengths", {"a2": float("nan")})])
def test_equations_refuse_mappings_their_texts_cannot_unpack(field, value):
    """lres2's last findings: abbreviations whose values are not (definition, code, LaTeX) raised a bare ValueError
    from the LaTeX names, lengths keyed by text an AttributeError; now refused when the result is built."""
    import dataclasses

    import sympy

    import baseparam as bp
    from baseparam.codegen.equations import equations
    from baseparam.errors import ArgumentError
    result = equations(bp.load_robot(PLANAR), symbolic="all")
    assert result.lengths and result.abbreviations           # the fields as the library builds them pass
    if isinstance(value, dict):
        value = {sympy.Symbol(k) if field == "abbreviations" else k: v for k, v in value.items()}
    with pytest.raises(ArgumentError, match=rf"^Equations\.{field}"):
        dataclasses.replace(result, **{field: value})


# -- predict: rates differenced on steps below a microsecond ---------------------------------------------------------

@pytest.mark.parametrize("scale", [1e-200, 1e-12])
def test_predict_refuses_time_steps_no_robot_log_has(scale):
    """lres2's leftover: predict on a log whose time steps are 1e-202 s differenced q into inf rates and returned
    torques all NaN without a word (1e-14 s steps: an absurd-rate refusal that did not name the time); the fit's own
    bound on the median step (1 µs) now refuses both, naming field t."""
    import numpy as np

    import baseparam as bp
    from baseparam.errors import DataError
    t = np.arange(400) * 0.01
    q = np.column_stack([np.sin(t * (k + 1)) for k in range(3)])
    tau = np.column_stack([np.cos(t * (k + 1)) for k in range(3)])
    robot = bp.load_robot(PLANAR)
    with pytest.warns(bp.DataWarning):
        estimator = bp.BaseParameterEstimator(robot).fit(bp.Trajectory(t=t, q=q, tau=tau))
    assert np.isfinite(estimator.predict(bp.Trajectory(t=t, q=q, tau=tau))).all()
    with pytest.raises(DataError, match=r"field t: median time step .* is implausible for a robot log \(< 1e-06 s"):
        estimator.predict(bp.Trajectory(t=t * scale, q=q, tau=tau))
