"""Where the logs are reduced: in this process, in worker processes, or on a Dask cluster.

The work sent is :func:`.logs.reduce_log` of one log; its settings (the base set, with its robot,
the preprocessing and the reader's options) go to each worker once: to a process pool's initializer, or
scattered to a Dask cluster's workers. Results come back in the order of the logs, whatever order the
workers finish in.
"""
from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import time
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from .._processes import (Handover, WorkersWatched, caller_not_reimported, deaf_to_interrupts, end_with_caller,
                          kept_for_the_first_task, killed_if_slow, one_blas_thread, quiet_resource_tracker,
                          raise_failed_start, room_for_a_local_cluster, room_for_workers,
                          workers_born_deaf, workers_on_one_blas_thread)
from .._leftovers import private_folder, remove_tree
from .._checks import shown
from .._warnings import ignored
from ..errors import SettingsError, long_values_shortened, printable

_TASK = {}


def unconnected(scheduler):
    """Why a connect timeout times nothing for ``scheduler`` (None, 'local' or an address), or '' when it does: only a
    remote scheduler is connected to (``_handshake_within``); a local cluster is this run's own."""
    if scheduler is None:
        return "no scheduler is given (the logs are reduced on this machine)"
    if scheduler_named(scheduler) == "local":
        return "a 'local' scheduler is a cluster this run starts"
    return ""


def map_logs(logs, task, folds, *, workers=1, scheduler=None, progress=None, connect_timeout=None):
    """``reduce_log(log, folds=f, **task)`` for each log and its folds, as a list in the logs' order.

    Parameters
    ----------
    logs : list of (str or Trajectory)
    task : dict
        ``reduce`` (the function, ``reduce_log``) and its keywords ``base``, ``preprocessing``,
        ``read_options``: the same for every log.
    folds : list of (int or None)
        None: ``folds`` is not passed (a reducer without folds, ``scale_log``).
    workers : int
    scheduler : str or None
        A Dask scheduler's address, or 'local' (a local cluster of ``workers`` processes, at most one per log), in
        any case and with spaces around (:func:`scheduler_named`).
    progress : callable, optional
        ``progress(done, total)``.
    connect_timeout : float or None
        Seconds a remote scheduler has to accept the TCP connection (None: :data:`CONNECT_TIMEOUT`).
    """
    report = progress or (lambda done, total: None)
    report(0, len(logs))
    if scheduler is not None:
        return _on_dask(logs, task, folds, workers, scheduler_named(scheduler), report,
                        CONNECT_TIMEOUT if connect_timeout is None else connect_timeout)
    if workers == 1 or len(logs) == 1:
        out = []
        for k, (log, f) in enumerate(zip(logs, folds)):
            out.append(_reduce_with(log, f, task))
            report(k + 1, len(logs))
        return out
    return _in_processes(logs, task, folds, workers, report)


@kept_for_the_first_task
def _init(task):
    deaf_to_interrupts()                    # first: Ctrl-C is the caller's to handle (_processes.py)
    end_with_caller()
    one_blas_thread()
    _TASK.update(task.receive())


def _reduce(log, folds):
    raise_failed_start()
    return _reduce_with(log, folds, _TASK)


def _in_processes(logs, task, folds, workers, report):
    n_workers = min(workers, len(logs))
    room_for_workers(n_workers)
    context = multiprocessing.get_context("spawn")       # no fork: the caller may hold threads (a progress bar)
    # first: the pool's queues start the resource tracker, which Handover starts told to keep quiet
    handover = Handover(context, task)                   # not in the workers' start-up data (see Handover)
    pool = ProcessPoolExecutor(max_workers=n_workers, mp_context=context, initializer=_init, initargs=(handover,))

    def pool_processes():                                # the pool's live workers (its private map, None once shut)
        return list((getattr(pool, "_processes", None) or {}).values())

    processes = []                                       # a stopped pool's workers, ended without waiting
    try:
        # the processes start as the work is submitted; an interrupt held during their start-up is raised on
        # leaving the block, inside this try, which stops whatever started
        with caller_not_reimported(), workers_on_one_blas_thread(), workers_born_deaf():
            futures = [pool.submit(_reduce, log, f) for log, f in zip(logs, folds)]
        watched = WorkersWatched(pool_processes)
        watched.check()                                  # the processes remembered: the pool forgets a broken one's
        handover.send(n_workers, pool_processes)
        pending, done = set(futures), 0
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                _result(future, watched)                 # a log's error: raised here, the rest cancelled
            done += len(finished)
            report(done, len(logs))
        return [future.result() for future in futures]
    except BaseException:
        # stopped (Ctrl-C, SIGTERM, a log's error): the logs being reduced are not waited for — shutdown would
        # let each finish first (seconds, for a long log), and a stopped run was then ended by the entry
        # point's watchdog instead of unwinding. Python 3.14 names this terminate_workers().
        processes = pool_processes()
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        raise
    finally:
        try:
            # one still starting holds the SIGTERM until it has started
            with killed_if_slow(lambda: processes) if processes else contextlib.nullcontext():
                pool.shutdown(wait=True, cancel_futures=True)
        finally:
            handover.close()


def _result(future, workers):
    """``future.result()``; a pool broken by a worker's end (killed as it worked: the out-of-memory killer, a signal
    sent to it) said as that end (:class:`~baseparam._processes.WorkersWatched`), not as "BrokenProcessPool: A process
    in the process pool was terminated abruptly", an internal error (exit 1)."""
    try:
        return future.result()
    except BrokenProcessPool:
        # the pool's own thread may be reaping the ended worker this moment: its status is read a little later;
        # once every worker's status is read, none can tell more (a pool broken otherwise was kept a second longer)
        for _ in range(50):
            ended = workers.all_ended()
            workers.raise_ended()
            if ended:
                break
            time.sleep(0.02)
        raise


def scheduler_named(scheduler):
    """``scheduler`` without the spaces around it, and 'local' whatever its case: `--scheduler LOCAL` and
    `--scheduler 'local '` were taken as addresses ("missing port number in address 'LOCAL'")."""
    scheduler = scheduler.strip()
    if not scheduler:        # else said as Dask's "cannot reach the Dask scheduler at '' (missing port number …)"
        raise SettingsError("scheduler: an empty address; give tcp://HOST:PORT, or 'local'")
    return "local" if scheduler.lower() == "local" else scheduler


def _on_dask(logs, task, folds, workers, scheduler, report, connect_timeout):
    try:
        from distributed import Client, LocalCluster, as_completed
        from msgpack import UnpackException     # Dask's wire format (a dependency of dask.distributed)
    except ImportError:
        raise SettingsError("scheduler: the Dask scheduler needs dask.distributed, which is not installed "
                            "(pip install 'baseparam[dask]')") from None
    # what a local cluster changes, undone in the reverse order whatever happens: the cluster, the config,
    # its scratch folder, the nannies' environment variables
    with contextlib.ExitStack() as undo:
        if scheduler == "local":
            # one log each at a time, as a process pool's (_in_processes): a worker beyond the logs has nothing to do,
            # and `--scheduler local --workers 1024` of one log started 1024 processes (over 300 s on two cores)
            workers = min(workers, len(logs))
            room_for_a_local_cluster(workers)
            undo.callback(_restore, _environ())
            # the cluster's working files in a folder of this run, removed with it (Dask's default,
            # $TMPDIR/dask-scratch-space, keeps its lock files and folders of killed runs)
            scratch = private_folder("baseparam-dask")        # a killed run's, left in $TMPDIR, removed first
            _SCRATCH.append(scratch)
            undo.callback(_SCRATCH.remove, scratch)
            undo.callback(remove_tree, scratch)
            import dask
            undo.enter_context(dask.config.set({"temporary-directory": scratch}))    # the scheduler's, the nannies'
            # the cluster's processes are spawned: the resource tracker they share is ours, started told not to warn
            # (one Dask's spawn started warned "There appear to be 1 leaked semaphore objects" and "'/mp-…': No
            # such file or directory", four lines after a stopped run's one, as it cleaned up after a nanny's killed
            # worker)
            quiet_resource_tracker()
            # the cluster's silence_logs ends inside its close, before its loop has seen the last of its comms: a
            # worker killed below left the scheduler's "Batched Comm Closed" and a CommClosedError traceback on
            # stderr (1 stopped run in 20); silenced until the close has stopped that loop
            undo.enter_context(_dask_logs_silenced(logging.CRITICAL))
            # the workers import Dask afresh, each reading the Dask configuration files it finds (~/.config/dask,
            # /etc/dask): files outside the named inputs; they run with the settings this process gives them (a
            # nanny passes its own to its worker), and find none of their own
            with caller_not_reimported(), _scratch_warning_silenced(), dask_config_files_unread(scratch):
                # silence_logs: a log's error is raised here, in one line; the workers' own logging would print
                # it again as "Compute Failed" with its traceback, and the nannies' shutdown chatter
                address = _cluster_started(LocalCluster, n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=logging.CRITICAL,
                                           local_directory=scratch)
            undo.callback(address.close)
            undo.push(_abandoned_workers_killed(address))
        else:
            address = scheduler
            _refuse_tls_unset(scheduler)
            _refuse_protocol_unusable(scheduler)
        try:
            # a cluster of our own may be slow to answer on a busy machine (its workers still importing); a remote
            # scheduler that does not answer in REMOTE_TIMEOUT seconds is taken as unreachable
            with _dask_logs_silenced():
                if scheduler != "local":
                    _handshake_within(address, connect_timeout, _remote_bound(connect_timeout))
                client = Client(address, timeout=120 if scheduler == "local" else _remote_bound(connect_timeout))
        except ValueError as exc:                     # an address Dask cannot parse ('x', no port; 'inproc://x')
            if not isinstance(exc, UnpackException):
                raise _unreadable_address(scheduler, exc) from None
            client = _not_dask(scheduler, exc)
        except OSError as exc:
            if not isinstance(exc, UnpackException):
                raise SettingsError(f"scheduler: cannot reach the Dask scheduler at {shown(scheduler)} "
                                    f"({_why(exc, connect_timeout)})") from None
            client = _not_dask(scheduler, exc)
        except Exception as exc:
            if scheduler == "local":
                raise
            # another server at the address (a web or SSH server): its first bytes read as the length of Dask's
            # frames gave struct.error, TypeError or a MemoryError of exabytes (not this process's limit: raised
            # below, outside this handler, so that it is not the refusal's context, which the command line reads)
            client = _not_dask(scheduler, exc)
        if isinstance(client, SettingsError):
            raise client
        with client:
            shared = client.scatter([task], broadcast=True)[0]  # one copy per worker, not one per log
            futures = [client.submit(_reduce_with, log, f, shared, pure=False) for log, f in zip(logs, folds)]
            for done, future in enumerate(as_completed(futures), 1):
                if future.status == "error":
                    future.result()                              # the log's own error, raised here
                report(done, len(logs))
            return client.gather(futures)


def import_dask_privately():
    """Import Dask for the command line without reading any Dask configuration file the user has not named
    (:func:`dask_config_files_unread`): a run reads only its named inputs. Nothing when Dask is imported already, or
    not installed (its absence is said where it is needed). A library call leaves Dask as the user's process has
    it: its configuration is read once, on import, and would stay without the user's files for good."""
    import sys

    if "dask" in sys.modules:
        return
    folder = private_folder("baseparam-dask")
    try:
        with dask_config_files_unread(folder), contextlib.suppress(ImportError):
            import dask.config  # noqa: F401
            import distributed  # noqa: F401
    finally:
        remove_tree(folder)


@contextlib.contextmanager
def dask_config_files_unread(folder):
    """Within the block, a process that imports Dask (this one, a worker it starts) reads no Dask configuration
    file but those the user names: ``$DASK_CONFIG``, and ``$DASK_ROOT_CONFIG`` when set. The machine's (/etc/dask)
    and the user's (~/.config/dask) are looked for in ``folder`` (empty) instead: ``DASK_ROOT_CONFIG`` and ``HOME``
    name it. What else follows HOME in a worker is kept as it was: the user's site-packages (``PYTHONUSERBASE``) and
    the kernel cache (``BASEPARAM_CACHE_DIR``). The Dask configuration files of the installation itself
    (``sys.prefix/etc/dask``) are the installation's, read as its ``dask.yaml``. The caller's variables are put back
    on leaving."""
    import site

    from ..dynamics._native import cache_dir

    empty = os.path.join(folder, "dask-config")
    os.makedirs(empty, exist_ok=True)
    settings = {"HOME": empty}
    if not os.environ.get("DASK_ROOT_CONFIG"):
        settings["DASK_ROOT_CONFIG"] = empty
    if site.ENABLE_USER_SITE and "PYTHONUSERBASE" not in os.environ:
        settings["PYTHONUSERBASE"] = site.getuserbase()
    if not os.environ.get("BASEPARAM_CACHE_DIR"):
        settings["BASEPARAM_CACHE_DIR"] = cache_dir() or "off"
    before = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _cluster_started(kind, **options):
    """``kind(**options)`` (a LocalCluster), closed when its start is left by any exception. Dask closes a cluster
    whose start failed on an ``Exception`` only: a KeyboardInterrupt (Ctrl-C in a notebook) while it started its
    workers left it running, its scheduler, IO-loop thread and worker processes with it. Built in two steps so that
    the half-started cluster can be reached."""
    cluster = kind.__new__(kind)
    try:
        cluster.__init__(**options)
    except BaseException as exc:
        _start_undone(cluster, exc)
        raise
    return cluster


def _start_undone(cluster, exc):
    """Kill the worker processes of a ``cluster`` whose start was left by ``exc``, close it (its close does nothing
    while it reads 'starting': marked 'failed', as Dask marks one whose start failed), stop its IO loop."""
    with contextlib.suppress(Exception):
        _abandoned_workers_killed(cluster)(type(exc), exc, exc.__traceback__)
        from distributed.core import Status
        if cluster.status in (Status.created, Status.starting):
            cluster.status = Status.failed
        cluster.close(timeout=10)
    with contextlib.suppress(Exception):
        cluster._loop_runner.stop()


def _abandoned_workers_killed(cluster):
    """An exit callback (for ``ExitStack.push``) that, when the block is left by an exception (a log's error, Ctrl-C,
    SIGTERM), kills the local ``cluster``'s worker processes before its close: the close asks each worker to finish
    its task first, and a stopped run waited for a log's reduction to end (2–3.3 s, cut short by the command line's
    watchdog; 0.03 s with the workers gone). Their work is abandoned anyway; the nannies, told to close just after,
    reap them."""
    def kill(kind, exc, traceback):
        if kind is not None:
            for nanny in list(cluster.workers.values()):
                worker = getattr(nanny, "process", None)       # a nanny's WorkerProcess, None before it starts one
                with contextlib.suppress(Exception):            # one already gone (not reaped yet: its pid is ours)
                    if worker is not None and worker.is_alive() and worker.pid:
                        os.kill(worker.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        return False
    return kill


# The scratch folders of the local clusters running: removed by the command line's watchdog (baseparam._entry) when it
# ends a stopped run past its grace, before the cluster's close and this block's undo have done it (a SIGINT/SIGTERM
# to `identify --scheduler local` left baseparam-dask-PID-… in $TMPDIR in 3 runs of 8)
_SCRATCH = []


def remove_scratch():
    """Remove the scratch folders of the local clusters this process runs (see :data:`_SCRATCH`)."""
    for folder in list(_SCRATCH):
        remove_tree(folder)


REMOTE_TIMEOUT = 20        # s: a remote scheduler's time to accept the connection and answer Dask's handshake
# s: a remote scheduler's time to accept the TCP connection (Dask retries a refused one until its timeout: nothing
# listening at the address held `identify --scheduler tcp://127.0.0.1:1` for the whole 20 s)
CONNECT_TIMEOUT = 2
MAX_CONNECT_TIMEOUT = 3600  # s: the longest connect_timeout taken (an hour; 1e308 s overflowed the thread's wait)


def _remote_bound(connect_timeout):
    """Seconds a remote scheduler has to accept the connection and answer Dask's handshake: :data:`REMOTE_TIMEOUT`,
    or ``connect_timeout`` when longer (a connect timeout of 30 s was cut to the handshake's 20 and said as 30)."""
    return max(REMOTE_TIMEOUT, connect_timeout)


def _handshake_within(address, connect_seconds, seconds):
    """Connect to ``address`` within ``connect_seconds`` and complete Dask's handshake within ``seconds`` in all, or
    raise what stopped it (TimeoutError when time ran out; OSError naming the refusal when the connection was
    refused throughout). Dask's own connect bounds the TCP connection only, then waits for the
    handshake's answer without limit: a server that accepts and never answers (a web server waiting for the end of
    its request) hung ``identify --scheduler`` past its 20 s. In a thread of its own, as the caller may be running
    an event loop (a notebook's)."""
    import asyncio
    import gc
    import threading

    from distributed.comm import connect
    from distributed.security import Security

    # the TLS settings of Dask's configuration, as the Client's own connection takes them (without them a tls://
    # scheduler was refused, "TLS expects a `ssl_context` argument", where Client() alone connected)
    arguments = Security().get_connection_args("client")

    async def probe():
        comm = await connect(address, timeout=min(connect_seconds, seconds), **arguments)
        comm.abort()

    outcome = []

    def run():
        try:
            asyncio.run(asyncio.wait_for(probe(), seconds))
            outcome.append(None)
        except Exception as exc:            # noqa: BLE001 — raised in the caller's thread below
            # without its frames, which hold the connection Dask's connect left open: collected here, while its
            # loggers are silenced, not later with "Closing dangling stream" on stderr
            outcome.append(exc.with_traceback(None))
            del exc
            gc.collect()

    thread = threading.Thread(target=run, name="baseparam-dask-handshake", daemon=True)
    thread.start()
    thread.join(seconds + 5)
    if not outcome:
        raise TimeoutError
    if outcome[0] is not None:
        raise outcome[0]


def _refuse_tls_unset(scheduler):
    """SettingsError for a ``tls://`` address when Dask's configuration gives no TLS settings: it was said as a server
    that "did not answer as a Dask scheduler (TLS expects a `ssl_context` argument …)", nothing having been sent."""
    from distributed.security import Security
    if scheduler.startswith("tls://") and Security().get_connection_args("client").get("ssl_context") is None:
        raise SettingsError(f"scheduler: {shown(scheduler)}: a tls:// scheduler needs the TLS settings of Dask's "
                            "configuration (distributed.comm.tls.ca-file, .client.cert, .client.key), which are not "
                            "set; set them, or give a tcp://HOST:PORT address")


def _refuse_protocol_unusable(scheduler):
    """SettingsError for an address whose protocol this installation of Dask names but cannot connect over: its
    ``ucx://`` comm is a stub without the separate UCX package (its connector an abstract class), which was said as a
    server that "did not answer as a Dask scheduler (Can't instantiate abstract class UCXConnector …)", nothing having
    been sent. An unknown protocol is left to Dask's own refusal (an address it cannot parse)."""
    scheme, _, rest = scheduler.partition("://")
    if not rest:
        return
    try:
        from distributed.comm.registry import get_backend
        backend = get_backend(scheme.lower())
    except (ImportError, ValueError):     # a Dask without the registry, or a scheme it will refuse itself
        return
    try:
        backend.get_connector()
    except (TypeError, ImportError, RuntimeError) as exc:
        raise SettingsError(f"scheduler: {shown(scheduler)}: this installation of Dask cannot connect over "
                            f"{printable(scheme.lower())}:// ({_why(exc)}); give a tcp://HOST:PORT address") from None


def _not_dask(scheduler, exc):
    return SettingsError(f"scheduler: {shown(scheduler)} did not answer as a Dask scheduler ({_why(exc)}); give the "
                         "address of one (tcp://HOST:8786), or 'local'")


def _unreadable_address(scheduler, exc):
    """The refusal of an address Dask cannot parse, saying which ones it reads. Dask's inproc parser unpacked
    'inproc://x' into its three parts and said Python's "not enough values to unpack (expected 3, got 1)"."""
    why = _why(exc)
    if scheduler.lower().startswith("inproc://"):
        why = "an in-process address is inproc://HOST/PID/N, of a scheduler started in this process"
    return SettingsError(f"scheduler: cannot reach the Dask scheduler at {shown(scheduler)} ({why}); its address "
                         "is tcp://HOST:PORT, or 'local'")


def _why(exc, connect_timeout=CONNECT_TIMEOUT):
    """An exception's words, or its kind when it has none (msgpack's FormatError); the address they repeat shown by
    its ends when long (Dask's "missing port number in address '…'" repeated a 2 000-character --scheduler whole).
    Dask's "Timed out trying to connect" says the reason of its last try (a refusal) in its cause alone."""
    if isinstance(exc, TimeoutError) and not str(exc):
        return f"no answer within {_remote_bound(connect_timeout):g} s"
    if isinstance(exc, OSError) and str(exc).startswith("Timed out trying to connect"):
        return f"no connection within {connect_timeout:g} s{_last_refusal(exc)}"
    return long_values_shortened(printable(str(exc))) or type(exc).__name__


def _last_refusal(exc):
    """': [Errno 111] Connection refused' when Dask's last try to connect was refused (the OSError its
    CommClosedError wraps, which names a connector object at an address), else ''."""
    cause = exc.__cause__
    refusal = getattr(cause, "__cause__", None)
    if isinstance(refusal, OSError) and refusal.strerror:
        return f": {refusal.strerror}"
    return ""


@contextlib.contextmanager
def _dask_logs_silenced(level=logging.CRITICAL + 1):
    """Dask's loggers print nothing below ``level`` (by default nothing at all) while the block runs: a server that
    is no Dask scheduler made its protocol's logger print "Failed to deserialize" and a traceback on stderr, before
    the one-line refusal."""
    with contextlib.ExitStack() as stack:
        for name in ("distributed", "distributed.client"):      # the two that hold handlers (Dask's config)
            for handler in logging.getLogger(name).handlers:
                stack.callback(handler.setLevel, handler.level)
                handler.setLevel(level)
        yield


# The start of Dask's warning that its scratch folders took over a second to make (distributed.core.Server): the
# folder is this run's own, on a local disk (private_folder), and on a busy machine each of the cluster's processes
# printed it raw, a source line with it, before the run's report
_SCRATCH_WARNING = "Creating scratch directories is taking a surprisingly long time"


@contextlib.contextmanager
def _scratch_warning_silenced():
    """Dask's slow-scratch-folder warning ignored while a local cluster starts: in this process (its scheduler and
    nannies) and in the worker processes the nannies spawn, which are started with the caller's ``-W`` options
    (``sys.warnoptions``), not its warning filters."""
    import sys

    option = f"ignore:{_SCRATCH_WARNING}:UserWarning"
    sys.warnoptions.append(option)
    try:
        with ignored(UserWarning, _SCRATCH_WARNING):
            yield
    finally:
        sys.warnoptions.remove(option)


def _environ():
    """A copy of the caller's environment variables, to put back once a local cluster is closed: its nannies run
    in the caller's process and set variables for their workers that they never restore
    (``distributed.nanny.pre-spawn-environ``: OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1, …, PYTHONHASHSEED;
    and ``__DASK_PARENT_PID``): left alone, every later subprocess of the caller would run its BLAS on one
    thread."""
    return dict(os.environ)


def _restore(environ):
    for name in set(os.environ) - set(environ):
        os.environ.pop(name, None)
    for name, value in environ.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def _reduce_with(log, folds, task):
    """``task['reduce'](log, folds=folds, **rest of task)`` (no ``folds`` when None): the caller names the function
    (no import back)."""
    options = dict(task)
    if folds is not None:
        options["folds"] = folds
    return options.pop("reduce")(log, **options)
