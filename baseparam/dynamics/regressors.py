"""Joint-torque regressors: τ = W(q, q̇, q̈) p, and the Slotine–Li adaptive-control regressor.

Also the mass matrix M(q) and the Christoffel-consistent Coriolis matrix C(q, q̇).
The regressor of a robot is derived once as an expression graph (:mod:`baseparam.dynamics.regressor_graph`:
spatial Newton–Euler in link coordinates, exact DH zeros folded, common subexpressions shared),
compiled to straight-line numpy code (:mod:`baseparam.dynamics._compiled`) and evaluated over blocks of
samples. Only the requested columns are derived, so the base regressor never builds the full W.
"""
from __future__ import annotations

import numpy as np

from .._checks import counted
from ._peaks import peak
from .._validation import check_allocation, check_robot_states, check_workers
from ..errors import ArgumentError
from ._compiled import as_columns, regressor_function
from ..model.parameters import ColumnLayout
from ..model.robot import require_fixed_base
from ..model.value import BaseModel, takes_model
from . import _native_rule, newton_euler
from ._native_rule import thread_count
from .samples import CHUNK, friction_rows, in_blocks, standard_model

# A streaming consumer's block of regressor rows (:func:`wide_blocks`): large enough that the C loop and the
# Gram products are not paced by Python's per-call costs, small enough to stay in the last-level cache's
# neighbourhood (16 MB: 4 600 samples of a 7-DOF arm's 64 base columns).
BLOCK_BYTES = 16 * 2 ** 20


def evaluate(robot, q, qd, qdd, qd_ref=None, *, parameters="pseudo", columns=None, gravity=True,
             friction=True, weights=None, out=None, shapes=None, workers=None):
    """Regressor columns over many samples (the engine behind every public regressor), its arguments checked.

    Parameters
    ----------
    q, qd, qdd : ndarray, shape (n_samples, n_q), (n_samples, n_v), (n_samples, n_v)
        ``qdd`` is the reference acceleration when ``qd_ref`` is given (n_q = n_v = n_dof for a fixed
        base; a floating base's pose and twist lead, :mod:`baseparam.dynamics.floating`).
    qd_ref : ndarray, shape (n_samples, n_v), optional
        Reference velocity: gives the Slotine–Li regressor (J̇ along ``qd``).
    columns : array_like of int, optional
        Standard columns wanted (default all), in the output's order.
    gravity, friction : bool
        Leave out gravity or the friction columns' values (for C(q, q̇) alone).
    weights : ndarray, shape (n_columns,), optional
        Return ``W @ weights`` (torques) instead of W, block by block: W is never held whole.
    out : ndarray, shape (n_samples, n_v, n_columns), optional
        Write W here (float64, C-contiguous), e.g. to reuse one buffer in a loop (no fresh memory to
        fault in; every entry is overwritten).
    shapes : tuple of 2 ndarray, shape (n_samples, n_dof), optional
        The friction shapes c(q̇), s(q̇) the Coulomb and Stribeck columns hold (default: from ``qd``
        and each joint's friction model; identification passes them low-passed like the torque).
    workers : int, optional
        Threads sharing the samples of the C loop (:func:`thread_count`).

    Returns
    -------
    ndarray, shape (n_samples, n_v, n_columns), or (n_samples, n_v) with ``weights``

    Raises
    ------
    ArgumentError
        One line naming the argument: a wrong shape, NaN or inf, a column beyond the robot's, a weight vector of
        another length (the checks of :func:`regressor`; the library's own callers use the unchecked engine).
    """
    from .._validation import check_flag, check_real_array, check_robot, check_states

    check_robot(robot)
    check_flag(gravity, "gravity")
    check_flag(friction, "friction")
    workers = check_workers(workers, default=None)
    n_standard = ColumnLayout(robot, parameters).n_standard          # refuses an unknown parameterization
    if columns is not None:
        wanted = check_real_array("columns", columns, 1)
        bad = [c for c in wanted.tolist() if not (float(c).is_integer() and 0 <= c < n_standard)]
        if bad:
            raise ArgumentError(f"columns: expected whole numbers from 0 to {n_standard - 1} (the standard columns "
                                f"of {robot.name}), got {bad[0]:g}")
        columns = tuple(int(c) for c in wanted.tolist())
    arrays = {"q": q, "qd": qd, "qdd": qdd} if qd_ref is None else {"q": q, "qd": qd, "qdd": qdd, "qd_ref": qd_ref}
    states, single = check_robot_states(robot, **arrays)
    if single:
        raise ArgumentError(f"q, qd, qdd: expected arrays of shape (n_samples, {robot.n_v}) (one row a sample), "
                            "got one sample of 1 dimension; regressor() takes one")
    q, qd, qdd, qd_ref = (*states, None) if qd_ref is None else states
    if weights is not None:
        weights = check_real_array("weights", weights, 1)
        count = n_standard if columns is None else len(columns)
        if weights.shape != (count,):
            raise ArgumentError(f"weights: expected {count} numbers (one a column), got shape {weights.shape}")
    if shapes is not None:
        if not isinstance(shapes, (tuple, list)) or len(shapes) != 2:
            raise ArgumentError(f"shapes: expected a pair (c, s) of arrays of shape (n_samples, {robot.n_dof})")
        c, s = check_states(robot.n_dof, c=shapes[0], s=shapes[1])[0]
        if len(c) != len(q):
            raise ArgumentError(f"shapes: expected {counted(len(q), 'samples')} as q, got {len(c)}")
        shapes = (c, s)
    return _evaluate(robot, q, qd, qdd, qd_ref, parameters=parameters, columns=columns, gravity=gravity,
                     friction=friction, weights=weights, out=out, shapes=shapes, workers=workers)


def _evaluate(robot, q, qd, qdd, qd_ref=None, *, parameters="pseudo", columns=None, gravity=True,
              friction=True, weights=None, out=None, shapes=None, workers=None):
    """:func:`evaluate` of checked arguments (the library's callers check them once, before their loops)."""
    columns = _columns(robot, parameters, columns)
    S, n = q.shape[0], robot.n_v
    if weights is None:
        zeroed = out is None
        out = _output(out, (S, n, len(columns)))
        if not zeroed:
            q, qd, qdd, qd_ref = (_apart_from(out, x) for x in (q, qd, qdd, qd_ref))
            shapes = None if shapes is None else tuple(_apart_from(out, x) for x in shapes)
        if _native_fill(robot, q, qd, qdd, qd_ref, parameters, columns, gravity, friction, shapes, out, zeroed,
                        thread_count(workers, S)):
            return out
        if not zeroed:                            # the numpy code writes only the entries that are not zero
            out.fill(0.0)
        view = out.transpose(1, 2, 0)             # (n_dof, n_columns, S): the code writes rows of samples
        for _sl, _ in column_blocks(robot, q, qd, qdd, qd_ref, parameters=parameters, columns=columns,
                                   gravity=gravity, friction=friction, into=view, shapes=shapes):
            pass
        return out
    out = np.empty((S, n))
    for sl, part in column_blocks(robot, q, qd, qdd, qd_ref, parameters=parameters, columns=columns,
                                  gravity=gravity, friction=friction, shapes=shapes):
        out[sl] = np.einsum("jcs,c->sj", part, weights)
    return out


def _native_fill(robot, q, qd, qdd, qd_ref, parameters, columns, gravity, friction, shapes, out, zeroed, threads):
    """Fill W ((n_samples, n_dof, n_columns); ``zeroed``: it holds zeros already) by the regressor's C loop over
    samples on ``threads`` threads; False when the C loop is not wanted yet (:meth:`._compiled.Batch.library_for`) or
    there is no C compiler (the numpy blocks then do it)."""
    kind = "regressor" if qd_ref is None else "slotine_li"
    loop = regressor_function(robot, parameters, columns, kind, gravity, friction).native
    if loop.library_for(out.shape[0]) is None:
        return False
    rows = [np.ascontiguousarray(x, dtype=float) for x in (q, qd, qdd, qd if qd_ref is None else qd_ref)]
    # code without friction shapes (no Coulomb or Stribeck column) is handed q̇ in their place, unread;
    # shapes the caller gives are checked all the same, as the numpy blocks do
    joints = rows[1][:, robot.n_v - robot.n_dof:].T
    shapes = friction_rows(robot, joints, shapes, friction and (loop.reads_shapes or shapes is not None))
    return loop.fill((*rows, *(np.ascontiguousarray(x.T) for x in shapes)), out, zeroed=zeroed, threads=threads)


def _columns(robot, parameters, columns):
    if columns is None:           # the layout only when needed: it costs a millisecond, the robot's joints read
        return tuple(range(ColumnLayout(robot, parameters).n_standard))
    return as_columns(columns)


def column_blocks(robot, q, qd, qdd, qd_ref=None, *, parameters="pseudo", columns=None, gravity=True,
                  friction=True, into=None, shapes=None):
    """Regressor columns block by block, samples last: for streaming consumers (fits, W @ p).

    Parameters
    ----------
    q, qd, qdd, qd_ref, parameters, columns, gravity, friction, shapes
        As in :func:`evaluate` (checked arrays, shape (n_samples, n_dof)).
    into : ndarray, shape (n_dof, n_columns, n_samples), optional
        Write the blocks into this (zeroed) array instead of one reused buffer.

    Yields
    ------
    sl : slice
        The block's samples.
    part : ndarray, shape (n_dof, n_columns, len(block))
        W[sl] transposed; overwritten by the next block unless ``into`` is given.
    """
    kind = "regressor" if qd_ref is None else "slotine_li"
    columns = _columns(robot, parameters, columns)
    block = regressor_function(robot, parameters, columns, kind, gravity, friction)
    S, n = q.shape[0], robot.n_v
    qT, qdT, qddT = q.T.copy(), qd.T.copy(), qdd.T.copy()
    refT = None if qd_ref is None else qd_ref.T.copy()
    sgnT, stbT = friction_rows(robot, qdT[n - robot.n_dof:], shapes, friction)
    buffer = np.zeros((n, len(columns), min(S, CHUNK))) if into is None else None
    for s0 in range(0, S, CHUNK):
        sl = slice(s0, min(s0 + CHUNK, S))
        ref = None if refT is None else refT[:, sl]
        if into is None:
            part = buffer[:, :, :sl.stop - sl.start]
            part.fill(0.0)
        else:
            part = into[:, :, sl]
        block(qT[:, sl], qdT[:, sl], qddT[:, sl], ref, sgnT[:, sl], stbT[:, sl], part)
        yield sl, part


def wide_blocks(robot, q, qd, qdd, *, parameters="pseudo", columns=None, shapes=None, block_bytes=BLOCK_BYTES):
    """Regressor rows in blocks of about ``block_bytes``, by the C loop over samples (one thread; numpy's
    blocks without a C compiler): for streaming consumers that reduce each block at once (Gram sums).

    Parameters
    ----------
    q, qd, qdd, parameters, columns, shapes
        As in :func:`evaluate` (checked arrays, shape (n_samples, n_dof)).
    block_bytes : int
        Size of the one buffer the blocks are written to (at least :data:`CHUNK` samples).

    Yields
    ------
    sl : slice
        The block's samples.
    part : ndarray, shape (n_dof, n_columns, len(block))
        W[sl] transposed (a view, samples strided); overwritten by the next block.
    spans : tuple of (int, int)
        Per joint, the columns ``lo:hi`` outside of which its row is zero (structurally, whatever the state).
    """
    require_fixed_base(robot, "the regressors")
    columns = _columns(robot, parameters, columns)
    fn = regressor_function(robot, parameters, columns, "regressor")
    S, n = q.shape
    width = len(columns)
    spans = fn.native.spans
    loop = fn.native if S >= _native_rule.NATIVE_SAMPLES else None   # below, the compile is not worth it (as evaluate)
    if loop is None or loop() is None:
        for sl, part in column_blocks(robot, q, qd, qdd, parameters=parameters, columns=columns, shapes=shapes):
            yield sl, part, spans
        return
    rows = [np.ascontiguousarray(x, dtype=float) for x in (q, qd, qdd)]
    sgn, stb = friction_rows(robot, rows[1].T, shapes, loop.reads_shapes or shapes is not None)
    rows = (*rows, rows[1], np.ascontiguousarray(sgn.T), np.ascontiguousarray(stb.T))
    B = int(min(S, max(CHUNK, block_bytes // (8 * n * max(width, 1)))))
    # zeroed once: the loop writes only the entries that are not structurally zero, the same in every block
    buffer = np.zeros((B, n, width))
    for s0 in range(0, S, B):
        sl = slice(s0, min(s0 + B, S))
        out = buffer[:sl.stop - s0]
        loop.fill([x[sl] for x in rows], out, zeroed=True)
        yield sl, out.transpose(1, 2, 0), spans


def newton_euler_base(robot, parameters, columns, p, q, qd, qdd, shapes=None):
    """τ = W[:, columns] p by customized Newton–Euler with p symbolic (compiled once per robot).

    Parameters
    ----------
    columns : array_like of int, shape (m,)
        Standard columns that carry the parameters (the base set's pivots).
    p : ndarray, shape (m,)
    q, qd, qdd : ndarray, shape (n_samples, n_q), (n_samples, n_v), (n_samples, n_v)
    shapes : tuple of 2 ndarray, shape (n_samples, n_dof), optional
        Friction shapes, as in :func:`evaluate`.

    Returns
    -------
    ndarray, shape (n_samples, n_v)
    """
    f = newton_euler.kernel(robot, parameters, columns=_columns(robot, parameters, columns))
    n = robot.n_v
    out = np.zeros((n, q.shape[0]))
    rows = [q.T.copy(), qd.T.copy(), qdd.T.copy()]
    in_blocks(f, rows + list(friction_rows(robot, rows[1][n - robot.n_dof:], shapes)), p, out=out)
    return out.T


def as_batch_out(out, single):
    """For one sample (1-D inputs) the caller's buffer has the result's shape (n_dof, n_columns)."""
    if out is not None and single and isinstance(out, np.ndarray) and out.ndim == 2:
        return out[None]
    return out


def _output(out, shape):
    """A float64 C-contiguous output array: ``out`` if the caller gave a suitable one (as it is), else a
    zeroed one (fresh memory, which the system gives zeroed at no extra cost)."""
    if out is None:
        # np.zeros of more than the machine has succeeds (pages are given when written) and the fill then
        # exhausts it: refused first
        check_allocation(shape, "q, qd, qdd")
        return np.zeros(shape)
    if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != np.float64 \
            or not out.flags.c_contiguous or not out.flags.writeable:
        raise ArgumentError(f"out: expected a writeable C-contiguous float64 array of shape {shape}, got "
                         f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
    return out


def _apart_from(out, x):
    """``x`` (an input of the regressor, or None), copied when it may share memory with the caller's buffer ``out``:
    filling ``out`` would change it while it is read (a q that is a view of ``out`` would give a regressor off by 10¹¹,
    silently)."""
    return x.copy() if x is not None and np.may_share_memory(out, x) else x


@takes_model("q", "qd", "qdd", "parameters")
def regressor(model, q, qd, qdd, *, out=None, workers=None):
    """Joint-torque regressor: τ = W @ p.

    Parameters
    ----------
    model : Model or BaseModel (or BaseParameters)
        Its robot and parameterization (its values are not needed). A base model or a base set gives
        the base regressor, τ = W_b @ p_base (the pivot columns, as :meth:`BaseParameters.regressor`).
        Deprecated: ``robot, q, qd, qdd, parameters='pseudo'``.
    q, qd, qdd : array_like, shape (n_samples, n_dof) or (n_dof,)
        Joint positions, velocities, accelerations (SI). For a floating base (:attr:`Robot.is_floating`)
        as in :func:`~baseparam.inverse_dynamics`: q (n_samples, 7 + n_dof) leads with the base's
        position and quaternion x y z w, q̇ and q̈ (n_samples, 6 + n_dof) with its twist [v, ω] in
        frame 0 and its rate (pinocchio's free-flyer convention).
    out : ndarray, shape (n_samples, n_v, n_columns) (or (n_v, n_columns)), optional
        Buffer to fill (float64, C-contiguous; every entry is overwritten). A large batch written into
        fresh memory pays the system's first touch of every page; reusing one buffer in a loop does not.
    workers : int, optional
        Threads that share the samples of a large batch (from 10 000 samples, computed by compiled C):
        by default one per usable core, each with at least 10 000 samples; -1 one per usable core; 1 none.
        The threads end with the call. Results do not depend on the count.

    Returns
    -------
    ndarray, shape (n_samples, n_v, n_columns) (or (n_v, n_columns) for one sample)
        Columns in the order of ``model.names``: n_standard of them (``ColumnLayout(robot,
        parameters)``; a floating base's body first, link 0), or rank for a base model. Rows: the
        joints (n_v = n_dof), after the wrench [f, n] a floating base needs (n_v = 6 + n_dof).
    """
    return columns_at(model.robot, model.parameters, _pivots(model), {"q": q, "qd": qd, "qdd": qdd}, out=out,
                      workers=workers)


@takes_model("q", "qd", "qd_ref", "qdd_ref", "parameters")
def slotine_li_regressor(model, q, qd, qd_ref, qdd_ref, *, out=None, workers=None):
    """Slotine–Li regressor: Y p = M q̈_r + C(q, q̇) q̇_r + g + friction(q̇).

    C is the Christoffel-consistent Coriolis matrix (Ṁ − 2C skew-symmetric). A floating base's
    reference twist and its rate lead ``qd_ref`` and ``qdd_ref`` (as q̇ in :func:`regressor`), C being
    pinocchio's ``computeCoriolisMatrix`` with a free-flyer; 6 + n_dof rows.

    Parameters
    ----------
    model : Model or BaseModel (or BaseParameters)
        As in :func:`regressor` (a base model: Y @ p_base). Deprecated: ``robot, q, qd, qd_ref,
        qdd_ref, parameters='pseudo'``.
    q, qd : array_like, shape (n_samples, n_dof) or (n_dof,)
        Measured joint positions and velocities.
    qd_ref, qdd_ref : array_like, shape (n_samples, n_dof) or (n_dof,)
        Reference velocity and acceleration.
    out : ndarray, shape (n_samples, n_dof, n_columns) (or (n_dof, n_columns)), optional
    workers : int, optional
        As in :func:`regressor`.

    Returns
    -------
    ndarray, shape (n_samples, n_dof, n_columns) (or (n_dof, n_columns))
    """
    return columns_at(model.robot, model.parameters, _pivots(model),
                      {"q": q, "qd": qd, "qd_ref": qd_ref, "qdd_ref": qdd_ref}, out=out, workers=workers)


def columns_at(robot, parameters, columns, arrays, *, out=None, shapes=None, workers=None):
    """The regressor's ``columns`` (None: all) at the states ``arrays``, checked: {'q', 'qd', 'qdd'}, or
    {'q', 'qd', 'qd_ref', 'qdd_ref'} for Slotine–Li; one sample in, one out (the public regressors)."""
    workers = check_workers(workers, default=None)
    name = "slotine_li_regressor" if "qd_ref" in arrays else "regressor"

    def needed(count):          # the column count only for a call of many samples: it costs a millisecond
        return peak(name, robot, len(_columns(robot, parameters, columns)))(count)
    (q, qd, *rest), single = check_robot_states(robot, peak=needed, **arrays)
    qd_ref, qdd = rest if len(rest) == 2 else (None, rest[0])
    W = _evaluate(robot, q, qd, qdd, qd_ref, parameters=parameters, columns=columns,
                 out=as_batch_out(out, single), shapes=shapes, workers=workers)
    return W[0] if single else W


def _pivots(model):
    """The standard columns a model's regressor holds: all (None), or a base model's pivots."""
    return model.base.pivots if isinstance(model, BaseModel) else None


def by_unit_rates(q, column, n=None):
    """An (n_samples, n, n) matrix built column by column from unit joint rates.

    ``column(unit)`` returns the matrix times ``unit`` (e.g. C e_i) for ``unit`` = e_i at every sample;
    ``n`` defaults to the width of ``q``.
    """
    S, n = q.shape[0], q.shape[1] if n is None else n
    check_allocation((S, n, n), "q")
    out = np.empty((S, n, n))
    for i in range(n):
        unit = np.zeros((S, n))
        unit[:, i] = 1.0
        out[:, :, i] = column(unit)
    return out


@takes_model("p", "q", "qd", "parameters")
def coriolis_matrix(model, q, qd):
    """Christoffel-consistent Coriolis matrix C(q, q̇) (C q̇ = centrifugal and Coriolis torques).

    ``model, q, qd`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, qd,
    parameters='pseudo'``). For a floating base C is n_v × n_v in its twist and the joints' rates,
    pinocchio's ``computeCoriolisMatrix`` with a free-flyer.

    Returns
    -------
    ndarray, shape (n_samples, n_v, n_v) (or (n_v, n_v)); n_v = n_dof for a fixed base
    """
    model = standard_model(model)
    robot, parameters = model.robot, model.parameters
    (q, qd), single = check_robot_states(robot, q=q, qd=qd, peak=peak("coriolis_matrix", robot))
    p = model.values()
    zero = np.zeros_like(qd)
    C = by_unit_rates(qd, lambda unit: _evaluate(robot, q, qd, zero, unit, parameters=parameters, gravity=False,
                                                friction=False, weights=p))      # C q̇_r with q̇_r = e_i
    return C[0] if single else C


@takes_model("p", "q", "parameters")
def mass_matrix(model, q):
    """Joint-space inertia matrix M(q), rotor inertias included.

    Compiled like the regressors: ``M_ij = Σ_k s_ikᵀ I_k s_jk (+ IA_i δ_ij)`` with the parameters
    as inputs, so one graph serves every parameter vector. For a floating base (whose twist leads
    q̇) M is n_v × n_v and is built by Newton–Euler, column by column (M e_i = τ(q, 0, e_i) without
    gravity).

    ``model, q`` as in :func:`~baseparam.inverse_dynamics` (deprecated: ``robot, p, q, parameters='pseudo'``).

    Returns
    -------
    ndarray, shape (n_samples, n_v, n_v) (or (n_v, n_v)); n_v = n_q = n_dof for a fixed base
    """
    model = standard_model(model)
    robot, parameters = model.robot, model.parameters
    (q,), single = check_robot_states(robot, q=q, peak=peak("mass_matrix", robot))
    if robot.is_floating:
        zero = np.zeros((q.shape[0], robot.n_v))
        M = by_unit_rates(q, lambda unit: newton_euler.blocked(model, q, zero, unit, gravity=False, friction=False),
                          robot.n_v)
        return M[0] if single else M
    p = model.values()
    block = regressor_function(robot, parameters, (), "mass")
    n = robot.n_dof
    check_allocation((q.shape[0], n, n), "q")
    M = np.zeros((q.shape[0], n, n))
    # the C loop (the numpy blocks' numbers to the bit) when wanted: a sample in µs, not a ms
    if block.native.library_for(q.shape[0]) is not None:
        rows = (np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(p, dtype=float))
        block.native.fill(rows, M, zeroed=True, threads=thread_count(None, q.shape[0]))
    else:
        in_blocks(block, (q.T.copy(),), p, out=M.transpose(1, 2, 0))
    return M[0] if single else M
