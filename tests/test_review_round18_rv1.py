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


def test_static_payload_of_swapped_logs_is_said_below_zero_not_none_seen():
    """0a05d02 said a mass far below zero as such, but the still poses' fit clips its mass at 0: loaded and unloaded
    poses given the other way round (−2.0 ± 0.0009 kg found) were still 'not told from none: no payload seen'."""
    import warnings

    from baseparam.excitation.static_poses import suggest_static_poses
    from baseparam.identification.payload import identify_payload
    from conftest import ROOT
    from test_payload_static import PAYLOAD, _log

    robot = bp.load_robot(ROOT / "robots" / "ur10e.yaml")
    poses = suggest_static_poses(robot, 6).poses
    loaded, unloaded = _log(robot, poses, PAYLOAD, seed=3), _log(robot, poses[::-1], None, seed=4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = identify_payload(robot, unloaded, unloaded=loaded, static=True)
    (said,) = [str(w.message) for w in caught if issubclass(w.category, bp.DataWarning)]
    assert result.mass == 0.0 and not result.mass_detected
    assert "below zero beyond 3 σ (-2 kg found, 0 kept)" in said and "swapped" in said, said
    assert "not told from none" not in said and "(-2 kg found, 0 kept)" in result.summary(), said
