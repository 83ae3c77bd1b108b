"""Plain arrays, NPZ archives and HDF5 files: one array per field, chosen by key."""
from __future__ import annotations

import io
import math
import pickle
import pickletools
import re
import sys
import tokenize
import zipfile
import zlib

import numpy as np

from .._checks import shown
from .._hdf5 import external_link, stored_dataset
from .._numbers import real_array
from .._validation import check_reading
from ..motion import Trajectory, _coarse_time, check_motion_size
from ..errors import DataError
from ._record import DEFAULT_KEYS, JOINT_FIELDS, MAX_ARRAYS, MAX_COLUMNS, MAX_VALUES, UNITS, _one_line
from ._h5_headers import DamagedHeap, attribute_bytes, collection_problem, compact_bytes
from ._columns import (_check_fields, _normalize_map, choose_sources, default_twins, refuse_differing_twin,
                       shown_names)
from ._names import _UNIT_HINT
from ._rows import _Table, _finish


def from_arrays(t, q, tau=None, *, qd=None, qdd=None, current=None, gains=None, source="<arrays>",
                skip_bad_rows=False, n_dof=None) -> Trajectory:
    """Validate a trajectory given as arrays.

    Parameters
    ----------
    t : array_like, shape (n_samples,)
        Times in s.
    q, tau, qd, qdd, current : array_like, shape (n_samples, n_dof) (or (n_samples,) for one joint)
        At most one of ``tau`` and ``current`` (with ``gains``); neither: a motion without torques.
    gains, skip_bad_rows, n_dof, source
        As in :func:`from_dataframe` (rows in messages and in ``skipped`` 0-based; DataError as there).

    Returns
    -------
    Trajectory

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0.0, 1.0, 11)
    >>> traj = from_arrays(t, np.zeros((11, 2)), current=np.ones((11, 2)), gains=[2.0, 3.0])
    >>> traj.tau[0]
    array([2., 3.])
    """
    n_dof, source = check_reading(skip_bad_rows, n_dof, source)
    given = {"t": t, "q": q, "qd": qd, "qdd": qdd, "tau": tau, "current": current}
    arrays = {field: (value, "") for field, value in given.items() if value is not None}
    return _from_keyed(source, arrays, gains, skip_bad_rows, n_dof)


def _read_npz(path, source, columns, gains, skip_bad_rows, n_dof):
    """An NPZ archive, read member by member with numpy's .npy format functions: each chosen
    member's header (dtype, shape) is checked before its data is read, and nothing is unpickled."""
    archive, members = open_npz(path, source)
    with archive:
        return _read_array_file(source, list(members), lambda key: _npy_header(archive, members[key])[:2],
                                lambda key: _npy_data(archive, members[key]), columns, gains, skip_bad_rows, n_dof)


def open_npz(path, source):
    """(open ZipFile, {key: ZipInfo}) of an NPZ archive, keys as numpy names them; DataError (naming
    ``source``) for a file that is no zip archive, a member without a name or a name held twice.
    The caller closes the archive."""
    try:
        with open(path, "rb") as stream:
            magic = stream.read(len(_NPY_MAGIC))
    except OSError as exc:
        raise DataError(f"{source}: cannot read as NPZ: {exc.strerror or _one_line(exc)}") from None
    if magic == _NPY_MAGIC:
        raise DataError(f"{source}: not an NPZ archive (a single .npy array); "
                        "save with np.savez(t=..., q=..., tau=...)")
    if not magic.startswith(_ZIP_MAGIC):
        # zipfile finds an archive by its directory at the end, after any bytes in front (a damaged start, another
        # file glued before it) and read it; numpy.load takes a file for an archive by its first bytes only
        raise DataError(f"{source}: not a valid NPZ file (not a zip archive)")
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise DataError(f"{source}: not a valid NPZ file (not a zip archive)") from None
    except _NPZ_ERRORS as exc:
        raise DataError(f"{source}: not a valid NPZ file ({_one_line(exc)})") from None
    try:
        # not info.is_dir(): a member name cut to '' by a NUL byte (a damaged or forged archive) raises there
        infos = [info for info in archive.infolist() if not info.filename.endswith("/")]
        if any(not info.filename for info in infos):
            raise DataError(f"{source}: not a valid NPZ file (a member without a name)")
        _check_count(source, len(infos))
        members = {}
        for info in infos:      # keys as numpy names them: 'q.npy' is key 'q'
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            if key in members:      # zip allows it; numpy would read the last, we the first: refuse
                raise DataError(f"{source}: the archive holds array {shown(key)}"
                                f" twice (member {shown(info.filename)}); "
                                "expected one member per name")
            members[key] = info
    except BaseException:
        archive.close()
        raise
    return archive, members


_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")      # numpy.load's: a zip's first member, or an empty zip

# What a damaged zip archive or .npy member raises (zlib.error for corrupt deflate data,
# RuntimeError for encrypted members, NotImplementedError for unknown compression methods).
_NPZ_ERRORS = (OSError, ValueError, EOFError, RuntimeError, NotImplementedError, zipfile.BadZipFile, zlib.error)


def _npy_header(archive, info):
    """(shape, dtype, offset of the data) of an .npy member, from its header alone."""
    with archive.open(info) as stream:
        version = np.lib.format.read_magic(stream)
        try:
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
            elif version in ((2, 0), (3, 0)):
                shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
            else:
                raise ValueError(f"unsupported .npy format version {version}")
        except (tokenize.TokenError, SyntaxError):      # numpy parses the header with tokenize and ast, unguarded
            raise ValueError("its .npy header is damaged (no Python literal)") from None
        return shape, dtype, stream.tell()


def _npy_data(archive, info):
    """An .npy member's array; one shorter than its header claims is refused before it is read, and one longer too
    (numpy reads what the header claims and leaves the rest: a header whose shape was damaged to fewer rows read
    as a shorter array, without a word)."""
    shape, dtype, offset = _npy_header(archive, info)
    needed = offset + math.prod(shape) * dtype.itemsize
    if info.file_size != needed:
        raise ValueError(f"{'truncated' if info.file_size < needed else 'longer than its header says'}: its header "
                         f"claims shape {shape} ({needed} bytes), the archive holds {info.file_size}")
    with archive.open(info) as stream:
        return np.lib.format.read_array(stream, allow_pickle=False)


def numeric_member(archive, info, where, left=MAX_VALUES, too_many=None):
    """An NPZ member's values as float64 and their count, its header checked before its data is read: a real
    number type (strings, objects — pickles — and complex numbers refused: float() would fail or drop a part) and
    at most ``left`` values (``too_many``: the refusal's text, by default "more than ``left`` values"). ``where``
    begins each one-line message (the file and the member)."""
    try:
        shape, dtype = _npy_header(archive, info)[:2]
        if dtype.kind not in "iuf":
            raise DataError(f"{where}: not numeric ({dtype})")
        count = int(np.prod(shape, dtype=float))
        if count > left:
            raise DataError(too_many or f"{where}: more than {left} values")
        return np.asarray(_npy_data(archive, info), dtype=float), count
    except DataError:                   # a ValueError, which the archive's damage below also is
        raise
    except _NPZ_ERRORS as exc:
        raise DataError(f"{where}: not a valid NPZ member ({_one_line(exc)})") from None


# Bytes of a log's joint names (MAX_COLUMNS names of a hundred characters): a member or dataset of fixed-length text
# declares its length, which compression hides (3 names of 10⁸ characters in a 300 kB gzipped HDF5 file read 300 MB)
MAX_NAMES_BYTES = 2 ** 20


def _check_names_size(shape, dtype, where):
    """Refuse names of fixed-length text (``shape``, ``dtype``) whose array holds more than :data:`MAX_NAMES_BYTES`."""
    size = math.prod(shape or ()) * dtype.itemsize
    if size > MAX_NAMES_BYTES:
        raise DataError(f"{where}: names of {dtype.itemsize} bytes each, {size} bytes in all; expected at most "
                        f"{MAX_NAMES_BYTES} bytes of names")


def _names_of(names, where):
    """The joint names of a whole array of them, ``names`` (object): a row per sample (S, n) read by its rows
    (:func:`_first_row_of_names`), which name the same joints; a 2-D array of names all distinct — a column vector
    (n, 1), a row of names per arm (2, 7) — read in its order, not row by row (its rows disagree: 'row 1 names the
    joints joint2, row 0 joint1')."""
    if names.ndim != 2 or not len(names):
        return names
    if len(names) > 1 and len(set(names.reshape(-1).tolist())) == names.size:
        return names.reshape(-1)
    return _first_row_of_names(names, where)


def _first_row_of_names(rows, where, offset=0, first=None):
    """The names of a per-sample array of joint names, ``rows`` (S, n) (a ROS joint_states' names logged with each
    message), all rows alike: the first row (``first``, when the rows read before gave it), else DataError naming the
    first row (``offset`` + its index) that orders the joints otherwise. A (S, n) array was read as S·n names, no
    order of the n joints: a log naming them in another order was read in its own, without a word."""
    rows = np.asarray(rows, dtype=object).reshape(len(rows), -1)
    first = rows[0] if first is None else first
    other = np.flatnonzero((rows != first).any(axis=1)) if rows.size else ()
    if len(other):
        k = int(other[0])
        raise DataError(f"{where}: row {offset + k} names the joints {shown_names(_texts(rows[k]))}, row 0 "
                        f"{shown_names(_texts(first))}; a log's columns hold the joints in one order")
    return first


def npz_joint_names(path, source):
    """The joint names an NPZ log holds (``write_trajectory``'s ``joint_names`` member, or a pickled array of them,
    read by :func:`_pickled_names`), or None (no such member); the member's header
    checked before it is read, as :func:`numeric_member`'s (a damaged header would be a bare tokenize error,
    one claiming 10¹⁰ names a MemoryError)."""
    archive, members = open_npz(path, source)
    with archive:
        info = members.get("joint_names")
        if info is None:
            return None
        where = f"{source}: key joint_names"
        try:
            shape, dtype = _npy_header(archive, info)[:2]
            if dtype.hasobject and math.prod(shape) <= MAX_COLUMNS:
                # pickled (np.savez of pandas' columns.values): left unread, a log naming its joints in another order
                # was read in its order, the columns to other joints without a word
                return _pickled_names(archive, info, where)
            if dtype.kind not in "US" or math.prod(shape) > MAX_COLUMNS:
                raise _not_names(where, shape, dtype, dtype.kind in "US")
            _check_names_size(shape, dtype, where)
            # bytes names ('S', np.savez of encoded names) as text: str() made them "b'joint2'", which named no
            # joint of the robot, and the order check passed a file naming the joints in another order
            names = _npy_data(archive, info)
            return _texts(_names_of(np.asarray(names, dtype=object), where))
        except DataError:
            raise
        except _NPZ_ERRORS as exc:
            raise DataError(f"{where}: not a valid NPZ member ({_one_line(exc)})") from None


# A pickled array of names (np.save of an object array: pandas' columns.values) names numpy's array reconstruction,
# ndarray, dtype, and numpy's text scalars for names held as np.str_ / np.bytes_ (numpy 1's module paths and 2's; a
# protocol-2 pickle's bytes through _codecs.encode). Each is answered by a stand-in below that records what the
# pickle says in plain Python objects: numpy's own dtype and ndarray never see the pickle, whose dtype state sets
# the dtype's flags and fields (an object dtype that takes raw bytes: pointers read and written, a crash or worse).


class _PickledDtype:
    """``numpy.dtype(spec, align, copy)`` as a pickle names it: the spec ('O8', 'U5', 'S3') and, from its state,
    the byte order; nothing else of the state is used."""

    spec, order = "", "<"                  # as made by a pickle's NEWOBJ, which calls no __init__

    def __init__(self, spec, align=False, copy=False):
        if not isinstance(spec, str) or not re.fullmatch(r"[OUS][0-9]{1,6}", spec):
            raise pickle.UnpicklingError(f"a dtype {shown(spec)}, which is no dtype of an array of names")
        self.spec, self.order = spec, "<"

    def __setstate__(self, state):
        if isinstance(state, tuple) and len(state) > 1 and state[1] in ("<", ">", "|", "="):
            self.order = state[1]


class _PickledArray:
    """What ``numpy.core.multiarray._reconstruct(ndarray, …)`` stands for: the array's dtype and values, as its
    state (``ndarray.__reduce__``'s: version, shape, dtype, Fortran order, values in C order) gives them."""

    shape = dtype = values = None

    def __init__(self, subtype, shape, typecode):
        if subtype is not _PickledArray:
            raise pickle.UnpicklingError("an array of another class than numpy.ndarray")

    def __setstate__(self, state):
        if not (isinstance(state, tuple) and len(state) == 5 and isinstance(state[2], _PickledDtype)):
            raise pickle.UnpicklingError("an array's state of another form than numpy's")
        self.shape, self.dtype, self.values = state[1], state[2], state[4]


def _pickled_scalar(dtype, data):
    """``numpy.core.multiarray.scalar(dtype, data)`` of a text dtype: the np.str_ or np.bytes_ name as str or
    bytes."""
    if not isinstance(dtype, _PickledDtype) or not dtype.spec.startswith(("U", "S")) or not isinstance(data, bytes):
        raise pickle.UnpicklingError("a numpy scalar other than text")
    if dtype.spec.startswith("S"):
        return data.rstrip(b"\0")
    big = dtype.order == ">" or (dtype.order == "=" and sys.byteorder == "big")
    try:
        return data.decode("utf-32-be" if big else "utf-32-le").rstrip("\0")
    except UnicodeDecodeError as exc:
        raise pickle.UnpicklingError(f"a numpy text scalar that is no text ({exc.reason})") from None


def _latin1(text, encoding="latin1"):
    """``_codecs.encode(text, 'latin1')``: how a protocol-2 pickle writes bytes (numpy < 1.17's np.save)."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode of other than text to latin1")
    return text.encode("latin1")


_STAND_INS = {("numpy", "ndarray"): _PickledArray, ("numpy", "dtype"): _PickledDtype, ("_codecs", "encode"): _latin1,
              **{(module, "_reconstruct"): _PickledArray for module in ("numpy.core.multiarray",
                                                                          "numpy._core.multiarray")},
              **{(module, "scalar"): _pickled_scalar for module in ("numpy.core.multiarray", "numpy._core.multiarray")}}


# out-of-band buffers (protocol 5), which np.save never writes
_FOREIGN_OPCODES = {"BYTEARRAY8", "NEXT_BUFFER", "READONLY_BUFFER"}
# opcodes whose argument is a memo index or a frame's length: at most the pickle's size
_BOUNDED_OPCODES = {"PUT", "BINPUT", "LONG_BINPUT", "GET", "BINGET", "LONG_BINGET", "FRAME"}


def _check_opcodes(data):
    """Read the opcodes of the pickle ``data`` before it is loaded (:func:`pickletools.genops` parses their arguments
    and builds nothing): a memo index beyond the pickle's size is refused, as the unpickler grows its memo to twice
    the index, zeroed (a LONG_BINPUT of 2²⁵ took 512 MiB, of 2³² 64 GiB), and so are a frame longer than the pickle
    and out-of-band buffers. A length an opcode claims beyond the data is genops' ValueError: none reaches the
    unpickler, which allocates it first."""
    for opcode, arg, _ in pickletools.genops(data):
        if opcode.name in _FOREIGN_OPCODES or (opcode.name in _BOUNDED_OPCODES and int(arg) > len(data)):
            raise pickle.UnpicklingError(f"opcode {opcode.name} {arg}, which no array of names holds")
        if opcode.name == "STOP":
            return


class _NamesUnpickler(pickle.Unpickler):
    """An unpickler of an array of names (the standard library's way to restrict one: ``find_class``): the globals
    such a pickle names are answered by stand-ins (:data:`_STAND_INS`), any other is refused, never imported or
    called."""

    def find_class(self, module, name):
        if (module, name) in _STAND_INS:
            return _STAND_INS[module, name]
        raise pickle.UnpicklingError(f"it names {module}.{name}, which is no part of an array of names")


def _pickled_names(archive, info, where):
    """The names of a pickled (object) ``joint_names`` member, through :class:`_NamesUnpickler`."""
    if info.file_size > MAX_NAMES_BYTES:
        raise DataError(f"{where}: a pickled array of {info.file_size} bytes; expected at most "
                        f"{MAX_NAMES_BYTES} bytes of names")
    offset = _npy_header(archive, info)[2]
    with archive.open(info) as stream:
        stream.read(offset)
        data = stream.read()
    try:
        _check_opcodes(data)
        names = _NamesUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, MemoryError, OverflowError, *_NPZ_ERRORS, AttributeError, TypeError,
            IndexError, KeyError) as exc:
        raise DataError(f"{where}: a damaged or foreign pickle ({_one_line(exc)}); expected an array of "
                        "joint names") from None
    objects = isinstance(names, _PickledArray) and names.dtype is not None and names.dtype.spec.startswith("O")
    values = names.values if objects else None
    # as many names as the shape says: a state whose list is shorter than its shape is a damaged one (numpy itself
    # left the missing elements as unset pointers: a crash)
    shape = names.shape if objects else None
    shaped = isinstance(shape, tuple) and all(type(k) is int and k >= 0 for k in shape)
    if isinstance(values, list) and not (shaped and math.prod(shape) == len(values)):
        count = math.prod(shape) if shaped else "?"
        raise DataError(f"{where}: a damaged pickle: an array of shape {shown(shape)}: {count} elements holding "
                        f"{len(values)}; expected an array of joint names")
    if (not isinstance(values, list) or len(values) > MAX_COLUMNS
            or not all(isinstance(name, (str, bytes)) for name in values)):
        got = (shown(values[:4]) if isinstance(values, list) else "an array of no objects" if
               isinstance(names, _PickledArray) else f"a {type(names).__name__}")
        raise DataError(f"{where}: expected an array of at most {MAX_COLUMNS} names (text), got {got}")
    return _texts(values)


def _texts(names):
    """Names (str or bytes; an array of any shape, or a list) as a flat list of str: bytes decoded as UTF-8, not str()
    of them ("b'joint2'", which names no joint)."""
    flat = names.reshape(-1) if isinstance(names, np.ndarray) else names
    return [x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x) for x in flat]


def h5_joint_names(path, source):
    """The joint names an HDF5 log holds in a root ``joint_names`` dataset (an NPZ log's member, stored alike) or
    attribute, or None (neither, or a file the reader itself refuses). HDF5 datasets are read in their columns'
    order, as NPZ members: a log naming the robot's joints in another order went to other joints without a word."""
    import h5py

    try:
        h5 = h5py.File(path, "r")
    except OSError:
        return None                              # the reader says what is wrong with the file
    with h5:
        where = f"{source}: key joint_names"
        try:
            dset = stored_dataset(h5, "joint_names", where, DataError)
            if dset is not None:
                return _h5_names(dset.shape, dset.dtype, lambda: dset[()], where, lambda start, stop: dset[start:stop],
                                 dset)
            if "joint_names" in h5.attrs:
                attr = h5.attrs.get_id("joint_names")
                where = f"{source}: attribute joint_names"
                _bound_vlen_attribute(h5, attr, where)
                return _h5_names(attr.shape, attr.dtype, lambda: h5.attrs["joint_names"], where)
            return None
        except DataError:
            raise
        except _H5_ERRORS as exc:
            raise DataError(f"{where}: cannot read as HDF5 (damaged file?): {_one_line(exc)}") from None


# HDF5 stores a variable-length string as a reference (its length, the heap's address, the object's index) to the
# global heap, and several cells may point to one object: a file of 1 MB whose cells all pointed to a string of 1 MB
# made the reader allocate gigabytes. A writer stores each name once (h5py, libhdf5), its names taking at most the
# file's size, or, if it shares one stored name between rows, a reference of 16 bytes a cell: the names read may take
# at most VLEN_FACTOR times the file's size (names of 64 bytes shared by all rows), plus MAX_NAMES_BYTES (no bound for a
# small file of a few long names), measured from the stored references before any block is read.
VLEN_FACTOR = 4
_FILTERS = {1: "deflate", 2: "shuffle"}     # filters a chunk of references is read through; others: a cell at a time


def _vlen_cap(obj):
    """The bytes of text a ``joint_names`` dataset or attribute of variable-length strings may make the reader
    allocate; ``obj`` an h5py object of the file (or the file)."""
    return VLEN_FACTOR * obj.file.id.get_filesize() + MAX_NAMES_BYTES


def _reference(h5file):
    """The dtype of a variable-length string's stored reference in ``h5file``: its length, the global heap's address
    (the file's size of addresses), the object's index."""
    addr = h5file.id.get_create_plist().get_sizes()[0]
    return np.dtype([("length", "<u4"), ("heap", f"V{addr}"), ("index", "<u4")])


def _stored_references(dataset):
    """The stored reference (:func:`_reference`: length in bytes, global heap address, index) of each variable-length
    string of ``dataset`` (S, n), as (row offset, references (r, n)) pieces in any order; None when its layout or
    filters hide them (unallocated chunks, filters other than deflate and shuffle, a header not read plainly)."""
    import h5py

    dcpl = dataset.id.get_create_plist()
    ref = _reference(dataset.file)
    if dataset.ndim not in (1, 2):
        yield None
        return
    n = dataset.shape[1] if dataset.ndim == 2 else 1
    layout = dcpl.get_layout()
    if layout == h5py.h5d.COMPACT:
        raw = compact_bytes(dataset.file, dataset.id, dataset.size * ref.itemsize)
        yield None if raw is None else (0, np.frombuffer(raw, ref).reshape(-1, n))
        return
    if layout == h5py.h5d.CONTIGUOUS:
        offset = dataset.id.get_offset()
        if offset is None or dataset.file.userblock_size or dataset.id.get_storage_size() < dataset.size * ref.itemsize:
            yield None
            return
        with open(dataset.file.filename, "rb") as stream:
            stream.seek(offset)
            rows = max(1, MAX_NAMES_BYTES // (n * ref.itemsize))
            for start in range(0, dataset.shape[0], rows):
                data = stream.read(min(rows, dataset.shape[0] - start) * n * ref.itemsize)
                yield start, np.frombuffer(data, ref).reshape(-1, n)
        return
    filters = [dcpl.get_filter(k)[0] for k in range(dcpl.get_nfilters())]
    chunks = dcpl.get_chunk() if layout == h5py.h5d.CHUNKED else None
    total = math.prod(math.ceil(size / chunk) for size, chunk in zip(dataset.shape, chunks)) if chunks else 0
    if not chunks or any(f not in _FILTERS for f in filters) or dataset.id.get_num_chunks() < total:
        yield None
        return
    for k in range(total):
        corner = dataset.id.get_chunk_info(k).chunk_offset
        mask, data = dataset.id.read_direct_chunk(corner)
        for bit in reversed(range(len(filters))):
            if not mask & (1 << bit):
                data = _unfiltered(filters[bit], data, ref.itemsize)
        references = np.frombuffer(data, ref).reshape(chunks)
        references = references[tuple(slice(0, size - at) for size, at in zip(dataset.shape, corner))]
        yield corner[0], references.reshape(len(references), -1)


def _unfiltered(code, data, itemsize):
    """``data`` of a chunk undone of the filter ``code`` (one of :data:`_FILTERS`): inflated, or unshuffled
    (``itemsize`` bytes an element)."""
    if code == 1:
        return zlib.decompress(data)
    return np.frombuffer(data, np.uint8).reshape(itemsize, -1).T.tobytes()


def _too_long(where, row, cap):
    return DataError(f"{where}: the names up to row {row} take more than {cap} bytes ({VLEN_FACTOR} × the file's "
                     f"size + {MAX_NAMES_BYTES}); expected each name stored once (a damaged or crafted file: cells "
                     "pointing to one long text?)")


def _check_stored_lengths(pieces, h5file, where):
    """True once the stored references ``pieces`` ((row offset, references (r, n)) each, as
    :func:`_stored_references`) of ``h5file`` declare lengths adding up to at most :func:`_vlen_cap` bytes, else
    DataError naming the row where they exceed it, and point to global heap collections that libhdf5 reads to an end
    (:func:`_refuse_endless_collections`); False when a piece is None (the references cannot be read first)."""
    total, cap, collections = 0, _vlen_cap(h5file), set()
    for piece in pieces:
        if piece is None:
            return False
        start, references = piece
        per_row = np.cumsum(references["length"].sum(axis=1, dtype=np.int64)) + total
        if len(per_row) and per_row[-1] > cap:
            raise _too_long(where, start + int(np.searchsorted(per_row, cap, side="right")), cap)
        total = int(per_row[-1]) if len(per_row) else total
        if len(collections) < _MAX_COLLECTIONS:
            collections.update(np.unique(references["heap"][references["length"] > 0]).tolist())
    _refuse_endless_collections(h5file, collections, where)
    return True


_MAX_COLLECTIONS = 1 << 12      # global heap collections checked (4 kB each at least): a file's names use a few


def _refuse_endless_collections(h5file, collections, where):
    """DataError when one of the global heap ``collections`` (their addresses, bytes as stored) of ``h5file`` is one
    libhdf5 would read without end (:func:`._h5_headers.collection_problem`): a damaged file of 13 kB hung the
    reader in libhdf5, where no signal reaches it."""
    for stored in sorted(collections)[:_MAX_COLLECTIONS]:
        problem = collection_problem(h5file, int.from_bytes(stored, "little"))
        if problem is not None:
            raise DataError(f"{where}: {problem} (a damaged file: libhdf5 would read the names there without end); "
                            "not read")


def _bound_vlen_names(dataset, where):
    """True once the names stored in ``dataset`` (variable-length strings, (S, n)) are found to take at most
    :func:`_vlen_cap` bytes, else DataError naming the row where they exceed it, before any is read; False when the
    stored lengths cannot be read first (each cell's name then counted as read, :class:`_CountedCells`)."""
    return _check_stored_lengths(_stored_references(dataset), dataset.file, where)


def _bound_vlen_attribute(h5file, attr, where):
    """Refuse the root attribute ``joint_names`` (``attr``, an h5py AttrID) of variable-length text whose names would
    take more than :func:`_vlen_cap` bytes, before libhdf5 reads it: h5py reads an attribute whole, each cell's
    declared length allocated first (a crafted file of a few kB declaring names of a gigabyte, or cells all pointing
    to one long text, took gigabytes). The stored references are read from the file's root object header or its
    fractal heap (dense storage; each copy the heap holds under the name); an attribute whose storage is not read
    plainly there (a shared message) is bounded by :func:`_bound_unchecked_attribute`, and one whose heap is damaged
    refused (it was bounded so too: 4 GiB a name, up to the memory budget)."""
    import h5py

    count = math.prod(attr.shape or ())
    if h5py.check_string_dtype(attr.dtype) is None or attr.dtype.kind in "SU" or not 0 < count <= MAX_COLUMNS:
        return                          # fixed-length text or not text: _h5_names checks it from its shape and dtype
    ref, cap = _reference(h5file), _vlen_cap(h5file)
    try:
        copies = attribute_bytes(h5file, h5file.id, "joint_names", count * ref.itemsize, count)
    except DamagedHeap as exc:
        raise DataError(f"{where}: kept in dense storage, but {exc} (a damaged file): its names' lengths cannot be "
                        "checked before libhdf5 reads them; not read") from None
    if copies is None:
        _bound_unchecked_attribute(count, cap, where)
    for raw in copies or ():        # every copy the heap holds: libhdf5 reads one of them
        _check_stored_lengths([(0, np.frombuffer(raw, ref).reshape(-1, 1))], h5file, where)


def _bound_unchecked_attribute(count, cap, where):
    """Refuse ``count`` names of variable-length text whose stored lengths cannot be read before libhdf5 reads them
    (an attribute's storage not read plainly by :mod:`._h5_headers`) when the most they could declare, 4 GiB each
    (a stored length is 32 bits: libhdf5 allocates it before it finds the text shorter), exceeds both ``cap`` and the
    memory budget: a file of a few kB declaring a gigabyte a name took a gigabyte to be refused."""
    from .._memory import budget, format_size

    worst, room = count * _LONGEST_DECLARED, max(cap, budget() or 0)
    if worst > room:
        raise DataError(f"{where}: {count} names of variable-length text kept where their lengths cannot be checked "
                        f"before they are read (an attribute storage not read here): they could take "
                        f"{format_size(worst)} (4 GiB each), more than the {format_size(room)} available; store "
                        "joint_names as a dataset")


_LONGEST_DECLARED = (1 << 32) - 1       # bytes: the longest text a stored reference declares


class _CountedCells:
    """The cells of ``dataset`` (variable-length text) read one at a time, the bytes of their texts counted against
    :func:`_vlen_cap` as they are read: the bound where the stored lengths cannot be read first. libhdf5 allocates a
    cell's text whole, so a read of a row or block stops at most one cell past the bound (a row of 10 000 cells all
    pointing to one long text was read whole before any was counted)."""

    def __init__(self, dataset, where):
        self.dataset, self.where = dataset, where
        self.cap = self.left = _vlen_cap(dataset)

    def cell(self, index):
        """The text of the cell at ``index`` (a tuple), counted; DataError naming its row past the bound."""
        name = self.dataset[index]
        self.left -= len(name) if isinstance(name, (str, bytes)) else 0
        if self.left < 0:
            raise _too_long(self.where, index[0] if index else 0, self.cap)
        return name

    def rows(self, start, stop):
        """Rows ``start`` to ``stop`` of a (S, n) dataset (object, (r, n)), read a cell at a time."""
        rows = np.empty((min(stop, self.dataset.shape[0]) - start, self.dataset.shape[1]), dtype=object)
        for row, column in np.ndindex(rows.shape):
            rows[row, column] = self.cell((start + row, column))
        return rows


def _not_names(where, shape, dtype, text):
    """The refusal of a ``joint_names`` member or dataset that is not text, or holds too many names (3 integers
    were refused as "expected at most 10000 names", which they are)."""
    expected = f"at most {MAX_COLUMNS} names" if text else "text (the joints' names)"
    return DataError(f"{where}: expected {expected}, got shape {shape} of {dtype}")


def _h5_names(shape, dtype, read, where, read_rows=None, dataset=None):
    """The names of an HDF5 dataset or attribute of ``shape`` and ``dtype`` (text, fixed or variable length),
    checked before ``read()`` reads them; a dataset of a row of names per sample (S, n) read ``read_rows(start,
    stop)`` a block of rows at a time, its rows alike (:func:`_first_row_of_names`), whatever its length. The names
    of variable-length text a ``dataset`` (h5py.Dataset) stores are bounded before they are read
    (:func:`_bound_vlen_names`)."""
    import h5py

    text = dtype.kind in "SU" or h5py.check_string_dtype(dtype) is not None
    shape = tuple(shape or ())
    # at most MAX_COLUMNS names may be a 2-D array of distinct names (:func:`_names_of`), read whole below
    if (text and read_rows is not None and len(shape) == 2 and shape[0] and shape[1] <= MAX_COLUMNS
            and math.prod(shape) > MAX_COLUMNS):
        if shape[0] * shape[1] > MAX_VALUES:          # more samples than a trajectory holds values
            raise DataError(f"{where}: {shape[0]} rows of {shape[1]} names; a trajectory may hold at most "
                            f"{MAX_VALUES:.0e} values")
        if dtype.kind in "SU":
            _check_names_size(shape[1:], dtype, where)
        step = max(1, MAX_NAMES_BYTES // (shape[1] * max(dtype.itemsize, 8)))     # a block: 1 MiB at most
        bounded = dtype.kind in "SU" or dataset is None or _bound_vlen_names(dataset, where)
        if not bounded:           # row 0 too: read whole, its cells could point to gigabytes
            read_rows = _CountedCells(dataset, where).rows
        first, begin = None, 0
        if dtype.kind not in "SU":
            # variable-length text: 8 bytes a name was assumed, and rows of 2 000-character names read 250 times the
            # block's bound at a time. Every row must be the first's: its length sets the step
            first, begin = _first_row_of_names(read_rows(0, 1), where), 1
            size = sum(len(name) if isinstance(name, (str, bytes)) else 8 for name in first.tolist())
            step = max(1, MAX_NAMES_BYTES // max(size, 8 * shape[1])) if bounded else 1
        for start in range(begin, shape[0], step):
            first = _first_row_of_names(read_rows(start, start + step), where, start, first)
        return _texts(first)
    if not text or math.prod(shape) > MAX_COLUMNS:
        raise _not_names(where, shape, dtype, text)
    if dtype.kind in "SU":           # variable-length text is stored in the file as it is (its heap is not compressed)
        _check_names_size(shape, dtype, where)
    elif dataset is not None and not _bound_vlen_names(dataset, where):
        # stored lengths not to be read first (other filters): at most MAX_COLUMNS names, one at a time, their bytes
        # counted as read
        counted = _CountedCells(dataset, where)
        for index in np.ndindex(shape):
            counted.cell(index)
    names = np.asarray(read(), dtype=object)
    return _texts(_names_of(names, where))


def _check_count(source, count):
    if count > MAX_ARRAYS:
        raise DataError(f"{source}: {count} arrays; a trajectory file may hold at most {MAX_ARRAYS}")


def _read_h5(path, source, columns, gains, skip_bad_rows, n_dof):
    import h5py

    try:
        h5 = h5py.File(path, "r")
    except OSError as exc:
        raise DataError(f"{source}: cannot read as HDF5: {_one_line(exc)}") from None
    with h5:
        try:
            return _read_h5_file(h5, h5py, source, columns, gains, skip_bad_rows, n_dof)
        except DataError:
            raise
        except _H5_ERRORS as exc:
            raise DataError(f"{source}: cannot read as HDF5 (damaged file?): {_one_line(exc)}") from None


# What libhdf5 raises, through h5py, for a damaged file: RuntimeError from a walk, KeyError when
# an object cannot be opened, OSError/ValueError/TypeError when a header cannot be decoded.
_H5_ERRORS = (OSError, RuntimeError, KeyError, ValueError, TypeError)


def _read_h5_file(h5, h5py, source, columns, gains, skip_bad_rows, n_dof):
    """The arrays of an open HDF5 file: named datasets first, then a walk of the file."""
    # Default names and map entries are looked up directly first: visititems does not follow
    # soft or external links, so a linked dataset would be invisible to the walk alone.
    columns = _normalize_map(columns, source)
    wanted = [key for keys in DEFAULT_KEYS.values() for key in keys]
    wanted += [cols[0].strip().lstrip("/") for cols in columns.values()
               if cols is not None and len(cols) == 1 and isinstance(cols[0], str)]
    keys, not_datasets, groups = [], {}, []
    for name in dict.fromkeys(wanted):
        if external_link(h5, name) is not None:     # a candidate, refused by probe if chosen; never followed
            keys.append(name)
            continue
        try:
            obj = h5.get(name)
        except (KeyError, OSError, ValueError, TypeError):      # dangling or malformed link
            obj = None
        if isinstance(obj, h5py.Dataset):
            keys.append(name)
        elif obj is None and (link := _soft_link(h5, h5py, name)) is not None:
            # a candidate too, refused by probe if chosen: left out, the field was taken from the next key of its
            # list ('positions' for a 'q' whose link had lost its dataset), silently
            keys.append(name)
            not_datasets[name] = (f"a soft link to {shown(link)}, which names nothing in the file; expected the "
                                  "dataset (the file is damaged, or the link is wrong)")
        elif isinstance(obj, h5py.Group):
            groups.append(name)
    # a group (or a link to one) named in the map, or under a field's name whose later default names a dataset:
    # passed over, that other array ('positions' beside a group 'q') was read as the field without a word
    for name in groups:
        mapped = next((f for f, cols in columns.items()
                       if cols is not None and str(cols[0]).strip().lstrip("/") == name), None)
        field = mapped or next(f for f, defaults in DEFAULT_KEYS.items() if name in defaults)
        if mapped or any(key in keys for key in DEFAULT_KEYS[field]):
            keys.append(name)
            not_datasets[name] = (f"a group, not a dataset; name the dataset it holds: "
                                  f"columns={{'{field}': '{name}/NAME'}}")
    found = set(keys)

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and name not in found:
            keys.append(name)
            if len(keys) > MAX_ARRAYS:
                return True          # stops the walk
        return None

    h5.visititems(visit)
    _check_count(source, len(keys))

    def probe(key):
        if key in not_datasets:
            raise DataError(f"{source}: key {key}: {not_datasets[key]}")
        dset = stored_dataset(h5, key, f"{source}: key {key}", DataError)     # keys name datasets (listed above)
        labels = h5py.check_enum_dtype(dset.dtype)
        if labels is not None and dset.dtype.kind != "b":     # an enumeration's codes name labels; they measure nothing
            raise DataError(f"{source}: key {key}: an HDF5 enumeration (labels {shown_names(sorted(labels))}), "
                            "not numbers")
        return dset.shape or (), dset.dtype

    return _read_array_file(source, keys, probe, lambda key: h5[key][()], columns, gains, skip_bad_rows, n_dof,
                            unit_of=lambda key: _unit_attribute(h5[key]))


def _soft_link(h5, h5py, name):
    """The path a soft link ``name`` of the open HDF5 file ``h5`` points to, or None when ``name`` is no soft link."""
    try:
        link = h5.get(name, getlink=True)
    except (KeyError, OSError, ValueError, TypeError, RuntimeError):
        return None
    return link.path if isinstance(link, h5py.SoftLink) else None


def _read_array_file(source, arrays, probe, read, columns, gains, skip_bad_rows, n_dof, unit_of=None):
    """Choose a key per field among ``arrays`` (key names), check each chosen array's ``probe(key)``
    (shape, dtype) against :data:`MAX_VALUES`, and the unit ``unit_of(key)`` declares (:func:`_refuse_other_unit`),
    then read them with ``read(key)`` and validate."""
    chosen = choose_sources(source, _normalize_map(columns, source), DEFAULT_KEYS, arrays,
                            entry="one array name (key)", thing="array",
                            listing=f"keys {shown_names(sorted(arrays))}" if arrays else "no arrays",
                            looked_for=lambda field: "keys " + ", ".join(map(repr, DEFAULT_KEYS[field])),
                            placeholder="KEY", clean=lambda name: name.strip().lstrip("/"))
    total = 0
    for field, key in chosen.items():          # headers first: nothing is read before all pass
        shape, dtype = _read_key(source, field, key, probe)
        if dtype.kind not in "iuf":
            raise DataError(f"{source}: field {field} (key {key}): not numeric (dtype {dtype})")
        if unit_of is not None:
            _refuse_other_unit(source, field, key, _read_key(source, field, key, unit_of))
        total = _count_values(source, field, key, shape, total)
    keyed = {field: (_read_key(source, field, key, read), key) for field, key in chosen.items()}
    for field, key, other in default_twins(_normalize_map(columns, source), DEFAULT_KEYS, arrays, chosen):
        refuse_differing_twin(source, field, key, other, "key", _same_array(source, field, keyed[field][0], other,
                                                                            probe, read, total))
    return _from_keyed(source, keyed, gains, skip_bad_rows, n_dof)


def _spelled_si():
    """Spellings of each field's SI unit an HDF5 dataset's ``units`` attribute may give besides a CSV header's
    (:data:`~._record.UNITS`), blanks removed, lower case: the words and the notations of the tools that write them
    (UDUNITS' and CF's ``rad s-1``, pint's ``radian / second ** 2``, astropy's ``rad / s2``, ``rad/s/s``, ``N m``,
    ``newton metres``). Any other text is refused, as a CSV column's unit is: the values are never converted, and a
    list of units to refuse misses most of them (``counts``, ``rev/s``, ``N cm``, ``%`` of a rated torque)."""
    seconds = ("s", "sec", "secs", "second", "seconds")
    products = ("", ".", "·", "⋅", "*")
    squares = ("2", "^2", "**2", "²")
    per_second = ({"/" + s for s in seconds} | {"per" + s for s in seconds}
                  | {join + s + power for join in products for s in seconds for power in ("-1", "^-1", "**-1", "⁻¹")})
    per_second_squared = ({"/" + s + square for s in seconds for square in squares}
                          | {"/" + s + "/" + again for s in seconds for again in seconds}
                          | {"per" + s + square for s in seconds for square in (*squares, "squared")}
                          | {join + s + power for join in products for s in seconds
                             for power in ("-2", "^-2", "**-2", "⁻²")})
    angles = ("rad", "radian", "radians")
    lengths = ("m", "meter", "meters", "metre", "metres")
    forces = ("n", "newton", "newtons")
    return {
        "t": frozenset(seconds),
        "q": frozenset(angles + lengths),
        "qd": frozenset(size + per for size in angles + lengths for per in per_second),
        "qdd": frozenset(size + per for size in angles + lengths for per in per_second_squared),
        "tau": frozenset(forces) | {force + join + length for force in forces for join in (*products, "-")
                                    for length in lengths},
        "current": frozenset(("a", "amp", "amps", "ampere", "amperes")),
    }


_SPELLED_SI = _spelled_si()
_UNIT_ATTRIBUTES = ("units", "unit", "Units", "Unit", "UNITS", "UNIT")


def _unit_attribute(dataset):
    """``(name, text)`` of an HDF5 dataset's ``units`` (or ``unit``) attribute, or None (none, or not one text)."""
    name = next((n for n in _UNIT_ATTRIBUTES if n in dataset.attrs), None)
    # one value (a text, or an array of one), of a bounded size: not read whole when it is an array of millions
    if name is None or dataset.attrs.get_id(name).get_storage_size() > 4096:
        return None
    value = dataset.attrs[name]
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(-1)[0]
    if isinstance(value, (bytes, np.bytes_)):
        value = bytes(value).decode("utf-8", "replace")
    return (name, str(value)) if isinstance(value, str) else None


def _refuse_other_unit(source, field, key, attribute):
    """DataError when an HDF5 dataset's unit ``attribute`` (``(name, text)`` or None) names another unit than the SI
    one of its ``field`` (:data:`~._record.UNITS`, :data:`_SPELLED_SI`): the values were read as SI without a word
    (a ``q`` dataset marked ``units = "deg"`` read as radians)."""
    if attribute is None:
        return
    name, text = attribute
    unit = "".join(text.split()).lower()
    if field == "t" and unit.partition("since")[0]:  # CF's 'seconds since 1970-01-01 00:00:00': from an origin
        unit = unit.partition("since")[0]
    if unit and unit not in UNITS[field] and unit not in _SPELLED_SI[field]:
        raise DataError(f"{source}: field {field} (key {key}): attribute {name} = {shown(text)}: that unit "
                        f"is not accepted (the values are not converted); give {field} in {_UNIT_HINT[field]}")


def _count_values(source, field, key, shape, total):
    """``total`` plus the values of an array of ``shape``; DataError past :data:`MAX_VALUES` in all."""
    count = math.prod(shape)
    if total + count > MAX_VALUES:
        raise DataError(f"{source}: field {field} (key {key}): shape {tuple(shape)} ({count:.3g} values) is "
                        f"too large; a trajectory may hold at most {MAX_VALUES:.0e} values in all")
    return total + count


def _same_array(source, field, values, other, probe, read, total):
    """Whether the array ``other`` holds ``values`` (the field's chosen array, as read), NaN equal to NaN; an ``other``
    that cannot be read as numbers of the same shape does not. Its header is checked first, its values counted into
    the file's ``total``."""
    try:
        shape, dtype = probe(other)
    except (DataError,) + _NPZ_ERRORS + (KeyError, TypeError):
        return False
    if tuple(shape) != np.shape(values) or dtype.kind not in "iuf":
        return False
    _count_values(source, field, other, shape, total)
    return np.array_equal(values, _read_key(source, field, other, read), equal_nan=True)


def _read_key(source, field, key, read):
    """``read(key)`` (a header or an array), what a damaged member or dataset raises one line naming the field."""
    try:
        return read(key)
    except DataError:
        raise
    except _NPZ_ERRORS + (KeyError, TypeError) as exc:      # TypeError: an HDF5 type numpy lacks
        raise DataError(f"{source}: field {field} (key {key}): cannot read: {_one_line(exc)}") from None


def _from_keyed(source, keyed, gains, skip_bad_rows, n_dof):
    """Check shapes of {field: (array, key)} and validate; key '' for plain arrays."""
    where = {f: (f" (key {key})" if key else "") for f, (_, key) in keyed.items()}
    # the numbers first: np.asarray of a ragged list is numpy's bare ValueError
    data = {f: real_array(f"{source}: field {f}{where[f]}", value, DataError) for f, (value, _) in keyed.items()}
    coarse = _coarse_time(np.asarray(keyed["t"][0]).dtype) if "t" in keyed else None
    t = data["t"] if "t" in data else None
    if t is None:
        raise DataError(f"{source}: field t: no times")
    if t.ndim == 2 and 1 in t.shape:
        t = t.reshape(-1)
    if t.ndim != 1:
        raise DataError(f"{source}: field t{where['t']}: expected shape (S,), got {t.shape}")
    S = t.shape[0]
    data["t"] = t[:, None]
    for field in JOINT_FIELDS:
        if field in data:
            data[field] = _joint_array(source, field, data[field], S, where[field])
    gains = _check_fields(source, {f: a.shape[1] for f, a in data.items()}, gains, n_dof)
    check_motion_size(source, S, sum(a.shape[1] for a in data.values()))      # before the table's copies
    table = _Table(source, "row", np.arange(S), data, [], where, coarse)
    return _finish(table, gains, skip_bad_rows)


def _joint_array(source, field, arr, S, where):
    """An (S,) or (S, n) array as (S, n); other shapes raise, with a hint for transposed data."""
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise DataError(f"{source}: field {field}{where}: expected shape (S, n), got {arr.shape}")
    if arr.shape[0] != S:
        hint = f"; transposed? expected ({S}, n)" if arr.shape[1] == S else ""
        raise DataError(f"{source}: field {field}{where}: {arr.shape[0]} rows (shape {arr.shape}), but t has {S}{hint}")
    if arr.shape[1] == 0:
        raise DataError(f"{source}: field {field}{where}: no joints (shape {arr.shape})")
    return arr
