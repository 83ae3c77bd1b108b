"""Fuzz round 23 (issue 28), the lead's own finds.

- KUKA's load data (A, B, C and JX, JY, JZ) took the principal axes in eigh's ascending order: a tool whose
  smallest moment is about the flange's z axis (a rod along it) came out at B = −90°, where Rz(A)·Ry(B)·Rx(C)
  cannot tell A from C, and A = C = 0 was written: another tensor, read by a controller without a word
  (158 of 1 500 axis-aligned tensors). The axes are now those nearest the flange frame.
"""
import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation

from baseparam.identification.payload import PayloadResult, payload_parameters

PSEUDO = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")


def _result(inertia):
    c = np.array([0.01, -0.02, 0.08])
    p = payload_parameters(1.2, c, inertia)
    return PayloadResult(mass=1.2, com=c, inertia=inertia, mass_std=0.0, com_std=np.zeros(3),
                         inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p, covariance=np.zeros((10, 10)),
                         identifiable=list(PSEUDO), rank=10, mode="model", n_samples=1, rmse=np.zeros(6))


def _kuka_tensor(k):
    """The tensor KUKA's numbers describe, through pinocchio's rotations (R = Rz(A) Ry(B) Rx(C))."""
    A, B, C = np.radians([k["A"], k["B"], k["C"]])
    R = pin.rpy.rpyToMatrix(0, 0, A) @ pin.rpy.rpyToMatrix(0, B, 0) @ pin.rpy.rpyToMatrix(C, 0, 0)
    return R @ np.diag([k["JX"], k["JY"], k["JZ"]]) @ R.T


ROD_ALONG_Z = np.diag([0.004, 0.0045, 0.0005])          # the smallest moment about the flange's z axis


@pytest.mark.parametrize("case", range(40))
def test_kuka_load_data_give_the_tensor_back(case):
    rng = np.random.default_rng(case)
    # principal moments of a body (second moments d: each moment the sum of two, so the triangle inequality holds):
    # a PayloadResult refuses an inertia no body has since round 23 (lapi2)
    d = rng.uniform(5e-5, 5e-3, 3)
    moments = d.sum() - d
    if case == 0:
        inertia = ROD_ALONG_Z
    elif case < 20:         # axes along the flange's, in any order and sign: eigh's order put some at B = ±90°
        P = np.eye(3)[rng.permutation(3)] * rng.choice([-1.0, 1.0], 3)
        inertia = P @ np.diag(moments) @ P.T
    else:
        R = Rotation.random(random_state=case).as_matrix()
        inertia = R @ np.diag(moments) @ R.T
    k = _result(inertia).to_vendor("kuka")
    assert np.allclose(_kuka_tensor(k), inertia, rtol=0, atol=1e-12 * np.abs(inertia).max())
    assert abs(k["B"]) < 70.0                   # the nearest axes: never near the ±90° of no A and C


def test_a_tool_with_the_flange_axes_has_no_rotation():
    k = _result(ROD_ALONG_Z).to_vendor("kuka")
    assert (k["A"], k["B"], k["C"]) == (0.0, 0.0, 0.0)
    assert (k["JX"], k["JY"], k["JZ"]) == (0.004, 0.0045, 0.0005)
