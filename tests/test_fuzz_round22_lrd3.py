"""Fuzz round 22, helper lrd3: huge ints in number checks, atomic Parquet writes, URDF joints with two <dynamics>."""
import pytest

from baseparam._validation import check_number
from baseparam.errors import ArgumentError


@pytest.mark.parametrize("value", [10 ** 400, -10 ** 400])
def test_check_number_names_an_int_too_large_for_a_double(value):
    with pytest.raises(ArgumentError, match="too large for a double") as info:
        check_number(value, "x", low=0)
    assert "\n" not in str(info.value)
    assert check_number(10 ** 400, "n", integer=True, low=0) == 10 ** 400     # a whole number needs no double


def test_urdf_write_back_leaves_no_second_dynamics(tmp_path):
    """A joint with two <dynamics> elements: the write-back set the fitted friction into the first only, so a reader
    taking the other (the last, as some do) read the stale values. The later ones are now replaced by a comment, as a
    link's second <inertial> is: the written file read back has one <dynamics> per joint, the fitted one."""
    import warnings
    import xml.etree.ElementTree as ET

    import numpy as np

    import baseparam as bp
    from baseparam.model.urdf_update import updated_urdf
    from test_urdf_update import EXPORTED, stripped

    text = EXPORTED.replace('<dynamics damping="0.1"/>',
                            '<dynamics damping="0.1"/>\n    <dynamics damping="0.9" friction="0.7"/>', 1)
    assert text != EXPORTED
    source = tmp_path / "two_dynamics.urdf"
    source.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(source, tip="tool", exact_angles=False)
    bodies = [(j.inertia.mass, np.asarray(j.inertia.com), np.asarray(j.inertia.inertia)) for j in robot.joints]
    friction = [(0.25, 0.5)] + [None] * (len(bodies) - 1)
    written = updated_urdf(robot, bodies, friction=friction)
    assert stripped(written) == stripped(text)
    path = tmp_path / "written.urdf"
    path.write_text(written)
    dynamics = ET.parse(path).getroot().findall("joint[@name='spin']/dynamics")
    assert [d.attrib for d in dynamics] == [{"damping": "0.25", "friction": "0.5"}]
    assert "a second dynamics of this joint" in written


@pytest.mark.parametrize("floating", [False, True])
def test_parquet_write_failing_midway_leaves_the_old_file(tmp_path, monkeypatch, floating):
    """Both Parquet writers (fixed- and floating-base) go through _log_files._write_parquet, which writes to a
    temporary name then renames: a write failing midway leaves an existing file as it was, and no stray file.
    (Round 24: the table is encoded in memory first, then written by _atomic.write_bytes; round 26: encoded straight
    into the temporary file by _atomic.write_streamed: the write to it is the one that fails here.)"""
    import numpy as np

    import baseparam as bp
    from baseparam import _atomic
    from baseparam.identification import floating_logs, writers

    path = tmp_path / "log.parquet"
    path.write_bytes(b"the old file")

    class HalfThenFail:
        def __init__(self, where, mode):
            self.stream = open(where, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.stream.close()

        def __getattr__(self, name):        # seekable, tell, closed: the file's (round 26: streamed into it)
            return getattr(self.stream, name)

        def write(self, data):
            self.stream.write(b"PAR1 half")
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(_atomic, "open", HalfThenFail, raising=False)
    t = np.linspace(0.0, 1.9, 20)
    traj = bp.Trajectory(t=t, q=np.zeros((20, 2)), tau=np.zeros((20, 2)))
    with pytest.raises(bp.errors.StorageError, match="No space left on device"):
        if floating:
            floating_logs._write_floating_parquet(traj, path, ["a", "b"])
        else:
            writers._parquet(traj, path, ["a", "b"], "/joint_states")
    assert path.read_bytes() == b"the old file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.parquet"]
