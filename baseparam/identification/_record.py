"""What the readers of logs share: field names, bounds, size limits, key names and units.

The record itself, :class:`~baseparam.motion.Trajectory`, and its one check live in
:mod:`baseparam.motion` (below every stage); the readers import them from there.
"""
from __future__ import annotations

import os

import numpy as np

from .._checks import check_option, shown
from ..errors import DataError, printable

FIELDS = ("t", "q", "qd", "qdd", "tau", "current")
JOINT_FIELDS = FIELDS[1:]

# |value| beyond these is a unit or recording error, never a measurement: s, rad or m, rad/s or
# m/s, rad/s² or m/s², N·m or N, A. Times may be Unix timestamps in s (≈ 1.7e9; the KUKA LWR4+
# recordings use them), so t's bound is 1e10 s (year 2286): timestamps in ms, µs or ns, or
# garbage, are still refused.
ABSURD_BOUNDS = {"t": 1e10, "q": 1e3, "qd": 1e4, "qdd": 1e6, "tau": 1e6, "current": 1e4}


def beyond_bounds(arr, bound):
    """The rows of ``arr`` holding a value not within ``±bound`` (NaN and infinities among them: NaN compares
    False), and each one's first such column: the one check of a log's values against :data:`ABSURD_BOUNDS`, for the
    readers that mark rows to skip and those that refuse the first.

    Parameters
    ----------
    arr : ndarray, shape (n_samples, k)
    bound : float or ndarray, shape (k,)

    Returns
    -------
    rows : ndarray of int, shape (B,)
        Ascending.
    columns : ndarray of int, shape (B,)
    """
    bad = ~(np.abs(arr) <= bound)
    rows = np.flatnonzero(bad.any(axis=1))
    return rows, (np.argmax(bad[rows], axis=1) if rows.size else rows)     # argmax refuses an (S, 0) array's rows


def absurd(value, bound) -> str:
    """The words for a finite ``value`` beyond ``±bound`` (:func:`beyond_bounds`)."""
    return f"absurd value ({value:.6g}; beyond ±{bound:g})"


# Size limits, checked before anything is read: no real log comes near them (the UR10e logs hold
# 1.7e5 values in 1.6 MB; the KUKA ones 1.8e5), and the identification would not fit in memory
# long before them. A file beyond one is refused in one line, in little time and memory.
MAX_VALUES = 20_000_000        # values in all the arrays a trajectory uses (160 MB as float64)
MAX_TEXT_BYTES = 256 << 20     # size of a CSV/TXT file
MAX_LINE_BYTES = 1 << 20       # length of one CSV/TXT line
MAX_COLUMNS = 10_000           # fields on one CSV/TXT line (64 joints × 5 fields need 321)
MAX_ARRAYS = 10_000            # arrays (keys) in one NPZ/HDF5 file

# Array names looked for in NPZ/HDF5 files, in order of preference.
DEFAULT_KEYS = {
    "t": ("t", "time", "times"),
    "q": ("q", "positions"),
    "qd": ("qd", "velocities"),
    "qdd": ("qdd", "accelerations"),
    "tau": ("tau", "torques"),
    "current": ("current", "currents"),
}

# Units accepted after a header name ("t [s]", "q1 (rad)"), compared without case and blanks: only
# the SI unit of each field, since values are never converted.
UNITS = {
    "t": ("s", "sec"),
    "q": ("rad", "m"),
    "qd": ("rad/s", "m/s"),
    "qdd": ("rad/s^2", "rad/s²", "rad/s**2", "m/s^2", "m/s²", "m/s**2"),
    "tau": ("n·m", "n⋅m", "n*m", "nm", "n.m", "n"),
    "current": ("a",),
}


# A bag message's time: its header stamp, or when the recorder received it (the bag's log time).
CLOCKS = ("header", "receive")
# The names of bag files (ROS 1 bags, MCAP: ROS 2's single-file bags); a ROS 2 bag folder is read as a bag too
BAG_EXTENSIONS = (".mcap", ".bag")


def log_extension(name) -> str:
    """The extension a log's name gives its reader (lower case; a folder's trailing separator ignored)."""
    return os.path.splitext(str(name).rstrip("/\\"))[1].lower()


def read_as_bag(path, name=None) -> bool:
    """Whether the log readers take ``path`` as a ROS bag: a :data:`BAG_EXTENSIONS` name (``name``: the name as given,
    default ``path``) or a folder (a ROS 2 bag's, or refused as none)."""
    return log_extension(path if name is None else name) in BAG_EXTENSIONS or os.path.isdir(path)


def refuse_bag_options(source, ext, clock="header", **options):
    """Refuse, for a file of another kind (``ext``), what only ROS bags take: ``options`` (name → value, None when
    not given) and a ``clock`` other than the stamps a file has ('header'); an unknown clock whatever the file.

    A CSV or NPZ has one time column: ``clock='receive'`` there was taken and ignored in silence."""
    check_option(clock, f"{source}: clock", CLOCKS, expected="'header' or 'receive'", error=DataError)
    for name, value in {**options, "clock": None if clock == "header" else clock}.items():
        if value is not None:
            raise DataError(f"{source}: {name}={shown(value)} applies to ROS bags, not {ext or 'this'} files")


def _short(text, limit=30):
    """repr of user text, shortened, on one line."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _one_line(exc):
    """An exception's text on one line, its unprintable characters escaped (:func:`~baseparam.errors.printable`):
    h5py's text repeats the file name as given, and a terminal escape in it reached the message raw."""
    return printable(" ".join(str(exc).split())) or type(exc).__name__
