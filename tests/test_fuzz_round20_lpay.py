"""Round twenty's leftovers of the payload and the Python API (lpay): stop 44's "Left (found, not fixed)"."""
import json
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification.payload import identify_payload
from conftest import ROOT
from pin_model import build_model

UR, UR_CAD = ROOT / "robots" / "ur10e.yaml", ROOT / "robots" / "ur10e_cad.yaml"
# in robots/ur10e.yaml's last link frame (DH frame 6, the URDF's tool0)
PAYLOAD = (2.0, np.array([0.03, -0.02, 0.06]), np.array([[0.012, 0.002, 0.0], [0.002, 0.010, 0.001],
                                                         [0.0, 0.001, 0.006]]))


def _pin_torques(robot, q, qd, qdd, payload=PAYLOAD):
    """pinocchio's RNEA of ``robot``'s bodies, ``payload`` (None: none) added to its last link (in that link's
    frame)."""
    inertias = [pin.Inertia(j.inertia.mass, np.asarray(j.inertia.com, float), np.asarray(j.inertia.inertia, float))
                for j in robot.joints]
    if payload is not None:
        inertias[-1] = inertias[-1] + pin.Inertia(payload[0], np.asarray(payload[1], float),
                                                  np.asarray(payload[2], float))
    model, _ = build_model(robot, inertias)
    data = model.createData()
    return np.array([pin.rnea(model, data, a, b, c) for a, b, c in zip(q, qd, qdd)])


# --- 1. payload --model across frames: one arm, its last link frame placed otherwise -------------------------------

def _moving_log(robot, payload=PAYLOAD, seconds=6.0, dt=0.01):
    """A few sines per joint, pinocchio's torques with ``payload``, a little noise."""
    t = np.arange(0.0, seconds, dt)
    k = np.arange(1, robot.n_dof + 1)
    q = 0.4 * np.sin(np.outer(t, 0.7 * k) + k) + 0.3 * np.sin(np.outer(t, 1.9 + 0.3 * k))
    qd = 0.28 * k * np.cos(np.outer(t, 0.7 * k) + k) + 0.3 * (1.9 + 0.3 * k) * np.cos(np.outer(t, 1.9 + 0.3 * k))
    qdd = -0.196 * k ** 2 * np.sin(np.outer(t, 0.7 * k) + k) - 0.3 * (1.9 + 0.3 * k) ** 2 * np.sin(
        np.outer(t, 1.9 + 0.3 * k))
    tau = _pin_torques(robot, q, qd, qdd, payload) + np.random.default_rng(1).normal(0.0, 0.02, (len(t), robot.n_dof))
    return bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau)


def test_a_model_in_other_frames_gives_the_payload_in_the_robots_last_frame():
    """robots/ur10e_cad.yaml is the UR10e of robots/ur10e.yaml in its URDF's link frames (wrist_3_link, 0.117 m and a
    quarter turn from tool0): as the model of ur10e.yaml it was refused ('places the last link's frame elsewhere'),
    the library had no check at all (the payload came out in wrist_3_link's frame whatever robot it was attached to).
    Now identify_payload(model, …, robot=…) fits it in the robot's last frame: the payload pinocchio simulated on
    ur10e.yaml's tool0 comes back, found with ur10e_cad.yaml's kinematics and bodies; another arm is refused."""
    ur, cad = bp.load_robot(UR), bp.load_robot(UR_CAD)
    log = _moving_log(ur)
    # the same motion without the payload: ur10e_cad.yaml's friction and rotor inertias, which pinocchio leaves out,
    # cancel
    unloaded = _moving_log(ur, (0.0, np.zeros(3), np.zeros((3, 3))))
    result = identify_payload(cad, log, unloaded=unloaded, preprocessing=None, robot=ur)
    mass, com, inertia = PAYLOAD
    assert result.rank == 10 and abs(result.mass - mass) < 0.01 * mass
    assert np.abs(result.com - com).max() < 1e-3, result.com
    assert np.abs(result.inertia - inertia).max() < 2e-3, result.inertia
    with pytest.raises(bp.SettingsError, match="ur10e_cad.yaml is not the arm of .*ur5.yaml: joint 3's axis differs"):
        identify_payload(cad, log, preprocessing=None, robot=bp.load_robot(ROOT / "robots" / "ur5.yaml"))


def test_the_cli_fits_the_payload_of_robot_file_with_a_model_in_other_frames(tmp_path):
    """`payload ur10e.yaml STILL.csv --static --model ur10e_cad.yaml` was refused before the fit; now the mass and
    centre of mass simulated on ur10e.yaml's tool0 come back in that frame (the still poses' gravity columns
    carried), and --robot-out writes ur10e.yaml with them."""
    ur = bp.load_robot(UR)
    rng = np.random.default_rng(4)
    poses = rng.uniform(-1.5, 1.5, (12, 6))
    zero = np.zeros_like(poses)
    header = ",".join(["t"] + [f"q{j + 1}" for j in range(6)] + [f"tau{j + 1}" for j in range(6)])
    logs = []
    for name, payload in (("still.csv", PAYLOAD), ("empty.csv", (0.0, np.zeros(3), np.zeros((3, 3))))):
        tau = _pin_torques(ur, poses, zero, zero, payload) + rng.normal(0.0, 0.01, poses.shape)
        logs.append(tmp_path / name)
        np.savetxt(logs[-1], np.column_stack([np.arange(12.0), poses, tau]), delimiter=",", header=header,
                   comments="")
    out, robot_out = tmp_path / "p.json", tmp_path / "with_payload.yaml"
    # without the payload too: ur10e_cad.yaml's friction offsets, which pinocchio leaves out, cancel
    result = CliRunner().invoke(main, ["payload", str(UR), str(logs[0]), "--unloaded", str(logs[1]), "--static",
                                       "--still-duration", "0", "--model", str(UR_CAD), "--json", str(out),
                                       "--robot-out", str(robot_out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert abs(doc["mass"] - PAYLOAD[0]) < 0.01 * PAYLOAD[0]
    assert np.abs(np.array(doc["com"]) - PAYLOAD[1]).max() < 1e-3, doc["com"]
    last = bp.load_robot(robot_out).joints[-1].inertia
    own = ur.joints[-1].inertia
    together = (own.mass * np.asarray(own.com) + PAYLOAD[0] * PAYLOAD[1]) / (own.mass + PAYLOAD[0])
    assert abs(last.mass - own.mass - PAYLOAD[0]) < 0.02 and np.abs(np.asarray(last.com) - together).max() < 1e-3


# --- 2. payload --static: a log timed in ms -------------------------------------------------------------------------

def test_still_poses_of_a_log_timed_in_ms_are_refused(tmp_path):
    """Timestamps in ms made still_duration (0.5 s) half a sample: every two slow rows of the motion between the poses
    were a 'pose' — 41 poses for the 6 held, 1.75 kg for 2.0, exit 0. identify refuses such a time step
    (preprocess); the still poses now refuse a median step longer than still_duration (in seconds the log reads as
    before, and a table of poses, still_duration 0, takes any t)."""
    from test_payload_static import PAYLOAD as STILL_PAYLOAD, _csv, _log

    ur = bp.load_robot(UR)
    poses = np.array([[0.0, -1.2, 1.0, -1.4, -1.5, 0.0], [0.5, -1.0, 1.2, 0.3, 1.0, 1.5],
                      [-0.5, -1.6, 0.8, -2.5, 0.4, -1.0], [0.3, -0.8, 1.4, 1.2, -0.9, 2.4],
                      [1.0, -1.4, 0.6, -0.6, 2.0, -2.0], [-1.0, -1.1, 1.1, 2.0, -2.2, 0.8]])
    log = _log(ur, poses, STILL_PAYLOAD, seed=2)
    assert abs(identify_payload(ur, log, static=True).mass - STILL_PAYLOAD[0]) < 0.01
    in_ms = bp.Trajectory(t=1e3 * log.t, q=log.q, tau=log.tau, source="still_ms.csv")
    with pytest.raises(bp.DataError, match=r"^still_ms.csv: field t: median time step 4 s is longer than "
                                           r"still_duration \(0.5 s\).*is the time in ms or µs\? give it in seconds"):
        identify_payload(ur, in_ms, static=True)
    path = tmp_path / "still_ms.csv"
    _csv(path, in_ms)
    result = CliRunner().invoke(main, ["payload", str(UR), str(path), "--static"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "longer than --still-duration (0.5 s)" in result.output, result.output


# --- 2. PayloadResult.to_vendor: no format of a payload not seen; plain floats --------------------------------------

def _result(mass, com, mass_std=0.01, com_std=0.001):
    from baseparam.identification.payload import PayloadResult, payload_parameters

    inertia = np.diag([0.01, 0.02, 0.03])
    return PayloadResult(mass=mass, com=np.asarray(com, float), inertia=inertia, mass_std=mass_std,
                         com_std=np.full(3, com_std), inertia_std=np.full((3, 3), 0.001),
                         parameters=payload_parameters(mass, com, inertia), unconstrained=np.zeros(10),
                         covariance=np.zeros((10, 10)), identifiable=[], rank=10, mode="model", n_samples=100,
                         rmse=np.zeros(6))


def test_to_vendor_refuses_what_to_dict_leaves_out():
    """to_dict gives vendors null (and the CLI's JSON) for a mass not told from none, an undetermined mass or centre;
    to_vendor gave the controller's dict all the same (3e-5 kg with a centre 0.3 m off, loaded as if measured)."""
    for result, said in ((_result(3e-5, [0.3, 0.0, 0.0]), "is not told from none"),
                         (_result(2.0, [0.0, 0.0, 0.1], mass_std=np.nan), "the mass is not determined"),
                         (_result(2.0, [0.0, 0.0, 0.1], com_std=np.nan), "the centre of mass is not determined")):
        assert result.to_dict()["vendors"] is None
        for vendor in ("ur", "kuka", "franka"):
            with pytest.raises(bp.DataError, match=f"^payload: .*{said}.*: no vendor format$"):
                result.to_vendor(vendor)
    assert _result(2.0, [0.0, 0.0, 0.1]).to_dict()["vendors"]["ur"]["mass"] == 2.0


def test_vendor_formats_are_plain_floats_without_negative_zero():
    """KUKA's X Y Z were numpy floats beside plain ones, and a centre or angle of −0.0 came out as such (UR's cog,
    Franka's F_x_Cload too): every number is a float, none −0.0, the values unchanged."""
    import math

    result = _result(np.float64(2.0), [0.0, -0.0, 0.1])
    for vendor in ("ur", "kuka", "franka"):
        doc = result.to_vendor(vendor)
        numbers = [x for v in doc.values() for x in (v if isinstance(v, list) else [v])]
        assert all(type(x) is float for x in numbers), doc
        assert not any(x == 0 and math.copysign(1.0, x) < 0 for x in numbers), doc
    kuka = result.to_vendor("kuka")
    assert (kuka["M"], kuka["X"], kuka["Y"], kuka["Z"]) == (2.0, 0.0, 0.0, 100.0)        # mm
    assert sorted((kuka["JX"], kuka["JY"], kuka["JZ"])) == pytest.approx([0.01, 0.02, 0.03])


def test_a_result_without_mass_has_no_centre_deviation_whoever_built_it():
    """The NaN of a centre and inertia without a mass was set by each fit and again by summary(): one place now (the
    result), so to_dict's null and summary's 'undetermined' agree for a result built by hand too."""
    result = _result(0.0, [0.0, 0.0, 0.0])
    assert np.isnan(result.com_std).all() and np.isnan(result.inertia_std).all()
    assert result.to_dict()["com_std"] == [None, None, None]


# --- 3. the Python API: a motion's source, a writer's file name, gains beyond float ---------------------------------

@pytest.mark.parametrize("source", [3, b"run.csv", None, ["run.csv"]])
def test_a_motion_source_that_is_no_text_is_a_type_error(source):
    """Trajectory(..., source=3) (or Reference's) was taken as the text '3' — b'run.csv' as "b'run.csv'", None as
    'None' — a name of no file in every later message; a str or a path are what it is documented to be."""
    from pathlib import Path

    from baseparam.simulation.tracking import Reference

    t, q = np.arange(10.0), np.zeros((10, 1))
    with pytest.raises(TypeError, match=r"^source: expected a str or a path .*, got "):
        bp.Trajectory(t, q, q, source=source)
    with pytest.raises(TypeError, match=r"^source: expected a str or a path "):
        Reference(t, q, q, q, source=source)
    assert bp.Trajectory(t, q, q, source=Path("logs") / "run.csv").source == str(Path("logs") / "run.csv")


def test_a_design_written_under_another_formats_name_is_refused(tmp_path):
    """ExcitationDesign.to_json('x.csv') wrote JSON under a name every log reader takes for CSV (excite --json x.csv
    is refused): the command line's rule is the library's (check_written_format), for to_csv too."""
    from test_excitation import LIMITS

    design = bp.design_excitation(bp.load_robot(ROOT / "robots" / "planar_rrr.yaml"), period=4.0, harmonics=2,
                                  rate=20.0, limits=LIMITS, starts=1, seed=3)
    for write, name, said in ((design.to_json, "x.csv", "writes JSON, and a '.csv' name says CSV"),
                              (design.to_csv, "x.JSON", "writes CSV, and a '.JSON' name says JSON")):
        with pytest.raises(bp.ArgumentError, match=f"^path: .*{name}: {said} .*; give a "):
            write(tmp_path / name)
    assert list(tmp_path.iterdir()) == []
    assert json.loads(Path(design.to_json(tmp_path / "x.json")).read_text())
    result = CliRunner().invoke(main, ["excite", str(ROOT / "robots" / "planar_rrr.yaml"), "--json",
                                       str(tmp_path / "y.csv")])
    assert result.exit_code == 2 and "--json: " in result.output and "writes JSON, and a '.csv' name says CSV" in \
        result.output, result.output


def test_gains_beyond_float_are_refused_naming_the_field(tmp_path):
    """read_trajectory(..., gains=10**400) ended in numpy's bare OverflowError ('int too large to convert to
    float'), no file or field named; a gain of inf as text was already refused as no usable gain."""
    path = tmp_path / "log.csv"
    np.savetxt(path, np.column_stack([np.arange(20.0), np.zeros(20), np.ones(20)]), delimiter=",",
               header="t,q1,current1", comments="")
    for gains in (10 ** 400, [10 ** 400]):
        with pytest.raises(bp.DataError, match=rf"^{path}: gains: a number beyond the float range"):
            bp.read_trajectory(path, gains=gains)
    assert bp.read_trajectory(path, gains=2.0).tau[0, 0] == 2.0
