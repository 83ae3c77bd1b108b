"""Worker processes for the stages that fan work out (excitation starts, identification logs)."""
from __future__ import annotations

import contextlib
import errno
import functools
import os
import signal
import sys
import threading
from contextlib import contextmanager

_STOPPING = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

# Seconds a stopped worker is given after its SIGTERM before its parent kills it (:func:`end_children`,
# :func:`killed_if_slow`): a worker still starting holds its stopping signals; a longer wait made a stopped run slow.
STOP_GRACE = 0.3
# Seconds a worker ending on SIGTERM gives its compiler after SIGTERM, then after SIGKILL (:func:`_end_worker`): both,
# and the removal of its scratch folder, within STOP_GRACE. It gave 0.5 and 0.5 (the command's own end's patience):
# killed by its parent 0.3 s after the SIGTERM, in the middle, it left ``tmp-kernel-PID-…`` in the kernel cache (and
# its compiler running, in a session of its own) until another compile removed it.
WORKER_CLEANUP_WAIT = 0.1


def _swappable():
    """The numbers of the stopping signals whose handler may be swapped for a while and restored: a handler set
    outside Python (getsignal gives None) could not be restored, it is left in place; an ignored signal (nohup's
    SIGHUP) stays ignored."""
    return [number for number in _STOPPING if signal.getsignal(number) not in (None, signal.SIG_IGN)]


def shared_change(change, key=None):
    """A context manager that makes ``change()`` (a process-wide change; it returns its undoing, a callable) for its
    block, made once for blocks of several threads at once and undone as the last of them leaves: each making and
    undoing its own, the second saved the first's change and put it back for good.

    ``key()``, when given, says what the change covers now (which BLAS libraries are loaded): a block that finds a
    key no running block has made it for makes it again; the undoings run as the last block leaves, the last made
    first, so that each puts back what was there before it."""
    lock = threading.Lock()
    made = []               # (key, undoing) of the blocks running, in the order they were made
    state = {"blocks": 0}

    @contextmanager
    def block():
        entered = False
        try:
            with lock:
                now = None if key is None else key()
                if all(made_for != now for made_for, _ in made):
                    made.append((now, change()))
                state["blocks"] += 1
                entered = True
            yield
        finally:
            if entered:
                with lock:
                    state["blocks"] -= 1
                    while not state["blocks"] and made:
                        made.pop()[1]()
    return block


@contextmanager
def caller_not_reimported():
    """Spawned workers need nothing from the caller's script (the work lives in the package), so they
    are started without re-running it: a script that works at top level, without the
    ``if __name__ == "__main__"`` guard spawn usually requires, still works. Blocks of several threads at once
    share one change (:func:`shared_change`): each making its own, the first's end showed the script to the second's
    workers still starting, and the second's put back the first's ``__spec__ = None`` for good."""
    with _main_hidden():
        yield


def _hide_main():
    main = vars(sys.modules["__main__"]) if "__main__" in sys.modules else {}
    hidden = {key: main[key] for key in ("__file__", "__spec__") if key in main}
    main.pop("__file__", None)
    if "__spec__" in main:
        main["__spec__"] = None              # multiprocessing looks for the script by these two
    return lambda: main.update(hidden)


_main_hidden = shared_change(_hide_main)


# What a worker's BLAS and OpenMP libraries read as they load: one thread each (:func:`one_blas_thread` sets the same
# once they are loaded)
_ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@contextmanager
def workers_on_one_blas_thread():
    """The worker processes started in the block load their BLAS on one thread (the environment they inherit says
    so; the caller's own is restored on leaving, its libraries already loaded are left alone).

    Loaded with the machine's default, numpy's and then scipy's OpenBLAS each started a thread per processor (less
    one) in each worker, which :func:`one_blas_thread` then left idle: under a limit of processes and threads
    (``ulimit -u 15``, ``excite --workers 2``) the workers' OpenBLAS printed four lines each, "pthread_create failed
    …", before the run's one line; and :func:`room_for_workers` had to ask for as many threads (1 037 for 8
    workers on 128 processors).

    The environment is the whole process's: its other threads see the three names set while the block runs. Blocks
    of several threads at once (two runs started side by side) share one change, undone as the last one leaves
    (:func:`shared_change`)."""
    with _one_blas_thread_set():
        yield


def _set_one_blas_thread():
    saved = {name: os.environ.get(name) for name in _ONE_THREAD}
    os.environ.update(_ONE_THREAD)

    def undo():
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return undo


_one_blas_thread_set = shared_change(_set_one_blas_thread)


@contextmanager
def workers_born_deaf():
    """SIGINT, SIGTERM and SIGHUP held, not ignored, while the workers start: they inherit the blocked signals from
    their first instruction (a signal mask survives fork and exec; a Python handler does not), so a Ctrl-C during
    their start-up cannot raise in them before their initializer ignores it (:func:`deaf_to_interrupts`); and the
    caller still gets it, once the pool runs (an ignored Ctrl-C in this window was lost: the run went on).
    SIGTERM and SIGHUP likewise: raised in the caller inside ``multiprocessing.Pool(...)`` (whose clean-up catches
    only ``Exception``) or inside its write of a worker's start-up data, they left workers running with no pool to
    stop them, or reading truncated start-up data ("UnpicklingError: pickle data was truncated" tracebacks under
    the run's one line). A worker blocks them until its initializer, so the same signal sent to the process group
    cannot kill it half-started either (the caller's write of its start-up data would then wait for ever).

    The main thread keeps them blocked; one that another thread takes meanwhile lands in a handler that records
    it (only the main thread may set handlers: elsewhere the other threads get it as usual). Both are delivered to
    the caller's own handler on leaving (KeyboardInterrupt for SIGINT by default). A signal ignored (``nohup``'s
    SIGHUP) or handled outside Python is left alone."""
    if not hasattr(signal, "pthread_sigmask"):        # no signal masks (Windows): nothing is inherited
        yield
        return
    # the resource tracker, started on the first semaphore, unblocks SIGINT after its own start-up:
    # started now, it leaves the mask below alone
    quiet_resource_tracker()
    received = []
    main = threading.current_thread() is threading.main_thread()
    numbers = _swappable()
    previous = {number: signal.signal(number, lambda signum, frame: received.append(signum))
                for number in numbers} if main else {}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(numbers))
    try:
        yield
    finally:
        held = set(signal.sigpending()) & set(numbers)
        for number, handler in previous.items():
            signal.signal(number, handler)
        # each recorded signal not also held, once, made pending while still blocked (raised one by one after the
        # unblocking, the first one's KeyboardInterrupt would cut off the others: a SIGTERM after a Ctrl-C was lost)
        for number in dict.fromkeys(received):
            if number not in held:
                signal.raise_signal(number)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)   # the held signals reach the caller's handlers now


@contextmanager
def _blocked(numbers):
    """The signals ``numbers`` blocked in this thread for the block, where signal masks exist: a thread or a
    process started in it is born with them blocked."""
    numbers = set(numbers) if hasattr(signal, "pthread_sigmask") else set()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, numbers) if numbers else None
    try:
        yield
    finally:
        if numbers:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def quiet_resource_tracker():
    """Start multiprocessing's resource tracker (if no one has), telling it not to warn when it cleans up, deaf to
    SIGHUP.

    The tracker outlives its clients and removes the semaphores of the pools and queues a killed caller
    (SIGKILL, the out-of-memory killer) could not: it then warned "resource_tracker: There appear to be 9 leaked
    semaphore objects to clean up at shutdown" with a source line, on the terminal, after the run had gone. It is
    started with the caller's warning options (``-W``, from ``sys.warnoptions``): one more, for its own warnings only,
    for as long as it starts."""
    if os.name != "posix":             # no tracker process elsewhere
        return
    from multiprocessing import resource_tracker

    stale_semaphores_removed()
    added = "ignore:resource_tracker:UserWarning"
    sys.warnoptions.append(added)
    # SIGHUP held while it starts, so held in it for good: it ignores SIGINT and SIGTERM itself, but a hangup sent
    # to the run's process group (a closed terminal, `kill -HUP -PGID`) ended it, and the caller's clean-up started a
    # new one that printed a "KeyError: '/mp-…'" traceback for each semaphore the caller then unregistered
    try:
        with _blocked({signal.SIGHUP} if hasattr(signal, "SIGHUP") else set()):
            resource_tracker.ensure_running()
    finally:
        sys.warnoptions.remove(added)


SHARED_MEMORY = "/dev/shm"          # where Linux keeps POSIX named semaphores, as sem.NAME
SEMAPHORE_AGE = 600                 # s: a semaphore file younger than this is kept whatever else is known


def stale_semaphores_removed(folder=SHARED_MEMORY, now=None):
    """Remove the ``sem.mp-…`` files of multiprocessing's semaphores that killed runs left in ``folder``: this user's,
    unchanged for :data:`SEMAPHORE_AGE`, mapped by no process. A pool's (``--workers 2``) are named, kept until it
    closes: its resource tracker unlinks them when the run is killed, but a SIGKILL of the run's process group
    (``timeout -s KILL``, ``kill -9 -PGID``, an out-of-memory kill of the tracker too) ends the tracker with it, and
    its 11 stayed in /dev/shm for good. A live one is mapped by each process that opened it (``/proc/PID/maps``), so
    only unused ones go; their names say no process id. Nothing is done where /proc or ``folder`` is absent."""
    import time

    if not os.path.isdir(folder) or not os.path.isdir("/proc/self"):
        return
    now = time.time() if now is None else now
    with contextlib.suppress(OSError):
        candidates = [(entry.path, _file_identity(entry)) for entry in os.scandir(folder)
                      if entry.name.startswith("sem.mp-") and _old_file_of_ours(entry, now)]
        if not candidates:
            return
        mapped = _mapped_files()
        if mapped is None:
            return
        for path, identity in candidates:
            if identity not in mapped:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def _old_file_of_ours(entry, now):
    """A regular file (not a link) of this user's, unchanged for :data:`SEMAPHORE_AGE`."""
    try:
        status = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    import stat
    return (stat.S_ISREG(status.st_mode) and status.st_uid == os.getuid()
            and now - status.st_mtime > SEMAPHORE_AGE)


def _file_identity(entry):
    """``(major, minor, inode)`` of a directory entry (not followed), as ``/proc/PID/maps`` names a mapped file."""
    status = entry.stat(follow_symlinks=False)
    return os.major(status.st_dev), os.minor(status.st_dev), status.st_ino


def _mapped_files():
    """``(major, minor, inode)`` of every file this user's processes map (from each ``/proc/PID/maps`` readable), or
    None when this process's own cannot be read (then nothing can be told). By device and inode, not by path: a
    process maps a semaphore under the path its mount gives (``/run/shm/…`` where /dev/shm is a link to /run/shm, a
    folder's real path where it was reached through a link), so a live one named otherwise was taken as unused."""
    mapped = set()
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
        with open("/proc/self/maps", encoding="utf-8", errors="replace"):
            pass
    except OSError:
        return None
    for pid in pids:
        try:
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
                for line in maps:
                    mapped.add(_mapping_identity(line))
        except OSError:                  # gone meanwhile, or another user's
            continue
    return mapped


def _mapping_identity(line):
    """``(major, minor, inode)`` of a ``/proc/PID/maps`` line (``ADDRESS PERMS OFFSET MAJ:MIN INODE [PATH]``, numbers
    of the device in hex), or None for a line not of that form."""
    fields = line.split(maxsplit=5)
    try:
        major, minor = fields[3].split(":")
        return int(major, 16), int(minor, 16), int(fields[4])
    except (IndexError, ValueError):
        return None


def tracker_reaped(wait=1.0):
    """Stop multiprocessing's resource tracker, if this process started one, and reap it; given at most ``wait``
    seconds. For the command line's end, after its pools are gone: the tracker ends only when the process that started
    it has (the end of its pipe), so it was always left to the process's parent, and where that is PID 1 of a container
    that does not reap, a defunct "python" stayed after every run with workers (excite --workers 2, identify
    --workers 2 or --scheduler local). It cleans up what is still registered as it ends, as it would after us."""
    tracking = sys.modules.get("multiprocessing.resource_tracker")
    tracker = getattr(tracking, "_resource_tracker", None)
    if getattr(tracker, "_pid", None) is None:          # none started, or a worker's (its parent's)
        return

    def stop():
        with contextlib.suppress(Exception):            # best effort on the way out
            tracker._stop()
    try:
        helper = threading.Thread(target=stop, name="baseparam-stop-tracker", daemon=True)
        helper.start()
        helper.join(wait)
    except RuntimeError:        # no new thread: the tracker ends with us, reaped by our parent
        pass


def deaf_to_interrupts():
    """A worker's initializer, first: Ctrl-C reaches the whole process group and the caller stops the pool; a
    worker's own KeyboardInterrupt would only print its traceback (and EOFError/BrokenPipeError ones of its
    queues). The worker was born with SIGINT, SIGTERM and SIGHUP blocked (:func:`workers_born_deaf`): ignoring
    SIGINT before unblocking discards one that came during the start-up; a SIGTERM or SIGHUP held meanwhile (the
    pool's ``terminate()``) ends it now, through :func:`_end_worker` (an ignored one, ``nohup``'s, stays so; a
    forked worker's inherited handlers, the recorders of :func:`workers_born_deaf`, are replaced)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in _STOPPING[1:]:
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, _end_worker)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(_STOPPING))


@contextmanager
def killed_if_slow(processes, grace=STOP_GRACE):
    """Within the block (a stopped pool's clean-up), the worker processes ``processes()`` gives that have not ended
    ``grace`` seconds after it began are killed (SIGKILL). A worker still starting holds its stopping signals until
    its initializer (:func:`workers_born_deaf`): the pool's SIGTERM waited for its whole start-up, and a stopped
    `identify --workers 2` or `excite --workers 2` took 0.6–1.6 s under load to end. Such a worker holds nothing yet
    (no compile, no queue's lock); a started one ends on the SIGTERM at once (:func:`_end_worker`)."""
    def kill():
        with contextlib.suppress(Exception):            # a helper thread's best effort; the block's own joins stay
            for process in processes():
                process.kill()                          # no waitpid here: the block's joins reap them
    timer = threading.Timer(grace, kill)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _end_worker(signum, frame=None):
    """A worker's end, on SIGTERM or SIGHUP (its pool's ``terminate()``, or the signal sent to the run's process
    group) or when its caller is gone: the C compile in progress stopped and its scratch folder removed first. The
    system's own end (SIG_DFL) left ``$TMPDIR/baseparam-kernel-PID-…/`` with the kernel that the orphaned compiler
    then finished (without a disk cache), at every stopped ``excite`` whose worker was compiling."""
    native = sys.modules.get("baseparam.dynamics._native")
    if native is not None:
        with contextlib.suppress(Exception):    # on the way out: the end must come whatever happens
            native.remove_live(wait=WORKER_CLEANUP_WAIT)
    os._exit(128 + signum if signum else 1)


# What a worker's initializer met (see kept_for_the_first_task), raised by each task of that worker.
_FAILED_START = []


def kept_for_the_first_task(initializer):
    """A worker's initializer that never raises: an exception it meets is kept, and raised by each of the worker's
    tasks (:func:`raise_failed_start`), so that the caller gets it as a task's error. A worker whose initializer
    raises ends with a traceback, and ``multiprocessing.Pool`` starts another in its place, for ever: under a limit
    of processes or threads (``ulimit -u``: the caller-watch thread cannot start) ``excite --workers 2`` printed
    tracebacks in a loop and never ended; ``ProcessPoolExecutor`` said only "a child process terminated abruptly".
    """
    def run(*args):
        try:
            initializer(*args)
        except Exception as exc:  # noqa: BLE001 — any: the caller hears it through the first task
            _FAILED_START[:] = [exc]
    return functools.wraps(initializer)(run)      # its name: a spawned worker takes it by the initializer's name


def _read_first_line(path):
    """The first line of a small file (of /proc or /sys), stripped; None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.readline(256).decode("ascii", "replace").strip()
    except OSError:
        return None


# Where this process's cgroups are listed, and where their hierarchies are mounted
_OWN_CGROUPS = "/proc/self/cgroup"
_CGROUP_MOUNT = "/sys/fs/cgroup"


def _cgroup_tasks_room(count):
    """Whether every visible cgroup limit of tasks (``pids.max`` of this process's cgroup and its ancestors, v1 or v2)
    leaves room for ``count`` more; None when it cannot be told (a hierarchy not mounted where looked for, or mounted
    from below its true root: a cgroup namespace's, a container's)."""
    try:
        with open(_OWN_CGROUPS, "rb") as f:
            lines = f.read(65536)
    except OSError:
        return None
    hierarchies = []                                        # each: the folders where it may be mounted, the path
    for line in lines.decode("utf-8", "replace").splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and not controllers:               # the v2 hierarchy (pids, if enabled there)
            hierarchies.append(((_CGROUP_MOUNT, _CGROUP_MOUNT + "/unified"), path))
        elif "pids" in controllers.split(","):              # v1's pids hierarchy
            hierarchies.append(((_CGROUP_MOUNT + "/pids",), path))
    for roots, path in hierarchies:
        if ".." in path.split("/"):                          # a cgroup outside this namespace's root: unseen
            return None
        # each hierarchy must be found (unmounted, or mounted elsewhere, its limits are unseen), from its true root:
        # a root with a pids.max is a cgroup namespace's or a bind-mounted subtree's, above which limits are unseen
        # (a Kubernetes pod's pids limit, around its containers' cgroups)
        found = [(root, root + path.rstrip("/")) for root in roots if os.path.isdir(root + path.rstrip("/"))]
        if not found or os.path.exists(found[0][0] + "/pids.max"):
            return None
        root, folder = found[0]
        while len(folder) >= len(root):                    # the cgroup, then each ancestor up to the mount's root
            limit = _read_first_line(folder + "/pids.max")
            if limit not in (None, "max"):
                current = _read_first_line(folder + "/pids.current")
                if current is None or not (limit.isdigit() and current.isdigit()) \
                        or int(current) + count > int(limit):
                    return False
            folder = folder.rpartition("/")[0]
    return True


# The kernel's count of the system's tasks (the fourth figure: running/all)
_LOADAVG = "/proc/loadavg"


def _the_kernels(path):
    """Whether ``path`` is the kernel's own file of /proc, not one mounted over it: LXCFS's /proc/loadavg (LXC,
    Incus) counts the tasks of the container's cgroup only, fewer than those of this user that ``ulimit -u``
    counts."""
    try:
        return os.stat(path).st_dev == os.stat("/proc/self").st_dev
    except OSError:
        return False


def _no_limit_of_tasks_binds(count):
    """Whether no limit of tasks can refuse ``count`` more threads now, told from a few small files rather than by
    starting them (``threads_startable``'s probe starts the threads it asks about, at every start and before every
    pool: its cost grows with the processors). Every task of this process's user is one of the system's (the fourth
    figure of /proc/loadavg, every thread of every process): below ``ulimit -u`` by ``count`` (or with no such
    limit), below the system's threads-max and pid_max, and within each visible cgroup's pids.max, nothing can refuse
    them. False whenever it cannot be told (no /proc, no resource module, an address-space limit that the threads'
    stacks might meet): the probe then answers."""
    try:
        import resource
        if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
            return False
        nproc = resource.getrlimit(resource.RLIMIT_NPROC)[0]
        infinite = resource.RLIM_INFINITY
    except (ImportError, AttributeError, OSError, ValueError):
        return False
    load = _read_first_line(_LOADAVG) if _the_kernels(_LOADAVG) else None
    system = load.split()[3].partition("/")[2] if load and len(load.split()) > 3 else ""
    if not system.isdigit() or int(system) < threading.active_count():     # not every task counted ("0/0")
        return False
    tasks = int(system) + count
    for ceiling in (None if nproc == infinite else nproc, _read_first_line("/proc/sys/kernel/threads-max"),
                    _read_first_line("/proc/sys/kernel/pid_max")):
        if ceiling is not None and not (str(ceiling).isdigit() and tasks < int(ceiling)):
            return False
    return bool(_cgroup_tasks_room(count))


def threads_startable(count, stack=None):
    """Whether ``count`` more threads can be started now (each started, then all ended again, unless no limit of
    tasks can bind: :func:`_no_limit_of_tasks_binds`): under a limit of processes and threads (``ulimit -u``, a
    cgroup's pids.max, which count both alike) the answer for as many processes. ``stack``: their stack size in
    bytes (a small one where the address space is not what is asked about); None, the system's default, which other
    libraries' threads (OpenBLAS's) get."""
    if _no_limit_of_tasks_binds(count):
        return True
    release = threading.Event()
    started = []
    size = threading.stack_size(stack or 0)
    try:
        for _ in range(count):
            thread = threading.Thread(target=release.wait, name="baseparam-probe", daemon=True)
            thread.start()
            started.append(thread)
    except RuntimeError:
        return False
    finally:
        threading.stack_size(size)
        release.set()
        for thread in started:
            thread.join()
    return True


def blas_threads():
    """The threads OpenBLAS (numpy's BLAS) starts besides the calling one when numpy is loaded: its count from
    OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or OMP_NUM_THREADS (the first set to a whole number > 0), at most the
    processors this process may run on, less one."""
    try:
        processors = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        processors = os.cpu_count() or 1
    for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return min(int(value), processors) - 1
    return processors - 1


# A worker's tasks: the process, its caller-watch thread, its progress queue's feeder thread (its BLAS on one
# thread: workers_on_one_blas_thread)
WORKER_THREADS = 3


def room_for_workers(workers):
    """Refuse a pool of ``workers`` processes that the limit of processes and threads cannot hold, before it is
    started: each worker is a process with its threads (:data:`WORKER_THREADS`), and the pool adds the resource
    tracker and a few threads of the caller's. Started regardless, the pool failed
    part-way — "cannot join thread before it is started" (exit 1), thread tracebacks, or ``identify --workers 2``
    waiting for ever on a worker that never came.

    Raises
    ------
    RuntimeError
        "can't start new thread", Python's own words (said as the process's limit by the command line).
    """
    if not threads_startable(workers * WORKER_THREADS + 5, stack=256 * 1024):
        raise RuntimeError("can't start new thread")


# Open files a local Dask cluster cannot start without: its scheduler's listener and comms in this process, each
# nanny's pipes and comms (measured peaks, `identify A.npz B.npz --scheduler local`: 31 open at 1 worker, 47 at 2, 65 at
# 4, from 6 before). Below these a run cannot succeed; at most this many, it is refused before the cluster starts.
CLUSTER_FILES = 16
CLUSTER_FILES_PER_WORKER = 8


def room_for_a_local_cluster(workers):
    """Refuse a local Dask cluster of ``workers`` processes that the limit of open files (``ulimit -n``) cannot hold,
    before it is started. Started regardless, its scheduler's listener, refused a file descriptor for each
    connection, was retried by its event loop without end: ``identify --scheduler local --workers 2`` under
    ``ulimit -n 16`` printed a traceback "OSError: [Errno 24] Too many open files" per try, for good. The bound is
    below what a cluster uses (:data:`CLUSTER_FILES`): a run it lets through may still meet the limit later, and is
    then said in one line.

    Raises
    ------
    OSError
        EMFILE, said as the process's limit by the command line.
    """
    free = _files_free()
    if free is not None and free < CLUSTER_FILES + CLUSTER_FILES_PER_WORKER * workers:
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))


def _files_free():
    """How many more files this process may open (its soft ``RLIMIT_NOFILE`` less those open), or None when either is
    unknown (no resource module, no /proc/self/fd or /dev/fd, no limit)."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
        open_now = len(os.listdir(folder))        # counts the listing's own descriptor: one more than before
    except OSError as exc:
        return 0 if exc.errno == errno.EMFILE else None
    except (ImportError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    return soft - open_now


def end_children(grace=STOP_GRACE):
    """On the way out of a stopped run: end the child processes multiprocessing started that still run, then run
    multiprocessing's exit function (which unlinks the pools' semaphores).

    Each child gets SIGTERM (a started worker removes its compile's scratch folder, :func:`_end_worker`); one still
    running ``grace`` seconds later gets SIGKILL: it is still starting, its stopping signals held until its
    initializer (:func:`workers_born_deaf`), and holds nothing yet. Each is reaped. Only then are the semaphores
    unlinked: unlinked first (the exit function's order, and the resource tracker's once the caller had gone), a
    worker still reading its start-up data, which names them, printed a 12-line ``FileNotFoundError`` traceback from
    ``SemLock._rebuild`` after the run's one line — at a second Ctrl-C (or SIGTERM, SIGHUP) while
    ``identify --workers 2`` or ``excite --workers 2`` started its workers. Nothing is imported: a process that never
    loaded multiprocessing has no children of it."""
    import time

    processing = sys.modules.get("multiprocessing")
    if processing is not None:
        with contextlib.suppress(Exception):            # on the way out: the end must come whatever happens
            children = processing.active_children()
            for child in children:
                child.terminate()
            deadline = time.monotonic() + grace
            for child in children:
                child.join(max(0.0, deadline - time.monotonic()))
            for child in children:
                if child.exitcode is None:
                    child.kill()
                    child.join(1.0)
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        with contextlib.suppress(Exception):
            util._exit_function()


@contextmanager
def started_children_killed_on_failure():
    """Within the block (a pool's creation), the worker processes it starts are killed (SIGKILL) if it raises.

    ``multiprocessing.Pool()`` stops the workers it started only when starting another fails; when one of its
    threads cannot start (``ulimit -u``) it raises with its workers still reading their start-up data, which
    refers to the pool's semaphores — removed as the half-made pool is freed: each printed a FileNotFoundError
    traceback after the run's one line. A worker still starting holds nothing; killed, it says nothing."""
    import multiprocessing

    before = set(multiprocessing.active_children())
    try:
        yield
    except BaseException:
        for child in set(multiprocessing.active_children()) - before:
            with contextlib.suppress(Exception):      # on the way out: the caller's own error goes on
                child.kill()
                child.join(1.0)
        raise


def raise_failed_start():
    """In a worker's task, first: raise what its initializer met (:func:`kept_for_the_first_task`)."""
    if _FAILED_START:
        raise _FAILED_START[0]


def end_with_caller():
    """A worker's initializer: the worker ends as soon as the process that started it has ended.

    A pool's worker waits for its next task on a queue whose writing end it holds itself (multiprocessing pickles
    both ends), so it never sees the caller go: ``identify --workers 2`` killed by SIGKILL (or the out-of-memory
    killer) left its two workers and their resource tracker idle for good, holding the terminal's output. A
    daemon thread waits on the parent's sentinel (readable once the parent is gone) and ends the worker."""
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch():
        from multiprocessing.connection import wait

        with contextlib.suppress(OSError, ValueError):
            wait([parent.sentinel])
            _end_worker(0)

    # the thread is born with the stopping signals blocked: one sent to the worker (its pool's terminate()) that
    # the kernel gave this thread would trip Python's flag while the main thread, waiting for a task in a
    # semaphore, never woke to run the handler (a worker left running, its pool's join waiting for ever)
    with _blocked(set(_STOPPING)):
        threading.Thread(target=watch, name="baseparam-caller-watch", daemon=True).start()


class Handover:
    """Data every worker of a pool takes once when it starts (its initializer: :meth:`receive`), sent through a queue
    of its own rather than as the initializer's arguments.

    Those arguments go with the worker's start-up data, which a spawned worker reads from a pipe as Python's own
    code, before any of ours runs: data beyond the pipe's 64 KiB (an excitation problem is ~70 kB) held the caller
    in that write until the worker had started (~0.5 s each), and a caller killed then (SIGKILL, the out-of-memory
    killer) left the worker with truncated data — "UnpicklingError: pickle data was truncated" tracebacks on the
    terminal after the run had gone. The start-up data is now a few kB, written at once; a worker whose caller is
    killed while it reads this queue waits there, and :func:`end_with_caller` ends it without a word.

    Parameters
    ----------
    context : multiprocessing context
    value : object
        What each worker receives (pickled once per worker).
    """

    def __init__(self, context, value):
        self._value = value
        self._queue = None
        if context.get_start_method() != "fork":    # a forked worker has the value already, in its copy of memory
            quiet_resource_tracker()                # before the queue's semaphores, the first a pool's caller makes
            self._queue = context.SimpleQueue()

    def __getstate__(self):            # to a spawned worker: the queue only
        return {"_queue": self._queue, "_value": None}

    def send(self, copies, workers=None):
        """Put one copy for each of ``copies`` workers (blocks until the workers have read all but 64 KiB).

        ``workers``: a callable giving the pool's worker processes. The copies are then put by a helper thread while
        this one watches them: a worker that ends before it has taken its copy (it failed as it started: a library
        it could not load, a limit of the process met) never reads it, and the caller waited in the write for ever
        (``identify --workers 2`` hung after the workers' tracebacks).

        Raises
        ------
        ResourceLimitError
            When a worker has ended with a failure before every copy is taken.
        """
        if self._queue is None:
            return
        if workers is None:
            for _ in range(copies):
                self._queue.put(self._value)
            return
        failed = []

        def put():
            try:
                for _ in range(copies):
                    self._queue.put(self._value)
            except BaseException as exc:  # noqa: BLE001 — handed to the caller's thread
                failed.append(exc)
        with _blocked(set(_STOPPING)):        # the caller's thread hears the signals (see end_with_caller)
            helper = threading.Thread(target=put, name="baseparam-handover", daemon=True)
            helper.start()
        watch = WorkersWatched(workers)
        while helper.is_alive():
            watch.check()
            helper.join(0.05)
        if failed:
            raise failed[0]


    def receive(self):
        """In a worker: its copy (waits for it)."""
        return self._value if self._queue is None else self._queue.get()

    def close(self):
        """Close the caller's ends of the queue."""
        if self._queue is not None:
            self._queue.close()


class WorkersWatched:
    """The worker processes of a pool (``workers``: a callable giving them), each remembered once seen:
    ``multiprocessing.Pool`` replaces a worker that ended, and drops it from its list."""

    def __init__(self, workers):
        self._workers = workers
        self._seen = set()

    def check(self):
        """Raise if a worker has ended with a failure (:meth:`raise_ended`): it failed as it started (a library it
        could not load, a limit of the process met: its traceback is printed by Python before any of ours runs), and
        the tasks waited for it for ever (``excite --workers 2`` hung; ``multiprocessing.Pool`` starts another,
        which fails the same); or it was killed (the out-of-memory killer, a signal sent to it) while it worked.

        Raises
        ------
        ResourceLimitError
        """
        self._seen.update(self._workers())
        self.raise_ended()

    def all_ended(self):
        """Whether every worker seen so far has ended, its exit status read (none is left to tell more)."""
        return all(process.exitcode is not None for process in self._seen)

    def raise_ended(self):
        """Raise, in words that say how, if a worker seen so far has ended with a failure: one killed by a signal
        first (the others of its pool may have been stopped because of it).

        Raises
        ------
        ResourceLimitError
        """
        ended = sorted((process.exitcode for process in self._seen if process.exitcode not in (None, 0)),
                       key=lambda code: code >= 0)
        if ended:
            from .errors import ResourceLimitError
            raise ResourceLimitError(worker_ended(ended[0]))


def worker_ended(exitcode):
    """The words for a worker process that ended with ``exitcode`` (``Process.exitcode``: −N when killed by
    signal N; 128 + N when :func:`_end_worker` ended it on SIGTERM or SIGHUP). A worker's tasks cannot end it
    otherwise (their exceptions come back to the caller), so another status is Python's own at its start-up (a
    traceback printed above); a signal may come at any time, and is said as it is (a worker killed as it worked
    was "ended as it started", or "internal error: BrokenProcessPool", exit 1)."""
    number = -exitcode if exitcode < 0 else exitcode - 128 if exitcode - 128 in _STOPPING else None
    if number is not None:
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        by = "the out-of-memory killer, or a signal sent to it" if number == getattr(signal, "SIGKILL", None) \
            else "a signal sent to it"
        return (f"a worker process was {'killed' if exitcode < 0 else 'ended'} by {name} ({by}); the run is "
                "stopped; try fewer workers, or one")
    return (f"a worker process ended as it started (exit status {exitcode}; its own words, if any, above): a limit "
            "of the process (ulimit -v, -u) or of the machine, or an installation it cannot load; try one worker")


def one_blas_thread(load=None):
    """One BLAS/OpenMP thread for this process, scipy's own BLAS loaded first so that the limit reaches it. A
    worker's initializer (the workers already share the cores), set in the worker's own process, so the caller's
    environment and thread pools are left alone; and, undone on leaving, the caller's own for work done in place of
    a single worker (:func:`baseparam._blas.on_one_blas_thread`).

    Parameters
    ----------
    load : callable, optional
        What imports scipy.linalg: ``importlib.import_module`` by default (a worker is deaf to the stopping signals
        by then), :func:`import_held` in the caller's process (a stop must not land inside scipy's import).

    Returns
    -------
    callable
        The undoing: it restores the thread counts the process had.
    """
    if load is None:
        import importlib
        load = importlib.import_module
    load("scipy.linalg")
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1).restore_original_limits


@contextmanager
def signals_held():
    """SIGINT, SIGTERM and SIGHUP held for the block and delivered, to the handlers in place, once it ends (each
    signal that came once, in the order they came).

    For third-party imports that swallow a signal's exception: pandas' (through ``pyarrow.compute``) and
    scipy.signal's Cython modules, interrupted while they initialise, lost the KeyboardInterrupt or turned it
    into "SystemError: … returned a result with an exception set", and the run went on until the entry point's
    watchdog ended it seconds later. The handlers are swapped rather than the signals masked: a process-directed
    signal goes to any thread that does not mask it (BLAS's, Arrow's), and its handler still runs on the main
    thread. Only the main thread may set handlers; elsewhere, and for a signal ignored or handled outside Python,
    nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = {number: signal.signal(number, lambda signum, frame: received.append(signum))
                for number in _swappable()}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        _deliver(list(dict.fromkeys(received)))


def _deliver(numbers):
    """Each signal held (``numbers``: distinct, in the order they came) to the handler now in place, as Python would
    have run them: a handler that raises does not stop the later ones (a signal still pending runs its handler in
    the unwinding that follows; the last exception raised goes on, the earlier ones its context)."""
    if not numbers:
        return
    try:
        handler = signal.getsignal(numbers[0])
        if callable(handler):
            # called as Python calls it: raised again, the signal would reach the entry point's watchdog a second
            # time, which takes a second SIGTERM for a user who insists and ends the process at once, cutting
            # the clean-up the first one started
            handler(numbers[0], sys._getframe())
        else:                                # SIG_DFL: the system's action
            signal.raise_signal(numbers[0])
    finally:
        _deliver(numbers[1:])


def _importing():
    """Whether the calling thread is in the middle of an import (a frame of importlib's bootstrap on its stack)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False


def import_held(name):
    """``importlib.import_module(name)``, its first import made in a helper thread while the calling (main) thread
    waits for it in steps of 50 ms. A module already in ``sys.modules`` is still taken through ``import_module``:
    another thread may be importing it, and the import waits for it to finish, as an import statement does
    (``sys.modules`` alone gave the half-initialised module).

    A signal's exception cannot land inside the import (Python runs its handlers in the main thread only, and the
    helper holds the stopping signals, so the system delivers them elsewhere): scipy.signal's Cython modules,
    interrupted while they initialise, lost the KeyboardInterrupt or turned it into "SystemError: … returned a result
    with an exception set". The main thread still hears Ctrl-C or SIGTERM at once, between two steps: held for the
    whole import (:func:`signals_held`, before), a stop waited 1–3 s under load for scipy.signal's import to end. A
    stopped caller leaves the import to finish in the helper (a daemon). Where no thread can be started (a limit of
    processes or threads met), or while this thread is itself importing a module (the helper, needing that module's
    import lock, waited for it forever: a circular import, which the thread that holds the lock resolves), the import
    is made here, under :func:`signals_held`."""
    import importlib

    if name in sys.modules or threading.current_thread() is not threading.main_thread():
        return importlib.import_module(name)       # elsewhere no signal's exception can land in it
    if _importing():            # this thread holds a module's import lock, which the helper's import may need
        with signals_held():
            return importlib.import_module(name)
    outcome = {}

    def run():
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, set(_STOPPING))
        try:
            outcome["module"] = importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001 — given to the caller, raised there
            outcome["error"] = exc
    helper = threading.Thread(target=run, name=f"baseparam-import-{name}", daemon=True)
    try:
        helper.start()
    except RuntimeError:        # "can't start new thread": a process or thread limit met (cgroup pids.max, ulimit -u)
        with signals_held():    # the import is made in this thread, without the helper (a stop waits for its end)
            return importlib.import_module(name)
    while helper.is_alive():
        helper.join(0.05)                           # back in Python between steps: a signal's handler runs here
    if "error" in outcome:
        raise outcome["error"]
    return outcome["module"]
