"""Dynamics of a robot with standard (or base) parameters: regressors and inverse dynamics.

``regressors``      :func:`regressor`, :func:`slotine_li_regressor`, :func:`mass_matrix`,
                    :func:`coriolis_matrix` — compiled from an expression graph once per robot
``newton_euler``    :func:`inverse_dynamics`, :func:`gravity_torque`, :func:`coriolis_torque`,
                    :func:`friction_torque` — recursive Newton–Euler

The dynamics need only the robot model; the base set (:mod:`baseparam.projection`) evaluates its
pivot columns through them.
"""
from .newton_euler import coriolis_torque, friction_torque, gravity_torque, inverse_dynamics
from .regressors import coriolis_matrix, mass_matrix, regressor, slotine_li_regressor

__all__ = ["coriolis_matrix", "coriolis_torque", "friction_torque", "gravity_torque", "inverse_dynamics",
           "mass_matrix", "regressor", "slotine_li_regressor"]
