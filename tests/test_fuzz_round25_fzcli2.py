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
