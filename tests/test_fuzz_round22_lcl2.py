"""Round 22 (lcl2): command-line messages in the user's words (issue 28), each fixed at its root."""

import pytest
# the command-line runner and the empty log of the round's other CLI file
from test_fuzz_round22_lcli import PLANAR, _empty_log, _run
from conftest import one_line


def test_an_inproc_scheduler_address_says_which_addresses_are_read(tmp_path):
    """`--scheduler inproc://x` was refused with Python's "not enough values to unpack (expected 3, got 1)" (Dask's
    inproc parser): now the form of the address and the ones a command reads."""
    pytest.importorskip("distributed")
    result = _run("identify", PLANAR, _empty_log(tmp_path), "--scheduler", "inproc://x")
    one_line(result, "--scheduler", "inproc://x", "tcp://HOST:PORT", "'local'")
    assert "unpack" not in result.output


def _sine_log(tmp_path):
    import numpy as np
    t = np.arange(200) * 0.01
    q = np.sin(np.outer(t, [1.0, 2.0, 3.0]))
    log = tmp_path / "sine.csv"
    np.savetxt(log, np.hstack([t[:, None], q, q]), delimiter=",", header="t,q1,q2,q3,tau1,tau2,tau3", comments="")
    return log


@pytest.mark.parametrize("step", ["1e9", "0.15"])
def test_a_resampling_step_too_coarse_is_named_with_its_bound(tmp_path, step):
    """`--resample 1e9` was refused as "no segment long enough … (--cutoff = 5.0)": the step is named, with the
    largest one that leaves a segment its samples."""
    result = _run("identify", PLANAR, _sine_log(tmp_path), "--resample", step)
    one_line(result, "--resample", "a segment needs at least 16", "at most 0.1325 s")
    assert "--cutoff" not in result.output


def test_the_largest_step_said_leaves_enough_samples():
    """The bound said is rounded down: 0.1327 s (0.13267 rounded up) left 15 samples of the 1.99 s segment."""
    import numpy as np

    from baseparam.identification.preprocessing import MIN_SEGMENT, _resample
    t = np.arange(200) * 0.01
    grid, _ = _resample(t, [None], 0.1325)
    assert len(grid) >= MIN_SEGMENT
