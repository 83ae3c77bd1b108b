"""The order of the joints a CSV or NPZ log names, against the robot's: shared by the fixed- and floating-base
readers (:mod:`~baseparam.identification.trajectory`, :mod:`~baseparam.identification.floating_logs`)."""
from __future__ import annotations

from ..errors import DataError
from ._arrays import npz_joint_names
from ._columns import SHOWN_NAMES, shown_name, shown_names
from ._text import first_line


def check_joint_order(path, source, ext, joints):
    """CSV and NPZ columns are read in the file's order; a file naming the robot's joints (``write_trajectory``:
    a ``# joints:`` first line, a ``joint_names`` member) in another order is refused rather than misread."""
    names = None
    if ext == ".npz":
        names = npz_joint_names(path, source)
    else:
        # the first line as the reader decodes and splits the file: a byte-order mark, UTF-16 or CR line ends hid
        # the names from a check reading raw UTF-8 up to a \n, and the columns went to other joints without a word
        try:
            first = first_line(path).strip()
        except OSError:
            return                               # the reader itself says what is wrong with the file
        if first.startswith("# joints:"):
            names = [x.strip() for x in first[len("# joints:"):].split(",")]
    joints = [str(j) for j in joints]
    if names is not None and names != joints and sorted(names) == sorted(joints):
        k = next(k for k, (a, b) in enumerate(zip(names, joints)) if a != b)
        # the lists are cut after 12 names: a difference beyond them is named, or the two lists shown look alike
        first = (f"; they differ first at joint {k + 1}: {shown_name(names[k])} in the file, "
                 f"{shown_name(joints[k])} in the robot" if k >= SHOWN_NAMES else "")
        raise DataError(f"{source}: the file names its joints {shown_names(names)} in this order, the robot "
                        f"{shown_names(joints)}{first}; columns of CSV and NPZ files are read in their order "
                        "(write the file in the robot's order, or as Parquet or MCAP)")
