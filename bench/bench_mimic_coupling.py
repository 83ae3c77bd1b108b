"""What coupling mimic joints would give (issue 27): numeric ranks of public robots with ``<mimic>`` joints
read three ways, the figures a coupled projection (docs/method.md, "Mimic joints") has to reproduce.

``python bench/bench_mimic_coupling.py`` prints, for talos full, romeo, pr2, the panda with its fingers and
alex with its hands, fixed and with a free-flyer root:

* ``lock``: our rank with every mimic joint locked at q = 0 (``mimic='lock'``);
* ``indep``: our rank with every mimic joint a joint of its own (``mimic='independent'``), and pinocchio's
  numeric rank of its default model (``buildModelFromUrdf``, mimic joints independent);
* ``coupled``: the numeric rank of the regressor of the reduced coordinates, q_m = k·q_j + o for every mimic
  joint m of joint j: W(q) = Gᵀ W_full(G q + o, G q̇, G q̈), W_full pinocchio's ``computeJointTorqueRegressor``
  of its default model, G the (n_full × n) map of the velocities (1 on a free joint's own row, k on a mimic
  joint's row in its master's column); stacked over random states, unit columns, singular values above 1e-9 of
  the largest, with the gap at the rank (a clear-cut rank has a gap ≫ 1);
* whether pinocchio's own mimic support (``buildModelFromUrdf(..., mimic=True)``) builds the model and offers
  a regressor of it.

Nothing of the library is timed; random numerics here are the oracle, never the engine's method.

Run (2026-11-27, pinocchio 4.1.0, example-robot-data as installed; the last column cut short):

    robot                  base     mimic  lock  indep  pin indep    coupled (gap)   pin mimic=True
    panda                  fixed        1    47     51         51       48 (5e+14)   builds; regressor refused
    panda                  floating     1    63     67         67       64 (5e+14)   builds; regressor refused
    pr2                    fixed       10   112    182        182      138 (5e+12)   builds; regressor refused
    pr2                    floating    10   147    217        217      173 (3e+12)   builds; regressor refused
    alex_psyonic_hands     fixed        8   211    267          - no master 'index_q1'   not built
    alex_psyonic_hands     floating     8   227    283          - no master 'index_q1'   not built
    talos_full_v2          fixed       12   206    290        290      232 (5e+10)   not built
    talos_full_v2          floating    12   234    318        318      260 (4e+10)   not built
    romeo                  fixed       22   207    361        361      351 (3e+11)   not built
    romeo                  floating    22   241    395        395      385 (3e+11)   not built

("regressor refused": "This algorithm does not support Joint Mimic type in the model"; "not built": "The
parent joint of the mimic joint is not in the kinematic tree".)
"""
from __future__ import annotations

import warnings

import numpy as np

import baseparam as bp

from _scope import scope_line  # noqa: E402 (bench/ is on the path: the script's folder)
from bench_floating_find import example_urdfs, numeric_rank  # noqa: E402

SCOPE = ([], "robots/ has no <mimic> joint (a URDF element); the robots are example-robot-data's")
ROBOTS = ["panda.urdf", "pr2.urdf", "alex_psyonic_hands.urdf", "talos_full_v2.urdf", "romeo.urdf"]


def mimic_joints(path):
    """{mimic joint: (master, multiplier, offset)} as the URDF writes them (defaults 1 and 0)."""
    import xml.etree.ElementTree as ET

    out = {}
    for joint in ET.parse(path).getroot().findall("joint"):
        element = joint.find("mimic")
        if element is not None:
            out[joint.get("name")] = (element.get("joint"), float(element.get("multiplier", 1)),
                                      float(element.get("offset", 0)))
    return out


def coupled_rank(path, floating, seed=0):
    """Numeric rank and gap of Gᵀ W_full(G q + o, G q̇, G q̈) (module notes), and of pinocchio's default model's
    own; (None, the masters missing) when a <mimic> names a joint the file does not have."""
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else \
        pin.buildModelFromUrdf(str(path))
    data, rng = model.createData(), np.random.default_rng(seed)
    mimics = mimic_joints(path)
    names = list(model.names)
    missing = sorted({master for master, _, _ in mimics.values() if master not in names})
    if missing:                          # alex's hands name joints the file does not have ('index_q1')
        return None, missing
    free = [i for i in range(1, model.njoints) if names[i] not in mimics]
    G = np.zeros((model.nv, 0))
    columns = {}
    for i in free:                       # the reduced velocities: every joint but the mimic ones
        joint = model.joints[i]
        columns[names[i]] = G.shape[1]
        block = np.zeros((model.nv, joint.nv))
        block[joint.idx_v:joint.idx_v + joint.nv] = np.eye(joint.nv)
        G = np.c_[G, block]
    for name, (master, k, _) in mimics.items():
        G[model.joints[names.index(name)].idx_v, columns[master]] = k
    full, reduced = [], []
    for _ in range(30 * (model.njoints - 1) // model.nv + 5):
        q = pin.randomConfiguration(model, -np.pi * np.ones(model.nq), np.pi * np.ones(model.nq))
        for name, (master, k, o) in mimics.items():
            joint, of = model.joints[names.index(name)], model.joints[names.index(master)]
            assert joint.nq == of.nq == 1, f"{name}: a continuous mimic joint or master"
            q[joint.idx_q] = k * q[of.idx_q] + o
        v, a = G @ rng.normal(size=G.shape[1]), G @ rng.normal(size=G.shape[1])
        W = pin.computeJointTorqueRegressor(model, data, q, v, a)
        reduced.append(G.T @ W)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        full.append(pin.computeJointTorqueRegressor(model, data, pin.randomConfiguration(
            model, -np.pi * np.ones(model.nq), np.pi * np.ones(model.nq)), v, a).copy())
    return numeric_rank(np.vstack(reduced)), numeric_rank(np.vstack(full))


def pinocchio_mimic_support(path, floating):
    """Whether pinocchio's own mimic support builds the model and gives its regressor (one phrase)."""
    import pinocchio as pin

    try:
        model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer(), mimic=True) if floating else \
            pin.buildModelFromUrdf(str(path), mimic=True)
    except Exception as exc:         # pinocchio raises plain ValueError/RuntimeError
        return f"not built: {str(exc).splitlines()[0][:60]}"
    try:
        pin.computeJointTorqueRegressor(model, model.createData(), pin.neutral(model), np.zeros(model.nv),
                                        np.zeros(model.nv))
    except Exception as exc:
        return f"builds; regressor refused: {str(exc).splitlines()[0][:50]}"
    return "builds; regressor given"


def main():
    print(scope_line(SCOPE))
    found = example_urdfs()
    if not found:
        print("example-robot-data is not installed: nothing to run")
        return
    print(f"{'robot':22s} {'base':8s} {'mimic':>5s} {'lock':>5s} {'indep':>6s} {'pin indep':>10s} "
          f"{'coupled (gap)':>16s}   pin mimic=True")
    for name in ROBOTS:
        if name not in found:
            continue
        path = found[name]
        for floating in (False, True):
            ranks = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for mimic in ("lock", "independent"):
                    robot = bp.load_robot(path, floating=floating, mimic=mimic)
                    ranks[mimic] = bp.find_base_parameters(robot).rank
            coupled, independent = coupled_rank(path, floating)
            if coupled is None:
                coupled_text, independent_text = f"no master {independent[0]!r}", "-"
            else:
                coupled_text, independent_text = f"{coupled[0]:d} ({coupled[1]:5.0e})", f"{independent[0]:d}"
            print(f"{name[:-5]:22s} {'floating' if floating else 'fixed':8s} {len(mimic_joints(path)):5d} "
                  f"{ranks['lock']:5d} {ranks['independent']:6d} {independent_text:>10s} {coupled_text:>16s}   "
                  f"{pinocchio_mimic_support(path, floating)}")


if __name__ == "__main__":
    main()
