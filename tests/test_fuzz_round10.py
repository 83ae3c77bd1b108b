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
    assert result.output.strip() == (f"baseparam: joints[1].friction_model.{scale}: 'auto' is identified from data; "
                                     "export the identified description (Identification.to_yaml) or give the number")
    assert list(tmp_path.iterdir()) == []
