"""Simulation: a robot's motion under torques or a controller, logged as a :class:`~baseparam.Trajectory`.

``simulate``   :func:`simulate` — RK4 at a controller rate (compiled) or :func:`scipy.integrate.solve_ivp`;
               in (q, q̇) or in Ivanov's (q, p)
``noise``      :class:`SensorNoise` — encoder resolution, Gaussian noise, motor currents through gains

It comes after identification in the pipeline: it produces the :class:`~baseparam.Trajectory` that
identification reads.
"""
from .._lazy import lazy_names

_WHERE = {"simulate": "simulate", "SensorNoise": "noise"}

__all__ = ["SensorNoise", "simulate"]

__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
