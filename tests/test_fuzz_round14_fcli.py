"""Regressions of the command-line fuzzing of issue 28's fourteenth round (every command × every option × value
kinds: empty, negative, huge, NaN/inf words, digits of other scripts, '_' separators, names with line breaks;
and each option given on its own to a run it might not concern, the outputs compared with the run without it).
Each run was a forked process with its own folder, HOME and TMPDIR; the fuzzer itself was a throwaway, these
are the deterministic cases it found, each failing before its fix."""
import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT, one_line

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")
UR10E = str(ROOT / "robots" / "ur10e_cad.yaml")


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _planar_log(tmp_path, header=True):
    """A short log of the planar arm: t, q1..q3, tau1..tau3 (the values do not matter: each case is refused
    before the fit)."""
    t = np.arange(40) * 0.01
    rows = np.column_stack([t, np.sin(t), np.cos(t), t, 0.1 * t, 0.2 * t, 0.3 * t])
    lines = (["t,q1,q2,q3,tau1,tau2,tau3"] if header else []) + [",".join(repr(float(x)) for x in r) for r in rows]
    path = tmp_path / ("log.csv" if header else "raw.csv")
    path.write_text("\n".join(lines) + "\n")
    return path


# '٢' (Arabic-Indic two), '２' (full-width two) and '1_0': Python's float()/int() read them as 2, 2 and 10, and
# click converts with them, as did the option parsers of lists, ranges, --known and --delay; numpy's readers (and
# the CSV reader since round 13) refuse them. Each run below exited 0 with the misread number (or, for
# --angle-tolerance, was refused as "1.0 is not in the range", a number the user never wrote).
@pytest.mark.parametrize("args, flag", [
    (["excite", PLANAR, "--period", "\u0662"], "--period"),
    (["excite", PLANAR, "--harmonics", "\uff12"], "--harmonics"),
    (["excite", PLANAR, "--seed", "1_0"], "--seed"),
    (["find", PLANAR, "--angle-tolerance", "\uff11e-3"], "--angle-tolerance"),
    (["payload", UR10E, "--suggest-poses", "\u0668"], "--suggest-poses"),
    (["payload", UR10E, "--suggest-poses", "6", "--pose", "\u0660,0,0,0,0,0"], "--pose"),
    (["find", PLANAR, "--friction", "--friction-model", "smooth:1_0"], "--friction-model"),
    (["identify", PLANAR, "LOG", "--gains", "1_0"], "--gains"),
    (["identify", PLANAR, "LOG", "--cutoff", "\u0665"], "--cutoff"),
    (["identify", PLANAR, "LOG", "--delay", "\u0660"], "--delay"),
    (["identify", PLANAR, "LOG", "--rest-velocity", "0_1"], "--rest-velocity"),
])
def test_numbers_in_other_scripts_digits_or_with_underscores_are_refused(tmp_path, args, flag):
    args = [str(_planar_log(tmp_path)) if a == "LOG" else a for a in args]
    one_line(_run(*args), flag, args[-1])                   # the refusal quotes the text as written


def test_a_column_map_in_other_scripts_digits_is_not_read_as_columns(tmp_path):
    """`--columns t=0,q=١:٤,…` was read as q=1:4 (the regular expression's \\d takes any script's digits)."""
    log = _planar_log(tmp_path, header=False)
    fine = _run("identify", PLANAR, log, "--columns", "t=0,q=1:4,tau=4:7", "--cutoff", "none", "--resample", "none")
    assert fine.exit_code == 0, fine.output
    one_line(_run("identify", PLANAR, log, "--columns", "t=0,q=\u0661:\u0664,tau=4:7"), "column map")


@pytest.mark.parametrize("column", ["\u00b2", "\u0661\u0663"])
def test_a_wrench_column_number_in_other_digits_is_no_column(tmp_path, column):
    """`--wrench ²,…`: '²'.isdigit() is true and int('²') raises, so the run ended in 'internal error: ValueError',
    exit 1; '١٣' was taken as column 13. Both are names the file does not have."""
    header = "t," + ",".join(f"q{k}" for k in range(1, 7)) + "," + ",".join(f"tau{k}" for k in range(1, 7))
    rows = [",".join([f"{0.01 * k!r}"] + ["0.0"] * 12) for k in range(12)]
    header += ",fx,fy,fz,mx,my,mz"
    rows = [row + ",0,0,1,0,0,0" for row in rows]
    path = tmp_path / "wrench.csv"
    path.write_text("\n".join([header, *rows]) + "\n")
    one_line(_run("payload", UR10E, path, "--wrench", f"{column},fy,fz,mx,my,mz"), "wrench.csv", "no column")


def test_an_angle_expression_in_other_scripts_digits_is_refused(tmp_path):
    """A radian angle `pi/٢` was read as π/2 (the expression's \\d and float() take any script's digits)."""
    text = (ROOT / "robots" / "planar_rrr.yaml").read_text()
    assert "angle: deg" in text
    path = tmp_path / "arm.yaml"
    path.write_text(text.replace("angle: deg", "angle: rad").replace("alpha: 0", "alpha: \"pi/\u0662\"", 1))
    one_line(_run("describe", path), "arm.yaml", "joints[1].alpha")


@pytest.mark.parametrize("model", ["smooth:0.1+smooth:0.2", "sign+smooth:0.1", "stribeck:0.1+stribeck:0.2"])
def test_a_friction_model_naming_one_term_twice_is_refused_not_the_last_kept(model):
    """`smooth:0.1+smooth:0.2` was taken as smooth:0.2, `sign+smooth` as smooth: one of two, silently."""
    one_line(_run("find", PLANAR, "--friction", "--friction-model", model), "--friction-model", "per model")


# Options given on their own to a run that does not use them exited 0 with the result of the run without them: the
# fuzzer ran each option once against a base run and compared the outputs byte for byte.
SPACE = str(ROOT / "robots" / "space_robot.yaml")


@pytest.mark.parametrize("args, said", [
    # a 3-joint arm's design of every joint, the 6 values never looked at
    (["excite", PLANAR, "--pose", "0,-1,1,0,0,0"], "--pose: goes with --payload"),
    (["excite", PLANAR, "--payload-joints", "2"], "--payload-joints: goes with --payload"),
    # the poses printed, the robot file never written
    (["payload", UR10E, "--suggest-poses", "6", "--robot-out", "r.yaml"], "--robot-out: --suggest-poses"),
    (["payload", UR10E, "--suggest-poses", "6", "--cutoff", "2"], "--cutoff: --suggest-poses"),
    # still poses are averaged as logged
    (["payload", UR10E, "LOG", "--static", "--cutoff", "2"], "--cutoff: --static"),
    (["payload", UR10E, "LOG", "--static", "--resample", "none"], "--resample: --static"),
    # the wrench fit keeps the still samples
    (["payload", UR10E, "LOG", "--wrench", "fx,fy,fz,mx,my,mz", "--rest-velocity", "0.5"], "--rest-velocity: --wrench"),
    # the estimator takes weighting/prior only for the consistent fit, and cannot tell their defaults given
    (["identify", PLANAR, "LOG", "--weighting", "ols"], "--weighting: only with --method consistent"),
    (["identify", PLANAR, "LOG", "--prior", "none"], "--prior: only with --method consistent"),
    (["identify", PLANAR, "LOG", "--cutoff", "none", "--filter-order", "2"], "--filter-order"),
    # describe's table shows no drive terms: they are declared in the description --yaml writes
    (["describe", PLANAR, "--friction"], "--friction: describe prints no drive terms"),
    (["describe", PLANAR, "--rotor-inertia"], "--rotor-inertia: describe prints no drive terms"),
    # a floating base's fit has its own parameters and preprocessing
    (["identify", SPACE, "LOG", "--route", "momentum", "--parameters", "khalil"], "--parameters: not used"),
    (["identify", SPACE, "LOG", "--route", "momentum", "--rest-velocity", "1"], "--rest-velocity: not used"),
    (["identify", SPACE, "LOG", "--route", "momentum", "--no-filter-friction"], "--filter-friction/--no-filter"),
])
def test_an_option_the_run_would_not_use_is_refused_not_ignored(tmp_path, monkeypatch, args, said):
    monkeypatch.chdir(tmp_path)
    args = [str(_planar_log(tmp_path)) if a == "LOG" else a for a in args]
    one_line(_run(*args), said)
    assert not (tmp_path / "r.yaml").exists()


def test_design_excitation_refuses_a_pose_without_a_payload_design():
    """The library took `pose` (and `payload_joints`) without payload=True and designed every joint's motion."""
    import baseparam as bp
    from baseparam.errors import ArgumentError
    robot = bp.load_robot(PLANAR)
    for options in ({"pose": [0.0, 0.0, 0.0]}, {"payload_joints": 2}):
        with pytest.raises(ArgumentError, match=f"{next(iter(options))}: goes with payload=True"):
            bp.design_excitation(robot, **options)


def test_a_known_quantity_given_twice_is_refused_not_the_last_kept(tmp_path):
    """`--known mass=448 --known mass=449` fitted with 449 (a dict kept the last), no word."""
    log = _planar_log(tmp_path)
    one_line(_run("identify", SPACE, log, "--route", "momentum", "--known", "mass=448", "--known", "mass=449"),
             "--known", "mass given twice")


@pytest.mark.parametrize("model", ["smooth:nan", "stribeck:inf", "smooth:-1", "smooth:0", "smooth:1e308"])
def test_a_friction_model_scale_out_of_range_is_refused_in_the_options_words(model):
    """Was '--friction-model: FrictionModel.velocity: expected …' (the dataclass's field; for a stribeck scale
    too): now the part of the option as typed."""
    result = _run("find", PLANAR, "--friction", "--friction-model", model)
    one_line(result, f"--friction-model: '{model}': expected a velocity scale > 0")
    assert "FrictionModel" not in result.output


@pytest.mark.parametrize("args, said", [
    (["identify", PLANAR, "LOG", "--columns", ""], "column map ''"),
    (["identify", PLANAR, "LOG", "--method", "consistent", "--mass-bounds", " "], "--mass-bounds"),
    (["payload", UR10E, "LOG", "--gains-from-targets", ""], "--gains-from-targets"),
])
def test_an_empty_value_is_refused_not_taken_as_the_option_left_out(tmp_path, args, said):
    """`--columns ''`, `--mass-bounds ''` and `--gains-from-targets ''` were tested for truth: the run went on as
    without them (exit 0)."""
    args = [str(_planar_log(tmp_path)) if a == "LOG" else a for a in args]
    one_line(_run(*args), said)


@pytest.mark.parametrize("space", ["\u00a0", "\u2009"])
def test_an_angle_expression_with_no_break_or_thin_spaces_is_read_as_before(tmp_path, space):
    """The fix above compiled the expression with re.ASCII, whose \\s is ASCII whitespace only: `pi / 2` with the
    no-break or thin spaces a document pastes (taken as π/2 before it, as float() takes them round a number) became
    'expected a number or an expression'. Only the digits are ASCII now; the description reads as the plain one."""
    text = (ROOT / "robots" / "planar_rrr.yaml").read_text().replace("angle: deg", "angle: rad")
    plain, spaced = tmp_path / "plain.yaml", tmp_path / "spaced.yaml"
    plain.write_text(text.replace("alpha: 0", "alpha: \"pi/2\"", 1))
    spaced.write_text(text.replace("alpha: 0", f"alpha: \"pi{space}/{space}2\"", 1))
    expected = _run("describe", plain)
    assert expected.exit_code == 0, expected.output
    result = _run("describe", spaced)
    assert result.exit_code == 0, result.output
    assert result.output.replace("spaced.yaml", "plain.yaml") == expected.output


@pytest.mark.parametrize("args, said", [
    # the floating logs are low-passed only with --cutoff given: the order alone was never used
    (["--filter-order", "2"], "--filter-order: "),
    # the floating options were tested for truth: a zero weight or an empty map was taken as left out
    (["--prior-weight", "0"], "--prior-weight: not available for a floating-base robot"),
    (["--columns", ""], "--columns: not available for a floating-base robot"),
    (["--gains", ""], "--gains: not available for a floating-base robot"),
    (["--delay", ""], "--delay: not available for a floating-base robot"),
])
def test_a_floating_fit_refuses_options_it_does_not_use_whatever_their_value(space, tmp_path, args, said):
    """Each run exited 0 with the result of the run without the option (the refusals of the floating fit's unused
    options above missed them)."""
    from baseparam.identification.floating_logs import write_floating_log
    write_floating_log(tmp_path / "log.npz", space.log)
    base = ["identify", SPACE, tmp_path / "log.npz", "--route", "momentum", "--known", "mass=448"]
    one_line(_run(*base, *args), said)           # without args: exit 0 (test_cli_floating.py's momentum route)
