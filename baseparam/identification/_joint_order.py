"""The order of the joints a CSV, NPZ or HDF5 log names, against the robot's: shared by the fixed- and floating-base
readers (:mod:`~baseparam.identification.trajectory`, :mod:`~baseparam.identification.floating_logs`), and the
names their writers may write."""
from __future__ import annotations

from .._checks import shown
from ..errors import ArgumentError
from ._arrays import h5_joint_names, npz_joint_names
from ._columns import refuse_other_order
from ._text import named_joints

HDF5_EXTENSIONS = (".h5", ".hdf5")
# the files whose columns are read in their order, and whose joint names (when they give them) are checked here
ORDERED_EXTENSIONS = (".csv", ".txt", ".npz", *HDF5_EXTENSIONS)


def check_joint_order(path, source, ext, joints, mapped=False):
    """CSV, NPZ and HDF5 columns are read in the file's order; a file naming the robot's joints (``write_trajectory``:
    a ``# joints:`` comment before the header, a ``joint_names`` member; an HDF5 ``joint_names`` dataset or
    attribute) in another order is refused rather than misread. ``mapped``: a column map was given, which takes the
    columns by position, not by these names (the command line's ``a:b`` in the file's order): the refusal says so
    rather than "read in their order". Returns the names the file gives (None: none, or a file the reader will
    refuse itself)."""
    names = None
    if ext == ".npz":
        names = npz_joint_names(path, source)
    elif ext in HDF5_EXTENSIONS:
        names = h5_joint_names(path, source)
    else:
        # the lines as the reader decodes and splits the file: a byte-order mark, UTF-16 or CR line ends hid
        # the names from a check reading raw UTF-8 up to a \n, and the columns went to other joints without a word
        try:
            names = named_joints(path)
        except OSError:
            return None                          # the reader itself says what is wrong with the file
    where = ("joint_names member" if ext == ".npz" else "joint_names dataset or attribute" if ext in HDF5_EXTENSIONS
             else "'# joints:' line")
    refuse_other_order(source, names, joints, (
        f"the column map takes columns by their position, not by the file's {where}, so it cannot be told which "
        "joint each column holds: write the file in the robot's order (write_trajectory), or as Parquet or MCAP "
        f"(read by name); or, with a map that lists each field's columns in the robot's order, leave out the {where}"
        if mapped else "columns of CSV, NPZ and HDF5 files are read in their order (write the file in the robot's "
        "order, or as Parquet or MCAP)"), picked=mapped, whole=True)
    return names


def written_names(names, n, ext):
    """``names`` (a list) when a file of extension ``ext`` can hold them as ``n`` joints' names, else ArgumentError:
    the fixed- and floating-base writers' one check."""
    if len(names) != n or not all(isinstance(x, str) and x for x in names) or len(set(names)) != n:
        raise ArgumentError(f"joint_names: expected {n} distinct non-empty names, got {shown(names)}")
    # a name goes into the file's header (CSV: '# joints: a, b'), which the readers split at newlines and commas
    bad = next((x for x in names if not x.isprintable() or (ext == ".csv" and "," in x)), None)
    if bad is not None:
        raise ArgumentError(f"joint_names: {shown(bad)}: a joint name is written in the file's header: printable "
                            f"characters{', no comma' if ext == '.csv' else ''}")
    return names
