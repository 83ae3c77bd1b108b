"""bp.Regressor: the regressor bound for one sample at a time.

Its numbers are bp.regressor's to the bit (the same compiled C loop), and W @ p is the torque of Newton–Euler
in base or standard parameters (another code path: the parameters symbolic in the graph, not the columns);
its errors are bp.regressor's messages; what it cannot take on its fast path goes to bp.regressor whole.
"""
import dataclasses

import numpy as np
import pytest

import baseparam as bp
from baseparam.dynamics import _native, _native_rule, bound_regressor
from conftest import ROOT, interrupted_calls
from random_bodies import assert_close, random_parameters

ROBOTS = ["kuka_iiwa14.yaml", "ur10e.yaml", "puma560.yaml", "stanford_arm.yaml", "dual_arm_torso.yaml",
          "kuka_lwr4.yaml"]     # 7 and 6 DOF, friction (ur10e, lwr4), prismatic, a tree


def _states(rng, robot, count):
    for _ in range(count):
        qd = rng.uniform(-2, 2, robot.n_v) * (rng.random(robot.n_v) < 0.8)     # some q̇ exactly 0: sign(0)
        yield rng.uniform(-3, 3, robot.n_q), qd, rng.uniform(-5, 5, robot.n_v)


@pytest.mark.parametrize("name", ROBOTS)
def test_bound_regressor_is_the_regressor_and_gives_newton_euler_torques(name):
    robot = bp.load_robot(ROOT / "robots" / name)
    base = bp.find_base_parameters(robot)
    rng = np.random.default_rng(7)
    p = random_parameters(robot, "pseudo", rng)[0]
    model = bp.Model(robot, p)
    p_base = base.from_standard(p)
    by_base, by_model = bp.Regressor(base), bp.Regressor(model)
    assert by_base.backend == by_model.backend == ("c" if _native.compiler() else "python")
    for q, qd, qdd in _states(rng, robot, 40):
        Wb, W = by_base(q, qd, qdd), by_model(q, qd, qdd)
        assert Wb.tobytes() == base.regressor(q, qd, qdd).tobytes() and Wb.shape == (robot.n_dof, base.rank)
        assert W.tobytes() == bp.regressor(model, q, qd, qdd).tobytes()
        assert_close(Wb @ p_base, bp.inverse_dynamics(base.model(p_base), q, qd, qdd), rtol=1e-9,
                     what="W_b p_b = NE(p_b)")
        assert_close(W @ p, bp.inverse_dynamics(model, q, qd, qdd), rtol=1e-9, what="W p = NE(p)")


def test_bound_regressor_returns_a_fresh_array_each_call():
    robot = bp.load_robot(ROOT / "robots" / "kuka_iiwa14.yaml")
    W = bp.Regressor(bp.find_base_parameters(robot))
    first = W(np.zeros(7), np.zeros(7), np.zeros(7))
    kept = first.copy()
    W(np.ones(7), np.ones(7), np.ones(7))
    assert first.tobytes() == kept.tobytes()


def test_bound_regressor_runs_its_c_loop_without_the_general_path(monkeypatch):
    """Three float64 arrays of the robot's length, values within the checks' bound: the bound C loop alone."""
    if _native.compiler() is None:
        pytest.skip("no C compiler")
    robot = bp.load_robot(ROOT / "robots" / "kuka_iiwa14.yaml")
    base = bp.find_base_parameters(robot)
    W = bp.Regressor(base)
    x = [np.full(7, 0.5), np.full(7, -0.25), np.full(7, 1.0)]
    expected = base.regressor(*x)

    def general(*args, **kwargs):
        raise AssertionError("the general path ran")
    monkeypatch.setattr(bound_regressor, "columns_at", general)
    assert W(*x).tobytes() == expected.tobytes()


@pytest.mark.parametrize("bad, message", [
    ([np.nan] + [0.0] * 6, r"^q: non-finite value nan at sample 0, joint 1$"),
    ([0.0] * 6 + [1e9], r"^q: absurd value \(\|x\| > 1e\+08\) 1000000000.0 at sample 0, joint 7$"),
    (np.zeros(6), r"^q: expected shape \(n_samples, 7\) or \(7,\), got \(6,\)$"),
    ("abc", r"^q: not numeric"),
])
def test_bound_regressor_refuses_what_the_regressor_refuses(bad, message):
    robot = bp.load_robot(ROOT / "robots" / "kuka_iiwa14.yaml")
    base = bp.find_base_parameters(robot)
    W, ok = bp.Regressor(base), np.zeros(7)
    with pytest.raises(bp.ArgumentError, match=message) as ours:
        W(bad, ok, ok)
    with pytest.raises(bp.ArgumentError) as theirs:
        base.regressor(bad, ok, ok)
    assert str(ours.value) == str(theirs.value)
    for where in range(3):          # the same in q̇ and q̈: the one sum checks all three
        args = [ok, ok, ok]
        args[where] = np.array([0.0] * 6 + [np.inf])
        with pytest.raises(bp.ArgumentError, match=("q", "qd", "qdd")[where] + ": non-finite value inf"):
            W(*args)


def test_bound_regressor_hands_other_arguments_to_the_regressor():
    """Lists, integers, float32 and batches are bp.regressor's to convert: the same numbers and shapes."""
    robot = bp.load_robot(ROOT / "robots" / "kuka_iiwa14.yaml")
    base = bp.find_base_parameters(robot)
    W = bp.Regressor(base)
    rng = np.random.default_rng(3)
    q, qd, qdd = (rng.uniform(-2, 2, 7) for _ in range(3))
    for form in (list, lambda x: x.astype(np.float32), lambda x: np.round(x).astype(int), lambda x: x[None, :]):
        args = [form(q), form(qd), form(qdd)]
        assert W(*args).tobytes() == base.regressor(*args).tobytes()


def test_bound_regressor_refuses_what_is_not_a_model():
    robot = bp.load_robot(ROOT / "robots" / "kuka_iiwa14.yaml")
    for value in (robot, "robots/kuka_iiwa14.yaml", 3, None):
        with pytest.raises(bp.ArgumentTypeError, match=r"^model: expected a baseparam\.Model, BaseModel or "):
            bp.Regressor(value)
    with pytest.raises(bp.ArgumentError, match="native"):
        bp.Regressor(bp.Model(robot), native="yes")


def test_bound_regressor_without_native_binds_once_the_loop_is_compiled():
    if _native.compiler() is None:
        pytest.skip("no C compiler")
    # a robot object of its own: its code is compiled on its 64th call, not already by another test
    robot = dataclasses.replace(bp.load_robot(ROOT / "robots" / "puma560.yaml"), name="puma, lazily")
    base = bp.find_base_parameters(robot)
    W = bp.Regressor(base, native=False)
    assert W.backend == "python"
    rng = np.random.default_rng(4)
    for q, qd, qdd in _states(rng, robot, _native_rule.COMPILE_AFTER + 2):
        assert W(q, qd, qdd).tobytes() == base.regressor(q, qd, qdd).tobytes()
    assert W.backend == "c"


def test_bound_regressor_of_a_floating_base_is_the_regressor():
    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    base = bp.find_base_parameters(robot)
    W = bp.Regressor(base)
    assert W.backend == "python"
    rng = np.random.default_rng(5)
    for q, qd, qdd in _states(rng, robot, 5):
        q[3:7] /= np.linalg.norm(q[3:7])
        assert W(q, qd, qdd).tobytes() == base.regressor(q, qd, qdd).tobytes()


def test_bound_regressor_shared_by_threads_gives_each_its_own_sample():
    # one object, two threads, each with its own sample: another thread's whole call falling between one thread's
    # copy into the buffer and its C call must not hand it the other's W (made to fall there every time)
    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    model = bp.Model(robot)
    shared = bp.Regressor(model)
    assert shared.backend == "c"
    rng = np.random.default_rng(3)
    samples = [tuple(rng.uniform(-1, 1, (3, robot.n_dof))) for _ in range(2)]
    expected = [bp.regressor(model, *sample).tobytes() for sample in samples]
    assert expected[0] != expected[1]
    assert [W.tobytes() for W in interrupted_calls(shared, "_call", samples)] == expected
