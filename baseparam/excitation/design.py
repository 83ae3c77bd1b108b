"""Excitation trajectory design: :func:`design_excitation` → :class:`ExcitationDesign`.

The design is a finite Fourier series per joint (:mod:`baseparam.excitation.fourier`) at rest at
both ends, within position, velocity and acceleration limits that hold at every instant (and
optionally torque limits through the description's true inertias), chosen to minimize the
condition number of the stacked base regressor W_b (or a D-optimality criterion) by a
multi-start, gradient-based search (:mod:`baseparam.excitation._search`).
"""
from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import Optional

import numpy as np

from .._output_names import robot_protected
from .._checks import check_progress, check_written_format, shown
from .._numbers import flat_values, is_whole, zero_d_number
from .._validation import (check_entries, check_field_kinds, check_finite_fields, check_flag, check_flag_fields,
                           check_memory, check_number, check_option, check_positive, check_real_array, check_seed,
                           check_workers,
                           float_fields)
from .._values import ComparedByValue
from .._warnings import warn
from ..errors import ArgumentError, ExcitationWarning, RobotDescriptionError
from ..model.parameters import standard_parameters
from ..model.robot import require_fixed_base, require_robot
from ..model.value import description_of
from ..projection.base_set import BaseParameters, find_base_parameters
from ._defaults import HARMONICS, PERIOD
from ._problem import DesignProblem, true_base_parameters
from ._search import default_starts, search
from . import _payload_feasible        # its ITERATIONS read at the call, as refine reads it
from ._payload_feasible import (REPEAT as WIDE_REPEAT, START_HARMONICS as WIDE_START_HARMONICS, check_wide, refine,
                                stretched_start, wide_criterion)
from .payload import PAYLOAD_JOINTS, PayloadColumns, payload_columns
from .criteria import CRITERIA, PAYLOAD_ONLY, condition_number, criterion_function, inertia_rows
from .files import write_json, write_trajectory_csv
from .fourier import FourierSeries, Samples, sample_count
from .limits import MotionLimits, motion_limits
from .report import design_report, summary_text

PARAMETERS = ("khalil", "pseudo")
MAX_HARMONICS = 100
MIN_SAMPLES_PER_CYCLE = 8          # of the highest harmonic, at the output rate
MAX_SAMPLES = 1_000_000            # rows of the output trajectory
# a longer budget is no budget: 1e308 s overflowed the progress count (tenths of a second) into an internal error
MAX_TIME_BUDGET = 1e9
DENSE = 10                         # torque is checked at this many times the output rate
PAYLOAD_DESIGNS = ("standard", "wide")   # payload_design: today's search, or the wider band (_payload_feasible)
WIDE_SEARCH_SHARE = 0.3            # of a time budget, what the wide design's start search takes
POORLY_EXCITED = 1e8               # cond(W_b) beyond which a design warns
SEARCH_COPIES = 6                  # a search process's memory, in sizes of the constraints' Jacobian


@dataclass(frozen=True)
class SearchSummary:
    """How the search ran (see :mod:`baseparam.excitation._search`, "Determinism").

    Attributes
    ----------
    seed, starts : int
        The seed and the number of starts asked for.
    counted : int
        k: the design is the best of starts 0 … k−1 (k < starts when the time budget ended the run).
    best_start : int
    workers : int
    seconds : float
    time_budget : float or None
    values : tuple of float
        The criterion each finished start reached (on the design grid), by start index.
    evaluations, gradients : int
        Evaluations of the criterion (each a regressor over the criterion's grid) and of its
        gradient, over every start that returned (how well the budget was used).
    """

    seed: int
    starts: int
    counted: int
    best_start: int
    workers: int
    seconds: float
    time_budget: Optional[float]
    values: tuple = field(repr=False)
    evaluations: int = 0
    gradients: int = 0

    def __post_init__(self):
        # built by hand (the class is exported): unchecked, ``deterministic`` would compare a text with 0 (a bare
        # TypeError), and a NaN count or time would reach the design's JSON
        whole = (Integral, "a whole number")
        check_field_kinds(self, {**dict.fromkeys(("seed", "starts", "counted", "best_start", "workers", "evaluations",
                                                  "gradients"), whole),
                                 "seconds": (Real, "a number of seconds"), "values": ((tuple, list), "a tuple of "
                                                                                                     "numbers"),
                                 "time_budget": ((Real, None), "a number of seconds or None")})
        check_finite_fields(self, ("seconds",) + (() if self.time_budget is None else ("time_budget",)))

    @property
    def deterministic(self):
        """Whether the result is a function of the settings alone (False only if start 0 was cut short)."""
        return self.counted > 0


_CONDITION_ENTRIES = {**dict.fromkeys(("with_drives", "rigid_body", "column_normalised"), (Real, "a number")),
                      **dict.fromkeys(("with_drives_columns", "rigid_body_columns"),
                                      ((list, tuple), "a list of names"))}
_REFINEMENT_ENTRIES = {"start_value": (Real, "a number"), "value": (Real, "a number"),
                       "iterations": (Integral, "a whole number"), "complete": ((bool, np.bool_), "True or False")}


def _check_design_dicts(design):
    """Refuse a hand-built design's ``condition_numbers``, ``bounds`` or ``refinement`` without the entries its report
    and summary read (:func:`~baseparam._validation.check_entries`); each bound (n_dof,) finite numbers."""
    numbers = design.condition_numbers
    if design.parameters not in numbers:
        raise ArgumentError(f"ExcitationDesign.condition_numbers: no entry {design.parameters!r} (the base set's "
                            f"parameters)")
    for parameters, entry in numbers.items():
        check_entries(entry, f"ExcitationDesign.condition_numbers[{parameters!r}]", _CONDITION_ENTRIES)
    n_dof = design.series.n_dof
    check_entries(design.bounds, "ExcitationDesign.bounds",
                  dict.fromkeys(("q_min", "q_max", "qd_max", "qdd_max"), (np.ndarray, "an array of shape (n_dof,)")))
    for key, value in design.bounds.items():
        check_real_array(f"ExcitationDesign.bounds[{key!r}]", value, 1, shape=lambda shape, key=key: _one_per_joint(
            f"ExcitationDesign.bounds[{key!r}]", shape, n_dof))
    if design.refinement is not None:
        check_entries(design.refinement, "ExcitationDesign.refinement", _REFINEMENT_ENTRIES)


def _one_per_joint(name, shape, n_dof):
    """Refuse a shape other than (n_dof,)."""
    if shape != (n_dof,):
        raise ArgumentError(f"{name}: expected shape ({n_dof},) (the series' joints), got {shape}")


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class ExcitationDesign(ComparedByValue):
    """An excitation trajectory and how well it conditions the identification.

    Attributes
    ----------
    series : FourierSeries
        The trajectory (coefficients; :meth:`FourierSeries.evaluate` at any time).
    samples : Samples
        The trajectory at ``rate`` from t = 0 to t = period inclusive (what :meth:`to_csv` writes).
    base : BaseParameters
        The base set whose columns the criterion and ``condition_number`` use (friction and
        rotor-inertia columns of the description included).
    criterion : {'cond', 'dopt', 'inertia'}
    rate : float
        Output rate (Hz).
    condition_number : float
        cond(W_b) over ``samples``: 2-norm, unscaled, the columns of ``base`` in its parameterization.
    condition_numbers : dict
        cond over ``samples`` for both parameterizations, with the description's drive columns
        (friction, rotor inertia) and for the rigid body alone (the base set of the same robot
        without them: what pinocchio's joint-torque regressor spans), and column-normalised.
    criterion_value : float
        The criterion over ``samples`` (log cond, or −(1/r)·log det(W_bᵀW_b / rows), or for 'inertia'
        log(rows · Σ of the inertia's variances)).
    limits : MotionLimits
    bounds : dict of ndarray (n_dof,)
        Certified extremes over the whole period: q_min, q_max, |q̇| max, |q̈| max.
    torque_max : ndarray (n_dof,) or None
        max |τ| at 10× the output rate, with the description's true inertias (None without them).
    torque_limited : bool
        Whether the search kept |τ| within the limits' torques (``torque_limits=True``).
    search : SearchSummary
    payload : PayloadColumns or None
        For a payload design (``payload=True``): the last link's columns, which combinations of them
        the motion identifies, the moving joints and the held pose; ``condition_number`` is then
        cond over the identifiable payload columns (:mod:`baseparam.excitation.payload`).
    noise : ndarray, shape (n_dof,), or None
        The per-joint torque noise (N·m) the 'inertia' criterion weighted the rows by (None: equal weights).
    refinement : dict or None
        For ``payload_design='wide'``: the L-BFGS refinement's criterion ('centre') at its start and end, its
        iterations and whether it ran to the end (:meth:`WideOutcome.to_dict
        <baseparam.excitation._payload_feasible.WideOutcome.to_dict>`); None otherwise.
    """

    series: FourierSeries
    samples: Samples = field(repr=False)
    base: object = field(repr=False)
    criterion: str
    rate: float
    condition_number: float
    condition_numbers: dict = field(repr=False)
    criterion_value: float
    limits: MotionLimits = field(repr=False)
    bounds: dict = field(repr=False)
    torque_max: Optional[np.ndarray] = field(repr=False)
    torque_limited: bool
    search: SearchSummary = field(repr=False)
    payload: Optional[object] = field(default=None, repr=False)
    noise: Optional[np.ndarray] = field(default=None, repr=False)
    refinement: Optional[dict] = field(default=None, repr=False)

    def __post_init__(self):
        # a public class: one built by hand with a wrong kind of field is refused here, not deep in its methods
        check_field_kinds(self, {"series": (FourierSeries, "a baseparam.FourierSeries"),
                                 "samples": (Samples, "the design's Samples"),
                                 "base": (BaseParameters, "the BaseParameters of find_base_parameters(robot)"),
                                 "condition_numbers": (dict, "a dict"), "limits": (MotionLimits, "a MotionLimits"),
                                 "bounds": (dict, "a dict"), "search": (SearchSummary, "a SearchSummary"),
                                 "rate": (Real, "a number"), "condition_number": (Real, "a number"),
                                 "criterion_value": (Real, "a number"),
                                 "payload": ((PayloadColumns, None), "the design's PayloadColumns or None"),
                                 # its report reads the keys: a text there would fail as '**' of a str in to_dict
                                 "refinement": ((dict, None), "the wide design's refinement dict or None")})
        # what its report and summary read of the rest: a wrong criterion, a text among the torques, a dict without
        # the keys read would reach to_dict, summary and _repr_html_ as bare KeyErrors and format errors
        object.__setattr__(self, "criterion", check_option(self.criterion, "ExcitationDesign.criterion", CRITERIA))
        check_flag_fields(self, ("torque_limited",))
        check_positive(self.rate, "ExcitationDesign.rate")              # NaN figures in its report and samples
        check_finite_fields(self, ("criterion_value",))
        if math.isnan(self.condition_number):                           # inf: a motion that misses a column
            raise ArgumentError("ExcitationDesign.condition_number: NaN; expected a number ≥ 1 (inf when singular)")
        float_fields(self, ("torque_max", "noise"))
        for name in ("torque_max", "noise"):
            if getattr(self, name) is not None:
                _one_per_joint(f"ExcitationDesign.{name}", getattr(self, name).shape, self.series.n_dof)
                check_finite_fields(self, (name,))
        _check_design_dicts(self)

    robot = property(lambda self: self.base.robot)
    parameters = property(lambda self: self.base.parameters)
    period = property(lambda self: self.series.period)
    harmonics = property(lambda self: self.series.harmonics)

    def to_dict(self):
        """The ``excite --json`` document (docs/formats.md, "Excitation design")."""
        return design_report(self)

    def summary(self):
        """A few lines: cond, limits used, how the search went."""
        return summary_text(self)

    def to_csv(self, path):
        """Write the plain trajectory CSV (``t, q1..qN, qd1..qN, qdd1..qN``, SI), atomically (a name that says another
        format refused: :func:`~baseparam._checks.check_written_format`)."""
        check_written_format(path, "CSV", ".csv")
        return self._written(path, lambda: write_trajectory_csv(path, self.samples))

    def to_json(self, path):
        """Write :meth:`to_dict` as JSON, atomically (a name that says another format, ``x.csv``, refused)."""
        check_written_format(path, "JSON", ".json")
        return self._written(path, lambda: write_json(path, self.to_dict()))

    def plot(self, path=None):
        """The joint trajectories against their limits (a figure; written atomically to ``path`` if given)."""
        from .plots import excitation_figure, save_excitation_plot
        if path is None:
            return excitation_figure(self)
        return self._written(path, lambda: save_excitation_plot(self, path))

    def _written(self, path, write):
        """``path``, once ``write()`` has written it: never over the robot's description."""
        with robot_protected(self.robot):
            write()
        return path

    def __repr__(self):
        return (f"ExcitationDesign(robot={self.robot.name!r}, harmonics={self.harmonics}, period={self.period:g}, "
                f"criterion={self.criterion!r}, condition_number={self.condition_number:.4g}, "
                f"parameters={self.parameters!r}, rank={self.base.rank})")

    def _repr_html_(self):
        return f"<pre>{html.escape(self.summary())}</pre>"


def design_excitation(robot, *, period=PERIOD, harmonics=HARMONICS, rate=100.0, limits=None, criterion="cond",
                      parameters="pseudo", torque_limits=False, starts=None, workers=1, time_budget=None,
                      seed=0, progress=None, payload=False, payload_joints=PAYLOAD_JOINTS, pose=None,
                      noise=None, payload_design="standard") -> ExcitationDesign:
    """Design an excitation trajectory for identifying a robot's base parameters.

    Parameters
    ----------
    robot : Robot or Model
        Its friction and rotor-inertia declarations are part of the base set the design conditions.
        A :class:`~baseparam.Model` gives its robot and parameterization (``parameters`` then left at
        its default or equal); predicted torques use the description's true values.
    period : float, default 14.0
        T in s: the trajectory repeats with this period and is at rest at t = 0 and t = T.
    harmonics : int, default 7
        K ≥ 2, harmonics of 1/T per joint (at rest at both ends, one harmonic could not move). The
        defaults' highest harmonic is 0.5 Hz (:mod:`baseparam.excitation._defaults`: why 7 of 14 s).
    rate : float
        Output (controller) rate in Hz; ``period * rate`` must be a whole number, with at least 8
        samples per cycle of the highest harmonic.
    limits : str, os.PathLike, dict or MotionLimits, optional
        Limits file (YAML ``joints: [{q: [lo, hi], qd: v, qdd: a, tau: t}, ...]``, or a URDF whose
        ``<limit>`` elements apply), overriding the description's ``Joint.limits`` field by field.
        Every joint needs a velocity limit, every prismatic joint a position range.
    criterion : {'cond', 'dopt', 'inertia'}
        Minimize cond(W_b), or −log det(W_bᵀW_b) (D-optimality), or — payload designs only — the sum of
        the variances of the payload's inertia (A-optimality over its six inertia elements about the
        link frame's origin, mass and centre of mass estimated too; rows weighted by ``noise``):
        the payload's inertia target (:func:`~baseparam.excitation.criteria.inertia_variance`).
    parameters : {'pseudo', 'khalil'}
        Parameterization of the base columns the criterion is measured in: 'pseudo' (the default, as
        everywhere in the package), or 'khalil' (inertia about the link frame origin, first moments and
        mass — pinocchio's regressor columns, so cond can be recomputed with pinocchio). The design
        reports cond in both.
    torque_limits : bool
        Also keep |τ| within the torque limits (URDF ``effort`` or ``tau:``) at the design grid,
        torques predicted with the description's true inertias (and friction values).
    starts : int, optional
        Number of starts (default: four per worker, at least 8; with a time budget, as many as fit).
    workers : int, default 1
        Worker processes running starts in parallel: 1 (the default) runs them one after the other in
        this process (on one BLAS thread, as a worker) — in one worker process with a ``time_budget`` when one
        SLSQP step may take over 0.3 s (about 24 harmonics of a 7-joint arm and up), which the search gives up
        within the budget (keeping start 0's best point so far), where this process would finish the step; -1
        starts one per usable core (as
        scikit-learn's ``n_jobs``). ``None`` means 1.
        The design does not depend on it (see :class:`SearchSummary`).
    time_budget : float, optional
        Seconds, at most 10⁹ (31 years: leave it out for none); the search stops there
        and keeps the starts 0 … k−1 that finished.
    seed : int
        Same seed and settings → same design (see :class:`SearchSummary`).
    progress : callable, optional
        Called as ``progress(done, total)`` as the search advances: optimizer iterations, or with a
        time budget tenths of a second.
    payload : bool
        Design for identifying a payload on the last link instead (the robot model known): only the
        last ``payload_joints`` joints move, the others are held at ``pose``, and the criterion is
        over the last link's columns of the standard regressor (the payload's 10 parameters),
        restricted to the combinations such a motion identifies (all 10 behind a 3-axis wrist;
        :mod:`baseparam.excitation.payload`). Friction and rotor-inertia columns do not enter.
    payload_joints : int, default 3
        How many of the last joints move in a payload design.
    pose : array_like, shape (n_dof,), optional
        Positions (rad or m) of the held joints in a payload design (the moving joints' entries are
        ignored); default: a quarter of each half range above its middle
        (:func:`~baseparam.excitation.payload.held_pose`).
    noise : array_like, shape (n_dof,), optional
        Each joint's torque noise σ_j (N·m, 1e-9 to 1e9) for the 'inertia' criterion: joint j's rows weighted by
        1/σ_j, so that the variances are those of a least-squares fit with that noise. Default: equal. With
        ``payload_design='wide'`` it weights the rows of the wide design's criterion too (any ``criterion``).
    payload_design : {'standard', 'wide'}
        With ``payload=True``: 'standard' (the default) searches the series of ``period`` and ``harmonics`` for
        ``criterion``; 'wide' (:mod:`baseparam.excitation._payload_feasible`) searches that way a start of period
        ``period``/4 with 4 harmonics (a share of ``time_budget``), plays it 4 times as a series of ``period`` and
        ``harmonics`` (≥ 16; ``bench/payload_wide_fits.py``: 20 s × 48) and refines it by L-BFGS for the largest
        variance of the payload's inertia about its centre of mass over eight hypothetical centres, within the limits
        by construction (all 10 payload parameters must be identifiable). Slower (about 90 s of CPU for the LWR4+
        at 20 s × 48, bounded by ``time_budget``); the design's ``refinement`` says what it did.

    Returns
    -------
    ExcitationDesign

    Raises
    ------
    ArgumentError
        Bad settings or limits (one line naming the parameter, file, joint or field).
    """
    begin = time.time()
    robot, parameters = description_of(robot, parameters, "pseudo")
    # the design's samples are joint coordinates: a floating base's pose and twist are not among them (unchecked
    # here, it would be refused later as 'q: expected shape (n_samples, 13) … got (1, 6)', naming no floating base)
    require_fixed_base(require_robot(robot), "design_excitation")
    period, harmonics, rate = _settings(period, harmonics, rate)
    check_flag(torque_limits, "torque_limits")
    check_flag(payload, "payload")
    check_option(payload_design, "payload_design", PAYLOAD_DESIGNS)
    wide = payload_design == "wide"
    if wide and not payload:
        raise ArgumentError("payload_design: 'wide' goes with payload=True (a payload design)")
    if torque_limits and payload:     # the search's regressor holds only the last link's columns: no whole torque
        raise ArgumentError("torque_limits: not available with payload=True: a payload design evaluates "
                            "only the last link's columns, not the joints' torques; design without it")
    for name, unused in (("pose", pose is not None),
                         ("payload_joints", not is_whole(zero_d_number(payload_joints))
                          or payload_joints != PAYLOAD_JOINTS)):
        if unused and not payload:       # else taken and ignored: a design of every joint, no word
            raise ArgumentError(f"{name}: goes with payload=True (a payload design); leave it out")
    check_option(criterion, "criterion", CRITERIA)
    if criterion in PAYLOAD_ONLY and not payload:
        raise ArgumentError(f"criterion: {shown(criterion)} is defined over a payload's columns: use it with "
                            "payload=True")
    weights = _noise_weights(noise, robot.n_dof)
    if weights is not None and not payload:     # both its uses need a payload: naming only them sent users to a
        raise ArgumentError("noise: weights the rows of a payload design only (payload=True, with "      # 2nd refusal
                            "criterion='inertia' or payload_design='wide'); leave it out")
    if weights is not None and criterion not in PAYLOAD_ONLY and not wide:
        raise ArgumentError(f"noise: only criterion='inertia' weights rows by it (criterion={shown(criterion)}), or "
                            "payload_design='wide'")
    check_option(parameters, "parameters", PARAMETERS)
    workers = check_workers(workers)        # None → 1, -1 → one per usable core
    starts = default_starts(workers, time_budget) if starts is None else \
        check_number(starts, "starts", low=1, high=100_000, integer=True)
    seed = check_seed(seed)
    check_progress(progress)
    if time_budget is not None:
        # inf (the budget of no limit, as 1e308 s) said as a budget beyond the largest, not as "expected > 0, got inf"
        endless = isinstance(time_budget, Real) and not isinstance(time_budget, bool) and time_budget == math.inf
        if not endless:
            time_budget = check_number(time_budget, "time_budget", low=0, strict=True,
                                       expected="a number of seconds > 0")
        if endless or time_budget > MAX_TIME_BUDGET:
            raise ArgumentError(f"time_budget: {time_budget:g} s is beyond {MAX_TIME_BUDGET:g} s (31 years): leave it "
                                "out for no budget")
    lim = motion_limits(robot, limits)
    _check_limits(robot, lim)
    base = find_base_parameters(robot, parameters)
    bases = report_bases(base)
    truth = true_base_parameters(base)
    if truth is not None:                     # compiled now, so that the report after the search only evaluates
        base._inverse_dynamics(truth, *np.zeros((3, 1, robot.n_dof)))
    if torque_limits:
        if truth is None:
            missing = "?"
            try:                  # what the description lacks for true_base_parameters (its error message)
                standard_parameters(robot, parameters)
            except RobotDescriptionError as exc:
                missing = str(exc)
            what = ("the description gives no true inertias (inertia: per joint, or a URDF's <inertial>)"
                    if ".inertia:" in missing or "base_inertia" in missing else
                    "the description declares drive terms (friction, rotor inertia) without their values")
            raise ArgumentError(f"torque_limits: {robot.name}: {what}, needed to predict torques: {missing}")
        if not np.isfinite(lim.torque).any():
            raise ArgumentError(f"torque_limits: no joint has a torque limit ({lim.source}: tau, or a URDF's effort)")
    columns, held, load = base.pivots, None, None
    if payload:
        load = payload_columns(robot, parameters, lim, payload_joints, pose)
        columns = load.pivots
        held = load.pose.copy()
        held[[k - 1 for k in load.moving]] = np.nan
        if wide:
            check_wide(load, harmonics)
    options = {}
    if criterion in PAYLOAD_ONLY:
        options = {"inertia": inertia_rows(robot, parameters, load.pivots, load.Y), "weights": weights}
        if not len(options["inertia"]):
            raise ArgumentError(f"criterion: 'inertia' needs an element of the payload's inertia identifiable; with "
                                f"joints {', '.join(map(str, load.moving))} moving none is (identifiable: "
                                f"{'; '.join(load.combinations)})")
    searched = (period / WIDE_REPEAT, WIDE_START_HARMONICS) if wide else (period, harmonics)
    problem = DesignProblem(robot, columns, parameters, *searched, lim, criterion,
                            p_base=truth if torque_limits else None, held=held, criterion_options=options)
    _check_memory(problem, min(workers, starts))
    remaining = None
    if time_budget is not None:      # the whole call stays within the budget: keep time for the report
        remaining = max(0.0, time_budget - min(3.0, 0.08 * time_budget) - (time.time() - begin))
    share = remaining if remaining is None or not wide else WIDE_SEARCH_SHARE * remaining
    outcome = search(problem, starts=starts, seed=seed, workers=workers, time_budget=share, progress=progress)
    if outcome.timing_dependent:
        warn(_first_start_cut(robot.name, time_budget, share, wide), ExcitationWarning)
    series = _within_limits(problem.series(outcome.best.x), lim)
    refined = None
    if wide:
        deadline = None if remaining is None else time.time() + remaining - outcome.seconds
        series, refined = _widened(series, (robot, columns, parameters, period, harmonics, lim, criterion, held,
                                            options), weights, deadline, progress)
        if not refined.complete:
            warn(f"{robot.name}: the time budget ({time_budget:g} s) ended the wide design's L-BFGS after "
                 f"{refined.iterations} of its {_payload_feasible.ITERATIONS} iterations: the design depends on "
                 "timing; give a larger time_budget, or none", ExcitationWarning)
    summary = SearchSummary(seed, starts, outcome.counted, outcome.best.index, workers, outcome.seconds, time_budget,
                            tuple(float(r.value) for r in outcome.results if r.complete),
                            sum(r.evaluations for r in outcome.results), sum(r.gradients for r in outcome.results))
    design = assess(series, base, criterion, rate, lim, summary, torque_limits, bases, load, options,
                    None if weights is None else np.asarray(noise, dtype=float).ravel().copy())
    return design if refined is None else replace(design, refinement=refined.to_dict())


def _first_start_cut(name, time_budget, share, wide):
    """The warning for a search whose budget (``share`` s of ``time_budget``) ended before its first start finished.
    The wide design's start search has a share of the budget only: "the time budget ended before the first start
    finished" read as the whole budget spent, with the refinement still to come."""
    if not wide:
        return (f"{name}: the time budget ({time_budget:g} s) ended before the first start finished: the design is "
                "that start's best point so far and depends on timing; give more time")
    return (f"{name}: the wide design's start search, given {WIDE_SEARCH_SHARE:.0%} of the time budget ({share:.3g} "
            f"of {time_budget:g} s), ended before its first start finished: the refinement starts from that start's "
            "best point so far, so the design depends on timing; give a larger time_budget, or none")


def _widened(start, settings, weights, deadline, progress):
    """The wide payload design from the standard design ``start`` (period T/4): played 4 times as the series of
    ``settings`` (DesignProblem's robot, columns, parameters, period, harmonics, limits, criterion, held, options),
    refined by L-BFGS for the inertia about the centre (:mod:`._payload_feasible`) until ``deadline`` (time.time()).

    Returns
    -------
    series : FourierSeries
        Certified within the limits.
    outcome : WideOutcome
    """
    robot, columns, parameters, period, harmonics, lim, criterion, held, options = settings
    problem = DesignProblem(robot, columns, parameters, period, harmonics, lim, criterion, held=held,
                            criterion_options=options)
    problem.use_criterion(wide_criterion(parameters, weights))
    # the refinement's clock is time.time's, as the budget's: a deadline passed is one passed for the whole call
    outcome = refine(problem, stretched_start(start, problem), deadline=deadline, clock=time.time, progress=progress)
    return _within_limits(problem.series(outcome.x), lim), outcome


def assess(series, base, criterion, rate, limits, search_summary, torque_limited=False, bases=None, payload=None,
           criterion_options=None, noise=None):
    """The :class:`ExcitationDesign` of a series: samples, condition numbers, certified bounds, torques.

    ``bases`` are :func:`report_bases` of ``base`` when already at hand; ``payload`` the
    :class:`~baseparam.excitation.payload.PayloadColumns` of a payload design; ``criterion_options`` the
    keyword arguments of :func:`~baseparam.excitation.criteria.criterion_function`; ``noise`` the per-joint
    torque noise its weights came from (recorded in the design).
    """
    robot = base.robot
    samples = series.sample(rate)
    A = base.regressor(samples.q, samples.qd, samples.qdd).reshape(-1, base.rank) if payload is None else \
        payload_regressor(robot, base.parameters, payload.pivots, samples)
    numbers = condition_numbers(samples, bases or report_bases(base))
    value = criterion_function(criterion, **(criterion_options or {}))(A)[0]
    truth = true_base_parameters(base)
    torque_max = None
    if truth is not None:
        dense = series.sample(rate * DENSE)
        torque_max = np.abs(base._inverse_dynamics(truth, dense.q, dense.qd, dense.qdd)).max(axis=0)
    cond = numbers[base.parameters]["with_drives"] if payload is None else condition_number(A)
    design = ExcitationDesign(series, samples, base, criterion, float(rate), cond,
                              numbers, float(value), limits, series.certified_bounds(), torque_max,
                              bool(torque_limited), search_summary, payload, noise)
    if not cond < POORLY_EXCITED:
        warn(f"{robot.name}: cond(W_b) = {cond:.3g}: the trajectory hardly excites some base parameters; give more "
             "harmonics, a longer period or wider limits" if payload is None else
             f"{robot.name}: cond over the payload's columns = {cond:.3g}: the motion hardly excites its parameters",
             ExcitationWarning)
    if torque_limited and torque_max is not None and (torque_max > limits.torque).any():
        over = ", ".join(f"joint {j + 1} {torque_max[j]:.4g} > {limits.torque[j]:.4g}"
                         for j in np.flatnonzero(torque_max > limits.torque))
        warn(f"{robot.name}: the torque limits are not met ({over}): no start found a trajectory within "
             "them, or they are exceeded between the design's grid samples; give more starts or time, a longer "
             "period or fewer harmonics", ExcitationWarning)
    return design


NOISE_RANGE = (1e-9, 1e9)           # N·m: the torque noise σ the 'inertia' criterion takes


def _noise_weights(noise, n):
    """1/σ_j of ``noise`` (n positive finite values), or None."""
    if noise is None:
        return None
    try:
        values = flat_values(noise, n)
    except (TypeError, ValueError):
        raise ArgumentError(f"noise: expected {n} torque standard deviations (N·m, > 0), got {shown(noise)}") from None
    if values is None or not (np.isfinite(values).all() and (values > 0).all()):
        raise ArgumentError(f"noise: expected {n} finite torque standard deviations > 0 (N·m), got "
                            + (shown(noise) if values is None else np.array2string(values, threshold=10)))
    # the rows are weighted by 1/σ², which overflowed from σ = 1e-155 on (numpy's raw RuntimeWarnings, a NaN
    # criterion); no torque sensor's noise is outside this range
    if not ((values >= NOISE_RANGE[0]) & (values <= NOISE_RANGE[1])).all():
        raise ArgumentError(f"noise: expected torque standard deviations between {NOISE_RANGE[0]:g} and "
                            f"{NOISE_RANGE[1]:g} N·m, got {np.array2string(values, threshold=10)}")
    return 1.0 / values


def report_bases(base):
    """The base sets the report measures cond in: both parameterizations, with and without the drive
    columns, as {parameters: {"with_drives": BaseParameters, "rigid_body": BaseParameters}}; their
    regressors compiled (so that the report, once the search ends, only evaluates)."""
    robot = base.robot
    rigid = rigid_body(robot)
    out = {}
    for parameters in PARAMETERS:
        with_drives = base if parameters == base.parameters else find_base_parameters(robot, parameters)
        bare = with_drives if rigid is robot else find_base_parameters(rigid, parameters)
        out[parameters] = {"with_drives": with_drives, "rigid_body": bare}
        for b in (with_drives, bare):
            b.regressor(*np.zeros((3, 1, robot.n_dof)))
    return out


def payload_regressor(robot, parameters, columns, samples):
    """The stacked payload columns over samples, shape (samples × joints, len(columns))."""
    from ..dynamics.regressor_adjoint import regressor_function
    W = regressor_function(robot, parameters, tuple(columns))(samples.q, samples.qd, samples.qdd)
    return W.reshape(-1, len(columns))


def condition_numbers(samples, bases):
    """cond(W_b) over samples for each of :func:`report_bases`, and column-normalised with the drives."""
    out = {}
    for parameters, sets in bases.items():
        entry = {}
        for key, b in sets.items():
            A = b.regressor(samples.q, samples.qd, samples.qdd).reshape(-1, b.rank)
            entry[key] = condition_number(A)
            entry[key + "_columns"] = list(b.names)
            if key == "with_drives":
                norms = np.linalg.norm(A, axis=0)
                entry["column_normalised"] = condition_number(A / np.where(norms > 0, norms, 1.0))
        out[parameters] = entry
    return out


def rigid_body(robot):
    """The robot without friction and rotor-inertia columns (itself when it declares none)."""
    if not any(j.friction_terms or j.has_rotor_inertia for j in robot.joints):
        return robot
    # the friction model goes with the friction it shapes (a Stribeck term without Coulomb friction is refused)
    joints = tuple(replace(j, friction=(False, False, False), rotor_inertia=False, friction_model=None)
                   for j in robot.joints)
    return replace(robot, joints=joints, source=None)


def _check_memory(problem, processes):
    """Refuse a design whose search would not fit in memory (ResourceLimitError, one line): each process
    holds the constraints' Jacobian and SLSQP's copy and workspace, about :data:`SEARCH_COPIES` times its size."""
    needed = SEARCH_COPIES * 8 * problem.n_constraints * problem.size * processes
    check_memory(needed, lambda need, allowed: f"the search for {problem.harmonics} harmonics of {problem.n} joints "
                 f"would need about {need} of memory ({processes} process{'es' if processes > 1 else ''}), more than "
                 f"the {allowed} available; give fewer harmonics or workers")


def _within_limits(series, limits):
    """The series, its oscillation scaled down just enough if a certified bound exceeds a limit.

    The optimizer keeps the limits at the grid with the certified margin, so this only trims the
    solver's tolerance (a factor within 1e-6 of 1) — but it makes the guarantee unconditional.
    """
    for _ in range(50):
        b = series.certified_bounds()
        ratios = [1.0]
        with np.errstate(divide="ignore", invalid="ignore"):
            for reached, limit in ((b["qd_max"], limits.velocity), (b["qdd_max"], limits.acceleration)):
                ratios.append(np.nanmin(np.where(reached > limit, limit / reached, 1.0)))
            over = (b["q_max"] > limits.upper) | (b["q_min"] < limits.lower)
            room = np.minimum((limits.upper - series.q0) / (b["q_max"] - series.q0),
                              (series.q0 - limits.lower) / (series.q0 - b["q_min"]))
            ratios.append(np.nanmin(np.where(over, room, 1.0)))
        scale = min(ratios)
        if scale >= 1.0:
            return series
        series = FourierSeries(series.period, series.q0, series.a * scale * (1 - 1e-9), series.b * scale * (1 - 1e-9))
    raise ArgumentError("limits: cannot keep the trajectory within them (is q0 outside the position range?)")


def _settings(period, harmonics, rate):
    # as floats from here on (a Fraction is a number, but not one the messages' :g can format)
    period = check_number(period, "period", low=0, strict=True, expected="a duration > 0 s")
    # one harmonic at rest at both ends is no motion
    harmonics = check_number(harmonics, "harmonics", low=2, high=MAX_HARMONICS, integer=True)
    rate = check_number(rate, "rate", low=0, strict=True, expected="a frequency > 0 Hz")
    count = period * rate
    if not count + 1 <= MAX_SAMPLES:         # before rounding: 1e308 s × 100 Hz is inf, which round() refuses
        raise ArgumentError(f"rate: period × rate = {period:g} s × {rate:g} Hz = {count:.6g} samples per period; at "
                            f"most {MAX_SAMPLES} are written")
    sample_count(period, rate)
    per_cycle = rate * period / harmonics
    if per_cycle < MIN_SAMPLES_PER_CYCLE:
        lowest = MIN_SAMPLES_PER_CYCLE * harmonics / period
        raise ArgumentError(f"rate: {rate:g} Hz is too low for {harmonics} harmonics of a {period:g} s period: "
                            f"{per_cycle:.3g} samples per cycle of the highest harmonic, at least "
                            f"{MIN_SAMPLES_PER_CYCLE} needed (rate ≥ {lowest:g} Hz)")
    return float(period), harmonics, float(rate)


def _check_limits(robot, lim):
    where = robot.name if lim.source == "description" else lim.source
    for k, joint in enumerate(robot.joints):
        if not math.isfinite(lim.velocity[k]):
            said = joint.limits.velocity if joint.limits is not None else None
            what = ("velocity limit 0 (<limit velocity=\"0\">, a URDF's default, is taken as none set)"
                    if said == 0 and lim.source == "description" else "no velocity limit")
            raise ArgumentError(f"{where}: joint {k + 1}: {what}; give "
                                "qd in a limits file (joints: [{qd: ...}, ...]) or <limit velocity> in the URDF")
        if not joint.is_revolute and not (math.isfinite(lim.lower[k]) and math.isfinite(lim.upper[k])):
            raise ArgumentError(f"{where}: joint {k + 1}: a prismatic joint needs a position range (q: [lo, hi])")
