"""Fuzz round twenty-four (lres): result dataclasses built by hand (issue 28, issue 22 item 4).

A forked driver replaced each field of each public result dataclass with odd values (wrong type, shape, NaN, inf,
negative, huge, empty, nested) and then used the result (repr, its public methods and properties, pickle, ==, hash and
the functions that take it). What it found, each with a test that fails before its fix, and a bounded version of the
driver (hypothesis) that holds every result to the rule: a bad field is refused at construction with the library's own
error (or a TypeError), and a result that is accepted can be used."""
import dataclasses
import inspect
import math
import os
import pickle
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.errors import BaseParamError
from conftest import ROOT, planar_arm, planar_sines

LIMITS = {"joints": [{"q": [-2.0, 2.5], "qd": 1.5, "qdd": 6.0}, {"q": [-1.5, 1.5], "qd": 2.0},
                     {"q": [-2.5, 2.5], "qd": 2.5, "qdd": 8.0}]}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """One result of each public result type, as the library builds it (the planar arm; small and quick)."""
    return library_results(tmp_path_factory.mktemp("lres"))


def library_results(folder):
    """:func:`results` (also round twenty-five's): files written into ``folder``."""
    robot = planar_arm()
    model = bp.Model(robot)
    _, _, t, q, _, _, tau = planar_sines(8, 200, 0.02)
    log = bp.Trajectory(t=t, q=q, tau=tau)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = bp.find_base_parameters(robot)
        design = bp.design_excitation(robot, period=4.0, harmonics=2, rate=20.0, starts=1, workers=1, seed=3,
                                      time_budget=30, limits=LIMITS)
        reference = bp.Reference.periodic(design, 200.0, 4.0)
        run = bp.track(model, reference)
        csv = str(folder / "log.csv")
        bp.write_trajectory(log, csv)
        ident = bp.identify_logs(robot, [csv, csv], preprocessing=None, base=base)
        made = {"BaseParameters": base, "ExcitationDesign": design, "Equations": bp.equations(base, check=False),
                "ExportResult": bp.export(base, "c", out_dir=str(folder / "c")), "Identification": ident,
                "Metrics": ident.train, "LogResult": ident.logs[0], "DelayEstimate": bp.estimate_delay(log, robot),
                "Reference": reference, "TrackingRun": run, "Trajectory": log, "MotionLimits": design.limits,
                "PayloadResult": bp.identify_payload(model, dataclasses.replace(log, tau=1.1 * tau),
                                                     preprocessing=None),
                "MotionComparison": bp.compare_motions(model, {"a": reference}, reference, methods=("ols",),
                                                       noise=bp.SensorNoise(tau=0.01, seed=1))}
    made["FitErrors"] = next(iter(made["MotionComparison"].fits.values()))[0]
    made["Processed"] = bp.preprocess(log, bp.Preprocessing.none())
    space = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    made["FloatingExperiment"] = bp.free_floating_experiment(
        bp.Model(space), np.linspace(0, 2, 81), lambda t, q, qd: 3 * np.sin(0.5 * t + np.arange(space.n_dof)))
    mass = sum(j.inertia.mass for j in space.joints) + space.base_inertia.mass
    made["FloatingIdentification"] = bp.identify_floating(space, made["FloatingExperiment"].log, route="momentum",
                                                          known={"mass": float(mass)})
    return made


def test_results_the_library_builds_are_kept_as_they_are(results):
    """The checks take every result the library builds, and keep its fields as they are (the same objects)."""
    for name, result in results.items():
        again = dataclasses.replace(result)
        for field in dataclasses.fields(result):
            if field.init:
                kept, given_ = getattr(again, field.name), getattr(result, field.name)
                assert kept is given_ or type(kept) is type(given_), (name, field.name)
        assert repr(again) == repr(result), name


# (result, field, value, the error's message): each was accepted and then failed deep in a method, returned NaN or
# a repr of megabytes
REFUSED = [
    ("BaseParameters", "rank", -1, r"^BaseParameters\.rank: expected a whole number from 18 to 18, got -1$"),
    ("BaseParameters", "rank", 10 ** 30, r"^BaseParameters\.rank: expected"),
    ("BaseParameters", "rank", np.zeros((2, 2)), r"^BaseParameters\.rank: expected a whole number, got ndarray$"),
    ("BaseParameters", "pivots", np.arange(18.0), r"^BaseParameters\.pivots: expected a 1-D array of indices"),
    ("BaseParameters", "pivots", np.arange(18) + 30, r"^BaseParameters\.pivots: expected indices from 0 to 38"),
    ("BaseParameters", "pivots", (), r"^BaseParameters\.pivots: expected shape \(rank,\) \(rank = 18\), got \(0,\)"),
    ("BaseParameters", "names", "x" * 10 ** 6, r"^BaseParameters\.names: expected a list of names \(str\), got str$"),
    ("BaseParameters", "names", ["x"] * 19, r"^BaseParameters\.rank: expected a whole number from 19 to 19"),
    ("BaseParameters", "standard_names", [], r"^BaseParameters\.unidentifiable: 15 names of 0 standard"),
    ("BaseParameters", "unidentifiable", np.zeros((2, 2)), r"^BaseParameters\.unidentifiable: expected a list"),
    ("BaseParameters", "exact", np.zeros(0), r"^BaseParameters\.exact: expected True or False"),
    ("BaseParameters", "note", None, r"^BaseParameters\.note: expected a str, got NoneType$"),
    ("BaseParameters", "note", "x" * 10 ** 6, r"^BaseParameters\.note: a text of 1000000 characters; expected at "
                                              r"most 100000$"),
    ("BaseParameters", "parameters", "x", r"^BaseParameters\.parameters: expected one of pseudo, khalil, got 'x'$"),
    ("BaseParameters", "Y_display", "x", r"^BaseParameters\.Y_display: expected 18 rows"),
    ("BaseParameters", "Y_display", [["a"] * 39] * 18, r"^BaseParameters\.Y_display\[0\]: expected finite numbers"),
    ("BaseParameters", "seen_by_base_equations", np.zeros((2, 2)), r"^BaseParameters\.seen_by_base_equations: "
                                                                   r"expected shape \(rank,\)"),
    ("BaseParameters", "accuracy", math.inf, r"^BaseParameters\.accuracy: expected finite numbers"),
    ("ExcitationDesign", "criterion", "x" * 10 ** 6, r"^ExcitationDesign\.criterion: expected one of cond, dopt, "),
    ("ExcitationDesign", "torque_max", "x", r"^ExcitationDesign\.torque_max: "),
    ("ExcitationDesign", "torque_max", np.ones(2), r"^ExcitationDesign\.torque_max: expected shape \(3,\)"),
    ("ExcitationDesign", "torque_max", np.full(3, np.nan), r"^ExcitationDesign\.torque_max: expected finite"),
    ("ExcitationDesign", "noise", [1.0, np.inf, 1.0], r"^ExcitationDesign\.noise: expected finite"),
    ("ExcitationDesign", "torque_limited", np.zeros(2), r"^ExcitationDesign\.torque_limited: expected True or "),
    ("ExcitationDesign", "bounds", {}, r"^ExcitationDesign\.bounds: no entry 'q_min'"),
    ("ExcitationDesign", "condition_numbers", {}, r"^ExcitationDesign\.condition_numbers: no entry 'pseudo'"),
    ("ExcitationDesign", "condition_numbers", {"pseudo": {}}, r"^ExcitationDesign\.condition_numbers\['pseudo'\]: "
                                                              r"no entry 'with_drives'"),
    ("ExcitationDesign", "refinement", {}, r"^ExcitationDesign\.refinement: no entry 'start_value'"),
    ("Equations", "symbols", ("x",) * 18, r"^Equations\.symbols: expected 18 sympy Symbols"),
    ("Equations", "names", ("x",) * 10 ** 6, r"^Equations\.symbols: expected 1000000 sympy Symbols"),
    ("Equations", "constants", {}, r"^Equations\.constants: no entry for the symbol XX1R$"),
    ("Equations", "operation_count", {}, r"^Equations\.operation_count: no entry 'mul'"),
    ("Equations", "code_count", {"mul": 1, "add": 1, "sincos": "x"}, r"^Equations\.code_count\['sincos'\]: "),
    ("Equations", "max_error", math.nan, r"^Equations\.max_error: expected finite numbers"),
    ("Equations", "gravity", math.inf, r"^Equations\.gravity: expected finite numbers"),
    ("Equations", "offsets", (1.0,), r"^Equations\.offsets: expected 3 finite numbers"),
    ("DelayEstimate", "seconds", math.nan, r"^DelayEstimate\.seconds: expected finite numbers"),
    ("DelayEstimate", "method", "x" * 10 ** 6, r"^DelayEstimate\.method: a text of 1000000 characters"),
    ("DelayEstimate", "source", None, r"^DelayEstimate\.source: expected a str"),
    ("ExportResult", "lang", "x" * 10 ** 6, r"^ExportResult\.lang: a text of"),
    ("ExportResult", "files", ("x", 1), r"^ExportResult\.files\[1\]: expected a str \(one of the names\), got int$"),
    ("Metrics", "sources", "x" * 10 ** 6, r"^Metrics\.sources: expected a list of names"),
    ("LogResult", "source", math.nan, r"^LogResult\.source: expected a str, got float$"),
    ("Identification", "logs", ("x",), r"^Identification\.logs\[0\]: expected a LogResult, got str$"),
    ("TrackingRun", "tracking_error", None, r"^TrackingRun\.tracking_error: expected an array of shape"),
    ("TrackingRun", "tracking_error", np.full(3, np.nan), r"^TrackingRun\.tracking_error: expected finite"),
    ("PayloadResult", "identifiable", "x" * 10 ** 6, r"^PayloadResult\.identifiable: expected a list of names"),
    ("PayloadResult", "rmse", np.full(3, np.nan), r"^PayloadResult\.rmse: expected finite numbers"),
    ("PayloadResult", "mode", "x" * 10 ** 6, r"^PayloadResult\.mode: a text of"),
    ("FitErrors", "method", "x" * 10 ** 6, r"^FitErrors\.method: a text of"),
    ("MotionComparison", "fits", {}, r"^MotionComparison\.fits: empty"),
    ("MotionComparison", "fits", {("a", "ols"): []}, r"^MotionComparison\.fits\[\('a', 'ols'\)\]: expected a "
                                                     r"non-empty list of FitErrors"),
    ("MotionComparison", "runs", {1: None}, r"^MotionComparison\.runs: a key: expected a motion's name"),
    ("MotionLimits", "source", "x" * 10 ** 6, r"^MotionLimits\.source: a text of"),
    ("BaseParameters", "length_power", [[1, 2], [3]], r"^BaseParameters\.length_power: expected an array of shape "
                                                      r"\(n_standard,\), got rows of different lengths$"),
    ("BaseParameters", "unidentifiable", ("x",) * 100, r"^BaseParameters\.unidentifiable: 100 names of 39 standard"),
    ("PayloadResult", "identifiable", ("x",) * 10 ** 5, r"^PayloadResult\.identifiable: 100000 combinations; "),
    ("DelayEstimate", "seconds", 1e308, r"^DelayEstimate\.seconds: expected a number from -1e\+06 to 1e\+06"),
    ("ExcitationDesign", "rate", math.nan, r"^ExcitationDesign\.rate: expected a number > 0, got nan$"),
    ("ExcitationDesign", "criterion_value", math.nan, r"^ExcitationDesign\.criterion_value: expected finite"),
    ("ExcitationDesign", "condition_number", math.nan, r"^ExcitationDesign\.condition_number: NaN"),
    ("TrackingRun", "tracking_error", [], r"^TrackingRun\.tracking_error: expected shape \(3,\), got \(0,\)$"),
    ("FloatingIdentification", "names", np.full(3, np.nan), r"^FloatingIdentification\.names: expected a list"),
    ("FloatingIdentification", "combinations_matrix", None, r"^FloatingIdentification\.combinations_matrix: "
                                                            r"expected an array of shape \(R, n_standard\), got None"),
    ("FloatingIdentification", "known", None, r"^FloatingIdentification\.known: expected a dict, got NoneType$"),
    ("FloatingIdentification", "known", {"mass": "x"}, r"^FloatingIdentification\.known: 'mass': 'x'; expected"),
    ("FloatingIdentification", "rmse", None, r"^FloatingIdentification\.rmse: expected an array of shape \(rows,\)"),
    ("FloatingIdentification", "standard_names", "x", r"^FloatingIdentification\.standard_names: expected a list"),
    ("FloatingIdentification", "values", [np.nan] * 52, r"^FloatingIdentification\.values: expected finite"),
    ("FloatingIdentification", "unseen", ("x",) * 10 ** 5, r"^FloatingIdentification\.unseen: 100000 names of 70 "),
    ("Trajectory", "notes", ("x",) * 10 ** 6, r"^<arrays>: notes: 1000000 notes; expected at most 10000$"),
    ("Trajectory", "notes", (1,), r"^<arrays>: notes\[0\]: expected a str \(one of the notes\), got int$"),
    ("Trajectory", "source", "x" * 10 ** 6, r"^source: a text of 1000000 characters"),
    ("Trajectory", "skipped_unit", "x" * 10 ** 6, r"^<arrays>: skipped_unit: a text of 1000000 characters"),
    ("Trajectory", "skipped", np.zeros((2, 2)), r"^<arrays>: skipped\[0\]: expected \(row number, reason\)"),
    ("Trajectory", "contacts", np.zeros(10 ** 6), r"^<arrays>: contacts: 1000000 names without contact wrenches"),
    ("Processed", "segment", [[1, 2], [3]], r"^<arrays>: field segment: expected integers of shape \(200,\), one "
                                            r"per sample, got object of shape \(\)$"),
    ("Processed", "kept", [[True], []], r"^<arrays>: field kept: expected booleans of shape \(200,\)"),
    ("Reference", "skipped", (("a", "b"),), r"skipped\[0\]: expected \(row number, reason\)"),
]


@pytest.mark.parametrize("name, field, value, message", REFUSED,
                         ids=[f"{name}.{field}-{k}" for k, (name, field, _, _) in enumerate(REFUSED)])
def test_a_result_built_with_a_bad_field_is_refused_at_construction(results, name, field, value, message):
    """Each was accepted and failed later: a bare IndexError, KeyError, AttributeError or StopIteration in repr,
    summary, to_dict, export or python_source, a NaN figure, or a repr and summary of megabytes."""
    with pytest.raises(BaseParamError, match=message):
        dataclasses.replace(results[name], **{field: value})


def test_a_rank_that_disagrees_with_its_names_was_a_bare_index_error_in_equations(results):
    """The finding that opened the round: ``rank=0`` was taken, and ``equations`` failed with 'list assignment index
    out of range'. Refused where the base set is built; the base set as found is used as before."""
    base = results["BaseParameters"]
    with pytest.raises(bp.ArgumentError, match=r"^BaseParameters\.rank: "):
        dataclasses.replace(base, rank=0)
    assert dataclasses.replace(base, pivots=list(base.pivots)).pivots.dtype.kind == "i"


def test_equations_without_offsets_print_the_angles_as_given(results):
    """An Equations built without ``offsets`` (its default, ()) printed no python_source (a bare IndexError): none is
    no offset."""
    eq = results["Equations"]
    assert dataclasses.replace(eq, offsets=()).python_source() == eq.python_source()


# -- the bounded driver ----------------------------------------------------------------------------------------------
NAN = float("nan")
ODD = [None, NAN, math.inf, -1, 0, -1e-8, 1e308, 10 ** 400, True, "x", "a\nb", "x" * 200_000, [], (), {}, object(),
       np.zeros(0), np.zeros((2, 2)), np.full(3, NAN), np.zeros(10 ** 5), ("x",) * 10 ** 5, [[1, 2], [3]], ["a", 1],
       np.array(["a", "b"]), b"x", 1j, ((("a",),),), Fraction(1, 3)]


def _variants(value):
    """Odd values made of a field's own value: NaN or inf in it, its transpose, one item less or more, a text among its
    items, an entry of a dict replaced."""
    out = []
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc" and value.size:
        nan = value.astype(float).copy()
        nan.flat[0] = NAN
        out += [nan, value.T if value.ndim == 2 else value[None], value[:-1], value.tolist(), value.astype(object),
                value.astype(float) * 1e200, -np.abs(value.astype(float)) - 1]
    if isinstance(value, (tuple, list)) and value:
        out += [type(value)([1, *value[1:]]), type(value)([None, *value[1:]]), type(value)(value[:-1]),
                type(value)([*value, value[-1]])]
    if isinstance(value, dict) and value:
        key = next(iter(value))
        out += [{**value, key: NAN}, {**value, key: "x"}, {1: value[key]}]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        out += [-abs(value) - 1, float(value) + 0.5, 1e300]
    return out


# zero-argument methods not called: plot draws a figure (matplotlib), the rest write files (called with a path below)
_NOT_CALLED = {"plot", "to_csv", "to_json", "to_mjcf", "to_urdf", "to_yaml"}


def _use(result, folder):
    """What the driver does with a result it was given: its repr and str, each public property and method that takes
    no argument, to_json into ``folder``, pickle, == and hash. The library's own errors and TypeErrors are answers."""
    texts = [repr(result), str(result)]
    for name, attribute in inspect.getmembers(type(result)):
        if (name.startswith("_") and name != "_repr_html_") or name in _NOT_CALLED:
            continue
        if isinstance(inspect.getattr_static(type(result), name), (staticmethod, classmethod)):
            continue
        try:
            if isinstance(attribute, property):
                texts.append(getattr(result, name))
            elif callable(attribute) and all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                                             for p in inspect.signature(getattr(result, name)).parameters.values()):
                texts.append(getattr(result, name)())
        except (BaseParamError, TypeError):
            pass
    if callable(getattr(result, "to_json", None)):
        try:
            result.to_json(os.path.join(folder, "result.json"))
        except (BaseParamError, TypeError):
            pass
    try:
        copy = pickle.loads(pickle.dumps(result))
        assert repr(copy) == repr(result)
        _ = result == copy
        if type(result).__hash__ is not None:
            hash(result)
    except (BaseParamError, TypeError):
        pass
    for text in texts:
        assert not isinstance(text, str) or len(text) <= 1_000_000, f"a text of {len(text)} characters"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_any_field_replaced_is_refused_or_the_result_is_usable(results, tmp_path, data):
    """The driver, bounded: a result type, one of its fields and an odd value for it; the result is refused with the
    library's own error (or a TypeError), or built and then used without another exception nor a text of
    megabytes."""
    name = data.draw(st.sampled_from(sorted(results)), label="result")
    result = results[name]
    field = data.draw(st.sampled_from([f.name for f in dataclasses.fields(result) if f.init]), label="field")
    value = data.draw(st.sampled_from(ODD + _variants(getattr(result, field))), label="value")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)             # the library's own warnings (its classes subclass it)
        warnings.simplefilter("error", RuntimeWarning)           # numpy's raw overflow / invalid-value warnings
        try:
            odd = dataclasses.replace(result, **{field: value})
        except (BaseParamError, TypeError):
            return
        _use(odd, str(tmp_path))
