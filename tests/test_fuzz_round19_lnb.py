"""Stop 43's leftovers, set "lnb" (issue 22): the notebooks, the tests' deprecated calls, the potential energy.

1. The notebooks are user documentation: they import only public names — ``baseparam``'s own or a documented
   subpackage's ``__all__`` — and no private ``_name`` of any module. They imported ``format_table`` and
   ``format_symbolic_table`` from module paths (now ``base.summary()``, ``sym.summary()``), the identification plots
   through ``baseparam.identification.plots`` and ``controller_gains`` through ``…drive_gains`` (now
   ``baseparam.identification``'s), and notebook 10 the private ``_count`` (now ``baseparam.codegen.operation_count``).
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

import baseparam as bp

ROOT = Path(__file__).resolve().parents[1]
PUMA = ROOT / "robots" / "puma560.yaml"
PLANAR = ROOT / "robots" / "planar_rrr.yaml"
# the subpackages the package's docstring documents, each with its __all__ (tests/test_library_api.py lists them)
DOCUMENTED = ("model", "dynamics", "projection", "identification", "excitation", "codegen", "simulation")


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def non_public_uses(source: str) -> list:
    """What a notebook's source takes from baseparam that is not public, and any private name it takes from any
    module (``from m import _x``, ``m._x`` for an imported module m)."""
    tree = ast.parse(source)
    found, modules = [], {}         # local name → the module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("baseparam") and alias.name not in ("baseparam", *(
                        f"baseparam.{s}" for s in DOCUMENTED)):
                    found.append(f"line {node.lineno}: import {alias.name}")
                modules[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                elif node.module == "baseparam" and alias.name in DOCUMENTED:
                    modules[alias.asname or alias.name] = f"baseparam.{alias.name}"
                elif node.module.startswith("baseparam"):
                    public = node.module in ("baseparam", *(f"baseparam.{s}" for s in DOCUMENTED)) and \
                        alias.name in importlib.import_module(node.module).__all__
                    if not public:
                        found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                if not node.module.startswith("baseparam"):
                    modules.setdefault(alias.asname or alias.name, f"{node.module}.{alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            module = modules[node.value.id]
            if _private(node.attr):
                found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
            elif module == "baseparam" and node.attr not in bp.__all__ and not node.attr.startswith("__"):
                found.append(f"line {node.lineno}: {node.value.id}.{node.attr} (not in baseparam.__all__)")
    return found


NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_use_only_public_names(path):
    assert not non_public_uses(path.read_text(encoding="utf-8")), path.name


def test_the_check_sees_what_the_notebooks_did():
    """The check above, on the lines the notebooks had (and on ones they must keep)."""
    old = ("from baseparam.projection.report import format_table\n"
           "from baseparam.identification import plots\n"
           "from baseparam.identification.drive_gains import controller_gains\n"
           "from baseparam.projection.symbolic import format_symbolic_table\n"
           "from baseparam.codegen.equations import _count\n"
           "import test_equations as telegin_check\n"
           "telegin_check._telegin('ex1_ppr')\n"
           "import baseparam as bp\n"
           "bp.no_such_name\n")
    assert len(non_public_uses(old)) == 7
    kept = ("import baseparam as bp\nfrom baseparam.identification import plot_torques, controller_gains\n"
            "from baseparam.codegen import operation_count\nbp.find_base_parameters, bp.__file__\n")
    assert non_public_uses(kept) == []


def test_base_summary_is_the_paper_table():
    """``base.summary()`` is the table ``baseparam find`` prints: Krutikov's PUMA 560 table (its regroupings in mm as
    the paper prints them, README's "Example")."""
    base = bp.find_base_parameters(bp.load_robot(PUMA))
    text = base.summary()
    assert text.startswith("PUMA 560: 36 base parameters of 60 standard (pseudo parameterization; lengths in mm)")
    lines = text.splitlines()
    assert "   1  XX1  XX1 + ZZ1 + ZZ2 + YY3 + 300·(SZ2 + SY3) + 22500·(M2 + M3 + M4 + M5 + M6)" in lines
    assert "   2  XX2  XX2 - 186451.24·(M2 + M3 + M4 + M5 + M6)" in lines
    assert lines[-1] == "Unidentifiable (no effect on the dynamics): YY1 XY1 XZ1 YZ1 SX1 SY1 SZ1 M1"
    from click.testing import CliRunner

    from baseparam.cli import main
    run = CliRunner().invoke(main, ["find", str(PUMA)])
    assert run.exit_code == 0 and run.stdout.rstrip("\n") == text


def test_symbolic_summary_is_the_find_symbolic_text():
    sym = bp.find_base_parameters(bp.load_robot(PLANAR), symbolic="all")
    text = sym.summary()
    assert text.startswith(f"{sym.robot.name}: {sym.rank} base parameters") and "generic in " in text
    from click.testing import CliRunner

    from baseparam.cli import main
    run = CliRunner().invoke(main, ["find", str(PLANAR), "--symbolic", "all"])
    assert run.exit_code == 0 and run.stdout.rstrip("\n") == text


def test_identification_exports_the_plots_and_controller_gains():
    from baseparam.identification import drive_gains, plots
    import baseparam.identification as ident
    for name in ("plot_torques", "plot_residuals", "plot_parameters", "time_axis"):
        assert getattr(ident, name) is getattr(plots, name) and name in ident.__all__
    assert ident.controller_gains is drive_gains.controller_gains
    assert ident.ControllerGains is drive_gains.ControllerGains


def test_operation_count_by_hand():
    """Counted by hand: x·y + z³ is 1 + 2 multiplications and one addition; −x·y a free sign; an abbreviation s of
    sin(q1 + q2) one sin/cos pair and the angle's addition, its cos c the same pair; a summed rate its addition."""
    import sympy
    from baseparam.codegen import operation_count
    x, y, z, s, c, r, q1, q2, a, b = sympy.symbols("x y z s c r q1 q2 a b")
    assert operation_count(x * y + z ** 3) == {"mul": 3, "add": 1, "sincos": 0}
    assert operation_count([-x * y, x + y + z]) == {"mul": 1, "add": 2, "sincos": 0}
    defs = {s: sympy.sin(q1 + q2), c: sympy.cos(q1 + q2), r: a + b}
    assert operation_count(sympy.Matrix([s * x + c * y, r * z]), defs) == {"mul": 3, "add": 1 + 1 + 1, "sincos": 1}
    assert operation_count(s * x, defs) == {"mul": 1, "add": 1, "sincos": 1}
    with pytest.raises(bp.ArgumentTypeError, match="^expressions: expected a sympy expression"):
        operation_count("x*y")
    with pytest.raises(bp.ArgumentTypeError, match="^abbreviations: expected a mapping"):
        operation_count(x, [s])


def test_operation_count_is_the_equations_own():
    from baseparam.codegen import operation_count
    eq = bp.equations(bp.load_robot(PLANAR), check=False)
    assert operation_count(eq.tau, eq.abbreviations) == dict(eq.operation_count)


# -- 2. a deprecated call in a test fails, unless the test checks the warning ---------------------------------------
def test_a_deprecated_call_in_a_test_is_an_error():
    """pyproject's filter silenced every deprecated call form, so tests kept calling ``base.inverse_dynamics(p_base,
    …)`` unseen; now only the robot-first dynamics (the documented form, kept on purpose) are silent."""
    robot = bp.load_robot(PLANAR)
    base = bp.find_base_parameters(robot)
    p = np.linspace(0.1, 1.0, len(base.standard_names))
    q = np.zeros((2, robot.n_dof))
    with pytest.raises(DeprecationWarning, match=r"^BaseParameters\.inverse_dynamics\(p_base"):
        base.inverse_dynamics(base.from_standard(p), q, q, q)
    with pytest.raises(DeprecationWarning, match=r"^BaseParameters\.forward_dynamics\(p_base"):
        base.forward_dynamics(base.from_standard(p), q, q, q)
    with pytest.raises(DeprecationWarning, match=r"^find_base_parameters\(h5=\.\.\.\)"):
        bp.find_base_parameters(robot, h5="never-written.h5")
    # the robot-first form: silent under the filter, the same numbers as the model form
    np.testing.assert_array_equal(bp.inverse_dynamics(robot, p, q, q, q),
                                  bp.inverse_dynamics(bp.Model(robot, p), q, q, q))
    with pytest.warns(DeprecationWarning):         # a test of the deprecation itself still sees it
        base.inverse_dynamics(base.from_standard(p), q, q, q)


# -- 3. the potential energy computes the bodies' world frames only ------------------------------------------------
def _energy_problem(free):
    """A random-inertia PUMA 560 (fixed, or on a floating base), its pinocchio reference and 3 configurations."""
    import dataclasses
    pytest.importorskip("pinocchio")
    from test_forward_dynamics import floating, problem
    robot = bp.load_robot(PUMA)
    robot = dataclasses.replace(robot, joints=tuple(dataclasses.replace(j, rotor_inertia=False,
                                                                        friction=(False, False, False))
                                                    for j in robot.joints))
    robot = floating(robot) if free else robot
    p, ref, q, _, _ = problem(robot, "pseudo", np.random.default_rng(19), 3)
    return robot, bp.Model(robot, p), ref, q


@pytest.mark.parametrize("free", [False, True], ids=["fixed", "floating"])
def test_potential_energy_is_pinocchios_and_its_gradient_the_gravity_torque(free):
    """V(q) = pinocchio's ``computePotentialEnergy``, and ∂V/∂q_j = the gravity torque of joint j (central
    differences, h = 1e-6 rad: the error is O(h²) of V's third derivative)."""
    robot, model, ref, q = _energy_problem(free)
    import pinocchio as pin
    V = bp.potential_energy(model, q)
    for s in range(len(q)):
        expected = pin.computePotentialEnergy(ref.model, ref.data, ref._pin(q[s], 7 if free else 0))
        assert V[s] == pytest.approx(expected, rel=1e-11, abs=1e-11 * np.abs(V).max())
    h, first = 1e-6, 7 if free else 0              # the joints' columns of q (after a floating base's pose)
    g = bp.gravity_torque(model, q)[:, (6 if free else 0):]
    for j in range(robot.n_dof):
        step = np.zeros(q.shape[1])
        step[first + j] = h
        dV = (bp.potential_energy(model, q + step) - bp.potential_energy(model, q - step)) / (2 * h)
        np.testing.assert_allclose(dV, g[:, j], rtol=0, atol=1e-7 * np.abs(g).max())


def test_potential_energy_builds_no_tree_and_reads_the_joints_once(monkeypatch):
    """Its time went into a Tree (the 6×6 transforms and inertias of the momenta's recursions, 2/3 of it) and into
    the joint models' constant factors, worked out again at every call (most of a one-sample call)."""
    from baseparam.dynamics import momenta, tree

    def no_tree(*args, **kwargs):
        raise AssertionError("potential_energy built a Tree")
    calls = []

    def counted(robot):
        calls.append(robot)
        return joint_models(robot)
    joint_models = tree.joint_models
    monkeypatch.setattr(momenta, "Tree", no_tree)
    monkeypatch.setattr(tree, "joint_models", counted)
    robot = bp.load_robot(PUMA)                     # a new robot object: nothing kept with it yet
    model = bp.Model(robot, np.linspace(0.1, 1.0, bp.ColumnLayout(robot).n_standard))
    q = np.random.default_rng(3).uniform(-2, 2, (4, robot.n_dof))
    first = bp.potential_energy(model, q)
    assert bp.potential_energy(model, q[2]) == first[2] and len(calls) == 1
    assert bp.potential_energy(model, q[:0]).shape == (0,)


def test_tree_frames_are_the_world_frames_bit_for_bit():
    """One computation of the poses for the dynamics' Tree and for the energy (restructured, not re-derived)."""
    from baseparam.dynamics.samples import link_parameters
    from baseparam.dynamics.tree import Tree, world_frames
    for free in (False, True):
        robot, model, _, q = _energy_problem(free)
        full = Tree(robot, link_parameters(model), q)
        R, P = world_frames(robot, q)
        assert len(R) == len(P) == full.n_bodies
        for a, b in zip(full.R + full.P, R + P):
            assert a.tobytes() == b.tobytes()
