"""A :class:`~baseparam.Trajectory` written to CSV, NPZ, Parquet or MCAP, which the readers take back unchanged.

:func:`write_trajectory` chooses the format by the extension; every file is written atomically
(:mod:`baseparam._atomic`: a temporary name, renamed when complete; never over an input of the
running command). What :func:`~baseparam.read_trajectory` reads back is the same trajectory to the
last bit of every float64 (times included):

* CSV: the plain format (``t, q1..qN, [qd..], [qdd..], [tau..]``, shortest exact decimals), the
  joint names in a ``# joints: …`` comment line;
* NPZ: one array per field (``t``, ``q``, ``qd``, ``qdd``, ``tau``) and ``joint_names``;
* Parquet: a row per sample, ``t`` (float64) and a column per field holding the per-joint list
  (LeRobot's layout), the joint names in the schema metadata (``baseparam.joint_names``, JSON);
* MCAP: a ROS 2 bag file that ROS tools play: ``sensor_msgs/msg/JointState`` on ``topic`` with the
  joint names, position q, velocity q̇, effort τ, the header stamp t rounded to the nanosecond. As a
  stamp only rounds t and JointState has no accelerations, the float64 times and q̈ (when present)
  are attached beside (MCAP attachments ``baseparam<topic>/t`` and ``baseparam<topic>/qdd``, raw
  little-endian float64) and read back when they agree with the stamps.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .._atomic import write_text
from .._validation import check_instance, check_names, check_path, shown
from ..errors import ArgumentError, printable
from ..motion import Trajectory
from ._log_files import _mcap_log_times, _present, _split, _write_mcap, _write_npz, _write_parquet

FORMATS = (".csv", ".npz", ".parquet", ".mcap")


def write_trajectory(trajectory, path, *, joint_names=None, topic="/joint_states", base_topic="/odom"):
    """Write a trajectory to ``path`` (format by extension: .csv, .npz, .parquet, .mcap), atomically.

    Parameters
    ----------
    trajectory : Trajectory
        Measured, preprocessed or simulated (t (n_samples,), q (n_samples, n_dof), qd, qdd, tau (n_samples, n_dof)
        or None).
    path : str or os.PathLike
    joint_names : sequence of n str, optional
        Default: ``trajectory.joint_names``, else ``joint1`` … ``jointN``.
    topic : str
        MCAP: the JointState topic.
    base_topic : str
        MCAP, floating base: the nav_msgs/Odometry topic of the base pose and twist (the contacts'
        wrenches go to ``/<name>/wrench``, names from ``trajectory.contacts``, else ``contact1`` …).

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ArgumentError
        An unknown extension, names of the wrong count; a floating base from an IMU
        (:class:`~baseparam.identification.imu.ImuTrajectory`: its zero position and linear velocity would read
        back as measured).
    StorageError
        The file cannot be written.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> import baseparam as bp
    >>> t = np.arange(20) * 0.01
    >>> traj = bp.from_arrays(t, np.sin(t)[:, None], np.cos(t)[:, None])
    >>> path = os.path.join(tempfile.mkdtemp(), "log.mcap")
    >>> _ = bp.write_trajectory(traj, path, joint_names=["elbow"])
    >>> back = bp.read_trajectory(path)
    >>> np.array_equal(back.t, traj.t) and np.array_equal(back.tau, traj.tau), back.joint_names
    (True, ('elbow',))
    """
    check_instance(trajectory, "trajectory", Trajectory, "a baseparam.Trajectory")
    check_instance(path, "path", (str, os.PathLike), "a file name")
    check_path(path)
    check_names(joint_names, "joint_names")
    ext = Path(os.fspath(path)).suffix.lower()
    if ext not in FORMATS:
        raise ArgumentError(f"path: {printable(repr(os.fspath(path)))}: "
                            f"unknown extension {shown(ext or '(none)')}; expected "
                            f"{', '.join(FORMATS)}")
    n = trajectory.n_dof
    names = list(joint_names if joint_names is not None else trajectory.joint_names or
                 [f"joint{k}" for k in range(1, n + 1)])
    from ._joint_order import written_names
    written_names(names, n, ext)
    if trajectory.floating:        # docs/formats.md, "Floating-base logs"
        from .floating_logs import write_floating
        write_floating(trajectory, path, names, topic, base_topic)
        return path
    {".csv": _csv, ".npz": _npz, ".parquet": _parquet, ".mcap": _mcap}[ext](trajectory, path, names, topic)
    return path


def _csv(traj, path, names, topic):
    fields = _present(traj)
    n = traj.n_dof
    header = ["t"] + [f"{f}{j}" for f in fields for j in range(1, n + 1)]
    table = np.column_stack([traj.t] + list(fields.values()))
    lines = [f"# joints: {', '.join(names)}", ",".join(header)]
    lines += [",".join(map(repr, row)) for row in table.tolist()]
    write_text(path, "\n".join(lines) + "\n")


def _npz(traj, path, names, topic):
    _write_npz(path, {"t": traj.t, **_present(traj), "joint_names": np.array(names)})


def _parquet(traj, path, names, topic):
    _write_parquet(path, traj.t, _present(traj), {"baseparam.joint_names": json.dumps(names)})


def _mcap(traj, path, names, topic):
    from ._cdr import JOINT_STATE_MSGDEF, encode

    log_times = _mcap_log_times(traj.t, topic=topic)
    rows = encode(traj.t, names, traj.q, traj.qd, traj.tau)
    attached = {"t": traj.t} if traj.qdd is None else {"t": traj.t, "qdd": traj.qdd}
    _write_mcap(path, [(topic, "sensor_msgs/msg/JointState", JOINT_STATE_MSGDEF)], log_times, [_split(rows)],
               {f"{topic}/{field}": values for field, values in attached.items()})
