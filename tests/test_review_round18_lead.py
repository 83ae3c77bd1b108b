"""Round 18, the lead's own finds: each test fails on the code before its fix."""
import numpy as np
import pytest

import baseparam as bp


def _metrics(**given):
    fields = dict(rmse=[1.0, 2.0], nrmse_percent=[1.0, 2.0], nrmse_pooled_percent=1.0, n_samples=3, t=np.zeros(3),
                  tau=np.zeros((3, 2)), predicted=np.zeros((3, 2)))
    return bp.Metrics(**{**fields, **given})


@pytest.mark.parametrize("field", ["rmse", "nrmse_percent"])
@pytest.mark.parametrize("value, said", [([[1, 2], [3]], "not a rectangular array"), (["a", "b"], "not numeric")])
def test_metrics_built_by_hand_refuse_what_holds_no_numbers(field, value, said):
    """A Metrics built by hand with a ragged list was numpy's bare ValueError ('inhomogeneous shape'), with text its
    to_dict() a bare TypeError: the figures are kept as float arrays, as every other result's (float_fields)."""
    with pytest.raises(bp.ArgumentError, match=f"Metrics.{field}: {said}"):
        _metrics(**{field: value})


def test_metrics_built_from_lists_are_arrays():
    """Lists of numbers are kept as float arrays, so the methods that index them work (to_dict's .tolist())."""
    got = _metrics(rmse=[1, 2], nrmse_percent=(3, 4))
    assert got.rmse.dtype == np.float64 and got.nrmse_percent.tolist() == [3.0, 4.0]
