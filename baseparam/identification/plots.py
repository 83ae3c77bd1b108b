"""Plots of an identification: measured against predicted torque, residuals, parameters with error bars.

Each function draws on axes it is given (or makes its own figure) and returns the figure, so it
works in notebooks and scripts alike; :func:`save_identification_plot` writes the standard
three-part figure atomically (the CLI's ``--plot``). matplotlib is imported lazily: the
rest of the package does not need it.
"""
from __future__ import annotations

import numpy as np

from .._figures import pyplot as _pyplot, save_figure


def plot_torques(metrics, axes=None, title=""):
    """Measured and predicted torque per joint against time.

    Parameters
    ----------
    metrics : Metrics
        ``t`` (S,), ``tau`` and ``predicted`` (S, n_dof).
    axes : sequence of n_dof matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _pyplot()
    n = metrics.tau.shape[1]
    if axes is None:
        fig, axes = plt.subplots(n, 1, figsize=(9, 1.6 * n + 0.6), sharex=True, squeeze=False)
        axes = axes[:, 0]
    x = np.arange(metrics.n_samples)       # sample index: files and removed rest phases leave gaps in t
    for j, ax in enumerate(axes):
        ax.plot(x, metrics.tau[:, j], lw=0.8, label="measured")
        ax.plot(x, metrics.predicted[:, j], lw=0.8, label="predicted")
        ax.set_ylabel(f"τ{j + 1} [N·m or N]")
        ax.text(0.99, 0.95, f"NRMSE {metrics.nrmse_percent[j]:.1f} %", transform=ax.transAxes, ha="right",
                va="top", fontsize=8)
    axes[0].legend(loc="upper left", fontsize=8)
    axes[0].set_title(title or f"torques (pooled NRMSE {metrics.nrmse_pooled_percent:.2f} %)")
    axes[-1].set_xlabel("sample (after preprocessing)")
    return axes[0].figure


def plot_residuals(metrics, ax=None):
    """Residual τ − τ̂ per joint as box plots, in N·m (or N).

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3))
    e = metrics.tau - metrics.predicted
    ax.boxplot([e[:, j] for j in range(e.shape[1])], flierprops={"markersize": 2, "alpha": 0.3})
    ax.set_xticks(range(1, e.shape[1] + 1), [f"joint {j + 1}" for j in range(e.shape[1])])
    ax.axhline(0.0, color="k", lw=0.5)
    ax.set_ylabel("residual τ − τ̂ [N·m or N]")
    ax.set_title("residuals (RMS " + ", ".join(f"{r:.3g}" for r in metrics.rmse) + ")")
    return ax.figure


def plot_parameters(result, ax=None):
    """Estimated base parameters with ±2σ error bars; poorly identified ones (one σ moves the predicted
    torque by more than 1 % of its RMS, ``torque_std_percent_``) in red.

    Parameters
    ----------
    result : Identification or BaseParameterEstimator

    Returns
    -------
    matplotlib.figure.Figure
    """
    from .results import TORQUE_STD_WARNING
    plt = _pyplot()
    est = getattr(result, "estimator", result)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(7, 0.18 * len(est.names_)), 3.5))
    x = np.arange(len(est.names_))
    unknown = ~np.isfinite(est.std_)
    poor = (est.torque_std_percent_ > TORQUE_STD_WARNING) & ~unknown
    limit = f"{TORQUE_STD_WARNING:g} % of τ"
    for mask, colour, label in ((~poor & ~unknown, "C0", f"σ moves τ̂ ≤ {limit}"), (poor, "C3", f"σ moves τ̂ > {limit}")):
        if mask.any():
            ax.errorbar(x[mask], est.coef_[mask], yerr=2 * est.std_[mask], fmt="o", ms=3, color=colour,
                        capsize=2, label=label)
    if unknown.any():                 # no error bar would look precise: mark them apart
        ax.plot(x[unknown], est.coef_[unknown], "x", color="k", label="not determined by the data")
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xticks(x, est.names_, rotation=90, fontsize=7)
    ax.set_ylabel("value ± 2σ (SI)")
    ax.legend(fontsize=8)
    ax.set_title("base parameter estimates")
    return ax.figure


def identification_figure(result):
    """The three views in one figure: torques (validation if any, else training), residuals, parameters.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _pyplot()
    metrics = result.validation if result.validation is not None else result.train
    label = "validation" if result.validation is not None else "training"
    n = metrics.tau.shape[1]
    fig = plt.figure(figsize=(11, 1.5 * n + 7), layout="constrained")
    grid = fig.add_gridspec(n + 4, 1)
    axes = [fig.add_subplot(grid[j, 0]) for j in range(n)]
    for ax in axes[1:]:
        ax.sharex(axes[0])
    plot_torques(metrics, axes, title=f"{label} torques (pooled NRMSE {metrics.nrmse_pooled_percent:.2f} %)")
    plot_residuals(metrics, fig.add_subplot(grid[n:n + 2, 0]))
    plot_parameters(result, fig.add_subplot(grid[n + 2:, 0]))
    return fig


def save_identification_plot(result, path):
    """Write :func:`identification_figure` to ``path`` (format from its extension), atomically."""
    save_figure(identification_figure(result), path)
