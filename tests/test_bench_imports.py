"""The bench scripts still import: they are not run by the suite (too long), but a module moved or
renamed in the package must not leave one of them broken."""
import importlib.util
import sys

import pytest

from conftest import ROOT

SCRIPTS = sorted((ROOT / "bench").glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_bench_script_imports(path, monkeypatch):
    monkeypatch.syspath_prepend(str(path.parent))          # scripts import their siblings
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)                          # runs the imports, not main()
    assert callable(getattr(module, "main", None)), f"{path.name} has no main()"
