"""Standard error held around native code that writes to it on its own: a solver's Rust panic.

CLARABEL (through cvxpy) reports a Rust panic by printing it on file descriptor 2 — ``thread '<unnamed>'
panicked at …``, with a stack backtrace when ``RUST_BACKTRACE`` is set — before pyo3 raises it as a
``PanicException``; a caller that turns the exception into one line still left the panic's lines above it.
Around such a call, descriptor 2 is pointed at an unnamed temporary file; afterwards whatever was written there
is given back to the real stderr, except a panic's own text, which the caller reports in its line.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import threading

_REAL = []      # the real stderr's descriptor while it is held (what a line that must be seen is written to)
# Descriptor 2 is the process's: one thread holds it at a time (re-entrant, for a hold within a hold). Two threads
# holding it at once, each restoring the descriptor it had saved, left it pointing at the first one's temporary file
# for good (every later line of stderr lost) and _REAL naming a closed descriptor.
_HOLDER = threading.RLock()
# The start of a Rust panic's report in the held text (cut from what is passed on)
_PANIC = re.compile(rb"^thread '[^'\n]*' panicked at ", re.MULTILINE)
# The attribute set true on solve_clarabel's SolverError for a panic (a subclass of cvxpy's would import cvxpy here,
# at start-up)
PANIC = "solver_panicked"


def real_fd():
    """The descriptor of the process's real stderr: 2, or its saved copy while :func:`native_stderr_held` holds 2
    (the entry point's watchdog writes its last line there, so that it is never lost in the temporary file)."""
    return _REAL[-1] if _REAL else 2


def _flush():
    with contextlib.suppress(Exception):
        sys.stderr.flush()


@contextlib.contextmanager
def native_stderr_held():
    """Within the block, what native code writes on descriptor 2 is held; on leaving, it is written to the real
    stderr, up to a Rust panic's text if the block raised a ``PanicException`` (that text is in the exception).
    Where descriptor 2 cannot be copied, or no temporary file made, the block runs with stderr as it is; so does it
    while another thread holds descriptor 2 (what the block writes there is then given back by that thread's hold)."""
    if not _HOLDER.acquire(blocking=False):
        yield
        return
    try:
        with _held():
            yield
    finally:
        _HOLDER.release()


@contextlib.contextmanager
def _held():
    import tempfile

    _flush()
    try:
        held = tempfile.TemporaryFile()
    except OSError:
        yield
        return
    with held:
        try:
            saved = os.dup(2)
        except OSError:
            yield
            return
        panicked = False
        try:
            os.dup2(held.fileno(), 2)
            _REAL.append(saved)
            try:
                yield
            except BaseException as exc:
                panicked = type(exc).__name__ == "PanicException"
                raise
        finally:
            _flush()
            os.dup2(saved, 2)
            if _REAL and _REAL[-1] == saved:
                _REAL.pop()
            os.close(saved)
            held.seek(0)
            text = held.read()
            found = _PANIC.search(text) if panicked else None
            if found:
                text = text[:found.start()]
            if text:
                with contextlib.suppress(OSError):
                    os.write(2, text)


def solve_clarabel(problem, **options):
    """``problem.solve(solver=cvxpy.CLARABEL, **options)``, stderr held (:func:`native_stderr_held`): a Rust panic
    of the solver is raised as cvxpy's ``SolverError`` naming it ("CLARABEL panicked: …"), which the callers handle
    as any failure of the solver, and its text never reaches stderr. Such an error has :data:`PANIC` set true (what
    a caller tests, not the message's words)."""
    import cvxpy as cp

    try:
        with native_stderr_held():
            return problem.solve(solver=cp.CLARABEL, **options)
    except BaseException as exc:                   # pyo3's PanicException is a BaseException
        if type(exc).__name__ != "PanicException":
            raise
        error = cp.SolverError(f"CLARABEL panicked: {' '.join(str(exc).split()) or 'no message'}")
        setattr(error, PANIC, True)
        raise error from None
