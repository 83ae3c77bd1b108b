"""Fuzz round nineteen, the readers (issue 28): stop 43's leftovers — a Parquet file of empty page headers walked to
its end, …"""
import os

import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import BaseParamError

EMPTY_PAGE_HEADER = bytes([0x15, 0, 0x15, 0, 0x15, 0,   # a data page (type 0) of 0 bytes, 0 bytes decompressed
                           0x2C, 0x15, 0, 0, 0])         # its DataPageHeader: 0 values; the header's end


def page_headers_read(monkeypatch):
    """A list whose length counts the page headers (top-level Thrift structs) the Parquet walk reads from now on."""
    from baseparam.identification import _parquet_pages
    read, struct_ = [], _parquet_pages._struct

    def counted(data, pos, end, spec, depth):
        if spec is _parquet_pages._PAGE_HEADER:
            read.append(pos)
        return struct_(data, pos, end, spec, depth)
    monkeypatch.setattr(_parquet_pages, "_struct", counted)
    return read


def test_a_parquet_chunk_of_empty_page_headers_is_refused_after_a_few_of_them(tmp_path, monkeypatch):
    # a column chunk's bytes overwritten with 11-byte page headers of no value and no byte: each was read in Python
    # (~4 µs), all of them, before the count of values refused the file (100 MB: some 40 s of CPU). A chunk holds at
    # most two pages and one for every 1 024 of its values or 512 of its bytes; past those, refused
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = tmp_path / "empty_pages.parquet"
    t = np.arange(100_000) * 0.01
    pq.write_table(pa.table({"t": t, "q": list(np.zeros((t.size, 2)))}), path, use_dictionary=False,
                   compression="none")
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)
    start, size = chunk.data_page_offset, chunk.total_compressed_size
    data = bytearray(path.read_bytes())
    k = size // len(EMPTY_PAGE_HEADER)
    data[start:start + size] = EMPTY_PAGE_HEADER * k + bytes(size - k * len(EMPTY_PAGE_HEADER))
    path.write_bytes(data)
    most = 2 + -(-t.size // 1024) + size // 512
    read = page_headers_read(monkeypatch)
    with pytest.raises(BaseParamError, match=fr"column t\): more than {most} pages for its {t.size} values in {size} "
                                             "bytes") as caught:
        bp.read_trajectory(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    assert k > 70_000 and len(read) == most           # the walk stopped at the bound, not at the chunk's end


@pytest.mark.parametrize("options", [{}, {"data_page_size": 1}, {"row_group_size": 1},
                                     {"data_page_size": 1, "use_dictionary": False, "compression": "zstd"},
                                     {"data_page_size": 1, "data_page_version": "2.0", "row_group_size": 17},
                                     {"data_page_size": 1, "dictionary_pagesize_limit": 100}])
def test_pyarrows_smallest_pages_are_within_the_bound_and_read(tmp_path, options):
    # pyarrow's smallest pages: data_page_size=1 cuts one after every write batch (1 024 values); a page of large
    # values (images of a LeRobot dataset) holds fewer of more bytes; a chunk per row writes a dictionary page and an
    # empty data page with its page of values (pyarrow 26 cannot read its own file of lists written with both
    # row_group_size=1 and data_page_size=1: not tried). Each file's chunks are counted as pyarrow counts them
    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.identification._parquet_pages import column_chunks
    rng = np.random.default_rng(1)
    n = 2100 if options.get("row_group_size") != 1 else 40
    q = rng.random((n, 3))
    table = pa.table({"t": np.arange(n) * 0.01, "q": list(q), "tau": list(np.zeros((n, 3))),
                      "flag": rng.random(n) > 0.5, "image": [rng.bytes(700) for _ in range(n)]})
    path = tmp_path / "log.parquet"
    pq.write_table(table, path, **options)
    md = pq.ParquetFile(path).metadata
    assert [(c.column, c.values) for c in column_chunks(path, "x")] == [
        (md.schema.column(j).path.split(".")[0], md.row_group(i).column(j).num_values)
        for i in range(md.num_row_groups) for j in range(md.num_columns)]
    np.testing.assert_array_equal(bp.read_trajectory(path).q, q)


def test_a_parquet_file_cut_by_another_process_while_read_is_refused_not_a_signal_death(tmp_path, monkeypatch):
    # the page headers were read from a memory map: a file another process cut short after it was mapped killed the
    # reader by SIGBUS at the first page past its new end. The file is cut here as its first page header is read
    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.identification import _parquet_pages
    from test_fuzz_round15_fdat import refused_in_a_child
    path = tmp_path / "log.parquet"
    t = np.arange(60_000) * 0.01
    pq.write_table(pa.table({"t": t, "q": list(np.random.default_rng(2).random((t.size, 2)))}), path,
                   use_dictionary=False, compression="none", row_group_size=20_000)
    assert path.stat().st_size > 1 << 20                  # pages far past the first read window
    struct_ = _parquet_pages._struct

    def cut_at_the_first_page(data, pos, end, spec, depth):
        if spec is _parquet_pages._PAGE_HEADER and path.stat().st_size > 4096:
            os.truncate(path, 4096)
        return struct_(data, pos, end, spec, depth)
    monkeypatch.setattr(_parquet_pages, "_struct", cut_at_the_first_page)
    code, said = refused_in_a_child(lambda: bp.read_trajectory(path))
    assert code == 3, (code, said)
    assert said.startswith(f"{path}: cannot read as Parquet: the file was cut while it was read")


def floating_log(tmp_path):
    """A floating-base CSV log written by write_floating_log, its robot and what it holds."""
    from baseparam.identification.floating_logs import write_floating_log
    from test_floating_identification import SPACE
    robot = bp.load_robot(SPACE)
    S = 12
    q = np.tile(np.r_[np.zeros(3), 0, 0, 0, 1, np.zeros(robot.n_dof)], (S, 1))
    q[:, 7:] = np.random.default_rng(3).random((S, robot.n_dof))
    traj = bp.Trajectory(t=np.arange(S) * 0.01, q=q, qd=np.zeros((S, robot.n_dof + 6)), floating=True)
    path = tmp_path / "log.csv"
    write_floating_log(path, traj)
    return path, robot, traj


@pytest.mark.parametrize("kind", ["parquet", "npz"])
def test_a_binary_log_named_csv_is_refused_by_the_floating_reader_in_the_fixed_ones_words(tmp_path, kind):
    # the floating-base CSV reader skipped the fixed one's check of a binary log under a text name: a Parquet file
    # named .csv was "line 1: expected a header row starting with 't'". Both read text through one front end
    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.identification.floating_logs import read_floating_log
    path, robot, _ = floating_log(tmp_path)
    if kind == "parquet":
        pq.write_table(pa.table({"t": [0.0, 0.1]}), path)
    else:
        with open(path, "wb") as stream:
            np.savez(stream, t=np.zeros(3))
    with pytest.raises(BaseParamError) as fixed:
        bp.read_trajectory(path)
    with pytest.raises(BaseParamError) as floating:
        read_floating_log(path, robot)
    assert str(floating.value) == str(fixed.value)
    assert str(floating.value).startswith(f"{path}: a ") and "not text (CSV); the type is taken from the name" \
        in str(floating.value)


def test_a_floating_csv_converts_the_columns_it_uses_only(tmp_path):
    # every column of a floating-base CSV was converted to numbers, the unused ones too (2 000 rows of 3 000 unused
    # columns: 67 MB where the used ones take 0.3), though the bound on the values read counts the used ones only; and
    # a note in a column no field uses refused the log, which the fixed-base reader reads. Now as the fixed reader
    from baseparam.identification.floating_logs import read_floating_log
    path, robot, traj = floating_log(tmp_path)
    lines = path.read_text().splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("t,"))
    lines[at] += ",note,x1"
    for k in range(at + 1, len(lines)):
        lines[k] += f",sample {k},{'' if k % 2 else 'nan'}"
    path.write_text("\n".join(lines) + "\n")
    read, _ = read_floating_log(path, robot)
    np.testing.assert_array_equal(read.q, traj.q)
    np.testing.assert_array_equal(read.t, traj.t)
    fields = lines[at + 3].split(",")
    fields[1] = "oops"                                                                  # q1: a used column damaged
    lines[at + 3] = ",".join(fields)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(BaseParamError, match=fr"{path}: line {at + 4}: field q1: not a number \('oops'\)"):
        read_floating_log(path, robot)


def per_row_names_log(path, joints, S, order):
    """An HDF5 (``.h5``) or NPZ log of S samples of the joints ``joints`` whose ``joint_names`` holds a row of names
    per sample (as a ROS joint_states' names logged with each message), each row ``order(k)``; its q."""
    q = np.random.default_rng(4).random((S, len(joints)))
    names = np.array([order(k) for k in range(S)], dtype="S")
    arrays = {"t": np.arange(S) * 0.01, "q": q, "tau": q, "joint_names": names}
    if path.suffix == ".npz":
        np.savez(path, **arrays)
    else:
        import h5py
        with h5py.File(path, "w") as h5:
            for key, value in arrays.items():
                h5[key] = value
    return q


@pytest.mark.parametrize("S", [100, 4000])
def test_an_hdf5_log_of_a_row_of_joint_names_per_sample_is_read_by_its_rows_names(tmp_path, S):
    # a joint_names dataset (S, n) was taken as S·n names: beyond 10 000 of them (S = 4 000 of 3 joints) the log was
    # refused, below the names were no order of the robot's joints and the check passed a log naming them in another
    # order. A row per sample names the columns' joints as one row does, when the rows agree
    from baseparam.model.robot import joint_names
    robot = bp.load_robot("robots/planar_rrr.yaml")
    joints = list(joint_names(robot.joints))
    path = tmp_path / "log.h5"
    q = per_row_names_log(path, joints, S, lambda k: joints)
    np.testing.assert_array_equal(bp.read_trajectory(path, joints=joints).q, q)
    per_row_names_log(path, joints, S, lambda k: joints[::-1])
    with pytest.raises(BaseParamError, match="the file names its joints joint3, joint2, joint1 in this order"):
        bp.read_trajectory(path, joints=joints)


@pytest.mark.parametrize("suffix", [".h5", ".npz"])
def test_rows_of_joint_names_that_disagree_are_refused_naming_the_row(tmp_path, suffix):
    # the joints reordered at sample 57: no one order of the columns (NPZ: the same rule, within its 10 000 names)
    from baseparam.model.robot import joint_names
    robot = bp.load_robot("robots/planar_rrr.yaml")
    joints = list(joint_names(robot.joints))
    path = (tmp_path / "log").with_suffix(suffix)
    per_row_names_log(path, joints, 100, lambda k: joints if k < 57 else joints[::-1])
    with pytest.raises(BaseParamError, match=r"key joint_names: row 57 names the joints joint3, joint2, joint1, row 0 "
                                             r"joint1, joint2, joint3; a log's columns hold the joints in one order"):
        bp.read_trajectory(path, joints=joints)
    per_row_names_log(path, joints, 100, lambda k: joints[::-1])
    with pytest.raises(BaseParamError, match="the file names its joints joint3, joint2, joint1 in this order"):
        bp.read_trajectory(path, joints=joints)


@pytest.mark.parametrize("kind", ["timestamp[ns, UTC]", "timestamp[ms]", "duration[us]"])
def test_a_column_per_joint_parquet_reads_parquet_times_as_the_list_layout_does(tmp_path, kind):
    # a timestamp or duration t was read in seconds from a file of list columns, and refused from the same log with a
    # column per joint (from_dataframe: "holds dates/durations (datetime64[ns]); convert to seconds")
    import pyarrow as pa
    import pyarrow.parquet as pq
    S, step = 40, 0.01
    unit = kind.split("[")[1].split(",")[0].rstrip("]")
    per_second = {"ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
    start = 1_700_000_000 if kind.startswith("timestamp") else 3
    ticks = start * per_second + np.arange(S) * round(step * per_second)
    arrow_type = (pa.timestamp(unit, tz="UTC" if "UTC" in kind else None) if kind.startswith("timestamp")
                  else pa.duration(unit))
    t = pa.array(ticks, type=pa.int64()).cast(arrow_type)
    q = np.random.default_rng(5).random((S, 2))
    pq.write_table(pa.table({"t": t, "q1": q[:, 0], "q2": q[:, 1], "tau1": q[:, 1], "tau2": q[:, 0]}),
                   tmp_path / "columns.parquet")
    pq.write_table(pa.table({"t": t, "q": list(q), "tau": list(q[:, ::-1])}), tmp_path / "lists.parquet")
    columns, lists = bp.read_trajectory(tmp_path / "columns.parquet"), bp.read_trajectory(tmp_path / "lists.parquet")
    np.testing.assert_array_equal(columns.t, lists.t)
    np.testing.assert_array_equal(columns.q, q)
    assert abs(columns.t[0] - start) < 1e-6 and np.allclose(np.diff(columns.t), step, atol=1e-6)


def test_a_null_time_in_a_column_per_joint_parquet_is_a_damaged_row(tmp_path):
    # a null time stays a damaged row, skipped with skip_bad_rows, as a null number in the same column is
    import pyarrow as pa
    import pyarrow.parquet as pq
    S = 30
    ticks = [None if k == 7 else k * 10 for k in range(S)]
    q = np.random.default_rng(6).random(S)
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table({"t": pa.array(ticks, type=pa.duration("ms")), "q1": q, "tau1": q}), path)
    with pytest.raises(BaseParamError, match="row 7"):
        bp.read_trajectory(path)
    read = bp.read_trajectory(path, skip_bad_rows=True)
    np.testing.assert_array_equal(read.t, np.delete(np.arange(S) * 0.01, 7))


def test_a_floating_base_parquet_log_reads_parquet_times_as_the_fixed_base_reader_does(tmp_path):
    # the floating-base Parquet reader refused a duration or timestamp t ("duration[ns] values, not times in s") that
    # the fixed-base reader converts: the three Parquet readers read t by one rule (_parquet._scalars)
    import pyarrow as pa
    import pyarrow.parquet as pq
    from baseparam.identification.floating_logs import read_floating, write_floating
    path, robot, traj = floating_log(tmp_path)
    written = tmp_path / "log.parquet"
    write_floating(traj, written, ())
    table = pq.read_table(written)
    ticks = pa.array(np.arange(traj.n_samples) * 10_000_000 + 2 * 10**9, type=pa.int64())
    for arrow_type in (pa.duration("ns"), pa.timestamp("ns")):
        pq.write_table(table.set_column(0, "t", ticks.cast(arrow_type)), written)
        read = read_floating(written, robot)
        np.testing.assert_allclose(read.t, 2 + traj.t, rtol=0, atol=1e-9)
        np.testing.assert_array_equal(read.q, traj.q)
    pq.write_table(table.set_column(0, "t", pa.array([None, *traj.t[1:]])), written)
    with pytest.raises(BaseParamError, match=fr"^{written}: column t: row 0: null$"):
        read_floating(written, robot)


def test_a_floating_csv_of_quoted_fields_is_read_as_the_fixed_base_reader_reads_one(tmp_path):
    # a spreadsheet's export quotes every field: the fixed-base reader took them, the floating-base one refused the
    # first ('line 2: field t: not a number ('"0"')'); both unquote through one helper (_text.unquoted)
    from baseparam.identification.floating_logs import read_floating_log
    path, robot, traj = floating_log(tmp_path)
    lines = [line if line.startswith("#") else ",".join(f'"{field}"' for field in line.split(","))
             for line in path.read_text().splitlines()]
    path.write_text("\n".join(lines) + "\n")
    read, _ = read_floating_log(path, robot)
    np.testing.assert_array_equal(read.t, traj.t)
    np.testing.assert_array_equal(read.q, traj.q)
