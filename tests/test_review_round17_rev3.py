"""Review round 17 (rev3): s16-leftcli's commits, read as a maintainer (the cases next to its fixes)."""
import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.trajectory import read_trajectory


def _current_log(tmp_path):
    """A 3-joint current log (t, q, current) and its currents."""
    t = np.linspace(0, 1, 11)
    q = np.column_stack([np.sin(t * k) for k in (1, 2, 3)])
    current = np.column_stack([np.cos(t * k) for k in (1, 2, 3)])
    path = tmp_path / "cur.csv"
    header = "t,q1,q2,q3,current1,current2,current3"
    np.savetxt(path, np.column_stack([t, q, current]), delimiter=",", header=header, comments="", fmt="%.17g")
    return path, current


def test_gains_text_with_an_empty_entry_is_refused_not_shifted(tmp_path):
    """e6ba251 refused an empty entry in every comma list of the command line (--pose 0,,1 moved the values after it
    to the joints before them); the library's gains text still dropped it: gains='2,,0.5,3.25' for 3 joints was read
    as (2, 0.5, 3.25), the gains of joints 2 and 3 given to the wrong joints, silently."""
    path, current = _current_log(tmp_path)
    with pytest.raises(bp.DataError, match=r"gains: entry 2 of '2,,0\.5,3\.25' is empty"):
        read_trajectory(path, gains="2,,0.5,3.25")
    # what was taken is still taken: commas and blanks, a trailing separator (as the number lists take it), one gain
    for text, gains in (("2.0, 0.5, 3.25", [2.0, 0.5, 3.25]), ("2 0.5  3.25", [2.0, 0.5, 3.25]),
                        ("2, 0.5 3.25", [2.0, 0.5, 3.25]), ("2,0.5,3.25,", [2.0, 0.5, 3.25]), ("4", [4.0] * 3)):
        np.testing.assert_array_equal(read_trajectory(path, gains=text).tau, current * np.array(gains))
