"""The bench scripts still import: they are not run by the suite (too long), but a module moved or
renamed in the package must not leave one of them broken."""
import importlib.util
import sys

import pytest

from conftest import ROOT

SCRIPTS = sorted((ROOT / "bench").glob("*.py"))
MODULES = [p for p in SCRIPTS if not p.name.startswith("_")]     # _scope.py: a helper the scripts share


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_bench_script_imports(path, monkeypatch):
    monkeypatch.syspath_prepend(str(path.parent))          # scripts import their siblings
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)                          # runs the imports, not main()
    assert callable(getattr(module, "main", None)), f"{path.name} has no main()"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_bench_script_says_which_robots_it_runs_on(path, monkeypatch):
    """Every script runs on every robot in robots/ or says, in the one line it prints first, which it
    runs on and why not the others (bench/_scope.py)."""
    monkeypatch.syspath_prepend(str(path.parent))
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    used, why = module.SCOPE
    robots = {p.name for p in (ROOT / "robots").glob("*.yaml")}
    assert used is None or set(used) <= robots, sorted(set(used) - robots)
    line = module.scope_line(module.SCOPE)
    assert why and "\n" not in line and line.startswith("robots/: ")
