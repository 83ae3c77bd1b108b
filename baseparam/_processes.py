"""Worker processes for the stages that fan work out (excitation starts, identification logs)."""
from __future__ import annotations

import signal
import sys
import threading
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


@contextmanager
def workers_born_deaf():
    """SIGINT held, not ignored, while the workers start: they inherit the blocked signal from their first
    instruction (a signal mask survives fork and exec; a Python handler does not), so a Ctrl-C during their
    start-up cannot raise in them before their initializer ignores it (:func:`deaf_to_interrupts`); and the
    caller still gets it, once the pool runs (an ignored Ctrl-C in this window was lost: the run went on).

    The main thread keeps SIGINT blocked; one that another thread takes meanwhile lands in a handler
    that records it (only the main thread may set handlers: elsewhere the other threads get it as usual).
    Both are delivered to the caller's own handler on leaving (KeyboardInterrupt by default)."""
    if not hasattr(signal, "pthread_sigmask"):        # no signal masks (Windows): nothing is inherited
        yield
        return
    # the resource tracker, started on the first semaphore, unblocks SIGINT after its own start-up:
    # started now, it leaves the mask below alone
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()
    received = []
    # a handler set outside Python (getsignal gives None) could not be restored: it is left in place
    main = threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is not None
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum)) if main else None
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        held = signal.SIGINT in signal.sigpending()
        if main:
            signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)   # a held SIGINT reaches the caller's handler now
        if received and not held:                         # one Ctrl-C, one interrupt
            signal.raise_signal(signal.SIGINT)


def deaf_to_interrupts():
    """A worker's initializer, first: Ctrl-C reaches the whole process group and the caller stops the pool; a
    worker's own KeyboardInterrupt would only print its traceback (and EOFError/BrokenPipeError ones of its
    queues). The worker was born with SIGINT blocked (:func:`workers_born_deaf`): ignoring it before
    unblocking discards one that came during the start-up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def one_blas_thread():
    """A worker's initializer: one BLAS/OpenMP thread (the workers already share the cores), set in the
    worker's own process, so the caller's environment and thread pools are left alone."""
    import scipy.linalg  # noqa: F401  (loads scipy's own BLAS now, so that the limit below reaches it)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)


_STOPPING = tuple(name for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def signals_held():
    """SIGINT, SIGTERM and SIGHUP held for the block and delivered, to the handlers in place, once it ends (each
    signal that came once, in the order they came).

    For third-party imports that swallow a signal's exception: pandas' (through ``pyarrow.compute``) and
    scipy.signal's Cython modules, interrupted while they initialise, lost the KeyboardInterrupt or turned it
    into "SystemError: … returned a result with an exception set", and the run went on until the entry point's
    watchdog ended it seconds later. The handlers are swapped rather than the signals masked: a process-directed
    signal goes to any thread that does not mask it (BLAS's, Arrow's), and its handler still runs on the main
    thread. Only the main thread may set handlers; elsewhere, and for a signal ignored or handled outside Python,
    nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = {}
    for name in _STOPPING:
        number = getattr(signal, name)
        handler = signal.getsignal(number)
        if handler is None or handler is signal.SIG_IGN:
            continue
        previous[number] = signal.signal(number, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        _deliver(list(dict.fromkeys(received)))


def _deliver(numbers):
    """Each signal held (``numbers``: distinct, in the order they came) to the handler now in place, as Python would
    have run them: a handler that raises does not stop the later ones (a signal still pending runs its handler in
    the unwinding that follows; the last exception raised goes on, the earlier ones its context)."""
    if not numbers:
        return
    try:
        handler = signal.getsignal(numbers[0])
        if callable(handler):
            # called as Python calls it: raised again, the signal would reach the entry point's watchdog a second
            # time, which takes a second SIGTERM for a user who insists and ends the process at once, cutting
            # the clean-up the first one started
            handler(numbers[0], sys._getframe())
        else:                                # SIG_DFL: the system's action
            signal.raise_signal(numbers[0])
    finally:
        _deliver(numbers[1:])


def import_held(name):
    """``importlib.import_module(name)``, its first import under :func:`signals_held`. A module already in
    ``sys.modules`` is still taken through ``import_module``: another thread may be importing it, and the import
    waits for it to finish, as an import statement does (``sys.modules`` alone gave the half-initialised module)."""
    import importlib

    if name in sys.modules:
        return importlib.import_module(name)
    with signals_held():
        return importlib.import_module(name)
