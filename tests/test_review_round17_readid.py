"""Review round seventeen (s16-readid): a second read of identification's readers, payload fits and results."""
from __future__ import annotations

import pytest

import baseparam as bp
from baseparam.errors import DataError
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"


def test_a_floating_npz_log_named_with_a_line_break_is_refused_in_one_line(tmp_path):
    # the NPZ archive was opened with the raw path as the name its refusals show: a name holding a line break made
    # a two-line message, where the rest of the floating-base reader shows the name escaped
    path = tmp_path / "a\nb.npz"
    path.write_bytes(b"not a zip archive")
    with pytest.raises(DataError) as caught:
        bp.read_trajectory(path, robot=bp.load_robot(SPACE))
    assert "\n" not in str(caught.value) and "not a valid NPZ file" in str(caught.value), str(caught.value)
