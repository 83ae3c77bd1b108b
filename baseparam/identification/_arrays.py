"""Plain arrays, NPZ archives and HDF5 files: one array per field, chosen by key."""
from __future__ import annotations

import zipfile

import numpy as np

from ..errors import DataError
from ._record import DEFAULT_KEYS, FIELDS, JOINT_FIELDS, Trajectory, _coarse_time, _one_line
from ._columns import _check_fields, _normalize_map
from ._rows import _Table, _finish


def from_arrays(t, q, tau=None, *, qd=None, qdd=None, current=None, gains=None, source="<arrays>",
                skip_bad_rows=False, n_dof=None) -> Trajectory:
    """Validate a trajectory given as arrays.

    Parameters
    ----------
    t : array_like, shape (S,)
        Times in s.
    q, tau, qd, qdd, current : array_like, shape (S, n) (or (S,) for one joint)
        Exactly one of ``tau`` and ``current`` (with ``gains``).
    gains, skip_bad_rows, n_dof
        As in :func:`read_trajectory`.
    source : str
        Name used in messages.

    Returns
    -------
    Trajectory
        Rows in messages and in ``skipped`` are 0-based.

    Raises
    ------
    DataError
        As :func:`read_trajectory`.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0.0, 1.0, 11)
    >>> traj = from_arrays(t, np.zeros((11, 2)), current=np.ones((11, 2)), gains=[2.0, 3.0])
    >>> traj.tau[0]
    array([2., 3.])
    """
    given = {"t": t, "q": q, "qd": qd, "qdd": qdd, "tau": tau, "current": current}
    arrays = {field: (value, "") for field, value in given.items() if value is not None}
    return _from_keyed(source, arrays, gains, skip_bad_rows, n_dof)


def _read_npz(path, source, columns, gains, skip_bad_rows, n_dof):
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(f"{source}: cannot read as NPZ: {_one_line(exc)}") from None
    if not hasattr(archive, "files"):
        raise DataError(f"{source}: not an NPZ archive (a single .npy array); "
                        "save with np.savez(t=..., q=..., tau=...)")
    with archive:     # arrays are read lazily: only the chosen keys are decompressed
        return _read_array_file(source, list(archive.files), archive.__getitem__, columns, gains, skip_bad_rows, n_dof)


def _read_h5(path, source, columns, gains, skip_bad_rows, n_dof):
    import h5py

    try:
        h5 = h5py.File(path, "r")
    except OSError as exc:
        raise DataError(f"{source}: cannot read as HDF5: {_one_line(exc)}") from None
    with h5:
        # Default names and map entries are looked up directly first: visititems does not follow
        # soft or external links, so a linked dataset would be invisible to the walk alone.
        columns = _normalize_map(columns, source)
        wanted = [key for keys in DEFAULT_KEYS.values() for key in keys]
        wanted += [cols[0].strip().lstrip("/") for cols in columns.values()
                   if cols is not None and len(cols) == 1 and isinstance(cols[0], str)]
        keys = []
        for name in dict.fromkeys(wanted):
            try:
                obj = h5.get(name)
            except (KeyError, OSError, ValueError, TypeError):      # dangling or malformed link
                obj = None
            if isinstance(obj, h5py.Dataset):
                keys.append(name)
        found = set(keys)
        h5.visititems(lambda name, obj: keys.append(name)
                      if isinstance(obj, h5py.Dataset) and name not in found else None)
        return _read_array_file(source, keys, lambda key: h5[key][()], columns, gains, skip_bad_rows, n_dof)


def _read_array_file(source, arrays, read, columns, gains, skip_bad_rows, n_dof):
    """Choose a key per field among ``arrays`` (key names), read them with ``read(key)``, validate."""
    columns = _normalize_map(columns, source)
    chosen = {}
    if any(columns.get(field) is not None for field in ("tau", "current")):
        skip = {"tau", "current"} - set(columns)     # choosing one torque source excludes the other
    else:
        skip = set()
    for field in FIELDS:
        if field in columns:
            entry = columns[field]
            if entry is None:
                continue
            if len(entry) != 1 or not isinstance(entry[0], str):
                raise DataError(f"{source}: column map: field {field}: give one array name (key), got {entry!r}")
            key = entry[0].strip().lstrip("/")
            if key not in arrays:
                raise DataError(f"{source}: column map: field {field}: no array {key!r} "
                                f"(the file has {_list_keys(arrays)})")
            chosen[field] = key
        elif field not in skip:
            key = next((k for k in DEFAULT_KEYS[field] if k in arrays), None)
            if key is not None:
                chosen[field] = key
    for field in ("t", "q"):
        if field not in chosen:
            raise DataError(f"{source}: field {field}: no array (looked for keys "
                            f"{', '.join(map(repr, DEFAULT_KEYS[field]))}; the file has {_list_keys(arrays)}); "
                            f"name it with columns={{'{field}': KEY}}")
    if "tau" not in chosen and "current" not in chosen:
        looked = ", ".join(map(repr, DEFAULT_KEYS["tau"] + DEFAULT_KEYS["current"]))
        raise DataError(f"{source}: field tau: no array of torques or currents (looked for keys {looked}; "
                        f"the file has {_list_keys(arrays)})")
    keyed = {}
    for field, key in chosen.items():
        try:
            keyed[field] = (read(key), key)
        except (OSError, ValueError, TypeError, zipfile.BadZipFile) as exc:   # e.g. object arrays need pickle
            raise DataError(f"{source}: field {field} (key {key}): cannot read: {_one_line(exc)}") from None
    return _from_keyed(source, keyed, gains, skip_bad_rows, n_dof)


def _list_keys(arrays, limit=12):
    keys = sorted(arrays)
    shown = ", ".join(keys[:limit]) + (", …" if len(keys) > limit else "")
    return f"keys {shown}" if keys else "no arrays"


def _from_keyed(source, keyed, gains, skip_bad_rows, n_dof):
    """Check shapes of {field: (array, key)} and validate; key '' for plain arrays."""
    where = {f: (f" (key {key})" if key else "") for f, (_, key) in keyed.items()}
    coarse = _coarse_time(np.asarray(keyed["t"][0]).dtype) if "t" in keyed else None
    data = {f: _numeric(source, f, value, where[f]) for f, (value, _) in keyed.items()}
    t = data["t"] if "t" in data else None
    if t is None:
        raise DataError(f"{source}: field t: no times")
    if t.ndim == 2 and 1 in t.shape:
        t = t.reshape(-1)
    if t.ndim != 1:
        raise DataError(f"{source}: field t{where['t']}: expected shape (S,), got {t.shape}")
    S = t.shape[0]
    data["t"] = t[:, None]
    for field in JOINT_FIELDS:
        if field in data:
            data[field] = _joint_array(source, field, data[field], S, where[field])
    n, gains = _check_fields(source, {f: a.shape[1] for f, a in data.items()}, gains, n_dof)
    table = _Table(source, "row", np.arange(S), data, [], where, coarse)
    return _finish(table, n, gains, skip_bad_rows)


def _numeric(source, field, value, where):
    arr = np.asarray(value)
    if arr.dtype.kind not in "iuf":
        raise DataError(f"{source}: field {field}{where}: not numeric (dtype {arr.dtype})")
    return arr.astype(np.float64, copy=False)


def _joint_array(source, field, arr, S, where):
    """An (S,) or (S, n) array as (S, n); other shapes raise, with a hint for transposed data."""
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise DataError(f"{source}: field {field}{where}: expected shape (S, n), got {arr.shape}")
    if arr.shape[0] != S:
        hint = f"; transposed? expected ({S}, n)" if arr.shape[1] == S else ""
        raise DataError(f"{source}: field {field}{where}: {arr.shape[0]} rows (shape {arr.shape}), but t has {S}{hint}")
    if arr.shape[1] == 0:
        raise DataError(f"{source}: field {field}{where}: no joints (shape {arr.shape})")
    return arr
