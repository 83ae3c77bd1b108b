"""The raw messages of a ROS bag, per topic, before any decoding.

``{topic: [msgtype, ros1, pieces, msgdef]}`` with ``pieces`` a list of ``(rows, log_times, order)``:
``rows`` the (k, L) uint8 messages of one size (or, for JointState topics of MCAP files, what
:func:`~baseparam.identification._cdr.decode_rows` made of them, decoded chunk by chunk),
``log_times`` (k,) the recorder's receive times in ns, ``order`` (k,) each message's index in its
topic's file order; ``msgdef`` the message definition the bag carries. Sources: an ``.mcap`` file
(:mod:`~baseparam.identification._mcap`), a ROS 2 bag folder with MCAP storage (its files in
``metadata.yaml`` order, through the same reader), and through ``rosbags`` a folder with sqlite3 or
compressed storage or a ROS 1 ``.bag``.
"""
from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

import numpy as np

from .._leftovers import remove_stale_folders, run_folder_names, run_prefix
from .._output_names import free_space
from .._checks import check_instance, not_utf8, read_bounded, refuse_special, shown, within
from .._warnings import ignored, recorded, warn
from ..errors import DataError, DataWarning, printable
from . import _mcap
from ._cdr import JOINT_STATE, decode_rows
from ._file_bytes import FileBytes
from ._mcap import _ALLOWANCE, _MAX_RATIO, chunk_size_problem
from ._record import _one_line


def read_raw(path, source, named=(), types=()):
    """The raw messages of a bag, ``(raw, extra, problem, notice)``: ``raw`` as the module says, ``extra`` the
    float64 attachments of baseparam's writer (name → array) or None, ``problem`` what stopped the reading (the
    messages before it kept) or None, ``notice`` what else the reader has to say or None. An ``.mcap`` file and a
    bag folder with MCAP storage hold every topic's messages; through rosbags (sqlite3 or compressed folders, ROS 1
    ``.bag``) only those of the JointState topics, of the ``named`` topics and of the message types ``types``
    (written as ``nav_msgs/Odometry``), which it deserializes one by one."""
    if os.path.isdir(path):
        # its metadata and files checked (parsed once) before any reader opens them
        info = check_bag_folder(path, source, tuple(named), tuple(types))
        # uncompressed MCAP storage by the fast reader, any other through rosbags
        packed = info and (info.get("compression_mode") or info.get("compression_format"))
        files = () if packed else _storage_files(path, info, "mcap", ".mcap")
        contents = (_read_mcap_folder(files, source) if files else
                    _read_rosbags(path, source, named, types, _storage_files(path, info, "sqlite3", ".db3")))
        # the topics rosbags reads, of either storage: another topic's count says nothing of the log (and of one
        # recorded by rosbag2 before its cache fix, counts the messages its full cache dropped)
        return _checked_counts(contents, info, lambda msgtype, topic: _wanted(msgtype, topic, named, types))
    elif Path(source).suffix.lower() != ".bag":
        return _read_mcap(path, source)
    return _read_rosbags(path, source, named, types)


def _checked_counts(contents, info, read):
    """:func:`read_raw`'s ``contents`` of a bag folder, a problem added when the messages of a topic read (``read(
    msgtype, topic)``: of either storage, the topics rosbags reads) are not as many as the folder's metadata
    ``info`` counts (``topics_with_message_count``): a message or a whole file of a split bag lost (a row deleted,
    a file left out of ``relative_file_paths``), or one repeated, reads as a shorter or longer log and only those
    counts tell. More messages than counted are refused; fewer are said in the notice, as rosbag2 before its cache
    fix counted a message when handed to its cache, and a full cache dropped it: such a bag is as recorded (its
    header stamps show the gaps). Counts of 0 throughout are a recorder's that was stopped before it wrote them
    (rosbag2 fills them in when it closes the bag): nothing is checked then, as nothing is without metadata."""
    raw, extra, problem, notice = contents
    topics = (info or {}).get("topics_with_message_count")
    if problem or not isinstance(topics, list):
        return contents
    declared = {}
    for entry in topics:
        meta = entry.get("topic_metadata") if isinstance(entry, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("name"), str) and _is_count(entry.get("message_count")):
            declared[meta["name"]] = (declared.get(meta["name"], (0,))[0] + entry["message_count"],
                                      meta.get("type") if isinstance(meta.get("type"), str) else "")
    if not any(n for n, _ in declared.values()):
        return contents
    lost = []
    for topic in sorted(set(declared) | set(raw)):
        count, msgtype = declared.get(topic, (0, raw.get(topic, ("",))[0]))
        if not read(raw.get(topic, (msgtype,))[0], topic):
            continue
        found = sum(len(times) for _, times, _ in raw[topic][2]) if topic in raw else 0
        if found > count:
            problem = (f"topic {printable(topic)}: {found} messages read, metadata.yaml counts {count}: a message or a "
                       "file repeated")
            return raw, extra, problem, notice
        if found < count:       # said, not refused: rosbag2 before its cache fix wrote such counts of a valid bag
            lost.append(f"topic {printable(topic)}: {found} messages read, metadata.yaml counts {count}: messages "
                        "lost (a file or a row of the bag, or dropped by a recorder whose full cache it counted)")
    return raw, extra, problem, "; ".join(([notice] if notice else []) + lost) or None


def is_bag(path) -> bool:
    """Whether ``path`` is a ROS bag folder (holding ``metadata.yaml``)."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, "metadata.yaml"))


def refuse_non_bag_folder(path, source):
    """DataError for a folder that is no ROS 2 bag (no ``metadata.yaml``), in the trajectory readers' words (the
    floating-base reader said rosbags' "Expected metadata file 'FOLDER' does not exist")."""
    if os.path.isdir(path) and not is_bag(path):
        raise DataError(f"{source}: a folder, but not a ROS 2 bag (no metadata.yaml in it)")


def _read_mcap(path, source):
    def decode_now(c, rows, log_times, order):
        """JointState messages decoded chunk by chunk: the decompressed chunk is freed at once."""
        topic, encoding, sid = contents.channels.get(c, ("", "", None))
        if contents.schemas.get(sid, ("",))[0] in JOINT_STATE:
            if encoding not in ("cdr", "ros1"):
                # JSON or protobuf bytes parsed as CDR were 'damaged (unknown CDR encapsulation 7b22)': say what
                return ([], [(i, f"message encoding {shown(printable(encoding))}; JointState is read in cdr or ros1")
                             for i in range(rows.shape[0])]), log_times, order
            return (decode_rows(rows, encoding == "ros1"), log_times, order)
        return rows, log_times, order

    contents = _mcap.Contents(transform=decode_now)
    try:
        stream = open(path, "rb")
    except OSError as exc:
        raise DataError(f"{source}: cannot read: {exc.strerror or _one_line(exc)}") from None
    # read by pread, not mapped: a file another process cut short while it was mapped killed the reader by SIGBUS
    with stream:
        _mcap.read(FileBytes.of(stream, f"{source}: cannot read as MCAP"), contents)
    _refuse_unreadable(contents, source, nothing_read=not contents.channels and not contents.pieces)
    raw = {}
    for cid, (topic, encoding, sid) in contents.channels.items():
        msgtype, _, msgdef = contents.schemas.get(sid, ("", "", b""))
        raw.setdefault(topic, [msgtype, encoding == "ros1", [], msgdef.decode("utf-8", "replace")])
        raw[topic][2] += contents.pieces.get(cid, [])
    twice = sorted(name for name in contents.repeated if name.startswith("baseparam/"))
    if twice:               # which of the two holds the values would be a guess (the last one was taken)
        raise DataError(f"{source}: attachment {shown(printable(twice[0]))} appears more than once; expected one")
    # baseparam's attachments: float64 values, or (a length no float64 array has) none, which the reader then says
    extra = {name: np.frombuffer(blob, dtype="<f8") if len(blob) % 8 == 0 else np.empty(0)
             for name, blob in contents.attachments.items() if name.startswith("baseparam/")}
    return raw, extra, contents.problem, contents.notice


_MAX_METADATA = 1_000_000     # bytes of a bag's metadata.yaml (a few kB): more is not parsed
# what ruamel's constructors raise for a tagged scalar they cannot read besides ValueError: an IndexError for an empty
# "!!int" or "!!float" (an AttributeError where a pattern does not match, as PyYAML's "!!timestamp 0.5")
_CONSTRUCTOR_FAILURES = (IndexError, AttributeError)


def check_bag_folder(path, source, named, types=()):
    """A bag folder's metadata.yaml, parsed (its ``rosbag2_bagfile_information`` mapping), checked before any reader
    opens the bag: DataError when it is a FIFO or a device (whose reading would wait or never end), larger than
    :data:`_MAX_METADATA`, or lists a file outside the folder (an absolute path, ``..``, a link leading out): a
    reader given a folder reads nothing else. A metadata.yaml that cannot be read or parsed is left to the readers,
    which word their error (None returned). Compressed storage is checked for decompression bombs: only the messages
    a reader of JointState topics, the ``named`` topics and the message types ``types`` (as :func:`read_raw`'s)
    decompresses."""
    # parsed as rosbags (and rosbag2) parse it, YAML 1.2 by ruamel: PyYAML's YAML 1.1 read 'message_count: 074' as
    # 60 where the reader counts 74, and a file only ruamel takes (a repeated anchor) skipped these checks
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    name, where = os.path.join(path, "metadata.yaml"), f"{source}/metadata.yaml"
    refuse_special(name, DataError, where)
    folder = os.path.realpath(path)
    if not within(folder, name):     # the metadata too, not only what it lists
        raise DataError(f"{where}: a link leading outside the bag folder; a bag's files are read from its own folder "
                        "only")
    try:
        data = read_bounded(name, _MAX_METADATA, where, DataError, "a bag's metadata.yaml", unreadable=OSError)
    except OSError:
        return None
    try:        # as rosbags reads it (UTF-8; a byte-order mark passes): a UTF-16 file was "'utf-8' codec can't decode…"
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{where}: {not_utf8(bytes(data), exc)}") from None
    from ..model._yaml_text import _MAX_PARSED_DEPTH, nested_too_deeply
    if nested_too_deeply(data):         # before ruamel's parse (here and rosbags'), whose time grows with the nesting
        raise DataError(f"{where}: nested too deeply (collections more than {_MAX_PARSED_DEPTH} levels deep); a "
                        "recorder's metadata.yaml nests a few")
    try:
        with ignored():     # ruamel's own (a repeated anchor): said once, by the reader's parse
            info = YAML(typ="safe").load(data)["rosbag2_bagfile_information"]
    except (YAMLError, KeyError, TypeError, ValueError, RecursionError):
        return None
    except _CONSTRUCTOR_FAILURES:     # the bag's reader fails alike, and says "string index out of range"
        raise DataError(f"{where}: a tagged value YAML cannot read (such as an empty !!int or !!float); a bag's"
                        " metadata.yaml as its recorder writes it holds none") from None
    if not isinstance(info, dict):
        return None
    _check_metadata(info, f"{source}/metadata.yaml")
    names = list(info.get("relative_file_paths") or ())       # a list of names (_check_metadata)
    mode = str(info.get("compression_mode") or "").lower()
    if info.get("files") is not None:
        # a reader would iterate what it is given (a string's letters)
        check_instance(info["files"], f"{source}/metadata.yaml: files", list, "a list", error=DataError)
        names += [f.get("path") if isinstance(f, dict) else f for f in info["files"]]
    for name in names:
        if not isinstance(name, str):
            continue
        target = os.path.join(folder, name)
        if not within(folder, target):
            raise DataError(f"{source}: metadata.yaml lists {_one_line(repr(name))[:200]}, outside the bag folder; "
                            "a bag's files are read from its own folder only")
        refuse_special(target, DataError, f"{source}/{_one_line(name)[:200]}")
        if name.endswith(".db3") or info.get("storage_identifier") == "sqlite3":
            _check_sqlite_storage(os.path.join(path, name), f"{source}/{_one_line(name)[:200]}",
                                  unpacked=mode == "file")
    for name in dict.fromkeys(n for n in names if isinstance(n, str)):
        if mode == "file":
            _check_compressed_file(os.path.join(folder, name), f"{source}/{name}")
        elif mode == "message" and name.endswith(".db3"):
            _check_compressed_messages(os.path.join(folder, name), f"{source}/{name}", named, types)
        elif mode == "message" and name.endswith(".mcap"):
            _check_compressed_mcap_messages(os.path.join(folder, name), f"{source}/{name}", named, types)
    return info


def _is_integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_count(value):
    return _is_integer(value) and value >= 0


def _is_nanoseconds(key):
    # any sign: a clock before the epoch, or a recorder's negative duration, is no type error and MCAP folders read
    return lambda value: isinstance(value, dict) and _is_integer(value.get(key))


def _is_topic(entry):
    """Whether the entries a ``topics_with_message_count`` item has are of their types; one missing is left to
    the readers like a missing top-level entry (an MCAP folder reads without them, sqlite3's reader names it)."""
    if not isinstance(entry, dict):
        return False
    meta = entry.get("topic_metadata", {})
    return (("message_count" not in entry or _is_count(entry["message_count"])) and isinstance(meta, dict)
            and all(isinstance(meta[k], str) for k in ("name", "type", "serialization_format") if k in meta))


# The metadata.yaml entries a reader uses, each with its test and what it expects. A value of another type reached
# rosbags, whose words were Python's ("can only concatenate str (not "int") to str", "'NoneType' object is not
# iterable"); an entry missing is left to the readers (an MCAP folder needs few of them).
_METADATA = {
    "version": (_is_count, "a version number"),
    "storage_identifier": (lambda v: isinstance(v, str), "a storage name ('mcap' or 'sqlite3')"),
    "relative_file_paths": (lambda v: isinstance(v, list) and all(isinstance(f, str) and f for f in v),
                            "a list of file names"),
    "compression_format": (lambda v: v is None or isinstance(v, str), "a compression name or ''"),
    "compression_mode": (lambda v: v is None or isinstance(v, str), "a compression mode or ''"),
    "message_count": (_is_count, "a count of messages"),
    "duration": (_is_nanoseconds("nanoseconds"), "a mapping {nanoseconds: N}"),
    "starting_time": (_is_nanoseconds("nanoseconds_since_epoch"), "a mapping {nanoseconds_since_epoch: N}"),
    "topics_with_message_count": (lambda v: isinstance(v, list) and all(map(_is_topic, v)),
                                  "a list of {message_count, topic_metadata: {name, type, serialization_format}}"),
}


def _check_metadata(info, where):
    """Refuse a bag's metadata (``rosbag2_bagfile_information``) whose entries are of the wrong type, in one line
    naming the entry (:data:`_METADATA`)."""
    for key, (test, expected) in _METADATA.items():
        if key in info and not test(info[key]):
            raise DataError(f"{where}: {key}: expected {expected}, got {shown(info[key])}")


def _check_compressed_messages(path, source, named, types):
    """A ROS 2 sqlite3 storage file of zstd-compressed messages, which rosbags decompresses one by one, unbounded:
    each message's decompressed size counted first (streaming, nothing kept), refused beyond 1000 times its own
    size and 32 MiB (a decompression bomb). Only the messages of JointState topics, of the ``named`` topics and of the
    message types ``types`` (rosbags decompresses no other; a camera topic's were all decompressed here, for
    nothing). Other damage is left to rosbags."""
    import sqlite3

    import zstandard
    try:
        db = _read_only(path)
    except sqlite3.Error:
        return
    # the types read as _wanted matches them: 'nav_msgs/Odometry' stands for rosbag2's 'nav_msgs/msg/Odometry'
    kinds = (*JOINT_STATE, *types, *(t.replace("/", "/msg/", 1) for t in types))
    values = (*kinds, *named)
    query = ("SELECT messages.id, messages.data FROM messages JOIN topics ON messages.topic_id = topics.id "
             f"WHERE topics.type IN ({', '.join('?' * len(kinds))}) "
             f"OR topics.name IN ({', '.join('?' * len(named)) or 'NULL'})")
    try:
        db.execute(query + " LIMIT 0", values)
    except sqlite3.Error:               # no topics table as rosbag2 writes it: every message, as rosbags may read
        query, values = "SELECT id, data FROM messages", ()
    # one decompressor for every message: each stream_reader starts afresh, and making one per message cost 8
    # times the counting of a small message
    decompressor = zstandard.ZstdDecompressor()
    try:
        for row_id, data in db.execute(query, values):
            if isinstance(data, bytes):
                _refuse_bomb(decompressor, data, f"{source}: message {row_id}")
    except (sqlite3.Error, zstandard.ZstdError):
        return
    finally:
        db.close()


def _read_only(path):
    """An sqlite3 storage file opened as rosbags reads it: read only and ``immutable``, so that nothing is written
    beside it (a file left in WAL mode, as rosbag2's resilient preset leaves it, had ``-wal`` and ``-shm`` files made
    in the bag's folder by ``mode=ro``, and a hot journal would have been rolled back into the file) and the rows seen
    are those rosbags reads; its name quoted in the URI (a '?' or '#' in a folder's name cut the path short there)."""
    import sqlite3
    from urllib.parse import quote
    return sqlite3.connect(f"file:{quote(os.fspath(path))}?immutable=1", uri=True)


# What cuts short or changes a path in an sqlite URI ('file:PATH?immutable=1', as rosbags writes it): a query, a
# fragment, a percent escape
_URI_CUT = re.compile(r"[?#]|%[0-9A-Fa-f]{2}")

# The first bytes of an sqlite rollback journal that still has to be played back (a hot journal)
_HOT_JOURNAL = bytes.fromhex("d9d505f920a163d7")


def _check_sqlite_storage(path, where, unpacked=False):
    """DataError when sqlite3 storage ``path`` (as rosbags names it: the folder as given, joined with the file's name)
    cannot be read as it is, alone: rosbags opens it as ``file:PATH?immutable=1`` unquoted, so a '?', '#' or '%HH' in
    it opened another file (``bag?1/bag?1.db3`` read a file ``bag`` beside the folder, ``p%41/…`` the folder ``pA``),
    or none: a whole-file compressed one (``unpacked``) is opened where rosbags unpacks it, a folder of the temporary
    folder (``TMPDIR=/tmp/a?b``: 'unable to open database file' of a valid bag); or a path that is not UTF-8 (a
    folder's name of Latin-1 bytes), which sqlite3 cannot be given; or
    a non-empty write-ahead log or a hot rollback journal lies beside it (a recording not closed): its last writes are
    not in the file, which rosbags reads alone (``immutable``), and merging them writes in the bag's folder, which a
    reader does not do. ``where`` names the file in the message."""
    # rosbags unpacks FILE.db3.zstd into a folder of the temporary folder, named by tempfile (letters, digits, '_')
    name = os.path.splitext(os.path.basename(path))[0] if unpacked else os.fspath(path)
    opened = os.path.join(tempfile.gettempdir(), name) if unpacked else name
    try:
        opened.encode("utf-8")
    except UnicodeEncodeError:      # a byte of a non-UTF-8 name: Python's 'surrogates not allowed' was the message
        raise DataError(f"{where}: a path that is not UTF-8 text ({printable(opened)}): sqlite3 opens its "
                        "storage by a UTF-8 path; rename the folder or file" + (" (or set TMPDIR to another folder, "
                        "where rosbags unpacks it)" if unpacked else "")) from None
    cut = _URI_CUT.search(opened)
    if cut is not None and unpacked and not _URI_CUT.search(name):
        raise DataError(f"{where}: {shown(cut.group())} in the path of the temporary folder "
                        f"({shown(printable(tempfile.gettempdir()))}): rosbags unpacks this compressed storage there "
                        "and opens it through a URI that this cuts short or changes; set TMPDIR to a folder whose path "
                        "holds no '?', '#' or '%' followed by two hex digits")
    if cut is not None:
        raise DataError(f"{where}: {shown(cut.group())} in the path of sqlite3 storage: rosbags opens it through a URI "
                        "that this cuts short or changes (another file would be read); rename the folder or file")
    log = f"{path}-wal"
    with contextlib.suppress(OSError):
        if os.lstat(log).st_size > 0 and _wal_may_hold_writes(path, log):
            raise DataError(f"{where}-wal: sqlite's write-ahead log of a recording not closed, holding writes "
                            f"{os.path.basename(where)} lacks; merge it in a copy of the folder (sqlite3 "
                            "COPY/FILE.db3 'PRAGMA wal_checkpoint') and read the copy")
    with contextlib.suppress(OSError), open(f"{path}-journal", "rb", opener=_no_follow) as journal:
        if journal.read(len(_HOT_JOURNAL)) == _HOT_JOURNAL:
            raise DataError(f"{where}-journal: sqlite's journal of a write cut short ({os.path.basename(where)} may be "
                            "half written); roll it back in a copy of the folder (sqlite3 COPY/FILE.db3 'PRAGMA "
                            "integrity_check') and read the copy")


# The largest write-ahead log compared page by page with its file (rosbag2 checkpoints every 1 000 pages: 4 MB); a
# larger one is taken to hold writes the file lacks
_MAX_WAL_COMPARED = 64 << 20
_WAL_MAGIC = (0x377F0682, 0x377F0683)


def _wal_may_hold_writes(path, log):
    """Whether sqlite's write-ahead log ``log`` of storage file ``path`` may hold a write the file lacks. A log's
    frames of its current generation (their salts those of its header) are pages a recovery would write into the
    file; a log whose every page is, in its last frame, already the file's page (a checkpoint copied it, and the
    recording stopped before writing again: the log is reset only by the next write) holds none, and the bag is
    read as it is. Any doubt (a header that is not a log's, a size past :data:`_MAX_WAL_COMPARED`, a page that
    differs or lies past the file's end, a file that cannot be read) is a write the file may lack."""
    try:
        with open(log, "rb", opener=_no_follow) as wal, open(path, "rb") as db:
            head = wal.read(32)
            size = os.fstat(wal.fileno()).st_size
            if len(head) < 32 or int.from_bytes(head[:4], "big") not in _WAL_MAGIC or size > _MAX_WAL_COMPARED:
                return True
            page = int.from_bytes(head[8:12], "big")
            page = 65536 if page == 1 else page
            if page < 512 or page & (page - 1):
                return True
            last = {}                   # page number → the log's last frame of it, of the current generation
            for at in range(32, size - 24 - page + 1, 24 + page):
                wal.seek(at)
                frame = wal.read(24 + page)
                if frame[8:16] != head[16:24]:       # an older generation's frame: a recovery skips it and the rest
                    break
                last[int.from_bytes(frame[:4], "big")] = frame[24:]
            for number, content in last.items():
                db.seek((number - 1) * page)
                if number < 1 or db.read(page) != content:
                    return True
    except OSError:
        return True
    return False


def _no_follow(name, flags):
    return os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK)


def _refuse_bomb(decompressor, packed, where):
    """Refuse a zstd-compressed message (``packed``, bytes) that decompresses to more than :data:`_MAX_RATIO` times
    its size and :data:`_ALLOWANCE` (a decompression bomb), counted streaming, nothing kept; ``where`` (the file and
    the message) begins the one-line message. zstandard's errors pass (damage the caller leaves to rosbags)."""
    bound = _MAX_RATIO * len(packed) + _ALLOWANCE
    if _counted(decompressor.stream_reader(packed), bound) > bound:
        raise DataError(f"{where} decompresses to more than {_MAX_RATIO} times its {len(packed)} bytes (a "
                        "decompression bomb?); not decompressed")


def _check_compressed_mcap_messages(path, source, named, types):
    """A ROS 2 MCAP storage file of zstd-compressed messages (rosbag2's message mode), which rosbags decompresses
    one by one, unbounded: as :func:`_check_compressed_messages`, the file's records read by our MCAP reader (its
    chunks bounded there) and each message of the topics read counted. Other damage is left to rosbags.

    The file is read a record at a time, not whole, and each chunk's messages are counted as it is decompressed,
    none kept: a bag of camera frames is gigabytes, which reading it whole and keeping every topic's messages held in
    memory twice."""
    import zstandard

    decompressor = zstandard.ZstdDecompressor()        # for every message, as _check_compressed_messages's

    def count(c, rows, log_times, order):
        """Nothing kept: the messages of a topic read counted as they are decompressed."""
        topic, _, sid = contents.channels.get(c, ("", "", None))
        if c not in contents.channels or not _wanted(contents.schemas.get(sid, ("",))[0], topic, named, types):
            return None
        for row, k in zip(rows, order):
            _refuse_bomb(decompressor, row.tobytes(), f"{source}: topic {printable(topic)}: message {int(k)}")

    contents = _mcap.Contents(transform=count)
    try:
        with open(path, "rb") as stream:
            _mcap.read(FileBytes.of(stream, f"{source}: cannot read as MCAP"), contents)
    except (OSError, zstandard.ZstdError):    # not read, or a message that does not decompress: left to rosbags
        return
    # rosbags takes the summary's schemas and channels: one differing from the data section's (the chunk path's
    # check) would have its messages read as another type or topic
    _refuse_unreadable(contents, source)


def _refuse_unreadable(contents, source, nothing_read=False):
    """DataError naming ``source`` when our MCAP reader's ``contents`` have a forged summary (a schema or channel
    other than the data section's of the same id: nothing is trusted), or a problem and ``nothing_read``."""
    if contents.problem and (contents.forged or nothing_read):
        raise DataError(f"{source}: cannot read as MCAP: {contents.problem}")


def _check_compressed_file(path, source):
    """A whole-file compressed storage file of a ROS 2 bag, which rosbags decompresses into a temporary folder:
    its decompressed size counted first (streaming, nothing kept), and refused beyond 1000 times its own size (a
    decompression bomb) or beyond the free space of that folder. Other damage is left to rosbags."""
    import zstandard

    remove_stale_unpacked(tempfile.gettempdir())          # before the free space is counted
    # a temporary folder whose file system gives no figures (0 bytes of 0) is not taken as full: the ratio alone
    free = free_space(os.path.join(tempfile.gettempdir(), UNPACK_PREFIX))
    free = float("inf") if free is None else free
    try:
        packed = os.path.getsize(path)
        ratio = _MAX_RATIO * packed + _ALLOWANCE
        with open(path, "rb") as stream, zstandard.ZstdDecompressor().stream_reader(stream) as reader:
            size = _counted(reader, min(ratio, free))
    except (OSError, zstandard.ZstdError):
        return
    if size > min(ratio, free):
        why = (f"more than {_MAX_RATIO} times its {packed} bytes (a decompression bomb?)" if size > ratio
               else f"more than the {free} bytes free in the temporary folder it would go to")
        raise DataError(f"{source}: decompresses to {why}; not decompressed")


# rosbags unpacks a whole-file compressed ROS 2 bag into a TemporaryDirectory it removes when the reader closes; a
# SIGKILLed run leaves it (as large as the bag unpacked). Ours are named with this prefix, the process id and the host
# (_leftovers.run_prefix), so a later run can tell them from other programs' and remove a dead run's.
UNPACK_PREFIX = "baseparam-rosbag2-"


def _named_temporary_directory(*args, **kwargs):
    """rosbags' TemporaryDirectory, named UNPACK_PREFIX + this process's id and host."""
    kwargs.setdefault("prefix", run_prefix(UNPACK_PREFIX))
    return tempfile.TemporaryDirectory(*args, **kwargs)


def _name_rosbags_unpacking():
    """Make rosbags' reader name the folder it unpacks into (_named_temporary_directory): set once, it only adds
    a prefix; a rosbags without that module attribute is left as it is."""
    from rosbags.rosbag2 import reader
    if getattr(reader, "TemporaryDirectory", None) is tempfile.TemporaryDirectory:
        reader.TemporaryDirectory = _named_temporary_directory


def remove_stale_unpacked(folder, now=None):
    """Remove the folders of unpacked bags that killed runs of this user on this machine left in ``folder`` (the
    temporary folder); returns their names (:func:`baseparam._leftovers.remove_stale_folders`)."""
    return remove_stale_folders(folder, UNPACK_PREFIX, run_folder_names(UNPACK_PREFIX), now=now)


def _counted(reader, bound):
    """The number of bytes ``reader`` yields, read in 1 MiB blocks and not kept, up to the first count beyond
    ``bound`` (the caller refuses it there)."""
    size = 0
    while size <= bound and (block := reader.read(1 << 20)):
        size += len(block)
    return size


def _storage_files(path, info, storage, ending):
    """The storage files of a bag folder in its metadata's order (``info``: :func:`check_bag_folder`'s, its
    ``relative_file_paths`` checked a list of names), when its storage is ``storage`` (``'mcap'``, ``'sqlite3'``)
    and each is a file of the folder named ``*ending``; else () (another storage, metadata that do not say or
    cannot be read)."""
    if not info or info.get("storage_identifier") != storage:
        return ()
    files = tuple(os.path.join(path, name) for name in info.get("relative_file_paths") or ())
    return files if all(f.endswith(ending) and os.path.isfile(f) for f in files) else ()


def _read_mcap_folder(files, source):
    """The MCAP files of a bag folder in order, each topic's messages numbered across them."""
    raw, problem, notices = {}, None, []
    for name in files:
        part, _, trouble, notice = _read_mcap(name, f"{source}/{os.path.basename(name)}")
        for topic, (msgtype, ros1, pieces, msgdef) in part.items():
            entry = raw.setdefault(topic, [msgtype, ros1, [], msgdef])
            start = sum(len(p[1]) for p in entry[2])
            entry[2] += [(rows, times, order + start) for rows, times, order in pieces]
        if notice:
            notices.append(f"{os.path.basename(name)}: {notice}")
        if trouble:
            problem = f"{os.path.basename(name)}: {trouble}"
            break
    return raw, None, problem, "; ".join(notices) or None


def _wanted(msgtype, topic, named, types):
    """Whether a topic's messages are read, as :func:`read_raw` says."""
    return msgtype in JOINT_STATE or topic in named or msgtype.replace("/msg/", "/") in types


def _file_ranks(files, counts):
    """For each topic of sqlite3 storage ``files`` whose message count is ``counts[topic]``: the rank, in the files'
    row order, of its messages as rosbags gives them (sorted by time stamp, ties in row order); ``{}`` when not known
    (no files, a file that does not answer, or other counts: left to the checks of what was read)."""
    import sqlite3
    stamps, topics = {}, sorted(counts)
    # of the topics read only: a bag's other topics (a camera's, an IMU's) may hold millions of rows
    query = ("SELECT topics.name, messages.timestamp FROM messages JOIN topics ON messages.topic_id = topics.id "
             f"WHERE topics.name IN ({', '.join('?' * len(topics))}) ORDER BY messages.id")
    for name in files:
        try:
            db = _read_only(name)
            try:
                for topic, stamp in db.execute(query, topics):
                    stamps.setdefault(topic, []).append(stamp)
            finally:
                db.close()
        except sqlite3.Error:
            return {}
    ranks = {}
    for topic, count in counts.items():
        found = stamps.get(topic, [])
        if len(found) != count or not all(isinstance(v, int) for v in found):
            return {}
        ranks[topic] = np.argsort(np.asarray(found, dtype=np.int64), kind="stable")
    return ranks


def _read_rosbags(path, source, named=(), types=(), sqlite3_files=()):
    """A bag folder (ROS 2, MCAP or sqlite3 storage) or a ROS 1 bag, through ``rosbags``: the raw
    messages of the topics :func:`_wanted`, each numbered in its topic's file order. rosbags gives them sorted by
    time stamp; of ``sqlite3_files`` (a folder's storage, in order) their order is the rows' (a time stamp damaged
    moves its message in rosbags' order only: :func:`._bags._with_clock` finds it on the receive clock); of a ROS 1
    bag it is the chunks' and their index data's (:func:`_ros1_file_ranks`), when its index is whole."""
    from rosbags.highlevel import AnyReader
    raw, problem, index = {}, None, None
    if os.path.isfile(path):
        index = _check_ros1_chunks(path, source)       # before rosbags decompresses them, unbounded
    _name_rosbags_unpacking()
    reader, caught = None, []
    try:
        with _foreign_warnings(caught):
            reader = AnyReader([Path(path)])
            reader.open()
    except Exception as exc:            # rosbags raises its own error types (and OSError, KeyError …)
        if reader is not None:          # opened in part (a warning made an error by the user's filters: -W error)
            with contextlib.suppress(Exception):
                reader.close()
        # a ROS 1 bag whose index is missing or cut (a recording stopped uncleanly, a partial copy) still
        # holds its chunks: they are read in file order, and the missing index is the problem reported
        scanned = _scan_ros1(path, source, named, types, _one_line(exc)) if os.path.isfile(path) else None
        if scanned is not None:
            return scanned
        raise DataError(f"{source}: cannot read as a ROS bag: {_one_line(exc)}") from None
    try:
        _reissue(source, caught)        # may raise (the user's filters: -W error): the reader is closed below
        wanted = [c for c in reader.connections if _wanted(c.msgtype, c.topic, named, types)]
        by_topic = {}
        for c in reader.connections:
            raw.setdefault(c.topic, [c.msgtype, False, [], getattr(c.msgdef, "data", "") or ""])
        try:
            for conn, stamp, data in reader.messages(connections=wanted):
                messages = by_topic.setdefault(conn.topic, [])
                # sqlite3 storage types nothing: a row's stamp may be text, its data text or a number
                if not isinstance(stamp, int):
                    raise ValueError(f"topic {printable(conn.topic)}: message {len(messages)}: its time stamp is "
                                     f"{shown(stamp)}")
                # data that are no bytes are a damaged message, said as such (bytes(10**9) was a GB of zeros)
                data = data if isinstance(data, (bytes, bytearray, memoryview)) else b""
                messages.append((bytes(data), stamp, len(messages)))      # its index in the topic
        except Exception as exc:
            problem = f"damaged after {sum(map(len, by_topic.values()))} messages ({_one_line(exc)})"
        counts = {t: len(m) for t, m in by_topic.items()}
        if problem is None and index is not None:
            problem = _ros1_index_problem(index, counts, {c.topic for c in wanted})
        ranks = _file_ranks(sqlite3_files, counts) if index is None else _ros1_file_ranks(index, wanted, counts)
        for topic, rank in ranks.items():
            by_topic[topic] = [(data, stamp, int(k)) for (data, stamp, _), k in zip(by_topic[topic], rank)]
        ros1 = Path(source).suffix.lower() == ".bag"
        for topic, messages in by_topic.items():
            raw[topic][1] = ros1
            raw[topic][2] = _rows_by_size(messages)
    finally:
        with contextlib.suppress(Exception):    # closing a damaged bag may fail again; the problem is reported
            reader.close()
    return raw, None, problem, None


@contextlib.contextmanager
def _foreign_warnings(caught):
    """Collect into ``caught`` the warnings rosbags and its YAML reader give while a bag opens, through the user's
    own filters (an ignored warning is not collected; under ``-W error`` it raises where it is given, an error of
    the bag's reading); :func:`_reissue` says them."""
    with recorded() as found:
        yield
    caught.extend(found)


def _reissue(source, caught):
    """Each warning :func:`_foreign_warnings` collected as one DataWarning line naming the bag (``source``):
    ruamel.yaml's ReusedAnchorWarning of a metadata.yaml whose anchor is defined twice spanned 8 lines of a message
    naming "<unicode string>" on the command line's stderr."""
    for found in caught:
        # a library's own deprecations are for its callers' authors, hidden by Python's default filters: not the bag's
        if not issubclass(found.category, (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                                           ResourceWarning)):
            warn(f"{source}: {printable(' '.join(str(found.message).split()))[:300]}", DataWarning)


ROS1_MAGIC = b"#ROSBAG V2.0\n"
# the op fields (one byte) of the records read
_BAG_HEADER, _CHUNK, _CONNECTION, _MESSAGE = b"\x03", b"\x05", b"\x07", b"\x02"


class _Cut(Exception):
    """A ROS 1 record that runs past the end of what holds it."""


def _chunk_size_problem(compression, claimed, packed):
    """Why a ROS 1 chunk of ``packed`` compressed bytes claiming ``claimed`` bytes is not decompressed, or None:
    the bounds of MCAP's chunks (:func:`._mcap.chunk_size_problem`; bz2 packs 1 GiB of zeros in a few hundred
    bytes)."""
    return None if compression == b"none" else chunk_size_problem(compression[:20].decode("latin-1"), claimed, packed)


@contextlib.contextmanager
def _ros1_bytes(path, source):
    """A ROS 1 bag's bytes while open (:class:`~._file_bytes.FileBytes`: read by pread, not mapped, as a file another
    process cut short while it was mapped killed the reader by SIGBUS), or None when it cannot be opened (the readers
    say so). A file that does not start with the ROS 1 magic is refused, looked at first: rosbags reads the first
    line whole, and a large file without a line break was read whole into memory."""
    with contextlib.ExitStack() as stack:
        try:
            stream = stack.enter_context(open(path, "rb"))
            magic = stream.read(len(ROS1_MAGIC))
        except (OSError, ValueError):
            stream = None
        if stream is not None and magic != ROS1_MAGIC:
            raise DataError(f"{source}: cannot read as a ROS bag: not a ROS 1 bag (no '#ROSBAG V2.0' line at its "
                            "start)")
        yield None if stream is None else FileBytes.of(stream, f"{source}: cannot read as a ROS bag")


def _check_ros1_chunks(path, source):
    """Refuse a ROS 1 bag with a chunk that claims too much (:func:`_chunk_size_problem`), from the records'
    headers alone; other damage is left to the readers, which report it. Returns what the walk found of the bag's
    index, for :func:`_ros1_index_problem` (``index["damaged"]`` says where the walk stopped at damage)."""
    with _ros1_bytes(path, source) as data:
        return None if data is None else _ros1_walk(data, source)


def _ros1_walk(data, source):
    """:func:`_check_ros1_chunks`'s walk of the bag's bytes ``data``."""
    index = {"chunks": [], "indexed": {}, "infos": {}, "topics": {}, "header": None, "damaged": None, "entries": []}
    pos, end, chunk = len(ROS1_MAGIC), len(data), None
    while pos < end:
        try:
            fields, body, after = _ros1_record(data, pos, end)
            op = fields.get("op", b"")[:1]
            _ros1_index_record(op, fields, data, pos, body, after, chunk, index)
        except DataError:       # the file cut while it is read (FileBytes): not damage to report where it is
            raise
        except (_Cut, ValueError) as exc:
            index["damaged"] = f"the record at byte {pos} is damaged ({exc.args[0]})"
            return index
        if op == _CHUNK:
            problem = _chunk_size_problem(fields.get("compression", b"none"),
                                          int.from_bytes(fields.get("size", b"")[:4], "little"), after - body)
            if problem:
                raise DataError(f"{source}: cannot read as a ROS bag: the chunk at byte {pos}: {problem}")
            chunk = pos
        pos = after
    return index


_INDEX_DATA, _CHUNK_INFO = b"\x04", b"\x06"
# an entry of a chunk's index data (version 1): a message's receive time and its offset in the decompressed chunk
_INDEX_ENTRY = np.dtype([("sec", "<u4"), ("nsec", "<u4"), ("offset", "<u4")])


def _u32(fields, name):
    value = fields.get(name, b"")
    if len(value) != 4:
        raise ValueError(f"field {name}")
    return int.from_bytes(value, "little")


def _ros1_index_record(op, fields, data, pos, body, after, chunk, index):
    """What a top-level record of a ROS 1 bag (``op`` its op field) adds to ``index`` (:func:`_check_ros1_chunks`):
    the bag header's chunk count, the chunks' positions, each chunk's index data (connection → messages indexed),
    the chunk infos (chunk position → connection → messages) and the connections' topics."""
    if op == _BAG_HEADER:
        index["header"] = _u32(fields, "chunk_count")
    elif op == _CHUNK:
        index["chunks"].append(pos)
    elif op == _INDEX_DATA:
        count = _u32(fields, "count")
        if chunk is None or after - body != 12 * count:
            raise ValueError("index data")
        counts = index["indexed"].setdefault(chunk, {})
        conn = _u32(fields, "conn")
        counts[conn] = counts.get(conn, 0) + count
        index["entries"].append((conn, chunk, np.frombuffer(data[body:after], dtype=_INDEX_ENTRY).copy()))
    elif op == _CHUNK_INFO:
        where, count = fields.get("chunk_pos", b""), _u32(fields, "count")
        if len(where) != 8 or after - body != 8 * count:
            raise ValueError("chunk info")
        pairs = np.frombuffer(data[body:after], dtype="<u4").reshape(-1, 2)
        index["infos"][int.from_bytes(where, "little")] = {int(c): int(n) for c, n in pairs}
    elif op == _CONNECTION:
        index["topics"][_u32(fields, "conn")] = fields.get("topic", b"").decode("utf-8", "replace")


def _ros1_file_ranks(index, connections, counts):
    """For each topic of a ROS 1 bag whose message count rosbags read is ``counts[topic]``: the rank, in the bag's
    file order (its chunks' positions, then the messages' offsets in a chunk: the order the recorder wrote them), of
    its messages as rosbags gives them; ``{}`` when the walk's ``index`` does not tell (damaged, other counts).

    rosbags sorts each connection's index entries by receive time (stably, in the chunk infos' order, then each
    chunk's index data's) and merges the ``connections`` read (ties in their order): a message whose receive time
    went back in the file was moved into the motion, where the other storages' readers find it
    (:func:`._bags._receive_order`)."""
    if index["damaged"]:
        return {}
    chunk_rank = {at: k for k, at in enumerate(index["infos"])}       # rosbags reads the chunks in the infos' order
    ids = {c.id: k for k, c in enumerate(connections)}
    entries = [(ids[conn], chunk_rank.get(chunk, -1), chunk, e) for conn, chunk, e in index["entries"]
               if conn in ids]
    if not entries or any(rank < 0 for _, rank, _, _ in entries):
        return {}
    entries.sort(key=lambda item: (item[0], item[1]))        # each connection's entries in rosbags' reading order
    topic = np.concatenate([np.full(e.size, k) for k, _, _, e in entries])
    time = np.concatenate([e["sec"].astype(np.int64) * 1_000_000_000 + e["nsec"] for *_, e in entries])
    chunk = np.concatenate([np.full(e.size, at, dtype=np.int64) for _, _, at, e in entries])
    offset = np.concatenate([e["offset"] for *_, e in entries]).astype(np.int64)
    read = np.argsort(time, kind="stable")           # rosbags' order: by time, ties by connection, then as listed
    names = np.array([connections[k].topic for k in topic[read]], dtype=object)
    ranks = {}
    for name, count in counts.items():
        mine = read[names == name]
        if mine.size != count:
            return {}
        in_file = np.lexsort((offset[mine], chunk[mine]))        # the file order of the topic's messages
        rank = np.empty(count, dtype=np.int64)
        rank[in_file] = np.arange(count)
        ranks[name] = rank
    return ranks


def _ros1_index_problem(index, read, wanted):
    """What is wrong with a ROS 1 bag's index (:func:`_check_ros1_chunks`'s ``index``) and the messages rosbags read
    per topic (``read``, of the ``wanted`` topics), or None. rosbags reads the chunks its bag header counts and the
    chunk infos name, and of each chunk the messages its index data list: a chunk, or a chunk's index data, lost
    to damage (a count changed, a record dropped) read as a shorter log without a word; so did damage to a record
    it seeks past, which the walk of every record meets."""
    if index["damaged"]:      # a record rosbags passed over by seeking from the index (its index data, often)
        return index["damaged"]
    chunks, infos, indexed = sorted(index["chunks"]), index["infos"], index["indexed"]
    if index["header"] is not None and index["header"] != len(chunks) or sorted(infos) != chunks:
        return (f"its index names {len(infos)} chunks (its header counts {index['header']}), the file holds "
                f"{len(chunks)}: a chunk or its index damaged")
    for at in chunks:
        if indexed.get(at, {}) != {c: n for c, n in infos[at].items() if n}:
            return f"the chunk at byte {at}: its index data disagree with the bag's index of it: damaged"
    for topic in sorted(wanted):
        count = sum(n for counts in infos.values() for c, n in counts.items() if index["topics"].get(c) == topic)
        if read.get(topic, 0) != count:
            return f"topic {printable(topic)}: {read.get(topic, 0)} messages read, its index counts {count}: damaged"
    return None


def _scan_ros1(path, source, named, types, why):
    """A ROS 1 bag read chunk by chunk in file order, without its index (which rosbags needs).

    Returns ``(raw, None, problem, None)`` as :func:`_read_rosbags`, the problem saying that the index is
    missing and where the reading stopped; or None if the file cannot be mapped (rosbags' error stands).
    """
    with _ros1_bytes(path, source) as data:
        return None if data is None else _ros1_scan(data, named, types, why)


def _ros1_scan(data, named, types, why):
    """:func:`_scan_ros1`'s reading of the bag's bytes ``data``."""
    connections, messages = {}, {}
    end, pos, index_pos, stop = len(data), len(ROS1_MAGIC), None, None
    while pos < end and stop is None:
        try:
            fields, body, after = _ros1_record(data, pos, end)
            op = _ros1_op(fields)
            if op == _BAG_HEADER and len(fields.get("index_pos", b"")) == 8:
                index_pos = int.from_bytes(fields["index_pos"], "little")
            elif op == _CONNECTION:
                _ros1_connection(fields, data, body, after, connections)
            elif op == _CHUNK:
                _ros1_chunk(fields, data[body:after], connections, messages)
        except DataError:           # the file cut while it is read (FileBytes)
            raise
        except _Cut as exc:
            stop = f"a record at byte {pos} is cut ({exc.args[0]})"
            if exc.args[1] is not None:                  # an uncompressed chunk cut: read to its last whole message
                with contextlib.suppress(ValueError):    # damaged before the cut as well: what was read is kept
                    _ros1_records(exc.args[1], connections, messages)
        except (ValueError, KeyError, OSError, EOFError, RuntimeError) as exc:   # bz2 / lz4 and bad fields
            stop = f"a record at byte {pos} is damaged ({_one_line(exc)})"
        else:
            pos = after
    if index_pos in (None, 0):
        index = "its index is missing (the recording was not closed)"
    elif index_pos > end:
        index = f"its index would start at byte {index_pos}, past its end at byte {end} (the file is truncated)"
    else:
        index = f"its index is damaged ({why})"
    count = sum(len(m) for m in messages.values())
    where = f"up to byte {pos}, where {stop}" if stop else "to its end"
    raw = {}
    for topic, msgtype, msgdef in connections.values():
        raw.setdefault(topic, [msgtype, True, [], msgdef])
    for topic, entry in raw.items():
        if _wanted(entry[0], topic, named, types) and messages.get(topic):
            entry[2] = _rows_by_size(messages[topic])
    return raw, None, f"{index}; {count} messages read chunk by chunk {where}", None


def _ros1_fields(data, k, stop):
    """The ``name=value`` fields (length-prefixed) of a ROS 1 header in data[k:stop], name → bytes."""
    fields = {}
    while k < stop:
        if k + 4 > stop:
            raise ValueError(f"a header field at byte {k} is cut")
        size = int.from_bytes(data[k:k + 4], "little")
        text = bytes(data[k + 4:k + 4 + size])
        if k + 4 + size > stop or b"=" not in text:
            raise ValueError(f"a header field at byte {k} is malformed")
        name, _, value = text.partition(b"=")
        fields[name.decode("latin-1")] = value
        k += 4 + size
    return fields


def _ros1_record(data, pos, stop):
    """One ROS 1 record at ``pos``: its header fields, where its data start and end (:class:`_Cut` if it runs
    past ``stop``, with the data there are when it is an uncompressed chunk)."""
    if pos + 4 > stop:
        raise _Cut("its header length", None)
    n = int.from_bytes(data[pos:pos + 4], "little")
    head = pos + 4
    if head + n + 4 > stop:
        raise _Cut(f"its header claims {n} bytes, {stop - head} remain", None)
    fields = _ros1_fields(data, head, head + n)
    length = int.from_bytes(data[head + n:head + n + 4], "little")
    body = head + n + 4
    if body + length > stop:
        plain = fields.get("op", b"")[:1] == _CHUNK and fields.get("compression") == b"none"
        raise _Cut(f"it claims {length} bytes, {stop - body} remain", data[body:stop] if plain else None)
    return fields, body, body + length


def _ros1_connection(fields, data, body, after, connections):
    conn = int.from_bytes(fields.get("conn", b"")[:4], "little")
    info = _ros1_fields(data, body, after)
    msgtype = info.get("type", b"").decode("utf-8", "replace")
    package, _, name = msgtype.partition("/")
    connections[conn] = (fields.get("topic", b"").decode("utf-8", "replace"),
                         f"{package}/msg/{name}" if name and "/msg/" not in msgtype else msgtype,
                         info.get("message_definition", b"").decode("utf-8", "replace"))


def _ros1_chunk(fields, body, connections, messages):
    compression = fields.get("compression", b"none")
    claimed = int.from_bytes(fields.get("size", b"")[:4], "little")
    problem = _chunk_size_problem(compression, claimed, len(body))
    if problem:
        raise ValueError(problem)
    if compression == b"bz2":       # no more than the chunk claims
        import bz2
        body = bz2.BZ2Decompressor().decompress(body, max_length=claimed)
    elif compression == b"lz4":
        from lz4.frame import LZ4FrameDecompressor
        body = LZ4FrameDecompressor().decompress(body, max_length=claimed)
    elif compression != b"none":
        raise ValueError(f"unknown compression {compression[:20]!r}")
    _ros1_records(body, connections, messages)


def _ros1_records(body, connections, messages):
    """The connection and message records of a chunk's (decompressed) data, up to a record that is cut."""
    pos, stop = 0, len(body)
    while pos < stop:
        try:
            fields, start, after = _ros1_record(body, pos, stop)
        except _Cut:
            return
        op = _ros1_op(fields)
        if op == _CONNECTION:
            _ros1_connection(fields, body, start, after, connections)
        elif op == _MESSAGE:
            conn = int.from_bytes(fields.get("conn", b"")[:4], "little")
            time = fields.get("time", b"")
            if len(fields.get("conn", b"")) != 4 or conn not in connections or len(time) != 8:
                # a message of no known connection, or without its time, is damage: dropping it said nothing
                raise ValueError(f"a message record at byte {pos} of its chunk has "
                                 + ("no valid time" if len(time) != 8 else "no known connection"))
            ns = int.from_bytes(time[:4], "little") * 10**9 + int.from_bytes(time[4:], "little")
            topic = messages.setdefault(connections[conn][0], [])
            topic.append((bytes(body[start:after]), ns, len(topic)))
        pos = after


def _ros1_op(fields):
    """A ROS 1 record's opcode (one byte); a header without one is damage (every record has it: a run of zero
    bytes reads as empty records, millions of them walked and dropped without a word)."""
    op = fields.get("op", b"")
    if len(op) != 1:
        raise ValueError("a record without its one-byte op field")
    return op


def _rows_by_size(messages):
    """[(data, stamp, index)] → pieces of equal-size messages as rows."""
    sizes = np.array([len(m[0]) for m in messages])
    pieces = []
    for L in np.unique(sizes).tolist():
        chosen = [m for m, s in zip(messages, sizes) if s == L]
        rows = np.frombuffer(b"".join(m[0] for m in chosen), dtype=np.uint8).reshape(len(chosen), L)
        pieces.append((rows, np.array([m[1] for m in chosen], dtype=np.int64), np.array([m[2] for m in chosen])))
    return pieces
