"""The library apart from the CLI (issue 10, items 3 and 6): exception classes and exit statuses,
messages naming parameters, the export result, the unfitted estimator, ``predict`` lined up with
its input, the CLI's wrote-lines and ``--json -``, one vocabulary of exported function names, and
every Python snippet of the README."""
import dataclasses
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam import errors
from baseparam.cli import main
from baseparam.codegen import _export
from baseparam.identification.preprocessing import Preprocessing
from conftest import DATA, ROOT

PUMA = str(ROOT / "robots" / "puma560.yaml")
PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line(text):
    lines = text.strip().splitlines()
    return len(lines) == 1 and "Traceback" not in text


# -- exceptions ------------------------------------------------------------------------------------
def test_every_public_error_is_a_base_param_error_and_a_builtin():
    for name, builtin in (("ArgumentError", ValueError), ("RobotDescriptionError", ValueError),
                          ("DataError", ValueError), ("ExportError", ValueError), ("StorageError", OSError),
                          ("ResourceLimitError", MemoryError), ("NotFittedError", AttributeError)):
        cls = getattr(bp, name)
        assert cls is getattr(errors, name) and issubclass(cls, bp.BaseParamError) and issubclass(cls, builtin)
        assert name in bp.__all__
    assert issubclass(bp.NotFittedError, ValueError)
    assert _export.ExportError is bp.ExportError is bp.codegen.ExportError


def test_bad_arguments_raise_argument_error_naming_the_parameter():
    robot = bp.load_robot(PLANAR)
    with pytest.raises(bp.ArgumentError, match=r"^qd: expected shape \(n_samples, 3\)"):
        bp.regressor(robot, np.zeros(3), np.zeros(2), np.zeros(3))
    with pytest.raises(bp.ArgumentError, match=r"^q: non-finite value"):
        bp.regressor(robot, [np.nan, 0, 0], np.zeros(3), np.zeros(3))
    with pytest.raises(bp.ArgumentError, match="^parameters: expected one of"):
        bp.find_base_parameters(robot, "nope")


def test_library_messages_name_parameters_not_flags(tmp_path):
    base = bp.find_base_parameters(bp.load_robot(PLANAR))
    for kwargs, start in (({"what": "mass_matrix"}, "what: unknown function 'mass_matrix'"),
                          ({"what": []}, "what: no function named"),
                          ({"lang": "fortran"}, "lang: expected 'c' or 'python'"),
                          ({"prefix": "1abc"}, "prefix: '1abc' is not a valid name")):
        args = {"lang": "c", "out_dir": str(tmp_path), **kwargs}
        with pytest.raises(bp.ExportError) as info:
            bp.export(base, **args)
        assert str(info.value).startswith(start), str(info.value)
    (tmp_path / "file").write_text("")
    with pytest.raises(bp.ExportError, match="out_dir: not a directory"):
        bp.export(base, "c", out_dir=str(tmp_path / "file"))
    with pytest.raises(bp.ExportError, match="^base: expected the BaseParameters"):
        bp.export(base.robot, "c", out_dir=str(tmp_path))


# -- exit statuses ---------------------------------------------------------------------------------
@pytest.mark.parametrize("error", [ValueError("a bug's message"), KeyError("slot"), IndexError("index 7")])
def test_an_internal_bug_exits_1_with_one_line(monkeypatch, error):
    def broken(*args, **kwargs):
        raise error
    import baseparam.projection.base_set as base_set      # the CLI imports it when a command runs

    monkeypatch.setattr(base_set, "find_base_parameters", broken)
    for args in (("find", PUMA), ("export", PUMA, "--lang", "c", "--out", "unused")):
        res = CliRunner().invoke(main, list(args))
        assert res.exit_code == 1, (args, res.output)
        assert one_line(res.output) and res.output.startswith(f"baseparam: internal error: {type(error).__name__}")


def test_a_plain_value_error_inside_identify_is_internal(monkeypatch, tmp_path):
    import baseparam.identification.estimators as estimators

    def broken(*args, **kwargs):
        raise ValueError("operands could not be broadcast together")
    monkeypatch.setattr(estimators, "identify", broken)
    data = tmp_path / "x.csv"
    data.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{k * 0.01},0,0,0,0,0,0\n" for k in range(50)))
    res = run("identify", PLANAR, data)
    assert res.exit_code == 1 and one_line(res.output) and "internal error: ValueError" in res.output


def test_bad_input_exits_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("units: {length: m, angle: deg}\njoints: [{type: twisty}]\n")
    for args in (("find", bad), ("export", PUMA, "--lang", "c", "--what", "mass", "--out", tmp_path),
                 ("find", tmp_path / "missing.yaml")):
        res = run(*args)
        assert res.exit_code == 2 and one_line(res.output), (args, res.output)
        assert "internal error" not in res.output


def test_export_errors_name_the_flags(tmp_path):
    res = run("export", PUMA, "--lang", "python", "--prefix", "class", "--out", tmp_path)
    assert res.exit_code == 2 and res.output.strip() == "baseparam: --prefix: 'class' is a Python keyword"
    res = run("export", PUMA, "--lang", "c", "--what", "regressor,mass", "--out", tmp_path)
    assert res.exit_code == 2 and res.output.startswith("baseparam: --what: unknown function 'mass'")


# -- the export result and one vocabulary ----------------------------------------------------------
def test_export_returns_a_frozen_result(tmp_path):
    base = bp.find_base_parameters(bp.load_robot(PUMA))
    result = bp.export(base, "python", what="regressor,slotine-li", prefix="puma", out_dir=str(tmp_path))
    assert isinstance(result, bp.ExportResult)
    assert result.files == (str(tmp_path / "puma_dynamics.py"), str(tmp_path / "puma.json"))
    assert all(os.path.isfile(f) for f in result.files)
    doc = json.loads((tmp_path / "puma.json").read_text())
    assert dict(result.functions) == doc["functions"] and list(result.functions) == ["regressor", "slotine_li"]
    assert list(result.base_names) == doc["base"] == list(base.names)
    assert result.lang == "python" and result.prefix == "puma"
    text = repr(result)
    assert text.startswith("ExportResult(") and "puma_dynamics.py" in text and "n_base=36" in text
    assert len(text) < 300
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.files = ()
    with pytest.raises(TypeError):
        result.functions["regressor"] = {}
    assert hash(result) == hash(dataclasses.replace(result))   # a value, usable as a key
    with pytest.raises(TypeError):
        result["files"]                                         # a result object, not a dict


def test_one_vocabulary_for_the_exported_functions(tmp_path):
    base = bp.find_base_parameters(bp.load_robot(PLANAR))
    for spelling in ("regressor,slotine_li,inverse_dynamics", "regressor,slotine-li,inverse-dynamics"):
        out = tmp_path / spelling.replace(",", "+")
        res = run("export", PLANAR, "--lang", "python", "--what", spelling, "--prefix", "arm", "--out", out)
        assert res.exit_code == 0, res.output
        spec = importlib.util.spec_from_file_location("arm_dynamics", out / "arm_dynamics.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert all(callable(getattr(module, name)) for name in _export.FUNCTIONS)
        assert list(json.loads((out / "arm.json").read_text())["functions"]) == list(_export.FUNCTIONS)
    c_dir = tmp_path / "c"
    bp.export(base, "c", prefix="arm", out_dir=str(c_dir))
    header = (c_dir / "arm.h").read_text()
    assert all(f"void arm_{name}(" in header for name in _export.FUNCTIONS)
    help_text = run("export", "--help").output
    assert "regressor,slotine_li,inverse_dynamics" in help_text


# -- the CLI says which files it wrote; --json - ----------------------------------------------------
def test_find_says_which_files_it_wrote(tmp_path):
    out, h5 = tmp_path / "puma.json", tmp_path / "puma.h5"
    res = run("find", PUMA, "--json", out, "--h5", h5)
    assert res.exit_code == 0, res.output
    assert res.output.strip().splitlines()[-1] == f"wrote {out}, {h5}"
    res = run("find", PUMA)
    assert "wrote" not in res.output


def test_json_dash_writes_to_stdout_only(tmp_path):
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path):
        res = runner.invoke(main, ["find", PUMA, "--json", "-"])
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["rank"] == 36                 # stdout is the document alone
        assert "36 base parameters" in res.stderr                  # the table went to stderr
        assert not os.path.exists("-")
        res = runner.invoke(main, ["find", PUMA, "--h5", "-"])
        assert res.exit_code == 2 and not os.path.exists("-")


def test_identify_says_which_files_it_wrote_and_json_dash(tmp_path):
    robot = bp.load_robot(PLANAR)
    rng = np.random.default_rng(3)
    t = np.arange(1500) * 0.01
    q = np.column_stack([np.sin(0.7 * k * t + k) for k in (1, 2, 3)])
    qd = np.gradient(q, t, axis=0)
    tau = bp.inverse_dynamics(robot, rng.uniform(0.1, 1, len(bp.find_base_parameters(robot).standard_names)),
                              q, qd, np.gradient(qd, t, axis=0))
    data = tmp_path / "train.csv"
    np.savetxt(data, np.column_stack([t, q, tau]), delimiter=",", comments="", fmt="%.17g",
               header="t,q1,q2,q3,tau1,tau2,tau3")
    out = tmp_path / "fit.json"
    res = run("identify", PLANAR, data, "--json", out)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().splitlines()[-1] == f"wrote {out}"
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path):
        res = runner.invoke(main, ["identify", PLANAR, str(data), "--json", "-"])
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["robot"] == robot.name and "base parameters identified" in res.stderr
        assert not os.path.exists("-")


def test_export_says_which_files_it_wrote(tmp_path):
    res = run("export", PLANAR, "--lang", "c", "--prefix", "arm", "--out", tmp_path)
    assert res.exit_code == 0, res.output
    names = ", ".join(str(tmp_path / f) for f in ("arm.h", "arm.c", "arm.json"))
    assert res.output.strip().splitlines()[-1] == f"wrote {names}"


# -- the estimator ---------------------------------------------------------------------------------
def test_unfitted_estimator_raises_not_fitted_error():
    est = bp.BaseParameterEstimator(PLANAR)
    with pytest.raises(bp.NotFittedError, match="fit"):
        est.predict((np.zeros((2, 3)),) * 3)
    assert not hasattr(est, "coef_")
    with pytest.raises(AttributeError):
        est.score((np.zeros((2, 3)),) * 4)


FRICTION_PLANAR = """name: planar with friction
convention: standard
units: {length: m, angle: deg}
gravity: [0, -9.81, 0]
joints:
  - {type: revolute, alpha: 0, a: 1, d: 0, friction: true}
  - {type: revolute, alpha: 0, a: 0.8, d: 0, friction: true}
  - {type: revolute, alpha: 0, a: 0.5, d: 0, friction: true}
"""


def _log_with_rest(robot, rng, n=3000, h=0.004):
    """A log whose middle third stands still (rest samples, which fits leave out), with a gap."""
    t = np.arange(n) * h
    t[2000:] += 0.5                                     # a time gap: two segments
    s = np.where(t < t[1000], t, np.where(t < t[2000], t[1000], t - (t[2000] - t[1000])))
    q = np.column_stack([0.6 * np.sin(1.3 * k * s + k) for k in (1, 2, 3)])
    qd = np.column_stack([0.6 * 1.3 * k * np.cos(1.3 * k * s + k) for k in (1, 2, 3)]) * (s != t[1000])[:, None]
    qdd = np.column_stack([-0.6 * (1.3 * k) ** 2 * np.sin(1.3 * k * s + k) for k in (1, 2, 3)])
    qdd *= (s != t[1000])[:, None]
    p = rng.uniform(0.1, 1.0, len(bp.find_base_parameters(robot).standard_names))
    tau = bp.inverse_dynamics(robot, p, q, qd, qdd) + rng.normal(0, 0.01, q.shape)
    return t, q, qd, qdd, tau


@pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning")     # a short log, on purpose
def test_predict_lines_up_with_the_input(tmp_path):
    path = tmp_path / "friction.yaml"
    path.write_text(FRICTION_PLANAR)
    robot = bp.load_robot(path)
    base = bp.find_base_parameters(robot)
    assert any(name.startswith("FC") for name in base.names)
    t, q, qd, qdd, tau = _log_with_rest(robot, np.random.default_rng(7))
    traj = bp.Trajectory(t=t, q=q, qd=qd, qdd=qdd, tau=tau, source="rest.csv")
    # logged states, rest trimming but no filter: predict at every input sample = W_b(q, qd, qdd) coef_
    est = bp.BaseParameterEstimator(robot, base=base,
                                    preprocessing=Preprocessing(resample=False, cutoff_hz=None)).fit(traj)
    assert est.n_samples_ < len(t)                      # the fit left the rest samples out
    pred = est.predict(traj)
    assert pred.shape == (len(t), robot.n_dof)
    expected = np.einsum("sjr,r->sj", base.regressor(q, qd, qdd), est.coef_)   # friction columns included
    np.testing.assert_allclose(pred, expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())
    # the kept-sample view is validate(): its predictions are the rows of the kept samples
    v = est.validate(traj)
    assert v.n_samples == est.n_samples_ < len(t)
    moving = np.abs(qd).max(axis=1) >= 0.05
    np.testing.assert_allclose(v.predicted, pred[moving], rtol=1e-10, atol=1e-10 * np.abs(expected).max())


@pytest.mark.filterwarnings("ignore::baseparam.errors.ExcitationWarning")
def test_predict_with_filtering_and_derived_velocities_keeps_every_sample():
    robot = bp.load_robot(PLANAR)
    t, q, qd, qdd, tau = _log_with_rest(robot, np.random.default_rng(8))
    jitter = np.random.default_rng(9).uniform(-1e-4, 1e-4, len(t))
    traj = bp.Trajectory(t=t + jitter, q=q, tau=tau, source="noqd.csv")       # irregular stamps, no qd/qdd
    est = bp.BaseParameterEstimator(robot).fit(traj)                          # default preprocessing
    pred = est.predict(traj)
    assert len(pred) == len(traj.t) and np.isfinite(pred).all()
    truth = bp.inverse_dynamics(bp.find_base_parameters(robot).model(est.coef_), q, qd, qdd)
    # filtered, differentiated states: close to the truth away from the log's corners (the
    # synthetic velocity jumps to rest, the gap, the ends), which a 5 Hz low-pass rounds off
    index = np.arange(len(t))
    away = np.min(np.abs(index[:, None] - np.array([0, 1000, 2000, len(t) - 1])[None, :]), axis=1) > 200
    error = np.sqrt(np.mean((pred[away] - truth[away]) ** 2))
    assert error < 0.02 * np.sqrt(np.mean(truth[away] ** 2))
    two = est.predict([traj, traj])
    assert two.shape == (2 * len(t), 3)


# -- the README --------------------------------------------------------------------------------------
def _readme_python_blocks():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


@pytest.mark.parametrize("index", range(len(_readme_python_blocks())))
def test_every_readme_python_snippet_runs(tmp_path, monkeypatch, index):
    code = _readme_python_blocks()[index]
    if "../shared/data" in code and not DATA.is_dir():
        pytest.skip("the real data (../shared/data) are not here")
    # run where the README's relative paths hold, without writing into the repository
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "robots").symlink_to(ROOT / "robots")
    (repo / "out").mkdir()                    # as in the clone (out/.gitignore): where the README writes
    if DATA.is_dir():
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "data").symlink_to(DATA)
    monkeypatch.chdir(repo)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the README shows the calls of this release: a deprecated one, warned at the snippet's own line (the
        # library's warnings name the user's module, here "readme"), fails
        warnings.filterwarnings("error", category=DeprecationWarning, module="readme")
        exec(compile(code, f"README.md python block {index + 1}", "exec"), {"__name__": "readme"})
    shutil.rmtree(repo / "gen", ignore_errors=True)


# The README's shell commands, as a user runs them from the repository root of a fresh clone: every
# file they read is there (the measured data beside the repository, in ../shared/data), and every
# file they write goes to out/, which the clone holds and whose .gitignore keeps `git status` clean.
_OUTPUT_FLAGS = {"--json", "--h5", "--plot", "--out", "--urdf", "--yaml", "--mjcf", "--python"}
_FILE_SUFFIXES = (".yaml", ".yml", ".urdf", ".npz", ".csv", ".py", ".json", ".h5", ".png", ".xml", ".mcap")


def _readme_shell_commands():
    """(command text, tokens) of the README's bash blocks (continuation lines joined, ``D=…`` expanded)
    and of its inline ``baseparam …`` and ``python bench/…`` commands."""
    text = (ROOT / "README.md").read_text()
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        variables = {}
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"(^|\s)#.*", "", line).strip()
            assignment = re.fullmatch(r"(\w+)=(\S+)", line)
            if assignment:
                variables[assignment[1]] = assignment[2]
                continue
            for name, value in variables.items():
                line = line.replace(f"${name}", value)
            commands += [part.strip() for part in re.split(r"&&|\|", line) if part.strip()]
    commands += [part.strip() for inline in re.findall(r"`((?:baseparam [a-z]+ |python bench/)[^`]*)`", text)
                 for part in inline.split("|")]
    return [(command, command.split()) for command in commands]


def _named_files(tokens):
    """(inputs, outputs): the file names a command's tokens give, by the flag before them."""
    inputs, outputs = [], []
    for before, token in zip([""] + tokens, tokens):
        if token.startswith("-") or not ("/" in token or token.endswith(_FILE_SUFFIXES)):
            continue
        (outputs if before in _OUTPUT_FLAGS else inputs).append(token.strip("'\""))
    return inputs, outputs


def test_readme_commands_name_files_that_exist_and_write_into_out():
    commands = _readme_shell_commands()
    assert len(commands) > 10 and any(c.startswith("baseparam excite") for c, _ in commands)
    missing, stray = [], []
    for command, tokens in commands:
        inputs, outputs = _named_files(tokens)
        for name in inputs:
            if name.startswith("../shared/data") and not DATA.is_dir():
                continue                      # the data folder beside the repository is optional here
            if not (ROOT / name).exists():
                missing.append(f"{name} (in: {command})")
        stray += [f"{name} (in: {command})" for name in outputs if name != "-" and not name.startswith("out/")]
    assert not missing, "README commands name files that are not where they run:\n" + "\n".join(missing)
    assert not stray, "README commands write outside out/ (untracked files):\n" + "\n".join(stray)
    ignore = (ROOT / "out" / ".gitignore").read_text().splitlines()
    assert "*" in ignore and "!.gitignore" in ignore


def test_every_public_name_is_what_it_says_after_every_submodule_is_loaded():
    """A submodule named like a public function rebinds the package's attribute when it loads
    (``import pkg.simulate`` sets ``pkg.simulate`` to the module): every public name must still be
    a function or class once every submodule has been imported, in a fresh interpreter."""
    code = (
        "import importlib, pkgutil, types, baseparam as bp\n"
        "for info in pkgutil.walk_packages(bp.__path__, 'baseparam.'):\n"
        "    if not info.name.endswith('__main__'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = [f'{package.__name__}.{name}' for package in [bp] + [importlib.import_module('baseparam.' + sub)\n"
        "       for sub in ('model', 'dynamics', 'projection', 'identification', 'excitation', 'codegen',\n"
        "                   'simulation')]\n"
        "       for name in package.__all__ if isinstance(getattr(package, name), types.ModuleType)]\n"
        "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
