"""Round 26, helper lwr2 (issues 28 and 22): the writes' leftovers (logs encoded whole in memory, an output's mode
and an old version's return without hard links, Dask's own configuration read) and two CLI messages, each with a
test that fails before its fix."""
import os
import subprocess
import sys

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT

TIMEOUT = 300


# --- 1. Parquet and MCAP logs were encoded whole in memory before the write ---

_PEAK = """
import os, sys, tracemalloc
import numpy as np
import pyarrow as pa
import baseparam as bp
S = 200_000
rng = np.random.default_rng(0)
traj = bp.Trajectory(t=np.arange(S) * 1e-3, q=rng.standard_normal((S, 7)), tau=rng.standard_normal((S, 7)))
path = os.path.join(sys.argv[1], "log" + sys.argv[2])
if sys.argv[2] == ".parquet":
    bp.write_trajectory(traj, path)
    peak = pa.default_memory_pool().max_memory()
else:
    tracemalloc.start()
    bp.write_trajectory(traj, path)
    peak = tracemalloc.get_traced_memory()[1]
print(peak / os.path.getsize(path))
"""


@pytest.mark.parametrize("ext, bound", [(".parquet", 2.2), (".mcap", 3.0)])
def test_parquet_and_mcap_logs_are_encoded_into_the_temporary_file(tmp_path, ext, bound):
    """The table (the bag) went into a buffer in memory, then the buffer into the file: a second copy of the log
    (Parquet: the memory pool's peak 2.4 × the file's size at 2·10⁵ × 7, now 1.7 ×; MCAP: the traced peak 5.3 ×,
    also the S messages held as byte strings, now 2.1 ×)."""
    result = subprocess.run([sys.executable, "-c", _PEAK, str(tmp_path), ext], capture_output=True, text=True,
                            timeout=TIMEOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) < bound


@pytest.mark.parametrize("ext", [".parquet", ".mcap"])
def test_a_streamed_log_reads_back_and_into_a_named_pipe_is_the_same_file(tmp_path, ext):
    """Encoded into the file (seekable) or, into a named pipe, through memory: the same bytes, read back whole."""
    import threading

    t = np.arange(50) * 0.01
    traj = bp.Trajectory(t=t, q=np.sin(t)[:, None] * [1.0, 2.0], tau=np.cos(t)[:, None] * [3.0, 4.0],
                         qd=np.cos(t)[:, None] * [1.0, 2.0])
    path, fifo = tmp_path / f"log{ext}", tmp_path / f"pipe{ext}"
    bp.write_trajectory(traj, path)
    back = bp.read_trajectory(path)
    assert np.array_equal(back.q, traj.q) and np.array_equal(back.tau, traj.tau) and np.array_equal(back.t, t)
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    bp.write_trajectory(traj, fifo)
    reader.join(TIMEOUT)
    assert got == [path.read_bytes()]


@pytest.mark.parametrize("ext", [".parquet", ".mcap"])
def test_a_streamed_log_near_the_free_space_is_measured_exactly_before_it_is_written(tmp_path, monkeypatch, ext):
    """Where the free space might not take it, a log is encoded once without being kept, to learn its size: it is
    refused before any file is made when one byte is missing, and written when it just fits."""
    from baseparam import _output_names

    t = np.arange(400) * 0.01
    traj = bp.Trajectory(t=t, q=np.sin(t)[:, None] * [1.0, 2.0], tau=np.cos(t)[:, None] * [3.0, 4.0])
    size = os.path.getsize(bp.write_trajectory(traj, str(tmp_path / f"first{ext}")))
    out = tmp_path / f"log{ext}"
    monkeypatch.setattr(_output_names, "free_space", lambda path: size - 1)
    with pytest.raises(bp.errors.StorageError, match=rf"log\{ext}: cannot write: .* to write, .* free"):
        bp.write_trajectory(traj, out)
    assert sorted(os.listdir(tmp_path)) == [f"first{ext}"]
    monkeypatch.setattr(_output_names, "free_space", lambda path: size)
    bp.write_trajectory(traj, out)
    assert out.read_bytes() == (tmp_path / f"first{ext}").read_bytes()


# --- 2. without hard links: a 0600 output widened by two writers at once, an old version put back over a new one ---

def _no_hard_links(monkeypatch):
    import errno

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(os, "link", refuse)


def test_a_write_between_another_placings_renames_keeps_the_outputs_mode(tmp_path, monkeypatch):
    """Without hard links a placing moves the old output aside, then renames its new file in. A second writer taking
    its mode in between found no output and gave its file the umask's 0644: a 0600 output (a key, a private log)
    widened. Its mode is now the version moved aside."""
    import threading

    from baseparam import _atomic

    _no_hard_links(monkeypatch)
    out = tmp_path / "out.json"
    out.write_text("old\n")
    out.chmod(0o600)
    a_chose_mode, b_placed = threading.Event(), threading.Event()
    real_chmod, real_replace = os.chmod, os.replace
    writer_a = threading.Thread(target=lambda: _atomic.write_text(out, "A\n"))

    def chmod(path, mode, **kwargs):
        real_chmod(path, mode, **kwargs)
        if threading.current_thread() is writer_a:
            a_chose_mode.set()
            b_placed.wait(TIMEOUT)

    def replace(source, target, **kwargs):
        real_replace(source, target, **kwargs)
        if os.fspath(target).endswith(".out.json.old") and not writer_a.is_alive():    # B's old file moved aside
            writer_a.start()
            assert a_chose_mode.wait(TIMEOUT)

    monkeypatch.setattr(os, "chmod", chmod)
    monkeypatch.setattr(os, "replace", replace)
    mask = os.umask(0o022)
    try:
        with _atomic.outputs_together():
            _atomic.write_text(out, "B\n")
        b_placed.set()
        writer_a.join(TIMEOUT)
    finally:
        os.umask(mask)
        b_placed.set()
    assert out.read_text() == "A\n"
    assert oct(out.stat().st_mode & 0o777) == oct(0o600)
    assert os.listdir(tmp_path) == ["out.json"]


def test_an_old_version_is_not_put_back_over_an_output_placed_after_the_look(tmp_path, monkeypatch):
    """Without hard links, putting back an old version moved aside looked whether its output was missing, then
    renamed: another writer's output placed between the two was replaced by the old version. The rename now refuses
    an existing name itself (renameat2 RENAME_NOREPLACE), whatever a look said."""
    from baseparam import _leftovers

    _no_hard_links(monkeypatch)
    old, target = tmp_path / ".baseparam-1-0123456789abcdef.out.json.old", tmp_path / "out.json"
    old.write_text("old version\n")
    target.write_text("placed since\n")
    monkeypatch.setattr(os.path, "lexists", lambda path: False)     # the look made before the other writer's rename
    assert not _leftovers._rename_without_replacing(str(old), str(target))
    assert target.read_text() == "placed since\n" and old.read_text() == "old version\n"
    monkeypatch.undo()
    _no_hard_links(monkeypatch)
    target.unlink()
    assert _leftovers._rename_without_replacing(str(old), str(target))
    assert target.read_text() == "old version\n" and not old.exists()


def test_a_killed_runs_old_version_is_put_back_without_hard_links(tmp_path, monkeypatch):
    """The later run's restore (remove_stale) still puts a killed run's old version back where link(2) is refused."""
    from baseparam import _leftovers

    _no_hard_links(monkeypatch)
    old = tmp_path / ".baseparam-999999999-0123456789abcdef.out.json.old"
    old.write_text("old version\n")
    with pytest.warns(UserWarning, match="put back"):
        _leftovers.remove_stale(str(tmp_path))
    assert (tmp_path / "out.json").read_text() == "old version\n" and not old.exists()


# --- 3. `identify --scheduler local` read Dask's own configuration files (~/.config/dask, /etc/dask) ---

_OPENS = """
import runpy, sys
home = sys.argv[1]
sys.addaudithook(lambda event, args: event == "open" and isinstance(args[0], str) and args[0].startswith(home)
                 and sys.stderr.write("OPENED %s\\n" % args[0]))
if sys.argv[2] == "cli":
    sys.argv = ["baseparam"] + sys.argv[3:]
    runpy.run_module("baseparam", run_name="__main__")
else:
    import dask.config
"""


def _dask_home(tmp_path):
    """A home whose ~/.config/dask holds a configuration file, and a user's site-packages folder."""
    config = tmp_path / "home" / ".config" / "dask"
    config.mkdir(parents=True)
    (config / "mine.yaml").write_text("distributed:\n  worker:\n    daemon: true\n")
    return tmp_path / "home"


def test_identify_on_a_local_cluster_reads_no_dask_configuration_file(tmp_path):
    """The command line imported Dask, which read ~/.config/dask/*.yaml (and /etc/dask): files outside the named
    inputs. Imported now with a private empty folder for them, this process's (an audit hook on open)."""
    pytest.importorskip("distributed")
    home = _dask_home(tmp_path)
    t = np.arange(200) * 0.01
    rows = np.column_stack([t] + [np.sin((j + 1) * t + j) for j in range(3)] + [np.cos((j + 1) * t) for j in range(3)])
    log = tmp_path / "log.csv"
    np.savetxt(log, rows, delimiter=",", header="t,q1,q2,q3,tau1,tau2,tau3", comments="")
    result = subprocess.run([sys.executable, "-c", _OPENS, str(home), "cli", "identify",
                             str(ROOT / "robots" / "planar_rrr.yaml"), str(log), str(log), "--scheduler", "local",
                             "--workers", "2", "--json", str(tmp_path / "out.json")],
                            capture_output=True, text=True, timeout=TIMEOUT,
                            env={**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    assert "OPENED" not in result.stderr, result.stderr
    assert (tmp_path / "out.json").is_file()


def test_a_worker_of_a_local_cluster_reads_no_dask_configuration_file(tmp_path):
    """What a worker process finds as it imports Dask: no file of ~/.config/dask (HOME an empty folder), nor of
    /etc/dask; its site-packages and the kernel cache as the caller's; the caller's variables back afterwards."""
    from baseparam.identification._workers import dask_config_files_unread

    pytest.importorskip("dask")
    home = _dask_home(tmp_path)
    before = dict(os.environ)
    code = _OPENS.replace("import dask.config", "import dask.config, site; "
                          "from baseparam.dynamics._native import cache_dir; print(site.getuserbase(), cache_dir())")
    run = [sys.executable, "-c", code, str(home), "worker"]
    env = {"HOME": str(home), "PYTHONPATH": str(ROOT)}
    os.environ.update(env)
    try:
        plain = subprocess.run(run, capture_output=True, text=True, timeout=TIMEOUT)
        with dask_config_files_unread(str(tmp_path / "scratch")):
            private = subprocess.run(run, capture_output=True, text=True, timeout=TIMEOUT)
    finally:
        os.environ.clear()
        os.environ.update(before)
    assert "OPENED" in plain.stderr and "mine.yaml" in plain.stderr, plain.stderr     # what a worker read before
    assert "OPENED" not in private.stderr, private.stderr
    import site
    # the caller's site-packages of the user (as this process found it as it started), its kernel cache
    assert private.stdout.split() == [site.getuserbase(), plain.stdout.split()[1]]


# --- 4. CLI messages: the flag of a file that is refused, an output's format under a '.txt' name ---

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _cli(*args):
    from click.testing import CliRunner

    from baseparam.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("text, said", [("garbage: [\n", "invalid YAML"), ("x: 1\n", "x: unknown field"),
                                        (None, "cannot read")])
@pytest.mark.parametrize("command", ["excite", "payload"])
def test_a_refused_limits_or_model_file_is_named_with_its_flag(tmp_path, command, text, said):
    """`excite --limits F` and `payload --model F` said "F: x: unknown field": the file alone, which read as the
    robot file's fault. Its flag now comes first, as the command declares it."""
    given = tmp_path / "given.yaml"
    if text is not None:
        given.write_text(text)
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{k * 0.01},{k % 3},{k % 5},{k % 7},1,2,3\n"
                                                           for k in range(50)))
    flag = "--limits" if command == "excite" else "--model"
    args = [command, PLANAR] + ([log] if command == "payload" else []) + [flag, given]
    result = _cli(*args)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert result.output.startswith(f"baseparam: {flag}: {given}: ") and said in result.output, result.output


@pytest.mark.parametrize("args, flag", [(["find", PLANAR, "--json"], "--json"), (["find", PLANAR, "--h5"], "--h5"),
                                        (["describe", PLANAR, "--yaml"], "--yaml")])
def test_an_output_whose_format_a_txt_name_does_not_say_is_refused(tmp_path, args, flag):
    """The log readers read a .txt as CSV: JSON, YAML and HDF5 were written under o.txt, exit 0. Refused now as under
    a name of another format, before the work, nothing written."""
    out = tmp_path / "o.txt"
    result = _cli(*args, out)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{flag}: {out}: writes " in result.output and "'.txt' name says CSV" in result.output
    assert not out.exists()


def test_text_for_reading_and_csv_still_go_under_a_txt_name(tmp_path):
    """equations --out writes text to read (Markdown), and an excitation's CSV is what a .txt is read as: both kept."""
    out = tmp_path / "o.txt"
    result = _cli("equations", PLANAR, "--out", out)
    assert result.exit_code == 0, result.output
    assert out.read_text().strip()
    from baseparam._checks import check_written_format

    check_written_format(tmp_path / "x.txt", "CSV", ".csv")
    with pytest.raises(bp.errors.ArgumentError, match="'.txt' name says CSV"):
        check_written_format(tmp_path / "x.txt", "JSON", ".json")
