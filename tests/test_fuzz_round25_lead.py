"""Fuzz round 25 (issue 28), the lead's own mends of fzcli2's leftovers.

- YAML, JSON or CSV written under an ``.xml`` name was accepted (``describe --yaml o.xml``, ``find --json o.xml``,
  exit 0), though ``--mjcf o.yaml`` is refused: ``.xml`` says XML, which a URDF or a MuJoCo model is.
- ``identify --decimate 100`` on a short log was refused as needing "less rest trimming": decimation, which keeps one
  sample in 100, was not named among the causes.
"""
import pytest
from click.testing import CliRunner

from conftest import ROOT

PUMA = str(ROOT / "robots" / "puma560.yaml")
PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")


@pytest.mark.parametrize("args, flag", [(["describe", PUMA, "--yaml"], "--yaml"),
                                        (["find", PUMA, "--json"], "--json")])
def test_text_under_an_xml_name_is_refused(tmp_path, args, flag):
    from baseparam.cli import main
    out = tmp_path / "o.xml"
    result = CliRunner().invoke(main, [*args, str(out)])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and line.startswith(f"baseparam: {flag}:") and "'.xml' name says XML" in line, line
    assert not out.exists()


@pytest.mark.parametrize("writes", ["URDF", "MJCF"])
def test_a_robot_description_may_be_named_xml(writes):
    from baseparam._checks import check_written_format
    check_written_format("robot.xml", writes, ".xml")
    check_written_format("robot.XML", writes, ".xml")


def test_the_library_refuses_json_under_an_xml_name(tmp_path):
    from baseparam._checks import check_written_format
    from baseparam.errors import ArgumentError
    with pytest.raises(ArgumentError, match=r"writes JSON, and a '\.xml' name says XML"):
        check_written_format(tmp_path / "o.xml", "JSON", ".json")


def _log(tmp_path, n=400):
    import numpy as np
    t = np.arange(n) * 0.01
    q = np.column_stack([np.sin(t * (k + 1)) for k in range(3)])
    rows = "".join(",".join(f"{v:.6f}" for v in (t[i], *q[i], 1 + q[i, 0], 2 - q[i, 1], 0.5 + q[i, 2])) + "\n"
                   for i in range(n))
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + rows)
    return str(log)


def test_too_few_samples_after_decimation_names_the_decimation(tmp_path):
    from baseparam.cli import main
    log = _log(tmp_path)
    result = CliRunner().invoke(main, ["identify", PLANAR, log, "--decimate", "100"])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "a decimate factor below 100" in line, line
    plain = CliRunner().invoke(main, ["identify", PLANAR, log])
    assert "decimate" not in plain.output, plain.output
