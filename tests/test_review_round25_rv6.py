"""Round 25, reviewer rv6 of s25-lwr: the new placing of outputs, the read-only refusal, the streamed NPZ; each test
fails before its fix."""
import os
import time

import pytest

import baseparam as bp
from baseparam import _atomic


# --- a moved-aside old version whose output's name holds a newline was removed as a leftover, not put back ---

@pytest.mark.parametrize("name", ["a\nb.json", "o.json\n"])
def test_an_old_version_moved_aside_is_put_back_whatever_its_outputs_name(tmp_path, name):
    """`.baseparam-PID-RANDOM.NAME.old`, NAME with a newline (a name like any other): the pattern stopped at the
    newline, so the old file was not known as a moved-aside output and went with the killed run's leftovers — the
    user's only version of NAME lost."""
    aside = tmp_path / f".baseparam-4000001-0123456789abcdef.{name}.old"
    aside.write_text("old\n")
    with pytest.warns(UserWarning, match="was missing, its old version put back"):
        _atomic.remove_stale(tmp_path, now=time.time() + 2 * _atomic.STALE_SECONDS)
    assert os.listdir(tmp_path) == [name] and (tmp_path / name).read_text() == "old\n"


# --- a read-only input named as an output was told "remove it" ---

def test_a_read_only_input_named_as_an_output_is_refused_as_an_input(tmp_path):
    """The read-only refusal came before the input's: a library writer given the robot's own read-only description
    (a hard link to it too) said "is read-only; remove it or choose another name" — advice to remove the input."""
    robot = tmp_path / "robot.yaml"
    robot.write_text("mine\n")
    robot.chmod(0o444)
    os.link(robot, tmp_path / "linked.json")
    with _atomic.inputs_protected([robot]):
        for out in (robot, tmp_path / "linked.json"):
            with pytest.raises(bp.StorageError, match="is an input of this run") as caught:
                _atomic.write_text(out, "new\n")
            assert "remove it" not in str(caught.value)
    with pytest.raises(bp.StorageError, match="ends in '/'"):
        _atomic.write_text(f"{robot}/", "new\n")
    assert robot.read_text() == "mine\n" and sorted(os.listdir(tmp_path)) == ["linked.json", "robot.yaml"]
