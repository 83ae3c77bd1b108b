"""Regressions of the command-line fuzzing of issue 28's sixth round (export and the code it writes, odd robot
descriptions): each case below failed before its fix. The fuzzer itself was a throwaway (the CLI run with a time
limit on damaged or extreme inputs, the exported code imported and evaluated); these are the deterministic cases
it found."""
import importlib.util
import json

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT
from test_fuzz_round5 import one_line


def import_file(path):
    spec = importlib.util.spec_from_file_location(f"round6_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("speed", [1e8, -1e8, 2e154, 1e200, -1e300])
def test_exported_python_stribeck_term_of_a_huge_speed_is_no_overflow_error(tmp_path, speed):
    """One sample runs on Python floats, whose ``x ** 2`` raised OverflowError past 1.3e154 (numpy's batch of
    the same sample gave inf and 0); the single sample must give what the batch gives. Since round nine the module
    refuses states beyond ±1e8 (MAX_STATE, the library's own bound) in one ValueError, single and batch alike."""
    out = tmp_path / "stribeck"
    result = CliRunner().invoke(main, ["export", str(ROOT / "robots" / "planar_rrr.yaml"), "--lang", "python",
                                       "--out", str(out), "--friction", "--friction-model", "smooth:0.01+stribeck:0.1"])
    assert result.exit_code == 0, result.output
    code = import_file(out / "baseparam_dynamics.py")
    q, qd = np.full(3, 0.3), np.array([speed, 0.2, -0.1])
    with np.errstate(all="ignore"):
        for function, args in [("regressor", (q, qd, q)), ("slotine_li", (q, qd, q, q))]:
            if abs(speed) <= code.MAX_STATE:
                single = getattr(code, function)(*args)
                batch = getattr(code, function)(*(a[None] for a in args))[0]
                assert np.isfinite(single).all()
                np.testing.assert_array_equal(single, batch)
                continue
            for arrays in (args, tuple(a[None] for a in args)):
                with pytest.raises(ValueError, match="beyond"):
                    getattr(code, function)(*arrays)


def urdf(mass="1.0", head=""):
    """A 2-joint URDF chain; `mass` is link l2's mass text, `head` goes first inside <robot>."""
    body = ""
    for i, m in enumerate(["1.0", "1.0", mass]):
        if i:
            body += (f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
                     f'<origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>'
                     f'<limit effort="10" lower="-3" upper="3" velocity="2"/></joint>')
        body += (f'<link name="l{i}"><inertial><mass value="{m}"/><origin xyz="0 0 0.1"/>'
                 f'<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>')
    return f'<?xml version="1.0"?>\n<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">{head}{body}</robot>\n'


@pytest.mark.parametrize("mass", ["1_000", "\u0661\u0662", "\uff12", "0x10", "1e5\u00a0"])
def test_urdf_number_python_reads_but_no_urdf_reader_does_is_refused(tmp_path, mass):
    """float() took '1_000' as 1000 kg and Unicode digits as numbers, silently; urdfdom refuses them."""
    path = tmp_path / "odd.urdf"
    path.write_text(urdf(mass), encoding="utf-8")
    one_line(CliRunner().invoke(main, ["describe", str(path)]), "odd.urdf", "l2", "mass value", "finite number")


def test_urdf_numbers_as_urdfdom_reads_them_still_read(tmp_path):
    path = tmp_path / "fine.urdf"
    path.write_text(urdf(" +.5e1\t"), encoding="utf-8")
    assert bp.load_robot(path).joints[1].inertia.mass == 5.0


@pytest.mark.parametrize("head", ['<xacro:include filename="arm.urdf.xacro"/>',
                                  '<xacro:property name="m" value="1"/>', '<xacro:arm prefix="left_"/>'])
def test_unexpanded_xacro_elements_are_refused_not_skipped(tmp_path, head):
    """A xacro include or macro call adds links when expanded; read as URDF it was skipped in silence (the robot
    then lacked them)."""
    path = tmp_path / "arm.urdf"
    path.write_text(urdf(head=head), encoding="utf-8")
    one_line(CliRunner().invoke(main, ["find", str(path)]), "arm.urdf", "xacro", "expand")


def test_xacro_expression_left_in_a_number_says_so(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(urdf("${m2}"), encoding="utf-8")
    one_line(CliRunner().invoke(main, ["describe", str(path)]), "arm.urdf", "l2", "xacro expression")


@pytest.mark.parametrize("value", ["1" + "0" * 5000, "-" + "9" * 4400, "1." + "0" * 5000],
                         ids=["int", "negative", "float"])
def test_yaml_number_of_thousands_of_digits_names_its_field(tmp_path, value):
    """An integer of over 4 300 digits was refused by Python's int() with no field and advice to call
    sys.set_int_max_str_digits()."""
    path = tmp_path / "long.yaml"
    path.write_text("name: t\nunits: {length: m, angle: deg}\njoints:\n"
                    f"  - {{type: revolute, alpha: 0, a: 1, d: {value}}}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["describe", str(path)])
    one_line(result, "long.yaml", "joints[1].d", "characters")
    assert "set_int_max_str_digits" not in result.output


def lerobot(root, info_text):
    """A LeRobot-like dataset of the planar arm's joints j1..j3 (data/chunk-000/episode_000000.parquet) whose
    meta/info.json holds `info_text`; the path of its Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    t = np.arange(0.0, 2.0, 0.01)
    q = np.sin(t[:, None] * [1.0, 1.7, 2.3])
    (root / "meta").mkdir(parents=True)
    (root / "data" / "chunk-000").mkdir(parents=True)
    (root / "meta" / "info.json").write_text(info_text, encoding="utf-8")
    path = root / "data" / "chunk-000" / "episode_000000.parquet"
    pq.write_table(pa.table({"timestamp": t, "observation.state": list(q), "observation.effort": list(q)}), path)
    return path


def info(names):
    return json.dumps({"features": {key: {"dtype": "float64", "shape": [3], "names": names}
                                    for key in ("observation.state", "observation.effort")}})


@pytest.mark.parametrize("text,words", [
    ("[" * 100_000 + "]" * 100_000, ["nested too deeply"]),                  # was a bare RecursionError, exit 1
    ('{"features": {"observation.state": ' + "9" * 5000 + "}}", ["thousands of digits"]),
    (info(["j2", "j1", "j3"])[:60], ["not JSON"]),                            # the rest read as no names, in order
    ("", ["not JSON"]),
    (info(5), ["observation.state.names", "list of joint names"]),
    (info([1, 2, 3]), ["observation.state.names", "list of joint names"]),
    ('{"features": [1, 2]}', ["features", "JSON object"]),
    ("[1, 2, 3]", ["JSON object"]),
], ids=["deep", "digits", "truncated", "empty", "names-int", "names-numbers", "features-list", "top-list"])
def test_damaged_lerobot_info_is_refused_not_read_as_no_names(tmp_path, text, words):
    """meta/info.json names the joints of the lists; a damaged one was read as no names, and the columns were
    then taken in the file's order, silently, whatever order the file had meant (or a RecursionError escaped)."""
    path = lerobot(tmp_path / "set", text)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(path, joints=["j1", "j2", "j3"])
    message = str(err.value)
    assert "\n" not in message and "info.json" in message
    for word in words:
        assert word in message, message


@pytest.mark.parametrize("names", [["j2", "j1", "j3"], {"motors": ["j2", "j1", "j3"]}, None])
def test_lerobot_info_names_still_read(tmp_path, names):
    path = lerobot(tmp_path / "set", info(names))
    traj = bp.read_trajectory(path, joints=["j1", "j2", "j3"])
    t = np.arange(0.0, 2.0, 0.01)
    order = [1, 0, 2] if names is not None else [0, 1, 2]
    assert np.array_equal(traj.q, np.sin(t[:, None] * np.array([1.0, 1.7, 2.3])[order]))


@pytest.mark.parametrize("args", [["equations", "--json"], ["equations", "--python"], ["equations", "--out"],
                                  ["find", "--json"], ["find", "--h5"]])
def test_output_in_a_missing_folder_is_refused_before_the_work(tmp_path, monkeypatch, args):
    """equations found the base set and expanded the closed form (11 s for the PUMA 560) before finding that
    its output's folder did not exist; excite and identify check first."""
    import baseparam.projection.base_set as base_set

    def never(*a, **k):
        raise AssertionError("the projection ran")
    monkeypatch.setattr(base_set, "find_base_parameters", never)
    command, flag = args
    # --python writes a module: a .py name; the others their formats' (round 26: JSON or HDF5 under .txt refused)
    name = {"--python": "out.py", "--json": "out.json", "--h5": "out.h5"}.get(flag, "out.txt")
    out = tmp_path / "missing" / name
    result = CliRunner().invoke(main, [command, str(ROOT / "robots" / "planar_rrr.yaml"), flag, str(out)])
    one_line(result, name, "does not exist")


@pytest.mark.parametrize("model", ["smooth:1e308", "stribeck:1000", "smooth:0.1+stribeck:5e3"])
def test_friction_scale_too_large_says_the_bound_it_breaks(tmp_path, model):
    """'expected a velocity scale > 0 …, got 1e+308': the value broke the upper bound the message did not give."""
    result = CliRunner().invoke(main, ["export", str(ROOT / "robots" / "planar_rrr.yaml"), "--lang", "c", "--out",
                                       str(tmp_path), "--friction", "--friction-model", model])
    one_line(result, "--friction-model", "below 1000")
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="needs named pipes")
def test_a_control_character_in_a_refusal_is_escaped(tmp_path):
    """A name read from a file (a bag's metadata.yaml listing a FIFO named with an ESC) reached the terminal raw in
    the one-line refusal (only whitespace was collapsed): the CLI escapes what it writes."""
    import os
    bag = tmp_path / "bag"
    bag.mkdir()
    (bag / "metadata.yaml").write_text('rosbag2_bagfile_information:\n  storage_identifier: mcap\n'
                                       '  relative_file_paths: ["x\\e[2J.mcap"]\n')
    os.mkfifo(bag / "x\x1b[2J.mcap")
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(bag)])
    assert result.exit_code == 2, result.output
    assert "\x1b" not in result.output and "x\\x1b[2J.mcap" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
