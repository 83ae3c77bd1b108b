"""Exported code: a robot's base regressor, Slotine–Li regressor and inverse dynamics as C or Python.

The expression graphs of :mod:`baseparam.dynamics.regressor_graph` already hold each value once
(hash-consing), with the DH table's exact 0 and ±1 folded; here they are written out as
straight-line code (Golubev & Yaskevich's procedure):

* only the nodes the outputs need are emitted (dead code removed from the targets backwards);
* sin and cos are computed once per joint, at the top;
* a value used more than once gets a named ``const`` temporary; a value used once is written
  inline where it is used — the code has exactly the graph's operations (:func:`operation_counts`).

C: one header and one source, C99, nothing beyond ``<math.h>``, no allocation, SI units,
row-major outputs (``Y[j*R + r]``). Python: a module needing only numpy, evaluating one sample
(arrays (n_dof,)) or a batch (arrays (n_samples, n_dof)), vectorized over samples. Both carry the base-parameter
names and their regroupings as comments. :func:`export` writes the files and ``NAME.json``.

The parts, one job each: :mod:`._routines` (graphs and operation counts), :mod:`._printer`
(expressions, header comment), :mod:`._c_source` and :mod:`._python_source` (the two languages);
this module checks the options and writes the files.
"""
from __future__ import annotations

import keyword
import os
import re
from collections.abc import Mapping
from numbers import Integral
from dataclasses import dataclass, field
from types import MappingProxyType

from .._checks import shown
from .._atomic import make_folders, remove_folders, write_texts
from .._json_text import json_text
from .._output_names import check_output, robot_protected, unresolvable_folder, unwritable
from .._validation import (ABSURD, ABSURD_PARAMETER, check_entries, check_field_kinds, check_flag, check_instance,
                           check_name_fields, check_option, check_path, check_texts, comma_list,
                           reduce_read_only_mappings)
from ..projection.base_set import BaseParameters
from ..errors import ArgumentError, ExportError, printable
from ._c_source import c_sources
from ._printer import _accuracy_line, _si_terms
from ._python_source import python_source
from ._routines import FUNCTIONS, Routine, operation_counts, routines


# ``ExportError`` lives in :mod:`baseparam.errors`; it stays importable from here, and so do the
# routines and their operation counts (tests and bench/bench_export.py reach them through this module).
__all__ = ["ExportError", "ExportResult", "FUNCTIONS", "Routine", "check_checked", "check_prefix", "export",
           "operation_counts", "parse_what", "routines"]


# The files one export writes at most (C: NAME.h, NAME.c, NAME.json); a hand-built ExportResult lists no more
MAX_EXPORT_FILES = 3


@dataclass(frozen=True)
class ExportResult:
    """What :func:`export` wrote.

    Attributes
    ----------
    files : tuple of str
        Paths written, in order: ``NAME.h``, ``NAME.c`` (C) or ``NAME_dynamics.py`` (Python), then
        ``NAME.json``: at most :data:`MAX_EXPORT_FILES`.
    functions : mapping
        Function name (:data:`FUNCTIONS`: the C functions are ``NAME_<function>``, the Python
        module's functions ``<function>``) → operation counts ``{"mul", "add", "div", "sincos"}``.
    base_names : tuple of str, length R
        Names of the base parameters, in the column order of ``Y`` and ``p_base``.
    lang : {'c', 'python'}
    prefix : str
    """

    files: tuple
    functions: MappingProxyType = field(repr=False, hash=False)
    base_names: tuple = field(repr=False)
    lang: str = "c"
    prefix: str = "baseparam"

    __reduce__ = reduce_read_only_mappings     # pickle, copy, deepcopy: the mappings as dicts, wrapped again

    def __post_init__(self):
        # a public class: one built by hand with a wrong kind of field is refused here, not deep in summary()
        check_field_kinds(self, {"files": ((tuple, list), "a tuple of paths"), "functions": (Mapping, "a mapping"),
                                 "base_names": ((tuple, list), "a tuple of names"), "lang": (str, "a str"),
                                 "prefix": (str, "a str")})
        check_name_fields(self, ("base_names",))       # joined into its repr and summary
        # export writes at most NAME.h, NAME.c and NAME.json: a hand-built list of 100 000 paths would fill its repr
        check_texts(self.files, "ExportResult.files", limit=MAX_EXPORT_FILES)
        _check_function_counts(self.functions)

    def __repr__(self):
        names = [os.path.basename(f) for f in self.files]
        return (f"ExportResult(lang={self.lang!r}, prefix={self.prefix!r}, files={names}, "
                f"functions={list(self.functions)}, n_base={len(self.base_names)})")

    def summary(self):
        """One line per function: its operation counts (what the CLI prints)."""
        return "\n".join(f"  {name:<17} {c['mul']:>5} mul {c['add']:>5} add {c['div']:>3} div {c['sincos']:>3} sincos"
                         for name, c in self.functions.items())


def _check_function_counts(functions):
    """Refuse a hand-built ExportResult's ``functions`` unless each is one of :data:`FUNCTIONS` with its four operation
    counts (whole numbers): its summary reads them (a dict of other entries would be a bare KeyError), its repr lists
    the names (FUNCTIONS' only, not a dict of 100 000)."""
    counts = {key: (Integral, "a whole number") for key in ("mul", "add", "div", "sincos")}
    for name, value in functions.items():
        if name not in FUNCTIONS:
            raise ArgumentError(f"ExportResult.functions: {shown(name)}; expected some of {', '.join(FUNCTIONS)}")
        check_entries(value, f"ExportResult.functions[{name!r}]", counts)


def parse_what(text):
    """Function names from ``"regressor,slotine_li,inverse_dynamics"`` or a sequence of names.

    The names are those of :data:`FUNCTIONS` (the C functions ``NAME_<name>``, the Python
    module's functions); ``slotine-li`` and ``inverse-dynamics`` are accepted for ``_``.
    """
    check_instance(text, "what", (str, list, tuple), "function names (a str or a sequence of str)")
    names = []
    for part in (comma_list(text, "what", error=ExportError) if isinstance(text, str) else text):
        name = str(part).strip().replace("-", "_")
        if name not in FUNCTIONS:
            raise ExportError(f"what: unknown function {shown(str(part).strip())}; expected {', '.join(FUNCTIONS)}")
        if name not in names:
            names.append(name)
    if not names:
        raise ExportError("what: no function named; expected some of " + ", ".join(FUNCTIONS))
    return names


# The C11 standard headers: NAME.h of one of these names (in any case: macOS's file system ignores it) found first
# on the include path in place of the library's
C_HEADERS = frozenset("assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdalign "
                      "stdarg stdatomic stdbool stddef stdint stdio stdlib stdnoreturn string tgmath threads time "
                      "uchar wchar wctype".split())

# Windows' reserved device names: NAME.json (written for every language) and NAME.h/NAME.c of one of these, in any
# case and whatever the extension, open the device (CON: the console) there instead of a file
WINDOWS_DEVICES = frozenset(["con", "prn", "aux", "nul", *(f"{port}{k}" for port in ("com", "lpt") for k in range(10))])


def check_prefix(prefix, lang=None):
    """A prefix must be a C identifier not reserved to the implementation (no leading '_'), at most
    64 characters, not a Windows device name (``CON``, ``nul``: the files are written as NAME.json, NAME.h); for
    Python also not a keyword, for C not a C standard header's name."""
    if not isinstance(prefix, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", prefix):
        raise ExportError(f"prefix: {shown(prefix)} is not a valid name: a letter, then letters, digits or '_'")
    if len(prefix) > 64:
        raise ExportError(f"prefix: {len(prefix)} characters; at most 64")
    if prefix.lower() in WINDOWS_DEVICES:
        raise ExportError(f"prefix: {shown(prefix)} would write {prefix}.json, and on Windows {prefix} is a device "
                          "(CON, PRN, AUX, NUL, COM0–COM9, LPT0–LPT9 in any case), not a file; choose another name")
    if lang == "python" and keyword.iskeyword(prefix):
        raise ExportError(f"prefix: {shown(prefix)} is a Python keyword")
    if lang == "c" and prefix.lower() in C_HEADERS:
        raise ExportError(f"prefix: {shown(prefix)} would write {prefix}.h, which hides the C library's "
                          f"<{prefix.lower()}.h> from code compiled with the output folder on the include path; "
                          "choose another name")
    return prefix


def check_checked(checked, lang):
    """``checked`` is a bool, and True only for C."""
    check_flag(checked, "checked")
    if checked and lang != "c":
        raise ExportError("checked: adds the C functions' checked entry points; the Python module always checks "
                          "its inputs")
    return checked


def check_out_dir(out_dir):
    """Refuse ``out_dir`` as :func:`export` would, before the work (a wrong type, a file, a symbolic link).

    Raises
    ------
    ExportError
    """
    check_instance(out_dir, "out_dir", (str, os.PathLike), "a directory path (str or os.PathLike)",
                   error=ExportError)
    if not str(out_dir):
        raise ExportError("out_dir: empty directory name")
    check_path(out_dir, "out_dir", error=ExportError)            # a NUL: refused here, not by os.makedirs
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ExportError(f"{printable(os.fsdecode(out_dir))}: out_dir: not a directory")
    if os.path.islink(out_dir) and not os.path.exists(out_dir):     # makedirs said only "File exists"
        raise ExportError(f"{printable(os.fsdecode(out_dir))}: out_dir: a symbolic link to "
                          f"{printable(repr(os.readlink(out_dir)))}, which does not exist; not created through it")
    named = os.fspath(out_dir).rstrip("/" + os.sep) or os.fspath(out_dir)     # 'link/' names the link too
    if os.path.islink(named):          # as every output named by a link (_atomic): not written through it
        raise ExportError(f"{printable(os.fsdecode(out_dir))}: out_dir: is a symbolic link (to "
                          f"{printable(repr(os.readlink(named)))}), which baseparam did not create; not written "
                          "through (remove the link, or choose another folder)")
    reason = unresolvable_folder(out_dir)   # 'x.json/..': makedirs made a folder x.json, the files went beside it
    if reason is not None:
        raise ExportError(f"{printable(os.fsdecode(out_dir))}: out_dir: cannot create the directory ({reason}: a '..' "
                          "after a name that is no folder)")
    problem = unwritable(os.path.join(os.fspath(out_dir), "NAME.json"), made=True)   # read-only, full: before the work
    if problem is not None:
        raise ExportError(f"{printable(os.fsdecode(out_dir))}: out_dir: {problem}")


def exported_names(prefix, lang):
    """The names of the files :func:`export` writes, in its order: ``NAME.h``, ``NAME.c`` (C) or
    ``NAME_dynamics.py`` (Python; not NAME.py: with the default NAME, a module "baseparam.py" would shadow this
    package), then ``NAME.json``.

    Returns
    -------
    tuple of str
    """
    code = (f"{prefix}.h", f"{prefix}.c") if lang == "c" else (f"{prefix}_dynamics.py",)
    return (*code, f"{prefix}.json")


def check_exported_files(out_dir, prefix, lang):
    """Refuse, before the work, a file :func:`export` would write into ``out_dir`` that no write may replace (a
    read-only file, a symbolic link, a folder of that name: :func:`~baseparam._output_names.check_output`); the write
    refused it only after the projection.

    Raises
    ------
    StorageError
    """
    for name in exported_names(prefix, lang):
        check_output(os.path.join(os.fspath(out_dir), name))


def export(base, lang, what=FUNCTIONS, prefix="baseparam", out_dir=".", *, checked=False):
    """Write the exported code and ``NAME.json`` (base-parameter names, operation counts).

    A floating robot's functions take the base's pose, twist and twist rate first (``base_pose`` (7),
    ``base_twist`` (6), ``base_accel`` (6); ``slotine_li``: ``base_pose, base_twist, base_twist_ref,
    base_accel_ref``; pinocchio's free-flyer convention as :func:`~baseparam.inverse_dynamics`), then
    the joints' arrays; their 6 + n_dof rows lead with the base wrench [f, n].

    Parameters
    ----------
    base : BaseParameters
    lang : {'c', 'python'}
    what : sequence of str or str
        Functions, names from :data:`FUNCTIONS` (``regressor``, ``slotine_li``, ``inverse_dynamics``:
        the Python module's function names, ``NAME_<function>`` in C); ``slotine-li`` is accepted.
    prefix : str
        NAME: function prefix and file stem (``NAME.h``/``NAME.c``, or the module ``NAME_dynamics.py``,
        and ``NAME.json``).
    out_dir : str
        Directory of the files (created if missing).
    checked : bool, optional
        C only: also write ``int NAME_<function>_checked(...)``, each function behind a check of its inputs
        (0: computed; 1: a state NaN, infinite or beyond ±``NAME_MAX_STATE``; 2: ``p_base`` beyond
        ±``NAME_MAX_PARAMETER``; the output untouched then), listed in ``NAME.json`` under ``checked`` with the
        bounds. The plain functions and, without it, the files are unchanged. The Python module always checks its
        inputs.

    Returns
    -------
    ExportResult
        The files written, each function's operation counts and the base-parameter names.

    Raises
    ------
    ExportError
        An invalid option (the message names the parameter).
    """
    check_instance(base, "base", BaseParameters, "the BaseParameters of find_base_parameters(robot)",
                   error=ExportError)
    check_option(lang, "lang", ("c", "python"), expected="'c' or 'python'", error=ExportError)
    check_checked(checked, lang)
    selected = routines(base, parse_what(what))
    check_prefix(prefix, lang)
    check_out_dir(out_dir)
    counts = {r.name: operation_counts(r, base.robot) for r in selected}
    names = exported_names(prefix, lang)
    if lang == "c":
        files = dict(zip(names[:2], c_sources(base, selected, prefix, counts, checked)))
    else:
        files = {names[0]: python_source(base, selected, prefix, counts)}
    # the counts are the graphs', the same for C and Python: the document does not depend on --lang
    doc = {"robot": base.robot.name, "parameters": base.parameters, "n_dof": base.robot.n_dof,
           "base": list(base.names), "functions": counts,
           "accuracy": {"exact": bool(base.exact), "relative": float(base.accuracy), "note": _accuracy_line(base)},
           "regroupings": {name: _si_terms(base, r) for r, name in enumerate(base.names)}}
    if base.robot.is_floating:        # rows: the base wrench [f, n], then the joints (fixed-base files unchanged)
        doc["n_v"], doc["floating"] = base.robot.n_v, True
    if checked:                       # the C entry points that check their inputs, and the bounds (else unchanged)
        doc["checked"] = {"functions": [f"{prefix}_{r.name}_checked" for r in selected], "max_state": ABSURD,
                          "max_parameter": ABSURD_PARAMETER}
    files[names[-1]] = json_text(doc)
    paths = [os.path.join(out_dir, name) for name in files]
    try:
        made = make_folders(out_dir)   # removed again with the command's outputs if they are discarded
    except OSError as exc:             # a name too long, no permission, a read-only or full disk
        raise ExportError(f"{printable(os.fsdecode(out_dir))}: out_dir: cannot create the directory "
                          f"({exc.strerror or printable(exc)})") from None
    try:
        with robot_protected(base.robot):               # never over the robot's description
            write_texts(dict(zip(paths, files.values())))    # all replaced, or none
    except BaseException:              # a full disk, an interrupt: none of the files, nor the folders made for them
        remove_folders(made)
        raise
    return ExportResult(files=tuple(paths), functions=MappingProxyType(counts), base_names=tuple(base.names),
                        lang=lang, prefix=prefix)
