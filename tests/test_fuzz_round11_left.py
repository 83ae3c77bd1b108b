"""Leftovers of issue 28 (reliability) that earlier rounds listed as not done: each case below failed before its
fix: a description with several independent problems refused with one line per problem (the contract promises
one line); public result classes built by hand holding NaN estimates (their methods carried them into a robot, a
controller's format, base parameters); a robot built in code with more joints than a file may hold (200 joints: 10 s
in ``find``); the exported C without a checked entry point."""
import ctypes
import json
import os
import shutil
import subprocess

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT

THREE_PROBLEMS = ("units: {length: m, angle: deg}\njoints:\n"
                  "  - {type: revolute, alpha: abc, a: 0, d: 0}\n"
                  "  - {type: revolute, alpha: 0, a: 1e9, d: 0}\n"
                  "  - {type: prismatic, alpha: 0, a: 0, theta: 0, parent: 7}\n")


# -- several problems of one description: one line, each problem's text kept ------------------------------------
def test_several_problems_of_a_yaml_file_are_one_line(tmp_path):
    path = tmp_path / "arm.yaml"
    path.write_text(THREE_PROBLEMS)
    with pytest.raises(bp.RobotDescriptionError) as info:
        bp.load_robot(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: 3 problems: (1) joints[1].alpha: "), message
    assert "; (2) joints[2].a: expected 0 or a length" in message
    assert "; (3) joints[3].parent: expected an integer" in message
    assert message.count(str(path)) == 1                    # the file named once, not before each problem
    result = CliRunner().invoke(main, ["find", str(path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert result.output.startswith(f"baseparam: {message}"), result.output


def test_many_problems_are_one_line_that_says_how_many_more():
    text = "units: {length: m, angle: deg}\njoints:\n" + "  - {type: revolute, alpha: x, a: 0, d: 0}\n" * 25
    with pytest.raises(bp.RobotDescriptionError) as info:
        bp.parse_robot(text, "many.yaml")
    message = str(info.value)
    assert "\n" not in message and message.startswith("many.yaml: 25 problems: (1) joints[1].alpha: "), message
    assert "(20) joints[20].alpha" in message and "joints[21]" not in message and message.endswith("; and 5 more")


def test_several_problems_of_a_urdf_are_one_line(tmp_path):
    path = tmp_path / "two.urdf"
    path.write_text('<robot name="r"><link name="a"/><link name="b"><inertial><mass value="nan"/></inertial></link>'
                    '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/>'
                    '<limit effort="1" velocity="1" lower="-1" upper="1"/></joint></robot>')
    with pytest.raises(bp.RobotDescriptionError) as info:
        bp.load_robot(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: 2 problems: "), message
    assert "link 'b' <inertial><mass value>" in message and "joint 'j' <axis xyz>" in message
    result = CliRunner().invoke(main, ["find", str(path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output


# -- public result classes built by hand: non-finite estimates refused at construction -----------------------------
def _payload(**change):
    fields = dict(mass=1.5, com=np.array([0.01, 0.0, 0.05]), inertia=np.diag([0.01, 0.02, 0.02]), mass_std=np.nan,
                  com_std=np.full(3, np.nan), inertia_std=np.full((3, 3), np.nan), parameters=np.zeros(10),
                  unconstrained=np.zeros(10), covariance=np.eye(10), identifiable=[], rank=10, mode="model",
                  n_samples=10, rmse=np.zeros(3))
    return bp.PayloadResult(**{**fields, **change})


@pytest.mark.parametrize("field, value", [("mass", np.nan), ("com", np.array([0.0, np.inf, 0.0])),
                                          ("inertia", np.full((3, 3), np.nan)), ("parameters", np.full(10, np.inf))])
def test_a_payload_built_by_hand_refuses_non_finite_estimates(field, value):
    """to_vendor gave a controller NaN, and attach a robot with a NaN body; standard deviations stay free to be NaN
    (undetermined, as the library's own results have them)."""
    # a payload seen, its mass and centre determined (round 20: to_vendor refuses what to_dict leaves out)
    assert _payload(mass_std=0.01, com_std=np.full(3, 0.001)).to_vendor("ur")["mass"] == 1.5
    with pytest.raises(bp.ArgumentError, match=rf"^PayloadResult\.{field}: expected finite numbers, got "):
        _payload(**{field: value})


def test_a_base_set_built_by_hand_refuses_a_non_finite_regrouping():
    """from_standard returned NaN base parameters from a NaN in Y."""
    import dataclasses
    base = bp.find_base_parameters(bp.Robot((bp.Joint("revolute", a=0.5), bp.Joint("revolute", a=0.3))))
    Y = base.Y.copy()
    Y[0, 0] = np.nan
    with pytest.raises(bp.ArgumentError, match=r"^BaseParameters\.Y: expected finite numbers, got "):
        dataclasses.replace(base, Y=Y)


# -- a robot built in code: the files' joint cap, in the loader's words ---------------------------------------------
def test_a_robot_built_in_code_has_the_files_joint_cap(tmp_path):
    """bp.Robot took 200 joints, and find_base_parameters then ran 10-18 s (files are capped at 64 joints; the
    docs promise robots built in code the same checks)."""
    joint = bp.Joint("revolute", alpha=90, a=0.1, d=0.05)
    assert bp.Robot((joint,) * 64, angle_unit="deg").n_dof == 64
    with pytest.raises(bp.RobotDescriptionError, match=r"^joints: expected at most 64 joints, got 200$"):
        bp.Robot((joint,) * 200, angle_unit="deg")
    path = tmp_path / "long.yaml"
    path.write_text("units: {length: m, angle: deg}\njoints:\n" + "  - {type: revolute, alpha: 90, a: 1, d: 0}\n" * 65)
    with pytest.raises(bp.RobotDescriptionError, match=rf"^{path}: joints: expected at most 64 joints, got 65$"):
        bp.load_robot(path)


# -- the exported C: checked entry points beside the plain functions ------------------------------------------------
CC = shutil.which("gcc") or shutil.which("cc")


@pytest.mark.skipif(CC is None, reason="no C compiler (gcc/cc) found")
def test_exported_c_has_checked_entry_points(tmp_path):
    """The C functions had no way to refuse NaN, inf or absurd inputs (the header only stated the bounds):
    NAME_<function>_checked returns 0 (computed, bit for bit what the plain function gives), 1 (a state NaN, inf or
    beyond ±NAME_MAX_STATE) or 2 (p_base beyond ±NAME_MAX_PARAMETER), leaving the output as it was."""
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "planar_rrr.yaml"))
    plain = bp.export(base, "c", prefix="arm", out_dir=tmp_path / "plain")
    bp.export(base, "c", prefix="arm", out_dir=tmp_path / "checked", checked=True)
    texts = {kind: {ext: (tmp_path / kind / f"arm{ext}").read_text() for ext in (".c", ".h", ".json")}
             for kind in ("plain", "checked")}
    assert "_checked" not in texts["plain"][".c"] + texts["plain"][".h"]      # without it: the files as before
    # the plain functions as before, under a comment that says the checks are there; the JSON lists them besides
    body = {kind: texts[kind][".c"].split(" */\n", 1)[1] for kind in texts}
    checked_doc = json.loads(texts["checked"][".json"])
    assert body["checked"].startswith(body["plain"]) and checked_doc.pop("checked") and checked_doc == json.loads(
        texts["plain"][".json"]) and dict(plain.functions) == json.loads(texts["plain"][".json"])["functions"]
    so = tmp_path / "libarm.so"
    done = subprocess.run([CC, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC",
                           str(tmp_path / "checked" / "arm.c"), "-o", str(so), "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lib = ctypes.CDLL(str(so))
    n, R = base.robot.n_dof, base.rank
    rng = np.random.default_rng(1)
    q, qd, qdd, p = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n), rng.uniform(-2, 2, n), rng.uniform(-1, 1, R)

    def call(name, *arrays, size):
        fn = getattr(lib, f"arm_{name}")
        fn.argtypes = [np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")] * (len(arrays) + 1)
        fn.restype = ctypes.c_int if name.endswith("_checked") else None
        out = np.full(size, 7.0)
        status = fn(*[np.ascontiguousarray(a, dtype=np.float64) for a in arrays], out)
        return status, out

    assert call("inverse_dynamics_checked", q, qd, qdd, p, size=n)[0] == 0
    assert call("inverse_dynamics_checked", q, qd, qdd, p, size=n)[1].tobytes() == \
        call("inverse_dynamics", q, qd, qdd, p, size=n)[1].tobytes()
    status, Y = call("regressor_checked", q, qd, qdd, size=n * R)
    assert status == 0 and Y.tobytes() == call("regressor", q, qd, qdd, size=n * R)[1].tobytes()
    np.testing.assert_allclose(Y.reshape(n, R), base.regressor(q, qd, qdd), rtol=1e-12, atol=1e-12)
    edge = q.copy()
    edge[0] = 1e8                                        # the bound itself is taken, as baseparam takes it
    assert call("regressor_checked", edge, qd, qdd, size=n * R)[0] == 0
    for k, bad in ((0, np.nan), (1, -np.inf), (2, 1.0000001e8)):
        states = [q.copy(), qd.copy(), qdd.copy()]
        states[k][n - 1] = bad
        for name in ("regressor_checked", "slotine_li_checked"):
            status, out = call(name, *states, *([qdd] if name.startswith("slotine") else []), size=n * R)
            assert status == 1 and (out == 7.0).all(), (name, k, bad)
        status, out = call("inverse_dynamics_checked", *states, p, size=n)
        assert status == 1 and (out == 7.0).all()
    for bad in (np.nan, np.inf, -1e101):
        wrong = p.copy()
        wrong[R // 2] = bad
        status, out = call("inverse_dynamics_checked", q, qd, qdd, wrong, size=n)
        assert status == 2 and (out == 7.0).all()


def test_checked_is_the_c_exports_option(tmp_path):
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "planar_rrr.yaml"))
    with pytest.raises(bp.ExportError, match=r"^checked: adds the C functions' checked entry points; the Python "):
        bp.export(base, "python", out_dir=tmp_path, checked=True)
    with pytest.raises(bp.ArgumentTypeError, match=r"^checked: "):
        bp.export(base, "c", out_dir=tmp_path, checked="yes")
    result = CliRunner().invoke(main, ["export", str(ROOT / "robots" / "planar_rrr.yaml"), "--lang", "python",
                                       "--checked", "--out", str(tmp_path / "py")])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "--checked: adds" in result.output
    assert not (tmp_path / "py").exists() or not os.listdir(tmp_path / "py")


# -- LeRobot's meta/info.json: read only where LeRobot's layout puts it ---------------------------------------------
@pytest.mark.parametrize("where, info_text", [
    ("shared/a.parquet", '{"features": {"observation.state": {"names": ["j2", "j1", "j3"]}}}'),   # renamed silently
    ("shared/x/y/a.parquet", "not JSON"),                                                         # refused
    ("ds/data/a.parquet", '{"features": {"observation.state": {"names": ["j3", "j2", "j1"]}}}'),   # no chunk-NNN
])
def test_a_parquet_file_outside_lerobots_layout_is_read_alone(tmp_path, where, info_text):
    """Any meta/info.json up to three folders above a Parquet file named its joints: one in a shared folder (anyone's
    /tmp/meta/info.json) renamed, or refused, every Parquet file below it. Only ROOT/data/chunk-NNN/FILE.parquet,
    LeRobot's layout, reads ROOT/meta/info.json (tests/test_logs.py, test_fuzz_round6.py)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    root = tmp_path / where.split("/")[0]
    (root / "meta").mkdir(parents=True)
    (root / "meta" / "info.json").write_text(info_text)
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(0.0, 1.0, 0.01)
    q = np.sin(t[:, None] * [1.0, 1.7, 2.3])
    pq.write_table(pa.table({"timestamp": t, "observation.state": list(q), "observation.effort": list(q)}), path)
    traj = bp.read_trajectory(path, joints=["j1", "j2", "j3"])
    assert np.array_equal(traj.q, q)                          # the file's own order: no names from elsewhere
