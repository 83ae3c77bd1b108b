"""Round 20 (fzcli): the command line's options, odd values and environments, each class fixed at its root."""

import os

from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT, one_line

UR = ROOT / "robots" / "ur10e.yaml"


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# --- 1. one log under two names: a hard link, or a bag's file beside its folder ---

def test_a_log_named_again_through_a_hard_link_or_its_folder_is_the_same_log(tmp_path, monkeypatch):
    """`payload R log.csv --unloaded log.csv` is refused (the payload torque is zero by construction), but the same
    file through a hard link, or a ROS 2 bag's .mcap beside the bag's folder, was compared by real path only: a
    0 ± 4e-15 kg "payload", exit 0; identify's --validate on its own training data through a hard link, no word."""
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,q4,q5,q6,tau1,tau2,tau3,tau4,tau5,tau6\n")
    os.link(log, tmp_path / "again.csv")
    one_line(_run("payload", UR, log, "--unloaded", tmp_path / "again.csv"), "again.csv", "loaded", "--unloaded")
    bag = tmp_path / "bag"
    bag.mkdir()
    (bag / "metadata.yaml").write_text("")
    (bag / "bag_0.mcap").write_bytes(b"")
    one_line(_run("payload", UR, bag, "--unloaded", bag / "bag_0.mcap"), "bag_0.mcap", "loaded", "--unloaded")
    one_line(_run("payload", UR, bag / "bag_0.mcap", "--unloaded", bag), "bag", "loaded", "--unloaded")
    import baseparam._warnings as warnings_module
    said = []
    monkeypatch.setattr(warnings_module, "warn", lambda text, *a, **k: said.append(text))
    _run("identify", UR, log, "--validate", tmp_path / "again.csv")
    assert any("again.csv: given twice (as training and validation data)" in text for text in said), said
