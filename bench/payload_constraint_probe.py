"""Can the pseudo-inertia constraint (or a prior) shrink the inertia's spread in issue 25's open cases?

``python bench/payload_constraint_probe.py``

The open cases (LWR4+ 0.75/1 kg, UR10e 1/1.5 kg) miss 3σ_I ≤ 10 % λmax with the fit's σ_I (its largest element,
as % of λmax) at 25.0/15.5 and 25.3/12.9 % for 3σ (bench_payload.py's last verdicts, stop 38 notes). A fit that
keeps the estimate physically consistent (the pseudo-inertia's second-moment block Σ = tr(I)/2·1 − I ⪰ 0, i.e.
the triangle inequalities) can only move the estimate when the constraint is within a few σ of the truth. For
the bench's boxes (sides ∝ 1.4 : 1.0 : 0.7, every turn alike) the smallest second moment is a fixed share of
λmax; this prints that margin in σ, and a Monte Carlo (isotropic Gaussian errors of σ on the six elements, a
simplification of the fit's covariance) of the projected estimate (Σ's eigenvalues clipped at 0): its largest
element standard deviation relative to σ. Then the prior a Gaussian Bayesian fit would need: the prior's 3σ as %
of λmax for a posterior meeting 10 %.

Result (2026-11-28, seed 0, 20 000 draws; the max over six elements' sample std, so ≥ 1 by sampling noise):

    case          3σ_I %λmax  margin(σ)  bound draws  σ_proj/σ  prior 3σ needed (%λmax)
    LWR4+ 0.75 kg        25.0       1.99         5.1%     1.005      10.9
    LWR4+ 1.00 kg        15.5       3.20         0.1%     1.005      13.1
    UR10e 1.00 kg        25.3       1.96         5.6%     1.003      10.9
    UR10e 1.50 kg        12.9       3.85         0.0%     1.004      15.8

The smallest second moment of these boxes is 16.5 % of λmax, 2–3.9 σ_I from the truth: the constraint binds in
0–5.6 % of fits and leaves the largest element's spread unchanged (even a truth on the boundary would shrink one
direction by at most √(1 − 2/π) = 0.60×, while the cases need 0.40–0.78× on the largest element). A Gaussian prior
closes the cases only if it alone already knows the inertia to 11–16 % of λmax (3σ), about the target itself:
not information a user has about an unknown payload.

The Bayesian fit with a flat prior on the consistent set (``flat_prior``: 200 000 draws of the Gaussian likelihood
kept where Σ ⪰ 0; the estimate at the truth or moved 1–2 σ toward the boundary along Σ's smallest direction):
the largest element's posterior σ is 0.983–1.002× the fit's (LWR4+ 0.75 kg 0.993/0.991/0.986, 1 kg
1.000/0.997/1.000, UR10e 1 kg 0.997/0.989/0.983, 1.5 kg 1.002/1.001/0.998 at 0/1/2 σ). The constraint cuts one
direction (Σ's smallest eigenvalue), not the element whose σ sets the verdict. Dead end for the estimator; the
gap stays the motion's (the fit is already noise-weighted and at 0.93–1.22× its motion's CRB).
"""
import numpy as np

from _scope import scope_line
from bench_payload import box_payload

# no robot model is run: the cases' σ_I are bench_payload.py's figures for its two arms
SCOPE = ([], "no robot is simulated: the open cases' σ_I are bench_payload.py's figures for its LWR4+ and UR10e")

OPEN = {("LWR4+", 0.75): 25.0, ("LWR4+", 1.0): 15.5, ("UR10e", 1.0): 25.3, ("UR10e", 1.5): 12.9}
DRAWS = 20000


def second_moments(inertia):
    return np.trace(inertia) / 2 * np.eye(3) - inertia


def projected(inertia):
    """The nearest (in Σ's Frobenius norm) inertia whose second-moment block is positive semidefinite."""
    w, v = np.linalg.eigh(second_moments(inertia))
    sigma = (v * np.clip(w, 0.0, None)) @ v.T
    return np.trace(sigma) * np.eye(3) - sigma


def flat_prior(inertia, sigma, rng, shift=0.0, draws=200000):
    """Largest element's posterior σ / sigma under a flat prior on {Σ ⪰ 0}, the estimate the truth with Σ's
    smallest eigenvalue moved down by shift·sigma; returns (accepted share, ratio)."""
    w, v = np.linalg.eigh(second_moments(inertia))
    sig = second_moments(inertia) - shift * sigma * np.outer(v[:, 0], v[:, 0])
    estimate = np.trace(sig) * np.eye(3) - sig
    e = rng.normal(size=(draws, 3, 3)) * sigma
    e = np.triu(e) + np.transpose(np.triu(e, 1), (0, 2, 1))
    x = estimate + e
    traces = np.trace(x, axis1=1, axis2=2)[:, None, None] / 2
    ok = np.linalg.eigvalsh(traces * np.eye(3) - x)[:, 0] >= 0
    iu = np.triu_indices(3)
    return ok.mean(), x[ok][:, iu[0], iu[1]].std(0).max() / sigma


def main():
    print(scope_line(SCOPE))
    rng = np.random.default_rng(0)
    iu = np.triu_indices(3)
    print("case          3σ_I %λmax  margin(σ)  bound draws  σ_proj/σ  prior 3σ needed (%λmax)")
    for (robot, m), pct in OPEN.items():
        _, _, inertia = box_payload(m, np.random.default_rng(1000))
        lam = np.linalg.eigvalsh(inertia).max()
        sigma = pct / 300 * lam
        margin = np.linalg.eigvalsh(second_moments(inertia)).min() / sigma
        fits, moved = [], 0
        for _ in range(DRAWS):
            e = rng.normal(size=(3, 3)) * sigma
            e = np.triu(e) + np.triu(e, 1).T
            est = inertia + e
            proj = projected(est)
            moved += not np.allclose(proj, est)
            fits.append(proj[iu])
        ratio = np.std(fits, axis=0).max() / sigma
        want = 10 / 3
        need = (1 / want ** 2 - 1 / (pct / 3) ** 2) ** -0.5 * 3
        print(f"{robot} {m:4.2f} kg  {pct:10.1f}  {margin:9.2f}  {moved / DRAWS:11.1%}  {ratio:8.3f}  {need:8.1f}")
        for shift in (0.0, 1.0, 2.0):
            kept, post = flat_prior(inertia, sigma, rng, shift)
            print(f"    flat prior, estimate {shift:.0f}σ toward the boundary: kept {kept:.3f}, "
                  f"posterior σ/σ {post:.3f}")


if __name__ == "__main__":
    main()
