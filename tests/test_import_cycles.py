"""No import cycles between baseparam's modules.

A cycle (``a`` imports ``b``, ``b`` imports ``a``, perhaps inside a function) means the two modules
are one idea cut in two, or that a shared piece belongs lower down: each module should be readable
and importable after the ones it uses. The imports are read from the source with ``ast``, at module
level and inside functions alike (a lazy import still ties the modules together).
"""
import ast
from pathlib import Path

import baseparam as bp

PACKAGE = Path(bp.__file__).resolve().parent


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules():
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _resolve(target, modules):
    """The module ``target`` names, or its package when ``target`` is a name inside a module."""
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def imports(name, path, modules):
    """The baseparam modules the module ``name`` (at ``path``) imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "baseparam":
                continue
            for alias in node.names:          # `from .pkg import submodule` imports the submodule
                target = f"{module}.{alias.name}"
                found.add(target if target in modules else _resolve(module, modules))
        elif isinstance(node, ast.Import):
            found.update(_resolve(alias.name, modules) for alias in node.names
                         if alias.name.split(".")[0] == "baseparam")
    found.discard(None)
    found.discard(name)
    return found


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_checker_finds_a_cycle_through_a_function_level_import(tmp_path):
    graph = {"baseparam.a": {"baseparam.b"}, "baseparam.b": {"baseparam.c"}, "baseparam.c": {"baseparam.a"},
             "baseparam.d": {"baseparam.a"}}
    assert cycles(graph) == [["baseparam.a", "baseparam.b", "baseparam.c"]]
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from .storage import x\n    from . import base_set\n")
    modules = {"baseparam.projection.m": source, "baseparam.projection.storage": None,
               "baseparam.projection.base_set": None, "baseparam.projection": None}
    assert imports("baseparam.projection.m", source, modules) == {"baseparam.projection.storage",
                                                                  "baseparam.projection.base_set"}


def test_no_import_cycles_between_modules():
    modules = _modules()
    graph = {name: imports(name, path, modules) for name, path in modules.items()}
    found = cycles(graph)
    assert not found, "import cycles (move the shared piece down): " + "; ".join(" ↔ ".join(c) for c in found)
