"""Sensor models for simulated logs: encoder resolution, Gaussian noise, motor currents through drive gains."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_instance, check_option, shown
from .._numbers import ABSURD, check_state_values, real_array
from .._validation import check_number
from .._values import ComparedByValue
from ..errors import ArgumentError
from ..model.checks import MAX_JOINTS

_FIELDS = ("q", "qd", "qdd", "tau", "current", "resolution")
# the largest standard deviation (and resolution) taken: a hundred of them stay within the logs' bound on a value
# (ABSURD); beyond it (1e308) the noisy log overflowed with numpy's RuntimeWarnings and was refused in words about a
# file ("row 2: field q1: infinite; from_arrays(..., skip_bad_rows=True) drops bad rows"). No sensor is near it.
MAX_SIGMA = ABSURD / 100


def checked_gains(gains, n_dof):
    """Drive gains as an (n_dof,) array of positive, finite numbers (N·m/A: τ = k·i), or None. The one check of
    the simulations' gains (simulate, the tracking experiments, :meth:`SensorNoise.apply`)."""
    if gains is None:
        return None
    value = real_array("gains", gains, ArgumentError)
    # the size before the reshape, which copies a broadcast view (of 10¹⁰ values: numpy's bare MemoryError)
    value = value.reshape(-1) if value.size == n_dof else value
    if value.shape != (n_dof,) or not (np.isfinite(value).all() and (value > 0).all()):
        raise ArgumentError(f"gains: expected {n_dof} positive drive gains (N·m/A), got {shown(gains)}")
    return value


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue (a field may be an array)
class SensorNoise(ComparedByValue):
    """What the sensors add to a simulated motion (the dynamics themselves run noise-free).

    Each value is a standard deviation (Gaussian, zero mean), one number for every joint or one per
    joint; noise goes on the joint columns only (a floating base's pose and twist are logged exact).

    Attributes
    ----------
    q, qd, qdd : float or sequence
        Position (rad or m), velocity and acceleration noise.
    tau : float or sequence
        Torque-sensor noise (N·m or N).
    current : float or sequence
        Motor-current noise in A; needs ``gains`` in :func:`~baseparam.simulate` (τ = k·i, as
        :func:`~baseparam.read_trajectory` reads a current log), where it becomes k·σ_i of torque.
    resolution : float or sequence
        Encoder resolution: logged positions are rounded to multiples of it (rad or m), after the
        noise (0: no rounding).
    seed : int
        Seed of the generator (``numpy.random.default_rng``): the same seed, the same log.
    """

    q: object = 0.0
    qd: object = 0.0
    qdd: object = 0.0
    tau: object = 0.0
    current: object = 0.0
    resolution: object = 0.0
    seed: int = 0

    def __post_init__(self):
        # refused when made, not when first used (the number of joints is checked there, by per_joint)
        for name in _FIELDS:
            value = real_array(f"noise.{name}", getattr(self, name))
            # the shape before the values: a broadcast view of 10⁹ was scanned for minutes (no robot has more joints)
            if value.ndim > 1 or value.size > MAX_JOINTS or not ((value >= 0) & (value <= MAX_SIGMA)).all():
                raise ArgumentError(f"noise.{name}: expected a number ≥ 0 or one per joint (each at most "
                                    f"{MAX_SIGMA:g}), got {shown(getattr(self, name))}")
        # numpy's default_rng refuses a negative seed only when first used; None (a seed from the system) would not
        # repeat, and compare_motions adds the draw's number to it
        # kept as the int checked: compare_motions adds the draw's number, which wraps a np.uint8 seed around
        object.__setattr__(self, "seed", check_number(self.seed, "noise.seed", low=0, integer=True))

    def per_joint(self, name, n):
        """One field (``name``: 'q', 'qd', 'qdd', 'tau', 'current' or 'resolution') as an (n,) array of non-negative
        finite numbers."""
        check_option(name, "name", _FIELDS)
        n = check_number(n, "n", low=0, high=MAX_JOINTS, integer=True)     # a robot's joints (10¹² was a MemoryError)
        value = np.asarray(getattr(self, name), dtype=float)
        if value.ndim == 0:
            value = np.full(n, float(value))
        if value.shape != (n,) or not np.all(np.isfinite(value)) or (value < 0).any():
            raise ArgumentError(f"noise.{name}: expected a number ≥ 0 or {n} of them (one per joint), "
                                f"got {shown(getattr(self, name))}")
        return value

    def apply(self, fields, n_dof, gains=None):
        """The fields of a log, noisy (copies): ``fields`` maps q, qd, qdd, tau to (S, ·) arrays whose last
        ``n_dof`` columns are the joints'.

        Parameters
        ----------
        fields : dict
            Field name (q, qd, qdd, tau) → ndarray, shape (n_samples, ≥ n_dof); other names are left out.
        n_dof : int
            The joints: the last ``n_dof`` columns of each array.
        gains : ndarray, shape (n_dof,), optional
            Drive gains (N·m/A) for ``current``.
        """
        check_instance(fields, "fields", dict, "a dict of arrays (q, qd, qdd, tau)")
        n_dof = check_number(n_dof, "n_dof", low=0, high=MAX_JOINTS, integer=True)
        gains = checked_gains(gains, n_dof)
        rng = np.random.default_rng(self.seed)
        out = {}
        for name in ("q", "qd", "qdd", "tau"):
            x = fields.get(name)
            if x is None:
                continue
            x = real_array(f"fields[{name!r}]", x).copy()
            if x.ndim != 2 or x.shape[1] < n_dof:
                raise ArgumentError(f"fields[{name!r}]: expected shape (n_samples, ≥ {n_dof}), got {x.shape}")
            # the states' own rule: a NaN would come back as NaN, silently, and 1e300 rounded to a resolution be
            # numpy's overflow warning and inf
            check_state_values(f"fields[{name!r}]", x)
            sigma = self.per_joint(name, n_dof)
            if name == "tau":
                current = self.per_joint("current", n_dof)
                if current.any() and gains is None:
                    raise ArgumentError("noise.current: motor-current noise needs the drive gains (gains=...)")
                if gains is not None:
                    with np.errstate(over="ignore"):    # refused below, in words, not numpy's RuntimeWarning
                        sigma = np.sqrt(sigma ** 2 + (current * gains) ** 2)
                    if not (sigma <= MAX_SIGMA).all():
                        j = int(np.argmax(~(sigma <= MAX_SIGMA)))
                        raise ArgumentError(f"noise.current: joint {j + 1}: {current[j]:g} A through a gain of "
                                            f"{gains[j]:g} N·m/A is a torque noise beyond {MAX_SIGMA:g} N·m")
            joints = x[:, x.shape[1] - n_dof:]
            joints += rng.standard_normal(joints.shape) * sigma
            if name == "q":
                step = self.per_joint("resolution", n_dof)
                rounded = step > 0
                joints[:, rounded] = np.round(joints[:, rounded] / step[rounded]) * step[rounded]
            out[name] = x
        return out
