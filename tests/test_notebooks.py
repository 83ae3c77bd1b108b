"""Every notebook in notebooks/ executes top to bottom (so examples cannot rot).

Notebooks that use the third-party measured data (their source mentions ``shared/data``) are
skipped when the data directory (``../shared/data``, or ``BASEPARAM_DATA``) is absent.
"""
import os
import pathlib

import pytest

from conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
DATA = pathlib.Path(os.environ.get("BASEPARAM_DATA") or ROOT / ".." / "shared" / "data")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path):
    nb = nbformat.read(path, as_version=4)
    if not DATA.is_dir() and any("shared/data" in cell.source for cell in nb.cells):
        pytest.skip(f"{path.name} needs the measured data in {DATA}")
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
