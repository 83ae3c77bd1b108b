"""Fuzz round fifteen (issue 28), resources, signals, concurrency and the file system: what the fifteenth round found
over the commands that write, each test failing on the code before its fix."""
import contextlib
import errno
import os
import pickle
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from baseparam.errors import resource_exhausted

ROOT = Path(__file__).resolve().parents[1]
PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _baseparam(args, cwd, redirections, timeout=60):
    """``python -m baseparam ARGS`` started by a shell with ``redirections`` (``>&-``, ``2>&-``, ``2</dev/null``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), BASEPARAM_CACHE_DIR="none")
    command = " ".join([f"exec {sys.executable} -m baseparam", *args, redirections])
    return subprocess.run(["sh", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("redirections", ["2>&-", "2</dev/null"])
def test_a_run_without_a_writable_stderr_still_ends_as_it_went(tmp_path, redirections):
    # stderr closed (or, as pyenv's shims leave it, a read-only file on descriptor 2): sys.stderr was None (an
    # AttributeError in the progress display, exit 1) or failed each write (the report of `--json -` goes to
    # stderr: EBADF, exit 1); the run now goes on with its words discarded and its exit status still meaningful
    done = _baseparam(["find", str(PLANAR), "--json", "-"], tmp_path, redirections)
    assert done.returncode == 0 and '"rank": 9' in done.stdout


def test_a_run_started_with_standard_output_closed_is_refused_before_the_work(tmp_path):
    # the report, and a JSON asked for with '-', went nowhere while the run said it went well (exit 0)
    done = _baseparam(["find", str(PLANAR), "--json", "-"], tmp_path, ">&-")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "standard output is closed" in done.stderr


# The command run with Thread.start failing after ALLOWED threads, as under a limit of processes and threads
# (ulimit -u, a cgroup's pids.max: root is exempt from RLIMIT_NPROC, so a test cannot set one that bites)
_NO_THREADS = """
import sys, threading
allowed = [int(sys.argv[1])]
start = threading.Thread.start
def limited(self):
    if allowed[0] <= 0:
        raise RuntimeError("can't start new thread")
    allowed[0] -= 1
    start(self)
threading.Thread.start = limited
import baseparam._processes      # a limit its files do not show (a cgroup's pids.max hidden by a namespace)
baseparam._processes._no_limit_of_tasks_binds = lambda count: False
sys.argv = ["baseparam", "find", sys.argv[2]]
from baseparam._entry import main
main()
"""


@pytest.mark.parametrize("allowed", [0, 1])
def test_a_limit_of_threads_met_at_the_start_is_said_in_one_line(tmp_path, allowed):
    # 0: the watchdog's thread could not start (a traceback, exit 1); 1: it could, but not the threads numpy's
    # OpenBLAS starts as it loads, which then sends the process SIGINT: "baseparam: interrupted", exit 130
    if allowed and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("OpenBLAS starts no thread of its own on one processor")
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="2")     # the suite's -n 2 sets 1
    done = subprocess.run([sys.executable, "-c", _NO_THREADS, str(allowed), str(PLANAR)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "cannot start a process or thread" in done.stderr


def test_no_thread_to_start_is_the_processes_limit():
    # a thread that could not start was said as an internal error (a fork refused: test_fuzz_round16_fres)
    assert "cannot start a process or thread" in resource_exhausted(RuntimeError("can't start new thread"))


def _fails_to_start():
    raise RuntimeError("can't start new thread")


def test_a_workers_failed_initializer_is_raised_by_its_tasks_not_by_the_worker():
    # multiprocessing.Pool replaces a worker whose initializer raises, for ever: `excite --workers 2` under
    # `ulimit -u` printed tracebacks in a loop and never ended
    from baseparam import _processes
    from baseparam.excitation import _search
    from baseparam.identification import _workers

    kept = _processes.kept_for_the_first_task(_fails_to_start)
    try:
        assert kept() is None
        with pytest.raises(RuntimeError, match="can't start new thread"):
            _processes.raise_failed_start()
    finally:
        _processes._FAILED_START.clear()
    for initializer in (_search._init_worker, _workers._init):       # spawned workers take them by name
        assert pickle.loads(pickle.dumps(initializer)) is initializer


def test_no_bytecode_cache_is_written_under_a_file_size_limit(tmp_path):
    # a short write of a module's __pycache__/*.pyc (the limit met) left a truncated file that broke every later
    # import of the module ("EOFError: marshal data too short"), for every run
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)

    def flag(size):
        def limited():
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))
        done = subprocess.run([sys.executable, "-c", "import sys, baseparam; print(sys.dont_write_bytecode)"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, preexec_fn=limited)
        return done.stdout.split()
    # a small limit: no cache written; a site-wide limit of gigabytes cannot cut a cache file: the flag left alone
    assert flag(10_000) == ["True"]
    assert flag(8 * 2**30) == ["False"]


@pytest.mark.parametrize("free", [0, 1])
def test_the_plots_private_folder_is_removed_at_the_limit_of_open_files(tmp_path, free):
    # shutil.rmtree walks with two descriptors at once: at `ulimit -n` (matplotlib holds its fonts open) it failed
    # silently and --plot's folder with its font list stayed in $TMPDIR, after a run that ended well (free=1) or was
    # refused for the limit (free=0: not even a listing)
    import matplotlib.font_manager

    from baseparam import _figures

    folder = tmp_path / ".baseparam-matplotlib-1-host-abcdefgh"
    folder.mkdir()
    (folder / f"fontlist-v{matplotlib.font_manager.FontManager.__version__}.json").write_text("{}")
    pid = os.fork()
    if pid == 0:                                  # the child: its descriptors used up, all but `free`
        code = 3
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
            held = []
            with contextlib.suppress(OSError):
                while True:
                    held.append(os.open(os.devnull, os.O_RDONLY))
            for fd in held[len(held) - free:]:
                os.close(fd)
            _figures._PRIVATE[:] = [str(folder)]
            _figures.remove_private()
            code = 0 if not folder.exists() else 1
        finally:
            os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def test_a_readers_words_for_the_limit_of_open_files_are_said_as_the_processes_limit(capsys):
    # `identify` under `ulimit -n 6`: "kuka.npz: not a valid NPZ file ([Errno 24] Too many open files: '…cp437.py')"
    # blamed the log; the reader raises its own words `from None`, the cause stays their context
    from baseparam import cli
    from baseparam.errors import DataError

    with pytest.raises(SystemExit) as end, cli._one_line_errors("robot.yaml"):
        try:
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), "/usr/lib/python3/encodings/cp437.py")
        except OSError as exc:
            raise DataError(f"log.npz: not a valid NPZ file ({exc})") from None
    assert end.value.code == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "too many open files" in said and "not a valid NPZ" not in said


def test_a_library_unmapped_under_the_address_space_limit_is_said_by_the_loaders_line():
    # numpy wraps the loader's line in a page of advice, which the one line carried whole (with "\n" escapes)
    text = ("\n\nIMPORTANT: PLEASE READ THIS FOR ADVICE ON HOW TO SOLVE THIS ISSUE!\n\nImporting the numpy "
            "C-extensions failed. This error can happen for\nmany reasons, often due to issues with your "
            "setup.\n\nOriginal error was: libscipy_openblas64_.so: failed to map segment from shared object\n")
    said = resource_exhausted(ImportError(text))
    assert said.startswith("out of memory (a library could not be loaded: libscipy_openblas64_.so: failed to map "
                           "segment from shared object")
    assert "IMPORTANT" not in said and "\\n" not in said


_BLOCKED_IN_WORKERS = """
import sys
if "spawn_main" in " ".join(getattr(sys, "orig_argv", [])):       # a spawned worker only: it fails as it starts
    class _Unloadable:
        def find_spec(self, name, path=None, target=None):
            if name == "baseparam.identification._workers":
                raise ImportError("cannot load " + name)
    sys.meta_path.insert(0, _Unloadable())
"""


def test_workers_that_fail_as_they_start_end_the_run_in_one_line(tmp_path):
    # a worker that could not load (a library beyond ulimit -v, a broken installation; here an import refused in
    # the workers only) never took its start-up data: `identify --workers 2` waited for it for ever, after the
    # workers' tracebacks (`excite --workers 2` likewise, its pool starting failing workers again)
    import numpy as np

    # two logs of a made-up motion (the workers fail before they read any; ../shared's measured data may be absent)
    t = np.arange(300) * 0.01
    phase = np.arange(1, 8) * 0.7
    logs = []
    for k in range(2):
        logs.append(tmp_path / f"log{k}.npz")
        w = 1.0 + k
        np.savez(logs[-1], times=t, positions=0.5 * np.sin(w * t[:, None] + phase),
                 velocities=0.5 * w * np.cos(w * t[:, None] + phase),
                 accelerations=-0.5 * w ** 2 * np.sin(w * t[:, None] + phase),
                 torques=np.cos(2 * t[:, None] + phase))
    (tmp_path / "sitecustomize.py").write_text(_BLOCKED_IN_WORKERS)
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}", BASEPARAM_CACHE_DIR="none")
    done = subprocess.run([sys.executable, "-m", "baseparam", "identify", str(ROOT / "robots" / "kuka_lwr4.yaml"),
                           *map(str, logs), "--workers", "2"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith("a worker process ended as it started (exit status 1; its own words, "
                                                 "if any, above): a limit of the process (ulimit -v, -u) or of the "
                                                 "machine, or an installation it cannot load; try one worker")


_CLI_UNREADABLE = """
import errno, os, sys
class _NoDescriptor:       # reading baseparam/cli.py meets the limit of open files (ulimit -n 5)
    def find_spec(self, name, path=None, target=None):
        if name == "baseparam.cli":
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), "baseparam/cli.py")
sys.meta_path.insert(0, _NoDescriptor())
sys.argv = ["baseparam", "--version"]
from baseparam._entry import main
main()
"""


def test_the_limit_of_open_files_met_while_the_command_line_loads_is_said_in_one_line(tmp_path):
    # `ulimit -n 5`: "OSError: [Errno 24] Too many open files: '…/baseparam/cli.py'" with its traceback, exit 1
    done = subprocess.run([sys.executable, "-c", _CLI_UNREADABLE], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("baseparam: too many open files")


def _stack_and_address_limited():      # a 64-processor machine's 64 default thread stacks, on two processors
    resource.setrlimit(resource.RLIMIT_STACK, (2**30, resource.getrlimit(resource.RLIMIT_STACK)[1]))
    resource.setrlimit(resource.RLIMIT_AS, (1500 * 2**20, resource.getrlimit(resource.RLIMIT_AS)[1]))


def test_the_thread_probe_under_an_address_space_limit_counts_the_one_blas_thread_the_run_will_have(tmp_path):
    # under ulimit -v, _blas.within_address_limit starts numpy's OpenBLAS on one thread (no stacks of its own); the
    # probe before it asked room for a stack per processor and refused the run: "cannot start a process or thread"
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("OpenBLAS starts no thread of its own on one processor")
    if resource.getrlimit(resource.RLIMIT_STACK)[1] not in (resource.RLIM_INFINITY,) and \
            resource.getrlimit(resource.RLIMIT_STACK)[1] < 2**30:
        pytest.skip("no stack of 1 GiB allowed")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS")}
    env.update(PYTHONPATH=str(ROOT), BASEPARAM_CACHE_DIR="none", OMP_NUM_THREADS="2")
    done = subprocess.run([sys.executable, "-m", "baseparam", "find", str(PLANAR), "--json", "-"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120, preexec_fn=_stack_and_address_limited)
    assert done.returncode == 0, done.stderr
    assert '"rank": 9' in done.stdout


def test_a_read_only_standard_output_is_said_as_such_not_as_closed(tmp_path):
    # `1</dev/null` (a read-only descriptor where the report goes) was said as "closed (started with >&-)"
    done = _baseparam(["find", str(PLANAR)], tmp_path, "1</dev/null")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "standard output is closed or read-only" in done.stderr and "1<FILE" in done.stderr


def test_a_report_to_a_non_blocking_pipe_is_written_whole(tmp_path):
    # a pipe its reader left O_NONBLOCK (shared with the reader's end, as Node's child_process leaves it) refused
    # every write beyond the pipe's room with EAGAIN; the last flush's was dropped: exit 0, the report cut short
    # (equations of the PUMA: 65 536 of 175 400 bytes). The pipe here holds one page, so a small report shows it.
    import fcntl
    import termios
    import time
    read_end, write_end = os.pipe()
    room = fcntl.fcntl(write_end, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
    os.set_blocking(write_end, False)
    env = dict(os.environ, PYTHONPATH=str(ROOT), BASEPARAM_CACHE_DIR="none")
    command = [sys.executable, "-m", "baseparam", "find", str(ROOT / "robots" / "space_robot.yaml"), "--json", "-"]
    run = subprocess.Popen(command, stdout=write_end, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    os.close(write_end)
    queued = bytearray(4)
    for _ in range(6000):            # until the pipe is full (the run waits on it, or gave up) or the run ended
        fcntl.ioctl(read_end, termios.FIONREAD, queued)
        if int.from_bytes(queued, sys.byteorder) >= room or run.poll() is not None:
            break
        time.sleep(0.01)
    with os.fdopen(read_end, "rb") as reader:
        report = reader.read()
    assert run.wait(timeout=120) == 0, run.stderr.read()
    whole = subprocess.run(command, capture_output=True, env=env, cwd=tmp_path, timeout=120).stdout
    assert len(whole) > room and report == whole
