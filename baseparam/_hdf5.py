"""HDF5 datasets read only from the file named: the readers' guard against data stored elsewhere.

HDF5 lets a dataset keep its values outside the file that names it: a virtual dataset maps other
files (and reads as its fill value, zeros, when they are missing), external raw storage reads bytes
of any file on the machine, and an external link opens another HDF5 file. A reader given one file
must not silently read another, so such datasets are refused rather than followed.
"""
from __future__ import annotations


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
        raise error(f"{what}: an external link to {dset.file.filename!r}; "
                    "expected the data stored in this file (copy the dataset in)")
    if dset.is_virtual:
        raise error(f"{what}: a virtual dataset (its values are stored outside this file); "
                    "expected the data stored in this file (copy the dataset in)")
    if dset.external:
        raise error(f"{what}: external raw storage in {dset.external[0][0]!r}; "
                    "expected the data stored in this file (copy the dataset in)")
    return dset
