"""Regressions of the leftovers of issue 28's fifteenth round in the Python API (the last stop's "Left, not fixed"):
one wording for a wrong model, file names of every path type, seeds through one check, old pickles, bare errors of
the figures, scores and texts, and shape checks before value scans. Each case below failed before its fix (those
that did not say so)."""
import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT

PLANAR = ROOT / "robots" / "planar_rrr.yaml"
MODEL_WORDS = "^model: expected a baseparam.Model, BaseModel or BaseParameters, got "


@pytest.mark.parametrize("make", [bp.Regressor, bp.ForwardDynamics,
                                  lambda value: bp.inverse_dynamics(value, np.zeros(3), np.zeros(3), np.zeros(3)),
                                  lambda value: bp.gravity_torque(model=value, q=np.zeros(3))])
def test_a_wrong_model_is_worded_once(make):
    """``bp.Regressor(3)`` said "model: expected a baseparam.Model, BaseModel or BaseParameters, got int",
    ``bp.ForwardDynamics(3)`` and every dynamics function "robot: expected a baseparam.Robot, got int" (their parameter
    is ``model``; ``gravity_torque(model=3, …)`` even said "got NoneType"). One check now (model.value.not_a_model),
    with the file name's hint."""
    with pytest.raises(bp.ArgumentTypeError, match=MODEL_WORDS + "int$"):
        make(3)
    with pytest.raises(bp.ArgumentTypeError, match=MODEL_WORDS + r"str; .*bp\.Model\(bp\.load_robot\(path\)\)"):
        make(str(PLANAR))


def test_a_pure_path_names_a_file_wherever_a_path_does(tmp_path):
    """``load_robot`` and ``read_trajectory`` read a ``pathlib.PurePosixPath`` (an os.PathLike), but ``identify``
    refused it for the robot ("expected a Robot or a description file, got PurePosixPath") and for the data,
    ``identify_logs`` took a pattern of one as a file name ("cannot read the trajectory"), ``suggest_static_poses`` and
    ``identify_payload`` refused even a ``Path``: every function that takes a file name in place of an object now asks
    one question (_checks.is_file_name: str, bytes or any os.PathLike)."""

    from pathlib import PurePosixPath

    from baseparam.excitation.static_poses import suggest_static_poses
    from conftest import planar_sines

    robot, model, t, q, qd, qdd, tau = planar_sines(8, 40, 0.02)
    log = tmp_path / "log.csv"
    bp.write_trajectory(bp.Trajectory(t, q, tau, qd=qd, qdd=qdd), log)
    coef = bp.identify(robot, log, preprocessing=None).estimator.coef_
    assert np.array_equal(bp.identify(PurePosixPath(PLANAR), PurePosixPath(log), preprocessing=None).estimator.coef_,
                          coef)
    pattern = PurePosixPath(tmp_path / "*.csv")
    assert np.array_equal(bp.identify_logs(robot, pattern, preprocessing=None).estimator.coef_, coef)
    assert suggest_static_poses(PurePosixPath(ROOT / "robots" / "ur5.yaml"), 4, candidates=50).poses.shape == (4, 6)


def test_seeds_beyond_the_shared_bound_are_deprecated_where_they_were_taken():
    """``free_floating_experiment``, ``contact_experiment``, ``suggest_static_poses`` and ``identify_floating`` checked
    their seeds themselves, without ``check_seed``'s bound of 2**63 - 1 (numpy takes any whole number ≥ 0): they now
    call it, and a larger seed, which they took, is still taken (the same numbers) with a DeprecationWarning before it
    is refused; a negative one is refused in the shared words."""
    import warnings

    from baseparam.excitation.static_poses import suggest_static_poses

    ur5 = bp.load_robot(ROOT / "robots" / "ur5.yaml")
    space = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    t = np.linspace(0.0, 0.1, 10)
    calls = {"suggest_static_poses": lambda seed: suggest_static_poses(ur5, 4, candidates=50, seed=seed).poses,
             "free_floating_experiment": lambda seed: bp.free_floating_experiment(
                 space, t, np.zeros((10, 6)), twist_noise=0.01, seed=seed).log.qd}
    for function, call in calls.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            small = call(2 ** 63 - 1)                    # the largest seed the shared check takes: no warning
        with pytest.warns(DeprecationWarning, match=f"^{function}: seed 9223372036854775808 is beyond 2\\*\\*63 - 1"):
            large = call(2 ** 63)
        assert large.shape == small.shape and not np.array_equal(large, small)
        with pytest.raises(bp.ArgumentError, match="^seed: expected a whole number from 0 to 9223372036854775807, "
                                                   "got -1$"):
            call(-1)


def test_a_robot_pickled_before_source_file_existed_loads_and_writes(tmp_path):
    """Robots pickled before the last stop carry no ``source_file`` in their state. Robot has no ``__setstate__``:
    pickle restores its ``__dict__``, and the field's class default (None) answers for the missing entry. Checked,
    not changed (this passed before): such a robot compares and hashes as a new one, is copied by ``replace``, and the
    writers, which ask for its description file, write beside it."""
    import dataclasses
    import pickle

    robot = bp.load_robot(PLANAR)
    old = robot.__reduce_ex__(4)[0](*robot.__reduce_ex__(4)[1])      # the object as copyreg makes it
    state = {k: v for k, v in robot.__dict__.items() if k != "source_file"}
    old.__dict__.update(state)
    data = pickle.dumps(old)
    assert b"source_file" not in data
    loaded = pickle.loads(data)
    assert loaded.source_file is None and loaded == robot and hash(loaded) == hash(robot)
    assert dataclasses.replace(loaded, name="copy").source_file is None
    assert bp.find_base_parameters(loaded).rank == bp.find_base_parameters(robot).rank
    from baseparam.model.robot import robot_to_yaml
    assert robot_to_yaml(loaded) == robot_to_yaml(robot)
    assert bp.find_and_store(loaded, tmp_path / "base.h5").rank == bp.find_base_parameters(robot).rank
