"""Round twenty-six's review of s26-lpay2 (rv12): payload leftovers of issue 25 — the friction prior of a term not
declared in a written MJCF, and what the unloaded log's left-out samples partner."""
import dataclasses
import re
import warnings

import baseparam as bp
from conftest import ROOT
from test_fuzz_round25_lpay import _placed_result as _result_on

UR = ROOT / "robots" / "ur10e.yaml"


def _with_prior(friction, prior=(0.1, 2.0)):
    """``robots/ur10e.yaml`` (its YAML text dropped) with ``friction`` declared on every joint and ``prior``."""
    robot = bp.load_robot(UR)
    joints = tuple(dataclasses.replace(j, friction=friction, friction_prior=prior) for j in robot.joints)
    return dataclasses.replace(robot, joints=joints, source=None)


def _mjcf_friction(robot):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.DataWarning)
        text = _result_on(robot).robot_text(robot, "mjcf")
    return set(re.findall(r'damping="([^"]*)" frictionloss="([^"]*)"', text))


def _urdf_dynamics(robot):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bp.DataWarning)
        text = _result_on(robot).robot_text(robot, "urdf")
    return set(re.findall(r'<dynamics damping="([^"]*)" friction="([^"]*)"/>', text))


def test_mjcf_takes_the_prior_of_a_term_not_declared_beside_a_declared_value():
    """A prior is the value of a term the joint does not declare (96560ae6), per term: the URDF wrote the Coulomb prior
    of a joint declaring only a viscous value (0.5), MJCF wrote 0 for it — it took the prior only where both terms
    gave no value, so one file simulated 2 N·m of Coulomb friction and the other none. Now MJCF takes each term's
    value where the joint declares it and the prior's where it does not."""
    assert _mjcf_friction(_with_prior((0.5, False, False))) == {("0.5", "2.0")}
    assert _urdf_dynamics(_with_prior((0.5, False, False))) == {("0.0", "2.0")}
    assert _mjcf_friction(_with_prior((False, 1.5, False))) == {("0.1", "1.5")}


def test_mjcf_friction_of_the_other_declarations_is_as_before():
    """The cases the change leaves as they were: no prior, both terms declared, both undeclared, one declared
    without a value."""
    cases = [((0.5, False, False), None, ("0.5", "0.0")), ((True, 1.5, False), (0.1, 2.0), ("0.0", "1.5")),
             ((False, False, False), (0.1, 2.0), ("0.1", "2.0")), ((True, False, False), (0.1, 2.0), ("0.0", "2.0")),
             ((0.5, True, False), (0.1, 2.0), ("0.5", "0.0")), ((True, True, True), (0.1, 2.0), ("0.0", "0.0")),
             ((0.0, False, False), (0.1, 2.0), ("0.0", "2.0"))]         # a list: 0.0 and False are one dict key
    for friction, prior, expected in cases:
        assert _mjcf_friction(_with_prior(friction, prior)) == {expected}, (friction, prior)


def test_the_urdf_warning_says_a_declared_value_sets_the_prior_aside():
    """A joint declaring a viscous value beside its prior: the URDF's warning said the prior left out was one "of the
    friction it declares without values", which it declares with one. Now it names the terms the joint declares,
    with a value or to be identified."""
    robot = _with_prior((0.5, False, False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _result_on(robot).robot_text(robot, "urdf")
    said = [str(w.message) for w in caught if issubclass(w.category, bp.DataWarning)]
    assert len(said) == 1 and "\n" not in said[0]
    assert "the friction priors of the friction terms it declares (with a value, or without one to be identified; " \
           "a URDF's <dynamics> is a value, not a prior)" in said[0], said
    assert "without values" not in said[0]


def _logged_log(robot, payload, gap=None, seconds=8.0, dt=0.005):
    """Noise-free ``robot`` with ``payload`` along two sines per joint, q̇ and q̈ logged (as the LWR4+'s NPZ logs),
    without the samples of (gap, gap + 0.3 s)."""
    import numpy as np

    from test_fuzz_round25_lead import _payload_log

    t = np.arange(0.0, seconds, dt)
    k = np.arange(1, robot.n_dof + 1)
    a, b = np.outer(t, 0.7 * k) + k, np.outer(t, 1.9 + 0.3 * k)
    qd = 0.28 * k * np.cos(a) + 0.3 * (1.9 + 0.3 * k) * np.cos(b)
    qdd = -0.196 * k ** 2 * np.sin(a) - 0.3 * (1.9 + 0.3 * k) ** 2 * np.sin(b)
    log = _payload_log(robot, payload, seconds=seconds, dt=dt)
    keep = np.ones(len(t), bool) if gap is None else (t < gap) | (t > gap + 0.3)
    return bp.Trajectory(t=t[keep], q=log.q[keep], tau=log.tau[keep], qd=qd[keep], qdd=qdd[keep])


def test_a_loaded_sample_in_a_time_gap_of_the_unloaded_log_has_no_partner():
    """An unloaded log with a 0.3 s time gap, q̇ and q̈ logged (no segment end left out): the loaded samples lined up
    in the gap were matched with a straight line across it — the unloaded torque 0.3 s apart blended — and the
    noise-free LWR4+'s payload inertia came out 0.49 % of its largest moment off unfiltered (0 without the gap; now
    0.004 %), 0.68 % filtered (0.13 % without the gap, as now). A loaded sample lined up between two samples of
    different segments now has no partner, as one between two samples left out had none."""
    import numpy as np

    from test_fuzz_round25_lpay import PAYLOAD

    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    loaded = _logged_log(robot, PAYLOAD)
    for preprocessing, tolerance in ((None, 2e-4), (bp.Preprocessing(), 1.5e-3)):
        whole = bp.identify_payload(robot, loaded, unloaded=_logged_log(robot, None), preprocessing=preprocessing)
        result = bp.identify_payload(robot, loaded, unloaded=_logged_log(robot, None, gap=4.0),
                                     preprocessing=preprocessing)
        error = np.abs(result.inertia - PAYLOAD[2]).max() / np.linalg.eigvalsh(PAYLOAD[2]).max()
        # the 61 loaded samples from 4.0 to 4.3 s, one more where the alignment (found to 0.2 ms across the gap)
        # puts 3.995 s past the unloaded log's last sample before it
        assert whole.n_samples - 62 <= result.n_samples <= whole.n_samples - 61, result.n_samples
        assert error < tolerance, error
