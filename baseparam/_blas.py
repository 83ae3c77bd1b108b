"""One BLAS thread for small dense problems (the projection engine's reductions, the estimators' solves).

OpenBLAS parallelizes LAPACK's many small level-2 steps by spinning threads that wait for each
other: when the cores are busy with other programs, a few-hundred-column SVD or least-squares solve
then takes hundreds of times longer than on one thread. Problems this small gain nothing from threads,
so the library runs them on one — within the block only (``threadpoolctl``), restoring the count after.
"""
from __future__ import annotations

import sys
import threading

from threadpoolctl import ThreadpoolController

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


def single_threaded():
    """A context manager: the block runs with one BLAS thread, the previous counts restored after."""
    return _controller().limit(limits=1, user_api="blas")
