"""A newcomer's read of the tree (issue 22): what ``help()`` and the docstrings tell a reader."""
import inspect

import baseparam as bp


def test_find_base_parameters_shows_its_own_signature_and_docstring():
    # The entry point was decorated with functools.wraps of the base set's function: help() and
    # inspect.signature followed __wrapped__ and showed that function's signature, without symbolic= and h5=
    signature = inspect.signature(bp.find_base_parameters)
    assert {"robot", "parameters", "symbolic", "h5", "options"} <= set(signature.parameters)
    assert not hasattr(bp.find_base_parameters, "__wrapped__")
    doc = inspect.getdoc(bp.find_base_parameters)
    for name in ("symbolic :", "h5 :", "**options", "progress", "max_disk", "max_degree"):
        assert name in doc, name


def test_readers_take_the_motion_names_from_motion():
    # identification/_record imported Trajectory, MIN_SAMPLES and three private helpers of baseparam.motion only
    # to hand them on to six readers: a reader now imports them from where they live
    import ast
    from pathlib import Path

    from baseparam import motion
    from baseparam.identification import _record

    assert not {"Trajectory", "MIN_SAMPLES", "_coarse_note", "_coarse_time", "_field_label"} & set(vars(_record))
    folder = Path(_record.__file__).parent
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "_record" and node.level == 1:
                taken = {alias.name for alias in node.names}
                assert not taken & set(vars(motion)), (path.name, taken & set(vars(motion)))


def test_motion_comparison_table_columns_are_fit_errors_attributes():
    # MotionComparison.table listed FitErrors' attributes by hand beside a COLUMNS tuple naming them otherwise
    # ('cond' for condition_number): the table now reads the attributes COLUMNS names, in the same order
    from types import SimpleNamespace

    import numpy as np

    from baseparam.simulation.experiment import COLUMNS, FitErrors, MotionComparison

    def fit(k):
        return FitErrors("ols", ("a", "b"), np.array([1.0 + k, 2.0]), np.array([0.1, 0.2]), np.array([1.0, 2.5]),
                         condition_number=10.0 + k, torque_error=0.01 * k, validation_nrmse_percent=3.0 - k,
                         identification=None)
    fits = [fit(k) for k in range(3)]
    assert all(hasattr(fits[0], name) for name in COLUMNS)
    rows = MotionComparison.table(SimpleNamespace(fits={("m", "ols"): fits}))
    by_hand = [[f.condition_number, f.parameter_error, f.median_relative_error, f.within_3_sigma, f.torque_error,
                f.validation_nrmse_percent] for f in fits]
    assert rows == [("m", "ols", *np.median(np.array(by_hand), axis=0).tolist())]


def test_a_fixed_base_refusal_names_what_takes_floating_bases():
    # require_fixed_base's hint said only "forward dynamics, wrenches and simulation take floating bases", long after
    # find, export and identification took them too: the hint now names the base set, and the base set is found
    from pathlib import Path

    import pytest

    robot = bp.load_robot(Path(__file__).resolve().parents[1] / "robots" / "space_robot.yaml")
    with pytest.raises(bp.ArgumentError, match=r"fixed-base robots only for now \(the base set, export, "
                                                r"floating-base identification"):
        bp.design_excitation(robot)
    assert bp.find_base_parameters(robot).rank > 0
