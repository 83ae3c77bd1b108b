"""Round twenty-six's payload leftovers (lpay2, issue 25): a friction prior in written descriptions, the twins of the
payload fit's friction shapes, the unloaded log's time alignment."""
import dataclasses
import re
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT
from test_fuzz_round25_lpay import PAYLOAD
from test_fuzz_round25_lpay import _placed_result as _result_on

UR, LWR = ROOT / "robots" / "ur10e.yaml", ROOT / "robots" / "kuka_lwr4.yaml"


# --- 3. a friction prior of friction declared without values is no value -------------------------------------------

def _with_prior(robot, friction):
    """``robot`` (its YAML text dropped) with ``friction`` declared on every joint and a friction_prior (0.5, 2)."""
    joints = tuple(dataclasses.replace(j, friction=friction, friction_prior=(0.5, 2.0)) for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


def test_a_prior_of_friction_to_identify_is_not_written_as_a_urdf_value(tmp_path):
    """``robots/ur10e.yaml`` declares its friction without values (to be identified); with a friction_prior, the URDF
    robot_text wrote the prior as each joint's <dynamics damping friction>, which a URDF reader takes as the true
    friction (simulated, subtracted by ``payload``): a prior became a value. Now those joints get no <dynamics> (said
    by a DataWarning), and MJCF's damping and frictionloss are 0 (unknown) there, as without a prior."""
    robot = _with_prior(bp.load_robot(UR), True)
    result = _result_on(robot)
    with pytest.warns(bp.DataWarning, match=r"leaves out the friction priors of the friction terms it declares "
                                            r"\(with a value, or without one to be identified; a URDF's <dynamics> "
                                            r"is a value, not a prior\)"):
        urdf = result.robot_text(robot, "urdf")
    assert "<dynamics" not in urdf
    (tmp_path / "r.urdf").write_text(urdf)
    assert [j.friction_prior for j in bp.load_robot(tmp_path / "r.urdf").joints] == [None] * robot.n_dof
    mjcf = result.robot_text(robot, "mjcf")
    assert set(re.findall(r'(?:damping|frictionloss)="([^"]*)"', mjcf)) == {"0.0"}
    assert result.robot_text(robot, "yaml").count("friction_prior") == robot.n_dof       # the YAML keeps the prior


def test_a_prior_of_an_undeclared_term_stays_its_value():
    """Per term: a joint declaring viscous friction without a value and no Coulomb friction writes the prior's
    Coulomb value (a value once declared) and 0 for the viscous term, in the URDF and in MJCF."""
    robot = _with_prior(bp.load_robot(UR), (True, False, False))
    result = _result_on(robot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.DataWarning)        # the viscous prior left out: said
        urdf = result.robot_text(robot, "urdf")
    assert urdf.count('<dynamics damping="0.0" friction="2.0"/>') == robot.n_dof
    assert re.findall(r'damping="([^"]*)" frictionloss="([^"]*)"', result.robot_text(robot, "mjcf")) == [
        ("0.0", "2.0")] * robot.n_dof


# --- 2. an unloaded log that starts later: its ends matched in the middle of the motion ----------------------------

def _noise_free_log(robot, payload, shift=0.0):
    """Ten seconds of noise-free torques (two sines per joint) of ``robot`` with ``payload``, from ``shift`` s on."""
    from test_fuzz_round25_lead import _payload_log

    return _payload_log(robot, payload, shift=shift)


def _inertia_error(result, payload=PAYLOAD):
    return float(np.abs(result.inertia - payload[2]).max() / np.linalg.eigvalsh(payload[2]).max())


@pytest.mark.parametrize("preprocessing, before", [(bp.Preprocessing(), 0.0038), (None, 0.031)])
def test_an_unloaded_log_starting_later_lends_no_end_sample(preprocessing, before):
    """Noise-free LWR4+, the unloaded log 0.37 s later into the motion than the loaded one: the unloaded log's ends,
    whose rates are wrong (the filter's transients; unfiltered, the one-sided differences of the stencil's last
    samples: q̈ 4 rad/s² off), were matched with loaded samples 0.37 s into the motion, which the loaded log keeps:
    the inertia came out 0.38 % of its largest moment off filtered, 3.1 % unfiltered (0.02 % and 0.09 % at zero
    shift). Samples left out of the unloaded log now partner none, and the stencil's end samples are left out."""
    robot = bp.load_robot(LWR)
    loaded, unloaded = _noise_free_log(robot, PAYLOAD), _noise_free_log(robot, None, shift=0.37)
    result = bp.identify_payload(robot, loaded, unloaded=unloaded, preprocessing=preprocessing)
    assert _inertia_error(result) < 5e-4 < before, _inertia_error(result)
    assert abs(result.mass - PAYLOAD[0]) < 1e-5 * PAYLOAD[0], result.mass


def test_matched_partners_no_loaded_sample_between_left_out_unloaded_ones():
    """Every loaded sample _matched keeps lies, once lined up, beside at least one sample the unloaded log keeps."""
    from baseparam.identification.payload import _matched
    from baseparam.identification.preprocessing import preprocess

    robot = bp.load_robot(LWR)
    logs = [preprocess(_noise_free_log(robot, p, shift=s), bp.Preprocessing(), rates="fourth-order")
            for p, s in ((PAYLOAD, 0.0), (None, 0.37))]
    inside = _matched(*logs)[-1]
    t, tu = logs[0].t, logs[1].t
    te = t[inside] - 0.37
    below = np.clip(np.searchsorted(tu, te, side="right") - 1, 0, len(tu) - 1)
    near = logs[1].kept[below] | logs[1].kept[np.minimum(below + 1, len(tu) - 1)]
    assert near.all() and inside.sum() < len(t) - 74      # the 74 samples before the unloaded log's start, and more


@pytest.mark.parametrize("logged, ends", [((), 4), (("qd",), 2), (("qd", "qdd"), 0)])
def test_unfiltered_fourth_order_rates_leave_out_the_samples_the_stencil_does_not_reach(logged, ends):
    """Unfiltered, the fourth-order stencil keeps central differences (the first sample's one-sided) at the two
    samples of each end, per derivation: those samples are no longer kept; identify's central rates are unchanged."""
    from baseparam.identification.preprocessing import preprocess
    from test_fuzz_round25_lead import _payload_log

    log = _payload_log(bp.load_robot(LWR), None, seconds=1.0)
    t = log.t
    fields = {"qd": np.gradient(log.q, t, axis=0), "qdd": np.zeros_like(log.q)}
    log = bp.Trajectory(t=t, q=log.q, tau=log.tau, **{k: fields[k] for k in logged})
    stencil = preprocess(log, bp.Preprocessing.none(), rates="fourth-order").kept
    assert not stencil[:ends].any() and not stencil[len(t) - ends:].any() and stencil[ends:len(t) - ends].all()
    assert preprocess(log, bp.Preprocessing.none()).kept.all()


# --- 4. one reading of the friction shapes for the payload fit and the simulation ----------------------------------

def test_one_reading_of_the_shaped_friction_serves_the_payload_and_the_simulation():
    """``shaped_friction_terms`` lists the Coulomb and Stribeck values with their shapes: the payload's prediction
    takes any (a smooth one too, whose low-pass changes it), the implicit methods'
    refusal those of shape sign (the first term of each joint)."""
    from baseparam.identification.payload import _shaped_friction
    from baseparam.model.friction import FrictionModel
    from baseparam.model.parameters import shaped_friction_terms
    from baseparam.simulation.integrate import sign_friction_joints

    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    p = bp.Model(robot).p
    terms = shaped_friction_terms(robot, p, "pseudo")
    assert [(k, kind) for k, kind, _ in terms] == [(k, "FC") for k in range(robot.n_dof)]
    assert sign_friction_joints(bp.Model(robot)) == [(k, "Coulomb") for k in range(1, robot.n_dof + 1)]
    assert _shaped_friction(robot, p, "pseudo") is not None
    smooth = dataclasses.replace(robot, source=None, joints=tuple(
        dataclasses.replace(j, friction_model=FrictionModel("smooth", velocity=0.05)) for j in robot.joints))
    assert sign_friction_joints(bp.Model(smooth)) == []
    assert _shaped_friction(smooth, bp.Model(smooth).p, "pseudo") is not None
    none = np.array(p, dtype=float)
    none[[c for (_, kind), c in bp.model.parameters.ColumnLayout(robot).friction_columns.items() if kind == "FC"]] = 0
    assert shaped_friction_terms(robot, none, "pseudo") == [] and _shaped_friction(robot, none, "pseudo") is None


def test_the_stencil_ends_take_no_segment_away():
    """A segment of the shortest length taken (16 samples) is still taken with the stencil's ends left out: its 8
    middle samples kept (the length check is the filter's, before the ends are marked)."""
    from baseparam.identification.preprocessing import MIN_SEGMENT, preprocess

    t = np.arange(MIN_SEGMENT) * 0.01
    q = np.sin(np.outer(t, [1.0, 2.0]))
    processed = preprocess(bp.Trajectory(t=t, q=q, tau=q), bp.Preprocessing.none(), rates="fourth-order")
    assert processed.kept.sum() == MIN_SEGMENT - 8
