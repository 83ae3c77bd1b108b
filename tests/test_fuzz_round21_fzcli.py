"""Fuzz round 21, the command line (fzcli): what the fuzzing of every command, option, environment, output and signal
found, each test failing on the code before its fix."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A run stopped while its pool's workers still start (a second Ctrl-C, SIGTERM or SIGHUP to `identify --workers 2`
# or `excite --workers 2`): the way out unlinked the pool's semaphores before ending the workers, and a worker still
# reading its start-up data (which names them) printed a 12-line FileNotFoundError traceback under the run's one line
# (8 runs in 10 of `identify --workers 2` given two SIGHUPs once its workers existed). The worker below is held in
# its start-up, just before the semaphore in its start-up data, until that semaphore is unlinked.
_STOPPED_WHILE_A_WORKER_STARTS = textwrap.dedent("""
    import multiprocessing
    import os
    import sys
    import time

    from baseparam._processes import workers_born_deaf


    def held_until_unlinked(path):
        end = time.monotonic() + 30
        while os.path.exists(path) and time.monotonic() < end:
            time.sleep(0.005)


    class Gate:
        def __init__(self, path):
            self.path = path

        def __reduce__(self):
            return held_until_unlinked, (self.path,)


    def idle(*args):
        pass


    if __name__ == "__main__":
        context = multiprocessing.get_context("spawn")
        lock = context.Lock()
        path = "/dev/shm/sem." + lock._semlock.name.lstrip("/")
        assert os.path.exists(path), path
        with workers_born_deaf():
            child = context.Process(target=idle, args=(Gate(path), lock))
            child.start()
        if sys.argv[1] == "stopped":
            from baseparam import cli
            cli._stopped("interrupted", 130)
        from baseparam import _entry
        _entry._stop_workers()
        child.join(30)
        print("worker", child.exitcode, flush=True)
        os._exit(143)
""")


@pytest.mark.skipif(sys.platform != "linux" or not Path("/dev/shm").is_dir(), reason="named semaphores in /dev/shm")
@pytest.mark.parametrize("way_out", ["stopped", "forced"])
def test_workers_still_starting_are_ended_before_their_semaphores_are_unlinked(tmp_path, way_out):
    script = tmp_path / "stop.py"
    script.write_text(_STOPPED_WHILE_A_WORKER_STARTS)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, str(script), way_out], capture_output=True, text=True, env=env,
                            timeout=120)
    assert "Traceback" not in result.stderr and "FileNotFoundError" not in result.stderr, result.stderr
    if way_out == "stopped":
        assert result.returncode == 130 and result.stderr == "baseparam: interrupted\n"
    else:       # the watchdog's forced end: the worker ended (killed: it held SIGTERM as it started), said nothing
        assert result.returncode == 143 and result.stdout.split()[:1] == ["worker"], result.stdout
        assert int(result.stdout.split()[1]) < 0, result.stdout


# `MPLCONFIGDIR` naming a file (or a path under one): matplotlib, imported for --plot, printed two lines of its own
# ("mkdir -p failed for path …", "Matplotlib created a temporary cache directory at …") beside the command's; the
# command line now says it in one line of its own and gives matplotlib its private folder, the user's value put back.
_PLOT_WITH_A_FILE_AS_MPLCONFIGDIR = textwrap.dedent("""
    import os
    import warnings

    from baseparam._figures import pyplot

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pyplot(private=True)
    print(os.environ["MPLCONFIGDIR"])
    for warning in caught:
        print(warning.category.__name__, warning.message)
""")


def test_an_mplconfigdir_matplotlib_cannot_write_is_said_in_one_line_of_ours(tmp_path):
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLCONFIGDIR=str(a_file), TMPDIR=str(scratch))
    env.pop("MPLBACKEND", None)
    result = subprocess.run([sys.executable, "-c", _PLOT_WITH_A_FILE_AS_MPLCONFIGDIR], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == str(a_file)                      # the user's value, put back for the processes the run starts
    assert len(lines) == 2 and lines[1].startswith("UserWarning MPLCONFIGDIR: ") and "no folder" in lines[1], lines
    assert list(scratch.iterdir()) == []                # the temporary folder removed at the end


# A 2 000-character --scheduler: the refusal showed it shortened once, then whole again in Dask's own words
# ("missing port number in address 'xxx…'"), a 2 300-character line; those words now keep the rule of click's.
@pytest.mark.parametrize("words", ["missing port number in address '{}'",
                                   "Timed out trying to connect to {} after 20 s"])
def test_a_long_scheduler_address_repeated_in_dasks_words_is_shown_shortened(words):
    from baseparam.identification._workers import _why

    address = "tcp://" + "x" * 2000
    why = _why(ValueError(words.format(address)))
    assert len(why) < 300 and "…" in why and why.startswith(words.split("{}")[0]), why
