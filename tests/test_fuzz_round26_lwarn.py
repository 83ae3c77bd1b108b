"""Round 26, helper lwarn: the package's warning filters, one region of the process at a time.

A plain ``warnings.catch_warnings()`` (filters only, no recording) swaps the process's filter list as the recording
one does: two threads whose regions overlapped each put back the list they had found, and the last to leave
installed the other's ignore filter for good, every later warning of that kind in the process silenced. Every site
now goes through :func:`baseparam._warnings.ignored` (or :func:`~baseparam._warnings.filters_held`, the command
line's), under the lock :func:`~baseparam._warnings.recorded` takes.
"""
import sys
import types

import numpy as np
import pytest

import baseparam as bp
from baseparam import cli
from baseparam.errors import ArgumentError, DataError, RobotDescriptionError
from baseparam.excitation import limits
from baseparam.identification import _bag_files, _consistent, _workers, preprocessing
from baseparam.model import _xml_text
from conftest import overlapping_regions, planar_arm, planar_sines


def _solver_region(monkeypatch, tmp_path):
    """The consistent fit's solve: cvxpy's status warnings ignored around CLARABEL."""
    import cvxpy as cp

    def solve(problem, **options):
        pauses[0]()
        raise cp.SolverError("stopped here")
    monkeypatch.setattr(_consistent, "solve_clarabel", solve)
    pauses = [None]
    holder = types.SimpleNamespace
    problem = holder(R=holder(value=None), z=holder(value=None), lam=holder(value=None), plain=object(), pulled=None,
                     n_solves=0, _kept=set(), v=holder(value=None), scale=1.0)

    def call(pause):
        pauses[0] = pause
        assert _consistent._Problem.solve(holder(**vars(problem)), np.eye(2), np.zeros(2), 1.0, 0.0) == (
            None, "solver_error")
    return call


def _states_region(monkeypatch, tmp_path):
    """states_at_samples: preprocess's DataWarnings ignored (the fit said them)."""
    t = np.arange(50) * 0.01
    trajectory = bp.Trajectory(t, np.column_stack([np.sin(t), np.cos(t)]))

    def refused(*args):
        pauses[0]()
        raise DataError("stopped here")
    monkeypatch.setattr(preprocessing, "preprocess", refused)
    pauses = [None]

    def call(pause):
        pauses[0] = pause
        q, qd, qdd = preprocessing.states_at_samples(trajectory)
        assert q.shape == qd.shape == qdd.shape == (50, 2)
    return call


def _bag_metadata_region(monkeypatch, tmp_path):
    """A bag folder's metadata.yaml: ruamel's own warnings ignored (the reader's parse says them)."""
    (tmp_path / "metadata.yaml").write_text("rosbag2_bagfile_information: {}\n")

    class Parser:
        def __init__(self, typ):
            pass

        def load(self, data):
            pauses[0]()
            raise KeyError("stopped here")
    monkeypatch.setattr("ruamel.yaml.YAML", Parser)
    pauses = [None]

    def call(pause):
        pauses[0] = pause
        assert _bag_files.check_bag_folder(str(tmp_path), "bag", ()) is None
    return call


def _limits_urdf_region(monkeypatch, tmp_path):
    """Joint limits read from a URDF: its description's warnings ignored (its geometry is not used)."""
    def load(path):
        pauses[0]()
        raise RobotDescriptionError("stopped here")
    monkeypatch.setattr(limits, "load_robot", load)
    pauses = [None]

    def call(pause):
        pauses[0] = pause
        with pytest.raises(ArgumentError, match="stopped here"):
            limits._urdf_entries("arm.urdf", planar_arm())
    return call


def _codec_region(monkeypatch, tmp_path):
    """A URDF's declared encoding probed: an escaping codec's DeprecationWarning ignored."""
    def decode(data):
        pauses[0]()
        return data.decode("ascii"), len(data)
    codec = types.SimpleNamespace(name="probed", decode=decode)
    pauses = [None]

    def call(pause):
        pauses[0] = pause
        assert _xml_text._keeps_ascii(codec)
    return call


def _scratch_region(monkeypatch, tmp_path):
    """A local Dask cluster's start: its slow-scratch-folder warning ignored."""
    def call(pause):
        with _workers._scratch_warning_silenced():
            pause()
    return call


def _command_line_region(monkeypatch, tmp_path):
    """The command line's run: its warning printer installed as showwarning (an in-process run, as a test's)."""
    pauses = [None]
    monkeypatch.setattr(cli._OneLineErrors, "_run_saying_warnings", lambda self, *args, **kwargs: pauses[0]())

    def call(pause):
        pauses[0] = pause
        cli.main.main([])
    return call


@pytest.mark.parametrize("region", [_solver_region, _states_region, _bag_metadata_region, _limits_urdf_region,
                                    _codec_region, _scratch_region, _command_line_region],
                         ids=lambda region: region.__name__.strip("_"))
def test_overlapping_filter_regions_leave_the_warning_machinery_as_it_was(region, monkeypatch, tmp_path, recwarn):
    """Two threads in the same filtering region, overlapping: before, the last to leave put back the filters it had
    found on entry, the other's ignore filter among them (or the command line's printer as showwarning), and a later
    warning of the process was lost (checked failing before the fix, at each of these sites)."""
    overlapping_regions(region(monkeypatch, tmp_path), recwarn)


# --- simulate's record: a sequence of known names, nothing else taken -----------------------------------------------

def _simulated(record):
    model = planar_sines(4, 10, 0.01)[1]
    return bp.simulate(model, np.linspace(0.0, 0.1, 11), np.zeros(3), np.zeros(3), method="rk4", record=record)


@pytest.mark.parametrize("record", [{}, {"q": 1, "qd": 2}, {"q", "qd"}, frozenset()],
                         ids=["empty dict", "dict", "set", "frozenset"])      # a set's repr varies between processes
def test_simulate_refuses_a_mapping_or_a_set_as_record(record):
    """``record={}`` was read as its (no) keys, the run logged as if ``()`` had been asked; a set's order (the
    record's) is its hashes'."""
    with pytest.raises(TypeError, match=r"^record: expected a tuple of field names .*got (dict|set|frozenset)$"):
        _simulated(record)


def test_simulate_refuses_names_of_several_types_in_one_line():
    """Unknown names that cannot be sorted by value (1 and 'x') were a raw TypeError "'<' not supported between…"."""
    with pytest.raises(bp.ArgumentError, match=r"^record: unknown fields \['x', 1\]; expected some of"):
        _simulated(["q", 1, "x"])


def test_simulate_refuses_an_endless_record():
    """A generator that never ends was read for ever (a hang)."""
    import itertools
    with pytest.raises(bp.ArgumentError, match=r"^record: more than 100 names"):
        _simulated(itertools.repeat("qd"))


def test_simulate_keeps_a_sequence_or_a_generator_of_names():
    """A tuple, a list and a generator of names as before: the same log."""
    logs = [_simulated(record) for record in (("q", "qd"), ["q", "qd"], (name for name in ("q", "qd")))]
    for log in logs:
        assert log.qd is not None and log.qdd is None
        np.testing.assert_array_equal(log.q, logs[0].q)


# --- a log's figures and compare: no overflow reaches numpy's warning or an NRMSE of inf -----------------------------

def test_a_log_of_next_to_no_torque_has_no_figure_not_inf(recwarn):
    """A log whose joint 2 logged torques of 1e-160 N·m (next to nothing) among logs of real torques: its Σe²/Στ²
    overflowed, numpy's raw "overflow encountered in divide" and an NRMSE of inf for that joint. Now NaN (written as
    null), as a joint of no torque in one log; the fit and the other figures are those of before."""
    import warnings

    robot = planar_arm()
    t = np.arange(400) * 0.01
    logs = []
    for k in range(3):
        q = 0.4 * np.column_stack([np.sin(t * (j + 1 + k)) for j in range(3)])
        tau = np.column_stack([np.cos(t * (j + 2 + k)) for j in range(3)])
        tau[:, 1] = 1e-160 if k == 2 else tau[:, 1]
        logs.append(bp.Trajectory(t, q, tau=tau, source=f"log{k}"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = bp.identify_logs(robot, logs, preprocessing=bp.Preprocessing.none(), leave_one_out=False)
    figures = result.logs[2].train
    assert np.isnan(figures.nrmse_percent[1]) and np.isfinite(figures.nrmse_percent[[0, 2]]).all()
    assert np.isfinite(figures.nrmse_pooled_percent)
    assert result.logs[2].to_dict()["train"]["nrmse_percent"][1] is None


@pytest.mark.parametrize("e2, t2, per_joint, pooled", [
    ([1e300, 1e300], [1e-300, 1e300], [np.nan, 100.0], 100.0 * np.sqrt(2.0)),      # a quotient
    ([1.7e308, 1.7e308], [1.0, 1.0], [1.30384048e156] * 2, np.nan),                # the total of the errors
    ([1.0, 1.0], [1.7e308, 1.7e308], [7.66964989e-153] * 2, np.nan),               # the total of the torques
    ([1e200], [1e-200], [np.nan], np.nan),                                         # both
])
def test_a_log_figure_beyond_the_floating_point_range_is_nan(e2, t2, per_joint, pooled):
    import warnings

    from baseparam.identification.results import Metrics
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figures = Metrics._of_log(np.array(e2), np.array(t2), 10)
    np.testing.assert_allclose(figures.nrmse_percent, per_joint, rtol=1e-8)
    np.testing.assert_allclose(figures.nrmse_pooled_percent, pooled, rtol=1e-8)


def test_a_log_figures_in_range_are_those_of_before():
    from baseparam.evaluation import figures_of_sums
    from baseparam.identification.results import Metrics
    e2, t2 = np.array([1.0, 2.0, 0.5, 0.0]), np.array([3.0, 4.0, 0.0, 0.0])
    figures = Metrics._of_log(e2, t2, 10)
    per_joint, pooled = figures_of_sums(e2, t2)
    np.testing.assert_array_equal(figures.nrmse_percent, 100.0 * per_joint)
    assert figures.nrmse_pooled_percent == 100.0 * pooled


@pytest.mark.parametrize("tau, message", [
    (np.full((5, 2), 1e-160), r"^tau, predicted: joint 1: Σe²/Στ² beyond the floating-point range"),
    (np.full((1, 2), 1.3e154), r"^tau, predicted: the sum over the joints overflowed to inf"),
])
def test_compare_refuses_figures_beyond_the_floating_point_range(tau, message):
    """Torques of 1e-160 N·m against predictions of 1: numpy's raw "overflow encountered in divide" and an NRMSE of
    inf; squares whose total over the joints overflows: "overflow encountered in reduce". Refused as nrmse does."""
    import warnings

    from baseparam.identification.results import Metrics
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.ArgumentError, match=message):
            Metrics.compare(tau, np.ones_like(tau) if tau.max() < 1 else np.zeros_like(tau))


def test_compare_figures_in_range_are_those_of_before():
    from baseparam.evaluation import figures_of_sums
    from baseparam.identification.results import Metrics
    rng = np.random.default_rng(26)
    tau = rng.normal(size=(50, 3))
    tau[:, 2] = 0.0                                                 # a joint of no torque: NaN, as before
    predicted = tau + 0.1 * rng.normal(size=tau.shape)
    figures = Metrics.compare(tau, predicted)
    per_joint, pooled = figures_of_sums(((tau - predicted) ** 2).sum(axis=0), (tau ** 2).sum(axis=0))
    np.testing.assert_array_equal(figures.nrmse_percent, 100.0 * per_joint)
    assert figures.nrmse_pooled_percent == 100.0 * pooled


# --- the limit of open files: an environment limit, raised to a library caller as Python raises it ------------------

def test_the_open_files_limit_reaches_a_library_caller_as_pythons_emfile(monkeypatch):
    """errors.py's rule (issue 28 re-checked: EMFILE is the machine's limit, no bad argument): the check before a local
    cluster raises what Python raises meeting the limit, an OSError EMFILE, no library error class (the command line
    says it in one line, test_fuzz_round22_lcli). Limit faked; the cluster is never started."""
    import errno

    pytest.importorskip("distributed")
    import distributed

    import baseparam._processes as processes
    monkeypatch.setattr(distributed, "LocalCluster", lambda *a, **k: pytest.fail("started"))
    monkeypatch.setattr(processes, "_files_free", lambda: 10, raising=False)
    robot, _, t, q, qd, qdd, tau = planar_sines(4, 60, 0.01)
    logs = [bp.Trajectory(t, q, tau=tau, source="a"), bp.Trajectory(t, q, tau=tau, source="b")]
    with pytest.raises(OSError) as refused:
        bp.identify_logs(robot, logs, scheduler="local", workers=2)
    assert refused.value.errno == errno.EMFILE and not isinstance(refused.value, bp.BaseParamError)


# --- the BLAS thread count: one limit for the blocks of several threads at once -------------------------------------

def _blas_counts():
    from threadpoolctl import threadpool_info
    return [(info["filepath"], info["num_threads"]) for info in threadpool_info() if info["user_api"] == "blas"]


def _fit_block():
    from baseparam._blas import single_threaded
    return single_threaded()


def _search_block():
    from baseparam._blas import on_one_blas_thread
    return on_one_blas_thread()


@pytest.mark.parametrize("blocks", [(_fit_block, _fit_block), (_search_block, _fit_block), (_fit_block, _search_block)],
                         ids=["fit, fit", "search, fit", "fit, search"])
@pytest.mark.parametrize("first_thread_ends", [True, False], ids=["first thread ended", "first thread alive"])
def test_overlapping_single_thread_blocks_leave_the_blas_thread_count_as_it_was(first_thread_ends, blocks):
    """Two threads' overlapping fits (``single_threaded`` blocks) or a fit beside an excitation search run in place
    (``on_one_blas_thread``, its own limit before): the second saved the first's one thread as the count to restore,
    and put it back for good (once the first thread had ended, or the other helper's): every later BLAS call of the
    process on one thread (checked failing before; 170 threaded public calls left 2 -> 1). Now one shared limit,
    lifted as the last block leaves; inside, one thread."""
    import threading

    from threadpoolctl import threadpool_limits

    from baseparam import _blas
    pytest.importorskip("scipy.linalg")             # the search's block loads it: loaded before the counts are read
    if _blas._limits_per_thread() or not _blas_counts():
        pytest.skip("no BLAS library whose thread count is the process's")
    before = _blas_counts()
    inside = []
    a_in, b_in, a_left, a_out = (threading.Event() for _ in range(4))

    def first():
        with blocks[0]():
            a_in.set()
            b_in.wait(10)
            inside.append(_blas_counts())
        a_left.set()
        if not first_thread_ends:
            a_out.wait(10)

    def second():
        a_in.wait(10)
        with blocks[1]():
            b_in.set()
            a_out.wait(10)
            inside.append(_blas_counts())
    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    try:
        for thread in threads:
            thread.start()
        threads[0].join() if first_thread_ends else a_left.wait(10)
        a_out.set()
        for thread in threads:
            thread.join()
        assert _blas_counts() == before
        assert all(count == 1 for counts in inside for _, count in counts)
    finally:
        if _blas_counts() != before:        # put back for the tests after, should the check have failed
            threadpool_limits(limits=max(count for _, count in before), user_api="blas")
            _blas._let_go()


# --- a module another thread is still importing: its classes looked up as far as it has got -------------------------

def _being_imported(monkeypatch, *names):
    """Each module ``names`` as another thread's import leaves it at its start: in sys.modules, nothing defined yet."""
    for name in names:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))


def test_an_array_is_read_while_another_thread_imports_numpy_ma(monkeypatch):
    """Cold threaded runs (load_robot, identify, identify_logs: 1 in 3): real_array found numpy.ma partially initialized
    in sys.modules, "AttributeError: partially initialized module 'numpy.ma' has no attribute 'MaskedArray'"."""
    from baseparam._numbers import real_array
    _being_imported(monkeypatch, "numpy.ma", "numpy.ma.core")
    np.testing.assert_array_equal(real_array("q", [1.0, 2.0], ArgumentError), [1.0, 2.0])


def test_a_masked_array_is_still_refused_by_its_masked_values():
    import numpy.ma as ma

    from baseparam._numbers import real_array
    with pytest.raises(ArgumentError, match=r"^q: a masked array with 1 masked value"):
        real_array("q", ma.array([1.0, 2.0], mask=[0, 1]), ArgumentError)
    np.testing.assert_array_equal(real_array("q", ma.array([1.0, 2.0]), ArgumentError), [1.0, 2.0])


def test_a_base_set_and_a_robot_are_checked_while_their_modules_are_imported(monkeypatch):
    """check_base and require_robot_below took the class from sys.modules alike (AttributeError while another thread
    imported those modules): nothing is a base set or a Robot before its class exists."""
    from baseparam._checks import require_robot_below
    from baseparam.projection.report import check_base
    _being_imported(monkeypatch, "baseparam.projection.base_set", "baseparam.model.robot")
    with pytest.raises(bp.ArgumentTypeError, match="^base: "):
        check_base(object())
    with pytest.raises(bp.ArgumentTypeError, match="^robot: "):
        require_robot_below(object())


def test_a_recording_block_records_its_own_threads_warnings_only(recwarn):
    """A warning another thread gave while a block recorded (reduce_log, an LSODA run, a bag's opening) landed in the
    block's list: kept as the block's own, or lost (30 URDF loads beside LSODA runs showed 21-28 of 30). It now
    reaches the showwarning in place before the block (here pytest's recwarn); the block keeps its own."""
    import threading
    import warnings

    from baseparam._warnings import recorded
    inside, given = threading.Event(), threading.Event()

    def other_thread():
        inside.wait(10)
        warnings.warn_explicit("from the other thread", UserWarning, "other.py", 1, registry={})
        given.set()
    other = threading.Thread(target=other_thread)
    other.start()
    with recorded() as caught:
        warnings.simplefilter("always")
        inside.set()
        given.wait(10)
        warnings.warn_explicit("from the block", UserWarning, "block.py", 1, registry={})
    other.join()
    assert [str(w.message) for w in caught] == ["from the block"]
    assert [str(w.message) for w in recwarn] == ["from the other thread"]
