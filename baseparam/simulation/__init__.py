"""Simulation: a robot's motion under torques or a controller, logged as a :class:`~baseparam.Trajectory`.

``integrate``  :func:`simulate` — RK4 at a controller rate (compiled) or :func:`scipy.integrate.solve_ivp`;
               in (q, q̇) or in Ivanov's (q, p)
``noise``      :class:`SensorNoise` — encoder resolution, Gaussian noise, motor currents through gains
``tracking``   :class:`Reference` (a design's series, or a smoothed log) → :func:`track` → :class:`TrackingRun`:
               the robot following it under feedforward + PD, the truth beside the sensors' log
``experiment`` :func:`simulated_identification` → :class:`FitErrors`: a simulated log identified and the
               fit scored against the truth (parameters, held-out torques); :func:`compare_motions` →
               :class:`MotionComparison`: several motions through the same sensors — the proof of a design
``floating``   floating-base experiments (→ :class:`FloatingExperiment`): :func:`stance_motion` (feet held),
               :func:`contact_experiment` (force plates), :func:`free_floating_experiment` (a space robot)

It comes after identification in the pipeline: ``experiment`` identifies the logs it produces. Its
motions are the one motion type of :mod:`baseparam.motion` (:class:`~baseparam.Trajectory`), which
it takes from there, not from identification.
"""
from .._lazy import lazy_names

_WHERE = {"simulate": "integrate", "SensorNoise": "noise", "Reference": "tracking", "TrackingRun": "tracking",
          "track": "tracking", "FitErrors": "experiment", "simulated_identification": "experiment",
          "MotionComparison": "experiment", "compare_motions": "experiment",
          **dict.fromkeys(("FloatingExperiment", "contact_experiment", "free_floating_experiment", "stance_motion"),
                          "floating")}

__all__ = ["FitErrors", "MotionComparison", "Reference", "SensorNoise", "TrackingRun", "compare_motions", "simulate",
           "simulated_identification", "track"]
__all__ += ["FloatingExperiment", "contact_experiment", "free_floating_experiment", "stance_motion"]

__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
