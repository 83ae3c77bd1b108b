"""The checks below every other module: a value's type, an option, a file path, a value shown in a one-line
message.

:mod:`baseparam._validation` (the library's one validation module) re-exports them; they live here because
the modules it rests on (the robot model's types, the memory budget, atomic writes) use them too.
"""
from __future__ import annotations

import json
import math
import os
import reprlib
import stat
import sys

import numpy as np

from .errors import ArgumentError, ArgumentTypeError, bytes_unescaped, printable


# How messages show a value: reprlib bounds the work as well as the text (a list of 10⁶ numbers or a deeply nested one
# is not turned whole into a string first, to be cut after).
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = _SHORT.maxfrozenset = _SHORT.maxdeque = 6
_SHORT.maxlevel = 2


def loaded_class(module: str, name: str):
    """The class ``name`` of ``module`` when that module has been loaded far enough to define it, else ``()`` (for
    :func:`isinstance`: nothing is an instance of a class not yet defined). For the checks that must not import the
    module (a cycle, a start-up cost): ``sys.modules[module].name`` raised AttributeError while another thread was
    still importing it (``numpy.ma`` found partially initialized by 1 in 3 cold threaded runs)."""
    return getattr(sys.modules.get(module), name, ())


def counted(count, noun: str) -> str:
    """``"1 sample"``, ``"3 samples"``: a count and its noun, singular for exactly one (messages said "1 logs").
    ``noun`` is the plural, ending in 's'."""
    return f"{count} {noun[:-1] if count == 1 else noun}"


def shown(value, limit: int = 60) -> str:
    """``value`` as a message shows it: its repr on one line (escaped: a newline as ``\\n``), shortened to
    ``limit`` characters; an array by its shape, since numpy's repr of one spans lines and may be huge. The one
    rule of every message that shows a value it was given."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    if isinstance(value, str):
        value = bytes_unescaped(value)      # a file name's undecodable bytes as the text they spell (printable's rule)
    try:
        text = printable(_SHORT.repr(value))
    except Exception:               # a repr that fails (an object's own __repr__): the type names it
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit] + "…"


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    """Where a file's bytes ``data`` stop being UTF-8 (``exc`` the decoding error), for a one-line message."""
    # 'utf-8-sig' decodes the bytes after a byte-order mark: its positions are counted from there, not from the file's
    # first byte
    start = exc.start + len(data) - len(exc.object)
    line = data.count(b"\n", 0, start) + 1
    return f"line {line}: not UTF-8 text (byte 0x{data[start]:02x} at offset {start}); save the file as UTF-8"


def check_flag(value, name: str, *, error=ArgumentTypeError) -> bool:
    """``value`` as bool when it is True or False (a numpy bool too); anything else ('no', 1, an array) is
    refused rather than read by its truth value, which for 'no' is True and for an array is an error."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise error(f"{name}: expected True or False, got {shown(value)}")


def check_instance(value, name: str, kind, what: str, *, allow_none=False, error=ArgumentTypeError):
    """``value`` when it is a ``kind`` (or None with ``allow_none``); else ``error``:
    ``NAME: expected WHAT, got TYPE``."""
    if (value is None and allow_none) or isinstance(value, kind):
        return value
    raise error(f"{name}: expected {what}, got {type(value).__name__}")


def check_progress(progress):
    """``progress`` when it is None or a function of (done, total); anything else is refused here, before the work,
    rather than by the bare "not callable" TypeError of its first call."""
    if progress is not None and not callable(progress):
        raise ArgumentTypeError(f"progress: expected a function progress(done, total), got {type(progress).__name__}")
    return progress


def not_a_robot(value, name: str = "robot"):
    """The ArgumentTypeError for ``value`` given where a :class:`baseparam.Robot` is expected, with a hint for a file
    name: raised by ``model.robot.require_robot`` and :func:`require_robot_below`."""
    hint = ("; for a description file use bp.load_robot(path) first"
            if isinstance(value, (str, bytes)) or hasattr(value, "__fspath__") else "")
    return ArgumentTypeError(f"{name}: expected a baseparam.Robot, got {type(value).__name__}{hint}")


def require_robot_below(value, name: str = "robot"):
    """``value`` itself when it is a :class:`baseparam.Robot`, else :func:`not_a_robot`: ``require_robot`` for the
    modules that ``model.robot`` imports (friction, joint_model), which cannot import it back, not even when
    called (tests/test_import_cycles.py). A Robot exists only once its module is loaded: its class is taken from
    there (a look-alike with ``joints`` is refused too)."""
    if not isinstance(value, loaded_class("baseparam.model.robot", "Robot")):
        raise not_a_robot(value, name)
    return value


def check_option(value, name: str, options, *, expected=None, error=ArgumentError):
    """``value`` when it is one of ``options``; else ``NAME: expected one of A, B, got 'x'``
    (``expected``: the words after "expected" instead, e.g. "'c' or 'python'")."""
    try:
        # an array is never an option: `in` would compare it element by element (and fail on its truth value)
        found = not isinstance(value, np.ndarray) and value in options
    except TypeError:                                # an unhashable value (a list) against a set or dict of options
        found = False
    if found:
        # the option itself, not the caller's equal value: a str subclass or np.str_ ('pseudo' of numpy) reached h5py's
        # attributes as a dtype it cannot store, and an option kept as given travels to workers and files as its class
        return next((option for option in options if option == value), value)
    expected = f"one of {', '.join(map(str, options))}" if expected is None else expected
    raise error(f"{name}: expected {expected}, got {shown(value)}")


def plain_texts(settings: dict) -> dict:
    """``settings`` with each text of a str subclass (numpy's ``np.str_``) as the plain str: a setting kept as given
    (an estimator's, as scikit-learn's clone wants) showed as ``np.str_('wls')`` in the texts of its results."""
    return {name: str(value) if isinstance(value, str) and type(value) is not str else value
            for name, value in settings.items()}


# What an extension says a file holds, in any case: an output of another format under it is refused (Markdown
# under o.py would be imported and fail; YAML under a .urdf name is read as URDF, and refused, by load_robot; CSV
# under t.npz is read as NPZ, and refused, by the trajectory readers, which take every log format here by its name).
EXTENSION_FORMATS = {".py": "Python", ".json": "JSON", ".c": "C", ".h": "C", ".csv": "CSV", ".urdf": "URDF",
                     ".yaml": "YAML", ".yml": "YAML", ".h5": "HDF5", ".hdf5": "HDF5", ".npz": "NPZ",
                     ".parquet": "Parquet", ".mcap": "MCAP", ".bag": "ROS bag",
                     # XML: a URDF or a MuJoCo model (robot descriptions are read by their root element); JSON or
                     # YAML under o.xml was written, exit 0 (describe --yaml o.xml)
                     ".xml": "XML",
                     # the log readers read a .txt as CSV (its delimiter sniffed): JSON, YAML, even HDF5 under o.txt
                     # were written, exit 0 (find --h5 o.txt); plain text for reading is let in (_ALSO_HOLDS)
                     ".txt": "CSV",
                     # compressed (numpy, pandas and the trajectory readers' users open x.csv.gz as gzip: numpy's
                     # and pandas' extensions) and figures (matplotlib's): no writer here writes them, so text under
                     # such a name is refused (excite --out x.csv.gz wrote plain CSV, find --json x.png JSON, exit 0)
                     ".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".lzma": "LZMA", ".zst": "Zstandard", ".zip": "ZIP",
                     ".tar": "tar",
                     ".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".pdf": "PDF", ".svg": "SVG", ".svgz": "SVG",
                     ".eps": "PostScript", ".ps": "PostScript", ".tif": "TIFF", ".tiff": "TIFF", ".gif": "GIF",
                     ".webp": "WebP", ".avif": "AVIF"}


# What a name may hold besides the format its extension says: an '.xml' a URDF or a MuJoCo model (robot descriptions
# are read by their root element), a '.txt' a text for reading (equations --out's)
_ALSO_HOLDS = {".xml": ("URDF", "MJCF"), ".txt": ("Markdown",)}


def check_written_format(path, writes: str, suggested: str, name: str = "path"):
    """Refuse to write ``writes`` (a format's name, as :data:`EXTENSION_FORMATS` has them) under a file name whose
    extension says another format: a reader takes a file by its name (JSON under o.csv is read as CSV). The command
    line's outputs and the library's writers alike (``ExcitationDesign.to_json('x.csv')`` wrote JSON there).

    Parameters
    ----------
    path : str or os.PathLike
    writes : str
        What is written ('JSON', 'CSV', 'YAML', …).
    suggested : str
        The extension the refusal suggests ('.json').
    name : str
        What the refusal names first (a parameter, or a flag).

    Raises
    ------
    ArgumentError
    """
    text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else None
    if text is None:
        return
    ext = os.path.splitext(text)[1]
    said = EXTENSION_FORMATS.get(ext.lower())
    if said not in (None, writes) and writes not in _ALSO_HOLDS.get(ext.lower(), ()):
        raise ArgumentError(f"{name}: {printable(text)}: writes {writes}, and a {ext!r} name says {said} (a reader "
                            f"would take it for {said}); give a {suggested} name")


def is_file_name(value) -> bool:
    """Whether ``value`` names a file: a str, bytes or any os.PathLike (``pathlib.Path``, and a ``PurePosixPath``,
    which is no ``Path``). The one test of functions that take a file name in place of an object (a robot's
    description, a log): ``isinstance(value, (str, Path))`` refused a PurePath that ``load_robot`` reads."""
    return isinstance(value, (str, bytes, os.PathLike))


def check_path(value, name: str = "path", *, error=ArgumentError) -> str:
    """A file path (str, bytes or os.PathLike) as text; one that the system cannot take (a NUL character) is refused
    here, in one line, rather than by ``open``'s bare ValueError."""
    try:
        text = os.fsdecode(value)
    except TypeError:                                # not str, bytes or os.PathLike, or __fspath__ gave another type
        raise ArgumentTypeError(f"{name}: expected a file path (str or os.PathLike), got {type(value).__name__}") \
            from None
    if "\x00" in text:
        raise error(f"{name}: a file name cannot contain a NUL character, got {printable(text)!r}")
    return text


_SPECIAL = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
            (stat.S_ISSOCK, "a socket"))


def within(folder, path) -> bool:
    """Whether ``path``, its links followed, is ``folder`` (a real path, links resolved) or lies in it: an input's own
    files only, not what a link in it leads to. (:func:`baseparam._output_names.inside` is the writers' stricter
    test: an existing folder, never the folder itself.)"""
    return os.path.commonpath([folder, os.path.realpath(path)]) == folder


def refuse_special(path, error, source=None) -> None:
    """``error`` (``SOURCE: not a regular file (a FIFO); expected a file``) when ``path`` names, itself or through
    links, a FIFO, a device or a socket: opening a FIFO waits for a writer forever, and a device such as
    /dev/zero reads without end. A path that does not exist or cannot be examined is left to the reader, which
    words its own error. ``source``: what messages call the file (``path`` escaped onto one line by default)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    for test, kind in _SPECIAL:
        if test(mode):
            raise error(f"{printable(path) if source is None else source}: not a regular file ({kind}); "
                        "expected a file")


def check_input(value, name: str = "path", *, error=ArgumentError, unreadable=None) -> str:
    """:func:`check_path` of a file to read, which must also be no FIFO, device or socket (:func:`refuse_special`,
    raising ``unreadable``, ``error`` by default): a reader never hangs on one nor reads it without end."""
    text = check_path(value, name, error=error)
    refuse_special(text, unreadable or error)
    return text


def read_bounded(path, limit: int, source: str, error, what=None, *, unreadable=None, larger=None) -> bytes:
    """The bytes of the file ``path``, read to one byte beyond ``limit`` only: a file of a few kB is expected, not
    one read without end. ``unreadable`` (``error`` by default): ``SOURCE: cannot read: REASON``. With ``what`` (the
    kind of file: "a bag's metadata.yaml"), ``error`` ``SOURCE: larger than 1 MB; WHAT is a few kB`` beyond
    ``limit``; without, the caller's parser refuses the ``limit`` + 1 bytes it is given. ``larger``: a function of
    those ``limit`` + 1 bytes giving a larger limit to read on to (a URDF's), or None (as is a smaller one); read on
    from the same open file, not opened again: what was read stays part of the file, which may change in between."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(limit + 1)
            # only a larger limit: read(n ≤ 0) would read the rest of the file, without bound
            if larger is not None and len(data) > limit and (more := larger(data)) is not None and more > limit:
                limit = more
                data += stream.read(limit + 1 - len(data))
    except OSError as exc:
        reason = printable(exc.strerror or str(exc) or type(exc).__name__)
        raise (unreadable or error)(f"{source}: cannot read: {reason}") from None
    if what is not None and len(data) > limit:
        size = f"{limit >> 20} MiB" if limit % (1 << 20) == 0 else f"{limit / 1e6:g} MB"
        raise error(f"{source}: larger than {size}; {what} is a few kB")
    return data


def _json_int(text):
    """A JSON integer as ``int``, or ±inf beyond the float range, as json reads a float literal beyond it (``1e400``):
    the fields' own checks then refuse it by name, where ``float(10**400)`` in them would raise a bare OverflowError."""
    value = int(text)
    try:
        float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf
    return value


class _KeyTwice(ValueError):
    """A JSON object holding one key twice (its text says which)."""


def _json_object(pairs):
    """A JSON object as a dict, refusing a key it holds twice: json keeps the last, so a file whose ``features`` came
    twice was read by the second (empty) one, its joint names unused, without a word (YAML's duplicate keys are
    refused alike)."""
    out = dict(pairs)
    if len(out) < len(pairs):
        twice = next(key for k, (key, _) in enumerate(pairs) if any(key == other for other, _ in pairs[:k]))
        raise _KeyTwice(f"key {shown(twice, 80)} given twice in one object")
    return out


def json_loads(text, **options):
    """``json.loads(text, **options)`` refusing an object that holds a key twice: the one JSON rule of the readers
    (:func:`read_json`'s files, a Parquet file's metadata).

    Raises
    ------
    ValueError
        Not JSON, or a key twice in one object (the text says which); RecursionError when nested beyond the
        parser's depth.
    """
    return json.loads(text, object_pairs_hook=_json_object, **options)


def read_json(path, limit: int, source: str, error, what: str):
    """The JSON document of the file ``path`` (:func:`read_bounded`), UTF-8 (a byte-order mark, as Windows editors
    save it, passes); ``error`` ``SOURCE: not JSON (REASON)`` when it is not UTF-8 JSON or holds a key twice in one
    object, ``SOURCE: not WHAT (JSON nested too deeply)`` when nested beyond the parser's depth."""
    data = read_bounded(path, limit, source, error, what)
    try:
        return json_loads(data.decode("utf-8-sig"), parse_int=_json_int)
    except _KeyTwice as exc:
        raise error(f"{source}: not JSON ({exc})") from None
    except UnicodeDecodeError as exc:   # said as every reader says it: the line and the byte, not the codec's words
        raise error(f"{source}: {not_utf8(data, exc)}") from None
    except RecursionError:
        raise error(f"{source}: not {what} (JSON nested too deeply)") from None
    except ValueError as exc:           # also a byte that is not UTF-8, and an integer of thousands of digits
        reason = ("a number of thousands of digits" if "integer string conversion" in str(exc)
                  else printable(" ".join(str(exc).split()))[:200])
        raise error(f"{source}: not JSON ({reason})") from None
