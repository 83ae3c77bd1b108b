"""Round 25 of the command-line fuzzing (issue 28), helper fzcli2: each class found, its test."""
import multiprocessing.util
import subprocess
import sys
import warnings

import pytest

# --- 1. a local Dask cluster of more workers than logs, each printing Dask's raw scratch-folder warning ---

# Dask's warning as distributed.core.Server words it (the duration varies)
SCRATCH_WARNING = ("Creating scratch directories is taking a surprisingly long time. (1.03s) This is often due to "
                   "running workers on a network file system. Consider specifying a local-directory to point workers "
                   "to write scratch data to a local disk.")


class _Stop(Exception):
    pass


class _ClusterSeen:
    """A LocalCluster that notes what its start is given and sees, then stops the run (no process is started)."""
    seen = {}

    def __init__(self, **options):
        # what a worker process of the cluster does with the warning: the nannies spawn it with the caller's -W
        # options (multiprocessing's spawn command line), not with the caller's warning filters
        worker = subprocess.run([sys.executable, *multiprocessing.util._args_from_interpreter_flags(), "-c",
                                 f"import warnings; warnings.warn({SCRATCH_WARNING!r})"],
                                capture_output=True, text=True, timeout=60)
        with warnings.catch_warnings(record=True) as here:       # the scheduler and the nannies, in this process
            warnings.warn(SCRATCH_WARNING, UserWarning, stacklevel=1)
        _ClusterSeen.seen.update(n_workers=options["n_workers"], worker_stderr=worker.stderr, here=len(here))
        raise _Stop


def test_a_local_cluster_starts_no_more_workers_than_logs_and_none_prints_the_scratch_warning(monkeypatch):
    """`identify R one.csv --scheduler local --workers 1024` started 1024 worker processes for its one log (killed
    after 300 s on two cores), and each process printed Dask's "Creating scratch directories is taking a
    surprisingly long time" UserWarning raw, with its source line (141 lines of stderr); a process pool takes one
    worker per log at most. The cluster is now as large as the logs need, and the warning (about a folder this run
    made on a local disk) is ignored in this process and in the workers it spawns."""
    distributed = pytest.importorskip("distributed")
    from baseparam.identification import _workers
    monkeypatch.setattr(distributed, "LocalCluster", _ClusterSeen)
    _ClusterSeen.seen.clear()
    options_before = list(sys.warnoptions)
    with pytest.raises(_Stop):
        _workers.map_logs(["a.csv"], {"reduce": None}, [None], workers=1024, scheduler="local")
    assert _ClusterSeen.seen["n_workers"] == 1
    assert _ClusterSeen.seen["worker_stderr"] == "" and _ClusterSeen.seen["here"] == 0, _ClusterSeen.seen
    assert sys.warnoptions == options_before                     # the option was the cluster's start's only
    with pytest.raises(_Stop):
        _workers.map_logs(["a.csv", "b.csv", "c.csv"], {"reduce": None}, [None] * 3, workers=2, scheduler="local")
    assert _ClusterSeen.seen["n_workers"] == 2                   # fewer workers than logs: as asked
    # the warning is Dask's to give elsewhere
    with warnings.catch_warnings(record=True) as after:
        warnings.simplefilter("always")
        warnings.warn(SCRATCH_WARNING, UserWarning, stacklevel=1)
    assert len(after) == 1


# --- 2. a wrench read from the log's own time, position or torque columns ---

@pytest.mark.parametrize("columns,said", [
    ("7,8,9,10,11,12", "fx (of '7,8,9,10,11,12') is the log's torques of joint 1 (field tau)"),
    ("q1,q2,q3,q4,q5,q6", "fx (of 'q1,q2,q3,q4,q5,q6') is the log's positions of joint 1 (field q)"),
    ("fx,fy,fz,mx,my,t", "mz (of 'fx,fy,fz,mx,my,t') is the log's time (field t)")])
def test_a_wrench_column_that_is_the_logs_own_time_position_or_torque_is_refused(tmp_path, columns, said):
    """`payload R log.csv --wrench 7,8,9,10,11,12` of a log whose columns 7–12 are its joint torques (0-based numbers
    counted from t) fitted a payload from the arm's torques read as a force and a moment: exit 0, a payload with its
    vendor formats; `--wrench 1,2,…` (the positions) the same with a warning. A wrench component that is, sample for
    sample, a column the log reads as its time, positions or torques is now refused in one line; the sensor's own
    columns of the same log still give the payload."""
    import numpy as np

    import baseparam as bp
    from baseparam.cli import main
    from click.testing import CliRunner
    from conftest import ROOT, one_line
    from test_payload import CASES, _multisine, _torques
    ur10e = ROOT / "robots" / "ur10e.yaml"
    robot = bp.load_robot(ur10e)
    t, q, qd, qdd = (a[:800] for a in _multisine(robot.n_dof))
    tau = _torques(robot, CASES[0][1], q, qd, qdd)
    wrench = np.random.default_rng(0).normal(size=(len(t), 6))     # a sensor's columns, other than the log's
    header = ",".join(["t", *(f"q{j}" for j in range(1, 7)), *(f"tau{j}" for j in range(1, 7)),
                       "fx", "fy", "fz", "mx", "my", "mz"])
    log = tmp_path / "log.csv"
    np.savetxt(log, np.column_stack([t, q, tau, wrench]), delimiter=",", header=header, comments="")
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", str(ur10e), str(log), "--wrench", columns, "--json", str(out)])
    one_line(result, str(log), "--wrench", said)
    assert not out.exists()
    sensor = CliRunner().invoke(main, ["payload", str(ur10e), str(log), "--wrench", "fx,fy,fz,mx,my,mz"])
    assert sensor.exit_code == 0, sensor.output


def test_a_wrench_npz_key_naming_the_positions_is_refused(tmp_path):
    """The NPZ form: `--wrench q` (the (S, 6) positions of a six-joint arm) was read as the wrench, exit 0."""
    import numpy as np

    import baseparam as bp
    from baseparam.cli import main
    from click.testing import CliRunner
    from conftest import ROOT, one_line
    from test_payload import CASES, _multisine, _torques
    ur10e = ROOT / "robots" / "ur10e.yaml"
    robot = bp.load_robot(ur10e)
    t, q, qd, qdd = (a[:800] for a in _multisine(robot.n_dof))
    log = tmp_path / "log.npz"
    np.savez(log, t=t, q=q, tau=_torques(robot, CASES[0][1], q, qd, qdd))
    one_line(CliRunner().invoke(main, ["payload", str(ur10e), str(log), "--wrench", "q"]),
             "--wrench", "fx (of 'q') is the log's positions of joint 1 (field q)")
