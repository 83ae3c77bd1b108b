"""Regressions found reviewing round 14's 'left' (the one rule for killed runs' folders): each test below failed on
the code before its fix."""
import os
import socket
import tempfile
import time

import pytest

DEAD = 2 ** 22 + 1                  # beyond Linux's largest process id: no process has it


def _removers(tmp_path, monkeypatch):
    """{kind: (the prefix of its folders, the files a killed run leaves in one, the routine that removes them)}."""
    from baseparam import _atomic
    from baseparam.dynamics import _native
    from baseparam.identification import _bag_files
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def private():
        _atomic.private_folder(".baseparam-matplotlib")        # removes the killed runs' first, then makes its own
        return None
    return {
        "kernel in the cache": ("tmp-kernel-", lambda: _native.remove_stale_scratch(str(tmp_path))),
        "kernel without a cache": ("baseparam-kernel-",
                                   lambda: _native.remove_stale_scratch(str(tmp_path), _native.NO_CACHE)),
        "unpacked bag": ("baseparam-rosbag2-", lambda: _bag_files.remove_stale_unpacked(str(tmp_path))),
        "private folder": (".baseparam-matplotlib-", private)}


def _stale_folder(where, name, age):
    folder = where / name
    folder.mkdir()
    (folder / "kernel.c").write_text("int f(void);\n")
    os.utime(folder, (time.time() - age, time.time() - age))
    return name


KINDS = ["kernel in the cache", "kernel without a cache", "unpacked bag", "private folder"]


@pytest.mark.parametrize("which", KINDS)
def test_a_live_run_on_a_machine_whose_name_starts_with_this_ones_keeps_its_folder(tmp_path, monkeypatch, which):
    """On 'node', a folder of a live run on 'node-1' sharing the folder (its process id no process here has, its
    folder's time unchanged while it works) was taken for this machine's: the pattern of the unpacked bags' and the
    private folders' names ended after '-node-', so '-node-1-…' matched."""
    prefix, remove = _removers(tmp_path, monkeypatch)[which]
    monkeypatch.setattr(socket, "gethostname", lambda: "node")
    theirs = _stale_folder(tmp_path, f"{prefix}{DEAD}-node-1-abcdefgh", 2 * 86_400)
    ours = _stale_folder(tmp_path, f"{prefix}{DEAD}-node-abcdefgh", 2 * 86_400)
    remove()
    assert (tmp_path / theirs).is_dir()
    assert not (tmp_path / ours).exists()


@pytest.mark.parametrize("which", KINDS)
def test_the_folders_named_before_the_host_was_in_the_name_are_still_removed(tmp_path, monkeypatch, which):
    """Earlier versions named these folders PREFIX-PID-RANDOM, without the host: once the names carried it, a
    killed run's folder of that naming (an unpacked bag: as large as the bag) was never removed by anything. They
    cannot be told from another machine's live run, so they go as the names without an id do: unchanged for a day."""
    from baseparam._atomic import STALE_SECONDS, STALE_SECONDS_WITHOUT_PID
    prefix, remove = _removers(tmp_path, monkeypatch)[which]
    old = _stale_folder(tmp_path, f"{prefix}{DEAD}-abcdefgh", STALE_SECONDS_WITHOUT_PID + 60)
    recent = _stale_folder(tmp_path, f"{prefix}{DEAD}-recent12", 2 * STALE_SECONDS)    # may be another machine's
    remove()
    assert not (tmp_path / old).exists()
    assert (tmp_path / recent).is_dir()
