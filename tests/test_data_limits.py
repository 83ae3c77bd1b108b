"""Hostile trajectory files: sizes, shapes and headers are checked before anything is read, so that
an absurd file is refused with one DataError line (CLI exit 2), quickly and in little memory.

Each refusal runs in a fresh interpreter that reports its own peak memory (VmHWM), so the
bound measures the refusal itself, not whatever the test process did before.
"""
import io
import json
import subprocess
import sys
import zipfile

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from baseparam.errors import DataError
from baseparam.identification._record import MAX_COLUMNS, MAX_LINE_BYTES, MAX_TEXT_BYTES, MAX_VALUES
from baseparam.identification.trajectory import read_trajectory
from conftest import ROOT

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")

# Peak resident memory allowed for a refusal, interpreter, numpy and h5py included (about 60 MB).
PEAK_MB = 300

_CHILD = """
import json, resource, sys
from baseparam.errors import DataError
from baseparam.identification.trajectory import read_trajectory
try:
    read_trajectory(sys.argv[1])
    out = {"error": None}
except DataError as exc:
    out = {"error": "DataError", "message": str(exc)}
except BaseException as exc:
    out = {"error": type(exc).__name__, "message": str(exc)}
try:          # this process's own peak (ru_maxrss may keep the forking parent's size across exec)
    with open("/proc/self/status") as status:
        out["peak_mb"] = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) / 1024
except OSError:
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
try:          # bytes this process read (modules included): what it did, not how long it took
    with open("/proc/self/io") as io:
        out["read_mb"] = next(int(l.split()[1]) for l in io if l.startswith("rchar:")) / 2**20
except OSError:
    out["read_mb"] = None
print(json.dumps(out))
"""


def refuse(path, *parts):
    """Read ``path`` in a fresh interpreter; expect a one-line DataError with ``parts``, low peak memory."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["error"] == "DataError", out
    assert "\n" not in out["message"]
    for part in parts:
        assert part in out["message"], (part, out["message"])
    assert out["peak_mb"] < PEAK_MB, out
    return out


def npy_header(shape, dtype="<f8"):
    """The bytes of an .npy header (version 1.0) claiming ``shape``, without data."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def small_arrays(S=20, n=2):
    t = np.arange(S) * 0.01
    return {"t": t, "q": np.zeros((S, n)), "tau": np.ones((S, n))}


def test_npz_header_claiming_huge_shape(tmp_path):
    path = tmp_path / "huge.npz"
    np.savez(path, **{k: v for k, v in small_arrays().items() if k != "q"})
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("q.npy", npy_header((10**12, 7)))
    out = refuse(path, str(path), "field q (key q)", "(1000000000000, 7)", "too large")
    assert out["peak_mb"] < 150
    with pytest.raises(DataError):                # in-process too: a DataError, not a MemoryError
        read_trajectory(path)


def test_npz_zip_bomb_of_zeros(tmp_path):
    """A few MB of deflated zeros that would unpack to 480 MB: refused from the member's header."""
    path = tmp_path / "bomb.npz"
    np.savez(path, **{k: v for k, v in small_arrays().items() if k != "q"})
    shape = (10**7, 6)
    assert np.prod(shape) > MAX_VALUES
    block = bytes(1 << 22)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        with zf.open("q.npy", "w", force_zip64=True) as member:
            member.write(npy_header(shape))
            size = 8 * int(np.prod(shape))
            for _ in range(size // len(block)):
                member.write(block)
            member.write(bytes(size % len(block)))
    assert path.stat().st_size < 5 << 20
    refuse(path, "field q (key q)", "(10000000, 6)", "too large")


def test_npz_member_shorter_than_its_header_claims(tmp_path):
    path = tmp_path / "lying.npz"
    np.savez(path, **{k: v for k, v in small_arrays().items() if k != "q"})
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("q.npy", npy_header((1_000_000, 7)) + bytes(64))
    refuse(path, "field q (key q)", "truncated")


def test_npz_object_member_is_not_unpickled_and_random_bytes(tmp_path):
    path = tmp_path / "objects.npz"
    arrays = small_arrays()
    np.savez(path, t=arrays["t"], tau=arrays["tau"], q=np.array([object()] * 20, dtype=object))
    with pytest.raises(DataError, match=r"field q \(key q\): not numeric \(dtype object\)"):
        read_trajectory(path)
    noise = tmp_path / "noise.npz"
    noise.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(DataError, match="not a valid NPZ file") as info:
        read_trajectory(noise)
    assert "pickle" not in str(info.value)


def test_hdf5_compressed_dataset_claiming_huge_shape(tmp_path):
    path = tmp_path / "huge.h5"
    with h5py.File(path, "w") as h5:
        for key, value in small_arrays().items():
            if key != "q":
                h5[key] = value
        h5.create_dataset("q", shape=(10**9, 7), chunks=(1 << 16, 7), compression="gzip", dtype="f8")
    assert path.stat().st_size < 1 << 20
    # its chunks never written: refused for that (since round 13), before its size is looked at; still unread
    refuse(path, "key q", "15259 of its 15259 chunks were never written")


def test_csv_sparse_file_beyond_the_size_limit(tmp_path):
    path = tmp_path / "sparse.csv"
    with open(path, "wb") as stream:
        stream.truncate(2 << 30)                  # 2 GB of holes: no disk used
    out = refuse(path, str(path), "2147483648 bytes", f"at most {MAX_TEXT_BYTES >> 20} MiB")
    if out["read_mb"] is None:
        pytest.skip("no /proc/self/io here to count the bytes read")
    assert out["read_mb"] < 1024, out                # refused from its size, never read (2048 MiB)


def test_csv_with_one_100_mb_line(tmp_path):
    path = tmp_path / "long.csv"
    with open(path, "wb") as stream:
        stream.write(b"t,q1,tau1\n0,0,0\n")
        chunk = b"1," * (1 << 19)
        for _ in range(100):
            stream.write(chunk)
    refuse(path, "line 3: longer than 1 MiB")


def test_csv_with_a_million_columns_and_with_too_many(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_bytes(b"0," * 10**6 + b"0\n")
    refuse(path, "line 1: longer than")
    assert 2 * (MAX_COLUMNS + 1) < MAX_LINE_BYTES
    wide = tmp_path / "wider.csv"
    wide.write_text(",".join(["0"] * (MAX_COLUMNS + 1)) + "\n")
    with pytest.raises(DataError, match=f"line 1: {MAX_COLUMNS + 1} fields; a trajectory has at most"):
        read_trajectory(wide)


def test_cli_refusals_exit_2(tmp_path):
    path = tmp_path / "huge.npz"
    np.savez(path, **{k: v for k, v in small_arrays(n=3).items() if k != "q"})
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("q.npy", npy_header((10**12, 3)))
    result = CliRunner().invoke(main, ["identify", PLANAR, str(path)])
    assert result.exit_code == 2, result.output
    assert "too large" in result.output


def test_csv_with_more_rows_than_a_trajectory_may_hold(tmp_path):
    """Short lines, many of them: refused from the line count (before decoding) or the values
    count (before conversion), each time in one line and bounded memory."""
    path = tmp_path / "many.csv"
    line = b"0,0,0\n"
    with open(path, "wb") as stream:
        stream.write(b"t,q1,tau1\n")
        block = line * (1 << 16)
        for _ in range(MAX_VALUES // 3 // (1 << 16) + 1):
            stream.write(block)
    refuse(path, "lines; a trajectory may hold at most 2e+07 values")
    wide = tmp_path / "wide_rows.csv"
    n = 40
    header = ",".join(["t"] + [f"q{j}" for j in range(1, n + 1)] + [f"tau{j}" for j in range(1, n + 1)])
    row = (",".join(["0"] * (2 * n + 1)) + "\n").encode()
    with open(wide, "wb") as stream:
        stream.write(header.encode() + b"\n")
        block = row * 4096
        for _ in range(MAX_VALUES // (2 * n + 1) // 4096 + 1):
            stream.write(block)
    refuse(wide, "used columns", "a trajectory may hold at most 2e+07")
