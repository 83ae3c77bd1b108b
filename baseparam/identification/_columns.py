"""Column maps (field → columns or keys) and the set of fields a source holds, with drive gains."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

import numpy as np

from .._numbers import BEYOND_FLOAT
from .._validation import check_instance, comma_list, shown
from ..errors import DataError, printable
from ._record import FIELDS, JOINT_FIELDS, MAX_COLUMNS

def parse_column_map(text: str) -> dict:
    """Parse the CLI form of a column map.

    Parameters
    ----------
    text : str
        Comma-separated ``FIELD=COLUMNS`` entries; FIELD one of t, q, qd, qdd, tau, current;
        COLUMNS a 0-based column index ``7``, a Python slice ``a:b`` (columns a … b-1, one per
        joint), a name (a header column, or an NPZ/HDF5 key such as ``grp/positions``), or
        ``none`` (any case) to leave the field out (``current=none`` keeps tau).

    Returns
    -------
    dict
        field → int, slice, str, or None (excluded).

    Raises
    ------
    DataError
        A malformed entry, an unknown or repeated field.

    Examples
    --------
    >>> parse_column_map("t=0,q=1:7,qd=7:13,current=13:19")
    {'t': 0, 'q': slice(1, 7, None), 'qd': slice(7, 13, None), 'current': slice(13, 19, None)}
    >>> parse_column_map("t=times, q=positions, qd=None")
    {'t': 'times', 'q': 'positions', 'qd': None}
    """
    check_instance(text, "column map", str, "text like 't=0,q=1:7,tau=7:13'", error=DataError)
    out = {}
    # as every comma list (comma_list): an empty entry refused in its words, a separator ending the map taken; a map
    # of no entry ('') is one empty entry, refused as FIELD=COLUMNS expected
    for entry in comma_list(text, "column map", error=DataError) if text.strip() else [""]:
        field, sep, value = (part.strip() for part in entry.partition("="))
        if not sep or not field or not value:
            raise DataError(f"column map {shown(text)}: entry {shown(entry)}"
                            f": expected FIELD=COLUMNS (e.g. q=1:7)")
        field = _known_field(field, f"column map {shown(text)}")
        if field in out:
            raise DataError(f"column map {shown(text)}: field {field} given twice")
        out[field] = None if value.lower() == "none" else _parse_columns_text(value)
    return out


def _parse_columns_text(value: str):
    """'7' → 7, '1:7' → slice(1, 7), anything else → the name itself."""
    if re.fullmatch(r"[0-9]+", value):
        return int(value)
    m = re.fullmatch(r"([0-9]*):([0-9]+)(?::([0-9]+))?", value)
    if m:
        start, stop, step = m.groups()
        return slice(int(start) if start else 0, int(stop), int(step) if step else None)
    return value


def _known_field(field, context):
    if field not in FIELDS:
        raise DataError(f"{context}: unknown field {shown(field)} (known: {', '.join(FIELDS)})")
    return field


def _normalize_map(columns, source):
    """A column map as field → None (excluded), list of int (columns) or list of str (names)."""
    if columns is None:
        return {}
    if isinstance(columns, str):
        columns = parse_column_map(columns)
    check_instance(columns, f"{source}: column map", Mapping, "a dict or text like 't=0,q=1:7'", error=DataError)
    out = {}
    for field, value in columns.items():
        field = _known_field(field, f"{source}: column map")
        out[field] = _normalize_entry(source, field, value)
    return out


def _normalize_entry(source, field, value):
    where = f"{source}: column map: field {field}"
    if value is None:
        return None
    if isinstance(value, str):
        value = _parse_columns_text(value.strip())
    if isinstance(value, slice):
        if value.stop is None:
            raise DataError(f"{where}: a slice needs an end (e.g. 1:7)")
        if value.step == 0:                     # Python's 'slice step cannot be zero'; 'or 1' took it as 1
            raise DataError(f"{where}: {value.start or 0}:{value.stop}:0: a step of 0 holds no column (give a step "
                            "of 1 or more, or none)")
        value = range(value.start or 0, value.stop, value.step or 1)
        if len(value) == 0:                     # said in the map's own words, not as Python's range(8, 1)
            step = f":{value.step}" if value.step != 1 else ""
            raise DataError(f"{where}: {value.start}:{value.stop}{step} holds no column (start:end, the end left out, "
                            "as 1:7 is columns 1 to 6)")
        if len(value) > MAX_COLUMNS:            # refused before a list of that length is built
            raise DataError(f"{where}: {len(value)} columns; a table has at most {MAX_COLUMNS}")
    elif isinstance(value, (int, np.integer, str)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple, range)) or len(value) == 0:
        raise DataError(f"{where}: expected column indices or names, got {shown(value)}")
    value = list(value)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        value = [int(v) for v in value]
        if min(value) < 0:
            raise DataError(f"{where}: column {min(value)}: indices are 0-based and must be ≥ 0")
    elif not all(isinstance(v, str) for v in value):
        raise DataError(f"{where}: mix of column indices and names {shown(value)}; give one kind")
    if field == "t" and len(value) != 1:
        raise DataError(f"{where}: time is one column, got {len(value)}")
    return value


def _check_fields(source, widths, gains, n_dof, names=None, where=None):
    """Check the set of fields and their joint counts (n, those of q); return the gains as (n,) or None.

    ``widths`` maps each present field to its number of columns (1 for t); ``names`` (the column
    names of a header or DataFrame) are listed when a field is not found among them, and
    ``where`` (e.g. "line 1 (header)") follows the source in those messages.
    """
    at = f"{source}: {where}" if where else source
    seen = f"; the columns are: {shown_names(names)}" if names is not None else ""
    for field, what in (("t", "no time column (t or time)"), ("q", "no joint positions (q1..qN)")):
        if field not in widths:
            raise DataError(f"{at}: field {field}: {what}{seen}")
    if "tau" in widths and "current" in widths:
        raise DataError(f"{source}: both tau and current are present; choose one "
                        "(columns={'current': None} keeps tau)")
    n = widths["q"]
    for field in JOINT_FIELDS:
        if field in widths and widths[field] != n:
            raise DataError(f"{source}: field {field}: {widths[field]} joints, but q has {n}")
    if n_dof is not None and n != n_dof:
        raise DataError(f"{source}: field q: the data has {n} joints, but n_dof={n_dof}")
    return _gains(source, gains, n, "current" in widths, "tau" in widths)


def matched_joints(source, names, joints, notes):
    """The robot's ``joints`` (names, in its order) found among a log's joint ``names`` by name: one the log lacks
    is refused in one line naming it (and, for the unnamed joints ``joint1`` …, how to name them); the log's joints
    the robot has not are left out with a note. Returns the joints as str."""
    joints = [str(j) for j in joints]
    missing = [j for j in joints if j not in names]
    if missing:
        hint = ("; the robot's joints have no names: name them in its description (name: per YAML joint)"
                if all(j == f"joint{k}" for k, j in enumerate(joints, start=1)) else "")
        hint = hint or other_unicode_form(missing, names)
        raise DataError(f"{source}: joint{'s' if len(missing) > 1 else ''} {shown_names(missing)} of the robot not "
                        f"in the log (it names {shown_names(names)}){hint}")
    extra = [n for n in names if n not in joints]
    if extra:
        notes.append(f"{source}: joints of the log not in the robot, left out: {shown_names(extra)}"
                     f"{other_unicode_form(joints, extra)}")     # 'coudé' read, 'coudé' left out: which is which
    return joints


def other_unicode_form(wanted, names):
    """"; …" naming the first of ``wanted`` (the robot's joints a log lacks) that one of the log's ``names`` spells
    in another Unicode normalization form, else "". Names are compared as written, as ROS and URDF tools compare them,
    but "café" composed (NFC, U+00E9) and decomposed (NFD, e U+0301) print alike: "joint café of the robot not in
    the log (it names café)" said nothing of why. Both are shown escaped, with their forms."""
    composed = {unicodedata.normalize("NFC", str(n)): str(n) for n in names}
    for name in wanted:
        theirs = composed.get(unicodedata.normalize("NFC", name))
        if theirs is not None and theirs != name:
            return (f" (the log's {ascii(theirs)} is the robot's {ascii(name)} in another Unicode form: "
                    f"{_unicode_form(theirs)}, the robot's {_unicode_form(name)}; names are compared as written: "
                    "write both alike)")
    return ""


def _unicode_form(name):
    return next((form for form in ("NFC", "NFD") if unicodedata.is_normalized(form, name)), "neither NFC nor NFD")


# At most this many names read from a file are listed in a message (shown_names), each cut after NAME_WIDTH
# characters: a CSV header's line may be 1 MB, a column name of all of it
SHOWN_NAMES = 12
NAME_WIDTH = 80


def shown_name(name) -> str:
    """One name read from a file, in a one-line message: escaped, cut after :data:`NAME_WIDTH` characters (…)."""
    text = printable(name)
    return text if len(text) <= NAME_WIDTH else text[:NAME_WIDTH] + "…"


def shown_names(names, limit=SHOWN_NAMES):
    """Names read from a file (a sequence) in a one-line message: each as :func:`shown_name`, the first ``limit`` of
    them and the count; "(none)" for none."""
    shown = ", ".join(map(shown_name, names[:limit])) + (f", … ({len(names)} in all)" if len(names) > limit else "")
    return shown or "(none)"


def first_misplaced(names, joints):
    """The first place k of ``names`` holding one of ``joints`` that ``joints`` hold at another place (a name of
    theirs twice is one at another place too), or None: where values taken in ``joints``' order would go to
    another joint than ``names`` says."""
    place = {name: k for k, name in enumerate(joints)}
    return next((k for k, name in enumerate(names) if place.get(name, k) != k), None)


def refuse_other_order(source, names, joints, why, picked=False, whole=False):
    """DataError when a file taking its columns in its own order names its joints (``names``, or None) as the robot's
    ``joints`` in another order; ``why`` ends the message (how such a file is read, what to do). ``picked``: a column
    map chooses the columns by position, so of a file naming more (or fewer) joints than the robot's it may take the
    right ones ([gripper, base, …] with q=2:8): only the robot's names in another order are refused then. ``whole``
    (fixed-base CSV, NPZ, HDF5, Parquet q1, q2, …; no map): a file naming some of the robot's joints but not all is
    refused too."""
    joints = [str(j) for j in joints]
    if names is None or names == joints or (picked and len(names) != len(joints)):
        return
    # not only the robot's names in another order: any of the robot's joints named at another place (a file of
    # another joint among them, e.g. [wrist, elbow, base], or naming one twice) was read in its order, the column
    # the file calls wrist going to the robot's first joint without a word
    k = first_misplaced(names, joints)
    if k is None and not set(names) & set(joints):
        _refuse_folded_other_order(source, names, joints, why)
    if k is None:
        missing = [j for j in joints if j not in names]
        if whole and not picked and missing and len(missing) < len(joints):
            # [a, b, x] for the robot's [a, b, c]: the file says its third column is x, and it went to c (a bag or a
            # list column refuses c as not in the log); names none of the robot's (joint1 … of an unnamed export) read
            raise DataError(f"{source}: the file names its joints {shown_names(names)}, the robot "
                            f"{shown_names(joints)}: {shown_names(missing)} not among the file's"
                            f"{other_unicode_form(missing, names)}; {why}")
        return
    # the lists are cut after 12 names: a difference beyond them is named, or the two lists shown look alike
    first = (f"; they differ first at joint {k + 1}: {shown_name(names[k])} in the file, "
             f"{shown_name(joints[k]) if k < len(joints) else '(none)'} in the robot" if k >= SHOWN_NAMES else "")
    raise DataError(f"{source}: the file names its joints {shown_names(names)} in this order, the robot "
                    f"{shown_names(joints)}{first}; {why}")


def _refuse_folded_other_order(source, names, joints, why):
    """DataError when a file naming none of the robot's ``joints`` as written names them in another case or Unicode
    form, in another order: a file of none of the robot's names is read by position (an unnamed export's joint1 …),
    so [B, A, C] for the robot's [a, b, c] would put the file's B column in a, without a word. In the robot's order
    they are read by position."""
    def folded(name):
        return unicodedata.normalize("NFC", str(name)).casefold()

    theirs, ours = [folded(n) for n in names], [folded(j) for j in joints]
    k = first_misplaced(theirs, ours)
    if k is not None:
        raise DataError(f"{source}: the file names its joints {shown_names(names)}, the robot {shown_names(joints)}: "
                        f"the same names in another case or Unicode form and another order (the file's joint {k + 1}, "
                        f"{shown_name(names[k])}, is the robot's joint {ours.index(theirs[k]) + 1}); names are "
                        f"compared as written, and a file naming none of the robot's joints is read by position; {why}")


def _gains(source, gains, n, has_current, has_tau):
    """Drive gains as an (n,) float array (current logs only)."""
    if not has_current:
        if gains is not None:
            # said of a log of neither (positions and a wrench sensor's columns), it claimed torques it has not
            has = "torques (field tau)" if has_tau else "no joint effort (no field tau nor current)"
            raise DataError(f"{source}: gains given, but the data has {has}, not motor currents; gains apply to "
                            "current only")
        return None
    if gains is None:
        raise DataError(f"{source}: field current: motor currents need drive gains "
                        f"(gains=[{n} values in N·m/A] or one scalar)")
    if isinstance(gains, str):
        # commas parsed as every comma list (comma_list): an empty entry ('10,,10.7') was dropped, the gains after it
        # moved to the joints before them, silently; entries may also be apart by white space ('10 10.7')
        gains = [g for entry in (comma_list(gains, f"{source}: gains", error=DataError) if "," in gains else [gains])
                 for g in entry.split()]
    try:
        arr = np.asarray(gains, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{source}: gains: expected {n} numbers (N·m/A), got {shown(gains)}") from None
    except OverflowError:       # an int beyond float64 (10**400): numpy's bare "int too large to convert"
        raise DataError(f"{source}: gains: {BEYOND_FLOAT}; expected drive gains in N·m/A") from None
    if arr.ndim == 0 or arr.shape == (1,):          # one gain for every joint, as a scalar or '--gains 10'
        arr = np.full(n, float(arr.reshape(-1)[0]) if arr.size else np.nan)
    if arr.shape != (n,):
        raise DataError(f"{source}: gains: expected {n} values (one per joint) or one scalar, got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr == 0)
    if bad.any():
        j = int(np.argmax(bad))
        raise DataError(f"{source}: gains: joint {j + 1}: {arr[j]:g} is not a usable drive gain (finite, non-zero)")
    return arr


def torque_excluded(columns):
    """The torque fields a normalized column map leaves out: choosing one torque source (tau or current) excludes
    the other's columns or defaults (excluding one excludes nothing)."""
    if any(columns.get(field) is not None for field in ("tau", "current")):
        return {"tau", "current"} - set(columns)
    return set()


def choose_sources(source, columns, defaults, available, *, entry, thing, listing, looked_for, placeholder,
                   clean=str):
    """One source (column, array key) per field: the column map's entry, else the first default the file has.

    Choosing one torque source (tau or current) in the map excludes the other's defaults; t and q are
    required. The wording of the messages is the caller's (a Parquet column, an NPZ/HDF5 array).

    Parameters
    ----------
    source : str
    columns : dict
        The normalized column map, {field: [name] or None}.
    defaults : dict
        {field: tuple of names}, tried in order.
    available : container of str
    entry, thing, listing, looked_for, placeholder : str
        "give {entry}", "no {thing} {name!r} (the file has {listing})", "looked for {looked_for(field)}",
        "columns={{'t': {placeholder}}}".
    looked_for : callable
    clean : callable
        What a map entry names, as the file spells it.

    Returns
    -------
    dict
        {field: name}.
    """
    chosen, skip = {}, torque_excluded(columns)
    for field in FIELDS:
        if field in columns:
            given = columns[field]
            if given is None:
                continue
            if len(given) != 1 or not isinstance(given[0], str):
                raise DataError(f"{source}: column map: field {field}: give {entry}, got {shown(given)}")
            name = clean(given[0])
            spelled = name if name in available else _other_case(source, field, name, available, thing)
            if spelled is None:
                raise DataError(f"{source}: column map: field {field}: no {thing} {shown(name)}"
                                f" (the file has {listing})")
            chosen[field] = spelled
        elif field not in skip:
            name = next((c for c in defaults[field] if c in available), None)
            if name is None:        # CSV headers' rule: a default name in any case, when none is spelled so
                name = next((n for c in defaults[field] if (n := _other_case(source, field, c, available, thing))),
                            None)
            if name is not None:
                chosen[field] = name
    for field in ("t", "q"):
        if field not in chosen:
            raise DataError(f"{source}: field {field}: no {thing} (looked for {looked_for(field)}; the file has "
                            f"{listing}); name it with columns={{'{field}': {placeholder}}}")
    refuse_shared_sources(source, chosen, thing)
    return chosen


def _other_case(source, field, name, available, thing):
    """The one name of ``available`` that is ``name`` in another case (``T`` for ``t``), None when there is none,
    DataError when there are several (``Q`` and ``Positions`` are two; ``Q`` and ``q`` cannot be: ``q`` is ``name``
    as written, taken first). CSV headers and a Parquet file's columns per joint are read in any case: an NPZ's or
    HDF5 file's keys ``T``, ``Q``, ``TAU`` and Parquet's list columns so named were "no array", where ``T,Q1,TAU1``
    read."""
    key = name.casefold()
    spelled = [n for n in available if isinstance(n, str) and n.casefold() == key]
    if len(spelled) > 1:
        raise DataError(f"{source}: field {field}: {thing}s {', '.join(map(shown, spelled))} are all {shown(name)} in "
                        f"another case; name the one to read with columns={{'{field}': NAME}}")
    return spelled[0] if spelled else None


def default_twins(columns, defaults, available, chosen):
    """(field, chosen name, other name) for each field taken by its default name whose other default names the file
    also has, in any case (an NPZ's ``t`` and ``time``, a Parquet's ``q`` and ``positions``, ``q`` and ``Q``): the
    reader compares their values, since the documented preference read the first and left the other, however
    different, without a word.

    Parameters
    ----------
    columns : dict
        The normalized column map; a field it names is the map's choice, and has no twins.
    defaults : dict
        {field: tuple of names}, as given to :func:`choose_sources`.
    available : container of str
    chosen : dict
        {field: name}, what :func:`choose_sources` returned.

    Returns
    -------
    list of tuple of str
    """
    twins = []
    for field, name in chosen.items():
        if field in columns:
            continue
        # its twins spelled as the defaults first (in their order), then in any case: 'Q' beside 'q' is a twin as a
        # CSV header refuses 'q1' beside 'Q1', not a column left unread however different
        others = [other for other in defaults[field] if other != name and other in available]
        wanted = {c.casefold() for c in defaults[field]}
        others += [other for other in available if isinstance(other, str) and other != name
                   and other.casefold() in wanted and other not in others]
        twins += [(field, name, other) for other in others]
    return twins


def refuse_differing_twin(source, field, name, other, thing, same):
    """DataError, naming ``source``, the field and both names, unless ``same`` (the two hold the same values)."""
    if not same:
        raise DataError(f"{source}: field {field}: {thing}s {shown(name)} and {shown(other)} both hold it, with "
                        f"different values; name the one to read with columns={{'{field}': NAME}}")


def refuse_shared_sources(source, chosen, thing):
    """DataError when two fields of ``chosen`` ({field: source name}) take one source, as a CSV's column map refuses
    one column for two fields: a map ``qd=q`` read the positions as the velocities, without a word (Parquet, NPZ, HDF5,
    a bag's JointState fields); ``thing`` names the source in the message."""
    owner = {}
    for field, name in chosen.items():
        if name in owner:
            shown_source = f"{name[0]}:{name[1]}" if isinstance(name, tuple) else name
            raise DataError(f"{source}: column map: {thing} {shown(printable(shown_source))} is used for both "
                            f"{owner[name]} and {field}")
        owner[name] = field
