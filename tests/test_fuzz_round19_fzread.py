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


def _list_parquet(path, columns, rows=20):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({name: [[0.5, 1.5]] * rows for name in columns}), path)
    return path


@pytest.mark.parametrize("columns_map", [None, {"t": "nope"}])
def test_parquet_column_names_listed_escaped_and_bounded(tmp_path, columns_map):
    """A Parquet file without the fields asked for is refused listing its columns: they were joined raw, so a column
    named with a newline forged a line of the output, and 5 000 columns made a 40 kB line. They are now listed as the
    NPZ reader lists its keys: escaped, the first twelve and the count."""
    forged = _list_parquet(tmp_path / "forged.parquet", ["q\nbaseparam: forged", "qd"])
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(forged, columns=columns_map)
    assert "\n" not in str(err.value) and "q\\nbaseparam: forged" in str(err.value)
    wide = _list_parquet(tmp_path / "wide.parquet", [f"c{k}" for k in range(2_000)], rows=1)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(wide, columns=columns_map)
    assert len(str(err.value)) < 400 and "(2000 in all)" in str(err.value)
