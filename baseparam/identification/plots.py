"""Plots of an identification: measured against predicted torque, residuals, parameters with error bars.

Each function draws on axes it is given (or makes its own figure) and returns the figure, so it
works in notebooks and scripts alike; :func:`save_identification_plot` writes the standard
three-part figure atomically (the CLI's ``--plot``). matplotlib is imported lazily: the
rest of the package does not need it; imported, it keeps its configuration and font list where the user's
matplotlib does (``$MPLCONFIGDIR``, default ~/.config/matplotlib and ~/.cache/matplotlib; baseparam._figures says
why a library call does not redirect them, as the command line does).
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

from .._checks import check_instance, check_path, shown
from ..errors import ArgumentError, ArgumentTypeError
from .._figures import pyplot as _pyplot, save_figure


def time_axis(t):
    """Times of the compared samples laid end to end, in s, with NaN where the curve must break.

    ``Metrics.t`` restarts at 0 in each file and jumps over what preprocessing left out (rest phases,
    segment ends): each file follows the previous one after one sample step, and a jump of more than
    three steps (or a new file) breaks the line, so no line is drawn across samples that were not fitted.

    Parameters
    ----------
    t : ndarray, shape (n_samples,)

    Returns
    -------
    x : ndarray, shape (n_samples + B,)
        The times, a NaN inserted before each of the B breaks.
    index : ndarray of int, shape (n_samples + B,)
        Which sample each entry of x shows (-1 at the breaks).
    """
    t = np.asarray(t, dtype=float)
    if len(t) < 2:
        return t.copy(), np.arange(len(t))
    dt = np.diff(t)
    step = float(np.median(dt[dt > 0])) if (dt > 0).any() else 1.0
    new_file = dt <= 0
    offset = np.concatenate([[0.0], np.cumsum(np.where(new_file, t[:-1] - t[1:] + step, 0.0))])
    x = t + offset
    breaks = np.flatnonzero(new_file | (dt > 3.0 * step)) + 1
    return np.insert(x, breaks, np.nan), np.insert(np.arange(len(t)), breaks, -1)


def _torque_units(units, n):
    """Each joint's torque unit: ``units`` (a sequence of n str) or "N·m or N"; else one line, before any drawing (a
    str was read letter by letter, a short list was an IndexError, a number a bare TypeError)."""
    if units is None:
        return ["N·m or N"] * n
    # any iterable of str, as list(units) read it before the checks (a generator over the joints, a 1-D array, a
    # pandas Series), at most n + 1 of them read (an endless iterator is not read to its end)
    if isinstance(units, (str, bytes)) or not isinstance(units, Iterable) or \
            isinstance(units, np.ndarray) and units.ndim != 1:
        raise ArgumentTypeError(f"units: expected a list of {n} unit names (str), got {shown(units)}")
    listed = list(itertools.islice(units, n + 1))
    if not all(isinstance(u, str) for u in listed):
        raise ArgumentTypeError(f"units: expected a list of {n} unit names (str), got {shown(units)}")
    if len(listed) != n:
        raise ArgumentError(f"units: expected {n} unit names (one per joint), got "
                            f"{len(listed) if len(listed) <= n else 'more'}")
    return [str(u) for u in listed]


def _check_metrics(metrics):
    """``metrics`` when it is a :class:`~baseparam.Metrics` (an Identification's ``train`` or ``validation``)."""
    from .results import Metrics

    return check_instance(metrics, "metrics", Metrics, "a bp.Metrics (an Identification's train or validation)")


def _axes(axes, n, name):
    """``axes`` (one matplotlib Axes for n = None, else a sequence of n) when they are that; else one line, before
    any drawing (a number, a str or an array of numbers reached matplotlib's calls as bare errors). Called after
    ``_pyplot()``, which says in one line when matplotlib is missing."""
    from matplotlib.axes import Axes

    if n is None:
        return check_instance(axes, name, Axes, "a matplotlib Axes or None", allow_none=True)
    if axes is None:
        return None
    if not (isinstance(axes, (list, tuple)) or isinstance(axes, np.ndarray) and axes.ndim == 1) \
            or not all(isinstance(ax, Axes) for ax in axes):
        raise ArgumentTypeError(f"{name}: expected a sequence of {n} matplotlib Axes (one per joint) or None, got "
                                f"{shown(axes)}")
    if len(axes) != n:
        raise ArgumentError(f"{name}: expected {n} matplotlib Axes (one per joint), got {len(axes)}")
    return axes


def plot_torques(metrics, axes=None, title="", units=None):
    """Measured and predicted torque per joint against time.

    Parameters
    ----------
    metrics : Metrics
        ``t`` (n_samples,), ``tau`` and ``predicted`` (n_samples, n_dof).
    axes : sequence of n_dof matplotlib Axes, optional
    title : str, optional
        The first panel's title; default (None or "") the pooled NRMSE.
    units : sequence of n_dof str, optional
        Each joint's torque unit ("N·m", or "N" for a prismatic joint); default "N·m or N".

    Returns
    -------
    matplotlib.figure.Figure
        x: the samples' time in s after preprocessing (:func:`time_axis`: files end to end, the
        left-out rest phases as breaks in the curves).
    """
    n = _check_metrics(metrics).tau.shape[1]
    units = _torque_units(units, n)
    check_instance(title, "title", str, "a str or None", allow_none=True)       # None or "": the default title
    plt = _pyplot()
    axes = _axes(axes, n, "axes")
    if axes is None:
        fig, axes = plt.subplots(n, 1, figsize=(9, 1.6 * n + 0.6), sharex=True, squeeze=False)
        axes = axes[:, 0]
    x, index = time_axis(metrics.t)
    drawn = index >= 0
    for j, ax in enumerate(axes):
        for values, label in ((metrics.tau[:, j], "measured"), (metrics.predicted[:, j], "predicted")):
            ax.plot(x, np.where(drawn, values[np.maximum(index, 0)], np.nan), lw=0.8, label=label)
        ax.set_ylabel(f"τ{j + 1} [{units[j]}]")
        ax.text(0.99, 0.95, f"NRMSE {metrics.nrmse_percent[j]:.1f} %", transform=ax.transAxes, ha="right",
                va="top", fontsize=8)
    axes[0].legend(loc="upper left", fontsize=8)
    axes[0].set_title(title or f"torques (pooled NRMSE {metrics.nrmse_pooled_percent:.2f} %)")
    axes[-1].set_xlabel("t [s] (samples kept after preprocessing; files end to end)")
    return axes[0].figure


def plot_residuals(metrics, ax=None, units=None):
    """Residual τ − τ̂ per joint as box plots, in N·m (or N; ``units`` as in :func:`plot_torques`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    n = _check_metrics(metrics).tau.shape[1]
    units = _torque_units(units, n)
    plt = _pyplot()
    if _axes(ax, None, "ax") is None:
        _, ax = plt.subplots(figsize=(7, 3))
    e = metrics.tau - metrics.predicted
    ax.boxplot([e[:, j] for j in range(e.shape[1])], flierprops={"markersize": 2, "alpha": 0.3})
    same = len(set(units)) == 1
    ax.set_xticks(range(1, e.shape[1] + 1),
                  [f"joint {j + 1}" + ("" if same else f" [{units[j]}]") for j in range(e.shape[1])])
    ax.set_xlabel("joint")
    ax.axhline(0.0, color="k", lw=0.5)
    ax.set_ylabel("residual τ − τ̂" + (f" [{units[0]}]" if same else ""))
    ax.set_title("residuals (RMS " + ", ".join(f"{r:.3g}" for r in metrics.rmse) + ")")
    return ax.figure


def plot_parameters(result, ax=None):
    """Estimated base parameters with ±2σ error bars; poorly identified ones (one σ moves the predicted
    torque by more than 1 % of its RMS, ``torque_std_percent_``) in red.

    Parameters
    ----------
    result : Identification or BaseParameterEstimator
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure's).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from .results import TORQUE_STD_WARNING
    est = _fitted_estimator(result)
    plt = _pyplot()
    if _axes(ax, None, "ax") is None:
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


def _fitted_estimator(result):
    """The fitted estimator of ``result`` (an Identification, or a BaseParameterEstimator after ``fit``)."""
    from .estimators import BaseParameterEstimator
    from .results import Identification

    est = result.estimator if isinstance(result, Identification) else result
    check_instance(est, "result", BaseParameterEstimator, "a bp.Identification or a fitted bp.BaseParameterEstimator")
    est._fitted()
    return est


def identification_figure(result):
    """The three views in one figure: torques (validation if any, else training), residuals, parameters.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from .results import Identification

    check_instance(result, "result", Identification, "a bp.Identification")
    plt = _pyplot()
    label, metrics = ("validation", result.validation) if result.validation is not None else ("training", result.train)
    n = metrics.tau.shape[1]
    fig = plt.figure(figsize=(11, 1.5 * n + 7), layout="constrained")
    grid = fig.add_gridspec(n + 4, 1)
    axes = [fig.add_subplot(grid[j, 0]) for j in range(n)]
    for ax in axes[1:]:
        ax.sharex(axes[0])
    est = getattr(result, "estimator", result)
    units = ["N·m" if j.is_revolute else "N" for j in est.base_.robot.joints]
    plot_torques(metrics, axes, title=f"{label} torques (pooled NRMSE {metrics.nrmse_pooled_percent:.2f} %)",
                 units=units)
    plot_residuals(metrics, fig.add_subplot(grid[n:n + 2, 0]), units=units)
    plot_parameters(result, fig.add_subplot(grid[n + 2:, 0]))
    return fig


def save_identification_plot(result, path):
    """Write :func:`identification_figure` to ``path`` (format from its extension), atomically."""
    path = check_path(path)      # a name of the wrong kind refused before a second of drawing
    save_figure(identification_figure(result), path)
