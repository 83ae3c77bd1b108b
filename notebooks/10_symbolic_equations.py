# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Symbolic regroupings and the equations of motion in closed form
#
# Two things engineers ask for beyond numbers: the regroupings as **formulas in the DH lengths**
# (Krutikov's PUMA 560 table with a2, d4 … as symbols) and the **equations of motion written out**
# in the base parameters, as Telegin writes them for his arms ("Formalism of writing manipulator
# dynamics equations", 2021), checked against Newton–Euler and against his printed equations.
# Nothing here calls SymPy's `simplify`.

# %%
import os
import sys
import time
from pathlib import Path

import sympy
from IPython.display import Markdown, display

import baseparam as bp

ROOT = next(root for root in (Path(os.environ.get("BASEPARAM_ROOT", ".")), Path.cwd().parent,
                              Path(bp.__file__).resolve().parents[1])
            if (root / "notebooks" / "_helpers.py").is_file())
sys.path.insert(0, str(ROOT / "notebooks"))
from _helpers import robot_file  # noqa: E402  (found just above)

# %% [markdown]
# ## 1. The PUMA 560 table in symbols
#
# `find --symbolic all` (here `bp.find_base_parameters(robot, symbolic="all")`): every non-zero DH
# length becomes a symbol; masses and inertias stay symbols too. The formulas come from the exact
# engine by interpolation (docs/method.md, "Symbolic lengths"), and the special values where the
# base set changes are listed.

# %%
puma = bp.load_robot(robot_file("puma560.yaml"))
start = time.perf_counter()
sym = bp.find_base_parameters(puma, symbolic="all")
print(f"{time.perf_counter() - start:.1f} s")
print(sym.summary())         # the text `baseparam find --symbolic all` prints

# %% [markdown]
# At the robot's own lengths, every formula equals the numeric engine's regrouping exactly
# (Krutikov's XX2 − a2²·(M2 + … + M6) = XX2 − 186451.24·(M2 + … + M6) in mm):

# %%
base = bp.find_base_parameters(puma)
numeric = [{k: v for k, v in base.terms(r).items()} for r in range(base.rank)]
at_values = sym.evaluate()
assert sym.names == base.names
assert all(all(abs(float(at_values[r].get(k, 0)) - float(v)) <= 1e-9 * max(1.0, abs(float(v)))
               for k, v in numeric[r].items()) for r in range(base.rank))
print(sym.names[1], "=", sym.terms(1), "→ at a2 = 431.8:", at_values[1])

# %% [markdown]
# ## 2. The PUMA 560's equations of motion
#
# `bp.equations(base)` (`baseparam equations ROBOT`): τ_i = Σ_r W_b[i, r](q, q̇, q̈) β_r, grouped by
# base parameter. The base regressor's expression graph is evaluated once over exact polynomials
# (python-flint), reduced modulo s² + c² = 1, and the angles of the parallel joints 2 and 3 are put
# in Fourier form, which writes c2c3 − s2s3 as c23 by itself. With them: the check against
# Newton–Euler at random states and the operation counts.

# %%
start = time.perf_counter()
eq = bp.equations(base)
print(f"{time.perf_counter() - start:.1f} s;", eq)
print("printed form:", dict(eq.operation_count), " exported code:", dict(eq.code_count))
display(Markdown("$$\\tau_6 = " + sympy.latex(eq.tau[5], symbol_names=eq._latex_names()) + "$$"))

# %% [markdown]
# The printed form is a sum over base parameters of polynomials in the abbreviations: readable
# entry by entry, but far more operations than the exported code, which shares every common
# subexpression of the recursion. For evaluation use `baseparam export`; the printed equations are
# for reading, for analysis, and for checking by hand.
#
# ## 3. Telegin's 6-DOF R-R-R-P-R-R arm
#
# `robots/telegin_rrrprr.yaml` is his example 3 (Fig. 3, Listing 2, L1 = L2 = 0.5 m). Our equations,
# with his summed angles and rates (c23, q̈13 = q̈1 + q̈2 + q̈3) appearing where they shorten:

# %%
arm = bp.load_robot(robot_file("telegin_rrrprr.yaml"))
eq3 = bp.equations(arm)
print(eq3)
display(Markdown(eq3.markdown()))

# %% [markdown]
# With his link lengths kept as symbols (`--symbolic a1,a2`: a1 = a2 = L = 0.5 m in the robot), the
# grouped constants become formulas in them, like his I_d1 = J_o1^y + m2 L² and b = a2 + m3 L2 (in
# our DH link frames, which sit at the far end of each link, so the shifts read differently from
# his pole frames; pseudo second moments: XX1 + YY1 is the inertia about z1):

# %%
start = time.perf_counter()
eq3L = bp.equations(arm, symbolic="a1,a2")
print(f"{time.perf_counter() - start:.1f} s;", eq3L)
for s in eq3L.symbols[:3]:
    print(s, "=", eq3L.constants[s])
display(Markdown("$$\\tau_2 - \\tau_3 = " + sympy.latex(sympy.expand(eq3L.tau[1] - eq3L.tau[2]).collect(eq3L.symbols),
                                                       symbol_names=eq3L._latex_names()) + "$$"))

# %% [markdown]
# **His printed equations, verified.** tests/test_equations.py transcribes his final equations
# (section 2, in joint angles; his left sides for the parallel axes are M1 − M2, M2 − M3, M3) and
# maps his constants (I_d1 = J_o1^y + m2 L², L_a = L a, I^c_36, I^x_56, D, I_e, …) onto our standard
# parameters through his body frames and assumptions (principal axes, centres of mass on given axes,
# J^x = J^z for bodies 3–6), as tests/test_telegin.py does. Then our τ and his equations are
# compared as polynomials in sin and cos of every angle, reduced modulo s² + c² = 1:

# %%
sys.path.insert(0, str(ROOT / "tests"))
import test_equations as telegin_check  # noqa: E402  (the test's transcription and mapping)

for example in ("ex1_ppr", "ex2_rpp", "ex3_rrrprr"):
    tau, k, q = telegin_check.telegin_example(example)
    ours, his = telegin_check.telegin_equations(example, tau, k, q)
    zero = [telegin_check.trig_polynomial(x - y, q) == 0 for x, y in zip(ours, his)]
    print(f"{example}: ours − Telegin's = 0 symbolically in every equation: {all(zero)}")
    assert all(zero)

# %% [markdown]
# His equations for example 3 use fewer constants than our base set because of his assumptions
# (symmetric wrist bodies, principal axes): under them our equations reduce to his. Operation counts
# of his printed equations (sin/cos and summed rates counted as abbreviations, like ours):

# %%
from baseparam.codegen import operation_count  # noqa: E402

tau, k, q = telegin_check.telegin_example("ex3_rrrprr")
_, his = telegin_check.telegin_equations("ex3_rrrprr", tau, k, q)
names = {sympy.Symbol(f"K{i}") for i in range(len(k))}
constants = dict(zip(k.values(), names))
trig = {}
his_short = []
for e in his:
    e = e.subs({v: s for v, s in constants.items()})
    for f in sorted(e.atoms(sympy.sin, sympy.cos), key=str):
        trig.setdefault(f, sympy.Symbol(f"t{len(trig)}"))
    his_short.append(e.xreplace(trig))
abbreviations = {s: f for f, s in trig.items()}         # symbol → the sin or cos it stands for
print("Telegin's printed equations:", operation_count(his_short, abbreviations))
print("ours, general bodies:       ", dict(eq3.operation_count), " exported code:", dict(eq3.code_count))
