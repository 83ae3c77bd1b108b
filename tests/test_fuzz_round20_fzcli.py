"""Round 20 (fzcli): the command line's options, odd values and environments, each class fixed at its root."""

import contextlib
import os
import socket
import struct
import threading

import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT, one_line

UR = ROOT / "robots" / "ur10e.yaml"
PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# --- 1. one log under two names: a hard link, or a bag's file beside its folder ---

def test_a_log_named_again_through_a_hard_link_or_its_folder_is_the_same_log(tmp_path, monkeypatch):
    """`payload R log.csv --unloaded log.csv` is refused (the payload torque is zero by construction), but the same
    file through a hard link, or a ROS 2 bag's .mcap beside the bag's folder, was compared by real path only: a
    0 ± 4e-15 kg "payload", exit 0; identify's --validate on its own training data through a hard link, no word."""
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,q4,q5,q6,tau1,tau2,tau3,tau4,tau5,tau6\n")
    os.link(log, tmp_path / "again.csv")
    one_line(_run("payload", UR, log, "--unloaded", tmp_path / "again.csv"), "again.csv", "loaded", "--unloaded")
    bag = tmp_path / "bag"
    bag.mkdir()
    (bag / "metadata.yaml").write_text("")
    (bag / "bag_0.mcap").write_bytes(b"")
    one_line(_run("payload", UR, bag, "--unloaded", bag / "bag_0.mcap"), "bag_0.mcap", "loaded", "--unloaded")
    one_line(_run("payload", UR, bag / "bag_0.mcap", "--unloaded", bag), "bag", "loaded", "--unloaded")
    import baseparam._warnings as warnings_module
    said = []
    monkeypatch.setattr(warnings_module, "warn", lambda text, *a, **k: said.append(text))
    _run("identify", UR, log, "--validate", tmp_path / "again.csv")
    assert any("again.csv: given twice (as training and validation data)" in text for text in said), said


# --- 2. --scheduler at an address whose server is no Dask scheduler ---

@contextlib.contextmanager
def _server(answer):
    """A TCP server on a free local port that sends ``answer`` to each connection (None: accepts, never answers)
    and keeps it open; yields its 'tcp://127.0.0.1:PORT'."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held = []

    def serve():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)
            if answer is not None:
                with contextlib.suppress(OSError):
                    connection.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for connection in held:
            connection.close()


@pytest.mark.parametrize("answer", [b"HTTP/1.1 400 Bad Request\r\n\r\n",         # its bytes a frame of 3 EiB
                                    struct.pack("<Q", 16) + b"\xff" * 16,           # struct.error
                                    struct.pack("<QQQ", 17, 1, 1) + b"\x05"],      # a msgpack int: TypeError
                         ids=["http", "struct", "msgpack-int"])
def test_a_scheduler_address_answered_by_another_server_is_said_so(tmp_path, answer):
    """`identify --scheduler tcp://HOST:PORT` where a web or SSH server answers: Dask read its first bytes as the
    length of a frame and the run ended "ROBOT: out of memory (MemoryError)" (wrong file, wrong problem), or
    "internal error: struct.error …" / "TypeError …" with exit 1, or a logged traceback above the line."""
    pytest.importorskip("distributed")
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n")
    with _server(answer) as address:
        result = _run("identify", PLANAR, log, "--scheduler", address)
    one_line(result, "--scheduler", address, "did not answer as a Dask scheduler")


def test_a_scheduler_that_never_answers_the_handshake_is_given_up_in_bounded_time(tmp_path, monkeypatch):
    """A server that accepts the connection and never answers (a web server waiting for its request's end) held
    `identify --scheduler` for good: Dask bounds the TCP connection by its timeout, not the handshake after it."""
    pytest.importorskip("distributed")
    import baseparam.identification._workers as workers
    monkeypatch.setattr(workers, "REMOTE_TIMEOUT", 0.5, raising=False)
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n")
    with _server(None) as address:
        outcome = []
        # the handshake's bound is REMOTE_TIMEOUT, or --connect-timeout when longer (its default 2 s)
        runner = threading.Thread(target=lambda: outcome.append(_run("identify", PLANAR, log, "--scheduler", address,
                                                                     "--connect-timeout", "0.5")), daemon=True)
        runner.start()
        runner.join(120)                # a bound on a hang, not a timing: the refusal comes after 0.5 s
    assert outcome, "identify --scheduler still waiting for the handshake after 120 s"
    one_line(outcome[0], "--scheduler", address, "no answer within 0.5 s")


# --- 3. the environment: an MPLBACKEND matplotlib refuses ---

_BACKEND = """
import json, sys
from click.testing import CliRunner
from baseparam.cli import main
result = CliRunner().invoke(main, ["identify", *sys.argv[1:3], "--plot", sys.argv[3]], env={"MPLBACKEND": sys.argv[4]})
print(json.dumps([result.exit_code, result.output, repr(result.exception)]))
"""


@pytest.mark.parametrize("backend", ["nonsense", "module://no_such_backend"])   # refused on import; on the backend's
def test_a_backend_matplotlib_refuses_is_said_in_one_line_naming_mplbackend(tmp_path, backend):
    """`MPLBACKEND=nonsense baseparam identify … --plot f.png` ended in matplotlib's ValueError, a traceback and exit
    1; `MPLBACKEND=module://missing` in ModuleNotFoundError. In a process of its own: matplotlib reads MPLBACKEND on
    its import, once."""
    import json
    import subprocess
    import sys
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", _BACKEND, str(PLANAR), str(log), str(tmp_path / "f.png"), backend],
                          env=env, capture_output=True, text=True, timeout=600)
    status, output, exception = json.loads(proc.stdout)
    assert status == 2 and output.count("\n") == 1, (output, exception)
    assert output.startswith(f"baseparam: MPLBACKEND: '{backend}' is not a backend matplotlib can use"), output
    assert not (tmp_path / "f.png").exists()


# --- 4. the environment: PYTHONWARNINGS=error (python -W error) ---

def test_a_warning_the_users_filter_makes_an_error_stops_the_run_in_one_line_with_status_2(tmp_path):
    """Under `PYTHONWARNINGS=error` a warning of the run is raised as an exception, as the user asked: the run ended
    "internal error: DescriptionWarning: …" (ExcitationWarning for identify's, RoundOffWarning for a URDF's snapped
    angles), exit 1, in the library's words (`exact_angles=False`). Now the warning's own line, status 2, no output."""
    import warnings
    out = tmp_path / "f.json"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = _run("find", PLANAR, "--friction-model", "stribeck", "--json", out)
    one_line(result, "planar_rrr.yaml", "a friction model is given", "--friction",
             "made an error by the warnings filter PYTHONWARNINGS or -W: DescriptionWarning")
    assert not out.exists()


# --- 5. the current folder removed after the shell entered it ---

@pytest.mark.parametrize("args", [["find", PLANAR, "--json", "f.json"], ["export", PLANAR, "--lang", "c"]])
def test_a_run_in_a_removed_current_folder_says_so_not_blaming_a_file(tmp_path, monkeypatch, args):
    """`cd gone && rmdir ../gone && baseparam …`: os.getcwd() fails, and so does every relative name's absolute form
    (and the start of worker processes): `find R --json f.json` said "standard output: cannot write (No such file or
    directory)", `export R` (--out .) and `excite --workers 2` blamed ROBOT_FILE, which exists."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    one_line(_run(*args), "the current folder no longer exists")


# --- 6. a stopped `identify --scheduler local`: its scratch folder, the cluster's last log lines ---

def test_the_watchdogs_forced_end_removes_a_local_clusters_scratch_folder(tmp_path, monkeypatch):
    """A SIGINT/SIGTERM to `identify --scheduler local` is ended by the watchdog once its grace is over (the cluster's
    close takes longer): matplotlib's folder and a compile's were removed then, the cluster's scratch folder
    (baseparam-dask-PID-…, in $TMPDIR) was left, in 3 runs of 8."""
    import baseparam._entry as entry
    import baseparam.identification._workers as workers
    scratch = tmp_path / "baseparam-dask-1-host-x"
    (scratch / "dask-scratch-space" / "worker-1").mkdir(parents=True)
    (scratch / "dask-scratch-space" / "global.lock").write_text("")
    monkeypatch.setattr(workers, "_SCRATCH", [str(scratch)], raising=False)
    import baseparam._atomic as atomic
    import baseparam._figures as figures
    import baseparam.dynamics._native as native
    for module, name in ((atomic, "_discard"), (figures, "remove_private"),
                         (native, "remove_live")):     # this test process's own, left alone
        monkeypatch.setattr(module, name, lambda *args: None)
    monkeypatch.setattr(atomic, "take_back_kept", lambda: True)     # a run still going: nothing made final yet
    entry._remove_temporaries()
    assert not scratch.exists()


_ENDING = """
import logging, multiprocessing.util
# a library logging as the stopped run ends (asyncio's "Task exception was never retrieved" from a local Dask
# cluster's thread, its nannies still starting): here from the exit function the end runs
multiprocessing.util._exit_function = lambda: logging.getLogger("asyncio").error("Task exception was never retrieved")
from baseparam import cli
cli._stopped("interrupted", 130)
"""


def test_nothing_is_logged_after_a_stopped_runs_last_line():
    """Ctrl-C while `identify --scheduler local` started its workers: "baseparam: interrupted", then 21 lines of
    asyncio's "Task exception was never retrieved … RuntimeError: Nanny failed to start worker process"."""
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", _ENDING], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 130 and proc.stderr == "baseparam: interrupted\n", proc.stderr
