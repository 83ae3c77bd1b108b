"""Round 18 (fcli): the command line's surfaces the earlier rounds missed, each class fixed at its root."""

import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT

UR = ROOT / "robots" / "ur10e.yaml"


def _one_line(result, *parts):
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    for part in parts:
        assert part in result.output, result.output


# --- 1. the files a reader reads besides the one named are inputs too: a LeRobot episode's meta/info.json ---

@pytest.fixture
def lerobot_episode(tmp_path):
    """A LeRobot dataset of one short episode of the UR10e's six joints: the episode's path and its info.json."""
    from test_logs import _lerobot
    t = np.linspace(0.0, 1.0, 11)
    q = np.sin(np.outer(t, np.arange(1, 7)))
    episode = _lerobot(tmp_path, t, q, q, q, [f"joint{k}" for k in range(1, 7)])
    return episode, tmp_path / "meta" / "info.json"


@pytest.mark.parametrize("command", [["payload", str(UR), "{episode}"],
                                     ["identify", str(UR), "{episode}"]])
def test_an_output_over_a_lerobot_episodes_metadata_is_refused(lerobot_episode, command):
    """The episode's reader takes the joint names from ROOT/meta/info.json; `--json ROOT/meta/info.json` replaced the
    dataset's metadata with the payload's JSON (exit 0): that file is one of the run's inputs."""
    episode, info = lerobot_episode
    before = info.read_bytes()
    args = [a.replace("{episode}", str(episode)) for a in command] + ["--json", str(info)]
    _one_line(CliRunner().invoke(main, args), str(info), "input file")
    assert info.read_bytes() == before
