"""Base parameters of floating-base trees (issue 27, deliverable 1), against pinocchio's free-flyer regressor.

* ranks equal the numeric rank of pinocchio's ``computeJointTorqueRegressor`` stacked over random states,
  the model built by pinocchio itself from public humanoid and quadruped URDFs with a
  ``JointModelFreeFlyer`` root (our ``--floating``), and on the space robot;
* the regroupings reproduce pinocchio's regressor, W = W[:, pivots] · Y (so standard parameters in the null
  space of Y do nothing), in both parameterizations, with gravity, a tree and a prismatic joint;
* which base parameters the six base equations alone see, against the rank of pinocchio's base rows;
* ``--floating`` and its bad combinations, the text and JSON outputs.
"""
import json
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.model.parameters import ColumnLayout
from conftest import ROOT
from test_floating_base import URDF as SATELLITE
from test_urdf import EXAMPLES

pin = pytest.importorskip("pinocchio")
from pin_model import build_model, link_map, split_factors  # noqa: E402  (needs pinocchio)

SPACE = ROOT / "robots" / "space_robot.yaml"
needs_examples = pytest.mark.skipif(not EXAMPLES, reason="example-robot-data is not installed")


def quiet_load(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bp.load_robot(path, **options)


def numeric_rank(W):
    """Numeric rank of a stacked regressor (unit columns, zero columns out) and the gap at it."""
    norms = np.linalg.norm(W, axis=0)
    W = W[:, norms > 1e-12 * norms.max()]
    s = np.linalg.svd(W / np.linalg.norm(W, axis=0), compute_uv=False)
    rank = int((s > s[0] * 1e-9).sum())
    return rank, (s[rank - 1] / s[rank] if rank < s.size else np.inf)


def random_q(model, rng):
    return pin.randomConfiguration(model, -np.pi * np.ones(model.nq), np.pi * np.ones(model.nq))


def pinocchio_rank(path, seed=0):
    """pinocchio's own model of the URDF with a free-flyer root: the numeric rank of its stacked regressor."""
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    data, rng = model.createData(), np.random.default_rng(seed)
    n_samples = 30 * (model.njoints - 1) // model.nv + 5
    W = np.vstack([pin.computeJointTorqueRegressor(model, data, random_q(model, rng), rng.normal(size=model.nv),
                                                   rng.normal(size=model.nv)).copy() for _ in range(n_samples)])
    return numeric_rank(W)


def regressor_in_our_columns(robot, parameters="pseudo", n_samples=None, seed=1):
    """pinocchio's free-flyer regressor of the robot (its kinematics rebuilt by pin_model) in our column order,
    rotor inertia and friction columns added by hand on the joint rows; stacked (rows, n_standard) and the
    base rows alone."""
    model, _ = build_model(robot)
    data, rng = model.createData(), np.random.default_rng(seed)
    layout = ColumnLayout(robot, parameters)
    maps = [link_map(np.eye(4), parameters)] + [link_map(Cp, parameters) for _, Cp in split_factors(robot)]
    n = robot.n_dof
    n_samples = n_samples or 3 * layout.n_standard // (6 + n) + 5
    rows = []
    for _ in range(n_samples):
        q, v, a = random_q(model, rng), rng.normal(size=model.nv), rng.normal(size=model.nv)
        Wp = pin.computeJointTorqueRegressor(model, data, q, v, a)
        W = np.zeros((model.nv, layout.n_standard))
        W[:, layout.base_columns] = Wp[:, :10] @ maps[0]
        for k in range(n):
            W[:, layout.link_columns[k]] = Wp[:, 10 * (k + 1):10 * (k + 2)] @ maps[k + 1]
            if k in layout.rotor_columns:
                W[6 + k, layout.rotor_columns[k]] = a[6 + k]
        for (k, kind), c in layout.friction_columns.items():
            W[6 + k, c] = {"FV": v[6 + k], "FC": np.sign(v[6 + k]), "FO": 1.0}[kind]
        rows.append(W)
    W = np.vstack(rows)
    base_rows = np.concatenate([np.arange(6) + s * model.nv for s in range(n_samples)])
    return W, W[base_rows]


def check_regroupings(base, W):
    """The regroupings reproduce the regressor (W = W_b · Y), and the null space of Y does nothing."""
    scale = np.abs(W).max()
    np.testing.assert_allclose(W[:, base.pivots] @ base.Y, W, atol=1e-9 * scale)
    null = np.linalg.svd(base.Y)[2][base.rank:]
    p = null.T @ np.random.default_rng(5).normal(size=null.shape[0])
    assert np.abs(W @ p).max() <= 1e-9 * scale * np.abs(p).max()


# -- ranks against pinocchio's own reading of public URDFs ---------------------------------------------------------
@needs_examples
@pytest.mark.parametrize("name", ["solo12.urdf", "anymal.urdf", "go1.urdf", "talos_reduced.urdf", "icub.urdf"])
def test_rank_equals_pinocchio_free_flyer_rank(name):
    robot = quiet_load(EXAMPLES[name], floating=True)
    assert robot.is_floating
    base = bp.find_base_parameters(robot)
    rank, gap = pinocchio_rank(EXAMPLES[name])
    assert gap > 1e6          # pinocchio's numeric rank is clear-cut
    assert base.rank == rank
    assert base.names[:10] == [f"{n}0" for n in ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")]
    assert base.seen_by_base_equations.all()


@needs_examples
def test_solo12_regroupings_reproduce_pinocchio():
    robot = quiet_load(EXAMPLES["solo12.urdf"], floating=True)
    base = bp.find_base_parameters(robot)
    W, _ = regressor_in_our_columns(robot)
    check_regroupings(base, W)


# -- regroupings and the base equations -------------------------------------------------------------------------
def floating_robots():
    space = bp.load_robot(SPACE)
    with_gravity = bp.parse_robot(SPACE.read_text().replace("gravity: [0, 0, 0]", "gravity: [0, 0, -9.81]"),
                                  "space_robot_g.yaml")
    return {"space": space, "space with gravity": with_gravity, "satellite": quiet_load_text(SATELLITE)}


def quiet_load_text(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bp.parse_robot(text, "satellite.urdf")


@pytest.mark.parametrize("which", ["space", "space with gravity", "satellite"])
@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_regroupings_reproduce_pinocchio(which, parameters):
    robot = floating_robots()[which]
    base = bp.find_base_parameters(robot, parameters)
    W, W_base = regressor_in_our_columns(robot, parameters)
    assert base.rank == numeric_rank(W)[0]
    check_regroupings(base, W)
    # every inertial base parameter is seen by the base equations (Ayusawa et al.), verified on pinocchio's rows
    assert base.seen_by_base_equations.all() and numeric_rank(W_base)[0] == base.rank


# a chain whose last rows of the recursion (the prismatic tip's) hold only virtual-link columns: dropping those
# columns left trailing empty rows, whose start np.add.reduceat refused (IndexError out of find)
ENDS_EMPTY = """convention: standard
units: {length: m, angle: deg}
gravity: [0, 0, 0]
base: floating
joints:
  - {type: revolute, alpha: 0, a: 0, d: 0, parent: 0}
  - {type: revolute, alpha: 45, a: 0, d: 0, parent: 1}
  - {type: revolute, alpha: 0, a: 0, d: 0, parent: 2}
  - {type: prismatic, alpha: 0, a: 0, theta: 0, parent: 3}
"""


@pytest.mark.parametrize("force_float", [False, True])
def test_rows_ending_empty_without_the_virtual_columns(force_float):
    robot = bp.parse_robot(ENDS_EMPTY, "ends_empty.yaml")
    base = bp.find_base_parameters(robot, force_float=force_float)
    W, _ = regressor_in_our_columns(robot)
    assert base.rank == numeric_rank(W)[0]
    check_regroupings(base, W)


@pytest.mark.parametrize("which", ["space", "satellite"])     # exact integers; floats with a modular companion
def test_base_equations_see_no_drive(which):
    """Rotor inertia and friction enter only the joint rows: pinocchio's base rows have the rank of the
    inertial base parameters, and a base parameter is seen iff its regrouping is in their row space."""
    from baseparam.model.robot import with_drives

    robot = with_drives(floating_robots()[which], True, True)
    base = bp.find_base_parameters(robot)
    W, W_base = regressor_in_our_columns(robot)
    check_regroupings(base, W)
    drives = [r for r, n in enumerate(base.names) if n[:2] in ("IA", "FV", "FC", "FO")]
    assert len(drives) == 4 * robot.n_dof
    expected = np.ones(base.rank, dtype=bool)
    expected[drives] = False
    np.testing.assert_array_equal(base.seen_by_base_equations, expected)
    rank_base = numeric_rank(W_base)[0]
    assert rank_base == expected.sum()
    Wn = W_base / np.abs(W_base).max()
    for r in range(base.rank):
        grows = numeric_rank(np.vstack([Wn, base.Y[r] / np.abs(base.Y[r]).max()]))[0] > rank_base
        assert grows == (not expected[r]), base.names[r]
    assert all(name[:2] in ("IA", "FV", "FC", "FO") for r in drives for name in base.terms(r))


def test_fixed_base_results_carry_no_base_equations():
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "planar_rrr.yaml"))
    assert base.seen_by_base_equations is None and "seen_by_base_equations" not in json.dumps(base.to_dict())


# -- the command line -------------------------------------------------------------------------------------
def test_find_on_a_floating_yaml_text_and_json(tmp_path):
    out = tmp_path / "base.json"
    result = CliRunner().invoke(main, ["find", str(SPACE), "--friction", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "Seen by the base equations (the floating base's six, without joint torques): 52 of the 70" in \
        result.output
    doc = json.loads(out.read_text())
    assert doc["rank"] == 70 and doc["n_seen_by_base_equations"] == 52
    seen = {e["name"]: e["seen_by_base_equations"] for e in doc["base"]}
    assert seen["M0"] and not seen["FV1"] and sum(seen.values()) == 52


@needs_examples
def test_find_floating_urdf_cli():
    result = CliRunner().invoke(main, ["find", str(EXAMPLES["solo12.urdf"]), "--floating"])
    assert result.exit_code == 0, result.output
    assert "94 base parameters of 130 standard" in result.output and "94 of the 94" in result.output


@pytest.mark.parametrize("args, message", [
    (["--floating", "--root", "body"], "--floating: takes the URDF's root link as a free-flying base; it does not go "
                                       "with --root body"),
    (["--floating", "--tip", "a2"], "--floating: the root link 'world' already has a floating joint ('free')"),
    (["--floating"], "--floating: the root link 'world' already has a floating joint ('free')"),
])
def test_bad_floating_combinations(tmp_path, args, message):
    path = tmp_path / "satellite.urdf"
    path.write_text(SATELLITE)
    result = CliRunner().invoke(main, ["find", str(path), *args])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output


def test_bad_floating_inputs_in_python_and_yaml(tmp_path):
    result = CliRunner().invoke(main, ["find", str(SPACE), "--floating"])
    assert result.exit_code == 2 and "--floating: takes a URDF's root link" in result.output
    result = CliRunner().invoke(main, ["find", str(ROOT / "robots" / "planar_rrr.yaml"), "--floating"])
    assert result.exit_code == 2 and "this is a YAML description" in result.output
    with pytest.raises(bp.ArgumentError, match="floating=True: takes a URDF's root link"):
        bp.load_robot(SPACE, floating=True)
    with pytest.raises(bp.ArgumentTypeError, match="floating: expected True or False, got 'yes'"):
        bp.load_robot(SPACE, floating="yes")


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_find_h5_of_a_floating_robot(tmp_path, parameters):
    """The whole Z of the chain (the base's six coordinates first in the labels): in SI, its row space is that
    of the regroupings, and its rank theirs; the base equations' attributes."""
    import h5py

    path, text = tmp_path / "satellite.urdf", SATELLITE
    path.write_text(text)
    result = CliRunner().invoke(main, ["find", str(path), "--h5", str(tmp_path / "z.h5"), "--parameters", parameters])
    assert result.exit_code == 0, result.output
    stored = bp.read_h5(tmp_path / "z.h5")
    base = bp.find_base_parameters(quiet_load(path), parameters)
    Z = stored["Z"].toarray()
    assert stored["rows"].shape == (Z.shape[0], 2 + 6 + 3) and Z.shape[1] == len(base.standard_names)
    np.testing.assert_array_equal(stored["pivots"], base.pivots)
    np.testing.assert_allclose(Z[:, base.pivots] @ base.Y, Z, atol=1e-12 * np.abs(Z).max())
    assert np.linalg.matrix_rank(Z / np.linalg.norm(Z, axis=0).clip(1e-300)) == base.rank
    with h5py.File(tmp_path / "z.h5") as f:
        assert f.attrs["base_coordinates"] == 6 and f.attrs["n_seen_by_base_equations"] == base.rank
        np.testing.assert_array_equal(f.attrs["seen_by_base_equations"], base.seen_by_base_equations)
    W, _ = regressor_in_our_columns(base.robot, parameters)      # pinocchio's rows lie in Z's row space
    coef = np.linalg.lstsq(Z.T, W.T, rcond=None)[0]
    assert np.abs(Z.T @ coef - W.T).max() <= 1e-8 * np.abs(W).max()


def test_floating_urdf_root_as_pinocchio_reads_it(tmp_path):
    """--floating on a URDF whose root is fixed in the file: the root link flies (pinocchio's free-flyer root);
    the same robot as the file with a floating root joint at the identity."""
    fixed_root = SATELLITE.replace('<link name="world"/>\n  <joint name="free" type="floating"><parent link="world"/>'
                                   '<child link="body"/>\n    <origin xyz="1 2 3" rpy="0.1 0.2 0.3"/></joint>\n', "")
    assert fixed_root != SATELLITE
    floating_root = SATELLITE.replace('<origin xyz="1 2 3" rpy="0.1 0.2 0.3"/></joint>', '</joint>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from baseparam.model.urdf import parse_urdf
        flown = parse_urdf(fixed_root, "fixed.urdf", floating=True)
        free = parse_urdf(floating_root, "free.urdf")
        assert not parse_urdf(fixed_root, "fixed.urdf").is_floating
    assert flown.is_floating and flown.base_inertia == free.base_inertia and flown.joints == free.joints
    assert flown.gravity == free.gravity
    a, b = bp.find_base_parameters(flown), bp.find_base_parameters(free)
    assert a.rank == b.rank and a.names == b.names and np.array_equal(a.Y, b.Y)


# -- what each identification route sees: the engine's sets against pinocchio's rows ------------------------------
def momentum_in_our_columns(robot, n_samples, seed=2):
    """pinocchio's momentum of the robot, h = Σ_bodies X*(oMi) I_i v_i [linear; angular about the world origin]
    in world axes, as rows on our standard parameters (``bodyRegressor`` at zero velocity with acceleration v_i
    is the body's I_i v_i), stacked (n_samples·6, n_standard), and the states (q, v)."""
    model, _ = build_model(robot)
    data, rng = model.createData(), np.random.default_rng(seed)
    layout = ColumnLayout(robot, "pseudo")
    maps = [link_map(np.eye(4), "pseudo")] + [link_map(Cp, "pseudo") for _, Cp in split_factors(robot)]
    columns = [layout.base_columns] + list(layout.link_columns)
    rows, qs, vs = [], [], []
    for _ in range(n_samples):
        q, v = random_q(model, rng), rng.normal(size=model.nv)
        pin.forwardKinematics(model, data, q, v)
        H = np.zeros((6, layout.n_standard))
        for j in range(1, model.njoints):
            body = pin.bodyRegressor(pin.Motion.Zero(), data.v[j])
            H[:, columns[j - 1]] = data.oMi[j].toDualActionMatrix() @ body @ maps[j - 1]
        rows.append(H)
        qs.append(q)
        vs.append(v)
    return np.vstack(rows), np.array(qs), np.array(vs)


def in_span(rows, E, pivots):
    """Every row a combination of E's (E[:, pivots] = I, so rows = rows[:, pivots] · E)."""
    return np.abs(rows[:, pivots] @ E - rows).max() <= 1e-9 * np.abs(rows).max()


def gravity_free(robot):
    import dataclasses
    return dataclasses.replace(robot, gravity=(0.0, 0.0, 0.0))


def drive_robots():
    from baseparam.model.robot import with_drives
    robots = {name: with_drives(r, True, True) for name, r in floating_robots().items()}
    if EXAMPLES.get("solo12.urdf"):
        robots["solo12"] = quiet_load(EXAMPLES["solo12.urdf"], floating=True)
    return robots


@pytest.mark.parametrize("which", ["space", "space with gravity", "satellite", "solo12"])
def test_torques_and_base_routes_see_pinocchios_rows(which):
    """The library's sets (route_combinations: the exact base set alone, no random state) against pinocchio's
    free-flyer regressor at random states: its rows (all 6 + n; the base's six) lie in each set's span, and
    their numeric rank is the set's size (nothing claimed that the rows do not see)."""
    from baseparam.identification.floating import route_combinations

    robots = drive_robots()
    if which not in robots:
        pytest.skip("example-robot-data is not installed")
    robot = robots[which]
    W, W_base = regressor_in_our_columns(robot)
    for route, rows in (("torques", W), ("base", W_base)):
        E, pivots, source = route_combinations(robot, route)
        assert source == "projection"
        assert in_span(rows, E, pivots), route
        assert numeric_rank(rows)[0] == len(E), route


@pytest.mark.parametrize("which", ["space", "satellite", "solo12"])
def test_momentum_route_sees_what_pinocchios_momentum_sees(which):
    """Without gravity the momentum route's set is the base equations' (their rate; module notes of
    baseparam.identification.floating): pinocchio's momentum at random states, as differences between states
    (the route's rows), lies in that span with its full rank; drives (rotor inertia, friction) are not in it.
    The rows are checked first against bp.momentum (ours, from the regressor's base rows)."""
    from baseparam.identification.floating import route_combinations

    robots = drive_robots()
    if which not in robots:
        pytest.skip("example-robot-data is not installed")
    robot = gravity_free(robots[which])
    layout = ColumnLayout(robot, "pseudo")
    H, q, v = momentum_in_our_columns(robot, 3 * layout.n_standard // 6 + 10)
    values = np.random.default_rng(3).normal(size=layout.n_standard)     # any β: both sides are linear in it
    np.testing.assert_allclose(H @ values, bp.momentum(bp.Model(robot, values), q, v).ravel(), rtol=0,
                               atol=1e-9 * np.abs(H @ values).max())
    differences = (H.reshape(-1, 6, layout.n_standard) - H.reshape(-1, 6, layout.n_standard)[0]).reshape(H.shape)[6:]
    E, pivots, _ = route_combinations(robot, "momentum")
    same, _ = route_combinations(robot, "base")[:2]
    np.testing.assert_array_equal(E, same)
    assert in_span(differences, E, pivots)
    assert numeric_rank(differences)[0] == len(E)
    drives = [c for c, n in enumerate(layout.names) if n[:2] in ("IA", "FV", "FC", "FO")]
    assert not E[:, drives].any() and not H[:, drives].any()
    if which == "space":
        assert len(E) == 52


@needs_examples
@pytest.mark.parametrize("tips", ["FL_FOOT", "FL_FOOT,HR_FOOT"])
def test_floating_with_tip_is_pinocchios_reduced_free_flyer(tips):
    # --floating --tip: the legs off the paths to the tips locked at q = 0 on the flying root, as pinocchio's
    # buildReducedModel of the free-flyer model locks them: the same torques and the same regressor rank.
    path = str(EXAMPLES["solo12.urdf"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the URDF's tiny round-offs
        robot = bp.load_robot(path, floating=True, tip=tips)
    full = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    legs = [tip[:2] for tip in tips.split(",")]
    model = pin.buildReducedModel(full, [full.getJointId(n) for n in full.names[2:] if n[:2] not in legs],
                                  pin.neutral(full))
    data = model.createData()
    rng = np.random.default_rng(7)
    rows = []
    for _ in range(30):
        q = pin.randomConfiguration(model)
        q[:3] = rng.normal(size=3)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        rows.append(pin.computeJointTorqueRegressor(model, data, q, v, a).copy())
        tau = pin.rnea(model, data, q, v, a)
        ours = bp.inverse_dynamics(bp.Model(robot), q[None], v[None], a[None])[0]
        np.testing.assert_allclose(ours, tau, rtol=0, atol=1e-12 * max(1.0, np.abs(tau).max()))
    Y = np.vstack(rows)
    s = np.linalg.svd(Y / np.maximum(np.linalg.norm(Y, axis=0), 1e-300), compute_uv=False)
    assert robot.n_dof == 3 * len(legs) and bp.find_base_parameters(robot).rank == int((s > 1e-9 * s[0]).sum())
