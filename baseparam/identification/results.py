"""What an identification returns: :class:`Identification` (estimates, statistics, text report) and
:class:`Metrics` (torque prediction errors)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np

if TYPE_CHECKING:                 # for the annotation only: the estimator module imports this one
    from .estimators import BaseParameterEstimator

# Relative std (%) above which a parameter is poorly identified (Gautier's 10 %).
REL_STD_WARNING = 10.0


@dataclass
class Metrics:
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
    t, tau, predicted : ndarray, shapes (S,), (S, n_dof), (S, n_dof)
        The compared samples (for plots); ``t`` restarts in each file.
    sources : list of str
    """

    rmse: np.ndarray
    nrmse_percent: np.ndarray
    nrmse_pooled_percent: float
    n_samples: int
    t: np.ndarray = field(repr=False)
    tau: np.ndarray = field(repr=False)
    predicted: np.ndarray = field(repr=False)
    sources: list = field(default_factory=list)

    @classmethod
    def compare(cls, tau, predicted, t=None, sources=()):
        """Error figures of predictions ``predicted`` (S, n) against measurements ``tau`` (S, n)."""
        e2, t2 = ((tau - predicted) ** 2).sum(axis=0), (tau ** 2).sum(axis=0)
        S = tau.shape[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            nrmse = np.where(t2 > 0, 100.0 * np.sqrt(e2 / np.where(t2 > 0, t2, 1.0)), np.nan)
        pooled = 100.0 * np.sqrt(e2.sum() / t2.sum()) if t2.sum() > 0 else float("nan")
        return cls(rmse=np.sqrt(e2 / S), nrmse_percent=nrmse, nrmse_pooled_percent=float(pooled), n_samples=S,
                   t=np.arange(S, dtype=float) if t is None else t, tau=tau, predicted=predicted,
                   sources=list(sources))

    def to_dict(self):
        """rmse, nrmse_percent, nrmse_pooled_percent and n_samples (docs/formats.md, section
        "Identification result")."""
        return {"rmse": _floats(self.rmse), "nrmse_percent": _floats(self.nrmse_percent),
                "nrmse_pooled_percent": _float(self.nrmse_pooled_percent), "n_samples": int(self.n_samples)}


def _float(x):
    return None if not np.isfinite(x) else float(x)


def _floats(a):
    return [_float(x) for x in np.asarray(a, float)]


@dataclass
class Identification:
    """Result of :func:`identify`: the fitted estimator, its statistics and the validation figures.

    Attributes
    ----------
    estimator : BaseParameterEstimator
    train : Metrics
    validation : Metrics or None
    """

    estimator: BaseParameterEstimator
    train: Metrics
    validation: Optional[Metrics] = None

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
        doc = {
            "robot": e.base_.robot.name,
            "parameters": e.base_.parameters,
            "method": e.method,
            "base": [{"name": n, "value": _float(v), "std": _float(s), "rel_std_percent": _float(r)}
                     for n, v, s, r in self.table()],
            "condition_number": _float(e.condition_number_),
            "condition_number_scaled": _float(e.condition_number_scaled_),
            "sigma_per_joint": _floats(e.sigma_),
            "correlation_factor": _float(e.correlation_factor_),
            "undetermined": list(e.undetermined_),
            "physically_impossible": list(e.impossible_),
            "train": self.train.to_dict(),
            "validation": None if self.validation is None else self.validation.to_dict(),
            "preprocessing": e.preprocessing_,
        }
        if getattr(e, "physical_", None) is not None:
            doc["physical"] = e.physical_
            doc["solver_status"] = e.solver_status_
        return doc

    def to_robot(self):
        """The robot with the identified bodies, friction and rotor inertias as its true values: what
        :func:`~baseparam.standard_parameters` then gives is the fit, for ``bp.inverse_dynamics`` and
        simulation (consistent fits only, see :meth:`to_urdf`).

        Returns
        -------
        Robot
        """
        import dataclasses

        from ..model.parameters import ColumnLayout
        from ..model.robot import Inertia

        e = self._bodies("to_robot")
        robot = e.base_.robot
        layout = ColumnLayout(robot, e.base_.parameters)
        p = e.standard_
        joints = []
        for k, (joint, link) in enumerate(zip(robot.joints, e.physical_)):
            body = Inertia(mass=link["mass"], com=np.array(link["com"]), inertia=np.array(link["inertia_com"]),
                           as_written=True)     # J ⪰ εI: physical, yet within round-off of the triangle bound
            friction = tuple(float(p[layout.friction_columns[(k, kind)]]) if (k, kind) in layout.friction_columns
                             else False for kind in ("FV", "FC", "FO"))
            rotor = float(p[layout.rotor_columns[k]]) if k in layout.rotor_columns else False
            joints.append(dataclasses.replace(joint, inertia=body, friction=friction, rotor_inertia=rotor))
        return dataclasses.replace(robot, joints=tuple(joints), source=None)

    def to_yaml(self, path=None) -> str:
        """:meth:`to_robot` as a YAML description (``identify --yaml``), written atomically to `path` if given."""
        from ..model.robot import robot_to_yaml

        text = robot_to_yaml(self.to_robot())
        if path is not None:
            from .._atomic import write_text
            write_text(path, text)
        return text

    def _bodies(self, what):
        from ..errors import ArgumentError

        e = self.estimator
        if getattr(e, "physical_", None) is None:
            raise ArgumentError(f"{what}: method={e.method!r} estimates base parameters, not bodies; "
                                "fit with method='consistent' (CLI --method consistent)")
        return e

    def to_urdf(self, path=None) -> str:
        """The robot with the identified bodies as URDF (``identify --urdf``), for pinocchio and other readers.

        Only a physically consistent fit (``method="consistent"``) is a set of bodies. Joint k moves
        ``link{k}``; the description's link frame is ``link{k}_frame``. pinocchio's ``rnea`` on it equals
        the fit's prediction without friction and rotor inertias (URDF has no place for them); set its
        gravity to the robot's (a URDF has none).

        Parameters
        ----------
        path : str or os.PathLike, optional
            Also write the text there (atomically).

        Returns
        -------
        str
        """
        from ..model.urdf_writer import robot_to_urdf

        e = self._bodies("to_urdf")
        text = robot_to_urdf(e.base_.robot, [(link["mass"], link["com"], link["inertia_com"])
                                            for link in e.physical_])
        if path is not None:
            from .._atomic import write_text
            write_text(path, text)
        return text

    def summary(self):
        """A readable text report (the CLI prints it)."""
        e = self.estimator
        lines = [f"{e.base_.robot.name}: {len(e.names_)} base parameters identified by {e.method.upper()} from "
                 f"{e.n_samples_} samples × {e.base_.robot.n_dof} joints",
                 f"condition number of the base regressor: {e.condition_number_:.4g} "
                 f"(column-scaled: {e.condition_number_scaled_:.4g})", "",
                 f"  {'':>3}  {'name':<8} {'value':>14} {'std':>12} {'rel std %':>10}"]
        for k, (n, v, s, r) in enumerate(self.table(), 1):
            flag = "  poorly identified" if r > REL_STD_WARNING else ""
            lines.append(f"  {k:>3}  {n:<8} {v:>14.6g} {s:>12.4g} {r:>10.3g}{flag}")
        lines.append("")
        if getattr(e, "physical_", None) is not None:
            lines.append(f"physically consistent (solver: {e.solver_status_}): per link mass [kg], centre of mass "
                         "[m], smallest eigenvalue of the pseudo-inertia. One set of bodies that fits: the data "
                         "determine only the base parameters, so masses can be far from the real ones")
            for link in e.physical_:
                com = " ".join(f"{c:.4g}" for c in link["com"])
                lines.append(f"  link {link['link']}: {link['mass']:.4g}  [{com}]  {link['min_eigenvalue']:.2e}")
            lines.append("")
        for label, m in (("train", self.train), ("validation", self.validation)):
            if m is None:
                continue
            per = " ".join(f"{x:.2f}" for x in m.nrmse_percent)
            lines.append(f"{label}: NRMSE pooled {m.nrmse_pooled_percent:.2f} %  per joint [{per}] %  "
                         f"({m.n_samples} samples)")
        return "\n".join(lines)
