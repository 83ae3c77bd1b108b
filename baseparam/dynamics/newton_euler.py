"""Inverse dynamics, reaction wrenches, g(q) and C(q, q̇) q̇ of a model by the recursive Newton–Euler algorithm.

The recursion is the regressor graph's customized Newton–Euler
(:func:`~baseparam.dynamics.regressor_graph.build_inverse_dynamics`, the one base models and the
exported code run), with every standard parameter an input: angular velocity and acceleration and
the linear acceleration of each frame origin are carried from the base through the steps of each
joint's model (:mod:`baseparam.model.joint_model`), link wrenches are summed back the same way, and a
joint's force is the z component of the wrench in its joint frame. One graph per robot,
parameterization and variant (gravity or friction left out, reaction wrenches), compiled once to
straight-line numpy over blocks of samples (:data:`.samples.CHUNK`) and kept with the robot; large batches
(and every call once a robot has been called often) run the same statements as a C loop over samples, as
the regressors do (:mod:`baseparam.dynamics.regressors`), the same numbers.
"""
from __future__ import annotations

import numpy as np

from ._peaks import peak
from .._validation import check_option, check_robot_states
from ..model._kernels import kernels_of
from ..model.joint_model import motion_offsets
from ..model.value import BaseModel, takes_model
from . import _native_rule
from ._compiled import Batch
from .floating import public_layout
from .printing import input_source, numpy_function
from .regressor_graph import build_inverse_dynamics
from .samples import friction_rows, in_blocks, link_parameters, standard_model


def kernel(robot, parameters, gravity=True, friction=True, wrenches=None, columns=None):
    """The compiled graph ``f(q, qd, qdd, sgn, stb, p, out)`` of one variant, rows (n, S) (kept with the robot),
    and as ``f.native`` its C loop over rows of samples (:class:`~baseparam.dynamics._compiled.Batch`).
    ``columns`` (a tuple of ints): the standard columns ``p`` holds, the others zero (a base set's pivots: τ =
    W_b p_base); None: all of them."""
    def build():
        g, outputs = build_inverse_dynamics(robot, parameters, columns, gravity, friction, wrenches)
        offsets, first = motion_offsets(robot), (robot.n_q - robot.n_dof, robot.n_v - robot.n_dof)
        fn = numpy_function(g, [((i,), node) for i, node in outputs], offsets, f"Newton–Euler of {robot.name}",
                            arguments="q, qd, qdd, sgn, stb, p, out",
                            inputs=lambda name, k: input_source(name, k, offsets, first))
        rows = robot.n_v if wrenches is None else 6 * robot.n_dof
        fn.native = Batch(g, [((i, 0), node) for i, node in outputs], offsets, rows, 1, first=first,
                          strides=(robot.n_q, robot.n_v, robot.n_v, robot.n_dof, robot.n_dof, 0),
                          arguments=("q", "qd", "qdd", "sgn", "stb", "p"))
        return fn
    return kernels_of(robot).get("newton_euler", (parameters, columns, gravity, friction, wrenches), build)


def blocked(model, q, qd, qdd, gravity=True, friction=True, wrenches=None):
    """Newton–Euler of a standard model over checked samples (n_samples, n_q), (n_samples, n_v), (n_samples, n_v):
    τ (n_samples, n_v), or with ``wrenches`` ('link' or 'joint') the reaction wrenches [n; f] (n_samples, n_dof, 6). By
    the C loop over samples when the rule of :mod:`baseparam.dynamics._native_rule` wants it (and there is a C
    compiler), the numpy blocks' numbers to the bit (the same statements; friction shapes computed by numpy for both);
    else in numpy blocks of :data:`~baseparam.dynamics.samples.CHUNK` samples."""
    robot, p = model.robot, model.values()
    f = kernel(robot, model.parameters, gravity, friction, wrenches)
    S, n = q.shape[0], robot.n_dof
    qdT = qd.T.copy()
    shapes = friction_rows(robot, qdT[robot.n_v - n:], friction=friction)
    if f.native.library_for(S) is not None:
        rows = [np.ascontiguousarray(x, dtype=float) for x in (q, qd, qdd, *(s.T for s in shapes), p)]
        out = np.zeros((S, f.native.n))
        f.native.fill(rows, out, zeroed=True, threads=_native_rule.thread_count(None, S))
    else:
        out = np.zeros((robot.n_v if wrenches is None else 6 * n, S))
        in_blocks(f, (q.T.copy(), qdT, qdd.T.copy(), *shapes), p, out=out)
        out = out.T
    return out if wrenches is None else out.reshape(S, n, 6)


@takes_model("p", "q", "qd", "qdd", "parameters")
def inverse_dynamics(model, q, qd, qdd):
    """Joint torques (forces for prismatic joints) of a robot with standard parameters p.

    τ = M(q) q̈ + C(q, q̇) q̇ + g(q) + IA q̈ + friction(q̇), everything SI. For a floating base
    (:attr:`Robot.is_floating`) the first six entries are the wrench [f, n] the base body needs
    (frame-0 axes, moment about its origin; zero when it floats freely).

    Parameters
    ----------
    model : Model or BaseModel
        The robot and its parameters (a base model: customized Newton–Euler in base parameters,
        τ = W_b p_base, the graph ``baseparam export`` writes). Deprecated: ``robot, p, q, qd,
        qdd, parameters='pseudo'``, p the standard parameters in ``ColumnLayout(robot, parameters)`` order.
    q : array_like, shape (n_samples, n_q) or (n_q,)
        ``n_q = n_dof`` (+ 7 for a floating base: position, quaternion x y z w).
    qd, qdd : array_like, shape (n_samples, n_v) or (n_v,)
        ``n_v = n_dof`` (+ 6 for a floating base: its twist [v, ω] in frame 0, and its derivative).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,) for one sample)
    """
    if isinstance(model, BaseModel):          # its base set's customized Newton–Euler (regressors.newton_euler_base)
        return model.base._inverse_dynamics(model.values(), q, qd, qdd)
    return _torques(model, {"q": q, "qd": qd, "qdd": qdd}, "inverse_dynamics")


def _torques(model, states, name, **flags):
    """:func:`blocked` of a model at checked ``states`` ({'q': …, 'qd': …, 'qdd': …}, the rates zero where
    left out); one sample in, one out. ``name``: the public function's, for its memory check."""
    robot = model.robot
    (q, *rates), single = check_robot_states(robot, peak=peak(name, robot), **states)
    zero = np.zeros((q.shape[0], robot.n_v))
    qd, qdd = (rates + [zero, zero])[:2]
    tau = blocked(standard_model(model), q, qd, qdd, **flags)
    return tau[0] if single else tau


@takes_model("p", "q", "qd", "qdd", "parameters", "frame")
def reaction_wrenches(model, q, qd, qdd, frame="link"):
    """The wrench each link's parent exerts on it through its joint: actuation and constraint.

    ``w[s, k] = [f, n]``: force and moment (about the origin of link k's frame) that link k's parent
    (or the base) exerts on link k through joint k, both in link k's frame axes, SI. Its component
    along the joint's motion is the joint's torque less rotor inertia and friction (IA q̈ + friction
    act in the drive, not between the links); the rest holds the joint together.

    This is the backward recursion of Newton–Euler (the *recursive equivalent* of Liu, Hu & Zhang's
    constraint force algorithm): the wrench through joint k is the rate of change of the momentum of
    the subtree it carries less the gravity acting on that subtree, summed from the tips. It costs
    O(N) per sample, the same as inverse dynamics, and needs no constraint bases W_j and no solve;
    the CFA's block-tridiagonal system A F_S = −B F_T gives the same constraint forces when the
    accelerations are those of the forward dynamics (both are Newton–Euler for every body; the CFA
    solves for F_S first, O(N³) as published or O(N) serialized, and q̈ with it). Give ``qdd`` from
    :func:`~baseparam.forward_dynamics` to get the wrenches of a simulated motion.

    Parameters
    ----------
    model : Model
        (Deprecated: ``robot, p, …, parameters='pseudo'``.) Not a base model: the wrenches depend on
        more than the base parameters.
    q : array_like, shape (n_samples, n_q) or (n_q,)
    qd, qdd : array_like, shape (n_samples, n_v) or (n_v,)
    frame : {'link', 'joint'}
        ``'joint'``: the same wrench about the origin of joint k's *joint frame* (where its motion is
        about or along z; :mod:`baseparam.model.joint_model`), in that frame's axes. There the
        actuated part is one component — n_z (revolute) or f_z (prismatic) — and the other five are
        the constraint part (Liu et al.'s F_S).

    Returns
    -------
    ndarray, shape (n_samples, n_dof, 6) (or (n_dof, 6) for one sample)
    """
    model = standard_model(model, "reaction_wrenches")
    model.values()                             # no values: that error first
    check_option(frame, "frame", ("link", "joint"), expected="'link' or 'joint'")    # an array too: one line
    return public_layout(_torques(model, {"q": q, "qd": qd, "qdd": qdd}, "reaction_wrenches", wrenches=frame))


@takes_model("p", "q", "parameters")
def gravity_torque(model, q):
    """g(q): joint torques holding the robot at rest against gravity (for a floating base, the
    wrench on the base first: its weight).

    ``model, q`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, parameters='pseudo'``).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    return _torques(model, {"q": q}, "gravity_torque", friction=False)


@takes_model("p", "q", "qd", "parameters")
def coriolis_torque(model, q, qd):
    """C(q, q̇) q̇: centrifugal and Coriolis torques (no gravity, no friction).

    ``model, q, qd`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, qd, parameters='pseudo'``).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    return _torques(model, {"q": q, "qd": qd}, "coriolis_torque", gravity=False, friction=False)


@takes_model("p", "qd", "parameters")
def friction_torque(model, qd):
    """FV q̇ + FC c(q̇) + FO + FS s(q̇) for the joints that declare friction (c: sign(q̇) or the joint's
    friction model, :mod:`baseparam.model.friction`; zero on a floating base's twist).

    ``model, qd`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, qd, parameters='pseudo'``).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    robot = model.robot
    (qd,), single = check_robot_states(robot, qd=qd, peak=peak("friction_torque", robot))
    tau = np.zeros_like(qd)
    joints = slice(robot.n_v - robot.n_dof, None)
    tau[:, joints] = link_parameters(model).friction(qd[:, joints].T).T
    return tau[0] if single else tau
