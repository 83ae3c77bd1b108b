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
    for n in (0, 1):        # none: every column was said unexcited; one: cond 6.9 and figures returned
        with pytest.raises(bp.ArgumentError, match=rf"^q, qd, qdd: {n} samples? of 6 joints: {6 * n} torques for "
                                                   rf"{base.rank} base parameters: no fit determines them all"):
            bp.identification_errors(base, p, q[:n], qd[:n], qdd[:n], 0.1, trials=2)
    steady = qd.copy()
    steady[:, 5] = 1e-3                     # joint 6 at one speed: its viscous and Coulomb columns are parallel
    assert np.linalg.matrix_rank(base.regressor(q, steady, qdd).reshape(-1, base.rank)) < base.rank
    with pytest.raises(bp.ArgumentError, match=rf"^q, qd, qdd: the motion determines \d+ of the {base.rank} base "
                                               r"parameters \(cond\(W_b\) .*: columns told apart only below round-off"):
        bp.identification_errors(base, p, q, steady, qdd, 0.1, trials=2)
    errors = bp.identification_errors(base, p, q, qd, qdd, 0.1, trials=2)          # a motion that excites: figures
    assert np.isfinite(errors.condition_number) and errors.relative_std.min() > 0


def test_a_regressor_bound_after_its_init_pickles_and_copies_on_its_own_buffers():
    """780cbd6 carried as pickle's state every attribute ``Regressor.__init__`` had not set: a Regressor that binds
    the C loop later (built with native=False after another compiled the kernel, bound at its first call) carried its
    memoryviews and ctypes pointers — pickle and deepcopy raised TypeError (cannot pickle memoryview), and copy.copy
    shared the original's buffers under its own lock, so two threads on the original and its copy wrote into one
    buffer. Both worked before 780cbd6 (a fresh object of the same model)."""
    import copy
    import pickle

    model = bp.Model(bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml"))
    if bp.Regressor(model).backend != "c":
        pytest.skip("no C compiler: nothing is bound")
    late = bp.Regressor(model, native=False)
    q = np.full(model.robot.n_dof, 0.1)
    expected = bp.regressor(model, q, q, q)
    assert np.array_equal(late(q, q, q), expected) and late.backend == "c"        # bound at this call
    for twin in (pickle.loads(pickle.dumps(late)), copy.copy(late), copy.deepcopy(late)):
        assert twin._buffer is not late._buffer and twin._out is not late._out
        assert np.array_equal(twin(2 * q, q, q), bp.regressor(model, 2 * q, q, q))
        assert np.array_equal(late(q, q, q), expected)


@pytest.mark.parametrize("call, words", [
    (lambda: bp.Metrics.compare(np.ones((5, 2)), np.where(np.eye(5, 3) > 0, np.nan, 1.0)),
     r"^predicted, t: expected shapes \(5, 2\) and \(5,\) as tau's, got \(5, 3\) and None$"),
    (lambda: bp.Metrics.from_residuals([1.0, 2.0], [np.nan, 1.0, 1.0], 3),
     r"^e2, t2: expected sums of squares \(≥ 0\) of one shape, got shapes \(2,\) and \(3,\)$"),
])
def test_metrics_look_at_the_shapes_before_the_values(call, words):
    """b292640 put the shape before the values in nrmse and fit_errors (a NaN among values of the wrong shape was said
    as the NaN); Metrics.compare and Metrics.from_residuals, beside them, still scanned the values first: predictions
    of 3 joints against torques of 2 were 'predicted: ... with NaN or inf', sums of 2 and 3 joints 't2: ... NaN'. As
    in fit_errors, the second argument's shape is checked against the first before its values."""
    with pytest.raises(bp.ArgumentError, match=words):
        call()


def test_torque_units_given_as_any_iterable_of_str_are_taken():
    """plot_torques' units were read by list() (any iterable of str) until stop 41's check took lists and tuples
    only; 6efd39f let a 1-D array through again, but a generator over the joints (the natural way to write a robot's
    units) and a pandas Series still were an ArgumentTypeError. Any iterable of str is taken, n + 1 of its items read
    at most (an endless iterator is refused, not read to its end); a str, numbers and a 2-D array still refused."""
    pytest.importorskip("matplotlib")
    from baseparam.identification.plots import plot_torques

    tau = np.arange(30.0).reshape(10, 3)
    metrics = bp.Metrics.compare(tau, tau + 0.5)
    revolute = (True, False, True)
    fig = plot_torques(metrics, units=("N·m" if r else "N" for r in revolute))
    assert [ax.get_ylabel() for ax in fig.axes] == ["τ1 [N·m]", "τ2 [N]", "τ3 [N·m]"]
    with pytest.raises(bp.ArgumentError, match=r"^units: expected 3 unit names \(one per joint\), got more$"):
        plot_torques(metrics, units=iter(lambda: "N", None))                # endless
    for units in ("N·m", [1.0, 2.0, 3.0], np.full((1, 3), "N")):
        with pytest.raises(bp.ArgumentTypeError, match=r"^units: expected a list of 3 unit names \(str\)"):
            plot_torques(metrics, units=units)


def test_the_h5_deprecation_names_the_public_replacement(tmp_path):
    """c670fed moved find_base_parameters(h5=)'s warning to _warnings.deprecated_call and kept its replacement as
    the internal module path baseparam.projection.storage.find_and_store, while the base set's warnings of the same
    commit name public calls (bp.…): the public name, bp.find_and_store, is the one to use."""
    pytest.importorskip("h5py")
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    words = (r"^find_base_parameters\(h5=\.\.\.\) is deprecated and will be removed in the next release: use "
             r"bp\.find_and_store\(robot, path, parameters\)$")
    with pytest.warns(DeprecationWarning, match=words):
        base = bp.find_base_parameters(robot, h5=tmp_path / "z.h5")
    assert base.rank == bp.find_base_parameters(robot).rank
