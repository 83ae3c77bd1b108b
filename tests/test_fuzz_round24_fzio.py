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


@pytest.mark.parametrize("how", ["writable by others", "writable by the group",
                                 pytest.param("another user's", marks=pytest.mark.skipif(
                                     not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root"))])
def test_a_planted_library_in_the_cache_is_not_loaded(cache, tmp_path, how):
    folder, path, twice_of_two = cache
    _plant(path, tmp_path)
    if how == "another user's":
        os.chown(path, 54321, 54321)
        os.chmod(path, 0o755)
    else:
        os.chmod(path, 0o757 if how == "writable by others" else 0o775)
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
