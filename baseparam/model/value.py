"""A robot model as one value: the description, its parameterization and a parameter vector.

In the spirit of pinocchio's ``Model``: the dynamics take the model and the state
(``bp.inverse_dynamics(model, q, qd, qdd)``), instead of a robot, a parameter vector and a
``parameters=`` flag. A :class:`Model` holds standard parameters; a :class:`BaseModel` holds base
parameters of a base set (``base.model(p_base)``) and serves every dynamics function that the base
parameters determine (the regressor is then the base regressor).

Both are immutable. ``with_parameters`` gives a copy with other values (identified ones, a
perturbed set) that shares the compiled code: kernels are built from the robot's structure alone and
kept with the robot object (:mod:`baseparam.model._kernels`), thread-safe.
"""
from __future__ import annotations

import functools
from collections.abc import Hashable

import numpy as np

from .._checks import is_file_name, shown
from ._kernels import kernels_of
from .._numbers import real_array
from .._validation import check_parameter_vector
from .._warnings import deprecated_call
from ..errors import ArgumentError, ArgumentTypeError, RobotDescriptionError
from .parameters import ColumnLayout, check_parameterization, standard_parameters
from .robot import Robot, require_robot


def _vector(p, n, what):
    """A read-only float copy of a parameter vector of length n (the checks of the dynamics' ``p``)."""
    arr = np.array(check_parameter_vector(p, n, what), dtype=float)    # our own copy: the caller's may change
    arr.flags.writeable = False
    return arr


def _true_values(p, compute, which, how):
    """(``p``, None) when given; else (``compute()``, None): values of the description's true inertias; or (None,
    the message of a model without values) when the description does not give them."""
    if p is not None:
        return p, None
    try:
        return compute(), None
    except RobotDescriptionError as error:
        return None, (f"{which} has no parameter values: the description does not give them ({error}); "
                      f"pass them: {how}")


def _summary(p):
    return "None" if p is None else np.array2string(p, precision=4, threshold=6, edgeitems=2, separator=", ")


class _Value:
    """What Model and BaseModel share: immutability, the missing-values error, a private memo."""

    __slots__ = ("p", "_missing", "_memo")

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable: use with_parameters(p) for other values")

    def _set(self, **values):
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _fill(self, p, n, what, missing, **fields):
        """Set the fields, ``p`` checked (length n, named ``what`` in messages) or None, and the message of
        :meth:`values` when it is None."""
        self._set(p=None if p is None else _vector(p, n, what), _missing=missing, _memo={}, **fields)
        return self

    def values(self):
        """``p``, or an ArgumentError (one line) when the model has no parameter values."""
        if self.p is None:
            raise ArgumentError(f"p: {self._missing}")
        return self.p

    def memo(self, key, build):
        """A value derived from this model (e.g. its link parameters), computed once; losing a race
        between threads only computes it twice."""
        if type(key) is not str or not callable(build):        # a hashable key, a function to call (hot path)
            raise ArgumentTypeError(f"memo: expected a key (str) and a function, got {type(key).__name__} and "
                                    f"{type(build).__name__}")
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = build()
        return found

    n_dof = property(lambda self: self.robot.n_dof, doc="Number of joints (Robot.n_dof).")
    n_q = property(lambda self: self.robot.n_q, doc="Length of ``q`` (Robot.n_q).")
    n_v = property(lambda self: self.robot.n_v, doc="Length of ``q̇``, ``q̈`` and τ (Robot.n_v).")

    @property
    def kernels(self):
        """The compiled code of the robot (a :class:`~baseparam.model._kernels.Kernels`), shared by every
        model of the same robot object."""
        return kernels_of(self.robot)

    def __getstate__(self):
        return {"p": self.p, "_missing": self._missing, **self._fields()}

    def __setstate__(self, state):
        p = state.pop("p")
        if p is not None:                      # unpickled arrays are writeable: read-only again, as made
            p = np.array(p, dtype=float)
            p.flags.writeable = False
        self._set(_memo={}, p=p, **state)


class Model(_Value):
    """A robot description with a parameter vector: what the dynamics functions take.

    Parameters
    ----------
    robot : Robot
    p : array_like, shape (n_standard,), optional
        Standard parameters in the column order of ``ColumnLayout(robot, parameters)`` (SI). Default:
        the description's true inertias, friction and rotor inertias (:func:`standard_parameters`);
        when the description does not give them, the model has no values: regressors work, and what
        needs values raises an ArgumentError saying so.
    parameters : {'pseudo', 'khalil'}
        The parameterization of ``p``.

    Attributes
    ----------
    robot : Robot
    parameters : str
    p : ndarray, shape (n_standard,), read-only, or None

    Examples
    --------
    >>> import numpy as np, baseparam as bp
    >>> robot = bp.parse_robot("{units: {length: m, angle: deg}, joints: [{type: revolute, alpha: 0, a: 0, d: 0}]}")
    >>> model = bp.Model(robot, [0.25, 0, 0, 0, 0, 0, 0.5, 0, 0, 1.0])   # 1 kg at x = 0.5 m (pseudo)
    >>> float(bp.inverse_dynamics(model, [0.0], [0.0], [4.0])[0])        # τ = m x² q̈
    1.0
    >>> heavier = model.with_parameters(2 * model.p)                      # the same compiled code
    >>> float(bp.inverse_dynamics(heavier, [0.0], [0.0], [4.0])[0])
    2.0
    """

    __slots__ = ("robot", "parameters")

    def __init__(self, robot, p=None, parameters="pseudo"):
        require_robot(robot)
        check_parameterization(parameters)
        p, missing = _true_values(p, lambda: standard_parameters(robot, parameters), f"the model of {robot.name!r}",
                                  "bp.Model(robot, p) or model.with_parameters(p)")
        self._fill(p, _layout(robot, parameters).n_standard, "p", missing, robot=robot, parameters=parameters)

    @classmethod
    def _of(cls, robot, p, parameters):
        """A model of given (or no) values without looking at the description's inertias: what a
        deprecated ``f(robot, p, …, parameters=…)`` call stands for."""
        require_robot(robot)
        check_parameterization(parameters)
        return cls.__new__(cls)._fill(p, _layout(robot, parameters).n_standard, "p",
                                      "this call needs parameter values (p)", robot=robot, parameters=parameters)

    def with_parameters(self, p):
        """A copy with other standard parameters (same robot, parameterization and compiled code).

        Parameters
        ----------
        p : array_like, shape (n_standard,)
        """
        return Model._of(self.robot, p, self.parameters)

    @property
    def names(self) -> list:
        """Standard parameter names, in the order of ``p``."""
        return list(_layout(self.robot, self.parameters).names)

    def _fields(self):
        return {"robot": self.robot, "parameters": self.parameters}

    def __eq__(self, other):
        if not isinstance(other, Model):
            return NotImplemented
        return (self.parameters == other.parameters and _same(self.p, other.p)
                and (self.robot is other.robot or self.robot == other.robot))

    def __hash__(self):
        return hash((self.robot.name, self.robot.n_dof, self.parameters, _p_key(self.p)))

    def __repr__(self):
        return f"Model(robot={self.robot.name!r}, parameters={self.parameters!r}, p={_summary(self.p)})"


class BaseModel(_Value):
    """A base parameter set with base-parameter values: a model in base coordinates.

    Made by :meth:`BaseParameters.model <baseparam.BaseParameters.model>`. The dynamics functions take
    it like a :class:`Model` wherever base parameters determine the result: ``regressor`` and
    ``slotine_li_regressor`` give the base regressors (rank columns), ``inverse_dynamics`` runs
    customized Newton–Euler in base parameters, and ``forward_dynamics``, ``mass_matrix``,
    ``gravity_torque``, ``coriolis_torque``, ``coriolis_matrix``, ``friction_torque``, the momenta and
    ``kinetic_energy`` use :meth:`standard_equivalent` (the same M, C, g and friction). Reaction
    wrenches, the links' momentum and the potential energy depend on more than the base parameters
    and refuse it.

    Attributes
    ----------
    base : BaseParameters
    p : ndarray, shape (rank,), read-only, or None
        Base parameters (SI), in the order of ``base.names``.
    """

    __slots__ = ("base",)

    def __init__(self, base, p=None):
        # BaseParameters lives in the projection, below this module: recognised by what a model takes from it
        if not all(hasattr(base, name) for name in ("robot", "rank", "parameters", "from_standard")):
            raise ArgumentTypeError(f"base: expected a baseparam.BaseParameters (bp.find_base_parameters), got "
                                    f"{type(base).__name__}")
        p, missing = _true_values(p, lambda: base.from_standard(standard_parameters(base.robot, base.parameters)),
                                  f"the base model of {base.robot.name!r}", "base.model(p_base)")
        self._fill(p, base.rank, "p_base", missing, base=base)

    @classmethod
    def _of(cls, base, p):
        return cls.__new__(cls)._fill(p, base.rank, "p_base",
                                      "a base set carries no parameter values: use base.model(p_base)", base=base)

    robot = property(lambda self: self.base.robot)
    parameters = property(lambda self: self.base.parameters)
    names = property(lambda self: list(self.base.names), doc="Base parameter names, in the order of ``p``.")

    def with_parameters(self, p):
        """A copy with other base parameters (same base set and compiled code).

        Parameters
        ----------
        p : array_like, shape (rank,)
        """
        return BaseModel._of(self.base, p)

    def standard_equivalent(self) -> Model:
        """The :class:`Model` of :meth:`BaseParameters.standard_preimage <baseparam.BaseParameters.standard_preimage>`
        (p_base at the pivots, zero elsewhere): the same M(q), C(q, q̇), g(q) and friction, bodies not
        physical."""
        return self.memo("standard", lambda: Model._of(self.robot, self.base.standard_preimage(self.values()),
                                                       self.parameters))

    def _fields(self):
        return {"base": self.base}

    def __eq__(self, other):
        if not isinstance(other, BaseModel):
            return NotImplemented
        a, b = self.base, other.base
        same_base = a is b or (a.robot == b.robot and a.parameters == b.parameters
                               and np.array_equal(a.pivots, b.pivots) and np.array_equal(a.Y, b.Y))
        return same_base and _same(self.p, other.p)

    def __hash__(self):
        return hash((self.robot.name, self.base.rank, self.parameters, _p_key(self.p)))

    def __repr__(self):
        return (f"BaseModel(robot={self.robot.name!r}, parameters={self.parameters!r}, rank={self.base.rank}, "
                f"p={_summary(self.p)})")


def _p_key(p):
    """p's bytes for a hash, with -0.0 as 0.0 (== holds between them)."""
    return None if p is None else (p + 0.0).tobytes()


def _same(a, b):
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _layout(robot, parameters):
    """The robot's ColumnLayout, kept with the robot: models of one robot are made often (one per
    deprecated call)."""
    return kernels_of(robot).get("layout", parameters, lambda: ColumnLayout(robot, parameters))


# -- the one dispatch: a model, or (deprecated) a robot with p and parameters= --------------------------
MODELS = (Model, BaseModel)


def model_call(name, old, args, kwargs):
    """The model and the other arguments (by name) of a call in the deprecated form ``name(robot, *old)``.

    Parameters
    ----------
    name : str
        The public function, for messages.
    old : tuple of str
        The deprecated signature's parameters after ``robot`` (``p`` and ``parameters`` among them
        where it had them), in positional order.
    args, kwargs
        The call's arguments, the robot first.

    Returns
    -------
    model : Model
    rest : dict
        The other arguments by name (q, qd, …), for the new signature.
    """
    names = ("robot",) + tuple(old)
    if len(args) > len(names):
        raise TypeError(f"{name}() takes at most {len(names)} positional arguments ({len(args)} given)")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key in bound:
            raise TypeError(f"{name}() got multiple values for argument {key!r}")
        bound[key] = value
    # the deprecated form's robot, given first or by name (robot=, or model= as the new form names it)
    robot = bound.pop("robot") if "robot" in bound else bound.pop("model", None)
    if not isinstance(robot, Robot):
        raise not_a_model(robot)
    model = _deprecated_model(robot, bound.pop("p", None), bound.pop("parameters", "pseudo"))
    deprecated_call(*_deprecation(name, tuple(old)))
    return model, bound


@functools.cache
def _deprecation(name, old):
    """The old and the new call of a deprecated call form (a few strings, one per public function)."""
    call = ", ".join(n for n in old if n != "parameters")
    new = call.replace("p, ", "", 1) if "p" in old else call
    return (f"{name}(robot, {call}, parameters=...)",
            f"{name}(model, {new}) with model = bp.Model(robot{', p' if 'p' in old else ''}, parameters=...)")


def _deprecated_model(robot, p, parameters):
    """The model of a deprecated call's (robot, p, parameters), kept with the robot by the values of p (a
    few): a loop of such calls then checks p and finds its bound forward dynamics once, not per call."""
    parameters = check_parameterization(parameters)    # before it is a key: a list is no key ('unhashable')
    if p is None:
        return Model._of(robot, None, parameters)
    arr = real_array("p", p, ArgumentError)             # complex, text, ragged: the one-line error
    if arr.shape != (_layout(robot, parameters).n_standard,):
        return Model._of(robot, arr, parameters)       # its one-line error, before the bytes of a 10⁹-value view
    key = (parameters, arr.dtype.str, arr.shape, arr.tobytes())   # dtype: int and float bytes may coincide
    return kernels_of(robot).get("models", key, lambda: Model._of(robot, arr, parameters), size=16)


def not_a_model(value, name: str = "model"):
    """The ArgumentTypeError for ``value`` given where a model is expected (every dynamics function, ``bp.Regressor``,
    ``bp.ForwardDynamics``): one wording, with a hint for a description file's name or a robot without values."""
    if is_file_name(value):
        hint = "; for a description file use bp.Model(bp.load_robot(path)) first"
    elif isinstance(value, Robot):
        hint = "; for a robot use bp.Model(robot)"
    else:
        hint = ""
    return ArgumentTypeError(f"{name}: expected a baseparam.Model, BaseModel or BaseParameters, got "
                             f"{type(value).__name__}{hint}")


def require_model(value, name: str = "model"):
    """``value`` as a model (:func:`as_model`: a base set as its base model without values); else
    :func:`not_a_model`."""
    model = as_model(value)
    if model is None:
        raise not_a_model(value, name)
    return model


def as_model(x):
    """``x`` when it is a :class:`Model` or :class:`BaseModel`; a base set (:class:`BaseParameters`) as a
    :class:`BaseModel` without values; otherwise None."""
    if isinstance(x, MODELS):
        return x
    if hasattr(x, "standard_preimage") and hasattr(x, "pivots"):     # a BaseParameters (projection, later)
        return BaseModel._of(x, None)
    return None


def takes_model(*old):
    """Decorate ``f(model, …)`` so that it also takes the deprecated ``f(robot, *old)`` form, with a
    DeprecationWarning and the same results (see :func:`model_call`). A model costs the call one type
    check."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            first = args[0] if args else kwargs.get("model", kwargs.get("robot"))
            if type(first) in MODELS:
                return fn(*args, **kwargs)
            model = None if isinstance(first, Robot) else as_model(first)
            if model is not None:
                return fn(model, *args[1:], **{k: v for k, v in kwargs.items() if k != "model"})
            model, rest = model_call(fn.__name__, old, args, kwargs)
            return fn(model, **rest)
        return wrapper
    return decorate


def description_of(x, parameters, default, error=ArgumentError):
    """(robot, parameterization) of an entry point's ``robot`` argument that may be a :class:`Model`.

    Identification and excitation design need the description and a parameterization, not values: a
    model gives both, and ``parameters=`` must then be left at its default ``default`` or agree.
    Anything else is returned as it is (the entry point checks it). ``parameters`` that cannot be hashed (an array,
    a list) is refused here, before anything compares it (an array element by element, to no truth value); any
    other value is left to the entry point's own check, in its order and words.
    """
    if not isinstance(parameters, Hashable):
        check_parameterization(parameters)
    if isinstance(x, MODELS):
        agreeing_parameterization(parameters, x.parameters, default, "the model",
                                  "give one of them: bp.Model(robot, parameters=...)", error)
        return x.robot, x.parameters
    return x, parameters


def agreeing_parameterization(parameters, carried, default, holder, hint, error=ArgumentError):
    """``carried``, the parameterization of an argument that carries its own (a model, a base set), when the
    entry point's ``parameters=`` is left at its ``default`` or agrees; else ``error`` naming both. ``parameters`` is
    first checked as a parameterization, so that neither a value no entry point takes (None, NaN, a typo) nor the
    other parameterization, in which the result is not, is ignored beside a base set
    (``equations(base, parameters=...)``)."""
    if parameters not in (default, carried):
        check_parameterization(parameters)
        raise error(f"parameters: {shown(parameters)}, but {holder} is in {shown(carried)} parameters ({hint})")
    return carried


__all__ = ["BaseModel", "Model", "agreeing_parameterization", "as_model", "description_of", "model_call", "takes_model"]
