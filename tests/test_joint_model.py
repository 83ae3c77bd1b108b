"""The one joint model A(q) = C · M(q + offset) · C′ against the DH definition written out
independently (tests/pin_model.py), its steps against the factors, and find_and_store computing Z
once."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from baseparam.model.joint_model import Factor, JointModel, factor_matrix, joint_models, motion_offsets, product
from baseparam.projection import _coordinates, storage
from baseparam.projection._joint_basis import coefficient_matrices
from conftest import ROBOT_FILES, ROOT
from pin_model import dh_transform


def with_offsets(robot, rng):
    joints = tuple(bp.Joint(type=j.type, alpha=j.alpha, a=j.a, d=j.d, theta=j.theta, parent=j.parent,
                            offset=float(rng.uniform(-1, 1)) * (30 if robot.angle_unit == "deg" or not j.is_revolute
                                                                 else 0.5))
                   for j in robot.joints)
    return bp.Robot(joints, name=robot.name, convention=robot.convention, length_unit=robot.length_unit,
                    angle_unit=robot.angle_unit, gravity=robot.gravity)


def si_readers(robot):
    return (lambda v: float(v) * robot.length_scale,
            lambda v: (np.cos(v * robot.angle_scale), np.sin(v * robot.angle_scale)))


def model_transform(robot, model, q):
    """A(q) from the joint model's factors, the motion evaluated at q + offset."""
    length, cos_sin = si_readers(robot)
    motion = Factor(model.motion.kind, model.motion.axis, 0.0)
    m = factor_matrix(motion, lambda v: q, lambda v: (np.cos(q), np.sin(q)))
    offset = factor_matrix(Factor(model.motion.kind, model.motion.axis, model.offset), length, cos_sin)
    return product(model.before, length, cos_sin) @ m @ offset @ product(model.after, length, cos_sin)


def step_transform(robot, model, q):
    """A(q) composed from the model's steps T(P)·R."""
    length, _ = si_readers(robot)
    steps, moving = model.steps()
    out = np.eye(4)
    for step in steps:
        T = np.eye(4)
        for f in step.shift:
            T[f.index, 3] += q + to_offset(robot, model) if f.variable else length(f.value)
        if step.rotation is not None:
            r = step.rotation
            angle = q + to_offset(robot, model) if r.variable else r.value * robot.angle_scale
            T = T @ factor_matrix(Factor("rotation", r.axis, angle), length, lambda v: (np.cos(v), np.sin(v)))
        out = out @ T
    return out, steps, moving


def to_offset(robot, model):
    return model.offset * (robot.angle_scale if model.is_revolute else robot.length_scale)


@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_joint_model_is_the_dh_transform(path):
    rng = np.random.default_rng(7)
    robot = with_offsets(bp.load_robot(path), rng)
    for j, model, (alpha, a, d, theta, off) in zip(robot.joints, joint_models(robot), robot.dh_si()):
        for q in rng.uniform(-2, 2, 3):
            expected = dh_transform(robot.convention, j.is_revolute, alpha, a, d, theta, off, q)
            np.testing.assert_allclose(model_transform(robot, model, q), expected, atol=1e-12)
            composed, steps, moving = step_transform(robot, model, q)
            np.testing.assert_allclose(composed, expected, atol=1e-12)
            # the moving step ends in the joint frame: its z axis is the joint's axis in the parent
            # frame, whatever the convention (the steps before it are constant)
            before = np.eye(4)
            for st in steps[:moving]:
                T = np.eye(4)
                for f in st.shift:
                    T[f.index, 3] += f.value * robot.length_scale
                if st.rotation is not None:
                    T = T @ factor_matrix(st.rotation, None, lambda v: (np.cos(v * robot.angle_scale),
                                                                       np.sin(v * robot.angle_scale)))
                before = before @ T
            axis_dh = np.eye(4) if robot.convention == "standard" else dh_transform(
                "modified", True, alpha, a, 0.0, 0.0, 0.0, 0.0)
            np.testing.assert_allclose(before[:3, 2], axis_dh[:3, 2], atol=1e-12)
    assert motion_offsets(robot) == tuple(float(x) for x in robot.dh_si()[:, 4])


def test_coefficient_matrices_reproduce_the_transform_and_its_derivative():
    robot = bp.load_robot(ROOT / "robots" / "stanford_arm.yaml")   # revolute and prismatic joints
    length, cos_sin = si_readers(robot)
    rng = np.random.default_rng(1)
    for j, model, (alpha, a, d, theta, off) in zip(robot.joints, joint_models(robot), robot.dh_si()):
        A, B = coefficient_matrices(model, length, cos_sin)
        for q in rng.uniform(-2, 2, 3):
            x = np.array([1.0, np.cos(q), np.sin(q)]) if j.is_revolute else np.array([1.0, q])
            expected = dh_transform(robot.convention, j.is_revolute, alpha, a, d, theta, off, q)
            h = 1e-6
            slope = (dh_transform(robot.convention, j.is_revolute, alpha, a, d, theta, off, q + h)
                     - dh_transform(robot.convention, j.is_revolute, alpha, a, d, theta, off, q - h)) / (2 * h)
            np.testing.assert_allclose(np.tensordot(x, A, 1), expected, atol=1e-12)
            np.testing.assert_allclose(np.tensordot(x, B, 1), slope, atol=1e-8)


def test_a_sliding_motion_ends_its_step_before_a_rotation():
    # a prismatic motion followed by a rotation (as a URDF axis conjugation will be): the joint
    # frame must stay the frame right after the motion
    model = JointModel("prismatic", (), Factor("translation", "z", 0.0, variable=True),
                       (Factor("rotation", "x", 90.0),))
    steps, moving = model.steps()
    assert moving == 0 and steps[0].rotation is None and len(steps) == 2


@pytest.mark.parametrize("name,offsets", [("puma560.yaml", False), ("ppr.yaml", True), ("stanford_arm.yaml", False),
                                          ("skew7.yaml", False)])
def test_find_and_store_computes_z_once(tmp_path, monkeypatch, name, offsets):
    """--h5 streams each block of Z once; the base set itself needs no block of Z (a basis of its row
    space serves), and is the same with and without the file."""
    robot = bp.load_robot(ROOT / "robots" / name)
    calls = []
    original = _coordinates.kinetic_blocks

    def counting(*args, **kwargs):
        calls.append(args[3])
        return original(*args, **kwargs)
    monkeypatch.setattr(_coordinates, "kinetic_blocks", counting)
    assert (not offsets) or any(j.offset for j in robot.joints)
    base = storage.find_and_store(robot, tmp_path / "z.h5")
    assert sorted(calls) == list(range(robot.n_dof))          # one block per chain start, once
    calls.clear()
    plain = bp.find_base_parameters(robot)
    assert calls == []
    np.testing.assert_array_equal(base.pivots, plain.pivots)
    np.testing.assert_array_equal(base.Y, plain.Y)
    assert base.note == plain.note and base.Y_display == plain.Y_display
    stored = bp.read_h5(tmp_path / "z.h5")
    np.testing.assert_array_equal(stored["Y"], base.Y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = bp.find_base_parameters(robot, h5=str(tmp_path / "old.h5"))
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    again = bp.read_h5(tmp_path / "old.h5")
    assert (again["Z"] != stored["Z"]).nnz == 0
    np.testing.assert_array_equal(again["rows"], stored["rows"])
    np.testing.assert_array_equal(old.Y, base.Y)
