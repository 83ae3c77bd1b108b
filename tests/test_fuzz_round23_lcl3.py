"""Round 23 (lcl3): last stop's command-line leftovers (issues 28, 25), each fixed at its root."""

import pytest

from conftest import ROOT, one_line
# the command-line runner, the planar arm's limits and a sine log of the earlier CLI tests
from test_excite_cli import LIMITS, run as _run
from test_fuzz_round22_lcl2 import _sine_log as _log

PLANAR = ROOT / "robots" / "planar_rrr.yaml"
SMALL = ["--period", "2", "--harmonics", "2", "--rate", "20"]


@pytest.fixture()
def limits(tmp_path):
    (tmp_path / "limits.yaml").write_text(LIMITS)
    return tmp_path / "limits.yaml"


@pytest.fixture()
def asked(monkeypatch):
    """The keyword arguments `excite` passes to design_excitation (the design itself not run)."""
    from baseparam.errors import ArgumentError
    from baseparam.excitation import design
    seen = {}

    def spy(robot, **options):
        seen.update(options)
        raise ArgumentError("spied")
    monkeypatch.setattr(design, "design_excitation", spy)
    return seen


def _asked_for(asked, limits, *args):
    result = _run("excite", PLANAR, "--limits", limits, *SMALL, *args)
    one_line(result, "spied")
    return asked["time_budget"], asked["starts"]


# 1. `excite` had no default time budget: kuka_lwr4.urdf ran 31.9 s with its defaults, ur10e.urdf 121 s under load.
# Left out, the budget is now 60 s with the starts of no budget (a search ending before it: the same design).
@pytest.mark.parametrize("args, expected", [
    ((), (60.0, 8)),
    (("--workers", "3"), (60.0, 12)),
    (("--starts", "5"), (60.0, 5)),
    (("--time-budget", "none"), (None, None)),
    (("--time-budget", "None", "--starts", "2"), (None, 2)),
    (("--time-budget", "5"), (5.0, None)),
])
def test_excite_has_a_default_time_budget_keeping_the_starts_of_no_budget(asked, limits, args, expected):
    assert _asked_for(asked, limits, *args) == expected


def test_the_default_budget_is_the_one_documented(limits):
    from baseparam.excitation import _defaults
    assert _defaults.TIME_BUDGET == 60.0
    text = " ".join(_run("excite", "--help").output.split())
    assert "none: no budget. Default: 60 (300 with --payload-design wide)." in text


def test_the_wide_payload_design_has_its_own_default_budget(asked, limits):
    """Round 25 (lpay) gave it one, 300 s (it had none: 412 s on a loaded machine), with the starts of no budget;
    a budget given is taken as given."""
    assert _asked_for(asked, limits, "--payload", "--payload-design", "wide") == (300.0, 8)
    assert _asked_for(asked, limits, "--payload", "--payload-design", "wide", "--time-budget", "90") == (90.0, None)
    assert _asked_for(asked, limits, "--payload", "--payload-design", "wide", "--time-budget", "none") == (None, None)


@pytest.mark.parametrize("budget", ["inf", "1e308"])
def test_a_budget_beyond_any_run_tells_how_to_give_none(limits, budget):
    """The library's "leave it out for no budget" is, on the command line, the default budget: say `none`."""
    one_line(_run("excite", PLANAR, "--limits", limits, *SMALL, "--time-budget", budget),
             "--time-budget", "beyond 1e+09 s", "give none for no budget")


def test_a_budget_neither_a_number_nor_none_is_one_line(limits):
    one_line(_run("excite", PLANAR, "--limits", limits, *SMALL, "--time-budget", "soon"),
             "--time-budget", "a number of seconds or 'none'", "'soon'")


def test_the_default_budget_gives_the_design_of_no_budget(limits, tmp_path):
    """A search that ends before the default budget writes the trajectory it wrote with none, to the byte."""
    written = []
    for name, args in (("default", ()), ("none", ("--time-budget", "none"))):
        out = tmp_path / f"{name}.csv"
        result = _run("excite", PLANAR, "--limits", limits, *SMALL, "--starts", "2", *args, "--out", out)
        assert result.exit_code == 0, result.output
        written.append(out.read_bytes())
    assert written[0] == written[1]


# 2. `identify --connect-timeout S` without --scheduler (or with --scheduler local, a cluster of the run's own) was
# taken and ignored in silence: it times the connection to a remote scheduler only. The command line's refusal came
# with main's 2d9b308c (tests/test_review_round23_rv.py); identify_logs(connect_timeout=5) took it in silence too.
def test_a_connect_timeout_left_out_changes_nothing(tmp_path):
    result = _run("identify", PLANAR, _log(tmp_path))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("scheduler", [None, "local", " Local "])
def test_the_library_refuses_a_connect_timeout_it_would_not_use(tmp_path, scheduler):
    import baseparam as bp
    robot = bp.load_robot(PLANAR)
    with pytest.raises(bp.SettingsError, match=r"^connect_timeout: times the connection to a scheduler's address, "
                                               r"and .*; leave it out$"):
        bp.identify_logs(robot, [_log(tmp_path)], scheduler=scheduler, connect_timeout=5)


# 3. `excite --noise` without --payload suggested --payload-design wide, which needs --payload too; the wide design's
# budget warning said "the time budget ended before the first start finished" when the start search's 30 % share of
# it had run out, the refinement still to come.
@pytest.mark.parametrize("criterion", ["cond", "dopt"])
def test_noise_without_a_payload_names_the_payload_design(limits, criterion):
    result = _run("excite", PLANAR, "--limits", limits, *SMALL, "--criterion", criterion, "--noise", "1,1,1")
    one_line(result, "--noise: weights the rows of a payload design only (--payload, with --criterion inertia or "
                     "--payload-design wide); leave it out")


def test_noise_with_a_payload_design_of_another_criterion_is_said_as_before():
    import baseparam as bp
    from test_excite_payload import QUICK, RRR_LIMITS
    with pytest.raises(bp.ArgumentError, match=r"^noise: only criterion='inertia' weights rows by it \(criterion="
                                               r"'dopt'\), or payload_design='wide'$"):
        bp.design_excitation(bp.load_robot(PLANAR), limits=RRR_LIMITS, criterion="dopt", payload=True,
                             noise=[1.0, 1.0, 1.0], **QUICK)


@pytest.fixture()
def cut_short(monkeypatch):
    """The wide design with its start search's first start and its L-BFGS taken as ended by the budget (no clock:
    the outcomes are marked so), 5 iterations."""
    from dataclasses import replace

    from baseparam.excitation import _payload_feasible, design
    real_search, real_refine = design.search, design.refine
    monkeypatch.setattr(_payload_feasible, "ITERATIONS", 5)
    monkeypatch.setattr(design, "search", lambda *a, **k: replace(real_search(*a, **k), counted=0))
    monkeypatch.setattr(design, "refine", lambda *a, **k: replace(real_refine(*a, **k), complete=False))


def test_the_wide_design_s_budget_warnings_say_what_ended_and_what_to_do(cut_short, tmp_path):
    import json
    from test_excite_payload import ISSUE_LIMITS, KUKA
    issue_limits = tmp_path / "limits.yaml"
    issue_limits.write_text(json.dumps(ISSUE_LIMITS))
    result = _run("excite", KUKA, "--limits", issue_limits, "--payload", "--payload-design", "wide", "--period", "4",
                  "--harmonics", "16", "--rate", "50", "--starts", "1", "--time-budget", "500")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("baseparam: warning:")]
    assert len(warnings) == 2, result.output
    assert "the wide design's start search, given 30% of the time budget (" in warnings[0]
    assert " of 500 s), ended before its first start finished: the refinement starts from that start's best point " \
           "so far, so the design depends on timing; give a larger --time-budget, or none" in warnings[0]
    assert "the time budget (500 s) ended the wide design's L-BFGS after 5 of its 5 iterations: the design depends " \
           "on timing; give a larger --time-budget, or none" in warnings[1]


# 4. `equations --symbolic all` (bp.equations(symbolic='all')) on a robot whose constant DH lengths are all zero was
# refused ("the robot has no non-zero DH length"): the closed form in no symbol is the numeric one, now given with a
# DescriptionWarning saying so.
ZERO_LENGTHS = """name: zero lengths
convention: standard
units: {length: m, angle: deg}
joints:
  - {type: revolute, a: 0, d: 0, alpha: 90}
  - {type: revolute, a: 0, d: 0, alpha: -90}
  - {type: prismatic, a: 0, theta: 90, alpha: 0}
"""


@pytest.fixture()
def zero_lengths(tmp_path):
    path = tmp_path / "zero.yaml"
    path.write_text(ZERO_LENGTHS)
    return path


@pytest.mark.parametrize("symbolic", ["all", ["all"], ("all",)])
def test_symbolic_all_without_a_length_gives_the_numeric_equations_with_a_note(zero_lengths, symbolic):
    import baseparam as bp
    robot = bp.load_robot(zero_lengths)
    numeric = bp.equations(robot)
    for given in (robot, bp.find_base_parameters(robot)):
        with pytest.warns(bp.errors.DescriptionWarning, match=r"^zero lengths: symbolic=all: every constant DH length "
                                                              r"is 0, so none is kept as a symbol: the equations are "
                                                              r"the numeric ones$"):
            eq = bp.equations(given, symbolic=symbolic)
        assert eq.to_dict() == numeric.to_dict() and eq.python_source() == numeric.python_source()


def test_equations_cli_symbolic_all_without_a_length(zero_lengths, tmp_path):
    outputs = []
    for name, args in (("symbolic", ("--symbolic", "all")), ("numeric", ())):
        out = tmp_path / f"{name}.json"
        result = _run("equations", zero_lengths, *args, "--json", out)
        assert result.exit_code == 0, result.output
        outputs.append(out.read_bytes())
        warned = "warning: zero lengths: --symbolic all: every constant DH length is 0" in result.output
        assert warned == (name == "symbolic"), result.output
    assert outputs[0] == outputs[1]


def test_a_zero_length_named_stays_a_symbol_and_find_keeps_its_refusal(zero_lengths):
    """Only 'all' with nothing to keep changes: a named zero length stays a symbol; find's symbolic base set (whose
    output is the symbols' regroupings and special values) keeps its refusal."""
    import warnings

    import baseparam as bp
    from baseparam.projection.symbolic import find_symbolic_base_parameters
    robot = bp.load_robot(zero_lengths)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eq = bp.equations(robot, symbolic="a2")
    assert "a2" in str(eq.to_dict())
    with pytest.raises(bp.ArgumentError, match="symbolic=all: the robot has no non-zero DH length"):
        find_symbolic_base_parameters(robot, "all")


# 5. `equations` on a 7-joint arm (robots/kuka_lwr4.yaml) took 24-44 s: it printed the same equations up to four
# times, each printer ordering every sum again, and the check's Python module was printed again for --python.
# Now each sum's order is computed once for every printer and the module is kept; the text is the same to the byte.
# (puma_equations: conftest's, shared with test_fuzz_round25_leq)


def test_the_shared_printers_print_as_sympy_s_own(puma_equations):
    import sympy

    eq = puma_equations
    names = eq._latex_names()
    assert eq.to_dict()["tau"] == [str(e) for e in eq.tau]
    assert [f"{names[s]} = {sympy.latex(eq.constants[s])}" for s in eq.symbols] == eq.constants_latex()
    rows = [rf"\tau_{{{i + 1}}} &= {sympy.latex(e, symbol_names=names)}" for i, e in enumerate(eq.tau)]
    assert eq.latex() == "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"
    source = eq.python_source()
    for i, e in enumerate(eq.tau):
        assert f"    t{i + 1} = zero + ({sympy.pycode(e, fully_qualified_modules=False)})\n" in source


def test_the_check_s_python_module_is_kept_for_python_source(monkeypatch):
    """equations() prints the module for its check; python_source() (--python) returns it, not printed again."""
    import baseparam as bp
    from baseparam.codegen import _shared_order
    from baseparam.codegen.equations import equations

    printed = []
    real = _shared_order.python
    monkeypatch.setattr(_shared_order, "python", lambda *a, **k: printed.append(1) or real(*a, **k))
    eq = equations(bp.load_robot(PLANAR))
    assert len(printed) == 3 and eq.max_error is not None
    first = eq.python_source()
    assert eq.python_source() is first and len(printed) == 3


# Same class (an option whose companion is missing, taken and ignored): `identify --no-filter-friction --cutoff none`
# asked the friction columns to skip a low-pass that no column gets.
@pytest.mark.parametrize("flag", ["--no-filter-friction", "--filter-friction"])
def test_filter_friction_without_a_low_pass_is_refused(tmp_path, flag):
    one_line(_run("identify", PLANAR, _log(tmp_path), "--cutoff", "none", flag),
             "--filter-friction/--no-filter-friction: whether the friction columns get the torque's low-pass, and "
             "--cutoff none asks for none; leave it out")


def test_filter_friction_with_a_low_pass_is_taken(tmp_path):
    assert _run("identify", PLANAR, _log(tmp_path), "--no-filter-friction").exit_code == 0
