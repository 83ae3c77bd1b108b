"""Round 25, reviewer rv6 of s25-lwr: the new placing of outputs, the read-only refusal, the streamed NPZ; each test
fails before its fix."""
import io
import os
import threading
import time

import numpy as np
import pytest

import baseparam as bp
from baseparam import _atomic
from baseparam import _output_names
from baseparam import _leftovers


# --- a moved-aside old version whose output's name holds a newline was removed as a leftover, not put back ---

@pytest.mark.parametrize("name", ["a\nb.json", "o.json\n"])
def test_an_old_version_moved_aside_is_put_back_whatever_its_outputs_name(tmp_path, name):
    """`.baseparam-PID-RANDOM.NAME.old`, NAME with a newline (a name like any other): the pattern stopped at the
    newline, so the old file was not known as a moved-aside output and went with the killed run's leftovers — the
    user's only version of NAME lost."""
    aside = tmp_path / f".baseparam-4000001-0123456789abcdef.{name}.old"
    aside.write_text("old\n")
    with pytest.warns(UserWarning, match="was missing, its old version put back"):
        _leftovers.remove_stale(tmp_path, now=time.time() + 2 * _leftovers.STALE_SECONDS)
    assert os.listdir(tmp_path) == [name] and (tmp_path / name).read_text() == "old\n"


# --- a read-only input named as an output was told "remove it" ---

def test_a_read_only_input_named_as_an_output_is_refused_as_an_input(tmp_path):
    """The read-only refusal came before the input's: a library writer given the robot's own read-only description
    (a hard link to it too) said "is read-only; remove it or choose another name" — advice to remove the input."""
    robot = tmp_path / "robot.yaml"
    robot.write_text("mine\n")
    robot.chmod(0o444)
    os.link(robot, tmp_path / "linked.json")
    with _output_names.inputs_protected([robot]):
        for out in (robot, tmp_path / "linked.json"):
            with pytest.raises(bp.StorageError, match="is an input of this run") as caught:
                _atomic.write_text(out, "new\n")
            assert "remove it" not in str(caught.value)
    with pytest.raises(bp.StorageError, match="ends in '/'"):
        _atomic.write_text(f"{robot}/", "new\n")
    assert robot.read_text() == "mine\n" and sorted(os.listdir(tmp_path)) == ["linked.json", "robot.yaml"]


# --- an NPZ written into a named pipe was no longer the file's bytes ---

def _frozen_zip_time(monkeypatch):
    """zipfile stamps each member with the current time (2 s steps): frozen, two encodings compare byte for byte."""
    import zipfile

    class Clock:
        def __getattr__(self, name):
            return getattr(time, name)

        @staticmethod
        def localtime(seconds=None):
            return time.gmtime(1.7e9)

    monkeypatch.setattr(zipfile, "time", Clock())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes: POSIX")
def test_an_npz_log_written_into_a_named_pipe_is_the_files_bytes(tmp_path, monkeypatch):
    """np.savez streamed into a stream it cannot seek ends each member with a data descriptor (72 more bytes here):
    a log written to a named pipe (or /dev/stdout on a pipe) was no longer the NPZ written to a file. Encoded in
    memory there, as before; the bytes of a file unchanged."""
    _frozen_zip_time(monkeypatch)
    log = bp.Trajectory(np.arange(12) * 0.1, np.ones((12, 2)), tau=np.zeros((12, 2)))
    bp.write_trajectory(log, tmp_path / "file.npz", joint_names=["a", "b"])
    pipe = tmp_path / "pipe.npz"
    os.mkfifo(pipe)
    read = []
    reader = threading.Thread(target=lambda: read.append(pipe.read_bytes()))
    reader.start()
    bp.write_trajectory(log, pipe, joint_names=["a", "b"])
    reader.join(60)
    assert read == [(tmp_path / "file.npz").read_bytes()]


def test_an_npz_log_is_the_bytes_np_savez_encodes_in_memory(tmp_path, monkeypatch):
    """The streamed file, for logs of every field and length, and its size the one checked before the write."""
    from baseparam.identification._log_files import _npz_size

    _frozen_zip_time(monkeypatch)
    rng = np.random.default_rng(3)
    for samples in (10, 11, 100, 1001):
        for n in (1, 3):
            t = np.arange(samples) * 0.01
            log = bp.Trajectory(t, rng.standard_normal((samples, n)), qd=rng.standard_normal((samples, n)),
                                tau=rng.standard_normal((samples, n)))
            names = [f"joint_é{k}" for k in range(n)]
            out = tmp_path / f"log{samples}_{n}.npz"
            bp.write_trajectory(log, out, joint_names=names)
            arrays = {"t": t, "q": log.q, "qd": log.qd, "tau": log.tau, "joint_names": np.array(names)}
            encoded = io.BytesIO()
            np.savez(encoded, **arrays)
            assert out.read_bytes() == encoded.getvalue() and _npz_size(arrays) == out.stat().st_size


# --- an output hard-linked to another file: that file's times changed by the output's write ---

@pytest.mark.parametrize("links", [True, False])
def test_replacing_a_hard_linked_output_leaves_the_other_names_times(tmp_path, monkeypatch, links):
    """The old version kept aside was made young (os.utime) so that another machine's run would not take it for a
    leftover; but an output that is a hard link to another file (a log it was copied from, a backup) shares that
    file's inode: a set's write of the output set the other file's modification time to now (make rebuilt from it).
    Its contents were never touched, and are not; its times now neither — with hard links or without."""
    other, out = tmp_path / "log.csv", tmp_path / "out.csv"
    other.write_text("input\n")
    os.utime(other, (1e9, 1e9))
    os.link(other, out)
    if not links:
        def no_link(*args, **kwargs):
            raise OSError(1, "Operation not permitted")

        monkeypatch.setattr(_atomic.os, "link", no_link)
    with _atomic.outputs_together():
        _atomic.write_text(out, "new\n")
    assert other.read_text() == "input\n" and other.stat().st_mtime == 1e9 and other.stat().st_nlink == 1
    assert out.read_text() == "new\n" and sorted(os.listdir(tmp_path)) == ["log.csv", "out.csv"]


def test_an_old_version_alone_is_still_made_young(tmp_path):
    """Unchanged for an output no other name holds: its old version, kept aside until the run's end, is as young as
    the placing (a run elsewhere must not remove it as a killed run's leftover), and gone once the run ends."""
    out = tmp_path / "o.json"
    out.write_text("old\n")
    os.utime(out, (1e9, 1e9))
    with _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.write_text(out, "new\n")
        olds = [path for path in tmp_path.iterdir() if path.name.endswith(".old")]
        assert len(olds) == 1 and olds[0].read_text() == "old\n" and olds[0].stat().st_mtime > time.time() - 60
    assert out.read_text() == "new\n" and os.listdir(tmp_path) == ["o.json"]


# --- an output on a file system mounted read-only was told "remove it" ---

class _ReadOnlyMount:
    """os.statvfs's figures of a folder, its file system said mounted read-only."""

    def __init__(self, figures):
        self._figures = figures
        self.f_flag = figures.f_flag | getattr(os, "ST_RDONLY", 1)

    def __getattr__(self, name):
        return getattr(self._figures, name)


@pytest.mark.skipif(not hasattr(os, "statvfs"), reason="statvfs: POSIX")
@pytest.mark.parametrize("mode", [0o644, 0o444])
def test_an_output_on_a_read_only_mount_is_refused_in_the_systems_words(tmp_path, monkeypatch, mode):
    """An existing output on a read-only mount is not writable (os.access says so): it was refused as "is read-only;
    remove it or choose another name" — nothing on that mount can be removed. The folder's refusal says it now, as it
    does for a new file there: "cannot write here (Read-only file system)"."""
    import errno

    out = tmp_path / "o.json"
    out.write_text("mine\n")
    out.chmod(mode)
    real_statvfs, real_access = os.statvfs, os.access
    monkeypatch.setattr(os, "statvfs", lambda path: _ReadOnlyMount(real_statvfs(path)))
    monkeypatch.setattr(os, "access", lambda path, how, **kw: False if how & os.W_OK else real_access(path, how, **kw))
    with pytest.raises(bp.StorageError) as caught:
        _output_names.check_output(out)
    assert str(caught.value) == f"{out}: cannot write here ({os.strerror(errno.EROFS)})"


# --- a set taken back: its replaced outputs were missing between the new file's removal and the old one's return ---

def test_an_output_taken_back_is_never_missing(tmp_path, monkeypatch):
    """A set that fails once placed in part (b.json cannot be placed) takes a.json back: the new a.json was removed,
    then the old one renamed back — a reader in between found no a.json, and a SIGKILL there left none, its old
    version under a temporary name no run puts back. The old version's rename now replaces the new file at once."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("old a\n")
    real_replace, real_unlink, missing = os.replace, os.unlink, []

    def replace(source, target):
        if os.fspath(target) == str(b) and os.path.basename(os.fspath(source)).endswith(".tmp"):
            raise OSError(5, "Input/output error")
        real_replace(source, target)
        missing.append(not a.exists())

    def unlink(path, *args, **kwargs):
        real_unlink(path, *args, **kwargs)
        missing.append(not a.exists())

    monkeypatch.setattr(_atomic.os, "replace", replace)
    monkeypatch.setattr(_atomic.os, "unlink", unlink)
    with pytest.raises(bp.StorageError, match="b.json: cannot write"):
        _atomic.write_texts({str(a): "new a\n", str(b): "new b\n"})
    assert a.read_text() == "old a\n" and os.listdir(tmp_path) == ["a.json"]
    assert not any(missing), missing


def test_a_target_named_twice_in_a_set_taken_back_gets_its_first_old_version(tmp_path, monkeypatch):
    """Unchanged: a target placed twice by one set, then taken back, is its version from before the set."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("old a\n")
    real_replace = os.replace

    def replace(source, target):
        if os.fspath(target) == str(b) and os.path.basename(os.fspath(source)).endswith(".tmp"):
            raise OSError(5, "Input/output error")
        real_replace(source, target)

    monkeypatch.setattr(_atomic.os, "replace", replace)
    with pytest.raises(bp.StorageError, match="b.json: cannot write"):
        with _atomic.outputs_together():
            _atomic.write_text(a, "first\n")
            _atomic.write_text(a, "second\n")
            _atomic.write_text(b, "new b\n")
    assert a.read_text() == "old a\n" and os.listdir(tmp_path) == ["a.json"]


# --- an output removed while it was checked was refused as read-only ---

def test_an_output_gone_while_checked_is_written_not_refused_as_read_only(tmp_path, monkeypatch):
    """_read_only took os.access's False for a file without write permission; os.access is False too for a file
    that is gone since its stat (another writer's old version moved aside where no hard link can be made: 3 writers
    into one file failed now and then with 'is read-only; remove it'). A file gone is a new file: written."""
    out = tmp_path / "o.json"
    out.write_text("old\n")
    real_access = os.access

    def access(path, how, **kwargs):
        if how & os.W_OK and os.fspath(path) == str(out) and out.exists():
            out.unlink()                                # gone between the stat and this call
        return real_access(path, how, **kwargs)

    monkeypatch.setattr(os, "access", access)
    _atomic.write_text(out, "new\n")
    assert out.read_text() == "new\n"


# --- a moved-aside old version that could not be put back was removed as a leftover ---

def test_an_old_version_that_cannot_be_put_back_is_kept(tmp_path, monkeypatch):
    """Its output missing, the old version is put back by a hard link (or a rename); when neither can be made (no
    room for a new name: ENOSPC), it was then removed with the killed run's leftovers — the output's only version.
    It stays now, for a later run to put back."""
    import errno

    aside = tmp_path / ".baseparam-4000001-0123456789abcdef.o.json.old"
    aside.write_text("old\n")

    def no_room(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patched:
        patched.setattr(_atomic.os, "link", no_room)
        patched.setattr(_atomic.os, "rename", no_room)
        patched.setattr(_leftovers, "_rename_no_replace", no_room)     # round 26: renameat2, not os.rename
        _leftovers.remove_stale(tmp_path, now=time.time() + 2 * _leftovers.STALE_SECONDS)
    assert os.listdir(tmp_path) == [aside.name]
    with pytest.warns(UserWarning, match="o.json: was missing, its old version put back"):
        _leftovers.remove_stale(tmp_path, now=time.time() + 2 * _leftovers.STALE_SECONDS)
    assert os.listdir(tmp_path) == ["o.json"] and (tmp_path / "o.json").read_text() == "old\n"
