"""Fuzzing robot descriptions (issue 11): mutated robots/*.yaml, as a hostile user would write them.

Properties: ``parse_robot`` either returns a robot or raises RobotDescriptionError with a one-line
message naming the file; for what parses (small robots), ``find_base_parameters`` raises nothing but
a BaseParamError and its regroupings are right (W·p = W_b·(Y·p) at random states); the CLI exits
0 or 2, with one line on stderr per error or warning. Bounded: derandomized, a few seconds each.
"""
import copy
import math
import warnings

import numpy as np
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import BaseParamError, RobotDescriptionError
from conftest import ROBOT_FILES

SOURCES = {path.name: yaml.safe_load(path.read_text()) for path in ROBOT_FILES}
NAMES = tuple(sorted(SOURCES))
SMALL = tuple(name for name in NAMES if len(SOURCES[name]["joints"]) <= 3)
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

EXTREME = [1e-308, 5e-324, -5e-324, 1e308, -1e308, -0.0, 0.0, 6e-16, 1e-12, 1e-9, 1e300, -1e300,
           math.pi / 2, 2 * math.pi, 7.0, 45, 60, 89.99999999999999, 89.9999999, 90, -90, 3600, 3601,
           1e4, 1e7, -1, 0, 2 ** 64, 10 ** 400]
SCALARS = st.one_of(st.sampled_from(EXTREME), st.floats(allow_nan=False, allow_infinity=False),
                    st.integers(-10 ** 30, 10 ** 30), st.booleans(), st.none(),
                    st.sampled_from(["abc", "", "yes", "1e3", "deg", "revolute", "prismatic", "rad", "0x10"]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=4), st.lists(st.lists(SCALARS, max_size=3), max_size=3),
                   st.dictionaries(st.sampled_from(["mass", "com", "inertia", "length", "angle", "x"]), SCALARS,
                                   max_size=3))
KEYS = st.sampled_from(["type", "alpha", "a", "d", "theta", "offset", "parent", "friction", "rotor_inertia",
                        "inertia", "mass", "com", "gravity", "units", "joints", "name", "length", "angle", "bogus"])


def _paths(node, prefix=()):
    """Every (path to a container, key or index) in the document."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield prefix + (key,)
        yield from _paths(value, prefix + (key,))


def _numeric_paths(node):
    return [p for p in _paths(node) if _get(node, p).__class__ in (int, float)]


def _get(node, path):
    for key in path:
        node = node[key]
    return node


@st.composite
def mutated(draw, names=NAMES):
    """(name, YAML text) of a description with a few mutations."""
    name = draw(st.sampled_from(names))
    doc = copy.deepcopy(SOURCES[name])
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(doc))
        kind = draw(st.sampled_from(["replace", "extreme", "delete", "add", "nest"]))
        if kind == "extreme":
            numeric = _numeric_paths(doc)
            if numeric:
                path = draw(st.sampled_from(numeric))
                _get(doc, path[:-1])[path[-1]] = draw(st.sampled_from(EXTREME))
            continue
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = _get(doc, path[:-1]), path[-1]
        if kind == "replace":
            parent[key] = draw(VALUES)
        elif kind == "delete":
            del parent[key]
        elif kind == "add" and isinstance(parent, dict):
            parent[draw(KEYS)] = draw(VALUES)
        elif kind == "nest":
            parent[key] = [parent[key]] if draw(st.booleans()) else {"x": parent[key]}
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    if draw(st.booleans()):    # also spellings safe_dump never writes: YAML 1.1 words, odd numbers
        word = draw(st.sampled_from(["yes", "off", "0150", "1:30", "0x1F", "1e999", ".nan", "~", "!!bool on"]))
        target = draw(st.sampled_from(["true", "false", "0", "90", "-90", "0.0"]))
        text = text.replace(f": {target}\n", f": {word}\n", 1)
    return name, text


@st.composite
def renumbered(draw, names=SMALL):
    """(name, YAML text) with numbers changed only: most of these parse, so the engine is exercised."""
    name = draw(st.sampled_from(names))
    doc = copy.deepcopy(SOURCES[name])
    doc["gravity"] = list(doc.get("gravity", [0, 0, -9.81]))
    numbers = st.one_of(st.sampled_from(EXTREME), st.floats(-2, 2, allow_nan=False).map(lambda x: round(x, 3)),
                        st.sampled_from([0, 90, -90, 180, 45, 30, 1e-7, 6e-16, 0.1, 0.25]))
    paths = [p for p in _numeric_paths(doc) if p[-1] != "parent"]
    for path in draw(st.lists(st.sampled_from(paths), min_size=1, max_size=4)):
        _get(doc, path[:-1])[path[-1]] = draw(numbers)
    return name, yaml.safe_dump(doc, sort_keys=False)


def _parse(name, text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bp.parse_robot(text, name)
        except RobotDescriptionError as exc:
            message = str(exc)
            # one line per independent problem, each complete
            assert all(line.startswith(f"{name}: ") and line.isprintable() for line in message.splitlines()), message
            return None


@FUZZ
@given(mutated())
def test_parse_raises_only_description_errors(case):
    robot = _parse(*case)
    if robot is not None:                      # what is accepted is physically and numerically sane
        assert all(math.isfinite(g) for g in robot.gravity)
        for j in robot.joints:
            if j.inertia is not None:
                assert j.inertia.mass > 0
                assert np.linalg.eigvalsh(j.inertia.inertia)[0] >= -1e-9 * np.abs(j.inertia.inertia).sum()


@FUZZ
@given(st.one_of(renumbered(), mutated(tuple(SMALL))), st.integers(0, 2 ** 32 - 1))
def test_small_robots_give_right_regroupings_or_a_clean_error(case, seed):
    robot = _parse(*case)
    if robot is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            base = bp.find_base_parameters(robot)
        except BaseParamError:
            return
    rng = np.random.default_rng(seed)
    q, qd, qdd = (rng.uniform(-1, 1, (3, robot.n_dof)) for _ in range(3))
    p = rng.uniform(-1, 1, len(base.standard_names))
    W = bp.regressor(robot, q, qd, qdd)
    full, reduced = W @ p, base.regressor(q, qd, qdd) @ base.from_standard(p)
    scale = max(1.0, float(np.abs(W).max()) * float(np.abs(p).max()))
    tol = 1e-8 if not base.inaccurate else max(1e-8, 1e3 * base.accuracy)
    assert np.abs(full - reduced).max() <= tol * scale * W.shape[-1], (case[1], base.note)


@pytest.fixture(scope="module")
def runner():
    return CliRunner()


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(case=mutated(tuple(SMALL)))
def test_cli_exits_0_or_2_with_one_line_messages(case, tmp_path_factory, runner):
    path = tmp_path_factory.mktemp("fuzz") / case[0]
    path.write_text(case[1], encoding="utf-8")
    res = runner.invoke(main, ["find", str(path)])
    assert res.exit_code in (0, 2), (res.exit_code, res.stderr, res.exception)
    lines = res.stderr.strip().splitlines()
    if res.exit_code == 2:
        errors = [line for line in lines if not line.startswith("baseparam: warning: ")]
        assert errors and all(line.startswith(f"baseparam: {path}: ") for line in errors), res.stderr
    else:
        assert all(line.startswith("baseparam: warning: ") for line in lines), res.stderr


@pytest.mark.parametrize("value", [1e-308, 5e-324, 1e308, -0.0, -1e308, 10 ** 400])
def test_extreme_number_in_every_numeric_field(value):
    """Each numeric field of the PUMA 560 in turn: a robot or a one-line RobotDescriptionError, and what
    parses runs through the engine without anything but a BaseParamError."""
    doc = SOURCES["puma560.yaml"]
    for path in _numeric_paths(doc):
        mutant = copy.deepcopy(doc)
        _get(mutant, path[:-1])[path[-1]] = value
        robot = _parse("puma560.yaml", yaml.safe_dump(mutant, sort_keys=False))
        if robot is not None and value in (1e-308, 5e-324, -0.0):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    bp.find_base_parameters(robot)
                except BaseParamError:
                    pass
