"""Equations of motion in Poisson impulses (Ivanov 2017): q̇ = M(q)⁻¹ p by two O(N) solvers, and ṗ.

State (q, p) instead of (q, q̇): p = M(q) q̇ are the generalized momenta ("Poisson impulses"; for a
floating base its first six are the whole system's momentum [linear; angular about the frame-0
origin] in frame-0 axes). With body twists v (frames of the bodies), subtree momenta μ and the
kinematic structure matrix S, Ivanov's equations (6)–(7) are

    M v − Sᵀμ = 0,   −S v + A q̇ = 0,   Aᵀμ + IA q̇ = p,        ṗ = Aᵀ(F* − v ×* μ) + Q,

a sparse symmetric tree-structured system for (v, q̇, μ) given p, solved here in O(N) per sample
without forming M, by either of his algorithms:

* ``solver='sweep'`` — Vereshchagin's sweep ("прогонка"): tips → root, articulated inertias
  ``M*_i = M_i + Σ_j C_jᵀ H_j M*_j C_j`` with ``D_i = (A_iᵀ M*_i A_i + IA_i)⁻¹`` and
  ``H_i = E − M*_i A_i D_i A_iᵀ``, biases ``φ*_i = Σ_j C_jᵀ (M*_j A_j D_j p_j + H_j φ*_j)``; root → tips,
  ``q̇_i = D_i (p_i − A_iᵀ(φ*_i + M*_i C_i v_k))``, ``v_i = C_i v_k + A_i q̇_i``, ``μ_i = M*_i v_i + φ*_i``;
* ``solver='ltdl'`` — the block LTDL (Cholesky) factorization of the same system: ``L_i L_iᵀ =
  A_iᵀ M*_i A_i + IA_i``, ``L_i x_i = p_i − A_iᵀ φ*_i``, ``L_i V_i = A_iᵀ M*_i C_i``,
  ``M*_i = M_i + Σ_j (C_jᵀ M*_j C_j − V_jᵀ V_j)``, ``φ*_i = Σ_j (C_jᵀ φ*_j + V_jᵀ x_j)``; root → tips,
  ``L_iᵀ q̇_i = x_i − V_i v_k``. It needs one 6×6 product per body fewer than the sweep (V_jᵀV_j instead
  of H_j M*_j); Ivanov reports it 1.3–1.4× faster. Both stay (``solver=``, checked against each other);
  ``bench/bench_second_implementations.py`` and ``bench/bench_forward.py`` print their ratio.

F* is the weight of each body's subtree, Q = τ − friction(q̇) (a floating base: the wrench applied to
it). Matrices are explicit 6×6 per body and sample (:mod:`baseparam.dynamics.tree`), vectorized over
samples with numpy; spatial vectors are angular first inside, the public arrays as documented.
"""
from __future__ import annotations

import numpy as np

from ._peaks import peak
from .._validation import ABSURD, check_option, check_robot_states
from ..errors import SimulationError
from ..model.value import takes_model
from .samples import CHUNK, link_parameters, standard_model
from .floating import public_layout
from .newton_euler import blocked
from .tree import Tree, body_parameters, force_cross, world_frames
from ._definite import at_this_q, nonphysical_body, require_definite, require_finite, require_regular

SOLVERS = ("sweep", "ltdl")


def _mv(A, x):
    """A x for stacks (S, m, n) and (S, n)."""
    return np.einsum("sij,sj->si", A, x)


def _mtv(A, x):
    """Aᵀ x for stacks (S, m, n) and (S, m)."""
    return np.einsum("sji,sj->si", A, x)


def _lower_solve(L, b, transpose=False):
    """x with L x = b (or Lᵀ x = b), L lower triangular (S, n, n), b (S, n, m): substitution over n ≤ 6."""
    n = L.shape[1]
    if n == 1:
        return b / L
    x = np.empty_like(b)
    rows = reversed(range(n)) if transpose else range(n)
    for i in rows:
        done = range(i + 1, n) if transpose else range(i)
        acc = b[:, i].copy()
        for k in done:
            acc -= (L[:, k, i] if transpose else L[:, i, k])[:, None] * x[:, k]
        x[:, i] = acc / L[:, i, i][:, None]
    return x


def solve(tree, momenta, solver="ltdl"):
    """Ivanov's sweep or block LTDL (module notes): (q̇ (S, n_v), v, μ) from momenta (S, n_v); v, μ lists
    of (S, 6) per body. Both accumulate M*, φ* from the tips and recover q̇, v, μ from the root; they
    differ in how a body's pivot block is factored and passed to its parent."""
    S, B, lt = tree.S, tree.n_bodies, solver == "ltdl"
    Ms = [np.broadcast_to(M, (S, 6, 6)).copy() for M in tree.M]
    phi = [np.zeros((S, 6)) for _ in range(B)]
    F, x, V = [None] * B, [None] * B, [None] * B           # the pivot's D (sweep) or L (LTDL); LTDL's x, V
    for i in reversed(range(B)):
        A, dof, parent, C = tree.A[i], tree.dofs[i], tree.parents[i], tree.C[i]
        if lt:
            AM = A.T @ Ms[i]                                              # Aᵀ M*, (S, n, 6)
            K = AM @ A + np.diag(tree.IA[dof])
            F[i] = np.sqrt(K) if A.shape[1] == 1 else np.linalg.cholesky(K)
            x[i] = _lower_solve(F[i], (momenta[:, dof] - phi[i] @ A)[:, :, None])[:, :, 0]
        else:
            MA = Ms[i] @ A                                                # (S, 6, n)
            K = A.T @ MA + np.diag(tree.IA[dof])
            F[i] = 1.0 / K if A.shape[1] == 1 else np.linalg.inv(K)
        if parent < 0:
            continue
        if lt:
            V[i] = _lower_solve(F[i], AM @ C)                             # (S, n, 6)
            Vt = np.swapaxes(V[i], 1, 2)
            Ms[parent] += np.swapaxes(C, 1, 2) @ Ms[i] @ C - Vt @ V[i]
            phi[parent] += _mtv(C, phi[i]) + _mv(Vt, x[i])
        else:
            MAD = MA @ F[i]                                               # M* A D, (S, 6, n)
            H = np.eye(6) - MAD @ A.T
            Ms[parent] += np.swapaxes(C, 1, 2) @ (H @ Ms[i] @ C)
            phi[parent] += _mtv(C, _mv(MAD, momenta[:, dof]) + _mv(H, phi[i]))
    qd = np.empty_like(momenta)
    v, mu = [None] * B, [None] * B
    for i in range(B):
        A, dof, parent = tree.A[i], tree.dofs[i], tree.parents[i]
        vk = _mv(tree.C[i], v[parent]) if parent >= 0 else np.zeros((S, 6))
        if lt:
            rhs = x[i] - _mv(V[i], v[parent]) if parent >= 0 else x[i]
            qd[:, dof] = _lower_solve(F[i], rhs[:, :, None], transpose=True)[:, :, 0]
        else:
            qd[:, dof] = _mv(F[i], momenta[:, dof] - (phi[i] + _mv(Ms[i], vk)) @ A)
        v[i] = vk + qd[:, dof] @ A.T
        mu[i] = _mv(Ms[i], v[i]) + phi[i]
    return qd, v, mu


def sweep(tree, momenta):
    """:func:`solve` by Ivanov's (Vereshchagin's) sweep."""
    return solve(tree, momenta, "sweep")


def ltdl(tree, momenta):
    """:func:`solve` by Ivanov's block LTDL (Cholesky): the same results as :func:`sweep`."""
    return solve(tree, momenta, "ltdl")


def _rates(tree, qd, v, mu, tau):
    """ṗ = Aᵀ(F* − v ×* μ) + τ − friction(q̇), (S, n_v)."""
    weight = tree.subtree_sums(tree.gravity_wrenches())
    out = tau.copy()
    n = tree.robot.n_dof
    joints = slice(tree.robot.n_v - n, None)
    out[:, joints] -= tree.links.friction(qd[:, joints].T).T
    for i in range(tree.n_bodies):
        out[:, tree.dofs[i]] += (weight[i] - force_cross(v[i], mu[i])) @ tree.A[i]
    return out


def _over_samples(model, work, what=None, *, name, build=Tree, **arrays):
    """``work(build(robot, links, q), *arrays after q)`` over blocks of checked samples, results stacked (S, ...);
    one sample in, one out. ``what``: as in :func:`~baseparam.dynamics.samples.standard_model` (refuse a base model);
    ``name``: the public function's, for its memory check; ``build``: what ``work`` needs of a block's
    configurations (default the whole :class:`Tree`)."""
    links = link_parameters(model, what)
    robot = model.robot
    (q, *rest), single = check_robot_states(robot, peak=peak(name, robot), **arrays)
    parts = [work(build(robot, links, q[s0:s0 + CHUNK]), *(a[s0:s0 + CHUNK] for a in rest))
             for s0 in range(0, q.shape[0], CHUNK)]
    if not parts:       # no samples: no rows, of the shape one sample (the neutral configuration) gives
        neutral = np.zeros((1, q.shape[1]))
        if robot.is_floating:
            neutral[0, 6] = 1.0                             # the unit quaternion (x, y, z, w)
        with np.errstate(all="ignore"):
            parts = [work(build(robot, links, neutral), *(np.zeros((1,) + a.shape[1:]) for a in rest))[:0]]
    out = np.concatenate(parts)
    return (float(out[0]) if out.ndim == 1 else out[0]) if single else out


def _momenta(model, q, qd):
    """p = M(q) q̇ of checked arrays (S, n_q), (S, n_v): Newton–Euler's forces for the acceleration q̇
    from rest, without gravity or friction (inverse dynamics' recursion, faster than the tree's)."""
    return blocked(standard_model(model), q, np.zeros_like(qd), qd, gravity=False, friction=False)


@takes_model("p", "q", "qd", "parameters")
def generalized_momenta(model, q, qd):
    """The Poisson impulses p = M(q) q̇ (rotor inertia included), by Newton–Euler (:func:`_momenta`).

    ``model, q, qd`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, qd, parameters='pseudo'``).

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    (q, qd), single = check_robot_states(model.robot, q=q, qd=qd,
                                         peak=peak("generalized_momenta", model.robot))
    p = _momenta(model, q, qd)
    return p[0] if single else p


@takes_model("p", "q", "momenta", "solver", "parameters")
def velocities_from_momenta(model, q, momenta, solver="ltdl"):
    """q̇ = M(q)⁻¹ p from the Poisson impulses, by Ivanov's O(N) sweep or block LTDL (module notes).

    Parameters
    ----------
    model, q
        As in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, momenta, solver, parameters='pseudo'``).
    momenta : array_like, shape (n_samples, n_v) or (n_v,)
    solver : {'ltdl', 'sweep'}

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    check_option(solver, "solver", SOLVERS, expected=f"one of {SOLVERS!r}")

    def solve_one(tree, m):
        # M(q) singular or not positive definite: 1/0, √(<0) or a failed Cholesky, refused below as
        # forward_dynamics refuses it, never returned as NaN
        with np.errstate(all="ignore"):
            try:
                return solve(tree, m, solver)[0]
            except np.linalg.LinAlgError:
                return np.full_like(m, np.nan)

    qd = require_finite(_over_samples(model, solve_one, name="velocities_from_momenta", q=q, momenta=momenta),
                        "q̇ = M(q)⁻¹ p")
    # a negative pivot of the sweep (the LTDL's square root fails on it) is finite: refused with the other
    # samples where M(q) is not positive definite
    where = None if qd.ndim == 2 else at_this_q
    if nonphysical_body(model) is not None:     # q checked again only then: physical bodies need no look
        require_definite(model, check_robot_states(model.robot, q=q)[0][0], where)
    if not (np.abs(qd) <= ABSURD).all():        # a pivot of round-off (M(q) singular): q checked again only then
        require_regular(model, check_robot_states(model.robot, q=q)[0][0], qd, "q̇ = M(q)⁻¹ p", where)
    return qd


@takes_model("p", "q", "qd", "tau", "parameters")
def momenta_rate(model, q, qd, tau):
    """ṗ = d/dt (M(q) q̇) = Aᵀ(F* − v ×* μ) + τ − friction(q̇) (Ivanov's equation (7)).

    Parameters
    ----------
    model, q, qd
        As in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, qd, tau, parameters='pseudo'``).
    tau : array_like, shape (n_samples, n_v) or (n_v,)

    Returns
    -------
    ndarray, shape (n_samples, n_v) (or (n_v,))
    """
    def work(tree, qd, tau):
        v = tree.velocities(qd)
        return _rates(tree, qd, v, tree.subtree_sums([x @ M.T for x, M in zip(v, tree.M)]), tau)
    return _over_samples(model, work, name="momenta_rate", q=q, qd=qd, tau=tau)


def hamiltonian_rates(robot, links, q, momenta, tau, solver="ltdl"):
    """(q̇, ṗ) of checked arrays by Ivanov's ``solver`` in numpy, one solve per sample: the right-hand side of a
    simulation in (q, p) that :class:`CompiledRates` computes compiled (its reference in tests and
    ``bench/bench_momenta_rates.py``; ``simulate`` steps in the compiled kernels).

    ``tau`` is an (S, n_v) array, or a callable of q̇ returning one (a controller reading velocities).
    """
    tree = Tree(robot, links, q)
    try:
        qd, v, mu = solve(tree, momenta, solver)
    except np.linalg.LinAlgError:              # the LTDL's Cholesky factor of a pivot block that is not definite
        raise SimulationError("the joint-space inertia M(q) is singular or not positive definite along the motion "
                              f"(solver={solver!r}); check the parameters (a physical body per link)") from None
    return qd, _rates(tree, qd, v, mu, tau(qd) if callable(tau) else tau)


class CompiledRates:
    """(q̇, ṗ) of one state (q, p) of a robot by two compiled kernels, for a simulation's steps: q̇ = M(q)⁻¹ p
    by the ABA's articulated inertias at rest (:func:`~baseparam.dynamics.forward_graph.build_forward`'s
    ``inverse_mass``: Vereshchagin's sweep, the algebra of ``solver='sweep'``), then ṗ of (q, q̇, τ)
    (:mod:`~baseparam.dynamics.momenta_graph`). :func:`hamiltonian_rates`' numbers to round-off, hundreds of times
    faster on one sample than numpy's 6×6 products per body (``bench/bench_momenta_rates.py`` prints the ratio).

    Parameters
    ----------
    model : Model
        Standard parameters, a fixed or a floating base (q's quaternion of unit length: not checked here).
    """

    def __init__(self, model):
        from .forward import ForwardDynamics

        class InverseMass(ForwardDynamics):
            _graph = "inverse_mass"

        class MomentaRate(ForwardDynamics):
            _graph = "momenta_rate"
        self.model, self.robot = model, model.robot
        self._inverse_mass, self._rate = InverseMass(model), MomentaRate(model)
        self._rest = np.zeros(model.robot.n_v)
        self._steps = None

    def velocities(self, q, momenta):
        """q̇ = M(q)⁻¹ p of one sample, (n_q,), (n_v,) → (n_v,). An ArgumentError when a value is not finite (M(q)
        singular, a state diverging), as :class:`~baseparam.ForwardDynamics` says it."""
        return self._inverse_mass(q, self._rest, momenta)

    def batch_velocities(self, q, momenta):
        """q̇ = M(q)⁻¹ p of sample arrays (S, n_q), (S, n_v) → (S, n_v) by the same kernel's loop over the samples
        (a simulation's log, many times faster than :func:`velocities_from_momenta`'s numpy recursion); an
        ArgumentError naming the first sample whose q̇ is not finite."""
        return self._inverse_mass.batch(q, np.zeros_like(momenta), momenta)

    def rate(self, q, qd, tau):
        """ṗ of one sample, (n_q,), (n_v,), (n_v,) → (n_v,); errors as :meth:`velocities`'."""
        return self._rate(q, qd, tau)

    @property
    def steps(self):
        """A :class:`~baseparam.ForwardDynamics` whose RK4 (``_rk4_unchecked``) steps (q, p) in place of (q, q̇): one
        compiled loop of both kernels, each rate q̇ = M⁻¹ p then ṗ (its own kernel, compiled on first use)."""
        if self._steps is None:
            from .floating import configuration_rate
            from .forward import ForwardDynamics
            inverse, rest = self._inverse_mass, self._rest

            class MomentaSteps(ForwardDynamics):
                _graph = "momenta_steps"

                def _rate(self, x, m, tau):     # the Python steps, without a C compiler: q̇ first, then ṗ
                    qd = inverse._python(x, rest, m)
                    self._count(1)
                    return configuration_rate(self.robot, x[None], qd[None])[0], self._python(x, qd, tau)
            self._steps = MomentaSteps(self.model)
        return self._steps


@takes_model("p", "q", "qd", "parameters")
def momentum(model, q, qd):
    """The links' total momentum [linear; angular about the world origin] in world axes.

    For a floating base, the world frame is the inertial one (the base pose is in q); for a fixed
    base it is frame 0. Conserved by a free-floating robot without gravity or external wrench
    (whatever its joints do, friction and rotor inertia included).

    Returns
    -------
    ndarray, shape (n_samples, 6) (or (6,))
    """
    def work(tree, qd):
        v = tree.velocities(qd)
        return public_layout(sum(tree.world_wrench(b, v[b] @ tree.M[b].T) for b in range(tree.n_bodies)))
    return _over_samples(model, work, "momentum", name="momentum", q=q, qd=qd)


@takes_model("p", "q", "qd", "parameters")
def kinetic_energy(model, q, qd):
    """½ q̇ᵀ M(q) q̇, rotor inertia included. Returns (n_samples,) (or a float)."""
    (q, qd), single = check_robot_states(model.robot, q=q, qd=qd, peak=peak("kinetic_energy", model.robot))
    energy = 0.5 * (_momenta(model, q, qd) * qd).sum(axis=1)
    return float(energy[0]) if single else energy


@takes_model("p", "q", "parameters")
def potential_energy(model, q):
    """−Σ m g·c of the links (and a floating base), c each centre of mass in the world; zero at the
    world origin. Returns (n_samples,) (or a float)."""
    robot = model.robot
    g = robot.gravity_si
    bodies = body_parameters(robot, link_parameters(model, "potential_energy"))

    def work(frames):
        # only the bodies' world frames: the dynamics' 6×6 matrices a Tree builds beside them would take 2/3 of the
        # time, the sum over the bodies below a tenth of what is left (bench/bench_dynamics.py times it)
        R, P = frames
        total = np.zeros(len(P[0]) if P else 0)
        for (_, h, m), R_b, P_b in zip(bodies, R, P):
            total -= m * (P_b @ g) + np.einsum("sij,j->si", R_b, h) @ g
        return total
    return _over_samples(model, work, "potential_energy", name="potential_energy",
                         build=lambda robot, _, q: world_frames(robot, q), q=q)
