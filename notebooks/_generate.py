"""Shared by the notebook generators: build a notebook from cells, execute it, write it."""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_notebook

HERE = Path(__file__).resolve().parent


def build(cells):
    """A notebook of ``cells`` with the Python 3 kernel."""
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def write_notebooks(notebooks, description, argv=None):
    """Execute (unless --no-execute) and write each ``{file name: cell factory}`` into notebooks/."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--no-execute", action="store_true", help="write the notebooks without running them")
    args = parser.parse_args(argv)
    for name, make in notebooks.items():
        nb = build(make())
        if not args.no_execute:
            import nbclient

            start = time.perf_counter()
            nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                    resources={"metadata": {"path": str(HERE)}}).execute()
            print(f"{name}: executed in {time.perf_counter() - start:.1f} s")
        nbformat.validate(nb)
        nbformat.write(nb, HERE / name)
        print(f"wrote {HERE / name}")
    return 0
