"""Fuzz round 22 (issue 28), the lead's own finds and last stop's leftovers done by the lead.

- A column map's empty range (q=8:1) was named as Python's range(8, 1).
- A base set of rank 0 named the range of its indices "from 0 to -1"; it has none.
- A series sampled where T·rate ≤ 10⁻⁹ passed the whole-number check (round(T·rate) = 0, within 10⁻⁹) and gave
  the one sample t = 0: a motion of no motion, no word.
"""
import numpy as np
import pytest

import baseparam as bp
from baseparam.excitation.fourier import FourierSeries


@pytest.mark.parametrize("period, rate", [(1e-10, 1.0), (1.0, 1e-10), (2.0, 4e-10)])
def test_a_series_sampled_below_one_sample_per_period_is_refused(period, rate):
    series = FourierSeries(period, np.zeros(2), np.ones((2, 1)), np.zeros((2, 1)))
    with pytest.raises(bp.ArgumentError, match=r"rate: period × rate = .*: not one sample after t = 0"):
        series.times(rate)
    assert series.times(1.0 / period).size == 2        # one sample per period: both ends


@pytest.mark.parametrize("r", [0, -1, 1])
def test_an_index_into_a_base_set_of_rank_zero_says_there_is_none(r):
    # the range of a rank-0 set read "from 0 to -1 (or 0 to -1 from the end)"
    from baseparam.projection.report import base_index
    with pytest.raises(bp.ArgumentError, match=r"r: this base set has no base parameter \(rank 0\)"):
        base_index(r, 0)
    assert base_index(r, 2) == r


@pytest.mark.parametrize("columns", ["8:1", "3:3", slice(1, 7, -1), slice(5, 2)])
def test_an_empty_column_range_is_said_in_the_maps_words(tmp_path, columns):
    # --columns q=8:1 was refused as "expected column indices or names, got range(8, 1)": Python's words
    path = tmp_path / "log.csv"
    path.write_text("t,a,b,c\n0,1,2,3\n0.01,1,2,3\n", encoding="utf-8")
    with pytest.raises(bp.DataError, match=r"log.csv: column map: field q: \d+:\d+(:-1)? holds no column") as caught:
        bp.read_trajectory(path, columns={"q": columns})
    assert "range(" not in str(caught.value)
