"""The container files the log writers share (:mod:`.writers` for fixed-base trajectories,
:mod:`.floating_logs` for floating-base ones): an NPZ file of arrays, a Parquet table of fixed-size list columns and
a ROS 2 MCAP file of CDR messages, each written atomically (:mod:`baseparam._atomic`) and encoded straight into its
temporary file: encoded in memory first, the file was a second copy of the log (10⁶ × 7, with q̇, q̈, τ: +230 MB
for Parquet, +260 MB for MCAP)."""
from __future__ import annotations

import io

import numpy as np

from .._atomic import write_streamed
from .._output_names import has_room
from .._validation import shown
from ..errors import ArgumentError


def _present(traj):
    """A trajectory's (n_samples, n_dof) arrays by field, those it has (q, qd, qdd, tau; None left out)."""
    return {f: getattr(traj, f) for f in ("q", "qd", "qdd", "tau") if getattr(traj, f) is not None}


def _write_npz(path, arrays):
    """An NPZ file of ``arrays`` ({name: array of numbers or strings: no object array, which np.savez pickles, its
    size unknown before}), atomically, written by ``np.savez`` straight into the temporary file
    (:func:`~baseparam._atomic.write_streamed`): its size, known from the arrays (:func:`_npz_size`), is checked
    against the free space first. Encoded in memory, the file was a second copy of the log (10⁶ × 7: +230 MB)."""
    write_streamed(path, _npz_size(arrays), lambda stream: _encoded_into(stream, lambda out: np.savez(out, **arrays)),
                   ".npz")


def _write_encoded(path, encode, payload, suffix):
    """Write ``path`` atomically by ``encode(stream)`` (a compressed file, its size known only once written), straight
    into the temporary file. Where the free space or the file size limit might not take it (less than twice its
    ``payload``, the bytes of the numbers and messages it holds, and 1 MiB), it is encoded once without being kept
    (:class:`_Counted`) to learn its size: refused before any file is made (a full disk said with the figures, as an
    NPZ's), never found by the write half-way."""
    size = None if has_room(path, 2 * payload + (1 << 20)) else _encoded_size(encode)
    write_streamed(path, size, lambda stream: _encoded_into(stream, encode), suffix)


class _Counted:
    """A binary stream that keeps nothing of what is written to it, only its count of bytes (seekable: no, though
    nothing here seeks; ``tell`` is the count, as a file written from its start)."""

    closed = False

    def __init__(self):
        self.size = 0

    def write(self, data):
        written = memoryview(data).nbytes
        self.size += written
        return written

    def tell(self):
        return self.size

    def flush(self):
        pass


def _encoded_size(encode):
    """The bytes ``encode(stream)`` writes (:class:`_Counted`)."""
    counted = _Counted()
    encode(counted)
    return counted.size


def _encoded_into(stream, encode):
    """``encode(stream)``, or into a stream it cannot seek (a named pipe, ``/dev/stdout`` on a pipe: written in place)
    through memory: zipfile ends each NPZ member with a data descriptor where it cannot seek back to its header, bytes
    unlike those of the file (and larger than :func:`_npz_size`), and the MCAP writer asks the stream its position."""
    if stream.seekable():
        encode(stream)
        return
    encoded = io.BytesIO()
    encode(encoded)
    stream.write(encoded.getbuffer())


def _npz_size(arrays):
    """The bytes of the NPZ file ``np.savez(file, **arrays)`` writes to a seekable file: a stored (uncompressed) ZIP
    of one NPY file per array (``NAME.npy``: its header, then its bytes), as numpy writes it (``force_zip64``: every
    local header has the ZIP64 extra field) and zipfile ends it (central directory, ZIP64 end records past its
    limits)."""
    import zipfile

    from numpy.lib import format as npy

    limit = zipfile.ZIP64_LIMIT
    offset = central = 0
    for name, array in arrays.items():
        array = np.asanyarray(array)
        header = io.BytesIO()
        data = npy.header_data_from_array_1_0(array)
        try:
            npy.write_array_header_1_0(header, data)
        except ValueError:                                  # a header beyond 65535 bytes: version 2.0
            header = io.BytesIO()
            npy.write_array_header_2_0(header, data)
        size = header.tell() + array.nbytes
        named = len(f"{name}.npy".encode())
        fields = (2 if size > limit else 0) + (1 if offset > limit else 0)
        central += 46 + named + (4 + 8 * fields if fields else 0)
        offset += 30 + named + 20 + size
    ends = 22
    if len(arrays) >= 0xFFFF or offset > limit or central > limit:
        ends += 56 + 20                                     # the ZIP64 end record and its locator
    return offset + central + ends


def _write_parquet(path, t, fields, metadata):
    """A row per sample: ``t`` (float64) and a fixed-size list column per (S, width) array of ``fields``,
    ``metadata`` in the schema, each page with its CRC (a byte flipped in a page is refused when read, not read as
    another value: :func:`._parquet.open_parquet`); atomically, encoded straight into the temporary file
    (:func:`_write_encoded`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {"t": pa.array(t, type=pa.float64())}
    for field, values in fields.items():
        flat = pa.array(np.ascontiguousarray(values).reshape(-1), type=pa.float64())
        columns[field] = pa.FixedSizeListArray.from_arrays(flat, values.shape[1])
    table = pa.table(columns).replace_schema_metadata(metadata)
    payload = np.asarray(t).nbytes + sum(np.asarray(values).nbytes for values in fields.values())
    _write_encoded(path, lambda out: pq.write_table(table, out, write_page_checksum=True), payload, ".parquet")


def _mcap_log_times(t, **topics):
    """The log times (ns, a list) of the stamps of times ``t`` (S,), after checking the topic names given."""
    from ._cdr import stamp_parts

    for label, name in topics.items():
        if not isinstance(name, str) or not name.startswith("/"):
            raise ArgumentError(f"{label}: expected a ROS topic name starting with '/', got {shown(name)}")
        try:                # the name is UTF-8 in the file (a newline is kept, and read back: test_floating_logs)
            name.encode("utf-8")
        except UnicodeEncodeError:      # a lone surrogate: the MCAP writer's bare UnicodeEncodeError
            raise ArgumentError(f"{label}: {shown(name)}: not text UTF-8 can hold (a lone surrogate)") from None
    sec, nsec = stamp_parts(t)         # refuses the times a ROS 2 stamp cannot hold
    return (sec * 1_000_000_000 + nsec).tolist()


class _Rows:
    """The messages of (S, L) uint8 rows, message k a byte string made when the writer asks for it: a list of the S
    byte strings held a second copy of the log's messages while the file was written (10⁶ × 7: +290 MB)."""

    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return self.rows.shape[0]

    def __getitem__(self, k):
        return self.rows[k].tobytes()


def _split(rows):
    """The messages of (S, L) uint8 rows as a sequence of S byte strings (made one at a time: :class:`_Rows`)."""
    return _Rows(rows)


def _write_mcap(path, channels, log_times, messages, attached):
    """A ROS 2 MCAP file, atomically: ``channels`` [(topic, msgtype, ros2msg definition)], ``messages`` one
    list of S CDR byte strings per channel, sample k of every channel logged at ``log_times[k]`` (channels in
    turn); ``attached`` {name: float64 array} as raw little-endian attachments ``baseparam<name>``; encoded straight
    into the temporary file (:func:`_write_encoded`)."""
    # each message's record and index entry, about 50 bytes beside its data
    payload = sum(_messages_size(data) + 64 * len(data) for data in messages)
    payload += sum(np.asarray(values).nbytes for values in attached.values())
    _write_encoded(path, lambda out: _encode_mcap(out, channels, log_times, messages, attached), payload, ".mcap")


def _messages_size(messages):
    """The bytes of a channel's messages (:class:`_Rows`, or a list of byte strings)."""
    if isinstance(messages, _Rows):
        return messages.rows.nbytes
    return sum(len(data) for data in messages)


def _encode_mcap(stream, channels, log_times, messages, attached):
    """:func:`_write_mcap`'s file written into the binary ``stream``."""
    from mcap.writer import CompressionType, Writer

    writer = Writer(stream, compression=CompressionType.ZSTD)
    writer.start(profile="ros2", library="baseparam")
    ids = []
    for topic, msgtype, msgdef in channels:
        schema = writer.register_schema(name=msgtype, encoding="ros2msg", data=msgdef.encode())
        ids.append(writer.register_channel(topic=topic, message_encoding="cdr", schema_id=schema))
    for k, log in enumerate(log_times):
        for channel, data in zip(ids, messages):
            writer.add_message(channel, log_time=log, publish_time=log, sequence=k, data=data[k])
    for name, values in attached.items():
        writer.add_attachment(create_time=0, log_time=0, name=f"baseparam{name}",
                              media_type="application/octet-stream",
                              data=np.ascontiguousarray(values, dtype="<f8").tobytes())
    writer.finish()
