"""The ``baseparam`` command's entry point (the console script, and ``python -m baseparam``).

Signals are handled from this module's first instruction, before the command line module and what it
loads (click: a good part of start-up), so that a Ctrl-C, SIGTERM or SIGHUP at any moment ends the run
with one line and the shell's status 128 + N (docs/cli.md), never a traceback nor a death by the signal
itself (status −2 seen by the parent). A run goes through three phases:

starting
    until the command line module is loaded: nothing is written yet, so the process says so in one line
    and leaves at once.
running
    the command line's own handling (:mod:`baseparam.cli`): SIGINT raises KeyboardInterrupt, SIGTERM and
    SIGHUP its ``_Terminated``; the stack unwinds (temporary files removed) and the run ends with 128 + N.
ending
    the run is over and its outputs complete: a signal now is noted, not raised, and the process still ends
    with 128 + N, its outputs taken back (held until the end, :func:`baseparam._atomic.settle_kept`: a failed
    run leaves none); only after its last decision (outputs made final) is a signal ignored, status 0. This
    module ends the process itself (threads joined, ``atexit`` functions run, streams
    flushed, then ``os._exit``): Python's own exit restores the default handlers while it finalizes, and a
    Ctrl-C there killed the process by the signal.

A signal can still be lost in the running phase: an extension module's import-time code (numpy.random's,
h5py's) clears an exception it did not raise, a weakref callback reports it as "ignored", or the main thread
sits in a long call that never returns to Python. So a watchdog thread hears every signal through
:func:`signal.set_wakeup_fd`, written by the C-level handler whatever the main thread does. If the process has
not ended :data:`GRACE` seconds after the first signal (twice that when the main thread is already ending the
process: its workers may be slow to stop), or at once on a second SIGTERM or SIGHUP, it removes
the run's temporary files (``baseparam._atomic``; outputs it placed but still kept get their old versions back),
stops the worker processes and ends the process with
128 + N; a run that ends by itself after a swallowed signal still ends with 128 + N.

What is left uncovered is the interpreter's own start-up, before any baseparam code runs (``site`` and the
path set-up: a signal there ends Python with its own message, or kills it before it handles signals).
"""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading

# loaded now: out of memory, their import could fail where they are needed (saying that it is out of memory)
from . import errors
with contextlib.suppress(ImportError):      # no such module on Windows
    import resource  # noqa: F401

# seconds a stopped run may take to unwind (temporary files removed, worker processes stopped) before the
# watchdog ends it; $BASEPARAM_SIGNAL_GRACE sets it (0 in the tests: a lost signal then ends the run at once)
GRACE = 3.0

_STOPPING = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
# The stopping signals the process was started with ignored: `nohup baseparam …` ignores SIGHUP, a shell script's
# background job (`baseparam … &`) SIGINT. They stay ignored, as Python itself leaves them: handled, a closed
# terminal ended a nohup run ("terminated (SIGHUP)", 129) and a Ctrl-C to the script's foreground its background run.
_IGNORED = frozenset(signum for signum in _STOPPING if signal.getsignal(signum) is signal.SIG_IGN)

_PHASE = ["starting"]   # starting → running → ending (see the module's docstring)
_NOTED = []             # signals received in the ending phase (or between the run and this module's code)
_HEARD = []             # every stopping signal the process received, as the watchdog heard it
_WAKEUP = []            # the watchdog's pipe (read end, write end)
_SAID = threading.Lock()  # taken by the one line that says why the process ends (main thread or watchdog)
_WRITTEN = threading.Event()  # set once that line is out: the other thread waits for it before it ends the process
_WRITE_WAIT = 2.0         # s; a line stuck on a full pipe does not keep the process alive longer


def _line(signum):
    if signum == getattr(signal, "SIGINT", None):
        return "baseparam: interrupted"
    return f"baseparam: terminated ({signal.Signals(signum).name})"


def _say_line(text, flush=True):
    """``text`` as one line on stderr, written straight to its file descriptor: after what Python buffered (unless
    ``flush`` is false: from the watchdog, whose flush could wait forever on a stream the main thread holds)."""
    if flush:
        _flush()
    with contextlib.suppress(OSError):
        os.write(_stderr_fd(), (" ".join(text.split()) + "\n").encode(errors="replace"))


def _say(signum, flush=True):
    """The signal's line (:func:`_say_line`), said once, whichever thread comes first."""
    say_once(lambda: _say_line(_line(signum), flush))


def _stderr_fd():
    """The real stderr's descriptor: 2, or its copy while a solver's output is held (baseparam._stderr), so that
    the line is never lost in that temporary file when the watchdog ends the process."""
    held = sys.modules.get("baseparam._stderr")
    return 2 if held is None else held.real_fd()


def _flush():
    """Flush stdout and stderr; a closed or broken stream (a closed pipe: the reader wanted no more) must not stop
    the exit."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def say_once(write):
    """Call ``write()`` (the line that says why the process ends) unless another thread has taken that line; then
    wait until it is written (at most ``_WRITE_WAIT``), so that neither thread ends the process with ``os._exit``
    while the other is still writing it (under load the line was written twice, or lost)."""
    if not _SAID.acquire(blocking=False):
        _WRITTEN.wait(_WRITE_WAIT)
        return
    try:
        write()
    finally:
        _WRITTEN.set()


def _on_signal(signum, frame):
    """The handler of SIGINT, SIGTERM and SIGHUP outside the command line's own (see the phases)."""
    if _PHASE[0] == "starting":                       # nothing written yet: nothing to clean up
        _say(signum)
        os._exit(128 + signum)
    if _PHASE[0] == "running" and frame is not None and frame.f_code not in _OWN_CODE:
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        sys.modules["baseparam.cli"]._terminate(signum, frame)   # raises the command line's _Terminated
    # ending, or in this module's own frame between the run and the code that ends it: raising here would
    # go past every handler (a traceback and a death by the signal); noted, the exit status says it
    _NOTED.append(signum)


def _install(handler):
    for signum in _STOPPING:
        if signum not in _IGNORED:
            signal.signal(signum, handler)


def _grace():
    try:
        value = float(os.environ.get("BASEPARAM_SIGNAL_GRACE", GRACE))
    except ValueError:
        return GRACE
    return min(value, 1e6) if value >= 0 else GRACE     # NaN and negatives: the default; select takes no inf


def _remove_temporaries():
    """The temporary files of this run's writes and compiles in progress, and the outputs it placed but still kept
    (taken back: the run did not end; never a finished run's output). False, and nothing removed, when the run has
    ended already, its outputs made final (:func:`_end`): the process is ending with status 0."""
    # the module as far as it is loaded: the watchdog may come while the main thread still imports it (a second
    # SIGTERM, or no grace, during numpy's import by _atomic's _checks), and must end the process, not fail
    # first the outputs already placed that the run still kept (old versions aside): a stopped run takes them back
    take_back = getattr(sys.modules.get("baseparam._atomic"), "take_back_kept", None)
    if take_back is not None and not take_back():
        return False
    discard = getattr(sys.modules.get("baseparam._atomic"), "_discard", None)
    if discard is not None:                     # defined after _LIVE
        discard(list(sys.modules["baseparam._atomic"]._LIVE))
    # matplotlib's temporary folder (--plot), which atexit would remove; a C kernel's compile in progress (kernel.c,
    # kernel.so); a local Dask cluster's scratch folder (--scheduler local)
    for module, name in (("baseparam._figures", "remove_private"), ("baseparam.dynamics._native", "remove_live"),
                         ("baseparam.identification._workers", "remove_scratch")):
        remove = getattr(sys.modules.get(module), name, None)
        if remove is not None:
            remove()
    return True


def _stop_workers(wait=1.0):
    """Stop the worker processes, then unlink the pools' semaphores (:func:`baseparam._processes.end_children`),
    given at most ``wait`` seconds: a worker that does not stop must not hold the exit."""
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is None:
        return

    def stop():
        with contextlib.suppress(Exception):        # best effort on the way out
            from ._processes import end_children    # loaded with the pools (no import lock met, as a rule)
            end_children()
    try:
        helper = threading.Thread(target=stop, name="baseparam-stop-workers", daemon=True)
        helper.start()
        helper.join(wait)
    except RuntimeError:        # no new thread at the interpreter's shutdown: the workers see our end
        pass


def _tracker_reaped(wait=1.0):
    """:func:`baseparam._processes.tracker_reaped` given ``wait`` seconds, where multiprocessing's tracker was
    loaded."""
    if "multiprocessing.resource_tracker" in sys.modules:
        with contextlib.suppress(Exception):        # (an import failing at the limit of open files)
            from ._processes import tracker_reaped
            tracker_reaped(wait)


# s: what a forced end gives the workers' stop and the tracker's reaping together. Each had a second of its own: a
# worker that kept the tracker's pipe open held the tracker's reaping its whole second after the workers' (a second
# signal's end took 2 s)
FORCED_END_WAIT = 1.0


def _children_ended(wait=FORCED_END_WAIT):
    """Stop the workers, then reap the resource tracker, within ``wait`` seconds in all."""
    import time

    deadline = time.monotonic() + wait
    _stop_workers(wait)
    _tracker_reaped(max(0.0, deadline - time.monotonic()))


def _force(signum):
    """End the process from the watchdog: the main thread did not (the signal was lost, or it is stuck)."""
    errors.silence_logs()      # the line said below is the run's last
    if not _remove_temporaries():       # the signal came after the run's end, its outputs final: it succeeded
        os._exit(0)
    _children_ended()
    _remove_temporaries()       # one the main thread claimed meanwhile
    _say(signum, flush=False)
    os._exit(128 + signum)


def _watch(read_fd, grace):
    """The watchdog thread: hears the signals' bytes on the wakeup pipe (see the module's docstring)."""
    import select
    import time

    if hasattr(signal, "pthread_sigmask"):            # the signals go to the main thread, whose calls they end
        signal.pthread_sigmask(signal.SIG_BLOCK, set(_STOPPING))
    first, deadline, extended = None, None, False
    while True:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            ready, _, _ = select.select([read_fd], [], [], timeout)
        except (OSError, ValueError):                  # the pipe is gone: the process is ending
            return
        if not ready:
            if not extended and _main_is_ending():     # it is on its way out (joining workers): let it finish
                extended, deadline = True, time.monotonic() + grace
                continue
            _force(first)
        try:
            data = os.read(read_fd, 64)
        except BlockingIOError:
            continue
        except OSError:
            return
        if not data:
            return
        for signum in data:
            if signum not in _STOPPING:                # e.g. the command line's SIGALRM
                continue
            _HEARD.append(signum)
            if first is None:
                first, deadline = signum, time.monotonic() + grace
            elif signum != signal.SIGINT:              # a second SIGTERM/SIGHUP: the user insists
                _force(first)


def _main_is_ending():
    """Whether the main thread is in the command line's ``_stopped`` or this module's ``_end``."""
    frame = sys._current_frames().get(threading.main_thread().ident)
    cli = sys.modules.get("baseparam.cli")
    ending = {_end.__code__} | ({cli._stopped.__code__} if cli is not None and hasattr(cli, "_stopped") else set())
    while frame is not None:
        if frame.f_code in ending:
            return True
        frame = frame.f_back
    return False


def _start_watchdog():
    """Start the watchdog (see the module's docstring); False when its thread cannot be started."""
    try:
        read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)              # the C-level handler must never block
        signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    except (OSError, ValueError, AttributeError):      # not the main thread, or no pipes: no watchdog
        return True
    _WAKEUP[:] = [read_fd, write_fd]
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_forget_watchdog)
    try:
        threading.Thread(target=_watch, args=(read_fd, _grace()), name="baseparam-signals", daemon=True).start()
    except RuntimeError:                                # "can't start new thread": said by _threads_refused
        _forget_watchdog()
        return False
    return True


def _threads_refused(watchdog):
    """The line that refuses the run when the process or thread limit (``ulimit -u``, a cgroup's pids.max) leaves no
    room for the watchdog or for OpenBLAS's threads, else None. OpenBLAS, failing to start its threads when numpy is
    loaded, prints four lines and sends the process SIGINT (its way to stop a program): the run ended as
    "interrupted", status 130, as if the user had pressed Ctrl-C; without the watchdog, with a traceback."""
    if not watchdog:
        return f"baseparam: {errors.threads_exhausted()}"
    try:
        from ._processes import blas_threads, threads_startable
    except (OSError, ImportError):      # no descriptor left to read the module (ulimit -n): the run says its limit
        return None
    # one more: a held import's helper thread (baseparam._processes.import_held) may be the one that loads numpy
    # (BLAS without threads of its own needs none: a helper that cannot start is done without)
    # under ulimit -v, _blas.within_address_limit gives OpenBLAS one thread (unless OPENBLAS_NUM_THREADS is set) before
    # numpy loads: its threads' stacks, probed here, refused a run that then needed none (8 MiB each, 64 processors)
    unset = "OPENBLAS_NUM_THREADS" not in os.environ
    blas = 0 if unset and _address_limited() else blas_threads()
    if "numpy" in sys.modules or blas == 0 or threads_startable(blas + 1):
        return None
    return f"baseparam: {errors.threads_exhausted(blas=True)}"


def _forget_watchdog():
    """In a forked child: its signals are its own, not the parent's (the watchdog is not in the child)."""
    with contextlib.suppress(ValueError):
        signal.set_wakeup_fd(-1)
    for fd in _WAKEUP:
        with contextlib.suppress(OSError):
            os.close(fd)
    _WAKEUP.clear()


def _drain():
    """The signals written to the pipe that the watchdog has not read yet."""
    if not _WAKEUP:
        return
    try:
        signal.set_wakeup_fd(-1)
        os.set_blocking(_WAKEUP[0], False)
        data = os.read(_WAKEUP[0], 512)
    except (OSError, ValueError):
        return
    _HEARD.extend(signum for signum in data if signum in _STOPPING)


def _status(code):
    """Exit status of a ``SystemExit`` code, as Python gives it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


def _end(status, signum=None):
    """End the process: threads joined, ``atexit`` functions run, streams flushed, then ``os._exit`` — with
    128 + N when a signal came (``signum`` or one noted meanwhile), its line printed if not already."""
    import atexit

    _PHASE[0] = "ending"
    _install(_on_signal)               # the command line's handlers, left in place when a signal cut its clean-up
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)  # its timer (re-raising a lost signal) is moot now
    shutdown = getattr(threading, "_shutdown", None)   # what Python's exit does first: wait for non-daemon threads
    try:
        if shutdown is not None:
            shutdown()
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 — on the way out; the status says what happened
        pass
    _tracker_reaped()
    _drain()
    if signum is None and (_NOTED or _HEARD):          # after the run, or a signal the run went on after
        signum = (_NOTED or _HEARD)[0]
    if signum is not None:
        status = 128 + signum
    # The run's end: its outputs, held since its report (cli._ends_the_process), made final if it succeeded, else
    # taken back — a signal up to here fails it, as one before the report does. Decided once, under the lock the
    # watchdog's take-back takes: it may have taken them back first (a signal it heard and main had not seen yet).
    settle = getattr(sys.modules.get("baseparam._atomic"), "settle_kept", None)
    if settle is not None and not settle(status == 0) and status == 0:
        signum = (_NOTED or _HEARD or [signal.SIGTERM])[0]
        status = 128 + signum
    # from here on a signal is ignored (noted by _on_signal, never counted): the run has ended, outputs and status
    if signum is not None:
        _say(signum)                                   # once: a line said already (by main) is not said again
    _flush()
    os._exit(status)


def _usable(fd):
    """Whether descriptor ``fd`` is open, and for 1 and 2 open for writing: ``2>&-`` given to a shell script that
    starts Python (pyenv's shims) leaves the script's own file, read-only, on the closed descriptor, where every
    write fails (EBADF) as on a closed one."""
    try:
        os.fstat(fd)
    except OSError:
        return False
    if fd == 0:
        return True
    try:
        import fcntl
    except ImportError:                # no fcntl (Windows): taken as it is
        return True
    try:
        return fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
    except OSError:
        return False


def _standard_descriptors():
    """Give each of the descriptors 0, 1, 2 the run was started without (``>&-``, ``2>&-``; see :func:`_usable`)
    ``/dev/null``, before anything opens a file; returns the ones that were closed.

    A closed one is the next that any ``open`` or ``pipe`` gets: the watchdog's pipe became the "stderr" that
    compilers, libhdf5 and our own last line write to (the bytes read back as signals), a temporary output file
    could have; and Python leaves ``sys.stderr`` None (every command failed on it: exit 1 with a traceback nobody
    saw) or on a descriptor that is not the terminal's."""
    closed = [fd for fd in (0, 1, 2) if not _usable(fd)]
    for fd in closed:                   # lowest first: the open takes the lowest free descriptor, this one
        with contextlib.suppress(OSError):
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
    if 2 in closed:                     # what the run says goes nowhere; its exit status still says how it went
        with contextlib.suppress(OSError, ValueError):
            sys.stderr = open(2, "w", closefd=False, encoding="utf-8", errors="backslashreplace")
    for fd in (1, 2):
        # a pipe its reader left non-blocking (O_NONBLOCK, shared with the reader's end: Node's child_process)
        # refused every write beyond the pipe's 64 KiB with EAGAIN, and the last flush's was dropped: exit 0 with
        # the report cut short. Blocking, a write waits for the reader, as on any pipe.
        with contextlib.suppress(OSError, AttributeError):
            if not os.get_blocking(fd):
                os.set_blocking(fd, True)
    return closed


def _text_streams_escape_what_they_cannot_encode():
    """Make ``sys.stdout`` (and ``sys.stderr``) write a character their encoding lacks as a ``\\uXXXX`` escape.

    The reports, help and messages hold τ, °, ·, … and q̇: under ``PYTHONIOENCODING=latin-1`` (or cp1252, an
    old terminal's) the standard output's strict encoder failed on the first of them, and ``equations``,
    ``identify`` or ``--help`` ended "UnicodeEncodeError", exit 1 with a traceback, the report cut short. An
    escape keeps the report whole and readable; a JSON document written to '-' is ASCII already, and a
    ``\\uXXXX`` in a JSON string is that character. Python's stderr escapes so by default."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            if stream.errors == "strict" and not stream.encoding.lower().replace("-", "").startswith("utf"):
                stream.reconfigure(errors="backslashreplace")


# Said (exit status 2) when the run was started with its standard output closed or read-only (see _usable): the
# report, and a JSON asked for with '-', would be dropped without a word (Python's sys.stdout is then None, which
# click writes nothing to).
STDOUT_CLOSED = ("baseparam: standard output is closed or read-only (started with >&- or 1<FILE); nothing was done "
                 "(give >/dev/null to discard the report)")


def main():
    """Run ``baseparam`` with ``sys.argv``; never returns (the process ends here, see the module's docstring)."""
    closed = _standard_descriptors()
    _text_streams_escape_what_they_cannot_encode()
    _install(_on_signal)
    if 1 in closed:
        _say_line(STDOUT_CLOSED)
        _end(2)
    refused = _threads_refused(_start_watchdog())
    if refused is not None:
        _say_line(refused)
        _end(2)
    try:
        from . import cli
    except (OSError, ImportError, MemoryError) as exc:     # a limit met while it loads (ulimit -n: reading cli.py)
        exhausted = errors.resource_exhausted(exc)
        if exhausted is None:
            raise
        _say_line(f"baseparam: {exhausted}")
        _end(2)

    _PHASE[0] = "running"
    outcome = None
    try:
        if _address_limited():                   # under ulimit -v: OpenBLAS's buffers fail in Python, not in C
            from ._blas import within_address_limit
            within_address_limit()
        cli.main()
    except BaseException as exc:  # noqa: BLE001 — sorted out below, once no signal can raise any more
        _PHASE[0] = "ending"      # first: a signal from here on is noted (and until here, this frame is ours)
        outcome = exc
    _PHASE[0] = "ending"
    signum, status = None, 0
    if isinstance(outcome, SystemExit):
        status = _status(outcome.code)
    elif isinstance(outcome, KeyboardInterrupt):       # before click's own handling began, or after it ended
        signum = signal.SIGINT
    elif isinstance(outcome, cli._Terminated):
        signum = outcome.args[0]
    # a stop that a library wrapped (Python 3.11's "RuntimeError: Error calling __set_name__" of a Ctrl-C landing in a
    # class body of matplotlib, imported by `identify --plot`'s check of the figure's format before the work): said as
    # the stop it is, not with a traceback before "interrupted"
    elif outcome is not None and (stop := cli._signal_within(outcome)) is not None:
        signum = signal.SIGINT if isinstance(stop, KeyboardInterrupt) else stop.args[0]
    # the machine's limit, not a bug
    elif outcome is not None and (exhausted := errors.resource_exhausted(outcome)) is not None:
        _say_line(f"baseparam: {exhausted}")
        status = 2
    elif _stream_failed(outcome):   # stderr itself not written: the status is all the run can still say
        _say_line(f"baseparam: standard error: {outcome.strerror or outcome}")
        status = 2
    elif outcome is not None:                          # a bug: reported as Python would, then the end as always
        import traceback
        traceback.print_exception(outcome)
        status = 1
    if signum is not None:
        _say(signum)
    _end(status, signum)


# How a write to a stream fails (a full disk: ENOSPC, EDQUOT, EFBIG; a reader gone: EPIPE; a device: EIO).
_STREAM_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EPIPE", "EIO")
                           if hasattr(errno, name))


def _stream_failed(outcome):
    """Whether the run ended on a write to its own stderr that failed (``2>/dev/full``, ``2>&1 | head -c0``): the
    command line says every file's OSError itself (exit status 2), so one that reaches here, nameless, is the
    stream its refusals go to (a warning it cannot take is lost, cli._say_warning). It was an internal error, exit
    status 1, with a traceback that could not be written either."""
    return isinstance(outcome, OSError) and outcome.filename is None and outcome.errno in _STREAM_ERRNOS


def _address_limited():
    """Whether the process has an address-space limit (``ulimit -v``); no module loaded to tell."""
    try:
        return resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY
    except (NameError, OSError, ValueError):          # NameError: no resource module (Windows)
        return False


# The frames in which a signal is noted rather than raised (see _on_signal).
_OWN_CODE = frozenset({main.__code__, _end.__code__})
