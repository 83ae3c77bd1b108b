"""Regressions of the Python API's fuzzing in issue 28's fourteenth round. The earlier rounds gave each argument odd
values (NaN, None, wrong shapes and kinds); this one gave each argument of ~150 valid calls the *same* value in
another kind — a read-only, Fortran-ordered, strided, big-endian, float32, long-double, object or subclassed array, a
list, a tuple, pandas, numpy scalars (np.float32, np.int32, np.uint8, np.str_, np.True_), Fractions, Decimals,
subclasses of int, float and str, pathlib and os.PathLike paths — and compared the answer with the plain call's
(~2 800 calls, each in a forked process under an alarm and an address-space limit; the caller's arrays compared
before and after each call). The criterion: the same numbers, or the library's own refusal (``own_error``). Each case
below failed before its fix; ``test_the_same_value_in_another_kind_gives_the_same_answer`` keeps the harness."""
import dataclasses
import fractions
import numbers
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import planar_arm, planar_sines
from test_fuzz_api import finite, own_error


class IntSub(int):
    pass


class FloatSub(float):
    pass


class StrSub(str):
    pass


class SubArray(np.ndarray):
    pass


@pytest.fixture(scope="module")
def planar():
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 40, 0.02)
    return model, q[:5], qd[:5], qdd[:5], tau[:5]


# -- what the fuzzing found ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", [np.str_, StrSub])
def test_an_option_of_a_str_subclass_is_the_option_itself(tmp_path, kind):
    """``find_and_store(parameters=np.str_('khalil'))`` reached h5py's attributes as a dtype '<U6' it cannot store:
    a bare TypeError. ``check_option`` now hands back the option, not the caller's equal value (all its users)."""
    robot = planar_arm()
    base = bp.find_and_store(robot, tmp_path / "z.h5", parameters=kind("khalil"))
    assert type(base.parameters) is str and base.parameters == "khalil"
    stored = bp.read_h5(tmp_path / "z.h5")
    assert stored["attrs"]["parameters"] == "khalil"
    assert list(stored["columns"]) == bp.ColumnLayout(robot, "khalil").names


def test_an_inertia_keeps_the_body_it_checked():
    """``bp.Inertia`` kept the caller's arrays as its fields: changed afterwards, they changed a frozen robot past
    its checks (a centre of mass of 1e9 m, a negative moment of inertia), and its dynamics with it."""
    robot = planar_arm()
    body = robot.joints[1].inertia
    com, tensor = np.array(body.com, dtype=float), np.array(body.inertia, dtype=float)
    made = bp.Inertia(body.mass, com, tensor)
    arm = dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, inertia=made) if k == 1 else j
                                                  for k, j in enumerate(robot.joints)))
    q, zero = np.array([0.3, 0.2, 0.1]), np.zeros(3)
    before = bp.inverse_dynamics(bp.Model(arm), q, zero, zero)
    com[0], tensor[0, 0] = 1e9, -5.0                       # the caller's arrays, after the check
    assert made.com[0] != 1e9 and made.inertia[0, 0] != -5.0
    assert np.array_equal(bp.inverse_dynamics(bp.Model(arm), q, zero, zero), before)
    with pytest.raises(ValueError):                        # the fields themselves are read-only, as the class is frozen
        made.com[0] = 1.0
    # a list or a Fraction mass: the documented kinds (float, arrays of shapes (3,) and (3, 3))
    listed = bp.Inertia(fractions.Fraction(1, 2), [0.0, 0.1, 0.0], np.eye(3).tolist())
    assert type(listed.mass) is float and listed.com.shape == (3,) and listed.inertia.shape == (3, 3)
    assert listed == bp.Inertia(0.5, np.array([0.0, 0.1, 0.0]), np.eye(3))
    prior = [0.1, 0.2]                                     # a joint's friction prior of a list: kept as a tuple
    joint = dataclasses.replace(robot.joints[0], friction_prior=prior)
    prior[0] = -5.0
    assert joint.friction_prior == (0.1, 0.2)


@pytest.mark.parametrize("substeps", [IntSub(2), np.uint8(2), np.int64(2)])
def test_rk4_counts_substeps_of_any_integer_kind(planar, substeps):
    """``ForwardDynamics.rk4`` and ``simulate(method='rk4')`` refused an int subclass of 2 as "expected an integer ≥ 1,
    got 2" (a check of ``type(x) is int``); a numpy duration (an integer type to numpy) reached ctypes' "argument 3:
    TypeError: wrong type"."""
    model = planar[0]
    fd = bp.ForwardDynamics(model)

    def run(count):
        q, qd = np.zeros((3, 3)), np.zeros((3, 3))
        fd.rk4(q, qd, np.full(2, 0.01), np.ones((2, 3)), count)
        return q
    assert np.array_equal(run(substeps), run(2))
    t = np.linspace(0.0, 0.1, 11)
    assert np.array_equal(bp.simulate(model, t, planar[1][0], planar[2][0], method="rk4", substeps=substeps).q,
                          bp.simulate(model, t, planar[1][0], planar[2][0], method="rk4", substeps=2).q)
    with pytest.raises(bp.ArgumentError, match=r"^substeps: expected an integer ≥ 1, got np.timedelta64\(2"):
        run(np.timedelta64(2, "s"))


def test_an_angle_tolerance_of_a_fraction_is_the_float(tmp_path):
    """``load_robot(URDF, angle_tolerance=Fraction(1, 10**6))`` checked the tolerance and went on with the Fraction:
    the note on the angles it snapped formatted it with ``:g``, a bare TypeError."""
    path = tmp_path / "arm.urdf"
    inertial = ('<inertial><mass value="1"/><origin xyz="0.1 0 0"/><inertia ixx="0.01" iyy="0.01" izz="0.01" '
                'ixy="0" ixz="0" iyz="0"/></inertial>')
    limit = '<axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="1" effort="1"/>'
    path.write_text(f'<robot name="arm"><link name="base"/><link name="l1">{inertial}</link><link name="l2">'
                    f'{inertial}</link><joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>{limit}'
                    '</joint><joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.3 '
                    f'0 0" rpy="1.57079632679 0 0"/>{limit}</joint></robot>')
    with pytest.warns(bp.RoundOffWarning, match=r"arm.urdf: 1 angle within 1e-06 rad of multiples of 15°"):
        robot = bp.load_robot(path, angle_tolerance=fractions.Fraction(1, 10 ** 6))
    assert robot == bp.load_robot(path, angle_tolerance=1e-6)


def test_numpy_small_integers_are_kept_as_ints(planar):
    """A seed of ``np.uint8(255)`` stayed the field of SensorNoise; ``compare_motions`` adds 1000 and the draw's
    number to it: a bare OverflowError (or, below 1000, a seed that wraps around: other noise than asked for). The
    settings that are counts keep the int they were checked as (Preprocessing's filter_order and decimate, numpy's
    True as True)."""
    noise = bp.SensorNoise(tau=0.01, seed=np.uint8(255))
    assert type(noise.seed) is int and noise == bp.SensorNoise(tau=0.01, seed=255)
    settings = bp.Preprocessing(resample=np.True_, filter_order=np.uint8(4), decimate=np.int16(1),
                                filter_friction=np.True_)
    assert settings == bp.Preprocessing()
    assert [type(v) for v in (settings.resample, settings.filter_order, settings.decimate,
                              settings.filter_friction)] == [bool, int, int, bool]


# -- the harness: the same value in another kind ------------------------------------------------------------------
def same_values(value):
    """(label, the same value in another kind, relative tolerance) — what a user may hand over for ``value``."""
    out = []
    if isinstance(value, np.ndarray):
        read_only = value.copy()
        read_only.flags.writeable = False
        out += [("read-only", read_only, 0), ("Fortran", np.asfortranarray(value), 0),
                ("strided", np.repeat(value, 2, axis=-1)[..., ::2], 0), ("big-endian", value.astype(">f8"), 0),
                ("object", value.astype(object), 0), ("list", value.tolist(), 0), ("subclass", value.view(SubArray), 0),
                ("masked, no mask", np.ma.masked_array(value, np.zeros(value.shape, bool)), 0),
                ("long double", value.astype(np.longdouble), 1e-12), ("float32", value.astype(np.float32), 1e-3)]
    elif isinstance(value, bool):
        out += [("np.bool_", np.bool_(value), 0)]
    elif isinstance(value, int):
        out += [("np.int64", np.int64(value), 0), ("np.uint8", np.uint8(value), 0), ("int subclass", IntSub(value), 0)]
    elif isinstance(value, float):
        out += [("np.float64", np.float64(value), 0), ("Fraction", fractions.Fraction(value), 0),
                ("float subclass", FloatSub(value), 0), ("np.float32", np.float32(value), 1e-6)]
    elif isinstance(value, str):
        out += [("np.str_", np.str_(value), 0), ("str subclass", StrSub(value), 0)]
    return out


def numbers_of(result):
    """The numbers of a result (arrays, tuples, the fields of the library's dataclasses), as float arrays in order."""
    if isinstance(result, bp.Model):
        return numbers_of(result.values())
    if isinstance(result, np.ndarray):
        return [np.asarray(result, dtype=float).ravel()]
    if isinstance(result, numbers.Real) and not isinstance(result, bool):    # a Fraction kept as given: its value
        return [np.array([float(result)])]
    if isinstance(result, (tuple, list)):
        return [x for item in result for x in numbers_of(item)]
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return [x for f in dataclasses.fields(result) for x in numbers_of(getattr(result, f.name))]
    return []


def _calls(planar):
    """label → (function, arguments, options) of cheap calls that work."""
    model, q, qd, qdd, tau = planar
    series = bp.FourierSeries(2.0, np.zeros(3), np.full((3, 2), 0.1), np.full((3, 2), 0.05))
    return {"inverse_dynamics": (bp.inverse_dynamics, (model, q, qd, qdd), {}),
            "regressor": (bp.regressor, (model, q, qd, qdd), {}),
            "mass_matrix": (bp.mass_matrix, (model, q), {}),
            "coriolis_torque": (bp.coriolis_torque, (model, q, qd), {}),
            "kinetic_energy": (bp.kinetic_energy, (model, q, qd), {}),
            "potential_energy": (bp.potential_energy, (model, q), {}),
            "forward_dynamics": (bp.forward_dynamics, (model, q, qd, tau), {}),
            "velocities_from_momenta": (bp.velocities_from_momenta, (model, q, bp.generalized_momenta(model, q, qd)),
                                        {"solver": "ltdl"}),
            "slotine_li_regressor": (bp.slotine_li_regressor, (model, q, qd, qd, qdd), {}),
            "reaction_wrenches": (bp.reaction_wrenches, (model, q, qd, qdd), {"frame": "link"}),
            "Model": (bp.Model, (model.robot, model.values()), {}),
            "simulate": (bp.simulate, (model, np.linspace(0.0, 0.1, 11), q[0], qd[0]),
                         {"method": "rk4", "substeps": 2}),
            "FourierSeries": (bp.FourierSeries, (2.0, np.zeros(3), np.full((3, 2), 0.1), np.full((3, 2), 0.05)), {}),
            "FourierSeries.evaluate": (series.evaluate, (np.linspace(0.0, 2.0, 7),), {}),
            "Preprocessing": (bp.Preprocessing, (), {"cutoff_hz": 5.0, "filter_order": 4, "decimate": 1,
                                                     "resample": True, "filter_friction": True}),
            "SensorNoise": (bp.SensorNoise, (), {"q": 0.001, "tau": 0.01, "seed": 3}),
            "Inertia": (bp.Inertia, (1.0, np.array([0.1, 0.0, 0.0]), np.eye(3) * 0.01), {})}


def _outcome(f, args, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(*args, **options)
        except (bp.BaseParamError, TypeError) as exc:
            assert own_error(exc), f"{type(exc).__name__} not raised by the library's checks: {exc}"
            assert "\n" not in str(exc), repr(exc)
            return None


def test_the_same_value_in_another_kind_gives_the_same_answer(planar):
    """Each argument of each call replaced by the same value in another kind: the same numbers (within the kind's
    precision), or the library's own refusal in one line; never another exception, never other numbers; the
    caller's arrays unchanged by the call."""
    failures, compared = [], 0
    for label, (f, args, options) in _calls(planar).items():
        plain = numbers_of(_outcome(f, args, options))
        assert plain and all(np.isfinite(x).all() for x in plain), label
        slots = [(k, v) for k, v in enumerate(args)] + list(options.items())
        for key, value in slots:
            for kind, other, tolerance in same_values(value):
                given_args, given_options = list(args), dict(options)
                if isinstance(key, int):
                    given_args[key] = other
                else:
                    given_options[key] = other
                kept = [np.array(a, copy=True) for a in given_args if isinstance(a, np.ndarray)]
                try:
                    result = _outcome(f, given_args, given_options)
                except Exception as exc:                   # noqa: BLE001 - a bare error is the finding
                    failures.append(f"{label}[{key}] {kind}: {type(exc).__name__}: {exc}"[:300])
                    continue
                if any(not np.array_equal(a, b) for a, b in
                       zip([a for a in given_args if isinstance(a, np.ndarray)], kept)):
                    failures.append(f"{label}[{key}] {kind}: the caller's array changed")
                if result is None:
                    continue
                compared += 1
                numbers = numbers_of(result)
                same = len(numbers) == len(plain) and finite(result) and all(
                    x.shape == y.shape and np.allclose(x, y, rtol=max(tolerance, 1e-12),
                                                       atol=max(tolerance, 1e-12) * (np.abs(y).max(initial=0) + 1e-300))
                    for x, y in zip(numbers, plain))
                if not same:
                    failures.append(f"{label}[{key}] {kind}: other numbers than the plain call's")
    assert not failures, "\n".join(failures)
    assert compared > 150                                  # most kinds are taken, not refused


def test_a_robot_that_never_moves_leaves_its_unseen_parameters_at_zero():
    """A log of a robot standing still (positions constant, velocities differentiated from them): the inertia
    columns of the regressor are round-off (~1e-13 against 1e2); equilibrated, each became a unit column of noise,
    and the fit said "set by a minimum-norm choice" with XX1 = -1.3e13, XX2 = 3.8e12 … Now a column below 1e-12
    of the largest in norm (``_least_squares.ROUND_OFF_COLUMN``) is unseen: its parameter 0, the fit the least-
    squares one of the columns the data see (numpy's lstsq of the base regressor agrees on the residual)."""
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 100, 0.02)
    base = bp.find_base_parameters(robot)
    still = np.full_like(q, 0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bp.identify(robot, bp.Trajectory(t, still, tau), base=base, preprocessing=None)
    estimator = fit.estimator
    unseen = [estimator.names_.index(n) for n in ("XX1", "XX2", "XX3")]
    assert np.all(estimator.coef_[unseen] == 0.0) and np.isfinite(estimator.coef_).all()
    assert np.abs(estimator.coef_).max() < 1e3
    W = base.regressor(still, np.zeros_like(q), np.zeros_like(q)).reshape(-1, base.rank)
    x, *_ = np.linalg.lstsq(W, tau.reshape(-1), rcond=None)
    best = np.linalg.norm(W @ x - tau.reshape(-1))
    ours = np.linalg.norm(W @ estimator.coef_ - tau.reshape(-1))
    assert ours <= best * (1 + 1e-9)


@pytest.mark.parametrize("start", [1e9, 1e300])
def test_rk4_says_when_the_motion_diverged(planar, start):
    """``ForwardDynamics.rk4`` from a velocity of 1e9 (or 1e300) wrote NaN into the caller's q and q̇ and returned:
    the one-sample call refuses such a state, simulate says "diverged"; rk4 now says it too (a NaN or inf given is
    the caller's ArgumentError). simulate, which steps unchecked and says when, is unchanged."""
    fd = bp.ForwardDynamics(planar[0])
    q, qd = np.zeros((4, 3)), np.zeros((4, 3))
    qd[0] = start
    with pytest.raises(bp.SimulationError, match=r"^rk4: the motion diverged \(a state not finite after interval 0\)"):
        fd.rk4(q, qd, np.full(3, 0.01), np.ones((3, 3)), 2)
    qd[0] = np.nan
    with pytest.raises(bp.ArgumentError, match=r"^q, qd, dt, tau: NaN or inf in the start \(row 0\)"):
        fd.rk4(q, qd, np.full(3, 0.01), np.ones((3, 3)), 2)
    # finite steps: as before, and as simulate's (its own loop over the same steps)
    t = np.arange(11) * 0.01
    q, qd = np.zeros((11, 3)), np.zeros((11, 3))
    fd.rk4(q, qd, np.diff(t), np.zeros((10, 3)), 2)
    simulated = bp.simulate(planar[0], t, np.zeros(3), np.zeros(3), method="rk4", substeps=2)
    assert np.array_equal(simulated.q, q)


@pytest.mark.parametrize("sums", [[1.0, -np.inf, 1.0], [1.0, np.nan, 1.0], [1.0, -1.0, 1.0]])
def test_nrmse_refuses_what_is_no_sum_of_squares(sums):
    """``evaluation.nrmse`` took a sum of squares of -inf, NaN or -1 and returned NaN figures (an overflow to +inf, then
    kept as a pooled figure of 0, is refused since round 17: test_fuzz_round17_leftapi)."""
    from baseparam.evaluation import nrmse
    with pytest.raises(bp.ArgumentError, match=r"^t2: expected sums of squares \(numbers ≥ 0\), got"):
        nrmse(np.ones(3), np.array(sums))


@pytest.fixture(scope="module")
def payload_fit():
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 100, 0.02)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model, bp.identify_payload(model, bp.Trajectory(t, q, tau * 1.1), preprocessing=None)


def _texts(result, *calls):
    return [repr(result)] + [str(call(result)) for call in calls]


def _vendor_or_refusal(result):
    """to_vendor('ur'), or its refusal's words (this planar arm's centre of mass is undetermined: no vendor format)."""
    try:
        return result.to_vendor("ur")
    except bp.DataError as error:
        return str(error)


@pytest.mark.parametrize("field, kind", [("com", list), ("inertia", lambda a: a.tolist()), ("parameters", tuple),
                                         ("rmse", list), ("mass", fractions.Fraction), ("mass", np.float32),
                                         ("mode", np.str_), ("n_samples", np.int64), ("inertia",
                                                                                    lambda a: a.astype(object))])
def test_a_payload_result_built_by_hand_of_other_kinds_answers_as_the_fitted_one(payload_fit, field, kind):
    """A PayloadResult built by hand (the class is public) with a list or a tuple where the fit keeps an array: its
    summary, to_dict, to_vendor, attach failed on ``.tolist()``/``.T`` (bare AttributeError), an object array in
    numpy's eigh, a Fraction mass on ``:g``. The fields are now kept as the library keeps them (float arrays, float,
    int, str): the same texts and numbers as the fitted result (np.float32: the float it stands for)."""
    model, fit = payload_fit
    made = dataclasses.replace(fit, **{field: kind(getattr(fit, field))})
    expected = fit if kind is not np.float32 else dataclasses.replace(fit, mass=float(np.float32(fit.mass)))
    calls = (lambda r: r.summary(), lambda r: r.to_dict(), _vendor_or_refusal,
             lambda r: bp.inverse_dynamics(r.attach(model), np.full(3, 0.2), np.zeros(3), np.zeros(3)))
    assert _texts(made, *calls) == _texts(expected, *calls)
    assert type(made.mass) is float and all(isinstance(getattr(made, name), np.ndarray) and
                                            getattr(made, name).dtype == float
                                            for name in ("com", "inertia", "parameters", "rmse"))


def test_fit_errors_built_by_hand_of_other_kinds_answer_as_plain_ones():
    """``FitErrors`` of an object array of standard deviations reached numpy's isfinite (bare TypeError); one of a
    Fraction figure broke ``:g`` in its text."""
    from baseparam.simulation.experiment import FitErrors
    plain = FitErrors("ols", ("a", "b"), np.array([1.0, 2.0]), np.array([0.1, np.inf]), np.array([1.1, 2.0]), 10.0,
                      0.5, 1.5, None)
    made = FitErrors(np.str_("ols"), ("a", "b"), [1.0, 2.0], np.array([0.1, np.inf], dtype=object), (1.1, 2.0),
                     fractions.Fraction(10), np.float32(0.5), 1.5, None)
    assert repr(made) == repr(plain)
    assert made.sigma_errors.tolist() == plain.sigma_errors.tolist() and made.within_3_sigma == plain.within_3_sigma
    assert made.parameter_error == plain.parameter_error


def test_the_urdf_reader_refuses_what_is_no_text():
    """``baseparam.model.urdf.parse_urdf(0.1)`` (the reader ``load_robot`` and ``parse_robot`` call): a bare
    TypeError from ``len()``."""
    from baseparam.model.urdf import parse_urdf
    with pytest.raises(bp.ArgumentTypeError, match=r"^data: expected the URDF's text \(str or bytes\), got float$"):
        parse_urdf(0.1)


@pytest.mark.parametrize("value, words", [(__import__("decimal").Decimal("2"), r"Decimal\('2'\) \(a Decimal: give an "
                                                                               r"int or a float\)$"),
                                          (1 + 2j, r"\(1\+2j\) \(a complex: give an int or a float\)$")])
def test_a_number_of_another_kind_is_refused_for_its_kind(value, words):
    """``FourierSeries(period=Decimal('2'))`` said "expected a period > 0 in s, got Decimal('2')": 2 is > 0; the
    refusal is of the kind, and says so (check_number, every number setting)."""
    with pytest.raises(bp.ArgumentError, match=r"^period: expected a period > 0 in s, got " + words):
        bp.FourierSeries(value, np.zeros(3), np.full((3, 2), 0.1), np.full((3, 2), 0.05))


def test_an_identification_of_numpy_texts_reads_as_one_of_plain_texts():
    """``bp.identify(method=np.str_('wls'))``: the estimator keeps its settings as given (scikit-learn's clone wants
    them so), and the result showed ``method=np.str_('wls')``; identify and identify_logs hand it plain texts."""
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 60, 0.02)
    log = bp.Trajectory(t, q, tau)
    base = bp.find_base_parameters(robot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = bp.identify(robot, log, base=base, method="wls", preprocessing=None)
        given = bp.identify(robot, log, base=base, method=np.str_("wls"), parameters=StrSub("pseudo"),
                            preprocessing=None)
        logs = bp.identify_logs(robot, [log, log], base=base, method=np.str_("wls"), preprocessing=None)
    assert repr(given) == repr(plain) and given.summary() == plain.summary()
    assert type(given.estimator.method) is str and type(logs.estimator.method) is str
