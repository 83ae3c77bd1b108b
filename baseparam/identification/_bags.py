"""ROS bags: ROS 2 (an ``.mcap`` file, or a bag folder with ``metadata.yaml``, MCAP or sqlite3
storage) and ROS 1 (``.bag``), read without a ROS install.

What is read
------------
``sensor_msgs/JointState`` messages (the topic chosen by ``topic=``: by default the one JointState
topic, or ``/joint_states`` among several). Their ``position`` is q, ``velocity`` q̇, ``effort``
τ; a column map renames these (``columns={"current": "effort"}``: the effort field logs motor
current, τ = current · gains; ``{"qd": None}`` leaves velocities out), or takes a field from another
topic of any message type (``{"current": "/motor_currents:data"}``: one value per joint, in the
robot's order, deserialized by rosbags from the bag's own definitions, one message at a time).

Joints are matched by name to ``joints`` (the robot's joint names), in any order; joints of the log
the robot does not have (a gripper) are left out and listed once in :attr:`Trajectory.notes`;
joints of the robot the log lacks are refused in one line naming them and the file.

One clock
---------
Every message's time is its header stamp (``clock="header"``, the time the driver sampled the
state) or the time the recorder received it (``clock="receive"``, the bag's log time); stamps all
zero (a publisher that does not stamp) fall back to receive times, with a note. Messages are sorted
by that time (a bag stores them in the order they arrived); a receive time that goes back in that order
is a damaged message (:func:`_with_clock`). When the joints or fields come from
several streams (topics, or messages of one topic naming different joints, at their own rates),
the stream giving most joints' positions (then messages, fields) sets the times; every other
stream's values are linearly interpolated at those times (``np.interp``, per joint), and times
outside the span all streams cover are dropped. :attr:`Trajectory.notes` states the clock and the interpolation.

Damage
------
A message that does not parse as a JointState is reported with its topic and its index (0-based,
in the topic's file order), as a damaged CSV row is: one :class:`DataError` line, or with
``skip_bad_rows=True`` the message is dropped and listed in :attr:`Trajectory.skipped`. A
truncated or damaged file (a record cut short, a chunk that does not decompress) is refused in one
line naming where; with ``skip_bad_rows=True`` the messages before the damage are kept, with a note
and a :class:`DataWarning`. A ROS 1 bag without its index (a recording not closed, a partial copy) is
read chunk by chunk to its last whole message, on the same terms. An MCAP file cut in its summary
section (after its last message) is read whole, with a note and a warning.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from .._checks import counted, shown
from .._numbers import distinct_seconds
from .._warnings import warn
from ..errors import DataError, DataWarning, printable
from ._bag_files import read_raw
from ._cdr import ARRAYS, JOINT_STATE, JOINT_STATE_MSGDEF, NANOSECONDS, decode_rows, stamp_problem
from ._columns import (SHOWN_NAMES, _check_fields, _normalize_map, matched_joints, refuse_shared_sources, shown_name,
                       shown_names, torque_excluded)
from .._validation import check_option, comma_list
from ._record import CLOCKS, MAX_VALUES, _one_line
from ._rows import _finish, _Table, _time_problems, apart_ends

# Message fields of a JointState and the trajectory field each gives by default.
DEFAULT_FIELDS = {"q": "position", "qd": "velocity", "tau": "effort"}


@dataclass
class _Stream:
    """Messages of one topic with one set of joint names, decoded: stamps and log times in s (M,),
    order (M,) the messages' indices in the topic, arrays[field] (M, k) or None; ``clock`` the clock of the
    stamps (:func:`_with_clock` sets it)."""

    topic: str
    names: tuple
    stamps: np.ndarray
    received: np.ndarray
    order: np.ndarray
    arrays: dict
    clock: str = "header"


def read_bag(path, source, *, topic=None, columns=None, gains=None, skip_bad_rows=False, n_dof=None, joints=None,
             clock="header", contents=None, clocks=None):
    """Read a ROS bag into a :class:`Trajectory` (module docstring: what, how, damage); ``contents``: what
    :func:`shown_contents` gave of it already (the floating-base reader's), not read again; ``clocks``: a list that
    receives the clock of the times read ('header' or 'receive', :func:`_one_clock`), for the floating-base reader."""
    check_option(clock, f"{source}: clock", CLOCKS, expected="'header' or 'receive'", error=DataError)
    fields = _field_map(columns, source)
    named = {f[0] for f in fields.values() if isinstance(f, tuple)}       # topics of TOPIC:FIELD entries
    if contents is None:
        contents = shown_contents(read_raw(path, source, named))
    raw, extra, problem, notice = contents
    notes = []
    if problem:
        if not skip_bad_rows:
            raise DataError(f"{source}: {problem}; skip_bad_rows=True keeps the messages before it")
        notes.append(f"{source}: {problem}; the messages before it are kept")
    if notice:
        notes.append(f"{source}: {notice}")
    for note in notes:                     # a damaged file read in part: said where, whoever reads it
        warn(note, DataWarning)
    topics = _choose_topics(raw, topic, source)
    chosen = set(topics)                   # the log's JointState topics (not those only a column map names)
    # TOPIC:FIELD of a JointState topic read is that topic's plain field: 'qd=/joint_states:effort' took tau's source
    refuse_shared_sources(source, {f: e[1] if isinstance(e, tuple) and e[0] in topics and e[1] in ARRAYS else e
                                   for f, e in fields.items()}, "JointState field")
    streams, damaged, generic = [], [], []
    for field, entry in fields.items():
        if isinstance(entry, tuple):
            if entry[0] not in raw:
                raise DataError(f"{source}: column map: field {field}: topic {entry[0]} not in the bag")
            if raw[entry[0]][0] in JOINT_STATE and entry[1] in ARRAYS:
                topics += [entry[0]] if entry[0] not in topics else []
            else:
                s, d = _decode_generic(entry[0], raw[entry[0]], entry[1], source)
                generic.append(s)
                damaged += d
    for name in topics:
        refuse_foreign_definition(name, raw[name], source)
        s, d = _decode_topic(name, raw[name])
        streams += _without_damaged_names(s, d)
        damaged += d
    # on the chosen clock, messages out of the recorder's order among the damaged ones
    streams = [_with_clock(s, clock, source, notes, damaged) for s in streams]
    if damaged and not skip_bad_rows:
        name, index, reason = damaged[0]
        more = f"; {len(damaged) - 1} more damaged messages" if len(damaged) > 1 else ""
        raise DataError(f"{source}: topic {name}: message {index}: damaged {_kind(raw, name)} ({reason}){more} "
                        "(skip_bad_rows=True drops damaged messages and reports them)")
    if not streams:
        raise DataError(f"{source}: topic {', '.join(topics)}: no JointState messages")
    if len(streams) == 1 and extra is not None:
        _exact_times(streams[0], extra, notes, source)
    names = _joint_names(streams, joints, n_dof, source, notes)
    for s in streams:
        _refuse_interleaved_publishers(s, _field_key(fields.get("q", "position")), names, source)
    for s in generic:
        width = next(iter(s.arrays.values())).shape[1]
        if width != len(names):
            raise DataError(f"{source}: topic {s.topic}: field {next(iter(s.arrays))}: {width} values per message, "
                            f"the robot has {len(names)} joints (taken in its order)")
        s.names = tuple(names)
        # its messages out of the recorder's order refused here, or dropped among the damaged ones (listed below)
        streams.append(_with_clock(s, clock, source, notes, damaged if skip_bad_rows else None))
    receive = lambda s: _with_clock(s, "receive", source, notes, damaged if skip_bad_rows else None)  # noqa: E731
    data, ids, base = _align(streams, names, fields, source, notes, clock, chosen, receive)
    if clocks is not None:
        clocks.append(base.clock)
    if "qdd" not in data and len(streams) == 1:
        qdd = attached(extra, f"baseparam{base.topic}/qdd", base.order, len(base.names), ids, notes, source)
        if qdd is not None:
            data["qdd"] = qdd[:, [base.names.index(j) for j in names]]
    total = sum(a.size for a in data.values())
    if total > MAX_VALUES:
        raise DataError(f"{source}: {total:.3g} values; a trajectory may hold at most {MAX_VALUES:.0e} values in all "
                        "(leave a field out: columns={'qd': None}; or split the log)")
    problems = [(int(i), f"topic {t}: damaged {_kind(raw, t)} ({r})") for t, i, r in damaged]
    where = {f: f" (topic {base.topic})" for f in data}
    gains = _check_fields(source, {f: (1 if f == "t" else a.shape[1]) for f, a in data.items()}, gains, n_dof)
    data["t"] = data["t"][:, None]
    # times apart at its ends judged on the streams, with both clocks (_times_apart)
    table = _Table(source, "message", base.order[ids], data, problems, where, apart_ends=False)
    return _finish(table, gains, skip_bad_rows, joint_names=tuple(names), notes=tuple(notes))


def _field_map(columns, source):
    """Trajectory field → JointState field, from a column map (``{"current": "effort"}``)."""
    fields = dict(DEFAULT_FIELDS)
    given = _normalize_map(columns, source)         # {} without a map
    for field in torque_excluded(given):
        fields.pop(field, None)
    for field, entry in given.items():
        if entry is None:
            fields.pop(field, None)
            continue
        if field == "t":
            raise DataError(f"{source}: column map: field t: a bag's times are its stamps (clock='header' or "
                            "'receive'), not a message field")
        if len(entry) == 1 and isinstance(entry[0], str) and entry[0].startswith("/") and ":" in entry[0]:
            topic, _, path = entry[0].rpartition(":")
            if topic and path and all(part.isidentifier() for part in path.split(".")):
                fields[field] = (topic, path)
                continue
        if len(entry) != 1 or entry[0] not in ARRAYS:
            raise DataError(f"{source}: column map: field {field}: expected a JointState field (position, velocity "
                            f"or effort) or TOPIC:FIELD (a field of another topic's messages, e.g. "
                            f"/motor_currents:data), got {shown(entry)}")
        fields[field] = entry[0]
    refuse_shared_sources(source, fields, "JointState field")
    return fields


def shown_contents(contents):
    """:func:`~._bag_files.read_raw`'s ``(raw, extra, problem, notice)`` with the topics and types as the messages
    show them (a damaged file's bytes may hold a newline, which would forge a line of a note or an error), and
    baseparam's attachments (``baseparam<topic>/t``, …) found by the topics' names as shown."""
    raw, extra, problem, notice = contents
    raw = {printable(topic): [printable(entry[0]), *entry[1:]] for topic, entry in raw.items()}
    extra = None if extra is None else {printable(name): value for name, value in extra.items()}
    return raw, extra, problem, notice


def topics_listed(raw):
    """A bag's topics and their types, for a one-line message: ``/a (pkg/msg/T), …`` or ``no topics``; each name cut
    as :func:`~._columns.shown_name` cuts it, the first :data:`~._columns.SHOWN_NAMES` topics and the count (a
    topic or type of 200 000 characters, or 10 000 topics, made a message of that size)."""
    listed = [f"{shown_name(t)} ({shown_name(v[0]) if v[0] else 'unknown type'})" for t, v in sorted(raw.items())]
    more = f", … ({len(listed)} in all)" if len(listed) > SHOWN_NAMES else ""
    return ", ".join(listed[:SHOWN_NAMES]) + more if listed else "no topics"


def _choose_topics(raw, topic, source):
    if topic is None:
        found = [t for t, v in raw.items() if v[0] in JOINT_STATE]
        if not found:
            raise DataError(f"{source}: no sensor_msgs/JointState topic (the bag has {topics_listed(raw)}); "
                            "name one with topic=")
        if len(found) > 1:
            if "/joint_states" in found:
                return ["/joint_states"]
            raise DataError(f"{source}: several JointState topics ({shown_names(sorted(found))}); choose with topic= "
                            "(several: 'a,b')")
        return found
    chosen = comma_list(topic, "topic", error=DataError) if isinstance(topic, str) else list(topic)
    twice = next((t for k, t in enumerate(chosen) if t in chosen[:k]), None)
    if twice is not None:       # read twice, its messages were a second stream "not used", said in a note of no sense
        raise DataError(f"{source}: topic {printable(twice)}: named twice; name each topic once")
    for t in chosen:
        if t not in raw:
            raise DataError(f"{source}: topic {printable(t) if t else repr(t)}: not in the bag (it has "   # '' shown
                            f"{topics_listed(raw)})")
        if raw[t][0] not in JOINT_STATE:
            kind = shown_name(raw[t][0]) if raw[t][0] else "unknown"
            raise DataError(f"{source}: topic {shown_name(t)}: type {kind}; only sensor_msgs/JointState is read")
    return chosen


def _decode_topic(topic, entry):
    """Streams (one per set of names and arrays) and damaged messages [(topic, index, reason)] of a topic."""
    _, ros1, pieces, _ = entry
    groups, first_order, damaged = {}, {}, []
    for rows, log_times, order in pieces:
        found, bad = rows if isinstance(rows, tuple) else decode_rows(rows, ros1)      # decoded by the reader
        damaged += [(topic, int(order[i]), reason) for i, reason in bad]
        for idx, lay, stamps, arrays in found:
            wrong = next((f"{f}: {a.shape[1]} values for {len(lay.names)} names" for f, a in arrays.items()
                          if a is not None and a.shape[1] != len(lay.names)), None)
            twice = next((n for n in lay.names if lay.names.count(n) > 1), None)
            if twice is not None:         # two values for one joint: which is meant, no one can say
                wrong = wrong or f"joint {twice} named twice"
            if wrong:                   # every message of this layout: values that no name says whose
                damaged += [(topic, int(order[i]), wrong) for i in idx]
                continue
            # one stream per set of joints, whatever order a message lists them in (merged controllers
            # publish in changing orders): columns put in the order the set was first seen in
            key = (tuple(sorted(lay.names)), tuple(a is not None for a in arrays.values()))
            names = first_order.setdefault(key, lay.names)
            if lay.names != names:
                perm = [lay.names.index(n) for n in names]
                arrays = {f: (a[:, perm] if a is not None else None) for f, a in arrays.items()}
            groups.setdefault(key, []).append((stamps, log_times[idx], order[idx], arrays))
    streams = []
    for key, parts in groups.items():
        stamps, received, order, arrays = zip(*parts)           # the pieces' parts, concatenated
        arrays = {f: None if arrays[0][f] is None else np.concatenate([a[f] for a in arrays]) for f in arrays[0]}
        streams.append(_Stream(topic, first_order[key], np.concatenate(stamps), _ns_to_s(np.concatenate(received)),
                               np.concatenate(order), arrays))
    damaged.sort(key=lambda d: (d[0], d[1]))
    return streams, damaged


_FEW_NAMING = 3         # messages at most naming a joint as no other message does: a damaged name, if a character off


def _without_damaged_names(streams, damaged):
    """The streams of one topic (:func:`_decode_topic`) without those of at most :data:`_FEW_NAMING` messages whose
    joint names are another stream's of 100 times as many messages but for one name a character off (a bit flipped in
    it), their other joints' positions agreeing with that stream's (:func:`_worst_disagreement`); their messages are
    appended to ``damaged`` (topic, index, reason). Such a message was read as a stream of its own joints and dropped
    with a note only (a sample of the log lost without a word of damage). A publisher of other joints (a gripper's, a
    second arm's) names them in many messages, or names no joint of the other stream, or gives other positions."""
    largest = {}             # per count of names and fields: the stream of most messages (one pass: a damaged file
    for s in streams:        # may hold as many streams as messages)
        key = (len(s.names), tuple(s.arrays))
        if key not in largest or s.order.size > largest[key].order.size:
            largest[key] = s
    kept = []
    for s in streams:
        main = largest[(len(s.names), tuple(s.arrays))]
        name = _one_name_off(s, main) if main is not s else None
        if name is None:
            kept.append(s)
            continue
        reason = (f"joint name {shown_name(name[0])} where the topic's {counted(main.order.size, 'other messages')} "
                  f"name {shown_name(name[1])} (a damaged name)")
        damaged += [(s.topic, int(index), reason) for index in s.order]
    return kept


def _one_name_off(stream, main):
    """(its name, the main stream's) when ``stream`` is a few messages of ``main``'s joints but for one name a
    character off, their shared joints' positions agreeing (:func:`_without_damaged_names`), else None."""
    if main is None or stream.order.size > _FEW_NAMING or main.order.size < 100 * stream.order.size:
        return None
    own, theirs = set(stream.names) - set(main.names), set(main.names) - set(stream.names)
    shared = [j for j in stream.names if j in main.names]
    key = "position"
    if len(own) != 1 or len(theirs) != 1 or not shared or any(s.arrays.get(key) is None for s in (stream, main)):
        return None
    name, other = own.pop(), theirs.pop()
    if not _one_character_off(name, other):
        return None
    inside = (stream.stamps >= main.stamps.min()) & (stream.stamps <= main.stamps.max())
    if not inside.all() or _worst_disagreement(main, stream, shared, key) is not None:
        return None
    return name, other


def _one_character_off(a, b):
    """Whether the names ``a`` and ``b`` are of one length and differ in one character."""
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 1


def _definition_lines(msgdef):
    """A message definition's text as field lines: comments, blank lines and the ``===`` separators left out."""
    lines = (line.split("#", 1)[0].strip() for line in msgdef.splitlines())
    return tuple(" ".join(line.split()) for line in lines if line and not line.startswith("=="))


# The definitions of a JointState as recorders write them (ROS 2, ROS 1), as field lines: a bag whose definition
# reads so needs no parsing (rosbags' message parser costs 0.15 s to load)
_STANDARD_DEFINITIONS = {_definition_lines(JOINT_STATE_MSGDEF), _definition_lines(
    "std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n"
    "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n")}


def refuse_foreign_definition(topic, entry, source):
    """Refuse a topic whose type rosbags' type store (or this reader, for a JointState) knows by its name, but whose
    definition in the bag says otherwise: a ``sensor_msgs/msg/JointState`` whose first array is ``velocity``, or
    whose arrays are float32, was read with the standard layout, its velocities as positions. A bag without a
    definition (rosbag2's older sqlite3 storage), or with one rosbags cannot parse, is read by the type's name."""
    msgtype, ros1, _, msgdef = entry
    if not msgdef.strip() or _definition_lines(msgdef) in _STANDARD_DEFINITIONS:
        return
    from rosbags.typesys import Stores, get_typestore
    store = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    name = msgtype if "/msg/" in msgtype else msgtype.replace("/", "/msg/", 1)
    if name not in store.fielddefs:
        return
    try:
        given = _parsed_definition(msgdef, name)
    except Exception:               # rosbags' parser errors: a definition it cannot read
        return
    pending, seen = [name], set()
    while pending:
        kind = pending.pop()
        if kind in seen or kind not in given or kind not in store.fielddefs:   # a builtin the text leaves out
            continue
        seen.add(kind)
        theirs, ours = given[kind][1], store.fielddefs[kind][1]
        if theirs != ours:
            differ = next((k for k, (a, b) in enumerate(zip(theirs, ours)) if a != b), min(len(theirs), len(ours)))
            said = (f"field {differ + 1} is {_field_text(theirs[differ])}" if differ < len(theirs) else
                    f"it ends before field {differ + 1}") + (f", not {_field_text(ours[differ])}" if differ < len(ours)
                                                              else ", one field more")
            raise DataError(f"{source}: topic {shown_name(topic)}: type {shown_name(msgtype)}: the bag's definition of "
                            f"{printable(kind)} is not the standard one ({said}); not read as one")
        pending += [node[1] for _, node in ours if node[0] == 2]           # Nodetype.NAME: a nested message


# rosbag2's ``ros2idl`` definitions: each type's IDL file after a line of 80 ``=`` and one ``IDL: pkg/msg/Type``
_IDL_BLOCK = re.compile(r"^={80}[ \t]*\r?\nIDL: [^\n]*\n", re.MULTILINE)
_PREPROCESSOR_LINE = re.compile(r"^[ \t]*#[^\n]*$", re.MULTILINE)


def _parsed_definition(msgdef, msgtype):
    """rosbags' parsed types (``{name: (constants, fields)}``) of a definition as a bag carries it: ``.msg`` text
    (ROS 1, rosbag2's ``ros2msg``) or IDL (``ros2idl``). rosbag2 stores IDL as blocks, one per type in any order,
    which rosbags' IDL parser does not read as one text: each block is parsed alone, and one it cannot parse left
    out (its types then count as not given). Raises rosbags' parser errors for a text read as neither."""
    from rosbags.typesys import get_types_from_idl, get_types_from_msg
    blocks = _IDL_BLOCK.split(msgdef)
    if len(blocks) == 1:                # no IDL blocks: .msg text, or a single IDL file
        try:
            return get_types_from_msg(msgdef, msgtype)
        except Exception as not_msg:    # rosbags' parser errors: IDL, or a definition it cannot read
            try:
                return get_types_from_idl(_PREPROCESSOR_LINE.sub("", msgdef))
            except Exception:       # neither: the .msg parser's words, which most bags' definitions are
                raise not_msg from None
    given = {}
    for block in blocks[1:]:            # the text before the first block: nothing (rosbag2 starts with one)
        try:            # rosidl's files name the others with #include lines, which rosbags' parser refuses
            given.update(get_types_from_idl(_PREPROCESSOR_LINE.sub("", block)))
        except Exception:           # rosbags' parser errors: a block it cannot read
            continue
    return given


def _field_text(field):
    """A field of rosbags' parsed definitions as a .msg line says it: ``float64[] position``."""
    name, node = field

    def kind(node):
        if node[0] == 1:                           # Nodetype.BASE: (type, string bound; 0 for none)
            return node[1][0] + (f"<={node[1][1]}" if node[1][1] else "")
        if node[0] == 2:                           # Nodetype.NAME
            return node[1]
        inner, count = node[1]                     # Nodetype.ARRAY (3) / SEQUENCE (4): (element, size or bound)
        return f"{kind(inner)}[{count if node[0] == 3 else f'<={count}' if count else ''}]"
    try:
        return shown_name(f"{kind(node)} {name}")
    except (TypeError, IndexError):                # a node this reading does not know: its name alone
        return shown_name(str(name))


def deserializer(topic, entry, source):
    """rosbags' deserializer of a topic's message type (ROS 1 or CDR), its definition registered from the
    bag; an unusable definition is refused in one line. A type rosbags' store knows whose definition in the bag
    differs (another ROS distribution's, a field added) is decoded by the bag's definition alone, not the store's
    layout; one that cannot be is refused in one line."""
    from rosbags.typesys import Stores, get_typestore
    msgtype, ros1, _, msgdef = entry
    try:
        refuse_foreign_definition(topic, entry, source)
    except DataError as refusal:            # the bag's own types, in a store holding only the builtin times
        store = get_typestore(Stores.EMPTY)
        try:
            store.register(_parsed_definition(msgdef, msgtype))
            return store.deserialize_ros1 if ros1 else store.deserialize_cdr
        except Exception:                   # rosbags' errors: a dependency the definition does not carry
            raise refusal from None
    store = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    if msgtype not in store.types:
        try:
            store.register(_parsed_definition(msgdef, msgtype))
        except Exception as exc:         # rosbags' parser errors: an unusable definition
            raise DataError(f"{source}: topic {topic}: type {msgtype or 'unknown'}: no usable message definition "
                            f"in the bag ({_one_line(exc)})") from None
    return store.deserialize_ros1 if ros1 else store.deserialize_cdr


def deserialized(topic, entry, source):
    """(index in the topic, receive time in ns, stamp in s (0 without a header), message) of each message of a
    topic of any type, deserialized by rosbags one at a time; a message that does not deserialize comes as
    (index, time, None, the reason)."""
    msgtype = entry[0]
    deserialize = deserializer(topic, entry, source)
    for rows, log_times, indices in entry[2]:
        if isinstance(rows, tuple):            # a JointState topic, decoded as such by the reader
            raise DataError(f"{source}: topic {topic}: a JointState topic; name its position, velocity or effort")
        for i in range(rows.shape[0]):
            try:
                msg = deserialize(rows[i].tobytes(), msgtype)
            except Exception as exc:     # rosbags raises struct, index and value errors on bad bytes
                yield int(indices[i]), int(log_times[i]), None, _one_line(exc)
                continue
            stamp = getattr(getattr(msg, "header", None), "stamp", None)
            if stamp is not None and stamp.nanosec >= NANOSECONDS:
                yield int(indices[i]), int(log_times[i]), None, stamp_problem(stamp.nanosec)
                continue
            seconds = stamp.sec + stamp.nanosec * 1e-9 if stamp is not None else 0.0
            yield int(indices[i]), int(log_times[i]), seconds, msg


def _decode_generic(topic, entry, path, source):
    """A numeric array field (``path``, dotted) of any message type, through rosbags' deserializers
    (one message at a time): a stream whose joints are named later (the robot's, in its order)."""
    msgtype = entry[0]
    kept, damaged = [], []          # (stamp, receive time, index, values) of each message read
    for index, log_time, stamp, msg in deserialized(topic, entry, source):
        if stamp is None:
            damaged.append((topic, index, msg))
            continue
        value = msg
        for part in path.split("."):
            if not hasattr(value, part):
                raise DataError(f"{source}: topic {topic}: type {msgtype} has no field {shown(path)}")
            value = getattr(value, part)
        try:
            arr = np.asarray(value, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise DataError(f"{source}: topic {topic}: field {path}: not numbers") from None
        kept.append((stamp, log_time, index, arr))
    if not kept:
        raise DataError(f"{source}: topic {topic}: no readable messages")
    stamps, received, order, values = zip(*kept)
    sizes = np.array([v.size for v in values])
    width = int(np.bincount(sizes).argmax())       # the size most messages have (pieces come by byte size)
    ok = sizes == width
    damaged += [(topic, order[i], f"{path}: {sizes[i]} values, the others have {width}") for i in np.flatnonzero(~ok)]
    return _Stream(topic, None, np.array(stamps)[ok], _ns_to_s(np.array(received)[ok]), np.array(order)[ok],
                   {path: np.vstack([v for v, good in zip(values, ok) if good])}), damaged


def _kind(raw, topic):
    """How messages call a topic's messages: 'JointState' or the type's short name."""
    msgtype = raw.get(topic, ("",))[0]
    return "JointState" if msgtype in JOINT_STATE else (msgtype.rsplit("/", 1)[-1] or "message")


def _label(msg_field):
    return f"{msg_field[0]}:{msg_field[1]}" if isinstance(msg_field, tuple) else msg_field


def _ns_to_s(ns):
    ns = np.asarray(ns, dtype=np.int64)
    return (ns // 1_000_000_000).astype(np.float64) + (ns % 1_000_000_000).astype(np.float64) * 1e-9


def _with_clock(stream, clock, source, notes, damaged=None):
    """The stream with its times on the chosen clock (the receive clock when its header stamps are all zero),
    sorted by them.

    Header stamps may come out of order (publishers merged on one topic), and are sorted with a note. Receive
    times are the recorder's, taken as each message of the topic arrived and stored in that order: one that goes
    back in the topic's file order is a damaged time (or the recorder's clock stepped back), and sorting it moved
    its values elsewhere in the motion with a note only. Such messages are damaged ones, found as a CSV's late rows
    are (:func:`._rows._time_problems`): appended to ``damaged`` as (topic, index, reason) and left out, or, when
    ``damaged`` is None, refused in one line. (rosbags gives a bag's messages sorted by time; a sqlite3 bag's are
    numbered in its rows' order, a ROS 1 bag's in its chunks' and their index data's: ``_bag_files``.) A header
    stamp left zero after stamped messages is damaged alike (:func:`_unset_stamps`), and so is a time far from the
    messages received next to it (:func:`_times_apart`)."""
    if clock == "header" and not stream.stamps.any():
        notes.append(f"{source}: topic {stream.topic}: header stamps all zero; its receive times are used")
        clock = "receive"
    if clock == "receive":
        stream = _receive_order(stream, source, damaged)
    else:
        stream = _unset_stamps(stream, source, damaged)
    stream = _times_apart(stream, clock, source, damaged)
    times = stream.stamps if clock == "header" else stream.received
    if (times[1:] >= times[:-1]).all():          # in order already (the usual case): no copies
        return replace(stream, stamps=times, clock=clock)
    late = int((np.diff(times) < 0).sum())
    notes.append(f"{source}: topic {stream.topic}: {late} messages out of order on the {clock} clock, sorted")
    order = np.argsort(times, kind="stable")
    return _messages(stream, order, stamps=times[order], clock=clock)


def _one_clock(used, receive, source, notes):
    """{id(stream): the stream on the receive clock} for the header-stamped ones of the streams ``used`` when
    others of them are on the receive clock (a topic without header stamps: Float64MultiArray currents, a publisher
    that leaves them zero), with a note naming both; {} when all are on one clock. Header stamps and receive times
    differ by the transport lag (ms, varying): values of one clock interpolated at times of the other were shifted
    by it, a torque against the motion of another instant, with only a note that the unstamped topic's receive
    times were used. All on the receive clock, the lag is common to the topics (the recorder's), as with
    clock='receive'."""
    if len({s.clock for s in used}) < 2:
        return {}
    stamped = [s for s in used if s.clock == "header"]
    unstamped = sorted({s.topic for s in used if s.clock == "receive"})
    notes.append(two_clocks_note(source, sorted({s.topic for s in stamped}), unstamped))
    return {id(s): receive(s) for s in stamped}


def two_clocks_note(source, stamped, unstamped):
    """The note, one line, of the ``stamped`` topics (names) read on their receive times because the ``unstamped``
    ones have no header stamps: what was done and why (the two clocks differ by the transport lag)."""
    verb = "has" if len(unstamped) == 1 else "have"
    return (f"{source}: {shown_names(stamped)} read on receive times, not header stamps, as {shown_names(unstamped)} "
            f"{verb} none: one clock for all topics (the two clocks differ by the transport lag)")


def _messages(stream, index, **changes):
    """The stream's messages at ``index`` (an order or a mask), each of its arrays taken alike, with ``changes``."""
    return replace(stream, **{"stamps": stream.stamps[index], "received": stream.received[index],
                              "order": stream.order[index],
                              "arrays": {f: (a[index] if a is not None else None) for f, a in stream.arrays.items()},
                              **changes})


def _receive_order(stream, source, damaged):
    """The stream without the messages whose receive time goes back in the topic's file order (:func:`_with_clock`)."""
    files = np.argsort(stream.order, kind="stable")
    if (np.diff(stream.received[files]) >= 0).all():
        return stream
    table = _Table(source, "message", stream.order[files], {"t": stream.received[files, None]}, [], {},
                   apart_ends=False)          # its ends judged with the header stamps: _times_apart
    late = {int(stream.order[files[r]]): f"receive time out of the recorder's order: {reason}"
            for r, reason in _time_problems(table, np.ones(files.size, dtype=bool)).items()
            if "duplicate" not in reason}    # one time twice is no order: refused later, on either clock
    if not late:
        return stream
    if damaged is None:
        index, reason = min(late.items())
        raise DataError(f"{source}: topic {stream.topic}: message {index}: {reason}")
    damaged += [(stream.topic, index, reason) for index, reason in sorted(late.items())]
    return _messages(stream, ~np.isin(stream.order, list(late)))


def _unset_stamps(stream, source, damaged):
    """The stream without the messages whose header stamp is zero after a stamped message in the topic's file order
    (:func:`_with_clock`): ROS's time zero, a stamp left unset (a publisher that stamps some messages only, or two
    publishers of whom one does not stamp); sorted to the start, the first such message would be kept at 0 s with the
    values of a later instant (the others dropped as duplicate times). A simulation's clock starting at 0 s stamps
    its first messages zero, before any other: those are kept."""
    files = np.argsort(stream.order, kind="stable")
    stamps = stream.stamps[files]
    stamped = np.flatnonzero(stamps)
    unset = (stamps == 0) & (np.arange(stamps.size) > stamped[0]) if stamped.size else None
    if unset is None or not unset.any():
        return stream
    indices = stream.order[files][unset]
    reason = "header stamp zero (unset) after stamped messages"
    if damaged is None:
        raise DataError(f"{source}: topic {stream.topic}: message {int(indices[0])}: {reason}")
    damaged += [(stream.topic, int(index), reason) for index in indices]
    return _messages(stream, ~np.isin(stream.order, indices))


# A header stamp this many times its two neighbours' own step (two typical steps) from each of them, out and back,
# is damaged (:func:`_out_and_back`): 0.4 s at 100 Hz; a publisher's stamps in receive order jitter by a few steps.
_OUT_AND_BACK = 20
# Times side by side at most that move out and back together (:func:`_out_and_back`).
_MOVED_TOGETHER = 3
# A step of a clock beyond this many of its typical (median) steps is a pause on that clock (:func:`_times_apart`).
_PAUSE = 10


def _times_apart(stream, clock, source, damaged):
    """The stream without the messages whose time on ``clock`` is far from those received next to it
    (:func:`_with_clock`), found in the topic's file order (the order the recorder received them).

    A bit flipped in a header stamp's seconds moved its message 8 s to 10⁹ s away: sorted to an end of the log with a
    note only, or, within a second's nanoseconds, among messages of another instant. A header stamp is damaged when
    it is more than :data:`_OUT_AND_BACK` times both the stream's typical step and its two neighbours' own step from
    each of them, on one side of both (out and back): one publisher's stamps follow its receive order, give or take
    the transport's jitter of a few steps; a clock restart stays where it went. At either end of the file, with one
    neighbour, the time must be apart (:func:`._rows.apart_ends`) on its clock while the other clock (receive
    times, or the header stamps of a stream read on receive times) shows no pause there (:data:`_PAUSE`): the
    recorder received it among the others (a driver restarted after its first message is a pause on both clocks,
    read as before); receive times are so judged only on the header stamps' timeline (:func:`_one_timeline`: a
    simulation paused stops its stamps, not the recorder's clock). Damaged messages are appended to ``damaged`` and
    left out, or refused when it is None."""
    files = np.argsort(stream.order, kind="stable")
    times, other = ((stream.stamps, stream.received) if clock == "header" else (stream.received, stream.stamps))
    times, other = times[files], other[files]
    apart = list(_out_and_back(times)) if clock == "header" else []
    if other.any() and (clock == "header" or _one_timeline(times, other)):
        apart += [k for k in apart_ends(times) if not _pause_at(other, k)]
    if not apart:
        return stream
    indices = {int(stream.order[files[k]]): _time_far(times, k, clock, set(apart)) for k in apart}
    if damaged is None:
        index = min(indices)
        raise DataError(f"{source}: topic {stream.topic}: message {index}: {indices[index]}")
    damaged += [(stream.topic, index, reason) for index, reason in sorted(indices.items())]
    return _messages(stream, ~np.isin(stream.order, list(indices)))


def _out_and_back(times):
    """Positions of the times (M,), in the recorder's order, each more than :data:`_OUT_AND_BACK` times both the
    typical step and its neighbours' own step away from both neighbours, on one side of both (:func:`_times_apart`);
    so are runs of up to :data:`_MOVED_TOGETHER` such times side by side (two stamps damaged alike moved together:
    each had a neighbour near it, and was sorted with it to an end of the log with a note only)."""
    if times.size < 3:
        return np.zeros(0, dtype=np.int64)
    steps = np.diff(times)
    typical = np.median(np.abs(steps))
    found = []
    for run in range(1, min(_MOVED_TOGETHER, times.size - 2) + 1):
        out, back = steps[:steps.size - run], steps[run:]
        span = np.maximum(np.abs(times[run + 1:] - times[:-run - 1]), typical)
        far = np.minimum(np.abs(out), np.abs(back))
        inside = np.zeros(out.size)             # the run's own steps: a few typical ones, the run moved as one
        for k in range(1, run):
            inside = np.maximum(inside, np.abs(steps[k:k + out.size]))
        moved = (np.sign(out) == -np.sign(back)) & (far > _OUT_AND_BACK * span) & (span > 0) & (inside <= span)
        starts = np.flatnonzero(moved) + 1
        found += [starts + k for k in range(run)]
    return np.unique(np.concatenate(found))


def _one_timeline(received, stamps):
    """Whether the receive times (M,) and the header stamps (M,) of a stream count on one timeline: their typical
    offset within the log's span on either clock. A simulation's stamps (seconds since it started) and a recorder's
    wall clock (since 1970) are not: paused, the simulation stops its stamps while the recorder's clock runs on, a
    pause of the receive times (at an end too) without one of the stamps (:func:`_times_apart`)."""
    offset = abs(float(np.median(received - stamps)))
    return offset <= np.ptp(received) + np.ptp(stamps)


def _pause_at(times, k):
    """Whether the times (M,) pause at their end ``k`` (0 or the last): a step there beyond :data:`_PAUSE` typical
    steps."""
    steps = np.abs(np.diff(times))
    return bool((steps[0] if k == 0 else steps[-1]) > _PAUSE * np.median(steps))


def _time_far(times, k, clock, apart):
    """The reason, one phrase, that the time ``k`` of ``times`` (M,) in the recorder's order, on ``clock``, is
    damaged (:func:`_times_apart`): its neighbours' times, how far it is from the nearer in typical steps; the
    neighbours are the nearest messages not among those ``apart`` (a run of times moved together)."""
    below, above = k - 1, k + 1
    while below in apart:
        below -= 1
    while above in apart:
        above += 1
    near = [j for j in (below, above) if 0 <= j < times.size]
    shown_times = distinct_seconds(times[k], *times[near])
    gap = min(abs(times[k] - times[j]) for j in near)
    steps = gap / np.median(np.abs(np.diff(times)))
    what = "header stamp" if clock == "header" else "receive time"
    return (f"{what} {shown_times[0]} s, {gap:.4g} s from the message{'s' if len(near) > 1 else ''} received next to "
            f"it ({', '.join(x + ' s' for x in shown_times[1:])}), {steps:.3g} times the topic's typical step: a "
            f"damaged {what.split()[-1]}")


def _exact_times(stream, extra, notes, source):
    """Times baseparam wrote beside the stamps (``baseparam/<topic>/t``: the float64 times, which a
    nanosecond stamp only rounds), used when they agree with the stamps; one present but not used is noted in
    ``notes`` (a list), naming ``source``."""
    name = f"baseparam{stream.topic}/t"
    t = extra.get(name)
    if t is None:
        return
    if t.size == stream.order.size:
        t = t[stream.order]
        # a stamp is t rounded to the ns, read back as sec + nanosec·1e-9 (a few ulp of t off for Unix times)
        if np.all(np.abs(t - stream.stamps) <= 0.5e-9 + 8 * np.spacing(np.abs(t))):
            stream.stamps = t
            return
    _unused(notes, source, name, "its times do not round to the messages' stamps" if t.size == stream.order.size
            else f"{t.size} times for {counted(stream.order.size, 'messages')}", "the stamps are the times")


def attached(extra, name, order, width, rows, notes, source):
    """An attachment of baseparam's writer (M·width float64 in message order) at the stream's sorted messages
    ``rows`` (``order``: their indices in the topic), or None; one present but of another size is noted in
    ``notes`` (a list; it was left out without a word: the accelerations then derived, a base wrench zero)."""
    values = extra.get(name) if extra else None
    if values is None:
        return None
    if values.size != order.size * width:
        _unused(notes, source, name, f"{values.size} values for {counted(order.size, 'messages')} of {width} values",
                None)
        return None
    return values.reshape(order.size, width)[order][rows]


def _unused(notes, source, name, why, instead):
    """Note in ``notes`` that the attachment ``name`` of ``source`` is not used, and why."""
    notes.append(f"{source}: attachment {printable(name)}: {why}; not used" + (f" ({instead})" if instead else ""))


def _joint_names(streams, joints, n_dof, source, notes):
    """The joints to read, in the robot's order; extra joints noted, missing ones refused."""
    seen = list(dict.fromkeys(n for s in streams for n in s.names))
    if joints is None:
        if n_dof is not None and len(seen) != n_dof:
            raise DataError(f"{source}: the log names {len(seen)} joints ({shown_names(seen)}), the robot has {n_dof}; "
                            "give the robot's joint names (joints=) to choose among them")
        return seen
    if n_dof is not None and len(joints) != n_dof:
        raise DataError(f"{source}: joints: {len(joints)} names for {n_dof} joints")
    return matched_joints(source, seen, joints, notes)


def _align(streams, names, fields, source, notes, clock, chosen, receive):
    """Every field's (n_samples, n_dof) array at the times of the stream giving most joints' positions (of those, the
    one of most messages, then fields); returns (data, ids into the base stream's sorted messages, base stream).
    ``chosen``: the log's JointState topics, of whose streams read for one field (:func:`_refuse_two_sources`) no two
    may give one joint's values of it; ``receive``: a stream put on the receive clock (:func:`_with_clock`), for
    :func:`_one_clock`."""
    pos = fields.get("q", "position")

    def provides(s, msg_field, j):
        topic, key = msg_field if isinstance(msg_field, tuple) else (s.topic, msg_field)      # TOPIC:FIELD or not
        return s.topic == topic and j in s.names and s.arrays.get(key) is not None

    # most joints' positions, then most messages, then most fields: on a tie of joints the stream decoded first was
    # taken, a few stray messages (a second publisher's, one without its velocity) setting the log's times and q
    base = max(streams, key=lambda s: (sum(provides(s, pos, j) for j in names), s.order.size,
                                       sum(a is not None for a in s.arrays.values())))
    _refuse_disagreeing_richer(base, streams, names, pos, provides, source)
    used = {}
    for field, msg_field in fields.items():
        sources = [next((s for s in [base] + streams if provides(s, msg_field, j)), None) for j in names]
        lacking = [j for j, s in zip(names, sources) if s is None]
        if field == "q" and lacking:
            raise DataError(f"{source}: joints {shown_names(lacking)}: no {_label(msg_field)} in the log")
        if len(lacking) == len(names):
            continue
        if lacking:
            if field == "qd":
                notes.append(f"{source}: velocity of {shown_names(lacking)} missing; velocities are derived instead")
                continue
            raise DataError(f"{source}: field {field}: joints {shown_names(lacking)} have no {_label(msg_field)} "
                            "in the log")
        used[field] = (msg_field, sources)
    others = {id(s): s for _, srcs in used.values() for s in srcs if s is not base}
    _refuse_two_sources(used, names, chosen, provides, source)
    moved = _one_clock([base, *others.values()], receive, source, notes)
    if moved:
        base, streams = moved.get(id(base), base), [moved.get(id(s), s) for s in streams]
        used = {f: (m, [moved.get(id(s), s) for s in srcs]) for f, (m, srcs) in used.items()}
        others = {id(s): s for _, srcs in used.values() for s in srcs if s is not base}
        clock = "receive"
    t = base.stamps
    ids = covered(t, [s.stamps for s in others.values()])
    tk = t[ids]
    data = {"t": tk}
    every = ids.size == t.size
    for field, (msg_field, sources) in used.items():
        key = msg_field[1] if isinstance(msg_field, tuple) else msg_field
        if all(s is base for s in sources):      # one stream: its columns in the robot's order, at once
            cols = [base.names.index(j) for j in names]
            values = base.arrays[key]
            if cols != list(range(values.shape[1])):
                values = values[:, cols]
            data[field] = values if every else values[ids]
            continue
        out = np.empty((tk.size, len(names)))
        for k, (j, s) in enumerate(zip(names, sources)):
            values = s.arrays[key][:, s.names.index(j)]
            out[:, k] = values[ids] if s is base else _interp(tk, s.stamps, values)
        data[field] = out
    if others:
        rates = ", ".join(f"{s.topic} [{len(s.names)} joints] ({_rate(s.stamps)})" for s in others.values())
        dropped = t.size - ids.size
        notes.append(f"{source}: aligned on {clock} stamps: {rates} linearly interpolated at the times of {base.topic} "
                     f"({_rate(t)})" + (f"; {counted(dropped, 'samples')} outside the span all topics cover "
                                                        "dropped" if dropped else ""))
    else:
        notes.append(f"{source}: times: {clock} stamps of {base.topic} ({_rate(t)})")
    for s in streams:                   # messages naming other joint sets, read but not needed: said, not lost
        if s is not base and id(s) not in others and any(n in names for n in s.names):   # a gripper's: noted above
            notes.append(f"{source}: {s.order.size} messages of {s.topic} naming {shown_names(list(s.names))} not used "
                         f"(the samples are those of the messages naming {shown_names(list(base.names))})")
    return data, ids, base


def _fields_of(stream):
    return [f for f, a in stream.arrays.items() if a is not None]


# the end of a refusal of two publishers' positions on one topic
_ONE_PUBLISHER = ("expected one publisher of the joints' positions on a topic (two publishers? remove the other's "
                  "messages)")


def _refuse_disagreeing_richer(base, streams, names, pos, provides, source):
    """DataError when a stream of ``base``'s topic giving the same joints' positions and more fields than ``base``
    (which sets the times for its more messages) disagrees with ``base``'s positions where both cover the time: a
    second publisher of positions alone (a GUI's sliders, all 0) with more messages than the driver's full stream
    would set the log's times and q (zeros), the driver's velocities and efforts interpolated at them, exit 0. Two
    publishers of one motion agree (to the motion's own steps between samples) and are read, on ``base``'s times."""
    joints = [j for j in names if provides(base, pos, j)]
    key = _field_key(pos)
    for other in streams:
        if (other is base or other.topic != base.topic or len(_fields_of(other)) <= len(_fields_of(base))
                or not all(provides(other, pos, j) for j in joints)):
            continue
        worst = _worst_disagreement(base, other, joints, key)
        if worst is not None:
            j, gap, t = worst
            raise DataError(f"{source}: joint {shown_name(j)}: the {counted(base.order.size, 'messages')} of "
                            f"{printable(base.topic)} with {', '.join(_fields_of(base))} and its "
                            f"{counted(other.order.size, 'messages')} with {', '.join(_fields_of(other))} give "
                            f"positions {gap:.6g} apart at t={t:.9g} s; {_ONE_PUBLISHER}")


_FLOAT32_EPS = float(np.finfo(np.float32).eps)


def _worst_disagreement(base, other, joints, key):
    """(joint, gap, time) of the largest gap between ``other``'s positions and ``base``'s interpolated at its times
    (within both spans), when it exceeds the steps of the two streams between their samples (the most interpolation
    can miss) and float32 rounding, else None."""
    inside = (other.stamps >= base.stamps.min()) & (other.stamps <= base.stamps.max())
    if not inside.any():
        return None
    worst = None
    order, their_order = np.argsort(base.stamps, kind="stable"), np.argsort(other.stamps, kind="stable")
    for j in joints:
        mine, theirs = base.arrays[key][:, base.names.index(j)], other.arrays[key][:, other.names.index(j)]
        steps = [np.abs(np.diff(v[o])).max(initial=0.0) for v, o in ((mine, order), (theirs, their_order))]
        # and their rounding: a publisher of float32 values (a bridge, a GUI) agrees to 1.2e-7, which a joint held
        # still (no step to allow for) refused at 1e-9
        tolerance = sum(steps) + _FLOAT32_EPS * (1.0 + max(np.abs(v).max(initial=0.0) for v in (mine, theirs)))
        gaps = np.abs(theirs[inside] - _interp(other.stamps[inside], base.stamps[order], mine[order]))
        k = int(np.argmax(gaps))
        if gaps[k] > tolerance and (worst is None or gaps[k] > worst[1]):
            worst = (j, float(gaps[k]), float(other.stamps[inside][k]))
    return worst


def _field_key(entry):
    """The message field of a field map's ``entry`` (a JointState field, or TOPIC:FIELD as (topic, field))."""
    return entry[1] if isinstance(entry, tuple) else entry


_SERIES_GAP = 1e-2      # rad or m: two series of one joint's positions closer than this are not told from its steps
_MIN_RETURNS = 3        # returns to a series left: a publisher's restart leaves one series for the next, never back
_GAP_TO_STEPS = 10      # a joint's series apart by this many times their typical steps: not one motion's samples
_SPLIT_WINDOW = 20_000  # messages split into series at a time, window after window over the whole log
_SPIKE_ROWS = 1 << 16   # messages looked at for spikes at a time
_NEAR_INTERVALS = 4     # a series' messages this many of its typical intervals apart: it runs between them
_ONE_CLOCK = 0.2        # typical intervals into and out of a series this close (relative): one publisher's clock


def _refuse_interleaved_publishers(stream, key, joints, source):
    """DataError when the messages of ``stream`` (one topic, one set of joints and fields, sorted by time) alternate
    between two series of positions ``key`` of the ``joints`` read: two publishers of the same joints and fields on
    one topic (a GUI's sliders beside the driver, two robots of one namespace) were merged into one stream, q
    alternating between the motion and zeros, exit 0. A ROS 2 bag keeps no publisher per message, so the series are
    told apart by their values (:func:`_two_series`), then refused when a joint's series, where both run, are
    typically apart by more than :data:`_SERIES_GAP` and :data:`_GAP_TO_STEPS` times their typical steps
    (:func:`_joints_apart`). A publisher restarted (one series after the other), one motion from two publishers (one
    series), a continuous joint wrapping at ±π and a motion sampled coarsely (its series' steps as large as their
    gap) are read as one stream; so are a joint vibrating near the Nyquist rate and a gripper toggled at every sample
    (:func:`_one_publisher`). The whole log is judged, a window of :data:`_SPLIT_WINDOW` messages at a time, each
    from before the first spike after the last (:func:`_spikes`): the cost grows with the log's length, the memory
    with the window's (judging one window alone would miss a second publisher later in a log, or after a joint's
    spike of noise)."""
    stream = _positions_of(stream, key, joints)
    if stream is None or stream.order.size < 2 * _MIN_RETURNS + 2:
        return
    values, start = stream.arrays[key], 0
    while start < values.shape[0] - 2:
        spikes = _spikes(values[start:start + _SPLIT_WINDOW])
        if spikes.size:         # a window from before its first spike: a second publisher's messages from there on
            start += int(spikes[0])
            _refuse_two_series(_messages(stream, slice(start, start + _SPLIT_WINDOW)), key, source)
        start += _SPLIT_WINDOW


def _refuse_two_series(window, key, source):
    """DataError when the messages ``window`` (of one stream, in time order) split into two series of positions
    ``key`` apart (:func:`_refuse_interleaved_publishers`)."""
    values = window.arrays[key]
    if _spikes(values).size < _MIN_RETURNS:
        return
    series = _two_series(values)
    if series is None:
        return
    first, second = (_messages(window, series == k) for k in (0, 1))
    apart = _joints_apart(first, second, window.names, key)
    if not apart or _one_publisher(series, window.stamps, apart, window.names):
        return
    j, gap, steps = max(apart, key=lambda entry: entry[1] / max(entry[2], np.finfo(float).tiny))
    raise DataError(f"{source}: topic {printable(window.topic)}: its messages naming "
                    f"{shown_names(list(window.names))} alternate between two series of positions (of "
                    f"{counted(window.order.size, 'messages')} from t={window.stamps[0]:.9g} s, "
                    f"{first.order.size} in one and {second.order.size} in the other; joint {shown_name(j)}: "
                    f"typically {gap:.6g} apart, in steps of {steps:.3g}); {_ONE_PUBLISHER}")


def _positions_of(stream, key, joints):
    """``stream`` with its positions ``key`` of the ``joints`` read alone (a gripper's left aside), or None (none)."""
    values = stream.arrays.get(key)
    columns = [k for k, j in enumerate(stream.names) if j in joints]
    if values is None or not columns:
        return None
    return replace(stream, names=tuple(stream.names[k] for k in columns), arrays={key: values[:, columns]})


def _spikes(values):
    """The indices of the messages before each message of ``values`` (M, n) one of whose joints is more than
    :data:`_SERIES_GAP` above, or below, both its neighbours: the cheap sign of two series interleaved (a smooth
    motion turns back with small steps), before they are looked for message by message."""
    found = []
    for start in range(1, len(values) - 1, _SPIKE_ROWS):        # blocks: temporaries of a few MB, not the log's size
        stop = min(start + _SPIKE_ROWS, len(values) - 1)
        before, after = values[start:stop] - values[start - 1:stop - 1], values[start:stop] - values[start + 1:stop + 1]
        spikes = (((before > _SERIES_GAP) & (after > _SERIES_GAP)) |
                  ((before < -_SERIES_GAP) & (after < -_SERIES_GAP)))
        found.append(start - 1 + np.flatnonzero(spikes.any(axis=1)))
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


def _two_series(values):
    """Each message's series (0 or 1, (M,)) when the positions ``values`` (M, n, in time order) split into two
    series left and taken up again at least :data:`_MIN_RETURNS` times, else None. A message joins the series whose
    last positions are nearest (the largest joint's gap), the second started by the first message more than
    :data:`_SERIES_GAP` from the first's. One of the two is the message before's, its gaps taken in numpy
    (:func:`_largest_gaps`); the other's is the same message while no message changes series: a long run of messages
    is judged in blocks (:func:`_run_end`), not a message at a time."""
    values = np.asarray(values, dtype=np.float64)
    before = _largest_gaps(values)
    split = (values, before, before.tolist(), _largest_gaps(values, 2).tolist())
    series = np.zeros(len(values), dtype=np.uint8)
    second = np.flatnonzero(before > _SERIES_GAP)        # the first series alone until then
    k = int(second[0]) if second.size else len(values)
    last, current = [k - 1, k], 1
    while k < len(values):
        series[k], last[current] = current, k
        end = _run_end(split, k + 1, last[1 - current], current)
        series[k + 1:end] = current
        last[current], current, k = end - 1, 1 - current, end
    returns = int((np.diff(series) != 0).sum()) // 2
    return series if returns >= _MIN_RETURNS and min(np.bincount(series, minlength=2)) >= _MIN_RETURNS else None


_RUN_ROWS = 8           # messages of a run judged one at a time in Python floats, then in numpy blocks from this size


def _run_end(split, k, other, current):
    """The first message from ``k`` on that leaves the series ``current`` for the other, whose last message is
    ``other`` (:func:`_two_series`): nearer that message than the one before it (series 0 left on a smaller gap, series
    1 on a gap not larger); the number of messages when none does. ``split``: the positions (M, n), each message's
    largest gap to the one before (M,) as an array and as a list, and to the one two before (a list: a series left
    after one message, as a joint vibrating near Nyquist leaves it at every message). Gaps as Python's ``max`` of a
    message's joint gaps gives them (:func:`_largest_gaps`; ``np.fmax`` skips every NaN, the first one kept). The
    first few messages one at a time: a run is often short."""
    values, before, ahead, beyond = split
    stop, last = min(k + _RUN_ROWS, len(values)), None
    for j in range(k, stop):
        if j - other == 2:
            gap = beyond[j]
        else:
            last = values[other].tolist() if last is None else last
            gap = max([abs(x - y) for x, y in zip(values[j].tolist(), last)])
        if (gap < ahead[j]) if current == 0 else not ahead[j] < gap:
            return j
    k, size = stop, _RUN_ROWS
    while k < len(values):
        with np.errstate(invalid="ignore"):         # inf - inf: NaN, as in Python floats
            gaps = np.abs(values[k:k + size] - values[other])
        gap = np.fmax.reduce(gaps, axis=1)
        gap[np.isnan(gaps[:, 0])] = np.nan
        leaves = np.flatnonzero(gap < before[k:k + size] if current == 0 else ~(before[k:k + size] < gap))
        if leaves.size:
            return k + int(leaves[0])
        k, size = k + size, 2 * size
    return len(values)


def _largest_gaps(values, lag=1):
    """Each message's largest joint gap to the message ``lag`` before (M,; 0 for the first ``lag``), as Python's
    ``max`` of the gaps gives it: a NaN first among them kept, after another skipped (``max([nan, 1])`` is nan,
    ``max([1, nan])`` 1)."""
    largest = np.zeros(len(values))
    if len(values) > lag:
        with np.errstate(invalid="ignore"):         # inf - inf: NaN, as in Python floats
            gaps = np.abs(values[lag:] - values[:-lag])
        largest[lag:] = gaps.max(axis=1) if not np.isnan(gaps).any() else [max(row) for row in gaps.tolist()]
    return largest


def _joints_apart(first, second, names, key):
    """[(joint, median gap, median steps)] of the joints whose two series (streams ``first`` and ``second`` of one
    topic) are apart for their steps: the median gap between ``second``'s positions and ``first``'s interpolated at
    its times (where ``first`` runs, :func:`_beside`; unwrapped, then modulo 2π, a continuous joint's angle wrapped
    at ±π being one position) exceeds :data:`_SERIES_GAP` and :data:`_GAP_TO_STEPS` times the sum of the two series'
    median steps. Medians: a motion sampled coarsely splits into series of its highs and lows, apart by about their
    own steps, where two publishers' series are apart by far more than theirs."""
    inside = _beside(second.stamps, first.stamps)
    if inside.sum() < _MIN_RETURNS:
        return []
    apart = []
    for k, j in enumerate(names):
        mine, theirs = first.arrays[key][:, k], second.arrays[key][:, k]
        gaps = np.abs(theirs[inside] - _interp(second.stamps[inside], first.stamps, _unwrapped(mine)))
        gap = _finite_median(np.abs(gaps - 2 * np.pi * np.round(gaps / (2 * np.pi))))
        steps = sum(_finite_median(np.abs(np.diff(v))) for v in (mine, theirs))
        if gap > _SERIES_GAP and gap > _GAP_TO_STEPS * steps:
            apart.append((j, gap, steps))
    return apart


def _one_publisher(series, stamps, apart, names):
    """Whether the two series of messages ``series`` (M,) at ``stamps`` (M,) are one publisher's samples: some joint
    of ``names`` is not among those ``apart`` (one motion seen in it), and the messages pass from one series to the
    other and back after about the same typical interval (one clock; two publishers' messages interleave at their own
    rates and offsets: 3 ms into one, 7 ms back). A joint vibrating at 0.9 to 0.99 of the Nyquist rate (samples of
    alternate sign about a slow envelope), a gripper toggled at every sample: refused before."""
    if len(apart) == len(names):
        return False
    changes = np.flatnonzero(series[1:] != series[:-1])
    intervals = np.diff(stamps)[changes]
    into, back = (intervals[series[changes] == k] for k in (0, 1))
    if into.size < _MIN_RETURNS or back.size < _MIN_RETURNS:
        return False
    a, b = _finite_median(into), _finite_median(back)
    return min(a, b) > 0 and abs(a - b) <= _ONE_CLOCK * max(a, b)      # two publishers' equal stamps: no clock


def _beside(times, others):
    """Which of ``times`` (sorted) lie between two of the sorted ``others`` at most :data:`_NEAR_INTERVALS` of their
    median intervals apart: where the series ``others`` runs, not across a time it was left (one motion's noise can
    split it into series of which one is left for seconds, its positions then interpolated across the motion)."""
    after = np.searchsorted(others, times, side="left")
    inner = (after > 0) & (after < others.size)
    intervals = np.diff(others)
    typical = _finite_median(intervals[intervals > 0])
    bracket = np.full(times.shape, np.inf)
    bracket[inner] = others[after[inner]] - others[after[inner] - 1]
    exact = np.isin(times, others)
    return exact | (bracket <= _NEAR_INTERVALS * typical)


def _unwrapped(angles):
    """``angles`` (1-D) with their jumps of more than π unwrapped (``np.unwrap``) among the finite ones alone: a
    continuous joint interpolated across its wrap at ±π passes through its angles, not through 0 (nor NaN after a
    NaN)."""
    finite = np.isfinite(angles)
    unwrapped = angles.copy()
    unwrapped[finite] = np.unwrap(angles[finite])
    return unwrapped


def _finite_median(values):
    """The median of the finite ``values`` (1-D), 0.0 when none is (no warning of numpy's for an empty median)."""
    values = values[np.isfinite(values)]
    return float(np.median(values)) if values.size else 0.0


def _refuse_two_sources(used, names, chosen, provides, source):
    """DataError when a joint's plain JointState field (``used[field] = (msg_field, sources)``, ``sources`` one stream
    per joint of ``names``) is given by another stream of the ``chosen`` topics read for that field too: the messages
    of ``/arm`` naming a, b, c and of ``/extra`` naming a, d (read for d) gave a two positions, and the first stream's
    was taken without a word, as a CSV's joint named twice is refused. A stream read for other fields only (an arm
    driver's velocities and efforts beside a merged /joint_states of positions, a torque topic a column map names) or
    for none (a driver's messages of fewer joints before it named them all, noted by :func:`_align`) offers no
    choice of this field's values: not refused."""
    for msg_field, sources in used.values():
        if isinstance(msg_field, tuple):        # TOPIC:FIELD: one topic named by the column map
            continue
        streams = list({id(s): s for s in sources if s.topic in chosen}.values())    # those read for this field
        for j, taken in zip(names, sources):
            other = next((s for s in streams if s is not taken and provides(s, msg_field, j)), None)
            if other is not None:
                raise DataError(f"{source}: joint {shown_name(j)}: its {msg_field} is in the messages of "
                                f"{printable(taken.topic)} naming {shown_names(list(taken.names))} and in those of "
                                f"{printable(other.topic)} naming {shown_names(list(other.names))}; which is the "
                                "joint's is not known (read one topic with topic=)")


def covered(t, streams):
    """Indices of the times ``t`` within the span of every stream's sorted times (each of ``streams``): where
    interpolating them needs no extrapolation."""
    keep = np.ones(t.size, dtype=bool)
    for ts in streams:
        keep &= (t >= ts[0]) & (t <= ts[-1])
    return np.flatnonzero(keep)


def _interp(t, ts, values):
    """Linear interpolation of a stream at times t (repeated stamps: their last value)."""
    if ts.size > 1 and not (np.diff(ts) > 0).all():
        last = np.append(np.diff(ts) > 0, True)
        ts, values = ts[last], values[last]
    return np.interp(t, ts, values)


def _rate(t):
    if t.size < 2:
        return f"{t.size} message"
    step = float(np.median(np.diff(t)))
    return f"{t.size} messages, {1.0 / step:.4g} Hz" if step > 0 else f"{t.size} messages"
