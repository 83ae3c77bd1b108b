"""Regressions of the Python API's fuzzing in issue 28's sixteenth round: the ~130 public calls of round fifteen's
table and the newest objects (``bp.Regressor``, ``bp.ForwardDynamics`` built either way, the models' values, the
payload result's vendor formats and robot texts, the symbolic ``evaluate``), each argument replaced by ~50 kinds of
value in a forked process; each object pickled, copied and deep-copied and used again; shared objects called from
three threads at once with other arguments each; SIGINT sent to long calls. Each case below failed before its fix."""
import copy
import pickle

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT, planar_sines


@pytest.fixture(scope="module")
def planar():
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 40, 0.02)
    return model, bp.Trajectory(t, q, tau, qd=qd, qdd=qdd)


def _copies(value):
    return pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)


def test_bound_dynamics_pickle_copy_and_deepcopy_as_new_objects_of_their_model(planar):
    """``pickle.dumps(bp.ForwardDynamics(model))`` raised a bare AttributeError (a local function of the kernel),
    ``bp.Regressor``'s another (ctypes' function pointer), ``copy.deepcopy`` of either a ValueError (ctypes pointers):
    each copy is now an object of its own (buffers, lock, C binding) made from the same model, giving the same bits."""
    model, traj = planar
    base = bp.find_base_parameters(model.robot)
    state = (traj.q[3], traj.qd[3], traj.qdd[3])
    for bound in (bp.ForwardDynamics(model), bp.Regressor(base), bp.Regressor(model, native=False)):
        for again in _copies(bound):
            assert type(again) is type(bound) and again.backend == bound.backend
            assert again._lock is not bound._lock           # its own buffers under its own lock
            assert np.array_equal(again(*state), bound(*state))


def test_codegen_results_pickle_and_deepcopy_with_their_mappings_read_only(tmp_path):
    """``bp.equations(...)`` and ``bp.export(...)`` hold read-only mappings (MappingProxyType), which pickle and
    deepcopy refused ("cannot pickle 'mappingproxy' object"): they travel as dicts and are read-only again."""
    ppr = bp.load_robot(ROOT / "robots" / "ppr.yaml")
    equations = bp.equations(ppr, check=False)
    exported = bp.export(bp.find_base_parameters(ppr), "python", out_dir=tmp_path)
    for result in (equations, exported):
        for again in _copies(result):
            assert repr(again) == repr(result)
            for name, value in vars(result).items():
                assert type(getattr(again, name)) is type(value)
                if isinstance(value, dict) or type(value).__name__ == "mappingproxy":
                    assert dict(getattr(again, name)) == dict(value)
    assert pickle.loads(pickle.dumps(equations)).python_source() == equations.python_source()


def test_rk4_runs_the_compiled_loop_in_pieces_ctrl_c_can_stop_between(planar, monkeypatch):
    """``ForwardDynamics.rk4`` ran its 10⁷ steps in one call of the compiled loop (a 7-joint arm: 28 s deaf to
    Ctrl-C). It now calls the loop for at most ``rk4_piece(n_v)`` steps at a time, whole intervals or, inside an
    interval of more substeps, pieces of 2^j steps whose step dt·2^j/substeps/2^j is the loop's exactly: the states
    are those of one call, to the bit."""
    from baseparam.dynamics import forward

    model, traj = planar
    fd = bp.ForwardDynamics(model)
    lib = fd.kernel.native()
    if lib is None:
        pytest.skip("no C compiler: the Python steps are interruptible")
    calls = []

    class Counted:
        def __getattr__(self, name):
            return getattr(lib, name)

        def rk4(self, n, *rest):
            calls.append(n * rest[1])
            return lib.rk4(n, *rest)

    rng = np.random.default_rng(4)
    for intervals, substeps in ((50, 3), (2, 1000)):
        q, qd = np.zeros((intervals + 1, 3)), np.zeros((intervals + 1, 3))
        q[0], qd[0] = rng.normal(size=3), rng.normal(size=3)
        dt, tau = rng.uniform(0.001, 0.01, intervals), rng.normal(size=(intervals, 3))
        whole = q.copy(), qd.copy()
        address = forward.address
        lib.rk4(intervals, address(dt), substeps, address(tau), 3, fd._p_address, *map(address, whole))
        calls.clear()
        monkeypatch.setattr(forward, "rk4_piece", lambda n_v: 64, raising=False)
        monkeypatch.setattr(fd.kernel, "_lib", Counted())
        fd.rk4(q, qd, dt, tau, substeps)
        monkeypatch.undo()
        assert len(calls) > 1 and max(calls) <= 64 and sum(calls) == intervals * substeps
        assert np.array_equal(q, whole[0]) and np.array_equal(qd, whole[1])
    for n_v in (1, 3, 7, 64, 70):        # a power of two, about 4·10⁶ / n_v² steps
        piece = forward.rk4_piece(n_v)
        assert piece & (piece - 1) == 0 and piece * n_v ** 2 <= 2 ** 22 < 2 * piece * n_v ** 2 or piece == 1


def test_an_estimators_y_is_refused_not_ignored(planar):
    """``fit(X, y)`` and ``score(X, y)`` took scikit-learn's ``y`` and ignored it: ``score(traj, other_torques)`` gave
    the R² of the trajectory's own torques, silently. A y that is not None is now refused in one line."""
    model, traj = planar
    est = bp.BaseParameterEstimator(model.robot, preprocessing=None).fit(traj)
    other = traj.tau + 5.0
    for call in (lambda: est.score(traj, other), lambda: est.fit(traj, other)):
        with pytest.raises(bp.DataError, match=r"y is not used \(the torques are X's") as caught:
            call()
        assert "\n" not in str(caught.value)
    assert est.score(traj) == est.score(traj, None)


@pytest.mark.parametrize("X, words", [(lambda t: (t.q, t.qd, t.qdd), r"a \(q, qd, qdd\) tuple has no torques"),
                                      (lambda t: [t.q, t.qd, t.qdd, t.tau], r"got an array of shape \(40, 3\) where a "
                                                                            r"trajectory is expected"),
                                      (lambda t: np.c_[t.q, t.qd, t.qdd], r"got an array of shape \(40, 9\)")])
def test_arrays_not_in_a_state_tuple_are_said_so(planar, X, words):
    """A (q, qd, qdd) tuple given to ``fit``/``score`` (``predict`` takes it), or arrays in a list, were read as
    several trajectories and refused as "expected a Trajectory, …, got ndarray", for a tuple or a list."""
    model, traj = planar
    est = bp.BaseParameterEstimator(model.robot, preprocessing=None)
    with pytest.raises(bp.DataError, match=words):
        est.fit(X(traj))


@pytest.mark.parametrize("kind", ["masked", "text", "bytes", "dates", "booleans"])
@pytest.mark.parametrize("call", ["ForwardDynamics", "Regressor", "forward_dynamics"])
def test_one_sample_of_what_is_no_numbers_is_refused_by_the_bound_calls_too(planar, call, kind):
    """One sample given to ``bp.ForwardDynamics`` was copied into its buffer as numpy converts: text read as numbers
    (bytes cut to 8 characters: 0.12345678901 became 0.123456), booleans as 0/1, dates as seconds, a masked array's
    hidden values as data; ``bp.Regressor`` and ``bp.forward_dynamics`` of one sample read a masked array's hidden
    values too (their buffer / ``np.asarray``), which ``bp.regressor`` and every batch refuse. All now refuse alike."""
    model, traj = planar
    q = traj.q[5]
    spoiled = {"masked": np.ma.masked_array(q, [True, False, False]), "text": q.astype(str), "bytes": q.astype("S8"),
               "dates": np.zeros(3, "datetime64[s]"), "booleans": q.astype(bool)}[kind]
    function = {"ForwardDynamics": bp.ForwardDynamics(model), "Regressor": bp.Regressor(model),
                "forward_dynamics": lambda *state: bp.forward_dynamics(model, *state)}[call]
    words = "masked value" if kind == "masked" else "not numeric"
    with pytest.raises(bp.ArgumentError, match=f"^q: .*{words}"):
        function(spoiled, traj.qd[5], traj.qdd[5])
    unmasked = np.ma.masked_array(q)                  # a masked array without masked values is its numbers
    assert np.array_equal(function(unmasked, traj.qd[5], traj.qdd[5]), function(q, traj.qd[5], traj.qdd[5]))


@pytest.mark.parametrize("parameters, p, words", [
    (["pseudo"], None, r"^parameters: expected one of \('pseudo', 'khalil'\), got \['pseudo'\]"),
    (np.array(["pseudo"]), None, "^parameters: expected one of"),
    ("pseudo", np.broadcast_to(0.1, (10 ** 9,)), r"^p: expected shape \(30,\), got \(1000000000,\)")])
def test_the_deprecated_robot_p_form_checks_parameters_before_using_them_as_a_key(planar, parameters, p, words):
    """``bp.ForwardDynamics(robot, p, ['pseudo'])`` (the deprecated form) looked its model up by (parameters, bytes
    of p): a bare "unhashable type: 'list'" TypeError, and a MemoryError for the bytes of a 10⁹-value view."""
    model, traj = planar
    with pytest.raises(bp.ArgumentError, match=words):
        bp.ForwardDynamics(model.robot, model.values() if p is None else p, parameters)


def test_compiled_loops_of_long_bodies_run_fewer_samples_per_call(planar, monkeypatch):
    """Every compiled loop over samples ran 32768 samples per call, whatever its body: a 64-joint chain's forward
    dynamics (43 µs a sample) 1.4 s deaf to Ctrl-C. Samples per call now shrink with the body's statements; the
    numbers are those of one call."""
    from baseparam.dynamics import _compiled

    assert _compiled.piece_samples(None) == _compiled.piece_samples(100) == _compiled.PIECE_SAMPLES
    assert _compiled.piece_samples(40_000) * 40_000 <= _compiled.PIECE_STATEMENTS
    assert _compiled.piece_samples(10 ** 9) == 1
    model, traj = planar
    fd = bp.ForwardDynamics(model)
    if fd.kernel.native() is None:
        pytest.skip("no C compiler")
    q, qd, tau = (np.tile(x, (4, 1)) for x in (traj.q, traj.qd, traj.tau))
    whole = fd.batch(q, qd, tau)
    calls = []
    lib = fd.kernel._lib

    class Counted:
        def __getattr__(self, name):
            return getattr(lib, name)

        def fd_batch(self, n, *rest):
            calls.append(n)
            return lib.fd_batch(n, *rest)

    monkeypatch.setattr(fd.kernel, "_lib", Counted())
    monkeypatch.setattr(fd.kernel, "statements", _compiled.PIECE_STATEMENTS // 50)   # a body 50 samples a call
    assert np.array_equal(fd.batch(q, qd, tau), whole)
    assert max(calls) == 50 and sum(calls) == len(q)


def test_a_refused_set_params_changes_nothing(planar):
    """``set_params(method='wls', bogus=1)`` set ``method``, then refused ``bogus``: the estimator the caller kept
    (after catching the error) fitted by another method than it said. Every name is now checked first."""
    model, traj = planar
    est = bp.BaseParameterEstimator(model.robot, preprocessing=bp.Preprocessing())
    before = est.get_params()
    for settings in ({"method": "wls", "bogus": 1}, {"prior_weight": 0.5, "preprocessing__cutoff_hz": 3.0}):
        with pytest.raises(bp.SettingsError, match="^set_params: unknown parameter"):
            est.set_params(**settings)
        assert est.get_params() == before
    assert est.set_params(method="wls").method == "wls"


def test_finite_checks_make_no_array_as_large_as_the_values():
    """``payload_parameters(1, com, inertia)`` of a broadcast view of 10⁹ rows was a bare MemoryError: the shared
    check (``check_real_array``) made an array of flags as large as the values before the shape was checked. It
    now asks min and max, which carry NaN and ±inf, and allocates nothing of that size."""
    import tracemalloc

    from baseparam._validation import check_real_array
    from baseparam.identification.payload import payload_parameters

    rows = np.broadcast_to(np.eye(3)[0], (2 * 10 ** 7, 3))           # 60 million values, 8 bytes of memory
    tracemalloc.start()
    try:
        with pytest.raises(bp.ArgumentError, match=r"^inertia: expected shape \(3, 3\), got \(20000000, 3\)"):
            payload_parameters(1.0, np.zeros(3), rows)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 ** 7
    for bad in (np.array([1.0, np.nan]), np.array([np.inf, 1.0]), np.array([[-np.inf]])):
        with pytest.raises(bp.ArgumentError, match="with NaN or inf"):
            check_real_array("x", bad, (1, 2))
    assert check_real_array("x", np.zeros(0), 1).size == 0
