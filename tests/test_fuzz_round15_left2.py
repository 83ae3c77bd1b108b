"""Items found in round 15 (second list): public parameters that changed nothing and said nothing (the floating
routes' ``seed``, ``scale_log``'s ``folds``: now a DeprecationWarning when given), a robot check written twice
that let a look-alike through to an AttributeError, and dead branches (``_degrees``' −0.0, ``_special``'s
multiple of 90°) removed: the tests of those check the behaviour the removal must keep."""
import math
import types
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.floating import identify_floating, route_combinations, seen_combinations
from baseparam.identification.logs import scale_log
from baseparam.model.dh_equivalent import _degrees
from baseparam.model.friction import with_friction_model
from baseparam.model.joint_model import _special, joint_models
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"


@pytest.fixture(scope="module")
def space():
    robot = bp.load_robot(SPACE)
    return robot, bp.find_base_parameters(robot, "pseudo")


def test_floating_seed_is_deprecated_and_changes_nothing(space):
    """``seed`` of route_combinations, seen_combinations and identify_floating was documented as having no
    effect, and was silently accepted: given, it now warns; left out, nothing warns; the answer is the same."""
    robot, base = space
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        E, pivots, source = route_combinations(robot, "base", base=base)
        seen = seen_combinations(robot, "base")
    with pytest.warns(DeprecationWarning, match="^route_combinations: seed is deprecated and has no effect"):
        E7, pivots7, _ = route_combinations(robot, "base", 7, base)
    assert np.array_equal(E, E7) and pivots == pivots7 and source == "projection"
    with pytest.warns(DeprecationWarning, match="^seen_combinations: seed is deprecated"):
        seen7 = seen_combinations(robot, "base", seed=7)
    assert np.array_equal(seen[0], seen7[0]) and seen[1] == seen7[1] and np.array_equal(seen[0], E)
    # identify_floating: warned where the seed was checked, before the data (none here: refused after)
    with pytest.warns(DeprecationWarning, match="^identify_floating: seed is deprecated"), \
            pytest.raises(bp.SettingsError, match="^data: no trajectory given"):
        identify_floating(robot, [], seed=3, base=base)
    with pytest.raises(bp.ArgumentError, match="^seed: "):          # not a seed: still refused
        identify_floating(robot, [], seed=-1, base=base)


@pytest.fixture(scope="module")
def auto_arm():
    """The planar arm with smooth Coulomb friction of 'auto' scale, and a short motion of it."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml", friction=True, friction_model="smooth")
    t = np.linspace(0.0, 4.0, 401)
    q = np.stack([np.sin((k + 1) * t) for k in range(3)], axis=1)
    qd = np.stack([(k + 1) * np.cos((k + 1) * t) for k in range(3)], axis=1)
    qdd = np.stack([-(k + 1) ** 2 * np.sin((k + 1) * t) for k in range(3)], axis=1)
    tau = np.cos(np.outer(t, [1.0, 2.0, 3.0]))
    return robot, bp.find_base_parameters(robot), bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau)


def test_scale_log_folds_is_deprecated_and_not_passed_by_identify_logs(auto_arm):
    """``scale_log``'s ``folds`` was documented as unused: given, it now warns; identify_logs' first pass (the
    'auto' scales) no longer passes it, so a fit with 'auto' scales warns nothing of the kind."""
    robot, base, log = auto_arm
    none = bp.Preprocessing.none()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        plain = scale_log(log, base, none)
        warnings.simplefilter("ignore", bp.DataWarning)        # scales at the grid's edge: not this test's
        bp.identify_logs(robot, [log, log], preprocessing=none, leave_one_out=False)
    with pytest.warns(DeprecationWarning, match="^scale_log: folds is deprecated and has no effect"):
        folded = scale_log(log, base, none, 5)
    assert same(plain, folded)


def same(a, b) -> bool:
    """Equal number for number (nested dicts, lists and tuples of arrays and floats)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("call", [with_friction_model, joint_models])
@pytest.mark.parametrize("value", [types.SimpleNamespace(joints=(), name="x", n_dof=0),
                                   types.SimpleNamespace(joints=(1, 2), name="x", n_dof=2)])
def test_a_robot_look_alike_is_refused_as_not_a_robot(call, value):
    """with_friction_model and joint_models each wrote the check as 'has joints': an object with a ``joints``
    attribute passed it and failed inside (dataclasses' TypeError, an AttributeError) or returned an answer
    (joint_models of no joints). One shared check now: _checks.require_robot_below, the Robot type itself."""
    with pytest.raises(bp.ArgumentTypeError, match="^robot: expected a baseparam.Robot, got SimpleNamespace$"):
        call(value)


def test_a_robot_and_a_file_name_as_before():
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml", friction=True)
    assert len(joint_models(robot)) == 3
    assert with_friction_model(robot, coulomb=False).joints[0].friction == (True, False, True)
    for call in (with_friction_model, joint_models):
        with pytest.raises(bp.ArgumentTypeError, match="use bp.load_robot"):
            call("robots/planar_rrr.yaml")


def test_degrees_of_a_dh_row_never_minus_zero():
    """The −0.0 branch of _degrees could not run (``+ 0.0`` had made every zero +0.0): removed. What it was
    for still holds: every zero is +0.0 (a YAML 'alpha: -0.0' reads badly); the angles (atan2's, in [−π, π])
    are their degrees to 1e-9°, a Python float."""
    angles = [0.0, -0.0, -1e-13, 1e-13, -4e-12, -1e-300, math.pi, -math.pi, math.pi / 2, -math.pi / 3,
              np.float64(-1e-14), np.float64(-0.0), math.atan2(-0.0, 1.0), math.atan2(-1e-17, -1.0)]
    for rad in angles:
        value = _degrees(rad)
        assert type(value) is float, rad
        assert -180.0 <= value <= 180.0, (rad, value)
        assert abs(value - math.degrees(rad)) <= 5e-10, (rad, value)
        if value == 0.0:
            assert math.copysign(1.0, value) == 1.0, rad


def test_special_is_a_multiple_of_15_degrees():
    """_special's first condition (exact_cos_sin's multiple of 90°) was implied by its second (a multiple of
    15°, the same ratio to π/12): removed. Checked on multiples of 15° (±1e-13 rad of round-off) and others."""
    for k in range(-48, 49):
        for slip in (0.0, 1e-13, -1e-13):
            assert _special(k * math.pi / 12 + slip), (k, slip)
        assert not _special(k * math.pi / 12 + 1e-6), k
        assert not _special((k + 0.5) * math.pi / 12), k
    assert _special(np.float64(math.pi / 2)) and not _special(np.float64(0.1))


URDF = """<robot name="r"><link name="b"/>
<link name="l1"><inertial><mass value="2"/><origin xyz="0.1 0 0"/>
  <inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="l2"><inertial><mass value="1"/>
  <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="l3"><inertial><mass value="1"/>
  <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j1" type="revolute"><parent link="b"/><child link="l1"/><axis xyz="0 0 1"/>
  <limit effort="1" velocity="1" lower="-1" upper="1"/></joint>
<joint name="f" type="fixed"><parent link="l1"/><child link="l3"/><origin xyz="0 0.2 0"/></joint>
<joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/><axis xyz="1 0 0"/>
  <limit effort="1" velocity="1" lower="-1" upper="1"/></joint>
</robot>"""


def test_bodies_read_merged_or_attached_stay_read_only():
    """s13-shrinkmodel (8161640, b90f801) left the read-only copies to Inertia instead of the URDF reader, the
    YAML loader and attach: every body handed out is still read-only, so a change cannot pass its checks."""
    from baseparam.model.attach import with_payload
    from baseparam.model.urdf import parse_urdf

    robots = [parse_urdf(URDF), bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")]
    robots.append(with_payload(robots[1], 0.5, [0.0, 0.01, 0.0], np.eye(3) * 1e-3))
    for robot in robots:
        for joint in robot.joints:
            for array in (joint.inertia.com, joint.inertia.inertia):
                assert not array.flags.writeable and array.dtype == float, robot.name
                with pytest.raises(ValueError, match="read-only"):
                    array[0] = 1e9
    merged = robots[0].joints[0].inertia           # l1 and l3 (by the fixed joint) as one body
    assert merged.mass == 3.0 and np.allclose(merged.com, [0.2 / 3, 0.2 / 3, 0.0], rtol=0, atol=1e-15)
