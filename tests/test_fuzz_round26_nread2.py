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
