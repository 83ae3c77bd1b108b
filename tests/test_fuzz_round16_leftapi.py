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


@pytest.fixture(scope="module")
def fitted():
    from conftest import planar_sines

    robot, model, t, q, qd, qdd, tau = planar_sines(8, 40, 0.02)
    trajectory = bp.Trajectory(t, q, tau, qd=qd, qdd=qdd)
    return robot, trajectory, bp.identify(robot, trajectory, preprocessing=None)


def _bare_error_cases():
    """(call of (robot, trajectory, fit, base, symbolic), class, message) of each argument that was a bare error."""
    from baseparam.identification.delay import apply_delay
    from baseparam.identification.estimators import r2_score
    from baseparam.identification.plots import plot_parameters, plot_residuals, plot_torques
    from baseparam.model.friction import friction_shapes, friction_slopes
    from baseparam.projection.report import format_regrouping, format_table
    from baseparam.projection.symbolic import format_symbolic_regrouping

    qd = np.zeros((3, 5))
    return [
        # friction shapes: AttributeError, numpy's ValueError, NaN shapes, IndexError, NaN from a zero width
        (lambda r, tr, f, b, s: friction_shapes(3, qd), bp.ArgumentTypeError, "^robot: expected a baseparam.Robot"),
        (lambda r, tr, f, b, s: friction_shapes(r, [[1.0], [2.0, 3.0]]), bp.ArgumentError, "^qd: not a rectangular"),
        (lambda r, tr, f, b, s: friction_shapes(r, np.zeros((5, 3))), bp.ArgumentError,
         r"^qd: expected shape \(3, n_samples\) \(joints first\) or \(3,\), got \(5, 3\)$"),
        (lambda r, tr, f, b, s: friction_shapes(r, np.full((3, 5), np.nan)), bp.ArgumentError,
         "^qd: non-finite value nan at sample 0, joint 1$"),
        (lambda r, tr, f, b, s: friction_slopes(r, qd, [0.1, 0.1]), bp.ArgumentError,
         r"^sign_width: expected 3 finite widths > 0"),
        (lambda r, tr, f, b, s: friction_shapes(r, qd, np.zeros(3)), bp.ArgumentError,
         r"^sign_width: expected 3 finite widths > 0"),
        # plots: AttributeError, 'float' not iterable, IndexError, a str's truth value
        (lambda r, tr, f, b, s: plot_torques(None), bp.ArgumentTypeError, "^metrics: expected a bp.Metrics"),
        (lambda r, tr, f, b, s: plot_torques(f.train, np.zeros(3)), bp.ArgumentTypeError,
         "^axes: expected a sequence of 3 matplotlib Axes"),
        (lambda r, tr, f, b, s: plot_torques(f.train, units="Nm"), bp.ArgumentTypeError,
         "^units: expected a list of 3 unit names"),
        (lambda r, tr, f, b, s: plot_torques(f.train, units=["N·m"]), bp.ArgumentError,
         "^units: expected 3 unit names .one per joint., got 1$"),
        (lambda r, tr, f, b, s: plot_torques(f.train, title=np.zeros(2)), bp.ArgumentTypeError,
         "^title: expected a str"),
        (lambda r, tr, f, b, s: plot_residuals(f.train, ax="ax"), bp.ArgumentTypeError,
         "^ax: expected a matplotlib Axes"),
        (lambda r, tr, f, b, s: plot_parameters(r), bp.ArgumentTypeError, "^result: expected a bp.Identification"),
        (lambda r, tr, f, b, s: plot_parameters(bp.BaseParameterEstimator(r)), bp.NotFittedError, "not fitted yet"),
        (lambda r, tr, f, b, s: plot_parameters(f, ax=0), bp.ArgumentTypeError, "^ax: expected a matplotlib Axes"),
        # apply_delay's types: AttributeError, the note's TypeError or an array's truth value after the work
        (lambda r, tr, f, b, s: apply_delay(tr.q, 0.01), bp.ArgumentTypeError, "^trajectory: expected a baseparam"),
        (lambda r, tr, f, b, s: apply_delay(tr, 0.01, note=np.zeros(3)), bp.ArgumentTypeError,
         "^note: expected a str or None"),
        # r2_score: AxisError, broadcasting's ValueError, FloatingPointError/inf, NaN scores
        (lambda r, tr, f, b, s: r2_score(0.5, tr.tau), bp.ArgumentError, "^tau: expected finite numbers of 1 or 2"),
        (lambda r, tr, f, b, s: r2_score(tr.tau, tr.tau.T), bp.ArgumentError,
         r"^predicted: expected the shape of tau, \(40, 3\), got \(3, 40\)$"),
        (lambda r, tr, f, b, s: r2_score(tr.tau, np.full((40, 3), np.nan)), bp.ArgumentError,
         "^predicted: expected finite numbers"),
        (lambda r, tr, f, b, s: r2_score(tr.tau, np.full((40, 3), 1e300)), bp.ArgumentError,
         "^tau, predicted: squares beyond the floating-point range"),
        (lambda r, tr, f, b, s: r2_score(np.zeros((0, 3)), np.zeros((0, 3))), bp.ArgumentError, "^tau: no samples"),
        # the texts: AttributeError, list indices' TypeError, IndexError
        (lambda r, tr, f, b, s: format_table(r), bp.ArgumentTypeError, "^base: expected a bp.BaseParameters"),
        (lambda r, tr, f, b, s: format_regrouping(r, 0), bp.ArgumentTypeError, "^base: expected a bp.BaseParameters"),
        (lambda r, tr, f, b, s: format_regrouping(b, 0, {"M1": "2"}), bp.ArgumentTypeError, "^terms: expected a dict"),
        (lambda r, tr, f, b, s: format_symbolic_regrouping(b, 0), bp.ArgumentTypeError,
         "^sym: expected a SymbolicBaseParameters"),
        (lambda r, tr, f, b, s: format_symbolic_regrouping(s, 1.0), bp.ArgumentError,
         "^r: expected a base-parameter index from 0 to"),
        (lambda r, tr, f, b, s: format_symbolic_regrouping(s, 10 ** 30), bp.ArgumentError,
         "^r: expected a base-parameter index from 0 to"),
    ]


def test_bare_errors_of_figures_scores_and_texts_are_one_line(fitted):
    """``friction_shapes``/``friction_slopes``, ``plot_torques``/``plot_residuals``/``plot_parameters``,
    ``apply_delay``'s types, ``r2_score``, ``format_table``/``format_regrouping`` and ``format_symbolic_regrouping``
    read their arguments without a check: AttributeErrors, numpy's ValueErrors and AxisErrors, IndexErrors, NaN
    results. Each now refuses in one line naming the argument, with the class errors.py gives; their good calls
    answer as before."""
    from baseparam._figures import pyplot
    from baseparam.identification.estimators import r2_score
    from baseparam.model.friction import friction_shapes
    from baseparam.projection.symbolic import format_symbolic_regrouping

    robot, trajectory, fit = fitted
    base = bp.find_base_parameters(robot)
    symbolic = bp.find_base_parameters(robot, symbolic="a1")
    try:
        for call, cls, words in _bare_error_cases():
            with pytest.raises(cls, match=words) as info:
                call(robot, trajectory, fit, base, symbolic)
            assert "\n" not in str(info.value)
    finally:
        pyplot().close("all")
    # the good calls, as before: sign(q̇) shapes, the score of a perfect and of a mean prediction, the last text
    qd = np.array([[0.5, -0.2], [0.0, 1.0], [-3.0, 2.0]])
    assert np.array_equal(friction_shapes(robot, qd)[0], np.sign(qd))
    tau = trajectory.tau
    assert r2_score(tau, tau) == 1.0 and r2_score(tau, np.broadcast_to(tau.mean(axis=0), tau.shape)) == 0.0
    assert format_symbolic_regrouping(symbolic, -1) == format_symbolic_regrouping(symbolic, symbolic.rank - 1)


def test_array_checks_read_shapes_and_sizes_before_values(fitted, monkeypatch):
    """A broadcast view of 10¹² rows costs no memory; checks that scanned or converted its values before its shape and
    size (``np.isfinite(x).all()``, ``astype(float)``, ``tuple(x)``, ``np.arange(S)``, contiguous copies) were numpy's
    bare MemoryError (under a 4 GB address limit already at 10⁹ rows), or minutes of scanning. The shape now comes
    first (check_real_array, Origin), then the size against the memory budget (real_array's float copy, the motion's
    arrays: motion.check_motion_size, ForwardDynamics.batch's copies, a reshape's), then the values without
    temporaries of their size."""
    import baseparam._memory
    from baseparam.identification.estimators import r2_score
    from baseparam.identification.results import Metrics
    from baseparam.excitation.payload import held_pose
    from baseparam.identification.imu import base_from_imu
    from baseparam.identification.payload_wrench import sensor_placement
    from baseparam.model.friction import friction_shapes
    from baseparam.simulation.noise import checked_gains

    monkeypatch.setattr(baseparam._memory, "available_bytes", lambda: 100 * 10 ** 6)     # a budget of 80 MB
    robot, trajectory, _ = fitted
    n_standard = bp.ColumnLayout(robot).n_standard
    model = bp.Model(robot, np.ones(n_standard))
    rows = 10 ** 12
    rows_of_a_row = np.broadcast_to(np.arange(1e6), (10 ** 6, 10 ** 6))

    def view(*width, dtype=float):
        return np.broadcast_to(np.ones((), dtype), (rows, *width))

    cases = [
        (lambda: Metrics.compare(view(3, 2), trajectory.tau), bp.ArgumentError,
         r"^tau: expected finite numbers of 2 dimensions, got shape \(1000000000000, 3, 2\)$"),
        (lambda: Metrics.compare(view(3), view(3)), bp.ResourceLimitError, "^tau: 3000000000000 values"),
        (lambda: r2_score(view(3), view(3)), bp.ResourceLimitError, "^tau: 3000000000000 values"),
        (lambda: bp.Model(robot, view(dtype=np.int64)), bp.ResourceLimitError, "^p: 1000000000000 values: their float"),
        (lambda: friction_shapes(robot, view(3, dtype=np.int32).T), bp.ResourceLimitError, "^qd: 3000000000000 values"),
        (lambda: bp.SensorNoise(q=view()), bp.ArgumentError, "^noise.q: expected a number ≥ 0 or one per joint"),
        (lambda: bp.Origin(xyz=view()), bp.RobotDescriptionError, "^Origin.xyz: expected 3 finite numbers"),
        (lambda: bp.from_arrays(view(), view(3), view(3)), bp.ResourceLimitError,
         "^<arrays>: 1000000000000 samples of 7 numbers"),
        (lambda: bp.Trajectory(view(), view(3), view(3)), bp.ResourceLimitError,
         "^<arrays>: 1000000000000 samples of 7 numbers"),
        (lambda: bp.identify(robot, (view(3), view(3), view(3), view(3)), preprocessing=None), bp.ResourceLimitError,
         "^<fit arrays>: 1000000000000 samples of 13 numbers"),
        (lambda: bp.ForwardDynamics(model, native=False).batch(view(3), view(3), view(3)), bp.ResourceLimitError,
         "^q, qd, tau: 1000000000000 samples"),
        (lambda: bp.find_base_parameters(robot).from_standard(view(n_standard).T), bp.ResourceLimitError,
         "^p: 1000000000000 parameter sets"),
        # a reshape copies a view broadcast from a row (7 TB here)
        (lambda: checked_gains(rows_of_a_row, 3), bp.ArgumentError, "^gains: expected 3 positive drive gains"),
        (lambda: base_from_imu(np.arange(20) * 0.01, np.tile([0.0, 0.0, 0.0, 1.0], (20, 1)), np.zeros((20, 3)),
                               np.zeros((20, 3)), position=rows_of_a_row), bp.SettingsError,
         r"^gravity, position: expected 3 finite numbers each, got shapes \(3,\), \(1000000, 1000000\)$"),
        (lambda: sensor_placement(rows_of_a_row), bp.SettingsError, "^sensor: expected 6 finite numbers"),
        (lambda: bp.design_excitation(robot, period=2.0, harmonics=2, rate=10.0, starts=1, noise=rows_of_a_row),
         bp.ArgumentError, "^noise: expected 3 finite torque standard deviations"),
        (lambda: held_pose(robot, bp.motion_limits(robot), rows_of_a_row), bp.ArgumentError,
         "^pose: expected 3 finite joint positions .rad or m., got 1000000000000 values$"),
    ]
    for call, cls, words in cases:
        with pytest.raises(cls, match=words) as info:
            call()
        assert "\n" not in str(info.value)


def test_public_helpers_of_the_subpackages_check_their_first_argument(fitted):
    """Swept over the subpackages' ``__all__`` (each required argument None, a str, 3, a 3-D array, NaN, a ragged list):
    ``logs.reduce_log``/``scale_log`` (identify_logs' workers), ``mjcf_writer.robot_to_mjcf``,
    ``dh_equivalent.dh_robot`` and ``joint_model.joint_model`` read their first argument's attributes unchecked (bare
    AttributeErrors; ``joint_model(robot, 1.5)`` a TypeError of list indices, ``-1`` the last joint)."""
    from baseparam.identification.logs import reduce_log, scale_log
    from baseparam.model.dh_equivalent import dh_equivalent, dh_robot
    from baseparam.model.joint_model import joint_model
    from baseparam.model.mjcf_writer import robot_to_mjcf

    robot, trajectory, _ = fitted
    for call, cls, words in [
            (lambda: reduce_log(trajectory, robot, None), bp.ArgumentTypeError, "^base: expected a bp.BaseParameters"),
            (lambda: scale_log(trajectory, None, None), bp.ArgumentTypeError, "^base: expected a bp.BaseParameters"),
            (lambda: robot_to_mjcf(None, []), bp.ArgumentTypeError, "^robot: expected a baseparam.Robot"),
            (lambda: dh_robot("arm.yaml", None), bp.ArgumentTypeError, "^robot: expected a baseparam.Robot"),
            (lambda: dh_robot(robot, None), bp.ArgumentTypeError, "^equivalent: expected a DHEquivalent"),
            (lambda: joint_model(None, 0), bp.ArgumentTypeError, "^robot: expected a baseparam.Robot"),
            (lambda: joint_model(robot, 1.5), bp.ArgumentError, "^k: expected a joint index from 0 to 2, got 1.5$"),
            (lambda: joint_model(robot, -1), bp.ArgumentError, "^k: expected a joint index from 0 to 2, got -1$")]:
        with pytest.raises(cls, match=words):
            call()
    assert dh_robot(robot, dh_equivalent(robot)).n_dof == 3 and joint_model(robot, 2).type == "revolute"
