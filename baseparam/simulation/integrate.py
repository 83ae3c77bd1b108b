"""Simulation: a robot's motion under given torques or a controller, as a :class:`~baseparam.Trajectory`.

Two integrators:

* ``method='rk4'`` — classical Runge–Kutta with a fixed step: one step (or ``substeps``) per
  interval of ``t``, the torque held over it (zero-order hold). A controller ``tau(t, q, qd)`` is
  called once per interval, at its start, with the state there: a digital controller at the rate
  of ``t``. The whole loop runs in the compiled C kernel (:class:`~baseparam.ForwardDynamics`), the
  controller in Python between steps.
* any method of :func:`scipy.integrate.solve_ivp` (``'RK45'``, the default ``'DOP853'``, ``'Radau'``,
  …) — adaptive steps to ``rtol``/``atol``, samples at the times ``t``. A controller is then a
  continuous-time law, called at every evaluation; a torque array is interpolated linearly in time.

Coulomb friction (FC sign q̇) switches where a joint reverses: adaptive methods then shrink their
steps to resolve the switch (slow, but accurate); RK4 steps across it, first-order accurate in the
step where the sign changes. The implicit methods (``'BDF'``, ``'Radau'``, ``'LSODA'``) are refused on it where a
joint with such friction starts at rest or its q̇ changes sign (at the evaluation that sees it, the run's work until
then lost): their Newton iteration has no root across the jump where a joint sticks (BDF's sticking joints came out
moving 0.14 rad). A motion whose joints keep their direction runs under them, and a smooth friction model (tanh)
always does.

A floating base's quaternion is integrated with the rest of the state and renormalized after every
RK4 step; under ``solve_ivp`` its rate carries a term that pulls it back to unit length
(``λ(1 − |q|²) q``, λ = 10/s), and the logged quaternions are normalized.

``state='momenta'`` integrates Ivanov's form instead, the configuration and the Poisson impulses
(q, p) with ṗ = Aᵀ(F* − v ×* μ) + Q (:func:`~baseparam.dynamics.momenta.momenta_rate`) and q̇ = M(q)⁻¹ p by
his O(N) recursion. Its steps run compiled, a fixed or a floating base
(:class:`~baseparam.dynamics.momenta.CompiledRates`: the articulated inertias' sweep, then ṗ; ``solve_ivp`` calls
both kernels per evaluation, ``rk4`` steps an interval in one compiled loop of them); the logged q̇ come from the
same kernel, at every sample at once after a ``solve_ivp`` run. ``solver`` (``'ltdl'`` or ``'sweep'``) chose numpy's
solver of those q̇ until this release (the same numbers to 1e-13, numpy's recursion many times slower;
``bench/bench_momenta_rates.py`` prints both): it is still checked, and :func:`~baseparam.velocities_from_momenta`
keeps both. It is there for his method and for comparison.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Set
from functools import partial
from itertools import islice

import numpy as np

from .._checks import counted, shown
from .._numbers import check_state_values, real_array, within_absurd
from ..dynamics._definite import require_definite
from ..dynamics.floating import configuration_rate, with_base_wrench
# MAX_RK4_STEPS: substeps × intervals, 10 s (3 joints) to a minute (a floating base) of the compiled loop
from ..dynamics.forward import MAX_RK4_STEPS, ForwardDynamics, rk4_step
from ..dynamics.momenta import SOLVERS, CompiledRates, generalized_momenta
from ..dynamics.samples import standard_model
from .._validation import ABSURD, check_allocation, check_instance, check_number, check_option, check_robot_states
from .._warnings import recorded
from ..errors import ArgumentError, ArgumentTypeError, BaseParamError, SimulationError
from ..model.parameters import shaped_friction_terms
from ..model.value import takes_model
from ..motion import MIN_SAMPLES, Trajectory, interp_columns
from .noise import SensorNoise, checked_gains

QUATERNION_PULL = 10.0      # 1/s: how fast solve_ivp's quaternion is pulled back to unit length
RECORD = ("q", "qd", "qdd", "tau")
# the names a record may list (repeats allowed): more is no request for some of RECORD
MAX_RECORD_NAMES = 100
EVALUATIONS_PER_INTERVAL = 2_000    # solve_ivp right-hand sides per interval of t begun before the motion is refused
EVALUATIONS_AT_START = 20_000       # … and beside them, wherever the motion is (a start's first steps, a sharp turn)
FINEST_COUNTED = 1e-4               # s: intervals of t shorter than this earn evaluations as intervals of this length
PIECE = 100_000             # RK4 steps per call of the compiled loop, which Ctrl-C cannot stop: under a second
MIN_STEP = 1e-9             # s: the shortest time step taken (a nanosecond; no robot's log is sampled faster)
IMPLICIT = ("BDF", "Radau", "LSODA")      # solve_ivp's methods whose steps solve for their end state (Newton)
MIN_RTOL = 100 * np.finfo(float).eps    # solve_ivp's smallest rtol: it raises a smaller one to it, with a UserWarning


@takes_model("p", "t", "q0", "qd0", "tau", "noise")
def simulate(model, t, q0, qd0, tau=None, noise=None, *, method="DOP853", substeps=1,
             rtol=1e-9, atol=1e-9, gains=None, record=RECORD, state="velocities", solver="ltdl", source=None):
    """Simulate a robot from (q0, q̇0) along the times ``t`` and log it as a :class:`~baseparam.Trajectory`.

    Parameters
    ----------
    model : Model or BaseModel
        The robot and its parameters, e.g. ``bp.Model(robot)`` (the description's inertias).
        Deprecated: ``robot, p, t, …, parameters='pseudo'`` (p standard parameters, ``parameters=``
        keyword-only).
    t : array_like, shape (n_samples,)
        Increasing times (s), at least 10: the samples of the log and, for ``rk4``, the controller's ticks.
    q0 : array_like, shape (n_q,)
    qd0 : array_like, shape (n_v,)
    tau : None, array_like or callable
        Joint torques: None (zero), one row (n_v,) held throughout, rows (n_samples, n_v) at the times ``t``,
        or a controller ``tau(t, q, qd) -> (n_v,)``. For a floating base, rows of ``n_dof`` (the
        joints only) leave the base free (zero wrench).
    noise : SensorNoise, optional
        What the sensors add to the log (seeded); the motion itself is noise-free.
    method : str
        ``'rk4'`` (fixed step, torque held per interval) or a :func:`scipy.integrate.solve_ivp` method; the implicit
        ones (BDF, Radau, LSODA) only while no joint whose friction jumps at q̇ = 0 (sign(q̇) Coulomb or Stribeck,
        not 0) is at rest or reverses (module notes). LSODA runs holding the process's lock of warning records
        (Python's warning filters are the process's): a controller must not wait for another thread that calls this
        package meanwhile (it would wait for the run's end: a deadlock).
    substeps : int
        RK4 steps per interval of ``t`` (``rk4`` only: another method refuses a count other than 1); at most 1e7
        steps in all.
    rtol, atol : float
        ``solve_ivp`` tolerances: rtol from 100 ε (2.2e-14, solve_ivp's smallest) to 1, atol > 0 (with 0 the step
        control can stall) and at most 1e8 (the bound on a state).
    gains : array_like, shape (n_dof,), optional
        Drive gains in N·m/A, for ``noise.current``.
    record : sequence of str
        The fields the log keeps, of q, qd, qdd, tau (q and tau always): a robot's log often lacks
        qdd, or qd; identification derives them.
    state : {'velocities', 'momenta'}
        Integrate (q, q̇) or Ivanov's (q, p) (module notes).
    solver : {'ltdl', 'sweep'}
        Ivanov's solver for ``state='momenta'``, checked; the logged q̇ are the compiled kernel's, as every step's,
        within 1e-13 of either numpy solver (module notes).
    source : str, optional
        The log's name (default ``simulate(<robot name>)``).

    Returns
    -------
    Trajectory
        t (n_samples,), q (n_samples, n_q), qd and qdd (n_samples, n_v) or None, tau (n_samples, n_v) — the
        torque applied at each sample (held over the interval with ``rk4``); ``floating`` set for a floating base.

    Raises
    ------
    ArgumentError
        Bad shapes, non-finite values, times not increasing, an unknown method or option, an implicit method on
        sign(q̇) friction where a joint is at rest or reverses, a controller returning the wrong shape, or raising (its
        exception chained as ``__cause__``).
    SimulationError
        A motion that blows up (non-finite state), or reaches a q where M(q) is not positive definite
        (parameters that are not of physical bodies: at q0 already, an ArgumentError); an ArithmeticError (and
        an ArgumentError for one release, what earlier versions raised).
    """
    model = standard_model(model)                            # a base model's standard equivalent
    robot = model.robot
    model.values()                                           # refuses a model without values, in one line
    t = checked_times(t, 4 * robot.n_v + robot.n_q + 1)        # t, q, q̇, q̈, τ and the samples' copies
    # numbers first: a ragged list reached np.atleast_2d's bare ValueError
    (q0, qd0), _ = check_robot_states(robot, q=np.atleast_2d(real_array("q0", q0)),
                                      qd=np.atleast_2d(real_array("qd0", qd0)))
    if q0.shape[0] != 1:
        raise ArgumentError(f"q0, qd0: expected one state (n_q,) and (n_v,), got {counted(q0.shape[0], 'samples')}")
    torque = _Torque(robot, tau, t)
    if torque.rows is not None:     # within ±ABSURD, as forward_dynamics takes them (beyond: scipy overflowed)
        check_state_values("tau", torque.rows)
    check_option(state, "state", ("velocities", "momenta"), expected="'velocities' or 'momenta'")
    check_option(solver, "solver", SOLVERS, expected=f"one of {SOLVERS!r}")
    record = checked_record(record)
    substeps = check_number(substeps, "substeps", low=1, integer=True, expected="an integer ≥ 1")
    # a name, or a solve_ivp OdeSolver class; anything else is refused before it is compared with 'rk4'
    check_instance(method, "method", (str, type), "'rk4' or a scipy.integrate.solve_ivp method (str)")
    check_instance(source, "source", str, "a str", allow_none=True)
    if method != "rk4" and substeps != 1:       # solve_ivp chooses its own steps: the count was ignored, silently
        raise ArgumentError(f"substeps: {substeps} RK4 steps per interval, and method={shown(method)} chooses its "
                            "own steps (rtol, atol); give method='rk4' for a fixed step, or leave substeps out")
    if method == "rk4" and substeps * (len(t) - 1) > MAX_RK4_STEPS:
        # a bound on the run's time (Ctrl-C stops it between calls of the compiled loop, each of PIECE steps)
        raise ArgumentError(f"substeps: {substeps} substeps × {len(t) - 1} intervals is more than "
                            f"{MAX_RK4_STEPS:.0e} RK4 steps; use fewer substeps or method='DOP853'")
    # rtol or atol 0 (or NaN) stalls solve_ivp's step control on a state component at 0: refused up front. Beyond
    # solve_ivp's own range it printed its warnings (an rtol below 100 ε raised to it with a UserWarning, 1e308 a
    # RuntimeWarning overflow): rtol from 100 ε (what it then uses) to 1 (a 100 % error), atol at most the states'
    # bound (ABSURD; a tolerance beyond any state controls nothing)
    rtol = check_number(rtol, "rtol", low=MIN_RTOL, high=1.0, expected=f"a number > 0, from {MIN_RTOL:.3g} to 1")
    atol = check_number(atol, "atol", low=0, high=ABSURD, strict=True, expected=f"a number > 0 and ≤ {ABSURD:g}")
    checked_noise(noise)
    gains = checked_gains(gains, robot.n_dof)
    require_definite(model, q0, lambda s: "at q0")            # bodies not physical: a motion of no robot
    watch = refuse_implicit_with_sign_friction(model, method)
    fd = ForwardDynamics(model)
    # A controller's torques of 1e200 overflow the steps' sums (numpy's and scipy's raw RuntimeWarnings): the state
    # they reach is then not finite or beyond ABSURD, which every step and the check below refuse as a divergence
    # (SimulationError); the warning was all an overflow added, since errstate changes no number computed.
    with np.errstate(over="ignore", invalid="ignore"):
        if method == "rk4":
            if state == "momenta":
                q, qd, taus = _rk4_momenta(model, t, q0[0], qd0[0], torque, substeps)
            else:
                q, qd, taus = _rk4(fd, t, q0[0], qd0[0], torque, substeps)
        else:
            q, qd, taus = _ivp(model, fd, t, q0[0], qd0[0], torque, method, rtol, atol, state, watch)
    if not (within_absurd(q) and within_absurd(qd)):      # the rows are looked at only past the quick test
        _refuse_divergence(t, q, qd)
    require_definite(model, q, lambda s: f"at t = {t[s]:.6g} s", SimulationError)
    fields = {"q": q, "qd": qd, "tau": taus, "qdd": fd.batch(q, qd, taus) if "qdd" in record else None}
    return logged(robot.n_dof, t, fields, noise, gains, record, source or f"simulate({robot.name})",
                  robot.is_floating)


def _refuse_divergence(t, q, qd):
    """Refuse, by a SimulationError, a motion (q (n_samples, n_q), q̇ (n_samples, n_v) at times t) with a state
    not finite, or beyond ABSURD, at the first such time; return when there is none. rk4's fixed steps stop only where
    a state is not finite: one beyond ABSURD (a singular M(q) to round-off gave q̇ = 1e15 rad/s at the first step) was
    logged as the motion; solve_ivp's steps refuse it (rhs)."""
    finite = np.isfinite(q).all(axis=1) & np.isfinite(qd).all(axis=1)
    if not finite.all():
        raise SimulationError(f"the simulation diverged (non-finite state at t = {t[int(np.argmax(~finite))]:.6g} s); "
                              "check the parameters (a physical body per link), the torques and the time step")
    bounded = (np.abs(q) <= ABSURD).all(axis=1) & (np.abs(qd) <= ABSURD).all(axis=1)
    if bounded.all():       # a few large values within the bound fail the quick test (a sum of magnitudes) alone
        return
    bad = int(np.argmax(~bounded))
    raise SimulationError(f"the simulation diverged (a state beyond {ABSURD:g} at t = {t[bad]:.6g} s); check the "
                          "parameters (a physical body per link), the torques and the time step")


def is_implicit(method):
    """Whether ``method`` (a name or a :class:`scipy.integrate.OdeSolver` class) is one of solve_ivp's implicit
    methods (BDF, Radau, LSODA, or a subclass): each step solves for its end state by Newton's iteration."""
    from scipy.integrate import BDF, LSODA, Radau
    if isinstance(method, type):
        return issubclass(method, (BDF, Radau, LSODA))
    return method in IMPLICIT


def method_name(method):
    """A solve_ivp method's name: the text given, or the OdeSolver class's name."""
    return method if isinstance(method, str) else method.__name__


def sign_friction_joints(model):
    """The joints whose friction jumps at q̇ = 0 — a Coulomb (or Stribeck) term of shape sign(q̇) with a value other
    than 0 — as a list of (its number, 1-based; 'Coulomb' or 'Stribeck', the first such term), in the joints'
    order."""
    found = {}
    for k, kind, shape in shaped_friction_terms(model.robot, model.p, model.parameters):
        if shape is None or shape.coulomb == "sign":
            found.setdefault(k + 1, {"FC": "Coulomb", "FS": "Stribeck"}[kind])
    return list(found.items())


def refuse_implicit_with_sign_friction(model, method):
    """For an implicit method (:func:`is_implicit`) on a robot whose friction jumps at q̇ = 0
    (:func:`sign_friction_joints`), the :class:`_SignWatch` that refuses the run, in one line saying what to use
    instead, at its first evaluation where such a joint is at rest or its q̇ has changed sign; None otherwise (nothing
    to watch). Newton's iteration across sign(q̇) has no root where a joint sticks: BDF returned joints moving 0.14 rad
    where they stick (RK4: 6e-5), Radau and LSODA failed at the first step. A run whose every evaluation keeps each
    such joint's sign evaluated the friction of one smooth branch (±FC, the Stribeck term's exp(−(q̇/v_s)²) of one
    side) only: the method's steps and Newton's iterations are then exactly those of that smooth right-hand side,
    whose solution the error control follows, and the run is kept. RK4 with substeps is named first: an adaptive
    explicit method follows a joint that sticks by ever smaller steps (DOP853 ran out of its evaluation budget on the
    sticking planar arm)."""
    if not is_implicit(method):
        return None
    found = sign_friction_joints(model)
    return _SignWatch(found, method_name(method)) if found else None


class _SignWatch:
    """The signs of q̇ that an implicit method's evaluations give the joints whose friction jumps at q̇ = 0: the
    first evaluation's (the initial state's; a joint at rest there is refused, its friction about to jump), and an
    ArgumentError at the first evaluation where one of them differs (Newton's trial states and a finite-difference
    Jacobian's included: whatever the right-hand side saw)."""

    def __init__(self, found, method):
        self.joints = found
        self.columns = np.array([k - 1 for k, _ in found])
        self.method, self.signs = method, None

    def __call__(self, time, qd):
        """Look at one evaluation's joint velocities (n_dof,: a floating base's twist left out) at ``time``."""
        signs = np.sign(qd[self.columns])
        if self.signs is None:
            self.signs = signs
            self._refuse(signs == 0, "it starts at rest")
        else:
            self._refuse(signs != self.signs, f"its q̇ changes sign by t = {time:.6g} s")

    def _refuse(self, where, why):
        if where.any():
            k, term = self.joints[int(np.argmax(where))]
            raise ArgumentError(f"method: {shown(self.method)} is implicit, and joints[{k}]'s {term} friction sign(q̇) "
                                f"jumps at q̇ = 0, where Newton's iteration has no solution (a sticking joint came out "
                                f"moving; {why}); use method='rk4' with substeps, an explicit method ('DOP853') while "
                                "no joint sticks, or a smooth friction model (friction_model='smooth:V')")


def logged(n_dof, t, fields, noise=None, gains=None, record=RECORD, source=None, floating=False):
    """The :class:`~baseparam.Trajectory` a robot's sensors would log of a simulated motion.

    Parameters
    ----------
    n_dof : int
        The robot's joints (a floating base's columns come first and stay noise-free).
    t : ndarray, shape (n_samples,)
    fields : dict
        The noise-free q, qd, tau (and qdd, or None) of the motion.
    noise, gains, record, source
        As in :func:`simulate` (checked there).
    floating : bool
    """
    if noise is not None:
        fields = {**fields, **noise.apply(fields, n_dof, gains)}
    return Trajectory(t=t, q=fields["q"], tau=fields["tau"], qd=fields["qd"] if "qd" in record else None,
                      qdd=fields["qdd"] if "qdd" in record else None, source=source, floating=floating)


def checked_noise(noise):
    """Refuse a ``noise`` that is neither None nor a :class:`SensorNoise`, before anything is simulated."""
    check_instance(noise, "noise", SensorNoise, "a bp.SensorNoise", allow_none=True)


def checked_record(record):
    """``record`` as a tuple of field names (a generator read once, up to :data:`MAX_RECORD_NAMES` names), or a
    one-line refusal: a mapping (``{}`` was read as its keys, no field) and a set (its order, the result's, is the
    hashes') are no sequence of names."""
    if isinstance(record, (str, bytes, Mapping, Set)) or not isinstance(record, Iterable):
        raise ArgumentTypeError(f"record: expected a tuple of field names (some of {RECORD}), got "
                                f"{type(record).__name__}")
    names = tuple(islice(record, MAX_RECORD_NAMES + 1))    # an endless generator was read for ever
    if len(names) > MAX_RECORD_NAMES:
        raise ArgumentError(f"record: more than {MAX_RECORD_NAMES} names; expected some of {RECORD}")
    try:
        unknown = set(names) - set(RECORD)
    except TypeError:                                   # an unhashable item (a list, an array)
        raise ArgumentError(f"record: expected some of {RECORD}, got {shown(names)}") from None
    if unknown:
        # by repr: names of several types (1 and 'x') cannot be sorted by value
        raise ArgumentError(f"record: unknown fields {shown(sorted(unknown, key=repr))}; expected some of {RECORD}")
    return names


def checked_times(t, width, minimum=MIN_SAMPLES, why="a Trajectory's minimum", n_samples=None):
    """Times as a float array (S,), finite and increasing, S ≥ ``minimum`` (``why``: the reason, in the message), or
    exactly ``n_samples`` (those of the states given with them); ``width``: the floats a sample keeps (its memory
    checked before any time is read: a broadcast view of 10⁹ times costs none, its scan seconds). The one check of
    the simulations' times."""
    t = real_array("t", t, ArgumentError)
    other_count = n_samples is not None and t.shape[:1] != (n_samples,)
    if t.ndim != 1 or other_count or t.shape[0] < minimum:
        size = f"S = {n_samples} (the states' samples)" if other_count else f"S ≥ {minimum} ({why})"
        raise ArgumentError(f"t: expected increasing times of shape (S,) with {size}, got shape {t.shape}")
    check_allocation((t.shape[0], width), "t", f"{counted(t.shape[0], 'samples')} (the motion simulated)")
    if not np.isfinite(t).all():
        raise ArgumentError("t: contains NaN or inf")
    step = np.diff(t)
    if not (step > 0).all():
        k = int(np.argmax(~(step > 0))) + 1
        raise ArgumentError(f"t: times must increase; t[{k}] = {float(t[k])!r} after t[{k - 1}] = {float(t[k - 1])!r}")
    if step.min() < MIN_STEP:
        # SciPy's first-step estimate divides by the step: 5e-324 s overflowed into a raw RuntimeWarning, and a run
        # of zeros came back
        k = int(np.argmax(step < MIN_STEP)) + 1          # the first
        raise ArgumentError(f"t: a step of {float(step[k - 1]):.3g} s (t[{k}] after t[{k - 1}]), below {MIN_STEP:g} s: "
                            "no robot is sampled that fast; give the times in seconds")
    return t


class _Torque:
    """τ(t, q, q̇) from None, a row, rows at the times t (held or interpolated) or a controller."""

    def __init__(self, robot, tau, t):
        self.robot, self.t = robot, t
        self.callback = tau if callable(tau) else None
        self.errors = np.geterr()       # the caller's: the controller runs under them, not the integration's errstate
        self.rows = None
        if self.callback is None:
            rows = np.zeros((1, robot.n_v)) if tau is None else real_array("tau", tau, ArgumentError)
            if rows.ndim == 1:
                rows = rows[None]
            if rows.ndim != 2 or rows.shape[0] not in (1, len(t)) or rows.shape[1] not in (robot.n_v, robot.n_dof):
                raise ArgumentError(f"tau: expected ({robot.n_v},) or ({len(t)}, {robot.n_v}) torques (or a "
                                    f"controller tau(t, q, qd)), got shape {rows.shape}")
            if not np.isfinite(rows).all():
                raise ArgumentError("tau: contains NaN or inf")
            self.rows = np.broadcast_to(with_base_wrench(robot, rows), (len(t), robot.n_v))

    def _interpolated(self, time):
        """The rows interpolated linearly at ``time``, from the two around it: np.interp over the whole of t converted
        every column (O(S) an evaluation: 10⁶ samples took ms a call); on the interval's two rows it finds the same
        interval and gives its numbers to the bit."""
        lo = min(max(int(np.searchsorted(self.t, time, side="right")) - 1, 0), len(self.t) - 2)
        return interp_columns([time], self.t[lo:lo + 2], self.rows[lo:lo + 2])[0]

    def at_samples(self, q, qd):
        """The torques (S, n_v) at the times t of a motion's states q (S, n_q), q̇ (S, n_v): a controller called at
        each sample; rows as given (np.interp at t[k] itself is rows[k], to the bit: 10⁶ samples were 10⁶ calls of
        it, 20 s). Each row copied as it comes: a controller that returns one buffer it fills at every call gave every
        sample the last call's torques."""
        if self.callback is None:
            return np.array(self.rows, dtype=float)
        out = np.empty((len(self.t), self.robot.n_v))
        for k, time in enumerate(self.t):
            out[k] = self(time, q[k], qd[k])
        return out

    def __call__(self, time, q, qd, k=None):
        if self.callback is None:
            return self.rows[k] if k is not None else self._interpolated(time)
        try:
            with np.errstate(**self.errors):
                # copies: q and q̇ were views of the log (rk4) or of the solver's state, which a controller that works
                # in its arguments (q -= q_ref) changed under the integrator, silently (the planar arm's log 2e8 off)
                value = self.callback(time, np.array(q), np.array(qd))
        except BaseParamError:                     # the library's own one-line words, as they are
            raise
        except Exception as exc:                   # the controller's failure, named as such (its traceback chained)
            raise ArgumentError(f"tau: the controller raised {type(exc).__name__} at t = {time:.6g} s: "
                                f"{shown(str(exc), 100)}") from exc
        # real_array as every array argument: text, objects, a masked value, complex or an int beyond float64 refused in
        # one line (a masked value was read under the mask, complex cast with numpy's ComplexWarning, 10**400 a bare
        # OverflowError)
        value = real_array(f"tau: the controller returned values at t = {time:.6g} s", value, ArgumentError)
        if value.shape not in ((self.robot.n_v,), (self.robot.n_dof,)) or not np.isfinite(value).all():
            raise ArgumentError(f"tau: the controller returned {value.shape} values at t = {time:.6g} s "
                                f"(expected {self.robot.n_v} finite torques)")
        return with_base_wrench(self.robot, value)


def _rk4(fd, t, q0, qd0, torque, substeps):
    S = len(t)
    q, qd = np.empty((S, fd.robot.n_q)), np.empty((S, fd.robot.n_v))
    q[0], qd[0] = q0, qd0
    dt = np.diff(t)
    control = torque.callback is not None
    taus = np.empty((S, fd.robot.n_v)) if control else np.array(torque.rows, dtype=float, order="C")
    start = 0 if control else _pieces_while_finite(fd, q, qd, dt, taus, substeps)
    for k in range(start, S - 1):               # interval by interval: the same steps, with Python between
        if control:
            taus[k] = torque(t[k], q[k], qd[k])
        _interval(fd, q, qd, dt, taus, substeps, k)
        if not np.isfinite(qd[k + 1]).all():
            break
    if control:
        taus[-1] = torque(t[-1], q[-1], qd[-1])
    return q, qd, taus


def _pieces_while_finite(fd, q, v, dt, taus, substeps, logged=None):
    """Held torque rows' intervals stepped by ``fd``'s compiled loop in calls of about :data:`PIECE` steps (Ctrl-C
    waits for one), while the states (q, v) stay finite; the number of intervals done: all of them, or up to the
    piece where a state is not finite first, left to the steps interval by interval, which stop where it diverged (a
    motion diverging early did not run on in NaN). ``logged(a, b)`` completes a finite piece's rows a..b-1 (False:
    the piece is left to the intervals too). Intervals of more than PIECE substeps are left to them all
    (:func:`_interval`'s own pieces). Interval by interval, Python's call per interval cost about ten times the
    compiled steps themselves on a planar arm."""
    if substeps > PIECE:
        return 0
    per, n = PIECE // substeps, len(dt)
    for k0 in range(0, n, per):
        k1 = min(n, k0 + per)
        rows = slice(k0, k1 + 1)
        with np.errstate(all="ignore"):
            fd._rk4_unchecked(q[rows], v[rows], dt[k0:k1], taus[k0:k1], substeps)
        if not (np.isfinite(q[rows]).all() and np.isfinite(v[rows]).all()) or (logged and not logged(k0 + 1, k1 + 1)):
            return k0
    return n


def _interval(fd, q, qd, dt, taus, substeps, k):
    """RK4 over interval k (q[k], qd[k] → q[k + 1], qd[k + 1]), in calls of the compiled loop of at most
    :data:`PIECE` steps: Ctrl-C waits for one call, not for the interval. Pieces of many substeps each take
    their share of the interval (the step differs from dt/substeps by round-off only)."""
    if substeps <= PIECE:
        fd._rk4_unchecked(q, qd, dt, taus, substeps, rows=k)
        return
    x, v = np.empty((2, q.shape[1])), np.empty((2, qd.shape[1]))
    x[0], v[0] = q[k], qd[k]
    for start in range(0, substeps, PIECE):
        steps = min(PIECE, substeps - start)
        fd._rk4_unchecked(x, v, np.array([dt[k] * steps / substeps]), taus[k:k + 1], steps)
        x[0], v[0] = x[1], v[1]
        if not np.isfinite(v[0]).all():
            break
    q[k + 1], qd[k + 1] = x[0], v[0]


def _ivp(model, fd, t, q0, qd0, torque, method, rtol, atol, state, watch=None):
    robot, n_q = model.robot, model.n_q
    if state == "momenta":
        compiled = CompiledRates(model)
        momenta_rates = _momenta_rates(compiled)[1]
        y0 = np.concatenate([q0, generalized_momenta(model, q0, qd0)])
    else:
        y0 = np.concatenate([q0, qd0])

    def unit(q):
        if robot.is_floating:
            q = q.copy()
            q[3:7] /= np.linalg.norm(q[3:7])
        return q

    budget = _EvaluationBudget(t)
    newton = is_implicit(method)
    name = method_name(method)

    def rhs(time, y):
        if not (np.abs(y) <= ABSURD).all():     # diverging (or NaN): stop, rather than shrink the step forever
            if newton:      # a trial of Newton's iteration, not a state of the motion (NaN rates reached its LU)
                raise SimulationError(f"the simulation stopped at t = {time:.6g} s: method {shown(name)} failed, its "
                                      f"steps trying a state beyond {ABSURD:g} (Newton's iteration, or the motion "
                                      "diverging); check the parameters, the torques and the tolerances, or use an "
                                      "explicit method ('DOP853')")
            raise SimulationError(f"the simulation diverged (a state beyond {ABSURD:g} or not finite at "
                                  f"t = {time:.6g} s); check the parameters (a physical body per link) and the torques")
        budget.spend(time)
        with np.errstate(all="ignore"):         # a singular M(q) gives non-finite rates, refused above next call
            return _rates(time, y)

    def _rates(time, y):
        q = unit(y[:n_q])
        if state == "momenta":
            dq, rate = momenta_rates(time, q, y[n_q:], lambda qd: torque(time, q, qd))
            if watch is not None:       # the joints' q̇ = M⁻¹ p that ṗ's friction saw, the last of dq/dt
                watch(time, dq[n_q - robot.n_dof:])
        else:
            qd = y[n_q:]
            if watch is not None:
                watch(time, qd[robot.n_v - robot.n_dof:])
            rate = _kernel_at(time, fd, q, qd, torque(time, q, qd))
            dq = configuration_rate(robot, q[None], qd[None])[0]
        if robot.is_floating:
            quat = y[3:7]
            dq[3:7] += QUATERNION_PULL * (1.0 - quat @ quat) * quat
        return np.concatenate([dq, rate])
    said = []
    try:
        sol = _solve_ivp(said, rhs, (t[0], t[-1]), y0, method=method, t_eval=t, rtol=rtol, atol=atol)
    except (SimulationError, ArgumentError):    # the library's own words (a controller's bad torques) as they are
        raise
    except ValueError as exc:          # an unknown method, bad tolerances
        raise ArgumentError(f"method/rtol/atol: {exc}") from None
    if sol.status < 0 or sol.y.shape[1] != len(t):
        stopped = sol.t[-1] if len(sol.t) else t[0]      # no output time reached: it stopped at the start
        why = said[-1].rstrip(".") if said else sol.message
        raise SimulationError(f"the simulation stopped at t = {stopped:.6g} s: {why}; check the parameters "
                              "(a physical body per link), the torques and the tolerances")
    y = sol.y.T
    q = y[:, :n_q].copy()
    if robot.is_floating:       # every sample's quaternion at once, unit's numbers: a call of it per row took 3.7 s
        q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1)[:, None]       # of CPU for 10⁶ samples
    if state == "momenta":
        # a step into a q where M(q) is indefinite (bodies not physical): the motion's error at its time, before
        # q̇ = M⁻¹ p's ArgumentError of a sample
        require_definite(model, q, lambda s: f"at t = {t[s]:.6g} s", SimulationError)
        qd = _logged_velocities(compiled, q, y[:, n_q:])
    else:
        qd = y[:, n_q:].copy()
    return q, qd, torque.at_samples(q, qd)


def _solve_ivp(said, *args, method, **kwargs):
    """:func:`scipy.integrate.solve_ivp` ``(*args, method=method, **kwargs)``, LSODA's words of its failure appended to
    ``said``: its Fortran code's ("lsoda: Repeated convergence failures …") is a UserWarning beside the status it
    returns ("Unexpected istate in LSODA."), which printed raw; the simulation's error says it instead. Any other
    warning raised meanwhile (a controller's) is issued again as it came, once per text and line (recorded with the
    filter 'always', a controller's warning came at every evaluation). Only LSODA's run is recorded: Python's
    warning filters are the process's, not a thread's; threads' runs record one at a time
    (:func:`baseparam._warnings.recorded`)."""
    from scipy.integrate import LSODA, solve_ivp
    if not (method == "LSODA" or (isinstance(method, type) and issubclass(method, LSODA))):
        return solve_ivp(*args, method=method, **kwargs)
    caught = []
    try:
        with recorded() as caught:
            warnings.simplefilter("always")
            return solve_ivp(*args, method=method, **kwargs)
    finally:
        issued = set()
        for w in caught:
            key = (str(w.message), w.category, w.filename, w.lineno)
            if w.category is UserWarning and key[0].startswith("lsoda: "):
                said.append(key[0])
            elif key not in issued:
                issued.add(key)
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


class _EvaluationBudget:
    """The right-hand sides a ``solve_ivp`` motion may take by the time it has reached: :data:`EVALUATIONS_PER_INTERVAL`
    for each interval of t begun, and :data:`EVALUATIONS_AT_START`; at the end, the whole motion's count.
    A motion whose steps shrink far below the sampling where it is (a Coulomb joint that sticks, chattering) is
    refused there: a count for the whole motion let 10⁶ samples stall 2·10⁹ evaluations at a sticking joint near
    their start (hours), and 51 samples 120 000 (2 s compiled, 55 s of Ivanov's numpy recursion). Sampling finer
    than :data:`FINEST_COUNTED` (10 kHz) earns no more (2·10⁷ evaluations a simulated second): a smooth motion's
    steps do not shrink with the samples asked for, while 10⁶ samples of a second earned 2000 evaluations a µs."""

    def __init__(self, t):
        self.t, self.calls, self.farthest = t, 0, t[0]
        self.allowed = self._allowed()

    def _allowed(self):
        begun = min(int(np.searchsorted(self.t, self.farthest, side="right")), len(self.t) - 1)
        counted = min(begun, 1 + int((self.farthest - self.t[0]) / FINEST_COUNTED))
        return EVALUATIONS_PER_INTERVAL * counted + EVALUATIONS_AT_START

    def spend(self, time):
        """Count one evaluation at ``time``; a SimulationError when the motion has taken more than it may by then."""
        self.calls += 1
        if time > self.farthest:
            self.farthest = time
        if self.calls > self.allowed:
            self.allowed = self._allowed()          # only when the count reaches it: a search per interval, not a call
            if self.calls > self.allowed:           # steps far below the sampling: a motion too violent to follow
                raise SimulationError(f"the simulation needed more than {self.allowed} evaluations by t = {time:.6g} s "
                                      "(steps far below the sampling interval); check the torques and the parameters")


def _kernel_at(time, kernel, *state):
    """``kernel(*state)`` of a simulation's step at ``time``: a compiled kernel's ArgumentError of a value not finite
    (M(q) singular, a state diverging) said as the simulation's :class:`SimulationError` with the time."""
    try:
        return kernel(*state)
    except ArgumentError as exc:        # not finite: M(q) singular here, a motion no robot makes
        raise SimulationError(f"the simulation diverged at t = {time:.6g} s ({exc}); check the parameters "
                              "(a physical body per link) and the torques") from None


def _rk4_momenta(model, t, q0, qd0, torque, substeps):
    """RK4 in (q, p), torque held per interval: Ivanov's form, interval by interval in one compiled loop of both
    kernels (:attr:`~baseparam.dynamics.momenta.CompiledRates.steps`), q̇ = M⁻¹ p logged at each sample. An interval
    whose state comes out not finite is stepped again by :func:`_momenta_rates` in Python, whose rates say when and
    how the motion diverged. Torques given as rows (no controller) step in pieces of many intervals first
    (:func:`_pieces_while_finite`)."""
    robot = model.robot
    S = len(t)
    q, m, qd = np.empty((S, robot.n_q)), np.empty((S, robot.n_v)), np.empty((S, robot.n_v))
    q[0], qd[0], m[0] = q0, qd0, generalized_momenta(model, q0, qd0)
    compiled = CompiledRates(model)
    velocities, rates = _momenta_rates(compiled)
    steps, dt = compiled.steps, np.diff(t)
    start = 0
    if torque.callback is None:
        taus = np.array(torque.rows, dtype=float, order="C")

        def logged(a, b):           # q̇ of a piece's samples by the velocities kernel's loop, its one-sample numbers
            try:
                qd[a:b] = compiled.batch_velocities(q[a:b], m[a:b])
            except ArgumentError:   # not finite somewhere (M(q) singular): said by the steps interval by interval
                return False
            return True
        start = _pieces_while_finite(steps, q, m, dt, taus, substeps, logged)
    else:
        taus = np.empty((S, robot.n_v))
    for k in range(start, S - 1):
        taus[k] = torque(t[k], q[k], qd[k], k)
        steps._rk4_unchecked(q, m, dt, taus, substeps, rows=k)    # its own pieces: h exact, as the Python steps
        if not (np.isfinite(q[k + 1]).all() and np.isfinite(m[k + 1]).all()):
            x, p = q[k].copy(), m[k].copy()
            h = dt[k] / substeps
            for _ in range(substeps):
                x, p = rk4_step(partial(rates, t[k]), x, p, h, robot.is_floating, taus[k])
            q[k + 1], m[k + 1] = x, p
        qd[k + 1] = velocities(t[k + 1], q[k + 1], m[k + 1])
    taus[-1] = torque(t[-1], q[-1], qd[-1], S - 1)
    return q, qd, taus


def _logged_velocities(compiled, q, momenta):
    """q̇ = M(q)⁻¹ p of a ``solve_ivp`` motion's samples in (q, p) by the compiled kernel its steps used
    (:meth:`~baseparam.dynamics.momenta.CompiledRates.batch_velocities`): numpy's recursion of
    :func:`~baseparam.velocities_from_momenta` was many times slower (``bench/bench_momenta_rates.py``), the same to
    1e-13. A q̇ not
    finite (M(q) singular where the steps did not look) is the motion's :class:`SimulationError`."""
    try:
        return compiled.batch_velocities(q, momenta)
    except ArgumentError as exc:
        raise SimulationError(f"the simulation diverged (the logged q̇ = M(q)⁻¹ p: {exc}); check the parameters "
                              "(a physical body per link) and the torques") from None


def _momenta_rates(compiled):
    """The right-hand side of a simulation in (q, p), one sample at a time in the two compiled kernels of
    :class:`~baseparam.dynamics.momenta.CompiledRates` (a fixed or a floating base), for RK4's steps and
    ``solve_ivp``'s alike; a kernel's refusal of a value not finite is the simulation's error at the time.

    Returns
    -------
    velocities : callable
        ``velocities(time, q, p)`` → q̇ (n_v,).
    rates : callable
        ``rates(time, q, p, tau)`` → (dq/dt (n_q,), ṗ (n_v,)); ``tau`` an array (n_v,), or a callable of q̇ returning
        one (a controller reading the velocities there).
    """
    robot = compiled.robot

    def velocities(time, x, m):
        return _kernel_at(time, compiled.velocities, x, m)

    def rates(time, x, m, tau):
        v = velocities(time, x, m)
        rate = _kernel_at(time, compiled.rate, x, v, tau(v) if callable(tau) else tau)
        return configuration_rate(robot, x[None], v[None])[0], rate
    return velocities, rates
