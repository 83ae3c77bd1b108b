"""What a run of the engine will need in memory, told before it starts, against what it may use.

Both figures are upper bounds computed from the robot's structure alone (joint types, the tree),
in a few microseconds per joint, so that a robot too large is refused at once, with the figure:
:func:`row_space_bytes` for the base set (:mod:`._row_space`, then the reduction),
:func:`z_file_bytes` for streaming the whole Z (``find --h5``): its size on disk grows as 5^N, but
the depth-first recursion that writes it holds a bounded piece per joint of its path.
"""
from __future__ import annotations

from .._memory import budget_source, check_memory
from ._coordinates import BLOCK_ENTRIES, PIECE

# Y-basis targets of a joint's sandwiches (|Y_k|) and of its coefficient matrices Ã (|X_k|).
TARGETS = {"revolute": 5, "prismatic": 3}
FACTORS = {"revolute": 3, "prismatic": 2}
BYTES_PER_ENTRY = 96       # a Z entry while it is collected and assembled (float and modular, sort, unique)
SIDES = 2                  # exact (or modular) rows and float moment rows
BYTES_PER_DENSE = 8 * 3    # a dense float64 entry in the reduction's chunks, with its temporaries
BYTES_PER_EXACT = 300      # an entry of the exact Gram matrix and of Y (Python integers, Fractions, display copy)
FIXED = 4_000_000          # the joints' operators, the arithmetic's choice, the result's lists
REDUCTION_CHUNK_ROWS = 50_000
BYTES_PER_TERM = 8 * (16 + 16 + 2) * 3   # a term of the whole-Z recursion: float and modular 4×4, key, pair


def _subtree_sizes(parents):
    size = [1] * len(parents)
    for k in range(len(parents) - 1, -1, -1):
        if parents[k] >= 0:
            size[parents[k]] += size[k]
    return size


def row_space_bytes(layout, parents, joint_types):
    """Upper bound of the memory (bytes) of :func:`~baseparam.projection._row_space.row_basis` and the
    reduction, from the structure alone.

    Per joint at most (|Y|−1)·16 + |Y|·16 + |Y| kinetic rows start (the candidates from bases of at
    most 16 vectors; float runs keep at most 16 of them a side), (|X|−1)·4 potential ones and the
    rotor row, each with entries in the links below it (through the row maps: 16 × and 4 × those
    columns).

    Parameters
    ----------
    layout : ColumnLayout
    parents : sequence of int
    joint_types : sequence of {'revolute', 'prismatic'}
    """
    n_std = layout.n_standard
    size = _subtree_sizes(parents)
    per_joint = [(2 * TARGETS[kind] - 1) * 16 + TARGETS[kind] + (FACTORS[kind] - 1) * 4 + 1 for kind in joint_types]
    rows = sum(per_joint) + len(layout.friction_columns)
    entries = sum(r * 10 * s for r, s in zip(per_joint, size))
    maps = sum((16 + 4) * 10 * s for s in size) * 8 * SIDES
    candidates = max(per_joint, default=0) * 16 * 8 * 4
    collect = BYTES_PER_ENTRY * entries + maps + candidates + 12 * rows * len(parents)
    reduce = BYTES_PER_DENSE * min(rows, REDUCTION_CHUNK_ROWS) * n_std + BYTES_PER_EXACT * n_std * n_std
    return FIXED + collect + reduce


def z_file_bytes(parents):
    """Memory (bytes) of streaming the whole Z (``find --h5``): the depth-first recursion holds a piece of
    terms per joint of its current path, and one block of entries is assembled at a time."""
    depth = [0] * len(parents)
    for k, p in enumerate(parents):
        depth[k] = 1 + (depth[p] if p >= 0 else 0)
    longest = max(depth, default=0)
    return BYTES_PER_TERM * PIECE * TARGETS["revolute"] * longest + BYTES_PER_ENTRY * BLOCK_ENTRIES


def refuse_if_too_large(name, needed, max_memory=None, what="the projection"):
    """Raise ResourceLimitError when ``needed`` bytes exceed the budget (``max_memory`` or 80 % of the
    available memory), naming both figures."""
    def source():               # read only when refused
        return "the max_memory given" if max_memory is not None else f"{budget_source()}; raise it with max_memory=SIZE"
    check_memory(needed, lambda need, allowed: f"{name}: {what} would need up to about {need} of memory, more than "
                                               f"the {allowed} allowed ({source()})", max_memory)


Z_ENTRIES_PER_ROW = 8          # a stored row of Z holds about 7.3 entries (generic chains of 5 to 8 joints)
H5_OVERHEAD = 2_000_000        # the HDF5 file's own structures, the first chunks of each dataset


def z_disk_bytes(parents, joint_types):
    """Estimated size (bytes, on the generous side) of the HDF5 file of the whole Z (``find --h5``).

    Z has at most one row per combination of basis functions of the joints of one path from the base,
    ∏ |Y_k| (5 per revolute, 3 per prismatic joint), summed over the tree's leaves; a row stores its
    label (2 + N integers), its row pointer and about 8 entries (value and column index). For generic
    chains of 5 to 8 joints this is 1.7 to 1.9 times the file written.
    """
    n = len(parents)
    rows_to = [0] * n                  # ∏ |Y| along the path from the base to each joint
    for k, p in enumerate(parents):
        rows_to[k] = TARGETS[joint_types[k]] * (rows_to[p] if p >= 0 else 1)
    leaves = set(range(n)) - set(parents)
    rows = sum(rows_to[k] for k in leaves)
    return H5_OVERHEAD + rows * (8 * (n + 3) + 16 * Z_ENTRIES_PER_ROW)
