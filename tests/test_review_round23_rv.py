"""Round 23 (rv): review of round 22's unreviewed commits; each finding fixed at its root."""

import mmap
import os
import time

import pytest


# --- e0b6482c: stale sem.mp-* removal must never remove a live process's semaphore ---

def test_a_live_semaphore_reached_through_a_link_to_its_folder_is_kept(tmp_path):
    """Where /dev/shm is a link (to /run/shm, older Debian), a process maps its semaphore under the real path: the
    check by path took every live semaphore older than 10 minutes for unused and unlinked it. By device and inode."""
    from baseparam._processes import SEMAPHORE_AGE, stale_semaphores_removed
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc")
    real = tmp_path / "run-shm"
    real.mkdir()
    link = tmp_path / "dev-shm"
    link.symlink_to(real)
    old = time.time() - SEMAPHORE_AGE - 60
    for name in ("sem.mp-live", "sem.mp-stale"):
        (real / name).write_bytes(b"\0" * 32)
        os.utime(real / name, (old, old))
    with open(real / "sem.mp-live", "r+b") as file, mmap.mmap(file.fileno(), 32):
        stale_semaphores_removed(str(link))
        assert sorted(p.name for p in real.iterdir()) == ["sem.mp-live"]


def test_a_maps_line_is_read_by_device_and_inode():
    from baseparam._processes import _mapping_identity
    line = "7f1c2a3b4000-7f1c2a3b5000 rw-s 00000000 00:1a 123456                     /dev/shm/sem.mp-a b (deleted)\n"
    assert _mapping_identity(line) == (0, 0x1a, 123456)
    assert _mapping_identity("7f1c2a3b4000-7f1c2a3b5000 rw-p 00000000 103:02 0 \n") == (0x103, 2, 0)
    assert _mapping_identity("garbage\n") is None
