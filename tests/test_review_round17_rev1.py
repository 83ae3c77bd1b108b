"""Review of round 17 (branches s16-leftapi and s16-readid): regressions found in the merged work. Each case below
failed before its fix."""
import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT


def test_identification_errors_refuses_every_singular_regressor_not_only_zero_columns():
    """2d009e1 refused a motion leaving a base-regressor column exactly zero (cond = inf, spread 0 as if perfectly
    identified), but a singular W_b of nonzero columns went on: fewer torques than base parameters (one sample of
    the UR10e: 6 rows for 58 parameters) returned cond(W_b) = 6.9 and a median parameter error of 98 %, a joint whose
    velocity is a constant (|q̇| column ∥ sign(q̇) column: cond 6e19) returned figures of fits that least squares
    truncated — min-norm estimates, 0 in the undetermined directions for every trial. The rank least squares finds
    (numpy's lstsq, the fits' own) is checked against base.rank, independent of how cond is estimated."""
    robot = bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")
    base = bp.find_base_parameters(robot)
    p = base.model().values()
    q, qd, qdd = np.random.default_rng(0).uniform(-1, 1, (3, 50, robot.n_dof))
    assert np.linalg.matrix_rank(base.regressor(q[:1], qd[:1], qdd[:1]).reshape(-1, base.rank)) == robot.n_dof
    with pytest.raises(bp.ArgumentError, match=rf"^q, qd, qdd: the motion determines 6 of the {base.rank} base "
                                               rf"parameters \(6 torques for {base.rank} base parameters\): no fit"):
        bp.identification_errors(base, p, q[:1], qd[:1], qdd[:1], 0.1, trials=2)
    steady = qd.copy()
    steady[:, 5] = 1e-3                     # joint 6 at one speed: its viscous and Coulomb columns are parallel
    assert np.linalg.matrix_rank(base.regressor(q, steady, qdd).reshape(-1, base.rank)) < base.rank
    with pytest.raises(bp.ArgumentError, match=rf"^q, qd, qdd: the motion determines \d+ of the {base.rank} base "
                                               r"parameters \(cond\(W_b\) .*: columns told apart only below round-off"):
        bp.identification_errors(base, p, q, steady, qdd, 0.1, trials=2)
    errors = bp.identification_errors(base, p, q, qd, qdd, 0.1, trials=2)          # a motion that excites: figures
    assert np.isfinite(errors.condition_number) and errors.relative_std.min() > 0
