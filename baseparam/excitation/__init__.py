"""Excitation trajectories: motions that make the base parameters identifiable.

``design``      :func:`design_excitation` → :class:`ExcitationDesign` (multi-start search in parallel; how it ran:
                :class:`SearchSummary`)
``fourier``     :class:`FourierSeries` (the trajectory, at rest at both ends), :class:`Samples`
``limits``      :class:`MotionLimits`, :func:`motion_limits` (description, limits file or URDF)
``criteria``    cond(W_b), D-optimality and a payload's inertia variance ('inertia'), with their gradients
                with respect to W_b
``quality``     :func:`identification_errors` (→ :class:`IdentificationErrors`): how well a trajectory
                identifies, by inverse dynamics and noise
``static_poses`` :func:`suggest_static_poses` (→ :class:`StaticPoses`): still poses for a payload's
                mass and centre of mass
``report``, ``files``, ``plots``   the JSON document, the CSV, the figure; :func:`load_excitation`
                (→ :class:`SavedExcitation`) takes the JSON back

Inside: ``_problem`` (one design as a smooth constrained problem: criterion, limits, gradients), ``_search`` (the
multi-start local search, in worker processes), ``payload`` (which of a payload's 10 parameters a motion of the last
joints identifies) and ``_payload_feasible`` (the wider-band payload design by L-BFGS), ``_defaults`` (the default
period, harmonics and time budget the library and the CLI share).
"""
from .._lazy import lazy_names

_WHERE = {
    **dict.fromkeys(("ExcitationDesign", "SearchSummary", "design_excitation"), "design"),
    **dict.fromkeys(("FourierSeries", "Samples"), "fourier"),
    **dict.fromkeys(("MotionLimits", "motion_limits"), "limits"),
    **dict.fromkeys(("IdentificationErrors", "identification_errors"), "quality"),
    **dict.fromkeys(("SavedExcitation", "load_excitation"), "files"),
    **dict.fromkeys(("StaticPoses", "suggest_static_poses"), "static_poses"),
}

__all__ = ["ExcitationDesign", "FourierSeries", "IdentificationErrors", "MotionLimits", "Samples", "SavedExcitation",
           "SearchSummary", "StaticPoses", "design_excitation", "identification_errors", "load_excitation",
           "motion_limits", "suggest_static_poses"]


__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
