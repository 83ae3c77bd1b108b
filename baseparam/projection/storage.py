"""HDF5 storage of Z, its labels, the pivots and Y, written atomically (docs/formats.md, section
"Coordinate matrix Z").

Z is a self-describing CSR group streamed block by block, so large robots never hold it in memory; SI.
h5py and scipy.sparse are imported in the functions that use them: ``baseparam find`` without ``--h5``
needs neither (bench/bench_startup.py).
"""
from __future__ import annotations

import os

import numpy as np

from .._atomic import atomic_path
from .._output_names import file_size_limit, free_space, robot_protected
from .._checks import check_progress
from .._hdf5 import check_h5_output, refuse_external, stored_dataset, writes_checked
from .._memory import budget, format_size, parse_size
from .._validation import check_flag, check_input
from ..errors import ResourceLimitError, StorageError, printable
from ..model.robot import robot_to_yaml
from . import base_set
from ._budget import H5_OVERHEAD, refuse_if_too_large, z_disk_bytes, z_file_bytes
from ._coordinates import MagnitudeStats, ZBlock, z_blocks
from ._floating import VIRTUAL, chain_arithmetic, drop_virtual, engine_of
from ._reduction import BlockTransform
from ._working_units import EXACT_LIMIT, Arithmetic

FORMAT_VERSION = 1
MAX_LABELLED_DOF = 27    # 5^27 < 2^63: the packed keys of Z's row labels


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

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n_rows, n_standard)
        The engine's numpy-only block (:class:`~baseparam.projection._sparse.CSR`) becomes scipy here.
    """
    import scipy.sparse as sp

    labels = block.labels
    lam = float(units.length_unit)
    potential = labels[:, 0] == 0
    friction = labels[:, 0] < 0
    base = np.where(potential, 1, 2)
    rho = _row_length_power(labels, prismatic)
    row, col, data = block.matrix.tocoo()
    expo = base[row] - layout.length_power[col] - rho[row]
    vals = data * lam ** expo.astype(float)
    vals = np.where(potential[row], vals * units.gravity_factor, vals)
    vals = np.where(friction[row], data, vals)
    Z = sp.csr_matrix((vals, (row, col)), shape=block.matrix.shape)
    return Z @ transform if transform is not None else Z


class _ZFile:
    """Streams Z, in SI, into an open HDF5 file; a new start (exact integers overflowed: floats)
    starts the file over."""

    def __init__(self, f, layout, n_dof, prismatic, disk=None):
        import scipy.sparse as sp

        self.f, self.layout, self.n_dof, self.prismatic = f, layout, n_dof, prismatic
        self.disk = disk            # (bytes allowed, what bounds them, robot name) or None
        self.transform = None if layout.parameters == "pseudo" else sp.csr_matrix(BlockTransform.of(layout).floats())

    def start(self, units):
        import h5py

        f, n_lab = self.f, 2 + self.n_dof
        for name in list(f):
            del f[name]
        self.units, self.n_rows, self.nnz = units, 0, 0
        g = f.create_group("Z")
        g.attrs.update(encoding="csr_matrix", version=FORMAT_VERSION)
        self.d_data = g.create_dataset("data", (0,), maxshape=(None,), dtype="f8", chunks=(65536,))
        self.d_ind = g.create_dataset("indices", (0,), maxshape=(None,), dtype="i8", chunks=(65536,))
        self.d_ptr = g.create_dataset("indptr", (1,), maxshape=(None,), dtype="i8", chunks=(65536,))
        self.d_rows = g.create_dataset("rows", (0, n_lab), maxshape=(None, n_lab), dtype="i8", chunks=(4096, n_lab))
        g.create_dataset("columns", data=np.array(self.layout.names, dtype=object), dtype=h5py.string_dtype())
        self.group = g

    def add(self, block):
        Z = si_block(block, self.units, self.layout, self.prismatic, self.transform)
        Z.eliminate_zeros()
        Z.sort_indices()
        for ds, new in ((self.d_data, Z.data), (self.d_ind, Z.indices), (self.d_ptr, Z.indptr[1:] + self.nnz),
                        (self.d_rows, block.labels)):         # each dataset extended by the block's part
            end = ds.shape[0]
            ds.resize((end + len(new), *ds.shape[1:]))
            ds[end:] = new
        self.n_rows, self.nnz = self.d_rows.shape[0], self.d_data.shape[0]
        stored = H5_OVERHEAD + self.n_rows * 8 * (self.n_dof + 3) + self.nnz * 16
        if self.disk is not None and stored > self.disk[0]:
            allowed, why, name = self.disk
            raise ResourceLimitError(f"{name}: the file of the whole Z has passed {format_size(allowed)} ({why}) "
                                     f"after {self.n_rows} rows; stopped (nothing written)")

    def finish(self, robot, base):
        import h5py

        f = self.f
        f.attrs.update(format="baseparam", format_version=FORMAT_VERSION, parameters=self.layout.parameters,
                       robot=robot_to_yaml(robot), units="SI", rank=base.rank, rank_exact=base.exact,
                       z_exact=self.units.exact, note=base.note)
        self.group.attrs["shape"] = (self.n_rows, self.layout.n_standard)
        f.create_dataset("pivots", data=np.asarray(base.pivots, dtype=np.int64))
        f.create_dataset("Y", data=np.asarray(base.Y, dtype=float))
        f.create_dataset("base_names", data=np.array(base.names, dtype=object), dtype=h5py.string_dtype())


def _store(arithmetic, zfile, engine, parents, progress, floating):
    """Stream the whole Z into the file: exact integers, else the first float candidate (Z's float values
    do not depend on the prime: terms are dropped only when zero modulo p *and* round-off in float).
    A ``floating`` base: ``engine``, ``arithmetic`` and ``parents`` are its chain's (:mod:`._floating`), whose
    virtual links' columns are dropped from each block."""
    for units in arithmetic.candidates():
        zfile.start(units)
        stats = MagnitudeStats()
        for block in z_blocks(units, engine, len(parents), stats, parents, progress=progress):
            if units.exact and stats.max_abs >= EXACT_LIMIT:
                break
            if floating:
                block = ZBlock(block.labels, drop_virtual(block.matrix), drop_virtual(block.modular))
            zfile.add(block)
        else:
            return units
    raise arithmetic.no_prime()


def find_and_store(robot, path, parameters="pseudo", *, progress=None, force_float=False, max_memory=None,
                   max_disk=None):
    """Base parameters of a robot, with Z, its labels, the pivots and Y stored in an HDF5 file.

    The base set is found as by :func:`~baseparam.projection.base_set.find_base_parameters` (from a
    basis of Z's row space, so it is the same, bit for bit); then the whole Z, joint offsets included,
    is streamed into the file block by block, in bounded memory (docs: the HDF5 format). The file is
    written to a temporary name and renamed, so that an interrupted run never leaves a half-written file.

    Parameters
    ----------
    robot : Robot
    path : str or path-like
    parameters : {'pseudo', 'khalil'}
    progress, force_float, max_memory
        As for :func:`~baseparam.projection.base_set.find_base_parameters`; ``progress`` counts the
        base set as one step, then the blocks of Z.
    max_disk : int or str, optional
        The largest file allowed (bytes, or a size such as ``'20G'``); default: the free space of the
        output's file system. The file's size, which grows as 5^N, is estimated from the robot's
        structure (on the generous side) and a robot beyond the bound is refused before anything is
        written; while Z is streamed, the bytes stored are checked against the bound and the free
        space, so a full disk stops the run (and its temporary file is removed) instead of filling up.

    Returns
    -------
    BaseParameters

    Raises
    ------
    ResourceLimitError
        Beyond ``max_memory``, ``max_disk`` or the free space (one line with the figures).
    """
    check_flag(force_float, "force_float")              # as find_base_parameters: never read by its truth value
    check_progress(progress)
    with robot_protected(robot):        # never over the description the robot was read from
        return _find_and_store(robot, path, parameters, progress, force_float, max_memory, max_disk)


def _find_and_store(robot, path, parameters, progress, force_float, max_memory, max_disk):
    check_h5_output(path)    # a link or a folder said as such, not as a lack of free space where it points
    layout = base_set.check_size(robot, parameters, max_memory)
    # a floating base: Z of the chain of _floating (its six virtual joints first in the row labels)
    engine, parents, types = engine_of(robot, layout)
    n_labelled = len(parents)
    if n_labelled > MAX_LABELLED_DOF:
        base_note = " (with the floating base's 6 coordinates)" if robot.is_floating else ""
        raise ResourceLimitError(f"{robot.name}: {n_labelled} joints{base_note}: the rows of the whole Z are "
                                 f"labelled by 5^N keys, which fit 64 bits up to {MAX_LABELLED_DOF} joints (the "
                                 "base set itself has no such limit; only storing Z has)")
    refuse_if_too_large(robot.name, z_file_bytes(parents), max_memory, "streaming the whole Z into the file")
    disk = _disk_limit(robot, path, max_disk, parents, types)
    stored = Arithmetic.decide(robot, include_offsets=True, force_float=force_float)
    if robot.is_floating:
        stored = chain_arithmetic(stored, robot.angle_unit, force_float)
    prismatic = np.array([not m.is_revolute for m in stored.models], dtype=np.int64)
    total = n_labelled + 2 + bool(layout.friction_columns)

    def step(done, _=None):
        if progress is not None:
            progress(done, total)
    with atomic_path(path, ".h5.tmp") as tmp, writes_checked(path, tmp) as f:
        base = base_set.find_base_parameters(robot, parameters, force_float=force_float, max_memory=max_memory)
        step(1)
        zfile = _ZFile(f, layout, n_labelled, prismatic, disk)
        _store(stored, zfile, engine, parents, lambda done, _: step(1 + done), robot.is_floating)
        zfile.finish(robot, base)
        if base.seen_by_base_equations is not None:
            f.attrs.update(base_coordinates=VIRTUAL,
                           seen_by_base_equations=np.asarray(base.seen_by_base_equations, dtype=bool),
                           n_seen_by_base_equations=int(np.count_nonzero(base.seen_by_base_equations)))
    return base


def _disk_limit(robot, path, max_disk, parents, joint_types):
    """(bytes the file may take, what bounds them) — ``max_disk`` and the free space of the output's file
    system — after refusing a robot whose estimated file (:func:`z_disk_bytes`) is larger."""
    limit = disk_limit(robot.name, path, max_disk, z_disk_bytes(parents, joint_types), "the whole Z")
    return None if limit is None else (*limit, robot.name)


def disk_limit(name, path, max_disk, needed, what):
    """(bytes a file may take, what bounds them) — ``max_disk`` and the free space of ``path``'s file system —
    or None when neither is known; a file of ``needed`` bytes (the estimate of the file of ``what``) beyond
    them is refused, one line naming ``name``.

    Raises
    ------
    ResourceLimitError
    """
    limits = []
    if max_disk is not None:
        limits.append((parse_size(max_disk, "max_disk", "disk"), "the max_disk given"))
    free = free_space(path)
    if free is not None:                         # None: no such folder (atomic_path says so), or no figures
        limits.append((free, "the free space of the output's file system"))
    largest = file_size_limit()
    if largest is not None:
        limits.append((largest, "the largest file this process may write, ulimit -f"))
    if not limits:
        return None
    allowed, why = min(limits)
    if needed > allowed:
        hint = "" if max_disk is not None else "; free some space or write elsewhere"
        raise ResourceLimitError(f"{name}: the file of {what} would take up to about {format_size(needed)} "
                                 f"on disk, more than the {format_size(allowed)} allowed ({why}){hint}")
    return allowed, why


# attributes of the file's root a reader takes (find_and_store writes 9, a floating base 3 more)
MAX_ATTRIBUTES = 64


def read_h5(path):
    """Read a file written by :func:`find_and_store`.

    Returns
    -------
    dict
        ``Z`` (scipy.sparse.csr_matrix, SI), ``rows`` (ndarray, (n_rows, 2 + N)), ``columns`` (list of
        str), ``pivots`` (ndarray), ``Y`` (ndarray), ``attrs`` (dict).

    Raises
    ------
    StorageError
        One line naming the file and the dataset: not a baseparam file, a damaged or inconsistent one
        (shapes, indices, NaN or inf values), or data stored outside the file (a virtual dataset,
        external raw storage, an external link), which is never followed.
    """
    import h5py
    import scipy.sparse as sp

    name = check_input(path, error=StorageError)
    path = printable(name)                   # what the messages call the file: on one line, whatever its name
    try:
        with h5py.File(name, "r") as f:
            if f.attrs.get("format") != "baseparam":
                raise StorageError(f"{path}: not a baseparam HDF5 file")
            # counted cheaply, while reading each value costs ~1 ms: 50 000 of them (a 4.5 MB file) would take 30 s
            if len(f.attrs) > MAX_ATTRIBUTES:
                raise StorageError(f"{path}: {len(f.attrs)} attributes; a baseparam file has at most "
                                   f"{MAX_ATTRIBUTES} (damaged file?)")

            def read(name, kind):
                dset = stored_dataset(f, name, f"{path}: {name}", StorageError)
                if dset is None:
                    raise StorageError(f"{path}: {name}: missing (expected a dataset)")
                if dset.dtype.kind not in kind:
                    raise StorageError(f"{path}: {name}: unexpected dtype {dset.dtype}")
                # a dataset may declare any shape (its chunks unwritten, read as fill values): a terabyte of
                # them is refused here instead of failing inside h5py's allocation
                room = budget()
                if room is not None and dset.size * dset.dtype.itemsize > room:
                    raise StorageError(f"{path}: {name}: declares {dset.size} values "
                                       f"({format_size(dset.size * dset.dtype.itemsize)}), more than the "
                                       f"{format_size(room)} of memory available (damaged file?)")
                value = dset[()]
                if kind != "OSU" and not np.isfinite(value).all():
                    raise StorageError(f"{path}: {name}: contains NaN or inf")
                return value

            refuse_external(f, "Z", f"{path}: Z", StorageError)
            g = f["Z"]
            data, indices, indptr = read("Z/data", "f"), read("Z/indices", "iu"), read("Z/indptr", "iu")
            rows, pivots, Y = read("Z/rows", "iu"), read("pivots", "iu"), read("Y", "f")
            columns = [c.decode() if isinstance(c, bytes) else str(c) for c in read("Z/columns", "OSU")]
            shape = tuple(int(n) for n in np.asarray(g.attrs["shape"]).reshape(-1))
            _check_stored(path, shape, data, indices, indptr, rows, columns, pivots, Y)
            Z = sp.csr_matrix((data, indices, indptr), shape=shape)
            attrs = dict(f.attrs)
            for key, value in attrs.items():    # we write no number that is not finite: a damaged file's are refused
                if np.asarray(value).dtype.kind in "fc" and not np.isfinite(value).all():
                    raise StorageError(f"{path}: attribute {printable(repr(key))}: contains NaN or inf")
            return {"Z": Z, "rows": rows, "columns": columns, "pivots": pivots, "Y": Y, "attrs": attrs}
    except StorageError:
        raise
    except (OSError, KeyError, ValueError, TypeError, RuntimeError, OverflowError) as exc:
        # the system's reason when there is one: HDF5's own text holds the time of day, the whole path and a
        # line break
        errno = exc.errno if isinstance(exc, OSError) else None
        reason = os.strerror(errno) if errno else " ".join(str(exc).split())
        raise StorageError(f"{path}: cannot read baseparam HDF5 ({printable(reason)[:300]})") from None


def _check_stored(path, shape, data, indices, indptr, rows, columns, pivots, Y):
    """Shapes and index ranges of a stored Z, its labels, pivots and Y agree (a damaged file is refused
    here, in one line, instead of inside scipy or the caller)."""
    def bad(what):
        raise StorageError(f"{path}: {what} (damaged file?)")

    if len(shape) != 2 or min(shape) < 0:
        bad(f"Z: shape {shape} is not a matrix shape")
    n_rows, n_cols = shape
    if data.ndim != 1 or indices.shape != data.shape:
        bad(f"Z: data {data.shape} and indices {indices.shape} differ")
    if indptr.shape != (n_rows + 1,) or indptr[0] != 0 or indptr[-1] != data.size or np.any(np.diff(indptr) < 0):
        bad(f"Z: indptr of shape {indptr.shape} does not describe {n_rows} rows of {data.size} entries")
    if indices.size and (indices.min() < 0 or indices.max() >= n_cols):
        bad(f"Z: a column index is outside 0..{n_cols - 1}")
    if rows.ndim != 2 or rows.shape[0] != n_rows:
        bad(f"Z/rows: shape {rows.shape}, expected ({n_rows}, 2 + n_dof)")
    if len(columns) != n_cols:
        bad(f"Z/columns: {len(columns)} names for {n_cols} columns")
    if pivots.ndim != 1 or (pivots.size and (pivots.min() < 0 or pivots.max() >= n_cols)):
        bad(f"pivots: expected column indices 0..{n_cols - 1}, got shape {pivots.shape}")
    if Y.shape != (pivots.size, n_cols):
        bad(f"Y: shape {Y.shape}, expected ({pivots.size}, {n_cols})")
