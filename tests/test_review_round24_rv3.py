"""Round 24, review rv3: the stop's merged reader and writer work tried against crafted and valid inputs."""
import io
import os
import struct

import h5py
import numpy as np
import pytest

from baseparam.identification import _h5_headers
from baseparam.identification._arrays import _reference

VLEN = h5py.string_dtype()


def _v1_message(kind, body, flags=0):
    body = body + b"\0" * (-len(body) % 8)
    return struct.pack("<HHB3x", kind, len(body), flags) + body


def _continuation(address, length):
    return _v1_message(0x0010, struct.pack("<QQ", address, length))


def _v1_header(file, messages):
    """A version 1 object header at address 0 of ``file`` (bytearray) holding ``messages`` (bytes)."""
    file[:16] = struct.pack("<BxHII4x", 1, 1, 1, len(messages))
    file[16:16 + len(messages)] = messages


def _kinds(file):
    reader = _h5_headers._Reader(io.BytesIO(bytes(file)), 0, len(file))
    return [kind for kind, _flags, _body in _h5_headers._header(reader, 0, (8, 8))]


def test_continuation_blocks_read_in_libhdf5_order():
    """Two continuation messages in one block: libhdf5 reads the blocks in the order their messages are found (its
    list of chunks); the parser read the last found first, so of two messages of one name in the two blocks, it
    found another than libhdf5 reads."""
    file = bytearray(4096)
    _v1_header(file, _continuation(1024, 16) + _continuation(2048, 16))
    file[1024:1040] = _v1_message(0x0001, b"A" * 8)
    file[2048:2064] = _v1_message(0x0003, b"B" * 8)
    assert _kinds(file) == [0x0001, 0x0003]


def test_continuations_to_one_big_block_stop_at_the_header_bound(monkeypatch):
    """Every continuation of a block pointing to one big block: each was read and held (256 × 16 MB from a 16 MB
    file); the bytes read for one header are now bounded, past it the header is not read plainly (the caller's
    fallback bound applies)."""
    monkeypatch.setattr(_h5_headers, "_MAX_HEADER_BYTES", 1 << 20)
    file = bytearray(1 << 17)
    _v1_header(file, b"".join(_continuation(4096, 1 << 16) for _ in range(40)))
    with pytest.raises(_h5_headers._Damaged):
        _kinds(file)


def test_shared_attribute_message_not_read_as_an_attribute(tmp_path):
    """An attribute message flagged shared holds a reference to a message kept elsewhere, which libhdf5 follows: its
    body was parsed as the attribute's own, its stored lengths not those libhdf5 allocates."""
    path = tmp_path / "log.h5"
    with h5py.File(path, "w", libver="earliest") as h5:
        h5.attrs["joint_names"] = np.array(["a", "b"], dtype=VLEN)
    raw = bytearray(path.read_bytes())
    name = raw.index(b"joint_names\0")
    assert struct.unpack_from("<H", raw, name - 16)[0] == 0x000C      # its message's header: type, size, flags
    raw[name - 12] |= 0x02
    path.write_bytes(bytes(raw))
    with h5py.File(path, "r") as h5:
        assert _h5_headers.attribute_bytes(h5, h5.id, "joint_names", 2 * _reference(h5).itemsize) is None


def test_kernel_cache_through_a_link_is_used_by_its_real_path(tmp_path):
    """BASEPARAM_CACHE_DIR naming a link in a folder others may write, to a folder of this user's: the folders of the
    real path were checked, but the libraries were checked and loaded through the link, which another user could
    swap between the check and the load (to a folder of theirs); the cache is now used through its real path."""
    from baseparam.dynamics import _native

    mine, shared = tmp_path / "mine", tmp_path / "shared"
    mine.mkdir(mode=0o700)
    shared.mkdir()
    os.chmod(shared, 0o777)
    (shared / "cache").symlink_to(mine)
    assert _native._trusted_cache(str(shared / "cache")) == os.path.realpath(mine)
