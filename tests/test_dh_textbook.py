"""DH tables as textbooks and users write them: all four columns, radians as pi/2, rounded values; every
problem of a file in one run; and the YAML form of general (URDF) joints, which stores a URDF robot.

Oracles: the paper's PUMA 560 file (robots/puma560.yaml) for the textbook table, the same robot in
degrees for radians, inverse dynamics of the offset form for the theta column, and parsing back what
robot_to_yaml wrote (signature, inertias, limits) for the round trip.
"""
import math
import re
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.model.robot import robot_to_yaml
from conftest import DATA, ROBOT_FILES, ROOT, needs_data

PUMA = ROOT / "robots" / "puma560.yaml"


def textbook(text):
    """The PUMA rows with the variable's own column written out: theta: 0 on every revolute row."""
    return re.sub(r"(\{type: revolute,[^}]*)\}", r"\1, theta: 0}", text)


def test_textbook_table_is_the_paper_robot():
    reference = bp.find_base_parameters(bp.load_robot(PUMA))
    base = bp.find_base_parameters(bp.parse_robot(textbook(PUMA.read_text())))
    assert base.names == reference.names and base.exact
    np.testing.assert_array_equal(base.Y, reference.Y)


def test_variable_column_is_the_offset():
    head = "units: {length: m, angle: deg}\njoints:\n"
    tail = "  - {type: revolute, alpha: 0, a: 0.4, d: 0}\n"
    column = bp.parse_robot(head + "  - {type: revolute, alpha: 90, a: 0.1, d: 0.2, theta: 30}\n"
                                   "  - {type: prismatic, alpha: -90, a: 0.3, theta: 30, d: 0.25}\n" + tail)
    offset = bp.parse_robot(head + "  - {type: revolute, alpha: 90, a: 0.1, d: 0.2, offset: 30}\n"
                                   "  - {type: prismatic, alpha: -90, a: 0.3, theta: 30, offset: 0.25}\n" + tail)
    assert column.signature() == offset.signature()
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-1, 1, (5, 3)) for _ in range(3))
    p = rng.uniform(0.1, 1, len(bp.ColumnLayout(column).names))
    np.testing.assert_array_equal(bp.inverse_dynamics(column, p, q, qd, qdd),
                                  bp.inverse_dynamics(offset, p, q, qd, qdd))
    with pytest.raises(bp.RobotDescriptionError, match=r"joints\[1\]\.theta: theta and offset both"):
        bp.parse_robot(head + "  - {type: revolute, alpha: 90, a: 0.1, d: 0.2, theta: 30, offset: 5}\n")


def radian_puma(alpha_90):
    text = PUMA.read_text().replace("angle: deg", "angle: rad")
    return (text.replace("alpha: -90", f"alpha: -{alpha_90}").replace("alpha: 90", f"alpha: {alpha_90}"))


def test_pi_expressions_are_the_degree_table():
    reference = bp.find_base_parameters(bp.load_robot(PUMA))
    base = bp.find_base_parameters(bp.parse_robot(radian_puma("pi/2")))
    assert base.exact and base.names == reference.names
    np.testing.assert_allclose(base.Y, reference.Y, rtol=0, atol=0)
    assert bp.parse_robot("units: {length: m, angle: rad}\njoints: [{type: revolute, alpha: -3*pi/4, a: 1, d: 0}]"
                          ).joints[0].alpha == -9 * math.pi / 12
    with pytest.raises(bp.RobotDescriptionError, match="expected a number of degrees"):
        bp.parse_robot("units: {length: m, angle: deg}\njoints: [{type: revolute, alpha: pi/2, a: 1, d: 0}]")
    with pytest.raises(bp.RobotDescriptionError, match="expression like pi/2"):
        bp.parse_robot("units: {length: m, angle: rad}\njoints: [{type: revolute, alpha: pi*pi, a: 1, d: 0}]")


def test_decimal_radians_snap_and_rounded_ones_say_what_to_write():
    reference = bp.find_base_parameters(bp.load_robot(PUMA))
    with pytest.warns(bp.RoundOffWarning, match=r"4 angles within 1e-06 rad .*largest difference 2\.7e-08"):
        snapped = bp.parse_robot(radian_puma("1.5707963"), "puma.yaml")
    base = bp.find_base_parameters(snapped)
    assert base.exact and base.names == reference.names
    with pytest.raises(bp.RobotDescriptionError) as info:
        bp.parse_robot(radian_puma("1.5708"), "puma.yaml")
    lines = str(info.value).splitlines()
    assert len(lines) == 1        # every rounded twist, in one line
    assert lines[0].startswith("puma.yaml: 4 problems: (1) joints[1].alpha: -1.5708 rad is 3.7e-06 rad from -90°: "
                               "write -pi/2")
    assert lines[0].count("rad from") == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = bp.parse_robot(radian_puma("1.5708"), exact_angles=False)
    assert kept.joints[0].alpha == -1.5708
    with pytest.warns(bp.AccuracyWarning, match="if that is meant, write -pi/2"):
        bp.find_base_parameters(kept)


def test_independent_problems_are_reported_together(tmp_path):
    path = tmp_path / "arm.yaml"
    path.write_text("units: {length: m, angle: deg}\njoints:\n"
                    "  - {type: revolute, alpha: abc, a: 0, d: 0}\n"
                    "  - {type: revolute, alpha: 0, a: 1e9, d: 0}\n"
                    "  - {type: prismatic, alpha: 0, a: 0, theta: 0, parent: 7}\n")
    out = CliRunner().invoke(main, ["find", str(path)])
    lines = out.output.strip().splitlines()
    assert out.exit_code == 2 and len(lines) == 1, out.output      # one line, all three problems in it
    assert lines[0].startswith(f"baseparam: {path}: 3 problems: (1) joints[1].alpha: "), lines[0]
    for field in ("; (2) joints[2].a: ", "; (3) joints[3].parent: "):
        assert field in lines[0], lines[0]


# -- YAML of general joints, and robot_to_yaml round trips --------------------------------------------------------
def round_trip(robot):
    text = robot_to_yaml(robot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = bp.parse_robot(text)
    assert back.signature() == robot.signature()
    for a, b in zip(robot.joints, back.joints):
        assert (a.name, a.limits, a.friction_prior) == (b.name, b.limits, b.friction_prior)
        if a.inertia is None:
            assert b.inertia is None
        else:
            assert a.inertia.mass == b.inertia.mass
            np.testing.assert_array_equal(a.inertia.com, b.inertia.com)
            np.testing.assert_array_equal(a.inertia.inertia, b.inertia.inertia)
    return back


@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.name)
def test_dh_files_round_trip(path):
    robot = bp.load_robot(path)
    round_trip(bp.Robot(robot.joints, name=robot.name, convention=robot.convention, length_unit=robot.length_unit,
                        angle_unit=robot.angle_unit, gravity=robot.gravity))


def test_general_robot_round_trips_and_keeps_its_base_set():
    J, O = bp.Joint, bp.Origin
    body = bp.Inertia(mass=1.5, com=np.array([0.1, 0.0, -0.02]), inertia=np.diag([0.02, 0.03, 0.04]))
    robot = bp.Robot((J(type="revolute", origins=(O((0, 0, 0.3), (math.pi / 2, 0, 0.3)),), axis=(0, 1, 0), name="a",
                        limits=bp.JointLimits(-2.0, 2.0, 3.0, None), inertia=body, friction_prior=(0.1, 0.2)),
                      J(type="prismatic", origins=(O((0.4, 0.1, 0)), O((0, 0, 0.05), (0, -0.7, 0))),
                        axis=(0.3, 0.4, 0.5),
                        name="b", friction=(True, 0.5, False), rotor_inertia=0.01, offset=0.02)),
                     name="general", convention="urdf", gravity=(0.0, -9.81, 0.0))
    back = round_trip(robot)
    assert bp.find_base_parameters(back).names == bp.find_base_parameters(robot).names


@needs_data
def test_urdf_robot_stored_in_h5_reads_back(tmp_path):
    urdf = DATA / "kuka_lwr4" / "kuka_lwr4.urdf"
    robot = bp.load_robot(urdf)
    back = round_trip(robot)
    h5 = tmp_path / "lwr.h5"
    bp.find_and_store(robot, h5)
    stored = bp.read_h5(h5)
    text = stored["attrs"]["robot"] if "attrs" in stored else stored["robot"]
    assert bp.parse_robot(text).signature() == back.signature()


def test_general_yaml_refuses_dh_keys_and_other_units():
    with pytest.raises(bp.RobotDescriptionError, match=r"joints\[1\]\.alpha: unknown field"):
        bp.parse_robot("convention: urdf\nunits: {length: m, angle: rad}\njoints: [{type: revolute, alpha: 0}]")
    with pytest.raises(bp.RobotDescriptionError, match="units: a urdf-convention description is in m and rad"):
        bp.parse_robot("convention: urdf\nunits: {length: mm, angle: rad}\njoints: [{type: revolute}]")
    robot = bp.parse_robot("convention: urdf\nunits: {length: m, angle: rad}\n"
                           "joints: [{type: revolute, origin: {xyz: [0, 0, 0.3], rpy: [pi/2, 0, 0]}, axis: [1, 0, 0]}]")
    assert robot.joints[0].origins[0].rpy == (math.pi / 2, 0.0, 0.0)
