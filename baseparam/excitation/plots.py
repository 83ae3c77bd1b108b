"""The figure of an excitation design: each joint's q, q̇, q̈ (and τ) over one period against its limits,
every axis with its unit (rad, rad/s, rad/s², N·m; m, m/s, m/s², N for a prismatic joint)."""
from __future__ import annotations

import math

import numpy as np

from .._checks import check_path
from .._figures import pyplot, save_figure
from ._problem import true_base_parameters


def excitation_figure(design):
    """One row per joint; columns q, q̇, q̈ and, with true inertias, τ. Limits dashed, samples as drawn.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = pyplot()
    series, lim = design.series, design.limits
    n = series.n_dof
    t = np.linspace(0.0, series.period, max(2000, 40 * series.harmonics))
    q, qd, qdd = series.evaluate(t)
    curves = [("q", q, lim.lower, lim.upper, ("rad", "m")), ("q̇", qd, -lim.velocity, lim.velocity, ("rad/s", "m/s")),
              ("q̈", qdd, -lim.acceleration, lim.acceleration, ("rad/s²", "m/s²"))]
    if design.torque_max is not None:
        tau = design.base._inverse_dynamics(true_base_parameters(design.base), q, qd, qdd)
        curves.append(("τ", tau, -lim.torque, lim.torque, ("N·m", "N")))
    revolute = [j.is_revolute for j in design.robot.joints]
    fig, axes = plt.subplots(n, len(curves), figsize=(3.2 * len(curves) + 1, 1.3 * n + 1.2), sharex=True,
                             squeeze=False, layout="constrained")
    for c, (label, values, low, high, (angular, linear)) in enumerate(curves):
        for j in range(n):
            ax = axes[j, c]
            ax.plot(t, values[:, j], lw=1.0)
            for bound in (low[j], high[j]):
                if math.isfinite(bound):
                    ax.axhline(bound, color="tab:red", ls="--", lw=0.8)
            ax.tick_params(labelsize=7)
            unit = angular if revolute[j] else linear
            ax.set_ylabel(f"joint {j + 1}: {label} [{unit}]" if c == 0 else f"{label}{j + 1} [{unit}]", fontsize=8)
            if j == 0:
                ax.set_title(label, fontsize=9)
        axes[-1, c].set_xlabel("t [s]", fontsize=8)
    fig.suptitle(f"{design.robot.name}: cond(W_b) = {design.condition_number:.4g} ({design.parameters}, "
                 f"{design.base.rank} columns), limits dashed", fontsize=10)
    return fig


def save_excitation_plot(design, path):
    """Write :func:`excitation_figure` to ``path`` (format from its extension), atomically."""
    path = check_path(path)      # a name of the wrong kind refused before a second of drawing
    save_figure(excitation_figure(design), path)
