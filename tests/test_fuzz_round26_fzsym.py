"""Fuzz round 26 (helper fzsym): ``equations`` (issue 26), its printed forms against Newton–Euler.

The Python module was checked against Newton–Euler (``max_error``), but the Markdown and the JSON print the same
expressions over abbreviations of their own, which nothing checked: on a robot with a revolute offset that is no
multiple of 90° in a run of parallel axes the summed angle's definition left the offset out
(``s12 = sin(q1 + q2)`` where the module computes sin(q1 + 30° + q2)), and a prismatic joint's offset was printed
nowhere (``q3`` in τ stood for q3 + offset). Both gave τ off by up to a tenth of max |τ| for whoever evaluates the
JSON's strings with sympify, as docs/cli.md says they may.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy

import baseparam as bp
from baseparam.codegen.equations import equations

ROBOTS = {
    # joint 1's 30° offset in the run of parallel axes 1–2 (alpha 180: antiparallel), joint 2's 180° folded
    "summed": """name: summed
convention: modified
units: {length: cm, angle: deg}
gravity: [9.81, 0, 0]
joints:
  - {type: revolute, alpha: 180, a: 0, d: 0, offset: 30}
  - {type: revolute, alpha: 0, a: 0, d: 9.6, offset: 180}
""",
    # a prismatic joint whose d is q3 + 171.0814 mm
    "prismatic": """name: prismatic
convention: modified
units: {length: mm, angle: deg}
gravity: [1.2, -3.4, -8.1]
joints:
  - {type: revolute, alpha: 90, a: 0, d: 0, offset: 90}
  - {type: revolute, alpha: -90, a: 0, d: 0}
  - {type: prismatic, alpha: -90, a: 0, theta: 0, offset: 171.0814}
""",
    "planar": """name: planar
convention: standard
units: {length: m, angle: deg}
gravity: [0, -9.81, 0]
joints:
  - {type: revolute, alpha: 0, a: 0.4, d: 0, offset: 45}
  - {type: revolute, alpha: 0, a: 0.3, d: 0}
  - {type: prismatic, alpha: 0, a: 0.2, theta: 0, offset: 0.15}
""",
}


def _json_tau(doc, q, qd, qdd, p):
    """τ of the JSON document's strings at one state, its abbreviations defined in q, q̇, q̈ alone."""
    n = len(q)
    state = {}
    for k in range(n):
        state.update({f"q{k + 1}": q[k], f"qd{k + 1}": qd[k], f"qdd{k + 1}": qdd[k]})
    values = dict(state)
    for name, definition in doc["abbreviations"].items():
        values[name] = float(sympy.sympify(definition, locals={s: sympy.Symbol(s) for s in state}).subs(
            {sympy.Symbol(s): v for s, v in state.items()}))
    values.update({b["symbol"]: v for b, v in zip(doc["base"], p)})
    values.update(doc["lengths"])
    values["g"] = doc["gravity"]
    names = {s: sympy.Symbol(s) for s in values}
    return np.array([float(sympy.sympify(t, locals=names).subs({names[s]: v for s, v in values.items()}))
                     for t in doc["tau"]])


@pytest.mark.parametrize("name, symbolic", [("summed", None), ("prismatic", None), ("planar", None),
                                            ("planar", "all")])
def test_json_strings_equal_newton_euler(tmp_path, name, symbolic):
    path = tmp_path / f"{name}.yaml"
    path.write_text(ROBOTS[name])
    robot = bp.load_robot(path)
    base = bp.find_base_parameters(robot)
    eq = equations(base, symbolic=symbolic)
    doc = eq.to_dict()
    rng = np.random.default_rng(3)
    p = rng.uniform(0.1, 1.0, len(base.standard_names))
    for _ in range(3):
        q, qd, qdd = (rng.uniform(-2.0, 2.0, robot.n_dof) for _ in range(3))
        expected = bp.inverse_dynamics(bp.Model(robot, p), q, qd, qdd)
        got = _json_tau(doc, q, qd, qdd, base.from_standard(p))
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * max(np.abs(expected).max(), 1.0))
    assert eq.max_error < 1e-10 * max(eq.max_torque, 1.0)


def test_prismatic_offset_is_named_in_the_markdown(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(ROBOTS["prismatic"])
    text = equations(bp.load_robot(path)).markdown()
    assert r"d_{3} = q_{3} + 0.1710814" in text


def test_summed_angle_keeps_the_offset(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(ROBOTS["summed"])
    doc = equations(bp.load_robot(path)).to_dict()
    summed = [d for s, d in doc["abbreviations"].items() if s in ("s12", "c12")]
    assert summed and all("0.5235987755" in d for d in summed), doc["abbreviations"]


def test_markdown_prints_lengths_and_g_to_twelve_digits(tmp_path):
    """The Markdown printed the lengths kept as symbols and g with ``:g`` (6 digits): 171.0814 mm read 0.171081 m,
    |g| = 8.866228… read 8.86623; now 12 significant digits, as the constants (short values print as before)."""
    path = tmp_path / "p.yaml"
    path.write_text(ROBOTS["prismatic"].replace("a: 0, d: 0, offset: 90", "a: 123.4567, d: 0, offset: 90"))
    text = equations(bp.load_robot(path), symbolic="a1").markdown()
    assert "$a_{1}$ = 0.1234567" in text and "g = 8.86622805933 m/s²" in text
    planar = tmp_path / "r.yaml"
    planar.write_text(ROBOTS["planar"])
    text = equations(bp.load_robot(planar), symbolic="all").markdown()
    assert "g = 9.81 m/s²" in text and "$a_{1}$ = 0.4, $a_{2}$ = 0.3, $a_{3}$ = 0.2" in text
