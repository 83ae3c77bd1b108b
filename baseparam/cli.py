"""Command line: ``baseparam find``, ``describe``, ``identify``, ``payload``, ``excite``, ``export`` and ``equations``
(reference: docs/cli.md).

Errors become one line on stderr: exit status 2 for bad input (a :class:`~baseparam.BaseParamError`,
a usage error, or an OSError about a file the user named), 1 for anything else ("internal error:
…", a bug to report). The library checks the arguments and names its parameters; :data:`FLAGS`
shows them as the flags (the CLI converts text to values and does not check them again). Each
command ends by saying which files it wrote (``wrote a.json, a.h5``), once they are in place; a report that cannot
be written fails the run (status 2) and takes them back, as any failure does. ``--json -`` writes the JSON
document to stdout; stdout then carries nothing else, and the table or summary (and the wrote-line)
go to stderr.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import math
import os
import re
import signal
import sys
import time
import warnings

import click

from .errors import (BaseParamError, ResourceLimitError, SettingsError, StorageError, long_values_shortened,
                     printable, resource_exhausted, silence_logs)

# The library is imported inside each command, never here: ``baseparam --help`` then starts in
# the time of click alone, and each command loads only the stages it runs (tests/test_startup.py).


class _Progress:
    """A tqdm bar on stderr (a terminal or a pseudo-terminal) that appears once a run has lasted
    ``delay`` seconds — whether or not the library has reported progress by then — and keeps its clock
    moving between the library's reports.

    The library calls it as ``progress(done, total)``; a timer thread shows and refreshes the bar, so a
    long step without reports still shows a live bar. ``delay`` defaults to ``$BASEPARAM_PROGRESS_DELAY``,
    else one second; 0 shows the bar at once (before any work), so a test need not guess how long a run lasts.
    """

    DELAY = 1.0         # seconds before the bar appears
    REFRESH = 0.5       # seconds between refreshes of the elapsed time while no report comes

    def __init__(self, desc, enabled=None, delay=None):
        import threading

        self.desc, self.bar, self.state, self.started = desc, None, (0, 1), time.time()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.delay = _progress_delay(self.DELAY) if delay is None else delay
        self._lock, self._stop, self.shown = threading.Lock(), threading.Event(), threading.Event()
        self._thread = None
        if self.enabled:
            if self.delay <= 0:
                self._show()
            self._thread = threading.Thread(target=self._tick, name="baseparam-progress", daemon=True)
            self._thread.start()

    def __call__(self, done, total):
        with self._lock:
            self.state = (done, total)
            if self.bar is not None:
                self._update()

    def _show(self):
        with self._lock:
            from tqdm import tqdm
            columns, lines = _terminal_size()
            self.bar = tqdm(total=self.state[1], desc=self.desc, file=sys.stderr, leave=False, ncols=columns,
                            nrows=lines)
            self.bar.start_t = self.started       # elapsed time from the run's start, not the bar's
            self._update()
        self.shown.set()

    def _tick(self):
        import threading

        if not self.shown.is_set():
            # a wait beyond the platform's clock (BASEPARAM_PROGRESS_DELAY=inf or 1e300: "never") raised OverflowError
            # in this thread, a traceback on the terminal; TIMEOUT_MAX (292 years) is never, too
            if self._stop.wait(min(self.delay, threading.TIMEOUT_MAX)):
                return
            self._show()
        while not self._stop.wait(self.REFRESH):
            with self._lock:
                self.bar.refresh()

    def _update(self):
        done, self.bar.total = self.state        # a plain attribute of tqdm's: a report may change the total
        self.bar.update(done - self.bar.n)

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _progress_delay(default):
    """Seconds before a progress bar appears: ``$BASEPARAM_PROGRESS_DELAY`` when set, else ``default``."""
    raw = os.environ.get("BASEPARAM_PROGRESS_DELAY", "").strip()
    if not raw:
        return default
    try:
        delay = _plain(raw)
    except ValueError:
        delay = math.nan
    if not delay >= 0:
        _fail(f"BASEPARAM_PROGRESS_DELAY: expected a number of seconds >= 0, got {raw!r}", 2)
    return delay


def _terminal_size():
    """(columns, lines) of stderr's terminal, 80 × 24 where unknown: a pseudo-terminal nobody sized (CI,
    ``script``, ``docker -t``) reports 0 × 0, and tqdm then prints an empty bar, or none."""
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):
        return 80, 24
    return (size.columns if size.columns > 0 else 80), (size.lines if size.lines > 0 else 24)


def _warning_line(message, category, filename, lineno, file=None, line=None, *, shown):
    """Library warnings (e.g. AccuracyWarning) as one line on stderr, not Python's two-line form, with
    the library's parameter names as flags; each line once per run (`shown`: the lines already shown),
    however many times the command meets its cause (a file read twice, a check per block)."""
    text = _warning_text(message)
    if text in shown:
        return
    shown.add(text)
    if _HELD:
        _HELD[-1].append(text)
    else:
        _say_warning(text)


def _say_warning(text):
    """A warning's (or a reader's note's) line on stderr, lost (as Python's own ``warnings`` loses it) when stderr
    cannot take it: a full disk or a pipe whose reader left (``2>/dev/full``). A warning is no outcome of the run: a
    run that did all its work ended with status 2 (bad input, by docs/cli.md) for its warning alone, its outputs
    written, where one with stderr closed (``2>&-``) ends with 0."""
    with contextlib.suppress(OSError):
        click.echo(_bounded(text), err=True)


def _warning_text(message):
    """The line :func:`_warning_line` says for ``message``: one line whatever its text (another library's, a YAML
    reader's spanning 8 lines, included), the library's parameters as flags, the robots' names as given."""
    return f"baseparam: warning: {as_flags(_one_line(message), keep=_robot_names())}"


# The warnings of the run under way, said when it succeeds (a stack: CliRunner runs may nest). A refused run says
# one line, its refusal (docs/cli.md, exit status 2): a warning met before it ("a friction model is given, but no
# joint declares Coulomb friction", the mimic joints read as independent) made two.
_HELD = []


def _reader_note(note):
    """A reader's note on stderr, on one line as a warning's (a bag library's notice may span several), unless the
    reader gave the same text as a warning, shown already (a damaged file read in part is both)."""
    shown = getattr(warnings.showwarning, "keywords", {}).get("shown") or ()
    if _warning_text(note) not in shown:
        _say_warning(f"baseparam: {as_flags(_one_line(note), clauses=False, keep=_robot_names())}")


def _flag(name):
    """The flag of the library's parameter ``name``: ``max_memory`` → ``--max-memory``."""
    return "--" + name.replace("_", "-")


# The library's parameters as the command line spells them: library messages name parameters
# (``tip: no link named 'x'``, ``pass exact_angles=False``), the command line shows the flags
# (``--tip: no link named 'x'``, ``pass --exact-angles off``). A key ``name=value`` is a whole
# keyword argument whose flag form is not ``FLAG value`` (switches, on/off). A dict value is written as the
# CLI writes maps: ``columns={'t': 0, 'current': None}`` → ``--columns t=0,current=none``. Most flags are the
# parameter's name with '-' for '_' (listed by the commands that take them; the switches, name=True, among them).
_NAMED = ("root tip exact_angles angle_tolerance friction rotor_inertia friction_model max_memory parameters mimic "
          "max_disk symbolic "                                                            # every command
          "columns gains topic delay clock skip_bad_rows resample filter_order rest_velocity decimate "   # identify
          "filter_friction method weighting prior prior_weight mass_bounds total_mass scheduler route known "
          "base_topic imu_frame connect_timeout "
          "period harmonics rate limits criterion torque_limits starts workers time_budget seed "        # excite
          "payload_joints pose noise payload_design "
          "still_tolerance still_duration wrench sensor wrench_bias unloaded flange "                    # payload
          "lang what prefix checked max_terms")                                           # export, equations
_SWITCHES = ("friction", "rotor_inertia", "floating", "skip_bad_rows", "torque_limits", "payload", "wrench_bias")
FLAGS = {
    **{name: _flag(name) for name in _NAMED.split()},
    **{f"{name}=True": _flag(name) for name in _SWITCHES},
    "exact_angles=False": "--exact-angles off", "exact_angles=True": "--exact-angles on",
    "mimic='lock'": "--mimic lock", "mimic='independent'": "--mimic independent",
    "cutoff_hz": "--cutoff", "filter_friction=False": "--no-filter-friction", "n_poses": "--suggest-poses",
    "out_dir": "--out", "suggest_static_poses": "--suggest-poses",
}

_ITEM = re.compile(r"'(\w+)':\s*('[^']*'|[^,}]+)")


@functools.cache
def _patterns():
    """The patterns :func:`as_flags` translates, compiled when a message first needs them (a third of this module's
    own start-up, which ``--help`` and a run without a message need not pay): ``name=value`` (a keyword argument;
    "for" before it reads "with" before a flag), ``name:`` or ``a/b:`` where a clause starts, and a snake_case name
    anywhere (no English word has an underscore)."""
    names = "|".join(sorted((re.escape(k) for k in FLAGS if "=" not in k), key=len, reverse=True))
    whole = "|".join(sorted((re.escape(k) for k in FLAGS if "=" in k), key=len, reverse=True))
    keyword = re.compile(rf"(\bfor )?(?<![\w./])(?:({whole})|({names})=('[^']*'|\"[^\"]*\"|{{[^}}]*}}|[\w.:+-]+)?)")
    clause = re.compile(rf"(^|: )((?:{names})(?:/(?:{names}))*)(\[[^\]]*\])?:")
    # (not a part of a path: a log named max_disk.npz, a folder total_mass/, a path shortened to …/imu_frame)
    snake = re.compile(rf"(?<![\w.\-/\\…])({'|'.join(re.escape(k) for k in FLAGS if '_' in k and '=' not in k)})"
                       r"(?![\w=(/\\]|\.\w)")
    return keyword, clause, snake


# a map ({…}: a keyword's value), else a quoted text not a keyword's value (name='x' is translated whole)
_QUOTED = re.compile(r"(\{[^}]*\})|(?<![=\w])('[^'\n]*'|\"[^\"\n]*\")")


def as_flags(message, clauses=True, keep=()):
    """A library message (or text) with the library's parameter names as the CLI's flags (:data:`FLAGS`).

    ``clauses=False`` leaves ``name:`` alone (report texts whose lines start with field names such as
    ``limits:``) and translates keyword arguments and snake_case names only. ``keep``: the texts the message
    shows as the user gave them (a robot's or a joint's name, a file's), left as they are where they stand as
    whole words: a robot named ``total_mass`` is not ``--total-mass``.
    """
    # user data the library quotes (shown(): a link 'max_disk', a tip 'total_mass') is no parameter: each quoted
    # text, but a keyword's value or a map's ({'t': 0}: translated below), stands aside as a placeholder meanwhile.
    # First, over the whole message: split at a kept name first, a quoted one ('Arm Two': …) left its closing quote
    # at the start of the next piece, paired there with the next opening quote, and the text between went untranslated
    # the placeholders are NUL-marked: a NUL of the message's own, as printable() writes it (one of "\0" digits
    # "\0" was taken for a placeholder: IndexError, or another quoted text put in its place)
    message, quoted = message.replace("\0", "\\x00"), []

    def aside(m):
        if m.group(1):
            return m.group(1)
        quoted.append(m.group(2))
        return f"\0{len(quoted) - 1}\0"

    message = _QUOTED.sub(aside, message)
    kept = sorted({re.escape(text) for text in keep if text}, key=len, reverse=True)
    if kept:        # the pieces between them translated (each starts and ends beside a non-word character)
        pieces = re.split(rf"(?<!\w)({'|'.join(kept)})(?!\w)", message)
        message = "".join(piece if k % 2 else _translated(piece, clauses) for k, piece in enumerate(pieces))
    else:
        message = _translated(message, clauses)
    if quoted:
        return re.sub("\0([0-9]+)\0", lambda m: quoted[int(m.group(1))], message)
    return message


def _translated(message, clauses):
    """:func:`as_flags` of a message whose user data stand aside."""

    def keyword(m):
        lead = "with " if m.group(1) else ""
        if m.group(2):
            return lead + FLAGS[m.group(2)]
        value = m.group(4) or ""
        if value.startswith("{"):            # a map, as the CLI's NAME=VALUE,… (None: none)
            value = ",".join(f"{k}={'none' if v.strip() == 'None' else v.strip().strip(chr(39))}"
                             for k, v in _ITEM.findall(value))
        value = value.strip("'\"")
        # without a value ('name one with topic=', 'gains=[6 values …]'): a space only before what follows on the
        # line ('--gains [6 values'), none at its end or before a blank or a closing mark ('--topic', '--topic)')
        after = m.string[m.end():m.end() + 1]
        return lead + FLAGS[m.group(3)] + (f" {value}" if value else
                                           " " if after and not after.isspace() and after not in "),;" else "")

    keyword_pattern, clause_pattern, snake_pattern = _patterns()
    message = keyword_pattern.sub(keyword, message)
    if clauses:
        message = clause_pattern.sub(lambda m: m.group(1) + "/".join(FLAGS[n] for n in m.group(2).split("/"))
                                     + (m.group(3) or "") + ":", message)
    return snake_pattern.sub(lambda m: FLAGS[m.group(1)], message)


def _given(name):
    """Whether option ``name`` (its parameter name) was typed on the command line, its default value included."""
    from click.core import ParameterSource
    return click.get_current_context().get_parameter_source(name) not in (None, ParameterSource.DEFAULT)


def _refuse_clock_without_bag(logs, clock):
    """One line and exit 2 for ``--clock header`` typed for logs none of which is a ROS bag, in the reader's words
    for ``--clock receive`` there: the library cannot tell the default's value from no choice, and took it in
    silence (a file's times are its t column)."""
    from .identification._record import log_extension, read_as_bag
    if clock == "header" and _given("clock") and logs and not any(map(read_as_bag, logs)):
        _fail(f"{logs[0]}: --clock header applies to ROS bags, not {log_extension(logs[0]) or 'this'} files", 2)


# the robot options declaring drive terms, for the runs that use none (_refuse_given)
_DRIVE_TERMS = frozenset({"friction", "rotor_inertia", "friction_model"})


def _refuse_given(names, why):
    """One line and exit 2 for the first of the options ``names`` given on the command line: options the run would
    not use (``payload --suggest-poses --robot-out r.yaml`` wrote nothing and exited 0; ``identify --parameters
    khalil`` of a floating base fitted the default parameters)."""
    for param in click.get_current_context().command.params:
        if param.name in names and _given(param.name):
            _fail(f"{'/'.join(param.opts + param.secondary_opts)}: {why}; leave it out", 2)


# Outputs whose name must say what they are (other outputs take any name): equations --python writes a module, which
# Python imports from a .py name only; payload --robot-out writes the format its extension names. Each is matched
# as the file's reader matches it: Python imports '.py' alone (X.PY is no module, even on a case-blind disk),
# load_robot reads any case ('.URDF' is URDF): the flags of _CASE_SENSITIVE are compared as written.
_SUFFIXES = {"--python": (".py",), "--robot-out": (".yaml", ".yml", ".urdf", ".xml")}
_CASE_SENSITIVE = {"--python"}
# The format each of these flags writes in every command that has it, and the extension a refusal suggests: load_robot
# reads a description by its extension (URDF XML under o.yaml is read as YAML, and refused, as YAML under o.urdf), the
# trajectory readers a log by its extension (JSON under o.csv is read as CSV), as users' tools do
_FLAG_FORMATS = {"--yaml": ("YAML", ".yaml"), "--urdf": ("URDF", ".urdf"), "--mjcf": ("MJCF", ".xml"),
                 "--json": ("JSON", ".json"), "--h5": ("HDF5", ".h5")}


def _read_files(paths):
    """``paths`` (a run's input files and folders) and the files their readers read besides: a LeRobot episode's
    ``meta/info.json`` (its joint names), so that no output is written over it (``--json ROOT/meta/info.json`` beside
    ``ROOT/data/chunk-000/episode_000000.parquet`` replaced the dataset's metadata, exit 0)."""
    from .identification._record import log_extension
    paths = list(paths)
    parquets = [p for p in paths if log_extension(p) == ".parquet"]
    if not parquets:
        return paths
    from .identification._parquet import lerobot_info
    return paths + [str(info) for info in map(lerobot_info, parquets) if info is not None]


def _check_outputs(inputs, outputs, not_stdout=None, writes=None):
    """Refuse, before any work, an input that is no file or folder, an output that would replace an input or another
    output, '-' for an output that cannot go to stdout, a name without the extension :data:`_SUFFIXES` asks for,
    and a name whose extension says another format than the output's (:func:`~baseparam._checks.check_written_format`;
    :func:`_writable` checks the outputs' folders).

    Parameters
    ----------
    inputs : list of str
    outputs : list of (flag, path or None)
    not_stdout : dict of str → str, optional
        Flag → what the refusal of '-' for it says.
    writes : dict of str → (str, str), optional
        Flag → the format it writes and the extension a refusal suggests, when its name may have any extension but
        another format's (:data:`_FLAG_FORMATS`' flags write their format in every command).
    """
    import stat

    from ._output_names import inside, same_file

    for source in inputs:
        # a FIFO or a device would block the reader or never end (a named pipe, /dev/zero): files and folders only
        try:
            mode = os.stat(source).st_mode
        except (OSError, TypeError, ValueError):
            continue                                  # missing: the reader says so, naming the file
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            _fail(f"{source}: not a regular file (a pipe or a device); baseparam reads files and bag folders", 2)
    # an empty name ('' is falsy: the output skipped, exit 0) never comes here: _Path refuses it as click parses
    named = [(flag, path) for flag, path in outputs if path and path != "-"]
    for flag, out in named:
        for source in inputs:
            if same_file(out, source):
                _fail(f"{out}: {flag} names an input file ({source}); writing it would destroy it", 2)
            if inside(out, source):     # a bag folder's metadata.yaml, its .mcap
                _fail(f"{out}: {flag} names a file inside the input folder {source}; writing there would change "
                      "that input (choose another folder)", 2)
    for k, (flag, out) in enumerate(named):
        for other_flag, other in named[:k]:
            if same_file(out, other):
                _fail(f"{out}: {other_flag} and {flag} name the same file", 2)
    for flag, out in outputs:
        if out == "-" and flag in (not_stdout or {}):
            _fail(f"{flag}: {not_stdout[flag]}", 2)
    from ._output_names import check_output
    for _, out in named:     # a link, a name ending in '/': refused before the work, as the write would refuse it
        try:
            check_output(out)
        except StorageError as exc:
            _fail(str(exc), 2)
    writes = {**_FLAG_FORMATS, **(writes or {})}
    for flag, out in named:  # after: a name ending in '/' is a folder's, whatever its extension
        suffixes = _SUFFIXES.get(flag, ())
        ext = os.path.splitext(out)[1]
        if suffixes and not (out if flag in _CASE_SENSITIVE else out.lower()).endswith(suffixes):
            names = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else suffixes[0]
            _fail(f"{flag}: {out}: expected a {names} file name, got " + (repr(ext) if ext else "no extension"), 2)
        if flag in writes:      # the library's writers' rule
            from ._checks import check_written_format
            from .errors import ArgumentError
            try:
                check_written_format(out, *writes[flag], flag)
            except ArgumentError as exc:
                _fail(str(exc), 2)


def _stopped(message, status):
    """End a run stopped by a signal, once the stack has unwound (temporary files removed).

    ``os._exit`` rather than ``sys.exit``: if the signal landed while an extension module ran
    Python code of its own (h5py's, during import), CPython remembers an "unhandled"
    KeyboardInterrupt and, at exit, kills itself with SIGINT instead of returning our status.
    """
    # one line, whichever thread says it first: the entry point's watchdog (when the run came through it) may be
    # ending the run at the same moment (a second signal under load), and says it under the same lock
    say_once = getattr(sys.modules.get("baseparam._entry"), "say_once", lambda write: write())
    say_once(lambda: click.echo(f"baseparam: {message}", err=True))
    silence_logs()
    # os._exit skips atexit, where matplotlib's temporary folder is removed (--plot) and multiprocessing unlinks
    # the semaphores of a worker pool (excite --workers): without this its resource tracker reports them "leaked"
    # after we have gone
    figures = sys.modules.get("baseparam._figures")
    if figures is not None:
        figures.remove_private()
    # the outputs the run held to the process's end (run through the entry point), placed before the signal: a
    # stopped run leaves none of them (docs/cli.md)
    atomic = sys.modules.get("baseparam._atomic")
    if atomic is not None:
        atomic.take_back_kept()
    # (workers still running ended first: see _processes.end_children), then the resource tracker reaped
    if "multiprocessing" in sys.modules:
        from ._processes import end_children, tracker_reaped
        end_children()
        tracker_reaped()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _ends_the_process():
    """Whether this run came through the command's entry point (:mod:`baseparam._entry`), which ends the process
    when the run ends: its outputs are then held until the process ends, made final or taken back there (a signal
    while the interpreter ends, after the report, fails the run as one before it does; ``_atomic.settle_kept``)."""
    entry = sys.modules.get("baseparam._entry")
    return entry is not None and entry._PHASE[0] == "running"


def _plain(text, integer=False):
    """:func:`~baseparam._numbers.plain_float` (``plain_int`` for ``integer``), imported when a value is read: the
    module loads numpy, which ``baseparam --help`` does not."""
    from ._numbers import plain_float, plain_int
    return (plain_int if integer else plain_float)(text)


class _Plain:
    """click's number types read in :func:`~baseparam._numbers.plain_float`'s grammar: click converts with float()
    and int(), which take '２' as 2 and '1_0' as 10 (``--period ٢`` ran a 2 s design, silently)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and ("_" in value or not value.isascii()):
            self.fail(f"expected a number in ASCII digits (no '_'), got {value!r}", param, ctx)
        return super().convert(value, param, ctx)


# click's float, int and range types with that grammar
_Float, _Int, _FloatRange, _IntRange = (type(name, (_Plain, base), {}) for name, base in (
    ("_Float", click.types.FloatParamType), ("_Int", click.types.IntParamType), ("_FloatRange", click.FloatRange),
    ("_IntRange", click.IntRange)))


class _Path(click.Path):
    """click's path type refusing an empty name: '' named no file, yet as an input it was read as the current
    folder ('find ""' was refused for writing "inside the input folder") or taken as the option left out
    ('payload --model ""' fitted with ROBOT_FILE's bodies)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value == "":
            self.fail("the file name is empty", param, ctx)
        return super().convert(value, param, ctx)


# The longest line a refusal or a warning is written as: a name read from a file (a bag's topic of 200 000
# characters, repeated in each message about it) made lines of that size; cut in the middle, the file named at
# the start and the problem at the end kept
MAX_LINE_CHARS = 2000


def _bounded(line):
    """``line`` of at most :data:`MAX_LINE_CHARS` characters: a longer one cut in its middle, saying how much."""
    if len(line) <= MAX_LINE_CHARS:
        return line
    keep = MAX_LINE_CHARS // 2 - 40
    return f"{line[:keep]} … ({len(line) - 2 * keep} characters left out) … {line[-keep:]}"


def _fail(message, status):
    # the one place a refusal is written: a control character (ESC from a file name, a bag's metadata) would
    # reach the terminal raw, and a line break would forge a line
    click.echo(_bounded(f"baseparam: {printable(message)}"), err=True)
    sys.exit(status)


@contextlib.contextmanager
def _one_line_errors(path, on_exit=None, inputs=None, flagged=()):
    """Library errors as one line with exit status 2 (bad input) or 1 (internal); ``path`` names the
    file an OSError without a file name is about. ``on_exit`` runs first (e.g. closing a progress bar).
    ``flagged``: the parameters of the command whose values are input files given by a flag (``limits_file``): an
    error about such a file names its flag first (:func:`_file_flag`).

    The outputs written inside are put in place together when the block ends, and none is left when it fails
    (:func:`baseparam._atomic.outputs_together`): a refused ``--plot`` does not leave the ``--json`` behind. No output
    is written over ``inputs`` (default ``[path]``; :func:`baseparam._output_names.inputs_protected`). An input ``-``
    (no such file) is refused as what it means elsewhere, standard input, which no command reads."""
    from ._atomic import outputs_together
    from ._output_names import inputs_protected
    for given in [path] if inputs is None else inputs:
        if str(given) == "-" and not os.path.lexists("-"):      # was "-: cannot read: No such file or directory"
            _fail("-: standard input is not read; give the input's file name", 2)
    try:
        with outputs_together(), inputs_protected([path] if inputs is None else inputs):
            yield
    except click.ClickException:
        raise
    except Exception as exc:  # noqa: BLE001 — the contract promises one line, never a traceback
        if on_exit is not None:
            on_exit()
        signalled = _signal_within(exc)
        if signalled is not None:                    # Ctrl-C or SIGTERM that Python wrapped: a stop, not a bug
            raise signalled from None
        given = [printable(name) for name in ([path] if inputs is None else [path, *inputs])]   # as the user named them
        given += _robot_names()
        if isinstance(exc, ResourceLimitError):
            _fail(as_flags(f"{path}: {_one_line(exc)}", keep=given), 2)
        exhausted = _exhausted_within(exc)
        if exhausted is not None:                    # a limit of the process (ulimit -v, -n, -u) met: not a bug
            _fail(exhausted, 2)                      # nor the robot file's ("ROBOT.urdf: too many open files")
        if isinstance(exc, BaseParamError):          # deliberate: the message names file/field/parameter
            # a description's own fields (rotor_inertia: in the YAML) are not parameters: no flags for them
            shown = (lambda text: text) if getattr(exc, "file_fields", False) else \
                functools.partial(as_flags, keep=given)
            # one line, as promised: a message that still holds a line break (the library's are one line) has its
            # lines joined as the library joins several problems
            text = "; ".join(_one_line(line) for line in str(exc).splitlines() if line.strip())
            # the library's parameter `robot` is this command's ROBOT_FILE: named as the file ("robot: 'solo' has a
            # floating base" named no file)
            if text.startswith("robot: "):
                text = f"{printable(path)}: {text[len('robot: '):]}"
            _fail(_file_flag(shown(text), flagged), 2)
        if isinstance(exc, OSError):                 # a file the user named cannot be read or written
            _fail(_cwd_gone(exc) or _file_flag(f"{exc.filename or path}: {exc.strerror or exc}", flagged), 2)
        if isinstance(exc, Warning):
            _fail(_warning_made_error(exc, path), 2)
        # anything else (a plain ValueError, KeyError, …) is a bug, not the user's input
        _fail(f"internal error: {type(exc).__name__}: {_one_line(exc)}", 1)


def _file_flag(text, parameters):
    """``text`` (a refusal) with the flag of the input file it starts with, when that file is the value of one of
    ``parameters`` (the command's, e.g. ``model_file``): ``--model: m.yaml: x: unknown field`` where the file alone
    ("m.yaml: x: unknown field") read as ROBOT_FILE's fault. The flag as the command declares it (click's option).
    A text naming the flag already is left as it is."""
    context = click.get_current_context(silent=True)
    if context is None:
        return text
    for option in context.command.params:
        value = context.params.get(option.name)
        if option.name not in parameters or not value or not isinstance(option, click.Option):
            continue
        flag = max(option.opts, key=len)
        if text.startswith(f"{printable(str(value))}: ") and flag not in text:
            return f"{flag}: {text}"
    return text


def _warning_made_error(warning, path=None):
    """The line of a warning that the user's filter (``PYTHONWARNINGS=error``, ``python -W error``) raised as an
    exception: it stopped the run, as asked (it was "internal error: ExcitationWarning: …", exit 1); in the words of
    the warning's own line (flags, not the library's parameters)."""
    text = as_flags(_one_line(warning), keep=_robot_names())
    if path is not None and not text.startswith(printable(str(path))):
        text = f"{printable(str(path))}: {text}"
    return f"{text} (a warning, made an error by the warnings filter PYTHONWARNINGS or -W: {type(warning).__name__})"


def _cwd_gone(exc):
    """The line for an OSError that names no file because the current folder was removed (after the shell entered
    it): os.getcwd() fails, and with it every relative name's absolute form and the start of worker processes. It
    was blamed on ROBOT_FILE ("R: No such file or directory") or on standard output; None for any other error."""
    if exc.filename is not None or exc.errno != errno.ENOENT:
        return None
    try:
        os.getcwd()
    except FileNotFoundError:
        return "the current folder no longer exists (removed after the shell entered it): cd to a folder that exists"
    return None


def _one_line(text):
    """``text`` (or an exception's message) on one line, runs of white space as one space."""
    return " ".join(str(text).split())


def _signal_within(exc):
    """The KeyboardInterrupt or :class:`_Terminated` behind ``exc``, if a signal caused it, else None.

    Python 3.11 wraps what a class body's ``__set_name__`` raises in a RuntimeError: a Ctrl-C landing while
    a module is imported (scipy.stats defines such classes) reached us as "internal error: RuntimeError:
    Error calling __set_name__ …", exit 1, instead of the interrupted run's one line and status 130."""
    return next((cause for cause in _chain(exc) if isinstance(cause, (KeyboardInterrupt, _Terminated))), None)


def _exhausted_within(exc):
    """:func:`~baseparam.errors.resource_exhausted`'s line for ``exc`` or the exception it was raised from or while
    handling (a reader's "FILE: not a valid NPZ file ([Errno 24] Too many open files …)" blamed the file for the
    process's limit: the reader's own words, raised ``from None``, still keep the cause as their context), or None."""
    return next((line for line in map(resource_exhausted, _chain(exc)) if line is not None), None)


def _chain(exc):
    """``exc``, then the exception it was raised from or while handling, and so on, each once (a cycle ends it)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


class _Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where the program is, so that ``finally`` blocks (temporary output
    files) run as they do for Ctrl-C; a BaseException, so no ``except Exception`` swallows it."""


_SIGNALLED = []      # signals received: an extension module's bare ``except`` may swallow the exception


def _terminate(signum, frame):
    _SIGNALLED.append(signum)
    raise _Terminated(signum)


_PENDING = []       # a signal's exception that Python ignored, to raise again (see _redeliver)


def _redeliver(unraisable, default=sys.unraisablehook):
    """``sys.unraisablehook`` while a command runs: a signal's exception that landed in a weakref
    callback or a ``__del__`` is "ignored" by Python, and the run would go on. It is raised again a
    millisecond later by a SIGALRM, in the program's own flow (raising it from the hook, or sending the
    signal from it, would land in the hook and be ignored once more)."""
    exc = unraisable.exc_value
    if isinstance(exc, (_Terminated, KeyboardInterrupt)):
        _PENDING[:] = [exc]
        signal.setitimer(signal.ITIMER_REAL, 0.001)
    else:
        default(unraisable)


def _raise_pending(signum, frame):
    if _PENDING:
        exc = _PENDING.pop()
        raise type(exc)(*exc.args)


@contextlib.contextmanager
def _termination_unwinds():
    """SIGTERM/SIGHUP unwind the stack like KeyboardInterrupt (handlers restored afterwards); a signal
    swallowed where Python ignores exceptions is raised again (:func:`_redeliver`)."""
    # a signal the process was started with ignored (nohup's SIGHUP) stays ignored (see baseparam._entry)
    handlers = {name: _terminate for name in ("SIGTERM", "SIGHUP")
                if hasattr(signal, name) and signal.getsignal(getattr(signal, name)) is not signal.SIG_IGN}
    if hasattr(signal, "setitimer"):
        handlers["SIGALRM"] = _raise_pending
    try:
        previous = {name: signal.signal(getattr(signal, name), handler) for name, handler in handlers.items()}
    except ValueError:                                # not the main thread: leave the handlers alone
        previous = {}
    hook = sys.unraisablehook
    if "SIGALRM" in previous:
        sys.unraisablehook = lambda unraisable: _redeliver(unraisable, hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        if "SIGALRM" in previous:
            signal.setitimer(signal.ITIMER_REAL, 0)
        _PENDING.clear()
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


class _OneLineErrors(click.Group):
    """Usage errors as one line on stderr with exit status 2 (click prints a usage block); signals
    end the run cleanly, with the shell's status 128 + signal number."""

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        from ._warnings import filters_held
        with filters_held(), _termination_unwinds():   # both restored on return; one run's at a time
            warnings.showwarning = functools.partial(_warning_line, shown=set())
            try:
                self._run_saying_warnings(*args, **kwargs)
            except (_Terminated, SystemExit) as exc:
                # a run that went on after a swallowed signal (SystemExit): its status still says so
                number = exc.args[0] if isinstance(exc, _Terminated) else next(iter(_SIGNALLED), None)
                if number is None:
                    raise
                _stopped(f"terminated ({signal.Signals(number).name})", 128 + number)

    def _run_saying_warnings(self, *args, **kwargs):
        """:meth:`_run`, its warnings said when it ends with status 0 (none when it is refused or stopped)."""
        _HELD.append([])
        try:
            self._run(*args, **kwargs)
        except SystemExit as exc:
            if exc.code in (0, None):
                for text in _HELD[-1]:
                    _say_warning(text)
            raise
        finally:
            _HELD.pop()

    def make_context(self, *args, **kwargs):
        with _closed_pipe_said():          # `baseparam --help | true`
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx):
        from ._atomic import outputs_kept

        try:
            # the report is part of the run: one that cannot be written (`find R --json o.json | true`) fails it,
            # status 2, and its outputs, in place since the command's last block ended, are taken back (docs/cli.md)
            with outputs_kept(to_exit=_ends_the_process()), _closed_pipe_said():
                return super().invoke(ctx)
        except KeyboardInterrupt as exc:   # as click's Abort, past click's handling: it writes a blank line first
            raise click.Abort() from exc

    def _run(self, *args, **kwargs):
        try:
            status = super().main(*args, **kwargs)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.Abort:                            # Ctrl-C (click turns KeyboardInterrupt into Abort)
            _stopped("interrupted", 128 + signal.SIGINT)
        except click.ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":   # plain `baseparam`: show the help
                click.echo(exc.ctx.get_help())
                sys.exit(0)
            _fail(_path_kind(exc) or long_values_shortened(_one_line(exc.format_message())), 2)
        except OSError as exc:       # the report itself not written (stdout on a full disk): said as --json - says it
            _fail(_cwd_gone(exc) or (f"{exc.filename}: {exc.strerror or exc}" if exc.filename else
                                     _stdout_unwritable(exc)), 2)
        except Warning as exc:       # outside a command's error handling (its options' checks)
            _fail(_warning_made_error(exc), 2)
        sys.exit(status or 0)


def _reader_gone(exc):
    """Whether ``exc`` is a write to a pipe whose reader closed it (``baseparam … | head -c1``): EPIPE on a
    stream, no file named, which :func:`_closed_pipe_said` says (inside a command, :func:`_to_stdout` says it)."""
    return isinstance(exc, BrokenPipeError) and exc.filename is None


_PATH_KIND = re.compile(r"""^(File|Directory) ('.*'|".*") is a (directory|file)\.$""")


def _path_kind(exc):
    """click's refusal of a folder given for a file output (or a file for a folder one) in the words the write itself
    uses (``OUT: --json: is a directory, expected a file name``), or None for any other usage error."""
    import ast

    found = _PATH_KIND.match(getattr(exc, "message", "") or "")
    param = getattr(exc, "param", None)
    if found is None or param is None or not getattr(param, "opts", None):
        return None
    try:
        name = ast.literal_eval(found.group(2))
    except (ValueError, SyntaxError):
        return None
    problem = "is a directory, expected a file name" if found.group(1) == "File" else "not a directory"
    return f"{name}: {param.opts[0] if isinstance(param, click.Option) else param.human_readable_name}: {problem}"


# the names of the robots the run loaded (click's context meta): texts shown as given, never as flags (as_flags)
_ROBOT_NAMES = "baseparam.robot_names"


def _robot_names():
    """The names of the robots the run under way loaded (none outside a run)."""
    context = click.get_current_context(silent=True)
    return context.meta.get(_ROBOT_NAMES, []) if context is not None else []


def _robot_options(command):
    """The options that say how to read ROBOT_FILE, shared by every command: the command receives a
    ``load`` callable (path → Robot) instead of them."""
    @functools.wraps(command)
    def wrapper(*args, root, tip, exact_angles, angle_tolerance, friction, rotor_inertia, friction_model, floating,
                mimic, **kwargs):
        def load(path):
            from .model.loading import load_robot
            robot = load_robot(path, root=root, tip=tip, exact_angles=exact_angles == "on",
                               angle_tolerance=angle_tolerance, friction=friction, rotor_inertia=rotor_inertia,
                               friction_model=friction_model, floating=floating, mimic=mimic)
            # the run's later refusals start with its name ("total_mass: joint 1: no velocity limit"): not a flag
            click.get_current_context().meta.setdefault(_ROBOT_NAMES, []).extend([robot.name, printable(robot.name)])
            return robot
        return command(*args, load=load, **kwargs)

    return _options(
        click.option("--root", metavar="LINK", help="URDF: the link to take as the base (default: the URDF's root)."),
        click.option("--tip", metavar="LINK[,LINK...]",
                     help="URDF: keep only the joints on the paths from the root to these links."),
        click.option("--exact-angles", type=click.Choice(["on", "off"]), default="on", show_default=True,
                     help="Take angles in radians (URDF rpy and axes, YAML angle: rad) within --angle-tolerance "
                          "of a multiple of 15° as that angle, so that the result is exact; off: as written."),
        click.option("--angle-tolerance", type=_FloatRange(0, 0.01), default=1e-6, show_default=True,
                     metavar="RAD", help="How close to a multiple of 15° an angle must be to be taken as it."),
        click.option("--friction", is_flag=True,
                     help="Declare viscous, Coulomb and offset friction on every joint (a URDF cannot; its "
                          "<dynamics damping friction> give the true values, 0 where it says nothing, and the "
                          "offset 0)."),
        click.option("--rotor-inertia", is_flag=True,
                     help="Declare a rotor inertia on every joint (a URDF robot's true value: 0)."),
        click.option("--friction-model", metavar="MODEL",
                     help="Coulomb friction of every joint that declares it: sign (as written), smooth[:V] "
                          "(tanh(qd/V)), stribeck[:V] (an extra exp(-(qd/V)^2) term, column FS), "
                          "smooth:V+stribeck:V, or none (no Coulomb term); V in rad/s or m/s, or auto "
                          "(identified from the training data; the default when V is left out)."),
        click.option("--floating", is_flag=True,
                     help="URDF: take the root link as a free-flying base (pinocchio's free-flyer root; a URDF "
                          "whose root joint is floating, or a YAML base: floating, floats already); with --tip, "
                          "the joints off the paths to the tips are locked."),
        click.option("--mimic", type=click.Choice(["refuse", "lock", "independent"]), default="refuse",
                     show_default=True,
                     help="URDF: a <mimic> joint has no coordinate of its own; refuse the file, lock every "
                          "mimic joint at q = 0 (their links weigh on the bodies carrying them; one warning line), "
                          "or read each as an independent joint with its own coordinate (pinocchio's default "
                          "reading; one warning line)."),
    )(wrapper)


def _options(*options):
    """One decorator applying ``options`` (click option decorators), the first listed shown first in --help."""
    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


def _json_option(what):
    """``--json FILE|-``: the command's result as JSON; with '-' on stdout, its text report then on stderr
    (:func:`_report`)."""
    return click.option("--json", "json_out", type=_Path(dir_okay=False, allow_dash=True),
                        help=f"Write {what} as JSON ('-': to stdout, the text report then goes to stderr).")


def _parameters_option(help="Elementary parameterization: pseudo-inertia second moments (paper) or Khalil's "
                            "inertia tensor."):
    """``--parameters pseudo|khalil``, the elementary parameterization, as every command that builds a base set
    takes it."""
    return click.option("--parameters", type=click.Choice(["pseudo", "khalil"]), default="pseudo",
                        show_default=True, help=help)


def _size(kind):
    """A click callback reading ``--max-memory`` or ``--max-disk`` (``kind`` 'memory' or 'disk') as bytes; a refusal
    is the library's line with the flag (``--max-disk: expected a positive disk size, got '0'``), the same for both
    flags and whether or not the option is used by the run."""
    def convert(ctx, param, value):
        if value is None:
            return None
        from ._memory import parse_size
        try:
            return parse_size(value, param.name, kind)
        except BaseParamError as exc:
            raise click.UsageError(as_flags(str(exc))) from None
    return convert


# ``--max-memory SIZE`` for the commands that run the projection engine (passed as ``max_memory``)
_memory_option = click.option("--max-memory", "max_memory", metavar="SIZE", callback=_size("memory"),
                              help="Memory the projection may use, e.g. 4G, 512M, 2GiB (default: 80 % of what the "
                                   "machine has available, or of the address space ulimit -v leaves); a robot that "
                                   "would need more is refused at once, with the figure.")


@click.group(cls=_OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="baseparam")
def main():
    """Base inertial parameters of manipulators by the projection method."""


@main.command()
@click.argument("robot_file", type=_Path(dir_okay=False))
@_parameters_option()
@_json_option("the result")
@click.option("--h5", "h5_out", type=_Path(dir_okay=False), help="Store Z, its labels, pivots and Y in HDF5.")
@click.option("--max-disk", "max_disk", metavar="SIZE", callback=_size("disk"),
              help="Largest --h5 file allowed, e.g. 20G (default: the free space of its file system); the size, "
                   "which grows as 5^N, is estimated first and a robot beyond it refused before writing.")
@click.option("--symbolic", "symbolic", metavar="a2,d4,…|all",
              help="Regroupings as formulas in these DH lengths ('all': every non-zero one), with the values "
                   "where the base set changes; --h5 then stores the formulas (strings), not Z.")
@_memory_option
@_robot_options
def find(robot_file, parameters, json_out, h5_out, max_disk, max_memory, load, symbolic=None):
    """Find the base parameters of ROBOT_FILE (a YAML or URDF description) and print their regroupings."""
    if max_disk is not None and h5_out is None:       # the bound of a file not written: ignored, it said nothing
        _fail("--max-disk: goes with --h5", 2)
    _check_outputs([robot_file], [("--json", json_out), ("--h5", h5_out)],
                   {"--h5": "HDF5 cannot be written to stdout; give a file name"})
    _writable([("--json", json_out), ("--h5", h5_out)])
    if h5_out is not None:          # a named pipe: before the projection, not found by the write after it
        from ._hdf5 import check_h5_output
        try:
            check_h5_output(h5_out)
        except StorageError as exc:
            _fail(str(exc), 2)
    progress = _Progress("projecting")
    from .projection.base_set import find_base_parameters
    with _one_line_errors(robot_file, progress.close):
        robot = load(robot_file)
        if symbolic is not None:     # formulas in the named lengths (the exact engine, interpolated)
            from .projection.symbolic import find_symbolic_base_parameters, store_symbolic
            result = find_symbolic_base_parameters(robot, symbolic, parameters, max_memory=max_memory)
        elif h5_out is None:
            result = find_base_parameters(robot, parameters, progress=progress, max_memory=max_memory)
        else:   # the base set, then Z streamed into the file
            from .projection.storage import find_and_store
            result = find_and_store(robot, h5_out, parameters, progress=progress, max_memory=max_memory,
                                    max_disk=max_disk)
        progress.close()
        if symbolic is not None and h5_out is not None:
            store_symbolic(result, h5_out, max_disk=max_disk)
        if json_out:
            _write_json(json_out, result.to_dict())
        table = result.summary()
    _report(table, [json_out, h5_out], json_out == "-")


@main.command()
@click.argument("robot_file", type=_Path(dir_okay=False))
@click.option("--yaml", "yaml_out", type=_Path(dir_okay=False, allow_dash=True),
              help="Write the equivalent standard-DH description (m, deg; inertias moved into its frames).")
@_robot_options
def describe(robot_file, yaml_out, load):
    """Describe ROBOT_FILE: its joints as numbered here, and for a chain the standard DH table with the
    same joint angles (with the base and tool transforms that relate its frames to the description's)."""
    _check_outputs([robot_file], [("--yaml", yaml_out)])    # a missing folder: the write says so
    if yaml_out is None:        # the table shows joints and DH columns, not the drive terms these declare
        _refuse_given(_DRIVE_TERMS,
                      "describe prints no drive terms; it declares them in the description --yaml writes")
    from .model.dh_equivalent import dh_equivalent, dh_robot
    from .model.loading import is_urdf
    from .model.robot import robot_to_yaml
    from .model.summary import NAME_WIDTH, describe as text
    with _one_line_errors(robot_file):
        robot = load(robot_file)
        equivalent = dh_equivalent(robot)
        if yaml_out is not None:
            if equivalent is None:     # --tip selects part of a URDF only (a YAML description is refused with it)
                urdf = robot.source is not None and is_urdf(robot_file, robot.source.encode())
                remedy = "pick a chain with --tip LINK" if urdf else "describe one chain of it in a YAML of its own"
                _fail(f"{robot_file}: --yaml: a tree has no single DH table; {remedy}", 2)
            _write_text(yaml_out, robot_to_yaml(dh_robot(robot, equivalent)))
    names = [printable(name) for name in (robot.name, *(joint.name for joint in robot.joints)) if name]
    _report(as_flags(text(robot, equivalent), clauses=False, keep=names + [name[:NAME_WIDTH] for name in names]),
            [yaml_out], yaml_out == "-")        # (the table shows a joint's name's first NAME_WIDTH characters)


def _write_text(path, text):
    """``text`` to ``path`` (atomically), or to stdout for '-'."""
    from ._atomic import write_text

    if path == "-":
        _to_stdout(text)
    else:
        write_text(path, text)


def _write_json(path, doc):
    """The JSON document to ``path`` (atomically), or to stdout for '-'."""
    from ._json_text import json_text

    _write_text(path, json_text(doc))


def _write_outputs(*outputs):
    """Write, in order, each output ``(path, write)`` whose path is given (``write(path)``); returns the paths, for
    :func:`_report`."""
    for path, write in outputs:
        if path:
            write(path)
    return [path for path, _ in outputs]


def _stdout_unwritable(exc):
    """The one line for a write to the standard output that failed with ``exc`` (a full disk, a pipe whose reader
    left: `baseparam describe R | true`)."""
    return f"standard output: cannot write ({exc.strerror or exc})"


def _to_stdout(text):
    """A document asked for on stdout ('-'); a write that fails there (a full disk, a closed pipe) is said as
    stdout's, not as the input file's (an OSError without a file name is taken for the input's)."""
    try:
        click.echo(text, nl=False)
    except OSError as exc:
        raise StorageError(_stdout_unwritable(exc)) from None


@contextlib.contextmanager
def _closed_pipe_said():
    """A report (or ``--help``) to a pipe whose reader has left, said in one line with status 2, as any output that
    cannot be written: click's own handling of EPIPE ended the run with status 1 — an internal error's, by
    docs/cli.md — and said nothing, so `baseparam describe R | true` looked like a bug, and `--json -` (raised
    inside a command) was blamed on the input file ("R.yaml: Broken pipe")."""
    try:
        yield
    except OSError as exc:
        if not _reader_gone(exc):
            raise
        raise click.ClickException(_stdout_unwritable(exc)) from None


def _report(text, written, json_on_stdout):
    """The command's text, then 'wrote …' for the files written (``written``: the outputs' paths, None for one not
    asked for, '-' for stdout): on stdout, or on stderr when stdout carries the JSON document (so that it can be
    piped)."""
    click.echo(text, err=json_on_stdout)
    files = [path for path in written if path and path != "-"]
    if files:
        click.echo("wrote " + ", ".join(map(printable, files)), err=json_on_stdout)


class _VariadicValidate(click.Command):
    """``--validate A B C`` (docs/cli.md, "baseparam identify"): later bare names belong to --validate,
    not to TRAIN.

    click gives an option one value; without this, ``--validate a.csv b.csv`` (or ``--validate=a.csv b.csv``)
    would silently train on b.csv.
    """

    def parse_args(self, ctx, args):
        out, in_validate, given = [], False, 0
        for arg in [*args, None]:                       # None: the end, where --validate must have had its files
            option = arg is None or (arg.startswith("-") and arg != "-")
            if option and in_validate and not given:
                raise click.UsageError("--validate: no file given")
            if arg == "--validate":
                in_validate, given = True, 0
            elif arg is not None and arg.startswith("--validate="):     # its first file: the names after it follow
                out += ["--validate", arg.partition("=")[2]]
                in_validate, given = True, 1
            elif in_validate and not option:
                out += ["--validate", arg]
                given += 1
            elif arg is not None:                       # TRAIN, or another option: --validate's files end
                in_validate = False
                out.append(arg)
        return super().parse_args(ctx, out)


# One rule for --out: where a command writes its main output. A folder is always accepted (created if
# missing): `export` writes several files into it, `excite` writes ROBOT_excite.csv there. A file name
# is accepted where the output is one file (`excite --out TRAJ.csv`); `export` refuses one, saying how.
_FILE_SUFFIXES = (".c", ".h", ".py", ".json", ".csv")


def _is_folder(path):
    return path.endswith(("/", os.sep)) or os.path.isdir(path)


def _out_folder(out):
    """Refuse a file name as `export --out` (a folder), saying the command that does what it meant."""
    if not _is_folder(out) and out.lower().endswith(_FILE_SUFFIXES):
        parent, name = os.path.split(out)
        _fail(f"{out}: --out names the folder export writes its files to (NAME.h, NAME.c or NAME_dynamics.py, "
              f"and NAME.json): give --out {parent or '.'} --prefix {os.path.splitext(name)[0]}", 2)


def _writable(outputs, plot_out=None):
    """Fail before the work, not after it: every output's directory exists (``outputs``: (flag, path) pairs, as
    :func:`_check_outputs` takes them; None and '-', stdout, skipped), the figure's format is known. Each refusal
    names the output's flag ('o.json: --json: directory … does not exist'), as the outputs' other refusals do."""
    for flag, path in outputs:
        if not path or path == "-":
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):       # a file there was said to be a directory that does not exist
            _fail(f"{path}: {flag}: {folder} is not a directory" if os.path.exists(folder) else
                  f"{path}: {flag}: directory {folder} does not exist", 2)
        if len(os.fsencode(os.path.basename(path))) > _name_max(folder):   # else found only when written, after
            _fail(f"{path}: {flag}: cannot write (File name too long)", 2)  # the work (its notes said by then)
    if plot_out:
        from ._figures import supported_format
        try:
            problem = supported_format(plot_out, private=True)  # matplotlib writes nothing in ~/.cache, ~/.config
        except BaseParamError as exc:                           # an MPLBACKEND matplotlib refuses
            _fail(_one_line(exc), 2)
        if problem:
            _fail(f"{plot_out}: --plot: {problem}", 2)


def _name_max(folder):
    """The longest file name (bytes) ``folder``'s file system takes (255 where it does not say)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _parsed(text, flag, parse, expected):
    """``parse(text)`` (None for None), or a usage error naming ``flag``: ``expected EXPECTED, got TEXT``; the
    library checks the values."""
    if text is None:
        return None
    try:
        return parse(text)
    except ValueError:
        raise click.BadParameter(f"expected {expected}, got {text!r}", param_hint=flag) from None


def _number_or_none(text, flag):
    if text is not None and str(text).lower() in ("none", "off", "0"):
        return None
    return _parsed(text, flag, _plain, "a number or 'none'")


# The options reading and preprocessing a measured trajectory, shared by identify and payload: one definition, so
# that payload takes --topic, --clock and --delay as identify does.
_trajectory_options = _options(
    click.option("--columns", metavar="MAP", help="Column map for files without a header (0-based), e.g. "
                 "'t=0,q=1:7,qd=7:13,current=13:19' (FIELD=none leaves a field out); or key names for NPZ/HDF5, "
                 "column names for Parquet ('q=observation.state'), JointState fields for bags ('current=effort')."),
    click.option("--topic", metavar="TOPIC[,TOPIC...]",
                 help="ROS bags: the sensor_msgs/JointState topic(s) (default: the one JointState topic, or "
                      "/joint_states); several are aligned on one clock."),
    click.option("--clock", type=click.Choice(["header", "receive"]), default="header", show_default=True,
                 help="ROS bags: time messages by their header stamps or by when the recorder received them."),
    click.option("--delay", metavar="auto|SECONDS",
                 help="Shift the effort by the delay behind the positions: estimated with the robot's model (auto, "
                      "printed in ms) or given in seconds."),
    click.option("--gains", metavar="K1,K2,...", help="Drive gains (N·m/A) when the files log motor current: τ = k·i."),
    click.option("--skip-bad-rows", is_flag=True, help="Drop damaged rows (reported) instead of refusing the file."),
    click.option("--cutoff", default="5", show_default=True, metavar="HZ|none",
                 help="Zero-phase Butterworth low-pass of q, qd, tau."),
    click.option("--filter-order", default=4, show_default=True, type=_IntRange(1, 100)),
    click.option("--rest-velocity", default="0.05", show_default=True, metavar="V|none",
                 help="Drop samples where every |qd| is below V (rad/s or m/s)."),
    click.option("--resample", default="auto", show_default=True, metavar="auto|none|DT",
                 help="Resample to a uniform grid: at the median step (auto), at DT seconds, or not."))


def _preprocessing(cutoff, filter_order, rest_velocity, resample, **more):
    """The preprocessing :func:`_trajectory_options` asks for, as a Preprocessing (``more``: its other settings)."""
    from .identification.preprocessing import Preprocessing
    cutoff_hz = _number_or_none(cutoff, "--cutoff")
    if cutoff_hz is None:
        _refuse_given({"filter_order"}, f"the order of the low-pass filter, and --cutoff {cutoff} asks for none")
        # taken and ignored in silence before, as --connect-timeout without --scheduler
        _refuse_given({"filter_friction"}, f"whether the friction columns get the torque's low-pass, and --cutoff "
                                           f"{cutoff} asks for none")
    try:
        return Preprocessing(resample=True if resample == "auto" else (_number_or_none(resample, "--resample") or
                                                                       False),
                             cutoff_hz=cutoff_hz, filter_order=filter_order,
                             rest_velocity=_number_or_none(rest_velocity, "--rest-velocity"), **more)
    except SettingsError as exc:    # the library's words name its parameter (preprocessing: cutoff_hz: …); here a flag
        raise SettingsError(str(exc).removeprefix("preprocessing: ")) from None


@main.command(cls=_VariadicValidate)
@click.argument("robot_file", type=_Path(dir_okay=False))
@click.argument("train", nargs=-1, type=_Path())
@click.option("--validate", "validate", multiple=True, type=_Path(), metavar="FILE...",
              help="Held-out trajectories to validate on.")
@_json_option("estimates and errors")
@click.option("--plot", "plot_out", type=_Path(dir_okay=False),
              help="Write a figure: torques, residuals, parameters with error bars (.png, .pdf, .svg).")
@click.option("--urdf", "urdf_out", type=_Path(dir_okay=False),
              help="With --method consistent: write the robot with the identified bodies as URDF (from a URDF "
                   "robot: that file, only its <inertial> and <dynamics> replaced).")
@click.option("--mjcf", "mjcf_out", type=_Path(dir_okay=False),
              help="With --method consistent: write the identified robot as MuJoCo MJCF (rotor inertia as "
                   "armature, viscous friction as damping, Coulomb as frictionloss; a URDF robot's geometry kept).")
@click.option("--yaml", "yaml_out", type=_Path(dir_okay=False),
              help="With --method consistent: write the description with the identified bodies, friction and "
                   "rotor inertias as its true values.")
@click.option("--method", type=click.Choice(["ols", "wls", "consistent"]), default="ols", show_default=True,
              help="Ordinary, or Gautier's weighted (per-joint residual variance), least squares; or the "
                   "physically consistent fit (every link's pseudo-inertia positive definite, friction ≥ 0).")
@click.option("--weighting", type=click.Choice(["wls", "ols"]), default="wls", show_default=True,
              help="--method consistent: weight the joints' residuals as WLS (1/σ_j²) or not at all.")
@click.option("--prior", type=click.Choice(["auto", "cad", "none"]), default="auto", show_default=True,
              help="--method consistent: pull the links towards the description's true inertias (cad), with a "
                   "weight chosen by hold-out of training segments; auto: cad when the description has them.")
@click.option("--prior-weight", type=_FloatRange(0, 1e6), metavar="MU",
              help="--method consistent: the CAD prior's weight (relative to the unconstrained residual) "
                   "instead of choosing it from the data.")
@click.option("--mass-bounds", metavar="K:LO:HI,...",
              help="--method consistent: bounds on link masses in kg, e.g. '1:2:4,7::0.5' (empty: unbounded).")
@click.option("--total-mass", metavar="LO:HI", help="--method consistent: bounds on the sum of the link masses, kg.")
@click.option("--filter-friction/--no-filter-friction", default=True, show_default=True,
              help="Low-pass the Coulomb (and Stribeck) columns with the torque's filter.")
@_parameters_option()
@_trajectory_options
@_robot_options
@click.option("--decimate", default=1, show_default=True, type=_IntRange(1, 100),
              help="Parallel filtering: decimate regressor and torque together by this factor.")
@click.option("--workers", default=1, show_default=True, type=_IntRange(1, 1024),
              help="Processes reducing the logs, one log each at a time (1: this process); with --scheduler "
                   "local, the local Dask cluster's workers.")
@click.option("--scheduler", metavar="ADDRESS|local",
              help="Reduce the logs on a Dask cluster: its scheduler's address (tcp://host:8786), or local to "
                   "start one of --workers processes (needs pip install 'baseparam[dask]').")
@click.option("--connect-timeout", default=2.0, show_default=True, type=_Float(), metavar="S",
              help="--scheduler ADDRESS: seconds the scheduler has to accept the connection (nothing listening is "
                   "refused then).")
@_memory_option
@click.option("--route", type=click.Choice(["torques", "base", "momentum"]),
              help="Floating-base robots: the equations fitted: all 6 + n (joint torques and contact wrenches), the "
                   "base's six alone (no torque, no friction), or the momentum of a free-floating robot (no force, "
                   "no gravity). Logs as docs/formats.md, \"Floating-base logs\" (used as given unless --cutoff is "
                   "given on the command line).")
@click.option("--contacts", "contacts_file", type=_Path(dir_okay=False), metavar="CONTACTS.yaml",
              help="Floating-base robots: the contact frames whose wrenches the logs hold (w1_fx … per contact).")
@click.option("--base-topic", metavar="TOPIC",
              help="Floating-base robots, ROS bags: the nav_msgs/Odometry or geometry_msgs/PoseStamped topic of the "
                   "base pose (default: the bag's one such topic), or a sensor_msgs/Imu topic (the base from an IMU: "
                   "no momentum route, contact wrenches in link frames only).")
@click.option("--imu-frame", metavar="LINK",
              help="Floating-base robots, ROS bags with an IMU --base-topic: the URDF link the IMU is on, fixed to "
                   "the base link (default: the link the messages' header.frame_id names, else the base link).")
@click.option("--known", "known", multiple=True, metavar="NAME=VALUE",
              help="Floating-base robots: a quantity known beforehand, e.g. mass=448 (the total mass, kg) or a "
                   "standard parameter's name; fixes the scale of the momentum route and of the base route "
                   "without contacts. Repeatable.")
def identify(robot_file, train, validate, json_out, plot_out, urdf_out, mjcf_out, yaml_out, method, weighting, prior,
             prior_weight, mass_bounds, total_mass, filter_friction, parameters, columns, topic, clock, delay, gains,
             skip_bad_rows, cutoff, filter_order, rest_velocity, resample, decimate, workers, scheduler,
             connect_timeout, max_memory, route, contacts_file, base_topic, imu_frame, known, load):
    """Identify the base parameters of ROBOT_FILE from the TRAIN trajectories (CSV, NPZ, HDF5, Parquet,
    ROS 2 bags: .mcap or a bag folder, ROS 1 .bag).

    The plain CSV has a header row t, q1..qN, [qd1..qN], [qdd1..qN], tau1..tauN (SI). Friction and
    rotor-inertia columns are those the description declares. The joints of a bag or Parquet file
    are matched by name to the robot's (URDF names; name: in YAML joints).

    TRAIN and --validate take glob patterns ('logs/*.npz'). Several TRAIN logs, --workers or
    --scheduler: each log is reduced on its own, so memory does not grow with the data, and the summary
    adds each log's errors and its leave-one-log-out validation (the fit of all the other logs on it).
    """
    from ._warnings import warn
    from .identification.estimators import identify as run
    from .identification.logs import identify_logs
    from .projection.base_set import find_base_parameters
    from .identification.trajectory import parse_column_map, read_trajectory
    if not train:
        _fail("no training file: give the TRAIN files after ROBOT.yaml (before --validate)", 2)
    train, validate = _expanded(train), _expanded(validate)
    inputs = _read_files([robot_file, *train, *validate])
    _refuse_clock_without_bag([*train, *validate], clock)
    if plot_out and (workers > 1 or scheduler is not None):
        _fail("--plot: the figure needs the samples in one process; leave out --workers and --scheduler", 2)
    streamed = workers > 1 or scheduler is not None or (len(train) > 1 and not plot_out)
    if plot_out == "-":
        _fail("--plot: a figure cannot be written to stdout; give a file name (.png, .pdf, .svg)", 2)
    for flag, out in (("--urdf", urdf_out), ("--mjcf", mjcf_out), ("--yaml", yaml_out)):
        # the library refuses it only when the output is written (Identification.to_urdf), after the fit
        if out is not None and method != "consistent":
            _fail(f"{flag}: --method {method} estimates base parameters, not bodies; use --method consistent", 2)
        if out == "-":
            _fail(f"{flag}: give a file name", 2)
    if method != "consistent":      # the estimator refuses other values of these; their defaults it cannot tell
        _refuse_given({"weighting", "prior"}, f"only with --method consistent (got --method {method})")
    if scheduler is None or scheduler.strip().lower() == "local":      # a remote scheduler's bound, else unused
        _refuse_given({"connect_timeout"}, "only with --scheduler ADDRESS (a remote scheduler's connection)")
    # the estimator checks these settings (its messages, in flags, are the CLI's)
    fit_options = {"weighting": weighting, "prior": prior, "prior_weight": prior_weight,
                   "mass_bounds": _mass_bounds(mass_bounds), "total_mass": _range(total_mass, "--total-mass")}
    _check_outputs([*inputs, *filter(None, [contacts_file])],
                   [("--json", json_out), ("--plot", plot_out), ("--urdf", urdf_out), ("--mjcf", mjcf_out),
                    ("--yaml", yaml_out)])
    _writable([("--json", json_out), ("--plot", plot_out), ("--urdf", urdf_out), ("--mjcf", mjcf_out),
               ("--yaml", yaml_out)], plot_out)
    for path, first, role in _given_twice((("training", train), ("validation", validate))):
        warn(f"{path}: given twice (as {first} and {role} data): "
             + ("validation on training data is not held out" if first != role else
                "its samples count twice and the standard deviations shrink") + "; give each file once")
    progress = _Progress("projecting")
    bars = [progress]                               # closed on an error: the projection's, then the logs'
    with _one_line_errors(robot_file, lambda: [bar.close() for bar in bars], inputs=inputs):
        settings = _preprocessing(cutoff, filter_order, rest_velocity, resample, decimate=decimate,
                                  filter_friction=filter_friction)
        robot = load(robot_file)
        if urdf_out is not None:
            _check_urdf_output(robot)
    # given or not: '--base-topic ""' on a fixed-base robot was taken as left out (exit 0, ignored)
    if robot.is_floating or any(v is not None for v in (route, contacts_file, base_topic, imu_frame)) or known:
        progress.close()
        with _one_line_errors(robot_file, inputs=inputs):
            summary, written = _identify_floating(robot_file, robot, train, settings)
        # after the block, which puts the outputs in place: 'wrote' was said before the file was there
        _report(summary, written, json_out == "-")
        return
    with _one_line_errors(robot_file, lambda: [bar.close() for bar in bars], inputs=inputs):
        read_options = {"columns": None if columns is None else parse_column_map(columns),      # '' refused
                        "gains": _numbers(gains, "--gains"),
                        "skip_bad_rows": skip_bad_rows, "topic": topic, "clock": clock, "delay": _delay(delay),
                        "robot": robot}

        notes = []      # what the readers did (joints left out, the clock, the delay): said once the fit and the
        #               outputs stand, so that a run refused after reading says one line

        def read(path):
            traj = read_trajectory(path, n_dof=robot.n_dof, **read_options)
            if traj.skipped:
                warn(traj.skipped_summary())
            notes.extend(traj.notes)
            return traj

        if not streamed:
            train_data = [read(p) for p in train]
            validate_data = [read(p) for p in validate] or None
        base = find_base_parameters(robot, parameters, progress=progress, max_memory=max_memory)
        progress.close()
        if streamed:
            progress = _Progress("reducing logs")
            bars.append(progress)
            if scheduler is not None and scheduler.strip().lower() == "local":
                from .identification._workers import import_dask_privately
                import_dask_privately()     # a cluster of this run: no Dask configuration file of the user's read
            result = identify_logs(robot, list(train), validate=list(validate) or None, method=method,
                                   preprocessing=settings, parameters=parameters, base=base, workers=workers,
                                   scheduler=scheduler, progress=progress, read_options=read_options,
                                   connect_timeout=connect_timeout, **fit_options)
            progress.close()
            for record in result.estimator.preprocessing_:     # the readers' notes, as read() prints them
                notes.extend(record.get("reader_notes", ()))
        else:
            result = run(robot, train_data, validate=validate_data, method=method, preprocessing=settings,
                         parameters=parameters, base=base, **fit_options)
        from .identification.plots import save_identification_plot
        meshes = os.path.dirname(os.path.abspath(robot_file))      # a URDF's mesh paths start at its folder
        written = _write_outputs((json_out, lambda path: _write_json(path, result.to_dict())),
                                 (plot_out, lambda path: save_identification_plot(result, path)),
                                 (urdf_out, result.to_urdf),
                                 (mjcf_out, lambda path: result.to_mjcf(path, urdf_folder=meshes)),
                                 (yaml_out, result.to_yaml))
        # once the outputs are written too: a run refused at an output (--urdf of a robot whose gravity a URDF
        # cannot hold) said the notes and then its refusal, several lines
        for note in notes:
            _reader_note(note)
    # its hints name parameters; the robot's name and the logs' are the user's
    _report(as_flags(result.summary(), clauses=False, keep=(robot.name, *(log.source for log in result.logs))),
            written, json_out == "-")


def _given_twice(groups):
    """(path, its first role, this role) for each file named again in ``groups``, a sequence of (role, paths): the
    same file by any name (a symbolic or hard link, another spelling), or a file and a folder it lies in (a ROS 2
    bag's .mcap or .db3 and the bag)."""
    seen, within = {}, {}       # the files' keys, and the keys of the folders they lie in, each to its first role
    for role, paths in groups:
        for path in paths:
            own, *folders = _file_keys(path)
            first = next((seen[key] for key in (own, *folders) if key in seen), within.get(own))
            if first is not None:
                yield path, first, role
            seen.setdefault(own, first or role)
            for key in folders:
                within.setdefault(key, first or role)


def _file_keys(path):
    """What names the file at ``path`` whatever its spelling: its device and inode (a hard link's alike; its real
    path where it cannot be looked at), then those of the folders it lies in, innermost first."""
    from ._atomic import file_identity

    def key(name):              # the name's links resolved already (realpath): lstat's file is stat's
        return file_identity(name) or name
    real = os.path.realpath(path)
    keys = [key(real)]
    while os.path.dirname(real) != real:
        real = os.path.dirname(real)
        keys.append(key(real))
    return keys


def _identify_floating(robot_file, robot, train, settings):
    """`identify` of a floating-base robot (bp.identify_floating), with the command's options: the logs as
    docs/formats.md, "Floating-base logs" (low-passed only when --cutoff is given on the command line: the default
    5 Hz is the fixed-base preprocessing's), the contacts from --contacts, --known NAME=VALUE. Called inside
    identify's error handling; returns the summary and the outputs' paths, reported once that handling has put the
    outputs in place."""
    from .identification.floating import identify_floating
    from .identification.floating_logs import lowpass_floating, read_contacts, read_floating
    options = click.get_current_context().params
    route, contacts_file, known, method = (options[name] for name in ("route", "contacts_file", "known", "method"))
    if robot.is_floating:
        _refuse_given({"weighting", "prior", "filter_friction", "parameters", "rest_velocity", "resample",
                       "max_memory"}, "not used by the floating-base identification")
        if not _given("cutoff"):        # the logs are used as given: no filter, whatever its order
            _refuse_given({"filter_order"}, "the order of the low-pass filter --cutoff HZ asks for, not given")
    else:
        flag = ("--route" if route else "--contacts" if contacts_file else "--known" if known else "--base-topic"
                if options["base_topic"] is not None else "--imu-frame")
        _fail(f"{flag}: {robot_file}: {robot.name!r} has a fixed base; {flag} is for floating-base robots "
              "(base: floating, or --floating for a URDF)", 2)
    if route is None:
        _fail(f"--route: {robot_file}: {robot.name!r} has a floating base: give --route torques|base|momentum", 2)
    # given or not, not true or false: '--prior-weight 0' or '--columns ""' was taken as left out
    unused = {"--validate": bool(options["validate"]), **{flag: options[name] is not None for flag, name in (
        ("--plot", "plot_out"), ("--urdf", "urdf_out"), ("--mjcf", "mjcf_out"), ("--yaml", "yaml_out"),
        ("--columns", "columns"), ("--delay", "delay"), ("--gains", "gains"), ("--mass-bounds", "mass_bounds"),
        ("--total-mass", "total_mass"), ("--prior-weight", "prior_weight"), ("--scheduler", "scheduler"))},
        "--workers": options["workers"] > 1, "--decimate": options["decimate"] > 1,
        "--skip-bad-rows": options["skip_bad_rows"]}
    for flag, value in unused.items():
        if value:
            _fail(f"{flag}: not available for a floating-base robot (--route); leave it out", 2)
    if method not in ("ols", "consistent"):
        _fail(f"--method {method}: a floating-base robot is fitted by ols or consistent", 2)
    quantities = {}
    for item in known:
        name, sep, value = item.partition("=")
        try:
            number = _plain(value) if sep else None
        except ValueError:
            number = None
        if not name.strip() or number is None:
            _fail(f"--known: expected NAME=VALUE (e.g. mass=448), got {item!r}", 2)
        if name.strip() in quantities:          # a dict would keep the last silently
            _fail(f"--known: {name.strip()} given twice ({quantities[name.strip()]:g} and {number:g})", 2)
        quantities[name.strip()] = number
    contacts, topics = read_contacts(contacts_file, robot, topics=True) if contacts_file else ((), {})
    bag_options = {name: options[name] for name in ("topic", "base_topic", "clock", "imu_frame")}
    lowpass = _given("cutoff") and settings.cutoff_hz is not None
    data, wrenches = [], []
    for path in train:
        traj = read_floating(path, robot, topics, **bag_options)
        if lowpass:
            traj = lowpass_floating(traj, settings.cutoff_hz, settings.filter_order)
        data.append(traj)
        wrenches.append(traj.wrenches)
    result = identify_floating(robot, data, route=route, contacts=contacts, wrenches=wrenches if contacts else None,
                               known=quantities or None, method=method)
    written = _write_outputs((options["json_out"], lambda path: _write_json(path, result.to_dict())))
    for note in (note for traj in data for note in traj.notes):   # once the fit and its output stand: one line
        _reader_note(note)
    return result.summary(), written


def _range(text, flag):
    """``LO:HI`` (either may be empty) as (float or None, float or None); the estimator checks the values."""
    def parse(text):
        parts = text.split(":")
        if len(parts) != 2:
            raise ValueError
        return tuple(_plain(x) if x.strip() else None for x in parts)
    return _parsed(text, flag, parse, "LO:HI in kg (either may be empty)")


def _mass_bounds(text):
    """``K:LO:HI,...`` as {link: (lo, hi)}."""
    if text is None:
        return None
    if not text.strip():                       # an empty value is no bound: it was taken as none given
        raise click.BadParameter(f"expected K:LO:HI entries, got {text!r}", param_hint="--mass-bounds")
    from ._validation import comma_list
    out = {}
    for item in comma_list(text, "--mass-bounds", error=click.UsageError):     # said as --symbolic's and --what's
        number = _parsed(item, "--mass-bounds", lambda item: _plain(item.partition(":")[0], integer=True),
                         "K:LO:HI with K a link number")
        if number in out:                      # a dict would keep the last silently
            raise click.BadParameter(f"link {number}: given twice", param_hint="--mass-bounds")
        out[number] = _range(item.partition(":")[2], "--mass-bounds")
    return out


def _delay(text):
    """``--delay auto|SECONDS`` as 'auto', a float or None."""
    return _parsed(text, "--delay", lambda text: "auto" if text.strip().lower() == "auto" else _plain(text),
                   "'auto' or a number of seconds")


def _looks_numeric(text):
    """Whether an option taking a name or numbers (``--flange tool0`` or ``--flange 0,0,0.1,0,0,0``) was given
    numbers: a comma, or its text a number in the grammar every option's numbers are read in (:func:`_plain`)."""
    if "," in text or ";" in text:
        return True
    try:
        _plain(text)
    except ValueError:
        return False
    return True


def _numbers(text, flag):
    """``1,2.5,…`` as floats (one line naming the option when malformed); the library checks the values. An empty
    entry is malformed: dropped, it moved the values after it to the joints before them (``--pose 0,,1,…``). A
    separator ending the list (``1,2,3,``, as a script joining values writes it) moves nothing and stays taken."""
    def parse(text):
        entries = text.replace(";", ",").split(",")
        if len(entries) > 1 and not entries[-1].strip():
            entries.pop()
        return [_plain(x) for x in entries]

    return _parsed(text, flag, parse, "comma-separated numbers")


@main.command()
@click.argument("robot_file", type=_Path(dir_okay=False))
@click.option("--lang", type=click.Choice(["c", "python"]), required=True,
              help="C99 (header + source) or Python (numpy).")
@click.option("--what", default="regressor,slotine_li,inverse_dynamics", show_default=True,
              help="Functions to export, comma-separated: the names of the Python functions and of the C "
                   "functions NAME_<name> ('-' for '_' is accepted).")
@click.option("--prefix", default="baseparam", show_default=True, help="NAME: function prefix and file stem.")
@click.option("--out", "out_dir", default=".", show_default=True, type=_Path(file_okay=False),
              help="Folder for NAME.h/NAME.c or NAME_dynamics.py, and NAME.json (created if missing); as "
                   "excite's --out, which also takes a folder.")
@click.option("--checked", is_flag=True,
              help="C: also write NAME_<name>_checked(...), each function behind a check of its inputs (returns 0, "
                   "or 1/2 for a state/p_base non-finite or beyond NAME_MAX_STATE/NAME_MAX_PARAMETER).")
@_parameters_option()
@_robot_options
@_memory_option
def export(robot_file, lang, what, prefix, out_dir, checked, parameters, max_memory, load):
    """Export ROBOT_FILE's base regressor, Slotine–Li regressor and inverse dynamics as C or Python code.

    The code has no redundant operations (common subexpressions once, DH zeros folded, sin/cos once
    per joint); NAME.json records the base-parameter names and each function's operation count.
    """
    from .codegen._export import (check_checked, check_exported_files, check_out_dir, check_prefix, export as write,
                                  parse_what)
    from .dynamics.printing import EXPORTED
    from .model.friction import refuse_unresolved
    from .projection.base_set import find_base_parameters
    if out_dir == "-":      # else a folder named '-'
        _fail("--out: give a folder name (export writes several files; '-' is not stdout here)", 2)
    progress = _Progress("projecting")
    _out_folder(out_dir)
    with _one_line_errors(robot_file, progress.close):   # output errors name their file
        functions = parse_what(what)               # before the projection: a typo costs no work
        check_prefix(prefix, lang)
        check_checked(checked, lang)
        check_out_dir(out_dir)
        check_exported_files(out_dir, prefix, lang)     # a read-only NAME.json: before the projection
        robot = load(robot_file)
        refuse_unresolved(robot, label=robot_file, **EXPORTED)   # a scale left 'auto': before the projection
        base = find_base_parameters(robot, parameters, progress=progress, max_memory=max_memory)
        progress.close()
        result = write(base, lang, functions, prefix, out_dir, checked=checked)
    _report(f"{base.robot.name}: {base.rank} base parameters\n{result.summary()}", result.files, False)


def _excite_default(name):
    """The library's default (baseparam/excitation/_defaults.py), read when the command runs, so that --help
    loads no library module; its shown value is checked against the library's (tests/test_excite_cli.py)."""
    def value():
        from .excitation import _defaults
        return getattr(_defaults, name)
    return value


@main.command()
@click.argument("robot_file", type=_Path(dir_okay=False))
@click.option("--out", "text_out", type=_Path(dir_okay=False),
              help="Write the equations (Markdown with LaTeX) to this file instead of stdout.")
@click.option("--python", "python_out", type=_Path(dir_okay=False),
              help="Write a Python module defining tau(q, qd, qdd, p), p the base parameters in find's order (SI).")
@_json_option("the equations (SymPy strings)")
@_parameters_option()
@click.option("--max-terms", "max_terms", type=_Int(), default=100_000, show_default=True, metavar="N",
              help="Refuse a closed form of more than N terms (too long to print; a generic 7R arm has 350 000).")
@click.option("--symbolic", "symbolic", metavar="a2,d4,…|all",
              help="Keep these DH lengths as symbols (m; 'all': every non-zero one), as find --symbolic.")
@_robot_options
@_memory_option
def equations(robot_file, text_out, python_out, json_out, parameters, max_terms, max_memory, load, symbolic=None):
    """Print ROBOT_FILE's equations of motion in closed form, in its base parameters, checked against
    Newton–Euler at random states (the largest difference is printed with them)."""
    # before minutes of work; '-' for --out or --python would be a file named '-' (the Markdown goes to stdout anyway)
    stdout = "give a file name ('-' is stdout for --json only; without --out the Markdown goes to stdout)"
    _check_outputs([robot_file], [("--out", text_out), ("--python", python_out), ("--json", json_out)],
                   {"--out": stdout, "--python": stdout}, writes={"--out": ("Markdown", ".md")})
    _writable([("--out", text_out), ("--python", python_out), ("--json", json_out)])
    _sympy_cache_for_printing()
    from .codegen.equations import equations as closed_form
    from .dynamics.printing import EXPORTED
    from .model.friction import refuse_unresolved
    from .projection.base_set import find_base_parameters
    progress = _Progress("projecting")
    with _one_line_errors(robot_file, lambda: progress.close()):     # the bar of the step running
        robot = load(robot_file)
        refuse_unresolved(robot, label=robot_file, **EXPORTED)   # a scale left 'auto': before the projection
        from .projection.symbolic import numeric_if_no_length, parse_symbols
        symbolic = numeric_if_no_length(robot, symbolic)
        if symbolic is not None:     # the lengths named, before the projection (a URDF's refused after 2 s of it)
            parse_symbols(robot, symbolic)
        base = find_base_parameters(robot, parameters, progress=progress, max_memory=max_memory)
        progress.close()
        # SymPy building and printing a 7-joint arm's closed form takes 15-20 s of CPU: a live clock on a terminal
        # rather than a silence that looks like a hang
        progress = _Progress("writing the equations")
        eq = closed_form(base, max_terms=max_terms, symbolic=symbolic, max_memory=max_memory)
        written = _write_outputs((json_out, lambda path: _write_json(path, eq.to_dict())),
                                 (python_out, lambda path: _write_text(path, eq.python_source())),
                                 (text_out, lambda path: _write_text(path, eq.markdown())))
        shown = eq.markdown() if text_out is None else (f"{base.robot.name}: {base.rank} base parameters; "
                                                        f"max |tau - tau_NE| = {eq.max_error:.3g}")
        progress.close()
    _report(shown, written, json_out == "-")


# Entries of each of SymPy's caches (its default: 1000). Printing a 7-joint arm's equations orders the factors of
# 26 000 subexpressions by sort keys that SymPy caches; at 1000 a nested sum's key is gone before it is asked for
# again. 'baseparam equations robots/panda.yaml': 16.5 s user at 1000, 13.0 s at 100 000 (+36 MB resident).
SYMPY_CACHE_SIZE = 100_000


def _sympy_cache_for_printing():
    """SymPy's cache size (``$SYMPY_CACHE_SIZE``, read when SymPy is imported) raised for this command's process,
    unless the user set it or SymPy is already loaded (the library itself leaves SymPy's settings alone)."""
    if "sympy" not in sys.modules:
        os.environ.setdefault("SYMPY_CACHE_SIZE", str(SYMPY_CACHE_SIZE))


def _excite_budget(text, starts, workers, payload_design):
    """``excite``'s (time_budget, starts) for design_excitation from ``--time-budget S|none`` and ``--starts``.

    Left out, the budget is ``_defaults.TIME_BUDGET`` (``_defaults.WIDE_TIME_BUDGET`` for the wide payload design,
    whose refinement takes longer) and the starts those of no budget, so that a search ending before it gives the
    design of no budget to the bit; given, the library's defaults apply (with a budget, as many starts as fit)."""
    from .excitation import _defaults
    if not _given("time_budget"):
        from ._validation import check_workers
        from .excitation._search import default_starts
        budget = _defaults.WIDE_TIME_BUDGET if payload_design == "wide" else _defaults.TIME_BUDGET
        return budget, default_starts(check_workers(workers)) if starts is None else starts
    budget = _parsed(text, "--time-budget", lambda text: None if text.strip().lower() == "none" else _plain(text),
                     "a number of seconds or 'none'")
    from .excitation.design import MAX_TIME_BUDGET
    if budget is not None and budget > MAX_TIME_BUDGET:     # the library's "leave it out" is the default budget here
        raise click.BadParameter(f"{budget:g} s is beyond {MAX_TIME_BUDGET:g} s (31 years): give none for no budget",
                                 param_hint="--time-budget")
    return budget, starts


@main.command()
@click.argument("robot_file", type=_Path(dir_okay=False))
@click.option("--period", default=_excite_default("PERIOD"), show_default="14", type=_Float(), metavar="S",
              help="Period T of the trajectory (s): it starts and ends at rest and can be repeated.")
@click.option("--harmonics", default=_excite_default("HARMONICS"), show_default="7", type=_Int(), metavar="K",
              help="Harmonics of 1/T per joint.")
@click.option("--rate", default=100.0, show_default=True, type=_Float(), metavar="HZ",
              help="Controller rate of the written trajectory (period × rate whole; ≥ 8 samples per cycle of the "
                   "highest harmonic).")
@click.option("--limits", "limits_file", type=_Path(dir_okay=False), metavar="FILE",
              help="Limits per joint, overriding the description's: YAML joints: [{q: [lo, hi], qd: v, qdd: a, "
                   "tau: t}, ...] (SI), or a URDF whose <limit> elements apply.")
@click.option("--criterion", type=click.Choice(["cond", "dopt", "inertia"]), default="cond", show_default=True,
              help="Minimize cond(W_b), or −log det(W_bᵀW_b) (D-optimality), or (with --payload) the sum of the "
                   "variances of the payload's inertia (A-optimality; rows weighted by --noise).")
@_parameters_option(help="Parameterization of the base columns cond(W_b) is measured in, as in the other commands "
                          "(khalil: pinocchio's columns, to recompute cond with it); the JSON reports both.")
@click.option("--torque-limits", is_flag=True,
              help="Also keep |τ| within the torque limits (URDF effort or tau:), predicted with the description's "
                   "true inertias.")
@click.option("--starts", type=_Int(), help="Number of starts of the search (default: 4 per worker, at least 8; with "
                                        "a --time-budget given, as many as fit).")
@click.option("--workers", type=_Int(),
              help="Parallel worker processes (default 1: this process; -1: one per usable core).")
@click.option("--time-budget", metavar="S|none",        # 60, 300: _defaults.TIME_BUDGET, WIDE_TIME_BUDGET (tests)
              help="Stop the search after S seconds, keeping the starts 0 … k−1 that finished (--starts k "
                   "reproduces the result); none: no budget. Default: 60 (300 with --payload-design wide).")
@click.option("--seed", default=0, show_default=True, type=_Int(), help="Same seed and settings → same trajectory.")
@click.option("--payload", is_flag=True,
              help="Design for identifying a payload on the last link (model known): only the last joints move, the "
                   "others held at --pose; cond over the payload's identifiable columns.")
@click.option("--payload-joints", default=3, show_default=True, type=_Int(), metavar="N",
              help="With --payload: how many of the last joints move.")
@click.option("--pose", metavar="Q1,Q2,…",
              help="With --payload: positions of the held joints (rad or m, one per joint; default: a bent pose, a "
                   "quarter of each half range above its middle).")
@click.option("--noise", metavar="S1,S2,…",
              help="With --criterion inertia or --payload-design wide: each joint's torque noise (N·m, one per "
                   "joint), weighting its rows (default: equal).")
@click.option("--payload-design", type=click.Choice(["standard", "wide"]), default="standard", show_default=True,
              help="With --payload: wide searches a start of --period/4 with 4 harmonics, plays it 4 times as a "
                   "series of --period and --harmonics (≥ 16; e.g. 20 s, 48) and refines it by L-BFGS for the "
                   "variances of the payload's inertia about its centre of mass (slower; bounded by --time-budget).")
@click.option("--out", "csv_out", type=_Path(),
              help="Write the trajectory: CSV with header t, q1..qN, qd1..qN, qdd1..qN (SI) at --rate, t = 0 … T; "
                   "a folder (ending in / or existing) gets ROBOT_excite.csv, as export's --out is a folder.")
@_json_option("coefficients, cond(W_b) of the written samples and limits")
@click.option("--plot", "plot_out", type=_Path(dir_okay=False),
              help="Write a figure of the joint trajectories against their limits (.png, .pdf, .svg).")
@_robot_options
def excite(robot_file, period, harmonics, rate, limits_file, criterion, parameters, torque_limits, starts, workers,
           time_budget, seed, payload, payload_joints, pose, noise, payload_design, csv_out, json_out, plot_out,
           load):
    """Design an excitation trajectory for ROBOT_FILE: a finite Fourier series per joint, at rest at both
    ends, within the joint limits at every instant, that minimizes the condition number of the base
    regressor (friction and rotor-inertia columns the description declares included).
    """
    if not payload:
        _refuse_given({"payload_joints", "pose", "payload_design"}, "goes with --payload")
    else:                   # the payload design's columns are the last link's ten: drive terms enter nowhere
        _refuse_given(_DRIVE_TERMS, "a payload design conditions the last link's 10 columns only (no drive terms)")
    inputs = [robot_file] + ([limits_file] if limits_file else [])
    folder = csv_out and csv_out != "-" and _is_folder(csv_out)        # created when the file is written
    named = folder and (csv_out.rstrip("/" + os.sep) or csv_out)
    if folder and os.path.islink(named):     # as export's --out and every output file: not written through a link
        _fail(f"{csv_out}: --out: is a symbolic link (to {os.readlink(named)!r}), which baseparam did not create; "
              "not written through (remove the link, or choose another folder)", 2)
    if folder:                                                          # there, the robot file's stem + _excite.csv
        csv_out = os.path.join(csv_out, os.path.splitext(os.path.basename(robot_file))[0] + "_excite.csv")
    _check_outputs(inputs, [("--out", csv_out), ("--json", json_out), ("--plot", plot_out)],
                   {"--out": "give a file name", "--plot": "give a file name"}, writes={"--out": ("CSV", ".csv")})
    if folder:               # made when the file is written: a read-only or full disk said before the work
        from ._output_names import unwritable
        problem = unwritable(csv_out, made=True)
        if problem is not None:
            _fail(f"{csv_out}: {problem}", 2)
    _writable([("--out", None if folder else csv_out), ("--json", json_out), ("--plot", plot_out)], plot_out)
    from .excitation.design import design_excitation
    from .model.robot import require_fixed_base
    progress = _Progress("designing")
    with _one_line_errors(robot_file, progress.close, inputs=inputs, flagged={"limits_file"}):
        time_budget, starts = _excite_budget(time_budget, starts, workers, payload_design)
        robot = require_fixed_base(load(robot_file), "excite")     # named as the command, not the library's function
        design = design_excitation(robot, period=period, harmonics=harmonics, rate=rate, limits=limits_file,
                                   criterion=criterion, parameters=parameters, torque_limits=torque_limits,
                                   starts=starts, workers=workers, time_budget=time_budget, seed=seed,
                                   progress=progress, payload=payload, payload_joints=payload_joints,
                                   pose=_numbers(pose, "--pose"), noise=_numbers(noise, "--noise"),
                                   payload_design=payload_design)
        progress.close()
        if folder:                  # removed again if the outputs are discarded (a signal, a refused --plot)
            from ._atomic import make_folders
            make_folders(os.path.dirname(csv_out))
        written = _write_outputs((csv_out, design.to_csv),
                                 (json_out, lambda path: _write_json(path, design.to_dict())),
                                 (plot_out, design.plot))
    _report(as_flags(design.summary(), clauses=False, keep=(robot.name, design.limits.source)), written,
            json_out == "-")


@main.command()
@click.argument("robot_file", type=_Path(dir_okay=False))
@click.argument("loaded", nargs=-1, type=_Path())
@click.option("--unloaded", multiple=True, type=_Path(), metavar="LOG",
              help="A log of the same motion without the payload (repeat the flag, one per LOADED log): the "
                   "payload torque is then loaded − unloaded, which cancels what the model gets wrong.")
@click.option("--model", "model_file", type=_Path(dir_okay=False),
              help="The robot's model (YAML or URDF, e.g. written by identify --method consistent --yaml) "
                   "instead of ROBOT_FILE's bodies.")
@_json_option("mass, com, inertia and their standard deviations")
@click.option("--robot-out", "robot_out", type=_Path(dir_okay=False),
              help="Write ROBOT_FILE with the payload on its last link (.yaml/.yml, or .urdf: from a URDF robot, its "
                   "text with one more link on a fixed joint), for export, identify and forward dynamics; or .xml: "
                   "MuJoCo's MJCF, for simulation.")
@click.option("--static", is_flag=True,
              help="Mass and centre of mass only, from the still poses of the logs (held --still-duration s within "
                   "--still-tolerance rad, averaged; no filtering); with --unloaded, the same poses without the "
                   "payload. At least 4 poses (see --suggest-poses).")
@click.option("--still-tolerance", type=_Float(), metavar="RAD",
              help="With --static: how far a joint may drift during a still pose (default 0.002).")
@click.option("--still-duration", type=_Float(), metavar="S",
              help="With --static: the shortest still segment taken as a pose (default 0.5; 0 for a table of poses, "
                   "one row each).")
@click.option("--suggest-poses", "suggest", type=_Int(), metavar="N",
              help="No logs: propose 4 to 50 still poses for --static (the wrist's last 3 joints turned, the arm held "
                   "at --pose), chosen for the condition number over mass and centre of mass, which is printed.")
@click.option("--pose", metavar="Q1,Q2,…",
              help="With --suggest-poses: the arm's held positions (rad or m, one per joint; default: a bent pose).")
@click.option("--wrench", "wrench_columns", metavar="FX,FY,FZ,MX,MY,MZ|KEY",
              help="A wrist force/torque sensor's wrench in the LOADED logs (N, N·m, what the sensor reads of the "
                   "payload): the CSV's 6 column names (or 0-based numbers), or an NPZ key of an (S, 6) array. The "
                   "payload then comes from the wrench and the robot's kinematics alone (no torques, no inertias).")
@click.option("--sensor", metavar="X,Y,Z,R,P,Y",
              help="With --wrench: the sensor frame on the last link, x y z (m) and roll pitch yaw (rad, as URDF's "
                   "<origin>); default: the last link's frame.")
@click.option("--wrench-bias", is_flag=True,
              help="With --wrench: also fit a constant offset of each of the six values per log (the sensor's zero).")
@click.option("--flange", metavar="LINK|X,Y,Z,R,P,Y",
              help="The controller's flange frame for the JSON's vendor formats (UR, KUKA, Franka): a link of a URDF "
                   "ROBOT_FILE fixed to the last link (tool0, panda_link8), or x y z (m) and roll pitch yaw (rad, as "
                   "URDF's <origin>) in the last link's frame; default: the last link's frame. The payload's own "
                   "mass, com and inertia stay in the last link's frame.")
@click.option("--gains-from-targets", "gains_from_targets", metavar="tau=COLS,current=COLS",
              help="Instead of --gains: the controller's own torque constants, fitted per joint from each log's "
                   "commanded torque and commanded current columns (UR RTDE: target_moment, target_current), "
                   "all logs pooled: i = τ/k + friction compensation.")
@_trajectory_options
@_robot_options
def payload(robot_file, loaded, unloaded, model_file, json_out, robot_out, static, still_tolerance, still_duration,
            suggest, pose, wrench_columns, sensor, wrench_bias, flange, gains_from_targets, columns, topic, clock,
            delay, gains, skip_bad_rows, cutoff, filter_order, rest_velocity, resample, load):
    """Identify the payload on the last link of ROBOT_FILE from the LOADED logs: its mass, centre of mass and
    inertia about it, in the frame of the link the last joint moves.

    LOADED and --unloaded take glob patterns ('loaded/*.csv'), as identify's TRAIN."""
    from ._warnings import warn
    from .identification.payload import identify_payload, same_arm
    from .identification.payload_vendors import flange_links, flange_placement
    from .identification.trajectory import parse_column_map, read_trajectory, robot_joint_names
    from .model.robot import require_fixed_base
    # the robot's torques are predicted from its bodies alone (identify_payload): declared drive terms went unread
    _refuse_given(_DRIVE_TERMS, "payload predicts the robot's torques from its bodies alone (no drive terms)")
    if suggest is not None:
        _refuse_given({"unloaded", "model_file", "robot_out", "static", "still_tolerance", "still_duration",
                       "wrench_columns", "sensor", "wrench_bias", "flange", "columns", "topic", "clock", "delay",
                       "gains_from_targets", "gains", "skip_bad_rows", "cutoff", "filter_order", "rest_velocity",
                       "resample"},
                      "--suggest-poses proposes poses for a later run and reads no log nor writes a robot")
        _suggest_poses(robot_file, loaded, suggest, pose, json_out, load)
        return
    if static:      # the still poses are averaged as logged
        _refuse_given({"cutoff", "filter_order", "rest_velocity", "resample"},
                      "--static averages the still poses as logged (no filtering, no resampling)")
        # at rest the effort does not lag the positions; the shift interpolated a table's torques between poses
        _refuse_given({"delay"}, "--static averages still poses, whose effort does not lag their positions")
    if pose is not None:
        _fail("--pose: goes with --suggest-poses", 2)
    for flag, value in (("--still-tolerance", still_tolerance), ("--still-duration", still_duration)):
        if value is not None and not static:
            _fail(f"{flag}: goes with --static", 2)
    for flag, given in (("--sensor", sensor is not None), ("--wrench-bias", wrench_bias)):
        if given and wrench_columns is None:
            _fail(f"{flag}: goes with --wrench", 2)
    if wrench_columns is not None:      # the wrench fit keeps the still samples: gravity alone shows the mass there
        _refuse_given({"rest_velocity"}, "--wrench keeps the still samples (at rest the wrench is the weight)")
        _refuse_given({"delay"}, "--wrench fits the sensor's wrench, not the joint torques the delay shifts")
        _refuse_given({"gains", "gains_from_targets"},
                      "--wrench fits the sensor's wrench, not the joint torques drive gains make of currents")
        # the wrench fit uses the robot's kinematics alone: --model's bodies went unread
        _refuse_given({"model_file"}, "--wrench fits the sensor's wrench with the kinematics alone (no bodies)")
    if wrench_columns is not None and (static or unloaded):
        other = "--static" if static else "--unloaded"
        _fail(f"--wrench: the sensor's wrench is the payload's alone; leave out {other}", 2)
    if not loaded:
        _fail("no loaded log: give the LOADED files after ROBOT_FILE", 2)
    loaded, unloaded = _expanded(loaded), _expanded(unloaded)
    inputs = _read_files([robot_file, *loaded, *unloaded] + ([model_file] if model_file else []))
    _refuse_clock_without_bag([*loaded, *unloaded], clock)
    for path, first, role in _given_twice((("loaded", loaded), ("unloaded", unloaded))):
        if first != role:   # the payload's torque, loaded − unloaded, is then zero: a 0 kg fit, its COM round-off
            _fail(f"{path}: given as a loaded and as an --unloaded log: the payload torque (loaded − unloaded) is "
                  "zero by construction; give the log of the motion without the payload as --unloaded", 2)
        if role == "loaded":    # one --unloaded log for two loaded ones of one motion is fine
            warn(f"{path}: given twice as a loaded log: its samples count twice and the standard deviations "
                 "shrink; give each file once")
    _check_outputs(inputs, [("--json", json_out), ("--robot-out", robot_out)],
                   {"--robot-out": "give a file name (.yaml, .yml, .urdf or .xml)"})
    robot_format = _robot_out_format(robot_out)
    _writable([("--json", json_out), ("--robot-out", robot_out)])
    with _one_line_errors(robot_file, inputs=inputs, flagged={"model_file"}):
        settings = _preprocessing(cutoff, filter_order, rest_velocity, resample)
        column_map = parse_column_map(columns) if columns is not None else None   # '' refused, not ignored
        gain_values = _numbers(gains, "--gains")
        shift = _delay(delay)
        robot = load(model_file or robot_file)
        # read with --model too: a file that is no robot, or another robot than --model's, ran the fit unread
        described = load(robot_file) if model_file else robot
        if robot_format is not None:    # what the writers refuse, refused before the fit
            from .model.attach import check_attachable
            check_attachable(described)
        if robot_format == "urdf":
            _check_urdf_output(described)
        if robot_format == "mjcf":
            from .errors import ArgumentError
            from .identification.payload_descriptions import check_mjcf_output
            try:
                check_mjcf_output(described)
            except ArgumentError as exc:
                _fail(f"{robot_out}: --robot-out: no MJCF ({exc})", 2)
        # before the logs are read as a floating base's (the reader's words would be about their format)
        require_fixed_base(robot, "payload identification")
        if model_file:      # another robot or arm refused before a log is read (identify_payload checks it again)
            same_arm(described, robot, "--model", robot_file, model_file)
        # a link name, or six numbers; checked before a log is read, not after the fit. A link of that name is the
        # link: one named '1e3' or 'nan' could not be given otherwise
        if flange is not None and _looks_numeric(flange) and flange not in flange_links(described):
            flange = _numbers(flange, "--flange")
        flange_placement(described, flange)
        # read as identify reads them: joints matched by ROBOT_FILE's names (a bag or Parquet file names them in its
        # own order), the bag's topic and clock, the effort's delay (auto: estimated with --model's regressor)
        reading = {"skip_bad_rows": skip_bad_rows, "topic": topic, "clock": clock,
                   "joints": robot_joint_names(described), "robot": robot}
        found = None
        if gains_from_targets is not None:     # '' refused by the map's parser, not ignored
            if gain_values is not None:
                raise click.BadParameter("give --gains or --gains-from-targets, not both", param_hint="--gains")
            found = _controller_gains([*loaded, *unloaded], column_map, gains_from_targets, reading)
            gain_values = found.gains.tolist()
        notes = []      # what the readers did (joints left out, the delay), said once the fit and outputs stand

        def read(path, said=True):
            traj = read_trajectory(path, columns=column_map, gains=gain_values, delay=shift, **reading)
            if traj.skipped and said:
                warn(traj.skipped_summary())
            notes.extend(traj.notes)
            return traj

        still = {} if not static else {
            "static": True, "still_tolerance": 2e-3 if still_tolerance is None else still_tolerance,
            "still_duration": 0.5 if still_duration is None else still_duration}
        if wrench_columns is not None:      # before the logs are read
            from .identification.payload_wrench import check_wrench_log
            for path in loaded:
                check_wrench_log(path)
        logs = [read(p, said=wrench_columns is None) for p in loaded]
        if wrench_columns is not None:
            # the rows --skip-bad-rows dropped from a log are dropped from its wrench, and those of a damaged wrench
            # value from both; the rows skipped said once, all of them
            from .identification.payload_wrench import log_wrench
            logs, wrench = zip(*(log_wrench(p, wrench_columns, log, skip_bad_rows) for p, log in zip(loaded, logs)))
            for log in logs:
                if log.skipped:
                    warn(log.skipped_summary())
            still = {"wrench": list(wrench), "sensor": _numbers(sensor, "--sensor"), "wrench_bias": wrench_bias}
            logs = list(logs)
        # in ROBOT_FILE's last link frame, across the constant transform to --model's
        result = identify_payload(robot, logs, unloaded=[read(p) for p in unloaded] or None, preprocessing=settings,
                                  robot=described if model_file else None, **still)
        if robot_out is not None and result._unattachable() is not None:     # before the outputs: none is written
            _fail(f"{printable(loaded[0])}{' …' if len(loaded) > 1 else ''}: --robot-out: no robot written (payload: "
                  f"{result._unattachable()})", 2)
        doc = result.to_dict(flange)
        summary = result.summary()
        if found is not None:
            doc["controller_gains"] = {"gains": found.gains.tolist(), "rmse": found.rmse.tolist()}
            summary += "\n  drive gains from the controller's targets (N·m/A): " + ", ".join(
                f"{k:.4f}" for k in found.gains)
        written = _write_outputs(
            (json_out, lambda path: _write_json(path, doc)),
            (robot_out, lambda path: _write_text(path, result.robot_text(described, robot_format))))
        for note in notes:
            _reader_note(note)
    _report(summary, written, json_out == "-")


def _expanded(logs):
    """The log names given (a command's arguments), their glob patterns (``'logs/*.npz'``, ``**`` recursive) expanded
    to the files they match, sorted (:func:`~baseparam.identification.logs.expand_logs`): identify's TRAIN and
    --validate, payload's LOADED and --unloaded. A pattern that matches nothing is refused in one line."""
    if not logs:
        return ()
    from .identification.logs import expand_logs
    with _one_line_errors(logs[0], inputs=list(logs)):
        return tuple(expand_logs(list(logs)))


def _controller_gains(paths, column_map, text, reading):
    """``--gains-from-targets``: the commanded torque and current columns of every log (read with ``reading``,
    read_trajectory's options), pooled, through :func:`~baseparam.identification.drive_gains.controller_gains`."""
    import numpy as np

    from ._checks import counted
    from .errors import DataError
    from .identification.drive_gains import controller_gains
    from .identification.trajectory import parse_column_map, read_trajectory
    from .motion import central_differences
    try:
        targets = parse_column_map(text)
    except BaseParamError:                  # its words name a 'column map': this one is the flag's
        targets = {}
    if set(targets) != {"tau", "current"}:
        raise click.BadParameter(f"expected tau=COLUMNS,current=COLUMNS, got {text!r}",
                                 param_hint="--gains-from-targets")
    base = {k: v for k, v in (column_map or {}).items() if k not in ("tau", "current")}
    torque, current, velocity = [], [], []
    for path in paths:
        a = read_trajectory(path, columns={**base, "tau": targets["tau"]}, **reading)
        b = read_trajectory(path, columns={**base, "current": targets["current"]}, gains=1.0, **reading)
        qd = a.qd if a.qd is not None else central_differences(a.q, a.t)
        # --skip-bad-rows drops a row damaged in the torque columns from a, one damaged in the current columns from
        # b: the samples both kept, matched by time (the rows of one count, taken in order, were apart by a sample
        # between the two damaged rows, and the gains fitted across them without a word)
        _, in_a, in_b = np.intersect1d(a.t, b.t, assume_unique=True, return_indices=True)    # times increase
        # two reads of one log share their times but for the rows one of them skipped; a log whose commanded torque
        # and current come on different clocks (two bag topics) shares few or none, and the gains would be fitted
        # on what happens to coincide
        if 2 * len(in_a) < min(len(a.t), len(b.t)):
            _fail(f"{path}: --gains-from-targets: the torque's and the current's samples share {len(in_a)} of "
                  f"{len(a.t)} and {len(b.t)} times: they are not read at the same times (two topics?)", 2)
        torque.append(a.tau[in_a])
        current.append(b.tau[in_b])
        velocity.append(qd[in_a])
    try:
        return controller_gains(torque, current, velocity)
    except DataError as exc:     # said of the logs pooled ('controller gains: joint 1: …'): the flag and the logs
        logs = str(paths[0]) if len(paths) == 1 else f"{paths[0]} and {counted(len(paths) - 1, 'more logs')}"
        _fail(f"{logs}: --gains-from-targets: {str(exc).removeprefix('controller gains: ')}", 2)


def _suggest_poses(robot_file, loaded, n_poses, pose, json_out, load):
    """payload --suggest-poses: still poses for --static, and their condition number."""
    from .excitation.static_poses import suggest_static_poses
    from .model.robot import require_fixed_base
    if loaded:
        _fail(f"--suggest-poses: proposes poses and reads no log (got {loaded[0]}); leave the logs out", 2)
    _check_outputs([robot_file], [("--json", json_out)])
    _writable([("--json", json_out)])
    with _one_line_errors(robot_file):
        poses = suggest_static_poses(require_fixed_base(load(robot_file), "payload --suggest-poses"), n_poses,
                                     pose=_numbers(pose, "--pose"))
        written = _write_outputs((json_out, lambda path: _write_json(path, poses.to_dict())))
    _report(poses.summary(), written, json_out == "-")


def _check_urdf_output(robot):
    """Refuse, before the work, a URDF output the robot cannot be written as (a new URDF holds no gravity but
    its readers' -9.81 along z): the writers check it only once the fit is done."""
    if not robot.from_urdf_text:        # a URDF robot's own text is rewritten, its gravity that of the file
        from .model.urdf_writer import check_urdf_gravity
        check_urdf_gravity(robot)


def _robot_out_format(path):
    """'yaml', 'urdf' or 'mjcf' (.xml) from --robot-out's extension, which :func:`_check_outputs` checked (None
    without it)."""
    if path is None:
        return None
    return {".urdf": "urdf", ".xml": "mjcf"}.get(os.path.splitext(path.lower())[1], "yaml")



if __name__ == "__main__":
    main()
