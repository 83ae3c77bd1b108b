"""Regressions of the Python API's fuzzing in issue 28's ninth round (IMU bases, mimic joints, payload writers,
floating bases, exported code, the one-sample forward dynamics): each case below returned NaN or inf, or raised
something other than the library's one-line errors, before its fix. The fuzzer itself was a throwaway (thousands of
calls with arrays of odd sizes, containers and values, random URDFs with odd ``<mimic>`` elements, every file written
read back); the hypothesis tests here keep a few examples of each family, bounded in time (no deadline,
derandomized)."""
import importlib.util
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.errors import BaseParamError
from baseparam.identification.imu import base_from_imu
from conftest import ROOT
from test_fuzz_api import finite, own_error

FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
RRR = ROOT / "robots" / "planar_rrr.yaml"
RRR_BASE = bp.find_base_parameters(bp.load_robot(RRR))
HUGE = [1e154, -1e200, 1e300, np.inf, np.nan]


def finite_or_refused(action):
    """The result of ``action`` if all finite, None if it raised the library's error in one line; else fail."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = action()
        except BaseParamError as exc:
            assert "\n" not in str(exc), repr(exc)
            return None
    for value in result if isinstance(result, tuple) else (result,):
        assert np.isfinite(value).all(), result
    return result


# -- the compiled forward dynamics of one sample, and of a batch --------------------------------------------------
def singular_model():
    """The planar arm of physical bodies with its last link massless (no rotor inertia): M(q) singular at every q;
    a robot object of its own, so that its kernel is not compiled yet."""
    from conftest import planar_arm
    model = bp.Model(planar_arm())
    p = model.values().copy()
    p[bp.ColumnLayout(model.robot).link_columns[2]] = 0.0
    return bp.Model(model.robot, p)


@pytest.mark.parametrize("native", [False, True])
def test_forward_dynamics_object_refuses_a_singular_inertia_instead_of_returning_nan(native):
    """``bp.forward_dynamics`` refused a singular M(q), while ``ForwardDynamics(model)(q, q̇, τ)`` — the C kernel
    or, before it is compiled, the straight-line Python — returned NaN, as did its ``batch``."""
    fd = bp.ForwardDynamics(singular_model(), native=native)
    assert native or fd.backend == "python"
    zero = np.zeros(3)
    with pytest.raises(bp.ArgumentError, match=r"^p: the joint-space inertia M\(q\) is singular: q̈ is not finite"):
        fd(zero, zero, zero)
    with pytest.raises(bp.ArgumentError, match=r"M\(q\) is singular at sample 0"):
        fd.batch(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3)))
    # the same words as the checked function's
    with pytest.raises(bp.ArgumentError, match=r"^p: the joint-space inertia M\(q\) is singular: q̈ is not finite"):
        bp.forward_dynamics(fd.model, zero, zero, zero)


FD_GOOD = bp.ForwardDynamics(bp.Model(bp.load_robot(RRR), np.random.default_rng(8).uniform(
    0.1, 1.0, bp.ColumnLayout(bp.load_robot(RRR)).n_standard)))


@FUZZ
@given(values=st.lists(st.sampled_from([0.0, 0.5, -2.0, 1e7, 1e154, -1e300, np.inf, np.nan]), min_size=9,
                       max_size=9),
       rows=st.sampled_from([None, 1, 3]), container=st.sampled_from(["array", "list", "float32", "int"]))
def test_forward_dynamics_object_answers_finite_or_refuses_in_one_line(values, rows, container):
    """Any numbers in, one sample or a batch, any container: q̈ finite, or the library's one-line error."""
    fd = FD_GOOD
    x = np.array(values).reshape(3, 3)
    if rows is not None:
        x = np.repeat(x[:, None, :], rows, axis=1)
    if container == "list":
        args = [a.tolist() for a in x]
    elif container == "float32":
        with np.errstate(over="ignore"):
            args = [a.astype(np.float32) for a in x]
    elif container == "int":
        args = [np.nan_to_num(a).clip(-100, 100).astype(int) for a in x]
    else:
        args = list(x)
    finite_or_refused(lambda: fd(*args) if rows is None else fd.batch(*args))


def test_simulating_a_singular_inertia_is_still_the_simulations_divergence():
    """The one-sample call now refuses a singular M(q); the integrator that calls it says the motion diverged, as
    before (a SimulationError, not the call's ArgumentError)."""
    with pytest.raises(bp.SimulationError, match="diverged"):
        bp.simulate(singular_model(), np.linspace(0, 0.1, 10), np.zeros(3), np.zeros(3))


# -- the base of an IMU --------------------------------------------------------------------------------------------
def imu_readings(S=5, spacing=0.01, scale=1.0):
    t = np.arange(S) * spacing
    rng = np.random.default_rng(3)
    quat = rng.normal(size=(S, 4))
    return t, quat / np.linalg.norm(quat, axis=1, keepdims=True), scale * rng.normal(size=(S, 3)), \
        rng.normal(size=(S, 3)) + [0, 0, 9.81]


@pytest.mark.parametrize("change", ["close_stamps", "huge_rates", "huge_arm"])
def test_imu_readings_whose_base_motion_overflows_are_refused(change):
    """Finite readings gave a base acceleration of inf or NaN: rates differentiated over stamps 1e-300 s apart,
    rates of 1e200 crossed with themselves (ω × (ω × r)), a lever arm of 1e300."""
    t, quat, omega, force = imu_readings(spacing=1e-300 if change == "close_stamps" else 0.01,
                                         scale=1e200 if change == "huge_rates" else 1.0)
    options = {"position": (0.1, 0.0, 0.0)} if change == "huge_rates" else {}
    if change == "huge_arm":
        options = {"position": (1e300, 1e300, 0.0)}
        omega[:] = 1e10
    with pytest.raises(bp.DataError, match=r"^<imu>: sample \d+: the base's rate or acceleration .* not finite"):
        base_from_imu(t, quat, omega, force, **options)


@FUZZ
@given(S=st.sampled_from([2, 3, 6]), spacing=st.sampled_from([1e-3, 1e-300, 1e300]),
       scale=st.sampled_from([1.0, 1e100, 1e160, 1e300]), special=st.sampled_from([None, *HUGE]),
       where=st.integers(0, 3), oriented=st.booleans(), arm=st.sampled_from([0.0, 0.1, 1e200]))
def test_base_from_imu_answers_finite_or_refuses_in_one_line(S, spacing, scale, special, where, oriented, arm):
    t, quat, omega, force = imu_readings(S, spacing, scale)
    if special is not None:
        [t, quat, omega, force][where].flat[-1] = special
    finite_or_refused(lambda: base_from_imu(t, quat if oriented else None, omega, force, position=(arm, 0.0, 0.0)))


# -- exported code ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export")
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "ppr.yaml"))
    bp.export(base, "python", what=("regressor", "inverse_dynamics"), out_dir=str(folder))
    spec = importlib.util.spec_from_file_location("ppr_dynamics", folder / "baseparam_dynamics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("value", [1e154, -1e200, 1.5e8])
def test_exported_python_refuses_states_beyond_the_librarys_bound(exported, value):
    """The exported module took any finite state: 1e154 squared to inf, and NaN came out of a chain with a
    prismatic joint (inf − inf). It refuses what ``bp.inverse_dynamics`` refuses, |x| > 1e8."""
    q = np.array([0.1, 0.2, 0.3])
    for k in range(3):
        args = [q.copy() for _ in range(3)]
        args[k][1] = value
        with pytest.raises(ValueError, match=r"a non-finite value, or a value beyond ±1e\+08"):
            exported.regressor(*args)
        with pytest.raises(ValueError, match=r"beyond ±1e\+08"):
            exported.regressor(*(np.array([a, q]) for a in args))
    at_bound = exported.regressor(np.full(3, 1e8), np.full(3, -1e8), np.full(3, 1e8))
    assert np.isfinite(at_bound).all()


@pytest.mark.parametrize("value", [np.nan, np.inf, 1e154])
def test_exported_python_refuses_base_parameters_that_are_not_finite_or_absurd(exported, value):
    """``inverse_dynamics(q, q̇, q̈, p_base)`` checked the states only: NaN in p_base came out as NaN torques."""
    p = np.ones(exported.N_BASE)
    q = np.array([0.1, 0.2, 0.3])
    assert np.isfinite(exported.inverse_dynamics(q, q, q, p)).all()
    p[-1] = value * (1e-53 if value == 1e154 else 1)        # 1e101: beyond the library's bound on parameters
    with pytest.raises(ValueError, match=r"^p_base: a non-finite value, or a value beyond ±1e\+100"):
        exported.inverse_dynamics(q, q, q, p)


# -- public names of the subpackages given arguments of the wrong kind --------------------------------------------
def test_check_motion_of_what_is_no_motion_is_a_type_error():
    """``baseparam.motion.check_motion(inf)``: AttributeError ('float' object has no attribute '_error')."""
    from baseparam.motion import check_motion
    for value in (np.inf, None, np.zeros((3, 2)), "t"):
        with pytest.raises(bp.ArgumentTypeError, match="^motion: expected a baseparam.Trajectory, got "):
            check_motion(value)


def test_reaction_wrenches_frame_of_an_array_is_refused_in_one_line():
    """``frame not in ('link', 'joint')`` of an array: numpy's 'truth value of an array is ambiguous' ValueError."""
    model = bp.Model(bp.load_robot(RRR), np.ones(bp.ColumnLayout(bp.load_robot(RRR)).n_standard))
    for frame in (np.zeros(2), np.array("link"), ["link"]):
        with pytest.raises(bp.ArgumentError, match="^frame: expected 'link' or 'joint', got "):
            bp.reaction_wrenches(model, np.zeros(3), np.zeros(3), np.zeros(3), frame)


def test_imu_mounting_of_no_robot_or_no_link_name_says_so_in_one_line():
    """``imu_mounting(model, 'imu')``: AttributeError (a Model has no ``name``); a frame that is a Trajectory was
    shown by its repr, over several lines."""
    from baseparam.identification.imu import imu_mounting
    robot = bp.load_robot(RRR)
    with pytest.raises(bp.ArgumentTypeError, match="^robot: expected a baseparam.Robot, got Model"):
        imu_mounting(bp.Model(robot, np.ones(bp.ColumnLayout(robot).n_standard)), "imu")
    t = np.arange(12) * 0.01
    with pytest.raises(bp.SettingsError, match="^imu_frame: expected a link name") as info:
        imu_mounting(robot, bp.Trajectory(t, np.zeros((12, 3))))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("call", [
    lambda ev: ev.relative_scale("pseudo"), lambda ev: ev.relative_scale([np.nan, 1.0]),
    lambda ev: ev.nrmse("a\nb", [1.0]), lambda ev: ev.nrmse([1.0, 2.0], np.ones(3)),
    lambda ev: ev.fit_errors(b"x", np.ones(3)), lambda ev: ev.fit_errors(np.ones(2), np.ones(3)),
    lambda ev: ev.fit_errors(np.ones(3), np.zeros(3)),
    lambda ev: ev.fit_errors(np.ones(3), np.ones(3), np.ones((4, 2)))])
def test_evaluation_figures_of_bad_arrays_are_refused_in_one_line(call):
    """``baseparam.evaluation``'s public functions took anything to np.asarray: ValueError of numpy (text,
    broadcasting), and NaN or inf figures of a zero truth."""
    from baseparam import evaluation
    with pytest.raises(bp.ArgumentError) as info:
        call(evaluation)
    assert "\n" not in str(info.value)


def test_evaluation_figures_stay_as_they_were():
    from baseparam import evaluation
    truth, estimate = np.array([1.0, -2.0, 0.0]), np.array([1.1, -2.0, 0.001])
    figures = evaluation.fit_errors(estimate, truth, np.eye(3)[None].repeat(2, 0))
    d = estimate - truth
    assert figures.parameter_error == np.linalg.norm(d) / np.linalg.norm(truth)
    np.testing.assert_array_equal(figures.relative_errors, np.abs(d) / np.maximum(np.abs(truth),
                                                                                   1e-3 * np.linalg.norm(truth)))
    assert figures.torque_error == pytest.approx(np.linalg.norm(d) / np.linalg.norm(truth))
    per_joint, pooled = evaluation.nrmse([1.0, 0.0], [4.0, 0.0])
    assert per_joint[0] == 0.5 and np.isnan(per_joint[1]) and pooled == 0.5       # NaN where Στ² = 0: documented


@pytest.mark.parametrize("field,value", [("q", np.nan), ("tau", -1.0), ("qd", np.inf), ("resolution", [[1e-3]]),
                                         ("current", "x")])
def test_sensor_noise_of_bad_numbers_is_refused_when_made(field, value):
    """``bp.SensorNoise(q=nan)`` was made, holding NaN, and refused only when a simulation used it."""
    with pytest.raises(bp.ArgumentError, match=f"^noise.{field}: "):
        bp.SensorNoise(**{field: value})
    assert bp.SensorNoise(**{field: [0.0, 1e-3]}) is not None


@pytest.mark.parametrize("imu", [False, True])
def test_preprocess_of_a_floating_motion_is_refused_in_one_line(imu):
    """``bp.preprocess`` of a floating-base motion (an IMU's too) with logged velocities: numpy's 'operands could
    not be broadcast together with shapes (400,9) (400,10)' (q̇ is one column narrower than q), a ValueError."""
    from baseparam.identification.imu import ImuTrajectory
    t = np.arange(40) * 0.01
    q = np.zeros((40, 10))
    q[:, 6] = 1.0
    q[:, 7:] = np.sin(np.outer(t, [1.0, 2.0, 3.0]))
    kind = ImuTrajectory if imu else bp.Trajectory
    motion = kind(t, q, np.ones((40, 9)), qd=np.ones((40, 9)), floating=True, source="walk.mcap")
    with pytest.raises(bp.DataError, match=r"^walk.mcap: a floating-base motion .*preprocess: fixed-base robots"):
        bp.preprocess(motion)


def test_rk4_of_arrays_it_cannot_step_in_place_is_refused_not_a_crash():
    """``ForwardDynamics.rk4`` hands its arrays to the C loop by address: a dt longer than q's rows made it write
    beyond q (a segmentation fault, the process gone), lists were an AttributeError, 10⁹ substeps a loop Ctrl-C
    cannot stop. Each is now one line; the arrays simulate gives it still step, the same numbers."""
    fd = FD_GOOD
    q, qd, dt, tau = np.zeros((3, 3)), np.zeros((3, 3)), np.full(2, 0.01), np.ones((2, 3))
    cases = [((q, qd, np.full(10 ** 6, 0.01), tau), "q, qd, tau: expected"),
             (([0.0] * 3, qd, dt, tau), "^q: expected a writable C-contiguous float64"),
             ((q, qd.astype(np.float32), dt, tau), "^qd: expected"),
             ((q, qd, dt, np.ones((3, 2))[:, :1].T.copy().reshape(1, 3)), "for intervals 0..1"),
             ((q, np.asfortranarray(np.zeros((3, 3)))[:, ::-1], dt, tau), "^qd: expected"),
             ((q, qd, dt, tau, 10 ** 8), "more than 1e\\+07 RK4 steps"),
             ((q, qd, dt, tau, 0), "^substeps: expected an integer ≥ 1"),
             ((q, qd, dt, tau, True), "^substeps: expected an integer ≥ 1"),
             ((q, qd, dt, tau, 1, 2), r"^rows: expected an interval 0 ≤ rows < 2")]
    for args, words in cases:
        with pytest.raises(bp.ArgumentError, match=words):
            fd.rk4(*args)
    qd[0] = 1.0
    fd.rk4(q, qd, dt, tau, 2)
    expected = bp.simulate(fd.model, np.linspace(0, 0.09, 10), q[0], qd[0], tau[0], method="rk4", substeps=2)
    np.testing.assert_allclose(q[1], expected.q[1], rtol=1e-12, atol=1e-15)
    q[2] = 7.0
    fd.rk4(q, qd, dt, tau, 2, 0)            # one interval: row 2 untouched
    assert (q[2] == 7.0).all()
    np.testing.assert_allclose(q[1], expected.q[1], rtol=1e-12, atol=1e-15)


def test_rk4_of_an_array_reshaped_in_place_after_a_call_is_checked_again():
    """``ForwardDynamics.rk4`` keeps the arrays it checked (weakly) with their sizes, to skip the check when simulate
    hands it the same ones interval by interval: q reshaped in place (``q.shape = (1, 15)``, the same object and
    size) was then taken with the old widths and row count, and the C loop wrote its rows beyond q's end."""
    fd = FD_GOOD
    q, qd, dt, tau = np.zeros((5, 3)), np.zeros((5, 3)), np.full(4, 0.01), np.ones((4, 3))
    fd.rk4(q, qd, dt, tau)
    q.shape = (1, 15)
    with pytest.raises(bp.ArgumentError, match=r"^q, qd, tau: expected shapes \(n \+ 1, 3\)"):
        fd.rk4(q, qd, dt, tau)


def test_rk4_keeps_the_addresses_of_arrays_numpy_cannot_move():
    """``ForwardDynamics.rk4`` keeps the addresses of the arrays it checked, not only their shapes (asking numpy for
    them at each interval was a quarter of a controller's step): sound only while no buffer can move, which
    ndarray.resize would do. Numpy refuses to resize an array a weak reference points at, even told
    ``refcheck=False``; and a new array of the same shape (another address) is stepped where it is."""
    fd = FD_GOOD
    q, qd, dt, tau = np.zeros((5, 3)), np.ones((5, 3)), np.full(4, 0.01), np.ones((4, 3))
    fd.rk4(q, qd, dt, tau)
    for x in (q, qd, dt, tau):
        with pytest.raises(ValueError, match="cannot resize"):
            x.resize((50,) + x.shape[1:], refcheck=False)
    other_q, other_qd = np.zeros((5, 3)), np.ones((5, 3))
    fd.rk4(other_q, other_qd, dt, tau)
    assert (other_q == q).all() and (other_qd == qd).all() and (other_q[1:] != 0).any()


def test_reports_of_bodies_from_a_least_squares_fit_say_so():
    """``prior_text()`` and ``consistent_report()`` of an OLS fit: AttributeError ('…' has no attribute
    'consistent_'); they now say what ``to_yaml`` says of such a fit."""
    robot = bp.load_robot(RRR)
    t = np.arange(40) * 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bp.identify(robot, bp.Trajectory(t, np.sin(np.outer(t, [1, 2, 3])), np.cos(np.outer(t, [1, 2, 3]))),
                          preprocessing=None)
    for method in (fit.prior_text, fit.consistent_report):
        with pytest.raises(bp.ArgumentError, match=f"^{method.__name__}: method='ols' estimates base parameters, "
                                                   "not bodies"):
            method()
    assert "consistent" not in fit.summary()


@pytest.mark.parametrize("value", ["pseudo", np.nan, np.inf, None, True, 1 + 2j])
def test_robot_exact_value_of_what_is_no_finite_number_is_refused_in_one_line(value):
    """``Robot.exact_value('pseudo')`` and of NaN or inf: Fraction's ValueError ('Invalid literal', 'cannot
    convert NaN to integer ratio')."""
    robot = bp.load_robot(RRR)
    with pytest.raises(bp.ArgumentError, match="^value: expected a finite number, got "):
        robot.exact_value(value)
    assert robot.exact_value(0.1) == robot.exact_value(np.float64(0.1)) == bp.model.robot.Fraction(1, 10)


# -- mimic joints of odd kinds, and what is written of such robots read back ----------------------------------------
ODD_NUMBERS = ["0", "-1", "nan", "inf", "1e300", "1e-320", "x", "", "0.5"]


@st.composite
def mimic_urdfs(draw):
    """A URDF of 1-4 joints (some fixed), each moving one perhaps a ``<mimic>`` of a joint of the file, of itself, of
    a missing or a fixed joint, in a cycle, with odd multipliers and offsets; floating at the root or not."""
    n = draw(st.integers(1, 4))
    kinds = [draw(st.sampled_from(["revolute", "continuous", "prismatic", "fixed"])) for _ in range(n)]
    links = ['<link name="base"><inertial><mass value="3"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" '
             'izz="1"/></inertial></link>']
    joints = []
    for k, kind in enumerate(kinds):
        parent = "base" if k == 0 else f"l{draw(st.integers(0, k - 1))}"
        links.append(f'<link name="l{k}"><inertial><origin xyz="0.1 0 0.05"/><mass value="1"/><inertia ixx="0.1" '
                     'ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>')
        mimic = ""
        if kind != "fixed" and draw(st.booleans()):
            target = draw(st.sampled_from([f"j{m}" for m in range(n)] + ["missing"]))
            mimic = (f'<mimic joint="{target}" multiplier="{draw(st.sampled_from(ODD_NUMBERS))}" '
                     f'offset="{draw(st.sampled_from(ODD_NUMBERS))}"/>')
        joints.append(f'<joint name="j{k}" type="{kind}"><parent link="{parent}"/><child link="l{k}"/>'
                      '<origin xyz="0.2 0.1 0" rpy="0 0.3 0"/><axis xyz="0 0 1"/>'
                      f'<limit lower="-1" upper="1" effort="10" velocity="2"/>{mimic}</joint>')
    head = ""
    if draw(st.booleans()):
        links.insert(0, '<link name="world"/>')
        head = '<joint name="free" type="floating"><parent link="world"/><child link="base"/></joint>'
    return '<robot name="odd">' + "".join(links) + head + "".join(joints) + "</robot>"


@settings(FUZZ, max_examples=15)
@given(text=mimic_urdfs(), mimic=st.sampled_from(["lock", "independent"]))
def test_robots_of_odd_mimic_joints_and_what_is_written_of_them_read_back(tmp_path_factory, text, mimic):
    """A URDF of odd ``<mimic>`` elements read with ``mimic='lock'`` or ``'independent'``: its model's torques
    finite, and the YAML of it, and the URDF and YAML of it with a payload, read back by our own readers to the
    same joints (the fuzzing ran some 800 such files: every file written read back)."""
    folder = tmp_path_factory.mktemp("mimic")
    (folder / "odd.urdf").write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            robot = bp.load_robot(folder / "odd.urdf", mimic=mimic)
        except bp.RobotDescriptionError:
            return                      # a file that is no robot (a moving joint of no mass at the end): refused
        q = np.zeros(robot.n_q)
        if robot.is_floating:
            q[6] = 1.0                  # the base's unit quaternion (x, y, z, w)
        tau = finite_or_refused(lambda: bp.inverse_dynamics(bp.Model(robot), q, np.ones(robot.n_v),
                                                            np.ones(robot.n_v)))
        from baseparam.model.robot import robot_to_yaml
        payload = bp.PayloadResult(mass=1.5, com=np.array([0.01, 0.0, 0.05]), inertia=np.diag([0.01, 0.02, 0.02]),
                                   mass_std=0.1, com_std=np.zeros(3), inertia_std=np.zeros((3, 3)),
                                   parameters=np.zeros(10), unconstrained=np.zeros(10), covariance=np.eye(10),
                                   identifiable=[], rank=10, mode="model", n_samples=10, rmse=np.zeros(robot.n_dof))
        written = {"robot.yaml": robot_to_yaml(robot), "payload.yaml": payload.robot_text(robot, "yaml"),
                   "payload.urdf": payload.robot_text(robot, "urdf")}
        for name, content in written.items():
            (folder / name).write_text(content)
            back = bp.load_robot(folder / name, **({"mimic": mimic} if name.endswith(".urdf") else {}))
            assert (back.n_dof, back.is_floating) == (robot.n_dof, robot.is_floating), name
            if name == "robot.yaml" and tau is not None:
                np.testing.assert_allclose(bp.inverse_dynamics(bp.Model(back), q, np.ones(robot.n_v),
                                                               np.ones(robot.n_v)), tau, rtol=1e-9, atol=1e-9)


# -- every public function of the package and its subpackages, and the types that check what they are given --------
def _public():
    """name → callable: the functions in ``__all__`` of baseparam and its subpackages (and of the IMU module), and
    the types that check their fields when made; not the result types (containers the library fills), nor what runs
    for seconds on any valid input (designs, fits, experiments: fuzzed on their own)."""
    import importlib
    slow = {"design_excitation", "simulated_identification", "identify_logs", "find_and_store", "equations", "track",
            "free_floating_experiment", "contact_experiment", "stance_motion", "identify_floating", "identify",
            "identify_payload", "simulate", "compare_motions", "identification_errors", "estimate_delay"}
    checked_types = {"Robot", "Joint", "Inertia", "Origin", "JointLimits", "Contact", "Trajectory", "ImuTrajectory",
                     "Preprocessing", "SensorNoise", "FourierSeries", "Model", "BaseModel", "ForwardDynamics",
                     "Regressor", "MotionLimits", "ColumnLayout", "Reference"}
    out = {}
    for name in ("baseparam", "baseparam.model", "baseparam.dynamics", "baseparam.projection",
                 "baseparam.identification", "baseparam.excitation", "baseparam.simulation", "baseparam.codegen",
                 "baseparam.evaluation", "baseparam.motion", "baseparam.identification.imu"):
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if attr in slow or not callable(obj) or (isinstance(obj, type) and attr not in checked_types):
                continue
            out[f"{name}.{attr}"] = obj
    return out


PUBLIC = _public()
_T = np.arange(12) * 0.05
ODD_ARGUMENTS = [None, 0, -1, 3, 10 ** 30, 2.5, np.nan, np.inf, -1e300, "", "x", "a\nb", "pseudo", "python", "lock",
                 True, [], [1, 2, 3], {}, np.zeros(3), np.full(3, np.nan), np.zeros((2, 3)), np.zeros((0, 3)),
                 np.ones((12, 3)), np.ma.masked_array([1.0, 2, 3], [1, 0, 0]), np.array(["a"]), 1 + 2j, b"x",
                 object(), "/nonexistent/x.yaml", np.zeros(7), _T]


@settings(FUZZ, max_examples=120)
@given(name=st.sampled_from(sorted(PUBLIC)), data=st.data())
def test_every_public_function_answers_finite_or_refuses_in_one_line(tmp_path_factory, name, data):
    """Any public function or checked type of the package, given 0-4 arguments of any kind (the robot, a model, a
    base set and a motion among them): a finite result, or the library's error (a TypeError for a wrong type) in
    one line — never another exception. The fuzzing ran some 15 000 such calls (and 9 000 of the methods of the
    library's objects): AttributeError, numpy's ValueErrors and NaN came out of eight of them."""
    import os
    robot = bp.load_robot(RRR)
    pool = ODD_ARGUMENTS + [robot, FD_GOOD.model, RRR_BASE, bp.Trajectory(_T, np.ones((12, 3)), np.ones((12, 3)))]
    args = data.draw(st.lists(st.sampled_from(range(len(pool))), max_size=4), label="args")
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))              # whatever it writes, nowhere else
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = PUBLIC[name](*(pool[k] for k in args))
            except (BaseParamError, TypeError) as exc:
                assert own_error(exc), f"{type(exc).__name__} not raised by the library's checks: {exc}"
                assert "\n" not in str(exc) or isinstance(exc, bp.RobotDescriptionError), repr(exc)
                return
        assert finite(result), result
    finally:
        os.chdir(here)



@pytest.mark.parametrize("call,words", [
    (lambda fs: fs.certified_bounds(np.zeros(3)), "^n_samples: expected a whole number ≥ 1"),
    (lambda fs: fs.certified_bounds(np.nan), "^n_samples: expected a whole number ≥ 1"),
    (lambda fs: fs.certified_bounds(2), r"^n_samples: expected more than 6.28 samples per period"),
    (lambda fs: fs.from_coefficients(2.0, "a\nb"), "^theta: not numeric"),
    (lambda fs: fs.from_coefficients(2.0, [1.0, 2.0]), r"^theta: expected shape \(n_dof, 2K \+ 1\)"),
    (lambda fs: fs.from_coefficients(2.0, np.zeros((3, 4))), r"^theta: expected shape \(n_dof, 2K \+ 1\)"),
    (lambda fs: fs.from_coefficients("2 s", np.zeros((3, 5))), "^period: expected a period > 0"),
    (lambda fs: fs.evaluate(np.nan), "^t: expected finite times"),
    (lambda fs: fs.evaluate("pseudo"), "^t: not numeric")])
def test_fourier_series_methods_of_bad_arguments_are_refused_in_one_line(call, words):
    """``FourierSeries.certified_bounds(array)``: numpy's truth-value ValueError, of 2 samples a margin over 1 and
    bounds of the wrong sign; ``from_coefficients`` of text or a list: ValueError, IndexError; ``evaluate(nan)``:
    NaN returned, of text a ValueError."""
    fs = bp.FourierSeries(2.0, np.zeros(3), np.full((3, 2), 0.1), np.full((3, 2), 0.05))
    with pytest.raises(bp.ArgumentError, match=words):
        call(fs)
    assert np.array_equal(bp.FourierSeries.from_coefficients(2.0, fs.coefficients).b, fs.b)


def test_identify_of_a_base_that_is_no_base_set_is_refused_in_one_line():
    """``bp.identify(robot, motion, base=array)``: AttributeError ('numpy.ndarray' object has no attribute 'robot')."""
    t = np.arange(40) * 0.05
    motion = bp.Trajectory(t, np.sin(np.outer(t, [1, 2, 3])), np.cos(np.outer(t, [1, 2, 3])))
    for base in (np.zeros(3), "base.h5", bp.load_robot(RRR)):
        with pytest.raises(bp.SettingsError, match="^base: expected a BaseParameters"):
            bp.identify(RRR, motion, base=base)


def test_evaluation_refusal_names_its_own_problem():
    """nrmse takes sums of squares that are inf or NaN (an overflowed fit): refusing its shape, the line asked for
    finite numbers and blamed the NaN; a finite array of the wrong shape is not said to hold NaN either."""
    from baseparam import evaluation
    with pytest.raises(bp.ArgumentError, match=r"^e2: expected numbers of 1 or 2 or 3 dimensions, got shape \(\)$"):
        evaluation.nrmse(np.float64("nan"), 1.0)
    with pytest.raises(bp.ArgumentError, match=r"^truth: expected finite numbers of 1 dimension, got shape \(3, 3\)$"):
        evaluation.fit_errors(np.ones(3), np.ones((3, 3)))
    with pytest.raises(bp.ArgumentError, match=r"^truth: expected finite numbers of 1 dimension, got shape \(2,\) "
                                                r"with NaN or inf$"):
        evaluation.relative_scale([np.nan, 1.0])
