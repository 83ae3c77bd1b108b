"""Measured trajectories for identification: reading and validating t, q, (qd, qdd) and τ.

Sources
-------
* CSV/TXT with a header row (the plain format; docs/formats.md, section "Trajectory files"):
  ``t, q1..qN, [qd1..qN], [qdd1..qN], tau1..tauN`` in any column order, names case-insensitive
  (also ``time``, ``current1..N`` or ``i1..N``, and ``q_1``/``q[1]`` spellings). A name may carry
  its unit in brackets or parentheses, ``t [s]``, ``q1 (rad)``, ``tau1 [N·m]``, if that unit is
  the SI unit of the field (see :data:`UNITS`); other units (``deg``, ``ms``) are refused, never
  converted;
* CSV/TXT without a header, with a column map ``columns={"t": 0, "q": "1:7", ...}``
  (CLI ``--columns t=0,q=1:7,qd=7:13,current=13:19``, see :func:`parse_column_map`). With such a
  positional map a first line without numbers is a header only if one of its names is a field
  name (``t``, ``q1``, ``tau1 [N·m]``, …); otherwise it is a damaged data line, refused or (with
  ``skip_bad_rows``) skipped like any other;
* NPZ and HDF5 files, one array per field (default key names in :data:`DEFAULT_KEYS`, the first the file has
  taken; a file holding two of one field's default names, ``t`` and ``time``, is read only if they hold the same
  shape and values, and refused otherwise, as is a Parquet file's two default columns of one field of
  another type or other values; a CSV header's ``t`` and ``time`` are refused as two columns of one field);
* Parquet files (:mod:`~baseparam.identification._parquet`: LeRobot's list-per-field layout, or a
  column per joint) and ROS bags (:mod:`~baseparam.identification._bags`: ROS 2 ``.mcap`` files
  and bag folders, ROS 1 ``.bag``; ``sensor_msgs/JointState``, joints matched by name, topics
  aligned on one clock), their joint names kept in :attr:`Trajectory.joint_names` and what the
  reader did in :attr:`Trajectory.notes`;
* a pandas DataFrame (:func:`from_dataframe`) or plain arrays (:func:`from_arrays`);
* :class:`Trajectory` itself, which checks shapes, finiteness and times but drops nothing.

In text files, lines starting with ``#`` (after optional blanks) are comments, skipped anywhere
but counted in line numbers; a comment just before the first data line that holds field names
(``np.savetxt(..., header="t,q1,...")`` writes ``# t,q1,...``) is taken as the header. Fields
may be double-quoted (``"0.1","0.2"``). Decimal commas (``0,5``) are not supported: they are
refused with a message saying so.

Motor currents (field ``current``) need drive gains: τ = current · gains (N·m/A per joint).

A damaged file is never ingested silently. Every problem raises one :class:`DataError` line naming
the file, the line (CSV: 1-based physical line, counting the header) or row (arrays: 0-based),
the field and the problem, e.g. ``ur.csv: line 7: field qd3: not a number ('abc')``. With
``skip_bad_rows=True`` bad rows are dropped instead and listed in :attr:`Trajectory.skipped`
(see :meth:`Trajectory.skipped_summary`); structural problems (no column map, missing fields,
inconsistent shapes, too few samples left) always raise, and so do files beyond the size limits
(:data:`MAX_VALUES` values, :data:`MAX_TEXT_BYTES` per text file, :data:`MAX_LINE_BYTES` per line,
:data:`MAX_COLUMNS` fields), which are checked before the data are read.
"""
from __future__ import annotations

from .._checks import is_file_name
from .._validation import check_input, check_instance, check_names, check_reading, check_robot, shown
from ..errors import ArgumentTypeError, DataError, printable
from ..motion import MIN_SAMPLES, Trajectory
from ._record import (ABSURD_BOUNDS, DEFAULT_KEYS, FIELDS, JOINT_FIELDS, MAX_COLUMNS, MAX_LINE_BYTES, MAX_TEXT_BYTES,
                      MAX_VALUES, UNITS, log_extension, read_as_bag, refuse_bag_options)
from ._columns import parse_column_map, shown_names
from ._text import _read_text_file
from ._frames import from_dataframe
from ._arrays import _read_h5, _read_npz, from_arrays
from ._joint_order import ORDERED_EXTENSIONS, check_joint_order

# The modules below this one, in the order data meets them: ``_record`` (field names, bounds and
# limits; the Trajectory and its one check live in baseparam.motion), ``_columns`` (column maps,
# field sets, gains), ``_names`` (columns found by name), ``_rows`` (validation common to every
# source), then one reader per source: ``_text``, ``_frames``, ``_arrays``, ``_parquet``, and for
# bags ``_bag_files`` (raw messages; ``_mcap`` the container) → ``_cdr`` (JointState decoding) →
# ``_bags`` (joints by name, one clock). ``delay`` shifts the effort; ``writers`` writes files the
# readers take back. This module dispatches files by extension.
__all__ = ["ABSURD_BOUNDS", "DEFAULT_KEYS", "FIELDS", "JOINT_FIELDS", "MAX_COLUMNS", "MAX_LINE_BYTES", "MAX_TEXT_BYTES",
           "MAX_VALUES", "MIN_SAMPLES", "UNITS", "Trajectory",
           "from_arrays", "from_dataframe", "parse_column_map", "read_trajectory", "robot_joint_names"]


def read_trajectory(path, *, columns=None, gains=None, skip_bad_rows=False, n_dof=None, delimiter=None, joints=None,
                    topic=None, clock="header", delay=None, robot=None, contacts=None, base_topic=None,
                    imu_frame=None) -> Trajectory:
    """Read and validate a measured trajectory: CSV/TXT, NPZ, HDF5, Parquet, or a ROS bag.

    Parameters
    ----------
    path : str or os.PathLike
        ``.csv``/``.txt`` (delimiter sniffed: comma, semicolon, tab or whitespace; ``#`` comment
        lines skipped; double-quoted fields unquoted), ``.npz``, ``.h5``/``.hdf5``, ``.parquet``
        (:mod:`~baseparam.identification._parquet`), a ROS 2 bag (an ``.mcap`` file, or a bag folder
        holding ``metadata.yaml``) or a ROS 1 ``.bag`` (:mod:`~baseparam.identification._bags`).
    columns : dict or str, optional
        Column map, field → columns. CSV: 0-based indices (int, ``slice(1, 7)``, ``"1:7"``, list)
        or header names (str or list of str); required for a CSV without header. NPZ/HDF5: key
        names (``"grp/positions"`` for an HDF5 group). With names available (header, keys) the
        map overrides the automatic detection field by field; ``None`` excludes a field, and
        mapping one of tau/current excludes the other. A str is parsed by :func:`parse_column_map`
        (where ``FIELD=none`` excludes a field).
    gains : float or sequence of n floats, optional
        Drive gains in N·m/A; required with motor currents (τ = current · gains), refused with tau.
    skip_bad_rows : bool
        Drop rows with a wrong field count, text, NaN/inf or absurd values, or a time stamp out of
        order (a stamp that jumps ahead and back is itself the bad row, not the rows after it; a
        clock restart drops the rows after it), and list them in :attr:`Trajectory.skipped`,
        instead of raising.
    n_dof : int, optional
        Expected number of joints.
    delimiter : str, optional
        CSV field separator (``","``, ``";"``, ``"\\t"``, or ``" "`` for any whitespace);
        sniffed from the first line when None.
    joints : sequence of str, optional
        The robot's joint names, in its order (default: those of ``robot``). Bags and Parquet files
        naming their joints are matched by name in any order; joints the robot lacks are left out
        (listed once in :attr:`Trajectory.notes`), joints the log lacks refused in one line.
    topic : str or sequence of str, optional
        Bags: the ``sensor_msgs/JointState`` topic(s) (``"/a,/b"``: several, aligned on one clock);
        default the one JointState topic, or ``/joint_states``. In a bag ``columns`` maps fields to
        JointState fields: ``{"current": "effort"}`` (motor currents, with ``gains``), or to a field
        of another topic of any type, ``{"current": "/motor_currents:data"}`` (one value per joint,
        in the robot's order).
    clock : {'header', 'receive'}
        Bags: time a message by its header stamp (default) or by when the recorder received it.
    delay : None, 'auto' or float
        The delay (s) of the effort behind the position (:func:`~baseparam.estimate_delay`):
        ``'auto'`` estimates and applies it, a number applies it (τ(t) replaced by τ(t + delay)); the
        estimate is stated in :attr:`Trajectory.notes` in ms.
    robot : Robot, optional
        Gives the joint names and count and, with ``delay='auto'``, the model the delay is
        estimated with (the torque of a first least-squares fit against the measured one). A robot
        with a floating base reads a floating-base log (docs/formats.md, "Floating-base logs": CSV,
        NPZ, Parquet or a ROS bag with the base pose and contact wrench topics): the trajectory has
        ``floating=True`` and the contacts' ``wrenches``.
    contacts : sequence of Contact or str, or dict, optional
        Floating base: the contacts whose wrenches the log holds, in order; in a bag each one's
        ``geometry_msgs/WrenchStamped`` topic, ``/<name>/wrench`` unless a dict maps names to topics.
    base_topic : str, optional
        Floating base, bags: the ``nav_msgs/Odometry`` or ``geometry_msgs/PoseStamped`` topic of the
        base pose (default: the bag's one such topic), or a ``sensor_msgs/Imu`` topic: the base from an IMU
        (:mod:`~baseparam.identification.imu`; an ``ImuTrajectory``, which the momentum route refuses).
    imu_frame : str, optional
        Floating base, bags with an IMU base topic: the URDF link the IMU is on, fixed to the base link
        (default: the link the messages' ``header.frame_id`` names, else the base link itself).

    Returns
    -------
    Trajectory
        t (n_samples,), q and tau (n_samples, n_dof), qd and qdd (n_samples, n_dof) or None.

    Raises
    ------
    TypeError
        ``path`` is not a file name.
    DataError
        The file cannot be read, is a FIFO, a device or a socket (never opened: it would wait or read
        without end), exceeds the size limits (docs/formats.md), its layout is inconsistent, or (without
        ``skip_bad_rows``) a row is bad; one line naming the file, the line or row, the field and the problem.
    """
    if not is_file_name(path):
        hint = "; for arrays use bp.from_arrays, for a DataFrame bp.from_dataframe" \
            if hasattr(path, "__array__") or hasattr(path, "iloc") else ""
        raise ArgumentTypeError(f"path: expected a file name (str or os.PathLike), got {type(path).__name__}{hint}")
    path = check_input(path, unreadable=DataError)  # as text: bytes would not mix with the readers' str paths
    source = printable(path)                        # messages name the file on one line, whatever its name
    if robot is not None:
        check_robot(robot)
    n_dof, _ = check_reading(skip_bad_rows, n_dof)
    joints = check_names(joints, "joints")
    if topic is not None and not isinstance(topic, str):
        topic = check_names(topic, "topic")
    check_instance(delimiter, "delimiter", str, "a str", allow_none=True)
    check_instance(base_topic, "base_topic", str, "a topic name (str)", allow_none=True)
    check_instance(imu_frame, "imu_frame", str, "a link name (str)", allow_none=True)
    if contacts is not None and not isinstance(contacts, (list, tuple, dict)):
        raise ArgumentTypeError(f"contacts: expected a sequence of bp.Contact or names, or a dict name → topic, got "
                                f"{shown(contacts)}")
    if robot is not None and getattr(robot, "is_floating", False):
        return _read_floating(path, source, robot, columns, gains, skip_bad_rows, delay, joints, topic, clock,
                              contacts, base_topic, imu_frame)
    if contacts is not None or base_topic is not None or imu_frame is not None:
        raise DataError(f"{source}: contacts=, base_topic= and imu_frame= read floating-base logs (give robot=, a "
                        "robot with a floating base)")
    if robot is not None:
        n_dof = robot.n_dof if n_dof is None else n_dof
        if joints is None:
            joints = robot_joint_names(robot)
    traj = _read(path, source, columns, gains, skip_bad_rows, n_dof, delimiter, joints, topic, clock)
    if joints is not None:
        _check_joint_count(traj, joints, source)
    if delay is not None:
        from .delay import apply_delay, estimate_delay
        if isinstance(delay, str) and delay.strip().lower() == "auto":
            found = estimate_delay(traj, robot=robot)
            traj = apply_delay(traj, found.seconds, note=found.note)
        else:
            traj = apply_delay(traj, delay)
    return traj


def _read_floating(path, source, robot, columns, gains, skip_bad_rows, delay, joints, topic, clock, contacts,
                   base_topic, imu_frame=None):
    """A floating-base log (floating_logs.read_floating); options of joint logs only are refused."""
    from .floating_logs import read_floating
    for name, value in (("columns", columns), ("gains", gains), ("delay", delay)):
        if value is not None:
            raise DataError(f"{source}: {name}= does not apply to a floating-base log (docs/formats.md, "
                            "\"Floating-base logs\")")
    if skip_bad_rows:
        raise DataError(f"{source}: skip_bad_rows does not apply to a floating-base log: its rows are used as given")
    return read_floating(path, robot, contacts or (), topic=topic, base_topic=base_topic, clock=clock, joints=joints,
                         imu_frame=imu_frame)


def _read(path, source, columns, gains, skip_bad_rows, n_dof, delimiter, joints, topic, clock):
    ext = log_extension(source)
    if read_as_bag(path, source):
        from ._bag_files import refuse_non_bag_folder
        from ._bags import read_bag
        refuse_non_bag_folder(path, source)
        return read_bag(path, source, topic=topic, columns=columns, gains=gains, skip_bad_rows=skip_bad_rows,
                        n_dof=n_dof, joints=joints, clock=clock)
    refuse_bag_options(source, ext, clock, topic=topic)
    if ext == ".parquet":
        from ._parquet import read_parquet
        return read_parquet(path, source, columns, gains, skip_bad_rows, n_dof, joints)
    if ext in ORDERED_EXTENSIONS and joints is not None:
        check_joint_order(path, source, ext, joints, mapped=columns is not None)
    if ext in (".csv", ".txt"):
        return _read_text_file(path, source, columns, gains, skip_bad_rows, n_dof, delimiter)
    if ext == ".npz":
        return _read_npz(path, source, columns, gains, skip_bad_rows, n_dof)
    if ext in (".h5", ".hdf5"):
        return _read_h5(path, source, columns, gains, skip_bad_rows, n_dof)
    raise DataError(f"{source}: unknown file type {shown(ext or '(no extension)')}; expected .csv, .txt, .npz, "
                    ".h5, .hdf5, .parquet, .mcap, .bag or a ROS 2 bag folder")


def _check_joint_count(traj, joints, source):
    """DataError when a log read in its columns' order (no joint names in the result: CSV, NPZ, HDF5, Parquet's
    q1, q2, …) holds another number of joints than ``joints`` names: its columns were all returned, (S, 5) for four
    joints asked, where a bag or a Parquet list column gives those four by name (with ``robot=`` the count was
    checked; with ``joints=`` alone it was not)."""
    if not traj.joint_names and traj.n_dof != len(joints):
        raise DataError(f"{source}: the file holds {traj.n_dof} joints' columns, the robot {len(joints)} joints "
                        f"({shown_names(list(joints))}); columns of CSV, NPZ and HDF5 files (and Parquet's q1, q2, …) "
                        "are read in their order, not by name (pick the robot's with a column map)")


def robot_joint_names(robot):
    """The robot's joint names in its order: the description's (URDF ``name``, YAML ``name:``), else
    ``joint1`` … ``jointN`` (the names baseparam's URDF writer gives unnamed joints)."""
    from ..model.robot import joint_names     # when called: reading a log loads no robot model (nor PyYAML)

    return joint_names(check_robot(robot).joints)
