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

import os
from pathlib import Path

import numpy as np

from ..errors import DataError
from ._cdr import JOINT_STATE, decode_rows
from ._record import _one_line


def is_bag(path) -> bool:
    """Whether ``path`` is a ROS bag folder (holding ``metadata.yaml``)."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, "metadata.yaml"))


def _read_mcap(path, source):
    import mmap

    from . import _mcap
    contents = _mcap.Contents()

    def decode_now(c, rows, log_times, order):
        """JointState messages decoded chunk by chunk: the decompressed chunk is freed at once."""
        topic, encoding, sid = contents.channels.get(c, ("", "", None))
        if contents.schemas.get(sid, ("",))[0] in JOINT_STATE:
            return (decode_rows(rows, encoding == "ros1"), log_times, order)
        return rows, log_times, order

    contents.transform = decode_now
    try:
        with open(path, "rb") as stream:
            try:
                data = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
            except (ValueError, OSError):       # an empty file, or one that cannot be mapped
                data = stream.read()
    except OSError as exc:
        raise DataError(f"{source}: cannot read: {exc.strerror or _one_line(exc)}") from None
    _mcap.read(data, contents)
    if contents.problem and not contents.channels and not contents.pieces:
        raise DataError(f"{source}: cannot read as MCAP: {contents.problem}")
    raw = {}
    for cid, (topic, encoding, sid) in contents.channels.items():
        msgtype, _, msgdef = contents.schemas.get(sid, ("", "", b""))
        raw.setdefault(topic, [msgtype, encoding == "ros1", [], msgdef.decode("utf-8", "replace")])
        raw[topic][2] += contents.pieces.get(cid, [])
    extra = {}
    for name, blob in contents.attachments.items():
        if name.startswith("baseparam/") and len(blob) % 8 == 0:
            extra[name] = np.frombuffer(blob, dtype="<f8")
    return raw, extra, contents.problem


def _mcap_files(path):
    """The .mcap files of a ROS 2 bag folder with uncompressed-file MCAP storage (read by the fast
    reader), or None (sqlite3 storage, whole-file compression, an unreadable metadata.yaml: rosbags)."""
    import yaml
    try:
        with open(os.path.join(path, "metadata.yaml"), encoding="utf-8") as stream:
            info = yaml.safe_load(stream)["rosbag2_bagfile_information"]
        if info.get("storage_identifier") != "mcap" or info.get("compression_mode") or info.get("compression_format"):
            return None
        files = [os.path.join(path, name) for name in info["relative_file_paths"]]
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError):
        return None
    return files if files and all(f.endswith(".mcap") and os.path.isfile(f) for f in files) else None


def _read_mcap_folder(path, files, source):
    """The MCAP files of a bag folder in order, each topic's messages numbered across them."""
    raw, problem = {}, None
    for name in files:
        part, _, trouble = _read_mcap(name, f"{source}/{os.path.basename(name)}")
        for topic, (msgtype, ros1, pieces, msgdef) in part.items():
            entry = raw.setdefault(topic, [msgtype, ros1, [], msgdef])
            start = sum(len(p[1]) for p in entry[2])
            entry[2] += [(rows, times, order + start) for rows, times, order in pieces]
        if trouble:
            problem = f"{os.path.basename(name)}: {trouble}"
            break
    return raw, None, problem


def _read_rosbags(path, source, named=()):
    """A bag folder (ROS 2, MCAP or sqlite3 storage) or a ROS 1 bag, through ``rosbags``: the raw
    messages of the JointState topics and of the topics ``named``."""
    from rosbags.highlevel import AnyReader
    raw, problem = {}, None
    try:
        reader = AnyReader([Path(path)])
        reader.open()
    except Exception as exc:            # rosbags raises its own error types (and OSError, KeyError …)
        raise DataError(f"{source}: cannot read as a ROS bag: {_one_line(exc)}") from None
    try:
        wanted = [c for c in reader.connections if c.msgtype in JOINT_STATE or c.topic in named]
        by_topic = {}
        for c in reader.connections:
            raw.setdefault(c.topic, [c.msgtype, False, [], getattr(c.msgdef, "data", "") or ""])
        counts = {}
        try:
            for conn, stamp, data in reader.messages(connections=wanted):
                k = counts.get(conn.topic, 0)
                counts[conn.topic] = k + 1
                by_topic.setdefault(conn.topic, []).append((bytes(data), stamp, k))
        except Exception as exc:
            problem = f"damaged after {sum(counts.values())} messages ({_one_line(exc)})"
        ros1 = Path(source).suffix.lower() == ".bag"
        for topic, messages in by_topic.items():
            raw[topic][1] = ros1
            raw[topic][2] = _rows_by_size(messages)
    finally:
        try:
            reader.close()
        except Exception:               # closing a damaged bag may fail again; the problem is reported
            pass
    return raw, None, problem


def _rows_by_size(messages):
    """[(data, stamp, index)] → pieces of equal-size messages as rows."""
    sizes = np.array([len(m[0]) for m in messages])
    pieces = []
    for L in np.unique(sizes).tolist():
        chosen = [m for m, s in zip(messages, sizes) if s == L]
        rows = np.frombuffer(b"".join(m[0] for m in chosen), dtype=np.uint8).reshape(len(chosen), L)
        pieces.append((rows, np.array([m[1] for m in chosen], dtype=np.int64), np.array([m[2] for m in chosen])))
    return pieces
