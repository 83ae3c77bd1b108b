"""Round 22, readers' leftovers (set lread): a log holding two default names of one field with different values is
refused naming both; …"""
import h5py
import numpy as np
import pytest

from baseparam import read_trajectory
from baseparam.errors import DataError

S = 20


def _fields(**extra):
    t = np.linspace(0.0, 1.9, S)
    fields = {"t": t, "q": np.sin(t)[:, None] * [1.0, 2.0], "tau": np.cos(t)[:, None] * [3.0, 4.0]}
    fields.update(extra)
    return fields


def _write_npz(path, fields):
    np.savez(path, **fields)


def _write_h5(path, fields):
    with h5py.File(path, "w") as h5:
        for key, value in fields.items():
            h5.create_dataset(key, data=value)


@pytest.mark.parametrize("write, suffix", [(_write_npz, "npz"), (_write_h5, "h5")])
@pytest.mark.parametrize("field, twin", [("t", "time"), ("q", "positions"), ("tau", "torques")])
def test_array_file_twin_default_names_with_other_values_refused(tmp_path, write, suffix, field, twin):
    fields = _fields()
    fields[twin] = fields[field] + 0.5
    path = tmp_path / f"log.{suffix}"
    write(path, fields)
    with pytest.raises(DataError) as err:
        read_trajectory(path)
    message = str(err.value)
    assert "\n" not in message and "log." in message and f"field {field}" in message
    assert f"'{field}'" in message and f"'{twin}'" in message and "different values" in message


@pytest.mark.parametrize("write, suffix", [(_write_npz, "npz"), (_write_h5, "h5")])
def test_array_file_twin_of_other_shape_or_type_refused(tmp_path, write, suffix):
    for twin in (np.zeros(S - 1), np.array([b"a"] * S)):
        fields = _fields(times=twin)
        path = tmp_path / f"log.{suffix}"
        write(path, fields)
        with pytest.raises(DataError, match="'t' and 'times' both hold it"):
            read_trajectory(path)


@pytest.mark.parametrize("write, suffix", [(_write_npz, "npz"), (_write_h5, "h5")])
def test_array_file_twin_with_same_values_read_as_before(tmp_path, write, suffix):
    plain, twin = tmp_path / f"plain.{suffix}", tmp_path / f"twin.{suffix}"
    fields = _fields()
    fields["q"][3, 1] = np.nan             # a damaged row: NaN equals NaN for the comparison
    write(plain, fields)
    write(twin, {**fields, "time": fields["t"].copy(), "positions": fields["q"].copy()})
    a, b = (read_trajectory(p, skip_bad_rows=True) for p in (plain, twin))
    for name in ("t", "q", "tau"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.skipped == b.skipped


def test_array_file_twin_ignored_when_the_map_names_the_field(tmp_path):
    fields = _fields()
    path = tmp_path / "log.npz"
    _write_npz(path, {**fields, "positions": fields["q"] + 1.0})
    traj = read_trajectory(path, columns={"q": "positions"})
    np.testing.assert_array_equal(traj.q, fields["q"] + 1.0)


def _write_parquet(path, fields):
    import pyarrow as pa
    import pyarrow.parquet as pq
    columns = {k: (pa.array(v) if v.ndim == 1 else pa.array(list(v))) for k, v in fields.items()}
    pq.write_table(pa.table(columns), path)


@pytest.mark.parametrize("field, twin", [("t", "timestamp"), ("q", "positions"), ("tau", "effort")])
def test_parquet_twin_default_columns_with_other_values_refused(tmp_path, field, twin):
    fields = _fields()
    path = tmp_path / "log.parquet"
    _write_parquet(path, {**fields, twin: fields[field] * 2.0 + 0.5})
    with pytest.raises(DataError) as err:
        read_trajectory(path)
    message = str(err.value)
    assert "\n" not in message and "log.parquet" in message and f"field {field}" in message
    assert f"'{field}'" in message and f"'{twin}'" in message


def test_parquet_twin_with_same_values_read_as_before(tmp_path):
    fields = _fields()
    plain, twin = tmp_path / "plain.parquet", tmp_path / "twin.parquet"
    _write_parquet(plain, fields)
    _write_parquet(twin, {**fields, "time": fields["t"], "position": fields["q"]})
    a, b = read_trajectory(plain), read_trajectory(twin)
    for name in ("t", "q", "tau"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_csv_header_with_t_and_time_refused(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("t,time,q1,tau1\n0,0,0,0\n0.1,0.1,0,0\n0.2,0.2,0,0\n")
    with pytest.raises(DataError, match="field t: two columns"):
        read_trajectory(path)
