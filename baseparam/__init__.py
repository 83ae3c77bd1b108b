"""baseparam — base inertial parameters of manipulators by Krutikov's projection method.

The pipeline, one module per step:

=====================  ==========================================================================
robot                  :class:`Robot`, :class:`Joint` — DH description (``loading.load_robot``)
kinematics             constant coefficient matrices Ã, B̃ of each joint transform
projections            forward recursion of the coefficient polynomials Û, W (sparse 4×4 terms)
coordinates            the coordinate matrix Z, block by block, with row labels
reduction              exact echelon step (rationals, or modulo a prime for irrational Z) → pivots, Y
modular                arithmetic modulo a prime for robots with odd twist angles
base_set               :func:`find_base_parameters` → :class:`BaseParameters` (``from_standard``,
                       ``regressor``, ``slotine_li_regressor``, ``inverse_dynamics`` from base params)
expressions            single-assignment expression graph (hash-consing, constant folding)
regressor_graph        the regressors as a graph: spatial Newton–Euler in link coordinates
compiled               the graph as straight-line numpy code, compiled once per robot
regressors             :func:`regressor`, :func:`slotine_li_regressor`, :func:`mass_matrix`,
                       :func:`coriolis_matrix` (compiled; the base versions evaluate pivot columns only)
newton_euler           :func:`inverse_dynamics`, :func:`gravity_torque`, :func:`coriolis_torque`,
                       :func:`friction_torque` (standard parameters, recursive Newton–Euler)
samples                checks of the state and parameter arrays the dynamics functions take
trajectory             :class:`Trajectory`, :func:`read_trajectory` — measured logs (CSV, NPZ, HDF5,
                       DataFrame; motor currents × drive gains), damaged rows refused or reported
preprocessing          :class:`Preprocessing`, :func:`preprocess` — resampling, zero-phase low-pass,
                       differentiation, rest trimming (choices recorded)
identification         :func:`identify`, :class:`BaseParameterEstimator` — OLS/WLS with standard
                       deviations, condition number, validation :class:`Metrics`
plots                  measured vs predicted torque, residuals, parameters with error bars
codegen                ``baseparam export``: C99 / numpy code of the base regressor, Slotine–Li
                       regressor and inverse dynamics in base parameters, with operation counts
parameters             column names and layouts; :func:`standard_parameters` from a description's
                       true inertias
errors                 exceptions, and :class:`AccuracyWarning` for nearly special geometry
storage                HDF5 (``--h5``): Z as CSR, labels, pivots, Y
report, cli            text output and the ``baseparam`` command
=====================  ==========================================================================

Quick start::

    import numpy as np
    import baseparam as bp
    robot = bp.load_robot("robots/puma560.yaml")
    base = bp.find_base_parameters(robot)          # base.rank == 36
    base.names, base.Y                             # pivots' names, regroupings (SI)
    p = np.random.default_rng(0).uniform(0.1, 1.0, len(base.standard_names))   # standard parameters
    q = qd = qdd = np.zeros((1, robot.n_dof))
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd)    # (n_samples, n_dof), SI
    Wb = base.regressor(q, qd, qdd)                    # tau == Wb @ base.from_standard(p)
"""
from .base_set import BaseParameters, find_base_parameters
from .codegen import export
from .errors import (AccuracyWarning, BaseParamError, DataError, DataWarning, ExcitationWarning, ResourceLimitError,
                     RobotDescriptionError, StorageError)
from .identification import BaseParameterEstimator, Identification, Metrics, identify
from .loading import load_robot, parse_robot
from .newton_euler import coriolis_torque, friction_torque, gravity_torque, inverse_dynamics
from .parameters import ColumnLayout, standard_parameters
from .preprocessing import Preprocessing, Processed, preprocess
from .regressors import coriolis_matrix, mass_matrix, regressor, slotine_li_regressor
from .robot import Inertia, Joint, Robot
from .storage import read_h5
from .trajectory import Trajectory, from_arrays, from_dataframe, parse_column_map, read_trajectory

__all__ = [
    "AccuracyWarning", "BaseParameterEstimator", "BaseParameters", "BaseParamError", "ColumnLayout", "DataError",
    "DataWarning",
    "ExcitationWarning", "Identification", "Inertia", "Joint", "Metrics", "Preprocessing", "Processed",
    "ResourceLimitError", "Robot", "RobotDescriptionError", "StorageError", "Trajectory", "coriolis_matrix",
    "coriolis_torque", "export", "find_base_parameters", "friction_torque", "from_arrays", "from_dataframe", "gravity_torque",
    "identify", "inverse_dynamics", "load_robot", "mass_matrix", "parse_column_map", "parse_robot", "preprocess",
    "read_h5", "read_trajectory", "regressor", "slotine_li_regressor", "standard_parameters",
]
__version__ = "0.1.0"
