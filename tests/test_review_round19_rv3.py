"""Review of round nineteen's payload and log readers (rv3): what the merged commits left next to what they fixed."""
from pathlib import Path

from click.testing import CliRunner

from baseparam.cli import main

ROOT = Path(__file__).resolve().parents[1]
UR, UR_CAD = ROOT / "robots" / "ur10e.yaml", ROOT / "robots" / "ur10e_cad.yaml"


# --- payload --model: the same arm with its last frame elsewhere (4b17b25; carried across since round 20) ----------

def test_one_arm_with_its_last_frame_elsewhere_is_taken(tmp_path):
    """robots/ur10e.yaml (DH frame 6 = the URDF's tool0) and ur10e_cad.yaml (the URDF's link frames: wrist_3_link)
    are one arm, its base turned 180° and its last frame 0.117 m apart: refused as 'joint 1's axis differs' (no joint
    differs), then as the last link's frame placed elsewhere; since round 20 the payload is fitted across the constant
    transform (tests/test_fuzz_round20_lpay.py): the command gets past the model to the log."""
    log = tmp_path / "log.csv"
    log.write_text("t,q1\n")
    result = CliRunner().invoke(main, ["payload", str(UR), str(log), "--model", str(UR_CAD)])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "no data lines after the header" in result.output, result.output


def test_the_urdf_written_of_a_yaml_robot_is_its_model_across_frames(tmp_path):
    """identify --urdf (and payload --robot-out .urdf) write a YAML robot as a URDF whose link frames sit at the joints
    (robot_to_urdf): as --model of that YAML robot its last frame lies apart (UR10e: d6 = 0.117 m along the last
    axis), which same_arm returns as the map of the payload's parameters between the frames: a point mass on
    ur10e.yaml's tool0 origin is, in the URDF's last frame, 0.117 m along its z axis."""
    import numpy as np

    import baseparam as bp
    from baseparam.identification.payload import payload_parameters, same_arm
    from baseparam.model.urdf_writer import robot_to_urdf

    robot = bp.load_robot(UR)
    model = bp.parse_robot(robot_to_urdf(robot, [(j.inertia.mass, j.inertia.com, j.inertia.inertia)
                                                  for j in robot.joints]))
    carry = same_arm(robot, model)
    at_origin = carry @ payload_parameters(1.0, np.zeros(3), np.zeros((3, 3)))
    np.testing.assert_allclose(at_origin[6:], [0.0, 0.0, 0.117, 1.0], atol=1e-9)


def test_the_first_joint_placed_otherwise_is_named():
    """Every mismatch of axes named joint 1 (the base offset is taken from the last frames, so with anything different
    every axis missed from the first on): d4 10 cm longer moves joint 5's axis (d4 runs along joint 4's own), a2 of
    the other sign joint 3's, and a UR5 differs from a UR10e first at joint 3 (d1 is the base's: no joint moves)."""
    import baseparam as bp
    from baseparam.model.dh_equivalent import arm_relation

    ur, text = bp.load_robot(UR), UR.read_text()
    for old, new, joint in (("d: 0.174", "d: 0.274", 5), ("a: -0.613", "a: 0.613", 3)):
        assert old in text
        assert arm_relation(ur, bp.parse_robot(text.replace(old, new))) == (f"joint {joint}'s axis", None)
    assert arm_relation(ur, bp.load_robot(ROOT / "robots" / "ur5.yaml")) == ("joint 3's axis", None)


# --- payload --wrench --wrench-bias: a wrench that never changes is, its offset fitted, one of zeros (a5758f5) -----

def test_a_frozen_wrench_with_its_offset_fitted_is_refused(tmp_path):
    """A wrench of zeros is refused as a dead sensor (a fit with a residual of exactly 0); with --wrench-bias, one
    that repeats one reading in every sample (a frozen sensor, its driver resending the last value) is that same
    wrench of zeros once its offset is fitted: '0 ± 2e-16 kg … no payload seen', exit 0. A wrench that varies, with
    one component stuck, is still fitted."""
    import numpy as np

    from test_fuzz_round19_fzcli import _moving_wrench_log

    path = _moving_wrench_log(tmp_path, np.tile([1.5, -2.0, 30.0, 0.1, 0.2, -0.05], (150, 1)))
    args = ["payload", str(UR), str(path), "--wrench", "fx,fy,fz,mx,my,mz", "--wrench-bias"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{path}: --wrench: every component keeps one value" in result.output and "--wrench-bias" in result.output
    varying = np.random.default_rng(5).normal(0.0, 0.3, (150, 6))
    varying[:, 5] = 0.25                                    # one component stuck: the others still measure
    path = _moving_wrench_log(tmp_path, varying)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output


# --- YAML's parse bound counts collections, as its message and the bag's check say (7e2f5f7) ----------------------

def test_yaml_64_collections_deep_is_within_the_parse_bound():
    """'nested too deeply (collections more than 64 levels deep)' was said of 64 collections holding a scalar: the
    loader counted the scalar's own level (d097d73's check of a bag's metadata.yaml counts collections alone and let
    it pass). A robot file 64 collections deep is refused naming its field, as one 40 deep; 65 at the parse."""
    import pytest

    import baseparam as bp
    from baseparam.model._yaml_text import nested_too_deeply

    robot = (ROOT / "robots" / "planar_rrr.yaml").read_text()
    assert "\ngravity: [0, -9.81, 0]" in robot
    for brackets, said in ((63, r"gravity(\[1\])+: nested too deeply$"), (64, r"more than 64 levels deep\)$")):
        nested = "[" * brackets + "0" + "]" * brackets                # the document's mapping, and these
        assert nested_too_deeply(f"gravity: {nested}") == (brackets + 1 > 64)
        with pytest.raises(bp.RobotDescriptionError, match=said):
            bp.parse_robot(robot.replace("gravity: [0, -9.81, 0]", f"gravity: {nested}"))


# --- payload --wrench --skip-bad-rows: too few samples left said as the reader says it (a5758f5, 866010b) ----------

def test_too_few_samples_left_by_damaged_wrench_rows_say_why(tmp_path):
    """A log whose joint values are damaged on all but 5 lines says 'only 5 samples after skipping 145 bad lines'; one
    whose wrench is, dropped after the trajectory was read, said 'field t: only 5 samples; need at least 10' (the
    Trajectory's own check), as if the file held 5 lines."""
    import numpy as np

    from test_fuzz_round19_fzcli import _moving_wrench_log

    wrench = np.full((150, 6), np.nan)
    wrench[:5] = 1.0
    path = _moving_wrench_log(tmp_path, wrench)
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--wrench", "fx,fy,fz,mx,my,mz",
                                       "--skip-bad-rows"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{path}: field t: only 5 samples after skipping 145 bad lines; need at least 10" in result.output
