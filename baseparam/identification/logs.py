"""Identification from many logs, each reduced on its own: any number and size of logs, on this
machine's processes or on a Dask cluster.

Each log is read with :func:`read_trajectory` (the reader options are passed on, so every format it
reads is taken), preprocessed as :meth:`BaseParameterEstimator.fit` does, and reduced block by
block (16 MB of the base regressor's rows, then their products) to the per-joint augmented
Gram matrices [W_j τ_j]ᵀ[W_j τ_j] of its kept samples (:class:`._least_squares.Factors`): RᵀR of the
triangular factor R of the stacked regressor and Qᵀτ, the sufficient statistic of every (weighted)
least-squares fit on the log. Its size is that of the base set, (n_dof, R + 1, R + 1), whatever the
log's length; a worker holds one log at a time. The logs' statistics are added in the order the logs
were given (not the order the workers finish), so the fit is the same whatever the workers, and equals
the in-memory fit (:func:`identify`, which accumulates the same blocks) up to the order of the sums.

From the pooled statistics come the OLS and WLS fits (WLS weights from the pooled OLS residuals), and
the physically consistent fit: its least-squares term is ‖R x − z‖², which the folds' statistics give
exactly (the folds are contiguous shares of each log, as in memory). Each log's residual RMS per joint
is its statistic evaluated at the fit, ‖τ_j − W_j x‖² = [x; −1]ᵀ G_j [x; −1] (no second pass), and
the leave-one-log-out validation fits on the pooled statistics less the log's, then scores the log.
The training errors are computed the same way (an in-memory fit computes them from the samples; the two
agree to the round-off of the sums, ~1e-16 of ‖τ‖²).

Friction velocity scales left ``'auto'`` are chosen as in memory, from products summed over the training
logs' samples: a first pass over the logs (:func:`scale_log`) gives them, then the logs are reduced on the
robot with the chosen scales (each log is read twice). Not streamed: the figure (``identify --plot``),
which needs the samples.
"""
from __future__ import annotations

import glob
import os
import warnings
from dataclasses import dataclass
from functools import reduce
from typing import Optional

import numpy as np

from .._checks import check_progress, is_file_name, plain_texts, shown
from .._blas import single_threaded
from .._validation import check_flag, check_instance, check_number
from ..projection.report import check_base
from .._warnings import deprecated_parameter, ignored, recorded, warn
from ..errors import BaseParamError, DataError, DataWarning, SettingsError, printable
from ._consistent import FOLDS, consistent_fit
from ._friction import add_statistics, choose_scales, processed_shapes, scale_statistics, unresolved_joints
from ._log_patterns import matching_names
from ._inputs import _as_trajectories, _is_state_tuple, check_joints, read_log
from ._least_squares import Factors, _Normal, accumulate, check_pooled, least_squares, refuse_joint_without_torque
from .estimators import BaseParameterEstimator
from .preprocessing import Preprocessing, Processed, preprocess
from .results import Identification, LogResult, Metrics

FIT_OPTIONS = ("weighting", "prior", "prior_weight", "mass_bounds", "total_mass")


def expand_logs(logs, what="logs"):
    """The logs as a list: file names, glob patterns (``"runs/*.npz"``, ``"**"`` recursive, each folder once:
    :func:`._log_patterns.matching_names`; sorted) and trajectories, one or a list of them.

    A name that exists is taken as it is, even if it looks like a pattern; a pattern that matches
    nothing is refused.

    Returns
    -------
    list of (str or Trajectory)
    """
    items = list(logs) if isinstance(logs, (list, tuple)) and not _is_state_tuple(logs) else [logs]
    out = []
    for item in items:
        name = os.fsdecode(item) if is_file_name(item) else None      # any path type, as the readers take
        if name is not None and not os.path.exists(name) and glob.has_magic(name):
            found = sorted(matching_names(name))     # each folder once: a link loop walked no more
            if not found:
                raise DataError(f"{printable(name)}: no file matches this pattern")
            out += found
        else:
            out.append(item if name is None else name)
    if not out:
        raise DataError(f"{what}: no log given")
    return out


@dataclass(frozen=True, eq=False)
class LogReduction:
    """One log reduced: its per-fold, per-joint augmented Gram matrices and what preprocessing did.

    Attributes
    ----------
    source : str
    G : ndarray, shape (n_folds, n_dof, R + 1, R + 1)
        [W_j τ_j]ᵀ[W_j τ_j] of each fold's kept samples (one fold unless the consistent fit needs them).
    n_samples : ndarray of int, shape (n_folds,)
    effective : float
        Samples carrying independent noise (low-passed noise is correlated).
    record : dict
        :attr:`Processed.record`.
    caught : tuple of (Warning class, str)
        Warnings raised while it was read and preprocessed (shown by the caller: a worker's are lost).
    """

    source: str
    G: np.ndarray
    n_samples: np.ndarray
    effective: float
    record: dict
    caught: tuple = ()

    def normal(self):
        """The normal equations of all folds (:class:`._least_squares._Normal`)."""
        return _normal(self.G, self.n_samples)


def _normal(G, n_samples):
    R = G.shape[-1] - 1
    total = G.sum(axis=0)
    return _Normal(total[:, :R, :R].copy(), total[:, :R, R].copy(), total[:, R, R].copy(), int(np.sum(n_samples)))


def reduce_log(log, base, preprocessing, folds=0, read_options=None) -> LogReduction:
    """Read, preprocess and reduce one log (what a worker does).

    Parameters
    ----------
    log : str, os.PathLike or Trajectory
    base : BaseParameters
    preprocessing : Preprocessing or None
    folds : int
        Contiguous folds of the samples to keep apart (the consistent fit's hold-out), 0: one.
    read_options : dict, optional
        Keyword arguments of :func:`read_trajectory`.

    Returns
    -------
    LogReduction
    """
    robot = check_base(base).robot        # a public worker: anything else was an AttributeError
    with recorded() as caught:
        warnings.simplefilter("always")
        item = _processed(log, robot, preprocessing, read_options)
        shapes = processed_shapes(robot, item)
        factor = 1 if preprocessing is None else preprocessing.decimate
        with single_threaded():
            normal, effective, factors = accumulate(base, [item], factor, [shapes], folds=folds, check=False)
    if factors is not None:
        G, n_samples = factors.G, factors.n_samples
    else:
        R = base.rank
        G = np.zeros((1, robot.n_dof, R + 1, R + 1))
        G[0, :, :R, :R], G[0, :, :R, R], G[0, :, R, :R], G[0, :, R, R] = normal.G, normal.h, normal.h, normal.tt
        n_samples = np.array([normal.n_samples], dtype=np.int64)
    return LogReduction(item.source, G, n_samples, float(effective), item.record,
                        tuple((w.category, str(w.message)) for w in caught))


def _processed(log, robot, preprocessing, read_options):
    """One log read (a file) and preprocessed, as :meth:`BaseParameterEstimator.fit` does."""
    if isinstance(log, (str, bytes, os.PathLike)):
        # by the robot's joint names when the log names them in another order, as _as_trajectories reads a file name
        item = read_log(log, robot, **{"n_dof": robot.n_dof, **(read_options or {})})
        if item.skipped:
            warn(item.skipped_summary(), DataWarning)
    else:
        item = _as_trajectories(log, "fit")[0]
    check_joints(item, robot)
    if not isinstance(item, Processed):
        item = preprocess(item, preprocessing or Preprocessing.none())
    return item


def scale_log(log, base, preprocessing, folds=None, read_options=None):
    """The first pass when friction velocity scales are ``'auto'``: one log's products for their choice
    (:func:`._friction.scale_statistics`; its warnings are left to the second pass, which reads it again).

    Parameters
    ----------
    log, base, preprocessing, read_options
        As in :func:`reduce_log`.
    folds : int, optional
        Deprecated, no effect (a log's statistics for the scales are never split into folds); given, it warns
        (DeprecationWarning).

    Returns
    -------
    dict
    """
    if folds is not None:
        deprecated_parameter("scale_log", "folds", "a log's statistics for the scales are never split into folds")
    with ignored():                     # its warnings are reduce_log's, said there
        item = _processed(log, check_base(base).robot, preprocessing, read_options)
        with single_threaded():
            return scale_statistics(base, [item])


def identify_logs(robot, logs, *, validate=None, method="ols", preprocessing: Optional[Preprocessing] = Preprocessing(),
                  parameters="pseudo", base=None, leave_one_out=True, workers=1, scheduler=None, progress=None,
                  read_options=None, connect_timeout=2.0, **options) -> Identification:
    """Identify the base parameters from many logs, each reduced on its own (module notes).

    Parameters
    ----------
    robot : Robot, Model or str
    logs : str, os.PathLike, Trajectory, or a list of these
        Files in any format :func:`read_trajectory` reads, glob patterns (:func:`expand_logs`), or
        trajectories.
    validate : same as ``logs``, optional
        Held-out logs: their errors are pooled into ``result.validation``.
    method, preprocessing, parameters, base, **options
        As in :func:`~baseparam.identify`.
    leave_one_out : bool
        Validate each log on the fit of all the others (``result.logs[k].held_out``).
    workers : int
        Processes on this machine (1: in this process); with ``scheduler='local'``, the local Dask
        cluster's workers.
    scheduler : str, optional
        A Dask scheduler's address (``tcp://host:8786``, needs dask.distributed: ``pip install
        'baseparam[dask]'``), or ``'local'`` (any case, spaces around ignored) to start a local cluster of
        ``workers`` processes.
    progress : callable, optional
        Called as ``progress(done, total)`` as logs are reduced.
    read_options : dict, optional
        Keyword arguments of :func:`read_trajectory` for every log (``columns``, ``gains``, …).
    connect_timeout : float
        Seconds a remote ``scheduler`` has to accept the TCP connection (default 2, at most 3600): nothing
        listening at the address is refused then, not after Dask's retries. The handshake's answer is awaited 20 s,
        or as long when this is longer.

    Returns
    -------
    Identification
        With ``logs``: one :class:`LogResult` per log, in the order given.

    Raises
    ------
    SettingsError
        Bad settings; ``scheduler`` without dask.distributed installed.
    DataError
        A log that cannot be read (its own message), too few samples in all.
    """
    unknown = sorted(set(options) - set(FIT_OPTIONS))
    if unknown:
        raise SettingsError(f"identify_logs: unknown option {shown(unknown[0])}")
    workers = check_number(workers, "workers", low=1, high=1024, integer=True, error=SettingsError)
    check_flag(leave_one_out, "leave_one_out")
    check_instance(scheduler, "scheduler", str, "an address or 'local'", allow_none=True, error=SettingsError)
    from ._workers import MAX_CONNECT_TIMEOUT, scheduler_named
    if scheduler is not None:       # before any work: an empty address, 'LOCAL'
        scheduler = scheduler_named(scheduler)
    connect_timeout = check_number(connect_timeout, "connect_timeout", low=0, high=MAX_CONNECT_TIMEOUT, strict=True,
                                   expected=f"seconds > 0, at most {MAX_CONNECT_TIMEOUT}", error=SettingsError)
    _check_connect_timeout_used(connect_timeout, scheduler)
    check_progress(progress)
    check_instance(read_options, "read_options", dict, "a dict of read_trajectory's options", allow_none=True,
                   error=SettingsError)
    settings = plain_texts(dict(method=method, parameters=parameters, **options))
    estimator = BaseParameterEstimator(robot, preprocessing=preprocessing, base=base, **settings)
    estimator._check()
    estimator.base_ = base = estimator._base()
    consistent = method == "consistent"
    train = expand_logs(logs)
    held = [] if validate is None else expand_logs(validate, "validate")
    from ._workers import map_logs
    estimator.friction_scales_ = {}
    if unresolved_joints(base.robot):
        # 'auto' friction velocity scales: chosen from the training logs' products (a first pass), as in memory
        parts = map_logs(train, dict(reduce=scale_log, base=base, preprocessing=preprocessing,
                                     read_options=read_options), [None] * len(train), workers=workers,
                         scheduler=scheduler, connect_timeout=connect_timeout)
        statistics = reduce(add_statistics, parts, None)            # in the order given, as the second pass
        with single_threaded():
            base, estimator.friction_scales_ = choose_scales(base, statistics)
        estimator.base_ = base
    task = dict(reduce=reduce_log, base=base, preprocessing=preprocessing, read_options=read_options)
    reductions = map_logs(train + held, task, [FOLDS if consistent else 0] * len(train) + [0] * len(held),
                          workers=workers, scheduler=scheduler, progress=progress, connect_timeout=connect_timeout)
    for r in reductions:
        for category, message in r.caught:
            warn(message, category)
    reductions, held = reductions[:len(train)], reductions[len(train):]
    G = np.sum([r.G for r in reductions], axis=0)                   # in the order given: results do not
    n_samples = np.sum([r.n_samples for r in reductions], axis=0)   # depend on which worker finished first
    effective = float(np.sum([r.effective for r in reductions]))
    normal = _normal(G, n_samples)
    check_pooled(base, normal, reductions[0].source, 1 if preprocessing is None else preprocessing.decimate)
    factors = _factors(G, n_samples) if consistent else None
    with single_threaded():
        estimator._solve(normal, effective, factors)
    estimator.preprocessing_ = [r.record for r in reductions]
    x = estimator.coef_
    train_metrics = _errors(normal, x, [r.source for r in reductions])
    estimator._finish(train_metrics)
    outs = [None] * len(reductions)
    if leave_one_out and len(reductions) > 1:
        outs = _leave_one_out(estimator, reductions, G, n_samples, effective)
    per_log = tuple(LogResult(r.source, int(r.n_samples.sum()), _errors(r.normal(), x, [r.source]), out, r.record)
                    for r, out in zip(reductions, outs))
    validation = None
    if held:
        Gv = np.sum([r.G for r in held], axis=0)
        held_normal = _normal(Gv, np.sum([r.n_samples for r in held], axis=0))
        refuse_joint_without_torque(held[0].source, held_normal.tt)    # as identify: a NaN validation NRMSE, silently
        validation = _errors(held_normal, x, [r.source for r in held])
    return Identification(estimator=estimator, train=train_metrics, validation=validation, logs=per_log)


def _check_connect_timeout_used(connect_timeout, scheduler):
    """Refuse a ``connect_timeout`` other than the default where no connection is timed (no scheduler, or a local
    cluster): taken and ignored in silence before, as ``design_excitation`` refuses ``pose`` without a payload."""
    from ._workers import CONNECT_TIMEOUT, unconnected
    why = unconnected(scheduler)
    if why and connect_timeout != CONNECT_TIMEOUT:
        raise SettingsError(f"connect_timeout: times the connection to a scheduler's address, and {why}; leave it out")


def _factors(G, n_samples):
    factors = Factors(G.shape[0], G.shape[1], G.shape[2] - 1)
    factors.G[...], factors.n_samples[...] = G, n_samples
    return factors


def _errors(normal, x, sources):
    metrics = Metrics._of_log(normal.residuals(x), normal.tt, normal.n_samples)
    metrics.sources = list(sources)
    return metrics


def _leave_one_out(estimator, reductions, G, n_samples, effective):
    """Per log, the errors on it of the fit on all the other logs (None where they do not determine it)."""
    e, base = estimator, estimator.base_
    consistent = e.method == "consistent"
    chosen = None
    if consistent and e.consistent_.prior_choice is not None:
        chosen = e.consistent_.prior_choice.chosen           # the weight chosen on all logs, kept
    out = []
    for r in reductions:
        rest_G, rest_n = G - r.G, n_samples - r.n_samples
        normal = _normal(rest_G, rest_n)
        if normal.n_samples <= base.rank:
            out.append(None)
            continue
        fit = least_squares(normal, e.weighting if consistent else e.method, max(effective - r.effective, 1.0))
        x = fit.coef
        if consistent:
            try:
                with single_threaded():
                    x = consistent_fit(base, _factors(rest_G, rest_n), fit.weights, prior=e.consistent_.prior,
                                       prior_weight=chosen, mass_bounds=e._mass_bounds, total_mass=e._total_mass,
                                       std=fit.std).x
            except BaseParamError:
                out.append(None)
                continue
        out.append(_errors(r.normal(), x, [r.source]))
    return out


__all__ = ["LogReduction", "expand_logs", "identify_logs", "reduce_log", "scale_log"]
