"""Round 22, helper lrd2: the log readers' silent wrong answers (issue 28)."""

import warnings

import numpy as np
import pytest

from baseparam.errors import DataWarning
from baseparam.identification.trajectory import read_trajectory

S, N = 40, 2


def _csv(tmp_path, ending):
    rng = np.random.default_rng(3)
    t = 0.5 + np.cumsum(rng.uniform(0.005, 0.015, S))
    q = np.sin(np.outer(t, [1.1, 0.7]))
    tau = rng.normal(0, 20, (S, N))
    lines = ["t,q1,q2,tau1,tau2"] + [",".join(repr(float(v)) for v in row) for row in np.column_stack([t, q, tau])]
    path = tmp_path / "log.csv"
    path.write_text("\n".join(lines) + ending)
    return path


def test_csv_cut_inside_its_last_value_is_said():
    """A log killed mid-write, cut inside its last value: the last line has no line end and its shortened number
    was read as a valid sample at exit 0 without a word (218 of 8 450 cut points of the fuzzer)."""
    import pathlib
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = _csv(pathlib.Path(folder), "")
        path.write_text(path.read_text()[:-4])            # the last value cut short
        with pytest.warns(DataWarning, match=rf"log.csv: line {S + 1}: the last line has no line end: a log cut off "
                                             r"mid-write\? its values are read as they stand"):
            read_trajectory(path)


def test_csv_with_its_line_end_reads_silently(tmp_path):
    path = _csv(tmp_path, "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_trajectory(path)


def test_fixed_format_log_without_line_end_reads_silently_whole_and_warns_cut(tmp_path):
    """A fixed format ('%.4f', as the UR logs are written, without a final line end) shows a whole last line; a cut
    inside its last value loses digits or the point: warned ('-0.02' of '-0.0231')."""
    rng = np.random.default_rng(4)
    t = 0.5 + 0.01 * np.arange(S)
    table = np.column_stack([t, rng.normal(0, 1, (S, 2 * N))])
    text = "t,q1,q2,tau1,tau2\n" + "\n".join(",".join(f"{v:.4f}" for v in row) for row in table)
    path = tmp_path / "fixed.csv"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        whole = read_trajectory(path)
    for cut in (1, 2, 4, 5):
        path.write_text(text[:-cut])
        with pytest.warns(DataWarning, match=rf"fixed.csv: line {S + 1}: the last line has no line end"):
            read_trajectory(path)
    assert whole.tau[-1, -1] == float(f"{table[-1, -1]:.4f}")


def test_wrench_csv_cut_inside_its_last_value_is_said(tmp_path):
    from baseparam.identification._text import text_lines
    with pytest.warns(DataWarning, match=r"w.csv: line 3: the last line has no line end"):
        text_lines("fx,fy\n1.25,2.5\n1.5,2.12", "w.csv")
