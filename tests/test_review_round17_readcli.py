"""Review round 17 (readcli): a second read of cli.py, _entry.py, excitation/, simulation/, codegen/equations.py,
model/urdf.py."""
import threading

import pytest


@pytest.mark.parametrize("delay", ["inf", "1e300"])
def test_progress_delay_beyond_the_clock_is_never_not_a_traceback(monkeypatch, delay):
    """BASEPARAM_PROGRESS_DELAY=inf (a bar never shown) passed the check (a number >= 0), and the bar's thread then
    died of Event.wait's OverflowError: a traceback on the terminal of a run that otherwise went well."""
    import baseparam.cli as cli
    failures = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    monkeypatch.setenv("BASEPARAM_PROGRESS_DELAY", delay)
    progress = cli._Progress("projecting", enabled=True)
    assert progress.delay == float(delay)
    thread = progress._thread
    thread.join(0.2)                    # it waits (the bar not shown), it did not die
    alive = thread.is_alive()
    progress(1, 2)
    progress.close()
    assert alive and not failures and progress.bar is None and not progress.shown.is_set(), failures


def test_limits_mapping_takes_numpy_numbers_and_tuples():
    """motion_limits(robot, {"joints": [...]}) built in Python: np.int64(2) was refused as "expected a finite number
    > 0, got np.int64(2)", (-1, 1) as "expected [lower, upper]"; now read as the same limits as the YAML's lists and
    ints. A bool, numpy's or Python's, and a triple stay refused."""
    import numpy as np

    import baseparam as bp
    from baseparam.errors import ArgumentError
    from baseparam.excitation import motion_limits
    from conftest import ROOT
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    n = robot.n_dof
    plain = motion_limits(robot, {"joints": [{"q": [-1, 1], "qd": 2, "qdd": 8.5}] * n})
    for joints in ([{"q": (-1, 1), "qd": np.int64(2), "qdd": np.float32(8.5)}] * n,
                   tuple([{"q": np.array([-1.0, 1.0]), "qd": np.float64(2), "qdd": 8.5}] * n),
                   [{"q": [np.int32(-1), np.float16(1)], "qd": np.uint8(2), "qdd": np.float64(8.5)}] * n):
        given = motion_limits(robot, {"joints": joints})
        for name in ("lower", "upper", "velocity", "acceleration", "torque"):
            assert np.array_equal(getattr(given, name), getattr(plain, name)), name
    for entry, words in (({"qd": np.bool_(True)}, "joints[1].qd"), ({"q": (1, 2, 3)}, "joints[1].q: expected [lower"),
                         ({"qd": np.float64(-2)}, "joints[1].qd: expected a finite number > 0")):
        with pytest.raises(ArgumentError, match=words.replace("[", r"\[")):
            motion_limits(robot, {"joints": [entry] * n})


@pytest.mark.parametrize("args, train, validate", [
    (["--validate=a.csv", "b.csv"], ("t.csv",), ("a.csv", "b.csv")),
    (["--validate", "a.csv", "b.csv"], ("t.csv",), ("a.csv", "b.csv")),
    (["--validate=a.csv", "--json", "x.json", "c.csv"], ("t.csv", "c.csv"), ("a.csv",)),
    (["--validate=a=b.csv"], ("t.csv",), ("a=b.csv",))])
def test_validate_with_an_equals_sign_takes_the_names_after_it(args, train, validate):
    """docs/cli.md: every bare name after --validate up to the next option is a validation file. Written
    '--validate=a.csv b.csv', b.csv was trained on, silently: the held-out log in the fit."""
    import baseparam.cli as cli
    context = cli.main.commands["identify"].make_context("identify", ["r.yaml", "t.csv", *args])
    assert (context.params["train"], context.params["validate"]) == (train, validate)


def test_validate_with_an_empty_value_is_refused():
    import click

    import baseparam.cli as cli
    with pytest.raises(click.BadParameter, match="empty"):
        cli.main.commands["identify"].make_context("identify", ["r.yaml", "t.csv", "--validate=", "b.csv"])


def test_a_reader_note_given_as_a_warning_too_is_said_once_whatever_its_white_space(monkeypatch, capsys):
    """A warning's line has its white space runs made one space; the note's comparison with the lines shown did not,
    so a note of two spaces or a line break that the reader also warned of was said twice (once as 'warning:')."""
    import functools
    import warnings

    import baseparam.cli as cli
    monkeypatch.setattr(warnings, "showwarning", functools.partial(cli._warning_line, shown=set()))
    note = "run.csv: 3 rows  dropped\n(damaged)"
    warnings.showwarning(note, UserWarning, "x.py", 1)
    cli._reader_note(note)
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["baseparam: warning: run.csv: 3 rows dropped (damaged)"], lines


def test_a_reader_note_is_one_line(capsys):
    """A note holding a line break (a bag library's notice, passed on as the reader's note) was said as two lines."""
    import baseparam.cli as cli
    cli._reader_note("run.bag: the reader says\n  index rebuilt")
    assert capsys.readouterr().err.splitlines() == ["baseparam: run.bag: the reader says index rebuilt"]


def test_limits_as_a_read_only_mapping():
    """The refusal said "expected a file name, a mapping or MotionLimits, got mappingproxy": a mapping it was."""
    from types import MappingProxyType

    import numpy as np

    import baseparam as bp
    from baseparam.excitation import motion_limits
    from conftest import ROOT
    robot = bp.load_robot(ROOT / "robots" / "puma560.yaml")
    joints = [{"q": [-1, 1], "qd": 2}] * robot.n_dof
    plain = motion_limits(robot, {"joints": joints})
    given = motion_limits(robot, MappingProxyType({"joints": [MappingProxyType(entry) for entry in joints]}))
    assert np.array_equal(given.velocity, plain.velocity) and np.array_equal(given.lower, plain.lower)
