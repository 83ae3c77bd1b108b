"""What ``fit``/``predict``/``score`` accept: trajectories, file names or (q, qd, qdd, tau) arrays, one or a list."""
from __future__ import annotations

import os

import numpy as np

from .._checks import check_path, is_file_name
from .._validation import check_instance
from ..motion import check_motion_size
from ..errors import DataError, printable
from ._joint_order import ORDERED_EXTENSIONS, check_joint_order
from .preprocessing import Processed
from .trajectory import Trajectory, read_trajectory, robot_joint_names


def read_log(path, robot=None, /, **options):
    """``read_trajectory(path, **options)``, read again by ``robot``'s joint names (``robot=``) when the log names
    them all in another order or among others (a bag, a Parquet file), a CSV's or NPZ's names in another order
    refused as ``robot=`` refuses them; unless ``options`` give ``robot`` or ``joints`` (``robot`` is positional:
    ``options`` may hold one, the command line's).

    The library's fits read a file name without the robot: a bag naming its joints in another order was read in its
    own order (``bp.identify_payload(robot, 'log.mcap')``: 1.25 kg for a 2 kg tool, no word), a CSV's ``# joints:``
    line in another order went unchecked, where the command line (``robot=``) matches by name or refuses. A log
    naming other joints (``joint1`` … of ``write_trajectory`` for a URDF robot) is read in its own order: reading it
    by the robot's names would refuse it."""
    path = check_path(path)     # decoded once: a bytes name reached zipfile's NPZ check as bytes (AttributeError)
    item = read_trajectory(path, **options)
    if robot is None or robot.is_floating or "robot" in options or "joints" in options:    # the caller's choice
        return item
    names, logged = robot_joint_names(robot), list(item.joint_names or ())
    ext = os.path.splitext(path)[1].lower()
    if ext in ORDERED_EXTENSIONS:      # their readers keep no names: the file's own, checked as robot= does
        check_joint_order(path, printable(path), ext, names, mapped=options.get("columns") is not None)
    elif logged and logged != names and set(names) <= set(logged):
        item = read_trajectory(path, robot=robot, **options)
    return item


def _as_trajectories(data, what, robot=None):
    """A list of Trajectory/Processed from one or several trajectories, file names (:func:`read_log` with
    ``robot``) or arrays."""
    if isinstance(data, tuple) and len(data) == 3 and all(isinstance(a, np.ndarray) for a in data):
        # read as three trajectories, it was refused as "got ndarray"
        raise DataError(f"{what}: a (q, qd, qdd) tuple has no torques; expected (q, qd, qdd, tau) arrays")
    items = list(data) if isinstance(data, (list, tuple)) and not _is_state_tuple(data) else [data]
    if not items:
        raise DataError(f"{what}: no trajectory given")
    out = []
    for item in items:
        if is_file_name(item):
            item = read_log(item, robot)
        elif _is_state_tuple(item):          # arrays without time stamps: used as given, checked as a motion
            S = item[0].shape[0] if item[0].ndim else 0
            # before the times made for them: a broadcast view of 10⁹ samples would end in numpy's bare MemoryError
            check_motion_size(f"<{what} arrays>", S, 1 + sum(a.size // max(S, 1) for a in item))
            item = Processed(np.arange(S, dtype=float), *item, source=f"<{what} arrays>",
                             record={"preprocessing": "none (arrays)"})
        if isinstance(item, np.ndarray):    # an array alone, or one of a list: the states go in a tuple
            raise DataError(f"{what}: got an array of shape {item.shape} where a trajectory is expected; arrays "
                            "as a (q, qd, qdd, tau) tuple of (n_samples, n_dof) arrays")
        check_instance(item, what, Trajectory, "a Trajectory, a file name or a (q, qd, qdd, tau) tuple",
                       error=DataError)
        if item.floating:
            # its q starts with the base pose: the fixed-base fits took those columns for joints (numpy's broadcast
            # error, or a payload's still poses found in the base's)
            raise DataError(f"{item.source}: a floating-base motion (floating=True: q starts with the base pose); "
                            f"{what}: fixed-base robots' motions only (a floating base: identify_floating)")
        out.append(item)
    return out


def check_joints(item, robot):
    """``item`` (a motion) when it has ``robot``'s joints; else a DataError naming its source (before any work on
    it), in the same words for every fit."""
    if item.n_dof != robot.n_dof:
        raise DataError(f"{item.source}: {item.n_dof} joints in the data, {robot.n_dof} in the robot description")
    return item


def _is_state_tuple(x):
    return isinstance(x, tuple) and len(x) == 4 and all(isinstance(a, np.ndarray) for a in x)


def check_unused_y(y, what):
    """``y`` of ``fit``/``score`` (scikit-learn's signature): None. The torques are X's; a y given was ignored, so that
    ``score(X, tau_other)`` gave the R² of X's own torques, silently."""
    if y is not None:
        raise DataError(f"{what}: y is not used (the torques are X's: a Trajectory or a (q, qd, qdd, tau) tuple); "
                        f"expected None, got {type(y).__name__}")
