"""Round twenty-five's review of the payload leftovers (rv8: s25-lpay and the lead's 54d484e5): the model's friction
predicted with the shapes low-passed as τ was, in difference mode too."""
import numpy as np

import baseparam as bp
from baseparam.identification import payload as payload_module
from baseparam.identification.payload import identify_payload
from conftest import ROOT
from test_fuzz_round25_lead import _payload_log

CAD = ROOT / "robots" / "ur10e_cad.yaml"
PAYLOAD = (1.5, np.array([0.0, 0.04, 0.05]), np.diag([0.006, 0.008, 0.004]))


def _log(robot, payload, shift=0.0):
    """Four seconds of the lead's noise-free log (two sines per joint), from ``shift`` s on."""
    return _payload_log(robot, payload, seconds=4.0, shift=shift)


def test_the_logs_are_lined_up_once_with_the_unloaded_friction_shapes(monkeypatch):
    """The unloaded log's filtered friction shapes were matched by a second :func:`_matched`, which searched the
    logs' shift again (383 mismatch evaluations over the whole log, per log pair); now they are matched with its
    states, by the one search, to the same numbers."""
    robot = bp.load_robot(CAD)
    loaded, unloaded = _log(robot, PAYLOAD), _log(robot, None, shift=0.0025)
    calls = []
    shift = payload_module._shift
    monkeypatch.setattr(payload_module, "_shift", lambda *args: calls.append(1) or shift(*args))
    result = identify_payload(robot, loaded, unloaded=unloaded)
    assert len(calls) == 1, len(calls)
    assert abs(result.mass - PAYLOAD[0]) / PAYLOAD[0] < 2e-3, result.mass


def test_an_unfiltered_unloaded_logs_coulomb_steps_are_matched_as_its_torque():
    """Without preprocessing, the unloaded τ taken at the loaded samples' times (sampled half a step apart) is a linear
    interpolation, which makes a ramp of each Coulomb step; the model's correction evaluated sign(q̇) of the matched
    q̇, a step, and the difference was fitted as the payload's: noise-free, the UR10e CAD model's 12 N·m Coulomb put
    the inertia 2.6 % of its largest moment off (10 s; 45 % of PAYLOAD's in these 4 s), the mass 0.1 %. The unloaded
    log's friction shapes are now interpolated with its torque, filtered or not (0.8 %, the states' interpolation)."""
    robot = bp.load_robot(CAD)
    loaded, unloaded = _log(robot, PAYLOAD), _log(robot, None, shift=0.0025)
    for model in (robot, bp.Model(robot)):
        result = identify_payload(model, loaded, unloaded=unloaded, preprocessing=None)
        assert abs(result.mass - PAYLOAD[0]) / PAYLOAD[0] < 1e-3, result.mass
        assert np.abs(result.com - PAYLOAD[1]).max() < 1e-4, result.com
        assert np.abs(result.inertia - PAYLOAD[2]).max() / PAYLOAD[2].max() < 0.05, result.inertia


def _with_friction(robot, friction):
    """``robot`` with ``friction`` ((viscous, Coulomb, offset): values, or False for a term not modelled) on every
    joint."""
    import dataclasses

    return dataclasses.replace(robot, source=None, joints=tuple(dataclasses.replace(j, friction=friction)
                                                                for j in robot.joints))


def test_a_model_without_coulomb_values_keeps_its_own_prediction():
    """A Model whose Coulomb columns are 0 (viscous friction alone) has no friction shape for τ's low-pass to change,
    but it was predicted by the regressor with the filtered shapes instead of its own inverse dynamics: its payload
    moved in the last digits (6e-16 of the inertia; 1e-10 on a SCARA) against the same model without Coulomb
    columns. Both now give the same payload, to the bit."""
    robot = bp.load_robot(CAD)
    loaded = _log(robot, PAYLOAD)
    zero, none = _with_friction(robot, (0.3, 0.0, 0.0)), _with_friction(robot, (0.3, False, False))
    for unloaded in (None, _log(robot, None, shift=0.0025)):
        a, b = (identify_payload(bp.Model(r), loaded, unloaded=unloaded) for r in (zero, none))
        for field in ("mass", "com", "inertia", "inertia_std"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), field
