"""Which rows of a log are bad: glitched time stamps (the glitch is the bad row, not the good rows
after it), clock restarts, and line numbers as an editor shows them (a stray \\r is no line break)."""
import numpy as np
import pytest

from baseparam.errors import DataError
from baseparam.identification.trajectory import Trajectory, from_arrays, read_trajectory
from conftest import DATA, needs_data

UR_LOG = DATA / "ur10e" / "identification_data" / "ur-20_02_12-50sec_12harm.csv"
UR_MAP = "t=0,q=1:7,qd=7:13,current=13:19"
UR_GAINS = [10.0, 10.6956, 8.4566, 9.0029, 9.4800, 10.1232]


@pytest.fixture(scope="module")
def ur_lines():
    lines = UR_LOG.read_text().splitlines()
    assert len(lines) == 5457
    return lines


def with_time(lines, line_no, text):
    out = list(lines)
    fields = out[line_no - 1].split(",")
    fields[0] = text
    out[line_no - 1] = ",".join(fields)
    return out


def write(tmp_path, lines, name="ur.csv"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def read(path, **kw):
    return read_trajectory(path, columns=UR_MAP, gains=UR_GAINS, **kw)


@needs_data
@pytest.mark.parametrize("line_no", [1001, 1, 2, 5456])
def test_ur10e_forward_glitch_is_the_bad_row(tmp_path, ur_lines, line_no):
    path = write(tmp_path, with_time(ur_lines, line_no, "99999"))
    with pytest.raises(DataError, match=rf"ur\.csv: line {line_no}: time jumps ahead and back \(99999 s, ") as info:
        read(path)
    assert "more bad" not in str(info.value)
    traj = read(path, skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == [line_no]
    assert traj.n_samples == 5456
    assert traj.skipped_summary().endswith(f"skipped 1 bad row of 5457: line {line_no} (time jumps ahead and back)")
    good = read(write(tmp_path, ur_lines, "good.csv"))
    np.testing.assert_array_equal(traj.t, np.delete(good.t, line_no - 1))


@needs_data
def test_ur10e_backward_glitch_is_the_bad_row(tmp_path, ur_lines):
    path = write(tmp_path, with_time(ur_lines, 1001, "0"))
    with pytest.raises(DataError, match=r"line 1001: time goes backwards \(0 s after 809.097 s on line 1000\)$"):
        read(path)
    assert [w for w, _ in read(path, skip_bad_rows=True).skipped] == [1001]


@needs_data
def test_small_forward_glitch_costs_one_row(tmp_path, ur_lines):
    """A stamp 0.1 s ahead (about 9 steps): still the one bad row, not the 8 after it."""
    path = write(tmp_path, with_time(ur_lines, 1001, "809.2"))
    assert [w for w, _ in read(path, skip_bad_rows=True).skipped] == [1001]


@needs_data
def test_restart_keeps_todays_behaviour(tmp_path, ur_lines):
    """Time goes back and stays back (two recordings glued): the first part is kept, the rows after
    the restart are dropped until time passes the first part's last stamp, as before."""
    path = write(tmp_path, ur_lines[:3000] + ur_lines[:2000])
    with pytest.raises(DataError, match=r"line 3001: time goes backwards \(798.467 s after"):
        read(path)
    traj = read(path, skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == list(range(3001, 5001))
    path = write(tmp_path, ur_lines[:1000] + ur_lines[:4000], "longer_second.csv")
    traj = read(path, skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == list(range(1001, 2001))


@needs_data
def test_damaged_real_log_still_drops_its_garbage():
    path = UR_LOG.parent / "ur-20_02_19_15harm50secLoad.csv"
    traj = read(path, skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 6107]


@pytest.mark.parametrize("glitch, bad", [
    ({5: 1e5}, [5]),                         # one stamp far ahead
    ({5: 1e5, 6: 2e5, 7: 3e5}, [5, 6, 7]),   # a short run ahead
    ({0: 1e5}, [0]),                         # at the start
    ({5: -1.0}, [5]),                        # one stamp back
    ({5: 0.04}, [5]),                        # a duplicate of the row before
])
def test_synthetic_glitches(glitch, bad):
    t = np.arange(40) * 0.01
    for row, value in glitch.items():
        t[row] = value
    traj = from_arrays(t, np.zeros((40, 1)), np.zeros((40, 1)), skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == bad
    with pytest.raises(DataError, match=rf"^<arrays>: row {bad[0]}: "):
        from_arrays(t, np.zeros((40, 1)), np.zeros((40, 1)))


def test_long_run_ahead_is_a_restart_not_a_glitch():
    t = np.concatenate([np.arange(30) * 0.01 + 100.0, np.arange(30) * 0.01])
    traj = from_arrays(t, np.zeros((60, 1)), np.zeros((60, 1)), skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == list(range(30, 60))


# --- line numbers ---------------------------------------------------------------------------------

def csv_lines(S=20):
    rows = ["t,q1,tau1"] + [f"{0.01 * i:.2f},{0.1 * i:.1f},1.0" for i in range(S)]
    return rows


def test_stray_carriage_return_is_a_bad_field_not_a_line_break(tmp_path):
    lines = csv_lines()
    lines[5] = lines[5].replace(",", ",\r", 1).replace("\r", "\r9", 1)      # '0.04,\r90.4,1.0'
    path = tmp_path / "cr.csv"
    path.write_bytes(("\n".join(lines) + "\nbad\n").encode())
    with pytest.raises(DataError, match=r"cr\.csv: line 6: field q1: not a number") as info:
        read_trajectory(path)
    assert "1 more bad line" in str(info.value)
    traj = read_trajectory(path, skip_bad_rows=True)
    assert [w for w, _ in traj.skipped] == [6, 22]                 # 'bad' is the file's line 22
    assert traj.n_samples == 19


def test_crlf_and_classic_mac_line_ends(tmp_path):
    lines = csv_lines()
    lines[7] = "0.06,x,1.0"
    for name, end in (("crlf.csv", "\r\n"), ("mac.csv", "\r")):
        path = tmp_path / name
        path.write_bytes((end.join(lines) + end).encode())
        with pytest.raises(DataError, match=rf"{name}: line 8: field q1: not a number \('x'\)$"):
            read_trajectory(path)


def test_trajectory_constructor_names_the_glitched_row():
    t = np.arange(20) * 0.01
    t[7] = 99.0
    with pytest.raises(DataError, match=r"^<arrays>: row 7: field t: time jumps ahead and back \(99 s, "
                                        r"after 0.06 s on row 6, before 0.08 s on row 8\)"):
        Trajectory(t=t, q=np.zeros((20, 1)), tau=np.zeros((20, 1)))
    t[7] = 0.0
    with pytest.raises(DataError, match=r"^<arrays>: row 7: field t: time goes backwards"):
        Trajectory(t=t, q=np.zeros((20, 1)), tau=np.zeros((20, 1)))
