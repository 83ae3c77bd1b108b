"""Drive gains from the controller's own torque-to-current map, read from the log's target columns.

A robot that logs motor currents and no torques needs the gains k_j (N·m/A) with τ_j = k_j·i_j. Some
controllers log, beside the measured current, the torque they command and the current they command
for it: Universal Robots' RTDE records ``target_moment`` and ``target_current``. The controller turns
one into the other with its own torque constants and adds a friction compensation:

    i_target,j = τ_target,j / k_j + Fc_j·sign(q̇_j) + Fv_j·q̇_j + c_j

so a least-squares fit of that line per joint gives k_j — the manufacturer's values, without a load
of known mass. Gains identified from data instead (Mamedov et al.'s for the UR10e logs of
``../shared/data``) carry the error of whatever model they were fitted with; on those logs the
controller's map is exact to the logged rounding (residual below 0.3 A over ±10 A), the same in a
loaded and an unloaded log to 1.6 %, and 6–19 % above the published identified gains; with it the
2.805 kg payload is found at 2.79 kg instead of 2.47 kg (bench/bench_payload_real.py).
"""
from __future__ import annotations

import dataclasses
from numbers import Integral

import numpy as np

from .._checks import counted
from .._numbers import real_array
from .._validation import (check_allocation, check_field_kinds, check_field_shapes, check_finite_fields,
                           float_fields)
from ..errors import DataError

__all__ = ["ControllerGains", "controller_gains"]


@dataclasses.dataclass(frozen=True)
class ControllerGains:
    """The controller's torque-to-current map, per joint.

    Attributes
    ----------
    gains : ndarray, shape (n_dof,)
        k_j in N·m/A (or N/A): τ = k·i.
    friction : ndarray, shape (n_dof, 3)
        The compensation the controller adds to the current: Coulomb (A), viscous (A·s/rad), offset (A).
    rmse : ndarray, shape (n_dof,)
        Of the fitted target current (A).
    n_samples : int
    """

    gains: np.ndarray
    friction: np.ndarray
    rmse: np.ndarray
    n_samples: int

    def __post_init__(self):
        # a public class (exported with controller_gains): one built by hand is checked here, not in its repr or users
        check_field_kinds(self, {"n_samples": (Integral, "a whole number of samples")})
        float_fields(self, ("gains", "friction", "rmse"))
        check_field_shapes(self, {"gains": ("n_dof",), "friction": ("n_dof", 3), "rmse": ("n_dof",)})
        check_finite_fields(self, ("gains", "friction", "rmse"))

    def __repr__(self):
        return (f"ControllerGains(gains={np.round(self.gains, 4).tolist()} N·m/A, "
                f"rmse={np.round(self.rmse, 3).tolist()} A, {counted(self.n_samples, 'samples')})")


def controller_gains(target_torque, target_current, velocity):
    """Fit i_target = τ_target/k + Fc·sign(q̇) + Fv·q̇ + c per joint, over one log or several pooled.

    Parameters
    ----------
    target_torque, target_current, velocity : ndarray, shape (n_samples, n_dof), or lists of them (one per log)
        The commanded torque (N·m), the commanded current (A) and the joint velocity (rad/s) at the
        same samples.

    Returns
    -------
    ControllerGains

    Raises
    ------
    DataError
        Shapes that do not match, values that are not finite, or a joint whose commanded torque does
        not vary, equals its commanded current sample for sample (one column read as both), or whose fitted
        slope is not positive (no gain to read).
    """
    def stacked(value, name):
        parts = value if isinstance(value, (list, tuple)) else [value]
        parts = [real_array(f"controller gains: {name}", p, DataError) for p in parts]
        if any(p.ndim != 2 for p in parts):
            raise DataError(f"controller gains: {name}: expected arrays of shape (samples, joints)")
        # before the copy: a broadcast view of 10⁹ samples would end in numpy's bare MemoryError
        check_allocation((sum(p.size for p in parts), 4), f"controller gains: {name}", "the fit's copies")
        out = np.concatenate(parts)
        if not np.all(np.isfinite(out)):
            raise DataError(f"controller gains: {name}: values that are not finite")
        return out

    tau, cur, qd = (stacked(v, n) for v, n in ((target_torque, "target torque"), (target_current, "target current"),
                                               (velocity, "velocity")))
    if not tau.shape == cur.shape == qd.shape:
        raise DataError(f"controller gains: target torque {tau.shape}, target current {cur.shape} and velocity "
                        f"{qd.shape} differ in shape")
    S, n = tau.shape
    if S < 10:
        raise DataError(f"controller gains: {counted(S, 'samples')}; at least 10 needed")
    gains, friction, rmse = np.zeros(n), np.zeros((n, 3)), np.zeros(n)
    for j in range(n):
        if np.ptp(tau[:, j]) <= 1e-9 * max(np.abs(tau[:, j]).max(), 1.0):
            raise DataError(f"controller gains: joint {j + 1}: the target torque does not vary; no gain to read")
        if np.array_equal(tau[:, j], cur[:, j]):
            # one column read as both (payload --gains-from-targets tau=13:19,current=13:19): the fit's slope is
            # exactly 1, a gain of 1 N·m/A taken without a word and the payload found 8 times too heavy
            raise DataError(f"controller gains: joint {j + 1}: the target current equals the target torque, sample "
                            "for sample (one column read as both?); no gain to read")
        A = np.column_stack([tau[:, j], np.sign(qd[:, j]), qd[:, j], np.ones(S)])
        x = np.linalg.lstsq(A, cur[:, j], rcond=None)[0]
        if not x[0] > 0:
            raise DataError(f"controller gains: joint {j + 1}: the target current does not grow with the target "
                            f"torque (slope {x[0]:.3g} A/N·m)")
        gains[j], friction[j] = 1.0 / x[0], x[1:]
        rmse[j] = np.sqrt(np.mean((cur[:, j] - A @ x) ** 2))
    return ControllerGains(gains=gains, friction=friction, rmse=rmse, n_samples=S)
