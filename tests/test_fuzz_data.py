"""Fuzzing the trajectory readers: small valid CSV and NPZ files, mutated byte by byte, field by
field, line by line and stamp by stamp. ``read_trajectory`` (with and without ``skip_bad_rows``)
must return a valid Trajectory or raise DataError — nothing else, never a hang — and what it
returns must be the file's own good rows; ``baseparam identify`` must exit with 0 or 2."""
import io
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from baseparam.cli import main
from baseparam.errors import DataError
from baseparam.identification.trajectory import Trajectory, read_trajectory
from conftest import ROOT

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")
N, S = 3, 40
FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def base_rows():
    rng = np.random.default_rng(7)
    t = np.round(np.arange(S) * 0.01, 2)
    q = np.round(rng.uniform(-1, 1, (S, N)), 4)
    tau = np.round(rng.uniform(-5, 5, (S, N)), 4)
    return t, q, tau


HEADER = ",".join(["t"] + [f"q{j + 1}" for j in range(N)] + [f"tau{j + 1}" for j in range(N)])


def csv_lines():
    t, q, tau = base_rows()
    return [HEADER] + [",".join(f"{v:g}" for v in (t[i], *q[i], *tau[i])) for i in range(S)]


FIELD_TEXTS = st.sampled_from(["nan", "inf", "-inf", "1e400", "", " ", "abc", "99999", "-1", "1,5", '"',
                               "\r", "#", "0x10", "1_0", "1e-320", "#N/A", "1.0.0", "\x00", "é", "1e5"])


def check(result, path):
    """A returned trajectory is valid and made of the file's own rows."""
    assert isinstance(result, Trajectory)
    assert result.n_samples >= 10 and result.n_dof == N
    assert np.all(np.diff(result.t) > 0) and np.isfinite(result.q).all() and np.isfinite(result.tau).all()


def read_both(path, original=None, mutated_rows=()):
    """read_trajectory with and without skip_bad_rows: Trajectory or DataError only."""
    out = []
    for skip in (False, True):
        try:
            traj = read_trajectory(path, skip_bad_rows=skip)
        except DataError as exc:
            assert "\n" not in str(exc)
            out.append(None)
            continue
        check(traj, path)
        if original is not None:          # rows left unmutated are returned exactly
            t, q, tau = original
            for k, tk in enumerate(traj.t):
                rows = np.flatnonzero(t == tk)
                if len(rows) == 1 and rows[0] not in mutated_rows:     # a stamp that names one row
                    assert np.array_equal(traj.q[k], q[rows[0]]) and np.array_equal(traj.tau[k], tau[rows[0]])
        out.append(traj)
    return out


@FUZZ
@given(edits=st.lists(st.tuples(st.integers(1, S), st.integers(0, 2 * N), FIELD_TEXTS), max_size=4))
def test_csv_field_mutations(tmp_path_factory, edits):
    lines = csv_lines()
    mutated = set()
    for line_no, col, text in edits:
        fields = lines[line_no].split(",")
        fields[col] = text
        lines[line_no] = ",".join(fields)
        mutated.add(line_no - 1)
    path = tmp_path_factory.mktemp("fuzz") / "f.csv"
    path.write_bytes("\n".join(lines).encode() + b"\n")
    strict, skipped = read_both(path, base_rows(), mutated)
    if skipped is not None:
        assert skipped.n_samples + len(skipped.skipped) <= S + 1
        assert {w for w, _ in skipped.skipped} <= {r + 2 for r in mutated}     # only mutated lines dropped
    if not edits:
        assert strict is not None and strict.n_samples == S


@FUZZ
@given(stamps=st.lists(st.tuples(st.integers(0, S - 1),
                                 st.one_of(st.floats(-1e3, 1e5, allow_nan=False), st.sampled_from([0.0, 99999.0]))),
                       min_size=1, max_size=3))
def test_csv_time_stamp_mutations(tmp_path_factory, stamps):
    t, q, tau = base_rows()
    t = t.copy()
    for row, value in stamps:
        t[row] = value
    lines = [HEADER] + [",".join(repr(float(v)) for v in (t[i], *q[i], *tau[i])) for i in range(S)]
    path = tmp_path_factory.mktemp("fuzz") / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    _, skipped = read_both(path, (t, q, tau))
    if skipped is not None:
        # never more rows dropped than a restart explains: one glitched stamp costs at most 10 rows
        # (its run), unless time really goes back and stays back
        assert set(skipped.t) <= set(t)
        if len(stamps) == 1 and (0.0 <= stamps[0][1] < 0.39 or stamps[0][1] >= 99999):
            assert len(skipped.skipped) <= 10


@FUZZ
@given(ops=st.lists(st.tuples(st.sampled_from(["flip", "insert", "delete", "cr", "dupline", "dropline"]),
                              st.integers(0, 10**6), st.binary(min_size=1, max_size=3)), min_size=1, max_size=5))
def test_csv_byte_and_line_mutations(tmp_path_factory, ops):
    data = bytearray("\n".join(csv_lines()).encode() + b"\n")
    for op, pos, blob in ops:
        pos %= len(data)
        if op == "flip":
            data[pos] = blob[0]
        elif op == "insert":
            data[pos:pos] = blob
        elif op == "delete":
            del data[pos:pos + len(blob)]
        elif op == "cr":
            data[pos:pos] = b"\r"
        else:
            lines = bytes(data).split(b"\n")
            k = pos % len(lines)
            lines[k:k + 1] = [lines[k], lines[k]] if op == "dupline" else []
            data = bytearray(b"\n".join(lines))
        if not data:
            data = bytearray(b"x")
    path = tmp_path_factory.mktemp("fuzz") / "b.csv"
    path.write_bytes(bytes(data))
    read_both(path)


def npz_bytes(arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return bytearray(buf.getvalue())


@FUZZ
@given(change=st.sampled_from(["none", "dtype_f4", "dtype_c", "dtype_bool", "dtype_str", "dtype_dt", "transpose",
                               "short_t", "nan", "glitch", "scalar", "3d", "object", "drop_tau", "int"]),
       flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=3))
def test_npz_mutations(tmp_path_factory, change, flips):
    t, q, tau = base_rows()
    arrays = {"t": t, "q": q, "tau": tau}
    if change == "dtype_f4":
        arrays["q"] = q.astype(np.float32)
    elif change == "dtype_c":
        arrays["q"] = q + 1j
    elif change == "dtype_bool":
        arrays["q"] = q > 0
    elif change == "dtype_str":
        arrays["q"] = q.astype(str)
    elif change == "dtype_dt":
        arrays["t"] = (t * 1000).astype("datetime64[ms]")
    elif change == "transpose":
        arrays["q"] = q.T
    elif change == "short_t":
        arrays["t"] = t[:-1]
    elif change == "nan":
        arrays["tau"] = np.where(tau > 4, np.nan, tau)
    elif change == "glitch":
        arrays["t"] = np.where(np.arange(S) == 7, 99999.0, t)
    elif change == "scalar":
        arrays["t"] = np.float64(1.0)
    elif change == "3d":
        arrays["q"] = q[:, :, None]
    elif change == "object":
        arrays["q"] = q.astype(object)
    elif change == "drop_tau":
        del arrays["tau"]
    elif change == "int":
        arrays["q"] = (q * 100).astype(np.int16)
    data = npz_bytes({k: v for k, v in arrays.items()}) if change != "object" else None
    if data is None:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for key, value in arrays.items():
                member = io.BytesIO()
                np.lib.format.write_array(member, value, allow_pickle=True)
                zf.writestr(f"{key}.npy", member.getvalue())
        data = bytearray(buf.getvalue())
    for pos, value in flips:
        data[pos % len(data)] = value
    path = tmp_path_factory.mktemp("fuzz") / "a.npz"
    path.write_bytes(bytes(data))
    strict, _ = read_both(path)
    if change in ("none", "dtype_f4", "int") and not flips:
        assert strict is not None


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(1, S), st.integers(0, 2 * N), FIELD_TEXTS), max_size=3),
       skip=st.booleans())
def test_cli_identify_exit_status(tmp_path_factory, edits, skip):
    lines = csv_lines()
    for line_no, col, text in edits:
        fields = lines[line_no].split(",")
        fields[col] = text
        lines[line_no] = ",".join(fields)
    path = tmp_path_factory.mktemp("fuzz") / "c.csv"
    path.write_bytes("\n".join(lines).encode() + b"\n")
    args = ["identify", PLANAR, str(path)] + (["--skip-bad-rows"] if skip else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 2), (result.output, result.exception)


@pytest.mark.parametrize("text", ["", "\n", "\r", "\r\n", "#\n", "t\n", "\ufeff", "t,q1,tau1\r\n0,0"])
def test_tiny_files(tmp_path, text):
    path = tmp_path / "tiny.csv"
    path.write_text(text)
    read_both(path)


@pytest.fixture(scope="module")
def h5_bytes(tmp_path_factory):
    import h5py

    path = tmp_path_factory.mktemp("h5") / "base.h5"
    t, q, tau = base_rows()
    with h5py.File(path, "w") as h5:
        h5["t"] = t
        h5["q"] = q
        h5.create_dataset("tau", data=tau, compression="gzip")
    return path.read_bytes()


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4))
def test_hdf5_byte_flips(tmp_path_factory, h5_bytes, flips):
    """A damaged HDF5 file (libhdf5's RuntimeError/KeyError from the walk or a header) is a DataError."""
    data = bytearray(h5_bytes)
    for pos, value in flips:
        data[pos % len(data)] = value
    path = tmp_path_factory.mktemp("fuzz") / "h.h5"
    path.write_bytes(bytes(data))
    read_both(path)
