"""Regressions of issue 28's fourteenth fuzzing round over resources, processes, signals and disks (helper fres):
output folders on read-only or full file systems, `excite`/`identify` workers whose caller is killed, the resource
tracker after a kill or a hangup, C compiles cut short, an address-space limit. The fuzz drivers were throwaways
(every writing command into read-only and full tmpfs mounts, under TMPDIR/HOME missing or read-only and small
ulimits, SIGINT/SIGTERM/SIGHUP/SIGKILL at random moments); these are the deterministic cases they found, each failing
before its fix."""
from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from baseparam import _output_names
from baseparam.cli import main
from conftest import one_line

ROOT = Path(__file__).resolve().parents[1]
PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))

posix = pytest.mark.skipif(sys.platform == "win32" or not hasattr(signal, "SIGHUP"), reason="POSIX signals")
Usage = collections.namedtuple("Usage", "total used free")


# -- an output folder that cannot take the output: refused before the work ---------------------------------------
def _read_only_below(monkeypatch, folder):
    """Make ``folder`` look like a read-only mount to statvfs (root writes through permission bits)."""
    real = os.statvfs

    def statvfs(path):
        info = real(path)
        if os.path.realpath(os.fspath(path)).startswith(str(folder)):
            fields = list(info)
            fields[8] |= os.ST_RDONLY
            return os.statvfs_result(fields)
        return info
    monkeypatch.setattr(os, "statvfs", statvfs)


def _full_below(monkeypatch, folder):
    """Make ``folder``'s file system look full (no byte free, for any user)."""
    import shutil
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(10**9, 10**9, 0)
                        if os.path.realpath(os.fspath(path)).startswith(str(folder)) else real(path))


def _no_work(monkeypatch):
    """The commands' work, made to fail loudly: a refusal that comes after it names this instead of the output."""
    def work(*args, **kwargs):
        raise RuntimeError("the work started")
    from baseparam.excitation import design
    from baseparam.projection import base_set
    monkeypatch.setattr(design, "design_excitation", work)
    monkeypatch.setattr(base_set, "find_base_parameters", work)


@pytest.mark.skipif(not hasattr(os, "statvfs") or not hasattr(os, "ST_RDONLY"), reason="statvfs")
@pytest.mark.parametrize("disk, reason", [("read-only", "Read-only file system"),
                                          ("full", "No space left on device: 0 bytes free")])
@pytest.mark.parametrize("args", [["excite", PLANAR, "--json", "{D}/x.json"],
                                  ["excite", PLANAR, "--out", "{D}/new/"],
                                  ["find", PLANAR, "--h5", "{D}/z.h5"],
                                  ["export", PLANAR, "--lang", "c", "--out", "{D}/gen"]],
                         ids=["excite --json", "excite --out NEW/", "find --h5", "export --out NEW"])
def test_an_output_folder_that_cannot_take_it_is_refused_before_the_work(tmp_path, monkeypatch, disk, reason, args):
    """Every writing command into a read-only mount or a full disk worked first (an `identify` fit, an `excite`
    design: seconds to minutes) and was refused only by the write ("cannot write here (Read-only file system)");
    `find --h5` into a read-only mount was refused for the free space its file would need. Both can be known before
    the work: the folder's file system (or, for a folder still to be made, the nearest existing one's) is
    read-only, not writable by us, or has no byte or inode free."""
    folder = tmp_path / disk
    folder.mkdir()
    (_read_only_below if disk == "read-only" else _full_below)(monkeypatch, folder)
    _no_work(monkeypatch)
    result = CliRunner().invoke(main, [a.replace("{D}", str(folder)) for a in args])
    one_line(result, str(folder), reason)
    assert os.listdir(folder) == []


def test_the_python_export_refuses_a_read_only_folder_before_writing(tmp_path, monkeypatch):
    """`bp.export` into a folder of a read-only file system said so only when its files were written."""
    import baseparam as bp
    from baseparam.codegen._export import check_out_dir

    _read_only_below(monkeypatch, tmp_path)
    with pytest.raises(bp.errors.ExportError, match=r"out_dir: cannot write here \(Read-only file system\)$"):
        check_out_dir(tmp_path)


def test_the_superuser_counts_the_blocks_kept_for_it_as_free(monkeypatch):
    """ext4 keeps 5 % of its blocks for the superuser: counted as used, a root run on a disk full for other users
    was refused every write (and now, before the work, as "0 bytes free") that the disk could take."""
    import shutil
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(1000, 900, 0))
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert _output_names.free_space("/x/y") == 100
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert _output_names.free_space("/x/y") == 0


# -- workers whose caller is killed: nothing on the terminal, nothing left --------------------------------------
# A caller of excite's pool whose spawned worker never reads its start-up data (a program that only sleeps): with
# the problem in that data (a megabyte here; ~70 kB for the KUKA LWR4+), the caller waited in the write, and a kill
# then left the worker to print "UnpicklingError: pickle data was truncated"; the pool is now made at once.
_SLOW_WORKER = """
import multiprocessing, os, signal, sys
from baseparam.excitation import _search
spawn = multiprocessing.get_context("spawn")
spawn.set_executable(sys.argv[1])

class Context:
    def __getattr__(self, name):
        return getattr(spawn, name)

    def Pool(self, *args, **kwargs):
        pool = spawn.Pool(*args, **kwargs)
        print("pool made", flush=True)
        os.killpg(0, signal.SIGKILL)            # the caller, its workers and their tracker (a session of their own)

_search.multiprocessing.get_context = lambda method: Context()
_search._in_pool(bytes(2**20), 1, 0, 1, None, None, None)
"""


@posix
def test_excite_workers_start_up_data_does_not_hold_the_problem(tmp_path):
    """SIGKILL of `excite --workers 2` while its pool started: its workers printed "UnpicklingError: pickle data was
    truncated" tracebacks (3 of 8 kills) — the caller was killed in the middle of writing a worker's start-up data,
    which held the whole problem. The problem now goes to the workers through a queue of its own (read in their
    initializer, after end_with_caller), and the pool is made without waiting for its workers to read."""
    worker = tmp_path / "worker"
    worker.write_text("#!/bin/sh\nexec sleep 60\n")
    worker.chmod(0o755)
    caller = subprocess.Popen([sys.executable, "-c", _SLOW_WORKER, str(worker)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=ENV, start_new_session=True)
    try:
        out, err = caller.communicate(timeout=120)       # a hang guard only: the old code never returned
    except subprocess.TimeoutExpired:
        os.killpg(caller.pid, signal.SIGKILL)
        out, err = caller.communicate()
    assert out == "pool made\n", err


# A caller killed by SIGKILL after making a pool's semaphore (the tracker started as the workers' is), and after a
# hangup sent to the tracker (a closed terminal's reaches the whole process group).
_KILLED_TRACKED = """
import multiprocessing, os, signal, time
from multiprocessing import resource_tracker
from baseparam._processes import workers_born_deaf
with workers_born_deaf():
    pass
os.kill(resource_tracker._resource_tracker._pid, signal.SIGHUP)
time.sleep(0.3)                                   # the hangup delivered (the old tracker ended by it)
lock = multiprocessing.get_context("spawn").Lock()
os.kill(os.getpid(), signal.SIGKILL)
"""


@posix
def test_the_resource_tracker_says_nothing_when_its_caller_is_killed_or_hung_up():
    """After a SIGKILL of `excite --workers 2` (or the out-of-memory killer), multiprocessing's resource tracker
    cleaned up the pool's semaphores and printed "UserWarning: resource_tracker: There appear to be 9 leaked
    semaphore objects to clean up at shutdown" with its source line on the terminal, after the run had gone; a
    hangup of the run's process group ended the tracker, and the relaunched one printed a KeyError traceback per
    semaphore. The tracker is started told not to warn, and with SIGHUP held."""
    killed = subprocess.run([sys.executable, "-c", _KILLED_TRACKED], capture_output=True, text=True, env=ENV,
                            timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert killed.stderr == ""


# A worker (its initializer's first step run) compiling a kernel without a disk cache, sent SIGTERM as its pool's
# terminate() sends it: the folder's name on stdout.
_STOPPED_WORKER = """
import os, signal, sys, tempfile
from baseparam._processes import deaf_to_interrupts
from baseparam.dynamics import _native
deaf_to_interrupts()
with _native._scratch(tempfile.gettempdir(), _native.NO_CACHE) as scratch:
    print(scratch, flush=True)
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    signal.pause()
"""


@posix
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_stopped_worker_removes_its_compile_folder(tmp_path, name):
    """`excite` stopped while its worker compiled a kernel (BASEPARAM_CACHE_DIR=none) left
    $TMPDIR/baseparam-kernel-PID-…/tmp-kernel-…/kernel.c and kernel.so: the pool's terminate() ended the worker by
    the system's default action, and its compiler, orphaned, finished. A worker now ends through a handler that
    stops the compile and removes the folder."""
    run = subprocess.run([sys.executable, "-c", _STOPPED_WORKER, name], capture_output=True, text=True,
                         env=dict(ENV, TMPDIR=str(tmp_path)), timeout=120)
    assert run.returncode == 128 + getattr(signal, name), run.stderr
    assert run.stdout.strip().startswith(str(tmp_path))
    assert os.listdir(tmp_path) == []


class _Stop(Exception):
    pass


@posix
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")
def test_a_compile_cut_short_stops_the_compilers_whole_group(tmp_path):
    """Ctrl-C during a compile: subprocess.run killed the compiler driver alone, by SIGKILL, so its own children
    (cc1, as) went on writing ($TMPDIR/cc*.s, kernel.so in a scratch folder already removed) and the driver could
    not remove its temporary files. The whole group now gets SIGTERM (the driver's clean-up signal)."""
    from baseparam.dynamics import _native

    marker = tmp_path / "child"
    driver = [sys.executable, "-c", "import subprocess, sys, time; "
              f"child = subprocess.Popen(['sleep', '60']); open({str(marker)!r}, 'w').write(str(child.pid)); "
              "time.sleep(60)"]

    def stop(signum, frame):
        if marker.exists() and marker.read_text():
            raise _Stop
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
    try:
        with pytest.raises(_Stop):
            _native._run_compiler(driver)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    child = int(marker.read_text())

    def running():
        try:
            with open(f"/proc/{child}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    import time
    for _ in range(600):                # a hang guard only: the signal is delivered as soon as it is scheduled
        if not running():
            break
        time.sleep(0.05)
    alive = running()
    if alive:                           # never a second look: its id, once free, may be another's
        os.kill(child, signal.SIGKILL)
    assert not alive


# -- a limit of the process (ulimit -v, ulimit -n) met: one line, status 2 -------------------------------------------
@pytest.mark.parametrize("error, words", [
    (ImportError("libquadmath-828275a7.so.0.0.0: failed to map segment from shared object"),
     ("out of memory", "failed to map segment")),
    (OSError(24, "Too many open files"), ("too many open files",))], ids=["ulimit -v", "ulimit -n"])
def test_a_limit_of_the_process_met_is_said_as_such(monkeypatch, error, words):
    """Under `ulimit -v 400M`, `identify` ended "internal error: ImportError: …/_dfitpack….so: failed to map segment
    from shared object", exit 1 (and a MemoryError raised by an import outside the command's block was a traceback);
    under `ulimit -n 16`, `identify --workers 2` said "ROBOT.yaml: Too many open files", blaming the robot file. The
    machine's limits, not a bug nor the file: said as such."""
    from baseparam.model import loading

    def exhausted(*args, **kwargs):
        raise error
    monkeypatch.setattr(loading, "load_robot", exhausted)
    one_line(CliRunner().invoke(main, ["describe", PLANAR]), *words)


_MEMORY_AT_IMPORT = """
from baseparam import _entry, cli
def run():
    raise MemoryError
cli.main = run
_entry.main()
"""


@posix
def test_memory_exhausted_outside_a_command_block_is_one_line():
    run = subprocess.run([sys.executable, "-c", _MEMORY_AT_IMPORT], capture_output=True, text=True, env=ENV,
                         timeout=120)
    assert run.returncode == 2
    assert run.stderr.startswith("baseparam: out of memory (MemoryError") and run.stderr.count("\n") == 1, \
        run.stderr


@posix
def test_a_stopped_pools_worker_still_starting_is_killed_after_a_grace():
    """`identify --workers 2` (and `excite --workers 2`) stopped while a worker started took 0.6–1.6 s under load:
    the worker holds its stopping signals until its initializer (workers_born_deaf), so the pool's SIGTERM waited
    for its whole start-up (numpy's and scipy's imports). A stopped pool's clean-up now kills (SIGKILL) the workers
    that have not ended 0.3 s after it began."""
    from baseparam._processes import killed_if_slow, workers_born_deaf

    with workers_born_deaf():
        starting = subprocess.Popen(["sleep", "60"])         # born with SIGTERM held, as a starting worker
    try:
        with killed_if_slow(lambda: [starting]):
            starting.terminate()                             # held: only the kill ends it
            status = starting.wait(timeout=60)               # a hang guard only
    finally:
        starting.kill()
        starting.wait()
    assert status == -signal.SIGKILL


def test_a_signal_during_a_slow_held_import_is_heard_at_once(tmp_path, monkeypatch):
    """A Ctrl-C or SIGTERM while `identify` imported scipy.signal (its filter) waited for the import's end, held so
    that its Cython modules could not lose it: 1.1–1.7 s under load, the fuzzer's slowest stops. The import now runs
    in a helper thread, where no signal's exception can land, while the caller hears the signal at once."""
    import builtins
    import importlib
    import threading

    from baseparam._processes import import_held
    gate = threading.Event()
    monkeypatch.setattr(builtins, "_baseparam_test_gate", gate, raising=False)
    (tmp_path / "slow_to_import.py").write_text(
        "import builtins, os, signal\nos.kill(os.getpid(), signal.SIGINT)\nbuiltins._baseparam_test_gate.wait(30)\n"
        "done = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slow_to_import", raising=False)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            import_held("slow_to_import")
        heard_during_the_import = not hasattr(sys.modules.get("slow_to_import"), "done")
    finally:
        gate.set()
        signal.signal(signal.SIGINT, previous)
    assert heard_during_the_import
    assert importlib.import_module("slow_to_import").done       # and the import went on to its end, unharmed


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="/dev/full")
def test_an_hdf5_output_on_a_full_device_is_said_once():
    """`find --h5 /dev/full` said "/dev/full: cannot write (/dev/full: cannot write (No space left on device))": the
    HDF5 write's own refusal, already naming the output, was wrapped again by the special file's."""
    result = CliRunner().invoke(main, ["find", PLANAR, "--h5", "/dev/full"])
    one_line(result, "/dev/full: cannot write (No space left on device)")
    assert result.output.count("cannot write") == 1


def test_a_held_import_is_made_where_no_thread_can_be_started(tmp_path, monkeypatch):
    """Review of round fourteen: import_held's helper thread met a limit of threads (a container's pids.max,
    `ulimit -u`): "RuntimeError: can't start new thread" was raised from `identify`'s filter, an import the caller's
    own thread could make. The import is then made there, its signals held (as before the helper)."""
    import threading

    from baseparam._processes import import_held
    start = threading.Thread.start

    def limited(self):
        if self.name.startswith("baseparam-import-"):
            raise RuntimeError("can't start new thread")
        return start(self)
    monkeypatch.setattr(threading.Thread, "start", limited)
    (tmp_path / "imported_without_a_thread.py").write_text("import threading\nthread = threading.current_thread()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "imported_without_a_thread", raising=False)
    assert import_held("imported_without_a_thread").thread is threading.current_thread()


# A module that makes a held import at its own import, of a module that imports it back (a circular import).
_IMPORTING = """
import sys
sys.path.insert(0, sys.argv[1])
import circular_a
print(circular_a.B.__name__, flush=True)
"""


def test_a_held_import_made_during_an_import_of_a_module_it_needs_does_not_hang(tmp_path):
    """Review of round fourteen: import_held's helper thread, importing a module that imports the one the caller's
    thread was importing, waited for that module's import lock, held by the caller waiting for the helper: a hang
    that Python's import deadlock detection cannot see (the caller waits in a join, not on a lock of the import). In
    one thread, as before the helper, the circular import resolves as an import statement's does."""
    (tmp_path / "circular_a.py").write_text(
        "from baseparam._processes import import_held\nB = import_held('circular_b')\n")
    (tmp_path / "circular_b.py").write_text("import circular_a\n")
    try:
        run = subprocess.run([sys.executable, "-c", _IMPORTING, str(tmp_path)], capture_output=True, text=True,
                             env=ENV, timeout=120)       # a hang guard only: the import takes milliseconds
    except subprocess.TimeoutExpired:
        pytest.fail("the held import hung")
    assert (run.returncode, run.stdout) == (0, "circular_b\n"), run.stderr


def test_the_systems_open_file_table_full_is_not_said_as_this_processes_limit():
    """Review of round fourteen: ENFILE (the system's open-file table full, fs.file-max) was said as this process's
    `ulimit -n`, which the user would raise in vain."""
    import errno

    from baseparam.errors import resource_exhausted
    line = resource_exhausted(OSError(errno.ENFILE, "Too many open files in system"))
    assert "in the system" in line and "ulimit -n" not in line
