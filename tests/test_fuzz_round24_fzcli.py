"""Round 24 of the command-line fuzzing (issue 28), helper fzcli: each class found, its test."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT
from test_payload import CASES, _multisine, _torques

UR10E = ROOT / "robots" / "ur10e.yaml"


def _payload_logs(tmp_path):
    """A loaded and an unloaded log of UR10e (CASES' 2 kg payload), 4 s at 200 Hz."""
    robot = bp.load_robot(UR10E)
    t, q, qd, qdd = (a[:800] for a in _multisine(robot.n_dof))
    n = robot.n_dof
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(n)] + [f"tau{j + 1}" for j in range(n)])
    paths = {}
    for name, payload in (("loaded", CASES[0][1]), ("unloaded", (0.0, np.zeros(3), np.zeros((3, 3))))):
        paths[name] = tmp_path / f"{name}.csv"
        np.savetxt(paths[name], np.column_stack([t, q, _torques(robot, payload, q, qd, qdd)]), delimiter=",",
                   header=header, comments="")
    return paths


# --- 1. a mass below zero the consistent fit turned into a small positive one was a payload ---

def test_a_negative_least_squares_mass_is_no_payload_even_when_the_fit_keeps_a_positive_one(tmp_path):
    """`payload R unloaded.csv --unloaded loaded.csv` (the logs swapped, −2 kg by least squares): the consistent
    estimate came out 0.103 ± 6e-07 kg with its centre of mass 2.2 m away, told from none: exit 0, no warning,
    the vendors' formats in the JSON and --robot-out written with that body (round 18 handled the fit keeping
    0 kg only). It is now said as a mass below zero: a warning, no vendor format, no robot written."""
    logs = _payload_logs(tmp_path)
    swapped = [str(UR10E), str(logs["unloaded"]), "--unloaded", str(logs["loaded"])]
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", *swapped, "--json", str(out)])
    assert result.exit_code == 0, result.output
    warning = [line for line in result.output.splitlines() if line.startswith("baseparam: warning:")]
    assert len(warning) == 1 and "a mass below zero beyond 3 σ (-2 kg found" in warning[0], result.output
    assert "the loaded and unloaded logs swapped?" in warning[0]
    doc = json.loads(out.read_text())
    assert doc["vendors"] is None and doc["mass"] > 0.01        # the fit's body, said to mean nothing
    robot_out = tmp_path / "r.yaml"
    refused = CliRunner().invoke(main, ["payload", *swapped, "--robot-out", str(robot_out)])
    assert refused.exit_code == 2 and not robot_out.exists()
    assert refused.output.strip().splitlines()[-1].startswith(
        f"baseparam: {logs['unloaded']}: --robot-out: no robot written (payload: a mass below zero"), refused.output
    # the logs the right way round: the payload, its vendors' formats
    good = CliRunner().invoke(main, ["payload", str(UR10E), str(logs["loaded"]), "--unloaded", str(logs["unloaded"]),
                                     "--json", str(out)])
    assert good.exit_code == 0 and "warning" not in good.output, good.output
    doc = json.loads(out.read_text())
    assert doc["mass"] == pytest.approx(2.0, rel=1e-4) and set(doc["vendors"]) == {"ur", "kuka", "franka"}
