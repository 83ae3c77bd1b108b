"""Fuzz round eighteen, resources and the environment: the cache of compiled kernels.

A relative ``XDG_CACHE_HOME`` (or a relative or empty ``HOME``) put the cache in the run's folder, a write outside
the named output; a cached library cut short (a crash or a full disk before its blocks reached the disk) killed the
run with SIGBUS in the loader, a fifo in its place hung it, and any other library under the name was loaded as the
kernel (now: it is compiled again).
"""
import ctypes
import os
import signal

import pytest

from baseparam.dynamics import _native


@pytest.mark.parametrize("env, expected", [
    ({"XDG_CACHE_HOME": "relative-cache", "HOME": "/home/someone"}, "/home/someone/.cache/baseparam"),
    ({"XDG_CACHE_HOME": "", "HOME": "relative-home"}, None),
    ({"XDG_CACHE_HOME": "", "HOME": ""}, None),
    ({"XDG_CACHE_HOME": "/abs/xdg", "HOME": ""}, "/abs/xdg/baseparam"),
])
def test_a_relative_cache_home_does_not_put_the_cache_in_the_runs_folder(monkeypatch, env, expected):
    """The XDG specification has a relative XDG_CACHE_HOME ignored; without an absolute home nothing is kept (the
    kernel is compiled in a temporary folder and that removed), rather than a cache made in the current folder."""
    monkeypatch.delenv("BASEPARAM_CACHE_DIR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _native.cache_dir() == expected


def _twice(tag):
    return (f"double twice(double x) {{ return 2.0 * x; }}  /* {tag} */\n",
            {"twice": (ctypes.c_double, [ctypes.c_double])})


def _in_child(check):
    """The exit status of a forked child that runs ``check()`` (True: 0) under an alarm; the loader keeps each library
    it opened by name, so each load of a damaged file must be a new process's (a cut library kills it by SIGBUS, a
    fifo blocks its open for ever)."""
    pid = os.fork()
    if pid == 0:                                                # the child: no pytest machinery past this point
        status = 3
        try:
            signal.alarm(20)
            status = 0 if check() else 1
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _damage(path, how):
    good = path.read_bytes()
    path.unlink()
    if how == "empty":
        path.write_bytes(b"")
    elif how == "cut":
        path.write_bytes(good[:len(good) // 2])
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "folder":
        path.mkdir()
    elif how == "zeros":                        # blocks a crash lost: zeros in the middle, the length kept
        path.write_bytes(good[:4096] + bytes(len(good) - 8192) + good[-4096:])
    elif how == "unsealed":                     # an earlier version's library: whole, loadable, without the seal
        path.write_bytes(good[:-len(_native.SEAL) - 32])


@pytest.fixture
def cached_kernel(tmp_path, monkeypatch):
    """A one-function kernel compiled and cached (in a child) under tmp_path/cache: its library's path, and a call
    that loads it and checks its result (to run in a child: a damaged library can kill the process)."""
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    monkeypatch.setenv("BASEPARAM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_native, "_LOADED", {})
    source = f"double twice(double x) {{ return 2.0 * x; }}  /* {tmp_path.name} */\n"
    functions = {"twice": (ctypes.c_double, [ctypes.c_double])}

    def twice_works():
        lib = _native.load(source, functions)
        return lib is not None and lib.twice(2.0) == 4.0

    assert _in_child(twice_works) == 0
    (path,) = (tmp_path / "cache").glob("kernel_*.so")
    return path, twice_works


@pytest.mark.parametrize("how", ["cut", "fifo", "folder", "empty", "zeros", "unsealed"])
def test_a_damaged_cached_kernel_is_compiled_again_not_loaded(cached_kernel, how):
    """The kernel is compiled and cached in one child, its library damaged, then loaded and called in another."""
    path, twice_works = cached_kernel
    _damage(path, how)
    if how == "folder":                         # not ours to remove: not loaded, nor compiled over
        assert _in_child(lambda: twice_works() and path.is_dir()) == 0
        return
    assert _in_child(lambda: twice_works() and _native.sealed(str(path))) == 0, how


@pytest.mark.parametrize("how", ["unsealed", "cut"])
def test_a_cached_kernel_the_cache_will_not_replace_is_compiled_for_the_run(cached_kernel, tmp_path, monkeypatch,
                                                                             how):
    """An earlier version's library (unsealed) or a cut one in a cache that refuses the new one (another user's file
    in a shared folder with the sticky bit, a read-only entry; os.replace refused here): the kernel compiled for this
    run is loaded from its scratch folder, not thrown away for Python's kernels in every run; the entry is left."""
    path, twice_works = cached_kernel
    _damage(path, how)
    left = path.read_bytes()

    def refused(src, dst):
        raise PermissionError(13, "Permission denied", dst)

    def with_replace_refused():
        monkeypatch.setattr(_native.os, "replace", refused)
        return twice_works()

    assert _in_child(with_replace_refused) == 0, how
    assert path.read_bytes() == left
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [path.name]      # no scratch folder left


def test_an_earlier_versions_kernel_in_a_cache_this_run_cannot_write_in_is_compiled_for_the_run(cached_kernel, tmp_path,
                                                                                            monkeypatch):
    """An earlier version's library (whole, unsealed) in a cache the run cannot write in (a read-only image's, another
    user's; the scratch folder refused here): main loaded it; the seal made every run fall back to Python's kernels.
    The kernel is compiled in the system's temporary folder and loaded from there; the cache is left as it was."""
    path, twice_works = cached_kernel
    _damage(path, "unsealed")
    cache = sorted((tmp_path / "cache").iterdir())
    mkdtemp, replace = _native.tempfile.mkdtemp, _native.os.replace

    def refused_in_cache(folder):
        if os.path.samefile(folder, tmp_path / "cache"):
            raise PermissionError(13, "Permission denied", folder)

    def with_cache_read_only():
        monkeypatch.setattr(_native.tempfile, "mkdtemp",
                            lambda *args, dir=None, **kw: refused_in_cache(dir) or mkdtemp(*args, dir=dir, **kw))
        monkeypatch.setattr(_native.os, "replace",
                            lambda src, dst: refused_in_cache(os.path.dirname(dst)) or replace(src, dst))
        return twice_works()

    assert _in_child(with_cache_read_only) == 0
    assert sorted((tmp_path / "cache").iterdir()) == cache and not _native.sealed(str(path))
