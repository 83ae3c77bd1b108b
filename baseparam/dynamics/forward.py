"""Forward dynamics: q̈ from (q, q̇, τ) by the articulated-body algorithm, batch or one sample at a time.

The ABA of :mod:`baseparam.dynamics.forward_graph` is derived once per robot and written out three
ways, each reading the same parameter vector (link inertias moved to joint frames, drives):

* numpy over blocks of samples (samples last) — the batch path of :func:`forward_dynamics`;
* C, compiled once into a cache and called through ctypes (:mod:`baseparam.dynamics._native`):
  one sample for little more than the call, and an RK4 integrator around it for simulation;
* straight-line Python on floats — the fallback for one sample when no C compiler is available
  (two orders of magnitude slower than C, still O(N); ``bench/bench_forward.py`` prints the figures).

:class:`ForwardDynamics` binds a robot and its parameters once, for loops that call it per sample
(controllers, integrators); :func:`forward_dynamics` is the checked, vectorized public function.
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from .._numbers import real_array
from ..errors import ArgumentError
from ..model.joint_model import motion_offsets
from ..model.robot import require_robot
from . import _native
from ._compiled import numpy_source
from ._forward_c import SIGNATURES, c_source
from .floating import pose_rate
from .forward_graph import build_forward, forward_parameters, slots
from .samples import ABSURD, CHUNK, LinkParameters, robot_states

CACHE_SIZE = 16
_KERNELS: OrderedDict = OrderedDict()
_BOUND: OrderedDict = OrderedDict()
SMALL_BATCH = 256           # below this many samples the C kernel beats numpy's per-operation overhead
FEW = 16                    # … and, without it, straight-line Python beats numpy below this many
COMPILE_AFTER = 64          # one-sample calls of a robot before its C kernel is worth compiling


def _sign(x):
    return float((x > 0.0) - (x < 0.0))


class Kernel:
    """The compiled forward dynamics of one robot structure (see the module notes).

    Attributes
    ----------
    batch : callable
        ``batch(q, qd, tau, p, out)`` on rows (n_q, S), (n_v, S), (n_v, S), filling ``out`` (n_v, S).
    scalar : callable
        The same on lists of floats (one sample).
    The C kernel (``fd``, ``fd_batch`` and ``rk4``) is compiled on first need (:meth:`native`).
    """

    def __init__(self, robot):
        self.n_q, self.n_v, self.floating = robot.n_q, robot.n_v, robot.is_floating
        self.slots = slots(robot)
        g, outputs = build_forward(robot)
        self.graph, self.outputs = g, outputs
        offsets = motion_offsets(robot)
        qi, vi = robot.n_q - robot.n_dof, robot.n_v - robot.n_dof

        def source(name, k, c=False):
            if name in ("c", "s", "d"):
                angle = f"q[{qi + k}]" if offsets[k] == 0.0 else f"(q[{qi + k}] + {offsets[k]!r})"
                return {"c": f"cos({angle})", "s": f"sin({angle})", "d": angle}[name]
            if name in ("sgn", "stb"):
                return friction_shape_source(robot.joints[k].friction_model, name, f"qd[{vi + k}]", c)
            return f"{name}[{k}]"
        self._source = source
        rows = [((i,), node) for i, node in outputs]
        arguments = "q, qd, tau, p, out"
        namespace = {"cos": np.cos, "sin": np.sin, "sign": np.sign, "tanh": np.tanh, "exp": np.exp}
        exec(compile(numpy_source(g, rows, offsets, arguments=arguments, inputs=source),
                     f"<baseparam forward dynamics of {robot.name}>", "exec"), namespace)
        self.batch = namespace["evaluate"]
        namespace = {"cos": math.cos, "sin": math.sin, "sign": _sign, "tanh": math.tanh, "exp": math.exp}
        exec(compile(numpy_source(g, rows, offsets, arguments=arguments, inputs=source, free=False),
                     f"<baseparam forward dynamics of {robot.name}, one sample>", "exec"), namespace)
        self.scalar = namespace["evaluate"]
        self._lib, self._tried, self.calls = None, False, 0

    def native(self, build=True):
        """The C kernel (a ctypes library), compiled and cached on the first request with ``build``;
        None without a C compiler (or before that request)."""
        if build and not self._tried:
            self._tried = True
            body = _native.c_statements(self.graph, self.outputs, lambda name, k: self._source(name, k, c=True))
            self._lib = _native.load(c_source(self.n_q, self.n_v, self.floating, body), SIGNATURES)
        return self._lib


def friction_shape_source(model, name, qd, c=False):
    """Code of a joint's friction shape: c(q̇) (``sgn``: sign(q̇), or tanh(q̇/v) for a smooth model) or
    s(q̇) = exp(−(q̇/v_s)²)·c(q̇) (``stb``), for numpy/math (``c=False``) or C (:mod:`baseparam.model.friction`)."""
    if model is not None and model.unresolved:
        model.coulomb_shape(0.0)                       # the one-line error: 'auto' scales are identified
    smooth = model is not None and model.coulomb == "smooth"
    shape = f"tanh({qd} / {model.velocity!r})" if smooth else (f"sgn({qd})" if c else f"sign({qd})")
    if name == "sgn":
        return shape
    if model is None or model.stribeck is None:
        return "0.0"
    return f"(exp(-({qd} / {model.stribeck!r}) * ({qd} / {model.stribeck!r})) * {shape})"


def kernel(robot) -> Kernel:
    """The :class:`Kernel` of a robot (built once per robot structure and friction models, and cached)."""
    key = (robot.signature(), tuple(j.friction_model for j in robot.joints))
    k = _KERNELS.pop(key, None)
    if k is None:
        k = Kernel(robot)
    _KERNELS[key] = k
    while len(_KERNELS) > CACHE_SIZE:
        _KERNELS.popitem(last=False)
    return k


def _address(a):
    return a.ctypes.data


class ForwardDynamics:
    """A robot's forward dynamics with its parameters bound: q̈ = M(q)⁻¹(τ − C q̇ − g − friction).

    For loops that evaluate one state at a time (controllers, integrators): the parameters are
    prepared once, and a call runs the compiled C kernel (or, without a C compiler, straight-line
    Python), with no per-call checks beyond the lengths.

    Parameters
    ----------
    robot : Robot
    p : array_like, shape (n_standard,)
        Standard parameters (``ColumnLayout(robot, parameters)`` order).
    parameters : {'pseudo', 'khalil'}
    native : bool
        Compile the C kernel now (once per robot structure; cached on disk). False leaves it to
        the first 64 one-sample calls of this robot, which run in Python meanwhile.

    Attributes
    ----------
    backend : {'c', 'python'}
        What a one-sample call runs.

    Examples
    --------
    >>> import numpy as np, baseparam as bp
    >>> robot = bp.parse_robot("{units: {length: m, angle: deg}, joints: [{type: revolute, alpha: 0, a: 0, d: 0}]}")
    >>> fd = bp.ForwardDynamics(robot, [0.25, 0, 0, 0, 0, 0, 0.5, 0, 0, 1.0])   # 1 kg at x = 0.5 m (pseudo)
    >>> float(fd([0.0], [0.0], [1.0])[0])            # gravity −z is along the axis: q̈ = τ / (m x²)
    4.0
    """

    def __init__(self, robot, p, parameters="pseudo", native=True):
        require_robot(robot)
        self.robot, self.parameters = robot, parameters
        self.kernel = kernel(robot)
        self.p = forward_parameters(robot, LinkParameters(robot, p, parameters))
        self._p_list = self.p.tolist()
        n_q, n_v = robot.n_q, robot.n_v
        self._buffer = np.zeros(n_q + 3 * n_v)
        b = self._buffer
        self._q, self._qd, self._tau, self._out = b[:n_q], b[n_q:n_q + n_v], b[n_q + n_v:n_q + 2 * n_v], b[-n_v:]
        self._addresses = (*(_address(x) for x in (self._q, self._qd, self._tau)), _address(self.p),
                           _address(self._out))
        if native:
            self.kernel.native()

    @property
    def backend(self):
        """'c' when calls run the compiled kernel, else 'python'."""
        return "c" if self.kernel.native(build=False) is not None else "python"

    def __call__(self, q, qd, tau):
        """q̈ of one sample: q (n_q,), q̇ and τ (n_v,) → ndarray (n_v,). A floating base's quaternion
        must be a unit quaternion here (no check; :func:`forward_dynamics` normalizes)."""
        native = self.kernel.native(build=False)
        if native is None:
            out = [0.0] * self.robot.n_v
            try:
                self.kernel.scalar(*(np.asarray(x, dtype=float).tolist() for x in (q, qd, tau)), self._p_list, out)
            except ZeroDivisionError:            # a zero pivot: M(q) singular; NaN as the C kernel gives
                out = [math.nan] * self.robot.n_v
            self._count(1)
            return np.array(out)
        self._q[:], self._qd[:], self._tau[:] = q, qd, tau
        native.fd(*self._addresses)
        return self._out.copy()

    def _count(self, calls):
        """Count one-sample evaluations; a robot evaluated often enough gets its C kernel compiled."""
        self.kernel.calls += calls
        if self.kernel.calls >= COMPILE_AFTER:
            self.kernel.native()

    def batch(self, q, qd, tau):
        """q̈ of checked sample arrays (S, n_q), (S, n_v), (S, n_v) → (S, n_v): numpy over blocks of
        samples; small batches by the C loop (or one sample at a time in Python)."""
        S = q.shape[0]
        native = self.kernel.native(build=False)
        if native is not None and S < SMALL_BATCH:
            q, qd, tau = (np.ascontiguousarray(x, dtype=float) for x in (q, qd, tau))
            out = np.empty((S, self.robot.n_v))
            native.fd_batch(S, *(_address(x) for x in (q, qd, tau, self.p, out)))
            return out
        if S <= FEW:
            return np.array([self(*row) for row in zip(q, qd, tau)]).reshape(S, self.robot.n_v)
        out = np.empty((self.robot.n_v, S))
        qT, qdT, tauT = q.T.copy(), qd.T.copy(), tau.T.copy()
        for s0 in range(0, S, CHUNK):
            sl = slice(s0, s0 + CHUNK)
            # p as float64 scalars: what depends on p alone (a leaf's pivot) divides as numpy does (inf, not
            # ZeroDivisionError) when M is singular
            self.kernel.batch(qT[:, sl], qdT[:, sl], tauT[:, sl], self.p, out[:, sl])
        return out.T

    def rk4(self, q, qd, dt, tau, substeps=1, rows=None):
        """Fixed-step RK4 with the torque held over each step, in place.

        Parameters
        ----------
        q : ndarray, shape (n + 1, n_q)
            Row 0 the start; rows 1..n receive the states after each step (``rows``: only rows
            ``rows[0]`` → ``rows[0] + 1``, one step).
        qd : ndarray, shape (n + 1, n_v)
        dt : ndarray, shape (n,)
        tau : ndarray, shape (n, n_v)
            Held over step k.
        substeps : int
            RK4 steps per interval.
        """
        k0, n = (0, len(dt)) if rows is None else (rows, 1)
        native = self.kernel.native(build=False)
        if native is not None:
            row_q, row_v = q.strides[0], qd.strides[0]
            native.rk4(n, _address(dt) + 8 * k0, substeps, _address(tau) + tau.strides[0] * k0, tau.shape[1],
                       _address(self.p), _address(q) + row_q * k0, _address(qd) + row_v * k0)
            return
        for k in range(k0, k0 + n):
            x, v = q[k].copy(), qd[k].copy()
            h = dt[k] / substeps
            for _ in range(substeps):
                x, v = self._rk4_step(x, v, tau[k], h)
            q[k + 1], qd[k + 1] = x, v

    def _rk4_step(self, x, v, tau, h):
        def rate(x, v):
            a = self(x, v, tau)
            return (np.concatenate([pose_rate(x[None], v[None])[0], v[6:]]) if self.robot.is_floating else v), a
        k1, a1 = rate(x, v)
        k2, a2 = rate(x + 0.5 * h * k1, v + 0.5 * h * a1)
        k3, a3 = rate(x + 0.5 * h * k2, v + 0.5 * h * a2)
        k4, a4 = rate(x + h * k3, v + h * a3)
        x = x + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        v = v + h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        if self.robot.is_floating:
            x[3:7] /= np.linalg.norm(x[3:7])
        return x, v


def bound(robot, p, parameters="pseudo") -> ForwardDynamics:
    """A :class:`ForwardDynamics` (its C kernel not compiled yet), reused for the same robot object and
    parameters (a few kept)."""
    p = np.asarray(p, dtype=float)
    # by identity: the cached object holds the robot, so its id cannot be reused while it is cached
    key = (id(robot), parameters, p.shape, p.tobytes())
    fd = _BOUND.pop(key, None)
    if fd is None:
        fd = ForwardDynamics(robot, p, parameters, native=False)
    _BOUND[key] = fd
    while len(_BOUND) > CACHE_SIZE:
        _BOUND.popitem(last=False)
    return fd


def forward_dynamics(robot, p, q, qd, tau, parameters="pseudo"):
    """Joint accelerations q̈ = M(q)⁻¹(τ − C(q, q̇) q̇ − g(q) − friction(q̇)), rotor inertia in M.

    The articulated-body algorithm, O(N) per sample for chains and trees, never M⁻¹ (see
    :mod:`baseparam.dynamics.forward_graph`); vectorized over samples. The inverse of
    :func:`~baseparam.inverse_dynamics`. For a floating base q̈ starts with the derivative of the
    base twist and τ with the wrench applied to the base (zero: free floating).

    Parameters
    ----------
    robot : Robot
    p : array_like, shape (n_standard,)
    q : array_like, shape (n_samples, n_q) or (n_q,)
    qd, tau : array_like, shape (n_samples, n_v) or (n_v,)
        For a floating base, τ of ``n_dof`` columns (the joints alone) leaves the base free.
    parameters : {'pseudo', 'khalil'}

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,) for one sample)
    """
    require_robot(robot)
    if robot.is_floating:
        tau = real_array("tau", tau, ArgumentError)
        if tau.shape[-1:] == (robot.n_dof,):       # joint torques alone: zero wrench on the base
            tau = np.concatenate([np.zeros(tau.shape[:-1] + (6,)), tau], axis=-1)
    one = _one_sample(robot, q, qd, tau)
    if one is not None:                            # one good sample: checked cheaply, then the C kernel
        fd = bound(robot, p, parameters)
        fd.kernel.native()
        return _finite(fd(*one), True)
    (q, qd, tau), single = robot_states(robot, q=q, qd=qd, tau=tau)
    fd = bound(robot, p, parameters)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        qdd = fd(q[0], qd[0], tau[0]) if single else fd.batch(q, qd, tau)
    return _finite(qdd, single)


def _finite(qdd, single):
    """q̈, or an ArgumentError where it is not finite: M(q) singular (a joint whose subtree has no inertia
    about its axis and no rotor inertia, e.g. massless links) or not positive definite (bodies that are
    not physical)."""
    bad = ~np.isfinite(qdd)
    if bad.any():
        s = 0 if single else int(np.argmax(bad.reshape(len(qdd), -1).any(axis=1)))
        raise ArgumentError(f"p: the joint-space inertia M(q) is singular{'' if single else f' at sample {s}'}: "
                            "q̈ is not finite (a joint whose links carry no inertia about its axis and no rotor "
                            "inertia, or bodies that are not physical)")
    return qdd


def _one_sample(robot, q, qd, tau):
    """(q, q̇, τ) as float arrays when they are one sample of the right lengths, finite and not absurd
    (a floating base's quaternion of unit length to 1e-12); else None, and the full checks decide."""
    try:
        arrays = [np.asarray(x, dtype=float) for x in (q, qd, tau)]
    except (TypeError, ValueError):
        return None
    if arrays[0].shape != (robot.n_q,) or arrays[1].shape != (robot.n_v,) or arrays[2].shape != (robot.n_v,):
        return None
    values = np.concatenate(arrays)
    if not (np.abs(values) <= ABSURD).all():
        return None
    if robot.is_floating and abs(arrays[0][3:7] @ arrays[0][3:7] - 1.0) > 1e-12:
        return None                                # normalized by the full path
    return arrays
