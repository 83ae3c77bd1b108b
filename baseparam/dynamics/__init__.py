"""Dynamics of a robot with standard (or base) parameters: regressors and inverse dynamics.

``regressors``      :func:`regressor`, :func:`slotine_li_regressor`, :func:`mass_matrix`,
                    :func:`coriolis_matrix` — compiled from an expression graph once per robot
``newton_euler``    :func:`inverse_dynamics`, :func:`gravity_torque`, :func:`coriolis_torque`,
                    :func:`friction_torque`, :func:`reaction_wrenches` — recursive Newton–Euler
                    (the regressor graph's, every parameter an input)
``forward``         :func:`forward_dynamics`, :class:`ForwardDynamics` — the articulated-body
                    algorithm (``forward_graph``), as numpy over samples, C or straight-line Python
``bound_regressor`` :class:`Regressor` — :func:`regressor` of one sample at a time, bound once
``momenta``         Ivanov's equations in Poisson impulses: :func:`generalized_momenta`,
                    :func:`velocities_from_momenta` (sweep or block LTDL), :func:`momenta_rate`;
                    :func:`momentum`, :func:`kinetic_energy`, :func:`potential_energy` (on ``tree``,
                    the explicit 6×6 bodies; p = M q̇ by Newton–Euler)
``contacts``        :class:`Contact` (a frame fixed on a link), :func:`contact_jacobian`,
                    :func:`contact_forces` (Σ J_cᵀ w_c, the generalized force of contact wrenches)

Spatial vectors are angular first inside, ``[ω; v]`` and ``[n; f]``; the public floating-base and
wrench arrays are linear first as documented, converted by :func:`floating.public_layout`.

Every function takes a :class:`~baseparam.Model` (the robot, its parameterization and ``p``) or a
:class:`~baseparam.BaseModel` (``base.model(p_base)``) and the state; the older ``f(robot, p, …,
parameters=…)`` calls still work, with a DeprecationWarning (:func:`baseparam.model.value.takes_model`).
Compiled code is kept with the robot object (:mod:`baseparam.model._kernels`), shared by its models.

The dynamics need only the robot model; the base set (:mod:`baseparam.projection`) evaluates its
pivot columns through them.

Inside, the modules behind those functions, from the graph to the code that runs:

``expressions``         the expression graph every algorithm is written on (hash-consed, constants folded)
``regressor_graph``     Newton–Euler regressors and mass matrix on the graph; ``spatial_graph`` its 6×6
                        algebra for ``forward_graph`` (the ABA); ``momenta_graph`` Ivanov's rate of the
                        impulses; ``regressor_adjoint`` gradients by reverse mode
``printing``            one printer of a graph, its backends numpy and C (run time), C and Python (export)
``_compiled``           the numpy code compiled once per robot; ``_native`` C kernels compiled into a
                        cache and called by ctypes (``_forward_c`` the forward dynamics' source,
                        ``_native_rule`` when the C loop over samples serves a call)
``tree``                the explicit 6×6 bodies of Ivanov's equations in floating point (``momenta``)
``samples``             parameter vectors per link and joint, the block length; ``floating`` a floating
                        base's pose and twist in the state arrays
``_definite``           whether M(q) is positive definite where forward dynamics is asked for;
                        ``_peaks`` the memory each state function needs per sample (its size check)
``payload_gravity``     a payload's gravity columns at rest (static payload identification, its poses)
"""
from .contacts import Contact, contact_forces, contact_jacobian
from .bound_regressor import Regressor
from .forward import ForwardDynamics, forward_dynamics
from .momenta import (generalized_momenta, kinetic_energy, momenta_rate, momentum, potential_energy,
                      velocities_from_momenta)
from .newton_euler import coriolis_torque, friction_torque, gravity_torque, inverse_dynamics, reaction_wrenches
from .regressors import coriolis_matrix, mass_matrix, regressor, slotine_li_regressor

__all__ = ["ForwardDynamics", "coriolis_matrix", "coriolis_torque", "forward_dynamics", "friction_torque",
           "generalized_momenta", "gravity_torque", "inverse_dynamics", "kinetic_energy", "mass_matrix",
           "momenta_rate", "momentum", "potential_energy", "reaction_wrenches", "regressor", "slotine_li_regressor",
           "velocities_from_momenta"]
__all__ += ["Contact", "contact_forces", "contact_jacobian"]
__all__ += ["Regressor"]
