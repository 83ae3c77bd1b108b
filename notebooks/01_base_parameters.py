# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Base parameters of the PUMA 560 by the projection method
#
# This notebook reproduces the table at the end of Krutikov's paper, then shows what the result
# object offers: the regroupings as exact numbers, the matrix **Y** (SI) that maps standard to base
# parameters, and the coordinate matrix **Z** stored in HDF5.

# %%
import os
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import baseparam as bp

# The repository (robots/, bench/, notebooks/_helpers.py) from any working directory: $BASEPARAM_ROOT,
# else the working directory or its parent (Jupyter starts the kernel in notebooks/), else the checkout
# the package was installed from (pip install -e).
ROOT = next(root for root in (Path(os.environ.get("BASEPARAM_ROOT", ".")), Path.cwd().parent,
                              Path(bp.__file__).resolve().parents[1])
            if (root / "notebooks" / "_helpers.py").is_file())
sys.path.insert(0, str(ROOT / "notebooks"))
from _helpers import robot_file  # noqa: E402  (found just above)

robot = bp.load_robot(robot_file("puma560.yaml"))
base = bp.find_base_parameters(robot)
base

# %%
print(base.summary())      # the table `baseparam find` prints

# %% [markdown]
# The regroupings are exact rationals: the paper prints 186451 for 431.8², here it is exact.

# %%
r = base.names.index("XX2")
base.terms(r)

# %% [markdown]
# **Y** is in SI units (metres): p_base = Y p for any standard parameter vector p.
# plt.show()

# %%
fig, ax = plt.subplots(figsize=(10, 5))
im = ax.imshow(np.sign(base.Y) * np.log10(1 + np.abs(base.Y) * 1e3), cmap="coolwarm", aspect="auto")
ax.set_xticks(range(len(base.standard_names)), base.standard_names, rotation=90, fontsize=6)
ax.set_yticks(range(base.rank), base.names, fontsize=6)
ax.set_title("Y (signed log scale): which standard parameters each base parameter regroups")
fig.tight_layout()

# %% [markdown]
# The coordinate matrix Z (rows = basis functions, columns = standard parameters) is kept in HDF5 as a
# sparse CSR group with row labels (i, j, l_1 … l_N). Check the defining identity Z = Z̃ Y.

# %%
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "puma.h5"
    bp.find_and_store(robot, str(path))
    stored = bp.read_h5(path)
Z = stored["Z"].toarray()
print("Z:", Z.shape, f"{stored['Z'].nnz} non-zeros")
print("max |Z - Z[:, pivots] Y| =", np.abs(Z[:, base.pivots] @ base.Y - Z).max())
assert np.allclose(Z[:, base.pivots] @ base.Y, Z, atol=1e-9 * np.abs(Z).max())
