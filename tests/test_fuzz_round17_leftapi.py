"""Regressions of the leftovers of issue 28's sixteenth round in the Python API and of issue 22 (the last stop's
"Left, not fixed"): the base set's dynamics methods deprecated for the model value, ... Each case below failed
before its fix."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam import evaluation
from conftest import ROOT, address_space_capped, in_threads

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _states(robot, n_samples=5, seed=1):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(3, n_samples, robot.n_dof))


def test_the_base_sets_dynamics_methods_are_deprecated_for_the_model_value():
    """``base.inverse_dynamics(p_base, …)`` and ``base.forward_dynamics(p_base, …)`` repeated
    ``bp.inverse_dynamics(base.model(p_base), …)`` without a word (issue 22 item 1: one model value; the old calls
    keep working one release with a DeprecationWarning). They now warn, naming the replacement, and return its very
    bits; ``shapes=`` names the base regressor, which takes them."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    base = bp.find_base_parameters(robot)
    p_base = base.model().values() * 1.1
    q, qd, qdd = _states(robot)
    with pytest.warns(DeprecationWarning, match=r"BaseParameters\.inverse_dynamics\(p_base, q, qd, qdd\) is deprecated "
                      r"and will be removed in the next release: use bp\.inverse_dynamics\(base\.model\(p_base\)"):
        old = base.inverse_dynamics(p_base, q, qd, qdd)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)       # the new form and what the library calls: silent
        new = bp.inverse_dynamics(base.model(p_base), q, qd, qdd)
        tau = bp.inverse_dynamics(bp.Model(robot), q, qd, qdd)
    assert np.array_equal(old, new)
    np.testing.assert_allclose(new, base.regressor(q, qd, qdd) @ p_base, rtol=1e-10, atol=1e-10)
    with pytest.warns(DeprecationWarning, match=r"BaseParameters\.forward_dynamics\(p_base, q, qd, tau\) is deprecated"
                      r".*: use bp\.forward_dynamics\(base\.model\(p_base\), q, qd, tau\)"):
        old = base.forward_dynamics(base.model().values(), q, qd, tau)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new = bp.forward_dynamics(base.model(), q, qd, tau)
    assert np.array_equal(old, new)
    np.testing.assert_allclose(new, qdd, rtol=1e-8, atol=1e-8)          # the inverse of the inverse dynamics
    shapes = (np.tanh(qd), None)
    with pytest.warns(DeprecationWarning, match=r"shapes=\.\.\.\) is deprecated .*: use base\.regressor\(q, qd, qdd, "
                      r"shapes=shapes\) @ p_base"):
        old = base.inverse_dynamics(p_base, q, qd, qdd, shapes=shapes)
    np.testing.assert_allclose(old, base.regressor(q, qd, qdd, shapes=shapes) @ p_base, rtol=1e-10, atol=1e-10)


def test_the_library_calls_no_deprecated_method_of_its_own():
    """A fit's predictions and an excitation design evaluate the base set's inverse dynamics: through the deprecated
    method they would warn the user about a call the user never made."""
    from conftest import planar_sines

    robot, model, t, q, qd, qdd, tau = planar_sines(8, 40, 0.02)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        estimator = bp.identify(robot, bp.Trajectory(t, q, tau, qd=qd, qdd=qdd), preprocessing=None).estimator
        predicted = estimator.predict((q, qd, qdd))
    np.testing.assert_allclose(predicted, tau, rtol=1e-6, atol=1e-6)


def test_two_threads_loading_one_kernel_compile_it_once(tmp_path, monkeypatch):
    """``_native.load`` kept its loaded libraries in an unlocked module dict: two threads asking at once for a kernel
    not yet built both compiled it (issue 22 item 1: caches thread-safe). The second now waits for the first's
    library. (The first compile waits up to half a second for a second one to start: before the fix it did.)"""
    import ctypes
    import threading

    from baseparam.dynamics import _native

    if _native.compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path))
    compiles, second = [], threading.Event()
    real = _native._compile

    def counted(*args):
        compiles.append(args)
        if len(compiles) == 1:
            second.wait(0.5)
        else:
            second.set()
        return real(*args)

    monkeypatch.setattr(_native, "_compile", counted)
    source = f"/* {tmp_path} */\ndouble twice(double x) {{ return 2.0 * x; }}\n"
    functions = {"twice": (ctypes.c_double, [ctypes.c_double])}
    start = threading.Barrier(2)

    def load(i):
        start.wait()
        return _native.load(source, functions)

    libraries = in_threads(load, 2)
    assert len(compiles) == 1
    assert libraries[0] is libraries[1] and libraries[0].twice(1.5) == 3.0



NAN2 = np.array([np.nan, 1.0])


@pytest.mark.parametrize("call, words", [
    (lambda: evaluation.nrmse(NAN2, np.ones(3)), "^e2, t2: expected arrays of shapes that broadcast, got"),
    (lambda: evaluation.fit_errors(np.array([[np.nan]] * 4), np.ones(3)),
     r"^truth, estimates: expected .* got \(3,\) and \(4, 1\)$"),
    (lambda: evaluation.fit_errors(np.ones(3), np.ones(3), np.full((5, 2, 4), np.nan)),
     r"^regressor: expected 3 columns, got shape \(5, 2, 4\)$"),
])
def test_figures_look_at_the_shapes_before_the_values(call, words):
    """``nrmse`` scanned its sums (``sums >= 0``: a temporary of their size) before it asked whether their shapes
    broadcast, ``fit_errors`` the estimates and the regressor before comparing their rank with the truth's: a NaN
    among values of the wrong shape was said as the NaN, and a large view of the wrong shape was scanned first. The
    shape, then the size, then the values now, through _validation.check_real_array's ``shape`` step."""
    with pytest.raises(bp.ArgumentError, match=words):
        call()


@pytest.mark.parametrize("call", [
    # sums of shapes that broadcast to 2·10¹⁰ figures: np.broadcast_arrays and isinf made them
    lambda: evaluation.nrmse(np.ones((2, 1, 10 ** 5)), np.ones((2, 10 ** 5, 1))),
    # 10⁵ fits' errors on 10⁴ states of 2 joints: (S, n, k) temporaries of 2·10⁹ values
    lambda: evaluation.fit_errors(np.ones((3, 10 ** 5)), np.ones(3), np.ones((10 ** 4, 2, 3))),
])
def test_the_figures_temporaries_are_sized_before_they_are_made(call):
    """Inputs of a few MB whose figures need tens of GB: numpy's bare MemoryError (here under an address-space cap of
    1 GB above the process's size) before; now the budget's one line, before any value is read."""
    with address_space_capped(2 ** 30), pytest.raises(bp.ResourceLimitError, match="would need"):
        call()


def test_a_refused_set_params_leaves_nested_estimators_as_they_were():
    """``set_params(first__method='wls', second__bogus=1)`` refused the unknown name after it had set the first nested
    estimator's method, and its rollback restored only this estimator's own values: the first kept 'wls'. The nested
    estimators changed before the refusal are now set back too (last first)."""
    robot = bp.load_robot(PLANAR)

    class Pair(bp.BaseParameterEstimator):
        def __init__(self, robot=None, first=None, second=None):
            super().__init__(robot)
            self.first, self.second = first, second

    pair = Pair(robot, bp.BaseParameterEstimator(robot, method="ols"), bp.BaseParameterEstimator(robot))
    with pytest.raises(bp.SettingsError, match="bogus"):
        pair.set_params(first__method="wls", second__bogus=1)
    assert pair.first.method == "ols"
    with pytest.raises(bp.SettingsError, match="bogus"):
        pair.set_params(second__method="wls", first__bogus=1)
    assert pair.first.method == "ols" and pair.second.method == bp.BaseParameterEstimator(robot).method != "wls"
    assert pair.set_params(first__method="wls").first.method == "wls"


def _tagged(base):
    class Tagged(base):
        def __init__(self, model, tag):
            self.before = "set before the base's __init__"
            super().__init__(model)
            self.tag = tag
    Tagged.__qualname__ = Tagged.__name__ = f"Tagged{base.__name__}"    # pickled by name: found at module level
    return Tagged


TAGGED = {base: _tagged(base) for base in (bp.Regressor, bp.ForwardDynamics)}
TaggedRegressor, TaggedForwardDynamics = TAGGED.values()


@pytest.mark.parametrize("base", [bp.Regressor, bp.ForwardDynamics])
def test_a_subclass_of_a_bound_object_pickles_with_its_own_attributes(base):
    """``__reduce__`` of ``Regressor``/``ForwardDynamics`` rebuilt ``type(self)(model, native=…)``: a subclass's own
    attributes were dropped by pickle, copy and deepcopy, and a subclass whose ``__init__`` takes other arguments
    could not be unpickled at all (TypeError). The base's ``__init__`` now rebuilds what is its own (buffers, lock,
    kernel binding) and the subclass's attributes come back as Python's pickling gives any object's."""
    import copy
    import pickle

    Tagged = TAGGED[base]
    model = bp.Model(bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml"))
    tagged = Tagged(model, {"run": 7})
    q, qd, x = _states(model.robot, 1)
    for twin in (pickle.loads(pickle.dumps(tagged)), copy.copy(tagged), copy.deepcopy(tagged)):
        assert type(twin) is Tagged and twin.tag == {"run": 7} and twin.before == tagged.before
        assert twin.backend == tagged.backend
        assert np.array_equal(twin(q[0], qd[0], x[0]), tagged(q[0], qd[0], x[0]))
    assert copy.deepcopy(tagged).tag is not tagged.tag and copy.copy(tagged).tag is tagged.tag


def test_no_figure_of_infinity_is_returned():
    """Issue 28: no NaN or inf in a returned value. ``identification_errors`` of a motion that leaves base parameters
    unexcited returned cond(W_b) = inf (documented) beside a spread of 0 for those parameters, as if they were
    perfectly identified: refused now, naming them. ``nrmse`` returned a pooled figure of inf for a Σe² that overflowed
    (and 0 for an overflowed Στ², inf for finite sums whose total overflows): refused alike, as the inf/inf case was."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    base = bp.find_base_parameters(robot)
    q, _, _ = _states(robot, 50)
    still = np.zeros_like(q)                                    # poses only: no inertia, friction or drive excited
    with pytest.raises(bp.ArgumentError, match=r"^q, qd, qdd: the motion does not excite base parameters XX1, FV1, "
                                               r".* \(zero regressor column, cond\(W_b\) infinite\): no fit"):
        bp.identification_errors(base, base.model().values(), q, still, still, 0.1)
    q, qd, qdd = _states(robot, 50)
    errors = bp.identification_errors(base, base.model().values(), q, qd, qdd, 0.1, trials=2)
    assert np.isfinite(errors.condition_number)
    for e2, t2, words in (([np.inf, 1.0], [1.0, 1.0], "^e2: joint 1: the sum of squares overflowed to inf"),
                          ([1.0, 1.0], [1.0, np.inf], "^t2: joint 2: the sum of squares overflowed to inf"),
                          ([1e308, 1e308], [1.0, 1.0], "^e2: the sum over the joints overflowed to inf")):
        with pytest.raises(bp.ArgumentError, match=words):
            evaluation.nrmse(np.array(e2), np.array(t2))
