"""One BLAS thread for small dense problems (the projection engine's reductions, the estimators' solves), and
OpenBLAS's work buffers under an address-space limit (:func:`within_address_limit`).

OpenBLAS parallelizes LAPACK's many small level-2 steps by spinning threads that wait for each
other: when the cores are busy with other programs, a few-hundred-column SVD or least-squares solve
then takes hundreds of times longer than on one thread. Problems this small gain nothing from threads,
so the library runs them on one — within the block only (``threadpoolctl``), restoring the count after.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading

from threadpoolctl import ThreadpoolController

from ._processes import import_held, shared_change

_lock = threading.Lock()
_controllers = {}     # keyed by whether scipy.linalg (its own OpenBLAS) was loaded when it was made


def _controller():
    # Looking the libraries up costs about a millisecond, so it is done once; again only once scipy's
    # linear algebra (another OpenBLAS) has been loaded, which the projection alone never does.
    key = "scipy.linalg" in sys.modules
    with _lock:
        if key not in _controllers:
            _controllers[key] = ThreadpoolController()
        return _controllers[key]


@contextlib.contextmanager
def single_threaded(user_api="blas"):
    """A context manager: the block runs with one BLAS thread (``user_api=None``: one thread in every thread pool,
    OpenMP's too), the previous counts restored after.

    Where the count is the process's (OpenBLAS on its own threads, numpy's and scipy's wheels), blocks of several
    threads at once share one limit, lifted as the last one leaves (:data:`_one_thread_shared`); where each thread has
    its own (OpenMP's ``omp_set_num_threads``: OpenMP pools, an OpenBLAS built on OpenMP), each block sets and restores
    its thread's."""
    with contextlib.ExitStack() as stack:
        if _limits_per_thread():
            stack.enter_context(_controller().limit(limits=1, user_api="blas"))
        else:
            stack.enter_context(_one_thread_shared())
        if user_api is None:
            stack.enter_context(_controller().limit(limits=1, user_api="openmp"))
        yield


def _limits_per_thread() -> bool:
    """Whether a BLAS library loaded takes its thread count per calling thread (OpenMP's ``omp_set_num_threads``)."""
    return any(lib.user_api == "blas" and getattr(lib, "threading_layer", None) == "openmp"
               for lib in _controller().lib_controllers)


def _one_thread():
    """One BLAS thread for the process; returns the undoing. threadpoolctl (3.8) lets only the thread that last set
    OpenBLAS's count set it again until that thread lets go: both the setting and the undoing let go at once, so
    that the undoing, made by whichever thread leaves last, is not ignored."""
    limiter = _controller().limit(limits=1, user_api="blas")
    _let_go()

    def undo():
        limiter.restore_original_limits()
        _let_go()
    return undo


def _let_go():
    import threadpoolctl

    let_go = getattr(getattr(threadpoolctl, "OpenBLASController", None), "clear_controlling_thread", None)
    if let_go is not None:          # threadpoolctl before 3.8 has no controlling thread
        let_go()


# Each block limiting and restoring its own count, the second saved the first's one thread and put it back for good:
# two threads' overlapping fits left every later BLAS call of the process on one thread. Made again for a block that
# finds scipy's own OpenBLAS loaded since (the controller then covers it).
_one_thread_shared = shared_change(_one_thread, key=lambda: "scipy.linalg" in sys.modules)


# OpenBLAS under an address-space limit (ulimit -v). numpy's and scipy's wheels each carry an OpenBLAS that takes a
# 32 MiB work buffer per thread, and neither says so when it cannot: scipy's (0.3.30) maps it when its library is
# loaded and retries forever when the mapping fails (inside dlopen, holding the GIL: no signal handler and no timeout
# of ours runs; `identify` spun so under `ulimit -v 400000`), numpy's (0.3.31) takes it at a thread's first LAPACK or
# BLAS call and ends the process with exit(1) after 10 retries ("OpenBLAS error: Memory allocation still failed").
NUMPY_START = 90 * 2**20            # numpy's import with its OpenBLAS on one thread: 82 MiB of address space (measured)
NUMPY_BLAS_BUFFER = 40 * 2**20      # numpy's OpenBLAS buffer: 32 MiB and a page, with slack
SCIPY_BLAS_START = 100 * 2**20      # scipy's OpenBLAS loaded on one thread: 93 MiB of address space (measured)


def _short_of(need, what):
    """A MemoryError when the address space left under ``ulimit -v`` is below ``need`` bytes."""
    from ._memory import _address_space_room

    room = _address_space_room()
    if room is not None and room < need:
        raise MemoryError(f"{what} needs about {need / 2**20:.0f} MiB of address space, {room / 2**20:.0f} MiB left")


def _scipy_blas_loaded():
    """Whether an OpenBLAS other than numpy's own copy is mapped (scipy's wheel's, or a system one both share).
    numpy's copy is the one in its package's folder or its wheel's ``numpy.libs`` beside it (not any path that says
    'numpy': a site-packages under ``~/numpy-work/.venv`` holds scipy's too)."""
    numpy = sys.modules.get("numpy")
    folder = os.path.dirname(os.path.realpath(getattr(numpy, "__file__", None) or os.sep))   # maps: real paths
    own = (folder + os.sep, folder + ".libs" + os.sep) if numpy is not None else ()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            paths = {line.split(None, 5)[-1].strip() for line in f if line.count(" ") >= 5}
    except OSError:
        return True                 # nothing to tell by: no refusal on a guess
    return any("openblas" in path.rsplit("/", 1)[-1].lower() and not path.startswith(own) for path in paths)


class _ScipyBlasRoom:
    """A finder on ``sys.meta_path`` that looks at scipy's imports until scipy's OpenBLAS is loaded, and refuses the
    import (MemoryError) where the address space left could not hold its start-up. It finds nothing itself."""

    def find_spec(self, name, path=None, target=None):
        if name == "scipy" or name.startswith("scipy."):
            if _scipy_blas_loaded():
                with contextlib.suppress(ValueError):
                    sys.meta_path.remove(self)
            else:
                _short_of(SCIPY_BLAS_START, f"loading scipy's OpenBLAS (importing {name})")
        return None


def within_address_limit():
    """Under an address-space limit (``ulimit -v``: the caller's test, ``_entry._address_limited``), make OpenBLAS's
    buffers fail where Python says so: OpenBLAS on one thread (one buffer per library and no thread stacks, unless
    ``OPENBLAS_NUM_THREADS`` is set: a 64-core machine's thread pools take 2.5 GiB each) when numpy is not loaded
    yet, numpy (with its OpenBLAS) loaded only where it fits and its buffer taken at once, while the room is known
    (a MemoryError without it), and scipy's library loaded only where it fits (:class:`_ScipyBlasRoom`). The
    command's first step (``_entry.main``); a MemoryError is said in one line, exit status 2."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")       # read by each OpenBLAS as it is loaded
    if not any(isinstance(finder, _ScipyBlasRoom) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ScipyBlasRoom())
    if "numpy" not in sys.modules:
        # short of room, numpy's import ended the process in OpenBLAS's exit(1) ("Memory allocation still failed
        # after 10 retries": `describe` under `ulimit -v 100000`), or raised a SystemError
        _short_of(NUMPY_START, "loading numpy and its OpenBLAS")
    import numpy as np          # (its OpenBLAS reads the variable as it is loaded)

    _short_of(NUMPY_BLAS_BUFFER, "numpy's OpenBLAS work buffer")
    np.linalg.solve(np.eye(2), np.ones(2))      # LAPACK's gesv takes the thread's buffer, kept for later calls


@contextlib.contextmanager
def on_one_blas_thread():
    """The block runs on one BLAS/OpenMP thread, as a worker does (:func:`baseparam._processes.one_blas_thread`),
    in the caller's own process: for work done in place of a single worker, with the same numbers to the last bit
    (no summation order depends on the thread count). The caller's thread counts are restored on leaving.

    The limit is the whole process's: its other threads run on one BLAS thread too while the block runs. It is the
    fits' own (:func:`single_threaded`, every thread pool here): blocks of several threads at once,
    these and the fits', share one limit, lifted as the last one leaves (two of their own, each setting and restoring
    the counts, put back each other's one thread for good)."""
    import_held("scipy.linalg")
    with single_threaded(user_api=None):
        yield
