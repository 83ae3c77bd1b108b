"""The one way the library raises a warning: at the user's line, not at ours.

A warning is about the user's call (``bp.load_robot("arm.urdf")``, ``bp.identify(...)``), so Python
should show that line, and its filters (``-W``, ``filterwarnings(module=...)``) and its once-per-line
registry should apply there. A fixed ``stacklevel`` cannot do that: the same check is reached through
different depths of the package (a command, a method, a function, a lazy import). ``warn`` walks the
stack instead to the first frame outside ``baseparam`` (and outside the standard library's call glue,
``contextlib``/``functools``/import machinery, through which the package may call itself), and issues
the warning there with ``warnings.warn_explicit``, as ``warnings.warn`` itself does for a stack level.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_GLUE = tuple(os.sep + name for name in ("contextlib.py", "functools.py"))
# Held while the package records warnings (:func:`recorded`): one recording region of the process at a time.
_RECORDING = threading.RLock()
# (thread id, filters, showwarning) found by the outermost block running, for a child forked meanwhile (:func:`_forked`)
_OUTSIDE = []


def _internal(filename: str) -> bool:
    return (filename.startswith(_PACKAGE) or filename.endswith(_GLUE)
            or ("importlib" in filename and "_bootstrap" in filename))


def caller_frame():
    """The innermost frame of the stack that is not the package's (None when there is none)."""
    frame = sys._getframe(1)
    while frame is not None and _internal(os.path.abspath(frame.f_code.co_filename)):
        frame = frame.f_back
    return frame


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue `message` as a `category` warning located at the user's line that led to it.

    Under Python's default filter it then shows once per line of the user's code, however many times
    that line runs (a loop, a notebook cell run again shows it again only after a filter change).
    """
    frame = caller_frame()
    if frame is None:                      # called from the package alone (e.g. ``python -m baseparam.cli``)
        warnings.warn(message, category, stacklevel=2)
        return
    globals_ = frame.f_globals
    # No module_globals: with them warn_explicit asks the module's __loader__ for its source by __name__,
    # which raises ImportError for __main__ under `python -c`, `python -` and `python -m` (the line is
    # still shown: linecache reads it from the file name).
    warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno,
                           module=globals_.get("__name__", "<string>"),
                           registry=globals_.setdefault("__warningregistry__", {}))


@contextlib.contextmanager
def recorded():
    """``warnings.catch_warnings(record=True)`` taken by one thread of the process at a time: yields the list of the
    :class:`warnings.WarningMessage` recorded in the block (the caller sets its own filters inside, e.g.
    ``warnings.simplefilter("always")``; none set, the process's apply).

    ``catch_warnings`` is not thread-safe: it swaps the process's filters and ``showwarning`` on entry and puts back
    what it found on exit. Two threads whose blocks overlapped restored each other's, and the last to leave installed
    the other's recorder, a dead list that swallowed every later warning of the process. Blocks therefore wait for one
    another (a process-wide :class:`threading.RLock`); one thread may nest them (an LSODA simulation inside a block).
    Only the block's own thread's warnings are recorded: another thread's, given meanwhile, go to the ``showwarning``
    in place before the block, though under the block's filters (the process's). They were recorded in the block's
    list, kept as its own or lost: 30 loads of a URDF in one thread beside LSODA runs in another showed 21 to 28 of
    their 30 RoundOffWarnings (the runs re-issue what they record once per text and line).
    """
    owner = threading.current_thread()
    with filters_held():
        caught = []
        shown_before = warnings.showwarning

        def record(message, category, filename, lineno, file=None, line=None):
            if threading.current_thread() is owner:
                caught.append(warnings.WarningMessage(message, category, filename, lineno, file, line))
            else:
                shown_before(message, category, filename, lineno, file, line)
        warnings.showwarning = record
        yield caught


@contextlib.contextmanager
def filters_held():
    """``warnings.catch_warnings()`` (filters and ``showwarning`` put back on leaving) taken by one thread of the
    process at a time, under the lock of :func:`recorded`: the block may change the process's filters or
    ``showwarning`` for what it runs (the command line's warning lines). What the outermost block found is kept for
    :func:`_forked`.

    Each thread's own ``catch_warnings()`` raced as :func:`recorded` explains: two overlapping blocks each put back
    the filters they found, and the last to leave installed the other's for good (a states_at_samples beside another
    left "ignore DataWarning" in the process, every later DataWarning of the user lost).
    """
    with _RECORDING:
        outermost = not _OUTSIDE
        try:
            if outermost:
                _OUTSIDE.append((threading.get_ident(), warnings.filters, warnings.showwarning))
            with warnings.catch_warnings():
                yield
        finally:
            if outermost:
                _OUTSIDE.clear()


def _forked():
    """In a child forked while another thread held the lock (``os.fork``, multiprocessing's default start method on
    Linux): that thread, absent from the child, would never release it, and the child's first block waited forever;
    its block's filters and ``showwarning`` (an "ignore" of :func:`ignored`, a recorder) stayed the child's for good.
    The child gets a lock of its own and what that block found. A block of the forking thread itself is left to end
    as it will, in the child too."""
    global _RECORDING
    if _RECORDING._is_owned():
        return
    _RECORDING = threading.RLock()
    if _OUTSIDE:
        _, warnings.filters, warnings.showwarning = _OUTSIDE.pop()
        warnings._filters_mutated()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


@contextlib.contextmanager
def ignored(category: type[Warning] = Warning, message: str = ""):
    """The warnings of ``category`` whose text starts with ``message`` (a regular expression, case ignored; "" any)
    ignored in the block, one thread of the process at a time (:func:`filters_held`): what the package runs knowing
    it warns of nothing the user must hear (a solver's status, said in the result). The filter is the process's: a
    warning another thread gives meanwhile is ignored too, so keep blocks to the call that warns."""
    with filters_held():
        warnings.filterwarnings("ignore", message=message, category=category)
        yield


def deprecated_parameter(function: str, name: str, why: str) -> None:
    """The DeprecationWarning of a public parameter that is still accepted but changes nothing (``why`` says
    what decides instead), at the user's line; the caller warns only when the parameter was given."""
    warn(f"{function}: {name} is deprecated and has no effect ({why}); leave it out", DeprecationWarning)


def deprecated_call(old: str, new: str) -> None:
    """The DeprecationWarning of a public call form kept for one release, at the user's line: ``old``
    the call as written (``"BaseParameters.inverse_dynamics(p_base, q, qd, qdd)"``), ``new`` what replaces it."""
    warn(f"{old} is deprecated and will be removed in the next release: use {new}", DeprecationWarning)
