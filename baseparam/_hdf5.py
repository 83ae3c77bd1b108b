"""HDF5 datasets read only from the file named: the readers' guard against data stored elsewhere.

HDF5 lets a dataset keep its values outside the file that names it: a virtual dataset maps other
files (and reads as its fill value, zeros, when they are missing), external raw storage reads bytes
of any file on the machine, and an external link opens another HDF5 file. A reader given one file
must not silently read another, so such datasets are refused rather than followed.

Likewise a dataset's filter pipeline names its filters by number, and libhdf5 looks for one it does not know
as a plugin (a shared library, loaded and run, from ``HDF5_PLUGIN_PATH`` or its default directory): the file
would choose which code runs. Only the filters built into libhdf5 and h5py are read; a dataset with another
is refused before its values are read, so no plugin is loaded for it.
"""
from __future__ import annotations

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
    return dset


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
    import math

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


_WRITE_FAILED = ("file write failed", "errno = 28")


def _failed_write(exc):
    return isinstance(exc, (RuntimeError, OSError)) and any(text in str(exc) for text in _WRITE_FAILED)


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
    """The block writing an HDF5 file (``with atomic_path(...) as tmp, writes_checked(path), h5py.File(tmp, 'w')``):
    a write that failed for the file system (a disk filled meanwhile) is one :class:`~baseparam.errors.StorageError`
    naming ``path``, whether h5py raised it (a RuntimeError "Can't decrement id ref count (file write failed …)",
    which the command line took for an internal error) or only reported it from its objects' deallocation
    ("Exception ignored in h5py._objects.ObjectID.__dealloc__" tracebacks, the file left incomplete and the
    block apparently successful). Those reports, made in the block's thread, are held while the block runs; any
    other goes to the hook in place before.

    The h5py file is opened last in the ``with`` and so closed inside the block: h5py's close ends every object of
    the file (HDF5 ids), whatever still refers to them, and writes what is left; a deallocation later finds its
    object closed and writes nothing. No collection of the block's objects is needed (a full ``gc.collect()`` here
    cost 24-54 ms a write and found nothing: h5py's objects make no reference cycles; and after a failed close
    they are held by the exception's traceback, out of any collection's reach)."""

    def __init__(self, path):
        self.path, self.failures = path, []

    def __enter__(self):
        # Cython reports an error in a deallocation twice: printed through sys.excepthook (the traceback), then to
        # sys.unraisablehook ("Exception ignored in …")
        with _LOCK:
            if not _BLOCKS:
                _SAVED[:] = [sys.unraisablehook, sys.excepthook]
                sys.unraisablehook, sys.excepthook = _unraisable, _except
            _BLOCKS.setdefault(threading.get_ident(), []).append(self)
        return self

    def __exit__(self, kind, exc, traceback):
        from ._atomic import _one_line
        from .errors import StorageError, printable

        with _LOCK:
            blocks = _BLOCKS[threading.get_ident()]
            blocks.remove(self)
            if not blocks:
                del _BLOCKS[threading.get_ident()]
            if not _BLOCKS:
                sys.unraisablehook, sys.excepthook = _SAVED
                _SAVED.clear()
        failed = exc if _failed_write(exc) else (self.failures[0] if self.failures and exc is None else None)
        if failed is not None:
            raise StorageError(f"{printable(str(self.path))}: cannot write ({_one_line(failed)})") from None
        return False
