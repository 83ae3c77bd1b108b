"""Round 21, review of the lcli merge (rv3): each test fails on the code before its fix."""
from __future__ import annotations

import logging
import sys

import pytest

from test_fuzz_round21_lcli import _Client, _stopped_while_waiting     # a client on which the run is stopped


class _Cluster:
    """A LocalCluster whose close, as Dask's, ends the silence of its ``silence_logs`` and then, its loop not yet
    stopped, logs what the scheduler's BatchedSend logs when it finds a killed worker's comm closed."""

    def __init__(self, **options):
        self.workers = {}

    def close(self):
        try:
            raise OSError("stands for distributed.comm.core.CommClosedError")
        except OSError:
            logging.getLogger("distributed.batched").info("Batched Comm Closed <TCP (closed)>", exc_info=True)




def test_a_stopped_local_cluster_prints_no_comm_closed_traceback_from_its_close(monkeypatch, capfd):
    """A stopped `identify --scheduler local` printed, 1 run in 20, distributed.batched's "Batched Comm Closed" and a
    CommClosedError traceback before "baseparam: interrupted": its workers are killed before the cluster's close, and
    the close restores Dask's log handlers (its silence_logs) before its loop has seen the last of their comms."""
    distributed = pytest.importorskip("distributed")

    # what Dask's logging configuration gives a process whose root logger has no handler (pytest's has): INFO and
    # above from the "distributed" loggers on stderr
    dask_logger = logging.getLogger("distributed")
    handlers = [logging.StreamHandler(sys.stderr)]
    monkeypatch.setattr(dask_logger, "handlers", handlers)
    monkeypatch.setattr(dask_logger, "propagate", False)
    level = dask_logger.level
    dask_logger.setLevel(logging.INFO)
    monkeypatch.setattr(logging.getLogger("distributed.batched"), "level", logging.NOTSET)
    try:
        assert logging.getLogger("distributed.batched").isEnabledFor(logging.INFO)     # else the test proves nothing
        _stopped_local_run(monkeypatch, distributed)
    finally:
        dask_logger.setLevel(level)
    assert capfd.readouterr().err == ""
    assert [h.level for h in handlers] == [logging.NOTSET]          # the caller's logging as it was


def _stopped_local_run(monkeypatch, distributed):
    from baseparam.identification import _workers

    monkeypatch.setattr(distributed, "LocalCluster", _Cluster)
    monkeypatch.setattr(distributed, "Client", _Client)
    monkeypatch.setattr(distributed, "as_completed", _stopped_while_waiting)
    with pytest.raises(KeyboardInterrupt):
        _workers.map_logs(["a.csv", "b.csv"], {"reduce": None}, [None, None], workers=2, scheduler="local")
