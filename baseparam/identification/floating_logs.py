"""Logs and contact files of floating-base robots, as ``baseparam identify ROBOT LOG --route …`` reads them
(docs/formats.md, "Floating-base logs").

A log holds, per sample: the time, the base pose and joint positions ``q`` (n_q = 7 + n: base position,
quaternion x y z w, joints), the base twist and joint rates ``qd`` (6 + n), their derivatives ``qdd``
(6 + n), the generalized forces ``tau`` (6 + n: the wrench applied to the base, zero when none, then
the joint torques) and, per contact c = 1…C, the wrench the environment exerts at that contact's frame
``w<c>_fx … w<c>_mz`` (in its axes, moment about its origin, as :class:`~baseparam.Contact` says).

* CSV: a header row ``t, q1…q<n_q>, qd1…qd<n_v>, qdd1…qdd<n_v>, tau1…tau<n_v>, w1_fx, …, w<C>_mz`` (SI).
* NPZ: keys ``t`` (n_samples,), ``q`` (n_samples, n_q), ``qd``, ``qdd``, ``tau`` (n_samples, n_v), ``wrenches``
  (n_samples, C, 6).

``qdd`` and ``tau`` may be left out for the momentum route. The data are used as given (no filtering).
"""
from __future__ import annotations

import io
import os
import re
from dataclasses import replace

import numpy as np

from .._atomic import write_text
from .._checks import check_flag, check_input, check_instance, check_path, counted, read_bounded, shown
from .._numbers import real_array
from .._validation import ABSURD, check_names, check_number, check_robot
from ..errors import ArgumentError, DataError, SettingsError, printable
from ..motion import Trajectory
from ._log_files import _mcap_log_times, _present, _split, _write_mcap, _write_npz, _write_parquet
from ._parquet import (EPISODE_COLUMN, _lists, _scalars, bound_values, list_type, metadata, numeric_type,
                       open_parquet, pyarrow_modules, refuse_repeated_columns, refuse_several_episodes)
from ._columns import refuse_other_order
from ._parquet_pages import column_chunks
from ._record import (ABSURD_BOUNDS, MAX_VALUES, _one_line, absurd, beyond_bounds, log_extension, read_as_bag,
                      refuse_bag_options)

__all__ = ["lowpass_floating", "read_contacts", "read_floating", "read_floating_log", "wrench_topics",
           "write_floating", "write_floating_log"]

WRENCH_AXES = ("fx", "fy", "fz", "mx", "my", "mz")


def _widths(n_dof):
    """{field: columns} of a floating-base robot of ``n_dof`` joints: n_q = 7 + n_dof for q, n_v = 6 + n_dof."""
    return {"q": n_dof + 7, "qd": n_dof + 6, "qdd": n_dof + 6, "tau": n_dof + 6}


# The CSV names of the fields' and the contacts' columns, whatever their numbers
_FIELD_COLUMN = re.compile(r"(?:q|qd|qdd|tau)[0-9]+")
_WRENCH_COLUMN = re.compile(rf"w[0-9]+_(?:{'|'.join(WRENCH_AXES)})")


def _refuse_stray_columns(label, line, header, robot, fields, wrench_columns):
    """Refuse a floating-base CSV header naming a field's column the robot has not (``q14`` for a robot of 13 q
    values, ``q0``), or, when contacts are read, a contact's wrench beyond them (``w2_fx`` for one contact). The
    columns are taken by name, so such a column was left out without a word: the log of a robot with one joint more
    read with its last joint dropped, a second contact's wrench ignored, where the NPZ and Parquet readers refuse
    arrays of another width. ``line``: the header's line number (1-based; comments and blank lines may come
    before it)."""
    known = {name for names in fields.values() for name in names}
    stray = next((name for name in header if _FIELD_COLUMN.fullmatch(name) and name not in known), None)
    if stray is not None:
        raise DataError(f"{label}: line {line}: column {shown(stray)}: {shown(robot.name)} with a floating base has "
                        f"q1…q{robot.n_dof + 7} and qd1…qd{robot.n_dof + 6} (qdd, tau alike); a log of another "
                        "robot?")
    if wrench_columns:
        stray = next((name for name in header if _WRENCH_COLUMN.fullmatch(name) and name not in wrench_columns), None)
        if stray is not None:
            count = len(wrench_columns) // len(WRENCH_AXES)
            raise DataError(f"{label}: line {line}: column {shown(stray)}: a wrench of a contact beyond the "
                            f"{counted(count, 'contacts')} read (w1_fx…w{count}_mz); name every contact the log holds")


def _needs(label, present, kind, fmt):
    """Refuse a floating-base log without t, q or qd (``present``: its keys or column names)."""
    for key in ("t", "q", "qd"):
        if key not in present:
            raise DataError(f"{label}: no {kind} {shown(key)} (a floating-base {fmt} log has t, q, qd, qdd, tau, "
                            "wrenches)")


MAX_CONTACTS = 64          # contacts of one floating-base log (a contacts file, a log's wrench columns)


def _columns(n_dof, n_contacts):
    """The CSV columns of a floating-base log ({field: names}, the wrench columns), module notes."""
    fields = {name: [f"{name}{k}" for k in range(1, width + 1)] for name, width in _widths(n_dof).items()}
    wrench = [f"w{c}_{a}" for c in range(1, n_contacts + 1) for a in WRENCH_AXES]
    return fields, wrench


def read_floating_log(path, robot, n_contacts=0):
    """Read a floating-base log (module notes).

    Parameters
    ----------
    path : str
        ``.csv`` or ``.npz``.
    robot : Robot
        With a floating base.
    n_contacts : int
        The contacts whose wrenches the log must hold.

    Returns
    -------
    trajectory : Trajectory
        ``floating=True``; ``qdd`` and ``tau`` None when the file has none.
    wrenches : ndarray, shape (n_samples, n_contacts, 6), or None when ``n_contacts`` is 0
    """
    robot = check_robot(robot)
    n_contacts = check_number(n_contacts, "n_contacts", low=0, high=MAX_CONTACTS, integer=True)
    path = check_input(path, unreadable=DataError)      # a FIFO or a device: refused, not waited on or read on
    label = printable(path)                   # for one-line messages, whatever the file's name
    fields, wrench_columns = _columns(robot.n_dof, n_contacts)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npz":
        data = _npz_arrays(path, label)
        _needs(label, data, "key", "NPZ")
        # a joint_names member (the fixed-base NPZ's) naming the robot's joints in another order: refused, as there
        from ..model.robot import joint_names
        from ._joint_order import check_joint_order
        names = check_joint_order(path, label, ".npz", joint_names(robot.joints))
        arrays = {k: data.get(k) for k in ("t", "q", "qd", "qdd", "tau")}
        wrenches = None
        if n_contacts:
            if "wrenches" not in data:
                raise DataError(f"{label}: no key 'wrenches' (shape (S, {n_contacts}, 6): the contacts' wrenches)")
            wrenches = np.asarray(data["wrenches"])
            if wrenches.ndim != 3 or wrenches.shape[1:] != (n_contacts, 6):
                raise DataError(f"{label}: wrenches: expected shape (S, {n_contacts}, 6), got {wrenches.shape}")
    elif ext == ".csv":
        lines, ends_with_newline, data_idx, header_line, header, names = _csv_lines(path, label, robot)
        for name in fields["q"] + fields["qd"] + wrench_columns:
            if name not in header:
                raise DataError(f"{label}: no column {shown(name)} (floating base: q1…q{robot.n_dof + 7}, "
                                f"qd1…qd{robot.n_dof + 6}; contact c's wrench w<c>_fx…w<c>_mz)")
        _refuse_stray_columns(label, header_line + 1, header, robot, fields, wrench_columns)
        data_lines = [i for i in data_idx if i > header_line]
        # bounded as the NPZ and Parquet logs are, by the values of the columns read, before numpy converts them: a
        # 256 MiB file of zeros (1.2·10⁸ values) took some 3 GB where the other formats refuse beyond MAX_VALUES
        wanted = {"t", *(name for names in fields.values() for name in names), *wrench_columns}
        used = [name for name in header if name in wanted]           # converted; the others only counted
        read = len(used)
        if len(data_lines) * read > MAX_VALUES:
            raise DataError(f"{label}: {len(data_lines) * read} values in {counted(len(data_lines), 'rows')} of "
                            f"{read} columns read; a trajectory may hold at most {MAX_VALUES:.0e}")
        table, line_numbers = _csv_table(lines, data_lines, ends_with_newline, header, used, label)

        def take(names):
            return table[:, [used.index(n) for n in names]]

        arrays = {"t": table[:, 0], "q": take(fields["q"]), "qd": take(fields["qd"])}
        for name in ("qdd", "tau"):
            present = [n in header for n in fields[name]]
            if any(present) and not all(present):
                missing = fields[name][present.index(False)]
                raise DataError(f"{label}: no column {shown(missing)} ({name} needs {len(fields[name])} columns)")
            arrays[name] = take(fields[name]) if all(present) else None
        wrenches = take(wrench_columns).reshape(-1, n_contacts, 6) if n_contacts else None
    else:
        raise DataError(f"{label}: a floating-base log is .csv or .npz, not "
                        f"{shown(ext) if ext else 'a file without extension'}")
    def at(row):
        return f"line {line_numbers[row]}" if ext == ".csv" else f"row {row}"

    # checked here, not by Trajectory: its messages count q's columns from the data and suggest
    # skip_bad_rows, which these logs do not take
    for name, width in _widths(robot.n_dof).items():
        arr = arrays[name]
        if arr is None:
            continue
        if arr.ndim != 2 or arr.shape[1] != width:
            raise DataError(f"{label}: {name}: expected shape (S, {width}) for {shown(robot.name)} with a floating "
                            f"base ({robot.n_dof} joints), got {arr.shape}")
    _refuse_absurd(label, arrays, wrenches, at)
    # the joints' names the file gives (write_floating_log writes them), kept as the fixed-base readers keep them
    named = names is not None and len(names) == robot.n_dof
    traj = Trajectory(t=arrays["t"], q=arrays["q"], qd=arrays["qd"], qdd=arrays["qdd"], tau=arrays["tau"],
                      source=path, floating=True, joint_names=tuple(names) if named else ())
    if wrenches is not None and len(wrenches) != traj.n_samples:
        raise DataError(f"{label}: wrenches: {len(wrenches)} rows for {counted(traj.n_samples, 'samples')}")
    return traj, wrenches


def write_floating_log(path, trajectory, wrenches=None, joint_names=None):
    """Write a floating-base log (``.csv`` or ``.npz``, module notes) atomically.

    Parameters
    ----------
    path : str
    trajectory : Trajectory
        ``floating=True`` (e.g. ``bp.contact_experiment(...).log``).
    wrenches : array_like, shape (n_samples, C, 6), optional
    joint_names : sequence of n_dof str, optional
        Default: ``trajectory.joint_names``. Written as the fixed-base writer writes them (a ``# joints:`` line, a
        ``joint_names`` member), read back by :func:`read_floating_log` (they were dropped).
    """
    path = check_path(path)
    if not getattr(trajectory, "floating", False):
        raise SettingsError("trajectory: not a floating-base motion (floating=False)")
    _refuse_imu_base(trajectory)
    n_dof = trajectory.q.shape[1] - 7
    w = None if wrenches is None else real_array("wrenches", wrenches, SettingsError)
    if w is not None and (w.ndim != 3 or w.shape[0] != trajectory.n_samples or w.shape[2] != 6):
        raise SettingsError(f"wrenches: expected shape ({trajectory.n_samples}, C, 6), got {w.shape}")
    if w is not None and not np.isfinite(w).all():          # a log its reader would refuse
        raise SettingsError("wrenches: NaN or inf")
    arrays = {k: np.asarray(v, dtype=float) for k, v in {"t": trajectory.t, **_present(trajectory)}.items()}
    ext = os.path.splitext(path)[1].lower()
    names = joint_names if joint_names is not None else (trajectory.joint_names or None)
    if names is not None and ext in (".csv", ".npz"):       # another extension: refused below, in its words
        from ._joint_order import written_names
        names = written_names(check_names(names, "joint_names"), n_dof, ext)      # a list or tuple of str, as a list
    if ext == ".npz":
        if w is not None:
            arrays["wrenches"] = w
        if names is not None:
            arrays["joint_names"] = np.array(names)
        _write_npz(path, arrays)
    elif ext == ".csv":
        fields, wrench_columns = _columns(n_dof, 0 if w is None else w.shape[1])
        header = ["t"] + [c for k in ("q", "qd", "qdd", "tau") if k in arrays for c in fields[k]] + wrench_columns
        blocks = [arrays["t"][:, None]] + [arrays[k] for k in ("q", "qd", "qdd", "tau") if k in arrays]
        if w is not None:
            blocks.append(w.reshape(len(w), -1))
        # repr precision: the file reads back bit for bit; made as text, then written (UTF-8, as every text
        # file here: np.savetxt to a file name took the locale's encoding, which the reader does not)
        named = "" if names is None else f"# joints: {', '.join(names)}\n"
        text = io.StringIO()
        np.savetxt(text, np.hstack(blocks), delimiter=",", header=named + ",".join(header), comments="",
                   fmt="%.17g")
        write_text(path, text.getvalue())
    else:
        raise SettingsError("path: a floating-base log is .csv or .npz, not "
                            f"{shown(ext) if ext else 'a file without extension'}")


def wrench_topics(path, contacts):
    """{name: topic} of the contacts of a contacts file (:func:`read_contacts`), in its order: an entry's
    ``topic:``, else ``/<name>/wrench`` (name: its ``name:``, else ``contact<k>``, k from 1); a ROS bag's
    ``geometry_msgs/WrenchStamped`` topic of that contact. Two contacts of one name are refused."""
    return _wrench_topics(path, contacts, _read_contacts(path, None)[1])


def _wrench_topics(path, contacts, given):
    """:func:`wrench_topics`, ``given`` the ``topic:`` of each entry (or None)."""
    from ._floating_bags import contact_topics
    out = {}
    for k, ((name, default), topic) in enumerate(zip(contact_topics(contacts), given)):
        if name in out:
            raise DataError(f"{printable(os.fspath(path))}: contacts[{k + 1}]: name {shown(name)} given twice")
        out[name] = topic or default
    return out


def _npz_arrays(path, label):
    """The numeric arrays of an NPZ log, by key: the archive checked as the trajectory reader checks it (no
    zip, a name held twice), each member's header (dtype, size) checked before its data is read; ``label`` names
    the file in messages."""
    from ._arrays import numeric_member, open_npz

    archive, members = open_npz(path, label)
    data, left = {}, MAX_VALUES
    with archive:
        for key in ("t", "q", "qd", "qdd", "tau", "wrenches"):
            if key in members:
                data[key], count = numeric_member(
                    archive, members[key], f"{label}: {key}", left,
                    f"{label}: more than {MAX_VALUES} values; a log may hold at most that many")
                left -= count
    return data


def _csv_lines(path, label, robot):
    """A CSV log's lines, whether it ends with a newline, the indices of its data lines, its header line's index
    and names, and the joints' names of its ``# joints:`` line (or None): read as the fixed-base reader reads its
    text (:func:`~._text.read_text_lines`: bounded in size and line length; a binary log under a text name refused;
    a byte-order mark or UTF-16; blank and ``#`` comment lines skipped, a ``# joints:`` line checked against the
    robot's joints; the header the first line, or np.savetxt's ``# t,q1,…`` comment above the numbers)."""
    from ..model.robot import joint_names
    from ._joint_order import check_joint_order
    from ._text import _find_header, _number_like, read_text_lines, unquoted

    lines, ends_with_newline, data_idx, has_quotes = read_text_lines(path, label)
    if has_quotes:          # quoted fields, read as the fixed-base reader reads them (they were "not a number")
        lines = unquoted(lines, ",")
    first = data_idx[0]
    # the header is the first line unless it starts with a number (np.savetxt's '# t,…' comment is then looked for):
    # not "none of its fields a number", the fixed-base reader's guess, which took a header naming an extra column
    # '2' or 'nan' for data and refused the file as having no header, a file this reader always read
    at, names = _find_header(lines, first, ",", {}, not _number_like(lines[first].split(",", 1)[0], ","))
    header = [] if names is None else [name.strip() for name in names]
    if header[:1] != ["t"]:
        raise DataError(f"{label}: line {first + 1}: expected a header row starting with 't' (t, "
                        f"q1…q{robot.n_dof + 7}, qd1…, qdd1…, tau1…, w1_fx…)")
    if len(set(header)) != len(header):
        raise DataError(f"{label}: line {at + 1}: a column is named twice")
    names = check_joint_order(path, label, ".csv", joint_names(robot.joints))
    if data_idx[-1] <= at:      # the fixed-base reader's words; numpy's UserWarning and 'only 0 samples' before
        raise DataError(f"{label}: no data lines after the header (line {at + 1})")
    return lines, ends_with_newline, data_idx, at, header, names


def _csv_table(lines, idx, ends_with_newline, header, used, label):
    """The values of the columns ``used`` (names of ``header``, in its order) of a CSV log's data lines ``idx``
    (indices into ``lines``), shape (S, len(used)), and the line number an editor shows for each row; a damaged line
    is refused in the trajectory reader's words, naming the line and the column (numpy's own messages named neither,
    and counted rows, not lines). The other columns are counted on each line, not converted: they were, all of them,
    though the bound on the values read counts the used ones only (2 000 rows of 3 000 unused columns: 67 MB)."""
    from ._text import _count_problems, _diagnose, _field_counts

    counts = _field_counts(lines, idx, ",")
    problems = _count_problems(idx, counts, counts == len(header), len(header), len(lines) - 1, ends_with_newline)
    numbers = [i + 1 for i in idx]
    rows = [lines[i] for i in idx]
    columns = [header.index(name) for name in used]
    if not problems:
        try:
            return np.loadtxt(rows, delimiter=",", usecols=columns, comments=None, dtype=np.float64, ndmin=2).reshape(
                -1, len(columns)), numbers
        except ValueError as exc:
            problems = _diagnose(rows, idx, ",", columns, used)[2] or [(0, _one_line(exc))]
    line, what = problems[0]
    raise DataError(f"{label}: line {line}: {what}" if line else f"{label}: {what}")


def _contact_items(path):
    """(the list under ``contacts:`` of a contacts file, the file's name as messages show it), read by the robot
    description's strict reader: bounded size, UTF-8, no duplicate keys, no YAML 1.1 number spellings, no depth or
    alias bomb, no tags beyond the safe ones."""
    path = check_input(path, unreadable=DataError)      # a FIFO or a device: refused, not waited on or read on
    label = printable(path)                   # for one-line messages, whatever the file's name
    from ..model._yaml_text import MAX_BYTES, _decode, _Invalid, _load_yaml

    data = read_bounded(path, MAX_BYTES, label, DataError, "a contacts file")
    try:
        doc = _load_yaml(_decode(data))
    except _Invalid as exc:
        message = exc.format(path).replace("invalid YAML", "not YAML")      # the words this reader always used
        raise DataError(message.replace("empty description: expected a YAML mapping with at least `joints`",
                                        "empty file: expected contacts: [...]")) from None
    items = doc.get("contacts") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise DataError(f"{label}: contacts: expected a list of {{link: NAME_OR_NUMBER, xyz: [x, y, z], "
                        "rpy: [r, p, y]}")      # not an f-string: one brace
    if len(items) > MAX_CONTACTS:              # said here, not later by the log reader as its n_contacts
        raise DataError(f"{label}: contacts: expected at most {MAX_CONTACTS} contacts, got {len(items)}")
    return items, label


def read_contacts(path, robot=None, *, topics=False):
    """The contacts of a YAML file ``contacts: [{link: NAME_OR_NUMBER, xyz: [x, y, z], rpy: [r, p, y],
    name: …, topic: …}]`` (xyz in m, rpy in rad, both optional: 0; topic: the contact's WrenchStamped topic
    in a ROS bag, :func:`wrench_topics`), in the order their wrenches are logged.

    Parameters
    ----------
    path : str
    robot : Robot, optional
        Checks that each contact's link is one of its links.
    topics : bool, optional
        Also return their wrench topics, as :func:`wrench_topics` (the file read once).

    Returns
    -------
    tuple of Contact, or (tuple of Contact, dict name → topic) with ``topics``
    """
    topics = check_flag(topics, "topics")             # an array: no truth value (numpy's bare ValueError)
    contacts, given = _read_contacts(path, robot)
    return (contacts, _wrench_topics(path, contacts, given)) if topics else contacts


def _read_contacts(path, robot):
    """(contacts, the ``topic:`` of each entry or None) of a contacts file (:func:`read_contacts`)."""
    from ..dynamics.contacts import Contact, check_link_number
    from ..model._fields import _got
    from ..model.urdf import _rotation
    items, label = _contact_items(path)
    contacts = []
    for k, item in enumerate(items):
        where = f"{label}: contacts[{k + 1}]"   # 1-based, as the YAML loader's own paths (duplicate keys, octal)
        if not isinstance(item, dict) or "link" not in item:
            raise DataError(f"{where}: expected a mapping with link: (a joint's name or a link number)")
        unknown = set(item) - {"link", "xyz", "rpy", "name", "topic"}
        if unknown:
            raise DataError(f"{where}: unknown key {_got(sorted(map(str, unknown))[0])} (link, xyz, rpy, name, topic)")
        topic = item.get("topic")
        if topic is not None and not (isinstance(topic, str) and topic.startswith("/") and len(topic) > 1):
            raise DataError(f"{where}: wrench topic {_got(topic)}: expected a ROS topic name starting with '/'")
        link = item["link"]
        if isinstance(link, bool) or not isinstance(link, (int, str)):
            raise DataError(f"{where}: link: expected a joint's name or a link number, got {_got(link)}")
        name = item.get("name", "")
        if not isinstance(name, str) or not name.isprintable():
            raise DataError(f"{where}: name: expected a printable string, got {_got(name)}")
        values = {}
        for key in ("xyz", "rpy"):
            v = item.get(key, [0.0, 0.0, 0.0])
            # three plain numbers, looked at before numpy does: an aliased nest of lists would expand there
            if (not isinstance(v, list) or len(v) != 3
                    or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
                    or not all(abs(float(x)) <= ABSURD for x in v)):
                raise DataError(f"{where}: {key}: expected 3 finite numbers, got {_got(v)}")
            values[key] = np.array(v, dtype=float)
        try:        # URDF's rpy: R = Rz(y) Ry(p) Rx(r)
            if robot is not None and isinstance(link, int):
                # the robot's bound first: link 99 of a 6-link robot was told "a link number from 1 to 64"
                check_link_number(link, robot.n_dof, name)
            contacts.append(Contact(link, values["xyz"], _rotation(values["rpy"]), name=name))
            if robot is not None:
                contacts[-1].link_index(robot)
        except ArgumentError as exc:
            raise DataError(f"{where}: {exc}") from None
    return tuple(contacts), [item.get("topic") for item in items]


# -- the formats of bp.read_trajectory / bp.write_trajectory for floating bases ---------------------------------------
def read_floating(path, robot, contacts=(), *, topic=None, base_topic=None, clock="header", joints=None,
                  imu_frame=None):
    """A floating-base log as one :class:`~baseparam.Trajectory` (``floating=True``, ``wrenches`` (n_samples, C, 6)
    of ``contacts`` or None): CSV/NPZ (module notes), Parquet (:func:`_write_floating_parquet`'s layout) or a ROS bag
    (:mod:`~baseparam.identification._floating_bags`).

    Parameters
    ----------
    path : str
    robot : Robot
        With a floating base.
    contacts : sequence of Contact or str, or dict name → wrench topic
        The contacts whose wrenches the log holds, in order; bags: each contact's ``WrenchStamped`` topic
        (default ``/<name>/wrench``).
    topic, base_topic, clock : str, optional
        Bags: the JointState topic, the base pose topic (Odometry or PoseStamped, or an IMU's ``sensor_msgs/Imu``:
        :mod:`~baseparam.identification.imu`), the clock.
    joints : sequence of str, optional
        Bags: the robot's joint names, in its order (default: those of ``robot``), as for
        :func:`~baseparam.read_trajectory`.
    imu_frame : str, optional
        Bags with an IMU base topic: the URDF link the IMU is on, fixed to the base link (default: the link
        the messages' ``header.frame_id`` names, else the base link).
    """
    from ._floating_bags import contact_topics, read_floating_bag
    robot = check_robot(robot)
    source = check_input(path, unreadable=DataError)    # a FIFO or a device (a bag folder's files: its reader)
    ext = log_extension(source)
    if read_as_bag(path, source):
        from ._bag_files import refuse_non_bag_folder
        refuse_non_bag_folder(path, printable(source))
        # the bag readers name the file in their messages only: escaped onto one line
        return read_floating_bag(path, printable(source), robot, contacts, topic=topic, base_topic=base_topic,
                                 clock=clock, joints=joints, imu_frame=imu_frame)
    refuse_bag_options(source, ext, clock, topic=topic, base_topic=base_topic, imu_frame=imu_frame)
    names = tuple(name for name, _ in contact_topics(contacts))
    if ext == ".parquet":
        # the base quaternions are checked unit by the Trajectory these build (naming the file)
        return _read_floating_parquet(source, robot, names)
    if ext not in (".csv", ".npz"):     # read_floating_log's own refusal lists its two kinds only
        raise DataError(f"{printable(source)}: a floating-base log is .csv, .npz, .parquet, .mcap, .bag or a ROS 2 "
                        f"bag folder, not {shown(ext) if ext else 'a file without extension'}")
    traj, w = read_floating_log(source, robot, len(names))
    return replace(traj, wrenches=w, contacts=names if w is not None else ())


def _refuse_absurd(label, arrays, wrenches, at):
    """DataError naming the file (``label``), the row (``at(row)``: 'line 7', 'row 6') and the column of the first
    value of a floating-base log's ``arrays`` (q, qd, qdd, tau: (S, width)) or ``wrenches`` (S, contacts, 6) not a
    finite number (every reader's one check: a Parquet log's NaN was called an absurd value) or beyond the
    fixed-base readers' bounds (:data:`._record.ABSURD_BOUNDS`: rad, rad/s, rad/s², N·m, or m, m/s, …; the
    wrenches as torques): values to 1e300 were read, and the fit refused them later without the file's name. The
    base's position is bounded as the fit bounds states (:data:`~baseparam._numbers.ABSURD`): a legged robot's
    odometry may run beyond a kilometre; its quaternion by the unit norm the Trajectory checks."""
    fields = [(name, arr, np.full(arr.shape[1], ABSURD_BOUNDS[name])) for name, arr in arrays.items()
              if name in ABSURD_BOUNDS and name != "t" and arr is not None]
    for name, _, bound in fields:
        if name == "q":
            bound[:3] = ABSURD
            bound[3:7] = np.inf         # the base quaternion: its norm's check says what is wrong with it
    if wrenches is not None:
        flat = wrenches.reshape(len(wrenches), 6 * wrenches.shape[1])      # -1 fails a log of no rows
        fields.append(("w", flat, np.full(flat.shape[1], ABSURD_BOUNDS["tau"])))
    for finite in (True, False):        # a NaN anywhere is said before a huge value elsewhere
        for name, arr, bound in fields:
            rows, columns = beyond_bounds(arr, np.finfo(float).max if finite else bound)
            if rows.size:
                row, col = int(rows[0]), int(columns[0])
                column = (f"wrenches: contact {col // 6 + 1}, {WRENCH_AXES[col % 6]}" if name == "w"
                          else f"{name}{col + 1}")
                value = arr[row, col]
                problem = f"not a finite number ({value})" if finite else absurd(value, bound[col])
                raise DataError(f"{label}: {at(row)}: {column}: {problem}")


def _parquet_array(table, name, width, source):
    """A list column of ``width`` numbers per row as (S, width) float64; a null row or another length refused."""
    pa = pyarrow_modules()[0]
    column = table.column(name)
    if not list_type(pa, column.type) or not numeric_type(pa, column.type.value_type):
        raise DataError(f"{source}: column {name}: expected a list of {width} numbers per row")
    # each row's own length: a total of S·width alone would let rows of other lengths shift the values
    values, bad, _ = _lists(column, pa, width, source, name, name)
    if bad:
        raise DataError(f"{source}: column {name}: row {bad[0][0]}: {bad[0][1]}")
    return values


def _read_floating_parquet(path, robot, names):
    source = printable(path)          # for one-line messages, as read_floating_log's (a name may hold a line break)
    pa, pq, _ = pyarrow_modules()      # imported with the stopping signals held, as the fixed-base reader's
    try:
        opened = os.stat(path)          # the file pyarrow opens is the one column_chunks checks
        parquet = open_parquet(pq, path)
        refuse_repeated_columns(parquet.schema_arrow, source)
        # only the fields read are bounded and read: the wrenches without contacts asked, or another writer's
        # columns, are not the trajectory's values (baseparam's own 340 000-sample log of two contacts was refused)
        read = [c for c in dict.fromkeys(parquet.schema_arrow.names)
                if c in ("t", *_widths(0)) or (names and c == "wrenches")]
        # LeRobot's episode_index too: one file of several episodes (times starting again at each) is refused by
        # name, as the fixed-base reader refuses it, not read as one motion
        episodes = {EPISODE_COLUMN} & set(parquet.schema_arrow.names)
        bound_values(column_chunks(path, source, same_as=opened), source, set(read) | episodes, MAX_VALUES)
        refuse_several_episodes(parquet, parquet.schema_arrow, source)
        table = parquet.read(columns=read)
    except DataError:
        raise
    except Exception as exc:             # pyarrow's own errors (ArrowInvalid, OSError …)
        raise DataError(f"{source}: cannot read as Parquet: {_one_line(exc)}") from None
    # without baseparam's metadata (another writer's file) the file's columns say all that is needed
    info = metadata(table.schema, b"baseparam.floating", dict, source) or {}
    for key in ("joint_names", "contacts"):
        listed = info.get(key)
        if listed is not None and not (isinstance(listed, list) and all(isinstance(v, str) for v in listed)):
            raise DataError(f"{source}: metadata baseparam.floating: {key}: expected a list of names, got "
                            f"{type(listed).__name__}")
    _needs(source, table.column_names, "column", "Parquet")
    # read as the fixed-base reader reads its t: Parquet's timestamps and durations in seconds (refused here before)
    t, nulls = _scalars(table.column("t"), pa, f"{source}: column t")
    if nulls:
        raise DataError(f"{source}: column t: row {nulls[0][0]}: null")
    arrays = {k: _parquet_array(table, k, w, source) for k, w in _widths(robot.n_dof).items()
              if k in table.column_names}
    listed = _robot_order(arrays, info.get("joint_names"), robot, source)
    wrenches = None
    if names:
        if "wrenches" not in table.column_names:
            raise DataError(f"{source}: no column 'wrenches' ({len(names)} contacts × 6 per row)")
        logged = info.get("contacts") or []
        if logged and list(logged) != list(names):
            raise DataError(f"{source}: the file's contacts are {', '.join(map(printable, logged))}, not "
                            f"{', '.join(map(printable, names))} (in this order)")      # names may hold a newline
        wrenches = _parquet_array(table, "wrenches", 6 * len(names), source).reshape(-1, len(names), 6)
    _refuse_absurd(source, arrays, wrenches, lambda row: f"row {row}")
    return Trajectory(t=t, q=arrays["q"], qd=arrays["qd"], qdd=arrays.get("qdd"), tau=arrays.get("tau"),
                      source=path, floating=True, joint_names=tuple(listed or ()),
                      wrenches=wrenches, contacts=tuple(names) if wrenches is not None else ())


def _robot_order(arrays, listed, robot, source):
    """The joint names ``listed`` in a floating-base Parquet file's metadata, in the robot's order when they are its
    joints in another order: the joints' columns of ``arrays`` (q after the base's 7, qd, qdd, tau after its 6) are
    then put in the robot's order (``arrays`` updated), as a bag's joints are matched by name (the same log as MCAP
    and as Parquet read alike; the Parquet file's joints went to other joints without a word). Other names are
    kept, unless one of the robot's joints is among them at another place (``[joint2, joint1, …, gripper]``, a name
    twice): refused naming ``source``, as a CSV's or NPZ's (the columns went to other joints, exit 0)."""
    from ..model.robot import joint_names
    own = joint_names(robot.joints)
    if not listed or listed == own or sorted(listed) != sorted(own):
        refuse_other_order(source, listed or None, own, "a floating-base Parquet file's columns are read by the "
                           "names of its metadata when they are the robot's joints, else in their order (write the "
                           "file with the robot's joint names)")
        return listed
    order = [listed.index(name) for name in own]
    for field, values in arrays.items():
        base = 7 if field == "q" else 6
        arrays[field] = np.column_stack([values[:, :base], values[:, base:][:, order]])
    return own


def write_floating(trajectory, path, names, topic="/joint_states", base_topic="/odom"):
    """Write a floating-base trajectory (with its ``wrenches``) as CSV, NPZ, Parquet or MCAP, atomically; each
    reads back bit for bit (:func:`read_floating`). MCAP: JointState on ``topic``, nav_msgs/Odometry on
    ``base_topic`` (pose, twist in frame-0 axes), a geometry_msgs/WrenchStamped per contact on ``/<name>/wrench``
    (its ``header.frame_id`` the contact's name: the wrench is in the contact's frame);
    the float64 times, q̈ and the base wrench attached as the fixed-base writer attaches times and q̈. A base from an
    IMU (:class:`~baseparam.identification.imu.ImuTrajectory`) is refused (ArgumentError): no format marks it."""
    _motion(trajectory)
    _refuse_imu_base(trajectory)
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext in (".csv", ".npz"):
        return write_floating_log(path, trajectory, trajectory.wrenches, names)
    if ext == ".parquet":
        return _write_floating_parquet(trajectory, path, names)
    return _write_floating_mcap(trajectory, path, names, topic, base_topic)


def _motion(trajectory):
    """``trajectory`` when it is a motion (a Trajectory); else ArgumentTypeError in one line."""
    return check_instance(trajectory, "trajectory", Trajectory, "a baseparam.Trajectory")


def _refuse_imu_base(trajectory):
    """An :class:`~baseparam.identification.imu.ImuTrajectory` is not written: its base position and linear velocity
    are zeros standing for what the IMU does not measure, which no format here marks; read back they would pass
    for a measured pose and twist (the momentum route would take them, and ROS tools show an Odometry at rest)."""
    from .imu import ImuTrajectory
    if isinstance(trajectory, ImuTrajectory):
        raise ArgumentError(f"trajectory: {printable(trajectory.source)}: its base comes from an IMU (an "
                            "ImuTrajectory: position and linear velocity not measured, zeros in q and q̇); written to "
                            "a file it "
                            "would read back as a measured pose and twist: keep the bag and read it again with "
                            "base_topic=")


def _contact_names(trajectory):
    if trajectory.wrenches is None:
        return ()
    from ..dynamics.contacts import contact_name
    return trajectory.contacts or tuple(contact_name("", k) for k in range(1, trajectory.wrenches.shape[1] + 1))


def _write_floating_parquet(traj, path, names):
    import json

    fields = _present(traj)
    if traj.wrenches is not None:
        fields["wrenches"] = traj.wrenches.reshape(traj.n_samples, -1)
    meta = {"joint_names": list(names), "contacts": list(_contact_names(traj))}
    _write_parquet(path, traj.t, fields, {"baseparam.floating": json.dumps(meta)})


def _write_floating_mcap(traj, path, names, topic, base_topic):
    from rosbags.typesys import Stores, get_typestore

    from ._cdr import JOINT_STATE_MSGDEF, encode, stamp_parts

    log_times = _mcap_log_times(traj.t, topic=topic, base_topic=base_topic)
    sec, nsec = stamp_parts(traj.t)
    store = get_typestore(Stores.ROS2_HUMBLE)
    T = store.types
    q, qd = traj.q, traj.qd
    rows = encode(traj.t, names, q[:, 7:], None if qd is None else qd[:, 6:],
                  None if traj.tau is None else traj.tau[:, 6:])

    def header(k, frame="world"):
        return T["std_msgs/msg/Header"](stamp=T["builtin_interfaces/msg/Time"](sec=int(sec[k]), nanosec=int(nsec[k])),
                                        frame_id=frame)

    def vector(v, kind="Vector3"):
        return T[f"geometry_msgs/msg/{kind}"](x=float(v[0]), y=float(v[1]), z=float(v[2]))

    zero6 = np.zeros(6)
    odometry = []
    for k in range(traj.n_samples):
        x = q[k]
        v = qd[k] if qd is not None else zero6
        orientation = T["geometry_msgs/msg/Quaternion"](x=float(x[3]), y=float(x[4]), z=float(x[5]), w=float(x[6]))
        pose = T["geometry_msgs/msg/Pose"](position=vector(x[:3], "Point"), orientation=orientation)
        twist = T["geometry_msgs/msg/Twist"](linear=vector(v[:3]), angular=vector(v[3:6]))
        msg = T["nav_msgs/msg/Odometry"](
            header=header(k), child_frame_id="base",
            pose=T["geometry_msgs/msg/PoseWithCovariance"](pose=pose, covariance=np.zeros(36)),
            twist=T["geometry_msgs/msg/TwistWithCovariance"](twist=twist, covariance=np.zeros(36)))
        odometry.append(bytes(store.serialize_cdr(msg, "nav_msgs/msg/Odometry")))
    contacts = _contact_names(traj)
    wrench_msgs = []
    for c in range(len(contacts)):
        w = traj.wrenches[:, c]
        wrench_msgs.append([bytes(store.serialize_cdr(
            # in the contact's frame (named after it), as the readers take a contact's wrench
            T["geometry_msgs/msg/WrenchStamped"](header=header(k, contacts[c]), wrench=T["geometry_msgs/msg/Wrench"](
                force=vector(w[k, :3]), torque=vector(w[k, 3:]))), "geometry_msgs/msg/WrenchStamped"))
            for k in range(traj.n_samples)])
    wrench_def = store.generate_msgdef("geometry_msgs/msg/WrenchStamped")[0]
    channels = [(topic, "sensor_msgs/msg/JointState", JOINT_STATE_MSGDEF),
                (base_topic, "nav_msgs/msg/Odometry", store.generate_msgdef("nav_msgs/msg/Odometry")[0])]
    channels += [(f"/{c}/wrench", "geometry_msgs/msg/WrenchStamped", wrench_def) for c in contacts]
    attached = {f"{topic}/t": traj.t, f"{base_topic}/t": traj.t}
    attached.update({f"/{c}/wrench/t": traj.t for c in contacts})
    if traj.qdd is not None:
        attached[f"{topic}/qdd"] = traj.qdd[:, 6:]
        attached[f"{base_topic}/qdd"] = traj.qdd[:, :6]
    if traj.tau is not None:
        attached[f"{base_topic}/tau"] = traj.tau[:, :6]
    _write_mcap(path, channels, log_times, [_split(rows), odometry, *wrench_msgs], attached)


def lowpass_floating(trajectory, cutoff_hz, filter_order=4):
    """A floating-base log low-passed as :func:`~baseparam.preprocess` filters a fixed-base one: the same zero-phase
    Butterworth filter (``sosfiltfilt``, its padding) on every signal: q (the quaternion kept on one hemisphere,
    filtered and renormalized), q̇, q̈, τ and the contact wrenches; the samples within 3 periods of the cut-off of
    either end, where the filter's end transients bend the derivatives, dropped.

    Parameters
    ----------
    trajectory : Trajectory
        ``floating=True``, uniformly sampled (steps within 1 % of their median).
    cutoff_hz : float
        Below the Nyquist frequency of the samples.
    filter_order : int

    Returns
    -------
    Trajectory
        The same fields, filtered, with a note saying so; fewer samples (the ends).

    Raises
    ------
    DataError
        Non-uniform steps, a cut-off at or above Nyquist, too few samples left: one line naming the source.
    SettingsError
        ``cutoff_hz`` not a finite number, ``filter_order`` not an integer from 1 to 100.
    """
    from ._floating_bags import one_hemisphere
    from .preprocessing import EDGE_PERIODS, _lowpass
    src, t = _motion(trajectory).source, trajectory.t
    # numbers, as preprocess's settings take them; the cut-off as a float, compared and formatted below (a Fraction's
    # :g in the message, None's <, would be bare TypeErrors)
    cutoff_hz = check_number(cutoff_hz, "cutoff_hz", expected="a frequency in Hz", error=SettingsError)
    filter_order = check_number(filter_order, "filter_order", low=1, high=100, integer=True,
                                expected="an integer from 1 to 100", error=SettingsError)
    step = np.diff(t)
    h = float(np.median(step))
    if np.ptp(step) > 0.01 * h:
        raise DataError(f"{src}: field t: time steps vary from {step.min():.4g} to {step.max():.4g} s; a digital "
                        "filter needs uniform samples (log them uniformly, or leave out the cut-off)")
    if not 0 < cutoff_hz < 0.5 / h:
        raise DataError(f"{src}: cut-off {cutoff_hz:g} Hz: expected above 0 and below the Nyquist frequency "
                        f"{0.5 / h:.4g} Hz of the {h:.4g} s samples")
    # a subnormal cut-off times the step is 0: the edge of infinitely many samples (a bare ZeroDivisionError)
    edge = np.ceil(EDGE_PERIODS / (cutoff_hz * h) - 1e-6) if cutoff_hz * h > 0 else np.inf
    if not t.size - 2 * edge >= 16:
        raise DataError(f"{src}: {counted(t.size, 'samples')}: too few to filter at {cutoff_hz:g} Hz (3 periods of "
                        "the cut-off at each end are dropped)")
    edge = int(edge)
    q = trajectory.q.copy()
    q[:, 3:7] = one_hemisphere(q[:, 3:7])
    w = trajectory.wrenches
    arrays = [q, trajectory.qd, trajectory.qdd, trajectory.tau, None if w is None else w.reshape(t.size, -1)]
    q, qd, qdd, tau, w = _lowpass(arrays, cutoff_hz, filter_order, h)
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    keep = slice(edge, t.size - edge)

    def cut(a):
        return None if a is None else a[keep]

    note = (f"{src}: low-passed at {cutoff_hz:g} Hz (Butterworth order {filter_order}, zero phase); {2 * edge} "
            "samples at the ends dropped")
    return replace(trajectory, t=t[keep], q=q[keep], qd=cut(qd), qdd=cut(qdd), tau=cut(tau),
                   wrenches=None if w is None else w[keep].reshape(-1, trajectory.wrenches.shape[1], 6),
                   notes=trajectory.notes + (note,))
