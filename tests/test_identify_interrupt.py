"""A Ctrl-C reaching an identification worker while it starts (issue 28): the workers are born with SIGINT
blocked and ignore it before unblocking (baseparam._processes, as excite's pool), so the caller alone handles
it. Reached without timing: the signal is sent to the first worker right after it is launched, to it alone, so
the run must go on and give the serial result (a worker that took it died with KeyboardInterrupt)."""
import os
import signal

import numpy as np
import pytest

import baseparam as bp
from conftest import planar_arm

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks")


def test_ctrl_c_to_a_starting_worker_is_left_to_the_caller(monkeypatch, tmp_path):
    import multiprocessing
    from multiprocessing import popen_spawn_posix

    robot = planar_arm()
    paths = []
    for k in range(2):
        t = np.arange(300) / 100.0
        w = 2 * np.pi * 0.25 * np.arange(1, 4)
        q = 0.4 * np.sin(t[:, None] * w + np.arange(3) + k)
        qd = 0.4 * w * np.cos(t[:, None] * w + np.arange(3) + k)
        qdd = -0.4 * w ** 2 * np.sin(t[:, None] * w + np.arange(3) + k)
        np.savez(tmp_path / f"log{k}.npz", t=t, q=q, qd=qd, qdd=qdd,
                 tau=bp.inverse_dynamics(bp.Model(robot), q, qd, qdd))
        paths.append(str(tmp_path / f"log{k}.npz"))
    serial = bp.identify_logs(robot, paths, method="ols")
    launch = popen_spawn_posix.Popen._launch
    sent = []

    def launch_then_interrupt(self, process_obj):
        launch(self, process_obj)
        if not sent:
            sent.append(self.pid)
            os.kill(self.pid, signal.SIGINT)          # the worker alone, while it starts
    monkeypatch.setattr(popen_spawn_posix.Popen, "_launch", launch_then_interrupt)
    handler = signal.getsignal(signal.SIGINT)
    parallel = bp.identify_logs(robot, paths, method="ols", workers=2)
    assert sent
    np.testing.assert_allclose(parallel.values, serial.values, rtol=1e-12, atol=1e-12)
    assert multiprocessing.active_children() == []
    assert signal.getsignal(signal.SIGINT) is handler
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
