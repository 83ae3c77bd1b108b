"""Round 24 of the command-line fuzzing (issue 28), helper fzcli: each class found, its test."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT
from test_payload import CASES, _multisine, _torques

UR10E = ROOT / "robots" / "ur10e.yaml"


def _payload_logs(tmp_path):
    """A loaded and an unloaded log of UR10e (CASES' 2 kg payload), 4 s at 200 Hz."""
    robot = bp.load_robot(UR10E)
    t, q, qd, qdd = (a[:800] for a in _multisine(robot.n_dof))
    n = robot.n_dof
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(n)] + [f"tau{j + 1}" for j in range(n)])
    paths = {}
    for name, payload in (("loaded", CASES[0][1]), ("unloaded", (0.0, np.zeros(3), np.zeros((3, 3))))):
        paths[name] = tmp_path / f"{name}.csv"
        np.savetxt(paths[name], np.column_stack([t, q, _torques(robot, payload, q, qd, qdd)]), delimiter=",",
                   header=header, comments="")
    return paths


# --- 1. a mass below zero the consistent fit turned into a small positive one was a payload ---

def test_a_negative_least_squares_mass_is_no_payload_even_when_the_fit_keeps_a_positive_one(tmp_path):
    """`payload R unloaded.csv --unloaded loaded.csv` (the logs swapped, −2 kg by least squares): the consistent
    estimate came out 0.103 ± 6e-07 kg with its centre of mass 2.2 m away, told from none: exit 0, no warning,
    the vendors' formats in the JSON and --robot-out written with that body (round 18 handled the fit keeping
    0 kg only). It is now said as a mass below zero: a warning, no vendor format, no robot written."""
    logs = _payload_logs(tmp_path)
    swapped = [str(UR10E), str(logs["unloaded"]), "--unloaded", str(logs["loaded"])]
    out = tmp_path / "p.json"
    result = CliRunner().invoke(main, ["payload", *swapped, "--json", str(out)])
    assert result.exit_code == 0, result.output
    warning = [line for line in result.output.splitlines() if line.startswith("baseparam: warning:")]
    assert len(warning) == 1 and "a mass below zero beyond 3 σ (-2 kg found" in warning[0], result.output
    assert "the loaded and unloaded logs swapped?" in warning[0]
    doc = json.loads(out.read_text())
    assert doc["vendors"] is None and doc["mass"] > 0.01        # the fit's body, said to mean nothing
    robot_out = tmp_path / "r.yaml"
    refused = CliRunner().invoke(main, ["payload", *swapped, "--robot-out", str(robot_out)])
    assert refused.exit_code == 2 and not robot_out.exists()
    assert refused.output.strip().splitlines()[-1].startswith(
        f"baseparam: {logs['unloaded']}: --robot-out: no robot written (payload: a mass below zero"), refused.output
    # the logs the right way round: the payload, its vendors' formats
    good = CliRunner().invoke(main, ["payload", str(UR10E), str(logs["loaded"]), "--unloaded", str(logs["unloaded"]),
                                     "--json", str(out)])
    assert good.exit_code == 0 and "warning" not in good.output, good.output
    doc = json.loads(out.read_text())
    assert doc["mass"] == pytest.approx(2.0, rel=1e-4) and set(doc["vendors"]) == {"ur", "kuka", "franka"}


# --- 2. --gains-from-targets reading one column as both the torque and the current fitted a gain of 1 ---

def _target_log(tmp_path):
    """UR10e's loaded log with the controller's commanded torque (= the torque) and current (τ/k) columns."""
    robot = bp.load_robot(UR10E)
    t, q, qd, qdd = (a[:800] for a in _multisine(robot.n_dof))
    tau = _torques(robot, CASES[0][1], q, qd, qdd)
    k = np.linspace(0.1, 0.15, 6)
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tm{j + 1}" for j in range(6)]
                      + [f"ic{j + 1}" for j in range(6)])
    path = tmp_path / "targets.csv"
    np.savetxt(path, np.column_stack([t, q, tau, tau / k]), delimiter=",", header=header, comments="")
    return path


def test_one_column_read_as_target_torque_and_current_is_refused(tmp_path):
    """`payload R LOG --gains-from-targets tau=7:13,current=7:13`: every slope exactly 1, gains of 1 N·m/A taken
    without a word and the 2 kg payload found at 100 kg (exit 0). Refused: one line naming the log, the flag and
    the joint; the right columns still give the payload."""
    from baseparam.identification.drive_gains import controller_gains
    log = _target_log(tmp_path)
    columns = ["--columns", "t=0,q=1:7,current=13:19"]
    same = CliRunner().invoke(main, ["payload", str(UR10E), str(log), *columns,
                                     "--gains-from-targets", "tau=7:13,current=7:13"])
    assert same.exit_code == 2, same.output
    assert same.output.strip().splitlines() == [
        f"baseparam: {log}: --gains-from-targets: joint 1: the target current equals the target torque, sample for "
        "sample (one column read as both?); no gain to read"]
    tau = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.raises(bp.DataError, match=r"^controller gains: joint 2: the target current equals the target "):
        controller_gains(tau, np.column_stack([2 * tau[:, 0], tau[:, 1]]), np.ones((50, 2)))
    good = CliRunner().invoke(main, ["payload", str(UR10E), str(log), *columns,
                                     "--gains-from-targets", "tau=7:13,current=13:19"])
    assert good.exit_code == 0 and "mass     2.0000" in good.output, good.output


def test_a_controller_gains_refusal_names_the_flag_and_the_logs(tmp_path):
    """The fit's other refusals ('controller gains: joint 1: the target torque does not vary') named neither the
    flag nor a log: the pooled logs are named, the first and how many more."""
    log = _target_log(tmp_path)
    text = log.read_text().splitlines()
    rows = [line.split(",") for line in text[1:]]
    for row in rows:
        row[7] = "1.5"                              # joint 1's commanded torque held
    flat = tmp_path / "flat.csv"
    for name in ("flat.csv", "flat_unloaded.csv"):
        (tmp_path / name).write_text("\n".join([text[0]] + [",".join(row) for row in rows]) + "\n")
    result = CliRunner().invoke(main, ["payload", str(UR10E), str(flat), "--unloaded",
                                       str(tmp_path / "flat_unloaded.csv"), "--columns",
                                       "t=0,q=1:7,current=13:19", "--gains-from-targets", "tau=7:13,current=13:19"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"baseparam: {flat} and 1 more log: --gains-from-targets: joint 1: the target torque does not vary; no gain "
        "to read"], result.output


# --- 3. an output refused before the work (its folder missing, its name too long, a plot's format) named no flag ---

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


@pytest.mark.parametrize("args,flag", [
    (["equations", PLANAR, "--json", "OUT.json"], "--json"), (["equations", PLANAR, "--python", "OUT.py"], "--python"),
    (["equations", PLANAR, "--out", "OUT.md"], "--out"), (["find", PLANAR, "--h5", "OUT.h5"], "--h5"),
    (["payload", UR10E, "--suggest-poses", "4", "--json", "OUT.json"], "--json")])
def test_an_output_in_a_missing_folder_names_its_flag(tmp_path, args, flag):
    """`equations R --json new/o.json` said 'new/o.json: directory …/new does not exist': which of the command's
    outputs it was went unsaid ('dir: --json: is a directory' names it). Now 'new/o.json: --json: directory …'."""
    out = str(tmp_path / "new" / args[-1])
    result = CliRunner().invoke(main, [str(a) for a in args[:-1]] + [out])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"baseparam: {out}: {flag}: directory {tmp_path / 'new'} does not exist"], result.output
    long = str(tmp_path / ("a" * 300 + "." + args[-1].split(".")[1]))
    result = CliRunner().invoke(main, [str(a) for a in args[:-1]] + [long])
    assert result.output.strip().splitlines() == [f"baseparam: {long}: {flag}: cannot write (File name too long)"]
    assert not (tmp_path / "new").exists()


def test_a_plot_format_refused_names_the_flag(tmp_path):
    limits = tmp_path / "lim.yaml"
    limits.write_text("joints: [{qd: 2.0, qdd: 10.0}, {qd: 2.0, qdd: 10.0}, {qd: 2.0, qdd: 10.0}]\n")
    result = CliRunner().invoke(main, ["excite", str(PLANAR), "--limits", str(limits), "--plot", str(tmp_path / "o.c")])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1].startswith(
        f"baseparam: {tmp_path / 'o.c'}: --plot: unsupported plot format '.c' (use one of "), result.output


# --- 4. a fit's inertia physical to the solver's slack only was refused by --robot-out in Inertia's words ---

def test_an_inertia_physical_to_the_fits_slack_is_attached_and_given_to_the_vendors(tmp_path):
    """`payload R.urdf LOG --tip link5 --robot-out o.urdf`: the consistent fit (1.4 g, 3.5 σ from none) came out with
    a principal moment of −3.6e-12 kg·m² beside 2.5e-11, within the fit's slack (PayloadResult takes it), and
    --robot-out ended in 'baseparam: Inertia.inertia: not a physical inertia: a principal moment is negative'
    (exit 2, neither file nor flag; the KUKA format's JX below zero). The body written, and the vendors' moments,
    now get the smallest isotropic term that makes it physical; a physical inertia is taken as it is."""
    from baseparam.identification.payload import PayloadResult, payload_parameters
    robot = bp.load_robot(UR10E)
    mass, com = 0.0013880564289014822, np.array([1.1815685054301774, 0.865221063216273, -1.3679258046611416])
    inertia = np.array([[5.892333712967379e-12, -9.01176442497098e-12, 9.914401764843372e-12],
                        [-9.01176442497098e-12, 1.805722151665412e-11, 3.2512508310600374e-12],
                        [9.914401764843372e-12, 3.2512508310600374e-12, 1.9083282046597483e-11]])
    assert np.linalg.eigvalsh(inertia)[0] < -3e-12
    p = payload_parameters(mass, com, inertia)

    def result(I):
        return PayloadResult(mass=mass, com=com, inertia=I, mass_std=0.0004, com_std=np.full(3, 0.4),
                             inertia_std=np.full((3, 3), 0.004), parameters=payload_parameters(mass, com, I),
                             unconstrained=p, covariance=np.eye(10) * 1e-8, identifiable=list("ABCDEFGHIJ"), rank=10,
                             mode="model", n_samples=560, rmse=np.zeros(6), robot=robot)

    fitted = result(inertia)
    for fmt in ("yaml", "urdf"):
        (tmp_path / f"r.{fmt}").write_text(fitted.robot_text(robot, fmt))
        last = bp.load_robot(tmp_path / f"r.{fmt}").joints[-1].inertia
        assert last.mass == pytest.approx(robot.joints[-1].inertia.mass + mass, rel=1e-12)
    kuka = fitted.to_vendor("kuka")
    assert min(kuka["JX"], kuka["JY"], kuka["JZ"]) >= 0
    assert fitted.attach(robot).joints[-1].inertia.mass == pytest.approx(robot.joints[-1].inertia.mass + mass,
                                                                         rel=1e-12)
    # a physical inertia is carried bit for bit
    physical = result(np.diag([1e-3, 2e-3, 2.5e-3]))
    assert physical.to_vendor("ur")["inertia"][:3] == [1e-3, 2e-3, 2.5e-3]
    from baseparam.identification._payload_math import body_inertia as _body_inertia
    assert np.array_equal(_body_inertia(physical.inertia), physical.inertia)
    added = _body_inertia(inertia) - inertia                   # isotropic, within the fit's slack
    assert np.abs(added - added[0, 0] * np.eye(3)).max() < 1e-20 and 0 < added[0, 0] < 1e-11


# --- 5. drive gains for a log of neither torques nor currents: a false claim; with --wrench: not refused as unused ---

def _wrench_log(tmp_path):
    t = np.arange(0, 2, 0.01)
    q = 0.3 * np.sin(np.outer(t, np.arange(1, 7)))
    path = tmp_path / "ft.csv"
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + ["fx", "fy", "fz", "mx", "my", "mz"])
    np.savetxt(path, np.column_stack([t, q, np.ones((len(t), 6))]), delimiter=",", header=header, comments="")
    return path


def test_gains_for_a_log_without_effort_do_not_claim_torques(tmp_path):
    """`identify R ft.csv --gains …` of a log of positions and a wrench sensor's columns said 'the data has torques
    (field tau)': it has none."""
    log = _wrench_log(tmp_path)
    result = CliRunner().invoke(main, ["identify", str(UR10E), str(log), "--gains", "1,1,1,1,1,1"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"baseparam: {log}: gains given, but the data has no joint effort (no field tau nor current), not motor "
        "currents; gains apply to current only"], result.output
    with pytest.raises(bp.DataError, match=r"gains given, but the data has torques \(field tau\)"):
        bp.read_trajectory(_payload_logs(tmp_path)["loaded"], gains=[1.0] * 6)


@pytest.mark.parametrize("args,flag", [(["--gains", "1,1,1,1,1,1"], "--gains"),
                                       (["--gains-from-targets", "tau=1:7,current=7:13"], "--gains-from-targets")])
def test_wrench_refuses_drive_gains_as_unused(tmp_path, args, flag):
    """`payload R ft.csv --wrench … --gains …`: the wrench fit reads no joint effort, and the gains were refused with
    the reader's false 'the data has torques'; --delay and --model are refused as unused the same way."""
    log = _wrench_log(tmp_path)
    result = CliRunner().invoke(main, ["payload", str(UR10E), str(log), "--wrench", "fx,fy,fz,mx,my,mz", *args])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"baseparam: {flag}: --wrench fits the sensor's wrench, not the joint torques drive gains make of currents; "
        "leave it out"], result.output


# --- 6. a known quantity the data contradict was held on the torques route without a word ---

def test_a_known_value_the_data_contradict_is_said(space, tmp_path):
    """`identify space_robot.yaml LOG --route torques --known mass=1` (the robot weighs 448 kg): the torques route
    sees forces, so the data fix the scale themselves; the known value was held as an equality, every estimate
    pulled to it, exit 0 and no word. Now one warning line says what the data find without it; the true value
    (and the homogeneous routes, which need one) say nothing."""
    import warnings

    from baseparam.identification.floating import identify_floating
    from baseparam.identification.floating_logs import write_floating_log
    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    with pytest.warns(bp.DataWarning, match=r"^known: the data of the torques route disagree with mass=1 \(without it "
                                            r"44[0-9.]+ ± [0-9.e-]+, [0-9]+ σ away\); every estimate is held to the "
                                            r"value given \(check it: noisy velocities or accelerations also bias"):
        wrong = identify_floating(robot, space.log, route="torques", known={"mass": 1.0})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        right = identify_floating(robot, space.log, route="torques", known={"mass": 448.0})
        identify_floating(robot, space.log, route="momentum", known={"mass": 1.0})     # the scale is the known's
    assert wrong.known == {"mass": 1.0} and right.known == {"mass": 448.0}       # results as before: held
    write_floating_log(tmp_path / "log.csv", space.log)
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "space_robot.yaml"), str(tmp_path / "log.csv"),
                                       "--route", "torques", "--known", "mass=1"])
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if line.startswith("baseparam: warning:")]
    assert len(said) == 1 and said[0].startswith(
        "baseparam: warning: --known: the data of the torques route disagree with mass=1 (without it 44"), said


# --- 7. a URDF read with --floating, refused by a fixed-base command, was said to float by YAML's 'base: floating' ---

URDF_ARM = """<robot name="arm">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <link name="l1"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="2"/></joint>
</robot>
"""


@pytest.mark.parametrize("command", [["equations"], ["excite"], ["payload", "LOG"]])
def test_a_urdf_floating_by_the_flag_is_not_said_to_be_base_floating(tmp_path, command):
    """`excite R.urdf --floating` said "'arm' has a floating base (base: floating)": a YAML key the URDF has not; the
    flag made it float. A YAML robot still names its key."""
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(URDF_ARM)
    args = [command[0], str(urdf), *[str(tmp_path / "log.csv") for _ in command[1:]], "--floating"]
    (tmp_path / "log.csv").write_text("t,q1,tau1\n" + "".join(f"{k * 0.01},0,0\n" for k in range(50)))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1].startswith(
        f"baseparam: {urdf}: 'arm' has a floating base (read with --floating, or its root joint floating); "), \
        result.output
    space = CliRunner().invoke(main, ["equations", str(ROOT / "robots" / "space_robot.yaml")])
    assert "has a floating base (base: floating); equations handles" in space.output, space.output
