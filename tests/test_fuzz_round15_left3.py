"""Regressions of round 15's leftovers ('left3'): each test below failed on the code before its fix."""
import shutil

import pytest

import baseparam as bp
from conftest import ROOT

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


# -- 1. a library writer given a robot never writes over the robot's own description ---------------------------------
def test_library_writers_refuse_the_robots_own_description(tmp_path):
    """find_and_store(robot, its own YAML) replaced the description with an HDF5 file (the CLI refuses it as an
    input; the library did not know where the robot came from): now every writer given the robot refuses it."""
    path = tmp_path / "robot.yaml"
    shutil.copy(PLANAR, path)
    before = path.read_bytes()
    robot = bp.load_robot(path)
    link = tmp_path / "hard.yaml"
    link.hardlink_to(path)              # the same file by another name
    for target in (path, str(path), link):
        with pytest.raises(bp.StorageError, match="is an input of this run"):
            bp.find_and_store(robot, target)
    from baseparam._atomic import robot_protected, write_text
    with robot_protected(robot), pytest.raises(bp.StorageError, match="is an input of this run"):
        write_text(path, "x")          # the one rule every writer given a robot goes through
    robot_in_code = bp.Robot(joints=robot.joints)
    with robot_protected(robot_in_code):
        write_text(tmp_path / "other.txt", "x")
    assert path.read_bytes() == before
    # a robot built in code, or another output name: written as before
    out = tmp_path / "z.h5"
    bp.find_and_store(robot, out)
    assert out.stat().st_size > 0 and path.read_bytes() == before
