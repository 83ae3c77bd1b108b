"""The package layout: stages import one way, and the public names resolve.

The layers, lowest first (a module may import from its own layer and the ones below):
errors, _checks, _atomic (with _output_names, _leftovers, _json_text), _numbers, _lazy, _memory, _blas, _figures,
_warnings, _processes, _hdf5 → model, motion, evaluation, _validation (argument checks; it knows the Robot type) →
dynamics → projection → identification | excitation | codegen → simulation → cli → _entry (the command's entry
point: signals from its first instruction) → __main__.
_stderr (a solver's output held off stderr) and _values (results compared by value) sit with errors, in the lowest
layer.
"""
import ast
import importlib
from pathlib import Path

import pytest

import baseparam as bp

PACKAGE = Path(bp.__file__).resolve().parent
LAYER = {"errors": 0, "_checks": 0, "_atomic": 0, "_output_names": 0, "_leftovers": 0, "_json_text": 0, "_numbers": 0,
         "_lazy": 0, "_memory": 0, "_blas": 0, "_figures": 0,
         "_warnings": 0, "_processes": 0, "_hdf5": 0, "model": 1, "motion": 1, "evaluation": 1, "_validation": 1,
         "dynamics": 2, "projection": 3, "identification": 4, "excitation": 4, "codegen": 4, "simulation": 5, "cli": 6,
         "_entry": 7, "__main__": 8, "_stderr": 0, "_values": 0}
SIBLINGS = {"identification", "excitation", "codegen"}       # same height, but none depends on another


def _stage(parts):
    """The top-level stage of a module given as parts below ``baseparam``."""
    head = parts[0]
    head = head[:-3] if head.endswith(".py") else head
    return bp._WHERE.get(head, head)          # a public name of the top level: the stage defining it


def _imported_stages(path):
    """Stages of ``baseparam`` that the module at ``path`` imports (module-level or inside functions),
    including through the top level (``import baseparam``, ``from baseparam import name``) and by
    ``importlib.import_module("baseparam.…")``."""
    parts = path.relative_to(PACKAGE).parts
    tree = ast.parse(path.read_text(encoding="utf-8"))
    stages = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(parts[:-1])[: len(parts) - node.level] if node.level > 1 else list(parts[:-1])
                target = base + (node.module.split(".") if node.module else [])
                if not target:             # `from . import x` at the top level
                    stages.update(_stage([alias.name]) for alias in node.names)
                    continue
            elif node.module and node.module.split(".")[0] == "baseparam":
                target = node.module.split(".")[1:]
                if not target:             # `from baseparam import name`
                    stages.update(_stage([alias.name]) for alias in node.names)
                    continue
            else:
                continue
            stages.add(_stage(target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names = alias.name.split(".")
                if names[0] == "baseparam":
                    # a bare `import baseparam` reaches every stage through the lazy top level
                    stages.add(_stage(names[1:]) if len(names) > 1 else "baseparam (the whole package)")
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == \
                "import_module" and node.args and isinstance(node.args[0], ast.Constant) \
                and str(node.args[0].value).startswith("baseparam."):
            stages.add(_stage(str(node.args[0].value).split(".")[1:]))
    return stages


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_one_way(path):
    own = _stage(path.relative_to(PACKAGE).parts)
    for stage in _imported_stages(path):
        assert stage in LAYER, f"{path.name} imports an unknown stage {stage!r}"
        if stage == own:
            continue
        assert LAYER[stage] < LAYER[own] or (LAYER[stage] == LAYER[own] and not {stage, own} <= SIBLINGS), \
            f"{path.relative_to(PACKAGE)} ({own}) imports {stage}, a later stage of the pipeline"


def test_every_public_name_resolves():
    for name in bp.__all__:
        assert getattr(bp, name) is not None, name
    assert set(bp.__all__) <= set(dir(bp))
    with pytest.raises(AttributeError):
        bp.no_such_name  # noqa: B018


def test_subpackages_export_what_the_top_level_does():
    for package, names in bp._LAZY.items():
        module = importlib.import_module(f"baseparam.{package}")
        for name in names:
            assert getattr(module, name) is getattr(bp, name)
        assert set(names) <= set(module.__all__)


def test_the_package_docstring_maps_every_public_name_of_the_stages():
    # STYLE.md: the package docstring is the map of the API. identify_payload, PayloadResult, Identification,
    # parse_robot, ... were public and named nowhere in it (the exceptions and warnings: errors' own docstring)
    import re

    # as a reference (:func:`momentum`, ``regressor``), not a word of the prose: "base equations, or momentum" named
    # momentum, and the test passed without :func:`momentum`
    unnamed = [name for name in bp._WHERE if not re.search(rf"[`~.]{name}`", bp.__doc__)]
    assert not unnamed


def test_docstrings_state_no_timings_of_this_machine():
    """Benchmark figures (µs or ns per call, "five times faster") go stale and belong to the bench scripts and the
    README, which print and date them, not to docstrings (issue 22, item 6). Other figures stay: a log's delay in
    ms, a polling step, a paper's reported ratio."""
    import re
    timing = re.compile(r"\d[\d.,]*(?:–[\d.,]+)?\s?(?:[µμ]s|ns)\b|\b(?:\d+|two|three|four|five|ten) times faster\b|"
                        r"\bsome\s[\d.–]+\s?ms\b")
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=False) or ""
                found += [f"{path.relative_to(PACKAGE)}: {m.group(0)!r}" for m in timing.finditer(doc)]
    assert not found, "timings in docstrings (bench/ prints them):\n" + "\n".join(found)


def test_library_messages_name_no_command_line_flags():
    """Library messages name the library's parameters; the CLI shows them as its flags through one table
    (baseparam.cli.FLAGS). A string of the library (docstrings aside) that names ``--flag`` bypasses the table:
    a Python user reads a flag they cannot pass, and the CLI may show the flag twice (issue 22, item 4)."""
    import re
    flag = re.compile(r"(?<![\w-])--[a-z]")          # quoted or in backticks too: '--payload', `--payload`
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() in ("cli.py", "_entry.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
        found += [f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                  and flag.search(node.value)]
    assert not found, "library strings naming command-line flags:\n" + "\n".join(found)


TOP_LEVEL = {".ci", ".gitignore", "README.md", "pyproject.toml", "baseparam", "bench", "data", "docs", "notebooks",
             "out", "robots", "tests"}


def test_the_tree_holds_only_the_projects_folders():
    """Every tracked file sits in one of the project's top-level folders: a fuzz run's export outputs (x/bp.json,
    'a\\nb/bp_dynamics.py') were committed with a fix once (stop 45) and shipped in the repository."""
    import shutil
    import subprocess
    root = PACKAGE.parent
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True, timeout=60)
    tops = {name.split("/", 1)[0] for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if name}
    assert tops <= TOP_LEVEL, f"tracked outside the project's folders: {sorted(tops - TOP_LEVEL)}"
