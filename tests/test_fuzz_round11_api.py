"""The Python API's fuzz harness holds every public callable (issue 28, eleventh round): every function in
``__all__`` of the package, of its subpackages and of the modules of the newest surfaces (IMU bases, floating-base
logs, payloads), and every public method and property of every public class, the results the library returns
included (their methods were fuzzed only in throwaway scripts before this round). ``test_every_public_name_is_fuzzed``
fails when a public name is added without a place in the harness.

The throwaway fuzzing of this round (forked processes under ``signal.alarm`` and an address-space limit) ran some
40 000 calls: every public method of one instance of each class with 0-3 arguments of any kind, the same methods on
results whose fields were replaced by NaN, None, empty or mis-shaped arrays, ``Model``/``BaseModel`` of parameter
vectors of every container (huge, tiny, NaN, wrong length, int/object/float16 dtypes, read-only, strided, 0-d,
pandas, lists of lists, Fractions, SymPy numbers), each argument of the expensive entry points replaced by odd
values, and the modules' own functions. What it found is below, each with the call that failed before its fix; the
hypothesis tests keep a few examples of each family, bounded in time (derandomized, no deadline)."""
import dataclasses
import importlib
import inspect
import os
import sys
import types
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.errors import BaseParamError
from conftest import ROOT, planar_sines
from test_fuzz_api import finite, own_error
from test_fuzz_round9_api import ODD_ARGUMENTS, PUBLIC

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
RRR = ROOT / "robots" / "planar_rrr.yaml"
SPACE = ROOT / "robots" / "space_robot.yaml"

# -- the public surface -------------------------------------------------------------------------------------------
PACKAGES = ("baseparam", "baseparam.model", "baseparam.dynamics", "baseparam.projection", "baseparam.identification",
            "baseparam.excitation", "baseparam.simulation", "baseparam.codegen", "baseparam.evaluation",
            "baseparam.motion")
# modules of the newest surfaces whose own __all__ is public (their functions are the CLI's readers and writers)
MODULES = ("baseparam.identification.imu", "baseparam.identification.floating_logs",
           "baseparam.identification.payload_static", "baseparam.identification.payload_wrench",
           "baseparam.identification.payload", "baseparam.identification.drive_gains",
           "baseparam.projection.symbolic")


def _surface():
    """(functions, classes): "module.name" → object for every public function and class (exceptions and warnings
    aside: they are raised, not called)."""
    functions, classes = {}, {}
    for name in PACKAGES + MODULES:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if isinstance(obj, type):
                if not issubclass(obj, (BaseException, Warning)):
                    classes.setdefault(obj.__name__, obj)
            elif callable(obj):
                functions[f"{name}.{attr}"] = obj
    return functions, classes


FUNCTIONS, CLASSES = _surface()


def members(cls):
    """The public methods and properties of ``cls`` that baseparam defines (not those of tuple, object, …)."""
    out = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        owner = next(k for k in cls.__mro__ if name in vars(k))
        if owner.__module__.startswith("baseparam"):
            out.append(name)
    return out


# The functions fuzzed elsewhere with arguments of their own (what runs for seconds on valid input, which round 9's
# table of odd arguments leaves out), and the test that fuzzes each.
ELSEWHERE = {
    "simulate": "test_fuzz_api.py::test_simulate", "equations": "test_fuzz_api.py::test_equations",
    "identify_floating": "test_fuzz_api.py::test_identify_floating",
    "identify_payload": "test_fuzz_api.py::test_identify_payload",
    "contact_experiment": "test_fuzz_api.py::test_floating_experiments",
    "free_floating_experiment": "test_fuzz_api.py::test_floating_experiments",
    "stance_motion": "test_fuzz_api.py::test_stance_motion",
    "identification_errors": "test_fuzz_api.py::test_identification_errors",
    "find_and_store": "test_fuzz_api.py::test_file_names_with_nul_or_newlines",
    "design_excitation": "test_fuzz_api.py::_switch_calls", "identify_logs": "test_fuzz_api.py::_switch_calls",
    "identify": "test_fuzz_round11_api.py::_expensive",
    "track": "test_fuzz_round11_api.py::_expensive",
    "compare_motions": "test_fuzz_round11_api.py::_expensive",
    "simulated_identification": "test_fuzz_round11_api.py::_expensive",
    "estimate_delay": "test_fuzz_round11_api.py::_expensive",
}
EXTRA = {name: f for name, f in FUNCTIONS.items()
         if name not in PUBLIC and f not in PUBLIC.values() and name.split(".")[-1] not in ELSEWHERE
         and not isinstance(f, type)}


def test_every_public_name_is_fuzzed():
    """Every public function is in a table of the harness (round 9's, this module's) or fuzzed by a named test that
    calls it; every public class has an instance whose every public member the method fuzz below calls."""
    for name, f in FUNCTIONS.items():
        short = name.split(".")[-1]
        if name in PUBLIC or f in PUBLIC.values() or name in EXTRA:
            continue
        assert short in ELSEWHERE, f"{name}: public, and in no fuzz table"
        path, test = ELSEWHERE[short].split("::")
        source = (ROOT / "tests" / path).read_text(encoding="utf-8")
        body = source[source.index(f"def {test}("):]
        assert short in body[:body.find("\ndef ", 1)], (name, ELSEWHERE[short])
    assert sorted(CLASSES) == sorted(INSTANCES), set(CLASSES) ^ set(INSTANCES)


# -- one instance of every public class ---------------------------------------------------------------------------
def _planar():
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 100, 0.02)
    return robot, model, bp.Trajectory(t, q, tau, qd=qd, qdd=qdd)


def _instances(folder):
    """class name → an instance, each made the cheapest way the library makes it (a few tenths of a second)."""
    from baseparam.excitation import suggest_static_poses
    from baseparam.identification.drive_gains import controller_gains
    from baseparam.identification.imu import ImuTrajectory

    robot, model, traj = _planar()
    base = bp.find_base_parameters(robot)
    fit = bp.identify(robot, traj, preprocessing=None, base=base)
    limits = bp.MotionLimits(lower=-np.ones(3), upper=np.ones(3), velocity=2 * np.ones(3),
                             acceleration=5 * np.ones(3), torque=100 * np.ones(3))
    design = bp.design_excitation(robot, period=2.0, harmonics=2, rate=10.0, starts=1, limits=limits)
    design.to_json(folder / "design.json")
    reference = bp.Reference(traj.t, traj.q, traj.qd, traj.qdd)
    run = bp.track(model, reference, bandwidth=3.0)
    csv = folder / "log.csv"
    bp.write_trajectory(traj, csv)
    space = bp.load_robot(SPACE)
    k = np.arange(1, 7)
    free = bp.free_floating_experiment(bp.Model(space), np.linspace(0, 1, 11),
                                       lambda t, q, qd: 3 * np.sin(0.5 * k * t + k))
    floating = bp.identify_floating(bp.Model(space), free.log, route="momentum", known={"mass": 448.0},
                                    base=bp.find_base_parameters(space))
    imu = ImuTrajectory(free.log.t, free.log.q, free.log.tau, qd=free.log.qd, floating=True)
    symbolic = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "scara.yaml"), symbolic="all")   # 2 special
    return {
        "Robot": robot, "Joint": robot.joints[0], "Inertia": bp.Inertia(1.0, np.zeros(3), np.eye(3) * 0.01),
        "Origin": bp.Origin((0.1, 0.0, 0.0), (0.0, 0.0, 0.3)), "JointLimits": bp.JointLimits(-1.0, 1.0, 2.0, 10.0),
        "ColumnLayout": bp.ColumnLayout(robot), "Model": model, "BaseModel": base.model(base.from_standard(
            model.values())), "BaseParameters": base, "ForwardDynamics": bp.ForwardDynamics(model),
        "Regressor": bp.Regressor(base),
        "Contact": bp.Contact(3, (0.1, 0.0, 0.0)), "Trajectory": traj, "ImuTrajectory": imu,
        "Preprocessing": bp.Preprocessing(), "Processed": bp.preprocess(traj),
        "BaseParameterEstimator": fit.estimator, "Identification": fit, "Metrics": fit.train,
        "LogResult": bp.identify_logs(robot, [str(csv)] * 2, preprocessing=None, base=base).logs[0],
        "DelayEstimate": bp.estimate_delay(traj, robot),
        "PayloadResult": bp.identify_payload(model, bp.Trajectory(traj.t, traj.q, traj.tau * 1.1),
                                             preprocessing=None),
        "FloatingIdentification": floating, "FloatingExperiment": free,
        "ExcitationDesign": design, "FourierSeries": design.series, "MotionLimits": limits, "Samples": design.samples,
        "SearchSummary": design.search, "SavedExcitation": bp.load_excitation(folder / "design.json"),
        "IdentificationErrors": bp.identification_errors(base, base.from_standard(model.values()), traj.q[::10],
                                                         traj.qd[::10], traj.qdd[::10], 0.01, trials=2),
        "Equations": bp.equations(bp.load_robot(ROOT / "robots" / "ppr.yaml"), check=False),
        "ExportResult": bp.export(bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "ppr.yaml")), "python",
                                  out_dir=folder / "gen"),
        "Reference": reference, "TrackingRun": run, "SensorNoise": bp.SensorNoise(q=1e-3, tau=0.01),
        "FitErrors": bp.simulated_identification(model, run, run, methods=("ols",), preprocessing=None)["ols"],
        "MotionComparison": bp.compare_motions(model, {"a": reference}, reference, noise=bp.SensorNoise(tau=0.01),
                                               methods=("ols",), bandwidth=3.0, preprocessing=None),
        "FitFigures": bp.evaluation.fit_errors(np.ones(3) * 1.1, np.ones(3)),
        "ControllerGains": controller_gains(traj.tau, traj.tau / 2.0 + 0.1 * np.sign(traj.qd), traj.qd),
        "SymbolicBaseParameters": symbolic, "SpecialValue": symbolic.special[0],
        "StaticPoses": suggest_static_poses(bp.load_robot(ROOT / "robots" / "ur10e.yaml"), 4, candidates=50),
    }


INSTANCES = ("Robot", "Joint", "Inertia", "Origin", "JointLimits", "ColumnLayout", "Model", "BaseModel",
             "BaseParameters", "ForwardDynamics", "Regressor", "Contact", "Trajectory", "ImuTrajectory",
             "Preprocessing", "Processed", "BaseParameterEstimator", "Identification", "Metrics", "LogResult",
             "DelayEstimate",
             "PayloadResult", "FloatingIdentification", "FloatingExperiment", "ExcitationDesign", "FourierSeries",
             "MotionLimits", "Samples", "SearchSummary", "SavedExcitation", "IdentificationErrors", "Equations",
             "ExportResult", "Reference", "TrackingRun", "SensorNoise", "FitErrors", "MotionComparison",
             "FitFigures", "ControllerGains", "SymbolicBaseParameters", "SpecialValue", "StaticPoses")


@pytest.fixture(scope="module")
def instances(tmp_path_factory):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = _instances(tmp_path_factory.mktemp("instances"))
    assert sorted(made) == sorted(INSTANCES)
    return made


METHODS = sorted(f"{cls}.{name}" for cls in INSTANCES if cls in CLASSES for name in members(CLASSES[cls]))
# what a method is given: round 9's odd arguments, and the library's own objects
POOL = ODD_ARGUMENTS + ["ur", "kuka", "yaml", "urdf", "out.json", "out.png", "out.csv", "out.yaml"]


def outcome(action):
    """A finite result, or the library's error (a TypeError for a wrong type, baseparam's own: see
    :func:`test_fuzz_api.own_error`) in one line; anything else fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = action()
        except (BaseParamError, TypeError) as exc:
            assert own_error(exc), f"{type(exc).__name__} not raised by the library's checks: {exc}"
            assert "\n" not in str(exc) or isinstance(exc, bp.RobotDescriptionError), repr(exc)
            return None
    assert finite(result), result
    return result


def _caller(obj, name, args):
    """The read of a property (``args`` ``()``), or the call of a method without arguments (None) or with them."""
    if args == ():
        return lambda: getattr(obj, name)
    return lambda: getattr(obj, name)(*(args or ()))


def test_every_public_method_answers_finite_or_refuses_in_one_line(instances, tmp_path):
    """Every public method of every public class (results included), called without arguments where it takes none
    and twice with 1-3 arguments of any kind (the robot, a model, a base set and a motion among them), and every
    property read: a finite result or one line. Whatever a method writes goes to a folder of its own. (All of
    them at each run, the arguments drawn by a seeded generator: a sampled subset would leave some out.)"""
    rng = np.random.default_rng(11)
    robot, traj = instances["Robot"], instances["Trajectory"]
    pool = POOL + [robot, instances["Model"], instances["BaseParameters"], traj, (traj.q, traj.qd, traj.qdd, traj.tau)]
    failures = []
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for member in METHODS:
            cls, name = member.split(".")
            obj = instances[cls]
            if isinstance(inspect.getattr_static(type(obj), name), property) or not callable(getattr(obj, name)):
                calls = [()]
            else:
                # a figure drawn costs a second: a plot is asked for files only, their names checked before drawing
                usable = [v for v in pool if not (name == "plot" and (v is None or isinstance(v, str) and
                                                                       v.endswith(".png")))]
                calls = [] if name == "plot" else [None]
                calls += [[usable[k] for k in rng.integers(len(usable), size=rng.integers(1, 4))] for _ in range(2)]
            for args in calls:
                try:
                    outcome(_caller(obj, name, args))
                except Exception as exc:                # NaN (AssertionError) or any other exception
                    failures.append(f"{member}{'' if args == () else args}: {exc}"[:300])
    finally:
        os.chdir(here)
    assert not failures, "\n".join(failures)


def test_module_functions_answer_finite_or_refuse_in_one_line(instances, tmp_path):
    """The functions of the newest surfaces' modules (IMU bases, floating-base logs, still poses, wrenches, payload
    arithmetic, drive gains), each called without arguments and twice with 1-4 arguments of any kind: a finite
    result or one line. (All of them, the arguments drawn by a seeded generator: a name drawn by hypothesis among
    them left read_contacts, wrench_topics, read_floating_log and payload_parameters uncalled.)"""
    rng = np.random.default_rng(12)
    traj = instances["Trajectory"]
    pool = POOL + [instances["Robot"], instances["Model"], traj, instances["FloatingExperiment"].log,
                   bp.load_robot(SPACE), [traj], "log.csv", "log.npz"]
    failures = []
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for name in sorted(EXTRA):
            for args in [[]] + [[pool[k] for k in rng.integers(len(pool), size=rng.integers(1, 5))] for _ in range(2)]:
                try:
                    outcome(lambda f=EXTRA[name], args=args: f(*args))
                except Exception as exc:                # NaN (AssertionError) or any other exception
                    failures.append(f"{name}{args}: {exc}"[:300])
    finally:
        os.chdir(here)
    assert not failures, "\n".join(failures)


def _expensive(instances):
    """name → (function, arguments, options) of a call that works, of the entry points that run for a tenth of a
    second and more."""
    robot, model, traj = instances["Robot"], instances["Model"], instances["Trajectory"]
    reference, run = instances["Reference"], instances["TrackingRun"]
    return {"identify": (bp.identify, (robot, traj), dict(preprocessing=None, base=instances["BaseParameters"])),
            "track": (bp.track, (model, reference), dict(bandwidth=3.0)),
            "compare_motions": (bp.compare_motions, (model, {"a": reference}, reference),
                                dict(noise=bp.SensorNoise(tau=0.01), methods=("ols",), bandwidth=3.0,
                                     preprocessing=None)),
            "simulated_identification": (bp.simulated_identification, (model, run, run),
                                         dict(methods=("ols",), preprocessing=None)),
            "estimate_delay": (bp.estimate_delay, (traj, robot), {})}


@settings(FUZZ, max_examples=30)
@given(name=st.sampled_from(["identify", "track", "compare_motions", "simulated_identification", "estimate_delay"]),
       data=st.data())
def test_expensive_entry_points_of_one_odd_argument(instances, name, data):
    """One argument of a call that works replaced by a value of any kind: a finite result or one line. Found:
    ``compare_motions(draws=10**30)`` ran without end; ``methods`` or ``parameters`` of an array and ``track``'s
    ``source`` of an array were numpy's truth-value ValueError."""
    f, args, options = _expensive(instances)[name]
    names = [p.name for p in inspect.signature(f).parameters.values() if p.kind not in (p.VAR_POSITIONAL,
                                                                                         p.VAR_KEYWORD)]
    which = data.draw(st.sampled_from(names), label="argument")
    value = data.draw(st.sampled_from(ODD_ARGUMENTS), label="value")
    args, options = list(args), dict(options)
    if names.index(which) < len(args):
        args[names.index(which)] = value
    else:
        options[which] = value
    outcome(lambda: (lambda r: dataclasses.asdict(r) if dataclasses.is_dataclass(r) else r)(f(*args, **options)))


# -- what the fuzzing found, one call of each class ---------------------------------------------------------------
def _floating_log_path(folder):
    path = folder / "log.csv"
    path.write_text("t\n0\n")
    return path


@pytest.mark.parametrize("call, error, words", [
    (lambda o: o["FloatingIdentification"].from_standard("x"), bp.ArgumentError, "^p: not numeric"),
    (lambda o: o["FloatingIdentification"].from_standard(np.ones(3)), bp.ArgumentError, r"^p: expected shape \(70,"),
    (lambda o: o["FloatingIdentification"].combinations(2.5), bp.ArgumentError, "^digits: expected a whole number"),
    (lambda o: o["Metrics"].compare(np.zeros((3, 2)), np.zeros((2, 2))), bp.ArgumentError, "^predicted, t: expected"),
    (lambda o: o["Metrics"].compare(1j, np.zeros((2, 2))), bp.ArgumentError, "^tau: not numeric"),
    (lambda o: o["Metrics"].from_residuals("x", [1.0], 3), bp.ArgumentError, "^e2: not numeric"),
    (lambda o: o["Metrics"].from_residuals([1.0], [1.0], np.nan), bp.ArgumentError, "^n_samples: expected"),
    (lambda o: o["SensorNoise"].per_joint("x", 3), bp.ArgumentError, "^name: expected one of"),
    (lambda o: o["SensorNoise"].apply("x", 3), bp.ArgumentTypeError, "^fields: expected a dict"),
    (lambda o: o["SensorNoise"].apply({"q": np.zeros((2, 2))}, 3), bp.ArgumentError, r"^fields\['q'\]: expected"),
    (lambda o: bp.SensorNoise(seed=-1), bp.ArgumentError, "^noise.seed: expected a whole number ≥ 0"),
    (lambda o: bp.find_and_store(o["Robot"], "/nonexistent/z.h5", force_float=np.zeros(3)), bp.ArgumentTypeError,
     "^force_float: expected True or False"),
    (lambda o: bp.identify_payload(o["Model"], o["Trajectory"], still_tolerance=np.nan), bp.SettingsError,
     "^still_tolerance: expected a number > 0"),
    (lambda o: o["Contact"].link_index("x"), bp.ArgumentTypeError, "^robot: expected a baseparam.Robot"),
    (lambda o: o["BaseParameterEstimator"].get_params(np.zeros(3)), bp.ArgumentTypeError, "^deep: expected True"),
    (lambda o: bp.identify(o["Robot"], o["Trajectory"], parameters=np.zeros(3), base=o["BaseParameters"]),
     bp.ArgumentError, "^parameters: expected one of"),
    (lambda o: bp.identify_logs(o["Robot"], [o["Trajectory"]] * 2, progress=np.zeros(3)), bp.ArgumentTypeError,
     "^progress: expected a function"),
    (lambda o: bp.track(o["Model"], o["Reference"], bandwidth=3.0, source=np.zeros(3)), bp.ArgumentTypeError,
     "^source: expected a str"),
    (lambda o: bp.compare_motions(o["Model"], {"a": o["Reference"]}, o["Reference"], noise=bp.SensorNoise(),
                                  draws=10 ** 30), bp.ArgumentError, "^draws: expected a whole number from 1 to 1000"),
    (lambda o: bp.simulated_identification(o["Model"], o["TrackingRun"], o["TrackingRun"], methods=np.zeros((0, 3))),
     bp.ArgumentError, "^methods: expected some of"),
    (lambda o: bp.simulated_identification(o["Model"], o["TrackingRun"], o["TrackingRun"], methods=np.ones((2, 3))),
     bp.ArgumentError, "^methods: expected some of"),
])
def test_methods_and_entry_points_of_odd_arguments_are_refused_in_one_line(instances, call, error, words):
    """Each a bare exception of numpy or Python before (ValueError of a truth value or a conversion, AttributeError,
    IndexError), or a call that never ended (draws)."""
    with pytest.raises(error, match=words) as info:
        call(instances)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("call, words", [
    (lambda m, o, p: m("floating_logs").read_floating(p, 3), "^robot: expected a baseparam.Robot"),
    (lambda m, o, p: m("floating_logs").read_floating_log(p, "robot"), "^robot: expected a baseparam.Robot"),
    (lambda m, o, p: m("floating_logs").write_floating(3, p, ["a"]), "^trajectory: expected a baseparam.Trajectory"),
    (lambda m, o, p: m("floating_logs").lowpass_floating(3, 5.0), "^trajectory: expected a baseparam.Trajectory"),
    (lambda m, o, p: m("payload_static").still_poses(3), "^trajectory: expected a baseparam.Trajectory"),
    (lambda m, o, p: m("payload_static").identify_static(o["Robot"], np.sin, []), "^loaded: no trajectory given"),
    (lambda m, o, p: m("payload_static").identify_static(o["Robot"], 3, [o["Trajectory"]]), "^predicted: expected"),
    (lambda m, o, p: m("trajectory").robot_joint_names(3), "^robot: expected a baseparam.Robot"),
    (lambda m, o, p: m("payload").payload_parameters("x", 1, 2), "^mass: expected a number"),
    (lambda m, o, p: m("payload").payload_physical(np.zeros(3)), r"^p: expected shape \(10,\)"),
    (lambda m, o, p: m("drive_gains").controller_gains("x", "y", "z"), "^controller gains: target torque: not numeric"),
])
def test_module_functions_of_odd_arguments_are_refused_in_one_line(instances, tmp_path, call, words):
    """The newest surfaces' module functions took what they were given to attribute lookups and numpy:
    AttributeError ('int' object has no attribute 'n_dof'), IndexError, ValueError."""
    def module(name):
        return importlib.import_module(f"baseparam.identification.{name}")
    with pytest.raises(BaseParamError, match=words) as info:
        call(module, instances, _floating_log_path(tmp_path))
    assert "\n" not in str(info.value)


def test_a_scheduler_address_dask_cannot_parse_is_refused_in_one_line(monkeypatch):
    """``identify_logs(scheduler='a\\nb')``: distributed's ValueError ("missing port number in address") came out
    bare, over two lines (a stand-in for distributed raises what it raises: the real one takes seconds to import)."""
    fake = types.ModuleType("distributed")

    def client(address, timeout=None):
        raise ValueError(f"missing port number in address {address!r}\nsecond line")
    fake.Client, fake.LocalCluster, fake.as_completed = client, None, None
    fake.comm = types.ModuleType("distributed.comm")     # a remote address is connected to first (its handshake)

    async def connect(address, timeout=None):
        client(address)
    fake.comm.connect = connect
    fake.security = types.ModuleType("distributed.security")      # Dask's configured TLS settings: none
    fake.security.Security = type("Security", (), {"get_connection_args": lambda self, role: {}})
    monkeypatch.setitem(sys.modules, "distributed", fake)
    monkeypatch.setitem(sys.modules, "distributed.comm", fake.comm)
    monkeypatch.setitem(sys.modules, "distributed.security", fake.security)
    robot, _, traj = _planar()
    with pytest.raises(bp.SettingsError, match=r"^scheduler: cannot reach the Dask scheduler at 'a\\nb' \(missing "
                                               r"port number") as info:
        bp.identify_logs(robot, [traj, traj], scheduler="a\nb", preprocessing=None)
    assert "\n" not in str(info.value)


def test_the_equations_module_refuses_states_and_parameters_it_would_turn_into_nan():
    """The module of ``Equations.python_source`` (``baseparam equations --python``) computed with whatever it was
    given: NaN in, NaN out, and states of 1e154 squared to inf; it refuses them as the exported code does."""
    from baseparam._validation import ABSURD, ABSURD_PARAMETER
    from baseparam.codegen.equations import load_module
    eq = bp.equations(bp.load_robot(ROOT / "robots" / "ppr.yaml"), check=False)
    module = load_module(eq.python_source())
    q, p = np.array([0.1, 0.2, 0.3]), np.ones(len(eq.names))
    assert np.isfinite(module.tau(q, q, q, p)).all()
    # the bounds as the exported code names them (MAX_STATE, MAX_PARAMETER), baseparam's own
    assert (module.MAX_STATE, module.MAX_PARAMETER) == (ABSURD, ABSURD_PARAMETER)
    for bad in (np.nan, 1e154, np.inf):
        with pytest.raises(ValueError, match=r"a non-finite value, or a value beyond ±1e\+08"):
            module.tau(np.array([0.1, bad, 0.3]), q, q, p)
        with pytest.raises(ValueError, match=r"^p: a non-finite value, or a value beyond ±1e\+100"):
            module.tau(q, q, q, np.r_[p[:-1], bad * 1e100])
    with pytest.raises(ValueError, match=r"^expected shape \(3,\) or \(S, 3\), got \(2,\)"):
        module.tau(q[:2], q, q, p)


def test_metrics_of_no_samples_are_refused():
    """Metrics.compare of zero samples gave an RMSE of NaN (numpy's warning) and, after the shortening, 0.0: no
    figure describes no samples."""
    from baseparam.identification.results import Metrics
    with pytest.raises(bp.errors.ArgumentError, match="^tau: no samples to compare the predictions with$"):
        Metrics.compare(np.zeros((0, 3)), np.zeros((0, 3)))
    assert Metrics.compare(np.ones((1, 3)), np.zeros((1, 3))).rmse.tolist() == [1.0, 1.0, 1.0]


def test_a_parameterization_of_text_is_checked_where_it_was_before():
    """Only what cannot be compared (an array, a list) is refused before the entry point's own checks: a wrong name
    keeps design_excitation's words, after the settings checked before it (round 11 had moved every value to the
    front, in the words of another check)."""
    robot = bp.load_robot(RRR)
    settings_ = dict(period=2.0, harmonics=2, rate=10.0, starts=1)
    with pytest.raises(bp.ArgumentError, match="^parameters: expected one of khalil, pseudo, got 'bogus'$"):
        bp.design_excitation(robot, **settings_, parameters="bogus")
    with pytest.raises(bp.ArgumentError, match="^period: expected a duration > 0 s"):
        bp.design_excitation(robot, **{**settings_, "period": -1.0}, parameters="bogus")
    with pytest.raises(bp.ArgumentError, match=r"^parameters: expected one of \('pseudo', 'khalil'\), got an array"):
        bp.design_excitation(bp.Model(robot), **settings_, parameters=np.zeros(3))


def test_a_contacts_file_of_too_many_contacts_is_refused_by_its_own_reader(tmp_path):
    """65 contacts were read, then refused by the log reader naming n_contacts, which the user never gave."""
    from baseparam.identification.floating_logs import read_contacts
    path = tmp_path / "contacts.yaml"
    path.write_text("contacts:\n" + "".join(f"  - {{link: 1, name: c{k}}}\n" for k in range(65)))
    with pytest.raises(bp.DataError, match=r"contacts.yaml: contacts: expected at most 64 contacts, got 65$"):
        read_contacts(path)


def test_methods_given_as_a_generator_are_all_fitted(instances):
    """simulated_identification checked ``methods`` by reading them into a list it then dropped: a generator was
    used up by the check, no fit ran, and an empty dict came back."""
    model, run = instances["Model"], instances["TrackingRun"]
    fits = bp.simulated_identification(model, run, run, methods=(m for m in ("ols",)), preprocessing=None)
    assert list(fits) == ["ols"] and np.isfinite(fits["ols"].torque_error)
