"""Fuzz round fifteen (issue 28), the log readers' structure: what a file declares is checked before a value is
decoded (a Parquet page's run-length-encoded values are not bounded by its bytes, and its header need not agree with
the footer), and a damaged HDF5 chunk index no longer kills the process inside libhdf5."""
import os
import struct

import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import BaseParamError
from test_fuzz_round13_fdat import NAMES, motion


def refused_in_a_child(read):
    """Run ``read()`` in a forked child: 3 for a one-line BaseParamError, else another code (a signal's negative
    number when the process died, as libhdf5's SIGSEGV); the child's message."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                     # the child
        code, said = 4, ""
        try:
            os.close(2)
            read()
        except BaseParamError as exc:
            code, said = (3 if "\n" not in str(exc) else 5), str(exc)
        except BaseException as exc:                 # noqa: BLE001 - reported to the parent as a code
            code, said = 6, repr(exc)
        os.write(w, said.encode()[:4000])
        os._exit(code)
    os.close(w)
    said = os.read(r, 4096).decode()
    os.close(r)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), said


def no_decoding(monkeypatch):
    """pyarrow's reads of values made to fail the test: what is refused must be refused from the metadata."""
    import pyarrow.parquet as pq
    for name in ("read", "iter_batches", "read_row_group", "read_row_groups"):
        monkeypatch.setattr(pq.ParquetFile, name, lambda *a, **k: pytest.fail("a value decoded before the refusal"))


def one_row_of_zeros(path, n):
    """A Parquet file of one row whose q and tau are lists of ``n`` zeros: a few hundred bytes whatever ``n``
    (dictionary- and run-length-encoded)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    zeros = pa.ListArray.from_arrays(pa.array(np.array([0, n], dtype=np.int32)), pa.array(np.zeros(n)))
    pq.write_table(pa.table({"t": [1.0], "q": zeros, "tau": zeros}), path, data_page_size=1 << 30,
                   write_batch_size=n)


def test_a_parquet_row_of_millions_of_values_is_refused_before_a_value_is_decoded(tmp_path, monkeypatch):
    # 19 999 000 zeros in one row are within the count of values a trajectory may hold, and a 2 kB file of four such
    # columns took 1.3 GB (one of them 650 MB) while the first row of each row group was decoded, before any count
    # was looked at. A row holds at most MAX_COLUMNS values a column, as a CSV line does; here 10⁴ + 1 zeros
    path = tmp_path / "wide.parquet"
    one_row_of_zeros(path, 10_001)
    no_decoding(monkeypatch)
    with pytest.raises(BaseParamError, match=r"column q: 10001 values in a row group of 1 rows; a trajectory's row "
                                             r"holds at most 10000") as caught:
        bp.read_trajectory(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def data_page_count(data, start):
    """Where the value count of the data page whose header starts at ``start`` is (a zigzag varint after the
    DataPageHeader's field header, which follows the page sizes and perhaps a CRC), and its value."""
    for pos in range(start, start + 40):
        if data[pos] in (0x1C, 0x2C) and data[pos + 1] == 0x15:        # struct field 5, then its i32 field 1
            value, shift, end = 0, 0, pos + 2
            while True:
                value |= (data[end] & 0x7F) << shift
                shift += 7
                end += 1
                if data[end - 1] < 0x80:
                    return pos + 2, end, (value >> 1) ^ -(value & 1)
    raise AssertionError("no data page header")


@pytest.mark.parametrize("change", [+7, -1])
def test_a_parquet_page_counting_other_values_than_the_footer_is_refused_before_decoding(tmp_path, monkeypatch,
                                                                                        change):
    # pyarrow decodes as many values as a page's header says; the bound counted the footer's numbers, which need not
    # agree: a page declaring millions of run-length-encoded values passed a footer counting 180. Both counts are
    # read (the page headers in Python, without decoding) and must agree
    import pyarrow as pa
    import pyarrow.parquet as pq
    t, q, tau = motion()
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"t": t, "q": list(q), "tau": list(tau)}), path, use_dictionary=False)
    meta = pq.ParquetFile(path).metadata.row_group(0).column(1)                 # q.list.element: 180 values
    data = bytearray(path.read_bytes())
    start, end, count = data_page_count(data, meta.data_page_offset)
    assert count == meta.num_values == 180 and end - start == 2
    data[start:end] = [((2 * (count + change)) & 0x7F) | 0x80, (2 * (count + change)) >> 7]
    path.write_bytes(data)
    no_decoding(monkeypatch)
    with pytest.raises(BaseParamError, match=f"column q.*its pages hold {count + change} values, the footer counts "
                                             f"{count}") as caught:
        bp.read_trajectory(path, joints=NAMES)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_parquet_files_of_every_page_kind_are_counted_as_pyarrow_counts_them(tmp_path):
    # the footer and page headers read in Python agree with pyarrow's own metadata over the writer's options (data
    # pages v1/v2, dictionaries, codecs, checksums, statistics, row groups, nested and null values)
    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.identification._parquet_pages import column_chunks
    t, q, tau = motion()
    q[5, 1] = np.nan
    table = pa.table({"t": t, "q": list(q), "name": [f"s{i % 7}" for i in range(t.size)],
                      "nested": [{"a": i, "b": [1.0, 2.0][:i % 3]} for i in range(t.size)],
                      "nul": pa.array([None if i % 5 == 0 else float(i) for i in range(t.size)]),
                      "lists": pa.array([[[1.0], [2.0, 3.0]] if i % 2 else None for i in range(t.size)])})
    path = tmp_path / "log.parquet"
    for options in ({}, {"data_page_version": "2.0", "compression": "zstd", "row_group_size": 17},
                    {"use_dictionary": False, "write_statistics": False, "data_page_size": 64},
                    {"write_page_checksum": True, "compression": "gzip", "version": "1.0"}):
        pq.write_table(table, path, **options)
        md = pq.ParquetFile(path).metadata
        expected = [(md.schema.column(j).path.split(".")[0], md.row_group(i).num_rows,
                     md.row_group(i).column(j).num_values)
                    for i in range(md.num_row_groups) for j in range(md.num_columns)]
        assert [(c.column, c.rows, c.values) for c in column_chunks(path, "x")] == expected, options


def fletcher32_chunk_size_at(data, size):
    """Where the first chunk's size (``size`` bytes stored) is written in the chunk index (a version-1 B-tree key:
    size, filter mask 0, the chunk's offsets 0, 0, 0)."""
    at = data.find(struct.pack("<II", size, 0) + bytes(24))
    assert at > 0
    return at


def test_an_hdf5_chunk_shorter_than_its_fletcher32_checksum_is_refused_not_a_crash(tmp_path):
    # one damaged size in the chunk index (0–3 bytes for a fletcher32 chunk): libhdf5's filter took the checksum
    # from before its buffer and the process died with SIGSEGV, also under `baseparam identify`
    import h5py
    t, q, tau = motion()
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"] = t
        for key, values in (("q", q), ("tau", tau)):
            f.create_dataset(key, data=values, chunks=(16, 3), fletcher32=True)
    with h5py.File(path) as f:
        size = f["q"].id.get_chunk_info(0).size
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)
    data = bytearray(path.read_bytes())
    at = fletcher32_chunk_size_at(data, size)
    for stored in (0, 3):
        data[at:at + 4] = struct.pack("<I", stored)
        path.write_bytes(data)
        code, said = refused_in_a_child(lambda: bp.read_trajectory(path, joints=NAMES))
        assert code == 3, (code, said)
        assert str(path) in said and f"of {stored} bytes, fewer than its fletcher32 checksum's 4" in said


@pytest.mark.parametrize("encode", [lambda text: ("\ufeff" + text).encode(), lambda text: text.encode("utf-16"),
                                    lambda text: text.replace("\n", "\r").encode()],
                         ids=["byte-order mark", "UTF-16", "CR line ends"])
def test_a_csv_naming_its_joints_in_another_order_is_refused_in_every_encoding_the_reader_takes(tmp_path, encode):
    # write_trajectory's '# joints:' line names the columns' joints; a file naming the robot's joints in another
    # order is refused (CSV columns are read in the file's order). The check read the first line as raw UTF-8 up to
    # a \n, the reader the file's text: with a byte-order mark, in UTF-16 or with CR line ends the names went unseen
    # and the columns to other joints, exit 0
    t, q, tau = motion()
    log = bp.Trajectory(t, q, tau)
    path = tmp_path / "log.csv"
    bp.write_trajectory(log, path, joint_names=["joint2", "joint1", "joint3"])
    text = path.read_text()
    assert text.startswith("# joints: joint2, joint1, joint3\n")
    path.write_bytes(encode(text))
    assert np.array_equal(bp.read_trajectory(path).q, q)                 # read in its order without joints
    with pytest.raises(BaseParamError, match="the file names its joints joint2, joint1, joint3 in this") as caught:
        bp.read_trajectory(path, joints=NAMES)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_an_hdf5_log_compressed_in_chunks_far_larger_than_its_values_is_refused_before_reading(tmp_path, monkeypatch):
    # libhdf5 decompresses a whole chunk to read any part of it: a 60-sample log declared in gzip chunks of 5·10⁷
    # rows (a 2 MB file) took 1.2 GB to read. A filtered chunk may exceed its dataset's values by 64 MiB at most;
    # here the limit lowered to 1 MiB, chunks of 2¹⁶ rows (1.5 MB), so that the test stays small
    import h5py
    from baseparam import _hdf5
    t, q, tau = motion()
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"] = t
        for key, values in (("q", q), ("tau", tau)):
            f.create_dataset(key, data=values, chunks=(2 ** 16, 3), maxshape=(None, 3), compression="gzip")
        f.create_dataset("qd", data=q, chunks=(2 ** 10, 3), maxshape=(None, 3), compression="gzip")
    monkeypatch.setattr(_hdf5, "_SPARE_CHUNK", 1 << 20, raising=False)
    with pytest.raises(BaseParamError, match=r"key q: compressed in chunks of 1572864 bytes for 1440 bytes of "
                                             r"values") as caught:
        bp.read_trajectory(path, joints=NAMES)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    monkeypatch.setattr(_hdf5, "_SPARE_CHUNK", 2 << 20)      # within the limit: read, and a chunk of 1024 rows too
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


def test_a_parquet_row_group_whose_row_count_is_damaged_is_refused_not_read_short(tmp_path):
    # pyarrow reads as many rows as a row group declares: a count damaged from 20 to 19 (one byte of the footer)
    # dropped a sample from the middle of the log without a word. A column of one value a row must hold as many
    # values as its row group rows, and the row groups as many rows as the file counts
    import pyarrow as pa
    import pyarrow.parquet as pq
    t, q, tau = motion()
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"t": t, "q": list(q), "tau": list(tau)}), path, row_group_size=20)
    data = bytearray(path.read_bytes())
    footer = len(data) - 8 - struct.unpack_from("<I", data, len(data) - 8)[0]
    # an i64 field of zigzag 20: in each row group, column t's value count, then the group's row count
    counts = [k for k in range(footer, len(data) - 8) if data[k - 1:k + 1] == b"\x16\x28"]
    assert len(counts) == 6
    data[counts[3]] = 0x26                                                                  # 19 rows in group 1
    path.write_bytes(data)
    with pytest.raises(BaseParamError, match="row group 1 declares 19 rows, its column t holds 20 values") as caught:
        bp.read_trajectory(path, joints=NAMES)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
