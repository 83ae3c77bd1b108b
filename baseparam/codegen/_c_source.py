"""The C export: one header and one source, C99, nothing beyond ``<math.h>``, no allocation.

Outputs are row-major (``Y[j*R + r]``); SI units.
"""
from __future__ import annotations

from ..dynamics.expressions import INPUT
from ..dynamics.printing import C_EXPORT, Printer, prologue
from ._printer import _argument, _header_comment, _leaf
from ._routines import PURPOSE


def _c_signature(prefix, routine, n, R):
    params = [f"const double {a}[{routine.width(a, n, R)}]" for a in routine.arguments]
    out = f"double {routine.output}[{routine.size}]"
    return f"void {prefix}_{routine.name}({', '.join(params + [out])})"


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


def c_sources(base, selected, prefix, counts):
    """Header and source text of the C export (``counts``: each routine's :func:`._routines.operation_counts`).

    Returns
    -------
    header, source : str
    """
    robot, n, R = base.robot, base.robot.n_dof, base.rank
    guard = f"{prefix.upper()}_H"
    comment = _header_comment(base, counts, prefix, "c")
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
    header += ["#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    source = [comment, "#include <math.h>", f'#include "{prefix}.h"', "",
              f"const char *const {prefix}_base_names[{R}] = {{{names}}};", ""]
    for r in selected:
        source += [f"/* {PURPOSE[r.name]} */", c_function(robot, r, prefix, R)]
    return "\n".join(header), "\n".join(source)
