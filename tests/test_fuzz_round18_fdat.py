"""Fuzz round eighteen (issue 28), the URDF reader on random trees: elements in any order, revolute, continuous,
prismatic and fixed joints branching anywhere, axes not of unit length, inertial frames turned by rpy, numbers
spelled with signs and exponents — read as pinocchio reads the same file (its rnea at random states)."""
import math
import random
import warnings

import numpy as np
import pytest

import baseparam as bp
from test_urdf import pin_state

pin = pytest.importorskip("pinocchio")


def spelled(rng, values):
    return "  ".join(rng.choice(["{:.17g}", "{:+.17g}", "{:.17e}"]).format(float(x)) for x in values)


def random_tree(rng):
    """A URDF text of 2 to 6 joints on a random tree, one of them at least moving."""
    links, joints, bodies = ["base"], [], ['<link name="base"/>']
    others = ["revolute", "continuous", "prismatic", "fixed"]
    kinds = ["revolute"] + [rng.choice(others) for _ in range(rng.randint(1, 5))]
    for i, kind in enumerate(kinds):
        parent, child = rng.choice(links), f"l{i}"
        links.append(child)
        axis = [rng.choice([0, 1, -1, rng.uniform(-2, 2)]) for _ in range(3)] if kind != "fixed" else [0, 0, 1]
        if not any(axis):
            axis[2] = 1
        rpy = [rng.choice([0, math.pi / 2, -math.pi, rng.uniform(-4, 4)]) for _ in range(3)]
        origin = f'<origin xyz="{spelled(rng, [rng.uniform(-1, 1) for _ in range(3)])}" rpy="{spelled(rng, rpy)}"/>'
        limit = '<limit lower="-3" upper="3" effort="10" velocity="3"/>' if kind in ("revolute", "prismatic") else ""
        joints.append(f'<joint name="j{i}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>{origin}'
                      f'<axis xyz="{spelled(rng, axis)}"/>{limit}</joint>')
        A = np.array([[rng.gauss(0, 1) for _ in range(3)] for _ in range(3)])
        inertia = A @ A.T + 0.1 * np.eye(3)
        bodies.append(f'<link name="{child}"><inertial>'
                      f'<origin xyz="{spelled(rng, [rng.uniform(-.3, .3) for _ in range(3)])}" '
                      f'rpy="{spelled(rng, [rng.uniform(-3, 3) for _ in range(3)])}"/>'
                      f'<mass value="{rng.uniform(0.1, 3):.17g}"/><inertia '
                      + " ".join(f'i{a}{b}="{inertia[i, j]:.17g}"' for (i, a), (j, b)
                                 in [((0, "x"), (0, "x")), ((0, "x"), (1, "y")), ((0, "x"), (2, "z")),
                                     ((1, "y"), (1, "y")), ((1, "y"), (2, "z")), ((2, "z"), (2, "z"))])
                      + "/></inertial></link>")
    items = bodies + joints
    rng.shuffle(items)                                   # a URDF's elements may stand in any order
    return '<?xml version="1.0"?>\n<robot name="r">' + "\n".join(items) + "</robot>\n"


@pytest.mark.parametrize("seed", range(6))
def test_a_random_urdf_tree_is_read_as_pinocchio_reads_it(tmp_path, seed):
    path = tmp_path / "tree.urdf"
    path.write_text(random_tree(random.Random(seed)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(path, exact_angles=False)
    model = pin.buildModelFromUrdf(str(path))
    assert model.nv == robot.n_dof
    states = np.random.default_rng(seed)
    q, qd, qdd = (states.uniform(-2, 2, (3, robot.n_dof)) for _ in range(3))
    tau = bp.inverse_dynamics(bp.Model(robot, bp.standard_parameters(robot)), q, qd, qdd)
    data = model.createData()
    for s in range(len(q)):
        qp, vp, ap, order = pin_state(model, robot, q[s], qd[s], qdd[s])
        ref = pin.rnea(model, data, qp, vp, ap)[order]
        np.testing.assert_allclose(tau[s], ref, rtol=0, atol=1e-9 * max(1.0, np.abs(ref).max()))
