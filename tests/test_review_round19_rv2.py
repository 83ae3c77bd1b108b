"""Review of round nineteen's readers and dynamics (rv2): what the merged commits left next to what they fixed."""
import pytest

from baseparam.errors import BaseParamError
from test_fuzz_round19_lread import page_headers_read

# --- a Parquet file written byte by byte (Thrift compact encoding): only what the page walk reads --------------------
_I32, _I64, _BINARY, _LIST, _STRUCT = 5, 6, 8, 9, 12


def _varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | 0x80 if v else b)
        if not v:
            return bytes(out)


def _encoded(kind, value):
    if kind in (_I32, _I64):
        return _varint((value << 1) ^ (value >> 63))
    if kind == _BINARY:
        return _varint(len(value)) + value
    if kind == _STRUCT:
        out, last = bytearray(), 0
        for field, k, v in value:
            out += bytes([((field - last) << 4) | k]) + _encoded(k, v)
            last = field
        return bytes(out) + b"\0"
    element, items = value                                      # a list
    head = bytes([len(items) << 4 | element]) if len(items) < 15 else bytes([0xF0 | element]) + _varint(len(items))
    return head + b"".join(_encoded(element, x) for x in items)


def _data_page(values, payload):
    """A v1 data page of ``values`` values whose ``payload`` bytes follow its header (zeros)."""
    header = [(1, _I32, 0), (2, _I32, payload), (3, _I32, payload),
              (5, _STRUCT, [(1, _I32, values), (2, _I32, 0), (3, _I32, 3), (4, _I32, 3)])]
    return _encoded(_STRUCT, header) + bytes(payload)


def repeated_chunk_file(path, region_bytes, row_groups):
    """A file of one double column t whose ``row_groups`` row groups (one row each) all point at the same column
    chunk: a page of its one value, then pages of 500 bytes and no value up to ``region_bytes``. Returns the pages
    a chunk holds."""
    pages = [_data_page(1, 8)]
    while sum(map(len, pages)) + len(_data_page(0, 500)) <= region_bytes:
        pages.append(_data_page(0, 500))
    region = b"".join(pages)
    meta = [(1, _I32, 5), (3, _LIST, (_BINARY, [b"t"])), (4, _I32, 0), (5, _I64, 1), (6, _I64, len(region)),
            (7, _I64, len(region)), (9, _I64, 4)]
    group = [(1, _LIST, (_STRUCT, [[(2, _I64, 4), (3, _STRUCT, meta)]])), (2, _I64, len(region)), (3, _I64, 1)]
    schema = [[(4, _BINARY, b"schema"), (5, _I32, 1)], [(1, _I32, 5), (3, _I32, 0), (4, _BINARY, b"t")]]
    footer = _encoded(_STRUCT, [(1, _I32, 1), (2, _LIST, (_STRUCT, schema)), (3, _I64, row_groups),
                                (4, _LIST, (_STRUCT, [group] * row_groups))])
    path.write_bytes(b"PAR1" + region + footer + len(footer).to_bytes(4, "little") + b"PAR1")
    return len(pages)


def test_parquet_chunks_declared_over_the_same_pages_are_refused_before_a_page_is_walked(tmp_path, monkeypatch):
    # 55e5073 bounds a chunk's pages by its own bytes (one per 512); row groups repeating one chunk of 512-byte pages
    # had each walk it again: a 10 MB file of 100 such row groups took 10 s of CPU, 10 000 of them some 1 000 s
    from baseparam.identification import _parquet_pages
    path = tmp_path / "repeated.parquet"
    pages = repeated_chunk_file(path, 100_000, 1)
    assert [(c.column, c.values) for c in _parquet_pages.column_chunks(path, "x")] == [("t", 1)]   # walked
    read = page_headers_read(monkeypatch)
    assert len(_parquet_pages.column_chunks(path, "x")) == 1 and len(read) == pages > 150
    repeated_chunk_file(path, 100_000, 40)
    read.clear()
    with pytest.raises(BaseParamError, match=r"^x: cannot read as Parquet: its column chunks' pages take \d+ bytes, "
                                             r"more than the \d+ bytes before its footer") as caught:
        _parquet_pages.column_chunks(path, "x")
    assert "\n" not in str(caught.value) and read == []


@pytest.mark.parametrize("suffix", [".h5", ".npz"])
@pytest.mark.parametrize("robot_file, shape", [("planar_rrr", (3, 1)), ("puma560", (2, 3))])
def test_a_2d_array_of_distinct_joint_names_is_read_in_its_order_as_before(tmp_path, suffix, robot_file, shape):
    # 55c6547 reads a joint_names array (S, n) by its rows (a row per sample, naming the same joints); a column vector
    # of the names (n, 1), or a row of names per arm, read in its order before it, became rows that disagree: 'row 1
    # names the joints joint2, row 0 joint1' refused a log in the robot's order
    import numpy as np

    import baseparam as bp
    from baseparam.model.robot import joint_names
    robot = bp.load_robot(f"robots/{robot_file}.yaml")
    joints = list(joint_names(robot.joints))
    q = np.random.default_rng(4).random((50, robot.n_dof))
    path = (tmp_path / "log").with_suffix(suffix)
    for order in (joints, joints[::-1]):
        arrays = {"t": np.arange(50) * 0.01, "q": q, "tau": q, "joint_names": np.array(order, dtype="S").reshape(shape)}
        if suffix == ".npz":
            np.savez(path, **arrays)
        else:
            import h5py
            with h5py.File(path, "w") as h5:
                for key, value in arrays.items():
                    h5[key] = value
        if order == joints:
            np.testing.assert_array_equal(bp.read_trajectory(path, joints=joints).q, q)
        else:
            with pytest.raises(BaseParamError, match=f"the file names its joints {', '.join(order)} in this order"):
                bp.read_trajectory(path, joints=joints)


def test_a_parquet_file_of_pyarrows_small_pages_on_purpose_is_refused_in_true_words(tmp_path):
    # 55e5073's refusal said 'a writer's page holds 1024 values or 512 bytes at the least': pyarrow's own
    # max_rows_per_page=10 writes pages of 10 rows (polars' data_page_size=1 one value a page), which main read.
    # Still refused (the bound's worth is its worst case), saying which options write such pages
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    import baseparam as bp
    q = np.random.default_rng(0).random((3000, 3))
    table = pa.table({"t": np.arange(3000) * 0.01, "q": list(q), "tau": list(q)})
    pq.write_table(table, tmp_path / "small.parquet", max_rows_per_page=10)
    with pytest.raises(BaseParamError, match=r"column t\): more than \d+ pages for its 3000 values in \d+ bytes "
                                             r"\(pages of fewer than 1024 values and 512 bytes are not read: write it "
                                             r"with larger pages, e.g. pyarrow's max_rows_per_page and polars' "
                                             r"data_page_size left at their defaults\)$"):
        bp.read_trajectory(tmp_path / "small.parquet")
    pq.write_table(table, tmp_path / "large.parquet", max_rows_per_page=200)
    np.testing.assert_array_equal(bp.read_trajectory(tmp_path / "large.parquet").q, q)
