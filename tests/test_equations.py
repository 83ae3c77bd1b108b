"""Closed-form equations of motion (``bp.equations``, ``baseparam equations``): checked against
independent dynamics and against Telegin's printed equations.

* The generated module's ``tau(q, qd, qdd, p)`` against pinocchio's joint-torque regressor
  (tests/pin_model.py, built from the DH table alone) and against ``bp.inverse_dynamics`` at random
  states, on the PUMA 560 and on arms with prismatic joints (Stanford arm, Telegin's RRRPRR).
* Telegin (2021; ../shared/seeds/004_1fad410fe4aafd2e.txt), examples 1-3: his final equations (in
  joint angles, section 2, transcribed below from the seed text) equal ours *symbolically* once his
  constants are mapped to our parameters. The mapping is tests/test_telegin.py's: his body frames
  (pole O_i, principal axes) are carried onto the DH link frames by the constant transforms E_k, his
  assumptions (centres of mass on given axes, principal axes, J^x = J^z for bodies 3-6 of example 3)
  restrict the standard parameters to p = B u with u free symbols, and each of his constants is a
  linear form in p. Our β(u) = Y p(u) goes into our printed τ, his constants k(u) into his equations;
  the difference, with sin/cos of every angle as polynomial variables reduced modulo s² + c² = 1,
  is the zero polynomial.

  His equations are written, as he does, for the absolute angles of the parallel axes: example 3's
  first three right-hand sides are M1 − M2, M2 − M3, M3 (τ1 − τ2, τ2 − τ3, τ3 here). The final
  equations need no correction (the comparison below is exact, and tests/test_telegin.py checks them
  numerically against an independent Newton–Euler). Slips exist only in intermediate formulas the
  comparison does not use, e.g. the seed text of the direction-cosine system reads
  aL2(s12 q̈6^z + c12 q̈6^z) in the M2 − M3 equation where the line deriving it has
  aL2(s12 q̈6^x + c12 q̈6^z) (section 2, "Пример 3 (продолжение)"; a misprint or a slip of the copy).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

import baseparam as bp
from baseparam.codegen.equations import equations, load_module
from conftest import ROOT, run_in_process

pytest.importorskip("pinocchio")
from pin_model import Reference  # noqa: E402


@pytest.fixture(scope="module", params=["puma560", "stanford_arm", "telegin_rrrprr"])
def case(request):
    robot = bp.load_robot(ROOT / "robots" / f"{request.param}.yaml")
    base = bp.find_base_parameters(robot)
    eq = equations(base)
    return robot, base, eq, load_module(eq.python_source())


def _states(robot, rng, n):
    return [rng.uniform(-2.0, 2.0, (n, robot.n_dof)) for _ in range(3)]


def test_module_against_pinocchio(case):
    """τ of the printed equations = pinocchio's regressor × the same standard parameters."""
    robot, base, eq, module = case
    ref = Reference(robot, "pseudo")
    assert ref.names == list(base.standard_names)
    rng = np.random.default_rng(5)
    p = rng.uniform(-1.0, 1.0, len(base.standard_names))
    q, qd, qdd = _states(robot, rng, 8)
    got = module.tau(q, qd, qdd, base.from_standard(p))
    expected = np.array([ref.regressor(*x) @ p for x in zip(q, qd, qdd)])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10 * np.abs(expected).max())


def test_module_against_inverse_dynamics(case):
    """τ of the printed equations = bp.inverse_dynamics, one sample and a batch alike."""
    robot, base, eq, module = case
    rng = np.random.default_rng(6)
    p = rng.uniform(0.1, 1.0, len(base.standard_names))
    q, qd, qdd = _states(robot, rng, 16)
    expected = bp.inverse_dynamics(bp.Model(robot, p), q, qd, qdd)
    pb = base.from_standard(p)
    np.testing.assert_allclose(module.tau(q, qd, qdd, pb), expected, rtol=0, atol=1e-10 * np.abs(expected).max())
    np.testing.assert_allclose(module.tau(q[3], qd[3], qdd[3], pb), expected[3], rtol=0,
                               atol=1e-10 * np.abs(expected).max())
    assert eq.max_error < 1e-10 * eq.max_torque


def test_sympy_matrix_is_the_module(case):
    """The SymPy τ (abbreviations replaced by their definitions) evaluates to the module's numbers."""
    robot, base, eq, module = case
    rng = np.random.default_rng(7)
    pb = rng.uniform(-1, 1, base.rank)
    q, qd, qdd = (rng.uniform(-2, 2, robot.n_dof) for _ in range(3))
    values = {s: float(v) for s, v in zip(eq.symbols, pb)}
    values[sympy.Symbol("g", positive=True)] = eq.gravity
    for k in range(robot.n_dof):
        values.update({sympy.Symbol(f"q{k + 1}", real=True): q[k], sympy.Symbol(f"qd{k + 1}", real=True): qd[k],
                       sympy.Symbol(f"qdd{k + 1}", real=True): qdd[k]})
    for s, (definition, _, _) in eq.abbreviations.items():
        if s in set().union(*(e.free_symbols for e in eq.tau)):
            values[s] = float(definition.subs(values))
    values = {s: sympy.Float(v, 30) for s, v in values.items()}
    got = [float(e.xreplace(values)) for e in eq.tau]
    np.testing.assert_allclose(got, module.tau(q, qd, qdd, pb), rtol=1e-12, atol=1e-12)


def test_puma_uses_summed_angles_and_is_documented(case):
    robot, base, eq, module = case
    text = eq.markdown()
    assert f"{eq.max_error:.3g}" in text and "exported code" in text
    if robot.name.startswith("PUMA"):
        names = {s.name for s in eq.used_abbreviations()}
        assert {"c23", "s23", "qd23", "qdd23"} <= names     # joints 2 and 3 are parallel
        assert eq.code_count["mul"] > 0 and eq.operation_count["mul"] > 0


# ---------------------------------------------------------------- Telegin's printed equations

def _exact(x):
    """A float of the frame mapping (0, ±1, ±L, …, with round-off) as the rational it stands for."""
    return Fraction(0) if abs(x) < 1e-12 else Fraction(x).limit_denominator(10 ** 6)


def trig_polynomial(expr, qs):
    """expr with sin/cos of the angles as variables S_k, C_k, reduced modulo S_k² + C_k² − 1."""
    S = sympy.symbols(f"S1:{len(qs) + 1}")
    C = sympy.symbols(f"C1:{len(qs) + 1}")
    expr = sympy.expand_trig(sympy.expand(expr))
    expr = expr.subs({sympy.sin(q): s for q, s in zip(qs, S)} | {sympy.cos(q): c for q, c in zip(qs, C)})
    expr = sympy.expand(expr)
    if expr == 0:
        return expr
    _, rest = sympy.reduced(expr, [s ** 2 + c ** 2 - 1 for s, c in zip(S, C)], *S, *C, order="lex")
    return sympy.expand(rest)


def telegin_example(ex_name):
    """Our τ(u) and the mapped constants k(u) of one example (tests/test_telegin.py's mapping)."""
    from test_telegin import EXAMPLES, _rows, body_to_link, to_body_matrix

    ex = EXAMPLES[ex_name]
    robot = bp.load_robot(ROOT / "robots" / ex.yaml)
    base = bp.find_base_parameters(robot)
    eq = equations(base, check=False)
    n = robot.n_dof
    Gm = to_body_matrix(body_to_link(robot, ex.kin, np.linspace(0.3, 1.1, n)))
    blocks = [np.array(v).T for v in ex.allowed]
    theta_basis = np.zeros((10 * n, sum(b.shape[1] for b in blocks)))
    col = 0
    for k, b in enumerate(blocks):
        theta_basis[10 * k:10 * k + 10, col:col + b.shape[1]] = b
        col += b.shape[1]
    B = np.linalg.solve(Gm, theta_basis)
    u = sympy.symbols(f"u0:{B.shape[1]}", real=True)

    def form(row):
        return sympy.Add(*[sympy.Rational(*_exact(v).as_integer_ratio()) * u[j] for j, v in enumerate(row)])
    p = {sympy.Symbol(name, real=True): form(B[i]) for i, name in enumerate(base.standard_names)}
    # xreplace, not subs: every key is a symbol and no value holds a key (no abbreviation is defined through
    # another), so one exact replacement gives subs's expressions, in 1/100 of the time (ex3: 3 s → 0.1 s)
    beta = {s: eq.constants[s].xreplace(p) for s in eq.symbols}
    qs = sympy.symbols(f"q1:{n + 1}", real=True)
    defs = {s: d for s, (d, _, _) in eq.abbreviations.items()}
    assert not any(d.free_symbols & defs.keys() for d in defs.values())
    g = sympy.Symbol("g", positive=True)
    tau = [e.xreplace(defs).xreplace(beta).xreplace({g: sympy.Rational(981, 100)}) for e in eq.tau]
    k = {name: form(row @ B) for name, row in _rows(ex.constants, n, Gm).items()}
    return tau, k, qs


def _rates(n):
    qd = sympy.symbols(f"qd1:{n + 1}", real=True)
    qdd = sympy.symbols(f"qdd1:{n + 1}", real=True)
    return qd, qdd


G = sympy.Rational(981, 100)


def telegin_equations(example, tau, k, q):
    """His final equations (section 2) with the constants k, and our τ combined as his left sides."""
    n = len(tau)
    qd, qdd = _rates(n)
    s = [sympy.sin(x) for x in q]
    c = [sympy.cos(x) for x in q]
    if example == "ex1_ppr":
        # m1 q̈1 + a3(c3 q̈3 − s3 q̇3²) + m1 g = F1;  m2 q̈2 − a3(s3 q̈3 + c3 q̇3²) = F2;
        # J_o3^z q̈3 + a3(c3 q̈1 − s3 q̈2) + g a3 c3 = M3
        m1, m2, a3, J3 = k["m1"], k["m2"], k["a3"], k["J3z"]
        his = [m1 * qdd[0] + a3 * (c[2] * qdd[2] - s[2] * qd[2] ** 2) + m1 * G,
               m2 * qdd[1] - a3 * (s[2] * qdd[2] + c[2] * qd[2] ** 2),
               J3 * qdd[2] + a3 * (c[2] * qdd[0] - s[2] * qdd[1]) + G * a3 * c[2]]
        ours = tau
    elif example == "ex2_rpp":
        # [(J_13^y + m2 q2² − 2 a2 q2) q̇1]' = M1;  m2 q̈2 + (a2 − m2 q2) q̇1² = F2;  m3 q̈3 − m3 g = F3
        f = k["J13y"] + k["m2"] * q[1] ** 2 - 2 * k["a2"] * q[1]
        his = [f * qdd[0] + sympy.diff(f, q[1]) * qd[1] * qd[0],
               k["m2"] * qdd[1] + (k["a2"] - k["m2"] * q[1]) * qd[0] ** 2,
               k["m3"] * qdd[2] - k["m3"] * G]
        ours = tau
    else:
        La, Lb, a = k["La"], k["Lb"], k["a"]
        s2, c2, s3, c3, s5, c5 = s[1], c[1], s[2], c[2], s[4], c[4]
        s23, c23 = sympy.sin(q[1] + q[2]), sympy.cos(q[1] + q[2])
        qd1, qd12, qd13, qd5, qd6 = qd[0], qd[0] + qd[1], qd[0] + qd[1] + qd[2], qd[4], qd[5]
        qdd1, qdd12, qdd13, qdd4, qdd5, qdd6 = qdd[0], qdd[0] + qdd[1], qdd[0] + qdd[1] + qdd[2], qdd[3], qdd[4], qdd[5]
        his = [
            k["Id1"] * qdd1 + Lb * (c2 * qdd12 - s2 * qd12 ** 2)
            + La * (s5 * (c23 * qdd13 - s23 * qd13 ** 2) + s23 * (c5 * qdd5 - s5 * qd5 ** 2)
                    + 2 * c23 * c5 * qd13 * qd5),
            k["Id2"] * qdd12 + Lb * (c2 * qdd1 + s2 * qd1 ** 2)
            + La * (s5 * (c3 * qdd13 - s3 * qd13 ** 2) + s3 * (c5 * qdd5 - s5 * qd5 ** 2)
                    + 2 * c3 * c5 * qd13 * qd5),
            La * s5 * (c23 * qdd1 + c3 * qdd12 + s23 * qd1 ** 2 + s3 * qd12 ** 2) + k["J6y"] * c5 * qdd6
            + (k["I36c"] + k["I56c"] * c5 ** 2) * qdd13 + s5 * (k["Ie"] * c5 * qd13 - k["Id"] * qd6) * qd5,
            k["m4"] * qdd4 - a * (s5 * qdd5 + c5 * qd5 ** 2) - k["m4"] * G,
            La * c5 * (s23 * qdd1 + s3 * qdd12 - c23 * qd1 ** 2 - c3 * qd12 ** 2) + k["I56x"] * qdd5
            - s5 * (a * qdd4 - (k["D"] * c5 * qd13 + k["Id"] * qd6) * qd13) + a * G * s5,
            k["J6y"] * (c5 * qdd13 + qdd6 - s5 * qd13 * qd5)]
        ours = [tau[0] - tau[1], tau[1] - tau[2]] + tau[2:]      # M1 − M2, M2 − M3, M3, F4, M5, M6
    return ours, his


@pytest.mark.parametrize("example", ["ex1_ppr", "ex2_rpp", "ex3_rrrprr"])
def test_telegin_printed_equations(example):
    """Telegin's final equations (section 2) = ours, symbolically, with his constants mapped."""
    tau, k, q = telegin_example(example)
    ours, his = telegin_equations(example, tau, k, q)
    for i, (x, y) in enumerate(zip(ours, his)):
        assert trig_polynomial(x - y, q) == 0, (example, i + 1)


def test_telegin_check_can_fail():
    """The symbolic comparison sees a wrong coefficient (the test is not vacuous)."""
    tau, k, q = telegin_example("ex1_ppr")
    qd, qdd = _rates(3)
    wrong = k["m2"] * qdd[1] - k["a3"] * (sympy.sin(q[2]) * qdd[2] - sympy.cos(q[2]) * qd[2] ** 2)   # sign of c3 q̇3²
    assert trig_polynomial(tau[1] - wrong, q) != 0


# ---------------------------------------------------------------- the command

def _run(*args, cwd):
    """``baseparam equations ARGS…`` from ``cwd``, in this process: a process of its own imported SymPy and the
    library again (~1 s of CPU a run, 6 s of the file's 31) to check the same files, streams and exit status."""
    return run_in_process("equations", *args, cwd=cwd)


def test_cli_writes_text_python_json(tmp_path):
    import json

    out = _run(ROOT / "robots" / "ppr.yaml", "--python", tmp_path / "ppr.py", "--json", tmp_path / "ppr.json",
               cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "\\tau_{3}" in out.stdout and "max |τ_printed − τ_Newton–Euler|" in out.stdout
    doc = json.loads((tmp_path / "ppr.json").read_text())
    assert [b["name"] for b in doc["base"]] == list(bp.find_base_parameters(
        bp.load_robot(ROOT / "robots" / "ppr.yaml")).names)
    assert all(sympy.sympify(t) is not None for t in doc["tau"])
    module = load_module((tmp_path / "ppr.py").read_text())
    robot = bp.load_robot(ROOT / "robots" / "ppr.yaml")
    base = bp.find_base_parameters(robot)
    rng = np.random.default_rng(8)
    p = rng.uniform(0.1, 1, len(base.standard_names))
    q, qd, qdd = _states(robot, rng, 4)
    np.testing.assert_allclose(module.tau(q, qd, qdd, base.from_standard(p)),
                               bp.inverse_dynamics(bp.Model(robot, p), q, qd, qdd), atol=1e-12)
    out = _run(ROOT / "robots" / "ppr.yaml", "--out", tmp_path / "ppr.md", cwd=tmp_path)
    assert out.returncode == 0 and "max |tau - tau_NE|" in out.stdout
    assert "## Equations" in (tmp_path / "ppr.md").read_text()


@pytest.mark.parametrize("content", ["joints: [", "name: x\nconvention: standard\njoints: []\n"])
def test_cli_bad_input_one_line(tmp_path, content):
    bad = tmp_path / "bad.yaml"
    bad.write_text(content)
    out = _run(bad, cwd=tmp_path)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "bad.yaml" in out.stderr and "Traceback" not in out.stderr


def test_library_rejects_wrong_argument():
    with pytest.raises(bp.ArgumentError, match="equations"):
        equations("robots/puma560.yaml")


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_friction_rotor_inertia_and_khalil(parameters):
    """Friction (FV q̇, FC sign q̇, FO) and rotor inertia columns are printed too, in either
    parameterization: the module equals bp.inverse_dynamics with those drives."""
    robot = bp.load_robot(ROOT / "robots" / "rpp.yaml", friction=True, rotor_inertia=True)
    base = bp.find_base_parameters(robot, parameters)
    eq = equations(base)
    names = {s.name for s in eq.symbols}
    assert {"FV1", "FC2", "FO3"} <= names and any(s.name.startswith("sg") for s in eq.used_abbreviations())
    module = load_module(eq.python_source())
    rng = np.random.default_rng(9)
    p = rng.uniform(0.1, 1.0, len(base.standard_names))
    q, qd, qdd = _states(robot, rng, 6)
    expected = bp.inverse_dynamics(bp.Model(robot, p, parameters), q, qd, qdd)
    np.testing.assert_allclose(module.tau(q, qd, qdd, base.from_standard(p)), expected, rtol=0,
                               atol=1e-10 * np.abs(expected).max())


def test_too_long_is_refused_in_one_line(tmp_path):
    """A closed form too long to print is a ResourceLimitError naming the limit (exit status 2 in the CLI)."""
    robot = bp.load_robot(ROOT / "robots" / "ppr.yaml")
    with pytest.raises(bp.ResourceLimitError, match="max_terms=3"):
        equations(robot, max_terms=3)


@pytest.mark.parametrize("name, symbolic", [("telegin_rrrprr", "a1,a2"), ("stanford_arm", "all")])
def test_symbolic_lengths(name, symbolic):
    """With DH lengths as symbols: at the robot's lengths the module equals Newton–Euler; at other random
    lengths the same formulas equal the numeric engine run there (inverse dynamics and regroupings)."""
    from baseparam.projection.symbolic import _with_lengths, parse_symbols

    robot = bp.load_robot(ROOT / "robots" / f"{name}.yaml")
    eq = equations(robot, symbolic=symbolic)
    assert eq.max_error < 1e-10 * eq.max_torque and eq.lengths
    names, fields = parse_symbols(robot, symbolic)
    assert {s.name for s in eq.lengths} == set(names)
    assert set(names) & {s.name for e in eq.tau for s in e.free_symbols}
    rng = np.random.default_rng(10)
    new = {s: Fraction(int(rng.integers(10, 99)), 100) for s in names}            # m (these robots: m)
    other = _with_lengths(robot, fields, new)
    base2 = bp.find_base_parameters(other)
    module = load_module(eq.python_source())
    for s in names:
        setattr(module, s, float(new[s]))
    p = rng.uniform(0.1, 1, len(base2.standard_names))
    q, qd, qdd = _states(robot, rng, 5)
    expected = bp.inverse_dynamics(bp.Model(other, p), q, qd, qdd)
    np.testing.assert_allclose(module.tau(q, qd, qdd, base2.from_standard(p)), expected, rtol=0,
                               atol=1e-10 * np.abs(expected).max())
    at = {sympy.Symbol(s, real=True): sympy.Rational(new[s].numerator, new[s].denominator) for s in names}
    Y = np.array([[float(eq.constants[b].xreplace(at).coeff(sympy.Symbol(c, real=True))) for c in base2.standard_names]
                  for b in eq.symbols])
    np.testing.assert_allclose(Y, base2.Y, rtol=0, atol=1e-12)


def test_cli_symbolic(tmp_path):
    # The command's plumbing (--symbolic reaches equations(), the printed and exported lengths): the planar 3R arm
    # shows it in 0.3 s of CPU against 1.6 s for the RRRPRR, whose formulas test_symbolic_lengths checks already.
    out = _run(ROOT / "robots" / "planar_rrr.yaml", "--symbolic", "a1,a2", "--python", tmp_path / "m.py",
               cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "a_{1}" in out.stdout and "a_{2}" in out.stdout
    assert "a1 = 1.0" in (tmp_path / "m.py").read_text() and "a2 = 1.0" in (tmp_path / "m.py").read_text()
    out = _run(ROOT / "robots" / "ppr.yaml", "--symbolic", "all", cwd=tmp_path)      # no non-zero length: numeric
    assert out.returncode == 0 and "--symbolic all: every constant DH length is 0" in out.stderr, out.stderr
