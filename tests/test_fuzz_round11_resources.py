"""Regressions of issue 28's eleventh fuzzing round, over resources, links and signals of every command: outputs
given as links, folders, devices and other spellings of an input; small file systems; signals at random moments.
The fuzzer was a throwaway (the CLI in a subprocess, a signal or a full disk at a random moment); these are the
deterministic cases it found, each failing before its fix."""
import multiprocessing
import os
import signal
import sys
import time

import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification import _workers
from conftest import ROOT
from test_fuzz_round9 import _planar_log

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def test_a_stopped_reduction_of_logs_in_processes_does_not_wait_for_the_logs_in_progress(tmp_path, monkeypatch):
    """`identify --workers 2` took 1.6–3 s to stop after Ctrl-C (under load the entry point's watchdog ended it):
    the pool's shutdown waited for every log being reduced to finish. A stopped reduction now ends its workers:
    the long log's work is never completed (its marker file never written)."""
    marker = tmp_path / "finished"

    def reduce(log, folds):
        if log == "short":                       # the user presses Ctrl-C while the long log is being reduced
            os.kill(os.getppid(), signal.SIGINT)
        else:
            time.sleep(30)                       # far longer than the test: only its end would write the marker
            marker.write_text("done")
        return log

    # forked workers inherit the closure above (spawn would pickle it) and start in milliseconds
    fork = multiprocessing.get_context("fork")
    monkeypatch.setattr(_workers.multiprocessing, "get_context", lambda method: fork)
    monkeypatch.setattr(_workers, "one_blas_thread", lambda: None)
    with pytest.raises(KeyboardInterrupt):
        _workers._in_processes(["long", "short"], {"reduce": reduce}, [0, 0], 2, lambda done, total: None)
    assert not marker.exists()
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]


# -- a folder output named by a link is refused, as a file output is ---------------------------------------------
@pytest.mark.parametrize("spelling", ["out", "out/"])
@pytest.mark.parametrize("command", ["export", "excite"])
def test_a_folder_output_named_by_a_link_is_refused_before_the_work(tmp_path, monkeypatch, command, spelling):
    """`export --out LINK` and `excite --out LINK` (LINK a symbolic link to an existing folder) wrote into the
    folder it points to, while `--json LINK` is refused (docs/cli.md: an output name that is itself a symbolic
    link is never written through). Now the same one line, before any work (the projection, the search)."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("baseparam.projection.base_set.find_base_parameters", _no_work)
    monkeypatch.setattr("baseparam.excitation.design.design_excitation", _no_work)
    args = ["--lang", "c"] if command == "export" else []
    result = CliRunner().invoke(main, [command, str(PLANAR), *args, "--out", spelling])
    assert result.exit_code == 2 and result.output == (
        f"baseparam: {spelling}: --out: is a symbolic link (to '{real}'), which baseparam did not create; not "
        "written through (remove the link, or choose another folder)\n"), result.output
    assert list(real.iterdir()) == []


def test_export_of_the_python_api_into_a_link_to_a_folder_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real, target_is_directory=True)
    base = bp.find_base_parameters(bp.load_robot(PLANAR))
    with pytest.raises(bp.ExportError, match=r"out: out_dir: is a symbolic link \(to '.*real'\), which baseparam "
                                             r"did not create; not written through"):
        bp.export(base, "python", out_dir=tmp_path / "out")
    assert list(real.iterdir()) == [] and bp.export(base, "python", out_dir=real).files     # the folder itself: fine


@pytest.fixture(autouse=True)
def _lazy_names_resolved():
    """The package's lazy names (bp.design_excitation, …) resolved before a test patches their modules: resolved
    while patched, they would keep the patch in ``baseparam`` after the test (another test then runs _no_work)."""
    assert bp.find_base_parameters and bp.design_excitation and bp.load_robot


def _no_work(*args, **kwargs):
    raise AssertionError("the work ran before the outputs were checked")


@pytest.mark.parametrize("target", ["new.json", "old.json"])
def test_an_output_file_named_by_a_link_is_refused_before_the_work(tmp_path, monkeypatch, target):
    """`excite --json LINK` designed the whole trajectory (seconds to minutes) before the write refused the link;
    the link, a missing folder and a name ending in '/' are now all refused before the work."""
    (tmp_path / "old.json").write_text("old\n")
    (tmp_path / "link.json").symlink_to(tmp_path / target)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("baseparam.excitation.design.design_excitation", _no_work)
    result = CliRunner().invoke(main, ["excite", str(PLANAR), "--json", "link.json"])
    assert result.exit_code == 2 and result.output.startswith("baseparam: link.json: is a symbolic link (to "), \
        result.output
    assert (tmp_path / "old.json").read_text() == "old\n" and not (tmp_path / "new.json").exists()


# -- --max-memory and --max-disk: one wording, and units in good English -------------------------------------------
@pytest.mark.parametrize("flag, kind", [("--max-memory", "memory"), ("--max-disk", "disk")])
@pytest.mark.parametrize("value, problem", [("0", "expected a positive {} size, got '0'"),
                                            ("lots", "expected a {} size such as 4G, 512M or 2GiB, got 'lots'")])
def test_size_flags_are_refused_in_one_wording(tmp_path, flag, kind, value, problem):
    """`--max-memory 0` said click's "Invalid value for '--max-memory': …", `--max-disk 0` our "--max-disk: …
    memory size" (a disk size), and `--max-disk lots` without --h5 was taken silently."""
    result = CliRunner().invoke(main, ["find", str(PLANAR), flag, value])
    assert result.exit_code == 2 and result.output == f"baseparam: {flag}: {problem.format(kind)}\n", result.output


def test_a_budget_of_one_byte_is_said_in_the_singular():
    from baseparam._memory import format_size
    assert format_size(1) == "1 byte" and format_size(2) == "2 bytes" and format_size(0) == "0 bytes"


# -- a solver's Rust panic: its text kept off stderr, its message in our line --------------------------------------
PANIC_TEXT = (b"thread '<unnamed>' panicked at src/solver/core/cones/psdtrianglecone.rs:453:35:\n"
              b"Eigval error: Eigen(1)\n"
              b"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n")


class PanicException(BaseException):
    """pyo3's exception for a Rust panic (a BaseException; CLARABEL's is pyo3_runtime.PanicException)."""


class _Panicking:
    """A cvxpy problem whose solver prints on descriptor 2 (as native code does), then panics if told to."""

    def __init__(self, panics):
        self.panics = panics

    def solve(self, solver=None, **options):
        os.write(2, b"a line of the solver's own\n")
        if self.panics:
            os.write(2, PANIC_TEXT)
            raise PanicException("Eigval error: Eigen(1)")
        return 0.0


def test_a_solver_panic_is_a_solver_error_and_its_text_stays_off_stderr(capfd):
    """CLARABEL's panic (`--mass-bounds 1:1e300:1e301` before they were capped; a fit's PSD cone gone NaN) printed
    "thread '<unnamed>' panicked at …" and a Rust backtrace on stderr above our one line. The text is now held off
    stderr and the panic's message is in the error; what the solver printed before it still reaches stderr."""
    import cvxpy

    from baseparam._stderr import solve_clarabel
    with pytest.raises(cvxpy.SolverError, match=r"^CLARABEL panicked: Eigval error: Eigen\(1\)$"):
        solve_clarabel(_Panicking(True))
    assert capfd.readouterr().err == "a line of the solver's own\n"
    assert solve_clarabel(_Panicking(False)) == 0.0                  # no panic: nothing held back
    assert capfd.readouterr().err == "a line of the solver's own\n"


def test_stderr_held_is_given_back_on_an_interrupt_and_the_real_one_stays_writable(capfd):
    from baseparam import _stderr
    with pytest.raises(KeyboardInterrupt):
        with _stderr.native_stderr_held():
            os.write(2, b"said inside\n")
            os.write(_stderr.real_fd(), b"the watchdog's last line\n")     # straight to the real stderr
            raise KeyboardInterrupt
    assert capfd.readouterr().err == "the watchdog's last line\nsaid inside\n"
    assert _stderr.real_fd() == 2
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


def test_stderr_held_by_two_threads_at_once_is_given_back(capfd):
    """Two threads solving at once (a library user's thread pool): each hold saved descriptor 2 and restored what it
    had saved, so the second restored the first one's temporary file, and stderr stayed there for good (every later
    line lost) with real_fd naming a closed descriptor. One thread holds it at a time; the other's lines join the
    holder's and are given back with them."""
    import threading

    from baseparam import _stderr
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with _stderr.native_stderr_held():
            first_in.set()
            second_in.wait(10)
            os.write(2, b"first\n")
        first_out.set()

    def second():                  # holds while the first one ends its hold: not nested
        first_in.wait(10)
        with _stderr.native_stderr_held():
            second_in.set()
            first_out.wait(10)
            os.write(2, b"second\n")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert _stderr.real_fd() == 2
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "first\nsecond\nafter\n"


def test_a_panic_of_the_consistent_fit_is_said_in_its_one_line(tmp_path, monkeypatch, capfd):
    """`identify --method consistent` whose solver panics: one line naming the panic, no panic text on stderr."""
    import cvxpy

    monkeypatch.setattr(cvxpy.Problem, "solve", lambda self, *a, **k: _Panicking(True).solve())
    log = _planar_log(tmp_path)
    result = CliRunner().invoke(main, ["identify", str(PLANAR), str(log), "--method", "consistent"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1].endswith(
        "the consistent fit failed (solver status solver_error); CLARABEL panicked: Eigval error: Eigen(1)")
    assert "panicked at" not in capfd.readouterr().err


# -- sizes known before writing, checked against the free space; a failed write leaves nothing -------------------------
class _Usage:
    def __init__(self, free):
        self.total, self.used, self.free = 10**9, 10**9 - free, free


def test_text_outputs_larger_than_the_free_space_are_refused_before_writing(tmp_path, monkeypatch):
    """A full disk was found by the write ("No space left on device"); the texts' sizes are known, so the refusal
    now gives the figures, before any byte is written (also for a set of files: export's)."""
    from baseparam import _atomic
    monkeypatch.setattr("shutil.disk_usage", lambda path: _Usage(100))
    with pytest.raises(bp.errors.StorageError, match=r"a\.json: cannot write: 1 kB to write, 100 bytes free on its "
                                                     r"file system$"):
        _atomic.write_text(tmp_path / "a.json", "x" * 1000)
    with pytest.raises(bp.errors.StorageError, match=r"a\.c: cannot write: 120 bytes to write, 100 bytes free"):
        _atomic.write_texts({tmp_path / "a.c": "x" * 60, tmp_path / "a.h": "y" * 60})
    assert list(tmp_path.iterdir()) == []
    _atomic.write_text(tmp_path / "b.json", "x" * 100)                   # what fits is written
    assert (tmp_path / "b.json").read_text() == "x" * 100


def test_a_file_system_without_figures_is_not_taken_as_full(tmp_path, monkeypatch):
    """A FUSE mount that does not implement statfs says 0 bytes free of 0: taken at its word, the free-space checks
    refused every output written there (text, set of files, symbolic HDF5 file, find's HDF5 file) as larger than the
    free space, where the write itself succeeds. No figures: the check is left to the write."""
    from baseparam import _atomic
    no_figures = _Usage(0)
    no_figures.total = no_figures.used = 0
    monkeypatch.setattr("shutil.disk_usage", lambda path: no_figures)
    _atomic.write_text(tmp_path / "a.json", "x" * 1000)
    _atomic.write_texts({tmp_path / "a.c": "x" * 60, tmp_path / "a.h": "y" * 60})
    assert (tmp_path / "a.json").read_text() == "x" * 1000 and (tmp_path / "a.h").read_text() == "y" * 60
    monkeypatch.chdir(tmp_path)
    for args in (["--symbolic", "all", "--h5", "s.h5"], ["--h5", "z.h5"]):
        result = CliRunner().invoke(main, ["find", str(PLANAR), *args])
        assert result.exit_code == 0, result.output
    assert (tmp_path / "s.h5").is_file() and (tmp_path / "z.h5").is_file()


def test_a_compressed_bag_file_is_not_refused_for_a_temporary_folder_without_figures(tmp_path, monkeypatch):
    """The same for a whole-file compressed bag's unpacking: a temporary folder whose file system says 0 bytes of 0
    refused every such bag ("decompresses to more than the 0 bytes free in the temporary folder"); the bomb check
    (1000 times its size) still applies, and a real lack of space is still said."""
    import zstandard

    from baseparam.identification._bag_files import _check_compressed_file
    path = tmp_path / "log.db3.zstd"
    path.write_bytes(zstandard.ZstdCompressor().compress(bytes(range(256)) * 40))
    no_figures = _Usage(0)
    no_figures.total = no_figures.used = 0
    monkeypatch.setattr("shutil.disk_usage", lambda path: no_figures)
    _check_compressed_file(path, "bag")
    monkeypatch.setattr("shutil.disk_usage", lambda path: _Usage(100))
    with pytest.raises(bp.DataError, match="more than the 100 bytes free in the temporary folder"):
        _check_compressed_file(path, "bag")


def test_export_that_cannot_write_leaves_no_folder_it_made(tmp_path, monkeypatch):
    """`export --out new/sub` on a full disk left the empty folders it had made for its files."""
    base = bp.find_base_parameters(bp.load_robot(PLANAR))

    def full(files):
        raise bp.errors.StorageError(f"{next(iter(files))}: cannot write (No space left on device)")

    monkeypatch.setattr("baseparam.codegen._export.write_texts", full)
    (tmp_path / "old").mkdir()
    for out in (tmp_path / "new" / "sub", tmp_path / "old" / "sub"):
        with pytest.raises(bp.errors.StorageError, match="No space left on device"):
            bp.export(base, "c", out_dir=out)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["old"]        # the user's own folder stays


def test_symbolic_h5_is_sized_before_it_is_written(tmp_path, monkeypatch):
    """`find --symbolic all --h5` had no size check: on a nearly full disk HDF5 failed mid-write with dozens of
    "Exception ignored in h5py._objects.ObjectID.__dealloc__" tracebacks (and once a segmentation fault), and
    --max-disk was ignored. Its size is now estimated from its strings and refused beyond either, before writing."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["find", str(PLANAR), "--symbolic", "all", "--h5", "s.h5", "--max-disk", "10k"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1].endswith(
        "the file of the symbolic regroupings would take up to about 53.8 kB on disk, more than the 10 kB allowed "
        "(the --max-disk given)"), result.output
    assert list(tmp_path.iterdir()) == []


def test_hdf5_write_failure_is_said_as_the_systems_reason():
    """HDF5's report (a time, the temporary file's name, a buffer address) became the one line; now its errno."""
    from baseparam._output_names import _one_line
    text = ("Unable to synchronously create file (file write failed: time = Fri Nov 27 14:00:41 2026\n, filename = "
            "'/tmp/.baseparam-1-0123456789abcdef.h5.tmp', file descriptor = 5, errno = 28, error message = 'No space "
            "left on device', buf = 0x55e74b165138, total write size = 96, bytes this sub-write = 96, offset = 0)")
    assert _one_line(OSError(text)) == "No space left on device"


# -- SIGKILL, then a rerun: the killed run's temporary file is said ---------------------------------------------------
def test_a_killed_runs_young_temporary_file_is_reported_by_the_next_write(tmp_path):
    """`find --h5` killed (SIGKILL runs no cleanup) left its `.baseparam-PID-….h5.tmp`; a rerun at once kept it
    (younger than 10 minutes: a run on another machine sharing the folder may be writing it) and said nothing.
    The rerun now says it, once, with what will happen to it."""
    import warnings

    from baseparam._atomic import write_text
    gone = 4_194_305                         # above Linux's largest process id: no process has it
    left = tmp_path / f".baseparam-{gone}-0123456789abcdef.h5.tmp"
    left.write_bytes(b"half an HDF5 file")
    with pytest.warns(UserWarning, match=rf"\.baseparam-{gone}-0123456789abcdef\.h5\.tmp: a temporary file of an "
                                         rf"earlier run \(process {gone}, not running on this machine: killed, or "
                                         r"another machine's writer\?\); removed once unchanged for 10 minutes, or "
                                         r"remove it yourself$"):
        write_text(tmp_path / "a.json", "{}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_text(tmp_path / "b.json", "{}\n")                           # said once
    assert left.exists()


def test_a_figure_larger_than_the_free_space_is_refused_before_writing(tmp_path, monkeypatch):
    """A figure is rendered in memory first: its size is known before the write, and checked as a text's is."""
    from baseparam._figures import pyplot, save_figure
    figure = pyplot().figure(figsize=(1, 1))
    monkeypatch.setattr("shutil.disk_usage", lambda path: _Usage(10))
    with pytest.raises(bp.errors.StorageError, match=r"a\.png: cannot write: .* to write, 10 bytes free on its file "
                                                     r"system$"):
        save_figure(figure, tmp_path / "a.png", dpi=10)
    assert list(tmp_path.iterdir()) == []


def test_export_whose_run_fails_after_its_files_are_staged_leaves_no_folder(tmp_path, monkeypatch):
    """`export --out new/sub` stopped by SIGTERM after its files were staged (put in place with the command's end)
    left the folders made for them: the command's discarded outputs now take those folders with them."""
    from baseparam.codegen import _export
    real = _export.export

    def then_fails(*args, **kwargs):
        real(*args, **kwargs)
        raise bp.errors.StorageError("stopped after the files were staged")

    monkeypatch.setattr(_export, "export", then_fails)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["export", str(PLANAR), "--lang", "c", "--out", "new/sub"])
    assert result.exit_code == 2 and result.output == "baseparam: stopped after the files were staged\n", \
        result.output
    assert list(tmp_path.iterdir()) == []


def test_excite_into_a_new_folder_that_fails_leaves_no_folder(tmp_path, monkeypatch):
    """`excite --out new/` makes the folder for ROBOT_excite.csv; a write that then failed (a full disk, a signal)
    left it behind, empty."""
    class Design:
        def to_csv(self, path):
            raise bp.errors.StorageError(f"{path}: cannot write (No space left on device)")

        to_dict = plot = summary = _no_work

    monkeypatch.setattr("baseparam.excitation.design.design_excitation", lambda *a, **k: Design())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["excite", str(PLANAR), "--out", "new/"])
    assert result.exit_code == 2 and "No space left on device" in result.output, result.output
    assert list(tmp_path.iterdir()) == []


# -- third-party imports that swallow a signal: the signal held and delivered after them -----------------------------
def test_a_signal_during_an_import_that_swallows_it_is_delivered_after_the_import(tmp_path, monkeypatch):
    """Ctrl-C or SIGTERM while pyarrow imported pandas, or while scipy.signal initialised (`identify` of a Parquet
    log), was lost in their Cython modules (the run went on: its outputs written, the watchdog ending it 3 s later
    with status 130), or became "internal error: SystemError: … returned a result with an exception set". These
    imports now run where no signal's exception can land (held, then in a helper thread: round fourteen), and the
    signal still reaches its handler. The signal is sent to the process, as a Ctrl-C or SIGTERM is."""
    import importlib

    from baseparam._processes import import_held
    (tmp_path / "swallows_ctrl_c.py").write_text(
        "import os, signal, time\ntry:\n    os.kill(os.getpid(), signal.SIGINT)\n    time.sleep(0.2)\n    done = True\n"
        "except KeyboardInterrupt:\n    done = False\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "swallows_ctrl_c", raising=False)
    with pytest.raises(KeyboardInterrupt):
        import_held("swallows_ctrl_c")
    assert importlib.import_module("swallows_ctrl_c").done     # the module ran to its end, not interrupted
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_held_import_waits_for_the_same_import_in_another_thread(tmp_path, monkeypatch):
    """import_held returned whatever sys.modules held: a module that another thread was still importing (two threads
    filtering their first logs at once, scipy.signal) came back half-initialised, and its first attribute was an
    AttributeError. It is now waited for, as an import statement waits."""
    import threading

    from baseparam._processes import import_held
    (tmp_path / "slow_to_import.py").write_text("import time\ntime.sleep(0.5)\nVALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slow_to_import", raising=False)
    other = threading.Thread(target=import_held, args=("slow_to_import",))
    other.start()
    while "slow_to_import" not in sys.modules and other.is_alive():
        time.sleep(0.001)
    assert import_held("slow_to_import").VALUE == 42
    other.join()


def test_a_held_sigterm_is_heard_once_by_the_entry_points_watchdog(tmp_path):
    """A SIGTERM held over an import was raised again when the import ended: the entry point's watchdog heard it a
    second time, took it for a user who insists, and ended the process at once, cutting the clean-up the first one
    had started (the grace is seconds). The held signal now goes to its handler as Python calls it: heard once."""
    import subprocess

    script = tmp_path / "held.py"
    script.write_text(
        "import signal, sys, time\n"
        "from baseparam import _entry, cli\n"
        "from baseparam._processes import signals_held\n"
        "_entry._install(_entry._on_signal)\n_entry._start_watchdog()\n_entry._PHASE[0] = 'running'\n"
        "try:\n"
        "    with signals_held():\n"
        "        signal.raise_signal(signal.SIGTERM)\n"
        "except cli._Terminated:\n"
        "    time.sleep(0.5)          # the clean-up\n"
        "    print('cleaned up', list(_entry._HEARD))\n")
    env = {**os.environ, "BASEPARAM_SIGNAL_GRACE": "30", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout == f"cleaned up [{int(signal.SIGTERM)}]\n", (done.returncode, done.stderr)


def test_ctrl_c_is_said_in_one_line_without_a_blank_one(monkeypatch):
    """Every Ctrl-C printed a blank line before `baseparam: interrupted` (click's own handling of a
    KeyboardInterrupt, meant to move past a terminal's ^C): two lines on stderr."""
    from baseparam import cli
    stops = []

    def stopped(message, code):         # the real one ends the process (os._exit)
        stops.append((message, code))
        raise SystemExit(code)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_stopped", stopped)
    monkeypatch.setattr("baseparam.model.loading.load_robot", interrupted)
    result = CliRunner().invoke(main, ["find", str(PLANAR)])
    assert stops == [("interrupted", 130)] and result.exit_code == 130 and result.output == "", repr(result.output)


@pytest.mark.parametrize("args, said", [
    (["find", str(PLANAR), "--json", "folder"], "folder: --json: is a directory, expected a file name"),
    (["export", str(PLANAR), "--lang", "c", "--out", "file"], "file: --out: not a directory"),
    (["find", "folder"], "folder: ROBOT_FILE: is a directory, expected a file name"),
])
def test_a_folder_for_a_file_output_is_refused_in_the_writes_own_words(tmp_path, monkeypatch, args, said):
    """`--json FOLDER` was refused by click ("Invalid value for '--json': File 'FOLDER' is a directory."), the same
    folder reached through the library by ours ("FOLDER: is a directory, expected a file name"): one wording now."""
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and result.output == f"baseparam: {said}\n", result.output


HDF5_FULL = ("Can't decrement id ref count (file write failed: time = Fri Nov 27 14:58:16 2026\n, filename = "
             "'/tmp/.baseparam-1-0123456789abcdef.h5.tmp', file descriptor = 5, errno = 28, error message = 'No space "
             "left on device', buf = 0x55a33b3b7218, total write size = 17280, bytes this sub-write = 17280)")


class _FailsWhenFreed:
    """What an h5py object does when the disk filled under it: its deallocation raises, Python reports it."""

    def __del__(self):
        raise RuntimeError(HDF5_FULL)


def test_a_disk_filled_during_an_hdf5_write_is_one_storage_error(capsys, tmp_path):
    """`find --h5` while another program filled the disk: "internal error: RuntimeError: Can't decrement id ref
    count (file write failed: …)", exit 1, after dozens of h5py tracebacks (through sys.excepthook, then "Exception
    ignored in h5py._objects.ObjectID.__dealloc__"); a failure seen only in a deallocation left the block
    apparently successful. Now one StorageError naming the output, whichever way h5py reported it."""
    from baseparam._hdf5 import writes_checked
    hooks = sys.unraisablehook, sys.excepthook
    with pytest.raises(bp.errors.StorageError, match=r"^out\.h5: cannot write \(No space left on device\)$"):
        with writes_checked("out.h5", tmp_path / "out.h5.tmp"):
            raise RuntimeError(HDF5_FULL)
    with pytest.raises(bp.errors.StorageError, match=r"^out\.h5: cannot write \(No space left on device\)$"):
        with writes_checked("out.h5", tmp_path / "out.h5.tmp"):
            freed = _FailsWhenFreed()
            del freed
            sys.excepthook(RuntimeError, RuntimeError(HDF5_FULL), None)
    assert capsys.readouterr().err == ""
    with writes_checked("out.h5", tmp_path / "out.h5.tmp"):      # nothing failed: nothing said
        pass
    assert (sys.unraisablehook, sys.excepthook) == hooks


def test_hdf5_writes_of_two_threads_give_the_hooks_back_and_keep_their_own_failures(tmp_path):
    """Two threads writing HDF5 files at once (a library user's pool), their blocks not nested: each block saved the
    hooks in place and set back what it had saved, so the first one's hook stayed in place for good (a later disk
    full said by nothing). The hooks are now given back when the last block ends, and a failure reported in one
    thread is that thread's block's."""
    import threading

    from baseparam._hdf5 import writes_checked
    hooks = sys.unraisablehook, sys.excepthook
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    outcome = {}

    def first():
        with writes_checked("first.h5", tmp_path / "first.h5.tmp"):
            first_in.set()
            second_in.wait(10)
        first_out.set()
        outcome["first"] = "written"

    def second():
        first_in.wait(10)
        try:
            with writes_checked("second.h5", tmp_path / "second.h5.tmp"):
                second_in.set()
                first_out.wait(10)
                freed = _FailsWhenFreed()
                del freed
        except bp.errors.StorageError as exc:
            outcome["second"] = str(exc)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcome == {"first": "written", "second": "second.h5: cannot write (No space left on device)"}
    assert (sys.unraisablehook, sys.excepthook) == hooks
