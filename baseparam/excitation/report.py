"""An excitation design as the ``excite --json`` document and as a few lines of text."""
from __future__ import annotations

import math

from .._checks import counted
from .._numbers import json_float, json_floats

CONDITION_NOTE = ("cond(W_b), 2-norm, unscaled, over the samples of the trajectory file (t = 0 … period at "
                  "rate): W_b stacks the base regressor of every sample (rows: samples × joints; columns: "
                  "'base', the description's friction and rotor-inertia columns included)")


PAYLOAD_NOTE = ("cond, 2-norm, unscaled, over the samples of the trajectory file, of the payload's identifiable "
                "columns ('payload.representatives': the last link's columns of the standard regressor, every "
                "joint's torque a row); condition_numbers: the whole robot's W_b, for reference")


def design_report(design):
    """The JSON document (docs/formats.md, "Excitation design")."""
    s, numbers = design.search, design.condition_numbers
    own = numbers[design.parameters]
    return {
        "robot": design.robot.name,
        "criterion": design.criterion,
        "condition_number": json_float(design.condition_number),
        "condition_number_definition": CONDITION_NOTE if design.payload is None else PAYLOAD_NOTE,
        "parameters": design.parameters,
        "base": own["with_drives_columns"],
        "condition_numbers": {
            parameters: {"with_drives": json_float(entry["with_drives"]), "rigid_body": json_float(entry["rigid_body"]),
                         "column_normalised": json_float(entry["column_normalised"]),
                         "rigid_body_base": entry["rigid_body_columns"],
                         **({"base": entry["with_drives_columns"]} if parameters != design.parameters else {})}
            for parameters, entry in numbers.items()},
        "criterion_value": design.criterion_value,
        **({} if design.criterion != "inertia" else
           {"noise": None if design.noise is None else json_floats(design.noise)}),
        "period": design.period,
        "harmonics": design.harmonics,
        "rate": design.rate,
        "samples": int(len(design.samples.t)),
        "coefficients": design.series.to_dict(),
        "limits": {"source": design.limits.source, "joints": design.limits.to_dict()},
        "bounds": {"method": "certified between samples: Bernstein's inequality over 64·K samples per period",
                   **{key: json_floats(value) for key, value in design.bounds.items()}},
        "torque_max": None if design.torque_max is None else json_floats(design.torque_max),
        "torque_limited": design.torque_limited,
        "search": {"seed": s.seed, "starts": s.starts, "starts_counted": s.counted, "best_start": s.best_start,
                   "workers": s.workers, "seconds": round(s.seconds, 3), "time_budget": s.time_budget,
                   "deterministic": s.deterministic, "evaluations": s.evaluations, "gradients": s.gradients},
        **({} if design.payload is None else
           {"payload": {**design.payload.to_dict(), "condition_number": json_float(design.condition_number)}}),
        **({} if design.refinement is None else
           {"refinement": {**design.refinement,
                           "noise": None if design.noise is None else json_floats(design.noise)}}),
    }


def summary_text(design):
    """What ``baseparam excite`` prints."""
    numbers = design.condition_numbers[design.parameters]
    s = design.search
    drives = "" if numbers["with_drives"] == numbers["rigid_body"] else \
        f"; rigid body alone ({len(numbers['rigid_body_columns'])} columns) {numbers['rigid_body']:.4g}"
    if design.payload is None:
        cond = [f"cond(W_b) = {design.condition_number:.4g} ({design.base.rank} base columns, {design.parameters}"
                f"{drives}; column-normalised {numbers['column_normalised']:.4g})"]
    else:
        p = design.payload
        cond = [f"payload: cond = {design.condition_number:.4g} over {p.rank} of its 10 columns ({design.parameters},"
                f" {', '.join(p.names)}), joints {', '.join(map(str, p.moving))} moving, the others held",
                "  identifiable: " + ("all 10" if p.complete else "; ".join(p.combinations))]
        if design.criterion == "inertia":       # criterion_value = ln(rows · Σ var): the variances themselves
            total = math.exp(design.criterion_value) / (len(design.samples.t) * design.series.n_dof)
            cond.append(f"  inertia about the link frame's origin: √(Σ of its variances) = {math.sqrt(total):.3g} "
                        "kg·m² from one period's samples, with the noise given (1 N·m per joint without it)")
            from .criteria import INERTIA_ELEMENTS, identifiable_inertia
            seen = identifiable_inertia(design.robot, design.parameters, p)
            if len(seen) < len(INERTIA_ELEMENTS):    # the others are not identifiable with these joints moving
                cond.append(f"  (of its elements {', '.join(seen)}: the others are not identifiable)")
    lines = [
        f"{design.robot.name}: {design.harmonics} harmonics, period {design.period:g} s, "
        f"{counted(len(design.samples.t), 'samples')} at {design.rate:g} Hz",
        *cond,
        # no start finished within the budget: start 0's best iterate so far, which no setting reproduces
        (f"search: best of starts 0-{s.counted - 1} (start {s.best_start})" if s.counted else
         f"search: start {s.best_start} unfinished (its best iterate so far)")
        + f", {s.starts} asked, {counted(s.workers, 'workers')}, {s.seconds:.1f} s, seed {s.seed}, "
        f"{s.evaluations} evaluations"
        + ("" if s.counted == s.starts else f" (time budget {s.time_budget:g} s: " +
           (f"starts={s.counted} reproduces it)" if s.counted else "timing-dependent)")),
        *([] if design.refinement is None else [refinement_line(design.refinement)]),
        f"limits: {design.limits.source}",
    ]
    b = design.bounds
    used = []
    for k in range(design.series.n_dof):
        lim = design.limits
        parts = [f"q [{b['q_min'][k]:.3g}, {b['q_max'][k]:.3g}]", f"|qd| {b['qd_max'][k]:.3g}/{lim.velocity[k]:.3g}",
                 f"|qdd| {b['qdd_max'][k]:.3g}" + (f"/{lim.acceleration[k]:.3g}" if math.isfinite(lim.acceleration[k])
                                                   else "")]
        if design.torque_max is not None:
            parts.append(f"|tau| {design.torque_max[k]:.3g}" + (f"/{lim.torque[k]:.3g}" if math.isfinite(lim.torque[k])
                                                               else ""))
        used.append(f"  joint {k + 1}: " + ", ".join(parts))
    return "\n".join(lines + used)


def refinement_line(refinement):
    """The wide payload design's line: its criterion before and after, and how the L-BFGS ended."""
    r = refinement
    return (f"wide: L-BFGS on the inertia about the centre (log of the smooth max of its variances) "
            f"{r['start_value']:.4g} -> {r['value']:.4g} in {r['iterations']} iterations"
            + ("" if r["complete"] else " (cut by the time budget: timing-dependent)"))
