"""Issue 24: warnings that help — at the user's line, once, saying what to do; "poorly identified" judged
by what a parameter's uncertainty changes in the predicted torque."""
import warnings

import pytest

import baseparam as bp
from baseparam._warnings import warn
from conftest import ROOT

ROUNDED = """<robot name="arm">
  <link name="base"/><link name="l1"/><link name="l2"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0.1 0.3" rpy="0 1.570796330 0"/><axis xyz="0 0 1"/></joint>
</robot>
"""


def test_a_library_warning_points_at_the_users_line(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(ROUNDED)
    with pytest.warns(bp.RoundOffWarning) as record:
        bp.load_robot(path)                       # several package frames deep (load_robot → parse_urdf → …)
    assert len(record) == 1 and record[0].filename == __file__
    assert "rpy pitch = 1.57079633" in str(record[0].message)          # named, not counted from 0 or 1
    assert "nothing to do" in str(record[0].message)


def test_a_warning_shows_once_per_line_of_the_users_code(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(ROUNDED)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("default")          # Python's own default action
        for _ in range(3):
            bp.load_robot(path)
    assert len(record) == 1 and record[0].filename == __file__


def test_warn_called_from_outside_the_package_points_at_its_caller():
    with pytest.warns(UserWarning, match="hello") as record:
        warn("hello")
    assert record[0].filename == __file__


def test_the_command_line_shows_a_warning_once_per_run():
    from baseparam.cli import _warning_line
    import click.testing
    runner = click.testing.CliRunner()

    @click.command()
    def twice():
        shown = set()
        for _ in range(2):
            _warning_line(bp.RoundOffWarning("note"), bp.RoundOffWarning, "f", 1, shown=shown)
    res = runner.invoke(twice)
    assert res.stderr.splitlines() == ["baseparam: warning: note"]


def test_every_warning_in_the_package_goes_through_the_helper():
    """One way to warn (baseparam/_warnings.py): a direct warnings.warn would point at a library line."""
    offenders = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "baseparam").rglob("*.py"))
                 if path.name != "_warnings.py"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "warnings.warn(" in line]
    assert not offenders, offenders
