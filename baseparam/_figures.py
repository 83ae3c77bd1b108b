"""matplotlib, imported on first use, and figures written atomically: shared by every stage's plots.

The rest of the package never imports matplotlib; scripts and the CLI get the non-interactive
Agg backend unless MPLBACKEND says otherwise, notebooks keep theirs.

Where matplotlib keeps its files: the command line gives it a private folder (``pyplot(private=True)``), so a run
writes only its named outputs. A library call leaves matplotlib as the user's process has it: matplotlib, imported,
creates ~/.config/matplotlib and writes its font list to ~/.cache/matplotlib (``$MPLCONFIGDIR`` when set) as any
``import matplotlib.pyplot`` does, and reads the user's matplotlibrc. Redirecting that from a library would change
the process for the user's own figures (matplotlib reads its folders once, on import: their style and fonts), make
every process rebuild the font list (seconds), and override a choice that is the user's: ``MPLCONFIGDIR`` set
before the first plot keeps matplotlib's files where the user wants them.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys

from ._atomic import write_bytes
from ._leftovers import private_folder, remove_tree
from ._output_names import check_output


def pyplot(private=False):
    """``matplotlib.pyplot``, with the Agg backend outside notebooks (scripts and the CLI have no display).

    ``private``: when this call imports matplotlib and MPLCONFIGDIR is not set, its configuration and cache
    folder is a temporary one, removed at exit. The command line asks for it: matplotlib otherwise writes its
    font list to ~/.cache/matplotlib and creates ~/.config/matplotlib, files outside the named outputs (and
    reads the user's matplotlibrc, so that a figure depended on more than the command line). Its settings are then
    read only from the files the user names for it, ``$MATPLOTLIBRC`` (a file, or a folder holding matplotlibrc)
    and ``$MPLCONFIGDIR/matplotlibrc``: never from ``./matplotlibrc`` (a file of the folder the run started from,
    which matplotlib reads first), nor from ~/.config/matplotlib. What matplotlib says of a bad line there is one
    warning line (see :func:`_settings_of_the_user_only`)."""
    if private and "matplotlib" not in sys.modules:
        with _settings_of_the_user_only():
            return _private_pyplot()
    return _pyplot()


def _private_pyplot():
    """:func:`pyplot` ``private``, while matplotlib is imported."""
    chosen = os.environ.get("MPLCONFIGDIR")
    if chosen:
        problem = _not_a_config_folder(chosen)
        if problem is not None:
            # matplotlib said it in two lines of its own ("mkdir -p failed for path …", "Matplotlib created a
            # temporary cache directory at …") beside the command's, and made that folder itself
            from ._warnings import warn
            from .errors import printable
            warn(f"MPLCONFIGDIR: {printable(repr(chosen))[:200]} is no folder matplotlib can write ({problem}); this "
                 "run's figures use a temporary one, removed at its end", UserWarning)
            chosen = None
    folder = _private_config_folder()
    users = os.environ.get("MPLCONFIGDIR")
    if not chosen:
        os.environ["MPLCONFIGDIR"] = folder
        # the font list of a private folder is thrown away with it: its building ("Matplotlib is building the font
        # cache; this may take a moment.", after 5 s under load) and a failed save ("Could not save font_manager
        # cache [Errno 27] File too large" under `ulimit -f`) were lines on stderr beside the command's one
        import logging
        logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    try:
        with _in_folder(folder):            # matplotlib reads ./matplotlibrc first: this empty folder has none
            return _pyplot()                # matplotlib reads MPLCONFIGDIR once, on import (its folders are cached)
    finally:
        # not passed on to the processes the run starts (the user's own, an unusable one, is put back)
        if users is None:
            os.environ.pop("MPLCONFIGDIR", None)
        else:
            os.environ["MPLCONFIGDIR"] = users


def _private_config_folder():
    """A new private folder for matplotlib (removed at exit): its configuration and cache folder unless the user set
    MPLCONFIGDIR, and the empty current folder of its import."""
    import atexit

    folder = private_folder(".baseparam-matplotlib")
    _PRIVATE.append(folder)
    atexit.register(remove_private)
    return folder


@contextlib.contextmanager
def _in_folder(folder):
    """Within the block, ``folder`` is the current folder (the one it was before, after it).

    matplotlib's import reads ``matplotlibrc`` in the current folder before any other (``matplotlib_fname``): the
    command line's figures depended on a file in the folder a run started from, outside its named inputs (and a bad
    value there was a raw line of matplotlib's own on stderr). A current folder this process cannot come back to
    (removed, or not readable and unnamed) is left as it is: matplotlib cannot read a file in it either."""
    try:
        back = os.open(".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        back = None
    if back is None or not hasattr(os, "fchdir"):
        try:
            back = os.getcwd() if back is None else (os.close(back), os.getcwd())[1]
        except OSError:
            yield
            return
    try:
        os.chdir(folder)
        yield
    finally:
        try:
            if isinstance(back, int):
                os.fchdir(back)
            else:
                os.chdir(back)
        finally:
            if isinstance(back, int):
                os.close(back)


@contextlib.contextmanager
def _settings_of_the_user_only():
    """The block imports matplotlib for the command line: MATPLOTLIBRC and MPLCONFIGDIR (the user's explicit choices,
    honoured) made absolute for it, as named from the current folder (the import runs in another, see
    :func:`_in_folder`), and what matplotlib logs as it is imported (about the settings file it reads: a bad value,
    a key it does not know; its own lines on stderr) said as one warning line each. A settings file matplotlib
    cannot read (not UTF-8: a traceback on import) is a :class:`~baseparam.errors.SettingsError` naming it."""
    import logging

    from .errors import SettingsError, printable

    class Said(logging.Handler):            # the first line of each message (a bad key's goes on with a web address)
        def __init__(self):
            super().__init__(logging.WARNING)
            self.lines = []

        def emit(self, record):
            text = " ".join(next((line for line in record.getMessage().splitlines() if line.strip()), "").split())
            # matplotlib's own module reads the settings; its others' (fonts) said as they are
            self.lines.append(f"matplotlib settings: {text[:300]}; that line ignored" if record.name == "matplotlib"
                              else f"matplotlib: {text[:300]}")

    given = {name: os.environ[name] for name in ("MATPLOTLIBRC", "MPLCONFIGDIR") if os.environ.get(name)}
    for name, value in given.items():
        with contextlib.suppress(OSError, ValueError):
            os.environ[name] = os.path.abspath(value)
    said = Said()
    logger = logging.getLogger("matplotlib")
    propagates = logger.propagate
    logger.addHandler(said)
    logger.propagate = False
    try:
        yield
    except UnicodeDecodeError:
        raise SettingsError(f"{printable(_settings_file())}: matplotlib's settings file (matplotlibrc) is not UTF-8 "
                            "text; fix it, or unset MATPLOTLIBRC/MPLCONFIGDIR") from None
    finally:
        logger.removeHandler(said)
        logger.propagate = propagates
        for name, value in given.items():
            if os.environ.get(name) is not None:
                os.environ[name] = value
    from ._warnings import warn
    for line in said.lines:
        warn(printable(line), UserWarning)


def _settings_file():
    """The matplotlibrc matplotlib's import reads for the command line, as ``matplotlib_fname`` finds it without the
    current folder's (absolute names: see :func:`_settings_of_the_user_only`)."""
    rc = os.environ.get("MATPLOTLIBRC")
    candidates = [rc, os.path.join(rc, "matplotlibrc")] if rc else []
    if os.environ.get("MPLCONFIGDIR"):
        candidates.append(os.path.join(os.environ["MPLCONFIGDIR"], "matplotlibrc"))
    return next((name for name in candidates if os.path.isfile(name)), "matplotlibrc")


def _pyplot():
    """``matplotlib.pyplot``, with the Agg backend outside notebooks, MPLBACKEND's refusal said in one line."""
    chosen = os.environ.get("MPLBACKEND")
    if not chosen:
        import matplotlib
        if "ipykernel" not in sys.modules:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    fresh = "matplotlib.pyplot" not in sys.modules
    try:
        import matplotlib.pyplot as plt
        if fresh:       # a module:// backend is imported here, not on import (no figure yet for it to close)
            plt.switch_backend(plt.get_backend())
    except (ValueError, ImportError) as exc:
        if "matplotlib" not in sys.modules and isinstance(exc, ImportError):
            raise                                   # no matplotlib at all: the caller's to say
        # matplotlib refused MPLBACKEND ('nonsense', ' agg', 'module://missing') on import: a traceback, exit 1
        from .errors import SettingsError, printable
        why = printable(str(exc).splitlines()[0].split("; supported values")[0] if str(exc).strip() else
                        type(exc).__name__)
        raise SettingsError(f"MPLBACKEND: {printable(repr(chosen))} is not a backend matplotlib can use "
                            f"({why[:200]}); unset it (figures are written with Agg), or name one such as Agg"
                            ) from None
    return plt


def _not_a_config_folder(path):
    """Why matplotlib cannot keep its files in ``path`` (``$MPLCONFIGDIR``), or None when it can: a folder it can
    write, made if missing (matplotlib's own test on import: it makes the folder, then checks it is one it may
    write)."""
    try:
        os.makedirs(path, exist_ok=True)
    except (OSError, ValueError) as exc:        # ValueError: a NUL in the name
        return "a file of that name exists" if isinstance(exc, FileExistsError) else (
            getattr(exc, "strerror", None) or str(exc) or type(exc).__name__)
    if not (os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)):
        return "not writable"
    return None


# The temporary folders of pyplot(private=True): removed at exit by atexit, and by the command line's ends past
# atexit (a run stopped by a signal ends with os._exit: the folder and its font list were left in $TMPDIR).
_PRIVATE = []


def remove_private():
    """Remove the temporary matplotlib folders :func:`pyplot` made (``private``)."""
    # matplotlib's font list, by its name: at the limit of open files (matplotlib holds its fonts open) not even the
    # folder's listing could be made, and the folder with it was left in $TMPDIR
    version = getattr(getattr(sys.modules.get("matplotlib.font_manager"), "FontManager", None), "__version__", None)
    for folder in list(_PRIVATE):       # not popped: the watchdog thread (_entry) may be removing them too
        if version is not None:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, f"fontlist-v{version}.json"))
        remove_tree(folder)


def supported_format(path, private=False):
    """None if matplotlib can write ``path``'s format (by extension), else what is wrong (``private``: see
    :func:`pyplot`)."""
    plt = pyplot(private)
    ext = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    formats = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    if ext and ext not in formats:                                  # no extension: PNG
        return _unsupported(f".{ext}", formats, ext)
    return _missing_program(ext or "png")


# The formats matplotlib draws with Agg (raster): with text.usetex they need dvipng; PostScript needs Ghostscript
_RASTER = frozenset({"png", "jpg", "jpeg", "tif", "tiff", "gif", "webp", "avif", "raw", "rgba"})


def _missing_program(ext):
    """What is missing to write the format ``ext`` (lower case, no dot), or None: matplotlib runs programs as it
    writes some figures, and without them its savefig raised a bare RuntimeError after the work (an internal error,
    exit 1): the PGF backend measures text with ``rcParams['pgf.texsystem']`` (xelatex), and ``text.usetex`` (a
    ``matplotlibrc`` in the current folder may set it) typesets with latex, then dvipng (raster) or Ghostscript (PS)."""
    import shutil

    import matplotlib

    if ext == "pgf":
        tex = matplotlib.rcParams["pgf.texsystem"]
        return None if shutil.which(tex) else (f"'.pgf' needs {tex} (matplotlib's pgf.texsystem) to write its text, "
                                               "and it is not found; install it, or give another format (.pdf, .svg)")
    if not matplotlib.rcParams["text.usetex"]:
        return None
    needed = ["latex"] + (["dvipng"] if ext in _RASTER else ["gs"] if ext in ("ps", "eps") else [])
    for program in needed:
        if not shutil.which(program):
            return (f"'.{ext}' needs {program} (text.usetex is on: a matplotlibrc?), and it is not found; install "
                    "it, or turn text.usetex off")
    return None


def _unsupported(shown_ext, formats, ext):
    """What is wrong with a figure format matplotlib cannot write (``formats``: the canvas's, by extension; ``ext``
    the format asked for, lower case, no dot). A format that the canvas of the backend MPLBACKEND chose lacks and Agg
    writes names that variable: ``MPLBACKEND=pdf … --plot f.png`` was refused "use one of .pdf", not saying why."""
    from matplotlib.backend_bases import FigureCanvasBase

    text = f"unsupported plot format '{shown_ext}' (use one of {', '.join('.' + f for f in sorted(formats))}"
    chosen = os.environ.get("MPLBACKEND")
    if chosen and ext in FigureCanvasBase.get_supported_filetypes():
        from .errors import printable

        text += (f"; MPLBACKEND={printable(repr(chosen))} chose a backend that writes no other: unset it to write "
                 "with Agg")
    return text + ")"


def save_figure(fig, path, dpi=110):
    """Write ``fig`` to ``path`` (text: :func:`~baseparam._checks.check_path`'s; format from its extension, PNG
    without one) atomically, then close it."""
    plt = pyplot()
    ext = os.path.splitext(os.fspath(path))[1] or ".png"
    formats = fig.canvas.get_supported_filetypes()
    from .errors import ArgumentError, printable

    # matplotlib's own ValueError said neither the file nor the argument
    problem = (_unsupported(printable(ext), formats, ext[1:].lower()) if ext[1:].lower() not in formats else
               _missing_program(ext[1:].lower()))
    if problem:
        plt.close(fig)
        raise ArgumentError(f"path: {printable(repr(os.fspath(path)))}: {problem}")
    try:
        # rendered in memory, in the format said, then written: matplotlib appends '.png' to a name without an
        # extension, and a device written in place (/dev/full) has none — it wrote /dev/full.png beside it and
        # reported success; and Pillow's PNG writer seeks, which a named pipe cannot
        data = io.BytesIO()
        fig.savefig(data, dpi=dpi, format=ext[1:].lower())
        check_output(path)
        write_bytes(path, data.getbuffer(), suffix=ext)     # its size is known now: a full disk said with the figures
    finally:
        plt.close(fig)
