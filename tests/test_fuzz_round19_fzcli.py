"""Round 19 (fzcli): the command line's newer commands and options, each class fixed at its root."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import DATA, ROOT, needs_data

UR = ROOT / "robots" / "ur10e.yaml"


def _moving_wrench_log(tmp_path, wrench):
    """A CSV log of the UR10e moving every joint (t, q1..q6) with the wrench columns fx..mz: ``wrench`` (S, 6)."""
    S = len(wrench)
    t = np.arange(S) * 0.02
    q = 0.8 * np.sin(np.outer(t, [1.1, 0.7, 1.3, 1.7, 2.3, 2.9]) + np.arange(6))
    header = ",".join(["t"] + [f"q{j}" for j in range(1, 7)] + ["fx", "fy", "fz", "mx", "my", "mz"])
    path = tmp_path / "ft.csv"
    path.write_text(header + "\n" + "\n".join(",".join(repr(float(v)) for v in row)
                                              for row in np.column_stack([t, q, wrench])) + "\n")
    return path


# --- 1. a fit with no residual at all: the consistent estimate's metric is zero; a wrench of zeros ---

def test_a_wrench_of_zeros_is_refused_as_a_dead_sensor(tmp_path):
    """A sensor reading nothing (its columns all 0: unplugged, or the wrong columns named) gave `1.0501 ± 0.0000 kg`,
    2.2 kg·m² and the three vendors' formats, exit 0. identify refuses a torque of zeros; the wrench likewise."""
    path = _moving_wrench_log(tmp_path, np.zeros((150, 6)))
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--wrench", "fx,fy,fz,mx,my,mz"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{path}: --wrench: every value is zero" in result.output and "dead sensor" in result.output


def test_the_consistent_payload_nearest_an_exact_fit_is_the_fit_itself():
    """Why the zeros gave 1.05 kg: a residual of exactly 0 makes the covariance 0 and its pseudo-inverse, the
    metric of the nearest consistent estimate, 0 too: no objective left, and CLARABEL returned its first feasible
    point. The nearest consistent point of a consistent estimate is itself, in any metric; of an inconsistent one,
    with no metric to weigh by, the nearest in plain distance (here: the mass clipped at 0)."""
    from baseparam.identification._payload_math import _consistent, payload_parameters, pseudo_matrix
    body = payload_parameters(2.0, [0.03, -0.02, 0.06], np.diag([0.012, 0.010, 0.006]))
    for p0 in (np.zeros(10), body):
        assert np.array_equal(_consistent(p0, np.zeros((10, 10))), p0)
    p0 = np.zeros(10)
    p0[9] = -1.0                                    # a mass below zero
    p = _consistent(p0, np.zeros((10, 10)))
    assert np.abs(p).max() < 1e-4 and np.linalg.eigvalsh(pseudo_matrix(p)).min() > -1e-9, p


# --- 2. a base parameter the data do not determine: words in the report, not "inf" ---

def test_a_rank_deficient_identification_reports_no_infinity(tmp_path):
    """A log in which the first joint never moves leaves base parameters undetermined: the report printed
    "condition number of the base regressor: inf (column-scaled: inf)" and `inf` in the std, rel std and τ std
    columns of each (the JSON has null there), and the warning "… condition number … is inf (> 1000)"."""
    import re

    import baseparam as bp
    robot = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    t = np.arange(200) * 0.01
    q = np.column_stack([np.zeros_like(t), np.sin(2 * t), np.cos(3 * t)])
    qd = np.column_stack([np.zeros_like(t), 2 * np.cos(2 * t), -3 * np.sin(3 * t)])
    qdd = np.column_stack([np.zeros_like(t), -4 * np.sin(2 * t), -9 * np.cos(3 * t)])
    p = np.random.default_rng(0).uniform(0.1, 1.0, len(bp.Model(robot).names))     # any bodies will do
    tau = bp.inverse_dynamics(bp.Model(robot, p), q, qd, qdd)
    path = tmp_path / "log.csv"
    np.savetxt(path, np.column_stack([t, q, qd, qdd, tau]), delimiter=",", comments="",
               header="t,q1,q2,q3,qd1,qd2,qd3,qdd1,qdd2,qdd3,tau1,tau2,tau3")
    out = tmp_path / "i.json"
    result = CliRunner().invoke(main, ["identify", str(robot.source_file), str(path), "--cutoff", "none",
                                       "--rest-velocity", "none", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["condition_number"] is None          # the case: a regressor of lower rank
    assert "not determined by the data" in result.output and "unbounded" in result.output, result.output
    assert not re.search(r"(?<![A-Za-z_])(nan|inf)(?![A-Za-z_])", result.output, re.I), result.output


# --- 3. a payload the data do not tell from none is no body to add to the robot ---

def test_robot_out_of_a_payload_not_told_from_none_is_refused(tmp_path):
    """A sensor's noise alone (no payload): the JSON left the vendors' formats out ("no payload seen") but
    --robot-out wrote the robot with the noise's body on its last link — its inertia 300× the link's own — exit 0,
    or, for a centre of mass 7·10⁹ m off, said "Inertia.com: expected 3 finite numbers …", naming no file."""
    wrench = np.random.default_rng(3).normal(0.0, 0.3, (150, 6))
    path = _moving_wrench_log(tmp_path, wrench)
    out, robot = tmp_path / "p.json", tmp_path / "r.yaml"
    args = ["payload", str(UR), str(path), "--wrench", "fx,fy,fz,mx,my,mz", "--json", str(out)]
    result = CliRunner().invoke(main, args + ["--robot-out", str(robot)])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{path}: --robot-out: no robot written (payload: mass" in result.output, result.output
    assert "no payload seen" in result.output
    assert not robot.exists() and not out.exists()


def test_attach_refuses_a_payload_not_told_from_none():
    """The library's `attach`/`robot_text` took what `to_dict` gives no vendor format for."""
    import baseparam as bp
    from baseparam.identification.payload import PayloadResult, payload_parameters
    p = payload_parameters(4e-4, [0.3, 0.0, 0.0], np.eye(3) * 1e-3)
    result = PayloadResult(mass=4e-4, com=np.array([0.3, 0.0, 0.0]), inertia=np.eye(3) * 1e-3, mass_std=2e-3,
                           com_std=np.zeros(3), inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p,
                           covariance=np.zeros((10, 10)), identifiable=[], rank=10, mode="wrench", n_samples=100,
                           rmse=np.zeros(6))
    for call in (lambda: result.attach(UR), lambda: result.robot_text(UR, "yaml")):
        with pytest.raises(bp.DataError, match="not told from none .* no body to attach"):
            call()


# --- 4. a floating robot's refusal offers what the command line takes ---

def test_a_homogeneous_route_suggests_a_known_quantity_as_a_flag():
    """"give a known quantity, e.g. --known mass=total mass in kg or {'M0': base mass}": the second half, the library's
    dict, untranslated; and no route of the space robot sees M0 ("the base route does not see 'M0'")."""
    space = ROOT / "robots" / "space_robot.yaml"
    import baseparam as bp
    model = bp.Model(bp.load_robot(space))
    k = np.arange(1, 7)
    exp = bp.free_floating_experiment(model, np.linspace(0, 4, 81), lambda t, q, qd: np.sin(0.5 * k * t + k), seed=1)
    with pytest.raises(bp.SettingsError) as raised:
        bp.identify_floating(model.robot, exp.log, route="base")
    text = str(raised.value)
    assert "known={'mass': total mass in kg}" in text and "M0" not in text, text


@pytest.mark.parametrize("extra", [[], ["--payload"]])
def test_excite_of_a_floating_robot_names_the_command_not_the_library_function(extra):
    """"… has a floating base (base: floating); design_excitation handles fixed-base robots only" (round 18's left
    item): the command is excite."""
    space = str(ROOT / "robots" / "space_robot.yaml")
    result = CliRunner().invoke(main, ["excite", space, *extra])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"{space}: 'space robot (two 3R arms)' has a floating base" in result.output
    assert "excite handles fixed-base robots only" in result.output and "design_excitation" not in result.output


# --- 5. click's refusal of a value shows it as the library shows one ---

@pytest.mark.parametrize("flag", ["--parameters", "--period", "--starts", "--criterion"])
def test_a_long_refused_value_is_shown_shortened(flag):
    """`excite R --parameters aaa…` (3 000 characters) repeated the whole value in click's one line."""
    value = "a" * 3000
    result = CliRunner().invoke(main, ["excite", str(ROOT / "robots" / "planar_rrr.yaml"), flag, value])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "a…a" in result.output and "a" * 200 not in result.output and len(result.output) < 400, result.output


# --- 6. --skip-bad-rows drops a row whose wrench is damaged, as one whose joint value is ---

def test_skip_bad_rows_drops_a_damaged_wrench_row_as_if_the_file_had_not_held_it(tmp_path):
    """`payload R ft.csv --wrench … --skip-bad-rows` refused the file for a NaN in fx (round 18's left item): the
    flag dropped damaged joint values only. The row is dropped now, said with the others, and the payload is the
    one of the file without that line."""
    wrench = np.random.default_rng(5).normal(0.0, 0.3, (150, 6)) + [0.0, 0.0, -19.6, 0.0, 0.0, 0.0]
    whole = _moving_wrench_log(tmp_path, wrench)
    lines = whole.read_text().splitlines(keepends=True)
    damaged, short = tmp_path / "damaged.csv", tmp_path / "short.csv"
    row = lines[40].split(",")
    row[7] = "nan"                                          # fx of line 41
    damaged.write_text("".join(lines[:40] + [",".join(row)] + lines[41:]))
    short.write_text("".join(lines[:40] + lines[41:]))
    docs = []
    for path, extra in ((damaged, ["--skip-bad-rows"]), (short, [])):
        out = tmp_path / f"{path.stem}.json"
        result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--wrench", "fx,fy,fz,mx,my,mz",
                                           "--json", str(out), *extra])
        assert result.exit_code == 0, result.output
        docs.append(json.loads(out.read_text()))
    assert docs[0]["parameters"] == docs[1]["parameters"] and docs[0]["n_samples"] == docs[1]["n_samples"]
    said = CliRunner().invoke(main, ["payload", str(UR), str(damaged), "--wrench", "fx,fy,fz,mx,my,mz",
                                     "--skip-bad-rows"]).output
    assert "skipped 1 bad row of 150: line 41 (wrench fx: NaN)" in said, said


# --- 7. payload --model: another arm of the same joint types is not ROBOT_FILE's model ---

def test_a_model_of_another_arm_is_refused_before_the_fit(tmp_path, monkeypatch):
    """`payload ur10e.yaml LOG --model ur5_robot.urdf` (six revolute joints both): the UR5's geometry and bodies
    predicted the UR10e's torques, and the payload, in the UR5's last frame, was attached to the UR10e's — exit 0.
    Only the joint types were compared."""
    import baseparam.identification.payload as payload

    def fitted(*args, **kwargs):
        raise AssertionError("fitted with another arm's model")

    monkeypatch.setattr(payload, "identify_payload", fitted)
    other = tmp_path / "longer.yaml"
    other.write_text(UR.read_text().replace("d: 0.174", "d: 0.274"))      # the same arm, d4 10 cm longer
    assert other.read_text() != UR.read_text()
    log = _moving_wrench_log(tmp_path, np.zeros((40, 6)))
    result = CliRunner().invoke(main, ["payload", str(UR), str(log), "--model", str(other)])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"--model: {other} is not the arm of {UR}: joint " in result.output, result.output


@needs_data
def test_descriptions_of_one_arm_move_alike(tmp_path):
    """What --model is documented to take passes: a URDF and its DH equivalent (a base offset between them), the
    same arm with other bodies; another arm, or the same one with its last frame elsewhere, does not."""
    import baseparam as bp
    from baseparam.identification.payload import same_arm
    from baseparam.model.dh_equivalent import arm_relation, dh_equivalent, dh_robot
    urdf = bp.load_robot(DATA / "kuka_lwr4" / "kuka_lwr4.urdf")
    # one arm, one last frame: nothing to carry the payload across
    assert same_arm(urdf, dh_robot(urdf, dh_equivalent(urdf))) is None
    assert same_arm(urdf, bp.load_robot(ROOT / "robots" / "kuka_lwr4_cad.yaml")) is None
    ur = bp.load_robot(UR)
    # the vendor's published DH values beside the URDF's rounded ones (tenths of a mm): one arm (1e-6 refused it)
    published = {"d: 0.181": "d: 0.1807", "a: -0.613": "a: -0.6127", "a: -0.571,": "a: -0.57155,",
                 "d: 0.174": "d: 0.17415", "d: 0.117": "d: 0.11655"}
    text = UR.read_text()
    for rounded, vendor in published.items():
        assert rounded in text
        text = text.replace(rounded, vendor)
    (tmp_path / "published.yaml").write_text(text)
    words, last = arm_relation(ur, bp.load_robot(tmp_path / "published.yaml"))
    assert words is None and np.abs(last - np.eye(4)).max() <= 1e-3
    assert arm_relation(ur, bp.load_robot(ROOT / "robots" / "ur5.yaml"))[0] is not None     # another arm
    # one arm, its last frame elsewhere (tool0 / wrist_3_link): the payload's frame differs, carried across
    words, last = arm_relation(ur, bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml"))
    assert words is None and np.abs(last - np.eye(4)).max() > 1e-3
    assert same_arm(ur, bp.load_robot(ROOT / "robots" / "ur10e_cad.yaml")) is not None


# --- 8. payload takes glob patterns for its logs, as identify does ---

def test_payload_expands_a_pattern_as_identify_does(tmp_path):
    """`payload R 'runs/*.csv'` was "runs/*.csv: cannot read …" where `identify R 'runs/*.csv'` reads every match
    (round 18's left item); a pattern that matches nothing is refused as identify refuses it."""
    wrench = np.random.default_rng(3).normal(0.0, 0.3, (150, 6))
    _moving_wrench_log(tmp_path, wrench)
    pattern = str(tmp_path / "f*.csv")
    result = CliRunner().invoke(main, ["payload", str(UR), pattern, "--wrench", "fx,fy,fz,mx,my,mz"])
    assert result.exit_code == 0 and "payload (wrench, " in result.output, result.output
    result = CliRunner().invoke(main, ["payload", str(UR), str(tmp_path / "x*.csv"), "--wrench", "fx,fy,fz,mx,my,mz"])
    assert result.exit_code == 2 and "x*.csv: no file matches this pattern" in result.output, result.output


def test_a_model_with_a_wrench_is_refused_as_unused():
    """`payload R ft.csv --wrench … --model M`: the wrench fit uses the kinematics alone; M's bodies went unread, exit
    0 (the other options the wrench fit does not use, --delay and --rest-velocity, were refused already)."""
    result = CliRunner().invoke(main, ["payload", str(UR), "ft.csv", "--wrench", "fx,fy,fz,mx,my,mz", "--model",
                                       str(UR)])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "--model: --wrench fits the sensor's wrench with the kinematics alone" in result.output, result.output
