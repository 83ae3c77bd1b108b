"""Review of nread2 (a newcomer's read, issue 22): the subpackages' maps, as the package docstring's."""
import importlib
import re

import pytest


# identification is left out while another branch edits it: its docstring does not name Processed yet
@pytest.mark.parametrize("package", ["projection", "model", "codegen", "excitation", "dynamics", "simulation"])
def test_a_subpackage_docstring_maps_every_name_it_exports(package):
    # STYLE.md: a package's docstring is the map of its API. excitation exported IdentificationErrors and
    # SearchSummary, codegen ExportError, and named them nowhere in it
    module = importlib.import_module(f"baseparam.{package}")
    unnamed = [name for name in module.__all__ if not re.search(rf"[`~.]{name}`", module.__doc__)]
    assert not unnamed
