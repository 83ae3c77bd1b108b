"""The memory each public state function needs at its peak, per sample: what its size check compares with the
budget (:func:`baseparam._validation.check_state_sizes`), so that a call that passes the check cannot exhaust
memory while it runs.

Each figure counts float64 values per sample that are alive together at the function's peak, from its code:

- the checked float copies of the state arrays (n_q + n_v each for q and the rates:
  :func:`~baseparam._validation.check_robot_states` converts, and for a floating base normalizes q's quaternions
  into a copy);
- the Newton–Euler kernel's per-sample inputs (:func:`baseparam.dynamics.newton_euler.blocked`: zero rates
  for those left out, the transposed or contiguous row copies, the friction shapes c(q̇), s(q̇)) and its output;
- the result, and numpy temporaries of the result's size (a transpose copy, a reshape, an ``np.stack`` of
  blocks);
- for matrices built column by column (M(q), C(q, q̇)), the unit rates and one column of τ per joint besides the
  matrix itself.

Besides, the numpy kernels (used below the sample counts where the compiled C loops take over, or without a C
compiler) work in blocks of :data:`~baseparam.dynamics.samples.CHUNK` samples, and their temporaries (one array
of the block's size per live node of the generated code, the kinematic tree's 6 × 6 transforms per body) are
counted per sample of one block: ``min(n_samples, CHUNK)`` times a second figure (unless the C loop serves
the call: from :data:`~baseparam.dynamics._native_rule.NATIVE_SAMPLES` samples on, with a C compiler). These
block figures were measured with tracemalloc (the generated code's live nodes are not known before it is built)
on a 7-joint fixed arm and a 6-joint floating robot and rounded up per joint.

The test ``tests/test_memory_peaks.py`` checks each function's total against tracemalloc's peak at two sizes: at
least the peak, at most four times it.
"""
from __future__ import annotations

from . import _native, _native_rule
from .samples import CHUNK

# function name → floats per sample, as a function of (n_q, n_v, n_dof, n_columns)
_FLOATS = {
    # q and up to two rates copied; zero rates; kernel rows, friction shapes and τ
    "inverse_dynamics": lambda nq, nv, n, c: 2 * nq + 6 * nv,
    # the same with one rate fewer: Newton–Euler's rows (g(q), C(q, q̇) q̇, p = M(q) q̇ and its kinetic energy), the
    # kinematic tree's ṗ, and q̇ = M(q)⁻¹ p with the check of the result (a mask) and of M(q) at every sample
    **dict.fromkeys(("gravity_torque", "coriolis_torque", "generalized_momenta", "kinetic_energy", "momenta_rate",
                     "velocities_from_momenta"), lambda nq, nv, n, c: 2 * nq + 4 * nv),
    # q̇ copied, its joints' columns transposed, the friction model's two shapes, τ and its transpose
    "friction_torque": lambda nq, nv, n, c: 6 * nv,
    # the kernel's rows as inverse dynamics, and the wrenches (6 per joint) with their reshaped copy
    "reaction_wrenches": lambda nq, nv, n, c: 2 * nq + 4 * nv + 12 * n,
    # q, q̇, τ copies and q̈ (the C loop writes in place)
    "forward_dynamics": lambda nq, nv, n, c: nq + 2 * nv,
    # over the kinematic tree, block by block (its memory is per block, below): the state copies (q's and its
    # normalized copy for a floating base), the blocks' results and their stack
    "potential_energy": lambda nq, nv, n, c: 2 * nq + 2,
    "momentum": lambda nq, nv, n, c: 2 * nq + nv + 12,
    # the matrix and its copy (transposed columns stacked), the unit rates and states
    "mass_matrix": lambda nq, nv, n, c: 2 * nv * nv + 2 * nq + 2 * nv,
    "coriolis_matrix": lambda nq, nv, n, c: 4 * nv * nv + 2 * nq + 2 * nv,
    # W (n_v × n_columns) and its block copy, the states and their rows
    "regressor": lambda nq, nv, n, c: nv * c + 2 * nq + 6 * nv,
    "slotine_li_regressor": lambda nq, nv, n, c: nv * c + 2 * nq + 8 * nv,
}


# function name → floats per sample of one numpy block, as a function of (n_q, n_v, n_dof, n_columns)
_BLOCK = {
    # the generated Newton–Euler code's live temporaries (measured: 57-59 per sample, 7 joints; 72-79, 6 + 6)
    **dict.fromkeys(("inverse_dynamics", "gravity_torque", "coriolis_torque", "reaction_wrenches",
                     "generalized_momenta", "kinetic_energy"), lambda nq, nv, n, c: 10 * nv),
    "friction_torque": lambda nq, nv, n, c: nv,
    # the articulated-body code's temporaries (measured: 237 per sample for both robots)
    "forward_dynamics": lambda nq, nv, n, c: 40 * nv,
    # the kinematic tree of a block: transforms, velocities, momenta per body (measured: 48-65 per body; the
    # solve's factors, 101-109); the potential energy's world frames alone, R and P per body and a joint's 4×4
    # transform (measured: 14-15 per body)
    **dict.fromkeys(("momentum", "momenta_rate"), lambda nq, nv, n, c: 70 * (n + 1)),
    "potential_energy": lambda nq, nv, n, c: 20 * (n + 1),
    "velocities_from_momenta": lambda nq, nv, n, c: 120 * (n + 1),
    # one Newton–Euler block per unit rate (n_v of them, measured: 89 per sample, 7 joints; 800 for C, 1056)
    "mass_matrix": lambda nq, nv, n, c: 13 * nv,
    "coriolis_matrix": lambda nq, nv, n, c: 16 * nv * nv,
    # the regressor code's temporaries (measured: 279 per sample, 7 joints; 375, 6 + 6)
    **dict.fromkeys(("regressor", "slotine_li_regressor"), lambda nq, nv, n, c: 40 * nv),
}


# functions over the kinematic tree in numpy whatever the sample count (no C loop)
_TREE = ("potential_energy", "momentum", "momenta_rate", "velocities_from_momenta", "generalized_momenta",
         "kinetic_energy", "mass_matrix", "coriolis_matrix")


def peak(name, robot, n_columns=0):
    """The bytes the state function ``name`` needs at its peak for ``robot``, as a function of the number of
    samples (``n_columns``: the regressor's columns). Nothing is computed until it is called: the state functions
    are called in loops, one sample at a time, and their check looks at it only for many samples."""
    return lambda count: needed(name, robot, n_columns, count)


def needed(name, robot, n_columns, count):
    """:func:`peak` for ``count`` samples."""
    sizes = robot.n_q, robot.n_v, robot.n_dof, n_columns
    per_sample, per_block = 8 * _FLOATS[name](*sizes), 8 * _BLOCK[name](*sizes)
    if name not in _TREE and count >= _native_rule.NATIVE_SAMPLES and _native.compiler() is not None:
        return count * per_sample           # the C loop serves the call: no numpy blocks
    return count * per_sample + min(count, CHUNK) * per_block
