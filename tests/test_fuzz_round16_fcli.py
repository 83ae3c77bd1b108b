"""Regressions of the command-line fuzzing of issue 28's sixteenth round (the newest surfaces: payload, equations,
floating-base runs, export of robots carrying a payload; odd values in every numeric option; every path option given
a folder, FIFO, device, link or an odd name). Each run was a forked process with its own folder, HOME and TMPDIR;
the fuzzer itself was a throwaway, these are the deterministic cases it found, each failing before its fix."""
import ast

import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT, one_line

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _renamed(tmp_path, name):
    """The planar arm under another name (a YAML string, so any character a one-line name may hold)."""
    import json
    path = tmp_path / "robot.yaml"
    path.write_text(PLANAR.read_text(encoding="utf-8").replace("name: Planar RRR (vertical plane)",
                                                              f"name: {json.dumps(name)}"), encoding="utf-8")
    return path


# `equations --python` put the robot's name into the module's docstring as written: a name holding '"""' ended the
# docstring, one holding '\N' broke its escape, and the run was refused as "source: not Python: invalid character
# '…' (line 27)" — a valid description, an output that could not be written, a message naming no file.
def test_equations_python_module_of_a_robot_named_with_quotes_or_backslashes_loads(tmp_path):
    out = tmp_path / "eq.py"
    result = _run("equations", _renamed(tmp_path, 'tool """ holder \\N{x} v2'), "--python", out)
    assert result.exit_code == 0, result.output
    module = ast.parse(out.read_text(encoding="utf-8"))
    assert "Equations of motion of" in ast.get_docstring(module)


def _no_projection(*args, **kwargs):
    raise AssertionError("the projection ran before the run was refused")


# `equations`/`export --friction --friction-model smooth` (a scale left 'auto', which identification chooses from
# data) said "joints[1].friction_model.velocity: 'auto' is identified from data; …": no robot, a Python path for the
# flag, after the whole projection (excite said the same problem naming the robot and --friction-model). One
# message now (model.friction.refuse_unresolved), before the projection.
@pytest.mark.parametrize("command", [["equations"], ["export", "--lang", "python", "--out", "code"]])
def test_a_friction_scale_left_auto_in_written_code_is_refused_naming_file_and_flag_before_the_work(
        tmp_path, monkeypatch, command):
    import baseparam.projection.base_set as base_set
    monkeypatch.setattr(base_set, "find_base_parameters", _no_projection)
    monkeypatch.chdir(tmp_path)
    name, *options = command
    result = _run(name, PLANAR, "--friction", "--friction-model", "smooth", *options)
    one_line(result, "planar_rrr.yaml: ", "joints[1].friction_model", "velocity scale is 'auto'",
             "--friction-model smooth:")
    assert list(tmp_path.iterdir()) == []


# `identify SPACE LOG --route momentum --known mass=1e-300` (or 1e-320, a subnormal) ran, exit 0: the known mass sets
# the scale of every estimate, whose variances are its square and underflowed — XX0 = 1.37e-301 ± 8.03 (the σ of a
# 1 kg fit), the known total mass itself "± 5e-15". A known value of 0, or from 1e-100 on, is taken as before.
@pytest.mark.parametrize("known, said", [("mass=1e-300", "mass: expected the total mass in kg from 1e-100"),
                                         ("SX1=1e-320", "SX1: expected 0 or a magnitude from 1e-100")])
def test_a_known_quantity_below_what_its_squares_can_hold_is_refused(tmp_path, known, said):
    from baseparam.identification.floating_logs import write_floating_log
    import baseparam as bp
    model = bp.Model(bp.load_robot(ROOT / "robots" / "space_robot.yaml"))
    log = bp.free_floating_experiment(model, np.linspace(0, 1, 21), lambda t, q, qd: np.ones(6)).log
    write_floating_log(tmp_path / "log.npz", log)
    one_line(_run("identify", ROOT / "robots" / "space_robot.yaml", tmp_path / "log.npz", "--route", "momentum",
                  "--known", known), "--known", said)


# `export --lang c --prefix math` wrote math.h beside math.c: compiled with that folder on the include path
# (`cc -Iout out/math.c`), the code's own `#include <math.h>` found it instead of the C library's, cos and sin were
# undeclared (implicitly int before C99: wrong torques). A C standard header's name, in any case, is refused.
@pytest.mark.parametrize("prefix", ["math", "Stdio"])
def test_a_c_prefix_naming_a_standard_header_is_refused(tmp_path, prefix):
    result = _run("export", PLANAR, "--lang", "c", "--prefix", prefix, "--out", tmp_path / "code")
    one_line(result, "--prefix", f"hides the C library's <{prefix.lower()}.h>")
    assert not (tmp_path / "code").exists()
