"""One validation module, one rule for error classes, library messages that name parameters.

A bad argument of each public entry point is refused in one line that names the library's parameter
(never a command-line flag) with the class the rule in ``baseparam/errors.py`` gives; the command line
prints the same error with the flag instead (one table in ``baseparam/cli.py``) and exits with status 2.
"""
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import FLAGS, as_flags, main
from conftest import ROOT
from random_bodies import random_parameters

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")
URDF = """<robot name="arm">
  <link name="l0"/><link name="l1"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>
  <link name="l2"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="l0"/><child link="l1"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.5 0 0"/><axis xyz="0 1 0"/>
  </joint>
</robot>"""


# -- the rule --------------------------------------------------------------------------------------------------------
def test_the_classes_of_the_rule_are_caught_as_before():
    """A wrong type is still a TypeError; settings still a DataError; a diverged simulation still an
    ArgumentError (for one release) and now an ArithmeticError."""
    assert issubclass(bp.ArgumentTypeError, bp.ArgumentError) and issubclass(bp.ArgumentTypeError, TypeError)
    assert issubclass(bp.SettingsError, bp.ArgumentError) and issubclass(bp.SettingsError, bp.DataError)
    assert issubclass(bp.SimulationError, ArithmeticError) and issubclass(bp.SimulationError, bp.ArgumentError)
    for cls in (bp.ArgumentTypeError, bp.SettingsError, bp.SimulationError):
        assert issubclass(cls, bp.BaseParamError) and cls.__name__ in bp.errors.__doc__
        assert cls.__name__ in bp.__all__


@pytest.fixture(scope="module")
def planar():
    robot = bp.load_robot(PLANAR)
    p, _, _ = random_parameters(robot, "pseudo", np.random.default_rng(0))
    rng = np.random.default_rng(1)
    t = np.linspace(0, 4, 401)
    q = np.column_stack([np.sin((k + 1) * t + k) for k in range(3)])
    qd = np.gradient(q, t, axis=0)
    qdd = np.gradient(qd, t, axis=0)
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd) + 1e-3 * rng.standard_normal(q.shape)
    return robot, p, bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau, source="log.csv")


def _entry_points(robot, p, traj):
    """(call, class, message regex) for a bad argument of each public entry point."""
    q = np.zeros((10, 3))
    n = len(p)
    t = np.linspace(0, 1, 11)
    est = bp.BaseParameterEstimator
    none = bp.Preprocessing.none()
    return [
        # arrays of the dynamics: shape, finite, parameter vector length
        (lambda: bp.inverse_dynamics(robot, p, q, np.zeros((10, 2)), q), bp.ArgumentError,
         r"^qd: expected shape \(n_samples, 3\) or \(3,\), got \(10, 2\)$"),
        (lambda: bp.regressor(robot, np.full((2, 3), np.nan), q[:2], q[:2]), bp.ArgumentError,
         r"^q: non-finite value nan at sample 0, joint 1$"),
        (lambda: bp.inverse_dynamics(robot, p[:-1], q, q, q), bp.ArgumentError, rf"^p: expected shape \({n},\)"),
        (lambda: bp.mass_matrix(robot, p, q, parameters="inertia"), bp.ArgumentError, r"^parameters: expected one of"),
        # robot and file types
        (lambda: bp.inverse_dynamics(PLANAR, p, q, q, q), bp.ArgumentTypeError,
         r"^model: expected a baseparam\.Model, BaseModel or BaseParameters, got str; for a description file use "
         r"bp\.Model\(bp\.load_robot"),
        (lambda: bp.find_base_parameters(None), bp.ArgumentTypeError, r"^robot: expected a baseparam\.Robot"),
        (lambda: bp.load_robot(3), bp.ArgumentTypeError, r"^path: expected a file path"),
        (lambda: bp.parse_robot(3.0), bp.ArgumentTypeError, r"^text: expected the description's text"),
        (lambda: bp.read_trajectory(np.zeros(3)), bp.ArgumentTypeError, r"^path: expected a file name"),
        # options of the description
        (lambda: bp.load_robot(PLANAR, tip="l2"), bp.RobotDescriptionError, r"planar_rrr\.yaml: root/tip: they select"),
        (lambda: bp.load_robot(PLANAR, friction_model="wobbly"), bp.ArgumentError, r"^friction_model: 'wobbly': "),
        (lambda: bp.find_base_parameters(robot, max_memory="lots"), bp.ArgumentError, r"^max_memory: expected"),
        # excitation
        (lambda: bp.design_excitation(robot, period=-1), bp.ArgumentError, r"^period: expected a duration > 0 s"),
        (lambda: bp.design_excitation(robot, harmonics=1), bp.ArgumentError,
         r"^harmonics: expected a whole number from 2 to"),
        (lambda: bp.design_excitation(robot, workers=0), bp.ArgumentError,
         r"^workers: expected a whole number from 1 to 256, or -1 \(one per usable core\), got 0$"),
        (lambda: bp.design_excitation(robot, seed=-1), bp.ArgumentError,
         r"^seed: expected a whole number from 0 to 9223372036854775807, got -1$"),
        (lambda: bp.design_excitation(robot, time_budget=0), bp.ArgumentError,
         r"^time_budget: expected a number of seconds > 0, got 0$"),
        (lambda: bp.design_excitation(robot, criterion="aopt"), bp.ArgumentError,
         r"^criterion: expected one of cond, dopt, inertia, got 'aopt'$"),
        # simulation
        (lambda: bp.simulate(robot, p, t, np.zeros(3), np.zeros(3), substeps=0), bp.ArgumentError,
         r"^substeps: expected an integer ≥ 1, got 0$"),
        (lambda: bp.simulate(robot, p, t, np.zeros(3), np.zeros(3), state="positions"), bp.ArgumentError,
         r"^state: expected 'velocities' or 'momenta', got 'positions'$"),
        (lambda: bp.simulate(robot, p, t, np.zeros(3), np.zeros(3), noise={"q": 1e-3}), bp.ArgumentTypeError,
         r"^noise: expected a bp\.SensorNoise, got dict$"),
        (lambda: bp.track(robot, p, traj), bp.ArgumentTypeError,
         r"^reference: expected a bp\.Reference, got Trajectory$"),
        # identification settings
        (lambda: est(robot, method="lasso", preprocessing=none).fit(traj), bp.SettingsError,
         r"^method: expected one of ols, wls, consistent, got 'lasso'$"),
        (lambda: est(robot, method="consistent", prior_weight=-1.0, preprocessing=none).fit(traj), bp.SettingsError,
         r"^prior_weight: expected a finite number ≥ 0, got -1\.0$"),
        (lambda: est(robot, method="consistent", prior="none", prior_weight=1.0, preprocessing=none).fit(traj),
         bp.SettingsError, r"^prior_weight: given with prior='none'"),
        (lambda: est(robot, mass_bounds={1: (1, 2)}, preprocessing=none).fit(traj), bp.SettingsError,
         r"^mass_bounds: only for method='consistent' \(got method='ols'\)$"),
        (lambda: est(robot, method="consistent", mass_bounds={0: (1, 2)}, preprocessing=none).fit(traj),
         bp.SettingsError, r"^mass_bounds: links are numbered from 1, got 0$"),
        (lambda: est(robot, method="consistent", total_mass=(5, 1), preprocessing=none).fit(traj), bp.SettingsError,
         r"^total_mass: the lower bound 5 kg is above the upper 1 kg$"),
        (lambda: est(3, preprocessing=none).fit(traj), bp.SettingsError, r"^robot: expected a Robot or a description"),
        (lambda: est(robot).set_params(alpha=1), bp.SettingsError,
         r"^set_params: unknown parameter 'alpha' \(expected one of "),
        (lambda: bp.identify(robot, traj, preprocessing=none, alpha=1), bp.SettingsError,
         r"^identify: unknown option 'alpha'$"),
        (lambda: bp.Preprocessing(cutoff_hz=-1), bp.SettingsError,
         r"^preprocessing: cutoff_hz: expected a positive number, got -1$"),
        (lambda: bp.Preprocessing(decimate=0), bp.SettingsError,
         r"^preprocessing: decimate: expected an integer from 1 to 100, got 0$"),
    ]


def test_each_entry_point_names_its_parameter_in_one_line(planar):
    robot, p, traj = planar
    for call, cls, pattern in _entry_points(robot, p, traj):
        with pytest.raises(cls, match=pattern) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
        message = str(info.value)
        assert "\n" not in message and " --" not in message and not message.startswith("--"), message


def test_a_diverged_simulation_is_a_numerical_failure(planar):
    robot, p, _ = planar
    t = np.linspace(0, 1, 11)
    with pytest.raises(bp.SimulationError, match=r"^the simulation diverged \(non-finite state at t = 0\.1 s\)") \
            as info:
        bp.simulate(robot, p, t, np.zeros(3), np.zeros(3), lambda time, q, qd: np.full(3, 1e300), method="rk4")
    assert isinstance(info.value, ArithmeticError) and isinstance(info.value, bp.ArgumentError)


def test_library_hints_name_keyword_arguments(tmp_path):
    """Hints that used to name flags (``--exact-angles off``, ``--tip LINK``) name the library's arguments."""
    path = tmp_path / "arm.urdf"
    path.write_text(URDF)
    with pytest.raises(bp.RobotDescriptionError, match=r"arm\.urdf: tip: no link named 'nowhere'") as info:
        bp.load_robot(path, tip="nowhere")
    assert "--" not in str(info.value)
    text = "{units: {length: m, angle: rad}, joints: [{type: revolute, alpha: 1.5707963267948, a: 1, d: 0}]}"
    with pytest.warns(bp.RoundOffWarning, match="exact_angles=False keeps them as written$"):
        bp.parse_robot(text)
    yaml_file = tmp_path / "rounded.yaml"
    yaml_file.write_text(text)
    res = run("find", yaml_file)
    assert res.exit_code == 0 and "--exact-angles off keeps them as written" in res.stderr, res.stderr


# -- the command line: the same errors with the flags ------------------------------------------------------------------
def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(res, *fragments):
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("baseparam: "), res.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def log_file(tmp_path_factory, planar):
    _, _, traj = planar
    path = tmp_path_factory.mktemp("logs") / "log.csv"
    header = "t," + ",".join(f"{f}{k}" for f in ("q", "qd", "qdd", "tau") for k in (1, 2, 3))
    np.savetxt(path, np.column_stack([traj.t, traj.q, traj.qd, traj.qdd, traj.tau]), delimiter=",", header=header,
               comments="")
    return path


@pytest.mark.parametrize("args,fragments", [
    (["--prior", "none", "--prior-weight", "1", "--method", "consistent"],
     ["--prior-weight: given with --prior none"]),
    (["--mass-bounds", "1:1:2"], ["--mass-bounds: only with --method consistent (got --method ols)"]),
    (["--prior", "cad"], ["--prior: only with --method consistent"]),
    (["--method", "consistent", "--total-mass", "5:1"], ["--total-mass: the lower bound 5 kg is above the upper"]),
    (["--method", "consistent", "--mass-bounds", "0:1:2"], ["--mass-bounds: links are numbered from 1, got 0"]),
    (["--method", "consistent", "--mass-bounds", "1:-1:2"], ["--mass-bounds[1]: expected masses ≥ 0 in kg"]),
    (["--cutoff", "-1"], ["--cutoff: expected a positive number, got -1.0"]),
    (["--friction-model", "wobbly"], ["--friction-model: 'wobbly': expected sign"]),
    (["--tip", "l2"], ["planar_rrr.yaml: --root/--tip: they select part of a URDF model"]),
])
def test_identify_prints_the_flag_of_the_library_error(log_file, args, fragments):
    one_line_error(run("identify", PLANAR, log_file, *args), *fragments)


def test_other_commands_print_flags(tmp_path):
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(URDF)
    one_line_error(run("find", urdf, "--tip", "nowhere"), "arm.urdf: --tip: no link named 'nowhere'")
    one_line_error(run("export", PLANAR, "--lang", "python", "--prefix", "class", "--out", tmp_path),
                   "--prefix: 'class' is a Python keyword")
    one_line_error(run("excite", PLANAR, "--time-budget", "0"), "--time-budget: expected a number of seconds > 0")
    one_line_error(run("excite", PLANAR, "--workers", "0"), "--workers: expected a whole number from 1 to 256")


def test_a_description_s_own_fields_are_not_shown_as_flags(tmp_path):
    """rotor_inertia and friction_model are fields of the YAML as well as keyword arguments of
    load_robot: in an error about the file they stay what the user has to write there."""
    robot = tmp_path / "arm.yaml"
    robot.write_text("name: arm\nunits: {length: m, angle: deg}\n"
                     "joints:\n  - {type: revolute, alpha: 0, a: 0, d: 0, rotor_inertai: true}\n")
    line = one_line_error(run("find", robot), "arm.yaml: joints[1].rotor_inertai: unknown field",
                          "did you mean 'rotor_inertia'?", "friction, rotor_inertia, inertia", "friction_model")
    assert "--" not in line
    with pytest.raises(bp.RobotDescriptionError, match="did you mean 'rotor_inertia'"):
        bp.load_robot(robot)


def test_the_flag_table():
    """One table: every entry is a flag of some command, and the translation reads naturally."""
    flags = {p.opts[0] for command in main.commands.values() for p in command.params if p.opts}
    flags |= {p.secondary_opts[0] for command in main.commands.values() for p in command.params
              if getattr(p, "secondary_opts", None)}
    for flag in FLAGS.values():
        assert flag.split()[0] in flags, flag
    assert as_flags("x.urdf: tip: no link named 'a'") == "x.urdf: --tip: no link named 'a'"
    assert as_flags("to keep it, pass exact_angles=False") == "to keep it, pass --exact-angles off"
    assert as_flags("prior: only for method='consistent' (got method='ols')") == \
        "--prior: only with --method consistent (got --method ols)"
    assert as_flags("more than the 1 MB allowed (the max_memory given)") == \
        "more than the 1 MB allowed (the --max-memory given)"
    assert as_flags("a.yaml: joints[2].friction: expected true") == "a.yaml: joints[2].friction: expected true"
    assert as_flags("limits: description", clauses=False) == "limits: description"
    assert as_flags("a.npz: field t: name it with columns={'t': KEY, 'current': None}") == \
        "a.npz: field t: name it with --columns t=KEY,current=none"


def test_reader_hints_become_flags(tmp_path, log_file):
    """The readers' hints name ``columns=`` and ``skip_bad_rows=True``; the command line shows the flags."""
    lines = log_file.read_text().splitlines()
    both = tmp_path / "both.csv"
    both.write_text("\n".join([lines[0].replace("qdd", "current")] + lines[1:]) + "\n")
    one_line_error(run("identify", PLANAR, both), "choose one (--columns current=none keeps tau)")
    bare = tmp_path / "bare.csv"
    bare.write_text("\n".join(lines[1:]) + "\n")
    one_line_error(run("identify", PLANAR, bare), "e.g. --columns t=0,q=1:7,tau=7:13")
    damaged = tmp_path / "damaged.csv"
    damaged.write_text("\n".join(lines[:5] + ["x" + lines[5], "x" + lines[6]] + lines[7:]) + "\n")
    one_line_error(run("identify", PLANAR, damaged), "(--skip-bad-rows drops bad lines and reports them)")


def test_sizes_are_checked_before_allocation(monkeypatch):
    """The projection's and the excitation search's memory guards are one check (figures in the message)."""
    import types

    import baseparam._memory
    from baseparam.excitation.design import _check_memory

    monkeypatch.setattr(baseparam._memory, "budget", lambda max_memory=None: 1000)
    with pytest.raises(bp.ResourceLimitError, match=r"^the search for 5 harmonics of 3 joints would need about 96 kB "
                                                    r"of memory \(2 processes\), more than the 1 kB available"):
        _check_memory(types.SimpleNamespace(n_constraints=10, size=100, harmonics=5, n=3), 2)
    with pytest.raises(bp.ResourceLimitError, match=r"more than the 1 kB allowed \(80 % of the memory .* with "
                                                    r"max_memory=SIZE\)$"):
        bp.find_base_parameters(bp.load_robot(PLANAR))


@pytest.mark.parametrize("samples", [1, 3, 1000])
def test_state_checks_quick_and_element_wise_agree(samples):
    """check_samples' quick test (a sum of magnitudes for a few values, the largest and smallest for more)
    only shortcuts the element-wise one: values near the limit whose sum passes it are accepted, and NaN, inf
    or one absurd value anywhere is refused with its place."""
    from baseparam._validation import ABSURD, check_samples
    x = np.full((samples, 5), 0.9 * ABSURD)
    x[:, ::2] *= -1
    assert check_samples("q", x, 5)[0] is x
    for bad, what in ((np.nan, "non-finite value nan"), (-np.inf, "non-finite value -inf"),
                      (1.01 * ABSURD, "absurd value")):
        y = np.zeros((samples, 5))
        y[-1, 3] = bad
        with pytest.raises(bp.ArgumentError, match=rf"^q: {what}.* at sample {samples - 1}, joint 4$"):
            check_samples("q", y, 5)


def test_one_float_sample_takes_the_quick_path_only_where_the_checks_pass():
    """check_states' quick path for one sample of float64 arrays (one sum of magnitudes over every value) returns
    what the full checks return, and leaves to them what it does not take: values near the limit in several
    arrays, NaN, inf or an absurd value in any array (named there), other dtypes, shapes, lists and subclasses."""
    from baseparam._validation import ABSURD, _one_float_sample, check_states
    rng = np.random.default_rng(3)
    x = {name: rng.uniform(-2, 2, 4) for name in ("q", "qd", "qdd")}
    quick = _one_float_sample(x, lambda name: 4)
    arrays, single = check_states(4, **x)
    assert single and quick is not None
    for got, full, given in zip(quick, arrays, x.values()):
        assert got.shape == (1, 4) and got.base is given
        np.testing.assert_array_equal(got, full)
    near = {name: np.full(4, 0.9 * ABSURD) for name in x}          # each within, their sum beyond: full checks
    assert _one_float_sample(near, lambda name: 4) is None
    assert [a.base for a in check_states(4, **near)[0]] == list(near.values())
    for bad, what in ((np.nan, "non-finite value nan"), (np.inf, "non-finite value inf"),
                      (-1.01 * ABSURD, "absurd value")):
        y = dict(x, qd=x["qd"].copy())
        y["qd"][2] = bad
        assert _one_float_sample(y, lambda name: 4) is None
        with pytest.raises(bp.ArgumentError, match=rf"^qd: {what}.* at sample 0, joint 3$"):
            check_states(4, **y)
    subclass = type("Sub", (np.ndarray,), {})
    for other in (x["qd"].astype(np.float32), x["qd"].astype(">f8"), x["qd"][:3], x["qd"][None], list(x["qd"]),
                  x["qd"].view(subclass)):
        assert _one_float_sample(dict(x, qd=other), lambda name: 4) is None


def _one_sample_inputs():
    """One sample of 4 values in every form a caller may give, each with the values the full checks see."""
    import numpy.ma as ma
    base = np.array([0.5, -1.25, 2.0, -0.0])
    frozen = base.copy()
    frozen.setflags(write=False)
    with warnings.catch_warnings():            # np.matrix's PendingDeprecationWarning: a caller may still give one
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        matrix = np.asmatrix(base)
    return {"plain": base, "read-only": frozen, "strided": np.repeat(base, 2)[::2], "reversed": base[::-1].copy()[::-1],
            "big-endian": base.astype(">f8"), "float32": base.astype(np.float32), "int": np.arange(4),
            "bool": np.ones(4, bool), "complex": base + 0j, "object": base.astype(object), "list": base.tolist(),
            "matrix": matrix, "masked": ma.array(base), "masked value": ma.array(base, mask=[0, 1, 0, 0]),
            "0-d": np.float64(0.5), "(1, 4)": base[None], "3 values": base[:3], "nan": np.r_[base[:3], np.nan],
            "-inf": np.r_[-np.inf, base[1:]], "absurd": np.r_[base[:3], 1.5e8], "at the bound": np.r_[1e8, 0, 0, 0],
            "unaligned": np.frombuffer(b"\0" + base.tobytes(), dtype=np.float64, offset=1)}


@pytest.mark.parametrize("kind", sorted(_one_sample_inputs()))
def test_state_checks_of_one_sample_as_the_full_checks(kind):
    """check_states of one sample (its quick path for plain float64 arrays) returns the full checks' arrays, same
    bits and same memory, or raises their error: nothing they refuse (NaN, inf, beyond ±1e8, bool/complex/object
    values, masked values, wrong shapes) is taken, whatever form, layout or flags the array has."""
    from baseparam._validation import _samples, check_states
    given = _one_sample_inputs()[kind]
    plain = np.array([0.25, 0.5, -0.75, 1.0])
    expected, refused = [], None
    try:
        for name, x in (("q", plain), ("qd", given), ("qdd", plain)):
            expected.append(_samples(name, x, 4, bp.ArgumentError))
    except bp.ArgumentError as exc:
        refused = str(exc)
    if refused is not None:
        with pytest.raises(bp.ArgumentError) as caught:
            check_states(4, q=plain, qd=given, qdd=plain)
        assert str(caught.value) == refused
        return
    arrays, single = check_states(4, q=plain, qd=given, qdd=plain)
    assert single == all(s for _, s in expected)
    for got, (full, _) in zip(arrays, expected):
        assert type(got) is np.ndarray and got.shape == full.shape and got.dtype == full.dtype
        assert got.tobytes() == full.tobytes() and np.signbit(got).tolist() == np.signbit(full).tolist()
        assert np.shares_memory(got, full) or not np.may_share_memory(full, given)


def test_load_excitation_s_messages_name_no_command_line(tmp_path):
    """load_excitation is library-only (no command reads the document back): its refusals named the CLI's
    ``excite --json``; they name ExcitationDesign.to_json, which writes the document."""
    for name, text, words in (("list.json", "[]", "expected the JSON object ExcitationDesign.to_json writes"),
                              ("empty.json", '{"period": 2, "rate": 10}', "field coefficients: missing (not a "
                               "document ExcitationDesign.to_json wrote?)"),
                              ("deep.json", "[" * 100_000, "not the document ExcitationDesign.to_json writes")):
        (tmp_path / name).write_text(text)
        with pytest.raises(bp.DataError) as info:
            bp.load_excitation(tmp_path / name)
        assert words in str(info.value) and "--" not in str(info.value), str(info.value)


def test_the_names_the_user_gave_are_not_shown_as_flags(tmp_path, log_file, monkeypatch):
    """A robot, a log or a file named like a parameter (``total_mass``, ``max_disk.csv``) is printed as named: the
    command line shows the library's parameter names as flags, not the user's names (identify's summary printed
    ``--total-mass: 6 base parameters …`` and its log table ``--max-disk.csv``)."""
    robot = tmp_path / "total_mass.yaml"
    robot.write_text(re.sub(r"(?m)^name: .*$", "name: total_mass", Path(PLANAR).read_text()))
    monkeypatch.chdir(tmp_path)
    shutil.copy(log_file, "max_disk.csv")
    shutil.copy(log_file, "for seed=1.csv")
    shutil.copy(log_file, "imu_frame")
    res = run("identify", robot.name, "max_disk.csv", "for seed=1.csv", "--resample", "none", "--cutoff", "none")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("total_mass: ") and "--" not in res.stdout
    assert "\n  max_disk.csv " in res.stdout and "\n  for seed=1.csv " in res.stdout
    assert run("describe", robot.name).stdout.startswith("total_mass: 3 joints")
    one_line_error(run("identify", robot.name, "imu_frame"), "baseparam: imu_frame: unknown file type")
    one_line_error(run("excite", robot.name), "baseparam: total_mass: joint 1: no velocity limit")
    # the library's names are still flags, beside paths that are not
    assert as_flags("/logs/max_disk.npz: more than max_disk allows", clauses=False) == \
        "/logs/max_disk.npz: more than --max-disk allows"
    assert as_flags("total_mass: pass mass_bounds=3", keep=["total_mass"]) == "total_mass: pass --mass-bounds 3"
