"""Round 18, command line leftovers (stop 42's "Left" list, set lcli): as_flags' markers, --clock for logs that are
no bags, '-' given for an input. (The set's Python API items landed once, in test_review_round18_lead.py.)"""
from __future__ import annotations

import numpy as np
import pytest



@pytest.mark.parametrize("marker", ["\x009\x00", "\x000\x00"])
def test_as_flags_keeps_a_nul_of_the_message_apart_from_its_placeholders(marker):
    """as_flags marks the quoted texts it sets aside with NUL-digits-NUL: one in the message itself raised IndexError
    (``\\x009\\x00``) or was replaced by a quoted text (``\\x000\\x00``). No input of the command line was found to
    carry a raw NUL into a message (shown() and printable() escape them); the NUL is now written as printable() does."""
    from baseparam.cli import as_flags
    assert as_flags(f"a {marker} 'b' total_mass=3") == f"a {marker.replace(chr(0), '[NUL]')} 'b' --total-mass 3" \
        .replace("[NUL]", "\\x00")


@pytest.mark.parametrize("command", ["identify", "payload"])
@pytest.mark.parametrize("clock", ["header", "receive"])
def test_clock_for_logs_of_which_none_is_a_bag_is_refused(tmp_path, command, clock):
    """``identify ROBOT log.csv --clock header`` ran as without it (the library cannot tell the default's value from
    no choice); ``receive`` was refused by the reader, whose words the header's refusal now takes."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT, one_line
    t = np.arange(40) * 0.01
    rows = np.column_stack([t, np.sin(t), np.cos(t), t, 0.1 * t, 0.2 * t, 0.3 * t])
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "\n".join(",".join(map(repr, r.tolist())) for r in rows) + "\n")
    result = CliRunner().invoke(main, [command, str(ROOT / "robots" / "planar_rrr.yaml"), str(log), "--clock", clock])
    one_line(result, f"{log}: --clock {clock} applies to ROS bags, not .csv files")


@pytest.mark.parametrize("args", [["find", "-"], ["describe", "-"], ["identify", "ROBOT", "-"],
                                  ["payload", "ROBOT", "-"], ["excite", "-"]])
def test_a_dash_for_an_input_is_refused_as_standard_input(tmp_path, monkeypatch, args):
    """``find -`` said "-: cannot read: No such file or directory", ``identify ROBOT -`` "unknown file type": the
    user meant standard input, which no command reads; a file named ``-`` is still read."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT, one_line
    monkeypatch.chdir(tmp_path)
    robot = str(ROOT / "robots" / "planar_rrr.yaml")
    run = [robot if a == "ROBOT" else a for a in args]
    one_line(CliRunner().invoke(main, run), "-: standard input is not read; give the input's file name")
    if args[0] == "describe":
        (tmp_path / "-").write_text((ROOT / "robots" / "planar_rrr.yaml").read_text())
        assert CliRunner().invoke(main, run).exit_code == 0


