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
    from baseparam import _leftovers
    from baseparam.dynamics import _native
    from baseparam.identification import _bag_files
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def private():
        _leftovers.private_folder(".baseparam-matplotlib")        # removes the killed runs' first, then makes its own
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
    from baseparam._leftovers import STALE_SECONDS, STALE_SECONDS_WITHOUT_PID
    prefix, remove = _removers(tmp_path, monkeypatch)[which]
    old = _stale_folder(tmp_path, f"{prefix}{DEAD}-abcdefgh", STALE_SECONDS_WITHOUT_PID + 60)
    empty = _stale_folder(tmp_path, f"{prefix}{DEAD}-emptyxyz", STALE_SECONDS_WITHOUT_PID + 60)
    (tmp_path / empty / "kernel.c").unlink()                    # killed before it wrote anything: ours all the same
    os.utime(tmp_path / empty, (time.time() - 2 * 86_400,) * 2)
    recent = _stale_folder(tmp_path, f"{prefix}{DEAD}-recent12", 2 * STALE_SECONDS)    # may be another machine's
    remove()
    assert not (tmp_path / old).exists() and not (tmp_path / empty).exists()
    assert (tmp_path / recent).is_dir()


# -- an HDF5 file the file system refuses to extend when it is closed -------------------------------------------------
# h5py's words when closing a file a file size limit (ulimit -f, FAT32's 4 GiB) stops from growing, as `find
# --symbolic all --h5` on the UR10e said them under a 16 kB limit (before s12-h5seg closed a failed file on the null
# device, which keeps that command from meeting them)
EXTEND_REFUSED = ("Can't decrement id ref count (unable to extend file properly, errno = 27, error message = 'File too "
                  "large')")


def test_an_hdf5_file_refused_its_growth_at_close_is_a_storage_error(tmp_path):
    """writes_checked knew HDF5's "file write failed" and errno 28 (a full disk) only: "unable to extend file
    properly, errno = 27" (a file size limit; errno 122, a quota, the same) got past it as a RuntimeError, which the
    command line called an internal error (exit 1)."""
    import errno

    import baseparam as bp
    from baseparam._hdf5 import writes_checked
    for code, words in ((errno.EFBIG, "File too large"), (errno.EDQUOT, os.strerror(errno.EDQUOT)),
                        (errno.EIO, os.strerror(errno.EIO))):
        with pytest.raises(bp.StorageError, match=rf"^out\.h5: cannot write \({words}\)$"):
            with writes_checked("out.h5", str(tmp_path / "z.h5.tmp")):
                raise RuntimeError(EXTEND_REFUSED.replace("errno = 27", f"errno = {code}"))
    for other in ("Can't decrement id ref count", "Can't decrement id ref count (errno = 22, error message = "
                  "'Invalid argument')"):                   # no storage's refusal: not a write's failure
        with pytest.raises(RuntimeError, match=r"^Can't decrement id ref count"):
            with writes_checked("out.h5", str(tmp_path / "z.h5.tmp")):
                raise RuntimeError(other)

