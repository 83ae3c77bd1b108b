"""The regressor, mass-matrix and inverse-dynamics graphs as straight-line numpy code
(:func:`baseparam.dynamics.printing.numpy_source`), compiled once per robot and reused."""
from __future__ import annotations

import numpy as np

from . import regressor_graph as regressor_graph
from .printing import numpy_source
from ..model.joint_model import motion_offsets

CACHE_SIZE = 64
_CACHE: dict = {}


def regressor_function(robot, parameters, columns, kind, gravity=True, friction=True):
    """The compiled block function for a robot's regressor columns (cached by the robot's structure).

    Returns
    -------
    callable
        kind 'regressor' or 'slotine_li': ``f(q, qd, qdd, qd_ref, sgn, stb, out)`` with inputs
        (n_dof, S) (``sgn``, ``stb``: the friction shapes) and ``out`` (n_dof, n_columns, S); kind
        'mass': ``f(q, p, out)`` with ``out`` (n_dof, n_dof, S) (``columns`` ignored); kind
        'inverse_dynamics': ``f(q, qd, qdd, sgn, stb, p, out)``, τ = W[:, columns] p by customized
        Newton–Euler, ``out`` (n_dof, S). ``out`` is zero-filled by the caller.
    """
    # Keyed by Robot.signature(), not the Robot: equal robots may need different code
    # (friction value 0 vs no friction) and robots differing only in true inertias share it.
    key = (robot.signature(), parameters, tuple(int(c) for c in columns), kind, gravity, friction)
    fn = _CACHE.pop(key, None)
    if fn is None:
        fn = _build(robot, parameters, key[2], kind, gravity, friction)
    _CACHE[key] = fn                      # most recently used last
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    return fn


def _build(robot, parameters, columns, kind, gravity, friction):
    if kind == "mass":
        g, outputs = regressor_graph.build_mass(robot, parameters)
        arguments = "q, p, out"
    elif kind == "inverse_dynamics":
        g, entries = regressor_graph.build_inverse_dynamics(robot, parameters, columns)
        outputs, arguments = [((j,), i) for j, i in entries], "q, qd, qdd, sgn, stb, p, out"
    else:
        g, entries = regressor_graph.build(robot, parameters, columns, kind, gravity, friction)
        outputs, arguments = [((j, c), i) for j, c, i in entries], "q, qd, qdd, qd_ref, sgn, stb, out"
    offsets = motion_offsets(robot)
    source = numpy_source(g, outputs, offsets, arguments=arguments)
    namespace = {"cos": np.cos, "sin": np.sin, "sign": np.sign}
    exec(compile(source, f"<baseparam {kind} of {robot.name}>", "exec"), namespace)
    return namespace["evaluate"]
