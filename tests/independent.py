"""Independent numerical reference: the Lagrangian's influence coefficients at given states.

Written without any of the engine's machinery: forward kinematics by plain DH matrix products
and velocities by complex-step differentiation (exact to round-off), so agreement with the
projection engine is evidence, not a tautology.
"""
import numpy as np

PSEUDO = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")


def _rz(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=complex)


def _rx(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]], dtype=complex)


def _tr(x=0.0, z=0.0):
    m = np.eye(4, dtype=complex)
    m[0, 3], m[2, 3] = x, z
    return m


def link_frames(robot, q):
    """T_1 … T_N (complex-valued to allow complex steps). q : (n_dof,) complex."""
    dh = robot.dh_si()
    out = []
    for k, joint in enumerate(robot.joints):
        alpha, a, d, theta, off = dh[k]
        th, dd = (q[k] + off, d) if joint.is_revolute else (theta, q[k] + off)
        if robot.convention == "standard":
            A = _rz(th) @ _tr(z=dd) @ _tr(x=a) @ _rx(alpha)
        else:
            A = _rx(alpha) @ _tr(x=a) @ _rz(th) @ _tr(z=dd)
        out.append((out[joint.parent - 1] if joint.parent else np.eye(4, dtype=complex)) @ A)
    return out


def influence(robot, layout, q, qd):
    """w_L at each state, columns in ``layout`` order (pseudo parameters, IA; friction left 0).

    Returns
    -------
    ndarray, shape (n_samples, layout.n_standard)
    """
    h = 1e-30
    g = np.append(robot.gravity_si, 0.0)
    out = np.zeros((q.shape[0], layout.n_standard))
    for s in range(q.shape[0]):
        frames = link_frames(robot, q[s] + 1j * h * qd[s])
        for k, T in enumerate(frames):
            V = T.imag / h                      # Ṫ_k
            P = T.real
            v = [V[:, c] for c in range(4)]
            kin = [0.5 * v[0] @ v[0], 0.5 * v[1] @ v[1], 0.5 * v[2] @ v[2], v[0] @ v[1], v[0] @ v[2],
                   v[1] @ v[2], v[0] @ v[3], v[1] @ v[3], v[2] @ v[3], 0.5 * v[3] @ v[3]]
            pot = g @ P                          # −Π coefficients for SX SY SZ M
            vals = np.array(kin)
            vals[6:] += pot
            out[s, layout.link_columns[k]] = vals
        for joint, col in layout.rotor_columns.items():
            out[s, col] = 0.5 * qd[s, joint] ** 2
    return out


def random_states(robot, n, rng):
    q = rng.uniform(-np.pi, np.pi, (n, robot.n_dof))
    qd = rng.uniform(-2, 2, (n, robot.n_dof))
    return q, qd


def numeric_rank(M, rtol=1e-9):
    norms = np.linalg.norm(M, axis=0)
    keep = norms > 1e-10 * norms.max()   # round-off columns are zero columns
    s = np.linalg.svd(M[:, keep] / norms[keep], compute_uv=False)
    return int((s > rtol * s[0]).sum()) if s.size else 0
