"""Regressions of round 15's leftovers ('left3'): each test below failed on the code before its fix."""
import shutil

import numpy as np
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


# -- 2. dynamics.regressors.evaluate checks its arguments as the public regressors do ----------------------------------
def test_evaluate_refuses_bad_arguments_in_one_line():
    """evaluate (shown in notebooks/09_payload.py) checked nothing: NaN states gave NaN columns, a wrong width or a
    column beyond the robot's a bare numpy IndexError/ValueError. Now the regressors' checks, in one line each."""
    from baseparam.dynamics.regressors import evaluate
    robot = bp.load_robot(PLANAR)
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.uniform(-1, 1, (3, 4, 3))
    W = evaluate(robot, q, qd, qdd)
    np.testing.assert_array_equal(W, bp.regressor(bp.Model(robot), q, qd, qdd))    # the checked call: unchanged
    n = W.shape[2]
    bad_q = q.copy()
    bad_q[1, 2] = np.nan
    cases = [((robot, bad_q, qd, qdd), {}, "^q: "),
             ((robot, q[:, :2], qd, qdd), {}, "^q: "),
             ((robot, q, qd, qdd[:3]), {}, "qdd"),
             ((robot, q, qd, qdd), {"columns": [0, n]}, f"^columns: .*got {n}$"),
             ((robot, q, qd, qdd), {"columns": [0.5]}, "^columns: "),
             ((robot, q, qd, qdd), {"weights": np.ones(n + 1)}, f"^weights: expected {n} numbers"),
             ((robot, q, qd, qdd), {"parameters": "nope"}, "parameters"),
             ((robot, q, qd, qdd), {"shapes": (np.ones((4, 3)),)}, "^shapes: "),
             (("robot", q, qd, qdd), {}, "robot")]
    for args, kwargs, words in cases:
        with pytest.raises(bp.ArgumentError, match=words):
            evaluate(*args, **kwargs)
    p = rng.uniform(-1, 1, n)
    np.testing.assert_allclose(evaluate(robot, q, qd, qdd, weights=p), np.einsum("sjc,c->sj", W, p), rtol=1e-12,
                               atol=1e-12)
