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
