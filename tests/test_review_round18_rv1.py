"""Review round 18 (rv1) of s18-fcli and s18-fres: what those commits left, each with a test that failed before."""
import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.payload_wrench import read_wrench


def test_a_bad_wrench_value_of_an_npz_log_is_named_by_its_row_in_the_file(tmp_path):
    """a690ca7 named a wrench value beyond its bound by the row among those the trajectory kept: with row 2 dropped
    (skip_bad_rows), 1e308 in the file's row 5 was 'row 4'; the CSV reader names the file's line."""
    wrench = np.zeros((10, 6))
    wrench[5, 2] = 1e308
    path = tmp_path / "log.npz"
    np.savez(path, wrench=wrench)
    for skipped in ([], [(2, "bad q")], [(2, "bad q"), (7, "bad q")]):
        with pytest.raises(bp.DataError, match=r"wrench: row 5: fz: 1e\+308 is beyond"):
            read_wrench(str(path), "wrench", skipped=skipped, unit="row")
