"""The stored bytes of an HDF5 attribute, or of a compact dataset, read from its object header in the file.

h5py reads an attribute whole (libhdf5 has no partial read of one), and a compact dataset's values live in its header:
of variable-length strings, libhdf5 allocates each cell's declared length before it reads the text, so a crafted
``joint_names`` (cells all pointing to one long stored text, or declaring a gigabyte) would take gigabytes before being
refused. Their stored references (length, heap address, index) are read here, from the object header's messages (HDF5
file format specification, section IV.A), so that the readers can bound the texts before libhdf5 reads them.

Only what a writer stores plainly is read: object headers of version 1 and 2 with their continuation blocks, an
attribute message of version 1–3 kept in the header (compact storage) or in the unfiltered fractal heap of an
object's attributes (dense storage: section III.G), a layout message of version 3–4 of the compact class. Anything
else (a shared message, a damaged header) gives None, and the caller bounds the read otherwise; a heap of attributes
not read plainly (libhdf5 writes them unfiltered: a damaged one) raises :class:`DamagedHeap`. Every read stays inside
the file, and the bytes read for one object are bounded."""
from __future__ import annotations

import collections
import math
import struct

_ATTRIBUTE, _LAYOUT, _CONTINUATION, _ATTRIBUTE_INFO = 0x000C, 0x0008, 0x0010, 0x0015
_SHARED = 0x02              # a message's flag: its body refers to a message kept elsewhere (not read here)
_MAX_BLOCKS = 256           # header blocks followed (a cycle of continuations in a damaged file ends here)
_MAX_BLOCK_BYTES = 1 << 24  # an object header block holds messages of at most 64 kB each; beyond this, damage
_MAX_HEADER_BYTES = 1 << 26  # all blocks of one header read: continuations all pointing to one big block end here
_MAX_MESSAGE = 1 << 16      # bytes: a message's part whose size is stored in 2 bytes (a datatype, a dataspace)


def attribute_bytes(h5file, obj_id, name, nbytes, count=None):
    """The ``nbytes`` stored bytes of attribute ``name`` of the object ``obj_id`` (an h5py ObjectID) in the open
    file ``h5file`` (h5py.File), where libhdf5 finds it: in the object's header (compact storage) or, when its
    attribute info message names a fractal heap, in that heap only (dense storage, :func:`_dense_attribute_data`),
    as a list: one copy, or every copy the heap holds under the name (libhdf5 reads one of them; with ``count``,
    those of ``count`` variable-length strings, the attribute libhdf5 opened: one written over leaves its former
    message, of other elements, in the heap's free space). None when it is not read plainly, as when an attribute
    message is shared (its body a reference to a message kept elsewhere, which libhdf5 follows and this does not);
    :class:`DamagedHeap` when the heap named cannot be read or holds no such attribute."""
    wanted = name.encode("utf-8") + b"\0"
    compact, heap = [], None
    addr_size, length_size = h5file.id.get_create_plist().get_sizes()
    for kind, flags, body in _messages(h5file, obj_id):
        if kind == _ATTRIBUTE and flags & _SHARED:
            return None
        if kind == _ATTRIBUTE:
            compact.append(_attribute_data(body, wanted))
        elif kind == _ATTRIBUTE_INFO:
            heap = _heap_address(body, addr_size)
    if heap is not None:
        # its message: a prefix and paddings (64 bytes at most), its name, datatype and dataspace (each under 64 kB)
        # and nbytes of data
        copies = _dense_attribute_data(h5file, heap, wanted, 64 + len(wanted) + 2 * _MAX_MESSAGE + nbytes)
        if copies is None:
            return None
        copies = [data[:nbytes] for kind, space, data in copies if len(data) >= nbytes
                  and (count is None or _vlen_text(kind) and _elements(space, length_size) == count)]
        if not copies:
            raise DamagedHeap(f"its fractal heap at address {heap} holds no whole message of it")
        return copies
    data = next((data for data in compact if data is not None), None)
    return [data[:nbytes]] if data is not None and len(data) >= nbytes else None


class DamagedHeap(Exception):
    """The fractal heap of an object's attributes (dense storage) cannot be read plainly, or holds no message of the
    attribute sought: a damaged file (libhdf5 writes these heaps without I/O filters); its message says what."""


def collection_problem(h5file, address):
    """What is wrong with the global heap collection at ``address`` (HDF5 file format specification, section III.E;
    it holds variable-length strings' texts) that libhdf5 would read for ever, or None (nothing, or not read here:
    another driver, a collection larger than read for one object). Its objects are walked as libhdf5 walks them
    (H5HG__cache_heap_deserialize): each one's header and data, and a free-space object (index 0) its size on,
    header included; one of size 0 does not move on, and libhdf5 1.14 loops there without end (a crafted or
    damaged file of 13 kB hung the reader)."""
    try:
        size = h5file.id.get_filesize()
        n = h5file.id.get_create_plist().get_sizes()[1]
    except (AttributeError, ValueError, TypeError, OSError, RuntimeError):
        return None
    if h5file.driver not in ("sec2", "stdio"):
        return None
    try:
        with open(h5file.filename, "rb") as stream:
            reader = _Reader(stream, h5file.userblock_size, size)
            head = reader.read(address, 8 + n)
            if head[:4] != b"GCOL":
                return f"no global heap collection at address {address}"
            data = reader.read(address, int.from_bytes(head[8:8 + n], "little"))
    except (OSError, _OverBound):
        return None
    except _Damaged:
        return f"the global heap collection at address {address} goes past the end of the file"
    at = 8 + n
    while at + 8 + n <= len(data):          # a remainder too short for an object's header: free space
        index, length = struct.unpack_from("<H", data, at)[0], int.from_bytes(data[at + 8:at + 8 + n], "little")
        step = 8 + n + -(-length // 8) * 8 if index else length
        if step == 0:
            return f"the global heap collection at address {address} holds a free space of 0 bytes at offset {at}"
        at += step
    return None


def _heap_address(info, addr_size):
    """The address of the fractal heap of an object's attributes from its attribute info message ``info``, or None
    (none: the attributes are in the header)."""
    at = 2 + (2 if len(info) > 1 and info[1] & 1 else 0)     # past the version, flags and, if kept, the last index
    if len(info) < at + addr_size or info[0] != 0:
        return None
    address = int.from_bytes(info[at:at + addr_size], "little")
    return None if address == _undefined(addr_size) else address


def compact_bytes(h5file, obj_id, nbytes):
    """The ``nbytes`` stored bytes of the compact dataset ``obj_id`` (its values kept in its header), or None."""
    for kind, _flags, body in _messages(h5file, obj_id):
        if kind == _LAYOUT and len(body) >= 4 and body[0] in (3, 4) and body[1] == 0:
            size = struct.unpack_from("<H", body, 2)[0]
            return bytes(body[4:4 + nbytes]) if nbytes <= size <= len(body) - 4 else None
    return None


def _attribute_data(body, wanted):
    """The data of an attribute message ``body`` when it names ``wanted`` (its name, NUL included), else None."""
    parts = _attribute_parts(body, wanted)
    return None if parts is None else parts[2]


def _attribute_parts(body, wanted):
    """(datatype, dataspace, data) of an attribute message ``body`` (bytes each, the data to the body's end) when it
    names ``wanted`` (its name, NUL included), else None."""
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
    kind = start + pad(name_size)
    space = kind + pad(type_size)
    at = space + pad(space_size)
    if at > len(body):
        return None
    return bytes(body[kind:kind + type_size]), bytes(body[space:space + space_size]), bytes(body[at:])


def _vlen_text(kind):
    """Whether the datatype message ``kind`` is of variable-length strings (class 9, its type a string)."""
    return len(kind) >= 2 and kind[0] & 0x0F == 9 and kind[1] & 0x0F == 1


def _elements(space, length_size):
    """The elements of the dataspace message ``space`` (version 1 or 2; a scalar 1, a null space 0), or None."""
    if len(space) < 4 or space[0] not in (1, 2):
        return None
    rank, start = space[1], 8 if space[0] == 1 else 4
    if space[0] == 2 and space[3] != 1:                 # version 2's type: scalar (0) or null (2)
        return {0: 1, 2: 0}.get(space[3])
    if len(space) < start + rank * length_size:
        return None
    return math.prod(int.from_bytes(space[start + k * length_size:start + (k + 1) * length_size], "little")
                     for k in range(rank))


def _dense_attribute_data(h5file, heap, wanted, largest=None):
    """(datatype, dataspace, data) of each attribute message named ``wanted`` kept in dense storage, the fractal heap
    at ``heap`` (a list); None when the file cannot be opened again or the heap is larger than read here
    (:class:`_Reader`). libhdf5 finds the attribute through a B-tree of names, not read here: every message of the
    name among the heap's objects is returned (an attribute written over leaves its former message in the heap's
    free space), for the caller to bound them all; a huge object (one kept outside the heap's blocks) of more than
    ``largest`` bytes is not read (another attribute's). :class:`DamagedHeap` unless the heap is read plainly (no I/O
    filters, :func:`_heap_blocks`) and holds at least one such message."""
    addr_size, length_size = h5file.id.get_create_plist().get_sizes()
    found = []
    try:            # the header was read from this file already (_messages): its name and driver are plain
        with open(h5file.filename, "rb") as stream:
            reader = _Reader(stream, h5file.userblock_size, h5file.id.get_filesize())
            for address, size in _heap_blocks(reader, heap, addr_size, length_size, largest):
                block = reader.read(address, size)
                found += [(block, k) for k in _occurrences(block, wanted)]      # only the blocks naming it kept
    except (OSError, _OverBound):      # a heap of attributes larger than read here: the caller's bound applies
        return None
    except (struct.error, _Damaged):
        raise DamagedHeap(f"its fractal heap at address {heap} is not one libhdf5 writes") from None
    copies = [data for data in (_message_at(block, k, wanted) for block, k in found) if data is not None]
    if not copies:
        raise DamagedHeap(f"its fractal heap at address {heap} holds no message of it")
    return copies


def _message_at(block, k, wanted):
    """(datatype, dataspace, data) of the attribute message whose name ``wanted`` is at ``block[k:]``
    (:func:`_attribute_parts`), or None (its start is not that of a message): its name follows 8 bytes of a version
    1 or 2 message, 9 of a version 3 one."""
    starts = [k - at for at, versions in ((8, (1, 2)), (9, (3,))) if k >= at and block[k - at] in versions]
    return _attribute_parts(block[starts[0]:], wanted) if len(starts) == 1 else None


def _occurrences(data, wanted):
    """The offsets of ``wanted`` in ``data``."""
    k = data.find(wanted)
    while k >= 0:
        yield k
        k = data.find(wanted, k + 1)


def _heap_blocks(reader, address, addr_size, length_size, largest=None):
    """(address, size) of the direct blocks of the fractal heap whose header is at ``address`` (HDF5 file format
    specification, section III.G: the root block, or those its indirect blocks list) and of its huge objects
    (:func:`_huge_objects`) of at most ``largest`` bytes (None: all); _Damaged unless they hold all its objects
    plainly (no I/O filters)."""
    a, n = addr_size, length_size
    head = reader.read(address, 22 + 12 * n + 3 * a)
    if head[:4] != b"FRHP" or head[4] != 0 or struct.unpack_from("<H", head, 7)[0] != 0:
        raise _Damaged                          # another version, or I/O filters on its blocks
    at = 14 + n + a + n + a + 4 * n             # past the free space and managed objects' fields
    huge = _huge_objects(reader, int.from_bytes(head[14 + n:14 + n + a], "little"), a, n) \
        if int.from_bytes(head[at + n:at + 2 * n], "little") else []
    huge = [(where, size) for where, size in huge if largest is None or size <= largest]
    at += 4 * n
    width = struct.unpack_from("<H", head, at)[0]
    start = int.from_bytes(head[at + 2:at + 2 + n], "little")
    largest = int.from_bytes(head[at + 2 + n:at + 2 + 2 * n], "little")
    at += 2 + 2 * n + 4
    root = int.from_bytes(head[at:at + a], "little")
    rows = struct.unpack_from("<H", head, at + a)[0]
    if rows == 0:                               # the root a direct block, or none yet (all objects huge)
        return ([(root, start)] if root != _undefined(a) else []) + huge
    if not 0 < start <= largest or width == 0 or width & (width - 1) or start & (start - 1) or rows > 64:
        raise _Damaged                          # libhdf5's are powers of 2
    first = 5 + a + (struct.unpack_from("<H", head, at - 4)[0] + 7) // 8    # past the block's offset in the heap
    direct_rows = largest.bit_length() - start.bit_length() + 2          # rows of direct blocks, then indirect ones
    blocks, pending, visited = [], [(root, rows)], 0
    while pending:
        visited += 1
        if visited > _MAX_NODES:
            raise _Damaged                      # more indirect blocks than a heap of attributes has: a cycle
        address, count = pending.pop()
        entries = reader.read(address, first + count * width * a)
        if entries[:4] != b"FHIB":
            raise _Damaged
        for k in range(count * width):
            child, row = int.from_bytes(entries[first + k * a:first + (k + 1) * a], "little"), k // width
            size = start << max(row - 1, 0)     # rows 0 and 1: the starting size, then doubling
            if child == _undefined(a):          # no block there yet
                continue
            if row < direct_rows:
                blocks.append((child, size))
            else:                               # an indirect block of the rows that make up its size
                pending.append((child, size.bit_length() - start.bit_length() - width.bit_length() + 2))
    return blocks + huge


def _huge_objects(reader, address, addr_size, length_size):
    """(address, size) of the huge objects of a fractal heap (each kept whole outside its blocks), from the records of
    the version 2 B-tree at ``address`` (of type 1: address, length, id), of depth up to :data:`_MAX_DEPTH`."""
    a, n = addr_size, length_size
    head = reader.read(address, 18 + a)         # signature, version, type, node size, record size, depth, ...
    if head[:4] != b"BTHD" or head[5] != 1:
        raise _Damaged                          # not huge objects' records
    node, size, depth = struct.unpack_from("<IHH", head, 6)
    if size != a + 2 * n or depth > _MAX_DEPTH or node <= 10 + size:
        raise _Damaged
    widths = _pointer_widths(node, size, a, depth)
    nodes = [(int.from_bytes(head[16:16 + a], "little"), struct.unpack_from("<H", head, 16 + a)[0], depth)]
    found, visited = [], 0
    while nodes:
        visited += 1
        if visited > _MAX_NODES:
            raise _Damaged                      # more nodes than a heap of attributes has: a cycle
        at, count, level = nodes.pop()
        if not level:
            found += _records(reader.read(at, 6 + count * size), b"BTLF", count, size, a, n)
            continue
        width = a + widths[0] + (widths[level - 1] if level > 1 else 0)
        inner = reader.read(at, 6 + count * size + (count + 1) * width)
        found += _records(inner, b"BTIN", count, size, a, n)
        for k in range(count + 1):      # each child: its address, its records, (below depth 1) all records under it
            child = inner[6 + count * size + k * width:6 + count * size + (k + 1) * width]
            nodes.append((int.from_bytes(child[:a], "little"), int.from_bytes(child[a:a + widths[0]], "little"),
                          level - 1))
    return found


_MAX_DEPTH = 4          # a B-tree of huge objects deeper than this holds more than a file's attributes
_MAX_NODES = 1 << 14    # nodes of that B-tree, or a heap's indirect blocks, visited: more, a cycle in a damaged file


def _pointer_widths(node, size, a, depth):
    """The bytes of a child pointer's counts in a version 2 B-tree of ``node``-byte nodes and ``size``-byte records
    (libhdf5's H5B2__hdr_init): [0] a child's records (by the most a leaf holds), [d] all records under a node of
    depth d (by the most it holds)."""
    def width(count):
        return (max(count, 1).bit_length() - 1) // 8 + 1

    most = (node - 10) // size              # a leaf: its prefix (signature, version, type) and checksum aside
    widths, under = [width(most)], most
    for level in range(1, depth + 1):
        pointer = a + widths[0] + (widths[level - 1] if level > 1 else 0)
        here = (node - 10 - pointer) // (size + pointer)
        under = (here + 1) * under + here
        widths.append(width(under))
    return widths


def _records(node, signature, count, size, a, n):
    """(address, length) of the ``count`` huge objects' records of ``size`` bytes of a B-tree ``node``."""
    if node[:4] != signature or node[5] != 1:
        raise _Damaged
    return [(int.from_bytes(node[6 + k * size:6 + k * size + a], "little"),
             int.from_bytes(node[6 + k * size + a:6 + k * size + a + n], "little")) for k in range(count)]


def _undefined(addr_size):
    """HDF5's undefined address (all bits set) in ``addr_size`` bytes."""
    return (1 << 8 * addr_size) - 1


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


class _OverBound(_Damaged):
    """More bytes than this reader reads for one object (a valid file's big attributes beside): not damage."""


class _Reader:
    """Bytes of the file at HDF5 addresses (relative to the base address), never past its end nor more than
    :data:`_MAX_HEADER_BYTES` in all (the blocks read are held until their messages are)."""

    def __init__(self, stream, base, size):
        self.stream, self.base, self.size = stream, base, size
        self.left = _MAX_HEADER_BYTES

    def read(self, address, n):
        self.left -= max(n, 0)
        if address < 0 or n < 0 or self.base + address + n > self.size:
            raise _Damaged
        if n > _MAX_BLOCK_BYTES or self.left < 0:
            raise _OverBound
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
