"""Regressions of the Python API's fuzzing in issue 28's thirteenth round: each public function, constructor and
method of a call that works had one argument replaced by a value derived from the valid one (read-only, Fortran-
ordered, strided, big-endian, float16, long double, complex, object, datetime, structured, masked, np.matrix,
pandas, a generator, 0-d, empty, one more or one fewer column, NaN, inf, 1e300, a broadcast view of 10⁹ samples)
or by None, an object, text with a newline, NUL or a lone surrogate; each call in a forked process under an alarm
and an address-space limit. The criterion was the strict one ``test_fuzz_api.own_error`` now holds the whole
harness to: the library's own exception, or a TypeError raised by one of its ``raise`` statements (or by Python
for a wrong number of arguments) — a TypeError from inside numpy or from a line of baseparam that is not a raise
("'NoneType' object is not iterable") no longer passes. Each case below failed before its fix."""
import contextlib
import fractions
import linecache
import os
import re
import sys

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT, planar_sines
from test_fuzz_api import _floating_arrays, finite, own_error

SPACE = ROOT / "robots" / "space_robot.yaml"
# a broadcast view of 10⁹ samples costs no memory; a scan of its values takes seconds and a copy 8 GB
HUGE_NAN = np.broadcast_to(np.array([np.nan]), (10 ** 9,))


@pytest.fixture(scope="module")
def planar():
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 40, 0.02)
    return model, bp.Trajectory(t, q, tau, qd=qd, qdd=qdd)


def _raised(action):
    try:
        action()
    except Exception as exc:        # noqa: BLE001 - the test of the harness's own classifier
        return exc
    raise AssertionError("nothing raised")


def test_the_harness_tells_the_librarys_type_errors_from_bare_ones():
    """``own_error``: the check the fuzz tests hold every refusal to (they took any TypeError before)."""
    assert own_error(_raised(lambda: bp.load_robot(3)))                       # ArgumentTypeError
    assert own_error(_raised(lambda: bp.load_robot()))                        # Python's arity check at the call
    assert not own_error(_raised(lambda: np.add("a", 1)))                     # numpy's
    assert not own_error(_raised(lambda: len(None)))                          # Python's, not at a call of ours
    assert not own_error(KeyError("x"))
    assert not own_error(_raised(lambda: sorted([1, "a"])))                  # a comparison inside Python


def _raised_in_package(source, call):
    """``own_error`` of what ``call(namespace)`` raises when the functions of ``source`` are lines of baseparam
    (compiled under a file name inside the package, their text in linecache as the traceback reads a module's)."""
    path = os.path.join(os.path.dirname(bp.__file__), "_harness_probe.py")
    linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    try:
        namespace = {}
        exec(compile(source, path, "exec"), namespace)         # noqa: S102 - the test's own source
        return own_error(_raised(lambda: call(namespace)))    # while its lines are there
    finally:
        linecache.cache.pop(path, None)


PROBE = """
def formats(x):
    raise TypeError(f"x: expected a number, got {x:g}")
def guarded(x):
    if x: raise TypeError("x: expected no truth value")
def takes_one(a):
    return a
def calls_wrongly(x):
    return takes_one(x, x)
def forwards(*args):
    return takes_one(*args)
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="a traceback's column positions (Python 3.11)")
def test_the_harness_tells_a_raise_from_a_bare_error_on_its_line():
    """``own_error`` took any TypeError on a line that starts with ``raise``: also the one the raise's own message
    threw (``lowpass_floating(log, Fraction(10**6))``: "unsupported format string passed to Fraction.__format__"),
    and refused ``if bad: raise TypeError(...)``; it took any arity error, also one of a call inside baseparam."""
    assert not _raised_in_package(PROBE, lambda ns: ns["formats"](fractions.Fraction(1)))
    assert _raised_in_package(PROBE, lambda ns: ns["formats"](1.0))         # a format it takes: the raise's own
    assert _raised_in_package(PROBE, lambda ns: ns["guarded"](1))
    assert not _raised_in_package(PROBE, lambda ns: ns["calls_wrongly"](1))
    assert _raised_in_package(PROBE, lambda ns: ns["forwards"](1, 2))     # a decorator passing the call on
    # a function of the wrong arity called by Python code outside baseparam (re's), not at the caller's call
    assert not own_error(_raised(lambda: re.sub("a", _takes_nothing, "a")))
    assert own_error(_raised(lambda: _takes_nothing(1)))


def _takes_nothing():
    return ""


def test_the_harness_looks_into_the_fields_of_returned_dataclasses():
    """``finite`` passed any object: a Trajectory holding NaN in a field came back unnoticed."""
    t = np.arange(12) * 0.1
    limits = bp.MotionLimits(lower=-np.ones(2), upper=np.full(2, np.inf), velocity=np.ones(2),
                             acceleration=np.ones(2), torque=np.ones(2))
    assert finite(limits)                       # ±inf documented: a joint without a limit
    contact = bp.Contact(1, (0.1, 0.0, 0.0))
    object.__setattr__(contact, "position", (np.nan, 0.0, 0.0))
    assert not finite(contact) and finite(bp.Trajectory(t, np.zeros((12, 2))))


@pytest.mark.parametrize("value", [np.nan, None, 3, ("line",)])
def test_a_trajectorys_skipped_unit_is_text(value):
    """``Trajectory(..., skipped_unit=nan)`` was kept: a motion holding NaN, and a summary saying "nan 3"."""
    t = np.arange(12) * 0.1
    with pytest.raises(bp.ArgumentTypeError, match=r"^<arrays>: skipped_unit: expected a str"):
        bp.Trajectory(t, np.zeros((12, 2)), skipped_unit=value)
    assert bp.Trajectory(t, np.zeros((12, 2)), skipped_unit="row\nx").skipped_unit == "row\\nx"


def test_a_motion_limits_field_of_more_than_64_joints_is_refused_before_its_values_are_read():
    """``MotionLimits(lower=<view of 10⁹ values>)`` scanned all of them for NaN first (seconds, then more copies)."""
    ones = np.ones(3)
    with pytest.raises(bp.ArgumentError, match=r"^MotionLimits.lower: expected at most 64 joints, got 1000000000$"):
        bp.MotionLimits(lower=HUGE_NAN, upper=ones, velocity=ones, acceleration=ones, torque=ones)


def test_fourier_series_evaluate_checks_the_memory_before_reading_the_times():
    """``FourierSeries.evaluate(<view of 10⁹ times>)`` scanned them before its memory check: seconds, then the
    NaN refused, where the 288 GB the sampling needs are refused at once."""
    fs = bp.FourierSeries(2.0, np.zeros(3), np.full((3, 2), 0.1), np.full((3, 2), 0.05))
    with pytest.raises(bp.ResourceLimitError, match=r"^t: 1e\+09 times would need about"):
        fs.evaluate(HUGE_NAN)


def test_a_fourier_series_of_more_joints_or_harmonics_than_any_is_refused_by_its_shape():
    """``FourierSeries.from_coefficients(2.0, <view of 3 × 10⁹>)``: numpy's bare MemoryError (its slices copied);
    a view of 10⁸ joints: its values scanned for seconds first."""
    for theta in (np.broadcast_to(np.zeros(1), (3, 10 ** 9 + 1)), np.broadcast_to(np.zeros(1), (10 ** 8, 5))):
        with pytest.raises(bp.ArgumentError, match=r"^theta: expected at most 64 joints and 10000 harmonics"):
            bp.FourierSeries.from_coefficients(2.0, theta)
    wide = np.broadcast_to(np.zeros(1), (3, 10 ** 8))
    with pytest.raises(bp.ArgumentError, match=r"^a: expected at most 64 joints"):
        bp.FourierSeries(2.0, np.zeros(3), wide, wide)


def test_simulations_check_the_memory_before_reading_the_times(planar):
    """``simulate(model, <view of 10⁹ times>, …)`` and the floating experiments scanned and differenced the times
    (an 8 GB copy) before anything bounded them."""
    model, traj = planar
    with pytest.raises(bp.ResourceLimitError, match=r"^t: 1000000000 samples \(the motion simulated\) would need"):
        bp.simulate(model, HUGE_NAN, traj.q[0], traj.qd[0])
    space = bp.load_robot(SPACE)
    with pytest.raises(bp.ResourceLimitError, match=r"^t: 1000000000 samples"):
        bp.stance_motion(space, HUGE_NAN, np.zeros(6), np.zeros((3, 3)), np.zeros((3, 3)), [bp.Contact(3)])


@pytest.mark.parametrize("record, error, words", [
    (None, bp.ArgumentTypeError, r"^record: expected a tuple of field names"),
    ("qd", bp.ArgumentTypeError, r"^record: expected a tuple of field names"),      # was read as 'q', 'd'
    ([["q"]], bp.ArgumentError, r"^record: expected some of"),
])
def test_simulate_record_of_the_wrong_kind_is_refused_in_one_line(planar, record, error, words):
    """``simulate(record=None)``: TypeError "'NoneType' object is not iterable" from inside the check; a list
    item: "unhashable type"."""
    model, traj = planar
    with pytest.raises(error, match=words):
        bp.simulate(model, traj.t[:12], traj.q[0], traj.qd[0], record=record)
    with pytest.raises(error, match=words):
        bp.track(model, bp.Reference(traj.t, traj.q, traj.qd, traj.qdd), bandwidth=3.0, record=record)


def test_simulate_record_of_a_generator_keeps_its_fields(planar):
    """The check read a generator, and the log was then made of what was left of it: nothing."""
    model, traj = planar
    log = bp.simulate(model, traj.t[:12], traj.q[0], traj.qd[0], method="rk4", record=(f for f in ("q", "qd")))
    assert log.qd is not None and log.qdd is None


@pytest.mark.parametrize("link", [np.nan, np.inf, 2.5, -1, True, None, object()])
def test_a_contacts_link_is_checked_when_it_is_made(link):
    """``Contact(nan)`` was made (a contact holding NaN) and failed only where it was used."""
    with pytest.raises(bp.ArgumentError, match=r"link: expected 0 \(the base\), a link number from 1 to 64 or a "
                                               r"joint name"):
        bp.Contact(link, (0.1, 0.0, 0.0))
    assert bp.Contact(np.int64(2)).link == 2 and bp.Contact("elbow").link == "elbow"


def test_model_memo_of_what_is_no_key_or_no_function_is_a_type_error(planar):
    """``Model.memo(array, 'x')``: "unhashable type: 'numpy.ndarray'"; ``memo('k', 'x')``: "'str' object is not
    callable", both from inside the method."""
    model, _ = planar
    for key, build in ((np.zeros(2), lambda: 1), ("k", "x"), (None, None)):
        with pytest.raises(bp.ArgumentTypeError, match=r"^memo: expected a key \(str\) and a function"):
            model.memo(key, build)
    assert model.memo("fuzz13", lambda: 7) == 7


@pytest.mark.parametrize("call, error, words", [
    (lambda r, p: bp.find_and_store(r, p / "z.h5", progress=object()), bp.ArgumentTypeError, "^progress: expected"),
    (lambda r, p: bp.design_excitation(r, period=2.0, harmonics=2, rate=10.0, starts=1, progress=3.0),
     bp.ArgumentTypeError, "^progress: expected"),
    (lambda r, p: bp.parse_robot("joints: [\udcff]"), bp.RobotDescriptionError,
     r"^<string>: not valid text \(a lone surrogate \\udcff at offset 9\)$"),
    (lambda r, p: bp.parse_robot('<robot name="\udcff"/>', "arm.urdf"), bp.RobotDescriptionError,
     r"^arm.urdf: not valid text"),
])
def test_arguments_that_reached_a_bare_error_are_refused_in_one_line(tmp_path, call, error, words):
    """``find_and_store(progress=object())``: "'object' object is not callable" once the work had started (the
    base set found, the file opened); ``design_excitation`` the same after the search's first start;
    ``parse_robot`` of text with a lone surrogate: UnicodeEncodeError."""
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    with pytest.raises(error, match=words) as info:
        call(robot, tmp_path)
    assert "\n" not in str(info.value) and not list(tmp_path.iterdir())


def test_write_floating_log_checks_its_path_and_wrenches(tmp_path):
    """``write_floating_log(None, …)``: os.fspath's bare TypeError; wrenches of text or complex: numpy's; NaN
    wrenches were written into a log its reader refuses."""
    from baseparam.identification.floating_logs import write_floating_log
    t, q = _floating_arrays(2, 11)
    log = bp.Trajectory(t, q, np.ones((11, 8)), qd=np.zeros((11, 8)), floating=True)
    with pytest.raises(bp.ArgumentTypeError, match="^path: expected a file path"):
        write_floating_log(None, log)
    for wrenches, words in ((np.full((11, 1, 6), 1j), "^wrenches: not numeric"),
                            (np.full((11, 1, 6), "x"), "^wrenches: not numeric"),
                            (np.full((11, 1, 6), np.nan), "^wrenches: NaN or inf$")):
        with pytest.raises(bp.SettingsError, match=words):
            write_floating_log(tmp_path / "log.npz", log, wrenches)
    assert not list(tmp_path.iterdir())


def test_friction_shapes_given_to_a_base_set_are_checked():
    """``BaseParameters.regressor(..., shapes=object())``: "'object' object is not iterable" from inside; ``{}``:
    an IndexError; NaN shapes gave NaN regressor rows."""
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "planar_rrr.yaml", friction=True))
    q = np.zeros((4, 3))
    for shapes, words in ((object(), r"^shapes: expected a pair .* got <object"), ({}, r"^shapes: expected a pair"),
                          ((q,), r"got 1 items$"), ((np.full((4, 3), np.nan), None), r"^shapes\[0\]: NaN or inf$"),
                          (("x", None), r"^shapes\[0\]: not numeric")):
        with pytest.raises(bp.ArgumentError, match=words):
            base.regressor(q, q, q, shapes=shapes)
    assert np.isfinite(base.regressor(q, q, q, shapes=(np.ones((4, 3)), None))).all()


def test_a_joint_type_of_no_text_is_refused_when_the_joint_is_made():
    """``Joint(np.inf)`` and ``Joint(<array>)`` were made (a joint holding inf; the Robot refused it later, or, for an
    array, compared it element by element)."""
    for kind in (np.inf, np.zeros((10, 3)), None):
        with pytest.raises(bp.RobotDescriptionError, match=r"^Joint.type: expected one of \('revolute', 'prismatic'\)"):
            bp.Joint(kind)
    with pytest.raises(bp.RobotDescriptionError, match=r"^joints\[1\].type: expected one of"):     # the Robot's words
        bp.Robot((bp.Joint("twisty"),))


def test_design_settings_of_fractions_are_read_as_numbers():
    """``design_excitation(period=Fraction(2))``: "unsupported format string passed to Fraction.__format__" from the
    message of a later check, which formatted the value given instead of the one checked."""
    from fractions import Fraction
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    with pytest.raises(bp.ArgumentError, match=r"^rate: 1 Hz is too low for 2 harmonics of a 2 s period"):
        bp.design_excitation(robot, period=Fraction(2), harmonics=2, rate=Fraction(1), starts=1)


def test_identification_errors_of_a_noise_whose_fits_overflow_are_refused(planar):
    """``identification_errors(..., noise=1e300)``: a parameter error of inf returned (1e200: NaN spreads, with
    numpy's overflow warning)."""
    model, traj = planar
    base = bp.find_base_parameters(model.robot)
    p = base.from_standard(model.values())
    for noise in (1e300, 1e200):
        with pytest.raises(bp.ArgumentError, match=r"^noise: a standard deviation of 1e\+[23]00 makes the fits"):
            bp.identification_errors(base, p, traj.q, traj.qd, traj.qdd, noise, trials=2)


def test_numpy_durations_are_no_numbers():
    """``Origin(np.array([0, 1, 2], dtype='timedelta64[s]'))``: numpy's durations are integers to ``numbers``, so the
    one test of a number (``_numbers.is_real``) passed them to math.isfinite: a bare TypeError."""
    from baseparam._numbers import is_real
    assert not is_real(np.timedelta64(3, "s")) and is_real(np.int64(3))
    with pytest.raises(bp.RobotDescriptionError, match=r"^Origin.xyz: expected 3 finite numbers"):
        bp.Origin(np.array([0, 1, 2], dtype="timedelta64[s]"))


def test_fit_figures_of_parameters_beyond_the_librarys_bound_are_refused():
    """``evaluation.fit_errors(zeros, 2e300)``: a parameter error of NaN (the norms overflowed), with numpy's
    warnings; a base parameter beyond ±1e100 is refused as everywhere in the library."""
    from baseparam import evaluation
    with pytest.raises(bp.ArgumentError, match=r"^truth: absurd value 2e\+300 at index 0 \(beyond ±1e\+100\)"):
        evaluation.fit_errors(np.zeros(3), np.full(3, 2e300))
    with pytest.raises(bp.ArgumentError, match=r"^estimates: absurd value -2e\+300 at index 0 \(beyond ±1e\+100\)"):
        evaluation.fit_errors(np.full(3, -2e300), np.ones(3))
    with pytest.raises(bp.ArgumentError, match=r"^truth: absurd value 1e\+200"):
        evaluation.relative_scale(np.full(3, 1e200))
    assert evaluation.fit_errors(np.full(3, 1e99), np.full(3, 1e99)).parameter_error == 0.0


@pytest.fixture(scope="module")
def floating_log():
    t, q = _floating_arrays(2, 200)
    q[:, 7:] = np.sin(np.outer(t, [3.0, 5.0]))
    return bp.Trajectory(t, q, np.zeros((200, 8)), floating=True)


@pytest.mark.parametrize("cutoff, order", [(fractions.Fraction(10 ** 6), 4), (None, 4), ("5", 4), (np.nan, 4),
                                           (5.0, None), (5.0, 2.5)])
def test_lowpass_floating_refuses_what_is_no_frequency_or_order_in_one_line(floating_log, cutoff, order):
    """``lowpass_floating`` checked neither: a Fraction above Nyquist reached its message's :g, None and text its
    comparison, an order of None or 2.5 SciPy's filter design (review of round 13: the class its fixes left)."""
    from baseparam.identification.floating_logs import lowpass_floating

    exc = _raised(lambda: lowpass_floating(floating_log, cutoff, order))
    assert isinstance(exc, bp.BaseParamError) and "\n" not in str(exc), repr(exc)


def test_lowpass_floating_takes_a_fraction_or_numpy_scalar_as_the_float(floating_log):
    """A cut-off of Fraction(10) or np.float32(10) Hz filters as 10.0 does (the Fraction reached the note's :g)."""
    from baseparam.identification.floating_logs import lowpass_floating

    plain = lowpass_floating(floating_log, 10.0)
    for cutoff in (fractions.Fraction(10), np.float32(10), np.int64(10)):
        same = lowpass_floating(floating_log, cutoff, np.int64(4))
        assert np.array_equal(same.q, plain.q) and same.notes == plain.notes


@pytest.mark.parametrize("duration", [np.timedelta64(2), np.timedelta64(2, "s")])
def test_a_numpy_duration_is_no_count_either(planar, duration):
    """Round 13 refused numpy durations as numbers (is_real), not as whole numbers: ``simulate(substeps=
    np.timedelta64(2))`` reached the compiled integrator (ctypes' "argument 3: wrong type"), ``np.timedelta64(2, 's')``
    int()'s bare TypeError, and ``Contact(np.timedelta64(2), …)`` was kept."""
    model, log = planar
    actions = (lambda: bp.simulate(model, log.t[:12], log.q[0], log.qd[0], tau=log.tau[:12], method="rk4",
                                   substeps=duration),
               lambda: bp.Contact(duration, (0.1, 0.0, 0.0)))
    for action in actions:
        exc = _raised(action)
        assert isinstance(exc, bp.BaseParamError) and "\n" not in str(exc), repr(exc)


@pytest.mark.parametrize("shape", [(1, 10_001), (65, 1)])
def test_load_excitation_names_the_file_of_a_series_beyond_the_size_limit(tmp_path, shape):
    """Round 13's size limit of FourierSeries (64 joints, 10 000 harmonics) reached load_excitation as an
    ArgumentError "a: expected at most …", naming neither the file nor the field (its docstring: a DataError that
    does); such files were read before the limit."""
    import json

    path = tmp_path / "design.json"
    zeros = np.zeros(shape).tolist()
    path.write_text(json.dumps({"period": 10.0, "rate": 100.0,
                                "coefficients": {"q0": [0.0] * shape[0], "a": zeros, "b": zeros}}))
    exc = _raised(lambda: bp.load_excitation(path))
    assert isinstance(exc, bp.DataError) and str(exc).startswith(f"{path}: field coefficients.a: "), repr(exc)


def test_preprocessing_takes_a_fraction_cutoff_as_the_float():
    """``Preprocessing(cutoff_hz=Fraction(1000))`` was kept as a Fraction, whose :g in the "at or above the Nyquist
    frequency" warning was a bare TypeError out of identify (the class of round 13's design-settings fix)."""
    robot, _, t, q, _, _, tau = planar_sines(8, 400, 0.02)
    log = bp.Trajectory(t, q, tau)
    for value in (1000, 5):
        given = bp.Preprocessing(cutoff_hz=fractions.Fraction(value))
        with pytest.warns(bp.DataWarning) if value == 1000 else contextlib.nullcontext():
            ours = bp.identify(robot, log, preprocessing=given)
        assert type(given.cutoff_hz) is float
        with pytest.warns(bp.DataWarning) if value == 1000 else contextlib.nullcontext():
            plain = bp.identify(robot, log, preprocessing=bp.Preprocessing(cutoff_hz=float(value)))
        assert np.array_equal(ours.values, plain.values)


def test_friction_shapes_given_as_one_array_or_a_generator_are_still_a_pair():
    """Round 13's check of ``shapes`` took only a tuple or a list: ``regressor(..., shapes=np.stack([c, s]))`` (an
    array of shape (2, n_samples, n_dof)) and a generator of the two, the same regressor before, were refused."""
    from conftest import planar_arm

    robot = planar_arm()
    base = bp.find_base_parameters(robot)
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.uniform(-1, 1, (3, 6, robot.n_dof))
    c, s = np.tanh(qd / 0.01), np.exp(-(qd / 0.1) ** 2)
    pair = base.regressor(q, qd, qdd, shapes=(c, s))
    for given in (np.stack([c, s]), (x for x in (c, s))):
        assert np.array_equal(base.regressor(q, qd, qdd, shapes=given), pair)
    assert not np.array_equal(base.regressor(q, qd, qdd), pair)         # the shapes are used
    with pytest.raises(bp.ArgumentError, match="got more than 2 items"):
        base.regressor(q, qd, qdd, shapes=np.stack([c, s, s]))


@pytest.mark.parametrize("tolerance, duration", [(fractions.Fraction(1, 500), 0.5), (2e-3, fractions.Fraction(1, 2))])
def test_still_pose_settings_given_as_fractions_are_the_floats(planar, tolerance, duration):
    """``identify_static(..., tolerance=Fraction(1, 500))`` (identify_payload's still_tolerance and still_duration)
    kept the Fraction, whose :g in the "too few still poses" message was a bare TypeError (the class of round 13's
    fix of the design settings)."""
    from baseparam.identification.payload_static import identify_static

    model, log = planar

    def refusal(tolerance, duration):
        return _raised(lambda: identify_static(model.robot, lambda q, qd, qdd: np.zeros_like(q), [log],
                                               tolerance=tolerance, min_duration=duration))
    exc = refusal(tolerance, duration)
    assert isinstance(exc, bp.DataError) and str(exc) == str(refusal(float(tolerance), float(duration))), repr(exc)


@pytest.mark.parametrize("duration", [np.timedelta64(1), np.timedelta64(1, "s")])
def test_a_numpy_duration_is_no_joint_number(duration):
    """``Joint(parent=np.timedelta64(1))`` was kept (a robot whose parent prints as "1 generic time units"), and
    ``moving_joints(robot, np.timedelta64(2))`` (excite --payload-joints) took it as 2, or int()'s bare TypeError."""
    import dataclasses

    from baseparam.excitation.payload import moving_joints

    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    for action in (lambda: dataclasses.replace(robot.joints[1], parent=duration),
                   lambda: moving_joints(robot, duration)):
        exc = _raised(action)
        assert isinstance(exc, bp.BaseParamError) and "\n" not in str(exc), repr(exc)
