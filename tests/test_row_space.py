"""The engine at scale: Z's row space and Gram matrix from the recursion over spans.

Two kinds of check:

* against the whole Z (small robots, where it can be enumerated): every row the exact side keeps is
  the row of Z with its label, bit for bit; every row of Z lies in their span; the float side's
  rows have Z's Gram matrix; and rank, pivots and Y equal those the reduction of the whole Z gives;
* against independent oracles at sizes the whole Z cannot reach: pinocchio's joint-torque regressor
  (numeric rank at random states, and W = W_b·Y) for long generic chains, planar and spatial snakes,
  humanoid-like and legged trees.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.model.parameters import ColumnLayout
from baseparam.projection._coordinates import MagnitudeStats, z_blocks
from baseparam.projection._modular import ModularEchelon, rref_mod, to_modular
from baseparam.projection._reduction import ExactGram, StreamedR
from baseparam.projection._row_space import exactly_independent, row_basis
from baseparam.projection._working_units import Arithmetic
from conftest import ROBOT_FILES, ROOT
from random_bodies import robots as random_robots

EXACT_ROBOTS = ["puma560.yaml", "stanford_arm.yaml", "dual_arm_torso.yaml", "ur10e.yaml", "ppr.yaml", "scara.yaml"]


def units_of(robot, force_float=False):
    arithmetic = Arithmetic.decide(robot, force_float=force_float)
    return arithmetic.exact_units() if arithmetic.exact else next(iter(arithmetic.float_units()))


def whole_z(robot, units, layout):
    """The whole Z, its labels and (float runs) its images modulo the prime, as dense arrays."""
    blocks = list(z_blocks(units, layout, robot.n_dof, MagnitudeStats(), robot.parents))
    labels = np.vstack([b.labels for b in blocks])
    lagrangian = labels[:, 0] >= 0                   # friction rows are apart
    Z = np.vstack([b.matrix.dense_rows(0, b.matrix.shape[0]) for b in blocks])[lagrangian]
    images = None if units.exact else \
        np.vstack([b.modular.dense_rows(0, b.modular.shape[0]) for b in blocks])[lagrangian]
    return Z, labels[lagrangian], images


def reduce_whole_z(robot, parameters, force_float=False):
    """Rank, pivots and Y from the whole Z, streamed block by block (the engine before the spans)."""
    layout = ColumnLayout(robot, parameters)
    units = units_of(robot, force_float)
    transform = layout.pseudo_to_parameterization() if parameters != "pseudo" else None
    if units.exact:
        acc = ExactGram(layout.n_standard)
        for block in z_blocks(units, layout, robot.n_dof, MagnitudeStats(), robot.parents):
            acc.add(block.matrix)
        return acc.reduce(transform)
    acc, echelon = StreamedR(layout.n_standard), ModularEchelon(layout.n_standard, units.modulus)
    mod_t = None if transform is None else np.array([[to_modular(v, units.modulus) for v in row] for row in transform],
                                                    dtype=float)
    for block in z_blocks(units, layout, robot.n_dof, MagnitudeStats(), robot.parents):
        acc.add(block.matrix)
        Zm = block.modular if mod_t is None else block.modular.dot(mod_t)
        echelon.add(Zm.with_data(np.fmod(Zm.data, units.modulus)).eliminate_zeros())
    return acc.reduce_with_pivots(echelon, transform)


def integer_rank(M):
    import flint
    return flint.fmpz_mat(M.shape[0], M.shape[1], [int(v) for v in M.ravel()]).rank() if M.size else 0


def check_against_whole_z(robot, force_float=False):
    layout = ColumnLayout(robot)
    units = units_of(robot, force_float)
    basis = row_basis(units, layout, robot.parents, MagnitudeStats())
    Z, labels, images = whole_z(robot, units, layout)
    index = {tuple(label): r for r, label in enumerate(labels)}
    kept = basis.rows.dense_rows(0, basis.rows.shape[0])
    whole = Z if units.exact else images
    for label, row in zip(basis.labels, kept):       # each row kept is the row of Z with that label
        expected = whole[index[tuple(label)]] if tuple(label) in index else 0 * row     # rows not stored are zero
        np.testing.assert_array_equal(row, expected, err_msg=str(label))
    if units.exact:                                   # ... and they span Z's row space
        assert integer_rank(kept) == integer_rank(np.vstack([kept, Z]))
    else:
        p = units.modulus
        assert len(rref_mod(kept, p)[1]) == len(rref_mod(np.vstack([kept, whole]), p)[1])
        moments = basis.moments.dense_rows(0, basis.moments.shape[0])
        gram, expected = moments.T @ moments, Z.T @ Z       # float side: Z's Gram matrix
        np.testing.assert_allclose(gram, expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    return basis


@pytest.mark.parametrize("name", EXACT_ROBOTS + ["skew7.yaml", "kuka_lwr4.yaml"])
def test_rows_kept_are_rows_of_z_and_span_it(name):
    robot = bp.load_robot(ROOT / "robots" / name)
    basis = check_against_whole_z(robot)
    assert basis.rows.shape[0] <= (5 * 16 + 4 * 16 + 5 + 2 * 4 + 1) * robot.n_dof    # candidates of 16-bases


@pytest.mark.parametrize("name", ["puma560.yaml", "dual_arm_torso.yaml", "ur10e.yaml"])
def test_float_side_has_the_gram_matrix_of_z(name):
    check_against_whole_z(bp.load_robot(ROOT / "robots" / name), force_float=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(robot=random_robots(max_dof=5), parameters=st.sampled_from(["pseudo", "khalil"]))
def test_random_robots_as_the_whole_z_gives(robot, parameters):
    """Chains and trees, both conventions, prismatic joints, offsets, odd twists, tilted gravity, rotor
    inertia, friction: the same rank and pivots as the whole Z; Y identical when exact."""
    check_against_whole_z(robot)
    base = bp.find_base_parameters(robot, parameters)
    whole = reduce_whole_z(robot, parameters)
    assert base.rank == whole.rank
    np.testing.assert_array_equal(base.pivots, whole.pivots)
    if whole.exact:
        assert base.exact
        np.testing.assert_array_equal(base.Y, bp.find_base_parameters(robot, parameters).Y)
        layout = ColumnLayout(robot, parameters)
        from baseparam.projection.base_set import assemble
        np.testing.assert_array_equal(base.Y, assemble(robot, layout, units_of(robot), whole).Y)


def _leftmost_by_fractions(rows):
    """The leftmost independent rows by exact prefix ranks over the rationals (sympy), one row at a time."""
    import sympy
    picked = []
    for r in range(len(rows)):
        if sympy.Matrix([[int(v) for v in rows[k]] for k in picked + [r]]).rank() > len(picked):
            picked.append(r)
    return picked


def test_exact_independence_survives_an_unlucky_prime():
    """Rows independent over the rationals but not modulo the prime the engine tries first (their minor is
    that prime): the leftmost over the rationals all the same."""
    from baseparam.projection._modular import PRIMES
    rows = np.array([[1.0, 2.0], [2.0, 4.0 + PRIMES[0]], [3.0, 6.0]])
    assert len(rref_mod(np.mod(rows, PRIMES[0]), PRIMES[0])[1]) == 1        # dependent modulo the first prime
    assert exactly_independent(rows).tolist() == [0, 1]
    assert exactly_independent(rows[[0, 2]]).tolist() == [0]


def test_exact_independence_is_the_leftmost_when_the_prime_divides_a_leading_row():
    """p·e₀, e₁ … e₁₅, e₀: modulo p the first row vanishes and rows 1 … 16 are a maximal independent set, but the
    leftmost over the rationals is rows 0 … 15; and random sparse integer rows, some multiples of p, against
    sympy's prefix ranks."""
    from baseparam.projection._modular import PRIMES
    rows = np.vstack([PRIMES[0] * np.eye(16)[:1], np.eye(16)[1:], np.eye(16)[:1]])
    assert exactly_independent(rows).tolist() == list(range(16))
    rng = np.random.default_rng(7)
    for _ in range(20):
        n, d = rng.integers(2, 24), rng.integers(2, 17)
        values = rng.integers(-3, 4, (n, d)) * (rng.random((n, d)) < 0.3)
        values[rng.random(n) < 0.3] *= PRIMES[0]
        values[rng.random(n) < 0.2] = values[rng.integers(0, n)] * 2           # dependent rows
        assert exactly_independent(values.astype(float)).tolist() == _leftmost_by_fractions(values)


# -- at scale, against pinocchio --------------------------------------------------------------------------
pin = pytest.importorskip("pinocchio")
from test_pinocchio import check_against_pinocchio  # noqa: E402


def chain(n, twists, a, d, name, prismatic=(), convention="standard"):
    joints = []
    for k in range(n):
        kind = "prismatic" if k in prismatic else "revolute"
        extra = {"theta": 0.3 * k} if kind == "prismatic" else {"d": d[k % len(d)]}
        joints.append(bp.Joint(type=kind, alpha=twists[k % len(twists)], a=a[k % len(a)], parent=k, **extra))
    return bp.Robot(tuple(joints), name=name, convention=convention, angle_unit="rad", gravity=(0.3, -0.4, -9.81))


def tree(branches, name):
    """Branches as (parent joint, twists): a torso, arms, legs, a head on any earlier joint."""
    joints = []
    for parent, twists in branches:
        for k, alpha in enumerate(twists):
            n = len(joints)
            joints.append(bp.Joint(type="revolute", alpha=alpha, a=0.05 + 0.01 * n, d=0.1 - 0.003 * n,
                                   parent=parent if k == 0 else n))
    return bp.Robot(tuple(joints), name=name, angle_unit="rad")


HALF = math.pi / 2
GENERIC = [0.52, -1.05, 0.79, 1.31, -0.35, 0.87, 1.92, -0.61]
LONG = {
    "generic 12R": chain(12, GENERIC, [0.1, 0.4, 0.05, 0.3], [0.3, 0.1, 0.07, 0.25], "generic 12R"),
    "planar snake 20": chain(20, [0.0], [0.1, 0.12], [0.0], "planar snake"),
    "spatial snake 15": chain(15, [HALF, -HALF], [0.1], [0.0], "spatial snake"),
    "generic 10, modified, prismatic": chain(10, GENERIC, [0.2, 0.05], [0.1, 0.3], "mixed", prismatic=(3, 7),
                                              convention="modified"),
    # torso (2), two 7-DOF arms, head (2): 18 joints, longest path 9
    "humanoid upper body": tree([(0, [HALF, -HALF])] + [(2, [HALF, -HALF, HALF, -HALF, HALF, -HALF, 0.0])] * 2
                                + [(2, [HALF, 0.0])], "upper body"),
    # four 3-DOF legs on a fixed base
    "quadruped": tree([(0, [HALF, 0.0, 0.0])] * 4, "quadruped"),
}


@pytest.mark.parametrize("name", sorted(LONG))
def test_long_chains_and_trees_against_pinocchio(name):
    robot = LONG[name]
    base = check_against_pinocchio(robot, "khalil")
    if name == "planar snake 20":      # parallel axes, gravity not along them: ZZ, MX, MY regrouped per link
        assert base.rank == 3 * robot.n_dof


@st.composite
def generic_chains(draw):
    """8–16 joints, odd twists, non-zero a and d everywhere, some prismatic, either convention."""
    n = draw(st.integers(8, 16))
    odd = st.sampled_from([0.3, -0.7, 1.1, 2.5, -2.2, math.radians(30), math.radians(-135), HALF, 0.0])
    length = st.integers(20, 500).map(lambda i: i / 1000)
    twists, a, d = (draw(st.lists(s, min_size=n, max_size=n)) for s in (odd, length, length))
    prismatic = draw(st.sets(st.integers(0, n - 1), max_size=2))
    return chain(n, twists, a, d, f"generic {n}", prismatic=prismatic,
                 convention=draw(st.sampled_from(["standard", "modified"])))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(robot=generic_chains(), parameters=st.sampled_from(["khalil", "pseudo"]))
def test_random_long_chains_against_pinocchio(robot, parameters):
    check_against_pinocchio(robot, parameters)


def test_memory_estimate_bounds_what_the_run_allocates():
    """The figure a refusal names is an upper bound: the engine's peak allocation (tracemalloc) stays
    below it, exact and float runs, chains and trees."""
    import tracemalloc

    from baseparam.projection._budget import row_space_bytes
    for robot in (bp.load_robot(ROOT / "robots" / "ur10e.yaml"), LONG["generic 12R"], LONG["humanoid upper body"],
                  LONG["spatial snake 15"]):
        for parameters in ("pseudo", "khalil"):
            bound = row_space_bytes(ColumnLayout(robot, parameters), robot.parents, [j.type for j in robot.joints])
            tracemalloc.start()
            try:
                bp.find_base_parameters(robot, parameters)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < bound, (robot.name, parameters, peak, bound)


def test_the_engine_runs_blas_on_one_thread_and_restores_it(monkeypatch):
    """OpenBLAS threads spin on busy cores (an SVD of 300 × 200: 7 ms alone, 1.8 s measured beside other
    jobs): the engine's reductions run on one thread, and the counts are restored after."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from baseparam.projection import _reduction

    def threads():
        return sorted((info["filepath"], info["num_threads"]) for info in threadpool_info()
                      if info["user_api"] == "blas")
    if not threads():
        pytest.skip("no BLAS that threadpoolctl knows is loaded")
    seen = []
    original = _reduction.StreamedR.reduce_with_pivots

    def spy(self, *args, **kwargs):
        seen.append({n for _, n in threads()})
        return original(self, *args, **kwargs)
    monkeypatch.setattr(_reduction.StreamedR, "reduce_with_pivots", spy)
    # two threads to start from, whatever the environment (the suite under xdist runs on one: conftest); a
    # BLAS that another test loaded while OPENBLAS_NUM_THREADS=1 may stay on one, numpy's rises to two
    with threadpool_limits(2, user_api="blas"):
        before = threads()
        bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "skew7.yaml"))
        after = threads()
    assert max(n for _, n in before) == 2 and seen == [{1}] and after == before


@pytest.mark.parametrize("name", ["puma560.yaml", "dual_arm_torso.yaml", "ur10e.yaml", "skew7.yaml"])
def test_the_whole_z_in_small_pieces_is_the_same(name, monkeypatch):
    """--h5 writes Z depth first, a bounded piece of terms at a time, in blocks of bounded size: with
    pieces of 7 terms and blocks of 20 entries the rows and their labels are those of one piece (the
    values bit for bit when exact; float sums may group differently)."""
    from baseparam.projection import _coordinates
    robot = bp.load_robot(ROOT / "robots" / name)
    layout, units = ColumnLayout(robot), units_of(robot)

    def whole(piece):
        blocks = list(z_blocks(units, layout, robot.n_dof, MagnitudeStats(), robot.parents, piece=piece))
        labels = np.vstack([b.labels for b in blocks])
        Z = np.vstack([b.matrix.dense_rows(0, b.matrix.shape[0]) for b in blocks])
        order = np.lexsort(labels.T[::-1])
        assert len(np.unique(labels, axis=0)) == len(labels)          # no row twice
        return len(blocks), labels[order], Z[order]

    n_one, labels, Z = whole(10 ** 9)
    monkeypatch.setattr(_coordinates, "BLOCK_ENTRIES", 20)
    n_small, small_labels, small_Z = whole(7)
    assert n_small > n_one
    np.testing.assert_array_equal(small_labels, labels)
    if units.exact:
        np.testing.assert_array_equal(small_Z, Z)
    else:
        np.testing.assert_allclose(small_Z, Z, rtol=1e-13, atol=1e-15)


def test_the_whole_z_beyond_64_bit_labels_is_refused(tmp_path):
    robot = chain(28, [HALF, -HALF], [0.1], [0.0], "long snake")
    with pytest.raises(bp.ResourceLimitError, match="long snake: 28 joints: .* up to 27 joints"):
        bp.find_and_store(robot, tmp_path / "z.h5")
    assert not (tmp_path / "z.h5").exists()
    assert bp.find_base_parameters(robot).rank > 0      # the base set has no such limit


def test_a_direction_the_prime_loses_is_caught_by_the_float_side(monkeypatch):
    """If the prime misjudged the spans (directions independent over the reals but not modulo p), the
    float side — Z's whole Gram matrix, which no prime decides — disagrees in the reduction's residual
    check, and the next prime is taken: the rank is not lowered silently. (The rows from the spans
    overlap a lot — skew7 keeps its rank 43 with 3 directions of each span — so the loss here is
    drastic: one direction each, rank 35 with that prime.)"""
    from baseparam.projection import _row_space
    robot = bp.load_robot(ROOT / "robots" / "skew7.yaml")
    first = units_of(robot).modulus
    original = _row_space._SideNumbers.independent
    lost = []

    def unlucky(self, values):
        picked = original(self, values)
        if self.modulus == first and picked.size > 1:
            lost.append(picked[1:])          # as if p divided the minors of every span
            return picked[:1]
        return picked
    monkeypatch.setattr(_row_space._SideNumbers, "independent", unlucky)
    base = bp.find_base_parameters(robot)
    assert lost and base.rank == 43 and str(first) not in base.note


@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_every_robot_as_the_whole_z_gives(path, parameters):
    """The robots of robots/: rank, pivots and unidentifiable columns as the reduction of the whole Z
    (the engine before the spans) gives them; Y bit for bit when exact, to round-off in float."""
    from baseparam.projection.base_set import assemble
    robot = bp.load_robot(path)
    base = bp.find_base_parameters(robot, parameters)
    whole = assemble(robot, ColumnLayout(robot, parameters), units_of(robot), reduce_whole_z(robot, parameters))
    assert (base.rank, base.exact, base.unidentifiable) == (whole.rank, whole.exact, whole.unidentifiable)
    np.testing.assert_array_equal(base.pivots, whole.pivots)
    if base.exact:
        np.testing.assert_array_equal(base.Y, whole.Y)
        assert base.Y_display == whole.Y_display
    else:
        np.testing.assert_allclose(base.Y, whole.Y, rtol=1e-12, atol=1e-12 * np.abs(whole.Y).max())


@pytest.mark.parametrize("name", ["ur10e.yaml", "space_robot.yaml", "dual_arm_torso.yaml"])
def test_the_khalil_blocks_are_the_fraction_map(name):
    """The block form of C (fixed and floating bases, rotor and friction columns between the blocks) is
    pseudo_to_parameterization entry for entry: in floats, modulo a prime, and times its denominator."""
    from baseparam.projection._reduction import BlockTransform
    layout = ColumnLayout(bp.load_robot(ROOT / "robots" / name), "khalil")
    C = layout.pseudo_to_parameterization()
    blocks = BlockTransform.of(layout)
    np.testing.assert_array_equal(blocks.floats(), [[float(v) for v in row] for row in C])
    p = 8388593
    np.testing.assert_array_equal(blocks.modular(p), [[to_modular(v, p) for v in row] for row in C])
    d, integers = blocks.integers()
    assert d == 2 and integers.tolist() == [[int(v * d) for v in row] for row in C]


def test_rref_mod_is_flints_reduced_echelon_form():
    """rref_mod (which skips the columns left of each pivot and the rows with a zero there) against
    FLINT's nmod_mat.rref: sparse, dense and low-rank matrices; the unreduced form's pivots too."""
    import flint
    rng, p = np.random.default_rng(1), 8388593
    for _ in range(150):
        k, n = (int(v) for v in rng.integers(1, 30, 2))
        X = rng.integers(0, p, (k, n)) * (rng.random((k, n)) < rng.random())
        if rng.random() < 0.3:
            X = (rng.integers(0, 5, (k, 3)) @ rng.integers(0, 5, (3, n))) % p
        F, rank = flint.nmod_mat(k, n, X.ravel().tolist(), p).rref()
        expected = np.array([int(v) for v in F.entries()]).reshape(k, n)[:rank]
        R, pivots = rref_mod(X, p)
        np.testing.assert_array_equal(R, expected)
        assert rref_mod(X.astype(float), p, reduced=False)[1] == pivots == \
            [int(np.flatnonzero(row)[0]) for row in expected]


@pytest.mark.parametrize("joint_type", ["revolute", "prismatic"])
def test_modular_sandwiches_in_int64_are_the_python_integer_ones(joint_type):
    """Sandwich.build's modular map from small integers in int64 equals the one from Python integers
    (object arrays, exact at any size), and large integers keep the Python-integer path."""
    from baseparam.projection import _projections
    rng, p = np.random.default_rng(3), 8388593
    m = 3 if joint_type == "revolute" else 2
    for bound in (p, 2 ** 27, 2 ** 40):
        left = np.array([[int(v) for v in row] for row in rng.integers(-bound, bound, (m * 4, 4))],
                        dtype=object).reshape(m, 4, 4)
        right = np.array([[int(v) for v in row] for row in rng.integers(-bound, bound, (m * 4, 4))],
                         dtype=object).reshape(m, 4, 4)
        expected = _projections._sandwiches_blocks(left[None], right[None], joint_type)[0] % p
        assert expected.dtype == object
        fl = left.astype(float)
        built = _projections.Sandwich.build(fl, fl, joint_type, left, right, p)
        keep = np.flatnonzero(expected.reshape(expected.shape[0], -1).max(axis=1) > 0)
        np.testing.assert_array_equal(built.targets, keep)
        np.testing.assert_array_equal(built.modular, _projections._flat(expected[keep].astype(float)))


def test_modular_echelon_stays_exact_with_hundreds_of_pivots():
    """A block added after hundreds of pivots are known, whose rows are non-zero at all of them (sums of
    ~600 products below p² exceed 2**53): the echelon form is still FLINT's of all the rows."""
    import flint
    from baseparam.projection._sparse import CSR
    rng, p = np.random.default_rng(4), 8388593

    def csr(X):
        r, c = np.nonzero(X)
        return CSR.from_coo(X[r, c].astype(float), r, c, X.shape)
    first, second = rng.integers(p - 2 ** 12, p, (600, 700)), rng.integers(p - 2 ** 12, p, (3, 700))
    echelon = ModularEchelon(700, p)
    echelon.add(csr(first))
    echelon.add(csr(second))
    both = np.vstack([first, second])
    F, rank = flint.nmod_mat(603, 700, both.ravel().tolist(), p).rref()
    expected = np.array([int(v) for v in F.entries()]).reshape(603, 700)[:rank]
    assert len(echelon.pivots) == rank == 603
    np.testing.assert_array_equal(echelon.B, expected)


def test_integer_echelon_is_flints_rational_echelon_form():
    """The fraction-free echelon form of G without its zero rows and columns (_integer_echelon), B/d put back in
    place, against FLINT's reduced form over Q of G whole: Gram matrices of sparse integer rows (most columns
    zero, as a few-joint robot's), big entries, rank 0 and the empty matrix; Python integers in the Fractions."""
    from fractions import Fraction

    import flint
    from baseparam.projection._reduction import _integer_echelon
    rng = np.random.default_rng(0)
    for _ in range(200):
        n, k = int(rng.integers(0, 30)), int(rng.integers(0, 8))
        scale = int(rng.choice([1, 3, 10 ** 12]))
        A = (rng.integers(-5, 6, (k, n)) * (rng.random((k, n)) < 0.4)).astype(object) * scale
        G = np.array([[int(v) for v in row] for row in A.T @ A], dtype=object).reshape(n, n)
        reduction = _integer_echelon(G)
        R, rank = flint.fmpq_mat(n, n, [int(v) for v in G.ravel()]).rref()
        Y = [[Fraction(int(R[i, j].p), int(R[i, j].q)) for j in range(n)] for i in range(rank)]
        assert reduction.Y == Y and reduction.exact
        assert reduction.pivots.tolist() == [next(j for j in range(n) if row[j]) for row in Y]
        assert all(type(v.numerator) is int and type(v.denominator) is int for row in reduction.Y for v in row if v)
        assert reduction.zero_columns.tolist() == [c for c in range(n) if G[c, c] == 0]


def test_sandwiched_gram_is_flints_product():
    """Cᵀ G C by column and row operations (_sandwiched) equals FLINT's product, for big integers and a
    C with several non-zeros per column."""
    import flint
    from baseparam.projection._reduction import _sandwiched
    rng, n = np.random.default_rng(0), 40
    G = np.array([[int(v) << 40 for v in row] for row in rng.integers(-2 ** 20, 2 ** 20, (n, n))], dtype=object)
    C = 2 * np.eye(n, dtype=np.int64)
    C[:3, :3] = rng.integers(-1, 2, (3, 3))
    C[5, 9] = -2
    Cf, Gf = flint.fmpz_mat(n, n, C.ravel().tolist()), flint.fmpz_mat(n, n, [int(v) for v in G.ravel()])
    product = Cf.transpose() * Gf * Cf
    assert _sandwiched(G, C).tolist() == [[int(product[i, j]) for j in range(n)] for i in range(n)]


@pytest.mark.parametrize("flint_loaded", [True, False])
def test_leftmost_independent_rows_are_flints_pivots_of_the_transpose(flint_loaded, monkeypatch):
    """leftmost_independent against the pivot columns of FLINT's reduced echelon form of the transpose built whole,
    and of rref_mod's elimination in numpy: 16 columns as the recursion gives, dense, sparse and low-rank, float and
    int; by FLINT's nmod_mat set at the non-zeros once FLINT is loaded, by rref_mod before."""
    import sys

    import flint
    from baseparam.projection._modular import rref_mod
    from baseparam.projection._row_space import leftmost_independent
    if not flint_loaded:
        monkeypatch.delitem(sys.modules, "flint")
    rng, p = np.random.default_rng(5), 8388593
    for _ in range(150):
        n = int(rng.integers(1, 90))
        X = rng.integers(0, p, (n, 16)) * (rng.random((n, 16)) < rng.random())
        if rng.random() < 0.4:
            X = (rng.integers(0, p, (n, 5)) @ rng.integers(0, 3, (5, 16))) % p
        F, rank = flint.nmod_mat(16, n, X.T.ravel().tolist(), p).rref()
        expected = [next(c for c in range(n) if int(F[r, c])) for r in range(rank)]
        got = leftmost_independent(X.astype(float) if rng.random() < 0.5 else X, p)
        assert got.tolist() == expected == rref_mod(X.T, p, reduced=False)[1] and got.dtype == np.int64


@pytest.mark.parametrize("batch_rows", [3, 128])
def test_modular_echelon_in_batches_is_flints_echelon_form(batch_rows):
    """Blocks of low rank, sparse and dense, merged a few rows at a time: pivots and RREF rows as FLINT's."""
    import flint
    from baseparam.projection._sparse import CSR
    rng, p = np.random.default_rng(6), 8388593
    echelon, blocks = ModularEchelon(50, p, chunk_rows=11, batch_rows=batch_rows), []
    for _ in range(4):
        X = (rng.integers(0, p, (30, 6)) @ rng.integers(0, 4, (6, 50))) % p
        X = X * (rng.random(X.shape) < 0.7)
        r, c = np.nonzero(X)
        echelon.add(CSR.from_coo(X[r, c].astype(float), r, c, X.shape))
        blocks.append(X)
    both = np.vstack(blocks)
    F, rank = flint.nmod_mat(both.shape[0], 50, both.ravel().tolist(), p).rref()
    expected = np.array([int(v) for v in F.entries()]).reshape(both.shape[0], 50)[:rank]
    np.testing.assert_array_equal(echelon.B, expected)
    assert echelon.pivots == [int(np.flatnonzero(row)[0]) for row in expected]
