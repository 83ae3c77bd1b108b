"""Fuzz round twenty-four (issue 28), every write: the cache of compiled kernels and the outputs' names.

The kernel cache loaded any sealed library under a kernel's name. The seal says a library is whole, not whose: anyone
can append one. Another user's library in a shared cache (``BASEPARAM_CACHE_DIR=/tmp/shared``), a library others
may write, or one in a cache folder others may write, ran as this user. Here the planted library computes 3·x
where the kernel computes 2·x.
"""
import ctypes
import os
import stat
import subprocess
import warnings

import pytest

from baseparam.dynamics import _native
from test_fuzz_round18_fres import _in_child


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A kernel cache under tmp_path, and the kernel's source, signatures and library path there."""
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    folder = tmp_path / "cache"
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(folder))
    monkeypatch.setattr(_native, "_LOADED", {})
    monkeypatch.setattr(_native, "_UNTRUSTED_SAID", set(), raising=False)
    source = f"double twice(double x) {{ return 2.0 * x; }}  /* {tmp_path.name} */\n"
    functions = {"twice": (ctypes.c_double, [ctypes.c_double])}

    def twice_of_two():
        lib = _native.load(source, functions)
        return None if lib is None else lib.twice(2.0)

    assert _in_child(lambda: twice_of_two() == 4.0) == 0          # compiled and cached
    (path,) = folder.glob("kernel_*.so")
    return folder, path, twice_of_two


def _plant(path, tmp_path):
    """Put at ``path`` a sealed library whose ``twice`` computes 3·x."""
    evil = tmp_path / "evil.c"
    evil.write_text("double twice(double x) { return 3.0 * x; }\n")
    path.unlink()
    subprocess.run([_native.compiler(), *_native.FLAGS, "-o", str(path), str(evil)], check=True, timeout=120)
    _native._seal(str(path))
    assert _native.sealed(str(path)) or os.geteuid() != os.stat(path).st_uid


ROOT_ONLY = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")


@pytest.mark.parametrize("how", ["writable by others", pytest.param("writable by a shared group", marks=ROOT_ONLY),
                                 pytest.param("another user's", marks=ROOT_ONLY)])
def test_a_planted_library_in_the_cache_is_not_loaded(cache, tmp_path, how):
    folder, path, twice_of_two = cache
    _plant(path, tmp_path)
    if how == "another user's":
        os.chown(path, 54321, 54321)
        os.chmod(path, 0o755)
    elif how == "writable by a shared group":
        os.chown(path, -1, 54321)               # no such group here: not this user's private group
        os.chmod(path, 0o775)
    else:
        os.chmod(path, 0o757)
    assert not _native.sealed(str(path))
    assert _in_child(lambda: twice_of_two() == 4.0) == 0, how    # compiled for the run: 4, not the planted 6


def test_a_cache_folder_others_may_write_is_not_used(cache, tmp_path):
    """Another user could swap the library between its check and its load: the cache is left aside, said once."""
    folder, path, twice_of_two = cache
    _plant(path, tmp_path)
    os.chmod(folder, 0o777)
    said = []

    def compiled_for_the_run():
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ok = twice_of_two() == 4.0
        said.extend(str(w.message) for w in caught)
        return ok and len(said) == 1 and "may be changed by another user" in said[0] and str(folder) in said[0]

    assert _in_child(compiled_for_the_run) == 0
    assert [p.name for p in folder.iterdir()] == [path.name]           # nothing left there either


def test_a_sticky_cache_folder_is_used(cache, tmp_path):
    """A folder everyone may write in but with the sticky bit (``/tmp``): others may add files, not swap this user's."""
    folder, path, twice_of_two = cache
    os.chmod(folder, 0o1777)
    assert _native._trusted_cache(str(folder)) == str(folder)
    assert _in_child(lambda: twice_of_two() == 4.0 and _native.sealed(str(path))) == 0


@pytest.mark.parametrize("private", [True, False])
def test_a_cache_writable_by_the_users_private_group_is_used(tmp_path, monkeypatch, private):
    """Debian's and Ubuntu's umask 002 leaves ~/.cache writable by its group, the user's own (named as the user, no
    other member): writable by this user alone, so the cache is used; a group shared with others is not."""
    folder = tmp_path / "cache"
    folder.mkdir()
    os.chmod(folder, 0o775)
    monkeypatch.setattr(_native, "_private_group", lambda gid: private)
    monkeypatch.setattr(_native, "_UNTRUSTED_SAID", set(), raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _native._trusted_cache(str(folder)) == (str(folder) if private else None)


def test_under_umask_0_the_cache_and_its_libraries_stay_this_users(tmp_path, monkeypatch):
    """The compiler's library is 0777 under umask 0, as the folders made for the cache: each would be refused by the
    next run (compiled again every time); they are made writable by this user alone."""
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    folder = tmp_path / "deep" / "cache"
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(folder))
    monkeypatch.setattr(_native, "_LOADED", {})
    source = f"double half(double x) {{ return 0.5 * x; }}  /* {tmp_path.name} */\n"
    functions = {"half": (ctypes.c_double, [ctypes.c_double])}

    def compiled():
        os.umask(0)
        return _native.load(source, functions).half(2.0) == 1.0

    assert _in_child(compiled) == 0
    (path,) = folder.glob("kernel_*.so")
    for made in (folder.parent, folder, path):
        assert not stat.S_IMODE(os.stat(made).st_mode) & 0o022, made
    assert _native.sealed(str(path))


# --- writers whose size is known only once encoded --------------------------------------------------------------
#
# write_trajectory's NPZ, Parquet and MCAP and the floating-base CSV and NPZ went to disk straight from their encoders:
# a full disk or `ulimit -f` was found by the write half-way ("cannot write (No space left on device)"), where the
# CSV writer and the figures said the figures before writing. Each is now encoded in memory, its size checked
# (_atomic.write_bytes / write_text), then written; the bytes are the same (checked on 24 files against main).

def _fixed_motion():
    import numpy as np
    import baseparam as bp
    rng = np.random.default_rng(0)
    t = np.linspace(0, 1, 200)
    q = rng.uniform(-1, 1, (200, 3))
    return bp.Trajectory(t, q, qd=2 * q, qdd=3 * q, tau=4 * q)


@pytest.fixture(scope="module")
def floating_motion():
    import dataclasses

    import numpy as np
    import baseparam as bp
    from conftest import ROOT
    model = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    k = np.arange(1, 7)
    space = bp.free_floating_experiment(model, np.linspace(0, 2, 41), lambda t, q, qd: 3 * np.sin(0.5 * k * t + k))
    wrenches = np.random.default_rng(1).normal(size=(space.log.n_samples, 2, 6))
    return dataclasses.replace(space.log, wrenches=wrenches, contacts=("left", "right"))


def _needs(ext):
    if ext == "parquet":
        pytest.importorskip("pyarrow")
    if ext == "mcap":
        pytest.importorskip("mcap")


@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("ext", ["csv", "npz", "parquet", "mcap"])
def test_a_log_larger_than_the_free_space_is_refused_before_it_is_written(tmp_path, monkeypatch, floating_motion,
                                                                         floating, ext):
    import baseparam as bp
    from baseparam import _atomic
    from baseparam import _output_names
    from baseparam.errors import StorageError
    _needs(ext)
    motion = floating_motion if floating else _fixed_motion()
    out = tmp_path / f"log.{ext}"
    out.write_bytes(b"old")
    opened = []
    real_open = _atomic.atomic_path

    def watched(*args, **kwargs):
        opened.append(args[0])
        return real_open(*args, **kwargs)

    monkeypatch.setattr(_output_names, "free_space", lambda path: 100)
    monkeypatch.setattr(_atomic, "atomic_path", watched)
    with pytest.raises(StorageError, match=rf"log\.{ext}: cannot write: .* to write, 100 bytes free"):
        bp.write_trajectory(motion, out)
    assert opened == [] and out.read_bytes() == b"old"             # said before any temporary file
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("ext", ["csv", "npz", "parquet", "mcap"])
def test_a_log_larger_than_ulimit_f_is_refused_before_it_is_written(tmp_path, floating_motion, floating, ext):
    resource = pytest.importorskip("resource")
    import baseparam as bp
    from baseparam.errors import StorageError
    _needs(ext)
    motion = floating_motion if floating else _fixed_motion()
    out = tmp_path / f"log.{ext}"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, hard))
    try:
        with pytest.raises(StorageError, match=r"to write, more than the 2 kB a file of this process may take"):
            bp.write_trajectory(motion, out)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert list(tmp_path.iterdir()) == []


def test_a_floating_csv_log_is_utf8_whatever_the_locale(tmp_path):
    """np.savetxt to a file name took the locale's encoding: under LC_ALL=C (no UTF-8 coercion) a joint named 'é1'
    raised a bare UnicodeEncodeError, where the fixed-base writer writes UTF-8 as every text file here."""
    import sys

    from conftest import ROOT
    script = f"""
import locale, numpy as np, baseparam as bp
assert locale.getpreferredencoding(False).lower() in ("ansi_x3.4-1968", "ascii", "us-ascii"), 'not ascii'
model = bp.Model(bp.load_robot({str(ROOT / "robots" / "space_robot.yaml")!r}))
log = bp.free_floating_experiment(model, np.linspace(0, 1, 11), lambda t, q, qd: np.ones(6)).log
bp.write_trajectory(log, {str(tmp_path / "log.csv")!r}, joint_names=["\\u00e9%d" % k for k in range(1, 7)])
"""
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    if "not ascii" in done.stderr:
        pytest.skip("this system's C locale is not ASCII")
    assert done.returncode == 0, done.stderr[-500:]
    assert (tmp_path / "log.csv").read_bytes().startswith("# joints: é1, é2".encode())


# --- the outputs' folders ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["find", "--json", "{}/out.json"], ["equations", "--python", "{}/out.py"],
                                     ["find", "--h5", "{}/out.h5"]])
def test_an_output_under_a_file_is_said_to_be_under_a_file(tmp_path, command):
    """`--json afile/out.json`, afile a regular file, was refused as "directory …/afile does not exist"."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT
    (tmp_path / "afile").write_text("mine\n")
    args = [command[0], str(ROOT / "robots" / "planar_rrr.yaml")] + [a.format(tmp_path / "afile") for a in command[1:]]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [f"baseparam: {args[-1]}: {command[1]}: {tmp_path / 'afile'} is not a "
                                                "directory"]
    assert (tmp_path / "afile").read_text() == "mine\n"


# --- names that realpath resolves otherwise than the system ---------------------------------------------------
#
# The write goes to os.path.realpath(name): 'link/.' (link to a file) became the link's target, which was replaced
# (`find --json link/.` overwrote the victim, exit 0); 'a_file/../out.json' became out.json beside a_file, where the
# system says "Not a directory".

def _writers(tmp_path):
    import numpy as np

    import baseparam as bp
    from baseparam.excitation.files import write_json
    from baseparam.projection.storage import find_and_store
    from conftest import ROOT
    planar = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    return {
        "json": lambda out: write_json(out, {"a": 1}),
        "csv log": lambda out: bp.write_trajectory(_fixed_motion(), out),
        "npz log": lambda out: bp.write_trajectory(_fixed_motion(), out),
        "h5": lambda out: find_and_store(planar, out),
        "figure": lambda out: _figure(out),
    }, np


def _figure(out):
    from baseparam._figures import pyplot, save_figure
    plt = pyplot()
    fig = plt.figure()
    save_figure(fig, out)


NAMES = {"json": "out.json", "csv log": "out.csv", "npz log": "out.npz", "h5": "out.h5", "figure": "out.png"}


@pytest.mark.parametrize("writer", sorted(NAMES))
@pytest.mark.parametrize("form", ["link/.", "link/..", "victim/.", "victim/../NAME", "missing/../NAME",
                                  "link/../NAME"])
def test_a_name_the_system_would_not_open_is_not_written_elsewhere(tmp_path, monkeypatch, writer, form):
    from baseparam.errors import StorageError
    writers, _np = _writers(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "victim").write_bytes(b"precious\n")
    (tmp_path / "link").symlink_to("victim")
    before = sorted(p.name for p in tmp_path.iterdir())
    name = form.replace("NAME", NAMES[writer])
    from baseparam.errors import ArgumentError
    refusals = (StorageError, ArgumentError) if writer.endswith("log") else StorageError    # logs: no extension
    with pytest.raises(refusals, match=r"(a folder's name; expected a file name|cannot write here \((Not a "
                                       r"directory|No such file or directory)\)|unknown extension)"):
        writers[writer](name)
    assert (tmp_path / "victim").read_bytes() == b"precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("form", ["link/.", "victim/../out.json"])
def test_the_command_line_refuses_them_in_one_line(tmp_path, monkeypatch, form):
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT
    monkeypatch.chdir(tmp_path)
    (tmp_path / "victim").write_bytes(b"precious\n")
    (tmp_path / "link").symlink_to("victim")
    res = CliRunner().invoke(main, ["find", str(ROOT / "robots" / "planar_rrr.yaml"), "--json", form])
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1 and res.output.startswith(f"baseparam: {form}: "), res.output
    assert (tmp_path / "victim").read_bytes() == b"precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "victim"]


def test_a_linked_folder_then_dot_dot_is_taken_as_the_system_takes_it(tmp_path, monkeypatch):
    """'via/../out.json', via a link to a folder elsewhere: the system (and realpath) take '..' after the link, the
    folder above the link's target; unchanged."""
    from baseparam.excitation.files import write_json
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "via").symlink_to(tmp_path / "a" / "b")
    monkeypatch.chdir(tmp_path / "c")
    write_json("via/../out.json", {"a": 1})
    assert (tmp_path / "a" / "out.json").is_file() and not (tmp_path / "c" / "out.json").exists()


@pytest.mark.parametrize("name", [".baseparam-99999999-0123456789abcdef.tmp", ".baseparam-0123456789abcdef.json"])
def test_an_output_named_as_a_temporary_file_is_refused(tmp_path, name):
    """A run writing into the folder later took it for a killed run's leftover and removed it (its process id gone,
    unchanged for 10 minutes; without an id, for a day): the user's output lost."""
    from baseparam.errors import StorageError
    from baseparam.excitation.files import write_json
    with pytest.raises(StorageError, match="is named as baseparam's temporary files"):
        write_json(tmp_path / name, {"a": 1})
    assert list(tmp_path.iterdir()) == []


def test_a_cache_on_a_full_disk_compiles_in_the_temporary_folder(tmp_path, monkeypatch):
    """The cache's folder existed on a full disk: writing kernel.c there failed and load() gave None, so every kernel
    of every run was Python's (10 to 100 times slower) while the system's temporary folder had room. The room is now
    checked first, and the kernel compiled in the temporary folder (a full disk here: no byte free, writes fail)."""
    import errno
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(folder))
    monkeypatch.setattr(_native, "_LOADED", {})
    source = f"double third(double x) {{ return x / 3.0; }}  /* {tmp_path.name} */\n"
    functions = {"third": (ctypes.c_double, [ctypes.c_double])}

    def full(path):
        return 0 if str(path).startswith(str(folder)) else None

    def failing_open(file, *args, **kwargs):
        if str(file).startswith(str(folder)):
            raise OSError(errno.ENOSPC, "No space left on device", str(file))
        return open(file, *args, **kwargs)

    def compiled():
        monkeypatch.setattr(_native, "free_space", full, raising=False)
        monkeypatch.setattr(_native, "open", failing_open, raising=False)
        lib = _native.load(source, functions)
        return lib is not None and lib.third(3.0) == 1.0

    assert _in_child(compiled) == 0


# --- HDF5 into a named pipe ---------------------------------------------------------------------------------------

def test_find_h5_into_a_named_pipe_is_refused_before_the_projection(tmp_path):
    """libhdf5 writes with seeks: a pipe was found by the write, after the projection (minutes for a large arm), as
    'cannot write (Illegal seek)', or after waiting 5 s for a reader."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT
    pipe = tmp_path / "z.h5"
    os.mkfifo(pipe)
    res = CliRunner().invoke(main, ["find", str(ROOT / "robots" / "planar_rrr.yaml"), "--h5", str(pipe)])
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [f"baseparam: {pipe}: a named pipe or socket; HDF5 is written with "
                                               "seeks, which it cannot take (give a file name)"]


@pytest.mark.parametrize("symbolic", [False, True])
def test_the_library_refuses_hdf5_into_a_named_pipe(tmp_path, symbolic):
    import baseparam as bp
    from baseparam.errors import StorageError
    from baseparam.projection.storage import find_and_store
    from baseparam.projection.symbolic import store_symbolic
    from conftest import ROOT
    planar = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    pipe = tmp_path / "z.h5"
    os.mkfifo(pipe)
    with pytest.raises(StorageError, match="a named pipe or socket; HDF5 is written with seeks"):
        if symbolic:
            store_symbolic(bp.find_base_parameters(planar, symbolic="all"), pipe)
        else:
            find_and_store(planar, pipe)


# --- figures in a format whose writer needs a program ---------------------------------------------------------------

def _without_tex(monkeypatch, matplotlib):
    """lualatex chosen as matplotlib's TeX system, and no *latex program found (whether or not one is installed)."""
    import shutil
    which = shutil.which
    monkeypatch.setitem(matplotlib.rcParams, "pgf.texsystem", "lualatex")
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if "latex" in name else which(name, *a, **k))


def _excite_plot(tmp_path, ext):
    """`excite` of the planar arm (small design) with --plot e.EXT in tmp_path: (the plot's path, the result), the
    run refused (exit 2)."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT
    limits = tmp_path / "limits.yaml"
    limits.write_text("joints: [{qd: 2}, {qd: 2}, {qd: 2}]\n")
    out = tmp_path / f"e.{ext}"
    res = CliRunner().invoke(main, ["excite", str(ROOT / "robots" / "planar_rrr.yaml"), "--limits", str(limits),
                                    "--starts", "1", "--harmonics", "2", "--plot", str(out)])
    assert res.exit_code == 2, res.output
    return out, res


def test_a_pgf_plot_without_its_tex_is_refused_before_the_work(tmp_path, monkeypatch):
    """matplotlib's PGF backend measures text with a TeX system as it writes: without it `excite --plot f.pgf` ran
    the design, then ended 'internal error: RuntimeError: 'xelatex' not found', exit 1."""
    matplotlib = pytest.importorskip("matplotlib")
    _without_tex(monkeypatch, matplotlib)
    out, res = _excite_plot(tmp_path, "pgf")
    assert res.output.strip().splitlines() == [f"baseparam: {out}: --plot: '.pgf' needs lualatex (matplotlib's "
                                               "pgf.texsystem) to write its text, and it is not found; install it, "
                                               "or give another format (.pdf, .svg)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["limits.yaml"]


def test_the_library_refuses_a_pgf_figure_without_its_tex(tmp_path, monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    from baseparam._figures import pyplot, save_figure
    from baseparam.errors import ArgumentError
    _without_tex(monkeypatch, matplotlib)
    plt = pyplot()
    with pytest.raises(ArgumentError, match=r"'\.pgf' needs lualatex"):
        save_figure(plt.figure(), tmp_path / "f.pgf")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ext", ["png", "pdf"])
def test_a_plot_with_usetex_on_and_no_latex_is_refused_before_the_work(tmp_path, monkeypatch, ext):
    """A matplotlibrc in the current folder with `text.usetex: True` (matplotlib reads it): without latex, the run
    ended 'internal error: RuntimeError: Failed to process string with tex because latex could not be found'."""
    matplotlib = pytest.importorskip("matplotlib")
    _without_tex(monkeypatch, matplotlib)
    monkeypatch.setitem(matplotlib.rcParams, "text.usetex", True)
    out, res = _excite_plot(tmp_path, ext)
    assert res.output.strip().splitlines() == [f"baseparam: {out}: --plot: '.{ext}' needs latex (text.usetex is on: a "
                                               "matplotlibrc?), and it is not found; install it, or turn text.usetex "
                                               "off"]
