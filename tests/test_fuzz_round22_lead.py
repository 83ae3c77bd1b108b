"""Fuzz round 22 (issue 28), the lead's own finds and last stop's leftovers done by the lead.

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
