"""Regressions of the command-line fuzzing of issue 28's ninth round (outputs at odd places and in pairs, URDF
``<mimic>`` joints of odd kinds, floating-base and IMU logs, what the commands write read back): each case below
failed before its fix — exit status 1 with 'internal error', a traceback, NaN in an output, or a file left or
written where it should not be. The fuzzer itself was a throwaway (the CLI run in a forked process with a time
limit, its working folder and temporary folder watched); these are the deterministic cases it found."""
import os

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT, one_line

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


def _planar_log(tmp_path, seconds=2.0, step=0.01):
    """The planar arm's torques (random standard parameters) along a smooth motion (2 s at 100 Hz), as CSV."""
    robot = bp.load_robot(PLANAR)
    t = np.arange(0, seconds, step)
    w = np.array([1.0, 1.7, 2.3])
    q, qd, qdd = np.sin(np.outer(t, w)), np.cos(np.outer(t, w)) * w, -np.sin(np.outer(t, w)) * w**2
    p = np.random.default_rng(0).uniform(0.1, 1.0, bp.ColumnLayout(robot).n_standard)
    tau = bp.inverse_dynamics(bp.Model(robot, p), q, qd, qdd)
    return bp.write_trajectory(bp.Trajectory(t=t, q=q, qd=qd, tau=tau), tmp_path / "log.csv")


# -- a command that fails leaves none of its outputs -----------------------------------------------------------
@pytest.mark.parametrize("args", [
    # the leftover of round 8: the JSON was written, then the figure could not be: exit 2, a.json stayed
    ["identify", str(PLANAR), "LOG", "--json", "a.json", "--plot", "/dev/full"],
    # the HDF5 file is written first, then the JSON: the same
    ["find", str(PLANAR), "--h5", "a.h5", "--json", "/dev/full"],
    ["find", str(PLANAR), "--h5", "a.h5", "--json", "link.json"],
    ["find", str(PLANAR), "--h5", "a.h5", "--json", "L" * 300 + ".json"],
])
def test_a_command_that_fails_leaves_none_of_its_outputs(tmp_path, monkeypatch, args):
    """Outputs were each renamed into place as soon as written: a later one refused (a full device, a link, a name
    too long) ended the run with exit 2 and the earlier ones left behind, as if the run had succeeded."""
    monkeypatch.chdir(tmp_path)
    if "--plot" in args:        # the figure's bytes, without matplotlib's cost: /dev/full refuses them as it did
        from baseparam._atomic import write_text
        monkeypatch.setattr("baseparam.identification.plots.save_identification_plot",
                            lambda result, path: write_text(path, "figure"))
    (tmp_path / "link.json").symlink_to("nowhere.json")
    log = str(_planar_log(tmp_path)) if "LOG" in args else None
    (tmp_path / "old.json").write_text("old\n")
    result = CliRunner().invoke(main, [log if a == "LOG" else a for a in args])
    one_line(result)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["link.json", "old.json"] + (["log.csv"] if log
                                                                                             else []))


def test_a_failed_command_keeps_the_old_outputs_as_they_were(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.h5").write_text("old h5\n")
    result = CliRunner().invoke(main, ["find", str(PLANAR), "--h5", "a.h5", "--json", "/dev/full"])
    one_line(result, "/dev/full")
    assert (tmp_path / "a.h5").read_text() == "old h5\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.h5"]


def test_outputs_of_a_command_that_succeeds_are_all_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.json").write_text("old\n")
    result = CliRunner().invoke(main, ["find", str(PLANAR), "--h5", "a.h5", "--json", "a.json"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.h5", "a.json"]
    assert bp.read_h5("a.h5")["attrs"]["rank"] == 9
    assert '"rank": 9' in (tmp_path / "a.json").read_text()


def test_outputs_together_places_all_or_none(tmp_path):
    """The library's writers inside the block (one file, a set of files) are placed when it ends; an error in it
    removes them all, temporary files included; outside it they are placed at once, as before."""
    from baseparam._atomic import _LIVE, outputs_together, write_text, write_texts
    with pytest.raises(RuntimeError), outputs_together():
        write_text(tmp_path / "a.txt", "a")
        write_texts({str(tmp_path / "b.txt"): "b", str(tmp_path / "c.txt"): "c"})
        raise RuntimeError
    assert list(tmp_path.iterdir()) == [] and not _LIVE
    (tmp_path / "b.txt").write_text("old b")
    with outputs_together():
        write_text(tmp_path / "a.txt", "a")
        with outputs_together():                  # an inner block is the outer one's
            write_texts({str(tmp_path / "b.txt"): "b", str(tmp_path / "c.txt"): "c"})
        assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["b.txt"]
        assert (tmp_path / "b.txt").read_text() == "old b"
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a.txt": "a", "b.txt": "b", "c.txt": "c"}
    assert not _LIVE


# -- a run refused after its logs were read says one line --------------------------------------------------------
def test_floating_run_refused_after_reading_says_one_line(space, tmp_path):
    """The readers' notes (a bag's topics, the IMU's lever arm, here the low-pass of --cutoff) went to stderr as the
    logs were read: a run then refused by the fit (`--known` of no such parameter; the momentum route with
    --contacts of an IMU bag) said its notes and the refusal, several lines. The notes come once the fit stands."""
    from baseparam.identification.floating_logs import write_floating_log
    log = tmp_path / "log.csv"
    write_floating_log(log, space.log)
    args = ["identify", str(ROOT / "robots" / "space_robot.yaml"), str(log), "--route", "momentum", "--cutoff", "3"]
    one_line(CliRunner().invoke(main, [*args, "--known", "nosuch=1"]), "--known", "nosuch")
    result = CliRunner().invoke(main, [*args, "--known", "mass=448"])
    assert result.exit_code == 0, result.output
    assert "low-passed at 3 Hz" in result.output


@pytest.mark.parametrize("value", ["1e300", "1e200"])
def test_base_quaternion_too_large_to_square_is_refused_without_numpys_warning(space, tmp_path, value):
    """A floating log's base quaternion of 1e300 (a damaged cell): its norm overflowed inside numpy, whose
    'RuntimeWarning: overflow encountered in multiply' came out as a warning line before the refusal."""
    from baseparam.identification.floating_logs import write_floating_log
    log = tmp_path / "log.csv"
    write_floating_log(log, space.log)
    lines = log.read_text().splitlines()
    header, row = lines[0].split(","), lines[5].split(",")
    row[header.index("q4")] = value
    lines[5] = ",".join(row)
    log.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "space_robot.yaml"), str(log), "--route",
                                       "momentum", "--known", "mass=448"])
    assert result.output.splitlines() == [f"baseparam: {log}: field q: the base quaternion (x, y, z, w) of sample 4 "
                                          "has norm inf; expected a unit quaternion"]
    assert result.exit_code == 2


# -- an output inside an input folder ----------------------------------------------------------------------------
@pytest.mark.parametrize("inner", ["metadata.yaml", "bag_0.mcap", "new.json"])
def test_output_inside_an_input_bag_folder_is_refused(tmp_path, inner):
    """`identify ROBOT bag --json bag/metadata.yaml` (a ROS 2 bag is a folder) replaced the bag's metadata, after
    the fit that read it: the input could not be read again. Only a file that *is* an input was protected."""
    bag = tmp_path / "bag"
    bag.mkdir()
    (bag / "metadata.yaml").write_text("rosbag2_bagfile_information: {}\n")
    (bag / "bag_0.mcap").write_bytes(b"\x89MCAP0\r\n")
    before = {p.name: p.read_bytes() for p in bag.iterdir()}
    result = CliRunner().invoke(main, ["identify", str(PLANAR), str(bag), "--json", str(bag / inner)])
    one_line(result, "inside the input folder", "--json")
    assert {p.name: p.read_bytes() for p in bag.iterdir()} == before


def test_library_writes_inside_a_protected_input_folder_are_refused(tmp_path):
    from baseparam._atomic import write_text
    from baseparam._output_names import inputs_protected
    from baseparam.errors import StorageError
    bag = tmp_path / "bag"
    (bag / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(bag)
    with inputs_protected([bag]):
        for target in (bag / "metadata.yaml", bag / "sub" / "x.json", tmp_path / "link" / "x.json"):
            with pytest.raises(StorageError, match="inside .*bag, an input folder of this run"):
                write_text(target, "x")
        write_text(tmp_path / "bag.json", "beside it: written")     # a name that merely starts like the folder's
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bag", "bag.json", "link"]
    assert [p.name for p in bag.rglob("*")] == ["sub"]


def test_document_on_a_full_stdout_is_said_as_stdouts(tmp_path):
    """`find ROBOT --json - > /dev/full`: the failed write had no file name, and the message named the robot file
    ('planar_rrr.yaml: No space left on device'), as if the input could not be read."""
    import os
    import subprocess
    import sys
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "baseparam", "find", str(PLANAR), "--json", "-"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120, cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == ["baseparam: standard output: cannot write (No space left on device)"]


@pytest.mark.parametrize("flag,value,said", [("--base-topic", "", "base pose topic '': not in the bag"),
                                             ("--base-topic", " ", "base pose topic ' ': not in the bag"),
                                             ("--base-topic", "/a\nb", "base pose topic /a\\nb: not in the bag"),
                                             # (round 17: an empty entry of a comma list is refused as such)
                                             ("--topic", ",", "--topic: entry 1 of ',' is empty")])
def test_topic_names_that_do_not_show_are_quoted(space, tmp_path, flag, value, said):
    """`--base-topic ''` said 'base pose topic : not in the bag': the name the user gave vanished from the message
    (and the library's message carried a line break of the name raw)."""
    from test_floating_logs import rosbags_bag
    log = space.log
    bag = rosbags_bag(tmp_path / "bag", log.t[:20], log.q[:20], log.qd[:20])
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "space_robot.yaml"), str(bag), "--route",
                                       "momentum", "--known", "mass=448", flag, value])
    one_line(result, said)



class _SignalAfter:
    """Stands for _atomic._TOGETHER: a Ctrl-C landing right after its ``calls``-th change (set or reset) returns, as
    CPython checks for signals after a call."""

    def __init__(self, var, calls):
        self.var, self.calls = var, calls

    def get(self):
        return self.var.get()

    def __getattr__(self, name):                    # set, reset
        def call(*args):
            result = getattr(self.var, name)(*args)
            self.calls -= 1
            if self.calls == 0:
                raise KeyboardInterrupt
            return result
        return call


@pytest.mark.parametrize("calls", [1, 2], ids=["opening", "closing"])
def test_write_texts_interrupted_leaves_no_open_block(tmp_path, monkeypatch, calls):
    """A Ctrl-C just after write_texts opens (or closes) its block of outputs: no temporary file left, the targets
    all old or all new, and the block not left open (every later write of the session was staged in it and never
    written)."""
    from baseparam import _atomic
    monkeypatch.setattr(_atomic, "_TOGETHER", _SignalAfter(_atomic._TOGETHER, calls))
    with pytest.raises(KeyboardInterrupt):
        _atomic.write_texts({str(tmp_path / "a.txt"): "a", str(tmp_path / "b.txt"): "b"})
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["a.txt", "b.txt"]) and not _atomic._LIVE
    assert _atomic._TOGETHER.get() is None
    _atomic.write_text(tmp_path / "c.txt", "c")
    assert (tmp_path / "c.txt").read_text() == "c"


@pytest.mark.parametrize("moves", [1, 2, 3], ids=["old-aside", "first-placed", "second-aside"])
def test_write_texts_interrupted_between_its_renames_keeps_the_old_set(tmp_path, monkeypatch, moves):
    """A Ctrl-C right after one of the steps that put a set in place (old file kept aside — a hard link since
    round 25 —, new file in): the old set back whole. The move not yet noted was not undone: the old a.txt, moved
    aside, was then removed as scratch, or the new a.txt stayed beside the old b.txt."""
    from baseparam import _atomic
    (tmp_path / "a.txt").write_text("old a")
    (tmp_path / "b.txt").write_text("old b")
    replace, link, left = os.replace, os.link, [moves]

    def interrupted(step):
        def call(*args, **kwargs):
            step(*args, **kwargs)
            left[0] -= 1
            if left[0] == 0:
                raise KeyboardInterrupt
        return call

    monkeypatch.setattr(_atomic.os, "replace", interrupted(replace))
    monkeypatch.setattr(_atomic.os, "link", interrupted(link))
    with pytest.raises(KeyboardInterrupt):
        _atomic.write_texts({str(tmp_path / "a.txt"): "new a", str(tmp_path / "b.txt"): "new b"})
    monkeypatch.undo()
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a.txt": "old a", "b.txt": "old b"}
    assert not _atomic._LIVE


def test_write_texts_whose_target_another_writer_moved_aside_goes_on(tmp_path, monkeypatch):
    """Two runs writing one set at once: the old file this one was about to move aside was moved by the other
    first. Nothing of it to keep; the set is written (it was refused: 'cannot write (No such file or directory)')."""
    from baseparam import _atomic
    target = tmp_path / "a.txt"
    target.write_text("old a")
    replace = os.replace

    def raced(src, dst):
        if os.fspath(src) == str(target):
            os.unlink(target)                       # the other writer's move aside, just before ours
        replace(src, dst)

    monkeypatch.setattr(_atomic.os, "replace", raced)
    _atomic.write_texts({str(target): "new a", str(tmp_path / "b.txt"): "new b"})
    monkeypatch.undo()
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a.txt": "new a", "b.txt": "new b"}
    assert not _atomic._LIVE
