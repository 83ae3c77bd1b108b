"""Logs and contact files of floating-base robots, as ``baseparam identify ROBOT LOG --route …`` reads them
(docs/formats.md, "Floating-base logs").

A log holds, per sample: the time, the base pose and joint positions ``q`` (n_q = 7 + n: base position,
quaternion x y z w, joints), the base twist and joint rates ``qd`` (6 + n), their derivatives ``qdd``
(6 + n), the generalized forces ``tau`` (6 + n: the wrench applied to the base, zero when none, then
the joint torques) and, per contact c = 1…C, the wrench the environment exerts at that contact's frame
``w<c>_fx … w<c>_mz`` (in its axes, moment about its origin, as :class:`~baseparam.Contact` says).

* CSV: a header row ``t, q1…q<n_q>, qd1…qd<n_v>, qdd1…qdd<n_v>, tau1…tau<n_v>, w1_fx, …, w<C>_mz`` (SI).
* NPZ: keys ``t`` (S,), ``q`` (S, n_q), ``qd``, ``qdd``, ``tau`` (S, n_v), ``wrenches`` (S, C, 6).

``qdd`` and ``tau`` may be left out for the momentum route. The data are used as given (no filtering).
"""
from __future__ import annotations

import io
import os

import numpy as np

from .._validation import ABSURD
from ..errors import DataError, SettingsError

__all__ = ["read_contacts", "read_floating_log", "write_floating_log"]

WRENCH_AXES = ("fx", "fy", "fz", "mx", "my", "mz")


def _columns(robot, n_contacts):
    n_q, n_v = robot.n_dof + 7, robot.n_dof + 6
    fields = {"q": [f"q{k}" for k in range(1, n_q + 1)]}
    for name in ("qd", "qdd", "tau"):
        fields[name] = [f"{name}{k}" for k in range(1, n_v + 1)]
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
    wrenches : ndarray, shape (S, n_contacts, 6), or None when ``n_contacts`` is 0
    """
    from ..motion import Trajectory

    path = os.fspath(path)
    fields, wrench_columns = _columns(robot, n_contacts)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npz":
        data = _npz_arrays(path)
        for key in ("t", "q", "qd"):
            if key not in data:
                raise DataError(f"{path}: no key {key!r} (a floating-base NPZ log has t, q, qd, qdd, tau, wrenches)")
        arrays = {k: data.get(k) for k in ("t", "q", "qd", "qdd", "tau")}
        wrenches = None
        if n_contacts:
            if "wrenches" not in data:
                raise DataError(f"{path}: no key 'wrenches' (shape (S, {n_contacts}, 6): the contacts' wrenches)")
            wrenches = np.asarray(data["wrenches"])
            if wrenches.ndim != 3 or wrenches.shape[1:] != (n_contacts, 6):
                raise DataError(f"{path}: wrenches: expected shape (S, {n_contacts}, 6), got {wrenches.shape}")
    elif ext == ".csv":
        text = _csv_text(path)
        header = [h.strip() for h in text.partition("\n")[0].split(",")]
        if header[:1] != ["t"]:
            raise DataError(f"{path}: line 1: expected a header row starting with 't' (t, q1…q{robot.n_dof + 7}, "
                            f"qd1…, qdd1…, tau1…, w1_fx…)")
        if len(set(header)) != len(header):
            raise DataError(f"{path}: line 1: a column is named twice")
        for name in fields["q"] + fields["qd"] + wrench_columns:
            if name not in header:
                raise DataError(f"{path}: no column {name!r} (floating base: q1…q{robot.n_dof + 7}, "
                                f"qd1…qd{robot.n_dof + 6}; contact c's wrench w<c>_fx…w<c>_mz)")
        try:
            table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, ndmin=2)
        except ValueError as exc:
            raise DataError(f"{path}: {' '.join(str(exc).split())}") from None
        if table.shape[1] != len(header):
            raise DataError(f"{path}: {table.shape[1]} values per row for {len(header)} header columns")

        def take(names):
            return table[:, [header.index(n) for n in names]]

        arrays = {"t": table[:, 0], "q": take(fields["q"]), "qd": take(fields["qd"])}
        for name in ("qdd", "tau"):
            present = [n in header for n in fields[name]]
            if any(present) and not all(present):
                missing = fields[name][present.index(False)]
                raise DataError(f"{path}: no column {missing!r} ({name} needs {len(fields[name])} columns)")
            arrays[name] = take(fields[name]) if all(present) else None
        wrenches = take(wrench_columns).reshape(-1, n_contacts, 6) if n_contacts else None
    else:
        raise DataError(f"{path}: a floating-base log is .csv or .npz, not {ext or 'without extension'!r}")
    # checked here, not by Trajectory: its messages count q's columns from the data and suggest
    # skip_bad_rows, which these logs do not take
    csv = ext == ".csv"
    for name, width in (("q", robot.n_dof + 7), ("qd", robot.n_dof + 6), ("qdd", robot.n_dof + 6),
                        ("tau", robot.n_dof + 6)):
        arr = arrays[name]
        if arr is None:
            continue
        arr = np.asarray(arr)
        if arr.ndim != 2 or arr.shape[1] != width:
            raise DataError(f"{path}: {name}: expected shape (S, {width}) for {robot.name!r} with a floating base "
                            f"({robot.n_dof} joints), got {arr.shape}")
        if not np.issubdtype(arr.dtype, np.number):
            raise DataError(f"{path}: {name}: not numeric ({arr.dtype})")
        bad = ~np.isfinite(arr)
        if bad.any():
            row, col = map(int, np.argwhere(bad)[0])
            where = f"line {row + 2}" if csv else f"row {row}"
            raise DataError(f"{path}: {where}: {name}{col + 1}: not a finite number ({arr[row, col]})")
    if wrenches is not None and not np.isfinite(wrenches).all():
        row = int(np.flatnonzero(~np.isfinite(wrenches).reshape(len(wrenches), -1).all(1))[0])
        raise DataError(f"{path}: {f'line {row + 2}' if ext == '.csv' else f'row {row}'}: wrenches: not a finite "
                        "number")
    traj = Trajectory(t=arrays["t"], q=arrays["q"], qd=arrays["qd"], qdd=arrays["qdd"], tau=arrays["tau"],
                      source=path, floating=True)
    if wrenches is not None and len(wrenches) != traj.n_samples:
        raise DataError(f"{path}: wrenches: {len(wrenches)} rows for {traj.n_samples} samples")
    return traj, wrenches


def write_floating_log(path, trajectory, wrenches=None):
    """Write a floating-base log (``.csv`` or ``.npz``, module notes) atomically.

    Parameters
    ----------
    path : str
    trajectory : Trajectory
        ``floating=True`` (e.g. ``bp.contact_experiment(...).log``).
    wrenches : array_like, shape (S, C, 6), optional
    """
    from .._atomic import atomic_path

    path = os.fspath(path)
    if not getattr(trajectory, "floating", False):
        raise SettingsError("trajectory: not a floating-base motion (floating=False)")
    n_dof = trajectory.q.shape[1] - 7
    w = None if wrenches is None else np.asarray(wrenches, dtype=float)
    if w is not None and (w.ndim != 3 or w.shape[0] != trajectory.n_samples or w.shape[2] != 6):
        raise SettingsError(f"wrenches: expected shape ({trajectory.n_samples}, C, 6), got {w.shape}")
    arrays = {k: getattr(trajectory, k) for k in ("t", "q", "qd", "qdd", "tau")}
    arrays = {k: np.asarray(v, dtype=float) for k, v in arrays.items() if v is not None}
    ext = os.path.splitext(path)[1].lower()
    with atomic_path(path) as tmp:
        if ext == ".npz":
            if w is not None:
                arrays["wrenches"] = w
            with open(tmp, "wb") as f:
                np.savez(f, **arrays)
        elif ext == ".csv":
            fields, wrench_columns = _columns(type("R", (), {"n_dof": n_dof})(), 0 if w is None else w.shape[1])
            header = ["t"] + [c for k in ("q", "qd", "qdd", "tau") if k in arrays for c in fields[k]] + wrench_columns
            blocks = [arrays["t"][:, None]] + [arrays[k] for k in ("q", "qd", "qdd", "tau") if k in arrays]
            if w is not None:
                blocks.append(w.reshape(len(w), -1))
            # repr precision: the file reads back bit for bit
            np.savetxt(tmp, np.hstack(blocks), delimiter=",", header=",".join(header), comments="", fmt="%.17g")
        else:
            raise SettingsError(f"path: a floating-base log is .csv or .npz, not {ext or 'without extension'!r}")


def _npz_arrays(path):
    """The numeric arrays of an NPZ log, by key: the archive checked as the trajectory reader checks it (no
    zip, a name held twice), each member's header (dtype, size) checked before its data is read."""
    from ._arrays import _NPZ_ERRORS, _npy_data, _npy_header, open_npz
    from ._record import MAX_VALUES, _one_line

    archive, members = open_npz(path, path)
    data, total = {}, 0
    with archive:
        for key in ("t", "q", "qd", "qdd", "tau", "wrenches"):
            if key not in members:
                continue
            try:
                shape, dtype = _npy_header(archive, members[key])[:2]
                if dtype.kind not in "iuf":
                    raise DataError(f"{path}: {key}: not numeric ({dtype})")
                total += int(np.prod(shape, dtype=float))
                if total > MAX_VALUES:
                    raise DataError(f"{path}: more than {MAX_VALUES} values; a log may hold at most that many")
                data[key] = np.asarray(_npy_data(archive, members[key]), dtype=float)
            except _NPZ_ERRORS as exc:
                raise DataError(f"{path}: {key}: not a valid NPZ member ({_one_line(exc)})") from None
    return data


def _csv_text(path):
    """A CSV log's text: bounded in size, UTF-8 (a one-line error naming the byte otherwise)."""
    from ._record import MAX_TEXT_BYTES

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_TEXT_BYTES:
        raise DataError(f"{path}: larger than {MAX_TEXT_BYTES >> 20} MiB; a CSV log may be at most that large")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(f"{path}: line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x})") from None
    # universal newlines, as open() in text mode reads them
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_contacts(path, robot=None):
    """The contacts of a YAML file ``contacts: [{link: NAME_OR_NUMBER, xyz: [x, y, z], rpy: [r, p, y],
    name: …}]`` (xyz in m, rpy in rad, both optional: 0), in the order their wrenches are logged.

    Parameters
    ----------
    path : str
    robot : Robot, optional
        Checks that each contact's link is one of its links.

    Returns
    -------
    tuple of Contact
    """
    from ..dynamics.contacts import Contact
    from ..errors import ArgumentError
    from ..model._fields import _got
    from ..model._yaml_text import MAX_BYTES, _decode, _Invalid, _load_yaml

    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    # the robot description's strict reader: bounded size, UTF-8, no duplicate keys, no YAML 1.1 number
    # spellings, no depth or alias bomb, no tags beyond the safe ones
    try:
        doc = _load_yaml(_decode(data))
    except _Invalid as exc:
        message = exc.format(path).replace("invalid YAML", "not YAML")      # the words this reader always used
        raise DataError(message.replace("empty description: expected a YAML mapping with at least `joints`",
                                        "empty file: expected contacts: [...]")) from None
    items = doc.get("contacts") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise DataError(f"{path}: contacts: expected a list of {{link: NAME_OR_NUMBER, xyz: [x, y, z], "
                        "rpy: [r, p, y]}}")
    contacts = []
    for k, item in enumerate(items):
        where = f"{path}: contacts[{k}]"
        if not isinstance(item, dict) or "link" not in item:
            raise DataError(f"{where}: expected a mapping with link: (a joint's name or a link number)")
        unknown = set(item) - {"link", "xyz", "rpy", "name"}
        if unknown:
            raise DataError(f"{where}: unknown key {_got(sorted(map(str, unknown))[0])} (link, xyz, rpy, name)")
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
        r, p, y = values["rpy"]
        cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
        # URDF's rpy: R = Rz(y) Ry(p) Rx(r)
        R = np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                      [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                      [-sp, cp * sr, cp * cr]])
        try:
            contacts.append(Contact(link, values["xyz"], R, name=name))
            if robot is not None:
                contacts[-1].link_index(robot)
        except ArgumentError as exc:
            raise DataError(f"{where}: {exc}") from None
    return tuple(contacts)
