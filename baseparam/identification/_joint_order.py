"""The order of the joints a CSV, NPZ or HDF5 log names, against the robot's: shared by the fixed- and floating-base
readers (:mod:`~baseparam.identification.trajectory`, :mod:`~baseparam.identification.floating_logs`)."""
from __future__ import annotations

from ._arrays import h5_joint_names, npz_joint_names
from ._columns import refuse_other_order
from ._text import named_joints

HDF5_EXTENSIONS = (".h5", ".hdf5")
# the files whose columns are read in their order, and whose joint names (when they give them) are checked here
ORDERED_EXTENSIONS = (".csv", ".txt", ".npz", *HDF5_EXTENSIONS)


def check_joint_order(path, source, ext, joints):
    """CSV, NPZ and HDF5 columns are read in the file's order; a file naming the robot's joints (``write_trajectory``:
    a ``# joints:`` comment before the header, a ``joint_names`` member; an HDF5 ``joint_names`` dataset or
    attribute) in another order is refused rather than misread."""
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
            return                               # the reader itself says what is wrong with the file
    refuse_other_order(source, names, joints, "columns of CSV, NPZ and HDF5 files are read in their order (write the "
                       "file in the robot's order, or as Parquet or MCAP)")
