"""Symbolic regroupings (issue 26): time of ``find --symbolic`` against the numeric engine, and the cost of the
polynomial arithmetic an in-engine symbolic Z would need (python-flint's fmpq_mpoly against SymPy's polys ring).

    python bench/bench_symbolic.py

Targets (issue 26, this 2-core machine): PUMA 560 with all DH lengths symbolic ≤ 10 s, a 7-DOF arm ≤ 60 s.
"""
import pathlib
import random
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)

SCOPE = (["puma560.yaml", "stanford_arm.yaml", "telegin_rrrprr.yaml", "kuka_iiwa14.yaml", "panda.yaml"],
         "the issue's targets (PUMA 560, a 7-DOF arm) and the arms its tests use; the symbolic path needs "
         "angles that are multiples of 90° (the engine's exact path)")
PUMA_EVERY_LENGTH = ",".join(f"{c}{j}" for j in range(1, 7) for c in "ad")


def _best(f, repeat=3):
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def engines():
    import baseparam as bp
    from baseparam.projection.symbolic import find_symbolic_base_parameters

    cases = [(name, "all") for name in SCOPE[0]] + [("puma560.yaml", PUMA_EVERY_LENGTH)]
    print(f"{'robot':<22} {'symbols':>7} {'rank':>4} {'symbolic s':>10} {'numeric s':>9} {'ratio':>6}  special")
    for name, symbols in cases:
        robot = bp.load_robot(ROOT / "robots" / name)
        t = time.perf_counter()
        sym = find_symbolic_base_parameters(robot, symbols)
        took = time.perf_counter() - t
        numeric = _best(lambda: bp.find_base_parameters(robot))
        label = name if symbols == "all" else name + " (every a, d)"
        print(f"{label:<22} {len(sym.symbols):>7} {sym.rank:>4} {took:>10.2f} {numeric:>9.3f} {took / numeric:>6.0f}  "
              + ("; ".join(s.describe() for s in sym.special) or "none"))


def polynomial_arithmetic(n_symbols=12, terms=20, size=4):
    """A 4×4 matrix product with entries of `terms` random monomials of degree ≤ 2 in 12 symbols: the unit
    operation of a forward recursion carried out on polynomial Z entries."""
    import flint
    from sympy import QQ
    from sympy.polys.rings import ring

    names = tuple(f"x{i}" for i in range(n_symbols))
    rng = random.Random(1)
    monomials = [tuple(rng.choice([0, 0, 0, 1, 2]) if i < 3 else 0 for i in rng.sample(range(n_symbols), n_symbols))
                 for _ in range(terms)]

    def entries(build):
        return [[build({m: rng.randint(-9, 9) for m in rng.sample(monomials, 5)}) for _ in range(size)]
                for _ in range(size)]

    ctx = flint.fmpq_mpoly_ctx.get(names, "lex")
    R, *_ = ring(",".join(names), QQ)
    for label, build in [("python-flint fmpq_mpoly", lambda d: ctx.from_dict(d)),
                         ("SymPy polys ring", lambda d: R.from_dict(d))]:
        A, B = entries(build), entries(build)

        def product():
            return [[sum((A[i][k] * B[k][j] for k in range(size)), build({})) for j in range(size)]
                    for i in range(size)]
        print(f"  {label:<24} {_best(product, 20) * 1e6:8.0f} µs per 4×4 product")


def main():
    print(scope_line(SCOPE))
    sys.stdout.flush()
    engines()
    print("\nPolynomial arithmetic for a symbolic forward recursion (not used: see "
          "baseparam/projection/symbolic.py):")
    polynomial_arithmetic()


if __name__ == "__main__":
    main()
