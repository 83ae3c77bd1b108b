"""Simulated experiments with floating-base robots, logged as sensors would: the three identification
routes of :func:`~baseparam.identify_floating` compared on known truth.

* :func:`stance_motion` — a legged robot standing on its feet while its base moves: the base pose
  prescribed, the joints solved (Newton, per sample) so that every contact point stays where it was
  at the start; q̇ from the contact Jacobians (the feet's velocity zero), q̈ by central differences.
* :func:`contact_experiment` — a prescribed motion on force plates: inverse dynamics gives the 6 + n
  generalized forces it needs; the base's six (no actuator there) come from the contact wrenches,
  the minimum-norm distribution over the contacts (in N and N·m as they are: no friction cone, no
  unilateral constraint, no contact dynamics); the joint torques are the rest. The log carries
  joint and F/T sensor noise, and a gyro/velocity noise on the base twist.
* :func:`free_floating_experiment` — a free-floating robot (no external wrench) driven by joint
  torques, simulated by :func:`~baseparam.simulate`, its log with joint and base-twist noise.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .._checks import counted, shown
from .._numbers import real_array
from .._validation import (check_field_kinds, check_instance, check_number, check_robot, check_robot_states, check_seed,
                           float_fields)
from .._values import ComparedByValue
from ..dynamics.contacts import _jacobian, _tree, check_contacts, tree_body
from ..dynamics.newton_euler import inverse_dynamics
from ..errors import ArgumentError, SimulationError
from ..model.value import Model
from ..motion import Trajectory, central_differences
from .integrate import checked_noise, checked_times, logged, simulate

__all__ = ["FloatingExperiment", "contact_experiment", "free_floating_experiment", "stance_motion"]


@dataclasses.dataclass(frozen=True, repr=False, eq=False)      # == by value: _values.ComparedByValue
class FloatingExperiment(ComparedByValue):
    """A simulated floating-base experiment: the sensors' log beside the truth.

    Attributes
    ----------
    log : Trajectory
        What the sensors give (floating: base pose, twist and its rate, joint states; τ = [0, joint
        torques]), with noise.
    wrenches : ndarray, shape (n_samples, n_contacts, 6)
        The contact wrenches [f, n] the environment exerts on the robot, each in its contact frame, as
        the F/T sensors log them (with noise; a force plate logs the opposite).
    contacts : tuple of Contact
    truth : Trajectory
        The noise-free motion and forces.
    true_wrenches : ndarray, shape (n_samples, n_contacts, 6)
    parameters : ndarray, shape (n_standard,)
        The true standard parameters (pseudo).
    notes : tuple of str
        What the simulation models and what it does not.
    """

    log: Trajectory
    wrenches: np.ndarray
    contacts: tuple
    truth: Trajectory
    true_wrenches: np.ndarray
    parameters: np.ndarray
    notes: tuple

    def __post_init__(self):
        # built by hand (the class is exported): repr and identify_floating reached a text's missing attributes
        float_fields(self, ("wrenches", "true_wrenches", "parameters"))
        trajectory = (Trajectory, "a baseparam.Trajectory")
        check_field_kinds(self, {"log": trajectory, "truth": trajectory,
                                 "contacts": ((tuple, list), "a tuple of Contact"),
                                 "notes": ((tuple, list), "a tuple of str")})

    def __repr__(self):
        return (f"FloatingExperiment({counted(self.log.n_samples, 'samples')}, {self.log.n_dof} joints, "
                f"{len(self.contacts)} contacts)")


def _floating_model(model, what):
    """``model``'s robot when ``model`` is a Model of a floating-base robot; else a one-line error."""
    robot = check_instance(model, "model", Model, "a baseparam.Model (robot and parameters)").robot
    if not robot.is_floating:
        raise ArgumentError(f"model: {shown(robot.name)} has a fixed base; {what} are for floating bases")
    return robot


def _euler_zyx(angles):
    """R = Rz(yaw) Ry(pitch) Rx(roll) of (S, 3) angles (yaw, pitch, roll) → (S, 3, 3).

    Written out rather than scipy's ``Rotation.from_euler("ZYX", ...)``, which goes through quaternions:
    its matrices differ in the last bits, and at ties (roll −90°) scipy's ``from_matrix`` then gives the
    other sign of the same quaternion.
    """
    y, p, r = angles.T
    cy, sy, cp, sp, cr, sr = np.cos(y), np.sin(y), np.cos(p), np.sin(p), np.cos(r), np.sin(r)
    return np.stack([np.stack([cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr], -1),
                     np.stack([sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr], -1),
                     np.stack([-sp, cp * sr, cp * cr], -1)], -2)


def _contact_points(robot, tree, contacts):
    """World positions (S, C, 3) of the contact frames' origins on a built kinematic tree."""
    points = []
    for c in contacts:
        b = tree_body(robot, c)
        points.append(tree.P[b] + tree.R[b] @ np.asarray(c.position))
    return np.stack(points, 1)


def _world_linear_jacobians(robot, tree, contacts):
    """(S, 3C, n_v): the world velocity of each contact point on a built tree, J_world = R_c J_c[:3]."""
    return np.concatenate([tree.R[tree_body(robot, c)] @ np.asarray(c.rotation) @ _jacobian(robot, tree, c)[:, :3]
                           for c in contacts], 1)


def stance_motion(robot, t, q0, base_position, base_angles, contacts, *, iterations=30, tolerance=1e-12):
    """A floating-base motion with the contact points held still: the base follows the given pose,
    the joints are solved for.

    Parameters
    ----------
    robot : Robot
    t : array_like, shape (n_samples,)
        Uniform times (s).
    q0 : array_like, shape (n_q,)
        The standing configuration: where the contact points are held.
    base_position : array_like, shape (n_samples, 3)
        The frame-0 origin in the world (m).
    base_angles : array_like, shape (n_samples, 3)
        Yaw, pitch, roll (rad; R = Rz Ry Rx).
    contacts : sequence of Contact
        Point contacts (only their origins are held: a foot may roll about its point); 3 per contact
        and the joints should make a square or wide system (solo12's four feet and 12 joints).
    iterations : int
    tolerance : float
        Of the contact points' distance to where they started (m).

    Returns
    -------
    q : ndarray, shape (n_samples, n_q)
    qd, qdd : ndarray, shape (n_samples, n_v)
        The base twist [v, ω] in frame 0 and its rate by central differences (second order), the joint
        velocities from the contact Jacobians, their rate by central differences.
    """
    robot = check_robot(robot)
    if not robot.is_floating:
        raise ArgumentError(f"robot: {shown(robot.name)} has a fixed base; stance_motion moves a floating base")
    # a sample keeps t, its step, q, q̇, q̈ and the base's pose
    t = checked_times(t, robot.n_q + 2 * robot.n_v + 8, 3, "central differences")
    S = len(t)
    (q0,), _ = check_robot_states(robot, q=q0)
    q0 = q0[0]
    pos, ang = real_array("base_position", base_position), real_array("base_angles", base_angles)
    if pos.shape != (S, 3) or ang.shape != (S, 3):
        raise ArgumentError(f"base_position, base_angles: expected ({S}, 3) each, got {pos.shape}, {ang.shape}")
    if not (np.abs(pos) <= 1e8).all() or not (np.abs(ang) <= 1e8).all():
        raise ArgumentError("base_position, base_angles: expected finite numbers (m, rad)")
    contacts = check_contacts(contacts, robot)
    if not contacts:
        raise ArgumentError("contacts: none given; the joints are solved to hold the contact points")
    iterations = check_number(iterations, "iterations", low=1, high=10_000, integer=True)
    tolerance = check_number(tolerance, "tolerance", low=0, strict=True)
    targets = _contact_points(robot, _tree(robot, q0[None]), contacts)
    from scipy.spatial.transform import Rotation
    R = _euler_zyx(ang)
    q = np.tile(q0, (S, 1))
    q[:, :3], q[:, 3:7] = pos, Rotation.from_matrix(R).as_quat()      # unit quaternions (x, y, z, w)
    for _ in range(iterations):
        tree = _tree(robot, q)         # one tree per step, for the points and the Jacobians
        points = _contact_points(robot, tree, contacts)
        error = (targets - points).reshape(S, -1)
        if np.abs(error).max() < tolerance:
            break
        J = _world_linear_jacobians(robot, tree, contacts)[:, :, 6:]
        q[:, 7:] += np.einsum("sij,sj->si", np.linalg.pinv(J), error)
    else:
        raise SimulationError(f"stance_motion: the contact points could not be held (off by "
                              f"{np.abs(error).max():.3g} m): a base pose out of the legs' reach?")
    # the base twist in frame 0: v = Rᵀ ṗ, [ω]× = Rᵀ Ṙ
    Rdot = central_differences(R, t)
    Rt = np.swapaxes(R, 1, 2)
    W = Rt @ Rdot
    v = np.einsum("sij,sj->si", Rt, central_differences(pos, t))
    w = 0.5 * np.stack([W[:, 2, 1] - W[:, 1, 2], W[:, 0, 2] - W[:, 2, 0], W[:, 1, 0] - W[:, 0, 1]], -1)
    qd = np.zeros((S, robot.n_v))
    qd[:, :3], qd[:, 3:6] = v, w
    J = _world_linear_jacobians(robot, tree, contacts)         # the tree of the final q (the loop broke on it)
    qd[:, 6:] = -np.einsum("sij,sj->si", np.linalg.pinv(J[:, :, 6:]), np.einsum("sij,sj->si", J[:, :, :6], qd[:, :6]))
    return q, qd, central_differences(qd, t)


def _check_noise(function, twist_noise, seed, wrench_noise=(0.0, 0.0), noise=None):
    """The noise settings of an experiment (``function``: the public one, for messages): finite standard deviations ≥ 0
    of the right lengths, a seed (:func:`~baseparam._validation.check_seed`), returned as the int checked (``seed + 1``
    of a np.uint8(255) wrapped around to 0: other noise than asked for)."""
    for name, value, sizes in (("twist_noise", twist_noise, ((), (6,))), ("wrench_noise", wrench_noise, ((2,),))):
        arr = real_array(name, value)
        if arr.shape not in sizes or not (np.abs(arr) <= 1e8).all() or (arr < 0).any():
            expected = "one number or 6" if name == "twist_noise" else "2 (force, moment)"
            raise ArgumentError(f"{name}: expected {expected} finite standard deviations ≥ 0, got "
                                + (f"{arr.tolist()}" if arr.ndim <= 1 else f"shape {arr.shape}"))
    seed = check_seed(seed, legacy=function)
    checked_noise(noise)
    return seed


def _log(truth, noise, twist_noise, seed):
    """The sensors' log of a noise-free floating motion: joint noise (SensorNoise), the base twist's."""
    fields = {"q": truth.q, "qd": truth.qd, "qdd": truth.qdd, "tau": truth.tau}
    log = logged(truth.n_dof, truth.t, fields, noise, None, ("q", "qd", "qdd", "tau"), truth.source, True)
    if twist_noise:
        rng = np.random.default_rng(seed + 1)
        qd = log.qd.copy()
        qd[:, :6] += rng.standard_normal((log.n_samples, 6)) * np.broadcast_to(np.asarray(twist_noise, float), (6,))
        log = dataclasses.replace(log, qd=qd)
    return log


def contact_experiment(model, t, q, qd, qdd, contacts, *, point=False, noise=None, wrench_noise=(0.0, 0.0),
                       twist_noise=0.0, seed=0):
    """A prescribed floating-base motion on force plates, with the forces it needs, logged with noise.

    Parameters
    ----------
    model : Model
        The true robot (floating base) and parameters.
    t : array_like, shape (n_samples,)
    q : array_like, shape (n_samples, n_q)
    qd, qdd : array_like, shape (n_samples, n_v)
    contacts : sequence of Contact
        The frames the F/T sensors (or force plates, their wrench moved there) measure.
    point : bool
        Point contacts (a legged robot's round feet): forces only, the moment about each contact
        point zero; else full wrenches (flat feet, hands gripping).
    noise : SensorNoise, optional
        On the joints' columns (positions, velocities, accelerations, torques).
    wrench_noise : (float, float)
        Standard deviations of the F/T sensors' force (N) and moment (N·m) components.
    twist_noise : float or sequence of 6
        Of the logged base twist [v, ω] (m/s, rad/s; an estimator's or a gyro's).
    seed : int

    Returns
    -------
    FloatingExperiment
    """
    robot = _floating_model(model, "contact experiments")
    contacts = check_contacts(contacts, robot)
    check_instance(point, "point", (bool, np.bool_), "True or False")
    seed = _check_noise("contact_experiment", twist_noise, seed, wrench_noise, noise)
    (q, qd, qdd), _ = check_robot_states(robot, q=q, qd=qd, qdd=qdd)
    t = checked_times(t, 2, n_samples=len(q))
    if not contacts:
        raise ArgumentError("contacts: none given; the base's six equations need the wrenches of at least one "
                            "contact (free_floating_experiment simulates a robot without any)")
    needed = inverse_dynamics(model, q, qd, qdd)                         # (S, 6 + n)
    tree = _tree(robot, q)
    J = np.stack([_jacobian(robot, tree, c) for c in contacts], 1)     # (S, C, 6, n_v)
    S, C = J.shape[:2]
    k = 3 if point else 6                                              # a point contact: forces only
    G = np.swapaxes(J[:, :, :k, :6], 2, 3).transpose(0, 2, 1, 3).reshape(S, 6, k * C)   # base rows of Σ J_cᵀ w_c
    w = np.zeros((S, C, 6))
    w[:, :, :k] = np.einsum("sij,sj->si", np.linalg.pinv(G), needed[:, :6]).reshape(S, C, k)
    applied = np.einsum("scri,scr->si", J, w)
    tau = np.concatenate([np.zeros((S, 6)), needed[:, 6:] - applied[:, 6:]], axis=1)
    truth = Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau, floating=True, source=f"contact_experiment({robot.name})")
    log = _log(truth, noise, twist_noise, seed)
    rng = np.random.default_rng(seed + 2)
    sigma = np.repeat(np.asarray(wrench_noise, dtype=float), 3)
    logged_w = w + rng.standard_normal(w.shape) * sigma
    notes = ("the motion is prescribed (base pose; joints as given), not simulated: its forces come from inverse "
             "dynamics",
             "contact wrenches: the minimum-norm split of the base's six equations over the contacts ("
             + ("point contacts: forces only" if point else "full wrenches, N and N·m weighed alike")
             + "; no friction cone, no unilateral constraint, no contact compliance)",
             "noise: joints (SensorNoise), F/T sensors (Gaussian per component), base twist; the base pose is exact")
    return FloatingExperiment(log=log, wrenches=logged_w, contacts=tuple(contacts), truth=truth, true_wrenches=w,
                              parameters=model.values(), notes=notes)


def free_floating_experiment(model, t, tau, *, q0=None, noise=None, twist_noise=0.0, seed=0):
    """A free-floating robot (no external wrench, no contact) under joint torques, simulated and logged.

    Parameters
    ----------
    model : Model
    t : array_like, shape (n_samples,)
    tau : callable or array_like
        Joint torques as :func:`~baseparam.simulate` takes them (rows of n_dof: the base stays free).
    q0 : array_like, shape (n_q,), optional
        Default: the base at the origin, unturned, the joints at 0; the robot starts at rest.
    noise : SensorNoise, optional
    twist_noise : float or sequence of 6
    seed : int

    Returns
    -------
    FloatingExperiment
        With no contacts (``wrenches`` of shape (n_samples, 0, 6)).
    """
    robot = _floating_model(model, "free-floating experiments")
    seed = _check_noise("free_floating_experiment", twist_noise, seed, noise=noise)
    if q0 is None:
        q0 = np.zeros(robot.n_q)
        q0[6] = 1.0
    truth = simulate(model, t, q0, np.zeros(robot.n_v), tau=tau, record=("q", "qd", "qdd", "tau"))
    log = _log(truth, noise, twist_noise, seed)
    S = truth.n_samples
    notes = ("simulated by bp.simulate (DOP853, rtol = atol = 1e-9): free floating, no gravity term unless the "
             "description has one, no external wrench",
             "noise: joints (SensorNoise), base twist; the base pose is exact")
    return FloatingExperiment(log=log, wrenches=np.zeros((S, 0, 6)), contacts=(), truth=truth,
                              true_wrenches=np.zeros((S, 0, 6)), parameters=model.values(), notes=notes)
