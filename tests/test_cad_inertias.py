"""The CAD inertias in robots/kuka_lwr4.yaml, kuka_lwr4_cad.yaml and ur10e.yaml are the URDFs' <inertial> bodies.

Independent of baseparam's kinematics and URDF reader: pinocchio reads the URDF (fixed links merged
into their joint's body, as baseparam does) and places each body in the world; the DH frames come
from plain DH products (tests/independent.py). At random configurations, each link's mass, centre of
mass and inertia tensor, expressed in the DH base frame, must agree.
"""
import numpy as np
import pytest

import baseparam as bp
from conftest import DATA, ROOT, needs_data
from independent import link_frames

pin = pytest.importorskip("pinocchio")
pytestmark = needs_data


@pytest.mark.parametrize("yaml, urdf, base_frame", [("kuka_lwr4.yaml", "kuka_lwr4/kuka_lwr4.urdf", "lwr_base_link"),
                                                    ("kuka_lwr4_cad.yaml", "kuka_lwr4/kuka_lwr4.urdf", "lwr_base_link"),
                                                    ("ur10e.yaml", "ur10e/ur10e.urdf", "base")])
def test_yaml_bodies_are_the_urdf_bodies(yaml, urdf, base_frame):
    robot = bp.load_robot(ROOT / "robots" / yaml)
    model = pin.buildModelFromUrdf(str(DATA / urdf))
    data = model.createData()
    assert model.nq == robot.n_dof
    base = model.getFrameId(base_frame)
    rng = np.random.default_rng(0)
    for _ in range(3):
        q = rng.uniform(-2.5, 2.5, robot.n_dof)
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        B = data.oMf[base].inverse()                      # world → the DH base frame
        frames = link_frames(robot, q)
        for k, joint in enumerate(robot.joints):
            body = model.inertias[k + 1]
            place = B * data.oMi[k + 1]
            com_pin = place.act(body.lever)
            I_pin = place.rotation @ body.inertia @ place.rotation.T
            F = frames[k].real
            com_yaml = F[:3, :3] @ joint.inertia.com + F[:3, 3]
            I_yaml = F[:3, :3] @ joint.inertia.inertia @ F[:3, :3].T
            assert joint.inertia.mass == pytest.approx(body.mass, rel=1e-12)
            np.testing.assert_allclose(com_yaml, com_pin, atol=1e-9)
            np.testing.assert_allclose(I_yaml, I_pin, atol=1e-9)


def test_kuka_true_friction_is_the_urdfs_dynamics():
    """robots/kuka_lwr4_cad.yaml: viscous = <dynamics damping>, Coulomb = <dynamics friction>, offset 0,
    joint by joint in the URDF's order (read here with ElementTree, not baseparam's reader)."""
    import xml.etree.ElementTree as ET
    root = ET.parse(DATA / "kuka_lwr4" / "kuka_lwr4.urdf").getroot()
    dynamics = [j.find("dynamics") for j in root.iter("joint") if j.get("type") in ("revolute", "continuous")]
    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4_cad.yaml")
    assert [j.friction for j in robot.joints] == [(float(d.get("damping")), float(d.get("friction")), 0.0)
                                                  for d in dynamics]
