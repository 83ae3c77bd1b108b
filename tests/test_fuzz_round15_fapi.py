"""Regressions of the Python API's fuzzing in issue 28's fifteenth round. Each public call of a table of ~110 calls
that work (every function of ``baseparam.__all__`` and of the subpackages, the newest modules' functions, the
constructors, the estimator's scikit-learn methods, the base set's and the forward dynamics' methods) had each of its
arguments, its keyword defaults included, replaced by ~50 kinds of value (numpy scalars of every dtype, 0-d, read-only,
Fortran, strided, big-endian, object and structured arrays, lists, generators, ragged lists, pathlib/bytes/PathLike
paths, Fractions, Decimals and ints beyond the float range, NaN, inf, subnormals, empty and 10⁹-sample views); every
writer was given links, folders, FIFOs, devices, bytes and over-long names as its output; each call in a forked
process under an alarm and an address-space limit, its result scanned for NaN, the caller's arrays compared before
and after, the run folder, $HOME and $TMPDIR listed. Each case below failed before its fix."""
import dataclasses

import numpy as np
import pytest

import baseparam as bp
from conftest import planar_sines


@pytest.fixture(scope="module")
def planar():
    robot, model, t, q, qd, qdd, tau = planar_sines(8, 40, 0.02)
    return model, bp.Trajectory(t, q, tau, qd=qd, qdd=qdd)


def test_a_fit_that_fails_leaves_no_fitted_state(planar):
    """A refit that failed after ``set_params(robot=…)`` kept the old fit's ``coef_`` beside the new robot's ``base_``:
    ``predict`` then answered, silently, with a model never fitted (a first link twice as long: 44 N·m off)."""
    model, traj = planar
    robot = model.robot
    est = bp.BaseParameterEstimator(robot, preprocessing=None).fit(traj)
    longer = dataclasses.replace(robot, joints=(dataclasses.replace(robot.joints[0], a=2 * robot.joints[0].a),)
                                 + robot.joints[1:])
    with pytest.raises(bp.DataError, match="2 joints in the data, 3 in the robot description"):
        est.set_params(robot=longer).fit(bp.Trajectory(traj.t, traj.q[:, :2], traj.tau[:, :2]))
    with pytest.raises(bp.NotFittedError):
        est.predict((traj.q, traj.qd, traj.qdd))
    assert not hasattr(est, "coef_")
    # fitted again, it answers as a fresh estimator of the longer arm
    refit = est.fit(traj).predict((traj.q, traj.qd, traj.qdd))
    fresh = bp.BaseParameterEstimator(longer, preprocessing=None).fit(traj).predict((traj.q, traj.qd, traj.qdd))
    assert np.array_equal(refit, fresh)


@pytest.mark.parametrize("where", ["q0", "qd0"])
def test_a_ragged_start_state_is_refused_in_one_line(planar, where):
    """``simulate(q0=[1.0, [2.0]])`` reached ``np.atleast_2d``'s bare ValueError ("inhomogeneous shape"), as did
    ``contact_forces`` of a ragged q, before the state checks read the numbers."""
    model, _ = planar
    start = {"q0": np.zeros(3), "qd0": np.zeros(3), where: [1.0, [2.0], 3.0]}
    with pytest.raises(bp.ArgumentError, match=f"^{where}: ") as info:
        bp.simulate(model, np.linspace(0.0, 0.1, 11), start["q0"], start["qd0"], method="rk4")
    assert "\n" not in str(info.value)
    with pytest.raises(bp.ArgumentError, match="^q: "):
        bp.contact_forces(model.robot, [0.1, [0.2], 0.3], [bp.Contact(3, (0.1, 0.0, 0.0))], np.ones((1, 1, 6)))
    # a number for a one-joint state, and a list, as before
    assert bp.simulate(model, np.linspace(0.0, 0.1, 11), [0.1, 0.2, 0.3], np.zeros(3), method="rk4").q.shape == (11, 3)


def test_a_memory_budget_beyond_the_float_range_is_refused_in_one_line():
    """``find_base_parameters(max_memory=10**400)``: float()'s bare OverflowError; 1e400 and inf were refused."""
    robot = planar_sines(8, 2, 0.02)[0]
    with pytest.raises(bp.ArgumentError, match="^max_memory: expected a positive memory size, got 1000"):
        bp.find_base_parameters(robot, max_memory=10 ** 400)
    assert bp.find_base_parameters(robot, max_memory=10 ** 12).rank == 9


def test_a_plot_of_a_bytes_name_is_written_and_one_of_no_name_refused(planar, tmp_path, monkeypatch):
    """``ExcitationDesign.plot(b'out.png')`` was refused as "unsupported plot format 'b'.png''" (the extension of a
    bytes name is bytes), and ``plot(3)`` drew the figure for a second, then raised os.fspath's bare TypeError."""
    from baseparam.excitation import plots
    from baseparam._figures import pyplot

    model, _ = planar
    limits = bp.MotionLimits(lower=-np.ones(3), upper=np.ones(3), velocity=2 * np.ones(3),
                             acceleration=5 * np.ones(3), torque=100 * np.ones(3))
    design = bp.design_excitation(model.robot, period=2.0, harmonics=2, rate=10.0, starts=1, limits=limits)
    drawn = []

    def blank(design):           # the figure itself is not the subject: a blank one is drawn in milliseconds
        drawn.append(design)
        return pyplot().figure(figsize=(1, 1))
    monkeypatch.setattr(plots, "excitation_figure", blank)
    with pytest.raises(bp.ArgumentTypeError, match="^path: expected a file path"):
        design.plot(3)
    assert drawn == []           # refused before drawing
    design.plot(bytes(tmp_path / "out.png"))
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ragged_times_given_to_from_arrays_are_refused_in_one_line():
    """``from_arrays(t=[0.0, [0.1], …])``: the check of the times' precision read their dtype through np.asarray
    first, numpy's bare ValueError ("inhomogeneous shape")."""
    t = np.arange(12) * 0.01
    with pytest.raises(bp.DataError, match=r"^<arrays>: field t: ") as info:
        bp.from_arrays([0.0, [0.01], *t[2:]], np.zeros((12, 2)), np.ones((12, 2)))
    assert "\n" not in str(info.value)
    assert bp.from_arrays(t.tolist(), np.zeros((12, 2)), np.ones((12, 2))).t.tolist() == t.tolist()


@pytest.mark.parametrize("topic", ["/js\udcff", "/js\nx", "/js\x00"])
def test_an_mcap_topic_that_is_no_printable_text_is_refused_in_one_line(planar, tmp_path, topic):
    """``write_trajectory(traj, 'x.mcap', topic='/js\\udcff')``: the MCAP writer's bare UnicodeEncodeError
    (a lone surrogate cannot be UTF-8); a newline went into the file's channel name."""
    _, traj = planar
    with pytest.raises(bp.ArgumentError, match="^topic: expected a ROS topic name starting with '/'") as info:
        bp.write_trajectory(traj, tmp_path / "x.mcap", topic=topic)
    assert "\n" not in str(info.value) and not (tmp_path / "x.mcap").exists()
