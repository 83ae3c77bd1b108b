"""Review of stop 42's merged work (round 17, helper finA): tests that fail on the code before each fix."""
from __future__ import annotations

import pytest

from baseparam.cli import as_flags


@pytest.mark.parametrize("message", [
    "'Arm Two': max_memory too small for link 'l1'",
    "robot: 'Arm Two' has a floating base; give max_disk, not 'auto'",
    'link "Arm Two": mass_bounds given twice for "l1"',
])
def test_a_quoted_kept_name_leaves_the_rest_translated(message):
    """A kept text (a robot's name) that the message quotes: the split at it left its closing quote at the start of
    the next piece, which paired with the next opening quote and set the text between aside, untranslated
    ("'Arm Two': max_memory … 'l1'" kept max_memory as it was). Keeping a name that holds no parameter changes
    nothing else in the line."""
    assert as_flags(message, keep=["Arm Two"]) == as_flags(message)
    assert "--" in as_flags(message, keep=["Arm Two"])


def test_kept_and_quoted_texts_stay_as_given():
    assert as_flags("total_mass: 'max_disk' and mass_bounds=3", keep=["total_mass"]) == \
        "total_mass: 'max_disk' and --mass-bounds 3"
    assert as_flags("'total_mass' is max_memory", keep=["total_mass"]) == "'total_mass' is --max-memory"


def test_an_empty_mass_bounds_entry_is_said_as_the_other_comma_lists(tmp_path, monkeypatch):
    """--mass-bounds gave comma_list the name 'K:LO:HI entries, but' to fit click's BadParameter: the refusal read
    "Invalid value for --mass-bounds: K:LO:HI entries, but: entry 2 of … is empty", where --symbolic and --what say
    "--symbolic: entry 2 of … is empty"."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT
    monkeypatch.chdir(tmp_path)
    robot = ROOT / "robots" / "planar_rrr.yaml"
    res = CliRunner().invoke(main, ["identify", str(robot), "log.csv", "--mass-bounds", "1:0:1,,2:0:1"])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == ["baseparam: --mass-bounds: entry 2 of '1:0:1,,2:0:1' is empty"]
