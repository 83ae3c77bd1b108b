"""HDF5 storage of Z, its labels, the pivots and Y (CONTRACT.md, ``--h5``), written atomically.

Z is a self-describing CSR group (attrs shape, encoding, version; datasets data/indices/indptr),
streamed block by block so that large robots never hold it in memory. Values are SI.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._atomic import atomic_path
from ._coordinates import MagnitudeStats, z_blocks
from ..errors import StorageError
from ..model.robot import robot_to_yaml
from ._working_units import EXACT_LIMIT, choose_working_units

FORMAT_VERSION = 1


def _row_length_power(labels, prismatic):
    """Length power of each row's basis function (prismatic velocities and positions carry metres)."""
    i, j, digits = labels[:, 0], labels[:, 1], labels[:, 2:] - 1
    power = (digits * prismatic[None, :]).sum(axis=1)
    kinetic = i > 0
    pi = np.where(kinetic, prismatic[np.clip(i - 1, 0, None)], 0)
    pj = np.where(kinetic, prismatic[np.clip(j - 1, 0, None)], 0)
    return np.where(kinetic, power + pi + pj, power)


def si_block(block, units, layout, prismatic, transform):
    """Convert a Z block from working units to SI (and to the Khalil columns if asked).

    Z_SI = Z_work · λ^(b − e_c − ρ_row) · (|g| factor on potential rows), b = 2 kinetic, 1 potential.
    """
    labels = block.labels
    lam = float(units.length_unit)
    potential = labels[:, 0] == 0
    friction = labels[:, 0] < 0
    base = np.where(potential, 1, 2)
    rho = _row_length_power(labels, prismatic)
    m = block.matrix.tocoo()
    expo = base[m.row] - layout.length_power[m.col] - rho[m.row]
    vals = m.data * lam ** expo.astype(float)
    vals = np.where(potential[m.row], vals * units.gravity_factor, vals)
    vals = np.where(friction[m.row], m.data, vals)
    Z = sp.csr_matrix((vals, (m.row, m.col)), shape=m.shape)
    return Z @ transform if transform is not None else Z


class ZWriter:
    """Streams Z into an HDF5 file (see :meth:`write`)."""

    @staticmethod
    def write(path, robot, layout, base, max_terms=None):
        """Write Z (with joint offsets, SI), row labels, columns, pivots and Y to ``path`` atomically."""
        import h5py   # imported here: most runs never touch HDF5, and h5py costs import time

        units = choose_working_units(robot, include_offsets=True)   # its prime may differ from find's: Z's
        # float values do not depend on it (terms are dropped only when zero mod p *and* round-off)
        stats = MagnitudeStats()
        prismatic = np.array([not j.is_revolute for j in robot.joints], dtype=np.int64)
        transform = None
        if layout.parameters != "pseudo":
            transform = sp.csr_matrix(np.array([[float(v) for v in row]
                                                for row in layout.pseudo_to_parameterization()]))
        with atomic_path(path, ".h5.tmp") as tmp, h5py.File(tmp, "w") as f:
            f.attrs.update(format="baseparam", format_version=FORMAT_VERSION, parameters=layout.parameters,
                           robot=robot_to_yaml(robot), units="SI", rank=base.rank, rank_exact=base.exact,
                           z_exact=units.exact, note=base.note)
            g = f.create_group("Z")
            g.attrs.update(encoding="csr_matrix", version=FORMAT_VERSION)
            n_lab = 2 + robot.n_dof
            d_data = g.create_dataset("data", (0,), maxshape=(None,), dtype="f8", chunks=(65536,))
            d_ind = g.create_dataset("indices", (0,), maxshape=(None,), dtype="i8", chunks=(65536,))
            d_ptr = g.create_dataset("indptr", (1,), maxshape=(None,), dtype="i8", chunks=(65536,))
            d_rows = g.create_dataset("rows", (0, n_lab), maxshape=(None, n_lab), dtype="i8", chunks=(4096, n_lab))
            g.create_dataset("columns", data=np.array(layout.names, dtype=object), dtype=h5py.string_dtype())
            n_rows = nnz = 0
            for block in z_blocks(units, layout, robot.n_dof, stats, max_terms, robot.parents):
                Z = si_block(block, units, layout, prismatic, transform)
                Z.eliminate_zeros()
                Z.sort_indices()
                r, z = Z.shape[0], Z.nnz
                for ds, new in ((d_data, Z.data), (d_ind, Z.indices)):
                    ds.resize((nnz + z,))
                    ds[nnz:] = new
                d_ptr.resize((n_rows + r + 1,))
                d_ptr[n_rows + 1:] = Z.indptr[1:] + nnz
                d_rows.resize((n_rows + r, n_lab))
                d_rows[n_rows:] = block.labels
                n_rows, nnz = n_rows + r, nnz + z
            g.attrs["shape"] = (n_rows, layout.n_standard)
            f.create_dataset("pivots", data=np.asarray(base.pivots, dtype=np.int64))
            f.create_dataset("Y", data=np.asarray(base.Y, dtype=float))
            f.create_dataset("base_names", data=np.array(base.names, dtype=object), dtype=h5py.string_dtype())
            if units.exact and stats.max_abs >= EXACT_LIMIT:
                raise StorageError(f"{path}: Z overflowed exact integer arithmetic")


def read_h5(path):
    """Read a file written by :class:`ZWriter`.

    Returns
    -------
    dict
        ``Z`` (scipy.sparse.csr_matrix, SI), ``rows`` (ndarray, (n_rows, 2 + N)), ``columns`` (list of
        str), ``pivots`` (ndarray), ``Y`` (ndarray), ``attrs`` (dict).
    """
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") != "baseparam":
                raise StorageError(f"{path}: not a baseparam HDF5 file")
            g = f["Z"]
            Z = sp.csr_matrix((g["data"][()], g["indices"][()], g["indptr"][()]), shape=tuple(g.attrs["shape"]))
            return {"Z": Z, "rows": g["rows"][()],
                    "columns": [c.decode() if isinstance(c, bytes) else c for c in g["columns"][()]],
                    "pivots": f["pivots"][()], "Y": f["Y"][()], "attrs": dict(f.attrs)}
    except (OSError, KeyError) as exc:
        raise StorageError(f"{path}: cannot read baseparam HDF5 ({exc})") from None
