"""Regressions of the command-line fuzzing of issue 28's tenth round, over the older commands (find, describe,
export, equations, excite, identify) with fresh eyes: each case below failed before its fix. The fuzzer itself was
a throwaway (the CLI run in a forked process with a time limit and a signal at a random moment); these are the
deterministic cases it found."""
import signal

import pytest
from click.testing import CliRunner

from baseparam import cli
from baseparam.cli import main
from conftest import ROOT
from test_fuzz_round9 import _planar_log

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _set_name_raises(exc):
    """What a class body does when a signal lands in a descriptor's ``__set_name__`` (scipy.stats's import):
    Python 3.11 wraps the signal's exception in a RuntimeError."""
    class Descriptor:
        def __set_name__(self, owner, name):
            raise exc

    type("Distribution", (), {"moments": Descriptor()})


@pytest.mark.parametrize("exc, status, said", [
    (KeyboardInterrupt(), 128 + signal.SIGINT, "interrupted"),
    (cli._Terminated(signal.SIGTERM), 128 + signal.SIGTERM, "terminated (SIGTERM)"),
])
def test_a_signal_wrapped_by_python_stops_the_run_as_a_signal(tmp_path, monkeypatch, exc, status, said):
    """A Ctrl-C that landed while `identify` imported scipy.stats ended in "internal error: RuntimeError: Error
    calling __set_name__ on 'cached_property' instance …", exit 1: the wrapped signal is now a stop (128 + N, one
    line), and the JSON named is not written."""
    stops = []

    def stopped(message, code):         # the real one ends the process (os._exit)
        stops.append((message, code))
        raise SystemExit(code)

    monkeypatch.setattr(cli, "_stopped", stopped)
    monkeypatch.setattr("baseparam.model.loading.load_robot", lambda *a, **k: _set_name_raises(exc))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["find", str(PLANAR), "--json", "a.json"])
    cli._SIGNALLED.clear()
    assert "internal error" not in result.output and "Traceback" not in result.output, result.output
    assert stops == [(said, status)] and result.exit_code == status, (stops, result.output)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("model, scale", [("stribeck", "stribeck"), ("smooth", "velocity")])
def test_equations_of_a_friction_scale_left_to_identification_is_one_line(tmp_path, monkeypatch, model, scale):
    """`equations --friction --friction-model stribeck` (scale 'auto', identified from data) ended in "internal
    error: ValueError: could not convert string to float: 'auto'", exit 1, as the written module's code was being
    made; now the refusal `export` gives, naming the joint and the scale, and nothing written."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["equations", str(PLANAR), "--friction", "--friction-model", model,
                                       "--python", "tau.py"])
    assert result.exit_code == 2 and "internal error" not in result.output, result.output
    # (round 16: the flag's form, as every command that evaluates the friction without data; round 17: the file
    # named, as every other refusal of a description names it)
    assert result.output.strip() == (f"baseparam: {PLANAR}: joints[1].friction_model: the {scale} "
                                     "scale is 'auto', which identification chooses from training data; give the "
                                     "number for the written code (or export the identified description), e.g. "
                                     f"--friction-model {model}:0.05")     # the model given, with a number
    assert list(tmp_path.iterdir()) == []


def test_excite_report_of_a_budget_spent_before_any_start_finished():
    """`excite --time-budget 1e-300` (no start finished: start 0's best iterate so far, with a warning) reported
    "search: best of starts 0--1 … starts=0 reproduces it" — a range that is not one and a setting that is refused
    (--starts is at least 1). The summary of such a search, made here from a finished one with its count set to 0
    (the budget's timing is not a test's to rely on)."""
    from dataclasses import replace

    import baseparam as bp
    from baseparam.excitation.report import summary_text
    robot = bp.load_robot(PLANAR)
    limits = {"joints": [{"q": [-2, 2.5], "qd": 1.5}, {"q": [-1.5, 1.5], "qd": 2}, {"q": [-2.5, 2.5], "qd": 2.5}]}
    design = bp.design_excitation(robot, period=2.0, harmonics=2, rate=10.0, limits=limits, starts=1, seed=0)
    finished = summary_text(design)
    assert "search: best of starts 0-0 (start 0)" in finished and "reproduces" not in finished
    cut = summary_text(replace(design, search=replace(design.search, counted=0, time_budget=1e-300)))
    line = next(line for line in cut.splitlines() if line.startswith("search:"))
    assert "0--1" not in line and "starts=0" not in line, line
    assert line.startswith(f"search: start {design.search.best_start} unfinished (its best iterate so far), 1 asked")
    assert line.endswith("(time budget 1e-300 s: timing-dependent)"), line


@pytest.mark.parametrize("option", [["--mass-bounds", "1:1e300:1e301"], ["--total-mass", "1e300:1e301"]])
def test_consistent_fit_with_absurd_mass_bounds_is_refused_in_one_line(tmp_path, option):
    """`identify --method consistent --mass-bounds 1:1e300:1e301` made the conic solver panic (Rust's
    "Eigval error", its stack on stderr, then a Python traceback of pyo3's PanicException, exit 1): masses are
    now bounded as a link's mass is (1e6 kg)."""
    log = _planar_log(tmp_path)
    result = CliRunner().invoke(main, ["identify", str(PLANAR), str(log), "--method", "consistent", *option])
    assert result.exit_code == 2, result.output
    where = option[0] + ("[1]" if "bounds" in option[0] else "")
    expected = f"baseparam: {where}: expected masses ≥ 0 in kg (at most 1e+06) or None, got (1e+300, 1e+301)"
    assert result.output.strip().splitlines()[-1] == expected


def test_a_panic_of_the_conic_solver_is_a_failed_fit(tmp_path, monkeypatch):
    """What CLARABEL raises when it panics (pyo3's PanicException, a BaseException) went through every handler
    as a traceback; it is now a solver error like the others: one line, exit 2."""
    import cvxpy

    class PanicException(BaseException):
        pass

    def panics(self, *args, **kwargs):
        raise PanicException("Eigval error: Eigen(1)")

    monkeypatch.setattr(cvxpy.Problem, "solve", panics)
    log = _planar_log(tmp_path)
    result = CliRunner().invoke(main, ["identify", str(PLANAR), str(log), "--method", "consistent"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("baseparam: ") and "the consistent fit failed (solver status solver_error)" in last, last


def test_excite_payload_with_torque_limits_is_refused_in_one_line(tmp_path, monkeypatch):
    """`excite --payload --torque-limits` (any robot with inertias: the UR10e URDF) ended in "internal error:
    ValueError: matmul: … (size 36 is different from 10)", exit 1: the payload search's regressor holds the last
    link's 10 columns, the true parameters the whole base set. Refused before any work, naming both flags."""
    monkeypatch.chdir(tmp_path)
    robot = ROOT / "robots" / "kuka_lwr4_cad.yaml"
    limits = tmp_path.parent / f"{tmp_path.name}-limits.yaml"
    limits.write_text("joints:\n" + "  - {q: [-2, 2], qd: 1.5, tau: 100}\n" * 7)
    result = CliRunner().invoke(main, ["excite", str(robot), "--limits", str(limits), "--period", "2", "--harmonics",
                                       "2", "--rate", "20", "--starts", "1", "--payload", "--torque-limits",
                                       "--out", "t.csv"])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == ("baseparam: --torque-limits: not available with --payload: a payload design "
                                     "evaluates only the last link's columns, not the joints' torques; design "
                                     "without it"), result.output
    assert list(tmp_path.iterdir()) == []
