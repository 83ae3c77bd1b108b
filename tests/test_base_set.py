"""Base parameters against the paper's table, published counts and an independent numerical
computation of the Lagrangian's influence coefficients."""
from fractions import Fraction

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import baseparam as bp
from baseparam.model.parameters import ColumnLayout
from conftest import ROBOT_FILES, ROOT
from independent import influence, numeric_rank, random_states

F = Fraction
# Krutikov (2011), end of the paper: the 36 base parameters of the PUMA 560 (mm), with the two
# coefficients the paper rounds (431.8² = 186451.24, 433.1² = 187575.61) at full precision.
M26, M36, M46 = ["M2", "M3", "M4", "M5", "M6"], ["M3", "M4", "M5", "M6"], ["M4", "M5", "M6"]
PUMA_REGROUPED = {
    "XX1": {"XX1": 1, "ZZ1": 1, "ZZ2": 1, "YY3": 1, "SZ2": 300, "SY3": 300, **{m: 22500 for m in M26}},
    "ZZ3": {"ZZ3": 1, "YY4": 1, "SY4": F("-866.2"), **{m: F("187575.61") for m in M46}},
    "XX2": {"XX2": 1, **{m: F("-186451.24") for m in M26}},
    "SX2": {"SX2": 1, **{m: F("431.8") for m in M26}},
    "XX3": {"XX3": 1, **{m: F("-412.09") for m in M36}},
    "SZ3": {"SZ3": 1, "SY4": -1, **{m: F("433.1") for m in M46}},
    "SX3": {"SX3": 1, **{m: F("-20.3") for m in M36}},
    "ZZ5": {"ZZ5": 1, "ZZ6": 1, "SZ6": 140, "M6": 4900},
    "XZ2": {"XZ2": 1, "SZ2": F("431.8"), "SY3": F("431.8")},
    "SZ5": {"SZ5": 1, "SZ6": 1, "M6": 70},
    "XY3": {"XY3": 1, "SY3": F("-20.3")},
    "ZZ4": {"ZZ4": 1, "YY5": 1},
    "SZ4": {"SZ4": 1, "SY5": 1},
}
PUMA_SINGLE = ("YY2 XY2 YZ2 SY2 XZ3 YZ3 XX4 XY4 XZ4 YZ4 SX4 XX5 XY5 XZ5 YZ5 SX5 "
               "XX6 YY6 XY6 XZ6 YZ6 SX6 SY6").split()


def load(name):
    return bp.load_robot(ROOT / "robots" / name)


@pytest.fixture(scope="module")
def puma():
    return bp.find_base_parameters(load("puma560.yaml"))


def test_puma560_matches_paper_exactly(puma):
    assert puma.exact and puma.rank == 36
    expected = {**{k: {kk: F(v) for kk, v in d.items()} for k, d in PUMA_REGROUPED.items()},
                **{n: {n: F(1)} for n in PUMA_SINGLE}}
    assert sorted(puma.names) == sorted(expected)
    for r, name in enumerate(puma.names):
        assert puma.terms(r) == expected[name], name


def test_puma560_si_regroupings(puma):
    r = puma.names.index("XX2")
    col = puma.standard_names.index("M4")
    assert puma.Y[r, col] == pytest.approx(-0.4318 ** 2, rel=1e-15)
    assert puma.unidentifiable == ["YY1", "XY1", "XZ1", "YZ1", "SX1", "SY1", "SZ1", "M1"]


def test_panda_has_43_base_parameters():
    # Gaz, Cognetti, Oliva, Robuffo Giordano, De Luca, RA-L 2019: 43 base parameters.
    assert bp.find_base_parameters(load("panda.yaml")).rank == 43


@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_every_robot_against_numeric_lagrangian(path, parameters):
    check_against_numeric(bp.load_robot(path), parameters, seed=hash(path.stem) % 2**32)


def check_against_numeric(robot, parameters="pseudo", seed=0, force_float=False):
    """Rank and regroupings against influence coefficients evaluated at random states.

    L(x; p) − L̃(x; Y p) must be constant: differences between states remove the constant.
    """
    base = bp.find_base_parameters(robot, parameters, force_float=force_float)
    layout = ColumnLayout(robot, "pseudo")
    rng = np.random.default_rng(seed)
    q, qd = random_states(robot, 2 * layout.n_standard + 10, rng)
    W = influence(robot, layout, q, qd)
    if parameters == "khalil":   # columns in Khalil coordinates: Z_k = Z_pseudo C
        W = W @ np.array([[float(v) for v in row]
                          for row in ColumnLayout(robot, "khalil").pseudo_to_parameterization()])
    D = W[1:] - W[0]
    friction = [c for c in ColumnLayout(robot, parameters).friction_columns.values()]
    assert numeric_rank(D) == base.rank - len(friction)
    P = rng.normal(size=(layout.n_standard, 4))
    lhs, rhs = D @ P, D[:, base.pivots] @ base.from_standard(P)
    assert np.abs(lhs - rhs).max() <= 1e-9 * np.abs(lhs).max()
    np.testing.assert_array_equal(base.Y[:, base.pivots], np.eye(base.rank))
    zero = np.flatnonzero(np.abs(D).max(axis=0) <= 1e-10 * np.abs(D).max())
    assert set(base.unidentifiable) == {base.standard_names[c] for c in zero} - set(
        base.standard_names[c] for c in friction)
    return base


ANGLES_DEG = [0, 90, -90, 180, 30, -45, 60, 17.5]


@st.composite
def dh_tables(draw):
    n = draw(st.integers(2, 5))
    tree = draw(st.booleans())
    convention = draw(st.sampled_from(["standard", "modified"]))
    dec = st.integers(-1000, 1000).map(lambda v: v / 1000)
    joints = []
    for k in range(n):
        kind = draw(st.sampled_from(["revolute", "revolute", "prismatic"]))
        extra = {"d": draw(dec)} if kind == "revolute" else {"theta": draw(st.sampled_from([0, 90, -90, 30]))}
        parent = draw(st.integers(0, k)) if tree else k
        joints.append(bp.Joint(type=kind, alpha=draw(st.sampled_from(ANGLES_DEG)), a=draw(dec), parent=parent,
                               rotor_inertia=draw(st.booleans()), **extra))
    gravity = draw(st.sampled_from([(0, 0, -9.81), (0, 0, 0), (0, -4.905, -8.496), (1.2, 0.3, -9.7)]))
    return bp.Robot(tuple(joints), name="random", convention=convention, length_unit="m", angle_unit="deg",
                    gravity=gravity)


@settings(max_examples=40, deadline=None)
@given(dh_tables(), st.sampled_from(["pseudo", "khalil"]))
def test_random_dh_tables_against_numeric_lagrangian(robot, parameters):
    check_against_numeric(robot, parameters)


@settings(max_examples=15, deadline=None)
@given(dh_tables())
def test_exact_and_float_paths_agree(robot):
    exact = bp.find_base_parameters(robot)
    approx = bp.find_base_parameters(robot, force_float=True)
    assert not approx.exact
    assert list(approx.pivots) == list(exact.pivots)
    np.testing.assert_allclose(approx.Y, exact.Y, rtol=1e-9, atol=1e-9 * np.abs(exact.Y).max())


@pytest.mark.parametrize("name", ["puma560.yaml", "staubli_rx90.yaml", "skew7.yaml"])
def test_millimetres_and_metres_give_the_same_base_set(name):
    robot = load(name)
    factor, unit = (Fraction(1, 1000), "m") if robot.length_unit == "mm" else (1000, "mm")
    # convert the written decimals exactly (0.4318 m, not the binary float times 1000)
    other = bp.Robot(tuple(bp.Joint(type=j.type, alpha=j.alpha, a=float(robot.exact_value(j.a) * factor),
                                    d=float(robot.exact_value(j.d) * factor), theta=j.theta, parent=j.parent)
                           for j in robot.joints),
                     name=robot.name, convention=robot.convention, length_unit=unit, angle_unit=robot.angle_unit,
                     gravity=robot.gravity)
    a, b = bp.find_base_parameters(robot), bp.find_base_parameters(other)
    assert a.names == b.names and a.rank == b.rank
    np.testing.assert_allclose(a.Y, b.Y, rtol=1e-12, atol=1e-15)


def test_gravity_magnitude_does_not_change_regroupings():
    robot = load("ur10e.yaml")
    strong = bp.Robot(robot.joints, name="x", convention=robot.convention, length_unit=robot.length_unit,
                      angle_unit=robot.angle_unit, gravity=(0, 0, -98.1))
    a, b = bp.find_base_parameters(robot), bp.find_base_parameters(strong)
    assert a.names == b.names
    np.testing.assert_array_equal(a.Y, b.Y)


def test_zero_gravity_loses_the_gravity_only_parameters():
    robot = load("planar_rrr.yaml")
    free = bp.Robot(robot.joints, name="x", convention=robot.convention, length_unit=robot.length_unit,
                    angle_unit=robot.angle_unit, gravity=(0, 0, 0))
    check_against_numeric(free)
    assert bp.find_base_parameters(free).rank < bp.find_base_parameters(robot).rank


def test_offsets_do_not_change_the_base_set():
    robot = load("ur5.yaml")
    shifted = bp.Robot(tuple(bp.Joint(type=j.type, alpha=j.alpha, a=j.a, d=j.d, offset=0.3 * (k + 1), parent=j.parent)
                             for k, j in enumerate(robot.joints)), name="x", convention=robot.convention,
                       length_unit=robot.length_unit,
                       angle_unit="rad" if robot.angle_unit == "rad" else robot.angle_unit,
                       gravity=robot.gravity)
    a = bp.find_base_parameters(robot)
    b = check_against_numeric(shifted)
    assert a.names == b.names
    np.testing.assert_allclose(a.Y, b.Y, atol=1e-14)


def test_tree_rows_pair_only_joints_on_a_common_path(tmp_path):
    robot = load("dual_arm_torso.yaml")
    bp.find_and_store(robot, str(tmp_path / "t.h5"))
    rows = bp.read_h5(tmp_path / "t.h5")["rows"]
    pairs = {(i, j) for i, j in rows[:, :2] if i > 0}
    assert (3, 2) in pairs and (5, 4) in pairs and (5, 1) in pairs
    assert not pairs & {(4, 2), (4, 3), (5, 2), (5, 3)}   # left and right arms never pair


def test_a_robot_beyond_the_memory_allowed_is_refused_at_once(monkeypatch):
    """A budget below what the run needs: refused before any work (the projection is never entered),
    with both figures; with this machine's memory the same 14-joint generic chain (5^14 basis
    functions) runs."""
    import baseparam.projection.base_set as base_set
    joints = tuple(bp.Joint(type="revolute", alpha=0.7 + 0.1 * k, a=0.31 + 0.01 * k, d=0.17, parent=k)
                   for k in range(14))
    robot = bp.Robot(joints, name="monster", angle_unit="rad")

    def no_work(*args, **kwargs):
        raise AssertionError("the projection ran before the memory check refused it")
    with monkeypatch.context() as patch:
        patch.setattr(base_set, "run", no_work)
        with pytest.raises(bp.ResourceLimitError, match=r"monster: .* would need up to about [\d.]+ MB of memory, "
                                                        r"more than the 1 MB allowed \(the max_memory given\)"):
            bp.find_base_parameters(robot, max_memory="1M")
    with pytest.raises(bp.ArgumentError, match="max_memory: expected a memory size"):
        bp.find_base_parameters(robot, max_memory="a lot")
    assert bp.find_base_parameters(robot).rank == 7 * 14 - 6


@pytest.mark.parametrize("twist", ["89.9", "89.99999", "80", "90.00001"])
@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_rank_does_not_depend_on_a_tolerance_near_special_angles(twist, parameters):
    """A twist a hair away from 90° keeps the generic rank (36 for the PUMA), in both
    parameterizations: the float path decides zeros and rank modulo a prime, not by tolerance."""
    text = (ROOT / "robots" / "puma560.yaml").read_text()
    text = text.replace("alpha: -90", f"alpha: -{twist}").replace("alpha: 90", f"alpha: {twist}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        base = bp.find_base_parameters(bp.parse_robot(text, "near.yaml"), parameters)
    assert not base.exact and base.rank == 36
    # the accuracy caveat printed in the note is also a Python warning (and only then)
    warned = [w for w in caught if issubclass(w.category, bp.AccuracyWarning)]
    assert bool(warned) == ("WARNING" in base.note), (twist, base.note)
    # echelon form: no standard parameter left of its pivot appears in a regrouping
    for r, c in enumerate(base.pivots):
        assert not np.any(base.Y[r, :c]), base.names[r]


def test_float_regroupings_have_no_round_off_terms():
    robot = bp.parse_robot("units: {length: cm, angle: deg}\n"
                           "joints: [{type: revolute, alpha: 17.5, a: 0, d: -26.71}]\n")
    base = bp.find_base_parameters(robot, "khalil")
    for r in range(base.rank):
        assert all(abs(v) > 1e-12 for v in base.terms(r).values()), base.terms(r)
        assert not set(base.terms(r)) & set(base.unidentifiable)


HARD_CASES = {
    # 45° + 45° = 90° around a prismatic joint: only the cyclotomic image keeps cos 90° = 0 exact.
    "45+45": "joints:\n  - {type: revolute, alpha: 45, a: 0, d: 0}\n  - {type: prismatic, alpha: 45, a: 0, theta: 0}\n",
    "135-45": "gravity: [1, 1, -9]\njoints:\n  - {type: revolute, alpha: 135, a: 0, d: 0.1}\n"
              "  - {type: prismatic, alpha: -45, a: 0, theta: 0}\n",
    "theta-45": "joints:\n  - {type: revolute, alpha: 30, a: 0.1, d: 0.2}\n"
                "  - {type: prismatic, alpha: 0, a: 0.1, theta: -45}\n"
                "  - {type: revolute, alpha: 60, a: 0.2, d: 0}\n",
    # Numbers that vanish modulo 8388593 (a prime the engine uses): sin 10.82833° of the rational
    # stand-in, a length and a gravity component equal to the prime / 10⁶.
    "sin≡0": "joints:\n  - {type: revolute, alpha: 10.82833, a: 0, d: 0}\n  - {type: revolute, alpha: 0, a: 0, d: 0}\n",
    "length≡0": "joints:\n  - {type: revolute, alpha: -90, a: 0, d: 0.3}\n"
                "  - {type: revolute, alpha: 0, a: 8.388593, d: 0.1}\n"
                "  - {type: revolute, alpha: 30, a: 0.05, d: 0.2}\n  - {type: revolute, alpha: 90, a: 0, d: 0.25}\n",
    "gravity≡0": "gravity: [8.388593, 0, -9.81]\njoints:\n  - {type: revolute, alpha: 30, a: 0.2, d: 0.1}\n"
                 "  - {type: revolute, alpha: 30, a: 0.4, d: 0.1}\n",
    "1+t²≡0": "joints:\n  - {type: revolute, alpha: 17.852804, a: 0.2, d: 0}\n"
              "  - {type: revolute, alpha: 0, a: 0, d: 0}\n",
}


@pytest.mark.parametrize("name", sorted(HARD_CASES))
@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_modular_companion_hard_cases(name, parameters, tmp_path):
    robot = bp.parse_robot("units: {length: m, angle: deg}\n" + HARD_CASES[name], f"{name}.yaml")
    base = check_against_numeric(robot, parameters)
    for r in range(base.rank):       # no round-off terms survive in the regroupings
        assert all(abs(v) > 1e-12 for v in base.terms(r).values()), base.terms(r)
    bp.find_and_store(robot, str(tmp_path / "z.h5"), parameters)   # and --h5 works too


@pytest.mark.parametrize("factor", [0.294, np.float64(0.30001), 1.0, 1e-3, Fraction(1, 1000), 3])
def test_rescaled_regroupings_in_arrays_are_the_entry_by_entry_ones(factor):
    """_rescale's array path (float Y) gives each entry exactly as v · factor ** e, the same types and
    zeros' signs as the entry-by-entry formula (which the Fraction and integer factors still take)."""
    from baseparam.projection.base_set import _rescale
    rng = np.random.default_rng(0)
    for _ in range(10):
        Y = rng.normal(size=(7, 12)) * (rng.random((7, 12)) < 0.5)
        Y[0, 0], Y[1, 1] = -0.0, np.nan
        power, pivots = rng.integers(0, 3, 12), np.sort(rng.choice(12, 7, replace=False))
        expected = [[v * factor ** int(power[pivots[r]] - power[c]) if v != 0 else v for c, v in enumerate(row)]
                    for r, row in enumerate(Y)]
        assert repr(_rescale(Y, pivots, power, factor)) == repr(expected)
