"""One BLAS thread for small dense problems (the projection engine's reductions: a few hundred columns).

OpenBLAS parallelizes LAPACK's many small level-2 steps by spinning threads that wait for each
other; when the cores are busy with other programs, an SVD of 300 × 200 that takes 7 ms on one
thread was measured at 1.8 s (and a least-squares solve at 2.5 s instead of 17 ms) on this project's
2-core machine. Problems this small gain nothing from threads, so the engine runs them on one.

This is what ``threadpoolctl`` does, reduced to OpenBLAS (numpy's wheels bundle it): find the loaded
library, call its ``set_num_threads``, restore the count afterwards. Elsewhere (another BLAS, another
OS) it does nothing.
"""
from __future__ import annotations

import contextlib
import ctypes
import threading

# (getter, setter) names of the OpenBLAS builds numpy ships or links: scipy-openblas (numpy ≥ 2),
# the older 64-bit-integer wheels, and a plain system OpenBLAS.
_NAMES = (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
          ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
          ("openblas_get_num_threads", "openblas_set_num_threads"))
_lock = threading.Lock()
_found = []       # [(get, set)] once looked up ([None] when there is none)


def _loaded_openblas():
    """Paths of the OpenBLAS libraries loaded in this process (Linux: /proc/self/maps)."""
    import numpy  # noqa: F401  (loads numpy's BLAS, if it is not loaded yet)
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower() and "/" in line}
    except OSError:
        return []
    return sorted(paths)


def _functions():
    if not _found:
        found = None
        for path in _loaded_openblas():
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for get, put in _NAMES:
                if hasattr(lib, get) and hasattr(lib, put):
                    getter, setter = getattr(lib, get), getattr(lib, put)
                    getter.restype, setter.argtypes = ctypes.c_int, [ctypes.c_int]
                    found = (getter, setter)
                    break
            if found:
                break
        _found.append(found)
    return _found[0]


@contextlib.contextmanager
def single_threaded():
    """Run the block with one BLAS thread (OpenBLAS), then restore the previous count."""
    with _lock:
        functions = _functions()
    if functions is None:
        yield
        return
    getter, setter = functions
    before = getter()
    setter(1)
    try:
        yield
    finally:
        setter(before)


def threads():
    """The number of OpenBLAS threads now (None without OpenBLAS)."""
    functions = _functions()
    return None if functions is None else functions[0]()
