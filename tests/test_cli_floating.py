"""`baseparam identify ROBOT LOG --route …` on floating-base robots: simulated experiments written as
log files (docs/formats.md, "Floating-base logs"), the command run in a fresh interpreter, its JSON
compared with bp.identify_floating on the same data and with the truth."""
import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.identification.floating_logs import read_floating_log, write_floating_log
from conftest import ROOT
from test_floating_identification import SPACE, needs_solo, stance_experiment, z_bound

ENV_ROOT = str(ROOT)


def run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "baseparam.cli", "identify", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=ENV_ROOT)
    return proc


def compare(out_file, reference, truth):
    out = json.loads(out_file.read_text())
    assert out["route"] == reference.route and out["n_samples"] == reference.n_samples
    assert [c["name"] for c in out["combinations"]] == reference.names
    values = np.array([c["value"] for c in out["combinations"]])
    std = np.array([c["std"] for c in out["combinations"]])
    np.testing.assert_allclose(values, reference.values, rtol=1e-10, atol=1e-10 * np.abs(reference.values).max())
    np.testing.assert_allclose(std, reference.std, rtol=1e-10, atol=1e-10 * np.abs(reference.std).max())
    seen = std > 0
    z = (values - reference.from_standard(truth))[seen] / std[seen]
    # every seen combination within reach: Bonferroni at family-wise 1 % (test_floating_identification.z_bound:
    # max |z| ≤ 3 fails about one fixed seed in four with 94 calibrated σ)
    assert np.abs(z).max() <= z_bound(len(z)), np.abs(z).max()
    return out


@pytest.mark.parametrize("ext", ["csv", "npz"])
def test_logs_read_back_bit_for_bit(space, tmp_path, ext):
    path = tmp_path / f"log.{ext}"
    write_floating_log(path, space.log, np.arange(space.log.n_samples * 12.0).reshape(-1, 2, 6))
    traj, w = read_floating_log(path, bp.load_robot(SPACE), 2)
    for field in ("t", "q", "qd", "qdd", "tau"):
        np.testing.assert_array_equal(getattr(traj, field), getattr(space.log, field))
    np.testing.assert_array_equal(w, np.arange(space.log.n_samples * 12.0).reshape(-1, 2, 6))
    assert traj.floating


def test_space_robot_momentum_route_from_npz(space, tmp_path):
    write_floating_log(tmp_path / "log.npz", space.log)
    proc = run_cli(SPACE, tmp_path / "log.npz", "--route", "momentum", "--known", "mass=448",
                   "--json", tmp_path / "out.json")
    assert proc.returncode == 0, proc.stderr
    assert "route='momentum'" in proc.stdout
    reference = bp.identify_floating(bp.load_robot(SPACE), space.log, route="momentum", known={"mass": 448.0})
    out = compare(tmp_path / "out.json", reference, space.parameters)
    assert out["known"] == {"mass": 448.0} and len(out["combinations"]) == 52


def test_space_robot_consistent_fit_from_csv(space, tmp_path):
    write_floating_log(tmp_path / "log.csv", space.log)
    proc = run_cli(SPACE, tmp_path / "log.csv", "--route", "momentum", "--known", "mass=448", "--method",
                   "consistent", "--json", tmp_path / "out.json")
    assert proc.returncode == 0, proc.stderr
    reference = bp.identify_floating(bp.load_robot(SPACE), space.log, route="momentum", known={"mass": 448.0},
                                     method="consistent")
    out = json.loads((tmp_path / "out.json").read_text())
    values = np.array([c["value"] for c in out["combinations"]])
    # the conic solver in another process, on the numbers read back from the CSV: the same result
    np.testing.assert_allclose(values, reference.values, rtol=1e-10, atol=1e-10 * np.abs(reference.values).max())
    assert set(out["standard"]) == set(reference.standard_names)


@needs_solo
def test_legged_robot_on_force_plates_torques_and_base_routes(tmp_path):
    model, contacts, _, ex = stance_experiment()
    robot = model.robot
    write_floating_log(tmp_path / "stance.csv", ex.log, ex.wrenches)
    lines = [f"  - {{link: {c.link}, xyz: [{', '.join(repr(x) for x in c.position)}], rpy: [0, 0, 0], "
             f"name: {c.name}}}" for c in contacts]
    (tmp_path / "contacts.yaml").write_text("contacts:\n" + "\n".join(lines) + "\n")
    from test_floating_identification import SOLO
    for route in ("torques", "base"):
        proc = run_cli(SOLO, tmp_path / "stance.csv", "--floating", "--route", route, "--contacts",
                       tmp_path / "contacts.yaml", "--json", tmp_path / f"{route}.json")
        assert proc.returncode == 0, proc.stderr
        reference = bp.identify_floating(robot, ex.log, route=route, contacts=contacts, wrenches=ex.wrenches)
        compare(tmp_path / f"{route}.json", reference, ex.parameters)
    # the log without the fourth contact's wrench columns: refused, one line
    text = (tmp_path / "stance.csv").read_text().splitlines()
    header = text[0].split(",")
    keep = [i for i, h in enumerate(header) if not h.startswith("w4_")]
    (tmp_path / "short.csv").write_text("\n".join(",".join(row.split(",")[i] for i in keep) for row in text) + "\n")
    proc = run_cli(SOLO, tmp_path / "short.csv", "--floating", "--route", "base", "--contacts",
                   tmp_path / "contacts.yaml")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "'w4_fx'" in proc.stderr, proc.stderr
    assert "short.csv" in proc.stderr


def one_line_error(result, *words):
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output, result.output
    for word in words:
        assert word in result.output, result.output


def test_bad_input_one_line(space, tmp_path):
    log = tmp_path / "log.npz"
    write_floating_log(log, space.log)
    run = CliRunner().invoke
    one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "sideways"]), "--route", "sideways")
    one_line_error(run(main, ["identify", str(SPACE), str(log)]), "--route", "floating base")
    one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "momentum"]), "--known")
    one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "momentum", "--known", "mass"]),
                   "--known", "NAME=VALUE")
    one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "torques", "--method", "wls"]),
                   "--method wls")
    one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "torques", "--plot",
                              str(tmp_path / "a.png")]), "--plot")
    # contacts files: not YAML, no list, a bad position, an unknown joint
    for name, text, words in (("bad.yaml", "contacts: [", ("not YAML",)),
                              ("empty.yaml", "links: []", ("contacts:",)),
                              ("xyz.yaml", "contacts:\n  - {link: 1, xyz: [0, 0]}\n", ("contacts[1]", "xyz")),
                              ("key.yaml", "contacts:\n  - {link: 1, pos: [0, 0, 0]}\n", ("'pos'",)),
                              ("joint.yaml", "contacts:\n  - {link: nowhere}\n", ("nowhere",))):
        (tmp_path / name).write_text(text)
        one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "base", "--known", "mass=448",
                                  "--contacts", str(tmp_path / name)]), *words)
    # a contact declared, its wrench absent from the NPZ
    (tmp_path / "one.yaml").write_text("contacts:\n  - {link: 1}\n")
    one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "base", "--contacts",
                              str(tmp_path / "one.yaml")]), "log.npz", "wrenches")
    # a NaN in a CSV (its line named), a q of the wrong width in an NPZ, a text that is no number
    write_floating_log(tmp_path / "log.csv", space.log)
    lines = (tmp_path / "log.csv").read_text().splitlines()
    row = lines[5].split(",")
    row[9] = "nan"
    (tmp_path / "nan.csv").write_text("\n".join(lines[:5] + [",".join(row)] + lines[6:]) + "\n")
    one_line_error(run(main, ["identify", str(SPACE), str(tmp_path / "nan.csv"), "--route", "torques"]),
                   "nan.csv: line 6: q9: not a finite number")
    row[9] = "abc"
    (tmp_path / "abc.csv").write_text("\n".join(lines[:5] + [",".join(row)] + lines[6:]) + "\n")
    one_line_error(run(main, ["identify", str(SPACE), str(tmp_path / "abc.csv"), "--route", "torques"]),
                   "abc.csv", "'abc'")
    np.savez(tmp_path / "narrow.npz", t=space.log.t, q=space.log.q[:, :-1], qd=space.log.qd)
    one_line_error(run(main, ["identify", str(SPACE), str(tmp_path / "narrow.npz"), "--route", "momentum", "--known",
                              "mass=448"]), "narrow.npz: q: expected shape (S, 13)")
    # the momentum route under gravity: the space robot with gravity
    text = SPACE.read_text()
    assert "gravity: [0, 0, 0]" in text or "gravity" not in text
    earth = tmp_path / "earth.yaml"
    earth.write_text(text.replace("gravity: [0, 0, 0]", "gravity: [0, 0, -9.81]") if "gravity: [0, 0, 0]" in text
                     else text.rstrip("\n") + "\ngravity: [0, 0, -9.81]\n")
    one_line_error(run(main, ["identify", str(earth), str(log), "--route", "momentum", "--known", "mass=448"]),
                   "--route", "gravity")
    # the contacts file as the output; --workers; a fixed-base robot given --route
    one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "base", "--contacts",
                              str(tmp_path / "one.yaml"), "--json", str(tmp_path / "one.yaml")]), "--json")
    assert (tmp_path / "one.yaml").read_text() == "contacts:\n  - {link: 1}\n"
    one_line_error(run(main, ["identify", str(SPACE), str(log), "--route", "momentum", "--known", "mass=448",
                              "--workers", "2"]), "--workers")
    one_line_error(run(main, ["identify", str(ROOT / "robots" / "puma560.yaml"), str(log), "--route", "torques"]),
                   "--route", "fixed base")


def test_several_logs_fitted_together(space, tmp_path):
    """Two logs (the halves of one motion, a CSV and an NPZ): one fit of both, as the library's of the list."""
    halves = [bp.Trajectory(t=space.log.t[s], q=space.log.q[s], qd=space.log.qd[s], qdd=space.log.qdd[s],
                            tau=space.log.tau[s], floating=True) for s in (slice(0, 100), slice(100, None))]
    write_floating_log(tmp_path / "a.csv", halves[0])
    write_floating_log(tmp_path / "b.npz", halves[1])
    result = CliRunner().invoke(main, ["identify", str(SPACE), str(tmp_path / "a.csv"), str(tmp_path / "b.npz"),
                                       "--route", "base", "--known", "mass=448", "--json", str(tmp_path / "o.json")])
    assert result.exit_code == 0, result.output
    reference = bp.identify_floating(bp.load_robot(SPACE), halves, route="base", known={"mass": 448.0})
    out = compare(tmp_path / "o.json", reference, space.parameters)
    assert out["n_samples"] == space.log.n_samples
