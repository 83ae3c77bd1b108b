"""Standard parameter vectors as the dynamics use them (per link, per joint), and the block length.

The checks of states and parameter vectors are in :mod:`baseparam._validation`.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_parameter_vector
from ..errors import ArgumentError
from ..model.friction import shapes_at
from ..model.parameters import ColumnLayout, khalil_to_pseudo

# Samples are processed in blocks this long: the working arrays (samples last) then stay in cache.
CHUNK = 2048


def in_blocks(f, rows, *constants, out):
    """``f(*rows, *constants, out)`` over blocks of :data:`CHUNK` samples: ``rows`` and ``out`` (arrays with
    the samples last) sliced alike, ``constants`` (e.g. the parameters) whole."""
    for s0 in range(0, out.shape[-1], CHUNK):
        sl = slice(s0, s0 + CHUNK)
        f(*(x[:, sl] for x in rows), *constants, out[..., sl])


def friction_rows(robot, qdT, shapes=None, friction=True):
    """Friction shapes, joints first (n_dof, S): given (samples first), or from the joints' q̇ (n_dof, S)
    and the models."""
    if not friction:                      # the code has no friction terms: nothing reads them
        return qdT, qdT
    if shapes is None:
        return shapes_at(robot, qdT)
    sgn = np.asarray(shapes[0], dtype=float)
    stb = np.zeros_like(sgn) if shapes[1] is None else np.asarray(shapes[1], dtype=float)   # samples first, as sgn
    for name, value in (("shapes[0]", sgn), ("shapes[1]", stb)):
        if value.shape != qdT.shape[::-1]:          # the C loop would read past the end of a shorter array
            raise ArgumentError(f"{name}: expected shape {qdT.shape[::-1]} (n_samples, n_dof), got {value.shape}")
        if not np.isfinite(value).all():
            raise ArgumentError(f"{name}: NaN or inf")
    return np.ascontiguousarray(sgn.T), np.ascontiguousarray(stb.T)


def _khalil_bodies(link, parameters):
    """(J, MS, M) of bodies given by rows of 10 parameters: (m, 3, 3), (m, 3), (m,)."""
    if parameters == "pseudo":
        # Khalil = K⁻¹ pseudo; K (khalil_to_pseudo) is exact and tiny, so invert it numerically.
        K = np.array(khalil_to_pseudo(), dtype=float)
        link = link @ np.linalg.inv(K).T
    xx, xy, xz, yy, yz, zz = (link[:, i] for i in range(6))
    J = np.stack([np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)], -2)
    return J, link[:, 6:9].copy(), link[:, 9].copy()


class LinkParameters:
    """A standard parameter vector split per joint, in the Newton–Euler form (Khalil's, SI).

    Attributes
    ----------
    J : ndarray, shape (n_dof, 3, 3)
        Inertia tensor of each link about its frame origin.
    MS : ndarray, shape (n_dof, 3)
        First moments (mass × centre of mass).
    M : ndarray, shape (n_dof,)
    IA, FV, FC, FO, FS : ndarray, shape (n_dof,)
        Rotor inertia and friction (zero where the description does not declare them).
    base : tuple (J, MS, M) or None
        A floating base body's inertia about the frame-0 origin, first moments and mass.
    """

    def __init__(self, robot, p, parameters="pseudo"):
        layout = ColumnLayout(robot, parameters)
        p = check_parameter_vector(p, layout.n_standard)
        n = robot.n_dof
        self.J, self.MS, self.M = _khalil_bodies(p[layout.link_columns], parameters)   # (n_dof, 10) columns
        self.base = None
        if layout.base_columns is not None:
            J, MS, M = _khalil_bodies(p[layout.base_columns][None], parameters)
            self.base = (J[0], MS[0], M[0])
        self.IA, self.FV, self.FC, self.FO, self.FS = (np.zeros(n) for _ in range(5))
        for k, col in layout.rotor_columns.items():
            self.IA[k] = p[col]
        for (k, kind), col in layout.friction_columns.items():
            getattr(self, kind)[k] = p[col]
        self._robot = robot

    def friction(self, qd, shapes=None):
        """FV q̇ + FC c(q̇) + FO + FS s(q̇) for joint velocities ``qd`` of shape (n_dof, S).

        c and s are each joint's friction-model shapes (:mod:`baseparam.model.friction`; sign(q̇)
        by default), or ``shapes`` = (c, s) given, each (n_dof, S).
        """
        sgn, stb = shapes_at(self._robot, qd) if shapes is None else shapes
        return self.FV[:, None] * qd + self.FC[:, None] * sgn + self.FO[:, None] + self.FS[:, None] * stb


def standard_model(model, what=None):
    """A :class:`~baseparam.Model` in standard coordinates: ``model`` itself, or a base model's
    standard equivalent (the same M, C, g and friction). With ``what`` (a function's name) a base
    model is refused: the result depends on more than the base parameters."""
    if hasattr(model, "standard_equivalent"):
        if what is not None:
            raise ArgumentError(f"model: {what} depends on more than the base parameters; give a bp.Model of "
                                "standard parameters, not a base model")
        return model.standard_equivalent()
    return model


def link_parameters(model, what=None) -> LinkParameters:
    """The :class:`LinkParameters` of a model's values (computed once per model; see :func:`standard_model`
    for ``what``)."""
    model = standard_model(model, what)
    return model.memo("links", lambda: LinkParameters(model.robot, model.values(), model.parameters))
