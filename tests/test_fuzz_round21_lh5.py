"""An HDF5 log's ``joint_names`` of variable-length strings: cells pointing to one long stored text (a crafted file)
refused before they are read, however the dataset is laid out; the names of valid files read as before."""
import struct
import zlib

import h5py
import numpy as np
import pytest

from baseparam.errors import DataError
from baseparam.identification._arrays import MAX_NAMES_BYTES, VLEN_FACTOR, h5_joint_names

JOINTS = [f"panda_joint{k}" for k in range(1, 8)]


def _write(path, names, **layout):
    with h5py.File(path, "w") as h5:
        h5.create_dataset("joint_names", data=np.asarray(names, dtype=object), dtype=h5py.string_dtype(), **layout)


def _point_to_one(path, rows, n, big, **layout):
    """A (rows, n) dataset whose column 0 holds a text of ``big`` bytes in row 0 and 'a' after it, its stored
    references then all made to point to row 0's text: every row reads alike, a file of about ``big`` bytes."""
    names = np.empty((rows, n), dtype=object)
    names[:] = [f"j{k}" for k in range(n)]
    names[1:, 0] = "a"
    names[0, 0] = "y" * big
    _write(path, names, **layout)
    with h5py.File(path, "r+") as h5:
        dset = h5["joint_names"]
        if dset.chunks is None:
            offset = dset.id.get_offset()
            raw = bytearray(open(path, "rb").read())
            refs = raw[offset:offset + 16 * rows * n]
            for row in range(1, rows):
                refs[16 * row * n:16 * row * n + 16] = refs[:16]
            raw[offset:offset + 16 * rows * n] = refs
            h5.close()
            open(path, "wb").write(bytes(raw))
            return
        first = None
        for k in range(dset.id.get_num_chunks()):
            corner = dset.id.get_chunk_info(k).chunk_offset
            mask, data = dset.id.read_direct_chunk(corner)
            refs = bytearray(zlib.decompress(data) if "compression" in layout else data)
            first = first or bytes(refs[:16])
            for row in range(len(refs) // (16 * dset.chunks[1])):
                at = 16 * row * dset.chunks[1]
                refs[at:at + 16] = first
            dset.id.write_direct_chunk(corner, zlib.compress(bytes(refs)) if "compression" in layout else bytes(refs),
                                       mask)


@pytest.mark.parametrize("layout", [{}, {"chunks": (50, 2)}, {"chunks": (64, 2), "compression": "gzip"},
                                    {"chunks": (64, 2), "compression": "gzip", "shuffle": True}])
@pytest.mark.parametrize("rows", [300, 6000])      # read whole (at most 10 000 names), or a block of rows at a time
def test_cells_pointing_to_one_long_name_refused_before_reading(tmp_path, layout, rows):
    path = tmp_path / "log.h5"
    big = 16_384 if rows > 1000 else MAX_NAMES_BYTES // 64
    _point_to_one(path, rows, 2, big, **layout)
    with h5py.File(path) as h5:            # the crafted file reads as rows all alike, of far more bytes than the file
        assert h5["joint_names"][rows - 1, 0] == b"y" * big
    assert rows * big > 2 * (VLEN_FACTOR * path.stat().st_size + MAX_NAMES_BYTES)
    with pytest.raises(DataError, match=r"^log.h5: key joint_names: the names up to row \d+ take more than \d+ bytes"):
        h5_joint_names(path, "log.h5")


def test_compact_layout_counted_name_by_name(tmp_path):
    """A compact dataset (its references in the object's header, not readable first): its names counted one at a
    time as read, refused once they exceed the bound."""
    path, big, rows = tmp_path / "log.h5", 65_536, 2000
    names = np.array([["y" * big, "b"]] + [["a", "b"]] * (rows - 1), dtype=object)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    with h5py.File(path, "w") as h5:
        dset = h5py.h5d.create(h5.id, b"joint_names", h5py.h5t.py_create(h5py.string_dtype(), logical=True),
                               h5py.h5s.create_simple(names.shape), dcpl=dcpl)
        dset.write(h5py.h5s.ALL, h5py.h5s.ALL, names)
    raw = bytearray(path.read_bytes())
    one = struct.pack("<I", 1)
    at = next(k for k in range(len(raw)) if raw[k:k + 4] == struct.pack("<I", big)
              and raw[k + 16:k + 20] == one and raw[k + 32:k + 36] == one)
    for row in range(1, rows):
        raw[at + 32 * row:at + 32 * row + 16] = raw[at:at + 16]
    path.write_bytes(bytes(raw))
    with h5py.File(path) as h5:
        assert h5["joint_names"].id.get_create_plist().get_layout() == h5py.h5d.COMPACT
        assert h5["joint_names"][rows - 1, 0] == b"y" * big
    with pytest.raises(DataError, match=r"^log.h5: key joint_names: the names up to row \d+ take more than"):
        h5_joint_names(path, "log.h5")


@pytest.mark.parametrize("layout", [{}, {"chunks": (1000, 7), "compression": "gzip", "shuffle": True},
                                    {"chunks": (333, 3)}])
@pytest.mark.parametrize("length", [12, 600])
def test_valid_names_read_as_written(tmp_path, layout, length):
    path = tmp_path / "log.h5"
    joints = [name.ljust(length, "_") for name in JOINTS]
    _write(path, [joints] * 3000, **layout)
    assert h5_joint_names(path, "log.h5") == joints
    _write(path, [joints] * 3000 + [joints[::-1]], **layout)        # a ROS log whose order changed: refused as before
    with pytest.raises(DataError, match="row 3000 names the joints"):
        h5_joint_names(path, "log.h5")
    _write(path, joints, **layout and {"chunks": (7,)})
    assert h5_joint_names(path, "log.h5") == joints


@pytest.mark.parametrize("layout", [{}, {"chunks": (64, 2), "compression": "gzip"}])
def test_one_stored_name_shared_by_all_rows_read(tmp_path, layout):
    """A writer that stores a name once and points every row's cell to it (names of 64 bytes): read as written."""
    path = tmp_path / "log.h5"
    _point_to_one(path, 20_000, 2, 64, **layout)
    assert h5_joint_names(path, "log.h5") == ["y" * 64, "j1"]
