"""Checks and conversions of the user-facing arrays of the dynamics layer (states and parameters)."""
from __future__ import annotations

import numpy as np

from .._numbers import real_array
from ..errors import ArgumentError
from ..model.friction import friction_shapes
from ..model.parameters import ColumnLayout, khalil_to_pseudo

# Samples are processed in blocks this long: the working arrays (samples last) then stay in cache.
CHUNK = 2048


# A joint position, velocity or acceleration beyond this (rad, m, per s, per s²) is a unit or data
# error, and would overflow the dynamics' products.
ABSURD = 1e8


def _numbers(name, x):
    """x as a float ndarray, or an ArgumentError (a ValueError) naming the argument."""
    return real_array(name, x, ArgumentError)


def as_samples(name, x, n_dof):
    """A state array as ``(n_samples, n_dof)`` float; also says whether the caller gave one sample.

    Parameters
    ----------
    name : str
        Argument name for error messages.
    x : array_like, shape (n_samples, n_dof) or (n_dof,)

    Returns
    -------
    array : ndarray, shape (n_samples, n_dof)
    single : bool
        True when ``x`` was one sample of shape (n_dof,).
    """
    arr = _numbers(name, x)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n_dof:
        raise ArgumentError(f"{name}: expected shape (n_samples, {n_dof}) or ({n_dof},), got {np.shape(x)}")
    bad = ~(np.abs(arr) <= ABSURD)          # NaN compares False
    if bad.any():
        s, j = np.argwhere(bad)[0]
        what = "non-finite value" if not np.isfinite(arr[s, j]) else f"absurd value (|x| > {ABSURD:g})"
        raise ArgumentError(f"{name}: {what} {arr[s, j]} at sample {s}, joint {j + 1}")
    return arr, single


def states(n_dof, **arrays):
    """Check several state arrays together (same number of samples).

    Returns
    -------
    list of ndarray, each (n_samples, n_dof), in the keyword order, and the ``single`` flag.
    """
    return _together(arrays, lambda name: n_dof)


def _together(arrays, width):
    """:func:`as_samples` of each array (``width(name)`` columns), and one number of samples for all."""
    out, singles = [], []
    for name, x in arrays.items():
        arr, single = as_samples(name, x, width(name))
        out.append(arr)
        singles.append(single)
    counts = {a.shape[0] for a in out}
    if len(counts) > 1:
        sizes = ", ".join(f"{n}: {a.shape[0]}" for n, a in zip(arrays, out))
        raise ArgumentError(f"state arrays have different numbers of samples ({sizes})")
    return out, all(singles)


def robot_states(robot, **arrays):
    """Check a robot's state arrays together: ``q`` has ``robot.n_q`` columns, every other one
    (``qd``, ``qdd``, ``tau``, …) ``robot.n_v``; the same number of samples.

    For a floating base the quaternion in ``q[:, 3:7]`` is normalized (a copy); one whose norm is
    not within 1e-3 of 1 is refused (wrong order or units, not round-off).

    Returns
    -------
    list of ndarray, in the keyword order, and the ``single`` flag (as :func:`states`).
    """
    out, single = _together(arrays, lambda name: robot.n_q if name == "q" else robot.n_v)
    if robot.is_floating and "q" in arrays:
        k = list(arrays).index("q")
        out[k] = unit_quaternions(out[k])
    return out, single


QUATERNION_SLACK = 1e-3


def unit_quaternions(q):
    """``q`` (n_samples, 7 + n_dof) with its base quaternions (columns 3:7) normalized, a copy."""
    norm = np.sqrt((q[:, 3:7] ** 2).sum(axis=1))
    bad = ~(np.abs(norm - 1.0) <= QUATERNION_SLACK)
    if bad.any():
        s = int(np.argmax(bad))
        raise ArgumentError(f"q: the base quaternion (columns 4-7: x, y, z, w) at sample {s} has norm {norm[s]:.6g}; "
                            "expected a unit quaternion")
    q = q.copy()
    q[:, 3:7] /= norm[:, None]
    return q


def as_parameters(p, n, what="p", sets=False):
    """A parameter vector of length n as float; with ``sets``, also (n, m): m parameter sets."""
    arr = _numbers(what, p)
    if arr.shape != (n,) and not (sets and arr.ndim == 2 and arr.shape[0] == n):
        raise ArgumentError(f"{what}: expected shape ({n},){f' or ({n}, m)' if sets else ''}, got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ArgumentError(f"{what}: contains NaN or inf")
    return arr


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
        p = as_parameters(p, layout.n_standard)
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
        sgn, stb = friction_shapes(self._robot, qd) if shapes is None else shapes
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
