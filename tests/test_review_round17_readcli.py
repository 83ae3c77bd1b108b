"""Review round 17 (readcli): a second read of cli.py, _entry.py, excitation/, simulation/, codegen/equations.py,
model/urdf.py."""
import threading

import pytest


@pytest.mark.parametrize("delay", ["inf", "1e300"])
def test_progress_delay_beyond_the_clock_is_never_not_a_traceback(monkeypatch, delay):
    """BASEPARAM_PROGRESS_DELAY=inf (a bar never shown) passed the check (a number >= 0), and the bar's thread then
    died of Event.wait's OverflowError: a traceback on the terminal of a run that otherwise went well."""
    import baseparam.cli as cli
    failures = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    monkeypatch.setenv("BASEPARAM_PROGRESS_DELAY", delay)
    progress = cli._Progress("projecting", enabled=True)
    assert progress.delay == float(delay)
    thread = progress._thread
    thread.join(0.2)                    # it waits (the bar not shown), it did not die
    alive = thread.is_alive()
    progress(1, 2)
    progress.close()
    assert alive and not failures and progress.bar is None and not progress.shown.is_set(), failures
