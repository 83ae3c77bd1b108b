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


def test_a_fit_that_fails_leaves_the_estimator_as_it_was(planar):
    """A refit that failed after ``set_params(robot=…)`` kept the old fit's ``coef_`` beside the new robot's ``base_``:
    ``predict`` then answered, silently, with a model never fitted (a first link twice as long: 44 N·m off). The
    failed fit now leaves every attribute as it was (an Identification holding the estimator keeps its numbers)."""
    model, traj = planar
    robot = model.robot
    fit = bp.identify(robot, traj, preprocessing=None)
    est = fit.estimator
    states = (traj.q, traj.qd, traj.qdd)
    before, summary = est.predict(states), fit.summary()
    longer = dataclasses.replace(robot, joints=(dataclasses.replace(robot.joints[0], a=2 * robot.joints[0].a),)
                                 + robot.joints[1:])
    with pytest.raises(bp.DataError, match="2 joints in the data, 3 in the robot description"):
        est.set_params(robot=longer).fit(bp.Trajectory(traj.t, traj.q[:, :2], traj.tau[:, :2]))
    assert est.base_.robot is robot and np.array_equal(est.predict(states), before) and fit.summary() == summary
    # fitted again, it answers as a fresh estimator of the longer arm
    refit = est.fit(traj).predict(states)
    assert np.array_equal(refit, bp.BaseParameterEstimator(longer, preprocessing=None).fit(traj).predict(states))


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


@pytest.mark.parametrize("topic", ["/js\udcff", "/\ud800x"])
def test_an_mcap_topic_that_utf8_cannot_hold_is_refused_in_one_line(planar, tmp_path, topic):
    """``write_trajectory(traj, 'x.mcap', topic='/js\\udcff')``: the MCAP writer's bare UnicodeEncodeError (a lone
    surrogate cannot be UTF-8). (A newline is kept: such a log reads back bit for bit, test_floating_logs.)"""
    _, traj = planar
    with pytest.raises(bp.ArgumentError, match="^topic: .*: not text UTF-8 can hold") as info:
        bp.write_trajectory(traj, tmp_path / "x.mcap", topic=topic)
    assert "\n" not in str(info.value) and not (tmp_path / "x.mcap").exists()


# -- the symbolic regroupings (baseparam.projection.symbolic: a public module no earlier round fuzzed) -------------
@pytest.fixture(scope="module")
def symbolic(planar):
    return bp.find_base_parameters(planar[0].robot, symbolic="a2,a3")


@pytest.mark.parametrize("r", [9, -10, 10 ** 30, 3.0, None, "3", np.array([3])])
def test_symbolic_terms_of_no_base_parameter_index_are_refused_in_one_line(symbolic, r):
    """``sym.terms(9)`` of 9 base parameters: the list's bare IndexError (issue 28 named ``terms(999)``); a float or
    None its TypeError, 10**30 "cannot fit 'int' into an index-sized integer"."""
    assert symbolic.rank == 9
    with pytest.raises(bp.ArgumentError, match=r"^r: expected a base-parameter index from 0 to 8 \(or -9 to -1 from "
                                               r"the end\), got "):
        symbolic.terms(r)
    assert symbolic.terms(np.int64(8)) == symbolic.terms(8) == symbolic.terms(-1)


@pytest.mark.parametrize("values, words", [
    ({"a2": np.nan}, r"^values\['a2'\]: expected a finite real number, got nan"),
    ({"a2": np.inf}, r"^values\['a2'\]: expected a finite real number"),
    ({"a2": None}, r"^values\['a2'\]: expected a finite real number, got None"),
    ({"a2": [0.4]}, r"^values\['a2'\]: expected a finite real number"),
    ({"a2": np.longdouble("1e400")}, r"^values\['a2'\]: expected a finite real number"),
    ({"A2": 0.4}, r"^values: 'A2' is none of the symbols a2, a3$"),
    (0.4, "^values: expected a dict of symbol → number, got float"),
    (np.zeros(2), "^values: expected a dict of symbol → number, got ndarray"),
])
def test_symbolic_evaluate_refuses_what_is_no_value_of_a_symbol(symbolic, values, words):
    """``sym.evaluate({'a2': nan})`` was Fraction's bare ValueError (inf its OverflowError, None, a list or a numpy
    float its TypeError, an array numpy's truth-value error); a mistyped symbol (``'A2'``) was ignored and the
    robot's own length used, silently."""
    with pytest.raises(bp.ArgumentError, match=words) as info:
        symbolic.evaluate(values)
    assert "\n" not in str(info.value)


def test_symbolic_evaluate_takes_numbers_of_every_kind_by_their_exact_value(symbolic):
    """A float32 is its exact binary value (as the float it widens to), a Decimal and a text their decimal value."""
    from fractions import Fraction
    exact = symbolic.evaluate({"a2": Fraction(2, 5), "a3": 1})
    assert symbolic.evaluate({"a2": "0.4", "a3": np.int64(1)}) == exact
    assert symbolic.evaluate({"a2": __import__("decimal").Decimal("0.4"), "a3": 1}) == exact
    assert symbolic.evaluate({"a2": np.float32(0.4), "a3": 1}) == symbolic.evaluate({"a2": float(np.float32(0.4)),
                                                                                      "a3": 1})


SEED = "^seed: expected a whole number from 0 to 9223372036854775807, got "


@pytest.mark.parametrize("option, value, words", [
    ("seed", np.uint64(7), None), ("seed", np.uint64(2 ** 64 - 1), SEED + r"np.uint64\(18446744073709551615\)"),
    ("seed", 1.5, SEED + "1.5"), ("seed", None, SEED + "None"),
    ("max_degree", -1, "^max_degree: expected a whole number ≥ 0, got -1"),
    ("max_degree", np.nan, "^max_degree: expected a whole number ≥ 0, got nan")])
def test_symbolic_settings_are_checked_in_one_line(planar, option, value, words):
    """``seed=np.uint64(…)`` reached random.Random's bare TypeError (over two lines); ``seed=None`` gave formulas
    from points no seed repeats; ``max_degree=-1`` was math.comb's bare ValueError, ``nan`` int()'s. A seed is what
    every other seed of the library is (``_validation.check_seed``)."""
    from baseparam.projection.symbolic import find_symbolic_base_parameters
    robot = planar[0].robot
    if words is None:               # a numpy integer is the whole number it holds
        assert find_symbolic_base_parameters(robot, "a2", **{option: value}).rank == 9
        return
    with pytest.raises(bp.ArgumentError, match=words):
        find_symbolic_base_parameters(robot, "a2", **{option: value})


def test_poly_string_of_what_is_no_polynomial_is_a_type_error(symbolic):
    """``poly_string(sym.polynomials[0], symbols)`` (a regrouping, {name: polynomial}, for one polynomial): Python's
    bare "unsupported operand type(s) for +: 'int' and 'str'"; a number or a text, AttributeError."""
    from baseparam.projection.symbolic import poly_string
    row = symbolic.polynomials[0]
    for poly in (row, 3, "x", {(1,): 1}):
        with pytest.raises(bp.ArgumentTypeError, match=r"^poly: expected a dict of exponents \(a tuple of 2 whole"):
            poly_string(poly, symbolic.symbols)
    with pytest.raises(bp.ArgumentTypeError, match="^symbols: expected a list of names"):
        poly_string(next(iter(row.values())), "a2")
    assert poly_string(next(iter(row.values())), list(symbolic.symbols)) == symbolic.terms(0)[next(iter(row))]


@pytest.mark.parametrize("option", ["validate", "method", "parameters", "robot", "run"])
def test_an_option_the_simulation_sets_itself_is_refused_in_one_line(planar, option):
    """``simulated_identification(…, methods=('consistent',), validate=…)`` passed it on to ``identify`` beside its
    own: Python's bare "identify() got multiple values for keyword argument 'validate'"; ``compare_motions(…,
    run=…)`` the same for simulated_identification's ``run``."""
    model, traj = planar
    reference = bp.Reference(traj.t, traj.q, traj.qd, traj.qdd)
    run = bp.track(model, reference, bandwidth=3.0)
    if option != "run":             # simulated_identification's own argument: Python's refusal at this call
        with pytest.raises(bp.ArgumentError, match=f"^{option}: set by the simulation itself"):
            bp.simulated_identification(model, run, run, methods=("consistent",), preprocessing=None, **{option: run})
    with pytest.raises(bp.ArgumentError, match=f"^{option}: set by the simulation itself"):
        bp.compare_motions(model, {"a": reference}, reference, noise=bp.SensorNoise(tau=0.01), bandwidth=3.0,
                           methods=("consistent",), preprocessing=None, **{option: run})


def test_symbolic_writers_of_what_is_no_symbolic_result_are_a_type_error(planar, tmp_path):
    """``format_symbolic_table('log.csv')`` read ``.robot`` of a text: a bare AttributeError (found by the round-11
    harness once the symbolic module joined its tables); ``store_symbolic`` of a plain base set the same."""
    from baseparam.projection.symbolic import format_symbolic_table, store_symbolic
    for value in ("log.csv", bp.find_base_parameters(planar[0].robot)):
        with pytest.raises(bp.ArgumentTypeError, match="^sym: expected a SymbolicBaseParameters"):
            format_symbolic_table(value)
        with pytest.raises(bp.ArgumentTypeError, match="^sym: expected a SymbolicBaseParameters"):
            store_symbolic(value, tmp_path / "z.h5")
    assert not (tmp_path / "z.h5").exists()


# -- documented functions of the modules outside the harness' tables ------------------------------------------------
def test_load_module_of_what_is_no_python_source_is_refused_in_one_line():
    """``codegen.equations.load_module`` (public: the loader of ``Equations.python_source``) gave compile()'s bare
    SyntaxError of a damaged source (over several lines, with a caret), its ValueError of a NUL, its TypeError of
    bytes, a list, None."""
    from baseparam.codegen.equations import load_module
    assert load_module("x = 1 + 1").x == 2
    for source, words in (("x = (", r"^source: not Python: '\(' was never closed \(line 1\)$"),
                          ("x\0", "^source: not Python: source code string cannot contain null bytes$"),
                          ("  x = 1", r"^source: not Python: unexpected indent \(line 1\)$")):
        with pytest.raises(bp.ArgumentError, match=words):
            load_module(source)
    for source in (b"x = 1", None, ["x = 1"]):
        with pytest.raises(bp.ArgumentTypeError, match="^source: expected Python source text, got "):
            load_module(source)


def test_checks_of_the_dh_table_and_the_printed_equations_refuse_odd_counts_and_seeds(planar):
    """``dh_equivalent(robot, n_checks=2.5)`` was range()'s bare TypeError, ``seed=-1`` numpy's ValueError;
    ``describe(robot, equivalent=3)`` an AttributeError; ``verify(eq, base, n_states=10**30)`` numpy's "Maximum
    allowed dimension exceeded", ``seed=0.5`` its SeedSequence TypeError."""
    from baseparam.codegen.equations import verify
    from baseparam.model.dh_equivalent import dh_equivalent
    from baseparam.model.summary import describe
    robot = planar[0].robot
    with pytest.raises(bp.ArgumentError, match="^n_checks: expected a whole number from 0 to 100000, got 2.5"):
        dh_equivalent(robot, 2.5)
    with pytest.raises(bp.ArgumentError, match=SEED + "-1"):
        dh_equivalent(robot, 3, seed=-1)
    assert np.array_equal(dh_equivalent(robot, np.int64(3), seed=np.uint8(3)).table,
                          dh_equivalent(robot, 3, seed=3).table)
    with pytest.raises(bp.ArgumentTypeError, match="^equivalent: expected a DHEquivalent"):
        describe(robot, 3)
    eq = bp.equations(robot, check=False)
    base = bp.find_base_parameters(robot)
    with pytest.raises(bp.ArgumentError, match="^n_states: expected a whole number from 1 to 100000, got 1000"):
        verify(eq, base, 10 ** 30)
    with pytest.raises(bp.ArgumentError, match=SEED + "0.5"):
        verify(eq, base, 5, 0.5)
    error, scale = verify(eq, base, 5, np.int64(3))
    assert error <= 1e-9 * scale


def test_fit_figures_of_a_vanishing_truth_are_refused_in_one_line():
    """``fit_errors(p̂, truth=[5e-324]*3)``: ‖p‖ underflowed to 0 and the figures came out inf (with numpy's
    warnings). (The range check of the values no longer copies them: a broadcast view of 10⁹ estimates was numpy's
    bare MemoryError, 8 GB for abs(); a scan of 10⁹ values is too slow for this file.)"""
    from baseparam.evaluation import fit_errors
    with pytest.raises(bp.ArgumentError, match=r"^truth: too small for relative figures \(largest \|p_i\| = 4.9"):
        fit_errors(np.ones(3), np.full(3, 5e-324))
    assert fit_errors(np.ones(3) * 1.1, np.ones(3)).parameter_error == pytest.approx(0.1)


def test_forward_dynamics_of_integers_beyond_the_floats_is_refused_in_one_line(planar):
    """``ForwardDynamics(model)([10**400] * 3, …)``: the buffer's bare OverflowError (int too large to convert)."""
    fd = bp.ForwardDynamics(planar[0])
    with pytest.raises(bp.ArgumentError, match=r"^q: a number beyond the float range"):    # as forward_dynamics
        fd([10 ** 400] * 3, [0.0] * 3, [0.0] * 3)


# -- the newest modules' readers -----------------------------------------------------------------------------------
def test_a_wrench_log_that_cannot_be_read_is_refused_in_one_line(tmp_path):
    """``payload_wrench.read_wrench`` opened a CSV with open(): a missing file, a folder, a name too long or one
    ending in '/' were its bare FileNotFoundError, IsADirectoryError, OSError (the trajectory reader says
    "cannot read" in one line); the file is now read as the other readers read one, bounded."""
    from baseparam.identification.payload_wrench import read_wrench
    path = tmp_path / "w.csv"
    path.write_text("t,fx,fy,fz,mx,my,mz\n" + "".join(f"{k * 0.01},1,2,3,4,5,6\n" for k in range(4)))
    assert read_wrench(path, "fx,fy,fz,mx,my,mz").tolist() == [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]] * 4
    for name, reason in ((tmp_path / "nope.csv", "cannot read: No such file or directory"),
                         (tmp_path, r"read from CSV \(\.csv, \.txt\) or NPZ logs only, not a folder"),
                         (f"{path}/", "read from CSV .* only, not a file without extension"),
                         (tmp_path / ("x" * 300 + ".csv"), "cannot read: File name too long")):
        with pytest.raises(bp.DataError, match=f": wrench: {reason}$") as info:
            read_wrench(name, "fx,fy,fz,mx,my,mz")
        assert "\n" not in str(info.value)


def test_a_floating_lowpass_of_a_subnormal_cutoff_is_refused_in_one_line():
    """``lowpass_floating(log, 5e-324)``: the cut-off times the step is 0, a bare ZeroDivisionError."""
    from baseparam.identification.floating_logs import lowpass_floating
    from test_fuzz_api import _floating_arrays
    t, q = _floating_arrays(2, 200)
    q[:, 7:] = np.sin(np.outer(t, [3.0, 5.0]))
    log = bp.Trajectory(t, q, np.zeros((200, 8)), floating=True)
    for cutoff in (5e-324, 1e-300):
        with pytest.raises(bp.DataError, match="200 samples: too few to filter at"):
            lowpass_floating(log, cutoff)


def test_read_contacts_topics_of_an_array_is_a_type_error(tmp_path):
    """``read_contacts(path, topics=np.zeros(2))``: numpy's truth-value ValueError."""
    from baseparam.identification.floating_logs import read_contacts
    path = tmp_path / "contacts.yaml"
    path.write_text("contacts:\n  - {link: 1, name: c0}\n")
    with pytest.raises(bp.ArgumentTypeError, match="^topics: expected True or False"):
        read_contacts(path, topics=np.zeros(2))
    assert read_contacts(path, topics=np.True_)[1] == read_contacts(path, topics=True)[1]


def test_payload_arithmetic_refuses_bodies_whose_parameters_overflow_and_states_of_no_numbers(planar):
    """``payload_parameters(1.0, com=[1e300]*3, …)`` returned parameters of inf (m·c·cᵀ overflowed);
    ``wrench_regressor(robot, q=<generator>, …)`` was len()'s bare TypeError, a number too."""
    from baseparam.identification.payload import payload_parameters
    from baseparam.identification.payload_wrench import wrench_regressor
    with pytest.raises(bp.ArgumentError, match=r"^mass, com, inertia: non-finite value inf at index 0"):
        payload_parameters(1.0, np.full(3, 1e300), np.eye(3))
    assert payload_parameters(2.0, np.array([0.0, 0.0, 0.1]), np.eye(3) * 0.01)[6:].tolist() == [0.0, 0.0, 0.2, 2.0]
    robot, zero = planar[0].robot, np.zeros(3)
    with pytest.raises(bp.ArgumentError, match="^q: not numeric"):
        wrench_regressor(robot, (x for x in [1.0, 2.0, 3.0]), zero, zero)
    with pytest.raises(bp.ArgumentError, match=r"^q: expected shape \(n_samples, 3\) or \(3,\), got \(\)"):
        wrench_regressor(robot, 0.5, zero, zero)
    assert wrench_regressor(robot, np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3))).shape == (2, 6, 10)


def test_broadcast_views_of_ten_billion_samples_are_refused_by_their_size():
    """``controller_gains`` and ``base_from_imu`` given broadcast views of 10⁹ samples (no memory to give): numpy's
    bare MemoryError at the first copy or difference. Refused by the memory they would need, before any is read
    (10¹⁰ here: beyond any machine's memory, so the test does not depend on this one's)."""
    from baseparam.identification.drive_gains import controller_gains
    from baseparam.identification.imu import base_from_imu
    view = np.broadcast_to(np.array([[0.5, 0.2, 0.1]]), (10 ** 10, 3))
    with pytest.raises(bp.ResourceLimitError, match="^controller gains: target torque: the fit's copies would need"):
        controller_gains(view, view, view)
    with pytest.raises(bp.ResourceLimitError, match="^<imu>: t: the base's motion would need"):
        base_from_imu(np.broadcast_to(np.array(0.1), (10 ** 10,)), None, view, view)


def test_link_frames_check_their_robot_and_configuration(planar):
    """``dh_equivalent.link_frames`` (public): a non-robot was an AttributeError, a q of no numbers (a generator, a
    float, an empty array) a TypeError or IndexError, a q of NaN frames of NaN, of inf math's "domain error"."""
    from baseparam.model.dh_equivalent import link_frames
    robot = planar[0].robot
    with pytest.raises(bp.ArgumentTypeError, match="^robot: expected a baseparam.Robot"):
        link_frames("robot", np.zeros(3))
    for q, words in (((x for x in [0.1, 0.2, 0.3]), "^q: not numeric"), (0.5, r"^q: expected shape"),
                     (np.zeros(0), r"^q: expected shape"), ([0.1, np.nan, 0.3], "^q: non-finite value nan"),
                     (np.full(3, np.inf), "^q: non-finite value inf"),
                     (np.zeros((2, 3)), r"^q: expected one configuration, shape \(3,\), got shape \(2, 3\)")):
        with pytest.raises(bp.ArgumentError, match=words):
            link_frames(robot, q)
    frames = link_frames(robot, [0.1, 0.2, 0.3])
    assert len(frames) == 3 and np.array_equal(frames[-1], link_frames(robot, np.array([0.1, 0.2, 0.3]))[-1])


def test_a_delay_beyond_the_float_range_is_refused_in_one_line(planar, tmp_path):
    """``read_trajectory(log, delay=10**400)`` (and a Fraction of it): float()'s bare OverflowError."""
    import fractions
    _, traj = planar
    path = bp.write_trajectory(traj, tmp_path / "log.csv")
    for delay in (10 ** 400, fractions.Fraction(10 ** 400), -10 ** 400):
        with pytest.raises(bp.DataError, match="log.csv: delay: expected a finite number of seconds, got "):
            bp.read_trajectory(path, delay=delay)


def test_a_dataframe_cell_beyond_the_float_range_is_a_bad_row():
    """``from_dataframe`` of an object column holding 10**400: float()'s bare OverflowError, with or without
    ``skip_bad_rows``; now the row is refused (or dropped) as any other cell that is no number."""
    pd = pytest.importorskip("pandas")
    t = np.arange(12) * 0.01
    df = pd.DataFrame({"t": t, "q1": np.zeros(12), "tau1": np.ones(12)})
    df["q1"] = df["q1"].astype(object)
    df.loc[3, "q1"] = 10 ** 400
    with pytest.raises(bp.DataError, match=r"^<DataFrame>: row 3: field q1: not a number"):
        bp.from_dataframe(df)
    assert bp.from_dataframe(df, skip_bad_rows=True).t.tolist() == np.delete(t, 3).tolist()


def test_read_wrench_skipped_rows_of_another_kind_are_a_type_error(tmp_path):
    """``read_wrench(path, names, skipped=[()])``: a bare "not enough values to unpack"; the trajectory's own
    ``skipped`` (pairs of a row and a reason) still drop their rows."""
    from baseparam.identification.payload_wrench import read_wrench
    path = tmp_path / "w.csv"
    path.write_text("t,fx,fy,fz,mx,my,mz\n" + "".join(f"{k * 0.01},{k},2,3,4,5,6\n" for k in range(4)))
    for skipped in ([()], [(1.5, "x")], 3, [None]):
        with pytest.raises(bp.ArgumentTypeError, match=r"^skipped: expected \(row, reason\) pairs"):
            read_wrench(path, "fx,fy,fz,mx,my,mz", skipped)
    assert read_wrench(path, "fx,fy,fz,mx,my,mz", ((np.int64(3), "bad"),))[:, 0].tolist() == [0.0, 2.0, 3.0]
