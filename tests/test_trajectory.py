"""Reading measured trajectories: round trips, every kind of damage, skipping bad rows, real files."""

import h5py
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from baseparam.errors import BaseParamError, DataError
from baseparam.identification._rows import apart_ends
from baseparam.identification.preprocessing import preprocess
from baseparam.identification.trajectory import (ABSURD_BOUNDS, MIN_SAMPLES, Trajectory, from_arrays, from_dataframe,
                                  parse_column_map, read_trajectory)
from conftest import DATA, needs_data

UR = DATA / "ur10e" / "identification_data"
UR_MAP = "t=0,q=1:7,qd=7:13,current=13:19"
UR_GAINS = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]

S, N = 40, 3     # the generated trajectory: 40 samples of a 3-joint arm


def good(S=S, n=N, seed=0):
    """t, q, qd, tau of a smooth made-up trajectory (distinct, non-round values)."""
    rng = np.random.default_rng(seed)
    t = 0.5 + np.cumsum(rng.uniform(0.005, 0.015, S))
    q = np.sin(np.outer(t, rng.uniform(0.5, 2.0, n)) + rng.uniform(0, 1, n))
    qd = np.cos(np.outer(t, rng.uniform(0.5, 2.0, n)))
    tau = rng.normal(0, 20, (S, n))
    return t, q, qd, tau


def header_lines(t, q, qd, tau, order=None):
    """Header CSV lines (repr precision); columns t, q1..qn, qd1..qn, tau1..taun unless ``order``."""
    n = q.shape[1]
    names = ["t"] + [f"{f}{j + 1}" for f in ("q", "qd", "tau") for j in range(n)]
    table = np.column_stack([t, q, qd, tau])
    if order is not None:
        names = [names[i] for i in order]
        table = table[:, order]
    return [",".join(names)] + [",".join(repr(float(v)) for v in row) for row in table]


def write(path, lines, newline_at_end=True):
    path.write_text("\n".join(lines) + ("\n" if newline_at_end else ""), encoding="utf-8")
    return path


def good_csv(tmp_path, name="traj.csv"):
    return write(tmp_path / name, header_lines(*good()))


def set_field(lines, line_no, col, text):
    """Replace field ``col`` (0-based) of physical line ``line_no`` (1-based)."""
    fields = lines[line_no - 1].split(",")
    fields[col] = text
    lines[line_no - 1] = ",".join(fields)


def assert_same(traj, t, q, tau, qd=None):
    np.testing.assert_array_equal(traj.t, t)
    np.testing.assert_array_equal(traj.q, q)
    np.testing.assert_array_equal(traj.tau, tau)
    if qd is None:
        assert traj.qd is None
    else:
        np.testing.assert_array_equal(traj.qd, qd)


def raises(fn, *parts):
    """Call fn, expect one DataError line containing every part; return the message."""
    with pytest.raises(DataError) as info:
        fn()
    msg = str(info.value)
    assert "\n" not in msg
    for part in parts:
        assert part in msg, f"{part!r} not in {msg!r}"
    return msg


# -- round trips ---------------------------------------------------------------------------------


def test_header_csv_round_trip_any_column_order(tmp_path):
    t, q, qd, tau = good()
    order = list(np.random.default_rng(1).permutation(1 + 3 * N))
    path = write(tmp_path / "shuffled.csv", header_lines(t, q, qd, tau, order))
    traj = read_trajectory(path)
    assert_same(traj, t, q, tau, qd)
    assert traj.qdd is None and traj.skipped == () and traj.skipped_summary() is None
    assert (traj.n_samples, traj.n_dof) == (S, N)
    assert traj.source == str(path)
    assert traj.t.dtype == np.float64 and traj.q.flags.c_contiguous


def test_header_names_are_flexible(tmp_path):
    t, q, qd, tau = good()
    lines = header_lines(t, q, qd, tau)
    lines[0] = " Time ; Q_1;Q[2];q 3;QD1;qd2;qd3;I1;i2;current3 "
    lines[1:] = [line.replace(",", ";") for line in lines[1:]]
    traj = read_trajectory(write(tmp_path / "names.txt", lines), gains=2.0)
    assert_same(traj, t, q, tau * 2.0, qd)


def test_header_csv_without_qd_and_with_extra_columns(tmp_path):
    t, q, qd, tau = good()
    table = np.column_stack([t, q, tau, qd])       # qd under names the reader does not know
    lines = ["t,q1,q2,q3,tau1,tau2,tau3,tau_des1,tau_des2,tau_des3"]
    lines += [",".join(map(repr, map(float, row))) for row in table]
    traj = read_trajectory(write(tmp_path / "extra.csv", lines))
    assert_same(traj, t, q, tau)


def test_headerless_with_column_map_forms(tmp_path):
    t, q, qd, tau = good()
    lines = header_lines(t, q, qd, tau)[1:]
    path = write(tmp_path / "nohdr.csv", lines)
    for columns in ("t=0,q=1:4,qd=4:7,tau=7:10",
                    {"t": 0, "q": slice(1, 4), "qd": [4, 5, 6], "tau": "7:10"}):
        assert_same(read_trajectory(path, columns=columns), t, q, tau, qd)
    # columns may also pick fields out of a header file by index or by name
    hdr = good_csv(tmp_path)
    assert_same(read_trajectory(hdr, columns={"qd": None}), t, q, tau)
    assert_same(read_trajectory(hdr, columns={"q": ["Q1", "q2", "q3"], "tau": "7:10"}), t, q, tau, qd)


@pytest.mark.parametrize("delimiter", [",", ";", "\t", " "])
def test_delimiters_are_sniffed(tmp_path, delimiter):
    t, q, qd, tau = good()
    sep = "   " if delimiter == " " else delimiter
    lines = [line.replace(",", sep) for line in header_lines(t, q, qd, tau)]
    assert_same(read_trajectory(write(tmp_path / "d.txt", lines)), t, q, tau, qd)
    assert_same(read_trajectory(write(tmp_path / "d.txt", lines), delimiter=delimiter), t, q, tau, qd)


def test_crlf_blank_lines_and_missing_final_newline(tmp_path):
    t, q, qd, tau = good()
    lines = header_lines(t, q, qd, tau)
    lines.insert(5, "")
    lines.insert(9, "   ")
    path = tmp_path / "crlf.csv"
    path.write_bytes("\r\n".join(lines).encode())
    assert_same(read_trajectory(path), t, q, tau, qd)


def test_npz_h5_dataframe_arrays_round_trip(tmp_path):
    t, q, qd, tau = good()
    np.savez(tmp_path / "a.npz", times=t, positions=q, velocities=qd, torques=tau, target_positions=q[:5])
    assert_same(read_trajectory(tmp_path / "a.npz"), t, q, tau, qd)
    with h5py.File(tmp_path / "a.h5", "w") as h5:
        h5["t"], h5["q"], h5["tau"] = t, q, tau
        h5["grp/velocity"] = qd
    traj = read_trajectory(tmp_path / "a.h5", columns={"qd": "grp/velocity"})
    assert_same(traj, t, q, tau, qd)
    frame = pd.read_csv(good_csv(tmp_path))
    assert_same(from_dataframe(frame), t, q, tau, qd)
    renamed = frame.rename(columns={f"tau{j}": f"effort_{j}" for j in (1, 2, 3)})
    traj = from_dataframe(renamed, columns={"tau": ["effort_1", "effort_2", "effort_3"]}, source="run 3")
    assert_same(traj, t, q, tau, qd)
    assert_same(from_arrays(t, q, tau, qd=qd), t, q, tau, qd)
    one = from_arrays(t, q[:, 0], tau[:, 0])          # one joint: 1-D arrays
    assert one.q.shape == (S, 1) and one.n_dof == 1


def test_current_times_gains(tmp_path):
    t, q, qd, current = good()
    gains = [2.0, 0.5, 3.25]
    traj = from_arrays(t, q, current=current, gains=gains)
    np.testing.assert_array_equal(traj.tau, current * np.array(gains))
    lines = header_lines(t, q, qd, current)
    lines[0] = lines[0].replace("tau", "current")
    traj = read_trajectory(write(tmp_path / "cur.csv", lines), gains="2.0, 0.5, 3.25")
    np.testing.assert_array_equal(traj.tau, current * np.array(gains))


def test_parse_column_map():
    assert parse_column_map("t=0, q=1:7 ,qd=7:13,current=13:19") == {
        "t": 0, "q": slice(1, 7), "qd": slice(7, 13), "current": slice(13, 19)}
    assert parse_column_map("t=times,q=grp/positions") == {"t": "times", "q": "grp/positions"}
    raises(lambda: parse_column_map("t=0,q"), "'q'", "FIELD=COLUMNS")
    raises(lambda: parse_column_map("t=0,x=1:3"), "unknown field 'x'")
    raises(lambda: parse_column_map("t=0,t=1"), "field t given twice")


def test_data_error_is_a_value_error():
    assert issubclass(DataError, ValueError) and issubclass(DataError, BaseParamError)


# -- damage: every kind raises one line naming file, line/row and field --------------------------

# (name, mutation of the header CSV's lines, parts of the message). Line 7 is the 6th sample.
DAMAGE = [
    ("nan", lambda L: set_field(L, 7, 6, "nan"), ["line 7", "field qd3", "NaN"]),
    ("inf", lambda L: set_field(L, 9, 8, "-inf"), ["line 9", "field tau2", "infinite (-inf)"]),
    ("text", lambda L: set_field(L, 7, 6, "abc"), ["line 7", "field qd3", "not a number ('abc')"]),
    ("empty value", lambda L: set_field(L, 8, 2, ""), ["line 8", "field q2", "empty value"]),
    ("absurd q", lambda L: set_field(L, 11, 1, "2e3"), ["line 11", "field q1", "absurd value (2000;"]),
    ("absurd t", lambda L: set_field(L, 11, 0, "1e12"), ["line 11", "field t", "absurd value"]),
    ("extra field", lambda L: L.__setitem__(11, L[11] + ",1.5"),
     ["line 12", "wrong field count (expected 10 fields, got 11)"]),
    ("missing field", lambda L: L.__setitem__(11, L[11].rsplit(",", 1)[0]),
     ["line 12", "expected 10 fields, got 9"]),
    ("time backwards", lambda L: set_field(L, 20, 0, L[17].split(",")[0]),
     ["line 20", "time goes backwards", "on line 19"]),
    ("duplicate time", lambda L: set_field(L, 20, 0, L[18].split(",")[0]), ["line 20", "duplicate time", "line 19"]),
]


@pytest.mark.parametrize("name, mutate, parts", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_damaged_row_raises(tmp_path, name, mutate, parts):
    lines = header_lines(*good())
    mutate(lines)
    path = write(tmp_path / "damaged.csv", lines)
    msg = raises(lambda: read_trajectory(path), str(path), *parts)
    assert msg.startswith(f"{path}: line ")


def test_truncated_last_line(tmp_path):
    lines = header_lines(*good())
    lines[-1] = lines[-1][: lines[-1].index(",", 30)]         # cut inside the line, no newline after
    path = write(tmp_path / "cut.csv", lines, newline_at_end=False)
    n_fields = lines[-1].count(",") + 1
    raises(lambda: read_trajectory(path), f"{path}: line {S + 1}: truncated last line ({n_fields} of 10 fields)")
    # with a newline after it, the same short line is just a wrong field count
    path = write(tmp_path / "short.csv", lines)
    raises(lambda: read_trajectory(path), f"line {S + 1}: wrong field count")


def test_first_bad_line_is_reported_and_the_rest_counted(tmp_path):
    lines = header_lines(*good())
    set_field(lines, 30, 3, "x")
    set_field(lines, 5, 0, "0.0")                   # time backwards, earlier in the file
    path = write(tmp_path / "two.csv", lines)
    raises(lambda: read_trajectory(path), "line 5: time goes backwards (0 s after", "1 more bad line",
           "skip_bad_rows=True")


HEADERS = [
    ("missing tau3", "t,q1,q2,q3,q4,tau1,tau2,tau4,x", ["line 1 (header)", "field tau3: missing column"]),
    ("q1..q3 but tau1..tau2", "t,q1,q2,q3,tau1,tau2,x", ["line 1 (header)", "field tau3: missing column"]),
    ("gap in q", "t,q1,q2,q4,tau1,tau2,tau3,tau4,x", ["field q3: missing column (found q1, q2, q4)"]),
    ("tau beyond q", "t,q1,q2,tau1,tau2,tau3,x,y,z", ["field tau3: no matching q3 (q has joints 1-2)"]),
    ("duplicate", "t,q1,q2,Q1,tau1,tau2,x,y,z", ["field q1: two columns (1 and 3"]),
    ("both", "t,q1,q2,tau1,tau2,i1,i2,x,y", ["both tau and current"]),
    ("no time", "s,q1,q2,tau1,tau2,x,y,z,w", ["field t: no time column"]),
]


@pytest.mark.parametrize("name, header, parts", HEADERS, ids=[h[0] for h in HEADERS])
def test_bad_header(tmp_path, name, header, parts):
    width = header.count(",") + 1
    rows = [",".join(repr(0.01 * (k + 1) + c) for c in range(width)) for k in range(S)]
    path = write(tmp_path / "hdr.csv", [header] + rows)
    raises(lambda: read_trajectory(path), str(path), *parts)


def test_structural_errors(tmp_path):
    t, q, qd, tau = good()
    nohdr = write(tmp_path / "nohdr.csv", header_lines(t, q, qd, tau)[1:])
    raises(lambda: read_trajectory(nohdr), str(nohdr), "no header row", "column map", "columns={'t': 0", "10 fields")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,tau=7:11"), str(nohdr), "field tau",
           "column 10 out of range (lines have 10 fields, columns 0-9)")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,tau=7:9"), "field tau: 2 joints, but q has 3")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,qd=3:6,tau=7:10"), "column 3 is used for both q3 and qd1")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,current=7:10"), str(nohdr), "field current",
           "need drive gains")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,tau=7:10", gains=[1, 2, 3]), "gains given", "field tau")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,current=7:10", gains=[1, 2]),
           "gains: expected 3 values (one per joint) or one scalar")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,current=7:10", gains=[1, 0, 2]), "gains: joint 2")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,tau=7:10", n_dof=6), "3 joints, but n_dof=6")
    raises(lambda: read_trajectory(nohdr, columns="t=q1,q=1:4,tau=7:10"), "field t", "0-based numbers, not names")
    few = write(tmp_path / "few.csv", header_lines(*good(S=MIN_SAMPLES - 1)))
    raises(lambda: read_trajectory(few), f"{few}: field t: only 9 samples; need at least 10")


def test_damaged_first_line_is_data_not_a_header(tmp_path):
    lines = header_lines(*good())[1:]
    set_field(lines, 1, 2, "garbage")
    path = write(tmp_path / "first.csv", lines)
    raises(lambda: read_trajectory(path, columns="t=0,q=1:4,tau=7:10"), f"{path}: line 1: field q2: not a number")
    raises(lambda: read_trajectory(path), "no header row (line 1 has numbers")


def test_utf16_and_bad_gains(tmp_path):
    t, q, qd, tau = good()
    path = tmp_path / "excel.csv"
    path.write_text("\n".join(header_lines(t, q, qd, tau)), encoding="utf-16")
    assert_same(read_trajectory(path), t, q, tau, qd)
    raises(lambda: from_arrays(t, q, current=tau, gains=[1.0, float("nan"), 2.0]), "gains: joint 2: nan")


@pytest.mark.parametrize("content", ["", "\n\n  \n"], ids=["empty", "blank"])
def test_empty_file(tmp_path, content):
    path = tmp_path / "empty.csv"
    path.write_text(content)
    raises(lambda: read_trajectory(path), str(path), "empty file")


def test_header_only_unknown_extension_missing_file(tmp_path):
    path = write(tmp_path / "hdr.csv", header_lines(*good())[:1])
    raises(lambda: read_trajectory(path), str(path), "no data lines after the header (line 1)")
    other = write(tmp_path / "traj.json", header_lines(*good()))
    raises(lambda: read_trajectory(other), str(other), "unknown file type '.json'")
    raises(lambda: read_trajectory(tmp_path / "nope.csv"), "nope.csv: cannot read the trajectory")
    garbage = tmp_path / "bad.npz"
    garbage.write_bytes(b"not a zip")
    raises(lambda: read_trajectory(garbage), str(garbage), "not a valid NPZ file")
    garbage = tmp_path / "bad.h5"
    garbage.write_bytes(b"not hdf5")
    raises(lambda: read_trajectory(garbage), str(garbage), "cannot read as HDF5")


def save_npz(path, **arrays):
    np.savez(path, **arrays)
    return path


def save_h5(path, **arrays):
    with h5py.File(path, "w") as h5:
        for key, value in arrays.items():
            h5[key] = value
    return path


@pytest.mark.parametrize("save, ext", [(save_npz, "npz"), (save_h5, "h5")])
def test_array_files_damaged(tmp_path, save, ext):
    t, q, qd, tau = good()
    path = save(tmp_path / f"short.{ext}", times=t, positions=q, torques=tau[:-1])
    raises(lambda: read_trajectory(path), str(path), "field tau (key torques): 39 rows", "t has 40")
    path = save(tmp_path / f"transposed.{ext}", times=t, positions=q.T, torques=tau)
    raises(lambda: read_trajectory(path), "field q (key positions)", "transposed? expected (40, n)")
    path = save(tmp_path / f"joints.{ext}", times=t, positions=q, torques=tau[:, :2])
    raises(lambda: read_trajectory(path), "field tau: 2 joints, but q has 3")
    path = save(tmp_path / f"nokey.{ext}", times=t, pos=q, torques=tau)
    raises(lambda: read_trajectory(path), str(path), "field q: no array", "'positions'", "keys pos, times, torques")
    raises(lambda: read_trajectory(path, columns={"q": "joint_pos"}), "field q: no array 'joint_pos'")
    bad = tau.copy()
    bad[17, 2] = np.nan
    path = save(tmp_path / f"nan.{ext}", times=t, positions=q, torques=bad)
    raises(lambda: read_trajectory(path), f"{path}: row 17 (key torques): field tau3: NaN")
    traj = read_trajectory(path, skip_bad_rows=True)
    assert traj.skipped == ((17, "field tau3: NaN"),) and traj.skipped_unit == "row"
    assert traj.skipped_summary() == f"{path}: skipped 1 bad row of 40: row 17 (NaN)"
    tt = t.copy()
    tt[30] = tt[29]
    path = save(tmp_path / f"dup.{ext}", times=tt, positions=q, torques=tau)
    raises(lambda: read_trajectory(path), "row 30 (key times): duplicate time", "as on row 29")
    path = save(tmp_path / f"text.{ext}", times=t, positions=q.astype("S"), torques=tau)
    raises(lambda: read_trajectory(path), "field q (key positions): not numeric")


def test_arrays_and_dataframe_damaged():
    t, q, qd, tau = good()
    raises(lambda: from_arrays(t, q, tau[:30]), "<arrays>: field tau: 30 rows")
    assert from_arrays(t, q).tau is None                      # a motion to play: identification refuses it
    raises(lambda: preprocess(from_arrays(t, q, source="play.csv")), "play.csv: field tau: no torques")
    raises(lambda: from_arrays(t, q, tau, current=tau, gains=1.0), "both tau and current")
    raises(lambda: from_arrays(t[:, None, None], q, tau), "field t: expected shape (S,)")
    bad = q.copy()
    bad[3, 1] = 1e300
    raises(lambda: from_arrays(t, bad, tau, source="run 7"), "run 7: row 3: field q2: absurd value (1e+300;")
    frame = pd.DataFrame(np.column_stack([t, q, tau]), columns=["t", "q1", "q2", "q3", "tau1", "tau2", "tau3"])
    frame = frame.astype({"q2": object})
    frame.loc[5, "q2"] = "x"
    raises(lambda: from_dataframe(frame), "<DataFrame>: row 5: field q2: not a number ('x')")
    traj = from_dataframe(frame, skip_bad_rows=True)
    assert traj.skipped == ((5, "field q2: not a number ('x')"),)
    np.testing.assert_array_equal(traj.q, np.delete(q, 5, axis=0))
    stamps = frame.assign(t=pd.to_datetime(t, unit="s"))
    raises(lambda: from_dataframe(stamps), "field t: column 't' holds dates")


# -- skip_bad_rows ---------------------------------------------------------------------------------


def test_skip_bad_rows_drops_exactly_the_bad_lines(tmp_path):
    t, q, qd, tau = good()
    lines = header_lines(t, q, qd, tau)
    set_field(lines, 3, 6, "abc")                              # sample 1
    lines[3] = lines[3] + ",7"                                 # line 4 = sample 2
    set_field(lines, 5, 2, "nan")                              # sample 3
    set_field(lines, 10, 9, "5e6")                             # sample 8: absurd torque
    set_field(lines, 20, 0, "1e11")                            # sample 18: absurd time
    set_field(lines, 25, 0, lines[23].split(",")[0])           # sample 23: duplicate of line 24's time
    set_field(lines, 26, 0, "0.0")                             # sample 24: backwards
    lines[-1] = lines[-1][:25]                                 # sample 39: truncated, no final newline
    path = write(tmp_path / "ur.csv", lines, newline_at_end=False)
    with pytest.raises(DataError, match=r"line 3: field qd3: not a number \('abc'\); 7 more bad lines"):
        read_trajectory(path)
    traj = read_trajectory(path, skip_bad_rows=True)
    bad_lines = [3, 4, 5, 10, 20, 25, 26, S + 1]
    assert [w for w, _ in traj.skipped] == bad_lines
    reasons = dict(traj.skipped)
    assert reasons[3] == "field qd3: not a number ('abc')"
    assert reasons[4] == "wrong field count (expected 10 fields, got 11)"
    assert reasons[5] == "field q2: NaN"
    assert reasons[10].startswith("field tau3: absurd value (5e+06;")
    assert reasons[20].startswith("field t: absurd value (1e+11;")
    assert reasons[25].startswith("duplicate time (") and reasons[25].endswith("as on line 24)")
    assert reasons[26].startswith("time goes backwards (0 s after ") and reasons[26].endswith("on line 24)")
    assert reasons[S + 1].startswith("truncated last line (")
    keep = np.setdiff1d(np.arange(S), np.array(bad_lines) - 2)   # line k holds sample k - 2
    assert_same(traj, t[keep], q[keep], tau[keep], qd[keep])
    assert traj.skipped_summary() == (
        f"{path}: skipped 8 bad rows of {S}: lines 3-5 (not a number, wrong field count, NaN), 10 (absurd value), "
        f"20 (absurd value), 25-26 (duplicate time, time goes backwards), {S + 1} (truncated last line)")


def test_skip_bad_rows_still_raises_structural_errors(tmp_path):
    t, q, qd, tau = good(S=12)
    lines = header_lines(t, q, qd, tau)
    for k in (2, 3, 4):
        set_field(lines, k, 1, "nan")
    path = write(tmp_path / "few.csv", lines)
    raises(lambda: read_trajectory(path, skip_bad_rows=True), "field t: only 9 samples after skipping 3 bad lines")
    nohdr = write(tmp_path / "nohdr.csv", lines[1:])
    raises(lambda: read_trajectory(nohdr, skip_bad_rows=True), "no header row")


def test_summary_compresses_ranges():
    skipped = tuple((k, "field q1: NaN") for k in range(2, 30, 2))
    skipped += ((40, "wrong field count (expected 3 fields, got 2)"),)
    traj = Trajectory(np.arange(10.0), np.zeros((10, 1)), np.zeros((10, 1)), source="x.csv", skipped=skipped)
    summary = traj.skipped_summary()
    assert summary.startswith("x.csv: skipped 15 bad rows of 25: lines 2 (NaN), 4 (NaN), ")
    assert summary.endswith("20 (NaN), … (5 more ranges)")


# -- property: random tables read back exactly -----------------------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), n=st.integers(1, 4), samples=st.integers(MIN_SAMPLES, 25),
       delimiter=st.sampled_from([",", ";", "\t", " "]), header=st.booleans())
def test_random_tables_read_back_exactly(tmp_path, data, n, samples, delimiter, header):
    finite = dict(allow_nan=False, allow_infinity=False)
    steps = data.draw(hnp.arrays(np.float64, samples, elements=st.floats(1e-3, 100.0, **finite)))
    t = data.draw(st.floats(-1e3, 1e3, **finite)) + np.cumsum(steps)
    assume(np.all(np.diff(t) > 0))                   # tiny steps on a large start may round to a tie
    assume(not apart_ends(t))       # a first or last time 100 typical steps from the rest is refused (lrd7's tests)
    bound = ABSURD_BOUNDS["q"]
    q = data.draw(hnp.arrays(np.float64, (samples, n), elements=st.floats(-bound, bound, **finite)))
    tau = data.draw(hnp.arrays(np.float64, (samples, n), elements=st.floats(-1e6, 1e6, **finite)))
    table = np.column_stack([t, q, tau])
    lines = [delimiter.join(repr(float(v)) for v in row) for row in table]
    names = ["t"] + [f"q{j + 1}" for j in range(n)] + [f"tau{j + 1}" for j in range(n)]
    if header:
        lines.insert(0, delimiter.join(names))
    path = write(tmp_path / "random.txt", lines)
    columns = None if header else {"t": 0, "q": slice(1, 1 + n), "tau": slice(1 + n, 1 + 2 * n)}
    traj = read_trajectory(path, columns=columns)
    assert_same(traj, t, q, tau)


# -- speed ------------------------------------------------------------------------------------------


def test_100k_rows_load_fast(tmp_path):
    # 1000 distinct rows of 30 values repeated, behind 100 000 increasing times (fast to write).
    rng = np.random.default_rng(0)
    block = np.round(rng.normal(size=(1000, 30)), 6)
    rest = [",".join(f"{v:.6f}" for v in row) for row in block] * 100
    t = 798.467 + 0.01 * np.arange(100_000)
    path = tmp_path / "big.csv"
    path.write_text("\n".join(f"{a:.3f},{b}" for a, b in zip(t, rest)) + "\n")
    traj = read_trajectory(path, columns=UR_MAP, gains=UR_GAINS)     # its speed: bench/bench_identify.py --speed
    assert traj.q.shape == (100_000, 6)
    np.testing.assert_array_equal(traj.q, np.tile(block[:, :6], (100, 1)))
    np.testing.assert_allclose(traj.t, t, rtol=0, atol=5e-4)


# -- real files ------------------------------------------------------------------------------------


@needs_data
def test_ur10e_identification_file():
    path = UR / "ur-20_02_12-50sec_12harm.csv"
    traj = read_trajectory(path, columns=UR_MAP, gains=UR_GAINS)
    assert traj.q.shape == traj.qd.shape == traj.tau.shape == (5457, 6)
    assert traj.qdd is None and traj.skipped == ()
    with open(path) as stream:
        first = [float(v) for v in stream.readline().split(",")]
    assert len(first) == 31
    assert traj.t[0] == first[0]
    np.testing.assert_array_equal(traj.q[0], first[1:7])
    np.testing.assert_array_equal(traj.tau[0], np.array(first[13:19]) * UR_GAINS)
    raises(lambda: read_trajectory(path, columns=UR_MAP), "field current", "gains")
    raises(lambda: read_trajectory(path), "no header row", "31 fields")


@needs_data
def test_ur10e_damaged_file():
    path = UR / "ur-20_02_19_15harm50secLoad.csv"
    raises(lambda: read_trajectory(path, columns=UR_MAP, gains=UR_GAINS),
           f"{path}: line 2: time goes backwards (-0.1231 s after 3047.693 s on line 1); 9 more bad lines")
    traj = read_trajectory(path, columns=UR_MAP, gains=UR_GAINS, skip_bad_rows=True)
    # Lines 2-10: garbage (all with 31 fields): times from the past, absurd numbers; line 6107: cut.
    lines = [w for w, _ in traj.skipped]
    assert lines == [2, 3, 4, 5, 6, 7, 8, 9, 10, 6107]
    reasons = dict(traj.skipped)
    assert reasons[3].startswith("field q1: absurd value (-1.1251e+282;")
    assert reasons[5].startswith("field t: absurd value (2.68156e+154;")
    assert reasons[6107] == "truncated last line (20 of 31 fields)"
    assert traj.n_samples == 6107 - 10
    assert traj.skipped_summary() == (f"{path}: skipped 10 bad rows of 6107: lines 2-10 "
                                      "(time goes backwards, absurd value), 6107 (truncated last line)")
    assert traj.t[0] == 3047.693 and traj.t[1] == 3048.059 and np.all(np.diff(traj.t) > 0)


@needs_data
def test_kuka_npz():
    path = DATA / "kuka_lwr4" / "measurements_1.npz"
    traj = read_trajectory(path, n_dof=7)
    assert traj.q.shape == traj.qd.shape == traj.qdd.shape == traj.tau.shape == (5027, 7)
    with np.load(path) as raw:
        np.testing.assert_array_equal(traj.tau, raw["torques"])
        np.testing.assert_array_equal(traj.t, raw["times"])     # Unix time in s, within the bound


# -- units in headers ------------------------------------------------------------------------------


def with_header(t, q, qd, tau, header):
    """The header CSV lines of :func:`header_lines` under another header line."""
    return [header] + header_lines(t, q, qd, tau)[1:]


@pytest.mark.parametrize("header", [
    "t [s], q1 [rad], q2 [rad], q3 [m], qd1 [rad/s], qd2 [RAD / S], qd3 [m/s], tau1 [N·m], tau2 [N*m], tau3 [N]",
    "t (s),q1 (rad),q2(rad),q3 (M),qd1 (rad/s),qd2,qd3,tau1 (Nm),tau2 (N.m),tau3 (n m)",
    'Time [ S ],"q[1] [rad]",q_2 [rad],q3,qd1,qd2,qd3,tau1 [N⋅m],tau2 [N],tau3 [N]',
])
def test_si_units_in_header_are_accepted(tmp_path, header):
    t, q, qd, tau = good()
    traj = read_trajectory(write(tmp_path / "units.csv", with_header(t, q, qd, tau, header)))
    assert_same(traj, t, q, tau, qd)       # accepted, never converted


def test_units_of_accelerations_currents_and_dataframes(tmp_path):
    t, q, qd, tau = good()
    names = (["t [s]"] + [f"q{j} [rad]" for j in (1, 2, 3)] + ["qdd1 [rad/s^2]", "qdd2 [rad/s²]", "qdd3 [m/s^2]"]
             + [f"current{j} [A]" for j in (1, 2, 3)])
    lines = [",".join(names)] + header_lines(t, q, qd, tau)[1:]
    traj = read_trajectory(write(tmp_path / "acc.csv", lines), gains=2.0)
    np.testing.assert_array_equal(traj.qdd, qd)
    np.testing.assert_array_equal(traj.tau, 2.0 * tau)
    frame = pd.DataFrame(np.column_stack([t, q, tau]), columns=names[:4] + ["tau1 [N·m]", "tau2 [N·m]", "tau3 [N·m]"])
    assert_same(from_dataframe(frame), t, q, tau)
    # map entries may name a column with or without its unit
    assert_same(from_dataframe(frame, columns={"q": ["q1", "q2 [rad]", "Q3"]}), t, q, tau)
    # whitespace-separated: a unit stays with its name
    header = "t [s]   q1 [rad] q2 [rad] q3 (rad)  qd1 qd2 qd3  tau1 [N m] tau2 [N m] tau3 [N m]"
    lines = [header] + [line.replace(",", "  ") for line in header_lines(t, q, qd, tau)[1:]]
    assert_same(read_trajectory(write(tmp_path / "ws.txt", lines)), t, q, tau, qd)
    lines[0] = lines[0].replace("q3 (rad)", "q3 (deg)")
    raises(lambda: read_trajectory(write(tmp_path / "ws.txt", lines)), "unit deg is not accepted")


@pytest.mark.parametrize("name, expected", [
    ("q1 [deg]", "column 'q1 [deg]': unit deg is not accepted; give q in rad (or m)"),
    ("t [ms]", "column 't [ms]': unit ms is not accepted; give t in s"),
    ("time (min)", "column 'time (min)': unit min is not accepted; give t in s"),
    ("qd2 [deg/s]", "column 'qd2 [deg/s]': unit deg/s is not accepted; give qd in rad/s (or m/s)"),
    ("tau3 [kN·m]", "column 'tau3 [kN·m]': unit kN·m is not accepted; give tau in N·m (or N)"),
    ("q2 [°]", "column 'q2 [°]': unit ° is not accepted; give q in rad (or m)"),
])
def test_other_units_are_refused(tmp_path, name, expected):
    t, q, qd, tau = good()
    names = "t,q1,q2,q3,qd1,qd2,qd3,tau1,tau2,tau3".split(",")
    field = name.split()[0]
    names[names.index("t" if field == "time" else field)] = name
    path = write(tmp_path / "unit.csv", with_header(t, q, qd, tau, ",".join(names)))
    msg = raises(lambda: read_trajectory(path), f"{path}: line 1 (header): {expected}")
    assert "no time column" not in msg


def test_units_of_unused_columns_are_not_checked(tmp_path):
    t, q, qd, tau = good()
    header = "t [s],q1,q2,q3,qd1 [deg/s],qd2 [deg/s],qd3 [deg/s],tau1,tau2,tau3"
    path = write(tmp_path / "deg.csv", with_header(t, q, qd, tau, header))
    raises(lambda: read_trajectory(path), "unit deg/s is not accepted")
    assert_same(read_trajectory(path, columns={"qd": None}), t, q, tau)
    header = "t,q1,q2,q3,speed1 [deg/s],speed2 [deg/s],speed3 [deg/s],tau1,tau2,tau3"      # not a field
    assert_same(read_trajectory(write(tmp_path / "other.csv", with_header(t, q, qd, tau, header))), t, q, tau)
    header = "t,q1,q2,q3,pos[1],pos[2],pos[3],tau1,tau2,tau3"       # digits in brackets: no unit
    path = write(tmp_path / "idx.csv", with_header(t, q, qd, tau, header))
    assert_same(read_trajectory(path, columns={"qd": ["pos[1]", "pos[2]", "pos[3]"]}), t, q, tau, qd)


def test_a_huge_column_name_is_cut_in_the_messages(tmp_path):
    """A header line may be 1 MB, one column name all of it: the name lists of the messages cut each name (the
    message was the whole name, half a megabyte on one line)."""
    path = tmp_path / "huge.csv"
    path.write_text("stamp," + "n" * 500_000 + ",j2,j3\n" + "0,0,0,0\n" * 30)
    for columns, expected in ((None, "field t: no time column"), ({"t": "stamp", "q": ["zz"]}, "no column named 'zz'")):
        with pytest.raises(DataError) as info:
            read_trajectory(path, columns=columns)
        text = str(info.value)
        assert expected in text and len(text) < 500 and f"stamp, {'n' * 80}…, j2, j3" in text, text[:600]


def test_unrecognised_header_lists_the_names(tmp_path):
    t, q, qd, tau = good()
    header = "stamp,j1,j2,j3,v1,v2,v3,e1,e2,e3,x1,x2,x3,x4"
    lines = [header] + [line + ",0,0,0,0" for line in header_lines(t, q, qd, tau)[1:]]
    path = write(tmp_path / "names.csv", lines)
    msg = raises(lambda: read_trajectory(path), f"{path}: line 1 (header): field t: no time column",
                 "stamp, j1, j2, j3, v1, v2, v3, e1, e2, e3, x1, x2, … (14 in all)")
    assert "x3" not in msg and "x4" not in msg
    raises(lambda: read_trajectory(path, columns={"t": "stamp"}), "field q: no joint positions", "stamp, j1")


# -- Trajectory(...) validates what it is given ------------------------------------------------------


def test_trajectory_constructor_validates():
    t, q, qd, tau = good()
    traj = Trajectory(t=list(t), q=q.tolist(), tau=tau.astype(np.float32), qd=qd, source="lists")
    assert traj.t.dtype == traj.q.dtype == traj.tau.dtype == np.float64 and isinstance(traj.t, np.ndarray)
    np.testing.assert_array_equal(traj.q, q)
    raises(lambda: Trajectory(t=t[:30], q=q, tau=tau, source="run 1"), "run 1: field q: 40 rows", "t has 30")
    raises(lambda: Trajectory(t=t, q=q, tau=tau[:, :2], source="run 1"), "run 1: field tau: 2 joints, but q has 3")
    raises(lambda: Trajectory(t=t, q=q, tau=tau, qdd=qd[:, :1]), "<arrays>: field qdd: 1 joints, but q has 3")
    raises(lambda: Trajectory(t=t, q=q, tau=tau[:-1]), "field tau: 39 rows")
    raises(lambda: Trajectory(t=t[:, None], q=q, tau=tau), "field t: expected shape (S,), got (40, 1)")
    raises(lambda: Trajectory(t=t, q=q[:, 0], tau=tau), "field q: expected shape (S, n), got (40,)")
    raises(lambda: Trajectory(t=t, q=q[:, :0], tau=tau[:, :0]), "field q: no joints (shape (40, 0))")
    bad = qd.copy()
    bad[7, 2] = np.nan
    raises(lambda: Trajectory(t=t, q=q, tau=tau, qd=bad, source="s.csv"), "s.csv: row 7: field qd3: NaN")
    bad = tau.copy()
    bad[3, 0] = -np.inf
    raises(lambda: Trajectory(t=t, q=q, tau=bad), "row 3: field tau1: infinite")
    raises(lambda: Trajectory(t=np.ones(S), q=q, tau=tau), "row 1: field t: duplicate time (1 s, as on row 0)")
    back = t.copy()
    back[12] = 0.0
    raises(lambda: Trajectory(t=back, q=q, tau=tau), "row 12: field t: time goes backwards (0 s after")
    raises(lambda: Trajectory(t=t[:3], q=q[:3], tau=tau[:3]), "field t: only 3 samples; need at least 10")
    raises(lambda: Trajectory(t=t, q=q.astype(str), tau=tau), "field q: not numeric")
    raises(lambda: Trajectory(t=t, q=q, tau=tau, qd=[[1, "a", 2]] * S), "field qd: not numeric")
    raises(lambda: Trajectory(t=t, q=q > 0, tau=tau), "field q: not numeric (dtype bool)")
    raises(lambda: Trajectory(t=t, q=q + 1j, tau=tau), "field q: not numeric (dtype complex128)")
    raises(lambda: Trajectory(t=t, q=None, tau=tau), "field q: missing")


# -- header-less files: a damaged first line is data, not a header -------------------------------------


def test_positional_map_and_text_first_line(tmp_path):
    t, q, qd, tau = good()
    lines = header_lines(t, q, qd, tau)
    nohdr = lines[1:]
    nohdr[0] = ",".join(["garbage", "xx"] + ["yy"] * 8)
    path = write(tmp_path / "garbage.csv", nohdr)
    columns = "t=0,q=1:4,qd=4:7,tau=7:10"
    msg = raises(lambda: read_trajectory(path, columns=columns), f"{path}: line 1: field t: not a number ('garbage')")
    assert "not a header" in msg
    traj = read_trajectory(path, columns=columns, skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == [1]
    assert_same(traj, t[1:], q[1:], tau[1:], qd[1:])
    # a header with known names (with units, too) is still a header with a positional map
    for header in (lines[0], "t [s],q1,q2,q3,a,b,c,d,e,f", "Time,x,y,z,a,b,c,d,e,f"):
        path = write(tmp_path / "hdr.csv", [header] + lines[1:])
        assert_same(read_trajectory(path, columns=columns), t, q, tau, qd)
    # without a map, an all-text first line is a header and its names must be known
    path = write(tmp_path / "nomap.csv", nohdr)
    raises(lambda: read_trajectory(path), "field t: no time column", "garbage, xx")


# -- comment lines ------------------------------------------------------------------------------------


def test_comment_lines_are_skipped(tmp_path):
    t, q, qd, tau = good()
    lines = header_lines(t, q, qd, tau)
    lines.insert(0, "# recorded 2020-02-12, UR10e, 500 Hz")
    lines.insert(10, "   # pause, 3 fields: a, b, c")
    lines.insert(11, "#")
    path = write(tmp_path / "comments.csv", lines)
    assert_same(read_trajectory(path), t, q, tau, qd)
    set_field(lines, 20, 4, "abc")                      # physical line numbers count the comments
    raises(lambda: read_trajectory(write(path, lines)), f"{path}: line 20: field qd1: not a number ('abc')")
    set_field(lines, 20, 4, "0.5")
    set_field(lines, 25, 0, "#N/A")                     # a spreadsheet error value is data, not a comment
    raises(lambda: read_trajectory(write(path, lines)), f"{path}: line 25: field t: not a number ('#N/A')")
    nohdr = ["# no header"] + header_lines(t, q, qd, tau)[1:]
    nohdr.insert(5, "# a comment in the data")
    path = write(tmp_path / "nohdr.csv", nohdr)
    raises(lambda: read_trajectory(path), "no header row (line 2 has numbers, 10 fields per line)")
    assert_same(read_trajectory(path, columns="t=0,q=1:4,qd=4:7,tau=7:10"), t, q, tau, qd)


def test_commented_header_of_savetxt(tmp_path):
    t, q, qd, tau = good()
    names = "t,q1,q2,q3,qd1,qd2,qd3,tau1,tau2,tau3"
    path = tmp_path / "savetxt.csv"
    np.savetxt(path, np.column_stack([t, q, qd, tau]), delimiter=",", header=names, fmt="%.17g")
    assert path.read_text().startswith("# t,q1")
    assert_same(read_trajectory(path), t, q, tau, qd)
    np.savetxt(path, np.column_stack([t, q, qd, tau]), header=names.replace(",", " "), fmt="%.17g")
    assert_same(read_trajectory(path), t, q, tau, qd)


# -- quoted numbers, decimal commas -----------------------------------------------------------------------


def test_quoted_numbers(tmp_path):
    t, q, qd, tau = good()
    lines = ['"' + line.replace(",", '","') + '"' for line in header_lines(t, q, qd, tau)]
    path = write(tmp_path / "quoted.csv", lines)
    assert_same(read_trajectory(path), t, q, tau, qd)
    lines[6] = lines[6].replace(lines[6].split(",")[5], '"abc"')
    raises(lambda: read_trajectory(write(path, lines)), f"{path}: line 7: field qd2: not a number ('abc')")
    nohdr = write(tmp_path / "nohdr.csv", lines[1:6] + lines[7:])
    assert_same(read_trajectory(nohdr, columns="t=0,q=1:4,tau=7:10"), np.delete(t, 5), np.delete(q, 5, 0),
                np.delete(tau, 5, 0))


def test_decimal_commas_are_named(tmp_path):
    t, q, qd, tau = good()
    lines = [line.replace(",", ";").replace(".", ",") for line in header_lines(t, q, qd, tau)]
    path = write(tmp_path / "excel.csv", lines)
    raises(lambda: read_trajectory(path), f"{path}: line 2: field t: not a number (",
           "decimal commas are not supported; use '.'")
    nohdr = write(tmp_path / "nohdr.csv", lines[1:])
    raises(lambda: read_trajectory(nohdr), "no header row (line 1 has numbers, 10 fields per line)")
    raises(lambda: read_trajectory(nohdr, columns="t=0,q=1:4,tau=7:10"), "line 1: field t",
           "decimal commas are not supported; use '.'")
    tabs = write(tmp_path / "tabs.txt", [line.replace(";", "\t") for line in lines[1:]])
    raises(lambda: read_trajectory(tabs, columns="t=0,q=1:4,tau=7:10"), "decimal commas are not supported")


# -- DataFrames --------------------------------------------------------------------------------------------


def frame_of(t, q, tau):
    return pd.DataFrame(np.column_stack([t, q, tau]), columns=["t", "q1", "q2", "q3", "tau1", "tau2", "tau3"])


def test_dataframe_index_series_multiindex_and_dtypes():
    t, q, qd, tau = good()
    frame = frame_of(t, q, tau)
    stamped = frame.drop(columns="t").set_index(pd.to_datetime(t, unit="s"))
    msg = raises(lambda: from_dataframe(stamped), "<DataFrame>: field t: no time column", "DatetimeIndex",
                 "seconds", "total_seconds()")
    fixed = stamped.copy()
    fixed.insert(0, "t", (fixed.index - fixed.index[0]).total_seconds())      # the hint, as given
    assert "df.insert(0, 't', (df.index - df.index[0]).total_seconds())" in msg
    np.testing.assert_allclose(from_dataframe(fixed).t, t - t[0], atol=1e-6)
    raises(lambda: from_dataframe(frame.set_index("t")), "field t: no time column", "index named 't'", "reset_index()")
    raises(lambda: from_dataframe(frame["q1"]), "<DataFrame>: expected a pandas DataFrame, got Series")
    multi = frame.copy()
    multi.columns = pd.MultiIndex.from_tuples([("time", "t")] + [("pos", f"q{j}") for j in (1, 2, 3)]
                                              + [("eff", f"tau{j}") for j in (1, 2, 3)])
    raises(lambda: from_dataframe(multi), "columns are a MultiIndex (2 levels)", "flatten")
    raises(lambda: from_dataframe(frame.assign(q2=frame.q2 > 0)), "field q2: column 'q2' holds booleans (bool)")
    raises(lambda: from_dataframe(frame.assign(tau1=frame.tau1 + 1j)),
           "field tau1: column 'tau1' holds complex numbers")


# -- array files ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("save, ext", [(save_npz, "npz"), (save_h5, "h5")])
def test_array_file_without_joints(tmp_path, save, ext):
    t, q, qd, tau = good()
    path = save(tmp_path / f"empty.{ext}", t=t, q=q[:, :0], tau=tau[:, :0])
    raises(lambda: read_trajectory(path), f"{path}: field q (key q): no joints (shape (40, 0))")
    path = save(tmp_path / f"empty_tau.{ext}", t=t, q=q, tau=tau[:, :0])
    raises(lambda: read_trajectory(path), "field tau (key tau): no joints (shape (40, 0))")
    raises(lambda: from_arrays(t, q[:, :0], tau), "<arrays>: field q: no joints (shape (40, 0))")


def test_h5_soft_links(tmp_path):
    t, q, qd, tau = good()
    path = tmp_path / "links.h5"
    with h5py.File(path, "w") as h5:
        h5["raw/time"], h5["raw/pos"], h5["raw/vel"], h5["raw/eff"] = t, q, qd, tau
        h5["t"] = h5py.SoftLink("/raw/time")
        h5["positions"] = h5py.SoftLink("/raw/pos")
        h5["tau"] = h5py.SoftLink("/raw/eff")
        h5["speed"] = h5py.SoftLink("/raw/vel")
        h5["dangling"] = h5py.SoftLink("/nowhere")
    assert_same(read_trajectory(path), t, q, tau)
    assert_same(read_trajectory(path, columns={"qd": "speed"}), t, q, tau, qd)
    assert_same(read_trajectory(path, columns="qd=/speed"), t, q, tau, qd)
    raises(lambda: read_trajectory(path, columns={"qd": "dangling"}), "key dangling: a soft link to '/nowhere', which "
           "names nothing in the file")


@pytest.mark.parametrize("save, ext", [(save_npz, "npz"), (save_h5, "h5")])
def test_float32_unix_times_are_explained(tmp_path, save, ext):
    t, q, qd, tau = good()
    unix = (1.7e9 + t).astype(np.float32)
    path = save(tmp_path / f"f32.{ext}", t=unix, q=q, tau=tau)
    note = "(time stored as float32: too coarse for Unix time stamps; store float64)"
    raises(lambda: read_trajectory(path), f"{path}: row 1 (key t): duplicate time", note)
    raises(lambda: read_trajectory(path, skip_bad_rows=True), "only 1 sample", note)
    frame = frame_of(t, q, tau).astype({"t": np.float32})
    frame["t"] += np.float32(1.7e9)
    raises(lambda: from_dataframe(frame), "duplicate time", note)
    raises(lambda: Trajectory(t=unix, q=q, tau=tau), "duplicate time", note)
    path = save(tmp_path / f"small.{ext}", t=t.astype(np.float32), q=q, tau=tau)      # fine when small
    np.testing.assert_array_equal(read_trajectory(path).t, t.astype(np.float32))


# -- column maps: excluding a field ------------------------------------------------------------------------


def test_column_map_none_excludes_a_field(tmp_path):
    assert parse_column_map("t=0,q=1:4,current=None,qd=none") == {"t": 0, "q": slice(1, 4), "current": None,
                                                                   "qd": None}
    t, q, qd, tau = good()
    lines = header_lines(t, q, qd, tau)
    lines[0] = lines[0].replace("qd", "current")
    path = write(tmp_path / "both.csv", lines)
    raises(lambda: read_trajectory(path), "both tau and current", "columns={'current': None}")
    assert_same(read_trajectory(path, columns="current=none"), t, q, tau)
    traj = read_trajectory(path, columns="tau=NONE", gains=2.0)
    np.testing.assert_array_equal(traj.tau, 2.0 * qd)
