"""Argument checks of the public entry points, each written once (like scikit-learn's ``utils/validation.py``).

Every public function checks its arguments at its start by calling these: one line naming the library's
parameter, what was expected and what was received, with the class the rule in :mod:`baseparam.errors`
gives (settings checks pass ``error=SettingsError``). The fields of motions are checked where the motion
type is built (:mod:`baseparam.motion`); file contents by the readers.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import os
from types import MappingProxyType

import numpy as np

from ._numbers import ABSURD, BEYOND_FLOAT, check_state_values, is_real, is_whole, real_array, zero_d_number
from ._checks import check_flag, check_input, check_instance, check_option, check_path, counted, refuse_special, shown
from ._memory import check_memory
from .errors import ArgumentError, ArgumentTypeError, printable

# ABSURD (_numbers.ABSURD), re-exported: the bound of a joint position, velocity or acceleration
# A parameter value beyond this (kg, kg·m, kg·m², N·m·s, …) is no robot's: with states within ABSURD the dynamics'
# products (M(q) q̇ q̇, up to 1e16 times a parameter) would overflow to inf and NaN.
ABSURD_PARAMETER = 1e100
# A floating base's quaternion whose norm is further than this from 1 is wrong order or units, not round-off.
QUATERNION_SLACK = 1e-3


# -- text of messages ------------------------------------------------------------------------------------------------
# shown (_checks.shown), re-exported: a value in a one-line message (a name or text from a file: errors.printable)


# -- types --------------------------------------------------------------------------------------------------------
def check_robot(robot, name: str = "robot"):
    """:func:`baseparam.model.robot.require_robot`, beside the Robot type (imported when called: the
    model's modules import this one)."""
    from .model.robot import require_robot

    return require_robot(robot, name)


# -- scalars and options --------------------------------------------------------------------------------------------
# check_flag (_checks.check_flag), re-exported
def is_text_list(value) -> bool:
    """Whether ``value`` is a list or tuple of str (a np.str_ among them too): the one test of a list of names, for
    arguments (:func:`check_names`, which converts, and :func:`check_link_names`) and for results' fields
    (:func:`check_texts`, which bounds). O(number of items), by type in C first (results with thousands of names are
    built in loops)."""
    return isinstance(value, (list, tuple)) and (set(map(type, value)) <= {str}
                                                  or all(isinstance(v, str) for v in value))


def check_names(value, name: str, *, allow_none=True):
    """None (with ``allow_none``) or a sequence of names (str), as a list of str; a single str is refused, since it
    would be read letter by letter. A list, a tuple, or a 1-D array of text (NumPy's, a pandas Index: ``df.columns``,
    read by its ``tolist()``). Unbounded (an argument); a result's field: :func:`check_texts`."""
    if value is None and allow_none:
        return None
    if getattr(value, "ndim", None) == 1 and hasattr(value, "tolist"):
        value = value.tolist()
    if is_text_list(value):
        return [str(v) for v in value]
    raise ArgumentTypeError(f"{name}: expected a list of names (str), got {shown(value)}")


def comma_list(text: str, name: str, *, error=ArgumentError):
    """The entries of a comma list (``'a2,d4'``), stripped: the one parser of every option taking one. An empty entry
    is refused (``',a1'``, ``'a1,,d4'``: dropped, a slip went unseen, and a list of values moved to other items); a
    separator ending the list (``'a1,'``, as a script joining names writes it) is taken, as the command line's
    number lists take it."""
    entries = [entry.strip() for entry in text.split(",")]
    if len(entries) > 1 and not entries[-1]:
        entries.pop()
    if "" in entries:
        raise error(f"{name}: entry {entries.index('') + 1} of {shown(text)} is empty")
    return entries


def check_number(value, name: str, *, low=None, high=None, strict=False, integer=False, expected=None,
                 error=ArgumentError):
    """A finite real number (``integer``: a whole number) within [low, high] (``strict``: low excluded).

    Returns it as float (int with ``integer``). The message reads ``NAME: expected EXPECTED, got VALUE``;
    ``expected`` defaults to what the bounds say ("a number > 0", "a whole number from 1 to 100"). A 0-d array of
    integers or floats is its number (:func:`~baseparam._numbers.zero_d_number`), as a numpy scalar is: the one rule
    of every numeric parameter (``prior_weight=np.array(0.3)`` was refused where ``np.float32(0.5)`` was taken).
    """
    value = zero_d_number(value)
    ok = is_whole(value) if integer else is_real(value)
    # compared as the Python number returned: a numpy scalar compares in its own precision (NEP 50), so a bound
    # rounded into float16 or float32 let np.float32(0.3) pass high=0.3 and come back as 0.30000001, and a bound
    # beyond float16's range overflowed in the cast (a raw numpy RuntimeWarning from simulate(atol=np.float16(1)))
    number = (int(value) if integer else float(value)) if ok else value
    real = ok
    ok = ok and (low is None or (number > low if strict else number >= low)) and (high is None or number <= high)
    if not ok:
        if expected is None:
            kind = "a whole number" if integer else "a number"
            lo, hi = (f"{b}" if b is None or isinstance(b, numbers.Integral) else f"{b:g}" for b in (low, high))
            if low is not None and high is not None and not strict:
                expected = f"{kind} from {lo} to {hi}"
            else:
                bounds = [f"{'>' if strict else '≥'} {lo}" if low is not None else "",
                          f"≤ {hi}" if high is not None else ""]
                expected = " ".join([kind, *[b for b in bounds if b]])
        # a number of another kind (a Decimal, a complex) is refused for its kind, which "got Decimal('2')" after
        # "expected a number > 0" did not say
        other = isinstance(value, numbers.Number) and not isinstance(value, numbers.Real)
        # a float16 or float32 beyond a bound by its rounding shows as the bound ("got np.float16(0.01)" after "from 0
        # to 0.01"): the number compared is said too
        rounded = real and not integer and isinstance(value, np.floating) and str(value) != repr(number)
        # an int beyond the double range is a whole number but no finite double: "expected a number ≥ 0, got 10…0"
        # did not say what was wrong with it
        huge = not integer and not real and is_whole(value)
        raise error(f"{name}: expected {expected}, got {shown(value)}"
                    + (f" ({number!r} in double precision)" if rounded else "")
                    + (" (too large for a double: not a finite number)" if huge else "")
                    + (f" (a {type(value).__name__}: give {'an int' if integer else 'an int or a float'})"
                       if other else ""))
    return number


MAX_SEED = 2 ** 63 - 1


def check_seed(seed, name: str = "seed", *, error=ArgumentError, legacy=None) -> int:
    """A random seed: a whole number from 0 to 2⁶³ − 1 (:data:`MAX_SEED`), as int (numpy's SeedSequence refuses
    floats, negatives and 0-d arrays in its own words; Python's random.Random takes a numpy integer for no seed at
    all).

    ``legacy``: the public function (or field) whose released versions take any whole seed ≥ 0; a larger seed is then
    still taken, with a DeprecationWarning at the caller's line, for one release."""
    if legacy is not None and is_whole(seed) and seed > MAX_SEED:
        from ._warnings import warn

        warn(f"{legacy}: {name} {shown(seed)} is beyond 2**63 - 1: deprecated, and refused from the next release; "
             "give a seed from 0 to 2**63 - 1", DeprecationWarning)
        return int(seed)
    return check_number(seed, name, low=0, high=MAX_SEED, integer=True, error=error)


def usable_cores() -> int:
    """The number of cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                            # not Linux
        return os.cpu_count() or 1


def check_workers(workers, name: str = "workers", *, default=1, error=ArgumentError):
    """A worker count the user gave: ``None`` → ``default``, -1 → one per usable core, else 1 to 256."""
    if workers is None:
        return default
    workers = zero_d_number(workers)            # np.array(-1) as -1, as check_number takes a 0-d array
    if is_whole(workers) and workers == -1:
        return usable_cores()
    return check_number(workers, name, low=1, high=256, integer=True, error=error,
                        expected="a whole number from 1 to 256, or -1 (one per usable core)")


def check_positive(value, name: str, *, expected="a number > 0", error=ArgumentError):
    """A finite number > 0 (numbers given as text, e.g. '5', are converted), as float."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):  # not a number, or an int beyond the float range: refused below
        number = math.nan
    if isinstance(value, (bool, np.bool_)) or not (math.isfinite(number) and number > 0):
        raise error(f"{name}: expected {expected}, got {shown(value)}")
    return number


def check_mass_range(value, name: str, *, error=ArgumentError):
    """(lower, upper) masses in kg, either may be None, lower ≤ upper; as a tuple of float or None."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise error(f"{name}: expected (lower, upper) in kg (either may be None), got {shown(value)}")
    from .model.checks import MAX_MASS_KG       # as a link's mass: above, the conic solver panics (1e300 kg)
    out = []
    for v in value:
        if v is not None and not (is_real(v) and 0 <= v <= MAX_MASS_KG):
            raise error(f"{name}: expected masses ≥ 0 in kg (at most {MAX_MASS_KG:g}) or None, got {shown(value)}")
        out.append(None if v is None else float(v))
    if out[0] is not None and out[1] is not None and out[0] > out[1]:
        raise error(f"{name}: the lower bound {out[0]:g} kg is above the upper {out[1]:g} kg")
    return tuple(out)


def check_mass_bounds(value, name: str = "mass_bounds", *, error=ArgumentError):
    """{link: (lower, upper)} (links numbered from 1; checked against the robot where it is known)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise error(f"{name}: expected {{link: (lower, upper)}} in kg, got {shown(value)}")
    out = {}
    for link, bounds in value.items():
        if not is_whole(link) or link < 1:
            raise error(f"{name}: links are numbered from 1, got {shown(link)}")
        out[int(link)] = check_mass_range(bounds, f"{name}[{link}]", error=error)
    return out


# An angle tolerance beyond this (rad, 0.57°) would snap real geometry to multiples of 15° (the CLI's cap too).
MAX_ANGLE_TOLERANCE = 0.01


def check_angle_tolerance(value, name: str = "angle_tolerance"):
    """The tolerance (rad) within which description angles are taken as multiples of 15°, as float."""
    return check_number(value, name, low=0, high=MAX_ANGLE_TOLERANCE)


def check_mimic(value):
    """The ``mimic`` argument of the URDF reader: ``'refuse'`` (a mimic joint refuses the file), ``'lock'`` or
    ``'independent'``."""
    expected = "'refuse', 'lock' or 'independent'"
    return check_option(check_instance(value, "mimic", str, expected), "mimic", ("refuse", "lock", "independent"),
                        expected=expected)


def check_link_names(value, name: str, *, several=True):
    """None, a link name (str) or, with ``several``, a sequence of them; else an ArgumentTypeError."""
    if value is None or isinstance(value, str):
        return value
    if several and is_text_list(value):
        return value
    what = "a link name (str) or a sequence of them" if several else "a link name (str)"
    raise ArgumentTypeError(f"{name}: expected {what}, got {shown(value)}")


def check_reading(skip_bad_rows, n_dof, source=None):
    """The options every trajectory reader takes (files, arrays, DataFrames): ``skip_bad_rows`` True or False,
    ``n_dof`` None or a count ≥ 1, ``source`` (the name messages give the data) None or a str.

    Returns
    -------
    n_dof : int or None
    source : str or None
        Printable (a newline escaped), for one-line messages.
    """
    check_flag(skip_bad_rows, "skip_bad_rows")
    if n_dof is not None:
        n_dof = check_number(n_dof, "n_dof", low=1, integer=True)
    check_instance(source, "source", str, "a str", allow_none=True)
    return n_dof, None if source is None else printable(source)


# -- sizes before allocation --------------------------------------------------------------------------------------
# check_memory (_memory.check_memory), re-exported: the float conversion of every array (_numbers) uses it too


# Below this many bytes an allocation is not worth the look at /proc/meminfo that checking it costs (the state
# functions are called in loops, one sample at a time).
CHECKED_BYTES = 2 ** 26
# No state function of a robot of at most 64 joints needs CHECKED_BYTES for this many samples (a regressor of
# 70 rows and 64 × 14 columns takes 0.5 MB a sample)
FEW_SAMPLES = 64


def check_allocation(shape, name: str, what=None, max_memory=None):
    """Refuse, before it is allocated, a float64 result of ``shape`` beyond the memory budget
    (:func:`check_memory`; small ones are not looked at). ``name``: the arguments it is computed from;
    ``what``: what needs the memory (default: the result, of its shape)."""
    needed = 8 * math.prod(int(n) for n in shape)
    if needed > CHECKED_BYTES:
        what = f"the result, shape {tuple(shape)}," if what is None else what
        check_memory(needed, lambda need, allowed: f"{name}: {what} would need {need} of memory, more than the "
                                                   f"{allowed} available; pass fewer samples", max_memory)


def check_state_sizes(arrays, peak=None):
    """Refuse state arrays of sample counts that differ, or whose float copies and a result of as many samples
    would not fit in memory, before any of their values is read: a broadcast view (``np.broadcast_to``) of 10⁹
    samples costs no memory, but its conversion and a scan of its values take minutes that Ctrl-C cannot stop.
    ``peak``: a function of the number of samples giving the bytes the calling function needs at its peak
    (:func:`baseparam.dynamics._peaks.peak`), when more than the float copies and a result; called only for more than
    :data:`FEW_SAMPLES` samples (a regressor's column count costs a millisecond a call of one sample should not
    pay)."""
    count, floats, widest, other = None, 0, 0, 0        # a plain loop: this runs on every call of the dynamics
    for x in arrays.values():
        if isinstance(x, np.ndarray) and x.ndim == 2:
            rows, width = x.shape
            if count is not None and rows != count:
                sizes = ", ".join(f"{n}: {a.shape[0]}" for n, a in arrays.items()
                                  if isinstance(a, np.ndarray) and a.ndim == 2)
                raise ArgumentError(f"state arrays have different numbers of samples ({sizes})")
            count, floats, widest = rows, floats + width, max(widest, width)
        elif isinstance(x, np.ndarray):
            other += x.size     # a wrong shape (a view of 10¹² entries in 1 or 3 dimensions) is still converted first
    width = floats + widest
    if peak is not None and count is not None and count > FEW_SAMPLES:
        width = max(width, -(-peak(count) // (8 * count)))
    if count is not None and 8 * count * width > CHECKED_BYTES:
        names = ", ".join(n for n, a in arrays.items() if isinstance(a, np.ndarray) and a.ndim == 2)
        what = "their float copies and a result" if peak is None else "the computation's peak"
        check_allocation((count, width), names, f"{counted(count, 'samples')} ({what})")
    if 8 * other > CHECKED_BYTES:
        names = ", ".join(n for n, a in arrays.items() if isinstance(a, np.ndarray) and a.ndim != 2)
        check_allocation((other,), names, f"{other} values (their float copies)")


# -- arrays of the dynamics: states and parameter vectors ---------------------------------------------------------
def check_samples(name: str, x, n_dof: int, *, error=ArgumentError, peak=None):
    """A state array as ``(n_samples, n_dof)`` float; also says whether the caller gave one sample.

    Parameters
    ----------
    name : str
        Argument name for error messages.
    x : array_like, shape (n_samples, n_dof) or (n_dof,)
    n_dof : int

    Returns
    -------
    array : ndarray, shape (n_samples, n_dof)
    single : bool
        True when ``x`` was one sample of shape (n_dof,).

    Raises
    ------
    ArgumentError
        Not numbers, a wrong shape, a non-finite or absurd (|x| > 1e8) value, naming sample and joint
        (``error`` instead for the values, e.g. :class:`~baseparam.errors.DataError` for a log's).
    ResourceLimitError
        So many samples that a float copy and a result of their size would not fit in memory.
    """
    check_state_sizes({name: x}, peak)
    return _samples(name, x, n_dof, error)


def _samples(name, x, n_dof, error):
    """:func:`check_samples` after the size check."""
    arr = real_array(name, x, ArgumentError)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n_dof:
        raise ArgumentError(f"{name}: expected shape (n_samples, {n_dof}) or ({n_dof},), got {np.shape(x)}")
    check_state_values(name, arr, error)
    return arr, single


def check_states(n_dof: int, *, peak=None, **arrays):
    """Several state arrays checked together (each :func:`check_samples`, one number of samples); ``peak``: the
    calling function's memory at its peak, as in :func:`check_state_sizes`.

    Returns
    -------
    list of ndarray, each (n_samples, n_dof), in the keyword order, and the ``single`` flag.
    """
    return _together(arrays, lambda name: n_dof, peak)


def check_robot_states(robot, *, peak=None, **arrays):
    """A robot's state arrays checked together: ``q`` has ``robot.n_q`` columns, every other one
    (``qd``, ``qdd``, ``tau``, …) ``robot.n_v``; the same number of samples (``peak``: as in
    :func:`check_state_sizes`).

    For a floating base the quaternion in ``q[:, 3:7]`` is normalized (a copy); one whose norm is
    not within 1e-3 of 1 is refused (wrong order or units, not round-off).

    Returns
    -------
    list of ndarray, in the keyword order, and the ``single`` flag (as :func:`check_states`).
    """
    out, single = _together(arrays, lambda name: robot.n_q if name == "q" else robot.n_v, peak)
    if robot.is_floating and "q" in arrays:
        k = list(arrays).index("q")
        out[k] = unit_quaternions(out[k])
    return out, single


def _together(arrays, width, peak=None):
    """:func:`check_samples` of each array (``width(name)`` columns), and one number of samples for all
    (``peak``: as in :func:`check_state_sizes`)."""
    fast = _one_float_sample(arrays, width)
    if fast is not None:
        return fast, True
    check_state_sizes(arrays, peak)
    out, singles = [], []
    for name, x in arrays.items():
        arr, single = _samples(name, x, width(name), ArgumentError)
        out.append(arr)
        singles.append(single)
    counts = {a.shape[0] for a in out}
    if len(counts) > 1:
        sizes = ", ".join(f"{n}: {a.shape[0]}" for n, a in zip(arrays, out))
        raise ArgumentError(f"state arrays have different numbers of samples ({sizes})")
    return out, all(singles)


def _one_float_sample(arrays, width):
    """The arrays as (1, n) views when each is one sample that passes every check as it is: a plain float64
    ndarray of shape (``width(name)``,), all its values within ±ABSURD (one sum of magnitudes over all of them, as
    the quick test of :func:`~baseparam._numbers.check_state_values`); else None, and the full checks decide and
    name what is wrong. A sample from Python costs fewer checks this way (three states of a 7-DOF arm)."""
    values = []
    for name, x in arrays.items():
        if type(x) is not np.ndarray or x.dtype != np.float64 or x.shape != (width(name),):
            return None
        values += x.tolist()
    if not sum(map(abs, values)) <= ABSURD:          # NaN and inf fail too
        return None
    return [x[None, :] for x in arrays.values()]


def quaternion_norms(quat):
    """The norms of quaternions (S, 4); inf where the squares overflow (1e300 in a file), without numpy's
    RuntimeWarning: such a quaternion is refused as not unit, naming its sample."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.linalg.norm(quat, axis=1)


def normalized_quaternions(quat, refuse):
    """Quaternions ``quat`` (S, 4) divided by their norms, each norm within :data:`QUATERNION_SLACK` of 1;
    ``refuse(s, norm)``: the exception raised for the first sample s beyond it."""
    norm = quaternion_norms(quat)
    bad = ~(np.abs(norm - 1.0) <= QUATERNION_SLACK)
    if bad.any():
        s = int(np.argmax(bad))
        raise refuse(s, norm[s])
    return quat / norm[:, None]


def unit_quaternions(q):
    """``q`` (n_samples, 7 + n_dof) with its base quaternions (columns 3:7) normalized, a copy."""
    q = q.copy()
    q[:, 3:7] = normalized_quaternions(q[:, 3:7], lambda s, norm: ArgumentError(
        f"q: the base quaternion (columns 4-7: x, y, z, w) at sample {s} has norm {norm:.6g}; expected a unit "
        "quaternion"))
    return q


def check_real_array(name: str, x, ndim, finite=True, copies=1, shape=None):
    """``x`` as a float array of ``ndim`` dimensions (a tuple: any of them), finite unless ``finite`` is False; else
    one ArgumentError line (NaN or inf said only where they are the problem).

    The dimensions first, then the shape (``shape``: a function of it that raises when it does not fit the other
    arguments, e.g. a regressor's column count against the parameters'), then the size, then the values: ``copies``
    arrays of ``x``'s size (the caller's temporaries, e.g. 2 for a residual and its square; 0: the caller checks the
    size) beyond the memory budget are a ResourceLimitError before any value is read, and the values are scanned
    without a temporary of their size (a broadcast view of 10⁹ rows would otherwise be numpy's bare MemoryError, or
    minutes of scanning, whatever its shape)."""
    x = real_array(name, x)
    dims = ndim if isinstance(ndim, tuple) else (ndim,)
    expected = (f"{'finite ' if finite else ''}numbers of {' or '.join(map(str, dims))} "
                f"dimension{'' if dims == (1,) else 's'}")
    if x.ndim not in dims:
        raise ArgumentError(f"{name}: expected {expected}, got shape {x.shape}")
    if shape is not None:
        shape(x.shape)
    if 8 * copies * x.size > CHECKED_BYTES:        # (check_allocation's own threshold: the message is not made below)
        check_allocation((copies, x.size), name, f"{x.size} values ({counted(copies, 'float arrays')} of their size)")
    if finite and x.size and not all_finite(x):
        raise ArgumentError(f"{name}: expected {expected}, got shape {x.shape} with NaN or inf")
    return x


def all_finite(x):
    """Whether a non-empty float array holds neither NaN nor ±inf: by its min and max (NaN propagates to both), no
    temporary of its size, for a large one; by numpy's flags for a small one, one reduction cheaper."""
    if x.size <= 4096:
        return bool(np.isfinite(x).all())
    return bool(np.isfinite(x.min()) and np.isfinite(x.max()))


def check_parameter_vector(p, n: int, name: str = "p", sets: bool = False):
    """A parameter vector of length n as float; with ``sets``, also (n, m): m parameter sets. Finite, each value
    within ±:data:`ABSURD_PARAMETER`."""
    arr = real_array(name, p, ArgumentError)
    if arr.shape != (n,) and not (sets and arr.ndim == 2 and arr.shape[0] == n):
        raise ArgumentError(f"{name}: expected shape ({n},){f' or ({n}, m)' if sets else ''}, got {arr.shape}")
    if arr.ndim == 2:       # parameter sets: their size before their values (a broadcast view of 10⁸ sets)
        check_allocation((2 * n, arr.shape[1]), name, f"{arr.shape[1]} parameter sets (a copy and a result)")
    if arr.size and not all_finite(arr):
        raise ArgumentError(f"{name}: contains NaN or inf")
    return check_parameter_range(name, arr)


def check_parameter_range(name, arr, expected="parameters in SI units", error=ArgumentError):
    """``arr`` (a float array of any shape) when every value is within ±:data:`ABSURD_PARAMETER`; else ``error``
    naming the first NaN or largest value and its index. The one check of that bound for parameters and what is
    fitted to them (a payload's torques): beyond it their squares and norms overflow, and a fit or figure comes out
    inf or NaN. ``expected`` completes the message ("expected parameters in SI units")."""
    # max and min, not abs(arr).max(): no copy of the values (of a broadcast view of 10⁹: a bare MemoryError)
    if arr.size and not (arr.max() <= ABSURD_PARAMETER and arr.min() >= -ABSURD_PARAMETER):    # NaN compares False
        k = np.unravel_index(np.argmax(np.abs(arr)), arr.shape)      # argmax stops at the first NaN
        what = "absurd" if np.isfinite(arr[k]) else "non-finite"
        raise error(f"{name}: {what} value {arr[k]:g} at index {', '.join(map(str, k))} (beyond "
                    f"±{ABSURD_PARAMETER:g}); expected {expected}")
    return arr


def check_finite_fields(result, names):
    """Refuse a result built by hand (a public dataclass) whose fields ``names`` hold a non-finite number: the
    library's own results never do there, and its methods would turn them into NaN outputs (a payload's vendor
    formats, a base set's ``from_standard``). Called once, at construction."""
    for name in names:
        value = getattr(result, name)
        arr = real_array(f"{type(result).__name__}.{name}", value)
        if arr.size and not all_finite(arr):        # no temporary of a field's size (a view broadcast to 10⁹ rows)
            raise ArgumentError(f"{type(result).__name__}.{name}: expected finite numbers, got {shown(value)}")


def check_field_shapes(result, shapes, *, optional=None):
    """Refuse a result built by hand (a public dataclass) whose array fields have another shape than its methods
    index: ``shapes`` maps a field's name to its shape, an int for a fixed length and a name for a free one
    (``("n_poses", "n_dof")``), one length wherever the name recurs; a field that is None is not looked at. Called
    once, at construction, after :func:`float_fields` and before :func:`check_finite_fields` (a shape is told before
    any value is read): a PayloadResult's ``com`` of 5 values reached its repr and ``to_dict`` as numpy's bare
    TypeError and IndexError, a FitErrors' ``std`` shorter than its ``estimate`` its repr. ``optional`` names the
    fields that may be None when only some may (a PayloadResult's ``com_std=None`` reached its repr as "TypeError:
    'NoneType' object is not iterable"); left out, any may."""
    lengths = {}
    for name, shape in shapes.items():
        value = getattr(result, name)
        if value is None and optional is not None and name not in optional:
            raise ArgumentTypeError(f"{type(result).__name__}.{name}: expected an array of shape "
                                    f"({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''}), got None")
        if value is None:
            continue
        try:
            got = np.shape(value)
        except ValueError:          # a ragged list ([[1, 2], [3]]): numpy's bare "inhomogeneous shape"
            raise ArgumentError(f"{type(result).__name__}.{name}: expected an array of shape "
                                f"({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''}), got rows of "
                                f"different lengths") from None
        fits = len(got) == len(shape) and all(lengths.setdefault(want, size) == size if isinstance(want, str)
                                              else want == size for want, size in zip(shape, got))
        if not fits:
            named = ", ".join(f"{want} = {lengths[want]}" for want in shape
                              if isinstance(want, str) and want in lengths)
            raise ArgumentError(f"{type(result).__name__}.{name}: expected shape ({', '.join(map(str, shape))}"
                                f"{',' if len(shape) == 1 else ''}){f' ({named})' if named else ''}, got {got}")


def check_field_kinds(result, kinds):
    """Refuse a result built by hand (a public dataclass) whose fields hold objects of the wrong kind: ``kinds`` maps a
    field's name to (type or tuple of types, what it should be), None among the types for a field that may be None.
    Its methods would otherwise fail deep inside on an attribute the object lacks (``'str' object has no attribute
    'base_'``). Called once, at construction; an ArgumentTypeError naming the class and the field. A text is at
    most :data:`MAX_RESULT_TEXT` characters (a 1 MB ``source`` or ``method`` reached every repr, summary and file)."""
    for name, (kind, what) in kinds.items():
        kinds_ = kind if isinstance(kind, tuple) else (kind,)
        value = getattr(result, name)
        check_instance(value, f"{type(result).__name__}.{name}",
                       tuple(k for k in kinds_ if k is not None), what, allow_none=None in kinds_)
        # a number or a text of another kind kept as the plain one: a Fraction broke the methods' :g and JSON, a
        # np.str_ or np.float64 showed as np.str_('…') in their texts
        if value is None or isinstance(value, (bool, np.bool_)):
            continue
        if isinstance(value, str):
            check_text_length(f"{type(result).__name__}.{name}", value)
        for plain, abstract in ((int, numbers.Integral), (float, numbers.Real), (str, str)):
            if abstract in kinds_ and isinstance(value, abstract):
                if type(value) is not plain:
                    object.__setattr__(result, name, _plain_value(f"{type(result).__name__}.{name}", value, plain,
                                                                  what))
                break


def _plain_value(name, value, plain, what):
    """``plain(value)`` for :func:`check_field_kinds`, one line naming the field where the conversion fails: an int or
    a Fraction beyond the float range (OverflowError), a timedelta64 (numpy's kind of integer: float() refuses one of a
    unit, takes one without as a count of nothing)."""
    try:
        if isinstance(value, np.timedelta64):
            raise TypeError
        return plain(value)
    except OverflowError:
        raise ArgumentError(f"{name}: {BEYOND_FLOAT}; expected {what}") from None
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{name}: expected {what}, got {type(value).__name__} {shown(value)}") from None


# A text field of a result built by hand (a note, a source, a method) longer than this is none the library builds: a
# 1 MB note reached every repr, summary and file written; so is a list field (names, notes) of more items than this.
MAX_RESULT_TEXT = 100_000
MAX_RESULT_ITEMS = 10_000_000


def check_text_length(name, text, *, error=ArgumentError):
    """``text`` (a str or None) when within :data:`MAX_RESULT_TEXT` characters, else ``error``."""
    if text is not None and len(text) > MAX_RESULT_TEXT:
        raise error(f"{name}: a text of {len(text)} characters; expected at most {MAX_RESULT_TEXT}")


def check_item_count(name, count, limit, what, *, error=ArgumentError):
    """Refuse ``count`` items (``what`` they are, for the message) of ``name`` beyond ``limit``: one line."""
    if count > limit:
        raise error(f"{name}: {count} {what}; expected at most {limit}")


def check_texts(value, name, *, limit=MAX_RESULT_ITEMS, what="names", error=ArgumentError,
                type_error=ArgumentTypeError):
    """Refuse ``value`` unless it is a list or tuple of at most ``limit`` str (``what`` they are, for the message), each
    within :data:`MAX_RESULT_TEXT` characters: ``error`` for too many or too long, ``type_error`` for another kind.
    O(number of items). A result's field (bounded, kept as it is); an argument: :func:`check_names`."""
    if not isinstance(value, (list, tuple)):
        raise type_error(f"{name}: expected a list of {what} (str), got {type(value).__name__}")
    check_item_count(name, len(value), limit, what, error=error)
    if is_text_list(value) and max(map(len, value), default=0) <= MAX_RESULT_TEXT:
        return          # (by type and length in C: results with thousands of names are built in loops)
    for k, item in enumerate(value):
        if not isinstance(item, str):
            raise type_error(f"{name}[{k}]: expected a str (one of the {what}), got {type(item).__name__}")
        check_text_length(f"{name}[{k}]", item, error=error)


# A reader writes a few notes (a clock, an interpolation, joints left out): a million of them reached every repr, the
# CLI's output and the reports as megabytes of text. Also the longest list in a record (preprocess copies the notes).
MAX_NOTES = 10_000
# Entries of a record of what was done (Processed.record: preprocessing's settings and counts, some 20)
MAX_RECORD_ENTRIES = 100


def check_record(value, name, *, error=ArgumentError):
    """Refuse ``value`` unless it is a record of what was done (:attr:`~baseparam.Processed.record`, written into a
    fit's JSON): a dict of at most :data:`MAX_RECORD_ENTRIES` entries named by str, each None, True or False, a finite
    number, a text, or a list or tuple of at most :data:`MAX_NOTES` of these (texts within :data:`MAX_RESULT_TEXT`
    characters). One line, ``error`` (a 10⁶-entry record was kept, and reached the fit's JSON). O(number of items)."""
    if not isinstance(value, dict):
        raise ArgumentTypeError(f"{name}: expected a dict, got {type(value).__name__}")
    check_item_count(name, len(value), MAX_RECORD_ENTRIES, "entries", error=error)
    for key, entry in value.items():
        if not isinstance(key, str):
            raise error(f"{name}: key {shown(key)}; expected names (str)")
        check_text_length(f"{name}: key", key, error=error)
        items = entry if isinstance(entry, (list, tuple)) else (entry,)
        check_item_count(f"{name}[{shown(key)}]", len(items), MAX_NOTES, "items", error=error)
        for item in items:
            # a NaN or inf was written into the fit's JSON as NaN, which JSON has not
            if not (item is None or isinstance(item, (bool, np.bool_, str)) or is_real(item)):
                raise error(f"{name}[{shown(key)}]: {type(item).__name__} {shown(item)}; expected None, a bool, a "
                            "finite number, a str or a list of them")
            if isinstance(item, str):
                check_text_length(f"{name}[{shown(key)}]", item, error=error)


def check_name_fields(result, names, *, optional=()):
    """Refuse a result built by hand (a public dataclass) whose fields ``names`` are not a list or tuple of str (None
    where ``optional`` names the field), each within :data:`MAX_RESULT_TEXT` characters and at most
    :data:`MAX_RESULT_ITEMS` of them (:func:`check_texts`): its methods index them and join them into texts (an array
    of names had no truth value, a str was read letter by letter). Their lengths against the other fields:
    :func:`check_field_shapes`. Called once, at construction."""
    for name in names:
        value = getattr(result, name)
        if not (value is None and name in optional):
            check_texts(value, f"{type(result).__name__}.{name}")


def check_entries(value, name, entries):
    """Refuse a dict field of a result built by hand (``name``: ``Class.field`` or deeper) that lacks one of the keys
    ``entries`` lists or holds a value of another kind there: ``entries`` maps a key to (type or tuple of types, what
    it should be). Its methods read those keys (a design's ``refinement={}`` reached its repr as a bare KeyError, a
    text among its numbers as "Unknown format code 'g'"). Other keys are left alone. Called once, at construction."""
    if not isinstance(value, dict):
        raise ArgumentTypeError(f"{name}: expected a dict, got {type(value).__name__}")
    for key, (kind, what) in entries.items():
        if key not in value:
            raise ArgumentError(f"{name}: no entry {key!r}; expected {', '.join(map(repr, entries))}")
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if numbers.Real in kinds and isinstance(value[key], (bool, np.bool_)) and bool not in kinds:
            raise ArgumentTypeError(f"{name}[{key!r}]: expected {what}, got bool")
        check_instance(value[key], f"{name}[{key!r}]", kinds, what)


def check_count_fields(result, bounds):
    """Refuse a result built by hand (a public dataclass) whose count fields are no whole number within their bounds:
    ``bounds`` maps a field's name to (low, high), either None for no bound (a rank beyond its standard parameters
    reached the methods as a bare IndexError). A numpy integer is kept as int. Called once, at construction."""
    check_field_kinds(result, {name: (numbers.Integral, "a whole number") for name in bounds})
    for name, (low, high) in bounds.items():
        value = getattr(result, name)
        if isinstance(value, (bool, np.bool_)):
            raise ArgumentTypeError(f"{type(result).__name__}.{name}: expected a whole number, got {shown(value)}")
        check_number(value, f"{type(result).__name__}.{name}", low=low, high=high, integer=True)


def check_flag_fields(result, names):
    """Refuse a result built by hand (a public dataclass) whose fields ``names`` are not True or False (a numpy bool is
    kept as bool): its methods read them by their truth value, which an array has none of. Called once, at
    construction."""
    for name in names:
        object.__setattr__(result, name, check_flag(getattr(result, name), f"{type(result).__name__}.{name}"))


def check_index_field(result, name, bound):
    """Refuse a result built by hand (a public dataclass) whose field ``name`` is not a 1-D array of whole numbers from
    0 to ``bound`` − 1 (its methods index with it: floats, strings or a 2-D array reached them as numpy's bare
    IndexError). A list of ints is kept as an int array; an int array as it is. Its length: :func:`check_field_shapes`.
    Called once, at construction."""
    value, label = getattr(result, name), f"{type(result).__name__}.{name}"
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise ArgumentError(f"{label}: expected a 1-D array of indices (whole numbers), got {shown(value)}")
    if arr.size and not (arr.min() >= 0 and arr.max() < bound):
        raise ArgumentError(f"{label}: expected indices from 0 to {bound - 1}, got {shown(value)}")
    if arr is not value:
        object.__setattr__(result, name, arr.astype(np.intp))


def float_fields(result, names):
    """Keep the array fields ``names`` of a result built by hand (a public dataclass) as float64 arrays (None stays
    None): a list or a tuple where the library keeps an array reached its methods' ``.tolist()`` and ``.T`` as bare
    AttributeErrors, an object array numpy's ufuncs. Called once, at construction; one ArgumentError line naming the
    class and the field for what holds no numbers. A float64 array is kept as it is (no copy)."""
    for name in names:
        value = getattr(result, name)
        if value is not None:
            object.__setattr__(result, name, real_array(f"{type(result).__name__}.{name}", value))


def reduce_read_only_mappings(result):
    """``__reduce__`` of a result (a frozen dataclass) whose mapping fields are read-only views (MappingProxyType,
    which pickle refuses: ``bp.equations(...)`` and ``bp.export(...)`` could be neither pickled nor deep-copied):
    pickle, copy and deepcopy carry each such field as a dict and wrap it again, the result made (and checked) anew."""
    fields = {field.name: getattr(result, field.name) for field in dataclasses.fields(result)}
    proxied = tuple(name for name, value in fields.items() if isinstance(value, MappingProxyType))
    return _with_read_only_mappings, (type(result), {name: dict(value) if name in proxied else value
                                                     for name, value in fields.items()}, proxied)


def _with_read_only_mappings(kind, fields, proxied):
    """The result :func:`reduce_read_only_mappings` carried: the fields ``proxied`` read-only views again."""
    return kind(**{name: MappingProxyType(value) if name in proxied else value for name, value in fields.items()})


__all__ = ["ABSURD", "ABSURD_PARAMETER", "MAX_ANGLE_TOLERANCE", "MAX_NOTES", "MAX_RECORD_ENTRIES", "all_finite",
           "check_allocation", "check_angle_tolerance", "check_count_fields", "check_entries", "check_field_kinds",
           "check_field_shapes", "check_finite_fields", "check_flag", "check_flag_fields", "check_index_field",
           "check_input", "check_instance", "check_item_count", "check_link_names", "check_mass_bounds",
           "check_mass_range", "check_memory", "check_mimic", "check_name_fields", "check_names", "check_number",
           "check_option", "check_parameter_range", "check_parameter_vector", "check_path", "check_positive",
           "check_reading", "check_real_array", "check_record", "check_robot", "check_robot_states", "check_samples",
           "check_seed", "check_state_sizes", "check_states", "check_text_length", "check_texts", "comma_list",
           "float_fields", "is_real", "is_text_list", "is_whole", "normalized_quaternions", "quaternion_norms",
           "reduce_read_only_mappings", "refuse_special", "shown", "unit_quaternions"]
