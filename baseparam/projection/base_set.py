"""The base parameter set: the public result of the pipeline robot → Z → reduction."""
from __future__ import annotations

import dataclasses
import html
import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Real
from typing import Optional

import numpy as np

from .._blas import single_threaded
from .._checks import check_progress, shown
from .._numbers import is_real, real_array
from .._validation import (check_count_fields, check_field_kinds, check_field_shapes, check_finite_fields, check_flag,
                           check_flag_fields, check_index_field, check_name_fields, check_option,
                           check_parameter_vector, check_robot_states, float_fields)
from .._values import ComparedByValue
from .._warnings import deprecated_call, warn
from ..errors import AccuracyWarning, ArgumentError
from ..model.checks import SNAP_RADIANS, near_special
from ..model.parameters import ColumnLayout
from ..model.robot import Robot, require_robot
from ..model.value import BaseModel
from ._budget import refuse_if_too_large, row_space_bytes
from ._coordinates import MagnitudeStats, friction_block
from ._floating import VIRTUAL, chain_arithmetic, drop_virtual, engine_of
from ._modular import PRIMES, ModularEchelon
from ._reduction import INACCURATE, ZERO, BlockTransform, ExactGram, StreamedR
from ._row_space import base_equation_basis, row_basis
from ._working_units import EXACT_LENGTH_UNITS, EXACT_LIMIT, Arithmetic
from .report import base_document, base_index, format_regrouping, format_table


def _batch_shapes(shapes):
    """Friction shapes as (n_samples, n_dof) arrays (one sample's (n_dof,) become a row)."""
    if shapes is None:
        return None
    # a pair in a tuple, a list, an array of shape (2, n_samples, n_dof) or a generator (each is taken),
    # read no further than a third item
    pair = None
    if isinstance(shapes, (tuple, list)):
        pair = shapes
    elif isinstance(shapes, Iterator) or (isinstance(shapes, np.ndarray) and shapes.ndim != 0):
        pair = tuple(itertools.islice(shapes, 3))
    if pair is None:
        raise ArgumentError(f"shapes: expected a pair (c(q̇), s(q̇)) of arrays (n_samples, n_dof), got {shown(shapes)}")
    if len(pair) != 2:
        got = f"{len(pair) if pair is shapes or len(pair) < 3 else 'more than 2'} items"
        raise ArgumentError(f"shapes: expected a pair (c(q̇), s(q̇)) of arrays (n_samples, n_dof), got {got}")
    shapes = pair
    # values checked (finite, their shape) by friction_rows, against the states' sample count
    return tuple(None if a is None else np.atleast_2d(real_array(f"shapes[{k}]", a)) for k, a in enumerate(shapes))


_EXACT_KINDS, _FLOAT_KINDS = {Fraction, int}, {float, int}     # what find's exact and float Y_display hold


def _check_display_rows(rows, shape):
    """Refuse a hand-built base set's ``Y_display`` that is not ``shape`` (rank, n_standard) rows of finite numbers
    (Fractions or floats): its repr and ``to_dict`` read each (a str would reach them as numpy's bare "could not convert
    string to float", too few rows as a bare IndexError). O(rank × n_standard), once, at construction."""
    name = "BaseParameters.Y_display"
    if not isinstance(rows, (list, tuple)) or len(rows) != shape[0]:
        raise ArgumentError(f"{name}: expected {shape[0]} rows (a list of lists of numbers), got {shown(rows)}")
    for r, row in enumerate(rows):
        if not isinstance(row, (list, tuple)) or len(row) != shape[1]:
            raise ArgumentError(f"{name}[{r}]: expected a list of {shape[1]} numbers, got {shown(row)}")
        kinds = set(map(type, row))         # by type first: each value's ABC check would take ms for a 7-joint arm
        if kinds <= _EXACT_KINDS or (kinds <= _FLOAT_KINDS and all(map(math.isfinite, row))):
            continue
        if not all(map(is_real, row)):
            raise ArgumentError(f"{name}[{r}]: expected finite numbers (Fractions or floats), got {shown(row)}")


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class BaseParameters(ComparedByValue):
    """Base inertial parameters of a robot and their regroupings.

    Attributes
    ----------
    robot : Robot
    parameters : {'pseudo', 'khalil'}
    rank : int
    names : list of str, length rank
        Name of each base parameter: its pivot (representative) standard parameter.
    standard_names : list of str, length n_standard
    pivots : ndarray, shape (rank,)
        0-based pivot columns.
    Y : ndarray, shape (rank, n_standard)
        Regroupings in SI: p_base = Y @ p.
    unidentifiable : list of str
        Standard parameters whose column of Z is zero.
    exact : bool
        Whether rank and Y were decided in exact rational arithmetic.
    note : str
        How the arithmetic and the rank decision were made.
    Y_display : list of list (Fraction or float)
        Y in the description's length unit (as the paper prints it).
    length_power : ndarray of int, shape (n_standard,)
        Each standard parameter's power of length (:attr:`~baseparam.ColumnLayout.length_power`): Y[r, c]
        carries length^(power[pivot r] − power[c]), which rescales Y between SI and the display unit.
    accuracy : float
        Estimated relative accuracy of the float Y (0 when exact); above ~1e-12 an
        :class:`AccuracyWarning` was issued (nearly special geometry).
    seen_by_base_equations : ndarray of bool, shape (rank,), or None
        A floating base: whether the six equations of the base (the base wrench, no joint torque) alone
        determine each base parameter (its regrouping ``Y[r]`` lies in their row space, decided exactly);
        None for a fixed base.
    """

    robot: object
    parameters: str
    rank: int
    names: list
    standard_names: list
    pivots: np.ndarray
    Y: np.ndarray
    unidentifiable: list
    exact: bool
    note: str
    Y_display: list = field(repr=False)
    length_power: np.ndarray = field(repr=False)
    accuracy: float = 0.0
    seen_by_base_equations: Optional[np.ndarray] = field(default=None, repr=False)

    def __post_init__(self):
        # a base set built by hand is public (the class is exported): a NaN regrouping would come back from
        # from_standard and model() as NaN parameters; a rank, pivots or names disagreeing with Y would reach its
        # methods, repr and export as bare IndexErrors, a 1 MB note every text made of it
        check_field_kinds(self, {"robot": (Robot, "a baseparam.Robot"), "accuracy": (Real, "a number"),
                                 "note": (str, "a str")})
        object.__setattr__(self, "parameters", check_option(self.parameters, "BaseParameters.parameters",
                                                            ("pseudo", "khalil")))
        check_flag_fields(self, ("exact",))
        check_name_fields(self, ("names", "standard_names", "unidentifiable"))
        n_standard = len(self.standard_names)
        check_count_fields(self, {"rank": (len(self.names), len(self.names))})
        if len(self.unidentifiable) > n_standard:       # a few of the standard names (its summary lists them)
            raise ArgumentError(f"BaseParameters.unidentifiable: {len(self.unidentifiable)} names of "
                                f"{n_standard} standard parameters")
        check_index_field(self, "pivots", n_standard)
        float_fields(self, ("Y",))
        check_field_shapes(self, {"Y": ("rank", "n_standard"), "names": ("rank",), "pivots": ("rank",),
                                  "standard_names": ("n_standard",), "length_power": ("n_standard",),
                                  "seen_by_base_equations": ("rank",)})
        check_finite_fields(self, ("Y", "accuracy"))
        _check_display_rows(self.Y_display, self.Y.shape)

    @property
    def inaccurate(self):
        """Whether the float regroupings are less accurate than 1e-12 relative (nearly special geometry)."""
        return self.accuracy > INACCURATE * 1e-16

    def from_standard(self, p):
        """Base parameters of standard parameters (SI).

        Parameters
        ----------
        p : array_like, shape (n_standard,) or (n_standard, m)

        Returns
        -------
        ndarray, shape (rank,) or (rank, m)
        """
        return self.Y @ check_parameter_vector(p, len(self.standard_names), "p", sets=True)

    # -- dynamics in base parameters (columns of the standard regressor at the pivots: W = W_b Y) --
    def regressor(self, q, qd, qdd, *, out=None, shapes=None, workers=None):
        """Base regressor: τ = W_b @ p_base, computed for the pivot columns only (:func:`~baseparam.regressor` of
        this base set, ``q, qd, qdd``, ``out`` and ``workers`` as there).

        Parameters
        ----------
        shapes : tuple of 2 ndarray, shape (n_samples, n_dof), optional
            Values of the Coulomb and Stribeck friction shapes c(q̇), s(q̇) (default: from ``qd`` and
            each joint's friction model; identification passes them low-passed like the torque).

        Returns
        -------
        ndarray, shape (n_samples, n_v, rank) (or (n_v, rank) for one sample): a floating base's wrench
        rows first
        """
        from ..dynamics.regressors import columns_at      # here: finding a base set needs no dynamics
        return columns_at(self.robot, self.parameters, self.pivots, {"q": q, "qd": qd, "qdd": qdd}, out=out,
                          shapes=_batch_shapes(shapes), workers=workers)

    def slotine_li_regressor(self, q, qd, qd_ref, qdd_ref, *, out=None, workers=None):
        """Slotine–Li regressor in base parameters, Y @ p_base = M q̈_r + C(q, q̇) q̇_r + g + friction(q̇):
        :func:`~baseparam.slotine_li_regressor` of this base set (its arguments), shape (n_samples, n_dof, rank)
        (or (n_dof, rank))."""
        from ..dynamics.regressors import columns_at
        return columns_at(self.robot, self.parameters, self.pivots,
                          {"q": q, "qd": qd, "qd_ref": qd_ref, "qdd_ref": qdd_ref}, out=out, workers=workers)

    def inverse_dynamics(self, p_base, q, qd, qdd, *, shapes=None):
        """Deprecated: ``bp.inverse_dynamics(base.model(p_base), q, qd, qdd)`` (the same numbers); with
        ``shapes``, ``base.regressor(q, qd, qdd, shapes=shapes) @ p_base``.

        Joint torques from base parameters, τ = W_b(q, q̇, q̈) @ p_base, by customized Newton–Euler in base
        parameters. ``q, qd, qdd`` as in :meth:`regressor` (``shapes`` too), ``p_base`` of shape (rank,);
        returns an ndarray of shape (n_samples, n_v) (or (n_v,)).
        """
        if shapes is None:
            deprecated_call("BaseParameters.inverse_dynamics(p_base, q, qd, qdd)",
                            "bp.inverse_dynamics(base.model(p_base), q, qd, qdd)")
        else:
            deprecated_call("BaseParameters.inverse_dynamics(p_base, q, qd, qdd, shapes=...)",
                            "base.regressor(q, qd, qdd, shapes=shapes) @ p_base")
        return self._inverse_dynamics(p_base, q, qd, qdd, shapes=shapes)

    def _inverse_dynamics(self, p_base, q, qd, qdd, *, shapes=None):
        """Joint torques from base parameters: τ = W_b(q, q̇, q̈) @ p_base (what ``bp.inverse_dynamics`` of a
        :class:`~baseparam.BaseModel` returns; ``shapes`` for the estimators' low-passed friction shapes).

        Evaluated by customized Newton–Euler in base parameters (O(n) per torque; the graph that
        ``baseparam export`` writes as ``inverse_dynamics``), not through the regressor.

        ``q, qd, qdd`` as in :meth:`regressor` (``shapes`` too), ``p_base`` of shape (rank,); returns an
        ndarray of shape (n_samples, n_v) (or (n_v,)): n_v = n_dof, or 6 + n_dof for a floating base
        (its wrench [f, n] first, as :func:`~baseparam.inverse_dynamics`).
        """
        p_base = check_parameter_vector(p_base, self.rank, "p_base")
        (q, qd, qdd), single = check_robot_states(self.robot, q=q, qd=qd, qdd=qdd)  # a floating base: n_q, n_v
        from ..dynamics.regressors import newton_euler_base
        tau = newton_euler_base(self.robot, self.parameters, self.pivots, p_base, q, qd, qdd,
                                shapes=_batch_shapes(shapes))
        return tau[0] if single else tau

    def standard_preimage(self, p_base):
        """A standard parameter vector p̃ with ``Y p̃ = p_base``: p_base at the pivot columns, 0 elsewhere.

        Not the robot's standard parameters, but a vector with the same dynamics (they depend on p only
        through Y p): the p̃ the base-parameter inverse dynamics and the exported code use. Its "links"
        are generally not physical bodies.

        Parameters
        ----------
        p_base : array_like, shape (rank,)

        Returns
        -------
        ndarray, shape (n_standard,)
        """
        p_base = check_parameter_vector(p_base, self.rank, "p_base")
        out = np.zeros(len(self.standard_names))
        out[self.pivots] = p_base
        return out

    def forward_dynamics(self, p_base, q, qd, tau):
        """Deprecated: ``bp.forward_dynamics(base.model(p_base), q, qd, tau)``, which it returns.

        Joint accelerations from base parameters (``q, qd, tau`` as there; ``p_base`` of shape (rank,)),
        shape (n_samples, n_dof) or (n_dof,): the articulated-body algorithm on :meth:`standard_preimage`.
        """
        deprecated_call("BaseParameters.forward_dynamics(p_base, q, qd, tau)",
                        "bp.forward_dynamics(base.model(p_base), q, qd, tau)")
        from ..dynamics.forward import forward_dynamics

        return forward_dynamics(BaseModel._of(self, p_base), q, qd, tau)

    def model(self, p_base=None) -> BaseModel:
        """This base set with base-parameter values: a :class:`~baseparam.BaseModel`, which the dynamics
        functions take like a :class:`~baseparam.Model` (``bp.inverse_dynamics(base.model(p_base), q, qd,
        qdd)``; ``bp.regressor`` of it is the base regressor).

        Parameters
        ----------
        p_base : array_like, shape (rank,), optional
            Base parameters (SI; e.g. a fit's ``coef_``). Default: those of the description's true
            inertias (``from_standard(standard_parameters(robot, parameters))``); none when it has none.
        """
        return BaseModel(self, p_base)

    def terms(self, r):
        """Regrouping of base parameter r (0 … rank − 1, or negative from the end) as {standard name:
        coefficient} (display units)."""
        r = base_index(r, self.rank)
        return {self.standard_names[c]: v for c, v in enumerate(self.Y_display[r]) if v != 0}

    def to_dict(self):
        """The ``find --json`` document (docs/formats.md, section "Base parameters")."""
        doc = base_document(self, lambda r: {k: float(v) for k, v in self.terms(r).items()})
        if self.seen_by_base_equations is not None:     # a floating base only
            for entry, seen in zip(doc["base"], self.seen_by_base_equations):
                entry["seen_by_base_equations"] = bool(seen)
            doc["n_seen_by_base_equations"] = int(np.count_nonzero(self.seen_by_base_equations))
        return doc

    def summary(self) -> str:
        """The text ``baseparam find`` prints: the robot, rank and arithmetic, then each base parameter with its
        regrouping (display units), the unidentifiable parameters and, for a floating base, which ones the base
        equations see."""
        return format_table(self)

    def __repr__(self):
        return (f"BaseParameters(robot={self.robot.name!r}, parameters={self.parameters!r}, rank={self.rank}, "
                f"n_standard={len(self.standard_names)}, exact={self.exact})")

    def _repr_html_(self):
        rows = "".join(f"<tr><td>{r + 1}</td><td><code>{html.escape(format_regrouping(self, r))}</code></td></tr>"
                       for r in range(self.rank))
        return (f"<p><b>{html.escape(self.robot.name)}</b>: {self.rank} base parameters "
                f"({html.escape(self.note)})</p><table>{rows}</table>")


def _rescale(Y, pivots, power, factor):
    """Y[r, c] · factor^(power[pivot r] − power[c]): regroupings carry length^(e_pivot − e_c)."""
    if isinstance(Y, np.ndarray) and Y.dtype == float and isinstance(factor, float):
        # Each entry as the loop below makes it (the same factor ** e, one rounded product), in arrays
        exponents = power[pivots][:, None] - power[None, :]
        levels = np.unique(exponents)
        scale = np.asarray([factor ** int(e) for e in levels])[np.searchsorted(levels, exponents)]
        return [list(row) for row in np.where(Y != 0, Y * scale, Y)]
    # (`if v`: a number's truth is v != 0, without Fraction's slower comparison; most of an exact Y is
    # the one ZERO, told by identity before that.) Each factor ** e once: a few exponents, a Fraction's
    # power costing as much as the product
    powers, scales = power.tolist(), {}

    def scale(e):
        if e not in scales:
            scales[e] = factor ** e
        return scales[e]
    return [[v if v is ZERO or not v else v * scale(powers[pivots[r]] - powers[c]) for c, v in enumerate(row)]
            for r, row in enumerate(Y)]


def find_base_parameters(robot, parameters: str = "pseudo", *,
                         progress: Optional[Callable] = None, force_float: bool = False,
                         max_memory=None) -> BaseParameters:
    """Base parameters of a robot by the projection method.

    A floating base (``robot.base == 'floating'``) enters as the basis functions of a 6-DOF joint
    (:mod:`baseparam.projection._floating`): the rank is that of the 6 + n rows of the free-flyer regressor,
    the base body's parameters (link 0) come first, and ``seen_by_base_equations`` says which base
    parameters the six base equations alone determine.

    Parameters
    ----------
    robot : Robot
    parameters : {'pseudo', 'khalil'}
    progress : callable, optional
        Called as ``progress(done, total)`` as the work goes (a joint of the recursion, the reduction).
    force_float : bool
        Use the float path (with its exact modular companion) even where exact integer arithmetic
        is possible — for cross-checks.
    max_memory : int or str, optional
        Memory the computation may use, in bytes or as a size (``"4G"``, ``"512M"``); default: 80 % of
        what the machine has available (or of the address space ``ulimit -v`` leaves). A robot that would
        need more is refused before the work starts (``ResourceLimitError``, with the figure it would need).

    Returns
    -------
    BaseParameters
    """
    require_robot(robot)
    check_flag(force_float, "force_float")
    check_progress(progress)
    layout = check_size(robot, parameters, max_memory)
    arithmetic = Arithmetic.decide(robot, force_float=force_float)      # the one decision
    if robot.is_floating:
        return _find_floating(robot, layout, arithmetic, progress, force_float)
    units, reduction = run(arithmetic, layout, robot.parents, progress)
    return assemble(robot, layout, units, reduction)


def check_size(robot, parameters, max_memory=None):
    """The robot's column layout, once the robot is known to fit in the memory allowed (a floating base's
    chain, :mod:`._floating`, runs twice: the second time for the base equations' rows)."""
    layout = ColumnLayout(robot, parameters)
    engine, parents, types = engine_of(robot, layout)
    refuse_if_too_large(robot.name, (1 + robot.is_floating) * row_space_bytes(engine, parents, types), max_memory)
    return layout


def _find_floating(robot, layout, arithmetic, progress, force_float):
    """find_base_parameters of a floating robot: the chain of :mod:`._floating`, then the base equations'
    row space in the same working units."""
    chain = chain_arithmetic(arithmetic, robot.angle_unit, force_float)
    engine, parents, _ = engine_of(robot, layout)
    units, reduction = run(chain, layout, parents, progress, engine)
    result = assemble(robot, layout, units, reduction)
    with single_threaded():
        basis = base_equation_basis(units, engine, parents, VIRTUAL)
        rows = drop_virtual(basis.rows)
        if _rank_reaches(rows, units, reduction.rank):     # a part of the row space, as large: all of it
            seen = np.ones(reduction.rank, dtype=bool)
        else:
            seen = _seen(reduction, _echelon(layout, units, [(drop_virtual(basis.moments), rows)]))
    return dataclasses.replace(result, seen_by_base_equations=seen)


def _rank_reaches(rows, units, target):
    """Whether exact rows of Z have rank ``target`` (an upper bound: they are part of a row space of that
    rank), decided exactly from below: the rank of a random combination of them modulo a prime is at most
    their rank modulo p, which is at most their rank over Q (also that of Z̃ = Z @ C, Khalil: C is
    invertible). False means "not shown", and the caller reduces them in full.

    The combination (``target`` + 8 rows, coefficients 0 … 15, a fixed seed) makes the modular rank a
    ``target`` × n_standard problem (FLINT's ``nmod_mat``) instead of one over every row."""
    import flint

    p = units.modulus if units.modulus is not None else PRIMES[0]
    rng = np.random.default_rng(0)
    combined = np.zeros((target + 8, rows.shape[1]))
    for dense in rows.row_chunks():    # sums of 20 000 products below 2**23 · 15: below 2**53, exact
        dense = np.mod(dense, p)
        combined = np.fmod(combined + rng.integers(0, 16, (target + 8, dense.shape[0])).astype(float) @ dense, p)
    entries = combined.astype(np.int64).ravel().tolist()
    try:        # through fmpz_mat: python-flint converts an nmod_mat's entries one nmod object at a time
        matrix = flint.nmod_mat(flint.fmpz_mat(combined.shape[0], combined.shape[1], entries), p)
    except TypeError:       # a python-flint without that constructor
        matrix = flint.nmod_mat(combined.shape[0], combined.shape[1], entries, p)
    return matrix.rank() == target


def _seen(full, part):
    """Whether each base parameter (row r of the full echelon form Y) lies in the row space of a part of Z
    (its echelon form Y_p): the pivots of a subspace are among the space's (a vector of the part starting at
    column c is one of the whole), and Y[r] is in the part iff the part has a row Y_p[s] with the pivot of
    Y[r], equal to it — i.e. zero at the pivots of the whole that the part lacks (exact zeros in both
    arithmetics: the float Y's zero pattern is the modular echelon form's)."""
    where = {int(c): s for s, c in enumerate(part.pivots)}
    missing = [int(c) for c in full.pivots if int(c) not in where]
    out = np.zeros(full.rank, dtype=bool)
    for r, c in enumerate(full.pivots):
        s = where.get(int(c))
        out[r] = s is not None and all(part.Y[s][m] == 0 for m in missing)
    return out


def assemble(robot, layout, units, reduction) -> BaseParameters:
    """The :class:`BaseParameters` of a reduction made in the given working units (SI and display Y)."""
    pivots = reduction.pivots
    power = layout.length_power
    if reduction.exact:
        unit = units.length_unit
        Y_si = np.array([[0.0 if v is ZERO or not v else float(v) for v in row]
                         for row in _rescale(reduction.Y, pivots, power, unit)]).reshape(-1, layout.n_standard)
        Y_display = _rescale(reduction.Y, pivots, power, unit / EXACT_LENGTH_UNITS[robot.length_unit])
    else:
        Y = np.asarray(reduction.Y, dtype=float)
        Y_si = np.array(_rescale(Y, pivots, power, units.length_unit)).reshape(-1, layout.n_standard)
        Y_display = _rescale(Y, pivots, power, units.length_unit / robot.length_scale)
    names = layout.names
    note = units.reason if reduction.exact else f"{units.reason}; {reduction.note}"
    accuracy = 0.0 if reduction.exact else float(reduction.accuracy)
    # Within SNAP_RADIANS (rad, or relative) of a special value — what a radian file's angle would be
    # snapped to — the structure (rank, regroupings) is that of the perturbed geometry, exact or not:
    # a 1e-9 rad twist error or a 1e-7 m/s² gravity component must not change it silently.
    close = [] if accuracy > INACCURATE * 1e-16 else _nearly_special(robot, SNAP_RADIANS)
    if close:
        note += (f" — WARNING: {close}; the rank and regroupings are those of this geometry, and can differ from "
                 "those at the special value")
    result = BaseParameters(robot, layout.parameters, reduction.rank, [names[c] for c in pivots], list(names), pivots,
                            Y_si, [names[c] for c in reduction.zero_columns], reduction.exact, note,
                            Y_display, power, accuracy)
    if result.inaccurate:
        warn(f"{robot.name}: {_nearly_special(robot)}: the rank and pivots are exact, but the regroupings "
             f"Y are accurate only to about {reduction.accuracy:.0e} (relative), and so are base-parameter "
             "torques W_b·Y·p", AccuracyWarning)
    elif close:
        warn(f"{robot.name}: {close}: the rank and regroupings are those of this geometry, and can differ "
             "from those at the special value", AccuracyWarning)
    return result


def _nearly_special(robot, limit=None) -> str:
    """What makes the geometry nearly special, named (the closest two numbers), for the warning; with
    ``limit``, only numbers closer than it to a special value ('' when there are none)."""
    suspects = near_special(robot) if limit is None else near_special(robot, limit)
    if limit is not None and not suspects:
        return ""
    if not suspects:
        return ("nearly special geometry (no single twist, length or gravity component is close to a special "
                "value: a combination of them is)")
    return "nearly special geometry: " + " and ".join(text for _, text in suspects[:2])


def run(arithmetic, layout, parents, progress=None, engine=None):
    """Run the engine in the decided arithmetic: exact integers, else float with its modular
    companion (retried with the next prime if the float residuals contradict it).

    Parameters
    ----------
    arithmetic : Arithmetic
    layout, parents
        As :func:`~baseparam.projection._row_space.row_basis` takes them.
    progress : callable, optional
        ``progress(done, total)``: a step per joint, and one for the reduction.
    engine : ChainLayout, optional
        A floating base: the recursion runs on this chain's layout (``arithmetic`` and ``parents`` are the
        chain's), its rows then read in ``layout``'s columns.

    Returns
    -------
    units : WorkingUnits
    reduction : Reduction
    """
    attempt = None
    with single_threaded():        # dense problems of a few hundred columns: threads only wait (_blas)
        for units in arithmetic.candidates():
            reduction = _reduce(layout, units, parents, progress, engine)
            if reduction is None:               # exact integers would overflow: on to floats
                continue
            attempt = units, reduction
            if reduction.residual_ok:
                return attempt
    if attempt is None:
        raise arithmetic.no_prime()
    warn(f"{arithmetic.name}: the float computation disagrees with every modular one; the regroupings "
         "are unreliable: please report it with the robot description", RuntimeWarning)
    units, reduction = attempt
    return units, dataclasses.replace(reduction, note=reduction.note + " — WARNING: no prime agreed with the float "
                                      "computation; the rank and regroupings are unreliable")


def _reduce(layout, units, parents, progress, engine=None):
    """Reduce Z's row space (:func:`row_basis`, then the friction rows). None when exact integers would
    overflow float64."""
    n = len(parents)
    stats = MagnitudeStats()
    n_steps = n + 1

    def joint_done(done, _):
        if progress is not None:
            progress(done, n_steps)
    # a floating base's chain in floats: a basis of each joint's rows (modulo p, cheap to choose; the
    # rows its six extra joints add cost the modular echelon form more)
    basis = row_basis(units, layout if engine is None else engine, parents, stats, joint_done,
                      few_rows=engine is not None and not units.exact)
    if units.exact and stats.max_abs >= EXACT_LIMIT:
        return None
    # (float rows, exact rows): friction rows are independent of everything else, identity rows in both
    parts = [(basis.moments, basis.rows) if engine is None else (drop_virtual(basis.moments), drop_virtual(basis.rows))]
    if layout.friction_columns:
        friction = friction_block(layout, n).matrix
        parts.append((friction, friction))
    reduction = _echelon(layout, units, parts)
    if progress is not None:
        progress(n_steps, n_steps)
    return reduction


def _echelon(layout, units, parts):
    """The echelon form of rows given as (float rows, exact rows) pairs, in the run's arithmetic."""
    transform = BlockTransform.of(layout) if layout.parameters != "pseudo" else None
    if units.exact:
        acc = ExactGram(layout.n_standard)
        for _, rows in parts:
            acc.add(rows)
        return acc.reduce(transform)
    acc, echelon = StreamedR(layout.n_standard), ModularEchelon(layout.n_standard, units.modulus)
    mod_transform = None if transform is None else transform.modular(units.modulus)
    for rows, images in parts:
        acc.add(rows)
        # Products of integers < 2**23 summed over a few columns: exact in float64.
        Zm = images if mod_transform is None else images.dot(mod_transform)
        # Entries that cancel exactly modulo p are zeros.
        echelon.add(Zm.with_data(np.fmod(Zm.data, units.modulus)).eliminate_zeros())
    return acc.reduce_with_pivots(echelon, transform)
