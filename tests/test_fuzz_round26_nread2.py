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


def _module_names(path):
    """Names a module defines at its top level (functions, classes, assignments, also under if/try/with/for) and its
    __all__: not a function's locals or a class's attributes, nor the module in ``os.environ[...] = ...``, which an
    ``ast.walk`` of the whole file took for definitions (``from .design import condition_number`` passed: a field of
    ExcitationDesign)."""
    import ast

    names = set()

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(n.id for t in targets for n in ast.walk(t)
                             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                    names.update(e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant))
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For)):
                for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", []),
                              *(handler.body for handler in getattr(node, "handlers", []))):
                    visit(block)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return names


def test_a_name_is_imported_from_the_module_that_defines_it():
    # identification/_record re-exported motion's names to six readers; payload and payload_wrench took motion's
    # interp_columns through preprocessing, writers errors.printable through _validation, _floating_bags
    # _validation.quaternion_norms through motion. A module (not a package, whose __init__ re-exports by design)
    # is asked only for the names it defines or lists in __all__
    import ast
    from pathlib import Path

    root = Path(bp.__file__).resolve().parent
    defined = {}            # each module's names, parsed once
    wrong = []
    for path in sorted(root.rglob("*.py")):
        package = path.relative_to(root.parent).parent.parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            parts = list(package[:len(package) - node.level + 1]) + (node.module.split(".") if node.module else [])
            target = root.parent.joinpath(*parts).with_suffix(".py")
            if not target.exists():
                continue
            if target not in defined:
                defined[target] = _module_names(target)
            names = defined[target]
            wrong += [f"{path.relative_to(root)}: {alias.name} from {target.relative_to(root)}" for alias in node.names
                      if alias.name not in names]
    assert not wrong
