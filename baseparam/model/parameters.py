"""Names and units of the standard (elementary) parameters, and the two parameterizations.

``pseudo`` (the paper's): per link XX YY ZZ XY XZ YZ SX SY SZ M — entries of the pseudo-inertia
matrix H = ∫ r̄ r̄ᵀ dm in the link frame (XX = ∫x² dm is a second moment).
``khalil`` (SYMORO): per link XX XY XZ YY YZ ZZ MX MY MZ M — the inertia tensor about the link-frame
origin (XX = ∫(y²+z²) dm, XY = −∫xy dm), first moments and mass.
Then, per joint where declared: IA (rotor inertia), FV, FC, FO (viscous, Coulomb, offset friction).
A floating base's body comes first, as link 0 (XX0 … M0, in frame 0).
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from .._validation import check_option
from ..errors import RobotDescriptionError
from .robot import FRICTION_KINDS, require_robot

PARAMETERIZATIONS = ("pseudo", "khalil")
PSEUDO_NAMES = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")
KHALIL_NAMES = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
LINK_NAMES = {"pseudo": PSEUDO_NAMES, "khalil": KHALIL_NAMES}
# Power of length in each parameter's unit (kg·m^e); sets how regroupings change with units.
LENGTH_POWER = {"XX": 2, "YY": 2, "ZZ": 2, "XY": 2, "XZ": 2, "YZ": 2,
                "SX": 1, "SY": 1, "SZ": 1, "MX": 1, "MY": 1, "MZ": 1, "M": 0, "IA": 2}


def check_parameterization(parameters: str) -> str:
    """``parameters`` when it names a parameterization ('pseudo' or 'khalil'), else an ArgumentError."""
    return check_option(parameters, "parameters", PARAMETERIZATIONS, expected=f"one of {PARAMETERIZATIONS!r}")


def khalil_to_pseudo() -> list:
    """Exact 10×10 map K with p_pseudo = K @ p_khalil for one link (list of lists of Fraction).

    From I = tr(Σ)·1 − Σ with Σ the second-moment matrix: Σxx = (−Ixx + Iyy + Izz)/2, Σxy = −Ixy.
    """
    h = Fraction(1, 2)
    K = [[Fraction(0)] * 10 for _ in range(10)]
    kx = {n: i for i, n in enumerate(KHALIL_NAMES)}
    K[0][kx["XX"]], K[0][kx["YY"]], K[0][kx["ZZ"]] = -h, h, h      # Σxx
    K[1][kx["XX"]], K[1][kx["YY"]], K[1][kx["ZZ"]] = h, -h, h      # Σyy
    K[2][kx["XX"]], K[2][kx["YY"]], K[2][kx["ZZ"]] = h, h, -h      # Σzz
    K[3][kx["XY"]] = K[4][kx["XZ"]] = K[5][kx["YZ"]] = Fraction(-1)
    K[6][kx["MX"]] = K[7][kx["MY"]] = K[8][kx["MZ"]] = K[9][kx["M"]] = Fraction(1)
    return K


class ColumnLayout:
    """Column order of Z for a robot: per joint its 10 link parameters, then IA, FV, FC, FO, FS if declared;
    a floating base's 10 body parameters (link 0) before them.

    Attributes
    ----------
    names : list of str
        Standard parameter names in column order (link numbers from 1).
    link_columns : ndarray, shape (n_dof, 10)
        Global column of each link parameter.
    rotor_columns : dict
        joint (0-based) → column of IA.
    friction_columns : dict
        (joint, kind) → column, kind in {'FV', 'FC', 'FO'}.
    base_columns : ndarray, shape (10,), or None
        The floating base body's parameters (names ending in 0); None for a fixed base.
    length_power : ndarray, shape (n_standard,)
    """

    def __init__(self, robot, parameters: str = "pseudo"):
        require_robot(robot)
        self.parameters = check_parameterization(parameters)
        names, link_cols, rotor, friction, power = [], [], {}, {}, []
        self.base_columns = None
        if robot.is_floating:
            self.base_columns = np.arange(10, dtype=np.int64)
            names += [f"{n}0" for n in LINK_NAMES[parameters]]
            power += [LENGTH_POWER[n] for n in LINK_NAMES[parameters]]
        for k, joint in enumerate(robot.joints):
            link_cols.append(list(range(len(names), len(names) + 10)))
            names += [f"{n}{k + 1}" for n in LINK_NAMES[parameters]]
            power += [LENGTH_POWER[n] for n in LINK_NAMES[parameters]]
            if joint.has_rotor_inertia:
                rotor[k] = len(names)
                names.append(f"IA{k + 1}")
                power.append(2 if joint.is_revolute else 0)  # a reflected mass on a prismatic joint
            for kind in joint.friction_terms:
                friction[(k, kind)] = len(names)
                names.append(f"{kind}{k + 1}")
                power.append(0)  # friction appears alone: its unit never mixes with lengths
        self.names = names
        self.link_columns = np.array(link_cols, dtype=np.int64)
        self.rotor_columns = rotor
        self.friction_columns = friction
        self.length_power = np.array(power, dtype=np.int64)

    @property
    def n_standard(self) -> int:
        return len(self.names)

    def pseudo_to_parameterization(self):
        """Exact block-diagonal map C (n_standard × n_standard, Fractions) with Z_param = Z_pseudo @ C."""
        n = self.n_standard
        C = [[Fraction(int(r == c)) for c in range(n)] for r in range(n)]
        if self.parameters == "khalil":
            K = khalil_to_pseudo()
            for cols in self.body_blocks():
                for a, b in itertools.product(range(10), repeat=2):
                    C[cols[a]][cols[b]] = K[a][b]
        return C

    def body_blocks(self):
        """The columns of each body's 10 parameters (the links', then a floating base's), on which
        :meth:`pseudo_to_parameterization` is K, shape (n_bodies, 10)."""
        blocks = list(self.link_columns) + ([] if self.base_columns is None else [self.base_columns])
        return np.array(blocks, dtype=np.int64).reshape(-1, 10)


def point_inertia(mass, com) -> np.ndarray:
    """m (|c|² 1 − c cᵀ): the inertia of a point mass at `com` (3,) about the origin, the parallel-axis term
    between a body's inertia about its centre of mass and about the origin, shape (3, 3)."""
    return mass * (com @ com * np.eye(3) - np.outer(com, com))


def moved_body(com, inertia, T) -> tuple:
    """A body's centre of mass (3,) and inertia about it (3, 3), given in a frame placed at T (4×4) in
    another frame, expressed in that frame (R·c + p, R·I·Rᵀ)."""
    R = T[:3, :3]
    return R @ np.asarray(com, dtype=float) + T[:3, 3], R @ np.asarray(inertia, dtype=float) @ R.T


def body_parameters(body, parameters: str = "pseudo") -> np.ndarray:
    """The 10 parameters of a rigid body (an :class:`~baseparam.model.robot.Inertia`) in its frame, SI.

    Returns
    -------
    ndarray, shape (10,)
        Khalil's XX XY XZ YY YZ ZZ MX MY MZ M or the pseudo XX YY ZZ XY XZ YZ SX SY SZ M.
    """
    m, c = float(body.mass), np.asarray(body.com, dtype=float)
    J = np.asarray(body.inertia, dtype=float) + point_inertia(m, c)  # about the origin
    link = np.array([J[0, 0], J[0, 1], J[0, 2], J[1, 1], J[1, 2], J[2, 2], *(m * c), m])   # Khalil's
    return link if parameters == "khalil" else np.array(khalil_to_pseudo(), dtype=float) @ link


def standard_parameters(robot, parameters: str = "pseudo") -> np.ndarray:
    """The standard parameter vector of a robot whose description gives its true values.

    Link parameters come from each joint's ``inertia`` (mass, centre of mass and inertia about the
    centre of mass, link-frame axes), a floating base's from ``base_inertia``; IA and FV/FC/FO from
    numeric ``rotor_inertia`` and ``friction`` entries. These true values are always SI (kg, m, kg·m²,
    N·m·s/rad, N·m), even in a description whose DH table is in mm. Use it to simulate a described robot with
    :func:`inverse_dynamics`.

    Returns
    -------
    ndarray, shape (n_standard,)
        In the column order of ``ColumnLayout(robot, parameters)``, SI.

    Raises
    ------
    RobotDescriptionError
        When a joint lacks the value of a column its description declares.
    """
    return _described_values(robot, parameters, _refuse)


def described_parameters(robot, parameters: str = "pseudo") -> np.ndarray:
    """:func:`standard_parameters` with 0 where the description declares a column without its value (a body not
    given, ``rotor_inertia: true``, ``friction: [true, …]``): what is known of a robot, as a prediction that leaves
    the unknown terms out (payload identification subtracts it; an unloaded log cancels what it leaves out).

    Returns
    -------
    ndarray, shape (n_standard,)
        In the column order of ``ColumnLayout(robot, parameters)``, SI.
    """
    return _described_values(robot, parameters, lambda message: None)


def _refuse(message):
    raise RobotDescriptionError(message)


def shaped_friction_terms(robot, p, parameters="pseudo"):
    """The Coulomb (FC) and Stribeck (FS) terms to which ``p`` gives a value other than 0, with their joints' shapes:
    the friction that depends on q̇ other than linearly (what a low-pass changes, what jumps at q̇ = 0 when its shape
    is sign(q̇)). One reading for the payload fit's prediction (any such term) and the simulation's refusal of an
    implicit method (the first of shape sign).

    Parameters
    ----------
    robot : Robot
    p : sequence, shape (n_standard,)
        In the columns of ``ColumnLayout(robot, parameters)``.
    parameters : {'pseudo', 'khalil'}

    Returns
    -------
    list of (int, str, FrictionModel or None)
        (joint index, 0-based; 'FC' or 'FS'; the joint's friction model, None for sign(q̇)), joint by joint, FC
        before FS.
    """
    columns = ColumnLayout(robot, parameters).friction_columns
    return [(k, kind, joint.friction_model) for k, joint in enumerate(robot.joints) for kind in ("FC", "FS")
            if (k, kind) in columns and p[columns[(k, kind)]] != 0]


def _described_values(robot, parameters, missing):
    """The description's values in the columns of ``ColumnLayout(robot, parameters)``; ``missing(message)`` is called
    for each value declared but not given (which it may raise), and the value left 0."""
    require_robot(robot)
    layout = ColumnLayout(robot, parameters)
    p = np.zeros(layout.n_standard)
    if layout.base_columns is not None:
        if robot.base_inertia is None:
            missing("base_inertia: needed for the standard parameters of a floating base, not given")
        else:
            p[layout.base_columns] = body_parameters(robot.base_inertia, parameters)
    for k, joint in enumerate(robot.joints):
        if joint.inertia is None:
            missing(f"joints[{k + 1}].inertia: needed for the standard parameters, not given")
        else:
            p[layout.link_columns[k]] = body_parameters(joint.inertia, parameters)
        if k in layout.rotor_columns:
            if isinstance(joint.rotor_inertia, bool):
                missing(f"joints[{k + 1}].rotor_inertia: declared without a value")
            else:
                p[layout.rotor_columns[k]] = joint.rotor_inertia
        for kind, value in zip(FRICTION_KINDS, joint.friction):
            if (k, kind) in layout.friction_columns:
                if isinstance(value, bool):
                    missing(f"joints[{k + 1}].friction: {kind} declared without a value")
                else:
                    p[layout.friction_columns[(k, kind)]] = value
        if (k, "FS") in layout.friction_columns:
            value = joint.friction_model.stribeck_friction
            if value is None:
                missing(f"joints[{k + 1}].friction_model.stribeck_friction: the Stribeck term is declared without "
                        "a value")
            else:
                p[layout.friction_columns[(k, "FS")]] = value
    return p
