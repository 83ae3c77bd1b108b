"""HDF5 datasets read only from the file named: the readers' guard against data stored elsewhere.

HDF5 lets a dataset keep its values outside the file that names it: a virtual dataset maps other
files (and reads as its fill value, zeros, when they are missing), external raw storage reads bytes
of any file on the machine, and an external link opens another HDF5 file. A reader given one file
must not silently read another, so such datasets are refused rather than followed.

Likewise a dataset's filter pipeline names its filters by number, and libhdf5 looks for one it does not know
as a plugin (a shared library, loaded and run, from ``HDF5_PLUGIN_PATH`` or its default directory): the file
would choose which code runs. Only the filters built into libhdf5 and h5py are read; a dataset with another
is refused before its values are read, so no plugin is loaded for it.

And the writers' side: :class:`writes_checked` is the block that writes an HDF5 file (``find --h5``, the symbolic
regroupings), so that a write the file system refuses (a full disk, a file size limit) is one StorageError naming the
output, never an internal error, h5py's tracebacks or a crash of libhdf5.
"""
from __future__ import annotations

import errno
import math
import re
import sys
import threading

# deflate, shuffle, fletcher32, szip, nbit, scaleoffset (libhdf5's own), lzf (built into h5py)
BUILT_IN_FILTERS = {1: "deflate", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit", 6: "scaleoffset",
                    32000: "lzf"}
_STORE_HERE = "expected the data stored in this file (copy the dataset in)"


def external_link(start, name, _depth=0):
    """The ``h5py.ExternalLink`` met on the way from the group ``start`` to ``name``, or None; no link out of
    the file is followed to find it (h5py's ``get`` and ``[]`` open the other file, read its header, and only
    then could :func:`stored_here` refuse it). Soft links are looked through, a few deep (a cycle of them is
    for h5py to refuse)."""
    import h5py

    group = start
    parts = [part for part in name.split("/") if part]
    for k, part in enumerate(parts):
        try:
            link = group.get(part, getlink=True)
        except (KeyError, ValueError, TypeError, OSError, RuntimeError):      # a damaged file: the caller says so
            return None
        if isinstance(link, h5py.ExternalLink):
            return link
        if isinstance(link, h5py.SoftLink) and _depth < 8:
            found = external_link(group.file if link.path.startswith("/") else group, link.path, _depth + 1)
            if found is not None:
                return found
        if link is None or k == len(parts) - 1:
            return None
        try:
            group = group[part]
        except (KeyError, ValueError, TypeError, OSError, RuntimeError):
            return None
        if not isinstance(group, h5py.Group):
            return None
    return None


def refuse_external(start, name, what, error):
    """Raise ``error`` naming ``what`` when the way to ``name`` (from the group ``start``) leaves the file by an
    external link; do nothing otherwise."""
    link = external_link(start, name)
    if link is not None:
        raise error(f"{what}: an external link to {link.filename!r}; {_STORE_HERE}")


def stored_here(dset, h5file, what, error):
    """``dset`` when its values are stored inside ``h5file``; else ``error`` naming ``what``.

    Parameters
    ----------
    dset : h5py.Dataset
    h5file : h5py.File
        The file the caller was given.
    what : str
        Start of the message, e.g. ``"run.h5: field q (key q)"``.
    error : type
        The exception class raised.
    """
    if dset.file.id != h5file.id:
        raise error(f"{what}: an external link to {dset.file.filename!r}; {_STORE_HERE}")
    if dset.is_virtual:
        raise error(f"{what}: a virtual dataset (its values are stored outside this file); {_STORE_HERE}")
    if dset.external:
        raise error(f"{what}: external raw storage in {dset.external[0][0]!r}; {_STORE_HERE}")
    if dset.shape is None:       # h5py.Empty: a null dataspace; the checks below multiplied its shape, None
        raise error(f"{what}: an empty dataset (a null dataspace, no values)")
    plist = dset.id.get_create_plist()
    unwritten = _unwritten(dset, plist)
    if unwritten:
        raise error(f"{what}: {unwritten} never written (it reads as its fill value, not data); expected every "
                    "value written")
    for k in range(plist.get_nfilters()):
        code = plist.get_filter(k)[0]
        if code not in BUILT_IN_FILTERS:
            raise error(f"{what}: compressed with HDF5 filter {code}, a plugin baseparam does not load (it reads "
                        f"{', '.join(sorted(BUILT_IN_FILTERS.values()))}); rewrite the dataset with gzip")
    beyond = _beyond_file(dset, plist, h5file)
    if beyond is not None:
        from ._memory import format_size
        raise error(f"{what}: declares {dset.size} values ({format_size(dset.size * dset.dtype.itemsize)}) stored "
                    f"uncompressed, more than the whole file's {format_size(beyond)}; the file is damaged")
    oversized = _oversized_chunk(dset, plist)
    if oversized is not None:
        raise error(f"{what}: compressed in chunks of {oversized} bytes for {dset.size * dset.dtype.itemsize} bytes of "
                    f"values; libhdf5 decompresses a whole chunk at once (at most {_SPARE_CHUNK >> 20} MiB beyond the "
                    "values); rewrite the dataset with smaller chunks")
    short = _short_checksummed_chunk(dset, plist)
    if short is not None:
        raise error(f"{what}: a chunk at byte {short.byte_offset} of {short.size} bytes, fewer than its fletcher32 "
                    "checksum's 4; the file is damaged")
    return dset


# Bytes a filtered chunk may hold beyond its dataset's values: libhdf5 allocates and decompresses a whole chunk to
# read any part of it, so a 60-sample log declared in chunks of 5·10⁷ rows (2 MB of gzip) took 1.2 GB
_SPARE_CHUNK = 64 << 20


def _beyond_file(dset, plist, h5file):
    """The file's size in bytes when ``dset`` is stored unfiltered (contiguous or in chunks) and its values would take
    more, else None. Uncompressed values are all in the file (:func:`_unwritten` refuses unwritten storage): more is a
    damaged size (a dataspace or a chunk's dimensions), and reading it allocated the declared size before libhdf5 found
    the storage past the file's end ("addr overflow"): up to the memory budget on a file of a few kB. Filtered chunks
    are bounded by :func:`_oversized_chunk` and the readers' budgets."""
    if plist.get_nfilters():
        return None
    size = h5file.id.get_filesize()
    return size if dset.size * dset.dtype.itemsize > size else None


def _oversized_chunk(dset, plist):
    """The bytes of one chunk of ``dset`` when it is filtered and its chunks exceed both its values and
    :data:`_SPARE_CHUNK`, else None (an unfiltered chunk is read in part, not allocated whole)."""
    import h5py
    if plist.get_layout() != h5py.h5d.CHUNKED or not plist.get_nfilters():
        return None
    chunk = math.prod(dset.chunks) * dset.dtype.itemsize
    return chunk if chunk > max(dset.size * dset.dtype.itemsize, _SPARE_CHUNK) else None


def _short_checksummed_chunk(dset, plist):
    """The first chunk of ``dset`` (h5py's ChunkInfo) stored in fewer bytes than the 4 of its fletcher32 checksum, or
    None. libhdf5's fletcher32 filter takes the checksum from the last 4 bytes of what is stored: of a chunk of 0–3
    bytes (one damaged size in the chunk index) it read before the buffer, and the process died (SIGSEGV)."""
    import h5py
    if plist.get_layout() != h5py.h5d.CHUNKED or not any(plist.get_filter(k)[0] == 3
                                                           for k in range(plist.get_nfilters())):
        return None
    found = []

    def visit(info):
        if info.size < 4 and not info.filter_mask & (1 << _position(plist, 3)):
            found.append(info)
            return 1                             # stops the walk
        return None

    try:
        dset.id.chunk_iter(visit)
    except (AttributeError, NotImplementedError):    # libhdf5 before 1.12.3 (h5py's own check): one call per chunk
        next((None for k in range(dset.id.get_num_chunks()) if visit(dset.id.get_chunk_info(k))), None)
    return found[0] if found else None


def _position(plist, code):
    """Where filter ``code`` stands in the pipeline of ``plist`` (a chunk's filter mask has a bit per position)."""
    return next(k for k in range(plist.get_nfilters()) if plist.get_filter(k)[0] == code)


def stored_dataset(h5file, name, what, error):
    """The dataset ``name`` of ``h5file`` when the way to it stays in the file (:func:`refuse_external`) and its
    values are stored there (:func:`stored_here`); None when ``name`` is no dataset (missing, or a group).
    ``what`` and ``error`` as for those two."""
    import h5py

    refuse_external(h5file, name, what, error)
    dset = h5file.get(name)
    return stored_here(dset, h5file, what, error) if isinstance(dset, h5py.Dataset) else None


def _unwritten(dset, plist):
    """What of ``dset``'s storage was never written ("its values", "3 of its 6 chunks"), or None. libhdf5 allocates
    a contiguous dataset's block, and each chunk of a chunked one, when it is first written; a dataset created and
    never (or partly) filled reads as its fill value, zeros, and a trajectory of zeros passed every check. (A block
    allocated early and never written cannot be told from data.)"""
    import h5py
    if not dset.shape or dset.size == 0:
        return None
    layout = plist.get_layout()
    if layout == h5py.h5d.CONTIGUOUS:
        return "its values were" if dset.id.get_storage_size() == 0 else None
    if layout == h5py.h5d.CHUNKED:
        total = math.prod(-(-n // c) for n, c in zip(dset.shape, dset.chunks))
        missing = total - dset.id.get_num_chunks()
        return f"{missing} of its {total} chunks {'was' if missing == 1 else 'were'}" if missing > 0 else None
    return None


# HDF5's reports of the file system's refusal: "file write failed: …" and the errors of a storage that will not
# take more: "unable to extend file properly, errno = 27, …" when the file is flushed or closed (EFBIG: a file size
# limit, FAT32's 4 GiB), a full disk, a quota, a read-only remount, an I/O error. Only ENOSPC was known: the others
# were an internal error, exit 1. Not any errno: closing a file pointed at the null device says EINVAL.
_REFUSALS = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS, errno.EIO)
_WRITE_FAILED = re.compile(rf"file write failed|\berrno = (?:{'|'.join(map(str, _REFUSALS))})\b")


def _failed_write(exc):
    return isinstance(exc, (RuntimeError, OSError)) and _WRITE_FAILED.search(str(exc)) is not None


# The blocks of writes_checked in progress, by thread (innermost last), and the hooks in place before the first
# began: the hooks are the process's, so they are set once for all the blocks and given back when the last one ends.
# Each block swapping them on its own, two threads' blocks that did not nest left one block's hook in place for good.
_BLOCKS = {}
_SAVED = []
_LOCK = threading.RLock()     # re-entrant: a collection inside a locked step may call the hooks, which take it


def _block():
    with _LOCK:
        blocks = _BLOCKS.get(threading.get_ident())
        return blocks[-1] if blocks else None


def _kept(exc):
    """Whether ``exc``, reported to a hook, is a failed write in a block's thread: then the block keeps it (and
    raises it on leaving) instead of the hook in place before."""
    block = _block() if _failed_write(exc) else None
    if block is not None:
        block.failures.append(exc)
    return block is not None


def _unraisable(unraisable):
    if not _kept(unraisable.exc_value) and _SAVED:
        _SAVED[0](unraisable)


def _except(kind, value, traceback):
    if not _kept(value) and _SAVED:
        _SAVED[1](kind, value, traceback)


class writes_checked:
    """The HDF5 file written in a block (``with atomic_path(...) as tmp, writes_checked(path, tmp) as f``), opened
    for writing and closed by the block: a write that failed for the file system (a disk filled meanwhile) is one
    :class:`~baseparam.errors.StorageError` naming ``path``, whether h5py raised it (a RuntimeError "Can't decrement
    id ref count (file write failed …)", which the command line took for an internal error) or only reported it from
    its objects' deallocation ("Exception ignored in h5py._objects.ObjectID.__dealloc__" tracebacks, the file left
    incomplete and the block apparently successful). Those reports, made in the block's thread, are held while the
    block runs; any other goes to the hook in place before.

    The file is never closed while a write to it fails. libhdf5 (2.0, as 1.x: h5py issue #914) frees a dataset
    whose flush-on-close failed yet keeps its id, so the next close of that id (h5py's deallocation of a
    ``Dataset`` still referred to, e.g. by the exception's traceback, or libhdf5's own clean-up at exit) reads freed
    memory: the process died with SIGSEGV after the StorageError was caught. So the block first flushes the file
    (a failed flush frees nothing), and when the body or the flush failed, the file's descriptor is pointed at the
    null device before the close: the close's writes then succeed, every id is closed for good, and the temporary
    file (removed by ``atomic_path``) is not written further. A successful block is flushed then closed, which
    writes the same bytes as a close alone.

    h5py's close ends every object of the file (HDF5 ids), whatever still refers to them; a deallocation later
    finds its object closed and writes nothing. No collection of the block's objects is needed (h5py's objects make
    no reference cycles)."""

    def __init__(self, path, tmp):
        self.path, self.tmp, self.failures, self.file = path, tmp, [], None

    def __enter__(self):
        # Cython reports an error in a deallocation twice: printed through sys.excepthook (the traceback), then to
        # sys.unraisablehook ("Exception ignored in …")
        with _LOCK:
            if not _BLOCKS:
                _SAVED[:] = [sys.unraisablehook, sys.excepthook]
                sys.unraisablehook, sys.excepthook = _unraisable, _except
            _BLOCKS.setdefault(threading.get_ident(), []).append(self)
        try:
            self.file = _create(self.tmp)
        except BaseException:
            self._unhook()
            raise
        return self.file

    def __exit__(self, kind, exc, traceback):
        from ._output_names import _one_line
        from .errors import StorageError, printable

        try:
            failed = self._close(exc)
        finally:
            self._unhook()
        if failed is not None:
            raise StorageError(f"{printable(str(self.path))}: cannot write ({_one_line(failed)})") from None
        return False

    def _close(self, exc):
        """Flush and close the file (to the null device when anything failed); the failed write, or None."""
        failed = exc if _failed_write(exc) else None
        clean = exc is None and not self.failures       # nothing failed: not the body, no write a hook saw, …
        if clean:
            try:
                self.file.flush()
            except (RuntimeError, OSError) as flush_error:
                if not _failed_write(flush_error):
                    _discard(self.file)
                    self.file.close()
                    raise
                failed, clean = flush_error, False      # … not the flush
        if not clean:
            _discard(self.file)      # the file is removed: nothing more of it need reach the disk
        try:
            self.file.close()
        except (RuntimeError, OSError) as close_error:
            if clean:
                raise
            if failed is None and _failed_write(close_error):
                failed = close_error
        if failed is None and self.failures and exc is None:     # only the hooks saw a write fail
            failed = self.failures[0]
        return failed

    def _unhook(self):
        with _LOCK:
            blocks = _BLOCKS[threading.get_ident()]
            blocks.remove(self)
            if not blocks:
                del _BLOCKS[threading.get_ident()]
            if not _BLOCKS:
                sys.unraisablehook, sys.excepthook = _SAVED
                _SAVED.clear()


def _discard(h5file):
    """Point the descriptor of ``h5file`` (libhdf5's sec2 driver) at the null device: its later writes succeed and
    store nothing, so that libhdf5 can close the file and its objects without a failure (see writes_checked).
    Only the sec2 driver's handle is a descriptor: under another (``HDF5_DRIVER=stdio`` or ``core``) it is a FILE*
    or a memory address, which dup2 must not be given; that file is closed as it is."""
    import os

    try:
        if h5file.driver != "sec2":
            return
        fd = h5file.id.get_vfd_handle()
    except (RuntimeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def check_h5_output(path):
    """Refuse ``path`` as an HDF5 output before the work: as every output
    (:func:`~baseparam._output_names.check_output`: a link, a folder, a protected input), and a named pipe or a
    socket, which cannot take the seeks libhdf5 writes with — it was found after the projection, as ``cannot write
    (Illegal seek)``.

    Raises
    ------
    StorageError
    """
    import os
    import stat

    from ._output_names import check_output
    from .errors import StorageError, printable

    check_output(path)
    try:
        mode = os.stat(path).st_mode
    except (OSError, TypeError, ValueError):
        return
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise StorageError(f"{printable(os.fspath(path))}: a named pipe or socket; HDF5 is written with seeks, which "
                           "it cannot take (give a file name)")


def _create(name):
    """``h5py.File(name, 'w')`` with libhdf5's sieve buffer off: a contiguous dataset's values are written by the
    call that writes them, where a failure is an exception, and not held for the dataset's close, whose failure
    leaves a freed dataset behind a live id (see writes_checked). The buffer only delays writes: the bytes stored
    are the same."""
    import inspect
    import os

    import h5py

    try:        # h5py's own helpers (not public): an h5py whose helpers differ gets its plain file
        from h5py._hl.files import make_fapl, make_fcpl, make_fid

        # h5py.File(name, "w")'s own lists: make_fapl given File's defaults by name, as File passes them (in
        # earlier h5py 3 releases its parameters had no defaults: make_fapl(None) was a TypeError); the buffer set to
        # nothing
        defaults = inspect.signature(h5py.File.__init__).parameters
        fapl = make_fapl(None, **{option: defaults[option].default
                                  for option in inspect.signature(make_fapl).parameters
                                  if option != "driver" and option in defaults
                                  and defaults[option].default is not inspect.Parameter.empty})
        fapl.set_sieve_buf_size(0)
    except (ImportError, TypeError, AttributeError):
        return h5py.File(name, "w")
    # creation order tracked where the process asked h5py for it, as h5py.File does
    fcpl = make_fcpl(track_order=h5py.get_config().track_order)
    return h5py.File(make_fid(os.fsencode(name), "w", None, fapl, fcpl))
