"""Review of round 24 (rv5): fzcli's and the lead's merged work.

- ab15454a made an inertia physical only to a fit's slack physical for the body written and the vendors' formats
  (``_body_inertia``), but a :class:`PayloadResult` also takes an inertia asymmetric within that slack (1e-9 beside
  5e-6 kg·m²): ``attach`` and ``robot_text`` then ended in 'Inertia.inertia: expected a symmetric matrix', naming
  neither the payload nor its field. The body's inertia is now the half-sum (a symmetric tensor's own, bit for bit).
- 48add425's warning that a URDF written from a description leaves out its friction and rotor inertias said so of a
  Joint built in Python with entries None (not modelled: nothing to leave out), and said nothing of a Stribeck
  friction value (``friction_model: {stribeck: 0.05, stribeck_friction: 2.0}``, its other terms declared without
  values), which the URDF leaves out as well.
- 08080003's JSON ``vendor_inertia`` said 'partly identified' (or 'identified') of a result that has no vendors'
  formats (``vendors`` null: the mass not told from none); it is null there, as ``vendors`` is.
"""
import dataclasses
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.payload import PayloadResult, payload_parameters
from conftest import ROOT

UR = ROOT / "robots" / "ur10e.yaml"


def _result(inertia, mass=0.05, com=(0.01, -0.02, 0.05)):
    inertia, com = np.asarray(inertia, float), np.asarray(com, float)
    p = payload_parameters(mass, com, 0.5 * (inertia + inertia.T))
    return PayloadResult(mass=mass, com=com, inertia=inertia, mass_std=0.0, com_std=np.zeros(3),
                         inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p, covariance=np.zeros((10, 10)),
                         identifiable=[], rank=10, mode="model", n_samples=1, rmse=np.zeros(6))


@pytest.mark.parametrize("fmt", [None, "yaml", "urdf"])
def test_an_inertia_asymmetric_within_the_fits_slack_is_carried_symmetric(fmt):
    inertia = np.diag([4e-6, 5e-6, 3e-6])
    inertia[0, 1] += 1e-9                 # within the slack PayloadResult leaves a fit (2e-8 kg·m² here)
    result = _result(inertia)
    robot = bp.load_robot(UR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.DataWarning)      # the URDF leaves out the description's friction
        if fmt is not None:
            assert result.robot_text(robot, fmt)
            return
        carried = result.attach(robot).joints[-1].inertia
    assert np.array_equal(carried.inertia, carried.inertia.T)


def test_a_symmetric_inertia_is_carried_bit_for_bit():
    rng = np.random.default_rng(5)
    for _ in range(50):
        d = rng.uniform(1e-5, 1e-2, 3)
        R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        inertia = R @ np.diag(d.sum() - d) @ R.T
        inertia = 0.5 * (inertia + inertia.T)
        result = _result(inertia, mass=1.3)
        assert np.array_equal(result._carried(None)[2], inertia)


def _urdf_warnings(robot):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        _result(np.diag([4e-6, 5e-6, 3e-6])).robot_text(robot, "urdf")
    return [str(w.message) for w in said if issubclass(w.category, bp.DataWarning)]


def test_entries_none_are_not_said_to_be_left_out_of_the_urdf():
    robot = bp.load_robot(UR)
    joints = [dataclasses.replace(j, friction=(None, None, None), rotor_inertia=None) for j in robot.joints]
    assert _urdf_warnings(dataclasses.replace(robot, joints=joints)) == []
    assert _urdf_warnings(robot) == []            # declared without values (true): nothing left out either


def test_a_stribeck_friction_value_left_out_of_the_urdf_is_said(tmp_path):
    text = UR.read_text().replace("friction: true, rotor_inertia: true",
                                  "friction: true, rotor_inertia: true, "
                                  "friction_model: {stribeck: 0.05, stribeck_friction: 2.0}")
    (tmp_path / "ur.yaml").write_text(text)
    said = _urdf_warnings(bp.load_robot(tmp_path / "ur.yaml"))
    assert len(said) == 1 and "leaves out its friction" in said[0], said


def test_vendor_inertia_is_null_where_no_vendor_format_is_given():
    """Over the 17 fixed-base robots of robots/, a payload fit of rank below 10 left the centre of mass
    undetermined (vendors null) each time, where vendor_inertia said 'partly identified'. Its values where the formats
    are given: a UR10e fit (the oracle's payload found), its rank 10 and, made by hand, 8."""
    import dataclasses

    from baseparam.identification.payload import identify_payload
    from test_payload import _multisine, _torques
    planar = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    t, q, qd, qdd = _multisine(planar.n_dof)
    noise = np.random.default_rng(1).normal(size=q.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.DataWarning)          # no payload: the mass not told from none
        empty = identify_payload(planar, bp.Trajectory(t=t, q=q, tau=noise)).to_dict()
    assert empty["vendors"] is None and empty["vendor_inertia"] is None
    robot = bp.load_robot(UR)
    robot = dataclasses.replace(robot, joints=[dataclasses.replace(j, friction=(False,) * 3, rotor_inertia=False)
                                               for j in robot.joints])
    t, q, qd, qdd = _multisine(robot.n_dof)
    payload = (1.5, [0.05, 0.02, -0.01], [[0.004, 0.0, 0.0], [0.0, 0.005, 0.0], [0.0, 0.0, 0.003]])
    tau = _torques(robot, payload, q, qd, qdd) + 1e-3 * np.random.default_rng(1).normal(size=q.shape)
    loaded = identify_payload(robot, bp.Trajectory(t=t, q=q, tau=tau))
    assert loaded.mass == pytest.approx(1.5, rel=1e-3)
    assert loaded.to_dict()["vendors"] is not None and loaded.to_dict()["vendor_inertia"] == "identified"
    partly = dataclasses.replace(loaded, rank=8).to_dict()
    assert partly["vendors"] is not None and partly["vendor_inertia"] == "partly identified"
    # the summary says it where the formats are given, and only there (the lead's mend after this review)
    assert "not as measured" in dataclasses.replace(loaded, rank=8).summary()
    assert "not as measured" not in loaded.summary()
