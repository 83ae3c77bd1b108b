"""A floating base in the projection method: the base's pose as the basis functions of a 6-DOF joint.

The engine sees a floating robot as a fixed-base chain: six virtual joints (slides along the world's
x, y, z, then turns about z, y, x), massless, the last of which carries the base body (link 0), then the
real joints below it. The chain's coordinates are a chart of the free-flyer's configuration space (the
free-flyer velocities are an invertible transform of the chain's, away from the chart's singularities,
and the dynamics are analytic), so the row space of the floating-base regressor is the chain's: ranks and
regroupings are exact. The virtual links have no parameters, so their columns are dropped from the rows
(a column restriction of Z keeps its row space restricted, and its Gram matrix restricted).

Which parameters the six base equations alone see (docs/method.md): with L = Σ_r (Z p)_r φ_r, the
Euler–Lagrange expressions of the virtual coordinates vanish for p iff M_vj ≡ 0 for every virtual v
(the q̈ terms), and then iff L does not depend on the virtual coordinates at all; that is, iff p is in the
null space of the rows of Z whose label has a virtual i or j or a non-constant virtual basis function.
Those rows come from everything the recursion carries out of the virtual joints except the constant
potential term and the rows started at the real joints (rotor rows included), so a second pass of the
recursion without those gives their row space.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..model.joint_model import Factor, JointModel, rotation
from ._sparse import CSR

VIRTUAL = 6                     # slides along x, y, z; turns about z, y, x
VIRTUAL_COLUMNS = 10 * (VIRTUAL - 1)     # the parameters of the five massless virtual links


def virtual_models(angle_unit):
    """The six virtual joints' models (in the description's angle unit): the base's pose.

    Returns
    -------
    tuple of 6 JointModel
    """
    quarter = 90.0 if angle_unit == "deg" else math.pi / 2

    def about(kind, axis):
        motion = Factor(kind, "z", 0.0, variable=True, label="floating base")
        kind = "revolute" if kind == "rotation" else "prismatic"
        if axis == "z":
            return JointModel(kind, (), motion, ())
        # a constant turn taking z to the axis, and back after the motion (as a URDF axis)
        turn = {"x": ("y", quarter), "y": ("x", -quarter)}[axis]
        return JointModel(kind, (rotation(*turn, "floating base"),), motion,
                          (rotation(turn[0], -turn[1], "floating base"),))

    return tuple(about("translation", a) if i < 3 else about("rotation", a)
                 for i, a in enumerate(("x", "y", "z", "z", "y", "x")))


def chain_parents(parents):
    """0-based parents of the chain's joints: the virtual ones in a row, the real ones below them."""
    return [k - 1 for k in range(VIRTUAL)] + [VIRTUAL - 1 if p < 0 else p + VIRTUAL for p in parents]


class ChainLayout:
    """The engine's column layout of the chain: the five virtual links' columns first (dropped from every
    row afterwards), then exactly the floating robot's :class:`~baseparam.model.parameters.ColumnLayout`
    (the last virtual link is the base body, link 0)."""

    def __init__(self, layout):
        shift = VIRTUAL_COLUMNS
        self.parameters = layout.parameters
        self.n_standard = layout.n_standard + shift
        self.link_columns = np.vstack([np.arange(shift, dtype=np.int64).reshape(VIRTUAL - 1, 10),
                                       (layout.base_columns + shift)[None, :],
                                       layout.link_columns.reshape(-1, 10) + shift])
        self.rotor_columns = {k + VIRTUAL: c + shift for k, c in layout.rotor_columns.items()}
        self.friction_columns = {(k + VIRTUAL, kind): c + shift for (k, kind), c in layout.friction_columns.items()}


def engine_of(robot, layout):
    """What the engine runs on: (its column layout, the joints' parents, their types) — a floating base's chain
    (:class:`ChainLayout`, :func:`chain_parents`, the virtual slides and turns first), else the robot's own."""
    types = [j.type for j in robot.joints]
    if not robot.is_floating:
        return layout, list(robot.parents), types
    return ChainLayout(layout), chain_parents(robot.parents), ["prismatic"] * 3 + ["revolute"] * 3 + types


def drop_virtual(rows):
    """The rows (a :class:`CSR`, or None) without the virtual links' columns."""
    if rows is None:
        return None
    keep = rows.indices >= VIRTUAL_COLUMNS
    # the entries kept before each row's start (not np.add.reduceat at the starts: a trailing empty row's start,
    # nnz, is out of its bounds)
    indptr = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])[rows.indptr]
    return CSR(rows.data[keep], rows.indices[keep] - VIRTUAL_COLUMNS, indptr,
               (rows.shape[0], rows.shape[1] - VIRTUAL_COLUMNS))


def chain_arithmetic(arithmetic, angle_unit, force_float=False):
    """The :class:`~baseparam.projection._working_units.Arithmetic` of the chain (the virtual joints' turns are
    multiples of 90°: the decision is the robot's)."""
    plan = dataclasses.replace(arithmetic, models=virtual_models(angle_unit) + tuple(arithmetic.models))
    return dataclasses.replace(plan, obstacle=plan._obstacle(force_float))


__all__ = ["VIRTUAL", "ChainLayout", "chain_arithmetic", "chain_parents", "drop_virtual", "engine_of",
           "virtual_models"]
