"""Round 24, review rv3: the stop's merged reader and writer work tried against crafted and valid inputs."""
import io
import os
import re
import struct

import h5py
import numpy as np
import pytest

from baseparam.identification import _h5_headers
from baseparam.identification._arrays import _reference
from test_fuzz_round24_lrd5 import _read_limited, _write_keys

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


def _dense_file(path, names, extra=12):
    """A log whose root keeps its attributes in dense storage (a fractal heap), joint_names among them."""
    with h5py.File(path, "w", libver="latest", track_order=True) as h5:
        h5["q"] = np.zeros((5, len(names)))
        for k in range(extra):
            h5.attrs[f"note{k}"] = k
        h5.attrs["joint_names"] = np.array(names, dtype=VLEN)


def test_dense_attribute_declaring_a_gigabyte_refused_unread(tmp_path):
    """Dense storage: the names were taken to be at most the file's size each, but a stored reference declares any
    length up to 4 GiB, which libhdf5 allocates before it finds the text shorter: a file of 40 kB made the reader
    take a gigabyte (here: its address space, limited, exhausted). Its references are now read from the heap (the
    attribute a huge object here: 300 references, unchecksummed) and refused unread."""
    path = tmp_path / "log.h5"
    names = [f"joint{k:03d}MARK" for k in range(300)]
    _dense_file(path, names)
    raw = bytearray(path.read_bytes())
    at = [k for k in range(len(raw) - 16) if struct.unpack_from("<I", raw, k)[0] == 12
          and struct.unpack_from("<I", raw, k + 12)[0] in (1, 2)]
    assert len(at) == 2
    for k in at:
        struct.pack_into("<I", raw, k, 1_000_000_000)
    path.write_bytes(bytes(raw))
    out = _read_limited(path, 700)
    assert out.startswith("DataError log.h5: attribute joint_names: the names up to row "), out[:300]


@pytest.mark.parametrize("extra", [0, 12, 40])
@pytest.mark.parametrize("count", [7, 300])
def test_dense_attributes_read_as_written(tmp_path, extra, count):
    path = tmp_path / "log.h5"
    names = [f"joint_{k}_é" for k in range(count)]
    _dense_file(path, names, extra)
    with h5py.File(path, "a") as h5:
        for k in range(extra // 4):
            h5.attrs[f"big{k}"] = np.zeros(1000)         # huge objects beside
    assert _read_limited(path, 700) == f"OK {names}"


@pytest.mark.parametrize("values", [200, 2000])
def test_dense_attribute_beside_hundreds_of_others_read(tmp_path, values):
    """300 attributes of 1.6 kB beside (the heap's indirect blocks below its root), or of 16 kB (each a huge object
    of the heap, listed by a B-tree of depth 2), read through; a heap not read so is bounded at 4 GiB a name, and 7
    names were refused."""
    path = tmp_path / "log.h5"
    names = [f"j{k}" for k in range(7)]
    with h5py.File(path, "w", libver="latest", track_order=True) as h5:
        h5["q"] = np.zeros((5, 7))
        h5.attrs["joint_names"] = np.array(names, dtype=VLEN)
        for k in range(300):
            h5.attrs[f"x{k}"] = np.arange(values)
    assert _read_limited(path, 700) == f"OK {names}"


def test_attribute_lengths_not_read_refused_at_four_gib_a_name():
    from baseparam.errors import DataError
    from baseparam.identification._arrays import _bound_unchecked_attribute

    with pytest.raises(DataError, match=r"^where: 7 names of variable-length text kept where their lengths cannot be "
                                        r"checked .* \(4 GiB each\), .*; store joint_names as a dataset$"):
        _bound_unchecked_attribute(7, 1 << 20, "where")


@pytest.mark.parametrize("ext", [".npz", ".h5", ".parquet"])
def test_a_key_beside_its_other_case_compared_as_twins_are(tmp_path, ext):
    """'q' beside 'Q' holding other values: 'q' was read and 'Q' left without a word, where 'q' beside 'positions'
    is refused and a CSV header refuses 'q1' beside 'Q1'; the same values still read as before."""
    import baseparam as bp
    from baseparam.errors import DataError

    t = np.arange(20) * 0.01
    q = np.stack([np.sin(t), np.cos(t)], axis=1)
    same = bp.read_trajectory(_write_keys(tmp_path / f"same{ext}", {"t": t, "q": q, "Q": q, "Time": t}))
    assert np.array_equal(same.q, q) and np.array_equal(same.t, t)
    with pytest.raises(DataError, match=r"field q: (key|column)s 'q' and 'Q' both hold it, with different values"):
        bp.read_trajectory(_write_keys(tmp_path / f"other{ext}", {"t": t, "q": q, "Q": -q}))
    with pytest.raises(DataError, match=r"field t: (key|column)s 't' and 'Time' both hold it, with different values"):
        bp.read_trajectory(_write_keys(tmp_path / f"time{ext}", {"t": t, "q": q, "Time": t + 1}))


def test_a_parquet_log_named_in_bytes_of_another_encoding_is_read(tmp_path):
    """A POSIX name is bytes: one not UTF-8 (Latin-1 'é') decodes with surrogates, which pyarrow refused ('cannot
    read as Parquet: ... surrogates not allowed'), where CSV, NPZ, HDF5 and MCAP logs of that name read (the floating
    reader opens Parquet through the same helper)."""
    import baseparam as bp
    from baseparam.motion import Trajectory

    t = np.arange(40) * 0.01
    q = np.stack([np.sin(t), np.cos(t)], axis=1)
    plain, name = tmp_path / "log.parquet", os.fsencode(tmp_path) + b"/caf\xe9.parquet"
    bp.write_trajectory(Trajectory(t=t, q=q, tau=2 * q), str(plain))
    os.replace(plain, name)
    for given in (name, os.fsdecode(name)):
        assert np.array_equal(bp.read_trajectory(given).q, q)


@pytest.mark.parametrize("kind", ["mcap", "ros1"])
def test_a_second_publisher_agreeing_to_float32_on_a_joint_held_still_is_read(tmp_path, kind):
    """Two publishers of one topic's positions: the second (more messages, positions alone) gives them as float32
    values (a bridge, a GUI), and joint b is held still: no step between samples to allow for, its 1.2e-8 of rounding
    was refused as a disagreement (tolerance 1e-9); a real one (0.5 apart) still is."""
    import baseparam as bp
    from baseparam.errors import DataError
    from test_logs import write_bag

    def bag(name, shift):
        t = 1.0 + np.arange(40) * 0.01
        full = [(int(round(x * 1e9)),) * 2 + (["a", "b"], [np.sin(x), 0.7], [np.cos(x), 0.0], [1.0, 2.0]) for x in t]
        later = t[0] + 0.0013 + np.arange(60) * (t[-1] - t[0] - 0.003) / 60
        other = [(int(round(x * 1e9)),) * 2 + (["a", "b"], [float(np.float32(v)) for v in (np.sin(x), 0.7 + shift)],
                                               [], []) for x in later]
        path = tmp_path / (f"{name}.bag" if kind == "ros1" else name)
        return write_bag(path, kind, {"/joint_states": sorted(full + other, key=lambda m: m[0])})

    traj = bp.read_trajectory(bag("f32", 0.0), joints=["a", "b"])
    assert traj.t.size == 60 and np.allclose(traj.q[:, 1], 0.7, atol=1e-7, rtol=0)
    with pytest.raises(DataError, match="joint b: .* give positions 0.5 apart"):
        bp.read_trajectory(bag("shifted", 0.5), joints=["a", "b"])


def test_an_output_climbing_out_of_a_file_or_a_missing_folder_is_refused(tmp_path, monkeypatch):
    """'a_file/../x.csv' and 'missing/../x.csv' are names the system refuses (not a directory, no such one), but
    their real path, made lexically, is 'x.csv': a file the name does not reach was written. '..' out of a folder
    (through a link too) is written where the system resolves it, as before."""
    import baseparam as bp
    from baseparam.errors import StorageError
    from baseparam.motion import Trajectory

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "d").mkdir()
    (tmp_path / "elsewhere" / "inner").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere" / "inner")
    t = np.arange(20) * 0.01
    log = Trajectory(t=t, q=np.stack([np.sin(t), np.cos(t)], axis=1))
    for name, reason in (("a_file/../x.csv", "Not a directory"), ("missing/../x.csv", "No such file or directory")):
        with pytest.raises(StorageError, match=rf"^{re.escape(name)}: cannot write here \({reason}\)$"):
            bp.write_trajectory(log, name)
    assert not (tmp_path / "x.csv").exists()
    bp.write_trajectory(log, "d/../y.csv")
    bp.write_trajectory(log, "link/../z.csv")
    assert (tmp_path / "y.csv").is_file() and (tmp_path / "elsewhere" / "z.csv").is_file()


def test_a_heap_whose_indirect_blocks_point_back_to_the_root_ends():
    """A damaged fractal heap: every entry of its root indirect block (40 rows) names the root itself, each an
    indirect block of fewer rows than its parent: a tree of 4^40 blocks to visit, stopped at the bound."""
    a = n = 8
    head = bytearray(b"FRHP" + struct.pack("<BHHBI", 0, 8, 0, 0, 4096) + bytes(10 * n + 2 * a))
    head += struct.pack("<H", 4) + struct.pack("<QQ", 512, 1024) + struct.pack("<HH", 32, 1)
    root = 4096
    head += struct.pack("<QH", root, 40)
    file = bytearray(1 << 16)
    file[:len(head)] = head
    entries = b"FHIB" + bytes(1) + struct.pack("<Q", 0) + bytes(4) + struct.pack("<Q", root) * (40 * 4)
    file[root:root + len(entries)] = entries
    reader = _h5_headers._Reader(io.BytesIO(bytes(file)), 0, len(file))
    with pytest.raises(_h5_headers._Damaged):
        _h5_headers._heap_blocks(reader, 0, a, n)
