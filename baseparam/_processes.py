"""Worker processes for the stages that fan work out (excitation starts, identification logs)."""
from __future__ import annotations

import sys
from contextlib import contextmanager


@contextmanager
def caller_not_reimported():
    """Spawned workers need nothing from the caller's script (the work lives in the package), so they
    are started without re-running it: a script that works at top level, without the
    ``if __name__ == "__main__"`` guard spawn usually requires, still works."""
    main = vars(sys.modules["__main__"]) if "__main__" in sys.modules else {}
    hidden = {key: main[key] for key in ("__file__", "__spec__") if key in main}
    main.pop("__file__", None)
    if "__spec__" in main:
        main["__spec__"] = None              # multiprocessing looks for the script by these two
    try:
        yield
    finally:
        main.update(hidden)


def one_blas_thread():
    """A worker's initializer: one BLAS/OpenMP thread (the workers already share the cores), set in the
    worker's own process, so the caller's environment and thread pools are left alone."""
    import scipy.linalg  # noqa: F401  (loads scipy's own BLAS now, so that the limit below reaches it)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
