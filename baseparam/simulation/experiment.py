"""An identification experiment with a known answer: fit a simulated log and score the fit against the truth.

:func:`simulated_identification` identifies the base parameters from the log of a
:class:`~baseparam.simulation.tracking.TrackingRun` with :func:`~baseparam.identify` (its
preprocessing, as on a real log) and compares the estimates with the true base parameters of the
simulated robot, and the model's torques on a held-out run with its true torques. Two runs of the
same robot with the same sensor noise — an excitation design and another motion — tell which motion
identifies the robot better: the proof that a design helps.

The figures of :class:`FitErrors`: ``parameter_error``, ``relative_errors`` and ``torque_error`` (on the
held-out run's true states) as :mod:`baseparam.evaluation` defines them; ``sigma_errors`` (p̂_i − p_i) / σ_i
in the fit's own standard deviations (|·| ≤ 3 for nearly all parameters when the noise is all that
separates the log from the model); ``validation_nrmse_percent`` what :func:`~baseparam.identify` reports
on the noisy held-out log, as one would measure it on the real robot.

A consistent fit (``method='consistent'``) is run without the CAD prior unless told otherwise: in
a simulation whose truth is the description's own inertias, that prior would be the answer.

:func:`compare_motions` runs the whole comparison: each motion (:class:`~baseparam.Reference`)
simulated once, logged through the same sensors — the same noise sequence for motions of the same
length — for several noise draws, identified, and scored (:class:`MotionComparison`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from numbers import Real

import numpy as np

from .._checks import counted, shown
from .._validation import (check_field_kinds, check_field_shapes, check_instance, check_item_count, check_name_fields,
                           check_number, check_parameter_range, float_fields)
from .._values import ComparedByValue
from ..errors import ArgumentError, ArgumentTypeError
from ..evaluation import fit_errors
from ..identification.estimators import METHODS, identify
from ..identification.preprocessing import Preprocessing
from ..dynamics.samples import standard_model
from ..model.value import takes_model
from .noise import SensorNoise
from .tracking import Reference, TrackingRun, track


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class FitErrors(ComparedByValue):
    """A fit of a simulated log against the truth (module docstring: the figures).

    Attributes
    ----------
    method : str
    names : tuple of str
        Base parameters, in the fit's order.
    estimate, std, truth : ndarray, shape (rank,)
        Estimates, their standard deviations (the fit's), the true base parameters (SI).
    condition_number : float
        cond(W_b) of the training samples the fit used (after preprocessing; weighted for ``wls``),
        as :attr:`~baseparam.IdentificationErrors.condition_number` is of the samples its fits use.
    torque_error : float
    validation_nrmse_percent : float
    identification : Identification
        The fit itself.
    """

    method: str
    names: tuple = field(repr=False)
    estimate: np.ndarray = field(repr=False)
    std: np.ndarray = field(repr=False)
    truth: np.ndarray = field(repr=False)
    condition_number: float
    torque_error: float
    validation_nrmse_percent: float
    identification: object = field(repr=False)

    def __post_init__(self):
        # built by hand (the class is exported): an object array reached numpy's isfinite bare, a Fraction the :g
        # fit_errors builds each with numbers and arrays: None reached its repr and sigma_errors as bare TypeErrors
        float_fields(self, ("estimate", "std", "truth"))
        check_name_fields(self, ("names",))
        check_field_shapes(self, {"estimate": ("rank",), "std": ("rank",), "truth": ("rank",), "names": ("rank",)},
                           optional=())
        number = (Real, "a number")
        check_field_kinds(self, {"method": (str, "a str"), "condition_number": number, "torque_error": number,
                                 "validation_nrmse_percent": number})
        for name in ("estimate", "truth"):      # what its figures (fit_errors) take: a NaN or 1e200 reached its repr
            check_parameter_range(f"FitErrors.{name}", getattr(self, name))

    # the figures of baseparam.evaluation.fit_errors (relative_errors: shape (rank,))
    parameter_error = property(lambda self: fit_errors(self.estimate, self.truth).parameter_error)
    relative_errors = property(lambda self: fit_errors(self.estimate, self.truth).relative_errors)
    median_relative_error = property(lambda self: fit_errors(self.estimate, self.truth).median_relative_error)

    @property
    def sigma_errors(self):
        """(p̂_i − p_i) / σ_i, shape (rank,) (0 where σ is infinite: a parameter the data do not determine)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (self.estimate - self.truth) / self.std
        return np.where(np.isfinite(self.std), out, 0.0)

    @property
    def within_3_sigma(self):
        """Share of the base parameters whose error is within 3σ."""
        return float(np.mean(np.abs(self.sigma_errors) <= 3.0))

    def __repr__(self):
        return (f"FitErrors(method={self.method!r}, parameter_error={self.parameter_error:.3g}, "
                f"median_relative_error={self.median_relative_error:.3g}, torque_error={self.torque_error:.3g}, "
                f"within_3_sigma={self.within_3_sigma:.2f}, condition_number={self.condition_number:.4g})")


@takes_model("p", "run", "held_out")
def simulated_identification(model, run, held_out, *, methods=("ols", "consistent"),
                             preprocessing=Preprocessing(), **options):
    """Identify a simulated log and score the fits against the truth (module docstring).

    Parameters
    ----------
    model : Model
        The description identification uses (its friction and rotor-inertia columns, its
        parameterization) and the true standard parameters the runs were simulated with. Deprecated:
        ``robot, p, run, held_out, …, parameters='pseudo'``.
    run, held_out : TrackingRun
        The training run and the held-out run (:func:`~baseparam.simulation.tracking.track`).
    methods : sequence of {'ols', 'wls', 'consistent'}
    preprocessing : Preprocessing or None
        As for :func:`~baseparam.identify` (default: its defaults, as for a real log).
    **options
        Options of the consistent fit (``prior`` defaults to ``'none'`` here).

    Returns
    -------
    dict
        method → :class:`FitErrors`.
    """
    for name, value in (("run", run), ("held_out", held_out)):
        check_instance(value, name, TrackingRun, "a TrackingRun (bp.track)")
    methods = _check_methods(methods, options)
    model = standard_model(model)
    robot, p, parameters = model.robot, model.values(), model.parameters
    truth_states = held_out.truth
    out = {}
    for method in methods:
        extra = dict(options, prior=options.get("prior", "none")) if method == "consistent" else {}
        result = identify(robot, run.log, validate=held_out.log, method=method, preprocessing=preprocessing,
                          parameters=parameters, **extra)
        base = result.base
        truth = base.from_standard(p)
        W = base.regressor(truth_states.q, truth_states.qd, truth_states.qdd)
        error = fit_errors(result.values, truth, W).torque_error
        e = result.estimator
        out[method] = FitErrors(method, tuple(base.names), np.array(result.values), np.array(e.std_), truth,
                                float(e.condition_number_), float(error),
                                float(result.validation.nrmse_pooled_percent), result)
    return out


def _check_methods(methods, options):
    """``methods`` as a list (a generator is read once, here) of known methods, and options only when the
    consistent fit (the one that takes them) runs."""
    try:
        methods = list(methods)     # an empty array has no truth value
    except TypeError:
        raise ArgumentTypeError(f"methods: expected a sequence of method names, got {type(methods).__name__}") \
            from None
    # a method that is no str (an array, a list) is unknown: compared with the names it would be element by element
    unknown = [m for m in methods if not isinstance(m, str) or m not in METHODS]
    if unknown or not methods:
        raise ArgumentError(f"methods: expected some of {', '.join(METHODS)}, got {shown(methods)}")
    # what this module hands identify() itself: given again, Python's bare "got multiple values" TypeError
    taken = sorted(set(options) & {"model", "run", "held_out", "robot", "train", "validate", "method", "parameters"})
    if taken:
        raise ArgumentError(f"{', '.join(taken)}: set by the simulation itself, not an option of the consistent fit")
    if options and "consistent" not in methods:          # identify() would refuse them; do not drop them
        raise ArgumentError(f"{', '.join(sorted(options))}: options of the consistent fit, but methods "
                            f"{shown(methods)} has no 'consistent'")
    return methods


HELD_OUT_SEED = 1000         # the held-out log's noise seed, after the training logs' (seed + draw)
MAX_DRAWS = 1000             # noise draws of compare_motions (each a simulated fit of every reference)
MAX_MOTIONS = 1000           # motions compare_motions compares (each a tracking simulation and a fit per draw)
# The figures of MotionComparison.table, in its order: attributes of FitErrors
COLUMNS = ("condition_number", "parameter_error", "median_relative_error", "within_3_sigma", "torque_error",
           "validation_nrmse_percent")


def _check_comparison(comparison):
    """Refuse a hand-built comparison whose ``runs`` are not TrackingRuns by motion name, or whose ``fits`` are not
    non-empty lists of FitErrors by (motion, method): its table, summary and repr read them (``fits={}`` reached its
    repr as a bare StopIteration). At most :data:`MAX_MOTIONS` motions, each fitted by some of :data:`METHODS` in at
    most :data:`MAX_DRAWS` draws: 100 000 runs reached its repr."""
    check_item_count("MotionComparison.runs", len(comparison.runs), MAX_MOTIONS, "motions")
    check_item_count("MotionComparison.fits", len(comparison.fits), MAX_MOTIONS * len(METHODS),
                     "(motion, method) keys")
    for motion, run in comparison.runs.items():
        check_instance(motion, "MotionComparison.runs: a key", str, "a motion's name (str)")
        check_instance(run, f"MotionComparison.runs[{shown(motion)}]", TrackingRun, "a baseparam.TrackingRun")
    if not comparison.fits:
        raise ArgumentError("MotionComparison.fits: empty; expected lists of FitErrors by (motion, method)")
    for key, fits in comparison.fits.items():
        if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(part, str) for part in key)):
            raise ArgumentError(f"MotionComparison.fits: key {shown(key)}; expected (motion, method), two str")
        if not (isinstance(fits, (list, tuple)) and fits and all(isinstance(fit, FitErrors) for fit in fits)):
            raise ArgumentError(f"MotionComparison.fits[{shown(key)}]: expected a non-empty list of FitErrors, got "
                                f"{shown(fits)}")
        check_item_count(f"MotionComparison.fits[{shown(key)}]", len(fits), MAX_DRAWS, "draws")


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class MotionComparison(ComparedByValue):
    """Identification from several motions of one simulated robot, through the same sensors.

    Attributes
    ----------
    runs : dict
        Motion name → :class:`~baseparam.TrackingRun` (noise-free truth; the log of the first draw).
    held_out : TrackingRun
    fits : dict
        (motion name, method) → tuple of :class:`FitErrors`, one per noise draw.
    """

    runs: dict = field(repr=False)
    held_out: TrackingRun = field(repr=False)
    fits: dict = field(repr=False)

    def __post_init__(self):
        # a public class: one built by hand with a wrong kind of field is refused here, not deep in table()
        check_field_kinds(self, {"runs": (dict, "a dict"), "held_out": (TrackingRun, "a baseparam.TrackingRun"),
                                 "fits": (dict, "a dict")})
        _check_comparison(self)

    def table(self):
        """Rows (motion, method, figures…) with the medians over the noise draws of the :class:`FitErrors`
        attributes :data:`COLUMNS` names: cond(W_b) of the fit's samples, ‖p̂ − p‖/‖p‖, median relative error,
        share within 3σ, held-out torque error against the truth, validation NRMSE (%) against the noisy held-out
        log."""
        rows = []
        for (motion, method), fits in self.fits.items():
            figures = [[getattr(f, name) for name in COLUMNS] for f in fits]
            rows.append((motion, method, *np.median(np.array(figures), axis=0).tolist()))
        return rows

    def summary(self):
        """The table as text (percentages), one line per motion and method."""
        draws = len(next(iter(self.fits.values())))
        width = max(len(m) for m, _ in self.fits)
        lines = [f"{'motion':<{width}}  {'method':<10}  {'cond':>7}  {'|p̂−p|/|p|':>10}  {'median rel.':>11}  "
                 f"{'≤ 3σ':>6}  {'held-out τ':>10}  {'val. NRMSE':>10}"]
        for motion, method, cond, err, rel, within, torque, nrmse in self.table():
            lines.append(f"{motion:<{width}}  {method:<10}  {cond:7.1f}  {100 * err:9.3f}%  {100 * rel:10.2f}%  "
                         f"{100 * within:5.0f}%  {100 * torque:9.4f}%  {nrmse:9.3f}%")
        lines.append(f"(medians over {counted(draws, 'noise draws')}; held-out τ error against the "
                     "true torques, validation NRMSE against the noisy held-out log)")
        return "\n".join(lines)

    def __repr__(self):
        return f"MotionComparison(motions={list(self.runs)!r}, draws={len(next(iter(self.fits.values())))})"

    def _repr_html_(self):
        import html
        return f"<pre>{html.escape(self.summary())}</pre>"


@takes_model("p", "references", "held_out")
def compare_motions(model, references, held_out, *, noise, gains=None, draws=1, methods=("ols", "consistent"),
                    bandwidth=10.0, preprocessing=Preprocessing(), **options):
    """Simulate several motions of a robot with known parameters, identify each log, score the fits.

    Parameters
    ----------
    model : Model
        The simulated robot, which identification also describes (friction, rotor inertia), with its
        true standard parameters (``bp.Model(robot)``). Deprecated: ``robot, p, references, held_out,
        …, parameters='pseudo'``.
    references : dict
        Motion name → :class:`~baseparam.Reference` (e.g. a design and the robot's real training motion), at most
        :data:`MAX_MOTIONS`.
    held_out : Reference
        The motion on which every fit's torques are compared (simulated once).
    noise : SensorNoise
        The sensors; draw d uses seed ``noise.seed + d`` for every motion (the same sequence for
        motions of the same length) and ``noise.seed + 1000 + d`` for the held-out log.
    gains : array_like, shape (n_dof,), optional
        Drive gains (N·m/A) for ``noise.current``.
    draws : int
        Noise draws, 1 to 1000.
    methods, preprocessing, **options
        As in :func:`simulated_identification`.
    bandwidth : float
        The tracking controller's (:func:`~baseparam.track`).

    Returns
    -------
    MotionComparison
    """
    check_instance(noise, "noise", SensorNoise, "a bp.SensorNoise")
    # each draw is a simulated fit of every reference: 10³ of them are hours already, 10³⁰ never end
    draws = check_number(draws, "draws", low=1, high=MAX_DRAWS, integer=True)
    if not isinstance(references, dict) or not references or \
            not all(isinstance(r, Reference) for r in [*references.values(), held_out]) or \
            not all(isinstance(name, str) for name in references):
        raise ArgumentError("references, held_out: expected a dict name (str) → bp.Reference and a bp.Reference")
    check_item_count("references", len(references), MAX_MOTIONS, "motions")      # before hours of simulations
    methods = _check_methods(methods, options)
    runs = {name: track(model, r, noise=noise, gains=gains, bandwidth=bandwidth) for name, r in references.items()}
    held = track(model, held_out, bandwidth=bandwidth)
    fits = {}
    for d in range(int(draws)):
        sensors = replace(noise, seed=noise.seed + d)
        validation = held.with_noise(replace(noise, seed=noise.seed + HELD_OUT_SEED + d), gains)
        for name, run in runs.items():
            logged = run.with_noise(sensors, gains)
            for method, errors in simulated_identification(model, logged, validation, methods=methods,
                                                           preprocessing=preprocessing, **options).items():
                fits.setdefault((name, method), []).append(errors)
    return MotionComparison(runs, held, {key: tuple(value) for key, value in fits.items()})
