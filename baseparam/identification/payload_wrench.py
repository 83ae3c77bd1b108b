"""The payload from a wrist force/torque sensor: its Newton–Euler wrench, linear in its 10 parameters.

A sensor between the last link and the payload measures the wrench the payload exerts on it (what
an F/T sensor reads once zeroed without the payload; at rest, the payload's weight ``m g``). That is
minus the Newton–Euler wrench of the payload, ``f = I a' + v ×* I v`` (a' the link's spatial
acceleration less gravity), moved to the sensor frame: with the sensor at ``r`` with axes ``R`` in
the last link's frame,

    f_s = −Rᵀ f,    n_s = Rᵀ (r × f − n_o)

with ``n_o`` about the link frame's origin. ``f`` is linear in the payload's 10 pseudo parameters (in the
last link's frame), and the link's velocity and acceleration need the robot's kinematics only: no
inertia of the robot enters, so no model error does. The columns are the last joint's reaction
wrench (:func:`~baseparam.reaction_wrenches`) of the robot whose only body is a unit parameter of its
last link.

With ``bias``, a constant offset per component and log (the sensor's zero, which drifts) is fitted
too (every log's wrench and columns less their means): the mass then shows only through the change
of gravity's direction in the sensor frame, so the wrist must turn.

The fit is that of the joint torques' (per-component weights from a first residual, σ²(AᵀA)⁻¹
inflated by the low-passed noise's correlation, the consistent estimate nearest in that metric).
"""
from __future__ import annotations

import os

import numpy as np

from .._numbers import flat_values, is_whole, plain_float, real_array
from .._checks import counted, read_bounded
from .._validation import check_input, check_robot, check_robot_states, comma_list, shown
from ..errors import ArgumentTypeError, DataError, SettingsError, printable
from ._columns import shown_names
from ._record import ABSURD_BOUNDS, MAX_TEXT_BYTES, _one_line

__all__ = ["read_wrench", "sensor_placement", "wrench_regressor"]

MAX_OFFSET = 100.0                      # m: the largest sensor offset from the last link's frame
MAX_ANGLE = 100.0                       # rad: beyond this, roll/pitch/yaw lose their meaning in float64


def sensor_placement(sensor, name="sensor"):
    """(R (3, 3), r (3,)) of ``sensor`` = x y z (m), roll pitch yaw (rad, R = Rz(yaw) Ry(pitch) Rx(roll)); None:
    the last link's frame. ``name`` is the setting the refusals name (a ``flange`` of the vendors' formats is
    placed alike)."""
    if sensor is None:
        return np.eye(3), np.zeros(3)
    try:
        values = flat_values(sensor, 6)
    except (TypeError, ValueError):
        values = None
    if values is None or not np.isfinite(values).all():
        raise SettingsError(f"{name}: expected 6 finite numbers x,y,z (m),roll,pitch,yaw (rad), got {shown(sensor)}")
    shape = np.shape(sensor)
    if tuple(d for d in shape if d != 1) != (6,):       # six numbers as (2, 3): a position and angles, or two points?
        raise SettingsError(f"{name}: expected one row of 6 numbers x,y,z (m),roll,pitch,yaw (rad), got an array of "
                            f"shape {shape}")
    # a sensor kilometres from the flange is a typo, and its lever arm overflows the regressor's products
    if np.abs(values[:3]).max() > MAX_OFFSET or np.abs(values[3:]).max() > MAX_ANGLE:
        raise SettingsError(f"{name}: expected x,y,z within ±{MAX_OFFSET:g} m and roll,pitch,yaw within "
                            f"±{MAX_ANGLE:g} rad, got {shown(values.tolist())}")
    from ..model.urdf import _rotation           # Rz(yaw) Ry(pitch) Rx(roll), as a URDF origin's

    return _rotation(values[3:]), np.array(values[:3])


def wrench_regressor(robot, q, qd, qdd, sensor=None):
    """The sensor's wrench per unit payload parameter (module notes).

    Parameters
    ----------
    robot : Robot
    q, qd, qdd : ndarray, shape (n_samples, n_dof)
    sensor : array_like, shape (6,), optional

    Returns
    -------
    ndarray, shape (n_samples, 6, 10)
        fx fy fz mx my mz in the sensor frame per pseudo parameter XX YY ZZ XY XZ YZ SX SY SZ M.
    """
    from ..dynamics.newton_euler import reaction_wrenches
    from ..model.parameters import ColumnLayout
    from ..model.value import Model

    # the states checked first: len() of a generator or a number would be a bare TypeError
    (q, qd, qdd), _ = check_robot_states(check_robot(robot), q=q, qd=qd, qdd=qdd)
    R, r = sensor_placement(sensor)
    layout = ColumnLayout(robot, "pseudo")
    out = np.empty((len(q), 6, 10))
    for i, column in enumerate(layout.link_columns[-1]):
        p = np.zeros(layout.n_standard)
        p[column] = 1.0
        w = reaction_wrenches(Model(robot, p), q, qd, qdd)[:, -1, :]        # (S, 6): f, n_o on the payload
        f, n = w[:, :3], w[:, 3:]
        out[:, :3, i] = -f @ R
        out[:, 3:, i] = (np.cross(r, f) - n) @ R
    return out


def check_wrench_log(path):
    """The extension of a log a wrench can be read from (``.csv``, ``.txt``, ``.npz``); SettingsError otherwise (a
    bag, MCAP, Parquet or HDF5 log was read as CSV text: "no column 'fx' (columns: PAR1\\x15…)")."""
    text = printable(os.fspath(path))
    ext = os.path.splitext(text)[1].lower()
    if ext not in (".npz", ".csv", ".txt") or os.path.isdir(path):
        kind = "a folder" if os.path.isdir(path) else f"a {ext} file" if ext else "a file without extension"
        raise SettingsError(f"{text}: wrench: read from CSV (.csv, .txt) or NPZ logs only, not {kind}")
    return ext


def read_wrench(path, names, skipped=(), unit="line"):
    """The six wrench columns of a log: CSV header names (or 0-based column numbers), or one NPZ key.

    Parameters
    ----------
    path : str
    names : str
        ``fx,fy,fz,mx,my,mz`` names (or numbers) of a CSV's columns, in that order; for ``.npz``, the key
        of an (n_samples, 6) array.
    skipped : sequence of (int, str)
        The rows the log's trajectory dropped (``Trajectory.skipped``, ``skip_bad_rows``): dropped here too,
        so the wrench stays one row per sample.
    unit : {'line', 'row'}
        ``Trajectory.skipped_unit``: CSV 1-based physical lines, or array 0-based rows.

    Returns
    -------
    ndarray, shape (n_samples, 6)

    Raises
    ------
    DataError
        A value that is not a number, not finite or beyond ±:data:`MAX_WRENCH`, naming the file, its line (CSV) or row
        (NPZ) and the component (:func:`log_wrench` with ``skip_bad_rows=True`` drops such rows instead).
    """
    return _read_wrench(path, names, skipped, unit, skip_bad_rows=False)[0]


def log_wrench(path, names, log, skip_bad_rows=False):
    """A log's wrench (:func:`read_wrench`) beside its trajectory ``log``, as read with ``skip_bad_rows``: then a row
    whose wrench is damaged (not a number, not finite, beyond ±:data:`MAX_WRENCH`) is dropped from both, and joins
    the trajectory's ``skipped`` (its reason ``wrench fx: NaN``), as a damaged joint value would.

    Parameters
    ----------
    path : str
        The log's file (``log`` was read from it, with ``skip_bad_rows`` as given here).
    names : str
        As :func:`read_wrench`'s.
    log : Trajectory
    skip_bad_rows : bool

    Returns
    -------
    (Trajectory, ndarray of shape (n_samples, 6))
        The trajectory (``log`` itself when nothing was dropped) and its wrench, one row per sample.
    """
    import dataclasses

    from ..motion import MIN_SAMPLES, Trajectory
    from .._validation import check_instance
    check_instance(log, "log", Trajectory, "a baseparam.Trajectory")
    values, dropped = _read_wrench(path, names, log.skipped, log.skipped_unit, skip_bad_rows=skip_bad_rows)
    if len(values) + len(dropped) != log.n_samples:        # no row of the wrench's to drop from the trajectory
        raise DataError(f"{log.source}: wrench: {len(values) + len(dropped)} rows, but the trajectory has "
                        f"{log.n_samples} samples{_fewer_samples_hint(log.n_samples, len(values) + len(dropped))}")
    if not dropped:
        _refuse_trajectory_columns(values, log, names)
        return log, values
    keep = np.ones(log.n_samples, bool)
    keep[[k for k, _ in dropped]] = False
    if keep.sum() < MIN_SAMPLES:        # as the reader says it of damaged joint values (the Trajectory's own check
        # said 'only 0 samples' of a log of 150 lines, not why)
        raise DataError(f"{log.source}: field t: only {counted(int(keep.sum()), 'samples')} after skipping "
                        f"{counted(len(log.skipped) + len(dropped), f'bad {log.skipped_unit}s')}; need at least "
                        f"{MIN_SAMPLES}")
    arrays = {name: getattr(log, name)[keep] for name in ("t", "q", "tau", "qd", "qdd")
              if getattr(log, name) is not None}
    skipped = tuple(sorted([*log.skipped, *(entry for _, entry in dropped)], key=lambda entry: entry[0]))
    trimmed = dataclasses.replace(log, **arrays, skipped=skipped)
    # after the sample count: a wrench damaged in every row left no values to compare (numpy's bare ValueError of
    # an empty np.ptp, exit 1)
    _refuse_trajectory_columns(values, trimmed, names)
    return trimmed, values


# The trajectory's fields a wrench column may repeat by a slip, and what a refusal calls each one's column
_TRAJECTORY_FIELDS = (("t", "time"), ("q", "positions"), ("qd", "velocities"), ("tau", "torques"))


def _refuse_trajectory_columns(values, log, names):
    """Refuse a wrench component whose values are, sample for sample, one of the log's own time, position, velocity or
    torque columns (``--wrench t,q1,q2,q3,q4,q5``, or the 0-based numbers of those columns): a slip read as a force,
    which fitted a payload from the arm's motion, exit 0 with a warning at most. A column that never changes is
    let through (a sensor's zero moment can equal a joint held at 0).

    Parameters
    ----------
    values : ndarray, shape (n_samples, 6)
        The wrench, one row per sample of ``log``.
    log : Trajectory
        Its samples those of ``values`` (the rows dropped for a damaged wrench value left out).
    names : str
        The columns as given, named in the refusal.
    """
    moving = [i for i in range(len(_COMPONENTS)) if np.ptp(values[:, i]) > 0]
    if not moving:
        return
    # each field's columns read once, and compared in full only where their first sample is the component's: the
    # whole comparison of every column (6 components, 4 fields) took 2.5 s on a log of 10⁶ samples
    fields = [(field, what, np.asarray(getattr(log, field), float).reshape(log.n_samples, -1))
              for field, what in _TRAJECTORY_FIELDS if getattr(log, field) is not None]
    for i in moving:
        column = values[:, i]
        for field, what, data in fields:
            same = [j for j in np.flatnonzero(data[0] == column[0]) if np.array_equal(data[:, j], column)]
            if same:
                joint = "" if field == "t" else f" of joint {same[0] + 1}"
                raise SettingsError(f"{log.source}: wrench: {_COMPONENTS[i]} (of {shown(str(names))}) is the log's "
                                    f"{what}{joint} (field {field}), sample for sample; give the sensor's six columns")


def _read_wrench(path, names, skipped, unit, skip_bad_rows):
    """:func:`read_wrench`'s values, and with ``skip_bad_rows`` the rows dropped for a damaged value: ``(values (S, 6),
    dropped)``, ``dropped`` a list of ``(k, (line_or_row, reason))``, k the row's place among the trajectory's
    samples (without ``skip_bad_rows``, a damaged value is refused and ``dropped`` is empty)."""
    from ._text import decoded

    text = check_input(path, unreadable=DataError)      # a FIFO or a device: refused, not waited on or read on
    label = printable(text)                             # the file named in messages on one line, whatever its name
    # Trajectory.skipped's (row or line, reason) pairs: anything else would be a bare unpacking ValueError or TypeError
    if not isinstance(skipped, (list, tuple)) or not all(
            isinstance(item, (list, tuple)) and len(item) == 2 and is_whole(item[0]) for item in skipped):
        raise ArgumentTypeError(f"skipped: expected (row, reason) pairs (Trajectory.skipped), got {shown(skipped)}")
    skipped = [(int(k), reason) for k, reason in skipped]
    if check_wrench_log(text) == ".npz":
        values = _npz_wrench(text, label, names)
        rows = np.arange(len(values)) if values.ndim >= 1 else np.zeros(0, int)    # the file's row of each kept
        if unit == "row" and len(skipped) and values.ndim >= 1:
            dropped = [k for k, _ in skipped if 0 <= k < len(values)]
            values, rows = np.delete(values, dropped, axis=0), np.delete(rows, dropped)
        if values.ndim != 2 or values.shape[1] != 6:
            raise DataError(f"{label}: wrench: key {shown(names)}: expected an (S, 6) array, got shape {values.shape}")
        # named by the file's row, as the CSV's by its line: not the row's place among those the trajectory kept
        return _checked_wrench_values(values, label, rows, "row", skip_bad_rows)
    # as every comma list (comma_list): a separator ending it taken, an empty entry refused naming its place
    wanted = comma_list(str(names), "wrench", error=SettingsError)
    if len(wanted) != 6:
        raise SettingsError(f"wrench: expected 6 column names or numbers fx,fy,fz,mx,my,mz, got {shown(names)}")
    drop = {k for k, _ in skipped} if unit == "line" else set()
    # bytes that are no UTF-8 replaced, as the trajectory reader reads the same file: a comment in Latin-1 was
    # a bare UnicodeDecodeError, where the values (all the reader needs) decode; a damaged value fails below
    # read as the trajectory reader reads a CSV: bounded, and an unreadable file (missing, a folder) in one line,
    # not open()'s bare FileNotFoundError or IsADirectoryError
    data = read_bounded(text, MAX_TEXT_BYTES, f"{label}: wrench", DataError, unreadable=DataError)
    if len(data) > MAX_TEXT_BYTES:
        raise DataError(f"{label}: wrench: more than {MAX_TEXT_BYTES >> 20} MiB; a text log may have at "
                        "most that")
    # decoded as the trajectory reader decodes it (_text.decoded): a byte-order mark dropped, UTF-16 read (the first
    # column's name was '\ufefffx', a UTF-16 file's names NUL-riddled: "no column 'fx'" of a log the reader read)
    rows, lines = _text_rows(decoded(data), label, drop)
    header = [h.strip() for h in rows[0]]
    named = not _numbers(rows[0], range(len(rows[0])))        # a header row: not all numbers
    if not named:
        header = [str(k) for k in range(len(rows[0]))]
    index = []
    for name in wanted:
        if header.count(name) > 1:      # which of the two is the sensor's would be a guess (the first was taken)
            raise DataError(f"{label}: wrench: column {shown(name)} appears {header.count(name)} times in the "
                            "header; give each column one name")
        if name in header:
            index.append(header.index(name))
        elif name.isascii() and name.isdigit() and int(name) < len(header):    # not '²', '٣'
            index.append(int(name))
        else:
            raise DataError(f"{label}: wrench: no column {shown(name)} (columns: {shown_names(header)})")
    if len(set(index)) < len(index):    # '10,10,10,10,10,10' fitted one value as all six, without a word
        twice = next(k for k in index if index.count(k) > 1)
        given = [part for part, k in zip(_COMPONENTS, index) if k == twice]
        raise SettingsError(f"wrench: {', '.join(given[:-1])} and {given[-1]} given one column "
                            f"({shown(header[twice])} of {label}); the six components are six columns")
    body, lines = (rows[1:], lines[1:]) if named else (rows, lines)
    values, unreadable = np.full((len(body), 6), np.nan), set()
    for k, row in enumerate(body):
        if _numbers(row, index):
            values[k] = [plain_float(row[i]) for i in index]
        else:                               # refused or dropped below, with the rows of damaged values
            unreadable.add(k)
    # a bad value named by its line, as the trajectory reader names one of the same file ('row 9' was line 11)
    return _checked_wrench_values(values, label, np.array(lines, int), "line", skip_bad_rows, unreadable,
                                  f"not 6 numbers in columns {', '.join(wanted)}")


MAX_WRENCH = ABSURD_BOUNDS["tau"]                    # N, N·m: a wrench value beyond it is refused, as a torque


def _checked_wrench_values(values, label, where, unit, skip_bad_rows, unreadable=(), unread=""):
    """``(values, [])`` when no value of the wrench (S, 6) is damaged (not finite, beyond ±:data:`MAX_WRENCH`) and no
    row is ``unreadable`` (the rows not numbers, NaN in ``values``; ``unread`` says why); else, with ``skip_bad_rows``,
    the values without those rows and ``[(k, (where[k], reason))]`` for each, or without it a refusal of the first,
    naming ``label`` and the sample (``unit`` ``where[k]``: 'line 12' of a CSV, 'row 11' of an array)."""
    bad = ~(np.abs(values) <= MAX_WRENCH)            # NaN compares False (an unreadable row's too)
    reasons = {}
    for k, j in np.argwhere(bad):                   # in file order
        k, j = int(k), int(j)
        if k in reasons:
            continue
        v = float(values[k, j])
        what = "not 6 numbers" if k in unreadable else ("NaN" if np.isnan(v) else "infinite") \
            if not np.isfinite(v) else f"{v:.6g} is beyond ±{MAX_WRENCH:g} (N, N·m): check the units"
        if not skip_bad_rows:
            problem = unread if k in unreadable else \
                f"{_COMPONENTS[j]}: {'not finite' if not np.isfinite(v) else what}"
            raise DataError(f"{label}: wrench: {unit} {where[k]}: {problem}")
        reasons[k] = f"wrench: {what}" if k in unreadable else f"wrench {_COMPONENTS[j]}: {what.split(' (', 1)[0]}"
    dropped = sorted(reasons)
    values = np.delete(values, dropped, axis=0)
    if len(values) and not (values ** 2).any():     # as identify refuses a torque of zeros
        # a fit of zeros has a residual of exactly 0, a covariance of 0: "no payload seen, 0 ± 0 kg" of a sensor that
        # measured nothing (before the zero metric was mended: 1.05 kg and 2.2 kg·m², the vendors' formats given)
        raise DataError(f"{label}: wrench: every value is zero (or its square is) in every sample (a dead sensor or "
                        "the wrong columns?)")
    return values, [(k, (int(where[k]), reasons[k])) for k in dropped]


_COMPONENTS = ("fx", "fy", "fz", "mx", "my", "mz")


def _npz_wrench(text, label, key):
    """The array ``key`` of an NPZ log, read as the trajectory reader reads its members (the archive checked, the
    member's header — a number type, a bounded size — before its data, nothing unpickled)."""
    from ._arrays import numeric_member, open_npz

    archive, members = open_npz(text, label)
    with archive:
        if key not in members:
            raise DataError(f"{label}: wrench: no key {shown(key)} (keys: {', '.join(map(shown, members))})")
        return numeric_member(archive, members[key], f"{label}: wrench: key {shown(key)}")[0]


def _fewer_samples_hint(samples, rows):
    """Why a trajectory may have fewer samples than its log's wrench rows: an effort delay (read_trajectory's
    ``delay``, :func:`~baseparam.identification.delay.apply_delay`) drops samples at the ends of the motion, which
    the wrench, read from the file, keeps; which ones is not recorded. The wrench fit uses no effort: the log is to
    be read without it (the command line refuses --delay with --wrench)."""
    if rows <= samples:
        return ""
    return ("; a delay (read_trajectory's delay=) drops samples at the log's ends, not from its wrench: the wrench "
            "fit uses no effort, read the log without a delay")


def _text_rows(text, label, drop):
    """The CSV rows of a wrench log's ``text`` and the line of each, its lines split, numbered and skipped (blank,
    ``#`` comments, the line numbers ``drop``) as the trajectory reader does (:func:`._text.text_lines`): csv's own
    split also ended a line at a lone carriage return, so that the lines of a file ending them in \\r\\r\\n (Python's
    csv writer on Windows) were numbered twice as far, and the lines the trajectory dropped were other rows here:
    the wrench then one sample off the motion over a stretch, at exit 0."""
    import csv

    from ._text import text_lines
    try:
        split, _, data_idx = text_lines(text, label)
    except DataError:                   # nothing but blanks and comments
        raise DataError(f"{label}: wrench: the file is empty") from None
    kept = [i for i in data_idx if i + 1 not in drop]
    reader = csv.reader(split[i] for i in kept)
    rows = []
    try:
        rows.extend(reader)
    except csv.Error as exc:            # a field beyond csv's limit, a stray carriage return
        raise DataError(f"{label}: wrench: line {kept[reader.line_num - 1] + 1}: {_one_line(exc)}") from None
    if len(rows) != len(kept):          # a quote left open took the next lines into its field: one row a line
        first = next((k for k, row in enumerate(rows) if any("\n" in field for field in row)), len(rows) - 1)
        raise DataError(f"{label}: wrench: line {kept[first] + 1}: a quoted field runs on to the next line; a row "
                        "of a log is one line")
    if not rows:
        raise DataError(f"{label}: wrench: the file is empty")
    return rows, [i + 1 for i in kept]


def _numbers(row, index):
    try:
        [plain_float(row[i]) for i in index]
    except (ValueError, IndexError):
        return False
    return True


def identify_from_wrench(robot, loaded, wrench, sensor=None, preprocessing=None, bias=False):
    """The payload from the sensor's wrench of each loaded log (module notes): the fields of a PayloadResult
    (mode 'wrench')."""
    import dataclasses

    from .._blas import single_threaded
    from ._inputs import check_joints
    from ._least_squares import _independent_fraction
    from ._payload_math import NAMES, _check_target, _echelon, _fit_payload
    from ..motion import interp_columns
    from .preprocessing import Preprocessing, lowpass_like_torque, preprocess

    sensor_placement(sensor)                             # checked before the work
    wrenches = list(wrench) if isinstance(wrench, (list, tuple)) else [wrench]
    if len(wrenches) != len(loaded):
        raise SettingsError(f"wrench: {counted(len(wrenches), 'wrench arrays')} for "
                            f"{counted(len(loaded), 'loaded logs')} (one per log)")
    settings = dataclasses.replace(preprocessing or Preprocessing.none(), rest_velocity=None)   # still samples count
    blocks, targets, fractions = [], [], []
    with single_threaded():
        for k, (item, w) in enumerate(zip(loaded, wrenches)):
            # as every array argument: text, booleans, complex, a masked value or an int beyond float64 refused in one
            # line (numpy's cast read text as numbers, dropped an imaginary part with a ComplexWarning, read under the
            # mask, and raised a bare OverflowError for 10**400)
            w = real_array(f"wrench[{k}]", w, DataError)
            if w.shape != (item.n_samples, 6):
                raise DataError(f"{item.source}: wrench: expected shape ({item.n_samples}, 6) (one row per sample), "
                                f"got {w.shape}{_fewer_samples_hint(item.n_samples, len(w) if w.ndim else 0)}")
            check_joints(item, robot)            # a log of another robot said as such first
            _checked_wrench_values(w, item.source, np.arange(len(w)), "row", skip_bad_rows=False)
            if bias and not (w - w[:1]).any():
                # its offset fitted, a wrench that never changes is one of zeros (a frozen sensor repeating a reading):
                # a residual of exactly 0, "0 ± 2e-16 kg, no payload seen" where nothing was measured
                raise DataError(f"{item.source}: wrench: every component keeps one value in every sample (a frozen "
                                "sensor?): with its constant offset fitted (wrench_bias=True) nothing is left to fit")
            if item.tau is None:                         # no joint torques needed: placeholders the fit ignores
                item = dataclasses.replace(item, tau=np.zeros_like(item.q))
            processed = preprocess(item, settings, rates="fourth-order")     # as identify_payload's (its notes)
            grid = interp_columns(processed.t, item.t, w)
            grid = lowpass_like_torque(processed, grid)
            keep = processed.kept
            q, qd, qdd = (a[keep] for a in (processed.q, processed.qd, processed.qdd))
            block, target = wrench_regressor(robot, q, qd, qdd, sensor), grid[keep]
            if bias:        # an unknown constant offset per component and log: fit what varies about the means
                block, target = block - block.mean(axis=0), target - target.mean(axis=0)
            blocks.append(block)
            targets.append(target)
            fractions.append(_independent_fraction(processed, 1) * len(q))
    A = np.concatenate(blocks)                           # (S, 6, 10)
    y = np.concatenate(targets)                          # (S, 6)
    S = len(y)
    if S < 10:
        raise DataError("loaded: too few samples to identify a payload")
    _check_target(y, "wrench values")
    flat = A.reshape(S * 6, 10)
    norms = np.linalg.norm(flat, axis=0)
    _, s, Vt = np.linalg.svd(flat / np.where(norms > 0, norms, 1.0), full_matrices=False)
    rank = int((s > 1e-9 * s[0]).sum())
    rows = Vt[:rank] * norms                              # the row space of the unscaled columns
    rows, text = _echelon(rows, NAMES)
    fields = _fit_payload(A, y, fractions, rows, text, nuisance_dof=6 * len(loaded) if bias else 0)
    return dict(fields, mode="wrench", n_samples=S)
