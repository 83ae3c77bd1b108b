"""HDF5 output: round trip, algebraic identities, and Z's meaning checked against the
independent influence coefficients through the stored row labels."""
import os

import h5py
import numpy as np
import pytest

import baseparam as bp
from baseparam.model.parameters import ColumnLayout
from conftest import ROOT
from independent import influence, random_states


def basis_values(rows, robot, q, qd):
    """Evaluate the basis function of every stored row at states (q, qd).

    Returns
    -------
    ndarray, shape (n_samples, n_rows)
    """
    n = robot.n_dof
    out = np.ones((q.shape[0], rows.shape[0]))
    i, j = rows[:, 0], rows[:, 1]
    for k, joint in enumerate(robot.joints):
        l = rows[:, 2 + k] - 1
        if joint.is_revolute:
            c, s = np.cos(q[:, k:k + 1]), np.sin(q[:, k:k + 1])
            table = np.stack([np.ones_like(c), c, s, c * c, s * c], axis=-1)[:, 0, :]
        else:
            x = q[:, k:k + 1]
            table = np.stack([np.ones_like(x), x, x * x, x * 0, x * 0], axis=-1)[:, 0, :]
        out *= table[:, l]
    kinetic = i > 0
    vel = (np.where(i[None, :] == j[None, :], 0.5, 1.0)
           * qd[:, np.clip(i - 1, 0, n - 1)] * qd[:, np.clip(j - 1, 0, n - 1)])
    out = np.where(kinetic[None, :], out * vel, out)
    out[:, i < 0] = 0.0     # friction rows are not part of L
    return out


def with_offsets(robot):
    joints = tuple(bp.Joint(type=j.type, alpha=j.alpha, a=j.a, d=j.d, theta=j.theta, parent=j.parent,
                            offset=(0.25 * (k + 1) if j.is_revolute else 0.05), rotor_inertia=(k == 1))
                   for k, j in enumerate(robot.joints))
    return bp.Robot(joints, name=robot.name, convention=robot.convention, length_unit=robot.length_unit,
                    angle_unit="rad" if robot.angle_unit == "rad" else robot.angle_unit, gravity=robot.gravity)


@pytest.mark.parametrize("name,parameters", [("puma560.yaml", "pseudo"), ("stanford_arm.yaml", "khalil"),
                                             ("panda.yaml", "pseudo"), ("ppr.yaml", "pseudo"),
                                             ("skew7.yaml", "khalil")])
@pytest.mark.parametrize("offsets", [False, True])
def test_h5_round_trip_and_meaning(tmp_path, name, parameters, offsets):
    robot = bp.load_robot(ROOT / "robots" / name)
    if offsets:
        robot = with_offsets(robot)
    path = tmp_path / "z.h5"
    base = bp.find_and_store(robot, str(path), parameters)
    stored = bp.read_h5(path)
    Z, rows = stored["Z"], stored["rows"]
    assert stored["columns"] == base.standard_names
    np.testing.assert_array_equal(stored["pivots"], base.pivots)
    np.testing.assert_array_equal(stored["Y"], base.Y)
    assert Z.shape == (rows.shape[0], len(base.standard_names))
    assert stored["attrs"]["format"] == "baseparam" and stored["attrs"]["parameters"] == parameters
    assert bp.parse_robot(stored["attrs"]["robot"]).joints == robot.joints or offsets
    # No constant row, no duplicate rows, labels in range.
    assert not np.any((rows[:, 0] == 0) & np.all(rows[:, 2:] == 1, axis=1))
    assert len({tuple(r) for r in rows}) == rows.shape[0]
    assert np.all(rows[:, 0][rows[:, 0] > 0] >= rows[:, 1][rows[:, 0] > 0])
    # Z = Z̃ Y
    dense = Z.toarray()
    np.testing.assert_allclose(dense[:, base.pivots] @ base.Y, dense, atol=1e-9 * np.abs(dense).max())
    # Σ_rows Z[row] b_row(x) equals the influence coefficients, up to the dropped constant.
    rng = np.random.default_rng(3)
    q, qd = random_states(robot, 12, rng)
    layout = ColumnLayout(robot, "pseudo")
    W = influence(robot, layout, q, qd)
    if parameters == "khalil":
        W = W @ np.array([[float(v) for v in row]
                          for row in ColumnLayout(robot, "khalil").pseudo_to_parameterization()])
    L = basis_values(rows, robot, q, qd) @ dense
    np.testing.assert_allclose(L - L[0], W - W[0], atol=1e-9 * np.abs(W).max())


def test_h5_write_is_atomic(tmp_path, monkeypatch):
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    path = tmp_path / "z.h5"
    path.write_bytes(b"previous")
    import baseparam.projection.storage as storage

    def boom(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(storage, "si_block", boom)
    with pytest.raises(KeyboardInterrupt):
        bp.find_and_store(robot, str(path))
    assert path.read_bytes() == b"previous"
    assert os.listdir(tmp_path) == ["z.h5"]


def test_h5_into_missing_directory_is_a_clear_error(tmp_path):
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    with pytest.raises(bp.StorageError, match="cannot write"):
        bp.find_and_store(robot, str(tmp_path / "nope" / "z.h5"))


def test_read_h5_refuses_other_files(tmp_path):
    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as f:
        f["x"] = 1
    with pytest.raises(bp.StorageError):
        bp.read_h5(path)
