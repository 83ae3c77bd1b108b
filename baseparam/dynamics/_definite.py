"""Whether a model's M(q) is positive definite where forward dynamics is asked for.

Bodies that are physical (each link's pseudo-inertia positive semidefinite: a mass ≥ 0, principal moments that
satisfy the triangle inequality; rotor inertias ≥ 0) give an M(q) that is positive semidefinite at every q, and
the articulated-body algorithm's divisions say where it is singular (q̈ not finite). Identified parameters need not
be physical (a negative mass, a base model's standard equivalent): M(q) may then be indefinite at some q, and q̈ =
M⁻¹(τ − h) comes out finite but describes no motion of any robot (the kinetic energy ½ q̇ᵀMq̇ can be negative).
Such models pay one mass matrix (the robot's C loop) and a Cholesky attempt per sample (the eigenvalues only where it
fails), and a sample where M(q) is not positive definite is refused; physical ones pay a dict lookup.
"""
from __future__ import annotations

import numpy as np

from .._numbers import within_absurd
from .._validation import ABSURD
from ..errors import ArgumentError
from ..model.urdf_update import pseudo_of
from .forward_graph import PIVOT_ROUND_OFF
from .samples import link_parameters, standard_model

# A pseudo-inertia's smallest eigenvalue above −this × its largest magnitude is round-off, not a non-physical body.
ROUND_OFF = 1e-12
# Parameter vectors of one robot whose verdict is kept (as forward.bound keeps their ForwardDynamics)
KEPT = 16


def nonphysical_body(model):
    """The first body of ``model``'s values that is not physical, as text ('link 3: mass -5 kg'), or None
    when all are (computed once per model, and kept with the robot for a few parameter vectors: a loop that
    makes a model per call, ``forward_dynamics(bp.Model(robot, p), …)``, paid a millisecond per call for it)."""
    def find():
        links = link_parameters(standard)
        bodies = [(f"link {k + 1}", links.J[k], links.MS[k], links.M[k]) for k in range(len(links.M))]
        if links.base is not None:
            bodies.insert(0, ("the base", *links.base))
        for name, J, MS, M in bodies:
            eig = np.linalg.eigvalsh(pseudo_of(J, MS, M))
            if eig[0] < -ROUND_OFF * max(float(np.abs(eig).max()), 1e-300):
                return f"{name}: mass {M:.6g} kg" if M < 0 else f"{name}: an inertia that is not physical"
        negative = np.flatnonzero(links.IA < 0)
        if negative.size:
            return f"joint {negative[0] + 1}: rotor inertia {links.IA[negative[0]]:.6g} kg·m²"
        return None
    found = model._memo.get("nonphysical")          # the common case first: a dict lookup, on every call
    if found is None:
        standard = standard_model(model)
        key = (standard.parameters, standard.values().tobytes())
        found = model.memo("nonphysical", lambda: standard.kernels.get("nonphysical", key, lambda: find() or "",
                                                                       size=KEPT))
    return found or None


def require_finite(x, what):
    """``x`` (n_samples, n_dof) or one sample (n_dof,), or an ArgumentError where it is not finite (``what`` names
    it): M(q) singular (a joint whose subtree has no inertia about its axis and no rotor inertia, e.g. massless links)
    or not positive definite (bodies that are not physical)."""
    bad = ~np.isfinite(x)
    if bad.any():
        s = "" if x.ndim == 1 else f" at sample {int(np.argmax(bad.any(axis=1)))}"
        raise ArgumentError(f"p: the joint-space inertia M(q) is singular{s}: {what} is not finite (a joint whose "
                            "links carry no inertia about its axis and no rotor inertia, or bodies that are not "
                            "physical)")
    return x


def round_off_pivots(pivots):
    """Which joints' pivots are round-off: ``pivots`` (..., 2 n_dof), each joint's D = SᵀIᴬS (+ rotor inertia) and
    its scale (:func:`~baseparam.dynamics.forward_graph.build_forward`'s ``pivots``) → bool (..., n_dof); NaN counts."""
    return ~(np.abs(pivots[..., 0::2]) >= PIVOT_ROUND_OFF * np.abs(pivots[..., 1::2]))


def require_pivots(pivots, place):
    """Refuse one sample whose articulated-body sweep met a pivot of round-off: ``pivots`` (2 n_dof,)
    (:func:`round_off_pivots`); ``place`` says where the sample is ('at this q').

    M(q) is then singular to round-off (two coaxial joints with a massless link between them), and q̈ finite: beyond
    ±1e8 for most τ (:func:`require_regular`), but for a τ in M(q)'s range (from inverse dynamics) one of infinitely
    many solutions, within the states taken, was returned as the motion."""
    tiny = round_off_pivots(pivots)
    if tiny.any():
        k = int(np.argmax(tiny))
        with np.errstate(all="ignore"):
            ratio = pivots[2 * k] / pivots[2 * k + 1]
        raise ArgumentError(f"p: the joint-space inertia M(q) is singular {place} (the articulated-body sweep's pivot "
                            f"of joint {k + 1}, {ratio:.3g} of its articulated inertia, within round-off): q̈ is "
                            "not determined (a joint whose links carry no inertia about its axis and no rotor "
                            "inertia, or bodies that are not physical)")


def require_regular(model, q, x, what, where=None):
    """``x`` (S, n_v) or one sample (n_v,), finite, solved by M(q) (q̈, or q̇ = M(q)⁻¹ p), or an ArgumentError where
    it is beyond the states the library takes (|x| > ABSURD) because M(q) is singular to round-off.

    A zero pivot of the articulated-body sweep is often not exactly 0 but round-off (two coaxial joints with a
    massless link between them: 1e-17 kg·m²), and q̈ then came out finite, 3e16 rad/s², and was returned as the
    motion (:func:`require_finite` only sees an exact zero). Only such samples pay a mass matrix and its
    eigenvalues (``q`` checked, (S, n_q) or (n_q,)): a smallest eigenvalue within round-off of 0, relative to the
    largest, is refused as a singular M(q); a positive definite one keeps its large values (small bodies, large
    torques), an indefinite one is :func:`require_definite`'s (bodies that are not physical).
    ``where(s)``: the words that place sample s in the message (default ``at sample s``)."""
    if within_absurd(x):        # the quick test of every state check; the rows are looked at only past it
        return x
    rows = np.atleast_2d(x)
    beyond = np.flatnonzero(~(np.abs(rows) <= ABSURD).all(axis=1))
    if not beyond.size:
        return x
    from .regressors import mass_matrix
    M = mass_matrix(standard_model(model), np.atleast_2d(q)[beyond])
    scale = np.abs(M).max(axis=(1, 2))
    with np.errstate(all="ignore"):
        smallest = np.linalg.eigvalsh(M)[:, 0]
    singular = ~(np.abs(smallest) > ROUND_OFF * scale)     # below: indefinite, require_definite's to name
    if singular.any():
        i = int(np.argmax(singular))
        s = int(beyond[i])
        place = f"at sample {s}" if where is None else where(s)
        raise ArgumentError(f"p: the joint-space inertia M(q) is singular {place} (smallest eigenvalue "
                            f"{smallest[i]:.3g}, within round-off of the largest, {scale[i]:.3g}): {what} came out as "
                            f"{rows[s][np.argmax(np.abs(rows[s]))]:.3g} (a joint whose links carry no inertia about "
                            "its axis and no rotor inertia, or bodies that are not physical)")
    return x


def at_this_q(s):
    """Where a single sample is, in a message."""
    return "at this q"


def require_definite(model, q, where=None, error=ArgumentError):
    """Refuse (``error``) the first sample of ``q`` (checked, (S, n_q)) where the model's M(q) is not positive
    definite, when its bodies are not all physical (module notes); nothing to do when they are.

    ``where(s)``: the words that place sample s in the message (default ``at sample s``)."""
    problem = nonphysical_body(model)
    if problem is None or not len(q):
        return
    from .regressors import mass_matrix
    M = mass_matrix(standard_model(model), q)
    scale = np.abs(M).max(axis=(1, 2))
    # M − ε·scale·1 has a Cholesky factor exactly where M's smallest eigenvalue is above ε·scale: one batched
    # attempt (a tenth of eigvalsh's time) settles the common case; the eigenvalues only find and name a failure
    if np.isfinite(scale).all():
        try:
            np.linalg.cholesky(M - (ROUND_OFF * scale)[:, None, None] * np.eye(M.shape[1]))
            return
        except np.linalg.LinAlgError:
            pass
    with np.errstate(all="ignore"):
        smallest = np.linalg.eigvalsh(M)[:, 0]
    bad = ~(smallest > ROUND_OFF * scale)
    if bad.any():
        s = int(np.argmax(bad))
        place = f"at sample {s}" if where is None else where(s)
        raise error(f"p: the joint-space inertia M(q) is not positive definite {place} (smallest eigenvalue "
                    f"{smallest[s]:.3g}): the parameters are not those of physical bodies ({problem}), and q̈ would "
                    "be the motion of no robot")
