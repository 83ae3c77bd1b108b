"""Round 19, the readers (set "fzread"): Parquet, bags, LeRobot folders, floating-base and wrench logs, YAML.

Each test is a class of input the fuzzing of this round found mishandled, checked on the reader's own words.
"""
from __future__ import annotations

import pytest

import baseparam as bp

ROBOT = """name: arm
units: {length: m, angle: deg}
gravity: [0, 0, -9.81]
joints:
  - {type: revolute, alpha: 0, a: 1, d: 0}
"""


@pytest.mark.parametrize("nest", [
    lambda k: "gravity: " + "[" * k + "0" + "]" * k,                      # flow sequences
    lambda k: "gravity: " + "{a: " * k + "1" + "}" * k,                    # flow mappings
])
@pytest.mark.parametrize("size", [2_000, 200_000])         # below and above the joint-count scan (32 000 characters)
def test_deep_yaml_refused_where_the_nesting_passes_the_bound(nest, size):
    """Brackets nested 10⁵ deep (200 kB, within the 1 MB bound) took a minute of CPU, 1 MB minutes: PyYAML's scanner
    and libyaml's cost time in proportion to the nesting at every token, and the depth was checked only once the whole
    document was composed. It is now refused while parsing, at the bracket past the bound: what follows is never
    read (here a syntax error, which a parse of the whole document would have reported instead)."""
    deep = nest(size // 2)
    text = ROBOT.replace("gravity: [0, 0, -9.81]", deep + " : : oops")
    with pytest.raises(bp.RobotDescriptionError) as err:
        bp.parse_robot(text)
    message = str(err.value)
    assert "\n" not in message and "nested too deeply (collections more than 64 levels deep)" in message
    assert "line 3, column " in message


def test_deep_yaml_contacts_file_refused_alike(tmp_path):
    """The contacts file (and the excitation limits) are read by the same loader."""
    from baseparam.identification.floating_logs import read_contacts
    path = tmp_path / "contacts.yaml"
    path.write_text("contacts: " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    with pytest.raises(bp.DataError, match=r"nested too deeply \(collections more than 64 levels deep\)"):
        read_contacts(path)


def test_yaml_nested_a_little_too_deep_still_names_its_field():
    """Between the field bound (32) and the parse bound (64) the message names the field, as before."""
    with pytest.raises(bp.RobotDescriptionError, match=r"gravity\[1\]\[1\].*: nested too deeply"):
        bp.parse_robot(ROBOT.replace("gravity: [0, 0, -9.81]", "gravity: " + "[" * 40 + "0" + "]" * 40))
