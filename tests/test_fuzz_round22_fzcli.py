"""Fuzz round 22, the command line (fzcli): what the fuzzing of every command, option, environment, output and signal
found, each test failing on the code before its fix."""
import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import SettingsError
from baseparam.identification.floating_logs import write_floating_log
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"


# `identify space_robot.yaml LOG --route momentum --known XX1=0`: the momentum route's equations are homogeneous (no
# force enters them) and the one known value was 0, so θ = 0 fitted them exactly: exit 0 with every estimate 0 (± 13),
# and with --method consistent estimates set by the prior's pull alone (XX0 = 7.89 beside a known XX1 = 0), silently.
# Known values that are all 0 do not fix the scale: refused, as no known value at all is.
@pytest.mark.parametrize("known", [{"XX1": 0.0}, {"XX1": 0.0, "SX1": 0.0}])
@pytest.mark.parametrize("method", ["ols", "consistent"])
def test_known_values_all_zero_on_homogeneous_equations_are_refused(space, known, method):
    with pytest.raises(SettingsError, match="every known value is 0.*scale is not fixed"):
        bp.identify_floating(bp.load_robot(SPACE), space.log, route="momentum", known=known, method=method)


def test_a_known_zero_beside_a_nonzero_one_still_fits(space):
    result = bp.identify_floating(bp.load_robot(SPACE), space.log, route="momentum", known={"mass": 448.0, "SX1": 0.0})
    assert np.all(np.isfinite(result.values)) and np.any(result.values != 0)


def test_identify_known_zero_on_the_momentum_route_is_one_line_exit_2(space, tmp_path):
    write_floating_log(tmp_path / "log.npz", space.log)
    result = CliRunner().invoke(main, ["identify", str(SPACE), str(tmp_path / "log.npz"), "--route", "momentum",
                                       "--known", "XX1=0", "--json", str(tmp_path / "out.json")])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "--known" in result.output and "every known value is 0" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out.json").exists()


# `find/equations --symbolic a2,all` (or `all,all`): refused with "'all' is not a constant DH length of 'PUMA 560'
# (expected one of a1, …, or 'all')", a message contradicting itself; 'all' is now said to stand alone.
@pytest.mark.parametrize("command", ["find", "equations"])
@pytest.mark.parametrize("names", ["a2,all", "all,all", "all,d4"])
def test_symbolic_all_listed_with_other_names_says_all_stands_alone(command, names):
    result = CliRunner().invoke(main, [command, str(ROOT / "robots" / "puma560.yaml"), "--symbolic", names])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "'all' stands alone" in result.output and "is not a constant DH length" not in result.output, result.output


# A contacts file's `link: 99` for the space robot (6 links) was told "expected 0 (the base), a link number from 1 to
# 64 or a joint name" (every robot's bound, checked first by Contact) while `link: 13` was told "0 (the base) to 6":
# the robot's own bound is now said for both.
@pytest.mark.parametrize("link", [7, 65, 99, -1])
def test_a_contact_link_beyond_the_robot_is_told_the_robots_bound(space, tmp_path, link):
    write_floating_log(tmp_path / "log.npz", space.log)
    (tmp_path / "contacts.yaml").write_text(f"contacts:\n  - {{link: {link}}}\n")
    result = CliRunner().invoke(main, ["identify", str(SPACE), str(tmp_path / "log.npz"), "--route", "base", "--known",
                                       "mass=448", "--contacts", str(tmp_path / "contacts.yaml")])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "contacts.yaml: contacts[1]" in result.output, result.output
    assert "expected 0 (the base) to 6 or a joint name" in result.output, result.output
    assert "to 64" not in result.output, result.output       # (the tmp path may hold 64)


# An output named as a compressed file or a figure: `excite --out x.csv.gz` wrote plain CSV (numpy and pandas open a
# .gz name as gzip and fail on it), `find --json x.png` JSON, `describe --yaml x.yaml.gz` YAML, each exit 0; refused as
# the other misleading extensions (.npz, .h5, …) are, before any work.
@pytest.mark.parametrize("args", [
    ["find", "ur5.yaml", "--json", "x.png"], ["find", "ur5.yaml", "--json", "x.json.gz"],
    ["find", "ur5.yaml", "--h5", "x.h5.zip"], ["describe", "ur5.yaml", "--yaml", "x.yaml.gz"],
    ["excite", "kuka_lwr4.yaml", "--limits", "lwr.yaml", "--out", "x.csv.xz"],
    ["equations", "planar_rrr.yaml", "--json", "x.json.bz2"]])
def test_an_output_named_as_compressed_or_a_figure_is_refused(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    for name in ("ur5.yaml", "kuka_lwr4.yaml", "planar_rrr.yaml"):
        (tmp_path / name).write_text((ROOT / "robots" / name).read_text())
    (tmp_path / "lwr.yaml").write_text("joints: [" + ", ".join(["{q: [-1, 1], qd: 1, qdd: 5}"] * 7) + "]\n")
    result = CliRunner().invoke(main, args)
    out = args[-1]
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{out}: writes" in result.output and "a reader would take it for" in result.output, result.output
    assert not (tmp_path / out).exists()

