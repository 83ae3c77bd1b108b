"""The stored bytes of an HDF5 attribute, or of a compact dataset, read from its object header in the file.

h5py reads an attribute whole (libhdf5 has no partial read of one), and a compact dataset's values live in its
header: of variable-length strings, libhdf5 allocates each cell's declared length before it reads the text, so a
crafted ``joint_names`` (cells all pointing to one long stored text, or declaring a gigabyte) took gigabytes to be
refused. Their stored references (length, heap address, index) are read here, from the object header's messages
(HDF5 file format specification, section IV.A), so that the readers can bound the texts before libhdf5 reads them.

Only what a writer stores plainly is read: object headers of version 1 and 2 with their continuation blocks, an
attribute message of version 1–3 kept in the header (compact storage), a layout message of version 3–4 of the compact
class. Anything else (dense attribute storage in a fractal heap, a damaged header) gives None, and the caller bounds
the read otherwise. Every read stays inside the file.
"""
from __future__ import annotations

import collections
import struct

_ATTRIBUTE, _LAYOUT, _CONTINUATION = 0x000C, 0x0008, 0x0010
_SHARED = 0x02              # a message's flag: its body refers to a message kept elsewhere (not read here)
_MAX_BLOCKS = 256           # header blocks followed (a cycle of continuations in a damaged file ends here)
_MAX_BLOCK_BYTES = 1 << 24  # an object header block holds messages of at most 64 kB each; beyond this, damage
_MAX_HEADER_BYTES = 1 << 26  # all blocks of one header read: continuations all pointing to one big block end here


def attribute_bytes(h5file, obj_id, name, nbytes):
    """The ``nbytes`` stored bytes of attribute ``name`` of the object ``obj_id`` (an h5py ObjectID) in the open
    file ``h5file`` (h5py.File), when its header holds it as one message; else None, as when an attribute message
    before it is shared (its body a reference to a message kept elsewhere, which libhdf5 reads and this does not)."""
    wanted = name.encode("utf-8") + b"\0"
    for kind, flags, body in _messages(h5file, obj_id):
        if kind == _ATTRIBUTE and flags & _SHARED:
            return None
        data = _attribute_data(body, wanted) if kind == _ATTRIBUTE else None
        if data is not None:
            return data[:nbytes] if len(data) >= nbytes else None
    return None


def compact_bytes(h5file, obj_id, nbytes):
    """The ``nbytes`` stored bytes of the compact dataset ``obj_id`` (its values kept in its header), or None."""
    for kind, _flags, body in _messages(h5file, obj_id):
        if kind == _LAYOUT and len(body) >= 4 and body[0] in (3, 4) and body[1] == 0:
            size = struct.unpack_from("<H", body, 2)[0]
            return bytes(body[4:4 + nbytes]) if nbytes <= size <= len(body) - 4 else None
    return None


def _attribute_data(body, wanted):
    """The data of an attribute message ``body`` when it names ``wanted`` (its name, NUL included), else None."""
    if len(body) < 8 or body[0] not in (1, 2, 3):
        return None
    version = body[0]
    name_size, type_size, space_size = struct.unpack_from("<HHH", body, 2)
    start = 9 if version == 3 else 8
    if version == 1:
        def pad(n):
            return -(-n // 8) * 8
    else:
        def pad(n):
            return n
    name = bytes(body[start:start + name_size])
    if name != wanted:
        return None
    at = start + pad(name_size) + pad(type_size) + pad(space_size)
    return bytes(body[at:]) if at <= len(body) else None


def _messages(h5file, obj_id):
    """(type, flags, body) of each message of the object header of ``obj_id``; nothing when it cannot be read
    plainly."""
    import h5py

    try:
        address = h5py.h5o.get_info(obj_id).addr
        sizes = h5file.id.get_create_plist().get_sizes()
        base = h5file.userblock_size
        path = h5file.filename
        size = h5file.id.get_filesize()
    except (AttributeError, ValueError, TypeError, OSError, RuntimeError):
        return
    if h5file.driver not in ("sec2", "stdio"):       # the bytes are those of the file on disk
        return
    try:
        with open(path, "rb") as stream:
            yield from _header(_Reader(stream, base, size), address, sizes)
    except (OSError, struct.error, _Damaged):
        return


class _Damaged(Exception):
    """A header not read plainly: the caller falls back."""


class _Reader:
    """Bytes of the file at HDF5 addresses (relative to the base address), never past its end nor more than
    :data:`_MAX_HEADER_BYTES` in all (the blocks read are held until their messages are)."""

    def __init__(self, stream, base, size):
        self.stream, self.base, self.size = stream, base, size
        self.left = _MAX_HEADER_BYTES

    def read(self, address, n):
        self.left -= max(n, 0)
        if address < 0 or n < 0 or n > _MAX_BLOCK_BYTES or self.base + address + n > self.size or self.left < 0:
            raise _Damaged
        self.stream.seek(self.base + address)
        data = self.stream.read(n)
        if len(data) != n:
            raise _Damaged
        return data


def _header(reader, address, sizes):
    """The messages of the header at ``address``, version 1 or 2, continuation blocks included, in libhdf5's order:
    the blocks in the order their continuation messages are found (first found, first read)."""
    addr_size, length_size = sizes
    first = reader.read(address, 16)
    if first[:4] == b"OHDR" and first[4] == 2:
        flags = first[5]
        at = 6 + (16 if flags & 0x20 else 0) + (4 if flags & 0x10 else 0)
        width = 1 << (flags & 3)
        data = reader.read(address + at + width, int.from_bytes(reader.read(address + at, width), "little"))
        stamp = 6 if flags & 0x04 else 4        # a message's type, size, flags and, if tracked, its creation order
    elif first[0] == 1:
        data, stamp = reader.read(address + 16, struct.unpack_from("<I", first, 8)[0]), 8
    else:
        raise _Damaged
    pending, followed = collections.deque([data]), 0
    while pending:
        for kind, flags, body in _block_messages(pending.popleft(), stamp):
            if kind != _CONTINUATION:
                yield kind, flags, body
                continue
            if len(body) < addr_size + length_size or followed >= _MAX_BLOCKS:
                raise _Damaged
            followed += 1
            block = reader.read(int.from_bytes(body[:addr_size], "little"),
                                int.from_bytes(body[addr_size:addr_size + length_size], "little"))
            if stamp != 8:          # version 2: "OCHK", the messages, a checksum
                if block[:4] != b"OCHK":
                    raise _Damaged
                block = block[4:-4]
            pending.append(block)


def _block_messages(data, stamp):
    """(type, flags, body) of the messages of one header block ``data``, each after a prefix of ``stamp`` bytes (8 in a
    version 1 header: type (2), size (2), flags, 3 reserved; 4 or 6 in version 2: type (1), size (2), flags,
    creation order (2))."""
    at = 0
    while at + stamp <= len(data):
        if stamp == 8:
            kind, size, flags = struct.unpack_from("<HHB", data, at)
        else:
            kind, size, flags = struct.unpack_from("<BHB", data, at)
        if at + stamp + size > len(data):
            raise _Damaged
        yield kind, flags, data[at + stamp:at + stamp + size]
        at += stamp + size
