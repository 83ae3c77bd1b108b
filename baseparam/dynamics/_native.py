"""Native kernels: an expression graph written out as C, compiled once into a cache, called by ctypes.

One sample of a 7-DOF arm's forward dynamics is about 2000 operations. As straight-line Python on
floats, one interpreted statement each, that is too slow for a 1 kHz loop and for simulating 10 s
at 1 kHz with RK4 (40 000 evaluations) in a couple of seconds; the same statements in C are about
two orders of magnitude faster (``bench/bench_forward.py`` prints the figures). So the graph is printed as C99 (one
``const double`` per node, nothing beyond ``<math.h>``), with an RK4 integrator around it, compiled
with the system C compiler into a cache directory keyed by the source's hash, and loaded with
ctypes. Where no compiler is found, or compiling fails, callers fall back to the straight-line
Python (:func:`load` returns None) — slower, never wrong.

Environment: ``BASEPARAM_CC`` names the compiler (default ``$CC``, else ``cc``; ``none`` turns
native code off). ``BASEPARAM_CACHE_DIR`` is the cache of compiled kernels (default
``$XDG_CACHE_HOME/baseparam``, else ``~/.cache/baseparam``; a relative ``XDG_CACHE_HOME`` is ignored, as the XDG
specification asks, and with no absolute home either nothing is kept on disk): files ``kernel_<hash>.so``, one per
robot and kernel, each written once (atomically) and never changed; deleting the folder clears it
(they are compiled again when next needed). Each library ends in a seal (a mark and the SHA-256 of the bytes before
it; the loader ignores bytes past its tables): one that is not a regular file or whose seal does not match (cut short
by a crash or a full disk, zeros where a crash lost blocks, an earlier version's) is compiled again, not loaded — the
loader dies of SIGBUS on a cut library and waits for ever on a fifo; where the cache will not take the new one (a
folder under the name, another user's file in a shared folder, a cache the run cannot write in), the run loads its own
copy, compiled as without a cache. A library is loaded only when it is this user's and no one else may write it,
and the cache only when no other user may change it (it this user's or the superuser's, and each folder from the
root to it writable by no one else but its owner unless sticky, as ``/tmp``): a library is code the process runs,
and anyone can seal one (the seal says whole, not whose); another user's under the name is compiled over for the
run, and a cache others may change is not used (said once).
``BASEPARAM_CACHE_DIR=none`` keeps nothing on disk:
each kernel is compiled into a temporary folder, loaded, and the folder removed at once (so a new
process compiles again). A compile works in a scratch folder named with the process id (``tmp-kernel-PID-…`` in
the cache, ``baseparam-kernel-PID-…`` in the system's temporary folder without one), removed when it ends, by the
command's forced exit too, and, left by a killed run, by a later run's first use of the cache once stale.
"""
from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

from .._atomic import make_folders, remove_folders
from .._leftovers import RANDOM_END, remove_stale_folders, remove_tree, run_folder_names, run_prefix
from .._output_names import free_space

# No optimization for long kernels: gcc's compile time grows faster than the code at -O1/-O2 (a 30-body
# chain: over 20 times longer than at -O0) and, on straight-line code that long, the optimizer gains little.
FLAGS = ("-O0", "-std=c99", "-fPIC", "-shared")
# -O1 for kernels of up to O1_LINES statements: register allocation makes a 7-DOF arm's code 2-4 times
# faster (forward dynamics ≈ 0.4 µs a sample against 1.5 µs at -O0; the regressor's loop ≈ 0.4 against
# 1.5 µs) for under a second more of compiling, once per machine (cached). The numbers stay the same to the
# bit: no -ffast-math, and -std=c99 keeps gcc from contracting a * b + c into a fused multiply-add.
O1_FLAGS, O1_LINES = ("-O1",) + FLAGS[1:], 5_000
COMPILE_TIMEOUT = 300          # s: a 50-body chain's kernel is a few 10 000 lines
# The libraries loaded in this process, by key; one lock per key (taken under _LOADING_LOCK) makes a second thread
# asking for a kernel another is compiling wait for that one's library instead of compiling it again
_LOADED: dict = {}
_LOADING: dict = {}
_LOADING_LOCK = threading.Lock()


def compiler():
    """The C compiler command, or None when native code is off or no compiler is found."""
    name = os.environ.get("BASEPARAM_CC") or os.environ.get("CC") or "cc"
    if name.strip().lower() in ("none", "off", "0", ""):
        return None
    return shutil.which(name)


_OFF = ("none", "off", "0")


def cache_dir():
    """The folder of compiled kernels, or None when ``BASEPARAM_CACHE_DIR`` turns the disk cache off."""
    root = os.environ.get("BASEPARAM_CACHE_DIR")
    if root and root.strip().lower() in _OFF:
        return None
    if not root:
        # a relative XDG_CACHE_HOME or home (HOME=relative, HOME=) would put the cache in the run's folder: the XDG
        # specification has relative values ignored; without an absolute home, nothing is kept
        xdg = os.environ.get("XDG_CACHE_HOME")
        home = os.path.expanduser("~") if os.environ.get("HOME", "~") else ""
        base = xdg if xdg and os.path.isabs(xdg) else os.path.join(home, ".cache") if os.path.isabs(home) else None
        return None if base is None else os.path.join(base, "baseparam")
    return root


# A compile's scratch folder (kernel.c, kernel.so), in the folder of the kernel it makes: named with the process id,
# so that a killed run's (SIGKILL runs no ``finally``) is told from a live one's and removed by a later compile once
# stale (baseparam._leftovers.stale_entries); ``tmpXXXXXXXX``, without an id, are earlier versions' (after a day).
# Only a real folder holding nothing but those two files is removed (an id-less one: not empty, as any
# tempfile.mkdtemp() is): BASEPARAM_CACHE_DIR may name a shared folder.
# Each kind: (the new folder's prefix (_leftovers.run_prefix: PID-HOST- follow; _leftovers.run_folder_names: the names
# judged, another machine's never), the prefix of the names looked at, whether the id-less tmpXXXXXXXX are judged too,
# the names a stale folder may hold, None: any).
IN_CACHE = ("tmp-kernel-", "tmp", True, {"kernel.c", "kernel.so"})
# Without a disk cache: the temporary folder of one load's kernel, in the system's temporary folder (its name is ours).
NO_CACHE = ("baseparam-kernel-", "baseparam-kernel-", False, None)
# This process's scratch folders while it compiles: the command's entry point removes them when it must end the
# process without unwinding the stack (baseparam._entry: a second SIGTERM, a lost signal).
_LIVE = set()
# The compilers running (subprocess.Popen), which remove_live stops when the entry point ends the process at once.
_COMPILERS = set()


def load(source, functions, flags=FLAGS):
    """Compile (once, cached on disk) and load a C source; None when that is not possible.

    Parameters
    ----------
    source : str
    functions : dict of str → (restype, argtypes)
        The ctypes signatures to attach.
    flags : tuple of str
        Compiler flags (default :data:`FLAGS`).

    Returns
    -------
    ctypes.CDLL or None
    """
    cc = compiler()
    if cc is None:
        return None
    key = hashlib.sha256("\0".join((source, cc, *flags, sys.platform)).encode()).hexdigest()[:32]
    lib = _LOADED.get(key)
    if lib is not None:
        return lib
    with _LOADING_LOCK:
        loading = _LOADING.setdefault(key, threading.Lock())
    with loading:
        lib = _LOADED.get(key)                  # loaded by the thread this one waited for
        if lib is not None:
            return lib
        folder = _trusted_cache(cache_dir())
        if folder is not None:
            _sweep_once(folder)
        # no disk cache: compile in a temporary folder, gone once loaded
        with (contextlib.nullcontext(folder) if folder is not None else
              _scratch(tempfile.gettempdir(), NO_CACHE)) as where:
            lib = _open(cc, source, os.path.join(where, f"kernel_{key}.so"), functions, flags)
        if lib is not None:
            _LOADED[key] = lib
    return lib


def flags_for(lines):
    """The compiler flags for a kernel of ``lines`` statements: :data:`O1_FLAGS` up to :data:`O1_LINES`,
    else :data:`FLAGS`."""
    return O1_FLAGS if lines <= O1_LINES else FLAGS


def holding_gil(function):
    """A function of a library from :func:`load` as a ctypes function that keeps the GIL, its arguments
    passed as given (ctypes objects such as ``ctypes.c_void_p``: no ``argtypes`` to apply per call).

    For short calls from Python: a CDLL's function releases and retakes the GIL around each call,
    which costs time and, while another thread runs Python, a wait of up to the interpreter's
    switch interval to get it back (pybind11's bindings, pinocchio's among them, keep it too).
    """
    call = ctypes.PYFUNCTYPE(function.restype)(ctypes.cast(function, ctypes.c_void_p).value)
    call.argtypes = None
    return call


def address(a):
    """The address of a C-contiguous ndarray's first byte, for a C function's pointer argument.

    Through a ctypes view of its buffer, a fraction of the cost of ``a.ctypes.data`` (which builds an
    object of numpy's ctypes helper): a regressor's sample from Python passes seven pointers.
    An array that a buffer view refuses (read-only, empty, not C-contiguous) by ``a.ctypes.data``.
    """
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    except (TypeError, ValueError):         # read-only, empty, strided
        return a.ctypes.data


def _ours_alone(info, folder=False, above=False):
    """Whether the file (``folder``: the folder) of ``os.stat`` result ``info`` is this user's and writable by no
    other: a folder may also be the superuser's (``/``, ``/tmp``), and writable by others when sticky (others may add
    files there, never rename or remove this user's); a folder ``above`` the cache may be any owner's (a system
    account's ``/home`` or ``/work``, a container's overflow id 65534 for a host's folder) as long as no one else may
    write it. Writable by its group is writable by this user alone when the group is the user's private group
    (Debian's and Ubuntu's umask 002 makes ``~/.cache`` so). Always True where there are no owners (Windows)."""
    if not hasattr(os, "geteuid"):
        return True
    owners = (os.geteuid(), 0) if folder else (os.geteuid(),)
    others_write = info.st_mode & (stat.S_IWOTH if _private_group(info.st_gid) else stat.S_IWGRP | stat.S_IWOTH)
    return (above or info.st_uid in owners) and not (others_write and not (folder and info.st_mode & stat.S_ISVTX))


def _private_group(gid):
    """Whether the group ``gid`` is this user's private group: named as the user, no other member listed, and no
    other user's primary group (:func:`_primary_group_of_another`)."""
    try:
        import grp
        import pwd

        group, user = grp.getgrgid(gid), pwd.getpwuid(os.geteuid())
    except (ImportError, KeyError, OverflowError):
        return False
    return (group.gr_name == user.pw_name and set(group.gr_mem) <= {user.pw_name}
            and not _primary_group_of_another(gid, user.pw_uid))


_MAX_USERS = 1 << 16        # password entries looked through; a directory of more is not read (the group not private)


def _primary_group_of_another(gid, uid):
    """Whether ``gid`` is the primary group of a user other than ``uid``, who is in the group without being listed
    in its members (the password database names a user's primary group, the group database only its other members).
    True when the database holds more than :data:`_MAX_USERS` entries: a directory service of many users is not
    looked through for each folder checked, and the group is then taken as shared."""
    import pwd

    try:
        entries = pwd.getpwall()
    except OSError:             # a directory service that cannot be read: whose group it is, unknown
        return True
    if len(entries) > _MAX_USERS:
        return True
    return any(entry.pw_gid == gid and entry.pw_uid != uid for entry in entries)


_UNTRUSTED_SAID = set()         # the caches this process has said it does not use


def _trusted_cache(folder):
    """``folder`` (a cache of compiled kernels, or None) as its real path, when no other user can put a library there
    under a kernel's name or swap one after its check: it and every folder above it (through links; the nearest
    existing ones when it is still to be made) pass :func:`_ours_alone` (the folders above it: whoever owns them).
    Else None (kernels compiled for the run only), said once. The real path, not ``folder``: a link on the way to it
    in a folder others may write could be swapped between a library's check and its load, and the folders checked
    are those of the real path."""
    if folder is None:
        return None
    real = os.path.realpath(folder)
    path = real
    while True:
        try:
            info = os.stat(path)
        except OSError:
            info = None                 # still to be made (its parent decides), or unreadable (the compile says)
        if info is not None and not _ours_alone(info, folder=True, above=path != real):
            if real not in _UNTRUSTED_SAID:
                from .._warnings import warn
                from ..errors import printable

                _UNTRUSTED_SAID.add(real)
                warn(f"kernel cache {printable(folder)}: {printable(path)} may be changed by another user "
                     f"(owner {info.st_uid}, mode {stat.S_IMODE(info.st_mode):04o}); not used: kernels are compiled "
                     "for each run (chmod go-w it, or set BASEPARAM_CACHE_DIR to a folder of yours)")
            return None
        parent = os.path.dirname(path)
        if parent == path:
            return real
        path = parent


# The seal that ends each library this module writes: this mark, then the SHA-256 of the bytes before it
SEAL = b"\0baseparam-kernel-sha256\0"
_SEALED_MAX = 1 << 30               # bytes: a kernel library is at most a few 10 MB; a larger file is not one of ours


def sealed(path):
    """Whether ``path`` is a regular file (not a link, a fifo, a folder) of this user's that no other may write
    (:func:`_ours_alone`) ending in a :data:`SEAL` that matches the bytes before it; opened without blocking (a fifo)
    and without following a link."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return False
    try:
        info = os.fstat(fd)                     # before a file object, which refuses a folder with its own error
        if not stat.S_ISREG(info.st_mode) or not len(SEAL) + 32 <= info.st_size <= _SEALED_MAX:
            return False
        if not _ours_alone(info):          # anyone can seal a library: another user's would run as this user
            return False
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read()
    except OSError:
        return False
    finally:
        os.close(fd)
    body, mark, digest = data[:-len(SEAL) - 32], data[-len(SEAL) - 32:-32], data[-32:]
    return mark == SEAL and hashlib.sha256(body).digest() == digest


def _seal(path):
    """Append :data:`SEAL` and the SHA-256 of its bytes to the library at ``path``."""
    with open(path, "rb+") as stream:
        digest = hashlib.sha256(stream.read()).digest()
        stream.write(SEAL + digest)


def _open(cc, source, path, functions, flags):
    """The library at ``path`` (compiled there first if absent or not :func:`sealed`) with its signatures, or None."""
    if sealed(path):
        return _load(path, functions)
    return _compile(cc, source, path, flags, functions)


def _load(path, functions):
    """The library at ``path`` with its signatures, or None."""
    try:
        lib = ctypes.CDLL(path)
        for name, (restype, argtypes) in functions.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
    except (OSError, AttributeError):
        return None
    return lib


@contextlib.contextmanager
def _scratch(folder, kind):
    """A new folder in ``folder`` (``kind``: :data:`IN_CACHE` or :data:`NO_CACHE`), named with this process's id,
    registered in :data:`_LIVE` while the block runs and removed after it, whatever ends it; the stale ones of killed
    runs go first."""
    remove_stale_scratch(folder, kind)
    tmp = tempfile.mkdtemp(prefix=run_prefix(kind[0]), dir=folder)
    _LIVE.add(tmp)
    try:
        yield tmp
    finally:
        remove_tree(tmp)
        _LIVE.discard(tmp)


# The caches whose killed runs' scratch folders this process has removed (_sweep_once)
_SWEPT = set()


def _sweep_once(folder):
    """Remove the stale scratch folders of killed runs in the cache ``folder``, once per process and cache: a run
    that only loads kernels compiled before never compiles, and a killed compile's folder (kernel.c, part of
    kernel.so) would stay until some later run compiled a new kernel. One listing of the cache, in the first load."""
    if folder not in _SWEPT:
        _SWEPT.add(folder)
        remove_stale_scratch(folder)


def remove_stale_scratch(folder, kind=IN_CACHE, now=None):
    """Remove the scratch folders of ``kind`` that killed runs of this user on this machine left in ``folder`` (only
    real folders, holding nothing but the names ``kind`` allows, and some of them when the name is not ours;
    :func:`baseparam._leftovers.remove_stale_folders`); returns their names."""
    pattern = run_folder_names(kind[0])
    if kind[2]:                                 # group 1 None: judged as names without an id are
        pattern = re.compile(f"{pattern.pattern}|^tmp{RANDOM_END}")

    def ours(entry):
        if kind[3] is None:
            return True
        names = set(os.listdir(entry.path))
        # an empty tmpXXXXXXXX is any Python program's tempfile.mkdtemp() (BASEPARAM_CACHE_DIR=/tmp): only one holding
        # a compile's files, and nothing else, is an earlier version's; one of our names (with or without the host) is
        # ours even empty (a run killed before it wrote kernel.c)
        return names <= kind[3] and (bool(names) or entry.name.startswith(kind[0]))
    return remove_stale_folders(folder, kind[1], pattern, ours, now)


def remove_live(wait=0.5):
    """Remove this process's scratch folders (the command's entry point, ending the process without unwinding), its
    compilers stopped first (they would write there again): each given ``wait`` seconds after SIGTERM, then as many
    after SIGKILL (a worker ending on its pool's SIGTERM gives less, :data:`baseparam._processes.WORKER_CLEANUP_WAIT`,
    to be done before its parent's SIGKILL)."""
    for process in list(_COMPILERS):
        _stop_group(process, wait=wait)
    for tmp in list(_LIVE):
        remove_tree(tmp)


def _run_compiler(command):
    """Run the compiler ``command`` in a process group of its own; its exit status.

    Stopped (Ctrl-C or SIGTERM to baseparam alone, a timeout), the whole group is sent SIGTERM, on which the compiler
    driver removes its temporary files, and is waited for (then SIGKILL): ``subprocess.run`` would kill the driver
    alone by SIGKILL and leave its ``$TMPDIR/cc*.s`` and the assembler's output in our scratch folder (written after
    that folder is removed, so made again) behind."""
    kwargs = {"start_new_session": True} if hasattr(os, "killpg") else {}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    _COMPILERS.add(process)
    try:
        return process.wait(timeout=COMPILE_TIMEOUT)
    except BaseException:
        _stop_group(process)
        raise
    finally:
        _COMPILERS.discard(process)


def _stop_group(process, wait=1.0):
    """End ``process`` and its group: SIGTERM, ``wait`` seconds, then SIGKILL."""
    import signal

    for number, patience in ((signal.SIGTERM, wait), (getattr(signal, "SIGKILL", signal.SIGTERM), wait)):
        with contextlib.suppress(OSError):
            if hasattr(os, "killpg"):
                os.killpg(process.pid, number)
            else:
                process.send_signal(number)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=patience)
            return


# Bytes a compile's scratch folder needs beyond twice the source (kernel.c, then kernel.so, rarely larger)
_COMPILE_ROOM = 1 << 20


def _refuse_full(folder, source):
    """Raise OSError (ENOSPC) when ``folder``'s file system has not the room a compile of ``source`` needs there: in a
    cache on a full disk, writing kernel.c would fail and every kernel of every run fall back to Python's (10 to 100
    times slower), where the system's temporary folder may have the room."""
    import errno

    free = free_space(os.path.join(folder, "kernel.c"))
    if free is not None and free < 2 * len(source.encode("utf-8")) + _COMPILE_ROOM:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), folder)


def _compile(cc, source, path, flags, functions):
    """Compile ``source`` into the shared library ``path`` (atomically: a temporary name, then rename) and load it
    (:func:`_load`); None when it does not compile. The cache's folders it makes are removed again when it keeps
    nothing there (else a full disk would leave an empty ~/.cache/baseparam)."""
    made = []
    try:
        with contextlib.ExitStack() as stack:
            try:
                made = make_folders(os.path.dirname(path), with_outputs=False)
                for new in made:            # changed by no one else whatever the umask, else not used next run
                    os.chmod(new, stat.S_IMODE(os.stat(new).st_mode) & ~(stat.S_IWGRP | stat.S_IWOTH))
                _refuse_full(os.path.dirname(path), source)
                tmp = stack.enter_context(_scratch(os.path.dirname(path), IN_CACHE))
            except OSError:
                # a cache this run cannot write in (read-only, another user's, a full disk): compiled in the system's
                # temporary folder and loaded from there, as without a cache (an earlier version's library under the
                # name, not sealed, would leave Python's kernels to every run)
                tmp = stack.enter_context(_scratch(tempfile.gettempdir(), NO_CACHE))
            src, lib = os.path.join(tmp, "kernel.c"), os.path.join(tmp, "kernel.so")
            with open(src, "w", encoding="utf-8") as stream:
                stream.write(source)
            if _run_compiler([cc, *flags, "-o", lib, src, "-lm"]) != 0 or not os.path.exists(lib):
                return None
            # writable by this user alone whatever the umask (0: the compiler's 0777), else refused when loaded next
            os.chmod(lib, stat.S_IMODE(os.stat(lib).st_mode) & ~(stat.S_IWGRP | stat.S_IWOTH))
            _seal(lib)
            try:
                os.replace(lib, path)
            except OSError:
                # the cache keeps what is under the name (another user's library in a shared folder with the sticky
                # bit, an earlier version's in a read-only entry, a folder): this run loads its own copy from the
                # scratch folder, removed after as without a cache, rather than Python's kernels in every run
                return _load(lib, functions)
        return _load(path, functions)
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if made and not os.path.lexists(path):     # only while empty: another run may have put its kernel there
            remove_folders(made)


__all__ = ["address", "cache_dir", "compiler", "flags_for", "holding_gil", "load"]
