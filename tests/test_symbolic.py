"""Symbolic regroupings (``find --symbolic``): the formulas against the numeric exact engine at the robot's
lengths and at random ones, against Newton–Euler's regressor (W = W_b·Y), and against Krutikov's PUMA table."""
import dataclasses
import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import ArgumentError, BaseParamError
from baseparam.projection.symbolic import SymbolicError, find_symbolic_base_parameters, store_symbolic

ROBOTS = Path(__file__).resolve().parent.parent / "robots"
CASES = ["puma560.yaml", "stanford_arm.yaml", "telegin_rrrprr.yaml"]


def _symbolic(name, symbols="all"):
    return find_symbolic_base_parameters(bp.load_robot(ROBOTS / name), symbols)


def _parsed(sym):
    """The JSON document's coefficient strings, parsed by SymPy: [{standard name: expr}]."""
    doc = json.loads(json.dumps(sym.to_dict()))
    return [{k: sympy.sympify(v) for k, v in entry["terms"].items()} for entry in doc["base"]]


def _at(exprs, values):
    subs = {sympy.Symbol(s): sympy.Rational(v.numerator, v.denominator) for s, v in values.items()}
    out = []
    for row in exprs:
        values = {k: sympy.Rational(e.subs(subs)) for k, e in row.items()}
        out.append({k: Fraction(int(v.p), int(v.q)) for k, v in values.items() if v != 0})
    return out


def _numeric_terms(base):
    return [{k: Fraction(v) for k, v in base.terms(r).items()} for r in range(base.rank)]


def _modified(robot, values):
    joints = list(robot.joints)
    for s, v in values.items():
        k = int(s[1:]) - 1
        joints[k] = dataclasses.replace(joints[k], **{s[0]: float(v)})
    return dataclasses.replace(robot, joints=tuple(joints))


@pytest.mark.parametrize("name", CASES)
def test_formulas_at_the_robots_lengths_are_the_engines_regroupings_exactly(name):
    sym = _symbolic(name)
    base = bp.find_base_parameters(sym.robot)
    assert sym.robot_is_generic
    assert sym.names == base.names and sym.rank == base.rank
    expected = _numeric_terms(base)
    assert sym.evaluate() == expected                       # the polynomials
    assert _at(_parsed(sym), sym.values) == expected         # the JSON strings, through SymPy


@pytest.mark.parametrize("name", CASES)
def test_formulas_at_random_lengths_are_the_engine_run_at_those_lengths(name):
    sym = _symbolic(name)
    rng = random.Random(20261126)
    scale = {"m": 1000, "mm": 1}[sym.robot.length_unit]
    for _ in range(2):
        values = {s: Fraction(rng.randint(-999, 999) or 1, scale) for s in sym.symbols}
        robot = _modified(sym.robot, values)
        base = bp.find_base_parameters(robot)
        assert base.names == sym.names
        assert sym.evaluate(values) == _numeric_terms(base)
        assert _at(_parsed(sym), values) == _numeric_terms(base)


@pytest.mark.parametrize("name", CASES)
def test_formulas_make_the_base_regressor_reproduce_newton_euler(name):
    """Independent of the projection: W(q, q̇, q̈) = W_b · Y with Y from the formulas at random lengths."""
    sym = _symbolic(name)
    rng = np.random.default_rng(7)
    scale = {"m": 1000, "mm": 1}[sym.robot.length_unit]
    values = {s: Fraction(int(rng.integers(100, 999)), scale) for s in sym.symbols}
    robot = _modified(sym.robot, values)
    model = bp.Model(robot)
    n = robot.n_dof
    q, qd, qdd = (rng.uniform(-1.5, 1.5, (5, n)) for _ in range(3))
    W = bp.regressor(model, q, qd, qdd)
    si = {"m": 1.0, "mm": 1e-3}[robot.length_unit]
    names = sym.standard_names
    power = {n_: 2 if n_[:2] in ("XX", "YY", "ZZ", "XY", "XZ", "YZ") else (1 if n_[0] == "S" else 0) for n_ in names}
    Y = np.zeros((sym.rank, len(names)))
    for r, row in enumerate(sym.evaluate(values)):
        pivot = power[sym.names[r]]
        for k, v in row.items():             # display units → SI: length^(e_c − e_pivot)
            Y[r, names.index(k)] = float(v) * si ** (pivot - power[k])
    Wb = W[..., [names.index(k) for k in sym.names]]
    assert np.abs(W - Wb @ Y).max() <= 1e-9 * max(1.0, np.abs(W).max())


def test_puma_table_in_symbols_has_krutikovs_XX2_term():
    sym = _symbolic("puma560.yaml")
    a2, d2 = sympy.symbols("a2 d2")
    terms = _parsed(sym)[sym.names.index("XX2")]
    assert terms["XX2"] == 1
    for k in ("M2", "M3", "M4", "M5", "M6"):
        assert sympy.expand(terms[k] + a2 ** 2) == 0
    p1 = _parsed(sym)[sym.names.index("XX1")]
    assert sympy.expand(p1["SZ2"] - 2 * d2) == 0 and sympy.expand(p1["M6"] - d2 ** 2) == 0


def test_special_values_are_where_the_engine_changes_the_base_set():
    sym = _symbolic("telegin_rrrprr.yaml")
    special = {s.symbols: s for s in sym.special}
    assert set(special) == {("a1",), ("a1", "a2")}
    for zeros, entry in special.items():      # at the robot's other lengths, not the run's random ones
        at_zero = bp.find_base_parameters(_modified(sym.robot, {z: 0 for z in zeros}))
        assert entry.rank == at_zero.rank < sym.rank
        assert set(entry.lost) == set(sym.names) - set(at_zero.names)
        assert set(entry.gained) == set(at_zero.names) - set(sym.names)
    assert not _symbolic("telegin_rrrprr.yaml", "a2").special     # a2 = 0 alone changes nothing


def test_bad_symbols_and_irrational_angles_are_refused():
    puma = bp.load_robot(ROBOTS / "puma560.yaml")
    with pytest.raises(ArgumentError, match="'a7' is not a constant DH length"):
        find_symbolic_base_parameters(puma, "a2,a7")
    with pytest.raises(ArgumentError, match="named twice"):
        find_symbolic_base_parameters(puma, ["a2", "a2"])
    with pytest.raises(SymbolicError, match="exact path"):
        find_symbolic_base_parameters(bp.load_robot(ROBOTS / "skew7.yaml"), "a2")
    assert issubclass(SymbolicError, BaseParamError)


def test_cli_symbolic_json_h5_and_exit_status(tmp_path):
    import h5py

    out, h5 = tmp_path / "p.json", tmp_path / "p.h5"
    result = CliRunner().invoke(main, ["find", str(ROBOTS / "puma560.yaml"), "--symbolic", "a2,d4",
                                       "--json", str(out), "--h5", str(h5)])
    assert result.exit_code == 0, result.output
    assert "XX2 - a2²·(M2 + M3 + M4 + M5 + M6)" in result.output
    doc = json.loads(out.read_text())
    xx2 = next(b for b in doc["base"] if b["name"] == "XX2")
    assert sympy.sympify(xx2["terms"]["M4"]) == -sympy.Symbol("a2") ** 2
    with h5py.File(h5) as f:
        names = [n.decode() for n in f["names"][:]]
        standard = [n.decode() for n in f["standard"][:]]
        assert f["terms"][names.index("XX2"), standard.index("M5")].decode() == "-a2**2"
    bad = CliRunner().invoke(main, ["find", str(ROBOTS / "puma560.yaml"), "--symbolic", "q3"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_store_symbolic_round_trip(tmp_path):
    import h5py

    sym = _symbolic("stanford_arm.yaml")
    store_symbolic(sym, tmp_path / "s.h5")
    with h5py.File(tmp_path / "s.h5") as f:
        assert f.attrs["rank"] == sym.rank
        assert [s.decode() for s in f["symbols"][:]] == list(sym.symbols)


@pytest.mark.parametrize("name", ["ur5.yaml", "scara.yaml", "panda.yaml", "dual_arm_torso.yaml"])
def test_other_robots_khalil_formulas_at_their_lengths_are_the_engines_regroupings(name):
    """Other arms (a tree among them), Khalil's parameterization: the formulas at the robot's lengths."""
    robot = bp.load_robot(ROBOTS / name)
    sym = find_symbolic_base_parameters(robot, "all", "khalil", seed=3)
    base = bp.find_base_parameters(robot, "khalil")
    assert sym.robot_is_generic and sym.names == base.names
    assert sym.evaluate() == _numeric_terms(base)
