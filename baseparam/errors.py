"""Exception hierarchy: every error subclasses a builtin so callers catch what they know.

Which class a library function raises (the rule; the checks live in :mod:`baseparam._validation`):

- an argument's value is bad (shape, range, option, NaN, size) → :class:`ArgumentError` (a ValueError);
- an argument's type is wrong (a file name where a Robot is expected, …) → :class:`ArgumentTypeError`
  (an ArgumentError and a TypeError, which earlier versions raised);
- an estimator's or a preprocessing's settings (constructor arguments, ``identify``'s options) →
  :class:`SettingsError` (an ArgumentError; also a DataError, which earlier versions raised, for one
  release);
- a robot description (YAML, URDF, :class:`~baseparam.Robot`) → :class:`RobotDescriptionError` (ValueError);
- data: a trajectory's file, arrays or DataFrame, or anything else given to a trajectory reader or
  to ``preprocess`` → :class:`DataError` (ValueError);
- an export request → :class:`ExportError` (ValueError);
- a computation that fails numerically (a simulation that diverges) → :class:`SimulationError` (an
  ArithmeticError; also an ArgumentError, which earlier versions raised, for one release);
- beyond this machine's memory or time budget → :class:`ResourceLimitError` (MemoryError);
- a limit of the process met (``ulimit -n``, ``-u``), checked before a pool or a local Dask cluster starts → what
  Python itself raises when it meets that limit, an OSError EMFILE or a RuntimeError "can't start new thread", so
  that a caller catches one kind whether the check or the start met it (the command line says them in one line,
  :func:`resource_exhausted`);
- a file that cannot be read or written → :class:`StorageError` (OSError);
- an estimator used before ``fit`` → :class:`NotFittedError` (DataError, AttributeError).

Messages are one line naming the library's parameter (``qd: expected shape (n_samples, 6) or (6,), got
(10, 5)``), file or field, never a command-line flag: the CLI translates parameter names into its flags
in one table (``baseparam.cli.FLAGS``). Hints name parameters as Python keywords (``pass
exact_angles=False``), which the CLI shows as flags (``--exact-angles off``). A value a message shows (what
was got) goes through one rule, ``baseparam._checks.shown``: its repr escaped onto one line and shortened, an
array by its shape. Readers refuse a FIFO, a device or a socket before opening it
(``baseparam._checks.refuse_special``).
"""

import re


def printable(text) -> str:
    """``text`` with line breaks and other unprintable characters escaped (a newline as ``\\n``): names and
    values read from a file go into one-line messages and notes, where a raw newline would forge a line.

    A file name's bytes that the file system's encoding could not decode (any non-ASCII byte under ``LC_ALL=C``
    without UTF-8 mode, a Latin-1 byte under UTF-8) reach Python as surrogates U+DC80–U+DCFF (``surrogateescape``),
    which were shown as ``\\udcc3\\udca9`` where the user typed ``é``: those bytes are shown as the UTF-8 text they
    spell (what a terminal showed as the user typed them), a byte that spells none as ``\\xe9``."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(_shown_piece(piece) for piece in _ESCAPED_BYTES.split(text))


# a run of the surrogates that Python's surrogateescape decodes the bytes 0x80–0xFF to (kept by split)
_ESCAPED_BYTES = re.compile("([\udc80-\udcff]+)")


def bytes_unescaped(text: str) -> str:
    """``text`` with each run of surrogate-escaped bytes (:func:`printable`) read as the UTF-8 text it spells; a byte
    that spells none stays a surrogate. For a value's repr (``baseparam._checks.shown``), which would otherwise show a
    file name typed as ``é`` under ``LC_ALL=C`` as ``\\udcc3\\udca9``."""
    if text.isprintable():
        return text
    return _ESCAPED_BYTES.sub(lambda run: _escaped_bytes(run.group(0)).decode("utf-8", "surrogateescape"), text)


def _escaped_bytes(run: str) -> bytes:
    """The bytes a run of surrogates U+DC80–U+DCFF stands for (``surrogateescape``'s decoding undone)."""
    return bytes(ord(ch) - 0xDC00 for ch in run)


def _shown_piece(piece: str) -> str:
    """A piece of :func:`printable`'s text: a run of surrogate-escaped bytes as the UTF-8 text its bytes spell (a
    byte that spells none as ``\\xNN``), and then any character not printable escaped."""
    if piece and "\udc80" <= piece[0] <= "\udcff":
        piece = _escaped_bytes(piece).decode("utf-8", "backslashreplace")
    return piece if piece.isprintable() else "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in piece)


# A value longer than this that another library's message repeats (click's usage error, Dask's refusal of an address)
# is shown by its ends: a 3 000-character value given to --parameters filled the terminal with its one line.
_VALUE_LIMIT = 200
_LONG_VALUE = re.compile(rf"'[^']{{{_VALUE_LIMIT - 1},}}'|\"[^\"]{{{_VALUE_LIMIT - 1},}}\"|\S{{{_VALUE_LIMIT + 1},}}")


def long_values_shortened(text: str) -> str:
    """``text`` (another library's message) with each quoted value or word longer than :data:`_VALUE_LIMIT`
    characters cut to its first two thirds and last third of that, around '…' (a file name's end, a quote, stay):
    the rule ``baseparam._checks.shown`` keeps for the values the library's own messages show."""
    head, tail = 2 * _VALUE_LIMIT // 3, _VALUE_LIMIT // 3
    return _LONG_VALUE.sub(lambda found: f"{found.group(0)[:head]}…{found.group(0)[-tail:]}", text)


# dlopen's words for a shared library it could not map: an exhausted address space (`ulimit -v`)
_UNMAPPED = ("failed to map segment", "cannot allocate memory", "cannot map zero-fill")


def resource_exhausted(exc):
    """The one line that says the process met one of its limits, when ``exc`` says so, else None:

    - out of memory: a MemoryError (not :class:`ResourceLimitError`, which says its own figures), an OSError ENOMEM,
      or an ImportError of a shared library that could not be mapped (``ulimit -v``);
    - out of file descriptors: an OSError EMFILE (``ulimit -n``), or ENFILE (the whole system's: fs.file-max);
    - out of processes or threads: Python's RuntimeError "can't start new thread", or an OSError EAGAIN raised
      starting a process (``ulimit -u``, a cgroup's pids.max; not one of a non-blocking read or write).

    Each comes from wherever the run happened to allocate, import, open or start (a pipe for a worker pool, a font):
    the machine's limit, not a bug nor the file being read (it was "internal error: ImportError: …", exit 1, a
    MemoryError traceback from an import, or "ROBOT.yaml: Too many open files")."""
    import errno

    if isinstance(exc, BaseParamError):
        return None
    if isinstance(exc, OSError) and exc.errno == errno.ENFILE:      # the system's table, not this process's limit
        return "too many open files in the system (all processes' open files: raise fs.file-max, or close some)"
    if isinstance(exc, OSError) and exc.errno == errno.EMFILE:
        return f"too many open files ({_limit('RLIMIT_NOFILE', 'may have at most {} open', 'ulimit -n', 1)})"
    if (isinstance(exc, RuntimeError) and str(exc) == "can't start new thread"
            or isinstance(exc, OSError) and exc.errno == errno.EAGAIN and _raised_starting_a_process(exc)):
        return threads_exhausted()
    if isinstance(exc, MemoryError) or isinstance(exc, OSError) and exc.errno == errno.ENOMEM:
        what = type(exc).__name__ if isinstance(exc, MemoryError) else printable(exc.strerror or exc)
    elif isinstance(exc, ImportError) and any(words in str(exc).lower() for words in _UNMAPPED):
        # the loader's own line: numpy wraps it in a page of advice ("IMPORTANT: PLEASE READ THIS …")
        line = next(line for line in str(exc).splitlines() if any(words in line.lower() for words in _UNMAPPED))
        what = "a library could not be loaded: " + " ".join(printable(line.replace("Original error was:", "")).split())
    else:
        return None
    limit = _limit("RLIMIT_AS", "may use at most {} MiB of address space", "ulimit -v", 2**20)
    return f"out of memory ({what}{'; ' + limit if limit else ''})"


# Where Python starts a process (multiprocessing's fork or spawn, subprocess): the functions in whose frame a failed
# fork's EAGAIN is raised, with their module's file
_PROCESS_STARTS = frozenset({("_launch", "popen_fork.py"), ("spawnv_passfds", "util.py"),
                             ("_launch", "popen_forkserver.py"), ("_execute_child", "subprocess.py")})


def _raised_starting_a_process(exc):
    """Whether ``exc`` was raised starting a process (a frame of its traceback is one of :data:`_PROCESS_STARTS`):
    EAGAIN is also what a read or write on a non-blocking descriptor raises when it would wait (BlockingIOError
    alike), which no limit of processes explains."""
    import os

    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if (code.co_name, os.path.basename(code.co_filename)) in _PROCESS_STARTS:
            return True
        tb = tb.tb_next
    return False


def threads_exhausted(blas=False):
    """The one line that says no process or thread could be started (a worker, a helper thread; with ``blas``, the
    threads numpy's BLAS starts as it loads), with the process limit when one is set."""
    limits = [limit for limit in (_limit("RLIMIT_NPROC", "may run at most {} processes and threads of its user",
                                         "ulimit -u", 1),
                                  _limit("RLIMIT_AS", "may use at most {} MiB of address space", "ulimit -v", 2**20))
              if limit]
    return ("cannot start a process or thread (" + ("; ".join(limits) or "the system's or a cgroup's limit of tasks "
                                                    "is met")
            + ("; or give OPENBLAS_NUM_THREADS=1 for fewer BLAS threads" if blas else "") + ")")


def silence_logs():
    """No library logs a line after the run's last one (its one line of error or stop), from now to the process's
    end: a Ctrl-C while a local Dask cluster started its workers (`identify --scheduler local`) was followed by
    asyncio's "Task exception was never retrieved … RuntimeError: Nanny failed to start worker process", 21 lines of
    traceback from the cluster's thread, as the process ended. For the command line's stop and its entry point's
    watchdog alike (which does not load the command line module)."""
    import logging
    logging.disable(logging.CRITICAL)


def _limit(name, words, command, unit):
    """``this process WORDS (COMMAND)`` with the soft limit ``resource.NAME`` in ``unit``, or '' when there is none
    (unlimited, or no resource module: Windows)."""
    try:                                      # loaded by the command's entry point
        import resource
        soft = resource.getrlimit(getattr(resource, name))[0]
    except Exception:  # noqa: BLE001 — the figure is a courtesy; the line is said without it
        return ""
    if soft == resource.RLIM_INFINITY:
        return ""
    return f"this process {words.format(f'{soft / unit:.0f}')}: {command}"


class BaseParamError(Exception):
    """Root of all errors raised deliberately by baseparam."""


class ArgumentError(BaseParamError, ValueError):
    """An argument of a library function is invalid (shape, value, option)."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of a library function has the wrong type, e.g. a file name where a
    :class:`~baseparam.Robot` is expected (also a ``TypeError``, what earlier versions raised)."""


class RobotDescriptionError(BaseParamError, ValueError):
    """A robot description (YAML file or :class:`~baseparam.Robot`) is invalid, e.g.
    ``robots/arm.yaml: joints[3].alpha: expected a finite number, got 'abc'``."""


class ResourceLimitError(BaseParamError, MemoryError):
    """The requested computation would not fit in this machine's memory or time budget."""


class StorageError(BaseParamError, OSError):
    """An HDF5/JSON file could not be read or written."""


class DataError(BaseParamError, ValueError):
    """A trajectory (file, DataFrame or arrays) is invalid, e.g. ``ur.csv: line 7: field qd3: not a number ('abc')``."""


class SettingsError(ArgumentError, DataError):
    """An estimator's or a preprocessing's settings are invalid: an :class:`ArgumentError` (also a
    :class:`DataError` for one release, what earlier versions raised)."""


class SimulationError(ArgumentError, ArithmeticError):
    """A numerical computation failed, e.g. a simulation diverged (also an :class:`ArgumentError` for one
    release, what earlier versions raised)."""


class ExportError(BaseParamError, ValueError):
    """An export request is invalid (unknown language or function, bad prefix, output not a directory)."""


class NotFittedError(DataError, AttributeError):
    """An estimator was used (``predict``, ``score``, ``validate``) before ``fit`` (a ``ValueError`` and an
    ``AttributeError`` like scikit-learn's; a :class:`DataError`, what earlier versions raised)."""


class AccuracyWarning(UserWarning):
    """A result is exact in structure (rank, pivots) but its floating-point values are inaccurate,
    e.g. regroupings of a robot with a twist within 1e-7 rad of 90°."""


class ExcitationWarning(UserWarning):
    """The identification data do not determine some base parameters well (high condition number,
    large relative standard deviations, or directions not excited at all)."""


class DataWarning(UserWarning):
    """Measured data look suspicious but usable: velocities that disagree with the positions,
    a cut-off above the Nyquist frequency (no filtering), a very poor fit."""


class RoundOffWarning(UserWarning):
    """A number of a robot description within round-off of a special value was taken as that value,
    e.g. a gravity component of 6e-16 m/s² beside 9.81 (as 0), or a twist of 89.99999999999999° (as 90°).
    The engine decides rank and regroupings exactly, so it must not read round-off as geometry."""


class PhysicalConsistencyWarning(UserWarning):
    """A robot description (a URDF) holds a physically impossible inertia — principal moments that are
    negative or violate the triangle inequality — which is kept as written, as pinocchio does."""


class DescriptionWarning(UserWarning):
    """A robot description was read with an assumption worth knowing, e.g. a URDF ``--root`` below
    movable joints, whose gravity direction is then taken at q = 0 of those joints."""
