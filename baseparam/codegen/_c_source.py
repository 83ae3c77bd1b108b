"""The C export: one header and one source, C99, nothing beyond ``<math.h>``, no allocation.

Outputs are row-major (``Y[j*R + r]``); SI units.
"""
from __future__ import annotations

from ..dynamics.expressions import INPUT
from ..dynamics.printing import C_EXPORT, Printer, prologue
from ._printer import _argument, _header_comment, _leaf
from ._routines import PURPOSE


def _c_signature(prefix, routine, n, R, returns="void", suffix=""):
    params = [f"const double {a}[{routine.width(a, n, R)}]" for a in routine.arguments]
    out = f"double {routine.output}[{routine.size}]"
    return f"{returns} {prefix}_{routine.name}{suffix}({', '.join(params + [out])})"


def c_function(robot, routine, prefix, R):
    """The C definition of one routine (see :func:`c_sources`)."""
    g, n = routine.graph, robot.n_dof
    printer = Printer(g, [i for _, i in routine.outputs], _leaf(robot, routine), C_EXPORT.number)
    lines = [_c_signature(prefix, routine, n, R), "{"]
    lines += prologue(g, printer.order, robot, C_EXPORT)
    lines += [C_EXPORT.let((name,), (text,)) for name, text in printer.temporaries()]
    out = routine.output
    written = {index for index, _ in routine.outputs}
    if len(written) < routine.size:
        lines.append(f"    for (int i = 0; i < {routine.size}; ++i) {out}[i] = 0.0;")
    lines += [f"    {out}[{index}] = {printer.ref(node)};" for index, node in routine.outputs]
    used = {_argument(routine, *g.args[i]) for i in printer.order if g.ops[i] == INPUT}
    for arg in routine.arguments:                         # a constant output reads nothing: say so
        if arg not in used:
            lines.insert(2, f"    (void){arg};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def c_checked_function(robot, routine, prefix, R):
    """``NAME_<routine>_checked``: the plain function behind a check of its inputs (see :func:`c_sources`).

    ``!(fabs(x) <= bound)`` is true for NaN and ±inf as for a value beyond the bound: one comparison per
    input, and the plain function, unchanged, computes the outputs (bit for bit the same)."""
    n, P = robot.n_dof, prefix.upper()
    lines = [_c_signature(prefix, routine, n, R, "int", "_checked"), "{"]
    for arg in routine.arguments:
        code, bound = (2, f"{P}_MAX_PARAMETER") if arg == "p_base" else (1, f"{P}_MAX_STATE")
        lines += [f"    for (int i = 0; i < {routine.width(arg, n, R)}; ++i)",
                  f"        if (!(fabs({arg}[i]) <= {bound})) return {code};"]
    lines += [f"    {prefix}_{routine.name}({', '.join(routine.arguments + (routine.output,))});",
              "    return 0;", "}"]
    return "\n".join(lines) + "\n"


def c_sources(base, selected, prefix, counts, checked=False):
    """Header and source text of the C export (``counts``: each routine's :func:`._routines.operation_counts`).

    ``checked`` adds, after the plain functions, ``int NAME_<routine>_checked(...)`` of the same arguments: 0
    when it computed the outputs, 1 when a state argument is NaN, infinite or beyond ±``NAME_MAX_STATE``, 2
    when ``p_base`` is beyond ±``NAME_MAX_PARAMETER`` (the bounds of baseparam's own functions); nothing is
    written to the output then. Without it the files hold the plain functions alone.

    Returns
    -------
    header, source : str
    """
    robot, n, R = base.robot, base.robot.n_dof, base.rank
    guard = f"{prefix.upper()}_H"
    comment = _header_comment(base, counts, prefix, "c", checked)
    names = ", ".join(f'"{name}"' for name in base.names)
    header = [comment, f"#ifndef {guard}", f"#define {guard}", "",
              "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
              f"#define {prefix.upper()}_N_DOF {n}", f"#define {prefix.upper()}_N_BASE {R}", ""]
    if robot.is_floating:       # the base wrench's six rows lead Y and tau
        header[-1:] = [f"#define {prefix.upper()}_N_V {robot.n_v}", ""]
    header += ["/* names of the base parameters, in the column order of Y and p_base */",
               f"extern const char *const {prefix}_base_names[{R}];", ""]
    for r in selected:
        header += [f"/* {PURPOSE[r.name]} */", _c_signature(prefix, r, n, R) + ";", ""]
    if checked:
        from .._validation import ABSURD, ABSURD_PARAMETER
        # words without "NaN" or "inf": a scan of the outputs for those values must not find the comment
        header += ["/* The same functions behind a check of their inputs: 0 = computed; 1 = a state argument is",
                   f" * non-finite or beyond +-{prefix.upper()}_MAX_STATE; 2 = a p_base value is non-finite or beyond",
                   f" * +-{prefix.upper()}_MAX_PARAMETER (the output is then left as it was). Beyond these bounds the",
                   " * products may overflow to non-finite values. Not under -ffast-math, which assumes every value",
                   " * finite. */",
                   f"#define {prefix.upper()}_MAX_STATE {ABSURD!r}",
                   f"#define {prefix.upper()}_MAX_PARAMETER {ABSURD_PARAMETER!r}", ""]
        header += [_c_signature(prefix, r, n, R, "int", "_checked") + ";" for r in selected] + [""]
    header += ["#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    source = [comment, "#include <math.h>", f'#include "{prefix}.h"', "",
              f"const char *const {prefix}_base_names[{R}] = {{{names}}};", ""]
    for r in selected:
        source += [f"/* {PURPOSE[r.name]} */", c_function(robot, r, prefix, R)]
    if checked:
        source += [c_checked_function(robot, r, prefix, R) for r in selected]
    return "\n".join(header), "\n".join(source)
