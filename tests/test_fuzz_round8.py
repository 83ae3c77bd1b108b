"""Regressions of the command-line fuzzing of issue 28's eighth round (payload in all its modes, floating bases,
symbolic specs, Parquet and MCAP of odd types, outputs at odd places): each case below failed before its fix — exit
status 1 with 'internal error', a traceback, NaN in an output, or a file written where it was not named. The fuzzer
itself was a throwaway (mutated logs and descriptions, the CLI run in a subprocess with a time limit, its working
folder and temporary folder watched); these are the deterministic cases it found."""
import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp

from baseparam.cli import main
from conftest import ROOT, one_line
from test_fuzz_round9 import _planar_log

UR = ROOT / "robots" / "ur10e_cad.yaml"
SPACE = ROOT / "robots" / "space_robot.yaml"


def _log(tmp_path, n_dof=6, seconds=2.0, **extra):
    """A smooth motion of ``n_dof`` joints with torques at 200 Hz as NPZ, with ``extra`` arrays beside its own."""
    t = np.arange(0, seconds, 0.005)
    q = 0.3 + 0.4 * np.sin(np.outer(t, np.arange(1, n_dof + 1)))
    path = tmp_path / "log.npz"
    np.savez(path, t=t, q=q, tau=np.cos(q), **{k: v(len(t)) for k, v in extra.items()})
    return path


@pytest.mark.parametrize("array,words", [
    (lambda n: np.array([["a"] * 6] * n), ["'w'", "not numeric", "<U1"]),
    (lambda n: np.array([None] * n, dtype=object), ["'w'", "not numeric", "object"]),
    # complex: float() dropped the imaginary part, silently
    (lambda n: np.ones((n, 6)) + 1j, ["'w'", "not numeric", "complex"]),
])
def test_npz_wrench_key_that_is_no_real_array(tmp_path, array, words):
    """`payload --wrench KEY` read the key with np.load and float(): strings and objects (pickles, refused by numpy)
    ended as 'internal error: ValueError', exit 1; a complex array lost its imaginary part without a word."""
    log = _log(tmp_path, w=array)
    one_line(CliRunner().invoke(main, ["payload", str(UR), str(log), "--wrench", "w"]), "log.npz", *words)


@pytest.mark.parametrize("args", [
    ["payload", str(SPACE), "--suggest-poses", "8"],
    # --model of a floating robot for a fixed one: the model's robot is the one the payload is fitted on
    ["payload", str(UR), "LOG", "--model", str(SPACE)],
    ["payload", str(UR), "LOG", "--model", str(SPACE), "--static"],
])
def test_payload_of_a_floating_robot_is_refused(tmp_path, args):
    """The payload's columns are a fixed base's: a floating robot's coordinates lay beyond them, 'internal error:
    IndexError: index 10 is out of bounds', exit 1."""
    log = str(_log(tmp_path))
    result = CliRunner().invoke(main, [log if a == "LOG" else a for a in args])
    one_line(result, "floating base")


def test_figure_to_a_special_file_is_written_there_not_beside_it(tmp_path):
    """`identify --plot /dev/full` said 'wrote /dev/full', exit 0: a device is written in place, under its own name,
    which has no extension, and matplotlib appended '.png' — the figure went to a new file /dev/full.png. The same
    with a named pipe: its reader got nothing, a file `fig.png` appeared beside it."""
    import os
    import threading
    log = _planar_log(tmp_path, 4.0, 0.005)      # 4 s at 200 Hz
    fifo = tmp_path / "fig"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(log),
                                       "--plot", str(fifo)])
    # the old code never opened the pipe: let the reader go. Without blocking: the reader may have had its EOF
    # and be on its way out (is_alive() still true), and a blocking open for writing then waits for a reader forever
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:                       # ENXIO: no reader left
        pass
    reader.join(10)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig", "log.csv"]
    assert got and got[0].startswith(b"\x89PNG"), got


@pytest.mark.parametrize("args", [
    ["payload", str(UR), "LOG", "--robot-out", "a\nb.json"],
    ["export", str(ROOT / "robots" / "planar_rrr.yaml"), "--lang", "c", "--out", "a\nb.json"],
    ["find", str(ROOT / "robots" / "planar_rrr.yaml"), "--json", "no\n/b.json"],
])
def test_output_name_with_a_line_break_is_refused_on_one_line(tmp_path, monkeypatch, args):
    """A name the user gave went raw into the message, which then ran over two lines (the second without
    'baseparam: ')."""
    monkeypatch.chdir(tmp_path)
    log = str(_log(tmp_path))
    one_line(CliRunner().invoke(main, [log if a == "LOG" else a for a in args]), "\\n")


def test_wrote_line_of_a_name_with_a_line_break_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["find", str(ROOT / "robots" / "planar_rrr.yaml"), "--json", "a\nb.json"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "wrote a\\nb.json"
    assert (tmp_path / "a\nb.json").is_file()


@pytest.mark.parametrize("flag", ["--json"])
def test_empty_output_name_is_refused_not_skipped(tmp_path, flag):
    """`payload … --json ''` (an unset shell variable) exited 0 having written nothing: '' is falsy, so the command
    took the output as not asked for (`find --json ''` refused it, after the work)."""
    result = CliRunner().invoke(main, ["payload", str(UR), str(_log(tmp_path)), flag, ""])
    one_line(result, flag, "empty")


def test_excitation_of_a_floating_robot_names_the_floating_base(tmp_path):
    """`excite` of the space robot (limits given) ended in 'q: expected shape (n_samples, 13) or (13,), got (1, 6)':
    the design's samples are joint coordinates, without the base's pose."""
    limits = tmp_path / "limits.yaml"
    limits.write_text("joints:\n" + "  - {q: [-2, 2], qd: 1, qdd: 5}\n" * 6)
    result = CliRunner().invoke(main, ["excite", str(SPACE), "--limits", str(limits), "--starts", "1"])
    one_line(result, "floating base", "excite handles fixed-base robots only")     # round 19: the command


def test_base_twist_from_poses_whose_quaternion_changes_sign(space, tmp_path):
    """q and −q are one orientation; a PoseStamped topic switching between them each message (a publisher that does
    not normalize the sign) gave a base twist differenced across the switches — ω of order 2/dt — and a momentum
    fit 40 % off the same bag's without the switches. Checked against the bag of the same poses, signs kept."""
    from test_floating_logs import rosbags_bag
    robot = bp.load_robot(SPACE)
    log = space.log
    flipped = log.q.copy()
    flipped[1::2, 3:7] *= -1
    kept = bp.read_trajectory(rosbags_bag(tmp_path / "kept", log.t, log.q, log.qd, pose_only=True), robot=robot)
    switched = bp.read_trajectory(rosbags_bag(tmp_path / "switched", log.t, flipped, log.qd, pose_only=True),
                                  robot=robot)
    np.testing.assert_allclose(switched.qd, kept.qd, rtol=0, atol=1e-12)
    # and the derived twist is the simulated one to its differencing error (20 Hz, slow motion)
    assert np.abs(kept.qd[1:-1, 3:6] - log.qd[1:-1, 3:6]).max() < 0.01


@pytest.mark.parametrize("name", ["log.csv", "log.txt"])
def test_binary_log_under_a_text_name_is_named_as_such(tmp_path, name):
    """A Parquet file saved as .csv was decoded as UTF-8 text: its 'header' of control characters and U+FFFD went
    into the message as column names, which ran over nine lines of binary garbage."""
    parquet = bp.write_trajectory(bp.Trajectory(t=np.arange(20) * 0.01, q=np.zeros((20, 3)), tau=np.zeros((20, 3))),
                                  tmp_path / "log.parquet")
    (tmp_path / name).write_bytes(parquet.read_bytes())
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(tmp_path / name)])
    one_line(result, name, "Parquet", ".parquet")


def test_header_names_are_shown_escaped(tmp_path):
    """A header name holding a character Python splits lines at (\\x1c, NEL) gave a message of two lines."""
    path = tmp_path / "log.csv"
    path.write_text("t,q\x1c1,q\u00852\n" + "0,1,2\n" * 3, encoding="utf-8")
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(path)])
    one_line(result, "log.csv", "q\\x1c1", "q\\x852")


def test_h5_output_through_a_link_is_refused_as_a_link_before_the_space_check(tmp_path, monkeypatch):
    """`find --h5 /proc/self/fd/1` (a link, in a file system of 0 free bytes) was refused for disk space — 'would take
    about 2.02 MB on disk, more than the 0 bytes allowed; free some space' — not for being a link."""
    import collections
    import shutil
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(0, 0, 0))
    (tmp_path / "z.h5").symlink_to(tmp_path / "elsewhere.h5")
    robot = str(ROOT / "robots" / "planar_rrr.yaml")
    result = CliRunner().invoke(main, ["find", robot, "--h5", str(tmp_path / "z.h5")])
    one_line(result, "z.h5", "symbolic link")
    assert not (tmp_path / "elsewhere.h5").exists()


@pytest.mark.parametrize("encoding,schema_encoding", [("json", "jsonschema"), ("protobuf", "protobuf")])
def test_mcap_joint_states_of_another_message_encoding_say_so(tmp_path, encoding, schema_encoding):
    """An MCAP channel of JointState in JSON (Foxglove's writers) or protobuf was parsed as CDR: 'damaged JointState
    (unknown CDR encapsulation 7b22)', which sends one looking for damage in a sound file."""
    import json

    from mcap.writer import Writer
    path = tmp_path / "log.mcap"
    with open(path, "wb") as stream:
        writer = Writer(stream)
        writer.start()
        schema = writer.register_schema(name="sensor_msgs/msg/JointState", encoding=schema_encoding, data=b"{}")
        channel = writer.register_channel(topic="/joint_states", message_encoding=encoding, schema_id=schema)
        for k in range(20):
            ns = 10**9 + k * 10**7
            message = {"header": {"stamp": {"sec": ns // 10**9, "nanosec": ns % 10**9}}, "name": ["joint1"],
                       "position": [0.01 * k], "velocity": [0.0], "effort": [0.0]}
            writer.add_message(channel_id=channel, log_time=ns, publish_time=ns, data=json.dumps(message).encode())
        writer.finish()
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(path)])
    one_line(result, "log.mcap", f"message encoding '{encoding}'", "cdr or ros1")
