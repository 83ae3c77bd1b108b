"""What an identification returns: :class:`Identification` (estimates, statistics, text report),
:class:`Metrics` (torque prediction errors) and :class:`LogResult` (one log's figures in a fit over many)."""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import Optional

import numpy as np

from .._atomic import write_text
from .._output_names import robot_protected
from .._checks import check_written_format, counted, shown
from .._numbers import json_float, json_floats
from .._validation import (check_field_kinds, check_field_shapes, check_instance, check_name_fields, check_names,
                           check_number, check_path, check_real_array, check_record, float_fields)
from .._values import ComparedByValue
from ..errors import ArgumentError, ArgumentTypeError, DataError
from ..evaluation import figures_in_range, figures_of_log, nrmse
from ..model.robot import Inertia, robot_to_yaml
from ._bodies import body_table, table_lines

# Relative std (%) of Gautier's criterion (10 %), kept for reference: it also flags parameters whose
# whole effect on the torque is small (a light link's products of inertia), so it is not what warns.
REL_STD_WARNING = 10.0
# A parameter is poorly identified when one standard deviation of it moves the predicted torque by more
# than this share (%) of the torque's RMS over the fitted data (BaseParameterEstimator.torque_std_percent_).
# Simulated fits of the LWR4+ and UR10e (1-5 % noise, exciting motions: parameter errors 0.2-3.5 %) stay
# below 0.3 %; timid motions (cond > 1000, errors of 70-100 %) reach 10-23 % (tests/test_warnings.py).
TORQUE_STD_WARNING = 1.0


def _moved_text(moved, n_parameters):
    """The report's line of the base parameters the constraints moved by more than 1σ: ``moved`` (name, shift in σ)
    pairs. A σ of 0 (torques the model explains exactly: synthetic data) makes any move infinitely many σ, written
    'σ = 0' (it was "infσ")."""
    if not moved:
        return "no base parameter moved by more than 1σ from the unconstrained fit"
    listed = ", ".join(f"{n} ({v:.1f}σ)" if np.isfinite(v) else f"{n} (σ = 0)"
                      for n, v in sorted(moved, key=lambda item: -item[1])[:12])
    more = f" and {len(moved) - 12} more" if len(moved) > 12 else ""
    return f"moved by the constraints by more than 1σ: {len(moved)} of {n_parameters}: {listed}{more}"


def _source_names(sources):
    """:meth:`Metrics.compare`'s ``sources`` as a list of str: the names of files (str or os.PathLike, as a
    Trajectory's ``source``) in any iterable, as ``list(sources)`` took them; a single name is refused (it was kept
    letter by letter)."""
    if isinstance(sources, Iterable) and not isinstance(sources, (str, bytes, os.PathLike)):
        sources = [os.fsdecode(s) if isinstance(s, os.PathLike) else s for s in sources]
    return check_names(sources, "sources", allow_none=False)


@dataclass(eq=False)      # == by value: _values.ComparedByValue
class Metrics(ComparedByValue):
    """Torque prediction errors on the samples kept after preprocessing.

    Attributes
    ----------
    rmse : ndarray, shape (n_dof,)
        RMS(τ_measured − τ_predicted) per joint (N·m or N).
    nrmse_percent : ndarray, shape (n_dof,)
        rmse / RMS(τ_measured), per joint, in %.
    nrmse_pooled_percent : float
        √Σe² / √Στ² over all joints at once, in %.
    n_samples : int
    t, tau, predicted : ndarray, shapes (n_samples,), (n_samples, n_dof), (n_samples, n_dof)
        The compared samples (for plots); ``t`` restarts in each file.
    sources : list of str
        The files compared, at most one per sample.
    """

    rmse: np.ndarray
    nrmse_percent: np.ndarray
    nrmse_pooled_percent: float
    n_samples: int
    t: np.ndarray = field(repr=False)
    tau: np.ndarray = field(repr=False)
    predicted: np.ndarray = field(repr=False)
    sources: list = field(default_factory=list)

    __hash__ = None         # mutable: unhashable, as the dataclass made it

    def __post_init__(self):
        # a public class: one built by hand with a wrong kind of field is refused here, not deep in to_dict()
        float_fields(self, ("rmse", "nrmse_percent"))
        check_field_shapes(self, {"rmse": ("n_dof",), "nrmse_percent": ("n_dof",)})
        check_field_kinds(self, {"nrmse_pooled_percent": (Real, "a number"), "n_samples": (Integral, "a whole number")})
        check_name_fields(self, ("sources",))      # joined into its to_dict and the reports
        # each file compared gave at least one sample (t restarts in each): 100 000 names beside a few samples reached
        # its repr
        if len(self.sources) > max(self.n_samples, 0):
            raise ArgumentError(f"Metrics.sources: {counted(len(self.sources), 'names')} of "
                                f"{counted(self.n_samples, 'samples')}; expected at most one file per sample")

    @classmethod
    def compare(cls, tau, predicted, t=None, sources=()):
        """Error figures of predictions ``predicted`` (n_samples, n_dof) against measurements ``tau`` (n_samples,
        n_dof), n_samples ≥ 1: those of :meth:`from_residuals`, with the samples kept for plots."""
        tau = check_real_array("tau", tau, 2)

        def as_tau(shape):
            if shape != tau.shape or (t is not None and np.shape(t) != tau.shape[:1]):
                raise ArgumentError(f"predicted, t: expected shapes {tau.shape} and ({tau.shape[0]},) as tau's, got "
                                    f"{shape} and {shown(None if t is None else np.shape(t))}")
        # their shape, then their values (a NaN in predictions of the wrong shape was said as the NaN)
        predicted = check_real_array("predicted", predicted, 2, shape=as_tau)
        S = tau.shape[0]
        # the times kept for plots, numbers as tau's: text, complex or NaN times were kept as given
        t = np.arange(S, dtype=float) if t is None else check_real_array("t", t, 1)
        if S == 0:          # no figures of no samples (once NaN with numpy's warning; from_residuals would say 0)
            raise ArgumentError("tau: no samples to compare the predictions with")
        # an overflow of the squares cannot change the answer: it is refused just below, in the library's words (numpy's
        # raw RuntimeWarning came first)
        with np.errstate(over="ignore", invalid="ignore"):
            e2, t2 = ((tau - predicted) ** 2).sum(axis=0), (tau ** 2).sum(axis=0)
        if not (np.isfinite(e2).all() and np.isfinite(t2).all()):    # the sums made here: only an overflow to check
            raise ArgumentError(f"tau, predicted: squares beyond the floating-point range (largest |value| "
                                f"{max(np.abs(tau).max(), np.abs(predicted).max()):.3g}): no error figures")
        if not t2.any():            # a joint of no torque has no NRMSE (NaN); no torque at all, no pooled one either
            raise ArgumentError("tau: zero in every sample of every joint: no NRMSE to compare the predictions by")
        # refused where a total or a quotient overflows (torques of 1e-160 N·m against predictions of 1 gave an NRMSE
        # of inf after numpy's raw overflow warning); the figures otherwise as before
        figures = figures_in_range(e2, t2, ("tau, predicted", "tau", "tau, predicted"))
        return replace(cls._from_sums(e2, t2, S, figures), t=t, tau=tau,
                       predicted=predicted, sources=_source_names(sources))

    @classmethod
    def from_residuals(cls, e2, t2, n_samples):
        """Error figures from per-joint sums: Σe² (n,) and Στ² (n,) over ``n_samples`` samples (no
        samples kept for plots). NaN NRMSE for a joint whose Στ² is 0; no torque at all: ArgumentError."""
        e2, t2, n_samples = cls._checked_sums(e2, t2, n_samples)
        # the figures with their own refusals (no torque at all has none), computed once
        return cls._from_sums(e2, t2, n_samples, nrmse(e2, t2))

    @classmethod
    def _of_log(cls, e2, t2, n_samples):
        """:meth:`from_residuals` of one log of several: a log of no torque at all keeps NaN figures (written
        as null), as the fit over all of them refuses only a joint of no torque in every log."""
        e2, t2, n_samples = cls._checked_sums(e2, t2, n_samples)
        return cls._from_sums(e2, t2, n_samples, figures_of_log(e2, t2))

    @staticmethod
    def _checked_sums(e2, t2, n_samples):
        e2 = check_real_array("e2", e2, 1)

        def sums_of_squares(shape, negative=False):
            if negative or shape != e2.shape:
                raise ArgumentError(f"e2, t2: expected sums of squares (≥ 0) of one shape, got shapes {e2.shape} and "
                                    f"{shape}")
        # their shape, then their values (a NaN among sums of the wrong shape was said as the NaN)
        t2 = check_real_array("t2", t2, 1, shape=sums_of_squares)
        n_samples = check_number(n_samples, "n_samples", low=0, integer=True)
        sums_of_squares(t2.shape, negative=(e2 < 0).any() or (t2 < 0).any())
        return e2, t2, n_samples

    @classmethod
    def _from_sums(cls, e2, t2, n_samples, figures):
        """:meth:`from_residuals` of sums already checked (finite, ≥ 0, of one shape (n,)) and ``figures``, their (per
        joint, pooled) NRMSE as the caller's rule gives them (:func:`~baseparam.evaluation.nrmse`'s refusals for a fit,
        NaN for a log of several: :meth:`_of_log`)."""
        per_joint, pooled = figures
        empty = np.zeros((0, len(e2)))
        return cls(rmse=np.sqrt(e2 / max(n_samples, 1)), nrmse_percent=100.0 * per_joint,
                   nrmse_pooled_percent=100.0 * pooled,
                   n_samples=int(n_samples), t=np.zeros(0), tau=empty, predicted=empty)

    def to_dict(self):
        """rmse, nrmse_percent, nrmse_pooled_percent and n_samples (docs/formats.md, section
        "Identification result")."""
        return {"rmse": json_floats(self.rmse), "nrmse_percent": json_floats(self.nrmse_percent),
                "nrmse_pooled_percent": json_float(self.nrmse_pooled_percent), "n_samples": int(self.n_samples)}


@dataclass(frozen=True, eq=False)
class LogResult:
    """One log's figures in a fit over many logs (:func:`~baseparam.identification.logs.identify_logs`).

    Attributes
    ----------
    source : str
        The log (its file name).
    n_samples : int
        Its samples in the fit (kept after preprocessing).
    train : Metrics
        Errors of the fit on all the logs, on this one (``rmse``: residual RMS per joint).
    held_out : Metrics or None
        Leave-one-log-out: errors on this log of the fit on all the others (None: not asked, or the
        others alone do not determine the base parameters).
    record : dict
        What preprocessing did to it.
    """

    source: str
    n_samples: int
    train: Metrics = field(repr=False)
    held_out: Optional[Metrics] = field(default=None, repr=False)
    record: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        # a public class: one built by hand with a wrong kind of field is refused here, not deep in to_dict()
        check_field_kinds(self, {"n_samples": (Integral, "a whole number"), "train": (Metrics, "a Metrics"),
                                 "held_out": ((Metrics, None), "a Metrics or None"), "record": (dict, "a dict"),
                                 "source": (str, "a str")})      # a NaN source reached to_dict's JSON
        check_record(self.record, "LogResult.record")       # Processed.record's, written into the fit's JSON

    def __repr__(self):
        held = "" if self.held_out is None else f", held_out={self.held_out.nrmse_pooled_percent:.2f}%"
        return (f"LogResult(source={self.source!r}, n_samples={self.n_samples}, "
                f"train={self.train.nrmse_pooled_percent:.2f}%{held})")

    def to_dict(self):
        return {"source": self.source, "n_samples": int(self.n_samples), "train": self.train.to_dict(),
                "held_out": None if self.held_out is None else self.held_out.to_dict()}


@dataclass
class Identification:
    """Result of :func:`identify`: the fitted estimator, its statistics and the validation figures.

    Attributes
    ----------
    estimator : BaseParameterEstimator
        The fitted estimator (:mod:`.estimators`, which builds this result: not imported here).
    train : Metrics
    validation : Metrics or None
    logs : tuple of LogResult
        A fit over many logs (:func:`~baseparam.identification.logs.identify_logs`): each log's errors,
        and its leave-one-log-out validation; empty for a fit in memory.
    """

    estimator: object
    train: Metrics
    validation: Optional[Metrics] = None
    logs: tuple = ()

    def __post_init__(self):
        # a public class: one built by hand with a wrong kind of field is refused here, not deep in its methods
        if not hasattr(self.estimator, "base_"):     # what a fitted estimator has (estimators imports this module)
            raise ArgumentTypeError(f"Identification.estimator: expected a fitted BaseParameterEstimator, got "
                                    f"{type(self.estimator).__name__}")
        check_field_kinds(self, {"train": (Metrics, "a Metrics"), "validation": ((Metrics, None), "a Metrics or None"),
                                 "logs": ((tuple, list), "a tuple of LogResult")})
        for k, log in enumerate(self.logs):       # each read by summary and to_dict ('str' has no 'held_out')
            check_instance(log, f"Identification.logs[{k}]", LogResult, "a LogResult")

    @property
    def base(self):
        return self.estimator.base_

    @property
    def values(self):
        """Estimated base parameters (R,), SI."""
        return self.estimator.coef_

    def table(self):
        """Rows (name, value, std, rel_std_percent) in base-parameter order."""
        e = self.estimator
        return list(zip(e.names_, e.coef_, e.std_, e.rel_std_percent_))

    def to_dict(self):
        """The ``identify --json`` document (docs/formats.md, section "Identification result")."""
        e = self.estimator
        at_bound = set(getattr(e, "at_bound_", ()))
        doc = {
            "robot": e.base_.robot.name,
            "parameters": e.base_.parameters,
            "method": e.method,
            "base": [{"name": n, "value": json_float(v), "std": json_float(s),
                      "rel_std_percent": None if n in at_bound else json_float(r), "torque_std_percent": json_float(t),
                      **({"at_bound": n in at_bound} if e.method == "consistent" else {})}
                     for (n, v, s, r), t in zip(self.table(), e.torque_std_percent_)],
            "condition_number": json_float(e.condition_number_),
            "condition_number_scaled": json_float(e.condition_number_scaled_),
            "sigma_per_joint": json_floats(e.sigma_),
            "correlation_factor": json_float(e.correlation_factor_),
            "undetermined": list(e.undetermined_),
            "physically_impossible": list(e.impossible_),
            "train": self.train.to_dict(),
            "validation": None if self.validation is None else self.validation.to_dict(),
            "preprocessing": e.preprocessing_,
        }
        if self.logs:
            doc["logs"] = [log.to_dict() for log in self.logs]
        if e.friction_scales_:
            doc["friction_scales"] = {str(k): v for k, v in e.friction_scales_.items()}
        models = {str(k + 1): j.friction_model.to_dict() for k, j in enumerate(e.base_.robot.joints)
                  if j.friction_model is not None}
        if models:
            doc["friction_models"] = models
        if getattr(e, "physical_", None) is not None:
            c = e.consistent_
            doc["physical"] = e.physical_
            doc["solver_status"] = e.solver_status_
            doc["consistent"] = {
                "weighting": e.weighting, "prior": c.prior, "prior_requested": e.prior,
                "prior_weight": None if c.prior_choice is None else c.prior_choice.to_dict(),
                "solve_seconds": c.solve_seconds, "solver_calls": c.n_solves,
                "constraint_cost": {"train_nrmse_pooled_percent_unconstrained":
                                    json_float(e.unconstrained_train_.nrmse_pooled_percent),
                                    "train_nrmse_pooled_percent": json_float(self.train.nrmse_pooled_percent)},
                "unconstrained": [{"name": n, "value": json_float(v)} for n, v in zip(e.names_, e.unconstrained_coef_)],
                "moved": [{"name": n, "shift_std": json_float(v)} for n, v in e.moved_],
                "standard": {n: json_float(v) for n, v in zip(e.base_.standard_names, e.standard_)},
                "bodies": self.bodies(),
            }
        return doc

    def to_robot(self):
        """The robot with the identified bodies, friction and rotor inertias as its true values: what
        :func:`~baseparam.standard_parameters` then gives is the fit, for ``bp.inverse_dynamics`` and
        simulation (consistent fits only, see :meth:`to_urdf`).

        Returns
        -------
        Robot
        """
        return self._robot("to_robot")

    def _robot(self, what):
        """:meth:`to_robot`, its refusals naming the method ``what`` (to_yaml's check is this one's)."""
        robot, layout, p, bodies = self._fitted_columns(what)
        joints = []
        for k, (joint, (mass, com, inertia)) in enumerate(zip(robot.joints, bodies)):
            # J ⪰ εI: physical, yet within round-off of the triangle bound
            body = Inertia(mass=mass, com=com, inertia=inertia, as_written=True)
            # viscous, Coulomb, Stribeck and rotor inertia ≥ 0 within the solver's accuracy: -7.9e-17 written as
            # is made a --yaml that load_robot refused ("joints[3].friction[2]: expected … ≥ 0"); the offset signed
            friction = tuple((float(p[column]) if kind == "FO" else _clipped(p, column))
                             if (column := layout.friction_columns.get((k, kind))) is not None else False
                             for kind in ("FV", "FC", "FO"))
            rotor = _clipped(p, layout.rotor_columns[k]) if k in layout.rotor_columns else False
            model = joint.friction_model
            if (k, "FS") in layout.friction_columns:
                model = replace(model, stribeck_friction=_clipped(p, layout.friction_columns[(k, "FS")]))
            joints.append(replace(joint, inertia=body, friction=friction, rotor_inertia=rotor, friction_model=model))
        return replace(robot, joints=tuple(joints), source=None)

    def to_yaml(self, path=None) -> str:
        """:meth:`to_robot` as a YAML description (``identify --yaml``), written atomically to `path` if given;
        a first comment line names the prior."""
        robot = self._robot("to_yaml")          # an OLS fit has no prior to name and no bodies to write
        text = f"# {self._note()}\n" + robot_to_yaml(robot)
        return _written(path, text, robot, "YAML", ".yaml")

    def _bodies(self, what):
        e = self.estimator
        if getattr(e, "physical_", None) is None:
            raise ArgumentError(f"{what}: method={shown(e.method)} estimates base parameters, not bodies; "
                                "fit with method='consistent'")
        return e

    def _fitted_columns(self, what):
        """(robot, its ColumnLayout, the fit's standard parameters, per link its body (mass, com (3,), inertia
        about the com (3, 3))) of a consistent fit whose bodies fit a description (what our readers take back); else
        a one-line DataError naming the link: torques 10⁸ times too large fit a 6·10⁷ kg link, which a URDF was
        written with and then refused by load_robot, and ``Inertia`` refused without naming link or method."""
        from ..model.checks import body_problem
        from ..model.parameters import ColumnLayout

        e = self._bodies(what)
        for link in e.physical_:
            problem = body_problem(link["mass"], link["com"], link["inertia_com"], massless_ok=True, physical=False)
            if problem is not None:
                raise DataError(f"{what}: {e.base_.robot.name}: link {link['link']}: the fitted body's {problem[0]}: "
                                f"{problem[1]}; no robot description holds it (torques in another unit than N·m "
                                "or N?); the fit itself is in .values and .summary()")
        bodies = [(link["mass"], np.array(link["com"]), np.array(link["inertia_com"])) for link in e.physical_]
        return e.base_.robot, ColumnLayout(e.base_.robot, e.base_.parameters), e.standard_, bodies

    def to_urdf(self, path=None) -> str:
        """The robot with the identified bodies as URDF (``identify --urdf``), for pinocchio and other readers.

        Only a physically consistent fit (``method="consistent"``) is a set of bodies.

        * A robot read from a URDF: **that file**, with only the ``<inertial>`` of the links the joints
          move and the ``<dynamics>`` of the moving joints rewritten (identified viscous friction as
          ``damping``, Coulomb as ``friction``; a friction offset, a Stribeck term and rotor inertias
          have no place in URDF: see :meth:`to_mjcf`, :meth:`to_yaml`), in each link's own frame;
          names, meshes, limits, joint types, comments and vendor tags stay as written. A link that
          fixed joints carry is kept as written when the fit less it is still a body, else merged into
          the moving link (:mod:`baseparam.model.urdf_update`). A comment in each ``<inertial>`` names
          the prior and the CAD mass, and says when the body is beyond plausible bounds (:meth:`bodies`).
        * Any other description: a new file; joint k moves ``link{k}``, the description's link frame is
          ``link{k}_frame``.

        pinocchio's ``rnea`` on it equals the fit's prediction without friction and rotor inertias; set its
        gravity to the robot's (a URDF has none; a URDF robot's is the file's -9.81 along z).

        Parameters
        ----------
        path : str or os.PathLike, optional
            Also write the text there (atomically).

        Returns
        -------
        str
        """
        robot, layout, p, bodies = self._fitted_columns("to_urdf")
        if robot.from_urdf_text:
            text = self._updated_urdf(robot, bodies, layout, p)
        else:
            from ..model.urdf_writer import check_urdf_gravity, robot_to_urdf

            check_urdf_gravity(robot)
            text = robot_to_urdf(robot, bodies)
        return _written(path, text, robot, "URDF", ".urdf")

    def to_mjcf(self, path=None, *, urdf_folder=None) -> str:
        """The robot with the identified bodies and drives as MuJoCo MJCF (``identify --mjcf``).

        Consistent fits only. Rotor inertias become ``armature``, viscous friction ``damping``, Coulomb
        friction ``frictionloss`` (a friction offset and a Stribeck term have no MJCF counterpart). A robot
        read from a URDF keeps its link names and geometry (:mod:`baseparam.model.mjcf_writer`). MuJoCo's
        ``mj_inverse`` on it, with its constraints off (``mjDSBL_CONSTRAINT``), equals the fit's prediction without
        the Coulomb and offset terms; with them on, ``frictionloss`` is a dry-friction constraint whose force
        ``mj_inverse`` takes from the solver's soft model: anywhere from 0 to the Coulomb value, joint by joint.

        Parameters
        ----------
        path : str or os.PathLike, optional
            Also write the text there (atomically).
        urdf_folder : str or os.PathLike, optional
            The URDF's folder, where its relative and ``package://`` mesh paths are looked for
            (default: the current folder; ``identify --mjcf`` gives the URDF's).

        Returns
        -------
        str
        """
        import os

        from ..model.mjcf_writer import robot_to_mjcf

        robot, layout, p, bodies = self._fitted_columns("to_mjcf")
        friction = [tuple(_clipped(p, layout.friction_columns.get((k, kind))) for kind in ("FV", "FC"))
                    for k in range(robot.n_dof)]
        armature = [_clipped(p, layout.rotor_columns.get(k)) for k in range(robot.n_dof)]
        if urdf_folder is not None:
            check_path(urdf_folder, "urdf_folder")
        text = robot_to_mjcf(robot, bodies, friction=friction, armature=armature,
                             urdf_folder=None if urdf_folder is None else os.fspath(urdf_folder),
                             note=self._note())
        return _written(path, text, robot, "MJCF", ".xml")

    def _note(self):
        """The line every description written from the fit carries: the consistent fit and its prior."""
        e = self.estimator
        c = e.consistent_
        asked = "" if e.prior == c.prior else f" ({e.prior})"
        weight = "" if c.prior_choice is None else f", weight {c.prior_choice.chosen:g}"
        return f"identified by baseparam: consistent fit, prior {c.prior}{asked}{weight}"

    def _updated_urdf(self, robot, bodies, layout, p):
        from ..model.urdf_update import updated_urdf

        if robot.is_floating:
            raise ArgumentError(f"to_urdf: {robot.name}: a floating base's identified body has no place in the "
                                "file's links yet; use to_yaml")
        friction = [tuple(_clipped(p, layout.friction_columns.get((k, kind)), None) for kind in ("FV", "FC"))
                    for k in range(robot.n_dof)]
        comments = []
        for row in self.bodies():
            text = self._note()
            if row["cad"] is not None:
                text += f"; CAD mass {row['cad']['mass']:.6g} kg"
            if row["implausible"]:
                text += "; BEYOND PLAUSIBLE BOUNDS: " + ", ".join(row["implausible"])
            comments.append(text)
        return updated_urdf(robot, bodies, friction=friction, comments=comments)

    def consistent_report(self):
        """The consistent fit's report (lines of text): solver, prior, cost of the constraints, bodies against
        the CAD ones (those beyond plausible bounds marked), what moved."""
        e = self._bodies("consistent_report")         # an OLS fit has no report of bodies
        lines = [f"physically consistent fit: solver {e.consistent_.status}, {e.consistent_.n_solves} solve(s), "
                 f"{e.consistent_.solve_seconds:.2f} s; {e.weighting.upper()} weighting; {self.prior_text()}"]
        u, t = e.unconstrained_train_.nrmse_pooled_percent, self.train.nrmse_pooled_percent
        lines.append(f"cost of the constraints: training NRMSE {u:.2f} % unconstrained → {t:.2f} % consistent")
        lines += table_lines(self.bodies())
        lines.append(_moved_text(e.moved_, len(e.names_)))
        return lines

    def prior_text(self) -> str:
        """The prior the consistent fit used, in words: what was asked (auto, cad, none), what it became, its weight."""
        e = self._bodies("prior_text")                # an OLS fit has no prior
        c = e.consistent_
        asked = "" if e.prior == c.prior else f" (asked: {e.prior})"
        if c.prior_choice is None:
            return (f"prior none{asked}: one set of bodies that fits (the data determine only the base parameters, "
                    "so masses can be far from the real ones)")
        pc = c.prior_choice
        text = f"prior cad{asked}, weight {pc.chosen:g} ({pc.selected_by}"
        tried = np.isfinite(pc.cv_error_percent)
        if tried.any():
            text += "; hold-out NRMSE² %²: " + " ".join(f"{w:g}→{v:.3g}" for w, v, ok in
                                                      zip(pc.weights, pc.cv_error_percent, tried) if ok)
            if not tried[-1] and tried.any():
                text += f"; weights above {pc.weights[np.flatnonzero(tried)[-1]]:g} not scored"
        return text + ")"

    def bodies(self) -> list:
        """Per link the identified body, the description's (CAD) one and what is beyond plausible bounds
        (:func:`._bodies.body_table`; consistent fits only).

        Returns
        -------
        list of dict
        """
        e = self._bodies("bodies")
        return body_table(e.base_.robot, e.physical_)

    def _repr_html_(self):
        """The notebook view: errors, and for a consistent fit the bodies (HTML tables)."""
        import html

        e = self.estimator
        rows = [f"<tr><td>{html.escape(label)}</td><td>{m.nrmse_pooled_percent:.2f} %</td><td>"
                + " ".join(f"{x:.1f}" for x in m.nrmse_percent) + "</td></tr>"
                for label, m in (("train", self.train), ("validation", self.validation)) if m is not None]
        out = [f"<p><b>{html.escape(e.base_.robot.name)}</b>: {len(e.names_)} base parameters, "
               f"{html.escape(e.method.upper())}, cond {_figure(e.condition_number_scaled_, '.3g', 'unbounded')} "
               "(column-scaled)</p>",
               "<table><tr><th></th><th>NRMSE pooled</th><th>per joint %</th></tr>" + "".join(rows) + "</table>"]
        if getattr(e, "physical_", None) is not None:
            out.append("<pre>" + html.escape("\n".join(self.consistent_report())) + "</pre>")
        return "".join(out)

    def __repr__(self):
        e = self.estimator
        val = "" if self.validation is None else f", validation={self.validation.nrmse_pooled_percent:.2f}%"
        return (f"Identification(robot={e.base_.robot.name!r}, method={e.method!r}, rank={len(e.names_)}, "
                f"train={self.train.nrmse_pooled_percent:.2f}%{val})")

    def summary(self):
        """A readable text report (the CLI prints it)."""
        e = self.estimator
        lines = [f"{e.base_.robot.name}: {len(e.names_)} base parameters identified by {e.method.upper()} from "
                 f"{counted(e.n_samples_, 'samples')} × {e.base_.robot.n_dof} joints",
                 _condition_line(e.condition_number_, e.condition_number_scaled_), "",
                 f"  {'':>3}  {'name':<8} {'value':>14} {'std':>12} {'rel std %':>10} {'τ std %':>8}"]
        at_bound = set(getattr(e, "at_bound_", ()))
        for k, ((n, v, s, r), t) in enumerate(zip(self.table(), e.torque_std_percent_), 1):
            # at a bound the estimate is the bound (often 0): a relative deviation says nothing, nor is it poor;
            # of an estimate of exactly 0 it is undefined (σ/0; null in the JSON), and a bare "–" read as "none"
            rel = _relative_figure(r, v, s, n in at_bound)
            flag = "  poorly identified" if t > TORQUE_STD_WARNING and n not in at_bound else ""
            if not np.isfinite(s):      # the data do not see it: its value is the minimum-norm choice
                flag = "  not determined by the data"
            lines.append(f"  {k:>3}  {n:<8} {v:>14.6g} {_figure(s, '>12.4g')} {rel} {_figure(t, '>8.2g', '–')}{flag}")
        lines += [f"  (τ std %: one standard deviation of the parameter as a share of the torque's RMS; "
                  f"above {TORQUE_STD_WARNING:g} % it shows in the prediction: poorly identified)", ""]
        if e.friction_scales_:
            chosen = "; ".join(f"joint {k}: " + ", ".join(f"{name} {v:.3g}" for name, v in scales.items())
                               for k, scales in e.friction_scales_.items())
            lines += [f"friction velocity scales chosen from the data (rad/s or m/s): {chosen}", ""]
        if getattr(e, "physical_", None) is not None:
            lines += self.consistent_report() + [""]
        for label, m in (("train", self.train), ("validation", self.validation)):
            if m is None:
                continue
            per = " ".join(f"{x:.2f}" for x in m.nrmse_percent)
            lines.append(f"{label}: NRMSE pooled {m.nrmse_pooled_percent:.2f} %  per joint [{per}] %  "
                         f"({counted(m.n_samples, 'samples')})")
        if self.logs:
            lines += ["", self._logs_table()]
        return "\n".join(lines)

    def _logs_table(self):
        """Per log: samples, training NRMSE, leave-one-log-out NRMSE, residual RMS per joint."""
        held = any(log.held_out is not None for log in self.logs)
        lines = [f"per log ({len(self.logs)}): NRMSE pooled % of the fit on all logs"
                 + (", and held out (fit on all the others)" if held else "") + "; residual RMS per joint",
                 f"  {'log':<32} {'samples':>9} {'train %':>8} {'held out %':>10}  RMS per joint"]
        for log in self.logs:
            name = log.source if len(log.source) <= 32 else "…" + log.source[-31:]
            out = "" if log.held_out is None else f"{log.held_out.nrmse_pooled_percent:.2f}"
            rms = " ".join(f"{x:.3g}" for x in log.train.rmse)
            lines.append(f"  {name:<32} {log.n_samples:>9} {log.train.nrmse_pooled_percent:>8.2f} {out:>10}  {rms}")
        return "\n".join(lines)


def _relative_figure(rel, value, std, at_bound):
    """The report's 'rel std %' cell (10 characters): the figure; 'at bound' for an estimate the constraints left
    at a bound; 'value 0' for an estimate of exactly 0, whose relative deviation is undefined; '–' for a parameter
    the data do not determine (its std cell says so)."""
    if at_bound:
        return f"{'at bound':>10}"
    if value == 0 and np.isfinite(std):
        return f"{'value 0':>10}"
    return _figure(rel, ">10.3g", "–")


def _figure(x, spec, word="undetermined"):
    """``x`` formatted by ``spec``, or ``word`` (aligned as ``spec`` says) where it is not finite: a base parameter
    the data do not determine has an infinite standard deviation (null in the JSON), which the text printed as
    "inf" in four columns and the condition number's line."""
    if np.isfinite(x):
        return format(x, spec)
    align = "".join(c for c in spec if c in "<>^") + "".join(c for c in spec.split(".")[0] if c.isdigit())
    return format(word, align)


def _condition_line(raw, scaled):
    """The report's condition-number line; a rank-deficient regressor's (not finite) said in words."""
    if np.isfinite(raw) and np.isfinite(scaled):
        return f"condition number of the base regressor: {raw:.4g} (column-scaled: {scaled:.4g})"
    return ("condition number of the base regressor: unbounded (the data do not determine every base parameter; "
            f"column-scaled: {_figure(scaled, '.4g', 'unbounded')})")


def _written(path, text, robot, writes, suggested):
    """``text``, also written atomically to ``path`` unless it is None, never over ``robot``'s description file nor
    under a name that says another format than ``writes`` (:func:`~baseparam._checks.check_written_format`)."""
    if path is not None:
        check_written_format(path, writes, suggested)
        with robot_protected(robot):
            write_text(path, text)
    return text


def _clipped(p, column, missing=0.0):
    """``p[column]``, or ``missing`` without a column: a friction or rotor inertia, ≥ 0 by the consistent fit's
    constraints within the solver's accuracy (-1e-10), and ≥ 0 as MuJoCo and URDF want it."""
    return missing if column is None else max(float(p[column]), 0.0)
