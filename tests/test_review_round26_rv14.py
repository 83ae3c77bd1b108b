"""Review of round 26's lwarn (warning filters under one process-wide lock) and lsim2 (_SignWatch): rv14."""

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_FORKED_WHILE_HELD = textwrap.dedent("""
    import os, signal, threading, warnings
    from baseparam._warnings import ignored, recorded
    inside, leave = threading.Event(), threading.Event()
    before = list(warnings.filters)

    def hold():
        with ignored(UserWarning):
            inside.set()
            leave.wait()

    threading.Thread(target=hold, daemon=True).start()
    inside.wait()
    pid = os.fork()
    if pid == 0:
        signal.alarm(20)                 # a child waiting forever on the lock ends by SIGALRM
        with recorded() as caught:
            warnings.simplefilter("always")
            warnings.warn("heard")
        os._exit(0 if len(caught) == 1 and warnings.filters == before else 3)
    leave.set()
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_child_forked_while_another_thread_holds_the_warnings_lock():
    """A child forked while another thread was inside ignored() waited forever at its first recorded() (the
    lock's owner is not in the child), and kept that block's "ignore" for good."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = subprocess.run([sys.executable, "-c", _FORKED_WHILE_HELD], capture_output=True, text=True, timeout=120,
                         env=env)
    assert run.stdout.strip() == "0", run.stdout + run.stderr
