"""baseparam — base inertial parameters of manipulators by Krutikov's projection method.

The package follows the data, each stage a subpackage that imports only the ones above it:

=====================  ==========================================================================
``model``              :class:`Robot`, :class:`Joint`, :class:`Inertia`, :class:`Origin`, :class:`JointLimits`
                       — the robot; :func:`load_robot` reads a description (:func:`parse_robot` its
                       text); :class:`ColumnLayout` names the standard parameters,
                       :func:`standard_parameters` takes them from the true inertias; :class:`Model`
                       — a robot with its parameters, what the dynamics take (:class:`BaseModel`:
                       in base parameters, ``base.model(p_base)``)
``motion``             :class:`Trajectory` — the one motion type (t, q, q̇, q̈, τ, checked once) that every
                       stage below shares: logs, preprocessed data, samples of a design, simulations
``dynamics``           :func:`inverse_dynamics`, :func:`gravity_torque`, :func:`coriolis_torque`,
                       :func:`friction_torque`, :func:`reaction_wrenches` (recursive Newton–Euler);
                       :func:`regressor`, :func:`slotine_li_regressor`, :func:`mass_matrix`,
                       :func:`coriolis_matrix` (compiled from an expression graph);
                       :func:`forward_dynamics`, :class:`ForwardDynamics` (articulated-body algorithm);
                       :class:`Regressor` (the regressor bound for one sample at a time);
                       :func:`generalized_momenta`, :func:`velocities_from_momenta`,
                       :func:`momenta_rate` (Ivanov's form), :func:`momentum`, :func:`kinetic_energy`,
                       :func:`potential_energy`; :class:`Contact`, :func:`contact_jacobian`,
                       :func:`contact_forces` (generalized force of wrenches at contact frames)
``projection``         the projection method: Z's row space by the forward recursion over spans,
                       its exact echelon form, the regroupings — :func:`find_base_parameters` →
                       :class:`BaseParameters` (``from_standard``, ``regressor``,
                       ``slotine_li_regressor``, ``inverse_dynamics`` in base parameters,
                       ``forward_dynamics``; ``max_memory=`` bounds the run); :func:`find_and_store`
                       also writes the whole Z to HDF5, :func:`read_h5` reads it
``identification``     :func:`read_trajectory`, :func:`from_dataframe`, :func:`from_arrays` — measured
                       logs (CSV, NPZ, HDF5, Parquet, ROS bags); :func:`write_trajectory` (CSV, NPZ,
                       Parquet, MCAP); :func:`estimate_delay` (→ :class:`DelayEstimate`);
                       :class:`Preprocessing`, :func:`preprocess` (→ :class:`Processed`);
                       :func:`identify` (→ :class:`Identification`), :class:`BaseParameterEstimator`,
                       :class:`Metrics`; :func:`parse_column_map` (a file's columns, as ``--columns``);
                       :func:`identify_logs` (many logs, each reduced on its own; processes or Dask;
                       → :class:`LogResult` per log); :func:`identify_payload` (→ :class:`PayloadResult`):
                       a payload on the last link, the robot known;
                       :func:`identify_floating` (→ :class:`FloatingIdentification`): floating-base
                       robots by torques and contact wrenches, base equations, or momentum
``excitation``         :func:`design_excitation` → :class:`ExcitationDesign` — a finite Fourier series per
                       joint, at rest at both ends, within :class:`MotionLimits` at every instant, that
                       minimizes cond(W_b) of the base set; :class:`FourierSeries`; :func:`motion_limits`
                       (the limits a design keeps); :func:`identification_errors` (→
                       :class:`IdentificationErrors`: how well a trajectory identifies, with noise);
                       :func:`load_excitation` (→ :class:`SavedExcitation`) reads ``excite --json`` back
``codegen``            :func:`export` → :class:`ExportResult` — C99 / numpy code of the base regressor,
                       Slotine–Li regressor and inverse dynamics in base parameters; :func:`equations` →
                       :class:`Equations` — the equations of motion in closed form (SymPy, LaTeX, Python)
``simulation``         :func:`simulate` → :class:`Trajectory` (RK4 at a controller rate or solve_ivp),
                       :class:`SensorNoise`; :func:`track` (a :class:`Reference` followed under
                       feedforward + PD → :class:`TrackingRun`), :func:`simulated_identification`
                       (a simulated log identified, scored against the truth: :class:`FitErrors`),
                       :func:`compare_motions` (:class:`MotionComparison`: which motion identifies better);
                       floating bases: :func:`stance_motion`, :func:`contact_experiment`,
                       :func:`free_floating_experiment` (→ :class:`FloatingExperiment`)
``errors``             exceptions and warnings: bad input is a :class:`BaseParamError`
                       (:class:`ArgumentError`, :class:`RobotDescriptionError`, :class:`DataError`,
                       :class:`ExportError`, :class:`NotFittedError`, …), each also a builtin
``cli``                the ``baseparam`` command
=====================  ==========================================================================

The dynamics come before the projection in the import order although they come after it in the
story: they need only the robot, while the base set evaluates its pivot columns through them.
Names are imported on first use (``_lazy``), so ``import baseparam`` costs almost nothing.

Beside the stages: ``evaluation`` (the error figures of a fit, defined once), ``_validation`` (the
argument checks of the public entry points; ``_checks`` the ones below every module, ``_numbers`` the one
conversion of arrays to float64), ``_values`` (results compared by value), ``_warnings`` (the one way to
warn), ``_memory`` (the memory a run may use), ``_atomic`` (output files written atomically),
``_output_names`` (the outputs refused before they are written: names, folders, room), ``_leftovers`` (what
killed runs left, removed or put back), ``_json_text`` (the strict JSON text of every JSON file), ``_hdf5``
(HDF5 read only from the file named), ``_figures`` (matplotlib, on first use), ``_processes`` and ``_blas``
(worker processes, BLAS threads), ``_stderr`` (standard error held around native code), ``_entry`` (the
command's entry point, before ``cli`` loads).

Quick start::

    import numpy as np
    import baseparam as bp
    robot = bp.load_robot("robots/puma560.yaml")
    base = bp.find_base_parameters(robot)          # base.rank == 36
    base.names, base.Y                             # pivots' names, regroupings (SI)
    p = np.random.default_rng(0).uniform(0.1, 1.0, len(base.standard_names))   # standard parameters
    model = bp.Model(robot, p)                         # bp.Model(robot): the description's inertias
    q = qd = qdd = np.zeros((1, robot.n_dof))
    tau = bp.inverse_dynamics(model, q, qd, qdd)       # (n_samples, n_dof), SI
    Wb = base.regressor(q, qd, qdd)                    # tau == Wb @ base.from_standard(p)
"""
from __future__ import annotations


def _no_bytecode_under_a_file_size_limit():
    """No bytecode cache written by this process when it may not write files beyond a small size (``ulimit -f``
    below 256 MiB): Python writes a module's ``__pycache__/*.pyc`` with one unchecked write, and a short one (the
    limit met) left a truncated file in place that broke every later import of that module, by any run ("EOFError:
    marshal data too short") — in a source checkout or an editable install, whose caches are written as modules are
    first imported.
    First, before this package's modules are imported (only this file's own cache is written before it runs)."""
    import sys
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    except (ImportError, OSError, ValueError):    # no resource module (Windows)
        return
    # a cluster's site-wide limit of gigabytes cannot cut a cache file (a few MB at most): the flag is the
    # process's, left alone there
    if soft != resource.RLIM_INFINITY and soft < 256 * 2**20:
        sys.dont_write_bytecode = True


_no_bytecode_under_a_file_size_limit()
del _no_bytecode_under_a_file_size_limit

from ._lazy import lazy_names  # noqa: E402 — after the bytecode guard above

from .errors import (AccuracyWarning, ArgumentError, ArgumentTypeError, BaseParamError,  # noqa: E402
                     DataError, DataWarning, DescriptionWarning, ExcitationWarning, ExportError, NotFittedError,
                     PhysicalConsistencyWarning, ResourceLimitError, RobotDescriptionError, RoundOffWarning,
                     SettingsError, SimulationError, StorageError)

# public name → the subpackage that defines it (imported on first access, PEP 562)
_LAZY = {
    "model": ("BaseModel", "ColumnLayout", "Inertia", "Joint", "JointLimits", "Model", "Origin", "Robot", "load_robot",
              "parse_robot", "standard_parameters"),
    "dynamics": ("ForwardDynamics", "coriolis_matrix", "coriolis_torque", "forward_dynamics", "friction_torque",
                 "generalized_momenta", "gravity_torque", "inverse_dynamics", "kinetic_energy", "mass_matrix",
                 "momenta_rate", "momentum", "potential_energy", "reaction_wrenches", "regressor",
                 "slotine_li_regressor", "velocities_from_momenta",
                 "Contact", "contact_forces", "contact_jacobian", "Regressor"),
    "projection": ("BaseParameters", "find_and_store", "find_base_parameters", "read_h5"),
    "motion": ("Trajectory",),
    "identification": ("BaseParameterEstimator", "Identification", "Metrics", "Preprocessing", "Processed",
                       "from_arrays", "from_dataframe", "identify", "parse_column_map", "preprocess",
                       "read_trajectory", "write_trajectory", "estimate_delay", "DelayEstimate", "identify_logs",
                       "LogResult", "PayloadResult", "identify_payload", "FloatingIdentification", "identify_floating"),
    "excitation": ("ExcitationDesign", "FourierSeries", "IdentificationErrors", "MotionLimits", "design_excitation",
                   "identification_errors", "motion_limits", "load_excitation", "SavedExcitation"),
    "codegen": ("Equations", "ExportResult", "equations", "export"),
    "simulation": ("FitErrors", "MotionComparison", "Reference", "SensorNoise", "TrackingRun", "compare_motions",
                   "simulate", "simulated_identification", "track",
                   "FloatingExperiment", "contact_experiment", "free_floating_experiment", "stance_motion"),
}
_WHERE = {name: package for package, names in _LAZY.items() for name in names}

# the eager names (errors) as a literal, so that linters see them exported; then the lazy ones
__all__ = ["AccuracyWarning", "ArgumentError", "ArgumentTypeError", "BaseParamError", "DataError", "DataWarning",
           "DescriptionWarning", "ExcitationWarning", "ExportError", "NotFittedError", "PhysicalConsistencyWarning",
           "ResourceLimitError", "RobotDescriptionError", "RoundOffWarning", "SettingsError", "SimulationError",
           "StorageError"]
__all__ = sorted(__all__ + list(_WHERE))
__version__ = "0.1.0"


__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
