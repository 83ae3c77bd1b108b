"""Stop 46, helper tidy (issue 22: one idea in one place): the shared pieces the merged twins now go through."""
import math

import numpy as np

from baseparam._numbers import ABSURD, first_beyond_absurd
from baseparam.identification._record import absurd, beyond_bounds


def _scan(arr, bound):
    """The rows holding a value not within ±bound and each one's first such column, element by element."""
    rows, columns = [], []
    for r, row in enumerate(arr.tolist()):
        for c, value in enumerate(row):
            b = bound if np.ndim(bound) == 0 else float(bound[c])
            if math.isnan(value) or abs(value) > b:
                rows.append(r)
                columns.append(c)
                break
    return rows, columns


def test_one_bound_check_for_the_readers_that_skip_rows_and_those_that_refuse():
    """_rows._value_problems (rows marked to skip) and floating_logs._refuse_absurd (the first refused) take one
    check: each bad row's first column, NaN and infinities among them, a bound per column or one for all."""
    rng = np.random.default_rng(3)
    arr = rng.uniform(-2.0, 2.0, (40, 5))
    arr[rng.integers(0, 40, 12), rng.integers(0, 5, 12)] = rng.choice([np.nan, np.inf, -np.inf, 5.0, -3.0], 12)
    per_column = np.array([1.5, 10.0, 1.5, np.inf, 1.9])
    for bound in (1.5, per_column):
        rows, columns = beyond_bounds(arr, bound)
        assert (rows.tolist(), columns.tolist()) == _scan(arr, bound)
    rows, columns = beyond_bounds(np.zeros((4, 0)), 1.0)        # a field of no columns: no bad row
    assert rows.size == columns.size == 0
    assert absurd(np.float64(123456.7), 1e3) == "absurd value (123457; beyond ±1000)"


def test_one_test_of_a_states_and_a_wrenchs_values():
    """check_state_values (states: sample, joint) and contact_forces (wrenches: sample, contact, component) take one
    test: the first value in C order that is NaN, infinite or beyond ±ABSURD."""
    rng = np.random.default_rng(5)
    for shape in ((30, 4), (20, 3, 6)):
        arr = rng.uniform(-1.0, 1.0, shape)
        assert first_beyond_absurd(arr) is None
        for value in (np.nan, -np.inf, 2 * ABSURD):
            spot = tuple(int(rng.integers(0, n)) for n in shape)
            later = tuple(n - 1 for n in shape)
            bad = arr.copy()
            bad[later] = 3 * ABSURD
            bad[spot] = value
            expected = next(i for i in np.ndindex(shape) if not abs(float(bad[i])) <= ABSURD)
            assert first_beyond_absurd(bad) == expected
