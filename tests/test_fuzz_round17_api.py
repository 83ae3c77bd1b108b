"""Regressions of issue 28's seventeenth fuzzing round over the Python API (``baseparam.__all__`` and the subpackages'):
result classes built by hand, numbers beyond the float range, and what the round's other drivers found. The fuzzer
was a throwaway (a forked process per case with a timeout and an address-space limit); each case below failed before
its fix."""
import dataclasses
import fractions
import importlib

import numpy as np
import pytest

import baseparam as bp
from baseparam.excitation import IdentificationErrors, SavedExcitation, SearchSummary, StaticPoses
from conftest import ROOT

SUBPACKAGES = ("baseparam", "baseparam.codegen", "baseparam.dynamics", "baseparam.excitation",
               "baseparam.identification", "baseparam.model", "baseparam.simulation")


def _public_dataclasses():
    seen = {}
    for name in SUBPACKAGES:
        module = importlib.import_module(name)
        for attribute in module.__all__:
            value = getattr(module, attribute)
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                seen.setdefault(value, f"{name}.{attribute}")
    return seen


def test_every_public_result_class_checks_its_fields_when_built():
    """Six exported dataclasses took any field: ``StaticPoses(np.full((2, 3), np.nan), np.inf, (1,)).to_dict()`` gave
    JSON with NaN (strict writers: a bare ValueError), ``StaticPoses('x', 1.0, (1,)).summary()`` "Unknown format code
    'f' for object of type 'str'", ``SearchSummary('x', …).deterministic`` a bare TypeError; IdentificationErrors,
    SavedExcitation, TrackingRun and FloatingExperiment alike. Each public result class now refuses a wrong field
    at construction (the shared ``_validation.check_field_kinds``/``check_finite_fields``/``float_fields``), as the
    others did: one ``__post_init__`` per class, which this guard asks of any class exported later."""
    unchecked = sorted(where for kind, where in _public_dataclasses().items() if not hasattr(kind, "__post_init__"))
    assert unchecked == []


@pytest.mark.parametrize("fields, words", [
    ((np.full((2, 3), np.nan), 1.0, (1,)), "StaticPoses.poses: expected finite numbers"),
    ((np.zeros((2, 3)), np.inf, (1,)), "StaticPoses.condition_number: expected finite numbers"),
    (("x", 1.0, (1,)), "StaticPoses.poses: not numeric"),
    ((np.zeros(3), 1.0, (1,)), r"StaticPoses.poses: expected shape \(n_poses, n_dof\), got \(3,\)"),
    ((np.zeros((2, 3)), "x", (1,)), "StaticPoses.condition_number: expected a number"),
    ((np.zeros((2, 3)), 1.0, None), "StaticPoses.moving: expected a tuple"),
    ((np.zeros((2, 3)), 1.0, ("a",)), "StaticPoses.moving: expected distinct 1-based joint numbers"),
])
def test_static_poses_built_by_hand_are_checked(fields, words):
    with pytest.raises(bp.ArgumentError, match=words) as caught:
        StaticPoses(*fields)
    assert "\n" not in str(caught.value)


def test_the_newest_result_classes_keep_what_the_library_builds():
    """The checks refuse nothing the library makes (and keep its numbers and joints as given)."""
    poses = StaticPoses(np.zeros((4, 6)), np.float64(3.5), [np.int64(5), 6])
    assert poses.moving == (5, 6) and type(poses.condition_number) is float
    assert poses.to_dict()["moving_joints"] == [5, 6]
    summary = SearchSummary(0, 2, 2, 1, 1, 0.5, None, (1.0, 2.0))
    assert summary.deterministic
    with pytest.raises(bp.ArgumentTypeError, match="SearchSummary.counted: expected a whole number, got str"):
        SearchSummary(0, 2, "2", 1, 1, 0.5, None, (1.0, 2.0))
    with pytest.raises(bp.ArgumentError, match="SearchSummary.seconds: expected finite numbers"):
        SearchSummary(0, 2, 2, 1, 1, np.nan, None, (1.0, 2.0))
    # cond inf: taken by the class, though identification_errors refuses a motion of a singular W_b (39d8196)
    errors = IdentificationErrors(0.1, [0.2, 0.3], None, np.inf, 3)
    assert "condition_number=inf" in repr(errors)
    with pytest.raises(bp.ArgumentTypeError, match="IdentificationErrors.parameter_error: expected a number"):
        IdentificationErrors("x", [0.2], None, 1.0, 3)
    with pytest.raises(bp.ArgumentTypeError, match="SavedExcitation.series: expected a baseparam.FourierSeries"):
        SavedExcitation("x", 10.0, None, "r", "cond", 1.0, {})
    with pytest.raises(bp.ArgumentTypeError, match="TrackingRun.reference: expected a baseparam.Reference"):
        bp.TrackingRun("x", None, None, np.zeros(3))
    with pytest.raises(bp.ArgumentTypeError, match="FloatingExperiment.log: expected a baseparam.Trajectory"):
        bp.FloatingExperiment("x", np.zeros((1, 0, 6)), (), None, np.zeros((1, 0, 6)), np.zeros(10), ())


@pytest.mark.parametrize("mass, words", [
    (10 ** 400, "PayloadResult.mass: a number beyond the float range"),
    (fractions.Fraction(10 ** 400), "PayloadResult.mass: a number beyond the float range"),
    (np.timedelta64(1, "s"), "PayloadResult.mass: expected a number, got timedelta64"),
    (np.timedelta64(1), "PayloadResult.mass: expected a number, got timedelta64"),
], ids=["int", "fraction", "timedelta-s", "timedelta"])
def test_a_numeric_field_beyond_float_or_of_time_is_refused_naming_it(mass, words):
    """``check_field_kinds`` turned a field's number into a plain float by ``float(value)``: an int or a Fraction beyond
    float64 was a bare OverflowError, a timedelta64 of a unit Python's "float() argument must be … not
    'datetime.timedelta'", one without a unit taken as a mass of 1."""
    fields = dict(mass=1.0, com=np.zeros(3), inertia=np.eye(3) * 0.01, mass_std=0.1, com_std=np.zeros(3),
                  inertia_std=np.zeros((3, 3)), parameters=np.zeros(10), unconstrained=np.zeros(10),
                  covariance=np.eye(10), identifiable=[], rank=10, mode="model", n_samples=10, rmse=np.zeros(6))
    assert bp.PayloadResult(**fields).mass == 1.0
    with pytest.raises(bp.ArgumentError, match=words) as caught:
        bp.PayloadResult(**{**fields, "mass": mass})
    assert "\n" not in str(caught.value)


def test_lists_of_numbers_beyond_float_are_refused_where_a_count_of_values_is_read():
    """``_numbers.flat_values`` (a pose, a noise per joint, a sensor placement) converted ``[10**400] * n`` with
    numpy: a bare OverflowError ("int too large to convert to float") where its callers say a wrong value."""
    from baseparam.excitation import suggest_static_poses
    from baseparam.identification.payload_wrench import sensor_placement

    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    with pytest.raises(bp.ArgumentError, match="pose: expected 6 finite joint positions"):
        suggest_static_poses(robot, 4, pose=[10 ** 400] * 6, candidates=8)
    with pytest.raises(bp.SettingsError, match="sensor: expected 6 finite numbers"):
        sensor_placement([fractions.Fraction(10 ** 400)] * 6)


def _saved_design(tmp_path, **changes):
    """A design's JSON document with ``changes`` (None: the field left out), written beside the test."""
    import json

    series = bp.FourierSeries(2.0, np.zeros(3), np.full((3, 2), 0.05), np.zeros((3, 2)))
    doc = {"robot": "r", "criterion": "cond", "condition_number": 27.0, "period": 2.0, "rate": 10.0,
           "coefficients": {"q0": series.q0.tolist(), "a": series.a.tolist(), "b": series.b.tolist()}}
    for key, value in changes.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    path = tmp_path / "design.json"
    # a JSON null and 400-digit integers written as text: json.dumps has no literal for either placeholder
    path.write_text(json.dumps(doc).replace('"NULL"', "null").replace('"HUGE"', "1" + "0" * 400))
    return path


@pytest.mark.parametrize("value, expected", [("NULL", np.inf), (None, None), (27, 27.0)],
                         ids=["null", "missing", "int"])
def test_a_saved_designs_condition_number_is_what_the_document_says(tmp_path, value, expected):
    """load_excitation read a null condition number (what json_text writes for inf), a text or none at all as NaN,
    silently, and took −1 and 0. Now null is inf, a missing field None, and what is no condition number refused."""
    from baseparam.excitation import load_excitation

    assert load_excitation(_saved_design(tmp_path, condition_number=value)).condition_number == expected


@pytest.mark.parametrize("value", ["x", -1, 0.5, True])
def test_a_saved_designs_condition_number_of_no_condition_is_refused(tmp_path, value):
    from baseparam.excitation import load_excitation

    with pytest.raises(bp.DataError, match="design.json: field condition_number: expected a number ≥ 1"):
        load_excitation(_saved_design(tmp_path, condition_number=value))


@pytest.mark.parametrize("field, words", [("period", "field period: expected a positive number, got inf"),
                                          ("rate", "field rate: expected a positive number, got inf")])
def test_json_integers_beyond_float_are_refused_by_their_field(tmp_path, field, words):
    """A JSON integer of 400 digits (a float literal such as 1e400 reads as inf) reached ``math.isfinite`` in the
    fields' checks as a bare OverflowError; the shared reader (_checks.read_json) reads it as ±inf, as json reads a
    float beyond the range, and the field's own check names it."""
    from baseparam.excitation import load_excitation

    with pytest.raises(bp.DataError, match=words):
        load_excitation(_saved_design(tmp_path, **{field: "HUGE"}))
    assert load_excitation(_saved_design(tmp_path, condition_number="HUGE")).condition_number == np.inf


@pytest.mark.parametrize("field, value, words", [
    ("com", np.zeros(5), r"PayloadResult.com: expected shape \(3,\), got \(5,\)"),
    ("inertia", np.zeros(3), r"PayloadResult.inertia: expected shape \(3, 3\), got \(3,\)"),
    ("inertia_std", np.zeros(2), r"PayloadResult.inertia_std: expected shape \(3, 3\)"),
    ("covariance", np.zeros((10, 9)), r"PayloadResult.covariance: expected shape \(10, 10\)"),
    ("poses", np.zeros(3), r"PayloadResult.poses: expected shape \(n_poses, n_dof\)"),
    ("parameters", np.broadcast_to(np.zeros(10), (10 ** 9, 10)), r"PayloadResult.parameters: expected shape \(10,\)"),
], ids=["com", "inertia", "inertia_std", "covariance", "poses", "broadcast"])
def test_a_payload_result_built_with_fields_of_another_shape_is_refused(field, value, words):
    """``PayloadResult(com=np.zeros(5), …)`` was taken: its repr and summary failed with numpy's "unsupported format
    string", ``to_dict`` with a bare IndexError, an inertia of 3 values with LinAlgError; one of 10⁹ broadcast rows was
    a bare MemoryError (the finite test's temporary). Shapes are told first now (``_validation.check_field_shapes``),
    and the finite test makes no temporary of a field's size."""
    fields = dict(mass=1.0, com=np.zeros(3), inertia=np.eye(3) * 0.01, mass_std=0.1, com_std=np.zeros(3),
                  inertia_std=np.zeros((3, 3)), parameters=np.zeros(10), unconstrained=np.zeros(10),
                  covariance=np.eye(10), identifiable=[], rank=10, mode="static", n_samples=10, rmse=np.zeros(6),
                  poses=np.zeros((4, 6)))
    with pytest.raises(bp.ArgumentError, match=words):
        bp.PayloadResult(**{**fields, field: value})


def test_a_finite_check_of_a_result_field_makes_no_temporary_of_its_size(monkeypatch):
    """check_finite_fields ran ``np.isfinite(arr).all()``: a boolean array as large as the field (a StaticPoses of 10⁹
    broadcast rows: 5.6 GiB, a bare MemoryError; it took poses with a NaN before); more poses than a suggestion makes
    are refused before a value is read. Measured by refusing any ``np.isfinite`` of more than a few values."""
    real = np.isfinite

    def small_only(x, *args, **kwargs):
        assert np.size(x) <= 4096, "a temporary of the field's size"
        return real(x, *args, **kwargs)

    rows = np.broadcast_to(np.zeros(6), (10 ** 9, 6))
    poses = np.zeros((40, 700))
    poses[-1, 0] = np.nan
    monkeypatch.setattr(np, "isfinite", small_only)
    with pytest.raises(bp.ArgumentError, match="StaticPoses.poses: expected at most 50 poses, got 1000000000"):
        StaticPoses(rows, 2.0, (5, 6))
    with pytest.raises(bp.ArgumentError, match="StaticPoses.poses: expected finite numbers"):
        StaticPoses(poses, 2.0, (5, 6))


def test_result_fields_of_another_shape_are_refused_by_every_class_that_indexes_them():
    """The same as PayloadResult's for three more classes: Metrics' rmse of 3 dimensions (to_dict's bare TypeError),
    FloatingIdentification's values and std (summary and to_dict), FitErrors' std shorter than its estimate (repr's
    bare ValueError): one length per named dimension."""
    metrics = bp.Metrics(np.ones(3), np.ones(3), 1.0, 5, np.arange(5.0), np.ones((5, 3)), np.ones((5, 3)))
    with pytest.raises(bp.ArgumentError, match=r"Metrics.rmse: expected shape \(n_dof,\), got \(2, 2, 2\)"):
        dataclasses.replace(metrics, rmse=np.zeros((2, 2, 2)))
    with pytest.raises(bp.ArgumentError, match=r"FitErrors.std: expected shape \(rank,\) \(rank = 3\), got \(2,\)"):
        bp.FitErrors("ols", ("a", "b", "c"), np.zeros(3), np.zeros(2), np.zeros(3), 1.0, None, None, None)
