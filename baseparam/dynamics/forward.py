"""Forward dynamics: q̈ from (q, q̇, τ) by the articulated-body algorithm, batch or one sample at a time.

The ABA of :mod:`baseparam.dynamics.forward_graph` is derived once per robot and written out three
ways, each reading the same parameter vector (link inertias moved to joint frames, drives):

* numpy over blocks of samples (samples last) — the batch path of :func:`forward_dynamics` without a
  C compiler, or with a smooth Coulomb or Stribeck friction shape;
* C, compiled once into a cache and called through ctypes (:mod:`baseparam.dynamics._native`):
  one sample for little more than the call, a loop over the samples of a batch (the numpy blocks'
  numbers, faster), and an RK4 integrator around it for simulation;
* straight-line Python on floats — the fallback for one sample when no C compiler is available
  (two orders of magnitude slower than C, still O(N); ``bench/bench_forward.py`` prints the figures).

:class:`ForwardDynamics` binds a robot and its parameters once, for loops that call it per sample
(controllers, integrators); :func:`forward_dynamics` is the checked, vectorized public function.
"""
from __future__ import annotations

import ctypes
import functools
import math
import threading
import weakref

import numpy as np

from ..model._kernels import kernels_of, record_bound, reduce_bound
from .._numbers import is_whole, real_array
from ..errors import ArgumentError, SimulationError
from ..model.joint_model import motion_offsets
from ..model.value import MODELS, as_model, model_call, takes_model
from . import _native, _native_rule
from ._native import address
from ._compiled import piece_samples
from ._definite import (at_this_q, nonphysical_body, require_definite, require_finite, require_pivots,
                        require_regular, round_off_pivots)
from ._peaks import peak
from .._validation import ABSURD, CHECKED_BYTES, check_flag, check_robot_states, check_state_sizes, shown
from ._forward_c import SIGNATURES, c_source
from .floating import configuration_rate, with_base_wrench
from .forward_graph import build_forward, forward_parameters
from .momenta_graph import build_momenta_rate
from .printing import C, NUMPY, c_statements, input_source, numpy_function
from .samples import in_blocks, link_parameters, standard_model

BOUND_SIZE = 16             # parameter vectors of one robot kept bound (forward_dynamics(robot, p, …))
SMALL_BATCH = 256           # below this many samples the C kernel serves a batch whenever it is compiled
FEW = 16                    # … and, without it, straight-line Python beats numpy below this many
MAX_RK4_STEPS = 10 ** 7     # substeps × intervals of one ForwardDynamics.rk4 call (simulate's bound on a run)
# A batch of _native_rule.NATIVE_SAMPLES samples compiles the C kernel (once per robot, cached on disk) and runs
# its loop, 5 times faster than numpy's blocks (a 7-DOF arm: 0.4 µs a sample against 2 µs), when the C code's
# numbers are numpy's to the bit (Kernel.same_as_numpy); a robot evaluated _native_rule.COMPILE_AFTER times
# one sample at a time gets it compiled too.


@functools.cache     # on every rk4 call: a controller's interval pays a lookup, not the arithmetic
def rk4_piece(n_v):
    """RK4 steps per call of the compiled loop, which Ctrl-C cannot interrupt (it holds no Python between steps): a
    power of two near 4·10⁶ / n_v², a fraction of a second whatever the arm (a step's cost grows about as n_v²;
    ``bench/bench_forward.py`` prints it); :meth:`ForwardDynamics.rk4` of more steps makes several calls (10⁷ steps
    of a 7-joint arm in one call would take tens of seconds, deaf to Ctrl-C)."""
    return 1 << max(0, (2 ** 22 // max(n_v, 1) ** 2).bit_length() - 1)


def _powers_of_two(count, piece):
    """``count`` split into pieces of at most ``piece`` (a power of two), each a power of two: ``piece`` as often
    as it goes, then the remainder's binary digits, largest first."""
    whole, rest = divmod(count, piece)
    return [piece] * whole + [1 << j for j in reversed(range(rest.bit_length())) if rest >> j & 1]


class Kernel:
    """The compiled forward dynamics of one robot structure (see the module notes).

    Attributes
    ----------
    batch : callable
        ``batch(q, qd, tau, p, out)`` on rows (n_q, S), (n_v, S), (n_v, S), filling ``out`` (n_v, S).
    scalar : callable
        The same on lists of floats (one sample).
    packed : callable or None
        The C kernel's ``fd_packed(block)`` (a ``ctypes.c_void_p``), keeping the GIL; None until
        :meth:`native` has loaded the kernel.
    same_as_numpy : bool
        The C kernel gives the numpy code's numbers to the bit: its operations are IEEE arithmetic, sqrt, and
        sin and cos, which numpy takes from the C library; False when a smooth Coulomb or a Stribeck shape
        (tanh, exp: numpy's own vectorized versions, within an ulp of the C library's) enters.
    velocities : Kernel or None
        The kernel of q̇ = M(q)⁻¹ p whose statements are compiled beside this one's (ṗ): its ``rk4`` then steps
        Ivanov's (q, p) (:attr:`~baseparam.dynamics.momenta.CompiledRates.steps`).
    The C kernel (``fd``, ``fd_packed``, ``fd_batch`` and ``rk4``) is compiled on first need (:meth:`native`).
    """

    def __init__(self, robot, build=build_forward, velocities=None):
        self.n_q, self.n_v, self.floating = robot.n_q, robot.n_v, robot.is_floating
        self.velocities = velocities
        g, outputs = build(robot)
        self.graph, self.outputs = g, outputs
        # outputs beyond q̈: each joint's pivot and its scale (forward_graph's pivots), which say M(q) is singular
        self.n_pivots = sum(i >= robot.n_v for i, _ in outputs)
        offsets = motion_offsets(robot)
        first, shapes = (robot.n_q - robot.n_dof, robot.n_v - robot.n_dof), [j.friction_model for j in robot.joints]

        def source(name, k, language=NUMPY):
            return input_source(name, k, offsets, first, shapes, language)
        self._source = source
        self.same_as_numpy = all(model is None or model.is_default for model in shapes)
        rows = [((i,), node) for i, node in outputs]
        arguments = "q, qd, tau, p, out"
        self.batch, self.scalar = (numpy_function(g, rows, offsets, f"forward dynamics of {robot.name}", scalar=one,
                                                  arguments=arguments, inputs=source) for one in (False, True))
        self._lib, self._tried, self.calls, self.packed = None, False, 0, None
        self.statements = None                  # fd_batch's body length once compiled: its samples per call
        self._building = threading.Lock()

    def native(self, build=True):
        """The C kernel (a ctypes library), compiled and cached on the first request with ``build``;
        None without a C compiler (or before that request)."""
        if build and not self._tried:
            with self._building:              # one thread compiles; the others wait, then all run C
                if not self._tried:
                    body = c_statements(self.graph, self.outputs, lambda name, k: self._source(name, k, C))
                    solve = self.velocities and c_statements(self.velocities.graph, self.velocities.outputs,
                                                             lambda name, k: self.velocities._source(name, k, C))
                    lib = _native.load(c_source(self.n_q, self.n_v, self.floating, body, solve, self.n_pivots),
                                       SIGNATURES,
                                       _native.flags_for(len(body) + len(solve or ())))
                    self.statements = len(body)
                    if lib is not None:               # before _lib: whoever sees the library finds packed
                        self.packed = _native.holding_gil(lib.fd_packed)
                    self._lib, self._tried = lib, True
        return self._lib


# the graphs a Kernel compiles, by name: q̈ (the ABA), and the two halves of a simulation in Poisson impulses (q, p),
# q̇ = M(q)⁻¹ p and ṗ (Ivanov's rate), through the same C template and calls (q, q̇, τ) → out; 'momenta_steps' is ṗ
# with q̇ = M⁻¹ p beside it, whose rk4 steps (q, p)
GRAPHS = {"forward": functools.partial(build_forward, pivots=True),
          "inverse_mass": functools.partial(build_forward, inverse_mass=True),
          "momenta_rate": build_momenta_rate, "momenta_steps": build_momenta_rate}


def kernel(robot, graph="forward") -> Kernel:
    """The :class:`Kernel` of a robot's ``graph`` (:data:`GRAPHS`; built once per robot object and kept in its
    kernels)."""
    def build():
        return Kernel(robot, GRAPHS[graph], kernel(robot, "inverse_mass") if graph == "momenta_steps" else None)
    return kernels_of(robot).get(graph, (), build)


class ForwardDynamics:
    """A model's forward dynamics, its parameters bound: q̈ = M(q)⁻¹(τ − C q̇ − g − friction).

    For loops that evaluate one state at a time (controllers, integrators): the parameters are
    prepared once, and a call runs the compiled C kernel (or, without a C compiler, straight-line
    Python), with no per-call checks beyond the lengths and a q̈ that is not finite (an ArgumentError: NaN or
    inf in, or M(q) singular; the C kernel flags it itself) or beyond ±1e8 with M(q) singular to round-off
    (:func:`~baseparam.dynamics._definite.require_regular`); :func:`forward_dynamics` checks values, and refuses
    a q where parameters that are not of physical bodies make M(q) indefinite: see
    :mod:`baseparam.dynamics._definite`). A call writes into buffers of this object, under its lock, and returns a
    fresh array: threads may share one object (they then take turns; one object each runs them side by side). The C
    kernel of one sample runs without releasing the GIL, as pinocchio's functions do (a few µs; see
    :func:`baseparam.dynamics._native.holding_gil`); :meth:`batch` and :meth:`rk4` release it.

    Parameters
    ----------
    model : Model or BaseModel
        The robot and its parameters (a base model: its standard equivalent). Deprecated:
        ``robot, p, parameters='pseudo'``, p the standard parameters in ``ColumnLayout(robot,
        parameters)`` order.
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
    >>> model = bp.Model(robot, [0.25, 0, 0, 0, 0, 0, 0.5, 0, 0, 1.0])   # 1 kg at x = 0.5 m (pseudo)
    >>> fd = bp.ForwardDynamics(model)
    >>> float(fd([0.0], [0.0], [1.0])[0])            # gravity −z is along the axis: q̈ = τ / (m x²)
    4.0
    """

    _graph = "forward"          # the kernel's graph (GRAPHS): a private subclass evaluates another of the same form

    def __init__(self, model=None, *args, native=True, **kwargs):
        before = set(self.__dict__)             # a subclass's attributes set before this __init__
        if model is None and "robot" in kwargs:          # the deprecated form by keyword: (robot=..., p=...)
            model = kwargs.pop("robot")
        model = as_model(model) or model                 # a base set: its base model (no values: an error)
        if not isinstance(model, MODELS):
            model, rest = model_call("ForwardDynamics", ("p", "parameters", "native"), (model, *args), kwargs)
            native = rest.pop("native", native)
            if rest:
                raise TypeError(f"ForwardDynamics() got an unexpected keyword argument {next(iter(rest))!r}")
        elif args or kwargs:
            raise TypeError("ForwardDynamics(model, native=True) takes the model alone: its parameters are in it")
        check_flag(native, "native")
        model = standard_model(model)
        robot = model.robot
        self.model, self.robot, self.parameters = model, robot, model.parameters
        self.kernel = kernel(robot, self._graph)
        p = forward_parameters(robot, link_parameters(model))
        self._lock = threading.Lock()           # a call's buffers: threads may share one object (forward_dynamics does)
        self._p_list = p.tolist()
        n_q, n_v = robot.n_q, robot.n_v
        # one block in the order of the C kernel's fd_packed: q, q̇, τ, q̈ and the pivots, then the parameters
        pivots = self.kernel.n_pivots
        b = self._buffer = np.concatenate([np.zeros(n_q + 3 * n_v + pivots), p])
        ends = np.cumsum([n_q, n_v, n_v, n_v, pivots])
        self._q, self._qd, self._tau, self._out, self._pivots, self.p = np.split(b, ends)
        self._block = ctypes.c_void_p(address(b))
        self._p_address = address(self.p)       # b is this object's own, never resized: its address holds
        # memoryview copies a float64 buffer of the same length in C, several times faster than numpy's
        # slice assignment, and refuses anything else (other lengths, dtypes, lists) for numpy to convert
        view = memoryview(b)
        self._view_q, self._view_qd, self._view_tau = view[:n_q], view[n_q:n_q + n_v], view[n_q + n_v:n_q + 2 * n_v]
        self._call = None                       # the kernel's fd_packed, once it is compiled
        self._rk4_last = None                   # what rk4 checked last (_rk4_rows)
        if native:
            self.kernel.native()
        record_bound(self, before)

    @property
    def backend(self):
        """'c' when calls run the compiled kernel, else 'python'."""
        return "c" if self.kernel.native(build=False) is not None else "python"

    def __reduce__(self):
        # pickle, copy and deepcopy: a new object of the same model; the buffers, the lock and the C kernel's binding
        # are this object's and this process's own (ctypes pointers and a lock cannot be pickled nor shared by a copy);
        # a subclass's own attributes carried
        return reduce_bound(self, ForwardDynamics, self.backend == "c")

    def __call__(self, q, qd, tau):
        """q̈ of one sample: q (n_q,), q̇ and τ (n_v,) → a new ndarray (n_v,). A floating base's
        quaternion must be a unit quaternion here (no check; :func:`forward_dynamics` normalizes).

        Raises
        ------
        ArgumentError
            When q, q̇ or τ is not of its length (or not numbers), or q̈ is not finite (an input not finite or
            absurd, M(q) singular); one line naming it.
        """
        call = self._call
        if call is None:
            return self._unbound(q, qd, tau)
        # the whole call is a few µs, of which the C kernel most: no helper calls on this path
        with self._lock:                        # the fill, the kernel and the copy out: one thread at a time
            try:                                # plain ndarrays: a masked array's buffer holds its masked values
                if not type(q) is type(qd) is type(tau) is np.ndarray:
                    raise TypeError
                self._view_q[:] = q
                self._view_qd[:] = qd
                self._view_tau[:] = tau
            except (TypeError, ValueError):
                self._convert(q, qd, tau)
            # the kernel's flag: q̈ not finite (1), a pivot of round-off (2 + k), a q̈ beyond ABSURD (-1)
            flag = call(self._block)
            if flag == 1:
                _refuse(self._q, self._qd, self._tau, self._out)
            if flag > 1:
                require_pivots(self._pivots, at_this_q(0))
            out = self._out.copy()
            if flag:                            # a pivot the scales let through? (M(q) singular: q̈ 1e16, finite)
                require_regular(self.model, self._q.copy(), out, "q̈", at_this_q)
            return out

    def _unbound(self, q, qd, tau):
        """A call before this object has the C kernel: bind it if it is compiled, else straight-line Python."""
        if self.kernel.packed is not None:
            self._call = self.kernel.packed     # the kernel's, the same for every thread: no lock to bind it
            return self(q, qd, tau)
        with self._lock:                        # the buffers converted into, and read back from
            self._convert(q, qd, tau)
            q, qd, tau = self._q.copy(), self._qd.copy(), self._tau.copy()
        every = self._python_outputs(q, qd, tau)
        out = np.array(every[:self.robot.n_v])
        self._count(1)
        if not all(map(math.isfinite, out.tolist())):
            _refuse(self._q, self._qd, self._tau, out)
        require_pivots(np.array(every[self.robot.n_v:]), at_this_q(0))
        return require_regular(self.model, q, out, "q̈", at_this_q)

    def _python(self, q, qd, tau):
        """q̈ of one sample by the straight-line Python, in local lists (no buffer of this object: safe
        between threads)."""
        return np.array(self._python_outputs(q, qd, tau)[:self.robot.n_v])

    def _python_outputs(self, q, qd, tau):
        """:meth:`_python`'s q̈ followed by each joint's pivot and its scale (the kernel's outputs), a list."""
        size = self.robot.n_v + self.kernel.n_pivots
        out = [0.0] * size
        try:
            self.kernel.scalar(*(np.asarray(x, dtype=float).tolist() for x in (q, qd, tau)), self._p_list, out)
        except ZeroDivisionError:            # a zero pivot: M(q) singular; NaN as the C kernel gives
            out = [math.nan] * size
        return out

    def _convert(self, q, qd, tau):
        """Copy one sample of numbers into the buffers (lists, other dtypes, scalars broadcast); text, booleans,
        dates and masked values refused as :func:`forward_dynamics` refuses them (numpy's assignment read text as
        numbers, b'0.123456' for 0.12345678901 cut to 8 bytes, and a masked array's hidden values)."""
        for name, value, target in (("q", q, self._q), ("qd", qd, self._qd), ("tau", tau, self._tau)):
            value = real_array(name, value)
            try:
                target[:] = value
            except (TypeError, ValueError, OverflowError) as exc:      # OverflowError: an int beyond the floats
                reason = (str(exc).splitlines() or [type(exc).__name__])[0]
                raise ArgumentError(f"{name}: expected {target.size} numbers, shape ({target.size},), for one "
                                    f"sample ({reason})") from None

    def _count(self, calls):
        """Count one-sample evaluations; a robot evaluated often enough gets its C kernel compiled."""
        self.kernel.calls += calls
        if _native_rule.wanted(0, self.kernel.calls):
            self.kernel.native()

    def batch(self, q, qd, tau):
        """q̈ of sample arrays (n_samples, n_q), (n_samples, n_v), (n_samples, n_v) → (n_samples, n_v): the C loop
        (compiled from :data:`._native_rule.NATIVE_SAMPLES` samples on) where it gives numpy's numbers, and for small
        batches; else numpy over blocks of samples (or one sample at a time in Python).

        Raises
        ------
        ArgumentError
            Arrays of other shapes or not of numbers (other than float64 arrays of those shapes are checked as
            :func:`forward_dynamics` checks them); a q̈ that is not finite (an input not finite or absurd, or
            M(q) singular): one line naming the sample.
        """
        n_q, n_v = self.robot.n_q, self.robot.n_v
        arrays = (q, qd, tau)
        if not (all(type(x) is np.ndarray and x.dtype == np.float64 and x.ndim == 2 for x in arrays)
                and q.shape[1] == n_q and qd.shape[1] == tau.shape[1] == n_v and len(q) == len(qd) == len(tau)):
            (q, qd, tau), _ = check_robot_states(self.robot, q=q, qd=qd, tau=tau)
        elif 8 * len(q) * (2 * n_q + 3 * n_v) > CHECKED_BYTES:
            # float arrays as they are: their sizes still (contiguous copies of a broadcast view of 10⁹); fewer bytes
            # than check_state_sizes looks at (its copies and result are at most 2 n_q + 3 n_v floats a sample) cost
            # a small batch nothing
            check_state_sizes({"q": q, "qd": qd, "tau": tau})
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out, singular = self._batch(q, qd, tau)
        bad = ~np.isfinite(out)
        if bad.any():
            s = int(np.argmax(bad.any(axis=1)))
            _refuse(q[s], qd[s], tau[s], out, f"sample {s}: ")
        if singular >= 0:                   # the joint named from that sample's pivots
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                pivots = self._python_outputs(q[singular], qd[singular], tau[singular])[self.robot.n_v:]
                require_pivots(np.array(pivots), f"at sample {singular}")
        return require_regular(self.model, q, out, "q̈")

    def _batch(self, q, qd, tau):
        """(q̈ (S, n_v), the first sample whose pivot is round-off of its scale, or -1)."""
        S, n_v = q.shape[0], self.robot.n_v
        exact = self.kernel.same_as_numpy
        native = self.kernel.native(build=exact and S >= _native_rule.NATIVE_SAMPLES)
        if native is not None and (S < SMALL_BATCH or exact):
            q, qd, tau = (np.ascontiguousarray(x, dtype=float) for x in (q, qd, tau))
            out = np.empty((S, n_v))
            piece, singular = piece_samples(self.kernel.statements), -1
            for a in range(0, S, piece):              # in pieces: Ctrl-C is handled between calls
                b = min(S, a + piece)
                found = native.fd_batch(b - a, *(address(x) + 8 * a * x.shape[1] for x in (q, qd, tau)),
                                        address(self.p), address(out) + 8 * a * out.shape[1])
                if singular < 0 <= found:
                    singular = a + found
            return out, singular
        if S <= FEW:
            # the Python path on local lists, not self(): no turn taken at this object's lock and buffers per sample
            every = np.array([self._python_outputs(*row) for row in zip(q, qd, tau)]).reshape(
                S, n_v + self.kernel.n_pivots)
        else:
            every = np.empty((n_v + self.kernel.n_pivots, S))
            # p as float64 scalars: what depends on p alone (a leaf's pivot) divides as numpy does (inf, not
            # ZeroDivisionError) when M is singular
            in_blocks(self.kernel.batch, (q.T.copy(), qd.T.copy(), tau.T.copy()), self.p, out=every)
            every = every.T
        tiny = round_off_pivots(every[:, n_v:]).any(axis=1)
        return every[:, :n_v], int(np.argmax(tiny)) if tiny.any() else -1

    def rk4(self, q, qd, dt, tau, substeps=1, rows=None):
        """Fixed-step RK4 with the torque held over each step, in place.

        Parameters
        ----------
        q : ndarray, shape (n + 1, n_q)
            Row 0 the start; rows 1..n receive the states after each step (``rows`` = k: only row k + 1,
            one step from row k).
        qd : ndarray, shape (n + 1, n_v)
        dt : ndarray, shape (n,)
        tau : ndarray, shape (n, n_v)
            Held over step k.
        substeps : int
            RK4 steps per interval.
        rows : int, optional
            Step interval ``rows`` only (0 ≤ rows < n), from row ``rows`` of q and q̇ to the next; None: every
            interval.

        Raises
        ------
        ArgumentError
            Arrays that are not C-contiguous float64 ndarrays of those shapes, q and q̇ writable (the compiled loop
            reads and writes them by address: checked, not converted), ``rows`` beyond them, ``substeps`` not a positive
            integer, or more than :data:`MAX_RK4_STEPS` steps in one call; NaN or inf in
            the start, the steps or the torques used.
        SimulationError
            The motion diverged: a state written is not finite (the rows written keep what the steps gave).
        """
        k0, n, addresses = self._rk4_rows(q, qd, dt, tau, substeps, rows)
        # four tests joined by `and`, not a generator, and the rows' flags below only for a motion that diverged: a
        # controller's loop calls this for every interval (its checks are most of a short call)
        if not (np.isfinite(q[k0]).all() and np.isfinite(qd[k0]).all() and np.isfinite(dt[k0:k0 + n]).all()
                and np.isfinite(tau[k0:k0 + n]).all()):
            raise ArgumentError(f"q, qd, dt, tau: NaN or inf in the start (row {k0}) or the intervals stepped")
        self._rk4_steps(q, qd, dt, tau, substeps, k0, n, addresses)
        written = slice(k0 + 1, k0 + n + 1)
        if not (np.isfinite(q[written]).all() and np.isfinite(qd[written]).all()):
            # refused, not NaN rows left silently (simulate, which steps unchecked, says the same with the time)
            finite = np.isfinite(q[written]).all(axis=1) & np.isfinite(qd[written]).all(axis=1)
            bad = k0 + int(np.argmax(~finite))
            raise SimulationError(f"rk4: the motion diverged (a state not finite after interval {bad}); check the "
                                  "parameters (a physical body per link), the torques and the step")

    def _rk4_unchecked(self, q, qd, dt, tau, substeps=1, rows=None):
        """:meth:`rk4` without its checks of the values: the simulation's steps, which say themselves when and
        where a motion diverged (an interval's check would add to a controller's path)."""
        k0, n, addresses = self._rk4_rows(q, qd, dt, tau, substeps, rows)
        self._rk4_steps(q, qd, dt, tau, substeps, k0, n, addresses)

    def _rk4_steps(self, q, qd, dt, tau, substeps, k0, n, addresses):
        """The steps of :meth:`rk4` over intervals k0 .. k0 + n - 1, its arguments checked: a state that diverges is
        written as it comes (NaN, inf), for the simulation to say when it did."""
        substeps = int(substeps)            # an int subclass or a numpy integer as the C loop's count
        native = self.kernel.native(build=False)
        if native is not None:
            row_q, row_v = q.strides[0], qd.strides[0]
            at_q, at_qd, at_dt, at_tau = addresses    # the arrays' own, checked: not _rk4_last, which another
            #                                           thread's rk4 on other arrays may have replaced meanwhile
            piece, row_tau = rk4_piece(self.robot.n_v), tau.strides[0]
            if n * substeps <= piece:           # one call, as a controller's interval is
                native.rk4(n, at_dt + 8 * k0, substeps, at_tau + row_tau * k0, tau.shape[1], self._p_address,
                           at_q + row_q * k0, at_qd + row_v * k0)
                return
            if substeps <= piece:               # whole intervals per call of the compiled loop
                per = piece // substeps
                for k in range(k0, k0 + n, per):
                    native.rk4(min(per, k0 + n - k), at_dt + 8 * k, substeps, at_tau + row_tau * k, tau.shape[1],
                               self._p_address, at_q + row_q * k, at_qd + row_v * k)
                return
            x, v = np.empty((2, q.shape[1])), np.empty((2, qd.shape[1]))
            span = np.empty(1)
            for k in range(k0, k0 + n):         # an interval of more substeps than a piece: in pieces of 2^j steps
                x[0], v[0] = q[k], qd[k]
                h = float(dt[k]) / substeps     # the loop's step: h·2^j / 2^j is h exactly, the steps the same
                for steps in _powers_of_two(substeps, piece):
                    span[0] = h * steps
                    native.rk4(1, address(span), steps, at_tau + row_tau * k, tau.shape[1], self._p_address,
                               address(x), address(v))
                    x[0], v[0] = x[1], v[1]
                q[k + 1], qd[k + 1] = x[0], v[0]
            return
        for k in range(k0, k0 + n):
            x, v = q[k].copy(), qd[k].copy()
            h = dt[k] / substeps
            for _ in range(substeps):
                x, v = rk4_step(self._rate, x, v, h, self.robot.is_floating, tau[k])
            q[k + 1], qd[k + 1] = x, v

    def _rate(self, x, v, tau):
        """(q̇ as the configuration's rate, q̈) of one sample."""
        a = self._python(x, v, tau)         # unchecked: a singular M(q) is the simulation's divergence
        self._count(1)
        return configuration_rate(self.robot, x[None], v[None])[0], a

    def _rk4_rows(self, q, qd, dt, tau, substeps, rows):
        """(first interval, number of intervals, the arrays' addresses) of an :meth:`rk4` call, its arguments
        checked: a wrong shape would have the C loop read and write beyond the arrays."""
        last = self._rk4_last
        if not (last is not None and q is last[0]() and qd is last[1]() and dt is last[2]() and tau is last[3]()
                and (q.shape, qd.shape, dt.shape, tau.shape) == last[4]):
            # the arrays once per set of them: simulate steps interval by interval with the same ones (a controller's
            # path, where the full check at each step would add a quarter to its time); the same objects of the
            # same shapes keep the buffers checked (numpy's attributes cost some 0.1-0.3 µs each; not the sizes: an
            # array reshaped in place, `q.shape = (1, q.size)`, keeps its size, and its rows would be read and
            # written by the checked widths and lengths, beyond its end)
            last = self._rk4_arrays(q, qd, dt, tau)
        n_dt, n_rows, n_tau = last[5]
        if not _whole(substeps) or substeps < 1:
            raise ArgumentError(f"substeps: expected an integer ≥ 1, got {shown(substeps)}")
        if rows is None:
            k0, n = 0, n_dt
        elif _whole(rows) and 0 <= rows < n_dt:
            k0, n = int(rows), 1
        else:
            raise ArgumentError(f"rows: expected an interval 0 ≤ rows < {n_dt} (len(dt)), got {shown(rows)}")
        if not (n_rows >= k0 + n + 1 and n_tau >= k0 + n):
            raise ArgumentError(f"q, qd, tau: expected (n + 1) rows of q and qd and n of tau for intervals "
                                f"{k0}..{k0 + n - 1} of dt, got {q.shape}, {qd.shape}, {tau.shape}")
        if n * substeps > MAX_RK4_STEPS:
            raise ArgumentError(f"substeps: {substeps} × {n} intervals is more than {MAX_RK4_STEPS:.0e} RK4 steps in "
                                "one call; call it in pieces")
        return k0, n, last[6]

    def _rk4_arrays(self, q, qd, dt, tau):
        """Check rk4's arrays (kinds and widths) and keep them, weakly, with their shapes and lengths; that record."""
        for name, x in (("q", q), ("qd", qd), ("dt", dt), ("tau", tau)):
            written = name in ("q", "qd")
            if not (type(x) is np.ndarray and x.dtype == np.float64 and x.flags.c_contiguous
                    and (x.flags.writeable or not written) and x.ndim == (1 if name == "dt" else 2)):
                raise ArgumentError(f"{name}: expected a{' writable' if written else ''} C-contiguous float64 ndarray "
                                    f"of {1 if name == 'dt' else 2} dimensions (rk4 reads it by address), got "
                                    f"{type(x).__name__}{getattr(x, 'shape', '')}")
        n_q, n_v = self.robot.n_q, self.robot.n_v
        if (q.shape[1], qd.shape[1], tau.shape[1]) != (n_q, n_v, n_v) or len(qd) != len(q):
            raise ArgumentError(f"q, qd, tau: expected shapes (n + 1, {n_q}), (n + 1, {n_v}), (n, {n_v}), got "
                                f"{q.shape}, {qd.shape}, {tau.shape}")
        _refuse_shared_buffers({"q": q, "qd": qd, "dt": dt, "tau": tau})
        # their addresses too (`a.ctypes.data` costs some 5 µs, five of them a quarter of a controller's step in
        # notebook 07's simulations): an array's buffer moves only when ndarray.resize reallocates it, which numpy
        # refuses while a weak reference to the array exists, as here (even with refcheck=False)
        last = self._rk4_last = (*map(weakref.ref, (q, qd, dt, tau)), (q.shape, qd.shape, dt.shape, tau.shape),
                                 (len(dt), len(q), len(tau)), tuple(map(address, (q, qd, dt, tau))))
        return last


def _refuse_shared_buffers(arrays):
    """Refuse rk4's arrays (C-contiguous: their bounds overlap only where their values do) of which one it writes (q,
    qd) overlaps another: the loop would read states and torques that its own steps had overwritten (``rk4(q, q, …)``
    returned a motion, silently wrong)."""
    names = list(arrays)
    for i, written in enumerate(names[:2]):
        for other in names[i + 1:]:
            if np.may_share_memory(arrays[written], arrays[other]):
                raise ArgumentError(f"{written}, {other}: the same memory (rk4 writes {written} as it reads {other}); "
                                    "give separate arrays")


def _whole(x):
    """Whether ``x`` is a whole number (:func:`~baseparam._numbers.is_whole`: an int subclass is one, a bool or a numpy
    duration is none); a plain int answered first, cheaper than :func:`~baseparam._validation.check_number` on rk4's
    path."""
    return type(x) is int or is_whole(x)


def rk4_step(rate, x, v, h, floating, *args):
    """One classical RK4 step of the state (x, v) over ``h`` with ``rate(x, v, *args) -> (ẋ, v̇)``; a floating
    base's quaternion ``x[3:7]`` normalized after it."""
    k1, a1 = rate(x, v, *args)
    k2, a2 = rate(x + 0.5 * h * k1, v + 0.5 * h * a1, *args)
    k3, a3 = rate(x + 0.5 * h * k2, v + 0.5 * h * a2, *args)
    k4, a4 = rate(x + h * k3, v + h * a3, *args)
    x = x + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    v = v + h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
    if floating:
        x[3:7] /= np.linalg.norm(x[3:7])
    return x, v


def bound(model) -> ForwardDynamics:
    """The :class:`ForwardDynamics` of a model (its C kernel not compiled yet): kept with the model, and
    in the robot's kernels by the parameters' values (a few), so that models of the same values (the
    deprecated ``forward_dynamics(robot, p, …)`` makes one per call) share it."""
    model = standard_model(model)

    def find():
        p = model.values()
        return model.kernels.get("bound", (model.parameters, p.tobytes()),
                                 lambda: ForwardDynamics(model, native=False), size=BOUND_SIZE)
    return model.memo("forward", find)


@takes_model("p", "q", "qd", "tau", "parameters")
def forward_dynamics(model, q, qd, tau):
    """Joint accelerations q̈ = M(q)⁻¹(τ − C(q, q̇) q̇ − g(q) − friction(q̇)), rotor inertia in M.

    The articulated-body algorithm, O(N) per sample for chains and trees, never M⁻¹ (see
    :mod:`baseparam.dynamics.forward_graph`); vectorized over samples. The inverse of
    :func:`~baseparam.inverse_dynamics`. For a floating base q̈ starts with the derivative of the
    base twist and τ with the wrench applied to the base (zero: free floating).

    Parameters
    ----------
    model : Model or BaseModel
        The robot and its parameters (a base model: the ABA on its
        :meth:`BaseParameters.standard_preimage`, well posed wherever M(q) is positive definite). Deprecated:
        ``robot, p, q, qd, tau, parameters='pseudo'``.
    q : array_like, shape (n_samples, n_q) or (n_q,)
    qd, tau : array_like, shape (n_samples, n_v) or (n_v,)
        For a floating base, τ of ``n_dof`` columns (the joints alone) leaves the base free.

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,) for one sample)
    """
    robot = model.robot
    if robot.is_floating:
        # before tau is converted and widened
        check_state_sizes({"q": q, "qd": qd, "tau": tau}, peak("forward_dynamics", robot))
        tau = with_base_wrench(robot, real_array("tau", tau, ArgumentError))
    one = _one_sample(robot, q, qd, tau)
    if one is not None:                            # one good sample: checked cheaply, then the C kernel
        fd = bound(model)
        fd.kernel.native()
        qdd = fd(*one)                             # a q̈ not finite (M(q) singular) refused by the call itself
        if nonphysical_body(model) is not None:
            require_definite(model, one[0][None], at_this_q)
        return qdd
    (q, qd, tau), single = check_robot_states(robot, q=q, qd=qd, tau=tau, peak=peak("forward_dynamics", robot))
    fd = bound(model)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        qdd = fd(q[0], qd[0], tau[0]) if single else fd.batch(q, qd, tau)
    # a q̈ not finite (M(q) singular) has been refused by the call or the batch above
    require_definite(model, q, at_this_q if single else None)
    return qdd


def _refuse(q, qd, tau, qdd, place=""):
    """Refuse a q̈ (one sample, or (S, n_v)) that is not finite, in one line: the first of q, q̇, τ (of the sample
    ``place`` names, as 'sample s: ') not finite or absurd, else M(q) singular
    (:func:`~baseparam.dynamics._definite.require_finite`)."""
    for name, x in (("q", q), ("qd", qd), ("tau", tau)):
        if not (np.abs(x) <= ABSURD).all():
            raise ArgumentError(f"{name}: {place}expected finite numbers of magnitude at most {ABSURD:g}")
    require_finite(qdd, "q̈")


def _one_sample(robot, q, qd, tau):
    """(q, q̇, τ) as float arrays when they are one sample of real numbers (integers or floats) of the right
    lengths, finite and not absurd (a floating base's quaternion of unit length to 1e-12); else None, and the
    full checks decide (and refuse booleans, text, complex numbers with their one-line errors)."""
    # an ndarray subclass (a masked array: np.asarray reads its masked values; a matrix) is left to the full checks;
    # plain ndarrays pass on the first test, which costs a tenth of the second's generator (one-sample calls)
    if not type(q) is type(qd) is type(tau) is np.ndarray and \
            any(isinstance(x, np.ndarray) and type(x) is not np.ndarray for x in (q, qd, tau)):
        return None
    try:
        arrays = [np.asarray(x) for x in (q, qd, tau)]
    except (TypeError, ValueError):
        return None
    if arrays[0].shape != (robot.n_q,) or arrays[1].shape != (robot.n_v,) or arrays[2].shape != (robot.n_v,):
        return None
    if any(a.dtype.kind not in "iuf" for a in arrays):
        return None
    # the sum of the magnitudes, on Python floats (a few: numpy's per-call cost would be most of the check):
    # NaN and inf carry through the sum, and a value beyond ABSURD takes it beyond; large finite values may
    # too, and the full checks then accept them
    if not sum(map(abs, arrays[0].tolist() + arrays[1].tolist() + arrays[2].tolist())) <= ABSURD:
        return None
    arrays = [a.astype(np.float64, copy=False) for a in arrays]
    if robot.is_floating and abs(arrays[0][3:7] @ arrays[0][3:7] - 1.0) > 1e-12:
        return None                                # normalized by the full path
    return arrays
