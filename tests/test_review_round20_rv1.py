"""Review of round 20's end-of-run take-back (aa632d2) and folder locks (9beda72) in baseparam._atomic."""
import os
import sys
import threading

import pytest

from baseparam import _atomic

posix = pytest.mark.skipif(os.name != "posix" or sys.platform == "emscripten", reason="flock")


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


@posix
def test_the_watchdogs_take_back_does_not_wait_out_the_folder_lock_of_its_own_main_thread(tmp_path, monkeypatch):
    """A second SIGTERM while the main thread renames a set's files: the first raises in the main thread (holding
    the folder's lock, its undo wanting _PLACING), the watchdog's take-back held _PLACING and waited for that folder
    lock — each for the other, until the lock's whole wait (5 s) was out: the 'at once' of a second SIGTERM was 5 s,
    and the take-back went ahead unlocked. The lock order is now one (folders, then _PLACING): the main thread's undo
    finishes, and the take-back then gets the lock. The clock is the test's own: the take-back's wait for the lock
    advances it past the deadline, once the main thread has unwound (or 30 s have passed, a hang guard); its wait
    for _PLACING has no timeout here (a second, where the main thread's renames or undo take milliseconds)."""
    import fcntl

    names = [tmp_path / "o.json", tmp_path / "o.py"]
    for name in names:
        name.write_text("old")
    monkeypatch.setattr(_atomic, "_SETTLED", [])        # this process's decision: none yet (another test's clean-up)
    waiting, unwound, gave_up, clock = threading.Event(), threading.Event(), [], [0.0]

    class Clock:
        """time for _atomic: the take-back's thread (named 'watchdog') on a clock of its own."""
        def __getattr__(self, name):
            return getattr(__import__("time"), name)

        def monotonic(self):
            return clock[0] if threading.current_thread().name == "watchdog" else __import__("time").monotonic()

        def sleep(self, seconds):
            if threading.current_thread().name != "watchdog":
                return __import__("time").sleep(seconds)
            unwound.wait(30)                            # the main thread's undo, done: its lock let go
            clock[0] += 2 * _atomic._FOLDER_LOCK_WAIT   # a next BlockingIOError gives up

    real_flock, real_lock_folder, real_replace = fcntl.flock, _atomic._lock_folder, os.replace

    def flock(fd, operation):
        try:
            return real_flock(fd, operation)
        except BlockingIOError:
            if threading.current_thread().name == "watchdog":
                waiting.set()
            raise

    def lock_folder(fcntl_module, folder):
        fd = real_lock_folder(fcntl_module, folder)
        if fd is None and threading.current_thread().name == "watchdog":
            gave_up.append(folder)
        return fd

    class Placing:
        """_atomic._PLACING, on which the take-back's thread says when it must wait (and waits without a timeout)."""
        def __init__(self, lock):
            self.lock = lock

        def acquire(self, blocking=True, timeout=-1):
            if threading.current_thread().name != "watchdog":
                return self.lock.acquire(blocking, timeout)
            if not self.lock.acquire(False):
                waiting.set()
                self.lock.acquire()
            return True

        def release(self):
            self.lock.release()

        def __enter__(self):
            return self.acquire()

        def __exit__(self, *exc):
            self.release()

    watchdog = threading.Thread(target=_atomic.take_back_kept, name="watchdog")

    def replace(source, target):
        real_replace(source, target)
        if os.fspath(target) == os.path.realpath(names[0]) and not os.fspath(source).endswith(".old") \
                and threading.current_thread() is not watchdog and not watchdog.ident:
            watchdog.start()                            # the second SIGTERM: the watchdog's forced end
            assert waiting.wait(30)                     # a hang guard only: it waits for the main thread
            raise KeyboardInterrupt                     # the first SIGTERM, raised in the main thread

    monkeypatch.setattr(_atomic, "time", Clock())
    monkeypatch.setattr(_atomic, "_PLACING", Placing(_atomic._PLACING))
    monkeypatch.setattr(fcntl, "flock", flock)
    monkeypatch.setattr(_atomic, "_lock_folder", lock_folder)
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt), _atomic.outputs_kept(to_exit=True):
        _atomic.write_texts(dict.fromkeys(map(str, names), "new"))
    unwound.set()
    watchdog.join(60)
    monkeypatch.undo()
    assert gave_up == []                                # it waited for the lock only while the main thread undid
    assert [name.read_text() for name in names] == ["old", "old"] and _names(tmp_path) == ["o.json", "o.py"]


@posix
def test_a_single_file_is_placed_without_waiting_for_its_folders_lock(tmp_path, monkeypatch):
    """The folder lock keeps two sets of files from mixing; a single file is one rename, atomic by itself. Every
    output took the lock all the same, and a folder another program had locked (`flock DIR baseparam find …
    --json DIR/o.json`, a job script's lock) held each run 5 s (6.5 s against 1.6 s). Here the folder is locked by
    another descriptor; a single file is placed without asking for the lock (with no wait allowed, the
    lock's refusals are counted: none), a set of two still asks for it."""
    import fcntl

    holder = os.open(tmp_path, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    refused, real_flock = [], fcntl.flock

    def flock(fd, operation):
        try:
            return real_flock(fd, operation)
        except BlockingIOError:
            refused.append(fd)
            raise

    monkeypatch.setattr(_atomic, "_FOLDER_LOCK_WAIT", 0.0)
    monkeypatch.setattr(fcntl, "flock", flock)
    try:
        _atomic.write_text(tmp_path / "o.json", "one")
        with _atomic.outputs_together():
            _atomic.write_text(tmp_path / "p.json", "one")
        assert refused == []
        _atomic.write_texts({str(tmp_path / "a.json"): "two", str(tmp_path / "b.json"): "two"})
        assert len(refused) == 1                        # a set asked for it (and went ahead: no wait allowed)
    finally:
        os.close(holder)
    assert _names(tmp_path) == ["a.json", "b.json", "o.json", "p.json"]


def test_a_set_taken_back_before_its_renames_is_not_placed(tmp_path, monkeypatch):
    """The watchdog's take-back (a lost signal's forced end) may come after a block's set is listed as kept and
    before its renames: it made the set final, its temporary files removed. The main thread then went on to place
    it: the old o.json moved aside, the new one gone — no o.json at all, the old one left under a hidden
    `.baseparam-PID-….old` name, and a 'cannot write' error. A set taken back is not placed."""
    import contextlib

    out = tmp_path / "o.json"
    out.write_text("old")
    monkeypatch.setattr(_atomic, "_SETTLED", [])
    real_locked, came = _atomic._folders_locked, []

    @contextlib.contextmanager
    def locked(paths):
        if not came:                                    # the first set's placing, before its first rename
            came.append(True)
            _atomic.take_back_kept()                    # the watchdog, in between
        with real_locked(paths):
            yield

    monkeypatch.setattr(_atomic, "_folders_locked", locked)
    with contextlib.suppress(Exception), _atomic.outputs_kept(to_exit=True), _atomic.outputs_together():
        _atomic.write_text(out, "new")
    assert came and (out.read_text(), _names(tmp_path)) == ("old", ["o.json"])


@posix
def test_a_child_forked_while_a_folder_is_locked_does_not_keep_it_locked(tmp_path):
    """flock's lock belongs to the open file, which a forked child shares: a child forked (by another thread: a
    multiprocessing 'fork' pool, the default on Linux) while a set's renames held the folder's lock kept it locked
    after the parent let go, for the child's whole life — every set placed in that folder, by any process, then
    waited the lock's 5 s. The child now closes its copies at once."""
    import fcntl

    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    with _atomic._folders_locked([str(tmp_path / "a.json"), str(tmp_path / "b.json")]):
        child = os.fork()
        if child == 0:                                  # the child: says it has started, waits for the parent
            try:
                os.write(ready_w, b"1")
                os.read(go_r, 1)
            finally:
                os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"1"
        fd = os.open(tmp_path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)      # free again (before: BlockingIOError, the child's)
        finally:
            os.close(fd)
    finally:
        os.write(go_w, b"1")
        os.waitpid(child, 0)
        for end in (ready_r, ready_w, go_r, go_w):
            os.close(end)


@posix
def test_a_child_forked_while_another_thread_places_a_set_can_write_its_own(tmp_path):
    """_PLACING, held by a thread placing a set when another thread forked, stayed held in the child by a thread
    that is not there: the child's first output (placed, then made final under _PLACING) hung for ever. The child
    gets a lock of its own. Here a thread holds _PLACING while the main thread forks; the child writes a file (its
    lock free: it writes at once, exit status 0; held: the write would hang, so the child tries the lock first,
    status 3)."""
    holding, release = threading.Event(), threading.Event()

    def hold():
        with _atomic._PLACING:
            holding.set()
            release.wait(60)                            # a hang guard only

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(60)
        child = os.fork()
        if child == 0:
            status = 1
            try:
                if not _atomic._PLACING.acquire(blocking=False):
                    status = 3
                else:
                    _atomic._PLACING.release()
                    _atomic.write_text(tmp_path / "child.json", "{}")
                    status = 0
            finally:
                os._exit(status)
        _, status = os.waitpid(child, 0)
    finally:
        release.set()
        holder.join(60)
    assert os.waitstatus_to_exitcode(status) == 0 and _names(tmp_path) == ["child.json"]


@posix
def test_a_ctrl_c_while_a_set_waits_for_its_folders_lock_leaves_no_descriptor_open(tmp_path, monkeypatch):
    """The wait for another writer's lock sleeps in the clause that caught its refusal: a Ctrl-C there went past the
    clause that closes the folder's descriptor, one left open per interrupted write (a notebook's kernel keeps
    them)."""
    import fcntl

    holder = os.open(tmp_path, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    opened, real_open = [], os.open

    class Clock:
        def __getattr__(self, name):
            return getattr(__import__("time"), name)

        def sleep(self, seconds):
            raise KeyboardInterrupt

    def open_(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        if os.fspath(path) == str(tmp_path):
            opened.append(fd)
        return fd

    monkeypatch.setattr(_atomic, "time", Clock())
    monkeypatch.setattr(os, "open", open_)
    try:
        with pytest.raises(KeyboardInterrupt):
            _atomic.write_texts({str(tmp_path / "a.json"): "1", str(tmp_path / "b.json"): "2"})
    finally:
        monkeypatch.undo()
        os.close(holder)
    folder = os.stat(tmp_path)

    def still_the_folder(fd):                           # open on the folder (not closed, nor its number reused)
        try:
            info = os.fstat(fd)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == (folder.st_dev, folder.st_ino)

    assert opened and not any(map(still_the_folder, opened))
    assert _names(tmp_path) == []
